/*
 * The mesh spec (DESIGN §2) as a typed struct mg_spec: from the node tree of
 * a YAML file, or from the --mesh string ("dp:2,tp:4" or "2,4" with axis
 * names). Also mg_read_file, which bounds the size of every input.
 *
 * This stage judges structure, types and ranges only: which keys exist and
 * which are required, whether a value is an integer, a string, a boolean or a
 * list, whether an integer fits in 64 bits and whether a list fits the
 * fixed-size arrays of the model. Rules that relate several values (names
 * being C identifiers and unique, one -1 at most, list lengths agreeing,
 * sharding axes existing) belong to check.c, so every value is stored as
 * written, negative or zero sizes included. It knows nothing of libyaml (it
 * reads struct mg_node) nor of inventories.
 *
 * After an error the spec still holds safe values, never a NULL where a
 * string is required (a missing or mistyped name is ""), so later stages can
 * run and report their own findings without crashing.
 */
#include "model.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Larger files are refused before they are read: a spec or inventory is a
 * few kilobytes, and this keeps a wrong path (a disk image) cheap. */
#define MG_MAX_INPUT (16u << 20)
/* Each sharding is a sizeable struct (MG_MAX_DIMS x MG_MAX_AXES names), so
 * the count is capped to keep a hostile file from exhausting memory. */
#define MG_MAX_SHARDINGS 4096
/* Values quoted in messages are cut here, so a message stays readable. */
#define MG_SHOW_MAX 40

#define MG_TAG(t) "tag:yaml.org,2002:" t
#define MG_COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct mg_spec_ctx {
    struct mg_arena *a;
    struct mg_diags *d;
    struct mg_spec *s;
};

/* ---- scalars ----------------------------------------------------------------- */

/* What a scalar is under the rules of this format: YAML 1.2's core schema,
 * stricter still. Only plain `true`/`false` are booleans (YAML 1.1's yes, no,
 * on and off are strings), only plain decimal digits are integers, and quotes
 * always make a string unless an explicit standard tag says otherwise. */
enum mg_stype { MG_ST_NULL, MG_ST_BOOL, MG_ST_INT, MG_ST_STR, MG_ST_OTHER };

static int mg_is_int_text(const char *s)
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

static enum mg_stype mg_scalar_type(const struct mg_node *n)
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
static int mg_parse_int64(const char *s, int64_t *out)
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

/* A value as it may appear in a message: quoted, control bytes escaped,
 * cut at a UTF-8 character boundary past max bytes. */
static const char *mg_quote(struct mg_arena *a, const char *s, size_t max)
{
    struct mg_buf b;
    const char *out;
    size_t len = strlen(s), cut = len, i;

    if (cut > max) {
        cut = max;
        while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
            cut--;
    }
    mg_buf_init(&b);
    mg_buf_puts(&b, "'");
    for (i = 0; i < cut; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7F)
            mg_buf_printf(&b, "\\x%02X", ch);
        else
            mg_buf_put(&b, &s[i], 1);
    }
    mg_buf_puts(&b, cut < len ? "'..." : "'");
    out = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return out;
}

static const char *mg_show(struct mg_arena *a, const char *s)
{
    return mg_quote(a, s, MG_SHOW_MAX);
}

/* Paths are shown whole: a cut one would not say which file was meant. */
static const char *mg_show_path(struct mg_arena *a, const char *path)
{
    return mg_quote(a, path, strlen(path));
}

static const char *mg_show_tag(struct mg_arena *a, const char *tag)
{
    size_t pre = strlen(MG_TAG(""));
    if (strncmp(tag, MG_TAG(""), pre) == 0)
        return mg_printf(a, "!!%s", tag + pre);
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
static const char *mg_where(struct mg_arena *a, const char *path, long idx)
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

static void mg_mismatch(struct mg_spec_ctx *c, const struct mg_node *n, const char *path, long idx,
                        const char *expected, const char *hint)
{
    mg_error(c->d, "type-mismatch", n->mark, "%s: found %s, expected %s%s",
             mg_where(c->a, path, idx), mg_describe(c->a, n), expected, hint);
}

/* Whether n is a scalar of type want; reports a type-mismatch if not. */
static int mg_want(struct mg_spec_ctx *c, const struct mg_node *n, enum mg_stype want,
                   const char *path, long idx, const char *expected)
{
    if (n->kind == MG_NODE_SCALAR && mg_scalar_type(n) == want)
        return 1;
    mg_mismatch(c, n, path, idx, expected, mg_hint(n, want));
    return 0;
}

static int mg_get_string(struct mg_spec_ctx *c, const struct mg_node *n, const char *path, long idx,
                         const char **out)
{
    if (!mg_want(c, n, MG_ST_STR, path, idx, "a string"))
        return 0;
    *out = n->value;
    return 1;
}

static int mg_get_int(struct mg_spec_ctx *c, const struct mg_node *n, const char *path, long idx,
                      int64_t *out)
{
    if (!mg_want(c, n, MG_ST_INT, path, idx, "an integer"))
        return 0;
    if (!mg_parse_int64(n->value, out)) {
        mg_error(c->d, "int-range", n->mark,
                 "%s: found %s, expected an integer from %" PRId64 " to %" PRId64,
                 mg_where(c->a, path, idx), mg_show(c->a, n->value), INT64_MIN, INT64_MAX);
        return 0;
    }
    return 1;
}

static int mg_get_bool(struct mg_spec_ctx *c, const struct mg_node *n, const char *path, int *out)
{
    if (!mg_want(c, n, MG_ST_BOOL, path, -1, "a boolean (true or false)"))
        return 0;
    *out = strcmp(n->value, "true") == 0;
    return 1;
}

/* A word of the format with a number: an enum value's name and value, or
 * a mapping key and whether it is required. */
struct mg_word {
    const char *name;
    int value;
};

/* The allowed words, for messages: "a, b, c". */
static const char *mg_join_names(struct mg_arena *a, const struct mg_word *w, size_t count)
{
    struct mg_buf b;
    const char *out;
    size_t i;

    mg_buf_init(&b);
    for (i = 0; i < count; i++)
        mg_buf_printf(&b, "%s%s", i ? ", " : "", w[i].name);
    out = mg_strdup(a, b.data);
    mg_buf_free(&b);
    return out;
}

static int mg_get_enum(struct mg_spec_ctx *c, const struct mg_node *n, const char *path, long idx,
                       const struct mg_word *e, size_t count, int *out)
{
    const char *v;
    size_t i;

    if (!mg_get_string(c, n, path, idx, &v))
        return 0;
    for (i = 0; i < count; i++) {
        if (strcmp(v, e[i].name) == 0) {
            *out = e[i].value;
            return 1;
        }
    }
    mg_error(c->d, "enum-value", n->mark, "%s: found %s, expected one of: %s",
             mg_where(c->a, path, idx), mg_show(c->a, v), mg_join_names(c->a, e, count));
    return 0;
}

/* ---- mappings -------------------------------------------------------------------- */

struct mg_keyref {
    const char *key;
    size_t index;
};

static int mg_keyref_cmp(const void *x, const void *y)
{
    const struct mg_keyref *p = x, *q = y;
    int r = strcmp(p->key, q->key);
    if (r)
        return r;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* Reports every repeated key of a mapping (libyaml accepts them; a silent
 * "last one wins" hides mistakes) and returns, per pair, whether it is the
 * first occurrence of its key. Sorting keeps a large mapping cheap. */
static const unsigned char *mg_unique_keys(struct mg_spec_ctx *c, const struct mg_node *map,
                                           const char *where)
{
    struct mg_keyref *refs = mg_alloc_array(c->a, map->n, sizeof *refs);
    size_t *first = mg_alloc_array(c->a, map->n, sizeof *first);
    unsigned char *keep = mg_alloc(c->a, map->n);
    size_t i, run = 0;

    for (i = 0; i < map->n; i++) {
        refs[i].key = map->keys[i]->value;
        refs[i].index = i;
    }
    qsort(refs, map->n, sizeof *refs, mg_keyref_cmp);
    for (i = 0; i < map->n; i++) {
        if (i > 0 && strcmp(refs[i].key, refs[run].key) != 0)
            run = i;
        first[refs[i].index] = refs[run].index;
    }
    for (i = 0; i < map->n; i++) {
        const struct mg_node *k = map->keys[i];
        keep[i] = first[i] == i;
        if (!keep[i])
            mg_error_rel(c->d, "key-duplicate", k->mark, map->keys[first[i]]->mark,
                         "first defined here",
                         "%s: found the key %s a second time, expected each key once", where,
                         mg_show(c->a, k->value));
    }
    return keep;
}

static size_t mg_key_index(const struct mg_word *keys, size_t n_keys, const char *name)
{
    size_t j;
    for (j = 0; j < n_keys; j++)
        if (strcmp(name, keys[j].name) == 0)
            break;
    return j;
}

/* Looks up the keys of a fixed-format mapping: vals[j] is the value of
 * keys[j] (first occurrence) or NULL. Reports duplicate, unknown and
 * missing required keys. */
static void mg_read_map(struct mg_spec_ctx *c, const struct mg_node *map, const char *where,
                        const struct mg_word *keys, size_t n_keys, const struct mg_node **vals)
{
    const unsigned char *keep = mg_unique_keys(c, map, where);
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
            mg_error(c->d, "key-unknown", k->mark,
                     "%s: found the unknown key %s, expected one of: %s", where,
                     mg_show(c->a, k->value), mg_join_names(c->a, keys, n_keys));
    }
    for (j = 0; j < n_keys; j++)
        if (keys[j].value && !vals[j])
            mg_error(c->d, "key-required", map->mark,
                     "%s: found no key '%s', expected it (it is required)", where, keys[j].name);
}

/* ---- the mesh ------------------------------------------------------------------- */

static const struct mg_word mg_axis_types[] = {{"auto", MESHGEN_AXIS_AUTO},
                                               {"explicit", MESHGEN_AXIS_EXPLICIT},
                                               {"manual", MESHGEN_AXIS_MANUAL}};
static const struct mg_word mg_kinds[] = {{"gpu", MG_KIND_GPU},
                                          {"core", MG_KIND_CORE},
                                          {"numa", MG_KIND_NUMA},
                                          {"package", MG_KIND_PACKAGE},
                                          {"pu", MG_KIND_PU}};
static const struct mg_word mg_orders[] = {{"locality", MG_ORDER_LOCALITY},
                                           {"inventory", MG_ORDER_INVENTORY}};
static const struct mg_word mg_process_modes[] = {{"host", MESHGEN_PROCESSES_HOST},
                                                  {"device", MESHGEN_PROCESSES_DEVICE}};
static const struct mg_word mg_granules[] = {{"host", MG_GRANULE_HOST},
                                             {"slice", MG_GRANULE_SLICE}};

/* A list with one entry per axis: checks that it is a sequence and fits
 * MG_MAX_AXES. Returns its length as written, 0 when it is no sequence. */
static int mg_axis_list(struct mg_spec_ctx *c, const struct mg_node *n, const char *path)
{
    if (n->kind != MG_NODE_SEQ) {
        mg_mismatch(c, n, path, -1, "a sequence with one entry per axis", "");
        return 0;
    }
    if (n->n > MG_MAX_AXES)
        mg_error(c->d, "axes-count", n->items[MG_MAX_AXES]->mark,
                 "%s: found %zu entries, expected at most %d (one per axis, at most %d axes)", path,
                 n->n, MG_MAX_AXES, MG_MAX_AXES);
    return n->n > INT_MAX ? INT_MAX : (int)n->n;
}

enum {
    MG_MK_AXES,
    MG_MK_SHAPE,
    MG_MK_DCN,
    MG_MK_TYPES,
    MG_MK_MPMD,
    MG_MK_KIND,
    MG_MK_ORDER,
    MG_MK_PROCESSES,
    MG_MK_DEVICES,
    MG_MK_GRANULE,
    MG_MK_SORT,
    MG_MK_N
};

/* Designated, so the table cannot drift from the enum. */
static const struct mg_word mg_mesh_keys[MG_MK_N] = {
    [MG_MK_AXES] = {"axes", 1},
    [MG_MK_SHAPE] = {"shape", 1},
    [MG_MK_DCN] = {"dcn", 0},
    [MG_MK_TYPES] = {"types", 0},
    [MG_MK_MPMD] = {"mpmd", 0},
    [MG_MK_KIND] = {"device_kind", 0},
    [MG_MK_ORDER] = {"order", 0},
    [MG_MK_PROCESSES] = {"processes", 0},
    [MG_MK_DEVICES] = {"devices", 0},
    [MG_MK_GRANULE] = {"granule", 0},
    [MG_MK_SORT] = {"sort_granules", 0},
};

static void mg_read_mesh(struct mg_spec_ctx *c, const struct mg_node *mesh)
{
    struct mg_spec *s = c->s;
    const struct mg_node *v[MG_MK_N];
    int i, n;

    /* What the file leaves out is located at the mapping that lacks it. */
    s->mesh_at = s->axes_at = s->shape_at = s->dcn_at = s->types_at = mesh->mark;
    s->mpmd_at = s->device_kind_at = s->devices_at = mesh->mark;
    if (mesh->kind != MG_NODE_MAP) {
        mg_mismatch(c, mesh, "mesh", -1, "a mapping (axes, shape, ...)", "");
        return;
    }
    mg_read_map(c, mesh, "mesh", mg_mesh_keys, MG_MK_N, v);

    /* Axes first, whatever the key order: the per-axis lists below store
     * values for these axes only, and keep their own lengths for check.c. */
    if (v[MG_MK_AXES]) {
        s->axes_at = v[MG_MK_AXES]->mark;
        n = mg_axis_list(c, v[MG_MK_AXES], "mesh.axes");
        for (i = 0; i < n; i++) {
            const struct mg_node *it = v[MG_MK_AXES]->items[i];
            const char *name = "";
            mg_get_string(c, it, "mesh.axes", i, &name);
            if (i < MG_MAX_AXES) {
                s->axes[i].name = name;
                s->axes[i].name_at = it->mark;
            }
        }
        s->n_axes = n < MG_MAX_AXES ? n : MG_MAX_AXES;
    }
    /* An axis whose size, dcn or type is missing is located at its name. */
    for (i = 0; i < s->n_axes; i++)
        s->axes[i].size_at = s->axes[i].dcn_at = s->axes[i].type_at = s->axes[i].name_at;
    if (v[MG_MK_SHAPE]) {
        s->shape_at = v[MG_MK_SHAPE]->mark;
        s->shape_n = n = mg_axis_list(c, v[MG_MK_SHAPE], "mesh.shape");
        for (i = 0; i < n; i++) {
            const struct mg_node *it = v[MG_MK_SHAPE]->items[i];
            int64_t size = 0;
            mg_get_int(c, it, "mesh.shape", i, &size);
            if (i < s->n_axes) {
                s->axes[i].size = size;
                s->axes[i].size_at = it->mark;
            }
        }
    }
    if (v[MG_MK_DCN]) {
        s->has_dcn = 1;
        s->dcn_at = v[MG_MK_DCN]->mark;
        s->dcn_n = n = mg_axis_list(c, v[MG_MK_DCN], "mesh.dcn");
        for (i = 0; i < n; i++) {
            const struct mg_node *it = v[MG_MK_DCN]->items[i];
            int64_t dcn = 0;
            mg_get_int(c, it, "mesh.dcn", i, &dcn);
            if (i < s->n_axes) {
                s->axes[i].dcn = dcn;
                s->axes[i].dcn_at = it->mark;
            }
        }
    }
    if (v[MG_MK_TYPES]) {
        s->has_types = 1;
        s->types_at = v[MG_MK_TYPES]->mark;
        s->types_n = n = mg_axis_list(c, v[MG_MK_TYPES], "mesh.types");
        for (i = 0; i < n; i++) {
            const struct mg_node *it = v[MG_MK_TYPES]->items[i];
            int type = MESHGEN_AXIS_EXPLICIT;
            mg_get_enum(c, it, "mesh.types", i, mg_axis_types, MG_COUNT(mg_axis_types), &type);
            if (i < s->n_axes) {
                s->axes[i].type = type;
                s->axes[i].type_at = it->mark;
            }
        }
    }
    if (v[MG_MK_MPMD]) {
        s->mpmd_at = v[MG_MK_MPMD]->mark;
        if (!mg_get_string(c, v[MG_MK_MPMD], "mesh.mpmd", -1, &s->mpmd))
            s->mpmd = NULL;
    }
    if (v[MG_MK_KIND]) {
        s->device_kind_at = v[MG_MK_KIND]->mark;
        mg_get_enum(c, v[MG_MK_KIND], "mesh.device_kind", -1, mg_kinds, MG_COUNT(mg_kinds),
                    &s->device_kind);
    }
    if (v[MG_MK_ORDER])
        mg_get_enum(c, v[MG_MK_ORDER], "mesh.order", -1, mg_orders, MG_COUNT(mg_orders), &s->order);
    if (v[MG_MK_PROCESSES])
        mg_get_enum(c, v[MG_MK_PROCESSES], "mesh.processes", -1, mg_process_modes,
                    MG_COUNT(mg_process_modes), &s->processes);
    if (v[MG_MK_DEVICES]) {
        s->devices_at = v[MG_MK_DEVICES]->mark;
        s->has_devices = 1;
        mg_get_int(c, v[MG_MK_DEVICES], "mesh.devices", -1, &s->devices);
    }
    if (v[MG_MK_GRANULE])
        mg_get_enum(c, v[MG_MK_GRANULE], "mesh.granule", -1, mg_granules, MG_COUNT(mg_granules),
                    &s->granule);
    if (v[MG_MK_SORT])
        mg_get_bool(c, v[MG_MK_SORT], "mesh.sort_granules", &s->sort_granules);
}

/* ---- shardings ---------------------------------------------------------------- */

/* One entry of a sharding spec: null (replicated), an axis name, or a list
 * of axis names. Entries of a list that are not strings are left out. */
static void mg_read_dim(struct mg_spec_ctx *c, struct mg_spec_dim *dim, const struct mg_node *n,
                        const char *path, long idx)
{
    const char *expected = "null, an axis name or a sequence of axis names";
    size_t k;

    dim->at = n->mark;
    dim->n_axes = 0;
    if (n->kind == MG_NODE_SCALAR && mg_scalar_type(n) == MG_ST_NULL)
        return;
    if (n->kind == MG_NODE_SCALAR && mg_scalar_type(n) == MG_ST_STR) {
        dim->axes[0] = n->value;
        dim->axes_at[0] = n->mark;
        dim->n_axes = 1;
        return;
    }
    if (n->kind != MG_NODE_SEQ) {
        mg_mismatch(c, n, path, idx, expected, "");
        return;
    }
    path = mg_where(c->a, path, idx);
    if (n->n > MG_MAX_AXES)
        mg_error(c->d, "dims-count", n->items[MG_MAX_AXES]->mark,
                 "%s: found %zu axes for one dimension, expected at most %d", path, n->n,
                 MG_MAX_AXES);
    for (k = 0; k < n->n; k++) {
        const char *axis;
        if (mg_get_string(c, n->items[k], path, (long)k, &axis) && dim->n_axes < MG_MAX_AXES) {
            dim->axes[dim->n_axes] = axis;
            dim->axes_at[dim->n_axes] = n->items[k]->mark;
            dim->n_axes++;
        }
    }
}

static void mg_read_sharding_spec(struct mg_spec_ctx *c, struct mg_spec_sharding *sh,
                                  const struct mg_node *n, const char *path)
{
    size_t j;

    sh->spec_at = n->mark;
    if (n->kind != MG_NODE_SEQ) {
        mg_mismatch(c, n, path, -1, "a sequence with one entry per array dimension", "");
        return;
    }
    if (n->n > MG_MAX_DIMS)
        mg_error(c->d, "dims-count", n->items[MG_MAX_DIMS]->mark,
                 "%s: found %zu dimensions, expected at most %d", path, n->n, MG_MAX_DIMS);
    for (j = 0; j < n->n; j++) {
        /* Entries past the ceiling are still checked, into a scratch dim. */
        struct mg_spec_dim scratch;
        mg_read_dim(c, j < MG_MAX_DIMS ? &sh->dims[j] : &scratch, n->items[j], path, (long)j);
    }
    sh->n_dims = n->n < MG_MAX_DIMS ? (int)n->n : MG_MAX_DIMS;
}

/* The optional global array shape. Unlike the mesh lists, shape_n is the
 * number of entries stored (at most MG_MAX_DIMS): no check compares it with
 * anything that could reveal a longer list. */
static void mg_read_sharding_shape(struct mg_spec_ctx *c, struct mg_spec_sharding *sh,
                                   const struct mg_node *n, const char *path)
{
    size_t j;

    sh->shape_list_at = n->mark;
    if (n->kind != MG_NODE_SEQ) {
        mg_mismatch(c, n, path, -1, "a sequence of integers", "");
        return;
    }
    sh->has_shape = 1;
    if (n->n > MG_MAX_DIMS)
        mg_error(c->d, "dims-count", n->items[MG_MAX_DIMS]->mark,
                 "%s: found %zu dimensions, expected at most %d", path, n->n, MG_MAX_DIMS);
    for (j = 0; j < n->n; j++) {
        int64_t v = 0;
        mg_get_int(c, n->items[j], path, (long)j, &v);
        if (j < MG_MAX_DIMS) {
            sh->shape[j] = v;
            sh->shape_at[j] = n->items[j]->mark;
        }
    }
    sh->shape_n = n->n < MG_MAX_DIMS ? (int)n->n : MG_MAX_DIMS;
}

static const struct mg_word mg_sharding_keys[] = {{"spec", 1}, {"shape", 0}};

static void mg_read_sharding(struct mg_spec_ctx *c, struct mg_spec_sharding *sh,
                             const struct mg_node *key, const struct mg_node *val)
{
    /* "shardings.embed" reads well; a name that is no identifier is quoted. */
    const char *path = mg_is_c_identifier(key->value)
                           ? mg_printf(c->a, "shardings.%s", key->value)
                           : mg_printf(c->a, "shardings[%s]", mg_show(c->a, key->value));
    const struct mg_node *v[MG_COUNT(mg_sharding_keys)];

    mg_want(c, key, MG_ST_STR, "shardings", -1, "a sharding name (a string)");
    sh->name = key->value;
    sh->at = key->mark;
    sh->spec_at = sh->shape_list_at = val->mark;
    if (val->kind == MG_NODE_SEQ) {
        mg_read_sharding_spec(c, sh, val, path);
    } else if (val->kind == MG_NODE_MAP) {
        mg_read_map(c, val, path, mg_sharding_keys, MG_COUNT(mg_sharding_keys), v);
        if (v[0])
            mg_read_sharding_spec(c, sh, v[0], mg_printf(c->a, "%s.spec", path));
        if (v[1])
            mg_read_sharding_shape(c, sh, v[1], mg_printf(c->a, "%s.shape", path));
    } else {
        mg_mismatch(c, val, path, -1, "a sequence (the spec) or a mapping with 'spec' and 'shape'",
                    "");
    }
}

static void mg_read_shardings(struct mg_spec_ctx *c, const struct mg_node *map)
{
    struct mg_spec *s = c->s;
    const unsigned char *keep;
    size_t i, count = 0;

    if (map->kind != MG_NODE_MAP) {
        mg_mismatch(c, map, "shardings", -1, "a mapping from sharding names to specs", "");
        return;
    }
    keep = mg_unique_keys(c, map, "shardings");
    for (i = 0; i < map->n; i++)
        count += keep[i];
    s->shardings = mg_alloc_array(c->a, count < MG_MAX_SHARDINGS ? count : MG_MAX_SHARDINGS,
                                  sizeof *s->shardings);
    for (i = 0; i < map->n; i++) {
        if (!keep[i])
            continue;
        if (s->n_shardings == MG_MAX_SHARDINGS) {
            mg_error(c->d, "shardings-count", map->keys[i]->mark,
                     "shardings: found %zu shardings, expected at most %d", count,
                     MG_MAX_SHARDINGS);
            break;
        }
        mg_read_sharding(c, &s->shardings[s->n_shardings++], map->keys[i], map->items[i]);
    }
}

/* ---- the file -------------------------------------------------------------------- */

static const char *mg_dirname(struct mg_arena *a, const char *file)
{
    const char *slash = strrchr(file, '/');
    size_t n;

    if (!slash)
        return ".";
    n = (size_t)(slash - file);
    while (n > 0 && file[n - 1] == '/')
        n--;
    return n == 0 ? "/" : mg_strndup(a, file, n);
}

static struct mg_spec *mg_spec_new(struct mg_arena *a, const char *file, const char *dir,
                                   struct mg_mark at)
{
    struct mg_spec *s = mg_alloc(a, sizeof *s);
    int i;

    s->file = file;
    s->dir = dir;
    s->name = "";
    s->name_at = s->inventory_at = s->mesh_at = s->axes_at = s->shape_at = at;
    s->dcn_at = s->types_at = s->mpmd_at = s->device_kind_at = s->devices_at = at;
    s->device_kind = MG_KIND_DEFAULT;
    s->order = MG_ORDER_LOCALITY;
    s->processes = MESHGEN_PROCESSES_HOST;
    s->granule = MG_GRANULE_HOST;
    s->sort_granules = 1;
    for (i = 0; i < MG_MAX_AXES; i++) {
        s->axes[i].name = "";
        s->axes[i].type = MESHGEN_AXIS_EXPLICIT;
        s->axes[i].name_at = s->axes[i].size_at = s->axes[i].dcn_at = s->axes[i].type_at = at;
    }
    return s;
}

enum { MG_TK_MESHGEN, MG_TK_NAME, MG_TK_INVENTORY, MG_TK_MESH, MG_TK_SHARDINGS, MG_TK_N };

static const struct mg_word mg_top_keys[MG_TK_N] = {
    [MG_TK_MESHGEN] = {"meshgen", 1},     [MG_TK_NAME] = {"name", 1},
    [MG_TK_INVENTORY] = {"inventory", 0}, [MG_TK_MESH] = {"mesh", 1},
    [MG_TK_SHARDINGS] = {"shardings", 0},
};

struct mg_spec *mg_spec_from_node(struct mg_arena *a, struct mg_diags *d, const char *file,
                                  const struct mg_node *root)
{
    struct mg_spec_ctx c;
    const struct mg_node *v[MG_TK_N];
    size_t i;

    /* The loader has already said why there is no tree. */
    if (!root)
        return NULL;
    c.a = a;
    c.d = d;
    if (root->kind != MG_NODE_MAP) {
        mg_mismatch(&c, root, "the top level", -1, "a mapping (meshgen, name, mesh, ...)", "");
        return NULL;
    }
    file = mg_strdup(a, file);
    c.s = mg_spec_new(a, file, mg_dirname(a, file), root->mark);

    /* A file of another format version is not judged by this one's rules:
     * one clear error instead of a list of "unknown key"s. */
    for (i = 0; i < root->n; i++) {
        if (strcmp(root->keys[i]->value, "meshgen") == 0) {
            const struct mg_node *ver = root->items[i];
            int64_t version;
            if (ver->kind == MG_NODE_SCALAR && mg_scalar_type(ver) == MG_ST_INT &&
                mg_parse_int64(ver->value, &version) && version != 1) {
                c.s->format = version < INT_MIN || version > INT_MAX ? -1 : (int)version;
                mg_error(d, "format-version", ver->mark,
                         "meshgen: found format version %s, expected 1 (the only version this "
                         "meshgen reads)",
                         mg_show(a, ver->value));
                return c.s;
            }
            break;
        }
    }

    mg_read_map(&c, root, "the top level", mg_top_keys, MG_TK_N, v);
    if (v[MG_TK_MESHGEN]) {
        int64_t version = 0;
        /* Any other integer has returned above: this is version 1. */
        if (mg_get_int(&c, v[MG_TK_MESHGEN], "meshgen", -1, &version))
            c.s->format = (int)version;
    }
    if (v[MG_TK_NAME]) {
        c.s->name_at = v[MG_TK_NAME]->mark;
        mg_get_string(&c, v[MG_TK_NAME], "name", -1, &c.s->name);
    }
    if (v[MG_TK_INVENTORY]) {
        c.s->inventory_at = v[MG_TK_INVENTORY]->mark;
        mg_get_string(&c, v[MG_TK_INVENTORY], "inventory", -1, &c.s->inventory);
    }
    if (v[MG_TK_MESH])
        mg_read_mesh(&c, v[MG_TK_MESH]);
    if (v[MG_TK_SHARDINGS])
        mg_read_shardings(&c, v[MG_TK_SHARDINGS]);
    return c.s;
}

/* ---- the --mesh string --------------------------------------------------------- */

/* One comma-separated item of a string, whitespace trimmed. */
struct mg_item {
    const char *text;
    size_t len;
    int col; /* 1-based offset of the trimmed item (of the raw item if empty) */
};

static struct mg_item mg_trim(const char *base, const char *b, const char *e)
{
    struct mg_item it;
    const char *start = b;

    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    it.text = b;
    it.len = (size_t)(e - b);
    it.col = (int)((it.len ? b : start) - base) + 1;
    return it;
}

/* Splits s at commas into at most cap items; returns the number of items
 * (which may exceed cap: the rest are counted, not stored). */
static size_t mg_split(const char *s, struct mg_item *items, size_t cap)
{
    const char *p = s;
    size_t n = 0;

    for (;;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (n < cap)
            items[n] = mg_trim(s, p, end);
        n++;
        if (!*end)
            return n;
        p = end + 1;
    }
}

struct mg_spec *mg_spec_from_string(struct mg_arena *a, struct mg_diags *d, const char *mesh,
                                    const char *axis_names, const char *name)
{
    struct mg_mark at = {"--mesh", 1, 1};
    struct mg_spec *s = mg_spec_new(a, "<command line>", ".", at);
    struct mg_item items[MG_MAX_AXES], names[MG_MAX_AXES];
    size_t n, n_names = 0, i, stored;
    int named = -1; /* unknown until the first non-empty item */

    s->format = 1;
    s->name = mg_strdup(a, name ? name : "mesh");
    if (!mesh)
        mesh = "";
    n = mg_split(mesh, items, MG_MAX_AXES);
    stored = n < MG_MAX_AXES ? n : MG_MAX_AXES;
    if (n > MG_MAX_AXES)
        mg_error(d, "axes-count", at, "found %zu axes in %s, expected at most %d", n,
                 mg_show(a, mesh), MG_MAX_AXES);

    for (i = 0; i < stored; i++) {
        const struct mg_item *it = &items[i];
        const char *colon = memchr(it->text, ':', it->len);
        struct mg_item size = *it;
        struct mg_mark m = {"--mesh", 1, it->col};
        const char *text, *shown = mg_show(a, mg_strndup(a, it->text, it->len));

        if (it->len == 0) {
            mg_error(d, "mesh-string", m,
                     "found an empty item, expected 'name:size' or 'size' (e.g. \"dp:2,tp:4\")");
            continue;
        }
        if (named < 0) {
            named = colon != NULL;
        } else if (named != (colon != NULL)) {
            mg_error(d, "mesh-string", m,
                     "found %s after %s items, expected all items named (\"dp:2,tp:4\") or all "
                     "positional (\"2,4\")",
                     shown, named ? "named" : "positional");
            continue;
        }
        s->axes[i].name_at = s->axes[i].size_at = m;
        if (colon) {
            struct mg_item axis = mg_trim(mesh, it->text, colon);
            size = mg_trim(mesh, colon + 1, it->text + it->len);
            s->axes[i].size_at.col = size.col;
            if (axis.len == 0)
                mg_error(d, "mesh-string", m, "found %s with no axis name, expected 'name:size'",
                         shown);
            else
                s->axes[i].name = mg_strndup(a, axis.text, axis.len);
        }
        m.col = size.col;
        text = mg_strndup(a, size.text, size.len);
        if (size.len == 0)
            mg_error(d, "mesh-string", m, "found %s with no size, expected 'name:size'", shown);
        else if (!mg_is_int_text(text))
            mg_error(d, "mesh-string", m, "found the size %s, expected an integer",
                     mg_show(a, text));
        else if (!mg_parse_int64(text, &s->axes[i].size))
            mg_error(d, "int-range", m,
                     "found the size %s, expected an integer from %" PRId64 " to %" PRId64,
                     mg_show(a, text), INT64_MIN, INT64_MAX);
    }

    if (named == 0) {
        if (!axis_names) {
            mg_error(d, "mesh-string", at,
                     "found positional sizes %s without axis names, expected \"name:size\" "
                     "items or axis names given with them",
                     mg_show(a, mesh));
        } else {
            n_names = mg_split(axis_names, names, MG_MAX_AXES);
            if (n_names != n)
                mg_error(d, "mesh-string", at,
                         "found %zu sizes and %zu axis names (%s), expected one name per size", n,
                         n_names, mg_show(a, axis_names));
            for (i = 0; i < stored && i < n_names; i++) {
                if (names[i].len == 0)
                    mg_error(d, "mesh-string", s->axes[i].size_at,
                             "found an empty axis name at position %zu of %s, expected a name",
                             i + 1, mg_show(a, axis_names));
                else
                    s->axes[i].name = mg_strndup(a, names[i].text, names[i].len);
                /* The names have no place in the --mesh string; an error about
                 * a name points at the size it goes with. */
                s->axes[i].name_at = s->axes[i].size_at;
            }
        }
    }
    if (named == 1 && axis_names)
        mg_error(d, "mesh-string", at,
                 "found axis names %s as well as named items, expected the names in one "
                 "place only",
                 mg_show(a, axis_names));
    s->n_axes = s->shape_n = (int)stored;
    return s;
}

/* ---- files ------------------------------------------------------------------------ */

char *mg_read_file(struct mg_arena *a, struct mg_diags *d, const char *path, struct mg_mark at,
                   size_t *len)
{
    struct stat st;
    char *buf = NULL, *out = NULL;
    size_t n = 0, cap;
    int fd;

    if (len)
        *len = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mg_error(d, "io", at, "cannot open %s: %s", mg_show_path(a, path), strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        mg_error(d, "io", at, "cannot stat %s: %s", mg_show_path(a, path), strerror(errno));
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        mg_error(d, "io", at, "found a directory at %s, expected a file", mg_show_path(a, path));
        goto done;
    }
    if (S_ISREG(st.st_mode) && st.st_size > (off_t)MG_MAX_INPUT) {
        mg_error(d, "input-too-large", at, "%s is %jd bytes, expected at most %u bytes (16 MiB)",
                 mg_show_path(a, path), (intmax_t)st.st_size, MG_MAX_INPUT);
        goto done;
    }
    /* Pipes and devices have no size: read up to one byte past the limit,
     * which tells a file at the limit from a larger one. A regular file gets
     * one spare byte so that the read hitting end-of-file needs no growth. */
    cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : (size_t)64 * 1024;
    buf = malloc(cap);
    if (!buf) {
        mg_error(d, "io", at, "cannot read %s: out of memory", mg_show_path(a, path));
        goto done;
    }
    for (;;) {
        ssize_t got;
        if (n == cap) {
            char *bigger;
            if (cap > MG_MAX_INPUT) {
                mg_error(d, "input-too-large", at,
                         "%s has more than %u bytes, expected at most %u bytes (16 MiB)",
                         mg_show_path(a, path), MG_MAX_INPUT, MG_MAX_INPUT);
                goto done;
            }
            cap = cap > MG_MAX_INPUT / 2 ? MG_MAX_INPUT + 1 : 2 * cap;
            bigger = realloc(buf, cap);
            if (!bigger) {
                mg_error(d, "io", at, "cannot read %s: out of memory", mg_show_path(a, path));
                goto done;
            }
            buf = bigger;
        }
        got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            mg_error(d, "io", at, "cannot read %s: %s", mg_show_path(a, path), strerror(errno));
            goto done;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    out = mg_strndup(a, buf, n);
    if (len)
        *len = n;
done:
    free(buf);
    close(fd);
    return out;
}
