/*
 * Index arithmetic over a mesh (see mesh_math.h): row-major strides and
 * coordinates, the hybrid ICI x DCN split, stages and groups. The loops
 * run from the last (fastest) axis outwards, peeling one coordinate per
 * axis off the flat index; and the closeness of two devices of a topology,
 * from either form it is held in. Nothing here allocates or knows where a
 * model came from.
 */
#include "mesh_math.h"

#include <stdlib.h>

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

void mg_hybrid_walk_start(struct mg_hybrid_walk *w, const struct mg_plan *p)
{
    int gm = 1, lm = 1, k;

    w->n_axes = p->n_axes;
    for (k = p->n_axes - 1; k >= 0; k--) {
        w->ici[k] = (int)p->ici[k];
        w->dcn[k] = (int)p->dcn[k];
        w->gm[k] = gm;
        w->lm[k] = lm;
        w->ici_at[k] = 0;
        w->dcn_at[k] = 0;
        gm *= w->dcn[k];
        lm *= w->ici[k];
    }
    w->granule = 0;
    w->local = 0;
}

void mg_hybrid_walk_next(struct mg_hybrid_walk *w)
{
    int k;

    /* Along an axis the ICI part is the inner digit, the DCN part the
     * outer one; past the last position every digit wraps to 0. */
    for (k = w->n_axes - 1; k >= 0; k--) {
        w->local += w->lm[k];
        if (++w->ici_at[k] < w->ici[k])
            return;
        w->ici_at[k] = 0;
        w->local -= w->ici[k] * w->lm[k];
        w->granule += w->gm[k];
        if (++w->dcn_at[k] < w->dcn[k])
            return;
        w->dcn_at[k] = 0;
        w->granule -= w->dcn[k] * w->gm[k];
    }
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

/* ---- closeness of two devices of one topology (gen.h) ---- */

int mg_topology_closeness(const struct mg_topology *t, int kind, int a, int b)
{
    const int *x, *y;
    int d, n;

    if (t->closeness[kind])
        return t->closeness[kind][(size_t)a * (size_t)t->n[kind] + (size_t)b];
    if (!t->tree_path[kind])
        return 0;
    x = t->tree_path[kind] + (size_t)a * (size_t)t->tree_stride[kind];
    y = t->tree_path[kind] + (size_t)b * (size_t)t->tree_stride[kind];
    n = t->tree_depth[kind][a] < t->tree_depth[kind][b] ? t->tree_depth[kind][a]
                                                        : t->tree_depth[kind][b];
    /* Paths agree down to the common ancestor and differ below it. */
    for (d = 1; d <= n && x[d] == y[d]; d++)
        ;
    return d - 1;
}

int mg_topology_has_closeness(const struct mg_topology *t, int kind)
{
    return t->closeness[kind] != NULL || t->tree_path[kind] != NULL;
}

/* qsort, after one pass that finds most inputs already in order (hosts
 * from a hostlist come sorted): sorting a million sorted hosts again would
 * cost a large inventory a quarter of its run. */
void mg_sort_unless_sorted(void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *))
{
    const char *p = base;
    size_t i;

    for (i = 1; i < n; i++)
        if (cmp(p + (i - 1) * size, p + i * size) > 0)
            break;
    if (i < n)
        qsort(base, n, size, cmp);
}
