/*
 * The generator's internal API: what the files of gen/ share, and what its
 * unit tests and fuzz targets may use beside the public header
 * <meshgen/gen.h>; nothing else outside gen/ includes it.
 *
 * It holds the arena, the rest of the text buffer and the diagnostics
 * every stage shares; the words of every enumeration; the plain model
 * structs -- the YAML node tree, the spec, the inventory and the resolved
 * model -- so that a test can build any of them in C and run a later stage
 * without a file; and the stage entry points: read and parse, load the
 * inventory, compile (decide, check, plan), emit.
 *
 * Every stage allocates from one arena per run and never frees on its own.
 * Errors are diagnostics (with the check name and a file:line:col), never
 * a message printed by a stage. Nothing here exposes libyaml or hwloc.
 */
#ifndef MG_INTERNAL_H
#define MG_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <meshgen/gen.h>
#include <meshgen/meshgen.h>

#include "../runtime/util.h" /* MG_COUNT, MG_PRINTF, mg_hash */
#include "escape.h"          /* echoed strings, escaped per output format */
#include "tpu.h"             /* TPU slices: families, layouts, torus assignment */

#define MG_MAX_AXES MESHGEN_MAX_AXES
#define MG_MAX_DIMS MESHGEN_MAX_DIMS
#define MG_MAX_NAME MESHGEN_MAX_NAME
/* Ceilings that keep hostile input bounded in time and memory. */
#define MG_MAX_DEVICES (1 << 23) /* 8388608: 1,048,576 hosts of 8 */
#define MG_MAX_HOSTS (1 << 20)
#define MG_MAX_ERRORS 50

/* ---- arena (arena.c) ------------------------------------------------------------ */

struct mg_arena_block;
struct mg_arena {
    struct mg_arena_block *head;
    size_t total; /* bytes handed out (tests bound what a hostile input costs) */
};

void mg_arena_init(struct mg_arena *a);
void mg_arena_free(struct mg_arena *a);
/* Whether `bytes` more could be allocated now (under `ulimit -v`): asked
 * before a library that does not check its own allocations (hwloc) is
 * given work of about that size. */
int mg_room_for(size_t bytes);
/* Zeroed memory; ends the process on exhaustion (the CLI has nothing
 * better to do, and every caller would otherwise repeat the check). */
void *mg_alloc(struct mg_arena *a, size_t size);
void *mg_alloc_array(struct mg_arena *a, size_t n, size_t size);
char *mg_strdup(struct mg_arena *a, const char *s);
char *mg_strndup(struct mg_arena *a, const char *s, size_t n);
char *mg_printf(struct mg_arena *a, const char *fmt, ...) MG_PRINTF(2, 3);
char *mg_vprintf(struct mg_arena *a, const char *fmt, va_list ap) MG_PRINTF(2, 0);

/* ---- the text buffer (buf.c; its struct is public) ------------------------- */

/* Where the next byte goes, counting what was handed on. */
size_t mg_buf_pos(const struct mg_buf *b);
void mg_buf_printf(struct mg_buf *b, const char *fmt, ...) MG_PRINTF(2, 3);
/* One line at the current indent (4 spaces a level), '\n' appended. */
void mg_println(struct mg_buf *b, const char *fmt, ...) MG_PRINTF(2, 3);
/* The indentation mg_println starts a line with, for a line put piece by
 * piece (ended with mg_buf_put(b, "\n", 1)). */
void mg_buf_indent(struct mg_buf *b);
/* An empty line. */
void mg_blank(struct mg_buf *b);
/* A decimal int, without printf: tables of a large cluster and closeness
 * matrices of big machines hold millions of numbers. */
void mg_buf_int(struct mg_buf *b, int v);
/* A decimal int64, without printf. */
void mg_buf_i64(struct mg_buf *b, int64_t v);
/* Room for n more bytes at the end of b (a streaming buffer first hands on
 * what it holds), for a writer that fills them itself and then counts what
 * it wrote with mg_buf_wrote: many small pieces at the cost of one check. */
char *mg_buf_room(struct mg_buf *b, size_t n);
void mg_buf_wrote(struct mg_buf *b, size_t n);
/* The most characters of a decimal int64: a sign and 19 digits. */
#define MG_I64_CHARS 20
/* v in decimal at p (MG_I64_CHARS of room), without printf or a NUL;
 * returns the end of what it wrote. */
char *mg_fmt_i64(char *p, int64_t v);

/* ---- names sorted with where they came from ---------------------------------- */

/* A name and its index among those sorted: the sorts that find repeated
 * names, or put names in order, compare the names, then the indices, so
 * that equal names keep their order. */
struct mg_named {
    const char *name;
    size_t index;
};

/* The order of two entries whose names compare as c (negative, zero or
 * positive, as strcmp gives): by c, then by index. */
static inline int mg_named_order(int c, const struct mg_named *a, const struct mg_named *b)
{
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* ---- locations and diagnostics (diag.c) ---------------------------------------- */

struct mg_mark {
    const char *file; /* as given on the command line; NULL: no location */
    int line;         /* 1-based; 0: whole file */
    int col;          /* 1-based */
};

/* The stage that reports a check: the readers, or one of the phases the
 * compile stage runs (compile.c). */
enum mg_phase {
    MG_PHASE_LOAD,      /* reading: files, YAML, keys and types, inventories */
    MG_PHASE_SPEC,      /* the spec alone */
    MG_PHASE_INVENTORY, /* the spec against the inventory */
    MG_PHASE_PLAN       /* the spec against the assignment */
};

/* What reports a check, as its line of gen/checks.def declares it. */
enum mg_check_by {
    MG_BY_STAGE,  /* MG_REPORT: the stage that finds it (a reader, `meshgen env`) */
    MG_BY_CHECK,  /* MG_CHECK: a check of check.c, which reads the model only */
    MG_BY_RESOLVE /* MG_RESOLVE: a decision of resolve.c that cannot be made */
};

/* Every diagnostic meshgen can emit, one value per line of gen/checks.def
 * (the registry: name, phase, severity, doc, prerequisites, function).
 * Diagnostics are reported by these values, never by a name string, so a
 * misspelt check does not compile. */
enum mg_check_id {
#define MG_REPORT(id, name, severity, doc) id,
#define MG_CHECK(id, name, phase, severity, doc, prereqs, function) id,
#define MG_RESOLVE(id, name, phase, severity, doc, prereqs, function) id,
#include "checks.def"
#undef MG_REPORT
#undef MG_CHECK
#undef MG_RESOLVE
    MG_CHK__COUNT
};

/* Prerequisites per check, at most. */
#define MG_CHECK_MAX_PREREQS 4

/* One entry of the registry, read-only. */
struct mg_check_info {
    const char *name; /* stable, e.g. "axis-name-unique" */
    enum mg_phase phase;
    enum mg_severity severity;
    const char *doc; /* one line: what the check refuses */
    int n_prereqs;
    const enum mg_check_id *prereqs; /* n_prereqs checks that must pass first */
    enum mg_check_by by;
};

/* The number of checks, MG_CHK__COUNT; ids are 0 to that minus one. */
int mg_check_count(void);
/* The registry entry of a check; NULL for an id out of range. */
const struct mg_check_info *mg_check_info(enum mg_check_id id);
/* The name of a check ("?" for an id out of range). */
const char *mg_check_name(enum mg_check_id id);
/* The id of a check by name; -1 if there is none. */
int mg_check_find(const char *name);

struct mg_diag {
    enum mg_severity severity; /* the registry's for the check */
    enum mg_check_id id;
    const char *check; /* its stable name, e.g. "axis-name-unique" */
    struct mg_mark at;
    struct mg_mark related; /* e.g. "first defined here"; file NULL if none */
    const char *related_msg;
    const char *message;
};

struct mg_diags {
    struct mg_arena *arena;
    struct mg_diag *items;
    int n, cap;
    int n_errors;
    int dropped;   /* past MG_MAX_ERRORS */
    int io_errors; /* inputs that could not be read: exit 2, not 1 */
};

void mg_diags_init(struct mg_diags *d, struct mg_arena *a);
/* Reports again, into d, every diagnostic of `from` (kept with a load that
 * a later run reuses); their text is shared, so `from`'s arena must outlive
 * d's use of it. The cap applies as to new ones. */
void mg_diags_append(struct mg_diags *d, const struct mg_diags *from);
/* Puts the diagnostics in source order: by file name (byte order; those
 * of no file last), line and column, and in report order where these are
 * equal, so the order the checks ran in does not show. */
void mg_diags_sort(struct mg_diags *d);
/* Reports a check registered as an error (mg_error, mg_error_rel) or as a
 * warning (mg_warning); the severity recorded is the registry's. */
void mg_error(struct mg_diags *d, enum mg_check_id check, struct mg_mark at, const char *fmt, ...)
    MG_PRINTF(4, 5);
void mg_error_rel(struct mg_diags *d, enum mg_check_id check, struct mg_mark at, struct mg_mark rel,
                  const char *rel_msg, const char *fmt, ...) MG_PRINTF(6, 7);
void mg_warning(struct mg_diags *d, enum mg_check_id check, struct mg_mark at, const char *fmt, ...)
    MG_PRINTF(4, 5);

/* ---- digests (sha256.c) --------------------------------------------------- */

/* SHA-256 (FIPS 180-4) of len bytes as 64 lower-case hex digits and a NUL:
 * the digests of topologies and of the resolved mesh. Public so the unit
 * tests can hold it to the standard's test vectors. */
void mg_sha256_hex(const void *data, size_t len, char out[65]);

/* The same over text given in pieces (a streaming buffer's output, never
 * held whole): init, update any number of times, then final. */
struct mg_sha256 {
    uint32_t h[8];
    unsigned char block[64];
    size_t used; /* bytes in block */
    uint64_t total;
};
void mg_sha256_init(struct mg_sha256 *c);
void mg_sha256_update(struct mg_sha256 *c, const void *data, size_t len);
void mg_sha256_final(struct mg_sha256 *c, char out[65]);
/* mg_sha256_update with the signature of a streaming buffer's sink. */
void mg_sha256_sink(void *ctx, const char *data, size_t len);

/* ---- enumerations and their words (words.c) ------------------------------ */

/* One value's word, and its enumerator in <meshgen/meshgen.h> (or NULL). */
struct mg_word {
    const char *name;
    const char *c_name;
};

/* The words of one enumeration, indexed by its values 0..n-1. */
struct mg_words {
    const struct mg_word *w;
    int n;
};

extern const struct mg_words mg_kind_words;       /* enum meshgen_kind: gpu, core, ... */
extern const struct mg_words mg_axis_type_words;  /* enum meshgen_axis_type */
extern const struct mg_words mg_order_words;      /* enum mg_order */
extern const struct mg_words mg_tpu_method_words; /* enum mg_tpu_method (resolve's "tpu") */
extern const struct mg_words mg_process_words;    /* enum meshgen_process_mode */
extern const struct mg_words mg_granule_words;    /* enum mg_granule */
extern const struct mg_words mg_severity_words;   /* enum mg_severity */

/* The C enumerator of a value, or NULL. */
const char *mg_word_c(const struct mg_words *words, int value);
/* The device kinds, the most used table. */
const char *mg_kind_name(int kind);
int mg_kind_from_name(const char *name); /* -1 when unknown */

/* ---- "did you mean" (suggest.c) ------------------------------------------ */

/* The Damerau-Levenshtein distance (optimal string alignment) of a and b,
 * ASCII case ignored; -1 when either is longer than 64 bytes. */
int mg_edit_distance(const char *a, const char *b);
/* The same text in the arena ("" for none), for a message's "%s". */
const char *mg_suggest_text(struct mg_arena *a, const struct mg_suggest *s);
struct mg_spec;
/* "; did you mean 'pp'?" for a name that is no axis of the spec, or "". */
const char *mg_suggest_axis(struct mg_arena *a, const struct mg_spec *spec, const char *name);

/* ---- YAML node tree (filled by yaml_load.c) ---------------------------- */

enum mg_node_kind { MG_NODE_SCALAR, MG_NODE_SEQ, MG_NODE_MAP };

struct mg_node {
    enum mg_node_kind kind;
    struct mg_mark mark;
    int quoted;             /* scalar written with quotes or as a block scalar */
    const char *tag;        /* explicit tag or NULL */
    const char *value;      /* scalar text, NUL-terminated (embedded NULs rejected) */
    size_t n;               /* items of a sequence, pairs of a mapping */
    struct mg_node **items; /* sequence items; mapping values */
    struct mg_node **keys;  /* mapping keys (scalars), NULL for a sequence */
};

/* ---- the spec ------------------------------------------------------------ */

enum mg_kind_sel {
    MG_KIND_DEFAULT = -1, /* gpu if the inventory has any, else core */
    MG_KIND_GPU = MESHGEN_KIND_GPU,
    MG_KIND_CORE = MESHGEN_KIND_CORE,
    MG_KIND_NUMA = MESHGEN_KIND_NUMA,
    MG_KIND_PACKAGE = MESHGEN_KIND_PACKAGE,
    MG_KIND_PU = MESHGEN_KIND_PU,
    MG_KIND_TPU = MESHGEN_KIND_TPU
};
#define MG_N_KINDS 6
/* The kinds an hwloc topology has: all but tpu, which only a `tpu:` host
 * group of an inventory file has (docs/tpu.md). */
#define MG_N_HWLOC_KINDS 5

/* torus: JAX's create_(hybrid_)device_mesh over the chips' coordinates, the
 * default for TPU meshes (docs/tpu.md). */
enum mg_order { MG_ORDER_LOCALITY, MG_ORDER_INVENTORY, MG_ORDER_TORUS };
enum mg_granule { MG_GRANULE_HOST, MG_GRANULE_SLICE };

struct mg_spec_axis {
    const char *name;
    struct mg_mark name_at;
    int64_t size; /* -1: infer */
    struct mg_mark size_at;
    int64_t dcn; /* 0: not given */
    struct mg_mark dcn_at;
    int type; /* enum meshgen_axis_type */
    struct mg_mark type_at;
};

struct mg_spec_dim {
    int n_axes;
    const char *axes[MG_MAX_AXES];
    struct mg_mark axes_at[MG_MAX_AXES];
    struct mg_mark at;
};

struct mg_spec_sharding {
    const char *name;
    struct mg_mark at;
    int n_dims;
    struct mg_spec_dim dims[MG_MAX_DIMS];
    struct mg_mark spec_at;
    int has_shape;
    int shape_n;
    int64_t shape[MG_MAX_DIMS];
    struct mg_mark shape_at[MG_MAX_DIMS];
    struct mg_mark shape_list_at;
};

struct mg_spec {
    const char *file; /* as given; "<command line>" for --mesh */
    const char *dir;  /* directory of file, for relative paths ("." if none) */
    int format;       /* the `meshgen:` version */
    const char *name;
    struct mg_mark name_at;
    const char *inventory; /* as written, or NULL */
    struct mg_mark inventory_at;

    int n_axes;
    struct mg_spec_axis axes[MG_MAX_AXES];
    struct mg_mark mesh_at, axes_at, shape_at, dcn_at, types_at;
    int shape_n, dcn_n, types_n; /* lengths as written, checked against n_axes */
    int has_dcn, has_types;

    const char *mpmd;
    struct mg_mark mpmd_at;
    int device_kind; /* enum mg_kind_sel */
    struct mg_mark device_kind_at;
    int order; /* enum mg_order */
    struct mg_mark order_at;
    int has_order;   /* `order` given (else the kind decides: torus for tpu) */
    int processes;   /* enum meshgen_process_mode */
    int64_t devices; /* when has_devices */
    int has_devices;
    struct mg_mark devices_at;
    int granule;     /* enum mg_granule */
    int has_granule; /* `granule` given (else slice for tpu, host otherwise) */
    /* JAX's should_sort_granules_by_key. Host and slice granules are keyed
     * by their first process, so sorted and first-seen order are both
     * process order there (TPU slices: docs/tpu.md). */
    int sort_granules;
    /* create_device_mesh's options (order: torus only). */
    int allow_split_physical_axes;
    int contiguous_submeshes;
    struct mg_mark contiguous_at;

    int n_shardings;
    struct mg_spec_sharding *shardings;
};

/* ---- the inventory --------------------------------------------------------- */

/* One device of a topology: what the generated tables carry. */
struct mg_devinfo {
    int kind;
    int os_index;  /* CPU objects: hwloc OS index; GPUs: -1 */
    int numa;      /* NUMA node OS index, -1 unknown */
    int vendor_id; /* PCI vendor id, what decides a GPU's vendor; 0 none */
    const char *pci;
    const char *vendor; /* for display: hwloc's name, else the runtime's table's */
    const char *model;
    const char *uuid;
    const char *cpuset; /* cpulist */
    /* tpu devices only: Device.coords (x, y, z) and Device.core_on_chip. */
    int coords[3];
    int core_on_chip;
};

/*
 * One loaded topology (an XML file, a synthetic description or this
 * machine), shared by every host that uses it. Devices of each kind in host
 * order (GPUs by PCI bus id, CPU objects by logical index). For each kind,
 * closeness (larger = closer) ranks pairs for the locality order, held in
 * one of two ways (mg_topology_closeness reads either): a matrix n*n
 * (row-major; a GPU bandwidth matrix), or each device's path in the tree,
 * linear in the devices: tree_path[i * tree_stride + d] names its ancestor
 * at depth d (0: the root) for d <= tree_depth[i] (its own depth) by the
 * first device under that ancestor, so two devices' closeness is the
 * deepest d where their paths agree. Neither: every pair is alike.
 */
struct mg_topology {
    const char *key;   /* path as resolved, or "synthetic:..." or "live" */
    const char *label; /* as written by the user */
    int n[MG_N_KINDS];
    struct mg_devinfo *devs[MG_N_KINDS];
    int *closeness[MG_N_KINDS];
    int tree_stride[MG_N_KINDS];
    int *tree_depth[MG_N_KINDS];
    int *tree_path[MG_N_KINDS];
    char digest[65]; /* sha256 hex of the extracted devices and closeness */
    /* The root's HostName as hwloc read it, unchecked (mg_topology_host_name
     * checks it); NULL when there is none. */
    const char *hostname;
    /* One host of a TPU slice (an inventory's `tpu:` group): its family and
     * the slice's chips along x, y, z; NULL for an hwloc topology. */
    const struct mg_tpu_family *tpu;
    int tpu_dims[3];
    bool tpu_wrap[3]; /* the dimensions that wrap around (mg_tpu_wraparound) */
};

/* The closeness of devices a and b (indices among the topology's devices
 * of that kind), from whichever form it has; 0 when it has none. On the
 * diagonal: the device's own depth, or its row's largest bandwidth. */
int mg_topology_closeness(const struct mg_topology *t, int kind, int a, int b);
/* Whether the topology ranks pairs of that kind at all. */
int mg_topology_has_closeness(const struct mg_topology *t, int kind);

struct mg_host {
    const char *name;
    const char *slice; /* NULL unless given */
    int topology;      /* index into inventory.topologies */
    struct mg_mark at;
};

struct mg_inventory {
    const char *source; /* as given */
    int n_hosts;
    struct mg_host *hosts;
    int n_topologies;
    struct mg_topology *topologies;
    /* Every file read to build it, for --depfile (the source itself too). */
    int n_files;
    const char **files;
};

/* ---- the resolved model ------------------------------------------------- */

struct mg_plan_process {
    int host;
    int first; /* into plan.process_devices */
    int count;
    int stage; /* its MPMD stage (0 without an MPMD axis) */
};

struct mg_plan_sharding {
    const char *name;
    int n_dims;
    int has_shape;
    int n_axes[MG_MAX_DIMS];
    int axes[MG_MAX_DIMS][MG_MAX_AXES];
    int64_t shards[MG_MAX_DIMS];
    int64_t global[MG_MAX_DIMS];
    int64_t local[MG_MAX_DIMS];
};

struct mg_granule_info {
    const char *key; /* host name or slice name */
    int slice;       /* key is a slice's name (a host and a slice may share one) */
    int n_hosts;
    int n_devices; /* of the kind */
    int n_used;    /* of those, the ones the mesh uses (`devices: N` takes a prefix) */
};

/*
 * The resolved model: one struct that the compile stage fills in three
 * steps (compile.c). The spec's settled values are copied in first; the
 * resolver (resolve.c) decides the kind, the devices, the granules, the
 * sizes and the ICI x DCN split; the planner (plan.c) completes the
 * assignment and everything derived from it. The checks (check.c) read it
 * between those steps and change nothing. Emitters print what is here and compute
 * nothing of their own; the inventory is reached through `inv` for names,
 * slices and device descriptions.
 */
struct mg_plan {
    const struct mg_inventory *inv; /* the inventory the mesh is placed onto */

    /* From the spec. */
    const char *name;
    int n_axes;
    const char *axis_names[MG_MAX_AXES];
    int types[MG_MAX_AXES];
    int order; /* the spec's, or the kind's default (torus for tpu) */
    int process_mode;

    /* Decided by the resolver. */
    int kind;
    int granule; /* enum mg_granule: the spec's, or the kind's default */
    int64_t size[MG_MAX_AXES];
    int64_t ici[MG_MAX_AXES];
    int64_t dcn[MG_MAX_AXES];
    int mpmd_axis;                    /* -1: none */
    int n_devices;                    /* all devices of the kind, inventory order */
    int n_mesh;                       /* devices the mesh uses: the product of sizes */
    int n_granules_all;               /* granules of the inventory */
    struct mg_granule_info *granules; /* all of them, in process order (DCN order) */
    int *host_granule;                /* host -> granule index */
    int *granule_hosts;               /* host indices, granule-major */
    int n_granules;                   /* granules the mesh uses */
    int per_granule;                  /* devices the mesh uses of each */
    /* order: torus: JAX's assignment (flat index -> device id, n_mesh) and
     * how it was found (method, physical mesh, assignment matrix). */
    int *torus;
    struct mg_tpu_result *tpu;

    /* Completed by the planner. Device ids are numbered host by host, so
     * host_first gives each device's host and its index among the host's
     * devices (mg_plan_host_of). The three tables of a device per device
     * are NULL where they would be the identity (mesh[f] == f, so
     * device_index[d] == d or -1, and process_devices[i] == i): read them
     * through mg_plan_mesh_at, mg_plan_index_of and
     * mg_plan_process_device. A million devices are 12 MiB of tables
     * that are usually the identity. */
    int *host_first;   /* host -> its first device id */
    int host_devices;  /* devices of the kind on every host; 0: not all alike */
    int *mesh;         /* flat index -> device id; NULL: the identity */
    int *device_index; /* device id -> flat index or -1; NULL with mesh */
    int n_processes;
    struct mg_plan_process *processes;
    int *process_devices; /* NULL: the identity */
    int n_shardings;
    struct mg_plan_sharding *shardings;
    int64_t score;           /* closeness score of the chosen assignment */
    int64_t score_inventory; /* score of inventory order, for comparison */
    /* Tables that are the identity, which the C emitter leaves out
     * (docs/reference.md §5): mesh[f] == f for every f (device_index is
     * then the identity too); process_devices[i] == i; and the processes
     * are the hosts in order, each with all its devices. */
    int mesh_identity;
    int process_devices_identity;
    int processes_are_hosts;
    int has_groups;           /* groups[] filled (compile option `groups`) */
    int *groups[MG_MAX_AXES]; /* per axis: [n_mesh / size][size] device ids */
    char digest[72];          /* "sha256:<hex>" */
};

/* The host of device id d, and in *local (when not NULL) its index among
 * that host's devices of the kind. The last host whose first device is at
 * most d holds it: a host without devices shares its first id with the
 * host after it. */
static inline int mg_plan_host_of(const struct mg_plan *p, int d, int *local)
{
    int lo = 0, hi = p->inv->n_hosts - 1;

    if (p->host_devices > 0)
        lo = d / p->host_devices;
    else
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (p->host_first[mid] <= d)
                lo = mid;
            else
                hi = mid - 1;
        }
    if (local)
        *local = d - p->host_first[lo];
    return lo;
}

/* The device at mesh position f. */
static inline int mg_plan_mesh_at(const struct mg_plan *p, int f)
{
    return p->mesh ? p->mesh[f] : f;
}

/* The mesh position of device id d, or -1 when the mesh does not use it. */
static inline int mg_plan_index_of(const struct mg_plan *p, int d)
{
    return p->device_index ? p->device_index[d] : d < p->n_mesh ? d : -1;
}

/* Entry i of the processes' devices (process k's are entries first to
 * first + count - 1). */
static inline int mg_plan_process_device(const struct mg_plan *p, int i)
{
    return p->process_devices ? p->process_devices[i] : i;
}

/* Per-axis group tables are built by default only up to this many
 * entries (devices x axes); --groups=always lifts it. */
#define MG_GROUPS_AUTO_LIMIT 65536

/* ---- the environment of one process (`meshgen env`) ------------------------- */

/* Which process to answer for: what the command line gives, the rest read
 * through get (the launcher's variables: the process's environment). */
struct mg_env_query {
    const char *host; /* --host: this machine's name; NULL: read it */
    int local_rank;   /* --local-rank; -1: read the launcher's */
    int process;      /* --process; -1: find it */
    meshgen_lookup_fn get;
    void *ctx;
};

#define MG_ENV_MAX_VARS 16
#define MG_ENV_MAX_NOTES 8

/* The answer: the process, its devices and the variables to export, in
 * the order they are printed, and notes on what no variable does (a GPU
 * of a vendor without one, a TPU host whose one process needs none): sh
 * prints them as comments, JSON as "notes". */
struct mg_env {
    int process, n_processes;
    int host;
    const char *host_name;
    int first, count;   /* its devices: devices[first .. first + count - 1] */
    const int *devices; /* the model's process_devices */
    int n_vars;
    const char *names[MG_ENV_MAX_VARS];
    const char *values[MG_ENV_MAX_VARS];
    int n_notes;
    const char *notes[MG_ENV_MAX_NOTES];
};

/* ---- this machine against the inventory (`meshgen verify`) ------------------- */

/* Which machine this is: --host, else the variables read through get (the
 * process's environment), by the runtime's rule. */
struct mg_verify_query {
    const char *host; /* --host: this machine's name; NULL: read it */
    meshgen_lookup_fn get;
    void *ctx;
};

/* What `meshgen verify` found: the host this machine is (-1: none), the
 * inventory's count of each kind of device for it, and the differences. */
struct mg_verify {
    int host;
    const char *host_name;
    int n[MG_N_HWLOC_KINDS];
    int n_diffs;
};

/* ---- the stages, each in its own file -------------------------------------- */

/* io.c: a spec or inventory file (at most 16 MiB) into arena memory, with a
 * NUL after its *len bytes; NULL after an "io" or "input-too-large" error
 * at `at`. */
char *mg_read_file(struct mg_arena *a, struct mg_diags *d, const char *path, struct mg_mark at,
                   size_t *len);

/* yaml_load.c: parse a buffer into a node tree. Errors go to diags under the
 * check name "yaml-syntax" (or "yaml-limits" for nesting/size/alias limits);
 * the tree is returned only when there is none. */
struct mg_node *mg_yaml_parse(struct mg_arena *a, struct mg_diags *d, const char *file,
                              const char *buf, size_t len);

/* spec.c: node tree -> spec. Key, type and range errors go to diags. Returns
 * NULL only when the tree is not a mapping at all. */
struct mg_spec *mg_spec_from_node(struct mg_arena *a, struct mg_diags *d, const char *file,
                                  const struct mg_node *root);
/* The --mesh string: "dp:2,tp:4" or "2,4" with axis_names "dp,tp". */
struct mg_spec *mg_spec_from_string(struct mg_arena *a, struct mg_diags *d, const char *mesh,
                                    const char *axis_names, const char *name);

/* hostlist.c: expands a Slurm hostlist ("gpu[001-016]", "n[1-3,7]",
 * "a,b[1-2]c[3-4]") into names, zero padding kept. Errors ("hostlist") are
 * reported at `at` (the column advanced to the offending character). At
 * most `limit` names. Returns the count, or -1 after reporting. */
int mg_hostlist_expand(struct mg_arena *a, struct mg_diags *d, const char *text, struct mg_mark at,
                       int limit, const char ***names);
/* The same with the names in `a` and the array of them, with the work of
 * the expansion, in `scratch`: a reader that copies the pointers elsewhere
 * frees 8 bytes per name with it. */
int mg_hostlist_expand_in(struct mg_arena *a, struct mg_arena *scratch, struct mg_diags *d,
                          const char *text, struct mg_mark at, int limit, const char ***names);

/* topology.c: what an inventory source names: "live" (this machine),
 * "synthetic:<hwloc description>", an inventory file (a name ending in
 * .yaml or .yml) or else an hwloc XML file. */
enum mg_source { MG_SOURCE_LIVE, MG_SOURCE_SYNTHETIC, MG_SOURCE_XML, MG_SOURCE_INVENTORY };
enum mg_source mg_source_kind(const char *source);
/* The objects a synthetic description ("pack:2 core:4 pu:2", without the
 * "synthetic:" prefix) asks for at its lowest level, from the text alone,
 * so a count can be refused before anything is built; -1 past the limit
 * mg_topology_load enforces. */
int64_t mg_synthetic_leaves(const char *desc);
/*
 * Loads one topology into *t. source is an hwloc XML path (as it should be
 * opened; read as XML whatever its name), "synthetic:<description>" or
 * "live"; label is how the user wrote it (for messages and the banner).
 * When host_name is not NULL it receives the topology's own host name
 * (HostName info, else the file's base name, else "localhost"). Errors
 * ("inventory-load") are reported at `at`. Returns 0, or -1 after
 * reporting.
 */
int mg_topology_load(struct mg_arena *a, struct mg_diags *d, const char *source, const char *label,
                     struct mg_mark at, struct mg_topology *t, const char **host_name);
/* The host name of a topology that source (labelled label) loaded, as
 * mg_topology_load gives it; NULL after reporting at `at`. */
const char *mg_topology_host_name(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                                  const struct mg_topology *t, const char *source,
                                  const char *label);
/* Keeps hwloc's components (its plugins, dlopen'ed by the first topology
 * and unloaded with the last) loaded until mg_topology_release, so that a
 * call that loads many topologies pays for them once. Returns 0, or -1
 * when hwloc cannot be initialised (then nothing is held). */
int mg_topology_hold(void);
void mg_topology_release(void);
/* topology_cache.c: while a command holds the cache (and through it
 * hwloc's plugins), each topology file loaded is kept, by its device and
 * inode, until mg_topology_cache_release. mg_topology_open is
 * mg_topology_load, or the kept topology of a file loaded before under the
 * hold (with label as this caller gives it): what the first load reported
 * is reported to it alone, and a load that failed fails again without a
 * word. Synthetic descriptions and this machine are loaded each time.
 * mg_topology_cache_hold returns 0, or -1 when the cache is held already. */
int mg_topology_cache_hold(void);
/* t made a template (mg_topology_make_template) without changing the
 * topology it may share with other inventories: a kept file's template is
 * made once per command and shared. Returns how many UUIDs were cleared. */
int mg_topology_template(struct mg_topology *t);
void mg_topology_cache_release(void);
int mg_topology_open(struct mg_arena *a, struct mg_diags *d, const char *source, const char *label,
                     struct mg_mark at, struct mg_topology *t, const char **host_name);
/*
 * Turns a topology that several hosts share into a template: the fields
 * that belong to the one machine it was exported from (GPU UUIDs) are
 * cleared and the digest recomputed. Returns how many were cleared.
 */
int mg_topology_make_template(struct mg_topology *t);
/*
 * An hwloc XML snapshot of one topology source ("live", "synthetic:..." or an
 * XML path; not an inventory file, which has many hosts) that loads back into
 * the same inventory: its HostName is the host name the source gives (added
 * when the source has none), and the infos that describe the exporting
 * process rather than the machine (ProcessName, LinuxCgroup) are left out,
 * so that two exports of one machine are byte-identical. *xml receives the
 * text in the arena (NUL-terminated; *len excludes the NUL). Errors
 * ("inventory-load", "inventory-export") are reported at `at`. Returns 0, or
 * -1 after reporting.
 */
int mg_topology_export(struct mg_arena *a, struct mg_diags *d, const char *source,
                       struct mg_mark at, const char **xml, size_t *len);

/* inventory.c: the inventory a source names (paths resolved by the
 * caller): one host for a topology source, many for an inventory file
 * (docs/reference.md, "Inventories"). Errors go to diags; NULL after one. */
struct mg_inventory *mg_inventory_load(struct mg_arena *a, struct mg_diags *d, const char *source,
                                       struct mg_mark at);
/* An inventory file from its node tree; path is the file as it should be
 * opened, for the topologies it names relative to itself. */
struct mg_inventory *mg_inventory_from_node(struct mg_arena *a, struct mg_diags *d,
                                            const char *path, const struct mg_node *root);

/* compile.c: the rows of checks.def that judge the spec alone, then those
 * that decide and judge it against the inventory, the plan, and the rows
 * that judge the assignment, over one resolved model. */
struct mg_compile_opts {
    enum mg_when groups; /* per-axis group tables (auto: small meshes only) */
    /* NULL, or called around every check (an MG_CHECK row) that runs: with
     * passed -1 just before it, then 1 or 0 as it passed, each time with
     * the model it is given; what the unit tests watch to hold the checks
     * to reading only. */
    void (*watch)(void *ctx, enum mg_check_id id, const struct mg_plan *model, int passed);
    void *watch_ctx;
};
/* Returns the model, or NULL when any error was reported (inv NULL: only
 * the spec is checked). opts NULL: no group tables. */
struct mg_plan *mg_compile(struct mg_arena *a, struct mg_diags *d, const struct mg_spec *spec,
                           const struct mg_inventory *inv, const struct mg_compile_opts *opts);

/* lower.c: the model as the runtime's tables: *m and every table it points
 * to, allocated in the arena (which must outlive them), exactly as the C
 * emitter writes them: tables that are the identity left out (NULL), a
 * string the model lacks "". The C emitter prints this struct and `meshgen
 * env` hands it to the runtime, so the two cannot differ. */
void mg_lower(struct mg_arena *a, const struct mg_plan *plan, struct meshgen_mesh *m);

/* The emitters: each formats the model into a buffer and computes nothing.
 * emit_c.c: the .h and .c of a mesh, the .c's tables printed from
 * mg_lower's struct; `inputs` names the inputs for the banner (as given,
 * never absolute). */
void mg_emit_header(struct mg_buf *out, const struct mg_plan *plan, const char *inputs);
void mg_emit_source(struct mg_buf *out, const struct mg_plan *plan, const char *inputs);
/* emit_json.c: the JSON of `meshgen resolve`. */
void mg_emit_json(struct mg_buf *out, const struct mg_plan *plan);
/* emit_grid.c: the grid of `meshgen show`, with ANSI colours by `by` when
 * color. */
void mg_emit_grid(struct mg_buf *out, const struct mg_plan *plan, int color, enum mg_color_by by);
/* emit_svg.c: the same grid as an SVG picture, coloured by `by`, with a
 * title, axis labels and a legend; past 4096 positions in at most 64 x 64
 * blocks of positions rather than one square a device. */
void mg_emit_svg(struct mg_buf *out, const struct mg_plan *plan, enum mg_color_by by);
/* env.c: which process the query names, found by the runtime's own rules
 * (meshgen_process_from_vars over the model as runtime tables), and the
 * variables that place it: the visible-devices variable that fits its
 * GPUs' vendor, OMP_PLACES and OMP_PROC_BIND, MESHGEN_PROCESS and
 * MESHGEN_PROCESS_COUNT. Errors ("env-process") at `at`. Returns 0, or -1
 * after reporting. */
int mg_env_resolve(struct mg_arena *a, struct mg_diags *d, const struct mg_plan *p,
                   const struct mg_env_query *q, struct mg_mark at, struct mg_env *e);
/* verify.c: this machine (live hwloc, or the file HWLOC_XMLFILE names,
 * checked as topology files are) against its host's entry in the
 * inventory, by the comparison meshgen_verify makes: GPUs, NUMA nodes and
 * devices of kind `kind` (the mesh's; -1: none) one by one, the other CPU
 * objects by count. Every difference is a node-drift error at the
 * topology file's line that expects otherwise (the host's line of the
 * inventory its related place); a machine that is no one host of the
 * inventory, or a TPU host, a node-host error at `at`. Returns 0 when the
 * machine matches, or -1 after reporting. */
int mg_verify_node(struct mg_arena *a, struct mg_diags *d, const struct mg_inventory *inv, int kind,
                   const struct mg_verify_query *q, struct mg_mark at, struct mg_verify *out);
/* The line `meshgen verify` prints: the host and its counts when it
 * matches, or how many differences were found; nothing without a host. */
void mg_emit_verify(struct mg_buf *out, const struct mg_verify *v);
/* emit_env.c: the variables as sh export lines (values single-quoted) or
 * as JSON. */
void mg_emit_env(struct mg_buf *out, const struct mg_env *e, enum mg_env_format fmt);
/* emit_inventory.c: the listing of `meshgen inventory`. */
void mg_emit_inventory(struct mg_buf *out, const struct mg_inventory *inv);
/* emit_dep.c: a Make rule: every target depends on every prerequisite,
 * each name escaped as GCC's -MD writes it (MG_ESC_MAKE). Returns NULL, or
 * the first name a Make rule cannot hold (mg_esc_refusal), with *why set
 * to what in it cannot be, and then writes nothing. */
const char *mg_emit_depfile(struct mg_buf *out, const char *const *targets, int n_targets,
                            const char *const *prereqs, int n_prereqs, const char **why);
/*
 * emit_diag.c: the diagnostics of a whole command (every file of a
 * `validate`) as one report. Text and GitHub workflow commands are appended
 * to `out` batch by batch (with a line for those past the cap); the JSON
 * document (schemas/diagnostics.schema.json) and the SARIF 2.1.0 log hold
 * every batch and are appended to `out` whole by mg_report_end, which
 * takes the command's exit code and frees the report.
 */
struct mg_report;
struct mg_report *mg_report_begin(enum mg_diag_format fmt);
void mg_report_add(struct mg_report *r, struct mg_buf *out, const struct mg_diags *d);
void mg_report_end(struct mg_report *r, struct mg_buf *out, int exit_code);
/* One set of diagnostics as a whole report (begin, add, end). */
void mg_emit_diags(struct mg_buf *out, const struct mg_diags *d, enum mg_diag_format fmt);

/* Prints every diagnostic to a stream (emit_diag.c's text, JSON or GitHub
 * form). */
void mg_diags_print(const struct mg_diags *d, FILE *out, enum mg_diag_format fmt);

#endif /* MG_INTERNAL_H */
