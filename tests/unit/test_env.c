/*
 * Unit tests of `meshgen env`'s emitter (emit_env.c) on answers built in
 * C: the sh form quotes every value as one word whatever it holds, the
 * JSON form escapes it. (tests/tools/env_check.py runs the command on
 * real inventories and launchers' variables.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static struct mg_env answer(void)
{
    static const int devices[] = {5, 6, 7};
    struct mg_env e;

    memset(&e, 0, sizeof e);
    e.process = 1;
    e.n_processes = 2;
    e.host = 1;
    e.host_name = "n\"1";
    e.first = 1;
    e.count = 2;
    e.devices = devices;
    e.n_vars = 3;
    e.names[0] = "CUDA_VISIBLE_DEVICES";
    e.values[0] = "it's";
    e.names[1] = "OMP_PLACES";
    e.values[1] = "$(touch x) `y` \"z\"\n;";
    e.names[2] = "MESHGEN_PROCESS";
    e.values[2] = "";
    return e;
}

static void test_sh_quoting(void **state)
{
    struct mg_env e = answer();
    struct mg_buf b;

    (void)state;
    mg_buf_init(&b);
    mg_emit_env(&b, &e, MG_ENV_SH);
    assert_string_equal(b.data, "export CUDA_VISIBLE_DEVICES='it'\\''s'\n"
                                "export OMP_PLACES='$(touch x) `y` \"z\"\n;'\n"
                                "export MESHGEN_PROCESS=''\n");
    mg_buf_free(&b);
}

static void test_json(void **state)
{
    struct mg_env e = answer();
    struct mg_buf b;

    (void)state;
    mg_buf_init(&b);
    mg_emit_env(&b, &e, MG_ENV_JSON);
    assert_non_null(strstr(b.data, "\"process\": 1,"));
    assert_non_null(strstr(b.data, "\"process_count\": 2,"));
    assert_non_null(strstr(b.data, "\"host_name\": \"n\\\"1\""));
    assert_non_null(strstr(b.data, "\"devices\": [6, 7]"));
    assert_non_null(strstr(b.data, "\"OMP_PLACES\": \"$(touch x) `y` \\\"z\\\"\\n;\""));
    assert_non_null(strstr(b.data, "\"notes\": []"));
    assert_int_equal(b.data[b.len - 1], '\n');
    mg_buf_free(&b);
}

/* Notes: sh comments before the exports, each line of one commented (a
 * newline in a note cannot start a command), JSON strings in "notes". */
static void test_notes(void **state)
{
    struct mg_env e = answer();
    struct mg_buf b;

    (void)state;
    e.n_vars = 1;
    e.n_notes = 2;
    e.notes[0] = "TPU: no device variable";
    e.notes[1] = "vendor 'x\ntouch y'\r";
    mg_buf_init(&b);
    mg_emit_env(&b, &e, MG_ENV_SH);
    assert_string_equal(b.data, "# TPU: no device variable\n"
                                "# vendor 'x\n"
                                "# touch y'\n"
                                "# \n"
                                "export CUDA_VISIBLE_DEVICES='it'\\''s'\n");
    mg_buf_free(&b);
    mg_buf_init(&b);
    mg_emit_env(&b, &e, MG_ENV_JSON);
    assert_non_null(strstr(b.data, "\"notes\": [\n"));
    assert_non_null(strstr(b.data, "\"TPU: no device variable\",\n"));
    assert_non_null(strstr(b.data, "\"vendor 'x\\ntouch y'\\r\"\n"));
    mg_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sh_quoting),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
