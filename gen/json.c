/*
 * The JSON writer (json.h): containers with a layout each, keys, and
 * escaped scalars. Every value goes through mg_json_sep, which writes what
 * separates it from the previous member of its container: ", " inline, a
 * line break and the container's column otherwise. Text goes into the
 * buffer in runs (a row's recorded text, a few hundred numbers, a line
 * break with its indentation), each at the cost of one check for room,
 * never a byte at a time. Nothing here knows the keys or the meaning of
 * what is written.
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

/* A comma if asked, a line break and col spaces, at once: a line per
 * member of a long array. */
static void mg_json_newline(struct mg_json *j, int comma, int col)
{
    size_t n = (size_t)comma + 1 + (size_t)col;
    char *p = mg_buf_room(j->b, n);

    if (comma)
        *p++ = ',';
    *p++ = '\n';
    memset(p, ' ', (size_t)col);
    mg_buf_wrote(j->b, n);
    j->line_start = mg_buf_pos(j->b) - (size_t)col;
}

/* What goes before the next member of the innermost container. */
static void mg_json_sep(struct mg_json *j)
{
    struct mg_json_frame *f;

    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth == 0)
        return;
    f = &j->open[j->depth - 1];
    switch (f->layout) {
    case MG_JSON_INLINE:
        if (f->count)
            mg_buf_put(j->b, ", ", 2);
        break;
    case MG_JSON_ALIGNED:
        if (f->count)
            mg_json_newline(j, 1, f->col);
        break;
    case MG_JSON_BLOCK: mg_json_newline(j, f->count > 0, f->col); break;
    }
    f->count++;
}

void mg_json_init(struct mg_json *j, struct mg_buf *b)
{
    j->b = b;
    j->line_start = mg_buf_pos(b);
    j->after_key = 0;
    j->depth = 0;
    j->tpl = NULL;
}

static void mg_json_open(struct mg_json *j, char open, char close, enum mg_json_layout layout)
{
    struct mg_json_frame *f;

    mg_json_sep(j);
    /* Deeper nesting is a bug of the emitter, not of its input. */
    if (j->depth == MG_JSON_MAX_DEPTH)
        abort();
    f = &j->open[j->depth++];
    f->close = close;
    f->layout = layout;
    f->count = 0;
    /* Members start just after the bracket: aligned under the first one,
     * or, in a block, one column in from the bracket. */
    f->col = (int)(mg_buf_pos(j->b) - j->line_start) + 1;
    mg_buf_put(j->b, &open, 1);
}

void mg_json_object(struct mg_json *j, enum mg_json_layout layout)
{
    mg_json_open(j, '{', '}', layout);
}

void mg_json_array(struct mg_json *j, enum mg_json_layout layout)
{
    mg_json_open(j, '[', ']', layout);
}

void mg_json_end(struct mg_json *j)
{
    const struct mg_json_frame *f = &j->open[--j->depth];

    if (f->layout == MG_JSON_BLOCK && f->count)
        mg_json_newline(j, 0, f->col - 1);
    mg_buf_put(j->b, &f->close, 1);
}

/* A string in quotes, escaped by the one escaper (escape.h):
 * valid UTF-8 whatever bytes s holds. */
static void mg_json_quoted(struct mg_buf *b, const char *s)
{
    mg_buf_put(b, "\"", 1);
    mg_escape(b, MG_ESC_JSON, s);
    mg_buf_put(b, "\"", 1);
}

void mg_json_key(struct mg_json *j, const char *key)
{
    mg_json_sep(j);
    mg_json_quoted(j->b, key);
    mg_buf_put(j->b, ": ", 2);
    j->after_key = 1;
}

void mg_json_int(struct mg_json *j, int64_t v)
{
    mg_json_sep(j);
    mg_buf_i64(j->b, v);
}

/* The most characters of a decimal int (mg_fmt_i64 writes no more for
 * one, whatever room it asks of an int64). */
#define MG_INT_CHARS 11

/* "[v0, v1, ...]", a few hundred numbers at the cost of one check for
 * room: the mesh and the processes' devices are a number per device. v
 * NULL: the run base, base + 1, ..., which the model holds as no table. */
static void mg_json_put_ints(struct mg_buf *b, const int *v, int64_t base, size_t n)
{
    size_t i = 0;

    mg_buf_put(b, "[", 1);
    while (i < n) {
        size_t k = n - i < 256 ? n - i : 256;
        char *start = mg_buf_room(b, k * (2 + MG_INT_CHARS)), *p = start;
        for (; k; k--, i++) {
            if (i) {
                memcpy(p, ", ", 2);
                p += 2;
            }
            p = mg_fmt_i64(p, v ? v[i] : base + (int64_t)i);
        }
        mg_buf_wrote(b, (size_t)(p - start));
    }
    mg_buf_put(b, "]", 1);
}

void mg_json_int_array(struct mg_json *j, const int *v, size_t n)
{
    mg_json_sep(j);
    mg_json_put_ints(j->b, v, 0, n);
}

void mg_json_null(struct mg_json *j)
{
    mg_json_sep(j);
    mg_buf_put(j->b, "null", 4);
}

void mg_json_bool(struct mg_json *j, int v)
{
    mg_json_sep(j);
    mg_buf_puts(j->b, v ? "true" : "false");
}

void mg_json_string(struct mg_json *j, const char *s)
{
    mg_json_sep(j);
    mg_json_quoted(j->b, s);
}

void mg_json_string_or_null(struct mg_json *j, const char *s)
{
    if (s && *s)
        mg_json_string(j, s);
    else
        mg_json_null(j);
}

void mg_json_key_int(struct mg_json *j, const char *key, int64_t v)
{
    mg_json_key(j, key);
    mg_json_int(j, v);
}

void mg_json_key_string(struct mg_json *j, const char *key, const char *s)
{
    mg_json_key(j, key);
    mg_json_string(j, s);
}

void mg_json_key_string_or_null(struct mg_json *j, const char *key, const char *s)
{
    mg_json_key(j, key);
    mg_json_string_or_null(j, s);
}

void mg_json_record(struct mg_json *j, struct mg_json_tpl *t)
{
    mg_buf_init(&t->text);
    t->n_holes = 0;
    mg_json_init(j, &t->text);
    j->tpl = t;
}

void mg_json_hole(struct mg_json *j, enum mg_json_hole kind)
{
    struct mg_json_tpl *t = j->tpl;

    /* A hole outside a recording, or too many, is a bug of the emitter. */
    if (!t || t->n_holes == MG_JSON_MAX_HOLES)
        abort();
    mg_json_sep(j);
    t->hole[t->n_holes].kind = kind;
    t->hole[t->n_holes++].at = t->text.len;
}

void mg_json_record_end(struct mg_json *j)
{
    const struct mg_buf *text = &j->tpl->text;

    /* An unfinished value, or one over several lines (whose layout would
     * depend on its column), is a bug of the emitter. */
    if (j->depth != 0 || text->len == 0 || memchr(text->data, '\n', text->len))
        abort();
    j->tpl = NULL;
}

/* The recorded text before a hole, then the hole's value as the writer's
 * own calls would write it. */
static void mg_json_put_hole(struct mg_buf *b, const char *text, size_t len, enum mg_json_hole kind,
                             const struct mg_json_arg *a)
{
    char *start;

    switch (kind) {
    case MG_JSON_HOLE_INT:
        /* The common hole: text and number at the cost of one check. */
        start = mg_buf_room(b, len + MG_I64_CHARS);
        memcpy(start, text, len);
        mg_buf_wrote(b, (size_t)(mg_fmt_i64(start + len, a->i) - start));
        break;
    case MG_JSON_HOLE_STRING_OR_NULL:
        if (!a->s || !*a->s) {
            mg_buf_put(b, text, len);
            mg_buf_put(b, "null", 4);
            break;
        }
        /* fall through */
    case MG_JSON_HOLE_STRING:
        mg_buf_put(b, text, len);
        mg_json_quoted(b, a->s);
        break;
    case MG_JSON_HOLE_INTS:
        mg_buf_put(b, text, len);
        mg_json_put_ints(b, a->ints, a->i, a->n);
        break;
    }
}

void mg_json_fill(struct mg_json *j, const struct mg_json_tpl *t, const struct mg_json_arg *arg)
{
    size_t at = 0;
    int k;

    mg_json_sep(j);
    for (k = 0; k < t->n_holes; k++) {
        mg_json_put_hole(j->b, t->text.data + at, t->hole[k].at - at, t->hole[k].kind, &arg[k]);
        at = t->hole[k].at;
    }
    mg_buf_put(j->b, t->text.data + at, t->text.len - at);
}

void mg_json_tpl_free(struct mg_json_tpl *t)
{
    mg_buf_free(&t->text);
}
