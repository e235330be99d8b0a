/*
 * A small JSON writer with nesting (json.c), for the emitters of JSON
 * (emit_json.c, emit_diag.c). The writer places separators, line breaks
 * and indentation from the layout of each open container, so no emitter
 * counts columns by hand. It writes into a struct mg_buf and knows nothing
 * of what it writes.
 */
#ifndef MG_JSON_H
#define MG_JSON_H

#include <meshgen/gen.h>

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

struct mg_json {
    struct mg_buf *b;
    size_t line_start; /* where the current line starts (mg_buf_pos) */
    int after_key;     /* a key was written: its value needs no separator */
    int depth;
    struct mg_json_frame open[MG_JSON_MAX_DEPTH];
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

#endif /* MG_JSON_H */
