/*
 * The device inventory of one machine: an hwloc XML file, a synthetic hwloc
 * description or this machine (live discovery) becomes one host using one
 * struct mg_topology — its GPUs, cores, NUMA nodes, packages and PUs, each
 * with PCI id, vendor/model, UUID, NUMA node and cpuset, a closeness matrix
 * per kind, and a digest of what was extracted.
 *
 * This is the only file of the generator that includes <hwloc.h>. Everything
 * later stages need is copied into the arena and the hwloc topology is
 * destroyed before returning, so no hwloc type or pointer escapes. It knows
 * nothing about mesh specs, plans or emitted C. Inventory YAML files (many
 * hosts) are parsed elsewhere; this file only has the place that sends them
 * there (see mg_inventory_load).
 */
#include "inventory.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#if HWLOC_API_VERSION < 0x00020000
#error "meshgen needs the hwloc 2.x API"
#endif

#define MG_CHECK_LOAD "inventory-load"
#define MG_CHECK_CLOSENESS "inventory-closeness"

/* A real export is well under 1 MiB; the bound keeps hostile input cheap. */
#define MG_XML_MAX_BYTES ((size_t)64 << 20)
/* hwloc builds a synthetic topology in time quadratic in its PUs (16384
 * PUs take seconds, 65536 a minute), and does whatever it is told. */
#define MG_SYNTHETIC_MAX_LEAVES 8192
/* n*n ints per kind: 4096 devices is 64 MiB, past any real machine's GPUs
 * or cores and still quick to fill. */
#define MG_CLOSENESS_MAX 4096

static const char *const mg_kind_names[MG_N_KINDS] = {
    [MG_KIND_GPU] = "gpu",         [MG_KIND_CORE] = "core", [MG_KIND_NUMA] = "numa",
    [MG_KIND_PACKAGE] = "package", [MG_KIND_PU] = "pu",
};

const char *mg_kind_name(int kind)
{
    return kind >= 0 && kind < MG_N_KINDS ? mg_kind_names[kind] : "unknown";
}

int mg_kind_from_name(const char *name)
{
    int k;
    for (k = 0; name && k < MG_N_KINDS; k++)
        if (strcmp(name, mg_kind_names[k]) == 0)
            return k;
    return -1;
}

/* ---- small helpers ------------------------------------------------------- */

static int mg_ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix), i;
    if (m > n)
        return 0;
    for (i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t mg_utf8_len(const unsigned char *p, size_t n)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len, i;

    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        len = 3;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    if (len > n || p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

/* A copy of an hwloc string that is safe to carry into tables, JSON and
 * terminals: a hostile XML can hold anything, so control bytes and bytes
 * that are not valid UTF-8 become '?'. NULL becomes "". */
static const char *mg_safe_ndup(struct mg_arena *a, const char *s, size_t n)
{
    unsigned char *p = (unsigned char *)mg_strndup(a, s, n);
    size_t i = 0;

    while (i < n) {
        size_t len = 1;
        if (p[i] < 0x20 || p[i] == 0x7f)
            p[i] = '?';
        else if (p[i] >= 0x80 && (len = mg_utf8_len(p + i, n - i)) == 0) {
            p[i] = '?';
            len = 1;
        }
        i += len;
    }
    return (const char *)p;
}

static const char *mg_safe_dup(struct mg_arena *a, const char *s)
{
    return s ? mg_safe_ndup(a, s, strlen(s)) : "";
}

static const char *mg_info(hwloc_obj_t o, const char *name)
{
    const char *v = o ? hwloc_obj_get_info_by_name(o, name) : NULL;
    return v && *v ? v : NULL;
}

static const char *mg_cpulist(struct mg_arena *a, hwloc_const_bitmap_t set)
{
    int n;
    char *s;

    if (!set)
        return "";
    n = hwloc_bitmap_list_snprintf(NULL, 0, set);
    if (n <= 0)
        return "";
    s = mg_alloc(a, (size_t)n + 1);
    hwloc_bitmap_list_snprintf(s, (size_t)n + 1, set);
    return s;
}

/* NUMA nodes are named by OS index, as numactl counts them; the nodeset
 * holds OS indexes. */
static int mg_first_numa(hwloc_const_bitmap_t nodeset)
{
    int i = nodeset ? hwloc_bitmap_first(nodeset) : -1;
    return i < 0 ? -1 : i;
}

/* Number of parent links to the root. hwloc_get_common_ancestor_obj
 * compares level depths, which are negative for I/O and memory objects, so
 * the tree is measured by walking parents instead; for normal objects this
 * equals obj->depth. */
static int mg_tree_depth(hwloc_obj_t o)
{
    int d = 0;
    while (o->parent) {
        o = o->parent;
        d++;
    }
    return d;
}

static int mg_common_depth(hwloc_obj_t x, int dx, hwloc_obj_t y, int dy)
{
    while (dx > dy) {
        x = x->parent;
        dx--;
    }
    while (dy > dx) {
        y = y->parent;
        dy--;
    }
    while (x != y) {
        x = x->parent;
        y = y->parent;
        dx--;
    }
    return dx;
}

/* ---- GPUs ----------------------------------------------------------------- */

/* Compute backends in order of preference when one GPU has several OS
 * devices: NVML and RSMI carry the UUID, CUDA and OpenCL only a model. */
static const struct {
    const char *backend; /* the "Backend" info value */
    const char *prefix;  /* OS device name prefix, for exports without it */
} mg_backends[] = {
    {"NVML", "nvml"}, {"CUDA", "cuda"}, {"RSMI", "rsmi"}, {"LevelZero", "ze"}, {"OpenCL", "opencl"},
};
#define MG_N_BACKENDS ((int)(sizeof mg_backends / sizeof mg_backends[0]))

/* The backend rank of a compute OS device, or -1 when the object is not one.
 * The subtype is not used: exports before hwloc 2.5 lack it for NVML and
 * RSMI devices. DRM (card0, renderD128) and GL devices have no such backend. */
static int mg_backend_rank(hwloc_obj_t o)
{
    const char *backend = hwloc_obj_get_info_by_name(o, "Backend");
    int i;

    if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU && o->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC)
        return -1;
    for (i = 0; i < MG_N_BACKENDS; i++) {
        if (backend) {
            if (strcmp(backend, mg_backends[i].backend) == 0)
                return i;
        } else {
            size_t n = strlen(mg_backends[i].prefix);
            if (o->name && strncmp(o->name, mg_backends[i].prefix, n) == 0 && o->name[n] >= '0' &&
                o->name[n] <= '9')
                return i;
        }
    }
    return -1;
}

/* The PCI device an OS device belongs to (through parent OS devices, as
 * for Level Zero subdevices), or NULL. */
static hwloc_obj_t mg_pci_of(hwloc_obj_t o)
{
    hwloc_obj_t p = o->parent;
    while (p && p->type == HWLOC_OBJ_OS_DEVICE)
        p = p->parent;
    return p && p->type == HWLOC_OBJ_PCI_DEVICE ? p : NULL;
}

static uint64_t mg_pci_key(hwloc_obj_t pci)
{
    const struct hwloc_pcidev_attr_s *p = &pci->attr->pcidev;
    return (uint64_t)p->domain << 24 | (uint64_t)p->bus << 16 | (uint64_t)p->dev << 8 | p->func;
}

struct mg_gpu_os {
    hwloc_obj_t os;
    hwloc_obj_t pci; /* NULL: no PCI device above it */
    uint64_t key;    /* PCI bus id as one number; UINT64_MAX without PCI */
    int rank;
};

struct mg_gpu {
    hwloc_obj_t pci;    /* NULL for an OS device with no PCI device */
    hwloc_obj_t anchor; /* where it sits in the tree: pci, else the OS device */
    uint64_t key;
    const struct mg_gpu_os *os; /* its OS devices, best backend first */
    int n_os;
};

static int mg_cmp_gpu_os(const void *pa, const void *pb)
{
    const struct mg_gpu_os *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->os->logical_index < b->os->logical_index
               ? -1
               : a->os->logical_index > b->os->logical_index;
}

static int mg_cmp_gpu(const void *pa, const void *pb)
{
    const struct mg_gpu *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * The GPUs of a topology, sorted by PCI bus id (DESIGN §3). A GPU is an OS
 * device with a compute backend, one per PCI device however many backends
 * report it. OS devices without a PCI device cannot be told apart across
 * backends, so only those of the best backend among them count (after the
 * PCI ones). Only when the topology has no compute OS device at all — an
 * export without GPU backends, or Debian's hwloc with no CUDA/NVML/RSMI
 * plugin — do PCI 3D controllers and processing accelerators count. The
 * rule is per topology, not per PCI device: where backends did report,
 * a 3D controller they left out is not a usable GPU (the two Tesla M2075
 * of 32em64t-2n8c2t-pci-wholeio.xml, whose expected count is 2).
 */
static int mg_find_gpus(struct mg_arena *tmp, hwloc_topology_t topo, struct mg_gpu **out)
{
    struct mg_gpu_os *c;
    struct mg_gpu *g;
    hwloc_obj_t o = NULL;
    int n_os = 0, n_pci = 0, n = 0, i, best = MG_N_BACKENDS;

    while ((o = hwloc_get_next_osdev(topo, o)) != NULL)
        n_os++;
    c = mg_alloc_array(tmp, (size_t)n_os + 1, sizeof *c);
    n_os = 0;
    while ((o = hwloc_get_next_osdev(topo, o)) != NULL) {
        int rank = mg_backend_rank(o);
        if (rank < 0)
            continue;
        c[n_os].os = o;
        c[n_os].pci = mg_pci_of(o);
        c[n_os].key = c[n_os].pci ? mg_pci_key(c[n_os].pci) : UINT64_MAX;
        c[n_os].rank = rank;
        if (!c[n_os].pci && rank < best)
            best = rank;
        n_os++;
    }

    if (n_os > 0) {
        qsort(c, (size_t)n_os, sizeof *c, mg_cmp_gpu_os);
        g = mg_alloc_array(tmp, (size_t)n_os, sizeof *g);
        for (i = 0; i < n_os; i++) {
            if (c[i].pci && n > 0 && g[n - 1].pci && g[n - 1].key == c[i].key) {
                g[n - 1].n_os++;
                continue;
            }
            if (!c[i].pci && c[i].rank != best)
                continue;
            g[n].pci = c[i].pci;
            g[n].anchor = c[i].pci ? c[i].pci : c[i].os;
            g[n].key = c[i].key;
            g[n].os = &c[i];
            g[n].n_os = 1;
            n++;
        }
        *out = g;
        return n;
    }

    while ((o = hwloc_get_next_pcidev(topo, o)) != NULL)
        n_pci++;
    g = mg_alloc_array(tmp, (size_t)n_pci + 1, sizeof *g);
    while ((o = hwloc_get_next_pcidev(topo, o)) != NULL) {
        unsigned cls = o->attr->pcidev.class_id;
        if (cls != 0x0302 && cls != 0x1200)
            continue;
        g[n].pci = g[n].anchor = o;
        g[n].key = mg_pci_key(o);
        n++;
    }
    qsort(g, (size_t)n, sizeof *g, mg_cmp_gpu);
    /* Two PCI objects with one bus id only come from a forged file. */
    for (i = 0, n_pci = 0; i < n; i++)
        if (n_pci == 0 || g[n_pci - 1].key != g[i].key)
            g[n_pci++] = g[i];
    *out = g;
    return n_pci;
}

/* The index of the GPU an object of a distances matrix stands for, or -1. */
static int mg_gpu_index(const struct mg_gpu *g, int n, hwloc_obj_t o)
{
    hwloc_obj_t pci = o->type == HWLOC_OBJ_PCI_DEVICE  ? o
                      : o->type == HWLOC_OBJ_OS_DEVICE ? mg_pci_of(o)
                                                       : NULL;
    int lo = 0, hi = n, i;

    if (pci) {
        uint64_t key = mg_pci_key(pci);
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (g[mid].key < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < n && g[lo].key == key && g[lo].pci ? lo : -1;
    }
    for (i = 0; i < n; i++)
        if (!g[i].pci && g[i].anchor == o)
            return i;
    return -1;
}

#if HWLOC_API_VERSION >= 0x00020100
/* NVSwitch ports appear as PCI devices in the NVLink matrix of DGX-2-like
 * machines; GPUs there link only to switch ports, never to each other. */
static int mg_has_switch(const struct hwloc_distances_s *m)
{
    unsigned i;
    for (i = 0; i < m->nbobjs; i++)
        if (m->objs[i] && m->objs[i]->type == HWLOC_OBJ_PCI_DEVICE && m->objs[i]->subtype &&
            strcmp(m->objs[i]->subtype, "NVSwitch") == 0)
            return 1;
    return 0;
}

/*
 * GPU closeness from the first bandwidth matrix that covers every GPU:
 * the bandwidth of each pair, 0 for no link, the row maximum on the
 * diagonal. Returns 0 (and leaves out alone) when there is none.
 */
static int mg_gpu_bandwidth(struct mg_arena *tmp, hwloc_topology_t topo, const struct mg_gpu *g,
                            int n, int *out)
{
    static const char *const names[] = {"NVLinkBandwidth", "XGMIBandwidth"};
    size_t k;

    for (k = 0; k < sizeof names / sizeof names[0]; k++) {
        struct hwloc_distances_s *m = NULL;
        unsigned nr = 1, i;
        int *at, a, b, covered = 1;

        if (hwloc_distances_get_by_name(topo, names[k], &nr, &m, 0) < 0 || nr == 0 || !m)
            continue;
        if (mg_has_switch(m)) {
#if HWLOC_API_VERSION >= 0x00020500
            /* Merging the switch ports and closing transitively gives the
             * GPU-to-GPU bandwidth through the switches. Only here: on
             * matrices with direct links hwloc 2.9's closure zeroes them
             * (POWER8, see tests/data/hwloc/README.md). */
            if (hwloc_distances_transform(topo, m, HWLOC_DISTANCES_TRANSFORM_MERGE_SWITCH_PORTS,
                                          NULL, 0) < 0 ||
                hwloc_distances_transform(topo, m, HWLOC_DISTANCES_TRANSFORM_TRANSITIVE_CLOSURE,
                                          NULL, 0) < 0)
                covered = 0;
#else
            covered = 0; /* no transforms before hwloc 2.5: the tree is better */
#endif
        }
        at = mg_alloc_array(tmp, (size_t)n, sizeof *at);
        for (a = 0; a < n; a++)
            at[a] = -1;
        for (i = 0; covered && i < m->nbobjs; i++) {
            int gi = m->objs[i] ? mg_gpu_index(g, n, m->objs[i]) : -1;
            if (gi >= 0 && at[gi] < 0)
                at[gi] = (int)i;
        }
        for (a = 0; covered && a < n; a++)
            covered = at[a] >= 0;
        if (covered) {
            for (a = 0; a < n; a++) {
                int max = 0;
                for (b = 0; b < n; b++) {
                    hwloc_uint64_t v = m->values[(size_t)at[a] * m->nbobjs + (size_t)at[b]];
                    int c = v > INT_MAX ? INT_MAX : (int)v;
                    out[(size_t)a * (size_t)n + (size_t)b] = c;
                    if (b != a && c > max)
                        max = c;
                }
                out[(size_t)a * (size_t)n + (size_t)a] = max;
            }
        }
        hwloc_distances_release(topo, m);
        if (covered)
            return 1;
    }
    return 0;
}
#endif

/* ---- extraction ------------------------------------------------------------- */

/* The n*n closeness matrix of objects by the depth of their deepest common
 * ancestor, I/O bridges included: two GPUs behind one PCI switch are closer
 * than two under one package. The diagonal is the object's own depth. */
static void mg_tree_closeness(struct mg_arena *tmp, hwloc_obj_t *objs, int n, int *out)
{
    int *depth = mg_alloc_array(tmp, (size_t)n, sizeof *depth);
    int a, b;

    for (a = 0; a < n; a++)
        depth[a] = mg_tree_depth(objs[a]);
    for (a = 0; a < n; a++)
        for (b = a; b < n; b++) {
            int c = mg_common_depth(objs[a], depth[a], objs[b], depth[b]);
            out[(size_t)a * (size_t)n + (size_t)b] = c;
            out[(size_t)b * (size_t)n + (size_t)a] = c;
        }
}

/* A matrix for n devices, or NULL (with a warning) when n is too large. */
static int *mg_closeness_alloc(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                               const char *label, int kind, int n)
{
    if (n == 0)
        return NULL;
    if (n > MG_CLOSENESS_MAX) {
        mg_warning(d, MG_CHECK_CLOSENESS, at,
                   "inventory '%s' has %d %s devices, more than %d: no closeness matrix, so the "
                   "locality order treats them all as equally close",
                   label, n, mg_kind_name(kind), MG_CLOSENESS_MAX);
        return NULL;
    }
    return mg_alloc_array(a, (size_t)n * (size_t)n, sizeof(int));
}

/* The GPU vendor or model: from the best OS device that has it, else from
 * the PCI device's names. */
static const char *mg_gpu_name(struct mg_arena *a, const struct mg_gpu *g, const char *os_info,
                               const char *pci_info)
{
    int i;
    for (i = 0; i < g->n_os; i++)
        if (mg_info(g->os[i].os, os_info))
            return mg_safe_dup(a, mg_info(g->os[i].os, os_info));
    return mg_safe_dup(a, mg_info(g->pci, pci_info));
}

static const char *mg_gpu_uuid(struct mg_arena *a, const struct mg_gpu *g)
{
    int i;
    for (i = 0; i < g->n_os; i++) {
        const char *u = mg_info(g->os[i].os, "NVIDIAUUID");
        if (!u)
            u = mg_info(g->os[i].os, "AMDUUID");
        if (u)
            return mg_safe_dup(a, u);
    }
    return "";
}

static void mg_extract_gpus(struct mg_arena *a, struct mg_arena *tmp, struct mg_diags *d,
                            struct mg_mark at, hwloc_topology_t topo, struct mg_topology *t)
{
    struct mg_gpu *g;
    hwloc_obj_t *anchors;
    int n = mg_find_gpus(tmp, topo, &g), i;

    t->n[MG_KIND_GPU] = n;
    t->devs[MG_KIND_GPU] = mg_alloc_array(a, (size_t)n, sizeof(struct mg_devinfo));
    anchors = mg_alloc_array(tmp, (size_t)n, sizeof *anchors);
    for (i = 0; i < n; i++) {
        struct mg_devinfo *v = &t->devs[MG_KIND_GPU][i];
        hwloc_obj_t loc = hwloc_get_non_io_ancestor_obj(topo, g[i].anchor);

        v->kind = MG_KIND_GPU;
        v->os_index = -1;
        v->pci = "";
        if (g[i].pci) {
            const struct hwloc_pcidev_attr_s *p = &g[i].pci->attr->pcidev;
            v->pci = mg_printf(a, "%04x:%02x:%02x.%x", (unsigned)p->domain, (unsigned)p->bus,
                               (unsigned)p->dev, (unsigned)p->func);
        }
        v->vendor = mg_gpu_name(a, &g[i], "GPUVendor", "PCIVendor");
        v->model = mg_gpu_name(a, &g[i], "GPUModel", "PCIDevice");
        v->uuid = mg_gpu_uuid(a, &g[i]);
        v->cpuset = mg_cpulist(a, loc ? loc->cpuset : NULL);
        v->numa = mg_first_numa(loc ? loc->nodeset : NULL);
        anchors[i] = g[i].anchor;
    }
    t->closeness[MG_KIND_GPU] = mg_closeness_alloc(a, d, at, t->label, MG_KIND_GPU, n);
    if (!t->closeness[MG_KIND_GPU])
        return;
#if HWLOC_API_VERSION >= 0x00020100
    if (mg_gpu_bandwidth(tmp, topo, g, n, t->closeness[MG_KIND_GPU]))
        return;
#endif
    mg_tree_closeness(tmp, anchors, n, t->closeness[MG_KIND_GPU]);
}

/* CPU vendor/model live on the Package (or, in some exports, higher up). */
static const char *mg_cpu_info(struct mg_arena *a, hwloc_obj_t o, const char *name)
{
    for (; o; o = o->parent)
        if (mg_info(o, name))
            return mg_safe_dup(a, mg_info(o, name));
    return "";
}

static void mg_extract_cpu_kind(struct mg_arena *a, struct mg_arena *tmp, struct mg_diags *d,
                                struct mg_mark at, hwloc_topology_t topo, int kind,
                                struct mg_topology *t)
{
    static const hwloc_obj_type_t types[MG_N_KINDS] = {
        [MG_KIND_CORE] = HWLOC_OBJ_CORE,
        [MG_KIND_NUMA] = HWLOC_OBJ_NUMANODE,
        [MG_KIND_PACKAGE] = HWLOC_OBJ_PACKAGE,
        [MG_KIND_PU] = HWLOC_OBJ_PU,
    };
    int n = hwloc_get_nbobjs_by_type(topo, types[kind]), i;
    hwloc_obj_t *objs;

    if (n < 0)
        n = 0;
    t->n[kind] = n;
    t->devs[kind] = mg_alloc_array(a, (size_t)n, sizeof(struct mg_devinfo));
    objs = mg_alloc_array(tmp, (size_t)n, sizeof *objs);
    for (i = 0; i < n; i++) {
        struct mg_devinfo *v = &t->devs[kind][i];
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[kind], (unsigned)i);

        objs[i] = o;
        v->kind = kind;
        v->os_index =
            o->os_index == HWLOC_UNKNOWN_INDEX || o->os_index > INT_MAX ? -1 : (int)o->os_index;
        v->numa = mg_first_numa(o->nodeset);
        v->pci = "";
        v->uuid = "";
        v->vendor = mg_cpu_info(a, o, "CPUVendor");
        v->model = mg_cpu_info(a, o, "CPUModel");
        v->cpuset = mg_cpulist(a, o->cpuset);
    }
    t->closeness[kind] = mg_closeness_alloc(a, d, at, t->label, kind, n);
    if (t->closeness[kind])
        mg_tree_closeness(tmp, objs, n, t->closeness[kind]);
}

/* "\t<v>": printf would be most of the load time on a machine with
 * hundreds of PUs, whose matrices hold a hundred thousand numbers. */
static void mg_buf_tab_int(struct mg_buf *b, int v)
{
    char tmp[16], *p = tmp + sizeof tmp;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;

    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    *--p = '\t';
    mg_buf_put(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* The digest covers what was extracted, one line per item, not the source
 * bytes: re-exporting a topology or reformatting its XML keeps it. The
 * sanitised strings hold no tab or newline, so the text is unambiguous. */
static void mg_topology_digest(struct mg_topology *t)
{
    struct mg_buf b;
    int k, i, j;

    mg_buf_init(&b);
    mg_buf_puts(&b, "meshgen-topology 1\n");
    for (k = 0; k < MG_N_KINDS; k++) {
        const char *kn = mg_kind_name(k);
        mg_buf_printf(&b, "%s\t%d\n", kn, t->n[k]);
        for (i = 0; i < t->n[k]; i++) {
            const struct mg_devinfo *v = &t->devs[k][i];
            mg_buf_printf(
                &b, "%s[%d]\tos=%d\tnuma=%d\tpci=%s\tvendor=%s\tmodel=%s\tuuid=%s\tcpuset=%s\n", kn,
                i, v->os_index, v->numa, v->pci, v->vendor, v->model, v->uuid, v->cpuset);
        }
        for (i = 0; t->closeness[k] && i < t->n[k]; i++) {
            mg_buf_printf(&b, "%s-closeness[%d]", kn, i);
            for (j = 0; j < t->n[k]; j++)
                mg_buf_tab_int(&b, t->closeness[k][(size_t)i * (size_t)t->n[k] + (size_t)j]);
            mg_buf_puts(&b, "\n");
        }
    }
    mg_sha256_hex(b.data, b.len, t->digest);
    mg_buf_free(&b);
}

static void mg_extract(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                       hwloc_topology_t topo, const char *source, const char *label,
                       struct mg_topology *t)
{
    struct mg_arena tmp;
    int k;

    /* Scratch for sorting and hwloc pointers, dropped before returning. */
    mg_arena_init(&tmp);
    memset(t, 0, sizeof *t);
    t->key = mg_strdup(a, source);
    t->label = mg_strdup(a, label);
    mg_extract_gpus(a, &tmp, d, at, topo, t);
    for (k = 0; k < MG_N_KINDS; k++)
        if (k != MG_KIND_GPU)
            mg_extract_cpu_kind(a, &tmp, d, at, topo, k, t);
    mg_arena_free(&tmp);
    mg_topology_digest(t);
}

/* ---- sources ---------------------------------------------------------------- */

/* The whole file at path in heap memory with a NUL after it, or NULL with
 * an error naming it by label.
 * Reading it here rather than with hwloc_topology_set_xml() bounds the size
 * and gives errors that name the file and the reason. */
static char *mg_read_xml(struct mg_diags *d, struct mg_mark at, const char *path, const char *label,
                         size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    if (!f) {
        mg_error(d, MG_CHECK_LOAD, at, "cannot open inventory '%s': %s", label, strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;
        if (n == cap) {
            char *p;
            if (cap > MG_XML_MAX_BYTES)
                break;
            cap = cap ? cap * 2 : 64 * 1024;
            if (cap > MG_XML_MAX_BYTES)
                cap = MG_XML_MAX_BYTES + 1;
            p = realloc(buf, cap + 1);
            if (!p) {
                mg_error(d, MG_CHECK_LOAD, at, "out of memory reading inventory '%s'", label);
                goto fail;
            }
            buf = p;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        mg_error(d, MG_CHECK_LOAD, at, "cannot read inventory '%s': %s", label, strerror(errno));
        goto fail;
    }
    if (n > MG_XML_MAX_BYTES) {
        mg_error(d, MG_CHECK_LOAD, at, "inventory '%s' is larger than %zu MiB", label,
                 MG_XML_MAX_BYTES >> 20);
        goto fail;
    }
    if (n == 0) {
        mg_error(d, MG_CHECK_LOAD, at, "inventory '%s' is empty", label);
        goto fail;
    }
    /* hwloc's own parser stops at a NUL and libxml2 does not; refusing
     * them keeps both reading the same bytes. */
    if (memchr(buf, '\0', n)) {
        mg_error(d, MG_CHECK_LOAD, at, "inventory '%s' contains a NUL byte: not an hwloc XML file",
                 label);
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

/* The product of the arities in a synthetic description ("pack:2 core:4
 * pu:2" -> 16; attributes in parentheses skipped), which bounds the PUs it
 * asks for; or -1 when it exceeds MG_SYNTHETIC_MAX_LEAVES. */
static long mg_synthetic_leaves(const char *desc)
{
    const char *p = desc;
    long product = 1;
    int paren = 0;

    while (*p) {
        int starts = p == desc || p[-1] == ':' || p[-1] == ' ' || p[-1] == '\t';
        if (*p == '(') {
            paren++;
        } else if (*p == ')') {
            paren -= paren > 0;
        } else if (!paren && starts && *p >= '0' && *p <= '9') {
            long v = 0;
            for (; *p >= '0' && *p <= '9'; p++)
                if (v <= MG_SYNTHETIC_MAX_LEAVES)
                    v = v * 10 + (*p - '0');
            if (v > MG_SYNTHETIC_MAX_LEAVES || (product *= v) > MG_SYNTHETIC_MAX_LEAVES)
                return -1;
            continue;
        }
        p++;
    }
    return product;
}

enum mg_source_kind { MG_SRC_LIVE, MG_SRC_SYNTHETIC, MG_SRC_XML };

/* Points hwloc at the source and loads it. Every failure is reported,
 * naming the file by its label (as the user wrote it). */
static int mg_hwloc_load(struct mg_diags *d, struct mg_mark at, hwloc_topology_t topo,
                         enum mg_source_kind kind, const char *source, const char *label)
{
    const char *desc = kind == MG_SRC_SYNTHETIC ? source + strlen("synthetic:") : source;
    char *xml = NULL;
    size_t len = 0;
    int ok = 1;

    /* Without this, hwloc drops every PCI and OS device. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    switch (kind) {
    case MG_SRC_LIVE: break;
    case MG_SRC_SYNTHETIC:
        if (mg_synthetic_leaves(desc) < 0) {
            mg_error(d, MG_CHECK_LOAD, at,
                     "synthetic topology '%s' asks for more than %d objects at its lowest level",
                     desc, MG_SYNTHETIC_MAX_LEAVES);
            return 0;
        }
        ok = hwloc_topology_set_synthetic(topo, desc) == 0;
        break;
    case MG_SRC_XML:
        xml = mg_read_xml(d, at, source, label, &len);
        if (!xml)
            return 0;
        /* The length includes the NUL, as hwloc_topology_export_xmlbuffer
         * gives it. libxml2 parses here; a failure must stop us, or the
         * load below would quietly discover this machine instead. */
        ok = hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) == 0;
        break;
    }
    ok = ok && hwloc_topology_load(topo) == 0;
    free(xml);
    if (ok)
        return 1;
    switch (kind) {
    case MG_SRC_LIVE:
        mg_error(d, MG_CHECK_LOAD, at, "hwloc cannot discover this machine's topology: %s",
                 strerror(errno));
        break;
    case MG_SRC_SYNTHETIC:
        mg_error(d, MG_CHECK_LOAD, at,
                 "invalid synthetic topology description '%s' (hwloc's syntax: levels from the "
                 "top, the last one 'pu', e.g. 'pack:2 core:4 pu:2')",
                 desc);
        break;
    case MG_SRC_XML:
        /* hwloc says no more than that (its parser is silent unless
         * HWLOC_XML_VERBOSE is set), so list the usual reasons. */
        mg_error(d, MG_CHECK_LOAD, at,
                 "hwloc cannot load '%s': not a topology XML this hwloc can read (broken, "
                 "truncated, not XML, or exported by hwloc 3.x)",
                 label);
        break;
    }
    return 0;
}

/* The host name: the topology's HostName, else (for a file) the file's base
 * name without its extension, else "localhost". */
static const char *mg_host_name(struct mg_arena *a, hwloc_topology_t topo, enum mg_source_kind kind,
                                const char *source)
{
    const char *name = mg_info(hwloc_get_root_obj(topo), "HostName"), *base, *dot;

    if (kind == MG_SRC_SYNTHETIC)
        return "localhost";
    if (name)
        return mg_safe_dup(a, name);
    if (kind == MG_SRC_LIVE)
        return "localhost";
    base = strrchr(source, '/');
    base = base ? base + 1 : source;
    dot = strrchr(base, '.');
    if (!dot || dot == base)
        dot = base + strlen(base);
    return mg_safe_ndup(a, base, (size_t)(dot - base));
}

static enum mg_source_kind mg_source_kind_of(const char *source)
{
    if (strcmp(source, "live") == 0)
        return MG_SRC_LIVE;
    if (strncmp(source, "synthetic:", strlen("synthetic:")) == 0)
        return MG_SRC_SYNTHETIC;
    return MG_SRC_XML;
}

int mg_topology_load(struct mg_arena *a, struct mg_diags *d, const char *source, const char *label,
                     struct mg_mark at, struct mg_topology *t, const char **host_name)
{
    enum mg_source_kind kind = mg_source_kind_of(source);
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) < 0) {
        mg_error(d, MG_CHECK_LOAD, at, "cannot initialise hwloc: %s", strerror(errno));
        return -1;
    }
    if (!mg_hwloc_load(d, at, topo, kind, source, label)) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    mg_extract(a, d, at, topo, source, label, t);
    if (host_name)
        *host_name = mg_host_name(a, topo, kind, source);
    hwloc_topology_destroy(topo);
    return 0;
}

struct mg_inventory *mg_inventory_load(struct mg_arena *a, struct mg_diags *d, const char *source,
                                       struct mg_mark at)
{
    struct mg_inventory *inv;
    struct mg_topology t;
    const char *host;

    if (!source || !*source) {
        mg_error(d, MG_CHECK_LOAD, at, "empty inventory source");
        return NULL;
    }
    if (mg_source_kind_of(source) == MG_SRC_XML &&
        (mg_ends_with_ci(source, ".yaml") || mg_ends_with_ci(source, ".yml"))) {
        /* Many hosts: the inventory YAML reader loads each topology it
         * names through mg_topology_load. */
        return mg_inventory_file_load(a, d, source, at);
    }
    if (mg_topology_load(a, d, source, source, at, &t, &host) != 0)
        return NULL;

    inv = mg_alloc(a, sizeof *inv);
    inv->source = mg_strdup(a, source);
    inv->n_topologies = 1;
    inv->topologies = mg_alloc(a, sizeof *inv->topologies);
    inv->topologies[0] = t;
    inv->n_hosts = 1;
    inv->hosts = mg_alloc(a, sizeof *inv->hosts);
    inv->hosts[0].name = host;
    inv->hosts[0].slice = NULL;
    inv->hosts[0].topology = 0;
    inv->hosts[0].at = at;
    /* The depfile lists the XML file; a description or this machine is no file. */
    inv->files = mg_alloc(a, sizeof *inv->files);
    if (mg_source_kind_of(source) == MG_SRC_XML)
        inv->files[inv->n_files++] = inv->source;
    return inv;
}
