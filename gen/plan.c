/*
 * The planner: runs the named checks, then builds the one permutation
 * everything else derives from (mesh flat index -> device id), the process
 * table, the sharding constants and the digest.
 *
 * Placement follows create_hybrid_device_mesh: along every axis the DCN part
 * is the outer factor, so coordinate j of axis k lies in granule coordinate
 * j / ici[k] at local coordinate j % ici[k]. Inside a granule, the local
 * position is mapped to a device by the granule order (inventory or
 * locality, see locality.c). This file knows nothing of YAML, hwloc or C
 * syntax.
 */
#include "check.h"
#include "locality.h"

#include <string.h>

static void mg_plan_devices(struct mg_ctx *c, struct mg_plan *p, int *host_first)
{
    const struct mg_inventory *inv = c->inv;
    int h, i, id = 0;

    p->n_devices = (int)c->total_devices;
    p->devices = mg_alloc_array(c->arena, (size_t)p->n_devices, sizeof *p->devices);
    for (h = 0; h < inv->n_hosts; h++) {
        int n = mg_host_devices(c, h);
        host_first[h] = id;
        for (i = 0; i < n; i++, id++) {
            p->devices[id].host = h;
            p->devices[id].local = i;
        }
    }
}

/* Fills mesh[] (flat -> device) from the granules' device lists. */
static void mg_plan_assign(struct mg_ctx *c, struct mg_plan *p, const int *host_first)
{
    const struct mg_inventory *inv = c->inv;
    int per = (int)c->per_granule, g, k, i, f;
    int *gdev = mg_alloc_array(c->arena, (size_t)c->n_granules * (size_t)per, sizeof(int));
    int *order = mg_alloc_array(c->arena, (size_t)per, sizeof(int));
    int *tmp = mg_alloc_array(c->arena, (size_t)per, sizeof(int));
    /* A granule that is one whole host orders its devices as every other
     * whole host of its topology does (the order depends only on the
     * topology's closeness and the ICI shape), so a cluster of identical
     * hosts computes it once per topology, not once per host. */
    int **memo = mg_alloc_array(c->arena, (size_t)inv->n_topologies, sizeof(int *));
    int64_t *memo_inv = mg_alloc_array(c->arena, (size_t)inv->n_topologies, sizeof(int64_t));
    int64_t *memo_loc = mg_alloc_array(c->arena, (size_t)inv->n_topologies, sizeof(int64_t));

    p->score_inventory = 0;
    p->score = 0;

    /* Each used granule's devices: its hosts in inventory order, their
     * devices in host order, then reordered for locality. */
    for (g = 0, k = 0; g < c->n_granules; g++) {
        int n = 0, j, n_hosts = 0, topo = -1;
        int *dst = gdev + (size_t)g * (size_t)per;
        /* granule_order_hosts is granule-major: granule g's hosts follow
         * those of g - 1, so one pass over it serves every granule. */
        for (; k < inv->n_hosts && c->host_granule[c->granule_order_hosts[k]] == g; k++) {
            int h = c->granule_order_hosts[k];
            int nd = mg_host_devices(c, h);
            for (j = 0; j < nd && n < per; j++)
                dst[n++] = host_first[h] + j;
            n_hosts++;
            topo = nd == per ? inv->hosts[h].topology : -1;
        }
        if (n_hosts != 1)
            topo = -1;
        if (topo >= 0 && memo[topo]) {
            memcpy(order, memo[topo], (size_t)per * sizeof(int));
            p->score_inventory += memo_inv[topo];
            p->score += memo_loc[topo];
        } else {
            /* Both scores are kept so resolve and show can print them. */
            int64_t s_inv = mg_order_score(c, p, dst, per), s_loc = s_inv;
            for (j = 0; j < per; j++)
                order[j] = j;
            if (c->spec->order == MG_ORDER_LOCALITY) {
                mg_locality_order(c, p, dst, per, order);
                for (j = 0; j < per; j++)
                    tmp[j] = dst[order[j]];
                s_loc = mg_order_score(c, p, tmp, per);
            }
            p->score_inventory += s_inv;
            p->score += s_loc;
            if (topo >= 0) {
                memo[topo] = mg_alloc_array(c->arena, (size_t)per, sizeof(int));
                memcpy(memo[topo], order, (size_t)per * sizeof(int));
                memo_inv[topo] = s_inv;
                memo_loc[topo] = s_loc;
            }
        }
        for (j = 0; j < per; j++)
            tmp[j] = dst[order[j]];
        memcpy(dst, tmp, (size_t)per * sizeof(int));
    }

    p->n_mesh = (int)c->used_devices;
    p->mesh = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof(int));
    p->device_index = mg_alloc_array(c->arena, (size_t)p->n_devices, sizeof(int));
    for (i = 0; i < p->n_devices; i++)
        p->device_index[i] = -1;
    for (f = 0; f < p->n_mesh; f++) {
        int rest = f, granule = 0, local = 0, gm = 1, lm = 1;
        for (k = p->n_axes - 1; k >= 0; k--) {
            int coord = rest % (int)p->size[k];
            rest /= (int)p->size[k];
            granule += (coord / (int)p->ici[k]) * gm;
            local += (coord % (int)p->ici[k]) * lm;
            gm *= (int)p->dcn[k];
            lm *= (int)p->ici[k];
        }
        p->mesh[f] = gdev[(size_t)granule * (size_t)per + (size_t)local];
        p->device_index[p->mesh[f]] = f;
    }
}

static void mg_plan_processes(struct mg_ctx *c, struct mg_plan *p)
{
    int i, n = 0, np = 0;

    p->process_devices = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof(int));
    p->processes = mg_alloc_array(c->arena, (size_t)p->n_mesh, sizeof *p->processes);
    /* Device ids ascend with hosts, so one pass groups them by host. */
    for (i = 0; i < p->n_devices; i++) {
        int host = p->devices[i].host;
        if (p->device_index[i] < 0)
            continue;
        if (p->process_mode == MESHGEN_PROCESSES_DEVICE || np == 0 ||
            p->processes[np - 1].host != host) {
            p->processes[np].host = host;
            p->processes[np].first = n;
            np++;
        }
        p->processes[np - 1].count++;
        p->process_devices[n++] = i;
    }
    p->n_processes = np;
}

int mg_plan_stage(const struct mg_plan *p, int flat)
{
    int a;
    if (p->mpmd_axis < 0)
        return 0;
    for (a = p->n_axes - 1; a > p->mpmd_axis; a--)
        flat /= (int)p->size[a];
    return flat % (int)p->size[p->mpmd_axis];
}

static int mg_axis_of(const struct mg_plan *p, const char *name)
{
    int i;
    for (i = 0; i < p->n_axes; i++)
        if (strcmp(p->axis_names[i], name) == 0)
            return i;
    return -1;
}

static void mg_plan_shardings(struct mg_ctx *c, struct mg_plan *p)
{
    int i, d, k;
    p->n_shardings = c->spec->n_shardings;
    p->shardings = mg_alloc_array(c->arena, (size_t)p->n_shardings + 1, sizeof *p->shardings);
    for (i = 0; i < p->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &c->spec->shardings[i];
        struct mg_plan_sharding *ps = &p->shardings[i];
        ps->name = sh->name;
        ps->has_shape = sh->has_shape;
        /* With a shape, the constants cover every dimension of the array
         * (those past the spec are replicated); without one, the spec's. */
        ps->n_dims = sh->has_shape ? sh->shape_n : sh->n_dims;
        for (d = 0; d < ps->n_dims; d++) {
            ps->shards[d] = 1;
            if (d < sh->n_dims) {
                for (k = 0; k < sh->dims[d].n_axes; k++) {
                    int a = mg_axis_of(p, sh->dims[d].axes[k]);
                    ps->axes[d][ps->n_axes[d]++] = a;
                    ps->shards[d] *= p->size[a];
                }
            }
            if (sh->has_shape) {
                ps->global[d] = sh->shape[d];
                ps->local[d] = sh->shape[d] / ps->shards[d];
            }
        }
    }
}

/* The digest ties the output to its inputs: a canonical text of every
 * setting that changes the result, and the inventory's hosts and the
 * digests of their topologies (not file paths, so it is the same from any
 * directory). */
static void mg_plan_digest(struct mg_ctx *c, struct mg_plan *p)
{
    const struct mg_spec *s = c->spec;
    const struct mg_inventory *inv = c->inv;
    struct mg_buf b;
    char hex[65];
    int i, d, k;

    mg_buf_init(&b);
    mg_buf_printf(&b, "meshgen-digest 1\nname %s\nkind %s\norder %d\nprocesses %d\n", p->name,
                  mg_kind_name(p->kind), s->order, s->processes);
    mg_buf_printf(&b, "devices %lld\ngranule %d\nsort %d\nmpmd %s\n", (long long)c->used_devices,
                  s->granule, s->sort_granules, s->mpmd ? s->mpmd : "-");
    for (i = 0; i < p->n_axes; i++)
        mg_buf_printf(&b, "axis %s %lld %lld %lld %d\n", p->axis_names[i], (long long)p->size[i],
                      (long long)p->ici[i], (long long)p->dcn[i], p->types[i]);
    for (i = 0; i < s->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &s->shardings[i];
        mg_buf_printf(&b, "sharding %s", sh->name);
        for (d = 0; d < sh->n_dims; d++) {
            mg_buf_puts(&b, " [");
            for (k = 0; k < sh->dims[d].n_axes; k++)
                mg_buf_printf(&b, "%s%s", k ? "," : "", sh->dims[d].axes[k]);
            mg_buf_puts(&b, "]");
        }
        if (sh->has_shape)
            for (d = 0; d < sh->shape_n; d++)
                mg_buf_printf(&b, " %lld", (long long)sh->shape[d]);
        mg_buf_puts(&b, "\n");
    }
    for (i = 0; i < inv->n_hosts; i++)
        mg_buf_printf(&b, "host %s %s %s\n", inv->hosts[i].name,
                      inv->hosts[i].slice ? inv->hosts[i].slice : "-",
                      inv->topologies[inv->hosts[i].topology].digest);
    mg_sha256_hex(b.data, b.len, hex);
    snprintf(p->digest, sizeof p->digest, "sha256:%s", hex);
    mg_buf_free(&b);
}

struct mg_plan *mg_plan_build(struct mg_arena *a, struct mg_diags *d, const struct mg_spec *spec,
                              const struct mg_inventory *inv)
{
    struct mg_ctx c;
    struct mg_plan *p;
    int *host_first, i;

    memset(&c, 0, sizeof c);
    c.arena = a;
    c.diags = d;
    c.spec = spec;
    c.inv = inv;
    c.mpmd_axis = -1;

    mg_checks_run(&c, MG_PHASE_SPEC);
    if (!inv)
        return NULL;
    mg_checks_run(&c, MG_PHASE_INVENTORY);
    if (d->n_errors)
        return NULL;

    p = mg_alloc(a, sizeof *p);
    c.plan = p;
    p->name = spec->name;
    p->kind = c.kind;
    p->n_axes = spec->n_axes;
    p->mpmd_axis = c.mpmd_axis;
    p->order = spec->order;
    p->process_mode = spec->processes;
    for (i = 0; i < p->n_axes; i++) {
        p->axis_names[i] = spec->axes[i].name;
        p->size[i] = c.size[i];
        p->ici[i] = c.ici[i];
        p->dcn[i] = c.dcn[i];
        p->types[i] = spec->axes[i].type;
    }
    p->n_granules = c.n_granules;
    p->granules = c.granules_all;
    p->host_granule = c.host_granule;

    host_first = mg_alloc_array(a, (size_t)inv->n_hosts, sizeof(int));
    mg_plan_devices(&c, p, host_first);
    mg_plan_assign(&c, p, host_first);
    mg_plan_processes(&c, p);
    mg_plan_shardings(&c, p);

    mg_checks_run(&c, MG_PHASE_PLAN);
    if (d->n_errors)
        return NULL;
    mg_plan_digest(&c, p);
    return p;
}
