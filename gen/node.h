/*
 * Typed reading of the YAML node tree (struct mg_node of internal.h), shared by
 * the readers of the formats built on it: the mesh spec (spec.c) and the
 * inventory file (inventory.c). One set of scalar rules and one shape
 * of message ("<where>: found X, expected Y") for every file meshgen reads.
 *
 * It knows no format's keys or meaning, nothing of libyaml (the tree is
 * already built) and nothing of hwloc. The reporting functions allocate
 * their messages in the arena of the diagnostics they report to.
 */
#ifndef MG_NODE_H
#define MG_NODE_H

#include "diag.h"

/* What a scalar is under the rules of this format: YAML 1.2's core schema,
 * stricter still. Only plain `true`/`false` are booleans (YAML 1.1's yes, no,
 * on and off are strings), only plain decimal digits are integers, and quotes
 * always make a string unless an explicit standard tag says otherwise. */
enum mg_stype { MG_ST_NULL, MG_ST_BOOL, MG_ST_INT, MG_ST_STR, MG_ST_OTHER };

/* A key of a fixed-format mapping and whether it is required. */
struct mg_key {
    const char *name;
    int required;
};

/* ---- scalars ------------------------------------------------------------- */

/* Whether s is an optional sign and decimal digits, nothing else. */
int mg_is_int_text(const char *s);
enum mg_stype mg_scalar_type(const struct mg_node *n);
/* Decimal text to int64; 0 when s is no integer or does not fit. */
int mg_parse_int64(const char *s, int64_t *out);

/* ---- message pieces -------------------------------------------------------- */

/* "path" when idx < 0, else "path[idx]". */
const char *mg_where(struct mg_arena *a, const char *path, long idx);

/* ---- typed values: each returns 1, or 0 after reporting -------------------- */

/* Reports "type-mismatch": `where` found <what n is>, expected `expected`,
 * then `hint` (may be ""). */
void mg_mismatch(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
                 const char *expected, const char *hint);
/* Whether n is a scalar of type want; a type-mismatch (with the hint for
 * the usual trap: quoted digits, 0x10, yes/no) if not. */
int mg_want(struct mg_diags *d, const struct mg_node *n, enum mg_stype want, const char *path,
            long idx, const char *expected);
int mg_get_string(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
                  const char **out);
/* An integer in 64 bits; "int-range" when it does not fit. */
int mg_get_int(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
               int64_t *out);
int mg_get_bool(struct mg_diags *d, const struct mg_node *n, const char *path, int *out);
/* One of an enumeration's words (words.c); "enum-value" lists them when it
 * is not. *out receives the value. */
int mg_get_enum(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
                const struct mg_words *words, int *out);

/* ---- mappings ------------------------------------------------------------ */

/* Reports every repeated key ("key-duplicate", related to the first) and
 * returns, per pair of map, 1 where it is the first of its key. */
const unsigned char *mg_unique_keys(struct mg_diags *d, const struct mg_node *map,
                                    const char *where);
/* Reads a fixed-format mapping: vals[j] is the value of keys[j] (its first
 * occurrence) or NULL; keys[j].required is 1 for a required key. Reports
 * "key-duplicate", "key-unknown" and "key-required" (at the mapping). */
void mg_read_map(struct mg_diags *d, const struct mg_node *map, const char *where,
                 const struct mg_key *keys, size_t n_keys, const struct mg_node **vals);

/* ---- format versions ------------------------------------------------------ */

/* A file of another format version is not judged by this one's rules: one
 * clear error instead of a list of "unknown key"s. Reports "format-version"
 * and returns 1, with *version set, when the top-level mapping's first `key`
 * is an integer other than 1; else returns 0. */
int mg_other_version(struct mg_diags *d, const struct mg_node *root, const char *key,
                     int64_t *version);

#endif /* MG_NODE_H */
