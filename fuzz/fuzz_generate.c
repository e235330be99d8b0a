/*
 * Fuzz target: bytes -> spec -> plan against a fixed inventory (the large
 * one for `inventory: large...`, else picked by the input's length) ->
 * <name>_mesh.h and <name>_mesh.c (plans of at most MG_FUZZ_EMIT_MAX
 * devices), and for a
 * sample of the inputs that give a plan (1 in 500 by a hash of the input,
 * at most once a second) the emitted C is compiled with -std=c11 -Wall
 * -Wextra -Wpedantic -Werror: it must always compile.
 * MESHGEN_FUZZ_REPLAY=1 compiles every plan, to reproduce or minimise a
 * rejection.
 */
#include <time.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static time_t last;
    struct mg_arena a;
    struct mg_diags d;
    struct mg_node *root = NULL;
    struct mg_spec *spec = NULL;
    struct mg_plan *plan = NULL;
    struct mg_buf h, c;
    const char *inputs;

    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    root = mg_yaml_parse(&a, &d, "fuzz.yaml", (const char *)data, size);
    if (root)
        spec = mg_spec_from_node(&a, &d, "fuzz.yaml", root);
    if (spec && d.n_errors == 0)
        plan = mg_compile(&a, &d, spec, mg_fuzz_inventory_for(spec, size),
                          mg_fuzz_opts((int)(size & 1)));
    if (plan)
        mg_fuzz_check_plan(plan);
    if (plan && mg_fuzz_emits(plan)) {
        inputs = mg_printf(&a, "spec fuzz.yaml, inventory %s",
                           spec->inventory ? spec->inventory : "live");
        mg_buf_init(&h);
        mg_buf_init(&c);
        mg_emit_header(&h, plan, inputs);
        mg_emit_source(&c, plan, inputs);
        if (mg_fuzz_replay() || (mg_hash(data, size) % 500 == 0 && time(NULL) != last)) {
            last = time(NULL);
            if (mg_fuzz_compile(plan->name, &h, &c) != 0)
                __builtin_trap();
        }
        mg_buf_free(&h);
        mg_buf_free(&c);
    }
    mg_arena_free(&a);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return mg_fuzz_mutate_yaml(data, size, max_size, seed);
}
