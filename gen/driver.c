/*
 * The driver: command glue. Every command is load -> compile -> emit ->
 * write, each file a run (run.c): it hands the run's text to io.c, reports
 * the diagnostics of every run of the command in one report, and maps
 * them to exit codes. A table indexed by enum mg_command holds the
 * commands. It parses no options (main.c does) and formats nothing (the
 * emitters do).
 */
#include "run.h"
#include "diag.h"
#include "io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void mg_opts_init(struct mg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = MG_FORMAT_TEXT;
    o->color = MG_WHEN_AUTO;
    o->groups = MG_WHEN_AUTO;
    o->env_local_rank = -1;
    o->env_process = -1;
    o->out = stdout;
    o->err = stderr;
}

void mg_diags_print(const struct mg_diags *d, FILE *out, enum mg_diag_format fmt)
{
    struct mg_buf b;

    mg_buf_init(&b);
    mg_emit_diags(&b, d, fmt);
    /* Nothing is left to tell when the diagnostics themselves cannot be
     * written. */
    (void)mg_write_stream(out, b.data, b.len);
    mg_buf_free(&b);
}

/* ---- one run ---------------------------------------------------------------- */

/* Loads and compiles. Returns 1 when a model was built (or, for an
 * inventory file, when it loaded cleanly). */
static int mg_load(struct mg_run *r, const struct mg_opts *o, struct mg_report *rep,
                   const char *file, enum mg_when groups)
{
    mg_run_start(r, o, rep);
    r->groups = groups;
    mg_run_load(r, file);
    return mg_run_compile(r) == 0;
}
/* mg_load for the commands that need a mesh: an inventory file is refused
 * with a word on how to use it. */
static int mg_load_mesh(struct mg_run *r, const struct mg_opts *o, struct mg_report *rep,
                        const char *file, enum mg_when groups)
{
    int ok = mg_load(r, o, rep, file, groups);
    if (r->is_inventory) {
        struct mg_mark at = {file, 0, 0};
        mg_error(&r->diags, MG_CHK_NOT_A_MESH, at,
                 "this is an inventory file, not a mesh spec; name it in a spec's 'inventory:' "
                 "or pass it with --inventory");
        return 0;
    }
    return ok;
}

/* An output that cannot be written: an I/O error of the run (exit 2),
 * reported as an "io" diagnostic at no file, so that it goes out in the
 * chosen format, inside the one JSON or SARIF document of the run. */
static void mg_write_failed(struct mg_run *r, const char *fmt, ...) MG_PRINTF(2, 3);
static void mg_write_failed(struct mg_run *r, const char *fmt, ...)
{
    struct mg_mark nowhere = {NULL, 0, 0};
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    msg = mg_vprintf(&r->arena, fmt, ap);
    va_end(ap);
    mg_error(&r->diags, MG_CHK_IO, nowhere, "%s", msg);
    r->io_error = 1;
}

/* Writes a command's result to its stream; a failure is an I/O error of
 * the run. */
static void mg_output(struct mg_run *r, const struct mg_buf *b)
{
    if (mg_write_stream(r->opts->out, b->data, b->len) == 0)
        return;
    mg_write_failed(r, "cannot write the output: %s", strerror(errno));
}

/* Why a write failed, in words: mg_write_outputs' own errnos say more
 * than strerror does. */
static const char *mg_write_error(int err)
{
    if (err == ENXIO)
        return "it is a FIFO that no process reads";
    if (err == ENOTSUP)
        return "it is neither a regular file, a FIFO nor a character device";
    if (err == EISDIR)
        return "it is a directory";
    if (err == EBADF) /* /dev/fd/N */
        return "it names a descriptor that is not open for writing";
    return strerror(err);
}

/* The files this run read (the spec, the inventory and its topologies, the
 * source of an export), and what messages call them. Returns their count. */
static int mg_run_inputs(struct mg_run *r, const char ***path, const char ***what)
{
    int i, n = 0, cap = 2 + (r->inv ? r->inv->n_files : 0);

    *path = mg_alloc_array(&r->arena, (size_t)cap, sizeof **path);
    *what = mg_alloc_array(&r->arena, (size_t)cap, sizeof **what);
    if (r->spec_file) {
        (*path)[n] = r->spec_file;
        (*what)[n++] = "the spec";
    }
    if (r->source_file) {
        (*path)[n] = r->source_file;
        (*what)[n++] = "the inventory";
    }
    for (i = 0; r->inv && i < r->inv->n_files; i++) {
        (*path)[n] = r->inv->files[i];
        (*what)[n++] = r->inv->files[i] == r->inv->source ? "the inventory" : "the topology";
    }
    return n;
}

/* Whether an output would land on a file this run read, or on another of
 * its outputs (docs/reference.md, "Files and streams"): then it is an I/O
 * error that names both, and nothing is written. */
static int mg_outputs_clash(struct mg_run *r, int n, const struct mg_output *out,
                            const char *const *what)
{
    const char **in, **in_what;
    int n_in = mg_run_inputs(r, &in, &in_what), i, j;

    for (i = 0; i < n; i++) {
        for (j = 0; j < i + n_in; j++) {
            const char *other = j < i ? out[j].path : in[j - i];
            if (!mg_path_clash(out[i].path, other))
                continue;
            mg_write_failed(r, "cannot write %s %s: it is %s %s, which this run %s", what[i],
                            mg_show_path(&r->arena, out[i].path), j < i ? what[j] : in_what[j - i],
                            mg_show_path(&r->arena, other), j < i ? "also writes" : "reads");
            return 1;
        }
    }
    return 0;
}

/* Writes a command's files, unless one would land on an input or on
 * another; a failure is an I/O error of the run that names the file. */
static void mg_write_files(struct mg_run *r, int n, const struct mg_output *out,
                           const char *const *what)
{
    int failed, err;
    const char *shown;

    if (mg_outputs_clash(r, n, out, what) || mg_write_outputs(n, out, &failed) == 0)
        return;
    err = errno;
    shown = mg_show_path(&r->arena, out[failed].path);
    if (err == EEXIST)
        mg_write_failed(r,
                        "cannot write %s %s: its lock file %s stayed for 5 s: another meshgen run "
                        "is writing it, or one was killed while writing (then remove the lock "
                        "file)",
                        what[failed], shown,
                        mg_show_path(&r->arena, mg_output_lock(&r->arena, out[failed].path)));
    else
        mg_write_failed(r, "cannot write %s %s: %s", what[failed], shown, mg_write_error(err));
}

/* Hands the diagnostics to the report (text and GitHub lines are printed
 * now, a document at the end of the command), frees the run and gives the
 * exit code. */
static int mg_finish(struct mg_run *r, int ok)
{
    struct mg_buf b;
    int code;

    mg_buf_init(&b);
    mg_diags_sort(&r->diags);
    mg_report_add(r->report, &b, &r->diags);
    /* Nothing is left to tell when the diagnostics themselves cannot be
     * written. */
    (void)mg_write_stream(r->opts->err, b.data, b.len);
    mg_buf_free(&b);
    code = mg_run_code(r, ok);
    mg_arena_free(&r->arena);
    return code;
}

/* ---- the commands --------------------------------------------------------------- */

static int mg_cmd_validate(const struct mg_opts *o, struct mg_report *rep, int n_files,
                           char *const *files)
{
    int i, worst = MG_EXIT_OK;

    for (i = 0; i < (o->mesh ? 1 : n_files); i++) {
        struct mg_run r;
        int ok = mg_load(&r, o, rep, o->mesh ? NULL : files[i], MG_WHEN_NEVER);
        int code = mg_finish(&r, ok);
        if (code > worst)
            worst = code;
    }
    return worst;
}

/* A streaming buffer's sink that writes to the run's output; the first
 * failure is kept (errno with it) and later chunks are dropped. */
struct mg_stream_out {
    FILE *out;
    int error; /* errno of the first failed write, or 0 */
};

static void mg_stream_sink(void *ctx, const char *data, size_t len)
{
    struct mg_stream_out *s = ctx;
    if (!s->error && mg_write_stream(s->out, data, len) != 0)
        s->error = errno ? errno : EIO;
}

/* The JSON is written as it is made, so memory is the model's: at a
 * million devices the text is hundreds of MiB. */
static int mg_cmd_resolve(const struct mg_opts *o, struct mg_report *rep, int n_files,
                          char *const *files)
{
    struct mg_run r;
    int ok = mg_load_mesh(&r, o, rep, n_files ? files[0] : NULL, MG_WHEN_NEVER);
    if (ok) {
        struct mg_stream_out s = {o->out, 0};
        struct mg_buf b;
        mg_buf_init(&b);
        mg_buf_stream(&b, mg_stream_sink, &s);
        mg_run_emit(&r, MG_EMIT_JSON, &b);
        mg_buf_flush(&b);
        mg_buf_free(&b);
        if (s.error)
            mg_write_failed(&r, "cannot write the output: %s", strerror(s.error));
    }
    return mg_finish(&r, ok);
}

/* <name>_mesh.h, <name>_mesh.c and the depfile, written together: none is
 * replaced unless all could be written; those whose bytes are the same are
 * left alone with their mtimes. */
static void mg_write_generated(struct mg_run *r, const char *dir, const char *file)
{
    static const char *const what[3] = {"the .h", "the .c", "the depfile"};
    const struct mg_opts *o = r->opts;
    const char **prereqs, *targets[2], *refused, *why;
    struct mg_output out[3];
    struct mg_buf b[3];
    int i, n_prereqs = 0;

    out[0].path = mg_printf(&r->arena, "%s/%s_mesh.h", dir, r->plan->name);
    out[1].path = mg_printf(&r->arena, "%s/%s_mesh.c", dir, r->plan->name);
    out[2].path = o->depfile;
    for (i = 0; i < 3; i++)
        mg_buf_init(&b[i]);
    mg_run_emit(r, MG_EMIT_HEADER, &b[0]);
    mg_run_emit(r, MG_EMIT_SOURCE, &b[1]);
    if (o->depfile) {
        prereqs = mg_alloc_array(&r->arena, (size_t)r->inv->n_files + 1, sizeof *prereqs);
        if (!o->mesh)
            prereqs[n_prereqs++] = file;
        for (i = 0; i < r->inv->n_files; i++)
            prereqs[n_prereqs++] = r->inv->files[i];
        /* The .c first: Ninja wants a depfile's first target to be the
         * first output of its build statement, which the .c is in
         * cmake/MeshgenAddMesh.cmake (make touches every other one). */
        targets[0] = out[1].path;
        targets[1] = out[0].path;
        if ((refused = mg_emit_depfile(&b[2], targets, 2, prereqs, n_prereqs, &why)) != NULL) {
            /* Make would read another rule, or another file, so nothing is
             * written (docs/reference.md, "Files and streams"). */
            struct mg_mark at = {"--depfile", 0, 0};
            mg_error(&r->diags, MG_CHK_IO, at, "cannot name %s in a Make rule: it holds %s",
                     mg_show_path(&r->arena, refused), why);
            r->io_error = 1;
        }
    }
    for (i = 0; i < 3; i++) {
        out[i].data = b[i].data;
        out[i].len = b[i].len;
    }
    if (!r->io_error)
        mg_write_files(r, o->depfile ? 3 : 2, out, what);
    for (i = 0; i < 3; i++)
        mg_buf_free(&b[i]);
}

/* generate --print-outputs: the paths generate would write, one a line,
 * from the spec's name (or --name) alone. Build systems ask this at
 * configure time (cmake/MeshgenAddMesh.cmake), so it reads the spec but not
 * the inventory: the spec's own checks run here (a name generate would
 * refuse is refused at configure time too), the checks against the
 * inventory by generate. */
static int mg_print_outputs(const struct mg_opts *o, struct mg_report *rep, const char *file,
                            const char *dir)
{
    struct mg_run r;
    struct mg_buf b;

    mg_run_start(&r, o, rep);
    r.spec = mg_read_spec(&r, file);
    if (r.is_inventory) {
        struct mg_mark at = {file, 0, 0};
        mg_error(&r.diags, MG_CHK_NOT_A_MESH, at, "this is an inventory file, not a mesh spec");
    }
    if (!r.spec || r.diags.n_errors)
        return mg_finish(&r, 0);
    if (o->name && !o->mesh) {
        r.spec->name = o->name;
        r.spec->name_at = (struct mg_mark){"--name", 0, 0};
    }
    /* The name becomes file names: the spec checks (inventory NULL) refuse
     * anything but a name generate takes. */
    mg_compile(&r.arena, &r.diags, r.spec, NULL, NULL);
    if (r.diags.n_errors)
        return mg_finish(&r, 0);
    mg_buf_init(&b);
    mg_buf_printf(&b, "%s/%s_mesh.h\n%s/%s_mesh.c\n", dir, r.spec->name, dir, r.spec->name);
    mg_output(&r, &b);
    mg_buf_free(&b);
    return mg_finish(&r, 1);
}

static int mg_cmd_generate(const struct mg_opts *o, struct mg_report *rep, int n_files,
                           char *const *files)
{
    const char *file = n_files ? files[0] : NULL, *dir = o->out_dir ? o->out_dir : ".";
    struct mg_run r;
    int ok;

    if (o->print_outputs)
        return mg_print_outputs(o, rep, file, dir);
    ok = mg_load_mesh(&r, o, rep, file, o->groups);

    if (ok && !mg_is_directory(dir)) {
        struct stat st;
        /* Says what is wrong: -o names a directory, not a file. */
        if (stat(dir, &st) == 0)
            mg_write_failed(&r,
                            "output directory %s is %s, not a directory: -o names the "
                            "directory to write %s_mesh.h and %s_mesh.c into",
                            mg_show_path(&r.arena, dir),
                            S_ISREG(st.st_mode) ? "a regular file" : "a file", r.plan->name,
                            r.plan->name);
        else
            mg_write_failed(&r, "output directory %s does not exist", mg_show_path(&r.arena, dir));
    } else if (ok) {
        mg_write_generated(&r, dir, file);
    }
    return mg_finish(&r, ok);
}

static int mg_cmd_show(const struct mg_opts *o, struct mg_report *rep, int n_files,
                       char *const *files)
{
    struct mg_run r;
    int ok = mg_load_mesh(&r, o, rep, n_files ? files[0] : NULL, MG_WHEN_NEVER);
    struct mg_buf b;

    struct mg_output svg = {o->svg_path, NULL, 0};
    const char *what = "the SVG";

    /* Refused before the grid is printed: nothing is written. */
    if (!ok || (o->svg_path && mg_outputs_clash(&r, 1, &svg, &what)))
        return mg_finish(&r, ok);
    mg_buf_init(&b);
    mg_run_emit(&r, MG_EMIT_GRID, &b);
    mg_output(&r, &b);
    /* The picture is written whatever became of the text: a reader of
     * stdout that went away (`| head`, an I/O error of the run) costs the
     * text, never the file. The text comes first, so that `--svg
     * /dev/stdout` follows it in the stream (docs/reference.md, "Files and
     * streams"). */
    if (o->svg_path) {
        b.len = 0;
        mg_run_emit(&r, MG_EMIT_SVG, &b);
        svg.data = b.data;
        svg.len = b.len;
        mg_write_files(&r, 1, &svg, &what);
    }
    mg_buf_free(&b);
    return mg_finish(&r, ok);
}

/* inventory --export: the source as an hwloc XML snapshot, written
 * atomically so that a checked-in file is never left half-written. */
static int mg_export(struct mg_run *r, const char *src, struct mg_mark at)
{
    struct mg_output out = {r->opts->export_path, NULL, 0};
    const char *what = "the snapshot";
    enum mg_source kind = mg_source_kind(src);

    if (kind == MG_SOURCE_XML || kind == MG_SOURCE_INVENTORY)
        r->source_file = src;
    if (mg_topology_export(&r->arena, &r->diags, src, at, &out.data, &out.len) != 0)
        return mg_finish(r, 0);
    mg_write_files(r, 1, &out, &what);
    return mg_finish(r, 1);
}

static int mg_cmd_inventory(const struct mg_opts *o, struct mg_report *rep, int n_files,
                            char *const *files)
{
    struct mg_run r;
    struct mg_mark at = {"--inventory", 0, 0};
    const char *src = o->inventory ? o->inventory : "live";
    struct mg_buf b;

    (void)n_files;
    (void)files;
    mg_run_start(&r, o, rep);
    if (!o->inventory)
        at.file = "(this machine)";
    if (o->export_path)
        return mg_export(&r, src, at);
    r.inv = mg_inventory_load(&r.arena, &r.diags, src, at);
    if (!r.inv || r.diags.n_errors)
        return mg_finish(&r, 0);
    mg_buf_init(&b);
    mg_emit_inventory(&b, r.inv);
    mg_output(&r, &b);
    mg_buf_free(&b);
    return mg_finish(&r, 1);
}

static const char *mg_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* env: the variables that place one process, found from the launcher's
 * variables as the runtime finds it. */
static int mg_cmd_env(const struct mg_opts *o, struct mg_report *rep, int n_files,
                      char *const *files)
{
    const char *file = n_files ? files[0] : NULL;
    struct mg_env_query q;
    struct mg_env e;
    struct mg_run r;
    int ok = mg_load_mesh(&r, o, rep, file, MG_WHEN_NEVER);
    struct mg_mark at = {file ? file : "--mesh", 0, 0};
    struct mg_buf b;

    if (!ok)
        return mg_finish(&r, ok);
    memset(&q, 0, sizeof q);
    q.host = o->env_host;
    q.local_rank = o->env_local_rank;
    q.process = o->env_process;
    q.get = mg_getenv;
    if (mg_env_resolve(&r.arena, &r.diags, r.plan, &q, at, &e) != 0)
        return mg_finish(&r, 0);
    mg_buf_init(&b);
    mg_emit_env(&b, &e, o->env_format);
    mg_output(&r, &b);
    mg_buf_free(&b);
    return mg_finish(&r, ok);
}

/* verify: this machine against its host's entry in the inventory the
 * spec names (verify.c); exit 1 on any difference. */
static int mg_cmd_verify(const struct mg_opts *o, struct mg_report *rep, int n_files,
                         char *const *files)
{
    const char *file = n_files ? files[0] : NULL;
    struct mg_verify_query q = {o->env_host, mg_getenv, NULL};
    struct mg_mark at = {file ? file : "--mesh", 0, 0};
    struct mg_verify v;
    struct mg_run r;
    struct mg_buf b;
    int ok = mg_load_mesh(&r, o, rep, file, MG_WHEN_NEVER);

    if (!ok)
        return mg_finish(&r, ok);
    ok = mg_verify_node(&r.arena, &r.diags, r.inv, r.plan->kind, &q, at, &v) == 0;
    mg_buf_init(&b);
    mg_emit_verify(&b, &v);
    mg_output(&r, &b);
    mg_buf_free(&b);
    return mg_finish(&r, ok);
}

/* Indexed by enum mg_command, so a command cannot lack its function. */
static int (*const mg_commands[MG_N_COMMANDS])(const struct mg_opts *, struct mg_report *, int,
                                               char *const *) = {
    [MG_CMD_VALIDATE] = mg_cmd_validate,   [MG_CMD_GENERATE] = mg_cmd_generate,
    [MG_CMD_RESOLVE] = mg_cmd_resolve,     [MG_CMD_SHOW] = mg_cmd_show,
    [MG_CMD_INVENTORY] = mg_cmd_inventory, [MG_CMD_ENV] = mg_cmd_env,
    [MG_CMD_VERIFY] = mg_cmd_verify,
};

int mg_run_command(enum mg_command cmd, const struct mg_opts *o, int n_files, char *const *files)
{
    struct mg_report *rep = mg_report_begin(o->format);
    struct mg_buf b;
    /* Specs that share an inventory share its topology files: each is
     * loaded once in the command, with hwloc's plugins, and a bad one is
     * reported once, where it is first named. */
    int held = mg_topology_cache_hold() == 0;
    int code = mg_commands[cmd](o, rep, n_files, files);

    if (held)
        mg_topology_cache_release();

    /* The JSON and SARIF documents, printed once for all the files. */
    mg_buf_init(&b);
    mg_report_end(rep, &b, code);
    (void)mg_write_stream(o->err, b.data, b.len);
    mg_buf_free(&b);
    return code;
}
