/*
 * The named checks: a function per check of checks.def that a phase runs
 * (the registry holds each one's name, phase and prerequisites).
 *
 * Each function reports its own errors with the location of the offending
 * YAML node and returns 1 when it passed. The checks read the spec and the
 * inventory and write what they resolve (the device kind, the devices used,
 * the granules, the -1 size, the ICI x DCN split, the MPMD axis) into the
 * one resolved model, struct mg_plan; the plan-phase check reads the model
 * the planner completed. Nothing here builds the assignment, calls the
 * planner or knows how tables are emitted; compile.c runs the phases.
 */
#include "check.h"
#include "cident.h"
#include "mesh_math.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

struct mg_check_run {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    struct mg_plan *plan; /* the resolved model the checks fill in */
    /* Per check, by id: an enum mg_check_state. */
    unsigned char *state;
};

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

/* "; did you mean 'pp'?" for a name that is no axis of the spec, or "". */
static const char *mg_axis_suggestion(const struct mg_check_run *c, const char *name)
{
    struct mg_suggest s;
    int i;

    mg_suggest_init(&s, name);
    for (i = 0; i < c->spec->n_axes; i++)
        mg_suggest_add(&s, c->spec->axes[i].name);
    return mg_suggest_text(c->arena, &s);
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
static int mg_check_c_name(struct mg_check_run *c, const char *what, const char *name,
                           struct mg_mark at, enum mg_check_id check)
{
    if (!mg_is_c_identifier(name)) {
        mg_error(c->diags, check, at,
                 "%s '%s' is not a C identifier (letters, digits and '_', not starting with "
                 "a digit)",
                 what, name);
        return 0;
    }
    if (mg_is_reserved(name)) {
        mg_error(c->diags, check, at,
                 "%s '%s' is reserved in C (it starts with '__' or '_' and a capital)", what, name);
        return 0;
    }
    if (mg_name_scheme_fault(name)) {
        mg_error(c->diags, check, at, "%s '%s' %s", what, name, mg_name_scheme_fault(name));
        return 0;
    }
    return 1;
}

/* The devices of the chosen kind on a host. */
static int mg_host_devices(const struct mg_check_run *c, int host)
{
    return c->inv->topologies[c->inv->hosts[host].topology].n[c->plan->kind];
}

/* ---- spec phase ---------------------------------------------------------------- */

static int check_name_identifier(struct mg_check_run *c)
{
    const struct mg_spec *s = c->spec;
    if (!s->name)
        return 0;
    if (!mg_check_c_name(c, "mesh name", s->name, s->name_at, MG_CHK_NAME_IDENTIFIER))
        return 0;
    if (!(s->name[0] >= 'a' && s->name[0] <= 'z') || strpbrk(s->name, MG_UPPER)) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name '%s' is not lower-case, starting with a letter: its upper-case "
                 "form prefixes the macros, so two names that differ in case would share them",
                 s->name);
        return 0;
    }
    if (strncmp(s->name, "meshgen", 7) == 0) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name '%s' starts with 'meshgen', the runtime's namespace "
                 "(meshgen_*, MESHGEN_*)",
                 s->name);
        return 0;
    }
    if (mg_is_c_keyword(s->name)) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name '%s' is a C or C++ keyword", s->name);
        return 0;
    }
    if (strlen(s->name) > MG_MAX_NAME) {
        mg_error(c->diags, MG_CHK_NAME_IDENTIFIER, s->name_at,
                 "mesh name '%s' is %zu characters long; at most %d are allowed", s->name,
                 strlen(s->name), MG_MAX_NAME);
        return 0;
    }
    return 1;
}

static int check_axis_count(struct mg_check_run *c)
{
    if (c->spec->n_axes >= 1)
        return 1;
    mg_error(c->diags, MG_CHK_AXIS_COUNT,
             mg_has(c->spec->axes_at) ? c->spec->axes_at : c->spec->mesh_at,
             "the mesh has no axes; give at least one name in 'axes'");
    return 0;
}

static int check_axis_name_identifier(struct mg_check_run *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++)
        ok &= mg_check_c_name(c, "axis name", c->spec->axes[i].name, c->spec->axes[i].name_at,
                              MG_CHK_AXIS_NAME_IDENTIFIER);
    return ok;
}

static int check_axis_name_keyword(struct mg_check_run *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        if (mg_is_c_keyword(c->spec->axes[i].name)) {
            mg_error(c->diags, MG_CHK_AXIS_NAME_KEYWORD, c->spec->axes[i].name_at,
                     "axis name '%s' is a C or C++ keyword and cannot name a constant",
                     c->spec->axes[i].name);
            ok = 0;
        }
    }
    return ok;
}

static int check_axis_name_length(struct mg_check_run *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        size_t n = strlen(c->spec->axes[i].name);
        if (n > MG_MAX_NAME) {
            mg_error(c->diags, MG_CHK_AXIS_NAME_LENGTH, c->spec->axes[i].name_at,
                     "axis name '%.40s...' is %zu characters long; at most %d are allowed",
                     c->spec->axes[i].name, n, MG_MAX_NAME);
            ok = 0;
        }
    }
    return ok;
}

static int check_axis_name_unique(struct mg_check_run *c)
{
    int i, j, ok = 1;
    for (i = 1; i < c->spec->n_axes; i++) {
        for (j = 0; j < i; j++) {
            if (strcmp(c->spec->axes[i].name, c->spec->axes[j].name) == 0) {
                mg_error_rel(c->diags, MG_CHK_AXIS_NAME_UNIQUE, c->spec->axes[i].name_at,
                             c->spec->axes[j].name_at, "first defined here",
                             "axis '%s' appears twice", c->spec->axes[i].name);
                ok = 0;
                break;
            }
        }
    }
    return ok;
}

static int mg_check_length(struct mg_check_run *c, enum mg_check_id check, const char *key, int n,
                           struct mg_mark at)
{
    if (n == c->spec->n_axes)
        return 1;
    mg_error(c->diags, check, at, "'%s' has %d entries but there are %d axes", key, n,
             c->spec->n_axes);
    return 0;
}

static int check_shape_length(struct mg_check_run *c)
{
    return mg_check_length(c, MG_CHK_SHAPE_LENGTH, "shape", c->spec->shape_n,
                           mg_has(c->spec->shape_at) ? c->spec->shape_at : c->spec->mesh_at);
}

static int check_dcn_length(struct mg_check_run *c)
{
    return !c->spec->has_dcn ||
           mg_check_length(c, MG_CHK_DCN_LENGTH, "dcn", c->spec->dcn_n, c->spec->dcn_at);
}

static int check_types_length(struct mg_check_run *c)
{
    return !c->spec->has_types ||
           mg_check_length(c, MG_CHK_TYPES_LENGTH, "types", c->spec->types_n, c->spec->types_at);
}

static int check_shape_positive(struct mg_check_run *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        int64_t v = c->spec->axes[i].size;
        if (v == -1 || v >= 1)
            continue;
        mg_error(c->diags, MG_CHK_SHAPE_POSITIVE, c->spec->axes[i].size_at,
                 "size %lld of axis '%s' is not allowed; sizes are positive, or -1 for "
                 "'the rest'",
                 (long long)v, c->spec->axes[i].name);
        ok = 0;
    }
    return ok;
}

static int check_shape_infer(struct mg_check_run *c)
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
                     "(axis '%s' and axis '%s')",
                     c->spec->axes[first].name, c->spec->axes[i].name);
        ok = 0;
    }
    return ok;
}

static int check_dcn_positive(struct mg_check_run *c)
{
    int i, ok = 1;
    if (!c->spec->has_dcn)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        if (c->spec->axes[i].dcn >= 1)
            continue;
        mg_error(c->diags, MG_CHK_DCN_POSITIVE, c->spec->axes[i].dcn_at,
                 "dcn %lld of axis '%s' must be at least 1", (long long)c->spec->axes[i].dcn,
                 c->spec->axes[i].name);
        ok = 0;
    }
    return ok;
}

static int check_mpmd_axis(struct mg_check_run *c)
{
    c->plan->mpmd_axis = -1;
    if (!c->spec->mpmd)
        return 1;
    c->plan->mpmd_axis = mg_axis_lookup(c->spec, c->spec->mpmd);
    if (c->plan->mpmd_axis >= 0)
        return 1;
    mg_error(c->diags, MG_CHK_MPMD_AXIS, c->spec->mpmd_at,
             "'mpmd' names axis '%s', which is not in 'axes'%s", c->spec->mpmd,
             mg_axis_suggestion(c, c->spec->mpmd));
    return 0;
}

static int check_devices_positive(struct mg_check_run *c)
{
    if (!c->spec->has_devices || c->spec->devices >= 1)
        return 1;
    mg_error(c->diags, MG_CHK_DEVICES_POSITIVE, c->spec->devices_at,
             "'devices' is %lld; it must be at least 1", (long long)c->spec->devices);
    return 0;
}

static int check_sharding_name(struct mg_check_run *c)
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
                     "sharding name '%.40s...' is longer than %d characters", sh->name,
                     MG_MAX_NAME);
            ok = 0;
        }
        for (j = 0; j < i; j++)
            if (strcmp(sh->name, c->spec->shardings[j].name) == 0) {
                mg_error(c->diags, MG_CHK_SHARDING_NAME, sh->at, "sharding '%s' appears twice",
                         sh->name);
                ok = 0;
            }
    }
    return ok;
}

static int check_sharding_axis(struct mg_check_run *c)
{
    int i, d, k, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        for (d = 0; d < sh->n_dims; d++)
            for (k = 0; k < sh->dims[d].n_axes; k++)
                if (mg_axis_lookup(c->spec, sh->dims[d].axes[k]) < 0) {
                    mg_error(c->diags, MG_CHK_SHARDING_AXIS, sh->dims[d].axes_at[k],
                             "sharding '%s' uses axis '%s', which is not in 'axes'%s", sh->name,
                             sh->dims[d].axes[k], mg_axis_suggestion(c, sh->dims[d].axes[k]));
                    ok = 0;
                }
    }
    return ok;
}

/* Whether axis k of dimension d was used earlier in the sharding; reports
 * it at its second use only, naming how often the sharding uses it, so an
 * axis repeated any number of times gives one error. */
static int mg_sharding_axis_seen(struct mg_check_run *c, const struct mg_spec_sharding *sh, int d,
                                 int k)
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
                     "sharding '%s' uses axis '%s' %s; an axis may shard one dimension once",
                     sh->name, axis, times);
    }
    return before > 0;
}

static int check_sharding_axis_unique(struct mg_check_run *c)
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

static int check_sharding_mpmd(struct mg_check_run *c)
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
                             "sharding '%s' uses '%s', the MPMD axis; stages run different "
                             "programs, so an array cannot be split across them",
                             sh->name, c->spec->mpmd);
                    ok = 0;
                }
    }
    return ok;
}

static int check_sharding_rank(struct mg_check_run *c)
{
    int i, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        if (sh->has_shape && sh->n_dims > sh->shape_n) {
            mg_error(c->diags, MG_CHK_SHARDING_RANK, sh->shape_list_at,
                     "sharding '%s' has a spec of %d dimensions but its shape has only %d",
                     sh->name, sh->n_dims, sh->shape_n);
            ok = 0;
        }
    }
    return ok;
}

static int check_sharding_shape_positive(struct mg_check_run *c)
{
    int i, d, ok = 1;
    for (i = 0; i < c->spec->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        for (d = 0; sh->has_shape && d < sh->shape_n; d++)
            if (sh->shape[d] < 1) {
                mg_error(c->diags, MG_CHK_SHARDING_SHAPE_POSITIVE, sh->shape_at[d],
                         "dimension %d of sharding '%s' has size %lld; sizes are positive", d,
                         sh->name, (long long)sh->shape[d]);
                ok = 0;
            }
    }
    return ok;
}

/* ---- inventory phase ------------------------------------------------------------- */

/* The kind's defaults for what the spec leaves out: a TPU mesh is ordered
 * as JAX orders it, and its granules are slices (docs/tpu.md). */
static void mg_kind_defaults(struct mg_check_run *c)
{
    int tpu = c->plan->kind == MG_KIND_TPU;

    c->plan->order = tpu && !c->spec->has_order ? MG_ORDER_TORUS : c->spec->order;
    c->plan->granule = tpu && !c->spec->has_granule ? MG_GRANULE_SLICE : c->spec->granule;
}

static int check_device_kind_available(struct mg_check_run *c)
{
    const struct mg_inventory *inv = c->inv;
    int64_t n[MG_N_KINDS] = {0};
    int h, k;

    for (h = 0; h < inv->n_hosts; h++)
        for (k = 0; k < MG_N_KINDS; k++)
            mg_add_size(n[k], inv->topologies[inv->hosts[h].topology].n[k], &n[k]);
    c->plan->kind = c->spec->device_kind;
    if (c->plan->kind == MG_KIND_DEFAULT)
        c->plan->kind = n[MG_KIND_TPU] > 0   ? MG_KIND_TPU
                        : n[MG_KIND_GPU] > 0 ? MG_KIND_GPU
                                             : MG_KIND_CORE;
    mg_kind_defaults(c);
    if (n[c->plan->kind] > MG_MAX_DEVICES) {
        mg_error(c->diags, MG_CHK_DEVICE_KIND_AVAILABLE,
                 mg_has(c->spec->device_kind_at) ? c->spec->device_kind_at : c->spec->mesh_at,
                 "the inventory has %lld %s devices; meshgen handles at most %d",
                 (long long)n[c->plan->kind], mg_kind_name(c->plan->kind), MG_MAX_DEVICES);
        return 0;
    }
    c->plan->n_devices = (int)n[c->plan->kind];
    if (c->plan->n_devices > 0)
        return 1;
    mg_error(c->diags, MG_CHK_DEVICE_KIND_AVAILABLE,
             mg_has(c->spec->device_kind_at) ? c->spec->device_kind_at : c->spec->mesh_at,
             "the inventory '%s' has no %s devices (it has %lld gpu, %lld core, %lld numa, "
             "%lld package, %lld pu%s)",
             inv->source, mg_kind_name(c->plan->kind), (long long)n[0], (long long)n[1],
             (long long)n[2], (long long)n[3], (long long)n[4],
             n[MG_KIND_TPU] ? mg_printf(c->arena, ", %lld tpu", (long long)n[MG_KIND_TPU]) : "");
    return 0;
}

/* order: torus places devices by their chips' coordinates, which only TPU
 * devices have. */
static int check_order_torus(struct mg_check_run *c)
{
    if (c->plan->order != MG_ORDER_TORUS || c->plan->kind == MG_KIND_TPU)
        return 1;
    mg_error(c->diags, MG_CHK_ORDER_TORUS, c->spec->order_at,
             "'order: torus' assigns devices by their coordinates in a TPU slice, but the mesh's "
             "devices are %s devices, which have none; use locality or inventory",
             mg_kind_name(c->plan->kind));
    return 0;
}

static int check_devices_available(struct mg_check_run *c)
{
    c->plan->n_mesh = c->plan->n_devices;
    if (!c->spec->has_devices)
        return 1;
    if (c->spec->devices > c->plan->n_devices) {
        mg_error(c->diags, MG_CHK_DEVICES_AVAILABLE, c->spec->devices_at,
                 "'devices' asks for %lld %s devices but the inventory has %lld",
                 (long long)c->spec->devices, mg_kind_name(c->plan->kind),
                 (long long)c->plan->n_devices);
        return 0;
    }
    c->plan->n_mesh = (int)c->spec->devices;
    return 1;
}

struct mg_gsort {
    const char *key;
    int slice; /* the key is a slice's name, not a host's */
    int first_host;
    /* Process order: the granule's first host with devices of the kind,
     * n_hosts + first_host when it has none (such a granule is no process,
     * and goes after every granule that is). */
    int order;
};

/* Host names before slice names, then byte order of keys, then host: for
 * finding the distinct keys. A host without a slice is a granule of its
 * own even where a slice has its name (`slice: login1` beside the host
 * login1), so the two kinds of key never compare equal. */
static int mg_hsort_cmp(const void *a, const void *b)
{
    const struct mg_gsort *x = a, *y = b;
    int r = x->slice != y->slice ? x->slice - y->slice : strcmp(x->key, y->key);
    return r ? r : (x->first_host > y->first_host) - (x->first_host < y->first_host);
}

/* Process order: a granule is known by its first host with devices, that
 * is its first process (JAX keys granules by process_index or slice_index,
 * and a slice's index follows its first process). */
static int mg_gsort_first_cmp(const void *a, const void *b)
{
    const struct mg_gsort *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

/* A host's granule key: its slice's name with `granule: slice` where it
 * has one (*slice set), else its own name. */
static const char *mg_granule_key(const struct mg_check_run *c, int h, int *slice)
{
    const struct mg_host *host = &c->inv->hosts[h];
    *slice = c->plan->granule == MG_GRANULE_SLICE && host->slice;
    return *slice ? host->slice : host->name;
}

/* The granule of every host, numbered in process order (the order of each
 * granule's first host), and each granule's hosts, devices and devices the
 * mesh uses: `devices: N` takes device ids 0..N-1, which follow process
 * order (JAX's devices[:N]). */
static void mg_granules_build(struct mg_check_run *c, struct mg_gsort *gs)
{
    const struct mg_inventory *inv = c->inv;
    size_t n_hosts = (size_t)inv->n_hosts;
    struct mg_gsort *hk = mg_alloc_array(c->arena, n_hosts, sizeof *hk);
    int *rank = mg_alloc_array(c->arena, n_hosts, sizeof(int));
    int *next = mg_alloc_array(c->arena, n_hosts + 1, sizeof(int));
    int64_t left = c->plan->n_mesh;
    int n = 0, h, g;

    c->plan->host_granule = mg_alloc_array(c->arena, n_hosts, sizeof(int));
    /* Distinct keys by sorting, as a search per host would be quadratic and
     * an inventory may hold MG_MAX_HOSTS hosts, each its own granule. With
     * ties broken by host, each key's first pair is its first host. */
    for (h = 0; h < inv->n_hosts; h++) {
        hk[h].key = mg_granule_key(c, h, &hk[h].slice);
        hk[h].first_host = h;
        hk[h].order = mg_host_devices(c, h) > 0 ? h : inv->n_hosts + h;
    }
    mg_sort_unless_sorted(hk, n_hosts, sizeof *hk, mg_hsort_cmp);
    for (h = 0; h < inv->n_hosts; h++) {
        if (h == 0 || hk[h].slice != hk[h - 1].slice || strcmp(hk[h].key, hk[h - 1].key) != 0)
            gs[n++] = hk[h];
        else if (hk[h].order < gs[n - 1].order)
            gs[n - 1].order = hk[h].order;
        c->plan->host_granule[hk[h].first_host] = n - 1;
    }
    /* rank maps the granules' indices so far to their process order. */
    mg_sort_unless_sorted(gs, (size_t)n, sizeof *gs, mg_gsort_first_cmp);
    for (g = 0; g < n; g++)
        rank[c->plan->host_granule[gs[g].first_host]] = g;

    c->plan->n_granules_all = n;
    c->plan->granules = mg_alloc_array(c->arena, (size_t)n, sizeof *c->plan->granules);
    c->plan->granule_hosts = mg_alloc_array(c->arena, n_hosts, sizeof(int));
    for (h = 0; h < inv->n_hosts; h++) {
        int nd = mg_host_devices(c, h), used = left < nd ? (int)left : nd;
        g = c->plan->host_granule[h] = rank[c->plan->host_granule[h]];
        c->plan->granules[g].key = gs[g].key;
        c->plan->granules[g].slice = gs[g].slice;
        c->plan->granules[g].n_hosts++;
        c->plan->granules[g].n_devices += nd;
        c->plan->granules[g].n_used += used;
        left -= used;
    }
    /* Granule-major, each granule's hosts in process order. */
    for (g = 0; g < n; g++)
        next[g + 1] = next[g] + c->plan->granules[g].n_hosts;
    for (h = 0; h < inv->n_hosts; h++)
        c->plan->granule_hosts[next[c->plan->host_granule[h]]++] = h;
    /* The used hosts are a prefix of the hosts with devices, so the used
     * granules are a prefix of the granules (those without devices last). */
    c->plan->n_granules = 0;
    while (c->plan->n_granules < n && c->plan->granules[c->plan->n_granules].n_used > 0)
        c->plan->n_granules++;
}

/* What a granule is, for messages: "slice 'x'" and "host 'x'" differ where
 * a slice has a host's name. */
static const char *mg_granule_kind(const struct mg_granule_info *g)
{
    return g->slice ? "slice" : "host";
}

/* Groups hosts into granules in process order and requires every granule
 * the mesh uses to hold the same number of devices (those past `devices:
 * N` are not checked). */
static int check_granules_homogeneous(struct mg_check_run *c)
{
    const struct mg_inventory *inv = c->inv;
    const struct mg_granule_info *gr;
    struct mg_gsort *gs = mg_alloc_array(c->arena, (size_t)inv->n_hosts, sizeof *gs);
    int g;

    mg_granules_build(c, gs);
    gr = c->plan->granules;
    for (g = 1; g < c->plan->n_granules; g++) {
        if (gr[g].n_devices != gr[0].n_devices) {
            mg_error_rel(c->diags, MG_CHK_GRANULES_HOMOGENEOUS, inv->hosts[gs[g].first_host].at,
                         inv->hosts[gs[0].first_host].at, "the first granule is here",
                         "%s '%s' has %d %s devices but %s '%s' has %d; every granule of a "
                         "hybrid mesh must hold the same number",
                         mg_granule_kind(&gr[g]), gr[g].key, gr[g].n_devices,
                         mg_kind_name(c->plan->kind), mg_granule_kind(&gr[0]), gr[0].key,
                         gr[0].n_devices);
            return 0;
        }
    }
    return 1;
}

/* `devices: N` takes the first N devices in process order; every granule
 * they reach must give the mesh the same number: whole granules, or part of
 * the first one. */
static int check_devices_granules(struct mg_check_run *c)
{
    const struct mg_granule_info *gr = c->plan->granules;
    int g;

    c->plan->per_granule = gr[0].n_used;
    for (g = 1; g < c->plan->n_granules; g++) {
        if (gr[g].n_used != gr[0].n_used) {
            mg_error(c->diags, MG_CHK_DEVICES_GRANULES, c->spec->devices_at,
                     "'devices: %lld' takes the first %lld %s devices in process order: %d of "
                     "%s '%s' but %d of %s '%s'; the mesh must take the same number of each "
                     "granule it uses (a multiple of %d, or at most %d)",
                     (long long)c->plan->n_mesh, (long long)c->plan->n_mesh,
                     mg_kind_name(c->plan->kind), gr[0].n_used, mg_granule_kind(&gr[0]), gr[0].key,
                     gr[g].n_used, mg_granule_kind(&gr[g]), gr[g].key, gr[0].n_devices,
                     gr[0].n_devices);
            return 0;
        }
    }
    return c->plan->per_granule > 0;
}

static int check_shape_divides(struct mg_check_run *c)
{
    const struct mg_spec *s = c->spec;
    int64_t prod = 1;
    int i, infer = -1;

    for (i = 0; i < s->n_axes; i++) {
        if (s->axes[i].size == -1) {
            infer = i;
            continue;
        }
        /* Larger than any inventory: saturated, and the loop goes on to
         * find a -1 after this axis. */
        if (!mg_mul_size(prod, s->axes[i].size, &prod) || prod > MG_MAX_DEVICES)
            prod = INT64_MAX;
    }
    for (i = 0; i < s->n_axes; i++)
        c->plan->size[i] = s->axes[i].size;
    if (infer < 0)
        return 1;
    if (prod == INT64_MAX || c->plan->n_mesh % prod != 0) {
        if (prod == INT64_MAX)
            mg_error(c->diags, MG_CHK_SHAPE_DIVIDES, s->axes[infer].size_at,
                     "cannot infer the size of axis '%s': the other axes alone need more than "
                     "%d devices",
                     s->axes[infer].name, MG_MAX_DEVICES);
        else
            mg_error(c->diags, MG_CHK_SHAPE_DIVIDES, s->axes[infer].size_at,
                     "cannot infer the size of axis '%s': %lld devices are not divisible by "
                     "%lld, the product of the other axes",
                     s->axes[infer].name, (long long)c->plan->n_mesh, (long long)prod);
        return 0;
    }
    c->plan->size[infer] = c->plan->n_mesh / prod;
    return 1;
}

static void mg_describe_shape(struct mg_buf *b, const struct mg_check_run *c, const int64_t *v)
{
    int i;
    mg_buf_puts(b, "(");
    for (i = 0; i < c->spec->n_axes; i++)
        mg_buf_printf(b, "%s%s=%lld", i ? ", " : "", c->spec->axes[i].name, (long long)v[i]);
    mg_buf_puts(b, ")");
}

static int check_shape_devices(struct mg_check_run *c)
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
    mg_describe_shape(&b, c, c->plan->size);
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

static const char *mg_granule_word(const struct mg_check_run *c)
{
    return c->plan->granule == MG_GRANULE_SLICE ? "granules are slices" : "granules are hosts";
}

static int check_dcn_granules(struct mg_check_run *c)
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

static int check_dcn_divides(struct mg_check_run *c)
{
    int i, ok = 1;
    if (!c->spec->has_dcn)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        c->plan->dcn[i] = c->spec->axes[i].dcn;
        if (c->plan->size[i] % c->plan->dcn[i] != 0) {
            mg_error(c->diags, MG_CHK_DCN_DIVIDES, c->spec->axes[i].dcn_at,
                     "axis '%s' has size %lld, which dcn %lld does not divide",
                     c->spec->axes[i].name, (long long)c->plan->size[i],
                     (long long)c->plan->dcn[i]);
            ok = 0;
            continue;
        }
        c->plan->ici[i] = c->plan->size[i] / c->plan->dcn[i];
    }
    return ok;
}

static int check_ici_devices(struct mg_check_run *c)
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
    mg_describe_shape(&b, c, c->plan->ici);
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

/* eformer's create_mesh for several slices: all the slices go on the
 * first axis whose size the slice count divides. Returns 0 when none. */
static int mg_dcn_infer_slices(struct mg_check_run *c)
{
    int64_t g = c->plan->n_granules;
    int i, axis = -1;
    struct mg_buf b;

    for (i = 0; i < c->spec->n_axes; i++) {
        if (axis < 0 && c->plan->size[i] % g == 0)
            axis = i;
        c->plan->dcn[i] = 1;
        c->plan->ici[i] = c->plan->size[i];
    }
    if (axis >= 0) {
        c->plan->dcn[axis] = g;
        c->plan->ici[axis] = c->plan->size[axis] / g;
        return 1;
    }
    mg_buf_init(&b);
    mg_describe_shape(&b, c, c->plan->size);
    mg_error(c->diags, MG_CHK_DCN_INFER, c->spec->shape_at,
             "cannot split the shape %s over %lld slices: the slices go on the first axis "
             "their count divides (eformer's create_mesh), and none is; give 'dcn' explicitly",
             b.data, (long long)g);
    mg_buf_free(&b);
    return 0;
}

/* The error of the host walk: which axis did not split, or what the
 * split it gave holds; never a placeholder number. */
static void mg_dcn_infer_error(struct mg_check_run *c, int bad, int64_t bad_granules)
{
    int64_t iprod = 1, dprod = 1;
    int i;
    struct mg_buf b;

    mg_buf_init(&b);
    if (bad >= 0) {
        mg_describe_shape(&b, c, c->plan->size);
        mg_error(c->diags, MG_CHK_DCN_INFER, c->spec->shape_at,
                 "cannot split the shape %s over %d granules of %lld devices by eformer's "
                 "calculate_host_mesh_shape: axis '%s' (size %lld) takes the %lld granules "
                 "left, which do not divide it; give 'dcn' explicitly",
                 b.data, c->plan->n_granules, (long long)c->plan->per_granule,
                 c->spec->axes[bad].name, (long long)c->plan->size[bad], (long long)bad_granules);
    } else {
        for (i = 0; i < c->spec->n_axes; i++) {
            mg_mul_size(iprod, c->plan->ici[i], &iprod);
            mg_mul_size(dprod, c->plan->dcn[i], &dprod);
        }
        mg_describe_shape(&b, c, c->plan->ici);
        mg_error(c->diags, MG_CHK_DCN_INFER, c->spec->shape_at,
                 "cannot split the shape over %d granules of %lld devices by eformer's "
                 "calculate_host_mesh_shape: it gives the per-granule shape %s, %lld devices "
                 "over %lld granules; give 'dcn' explicitly",
                 c->plan->n_granules, (long long)c->plan->per_granule, b.data, (long long)iprod,
                 (long long)dprod);
    }
    mg_buf_free(&b);
}

/* Without `dcn`: for slices, eformer's multi-slice rule; for hosts, its
 * calculate_host_mesh_shape: walk the axes outermost first and give each
 * the largest share of the granules it can take. */
static int check_dcn_infer(struct mg_check_run *c)
{
    int64_t g = c->plan->n_granules, iprod = 1, dprod = 1;
    int i, bad = -1;
    int64_t bad_granules = 0;

    if (c->spec->has_dcn)
        return 1;
    if (c->plan->granule == MG_GRANULE_SLICE)
        return mg_dcn_infer_slices(c);
    for (i = 0; i < c->spec->n_axes; i++) {
        int64_t size = c->plan->size[i], host = size;
        if (g > 1) {
            if (size >= g) {
                if (bad < 0 && size % g != 0) {
                    bad = i;
                    bad_granules = g;
                }
                host = size / g;
                g = 1;
            } else {
                g /= size;
                host = 1;
            }
        }
        c->plan->ici[i] = host;
        c->plan->dcn[i] = size / host;
        mg_mul_size(iprod, host, &iprod);
        mg_mul_size(dprod, c->plan->dcn[i], &dprod);
    }
    if (bad < 0 && iprod == c->plan->per_granule && dprod == c->plan->n_granules)
        return 1;
    mg_dcn_infer_error(c, bad, bad_granules);
    return 0;
}

static int check_sharding_divides(struct mg_check_run *c)
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
                         "sharding '%s': dimension %d of size %lld is not divisible by its "
                         "%lld shards",
                         sh->name, d, (long long)sh->shape[d], (long long)shards);
                ok = 0;
            }
        }
    }
    return ok;
}

/* ---- TPU: the torus assignment (docs/tpu.md §3) ------------------------------------- */

/* The devices the mesh uses, granule by granule, as the TPU module takes
 * them: devs[i] in JAX's device order with its granule as both slice and
 * process key, ids[i] its device id. Returns how many. */
static int mg_tpu_devices(const struct mg_check_run *c, struct mg_tpu_device *devs, int *ids)
{
    const struct mg_plan *p = c->plan;
    const struct mg_inventory *inv = c->inv;
    int *first = mg_alloc_array(c->arena, (size_t)inv->n_hosts + 1, sizeof(int));
    int *taken = mg_alloc_array(c->arena, (size_t)p->n_granules, sizeof(int));
    int h, k, j, n = 0;

    for (h = 0; h < inv->n_hosts; h++)
        first[h + 1] = first[h] + inv->topologies[inv->hosts[h].topology].n[p->kind];
    for (k = 0; k < inv->n_hosts; k++) {
        const struct mg_topology *t;
        int g;
        h = p->granule_hosts[k];
        g = p->host_granule[h];
        if (g >= p->n_granules)
            break;
        t = &inv->topologies[inv->hosts[h].topology];
        for (j = 0; j < t->n[p->kind] && taken[g] < p->per_granule; j++, taken[g]++, n++) {
            const struct mg_devinfo *dv = &t->devs[p->kind][j];
            devs[n].id = n;
            memcpy(devs[n].coords, dv->coords, sizeof devs[n].coords);
            devs[n].core_on_chip = dv->core_on_chip;
            devs[n].host = h;
            devs[n].process = devs[n].slice = g;
            ids[n] = first[h] + j;
        }
    }
    return n;
}

/* The family of the mesh's slices, or NULL after reporting two. */
static const struct mg_tpu_family *mg_tpu_mesh_family(struct mg_check_run *c)
{
    const struct mg_inventory *inv = c->inv;
    const struct mg_tpu_family *f = NULL;
    int k, first = -1;

    for (k = 0; k < inv->n_hosts; k++) {
        int h = c->plan->granule_hosts[k];
        const struct mg_topology *t = &inv->topologies[inv->hosts[h].topology];
        if (c->plan->host_granule[h] >= c->plan->n_granules || !t->tpu)
            continue;
        if (f && t->tpu != f) {
            mg_error_rel(c->diags, MG_CHK_TPU_ASSIGNMENT, inv->hosts[h].at, inv->hosts[first].at,
                         "the first slice is here",
                         "the mesh spans a %s slice and a %s slice; JAX builds a mesh over "
                         "devices of one kind",
                         f->name, t->tpu->name);
            return NULL;
        }
        f = t->tpu;
        first = first < 0 ? h : first;
    }
    return f;
}

/* order: torus: create_device_mesh over the one granule, or
 * create_hybrid_device_mesh over several; where JAX raises, its reason.
 * The assignment goes into the model, for the planner. */
static int check_tpu_assignment(struct mg_check_run *c)
{
    struct mg_plan *p = c->plan;
    const struct mg_tpu_family *f;
    struct mg_tpu_device *devs;
    struct mg_tpu_request q;
    struct mg_tpu_result *r;
    int *ids, f_i, rc;

    if (p->order != MG_ORDER_TORUS)
        return 1;
    f = mg_tpu_mesh_family(c);
    if (!f)
        return 0;
    devs = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof *devs);
    ids = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof(int));
    memset(&q, 0, sizeof q);
    q.device_kind = f->device_kind;
    q.devices = devs;
    q.n_devices = mg_tpu_devices(c, devs, ids);
    q.n_axes = p->n_axes;
    q.shape = p->n_granules == 1 ? p->size : p->ici;
    q.dcn = p->dcn;
    q.allow_split_physical_axes = c->spec->allow_split_physical_axes;
    q.contiguous_submeshes = c->spec->contiguous_submeshes;
    q.process_is_granule = p->granule == MG_GRANULE_HOST;
    /* The granules' keys are their DCN order already. */
    q.sort_granules = true;
    r = mg_alloc(c->arena, sizeof *r);
    r->perm = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof(int32_t));
    if (p->n_granules > 1 && q.contiguous_submeshes) {
        mg_error(c->diags, MG_CHK_TPU_ASSIGNMENT, c->spec->contiguous_at,
                 "'contiguous_submeshes' is an option of create_device_mesh over one slice; the "
                 "mesh spans %d granules, which create_hybrid_device_mesh assigns without it",
                 p->n_granules);
        return 0;
    }
    rc = p->n_granules == 1 ? mg_tpu_create_device_mesh(&q, r)
                            : mg_tpu_create_hybrid_device_mesh(&q, r);
    if (rc != 0) {
        mg_error(c->diags, MG_CHK_TPU_ASSIGNMENT,
                 q.contiguous_submeshes ? c->spec->contiguous_at : c->spec->shape_at,
                 "order: torus: %s", r->reason);
        return 0;
    }
    p->torus = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof(int));
    for (f_i = 0; f_i < p->n_mesh; f_i++)
        p->torus[f_i] = ids[r->perm[f_i]];
    p->tpu = r;
    return 1;
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
        int dev = p->process_devices[pr->first + j];
        int stage = mg_stage_of(p, p->device_index[dev]);
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
static int check_mpmd_process(struct mg_check_run *c)
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
    what = mg_printf(c->arena, "process %d on host '%s'", first,
                     c->inv->hosts[p->processes[first].host].name);
    mg_error(c->diags, MG_CHK_MPMD_PROCESS, c->spec->mpmd_at,
             "%s hold%s devices in two MPMD stages%s device %d in stage %d and device %d in "
             "stage %d%s; each process must run one stage (make '%s' an outer, DCN axis, or use "
             "'processes: device')",
             n_bad > 1 ? mg_printf(c->arena, "%d of %d processes", n_bad, p->n_processes) : what,
             n_bad > 1 ? "" : "s", n_bad > 1 ? mg_printf(c->arena, " (the first, %s:", what) : ":",
             dev_a, st_a, dev_b, st_b, n_bad > 1 ? ")" : "", c->spec->mpmd);
    return 0;
}

/* ---- the table ------------------------------------------------------------------------ */

typedef int (*mg_check_fn)(struct mg_check_run *);

/* The function of each check a phase runs, by id: designated, so the
 * order cannot drift from checks.def, which holds everything else (phase,
 * prerequisites). Checks of MG_PHASE_LOAD have none: the readers report
 * them. */
static const mg_check_fn mg_check_fns[MG_CHK__COUNT] = {
    [MG_CHK_NAME_IDENTIFIER] = check_name_identifier,
    [MG_CHK_AXIS_COUNT] = check_axis_count,
    [MG_CHK_AXIS_NAME_IDENTIFIER] = check_axis_name_identifier,
    [MG_CHK_AXIS_NAME_KEYWORD] = check_axis_name_keyword,
    [MG_CHK_AXIS_NAME_LENGTH] = check_axis_name_length,
    [MG_CHK_AXIS_NAME_UNIQUE] = check_axis_name_unique,
    [MG_CHK_SHAPE_LENGTH] = check_shape_length,
    [MG_CHK_DCN_LENGTH] = check_dcn_length,
    [MG_CHK_TYPES_LENGTH] = check_types_length,
    [MG_CHK_SHAPE_POSITIVE] = check_shape_positive,
    [MG_CHK_SHAPE_INFER] = check_shape_infer,
    [MG_CHK_DCN_POSITIVE] = check_dcn_positive,
    [MG_CHK_MPMD_AXIS] = check_mpmd_axis,
    [MG_CHK_DEVICES_POSITIVE] = check_devices_positive,
    [MG_CHK_SHARDING_NAME] = check_sharding_name,
    [MG_CHK_SHARDING_AXIS] = check_sharding_axis,
    [MG_CHK_SHARDING_AXIS_UNIQUE] = check_sharding_axis_unique,
    [MG_CHK_SHARDING_MPMD] = check_sharding_mpmd,
    [MG_CHK_SHARDING_RANK] = check_sharding_rank,
    [MG_CHK_SHARDING_SHAPE_POSITIVE] = check_sharding_shape_positive,

    [MG_CHK_DEVICE_KIND_AVAILABLE] = check_device_kind_available,
    [MG_CHK_ORDER_TORUS] = check_order_torus,
    [MG_CHK_DEVICES_AVAILABLE] = check_devices_available,
    [MG_CHK_GRANULES_HOMOGENEOUS] = check_granules_homogeneous,
    [MG_CHK_DEVICES_GRANULES] = check_devices_granules,
    [MG_CHK_SHAPE_DIVIDES] = check_shape_divides,
    [MG_CHK_SHAPE_DEVICES] = check_shape_devices,
    [MG_CHK_DCN_GRANULES] = check_dcn_granules,
    [MG_CHK_DCN_DIVIDES] = check_dcn_divides,
    [MG_CHK_ICI_DEVICES] = check_ici_devices,
    [MG_CHK_DCN_INFER] = check_dcn_infer,
    [MG_CHK_SHARDING_DIVIDES] = check_sharding_divides,
    [MG_CHK_TPU_ASSIGNMENT] = check_tpu_assignment,

    [MG_CHK_MPMD_PROCESS] = check_mpmd_process,
};

/* What a run knows of each check. */
enum mg_check_state {
    MG_CHECK_NOT_RUN, /* zero: not yet */
    MG_CHECK_RUNNING, /* its prerequisites are being resolved */
    MG_CHECK_PASSED,
    MG_CHECK_FAILED /* failed, or skipped for a prerequisite */
};

struct mg_check_run *mg_checks_new(struct mg_arena *a, struct mg_diags *d,
                                   const struct mg_spec *spec, const struct mg_inventory *inv,
                                   struct mg_plan *plan)
{
    struct mg_check_run *c = mg_alloc(a, sizeof *c);

    c->arena = a;
    c->diags = d;
    c->spec = spec;
    c->inv = inv;
    c->plan = plan;
    c->state = mg_alloc(a, MG_CHK__COUNT);
    return c;
}

/* Runs check id of the phase now running after its prerequisites, which
 * it runs first if they belong to this phase and have not run yet, so the
 * order of checks.def does not matter. A prerequisite of an earlier phase
 * that did not pass, of a later phase, of the readers (which no run
 * records) or on a cycle skips the check; the registry test rules those
 * out. Returns 1 if the check passed. */
static int mg_check_resolve(struct mg_check_run *c, enum mg_check_id id, enum mg_phase phase)
{
    const struct mg_check_info *info = mg_check_info(id);
    int k, ready = 1;

    if (c->state[id] != MG_CHECK_NOT_RUN)
        return c->state[id] == MG_CHECK_PASSED;
    if (info->phase != phase || !mg_check_fns[id])
        return 0;
    c->state[id] = MG_CHECK_RUNNING;
    for (k = 0; k < info->n_prereqs; k++)
        if (!mg_check_resolve(c, info->prereqs[k], phase))
            ready = 0;
    c->state[id] = ready && mg_check_fns[id](c) ? MG_CHECK_PASSED : MG_CHECK_FAILED;
    return c->state[id] == MG_CHECK_PASSED;
}

int mg_checks_run(struct mg_check_run *c, enum mg_phase phase)
{
    int before = c->diags->n_errors, i;

    for (i = 0; i < MG_CHK__COUNT; i++)
        if (mg_check_info((enum mg_check_id)i)->phase == phase)
            mg_check_resolve(c, (enum mg_check_id)i, phase);
    return c->diags->n_errors - before;
}
