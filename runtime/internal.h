/*
 * Private to the runtime library (meshgen_runtime): what its files share.
 * The small helpers every lookup starts with are static inline here, so that
 * splitting the runtime into files costs no call on the hot paths; the larger
 * ones are defined once, in lookup.c, and declared below with hidden
 * visibility, so that the shared library still exports exactly the
 * MESHGEN_API functions of <meshgen/meshgen.h> (tests/install/symbols_test.py)
 * and a static one adds no name a program could collide with but the
 * reserved meshgen__ ones. Not installed; the placement library does not
 * include it.
 *
 * It knows the table layout of <meshgen/meshgen.h> and nothing else: no
 * launcher, no environment variable, no host name.
 */
#ifndef MESHGEN_RUNTIME_INTERNAL_H
#define MESHGEN_RUNTIME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <meshgen/meshgen.h>

#include "util.h"

#if defined(__GNUC__) || defined(__clang__)
#define MESHGEN_INTERNAL __attribute__((visibility("hidden")))
#else
#define MESHGEN_INTERNAL
#endif

/* The mask of every axis of a mesh with n axes (n <= MESHGEN_MAX_AXES < 32). */
#define ALL_AXES(n) ((uint32_t)((1u << (n)) - 1u))

/* The number of trailing zero bits of x, for x != 0. */
#if defined(__GNUC__) || defined(__clang__)
#define CTZ32(x) ((unsigned)__builtin_ctz(x))
#define CTZ64(x) ((unsigned)__builtin_ctzll(x))
#else
static inline unsigned CTZ64(uint64_t x)
{
    unsigned n = 0;

    while ((x & 1u) == 0) {
        x >>= 1;
        n++;
    }
    return n;
}
#define CTZ32(x) CTZ64((uint32_t)(x))
#endif

/*
 * The checks every entry point makes before touching a mesh. They are O(1)
 * and cover what would otherwise let a bad mesh overrun the fixed-size
 * coordinate buffers of the lookups (an axis count above MESHGEN_MAX_AXES).
 */
static inline int mesh_usable(const struct meshgen_mesh *mesh)
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
 * The tables the generator leaves out (docs/reference.md §3): a NULL
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

/* Whether a process's run lies inside process_devices. Checked by
 * meshgen_mesh_check and guarded again wherever the run is copied or scanned. */
static inline int process_run_ok(const struct meshgen_mesh *mesh,
                                 const struct meshgen_process *proc)
{
    return proc->first >= 0 && proc->count >= 0 &&
           (int64_t)proc->first + proc->count <= mesh->n_process_devices;
}

/* The flat mesh index of a device id, or RANGE / NOT_IN_MESH / CORRUPT. */
static inline int flat_of(const struct meshgen_mesh *mesh, int device, int32_t *flat)
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

/* Process p (0 <= p < n_processes) as a value; a run of -1 (which
 * process_run_ok refuses) when a left-out table has no host to read. */
MESHGEN_INTERNAL struct meshgen_process meshgen__process_at(const struct meshgen_mesh *mesh,
                                                            int32_t p);

/* The coordinates of a device id, or RANGE / NOT_IN_MESH / CORRUPT. */
MESHGEN_INTERNAL int meshgen__device_coords(const struct meshgen_mesh *mesh, int device,
                                            int32_t *coords);

/*
 * The row-major index of coords over the axes in mask (the first selected
 * axis most significant). With every axis selected this is the flat mesh
 * index; over a subset it is a group number, a rank or a replica id.
 */
static inline int32_t index_over(const struct meshgen_mesh *mesh, const int32_t *coords,
                                 uint32_t mask)
{
    int64_t index = 0;
    int i;

    for (i = 0; i < mesh->n_axes; i++)
        if (mask & (1u << i))
            index = index * mesh->axes[i].size + coords[i];
    return (int32_t)index;
}

/*
 * The cap rule shared by every function that fills a caller's array. Returns
 * 1 when the result should be written, 0 for a sizing query (NULL with cap
 * 0), or an error. A result is never truncated, because a partial list of
 * devices is never what a caller wants.
 */
static inline int output_wanted(const int32_t *out, int cap, int32_t need)
{
    if (cap < 0)
        return MESHGEN_ERR_RANGE;
    if (out == NULL)
        return cap == 0 ? 0 : MESHGEN_ERR_NULL;
    if (need > cap)
        return MESHGEN_ERR_NO_SPACE;
    return 1;
}

/* The tables whose entries are found by name. */
enum meshgen__named { MESHGEN__AXES, MESHGEN__SHARDINGS };

/* The index of the entry called name (the caller's string) in a table of
 * names, MESHGEN_ERR_NULL when name is NULL, or MESHGEN_ERR_NO_AXIS /
 * MESHGEN_ERR_NO_SHARDING: meshgen_axis_index and meshgen_sharding_index,
 * one search for both. */
MESHGEN_INTERNAL int meshgen__name_index(const struct meshgen_mesh *mesh, enum meshgen__named table,
                                         const char *name);

#endif
