/*
 * Unit tests of the Slurm hostlist expansion (hostlist.c): the names each
 * form expands to, zero padding, the cartesian order of several groups, the
 * limit, and every error with its check name ("hostlist") and the column of
 * the offending character. Strings only: no file, no YAML, no hwloc.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* Every hostlist of these tests starts at this column, as a YAML value
 * after "names: " would; errors must point past it. */
#define COL0 12

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

static int expand(struct fx *f, const char *text, int limit, const char ***names)
{
    struct mg_mark at = {"inv.yaml", 3, COL0};
    mg_diags_init(&f->diags, &f->arena);
    return mg_hostlist_expand(&f->arena, &f->diags, text, at, limit, names);
}

/* Expands text and compares with the names expected, in order. */
static void expect_names_at(struct fx *f, const char *text, const char *const *want, int n,
                            const char *file, int line)
{
    const char **names;
    int got = expand(f, text, MG_MAX_HOSTS, &names), i;

    if (f->diags.n_errors) {
        mg_diags_print(&f->diags, stderr, MG_FORMAT_TEXT);
        fail_msg("%s:%d: %s: unexpected error", file, line, text);
    }
    if (got != n)
        fail_msg("%s:%d: %s: %d names, expected %d", file, line, text, got, n);
    for (i = 0; i < n; i++)
        if (strcmp(names[i], want[i]) != 0)
            fail_msg("%s:%d: %s: name %d is '%s', expected '%s'", file, line, text, i, names[i],
                     want[i]);
}
#define expect_names(f, text, ...)                                                                 \
    do {                                                                                           \
        static const char *const want_[] = {__VA_ARGS__};                                          \
        expect_names_at((f), (text), want_, (int)(sizeof want_ / sizeof want_[0]), __FILE__,       \
                        __LINE__);                                                                 \
    } while (0)

/* Expands text, expects exactly one "hostlist" error at offset `off` (in
 * characters) from the start of the text, and returns its message. */
static const char *expect_error_at(struct fx *f, const char *text, int limit, int off,
                                   const char *file, int line)
{
    static const char *sentinel[1];
    const char **names = sentinel;
    int got = expand(f, text, limit, &names);
    const struct mg_diag *g = f->diags.n == 1 ? &f->diags.items[0] : NULL;

    if (got != -1 || !g || strcmp(g->check, "hostlist") != 0 || g->at.line != 3 ||
        g->at.col != COL0 + off) {
        mg_diags_print(&f->diags, stderr, MG_FORMAT_TEXT);
        fail_msg("%s:%d: %s: expected -1 and one [hostlist] error at 3:%d, got %d and %d "
                 "diagnostics",
                 file, line, text, COL0 + off, got, f->diags.n);
    }
    assert_null(names);
    return g ? g->message : "";
}
#define expect_error(f, text, off)                                                                 \
    expect_error_at((f), (text), MG_MAX_HOSTS, (off), __FILE__, __LINE__)

static void expect_message(const char *msg, const char *part)
{
    if (!strstr(msg, part))
        fail_msg("message \"%s\" lacks \"%s\"", msg, part);
}

/* ---- expansion ----------------------------------------------------------------- */

static void test_plain_names(void **state)
{
    struct fx *f = *state;
    expect_names(f, "node", "node");
    expect_names(f, "a,b.example.com,c_1-x", "a", "b.example.com", "c_1-x");
    /* Repeats are kept: the inventory reports them with both locations. */
    expect_names(f, "a,a", "a", "a");
}

static void test_ranges_and_lists(void **state)
{
    struct fx *f = *state;
    expect_names(f, "n[1-3,7]", "n1", "n2", "n3", "n7");
    expect_names(f, "n[3]", "n3");
    expect_names(f, "[1-2]n", "1n", "2n");
    expect_names(f, "n[7,1-2]", "n7", "n1", "n2");
}

static void test_zero_padding(void **state)
{
    struct fx *f = *state;
    const char **names;

    assert_int_equal(expand(f, "gpu[001-016]", 100, &names), 16);
    assert_string_equal(names[0], "gpu001");
    assert_string_equal(names[9], "gpu010");
    assert_string_equal(names[15], "gpu016");
    /* A leading zero keeps lo's width even where hi has more digits. */
    expect_names(f, "n[08-10]", "n08", "n09", "n10");
    expect_names(f, "n[007]", "n007");
    expect_names(f, "n[0-0]", "n0");
    /* Equal digit counts keep the width; unequal ones without a leading
     * zero have none to keep. */
    expect_names(f, "n[10-12]", "n10", "n11", "n12");
    expect_names(f, "n[9-11]", "n9", "n10", "n11");
    expect_names(f, "n[0-2,09-10]", "n0", "n1", "n2", "n09", "n10");
}

static void test_several_groups(void **state)
{
    struct fx *f = *state;
    /* Leftmost group varies slowest, as in Slurm and in row-major order. */
    expect_names(f, "a,b[1-2]c[3-4]", "a", "b1c3", "b1c4", "b2c3", "b2c4");
    expect_names(f, "rack[1-2]-gpu[01-02].dc_1", "rack1-gpu01.dc_1", "rack1-gpu02.dc_1",
                 "rack2-gpu01.dc_1", "rack2-gpu02.dc_1");
    expect_names(f, "x[1,3][5-6][0]", "x150", "x160", "x350", "x360");
    /* Written order, never sorted: it is the rank order of the processes
     * (docs/reference.md, "Process order"). */
    expect_names(f, "n[10,2,1]", "n10", "n2", "n1");
    expect_names(f, "gpu9,gpu[12,11],gpu1", "gpu9", "gpu12", "gpu11", "gpu1");
}

static void test_large(void **state)
{
    struct fx *f = *state;
    const char **names;

    assert_int_equal(expand(f, "n[00001-10000]", 10000, &names), 10000);
    assert_string_equal(names[0], "n00001");
    assert_string_equal(names[4241], "n04242");
    assert_string_equal(names[9999], "n10000");
    /* The limit is inclusive. */
    assert_int_equal(expand(f, "n[1-4],m", 5, &names), 5);
}

/* ---- errors --------------------------------------------------------------------- */

static void test_empty_items(void **state)
{
    struct fx *f = *state;
    expect_message(expect_error(f, "", 0), "found an empty hostlist");
    expect_message(expect_error(f, "a,,b", 2), "found an empty item before ','");
    expect_message(expect_error(f, ",a", 0), "found an empty item before ','");
    expect_message(expect_error(f, "a,", 2), "found an empty item before the end of the text");
}

static void test_brackets(void **state)
{
    struct fx *f = *state;
    const char *msg;

    msg = expect_error(f, "gpu[1-3", 7);
    expect_message(msg, "found the end of the text inside '[', expected ']'");
    expect_message(msg, "hostlist 'gpu[1-3': ");
    expect_message(expect_error(f, "gpu[1-", 6), "found the end of the text inside '['");
    expect_message(expect_error(f, "gpu1]", 4), "found ']' with no '[' before it");
    expect_message(expect_error(f, "a[1-2]]", 6), "found ']' with no '[' before it");
    expect_message(expect_error(f, "a[[1]]", 2), "groups do not nest");
    expect_message(expect_error(f, "a[1[2]]", 3), "groups do not nest");
    expect_message(expect_error(f, "a[1-2[3]]", 5), "groups do not nest");
    expect_message(expect_error(f, "a[]", 1), "found the empty group '[]'");
}

static void test_numbers(void **state)
{
    struct fx *f = *state;
    expect_message(expect_error(f, "a[x]", 2), "found the character 'x' inside '[...]', "
                                               "expected a number");
    expect_message(expect_error(f, "a[1,]", 4), "found the character ']' inside '[...]', "
                                                "expected a number");
    expect_message(expect_error(f, "a[-1]", 2), "found the character '-'");
    expect_message(expect_error(f, "a[1-x]", 4), "found the character 'x'");
    expect_message(expect_error(f, "a[1x]", 3), "expected '-', ',' or ']'");
    expect_message(expect_error(f, "a[1-2-3]", 5), "found the character '-' inside '[...]', "
                                                   "expected ',' or ']'");
    expect_message(expect_error(f, "a[1 ,2]", 3), "found the character ' '");
    expect_message(expect_error(f, "a[5-3]", 2),
                   "found the range '5-3', expected a first number no larger than the last");
    expect_message(expect_error(f, "a[010-9]", 2), "found the range '010-9'");
}

static void test_number_overflow(void **state)
{
    struct fx *f = *state;
    const char *msg;

    /* INT64_MAX is the largest number; one more is refused where it is. */
    msg = expect_error(f, "a[1-9223372036854775808]", 4);
    expect_message(msg, "found the number '9223372036854775808', expected at most "
                        "9223372036854775807");
    expect_error(f, "a[99999999999999999999999999]", 2);
    /* Counts that pass 64 bits saturate instead of wrapping to a small
     * number: 2^63 * 2^63 * 4 names. */
    msg = expect_error_at(f, "a[0-9223372036854775807][0-9223372036854775807][1-4]", 1000, 0,
                          __FILE__, __LINE__);
    expect_message(msg, "found 18446744073709551615 or more names, expected at most 1000");
}

/* Host names have no empty label (docs/reference.md §2, "Host names"): a
 * host ".a" once stood for every machine whose name starts with a dot. */
static void test_empty_labels(void **state)
{
    struct fx *f = *state;

    expect_names(f, "a.b[1-2].c,x.y", "a.b1.c", "a.b2.c", "x.y");
    expect_names(f, "n[1-2].[3-4]", "n1.3", "n1.4", "n2.3", "n2.4");
    expect_message(expect_error(f, ".a", 0), "a '.' that leaves a label empty");
    expect_error(f, "a,b.", 3);
    expect_error(f, "x..y", 1);
    expect_error(f, "gpu[1-2].", 8);
    expect_error(f, "a,.[1-2]", 2);
}

static void test_bad_characters(void **state)
{
    struct fx *f = *state;
    const char *msg;

    msg = expect_error(f, "gpu 1", 3);
    expect_message(msg, "found the character ' ', expected a host name (letters, digits, '-', "
                        "'.' and '_'), '[' or ','");
    expect_error(f, "a, b", 2);
    expect_error(f, "a/b", 1);
    expect_error(f, "a*", 1);
    /* Control bytes are shown escaped. */
    expect_message(expect_error(f, "a\tb", 1), "found the character '\\t'");
    /* A character outside ASCII is shown whole, not as its first byte. */
    msg = expect_error(f, "gpé1", 2);
    expect_message(msg, "found the character 'é'");
}

static void test_limit(void **state)
{
    struct fx *f = *state;
    const char *msg;

    msg = expect_error_at(f, "n[1-2000]", 1000, 0, __FILE__, __LINE__);
    expect_message(msg, "found 2000 names, expected at most 1000");
    msg = expect_error_at(f, "a,b,c", 2, 0, __FILE__, __LINE__);
    expect_message(msg, "found 3 names, expected at most 2");
    /* Refused from the count alone: nothing proportional to it is made. */
    msg = expect_error(f, "n[0-9223372036854775806]", 0);
    expect_message(msg, "found 9223372036854775807 names, expected at most 1048576");
}

static void test_name_length(void **state)
{
    struct fx *f = *state;
    char text[400];
    const char **names;

    /* 250 letters and 5 digits make 255 characters, the most allowed. */
    memset(text, 'a', 250);
    strcpy(text + 250, "[00001-00002]");
    assert_int_equal(expand(f, text, 10, &names), 2);
    assert_int_equal(strlen(names[1]), 255);
    strcpy(text + 250, "[000001-000002]");
    expect_message(expect_error(f, text, 0),
                   "found an item giving names of 256 characters, expected at most 255");
    /* The offending item is pointed at. */
    strcpy(text, "ok,");
    memset(text + 3, 'b', 300);
    text[303] = '\0';
    expect_error(f, text, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
        T(test_plain_names),     T(test_ranges_and_lists),
        T(test_zero_padding),    T(test_several_groups),
        T(test_large),           T(test_empty_items),
        T(test_brackets),        T(test_numbers),
        T(test_number_overflow), T(test_bad_characters),
        T(test_limit),           T(test_name_length),
        T(test_empty_labels),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
