/*
 * The fixed inventory, the emitters and the compile check shared by the
 * fuzz targets (see fuzz_common.h). It builds its model in C, as the unit
 * tests do, and knows no input format.
 */
#include "fuzz_common.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- the inventory -------------------------------------------------------------- */

#define MG_FUZZ_HOSTS 4

/* Names as a hostile inventory could spell them: each breaks C or JSON text
 * that does not escape it (in C, a trigraph can end a literal). */
static const char *const mg_fuzz_host_names[MG_FUZZ_HOSTS] = {
    "node-0", "node\"1\\", "node*/2?\?/", "n\303\266de-3\t"};
static const char *const mg_fuzz_slices[MG_FUZZ_HOSTS] = {"rack?\?=A */", "rack?\?=A */",
                                                          "rack\\B\n\x01", "rack\\B\n\x01"};

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
        d->pci = kind == MG_KIND_GPU ? mg_printf(a, "0000:%02x:00.0", 0x18 + i) : "";
        d->vendor = kind == MG_KIND_GPU ? "NVIDIA \"Corporation\"" : "GenuineIntel";
        d->model = kind == MG_KIND_GPU ? "H100 ?\?/ */ /* \\" : "Xeon(R) ?\?( \x7f";
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
            m[i * n + j] = i == j                   ? 6
                           : i / block == j / block   ? 5
                           : i / (n / 2) == j / (n / 2) ? 4
                                                      : 3;
    return m;
}

const struct mg_inventory *mg_fuzz_inventory(void)
{
    /* Built once: the planner only reads it. */
    static struct mg_arena arena;
    static struct mg_inventory *inv;
    struct mg_arena *a = &arena;
    struct mg_topology *t;
    int h;

    if (inv)
        return inv;
    inv = mg_alloc(a, sizeof *inv);
    t = mg_alloc(a, sizeof *t);

    t->key = "synthetic:fuzz";
    t->label = "fuzz */ ?\?/";
    mg_fuzz_devices(a, t, MG_KIND_GPU, 8, 4);
    mg_fuzz_devices(a, t, MG_KIND_CORE, 16, 8);
    mg_fuzz_devices(a, t, MG_KIND_NUMA, 2, 1);
    mg_fuzz_devices(a, t, MG_KIND_PACKAGE, 2, 1);
    mg_fuzz_devices(a, t, MG_KIND_PU, 32, 16);
    t->closeness[MG_KIND_GPU] = mg_fuzz_closeness(a, 8, 2);
    t->closeness[MG_KIND_CORE] = mg_fuzz_closeness(a, 16, 4);
    memset(t->digest, 'f', 64);

    inv->source = "fuzz-inventory.yaml";
    inv->n_topologies = 1;
    inv->topologies = t;
    inv->n_hosts = MG_FUZZ_HOSTS;
    inv->hosts = mg_alloc_array(a, MG_FUZZ_HOSTS, sizeof *inv->hosts);
    for (h = 0; h < MG_FUZZ_HOSTS; h++) {
        struct mg_mark at = {"fuzz-inventory.yaml", 3 + h, 5};
        inv->hosts[h].name = mg_fuzz_host_names[h];
        inv->hosts[h].slice = mg_fuzz_slices[h];
        inv->hosts[h].topology = 0;
        inv->hosts[h].at = at;
    }
    inv->n_files = 1;
    inv->files = mg_alloc(a, sizeof *inv->files);
    inv->files[0] = inv->source;
    return inv;
}

/* ---- emitters ----------------------------------------------------------------- */

void mg_fuzz_emit_all(struct mg_plan *plan, const struct mg_inventory *inv, const char *inputs,
                      int bit)
{
    struct mg_buf b;

    plan->emit_groups = bit || (int64_t)plan->n_mesh * plan->n_axes <= MG_GROUPS_AUTO_LIMIT;
    mg_buf_init(&b);
    mg_emit_header(&b, plan, inv, inputs);
    mg_emit_source(&b, plan, inv, inputs);
    mg_emit_json(&b, plan, inv);
    mg_buf_free(&b);
}

uint64_t mg_fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 14695981039346656037u;
    size_t i;

    for (i = 0; i < size; i++)
        h = (h ^ data[i]) * 1099511628211u;
    return h;
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
    char *argv[] = {(char *)cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                    "-fsyntax-only", "-I", mg_fuzz_dir, "-I", MESHGEN_FUZZ_RUNTIME_INCLUDE,
                    (char *)src, NULL};
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
