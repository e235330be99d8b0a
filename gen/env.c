/*
 * The environment of one process, for `meshgen env` (docs/reference.md,
 * "meshgen env"): which process this is and the variables that place it.
 *
 * The model is turned into the runtime's own tables by the lowering that
 * the C emitter prints (lower.c: struct meshgen_mesh in the arena, the
 * tables the generated C holds), and both answers come from the runtime: the process from
 * meshgen_process_from_vars (the host by name, the innermost launcher's local rank,
 * MESHGEN_PROCESS), the values from meshgen_placement_env. So a wrapper script that evals `meshgen
 * env` and a C program linked with meshgen::runtime place a process alike. This file decides which
 * variables fit the devices; emit_env.c prints them.
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

static const char *mg_or_empty(const char *s)
{
    return s ? s : "";
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

/* Whether the job runs under Slurm, where --host is not what one wants:
 * every task of an srun shares the command line (docs/reference.md, "When
 * no process is found"). */
static int mg_env_under_slurm(struct mg_env_vars *v)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "SLURM_JOBID", "SLURMD_NODENAME",
                                       "SLURM_LOCALID", "SLURM_NTASKS"};
    size_t i;

    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (mg_env_get(v, vars[i]))
            return 1;
    return 0;
}

/* Why the runtime could not say which process this is: the runtime's own
 * explanation (meshgen_process_explain: the variable and its value, what
 * the mesh expects, the launcher's fix, the mesh's hosts), with what the
 * command line adds: which variable an option stands for, and the options
 * that answer in its place. */
static void mg_env_process_error(struct mg_diags *d, struct mg_mark at,
                                 const struct meshgen_mesh *m, struct mg_env_vars *v, int rc)
{
    const struct mg_env_query *q = v->q;
    const char *given = "", *hint = "";
    char why[1024];

    meshgen_process_explain(m, mg_env_get, v, why, sizeof why);
    if (q->process >= 0)
        given = " (--process is read as MESHGEN_PROCESS)";
    else if (q->local_rank >= 0)
        given = " (--local-rank is read as LOCAL_RANK, torchrun's)";
    else if (q->host && (rc == MESHGEN_ERR_NO_HOST || rc == MESHGEN_ERR_BAD_ENV))
        given = " (--host is read as MESHGEN_HOSTNAME)";
    if (rc == MESHGEN_ERR_NO_HOST && !q->host && !mg_env_under_slurm(v))
        hint = ", or give --host NAME";
    else if (rc == MESHGEN_ERR_NO_ENV)
        hint = ", or give --local-rank or --process";
    mg_error(d, MG_CHK_ENV_PROCESS, at, "cannot tell which process this is%s: %s%s", given, why,
             hint);
}

/* ---- the variables ----------------------------------------------------------- */

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

/* A note on what no variable does, printed with the variables. */
static void mg_env_note(struct mg_env *e, const char *note)
{
    if (e->n_notes < MG_ENV_MAX_NOTES)
        e->notes[e->n_notes++] = note;
}

/* ---- GPUs: one visible-devices variable per vendor ---------------------------- */

/* "0,1,...,n-1": every device a runtime shows. */
static const char *mg_env_first_n(struct mg_arena *a, int n)
{
    struct mg_buf b;
    const char *s;
    int k;

    mg_buf_init(&b);
    for (k = 0; k < n; k++)
        mg_buf_printf(&b, "%s%d", k ? "," : "", k);
    s = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return s;
}

/* Each vendor's visible-devices variable that the process's GPUs need:
 * CUDA for NVIDIA, ROCR for AMD, Level Zero's ZE_AFFINITY_MASK for Intel,
 * in that order, each listing that vendor's GPUs of the process in the
 * numbering its runtime uses (meshgen_placement_env: UUIDs, else indices
 * among the host's GPUs of that vendor in PCI bus order, the order that
 * CUDA_DEVICE_ORDER and ZE_ENABLE_PCI_ID_DEVICE_ORDER ask for). Level
 * Zero's mask also gets ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE: the inventory
 * counts an Intel GPU per PCI device, a card (runtime/hwloc_devices.c,
 * meshgen__find_gpus), but Level Zero's default hierarchy is FLAT, where
 * each tile of a multi-tile card (Data Center GPU Max 1550: two) is a
 * device of its own and mask indices count tiles; under COMPOSITE they
 * count cards, as the mask does (docs/reference.md §6). A GPU of
 * any other vendor has no variable: it is named in a note and an env-vendor
 * warning, never dropped in silence. With both CUDA's and ROCm's lists,
 * HIP_VISIBLE_DEVICES keeps every GPU ROCR shows: HIP on AMD takes
 * CUDA_VISIBLE_DEVICES as its own list when HIP_VISIBLE_DEVICES is unset
 * (ROCclr, "HIP_VISIBLE_DEVICES : CUDA_VISIBLE_DEVICES"), and would filter
 * the AMD GPUs by the NVIDIA ones' numbers. */
static void mg_env_visible(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                           const struct mg_plan *p, const struct meshgen_mesh *m, int process,
                           struct mg_env *e)
{
    static const int vars[] = {MESHGEN_ENV_CUDA_VISIBLE_DEVICES, MESHGEN_ENV_ROCR_VISIBLE_DEVICES,
                               MESHGEN_ENV_ZE_AFFINITY_MASK};
    const struct mg_plan_process *pr = &p->processes[process];
    int has[MESHGEN_ENV_ZE_AFFINITY_MASK + 1] = {0}, i, unknown = 0;
    struct mg_buf b;

    if (p->kind != MG_KIND_GPU || pr->count == 0)
        return;
    mg_buf_init(&b);
    for (i = 0; i < pr->count; i++) {
        int dev = mg_plan_process_device(p, pr->first + i);
        const struct meshgen_device_info *info = meshgen_device_info(m, dev);
        int var = meshgen_vendor_env_var(info->vendor_id);

        if (var >= 0) {
            has[var]++;
            continue;
        }
        /* Decided by the PCI vendor id; the name only says who it is. */
        mg_buf_printf(&b, "%s%d (%s, %s", unknown++ ? ", " : "", dev,
                      info->pci[0] ? info->pci : "no PCI id",
                      info->vendor_id ? mg_printf(a, "PCI vendor 0x%04x", (unsigned)info->vendor_id)
                                      : "no PCI vendor");
        mg_buf_printf(&b, "%s%s)", info->vendor[0] ? " " : "",
                      info->vendor[0] ? mg_show(a, info->vendor) : "");
    }
    for (i = 0; i < (int)(sizeof vars / sizeof vars[0]); i++) {
        if (!has[vars[i]])
            continue;
        mg_env_add(e, meshgen_env_name(vars[i]), mg_placement(a, m, process, vars[i]));
        if (vars[i] == MESHGEN_ENV_CUDA_VISIBLE_DEVICES)
            mg_env_add(e, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        else if (vars[i] == MESHGEN_ENV_ROCR_VISIBLE_DEVICES &&
                 has[MESHGEN_ENV_CUDA_VISIBLE_DEVICES])
            mg_env_add(e, "HIP_VISIBLE_DEVICES", mg_env_first_n(a, has[vars[i]]));
        else if (vars[i] == MESHGEN_ENV_ZE_AFFINITY_MASK) {
            mg_env_add(e, "ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1");
            mg_env_add(e, "ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
        }
    }
    if (unknown) {
        const char *what =
            unknown == 1
                ? mg_printf(a,
                            "device %s is a GPU of a vendor with no visible-devices variable "
                            "(meshgen sets them for NVIDIA, AMD and Intel): none selects it, so "
                            "it is not hidden from this process",
                            b.data)
                : mg_printf(a,
                            "devices %s are GPUs of vendors with no visible-devices variable "
                            "(meshgen sets them for NVIDIA, AMD and Intel): none selects them, "
                            "so they are not hidden from this process",
                            b.data);
        mg_env_note(e, what);
        mg_warning(d, MG_CHK_ENV_VENDOR, at,
                   "process %d: no visible-devices variable selects %s %s (meshgen sets them "
                   "for NVIDIA, AMD and Intel GPUs), so the process sees %s",
                   process, unknown == 1 ? "GPU" : "GPUs", b.data, unknown == 1 ? "it" : "them");
    }
    mg_buf_free(&b);
}

/* ---- TPU: libtpu's variables for one process per chip --------------------------- */

/* The first port of a host's processes, as torch_xla's configure_topology
 * numbers them (docs/tpu.md, "meshgen env"). */
#define MG_TPU_BASE_PORT 8476

/* Whether hosts h and k are of one TPU slice. */
static int mg_same_slice(const struct mg_plan *p, int h, int k)
{
    return strcmp(mg_or_empty(p->inv->hosts[h].slice), mg_or_empty(p->inv->hosts[k].slice)) == 0;
}

/* Whether libtpu can place process `process` with one chip each: no second
 * core on a chip, and every chip of its slice in the mesh (the process
 * bounds span the slice). Else an env-tpu error. bounds: the slice's chips
 * per dimension. */
static int mg_tpu_placeable(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                            const struct mg_plan *p, const struct meshgen_mesh *m, int process,
                            int bounds[3])
{
    int host = p->processes[process].host, h, i, k, n = 0, used = 0;

    bounds[0] = bounds[1] = bounds[2] = 1;
    for (h = 0; h < p->inv->n_hosts; h++) {
        if (!mg_same_slice(p, h, host))
            continue;
        for (i = 0; i < m->hosts[h].n_devices; i++) {
            int dev = p->host_first[h] + i;
            const struct meshgen_device_info *info = meshgen_device_info(m, dev);

            if (info->core_on_chip != 0) {
                mg_error(d, MG_CHK_ENV_TPU, at,
                         "process %d: with 'processes: device' each core of a %s chip is a "
                         "process, but libtpu gives a process whole chips "
                         "(TPU_VISIBLE_CHIPS); use 'processes: host'",
                         process, mg_show(a, info->model));
                return -1;
            }
            for (k = 0; k < 3; k++)
                if (info->coords[k] + 1 > bounds[k])
                    bounds[k] = info->coords[k] + 1;
            n++;
            used += mg_plan_index_of(p, dev) >= 0;
        }
    }
    if (used != n) {
        mg_error(d, MG_CHK_ENV_TPU, at,
                 "process %d: the mesh uses %d of the %d chips of TPU slice %s, but libtpu's "
                 "TPU_PROCESS_BOUNDS spans the whole slice: every chip needs its process",
                 process, used, n, mg_show_host(a, mg_or_empty(p->inv->hosts[host].slice)));
        return -1;
    }
    return 0;
}

/* With `processes: host` (JAX's one process per TPU VM) a note that no
 * variable is needed. With `processes: device`, one process per chip:
 * the variables torch_xla's configure_topology sets (docs/tpu.md, "meshgen
 * env"): the chip, one chip per process, the slice's chips as the process
 * bounds, every process of the slice at host:port (localhost in a slice of
 * one host), its port and its index in the slice. */
static int mg_env_tpu(struct mg_arena *a, struct mg_diags *d, struct mg_mark at,
                      const struct mg_plan *p, const struct meshgen_mesh *m, int process,
                      struct mg_env *e)
{
    int host = p->processes[process].host, bounds[3], q, h, task = 0, port = 0, hosts = 0;
    int slices = 0, *local, chip;
    struct mg_buf b;

    if (p->kind != MG_KIND_TPU)
        return 0;
    if (p->process_mode == MESHGEN_PROCESSES_HOST) {
        mg_env_note(e, "TPU: one process per host ('processes: host', as JAX runs) drives all "
                       "of its host's chips: libtpu needs no device variable");
        return 0;
    }
    if (mg_tpu_placeable(a, d, at, p, m, process, bounds) != 0)
        return -1;
    /* Each host's processes so far: the port of the next. */
    local = mg_alloc_array(a, (size_t)p->inv->n_hosts, sizeof *local);
    for (h = 0; h < p->inv->n_hosts; h++)
        hosts += mg_same_slice(p, h, host);
    mg_buf_init(&b);
    for (q = 0; q < p->n_processes; q++) {
        int qh = p->processes[q].host;

        if (!mg_same_slice(p, qh, host)) {
            slices++;
            continue;
        }
        /* Its index among the slice's processes, in process order. */
        task += q < process;
        if (q == process)
            port = MG_TPU_BASE_PORT + local[qh];
        mg_buf_printf(&b, "%s%s:%d", b.len ? "," : "",
                      hosts == 1 ? "localhost" : p->inv->hosts[qh].name,
                      MG_TPU_BASE_PORT + local[qh]++);
    }
    /* The chip: the process's device's index among its host's. */
    mg_plan_host_of(p, mg_plan_process_device(p, p->processes[process].first), &chip);
    mg_env_add(e, "TPU_VISIBLE_CHIPS", mg_printf(a, "%d", chip));
    mg_env_add(e, "TPU_CHIPS_PER_PROCESS_BOUNDS", "1,1,1");
    mg_env_add(e, "TPU_PROCESS_BOUNDS", mg_printf(a, "%d,%d,%d", bounds[0], bounds[1], bounds[2]));
    mg_env_add(e, "TPU_PROCESS_ADDRESSES", mg_strdup(a, b.data));
    mg_env_add(e, "TPU_PROCESS_PORT", mg_printf(a, "%d", port));
    mg_env_add(e, "CLOUD_TPU_TASK_ID", mg_printf(a, "%d", task));
    if (slices)
        mg_env_note(e, "TPU: a multislice mesh; these variables place the process in its own "
                       "slice, and the MEGASCALE_* variables that join the slices are not printed");
    mg_buf_free(&b);
    return 0;
}

/* The process's devices: its entries of process_devices, or where the
 * model leaves that table out as the identity, its own entries made. */
static void mg_env_devices(struct mg_arena *a, const struct mg_plan *p, int process,
                           struct mg_env *e)
{
    int *own, i;

    e->first = p->processes[process].first;
    e->count = p->processes[process].count;
    e->devices = p->process_devices;
    if (e->devices)
        return;
    own = mg_alloc_array(a, (size_t)(e->count ? e->count : 1), sizeof *own);
    for (i = 0; i < e->count; i++)
        own[i] = e->first + i;
    e->devices = own;
    e->first = 0;
}

int mg_env_resolve(struct mg_arena *a, struct mg_diags *d, const struct mg_plan *p,
                   const struct mg_env_query *q, struct mg_mark at, struct mg_env *e)
{
    struct meshgen_mesh mesh, *m = &mesh;
    struct mg_env_vars v;
    const char *places;
    int32_t process;
    int rc;

    memset(e, 0, sizeof *e);
    memset(&v, 0, sizeof v);
    v.q = q;
    mg_lower(a, p, m);
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
                     (int)process, mg_show_host(a, p->inv->hosts[p->processes[process].host].name),
                     mg_show_host(a, q->host));
            return -1;
        }
        rc = host < 0 ? host : MESHGEN_OK;
    }
    if (rc != MESHGEN_OK) {
        mg_env_process_error(d, at, m, &v, rc);
        return -1;
    }
    e->process = process;
    e->n_processes = p->n_processes;
    e->host = p->processes[process].host;
    e->host_name = p->inv->hosts[e->host].name;
    mg_env_devices(a, p, process, e);
    mg_env_visible(a, d, at, p, m, process, e);
    if (mg_env_tpu(a, d, at, p, m, process, e) != 0)
        return -1;
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
