/*
 * TPU slices (docs/tpu.md): the families and the topologies each can have,
 * the devices of a slice in JAX's device order with the coordinates JAX
 * reports (tpu.c), and the device assignment of JAX's
 * mesh_utils.create_device_mesh and create_hybrid_device_mesh: the
 * device-kind handlers, then the n-d torus assignment (tpu_assign.c).
 * Plain structs in, plain arrays out, errors as a reason string that a
 * check reports. Knows nothing of YAML, hwloc, the spec or the inventory
 * file; depends on libc, and on mg_oom for an allocation that fails, which
 * ends the run as every one of the generator's does (docs/architecture.md,
 * "Where memory comes from").
 */
#ifndef MG_TPU_H
#define MG_TPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MG_PRINTF: private to meshgen, reached by its place in the tree. */
#include "../runtime/util.h"

/* As many mesh axes as a spec may have (docs/reference.md, `axes-count`). */
#define MG_TPU_MAX_AXES 16
/* Physical axes: x, y, z and, for families with two devices per chip in
 * JAX's 4-d layout, the core. */
#define MG_TPU_MAX_PHYSICAL 4
/* Room for every reason this module writes, JAX's longest included. */
#define MG_TPU_REASON_MAX 512
/* The JAX release whose jax/_src/mesh_utils.py the assignment follows
 * (docs/tpu.md gives the file's sha256). */
#define MG_TPU_JAX_VERSION "0.11.2"

/* ---- families ------------------------------------------------------------ */

struct mg_tpu_family {
    const char *name;          /* as the inventory writes it: "v5p" */
    const char *device_kind;   /* Device.device_kind on a TPU VM: "TPU v5" */
    int devices_per_chip;      /* JAX devices per chip: 2 on v2, v3 and TPU7x */
    int topology_dims;         /* 2: topologies are "AxB"; 3: "AxBxC" */
    int single_host_chips;     /* the most chips one host (TPU VM) holds */
    int max_chips;             /* the largest slice (a pod) */
    const char *const *shapes; /* the topologies that exist, NULL-terminated... */
    bool cube_multiples;       /* ...and every AxBxC, A <= B <= C, multiples of 4 */
};

/* The families, in the order docs/tpu.md lists them. */
extern const struct mg_tpu_family mg_tpu_families[];
extern const int mg_tpu_family_count;

/* The family called `name`, or NULL with a reason that lists the names
 * ("the families are v2, v3, ..."). No reason of this module holds what
 * the inventory wrote, which may be anything: the caller quotes it through
 * the escaper (docs/reference.md, "Echoed strings"). */
const struct mg_tpu_family *mg_tpu_family_find(const char *name, char *reason, size_t cap);

/* Parses a topology ("4x4x8"; "2x4" for a 2-d family, whose z is 1) into
 * chips along x, y and z. Returns 0; -1 with a reason that says which
 * topologies the family has, when it has no slice of that size; or -2 when
 * text is not of the family's form, with a reason to follow the quoted
 * text ("is not a v4 topology: expected AxBxC ..."). */
int mg_tpu_parse_topology(const struct mg_tpu_family *f, const char *text, int dims[3],
                          char *reason, size_t cap);

/* Which dimensions of a slice wrap around (docs/tpu.md §1, "Wraparound"):
 * those that are full-size. On the families whose pods join 4x4x4 cubes
 * (v4, v5p, TPU7x) every dimension of a slice of whole cubes (each a
 * multiple of 4), none of a smaller one; on the 2-D families a dimension
 * as long as the pod's side (16; 32 on v3). Sets wrap[x, y, z] and returns
 * how many wrap. */
int mg_tpu_wraparound(const struct mg_tpu_family *f, const int dims[3], bool wrap[3]);

/* ---- the devices of a slice ---------------------------------------------- */

/* One JAX device of a TPU slice, as jax.devices() describes it. */
struct mg_tpu_device {
    int32_t id;           /* Device.id, numbered as JAX's tests number mock devices */
    int32_t coords[3];    /* Device.coords: the chip's x, y, z */
    int32_t core_on_chip; /* Device.core_on_chip */
    int32_t host;         /* the worker (host) of the slice it is attached to */
    int32_t process;      /* Device.process_index: slice * hosts per slice + host */
    int32_t slice;        /* Device.slice_index */
};

/* How the chips of a slice are spread over its hosts: hosts own blocks of
 * host_dims chips; blocks are numbered x fastest, then y, then z. */
struct mg_tpu_layout {
    int dims[3];      /* chips along x, y, z */
    int host_dims[3]; /* chips of one host along x, y, z; each divides dims */
    int devices_per_chip;
    int slice; /* slice index (and the offset of ids and processes) */
};

/* Writes the devices of a layout in JAX's device order (hosts in worker
 * order, inside a host z, y, x with x fastest, then the core) and returns
 * their number, or -1 when they are more than cap or the layout is not
 * whole blocks. */
int mg_tpu_layout_devices(const struct mg_tpu_layout *l, struct mg_tpu_device *out, int cap);

/* The layout of a slice of family f with these dims spread over n_hosts
 * hosts (the family's chips per host), or -1 with a reason that says how
 * many hosts the slice has. */
int mg_tpu_slice_layout(const struct mg_tpu_family *f, const int dims[3], int n_hosts, int slice,
                        struct mg_tpu_layout *l, char *reason, size_t cap);

/* ---- the assignment: create_device_mesh and create_hybrid_device_mesh ----- */

/* Which step of create_device_mesh produced the assignment. */
enum mg_tpu_method {
    MG_TPU_HANDLER, /* a device-kind handler (ring orders of a tray) */
    MG_TPU_TORUS,   /* the n-d torus, whole physical axes per logical axis */
    MG_TPU_SPLIT,   /* the n-d torus with physical axes split */
};

struct mg_tpu_request {
    const char *device_kind;             /* selects the handler, as Device.device_kind */
    const struct mg_tpu_device *devices; /* in JAX's device order */
    int n_devices;
    int n_axes;
    const int64_t *shape; /* per axis; the ICI part for the hybrid mesh */
    const int64_t *dcn;   /* hybrid only: the DCN part per axis */
    bool allow_split_physical_axes;
    bool contiguous_submeshes; /* create_device_mesh only, as in JAX */
    bool process_is_granule;   /* hybrid: granules are processes, not slices */
    bool sort_granules;        /* hybrid: granules in key order (JAX's default) */
};

struct mg_tpu_result {
    int32_t *perm;             /* caller's, n_devices entries: mesh flat index -> device index */
    enum mg_tpu_method method; /* of the (first granule's) mesh */
    int n_physical;            /* the torus methods: the physical mesh's rank... */
    int64_t physical_shape[MG_TPU_MAX_PHYSICAL];              /* ...its shape... */
    int64_t assignment[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES]; /* ...and JAX's matrix */
    char reason[MG_TPU_REASON_MAX];
};

/* The device kinds with a handler: JAX's device_kind_handler_dict, in its
 * order. mg_tpu_handler_kind returns the i-th kind (NULL past the last) and
 * sets *jax_function, when not NULL, to the name of the function JAX runs
 * for it ("_v5p_create_device_mesh"). */
int mg_tpu_handler_count(void);
const char *mg_tpu_handler_kind(int i, const char **jax_function);

/* create_device_mesh(shape, devices, contiguous_submeshes=...,
 * allow_split_physical_axes=...). Returns 0 with the permutation in
 * r->perm, or -1 with r->reason where JAX raises. */
int mg_tpu_create_device_mesh(const struct mg_tpu_request *q, struct mg_tpu_result *r);

/* create_hybrid_device_mesh(shape, dcn, devices, process_is_granule=...,
 * should_sort_granules_by_key=..., allow_split_physical_axes=...): each
 * granule's mesh from create_device_mesh, DCN the outer factor on every
 * axis. Returns 0, or -1 with r->reason where JAX raises. */
int mg_tpu_create_hybrid_device_mesh(const struct mg_tpu_request *q, struct mg_tpu_result *r);

/* ---- the steps of the torus assignment, for their own unit tests ---------- */

/* _get_physical_tpu_mesh: places the devices by coordinates (minus the
 * smallest) into a physical mesh of shape (x, y, z), (x, y, cores) on v2
 * and v3, or (x, y, z, cores) on TPU7, TPU7x and TPU8i and on v5p ("TPU
 * v5p" or "TPU v5") with two devices per chip. Writes the shape, and cells[row-major physical
 * index] = device index (n cells). Returns the rank, or -1 with a reason when the coordinates are
 * not a contiguous cuboid. */
int mg_tpu_physical_mesh(const char *device_kind, const struct mg_tpu_device *devices, int n,
                         int64_t shape[MG_TPU_MAX_PHYSICAL], int32_t *cells, char *reason,
                         size_t cap);

/* _get_prime_factors: the prime factors of x >= 1 in ascending order, with
 * multiplicity (1 has none). Returns the number written (at most 63). */
int mg_tpu_prime_factors(int64_t x, int64_t out[64]);

/* _enumerate_feasible_logical_axis_assignments: every way to give a logical
 * axis of `size` a factor of each physical axis's remaining size
 * (phys[i] / used[i]), in JAX's order. Writes up to cap assignments of
 * n_phys entries each and returns how many exist. */
int mg_tpu_feasible_assignments(int n_phys, const int64_t *phys, const int64_t *used, int64_t size,
                                int64_t *out, int cap);

/* _prefer_first_logical_axis_assignment: whether assignment x is preferred
 * over y, given what the logical axes placed before have used. */
bool mg_tpu_prefer_first(int n_phys, const int64_t *x, const int64_t *y, const int64_t *phys,
                         const int64_t *used);

/* _create_device_mesh_for_nd_torus: the assignment matrix (physical axis x
 * logical axis -> size) for a physical mesh shape; whole physical axes only,
 * or, with allow_split and when that fails, splitting them. The device kind
 * (NULL for none) matters only on a 4-d mesh of TPU7 or TPU7x, where the
 * core axis is tried first. Sets *split. Returns 0, or -1 with JAX's
 * reason. */
int mg_tpu_torus_assign(const char *device_kind, int n_phys, const int64_t *phys, int n_axes,
                        const int64_t *shape, bool allow_split,
                        int64_t assignment[][MG_TPU_MAX_AXES], bool *split, char *reason,
                        size_t cap);

/* _create_device_mesh_for_nd_torus_splitting_axes on its own. */
int mg_tpu_split_assign(int n_phys, const int64_t *phys, int n_axes, const int64_t *shape,
                        int64_t assignment[][MG_TPU_MAX_AXES], char *reason, size_t cap);

/* _generate_logical_mesh: out[logical flat index] = cells[physical flat
 * index] for the assignment matrix, whose entries multiply to the number of
 * cells. */
void mg_tpu_logical_mesh(int n_phys, int n_axes, const int64_t *shape,
                         const int64_t assignment[][MG_TPU_MAX_AXES], const int32_t *cells,
                         int32_t *out);

/* ---- what tpu.c and tpu_assign.c share ------------------------------------ */

/* Writes a reason (when cap is not 0) and returns -1. */
int mg_tpu_fail(char *reason, size_t cap, const char *fmt, ...) MG_PRINTF(3, 4);
/* Appends to a reason buffer, keeping it terminated when it fills up. */
void mg_tpu_append(char *buf, size_t cap, const char *fmt, ...) MG_PRINTF(3, 4);
/* A tuple as Python prints it, so that reasons read as JAX's messages do:
 * "(1, 128, 2)", "(8,)", or with brackets "[0, 4, 0]". */
void mg_tpu_tuple(char *buf, size_t cap, const int64_t *v, int n, bool list);
/* The product of n sizes. */
int64_t mg_tpu_prod(const int64_t *v, int n);

#endif /* MG_TPU_H */
