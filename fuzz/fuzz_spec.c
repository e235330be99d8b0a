/*
 * Fuzz target: bytes -> mg_yaml_parse -> mg_spec_from_node -> mg_compile
 * against a fixed inventory -> header, source and JSON, then every
 * diagnostic formatted. A spec whose `inventory:` starts with "large" plans
 * against the large inventory (16384 GPUs); otherwise the input's length
 * picks the inventory. The length also picks whether group tables are
 * emitted and the format of the diagnostics. The spec's
 * `inventory:` text, which can be anything, stands in the banner where the
 * driver puts the inventory's name; the file name has the characters that
 * GitHub annotations escape. MESHGEN_FUZZ_PRINT=1 prints the diagnostics
 * and whether the input planned, to see what a seed reaches.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

#define MG_FUZZ_FILE "specs/a,b:c\r\n%/fuzz.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
        plan = mg_compile(&a, &d, spec, mg_fuzz_inventory_for(spec, size),
                          mg_fuzz_opts((int)(size & 1)));
    if (plan)
        mg_fuzz_emit_all(plan, mg_printf(&a, "spec fuzz.yaml, inventory %s",
                                         spec->inventory ? spec->inventory : "live"));
    mg_buf_init(&text);
    mg_emit_diags(&text, &d, (enum mg_diag_format)(size % 4));
    /* To see what a seed reaches: the diagnostics, and whether it planned. */
    if (getenv("MESHGEN_FUZZ_PRINT"))
        fprintf(stderr, "%.*s%s\n", (int)text.len, text.data, plan ? "planned" : "not planned");
    mg_buf_free(&text);
    mg_arena_free(&a);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return mg_fuzz_mutate_yaml(data, size, max_size, seed);
}
