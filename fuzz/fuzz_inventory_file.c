/*
 * Fuzz target: bytes -> a file in a private temporary directory ->
 * mg_inventory_load. Topologies it names relative to itself are mostly
 * missing files; synthetic ones load through hwloc, which is quick (no
 * discovery: the directory is absolute, so `topology: live` is a file
 * name). An inventory that loads is listed, planned as one flat axis,
 * granules being slices, and emitted, so that its host and slice names and
 * topology labels reach every emitter. Inputs over 64 KiB are skipped. Unless
 * MESHGEN_FUZZ_REPLAY=1 (the regressions), so are inventories that ask for
 * more than 256 names in all hostlists or 256 leaves in a synthetic topology,
 * and only inventories of up to 256 devices are planned: large inventories
 * cost time in proportion to their size or its square (sorting hosts,
 * closeness matrices, the locality order), not new paths, and slowed the
 * search to a few hundred inputs a second; fuzz_hostlist and the unit tests
 * take the large ones.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

/* A topology named /dev/stdin must not wait for a terminal: standard
 * input is /dev/null from the first input on. */
static void mg_stdin_null(void)
{
    static int done;
    int fd;

    if (done)
        return;
    done = 1;
    if ((fd = open("/dev/null", O_RDONLY)) >= 0 && dup2(fd, 0) >= 0 && fd != 0)
        close(fd);
}

/* Saturating arithmetic for the estimates below. */
static uint64_t mg_sat(uint64_t x)
{
    return x > 1000000 ? 1000000 : x;
}

/* The names a hostlist gives: over its top-level items, the product of its
 * groups' range lengths. Text that is no hostlist counts what it can. */
static uint64_t mg_names_estimate(const char *s)
{
    uint64_t total = 0, item = 1, group = 0, lo = 0, v = 0;
    int in = 0, dash = 0;

    for (;; s++) {
        if (*s >= '0' && *s <= '9') {
            v = mg_sat(v * 10 + (uint64_t)(*s - '0'));
            continue;
        }
        if (in && (*s == ',' || *s == ']' || *s == '\0')) {
            group = mg_sat(group + (dash && v >= lo ? v - lo + 1 : 1));
            dash = 0;
        }
        if (in && *s == '-') {
            lo = v;
            dash = 1;
        } else if (!in && *s == '[') {
            in = 1;
            group = 0;
        } else if (in && (*s == ']' || *s == '\0')) {
            in = 0;
            item = mg_sat(item * group);
        }
        if (!in && (*s == ',' || *s == '\0')) {
            total = mg_sat(total + item);
            item = 1;
        }
        v = 0;
        if (*s == '\0')
            return total;
    }
}

/* The leaves a synthetic description asks for: the product of its numbers. */
static uint64_t mg_leaves_estimate(const char *s)
{
    uint64_t product = 1, v = 0;

    for (;; s++) {
        if (*s >= '0' && *s <= '9') {
            v = mg_sat(v * 10 + (uint64_t)(*s - '0'));
            continue;
        }
        product = mg_sat(product * (v ? v : 1));
        v = 0;
        if (*s == '\0')
            return product;
    }
}

/* Whether the inventory is large: its hostlists give more than 256 names
 * in all (every `hosts` key counts, a repeated one too: the loader expands
 * them before it reports the repetition), or a synthetic topology asks for
 * more than 256 leaves. */
static int mg_large(const uint8_t *data, size_t size)
{
    struct mg_arena a;
    struct mg_diags d;
    const struct mg_node *root;
    uint64_t names = 0;
    size_t i, j, k;
    int large = 0;

    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    root = mg_yaml_parse(&a, &d, "fuzz.yaml", (const char *)data, size);
    for (k = 0; root && root->kind == MG_NODE_MAP && k < root->n; k++) {
        const struct mg_node *hosts = root->items[k];
        if (strcmp(root->keys[k]->value, "hosts") != 0 || hosts->kind != MG_NODE_SEQ)
            continue;
        for (i = 0; i < hosts->n; i++) {
            const struct mg_node *g = hosts->items[i];
            for (j = 0; g->kind == MG_NODE_MAP && j < g->n; j++) {
                const char *key = g->keys[j]->value, *value = g->items[j]->value;
                if (g->items[j]->kind != MG_NODE_SCALAR)
                    continue;
                if (strcmp(key, "names") == 0)
                    names = mg_sat(names + mg_names_estimate(value));
                else if (strcmp(key, "synthetic") == 0 && mg_leaves_estimate(value) > 256)
                    large = 1;
            }
        }
    }
    mg_arena_free(&a);
    return large || names > 256;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mg_mark at = {"--inventory", 0, 0};
    struct mg_arena a;
    struct mg_diags d;
    struct mg_inventory *inv;
    struct mg_plan *plan;
    int64_t devices = 0;
    const char *path;
    int h;

    if (size > 64 * 1024 || (!mg_fuzz_replay() && mg_large(data, size)))
        return -1;
    mg_stdin_null();
    path = mg_fuzz_write_input("inventory.yaml", data, size);
    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    inv = mg_inventory_load(&a, &d, path, at);
    /* NULL exactly when it reported; every host on a loaded topology. */
    if ((inv == NULL) != (d.n_errors > 0))
        __builtin_trap();
    for (h = 0; inv && h < inv->n_hosts; h++) {
        const struct mg_host *host = &inv->hosts[h];
        if (!host->name || host->topology < 0 || host->topology >= inv->n_topologies)
            __builtin_trap();
        /* At least the devices of any one kind. */
        devices += inv->topologies[host->topology].n[MG_KIND_GPU] +
                   inv->topologies[host->topology].n[MG_KIND_CORE] +
                   inv->topologies[host->topology].n[MG_KIND_PU];
    }
    if (inv && (devices <= 256 || mg_fuzz_replay())) {
        struct mg_spec *spec = mg_spec_from_string(&a, &d, "d:-1", NULL, "inv");
        struct mg_buf listing;

        /* The listing of `meshgen inventory` shows every name it holds. */
        mg_buf_init(&listing);
        mg_emit_inventory(&listing, inv);
        mg_buf_free(&listing);
        spec->granule = MG_GRANULE_SLICE;
        plan = mg_compile(&a, &d, spec, inv, mg_fuzz_opts((int)(size & 1)));
        if (plan)
            mg_fuzz_emit_all(plan, "spec --mesh d:-1, inventory fuzz.yaml");
    }
    mg_arena_free(&a);
    return 0;
}
