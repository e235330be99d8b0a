/*
 * Index arithmetic over a mesh (see mesh_math.h): row-major strides and
 * coordinates, the hybrid ICI x DCN split, stages and groups. The loops
 * run from the last (fastest) axis outwards, peeling one coordinate per
 * axis off the flat index. Nothing here allocates or knows where a model
 * came from.
 */
#include "mesh_math.h"

int mg_rm_stride(const int64_t *shape, int n_axes, int axis)
{
    int stride = 1, k;
    for (k = n_axes - 1; k > axis; k--)
        stride *= (int)shape[k];
    return stride;
}

int mg_rm_coord(const int64_t *shape, int n_axes, int flat, int axis)
{
    return flat / mg_rm_stride(shape, n_axes, axis) % (int)shape[axis];
}

void mg_hybrid_split(const struct mg_plan *p, int flat, int *granule, int *local)
{
    int rest = flat, g = 0, l = 0, gm = 1, lm = 1, k;

    for (k = p->n_axes - 1; k >= 0; k--) {
        int coord = rest % (int)p->size[k];
        rest /= (int)p->size[k];
        g += (coord / (int)p->ici[k]) * gm;
        l += (coord % (int)p->ici[k]) * lm;
        gm *= (int)p->dcn[k];
        lm *= (int)p->ici[k];
    }
    *granule = g;
    *local = l;
}

int mg_stage_of(const struct mg_plan *p, int flat)
{
    return p->mpmd_axis < 0 ? 0 : mg_rm_coord(p->size, p->n_axes, flat, p->mpmd_axis);
}

int mg_group_of(const int64_t *shape, int n_axes, int axis, int flat, int *rank)
{
    int rest = flat, group = 0, mult = 1, k;

    for (k = n_axes - 1; k >= 0; k--) {
        int coord = rest % (int)shape[k];
        rest /= (int)shape[k];
        if (k == axis) {
            *rank = coord;
        } else {
            group += coord * mult;
            mult *= (int)shape[k];
        }
    }
    return group;
}

int mg_mul_size(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || (a != 0 && b > INT64_MAX / a)) {
        *out = INT64_MAX;
        return 0;
    }
    *out = a * b;
    return 1;
}

int mg_add_size(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || b > INT64_MAX - a) {
        *out = INT64_MAX;
        return 0;
    }
    *out = a + b;
    return 1;
}
