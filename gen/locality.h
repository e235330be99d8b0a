/*
 * Locality-aware order inside a granule, and the closeness score that
 * compares two orders (docs/reference.md, "Locality order"). Used by the
 * planner; knows nothing of YAML or hwloc (closeness comes from the
 * matrices of the inventory the model places onto).
 */
#ifndef MG_LOCALITY_H
#define MG_LOCALITY_H

#include "internal.h"

/* The score of one granule's devices taken in the order devs[0..n-1] (local
 * mesh index -> device id): for every axis with an ICI part > 1, the summed
 * pairwise closeness inside each group along that axis, weighted by the
 * axis's position (innermost heaviest). Higher is better. Linear in n when
 * every device's closeness comes from the tree; scratch from the arena. */
int64_t mg_order_score(struct mg_arena *a, const struct mg_plan *p, const int *devs, int n);

/* Granules of more devices than this keep inventory order: the locality
 * order needs n x n matrices. */
#define MG_LOCALITY_MAX 4096

/* A permutation order[0..n-1] of devs (devs[order[i]] sits at local index
 * i) that gives the innermost ICI axes the closest devices. Never scores
 * below inventory order; with uniform closeness it is inventory order.
 * Scratch memory comes from the arena. */
void mg_locality_order(struct mg_arena *a, const struct mg_plan *p, const int *devs, int n,
                       int *order);

#endif /* MG_LOCALITY_H */
