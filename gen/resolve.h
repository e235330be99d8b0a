/*
 * The resolver (resolve.c): what the compile stage decides before the
 * checks can judge it and the planner can place devices.
 *
 * Each decision is a row of checks.def declared with MG_RESOLVE, so it
 * runs after its prerequisites as the checks do (compile.c runs the rows)
 * and reports, under its own check name, when it cannot be made. It writes
 * only what it decides into the model; it never judges what another
 * decision made (check.c does) and never calls the checks or the planner.
 */
#ifndef MG_RESOLVE_H
#define MG_RESOLVE_H

#include "internal.h"

/* What a decision reads, and the model it decides into. */
struct mg_resolve_ctx {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    struct mg_plan *plan;
};

/* Makes the decision of row id (an MG_RESOLVE row of checks.def). Returns
 * 1 when it was made, 0 after reporting why it could not be, and -1 when
 * the row is not a decision. */
int mg_resolve_row(const struct mg_resolve_ctx *c, enum mg_check_id id);

#endif /* MG_RESOLVE_H */
