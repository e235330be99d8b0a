/*
 * The diagnostics emitter: the collected diagnostics (diag.c) as text (GCC
 * style, so editors jump to them), as GitHub Actions workflow commands, as
 * one JSON document (schemas/diagnostics.schema.json) or as one SARIF 2.1.0
 * log whose rules are the check registry (docs/reference.md, "Output
 * formats"). A report spans a whole command:
 * text and GitHub lines are written per batch as they come, while the JSON
 * and SARIF documents take every file's diagnostics and are complete only
 * at mg_report_end, so that a run prints one document whatever the number
 * of files. It formats what it is given and knows nothing of which stage
 * reported what, nor where the text goes.
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

/* The SARIF schema URI GitHub code scanning documents. */
#define MG_SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

struct mg_report {
    enum mg_diag_format format;
    struct mg_buf doc; /* the JSON or SARIF document so far */
    struct mg_json j;
    int n_errors, n_warnings, dropped;
};

/* Locations that name no file: an option, or this machine (driver.c,
 * spec.c). They print as they are in text, but are no artifact in SARIF. */
static int mg_mark_is_file(struct mg_mark m)
{
    static const char *const options[] = {"--mesh", "--inventory", "--name", "--depfile",
                                          "(this machine)"};
    size_t i;

    if (!m.file)
        return 0;
    for (i = 0; i < sizeof options / sizeof options[0]; i++)
        if (strcmp(m.file, options[i]) == 0)
            return 0;
    return 1;
}

static const char *mg_related_msg(const struct mg_diag *g)
{
    return g->related_msg ? g->related_msg : "see here";
}

/* ---- text ---------------------------------------------------------------------- */

/* A file name in text output is escaped as messages are, so a name with a
 * newline cannot split a diagnostic or start a line of its own (a forged
 * diagnostic, or a "::" GitHub workflow command), and a long one keeps its
 * first and last MG_TEXT_PATH_PART bytes: one readable line, which still
 * says the file's name. */
#define MG_TEXT_PATH_PART 100

static void mg_diag_loc(struct mg_buf *b, struct mg_mark m)
{
    if (!m.file) {
        mg_buf_puts(b, "meshgen");
        return;
    }
    mg_escape_cut(b, MG_ESC_TEXT, m.file, MG_TEXT_PATH_PART, MG_TEXT_PATH_PART);
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
        mg_buf_printf(b, ": note: %s\n", mg_related_msg(g));
    }
}

/* ---- GitHub workflow commands -------------------------------------------------- */

/* ::error file=F,line=L,col=C,title=T::message */
static void mg_diag_gh_command(struct mg_buf *b, const char *command, struct mg_mark at,
                               const char *title, const char *message)
{
    mg_buf_printf(b, "::%s ", command);
    if (at.file) {
        mg_buf_puts(b, "file=");
        mg_escape(b, MG_ESC_GITHUB_PROPERTY, at.file);
        if (at.line > 0)
            mg_buf_printf(b, ",line=%d,col=%d", at.line, at.col > 0 ? at.col : 1);
        mg_buf_puts(b, ",");
    }
    mg_buf_puts(b, "title=");
    mg_escape(b, MG_ESC_GITHUB_PROPERTY, title);
    mg_buf_puts(b, "::");
    mg_escape(b, MG_ESC_GITHUB, message);
    mg_buf_puts(b, "\n");
}

/* GitHub has no note: the related location becomes a ::notice of its own. */
static void mg_diag_github(struct mg_buf *b, const struct mg_diag *g)
{
    const char *command = g->severity == MG_SEV_ERROR     ? "error"
                          : g->severity == MG_SEV_WARNING ? "warning"
                                                          : "notice";
    mg_diag_gh_command(b, command, g->at, g->check, g->message);
    if (g->related.file)
        mg_diag_gh_command(b, "notice", g->related, g->check, mg_related_msg(g));
}

/* ---- JSON (schemas/diagnostics.schema.json) ------------------------------------ */

static void mg_json_mark(struct mg_json *j, struct mg_mark m)
{
    mg_json_key_string_or_null(j, "file", m.file);
    mg_json_key_int(j, "line", m.line);
    mg_json_key_int(j, "column", m.col);
}

static void mg_diag_json(struct mg_json *j, const struct mg_diag *g)
{
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key_string(j, "severity", mg_word(&mg_severity_words, (int)g->severity));
    mg_json_key_string(j, "check", g->check);
    mg_json_mark(j, g->at);
    mg_json_key_string(j, "message", g->message);
    mg_json_key(j, "notes");
    mg_json_array(j, MG_JSON_INLINE);
    if (g->related.file) {
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_mark(j, g->related);
        mg_json_key_string(j, "message", mg_related_msg(g));
        mg_json_end(j);
    }
    mg_json_end(j);
    mg_json_end(j);
}

/* ---- SARIF 2.1.0 --------------------------------------------------------------- */

/* A path as a URI reference (RFC 3986): relative paths stay relative to
 * where meshgen ran (SARIF's uriBaseId is left to the consumer), absolute
 * ones become file:// URIs; every byte outside the unreserved set and '/'
 * is percent-encoded, so any bytes of the name survive. */
static const char *mg_sarif_uri(struct mg_buf *tmp, const char *path)
{
    tmp->len = 0;
    mg_buf_puts(tmp, path[0] == '/' ? "file://" : "");
    mg_escape(tmp, MG_ESC_URI, path);
    return tmp->data;
}

static void mg_sarif_message(struct mg_json *j, const char *text)
{
    mg_json_key(j, "message");
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key_string(j, "text", text);
    mg_json_end(j);
}

/* {"physicalLocation": {"artifactLocation": {"uri": U}, "region": {...}}} */
static void mg_sarif_location(struct mg_json *j, struct mg_mark m, int id, const char *message)
{
    struct mg_buf uri;

    mg_buf_init(&uri);
    mg_json_object(j, MG_JSON_INLINE);
    if (id >= 0) {
        mg_json_key_int(j, "id", id);
    }
    mg_json_key(j, "physicalLocation");
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key(j, "artifactLocation");
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key_string(j, "uri", mg_sarif_uri(&uri, m.file));
    mg_json_end(j);
    if (m.line > 0) {
        mg_json_key(j, "region");
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_key_int(j, "startLine", m.line);
        mg_json_key_int(j, "startColumn", m.col > 0 ? m.col : 1);
        mg_json_end(j);
    }
    mg_json_end(j);
    if (message)
        mg_sarif_message(j, message);
    mg_json_end(j);
    mg_buf_free(&uri);
}

static void mg_diag_sarif(struct mg_report *r, const struct mg_diag *g)
{
    struct mg_json *j = &r->j;
    static const char *const levels[] = {"error", "warning", "note"};

    mg_json_object(j, MG_JSON_BLOCK);
    mg_json_key_string(j, "ruleId", g->check);
    mg_json_key(j, "ruleIndex"); /* the rules are the registry, in its order */
    mg_json_int(j, (int)g->id);
    mg_json_key_string(j, "level", levels[g->severity]);
    /* A location that names no file (an option) leads the message. */
    if (g->at.file && !mg_mark_is_file(g->at)) {
        struct mg_buf msg;
        mg_buf_init(&msg);
        mg_buf_printf(&msg, "%s: %s", g->at.file, g->message);
        mg_sarif_message(j, msg.data);
        mg_buf_free(&msg);
    } else {
        mg_sarif_message(j, g->message);
    }
    if (mg_mark_is_file(g->at)) {
        mg_json_key(j, "locations");
        mg_json_array(j, MG_JSON_INLINE);
        mg_sarif_location(j, g->at, -1, NULL);
        mg_json_end(j);
    }
    if (mg_mark_is_file(g->related)) {
        mg_json_key(j, "relatedLocations");
        mg_json_array(j, MG_JSON_INLINE);
        mg_sarif_location(j, g->related, 0, mg_related_msg(g));
        mg_json_end(j);
    }
    mg_json_end(j);
}

/* The run's tool: meshgen, and as its rules every check of the registry
 * (gen/checks.def), in its order, so that a result's ruleIndex is its
 * check's id. */
static void mg_sarif_tool(struct mg_report *r)
{
    static const char *const levels[] = {"error", "warning", "note"};
    struct mg_json *j = &r->j;
    int i;

    mg_json_key(j, "tool");
    mg_json_object(j, MG_JSON_BLOCK);
    mg_json_key(j, "driver");
    mg_json_object(j, MG_JSON_BLOCK);
    mg_json_key_string(j, "name", "meshgen");
    mg_json_key_string(j, "version", MESHGEN_VERSION_STRING);
    mg_json_key(j, "rules");
    mg_json_array(j, MG_JSON_BLOCK);
    for (i = 0; i < mg_check_count(); i++) {
        const struct mg_check_info *c = mg_check_info((enum mg_check_id)i);
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_key_string(j, "id", c->name);
        mg_json_key(j, "shortDescription");
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_key_string(j, "text", c->doc);
        mg_json_end(j);
        mg_json_key(j, "defaultConfiguration");
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_key_string(j, "level", levels[c->severity]);
        mg_json_end(j);
        mg_json_end(j);
    }
    mg_json_end(j);
    mg_json_end(j);
    mg_json_end(j);
}

/* How the run went: its exit code, and the diagnostics past the cap. */
static void mg_sarif_invocation(struct mg_report *r, int exit_code)
{
    struct mg_json *j = &r->j;

    mg_json_key(j, "invocations");
    mg_json_array(j, MG_JSON_BLOCK);
    mg_json_object(j, MG_JSON_BLOCK);
    /* Wrong inputs are results; only a usage or I/O error stops the tool. */
    mg_json_key(j, "executionSuccessful");
    mg_json_bool(j, exit_code != MG_EXIT_USAGE);
    mg_json_key_int(j, "exitCode", exit_code);
    if (r->dropped) {
        struct mg_buf msg;
        mg_buf_init(&msg);
        mg_buf_printf(&msg, "%d more diagnostics not shown", r->dropped);
        mg_json_key(j, "toolExecutionNotifications");
        mg_json_array(j, MG_JSON_INLINE);
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_key_string(j, "level", "note");
        mg_sarif_message(j, msg.data);
        mg_json_end(j);
        mg_json_end(j);
        mg_buf_free(&msg);
    }
    mg_json_end(j);
    mg_json_end(j);
}

/* ---- the report ---------------------------------------------------------------- */

struct mg_report *mg_report_begin(enum mg_diag_format fmt)
{
    struct mg_report *r = calloc(1, sizeof *r);
    struct mg_json *j;

    if (!r)
        mg_oom();
    r->format = fmt;
    mg_buf_init(&r->doc);
    j = &r->j;
    mg_json_init(j, &r->doc);
    if (fmt == MG_FORMAT_JSON) {
        mg_json_object(j, MG_JSON_BLOCK);
        mg_json_key_int(j, "meshgen-diagnostics", 1);
        mg_json_key(j, "diagnostics");
        mg_json_array(j, MG_JSON_BLOCK);
    } else if (fmt == MG_FORMAT_SARIF) {
        mg_json_object(j, MG_JSON_BLOCK);
        mg_json_key_string(j, "$schema", MG_SARIF_SCHEMA);
        mg_json_key_string(j, "version", "2.1.0");
        mg_json_key(j, "runs");
        mg_json_array(j, MG_JSON_BLOCK);
        mg_json_object(j, MG_JSON_BLOCK);
        /* Columns count Unicode code points (docs/reference.md). */
        mg_json_key_string(j, "columnKind", "unicodeCodePoints");
        mg_json_key(j, "results");
        mg_json_array(j, MG_JSON_BLOCK);
    }
    return r;
}

void mg_report_add(struct mg_report *r, struct mg_buf *out, const struct mg_diags *d)
{
    int i;

    r->dropped += d->dropped;
    for (i = 0; i < d->n; i++) {
        const struct mg_diag *g = &d->items[i];
        r->n_errors += g->severity == MG_SEV_ERROR;
        r->n_warnings += g->severity == MG_SEV_WARNING;
        switch (r->format) {
        case MG_FORMAT_TEXT: mg_diag_text(out, g); break;
        case MG_FORMAT_GITHUB: mg_diag_github(out, g); break;
        case MG_FORMAT_JSON: mg_diag_json(&r->j, g); break;
        case MG_FORMAT_SARIF: mg_diag_sarif(r, g); break;
        }
    }
    if (!d->dropped)
        return;
    if (r->format == MG_FORMAT_TEXT)
        mg_buf_printf(out, "meshgen: note: %d more diagnostics not shown\n", d->dropped);
    else if (r->format == MG_FORMAT_GITHUB)
        mg_buf_printf(out, "::notice title=meshgen::%d more diagnostics not shown\n", d->dropped);
}

void mg_report_end(struct mg_report *r, struct mg_buf *out, int exit_code)
{
    struct mg_json *j = &r->j;

    if (r->format == MG_FORMAT_JSON) {
        mg_json_end(j); /* diagnostics */
        mg_json_key_int(j, "errors", r->n_errors);
        mg_json_key_int(j, "warnings", r->n_warnings);
        mg_json_key_int(j, "not_shown", r->dropped);
        mg_json_key_int(j, "exit", exit_code);
        mg_json_end(j);
    } else if (r->format == MG_FORMAT_SARIF) {
        mg_json_end(j); /* results */
        mg_sarif_invocation(r, exit_code);
        mg_sarif_tool(r);
        mg_json_end(j); /* the run */
        mg_json_end(j); /* runs */
        mg_json_end(j);
    }
    if (r->doc.len) {
        mg_buf_put(out, r->doc.data, r->doc.len);
        mg_buf_puts(out, "\n");
    }
    mg_buf_free(&r->doc);
    free(r);
}

void mg_emit_diags(struct mg_buf *b, const struct mg_diags *d, enum mg_diag_format fmt)
{
    struct mg_report *r = mg_report_begin(fmt);
    mg_report_add(r, b, d);
    mg_report_end(r, b, d->n_errors ? MG_EXIT_INPUT : MG_EXIT_OK);
}
