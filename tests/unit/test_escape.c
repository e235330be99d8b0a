/*
 * Unit tests of the one escaper (<meshgen/escape.h>, escape.c): each
 * format's spelling of the characters it escapes, bytes that are not UTF-8
 * (replaced in the machine formats, escaped byte by byte in text and kept
 * exactly where the format can hold any byte), the cut at a character
 * boundary, and the names a Make rule cannot hold. Strings only.
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

/* s escaped for fmt, in a static buffer (the tests are sequential). */
static const char *esc(enum mg_esc fmt, const char *s)
{
    static char out[1024];
    struct mg_buf b;

    mg_buf_init(&b);
    assert_int_equal(mg_escape(&b, fmt, s), 0);
    assert_true(b.len < sizeof out);
    memcpy(out, b.data, b.len + 1);
    mg_buf_free(&b);
    return out;
}

static const char *cut(enum mg_esc fmt, const char *s, size_t head, size_t tail)
{
    static char out[1024];
    struct mg_buf b;

    mg_buf_init(&b);
    assert_int_equal(mg_escape_cut(&b, fmt, s, head, tail), 0);
    memcpy(out, b.data, b.len + 1);
    mg_buf_free(&b);
    return out;
}

/* Whether s is valid UTF-8 (no overlong form, surrogate or cut sequence). */
static int is_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
        int i;
        if (!n || (n == 2 && *p < 0xC2))
            return 0;
        for (i = 1; i < n; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        p += n;
    }
    return 1;
}

/* What is not UTF-8: a stray continuation byte, a lead byte cut short, an
 * overlong '/', a UTF-16 surrogate, 0xFF. */
static const char *const not_utf8[] = {"a\x80z", "a\xC3", "\xC0\xAF", "\xED\xA0\x80", "x\xFFy"};

static void test_text(void **state)
{
    (void)state;
    assert_string_equal(esc(MG_ESC_TEXT, "gpu-\xC3\xA9 ok\\"), "gpu-\xC3\xA9 ok\\");
    assert_string_equal(esc(MG_ESC_TEXT, "a\nb\tc\rd\x1B[2J\x7F"), "a\\nb\\tc\\rd\\x1b[2J\\x7f");
    /* C1 controls (U+0085, U+009B: a terminal's 8-bit CSI) are escaped by byte. */
    assert_string_equal(esc(MG_ESC_TEXT, "n\xC2\x85"
                                         "c\xC2\x9B"),
                        "n\\xc2\\x85c\\xc2\\x9b");
    assert_string_equal(esc(MG_ESC_TEXT, "x\xFFy"), "x\\xffy");
    assert_string_equal(esc(MG_ESC_TEXT, "\xED\xA0\x80"), "\\xed\\xa0\\x80");
    /* Escaping its own output changes nothing: a message escaped once as a
     * whole keeps the values already quoted in it. */
    assert_string_equal(esc(MG_ESC_TEXT, "a\\nb\\x1b"), "a\\nb\\x1b");
}

static void test_c(void **state)
{
    (void)state;
    assert_string_equal(esc(MG_ESC_C, "a\"b\\c?\?/d\n\t"), "a\\\"b\\\\c\\?\\?/d\\n\\t");
    /* Every other byte outside printable ASCII in three octal digits, so a
     * digit after it stays a digit. */
    assert_string_equal(esc(MG_ESC_C, "\xC3\xA9"
                                      "1\x01"
                                      "2\x7F"),
                        "\\303\\2511\\0012\\177");
    assert_string_equal(esc(MG_ESC_C, "x\xFF"), "x\\377");
}

static void test_json(void **state)
{
    size_t i;

    (void)state;
    assert_string_equal(esc(MG_ESC_JSON, "q\"b\\n\nr\rt\t\x01\x7F"),
                        "q\\\"b\\\\n\\nr\\rt\\t\\u0001\\u007f");
    assert_string_equal(esc(MG_ESC_JSON, "\xC2\x85\xE2\x80\xA8\xE2\x80\xA9\xC3\xA9"),
                        "\\u0085\\u2028\\u2029\xC3\xA9");
    /* Each byte that is not UTF-8 becomes one U+FFFD; the rest stays. */
    assert_string_equal(esc(MG_ESC_JSON, "x\xFFy"), "x\\ufffdy");
    assert_string_equal(esc(MG_ESC_JSON, "a\xC3"), "a\\ufffd");
    assert_string_equal(esc(MG_ESC_JSON, "\xC0\xAF"), "\\ufffd\\ufffd");
    for (i = 0; i < sizeof not_utf8 / sizeof not_utf8[0]; i++)
        assert_true(is_utf8(esc(MG_ESC_JSON, not_utf8[i])));
}

static void test_xml(void **state)
{
    size_t i;

    (void)state;
    assert_string_equal(esc(MG_ESC_XML, "<a href=\"x\">&</a>"),
                        "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
    assert_string_equal(esc(MG_ESC_XML, "a\x01\n\xEF\xBF\xBE\xEF\xBF\xBF\xC3\xA9"),
                        "a??\?\?\xC3\xA9");
    assert_string_equal(esc(MG_ESC_XML, "x\xFFy"), "x\xEF\xBF\xBDy");
    for (i = 0; i < sizeof not_utf8 / sizeof not_utf8[0]; i++)
        assert_true(is_utf8(esc(MG_ESC_XML, not_utf8[i])));
}

static void test_shell(void **state)
{
    (void)state;
    /* Inside single quotes only the quote itself needs anything. */
    assert_string_equal(esc(MG_ESC_SH, "it's $(x) `y` \\ \n\xFF"), "it'\\''s $(x) `y` \\ \n\xFF");
    assert_string_equal(esc(MG_ESC_SH_COMMENT, "a\nb\rc"), "a\n# b\n# c");
}

static void test_github(void **state)
{
    (void)state;
    assert_string_equal(esc(MG_ESC_GITHUB, "50% a:b,c\r\n"), "50%25 a:b,c%0D%0A");
    assert_string_equal(esc(MG_ESC_GITHUB_PROPERTY, "50% a:b,c\r\n"), "50%25 a%3Ab%2Cc%0D%0A");
    assert_string_equal(esc(MG_ESC_GITHUB, "x\xFF"), "x\xEF\xBF\xBD");
}

static void test_uri(void **state)
{
    (void)state;
    assert_string_equal(esc(MG_ESC_URI, "dir/a b-c_d.e~f%\xC3\xA9\xFF"),
                        "dir/a%20b-c_d.e~f%25%C3%A9%FF");
}

/* Names as GCC's -MD writes them; tests/tools/depfile_check.py has Make
 * and Ninja read them back. */
static void test_make(void **state)
{
    (void)state;
    assert_string_equal(esc(MG_ESC_MAKE, "a b#c$d:e"), "a\\ b\\#c$$d\\:e");
    /* Backslashes before an escaped character are doubled, others kept. */
    assert_string_equal(esc(MG_ESC_MAKE, "x\\y\\ z\\\\#w"), "x\\y\\\\\\ z\\\\\\\\\\#w");
    assert_string_equal(esc(MG_ESC_MAKE, "50%\xC3\xA9\xFF"), "50%\xC3\xA9\xFF");
    assert_null(mg_esc_refusal(MG_ESC_MAKE, "a b#c$d:e%*?'\"&"));
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a\nb"), "a newline");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a\tb"), "a tab");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a\rb"), "a carriage return");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a\x01"), "a control character");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a;b"), "';'");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "CC=x"), "'='");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a|b"), "'|'");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, "a\\"), "a final '\\'");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE, ""), "no character");
    assert_string_equal(mg_esc_refusal(MG_ESC_MAKE_TARGET, "out%/m.h"), "'%'");
    /* The other formats refuse nothing. */
    assert_null(mg_esc_refusal(MG_ESC_TEXT, "a\nb;c=d|e\\"));
}

static void test_make_refused_writes_nothing(void **state)
{
    struct mg_buf b;
    const char *why = NULL;
    const char *targets[] = {"out/m_mesh.c", "out/m_mesh.h"};
    const char *prereqs[] = {"m.yaml", "evil\nall:;touch pwned", "t.xml"};

    (void)state;
    mg_buf_init(&b);
    assert_int_equal(mg_escape(&b, MG_ESC_MAKE, "a\nb"), -1);
    assert_int_equal(b.len, 0);
    assert_ptr_equal(mg_emit_depfile(&b, targets, 2, prereqs, 3, &why), prereqs[1]);
    assert_string_equal(why, "a newline");
    assert_int_equal(b.len, 0);
    assert_null(mg_emit_depfile(&b, targets, 2, prereqs, 1, &why));
    assert_string_equal(b.data, "out/m_mesh.c out/m_mesh.h: m.yaml\n");
    mg_buf_free(&b);
}

static void test_cut(void **state)
{
    (void)state;
    /* No cut where "..." would be as long as what it replaces. */
    assert_string_equal(cut(MG_ESC_TEXT, "abcdefg", 4, 0), "abcdefg");
    assert_string_equal(cut(MG_ESC_TEXT, "abcdefgh", 4, 0), "abcd...");
    assert_string_equal(cut(MG_ESC_TEXT, "abcdefghijkl", 3, 3), "abc...jkl");
    /* At a character: "é" is two bytes and is not split at either end. */
    assert_string_equal(cut(MG_ESC_TEXT, "a\xC3\xA9xxxxxxxx\xC3\xA9z", 2, 2), "a...z");
    assert_string_equal(cut(MG_ESC_TEXT, "a\xC3\xA9xxxxxxxx\xC3\xA9z", 3, 3),
                        "a\xC3\xA9...\xC3\xA9z");
    /* The cut counts bytes of the input; escapes are written in full. */
    assert_string_equal(cut(MG_ESC_TEXT, "\n\n\n\n\n\n\n\n", 2, 0), "\\n\\n...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_c),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_xml),
        cmocka_unit_test(test_shell),
        cmocka_unit_test(test_github),
        cmocka_unit_test(test_uri),
        cmocka_unit_test(test_make),
        cmocka_unit_test(test_make_refused_writes_nothing),
        cmocka_unit_test(test_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
