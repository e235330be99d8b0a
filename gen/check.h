/*
 * The checks (check.c): each judges the spec, the inventory and the model
 * that the resolver and the planner built, and reports what it refuses.
 *
 * Each check is a row of checks.def declared with MG_CHECK, with a stable
 * name, a phase and the rows it depends on; compile.c runs the rows, and a
 * check whose prerequisite failed is skipped, so one mistake gives one
 * error rather than a cascade. A check is given the model read-only (the
 * const below), and its only effect is the diagnostics it adds.
 */
#ifndef MG_CHECK_H
#define MG_CHECK_H

#include "internal.h"

/* What a check reads; the arena is for the text of its messages. */
struct mg_check_ctx {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    const struct mg_plan *plan;
};

/* Runs the check of row id (an MG_CHECK row of checks.def). Returns 1 when
 * it passed, 0 after reporting, and -1 when the row is not a check. */
int mg_check_row(const struct mg_check_ctx *c, enum mg_check_id id);

#endif /* MG_CHECK_H */
