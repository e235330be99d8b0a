/*
 * The named checks (check.c), run a phase at a time by compile.c.
 *
 * Checks are data: each is declared once in checks.def (the registry,
 * enum mg_check_id in gen.h) with a stable name, a phase and the checks it
 * depends on. A check whose prerequisite failed is skipped, so one mistake
 * gives one error rather than a cascade. The spec- and inventory-phase
 * checks write what they resolve into the model they are given; the
 * plan-phase checks read the model after the planner has completed it.
 */
#ifndef MG_CHECK_H
#define MG_CHECK_H

#include <meshgen/gen.h>

/* One run of the checks over a spec, an inventory and the model they fill
 * in; it remembers which checks passed, for the prerequisites of later
 * phases. Allocated in the arena. */
struct mg_check_run;

struct mg_check_run *mg_checks_new(struct mg_arena *a, struct mg_diags *d,
                                   const struct mg_spec *spec, const struct mg_inventory *inv,
                                   struct mg_plan *plan);

/* Runs every check of a phase whose prerequisites passed. Returns the
 * number of errors it added. */
int mg_checks_run(struct mg_check_run *c, enum mg_phase phase);

#endif /* MG_CHECK_H */
