/*
 * Fuzz target: bytes -> mg_yaml_parse -> mg_spec_from_node -> mg_compile
 * against a fixed inventory -> header, source and JSON, then every
 * diagnostic formatted. The input's length picks the inventory, whether group
 * tables are emitted and the format of the diagnostics. The spec's
 * `inventory:` text, which can be anything, stands in the banner where the
 * driver puts the inventory's name; the file name has the characters that
 * GitHub annotations escape.
 */
#include "fuzz_common.h"

#define MG_FUZZ_FILE "specs/a,b:c\r\n%/fuzz.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct mg_inventory *inv = mg_fuzz_inventory((int)(size >> 1 & 1));
    struct mg_arena a;
    struct mg_diags d;
    struct mg_node *root;
    struct mg_spec *spec = NULL;
    struct mg_plan *plan = NULL;
    struct mg_buf text;

    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    root = mg_yaml_parse(&a, &d, MG_FUZZ_FILE, (const char *)data, size);
    if (root)
        spec = mg_spec_from_node(&a, &d, MG_FUZZ_FILE, root);
    /* As the driver: a spec with errors of its own is not planned. */
    if (spec && d.n_errors == 0)
        plan = mg_compile(&a, &d, spec, inv, mg_fuzz_opts((int)(size & 1)));
    if (plan)
        mg_fuzz_emit_all(plan, mg_printf(&a, "spec fuzz.yaml, inventory %s",
                                         spec->inventory ? spec->inventory : "live"));
    mg_buf_init(&text);
    mg_emit_diags(&text, &d, (enum mg_diag_format)(size % 4));
    mg_buf_free(&text);
    mg_arena_free(&a);
    return 0;
}
