/*
 * The planner: completes the resolved model that the resolver began, with the
 * one permutation everything else derives from (mesh flat index -> device
 * id), each host's first device, the process table, the sharding constants,
 * the per-axis group tables and the digest. Emitters print what is here and
 * compute nothing of their own.
 *
 * Placement follows create_hybrid_device_mesh: along every axis the DCN part
 * is the outer factor (mesh_math.c decodes positions). Inside a granule, the
 * local position is mapped to a device by the granule order (inventory or
 * locality, see locality.c); with order: torus the whole assignment is the
 * one JAX's rules gave (resolve.c's tpu-assignment, docs/tpu.md). This file
 * knows nothing of YAML, hwloc or C syntax, and neither decides what the
 * resolver decides nor runs a check: compile.c runs them around it.
 */
#include "plan.h"
#include "locality.h"
#include "mesh_math.h"

#include <string.h>

/* Device ids: the devices of the kind, host by host in inventory order,
 * which is process order (process k is the k-th host with devices in the
 * mesh), as JAX's device ids follow process_index. Each device's host and
 * index in it follow from the hosts' first ids (mg_plan_host_of), so they
 * are not stored: 8 bytes per device. */
static void mg_plan_devices(struct mg_arena *a, struct mg_plan *p)
{
    const struct mg_inventory *inv = p->inv;
    int h, id = 0;

    p->host_first = mg_alloc_array(a, (size_t)inv->n_hosts, sizeof(int));
    p->host_devices = inv->topologies[inv->hosts[0].topology].n[p->kind];
    for (h = 0; h < inv->n_hosts; h++) {
        int n = inv->topologies[inv->hosts[h].topology].n[p->kind];
        p->host_first[h] = id;
        id += n;
        if (n != p->host_devices)
            p->host_devices = 0;
    }
}

/* Entry k of an n-entry table *t that is left NULL while it is the
 * identity: made, with entries 0 to k - 1 filled in as the identity, at
 * the first entry that is not k. */
static void mg_set_unless_identity(struct mg_arena *a, int **t, size_t n, int k, int v)
{
    int j;

    if (!*t && v != k) {
        *t = mg_alloc_array(a, n, sizeof(int));
        for (j = 0; j < k; j++)
            (*t)[j] = j;
    }
    if (*t)
        (*t)[k] = v;
}

/* device_index from a mesh that is not the identity. */
static void mg_plan_device_index(struct mg_arena *a, struct mg_plan *p)
{
    int i, f;

    p->device_index = mg_alloc_array(a, (size_t)p->n_devices, sizeof(int));
    for (i = 0; i < p->n_devices; i++)
        p->device_index[i] = -1;
    for (f = 0; f < p->n_mesh; f++)
        p->device_index[p->mesh[f]] = f;
}

/* Orders of whole-host granules, one per topology. */
struct mg_order_memo {
    int **order;
    int64_t *score_inventory, *score;
};

/* The devices of granule g, in inventory order, into dst (the granule's
 * hosts follow those of g - 1 in granule_hosts, so *k carries over from one
 * granule to the next). Returns the topology when the granule is one whole
 * host, whose order depends only on its topology and the ICI shape; else
 * -1. */
static int mg_granule_devices(const struct mg_plan *p, int g, int *k, int *dst)
{
    const struct mg_inventory *inv = p->inv;
    int per = p->per_granule, n = 0, n_hosts = 0, topo = -1, j;

    for (; *k < inv->n_hosts && p->host_granule[p->granule_hosts[*k]] == g; (*k)++) {
        int h = p->granule_hosts[*k];
        int nd = inv->topologies[inv->hosts[h].topology].n[p->kind];
        /* `devices: N` uses device ids 0..N-1: a prefix of each host's. */
        int used = p->n_mesh - p->host_first[h];
        used = used < 0 ? 0 : used > nd ? nd : used;
        for (j = 0; j < used; j++)
            dst[n++] = p->host_first[h] + j;
        n_hosts++;
        topo = used == nd && nd == per ? inv->hosts[h].topology : -1;
    }
    return n_hosts == 1 ? topo : -1;
}

/* Puts one granule's devices in their order and adds both scores to the
 * model (resolve and show print them). A granule that is one whole host
 * orders its devices as every other whole host of its topology does, so a
 * cluster of identical hosts computes it once per topology, not once per
 * host. */
static void mg_order_granule(struct mg_arena *a, struct mg_plan *p, struct mg_order_memo *memo,
                             int topo, int *dst, int *order, int *tmp)
{
    int per = p->per_granule, j;

    if (topo >= 0 && memo->order[topo]) {
        memcpy(order, memo->order[topo], (size_t)per * sizeof(int));
        p->score_inventory += memo->score_inventory[topo];
        p->score += memo->score[topo];
    } else {
        int64_t s_inv = mg_order_score(a, p, dst, per), s_loc = s_inv;
        int same = 1;
        for (j = 0; j < per; j++)
            order[j] = j;
        if (p->order == MG_ORDER_LOCALITY) {
            mg_locality_order(a, p, dst, per, order);
            for (j = 0; j < per; j++) {
                tmp[j] = dst[order[j]];
                same &= order[j] == j;
            }
            if (!same)
                s_loc = mg_order_score(a, p, tmp, per);
        }
        p->score_inventory += s_inv;
        p->score += s_loc;
        if (topo >= 0) {
            memo->order[topo] = mg_alloc_array(a, (size_t)per, sizeof(int));
            memcpy(memo->order[topo], order, (size_t)per * sizeof(int));
            memo->score_inventory[topo] = s_inv;
            memo->score[topo] = s_loc;
        }
    }
    for (j = 0; j < per; j++)
        tmp[j] = dst[order[j]];
    memcpy(dst, tmp, (size_t)per * sizeof(int));
}

/* order: torus: the assignment the resolver found with JAX's
 * rules (docs/tpu.md); no closeness is involved, so both scores are 0. */
static void mg_plan_torus(struct mg_arena *a, struct mg_plan *p)
{
    int f;

    p->score_inventory = p->score = 0;
    p->mesh = NULL;
    for (f = 0; f < p->n_mesh; f++)
        mg_set_unless_identity(a, &p->mesh, (size_t)p->n_mesh, f, p->torus[f]);
    if (p->mesh)
        mg_plan_device_index(a, p);
}

/* Fills mesh[] (flat -> device) and device_index[] from the granules'
 * ordered device lists. */
static void mg_plan_assign(struct mg_arena *a, struct mg_plan *p)
{
    size_t per = (size_t)p->per_granule;
    struct mg_arena scratch; /* the granules' lists and the ordering's work */
    int *gdev, *order, *tmp;
    struct mg_order_memo memo;
    struct mg_hybrid_walk walk;
    int g, k = 0, f, n_topologies = p->inv->n_topologies;

    /* Dropped before returning: a device id per device is 32 MiB at 8M
     * devices, and nothing after this reads it. */
    mg_arena_init(&scratch);
    gdev = mg_alloc_array(&scratch, (size_t)p->n_granules * per, sizeof(int));
    order = mg_alloc_array(&scratch, per, sizeof(int));
    tmp = mg_alloc_array(&scratch, per, sizeof(int));
    memo.order = mg_alloc_array(&scratch, (size_t)n_topologies, sizeof(int *));
    memo.score_inventory = mg_alloc_array(&scratch, (size_t)n_topologies, sizeof(int64_t));
    memo.score = mg_alloc_array(&scratch, (size_t)n_topologies, sizeof(int64_t));
    p->score_inventory = 0;
    p->score = 0;
    for (g = 0; g < p->n_granules; g++) {
        int *dst = gdev + (size_t)g * per;
        int topo = mg_granule_devices(p, g, &k, dst);
        mg_order_granule(&scratch, p, &memo, topo, dst, order, tmp);
    }

    p->mesh = NULL;
    mg_hybrid_walk_start(&walk, p);
    for (f = 0; f < p->n_mesh; f++, mg_hybrid_walk_next(&walk))
        mg_set_unless_identity(a, &p->mesh, (size_t)p->n_mesh, f,
                               gdev[(size_t)walk.granule * per + (size_t)walk.local]);
    if (p->mesh)
        mg_plan_device_index(a, p);
    mg_arena_free(&scratch);
}

/* Host h's device ids: from *first up to, not including, *end. */
static void mg_host_span(const struct mg_plan *p, int h, int *first, int *end)
{
    *first = p->host_first[h];
    *end = h + 1 < p->inv->n_hosts ? p->host_first[h + 1] : p->n_devices;
}

static void mg_plan_processes(struct mg_arena *a, struct mg_plan *p)
{
    int per_device = p->process_mode == MESHGEN_PROCESSES_DEVICE;
    int h, i, first, end, n = 0, np = 0;

    /* Counted first: one per used device, or per host with a used device
     * (a million devices at 16 bytes each is 16 MiB; their hosts, 2). */
    for (h = 0; h < p->inv->n_hosts; h++) {
        int used = 0;
        mg_host_span(p, h, &first, &end);
        for (i = first; i < end; i++)
            used += mg_plan_index_of(p, i) >= 0;
        np += per_device ? used : used > 0;
    }
    p->process_devices = NULL;
    p->processes = mg_alloc_array(a, (size_t)(np ? np : 1), sizeof *p->processes);
    np = 0;
    /* Device ids ascend with hosts, so one pass groups them by host. */
    for (h = 0; h < p->inv->n_hosts; h++) {
        mg_host_span(p, h, &first, &end);
        for (i = first; i < end; i++) {
            int flat = mg_plan_index_of(p, i);
            if (flat < 0)
                continue;
            if (per_device || np == 0 || p->processes[np - 1].host != h) {
                p->processes[np].host = h;
                p->processes[np].first = n;
                /* A process's stage is its first device's; the
                 * mpmd-process check holds every other device of it to
                 * the same. */
                p->processes[np].stage = mg_stage_of(p, flat);
                np++;
            }
            p->processes[np - 1].count++;
            mg_set_unless_identity(a, &p->process_devices, (size_t)p->n_mesh, n++, i);
        }
    }
    p->n_processes = np;
}

static int mg_axis_of(const struct mg_plan *p, const char *name)
{
    int i;
    for (i = 0; i < p->n_axes; i++)
        if (strcmp(p->axis_names[i], name) == 0)
            return i;
    return -1;
}

static void mg_plan_shardings(struct mg_arena *a, struct mg_plan *p, const struct mg_spec *spec)
{
    int i, d, k;
    p->n_shardings = spec->n_shardings;
    p->shardings = mg_alloc_array(a, (size_t)p->n_shardings + 1, sizeof *p->shardings);
    for (i = 0; i < p->n_shardings; i++) {
        const struct mg_spec_sharding *sh = &spec->shardings[i];
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
                    int ax = mg_axis_of(p, sh->dims[d].axes[k]);
                    ps->axes[d][ps->n_axes[d]++] = ax;
                    mg_mul_size(ps->shards[d], p->size[ax], &ps->shards[d]);
                }
            }
            if (sh->has_shape) {
                ps->global[d] = sh->shape[d];
                ps->local[d] = sh->shape[d] / ps->shards[d];
            }
        }
    }
}

void mg_plan_place(struct mg_arena *a, struct mg_plan *p, const struct mg_spec *spec)
{
    mg_plan_devices(a, p);
    if (p->order == MG_ORDER_TORUS)
        mg_plan_torus(a, p);
    else
        mg_plan_assign(a, p);
    mg_plan_processes(a, p);
    mg_plan_shardings(a, p, spec);
}

/* One table per axis: row g holds group g along that axis, in mesh order. */
static void mg_plan_groups(struct mg_arena *a, struct mg_plan *p)
{
    int k, f;

    for (k = 0; k < p->n_axes; k++) {
        int size = (int)p->size[k];
        p->groups[k] = mg_alloc_array(a, (size_t)p->n_mesh, sizeof(int));
        for (f = 0; f < p->n_mesh; f++) {
            int rank, group = mg_group_of(p->size, p->n_axes, k, f, &rank);
            p->groups[k][group * size + rank] = mg_plan_mesh_at(p, f);
        }
    }
}

/* A host's slice in the digest: "-" for none; the name itself where it
 * reads as nothing else (not "-", no leading quote, no space, control
 * character or DEL); else in double quotes with \" \\ and \xNN escapes.
 * So every slice has a text of its own: `slice: "-"` does not read as no
 * slice, and a name with a newline cannot write host lines of its own,
 * while the names a file usually holds are hashed as they are written. */
static void mg_digest_slice(struct mg_buf *b, const char *s)
{
    const unsigned char *p;
    int plain = s && *s && strcmp(s, "-") != 0 && *s != '"';

    for (p = (const unsigned char *)s; plain && *p; p++)
        plain = *p > ' ' && *p != 0x7f;
    if (!s || plain) {
        mg_buf_puts(b, s ? s : "-");
        return;
    }
    mg_buf_puts(b, "\"");
    for (p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            mg_buf_printf(b, "\\%c", *p);
        else if (*p <= ' ' || *p == 0x7f)
            mg_buf_printf(b, "\\x%02x", *p);
        else
            mg_buf_put(b, (const char *)p, 1);
    }
    mg_buf_puts(b, "\"");
}

/* The digest ties the output to its inputs: a canonical text of every
 * setting that changes the result, and the inventory's hosts and the
 * digests of their topologies (not file paths, so it is the same from any
 * directory). */
static void mg_plan_digest(struct mg_plan *p, const struct mg_spec *s)
{
    const struct mg_inventory *inv = p->inv;
    struct mg_sha256 hash;
    struct mg_buf b;
    char hex[65];
    int i, d, k;

    /* Hashed as it is written: a line per host is 10 MiB at a million
     * devices. */
    mg_sha256_init(&hash);
    mg_buf_init(&b);
    mg_buf_stream(&b, mg_sha256_sink, &hash);
    mg_buf_printf(&b, "meshgen-digest 2\nname %s\nkind %s\norder %d\nprocesses %d\n", p->name,
                  mg_kind_name(p->kind), p->order, s->processes);
    mg_buf_printf(&b, "devices %lld\ngranule %d\nsort %d\nmpmd %s\n", (long long)p->n_mesh,
                  p->granule, s->sort_granules, s->mpmd ? s->mpmd : "-");
    /* Only where they apply: a mesh they cannot change keeps one digest
     * whatever they are set to. */
    if (p->order == MG_ORDER_TORUS)
        mg_buf_printf(&b, "torus split %d contiguous %d\n", s->allow_split_physical_axes,
                      s->contiguous_submeshes);
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
    /* Each topology's digest once, and each host names its topology by
     * index: a 64-digit digest on every host line would be most of the
     * text hashed for a large cluster. */
    for (i = 0; i < inv->n_topologies; i++)
        mg_buf_printf(&b, "topology %d %s\n", i, inv->topologies[i].digest);
    for (i = 0; i < inv->n_hosts; i++) {
        mg_buf_puts(&b, "host ");
        mg_buf_puts(&b, inv->hosts[i].name);
        mg_buf_puts(&b, " ");
        mg_digest_slice(&b, inv->hosts[i].slice);
        mg_buf_puts(&b, " ");
        mg_buf_int(&b, inv->hosts[i].topology);
        mg_buf_puts(&b, "\n");
    }
    mg_buf_flush(&b);
    mg_sha256_final(&hash, hex);
    snprintf(p->digest, sizeof p->digest, "sha256:%s", hex);
    mg_buf_free(&b);
}

/* Which tables are the identity (the C emitter leaves those out). */
static void mg_plan_identities(struct mg_plan *p)
{
    const struct mg_inventory *inv = p->inv;
    int i;

    /* The planner leaves a table NULL as soon as it is the identity, and
     * makes it at its first entry that is not. */
    p->mesh_identity = !p->mesh;
    p->process_devices_identity = !p->process_devices;
    p->processes_are_hosts = p->process_devices_identity && p->n_processes == inv->n_hosts;
    for (i = 0; i < p->n_processes && p->processes_are_hosts; i++)
        p->processes_are_hosts =
            p->processes[i].host == i && p->processes[i].first == p->host_first[i] &&
            p->processes[i].count == inv->topologies[inv->hosts[i].topology].n[p->kind];
}

void mg_plan_finish(struct mg_arena *a, struct mg_plan *p, const struct mg_spec *spec,
                    enum mg_when groups)
{
    mg_plan_identities(p);
    /* Group tables hold devices x axes entries: by default only for meshes
     * small enough that they cost nothing to build or compile. */
    p->has_groups =
        groups == MG_WHEN_ALWAYS ||
        (groups == MG_WHEN_AUTO && (int64_t)p->n_mesh * p->n_axes <= MG_GROUPS_AUTO_LIMIT);
    if (p->has_groups)
        mg_plan_groups(a, p);
    mg_plan_digest(p, spec);
}
