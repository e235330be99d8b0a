/*
 * The compile stage: the spec phase -> the inventory phase -> the plan ->
 * the plan phase, over one resolved model (struct mg_plan).
 *
 * A phase runs the rows of checks.def that belong to it, in the registry's
 * order, each after its prerequisites: a decision (an MG_RESOLVE row,
 * resolve.c) writes what it decides into the model; a check (an MG_CHECK
 * row, check.c) is given the same model read-only and only adds
 * diagnostics. A row whose prerequisite failed is skipped. The planner
 * (plan.c) places the devices once the inventory phase passed.
 *
 * This is the only file that calls the resolver, the checks and the
 * planner, so none of them calls another. It knows the order of the
 * phases and the prerequisites, and nothing of what any row decides or
 * judges.
 */
#include "rows.h"
#include "plan.h"

/* What a run knows of each row. */
enum mg_row_state {
    MG_ROW_NOT_RUN, /* zero: not yet */
    MG_ROW_RUNNING, /* its prerequisites are being run */
    MG_ROW_PASSED,
    MG_ROW_FAILED /* failed, or skipped for a prerequisite */
};

/* One run of the rows over a spec, an inventory and the model. */
struct mg_compile_run {
    struct mg_resolve_ctx decide; /* the model, for the decisions to write */
    struct mg_check_ctx judge;    /* the same model, for the checks to read */
    const struct mg_compile_opts *opts;
    unsigned char state[MG_CHK__COUNT]; /* by id: an enum mg_row_state */
};

/* A model holding what the spec settles by itself. */
static struct mg_plan *mg_model_new(struct mg_arena *a, const struct mg_spec *spec,
                                    const struct mg_inventory *inv)
{
    struct mg_plan *p = mg_alloc(a, sizeof *p);
    int i;

    p->inv = inv;
    p->name = spec->name;
    p->n_axes = spec->n_axes;
    for (i = 0; i < p->n_axes; i++) {
        p->axis_names[i] = spec->axes[i].name;
        p->types[i] = spec->axes[i].type;
    }
    p->order = spec->order;
    p->process_mode = spec->processes;
    p->mpmd_axis = -1;
    return p;
}

/* Runs row id's decision or check. Returns 1 if it passed. */
static int mg_row_run(struct mg_compile_run *r, enum mg_check_id id)
{
    const struct mg_compile_opts *o = r->opts;
    int passed;

    if (mg_check_info(id)->by == MG_BY_RESOLVE)
        return mg_resolve_row(&r->decide, id) == 1;
    if (o && o->watch)
        o->watch(o->watch_ctx, id, r->judge.plan, -1);
    passed = mg_check_row(&r->judge, id) == 1;
    if (o && o->watch)
        o->watch(o->watch_ctx, id, r->judge.plan, passed);
    return passed;
}

/* Runs row id of the phase now running after its prerequisites, which it
 * runs first if they belong to this phase and have not run yet, so the
 * order of checks.def does not matter to which rows run. A prerequisite of
 * an earlier phase that did not pass, of a later phase, of the readers
 * (which no run records) or on a cycle skips the row; the registry test
 * rules those out. Returns 1 if the row passed. */
static int mg_row_visit(struct mg_compile_run *r, enum mg_check_id id, enum mg_phase phase)
{
    const struct mg_check_info *info = mg_check_info(id);
    int k, ready = 1;

    if (r->state[id] != MG_ROW_NOT_RUN)
        return r->state[id] == MG_ROW_PASSED;
    if (info->phase != phase || info->by == MG_BY_STAGE)
        return 0;
    r->state[id] = MG_ROW_RUNNING;
    for (k = 0; k < info->n_prereqs; k++)
        if (!mg_row_visit(r, info->prereqs[k], phase))
            ready = 0;
    r->state[id] = ready && mg_row_run(r, id) ? MG_ROW_PASSED : MG_ROW_FAILED;
    return r->state[id] == MG_ROW_PASSED;
}

static void mg_phase_run(struct mg_compile_run *r, enum mg_phase phase)
{
    int i;

    for (i = 0; i < MG_CHK__COUNT; i++)
        if (mg_check_info((enum mg_check_id)i)->phase == phase)
            mg_row_visit(r, (enum mg_check_id)i, phase);
}

struct mg_plan *mg_compile(struct mg_arena *a, struct mg_diags *d, const struct mg_spec *spec,
                           const struct mg_inventory *inv, const struct mg_compile_opts *opts)
{
    struct mg_plan *p = mg_model_new(a, spec, inv);
    struct mg_compile_run *r = mg_alloc(a, sizeof *r);

    r->decide = (struct mg_resolve_ctx){a, d, spec, inv, p};
    r->judge = (struct mg_check_ctx){a, d, spec, inv, p};
    r->opts = opts;
    mg_phase_run(r, MG_PHASE_SPEC);
    if (!inv)
        return NULL;
    mg_phase_run(r, MG_PHASE_INVENTORY);
    if (d->n_errors)
        return NULL;
    mg_plan_place(a, p, spec);
    mg_phase_run(r, MG_PHASE_PLAN);
    if (d->n_errors)
        return NULL;
    mg_plan_finish(a, p, spec, opts ? opts->groups : MG_WHEN_NEVER);
    return p;
}
