/*
 * The environment of one process, for `meshgen env` (docs/reference.md,
 * "meshgen env"): which process this is and the variables that place it.
 *
 * The model is turned into the runtime's own tables (struct meshgen_mesh,
 * in the arena, as the generated C would hold them), and both answers come
 * from the runtime: the process from meshgen_process_from_vars (the host by
 * name, the innermost launcher's local rank, MESHGEN_PROCESS), the values
 * from meshgen_placement_env. So a wrapper script that evals `meshgen env`
 * and a C program linked with meshgen::runtime place a process alike. This
 * file decides which variables fit the devices; emit_env.c prints them.
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

static const char *mg_or_empty(const char *s)
{
    return s ? s : "";
}

/* The devices of each topology of the kind, as the runtime's templates. */
static struct meshgen_host_template *mg_rt_templates(struct mg_arena *a, const struct mg_plan *p)
{
    const struct mg_inventory *inv = p->inv;
    struct meshgen_host_template *tpl = mg_alloc_array(a, (size_t)inv->n_topologies, sizeof *tpl);
    int t, i, k;

    for (t = 0; t < inv->n_topologies; t++) {
        int n = inv->topologies[t].n[p->kind];
        struct meshgen_device_info *dev = mg_alloc_array(a, (size_t)n + 1, sizeof *dev);
        for (i = 0; i < n; i++) {
            const struct mg_devinfo *v = &inv->topologies[t].devs[p->kind][i];
            dev[i].kind = v->kind;
            dev[i].os_index = v->os_index;
            dev[i].numa = v->numa;
            dev[i].pci = mg_or_empty(v->pci);
            dev[i].vendor = mg_or_empty(v->vendor);
            dev[i].model = mg_or_empty(v->model);
            dev[i].uuid = mg_or_empty(v->uuid);
            dev[i].cpuset = mg_or_empty(v->cpuset);
            for (k = 0; k < 3; k++)
                dev[i].coords[k] = v->coords[k];
            dev[i].core_on_chip = v->core_on_chip;
        }
        tpl[t].n_devices = n;
        tpl[t].devices = dev;
    }
    return tpl;
}

static int32_t *mg_rt_ints(struct mg_arena *a, const int *v, int n)
{
    int32_t *out = mg_alloc_array(a, (size_t)n + 1, sizeof *out);
    int i;
    for (i = 0; i < n; i++)
        out[i] = v[i];
    return out;
}

/* The model as the tables emit_c.c writes (no shardings: nothing here
 * needs them). */
static struct meshgen_mesh *mg_rt_mesh(struct mg_arena *a, const struct mg_plan *p)
{
    const struct mg_inventory *inv = p->inv;
    struct meshgen_mesh *m = mg_alloc(a, sizeof *m);
    struct meshgen_axis *axes = mg_alloc_array(a, (size_t)p->n_axes, sizeof *axes);
    struct meshgen_host *hosts = mg_alloc_array(a, (size_t)inv->n_hosts, sizeof *hosts);
    struct meshgen_process *procs = mg_alloc_array(a, (size_t)p->n_processes, sizeof *procs);
    int i;

    m->magic = MESHGEN_MAGIC;
    m->abi = MESHGEN_ABI;
    m->name = p->name;
    m->generator_version = MESHGEN_VERSION_STRING;
    m->digest = p->digest;
    for (i = 0; i < p->n_axes; i++) {
        axes[i].name = p->axis_names[i];
        axes[i].size = (int32_t)p->size[i];
        axes[i].ici = (int32_t)p->ici[i];
        axes[i].dcn = (int32_t)p->dcn[i];
        axes[i].type = p->types[i];
    }
    m->n_axes = p->n_axes;
    m->axes = axes;
    m->device_kind = p->kind;
    m->n_devices = p->n_mesh;
    m->n_inventory_devices = p->n_devices;
    m->n_templates = inv->n_topologies;
    m->templates = mg_rt_templates(a, p);
    for (i = 0; i < inv->n_hosts; i++) {
        hosts[i].name = inv->hosts[i].name;
        hosts[i].slice = mg_or_empty(inv->hosts[i].slice);
        hosts[i].granule = p->host_granule[i];
        hosts[i].template_index = inv->hosts[i].topology;
        hosts[i].first_device = p->host_first[i];
        hosts[i].n_devices = inv->topologies[inv->hosts[i].topology].n[p->kind];
    }
    m->n_hosts = inv->n_hosts;
    m->hosts = hosts;
    m->n_granules = p->n_granules;
    m->mesh_devices = mg_rt_ints(a, p->mesh, p->n_mesh);
    m->device_index = mg_rt_ints(a, p->device_index, p->n_devices);
    m->process_mode = p->process_mode;
    for (i = 0; i < p->n_processes; i++) {
        procs[i].host = p->processes[i].host;
        procs[i].first = p->processes[i].first;
        procs[i].count = p->processes[i].count;
    }
    m->n_processes = p->n_processes;
    m->processes = procs;
    m->n_process_devices = p->n_mesh;
    m->process_devices = mg_rt_ints(a, p->process_devices, p->n_mesh);
    m->mpmd_axis = p->mpmd_axis;
    return m;
}

/* ---- which process ----------------------------------------------------------- */

/* The launcher's variables as the runtime reads them, with the command
 * line's answers in front: --host is MESHGEN_HOSTNAME; --process is
 * MESHGEN_PROCESS and nothing else is read; --local-rank is a launcher of
 * its own (torchrun's LOCAL_RANK, the first the runtime asks), and no other
 * launcher variable is seen, so an outer launcher's counts do not apply. */
struct mg_env_vars {
    const struct mg_env_query *q;
    char number[24];
};

static const char *mg_env_get(void *ctx, const char *name)
{
    struct mg_env_vars *v = ctx;
    const struct mg_env_query *q = v->q;

    if (strcmp(name, "MESHGEN_HOSTNAME") == 0 && q->host)
        return q->host;
    if (q->process >= 0) {
        snprintf(v->number, sizeof v->number, "%d", q->process);
        return strcmp(name, "MESHGEN_PROCESS") == 0 ? v->number : NULL;
    }
    if (q->local_rank >= 0) {
        snprintf(v->number, sizeof v->number, "%d", q->local_rank);
        if (strcmp(name, "LOCAL_RANK") == 0)
            return v->number;
        if (strcmp(name, "MESHGEN_HOSTNAME") != 0 && strcmp(name, "SLURMD_NODENAME") != 0)
            return NULL;
    }
    return q->get ? q->get(q->ctx, name) : NULL;
}

/* Why the runtime could not say which process this is, in the user's
 * terms. */
static void mg_env_process_error(struct mg_diags *d, struct mg_arena *a, struct mg_mark at,
                                 const struct meshgen_mesh *m, struct mg_env_vars *v, int rc)
{
    char name[256];
    const char *why = meshgen_strerror(rc), *hint = "";

    if (rc == MESHGEN_ERR_NO_HOST) {
        meshgen_host_from_vars(m, mg_env_get, v, name, sizeof name);
        why = mg_printf(a, "%s (this machine is %s)", why, mg_show(a, name));
        hint = "; give --host, or --process";
    } else if (rc == MESHGEN_ERR_LOCAL_RANK) {
        int host = meshgen_host_from_vars(m, mg_env_get, v, name, sizeof name), n = 0, i;
        for (i = 0; host >= 0 && i < m->n_processes; i++)
            n += m->processes[i].host == host;
        if (host >= 0)
            why = mg_printf(a, "%s (host %s has %d process%s%s)", why,
                            mg_show(a, m->hosts[host].name), n, n == 1 ? "" : "es",
                            m->process_mode == MESHGEN_PROCESSES_HOST
                                ? ": with 'processes: host' the local rank must be 0"
                                : "");
    } else if (rc == MESHGEN_ERR_NO_ENV) {
        hint = "; give --local-rank or --process, or run it under the launcher";
    } else if (rc == MESHGEN_ERR_RANGE) {
        /* The number given: --process, else MESHGEN_PROCESS. */
        const char *given = mg_env_get(v, "MESHGEN_PROCESS");
        why = mg_printf(a, "process %s is not below the process count %d", given ? given : "?",
                        m->n_processes);
    }
    mg_error(d, MG_CHK_ENV_PROCESS, at, "cannot tell which process this is: %s%s", why, hint);
}

/* ---- the variables ----------------------------------------------------------- */

/* Whether the lower-case text holds word, ignoring case. */
static int mg_has_word(const char *text, const char *word)
{
    size_t n = strlen(word), i, k;
    for (i = 0; text[i]; i++) {
        for (k = 0; k < n && text[i + k]; k++) {
            char c = text[i + k];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c != word[k])
                break;
        }
        if (k == n)
            return 1;
    }
    return 0;
}

/* A variable to export; none without a value (the runtime had none). */
static void mg_env_add(struct mg_env *e, const char *name, const char *value)
{
    if (value && e->n_vars < MG_ENV_MAX_VARS) {
        e->names[e->n_vars] = name;
        e->values[e->n_vars++] = value;
    }
}

/* A runtime variable's value, or NULL when it has none for this process. */
static const char *mg_placement(struct mg_arena *a, const struct meshgen_mesh *m, int process,
                                int var)
{
    int n = meshgen_placement_env(m, process, var, NULL, 0);
    char *buf;

    if (n <= 0)
        return NULL;
    buf = mg_alloc(a, (size_t)n + 1);
    if (meshgen_placement_env(m, process, var, buf, (size_t)n + 1) != n)
        return NULL;
    return buf;
}

/* The visible-devices variable that fits the process's GPUs, by their
 * vendor: CUDA for NVIDIA, ROCR for AMD, Level Zero's ZE_AFFINITY_MASK for
 * Intel (GPU indices in PCI bus order, which ZE_ENABLE_PCI_ID_DEVICE_ORDER
 * asks Level Zero to use; CUDA_DEVICE_ORDER does the same for CUDA). */
static void mg_env_visible(struct mg_arena *a, const struct mg_plan *p,
                           const struct meshgen_mesh *m, int process, struct mg_env *e)
{
    const struct mg_plan_process *pr = &p->processes[process];
    const struct meshgen_device_info *first;
    struct mg_buf b;
    int i;

    if (p->kind != MG_KIND_GPU || pr->count == 0)
        return;
    first = meshgen_device_info(m, p->process_devices[pr->first]);
    if (mg_has_word(first->vendor, "nvidia")) {
        mg_env_add(e, "CUDA_VISIBLE_DEVICES",
                   mg_placement(a, m, process, MESHGEN_ENV_CUDA_VISIBLE_DEVICES));
        mg_env_add(e, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    } else if (mg_has_word(first->vendor, "amd") || mg_has_word(first->vendor, "advanced micro")) {
        mg_env_add(e, "ROCR_VISIBLE_DEVICES",
                   mg_placement(a, m, process, MESHGEN_ENV_ROCR_VISIBLE_DEVICES));
    } else if (mg_has_word(first->vendor, "intel")) {
        mg_buf_init(&b);
        for (i = 0; i < pr->count; i++) {
            int dev = p->process_devices[pr->first + i];
            mg_buf_printf(&b, "%s%d", i ? "," : "", dev - p->host_first[pr->host]);
        }
        mg_env_add(e, "ZE_AFFINITY_MASK", mg_strdup(a, b.data));
        mg_env_add(e, "ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1");
        mg_buf_free(&b);
    }
}

int mg_env_resolve(struct mg_arena *a, struct mg_diags *d, const struct mg_plan *p,
                   const struct mg_env_query *q, struct mg_mark at, struct mg_env *e)
{
    struct meshgen_mesh *m = mg_rt_mesh(a, p);
    struct mg_env_vars v;
    const char *places;
    int32_t process;
    int rc;

    memset(e, 0, sizeof *e);
    memset(&v, 0, sizeof v);
    v.q = q;
    rc = meshgen_mesh_check(m);
    if (rc != MESHGEN_OK) {
        mg_error(d, MG_CHK_ENV_PROCESS, at, "internal error: the model's tables fail the check: %s",
                 meshgen_strerror(rc));
        return -1;
    }
    rc = meshgen_process_from_vars(m, mg_env_get, &v, &process);
    if (rc == MESHGEN_OK && q->process >= 0 && q->host) {
        /* Both given: they must agree. */
        char name[256];
        int host = meshgen_host_from_vars(m, mg_env_get, &v, name, sizeof name);
        if (host >= 0 && host != p->processes[process].host) {
            mg_error(d, MG_CHK_ENV_PROCESS, at, "process %d runs on host %s, not on %s",
                     (int)process, mg_show(a, p->inv->hosts[p->processes[process].host].name),
                     mg_show(a, q->host));
            return -1;
        }
        rc = host < 0 ? host : MESHGEN_OK;
    }
    if (rc != MESHGEN_OK) {
        mg_env_process_error(d, a, at, m, &v, rc);
        return -1;
    }
    e->process = process;
    e->n_processes = p->n_processes;
    e->host = p->processes[process].host;
    e->host_name = p->inv->hosts[e->host].name;
    e->first = p->processes[process].first;
    e->count = p->processes[process].count;
    e->devices = p->process_devices;
    mg_env_visible(a, p, m, process, e);
    /* OpenMP threads spread over one place per distinct cpuset of the
     * process's devices (as LLNL mpibind sets them); none when a device's
     * CPUs are unknown. */
    places = mg_placement(a, m, process, MESHGEN_ENV_OMP_PLACES);
    if (places) {
        mg_env_add(e, "OMP_PLACES", places);
        mg_env_add(e, "OMP_PROC_BIND", "spread");
    }
    mg_env_add(e, "MESHGEN_PROCESS", mg_printf(a, "%d", e->process));
    mg_env_add(e, "MESHGEN_PROCESS_COUNT", mg_printf(a, "%d", e->n_processes));
    return 0;
}
