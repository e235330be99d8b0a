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
