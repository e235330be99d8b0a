/*
 * Private to meshgen: which objects of an hwloc topology are the devices of
 * an inventory, and what is kept of each (docs/reference.md §2). The
 * generator (gen/topology.c) and the placement library (runtime/placement.c,
 * for meshgen_verify) both read topologies through these functions, so the
 * tables a mesh is compiled from and the machine it is checked against are
 * described by exactly the same rules.
 *
 * Plain C over hwloc 2.x: no allocation (callers pass the arrays, sized by
 * meshgen__gpu_capacity), no generator or runtime types beyond the kind
 * numbers of <meshgen/meshgen.h>. Strings come back as hwloc holds them,
 * valid while the topology lives; meshgen__sanitize makes a copy safe to
 * store or print. Not installed; the placement library is built with hidden
 * visibility, so it does not export them (only what <meshgen/meshgen.h>
 * marks MESHGEN_API), and the double underscore keeps them apart from the
 * public names in a static link.
 */
#ifndef MESHGEN_HWLOC_DEVICES_H
#define MESHGEN_HWLOC_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#if HWLOC_API_VERSION < 0x00020000 || HWLOC_API_VERSION >= 0x00030000
#error "meshgen reads topologies through the hwloc 2.x API"
#endif

/* Room for "dddd:bb:dd.f" with a 32-bit domain and a NUL. */
#define MESHGEN__PCI_BUSID_SIZE 24

/* One compute OS device (cuda0, nvml0, rsmi0, ...) of a GPU. */
struct meshgen__gpu_os {
    hwloc_obj_t os;
    hwloc_obj_t pci; /* NULL: no PCI device above it */
    uint64_t key;    /* PCI bus id as one number; UINT64_MAX without PCI */
    int rank;        /* backend preference, 0 best */
};

/* One GPU: a PCI device with its compute OS devices (none when its class
 * and vendor alone make it a GPU), or a lone OS device. */
struct meshgen__gpu {
    hwloc_obj_t pci;    /* NULL for an OS device with no PCI device */
    hwloc_obj_t anchor; /* where it sits in the tree: pci, else the OS device */
    uint64_t key;
    const struct meshgen__gpu_os *os; /* its OS devices, best backend first */
    int n_os;
};

/* What an inventory keeps of one device, as the topology has it. */
struct meshgen__device {
    int kind;                          /* enum meshgen_device_kind */
    int os_index;                      /* CPU objects: hwloc OS index, -1 when unknown; GPUs: -1 */
    int numa;                          /* OS index of its first NUMA node, -1 when unknown */
    char pci[MESHGEN__PCI_BUSID_SIZE]; /* normalised bus id, "" when none */
    int vendor_id;                     /* PCI vendor id of a GPU's PCI device, 0 when none */
    /* hwloc's name, else the vendor table's (meshgen_vendor_name); NULL
     * when unknown, else not sanitised */
    const char *vendor;
    const char *model;
    const char *uuid;
    hwloc_const_bitmap_t cpuset; /* its local CPUs, NULL when unknown */
    hwloc_obj_t anchor;          /* its place in the tree, for closeness */
};

/* The number of entries each of the two arrays given to meshgen__find_gpus
 * must have room for (at least 1, so that it is always a valid size). */
size_t meshgen__gpu_capacity(hwloc_topology_t topo);

/*
 * Fills gpus[] with the GPUs of a topology in PCI bus id order and returns
 * their count; os[] receives the compute OS devices they point into. Both
 * arrays have meshgen__gpu_capacity(topo) entries and must outlive gpus.
 */
int meshgen__find_gpus(hwloc_topology_t topo, struct meshgen__gpu_os *os,
                       struct meshgen__gpu *gpus);

/* The PCI device an OS device belongs to (through parent OS devices, as for
 * Level Zero subdevices), or NULL. */
hwloc_obj_t meshgen__pci_of(hwloc_obj_t o);

/* A PCI device's bus id as one number that sorts like the bus id. */
uint64_t meshgen__pci_key(hwloc_obj_t pci);

/* The first of the n GPUs at g (sorted by key) whose key is not below
 * key: its index, or n. */
int meshgen__gpu_lower_bound(const struct meshgen__gpu *g, int n, uint64_t key);

/* Describes GPU g of a topology. */
void meshgen__gpu_device(hwloc_topology_t topo, const struct meshgen__gpu *g,
                         struct meshgen__device *out);

/* The number of CPU objects of a kind (core, numa, package or pu); cores
 * are the PUs in a topology without Core objects. */
int meshgen__cpu_count(hwloc_topology_t topo, int kind);

/* Describes CPU object i (hwloc logical index) of a kind. */
void meshgen__cpu_device(hwloc_topology_t topo, int kind, int i, struct meshgen__device *out);

/* Writes set as a cpulist ("0-3,8-11") into buf of cap bytes like snprintf
 * and returns the length it needs; "" for a NULL or empty set. */
int meshgen__cpulist(hwloc_const_bitmap_t set, char *buf, size_t cap);

/* Makes the n bytes at s safe to carry into tables, JSON and terminals, in
 * place: control bytes and bytes that are not valid UTF-8 become '?'. A
 * hostile XML can hold anything; the length never changes. */
void meshgen__sanitize(char *s, size_t n);

/* The major number of the XML format version that a topology file declares
 * in its root tag (<topology version="3.0"> gives 3), or -1 when it declares
 * none. xml is NUL-terminated. A hint for error messages only: whether a
 * file loads is hwloc's parser's decision. */
int meshgen__xml_version_major(const char *xml);

/*
 * Why a topology XML buffer must not reach hwloc, or NULL when it may
 * (docs/reference.md §2, "What a topology file may hold"). hwloc 2.9's
 * libxml2 import dereferences the DOCTYPE's system identifier without
 * checking it, so a document whose DOCTYPE has none (`<!DOCTYPE topology>`,
 * `<!DOCTYPE topology [ ]>`) crashes the process; an encoding other than
 * UTF-8 (UTF-16, UTF-7) can hide such a DOCTYPE from a byte scan. So the
 * prolog is read here first, and refused when it holds a NUL byte, is
 * EBCDIC, declares an encoding other than UTF-8, US-ASCII or
 * ISO-8859-1, or has a DOCTYPE other than `<!DOCTYPE name SYSTEM "..."` or
 * `<!DOCTYPE name PUBLIC "..." "...">` (no internal subset). xml holds len
 * bytes and a NUL at xml[len]; *at receives the byte offset of what is
 * refused. The reason is a static phrase that completes "the file holds
 * ...". Everything after the prolog is hwloc's to judge.
 */
const char *meshgen__xml_refusal(const char *xml, size_t len, size_t *at);

#endif /* MESHGEN_HWLOC_DEVICES_H */
