/*
 * The context the named checks (check.c) and the planner (plan.c) share.
 *
 * Checks are data: each has a stable name, a phase and the checks it
 * depends on. A check whose prerequisite failed is skipped, so one mistake
 * gives one error rather than a cascade. Checks of the early phases also
 * record what they resolve (the device kind, the -1 size, the granules, the
 * DCN split) so the planner reads settled values rather than recomputing.
 */
#ifndef MG_CHECK_H
#define MG_CHECK_H

#include "model.h"

enum mg_phase {
    MG_PHASE_SPEC,      /* the spec alone */
    MG_PHASE_INVENTORY, /* the spec against the inventory */
    MG_PHASE_PLAN       /* the spec against the assignment */
};

struct mg_ctx {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    struct mg_plan *plan;

    /* Resolved by the inventory-phase checks. */
    int kind;
    int64_t total_devices;  /* devices of the kind across the inventory */
    int64_t used_devices;   /* `devices:` or the total */
    int n_granules_all;
    struct mg_granule_info *granules_all; /* in DCN order */
    int *granule_order_hosts;             /* host indices, granule-major */
    int *host_granule;                    /* host -> granule */
    int n_granules;                       /* granules the mesh uses */
    int64_t per_granule;                  /* devices of each used granule */
    int64_t size[MG_MAX_AXES];
    int64_t ici[MG_MAX_AXES];
    int64_t dcn[MG_MAX_AXES];
    int mpmd_axis;

    /* Per check: 1 passed, 0 failed or skipped. */
    unsigned char *passed;
};

/* Runs every check of a phase whose prerequisites passed. Returns the
 * number of errors it added. */
int mg_checks_run(struct mg_ctx *ctx, enum mg_phase phase);

/* The devices of host h of the chosen kind, and the first device id. */
int mg_host_devices(const struct mg_ctx *ctx, int host);

#endif /* MG_CHECK_H */
