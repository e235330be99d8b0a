/*
 * The generator's public API (<meshgen/gen.h>, gen/run.c) as a library
 * caller uses it, with no other header of gen/: a run loads a spec and its
 * inventory, compiles, emits, and hands every diagnostic to the caller's
 * callback, located and in source order; its status is the tool's exit
 * code. The specs are written by the test into a private directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <meshgen/gen.h>

#define SYNTH "synthetic:pack:2 core:4 pu:1"

/* What the callback was given, copied. */
struct seen {
    int n;
    char text[8][512];
};

static void collect(void *ctx, const struct mg_message *m)
{
    struct seen *s = ctx;
    if (s->n < 8)
        snprintf(s->text[s->n], sizeof s->text[0], "%s:%d:%d: %s [%s]%s%s", m->file ? m->file : "-",
                 m->line, m->col, m->severity == MG_SEV_ERROR ? "error" : "other", m->check,
                 m->related_file ? " related " : "", m->related_file ? m->related_file : "");
    s->n++;
}

struct fx {
    char dir[64];
    char spec[128];
    struct mg_opts opts;
    struct seen seen;
};

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/meshgen-api-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->spec, sizeof f->spec, "%s/spec.yaml", f->dir);
    mg_opts_init(&f->opts);
    f->opts.inventory = SYNTH;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    unlink(f->spec);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void write_spec(struct fx *f, const char *text)
{
    FILE *fp = fopen(f->spec, "w");
    assert_non_null(fp);
    assert_true(fputs(text, fp) >= 0);
    assert_int_equal(fclose(fp), 0);
}

/* A spec that compiles: every output is there, named from the spec, and
 * no diagnostic reaches the callback. */
static void test_load_compile_emit(void **state)
{
    struct fx *f = *state;
    struct mg_run *r;
    struct mg_buf b;

    write_spec(f, "meshgen: 1\nname: api\nmesh:\n  axes: [dp, tp]\n  shape: [2, 4]\n");
    r = mg_run_new(&f->opts, collect, &f->seen);
    assert_int_equal(mg_run_load(r, f->spec), 0);
    assert_string_equal(mg_run_name(r), "api");
    assert_int_equal(mg_run_compile(r), 0);
    mg_buf_init(&b);
    assert_int_equal(mg_run_emit(r, MG_EMIT_HEADER, &b), 0);
    assert_non_null(strstr(b.data, "#define API_MESH_DEVICES 8"));
    b.len = 0;
    assert_int_equal(mg_run_emit(r, MG_EMIT_SOURCE, &b), 0);
    assert_non_null(strstr(b.data, "spec spec.yaml, inventory " SYNTH));
    b.len = 0;
    assert_int_equal(mg_run_emit(r, MG_EMIT_JSON, &b), 0);
    assert_non_null(strstr(b.data, "\"name\": \"api\""));
    b.len = 0;
    assert_int_equal(mg_run_emit(r, MG_EMIT_SVG, &b), 0);
    assert_non_null(strstr(b.data, "<svg"));
    mg_buf_free(&b);
    assert_int_equal(f->seen.n, 0);
    assert_int_equal(mg_run_status(r), MG_EXIT_OK);
    mg_run_free(r);
}

/* Errors reach the callback with their check and place, in source order
 * whatever order the checks ran in; nothing is emitted, and the status is
 * the tool's exit code for wrong inputs. */
static void test_diagnostics_by_callback(void **state)
{
    struct fx *f = *state;
    struct mg_run *r;
    struct mg_buf b;
    char want[2][320];

    /* The name's check runs before the axes' (checks.def), its line is
     * later. */
    write_spec(f, "meshgen: 1\nmesh:\n  axes: [dp, dp]\n  shape: [2, 4]\nname: 9x\n");
    r = mg_run_new(&f->opts, collect, &f->seen);
    assert_int_equal(mg_run_load(r, f->spec), 0);
    assert_int_equal(f->seen.n, 0);
    assert_int_equal(mg_run_compile(r), -1);
    assert_int_equal(f->seen.n, 2);
    snprintf(want[0], sizeof want[0], "%s:3:14: error [axis-name-unique] related %s", f->spec,
             f->spec);
    snprintf(want[1], sizeof want[1], "%s:5:7: error [name-identifier]", f->spec);
    assert_string_equal(f->seen.text[0], want[0]);
    assert_string_equal(f->seen.text[1], want[1]);
    mg_buf_init(&b);
    assert_int_equal(mg_run_emit(r, MG_EMIT_HEADER, &b), -1);
    assert_int_equal(b.len, 0);
    mg_buf_free(&b);
    assert_int_equal(mg_run_status(r), MG_EXIT_INPUT);
    mg_run_free(r);
}

/* A spec that cannot be read is an I/O error: status 2, reported once. */
static void test_unreadable_spec(void **state)
{
    struct fx *f = *state;
    struct mg_run *r = mg_run_new(&f->opts, collect, &f->seen);

    assert_int_equal(mg_run_load(r, f->spec), -1);
    assert_int_equal(mg_run_compile(r), -1);
    assert_int_equal(f->seen.n, 1);
    assert_non_null(strstr(f->seen.text[0], "[io]"));
    assert_int_equal(mg_run_status(r), MG_EXIT_USAGE);
    mg_run_free(r);
}

/* --mesh and --name through the options, and a callback of NULL. */
static void test_mesh_string(void **state)
{
    struct fx *f = *state;
    struct mg_run *r;
    struct mg_buf b;

    f->opts.mesh = "dp:2,tp:-1";
    f->opts.name = "small";
    r = mg_run_new(&f->opts, NULL, NULL);
    assert_int_equal(mg_run_load(r, NULL), 0);
    assert_int_equal(mg_run_compile(r), 0);
    assert_string_equal(mg_run_name(r), "small");
    mg_buf_init(&b);
    assert_int_equal(mg_run_emit(r, MG_EMIT_GRID, &b), 0);
    assert_null(strchr(b.data, '\033')); /* colour only when asked for */
    mg_buf_free(&b);
    assert_int_equal(mg_run_status(r), MG_EXIT_OK);
    mg_run_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_compile_emit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diagnostics_by_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_spec, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mesh_string, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
