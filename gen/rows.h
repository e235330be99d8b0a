/*
 * The rows of checks.def that the compile stage runs (compile.c), each
 * after its prerequisites, so one mistake gives one error rather than a
 * cascade:
 *
 * - a decision (resolve.c), a row declared with MG_RESOLVE, writes what it
 *   decides into the model before the checks can judge it and the planner
 *   can place devices, and reports under its own check name when it cannot
 *   be made; it never judges what another decision made, and never calls
 *   the checks or the planner;
 * - a check (check.c), a row declared with MG_CHECK, judges the spec, the
 *   inventory and the model that the resolver and the planner built, and
 *   reports what it refuses: it is given the model read-only (the const
 *   below), and its only effect is the diagnostics it adds.
 *
 * The two contexts differ in that const alone.
 */
#ifndef MG_ROWS_H
#define MG_ROWS_H

#include "internal.h"

/* What a decision reads, and the model it decides into. */
struct mg_resolve_ctx {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    struct mg_plan *plan;
};

/* What a check reads; the arena is for the text of its messages. */
struct mg_check_ctx {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    const struct mg_plan *plan;
};

/* Makes the decision of row id (an MG_RESOLVE row of checks.def). Returns
 * 1 when it was made, 0 after reporting why it could not be, and -1 when
 * the row is not a decision. */
int mg_resolve_row(const struct mg_resolve_ctx *c, enum mg_check_id id);

/* Runs the check of row id (an MG_CHECK row of checks.def). Returns 1 when
 * it passed, 0 after reporting, and -1 when the row is not a check. */
int mg_check_row(const struct mg_check_ctx *c, enum mg_check_id id);

#endif /* MG_ROWS_H */
