/*
 * Which host and which process this is, why not when it cannot be told,
 * and what a process holds: the "processes" section of <meshgen/meshgen.h>
 * (meshgen_host_from_*, meshgen_process_from_*, meshgen_process_explain,
 * meshgen_process_devices, meshgen_process_of).
 *
 * The host is this machine's name found among the mesh's hosts (host.h,
 * shared with meshgen_verify); the process, the launcher's local rank on that
 * host, read from the table of launchers below (docs/reference.md, "Which
 * process am I"). One search finds the process and keeps what decided it,
 * so the explanation cannot describe another decision than the answer's.
 * The only libc calls beyond strings and snprintf() are getenv() and
 * gethostname(). It knows nothing of groups, shardings or the placement
 * strings, which env.c writes for a process once it is known.
 */
/* gethostname() is POSIX; the file must compile on its own with -std=c11. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
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

/* The launchers of the table below, by their index in it: what
 * launch_hint() names them by. */
enum { L_TORCHRUN, L_OPEN_MPI, L_HYDRA, L_PALS, L_FLUX, L_SLURM, N_LAUNCHERS };

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
static const struct launcher launchers[N_LAUNCHERS] = {
    [L_TORCHRUN] = {"LOCAL_RANK", "LOCAL_WORLD_SIZE", {"WORLD_SIZE", NULL}},
    [L_OPEN_MPI] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                    "OMPI_COMM_WORLD_LOCAL_SIZE",
                    {"OMPI_COMM_WORLD_SIZE", NULL}},
    [L_HYDRA] = {"MPI_LOCALRANKID", "MPI_LOCALNRANKS", {"PMI_SIZE", NULL}},
    [L_PALS] = {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", {"PMI_SIZE", NULL}},
    [L_FLUX] = {"FLUX_TASK_LOCAL_ID", NULL, {"FLUX_JOB_SIZE", NULL}},
    [L_SLURM] = {"SLURM_LOCALID", NULL, {"SLURM_NTASKS", "SLURM_NPROCS"}},
};

/*
 * What decided the answer of process_find, kept so that
 * meshgen_process_explain can say it in the user's terms: the variable
 * read last and its value, the launcher, this machine's host and how many
 * of the mesh's processes it holds, and what a count should have been.
 */
struct finding {
    const char *var;   /* NULL: no variable decided it */
    const char *value; /* var's value */
    int launcher;      /* index into launchers[], -1: none */
    int32_t host;      /* -1: not known */
    int32_t here;      /* the mesh's processes on that host */
    int32_t want;      /* what var should have held (a count), or -1 */
    int32_t match[2];  /* the hosts a name fits equally well (MESHGEN_ERR_NO_HOST) */
    int named;         /* self holds this machine's name */
    struct meshgen__host_name self;
};

/* The variable var (NULL: none), read into the finding. */
static const char *read_var(meshgen_lookup_fn get, void *ctx, const char *var, struct finding *f)
{
    const char *text = var != NULL ? get(ctx, var) : NULL;

    if (text != NULL) {
        f->var = var;
        f->value = text;
    }
    return text;
}

/* Whether the launcher's count in variable var (NULL: it has none) is want:
 * 1 when it is, 0 when the launcher does not give it, or an error. */
static int count_is(meshgen_lookup_fn get, void *ctx, const char *var, int32_t want,
                    struct finding *f)
{
    const char *text = read_var(get, ctx, var, f);
    int32_t value;
    int rc;

    if (text == NULL)
        return 0;
    rc = parse_index(text, &value);
    if (rc != MESHGEN_OK)
        return rc;
    f->want = want;
    return value == want ? 1 : MESHGEN_ERR_PROCESS_COUNT;
}

/* Checks the launcher's counts against the mesh's: in all, and on this
 * host, which holds f->here of the mesh's processes. */
static int launch_counts_agree(meshgen_lookup_fn get, void *ctx, const struct launcher *l,
                               int32_t n_processes, struct finding *f)
{
    int rc = 0, k;

    for (k = 0; k < 2 && rc == 0; k++)
        rc = count_is(get, ctx, l->world_size[k], n_processes, f);
    if (rc < 0)
        return rc;
    rc = count_is(get, ctx, l->local_size, f->here, f);
    return rc < 0 ? rc : MESHGEN_OK;
}

/* This machine's host, into f->host, or an error (f says which name, read
 * from where, and which hosts it fits). */
static int find_this_host(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                          struct finding *f)
{
    int rc = meshgen__this_host_name(get, ctx, &f->self);

    if (rc == MESHGEN_OK || rc == MESHGEN_ERR_BAD_ENV)
        f->named = 1;
    if (rc == MESHGEN_ERR_BAD_ENV) {
        f->var = f->self.source;
        f->value = f->self.name;
    }
    if (rc != MESHGEN_OK)
        return rc;
    rc = meshgen__find_host(mesh, f->self.name, f->match);
    if (rc >= 0)
        f->host = rc;
    return rc;
}

/* The launcher's local rank into *local and f->launcher (-1 when no
 * launcher sets one), or MESHGEN_ERR_BAD_ENV. The innermost launcher
 * decides, even with a malformed value: falling through to an outer one
 * would hide the misconfiguration behind ranks that describe some other
 * process. */
static int local_rank(meshgen_lookup_fn get, void *ctx, int32_t *local, struct finding *f)
{
    int i;

    for (i = 0; i < N_LAUNCHERS; i++) {
        if (read_var(get, ctx, launchers[i].local_rank, f) == NULL)
            continue;
        f->launcher = i;
        return parse_index(f->value, local);
    }
    return MESHGEN_OK;
}

/* meshgen_process_from_vars, with what decided it in *f. */
static int process_find(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                        int32_t *process, struct finding *f)
{
    int32_t local = 0, p;
    const char *text;
    int rc;

    memset(f, 0, sizeof *f);
    f->launcher = -1;
    f->host = f->want = -1;
    /* An explicit choice decides alone: it is the way out for a launcher
     * this table does not know, whose inherited variables would mislead. */
    if ((text = read_var(get, ctx, "MESHGEN_PROCESS", f)) != NULL) {
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
    rc = find_this_host(mesh, get, ctx, f);
    if (rc < 0)
        return rc;
    for (p = 0; p < mesh->n_processes; p++)
        f->here += meshgen__process_at(mesh, p).host == f->host;
    rc = local_rank(get, ctx, &local, f);
    if (rc != MESHGEN_OK)
        return rc;
    if (f->launcher < 0 && mesh->process_mode == MESHGEN_PROCESSES_DEVICE)
        return MESHGEN_ERR_NO_ENV;
    if (f->launcher >= 0) {
        rc = launch_counts_agree(get, ctx, &launchers[f->launcher], mesh->n_processes, f);
        if (rc != MESHGEN_OK)
            return rc;
    }
    /* Without a launcher (one process per host) the host's process is its
     * first; a second process on one host has nowhere to go. */
    if (local >= f->here) {
        f->var = f->launcher >= 0 ? launchers[f->launcher].local_rank : NULL;
        f->value = f->var != NULL ? get(ctx, f->var) : NULL;
        return MESHGEN_ERR_LOCAL_RANK;
    }
    for (p = 0; p < mesh->n_processes; p++) {
        if (meshgen__process_at(mesh, p).host != f->host)
            continue;
        if (local-- == 0)
            break;
    }
    *process = p;
    return MESHGEN_OK;
}

int meshgen_process_from_vars(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                              int32_t *process)
{
    struct finding f;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (get == NULL || process == NULL)
        return MESHGEN_ERR_NULL;
    return process_find(mesh, get, ctx, process, &f);
}

int meshgen_process_from_env(const struct meshgen_mesh *mesh, int32_t *process)
{
    return meshgen_process_from_vars(mesh, meshgen__getenv, NULL, process);
}

/* ---- why: meshgen_process_explain ------------------------------------------------ */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* A line written into the caller's buffer: cut to fit, always terminated. */
struct line {
    char *buf;
    size_t cap, len;
};

static void put(struct line *o, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void put(struct line *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (o->cap == 0 || o->len + 1 >= o->cap)
        return;
    va_start(ap, fmt);
    n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len = o->len + (size_t)n < o->cap ? o->len + (size_t)n : o->cap - 1;
}

/* A value read from the environment, as a message may echo it: printable
 * ASCII as it is, any other byte as \xNN (as the generator escapes
 * terminal text, docs/reference.md "Echoed strings"), cut after 64 bytes
 * with "...". */
static void put_value(struct line *o, const char *text)
{
    char shown[64 * 4 + 1];
    size_t i, n = 0;

    for (i = 0; text[i] != '\0' && i < 64; i++) {
        unsigned char c = (unsigned char)text[i];

        if (c >= 0x20 && c < 0x7f)
            shown[n++] = (char)c;
        else
            n += (size_t)snprintf(shown + n, sizeof shown - n, "\\x%02x", c);
    }
    shown[n] = '\0';
    put(o, "%s%s", shown, text[i] != '\0' ? "..." : "");
}

/* "VAR=value", or "VAR='value'" for a value that is wrong in itself. */
static void put_var(struct line *o, const struct finding *f, int quoted)
{
    put(o, "%s=%s", f->var, quoted ? "'" : "");
    put_value(o, f->value);
    put(o, "%s", quoted ? "'" : "");
}

/* The first hosts of the mesh, for a name that is none of them: all of
 * four or fewer, else three and how many more. */
static void put_hosts(struct line *o, const struct meshgen_mesh *mesh)
{
    int32_t h, shown = mesh->n_hosts <= 4 ? mesh->n_hosts : 3;

    for (h = 0; h < shown; h++) {
        put(o, "%s'", h == 0 ? "" : h + 1 == mesh->n_hosts ? " and " : ", ");
        put_value(o, mesh->hosts[h].name);
        put(o, "'");
    }
    if (shown < mesh->n_hosts)
        put(o, " and %d more", (int)(mesh->n_hosts - shown));
}

static const char *plural(int32_t n, const char *many)
{
    return n == 1 ? "" : many;
}

/* The hosts that hold processes: a host's processes are consecutive in
 * process order (docs/reference.md §9, "Process order"). */
static int32_t hosts_used(const struct meshgen_mesh *mesh)
{
    int32_t p, n = 0, last = -1;

    for (p = 0; p < mesh->n_processes; p++) {
        int32_t h = meshgen__process_at(mesh, p).host;

        n += p == 0 || h != last;
        last = h;
    }
    return n;
}

/*
 * How to start the mesh's processes under the launcher that started this
 * one: n in all, k on each host (with `processes: host`, one), over the
 * hosts that hold them. The options are each launcher's own: srun(1),
 * mpirun(1) of Open MPI (--map-by ppr:K:node, or -N K), Hydra's and PALS's
 * mpiexec, flux-run(1) and torchrun.
 */
static void put_launch(struct line *o, const struct meshgen_mesh *mesh, const struct finding *f)
{
    int32_t n = mesh->n_processes, hosts = hosts_used(mesh);
    int32_t k = mesh->process_mode == MESHGEN_PROCESSES_HOST ? 1
                : f->host >= 0                               ? f->here
                : hosts > 0                                  ? n / hosts
                                                             : 0;

    if (k == 1)
        put(o, "; start one process per host, %d in all: ", (int)n);
    else
        put(o, "; start %d processes per host, %d in all: ", (int)k, (int)n);
    switch (f->launcher) {
    case L_TORCHRUN: put(o, "torchrun --nnodes=%d --nproc-per-node=%d", (int)hosts, (int)k); break;
    case L_OPEN_MPI:
        put(o, "mpirun -np %d --map-by ppr:%d:node (or -N %d)", (int)n, (int)k, (int)k);
        break;
    case L_HYDRA: put(o, "mpiexec -n %d -ppn %d", (int)n, (int)k); break;
    case L_PALS: put(o, "mpiexec -n %d --ppn %d", (int)n, (int)k); break;
    case L_FLUX: put(o, "flux run -N %d -n %d", (int)hosts, (int)n); break;
    default: put(o, "srun -N %d --ntasks-per-node=%d", (int)hosts, (int)k); break;
    }
}

/* "the mesh has 4 processes, one per host ('processes: host')". */
static void put_mesh_processes(struct line *o, const struct meshgen_mesh *mesh)
{
    int host = mesh->process_mode == MESHGEN_PROCESSES_HOST;

    put(o, "the mesh has %d process%s, one per %s ('processes: %s')", (int)mesh->n_processes,
        plural(mesh->n_processes, "es"), host ? "host" : "device", host ? "host" : "device");
}

/* "host 'gpu1' has 2 of the mesh's processes (local ranks 0 to 1)". */
static void put_here(struct line *o, const struct meshgen_mesh *mesh, const struct finding *f)
{
    put(o, "host '");
    put_value(o, mesh->hosts[f->host].name);
    if (f->here == 0)
        put(o, "' has no process of the mesh, which uses none of its devices");
    else if (f->here == 1)
        put(o, "' has 1 process of the mesh (local rank 0)");
    else
        put(o, "' has %d processes of the mesh (local ranks 0 to %d)", (int)f->here,
            (int)f->here - 1);
}

/* Whether the job runs under Slurm: then this machine's name is the node's
 * and the fix is in the inventory's hostlist or MESHGEN_HOSTNAME. */
static int under_slurm(meshgen_lookup_fn get, void *ctx)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "SLURM_JOBID", "SLURMD_NODENAME",
                                       "SLURM_LOCALID", "SLURM_NTASKS"};
    size_t i;

    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (get(ctx, vars[i]) != NULL)
            return 1;
    return 0;
}

/* A name that is no host of the mesh, or fits two equally. */
static void explain_host(struct line *o, const struct meshgen_mesh *mesh, meshgen_lookup_fn get,
                         void *ctx, const struct finding *f)
{
    int from_var = strcmp(f->self.source, "MESHGEN_HOSTNAME") == 0;

    put(o, "this machine's name '");
    put_value(o, f->self.name);
    put(o, "' (from %s) ", f->self.source);
    if (f->match[1] >= 0) {
        put(o, "fits hosts '");
        put_value(o, mesh->hosts[f->match[0]].name);
        put(o, "' and '");
        put_value(o, mesh->hosts[f->match[1]].name);
        put(o, "' alike (up to the first dot); set MESHGEN_HOSTNAME to the full name of one");
        return;
    }
    put(o, "is no host of the mesh, whose hosts are ");
    put_hosts(o, mesh);
    if (from_var)
        put(o, "; MESHGEN_HOSTNAME must name one of them (case does not matter)");
    else if (under_slurm(get, ctx))
        put(o, "; under Slurm the inventory's hostlist must name the allocation's nodes as "
               "'scontrol show hostnames' does, or set MESHGEN_HOSTNAME to this node's name "
               "among them");
    else
        put(o, "; set MESHGEN_HOSTNAME to this machine's name among them");
}

/* A variable whose value is no number, or no host name. */
static void explain_bad_value(struct line *o, const struct finding *f)
{
    size_t at;
    const char *why;

    put_var(o, f, 1);
    if (f->named && f->var == f->self.source) {
        why = meshgen__host_name_refusal(f->value, strlen(f->value), &at);
        put(o,
            " is not a host name: %s (a host name is 1 to 255 ASCII letters, digits, '-', "
            "'_' and '.')",
            why != NULL ? why : "?");
        return;
    }
    put(o, " is not a number (decimal digits only, no sign or spaces, below 2^31)");
}

/* The explanation of an error of process_find. */
static void explain_error(struct line *o, const struct meshgen_mesh *mesh, meshgen_lookup_fn get,
                          void *ctx, const struct finding *f, int rc)
{
    switch (rc) {
    case MESHGEN_ERR_BAD_ENV: explain_bad_value(o, f); return;
    case MESHGEN_ERR_RANGE:
        put_var(o, f, 0);
        put(o, ", but the mesh has %d process%s (0 to %d)", (int)mesh->n_processes,
            plural(mesh->n_processes, "es"), (int)mesh->n_processes - 1);
        return;
    case MESHGEN_ERR_SYSTEM:
        put(o, "gethostname() failed; set MESHGEN_HOSTNAME to this machine's name among the "
               "mesh's hosts (");
        put_hosts(o, mesh);
        put(o, ")");
        return;
    case MESHGEN_ERR_NO_HOST: explain_host(o, mesh, get, ctx, f); return;
    case MESHGEN_ERR_NO_ENV:
        put(o,
            "with 'processes: device' a launcher's local rank says which of the %d "
            "process%s of host '",
            (int)f->here, plural(f->here, "es"));
        put_value(o, mesh->hosts[f->host].name);
        put(o, "' this is, and none is set (LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, "
               "MPI_LOCALRANKID, PALS_LOCAL_RANKID, FLUX_TASK_LOCAL_ID or SLURM_LOCALID); "
               "start it under a launcher, or set MESHGEN_PROCESS");
        return;
    case MESHGEN_ERR_PROCESS_COUNT:
        put_var(o, f, 0);
        put(o, ", but ");
        if (f->launcher >= 0 && f->var == launchers[f->launcher].local_size) {
            put_here(o, mesh, f);
            put(o, ": ");
        }
        put_mesh_processes(o, mesh);
        put_launch(o, mesh, f);
        return;
    case MESHGEN_ERR_LOCAL_RANK:
        if (f->var != NULL) {
            put_var(o, f, 0);
            put(o, ", but ");
        }
        put_here(o, mesh, f);
        if (f->var != NULL) {
            put(o, ": ");
            put_mesh_processes(o, mesh);
            put_launch(o, mesh, f);
        }
        return;
    default: put(o, "%s", meshgen_strerror(rc)); return;
    }
}

int meshgen_process_explain(const struct meshgen_mesh *mesh, meshgen_lookup_fn get, void *ctx,
                            char *buf, size_t cap)
{
    struct line o = {buf, cap, 0};
    struct finding f;
    int32_t process;
    int rc;

    if (buf == NULL && cap > 0)
        return MESHGEN_ERR_NULL;
    if (cap > 0)
        buf[0] = '\0';
    if (get == NULL)
        get = meshgen__getenv;
    rc = mesh_usable(mesh);
    if (rc == MESHGEN_OK)
        rc = process_find(mesh, get, ctx, &process, &f);
    if (rc != MESHGEN_OK) {
        if (mesh_usable(mesh) == MESHGEN_OK)
            explain_error(&o, mesh, get, ctx, &f, rc);
        else
            put(&o, "%s", meshgen_strerror(rc));
        return rc;
    }
    put(&o, "process %d of %d", (int)process, (int)mesh->n_processes);
    if (f.var != NULL && strcmp(f.var, "MESHGEN_PROCESS") == 0) {
        put(&o, ": ");
        put_var(&o, &f, 0);
        return rc;
    }
    put(&o, ": host '");
    put_value(&o, mesh->hosts[f.host].name);
    put(&o, "' (this machine's name '");
    put_value(&o, f.self.name);
    put(&o, "', from %s)", f.self.source);
    if (f.launcher >= 0) {
        put(&o, ", local rank ");
        put_value(&o, get(ctx, launchers[f.launcher].local_rank));
        put(&o, " (%s)", launchers[f.launcher].local_rank);
    }
    return rc;
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
