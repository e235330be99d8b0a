/*
 * The SHA-256 behind every digest (gen/sha256.c) against the test vectors
 * of FIPS 180-2 / NIST's SHA examples: "abc" (one block), the empty
 * string, the 448-bit message (two blocks, as its padding does not fit the
 * first) and one million 'a'; and the lengths around the padding's
 * boundaries (55, 56, 63, 64, 65, 119, 120, 128 bytes), whose digests were
 * computed with another implementation (Python's hashlib) and transcribed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void expect_digest(const void *data, size_t len, const char *want)
{
    char hex[65];
    memset(hex, 'x', sizeof hex);
    mg_sha256_hex(data, len, hex);
    assert_int_equal(hex[64], '\0');
    assert_string_equal(hex, want);
}

static void test_fips_180_vectors(void **state)
{
    static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    static const char long_message[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                                       "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    (void)state;

    expect_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_int_equal(strlen(two_blocks), 56); /* 448 bits */
    expect_digest(two_blocks, strlen(two_blocks),
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    assert_int_equal(strlen(long_message), 112); /* 896 bits, FIPS 180-4's example */
    expect_digest(long_message, strlen(long_message),
                  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void **state)
{
    char *a = malloc(1000000);
    (void)state;

    assert_non_null(a);
    memset(a, 'a', 1000000);
    expect_digest(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

static void test_padding_boundaries(void **state)
{
    static const struct {
        size_t len;
        const char *hex;
    } cases[] = {
        {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
        {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
        {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
        {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
        {128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
    };
    char a[128];
    size_t i;
    (void)state;

    memset(a, 'a', sizeof a);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_digest(a, cases[i].len, cases[i].hex);
}

/* The million 'a's given in pieces of every size from 1 to 130 bytes (so
 * pieces straddle blocks every way), and through a streaming buffer's sink:
 * the same digest as at once. */
static void test_in_pieces(void **state)
{
    char *a = malloc(1000000), hex[65];
    struct mg_sha256 c;
    struct mg_buf b;
    size_t piece, done;
    (void)state;

    assert_non_null(a);
    memset(a, 'a', 1000000);
    for (piece = 1; piece <= 130; piece += 43) {
        mg_sha256_init(&c);
        for (done = 0; done < 1000000; done += piece)
            mg_sha256_update(&c, a + done, done + piece > 1000000 ? 1000000 - done : piece);
        mg_sha256_final(&c, hex);
        assert_string_equal(hex,
                            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    /* 3.5 MB through the buffer, which hands on a chunk past each MiB. */
    mg_sha256_init(&c);
    mg_buf_init(&b);
    mg_buf_stream(&b, mg_sha256_sink, &c);
    for (done = 0; done < 7; done++) {
        a[done] = 'b'; /* pieces that differ, so their order counts */
        mg_buf_put(&b, a, 500000);
    }
    assert_true(b.flushed >= 2 * MG_BUF_CHUNK);
    mg_buf_flush(&b);
    mg_buf_free(&b);
    mg_sha256_final(&c, hex);
    {
        char *all = malloc(3500000), want[65];
        assert_non_null(all);
        memset(a, 'a', 1000000);
        for (done = 0; done < 7; done++) {
            a[done] = 'b';
            memcpy(all + done * 500000, a, 500000);
        }
        mg_sha256_hex(all, 3500000, want);
        assert_string_equal(hex, want);
        free(all);
    }
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips_180_vectors),
        cmocka_unit_test(test_million_a),
        cmocka_unit_test(test_padding_boundaries),
        cmocka_unit_test(test_in_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
