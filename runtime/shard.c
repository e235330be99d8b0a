/*
 * Shardings: a named PartitionSpec (meshgen_sharding_index) and the slice of
 * an array one device holds under it (meshgen_shard), the "shardings"
 * section of <meshgen/meshgen.h>, as JAX's
 * NamedSharding.devices_indices_map computes it.
 *
 * It uses a device's coordinates and the search by name of lookup.c, and
 * knows nothing of groups, hosts, processes or launchers.
 */
#include "internal.h"

/* ---- shardings --------------------------------------------------------------------- */

int meshgen_sharding_index(const struct meshgen_mesh *mesh, const char *name)
{
    return meshgen__name_index(mesh, MESHGEN__SHARDINGS, name);
}

/*
 * global / shards, the remainder in *rest, for global >= 0 and 1 <= shards
 * <= INT32_MAX.
 * A 64-bit division costs more than the rest of meshgen_shard on many x86
 * cores (40 to 90 cycles), and meshgen_shard needs one per dimension; the
 * shard count is a product of axis sizes, a power of two almost always, so
 * a shift and a mask replace it, and a 32-bit division where both fit
 * (docs/reference.md, section 5).
 */
static int64_t split_dim(int64_t global, int64_t shards, int64_t *rest)
{
    if ((shards & (shards - 1)) == 0) {
        uint64_t g = (uint64_t)global;

        *rest = (int64_t)(g & ((uint64_t)shards - 1u));
        return (int64_t)(g >> CTZ64((uint64_t)shards));
    }
    if (global <= (int64_t)UINT32_MAX) {
        uint32_t g = (uint32_t)global, n = (uint32_t)shards;

        *rest = (int64_t)(g % n);
        return (int64_t)(g / n);
    }
    *rest = global % shards;
    return global / shards;
}

int meshgen_shard(const struct meshgen_mesh *mesh, int sharding, const int64_t *global_shape,
                  int n_dims, int device, int64_t *start, int64_t *size, int32_t *replica_id)
{
    int32_t coords[MESHGEN_MAX_AXES];
    /* The spec's dimensions, computed before any is written, so that an
     * error leaves the caller's arrays as they were. */
    int64_t first[MESHGEN_MAX_DIMS], local[MESHGEN_MAX_DIMS];
    const struct meshgen_sharding *s;
    uint32_t used = 0;
    int d, k, rc = mesh_usable(mesh);

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
    rc = meshgen__device_coords(mesh, device, coords);
    if (rc != MESHGEN_OK)
        return rc;

    for (d = 0; d < s->n_dims; d++) {
        const struct meshgen_sharding_dim *dim = &s->dims[d];
        int64_t global = global_shape != NULL ? global_shape[d] : dim->global_size;
        int64_t index = 0, rest;

        /* A shard count is a product of axis sizes, at most n_devices. */
        if (dim->shards < 1 || dim->shards > INT32_MAX || dim->n_axes < 0 ||
            dim->n_axes > MESHGEN_MAX_AXES)
            return MESHGEN_ERR_CORRUPT;
        if (global < 0)
            return MESHGEN_ERR_RANGE;
        local[d] = split_dim(global, dim->shards, &rest);
        if (rest != 0)
            return MESHGEN_ERR_INDIVISIBLE;
        /* Mixed radix over the dimension's axes, the first most significant;
         * a size-1 axis multiplies by 1 and adds 0, so it changes nothing.
         * Every partial index is at most the whole, which is below the
         * shard count in a checked mesh: a table whose count is not its
         * axes' product is refused before a product can overflow. */
        for (k = 0; k < dim->n_axes; k++) {
            uint32_t a = (uint32_t)dim->axes[k];

            if (a >= (uint32_t)mesh->n_axes)
                return MESHGEN_ERR_CORRUPT;
            index = index * mesh->axes[a].size + coords[a];
            if (index >= dim->shards)
                return MESHGEN_ERR_CORRUPT;
            used |= 1u << a;
        }
        first[d] = index * local[d];
    }
    /* Past the spec a dimension is replicated: one slice, the whole of it
     * (global_shape is given: without it n_dims is the spec's). */
    for (; d < n_dims; d++)
        if (global_shape[d] < 0)
            return MESHGEN_ERR_RANGE;

    for (d = 0; d < s->n_dims; d++) {
        start[d] = first[d];
        size[d] = local[d];
    }
    for (; d < n_dims; d++) {
        start[d] = 0;
        size[d] = global_shape[d];
    }
    /* The devices holding this slice are those that agree on every used axis;
     * the earlier ones in flat order are exactly those with a smaller
     * row-major index over the unused axes. */
    if (replica_id != NULL)
        *replica_id = index_over(mesh, coords, ALL_AXES(mesh->n_axes) & ~used);
    return MESHGEN_OK;
}
