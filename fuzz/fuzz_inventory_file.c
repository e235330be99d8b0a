/*
 * Fuzz target: bytes -> a file in a private temporary directory ->
 * mg_inventory_file_load. Topologies it names relative to itself are
 * mostly missing files; synthetic ones load through hwloc, which is quick
 * (no discovery: the directory is absolute, so `topology: live` is a file
 * name). An inventory of up to 256 hosts that loads is planned as one flat
 * axis, granules being slices, and emitted, so that its host and slice
 * names and topology labels reach the emitters. Inputs over 64 KiB are
 * skipped.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "fuzz_common.h"
#include "inventory.h"

static char mg_dir[64];
static char mg_path[96];

static void mg_cleanup(void)
{
    unlink(mg_path);
    rmdir(mg_dir);
}

/* In memory where there is a tmpfs: rewriting a file on ext4 costs a
 * flush per input. */
static void mg_setup(void)
{
    static hwloc_topology_t keep;
    struct stat st;
    int fd;

    snprintf(mg_dir, sizeof mg_dir, "%s/meshgen-fuzz-inv-XXXXXX",
             stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp");
    if (!mkdtemp(mg_dir))
        abort();
    snprintf(mg_path, sizeof mg_path, "%s/inventory.yaml", mg_dir);
    atexit(mg_cleanup);
    /* hwloc loads its plugins with the first topology and unloads them
     * with the last; one held open keeps them loaded, as in a long run. */
    hwloc_topology_init(&keep);
    /* A topology named /dev/stdin must not wait for a terminal. */
    if ((fd = open("/dev/null", O_RDONLY)) >= 0 && dup2(fd, 0) >= 0 && fd != 0)
        close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mg_mark at = {"--inventory", 0, 0};
    struct mg_arena a;
    struct mg_diags d;
    struct mg_inventory *inv;
    struct mg_plan *plan;
    int fd, h;

    if (size > 64 * 1024)
        return -1;
    if (!mg_path[0])
        mg_setup();
    fd = open(mg_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0)
        abort();
    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    inv = mg_inventory_file_load(&a, &d, mg_path, at);
    /* NULL exactly when it reported; every host on a loaded topology. */
    if ((inv == NULL) != (d.n_errors > 0))
        __builtin_trap();
    for (h = 0; inv && h < inv->n_hosts; h++)
        if (!inv->hosts[h].name || inv->hosts[h].topology < 0 ||
            inv->hosts[h].topology >= inv->n_topologies)
            __builtin_trap();
    if (inv && inv->n_hosts <= 256) {
        struct mg_spec *spec = mg_spec_from_string(&a, &d, "d:-1", NULL, "inv");
        spec->granule = MG_GRANULE_SLICE;
        plan = mg_plan_build(&a, &d, spec, inv);
        if (plan)
            mg_fuzz_emit_all(plan, inv, "spec --mesh d:-1, inventory fuzz.yaml", (int)(size & 1));
    }
    mg_arena_free(&a);
    return 0;
}
