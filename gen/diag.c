/*
 * Collecting diagnostics: each is a value (severity, check name, location,
 * an optional related location, message), kept in the run's arena up to
 * MG_MAX_ERRORS; the rest are counted. Messages are made one line whatever
 * they quote, every string they echo is cut past 200 bytes (MG_ECHO_MAX),
 * and values quoted in them are escaped (mg_show). Printing is
 * emit_diag.c's: nothing here knows an output format.
 *
 * It also holds the check registry, checks.def expanded into one table
 * indexed by enum mg_check_id: a diagnostic's name and severity come from
 * there, and so do the prerequisites compile.c follows.
 */
#include "diag.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the registry ------------------------------------------------------------ */

#define MG_UNPAREN(...) __VA_ARGS__
/* The number of entries of a parenthesized, possibly empty list. The
 * leading 0 keeps the initializer non-empty, which ISO C requires. */
#define MG_COUNT(list) ((int)(sizeof((int[]){0, MG_UNPAREN list}) / sizeof(int)) - 1)

/* A prerequisite list is a static array; its first slot is a placeholder
 * for the same reason, and the entry points past it. */
#define MG_ENTRY(id, name, phase, severity, doc, prereqs, by)                                      \
    [id] = {name,                                                                                  \
            phase,                                                                                 \
            severity,                                                                              \
            doc,                                                                                   \
            MG_COUNT(prereqs),                                                                     \
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
    _Static_assert(MG_COUNT(prereqs) <= MG_CHECK_MAX_PREREQS, name ": too many prerequisites");
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

/* A message stays on one line whatever names it quotes: control bytes are
 * written as escapes, so no input can forge a diagnostic line of its own. */
static const char *mg_one_line(struct mg_arena *a, const char *msg)
{
    struct mg_buf b;
    const unsigned char *p;
    const char *out;

    for (p = (const unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            break;
    if (!*p)
        return msg;
    mg_buf_init(&b);
    for (p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n')
            mg_buf_puts(&b, "\\n");
        else if (*p == '\t')
            mg_buf_puts(&b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            mg_buf_printf(&b, "\\x%02x", *p);
        else
            mg_buf_put(&b, (const char *)p, 1);
    }
    out = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return out;
}

/* ---- bounded formatting ------------------------------------------------------ */

/* Every string a message echoes (a name, a value, a path) is cut past this
 * many bytes, at a UTF-8 character boundary, with "..." after it: a 10 MB
 * name gives a message of one readable line, whichever check reports it. */
#define MG_ECHO_MAX 200

/* One conversion of a printf format: its text (flags, width, precision,
 * length and the conversion character), the length modifier, how many '*'
 * arguments come before its value, and whether it has a precision. */
struct mg_conv {
    char spec[24];
    char conv, len; /* len: 0, 'H' (hh), 'h', 'l', 'q' (ll), 'z', 'j', 't', 'L' */
    int n_star, has_prec;
};

/* Parses the conversion at p (at its '%'); returns the end, or NULL when it
 * is not one this formatter knows (then the message is formatted whole). */
static const char *mg_conv_parse(const char *p, struct mg_conv *c)
{
    const char *q = p + 1;
    size_t n;

    memset(c, 0, sizeof *c);
    q += strspn(q, "-+ #0");
    if (*q == '*') {
        c->n_star++;
        q++;
    }
    q += strspn(q, "0123456789");
    if (*q == '.') {
        c->has_prec = 1;
        q++;
        if (*q == '*') {
            c->n_star++;
            q++;
        }
        q += strspn(q, "0123456789");
    }
    if ((q[0] == 'h' && q[1] == 'h') || (q[0] == 'l' && q[1] == 'l')) {
        c->len = q[0] == 'h' ? 'H' : 'q';
        q += 2;
    } else if (*q && strchr("hlzjtL", *q)) {
        c->len = *q++;
    }
    c->conv = *q++;
    n = (size_t)(q - p);
    if (!c->conv || !strchr("diouxXcspfFeEgGaA", c->conv) || n >= sizeof c->spec)
        return NULL;
    memcpy(c->spec, p, n);
    c->spec[n] = '\0';
    return q;
}

/* s cut to MG_ECHO_MAX bytes with "..." after it, or s itself. */
static const char *mg_echo(struct mg_arena *a, const char *s)
{
    size_t cut = MG_ECHO_MAX;
    char *out;

    if (!s || strnlen(s, MG_ECHO_MAX + 1) <= MG_ECHO_MAX)
        return s;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    out = mg_alloc(a, cut + 4);
    memcpy(out, s, cut);
    memcpy(out + cut, "...", 4);
    return out;
}

/* The format is checked by the compiler where mg_error is called; here
 * each conversion is handed on with its own argument. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#define MG_CONV_ARG(T)                                                                             \
    do {                                                                                           \
        T v_ = va_arg(args, T);                                                                    \
        if (c.n_star == 0)                                                                         \
            mg_buf_printf(&b, c.spec, v_);                                                         \
        else if (c.n_star == 1)                                                                    \
            mg_buf_printf(&b, c.spec, star[0], v_);                                                \
        else                                                                                       \
            mg_buf_printf(&b, c.spec, star[0], star[1], v_);                                       \
    } while (0)

/* mg_vprintf, but every %s without a precision goes through mg_echo. */
static const char *mg_vformat_bounded(struct mg_arena *a, const char *fmt, va_list ap)
{
    struct mg_buf b;
    struct mg_conv c;
    const char *p = fmt, *next, *out;
    va_list args;
    int star[2] = {0, 0}, k;

    mg_buf_init(&b);
    va_copy(args, ap);
    while (*p) {
        if (*p != '%' || p[1] == '%') {
            size_t n = *p == '%' ? 1 : strcspn(p, "%");
            mg_buf_put(&b, p, n);
            p += *p == '%' ? 2 : n;
            continue;
        }
        if (!(next = mg_conv_parse(p, &c))) {
            /* Not expected (the formats are this program's): whole, unbounded. */
            va_end(args);
            mg_buf_free(&b);
            return mg_vprintf(a, fmt, ap);
        }
        p = next;
        for (k = 0; k < c.n_star; k++)
            star[k] = va_arg(args, int);
        if (c.conv == 's') {
            const char *s = va_arg(args, const char *);
            const char *shown = c.has_prec ? s : mg_echo(a, s);
            if (c.n_star == 0)
                mg_buf_printf(&b, c.spec, shown);
            else if (c.n_star == 1)
                mg_buf_printf(&b, c.spec, star[0], shown);
            else
                mg_buf_printf(&b, c.spec, star[0], star[1], shown);
        } else if (c.conv == 'p') {
            MG_CONV_ARG(void *);
        } else if (strchr("fFeEgGaA", c.conv)) {
            if (c.len == 'L')
                MG_CONV_ARG(long double);
            else
                MG_CONV_ARG(double);
        } else if (c.len == 'l') {
            MG_CONV_ARG(long);
        } else if (c.len == 'q') {
            MG_CONV_ARG(long long);
        } else if (c.len == 'z') {
            MG_CONV_ARG(size_t);
        } else if (c.len == 'j') {
            MG_CONV_ARG(intmax_t);
        } else if (c.len == 't') {
            MG_CONV_ARG(ptrdiff_t);
        } else {
            MG_CONV_ARG(int);
        }
    }
    va_end(args);
    out = mg_strdup(a, b.data ? b.data : "");
    mg_buf_free(&b);
    return out;
}
#undef MG_CONV_ARG
#pragma GCC diagnostic pop

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
        g->related_msg = rel_msg;
    }
    g->message = mg_one_line(d->arena, mg_vformat_bounded(d->arena, fmt, ap));
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

/* Values quoted in messages are cut here, so a message stays readable. */
#define MG_SHOW_MAX 40

/* A value as it may appear in a message: quoted, control bytes escaped,
 * cut at a UTF-8 character boundary past max bytes. */
static const char *mg_quote(struct mg_arena *a, const char *s, size_t max)
{
    struct mg_buf b;
    const char *out;
    size_t len = strlen(s), cut = len, i;

    if (cut > max) {
        cut = max;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
    }
    mg_buf_init(&b);
    mg_buf_puts(&b, "'");
    for (i = 0; i < cut; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7F)
            mg_buf_printf(&b, "\\x%02X", ch);
        else
            mg_buf_put(&b, &s[i], 1);
    }
    mg_buf_puts(&b, cut < len ? "'..." : "'");
    out = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return out;
}

const char *mg_show(struct mg_arena *a, const char *s)
{
    return mg_quote(a, s, MG_SHOW_MAX);
}

/* Paths are shown whole: a cut one would not say which file was meant. */
const char *mg_show_path(struct mg_arena *a, const char *path)
{
    return mg_quote(a, path, strlen(path));
}

void mg_describe_shape(struct mg_buf *b, const struct mg_spec *spec, const int64_t *v)
{
    int i;
    mg_buf_puts(b, "(");
    for (i = 0; i < spec->n_axes; i++)
        mg_buf_printf(b, "%s%s=%lld", i ? ", " : "", spec->axes[i].name, (long long)v[i]);
    mg_buf_puts(b, ")");
}
