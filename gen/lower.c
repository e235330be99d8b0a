/*
 * The lowering: the resolved model -> the runtime's struct meshgen_mesh and
 * every table it points to, in the arena (docs/reference.md, "What is
 * emitted", lists the tables; runtime/include/meshgen/meshgen.h defines
 * them).
 *
 * This is the one place where the model becomes the runtime's tables.
 * emit_c.c prints the struct this file builds, table by table, and env.c
 * hands the same struct to the runtime's own lookups, so the tables a
 * program links and the tables `meshgen env` asks about cannot differ.
 * Tables that are the identity are left out (NULL), as the runtime allows
 * (docs/reference.md §3) and as the generated C has them; a string the
 * model lacks is "".
 * It copies and converts; every number was decided by the checks and the
 * planner. It never sees YAML, hwloc or an output format.
 */
#include "internal.h"

#include <string.h>

static const char *mg_or_empty(const char *s)
{
    return s ? s : "";
}

/* An int table as the runtime's int32_t one. */
static const int32_t *mg_lower_ints(struct mg_arena *a, const int *v, int n)
{
    int32_t *out = mg_alloc_array(a, (size_t)n, sizeof *out);
    int i;

    for (i = 0; i < n; i++)
        out[i] = v[i];
    return out;
}

static const struct meshgen_axis *mg_lower_axes(struct mg_arena *a, const struct mg_plan *p)
{
    struct meshgen_axis *axes = mg_alloc_array(a, (size_t)p->n_axes, sizeof *axes);
    int i;

    for (i = 0; i < p->n_axes; i++) {
        axes[i].name = p->axis_names[i];
        axes[i].size = (int32_t)p->size[i];
        axes[i].ici = (int32_t)p->ici[i];
        axes[i].dcn = (int32_t)p->dcn[i];
        axes[i].type = p->types[i];
    }
    return axes;
}

static void mg_lower_device(struct meshgen_device_info *out, const struct mg_devinfo *v)
{
    int k;

    out->kind = v->kind;
    out->os_index = v->os_index;
    out->numa = v->numa;
    out->vendor_id = v->vendor_id;
    out->pci = mg_or_empty(v->pci);
    out->vendor = mg_or_empty(v->vendor);
    out->model = mg_or_empty(v->model);
    out->uuid = mg_or_empty(v->uuid);
    out->cpuset = mg_or_empty(v->cpuset);
    /* Only TPU devices have a place in a torus; the others leave it 0. */
    if (v->kind == MG_KIND_TPU) {
        for (k = 0; k < 3; k++)
            out->coords[k] = v->coords[k];
        out->core_on_chip = v->core_on_chip;
    }
}

/* One template per topology: the devices of the kind, which every host of
 * that topology shares. A topology without devices of the kind has an
 * empty one (devices NULL). */
static const struct meshgen_host_template *mg_lower_templates(struct mg_arena *a,
                                                              const struct mg_plan *p)
{
    const struct mg_inventory *inv = p->inv;
    struct meshgen_host_template *tpl = mg_alloc_array(a, (size_t)inv->n_topologies, sizeof *tpl);
    int t, i;

    for (t = 0; t < inv->n_topologies; t++) {
        int n = inv->topologies[t].n[p->kind];
        struct meshgen_device_info *dev = NULL;

        if (n)
            dev = mg_alloc_array(a, (size_t)n, sizeof *dev);
        for (i = 0; i < n; i++)
            mg_lower_device(&dev[i], &inv->topologies[t].devs[p->kind][i]);
        tpl[t].n_devices = n;
        tpl[t].devices = dev;
    }
    return tpl;
}

static const struct meshgen_host *mg_lower_hosts(struct mg_arena *a, const struct mg_plan *p)
{
    const struct mg_inventory *inv = p->inv;
    struct meshgen_host *hosts = mg_alloc_array(a, (size_t)inv->n_hosts, sizeof *hosts);
    int i;

    for (i = 0; i < inv->n_hosts; i++) {
        const struct mg_host *h = &inv->hosts[i];
        hosts[i].name = h->name;
        hosts[i].slice = mg_or_empty(h->slice);
        hosts[i].granule = p->host_granule[i];
        hosts[i].template_index = h->topology;
        hosts[i].first_device = p->host_first[i];
        hosts[i].n_devices = inv->topologies[h->topology].n[p->kind];
    }
    return hosts;
}

/* The processes, or NULL when they are the hosts in order, each with all
 * its devices (the runtime's default). */
static const struct meshgen_process *mg_lower_processes(struct mg_arena *a, const struct mg_plan *p)
{
    struct meshgen_process *procs;
    int i;

    if (p->processes_are_hosts || !p->n_processes)
        return NULL;
    procs = mg_alloc_array(a, (size_t)p->n_processes, sizeof *procs);
    for (i = 0; i < p->n_processes; i++) {
        procs[i].host = p->processes[i].host;
        procs[i].first = p->processes[i].first;
        procs[i].count = p->processes[i].count;
    }
    return procs;
}

/* The dimensions of one sharding (NULL when it has none): the axes of
 * each, its shard count and, with a shape, its global and local sizes. */
static const struct meshgen_sharding_dim *mg_lower_dims(struct mg_arena *a,
                                                        const struct mg_plan_sharding *s)
{
    struct meshgen_sharding_dim *dims;
    int d, k;

    if (!s->n_dims)
        return NULL;
    dims = mg_alloc_array(a, (size_t)s->n_dims, sizeof *dims);
    for (d = 0; d < s->n_dims; d++) {
        dims[d].n_axes = s->n_axes[d];
        for (k = 0; k < s->n_axes[d]; k++)
            dims[d].axes[k] = s->axes[d][k];
        dims[d].shards = s->shards[d];
        dims[d].global_size = s->global[d];
        dims[d].local_size = s->local[d];
    }
    return dims;
}

static const struct meshgen_sharding *mg_lower_shardings(struct mg_arena *a,
                                                         const struct mg_plan *p)
{
    struct meshgen_sharding *sh;
    int i;

    if (!p->n_shardings)
        return NULL;
    sh = mg_alloc_array(a, (size_t)p->n_shardings, sizeof *sh);
    for (i = 0; i < p->n_shardings; i++) {
        sh[i].name = p->shardings[i].name;
        sh[i].n_dims = p->shardings[i].n_dims;
        sh[i].has_shape = p->shardings[i].has_shape;
        sh[i].dims = mg_lower_dims(a, &p->shardings[i]);
    }
    return sh;
}

void mg_lower(struct mg_arena *a, const struct mg_plan *p, struct meshgen_mesh *m)
{
    memset(m, 0, sizeof *m);
    m->magic = MESHGEN_MAGIC;
    m->abi = MESHGEN_ABI;
    m->name = p->name;
    m->generator_version = MESHGEN_VERSION_STRING;
    m->digest = p->digest;
    m->n_axes = p->n_axes;
    m->axes = mg_lower_axes(a, p);
    m->device_kind = p->kind;
    m->n_devices = p->n_mesh;
    m->n_inventory_devices = p->n_devices;
    m->n_templates = p->inv->n_topologies;
    m->templates = mg_lower_templates(a, p);
    m->n_hosts = p->inv->n_hosts;
    m->hosts = mg_lower_hosts(a, p);
    m->n_granules = p->n_granules;
    if (!p->mesh_identity) {
        m->mesh_devices = mg_lower_ints(a, p->mesh, p->n_mesh);
        m->device_index = mg_lower_ints(a, p->device_index, p->n_devices);
    }
    m->process_mode = p->process_mode;
    m->n_processes = p->n_processes;
    m->processes = mg_lower_processes(a, p);
    m->n_process_devices = p->n_mesh;
    if (!p->process_devices_identity)
        m->process_devices = mg_lower_ints(a, p->process_devices, p->n_mesh);
    m->mpmd_axis = p->mpmd_axis;
    m->n_shardings = p->n_shardings;
    m->shardings = mg_lower_shardings(a, p);
}
