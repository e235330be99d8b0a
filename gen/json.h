/*
 * A small JSON writer with nesting (json.c), for the emitters of JSON
 * (emit_json.c, emit_diag.c). The writer places separators, line breaks
 * and indentation from the layout of each open container, so no emitter
 * counts columns by hand. Rows that repeat (a device per line) are
 * recorded once and filled in (struct mg_json_tpl). It writes into a
 * struct mg_buf and knows nothing of what it writes.
 */
#ifndef MG_JSON_H
#define MG_JSON_H

#include "internal.h"

/* How a container places its members. */
enum mg_json_layout {
    MG_JSON_INLINE,  /* on one line: {"a": 1, "b": 2} */
    MG_JSON_ALIGNED, /* one a line, each under the first: {"a": 1,\n "b": 2} */
    MG_JSON_BLOCK    /* one a line, one column in, the closing bracket on its own line */
};

#define MG_JSON_MAX_DEPTH 12

struct mg_json_frame {
    char close;
    enum mg_json_layout layout;
    int count; /* members so far */
    int col;   /* the column members start at (ALIGNED, BLOCK) */
};

/* What a template leaves open for each row (mg_json_tpl). */
enum mg_json_hole {
    MG_JSON_HOLE_INT,            /* .i */
    MG_JSON_HOLE_STRING,         /* .s, escaped */
    MG_JSON_HOLE_STRING_OR_NULL, /* .s, escaped, or null where it is empty or NULL */
    MG_JSON_HOLE_INTS            /* .ints[0..n) as an inline array; .ints NULL: .i, .i + 1, ... */
};

#define MG_JSON_MAX_HOLES 8

/*
 * A value written many times that differs only in some scalars, such as a
 * device's row, which differs from its host's other devices by id and
 * host alone. It is recorded once by a writer of its own (mg_json_record),
 * through the same calls as any value, with mg_json_hole in place of each
 * scalar that varies; mg_json_fill then writes it by copying the recorded
 * text around the holes. The value must lie on one line (inline layouts
 * only), so its text is the same wherever it starts.
 */
struct mg_json_tpl {
    struct mg_buf text;
    int n_holes;
    struct {
        enum mg_json_hole kind;
        size_t at; /* where its value goes in text */
    } hole[MG_JSON_MAX_HOLES];
};

/* One hole's value, in the order the holes were recorded. */
struct mg_json_arg {
    int64_t i;
    const char *s;
    const int *ints;
    size_t n;
};

struct mg_json {
    struct mg_buf *b;
    size_t line_start; /* where the current line starts (mg_buf_pos) */
    int after_key;     /* a key was written: its value needs no separator */
    int depth;
    struct mg_json_frame open[MG_JSON_MAX_DEPTH];
    struct mg_json_tpl *tpl; /* what mg_json_record records, or NULL */
};

/* Starts writing at the end of b, which must be at the start of a line. */
void mg_json_init(struct mg_json *j, struct mg_buf *b);
/* Opens an object or an array as the next value. */
void mg_json_object(struct mg_json *j, enum mg_json_layout layout);
void mg_json_array(struct mg_json *j, enum mg_json_layout layout);
/* Closes the innermost open container. */
void mg_json_end(struct mg_json *j);
/* The next member's name, in an object. */
void mg_json_key(struct mg_json *j, const char *key);
void mg_json_int(struct mg_json *j, int64_t v);
void mg_json_null(struct mg_json *j);
void mg_json_bool(struct mg_json *j, int v);
/* A string, escaped. */
void mg_json_string(struct mg_json *j, const char *s);
/* A string, or null where it is empty or missing. */
void mg_json_string_or_null(struct mg_json *j, const char *s);
/* An inline array of n ints; v NULL: 0, 1, ..., n - 1. */
void mg_json_int_array(struct mg_json *j, const int *v, size_t n);
/* A member of an object: its name, then the value, as mg_json_key and
 * the call for the value write them. */
void mg_json_key_int(struct mg_json *j, const char *key, int64_t v);
void mg_json_key_string(struct mg_json *j, const char *key, const char *s);
void mg_json_key_string_or_null(struct mg_json *j, const char *key, const char *s);

/* Makes j a writer that records t (empty until then), one value. */
void mg_json_record(struct mg_json *j, struct mg_json_tpl *t);
/* While recording: a hole where a value of that kind goes. */
void mg_json_hole(struct mg_json *j, enum mg_json_hole kind);
/* Ends the recording; the value must be complete and on one line. */
void mg_json_record_end(struct mg_json *j);
/* Writes the recorded value with arg[k] in hole k, as the same calls
 * with those values would. */
void mg_json_fill(struct mg_json *j, const struct mg_json_tpl *t, const struct mg_json_arg *arg);
void mg_json_tpl_free(struct mg_json_tpl *t);

#endif /* MG_JSON_H */
