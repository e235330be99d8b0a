/*
 * The mesh spec (docs/reference.md §1) as a typed struct mg_spec: from the node tree of
 * a YAML file, or from the --mesh string ("dp:2,tp:4" or "2,4" with axis
 * names).
 *
 * This stage judges structure, types and ranges only: which keys exist and
 * which are required, whether a value is an integer, a string, a boolean or a
 * list, whether an integer fits in 64 bits and whether a list fits the
 * fixed-size arrays of the model. Rules that relate several values (names
 * being C identifiers and unique, one -1 at most, list lengths agreeing,
 * sharding axes existing) belong to check.c, so every value is stored as
 * written, negative or zero sizes included. It knows nothing of libyaml (it
 * reads struct mg_node) nor of inventories. The scalar rules and the typed
 * readers it shares with the inventory file are in node.c.
 *
 * After an error the spec still holds safe values, never a NULL where a
 * string is required (a missing or mistyped name is ""), so later stages can
 * run and report their own findings without crashing.
 */
#include "cident.h"
#include "io.h"
#include "node.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Each sharding is a sizeable struct (MG_MAX_DIMS x MG_MAX_AXES names), so
 * the count is capped to keep a hostile file from exhausting memory. */
#define MG_MAX_SHARDINGS 4096

struct mg_spec_ctx {
    struct mg_arena *a;
    struct mg_diags *d;
    struct mg_spec *s;
};

/* ---- the mesh ------------------------------------------------------------------- */

/* A list with one entry per axis: checks that it is a sequence and fits
 * MG_MAX_AXES. Returns its length as written, 0 when it is no sequence. */
static int mg_axis_list(struct mg_spec_ctx *c, const struct mg_node *n, const char *path)
{
    if (n->kind != MG_NODE_SEQ) {
        mg_mismatch(c->d, n, path, -1, "a sequence with one entry per axis", "");
        return 0;
    }
    if (n->n > MG_MAX_AXES)
        mg_error(c->d, MG_CHK_AXES_COUNT, n->items[MG_MAX_AXES]->mark,
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
    MG_MK_SPLIT,
    MG_MK_CONTIGUOUS,
    MG_MK_N
};

/* Designated, so the table cannot drift from the enum. */
static const struct mg_key mg_mesh_keys[MG_MK_N] = {
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
    [MG_MK_SPLIT] = {"allow_split_physical_axes", 0},
    [MG_MK_CONTIGUOUS] = {"contiguous_submeshes", 0},
};

/* Which field of an axis the entries of a per-axis list fill. */
enum mg_axis_field { MG_AXIS_NAME, MG_AXIS_SIZE, MG_AXIS_DCN, MG_AXIS_TYPE };

/* One per-axis list (axes, shape, dcn or types): each entry read as the
 * field's type into axis i with its mark, for i < stored. Entries past that
 * are still read, into scratch, so that each one is judged. A value that is
 * in error leaves the field's default. Returns the length as written. */
static int mg_read_axis_list(struct mg_spec_ctx *c, const struct mg_node *list, const char *path,
                             enum mg_axis_field field, int stored)
{
    int n = mg_axis_list(c, list, path), i;

    for (i = 0; i < n; i++) {
        const struct mg_node *it = list->items[i];
        struct mg_spec_axis scratch, *ax = i < stored ? &c->s->axes[i] : &scratch;
        const char *name = "";
        int64_t v = 0;
        int type = MESHGEN_AXIS_EXPLICIT;

        switch (field) {
        case MG_AXIS_NAME:
            mg_get_string(c->d, it, path, i, &name);
            ax->name = name;
            ax->name_at = it->mark;
            break;
        case MG_AXIS_SIZE:
            mg_get_int(c->d, it, path, i, &v);
            ax->size = v;
            ax->size_at = it->mark;
            break;
        case MG_AXIS_DCN:
            mg_get_int(c->d, it, path, i, &v);
            ax->dcn = v;
            ax->dcn_at = it->mark;
            break;
        case MG_AXIS_TYPE:
            mg_get_enum(c->d, it, path, i, &mg_axis_type_words, &type);
            ax->type = type;
            ax->type_at = it->mark;
            break;
        }
    }
    return n;
}

/* The keys of `mesh` that hold one value each. */
static void mg_read_mesh_settings(struct mg_spec_ctx *c, const struct mg_node *const *v)
{
    struct mg_spec *s = c->s;

    if (v[MG_MK_MPMD]) {
        s->mpmd_at = v[MG_MK_MPMD]->mark;
        if (!mg_get_string(c->d, v[MG_MK_MPMD], "mesh.mpmd", -1, &s->mpmd))
            s->mpmd = NULL;
    }
    if (v[MG_MK_KIND]) {
        s->device_kind_at = v[MG_MK_KIND]->mark;
        mg_get_enum(c->d, v[MG_MK_KIND], "mesh.device_kind", -1, &mg_kind_words, &s->device_kind);
    }
    if (v[MG_MK_ORDER]) {
        s->order_at = v[MG_MK_ORDER]->mark;
        s->has_order = 1;
        mg_get_enum(c->d, v[MG_MK_ORDER], "mesh.order", -1, &mg_order_words, &s->order);
    }
    if (v[MG_MK_PROCESSES])
        mg_get_enum(c->d, v[MG_MK_PROCESSES], "mesh.processes", -1, &mg_process_words,
                    &s->processes);
    if (v[MG_MK_DEVICES]) {
        s->devices_at = v[MG_MK_DEVICES]->mark;
        s->has_devices = 1;
        mg_get_int(c->d, v[MG_MK_DEVICES], "mesh.devices", -1, &s->devices);
    }
    if (v[MG_MK_GRANULE]) {
        s->has_granule = 1;
        mg_get_enum(c->d, v[MG_MK_GRANULE], "mesh.granule", -1, &mg_granule_words, &s->granule);
    }
    if (v[MG_MK_SORT])
        mg_get_bool(c->d, v[MG_MK_SORT], "mesh.sort_granules", &s->sort_granules);
    if (v[MG_MK_SPLIT])
        mg_get_bool(c->d, v[MG_MK_SPLIT], "mesh.allow_split_physical_axes",
                    &s->allow_split_physical_axes);
    if (v[MG_MK_CONTIGUOUS]) {
        s->contiguous_at = v[MG_MK_CONTIGUOUS]->mark;
        mg_get_bool(c->d, v[MG_MK_CONTIGUOUS], "mesh.contiguous_submeshes",
                    &s->contiguous_submeshes);
    }
}

static void mg_read_mesh(struct mg_spec_ctx *c, const struct mg_node *mesh)
{
    struct mg_spec *s = c->s;
    const struct mg_node *v[MG_MK_N];
    int i, n;

    /* What the file leaves out is located at the mapping that lacks it. */
    s->mesh_at = s->axes_at = s->shape_at = s->dcn_at = s->types_at = mesh->mark;
    s->mpmd_at = s->device_kind_at = s->devices_at = mesh->mark;
    s->order_at = s->contiguous_at = mesh->mark;
    if (mesh->kind != MG_NODE_MAP) {
        mg_mismatch(c->d, mesh, "mesh", -1, "a mapping (axes, shape, ...)", "");
        return;
    }
    mg_read_map(c->d, mesh, "mesh", mg_mesh_keys, MG_MK_N, v);

    /* Axes first, whatever the key order: the per-axis lists below store
     * values for these axes only, and keep their own lengths for check.c. */
    if (v[MG_MK_AXES]) {
        s->axes_at = v[MG_MK_AXES]->mark;
        n = mg_read_axis_list(c, v[MG_MK_AXES], "mesh.axes", MG_AXIS_NAME, MG_MAX_AXES);
        s->n_axes = n < MG_MAX_AXES ? n : MG_MAX_AXES;
    }
    /* An axis whose size, dcn or type is missing is located at its name. */
    for (i = 0; i < s->n_axes; i++)
        s->axes[i].size_at = s->axes[i].dcn_at = s->axes[i].type_at = s->axes[i].name_at;
    if (v[MG_MK_SHAPE]) {
        s->shape_at = v[MG_MK_SHAPE]->mark;
        s->shape_n = mg_read_axis_list(c, v[MG_MK_SHAPE], "mesh.shape", MG_AXIS_SIZE, s->n_axes);
    }
    if (v[MG_MK_DCN]) {
        s->has_dcn = 1;
        s->dcn_at = v[MG_MK_DCN]->mark;
        s->dcn_n = mg_read_axis_list(c, v[MG_MK_DCN], "mesh.dcn", MG_AXIS_DCN, s->n_axes);
    }
    if (v[MG_MK_TYPES]) {
        s->has_types = 1;
        s->types_at = v[MG_MK_TYPES]->mark;
        s->types_n = mg_read_axis_list(c, v[MG_MK_TYPES], "mesh.types", MG_AXIS_TYPE, s->n_axes);
    }
    mg_read_mesh_settings(c, v);
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
        mg_mismatch(c->d, n, path, idx, expected, "");
        return;
    }
    path = mg_where(c->a, path, idx);
    if (n->n > MG_MAX_AXES)
        mg_error(c->d, MG_CHK_DIMS_COUNT, n->items[MG_MAX_AXES]->mark,
                 "%s: found %zu axes for one dimension, expected at most %d", path, n->n,
                 MG_MAX_AXES);
    for (k = 0; k < n->n; k++) {
        const char *axis;
        if (mg_get_string(c->d, n->items[k], path, (long)k, &axis) && dim->n_axes < MG_MAX_AXES) {
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
        mg_mismatch(c->d, n, path, -1, "a sequence with one entry per array dimension", "");
        return;
    }
    if (n->n > MG_MAX_DIMS)
        mg_error(c->d, MG_CHK_DIMS_COUNT, n->items[MG_MAX_DIMS]->mark,
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
        mg_mismatch(c->d, n, path, -1, "a sequence of integers", "");
        return;
    }
    sh->has_shape = 1;
    if (n->n > MG_MAX_DIMS)
        mg_error(c->d, MG_CHK_DIMS_COUNT, n->items[MG_MAX_DIMS]->mark,
                 "%s: found %zu dimensions, expected at most %d", path, n->n, MG_MAX_DIMS);
    for (j = 0; j < n->n; j++) {
        int64_t v = 0;
        mg_get_int(c->d, n->items[j], path, (long)j, &v);
        if (j < MG_MAX_DIMS) {
            sh->shape[j] = v;
            sh->shape_at[j] = n->items[j]->mark;
        }
    }
    sh->shape_n = n->n < MG_MAX_DIMS ? (int)n->n : MG_MAX_DIMS;
}

static const struct mg_key mg_sharding_keys[] = {{"spec", 1}, {"shape", 0}};

static void mg_read_sharding(struct mg_spec_ctx *c, struct mg_spec_sharding *sh,
                             const struct mg_node *key, const struct mg_node *val)
{
    /* "shardings.embed" reads well; a name that is no identifier is quoted. */
    const char *path = mg_is_c_identifier(key->value)
                           ? mg_printf(c->a, "shardings.%s", key->value)
                           : mg_printf(c->a, "shardings[%s]", mg_show(c->a, key->value));
    const struct mg_node *v[MG_COUNT(mg_sharding_keys)];

    mg_want(c->d, key, MG_ST_STR, "shardings", -1, "a sharding name (a string)");
    sh->name = key->value;
    sh->at = key->mark;
    sh->spec_at = sh->shape_list_at = val->mark;
    if (val->kind == MG_NODE_SEQ) {
        mg_read_sharding_spec(c, sh, val, path);
    } else if (val->kind == MG_NODE_MAP) {
        mg_read_map(c->d, val, path, mg_sharding_keys, MG_COUNT(mg_sharding_keys), v);
        if (v[0])
            mg_read_sharding_spec(c, sh, v[0], mg_printf(c->a, "%s.spec", path));
        if (v[1])
            mg_read_sharding_shape(c, sh, v[1], mg_printf(c->a, "%s.shape", path));
    } else {
        mg_mismatch(c->d, val, path, -1,
                    "a sequence (the spec) or a mapping with 'spec' and 'shape'", "");
    }
}

static void mg_read_shardings(struct mg_spec_ctx *c, const struct mg_node *map)
{
    struct mg_spec *s = c->s;
    const unsigned char *keep;
    size_t i, count = 0;

    if (map->kind != MG_NODE_MAP) {
        mg_mismatch(c->d, map, "shardings", -1, "a mapping from sharding names to specs", "");
        return;
    }
    keep = mg_unique_keys(c->d, map, "shardings");
    for (i = 0; i < map->n; i++)
        count += keep[i];
    s->shardings = mg_alloc_array(c->a, count < MG_MAX_SHARDINGS ? count : MG_MAX_SHARDINGS,
                                  sizeof *s->shardings);
    for (i = 0; i < map->n; i++) {
        if (!keep[i])
            continue;
        if (s->n_shardings == MG_MAX_SHARDINGS) {
            mg_error(c->d, MG_CHK_SHARDINGS_COUNT, map->keys[i]->mark,
                     "shardings: found %zu shardings, expected at most %d", count,
                     MG_MAX_SHARDINGS);
            break;
        }
        mg_read_sharding(c, &s->shardings[s->n_shardings++], map->keys[i], map->items[i]);
    }
}

/* ---- the file -------------------------------------------------------------------- */

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
    s->order_at = s->contiguous_at = at;
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

static const struct mg_key mg_top_keys[MG_TK_N] = {
    [MG_TK_MESHGEN] = {"meshgen", 1},     [MG_TK_NAME] = {"name", 1},
    [MG_TK_INVENTORY] = {"inventory", 0}, [MG_TK_MESH] = {"mesh", 1},
    [MG_TK_SHARDINGS] = {"shardings", 0},
};

struct mg_spec *mg_spec_from_node(struct mg_arena *a, struct mg_diags *d, const char *file,
                                  const struct mg_node *root)
{
    struct mg_spec_ctx c;
    const struct mg_node *v[MG_TK_N];
    int64_t version;

    /* The loader has already said why there is no tree. */
    if (!root)
        return NULL;
    c.a = a;
    c.d = d;
    if (root->kind != MG_NODE_MAP) {
        mg_mismatch(d, root, "the top level", -1, "a mapping (meshgen, name, mesh, ...)", "");
        return NULL;
    }
    file = mg_strdup(a, file);
    c.s = mg_spec_new(a, file, mg_path_dirname(a, file), root->mark);

    if (mg_other_version(d, root, "meshgen", &version)) {
        c.s->format = version < INT_MIN || version > INT_MAX ? -1 : (int)version;
        return c.s;
    }

    mg_read_map(d, root, "the top level", mg_top_keys, MG_TK_N, v);
    if (v[MG_TK_MESHGEN]) {
        version = 0;
        /* Any other integer has returned above: this is version 1. */
        if (mg_get_int(d, v[MG_TK_MESHGEN], "meshgen", -1, &version))
            c.s->format = (int)version;
    }
    if (v[MG_TK_NAME]) {
        c.s->name_at = v[MG_TK_NAME]->mark;
        mg_get_string(d, v[MG_TK_NAME], "name", -1, &c.s->name);
    }
    if (v[MG_TK_INVENTORY]) {
        c.s->inventory_at = v[MG_TK_INVENTORY]->mark;
        mg_get_string(d, v[MG_TK_INVENTORY], "inventory", -1, &c.s->inventory);
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
    int col; /* 1-based column of the trimmed item (of the raw item if empty) */
};

/* The 1-based column of p in base: Unicode code points, as libyaml counts
 * a spec's columns (docs/reference.md, "Output formats"). */
static int mg_column(const char *base, const char *p)
{
    int col = 1;

    for (; base < p; base++)
        col += ((unsigned char)*base & 0xC0) != 0x80;
    return col;
}

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
    it.col = mg_column(base, it.len ? b : start);
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

/* One non-empty item, "name:size" or "size", into axis ax. shown is the
 * item as messages quote it. */
static void mg_string_item(struct mg_arena *a, struct mg_diags *d, struct mg_spec_axis *ax,
                           const char *mesh, const struct mg_item *it, const char *colon,
                           const char *shown)
{
    struct mg_item size = *it;
    struct mg_mark m = {"--mesh", 1, it->col};
    const char *text;

    ax->name_at = ax->size_at = m;
    if (colon) {
        struct mg_item axis = mg_trim(mesh, it->text, colon);
        size = mg_trim(mesh, colon + 1, it->text + it->len);
        ax->size_at.col = size.col;
        if (axis.len == 0)
            mg_error(d, MG_CHK_MESH_STRING, m, "found %s with no axis name, expected 'name:size'",
                     shown);
        else
            ax->name = mg_strndup(a, axis.text, axis.len);
    }
    m.col = size.col;
    text = mg_strndup(a, size.text, size.len);
    if (size.len == 0)
        mg_error(d, MG_CHK_MESH_STRING, m, "found %s with no size, expected 'name:size'", shown);
    else if (!mg_is_int_text(text))
        mg_error(d, MG_CHK_MESH_STRING, m, "found the size %s, expected an integer",
                 mg_show(a, text));
    else if (!mg_parse_int64(text, &ax->size))
        mg_error(d, MG_CHK_INT_RANGE, m,
                 "found the size %s, expected an integer from %" PRId64 " to %" PRId64,
                 mg_show(a, text), INT64_MIN, INT64_MAX);
}

/* The stored items of the string into the spec's axes. They are all named
 * ("dp:2,tp:4") or all positional ("2,4"): returns 1 or 0 for which, the
 * first non-empty item deciding, or -1 when every item is empty. */
static int mg_string_items(struct mg_arena *a, struct mg_diags *d, struct mg_spec *s,
                           const char *mesh, const struct mg_item *items, size_t stored)
{
    int named = -1;
    size_t i;

    for (i = 0; i < stored; i++) {
        const struct mg_item *it = &items[i];
        const char *colon = memchr(it->text, ':', it->len);
        struct mg_mark m = {"--mesh", 1, it->col};
        const char *shown = mg_show(a, mg_strndup(a, it->text, it->len));

        if (it->len == 0) {
            mg_error(d, MG_CHK_MESH_STRING, m,
                     "found an empty item, expected 'name:size' or 'size' (e.g. \"dp:2,tp:4\")");
            continue;
        }
        if (named < 0) {
            named = colon != NULL;
        } else if (named != (colon != NULL)) {
            mg_error(d, MG_CHK_MESH_STRING, m,
                     "found %s after %s items, expected all items named (\"dp:2,tp:4\") or all "
                     "positional (\"2,4\")",
                     shown, named ? "named" : "positional");
            continue;
        }
        mg_string_item(a, d, &s->axes[i], mesh, it, colon, shown);
    }
    return named;
}

/* The names of positional sizes, from --axes: one per size. */
static void mg_string_names(struct mg_arena *a, struct mg_diags *d, struct mg_spec *s,
                            const char *axis_names, size_t n, size_t stored)
{
    struct mg_mark at = {"--mesh", 1, 1};
    struct mg_item names[MG_MAX_AXES];
    size_t n_names = mg_split(axis_names, names, MG_MAX_AXES), i;

    if (n_names != n)
        mg_error(d, MG_CHK_MESH_STRING, at,
                 "found %zu sizes and %zu axis names (%s), expected one name per size", n, n_names,
                 mg_show(a, axis_names));
    for (i = 0; i < stored && i < n_names; i++) {
        if (names[i].len == 0)
            mg_error(d, MG_CHK_MESH_STRING, s->axes[i].size_at,
                     "found an empty axis name at position %zu of %s, expected a name", i + 1,
                     mg_show(a, axis_names));
        else
            s->axes[i].name = mg_strndup(a, names[i].text, names[i].len);
        /* The names have no place in the --mesh string; an error about a
         * name points at the size it goes with. */
        s->axes[i].name_at = s->axes[i].size_at;
    }
}

struct mg_spec *mg_spec_from_string(struct mg_arena *a, struct mg_diags *d, const char *mesh,
                                    const char *axis_names, const char *name)
{
    struct mg_mark at = {"--mesh", 1, 1};
    struct mg_spec *s = mg_spec_new(a, "<command line>", ".", at);
    struct mg_item items[MG_MAX_AXES];
    size_t n, stored;
    int named;

    s->format = 1;
    s->name = mg_strdup(a, name ? name : "mesh");
    if (!mesh)
        mesh = "";
    n = mg_split(mesh, items, MG_MAX_AXES);
    stored = n < MG_MAX_AXES ? n : MG_MAX_AXES;
    if (n > MG_MAX_AXES)
        mg_error(d, MG_CHK_AXES_COUNT, at, "found %zu axes in %s, expected at most %d", n,
                 mg_show(a, mesh), MG_MAX_AXES);
    named = mg_string_items(a, d, s, mesh, items, stored);
    if (named == 0 && !axis_names)
        mg_error(d, MG_CHK_MESH_STRING, at,
                 "found positional sizes %s without axis names, expected \"name:size\" items or "
                 "axis names given with them",
                 mg_show(a, mesh));
    else if (named == 0)
        mg_string_names(a, d, s, axis_names, n, stored);
    if (named == 1 && axis_names)
        mg_error(d, MG_CHK_MESH_STRING, at,
                 "found axis names %s as well as named items, expected the names in one "
                 "place only",
                 mg_show(a, axis_names));
    s->n_axes = s->shape_n = (int)stored;
    return s;
}
