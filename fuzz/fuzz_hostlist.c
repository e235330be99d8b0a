/*
 * Fuzz target: bytes -> a NUL-terminated string -> mg_hostlist_expand with
 * a limit of 1000 names: small, so every execution stays cheap (with 100000
 * the fuzzer spent its time expanding huge lists) and the limit path is hit
 * often; large expansions are unit-tested. Beyond the sanitizers it holds
 * the function to its word: -1 exactly when it reported, never more names
 * than the limit, and every name a host name by reference.md §2's rule: a
 * non-empty run of host name characters of at most 255, with no empty
 * label (no '.' first, last or twice in a row).
 */
#include <string.h>

#include "fuzz_common.h"

#define MG_FUZZ_LIMIT 1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mg_mark at = {"fuzz.yaml", 3, 12};
    struct mg_arena a;
    struct mg_diags d;
    const char **names;
    const char *text;
    int n, i;

    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    text = mg_strndup(&a, (const char *)data, size);
    n = mg_hostlist_expand(&a, &d, text, at, MG_FUZZ_LIMIT, &names);
    if ((n < 0) != (d.n_errors > 0) || n > MG_FUZZ_LIMIT)
        __builtin_trap();
    for (i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        if (len == 0 || len > 255 ||
            strspn(names[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") !=
                len ||
            names[i][0] == '.' || names[i][len - 1] == '.' || strstr(names[i], "..") != NULL)
            __builtin_trap();
    }
    mg_arena_free(&a);
    return 0;
}
