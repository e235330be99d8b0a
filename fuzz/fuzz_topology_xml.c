/*
 * Fuzz target: bytes -> topology.xml in a private directory ->
 * mg_inventory_load of that file, as `--inventory topology.xml` loads it:
 * the prolog check that keeps hostile XML from hwloc 2.9's reader
 * (meshgen__xml_refusal: DOCTYPEs, encodings), hwloc's XML import, the GPU
 * rules and the extraction of every device. NULL exactly when it reported;
 * a loaded topology is listed (mg_emit_inventory) when it has at most 256
 * GPUs. Inputs over 1 MiB are skipped: hwloc's reader is linear in them.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mg_mark at = {"--inventory", 0, 0};
    struct mg_arena a;
    struct mg_diags d;
    struct mg_inventory *inv;
    const char *path;

    if (size > 1024 * 1024)
        return -1;
    path = mg_fuzz_write_input("topology.xml", data, size);
    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    inv = mg_inventory_load(&a, &d, path, at);
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
