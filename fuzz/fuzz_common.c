/*
 * The fixed inventories, the plan check, the emitters and the compile check
 * shared by the fuzz targets (see fuzz_common.h). It builds its models in
 * C, as the unit tests do, and knows no input format.
 */
#include "fuzz_common.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwloc.h>

extern char **environ;

/* ---- the inventory -------------------------------------------------------------- */

#define MG_FUZZ_HOSTS 4
#define MG_FUZZ_LARGE_HOSTS 64
#define MG_FUZZ_LARGE_GPUS 256

struct mg_fuzz_host {
    const char *name, *slice;
    int topology;
};

static const struct mg_fuzz_host mg_fuzz_hosts[2][MG_FUZZ_HOSTS] = {
    /* One topology. Names as a hostile inventory could spell them, each
     * breaking C or JSON text that does not escape it (in C, a trigraph can
     * end a literal), with numbers where natural and byte order disagree;
     * hosts without a slice are granules of their own. */
    {{"node-10", "rack-2 ?\?= */\\\r\n\x01", 0},
     {"node-9\"\\", "rack-2 ?\?= */\\\r\n\x01", 0},
     {"node-010*/?\?/", NULL, 0},
     {"n\303\266de-3\t", NULL, 0}},
    /* Two topologies, alternating; slices repeat apart, so that granules by
     * slice are alike for cores and PUs where granules by host are not. */
    {{"a1", "s-2", 0}, {"b10", "s-10", 1}, {"a2", "s-10", 0}, {"b9", "s-2", 1}},
};

static void mg_fuzz_devices(struct mg_arena *a, struct mg_topology *t, int kind, int n,
                            int per_numa)
{
    int i;

    t->n[kind] = n;
    t->devs[kind] = mg_alloc_array(a, (size_t)n, sizeof(struct mg_devinfo));
    for (i = 0; i < n; i++) {
        struct mg_devinfo *d = &t->devs[kind][i];
        d->kind = kind;
        d->os_index = kind == MG_KIND_GPU ? -1 : i;
        d->numa = i / per_numa;
        /* Buses 0x18..0xff, then the next PCI domain (only the large
         * inventory has more than 232 GPUs on a host). */
        d->pci = kind == MG_KIND_GPU ? mg_printf(a, "%04x:%02x:00.0", i / 232, 0x18 + i % 232) : "";
        d->vendor = kind == MG_KIND_GPU ? "NVIDIA \"Corporation\"" : "GenuineIntel";
        d->model = kind == MG_KIND_GPU ? "H100 ?\?/ */ /* \\\r" : "Xeon(R) ?\?( \x7f";
        d->uuid = kind == MG_KIND_GPU ? mg_printf(a, "GPU-\xe2\x9c\x93-%d", i) : "";
        d->cpuset = mg_printf(a, "%d-%d", i * 2, i * 2 + 1);
    }
}

/* Closer when i and j share a smaller block (pairs, then halves). */
static int *mg_fuzz_closeness(struct mg_arena *a, int n, int block)
{
    int *m = mg_alloc_array(a, (size_t)n * (size_t)n, sizeof(int));
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            m[i * n + j] = i == j                       ? 6
                           : i / block == j / block     ? 5
                           : i / (n / 2) == j / (n / 2) ? 4
                                                        : 3;
    return m;
}

/* Topology 0: 8 GPUs, 16 cores, 32 PUs, 2 NUMA nodes and 2 packages, with
 * closeness for GPUs and cores. Topology 1: 8 GPUs, 8 cores, 1 NUMA node,
 * 1 package, no PUs and no closeness. Topology 2 (the large inventory's):
 * MG_FUZZ_LARGE_GPUS GPUs, 64 cores, 2 NUMA nodes, 2 packages, no PUs and
 * no closeness (a matrix would cost its square on every plan). */
static void mg_fuzz_topology(struct mg_arena *a, struct mg_topology *t, int which)
{
    if (which == 2) {
        t->key = "synthetic:large";
        t->label = "large";
        mg_fuzz_devices(a, t, MG_KIND_GPU, MG_FUZZ_LARGE_GPUS, MG_FUZZ_LARGE_GPUS / 2);
        mg_fuzz_devices(a, t, MG_KIND_CORE, 64, 32);
        mg_fuzz_devices(a, t, MG_KIND_NUMA, 2, 1);
        mg_fuzz_devices(a, t, MG_KIND_PACKAGE, 2, 1);
        memset(t->digest, 'd', 64);
        return;
    }
    t->key = which ? "synthetic:plain" : "synthetic:fuzz";
    t->label = which ? "plain" : "fuzz */ ?\?/";
    mg_fuzz_devices(a, t, MG_KIND_GPU, 8, 4);
    mg_fuzz_devices(a, t, MG_KIND_CORE, which ? 8 : 16, 8);
    mg_fuzz_devices(a, t, MG_KIND_NUMA, which ? 1 : 2, 1);
    mg_fuzz_devices(a, t, MG_KIND_PACKAGE, which ? 1 : 2, 1);
    mg_fuzz_devices(a, t, MG_KIND_PU, which ? 0 : 32, 16);
    if (!which) {
        t->closeness[MG_KIND_GPU] = mg_fuzz_closeness(a, 8, 2);
        t->closeness[MG_KIND_CORE] = mg_fuzz_closeness(a, 16, 4);
    }
    memset(t->digest, which ? 'e' : 'f', 64);
}

/* The large inventory: MG_FUZZ_LARGE_HOSTS hosts of topology 2, so that
 * axis sizes, and products of them, reach 2^14. No slices: a granule of
 * many hosts costs the locality order its square (at 16384 devices, many
 * seconds an input under the sanitizers), the known cost of one large
 * granule (README, Performance), not a new path. */
static struct mg_inventory *mg_fuzz_large(struct mg_arena *a)
{
    struct mg_inventory *inv = mg_alloc(a, sizeof *inv);
    int h;

    inv->source = "fuzz-large.yaml";
    inv->n_topologies = 1;
    inv->topologies = mg_alloc(a, sizeof *inv->topologies);
    mg_fuzz_topology(a, &inv->topologies[0], 2);
    inv->n_hosts = MG_FUZZ_LARGE_HOSTS;
    inv->hosts = mg_alloc_array(a, MG_FUZZ_LARGE_HOSTS, sizeof *inv->hosts);
    for (h = 0; h < MG_FUZZ_LARGE_HOSTS; h++) {
        struct mg_mark at = {inv->source, 3 + 3 * h, 12};
        inv->hosts[h].name = mg_printf(a, "big%03d", h);
        inv->hosts[h].slice = NULL;
        inv->hosts[h].topology = 0;
        inv->hosts[h].at = at;
    }
    return inv;
}

const struct mg_inventory *mg_fuzz_inventory(int which)
{
    /* Built once: the planner only reads them. */
    static struct mg_arena arena;
    static struct mg_inventory *invs[3];
    struct mg_arena *a = &arena;
    struct mg_inventory *inv;
    int h, t;

    which = which == 2 ? 2 : which ? 1 : 0;
    if (invs[which])
        return invs[which];
    if (which == 2) {
        inv = invs[2] = mg_fuzz_large(a);
    } else {
        inv = invs[which] = mg_alloc(a, sizeof *inv);
        inv->source = which ? "fuzz-mixed.yaml" : "fuzz-inventory.yaml";
        inv->n_topologies = which ? 2 : 1;
        inv->topologies = mg_alloc_array(a, (size_t)inv->n_topologies, sizeof *inv->topologies);
        for (t = 0; t < inv->n_topologies; t++)
            mg_fuzz_topology(a, &inv->topologies[t], t);
        inv->n_hosts = MG_FUZZ_HOSTS;
        inv->hosts = mg_alloc_array(a, MG_FUZZ_HOSTS, sizeof *inv->hosts);
        for (h = 0; h < MG_FUZZ_HOSTS; h++) {
            struct mg_mark at = {inv->source, 3 + 3 * h, 12};
            inv->hosts[h].name = mg_fuzz_hosts[which][h].name;
            inv->hosts[h].slice = mg_fuzz_hosts[which][h].slice;
            inv->hosts[h].topology = mg_fuzz_hosts[which][h].topology;
            inv->hosts[h].at = at;
        }
    }
    inv->n_files = 1;
    inv->files = mg_alloc(a, sizeof *inv->files);
    inv->files[0] = inv->source;
    return inv;
}

const struct mg_inventory *mg_fuzz_inventory_for(const struct mg_spec *spec, size_t size)
{
    if (spec && spec->inventory && strncmp(spec->inventory, "large", 5) == 0)
        return mg_fuzz_inventory(2);
    return mg_fuzz_inventory((int)(size >> 1 & 1));
}

int mg_fuzz_emits(const struct mg_plan *plan)
{
    return plan->n_mesh <= MG_FUZZ_EMIT_MAX || mg_fuzz_replay();
}

/* ---- the plan ------------------------------------------------------------------ */

void mg_fuzz_check_plan(const struct mg_plan *p)
{
    int64_t product = 1;
    int k, f, i, n = 0, used = 0;

    for (k = 0; k < p->n_axes; k++) {
        if (p->size[k] < 1 || p->ici[k] < 1 || p->dcn[k] < 1 || p->ici[k] * p->dcn[k] != p->size[k])
            __builtin_trap();
        product *= p->size[k];
    }
    if (p->n_axes < 1 || product != p->n_mesh || p->n_mesh > p->n_devices)
        __builtin_trap();
    for (f = 0; f < p->n_mesh; f++) {
        int dev = mg_plan_mesh_at(p, f);
        if (dev < 0 || dev >= p->n_devices || mg_plan_index_of(p, dev) != f)
            __builtin_trap();
    }
    for (i = 0; i < p->n_devices; i++)
        used += mg_plan_index_of(p, i) >= 0;
    for (i = 0; i < p->n_processes; i++) {
        const struct mg_plan_process *pr = &p->processes[i];
        if (pr->first != n || pr->count < 1)
            __builtin_trap();
        for (k = 0; k < pr->count; k++, n++) {
            int dev = mg_plan_process_device(p, n);
            if (mg_plan_index_of(p, dev) < 0 || mg_plan_host_of(p, dev, NULL) != pr->host ||
                (n > 0 && dev <= mg_plan_process_device(p, n - 1)))
                __builtin_trap();
        }
    }
    if (used != p->n_mesh || n != p->n_mesh)
        __builtin_trap();
}

/* ---- emitters ----------------------------------------------------------------- */

const struct mg_compile_opts *mg_fuzz_opts(int bit)
{
    static const struct mg_compile_opts opts[2] = {{.groups = MG_WHEN_NEVER},
                                                   {.groups = MG_WHEN_ALWAYS}};
    return &opts[bit ? 1 : 0];
}

/* `meshgen env` for the first and the last process, by index (the model
 * turned into runtime tables, checked by the runtime, and both forms
 * printed): it must always find them. */
static void mg_fuzz_emit_env(struct mg_buf *b, const struct mg_plan *plan)
{
    struct mg_mark at = {"fuzz", 0, 0};
    struct mg_env_query q;
    struct mg_arena a;
    struct mg_diags d;
    struct mg_env e;
    int k;

    for (k = 0; k < 2; k++) {
        mg_arena_init(&a);
        mg_diags_init(&d, &a);
        memset(&q, 0, sizeof q);
        q.local_rank = -1;
        q.process = k ? plan->n_processes - 1 : 0;
        if (mg_env_resolve(&a, &d, plan, &q, at, &e) != 0 || e.process != q.process)
            __builtin_trap();
        mg_emit_env(b, &e, MG_ENV_SH);
        mg_emit_env(b, &e, MG_ENV_JSON);
        mg_arena_free(&a);
    }
}

void mg_fuzz_emit_all(const struct mg_plan *plan, const char *inputs)
{
    struct mg_buf b;

    mg_fuzz_check_plan(plan);
    if (!mg_fuzz_emits(plan))
        return;
    mg_buf_init(&b);
    mg_emit_header(&b, plan, inputs);
    mg_emit_source(&b, plan, inputs);
    mg_emit_json(&b, plan);
    mg_emit_grid(&b, plan, 0, MG_COLOR_BY_HOST);
    mg_emit_grid(&b, plan, 1, MG_COLOR_BY_SLICE);
    mg_emit_svg(&b, plan, MG_COLOR_BY_HOST);
    mg_emit_svg(&b, plan, MG_COLOR_BY_SLICE);
    mg_emit_svg(&b, plan, MG_COLOR_BY_STAGE);
    mg_fuzz_emit_env(&b, plan);
    mg_buf_free(&b);
}

int mg_fuzz_replay(void)
{
    static int replay = -1;

    if (replay < 0) {
        const char *v = getenv("MESHGEN_FUZZ_REPLAY");
        replay = v && strcmp(v, "1") == 0;
    }
    return replay;
}

/* ---- the mutation ---------------------------------------------------------------- */

/* The plain item that starts at data[i] (after '[' and blanks): its end,
 * or 0 when there is none (a nested collection, a quote, the end). */
static size_t mg_fuzz_item_end(const uint8_t *data, size_t size, size_t i)
{
    size_t e = i;

    while (e < size && e - i <= 64 && !memchr("[]{},\n\"'#", data[e], 9))
        e++;
    if (e == i || e - i > 64 || e >= size || (data[e] != ',' && data[e] != ']'))
        return 0;
    while (e > i && data[e - 1] == ' ')
        e--;
    return e > i ? e : 0;
}

/* Repeats the item after the n-th '[' (counted modulo their number) k times. */
static size_t mg_fuzz_repeat_item(uint8_t *data, size_t size, size_t max_size, unsigned n,
                                  unsigned k)
{
    size_t i, start = 0, end = 0, count = 0, len, grow;
    unsigned r;

    for (i = 0; i < size; i++)
        count += data[i] == '[';
    if (count == 0)
        return 0;
    for (i = 0, r = n % (unsigned)count; i < size; i++) {
        if (data[i] != '[' || r-- != 0)
            continue;
        for (start = i + 1; start < size && data[start] == ' '; start++)
            ;
        end = mg_fuzz_item_end(data, size, start);
        break;
    }
    if (end == 0)
        return 0;
    len = end - start;
    grow = (size_t)k * (len + 2);
    if (size + grow > max_size)
        return 0;
    memmove(data + end + grow, data + end, size - end);
    for (i = 0; i < k; i++) {
        uint8_t *at = data + end + i * (len + 2);
        at[0] = ',';
        at[1] = ' ';
        memmove(at + 2, data + start, len);
    }
    return size + grow;
}

size_t mg_fuzz_mutate_yaml(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    if (seed % 8 == 0) {
        size_t grown = mg_fuzz_repeat_item(data, size, max_size, seed / 8, 1 + (seed >> 20) % 16);
        if (grown)
            return grown;
    }
    return LLVMFuzzerMutate(data, size, max_size);
}

/* ---- the compile check ---------------------------------------------------------- */

static char mg_fuzz_dir[] = "/tmp/meshgen-fuzz-XXXXXX";
static int mg_fuzz_dir_made;

static void mg_fuzz_remove_dir(void)
{
    rmdir(mg_fuzz_dir);
}

static int mg_fuzz_write(const char *path, const struct mg_buf *b)
{
    FILE *f = fopen(path, "wb");
    int ok;

    if (!f)
        return -1;
    ok = fwrite(b->data, 1, b->len, f) == b->len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Runs one compiler; returns its exit status, or -2 when it cannot run. */
static int mg_fuzz_run_cc(const char *cc, const char *src)
{
    char *argv[] = {(char *)cc,
                    "-std=c11",
                    "-Wall",
                    "-Wextra",
                    "-Wpedantic",
                    "-Werror",
                    "-fsyntax-only",
                    "-I",
                    mg_fuzz_dir,
                    "-I",
                    MESHGEN_FUZZ_RUNTIME_INCLUDE,
                    (char *)src,
                    NULL};
    pid_t pid;
    int status;

    if (posix_spawnp(&pid, cc, NULL, NULL, argv, environ) != 0)
        return -2;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -2;
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
        return -2;
    return WEXITSTATUS(status);
}

int mg_fuzz_compile(const char *name, const struct mg_buf *h, const struct mg_buf *c)
{
    char hpath[256], cpath[256], ccs[] = MESHGEN_FUZZ_CCS;
    char *cc, *save = NULL;
    int bad = 0;

    if (!mg_fuzz_dir_made) {
        if (!mkdtemp(mg_fuzz_dir)) {
            perror("meshgen fuzz: mkdtemp");
            return 0;
        }
        mg_fuzz_dir_made = 1;
        atexit(mg_fuzz_remove_dir);
    }
    snprintf(hpath, sizeof hpath, "%s/%s_mesh.h", mg_fuzz_dir, name);
    snprintf(cpath, sizeof cpath, "%s/%s_mesh.c", mg_fuzz_dir, name);
    if (mg_fuzz_write(hpath, h) == 0 && mg_fuzz_write(cpath, c) == 0) {
        for (cc = strtok_r(ccs, " ", &save); cc && !bad; cc = strtok_r(NULL, " ", &save)) {
            int rc = mg_fuzz_run_cc(cc, cpath);
            if (rc == -2)
                fprintf(stderr, "meshgen fuzz: cannot run '%s'; its check is skipped\n", cc);
            bad = rc > 0;
        }
    }
    /* A rejected pair stays behind for a look; the fuzzer stops anyway. */
    if (!bad) {
        unlink(hpath);
        unlink(cpath);
    } else {
        fprintf(stderr, "meshgen fuzz: the emitted C was rejected; kept in %s\n", mg_fuzz_dir);
    }
    return bad ? -1 : 0;
}

/* ---- the input as a file -------------------------------------------------------- */

static char mg_input_dir[64];
static char mg_input_path[128];

static void mg_input_cleanup(void)
{
    unlink(mg_input_path);
    rmdir(mg_input_dir);
}

static void mg_input_setup(const char *name)
{
    static hwloc_topology_t keep;
    struct stat st;

    snprintf(mg_input_dir, sizeof mg_input_dir, "%s/meshgen-fuzz-XXXXXX",
             stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp");
    if (!mkdtemp(mg_input_dir))
        abort();
    if (snprintf(mg_input_path, sizeof mg_input_path, "%s/%s", mg_input_dir, name) >=
        (int)sizeof mg_input_path)
        abort();
    atexit(mg_input_cleanup);
    hwloc_topology_init(&keep);
}

const char *mg_fuzz_write_input(const char *name, const uint8_t *data, size_t size)
{
    int fd;

    if (!mg_input_path[0])
        mg_input_setup(name);
    fd = open(mg_input_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0)
        abort();
    return mg_input_path;
}
