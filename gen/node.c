/*
 * Typed reading of the generic YAML node tree (struct mg_node), shared by
 * the readers of every format built on it: the mesh spec (spec.c) and the
 * inventory file (inventory.c). It decides what a scalar is (null,
 * boolean, integer, string), parses integers without overflow, reads a
 * string, an integer, a boolean or an enum word with "type-mismatch",
 * "int-range" and "enum-value" errors, and reads a mapping against a table
 * of keys ("key-duplicate", "key-unknown", "key-required"). Every message
 * has the shape "<where>: found X, expected Y", so all formats read alike.
 *
 * It knows no format's keys or meaning, nothing of libyaml (the tree is
 * already built) and nothing of hwloc. Messages go into the arena of the
 * diagnostics they are reported to.
 */
#include "node.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MG_TAG(t) "tag:yaml.org,2002:" t

/* ---- scalars ----------------------------------------------------------------- */

int mg_is_int_text(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    return *s == '\0';
}

static int mg_is_null_text(const char *s)
{
    return s[0] == '\0' || strcmp(s, "null") == 0 || strcmp(s, "~") == 0;
}

static int mg_is_bool_text(const char *s)
{
    return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
}

enum mg_stype mg_scalar_type(const struct mg_node *n)
{
    const char *t = n->tag, *v = n->value;

    if (!t) {
        if (n->quoted)
            return MG_ST_STR;
        if (mg_is_null_text(v))
            return MG_ST_NULL;
        if (mg_is_bool_text(v))
            return MG_ST_BOOL;
        if (mg_is_int_text(v))
            return MG_ST_INT;
        return MG_ST_STR;
    }
    /* "!" is YAML's non-specific tag: a scalar so marked is a string. */
    if (strcmp(t, "!") == 0 || strcmp(t, MG_TAG("str")) == 0)
        return MG_ST_STR;
    if (strcmp(t, MG_TAG("int")) == 0 && mg_is_int_text(v))
        return MG_ST_INT;
    if (strcmp(t, MG_TAG("bool")) == 0 && mg_is_bool_text(v))
        return MG_ST_BOOL;
    if (strcmp(t, MG_TAG("null")) == 0 && mg_is_null_text(v))
        return MG_ST_NULL;
    return MG_ST_OTHER;
}

/* Decimal text (already matched by mg_is_int_text, or not: then 0) to
 * int64 with overflow detection; strtoll would clamp silently. */
int mg_parse_int64(const char *s, int64_t *out)
{
    int neg = *s == '-';
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;

    if (!mg_is_int_text(s))
        return 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s; s++) {
        unsigned digit = (unsigned)(*s - '0');
        if (v > (limit - digit) / 10)
            return 0;
        v = v * 10 + digit;
    }
    if (!neg)
        *out = (int64_t)v;
    else
        *out = v == limit ? INT64_MIN : -(int64_t)v;
    return 1;
}

static const char *mg_show_tag(struct mg_arena *a, const char *tag)
{
    size_t pre = strlen(MG_TAG(""));
    if (strncmp(tag, MG_TAG(""), pre) == 0)
        return mg_show(a, mg_printf(a, "!!%s", tag + pre));
    return mg_show(a, tag);
}

/* "a sequence", "the quoted string '8'", "the integer 8", ... */
static const char *mg_describe(struct mg_arena *a, const struct mg_node *n)
{
    if (n->kind == MG_NODE_SEQ)
        return "a sequence";
    if (n->kind == MG_NODE_MAP)
        return "a mapping";
    switch (mg_scalar_type(n)) {
    case MG_ST_NULL: return "null";
    case MG_ST_BOOL: return mg_printf(a, "the boolean %s", n->value);
    case MG_ST_INT: return mg_printf(a, "the integer %s", mg_show(a, n->value));
    case MG_ST_STR:
        return mg_printf(a, "the %sstring %s", n->quoted ? "quoted " : "", mg_show(a, n->value));
    default:
        return mg_printf(a, "the scalar %s tagged %s", mg_show(a, n->value),
                         mg_show_tag(a, n->tag));
    }
}

/* A word YAML 1.1 (PyYAML) reads as a boolean. */
static int mg_is_yaml11_bool(const char *s)
{
    static const char *const words[] = {"y",   "Y",   "yes",  "Yes",  "YES",   "n",    "N",
                                        "no",  "No",  "NO",   "on",   "On",    "ON",   "off",
                                        "Off", "OFF", "True", "TRUE", "False", "FALSE"};
    size_t i;
    for (i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(s, words[i]) == 0)
            return 1;
    return 0;
}

/* Where a value sits, for messages: "mesh.shape[2]". Built only on error. */
const char *mg_where(struct mg_arena *a, const char *path, long idx)
{
    return idx < 0 ? path : mg_printf(a, "%s[%ld]", path, idx);
}

/* The usual trap behind a mismatch, said once where it applies. */
static const char *mg_hint(const struct mg_node *n, enum mg_stype want)
{
    if (n->kind != MG_NODE_SCALAR || mg_scalar_type(n) != MG_ST_STR || n->value[0] == '\0')
        return "";
    if (want == MG_ST_INT && n->quoted && mg_is_int_text(n->value))
        return " (the quotes make it a string)";
    if (want == MG_ST_INT && !n->quoted &&
        (isdigit((unsigned char)n->value[0]) || strchr("+-.", n->value[0])))
        return " (decimal digits only: no fraction, exponent, hex prefix or underscores)";
    if (want == MG_ST_BOOL && !n->quoted && mg_is_yaml11_bool(n->value))
        return " (YAML 1.1 words such as yes, no, on and off are not booleans here; write "
               "true or false)";
    return "";
}

void mg_mismatch(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
                 const char *expected, const char *hint)
{
    mg_error(d, MG_CHK_TYPE_MISMATCH, n->mark, "%s: found %s, expected %s%s",
             mg_where(d->arena, path, idx), mg_describe(d->arena, n), expected, hint);
}

/* Whether n is a scalar of type want; reports a type-mismatch if not. */
int mg_want(struct mg_diags *d, const struct mg_node *n, enum mg_stype want, const char *path,
            long idx, const char *expected)
{
    if (n->kind == MG_NODE_SCALAR && mg_scalar_type(n) == want)
        return 1;
    mg_mismatch(d, n, path, idx, expected, mg_hint(n, want));
    return 0;
}

int mg_get_string(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
                  const char **out)
{
    if (!mg_want(d, n, MG_ST_STR, path, idx, "a string"))
        return 0;
    *out = n->value;
    return 1;
}

int mg_get_int(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
               int64_t *out)
{
    if (!mg_want(d, n, MG_ST_INT, path, idx, "an integer"))
        return 0;
    if (!mg_parse_int64(n->value, out)) {
        mg_error(d, MG_CHK_INT_RANGE, n->mark,
                 "%s: found %s, expected an integer from %" PRId64 " to %" PRId64,
                 mg_where(d->arena, path, idx), mg_show(d->arena, n->value), INT64_MIN, INT64_MAX);
        return 0;
    }
    return 1;
}

int mg_get_bool(struct mg_diags *d, const struct mg_node *n, const char *path, int *out)
{
    if (!mg_want(d, n, MG_ST_BOOL, path, -1, "a boolean (true or false)"))
        return 0;
    *out = strcmp(n->value, "true") == 0;
    return 1;
}

/* The keys of a mapping, for messages: "a, b, c". */
static const char *mg_join_keys(struct mg_arena *a, const struct mg_key *keys, size_t count)
{
    struct mg_buf b;
    const char *out;
    size_t i;

    mg_buf_init(&b);
    for (i = 0; i < count; i++)
        mg_buf_printf(&b, "%s%s", i ? ", " : "", keys[i].name);
    out = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return out;
}

int mg_get_enum(struct mg_diags *d, const struct mg_node *n, const char *path, long idx,
                const struct mg_words *words, int *out)
{
    struct mg_suggest s;
    struct mg_buf b;
    const char *v;
    int value;

    if (!mg_get_string(d, n, path, idx, &v))
        return 0;
    value = mg_word_value(words, v);
    if (value >= 0) {
        *out = value;
        return 1;
    }
    mg_buf_init(&b);
    mg_word_list(&b, words, ", ");
    mg_suggest_init(&s, v);
    mg_suggest_words(&s, words);
    mg_error(d, MG_CHK_ENUM_VALUE, n->mark, "%s: found %s, expected one of: %s%s",
             mg_where(d->arena, path, idx), mg_show(d->arena, v), b.data,
             mg_suggest_text(d->arena, &s));
    mg_buf_free(&b);
    return 0;
}

/* ---- mappings -------------------------------------------------------------------- */

static int mg_key_cmp(const void *x, const void *y)
{
    const struct mg_named *p = x, *q = y;
    return mg_named_order(strcmp(p->name, q->name), p, q);
}

/* Reports every repeated key of a mapping (libyaml accepts them; a silent
 * "last one wins" hides mistakes) and returns, per pair, whether it is the
 * first occurrence of its key. Sorting keeps a large mapping cheap. */
const unsigned char *mg_unique_keys(struct mg_diags *d, const struct mg_node *map,
                                    const char *where)
{
    struct mg_named *refs = mg_alloc_array(d->arena, map->n, sizeof *refs);
    size_t *first = mg_alloc_array(d->arena, map->n, sizeof *first);
    unsigned char *keep = mg_alloc(d->arena, map->n);
    size_t i, run = 0;

    for (i = 0; i < map->n; i++) {
        refs[i].name = map->keys[i]->value;
        refs[i].index = i;
    }
    qsort(refs, map->n, sizeof *refs, mg_key_cmp);
    for (i = 0; i < map->n; i++) {
        if (i > 0 && strcmp(refs[i].name, refs[run].name) != 0)
            run = i;
        first[refs[i].index] = refs[run].index;
    }
    for (i = 0; i < map->n; i++) {
        const struct mg_node *k = map->keys[i];
        keep[i] = first[i] == i;
        if (!keep[i])
            mg_error_rel(d, MG_CHK_KEY_DUPLICATE, k->mark, map->keys[first[i]]->mark,
                         "first defined here",
                         "%s: found the key %s a second time, expected each key once", where,
                         mg_show(d->arena, k->value));
    }
    return keep;
}

static size_t mg_key_index(const struct mg_key *keys, size_t n_keys, const char *name)
{
    size_t j;
    for (j = 0; j < n_keys; j++)
        if (strcmp(name, keys[j].name) == 0)
            break;
    return j;
}

/* "; did you mean 'key'?" for an unknown key, or "". */
static const char *mg_key_suggestion(struct mg_arena *a, const struct mg_key *keys, size_t n_keys,
                                     const char *name)
{
    struct mg_suggest s;
    size_t j;

    mg_suggest_init(&s, name);
    for (j = 0; j < n_keys; j++)
        mg_suggest_add(&s, keys[j].name);
    return mg_suggest_text(a, &s);
}

/* Looks up the keys of a fixed-format mapping: vals[j] is the value of
 * keys[j] (first occurrence) or NULL. Reports duplicate, unknown and
 * missing required keys. */
void mg_read_map(struct mg_diags *d, const struct mg_node *map, const char *where,
                 const struct mg_key *keys, size_t n_keys, const struct mg_node **vals)
{
    const unsigned char *keep = mg_unique_keys(d, map, where);
    size_t i, j;

    for (j = 0; j < n_keys; j++)
        vals[j] = NULL;
    for (i = 0; i < map->n; i++) {
        const struct mg_node *k = map->keys[i];
        if (!keep[i])
            continue;
        j = mg_key_index(keys, n_keys, k->value);
        if (j < n_keys)
            vals[j] = map->items[i];
        else
            mg_error(d, MG_CHK_KEY_UNKNOWN, k->mark,
                     "%s: found the unknown key %s, expected one of: %s%s", where,
                     mg_show(d->arena, k->value), mg_join_keys(d->arena, keys, n_keys),
                     mg_key_suggestion(d->arena, keys, n_keys, k->value));
    }
    for (j = 0; j < n_keys; j++)
        if (keys[j].required && !vals[j])
            mg_error(d, MG_CHK_KEY_REQUIRED, map->mark,
                     "%s: found no key '%s', expected it (it is required)", where, keys[j].name);
}

/* ---- format versions --------------------------------------------------------------- */

int mg_other_version(struct mg_diags *d, const struct mg_node *root, const char *key,
                     int64_t *version)
{
    size_t i;

    for (i = 0; i < root->n; i++) {
        const struct mg_node *ver = root->items[i];
        if (strcmp(root->keys[i]->value, key) != 0)
            continue;
        if (ver->kind == MG_NODE_SCALAR && mg_scalar_type(ver) == MG_ST_INT &&
            mg_parse_int64(ver->value, version) && *version != 1) {
            mg_error(d, MG_CHK_FORMAT_VERSION, ver->mark,
                     "%s: found format version %s, expected 1 (the only version this meshgen "
                     "reads)",
                     key, mg_show(d->arena, ver->value));
            return 1;
        }
        return 0;
    }
    return 0;
}
