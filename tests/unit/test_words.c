/*
 * Unit tests of the word tables (words.c): each table is indexed by its
 * enumeration, lookups go both ways, the lists that messages and usage
 * errors print read as they should, the C spellings are the runtime
 * header's enumerators, and docs/reference.md lists each enumeration of
 * the spec with the same words in the same order — so the parser, the
 * emitters and the docs cannot drift apart.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

#ifndef MESHGEN_TEST_DATA
#define MESHGEN_TEST_DATA "tests/data"
#endif
#define REFERENCE MESHGEN_TEST_DATA "/../../docs/reference.md"

static const struct mg_words *const tables[] = {
    &mg_kind_words,    &mg_axis_type_words,  &mg_order_words,      &mg_process_words,
    &mg_granule_words, &mg_severity_words,   &mg_format_words,     &mg_when_words,
    &mg_command_words, &mg_env_format_words, &mg_tpu_method_words, &mg_color_by_words,
};

static void test_lookup_both_ways(void **state)
{
    size_t t;
    int i;

    (void)state;
    for (t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        const struct mg_words *w = tables[t];
        assert_true(w->n >= 2);
        for (i = 0; i < w->n; i++) {
            assert_non_null(w->w[i].name);
            assert_int_equal(mg_word_value(w, w->w[i].name), i);
            assert_string_equal(mg_word(w, i), w->w[i].name);
        }
        assert_string_equal(mg_word(w, -1), "unknown");
        assert_string_equal(mg_word(w, w->n), "unknown");
        assert_int_equal(mg_word_value(w, "no-such-word"), -1);
        assert_int_equal(mg_word_value(w, NULL), -1);
    }
    /* Words are case-sensitive, as the spec reader takes them. */
    assert_int_equal(mg_kind_from_name("GPU"), -1);
    assert_int_equal(mg_kind_from_name("pu"), MESHGEN_KIND_PU);
    assert_string_equal(mg_kind_name(MESHGEN_KIND_NUMA), "numa");
}

/* The values the tables are indexed by are the runtime header's. */
static void test_indexed_by_enum(void **state)
{
    (void)state;
    assert_string_equal(mg_word(&mg_kind_words, MESHGEN_KIND_GPU), "gpu");
    assert_string_equal(mg_word(&mg_kind_words, MESHGEN_KIND_PACKAGE), "package");
    assert_string_equal(mg_word(&mg_axis_type_words, MESHGEN_AXIS_EXPLICIT), "explicit");
    assert_string_equal(mg_word(&mg_process_words, MESHGEN_PROCESSES_DEVICE), "device");
    assert_string_equal(mg_word(&mg_order_words, MG_ORDER_INVENTORY), "inventory");
    assert_string_equal(mg_word(&mg_granule_words, MG_GRANULE_SLICE), "slice");
    assert_string_equal(mg_word(&mg_severity_words, MG_SEV_NOTE), "note");
    assert_string_equal(mg_word(&mg_format_words, MG_FORMAT_GITHUB), "github");
    assert_string_equal(mg_word(&mg_when_words, MG_WHEN_NEVER), "never");
    assert_string_equal(mg_word(&mg_command_words, MG_CMD_INVENTORY), "inventory");
    assert_int_equal(mg_command_words.n, MG_N_COMMANDS);
    assert_int_equal(mg_kind_words.n, MG_N_KINDS);
}

/* Where a value has an enumerator in <meshgen/meshgen.h>, the C emitter
 * writes it as PREFIX_WORD; where it has none, there is no C spelling. */
static void test_c_names(void **state)
{
    static const struct {
        const struct mg_words *w;
        const char *prefix;
    } c_tables[] = {{&mg_kind_words, "MESHGEN_KIND_"},
                    {&mg_axis_type_words, "MESHGEN_AXIS_"},
                    {&mg_process_words, "MESHGEN_PROCESSES_"}};
    size_t t, k;
    int i;

    (void)state;
    for (t = 0; t < sizeof c_tables / sizeof c_tables[0]; t++) {
        const struct mg_words *w = c_tables[t].w;
        for (i = 0; i < w->n; i++) {
            char want[64];
            size_t p = strlen(c_tables[t].prefix);
            memcpy(want, c_tables[t].prefix, p);
            for (k = 0; w->w[i].name[k]; k++)
                want[p + k] = (char)toupper((unsigned char)w->w[i].name[k]);
            want[p + k] = '\0';
            assert_string_equal(mg_word_c(w, i), want);
        }
    }
    assert_null(mg_word_c(&mg_order_words, MG_ORDER_LOCALITY));
    assert_null(mg_word_c(&mg_kind_words, MG_N_KINDS));
}

static void test_lists(void **state)
{
    struct mg_buf b;

    (void)state;
    mg_buf_init(&b);
    mg_word_list(&b, &mg_format_words, " or ");
    assert_string_equal(b.data, "text, json, github or sarif");
    b.len = 0;
    mg_word_list(&b, &mg_when_words, " or ");
    assert_string_equal(b.data, "auto, always or never");
    b.len = 0;
    mg_word_list(&b, &mg_kind_words, ", ");
    assert_string_equal(b.data, "gpu, core, numa, package, pu, tpu");
    mg_buf_free(&b);
}

/* The words docs/reference.md gives a spec key, in its comment after '#':
 * "auto | explicit | manual; default explicit" or "locality (default) |
 * inventory" -> the words in order, parenthesised remarks left out. */
static int doc_words(const char *line, char words[][32], int cap)
{
    const char *p = strchr(line, '#');
    int n = 0;

    assert_non_null(p);
    for (p++; *p && *p != ';' && *p != '\n' && n < cap; n++) {
        size_t k = 0;
        while (*p == ' ' || *p == '|')
            p++;
        while (*p && *p != ' ' && *p != '|' && *p != ';' && *p != '\n' && k < 31)
            words[n][k++] = *p++;
        words[n][k] = '\0';
        /* A remark in parentheses belongs to the word before it. */
        while (*p == ' ')
            p++;
        if (*p == '(')
            while (*p && *p != ')')
                p++;
        if (*p == ')')
            p++;
        while (*p == ' ')
            p++;
    }
    return n;
}

static void test_reference_lists_the_words(void **state)
{
    static const struct {
        const char *key;
        const struct mg_words *w;
    } keys[] = {{"  types:", &mg_axis_type_words},
                {"  device_kind:", &mg_kind_words},
                {"  order:", &mg_order_words},
                {"  processes:", &mg_process_words},
                {"  granule:", &mg_granule_words}};
    char line[512], words[16][32];
    size_t k;
    int found[sizeof keys / sizeof keys[0]] = {0}, i, n;
    FILE *f = fopen(REFERENCE, "r");

    (void)state;
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            if (found[k] || strncmp(line, keys[k].key, strlen(keys[k].key)) != 0)
                continue;
            found[k] = 1;
            n = doc_words(line, words, 16);
            if (n != keys[k].w->n)
                fail_msg("docs/reference.md lists %d words for%s, the table has %d: %s", n,
                         keys[k].key, keys[k].w->n, line);
            for (i = 0; i < n; i++)
                assert_string_equal(words[i], keys[k].w->w[i].name);
        }
    }
    fclose(f);
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!found[k])
            fail_msg("docs/reference.md has no line for%s", keys[k].key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_both_ways),
        cmocka_unit_test(test_indexed_by_enum),
        cmocka_unit_test(test_c_names),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_reference_lists_the_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
