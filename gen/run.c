/*
 * A run: one mesh spec (or --mesh), its inventory and its model, read,
 * compiled and emitted over one arena. This is the public API of
 * <meshgen/gen.h> (struct mg_run), and what driver.c builds each command
 * on. It decides where the inventory comes from (--inventory, the spec's
 * `inventory:` relative to the spec, or this machine) and how the output
 * names it; it writes no file and prints nothing: the diagnostics stay in
 * the run for the driver's report, or go to a library caller's callback.
 */
#include "run.h"
#include "io.h"

#include <stdlib.h>
#include <string.h>

void mg_run_start(struct mg_run *r, const struct mg_opts *o, struct mg_report *report)
{
    memset(r, 0, sizeof *r);
    mg_arena_init(&r->arena);
    mg_diags_init(&r->diags, &r->arena);
    r->opts = o;
    r->report = report;
    r->groups = o->groups;
}

int mg_run_code(const struct mg_run *r, int ok)
{
    if (r->io_error || r->diags.io_errors)
        return MG_EXIT_USAGE;
    return ok && r->diags.n_errors == 0 ? MG_EXIT_OK : MG_EXIT_INPUT;
}

/* Where the inventory comes from, and where to blame it. *label receives
 * the source as the user wrote it (relative to the spec), which is what the
 * output may show: the opened path depends on the working directory. */
static const char *mg_inventory_source(struct mg_run *r, struct mg_mark *at, const char **label)
{
    const struct mg_spec *s = r->spec;
    enum mg_source kind;

    at->file = NULL;
    at->line = 0;
    at->col = 0;
    if (r->opts->inventory) {
        at->file = "--inventory";
        *label = r->opts->inventory;
        return r->opts->inventory;
    }
    if (s && s->inventory) {
        *at = s->inventory_at;
        *label = s->inventory;
        kind = mg_source_kind(s->inventory);
        if (kind == MG_SOURCE_LIVE || kind == MG_SOURCE_SYNTHETIC)
            return s->inventory;
        return mg_path_relative(&r->arena, s->dir, s->inventory);
    }
    at->file = "(this machine)";
    *label = "live";
    return "live";
}

/* A document whose top-level mapping has the key `meshgen-inventory`. */
static int mg_is_inventory_file(const struct mg_node *root)
{
    size_t i;
    if (root->kind != MG_NODE_MAP)
        return 0;
    for (i = 0; i < root->n; i++)
        if (strcmp(root->keys[i]->value, "meshgen-inventory") == 0)
            return 1;
    return 0;
}

struct mg_spec *mg_read_spec(struct mg_run *r, const char *file)
{
    const struct mg_opts *o = r->opts;
    struct mg_mark at = {0, 0, 0};
    struct mg_node *root;
    size_t len = 0;
    char *buf;

    if (o->mesh)
        return mg_spec_from_string(&r->arena, &r->diags, o->mesh, o->axes,
                                   o->name ? o->name : "mesh");
    at.file = file;
    r->spec_file = file;
    buf = mg_read_file(&r->arena, &r->diags, file, at, &len);
    if (!buf) {
        r->io_error = 1;
        return NULL;
    }
    root = mg_yaml_parse(&r->arena, &r->diags, file, buf, len);
    if (!root)
        return NULL;
    if (mg_is_inventory_file(root)) {
        r->is_inventory = 1;
        r->inv = mg_inventory_from_node(&r->arena, &r->diags, file, root);
        return NULL;
    }
    return mg_spec_from_node(&r->arena, &r->diags, file, root);
}

/* Hands the diagnostics reported since the last call to the library
 * caller's callback, in source order among themselves. */
static void mg_run_tell(struct mg_run *r)
{
    struct mg_diags fresh = r->diags;
    int i;

    if (!r->tell)
        return;
    fresh.items += r->told;
    fresh.n -= r->told;
    mg_diags_sort(&fresh);
    for (i = 0; i < fresh.n; i++) {
        const struct mg_diag *g = &fresh.items[i];
        struct mg_message m = {g->severity,    g->check,      g->at.file,      g->at.line,
                               g->at.col,      g->message,    g->related.file, g->related.line,
                               g->related.col, g->related_msg};
        r->tell(r->tell_ctx, &m);
    }
    r->told = r->diags.n;
}

/* The end of a call of the public API: its diagnostics told, and 0, or -1
 * (remembered for mg_run_status) when it did not do what it was asked. */
static int mg_run_done(struct mg_run *r, int ok)
{
    mg_run_tell(r);
    if (!ok)
        r->failed = 1;
    return ok ? 0 : -1;
}

int mg_run_load(struct mg_run *r, const char *file)
{
    const struct mg_opts *o = r->opts;
    struct mg_mark at;
    const char *source;

    if (!file && !o->mesh)
        return mg_run_done(r, 0);
    r->spec = mg_read_spec(r, file);
    if (r->is_inventory)
        return mg_run_done(r, r->inv != NULL && r->diags.n_errors == 0);
    if (!r->spec)
        return mg_run_done(r, 0);
    /* A name from --name is blamed on --name, not on the spec's 'name:'. */
    if (o->name) {
        r->spec->name = o->name;
        r->spec->name_at = (struct mg_mark){"--name", 0, 0};
    }
    /* A spec whose structure is broken is not checked further: its fields
     * are not all there, and the errors so far say what to fix. */
    r->spec_errors = r->diags.n_errors;

    source = mg_inventory_source(r, &at, &r->inv_label);
    r->inv = mg_inventory_load(&r->arena, &r->diags, source, at);
    /* A single topology file is labelled by the path it was opened with;
     * show it as written instead, so output does not depend on the
     * working directory. */
    if (r->inv && r->inv->n_topologies == 1 && r->inv->n_files == 1)
        r->inv->topologies[0].label = mg_path_display(r->inv_label);
    return mg_run_done(r, r->inv != NULL && r->spec_errors == 0);
}

int mg_run_compile(struct mg_run *r)
{
    struct mg_compile_opts copts = {.groups = r->groups};

    if (r->is_inventory)
        return mg_run_done(r, r->inv != NULL && r->diags.n_errors == 0);
    if (!r->spec || r->spec_errors)
        return mg_run_done(r, 0);
    r->plan = mg_compile(&r->arena, &r->diags, r->spec, r->inv, &copts);
    return mg_run_done(r, r->plan != NULL);
}

/* The banner's inputs: the spec's file name and the inventory as the spec
 * (or --inventory) names it; never an absolute path, and nothing that
 * depends on the working directory. */
static const char *mg_inputs_text(struct mg_run *r)
{
    const char *spec = r->opts->mesh ? mg_printf(&r->arena, "--mesh %s", r->opts->mesh)
                                     : mg_path_basename(r->spec_file);
    return mg_printf(&r->arena, "spec %s, inventory %s", spec, mg_path_display(r->inv_label));
}

int mg_run_emit(struct mg_run *r, enum mg_emit what, struct mg_buf *out)
{
    /* A library caller gets colour when it asks for it; --color=auto is
     * the command line's to decide, from its terminal. */
    int color = r->opts->color == MG_WHEN_ALWAYS;

    if (!r->plan)
        return mg_run_done(r, 0);
    switch (what) {
    case MG_EMIT_HEADER: mg_emit_header(out, r->plan, mg_inputs_text(r)); break;
    case MG_EMIT_SOURCE: mg_emit_source(out, r->plan, mg_inputs_text(r)); break;
    case MG_EMIT_JSON: mg_emit_json(out, r->plan); break;
    case MG_EMIT_GRID: mg_emit_grid(out, r->plan, color, r->opts->color_by); break;
    case MG_EMIT_SVG: mg_emit_svg(out, r->plan, r->opts->color_by); break;
    default: return mg_run_done(r, 0);
    }
    return mg_run_done(r, 1);
}

struct mg_run *mg_run_new(const struct mg_opts *o, mg_message_fn *fn, void *ctx)
{
    struct mg_run *r = malloc(sizeof *r);

    if (!r)
        mg_oom();
    mg_run_start(r, o, NULL);
    r->tell = fn;
    r->tell_ctx = ctx;
    return r;
}

const char *mg_run_name(const struct mg_run *r)
{
    return r->spec ? r->spec->name : NULL;
}

int mg_run_status(const struct mg_run *r)
{
    return mg_run_code(r, !r->failed);
}

void mg_run_free(struct mg_run *r)
{
    if (!r)
        return;
    mg_arena_free(&r->arena);
    free(r);
}
