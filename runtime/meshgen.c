/*
 * meshgen runtime: the lookups declared in <meshgen/meshgen.h>, answered from
 * the const tables that generated code provides.
 *
 * Everything here is arithmetic over those tables: no allocation, no global
 * mutable state, no I/O. The only libc calls are string comparisons,
 * getenv() and gethostname(). This file knows nothing of YAML, hwloc or how
 * the tables were produced; binding and verification live in the placement
 * library. The launcher variables (meshgen_placement_env) are text written
 * from the tables, so they are here and need no hwloc; so is the answer to
 * "which process am I", read from the launcher's variables.
 *
 * meshgen_mesh_check() establishes the invariants the other functions rely
 * on. Those functions still validate every argument against the counts the
 * mesh states, and cheaply guard the few table values that index a local
 * buffer or a table, or divide, so that even an unchecked mesh cannot make
 * them read or write past the counts it states, or trap. The lookups are written to cost
 * about what the same arithmetic costs written inline (docs/reference.md,
 * §5): a check per call, not per element, and no division where a shift
 * does.
 */
/* gethostname() is POSIX; the file must compile on its own with -std=c11. */
#define _POSIX_C_SOURCE 200809L

#include <meshgen/meshgen.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"
#include "host.h"

/* The mask of every axis of a mesh with n axes (n <= MESHGEN_MAX_AXES < 32). */
#define ALL_AXES(n) ((uint32_t)((1u << (n)) - 1u))

/* A mask of exactly one axis: a power of two. */
#define ONE_AXIS(mask) ((mask) != 0 && ((mask) & ((mask)-1u)) == 0)

/* The number of trailing zero bits of x, for x != 0. */
#if defined(__GNUC__) || defined(__clang__)
#define CTZ32(x) ((unsigned)__builtin_ctz(x))
#else
static unsigned CTZ32(uint32_t x)
{
    unsigned n = 0;

    while ((x & 1u) == 0) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif

/* The general paths of the group lookups stay out of line, so that the
 * one-axis paths, the usual ones, keep a small frame. */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* ---- errors and version ---------------------------------------------------- */

/* Indexed by the negated code, so the order must follow enum meshgen_error. */
static const char *const error_text[] = {
    "success",
    "a required pointer argument is NULL",
    "not a meshgen mesh (bad magic word)",
    "mesh tables from an incompatible generator (ABI mismatch)",
    "mesh tables are inconsistent",
    "coordinate, index or id out of range",
    "no axis of that name",
    "buffer too small for the result",
    "array dimension not divisible by its shard count",
    "device is not used by the mesh",
    "unused error code",
    "no launcher environment variable names this process",
    "a launcher or host name variable is empty, not a valid number or not a host name",
    "no sharding of that name or index",
    "not supported in this build or on this system",
    "the operating system or hwloc refused",
    "this machine differs from the compiled inventory",
    "the device's CPUs are unknown or not available on this machine",
    "the mesh's devices are not GPUs",
    "no one host of the mesh is this machine",
    "this host has no process of the mesh at the launcher's local rank",
    "the launcher started another number of processes than the mesh has",
    "the mesh's devices are not TPU devices",
};
_Static_assert(sizeof error_text / sizeof error_text[0] == 1 - MESHGEN_ERR_NOT_TPU,
               "error_text must describe every enum meshgen_error code");

const char *meshgen_strerror(int err)
{
    /* Compare before negating so that INT_MIN cannot overflow. */
    if (err > 0 || err <= -(int)(sizeof error_text / sizeof error_text[0]))
        return "unknown meshgen error code";
    return error_text[-err];
}

const char *meshgen_version(void)
{
    return MESHGEN_VERSION_STRING;
}

/* ---- shared helpers ---------------------------------------------------------- */

/*
 * The checks every entry point makes before touching a mesh. They are O(1)
 * and cover what would otherwise let a bad mesh overrun the fixed-size
 * coordinate buffers below (an axis count above MESHGEN_MAX_AXES).
 */
static int mesh_usable(const struct meshgen_mesh *mesh)
{
    if (mesh == NULL)
        return MESHGEN_ERR_NULL;
    if (mesh->magic != MESHGEN_MAGIC)
        return MESHGEN_ERR_MAGIC;
    if (mesh->abi != MESHGEN_ABI)
        return MESHGEN_ERR_ABI;
    if (mesh->n_axes < 1 || mesh->n_axes > MESHGEN_MAX_AXES || mesh->axes == NULL)
        return MESHGEN_ERR_CORRUPT;
    return MESHGEN_OK;
}

/*
 * The tables the generator leaves out (table ABI 3, docs/reference.md §3): a NULL
 * mesh_devices and device_index mean the identity (the mesh's flat index i
 * is device id i, and ids from n_devices on are not in the mesh); a NULL
 * process_devices, the identity over its n_process_devices entries; NULL
 * processes, one process per host, process p holding host p's device ids
 * (first = first_device, count = n_devices). A million-device mesh is
 * mostly such tables, and compiling them cost gcc most of its time.
 */
static inline int32_t table_device(const struct meshgen_mesh *mesh, uint32_t flat)
{
    return mesh->mesh_devices != NULL ? mesh->mesh_devices[flat] : (int32_t)flat;
}

static inline int32_t table_flat(const struct meshgen_mesh *mesh, int32_t device)
{
    if (mesh->device_index != NULL)
        return mesh->device_index[device];
    return device < mesh->n_devices ? device : -1;
}

static inline int32_t table_process_device(const struct meshgen_mesh *mesh, int32_t i)
{
    return mesh->process_devices != NULL ? mesh->process_devices[i] : i;
}

/* Process p (0 <= p < n_processes) as a value; a run of -1 (which
 * process_run_ok refuses) when a left-out table has no host to read. */
static struct meshgen_process process_at(const struct meshgen_mesh *mesh, int32_t p)
{
    struct meshgen_process proc = {p, -1, 0};

    if (mesh->processes != NULL)
        return mesh->processes[p];
    if (mesh->hosts != NULL && p < mesh->n_hosts) {
        proc.first = mesh->hosts[p].first_device;
        proc.count = mesh->hosts[p].n_devices;
    }
    return proc;
}

/* The flat mesh index of a device id, or RANGE / NOT_IN_MESH / CORRUPT. */
static int flat_of(const struct meshgen_mesh *mesh, int device, int32_t *flat)
{
    int32_t f;

    if (device < 0 || device >= mesh->n_inventory_devices)
        return MESHGEN_ERR_RANGE;
    f = table_flat(mesh, device);
    if (f < 0)
        return MESHGEN_ERR_NOT_IN_MESH;
    /* Guarded because a flat index past the mesh would give coordinates
     * outside it, which the group and stage listings then look up. */
    if (f >= mesh->n_devices)
        return MESHGEN_ERR_CORRUPT;
    *flat = f;
    return MESHGEN_OK;
}

/*
 * *n / d, leaving the remainder in *n, for d >= 1. Axis sizes are almost
 * always powers of two, and then a shift and a mask replace the division,
 * which costs more than the rest of a lookup (docs/reference.md, §5).
 */
static inline uint32_t divide(uint32_t *n, uint32_t d)
{
    uint32_t q;

    if ((d & (d - 1u)) == 0) {
        q = *n >> CTZ32(d);
        *n &= d - 1u;
    } else {
        q = *n / d;
        *n %= d;
    }
    return q;
}

/* An axis size as a divisor: 0 when it is below 1, which only a mesh that
 * failed its check can hold. (Sizes too large are caught by the callers'
 * bounds on their products.) */
static inline uint32_t axis_size(const struct meshgen_axis *axis)
{
    return axis->size >= 1 ? (uint32_t)axis->size : 0u;
}

/*
 * The mixed-radix digits of a flat index over the axis sizes, last axis
 * fastest: a division per axis but the first, whose digit is what remains.
 * Returns CORRUPT for a mesh whose sizes do not describe the index.
 */
static int coords_from_flat(const struct meshgen_mesh *mesh, uint32_t flat, int32_t *coords)
{
    uint32_t size;
    int i;

    for (i = mesh->n_axes - 1; i > 0; i--) {
        uint32_t rest = flat;

        size = axis_size(&mesh->axes[i]);
        if (size == 0)
            return MESHGEN_ERR_CORRUPT;
        flat = divide(&rest, size);
        coords[i] = (int32_t)rest;
    }
    if (flat >= axis_size(&mesh->axes[0]))
        return MESHGEN_ERR_CORRUPT;
    coords[0] = (int32_t)flat;
    return MESHGEN_OK;
}

/* The coordinates of a device id, or RANGE / NOT_IN_MESH / CORRUPT. */
static int device_coords(const struct meshgen_mesh *mesh, int device, int32_t *coords)
{
    int32_t flat;
    int rc = flat_of(mesh, device, &flat);

    if (rc != MESHGEN_OK)
        return rc;
    return coords_from_flat(mesh, (uint32_t)flat, coords);
}

/*
 * The row-major index of coords over the axes in mask (the first selected
 * axis most significant). With every axis selected this is the flat mesh
 * index; over a subset it is a group number, a rank or a replica id.
 */
static int32_t index_over(const struct meshgen_mesh *mesh, const int32_t *coords, uint32_t mask)
{
    int64_t index = 0;
    int i;

    for (i = 0; i < mesh->n_axes; i++)
        if (mask & (1u << i))
            index = index * mesh->axes[i].size + coords[i];
    return (int32_t)index;
}

/* The product of the sizes of the axes in mask: the count of index_over(). */
static int32_t count_over(const struct meshgen_mesh *mesh, uint32_t mask)
{
    int64_t count = 1;
    int i;

    for (i = 0; i < mesh->n_axes; i++)
        if (mask & (1u << i))
            count *= mesh->axes[i].size;
    return (int32_t)count;
}

/*
 * The cap rule shared by every function that fills a caller's array. Returns
 * 1 when the result should be written, 0 for a sizing query (NULL with cap
 * 0), or an error. A result is never truncated, because a partial list of
 * devices is never what a caller wants.
 */
static int output_wanted(const int32_t *out, int cap, int32_t need)
{
    if (cap < 0)
        return MESHGEN_ERR_RANGE;
    if (out == NULL)
        return cap == 0 ? 0 : MESHGEN_ERR_NULL;
    if (need > cap)
        return MESHGEN_ERR_NO_SPACE;
    return 1;
}

/*
 * A flat index seen through an axis mask. The axes fall into runs of
 * consecutive axes that are all in the mask or all outside it; the axes of
 * a run form one mixed-radix digit whose base is the product of their
 * sizes, so a run costs one division however many axes it holds (the
 * outermost none). The positions of the index's group are those that differ
 * from it only on the mask's runs: `first` plus multiples of each such
 * run's stride, walked by adding strides, never by dividing per member.
 */
struct span {
    uint32_t first;                  /* the index with its digits on the mask's axes set to 0 */
    uint32_t count;                  /* positions in the group: the product of the mask's sizes */
    uint32_t group;                  /* the digits outside the mask, read as one row-major number */
    uint32_t rank;                   /* the digits inside it, likewise */
    int n;                           /* runs of the mask's axes, innermost first */
    uint32_t size[MESHGEN_MAX_AXES]; /* product of the sizes of a run's axes */
    uint32_t stride[MESHGEN_MAX_AXES]; /* product of the sizes of the axes after it */
};

/* Accounts for one run whose digit is `digit` and whose base is `base`,
 * `below` being the product of the sizes of the axes after it. */
static inline void add_run(struct span *sp, uint32_t in, uint32_t digit, uint32_t base,
                           uint32_t below, uint32_t *group_scale)
{
    if (in) {
        sp->rank += digit * sp->count;
        sp->count *= base;
        sp->first -= digit * below;
        sp->size[sp->n] = base;
        sp->stride[sp->n] = below;
        sp->n++;
    } else {
        sp->group += digit * *group_scale;
        *group_scale *= base;
    }
}

/*
 * Splits flat (a valid index: below n_devices) over mask, innermost axis
 * first. Every product stays at or below n_devices, which the sizes of a
 * checked mesh multiply to, so 32 bits hold all of them; a mesh whose sizes
 * say otherwise is CORRUPT, and then no position in the span lies past its
 * table.
 */
static int split(const struct meshgen_mesh *mesh, uint32_t flat, uint32_t mask, struct span *sp)
{
    const uint64_t limit = (uint64_t)mesh->n_devices;
    uint64_t base = 1, below = 1;
    uint32_t in = (mask >> (mesh->n_axes - 1)) & 1u, group_scale = 1;
    int i;

    sp->first = flat;
    sp->count = 1;
    sp->group = 0;
    sp->rank = 0;
    sp->n = 0;
    for (i = mesh->n_axes - 1; i >= 0; i--) {
        uint32_t size = axis_size(&mesh->axes[i]);

        if (size == 0)
            return MESHGEN_ERR_CORRUPT;
        if (((mask >> i) & 1u) != in) {
            uint32_t digit = flat;

            flat = divide(&digit, (uint32_t)base);
            add_run(sp, in, digit, (uint32_t)base, (uint32_t)below, &group_scale);
            below *= base;
            base = 1;
            in ^= 1u;
        }
        base *= size;
        if (base * below > limit)
            return MESHGEN_ERR_CORRUPT;
    }
    /* What remains is the outermost run's digit, below its base in a
     * checked mesh. */
    if (flat >= base)
        return MESHGEN_ERR_CORRUPT;
    add_run(sp, in, flat, (uint32_t)base, (uint32_t)below, &group_scale);
    return MESHGEN_OK;
}

/* Moves *at to the first member of the span's next run (the odometer over
 * runs 1..n-1, innermost fastest); 0 after the last run. */
static inline int span_next_run(const struct span *sp, size_t *pos, size_t *at)
{
    int i;

    for (i = 1; i < sp->n; i++) {
        *at += sp->stride[i];
        if (++pos[i] < sp->size[i])
            return 1;
        *at -= (size_t)sp->size[i] * sp->stride[i];
        pos[i] = 0;
    }
    return 0;
}

/* list_devices for a mesh whose flat index is the device id. */
static void list_flat(const struct span *sp, int32_t *out)
{
    size_t pos[MESHGEN_MAX_AXES], at = sp->first, n0, s0, j;
    int i;

    if (sp->n == 0) {
        out[0] = (int32_t)at;
        return;
    }
    n0 = sp->size[0];
    s0 = sp->stride[0];
    for (i = 1; i < sp->n; i++)
        pos[i] = 0;
    for (;;) {
        for (j = 0; j < n0; j++)
            out[j] = (int32_t)(at + j * s0);
        out += n0;
        if (!span_next_run(sp, pos, &at))
            return;
    }
}

/*
 * Writes the devices of a span's group in mesh order: its runs walked as an
 * odometer, innermost fastest. Each member costs a read and a write.
 */
static void list_devices(const struct meshgen_mesh *mesh, const struct span *sp, int32_t *out)
{
    const int32_t *table = mesh->mesh_devices;
    size_t pos[MESHGEN_MAX_AXES], at = sp->first, n0, s0, j;
    int i;

    if (table == NULL) {
        list_flat(sp, out);
        return;
    }
    if (sp->n == 0) {
        out[0] = table[at];
        return;
    }
    n0 = sp->size[0];
    s0 = sp->stride[0];
    for (i = 1; i < sp->n; i++)
        pos[i] = 0;
    for (;;) {
        for (j = 0; j < n0; j++)
            out[j] = table[at + j * s0];
        out += n0;
        if (!span_next_run(sp, pos, &at))
            return;
    }
}

/* Whether a process's run lies inside process_devices. Checked by
 * meshgen_mesh_check and guarded again wherever the run is copied or scanned. */
static int process_run_ok(const struct meshgen_mesh *mesh, const struct meshgen_process *proc)
{
    return proc->first >= 0 && proc->count >= 0 &&
           (int64_t)proc->first + proc->count <= mesh->n_process_devices;
}

/* ---- the consistency check ------------------------------------------------------ */

static int axes_consistent(const struct meshgen_mesh *mesh)
{
    int64_t product = 1;
    int i, j;

    for (i = 0; i < mesh->n_axes; i++) {
        const struct meshgen_axis *a = &mesh->axes[i];

        if (a->name == NULL || a->name[0] == '\0')
            return 0;
        for (j = 0; j < i; j++)
            if (strcmp(mesh->axes[j].name, a->name) == 0)
                return 0;
        if (a->size < 1 || a->ici < 1 || a->dcn < 1 || (int64_t)a->ici * a->dcn != a->size)
            return 0;
        if (a->type < MESHGEN_AXIS_AUTO || a->type > MESHGEN_AXIS_MANUAL)
            return 0;
        /* Sizes are >= 1, so checking after each step keeps the product in
         * 64 bits: it never exceeds INT32_MAX before the next multiply. */
        product *= a->size;
        if (product > INT32_MAX)
            return 0;
    }
    if (product != mesh->n_devices)
        return 0;
    return mesh->mpmd_axis >= -1 && mesh->mpmd_axis < mesh->n_axes;
}

/*
 * mesh_devices and device_index are inverse bijections between flat indices
 * and the mesh's device ids. The first loop proves mesh_devices injective (two
 * positions with one device would need two values of device_index), which
 * also proves n_devices <= n_inventory_devices. Both left out: the identity,
 * which needs only that bound.
 */
static int devices_consistent(const struct meshgen_mesh *mesh)
{
    int32_t f, d;

    if (mesh->device_kind < MESHGEN_KIND_GPU || mesh->device_kind > MESHGEN_KIND_TPU)
        return 0;
    if (mesh->mesh_devices == NULL && mesh->device_index == NULL)
        return mesh->n_devices <= mesh->n_inventory_devices;
    if (mesh->mesh_devices == NULL || mesh->device_index == NULL)
        return 0;
    for (f = 0; f < mesh->n_devices; f++) {
        d = mesh->mesh_devices[f];
        if (d < 0 || d >= mesh->n_inventory_devices || mesh->device_index[d] != f)
            return 0;
    }
    for (d = 0; d < mesh->n_inventory_devices; d++) {
        f = mesh->device_index[d];
        if (f != -1 && (f < 0 || f >= mesh->n_devices || mesh->mesh_devices[f] != d))
            return 0;
    }
    return 1;
}

static int device_info_consistent(const struct meshgen_device_info *info)
{
    /* A PCI vendor id is 16 bits; 0 is "none". */
    return info->pci != NULL && info->vendor != NULL && info->model != NULL && info->uuid != NULL &&
           info->cpuset != NULL && info->vendor_id >= 0 && info->vendor_id <= 0xffff;
}

/* Hosts number the device ids contiguously, in order, each through a template
 * of the same size; this is what lets meshgen_device_host() binary-search. */
static int hosts_consistent(const struct meshgen_mesh *mesh)
{
    int64_t next = 0;
    int32_t h, t, i;

    if (mesh->n_hosts < 1 || mesh->hosts == NULL || mesh->n_templates < 1 ||
        mesh->templates == NULL)
        return 0;
    for (t = 0; t < mesh->n_templates; t++) {
        const struct meshgen_host_template *tp = &mesh->templates[t];

        if (tp->n_devices < 0 || (tp->n_devices > 0 && tp->devices == NULL))
            return 0;
        for (i = 0; i < tp->n_devices; i++)
            if (!device_info_consistent(&tp->devices[i]))
                return 0;
    }
    for (h = 0; h < mesh->n_hosts; h++) {
        const struct meshgen_host *host = &mesh->hosts[h];

        if (host->name == NULL || host->slice == NULL)
            return 0;
        if (host->template_index < 0 || host->template_index >= mesh->n_templates)
            return 0;
        if (host->n_devices < 0 || host->first_device != next ||
            mesh->templates[host->template_index].n_devices != host->n_devices)
            return 0;
        next += host->n_devices;
    }
    return next == mesh->n_inventory_devices;
}

/* Each process lists devices of its own host, ascending, inside the
 * process_devices array. */
static int processes_consistent(const struct meshgen_mesh *mesh)
{
    int32_t p, i;

    if (mesh->process_mode != MESHGEN_PROCESSES_HOST &&
        mesh->process_mode != MESHGEN_PROCESSES_DEVICE)
        return 0;
    if (mesh->n_processes < 0 || mesh->n_process_devices < 0)
        return 0;
    /* Left out, the processes are the hosts. */
    if (mesh->processes == NULL && mesh->n_processes > 0 && mesh->n_processes != mesh->n_hosts)
        return 0;
    for (p = 0; p < mesh->n_processes; p++) {
        struct meshgen_process proc = process_at(mesh, p);
        const struct meshgen_host *host;

        if (proc.host < 0 || proc.host >= mesh->n_hosts || !process_run_ok(mesh, &proc))
            return 0;
        host = &mesh->hosts[proc.host];
        for (i = 0; i < proc.count; i++) {
            int32_t d = table_process_device(mesh, proc.first + i);

            if (d < host->first_device || d - host->first_device >= host->n_devices)
                return 0;
            if (i > 0 && d <= table_process_device(mesh, proc.first + i - 1))
                return 0;
        }
    }
    return 1;
}

/* One sharding: each axis used at most once across all its dimensions, never
 * the MPMD axis (docs/reference.md §9), shard counts the products of the axis sizes and,
 * with a shape, divisible shapes. */
static int sharding_consistent(const struct meshgen_mesh *mesh, const struct meshgen_sharding *s)
{
    uint32_t used = 0;
    int32_t d, k;

    if (s->name == NULL || s->name[0] == '\0')
        return 0;
    if (s->n_dims < 0 || s->n_dims > MESHGEN_MAX_DIMS || (s->n_dims > 0 && s->dims == NULL))
        return 0;
    if (s->has_shape != 0 && s->has_shape != 1)
        return 0;
    for (d = 0; d < s->n_dims; d++) {
        const struct meshgen_sharding_dim *dim = &s->dims[d];
        int64_t shards = 1;

        if (dim->n_axes < 0 || dim->n_axes > MESHGEN_MAX_AXES)
            return 0;
        for (k = 0; k < dim->n_axes; k++) {
            int32_t a = dim->axes[k];

            if (a < 0 || a >= mesh->n_axes || (used & (1u << a)) || a == mesh->mpmd_axis)
                return 0;
            used |= 1u << a;
            shards *= mesh->axes[a].size;
        }
        if (dim->shards != shards)
            return 0;
        if (s->has_shape) {
            if (dim->global_size < 0 || dim->global_size % shards != 0 ||
                dim->local_size != dim->global_size / shards)
                return 0;
        } else if (dim->global_size != 0 || dim->local_size != 0) {
            return 0;
        }
    }
    return 1;
}

static int shardings_consistent(const struct meshgen_mesh *mesh)
{
    int32_t i, j;

    if (mesh->n_shardings < 0 || (mesh->n_shardings > 0 && mesh->shardings == NULL))
        return 0;
    for (i = 0; i < mesh->n_shardings; i++) {
        if (!sharding_consistent(mesh, &mesh->shardings[i]))
            return 0;
        for (j = 0; j < i; j++)
            if (strcmp(mesh->shardings[j].name, mesh->shardings[i].name) == 0)
                return 0;
    }
    return 1;
}

int meshgen_mesh_check(const struct meshgen_mesh *mesh)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    /* The order matters: each step relies on what the earlier ones proved
     * (devices on n_devices, processes on hosts, shardings on axes). */
    if (!axes_consistent(mesh) || !devices_consistent(mesh) || !hosts_consistent(mesh) ||
        !processes_consistent(mesh) || !shardings_consistent(mesh))
        return MESHGEN_ERR_CORRUPT;
    return MESHGEN_OK;
}

/* ---- axes, coordinates and devices ---------------------------------------------- */

int meshgen_axis_index(const struct meshgen_mesh *mesh, const char *name)
{
    int rc = mesh_usable(mesh);
    int i;

    if (rc != MESHGEN_OK)
        return rc;
    if (name == NULL)
        return MESHGEN_ERR_NULL;
    for (i = 0; i < mesh->n_axes; i++)
        if (strcmp(mesh->axes[i].name, name) == 0)
            return i;
    return MESHGEN_ERR_NO_AXIS;
}

int meshgen_axis_size(const struct meshgen_mesh *mesh, int axis)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axis < 0 || axis >= mesh->n_axes)
        return MESHGEN_ERR_RANGE;
    return mesh->axes[axis].size;
}

int meshgen_device_at(const struct meshgen_mesh *mesh, const int32_t *coords)
{
    const struct meshgen_axis *axes;
    uint32_t flat = 0;
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (coords == NULL)
        return MESHGEN_ERR_NULL;
    /* The range check and the mixed-radix step in one pass. Unsigned, a
     * negative coordinate (or size) compares as too large; the sizes of a
     * checked mesh multiply to n_devices, so the index cannot wrap, and the
     * last test keeps any other mesh inside its table. */
    axes = mesh->axes;
    for (i = 0; i < mesh->n_axes; i++) {
        uint32_t c = (uint32_t)coords[i], size = (uint32_t)axes[i].size;

        if (c >= size)
            return MESHGEN_ERR_RANGE;
        flat = flat * size + c;
    }
    if ((int64_t)flat >= mesh->n_devices)
        return MESHGEN_ERR_CORRUPT;
    return table_device(mesh, flat);
}

int meshgen_mesh_device(const struct meshgen_mesh *mesh, int flat)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (flat < 0 || flat >= mesh->n_devices)
        return MESHGEN_ERR_RANGE;
    return table_device(mesh, (uint32_t)flat);
}

int meshgen_coords_of(const struct meshgen_mesh *mesh, int device, int32_t *coords)
{
    int32_t c[MESHGEN_MAX_AXES];
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (coords == NULL)
        return MESHGEN_ERR_NULL;
    /* Into a local buffer first: coords is untouched on error. */
    rc = device_coords(mesh, device, c);
    if (rc != MESHGEN_OK)
        return rc;
    for (i = 0; i < mesh->n_axes; i++)
        coords[i] = c[i];
    return MESHGEN_OK;
}

/*
 * The host of a device id: the last host whose first device is <= the id.
 * A host with no devices starts where the next one starts, so taking the last
 * of a run of equal starts skips empty hosts.
 */
int meshgen_device_host(const struct meshgen_mesh *mesh, int device)
{
    int rc = mesh_usable(mesh);
    int32_t lo = 0, hi;

    if (rc != MESHGEN_OK)
        return rc;
    if (device < 0 || device >= mesh->n_inventory_devices)
        return MESHGEN_ERR_RANGE;
    if (mesh->n_hosts < 1 || mesh->hosts == NULL)
        return MESHGEN_ERR_CORRUPT;
    hi = mesh->n_hosts;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;

        if (mesh->hosts[mid].first_device <= device)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* lo is 0 only when host 0 starts past the id: a mesh that failed its
     * check, reported rather than indexed with -1. */
    return lo > 0 ? lo - 1 : MESHGEN_ERR_CORRUPT;
}

const struct meshgen_device_info *meshgen_device_info(const struct meshgen_mesh *mesh, int device)
{
    const struct meshgen_host *host;
    const struct meshgen_host_template *tp;
    int h = meshgen_device_host(mesh, device);

    if (h < 0)
        return NULL;
    host = &mesh->hosts[h];
    /* Guarded like the other table-derived indices: NULL beats a wild read. */
    if (host->template_index < 0 || host->template_index >= mesh->n_templates ||
        mesh->templates == NULL)
        return NULL;
    tp = &mesh->templates[host->template_index];
    if (device - host->first_device >= tp->n_devices)
        return NULL;
    return &tp->devices[device - host->first_device];
}

int meshgen_device_coords(const struct meshgen_mesh *mesh, int device, int coords[3], int *core)
{
    const struct meshgen_device_info *info;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (coords == NULL)
        return MESHGEN_ERR_NULL;
    if (mesh->device_kind != MESHGEN_KIND_TPU)
        return MESHGEN_ERR_NOT_TPU;
    info = meshgen_device_info(mesh, device);
    if (info == NULL)
        return MESHGEN_ERR_RANGE;
    coords[0] = info->coords[0];
    coords[1] = info->coords[1];
    coords[2] = info->coords[2];
    if (core)
        *core = info->core_on_chip;
    return MESHGEN_OK;
}

/* ---- groups ---------------------------------------------------------------------- */

int meshgen_axes_mask(const struct meshgen_mesh *mesh, const char *names)
{
    int rc = mesh_usable(mesh);
    uint32_t mask = 0;
    const char *p;

    if (rc != MESHGEN_OK)
        return rc;
    if (names == NULL)
        return MESHGEN_ERR_NULL;
    if (names[0] == '\0')
        return 0;
    /* Each comma-separated token must be a whole axis name; an empty token
     * ("dp,", ",tp", "dp,,tp") matches none, as a checked mesh has no empty
     * names. */
    p = names;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        int i;

        for (i = 0; i < mesh->n_axes; i++) {
            const char *name = mesh->axes[i].name;

            /* strncmp stops at a shorter name's NUL, so name[len] is in bounds. */
            if (strncmp(name, p, len) == 0 && name[len] == '\0')
                break;
        }
        if (i == mesh->n_axes)
            return MESHGEN_ERR_NO_AXIS;
        mask |= 1u << i;
        if (end == NULL)
            return (int)mask;
        p = end + 1;
    }
}

/* Validates the mesh, device and mask shared by the group functions, and
 * finds the device's flat index. */
static inline int group_args(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask,
                             int32_t *flat)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axes_mask & ~ALL_AXES(mesh->n_axes))
        return MESHGEN_ERR_RANGE;
    return flat_of(mesh, device, flat);
}

/*
 * One axis, the usual mask: its size, and its stride (the product of the
 * sizes of the axes after it). The position of flat on the axis is then
 * flat / stride % size, and its group the positions of the same remainder
 * and quotient by stride * size. The outermost axis's stride is n_devices /
 * size in a checked mesh: one division (a shift, for a power of two)
 * instead of a chain of multiplications over every other axis, which costs
 * a pipeline-parallel (pp) group a third of its time. Otherwise, as in
 * split(), the products stay at or below n_devices or the mesh is CORRUPT;
 * either way the callers bound what they read by n_devices.
 */
static inline int axis_stride(const struct meshgen_mesh *mesh, int axis, uint32_t *size,
                              uint32_t *stride)
{
    const uint64_t limit = (uint64_t)mesh->n_devices;
    uint64_t product = 1;
    int i;

    *size = (uint32_t)mesh->axes[axis].size;
    if (axis == 0) {
        uint32_t rest = (uint32_t)limit;

        if (*size == 0 || *size > limit)
            return MESHGEN_ERR_CORRUPT;
        *stride = divide(&rest, *size);
        return MESHGEN_OK;
    }
    /* A size below 1 read as unsigned is 0, which the last test catches,
     * or above INT32_MAX, which the loop's does. */
    for (i = mesh->n_axes - 1; i > axis; i--) {
        product *= (uint32_t)mesh->axes[i].size;
        if (product > limit)
            return MESHGEN_ERR_CORRUPT;
    }
    *stride = (uint32_t)product;
    product *= *size;
    if (product > limit || product == 0)
        return MESHGEN_ERR_CORRUPT;
    return MESHGEN_OK;
}

/* The group of flat along a mask of several axes, or of none. */
static NOINLINE int group_of_runs(const struct meshgen_mesh *mesh, uint32_t flat,
                                  uint32_t axes_mask, int32_t *members, int cap)
{
    struct span sp;
    int rc = split(mesh, flat, axes_mask, &sp);

    if (rc != MESHGEN_OK)
        return rc;
    rc = output_wanted(members, cap, (int32_t)sp.count);
    if (rc < 0)
        return rc;
    if (rc == 1)
        list_devices(mesh, &sp, members);
    return (int32_t)sp.count;
}

int meshgen_group(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask, int32_t *members,
                  int cap)
{
    const int32_t *src;
    uint32_t size, stride, low, position, first;
    size_t j;
    int32_t flat;
    int rc = group_args(mesh, device, axes_mask, &flat);

    if (rc != MESHGEN_OK)
        return rc;
    if (!ONE_AXIS(axes_mask))
        return group_of_runs(mesh, (uint32_t)flat, axes_mask, members, cap);
    rc = axis_stride(mesh, (int)CTZ32(axes_mask), &size, &stride);
    if (rc != MESHGEN_OK)
        return rc;
    rc = output_wanted(members, cap, (int32_t)size);
    if (rc != 1)
        return rc < 0 ? rc : (int)size;
    low = (uint32_t)flat;
    position = divide(&low, stride);
    divide(&position, size);
    first = (uint32_t)flat - position * stride;
    /* The last member lies inside the table in a checked mesh; a mesh whose
     * sizes do not divide n_devices is caught here. */
    if ((uint64_t)first + (uint64_t)(size - 1) * stride >= (uint64_t)mesh->n_devices)
        return MESHGEN_ERR_CORRUPT;
    /* The innermost axis's group is contiguous: a loop the compiler can
     * turn into a block copy. */
    if (mesh->mesh_devices == NULL) {
        for (j = 0; j < size; j++)
            members[j] = (int32_t)(first + j * (size_t)stride);
        return (int)size;
    }
    src = &mesh->mesh_devices[first];
    if (stride == 1) {
        for (j = 0; j < size; j++)
            members[j] = src[j];
    } else {
        for (j = 0; j < size; j++)
            members[j] = src[j * (size_t)stride];
    }
    return (int)size;
}

/* The group number and rank of flat along a mask of several axes, or of
 * none. */
static NOINLINE int group_index_of_runs(const struct meshgen_mesh *mesh, uint32_t flat,
                                        uint32_t axes_mask, int32_t *rank)
{
    struct span sp;
    int rc = split(mesh, flat, axes_mask, &sp);

    if (rc != MESHGEN_OK)
        return rc;
    if (rank != NULL)
        *rank = (int32_t)sp.rank;
    return (int32_t)sp.group;
}

int meshgen_group_index(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask,
                        int32_t *rank)
{
    uint32_t size, stride, low, high, position;
    int32_t flat;
    int rc = group_args(mesh, device, axes_mask, &flat);

    if (rc != MESHGEN_OK)
        return rc;
    if (!ONE_AXIS(axes_mask))
        return group_index_of_runs(mesh, (uint32_t)flat, axes_mask, rank);
    rc = axis_stride(mesh, (int)CTZ32(axes_mask), &size, &stride);
    if (rc != MESHGEN_OK)
        return rc;
    /* flat = (high * size + position) * stride + low: the group is
     * high * stride + low, the rank the position. */
    low = (uint32_t)flat;
    position = divide(&low, stride);
    high = divide(&position, size);
    if (rank != NULL)
        *rank = (int32_t)position;
    return (int32_t)(high * stride + low);
}

int meshgen_group_count(const struct meshgen_mesh *mesh, uint32_t axes_mask)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axes_mask & ~ALL_AXES(mesh->n_axes))
        return MESHGEN_ERR_RANGE;
    return count_over(mesh, ALL_AXES(mesh->n_axes) & ~axes_mask);
}

/* ---- MPMD stages ------------------------------------------------------------------ */

/* The mask of the MPMD axis, 0 when there is none; the guard keeps a bad
 * mpmd_axis from shifting out of range. */
static uint32_t mpmd_mask(const struct meshgen_mesh *mesh)
{
    if (mesh->mpmd_axis < 0 || mesh->mpmd_axis >= mesh->n_axes)
        return 0;
    return 1u << mesh->mpmd_axis;
}

int meshgen_stage_count(const struct meshgen_mesh *mesh)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    return count_over(mesh, mpmd_mask(mesh));
}

int meshgen_stage_of(const struct meshgen_mesh *mesh, int device)
{
    int32_t coords[MESHGEN_MAX_AXES];
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    rc = device_coords(mesh, device, coords);
    if (rc != MESHGEN_OK)
        return rc;
    return index_over(mesh, coords, mpmd_mask(mesh));
}

int meshgen_stage_devices(const struct meshgen_mesh *mesh, int stage, int32_t *devices, int cap)
{
    struct span sp;
    uint32_t stage_axis, vary;
    int64_t first = stage;
    int32_t count;
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    stage_axis = mpmd_mask(mesh);
    if (stage < 0 || stage >= count_over(mesh, stage_axis))
        return MESHGEN_ERR_RANGE;
    vary = ALL_AXES(mesh->n_axes) & ~stage_axis;
    count = count_over(mesh, vary);
    rc = output_wanted(devices, cap, count);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        /* The stage's first position: `stage` on the MPMD axis, 0 on the
         * others. The loop stops once past the mesh, before 64 bits could
         * overflow. */
        for (i = stage_axis != 0 ? mesh->mpmd_axis + 1 : mesh->n_axes;
             i < mesh->n_axes && first < mesh->n_devices; i++)
            first *= axis_size(&mesh->axes[i]);
        if (first >= mesh->n_devices)
            return MESHGEN_ERR_CORRUPT;
        rc = split(mesh, (uint32_t)first, vary, &sp);
        if (rc != MESHGEN_OK)
            return rc;
        list_devices(mesh, &sp, devices);
    }
    return count;
}

/* ---- shardings --------------------------------------------------------------------- */

int meshgen_sharding_index(const struct meshgen_mesh *mesh, const char *name)
{
    int rc = mesh_usable(mesh);
    int i;

    if (rc != MESHGEN_OK)
        return rc;
    if (name == NULL)
        return MESHGEN_ERR_NULL;
    for (i = 0; i < mesh->n_shardings; i++)
        if (strcmp(mesh->shardings[i].name, name) == 0)
            return i;
    return MESHGEN_ERR_NO_SHARDING;
}

/* The shard count of array dimension d: 1 past the spec (replicated). The
 * guard keeps a bad table from dividing by zero. */
static int64_t dim_shards(const struct meshgen_sharding *s, int d)
{
    if (d >= s->n_dims)
        return 1;
    return s->dims[d].shards >= 1 ? s->dims[d].shards : 0;
}

int meshgen_shard(const struct meshgen_mesh *mesh, int sharding, const int64_t *global_shape,
                  int n_dims, int device, int64_t *start, int64_t *size, int32_t *replica_id)
{
    int32_t coords[MESHGEN_MAX_AXES];
    const struct meshgen_sharding *s;
    uint32_t used = 0;
    int d, k;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (sharding < 0 || sharding >= mesh->n_shardings)
        return MESHGEN_ERR_NO_SHARDING;
    s = &mesh->shardings[sharding];
    if (n_dims > 0 && (start == NULL || size == NULL))
        return MESHGEN_ERR_NULL;
    if (s->n_dims < 0 || s->n_dims > MESHGEN_MAX_DIMS)
        return MESHGEN_ERR_CORRUPT;
    if (n_dims < s->n_dims)
        return MESHGEN_ERR_RANGE;
    /* Without a caller's shape only the spec's is known, and only for the
     * dimensions the spec lists. */
    if (global_shape == NULL && (!s->has_shape || n_dims != s->n_dims))
        return MESHGEN_ERR_RANGE;
    rc = device_coords(mesh, device, coords);
    if (rc != MESHGEN_OK)
        return rc;

    /* Validate every dimension before writing any, so that an error leaves
     * the caller's arrays as they were. */
    for (d = 0; d < n_dims; d++) {
        int64_t global = global_shape != NULL ? global_shape[d] : s->dims[d].global_size;
        int64_t shards = dim_shards(s, d);

        if (shards == 0)
            return MESHGEN_ERR_CORRUPT;
        if (global < 0)
            return MESHGEN_ERR_RANGE;
        if (global % shards != 0)
            return MESHGEN_ERR_INDIVISIBLE;
        if (d < s->n_dims) {
            if (s->dims[d].n_axes < 0 || s->dims[d].n_axes > MESHGEN_MAX_AXES)
                return MESHGEN_ERR_CORRUPT;
            for (k = 0; k < s->dims[d].n_axes; k++)
                if (s->dims[d].axes[k] < 0 || s->dims[d].axes[k] >= mesh->n_axes)
                    return MESHGEN_ERR_CORRUPT;
        }
    }

    for (d = 0; d < n_dims; d++) {
        int64_t global = global_shape != NULL ? global_shape[d] : s->dims[d].global_size;
        int64_t local = global / dim_shards(s, d);
        int64_t index = 0;

        /* Mixed radix over the dimension's axes, the first most significant;
         * a size-1 axis multiplies by 1 and adds 0, so it changes nothing. */
        if (d < s->n_dims) {
            for (k = 0; k < s->dims[d].n_axes; k++) {
                int32_t a = s->dims[d].axes[k];

                index = index * mesh->axes[a].size + coords[a];
                used |= 1u << a;
            }
        }
        start[d] = index * local;
        size[d] = local;
    }
    /* The devices holding this slice are those that agree on every used axis;
     * the earlier ones in flat order are exactly those with a smaller
     * row-major index over the unused axes. */
    if (replica_id != NULL)
        *replica_id = index_over(mesh, coords, ALL_AXES(mesh->n_axes) & ~used);
    return MESHGEN_OK;
}

/* ---- which host am I ---------------------------------------------------------------- */

/* Copies text into the caller's buffer, cut to fit and always terminated. */
static void copy_out(char *buf, size_t cap, const char *text)
{
    size_t n;

    if (cap == 0)
        return;
    n = strlen(text);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

/* The host the variables name, or an error. */
static int host_from(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx, char *name,
                     size_t cap)
{
    struct meshgen__host_name self;
    int32_t match[2];
    int rc = meshgen__this_host_name(get, ctx, &self);

    if (rc != MESHGEN_OK) {
        /* A variable's value that is no host name is still the name read. */
        copy_out(name, cap, rc == MESHGEN_ERR_BAD_ENV ? self.name : "");
        return rc;
    }
    copy_out(name, cap, self.name);
    return meshgen__find_host(mesh, self.name, match);
}

int meshgen_host_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                           char *name, size_t cap)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (get == NULL || (name == NULL && cap > 0))
        return MESHGEN_ERR_NULL;
    return host_from(mesh, get, ctx, name, cap);
}

int meshgen_host_from_env(const struct meshgen_mesh *mesh, char *name, size_t cap)
{
    return meshgen_host_from_vars(mesh, meshgen__getenv, NULL, name, cap);
}

/* ---- processes ---------------------------------------------------------------------- */

/*
 * A strict decimal parser: digits only, at least one, no sign, no spaces, no
 * trailing text, at most INT32_MAX. Launcher variables are machine-written,
 * so anything else means a misconfigured job, which must not be guessed at.
 */
static int parse_index(const char *text, int32_t *value)
{
    int64_t v = 0;

    if (*text == '\0')
        return MESHGEN_ERR_BAD_ENV;
    for (; *text != '\0'; text++) {
        if (*text < '0' || *text > '9')
            return MESHGEN_ERR_BAD_ENV;
        v = v * 10 + (*text - '0');
        if (v > INT32_MAX)
            return MESHGEN_ERR_BAD_ENV;
    }
    *value = (int32_t)v;
    return MESHGEN_OK;
}

/* One launcher: the variable with a process's rank among those it started
 * on this host, and those with how many it started on this host and in all
 * (NULL where it sets none; the first world size set is read). */
struct launcher {
    const char *local_rank;
    const char *local_size;
    const char *world_size[2];
};

/*
 * The launchers, innermost first: the table of docs/reference.md ("Which
 * process am I"). A launcher started by another sees its parent's variables
 * too, and only its own describe the process: torchrun under srun sees the
 * srun task's SLURM_LOCALID, and the processes of mpirun in a Slurm or PALS
 * allocation see those of the batch step or of the daemon that Open MPI
 * started through srun. What each launcher sets, from its own sources:
 * - torchrun: every worker gets LOCAL_RANK, LOCAL_WORLD_SIZE and WORLD_SIZE
 *   (torch/distributed/elastic/agent/server/local_elastic_agent.py).
 * - Open MPI 4.x (mpirun(1)) and 5.x ("Environment variables set for MPI
 *   applications"): OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE,
 *   OMPI_COMM_WORLD_SIZE. PMIx itself (PRRTE, srun --mpi=pmix) exports only
 *   PMIX_RANK and PMIX_NAMESPACE (PMIx_server_setup_fork): its local rank is
 *   a key for PMIx_Get, not a variable, so there is no PMIX_LOCAL_RANK to read.
 * - MPICH and Intel MPI (Hydra): the proxy sets MPI_LOCALRANKID and
 *   MPI_LOCALNRANKS, and PMI_SIZE unless it hands out a PMI port
 *   (src/pm/hydra/proxy/pmip_cb.c).
 * - HPE Cray PALS (mpiexec on PBS): PALS_LOCAL_RANKID and PALS_LOCAL_SIZE,
 *   and its PMI sets PMI_SIZE.
 * - Flux (flux-environment(7)): FLUX_TASK_LOCAL_ID and FLUX_JOB_SIZE; Flux
 *   unsets SLURM_* for the programs it starts.
 * - Slurm (srun(1)): SLURM_LOCALID and SLURM_NTASKS (SLURM_NPROCS before
 *   it). The count per node, SLURM_TASKS_PER_NODE, is a run-length list
 *   ("2(x3),1") that needs the node's index, so it is not read.
 */
static const struct launcher launchers[] = {
    {"LOCAL_RANK", "LOCAL_WORLD_SIZE", {"WORLD_SIZE", NULL}},
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", {"OMPI_COMM_WORLD_SIZE", NULL}},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS", {"PMI_SIZE", NULL}},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", {"PMI_SIZE", NULL}},
    {"FLUX_TASK_LOCAL_ID", NULL, {"FLUX_JOB_SIZE", NULL}},
    {"SLURM_LOCALID", NULL, {"SLURM_NTASKS", "SLURM_NPROCS"}},
};
#define N_LAUNCHERS ((int)(sizeof launchers / sizeof launchers[0]))

/* Whether the launcher's count in variable var (NULL: it has none) is want:
 * 1 when it is, 0 when the launcher does not give it, or an error. */
static int count_is(meshgen_lookup_fn get, void *ctx, const char *var, int32_t want)
{
    const char *text = var != NULL ? get(ctx, var) : NULL;
    int32_t value;
    int rc;

    if (text == NULL)
        return 0;
    rc = parse_index(text, &value);
    if (rc != MESHGEN_OK)
        return rc;
    return value == want ? 1 : MESHGEN_ERR_PROCESS_COUNT;
}

/* Checks the launcher's counts against the mesh's: in all, and on this
 * host, which holds `here` of the mesh's processes. */
static int launch_counts_agree(meshgen_lookup_fn get, void *ctx, const struct launcher *l,
                               int32_t n_processes, int32_t here)
{
    int rc = 0, k;

    for (k = 0; k < 2 && rc == 0; k++)
        rc = count_is(get, ctx, l->world_size[k], n_processes);
    if (rc < 0)
        return rc;
    rc = count_is(get, ctx, l->local_size, here);
    return rc < 0 ? rc : MESHGEN_OK;
}

int meshgen_process_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                              int32_t *process)
{
    const struct launcher *launcher = NULL;
    int32_t host, here = 0, local = 0, p;
    const char *text;
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (get == NULL || process == NULL)
        return MESHGEN_ERR_NULL;
    /* An explicit choice decides alone: it is the way out for a launcher
     * this table does not know, whose inherited variables would mislead. */
    text = get(ctx, "MESHGEN_PROCESS");
    if (text != NULL) {
        rc = parse_index(text, &p);
        if (rc != MESHGEN_OK)
            return rc;
        if (p >= mesh->n_processes)
            return MESHGEN_ERR_RANGE;
        *process = p;
        return MESHGEN_OK;
    }
    /* Left out, the processes must be the hosts. */
    if (mesh->n_processes < 0 ||
        (mesh->processes == NULL && mesh->n_processes > 0 && mesh->n_processes != mesh->n_hosts))
        return MESHGEN_ERR_CORRUPT;
    host = host_from(mesh, get, ctx, NULL, 0);
    if (host < 0)
        return host;

    /* The innermost launcher decides, even with a malformed value: falling
     * through to an outer one would hide the misconfiguration behind ranks
     * that describe some other process. */
    for (i = 0; i < N_LAUNCHERS && launcher == NULL; i++) {
        text = get(ctx, launchers[i].local_rank);
        if (text == NULL)
            continue;
        rc = parse_index(text, &local);
        if (rc != MESHGEN_OK)
            return rc;
        launcher = &launchers[i];
    }
    if (launcher == NULL && mesh->process_mode == MESHGEN_PROCESSES_DEVICE)
        return MESHGEN_ERR_NO_ENV;

    for (p = 0; p < mesh->n_processes; p++)
        here += process_at(mesh, p).host == host;
    if (launcher != NULL) {
        rc = launch_counts_agree(get, ctx, launcher, mesh->n_processes, here);
        if (rc != MESHGEN_OK)
            return rc;
    }
    /* Without a launcher (one process per host) the host's process is its
     * first; a second process on one host has nowhere to go. */
    if (local >= here)
        return MESHGEN_ERR_LOCAL_RANK;
    for (p = 0; p < mesh->n_processes; p++) {
        if (process_at(mesh, p).host != host)
            continue;
        if (local-- == 0)
            break;
    }
    *process = p;
    return MESHGEN_OK;
}

int meshgen_process_from_env(const struct meshgen_mesh *mesh, int32_t *process)
{
    return meshgen_process_from_vars(mesh, meshgen__getenv, NULL, process);
}

int meshgen_process_devices(const struct meshgen_mesh *mesh, int process, int32_t *devices, int cap)
{
    struct meshgen_process proc;
    int32_t i;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (process < 0 || process >= mesh->n_processes)
        return MESHGEN_ERR_RANGE;
    proc = process_at(mesh, process);
    if (!process_run_ok(mesh, &proc))
        return MESHGEN_ERR_CORRUPT;
    rc = output_wanted(devices, cap, proc.count);
    if (rc < 0)
        return rc;
    if (rc == 1)
        for (i = 0; i < proc.count; i++)
            devices[i] = table_process_device(mesh, proc.first + i);
    return proc.count;
}

int meshgen_process_of(const struct meshgen_mesh *mesh, int device)
{
    int32_t p, i;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (device < 0 || device >= mesh->n_inventory_devices)
        return MESHGEN_ERR_RANGE;
    for (p = 0; p < mesh->n_processes; p++) {
        struct meshgen_process proc = process_at(mesh, p);

        if (!process_run_ok(mesh, &proc))
            return MESHGEN_ERR_CORRUPT;
        for (i = 0; i < proc.count; i++)
            if (table_process_device(mesh, proc.first + i) == device)
                return p;
    }
    return MESHGEN_ERR_NOT_IN_MESH;
}

/* ---- launcher environment ------------------------------------------------------------ */

static const char *const env_names[] = {
    [MESHGEN_ENV_CUDA_VISIBLE_DEVICES] = "CUDA_VISIBLE_DEVICES",
    [MESHGEN_ENV_ROCR_VISIBLE_DEVICES] = "ROCR_VISIBLE_DEVICES",
    [MESHGEN_ENV_OMP_PLACES] = "OMP_PLACES",
    [MESHGEN_ENV_ZE_AFFINITY_MASK] = "ZE_AFFINITY_MASK",
};
#define N_ENV_VARS ((int)(sizeof env_names / sizeof env_names[0]))

const char *meshgen_env_name(int var)
{
    return var >= 0 && var < N_ENV_VARS ? env_names[var] : NULL;
}

/*
 * Text written into a caller's buffer, or only measured when buf is NULL.
 * The value is produced twice, measured and then written, so that a buffer
 * too small is left with nothing but a NUL instead of a cut-off list.
 */
struct text {
    char *buf;
    size_t len;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->buf != NULL)
        memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void put_str(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void put_uint(struct text *t, uint32_t v)
{
    char digits[10];
    size_t n = 0;

    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(t, digits + sizeof digits - n, n);
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Whether a runtime accepts this UUID in its visible-devices variable, as
 * hwloc reports it. CUDA takes NVML's "GPU-<uuid>" (and MIG instances'
 * "MIG-<uuid>") as they are. ROCR compares against "GPU-" and the 16 hex
 * digits of the KFD unique id; hwloc's RSMI backend writes that id as up to
 * 16 hex digits without leading zeros, and ROCR can never match an id of 0.
 */
static int uuid_accepted(int var, const char *uuid)
{
    size_t n = strlen(uuid), i;
    int nonzero = 0;

    if (var == MESHGEN_ENV_CUDA_VISIBLE_DEVICES) {
        /* Letters, digits, '-' and '/' only: a ',' would add an entry. */
        if (n <= 4 || (strncmp(uuid, "GPU-", 4) != 0 && strncmp(uuid, "MIG-", 4) != 0))
            return 0;
        for (i = 4; i < n; i++)
            if (!is_hex(uuid[i]) && !(uuid[i] >= 'g' && uuid[i] <= 'z') &&
                !(uuid[i] >= 'G' && uuid[i] <= 'Z') && uuid[i] != '-' && uuid[i] != '/')
                return 0;
        return 1;
    }
    if (n == 0 || n > 16)
        return 0;
    for (i = 0; i < n; i++) {
        if (!is_hex(uuid[i]))
            return 0;
        nonzero |= uuid[i] != '0';
    }
    return nonzero;
}

/* Whether visible-devices variable var lists a GPU of this vendor: only its
 * own vendor's runtime sees it. */
static int vendor_listed(int var, int32_t vendor_id)
{
    return meshgen_vendor_env_var(vendor_id) == var;
}

/* The visible-devices list of a process's GPUs (see meshgen_placement_env). */
static int visible_devices(const struct meshgen_mesh *mesh, const struct meshgen_process *proc,
                           int var, struct text *t)
{
    int by_uuid = var != MESHGEN_ENV_ZE_AFFINITY_MASK, listed = 0;
    int32_t i, host = -1, k = 0, index = 0;

    if (mesh->device_kind != MESHGEN_KIND_GPU)
        return MESHGEN_ERR_NOT_GPU;
    for (i = 0; i < proc->count; i++) {
        const struct meshgen_device_info *info =
            meshgen_device_info(mesh, table_process_device(mesh, proc->first + i));

        if (info == NULL)
            return MESHGEN_ERR_CORRUPT;
        if (vendor_listed(var, info->vendor_id))
            by_uuid &= uuid_accepted(var, info->uuid);
    }
    for (i = 0; i < proc->count; i++) {
        int32_t d = table_process_device(mesh, proc->first + i);
        const struct meshgen_device_info *info = meshgen_device_info(mesh, d);
        const char *uuid = info->uuid;

        if (!vendor_listed(var, info->vendor_id))
            continue;
        if (listed++ > 0)
            put(t, ",", 1);
        if (by_uuid && var == MESHGEN_ENV_ROCR_VISIBLE_DEVICES) {
            put_str(t, "GPU-");
            put(t, "0000000000000000", 16 - strlen(uuid));
            put_str(t, uuid);
        } else if (by_uuid) {
            put_str(t, uuid);
        } else {
            /* A host's GPUs are its first devices in PCI bus id order; the
             * vendor's runtime numbers only its own among them. A process's
             * devices ascend, so the count goes on from the last one, once
             * over the host however many GPUs the process has. */
            if (meshgen_device_host(mesh, d) != host || d < k) {
                host = meshgen_device_host(mesh, d);
                k = mesh->hosts[host].first_device;
                index = 0;
            }
            for (; k < d; k++)
                index += vendor_listed(var, meshgen_device_info(mesh, k)->vendor_id);
            put_uint(t, (uint32_t)index);
        }
    }
    return MESHGEN_OK;
}

/* One OpenMP place per distinct device cpuset, in device order: each range
 * "lo-hi" of a cpulist becomes the interval "lo:len" (OpenMP 5.0 §6.5,
 * <lower-bound>:<length>), a single CPU stays a number. */
static int omp_places(const struct meshgen_mesh *mesh, const struct meshgen_process *proc,
                      struct text *t)
{
    int32_t i, j;
    int places = 0;

    for (i = 0; i < proc->count; i++) {
        const struct meshgen_device_info *info =
            meshgen_device_info(mesh, table_process_device(mesh, proc->first + i));
        const char *pos;
        uint32_t lo, hi;
        int rc, first = 1;

        if (info == NULL)
            return MESHGEN_ERR_CORRUPT;
        if (info->cpuset[0] == '\0')
            return MESHGEN_ERR_NO_CPU;
        /* Devices that share a cpuset (GPUs behind one socket) share a place:
         * repeating it would give OpenMP two places with the same CPUs. */
        for (j = 0; j < i; j++)
            if (strcmp(
                    meshgen_device_info(mesh, table_process_device(mesh, proc->first + j))->cpuset,
                    info->cpuset) == 0)
                break;
        if (j < i)
            continue;
        if (places++ > 0)
            put(t, ",", 1);
        put(t, "{", 1);
        pos = info->cpuset;
        while ((rc = meshgen__cpulist_next(&pos, &lo, &hi)) == 1) {
            if (!first)
                put(t, ",", 1);
            first = 0;
            put_uint(t, lo);
            if (hi > lo) {
                put(t, ":", 1);
                put_uint(t, hi - lo + 1);
            }
        }
        if (rc < 0)
            return rc;
        put(t, "}", 1);
    }
    return MESHGEN_OK;
}

static int env_value(const struct meshgen_mesh *mesh, const struct meshgen_process *proc, int var,
                     struct text *t)
{
    if (var == MESHGEN_ENV_OMP_PLACES)
        return omp_places(mesh, proc, t);
    return visible_devices(mesh, proc, var, t);
}

int meshgen_placement_env(const struct meshgen_mesh *mesh, int process, int var, char *buf,
                          size_t cap)
{
    struct meshgen_process proc;
    struct text t = {NULL, 0};
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (process < 0 || process >= mesh->n_processes || meshgen_env_name(var) == NULL)
        return MESHGEN_ERR_RANGE;
    if (buf == NULL && cap > 0)
        return MESHGEN_ERR_NULL;
    proc = process_at(mesh, process);
    if (!process_run_ok(mesh, &proc))
        return MESHGEN_ERR_CORRUPT;
    rc = env_value(mesh, &proc, var, &t);
    if (rc != MESHGEN_OK)
        return rc;
    if (t.len > INT32_MAX)
        return MESHGEN_ERR_NO_SPACE;
    if (buf == NULL)
        return (int)t.len;
    if (t.len >= cap) {
        /* A buffer of cap 0 has no byte, not even for the NUL. */
        if (cap > 0)
            buf[0] = '\0';
        return MESHGEN_ERR_NO_SPACE;
    }
    t.buf = buf;
    t.len = 0;
    env_value(mesh, &proc, var, &t);
    buf[t.len] = '\0';
    return (int)t.len;
}
