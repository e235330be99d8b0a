/*
 * Unit tests of the first two stages: YAML text -> node tree (yaml_load.c)
 * and node tree or --mesh string -> struct mg_spec (spec.c), plus the
 * bounded file reader.
 *
 * Every negative case asserts the check name and the line:col the
 * diagnostic points at. Most inputs are strings in this file; the fixtures
 * under tests/data/spec/ are whole files read the way the driver reads them.
 * Nothing here needs an inventory or the later stages.
 */
/* mkstemp, ftruncate: the generator library gets this definition from its
 * build, a test file has to ask for it itself. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"
#include "test_diag.h"

#ifndef MESHGEN_TEST_DATA
#define MESHGEN_TEST_DATA "tests/data"
#endif
#define SPEC_DATA MESHGEN_TEST_DATA "/spec"

struct fx {
    struct mg_arena arena;
    struct mg_diags diags;
};

static int fx_setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    mg_arena_init(&f->arena);
    mg_diags_init(&f->diags, &f->arena);
    *state = f;
    return 0;
}

static int fx_teardown(void **state)
{
    struct fx *f = *state;
    mg_arena_free(&f->arena);
    free(f);
    return 0;
}

static struct mg_node *load_n(struct fx *f, const char *text, size_t len)
{
    return mg_yaml_parse(&f->arena, &f->diags, "t.yaml", text, len);
}

static struct mg_node *load(struct fx *f, const char *text)
{
    return load_n(f, text, strlen(text));
}

static struct mg_spec *parse(struct fx *f, const char *text)
{
    return mg_spec_from_node(&f->arena, &f->diags, "t.yaml", load(f, text));
}

static void assert_mark(struct mg_mark m, int line, int col)
{
    assert_non_null(m.file);
    assert_int_equal(m.line, line);
    assert_int_equal(m.col, col);
}

/* A minimal valid spec with `extra` appended inside `mesh:` (extra lines
 * start on line 6, indented by two spaces). */
static struct mg_spec *parse_mesh_extra(struct fx *f, const char *extra)
{
    char text[512];
    snprintf(text, sizeof text, "meshgen: 1\nname: m\nmesh:\n  axes: [a]\n  shape: [4]\n%s", extra);
    return parse(f, text);
}

/* ---- a full spec --------------------------------------------------------------- */

static void test_full_spec(void **state)
{
    struct fx *f = *state;
    size_t len;
    char *text = mg_read_file(&f->arena, &f->diags, SPEC_DATA "/full.yaml",
                              (struct mg_mark){"full.yaml", 0, 0}, &len);
    struct mg_spec *s;
    const struct mg_spec_sharding *sh;

    assert_non_null(text);
    s = mg_spec_from_node(&f->arena, &f->diags, SPEC_DATA "/full.yaml",
                          mg_yaml_parse(&f->arena, &f->diags, SPEC_DATA "/full.yaml", text, len));
    expect_clean(&f->diags);
    assert_non_null(s);
    assert_string_equal(s->file, SPEC_DATA "/full.yaml");
    assert_string_equal(s->dir, SPEC_DATA);
    assert_int_equal(s->format, 1);
    assert_string_equal(s->name, "llama_train");
    assert_mark(s->name_at, 3, 7);
    assert_string_equal(s->inventory, "../inventories/two-dgx.yaml");
    assert_mark(s->inventory_at, 4, 12);

    /* A block mapping starts at its first key. */
    assert_mark(s->mesh_at, 6, 3);
    assert_int_equal(s->n_axes, 3);
    assert_mark(s->axes_at, 6, 9);
    assert_string_equal(s->axes[0].name, "pp");
    assert_string_equal(s->axes[1].name, "dp");
    assert_string_equal(s->axes[2].name, "tp");
    assert_mark(s->axes[1].name_at, 6, 14);
    assert_int_equal(s->shape_n, 3);
    assert_mark(s->shape_at, 7, 10);
    assert_int_equal(s->axes[0].size, 2);
    assert_int_equal(s->axes[1].size, -1);
    assert_int_equal(s->axes[2].size, 8);
    assert_mark(s->axes[1].size_at, 7, 14);
    assert_mark(s->axes[2].size_at, 7, 18);
    assert_true(s->has_dcn);
    assert_int_equal(s->dcn_n, 3);
    assert_mark(s->dcn_at, 8, 8);
    assert_int_equal(s->axes[0].dcn, 2);
    assert_int_equal(s->axes[1].dcn, 1);
    assert_mark(s->axes[2].dcn_at, 8, 15);
    assert_true(s->has_types);
    assert_int_equal(s->types_n, 3);
    assert_int_equal(s->axes[0].type, MESHGEN_AXIS_EXPLICIT);
    assert_int_equal(s->axes[1].type, MESHGEN_AXIS_AUTO);
    assert_int_equal(s->axes[2].type, MESHGEN_AXIS_MANUAL);
    assert_mark(s->axes[1].type_at, 9, 21);
    assert_string_equal(s->mpmd, "pp");
    assert_mark(s->mpmd_at, 10, 9);
    assert_int_equal(s->device_kind, MG_KIND_NUMA);
    assert_mark(s->device_kind_at, 11, 16);
    assert_int_equal(s->order, MG_ORDER_INVENTORY);
    assert_int_equal(s->processes, MESHGEN_PROCESSES_DEVICE);
    assert_int_equal(s->devices, 16);
    assert_mark(s->devices_at, 14, 12);
    assert_int_equal(s->granule, MG_GRANULE_SLICE);
    assert_int_equal(s->sort_granules, 0);

    assert_int_equal(s->n_shardings, 3);
    sh = &s->shardings[0];
    assert_string_equal(sh->name, "activations");
    assert_mark(sh->at, 18, 3);
    assert_mark(sh->spec_at, 18, 23);
    assert_int_equal(sh->n_dims, 3);
    assert_int_equal(sh->dims[0].n_axes, 1);
    assert_string_equal(sh->dims[0].axes[0], "dp");
    assert_mark(sh->dims[0].at, 18, 24);
    assert_mark(sh->dims[0].axes_at[0], 18, 25);
    assert_int_equal(sh->dims[1].n_axes, 0);
    assert_mark(sh->dims[1].at, 18, 30);
    assert_int_equal(sh->dims[2].n_axes, 1);
    assert_string_equal(sh->dims[2].axes[0], "tp");
    assert_true(sh->has_shape);
    assert_int_equal(sh->shape_n, 3);
    assert_int_equal(sh->shape[0], 64);
    assert_int_equal(sh->shape[2], 8192);
    assert_mark(sh->shape_list_at, 18, 48);
    assert_mark(sh->shape_at[1], 18, 53);

    sh = &s->shardings[1];
    assert_string_equal(sh->name, "embed");
    assert_false(sh->has_shape);
    assert_int_equal(sh->n_dims, 2);
    assert_mark(sh->spec_at, 19, 10);
    assert_int_equal(sh->dims[0].n_axes, 0);
    assert_string_equal(sh->dims[1].axes[0], "tp");
    assert_mark(sh->dims[1].axes_at[0], 19, 17);

    sh = &s->shardings[2];
    assert_string_equal(sh->name, "weights");
    assert_int_equal(sh->n_dims, 2);
    assert_int_equal(sh->dims[0].n_axes, 2);
    assert_string_equal(sh->dims[0].axes[0], "dp");
    assert_string_equal(sh->dims[0].axes[1], "tp");
    assert_mark(sh->dims[0].axes_at[1], 22, 14);
    assert_int_equal(sh->dims[1].n_axes, 0);
    assert_mark(sh->dims[1].at, 23, 9);
    assert_int_equal(sh->shape_n, 2);
    assert_int_equal(sh->shape[1], 2048);
    assert_mark(sh->shape_at[1], 24, 19);
}

static void test_defaults(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s = parse(f, "meshgen: 1\nname: m\nmesh: {axes: [a, b], shape: [2, 3]}\n");
    int i;

    expect_clean(&f->diags);
    assert_non_null(s);
    assert_string_equal(s->file, "t.yaml");
    assert_string_equal(s->dir, ".");
    assert_null(s->inventory);
    assert_null(s->mpmd);
    assert_int_equal(s->device_kind, MG_KIND_DEFAULT);
    assert_int_equal(s->order, MG_ORDER_LOCALITY);
    assert_int_equal(s->processes, MESHGEN_PROCESSES_HOST);
    assert_int_equal(s->granule, MG_GRANULE_HOST);
    assert_int_equal(s->sort_granules, 1);
    assert_int_equal(s->devices, 0);
    assert_false(s->has_dcn);
    assert_false(s->has_types);
    assert_int_equal(s->dcn_n, 0);
    assert_int_equal(s->types_n, 0);
    assert_int_equal(s->n_shardings, 0);
    for (i = 0; i < s->n_axes; i++) {
        assert_int_equal(s->axes[i].dcn, 0);
        assert_int_equal(s->axes[i].type, MESHGEN_AXIS_EXPLICIT);
        /* Values the file leaves out are located at the axis name. */
        assert_mark(s->axes[i].dcn_at, 3, i == 0 ? 15 : 18);
    }
    /* Absent mesh keys are located at the mesh mapping. */
    assert_mark(s->mesh_at, 3, 7);
    assert_mark(s->devices_at, 3, 7);
    assert_mark(s->device_kind_at, 3, 7);
}

static void test_dir_of_file(void **state)
{
    struct fx *f = *state;
    struct mg_node *root = load(f, "meshgen: 1\nname: m\nmesh: {axes: [a], shape: [1]}\n");
    static const char *const cases[][2] = {
        {"a/b/c.yaml", "a/b"}, {"/c.yaml", "/"}, {"c.yaml", "."}, {"a//c.yaml", "a"}};
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mg_spec *s = mg_spec_from_node(&f->arena, &f->diags, cases[i][0], root);
        assert_string_equal(s->file, cases[i][0]);
        assert_string_equal(s->dir, cases[i][1]);
    }
    expect_clean(&f->diags);
}

/* ---- scalar types ----------------------------------------------------------------- */

static void test_not_integers(void **state)
{
    struct fx *f = *state;
    /* Each is what some YAML reader or a careless eye takes for a number. */
    static const char *const values[] = {"yes",    "\"8\"",     "'8'",  "on",   "8.0", "0x10",
                                         "1_000",  "1e3",       "true", "null", "",    "[8]",
                                         "{n: 8}", "!!int 8.5", "+",    "8 8"};
    size_t i;

    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        char extra[64];
        const struct mg_diag *g;
        struct mg_spec *s;

        mg_diags_init(&f->diags, &f->arena);
        snprintf(extra, sizeof extra, "  devices: %s\n", values[i]);
        s = parse_mesh_extra(f, extra);
        assert_non_null(s);
        assert_int_equal(f->diags.n_errors, 1);
        g = expect_diag(&f->diags, "type-mismatch", 6, values[i][0] ? 12 : 11);
        assert_non_null(strstr(g->message, "expected an integer"));
        assert_int_equal(s->devices, 0);
    }
    mg_diags_init(&f->diags, &f->arena);
    parse_mesh_extra(f, "  devices: \"8\"\n");
    assert_non_null(strstr(f->diags.items[0].message, "quoted string '8'"));
    assert_non_null(strstr(f->diags.items[0].message, "quotes make it a string"));
}

static void test_integers(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *text;
        int64_t value;
    } ok[] = {{"8", 8},
              {"+8", 8},
              {"-1", -1},
              {"0", 0},
              {"007", 7},
              {"!!int 12", 12},
              {"!!int \"12\"", 12},
              {"9223372036854775807", INT64_MAX},
              {"-9223372036854775808", INT64_MIN}};
    size_t i;

    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char extra[64];
        struct mg_spec *s;
        snprintf(extra, sizeof extra, "  devices: %s\n", ok[i].text);
        s = parse_mesh_extra(f, extra);
        expect_clean(&f->diags);
        assert_true(s->devices == ok[i].value);
    }
}

static void test_int_range(void **state)
{
    struct fx *f = *state;
    static const char *const values[] = {"99999999999999999999", "9223372036854775808",
                                         "-9223372036854775809",
                                         "100000000000000000000000000000000000000000"};
    size_t i;

    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        char extra[96];
        struct mg_spec *s;
        mg_diags_init(&f->diags, &f->arena);
        snprintf(extra, sizeof extra, "  devices: %s\n", values[i]);
        s = parse_mesh_extra(f, extra);
        assert_int_equal(f->diags.n_errors, 1);
        expect_diag(&f->diags, "int-range", 6, 12);
        assert_int_equal(s->devices, 0);
    }
    /* In a list, the item is located. */
    mg_diags_init(&f->diags, &f->arena);
    parse(f, "meshgen: 1\nname: m\nmesh:\n  axes: [a, b]\n  shape: [2, 99999999999999999999]\n");
    expect_diag(&f->diags, "int-range", 5, 14);
}

static void test_booleans(void **state)
{
    struct fx *f = *state;
    static const char *const bad[] = {"yes", "no", "on", "off", "y", "True", "\"true\"", "1"};
    size_t i;
    struct mg_spec *s;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char extra[64];
        const struct mg_diag *g;
        mg_diags_init(&f->diags, &f->arena);
        snprintf(extra, sizeof extra, "  sort_granules: %s\n", bad[i]);
        s = parse_mesh_extra(f, extra);
        assert_int_equal(f->diags.n_errors, 1);
        g = expect_diag(&f->diags, "type-mismatch", 6, 18);
        assert_non_null(strstr(g->message, "expected a boolean"));
        assert_int_equal(s->sort_granules, 1);
    }
    mg_diags_init(&f->diags, &f->arena);
    parse_mesh_extra(f, "  sort_granules: off\n");
    assert_non_null(strstr(f->diags.items[0].message, "YAML 1.1"));

    mg_diags_init(&f->diags, &f->arena);
    s = parse_mesh_extra(f, "  sort_granules: false\n");
    expect_clean(&f->diags);
    assert_int_equal(s->sort_granules, 0);
    s = parse_mesh_extra(f, "  sort_granules: !!bool false\n");
    expect_clean(&f->diags);
    assert_int_equal(s->sort_granules, 0);
}

static void test_strings_and_tags(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    /* A standard tag makes anything a string; so does the non-specific "!". */
    s = parse(f, "meshgen: 1\nname: !!str 8\ninventory: ! 12\nmesh: {axes: [yes, 'no'], "
                 "shape: [1, 1]}\n");
    expect_clean(&f->diags);
    assert_string_equal(s->name, "8");
    assert_string_equal(s->inventory, "12");
    /* yes is not a boolean here, so it is an ordinary string. */
    assert_string_equal(s->axes[0].name, "yes");
    assert_string_equal(s->axes[1].name, "no");

    /* Integers, booleans and null are not strings. */
    s = parse(f, "meshgen: 1\nname: 8\ninventory: true\nmesh: {axes: [~, !!int 7], "
                 "shape: [1, 1], mpmd: !!int 3}\n");
    assert_int_equal(f->diags.n_errors, 5);
    expect_diag(&f->diags, "type-mismatch", 2, 7);
    expect_diag(&f->diags, "type-mismatch", 3, 12);
    expect_diag(&f->diags, "type-mismatch", 4, 15);
    expect_diag(&f->diags, "type-mismatch", 4, 18);
    expect_diag(&f->diags, "type-mismatch", 4, 49);
    assert_non_null(strstr(f->diags.items[3].message, "the integer '7'"));
    /* Mistyped names are left empty, never NULL. */
    assert_string_equal(s->name, "");
    assert_string_equal(s->axes[0].name, "");
    assert_null(s->mpmd);

    /* Any other tag, on any node, is refused by the loader: no tree. */
    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "meshgen: 1\nname: !foo x\nmesh: !!python/object/apply:os.system\n"
                        "  axes: !!seq [dp]\n  devices: !!float 8\n"));
    assert_int_equal(f->diags.n_errors, 4);
    assert_non_null(
        strstr(expect_diag(&f->diags, "yaml-tag", 2, 7)->message, "the tag '!foo' on a scalar"));
    assert_non_null(strstr(expect_diag(&f->diags, "yaml-tag", 3, 7)->message,
                           "the tag '!!python/object/apply:os.system' on a mapping"));
    assert_non_null(
        strstr(expect_diag(&f->diags, "yaml-tag", 4, 9)->message, "the tag '!!seq' on a sequence"));
    expect_diag(&f->diags, "yaml-tag", 5, 12);
}

/* ---- keys ------------------------------------------------------------------------ */

static void test_key_duplicate(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s = parse(f, "meshgen: 1\n"
                                 "name: a\n"
                                 "mesh:\n"
                                 "  axes: [x]\n"
                                 "  shape: [1]\n"
                                 "  axes: [y]\n"
                                 "name: b\n"
                                 "shardings: {e: [x], f: [x], e: [y]}\n");
    const struct mg_diag *g;

    assert_int_equal(f->diags.n_errors, 3);
    g = expect_diag(&f->diags, "key-duplicate", 6, 3);
    assert_mark(g->related, 4, 3);
    assert_string_equal(g->related_msg, "first defined here");
    assert_non_null(strstr(g->message, "'axes'"));
    g = expect_diag(&f->diags, "key-duplicate", 7, 1);
    assert_mark(g->related, 2, 1);
    g = expect_diag(&f->diags, "key-duplicate", 8, 29);
    assert_mark(g->related, 8, 13);
    /* The first occurrence is the one kept. */
    assert_string_equal(s->name, "a");
    assert_string_equal(s->axes[0].name, "x");
    assert_int_equal(s->n_shardings, 2);
    assert_string_equal(s->shardings[0].name, "e");
    assert_string_equal(s->shardings[0].dims[0].axes[0], "x");
    assert_string_equal(s->shardings[1].name, "f");
}

static void test_key_unknown(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    parse(f, "meshgen: 1\n"
             "name: a\n"
             "nmae: b\n"
             "mesh:\n"
             "  axes: [x]\n"
             "  shape: [1]\n"
             "  shap: [1]\n"
             "shardings:\n"
             "  e: {spec: [x], shpe: [4]}\n");
    assert_int_equal(f->diags.n_errors, 3);
    g = expect_diag(&f->diags, "key-unknown", 3, 1);
    assert_non_null(strstr(g->message, "'nmae'"));
    assert_non_null(strstr(g->message, "meshgen, name, inventory, mesh, shardings"));
    g = expect_diag(&f->diags, "key-unknown", 7, 3);
    assert_non_null(strstr(g->message, "axes, shape, dcn, types, mpmd, device_kind, order, "
                                       "processes, devices, granule, sort_granules"));
    g = expect_diag(&f->diags, "key-unknown", 9, 18);
    assert_non_null(strstr(g->message, "spec, shape"));
}

static void test_key_required(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    s = parse(f, "inventory: x.yaml\n");
    assert_non_null(s);
    assert_int_equal(f->diags.n_errors, 3);
    assert_int_equal(count_check(&f->diags, "key-required"), 3);
    expect_diag(&f->diags, "key-required", 1, 1);
    assert_string_equal(s->name, "");
    assert_int_equal(s->n_axes, 0);

    mg_diags_init(&f->diags, &f->arena);
    parse(f, "meshgen: 1\nname: m\nmesh:\n  dcn: [1]\nshardings:\n  e: {shape: [1]}\n");
    assert_int_equal(f->diags.n_errors, 3);
    assert_int_equal(count_check(&f->diags, "key-required"), 3);
    expect_diag(&f->diags, "key-required", 4, 3);
    expect_diag(&f->diags, "key-required", 6, 6);
}

/* ---- values ------------------------------------------------------------------------- */

static void test_enum_values(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;
    const struct mg_diag *g;

    s = parse(f, "meshgen: 1\n"
                 "name: m\n"
                 "mesh:\n"
                 "  axes: [a, b]\n"
                 "  shape: [1, 1]\n"
                 "  types: [auto, Auto]\n"
                 "  device_kind: npu\n"
                 "  order: fastest\n"
                 "  processes: rank\n"
                 "  granule: rack\n");
    assert_int_equal(f->diags.n_errors, 5);
    g = expect_diag(&f->diags, "enum-value", 6, 17);
    assert_non_null(strstr(g->message, "'Auto', expected one of: auto, explicit, manual"));
    g = expect_diag(&f->diags, "enum-value", 7, 16);
    assert_non_null(strstr(g->message, "gpu, core, numa, package, pu, tpu"));
    g = expect_diag(&f->diags, "enum-value", 8, 10);
    assert_non_null(strstr(g->message, "locality, inventory, torus"));
    g = expect_diag(&f->diags, "enum-value", 9, 14);
    assert_non_null(strstr(g->message, "host, device"));
    g = expect_diag(&f->diags, "enum-value", 10, 12);
    assert_non_null(strstr(g->message, "host, slice"));
    /* Rejected values leave the defaults. */
    assert_int_equal(s->axes[0].type, MESHGEN_AXIS_AUTO);
    assert_int_equal(s->axes[1].type, MESHGEN_AXIS_EXPLICIT);
    assert_int_equal(s->device_kind, MG_KIND_DEFAULT);
    assert_int_equal(s->order, MG_ORDER_LOCALITY);
}

static void test_message_quoting(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    /* A value cannot break a message over lines or make it endless. */
    parse_mesh_extra(f, "  device_kind: \"g\\npu\\e\"\n"
                        "  order: \"0123456789012345678901234567890123456789xyzw\"\n");
    g = expect_diag(&f->diags, "enum-value", 6, 16);
    assert_non_null(strstr(g->message, "found 'g\\npu\\x1b', expected"));
    assert_null(strchr(g->message, '\n'));
    g = expect_diag(&f->diags, "enum-value", 7, 10);
    assert_non_null(strstr(g->message, "found '0123456789012345678901234567890123456789...', "));
}

static void test_node_types(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    s = parse(f, "meshgen: 1\nname: m\nmesh: 3\nshardings: [a]\n");
    assert_int_equal(f->diags.n_errors, 2);
    expect_diag(&f->diags, "type-mismatch", 3, 7);
    expect_diag(&f->diags, "type-mismatch", 4, 12);
    assert_int_equal(s->n_axes, 0);
    assert_int_equal(s->n_shardings, 0);

    mg_diags_init(&f->diags, &f->arena);
    s = parse(f, "meshgen: 1\n"
                 "name: [m]\n"
                 "mesh: {axes: dp, shape: {a: 1}, dcn: 2, types: auto}\n"
                 "shardings:\n"
                 "  a: tp\n"
                 "  b: [{x: y}, 3, [tp, 4, [dp]]]\n"
                 "  c: {spec: tp, shape: 4}\n");
    expect_diag(&f->diags, "type-mismatch", 2, 7);
    expect_diag(&f->diags, "type-mismatch", 3, 14);
    expect_diag(&f->diags, "type-mismatch", 3, 25);
    expect_diag(&f->diags, "type-mismatch", 3, 38);
    expect_diag(&f->diags, "type-mismatch", 3, 48);
    expect_diag(&f->diags, "type-mismatch", 5, 6);
    expect_diag(&f->diags, "type-mismatch", 6, 7);
    expect_diag(&f->diags, "type-mismatch", 6, 15);
    expect_diag(&f->diags, "type-mismatch", 6, 23);
    expect_diag(&f->diags, "type-mismatch", 6, 26);
    expect_diag(&f->diags, "type-mismatch", 7, 13);
    expect_diag(&f->diags, "type-mismatch", 7, 24);
    assert_int_equal(f->diags.n_errors, 12);
    /* Positions survive: b keeps three dims, and the list keeps its string. */
    assert_int_equal(s->n_shardings, 3);
    assert_int_equal(s->shardings[1].n_dims, 3);
    assert_int_equal(s->shardings[1].dims[2].n_axes, 1);
    assert_string_equal(s->shardings[1].dims[2].axes[0], "tp");
    assert_true(s->has_dcn);
    assert_int_equal(s->dcn_n, 0);
}

static void test_root_not_mapping(void **state)
{
    struct fx *f = *state;

    assert_null(parse(f, "[1, 2]\n"));
    expect_diag(&f->diags, "type-mismatch", 1, 1);
    assert_null(parse(f, "\n\n  just text\n"));
    expect_diag(&f->diags, "type-mismatch", 3, 3);
    assert_int_equal(f->diags.n_errors, 2);
    /* No tree: the loader has reported why, nothing more to say. */
    assert_null(mg_spec_from_node(&f->arena, &f->diags, "t.yaml", NULL));
    assert_int_equal(f->diags.n_errors, 2);
}

static void test_format_version(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    /* Another version: one error, its other keys not judged. */
    s = parse(f, "meshgen: 2\nname: m\nmesh2: {}\n");
    assert_non_null(s);
    assert_int_equal(f->diags.n_errors, 1);
    expect_diag(&f->diags, "format-version", 1, 10);
    assert_int_equal(s->format, 2);

    mg_diags_init(&f->diags, &f->arena);
    s = parse(f, "meshgen: \"1\"\nname: m\nmesh: {axes: [a], shape: [1]}\n");
    assert_int_equal(f->diags.n_errors, 1);
    expect_diag(&f->diags, "type-mismatch", 1, 10);
    assert_int_equal(s->format, 0);

    mg_diags_init(&f->diags, &f->arena);
    s = parse(f, "meshgen: 0\nname: m\n");
    assert_int_equal(f->diags.n_errors, 1);
    expect_diag(&f->diags, "format-version", 1, 10);
}

static void test_axes_count(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    /* The 17th entry of each list is located: items two characters wide
     * from column 11 put it at column 43; "auto," is five wide. */
    s = parse(f, "meshgen: 1\n"
                 "name: m\n"
                 "mesh:\n"
                 "  axes:  [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q]\n"
                 "  shape: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,x]\n"
                 "  dcn:   [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]\n"
                 "  types: [auto,auto,auto,auto,auto,auto,auto,auto,auto,auto,auto,auto,"
                 "auto,auto,auto,auto,auto]\n");
    expect_diag(&f->diags, "axes-count", 4, 43);
    expect_diag(&f->diags, "axes-count", 5, 43);
    expect_diag(&f->diags, "axes-count", 6, 43);
    expect_diag(&f->diags, "axes-count", 7, 91);
    /* Entries past the ceiling are still type-checked. */
    expect_diag(&f->diags, "type-mismatch", 5, 43);
    assert_int_equal(f->diags.n_errors, 5);
    assert_int_equal(s->n_axes, MG_MAX_AXES);
    assert_string_equal(s->axes[15].name, "p");
    assert_int_equal(s->shape_n, 17);
    assert_int_equal(s->dcn_n, 18);
    assert_int_equal(s->types_n, 17);
    assert_int_equal(s->axes[15].type, MESHGEN_AXIS_AUTO);

    /* Lists of other lengths keep their lengths for check.c, and values
     * only for the axes that exist. */
    mg_diags_init(&f->diags, &f->arena);
    s = parse(f, "meshgen: 1\nname: m\nmesh: {axes: [a, b], shape: [2, 3, 4], dcn: [5]}\n");
    expect_clean(&f->diags);
    assert_int_equal(s->n_axes, 2);
    assert_int_equal(s->shape_n, 3);
    assert_int_equal(s->dcn_n, 1);
    assert_int_equal(s->axes[1].size, 3);
    assert_int_equal(s->axes[0].dcn, 5);
    assert_int_equal(s->axes[1].dcn, 0);
    assert_int_equal(s->axes[2].size, 0);
}

static void test_dims_count(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    s = parse(f, "meshgen: 1\n"
                 "name: m\n"
                 "mesh: {axes: [a], shape: [1]}\n"
                 "shardings:\n"
                 "  w: [a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,7]\n"
                 "  x: [[a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a,a]]\n"
                 "  y: {spec: [a], shape: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}\n");
    expect_diag(&f->diags, "dims-count", 5, 39);
    expect_diag(&f->diags, "type-mismatch", 5, 39);
    expect_diag(&f->diags, "dims-count", 6, 40);
    expect_diag(&f->diags, "dims-count", 7, 58);
    assert_int_equal(f->diags.n_errors, 4);
    assert_int_equal(s->shardings[0].n_dims, MG_MAX_DIMS);
    assert_int_equal(s->shardings[1].dims[0].n_axes, MG_MAX_AXES);
    assert_int_equal(s->shardings[2].shape_n, MG_MAX_DIMS);
}

static void test_many_errors_in_one_file(void **state)
{
    struct fx *f = *state;
    size_t len;
    const char *path = SPEC_DATA "/errors.yaml";
    char *text = mg_read_file(&f->arena, &f->diags, path, (struct mg_mark){path, 0, 0}, &len);
    struct mg_spec *s;

    assert_non_null(text);
    s = mg_spec_from_node(&f->arena, &f->diags, path,
                          mg_yaml_parse(&f->arena, &f->diags, path, text, len));
    assert_non_null(s);
    expect_diag(&f->diags, "type-mismatch", 3, 7);
    expect_diag(&f->diags, "type-mismatch", 6, 14);
    expect_diag(&f->diags, "enum-value", 7, 17);
    expect_diag(&f->diags, "enum-value", 8, 16);
    expect_diag(&f->diags, "type-mismatch", 9, 18);
    expect_diag(&f->diags, "key-unknown", 10, 3);
    expect_diag(&f->diags, "key-duplicate", 11, 3);
    expect_diag(&f->diags, "int-range", 13, 40);
    assert_int_equal(f->diags.n_errors, 8);
    assert_string_equal(f->diags.items[0].at.file, path);
}

static void test_shardings(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s;

    s = parse(f, "meshgen: 1\n"
                 "name: m\n"
                 "mesh: {axes: [a, b, c], shape: [2, 2, 2]}\n"
                 "shardings:\n"
                 "  zeta: [[a, c], b]\n"
                 "  alpha: [null, [b, c]]\n"
                 "  mid: []\n"
                 "  nul:\n"
                 "    - null\n"
                 "    - ~\n"
                 "    -\n"
                 "    - []\n"
                 "    - Null\n"
                 "  8: [a]\n");
    expect_diag(&f->diags, "type-mismatch", 14, 3);
    assert_int_equal(f->diags.n_errors, 1);
    assert_int_equal(s->n_shardings, 5);
    /* File order, not sorted. */
    assert_string_equal(s->shardings[0].name, "zeta");
    assert_string_equal(s->shardings[1].name, "alpha");
    assert_string_equal(s->shardings[2].name, "mid");
    assert_string_equal(s->shardings[3].name, "nul");
    assert_string_equal(s->shardings[4].name, "8");
    assert_int_equal(s->shardings[0].dims[0].n_axes, 2);
    assert_string_equal(s->shardings[0].dims[0].axes[1], "c");
    assert_int_equal(s->shardings[2].n_dims, 0);
    assert_int_equal(s->shardings[3].n_dims, 5);
    assert_int_equal(s->shardings[3].dims[0].n_axes, 0);
    assert_int_equal(s->shardings[3].dims[1].n_axes, 0);
    assert_int_equal(s->shardings[3].dims[2].n_axes, 0);
    assert_int_equal(s->shardings[3].dims[3].n_axes, 0);
    /* Only plain null and ~ are null: "Null" is a name. */
    assert_int_equal(s->shardings[3].dims[4].n_axes, 1);
    assert_string_equal(s->shardings[3].dims[4].axes[0], "Null");
    assert_mark(s->shardings[3].dims[2].at, 11, 6);
}

static void test_shardings_count(void **state)
{
    struct fx *f = *state;
    struct mg_buf b;
    struct mg_spec *s;
    int i;

    mg_buf_init(&b);
    mg_buf_puts(&b, "meshgen: 1\nname: m\nmesh: {axes: [a], shape: [1]}\nshardings:\n");
    for (i = 0; i < 4097; i++)
        mg_buf_printf(&b, "  s%d: [a]\n", i);
    s = parse(f, b.data);
    mg_buf_free(&b);
    /* Sharding k is on line 5 + k: the 4097th is one too many. */
    expect_diag(&f->diags, "shardings-count", 4101, 3);
    assert_int_equal(f->diags.n_errors, 1);
    assert_int_equal(s->n_shardings, 4096);
    assert_string_equal(s->shardings[4095].name, "s4095");
}

static void test_aliases_in_spec(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s = parse(f, "meshgen: 1\n"
                                 "name: m\n"
                                 "mesh: {axes: &ax [dp, tp], shape: [2, 2]}\n"
                                 "shardings:\n"
                                 "  both: [*ax]\n"
                                 "  again: {spec: [*ax, null]}\n");
    expect_clean(&f->diags);
    assert_int_equal(s->shardings[0].dims[0].n_axes, 2);
    assert_string_equal(s->shardings[1].dims[0].axes[1], "tp");
    /* A shared node keeps the marks of where it was written. */
    assert_mark(s->shardings[1].dims[0].at, 3, 14);
}

/* ---- the YAML loader ------------------------------------------------------------------ */

static void test_yaml_tree(void **state)
{
    struct fx *f = *state;
    struct mg_node *r = load(f, "plain: x\n"
                                "single: 'x'\n"
                                "double: \"x\"\n"
                                "lit: |\n"
                                "  x\n"
                                "fold: >\n"
                                "  x\n"
                                "tagged: !!str 1\n"
                                "list: &l [1, [2]]\n"
                                "ref: *l\n");

    expect_clean(&f->diags);
    assert_non_null(r);
    assert_int_equal(r->kind, MG_NODE_MAP);
    assert_int_equal(r->n, 8);
    assert_mark(r->mark, 1, 1);
    assert_string_equal(r->keys[0]->value, "plain");
    assert_false(r->items[0]->quoted);
    assert_true(r->items[1]->quoted);
    assert_true(r->items[2]->quoted);
    assert_true(r->items[3]->quoted);
    assert_string_equal(r->items[3]->value, "x\n");
    assert_true(r->items[4]->quoted);
    assert_null(r->items[0]->tag);
    assert_string_equal(r->items[5]->tag, "tag:yaml.org,2002:str");
    assert_mark(r->items[2]->mark, 3, 9);
    assert_mark(r->keys[7]->mark, 10, 1);
    assert_int_equal(r->items[6]->kind, MG_NODE_SEQ);
    assert_null(r->items[6]->keys);
    assert_int_equal(r->items[6]->n, 2);
    assert_int_equal(r->items[6]->items[1]->items[0]->mark.col, 15);
    /* An alias shares its node. */
    assert_ptr_equal(r->items[7], r->items[6]);
}

static void test_yaml_syntax_errors(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, "mesh: [1, 2\nname: x\n"));
    assert_int_equal(f->diags.n_errors, 1);
    g = &f->diags.items[0];
    assert_string_equal(g->check, "yaml-syntax");
    /* libyaml's "did not find expected ',' or ']'", said in words: where the
     * list opened is the related location. */
    assert_string_equal(g->message, "the list that '[' opens at line 1, column 7 is not closed: "
                                    "expected ',' or ']' here (a ']' missing at the end of line "
                                    "1?)");
    assert_mark(g->related, 1, 7);
    assert_string_equal(g->related_msg, "the '[' is here");

    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "name: x\nmesh: `y\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 2, 7);
    assert_non_null(strstr(g->message, "found '`' at the start of a value"));

    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "\tname: x\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 1, 1);
    assert_string_equal(g->message,
                        "YAML indents with spaces, and line 1 starts with a tab; replace the tab "
                        "with spaces");

    /* Whatever is not recognised keeps libyaml's words. */
    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "a: [x, y]]\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 1, 10);
    assert_string_equal(g->message, "did not find expected key");
    assert_string_equal(g->related_msg, "while parsing a block mapping");

    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "a: b: c\n"));
    expect_diag(&f->diags, "yaml-syntax", 1, 5);

    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "a: 1\n---\nb: 2\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 2, 1);
    assert_non_null(strstr(g->message, "expected a single document"));
    assert_int_equal(f->diags.n_errors, 1);
}

static void test_yaml_invalid_utf8(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, "name: x\nmesh: \x80\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 2, 7);
    assert_non_null(strstr(g->message, "invalid leading UTF-8 octet"));

    mg_diags_init(&f->diags, &f->arena);
    /* Columns count characters (the two-byte 'é' is one) and point at the
     * offending byte, here the second of a broken two-byte sequence. */
    assert_null(load(f, "n\xc3\xa9: \xc3\x28\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 1, 6);
    assert_non_null(strstr(g->message, "invalid trailing UTF-8 octet"));

    mg_diags_init(&f->diags, &f->arena);
    assert_null(load_n(f, "a: \0b\n", 6));
    expect_diag(&f->diags, "yaml-syntax", 1, 4);
}

static void test_yaml_garbage(void **state)
{
    struct fx *f = *state;
    static const char alphabet[] = "[]{}:,-?&*!|>'\"#%@` \n\t\rab01~.\\";
    unsigned char buf[256];
    uint32_t seed = 12345;
    size_t i, j;

    for (i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    assert_null(load_n(f, (const char *)buf, sizeof buf));
    expect_diag(&f->diags, "yaml-syntax", 1, 1);

    /* Random YAML-ish text and random bytes: any outcome but a crash, and
     * a tree exactly when there is no error. */
    for (i = 0; i < 3000; i++) {
        size_t len;
        struct mg_node *r;
        seed = seed * 1103515245u + 12345u;
        len = (seed >> 16) % sizeof buf;
        for (j = 0; j < len; j++) {
            seed = seed * 1103515245u + 12345u;
            buf[j] = i % 4 == 0 ? (unsigned char)(seed >> 16)
                                : (unsigned char)alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        mg_diags_init(&f->diags, &f->arena);
        r = load_n(f, (const char *)buf, len);
        assert_true((r == NULL) == (f->diags.n_errors > 0));
        mg_spec_from_node(&f->arena, &f->diags, "t.yaml", r);
    }
}

static void test_yaml_nul_in_scalar(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, "name: \"a\\0b\"\nmesh: x\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 1, 7);
    assert_non_null(strstr(g->message, "NUL"));
    assert_int_equal(f->diags.n_errors, 1);
}

static void test_yaml_empty(void **state)
{
    struct fx *f = *state;
    static const char *const empty[] = {"", "   \n", "# only a comment\n", "---\n", "--- \n...\n"};
    size_t i;

    for (i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        const struct mg_diag *g;
        mg_diags_init(&f->diags, &f->arena);
        assert_null(load(f, empty[i]));
        assert_int_equal(f->diags.n_errors, 1);
        g = expect_diag(&f->diags, "yaml-syntax", 0, 0);
        assert_non_null(strstr(g->message, "the file is empty"));
        assert_string_equal(g->at.file, "t.yaml");
    }
    mg_diags_init(&f->diags, &f->arena);
    assert_null(mg_yaml_parse(&f->arena, &f->diags, "t.yaml", NULL, 0));
    expect_diag(&f->diags, "yaml-syntax", 0, 0);
}

static void test_yaml_nesting(void **state)
{
    struct fx *f = *state;
    size_t n = 10000;
    char *deep = malloc(n + 1);
    struct mg_node *r;
    int i;

    assert_non_null(deep);
    memset(deep, '[', n);
    deep[n] = '\0';
    assert_null(load(f, deep));
    assert_int_equal(f->diags.n_errors, 1);
    expect_diag(&f->diags, "yaml-limits", 1, 65);
    /* Stopped at once: nothing like 10,000 nodes was built. */
    assert_true(f->arena.total < 1024 * 1024);

    /* 64 levels are fine. */
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    deep[128] = '\0';
    mg_diags_init(&f->diags, &f->arena);
    r = load(f, deep);
    expect_clean(&f->diags);
    for (i = 1; i < 64; i++)
        r = r->items[0];
    assert_int_equal(r->kind, MG_NODE_SEQ);
    assert_int_equal(r->n, 0);
    free(deep);

    /* Block mappings count too: 65 levels "a:\n a:\n  a: ..." */
    {
        struct mg_buf b;
        mg_buf_init(&b);
        for (i = 0; i < 65; i++)
            mg_buf_printf(&b, "%*sa:\n", i, "");
        mg_buf_printf(&b, "%*sx\n", 65, "");
        mg_diags_init(&f->diags, &f->arena);
        assert_null(load(f, b.data));
        expect_diag(&f->diags, "yaml-limits", 65, 65);
        mg_buf_free(&b);
    }
}

static void test_yaml_billion_laughs(void **state)
{
    struct fx *f = *state;
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                       "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                       "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                       "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
                       "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
                       "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    const struct mg_diag *g;

    assert_null(load(f, bomb));
    assert_int_equal(f->diags.n_errors, 1);
    /* f expands to 1,111,111 nodes: the first past the limit. A node with
     * an anchor starts at its anchor. */
    g = expect_diag(&f->diags, "yaml-limits", 6, 4);
    assert_non_null(strstr(g->message, "1000000"));
    assert_true(f->arena.total < 1024 * 1024);

    /* Five levels (111,111 nodes for e) are within the limit, and shared. */
    mg_diags_init(&f->diags, &f->arena);
    {
        struct mg_node *r = load_n(f, bomb, (size_t)(strstr(bomb, "f:") - bomb));
        expect_clean(&f->diags);
        assert_ptr_equal(r->items[4]->items[0], r->items[4]->items[9]);
        assert_ptr_equal(r->items[4]->items[0], r->items[3]);
    }
}

static void test_yaml_node_count(void **state)
{
    struct fx *f = *state;
    size_t n = 1000001, i;
    char *text = malloc(2 * n + 2);

    assert_non_null(text);
    text[0] = '[';
    for (i = 0; i < n; i++) {
        text[1 + 2 * i] = '0';
        text[2 + 2 * i] = ',';
    }
    text[2 * n] = ']';
    text[2 * n + 1] = '\0';
    assert_null(load(f, text));
    assert_int_equal(f->diags.n_errors, 1);
    /* The sequence is the first node; item 1,000,000 is one too many. */
    expect_diag(&f->diags, "yaml-limits", 1, 2 + 2 * 999999);
    free(text);
}

static void test_yaml_bad_aliases(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, "a: 1\nb: *nope\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 2, 4);
    assert_non_null(strstr(g->message, "'nope'"));

    /* An alias to the node that encloses it would make a cycle. */
    mg_diags_init(&f->diags, &f->arena);
    assert_null(load(f, "a: &x [1, *x]\n"));
    expect_diag(&f->diags, "yaml-syntax", 1, 11);

    /* A later anchor of the same name replaces the earlier one. */
    mg_diags_init(&f->diags, &f->arena);
    {
        struct mg_node *r = load(f, "a: &x 1\nb: &x 2\nc: *x\n");
        expect_clean(&f->diags);
        assert_string_equal(r->items[2]->value, "2");
    }
}

static void test_yaml_complex_key(void **state)
{
    struct fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, "name: m\n? [a, b]\n: 1\n{x: 1}: 2\n"));
    g = expect_diag(&f->diags, "yaml-syntax", 2, 3);
    assert_non_null(strstr(g->message, "sequence as a mapping key"));
    expect_diag(&f->diags, "yaml-syntax", 4, 1);
    assert_int_equal(f->diags.n_errors, 2);
}

/* ---- the --mesh string ----------------------------------------------------------------- */

static struct mg_spec *mesh_string(struct fx *f, const char *mesh, const char *names)
{
    mg_diags_init(&f->diags, &f->arena);
    return mg_spec_from_string(&f->arena, &f->diags, mesh, names, "mesh");
}

static void test_mesh_string_named(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s = mesh_string(f, "dp:2,tp:4", NULL);

    expect_clean(&f->diags);
    assert_int_equal(s->format, 1);
    assert_string_equal(s->name, "mesh");
    assert_int_equal(s->n_axes, 2);
    assert_int_equal(s->shape_n, 2);
    assert_string_equal(s->axes[0].name, "dp");
    assert_string_equal(s->axes[1].name, "tp");
    assert_int_equal(s->axes[0].size, 2);
    assert_int_equal(s->axes[1].size, 4);
    assert_string_equal(s->axes[1].name_at.file, "--mesh");
    assert_mark(s->axes[1].name_at, 1, 6);
    assert_mark(s->axes[1].size_at, 1, 9);
    assert_false(s->has_dcn);
    assert_int_equal(s->axes[0].type, MESHGEN_AXIS_EXPLICIT);
    assert_int_equal(s->device_kind, MG_KIND_DEFAULT);
    assert_int_equal(s->sort_granules, 1);
    assert_int_equal(s->n_shardings, 0);

    /* Whitespace around items and -1 (inferred) are accepted; order follows
     * the string. */
    s = mesh_string(f, " tp : 2 , dp:-1 ", NULL);
    expect_clean(&f->diags);
    assert_string_equal(s->axes[0].name, "tp");
    assert_string_equal(s->axes[1].name, "dp");
    assert_int_equal(s->axes[1].size, -1);
    assert_mark(s->axes[0].name_at, 1, 2);
    assert_mark(s->axes[0].size_at, 1, 7);
    assert_mark(s->axes[1].name_at, 1, 11);
    assert_mark(s->axes[1].size_at, 1, 14);

    mg_diags_init(&f->diags, &f->arena);
    s = mg_spec_from_string(&f->arena, &f->diags, "x:1", NULL, "train");
    assert_string_equal(s->name, "train");
}

static void test_mesh_string_positional(void **state)
{
    struct fx *f = *state;
    struct mg_spec *s = mesh_string(f, "2, 4", " dp , tp");

    expect_clean(&f->diags);
    assert_int_equal(s->n_axes, 2);
    assert_string_equal(s->axes[0].name, "dp");
    assert_string_equal(s->axes[1].name, "tp");
    assert_int_equal(s->axes[1].size, 4);
    assert_mark(s->axes[1].size_at, 1, 4);
    assert_mark(s->axes[1].name_at, 1, 4);
}

static void test_mesh_string_errors(void **state)
{
    struct fx *f = *state;
    static const struct {
        const char *mesh, *names, *check;
        int col;
    } cases[] = {
        {"2,4", NULL, "mesh-string", 1},        /* positional without names */
        {"2,4", "dp", "mesh-string", 1},        /* count mismatch */
        {"2,4", "dp,tp,pp", "mesh-string", 1},  /* count mismatch */
        {"2,4", "dp,", "mesh-string", 3},       /* empty name */
        {"dp:2,4", NULL, "mesh-string", 6},     /* mixed */
        {"2,dp:4", "a,b", "mesh-string", 3},    /* mixed */
        {"dp:2", "a", "mesh-string", 1},        /* names given twice */
        {"dp:2,,tp:4", NULL, "mesh-string", 6}, /* empty item */
        {"dp:2,", NULL, "mesh-string", 6},      /* empty item */
        {"", NULL, "mesh-string", 1},           /* empty string */
        {"dp:,tp:4", NULL, "mesh-string", 4},   /* missing size */
        {":2", NULL, "mesh-string", 1},         /* missing name */
        {"dp:x", NULL, "mesh-string", 4},       /* not an integer */
        {"dp:2.5", NULL, "mesh-string", 4},     /* not an integer */
        {"dp: 0x10", NULL, "mesh-string", 5},   /* not an integer */
        {"dp:99999999999999999999", NULL, "int-range", 4},
        {"a:1,b:1,c:1,d:1,e:1,f:1,g:1,h:1,i:1,j:1,k:1,l:1,m:1,n:1,o:1,p:1,q:1", NULL, "axes-count",
         1},
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct mg_spec *s = mesh_string(f, cases[i].mesh, cases[i].names);
        assert_non_null(s);
        if (f->diags.n_errors != 1) {
            dump(&f->diags);
            fail_msg("case %zu (\"%s\"): %d errors, expected 1", i, cases[i].mesh,
                     f->diags.n_errors);
        }
        expect_diag(&f->diags, cases[i].check, 1, cases[i].col);
        assert_string_equal(f->diags.items[0].at.file, "--mesh");
        assert_true(s->n_axes <= MG_MAX_AXES);
    }
}

/* ---- reading files ------------------------------------------------------------------------ */

static void test_read_file(void **state)
{
    struct fx *f = *state;
    size_t len = 0;
    char *text = mg_read_file(&f->arena, &f->diags, SPEC_DATA "/full.yaml",
                              (struct mg_mark){"x", 0, 0}, &len);

    expect_clean(&f->diags);
    assert_non_null(text);
    assert_int_equal(len, strlen(text));
    assert_true(len > 100);
    assert_memory_equal(text, "# Every key", 11);
}

static void test_read_file_errors(void **state)
{
    struct fx *f = *state;
    struct mg_mark at = {"spec.yaml", 4, 12};
    size_t len = 99;
    const struct mg_diag *g;

    assert_null(mg_read_file(&f->arena, &f->diags, SPEC_DATA "/no-such-file.yaml", at, &len));
    assert_int_equal(len, 0);
    g = expect_diag(&f->diags, "io", 4, 12);
    assert_string_equal(g->at.file, "spec.yaml");
    assert_non_null(strstr(g->message, "no-such-file.yaml"));
    assert_non_null(strstr(g->message, "No such file or directory"));

    assert_null(mg_read_file(&f->arena, &f->diags, SPEC_DATA, at, &len));
    g = &f->diags.items[1];
    assert_string_equal(g->check, "io");
    assert_non_null(strstr(g->message, "directory"));
    assert_int_equal(f->diags.n_errors, 2);
}

/* A sparse file of the given size in /tmp, read and removed. */
static char *read_sparse(struct fx *f, off_t size, size_t *len)
{
    char path[] = "/tmp/meshgen-test-XXXXXX";
    int fd = mkstemp(path);
    char *text;

    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
    text = mg_read_file(&f->arena, &f->diags, path, (struct mg_mark){"big.yaml", 0, 0}, len);
    unlink(path);
    return text;
}

static void test_read_file_too_large(void **state)
{
    struct fx *f = *state;
    const off_t limit = 16 << 20;
    const struct mg_diag *g;
    size_t len;
    char *text;

    /* Hundreds of megabytes are refused from fstat alone, without reading. */
    assert_null(read_sparse(f, (off_t)512 << 20, &len));
    g = expect_diag(&f->diags, "input-too-large", 0, 0);
    assert_non_null(strstr(g->message, "536870912 bytes"));
    assert_non_null(strstr(g->message, "16777216"));
    assert_true(f->arena.total < 1024 * 1024);

    mg_diags_init(&f->diags, &f->arena);
    assert_null(read_sparse(f, limit + 1, &len));
    expect_diag(&f->diags, "input-too-large", 0, 0);

    /* Exactly the limit is accepted. */
    mg_diags_init(&f->diags, &f->arena);
    text = read_sparse(f, limit, &len);
    expect_clean(&f->diags);
    assert_non_null(text);
    assert_int_equal(len, (size_t)limit);
    assert_int_equal(text[len], '\0');

    /* A device is refused before a byte of it is read (an endless one
     * would otherwise be read up to the limit), as an I/O error. */
    mg_diags_init(&f->diags, &f->arena);
    assert_null(mg_read_file(&f->arena, &f->diags, "/dev/zero", (struct mg_mark){"z", 0, 0}, &len));
    g = expect_diag(&f->diags, "io", 0, 0);
    assert_non_null(strstr(g->message, "found a character device at '/dev/zero'"));
    assert_int_equal(f->diags.io_errors, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        T(test_full_spec),
        T(test_defaults),
        T(test_dir_of_file),
        T(test_not_integers),
        T(test_integers),
        T(test_int_range),
        T(test_booleans),
        T(test_strings_and_tags),
        T(test_key_duplicate),
        T(test_key_unknown),
        T(test_key_required),
        T(test_enum_values),
        T(test_message_quoting),
        T(test_node_types),
        T(test_root_not_mapping),
        T(test_format_version),
        T(test_axes_count),
        T(test_dims_count),
        T(test_many_errors_in_one_file),
        T(test_shardings),
        T(test_shardings_count),
        T(test_aliases_in_spec),
        T(test_yaml_tree),
        T(test_yaml_syntax_errors),
        T(test_yaml_invalid_utf8),
        T(test_yaml_garbage),
        T(test_yaml_nul_in_scalar),
        T(test_yaml_empty),
        T(test_yaml_nesting),
        T(test_yaml_billion_laughs),
        T(test_yaml_node_count),
        T(test_yaml_bad_aliases),
        T(test_yaml_complex_key),
        T(test_mesh_string_named),
        T(test_mesh_string_positional),
        T(test_mesh_string_errors),
        T(test_read_file),
        T(test_read_file_errors),
        T(test_read_file_too_large),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
