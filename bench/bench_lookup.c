/*
 * Runtime lookup benchmark: ns per call of the meshgen_* lookups over every
 * device of a mesh whose tables are linked in (the const struct named by the
 * macro MESH), against hand-written loops compiled into this same program at
 * the same optimisation level and measured in the same run:
 *
 *   read          a plain indexed read, mesh->mesh_devices[i];
 *   radix_at      coordinates -> device: the mixed-radix flat index (sum of
 *                 coordinates times strides) and one indexed read;
 *   radix_of      device -> coordinates: device_index[device], then the
 *                 mixed-radix digits by % and / over the axis sizes;
 *   stride_group  a device's group along one axis: its flat index, the
 *                 group's first position, then one read every stride;
 *   groups_loop   every group of every axis, as nested loops over the groups
 *                 and their members that write one table per axis;
 *   groups_by_hand the same tables device by device: each device's group
 *                 number and rank by % and /, and one write;
 *   groups_by_shift the same with shifts and masks whose amounts are
 *                 computed once (only when every size is a power of two):
 *                 the fastest per-device loop there is, with no check at
 *                 all, and so the floor of any per-device method,
 *                 meshgen_group_index and the cursor included;
 *   pairs_loop    every group of every pair of axes, as nested loops over
 *                 the groups and their members (five loops: the axes
 *                 before, between and after the pair, and the pair).
 *
 * Against them: every device's group number and rank along every axis
 * (an MPI_Comm_split colour and key, written beside the device) through
 * meshgen_cursor_group (a cursor per axis made before timing) and, as
 * before it, meshgen_group_index; every group of every axis and of every
 * pair through meshgen_axis_groups and, as before it, meshgen_group once
 * per group; and a rank's whole set of groups: one device's group along
 * every subset of the axes through meshgen_group, and every group of every
 * subset through meshgen_axis_groups (timed per whole set).
 *
 * The lookups are compiled from their own translation units (the runtime's
 * files, or its static library), so none is inlined here. Strides of the
 * hand-written loops are computed once before timing, as constants a user
 * would write: they are the floor the library is measured against.
 *
 * Each measurement is a batch of `rounds` passes over all devices, timed
 * with CLOCK_MONOTONIC; batches of every operation are interleaved, so a
 * burst of load on the machine hits all of them, and the median batch is
 * reported. Every result goes through KEEP(), a compiler barrier, so no call
 * or read is optimised away, and the mesh pointer is hidden from the
 * optimiser each pass so nothing is hoisted out of the loop. Every answer
 * is checked once before timing, against the hand-written loops.
 *
 * The whole measured phase runs under an interposed malloc/calloc/realloc/
 * aligned-allocation counter (glibc builds without sanitizers): the runtime
 * promises no allocation, and the count it prints must be 0.
 *
 * Output: one "key value..." line per fact, for bench/run_bench.py to
 * format; run it alone to see the raw numbers. Options: --reps N (batches
 * per operation, default 101), --batch-us N (target batch length, default
 * 300: short batches are rarely preempted on a busy machine, so the median
 * stays near the undisturbed time; a pass over a large mesh may be longer,
 * and then a batch is one pass), --op NAME (time only the lookups whose
 * names contain NAME, and the baselines: to profile one), --tables (where
 * the generator left the identity tables out, time the lookups over a copy
 * of the mesh that carries them, so that the paths that read mesh_devices
 * and device_index are timed), --sizes (print the structure sizes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <meshgen/meshgen.h>

/* The generated header is not needed: the mesh is all this program uses. */
extern const struct meshgen_mesh MESH;

/* ---- compiler barriers --------------------------------------------------------- */

#if defined(__GNUC__) || defined(__clang__)
/* The value must be materialised in a register; memory may have been read
 * or written: the compiler can neither drop the computation nor merge
 * iterations. */
#define KEEP(x) __asm__ __volatile__("" : : "r"(x) : "memory")
/* The pointer may have changed: loads through it cannot be hoisted. */
#define HIDE(p) __asm__ __volatile__("" : "+r"(p))
#else
static volatile intptr_t bench_sink;
#define KEEP(x) (bench_sink = (intptr_t)(x))
#define HIDE(p) ((void)0)
#endif

/* ---- allocation counter ---------------------------------------------------------- */

#if defined(__GLIBC__) && !defined(BENCH_NO_MALLOC_HOOK)
#define BENCH_MALLOC_HOOK 1
/* glibc's own allocator entry points: the definitions below replace malloc
 * and friends for the whole program (the static runtime included) and
 * forward to these. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

static volatile int counting;
static volatile long n_allocs;

void *malloc(size_t size)
{
    if (counting)
        n_allocs++;
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    if (counting)
        n_allocs++;
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size)
{
    if (counting)
        n_allocs++;
    return __libc_realloc(ptr, size);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    if (counting)
        n_allocs++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size)
{
    void *p;
    if (counting)
        n_allocs++;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0)
        return 22; /* EINVAL */
    p = __libc_memalign(alignment, size);
    if (p == NULL && size != 0)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void free(void *ptr)
{
    __libc_free(ptr);
}
#else
#define BENCH_MALLOC_HOOK 0
static int counting;
static long n_allocs;
#endif

/* ---- the operations ---------------------------------------------------------------- */

/* The largest group along one axis that the group operations write. */
enum { MAX_MEMBERS = 1 << 16 };

static const struct meshgen_mesh *mesh_ptr = &MESH;
static int n_dev; /* positions in the mesh */
static int n_axes;
static int32_t *dev_of; /* mesh order -> device id */
/* The hand-written loops read a table as a user's own code would: the
 * mesh's, or where the generator left an identity table out, the same
 * table built here. */
static const int32_t *md_tab; /* flat index -> device id */
static const int32_t *di_tab; /* device id -> flat index or -1 */
static int32_t *coords_all;   /* n_axes coordinates of position i, i * n_axes on */
static int32_t *table;        /* one group table: n_dev entries */
static int32_t *check_table;  /* the same, written by the other method */
static int32_t members[MAX_MEMBERS];
static int32_t stride_of[MESHGEN_MAX_AXES];    /* product of the sizes of the later axes */
static int pow2_sizes;                         /* every axis size a power of two */
static unsigned stride_log2[MESHGEN_MAX_AXES]; /* log2 of stride_of, when pow2_sizes */
static unsigned size_log2[MESHGEN_MAX_AXES];   /* log2 of the size, when pow2_sizes */
static int32_t *group_first[MESHGEN_MAX_AXES]; /* per axis, the first device of each group */
static struct meshgen_cursor cursors[MESHGEN_MAX_AXES];         /* per axis, made before timing */
static int32_t *pair_first[MESHGEN_MAX_AXES][MESHGEN_MAX_AXES]; /* first device of each group */
static int n_pairs;                                             /* pairs of axes a < b */
static int rank_device;         /* the device whose groups rank_groups lists */
static int32_t *subset_table;   /* one subset's groups, n_dev entries: rank_groups' output */
static int32_t *colours, *keys; /* the cursor's answers, checked before timing */
static uint32_t inner_mask;     /* the last axis (fastest varying) */
static int sharding = -1;       /* the first sharding, -1 when there is none */
static long errors;             /* lookups that failed: must stay 0 */

struct op;
typedef void (*op_fn)(const struct meshgen_mesh *m, const struct op *o);

struct op {
    char name[64];
    char baseline[64]; /* the hand-written loop it is compared with; "" for baselines */
    op_fn fn;
    int axis;       /* the axis of a group operation */
    int per_device; /* calls (or table entries) per device and pass */
    int members;    /* ids written per call (group operations), else 0 */
    long units;     /* what ns are per, per pass: 0 for n_dev * per_device */
    long rounds;    /* passes over all devices per batch (calibrated) */
    double ns[256]; /* ns per call of each batch */
};

static void op_read(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++)
        KEEP(md_tab[i]);
}

static void op_radix_at(const struct meshgen_mesh *m, const struct op *o)
{
    int i, a;
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        const int32_t *c = &coords_all[(size_t)i * n_axes];
        int32_t flat = 0;
        for (a = 0; a < m->n_axes; a++)
            flat = flat * m->axes[a].size + c[a];
        KEEP(md_tab[flat]);
    }
}

static void op_radix_of(const struct meshgen_mesh *m, const struct op *o)
{
    int i, a;
    int32_t c[MESHGEN_MAX_AXES];
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int32_t f = di_tab[dev_of[i]];
        for (a = m->n_axes - 1; a >= 0; a--) {
            c[a] = f % m->axes[a].size;
            f /= m->axes[a].size;
        }
        KEEP(c);
    }
}

/* The group of one device along axis a by hand: out[r] = the device r
 * strides from the group's first position. */
static inline void stride_group(const struct meshgen_mesh *m, int a, int32_t device, int32_t *out)
{
    int32_t f = di_tab[device], s = stride_of[a], n = m->axes[a].size, r;
    int32_t first = f - f / s % n * s;
    for (r = 0; r < n; r++)
        out[r] = md_tab[first + r * s];
}

static void op_stride_group(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        stride_group(m, o->axis, dev_of[i], members);
        KEEP(members);
    }
}

/* Every group along axis a by hand, group g at out[g * size]: groups are
 * numbered row-major over the other axes, so g = outer * stride + inner. */
static inline void groups_loop(const struct meshgen_mesh *m, int a, int32_t *out)
{
    int32_t s = stride_of[a], n = m->axes[a].size, outer = n_dev / (s * n), o, i, r;
    const int32_t *md = md_tab;
    for (o = 0; o < outer; o++)
        for (i = 0; i < s; i++)
            for (r = 0; r < n; r++)
                *out++ = md[(o * n + r) * s + i];
}

static void op_groups_loop(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_loop(m, a, table);
        KEEP(table);
    }
}

/* Every group along axis a, device by device by hand: the device's group
 * number and rank from its flat index, as meshgen_group_index computes
 * them, and the device written at that place. */
static inline void groups_by_hand(const struct meshgen_mesh *m, int a, int32_t *out)
{
    int32_t s = stride_of[a], n = m->axes[a].size;
    int i;
    for (i = 0; i < n_dev; i++) {
        int32_t d = dev_of[i], f = di_tab[d];
        int32_t q = f / s, low = f % s;
        out[(q / n * s + low) * n + q % n] = d;
    }
}

static void op_groups_by_hand(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_by_hand(m, a, table);
        KEEP(table);
    }
}

/* The same, by shifts and masks: the per-device floor. */
static inline void groups_by_shift(int a, int32_t *out)
{
    unsigned s = stride_log2[a], z = size_log2[a];
    uint32_t low_mask = (1u << s) - 1u, rank_mask = (1u << z) - 1u;
    int i;
    for (i = 0; i < n_dev; i++) {
        int32_t d = dev_of[i];
        uint32_t f = (uint32_t)di_tab[d];
        uint32_t g = ((f >> (s + z)) << s) | (f & low_mask);
        out[(g << z) | ((f >> s) & rank_mask)] = d;
    }
}

static void op_groups_by_shift(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_by_shift(a, table);
        KEEP(table);
    }
}

static void op_device_at(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int d = meshgen_device_at(m, &coords_all[(size_t)i * n_axes]);
        KEEP(d);
    }
}

static void op_coords_of(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    int32_t c[MESHGEN_MAX_AXES];
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int rc = meshgen_coords_of(m, dev_of[i], c);
        KEEP(rc);
        KEEP(c);
    }
}

static void op_group(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int rc = meshgen_group(m, dev_of[i], 1u << o->axis, members, MAX_MEMBERS);
        KEEP(rc);
        KEEP(members);
    }
}

static void op_group_index(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    int32_t rank;
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int rc = meshgen_group_index(m, dev_of[i], inner_mask, &rank);
        KEEP(rc);
        KEEP(rank);
    }
}

/* Every group along axis a through meshgen_group_index on every device:
 * the group number and the rank say where the device goes in the table. */
static inline void groups_by_index(const struct meshgen_mesh *m, int a, int32_t *out)
{
    int32_t n = m->axes[a].size, rank;
    int i;
    for (i = 0; i < n_dev; i++) {
        int g = meshgen_group_index(m, dev_of[i], 1u << a, &rank);
        if (g < 0) {
            errors++;
            continue;
        }
        out[g * n + rank] = dev_of[i];
    }
}

static void op_groups_by_index(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_by_index(m, a, table);
        KEEP(table);
    }
}

/* Every group along axis a through meshgen_group, one call per group with
 * its first device: the library's way to list them all. */
static inline void groups_by_group(const struct meshgen_mesh *m, int a, int32_t *out)
{
    int32_t n = m->axes[a].size, g, count = n_dev / n;
    for (g = 0; g < count; g++)
        if (meshgen_group(m, group_first[a][g], 1u << a, &out[(size_t)g * n], n) != n)
            errors++;
}

static void op_groups_by_group(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_by_group(m, a, table);
        KEEP(table);
    }
}

/* Every group along axis a through the cursor, device by device: each
 * device's group number and rank (an MPI_Comm_split colour and key),
 * written beside it, as a program that asks per device keeps them. The
 * cursor is copied into a local variable, as a user's loop would hold it,
 * so that the stores need not reload it. */
static inline void groups_by_cursor(int a, int32_t *colour, int32_t *key)
{
    const struct meshgen_cursor c = cursors[a];
    int i;

    for (i = 0; i < n_dev; i++)
        colour[i] = meshgen_cursor_group(&c, dev_of[i], &key[i]);
}

static void op_groups_by_cursor(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_by_cursor(a, table, check_table);
        KEEP(table);
        KEEP(check_table);
    }
}

/* The same answers through meshgen_group_index, one checked call per
 * device: what the cursor replaces. */
static inline void groups_by_index_call(const struct meshgen_mesh *m, int a, int32_t *colour,
                                        int32_t *key)
{
    int i;

    for (i = 0; i < n_dev; i++)
        colour[i] = meshgen_group_index(m, dev_of[i], 1u << a, &key[i]);
}

static void op_colours_by_index(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        groups_by_index_call(m, a, table, check_table);
        KEEP(table);
        KEEP(check_table);
    }
}

static void op_axis_groups(const struct meshgen_mesh *m, const struct op *o)
{
    int a;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++) {
        if (meshgen_axis_groups(m, 1u << a, table, (size_t)n_dev) != n_dev)
            errors++;
        KEEP(table);
    }
}

/* Every group along the pair of axes a < b by hand, group g at out[g *
 * size(a) * size(b)]: the flat index is ((((o * na + ra) * nm + mid) * nb +
 * rb) * ni + in), the group number (o * nm + mid) * ni + in and the rank
 * ra * nb + rb, with the strides worked out once. */
static inline void pairs_loop(const struct meshgen_mesh *m, int a, int b, int32_t *out)
{
    int32_t na = m->axes[a].size, nb = m->axes[b].size, sa = stride_of[a], sb = stride_of[b];
    int32_t nm = sa / (sb * nb), ni = sb, no = n_dev / (sa * na), o, mid, in, ra, rb;
    const int32_t *md = md_tab;
    for (o = 0; o < no; o++)
        for (mid = 0; mid < nm; mid++)
            for (in = 0; in < ni; in++)
                for (ra = 0; ra < na; ra++)
                    for (rb = 0; rb < nb; rb++)
                        *out++ = md[o * sa * na + ra * sa + mid * sb * nb + rb * sb + in];
}

static void op_pairs_loop(const struct meshgen_mesh *m, const struct op *o)
{
    int a, b;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++)
        for (b = a + 1; b < m->n_axes; b++) {
            pairs_loop(m, a, b, table);
            KEEP(table);
        }
}

/* Every group of every pair through meshgen_group, once per group: the
 * way to list them before meshgen_axis_groups. */
static void op_pairs_by_group(const struct meshgen_mesh *m, const struct op *o)
{
    int a, b;
    int32_t g, size, count;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++)
        for (b = a + 1; b < m->n_axes; b++) {
            size = m->axes[a].size * m->axes[b].size;
            count = n_dev / size;
            for (g = 0; g < count; g++)
                if (meshgen_group(m, pair_first[a][b][g], 1u << a | 1u << b,
                                  &table[(size_t)g * size], size) != size)
                    errors++;
            KEEP(table);
        }
}

static void op_pair_groups(const struct meshgen_mesh *m, const struct op *o)
{
    int a, b;
    (void)o;
    HIDE(m);
    for (a = 0; a < m->n_axes; a++)
        for (b = a + 1; b < m->n_axes; b++) {
            if (meshgen_axis_groups(m, 1u << a | 1u << b, table, (size_t)n_dev) != n_dev)
                errors++;
            KEEP(table);
        }
}

/* One device's group along every subset of the axes: what one rank needs
 * to make every communicator of the mesh. Timed per whole set. */
static void op_rank_groups(const struct meshgen_mesh *m, const struct op *o)
{
    uint32_t mask;
    (void)o;
    HIDE(m);
    for (mask = 0; mask < (1u << m->n_axes); mask++) {
        if (meshgen_group(m, rank_device, mask, subset_table, n_dev) < 1)
            errors++;
        KEEP(subset_table);
    }
}

/* Every group of every subset of the axes, through the batch call: the
 * whole partition for each communicator family, timed per whole set. */
static void op_rank_groups_batch(const struct meshgen_mesh *m, const struct op *o)
{
    uint32_t mask;
    (void)o;
    HIDE(m);
    for (mask = 0; mask < (1u << m->n_axes); mask++) {
        if (meshgen_axis_groups(m, mask, subset_table, (size_t)n_dev) != n_dev)
            errors++;
        KEEP(subset_table);
    }
}

static void op_shard(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    int64_t start[MESHGEN_MAX_DIMS], size[MESHGEN_MAX_DIMS];
    int32_t replica;
    int dims = m->shardings[sharding].n_dims;
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int rc = meshgen_shard(m, sharding, NULL, dims, dev_of[i], start, size, &replica);
        KEEP(rc);
        KEEP(start);
        KEEP(size);
    }
}

static void op_process_from_env(const struct meshgen_mesh *m, const struct op *o)
{
    int i;
    int32_t process;
    (void)o;
    HIDE(m);
    for (i = 0; i < n_dev; i++) {
        int rc = meshgen_process_from_env(m, &process);
        KEEP(rc);
        KEEP(process);
    }
}

enum { MAX_OPS = 32 };
static struct op ops[MAX_OPS];
static int n_ops;

/* With --op, only the lookups whose names contain it (and every baseline):
 * a short run to profile one lookup. */
static const char *only_op;

static struct op *add_op(const char *name, const char *baseline, op_fn fn, int axis, int per_device,
                         int n_members)
{
    struct op *o;

    if (only_op != NULL && baseline[0] != '\0' && strstr(name, only_op) == NULL)
        return NULL;
    if (n_ops == MAX_OPS) {
        fprintf(stderr, "bench_lookup: more than %d operations\n", MAX_OPS);
        exit(1);
    }
    o = &ops[n_ops++];
    snprintf(o->name, sizeof o->name, "%s", name);
    snprintf(o->baseline, sizeof o->baseline, "%s", baseline);
    o->fn = fn;
    o->axis = axis;
    o->per_device = per_device;
    o->members = n_members;
    o->units = 0;
    return o;
}

/* "what(axis)", the name of an operation along one axis. */
static const char *along(const struct meshgen_mesh *m, const char *what, int axis)
{
    static char buf[4][64];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s(%s)", what, m->axes[axis].name);
    return b;
}

/* The operations this mesh allows: the group ones along its last, its
 * first and its last but one axis (those of them that differ), shard only
 * with a sharding. */
static void make_ops(const struct meshgen_mesh *m)
{
    int last = m->n_axes - 1, k;
    int group_axes[3] = {last, 0, last - 1};
    struct op *o;
    int n_group_axes = last == 0 ? 1 : last == 1 ? 2 : 3;

    add_op("read", "", op_read, 0, 1, 0);
    add_op("radix_at", "", op_radix_at, 0, 1, 0);
    add_op("radix_of", "", op_radix_of, 0, 1, 0);
    for (k = 0; k < n_group_axes; k++)
        add_op(along(m, "stride_group", group_axes[k]), "", op_stride_group, group_axes[k], 1,
               m->axes[group_axes[k]].size);
    add_op("groups_loop", "", op_groups_loop, 0, m->n_axes, 0);
    add_op("groups_by_hand", "", op_groups_by_hand, 0, m->n_axes, 0);
    if (pow2_sizes)
        add_op("groups_by_shift", "", op_groups_by_shift, 0, m->n_axes, 0);
    if (n_pairs > 0)
        add_op("pairs_loop", "", op_pairs_loop, 0, n_pairs, 0);
    add_op("meshgen_device_at", "radix_at", op_device_at, 0, 1, 0);
    add_op("meshgen_coords_of", "radix_of", op_coords_of, 0, 1, 0);
    for (k = 0; k < n_group_axes; k++)
        add_op(along(m, "meshgen_group", group_axes[k]), along(m, "stride_group", group_axes[k]),
               op_group, group_axes[k], 1, m->axes[group_axes[k]].size);
    add_op(along(m, "meshgen_group_index", last), "radix_of", op_group_index, last, 1, 0);
    add_op("groups_by_index", "groups_by_hand", op_groups_by_index, 0, m->n_axes, 0);
    add_op("groups_by_group", "groups_loop", op_groups_by_group, 0, m->n_axes, 0);
    add_op("colours_by_index", "groups_loop", op_colours_by_index, 0, m->n_axes, 0);
    add_op("groups_by_cursor", "groups_loop", op_groups_by_cursor, 0, m->n_axes, 0);
    add_op("axis_groups", "groups_loop", op_axis_groups, 0, m->n_axes, 0);
    if (n_pairs > 0) {
        add_op("pairs_by_group", "pairs_loop", op_pairs_by_group, 0, n_pairs, 0);
        add_op("pair_groups", "pairs_loop", op_pair_groups, 0, n_pairs, 0);
    }
    /* Per whole set: one unit per pass. */
    if ((o = add_op("rank_groups", "-", op_rank_groups, 0, 1, 0)) != NULL)
        o->units = 1;
    if ((o = add_op("rank_groups_batch", "-", op_rank_groups_batch, 0, 1, 0)) != NULL)
        o->units = 1;
    if (sharding >= 0)
        add_op("meshgen_shard", "radix_of", op_shard, 0, 1, 0);
    add_op("meshgen_process_from_env", "radix_of", op_process_from_env, 0, 1, 0);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t time_batch(const struct op *o)
{
    long r;
    int64_t t0 = now_ns();
    for (r = 0; r < o->rounds; r++)
        o->fn(mesh_ptr, o);
    return now_ns() - t0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Checks every lookup once, outside the timed loops, against the
 * hand-written loops, so that a timing is never of an error path or of a
 * wrong answer. */
static void check_answers(const struct meshgen_mesh *m)
{
    int i, k, a;
    int32_t c[MESHGEN_MAX_AXES], rank, process, *mine = check_table;
    int64_t start[MESHGEN_MAX_DIMS], size[MESHGEN_MAX_DIMS];
    for (i = 0; i < n_dev; i++) {
        if (meshgen_device_at(m, &coords_all[(size_t)i * n_axes]) != dev_of[i])
            errors++;
        if (meshgen_coords_of(m, dev_of[i], c) != 0 ||
            memcmp(c, &coords_all[(size_t)i * n_axes], sizeof(int32_t) * (size_t)n_axes) != 0)
            errors++;
        if (meshgen_group_index(m, dev_of[i], inner_mask, &rank) < 0)
            errors++;
        if (sharding >= 0 && meshgen_shard(m, sharding, NULL, m->shardings[sharding].n_dims,
                                           dev_of[i], start, size, NULL) != 0)
            errors++;
    }
    for (k = 0; k < n_ops; k++) {
        if (ops[k].fn != op_group)
            continue;
        a = ops[k].axis;
        for (i = 0; i < n_dev; i++) {
            stride_group(m, a, dev_of[i], mine);
            if (meshgen_group(m, dev_of[i], 1u << a, members, MAX_MEMBERS) != m->axes[a].size ||
                memcmp(members, mine, sizeof(int32_t) * (size_t)m->axes[a].size) != 0)
                errors++;
        }
    }
    for (a = 0; a < m->n_axes; a++) {
        groups_loop(m, a, table);
        groups_by_index(m, a, check_table);
        if (memcmp(table, check_table, sizeof(int32_t) * (size_t)n_dev) != 0)
            errors++;
        groups_by_hand(m, a, check_table);
        if (memcmp(table, check_table, sizeof(int32_t) * (size_t)n_dev) != 0)
            errors++;
        if (pow2_sizes) {
            groups_by_shift(a, check_table);
            if (memcmp(table, check_table, sizeof(int32_t) * (size_t)n_dev) != 0)
                errors++;
        }
        groups_by_group(m, a, check_table);
        if (memcmp(table, check_table, sizeof(int32_t) * (size_t)n_dev) != 0)
            errors++;
        groups_by_cursor(a, colours, keys);
        for (i = 0; i < n_dev; i++)
            if (meshgen_group_index(m, dev_of[i], 1u << a, &rank) != colours[i] || rank != keys[i])
                errors++;
        if (meshgen_axis_groups(m, 1u << a, check_table, (size_t)n_dev) != n_dev ||
            memcmp(table, check_table, sizeof(int32_t) * (size_t)n_dev) != 0)
            errors++;
        groups_by_index_call(m, a, table, check_table);
        if (memcmp(table, colours, sizeof(int32_t) * (size_t)n_dev) != 0 ||
            memcmp(check_table, keys, sizeof(int32_t) * (size_t)n_dev) != 0)
            errors++;
        for (k = a + 1; k < m->n_axes; k++) {
            int32_t g, pair_size = m->axes[a].size * m->axes[k].size;

            pairs_loop(m, a, k, table);
            if (meshgen_axis_groups(m, 1u << a | 1u << k, check_table, (size_t)n_dev) != n_dev ||
                memcmp(table, check_table, sizeof(int32_t) * (size_t)n_dev) != 0)
                errors++;
            for (g = 0; g < n_dev / pair_size; g++)
                if (pair_first[a][k][g] != table[(size_t)g * pair_size])
                    errors++;
        }
    }
    if (meshgen_process_from_env(m, &process) != 0 || process != 17 % m->n_processes)
        errors++;
}

/* Everything the timed loops read, prepared while allocation is allowed. */
static int prepare(const struct meshgen_mesh *m)
{
    int i, a;
    size_t n;
    n_dev = m->n_devices;
    n_axes = m->n_axes;
    n = (size_t)n_dev;
    dev_of = malloc(n * sizeof *dev_of);
    coords_all = malloc(n * (size_t)n_axes * sizeof *coords_all);
    table = malloc(n * sizeof *table);
    check_table = malloc(n * sizeof *check_table);
    if (dev_of == NULL || coords_all == NULL || table == NULL || check_table == NULL)
        return -1;
    md_tab = m->mesh_devices;
    di_tab = m->device_index;
    if (md_tab == NULL || di_tab == NULL) {
        int32_t *md = malloc(n * sizeof *md);
        int32_t *di = malloc((size_t)m->n_inventory_devices * sizeof *di);
        if (md == NULL || di == NULL)
            return -1;
        for (i = 0; i < m->n_inventory_devices; i++)
            di[i] = -1;
        for (i = 0; i < n_dev; i++) {
            md[i] = meshgen_mesh_device(m, i);
            di[md[i]] = i;
        }
        md_tab = md;
        di_tab = di;
    }
    for (i = 0; i < n_dev; i++) {
        dev_of[i] = md_tab[i];
        meshgen_coords_of(m, dev_of[i], &coords_all[(size_t)i * n_axes]);
    }
    stride_of[n_axes - 1] = 1;
    for (a = n_axes - 2; a >= 0; a--)
        stride_of[a] = stride_of[a + 1] * m->axes[a + 1].size;
    pow2_sizes = 1;
    for (a = 0; a < n_axes; a++) {
        uint32_t size = (uint32_t)m->axes[a].size;
        if ((size & (size - 1u)) != 0)
            pow2_sizes = 0;
        for (size_log2[a] = 0; (1u << size_log2[a]) < size; size_log2[a]++)
            ;
        for (stride_log2[a] = 0; (1 << stride_log2[a]) < stride_of[a]; stride_log2[a]++)
            ;
    }
    for (a = 0; a < n_axes; a++) {
        int32_t g, size = m->axes[a].size;
        group_first[a] = malloc(sizeof(int32_t) * (size_t)(n_dev / size));
        if (size > MAX_MEMBERS || group_first[a] == NULL)
            return -1;
        groups_loop(m, a, table);
        for (g = 0; g < n_dev / size; g++)
            group_first[a][g] = table[(size_t)g * size];
    }
    for (a = 0; a < n_axes; a++) {
        int b;

        if (meshgen_cursor_init(&cursors[a], m, 1u << a) != MESHGEN_OK)
            return -1;
        for (b = a + 1; b < n_axes; b++) {
            int32_t g, size = m->axes[a].size * m->axes[b].size;

            pair_first[a][b] = malloc(sizeof(int32_t) * (size_t)(n_dev / size));
            if (pair_first[a][b] == NULL)
                return -1;
            pairs_loop(m, a, b, table);
            for (g = 0; g < n_dev / size; g++)
                pair_first[a][b][g] = table[(size_t)g * size];
        }
    }
    n_pairs = n_axes * (n_axes - 1) / 2;
    rank_device = md_tab[n_dev / 2 + n_dev / 7];
    subset_table = malloc(n * sizeof *subset_table);
    colours = malloc(n * sizeof *colours);
    keys = malloc(n * sizeof *keys);
    if (subset_table == NULL || colours == NULL || keys == NULL)
        return -1;
    inner_mask = 1u << (n_axes - 1);
    sharding = m->n_shardings > 0 ? 0 : -1;
    return 0;
}

/* The mesh with its identity tables written out where the generator left
 * them out (the runtime reads either), so that the lookups read them. */
static const struct meshgen_mesh *with_tables(const struct meshgen_mesh *m)
{
    static struct meshgen_mesh copy;
    int32_t *md, *di, i;

    if (m->mesh_devices != NULL)
        return m;
    md = malloc(sizeof *md * (size_t)m->n_devices);
    di = malloc(sizeof *di * (size_t)m->n_inventory_devices);
    if (md == NULL || di == NULL) {
        fprintf(stderr, "bench_lookup: out of memory\n");
        exit(1);
    }
    for (i = 0; i < m->n_inventory_devices; i++)
        di[i] = i < m->n_devices ? i : -1;
    for (i = 0; i < m->n_devices; i++)
        md[i] = i;
    copy = *m;
    copy.mesh_devices = md;
    copy.device_index = di;
    return &copy;
}

int main(int argc, char **argv)
{
    const struct meshgen_mesh *m = &MESH;
    int reps = 101, i, rep, k, rc;
    long batch_us = 300, calls = 0, selftest = -1;
    char env_value[16];

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--batch-us") == 0 && i + 1 < argc)
            batch_us = atol(argv[++i]);
        else if (strcmp(argv[i], "--op") == 0 && i + 1 < argc)
            only_op = argv[++i];
        else if (strcmp(argv[i], "--tables") == 0)
            m = mesh_ptr = with_tables(m);
        else if (strcmp(argv[i], "--sizes") == 0) {
            printf("sizeof_device_info %zu\n", sizeof(struct meshgen_device_info));
            printf("sizeof_host %zu\n", sizeof(struct meshgen_host));
            return 0;
        } else {
            fprintf(stderr,
                    "usage: %s [--reps N] [--batch-us N] [--op NAME] [--tables] [--sizes]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > 256 || batch_us < 1) {
        fprintf(stderr, "bench_lookup: --reps must be 1..256, --batch-us positive\n");
        return 2;
    }
    if ((rc = meshgen_mesh_check(m)) != 0) {
        fprintf(stderr, "bench_lookup: %s\n", meshgen_strerror(rc));
        return 1;
    }
    if (prepare(m) != 0) {
        fprintf(stderr, "bench_lookup: out of memory, or an axis longer than %d\n", MAX_MEMBERS);
        return 1;
    }
    make_ops(m);
    snprintf(env_value, sizeof env_value, "%d", 17 % m->n_processes);
    setenv("MESHGEN_PROCESS", env_value, 1); /* allocates: before counting starts */
    check_answers(m);
    if (errors != 0) {
        fprintf(stderr, "bench_lookup: %ld lookups disagree with the hand-written loops\n", errors);
        return 1;
    }

    /* Calibrate: double the passes per batch until a batch lasts batch_us. */
    for (k = 0; k < n_ops; k++) {
        ops[k].rounds = 1;
        for (;;) {
            /* The best of three, so that a preemption does not stop it early. */
            int64_t t = time_batch(&ops[k]), t2 = time_batch(&ops[k]), t3 = time_batch(&ops[k]);
            t = t2 < t ? t2 : t;
            t = t3 < t ? t3 : t;
            if (t >= batch_us * 1000 || ops[k].rounds >= (1L << 24))
                break;
            ops[k].rounds *= 2;
        }
    }

#if BENCH_MALLOC_HOOK
    { /* The counter sees an allocation made on purpose, through a pointer
       * the compiler cannot see through. */
        void *(*volatile alloc)(size_t) = malloc;
        counting = 1;
        free(alloc(16));
        counting = 0;
        selftest = n_allocs;
        n_allocs = 0;
    }
#endif

    /* Measure, interleaved: each repetition times one batch of every
     * operation, starting at a different one each time. */
    counting = 1;
    for (rep = 0; rep < reps; rep++) {
        for (i = 0; i < n_ops; i++) {
            struct op *o = &ops[(rep + i) % n_ops];
            int64_t t = time_batch(o);
            long units = o->units ? o->units : (long)n_dev * o->per_device;
            o->ns[rep] = (double)t / ((double)o->rounds * units);
            calls += o->rounds * n_dev * o->per_device;
        }
    }
    counting = 0;

    printf("mesh %s\n", m->name);
    printf("devices %d\n", n_dev);
    printf("axes %d\n", n_axes);
    printf("reps %d\n", reps);
    /* op NAME BASELINE MEDIAN MIN MAX CALLS_PER_BATCH MEMBERS_PER_CALL */
    for (k = 0; k < n_ops; k++) {
        struct op *o = &ops[k];
        qsort(o->ns, (size_t)reps, sizeof o->ns[0], cmp_double);
        printf("op %s %s %.3f %.3f %.3f %ld %d %ld\n", o->name, o->baseline[0] ? o->baseline : "-",
               o->ns[reps / 2], o->ns[0], o->ns[reps - 1], o->rounds * n_dev * o->per_device,
               o->members, o->units);
    }
    printf("calls_counted %ld\n", calls);
    if (BENCH_MALLOC_HOOK) {
        printf("malloc_selftest %ld\n", selftest);
        printf("malloc_calls %ld\n", n_allocs);
    } else {
        printf("malloc_calls unmeasured\n");
    }
    printf("lookup_errors %ld\n", errors);
    free(dev_of);
    free(coords_all);
    free(table);
    free(check_table);
    free(subset_table);
    free(colours);
    free(keys);
    for (i = 0; i < n_axes; i++) {
        free(group_first[i]);
        for (k = i + 1; k < n_axes; k++)
            free(pair_first[i][k]);
    }
    return errors ? 1 : 0;
}
