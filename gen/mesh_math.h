/*
 * Index arithmetic over a mesh, shared by the resolver, the checks, the
 * planner, the locality order and the emitters, so that row-major order,
 * the DCN-outer hybrid split, MPMD stages and per-axis groups are decoded
 * in one place (docs/reference.md, "Semantics"). Pure functions of shapes and of the
 * resolved model: no allocation, no inventory, no output.
 *
 * Sizes from input are multiplied and summed through mg_mul_size and
 * mg_add_size only, which never overflow. The int index arithmetic below
 * runs on a resolved model, whose checks have bounded every product of
 * sizes by MG_MAX_DEVICES.
 */
#ifndef MG_MESH_MATH_H
#define MG_MESH_MATH_H

#include "internal.h"

/* Row-major order, the last axis fastest: the distance between flat indices
 * one step apart along `axis` (the product of the sizes after it). */
int mg_rm_stride(const int64_t *shape, int n_axes, int axis);
/* The coordinate along `axis` of flat index `flat`. */
int mg_rm_coord(const int64_t *shape, int n_axes, int flat, int axis);

/* Mesh positions flat = 0, 1, 2, ... of a model with resolved size, ici and
 * dcn, each as its granule (row-major over dcn) and its local index inside
 * the granule (row-major over ici): along every axis the DCN part is the
 * outer factor, as jax's create_hybrid_device_mesh lays it out. An
 * odometer, with no division per position (at 8M devices the divisions
 * were a fifth of the run). */
struct mg_hybrid_walk {
    int n_axes;
    int ici[MG_MAX_AXES], dcn[MG_MAX_AXES]; /* the parts of each axis */
    int gm[MG_MAX_AXES], lm[MG_MAX_AXES];   /* strides of granule and local */
    int ici_at[MG_MAX_AXES], dcn_at[MG_MAX_AXES];
    int granule, local; /* of the current position */
};
void mg_hybrid_walk_start(struct mg_hybrid_walk *w, const struct mg_plan *p);
void mg_hybrid_walk_next(struct mg_hybrid_walk *w);

/* The MPMD stage of mesh position `flat`: its coordinate on the MPMD axis,
 * 0 without one. */
int mg_stage_of(const struct mg_plan *p, int flat);

/* The group of position `flat` along `axis` (numbered row-major over the
 * other axes) and, in *rank, its place in the group (its coordinate on
 * `axis`), as DeviceMesh.get_group and MPI_Cart_sub number them. */
int mg_group_of(const int64_t *shape, int n_axes, int axis, int flat, int *rank);

/* The one overflow-checked arithmetic over sizes (device, host, granule and
 * shard counts, axis sizes and their products), used wherever sizes are
 * multiplied or summed. Sizes are non-negative: *out = a * b (a + b) and 1,
 * or, when an operand is negative or the result passes INT64_MAX, *out =
 * INT64_MAX and 0. The result saturates, so a chain of them stays past any
 * limit once it overflowed, and a caller may test the limit alone. */
int mg_mul_size(int64_t a, int64_t b, int64_t *out);
int mg_add_size(int64_t a, int64_t b, int64_t *out);

/* qsort(base, n, size, cmp), skipped when one pass finds the input already
 * in order (hosts from a hostlist come sorted). */
void mg_sort_unless_sorted(void *base, size_t n, size_t size,
                           int (*cmp)(const void *, const void *));

#endif /* MG_MESH_MATH_H */
