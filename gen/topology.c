/*
 * One topology: an hwloc XML file, a synthetic hwloc description or this
 * machine (live discovery) becomes one struct mg_topology — its GPUs,
 * cores, NUMA nodes, packages and PUs, each with PCI id, vendor/model,
 * UUID, NUMA node and cpuset, closeness per kind (each device's path in
 * the tree, or a GPU bandwidth matrix), and a digest of
 * what was extracted. It also writes XML snapshots (mg_topology_export),
 * and says what kind of source a string names (mg_source_kind).
 *
 * This is the only file of the generator that includes <hwloc.h>. Which
 * objects are devices, and what is kept of each, is decided by the rules in
 * runtime/hwloc_devices.c, which meshgen_verify shares, so a compiled mesh
 * and the machine it is checked against are read alike. Everything later
 * stages need is copied into the arena and the hwloc topology is destroyed
 * before returning, so no hwloc type or pointer escapes. It knows nothing
 * of inventory files (inventory.c builds inventories and calls this file,
 * never the reverse), mesh specs, plans or emitted C.
 */
#include "diag.h"
#include "io.h"
#include "mesh_math.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/stat.h>

#include <hwloc.h>

/* Private to meshgen and not on any include path: reached by its place in the
 * tree, so every build of these sources (the fuzz targets too) finds it. */
#include "../runtime/host.h"
#include "../runtime/hwloc_devices.h"

/* hwloc builds a synthetic topology in time quadratic in its PUs, and does
 * whatever it is told: past this a description would take minutes. */
#define MG_SYNTHETIC_MAX_LEAVES 8192
/* A GPU bandwidth matrix is n*n ints: past this many GPUs in one host (none
 * has so many), closeness comes from the tree. */
#define MG_BANDWIDTH_MAX 1024

/* ---- small helpers ------------------------------------------------------- */

/* A copy of an hwloc string that is safe to carry into tables, JSON and
 * terminals (see meshgen__sanitize). */
static const char *mg_safe_ndup(struct mg_arena *a, const char *s, size_t n)
{
    char *p = mg_strndup(a, s, n);

    meshgen__sanitize(p, n);
    return p;
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
    int n = meshgen__cpulist(set, NULL, 0);
    char *s;

    if (n == 0)
        return "";
    s = mg_alloc(a, (size_t)n + 1);
    meshgen__cpulist(set, s, (size_t)n + 1);
    return s;
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

/* ---- GPU closeness ------------------------------------------------------- */

/* The index of the GPU an object of a distances matrix stands for, or -1. */
static int mg_gpu_index(const struct meshgen__gpu *g, int n, hwloc_obj_t o)
{
    hwloc_obj_t pci = o->type == HWLOC_OBJ_PCI_DEVICE  ? o
                      : o->type == HWLOC_OBJ_OS_DEVICE ? meshgen__pci_of(o)
                                                       : NULL;
    int i;

    if (pci) {
        uint64_t key = meshgen__pci_key(pci);
        i = meshgen__gpu_lower_bound(g, n, key);
        return i < n && g[i].key == key && g[i].pci ? i : -1;
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
static int mg_gpu_bandwidth(struct mg_arena *tmp, hwloc_topology_t topo,
                            const struct meshgen__gpu *g, int n, int *out)
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

/* The slot of an object in an open-addressing table of `mask + 1`
 * pointers (a power of two, at least twice the objects it will hold). */
static size_t mg_obj_slot(hwloc_obj_t *keys, size_t mask, hwloc_obj_t o)
{
    size_t i = (size_t)(((uintptr_t)o >> 4) * 0x9E3779B97F4A7C15u) & mask;
    while (keys[i] && keys[i] != o)
        i = (i + 1) & mask;
    return i;
}

/*
 * Closeness by the tree, linear in the devices, where an n x n matrix per
 * kind is quadratic (for a host of 4096 cores, hundreds of MiB). Each device
 * gets its path of ancestors, I/O bridges included, from the root (depth 0)
 * down to itself, each ancestor named by the first device (in device
 * order) under it: a canonical name, so the digest does not depend on
 * pointers. Two devices' closeness is the depth of their deepest common
 * ancestor, the last depth where their paths agree; two GPUs behind one
 * PCI switch are closer than two under one package.
 */
static void mg_tree_paths(struct mg_arena *a, struct mg_arena *tmp, hwloc_obj_t *objs, int n,
                          struct mg_topology *t, int kind)
{
    int *depth = mg_alloc_array(a, (size_t)n, sizeof *depth), *path;
    int i, stride = 1, d;
    size_t slots = 16, mask;
    hwloc_obj_t *keys;
    int *first;

    for (i = 0; i < n; i++) {
        depth[i] = mg_tree_depth(objs[i]);
        if (depth[i] + 1 > stride)
            stride = depth[i] + 1;
    }
    while (slots < 2 * (size_t)n * (size_t)stride)
        slots *= 2;
    mask = slots - 1;
    keys = mg_alloc_array(tmp, slots, sizeof *keys);
    first = mg_alloc_array(tmp, slots, sizeof *first);
    path = mg_alloc_array(a, (size_t)n * (size_t)stride, sizeof *path);
    for (i = 0; i < n; i++) {
        hwloc_obj_t o = objs[i];
        for (d = stride - 1; d > depth[i]; d--)
            path[(size_t)i * (size_t)stride + (size_t)d] = -1;
        for (; d >= 0; d--, o = o->parent) {
            size_t k = mg_obj_slot(keys, mask, o);
            if (!keys[k]) {
                keys[k] = o;
                first[k] = i;
            }
            path[(size_t)i * (size_t)stride + (size_t)d] = first[k];
        }
    }
    t->tree_stride[kind] = stride;
    t->tree_depth[kind] = depth;
    t->tree_path[kind] = path;
}

/* Copies a device as hwloc describes it into the arena. */
static void mg_devinfo_from(struct mg_arena *a, const struct meshgen__device *dev,
                            struct mg_devinfo *v)
{
    v->kind = dev->kind;
    v->os_index = dev->os_index;
    v->numa = dev->numa;
    v->vendor_id = dev->vendor_id;
    v->pci = mg_strdup(a, dev->pci);
    v->vendor = mg_safe_dup(a, dev->vendor);
    v->model = mg_safe_dup(a, dev->model);
    v->uuid = mg_safe_dup(a, dev->uuid);
    v->cpuset = mg_cpulist(a, dev->cpuset);
}

/* A UUID as a runtime's visible-devices list can take it: NVML's GPU-... or
 * MIG-... (letters, digits, '-' and '/' after the prefix) or RSMI's unique
 * id (1 to 16 hex digits). Anything else, a ',' above all, would add or
 * split an entry of CUDA_VISIBLE_DEVICES. */
static int mg_uuid_valid(const char *u)
{
    size_t n = strlen(u), i;
    int hex = n > 0 && n <= 16;

    for (i = 0; i < n; i++)
        hex &= (u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'f') ||
               (u[i] >= 'A' && u[i] <= 'F');
    if (hex)
        return 1;
    if (n <= 4 || n > 128 || (strncmp(u, "GPU-", 4) != 0 && strncmp(u, "MIG-", 4) != 0))
        return 0;
    for (i = 4; i < n; i++)
        if (!((u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'z') ||
              (u[i] >= 'A' && u[i] <= 'Z') || u[i] == '-' || u[i] == '/'))
            return 0;
    return 1;
}

/* A GPU's UUID as read from the XML, left out with a warning when no
 * runtime would take it. */
static void mg_check_uuid(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                          const char *label, int i, struct mg_devinfo *v)
{
    if (!v->uuid[0] || mg_uuid_valid(v->uuid))
        return;
    mg_warning(d, MG_CHK_INVENTORY_UUID, at,
               "inventory %s: GPU %d (%s) has the UUID %s, which is not one a runtime takes "
               "(GPU-... or MIG-... of letters, digits, '-' and '/', or up to 16 hex digits); "
               "it is left out and the GPU is named by its index",
               mg_show_path(a, label), i, v->pci, mg_show(a, v->uuid));
    v->uuid = "";
}

static void mg_extract_gpus(struct mg_arena *a, struct mg_arena *tmp, struct mg_diags *d,
                            struct mg_mark at, hwloc_topology_t topo, struct mg_topology *t)
{
    size_t cap = meshgen__gpu_capacity(topo);
    struct meshgen__gpu_os *os = mg_alloc_array(tmp, cap, sizeof *os);
    struct meshgen__gpu *g = mg_alloc_array(tmp, cap, sizeof *g);
    hwloc_obj_t *anchors;
    int n = meshgen__find_gpus(topo, os, g), i;

    t->n[MG_KIND_GPU] = n;
    t->devs[MG_KIND_GPU] = mg_alloc_array(a, (size_t)n, sizeof(struct mg_devinfo));
    anchors = mg_alloc_array(tmp, (size_t)n, sizeof *anchors);
    for (i = 0; i < n; i++) {
        struct meshgen__device dev;

        meshgen__gpu_device(topo, &g[i], &dev);
        mg_devinfo_from(a, &dev, &t->devs[MG_KIND_GPU][i]);
        mg_check_uuid(a, d, at, t->label, i, &t->devs[MG_KIND_GPU][i]);
        anchors[i] = dev.anchor;
    }
    if (n == 0)
        return;
#if HWLOC_API_VERSION >= 0x00020100
    /* A bandwidth matrix is n x n: for the GPUs of one host, never many. */
    if (n <= MG_BANDWIDTH_MAX) {
        int *m = mg_alloc_array(a, (size_t)n * (size_t)n, sizeof *m);
        if (mg_gpu_bandwidth(tmp, topo, g, n, m)) {
            t->closeness[MG_KIND_GPU] = m;
            return;
        }
    } else {
        mg_warning(d, MG_CHK_INVENTORY_CLOSENESS, at,
                   "inventory %s has %d GPUs, more than %d: their NVLink/XGMI bandwidth is not "
                   "read (an n x n matrix), closeness comes from the hwloc tree",
                   mg_show_path(a, t->label), n, MG_BANDWIDTH_MAX);
    }
#endif
    mg_tree_paths(a, tmp, anchors, n, t, MG_KIND_GPU);
}

static void mg_extract_cpu_kind(struct mg_arena *a, struct mg_arena *tmp, hwloc_topology_t topo,
                                int kind, struct mg_topology *t)
{
    int n = meshgen__cpu_count(topo, kind), i;
    hwloc_obj_t *objs;

    t->n[kind] = n;
    t->devs[kind] = mg_alloc_array(a, (size_t)n, sizeof(struct mg_devinfo));
    objs = mg_alloc_array(tmp, (size_t)n, sizeof *objs);
    for (i = 0; i < n; i++) {
        struct meshgen__device dev;

        meshgen__cpu_device(topo, kind, i, &dev);
        mg_devinfo_from(a, &dev, &t->devs[kind][i]);
        objs[i] = dev.anchor;
    }
    if (n > 0)
        mg_tree_paths(a, tmp, objs, n, t, kind);
}

/* "name=value" after a tab, with printf's "%s" of a NULL ("(null)"), so
 * that the bytes are those the format has always hashed. */
static void mg_digest_field(struct mg_buf *b, const char *name, const char *value)
{
    mg_buf_puts(b, name);
    mg_buf_puts(b, value != NULL ? value : "(null)");
}

static void mg_digest_int(struct mg_buf *b, const char *name, int value)
{
    mg_buf_puts(b, name);
    mg_buf_int(b, value);
}

/* "kind[i]" or "kind-what[i]", the start of an item's line. */
static void mg_digest_item(struct mg_buf *b, const char *kind, const char *what, int i)
{
    mg_buf_puts(b, kind);
    mg_buf_puts(b, what);
    mg_buf_put(b, "[", 1);
    mg_buf_int(b, i);
    mg_buf_put(b, "]", 1);
}

/* The digest covers what was extracted, one line per item, not the source
 * bytes: re-exporting a topology or reformatting its XML keeps it. The
 * sanitised strings hold no tab or newline, so the text is unambiguous.
 * Format 2: closeness by the tree is each device's path (format 1 held the
 * n x n matrix it gives). Format 3: each device's PCI vendor id. */
static void mg_topology_digest(struct mg_topology *t)
{
    struct mg_buf b;
    int k, i, j;

    mg_buf_init(&b);
    mg_buf_puts(&b, "meshgen-topology 3\n");
    for (k = 0; k < MG_N_HWLOC_KINDS; k++) {
        const char *kn = mg_kind_name(k);
        int n = t->n[k], stride = t->tree_stride[k];
        mg_buf_printf(&b, "%s\t%d\n", kn, n);
        /* One line per device, put piece by piece rather than by printf: a
         * host of thousands of cores has thousands of lines. */
        for (i = 0; i < n; i++) {
            const struct mg_devinfo *v = &t->devs[k][i];

            mg_digest_item(&b, kn, "", i);
            mg_digest_int(&b, "\tos=", v->os_index);
            mg_digest_int(&b, "\tnuma=", v->numa);
            mg_digest_field(&b, "\tpci=", v->pci);
            mg_digest_int(&b, "\tvendor_id=", v->vendor_id);
            mg_digest_field(&b, "\tvendor=", v->vendor);
            mg_digest_field(&b, "\tmodel=", v->model);
            mg_digest_field(&b, "\tuuid=", v->uuid);
            mg_digest_field(&b, "\tcpuset=", v->cpuset);
            mg_buf_put(&b, "\n", 1);
        }
        for (i = 0; t->closeness[k] && i < n; i++) {
            mg_digest_item(&b, kn, "-closeness", i);
            for (j = 0; j < n; j++) {
                /* printf per number would be most of the load time. */
                mg_buf_put(&b, "\t", 1);
                mg_buf_int(&b, t->closeness[k][(size_t)i * (size_t)n + (size_t)j]);
            }
            mg_buf_puts(&b, "\n");
        }
        for (i = 0; t->tree_path[k] && i < n; i++) {
            mg_digest_item(&b, kn, "-tree", i);
            for (j = 0; j <= t->tree_depth[k][i]; j++) {
                mg_buf_put(&b, "\t", 1);
                mg_buf_int(&b, t->tree_path[k][(size_t)i * (size_t)stride + (size_t)j]);
            }
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
    t->hostname = mg_info(hwloc_get_root_obj(topo), "HostName");
    if (t->hostname)
        t->hostname = mg_strdup(a, t->hostname);
    mg_extract_gpus(a, &tmp, d, at, topo, t);
    for (k = 0; k < MG_N_HWLOC_KINDS; k++)
        if (k != MG_KIND_GPU)
            mg_extract_cpu_kind(a, &tmp, topo, k, t);
    mg_arena_free(&tmp);
    mg_topology_digest(t);
}

int mg_topology_make_template(struct mg_topology *t)
{
    int k, i, cleared = 0;

    for (k = 0; k < MG_N_KINDS; k++)
        for (i = 0; i < t->n[k]; i++)
            if (t->devs[k][i].uuid && t->devs[k][i].uuid[0]) {
                t->devs[k][i].uuid = "";
                cleared++;
            }
    if (cleared)
        mg_topology_digest(t);
    return cleared;
}

/* ---- sources ---------------------------------------------------------------- */

/* The product of the arities in a synthetic description ("pack:2 core:4
 * pu:2" -> 16; attributes in parentheses skipped), which bounds the PUs it
 * asks for; or -1 when it exceeds MG_SYNTHETIC_MAX_LEAVES. */
int64_t mg_synthetic_leaves(const char *desc)
{
    const char *p = desc;
    int64_t product = 1;
    int paren = 0;

    while (*p) {
        int starts = p == desc || p[-1] == ':' || p[-1] == ' ' || p[-1] == '\t';
        if (*p == '(') {
            paren++;
        } else if (*p == ')') {
            paren -= paren > 0;
        } else if (!paren && starts && *p >= '0' && *p <= '9') {
            int64_t v = 0;
            for (; *p >= '0' && *p <= '9'; p++)
                if (v <= MG_SYNTHETIC_MAX_LEAVES)
                    v = v * 10 + (*p - '0');
            if (!mg_mul_size(product, v, &product) || product > MG_SYNTHETIC_MAX_LEAVES)
                return -1;
            continue;
        }
        p++;
    }
    return product;
}

/*
 * Reports a topology file that meshgen__xml_refusal keeps from hwloc, at
 * the refused byte (line and column in characters, as for YAML files), with
 * the place that named the file as the related location.
 */
static void mg_xml_refused(struct mg_diags *d, struct mg_mark named, const char *source,
                           const char *xml, size_t offset, const char *why)
{
    struct mg_mark at = {source, 1, 1};
    size_t i;

    for (i = 0; i < offset; i++) {
        if (xml[i] == '\n') {
            at.line++;
            at.col = 1;
        } else if (((unsigned char)xml[i] & 0xc0) != 0x80 && at.col < INT_MAX) {
            at.col++;
        }
    }
    mg_error_rel(d, MG_CHK_INVENTORY_LOAD, at, named, "the topology is named here",
                 "topology file not given to hwloc: it holds %s, and hwloc 2.9's XML reader "
                 "crashes on some such files; write it as hwloc does (UTF-8, at most "
                 "'<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">')",
                 why);
}

/* What the child of a trial load (mg_xml_trial) writes to its pipe:
 * hwloc loaded the buffer, or refused it. A child that writes nothing
 * crashed. */
#define MG_TRIAL_LOADED 'L'
#define MG_TRIAL_REFUSED 'R'

/* The child of a trial load: loads the buffer as mg_hwloc_load would and
 * writes the outcome to fd. A crash is the answer, so it leaves nothing
 * behind: no core file, and hwloc's warnings and a sanitizer's report go
 * nowhere. */
static void mg_trial_child(const char *xml, size_t len, int fd)
{
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct rlimit no_core = {0, 0};
    hwloc_topology_t topo;
    int null = open("/dev/null", O_WRONLY), ok;
    char outcome;
    size_t i;

    if (null >= 0)
        dup2(null, 2);
    setrlimit(RLIMIT_CORE, &no_core);
    for (i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], SIG_DFL);
    ok = hwloc_topology_init(&topo) == 0;
    if (ok) {
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
        ok = hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) == 0 &&
             hwloc_topology_load(topo) == 0;
        hwloc_topology_destroy(topo);
    }
    outcome = ok ? MG_TRIAL_LOADED : MG_TRIAL_REFUSED;
    _exit(write(fd, &outcome, 1) == 1 ? 0 : 1);
}

/* The outcome byte a trial's child wrote, or 0 when it wrote none; reaps
 * the child. */
static char mg_trial_wait(pid_t pid, int fd)
{
    char outcome = 0;
    ssize_t n;
    int status;

    while ((n = read(fd, &outcome, 1)) < 0 && errno == EINTR)
        continue;
    close(fd);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    return n == 1 ? outcome : 0;
}

/*
 * Whether hwloc 2.9 can be given this buffer. Its XML import trusts what
 * it reads: an object with a cpuset and no complete_cpuset, among other
 * forgeries, crashes it inside hwloc_topology_load, and no check of the
 * text short of hwloc's own reading finds them all. So the buffer is first
 * loaded in a child process (fork: the buffer is already in memory, and
 * the load is deterministic), and only the outcome that child reports
 * through a pipe lets this process load it (docs/reference.md §2); its exit
 * status is not used, as valgrind and the sanitizers change it. Returns 1
 * (hwloc loads it, or refuses it cleanly, which the load here reports), or
 * 0 after reporting a crash or a child that could not run.
 */
static int mg_xml_trial(struct mg_diags *d, struct mg_mark at, const char *label, const char *xml,
                        size_t len)
{
    int fds[2], saved;
    pid_t pid = -1;
    char outcome;

    if (pipe(fds) == 0 && (pid = fork()) < 0) {
        saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
    }
    if (pid < 0) {
        const char *why = strerror(errno); /* before quoting the label may change errno */
        mg_error(d, MG_CHK_INVENTORY_LOAD, at,
                 "cannot try %s in a process of its own before hwloc reads it: %s",
                 mg_show_path(d->arena, label), why);
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        mg_trial_child(xml, len, fds[1]);
    }
    close(fds[1]);
    outcome = mg_trial_wait(pid, fds[0]);
    if (outcome == MG_TRIAL_LOADED || outcome == MG_TRIAL_REFUSED)
        return 1;
    mg_error(d, MG_CHK_INVENTORY_LOAD, at,
             "hwloc cannot load %s: its XML reader crashed on it in a trial load (a process "
             "of its own); the file is not a topology as hwloc writes it (an object without "
             "one of its cpusets or nodesets, or another forged attribute)",
             mg_show_path(d->arena, label));
    return 0;
}

/*
 * Gives hwloc a topology file: read by the bounded reader rather than by
 * hwloc_topology_set_xml(), which gives errors that name the file and the
 * reason, refused when its prolog would crash hwloc (meshgen__xml_refusal)
 * or when a trial load crashes. Returns the buffer, which must outlive the
 * load, or NULL after reporting; *ok says whether hwloc took it.
 */
static char *mg_xml_load(struct mg_diags *d, struct mg_mark at, hwloc_topology_t topo,
                         const char *source, const char *label, int *ok)
{
    const char *refused;
    size_t len = 0, offset;
    char *xml = mg_io_read(d, at, source, label, MG_INPUT_XML, &len);

    if (!xml)
        return NULL;
    if ((refused = meshgen__xml_refusal(xml, len, &offset)) != NULL) {
        mg_xml_refused(d, at, source, xml, offset, refused);
        free(xml);
        return NULL;
    }
    if (!mg_xml_trial(d, at, label, xml, len)) {
        free(xml);
        return NULL;
    }
    /* The length includes the NUL, as hwloc_topology_export_xmlbuffer
     * gives it. libxml2 parses here; a failure must stop us, or the load
     * would quietly discover this machine instead. */
    *ok = hwloc_topology_set_xmlbuffer(topo, xml, (int)len + 1) == 0;
    return xml;
}

/* Ends the run as out of memory (exit 2) unless what hwloc allocates to
 * load the source, counted generously, could be allocated now: hwloc 2.9
 * does not check all of its allocations, and one that fails is a crash.
 * Every object has bitmaps of a bit per PU, so a synthetic topology takes
 * about the square of its PUs, and an XML file libxml2's tree besides. */
static void mg_hwloc_make_room(enum mg_source kind, const char *source, const char *desc)
{
    const size_t base = (size_t)16 << 20;
    int64_t pus = kind == MG_SOURCE_SYNTHETIC ? mg_synthetic_leaves(desc) : 0;
    struct stat st;
    size_t need = base + (stat(source, &st) == 0 ? 16 * (size_t)st.st_size : 0);

    if (kind == MG_SOURCE_LIVE)
        need = 4 * base;
    else if (kind == MG_SOURCE_SYNTHETIC)
        need = base + 2 * (size_t)(pus > 0 ? pus * pus : 0);
    if (!mg_room_for(need))
        mg_oom();
}

/* The file HWLOC_XMLFILE names where hwloc would read this machine from
 * it, else NULL: hwloc prefers HWLOC_FSROOT, HWLOC_CPUID_PATH and
 * HWLOC_SYNTHETIC to it (as meshgen_verify decides, runtime/placement.c). */
static const char *mg_live_xmlfile(void)
{
    const char *path = getenv("HWLOC_XMLFILE");

    if (!path || !*path || getenv("HWLOC_FSROOT") || getenv("HWLOC_CPUID_PATH") ||
        getenv("HWLOC_SYNTHETIC"))
        return NULL;
    return path;
}

/* Points hwloc at the source and loads it. Every failure is reported,
 * naming the file by its label (as the user wrote it). This machine
 * described by HWLOC_XMLFILE is a topology file like any other: read here,
 * its prolog checked and a trial load made before hwloc sees it (hwloc
 * then prefers the buffer to the variable, HWLOC_THISSYSTEM still
 * applying), so that no file can crash `meshgen inventory` or `meshgen
 * verify` through the variable either (docs/reference.md §2). */
static int mg_hwloc_load(struct mg_diags *d, struct mg_mark at, hwloc_topology_t topo,
                         enum mg_source kind, const char *source, const char *label)
{
    const char *desc = kind == MG_SOURCE_SYNTHETIC ? source + strlen("synthetic:") : source;
    char *xml = NULL;
    int ok = 1, xml_major = -1;

    if (kind == MG_SOURCE_LIVE && mg_live_xmlfile()) {
        kind = MG_SOURCE_XML;
        source = label = desc = mg_live_xmlfile();
        at = (struct mg_mark){"HWLOC_XMLFILE", 0, 0};
    }
    mg_hwloc_make_room(kind, source, desc);
    /* Without this, hwloc drops every PCI and OS device. */
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    switch (kind) {
    case MG_SOURCE_LIVE: break;
    case MG_SOURCE_SYNTHETIC:
        if (mg_synthetic_leaves(desc) < 0) {
            mg_error(d, MG_CHK_INVENTORY_LOAD, at,
                     "synthetic topology %s asks for more than %d objects at its lowest level",
                     mg_show_path(d->arena, desc), MG_SYNTHETIC_MAX_LEAVES);
            return 0;
        }
        ok = hwloc_topology_set_synthetic(topo, desc) == 0;
        break;
    case MG_SOURCE_XML:
    case MG_SOURCE_INVENTORY:
        /* A topology file is hwloc XML whatever its name: only a source on
         * its own (mg_inventory_load) is read as an inventory file. */
        xml = mg_xml_load(d, at, topo, source, label, &ok);
        if (!xml)
            return 0;
        break;
    }
    ok = ok && hwloc_topology_load(topo) == 0;
    /* Read after a failure only: it can change the message, never the outcome. */
    if (!ok && xml)
        xml_major = meshgen__xml_version_major(xml);
    free(xml);
    if (ok)
        return 1;
    switch (kind) {
    case MG_SOURCE_LIVE:
        mg_error(d, MG_CHK_INVENTORY_LOAD, at, "hwloc cannot discover this machine's topology: %s",
                 strerror(errno));
        break;
    case MG_SOURCE_SYNTHETIC:
        mg_error(d, MG_CHK_INVENTORY_LOAD, at,
                 "invalid synthetic topology description %s (hwloc's syntax: levels from the "
                 "top, the last one 'pu', e.g. 'pack:2 core:4 pu:2')",
                 mg_show_path(d->arena, desc));
        break;
    case MG_SOURCE_XML:
    case MG_SOURCE_INVENTORY:
        /* hwloc 2.x refuses XML format 3 and later; hwloc 3's lstopo still
         * writes format 2 with --export-xml-flags v2 (its flag
         * HWLOC_TOPOLOGY_EXPORT_XML_FLAG_V2), as docs/reference.md §2 says. */
        if (xml_major >= 3) {
            mg_error(d, MG_CHK_INVENTORY_LOAD, at,
                     "hwloc cannot load %s: it is in XML format %d (hwloc 3.x) and meshgen "
                     "reads format 2 (hwloc 2.x); export it again with hwloc 3's "
                     "'lstopo --export-xml-flags v2 FILE.xml', or with hwloc 2.x's lstopo",
                     mg_show_path(d->arena, label), xml_major);
            break;
        }
        /* hwloc says no more than that (its parser is silent unless
         * HWLOC_XML_VERBOSE is set), so list the usual reasons. */
        mg_error(d, MG_CHK_INVENTORY_LOAD, at,
                 "hwloc cannot load %s: not a topology XML this hwloc can read (broken, "
                 "truncated or not XML)",
                 mg_show_path(d->arena, label));
        break;
    }
    return 0;
}

/* The host name: the topology's HostName, else (for a file) the file's base
 * name without its extension, else "localhost". It must be a host name by
 * the one rule of runtime/host.h (docs/reference.md §2, "Host names"), or
 * it is reported (the source named by its label) and NULL returned: a name
 * the runtime would match by other rules, or a HostName of 5000 bytes,
 * which the generated C would hold as an overlong string literal. */
static const char *mg_host_name(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                                const char *name, enum mg_source kind, const char *source,
                                const char *label)
{
    const char *stem, *why, *from;
    size_t n, offset;

    if (kind == MG_SOURCE_SYNTHETIC)
        return "localhost";
    if (name) {
        n = strlen(name);
        from = "its HostName";
    } else if (kind == MG_SOURCE_LIVE) {
        return "localhost";
    } else {
        n = mg_path_stem(source, &stem);
        name = stem;
        from = "its file name (it has no HostName)";
    }
    why = meshgen__host_name_refusal(name, n, &offset);
    if (why == NULL)
        return mg_safe_ndup(a, name, n);
    mg_error(d, MG_CHK_INVENTORY_LOAD, at,
             "%s: %s %s is not a host name: %s%s; a host name is 1 to 255 bytes of ASCII "
             "letters, digits, '-', '_' and '.', in labels that are not empty",
             kind == MG_SOURCE_LIVE ? "this machine" : mg_show_path(a, label), from,
             mg_show(a, mg_safe_ndup(a, name, n)), why,
             offset < n ? mg_printf(a, " (byte %zu)", offset + 1) : "");
    return NULL;
}

enum mg_source mg_source_kind(const char *source)
{
    if (strcmp(source, "live") == 0)
        return MG_SOURCE_LIVE;
    if (strncmp(source, "synthetic:", strlen("synthetic:")) == 0)
        return MG_SOURCE_SYNTHETIC;
    if (mg_path_has_suffix(source, ".yaml") || mg_path_has_suffix(source, ".yml"))
        return MG_SOURCE_INVENTORY;
    return MG_SOURCE_XML;
}

/* A loaded hwloc topology of source (labelled label), which the caller
 * destroys; or NULL after reporting at `at`. */
static hwloc_topology_t mg_hwloc_open(struct mg_diags *d, struct mg_mark at, const char *source,
                                      const char *label)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) < 0) {
        mg_error(d, MG_CHK_INVENTORY_LOAD, at, "cannot initialise hwloc: %s", strerror(errno));
        return NULL;
    }
    if (!mg_hwloc_load(d, at, topo, mg_source_kind(source), source, label)) {
        hwloc_topology_destroy(topo);
        return NULL;
    }
    return topo;
}

int mg_topology_load(struct mg_arena *a, struct mg_diags *d, const char *source, const char *label,
                     struct mg_mark at, struct mg_topology *t, const char **host_name)
{
    hwloc_topology_t topo = mg_hwloc_open(d, at, source, label);

    if (!topo)
        return -1;
    mg_extract(a, d, at, topo, source, label, t);
    hwloc_topology_destroy(topo);
    if (host_name && (*host_name = mg_topology_host_name(a, d, at, t, source, label)) == NULL)
        return -1;
    return 0;
}

const char *mg_topology_host_name(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                                  const struct mg_topology *t, const char *source,
                                  const char *label)
{
    return mg_host_name(a, d, at, t->hostname, mg_source_kind(source), source, label);
}

/* An initialised, never loaded topology: while it exists hwloc keeps its
 * components registered and its plugins open. */
static hwloc_topology_t mg_held;

int mg_topology_hold(void)
{
    if (mg_held)
        return -1;
    return hwloc_topology_init(&mg_held) < 0 ? (mg_held = NULL, -1) : 0;
}

void mg_topology_release(void)
{
    if (mg_held)
        hwloc_topology_destroy(mg_held);
    mg_held = NULL;
}

/* ---- snapshots ------------------------------------------------------------------ */

/* Root infos that describe the process that loaded a topology, not the
 * machine: lstopo and meshgen write different ProcessNames, and each batch
 * job runs in its own cgroup. */
static const char *const mg_process_infos[] = {"ProcessName", "LinuxCgroup"};

/* Removes the process infos from the root. hwloc 2.x has no call for that;
 * the infos array is public and hwloc frees each string with free() and
 * sizes the array from infos_count alone, so dropping entries in place is
 * what hwloc itself would do. */
static void mg_drop_process_infos(hwloc_obj_t root)
{
    unsigned i, kept = 0;
    size_t k;

    for (i = 0; i < root->infos_count; i++) {
        struct hwloc_info_s *info = &root->infos[i];
        int drop = 0;

        for (k = 0; k < sizeof mg_process_infos / sizeof mg_process_infos[0]; k++)
            drop |= strcmp(info->name, mg_process_infos[k]) == 0;
        if (drop) {
            free(info->name);
            free(info->value);
        } else {
            root->infos[kept++] = *info;
        }
    }
    root->infos_count = kept;
}

int mg_topology_export(struct mg_arena *a, struct mg_diags *d, const char *source,
                       struct mg_mark at, const char **xml, size_t *len)
{
    enum mg_source kind = mg_source_kind(source);
    hwloc_topology_t topo;
    hwloc_obj_t root;
    const char *name;
    char *buf = NULL;
    int n = 0;

    if (kind == MG_SOURCE_INVENTORY) {
        mg_error(d, MG_CHK_INVENTORY_EXPORT, at,
                 "cannot export %s: an inventory YAML describes many hosts; export one "
                 "host's topology (its XML file, or 'live' on that host)",
                 mg_show_path(d->arena, source));
        return -1;
    }
    if (!(topo = mg_hwloc_open(d, at, source, source)))
        return -1;
    root = hwloc_get_root_obj(topo);
    /* Without a HostName the copy would be named after its own file (or
     * "localhost" for a description): keep the name this source gives, which
     * must be a host name, as it is for a load. */
    if ((name = mg_host_name(a, d, at, mg_info(root, "HostName"), kind, source, source)) == NULL) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    if (!mg_info(root, "HostName"))
        hwloc_obj_add_info(root, "HostName", name);
    mg_drop_process_infos(root);
    if (hwloc_topology_export_xmlbuffer(topo, &buf, &n, 0) < 0 || n < 1) {
        const char *why = strerror(errno); /* before quoting the source may change errno */
        mg_error(d, MG_CHK_INVENTORY_EXPORT, at, "hwloc cannot export %s as XML: %s",
                 mg_show_path(d->arena, source), why);
        hwloc_topology_destroy(topo);
        return -1;
    }
    /* hwloc counts the NUL in the length. */
    *len = (size_t)n - 1;
    *xml = mg_strndup(a, buf, *len);
    hwloc_free_xmlbuffer(topo, buf);
    hwloc_topology_destroy(topo);
    return 0;
}
