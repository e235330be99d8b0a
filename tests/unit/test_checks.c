/*
 * The check registry (gen/checks.def through gen.h's read-only access):
 * every entry well formed, the prerequisite graph closed and acyclic, each
 * prerequisite one that a phase runs no later than its dependant, and the
 * table of checks in docs/reference.md equal to the registry both ways
 * (names and severities); every row a phase runs triggered by a
 * command-line case; each row declared as reported by a stage, a check or
 * a decision. A diagnostic takes its name and severity from the registry.
 * (That the checks only read the model: test_check_read_only.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>

#include "internal.h"

static void test_entries(void **state)
{
    int n = mg_check_count(), i, j, by[3] = {0, 0, 0};
    (void)state;

    assert_int_equal(n, MG_CHK__COUNT);
    assert_true(n >= 56);
    assert_null(mg_check_info((enum mg_check_id)n));
    assert_null(mg_check_info((enum mg_check_id) - 1));
    assert_string_equal(mg_check_name((enum mg_check_id)n), "?");
    for (i = 0; i < n; i++) {
        const struct mg_check_info *c = mg_check_info((enum mg_check_id)i);
        const char *p;
        assert_non_null(c);
        /* Names are kebab-case words: what the docs, -W-like switches and
         * SARIF rule ids can all carry. */
        assert_true(c->name[0] >= 'a' && c->name[0] <= 'z');
        for (p = c->name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-');
        assert_true(p[-1] != '-');
        assert_string_equal(mg_check_name((enum mg_check_id)i), c->name);
        assert_int_equal(mg_check_find(c->name), i);
        assert_true(c->phase >= MG_PHASE_LOAD && c->phase <= MG_PHASE_PLAN);
        assert_true(c->severity == MG_SEV_ERROR || c->severity == MG_SEV_WARNING ||
                    c->severity == MG_SEV_NOTE);
        assert_true(strlen(c->doc) > 10 && strchr(c->doc, '\n') == NULL);
        assert_true(c->n_prereqs >= 0 && c->n_prereqs <= MG_CHECK_MAX_PREREQS);
        /* What the stages report has no phase to run it; a check or a
         * decision has one. */
        assert_true(c->by == MG_BY_STAGE || c->by == MG_BY_CHECK || c->by == MG_BY_RESOLVE);
        by[c->by]++;
        if (c->by == MG_BY_STAGE)
            assert_true(c->phase == MG_PHASE_LOAD && c->n_prereqs == 0);
        else
            assert_true(c->phase != MG_PHASE_LOAD);
        for (j = 0; j < i; j++)
            assert_string_not_equal(mg_check_info((enum mg_check_id)j)->name, c->name);
    }
    assert_int_equal(mg_check_find("no-such-check"), -1);
    assert_int_equal(mg_check_find("sharding-divides"), MG_CHK_SHARDING_DIVIDES);
    /* checks.def declares rows of all three forms, and the table records
     * which: the readers' io, a check, a decision. */
    assert_true(by[MG_BY_STAGE] > 0 && by[MG_BY_CHECK] > 0 && by[MG_BY_RESOLVE] > 0);
    assert_int_equal(mg_check_info(MG_CHK_IO)->by, MG_BY_STAGE);
    assert_int_equal(mg_check_info(MG_CHK_SHAPE_DEVICES)->by, MG_BY_CHECK);
    assert_int_equal(mg_check_info(MG_CHK_SHAPE_DIVIDES)->by, MG_BY_RESOLVE);
}

/* Depth-first from check id; colour: 0 unvisited, 1 on the path, 2 done.
 * Fails naming the check whose prerequisite closes a cycle. */
static void walk(enum mg_check_id id, unsigned char *colour)
{
    const struct mg_check_info *c = mg_check_info(id);
    int k;

    colour[id] = 1;
    for (k = 0; k < c->n_prereqs; k++) {
        enum mg_check_id p = c->prereqs[k];
        const struct mg_check_info *pc = mg_check_info(p);
        if (!pc)
            fail_msg("check '%s': prerequisite %d (%d) does not exist", c->name, k, (int)p);
        if (p == id)
            fail_msg("check '%s' is its own prerequisite", c->name);
        /* The readers record nothing a phase could wait on, and a phase
         * cannot wait on a later one. */
        if (pc->phase == MG_PHASE_LOAD || pc->phase > c->phase)
            fail_msg("check '%s' (phase %d) needs '%s' (phase %d), which it cannot follow", c->name,
                     (int)c->phase, pc->name, (int)pc->phase);
        if (colour[p] == 1)
            fail_msg("prerequisite cycle: '%s' needs '%s', which leads back to it", c->name,
                     pc->name);
        if (colour[p] == 0)
            walk(p, colour);
    }
    colour[id] = 2;
}

static void test_prerequisite_graph(void **state)
{
    unsigned char colour[MG_CHK__COUNT];
    int i, edges = 0;
    (void)state;

    memset(colour, 0, sizeof colour);
    for (i = 0; i < mg_check_count(); i++) {
        edges += mg_check_info((enum mg_check_id)i)->n_prereqs;
        if (colour[i] == 0)
            walk((enum mg_check_id)i, colour);
    }
    /* The graph walked is the real one: it has edges, and issue 15's
     * regression needs this one. */
    assert_true(edges > 20);
    {
        const struct mg_check_info *c = mg_check_info(MG_CHK_SHARDING_DIVIDES);
        int k, found = 0;
        for (k = 0; k < c->n_prereqs; k++)
            found |= c->prereqs[k] == MG_CHK_SHARDING_AXIS_UNIQUE;
        assert_true(found);
    }
}

/* ---- docs/reference.md, "### Checks" ---------------------------------------------- */

struct doc_row {
    char name[64];
    char severity[16];
    int seen;
};

static char *read_reference(void)
{
    FILE *f = fopen(MESHGEN_SOURCE_DIR "/docs/reference.md", "rb");
    char *text;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

/* Every `name` of the first cell of a table row, each with the row's
 * severity (its second cell). Returns the number of names. */
static int parse_row(const char *line, struct doc_row *rows, int n, int cap)
{
    const char *bar1 = strchr(line + 1, '|'), *bar2, *p, *q;
    char sev[16];
    size_t len;

    assert_non_null(bar1);
    bar2 = strchr(bar1 + 1, '|');
    assert_non_null(bar2);
    for (p = bar1 + 1; *p == ' '; p++)
        ;
    for (len = 0; p + len < bar2 && p[len] != ' '; len++)
        ;
    assert_true(len > 0 && len < sizeof sev);
    memcpy(sev, p, len);
    sev[len] = '\0';
    for (p = line; (p = memchr(p, '`', (size_t)(bar1 - p))) != NULL; p = q + 1) {
        q = memchr(p + 1, '`', (size_t)(bar1 - p - 1));
        assert_non_null(q);
        assert_true(n < cap && (size_t)(q - p - 1) < sizeof rows[n].name);
        memcpy(rows[n].name, p + 1, (size_t)(q - p - 1));
        rows[n].name[q - p - 1] = '\0';
        strcpy(rows[n].severity, sev);
        rows[n].seen = 0;
        n++;
    }
    return n;
}

static int read_doc_table(struct doc_row *rows, int cap)
{
    char *text = read_reference(), *line, *end;
    char *section = strstr(text, "\n### Checks\n");
    int n = 0, in_table = 0;

    assert_non_null(section);
    for (line = section + 1; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end)
            break;
        *end = '\0';
        if (strncmp(line, "| check | severity |", 20) == 0) {
            in_table = 1;
            continue;
        }
        if (in_table && line[0] != '|')
            break;
        if (in_table && strncmp(line, "| ---", 5) != 0)
            n = parse_row(line, rows, n, cap);
    }
    free(text);
    assert_true(in_table);
    return n;
}

static const char *severity_word(enum mg_severity s)
{
    return s == MG_SEV_ERROR ? "error" : s == MG_SEV_WARNING ? "warning" : "note";
}

static void test_reference_table(void **state)
{
    struct doc_row rows[256];
    int n = read_doc_table(rows, 256), i, j;
    (void)state;

    /* Every name in the docs is a check of the registry, with its
     * severity, and appears once. */
    for (i = 0; i < n; i++) {
        int id = mg_check_find(rows[i].name);
        if (id < 0)
            fail_msg("docs/reference.md lists '%s', which the registry does not have",
                     rows[i].name);
        if (strcmp(rows[i].severity, severity_word(mg_check_info(id)->severity)) != 0)
            fail_msg("docs/reference.md gives '%s' the severity '%s', the registry '%s'",
                     rows[i].name, rows[i].severity, severity_word(mg_check_info(id)->severity));
        for (j = 0; j < i; j++)
            if (strcmp(rows[j].name, rows[i].name) == 0)
                fail_msg("docs/reference.md lists '%s' twice", rows[i].name);
    }
    /* Every check of the registry is in the docs. */
    for (i = 0; i < mg_check_count(); i++) {
        const char *name = mg_check_name((enum mg_check_id)i);
        for (j = 0; j < n && strcmp(rows[j].name, name) != 0; j++)
            ;
        if (j == n)
            fail_msg("the registry has '%s', which docs/reference.md does not list", name);
    }
    assert_int_equal(n, mg_check_count());
}

/* Every row a phase runs (a check of check.c or a decision of resolve.c)
 * is triggered by a command-line case (tests/cases, "# error: NAME"): a
 * row that is never reached has none. */
static void test_phase_checks_have_cases(void **state)
{
    static char covered[MG_CHK__COUNT];
    DIR *dir = opendir(MESHGEN_SOURCE_DIR "/tests/cases");
    struct dirent *e;
    int i;
    (void)state;

    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        char path[1024], line[512];
        FILE *f;
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        snprintf(path, sizeof path, "%s/tests/cases/%s", MESHGEN_SOURCE_DIR, e->d_name);
        f = fopen(path, "r");
        assert_non_null(f);
        while (fgets(line, sizeof line, f)) {
            char name[64];
            int id;
            if (sscanf(line, "# error: %63[a-z0-9-]", name) == 1 && (id = mg_check_find(name)) >= 0)
                covered[id] = 1;
        }
        fclose(f);
    }
    closedir(dir);
    for (i = 0; i < mg_check_count(); i++)
        if (mg_check_info((enum mg_check_id)i)->phase != MG_PHASE_LOAD && !covered[i])
            fail_msg("no case in tests/cases triggers '%s'", mg_check_name((enum mg_check_id)i));
}

/* A diagnostic's name and severity are the registry's. */
static void test_diag_from_registry(void **state)
{
    struct mg_arena a;
    struct mg_diags d;
    struct mg_mark at = {"x.yaml", 3, 4};
    (void)state;

    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    mg_error(&d, MG_CHK_SHAPE_INFER, at, "two %s", "-1");
    mg_warning(&d, MG_CHK_INVENTORY_CLOSENESS, at, "big");
    assert_int_equal(d.n, 2);
    assert_int_equal(d.n_errors, 1);
    assert_string_equal(d.items[0].check, "shape-infer");
    assert_int_equal(d.items[0].id, MG_CHK_SHAPE_INFER);
    assert_int_equal(d.items[0].severity, MG_SEV_ERROR);
    assert_string_equal(d.items[0].message, "two -1");
    assert_string_equal(d.items[1].check, "inventory-closeness");
    assert_int_equal(d.items[1].severity, MG_SEV_WARNING);
    mg_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries),
        cmocka_unit_test(test_prerequisite_graph),
        cmocka_unit_test(test_reference_table),
        cmocka_unit_test(test_phase_checks_have_cases),
        cmocka_unit_test(test_diag_from_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
