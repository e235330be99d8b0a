/*
 * Collecting diagnostics: each is a value (severity, check name, location,
 * an optional related location, message), kept in the run's arena up to
 * MG_MAX_ERRORS; the rest are counted. A message is formatted plainly and
 * then escaped and bounded once as a whole (mg_message); the values it
 * quotes are escaped and cut where they are quoted (mg_show,
 * mg_show_path), all through the one escaper (escape.h). Printing
 * is emit_diag.c's: nothing here knows an output format.
 *
 * It also holds the check registry, checks.def expanded into one table
 * indexed by enum mg_check_id: a diagnostic's name and severity come from
 * there, and so do the prerequisites compile.c follows.
 *
 * Before they are printed, the diagnostics of a run are put in source
 * order (mg_diags_sort): by file, line and column, whatever order the
 * checks ran in; a related note is part of its diagnostic and moves with
 * it.
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

/* ---- the registry ------------------------------------------------------------ */

#define MG_UNPAREN(...) __VA_ARGS__
/* The number of entries of a parenthesized, possibly empty list. The
 * leading 0 keeps the initializer non-empty, which ISO C requires. */
#define MG_LIST_LEN(list) ((int)(sizeof((int[]){0, MG_UNPAREN list}) / sizeof(int)) - 1)

/* A prerequisite list is a static array; its first slot is a placeholder
 * for the same reason, and the entry points past it. */
#define MG_ENTRY(id, name, phase, severity, doc, prereqs, by)                                      \
    [id] = {name,                                                                                  \
            phase,                                                                                 \
            severity,                                                                              \
            doc,                                                                                   \
            MG_LIST_LEN(prereqs),                                                                  \
            (const enum mg_check_id[]){MG_CHK__COUNT, MG_UNPAREN prereqs} + 1,                     \
            by},
#define MG_REPORT(id, name, severity, doc)                                                         \
    MG_ENTRY(id, name, MG_PHASE_LOAD, severity, doc, (), MG_BY_STAGE)
#define MG_CHECK(id, name, phase, severity, doc, prereqs, function)                                \
    MG_ENTRY(id, name, phase, severity, doc, prereqs, MG_BY_CHECK)
#define MG_RESOLVE(id, name, phase, severity, doc, prereqs, function)                              \
    MG_ENTRY(id, name, phase, severity, doc, prereqs, MG_BY_RESOLVE)
static const struct mg_check_info mg_checks[MG_CHK__COUNT] = {
#include "checks.def"
};
#undef MG_REPORT
#undef MG_CHECK
#undef MG_RESOLVE
#undef MG_ENTRY

/* A row that a phase runs names its phase, and has room for its
 * prerequisites. */
#define MG_REPORT(id, name, severity, doc)
#define MG_CHECK(id, name, phase, severity, doc, prereqs, function)                                \
    _Static_assert((phase) != MG_PHASE_LOAD, name ": a check runs in a phase");                    \
    _Static_assert(MG_LIST_LEN(prereqs) <= MG_CHECK_MAX_PREREQS, name ": too many prerequisites");
#define MG_RESOLVE(id, name, phase, severity, doc, prereqs, function)                              \
    MG_CHECK(id, name, phase, severity, doc, prereqs, function)
#include "checks.def"
#undef MG_REPORT
#undef MG_CHECK
#undef MG_RESOLVE

int mg_check_count(void)
{
    return MG_CHK__COUNT;
}

const struct mg_check_info *mg_check_info(enum mg_check_id id)
{
    if ((int)id < 0 || id >= MG_CHK__COUNT)
        return NULL;
    return &mg_checks[id];
}

const char *mg_check_name(enum mg_check_id id)
{
    const struct mg_check_info *c = mg_check_info(id);
    return c ? c->name : "?";
}

int mg_check_find(const char *name)
{
    int i;
    for (i = 0; i < MG_CHK__COUNT; i++)
        if (strcmp(mg_checks[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- collecting ------------------------------------------------------------- */

void mg_diags_init(struct mg_diags *d, struct mg_arena *a)
{
    memset(d, 0, sizeof *d);
    d->arena = a;
}

/* A message is formatted plainly, then made one line and bounded once,
 * whatever its arguments: control bytes escaped (mg_escape's terminal
 * text), so no input can forge a diagnostic line of its own, and past
 * MG_MESSAGE_HEAD + MG_MESSAGE_TAIL bytes its middle cut out, so a 10 MB
 * name passed as it is still gives one readable line that ends as the
 * message does. Values a message quotes are cut where they are quoted
 * (mg_show, mg_show_path), far below this. */
#define MG_MESSAGE_HEAD 320
#define MG_MESSAGE_TAIL 160

static const char *mg_message(struct mg_arena *a, const char *msg)
{
    struct mg_buf b;
    const char *out;

    mg_buf_init(&b);
    mg_escape_cut(&b, MG_ESC_TEXT, msg, MG_MESSAGE_HEAD, MG_MESSAGE_TAIL);
    out = mg_strdup(a, b.data ? b.data : "");
    mg_buf_free(&b);
    return out;
}

/* ---- adding a diagnostic ---------------------------------------------------- */

/* The next slot of d, or NULL (and one more dropped) past MG_MAX_ERRORS. */
static struct mg_diag *mg_diag_slot(struct mg_diags *d)
{
    if (d->n >= MG_MAX_ERRORS) {
        d->dropped++;
        return NULL;
    }
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 16;
        struct mg_diag *items = mg_alloc_array(d->arena, (size_t)cap, sizeof *items);
        if (d->n)
            memcpy(items, d->items, (size_t)d->n * sizeof *items);
        d->items = items;
        d->cap = cap;
    }
    return &d->items[d->n++];
}

static void mg_diag_vadd(struct mg_diags *d, enum mg_check_id check, struct mg_mark at,
                         const struct mg_mark *rel, const char *rel_msg, const char *fmt,
                         va_list ap) MG_PRINTF(6, 0);
static void mg_diag_vadd(struct mg_diags *d, enum mg_check_id check, struct mg_mark at,
                         const struct mg_mark *rel, const char *rel_msg, const char *fmt,
                         va_list ap)
{
    struct mg_diag *g;
    /* The severity is the registry's, whichever of mg_error and mg_warning
     * the call site used, so the two cannot disagree in the output. */
    enum mg_severity sev = mg_check_info(check) ? mg_checks[check].severity : MG_SEV_ERROR;

    if (sev == MG_SEV_ERROR)
        d->n_errors++;
    if (!(g = mg_diag_slot(d)))
        return;
    memset(g, 0, sizeof *g);
    g->severity = sev;
    g->id = check;
    g->check = mg_check_name(check);
    g->at = at;
    if (rel) {
        g->related = *rel;
        g->related_msg = rel_msg ? mg_message(d->arena, rel_msg) : NULL;
    }
    g->message = mg_message(d->arena, mg_vprintf(d->arena, fmt, ap));
}

void mg_diags_append(struct mg_diags *d, const struct mg_diags *from)
{
    int i;

    d->n_errors += from->n_errors;
    d->dropped += from->dropped;
    d->io_errors += from->io_errors; /* an input that could not be read: exit 2 */
    for (i = 0; i < from->n; i++) {
        struct mg_diag *g = mg_diag_slot(d);
        if (g)
            *g = from->items[i];
    }
}

/* ---- source order ------------------------------------------------------------ */

struct mg_diag_at {
    struct mg_diag g;
    int seq; /* the order it was reported in: the sort is stable */
};

/* By file (names compared as bytes; diagnostics of no file last), then
 * line and column (a whole file's line 0 first), then report order. */
static int mg_diag_at_cmp(const void *x, const void *y)
{
    const struct mg_diag_at *a = x, *b = y;
    const char *fa = a->g.at.file, *fb = b->g.at.file;
    int c = !fa || !fb ? (fa == NULL) - (fb == NULL) : strcmp(fa, fb);

    if (!c)
        c = (a->g.at.line > b->g.at.line) - (a->g.at.line < b->g.at.line);
    if (!c)
        c = (a->g.at.col > b->g.at.col) - (a->g.at.col < b->g.at.col);
    return c ? c : a->seq - b->seq;
}

void mg_diags_sort(struct mg_diags *d)
{
    struct mg_diag_at *t;
    int i;

    if (d->n < 2)
        return;
    t = mg_alloc_array(d->arena, (size_t)d->n, sizeof *t);
    for (i = 0; i < d->n; i++) {
        t[i].g = d->items[i];
        t[i].seq = i;
    }
    qsort(t, (size_t)d->n, sizeof *t, mg_diag_at_cmp);
    for (i = 0; i < d->n; i++)
        d->items[i] = t[i].g;
}

void mg_error(struct mg_diags *d, enum mg_check_id check, struct mg_mark at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mg_diag_vadd(d, check, at, NULL, NULL, fmt, ap);
    va_end(ap);
}

void mg_error_rel(struct mg_diags *d, enum mg_check_id check, struct mg_mark at, struct mg_mark rel,
                  const char *rel_msg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mg_diag_vadd(d, check, at, &rel, rel_msg, fmt, ap);
    va_end(ap);
}

void mg_warning(struct mg_diags *d, enum mg_check_id check, struct mg_mark at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mg_diag_vadd(d, check, at, NULL, NULL, fmt, ap);
    va_end(ap);
}

/* Paths keep their head and their tail (the file's name) around "...";
 * host names their head and their number, in MG_SHOW_MAX bytes. */
#define MG_SHOW_PATH_PART 100
#define MG_SHOW_HOST_HEAD 24
#define MG_SHOW_HOST_TAIL 13

/* s quoted, escaped as terminal text and cut as mg_escape_cut cuts. */
static const char *mg_quote(struct mg_arena *a, const char *s, size_t head, size_t tail)
{
    struct mg_buf b;
    const char *out;

    mg_buf_init(&b);
    mg_buf_puts(&b, "'");
    mg_escape_cut(&b, MG_ESC_TEXT, s, head, tail);
    mg_buf_puts(&b, "'");
    out = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return out;
}

const char *mg_show(struct mg_arena *a, const char *s)
{
    return mg_quote(a, s, MG_SHOW_MAX, 0);
}

const char *mg_show_host(struct mg_arena *a, const char *name)
{
    return mg_quote(a, name, MG_SHOW_HOST_HEAD, MG_SHOW_HOST_TAIL);
}

const char *mg_show_path(struct mg_arena *a, const char *path)
{
    return mg_quote(a, path, MG_SHOW_PATH_PART, MG_SHOW_PATH_PART);
}

void mg_describe_shape(struct mg_buf *b, const struct mg_spec *spec, const int64_t *v)
{
    int i;
    mg_buf_puts(b, "(");
    for (i = 0; i < spec->n_axes; i++) {
        /* An axis name is shown before the checks have judged it, so it
         * is escaped and cut as a quoted value is. */
        mg_buf_puts(b, i ? ", " : "");
        mg_escape_cut(b, MG_ESC_TEXT, spec->axes[i].name, MG_SHOW_MAX, 0);
        mg_buf_printf(b, "=%lld", (long long)v[i]);
    }
    mg_buf_puts(b, ")");
}
