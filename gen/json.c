/*
 * The JSON writer (json.h): containers with a layout each, keys, and
 * escaped scalars. Every value goes through mg_json_sep, which writes what
 * separates it from the previous member of its container: ", " inline, a
 * line break and the container's column otherwise. Nothing here knows the
 * keys or the meaning of what is written.
 */
#include "json.h"

#include <stdlib.h>

static void mg_json_spaces(struct mg_buf *b, int n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        int k = n < (int)sizeof spaces - 1 ? n : (int)sizeof spaces - 1;
        mg_buf_put(b, spaces, (size_t)k);
        n -= k;
    }
}

static void mg_json_newline(struct mg_json *j, int col)
{
    mg_buf_put(j->b, "\n", 1);
    j->line_start = mg_buf_pos(j->b);
    mg_json_spaces(j->b, col);
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
        if (f->count) {
            mg_buf_put(j->b, ",", 1);
            mg_json_newline(j, f->col);
        }
        break;
    case MG_JSON_BLOCK:
        if (f->count)
            mg_buf_put(j->b, ",", 1);
        mg_json_newline(j, f->col);
        break;
    }
    f->count++;
}

void mg_json_init(struct mg_json *j, struct mg_buf *b)
{
    j->b = b;
    j->line_start = mg_buf_pos(b);
    j->after_key = 0;
    j->depth = 0;
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
        mg_json_newline(j, f->col - 1);
    mg_buf_put(j->b, &f->close, 1);
}

/* A string in quotes, escaped by the one escaper (<meshgen/escape.h>):
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
