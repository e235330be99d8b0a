/*
 * Assertions on diagnostics shared by the unit tests of the readers
 * (test_spec.c, test_inventory_file.c): that none was reported, that one
 * with a given check name sits at a given line:col, how many of a check.
 * On failure they print everything that was reported.
 */
#ifndef MG_TEST_DIAG_H
#define MG_TEST_DIAG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void dump(const struct mg_diags *d)
{
    mg_diags_print(d, stderr, MG_FORMAT_TEXT);
}

static void expect_clean_at(const struct mg_diags *d, const char *file, int line)
{
    if (d->n_errors != 0) {
        dump(d);
        fail_msg("%s:%d: expected no errors, got %d", file, line, d->n_errors);
    }
}
#define expect_clean(d) expect_clean_at((d), __FILE__, __LINE__)

/* The diagnostic with this check name at line:col, or a failure that lists
 * what was reported instead. */
static const struct mg_diag *expect_diag_at(const struct mg_diags *d, const char *check, int line,
                                            int col, const char *file, int tline)
{
    int i;
    for (i = 0; i < d->n; i++) {
        const struct mg_diag *g = &d->items[i];
        if (strcmp(g->check, check) == 0 && g->at.line == line && g->at.col == col)
            return g;
    }
    dump(d);
    fail_msg("%s:%d: no [%s] diagnostic at %d:%d", file, tline, check, line, col);
    return NULL;
}
#define expect_diag(d, check, line, col)                                                           \
    expect_diag_at((d), (check), (line), (col), __FILE__, __LINE__)

static int count_check(const struct mg_diags *d, const char *check)
{
    int i, n = 0;
    for (i = 0; i < d->n; i++)
        n += strcmp(d->items[i].check, check) == 0;
    return n;
}

#endif /* MG_TEST_DIAG_H */
