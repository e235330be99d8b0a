/*
 * The diagnostics emitter: the collected diagnostics (diag.c) as text
 * (GCC style, so editors jump to them), as one JSON array for tools, or as
 * GitHub Actions workflow commands. It formats what it is given and knows
 * nothing of which stage reported what, nor where the text goes.
 */
#include "json.h"

/* A file name in text output: control bytes escaped as in messages, so a
 * name with a newline cannot split a diagnostic or start a line of its own
 * (a forged diagnostic, or a "::" GitHub workflow command). */
static void mg_diag_file(struct mg_buf *b, const char *s)
{
    const unsigned char *p;

    for (p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n')
            mg_buf_puts(b, "\\n");
        else if (*p == '\t')
            mg_buf_puts(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            mg_buf_printf(b, "\\x%02x", *p);
        else
            mg_buf_put(b, (const char *)p, 1);
    }
}

static void mg_diag_loc(struct mg_buf *b, struct mg_mark m)
{
    if (!m.file) {
        mg_buf_puts(b, "meshgen");
        return;
    }
    mg_diag_file(b, m.file);
    if (m.line > 0)
        mg_buf_printf(b, ":%d:%d", m.line, m.col > 0 ? m.col : 1);
}

/* file:line:col: error: message [check], then the related note. */
static void mg_diag_text(struct mg_buf *b, const struct mg_diag *g)
{
    mg_diag_loc(b, g->at);
    mg_buf_printf(b, ": %s: %s [%s]\n", mg_word(&mg_severity_words, (int)g->severity), g->message,
                  g->check);
    if (g->related.file) {
        mg_diag_loc(b, g->related);
        mg_buf_printf(b, ": note: %s\n", g->related_msg ? g->related_msg : "see here");
    }
}

/* GitHub workflow commands need %, CR and LF escaped in the message and
 * also ':' and ',' in properties. */
static void mg_diag_gh_escaped(struct mg_buf *b, const char *s, int property)
{
    for (; *s; s++) {
        if (*s == '%')
            mg_buf_puts(b, "%25");
        else if (*s == '\r')
            mg_buf_puts(b, "%0D");
        else if (*s == '\n')
            mg_buf_puts(b, "%0A");
        else if (property && *s == ':')
            mg_buf_puts(b, "%3A");
        else if (property && *s == ',')
            mg_buf_puts(b, "%2C");
        else
            mg_buf_put(b, s, 1);
    }
}

/* ::error file=F,line=L,col=C,title=check::message (GitHub has no note). */
static void mg_diag_github(struct mg_buf *b, const struct mg_diag *g)
{
    mg_buf_printf(b, "::%s ", g->severity == MG_SEV_ERROR ? "error" : "warning");
    if (g->at.file) {
        mg_buf_puts(b, "file=");
        mg_diag_gh_escaped(b, g->at.file, 1);
        if (g->at.line > 0)
            mg_buf_printf(b, ",line=%d,col=%d", g->at.line, g->at.col > 0 ? g->at.col : 1);
        mg_buf_puts(b, ",");
    }
    mg_buf_puts(b, "title=");
    mg_diag_gh_escaped(b, g->check, 1);
    mg_buf_puts(b, "::");
    mg_diag_gh_escaped(b, g->message, 0);
    mg_buf_puts(b, "\n");
}

static void mg_diag_json(struct mg_json *j, const struct mg_diag *g)
{
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key(j, "severity");
    mg_json_string(j, mg_word(&mg_severity_words, (int)g->severity));
    mg_json_key(j, "check");
    mg_json_string(j, g->check);
    mg_json_key(j, "file");
    if (g->at.file)
        mg_json_string(j, g->at.file);
    else
        mg_json_null(j);
    mg_json_key(j, "line");
    mg_json_int(j, g->at.line);
    mg_json_key(j, "column");
    mg_json_int(j, g->at.col);
    mg_json_key(j, "message");
    mg_json_string(j, g->message);
    mg_json_end(j);
}

void mg_emit_diags(struct mg_buf *b, const struct mg_diags *d, enum mg_diag_format fmt)
{
    struct mg_json j;
    int i;

    if (fmt == MG_FORMAT_JSON) {
        /* One array, empty or not, so that tools can always parse it. */
        mg_json_init(&j, b);
        mg_json_array(&j, MG_JSON_BLOCK);
        for (i = 0; i < d->n; i++)
            mg_diag_json(&j, &d->items[i]);
        mg_json_end(&j);
        mg_buf_puts(b, "\n");
        return;
    }
    for (i = 0; i < d->n; i++) {
        if (fmt == MG_FORMAT_GITHUB)
            mg_diag_github(b, &d->items[i]);
        else
            mg_diag_text(b, &d->items[i]);
    }
    if (d->dropped)
        mg_buf_printf(b, "meshgen: note: %d more diagnostics not shown\n", d->dropped);
}
