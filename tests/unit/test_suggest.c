/*
 * Unit tests of "did you mean" (suggest.c) and of the source order of
 * diagnostics (mg_diags_sort, diag.c): the edit distance against worked
 * values (a swap costs one, case is ignored, long words are not
 * compared), the threshold (a third of the word), ties, the prefix and
 * abbreviation rules and their uniqueness, and a sort that is stable and keeps each note
 * with its error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void test_distance(void **state)
{
    char long_word[80];

    (void)state;
    assert_int_equal(mg_edit_distance("", ""), 0);
    assert_int_equal(mg_edit_distance("abc", ""), 3);
    assert_int_equal(mg_edit_distance("kitten", "sitting"), 3);
    /* One substitution; one swap of neighbours (Levenshtein would say 2). */
    assert_int_equal(mg_edit_distance("device-kind", "device_kind"), 1);
    assert_int_equal(mg_edit_distance("fdsp", "fsdp"), 1);
    assert_int_equal(mg_edit_distance("hots", "host"), 1);
    /* Optimal string alignment: a swapped pair is not edited again. */
    assert_int_equal(mg_edit_distance("ca", "abc"), 3);
    assert_int_equal(mg_edit_distance("GPU", "gpu"), 0);
    assert_int_equal(mg_edit_distance("pipe", "pp"), 2);
    memset(long_word, 'a', sizeof long_word - 1);
    long_word[sizeof long_word - 1] = '\0';
    assert_int_equal(mg_edit_distance(long_word, "a"), -1);
    long_word[64] = '\0';
    assert_int_equal(mg_edit_distance(long_word, "a"), 63);
}

/* The suggestions for word among the NULL-terminated candidates, joined
 * by '|' ("" for none). */
static const char *suggest(const char *word, const char *const *cands)
{
    static char out[256];
    const char *w[MG_SUGGEST_MAX];
    struct mg_suggest s;
    int n, i;

    mg_suggest_init(&s, word);
    for (; *cands; cands++)
        mg_suggest_add(&s, *cands);
    n = mg_suggest_result(&s, w);
    out[0] = '\0';
    for (i = 0; i < n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "|" : "", w[i]);
    return out;
}

static void test_threshold(void **state)
{
    static const char *const keys[] = {"axes",        "shape", "dcn",       "types",   "mpmd",
                                       "device_kind", "order", "processes", "devices", NULL};
    static const char *const axes[] = {"dp", "tp", NULL};

    (void)state;
    assert_string_equal(suggest("device-kind", keys), "device_kind");
    assert_string_equal(suggest("ordr", keys), "order");
    assert_string_equal(suggest("procesess", keys), "processes");
    /* One swap in a word of five is close; two edits are too far: none,
     * not a guess. */
    assert_string_equal(suggest("shpae", keys), "shape");
    assert_string_equal(suggest("sxaxe", keys), "");
    assert_string_equal(suggest("colour", keys), "");
    /* The word itself is no suggestion; ties are all offered, in order. */
    assert_string_equal(suggest("order", keys), "");
    assert_string_equal(suggest("xp", axes), "dp|tp");
    /* A 64-byte word is compared; a longer one never is. */
    assert_string_equal(
        suggest("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", keys), "");
}

static void test_abbreviation(void **state)
{
    static const char *const pp_dp[] = {"pp", "dp", NULL};
    static const char *const pp_pd[] = {"pp", "pd", NULL};
    static const char *const commands[] = {"validate",  "generate", "resolve", "show",
                                           "inventory", "env",      NULL};

    (void)state;
    /* pp is a subsequence of pipe and pipeline, with the same first letter. */
    assert_string_equal(suggest("pipe", pp_dp), "pp");
    assert_string_equal(suggest("pipeline", pp_dp), "pp");
    assert_string_equal(suggest("data", pp_dp), "");
    /* Two candidates it abbreviates: no guess. */
    assert_string_equal(suggest("pipd", pp_pd), "");
    assert_string_equal(suggest("gen", commands), "generate");
    /* The one command it begins, before the one it is an edit from. */
    assert_string_equal(suggest("inv", commands), "inventory");
    assert_string_equal(suggest("ev", commands), "env");
    assert_string_equal(suggest("dev", (const char *const[]){"devices", "device_kind", NULL}), "");
    assert_string_equal(suggest("valdate", commands), "validate");
    assert_string_equal(suggest("e", commands), "");
}

static void test_text(void **state)
{
    struct mg_arena a;
    struct mg_suggest s;

    (void)state;
    mg_arena_init(&a);
    mg_suggest_init(&s, "xp");
    mg_suggest_add(&s, "dp");
    mg_suggest_add(&s, "tp");
    mg_suggest_add(&s, "dp"); /* a candidate given twice counts once */
    assert_string_equal(mg_suggest_text(&a, &s), "; did you mean 'dp' or 'tp'?");
    mg_suggest_add(&s, "ep");
    assert_string_equal(mg_suggest_text(&a, &s), "; did you mean 'dp', 'tp' or 'ep'?");
    mg_suggest_init(&s, "zzzz");
    mg_suggest_add(&s, "dp");
    assert_string_equal(mg_suggest_text(&a, &s), "");
    mg_suggest_init(&s, "GPU");
    mg_suggest_words(&s, &mg_kind_words);
    assert_string_equal(mg_suggest_text(&a, &s), "; did you mean 'gpu'?");
    mg_arena_free(&a);
}

static void test_sort(void **state)
{
    struct mg_arena a;
    struct mg_diags d;
    struct mg_mark b9 = {"b.yaml", 9, 1}, a3 = {"a.yaml", 3, 5}, a3c2 = {"a.yaml", 3, 2};
    struct mg_mark a0 = {"a.yaml", 0, 0}, none = {NULL, 0, 0}, b2 = {"b.yaml", 2, 4};

    (void)state;
    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    mg_error(&d, MG_CHK_IO, none, "no file");
    mg_error_rel(&d, MG_CHK_AXIS_NAME_UNIQUE, b9, b2, "first defined here", "b9");
    mg_error(&d, MG_CHK_SHAPE_POSITIVE, a3, "a3 first");
    mg_error(&d, MG_CHK_SHAPE_LENGTH, a3c2, "a3c2");
    mg_error(&d, MG_CHK_SHAPE_DIVIDES, a3, "a3 second");
    mg_error(&d, MG_CHK_NOT_A_MESH, a0, "whole file");
    mg_diags_sort(&d);
    assert_int_equal(d.n, 6);
    assert_string_equal(d.items[0].message, "whole file");
    assert_string_equal(d.items[1].message, "a3c2");
    /* Equal places keep the order they were reported in. */
    assert_string_equal(d.items[2].message, "a3 first");
    assert_string_equal(d.items[3].message, "a3 second");
    /* The note moves with its error, though its own line is earlier. */
    assert_string_equal(d.items[4].message, "b9");
    assert_int_equal(d.items[4].related.line, 2);
    assert_string_equal(d.items[4].related_msg, "first defined here");
    assert_string_equal(d.items[5].message, "no file");
    assert_int_equal(d.n_errors, 6);
    mg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),     cmocka_unit_test(test_threshold),
        cmocka_unit_test(test_abbreviation), cmocka_unit_test(test_text),
        cmocka_unit_test(test_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
