/*
 * Fuzz target: launcher and host variables -> the runtime's "which process
 * am I" (meshgen_host_from_vars, meshgen_process_from_vars) and the
 * placement variables of the process found (meshgen_placement_env).
 *
 * The input is a list of NAME=VALUE records separated by newlines or NULs
 * (a record without '=' is skipped; the first of two with one name is
 * served), handed to the runtime through a meshgen_lookup_fn. Four fixed
 * meshes, built here in C as generated tables would be, are asked in turn:
 * one process per host over hosts whose names differ only after a dot, and
 * GPUs of NVIDIA, AMD, Intel and no known vendor, with and without UUIDs;
 * one process per device, with a host that holds none; one "localhost" of
 * CPU cores; and a TPU slice of two hosts. Variables the runtime never
 * reads steer the harness (docs in fuzz/README.md): MESHGEN_FUZZ_MESH=k
 * asks mesh k only, MESHGEN_FUZZ_PROCESS=p asks placement_env of process p
 * too, and MESHGEN_FUZZ_VENDOR_n, _UUID_n, _CPUSET_n replace a string of
 * the n-th template device of the mesh (mod their count) for this input,
 * which meshgen_mesh_check() still accepts (the vendor's value is also read
 * as the device's PCI vendor id, which alone decides its variable).
 *
 * Beyond the sanitizers it holds the runtime to docs/reference.md ("Which
 * process am I", meshgen_placement_env): every variable asked for is one
 * the table names; the host and the process are the ones an independent
 * reading of those rules gives, with the same error code; the process is in
 * range and on the host found; *process is untouched on error; a name and
 * a value are NUL-terminated, cut to fit (the name) or left as a lone NUL
 * (the value), never written at or past cap, for every cap from 0 to past
 * the exact size; the value is the one the documented rules give (UUIDs or
 * per-vendor indices, OpenMP places that are the cpusets); and every call
 * gives the same answer twice.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshgen/meshgen.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* ---- the fixed meshes ------------------------------------------------------------ */

#define GPU_(id, vendor, uuid, cpuset)                                                             \
    {                                                                                              \
        MESHGEN_KIND_GPU, -1, 0, id, "0000:00:00.0", vendor, "model", uuid, cpuset, {0, 0, 0}, 0   \
    }
/* Expands NV and AMD (an id and a name) before GPU_ takes its arguments. */
#define GPU(...) GPU_(__VA_ARGS__)
#define NV 0x10de, "NVIDIA Corporation"
#define AMD 0x1002, "Advanced Micro Devices, Inc. [AMD/ATI]"

/* Mesh 0's two templates (4 + 4), then mesh 1's (2 + 2), mesh 2's, mesh 3's.
 * The vendor is the PCI vendor id; some names say otherwise, and must not
 * count. */
static const struct meshgen_device_info devs0[8] = {
    GPU(NV, "GPU-6e1f0c2a-4b7d-4c3e-9a1b-0123456789ab", "0-3"),
    GPU(NV, "MIG-2f3c1d7a-9e8b-5a6c-b4d2-fedcba987654", "0-3"),
    GPU(AMD, "1a2b3c4d5e6f7081", "4-7,12"),
    GPU(0x1002, "", "7f", "8-11"),
    GPU(NV, "", "16-19"),
    GPU(0x10de, "Amdahl", "GPU-abc", "16-19"),
    GPU(0x8086, "", "", "20"),
    GPU(0x1af4, "nvidia", "", ""),
};
static const struct meshgen_device_info devs1[4] = {
    GPU(NV, "GPU-11111111-2222-3333-4444-555555555555", "0-7"),
    GPU(AMD, "00ff", "8-15"),
    GPU(AMD, "", "0-7"),
    GPU(AMD, "", "8-15"),
};
static const struct meshgen_device_info devs2[4] = {
    {MESHGEN_KIND_CORE, 0, 0, 0, "", "", "", "", "0", {0, 0, 0}, 0},
    {MESHGEN_KIND_CORE, 1, 0, 0, "", "", "", "", "1", {0, 0, 0}, 0},
    {MESHGEN_KIND_CORE, 2, 0, 0, "", "", "", "", "2-3", {0, 0, 0}, 0},
    {MESHGEN_KIND_CORE, 3, 0, 0, "", "", "", "", "2-3", {0, 0, 0}, 0},
};
static const struct meshgen_device_info devs3[4] = {
    {MESHGEN_KIND_TPU, -1, 0, 0, "", "Google", "TPU v4", "", "0-111", {0, 0, 0}, 0},
    {MESHGEN_KIND_TPU, -1, 0, 0, "", "Google", "TPU v4", "", "0-111", {1, 0, 0}, 0},
    {MESHGEN_KIND_TPU, -1, 1, 0, "", "Google", "TPU v4", "", "112-223", {0, 1, 0}, 0},
    {MESHGEN_KIND_TPU, -1, 1, 0, "", "Google", "TPU v4", "", "112-223", {1, 1, 0}, 0},
};

/* The working copies the tables point at, restored from the above for
 * every input. */
static struct meshgen_device_info work0[8], work1[4], work2[4], work3[4];

static const struct meshgen_host_template tmpl0[2] = {{4, work0}, {4, work0 + 4}};
static const struct meshgen_host_template tmpl1[2] = {{2, work1}, {2, work1 + 2}};
static const struct meshgen_host_template tmpl2[1] = {{4, work2}};
static const struct meshgen_host_template tmpl3[1] = {{4, work3}};

static const struct meshgen_host hosts0[3] = {
    {"gpu001.rack1", "", 0, 0, 0, 4}, {"gpu001.rack2", "", 1, 1, 4, 4}, {"gpu002", "", 2, 0, 8, 4}};
static const struct meshgen_host hosts1[4] = {{"node1.a", "", 0, 0, 0, 2},
                                              {"node1.b", "", 1, 0, 2, 2},
                                              {"node2", "", 2, 0, 4, 2},
                                              {"node10", "", 3, 1, 6, 2}};
static const struct meshgen_host hosts2[1] = {{"localhost", "", 0, 0, 0, 4}};
static const struct meshgen_host hosts3[2] = {{"t1v-n-0.tpu", "s", 0, 0, 0, 4},
                                              {"t1v-n-1.tpu", "s", 0, 0, 4, 4}};

static const struct meshgen_axis axes0[2] = {{"dp", 3, 1, 3, 0}, {"tp", 4, 4, 1, 0}};
static const struct meshgen_axis axes1[2] = {{"pp", 2, 1, 2, 0}, {"tp", 3, 3, 1, 0}};
static const struct meshgen_axis axes2[1] = {{"c", 4, 4, 1, 0}};
static const struct meshgen_axis axes3[2] = {{"data", 1, 1, 1, 0}, {"model", 8, 8, 1, 0}};

/* Mesh 1: one process per device of hosts 0 to 2; host 3's devices are not
 * in the mesh and it has no process. */
static const struct meshgen_process procs1[6] = {{0, 0, 1}, {0, 1, 1}, {1, 2, 1},
                                                 {1, 3, 1}, {2, 4, 1}, {2, 5, 1}};

#define MESH(nm, kind, ax, n_ax, n_dev, n_inv, tp, hs, mode, n_proc, procs, n_pd)                  \
    {                                                                                              \
        MESHGEN_MAGIC, MESHGEN_ABI, nm, "0.2.0", "sha256:0", n_ax, ax, kind, n_dev, n_inv,         \
            (int32_t)(sizeof tp / sizeof tp[0]), tp, (int32_t)(sizeof hs / sizeof hs[0]), hs, 1,   \
            NULL, NULL, mode, n_proc, procs, n_pd, NULL, -1, 0, NULL                               \
    }

static const struct meshgen_mesh meshes[4] = {
    MESH("hosts", MESHGEN_KIND_GPU, axes0, 2, 12, 12, tmpl0, hosts0, MESHGEN_PROCESSES_HOST, 3,
         NULL, 12),
    MESH("devices", MESHGEN_KIND_GPU, axes1, 2, 6, 8, tmpl1, hosts1, MESHGEN_PROCESSES_DEVICE, 6,
         procs1, 6),
    MESH("cores", MESHGEN_KIND_CORE, axes2, 1, 4, 4, tmpl2, hosts2, MESHGEN_PROCESSES_HOST, 1, NULL,
         4),
    MESH("tpu", MESHGEN_KIND_TPU, axes3, 2, 8, 8, tmpl3, hosts3, MESHGEN_PROCESSES_HOST, 2, NULL,
         8),
};
#define N_MESHES 4

static struct meshgen_device_info *const work[N_MESHES] = {work0, work1, work2, work3};
static const struct meshgen_device_info *const pristine[N_MESHES] = {devs0, devs1, devs2, devs3};
static const int n_work[N_MESHES] = {8, 4, 4, 4};

/* ---- the variables ------------------------------------------------------------- */

#define MAX_VARS 64

struct vars {
    int n;
    const char *name[MAX_VARS];
    const char *value[MAX_VARS];
};

/* Every variable the runtime may read (docs/reference.md, "Which process
 * am I"): asking for any other is a failure. */
static const char *const documented[] = {"MESHGEN_PROCESS",
                                         "MESHGEN_HOSTNAME",
                                         "SLURMD_NODENAME",
                                         "LOCAL_RANK",
                                         "LOCAL_WORLD_SIZE",
                                         "WORLD_SIZE",
                                         "OMPI_COMM_WORLD_LOCAL_RANK",
                                         "OMPI_COMM_WORLD_LOCAL_SIZE",
                                         "OMPI_COMM_WORLD_SIZE",
                                         "MPI_LOCALRANKID",
                                         "MPI_LOCALNRANKS",
                                         "PMI_SIZE",
                                         "PALS_LOCAL_RANKID",
                                         "PALS_LOCAL_SIZE",
                                         "FLUX_TASK_LOCAL_ID",
                                         "FLUX_JOB_SIZE",
                                         "SLURM_LOCALID",
                                         "SLURM_NTASKS",
                                         "SLURM_NPROCS"};

/* The first value of name, or NULL. */
static const char *value_of(const struct vars *v, const char *name)
{
    int i;

    for (i = 0; i < v->n; i++)
        if (strcmp(v->name[i], name) == 0)
            return v->value[i];
    return NULL;
}

static const char *lookup(void *ctx, const char *name)
{
    size_t i;

    CHECK(name != NULL);
    for (i = 0; i < sizeof documented / sizeof documented[0]; i++)
        if (strcmp(name, documented[i]) == 0)
            return value_of(ctx, name);
    __builtin_trap();
}

/* Splits text (size bytes, NUL-terminated after them) in place. */
static void parse_vars(char *text, size_t size, struct vars *v)
{
    size_t start = 0, i;

    v->n = 0;
    for (i = 0; i <= size && v->n < MAX_VARS; i++) {
        char *eq;

        if (text[i] != '\n' && text[i] != '\0')
            continue;
        text[i] = '\0';
        eq = strchr(text + start, '=');
        if (eq != NULL) {
            *eq = '\0';
            v->name[v->n] = text + start;
            v->value[v->n++] = eq + 1;
        }
        start = i + 1;
    }
}

/* ---- the rules, read independently from docs/reference.md ----------------------- */

/* Plain decimal digits, at least one, at most INT32_MAX. */
static int ref_number(const char *text, int32_t *out)
{
    size_t n = strlen(text), i;
    int64_t v = 0;

    if (n == 0 || strspn(text, "0123456789") != n)
        return MESHGEN_ERR_BAD_ENV;
    for (i = 0; i < n; i++) {
        v = v * 10 + (text[i] - '0');
        if (v > INT32_MAX)
            return MESHGEN_ERR_BAD_ENV;
    }
    *out = (int32_t)v;
    return MESHGEN_OK;
}

/* Whether a variable's value is a host name as reference.md §2 ("Host
 * names") writes the rule: 1 to 255 bytes of ASCII letters, digits, '-',
 * '_' and '.', and no label empty. */
static int ref_host_name_ok(const char *s)
{
    size_t n = strlen(s), i;

    if (n == 0 || n > 255 || s[0] == '.' || s[n - 1] == '.' || strstr(s, "..") != NULL)
        return 0;
    for (i = 0; i < n; i++)
        if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", s[i]) ==
            NULL)
            return 0;
    return 1;
}

/* The name this machine goes by, as the doc orders the sources (the
 * harness's own gethostname() where no variable is set). */
static int ref_name(const struct vars *v, char *buf, size_t cap, const char **name)
{
    const char *text = value_of(v, "MESHGEN_HOSTNAME");

    if (text == NULL)
        text = value_of(v, "SLURMD_NODENAME");
    if (text != NULL) {
        *name = text;
        return ref_host_name_ok(text) ? MESHGEN_OK : MESHGEN_ERR_BAD_ENV;
    }
    memset(buf, 0, cap);
    if (gethostname(buf, cap - 1) != 0 || buf[0] == '\0')
        return MESHGEN_ERR_SYSTEM;
    *name = buf;
    return MESHGEN_OK;
}

/* The length of a host name up to its first dot. */
static size_t short_len(const char *s)
{
    const char *dot = strchr(s, '.');

    return dot != NULL ? (size_t)(dot - s) : strlen(s);
}

/* Whether n bytes of two names are equal, ASCII letters in either case. */
static int same_letters(const char *a, const char *b, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        int x = (unsigned char)a[i], y = (unsigned char)b[i];

        if (x >= 'A' && x <= 'Z')
            x += 'a' - 'A';
        if (y >= 'A' && y <= 'Z')
            y += 'a' - 'A';
        if (x != y)
            return 0;
    }
    return 1;
}

/* The host a name is: the only exact match, else the only short one; both
 * without case, and no short name empty. */
static int ref_host(const struct meshgen_mesh *m, const char *name)
{
    int exact = -1, shortm = -1, n_exact = 0, n_short = 0, h;

    if (m->n_hosts == 1 && strcmp(m->hosts[0].name, "localhost") == 0)
        return 0;
    for (h = 0; h < m->n_hosts; h++) {
        const char *hn = m->hosts[h].name;

        if (strlen(hn) == strlen(name) && same_letters(hn, name, strlen(name)))
            exact = h, n_exact++;
        if (short_len(name) > 0 && short_len(hn) == short_len(name) &&
            same_letters(hn, name, short_len(name)))
            shortm = h, n_short++;
    }
    if (n_exact > 0)
        return n_exact == 1 ? exact : MESHGEN_ERR_NO_HOST;
    return n_short == 1 ? shortm : MESHGEN_ERR_NO_HOST;
}

/* The launchers of the doc's table, innermost first. */
static const struct {
    const char *rank, *here, *all, *all2;
} table[] = {
    {"LOCAL_RANK", "LOCAL_WORLD_SIZE", "WORLD_SIZE", NULL},
    {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_SIZE", NULL},
    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_SIZE", NULL},
    {"PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", "PMI_SIZE", NULL},
    {"FLUX_TASK_LOCAL_ID", NULL, "FLUX_JOB_SIZE", NULL},
    {"SLURM_LOCALID", NULL, "SLURM_NTASKS", "SLURM_NPROCS"},
};

/* A count variable: unset, or a number equal to want. */
static int ref_count(const struct vars *v, const char *var, int32_t want)
{
    const char *text = var != NULL ? value_of(v, var) : NULL;
    int32_t n;
    int rc;

    if (text == NULL)
        return MESHGEN_OK;
    rc = ref_number(text, &n);
    if (rc != MESHGEN_OK)
        return rc;
    return n == want ? MESHGEN_OK : MESHGEN_ERR_PROCESS_COUNT;
}

static int32_t host_of_process(const struct meshgen_mesh *m, int32_t p)
{
    return m->processes != NULL ? m->processes[p].host : p;
}

/* The process the doc's four steps give, or their error. */
static int ref_process(const struct meshgen_mesh *m, const struct vars *v, int32_t *out)
{
    char buf[256];
    const char *text = value_of(v, "MESHGEN_PROCESS"), *name;
    int32_t local = 0, here = 0, p = -1;
    int rc, host, l = -1, i;

    if (text != NULL) {
        rc = ref_number(text, &p);
        if (rc == MESHGEN_OK && p >= m->n_processes)
            rc = MESHGEN_ERR_RANGE;
        *out = p;
        return rc;
    }
    rc = ref_name(v, buf, sizeof buf, &name);
    host = rc == MESHGEN_OK ? ref_host(m, name) : rc;
    if (host < 0)
        return host;
    for (i = 0; i < (int)(sizeof table / sizeof table[0]) && l < 0; i++) {
        text = value_of(v, table[i].rank);
        if (text != NULL && (rc = ref_number(text, &local)) != MESHGEN_OK)
            return rc;
        l = text != NULL ? i : -1;
    }
    if (l < 0 && m->process_mode == MESHGEN_PROCESSES_DEVICE)
        return MESHGEN_ERR_NO_ENV;
    for (p = 0; p < m->n_processes; p++)
        here += host_of_process(m, p) == host;
    if (l >= 0) {
        const char *all = table[l].all2 != NULL && value_of(v, table[l].all) == NULL ? table[l].all2
                                                                                     : table[l].all;

        if ((rc = ref_count(v, all, m->n_processes)) != MESHGEN_OK ||
            (rc = ref_count(v, table[l].here, here)) != MESHGEN_OK)
            return rc;
    }
    for (p = 0; p < m->n_processes; p++)
        if (host_of_process(m, p) == host && local-- == 0) {
            *out = p;
            return MESHGEN_OK;
        }
    return MESHGEN_ERR_LOCAL_RANK;
}

/* ---- placement values, read independently ------------------------------------- */

struct out {
    char *s;
    size_t len, cap;
};

static void emit(struct out *o, const char *s, size_t n)
{
    CHECK(o->len + n < o->cap);
    memcpy(o->s + o->len, s, n);
    o->len += n;
    o->s[o->len] = '\0';
}

static void emit_uint(struct out *o, uint64_t v)
{
    char digits[24];
    int n = 0, i;

    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (i = n - 1; i >= 0; i--)
        emit(o, digits + i, 1);
}

/* A UUID the variable's runtime takes (meshgen.h, meshgen_placement_env). */
static int ref_uuid_ok(int var, const char *u)
{
    size_t n = strlen(u);
    static const char hex[] = "0123456789abcdefABCDEF";

    if (var == MESHGEN_ENV_CUDA_VISIBLE_DEVICES)
        return n > 4 && (strncmp(u, "GPU-", 4) == 0 || strncmp(u, "MIG-", 4) == 0) &&
               strspn(u + 4, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-/") ==
                   n - 4;
    if (var == MESHGEN_ENV_ROCR_VISIBLE_DEVICES)
        return n >= 1 && n <= 16 && strspn(u, hex) == n && strspn(u, "0") != n;
    return 0;
}

/* The process's devices (ascending ids) into ids; their count. */
static int devices_of(const struct meshgen_mesh *m, int p, int32_t *ids, int cap)
{
    int n = meshgen_process_devices(m, p, ids, cap);

    CHECK(n >= 0);
    return n;
}

/* The variable of a GPU's PCI vendor id, as reference.md §2 ("Vendors")
 * gives it; names play no part. */
static int ref_vendor_var(int32_t vendor_id)
{
    switch (vendor_id) {
    case 0x10de: return MESHGEN_ENV_CUDA_VISIBLE_DEVICES;
    case 0x1002: return MESHGEN_ENV_ROCR_VISIBLE_DEVICES;
    case 0x8086: return MESHGEN_ENV_ZE_AFFINITY_MASK;
    default: return -1;
    }
}

static int ref_visible(const struct meshgen_mesh *m, int p, int var, struct out *o)
{
    int32_t ids[16];
    int n = devices_of(m, p, ids, 16), by_uuid = var != MESHGEN_ENV_ZE_AFFINITY_MASK, i, listed = 0;

    if (m->device_kind != MESHGEN_KIND_GPU)
        return MESHGEN_ERR_NOT_GPU;
    for (i = 0; i < n; i++) {
        const struct meshgen_device_info *d = meshgen_device_info(m, ids[i]);

        if (ref_vendor_var(d->vendor_id) == var && !ref_uuid_ok(var, d->uuid))
            by_uuid = 0;
    }
    for (i = 0; i < n; i++) {
        const struct meshgen_device_info *d = meshgen_device_info(m, ids[i]);
        int32_t k, first = m->hosts[meshgen_device_host(m, ids[i])].first_device, index = 0;

        if (ref_vendor_var(d->vendor_id) != var)
            continue;
        if (listed++ > 0)
            emit(o, ",", 1);
        if (by_uuid && var == MESHGEN_ENV_ROCR_VISIBLE_DEVICES) {
            emit(o, "GPU-", 4);
            emit(o, "0000000000000000", 16 - strlen(d->uuid));
        }
        if (by_uuid) {
            emit(o, d->uuid, strlen(d->uuid));
            continue;
        }
        for (k = first; k < ids[i]; k++)
            index += ref_vendor_var(meshgen_device_info(m, k)->vendor_id) == var;
        emit_uint(o, (uint64_t)index);
    }
    return MESHGEN_OK;
}

/* One OpenMP place for a cpulist: "N" and "N-M" items, single commas,
 * N <= M <= INT32_MAX; 0 or MESHGEN_ERR_CORRUPT. */
static int ref_place(const char *list, struct out *o)
{
    const char *s = list;

    emit(o, "{", 1);
    for (;;) {
        char *end;
        unsigned long lo, hi;

        if (*s < '0' || *s > '9')
            return MESHGEN_ERR_CORRUPT;
        lo = hi = strtoul(s, &end, 10);
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return MESHGEN_ERR_CORRUPT;
            hi = strtoul(end + 1, &end, 10);
        }
        if (lo > INT32_MAX || hi > INT32_MAX || hi < lo)
            return MESHGEN_ERR_CORRUPT;
        if (s != list)
            emit(o, ",", 1);
        emit_uint(o, lo);
        if (hi > lo) {
            emit(o, ":", 1);
            emit_uint(o, hi - lo + 1);
        }
        if (*end == '\0')
            break;
        if (*end != ',')
            return MESHGEN_ERR_CORRUPT;
        s = end + 1;
    }
    emit(o, "}", 1);
    return MESHGEN_OK;
}

static int ref_places(const struct meshgen_mesh *m, int p, struct out *o)
{
    int32_t ids[16];
    int n = devices_of(m, p, ids, 16), i, j, rc, places = 0;

    for (i = 0; i < n; i++) {
        const char *c = meshgen_device_info(m, ids[i])->cpuset;

        if (c[0] == '\0')
            return MESHGEN_ERR_NO_CPU;
        for (j = 0; j < i && strcmp(meshgen_device_info(m, ids[j])->cpuset, c) != 0; j++)
            ;
        if (j < i)
            continue;
        if (places++ > 0)
            emit(o, ",", 1);
        if ((rc = ref_place(c, o)) != MESHGEN_OK)
            return rc;
    }
    return MESHGEN_OK;
}

/* ---- the checks ---------------------------------------------------------------- */

#define CANARY 0xA5

/* Whether buf[from..to) all still hold the canary. */
static int untouched(const char *buf, size_t from, size_t to)
{
    for (; from < to; from++)
        if ((unsigned char)buf[from] != CANARY)
            return 0;
    return 1;
}

/* meshgen_host_from_vars for every small capacity: the same host, and the
 * name read, cut to fit and terminated, never at or past cap. */
static int check_host(const struct meshgen_mesh *m, struct vars *v)
{
    char hn[256], buf[512];
    const char *name = "";
    int rc = ref_name(v, hn, sizeof hn, &name), want, i;
    size_t len, caps[6];

    want = rc == MESHGEN_OK ? ref_host(m, name) : rc;
    /* A variable's value that is no host name is still the name read. */
    if (rc != MESHGEN_OK && rc != MESHGEN_ERR_BAD_ENV)
        name = "";
    len = strlen(name);
    caps[0] = 0, caps[1] = 0, caps[2] = 1, caps[3] = len + 1, caps[4] = len, caps[5] = 300;
    for (i = 0; i < 6; i++) {
        size_t cap = caps[i], n;

        if (cap > sizeof buf)
            continue;
        memset(buf, CANARY, sizeof buf);
        CHECK(meshgen_host_from_vars(m, lookup, v, i == 0 ? NULL : buf, cap) == want);
        if (cap == 0) {
            CHECK(untouched(buf, 0, sizeof buf));
            continue;
        }
        n = len < cap - 1 ? len : cap - 1;
        CHECK(memcmp(buf, name, n) == 0 && buf[n] == '\0' && untouched(buf, cap, sizeof buf));
    }
    CHECK(meshgen_host_from_vars(m, NULL, v, buf, sizeof buf) == MESHGEN_ERR_NULL);
    CHECK(meshgen_host_from_vars(m, lookup, v, NULL, 1) == MESHGEN_ERR_NULL);
    return want;
}

/* meshgen_process_from_vars twice: the reference's answer, in range, on
 * the host found, *process untouched on error. */
static int check_process(const struct meshgen_mesh *m, struct vars *v, int host)
{
    int32_t want = -7, got = -7, again = -7;
    int rc = ref_process(m, v, &want), k;

    for (k = 0; k < 2; k++) {
        int32_t *p = k == 0 ? &got : &again;

        CHECK(meshgen_process_from_vars(m, lookup, v, p) == rc);
        CHECK(rc == MESHGEN_OK ? *p == want : *p == -7);
    }
    if (rc != MESHGEN_OK)
        return -1;
    CHECK(got >= 0 && got < m->n_processes);
    if (value_of(v, "MESHGEN_PROCESS") == NULL)
        CHECK(host >= 0 && host_of_process(m, got) == host);
    CHECK(meshgen_process_from_vars(m, NULL, v, &got) == MESHGEN_ERR_NULL);
    CHECK(meshgen_process_from_vars(m, lookup, v, NULL) == MESHGEN_ERR_NULL);
    return got;
}

/* The value the rules give, or their error. */
static int ref_env(const struct meshgen_mesh *m, int p, int var, struct out *o)
{
    if (p < 0 || p >= m->n_processes || var < 0 || var > MESHGEN_ENV_ZE_AFFINITY_MASK)
        return MESHGEN_ERR_RANGE;
    if (var == MESHGEN_ENV_OMP_PLACES)
        return ref_places(m, p, o);
    return ref_visible(m, p, var, o);
}

/* meshgen_placement_env of one process and variable for caps 0, 1, the
 * exact size and one less, and larger: the reference's value or error; a
 * NUL alone when it does not fit; nothing at or past cap. A value is at
 * most 4 places or entries of at most twice an input string and 16 more. */
static void check_env(const struct meshgen_mesh *m, int p, int var, size_t size)
{
    size_t room = 8 * size + 256, caps[5], end;
    char *want = malloc(room), *buf;
    struct out o = {want, 0, room};
    int rc, i;

    CHECK(want != NULL);
    want[0] = '\0';
    rc = ref_env(m, p, var, &o);
    end = o.len + 128;
    buf = malloc(end);
    CHECK(buf != NULL);
    CHECK(meshgen_placement_env(m, p, var, NULL, 0) == (rc == MESHGEN_OK ? (int)o.len : rc));
    if (rc != MESHGEN_ERR_RANGE)
        CHECK(meshgen_placement_env(m, p, var, NULL, 1) == MESHGEN_ERR_NULL);
    caps[0] = 0, caps[1] = 1, caps[2] = o.len + 1, caps[3] = o.len, caps[4] = o.len + 64;
    for (i = 0; i < 5; i++) {
        size_t cap = caps[i];
        int got;

        memset(buf, CANARY, end);
        got = meshgen_placement_env(m, p, var, buf, cap);
        CHECK(untouched(buf, cap, end));
        if (rc != MESHGEN_OK) {
            CHECK(got == rc && untouched(buf, 0, cap));
        } else if (cap > o.len) {
            CHECK(got == (int)o.len && memcmp(buf, want, o.len + 1) == 0);
        } else {
            CHECK(got == MESHGEN_ERR_NO_SPACE);
            CHECK(cap == 0 || (buf[0] == '\0' && untouched(buf, 1, cap)));
        }
    }
    free(want);
    free(buf);
}

/* The replacements of this input for mesh k's template devices. */
static void override(int k, const struct vars *v)
{
    static const char *const field[3] = {"MESHGEN_FUZZ_VENDOR_", "MESHGEN_FUZZ_UUID_",
                                         "MESHGEN_FUZZ_CPUSET_"};
    int i, f;

    memcpy(work[k], pristine[k], (size_t)n_work[k] * sizeof work[k][0]);
    for (i = v->n - 1; i >= 0; i--) {
        for (f = 0; f < 3; f++) {
            size_t n = strlen(field[f]);
            struct meshgen_device_info *d;

            if (strncmp(v->name[i], field[f], n) != 0)
                continue;
            d = &work[k][strtoul(v->name[i] + n, NULL, 10) % (unsigned long)n_work[k]];
            *(f == 0 ? &d->vendor : f == 1 ? &d->uuid : &d->cpuset) = v->value[i];
            /* The vendor's value is also read as its PCI vendor id (any
             * base, cut to 16 bits): the name and the id may disagree. */
            if (f == 0)
                d->vendor_id = (int32_t)(strtoul(v->value[i], NULL, 0) & 0xffff);
        }
    }
}

static void check_mesh(int k, struct vars *v, size_t size)
{
    const struct meshgen_mesh *m = &meshes[k];
    const char *extra = value_of(v, "MESHGEN_FUZZ_PROCESS");
    int host, p, var;

    override(k, v);
    CHECK(meshgen_mesh_check(m) == MESHGEN_OK);
    host = check_host(m, v);
    CHECK(check_host(m, v) == host);
    p = check_process(m, v, host);
    for (var = -1; var <= MESHGEN_ENV_ZE_AFFINITY_MASK + 1; var++) {
        if (p >= 0)
            check_env(m, p, var, size);
        if (extra != NULL)
            check_env(m, (int)strtol(extra, NULL, 10), var, size);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *only;
    struct vars v;
    char *text;
    int k;

    if (size > 65536)
        return 0;
    text = malloc(size + 1);
    CHECK(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';
    parse_vars(text, size, &v);
    only = value_of(&v, "MESHGEN_FUZZ_MESH");
    for (k = 0; k < N_MESHES; k++)
        if (only == NULL || strtoul(only, NULL, 10) % N_MESHES == (unsigned long)k)
            check_mesh(k, &v, size);
    free(text);
    return 0;
}
