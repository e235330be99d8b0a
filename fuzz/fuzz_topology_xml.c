/*
 * Fuzz target: bytes -> topology.xml in a private directory ->
 * mg_inventory_load of that file, as `--inventory topology.xml` loads it:
 * the prolog check that keeps hostile XML from hwloc 2.9's reader
 * (meshgen__xml_refusal: DOCTYPEs, encodings), hwloc's XML import, the GPU
 * rules and the extraction of every device. NULL exactly when it reported;
 * a loaded topology is listed (mg_emit_inventory) when it has at most 256
 * GPUs. Inputs over 1 MiB are skipped: hwloc's reader is linear in them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "fuzz_common.h"

static char mg_dir[64];
static char mg_path[96];

static void mg_cleanup(void)
{
    unlink(mg_path);
    rmdir(mg_dir);
}

/* In memory where there is a tmpfs, as fuzz_inventory_file does. */
static void mg_setup(void)
{
    static hwloc_topology_t keep;
    struct stat st;

    snprintf(mg_dir, sizeof mg_dir, "%s/meshgen-fuzz-xml-XXXXXX",
             stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp");
    if (!mkdtemp(mg_dir))
        abort();
    snprintf(mg_path, sizeof mg_path, "%s/topology.xml", mg_dir);
    atexit(mg_cleanup);
    /* hwloc's plugins stay loaded between inputs, as in a long run. */
    hwloc_topology_init(&keep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mg_mark at = {"--inventory", 0, 0};
    struct mg_arena a;
    struct mg_diags d;
    struct mg_inventory *inv;
    int fd;

    if (size > 1024 * 1024)
        return -1;
    if (!mg_path[0])
        mg_setup();
    fd = open(mg_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size || close(fd) != 0)
        abort();
    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    inv = mg_inventory_load(&a, &d, mg_path, at);
    if ((inv == NULL) != (d.n_errors > 0))
        __builtin_trap();
    if (inv && inv->n_hosts != 1)
        __builtin_trap();
    if (inv && inv->topologies[0].n[MG_KIND_GPU] <= 256) {
        struct mg_buf listing;

        mg_buf_init(&listing);
        mg_emit_inventory(&listing, inv);
        mg_buf_free(&listing);
    }
    mg_arena_free(&a);
    return 0;
}
