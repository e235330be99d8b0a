/*
 * The resolver: the decisions of the compile stage, one function per
 * MG_RESOLVE row of checks.def, each named for what it decides. From the
 * spec and the inventory it settles the MPMD axis, the device kind (and
 * the kind's defaults), the devices the mesh takes, the granules in
 * process order, the size of a -1 axis, the ICI x DCN split (given or
 * inferred) and, for `order: torus`, JAX's whole TPU assignment (through
 * tpu.c), and writes them into the model, struct mg_plan.
 *
 * A decision that cannot be made reports why under its row's check name
 * and returns 0, so the rows after it are skipped. Judging what was
 * decided (does the shape fill the devices, is every granule alike) is
 * check.c's; placing devices is plan.c's; this file calls neither, and
 * compile.c runs the rows.
 */
#include "rows.h"
#include "diag.h"
#include "mesh_math.h"

#include <string.h>

static int mg_has(struct mg_mark m)
{
    return m.line > 0;
}

/* The devices of the chosen kind on a host. */
static int mg_host_devices(const struct mg_resolve_ctx *c, int host)
{
    return c->inv->topologies[c->inv->hosts[host].topology].n[c->plan->kind];
}

/* ---- the spec alone ---------------------------------------------------------------- */

/* The axis that `mpmd` names. */
static int resolve_mpmd_axis(const struct mg_resolve_ctx *c)
{
    int i;

    c->plan->mpmd_axis = -1;
    if (!c->spec->mpmd)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        if (c->spec->axes[i].name && strcmp(c->spec->axes[i].name, c->spec->mpmd) == 0) {
            c->plan->mpmd_axis = i;
            return 1;
        }
    }
    mg_error(c->diags, MG_CHK_MPMD_AXIS, c->spec->mpmd_at,
             "'mpmd' names axis %s, which is not in 'axes'%s", mg_show(c->arena, c->spec->mpmd),
             mg_suggest_axis(c->arena, c->spec, c->spec->mpmd));
    return 0;
}

/* ---- the spec against the inventory ---------------------------------------------- */

/* The kind's defaults for what the spec leaves out: a TPU mesh is ordered
 * as JAX orders it, and its granules are slices (docs/tpu.md). */
static void mg_kind_defaults(const struct mg_resolve_ctx *c)
{
    int tpu = c->plan->kind == MG_KIND_TPU;

    c->plan->order = tpu && !c->spec->has_order ? MG_ORDER_TORUS : c->spec->order;
    c->plan->granule = tpu && !c->spec->has_granule ? MG_GRANULE_SLICE : c->spec->granule;
}

/* The device kind: the spec's, else the inventory's TPUs, else its GPUs,
 * else its cores; and how many of them the inventory holds. */
static int resolve_device_kind(const struct mg_resolve_ctx *c)
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
             "the inventory %s has no %s devices (it has %lld gpu, %lld core, %lld numa, "
             "%lld package, %lld pu%s)",
             mg_show_path(c->arena, inv->source), mg_kind_name(c->plan->kind), (long long)n[0],
             (long long)n[1], (long long)n[2], (long long)n[3], (long long)n[4],
             n[MG_KIND_TPU] ? mg_printf(c->arena, ", %lld tpu", (long long)n[MG_KIND_TPU]) : "");
    return 0;
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
static const char *mg_granule_key(const struct mg_resolve_ctx *c, int h, int *slice)
{
    const struct mg_host *host = &c->inv->hosts[h];
    *slice = c->plan->granule == MG_GRANULE_SLICE && host->slice;
    return *slice ? host->slice : host->name;
}

/* The granule of every host, numbered in process order (the order of each
 * granule's first host), and each granule's hosts, devices and devices the
 * mesh uses: `devices: N` takes device ids 0..N-1, which follow process
 * order (JAX's devices[:N]). */
static void mg_granules_number(const struct mg_resolve_ctx *c, struct mg_arena *scratch)
{
    const struct mg_inventory *inv = c->inv;
    size_t n_hosts = (size_t)inv->n_hosts;
    struct mg_gsort *hk = mg_alloc_array(scratch, n_hosts, sizeof *hk);
    struct mg_gsort *gs = mg_alloc_array(scratch, n_hosts, sizeof *gs);
    int *rank = mg_alloc_array(scratch, n_hosts, sizeof(int));
    int *next = mg_alloc_array(scratch, n_hosts + 1, sizeof(int));
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
    /* What the first granule gives; devices-granules holds the others to
     * it. */
    c->plan->per_granule = c->plan->granules[0].n_used;
}

/* The same, with its sort keys and ranks in an arena of their own, dropped
 * as soon as the granules are numbered: they are 56 bytes per host that
 * nothing after this reads, and resolve's memory per device is a target
 * (docs/architecture.md, "Where memory comes from"). */
static void mg_granules_build(const struct mg_resolve_ctx *c)
{
    struct mg_arena scratch;

    mg_arena_init(&scratch);
    mg_granules_number(c, &scratch);
    mg_arena_free(&scratch);
}

/* The devices the mesh takes: every device of the kind, or the first N in
 * process order for `devices: N`; and so the granules, in process order,
 * and how many devices of each the mesh takes. */
static int resolve_devices_taken(const struct mg_resolve_ctx *c)
{
    c->plan->n_mesh = c->plan->n_devices;
    if (c->spec->has_devices && c->spec->devices > c->plan->n_devices) {
        mg_error(c->diags, MG_CHK_DEVICES_AVAILABLE, c->spec->devices_at,
                 "'devices' asks for %lld %s devices but the inventory has %lld",
                 (long long)c->spec->devices, mg_kind_name(c->plan->kind),
                 (long long)c->plan->n_devices);
        return 0;
    }
    if (c->spec->has_devices)
        c->plan->n_mesh = (int)c->spec->devices;
    mg_granules_build(c);
    return 1;
}

/* The axis sizes: the spec's, and the size of a -1 axis, the devices the
 * other axes leave. */
static int resolve_axis_sizes(const struct mg_resolve_ctx *c)
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
                     "cannot infer the size of axis %s: the other axes alone need more than "
                     "%d devices",
                     mg_show(c->arena, s->axes[infer].name), MG_MAX_DEVICES);
        else
            mg_error(c->diags, MG_CHK_SHAPE_DIVIDES, s->axes[infer].size_at,
                     "cannot infer the size of axis %s: %lld devices are not divisible by "
                     "%lld, the product of the other axes",
                     mg_show(c->arena, s->axes[infer].name), (long long)c->plan->n_mesh,
                     (long long)prod);
        return 0;
    }
    c->plan->size[infer] = c->plan->n_mesh / prod;
    return 1;
}

/* The ICI x DCN split of each axis, with `dcn` given: size / dcn inside a
 * granule, dcn across granules. */
static int resolve_dcn_split(const struct mg_resolve_ctx *c)
{
    int i, ok = 1;
    if (!c->spec->has_dcn)
        return 1;
    for (i = 0; i < c->spec->n_axes; i++) {
        c->plan->dcn[i] = c->spec->axes[i].dcn;
        if (c->plan->size[i] % c->plan->dcn[i] != 0) {
            mg_error(c->diags, MG_CHK_DCN_DIVIDES, c->spec->axes[i].dcn_at,
                     "axis %s has size %lld, which dcn %lld does not divide",
                     mg_show(c->arena, c->spec->axes[i].name), (long long)c->plan->size[i],
                     (long long)c->plan->dcn[i]);
            ok = 0;
            continue;
        }
        c->plan->ici[i] = c->plan->size[i] / c->plan->dcn[i];
    }
    return ok;
}

/* eformer's create_mesh for several slices: all the slices go on the
 * first axis whose size the slice count divides. Returns 0 when none. */
static int mg_dcn_infer_slices(const struct mg_resolve_ctx *c)
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
    mg_describe_shape(&b, c->spec, c->plan->size);
    mg_error(c->diags, MG_CHK_DCN_INFER, c->spec->shape_at,
             "cannot split the shape %s over %lld slices: the slices go on the first axis "
             "their count divides (eformer's create_mesh), and none is; give 'dcn' explicitly",
             b.data, (long long)g);
    mg_buf_free(&b);
    return 0;
}

/* The error of the host walk: which axis did not split, or what the
 * split it gave holds; never a placeholder number. */
static void mg_dcn_infer_error(const struct mg_resolve_ctx *c, int bad, int64_t bad_granules)
{
    int64_t iprod = 1, dprod = 1;
    int i;
    struct mg_buf b;

    mg_buf_init(&b);
    if (bad >= 0) {
        mg_describe_shape(&b, c->spec, c->plan->size);
        mg_error(c->diags, MG_CHK_DCN_INFER, c->spec->shape_at,
                 "cannot split the shape %s over %d granules of %lld devices by eformer's "
                 "calculate_host_mesh_shape: axis %s (size %lld) takes the %lld granules "
                 "left, which do not divide it; give 'dcn' explicitly",
                 b.data, c->plan->n_granules, (long long)c->plan->per_granule,
                 mg_show(c->arena, c->spec->axes[bad].name), (long long)c->plan->size[bad],
                 (long long)bad_granules);
    } else {
        for (i = 0; i < c->spec->n_axes; i++) {
            mg_mul_size(iprod, c->plan->ici[i], &iprod);
            mg_mul_size(dprod, c->plan->dcn[i], &dprod);
        }
        mg_describe_shape(&b, c->spec, c->plan->ici);
        mg_error(c->diags, MG_CHK_DCN_INFER, c->spec->shape_at,
                 "cannot split the shape over %d granules of %lld devices by eformer's "
                 "calculate_host_mesh_shape: it gives the per-granule shape %s, %lld devices "
                 "over %lld granules; give 'dcn' explicitly",
                 c->plan->n_granules, (long long)c->plan->per_granule, b.data, (long long)iprod,
                 (long long)dprod);
    }
    mg_buf_free(&b);
}

/* The ICI x DCN split without `dcn`: for slices, eformer's multi-slice
 * rule; for hosts, its calculate_host_mesh_shape: walk the axes outermost
 * first and give each the largest share of the granules it can take. */
static int resolve_dcn_inferred(const struct mg_resolve_ctx *c)
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

/* ---- TPU: the torus assignment (docs/tpu.md §3) ------------------------------------- */

/* The devices the mesh uses, granule by granule, as the TPU module takes
 * them: devs[i] in JAX's device order with its granule as both slice and
 * process key, ids[i] its device id. Returns how many. */
static int mg_tpu_devices(const struct mg_resolve_ctx *c, struct mg_tpu_device *devs, int *ids)
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
static const struct mg_tpu_family *mg_tpu_mesh_family(const struct mg_resolve_ctx *c)
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

/* JAX's TPU assignment, for order: torus: create_device_mesh over the one
 * granule, or create_hybrid_device_mesh over several; where JAX raises,
 * its reason. The assignment goes into the model, for the planner. */
static int resolve_tpu_assignment(const struct mg_resolve_ctx *c)
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

/* ---- the rows -------------------------------------------------------------------------- */

int mg_resolve_row(const struct mg_resolve_ctx *c, enum mg_check_id id)
{
    switch (id) {
#define MG_REPORT(id, name, severity, doc)
#define MG_CHECK(id, name, phase, severity, doc, prereqs, function)
#define MG_RESOLVE(id, name, phase, severity, doc, prereqs, function)                              \
    case id:                                                                                       \
        return function(c);
#include "checks.def"
#undef MG_REPORT
#undef MG_CHECK
#undef MG_RESOLVE
    default: return -1;
    }
}
