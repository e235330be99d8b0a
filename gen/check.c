/*
 * The checks: one function per MG_CHECK row of checks.def, each named
 * check_<its name>, judging what it is given and reporting what it
 * refuses (the registry holds each one's name, phase and prerequisites).
 *
 * Each function reports its errors with the location of the offending YAML
 * node and returns 1 when it passed. The spec-phase checks read the spec;
 * the inventory-phase checks read the spec, the inventory and what the
 * resolver decided (resolve.c: the kind, the devices taken, the granules,
 * the sizes, the ICI x DCN split); the plan-phase check reads the model the
 * planner completed. Every check is given the model read-only and changes
 * nothing but the diagnostics: deciding is resolve.c's, placing plan.c's,
 * and this file calls neither; compile.c runs the rows.
 */
#include "rows.h"
#include "cident.h"
#include "diag.h"
#include "mesh_math.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

static int mg_has(struct mg_mark m)
{
    return m.line > 0;
}

static int mg_axis_lookup(const struct mg_spec *s, const char *name)
{
    int i;
    for (i = 0; i < s->n_axes; i++)
        if (s->axes[i].name && strcmp(s->axes[i].name, name) == 0)
            return i;
    return -1;
}

#define MG_UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/* An identifier the C implementation reserves: __x or _X. */
static int mg_is_reserved(const char *s)
{
    return s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z'));
}

/* Why a name would break the scheme of generated names (docs/reference.md,
 * "Generated names"), or NULL: "__" separates the parts of a generated name,
 * so no part may contain it or end in '_' (which would run into it). */
static const char *mg_name_scheme_fault(const char *s)
{
    size_t n = strlen(s);
    if (strstr(s, "__"))
        return "contains '__', the separator of generated names";
    if (n > 0 && s[n - 1] == '_')
        return "ends with '_', which would run into the '__' that separates generated names";
    return NULL;
}

/* Checks one name that will become part of C symbols. Returns 1 if good. */
static int mg_check_c_name(const struct mg_check_ctx *c, const char *what, const char *name,
                           struct mg_mark at, enum mg_check_id check)
{
    if (!mg_is_c_identifier(name)) {
        mg_error(c->diags, check, at,
                 "%s %s is not a C identifier (letters, digits and '_', not starting with "
                 "a digit)",
                 what, mg_show(c->arena, name));
        return 0;
    }
    if (mg_is_reserved(name)) {
        mg_error(c->diags, check, at,
                 "%s %s is reserved in C (it starts with '__' or '_' and a capital)", what,
                 mg_show(c->arena, name));
        return 0;
    }
    if (mg_name_scheme_fault(name)) {
        mg_error(c->diags, check, at, "%s %s %s", what, mg_show(c->arena, name),
                 mg_name_scheme_fault(name));
        return 0;
    }
    return 1;
}

/* ---- spec phase ---------------------------------------------------------------- */

static int check_name_identifier(const struct mg_check_ctx *c)
{
    const struct mg_spec *s = c->spec;
    if (!s->name)
        return 0;
    if (!mg_check_c_name(c, "mesh name", s->name, s->name_at, MG_CHK_NAME_IDENTIFIER))
        return 0;
    if (!(s->name[0] >= 'a' && s->name[0] <= 'z') || strpbrk(s->name, MG_UPPER)) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name %s is not lower-case, starting with a letter: its upper-case "
                 "form prefixes the macros, so two names that differ in case would share them",
                 mg_show(c->arena, s->name));
        return 0;
    }
    if (strncmp(s->name, "meshgen", 7) == 0) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name %s starts with 'meshgen', the runtime's namespace "
                 "(meshgen_*, MESHGEN_*)",
                 mg_show(c->arena, s->name));
        return 0;
    }
    if (mg_is_c_keyword(s->name)) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at, "mesh name %s is a C or C++ keyword",
                 mg_show(c->arena, s->name));
        return 0;
    }
    if (strlen(s->name) > MG_MAX_NAME) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name %s is %zu characters long; at most %d are allowed",
                 mg_show(c->arena, s->name), strlen(s->name), MG_MAX_NAME);
        return 0;
    }
    return 1;
}

static int check_axis_count(const struct mg_check_ctx *c)
{
    if (c->spec->n_axes >= 1)
        return 1;
    mg_error(c->diags, MG_CHK_AXIS_COUNT,
             mg_has(c->spec->axes_at) ? c->spec->axes_at : c->spec->mesh_at,
             "the mesh has no axes; give at least one name in 'axes'");
    return 0;
}

static int check_axis_name_identifier(const struct mg_check_ctx *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++)
        ok &= mg_check_c_name(c, "axis name", c->spec->axes[i].name, c->spec->axes[i].name_at,
                              MG_CHK_AXIS_NAME_IDENTIFIER);
    return ok;
}

static int check_axis_name_keyword(const struct mg_check_ctx *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        if (mg_is_c_keyword(c->spec->axes[i].name)) {
            mg_error(c->diags, MG_CHK_AXIS_NAME_KEYWORD, c->spec->axes[i].name_at,
                     "axis name %s is a C or C++ keyword and cannot name a constant",
                     mg_show(c->arena, c->spec->axes[i].name));
            ok = 0;
        }
    }
    return ok;
}

static int check_axis_name_length(const struct mg_check_ctx *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        size_t n = strlen(c->spec->axes[i].name);
        if (n > MG_MAX_NAME) {
            mg_error(c->diags, MG_CHK_AXIS_NAME_LENGTH, c->spec->axes[i].name_at,
                     "axis name %s is %zu characters long; at most %d are allowed",
                     mg_show(c->arena, c->spec->axes[i].name), n, MG_MAX_NAME);
            ok = 0;
        }
    }
    return ok;
}

static int check_axis_name_unique(const struct mg_check_ctx *c)
{
    int i, j, ok = 1;
    for (i = 1; i < c->spec->n_axes; i++) {
        for (j = 0; j < i; j++) {
            if (strcmp(c->spec->axes[i].name, c->spec->axes[j].name) == 0) {
                mg_error_rel(c->diags, MG_CHK_AXIS_NAME_UNIQUE, c->spec->axes[i].name_at,
                             c->spec->axes[j].name_at, "first defined here",
                             "axis %s appears twice", mg_show(c->arena, c->spec->axes[i].name));
                ok = 0;
                break;
            }
        }
    }
    return ok;
}

static int mg_check_length(const struct mg_check_ctx *c, enum mg_check_id check, const char *key,
                           int n, struct mg_mark at)
{
    if (n == c->spec->n_axes)
        return 1;
    mg_error(c->diags, check, at, "'%s' has %d entries but there are %d axes", key, n,
             c->spec->n_axes);
    return 0;
}

static int check_shape_length(const struct mg_check_ctx *c)
{
    return mg_check_length(c, MG_CHK_SHAPE_LENGTH, "shape", c->spec->shape_n,
                           mg_has(c->spec->shape_at) ? c->spec->shape_at : c->spec->mesh_at);
}

static int check_dcn_length(const struct mg_check_ctx *c)
{
    return !c->spec->has_dcn ||
           mg_check_length(c, MG_CHK_DCN_LENGTH, "dcn", c->spec->dcn_n, c->spec->dcn_at);
}

static int check_types_length(const struct mg_check_ctx *c)
{
    return !c->spec->has_types ||
           mg_check_length(c, MG_CHK_TYPES_LENGTH, "types", c->spec->types_n, c->spec->types_at);
}

static int check_shape_positive(const struct mg_check_ctx *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        int64_t v = c->spec->axes[i].size;
        if (v == -1 || v >= 1)
            continue;
        mg_error(c->diags, MG_CHK_SHAPE_POSITIVE, c->spec->axes[i].size_at,
                 "size %lld of axis %s is not allowed; sizes are positive, or -1 for "
                 "'the rest'",
                 (long long)v, mg_show(c->arena, c->spec->axes[i].name));
        ok = 0;
    }
    return ok;
}

static int check_shape_infer(const struct mg_check_ctx *c)
{
    int i, first = -1, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        if (c->spec->axes[i].size != -1)
            continue;
        if (first < 0) {
            first = i;
            continue;
        }
        mg_error_rel(c->diags, MG_CHK_SHAPE_INFER, c->spec->axes[i].size_at,
                     c->spec->axes[first].size_at, "the first -1 is here",
                     "more than one -1 in 'shape': only one axis size can be inferred "
                     "(axis %s and axis %s)",
                     mg_show(c->arena, c->spec->axes[first].name),
                     mg_show(c->arena, c->spec->axes[i].name));
        ok = 0;
    }
    return ok;
}

static int check_dcn_positive(const struct mg_check_ctx *c)
{
    int i, ok = 1;
    if (!c->spec->has_dcn)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        if (c->spec->axes[i].dcn >= 1)
            continue;
        mg_error(c->diags, MG_CHK_DCN_POSITIVE, c->spec->axes[i].dcn_at,
                 "dcn %lld of axis %s must be at least 1", (long long)c->spec->axes[i].dcn,
                 mg_show(c->arena, c->spec->axes[i].name));
        ok = 0;
    }
    return ok;
}

static int check_devices_positive(const struct mg_check_ctx *c)
{
    if (!c->spec->has_devices || c->spec->devices >= 1)
        return 1;
    mg_error(c->diags, MG_CHK_DEVICES_POSITIVE, c->spec->devices_at,
             "'devices' is %lld; it must be at least 1", (long long)c->spec->devices);
    return 0;
}

static int check_sharding_name(const struct mg_check_ctx *c)
{
    int i, j, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        if (!mg_check_c_name(c, "sharding name", sh->name, sh->at, MG_CHK_SHARDING_NAME)) {
            ok = 0;
            continue;
        }
        if (strlen(sh->name) > MG_MAX_NAME) {
            mg_error(c->diags, MG_CHK_SHARDING_NAME, sh->at,
                     "sharding name %s is longer than %d characters", mg_show(c->arena, sh->name),
                     MG_MAX_NAME);
            ok = 0;
        }
        for (j = 0; j < i; j++)
            if (strcmp(sh->name, c->spec->shardings[j].name) == 0) {
                mg_error(c->diags, MG_CHK_SHARDING_NAME, sh->at, "sharding %s appears twice",
                         mg_show(c->arena, sh->name));
                ok = 0;
            }
    }
    return ok;
}

static int check_sharding_axis(const struct mg_check_ctx *c)
{
    int i, d, k, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        for (d = 0; d < sh->n_dims; d++)
            for (k = 0; k < sh->dims[d].n_axes; k++)
                if (mg_axis_lookup(c->spec, sh->dims[d].axes[k]) < 0) {
                    mg_error(c->diags, MG_CHK_SHARDING_AXIS, sh->dims[d].axes_at[k],
                             "sharding %s uses axis %s, which is not in 'axes'%s",
                             mg_show(c->arena, sh->name), mg_show(c->arena, sh->dims[d].axes[k]),
                             mg_suggest_axis(c->arena, c->spec, sh->dims[d].axes[k]));
                    ok = 0;
                }
    }
    return ok;
}

/* Whether axis k of dimension d was used earlier in the sharding; reports
 * it at its second use only, naming how often the sharding uses it, so an
 * axis repeated any number of times gives one error. */
static int mg_sharding_axis_seen(const struct mg_check_ctx *c, const struct mg_spec_sharding *sh,
                                 int d, int k)
{
    const char *axis = sh->dims[d].axes[k];
    int d2, k2, before = 0, total = 0, first_d = -1, first_k = -1;

    for (d2 = 0; d2 < sh->n_dims; d2++)
        for (k2 = 0; k2 < sh->dims[d2].n_axes; k2++) {
            if (strcmp(axis, sh->dims[d2].axes[k2]) != 0)
                continue;
            total++;
            if (d2 < d || (d2 == d && k2 < k))
                before++;
            if (first_d < 0) {
                first_d = d2;
                first_k = k2;
            }
        }
    if (before == 1) {
        const char *times = total == 2 ? "twice" : mg_printf(c->arena, "%d times", total);
        mg_error_rel(c->diags, MG_CHK_SHARDING_AXIS_UNIQUE, sh->dims[d].axes_at[k],
                     sh->dims[first_d].axes_at[first_k], "first used here",
                     "sharding %s uses axis %s %s; an axis may shard one dimension once",
                     mg_show(c->arena, sh->name), mg_show(c->arena, axis), times);
    }
    return before > 0;
}

static int check_sharding_axis_unique(const struct mg_check_ctx *c)
{
    int i, d, k, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        for (d = 0; d < sh->n_dims; d++)
            for (k = 0; k < sh->dims[d].n_axes; k++)
                if (mg_sharding_axis_seen(c, sh, d, k))
                    ok = 0;
    }
    return ok;
}

static int check_sharding_mpmd(const struct mg_check_ctx *c)
{
    int i, d, k, ok = 1;
    if (c->plan->mpmd_axis < 0)
        return 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        for (d = 0; d < sh->n_dims; d++)
            for (k = 0; k < sh->dims[d].n_axes; k++)
                if (strcmp(sh->dims[d].axes[k], c->spec->mpmd) == 0) {
                    mg_error(c->diags, MG_CHK_SHARDING_MPMD, sh->dims[d].axes_at[k],
                             "sharding %s uses %s, the MPMD axis; stages run different "
                             "programs, so an array cannot be split across them",
                             mg_show(c->arena, sh->name), mg_show(c->arena, c->spec->mpmd));
                    ok = 0;
                }
    }
    return ok;
}

static int check_sharding_rank(const struct mg_check_ctx *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        if (sh->has_shape && sh->n_dims > sh->shape_n) {
            mg_error(c->diags, MG_CHK_SHARDING_RANK, sh->shape_list_at,
                     "sharding %s has a spec of %d dimensions but its shape has only %d",
                     mg_show(c->arena, sh->name), sh->n_dims, sh->shape_n);
            ok = 0;
        }
    }
    return ok;
}

static int check_sharding_shape_positive(const struct mg_check_ctx *c)
{
    int i, d, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        for (d = 0; sh->has_shape && d < sh->shape_n; d++)
            if (sh->shape[d] < 1) {
                mg_error(c->diags, MG_CHK_SHARDING_SHAPE_POSITIVE, sh->shape_at[d],
                         "dimension %d of sharding %s has size %lld; sizes are positive", d,
                         mg_show(c->arena, sh->name), (long long)sh->shape[d]);
                ok = 0;
            }
    }
    return ok;
}

/* ---- inventory phase ------------------------------------------------------------- */

/* order: torus places devices by their chips' coordinates, which only TPU
 * devices have. */
static int check_order_torus(const struct mg_check_ctx *c)
{
    if (c->plan->order != MG_ORDER_TORUS || c->plan->kind == MG_KIND_TPU)
        return 1;
    mg_error(c->diags, MG_CHK_ORDER_TORUS, c->spec->order_at,
             "'order: torus' assigns devices by their coordinates in a TPU slice, but the mesh's "
             "devices are %s devices, which have none; use locality or inventory",
             mg_kind_name(c->plan->kind));
    return 0;
}

/* What a granule is, for messages: "slice 'x'" and "host 'x'" differ where
 * a slice has a host's name. */
static const char *mg_granule_kind(const struct mg_granule_info *g)
{
    return g->slice ? "slice" : "host";
}

/* Every granule the mesh uses holds the same number of devices (those
 * past `devices: N` are not checked). A granule is shown at its first
 * host, the first of its hosts in granule_hosts. */
static int check_granules_homogeneous(const struct mg_check_ctx *c)
{
    const struct mg_plan *p = c->plan;
    const struct mg_granule_info *gr = p->granules;
    const struct mg_host *hosts = c->inv->hosts;
    int g, k = gr[0].n_hosts; /* where granule g's hosts begin */

    for (g = 1; g < p->n_granules; k += gr[g].n_hosts, g++) {
        if (gr[g].n_devices != gr[0].n_devices) {
            mg_error_rel(c->diags, MG_CHK_GRANULES_HOMOGENEOUS, hosts[p->granule_hosts[k]].at,
                         hosts[p->granule_hosts[0]].at, "the first granule is here",
                         "%s %s has %d %s devices but %s %s has %d; every granule of a "
                         "hybrid mesh must hold the same number",
                         mg_granule_kind(&gr[g]), mg_show_host(c->arena, gr[g].key),
                         gr[g].n_devices, mg_kind_name(p->kind), mg_granule_kind(&gr[0]),
                         mg_show_host(c->arena, gr[0].key), gr[0].n_devices);
            return 0;
        }
    }
    return 1;
}

/* `devices: N` takes the first N devices in process order; every granule
 * they reach must give the mesh the same number: whole granules, or part of
 * the first one. */
static int check_devices_granules(const struct mg_check_ctx *c)
{
    const struct mg_granule_info *gr = c->plan->granules;
    int g;

    for (g = 1; g < c->plan->n_granules; g++) {
        if (gr[g].n_used != gr[0].n_used) {
            mg_error(c->diags, MG_CHK_DEVICES_GRANULES, c->spec->devices_at,
                     "'devices: %lld' takes the first %lld %s devices in process order: %d of "
                     "%s %s but %d of %s %s; the mesh must take the same number of each "
                     "granule it uses (a multiple of %d, or at most %d)",
                     (long long)c->plan->n_mesh, (long long)c->plan->n_mesh,
                     mg_kind_name(c->plan->kind), gr[0].n_used, mg_granule_kind(&gr[0]),
                     mg_show_host(c->arena, gr[0].key), gr[g].n_used, mg_granule_kind(&gr[g]),
                     mg_show_host(c->arena, gr[g].key), gr[0].n_devices, gr[0].n_devices);
            return 0;
        }
    }
    return c->plan->per_granule > 0;
}

static int check_shape_devices(const struct mg_check_ctx *c)
{
    int64_t prod = 1;
    int i, overflow = 0;
    struct mg_buf b;

    for (i = 0; i < c->spec->n_axes; i++)
        if (!mg_mul_size(prod, c->plan->size[i], &prod)) {
            overflow = 1;
            break;
        }
    if (!overflow && prod == c->plan->n_mesh)
        return 1;
    mg_buf_init(&b);
    mg_describe_shape(&b, c->spec, c->plan->size);
    if (overflow)
        mg_error(c->diags, MG_CHK_SHAPE_DEVICES, c->spec->shape_at,
                 "the product of shape %s overflows 64 bits; the mesh has %lld devices", b.data,
                 (long long)c->plan->n_mesh);
    else
        mg_error(c->diags, MG_CHK_SHAPE_DEVICES, c->spec->shape_at,
                 "shape %s needs %lld devices but the mesh has %lld %s devices%s", b.data,
                 (long long)prod, (long long)c->plan->n_mesh, mg_kind_name(c->plan->kind),
                 c->spec->has_devices ? " ('devices')" : " (the whole inventory)");
    mg_buf_free(&b);
    return 0;
}

static const char *mg_granule_word(const struct mg_check_ctx *c)
{
    return c->plan->granule == MG_GRANULE_SLICE ? "granules are slices" : "granules are hosts";
}

static int check_dcn_granules(const struct mg_check_ctx *c)
{
    int64_t prod = 1;
    int i, overflow = 0;
    if (!c->spec->has_dcn)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++)
        if (!mg_mul_size(prod, c->spec->axes[i].dcn, &prod))
            overflow = 1;
    if (!overflow && prod == c->plan->n_granules)
        return 1;
    if (overflow)
        mg_error(c->diags, MG_CHK_DCN_GRANULES, c->spec->dcn_at,
                 "the product of 'dcn' overflows 64 bits; the mesh spans %d granules (%s)",
                 c->plan->n_granules, mg_granule_word(c));
    else
        mg_error(c->diags, MG_CHK_DCN_GRANULES, c->spec->dcn_at,
                 "the product of 'dcn' is %lld but the mesh spans %d granule%s (%s): %s by a "
                 "factor of %lld",
                 (long long)prod, c->plan->n_granules, c->plan->n_granules == 1 ? "" : "s",
                 mg_granule_word(c), prod > c->plan->n_granules ? "too many" : "too few",
                 prod > c->plan->n_granules ? (long long)(prod / c->plan->n_granules)
                                            : (long long)(c->plan->n_granules / (prod ? prod : 1)));
    return 0;
}

static int check_ici_devices(const struct mg_check_ctx *c)
{
    int64_t prod = 1;
    int i, overflow = 0;
    struct mg_buf b;
    if (!c->spec->has_dcn)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++)
        if (!mg_mul_size(prod, c->plan->ici[i], &prod))
            overflow = 1;
    if (!overflow && prod == c->plan->per_granule)
        return 1;
    mg_buf_init(&b);
    mg_describe_shape(&b, c->spec, c->plan->ici);
    if (overflow)
        mg_error(c->diags, MG_CHK_ICI_DEVICES, c->spec->dcn_at,
                 "the ICI part shape / dcn = %s overflows 64 bits; each granule has %lld "
                 "devices",
                 b.data, (long long)c->plan->per_granule);
    else
        mg_error(c->diags, MG_CHK_ICI_DEVICES, c->spec->dcn_at,
                 "the ICI part shape / dcn = %s needs %lld devices per granule but each "
                 "granule has %lld",
                 b.data, (long long)prod, (long long)c->plan->per_granule);
    mg_buf_free(&b);
    return 0;
}
static int check_sharding_divides(const struct mg_check_ctx *c)
{
    int i, d, k, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        if (!sh->has_shape)
            continue;
        for (d = 0; d < sh->n_dims && d < sh->shape_n; d++) {
            /* Distinct axes (sharding-axis-unique ran first) multiply to at
             * most the device count; the product saturates all the same. */
            int64_t shards = 1;
            for (k = 0; k < sh->dims[d].n_axes; k++)
                mg_mul_size(shards, c->plan->size[mg_axis_lookup(c->spec, sh->dims[d].axes[k])],
                            &shards);
            if (sh->shape[d] % shards != 0) {
                mg_error(c->diags, MG_CHK_SHARDING_DIVIDES, sh->shape_at[d],
                         "sharding %s: dimension %d of size %lld is not divisible by its "
                         "%lld shards",
                         mg_show(c->arena, sh->name), d, (long long)sh->shape[d],
                         (long long)shards);
                ok = 0;
            }
        }
    }
    return ok;
}

/* ---- plan phase ---------------------------------------------------------------------- */

/* Whether process i holds devices in two MPMD stages; if so, *dev_a in
 * stage *st_a and *dev_b in stage *st_b are the first two that differ. */
static int mg_process_two_stages(const struct mg_plan *p, int i, int *dev_a, int *st_a, int *dev_b,
                                 int *st_b)
{
    const struct mg_plan_process *pr = &p->processes[i];
    int j;

    for (j = 0; j < pr->count; j++) {
        int dev = mg_plan_process_device(p, pr->first + j);
        int stage = mg_stage_of(p, mg_plan_index_of(p, dev));
        if (j == 0) {
            *dev_a = dev;
            *st_a = stage;
        } else if (stage != *st_a) {
            *dev_b = dev;
            *st_b = stage;
            return 1;
        }
    }
    return 0;
}

/* One mistake, one error: when the MPMD axis splits processes, every
 * process of a host-wide layout usually is split alike, so the processes
 * are counted and the first is described, at the one place to fix. */
static int check_mpmd_process(const struct mg_check_ctx *c)
{
    const struct mg_plan *p = c->plan;
    int i, n_bad = 0, first = -1, dev_a = 0, st_a = 0, dev_b = 0, st_b = 0;
    int a, sa, b, sb;
    const char *what;

    if (p->mpmd_axis < 0)
        return 1;
    for (i = 0; i < p->n_processes; i++)
        if (mg_process_two_stages(p, i, &a, &sa, &b, &sb) && n_bad++ == 0) {
            first = i;
            dev_a = a, st_a = sa, dev_b = b, st_b = sb;
        }
    if (!n_bad)
        return 1;
    what = mg_printf(c->arena, "process %d on host %s", first,
                     mg_show_host(c->arena, c->inv->hosts[p->processes[first].host].name));
    mg_error(c->diags, MG_CHK_MPMD_PROCESS, c->spec->mpmd_at,
             "%s hold%s devices in two MPMD stages%s device %d in stage %d and device %d in "
             "stage %d%s; each process must run one stage (make %s an outer, DCN axis, or use "
             "'processes: device')",
             n_bad > 1 ? mg_printf(c->arena, "%d of %d processes", n_bad, p->n_processes) : what,
             n_bad > 1 ? "" : "s", n_bad > 1 ? mg_printf(c->arena, " (the first, %s:", what) : ":",
             dev_a, st_a, dev_b, st_b, n_bad > 1 ? ")" : "", mg_show(c->arena, c->spec->mpmd));
    return 0;
}

/* ---- the rows -------------------------------------------------------------------------- */

int mg_check_row(const struct mg_check_ctx *c, enum mg_check_id id)
{
    switch (id) {
#define MG_REPORT(id, name, severity, doc)
#define MG_CHECK(id, name, phase, severity, doc, prereqs, function)                                \
    case id:                                                                                       \
        return function(c);
#define MG_RESOLVE(id, name, phase, severity, doc, prereqs, function)
#include "checks.def"
#undef MG_REPORT
#undef MG_CHECK
#undef MG_RESOLVE
    default: return -1;
    }
}
