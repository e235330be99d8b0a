/*
 * Groups and MPMD stages: the devices that share a position on some axes
 * (meshgen_axes_mask, meshgen_group, meshgen_group_index,
 * meshgen_group_count), every group of a mask at once
 * (meshgen_axis_groups), the per-device cursor (meshgen_cursor_init), and
 * the devices of one pipeline stage (meshgen_stage_count, meshgen_stage_of,
 * meshgen_stage_devices): the "groups" and "MPMD stages" sections of
 * <meshgen/meshgen.h>.
 *
 * A group is listed by walking the mesh's flat index, never by dividing per
 * member: one axis by its stride, several by the runs of a `struct span`,
 * every group of a mask by an odometer over the runs in the output's order.
 * It uses the coordinates of lookup.c and knows nothing of hosts,
 * processes, shardings or launchers.
 */
#include <string.h>

#include "internal.h"

/* A mask of exactly one axis: a power of two. */
#define ONE_AXIS(mask) ((mask) != 0 && ((mask) & ((mask)-1u)) == 0)

/* The general paths of the group lookups stay out of line, so that the
 * one-axis paths, the usual ones, keep a small frame. */
#if defined(__GNUC__) || defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

/* The product of the sizes of the axes in mask: the count of index_over(). */
static int32_t count_over(const struct meshgen_mesh *mesh, uint32_t mask)
{
    int64_t count = 1;
    int i;

    for (i = 0; i < mesh->n_axes; i++)
        if (mask & (1u << i))
            count *= mesh->axes[i].size;
    return (int32_t)count;
}

/*
 * A flat index seen through an axis mask. The axes fall into runs of
 * consecutive axes that are all in the mask or all outside it; the axes of
 * a run form one mixed-radix digit whose base is the product of their
 * sizes, so a run costs one division however many axes it holds (the
 * outermost none). The positions of the index's group are those that differ
 * from it only on the mask's runs: `first` plus multiples of each such
 * run's stride, walked by adding strides, never by dividing per member.
 */
struct span {
    uint32_t first;                  /* the index with its digits on the mask's axes set to 0 */
    uint32_t count;                  /* positions in the group: the product of the mask's sizes */
    uint32_t group;                  /* the digits outside the mask, read as one row-major number */
    uint32_t rank;                   /* the digits inside it, likewise */
    int n;                           /* runs of the mask's axes, innermost first */
    uint32_t size[MESHGEN_MAX_AXES]; /* product of the sizes of a run's axes */
    uint32_t stride[MESHGEN_MAX_AXES]; /* product of the sizes of the axes after it */
};

/* Accounts for one run whose digit is `digit` and whose base is `base`,
 * `below` being the product of the sizes of the axes after it. */
static inline void add_run(struct span *sp, uint32_t in, uint32_t digit, uint32_t base,
                           uint32_t below, uint32_t *group_scale)
{
    if (in) {
        sp->rank += digit * sp->count;
        sp->count *= base;
        sp->first -= digit * below;
        sp->size[sp->n] = base;
        sp->stride[sp->n] = below;
        sp->n++;
    } else {
        sp->group += digit * *group_scale;
        *group_scale *= base;
    }
}

/*
 * Splits flat (a valid index: below n_devices) over mask, innermost axis
 * first. Every product stays at or below n_devices, which the sizes of a
 * checked mesh multiply to, so 32 bits hold all of them; a mesh whose sizes
 * say otherwise is CORRUPT, and then no position in the span lies past its
 * table.
 */
static int split(const struct meshgen_mesh *mesh, uint32_t flat, uint32_t mask, struct span *sp)
{
    const uint64_t limit = (uint64_t)mesh->n_devices;
    uint64_t base = 1, below = 1;
    uint32_t in = (mask >> (mesh->n_axes - 1)) & 1u, group_scale = 1;
    int i;

    sp->first = flat;
    sp->count = 1;
    sp->group = 0;
    sp->rank = 0;
    sp->n = 0;
    for (i = mesh->n_axes - 1; i >= 0; i--) {
        uint32_t size = axis_size(&mesh->axes[i]);

        if (size == 0)
            return MESHGEN_ERR_CORRUPT;
        if (((mask >> i) & 1u) != in) {
            uint32_t digit = flat;

            flat = divide(&digit, (uint32_t)base);
            add_run(sp, in, digit, (uint32_t)base, (uint32_t)below, &group_scale);
            below *= base;
            base = 1;
            in ^= 1u;
        }
        base *= size;
        if (base * below > limit)
            return MESHGEN_ERR_CORRUPT;
    }
    /* What remains is the outermost run's digit, below its base in a
     * checked mesh. */
    if (flat >= base)
        return MESHGEN_ERR_CORRUPT;
    add_run(sp, in, flat, (uint32_t)base, (uint32_t)below, &group_scale);
    return MESHGEN_OK;
}

/* Moves *at to the first member of the span's next run (the odometer over
 * runs 1..n-1, innermost fastest); 0 after the last run. */
static inline int span_next_run(const struct span *sp, size_t *pos, size_t *at)
{
    int i;

    for (i = 1; i < sp->n; i++) {
        *at += sp->stride[i];
        if (++pos[i] < sp->size[i])
            return 1;
        *at -= (size_t)sp->size[i] * sp->stride[i];
        pos[i] = 0;
    }
    return 0;
}

/* list_devices for a mesh whose flat index is the device id. */
static void list_flat(const struct span *sp, int32_t *out)
{
    size_t pos[MESHGEN_MAX_AXES], at = sp->first, n0, s0, j;
    int i;

    if (sp->n == 0) {
        out[0] = (int32_t)at;
        return;
    }
    n0 = sp->size[0];
    s0 = sp->stride[0];
    for (i = 1; i < sp->n; i++)
        pos[i] = 0;
    for (;;) {
        for (j = 0; j < n0; j++)
            out[j] = (int32_t)(at + j * s0);
        out += n0;
        if (!span_next_run(sp, pos, &at))
            return;
    }
}

/*
 * Writes the devices of a span's group in mesh order: its runs walked as an
 * odometer, innermost fastest. Each member costs a read and a write.
 */
static void list_devices(const struct meshgen_mesh *mesh, const struct span *sp, int32_t *out)
{
    const int32_t *table = mesh->mesh_devices;
    size_t pos[MESHGEN_MAX_AXES], at = sp->first, n0, s0, j;
    int i;

    if (table == NULL) {
        list_flat(sp, out);
        return;
    }
    if (sp->n == 0) {
        out[0] = table[at];
        return;
    }
    n0 = sp->size[0];
    s0 = sp->stride[0];
    for (i = 1; i < sp->n; i++)
        pos[i] = 0;
    for (;;) {
        for (j = 0; j < n0; j++)
            out[j] = table[at + j * s0];
        out += n0;
        if (!span_next_run(sp, pos, &at))
            return;
    }
}

/* ---- groups ---------------------------------------------------------------------- */

int meshgen_axes_mask(const struct meshgen_mesh *mesh, const char *names)
{
    int rc = mesh_usable(mesh);
    uint32_t mask = 0;
    const char *p;

    if (rc != MESHGEN_OK)
        return rc;
    if (names == NULL)
        return MESHGEN_ERR_NULL;
    if (names[0] == '\0')
        return 0;
    /* Each comma-separated token must be a whole axis name; an empty token
     * ("dp,", ",tp", "dp,,tp") matches none, as a checked mesh has no empty
     * names. */
    p = names;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        int i;

        for (i = 0; i < mesh->n_axes; i++) {
            const char *name = mesh->axes[i].name;

            /* strncmp stops at a shorter name's NUL, so name[len] is in bounds. */
            if (strncmp(name, p, len) == 0 && name[len] == '\0')
                break;
        }
        if (i == mesh->n_axes)
            return MESHGEN_ERR_NO_AXIS;
        mask |= 1u << i;
        if (end == NULL)
            return (int)mask;
        p = end + 1;
    }
}

/* Validates the mesh, device and mask shared by the group functions, and
 * finds the device's flat index. */
static inline int group_args(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask,
                             int32_t *flat)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axes_mask & ~ALL_AXES(mesh->n_axes))
        return MESHGEN_ERR_RANGE;
    return flat_of(mesh, device, flat);
}

/*
 * One axis, the usual mask: its size, and its stride (the product of the
 * sizes of the axes after it). The position of flat on the axis is then
 * flat / stride % size, and its group the positions of the same remainder
 * and quotient by stride * size. The outermost axis's stride is n_devices /
 * size in a checked mesh: one division (a shift, for a power of two)
 * instead of a chain of multiplications over every other axis, which costs
 * a pipeline-parallel (pp) group a third of its time. Otherwise, as in
 * split(), the products stay at or below n_devices or the mesh is CORRUPT;
 * either way the callers bound what they read by n_devices.
 */
static inline int axis_stride(const struct meshgen_mesh *mesh, int axis, uint32_t *size,
                              uint32_t *stride)
{
    const uint64_t limit = (uint64_t)mesh->n_devices;
    uint64_t product = 1;
    int i;

    *size = (uint32_t)mesh->axes[axis].size;
    if (axis == 0) {
        uint32_t rest = (uint32_t)limit;

        if (*size == 0 || *size > limit)
            return MESHGEN_ERR_CORRUPT;
        *stride = divide(&rest, *size);
        return MESHGEN_OK;
    }
    /* A size below 1 read as unsigned is 0, which the last test catches,
     * or above INT32_MAX, which the loop's does. */
    for (i = mesh->n_axes - 1; i > axis; i--) {
        product *= (uint32_t)mesh->axes[i].size;
        if (product > limit)
            return MESHGEN_ERR_CORRUPT;
    }
    *stride = (uint32_t)product;
    product *= *size;
    if (product > limit || product == 0)
        return MESHGEN_ERR_CORRUPT;
    return MESHGEN_OK;
}

/* The group of flat along a mask of several axes, or of none. */
static NOINLINE int group_of_runs(const struct meshgen_mesh *mesh, uint32_t flat,
                                  uint32_t axes_mask, int32_t *members, int cap)
{
    struct span sp;
    int rc = split(mesh, flat, axes_mask, &sp);

    if (rc != MESHGEN_OK)
        return rc;
    rc = output_wanted(members, cap, (int32_t)sp.count);
    if (rc < 0)
        return rc;
    if (rc == 1)
        list_devices(mesh, &sp, members);
    return (int32_t)sp.count;
}

int meshgen_group(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask, int32_t *members,
                  int cap)
{
    const int32_t *src;
    uint32_t size, stride, low, position, first;
    size_t j;
    int32_t flat;
    int axis, rc = group_args(mesh, device, axes_mask, &flat);

    if (rc != MESHGEN_OK)
        return rc;
    if (!ONE_AXIS(axes_mask))
        return group_of_runs(mesh, (uint32_t)flat, axes_mask, members, cap);
    axis = (int)CTZ32(axes_mask);
    rc = axis_stride(mesh, axis, &size, &stride);
    if (rc != MESHGEN_OK)
        return rc;
    rc = output_wanted(members, cap, (int32_t)size);
    if (rc != 1)
        return rc < 0 ? rc : (int)size;
    low = (uint32_t)flat;
    position = divide(&low, stride);
    /* The first axis's digit is the whole quotient, below its size in a
     * checked mesh: a comparison instead of the division by size that the
     * other axes need. */
    if (axis > 0)
        divide(&position, size);
    else if (position >= size)
        return MESHGEN_ERR_CORRUPT;
    first = (uint32_t)flat - position * stride;
    /* The last member lies inside the table in a checked mesh; a mesh whose
     * sizes do not divide n_devices is caught here. */
    if ((uint64_t)first + (uint64_t)(size - 1) * stride >= (uint64_t)mesh->n_devices)
        return MESHGEN_ERR_CORRUPT;
    /* The innermost axis's group is contiguous: a loop the compiler can
     * turn into a block copy. */
    if (mesh->mesh_devices == NULL) {
        for (j = 0; j < size; j++)
            members[j] = (int32_t)(first + j * (size_t)stride);
        return (int)size;
    }
    src = &mesh->mesh_devices[first];
    if (stride == 1) {
        for (j = 0; j < size; j++)
            members[j] = src[j];
    } else {
        for (j = 0; j < size; j++)
            members[j] = src[j * (size_t)stride];
    }
    return (int)size;
}

/* The group number and rank of flat along a mask of several axes, or of
 * none. */
static NOINLINE int group_index_of_runs(const struct meshgen_mesh *mesh, uint32_t flat,
                                        uint32_t axes_mask, int32_t *rank)
{
    struct span sp;
    int rc = split(mesh, flat, axes_mask, &sp);

    if (rc != MESHGEN_OK)
        return rc;
    if (rank != NULL)
        *rank = (int32_t)sp.rank;
    return (int32_t)sp.group;
}

int meshgen_group_index(const struct meshgen_mesh *mesh, int device, uint32_t axes_mask,
                        int32_t *rank)
{
    uint32_t size, stride, low, high, position;
    int32_t flat;
    int rc = group_args(mesh, device, axes_mask, &flat);

    if (rc != MESHGEN_OK)
        return rc;
    if (!ONE_AXIS(axes_mask))
        return group_index_of_runs(mesh, (uint32_t)flat, axes_mask, rank);
    rc = axis_stride(mesh, (int)CTZ32(axes_mask), &size, &stride);
    if (rc != MESHGEN_OK)
        return rc;
    /* flat = (high * size + position) * stride + low: the group is
     * high * stride + low, the rank the position. */
    low = (uint32_t)flat;
    position = divide(&low, stride);
    high = divide(&position, size);
    if (rank != NULL)
        *rank = (int32_t)position;
    return (int32_t)(high * stride + low);
}

int meshgen_group_count(const struct meshgen_mesh *mesh, uint32_t axes_mask)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axes_mask & ~ALL_AXES(mesh->n_axes))
        return MESHGEN_ERR_RANGE;
    return count_over(mesh, ALL_AXES(mesh->n_axes) & ~axes_mask);
}

/* ---- every group at once, and the per-device cursor ---------------------------------- */

/*
 * The runs of a mask over the whole mesh: consecutive axes all inside it or
 * all outside it, size-1 axes left out (their digit is always 0, so they
 * belong to either side), innermost first, each with the product of its
 * sizes (base) and of the sizes after it (stride).
 */
struct runs {
    int n;
    uint32_t in[MESHGEN_MAX_AXES];
    uint32_t base[MESHGEN_MAX_AXES];
    uint32_t stride[MESHGEN_MAX_AXES];
};

/*
 * Splits the mesh into the runs of mask. The sizes must be at least 1 and
 * multiply to exactly n_devices, else MESHGEN_ERR_CORRUPT: both callers
 * then reach every flat index below n_devices and none past it, which is
 * what keeps them inside mesh_devices (and a device's flat index below 2^31)
 * on a mesh that was never checked.
 */
static int mask_runs(const struct meshgen_mesh *mesh, uint32_t mask, struct runs *r)
{
    const uint64_t limit = (uint64_t)mesh->n_devices;
    uint64_t product = 1;
    int i;

    r->n = 0;
    if (mesh->n_devices < 1)
        return MESHGEN_ERR_CORRUPT;
    for (i = mesh->n_axes - 1; i >= 0; i--) {
        uint32_t size = axis_size(&mesh->axes[i]), in = (mask >> i) & 1u;

        if (size == 0 || product * size > limit)
            return MESHGEN_ERR_CORRUPT;
        if (size == 1)
            continue;
        if (r->n == 0 || r->in[r->n - 1] != in) {
            r->in[r->n] = in;
            r->base[r->n] = 1;
            r->stride[r->n] = (uint32_t)product;
            r->n++;
        }
        r->base[r->n - 1] *= size;
        product *= size;
    }
    return product == limit ? MESHGEN_OK : MESHGEN_ERR_CORRUPT;
}

/* One level of the walk below: a run, the step it makes in the mesh's flat
 * index (src) and in the output (dst). */
struct level {
    size_t base, src, dst;
};

/*
 * Where the mesh has no table the ids are computed, and writing them is
 * then bound by the stores, not by their arithmetic: GCC's and Clang's
 * vector extension makes four ids one 16-byte store (SSE2, NEON) where the
 * machine has one, and four plain stores where it does not. Other
 * compilers store one id at a time.
 */
#if defined(__GNUC__) || defined(__clang__)
#define IDS4 1
typedef uint32_t ids4 __attribute__((vector_size(16)));
#endif

/* out[j] = v + j * step for j < n. */
static void fill_arith(int32_t *out, size_t n, uint32_t v, uint32_t step)
{
    size_t j = 0;

#ifdef IDS4
    ids4 x = {v, v + step, v + 2 * step, v + 3 * step};
    const ids4 by = {4 * step, 4 * step, 4 * step, 4 * step};

    for (; j + 4 <= n; j += 4, x += by)
        memcpy(out + j, &x, sizeof x);
#endif
    for (; j < n; j++)
        out[j] = (int32_t)(v + (uint32_t)j * step);
}

/* out[j] = v + offset[j] for j < n. */
static void fill_offsets(int32_t *out, size_t n, uint32_t v, const uint32_t *offset)
{
    size_t j = 0;

#ifdef IDS4
    const ids4 base = {v, v, v, v};

    for (; j + 4 <= n; j += 4) {
        ids4 x;

        memcpy(&x, offset + j, sizeof x);
        x += base;
        memcpy(out + j, &x, sizeof x);
    }
#endif
    for (; j < n; j++)
        out[j] = (int32_t)(v + offset[j]);
}

/* Rows shorter than SHORT_ROW ids are written through a template of up to
 * TEMPLATE ids (struct walk). */
enum { SHORT_ROW = 16, TEMPLATE = 64 };

/* The side of a transposed tile (walk_tiles), in ids. */
#ifndef MESHGEN_TILE
#define MESHGEN_TILE 16
#endif

/*
 * The last two levels of the walk, from a flat index `from` to out: for a
 * in na, for b in nb, the next id is that of flat index from + a * sa +
 * b * sb. Worked out once per call of meshgen_axis_groups, then run at
 * every step of its odometer.
 *
 * Rows shorter than SHORT_ROW ids (the groups of a short axis, such as a
 * pipeline's 4 stages) would cost more in a loop's control per row than in
 * their stores, so the offsets of `rows` whole rows (`len` ids, at most
 * TEMPLATE) are worked out here, and a block of rows is one long loop of an
 * add (and a read, with a table) and a store per id.
 */
struct walk {
    const int32_t *table; /* the mesh's mesh_devices; NULL: the id is the flat index */
    size_t na, sa, nb, sb;
    size_t rows, len; /* rows per block of the template, and its ids; 0 for long rows */
    uint32_t offset[TEMPLATE];
};

static void walk_init(struct walk *w, const int32_t *table, const struct level *outer,
                      const struct level *inner)
{
    size_t j;

    w->table = table;
    w->na = outer->base;
    w->sa = outer->src;
    w->nb = inner->base;
    w->sb = inner->src;
    w->rows = 0;
    w->len = 0;
    if (w->nb >= SHORT_ROW || w->na == 1)
        return;
    w->rows = TEMPLATE / w->nb < w->na ? TEMPLATE / w->nb : w->na;
    w->len = w->rows * w->nb;
    for (j = 0; j < w->len; j++)
        w->offset[j] = (uint32_t)(j / w->nb * w->sa + j % w->nb * w->sb);
}

/* Rows through the template: whole blocks, then the rows left over, which
 * the start of the template covers (it is row-major). */
static void walk_short(const struct walk *w, uint32_t from, int32_t *out)
{
    size_t a, j, left;

    for (a = 0; a + w->rows <= w->na; a += w->rows, out += w->len) {
        uint32_t v = from + (uint32_t)(a * w->sa);

        if (w->table == NULL)
            fill_offsets(out, w->len, v, w->offset);
        else
            for (j = 0; j < w->len; j++)
                out[j] = w->table[v + w->offset[j]];
    }
    left = (w->na - a) * w->nb;
    from += (uint32_t)(a * w->sa);
    if (w->table == NULL)
        fill_offsets(out, left, from, w->offset);
    else
        for (j = 0; j < left; j++)
            out[j] = w->table[from + w->offset[j]];
}

/*
 * A table read across long rows with a stride: the groups of any axis but
 * the last are a transposition of the table, and the plain order reads one
 * id per cache line. Square tiles read MESHGEN_TILE lines and write as
 * many, each used whole while it is in the cache.
 */
static void walk_tiles(const int32_t *table, size_t na, size_t sa, size_t nb, size_t sb,
                       int32_t *out)
{
    size_t a0, b0, a, b;

    for (a0 = 0; a0 < na; a0 += MESHGEN_TILE) {
        size_t a_end = na - a0 < MESHGEN_TILE ? na : a0 + MESHGEN_TILE;

        for (b0 = 0; b0 < nb; b0 += MESHGEN_TILE) {
            size_t b_end = nb - b0 < MESHGEN_TILE ? nb : b0 + MESHGEN_TILE;

            for (a = a0; a < a_end; a++) {
                const int32_t *src = table + a * sa;
                int32_t *dst = out + a * nb;

                for (b = b0; b < b_end; b++)
                    dst[b] = src[b * sb];
            }
        }
    }
}

/* One step of the walk: na x nb ids from flat index `from`, to out. Where
 * the mesh has no table the ids are the flat indices, written without a
 * read. */
static void walk_run(const struct walk *w, uint32_t from, int32_t *out)
{
    size_t a, nb = w->nb, sb = w->sb;

    if (w->len != 0) {
        walk_short(w, from, out);
        return;
    }
    if (w->table == NULL) {
        for (a = 0; a < w->na; a++, out += nb)
            fill_arith(out, nb, from + (uint32_t)(a * w->sa), (uint32_t)sb);
        return;
    }
    if (sb == 1) {
        for (a = 0; a < w->na; a++, out += nb)
            memcpy(out, w->table + from + a * w->sa, nb * sizeof *out);
        return;
    }
    walk_tiles(w->table + from, w->na, w->sa, nb, sb, out);
}

/* Appends a level after the n in lv, or joins it to the last when that
 * one's step is exactly the new level's span; returns the new count. */
static int add_level(struct level *lv, int n, size_t base, size_t src)
{
    if (n > 0 && lv[n - 1].src == base * src) {
        lv[n - 1].base *= base;
        lv[n - 1].src = src;
        return n;
    }
    lv[n] = (struct level){base, src, 0};
    return n + 1;
}

int meshgen_axis_groups(const struct meshgen_mesh *mesh, uint32_t axes_mask, int32_t *out,
                        size_t cap)
{
    struct runs r;
    struct level lv[MESHGEN_MAX_AXES + 1];
    struct walk w;
    size_t pos[MESHGEN_MAX_AXES + 1], dst, span;
    uint32_t from;
    int i, n = 0, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axes_mask & ~ALL_AXES(mesh->n_axes))
        return MESHGEN_ERR_RANGE;
    rc = mask_runs(mesh, axes_mask, &r);
    if (rc != MESHGEN_OK)
        return rc;
    if (out == NULL)
        return cap == 0 ? mesh->n_devices : MESHGEN_ERR_NULL;
    if (cap < (size_t)mesh->n_devices)
        return MESHGEN_ERR_NO_SPACE;
    /* The output's order as levels, outermost first: the runs outside the
     * mask (the group number, row-major), then those inside it (the rank).
     * A level whose step is the whole span of the next one continues it
     * (the groups of the last axis are the mesh in order) and joins it. */
    for (i = r.n - 1; i >= 0; i--)
        if (!r.in[i])
            n = add_level(lv, n, r.base[i], r.stride[i]);
    for (i = r.n - 1; i >= 0; i--)
        if (r.in[i])
            n = add_level(lv, n, r.base[i], r.stride[i]);
    /* The walk takes two levels: unit ones go in front of fewer. */
    while (n < 2) {
        memmove(&lv[1], &lv[0], sizeof lv[0] * (size_t)n);
        lv[0] = (struct level){1, 0, 0};
        n++;
    }
    /* A level's step in the output is the product of the bases after it. */
    for (span = 1, i = n - 1; i >= 0; i--) {
        lv[i].dst = span;
        span *= lv[i].base;
    }
    /* An odometer over the levels before the last two, which the walk
     * covers; each of its steps moves `from` and dst by that level's steps. */
    walk_init(&w, mesh->mesh_devices, &lv[n - 2], &lv[n - 1]);
    for (i = 0; i < n - 2; i++)
        pos[i] = 0;
    from = 0;
    dst = 0;
    for (;;) {
        walk_run(&w, from, out + dst);
        for (i = n - 3; i >= 0; i--) {
            from += (uint32_t)lv[i].src;
            dst += lv[i].dst;
            if (++pos[i] < lv[i].base)
                break;
            from -= (uint32_t)(lv[i].base * lv[i].src);
            dst -= lv[i].base * lv[i].dst;
            pos[i] = 0;
        }
        if (i < 0)
            return mesh->n_devices;
    }
}

/* ceil(2^64 / d), for 2 <= d <= 2^31: the cursor's multiplier for a
 * division by d (meshgen.h gives the method). For d a power of two,
 * (2^64 - 1) / d is 2^64 / d - 1; for any other d, 2^64 / d is not whole
 * and (2^64 - 1) / d is its floor: one more is the ceiling either way. */
static uint64_t divisor(uint32_t d)
{
    return UINT64_MAX / d + 1;
}

int meshgen_cursor_init(struct meshgen_cursor *c, const struct meshgen_mesh *mesh,
                        uint32_t axes_mask)
{
    struct meshgen_cursor k;
    struct runs r;
    uint32_t group_scale = 1, rank_scale = 1, ins = 0, before = 0;
    int i, in_run = -1, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (c == NULL)
        return MESHGEN_ERR_NULL;
    if (axes_mask & ~ALL_AXES(mesh->n_axes))
        return MESHGEN_ERR_RANGE;
    rc = mask_runs(mesh, axes_mask, &r);
    if (rc != MESHGEN_OK)
        return rc;
    /* Zero first: meshgen_cursor_group() reads the fields that a form
     * leaves unset as zero (<meshgen/meshgen.h>). */
    memset(&k, 0, sizeof k);
    k.version = MESHGEN_CURSOR_VERSION;
    k.device_index = mesh->device_index;
    for (i = 0; i < r.n; i++) {
        if (r.in[i]) {
            ins++;
            in_run = i;
        } else if (in_run >= 0) {
            before++; /* a run of other axes before (outside) the mask's */
        }
    }
    if (ins == 0) {
        k.form = MESHGEN_CURSOR_NONE;
    } else if (ins == 1) {
        k.stride = r.stride[in_run];
        k.size = r.base[in_run];
        if (k.stride == 1) {
            k.form = MESHGEN_CURSOR_INNER;
            k.mul_block = divisor(k.size);
        } else if (before == 0) {
            k.form = MESHGEN_CURSOR_OUTER;
            k.mul_stride = divisor(k.stride);
        } else {
            k.form = MESHGEN_CURSOR_MIDDLE;
            k.mul_stride = divisor(k.stride);
            k.mul_block = divisor(k.stride * k.size);
        }
    } else {
        k.form = MESHGEN_CURSOR_RUNS;
        k.n_runs = (uint32_t)r.n;
        for (i = 0; i < r.n; i++) {
            struct meshgen_cursor_run *run = &k.runs[i];

            run->base = r.base[i];
            run->mul = divisor(r.base[i]);
            if (r.in[i]) {
                run->rank_scale = rank_scale;
                rank_scale *= r.base[i];
            } else {
                run->group_scale = group_scale;
                group_scale *= r.base[i];
            }
        }
    }
    *c = k;
    return MESHGEN_OK;
}

/* ---- MPMD stages ------------------------------------------------------------------ */

/* The mask of the MPMD axis, 0 when there is none; the guard keeps a bad
 * mpmd_axis from shifting out of range. */
static uint32_t mpmd_mask(const struct meshgen_mesh *mesh)
{
    if (mesh->mpmd_axis < 0 || mesh->mpmd_axis >= mesh->n_axes)
        return 0;
    return 1u << mesh->mpmd_axis;
}

int meshgen_stage_count(const struct meshgen_mesh *mesh)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    return count_over(mesh, mpmd_mask(mesh));
}

int meshgen_stage_of(const struct meshgen_mesh *mesh, int device)
{
    int32_t coords[MESHGEN_MAX_AXES];
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    rc = meshgen__device_coords(mesh, device, coords);
    if (rc != MESHGEN_OK)
        return rc;
    return index_over(mesh, coords, mpmd_mask(mesh));
}

int meshgen_stage_devices(const struct meshgen_mesh *mesh, int stage, int32_t *devices, int cap)
{
    struct span sp;
    uint32_t stage_axis, vary;
    int64_t first = stage;
    int32_t count;
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    stage_axis = mpmd_mask(mesh);
    if (stage < 0 || stage >= count_over(mesh, stage_axis))
        return MESHGEN_ERR_RANGE;
    vary = ALL_AXES(mesh->n_axes) & ~stage_axis;
    count = count_over(mesh, vary);
    rc = output_wanted(devices, cap, count);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        /* The stage's first position: `stage` on the MPMD axis, 0 on the
         * others. The loop stops once past the mesh, before 64 bits could
         * overflow. */
        for (i = stage_axis != 0 ? mesh->mpmd_axis + 1 : mesh->n_axes;
             i < mesh->n_axes && first < mesh->n_devices; i++)
            first *= axis_size(&mesh->axes[i]);
        if (first >= mesh->n_devices)
            return MESHGEN_ERR_CORRUPT;
        rc = split(mesh, (uint32_t)first, vary, &sp);
        if (rc != MESHGEN_OK)
            return rc;
        list_devices(mesh, &sp, devices);
    }
    return count;
}
