/*
 * meshgen's generator as a library: its public API, which the command line
 * (gen/main.c) uses and nothing more, as flatcc's flatcc.h is flatcc's.
 *
 * A run (struct mg_run, opaque) is one compile of one mesh: mg_run_load
 * reads a spec and the inventory it names, mg_run_compile checks them and
 * builds the resolved model, mg_run_emit formats the model (the C tables,
 * the JSON, the pictures), mg_run_free ends it. Every problem is a
 * diagnostic handed to the caller's callback, never printed. mg_run_command
 * runs a whole command of the tool, as `meshgen COMMAND` does. The words of
 * the options, "did you mean" and a text buffer serve a front end that
 * parses its own command line.
 *
 * The rest of gen/ (the model's structs, the stages, the arena) is declared
 * in gen/internal.h, for the library's own files, its unit tests and its
 * fuzz targets (docs/architecture.md). Nothing here exposes libyaml, hwloc
 * or the model.
 */
#ifndef MESHGEN_GEN_H
#define MESHGEN_GEN_H

#include <stddef.h>
#include <stdio.h>

/* Exit codes: 0 ok, 1 the inputs are wrong, 2 a usage or I/O error. */
enum { MG_EXIT_OK = 0, MG_EXIT_INPUT = 1, MG_EXIT_USAGE = 2 };

/* Prints "out of memory" and ends the process with exit 2: the policy of
 * every allocation of the generator. */
_Noreturn void mg_oom(void);

/* ---- option values -------------------------------------------------------- */

/* The commands of the command line, in the order `meshgen --help` lists
 * them. */
enum mg_command {
    MG_CMD_VALIDATE,
    MG_CMD_GENERATE,
    MG_CMD_RESOLVE,
    MG_CMD_SHOW,
    MG_CMD_INVENTORY,
    MG_CMD_ENV,
    MG_CMD_VERIFY,
    MG_N_COMMANDS
};

/* auto / always / never: --color, --groups. */
enum mg_when { MG_WHEN_AUTO, MG_WHEN_ALWAYS, MG_WHEN_NEVER };

/* What colours the cells of `show` (--color-by): each device's host, its
 * host's slice, or its MPMD stage. */
enum mg_color_by { MG_COLOR_BY_HOST, MG_COLOR_BY_SLICE, MG_COLOR_BY_STAGE };

/* How diagnostics are printed (docs/reference.md, "Output formats"). */
enum mg_diag_format { MG_FORMAT_TEXT, MG_FORMAT_JSON, MG_FORMAT_GITHUB, MG_FORMAT_SARIF };

/* How `meshgen env` prints: sh export lines or one JSON object. */
enum mg_env_format { MG_ENV_SH, MG_ENV_JSON };

enum mg_severity { MG_SEV_ERROR, MG_SEV_WARNING, MG_SEV_NOTE };

/* ---- text ------------------------------------------------------------------- */

/* A growable text buffer (on the heap: outputs can be large). */
struct mg_buf {
    char *data; /* NUL-terminated once anything was written; NULL before */
    size_t len;
    size_t cap;
    int indent; /* of the library's line printer */
    /* Streaming (mg_buf_stream): the text goes to sink in chunks of about
     * MG_BUF_CHUNK as it is written, and data holds only what is not yet
     * handed on; flushed counts what was. */
    void (*sink)(void *ctx, const char *data, size_t len);
    void *sink_ctx;
    size_t flushed;
};

/* The most a streaming buffer holds before it hands its text on (unless
 * one write is larger): what resolve's JSON costs in memory at any size. */
#define MG_BUF_CHUNK ((size_t)1 << 18)

void mg_buf_init(struct mg_buf *b);
void mg_buf_free(struct mg_buf *b);
void mg_buf_put(struct mg_buf *b, const char *s, size_t n);
void mg_buf_puts(struct mg_buf *b, const char *s);
/* A buffer that hands its text to sink as it grows, so an output of any
 * size costs about MG_BUF_CHUNK of memory; mg_buf_flush hands on the rest.
 * Text already handed on cannot be read back: b->data holds the tail. */
void mg_buf_stream(struct mg_buf *b, void (*sink)(void *ctx, const char *data, size_t len),
                   void *ctx);
void mg_buf_flush(struct mg_buf *b);

/* Appends s as a message echoes a value: escaped as terminal text
 * (docs/reference.md, "Echoed strings") and, past max bytes, cut at a
 * character with "...". */
void mg_echo(struct mg_buf *b, const char *s, size_t max);

/* ---- words and suggestions ------------------------------------------------ */

/* The words of one enumeration, indexed by its values (gen/words.c). */
struct mg_words;
extern const struct mg_words mg_command_words;    /* enum mg_command */
extern const struct mg_words mg_when_words;       /* enum mg_when */
extern const struct mg_words mg_color_by_words;   /* enum mg_color_by */
extern const struct mg_words mg_format_words;     /* enum mg_diag_format */
extern const struct mg_words mg_env_format_words; /* enum mg_env_format */

/* The word of a value; "unknown" outside the table. */
const char *mg_word(const struct mg_words *words, int value);
/* The value of a word, or -1. */
int mg_word_value(const struct mg_words *words, const char *name);
/* Appends the words in order, separated by ", " and by `last` before the
 * last one: "text, json, github or sarif". */
void mg_word_list(struct mg_buf *b, const struct mg_words *words, const char *last);

/* "Did you mean": the closest of several candidates to a mistyped word
 * (docs/reference.md, "Suggestions"): init with the word, add each
 * candidate, then read the result. */
#define MG_SUGGEST_MAX 3
struct mg_suggest {
    const char *word;
    int limit;         /* the largest distance that counts as close */
    int best_distance; /* -1: no close candidate yet */
    int n_best;
    const char *best[MG_SUGGEST_MAX]; /* the closest, in the order added */
    const char *prefix;               /* the last candidate the word begins */
    int n_prefix;                     /* how many it begins */
    const char *abbrev;               /* the last candidate the word abbreviates */
    int n_abbrev;                     /* how many it abbreviates */
};

void mg_suggest_init(struct mg_suggest *s, const char *word);
/* A candidate (not copied: it must outlive s); the word itself is none. */
void mg_suggest_add(struct mg_suggest *s, const char *candidate);
/* Every word of an enumeration as a candidate. */
void mg_suggest_words(struct mg_suggest *s, const struct mg_words *words);
/* The suggestions into out[0..MG_SUGGEST_MAX): the one candidate the word
 * begins, else the closest candidates, else the one candidate the word
 * abbreviates; returns how many (0: none). */
int mg_suggest_result(const struct mg_suggest *s, const char **out);
/* "; did you mean 'a'?" ("'a' or 'b'" for a tie), or nothing. */
void mg_suggest_put(struct mg_buf *b, const struct mg_suggest *s);

/* ---- options ------------------------------------------------------------------ */

struct mg_opts {
    const char *inventory;         /* --inventory: overrides the spec's */
    const char *mesh;              /* --mesh: instead of a spec file */
    const char *axes;              /* --axes: names for a positional --mesh */
    const char *name;              /* --name: overrides the spec's name */
    const char *out_dir;           /* generate -o */
    const char *depfile;           /* generate --depfile */
    int print_outputs;             /* generate --print-outputs: name the files, write none */
    const char *export_path;       /* inventory --export */
    const char *svg_path;          /* show --svg */
    const char *env_host;          /* env and verify --host */
    int env_local_rank;            /* env --local-rank; -1 when not given */
    int env_process;               /* env --process; -1 when not given */
    enum mg_env_format env_format; /* env --format */
    enum mg_diag_format format;
    enum mg_when color;        /* --color: a library colours for always only */
    enum mg_color_by color_by; /* show --color-by */
    int color_by_given;        /* --color-by was on the command line */
    enum mg_when groups;       /* generate --groups: auto (small meshes), always, never */
    FILE *out;                 /* where results go (stdout) */
    FILE *err;                 /* where diagnostics go (stderr) */
};

/* The defaults of every option. */
void mg_opts_init(struct mg_opts *o);

/* ---- a run: load, compile, emit ----------------------------------------------- */

/* A diagnostic as the callback is given it, valid during the call. */
struct mg_message {
    enum mg_severity severity;
    const char *check; /* its stable name (docs/reference.md, "Checks") */
    const char *file;  /* as given; NULL: no file */
    int line, col;     /* 1-based; line 0: the whole file */
    const char *text;
    /* A second place it concerns ("first defined here"); NULL file: none. */
    const char *related_file;
    int related_line, related_col;
    const char *related_text;
};

typedef void mg_message_fn(void *ctx, const struct mg_message *m);

struct mg_run;

/* A run under the options o (which must outlive it: its inventory, mesh,
 * name, groups and show's colours are read from them). Each call below
 * hands the diagnostics it reported to fn before it returns, in source
 * order (file, line, column); fn NULL: they are only counted. */
struct mg_run *mg_run_new(const struct mg_opts *o, mg_message_fn *fn, void *ctx);

/* Reads the mesh spec `file` (NULL: o->mesh) and the inventory it is
 * compiled against: o->inventory, else the spec's `inventory:` relative to
 * the spec, else this machine. A file that is an inventory
 * (`meshgen-inventory:`) is read as one, and compiling judges it alone.
 * Returns 0, or -1 after reporting. */
int mg_run_load(struct mg_run *r, const char *file);

/* Checks the spec, and the spec against the inventory, and builds the
 * resolved model (with per-axis group tables as o->groups says). Returns
 * 0, or -1 after reporting (or when the load had failed). */
int mg_run_compile(struct mg_run *r);

/* What mg_run_emit writes: the outputs of generate, resolve and show. */
enum mg_emit {
    MG_EMIT_HEADER, /* <name>_mesh.h */
    MG_EMIT_SOURCE, /* <name>_mesh.c */
    MG_EMIT_JSON,   /* resolve's JSON */
    MG_EMIT_GRID,   /* show's grid (colour when o->color is always) */
    MG_EMIT_SVG     /* show --svg's picture */
};

/* Appends an output of the compiled model to out. Returns 0, or -1 when
 * there is no model. */
int mg_run_emit(struct mg_run *r, enum mg_emit what, struct mg_buf *out);

/* The mesh's name (which names the files generate writes), or NULL before
 * a spec was read. */
const char *mg_run_name(const struct mg_run *r);

/* The exit code the tool would give for the run so far: 0, 1 (an error of
 * the inputs) or 2 (an input that could not be read). */
int mg_run_status(const struct mg_run *r);

void mg_run_free(struct mg_run *r);

/* ---- the commands of the tool ------------------------------------------------- */

/* Runs a command over its files (none for inventory, one or --mesh for
 * generate, resolve, show and env, any number for validate; the caller has
 * checked the count): reads, writes the outputs atomically, prints results
 * to o->out and diagnostics in o->format to o->err. Returns the exit
 * code. */
int mg_run_command(enum mg_command cmd, const struct mg_opts *o, int n_files, char *const *files);

#endif /* MESHGEN_GEN_H */
