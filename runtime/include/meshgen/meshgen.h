/*
 * meshgen runtime: placement questions answered from the static tables that
 * `meshgen generate` emits.
 *
 * This header is the whole public API of the runtime library. The data
 * structures below are filled in by generated code (never by hand); the
 * functions read them and never allocate, keep no global state and are safe
 * to call from any thread, because all the data is const.
 *
 * The lookups need nothing but libc. Binding and verification (meshgen_bind,
 * meshgen_verify) are the only calls that use hwloc, and they live in the
 * separate meshgen::placement library so a program that only looks things
 * up does not link hwloc.
 */
#ifndef MESHGEN_MESHGEN_H
#define MESHGEN_MESHGEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Versions. Generated files check these at compile time in both directions
 * (protobuf-c style): a file that needs a newer runtime than this header, or
 * that comes from a generator older than the oldest this header accepts,
 * fails with #error. The ABI word is also stored in the tables and checked at
 * run time by meshgen_mesh_check().
 */
#define MESHGEN_VERSION_MAJOR 0
#define MESHGEN_VERSION_MINOR 4
#define MESHGEN_VERSION_PATCH 0
#define MESHGEN_VERSION_STRING "0.4.0"
#define MESHGEN_VERSION_NUMBER                                                                     \
    (MESHGEN_VERSION_MAJOR * 10000 + MESHGEN_VERSION_MINOR * 100 + MESHGEN_VERSION_PATCH)
/* The oldest generator whose output this runtime can read (0.4.0: table
 * ABI 4). */
#define MESHGEN_MIN_GENERATOR_VERSION 400
/*
 * The oldest runtime that can read the tables this release's generator
 * writes: the number a generated header requires of MESHGEN_VERSION_NUMBER.
 * It is not the generator's own version, so that a patch or minor release
 * of the generator does not force a runtime upgrade: it moves (to the
 * release that makes the change) only when the tables do, that is when
 * MESHGEN_ABI changes or the tables start to use something an older runtime
 * does not read. gen/emit_c.c asserts it was revisited with the ABI.
 */
#define MESHGEN_MIN_RUNTIME_VERSION 400
#define MESHGEN_MIN_RUNTIME_VERSION_STRING "0.4.0"

/*
 * MESHGEN_API marks the functions of this header, which are exactly the
 * symbols the shared libraries export: they are built with hidden
 * visibility, so nothing else (no helper shared between their files) is
 * part of their ABI. Define it before including this header to override.
 */
#ifndef MESHGEN_API
#if defined(__GNUC__) || defined(__clang__)
#define MESHGEN_API __attribute__((visibility("default")))
#else
#define MESHGEN_API
#endif
#endif

/* "MSHG" in ASCII: the first word of every generated mesh. */
#define MESHGEN_MAGIC 0x4753484Du
/* Bumped whenever the layout of the structures below, or what they may
 * hold, changes. 2: TPU coordinates in meshgen_device_info. 3: the identity
 * tables may be left out (mesh_devices, device_index, process_devices and
 * processes NULL; see struct meshgen_mesh). 4: the PCI vendor id in
 * meshgen_device_info. */
#define MESHGEN_ABI 4

/* Limits shared by the generator and the runtime. */
#define MESHGEN_MAX_AXES 16
#define MESHGEN_MAX_DIMS 16
#define MESHGEN_MAX_NAME 31

/*
 * Error codes: every function returns 0 (or a count) on success and one of
 * these, negative, on failure. meshgen_strerror() describes them.
 *
 * Every function that takes a mesh first returns MESHGEN_ERR_NULL for a NULL
 * mesh, MESHGEN_ERR_MAGIC / MESHGEN_ERR_ABI for a wrong magic or ABI word and
 * MESHGEN_ERR_CORRUPT when the axis count is out of range; those cheap checks
 * are not repeated in each description below. The deeper consistency of the
 * tables is meshgen_mesh_check()'s job.
 *
 * Functions that fill a caller's array (members, devices) follow one rule:
 * the caller owns the array of cap entries; a NULL array with cap 0 writes
 * nothing and returns the count, so callers can size a buffer; a NULL array
 * with cap > 0 is MESHGEN_ERR_NULL, a negative cap MESHGEN_ERR_RANGE, and a
 * result longer than cap MESHGEN_ERR_NO_SPACE with nothing written.
 */
enum meshgen_error {
    MESHGEN_OK = 0,
    MESHGEN_ERR_NULL = -1,        /* a required pointer argument was NULL */
    MESHGEN_ERR_MAGIC = -2,       /* not a meshgen mesh (bad magic word) */
    MESHGEN_ERR_ABI = -3,         /* tables from an incompatible generator */
    MESHGEN_ERR_CORRUPT = -4,     /* tables fail the consistency check */
    MESHGEN_ERR_RANGE = -5,       /* a coordinate, index or id out of range */
    MESHGEN_ERR_NO_AXIS = -6,     /* no axis of that name */
    MESHGEN_ERR_NO_SPACE = -7,    /* the caller's buffer is too small */
    MESHGEN_ERR_INDIVISIBLE = -8, /* an array dimension not divisible by its shards */
    MESHGEN_ERR_NOT_IN_MESH = -9, /* the device exists but is not used by the mesh */
    /* -10 is unused: no function ever returned it (a mesh without an MPMD axis is one stage). */
    MESHGEN_ERR_NO_ENV = -11,        /* no launcher variable names this process */
    MESHGEN_ERR_BAD_ENV = -12,       /* a launcher or host variable is empty, not a number
                                        or not a host name */
    MESHGEN_ERR_NO_SHARDING = -13,   /* no sharding of that name or index */
    MESHGEN_ERR_UNSUPPORTED = -14,   /* not available in this build or on this system */
    MESHGEN_ERR_SYSTEM = -15,        /* the operating system or hwloc refused */
    MESHGEN_ERR_MISMATCH = -16,      /* this machine differs from the compiled inventory */
    MESHGEN_ERR_NO_CPU = -17,        /* a device's CPUs are unknown or not on this machine */
    MESHGEN_ERR_NOT_GPU = -18,       /* the mesh's devices are not GPUs */
    MESHGEN_ERR_NO_HOST = -19,       /* no one host of the mesh is this machine */
    MESHGEN_ERR_LOCAL_RANK = -20,    /* this host has no process at the launcher's local rank */
    MESHGEN_ERR_PROCESS_COUNT = -21, /* the launcher started another number of processes */
    MESHGEN_ERR_NOT_TPU = -22        /* the mesh's devices are not TPU devices */
};

/* What a mesh position is: a GPU, or a CPU object of some level. */
enum meshgen_device_kind {
    MESHGEN_KIND_GPU = 0,
    MESHGEN_KIND_CORE = 1,
    MESHGEN_KIND_NUMA = 2,
    MESHGEN_KIND_PACKAGE = 3,
    MESHGEN_KIND_PU = 4,
    MESHGEN_KIND_TPU = 5 /* a JAX device of a TPU slice (a chip, or a core on v2/v3) */
};

/* jax.sharding.AxisType. */
enum meshgen_axis_type {
    MESHGEN_AXIS_AUTO = 0,
    MESHGEN_AXIS_EXPLICIT = 1,
    MESHGEN_AXIS_MANUAL = 2
};

/* How processes map to devices: one per host (JAX) or one per device (MPI, torchrun). */
enum meshgen_process_mode { MESHGEN_PROCESSES_HOST = 0, MESHGEN_PROCESSES_DEVICE = 1 };

/* One named axis. size = ici * dcn; DCN is the outer factor. */
struct meshgen_axis {
    const char *name;
    int32_t size;
    int32_t ici;
    int32_t dcn;
    int32_t type; /* enum meshgen_axis_type */
};

/* PCI vendor ids (meshgen_device_info.vendor_id) of the GPU vendors whose
 * runtimes meshgen_placement_env places. */
#define MESHGEN_PCI_VENDOR_NVIDIA 0x10de
#define MESHGEN_PCI_VENDOR_AMD 0x1002
#define MESHGEN_PCI_VENDOR_INTEL 0x8086

/* What is known of one device of a host. Strings are "" when unknown. */
struct meshgen_device_info {
    int32_t kind;     /* enum meshgen_device_kind */
    int32_t os_index; /* hwloc OS index of a CPU object, -1 for GPUs */
    int32_t numa;     /* OS index of its NUMA node, -1 when unknown */
    /* The PCI vendor id of the device's PCI function (0x10de for NVIDIA,
     * ...), 0 when it has none (CPU objects, a GPU with no PCI device).
     * What decides a GPU's vendor: the vendor string is for display. */
    int32_t vendor_id;
    const char *pci; /* normalised "dddd:bb:dd.f" */
    /* hwloc's name for the vendor, else meshgen_vendor_name(vendor_id) */
    const char *vendor;
    const char *model;
    const char *uuid;
    const char *cpuset; /* local CPUs as a cpulist, e.g. "0-3,8-11" */
    /* TPU devices: the chip's x, y, z in its slice and the core on the chip,
     * as JAX's Device.coords and Device.core_on_chip; 0 for other kinds. */
    int32_t coords[3];
    int32_t core_on_chip;
};

/*
 * Hosts that share a topology share one template: a cluster of a thousand
 * identical hosts stores its device descriptions once.
 */
struct meshgen_host_template {
    int32_t n_devices;
    const struct meshgen_device_info *devices;
};

/* One host. Its devices have ids first_device .. first_device + n_devices - 1. */
struct meshgen_host {
    const char *name;
    const char *slice; /* granule key when granules are slices, else "" */
    int32_t granule;   /* index of its granule in DCN order */
    int32_t template_index;
    int32_t first_device;
    int32_t n_devices;
};

/* One process: a contiguous run of the process_devices array. */
struct meshgen_process {
    int32_t host;
    int32_t first; /* index into meshgen_mesh.process_devices */
    int32_t count;
};

/* One array dimension of a sharding: the mesh axes it is split over, most
 * significant first. */
struct meshgen_sharding_dim {
    int32_t n_axes;
    int32_t axes[MESHGEN_MAX_AXES];
    int64_t shards;      /* product of the sizes of those axes */
    int64_t global_size; /* 0 when the spec gives no shape */
    int64_t local_size;  /* global_size / shards, 0 when no shape */
};

/* A named PartitionSpec. */
struct meshgen_sharding {
    const char *name;
    int32_t n_dims;
    int32_t has_shape;
    const struct meshgen_sharding_dim *dims;
};

/*
 * A resolved mesh. Device ids number every device of the mesh's kind in
 * inventory order (hosts in inventory order, devices in host order); the mesh
 * uses n_devices of them (all unless the spec says `devices: N`).
 */
struct meshgen_mesh {
    uint32_t magic; /* MESHGEN_MAGIC */
    uint32_t abi;   /* MESHGEN_ABI */
    const char *name;
    const char *generator_version;
    const char *digest; /* "sha256:<hex>" of the normalised spec and inventory */

    int32_t n_axes;
    const struct meshgen_axis *axes;
    int32_t device_kind; /* enum meshgen_device_kind */
    int32_t n_devices;   /* positions in the mesh: the product of the axis sizes */
    int32_t n_inventory_devices;

    int32_t n_templates;
    const struct meshgen_host_template *templates;
    int32_t n_hosts;
    const struct meshgen_host *hosts;
    int32_t n_granules;

    /* The per-device tables. The generator leaves out (NULL) a table that is
     * the identity, which the functions below compute instead: both
     * mesh_devices and device_index NULL mean flat index i is device id i
     * (ids from n_devices on are not in the mesh); process_devices NULL,
     * entry i is i; processes NULL, one process per host, process p being
     * host p with its device ids (first = first_device, count = n_devices).
     * Read them through the functions (meshgen_mesh_device,
     * meshgen_coords_of, meshgen_process_devices), not directly. */
    const int32_t *mesh_devices; /* flat mesh index -> device id, n_devices entries */
    const int32_t *device_index; /* device id -> flat mesh index or -1, n_inventory_devices */

    int32_t process_mode; /* enum meshgen_process_mode */
    int32_t n_processes;
    const struct meshgen_process *processes;
    int32_t n_process_devices; /* entries of process_devices */
    const int32_t *process_devices;

    int32_t mpmd_axis; /* index of the MPMD axis, -1 when none */

    int32_t n_shardings;
    const struct meshgen_sharding *shardings;
};

/** Describes an error code (a generic text for unknown codes); never NULL.
 * The string is static: the caller must not free or modify it. */
MESHGEN_API const char *meshgen_strerror(int err);

/** The runtime's version string, e.g. "0.4.0" (static, MESHGEN_VERSION_STRING
 * of the header it was built with), to compare with the header at start-up. */
MESHGEN_API const char *meshgen_version(void);

/**
 * Checks the magic word, the ABI word and the internal consistency of a mesh:
 * sizes, that the flat table is a bijection onto the devices it names, hosts
 * and processes in range. Returns 0 or MESHGEN_ERR_NULL / _MAGIC / _ABI /
 * _CORRUPT. Reads only within the counts the mesh states; uses no memory but
 * a few locals. Call once at start-up; the other functions trust a checked
 * mesh.
 */
MESHGEN_API int meshgen_mesh_check(const struct meshgen_mesh *mesh);

/** Index of the axis called name (a NUL-terminated string the caller owns),
 * MESHGEN_ERR_NULL when name is NULL, or MESHGEN_ERR_NO_AXIS. */
MESHGEN_API int meshgen_axis_index(const struct meshgen_mesh *mesh, const char *name);

/** Size of axis `axis` (an index), or MESHGEN_ERR_RANGE. */
MESHGEN_API int meshgen_axis_size(const struct meshgen_mesh *mesh, int axis);

/**
 * The device id at mesh coordinates coords[0..n_axes-1] (outermost first; the
 * caller's array, only read), MESHGEN_ERR_NULL when coords is NULL, or
 * MESHGEN_ERR_RANGE when a coordinate is out of range.
 */
MESHGEN_API int meshgen_device_at(const struct meshgen_mesh *mesh, const int32_t *coords);

/** The device id at flat mesh index `flat` (row-major over the axes, the
 * last fastest), or MESHGEN_ERR_RANGE outside 0..n_devices-1. */
MESHGEN_API int meshgen_mesh_device(const struct meshgen_mesh *mesh, int flat);

/**
 * Writes the mesh coordinates of device id `device` into coords[0..n_axes-1]
 * (the caller's array of at least n_axes entries). Returns 0,
 * MESHGEN_ERR_NULL, MESHGEN_ERR_RANGE (no such device) or
 * MESHGEN_ERR_NOT_IN_MESH; coords is untouched on error.
 */
MESHGEN_API int meshgen_coords_of(const struct meshgen_mesh *mesh, int device, int32_t *coords);

/** The host index of device id `device`, or MESHGEN_ERR_RANGE. */
MESHGEN_API int meshgen_device_host(const struct meshgen_mesh *mesh, int device);

/**
 * What is known of device id `device` (PCI bus id, model, NUMA node, cpuset),
 * or NULL when the mesh is unusable or the id is out of range. The pointer is
 * into the const tables: the caller must not free it.
 */
MESHGEN_API const struct meshgen_device_info *meshgen_device_info(const struct meshgen_mesh *mesh,
                                                                  int device);

/**
 * The physical place of TPU device id `device`: the chip's coordinates
 * (x, y, z) in its slice into coords (the caller's array of 3 entries) and,
 * when core is not NULL, its core on the chip into *core, as JAX's
 * Device.coords and Device.core_on_chip report them (docs/tpu.md). Returns
 * 0, MESHGEN_ERR_NULL (coords NULL), MESHGEN_ERR_NOT_TPU (the mesh's devices
 * are not TPU devices) or MESHGEN_ERR_RANGE (no such device); nothing is
 * written on error.
 */
MESHGEN_API int meshgen_device_coords(const struct meshgen_mesh *mesh, int device, int coords[3],
                                      int *core);

/* ---- groups (DeviceMesh.get_group, MPI_Cart_sub) ------------------------------ */

/**
 * The bit mask of the axes named in a comma-separated list, e.g. "dp,tp"
 * (exact names, no spaces). "" gives 0. Returns the mask (>= 0),
 * MESHGEN_ERR_NULL, or MESHGEN_ERR_NO_AXIS when a name is unknown or empty.
 */
MESHGEN_API int meshgen_axes_mask(const struct meshgen_mesh *mesh, const char *names);

/**
 * The group of `device` along the axes in axes_mask (bit i = axis i): the
 * devices whose coordinates equal the device's on every other axis, in mesh
 * order. An empty mask gives the device alone. Writes the ids to members
 * (the caller's array of cap entries; see the array rule above) and returns
 * the group size, or MESHGEN_ERR_RANGE (no such device, or mask bits at or
 * beyond n_axes), MESHGEN_ERR_NOT_IN_MESH, MESHGEN_ERR_NO_SPACE,
 * MESHGEN_ERR_NULL.
 */
MESHGEN_API int meshgen_group(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask,
                              int32_t *members, int cap);

/**
 * The number of the device's group along axes_mask: groups are numbered in
 * row-major order of the remaining axes, so the number can be used as an
 * MPI_Comm_split colour. When rank is not NULL it receives the device's
 * position inside its group (usable as the split key). Errors as for
 * meshgen_group(); *rank is untouched on error.
 */
MESHGEN_API int meshgen_group_index(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask,
                                    int32_t *rank);

/** How many groups there are along axes_mask (product of the other axes'
 * sizes), or MESHGEN_ERR_RANGE for mask bits at or beyond n_axes. */
MESHGEN_API int meshgen_group_count(const struct meshgen_mesh *mesh, uint32_t axes_mask);

/**
 * Every group along axes_mask at once: group 0's members, then group 1's,
 * and so on in group-number order (meshgen_group_index's numbering), each
 * group's members in rank order (the order meshgen_group() gives them), so
 * that out[g * size + r] is the device of rank r in group g, size being the
 * product of the masked axes' sizes. Each device of the mesh appears exactly
 * once: n_devices ids in all. out is the caller's array of cap entries (the
 * array rule above: NULL with cap 0 returns the count; a cap below it is
 * MESHGEN_ERR_NO_SPACE and writes nothing). Returns n_devices, or
 * MESHGEN_ERR_RANGE (mask bits at or beyond n_axes), MESHGEN_ERR_CORRUPT
 * (axis sizes whose product is not n_devices), MESHGEN_ERR_NO_SPACE,
 * MESHGEN_ERR_NULL.
 *
 * The fastest way to list many groups: it walks the mesh in the output's
 * order (by tiles, where the groups are strided), with no check or division
 * per member, and where the generator left mesh_devices out it computes the
 * ids without reading a table. Inverting it gives every device's colour and
 * key for MPI_Comm_split: the device at out[k] has group k / size and rank
 * k % size.
 */
MESHGEN_API int meshgen_axis_groups(const struct meshgen_mesh *mesh, uint32_t axes_mask,
                                    int32_t *out, size_t cap);

/*
 * A per-device cursor: meshgen_group_index() for one mask, with every check
 * and every division worked out once by meshgen_cursor_init(), so that
 * meshgen_cursor_group() below is a few multiplications, inline.
 *
 * The layout is part of the ABI, because the inline function reads it; it
 * is layout version MESHGEN_CURSOR_VERSION, which meshgen_cursor_init()
 * writes to `version`. A later release that changes it gives the new layout
 * a new version number and a new name to its init function, so a program
 * never reads a cursor laid out for another header (and the shared
 * library's soname moves with each 0.x minor release as well). `reserved`
 * is zero, room for a later version's fields. The caller owns the struct
 * (on the stack, static, anywhere) and may copy it.
 *
 * A cursor never becomes invalid: it holds only numbers and a pointer to
 * the mesh's device_index table, which is const data for the life of the
 * program. It may be shared between threads.
 *
 * The arithmetic: a flat mesh index f (below 2^31) divided by d (2 to
 * 2^31) is the high 64 bits of f * mul, mul = ceil(2^64 / d): exact for
 * every such f, as f * (mul * d - 2^64) < 2^62 (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", 1994). Where the
 * compiler has a 128-bit type that is one multiplication; elsewhere two.
 */
#define MESHGEN_CURSOR_VERSION 1

/* How meshgen_cursor_group() finds the group number g and the rank r from
 * the device's flat index f, by the place of the mask's axes (size-1 axes
 * left out): none (g = f, r = 0); one run of consecutive axes that is the
 * innermost (g = f / size, r = f % size), the outermost (r = f / stride,
 * g = f % stride) or neither (f = (high * size + r) * stride + low, g =
 * high * stride + low); or several runs, a digit each (runs[]). */
enum meshgen_cursor_form {
    MESHGEN_CURSOR_NONE = 0,
    MESHGEN_CURSOR_INNER = 1,
    MESHGEN_CURSOR_OUTER = 2,
    MESHGEN_CURSOR_MIDDLE = 3,
    MESHGEN_CURSOR_RUNS = 4
};

/* A run of consecutive axes (size-1 axes left out) that are all inside the
 * mask or all outside it, read as one mixed-radix digit of the flat index. */
struct meshgen_cursor_run {
    uint64_t mul;         /* what is left of f, divided by base: the high 64 bits of f * mul */
    uint32_t base;        /* the product of its axes' sizes, at least 2 */
    uint32_t group_scale; /* the digit's weight in the group number; 0 for a run in the mask */
    uint32_t rank_scale;  /* the digit's weight in the rank; 0 for a run outside it */
    uint32_t reserved;    /* zero */
};

/* The fields a form does not use are zero (NONE: all of them). */
struct meshgen_cursor {
    uint32_t version;            /* MESHGEN_CURSOR_VERSION */
    uint32_t form;               /* enum meshgen_cursor_form */
    const int32_t *device_index; /* the mesh's; NULL: flat index = device id */
    uint64_t mul_stride;         /* f / stride (forms OUTER, MIDDLE) */
    uint64_t mul_block;          /* f / (stride * size) (INNER, whose stride is 1; MIDDLE) */
    uint32_t stride;             /* the product of the sizes of the axes after the run */
    uint32_t size;               /* the product of the sizes of the run's axes: the group size */
    uint32_t n_runs;             /* entries of runs[] (form RUNS), innermost first */
    uint32_t reserved[3];        /* zero */
    struct meshgen_cursor_run runs[MESHGEN_MAX_AXES];
};

/**
 * Fills *c for meshgen_cursor_group() along axes_mask. Every check happens
 * here: the mesh's magic, ABI and axis count, the mask (bits at or beyond
 * n_axes are MESHGEN_ERR_RANGE), and axis sizes that multiply to n_devices
 * (else MESHGEN_ERR_CORRUPT). Returns 0, or MESHGEN_ERR_NULL (c or mesh
 * NULL) or one of those errors; *c is untouched on error.
 */
MESHGEN_API int meshgen_cursor_init(struct meshgen_cursor *c, const struct meshgen_mesh *mesh,
                                    uint32_t axes_mask);

/* f / d for the cursor, mul = ceil(2^64 / d) (above). A program may define
 * MESHGEN_CURSOR_NO_INT128 to take the two-multiplication form anyway (the
 * tests do, to hold it to the same answers). */
static inline uint32_t meshgen_cursor_div_(uint32_t f, uint64_t mul)
{
#if defined(__SIZEOF_INT128__) && !defined(MESHGEN_CURSOR_NO_INT128)
    __extension__ typedef unsigned __int128 meshgen_u128_;

    return (uint32_t)(((meshgen_u128_)f * mul) >> 64);
#else
    /* (f * mul) >> 64 from the halves of mul; no sum overflows 64 bits. */
    uint64_t low = (uint64_t)f * (uint32_t)mul, high = (uint64_t)f * (uint32_t)(mul >> 32);

    return (uint32_t)((high + (low >> 32)) >> 32);
#endif
}

/* The form RUNS of meshgen_cursor_group(): a digit per run; returns the
 * rank in the high 32 bits and the group in the low ones. Kept out of line
 * where the compiler allows it (a copy per file that uses it, no exported
 * symbol), and pure (it writes nothing), so that a loop over the other
 * forms keeps the cursor's fields in registers instead of reloading them
 * after every store it makes. */
#if defined(__clang__)
#define MESHGEN_OUT_OF_LINE_ inline __attribute__((noinline, pure))
#elif defined(__GNUC__)
/* gcc warns of noinline on an inline function; unused spares a file that
 * never calls it the warning about an unused static function. */
#define MESHGEN_OUT_OF_LINE_ __attribute__((noinline, pure, unused))
#else
#define MESHGEN_OUT_OF_LINE_ inline
#endif
static MESHGEN_OUT_OF_LINE_ uint64_t meshgen_cursor_runs_(const struct meshgen_cursor *c,
                                                          uint32_t f)
{
    uint32_t group = 0, in_group = 0, i;

    /* The bound keeps a cursor that was never initialised inside runs[]. */
    for (i = 0; i < c->n_runs && i < MESHGEN_MAX_AXES; i++) {
        const struct meshgen_cursor_run *run = &c->runs[i];
        uint32_t q = meshgen_cursor_div_(f, run->mul);
        uint32_t digit = f - q * run->base;

        group += digit * run->group_scale;
        in_group += digit * run->rank_scale;
        f = q;
    }
    return (uint64_t)in_group << 32 | group;
}

/**
 * The group number of `device` along the cursor's mask, as
 * meshgen_group_index() gives it, and, when rank is not NULL, its rank in
 * the group. Inline and unchecked: `device` must be a device of the mesh
 * (0 <= device < n_inventory_devices, device_index[device] >= 0, as
 * meshgen_group_index() would accept it). For such a device it reads one
 * entry of device_index, or nothing where the mesh leaves that table out;
 * for another id the answer is meaningless, and an id outside
 * 0 .. n_inventory_devices - 1 reads outside the table.
 */
static inline int32_t meshgen_cursor_group(const struct meshgen_cursor *c, int32_t device,
                                           int32_t *rank)
{
    uint32_t f = c->device_index != NULL ? (uint32_t)c->device_index[device] : (uint32_t)device;
    uint32_t g, r, q, h;
    uint64_t both;

    /* The forms of one run (or none) by one branch-free formula, f = (h *
     * size + r) * stride + low and g = h * stride + low, from q = f /
     * stride and h = f / (stride * size): a field a form leaves zero makes
     * its quotient 0, which is OUTER's h and NONE's q and h, and INNER's q
     * (its stride is 1) is f itself. One path keeps a loop's branches and
     * live fields few; meshgen_cursor_init() keeps the fields of each form
     * as described above. */
    if (c->form != MESHGEN_CURSOR_RUNS) {
        q = meshgen_cursor_div_(f, c->mul_stride) + (f & (0u - (uint32_t)(c->stride == 1)));
        h = meshgen_cursor_div_(f, c->mul_block);
        r = q - h * c->size;
        g = f - (q - h) * c->stride;
    } else {
        both = meshgen_cursor_runs_(c, f);
        g = (uint32_t)both;
        r = (uint32_t)(both >> 32);
    }
    if (rank != NULL)
        *rank = (int32_t)r;
    return (int32_t)g;
}

/* ---- MPMD stages (jaxpp MpmdMesh) ---------------------------------------------- */

/** The number of stages: the size of the MPMD axis, or 1 when there is none. */
MESHGEN_API int meshgen_stage_count(const struct meshgen_mesh *mesh);

/** The stage of a device (its coordinate on the MPMD axis); 0 when no MPMD
 * axis. MESHGEN_ERR_RANGE or MESHGEN_ERR_NOT_IN_MESH for a bad device. */
MESHGEN_API int meshgen_stage_of(const struct meshgen_mesh *mesh, int device);

/**
 * The devices of stage `stage` in mesh order (the sub-mesh that keeps the
 * MPMD axis with size 1; the whole mesh as stage 0 when there is no MPMD
 * axis), written to devices (the caller's array of cap entries; see the
 * array rule above). Returns the count, or MESHGEN_ERR_RANGE (no such
 * stage), MESHGEN_ERR_NO_SPACE, MESHGEN_ERR_NULL.
 */
MESHGEN_API int meshgen_stage_devices(const struct meshgen_mesh *mesh, int stage, int32_t *devices,
                                      int cap);

/* ---- shardings (PartitionSpec, NamedSharding.devices_indices_map) -------------- */

/** Index of the sharding called name (the caller's string), MESHGEN_ERR_NULL
 * when name is NULL, or MESHGEN_ERR_NO_SHARDING. */
MESHGEN_API int meshgen_sharding_index(const struct meshgen_mesh *mesh, const char *name);

/**
 * The slice of a global array that `device` holds under sharding `sharding`
 * (an index). global_shape has n_dims entries (n_dims >= the sharding's
 * dimensions; the dimensions past the spec are replicated); NULL uses the
 * shape given in the spec, and then n_dims must equal the sharding's n_dims.
 * Writes start[] and size[] (the caller's arrays of n_dims entries each; they
 * may be NULL only when n_dims is 0) and, when replica_id is not NULL, the
 * number of earlier devices (flat order) that hold the same slice. Returns 0,
 * MESHGEN_ERR_NO_SHARDING (no such index), MESHGEN_ERR_NULL,
 * MESHGEN_ERR_INDIVISIBLE when a dimension is not divisible by its shard
 * count, MESHGEN_ERR_NOT_IN_MESH, or MESHGEN_ERR_RANGE (a bad device, a
 * negative dimension, too few dimensions, or no shape to use). Nothing is
 * written on error.
 */
MESHGEN_API int meshgen_shard(const struct meshgen_mesh *mesh, int sharding,
                              const int64_t *global_shape, int n_dims, int device, int64_t *start,
                              int64_t *size, int32_t *replica_id);

/* ---- processes: which one am I (docs/reference.md, "Which process am I") ------- */

/**
 * Reads one variable for the *_from_vars functions below: returns its value
 * (NUL-terminated, valid until the function that asked returns) or NULL when
 * it is not set. ctx is whatever the caller passed with it. The *_from_env
 * functions use getenv(); a test or a tool passes its own table of names.
 */
typedef const char *(*meshgen_lookup_fn)(void *ctx, const char *name);

/**
 * The host of the mesh that this machine is. This machine's name is
 * MESHGEN_HOSTNAME, else SLURMD_NODENAME, else gethostname(); a host has it
 * when the two names are equal, else when they are equal up to the first dot
 * of each ("gpu001" and "gpu001.cluster.example"), ignoring the case of
 * ASCII letters as DNS does ("GPU001" is "gpu001"); a name that starts with
 * a dot is the short name of none. The variables must hold host names: 1 to
 * 255 bytes of ASCII letters, digits, '-', '_' and '.', with no empty label
 * (docs/reference.md §2, "Host names"). A mesh whose only host is called
 * "localhost" (a synthetic inventory's) takes any machine for it. The name
 * read is written to name (the caller's buffer of cap bytes, NUL-terminated
 * and cut to fit; NULL when cap is 0), found or not.
 * Returns the host index, or MESHGEN_ERR_NO_HOST (no host has the name, or
 * two have it up to the first dot and none exactly), MESHGEN_ERR_BAD_ENV (a
 * variable set but empty or not a host name), MESHGEN_ERR_SYSTEM
 * (gethostname() failed), MESHGEN_ERR_NULL (get NULL, or name NULL with
 * cap > 0).
 */
MESHGEN_API int meshgen_host_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get,
                                       void *ctx, char *name, size_t cap);

/** meshgen_host_from_vars() over this process's environment (getenv()), so
 * it must not race with setenv() in another thread. */
MESHGEN_API int meshgen_host_from_env(const struct meshgen_mesh *mesh, char *name, size_t cap);

/**
 * The calling process's index, found by where it runs: its host by name (as
 * meshgen_host_from_vars() finds it) and, with `processes: device`, the
 * launcher's local rank k, which makes it the host's k-th process in
 * process order. The launcher is the innermost one whose local rank is set,
 * in this order: torchrun LOCAL_RANK, Open MPI OMPI_COMM_WORLD_LOCAL_RANK,
 * MPICH/Hydra MPI_LOCALRANKID, HPE Cray PALS PALS_LOCAL_RANKID, Flux
 * FLUX_TASK_LOCAL_ID, Slurm SLURM_LOCALID. Where that launcher gives a world
 * size (WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, FLUX_JOB_SIZE,
 * SLURM_NTASKS or SLURM_NPROCS) it must be the mesh's process count, and
 * where it gives a count on this host (LOCAL_WORLD_SIZE,
 * OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, PALS_LOCAL_SIZE) that of the
 * host's processes. With `processes: host` the host alone decides, and a
 * local rank, if any, must be 0. MESHGEN_PROCESS, when set, is the answer
 * and nothing else is read. Values are plain decimal digits (no sign, no
 * spaces).
 *
 * Returns 0 and sets *process, or MESHGEN_ERR_NULL, the errors of
 * meshgen_host_from_vars(), MESHGEN_ERR_NO_ENV (`processes: device` and no
 * local rank), MESHGEN_ERR_BAD_ENV (a value that is not a number or too
 * large), MESHGEN_ERR_PROCESS_COUNT (a launcher's count differs from the
 * mesh's), MESHGEN_ERR_LOCAL_RANK (this host has no process at that local
 * rank) or MESHGEN_ERR_RANGE (MESHGEN_PROCESS not below the process count).
 * *process is untouched on error. Never guesses: a launcher that says
 * something the tables cannot place is an error.
 */
MESHGEN_API int meshgen_process_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get,
                                          void *ctx, int32_t *process);

/** meshgen_process_from_vars() over this process's environment (getenv()),
 * so it must not race with setenv() in another thread. */
MESHGEN_API int meshgen_process_from_env(const struct meshgen_mesh *mesh, int32_t *process);

/**
 * Says in one line why meshgen_process_from_vars() over the same variables
 * fails, in terms a person can act on, or how it found the process. get
 * NULL reads this process's environment (getenv()). On an error the line
 * names the variable that decided and its value, what the mesh expected
 * and what would fix it (docs/reference.md, "When no process is found"),
 * e.g. "OMPI_COMM_WORLD_SIZE=3, but the mesh has 4 processes, one per host
 * ('processes: host'); start one process per host, 4 in all: mpirun -np 4
 * --map-by ppr:1:node (or -N 1)", or for a name that is no host "this
 * machine's name 'n7' (from gethostname()) is no host of the mesh, whose
 * hosts are 'gpu1', 'gpu2', 'gpu3' and 13 more; set MESHGEN_HOSTNAME to
 * this machine's name among them". On success it is e.g. "process 5 of 8:
 * host 'gpu2' (this machine's name 'gpu2', from gethostname()), local rank
 * 1 (OMPI_COMM_WORLD_LOCAL_RANK)". The line goes to buf (the caller's
 * buffer of cap bytes, NUL-terminated, cut to fit; 512 bytes hold any but
 * the longest host names; buf may be NULL when cap is 0). Returns what
 * meshgen_process_from_vars() returns (0 on success; the process itself is
 * not returned), or MESHGEN_ERR_NULL (buf NULL with cap > 0). Uses no memory
 * but a few locals; meant for the error path, after
 * meshgen_process_from_env() failed:
 *
 *     if ((rc = meshgen_process_from_env(&mesh, &p)) < 0) {
 *         meshgen_process_explain(&mesh, NULL, NULL, why, sizeof why);
 *         fprintf(stderr, "%s: %s\n", meshgen_strerror(rc), why);
 *     }
 */
MESHGEN_API int meshgen_process_explain(const struct meshgen_mesh *mesh, meshgen_lookup_fn get,
                                        void *ctx, char *buf, size_t cap);

/**
 * The devices of process `process` (ids, ascending), written to devices (the
 * caller's array of cap entries; see the array rule above). Returns the
 * count, or MESHGEN_ERR_RANGE (no such process), MESHGEN_ERR_NO_SPACE,
 * MESHGEN_ERR_NULL.
 */
MESHGEN_API int meshgen_process_devices(const struct meshgen_mesh *mesh, int process,
                                        int32_t *devices, int cap);

/** The process that owns device id `device`, MESHGEN_ERR_RANGE (no such
 * device) or MESHGEN_ERR_NOT_IN_MESH (no process holds it). */
MESHGEN_API int meshgen_process_of(const struct meshgen_mesh *mesh, int device);

/* ---- launcher environment (LLNL mpibind style) --------------------------------- */

/* The variables meshgen_placement_env() can compute. */
enum meshgen_env_var {
    MESHGEN_ENV_CUDA_VISIBLE_DEVICES = 0,
    MESHGEN_ENV_ROCR_VISIBLE_DEVICES = 1,
    MESHGEN_ENV_OMP_PLACES = 2,
    MESHGEN_ENV_ZE_AFFINITY_MASK = 3
};

/** The name of variable `var` (enum meshgen_env_var), e.g.
 * "CUDA_VISIBLE_DEVICES", or NULL for an unknown value. The string is
 * static. */
MESHGEN_API const char *meshgen_env_name(int var);

/** The visible-devices variable (enum meshgen_env_var) that names a GPU of
 * this PCI vendor id (meshgen_device_info.vendor_id):
 * MESHGEN_ENV_CUDA_VISIBLE_DEVICES for NVIDIA (0x10de),
 * MESHGEN_ENV_ROCR_VISIBLE_DEVICES for AMD (0x1002),
 * MESHGEN_ENV_ZE_AFFINITY_MASK for Intel (0x8086); MESHGEN_ERR_RANGE for any
 * other id, 0 (unknown) included. A vendor is decided by its id alone,
 * never by a name (docs/reference.md §2, "Vendors"). */
MESHGEN_API int meshgen_vendor_env_var(int32_t vendor_id);

/** A display name for a PCI vendor id: "NVIDIA", "AMD", "Intel", and the
 * other accelerator vendors meshgen knows ("Habana Labs", "Google"), or
 * NULL for any other id. The string is static. The generator stores it as
 * a GPU's vendor where hwloc gives no name (docs/reference.md §2). */
MESHGEN_API const char *meshgen_vendor_name(int32_t vendor_id);

/**
 * The value of launcher variable `var` (enum meshgen_env_var) for process
 * `process`, to set in its environment before the GPU or OpenMP runtime
 * starts (as LLNL mpibind does). Writes it, NUL-terminated, into buf (the
 * caller's buffer of cap bytes) and returns its length (without the NUL).
 *
 * - CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK: the
 *   process's GPUs of that variable's vendor (NVIDIA, AMD, Intel, by PCI
 *   vendor id: meshgen_vendor_env_var), in device id order,
 *   comma-separated; a GPU of another vendor, or of none known (no PCI
 *   device), is left out, as this runtime does not see it. Each is named by UUID when every
 *   listed GPU has one the runtime accepts: for CUDA an NVML UUID as hwloc
 *   reports it ("GPU-..." or "MIG-...", the form CUDA_VISIBLE_DEVICES takes);
 *   for ROCm "GPU-" and the 16 hex digits of the RSMI unique id (hwloc's
 *   AMDUUID, written there without leading zeros, so they are added back),
 *   which is how ROCR_VISIBLE_DEVICES matches UUIDs (ROCR-Runtime,
 *   core/runtime/amd_filter_device.cpp); Level Zero's mask takes none.
 *   Otherwise each is named by its index among its host's GPUs of the same
 *   vendor in PCI bus id order, the numbering that vendor's runtime gives
 *   them on a host of mixed vendors; CUDA numbers devices fastest first
 *   unless CUDA_DEVICE_ORDER=PCI_BUS_ID is also set, Level Zero in PCI
 *   order only with ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 (and its indices
 *   count cards, as this list does, only with
 *   ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE: its default FLAT hierarchy counts
 *   each tile of a multi-tile card), and indices count
 *   within whatever the launcher already made visible. An empty string (a
 *   process with no GPU of the vendor) hides every GPU of it from CUDA and
 *   ROCm.
 * - OMP_PLACES: one place per distinct cpuset of the process's devices, in
 *   device order, in the OpenMP interval syntax (a cpuset "0-3,8-11" is the
 *   place "{0:4,8:4}", so two such devices give "{0:4,8:4},{16:4}"). The
 *   value is "" for a process with no devices, which is no valid
 *   OMP_PLACES: leave the variable unset then.
 *
 * A NULL buf with cap 0 writes nothing and returns the length, to size a
 * buffer. Returns MESHGEN_ERR_RANGE (no such process or variable),
 * MESHGEN_ERR_NOT_GPU (a visible-devices variable for a mesh of CPU
 * objects), MESHGEN_ERR_NO_CPU (OMP_PLACES for a device with no known
 * cpuset), MESHGEN_ERR_CORRUPT (a malformed cpuset), MESHGEN_ERR_NULL (buf
 * NULL with cap > 0), or MESHGEN_ERR_NO_SPACE when cap is too small, in
 * which case only a NUL is written (when cap > 0).
 */
MESHGEN_API int meshgen_placement_env(const struct meshgen_mesh *mesh, int process, int var,
                                      char *buf, size_t cap);

/* ---- binding and verification: link meshgen::placement ------------------------- */
/*
 * The two calls below use hwloc and live in the separate meshgen::placement
 * library (libmeshgen_placement), so that programs that only look things up
 * do not link hwloc. Both discover this machine, which takes milliseconds,
 * and may allocate through hwloc: call them at start-up, not in a hot loop.
 * Like hwloc itself they honour HWLOC_XMLFILE (this machine as described by
 * an XML file) and HWLOC_THISSYSTEM. The file HWLOC_XMLFILE names is read
 * here first and given to hwloc as a buffer, and refused, as
 * MESHGEN_ERR_SYSTEM with errno EINVAL (and meshgen_verify's report
 * saying why), when its prolog is one that hwloc 2.9's XML reader crashes
 * on: a DOCTYPE without a system identifier or with an internal subset,
 * or an encoding other than UTF-8 (docs/reference.md §2).
 */

/**
 * Binds the calling thread to the CPUs stored for device id `device` (its
 * cpuset, as the compiled inventory recorded it; hwloc_set_cpubind with
 * HWLOC_CPUBIND_THREAD). Only the CPUs this process may use are looked up
 * from the machine, nothing else is discovered. Returns 0, MESHGEN_ERR_RANGE
 * (no such device), MESHGEN_ERR_CORRUPT (a malformed cpuset in the tables),
 * MESHGEN_ERR_NO_CPU (the cpuset is empty, or names a CPU this process
 * cannot use on this machine: nothing is bound then), MESHGEN_ERR_UNSUPPORTED
 * (hwloc describes another machine, through HWLOC_XMLFILE without
 * HWLOC_THISSYSTEM=1, so binding would do nothing) or MESHGEN_ERR_SYSTEM (hwloc
 * or the operating system refused; errno tells why).
 */
MESHGEN_API int meshgen_bind(const struct meshgen_mesh *mesh, int device);

/**
 * Compares this machine with the compiled inventory of host `host` and
 * reports the first difference. Which host this machine is comes first, by
 * the rule of meshgen_host_from_env() (MESHGEN_HOSTNAME, else
 * SLURMD_NODENAME, else gethostname()): a negative host means that host; a
 * host given explicitly must be that host, or the result is a mismatch that
 * names both, e.g. "host 0 is 'nodeA', but this machine is 'nodeB' (from
 * MESHGEN_HOSTNAME)". Then the machine is discovered with hwloc, I/O devices
 * included, and its devices of the mesh's kind are found by the generator's
 * own rules and compared as `meshgen verify` compares them
 * (docs/reference.md, "meshgen verify"): the device count first, then the
 * devices paired by PCI bus id (GPUs) or OS index (CPU objects), else by
 * UUID, else in order, and for each pair its OS index, PCI bus id, PCI
 * vendor id, model (when both sides know one), UUID (when the tables know
 * it), NUMA node and cpuset. The vendor's name is for display and is not
 * compared: the PCI vendor id decides.
 *
 * The first difference, or the reason for an error, is written in words to
 * report (the caller's buffer of cap bytes, NUL-terminated, truncated to
 * fit; "" on a match), e.g. "device 3: PCI bus id 0000:3b:00.0 expected,
 * 0000:3c:00.0 found" or "missing device: expected 16 gpu devices, found
 * 15". report may be NULL when cap is 0. Returns 0 on a match,
 * MESHGEN_ERR_MISMATCH on a difference (of host or of devices),
 * MESHGEN_ERR_RANGE (host past the mesh's), MESHGEN_ERR_NO_HOST (a negative
 * host and no one host is this machine), MESHGEN_ERR_BAD_ENV (a host
 * variable set but empty), MESHGEN_ERR_NULL (report NULL with cap > 0), the
 * errors of meshgen_mesh_check(), MESHGEN_ERR_SYSTEM (this machine has no
 * name, or hwloc cannot discover it), or MESHGEN_ERR_UNSUPPORTED for a mesh
 * of TPU devices, which hwloc does not see (after the host check).
 */
MESHGEN_API int meshgen_verify(const struct meshgen_mesh *mesh, int host, char *report, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* MESHGEN_MESHGEN_H */
