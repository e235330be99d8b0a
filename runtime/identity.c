/*
 * Which host and which process this is, and what a process holds: the
 * "processes" section of <meshgen/meshgen.h> (meshgen_host_from_*,
 * meshgen_process_from_*, meshgen_process_devices, meshgen_process_of).
 *
 * The host is this machine's name found among the mesh's hosts (host.h,
 * shared with meshgen_verify); the process, the launcher's local rank on that
 * host, read from the table of launchers below (docs/reference.md, "Which
 * process am I"). The only libc calls beyond strings are getenv() and
 * gethostname(). It knows nothing of groups, shardings or the placement
 * strings, which env.c writes for a process once it is known.
 */
/* gethostname() is POSIX; the file must compile on its own with -std=c11. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "host.h"
#include "internal.h"

/* ---- which host am I ---------------------------------------------------------------- */

/* Copies text into the caller's buffer, cut to fit and always terminated. */
static void copy_out(char *buf, size_t cap, const char *text)
{
    size_t n;

    if (cap == 0)
        return;
    n = strlen(text);
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}

/* The host the variables name, or an error. */
static int host_from(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx, char *name,
                     size_t cap)
{
    struct meshgen__host_name self;
    int32_t match[2];
    int rc = meshgen__this_host_name(get, ctx, &self);

    if (rc != MESHGEN_OK) {
        /* A variable's value that is no host name is still the name read. */
        copy_out(name, cap, rc == MESHGEN_ERR_BAD_ENV ? self.name : "");
        return rc;
    }
    copy_out(name, cap, self.name);
    return meshgen__find_host(mesh, self.name, match);
}

int meshgen_host_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                           char *name, size_t cap)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (get == NULL || (name == NULL && cap > 0))
        return MESHGEN_ERR_NULL;
    return host_from(mesh, get, ctx, name, cap);
}

int meshgen_host_from_env(const struct meshgen_mesh *mesh, char *name, size_t cap)
{
    return meshgen_host_from_vars(mesh, meshgen__getenv, NULL, name, cap);
}

/* ---- processes ---------------------------------------------------------------------- */

/*
 * A strict decimal parser: digits only, at least one, no sign, no spaces, no
 * trailing text, at most INT32_MAX. Launcher variables are machine-written,
 * so anything else means a misconfigured job, which must not be guessed at.
 */
static int parse_index(const char *text, int32_t *value)
{
    int64_t v = 0;

    if (*text == '\0')
        return MESHGEN_ERR_BAD_ENV;
    for (; *text != '\0'; text++) {
        if (*text < '0' || *text > '9')
            return MESHGEN_ERR_BAD_ENV;
        v = v * 10 + (*text - '0');
        if (v > INT32_MAX)
            return MESHGEN_ERR_BAD_ENV;
    }
    *value = (int32_t)v;
    return MESHGEN_OK;
}

/* One launcher: the variable with a process's rank among those it started
 * on this host, and those with how many it started on this host and in all
 * (NULL where it sets none; the first world size set is read). */
struct launcher {
    const char *local_rank;
    const char *local_size;
    const char *world_size[2];
};

/*
 * The launchers, innermost first: the table of docs/reference.md ("Which
 * process am I"). A launcher started by another sees its parent's variables
 * too, and only its own describe the process: torchrun under srun sees the
 * srun task's SLURM_LOCALID, and the processes of mpirun in a Slurm or PALS
 * allocation see those of the batch step or of the daemon that Open MPI
 * started through srun. What each launcher sets, from its own sources:
 * - torchrun: every worker gets LOCAL_RANK, LOCAL_WORLD_SIZE and WORLD_SIZE
 *   (torch/distributed/elastic/agent/server/local_elastic_agent.py).
 * - Open MPI 4.x (mpirun(1)) and 5.x ("Environment variables set for MPI
 *   applications"): OMPI_COMM_WORLD_LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_SIZE,
 *   OMPI_COMM_WORLD_SIZE. PMIx itself (PRRTE, srun --mpi=pmix) exports only
 *   PMIX_RANK and PMIX_NAMESPACE (PMIx_server_setup_fork): its local rank is
 *   a key for PMIx_Get, not a variable, so there is no PMIX_LOCAL_RANK to read.
 * - MPICH and Intel MPI (Hydra): the proxy sets MPI_LOCALRANKID and
 *   MPI_LOCALNRANKS, and PMI_SIZE unless it hands out a PMI port
 *   (src/pm/hydra/proxy/pmip_cb.c).
 * - HPE Cray PALS (mpiexec on PBS): PALS_LOCAL_RANKID and PALS_LOCAL_SIZE,
 *   and its PMI sets PMI_SIZE.
 * - Flux (flux-environment(7)): FLUX_TASK_LOCAL_ID and FLUX_JOB_SIZE; Flux
 *   unsets SLURM_* for the programs it starts.
 * - Slurm (srun(1)): SLURM_LOCALID and SLURM_NTASKS (SLURM_NPROCS before
 *   it). The count per node, SLURM_TASKS_PER_NODE, is a run-length list
 *   ("2(x3),1") that needs the node's index, so it is not read.
 */
static const struct launcher launchers[] = {
    {"LOCAL_RANK", "LOCAL_WORLD_SIZE", {"WORLD_SIZE", NULL}},
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", {"OMPI_COMM_WORLD_SIZE", NULL}},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS", {"PMI_SIZE", NULL}},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", {"PMI_SIZE", NULL}},
    {"FLUX_TASK_LOCAL_ID", NULL, {"FLUX_JOB_SIZE", NULL}},
    {"SLURM_LOCALID", NULL, {"SLURM_NTASKS", "SLURM_NPROCS"}},
};

/* Whether the launcher's count in variable var (NULL: it has none) is want:
 * 1 when it is, 0 when the launcher does not give it, or an error. */
static int count_is(meshgen_lookup_fn get, void *ctx, const char *var, int32_t want)
{
    const char *text = var != NULL ? get(ctx, var) : NULL;
    int32_t value;
    int rc;

    if (text == NULL)
        return 0;
    rc = parse_index(text, &value);
    if (rc != MESHGEN_OK)
        return rc;
    return value == want ? 1 : MESHGEN_ERR_PROCESS_COUNT;
}

/* Checks the launcher's counts against the mesh's: in all, and on this
 * host, which holds `here` of the mesh's processes. */
static int launch_counts_agree(meshgen_lookup_fn get, void *ctx, const struct launcher *l,
                               int32_t n_processes, int32_t here)
{
    int rc = 0, k;

    for (k = 0; k < 2 && rc == 0; k++)
        rc = count_is(get, ctx, l->world_size[k], n_processes);
    if (rc < 0)
        return rc;
    rc = count_is(get, ctx, l->local_size, here);
    return rc < 0 ? rc : MESHGEN_OK;
}

int meshgen_process_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                              int32_t *process)
{
    const struct launcher *launcher = NULL;
    int32_t host, here = 0, local = 0, p;
    const char *text;
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (get == NULL || process == NULL)
        return MESHGEN_ERR_NULL;
    /* An explicit choice decides alone: it is the way out for a launcher
     * this table does not know, whose inherited variables would mislead. */
    text = get(ctx, "MESHGEN_PROCESS");
    if (text != NULL) {
        rc = parse_index(text, &p);
        if (rc != MESHGEN_OK)
            return rc;
        if (p >= mesh->n_processes)
            return MESHGEN_ERR_RANGE;
        *process = p;
        return MESHGEN_OK;
    }
    /* Left out, the processes must be the hosts. */
    if (mesh->n_processes < 0 ||
        (mesh->processes == NULL && mesh->n_processes > 0 && mesh->n_processes != mesh->n_hosts))
        return MESHGEN_ERR_CORRUPT;
    host = host_from(mesh, get, ctx, NULL, 0);
    if (host < 0)
        return host;

    /* The innermost launcher decides, even with a malformed value: falling
     * through to an outer one would hide the misconfiguration behind ranks
     * that describe some other process. */
    for (i = 0; i < MG_COUNT(launchers) && launcher == NULL; i++) {
        text = get(ctx, launchers[i].local_rank);
        if (text == NULL)
            continue;
        rc = parse_index(text, &local);
        if (rc != MESHGEN_OK)
            return rc;
        launcher = &launchers[i];
    }
    if (launcher == NULL && mesh->process_mode == MESHGEN_PROCESSES_DEVICE)
        return MESHGEN_ERR_NO_ENV;

    for (p = 0; p < mesh->n_processes; p++)
        here += meshgen__process_at(mesh, p).host == host;
    if (launcher != NULL) {
        rc = launch_counts_agree(get, ctx, launcher, mesh->n_processes, here);
        if (rc != MESHGEN_OK)
            return rc;
    }
    /* Without a launcher (one process per host) the host's process is its
     * first; a second process on one host has nowhere to go. */
    if (local >= here)
        return MESHGEN_ERR_LOCAL_RANK;
    for (p = 0; p < mesh->n_processes; p++) {
        if (meshgen__process_at(mesh, p).host != host)
            continue;
        if (local-- == 0)
            break;
    }
    *process = p;
    return MESHGEN_OK;
}

int meshgen_process_from_env(const struct meshgen_mesh *mesh, int32_t *process)
{
    return meshgen_process_from_vars(mesh, meshgen__getenv, NULL, process);
}

int meshgen_process_devices(const struct meshgen_mesh *mesh, int process, int32_t *devices, int cap)
{
    struct meshgen_process proc;
    int32_t i;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (process < 0 || process >= mesh->n_processes)
        return MESHGEN_ERR_RANGE;
    proc = meshgen__process_at(mesh, process);
    if (!process_run_ok(mesh, &proc))
        return MESHGEN_ERR_CORRUPT;
    rc = output_wanted(devices, cap, proc.count);
    if (rc < 0)
        return rc;
    if (rc == 1)
        for (i = 0; i < proc.count; i++)
            devices[i] = table_process_device(mesh, proc.first + i);
    return proc.count;
}

int meshgen_process_of(const struct meshgen_mesh *mesh, int device)
{
    int32_t p, i;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (device < 0 || device >= mesh->n_inventory_devices)
        return MESHGEN_ERR_RANGE;
    for (p = 0; p < mesh->n_processes; p++) {
        struct meshgen_process proc = meshgen__process_at(mesh, p);

        if (!process_run_ok(mesh, &proc))
            return MESHGEN_ERR_CORRUPT;
        for (i = 0; i < proc.count; i++)
            if (table_process_device(mesh, proc.first + i) == device)
                return p;
    }
    return MESHGEN_ERR_NOT_IN_MESH;
}
