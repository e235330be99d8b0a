/*
 * The planner (plan.c): completes the resolved model the resolver began.
 * Called by compile.c only, after the inventory phase passed (the model
 * then holds the kind, the devices used, the granules and the ICI x DCN
 * split that resolve.c decided); it never decides those, nor runs a check.
 */
#ifndef MG_PLAN_H
#define MG_PLAN_H

#include "internal.h"

/* The assignment: device ids, each host's first device, mesh position ->
 * device id and back, the processes and their stages, the sharding
 * constants and the closeness scores. */
void mg_plan_place(struct mg_arena *a, struct mg_plan *p, const struct mg_spec *spec);

/* What is derived once the assignment is known to be good: the per-axis
 * group tables (when `groups` asks for them) and the digest. */
void mg_plan_finish(struct mg_arena *a, struct mg_plan *p, const struct mg_spec *spec,
                    enum mg_when groups);

#endif /* MG_PLAN_H */
