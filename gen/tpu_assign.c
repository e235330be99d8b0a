/*
 * JAX's device assignment over a TPU slice (docs/tpu.md): the device
 * assignment of mesh_utils.create_device_mesh and
 * create_hybrid_device_mesh, step by step, over the devices and physical
 * mesh of tpu.c.
 *
 * A handler for the device kind (ring orders of a tray) may answer first;
 * otherwise the devices are placed into their physical mesh, transposed for
 * contiguous submeshes when asked, and the logical axes are assigned to
 * physical axes from the most network-intensive (last) one outwards, whole
 * axes first, split axes when allowed. Where JAX raises, the reason is
 * written and -1 returned. Knows nothing of YAML, hwloc, the spec or the
 * inventory; libc only.
 */
#include "tpu.h"
#include "meshgen/gen.h" /* mg_oom */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the n-d torus assignment --------------------------------------------- */

int mg_tpu_prime_factors(int64_t x, int64_t out[64])
{
    int64_t p;
    int n = 0;

    /* Trial division while p * p <= x, then what is left of x, if above 1,
     * is the last (largest) prime. */
    for (p = 2; p <= x / p; p++)
        while (x % p == 0) {
            out[n++] = p;
            x /= p;
        }
    if (x > 1)
        out[n++] = x;
    return n;
}

struct mg_tpu_enum {
    int n_phys;
    int n_primes;
    int64_t prime[64];
    int mult[64];                       /* of each prime in the logical size */
    int avail[64][MG_TPU_MAX_PHYSICAL]; /* of each prime in each axis's room */
    int take[64][MG_TPU_MAX_PHYSICAL];  /* the choice being built */
    void (*visit)(const int64_t *z, void *ctx);
    void *ctx;
};

static void mg_tpu_enum_prime(struct mg_tpu_enum *e, int k);

/* Chooses, for prime k, `left` more axes (with repetition, each at most as
 * often as it has the prime), starting at axis `from`: the multisets come
 * in lexicographic order, as the sorted combinations JAX draws. */
static void mg_tpu_enum_axes(struct mg_tpu_enum *e, int k, int from, int left)
{
    int i;
    if (left == 0) {
        mg_tpu_enum_prime(e, k + 1);
        return;
    }
    for (i = from; i < e->n_phys; i++) {
        if (e->take[k][i] == e->avail[k][i])
            continue;
        e->take[k][i]++;
        mg_tpu_enum_axes(e, k, i, left - 1);
        e->take[k][i]--;
    }
}

/* The primes in the order they were found; the last varies fastest, as in
 * itertools.product. */
static void mg_tpu_enum_prime(struct mg_tpu_enum *e, int k)
{
    int64_t z[MG_TPU_MAX_PHYSICAL];
    int i, j, t;
    if (k < e->n_primes) {
        mg_tpu_enum_axes(e, k, 0, e->mult[k]);
        return;
    }
    for (i = 0; i < e->n_phys; i++) {
        z[i] = 1;
        for (j = 0; j < e->n_primes; j++)
            for (t = 0; t < e->take[j][i]; t++)
                z[i] *= e->prime[j];
    }
    e->visit(z, e->ctx);
}

static void mg_tpu_enumerate(int n_phys, const int64_t *phys, const int64_t *used, int64_t size,
                             void (*visit)(const int64_t *, void *), void *ctx)
{
    struct mg_tpu_enum e;
    int64_t f[64];
    int nf = mg_tpu_prime_factors(size, f), i, j, k;

    memset(&e, 0, sizeof e);
    e.n_phys = n_phys;
    e.visit = visit;
    e.ctx = ctx;
    for (i = 0; i < nf; i++) {
        for (k = 0; k < e.n_primes && e.prime[k] != f[i]; k++)
            ;
        if (k == e.n_primes)
            e.prime[e.n_primes++] = f[i];
        e.mult[k]++;
    }
    for (i = 0; i < n_phys; i++) {
        int64_t g[64];
        int ng = mg_tpu_prime_factors(phys[i] / used[i], g);
        for (j = 0; j < ng; j++)
            for (k = 0; k < e.n_primes; k++)
                if (g[j] == e.prime[k])
                    e.avail[k][i]++;
    }
    mg_tpu_enum_prime(&e, 0);
}

struct mg_tpu_collect {
    int n_phys, count, cap;
    int64_t *out;
};

static void mg_tpu_collect_one(const int64_t *z, void *ctx)
{
    struct mg_tpu_collect *c = ctx;
    if (c->count < c->cap)
        memcpy(c->out + (size_t)c->count * (size_t)c->n_phys, z, (size_t)c->n_phys * sizeof *z);
    c->count++;
}

int mg_tpu_feasible_assignments(int n_phys, const int64_t *phys, const int64_t *used, int64_t size,
                                int64_t *out, int cap)
{
    struct mg_tpu_collect c = {n_phys, 0, cap, out};
    mg_tpu_enumerate(n_phys, phys, used, size, mg_tpu_collect_one, &c);
    return c.count;
}

bool mg_tpu_prefer_first(int n_phys, const int64_t *x, const int64_t *y, const int64_t *phys,
                         const int64_t *used)
{
    int64_t wx = 1, wy = 1, ox = 1, oy = 1;
    int nx = 0, ny = 0, i;

    /* Whole physical axes first, by the size they cover... */
    for (i = 0; i < n_phys; i++) {
        wx *= x[i] == phys[i] ? x[i] : 1;
        wy *= y[i] == phys[i] ? y[i] : 1;
    }
    if (wx != wy)
        return wx > wy;
    /* ...then by their number... */
    for (i = 0; i < n_phys; i++) {
        nx += x[i] == phys[i] && x[i] > 1;
        ny += y[i] == phys[i] && y[i] > 1;
    }
    if (nx != ny)
        return nx > ny;
    /* ...then the larger share of the axes that earlier logical axes have
     * used (what JAX computes, whatever its comment says)... */
    for (i = 0; i < n_phys; i++) {
        ox *= used[i] > 1 ? x[i] : 1;
        oy *= used[i] > 1 ? y[i] : 1;
    }
    if (ox != oy)
        return ox > oy;
    /* ...and last the lexicographically larger. */
    for (i = 0; i < n_phys; i++)
        if (x[i] != y[i])
            return x[i] > y[i];
    return false;
}

struct mg_tpu_best {
    int n_phys;
    bool found;
    int64_t z[MG_TPU_MAX_PHYSICAL];
    const int64_t *phys, *used;
};

static void mg_tpu_keep_best(const int64_t *z, void *ctx)
{
    struct mg_tpu_best *b = ctx;
    if (!b->found || mg_tpu_prefer_first(b->n_phys, z, b->z, b->phys, b->used)) {
        memcpy(b->z, z, (size_t)b->n_phys * sizeof *z);
        b->found = true;
    }
}

/* The shapes every assignment function accepts: ranks in range, sizes
 * positive, and as many logical as physical devices (below 2^31). */
static int mg_tpu_check_shapes(int n_phys, const int64_t *phys, int n_axes, const int64_t *shape,
                               char *reason, size_t cap)
{
    int64_t np = 1, nl = 1;
    int i;
    char a[160], b[160];
    if (n_phys < 1 || n_phys > MG_TPU_MAX_PHYSICAL || n_axes < 1 || n_axes > MG_TPU_MAX_AXES)
        return mg_tpu_fail(reason, cap,
                           "%d physical and %d logical axes: expected 1 to %d and 1 to %d", n_phys,
                           n_axes, MG_TPU_MAX_PHYSICAL, MG_TPU_MAX_AXES);
    for (i = 0; i < n_phys; i++) {
        if (phys[i] < 1 || phys[i] > INT32_MAX / np)
            return mg_tpu_fail(reason, cap, "physical axis %d of size %" PRId64 " is out of range",
                               i, phys[i]);
        np *= phys[i];
    }
    for (i = 0; i < n_axes; i++) {
        if (shape[i] < 1 || shape[i] > INT32_MAX / nl)
            return mg_tpu_fail(reason, cap, "logical axis %d of size %" PRId64 " is out of range",
                               i, shape[i]);
        nl *= shape[i];
    }
    if (np != nl) {
        mg_tpu_tuple(a, sizeof a, phys, n_phys, false);
        mg_tpu_tuple(b, sizeof b, shape, n_axes, false);
        return mg_tpu_fail(reason, cap,
                           "The number of devices in physical mesh %s does not match the number "
                           "of devices in logical mesh %s.",
                           a, b);
    }
    return 0;
}

int mg_tpu_split_assign(int n_phys, const int64_t *phys, int n_axes, const int64_t *shape,
                        int64_t assignment[][MG_TPU_MAX_AXES], char *reason, size_t cap)
{
    int64_t used[MG_TPU_MAX_PHYSICAL];
    int p, l, m;

    if (mg_tpu_check_shapes(n_phys, phys, n_axes, shape, reason, cap) != 0)
        return -1;
    for (p = 0; p < n_phys; p++)
        for (l = 0; l < n_axes; l++)
            assignment[p][l] = 1;
    /* From the most network-intensive (last) logical axis outwards, the
     * most preferred of the feasible assignments. */
    for (l = n_axes - 1; l >= 0; l--) {
        struct mg_tpu_best b;
        for (p = 0; p < n_phys; p++) {
            used[p] = 1;
            for (m = 0; m < n_axes; m++)
                used[p] *= assignment[p][m];
        }
        memset(&b, 0, sizeof b);
        b.n_phys = n_phys;
        b.phys = phys;
        b.used = used;
        mg_tpu_enumerate(n_phys, phys, used, shape[l], mg_tpu_keep_best, &b);
        if (!b.found)
            return mg_tpu_fail(reason, cap,
                               "no split assignment for logical axis %d of size %" PRId64
                               ": the physical axes have no room left for its prime factors",
                               l, shape[l]);
        for (p = 0; p < n_phys; p++)
            assignment[p][l] = b.z[p];
    }
    return 0;
}

/* JAX gives TPU7 and TPU7x, on their 4-d physical mesh (x, y, z, core),
 * the core axis first: it has the most bandwidth. Every other mesh has no
 * priority (docs/tpu.md §3). */
static bool mg_tpu_core_first(const char *device_kind, int n_phys)
{
    return n_phys == 4 && device_kind &&
           (strcmp(device_kind, "TPU7x") == 0 || strcmp(device_kind, "TPU7") == 0);
}

/* The rank of physical axis i under the core-first priority: the core
 * (axis 3) 0, then x, y, z 1, 2, 3. */
static int mg_tpu_axis_rank(int i)
{
    return i == 3 ? 0 : i + 1;
}

/* The subsets of `num` of the n_phys physical axes (bit i: axis i) in the
 * order JAX tries them: itertools.combinations order (index tuples in
 * lexicographic order), then, with core_first, stably sorted by the best
 * rank among their axes and then the sum of their ranks. Returns how many
 * (at most 6, as n_phys <= 4). */
static int mg_tpu_subsets(int n_phys, int num, bool core_first, unsigned *out)
{
    int idx[MG_TPU_MAX_PHYSICAL], key[8][2], i, j, n = 0;

    for (i = 0; i < num; i++)
        idx[i] = i;
    for (;;) {
        out[n] = 0;
        key[n][0] = MG_TPU_MAX_PHYSICAL, key[n][1] = 0;
        for (i = 0; i < num; i++) {
            int r = mg_tpu_axis_rank(idx[i]);
            out[n] |= 1u << idx[i];
            key[n][0] = r < key[n][0] ? r : key[n][0];
            key[n][1] += r;
        }
        n++;
        for (i = num - 1; i >= 0 && idx[i] == n_phys - num + i; i--)
            ;
        if (i < 0)
            break;
        idx[i]++;
        for (i++; i < num; i++)
            idx[i] = idx[i - 1] + 1;
    }
    /* Insertion sort moves an entry only past strictly greater keys, so it
     * is stable, as Python's sort is. */
    for (i = 1; core_first && i < n; i++)
        for (j = i; j > 0 && (key[j - 1][0] > key[j][0] ||
                              (key[j - 1][0] == key[j][0] && key[j - 1][1] > key[j][1]));
             j--) {
            unsigned m = out[j];
            int k0 = key[j][0], k1 = key[j][1];
            out[j] = out[j - 1], key[j][0] = key[j - 1][0], key[j][1] = key[j - 1][1];
            out[j - 1] = m, key[j - 1][0] = k0, key[j - 1][1] = k1;
        }
    return n;
}

/* The first subset of the room left, most axes first, whose sizes multiply
 * to `size`; it takes those axes (their room becomes 0). Returns the subset,
 * or 0 when there is none. */
static unsigned mg_tpu_take_axes(int n_phys, int64_t *room, int64_t size, bool core_first)
{
    unsigned subsets[8];
    int num, k, i;

    for (num = n_phys; num >= 1; num--) {
        int n = mg_tpu_subsets(n_phys, num, core_first, subsets);
        for (k = 0; k < n; k++) {
            int64_t prod = 1;
            for (i = 0; i < n_phys; i++)
                prod *= subsets[k] & (1u << i) ? room[i] : 1;
            if (prod != size)
                continue;
            for (i = 0; i < n_phys; i++)
                room[i] = subsets[k] & (1u << i) ? 0 : room[i];
            return subsets[k];
        }
    }
    return 0;
}

int mg_tpu_torus_assign(const char *device_kind, int n_phys, const int64_t *phys, int n_axes,
                        const int64_t *shape, bool allow_split,
                        int64_t assignment[][MG_TPU_MAX_AXES], bool *split, char *reason,
                        size_t cap)
{
    int64_t room[MG_TPU_MAX_PHYSICAL];
    unsigned chosen[MG_TPU_MAX_AXES];
    bool core_first = mg_tpu_core_first(device_kind, n_phys);
    int p, l;
    char left[160];

    *split = false;
    if (mg_tpu_check_shapes(n_phys, phys, n_axes, shape, reason, cap) != 0)
        return -1;
    memcpy(room, phys, (size_t)n_phys * sizeof *room);
    memset(chosen, 0, sizeof chosen);
    /* From the most network-intensive (last) logical axis outwards. */
    for (l = n_axes - 1; l >= 0; l--) {
        chosen[l] = mg_tpu_take_axes(n_phys, room, shape[l], core_first);
        if (chosen[l] || shape[l] == 1)
            continue;
        if (allow_split) {
            *split = true;
            return mg_tpu_split_assign(n_phys, phys, n_axes, shape, assignment, reason, cap);
        }
        mg_tpu_tuple(left, sizeof left, room, n_phys, true);
        return mg_tpu_fail(reason, cap,
                           "Failed to find assignment for logical_axis_index %d of size "
                           "%" PRId64 " with remaining assignable mesh %s: each logical axis "
                           "must be the product of some of the physical axes (e.g. logical "
                           "mesh (4, 16) on physical 4x4x4), unless allow_split_physical_axes "
                           "is set",
                           l, shape[l], left);
    }
    for (p = 0; p < n_phys; p++)
        for (l = 0; l < n_axes; l++)
            assignment[p][l] = chosen[l] & (1u << p) ? phys[p] : 1;
    return 0;
}

void mg_tpu_logical_mesh(int n_phys, int n_axes, const int64_t *shape,
                         const int64_t assignment[][MG_TPU_MAX_AXES], const int32_t *cells,
                         int32_t *out)
{
    int64_t n = mg_tpu_prod(shape, n_axes), m;
    int64_t c[MG_TPU_MAX_AXES], d[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES];
    int p, l;

    for (m = 0; m < n; m++) {
        int64_t rest = m, flat = 0;
        for (l = n_axes - 1; l >= 0; l--) {
            c[l] = rest % shape[l];
            rest /= shape[l];
        }
        /* Logical axis l is made of the physical axes' shares of it, the
         * first physical axis most significant... */
        for (l = 0; l < n_axes; l++) {
            rest = c[l];
            for (p = n_phys - 1; p >= 0; p--) {
                d[p][l] = rest % assignment[p][l];
                rest /= assignment[p][l];
            }
        }
        /* ...and the physical mesh, read flat, is the shares in the order
         * (physical axis, logical axis): the first logical axis most
         * significant inside a physical axis, so the more intensive (later)
         * axes take the minor, closer positions. JAX reshapes the flat mesh
         * this way whether or not each physical axis's shares multiply to
         * its size. */
        for (p = 0; p < n_phys; p++)
            for (l = 0; l < n_axes; l++)
                flat = flat * assignment[p][l] + d[p][l];
        out[m] = cells[flat];
    }
}

/* ---- device-kind handlers --------------------------------------------------- */

/* Orders of a tray that make rings, as JAX's mesh_utils lists them. */
static const int mg_tpu_tray_ring[8] = {0, 1, 2, 3, 6, 7, 4, 5};
static const int mg_tpu_tray_2x2_ring[4] = {0, 1, 3, 2};
static const int mg_tpu_tray_4x4_ring[16] = {0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4};
static const int mg_tpu_v5e_tray_ring[8] = {0, 1, 2, 3, 7, 6, 5, 4};
static const int mg_tpu_v5e_tray_iota[8] = {0, 4, 2, 6, 1, 5, 3, 7};
static const int mg_tpu_v5p_2x2x2[8] = {0, 1, 3, 2, 6, 7, 5, 4};
static const int mg_tpu_7x_tray_2x2x2_ring[8] = {0, 1, 2, 3, 6, 7, 4, 5};

/* A handler writes the permutation and returns 1, declines with 0 (the
 * generic steps follow), or fails with -1 where JAX raises. */
typedef int (*mg_tpu_handler)(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch,
                              char *reason, size_t cap);

static int mg_tpu_v2_v3(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch,
                        char *reason, size_t cap)
{
    int i;
    (void)scratch, (void)reason, (void)cap;
    for (i = 0; i < q->n_devices; i++) {
        if (q->n_devices == 8)
            perm[i] = mg_tpu_tray_ring[i];
        else if (q->shape[q->n_axes - 1] == 8)
            perm[i] = i - i % 8 + mg_tpu_tray_ring[i % 8];
        else
            perm[i] = i;
    }
    return 1;
}

static int mg_tpu_v4i_v8i(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch,
                          char *reason, size_t cap)
{
    int i;
    (void)scratch, (void)reason, (void)cap;
    if (q->n_devices != 4)
        return 0;
    for (i = 0; i < 4; i++)
        perm[i] = mg_tpu_tray_2x2_ring[i];
    return 1;
}

/* A device's place in x-minor order: Python's stable sort by reversed
 * coordinates, the index breaking ties. */
struct mg_tpu_zyx {
    int32_t key[3]; /* z, y, x */
    int32_t index;
};

static int mg_tpu_cmp_zyx(const void *a, const void *b)
{
    const struct mg_tpu_zyx *da = a, *db = b;
    int k;
    for (k = 0; k < 3; k++)
        if (da->key[k] != db->key[k])
            return da->key[k] < db->key[k] ? -1 : 1;
    return da->index < db->index ? -1 : 1;
}

/* The devices sorted x-minor into scratch, and the bounds from the largest
 * coordinates (compared as tuples, as Python's max does). */
static void mg_tpu_sequential(const struct mg_tpu_request *q, int32_t *scratch, int bound[3])
{
    const int32_t *top = q->devices[0].coords;
    struct mg_tpu_zyx *s = malloc((size_t)q->n_devices * sizeof *s);
    int i, k;
    if (!s)
        mg_oom();
    for (i = 0; i < q->n_devices; i++) {
        const int32_t *c = q->devices[i].coords;
        for (k = 0; k < 3 && c[k] == top[k]; k++)
            ;
        if (k < 3 && c[k] > top[k])
            top = c;
        for (k = 0; k < 3; k++)
            s[i].key[k] = c[2 - k];
        s[i].index = i;
    }
    for (k = 0; k < 3; k++)
        bound[k] = top[k] + 1;
    qsort(s, (size_t)q->n_devices, sizeof *s, mg_tpu_cmp_zyx);
    for (i = 0; i < q->n_devices; i++)
        scratch[i] = s[i].index;
    free(s);
}

static int mg_tpu_v5e(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch, char *reason,
                      size_t cap)
{
    const int *order = NULL;
    int b[3], i, n = q->n_devices;
    int64_t longest = 0;
    (void)reason, (void)cap; /* it cannot fail: no reason to give */
    mg_tpu_sequential(q, scratch, b);
    for (i = 0; i < q->n_axes; i++)
        longest = q->shape[i] > longest ? q->shape[i] : longest;
    if (b[0] == 2 && b[1] == 2 && b[2] == 1 && n == 4)
        order = mg_tpu_tray_2x2_ring;
    else if (n == 8)
        order = b[0] == 2 && b[1] == 2 && b[2] == 2 ? mg_tpu_v5e_tray_iota : mg_tpu_v5e_tray_ring;
    else if (b[0] == 4 && b[1] == 4 && b[2] == 1 && n == 16 && longest == 16)
        /* Only when the whole mesh is one ring. */
        order = mg_tpu_tray_4x4_ring;
    if (!order)
        return 0;
    for (i = 0; i < n; i++)
        perm[i] = scratch[order[i]];
    return 1;
}

static int mg_tpu_v5p(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch, char *reason,
                      size_t cap)
{
    int b[3], i;
    (void)reason, (void)cap; /* it cannot fail: no reason to give */
    mg_tpu_sequential(q, scratch, b);
    if (!(b[0] == 2 && b[1] == 2 && b[2] == 2 && q->n_devices == 8))
        return 0;
    for (i = 0; i < 8; i++)
        perm[i] = scratch[mg_tpu_v5p_2x2x2[i]];
    return 1;
}

static int mg_tpu_7x(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch, char *reason,
                     size_t cap)
{
    int64_t shape[MG_TPU_MAX_PHYSICAL];
    int i, n = q->n_devices;
    if (n % 8 != 0 || n > 32)
        return 0;
    if (mg_tpu_physical_mesh(q->device_kind, q->devices, n, shape, scratch, reason, cap) < 0)
        return -1;
    /* Rings along x and y reach over at most 2x2 chips; rings of 8 devices
     * (2x2 chips, both cores) repeat along z. */
    if (shape[0] > 2 || shape[1] > 2)
        return 0;
    for (i = 0; i < n; i++)
        perm[i] = i - i % 8 + mg_tpu_7x_tray_2x2x2_ring[i % 8];
    return 1;
}

/* JAX's device_kind_handler_dict, key by key in its order, with the name of
 * the function JAX runs for each (the JAX version is the one docs/tpu.md names). */
static const struct {
    const char *kind;
    mg_tpu_handler fn;
    const char *jax_function;
} mg_tpu_handlers[] = {
    {"TPU v2", mg_tpu_v2_v3, "_tpu_v2_v3_create_device_mesh"},
    {"TPU v3", mg_tpu_v2_v3, "_tpu_v2_v3_create_device_mesh"},
    {"TPU v4 lite", mg_tpu_v4i_v8i, "_v4i_v8i_create_device_mesh"},
    {"TPU v5 lite", mg_tpu_v5e, "_v5e_create_device_mesh"},
    {"TPU v5e", mg_tpu_v5e, "_v5e_create_device_mesh"},
    {"TPU v5p", mg_tpu_v5p, "_v5p_create_device_mesh"},
    {"TPU v5", mg_tpu_v5p, "_v5p_create_device_mesh"},
    {"TPU v6 lite", mg_tpu_v5e, "_v5e_create_device_mesh"},
    {"TPU7x", mg_tpu_7x, "_7x_create_device_mesh"},
    {"TPU7", mg_tpu_7x, "_7x_create_device_mesh"},
    {"TPU8i", mg_tpu_v4i_v8i, "_v4i_v8i_create_device_mesh"},
};

int mg_tpu_handler_count(void)
{
    return MG_COUNT(mg_tpu_handlers);
}

const char *mg_tpu_handler_kind(int i, const char **jax_function)
{
    if (i < 0 || i >= MG_COUNT(mg_tpu_handlers))
        return NULL;
    if (jax_function)
        *jax_function = mg_tpu_handlers[i].jax_function;
    return mg_tpu_handlers[i].kind;
}

/* ---- create_device_mesh ---------------------------------------------------- */

/* jekbradbury's transposes for contiguous submeshes: physical topology,
 * mesh shape without its 1s, and the transpose. */
static const struct {
    int64_t topology[3];
    int64_t mesh[2];
    int perm[3];
} mg_tpu_tricks[] = {
    {{2, 2, 1}, {2, 2}, {0, 1, 2}},     {{2, 2, 4}, {4, 4}, {0, 1, 2}},
    {{4, 4, 4}, {16, 4}, {0, 2, 1}},    {{4, 8, 8}, {64, 4}, {0, 2, 1}},
    {{4, 8, 8}, {4, 64}, {0, 2, 1}},    {{8, 8, 8}, {64, 8}, {0, 2, 1}},
    {{8, 16, 16}, {256, 8}, {0, 2, 1}}, {{8, 16, 16}, {8, 256}, {0, 2, 1}},
};

/* _transpose_trick on the physical mesh (shape and cells, transposed into
 * tmp and copied back), or -1 with JAX's message. */
static int mg_tpu_transpose_trick(int rank, int64_t *shape, int32_t *cells, int32_t *tmp, int n,
                                  const struct mg_tpu_request *q, char *reason, size_t cap)
{
    int64_t nontrivial[MG_TPU_MAX_AXES], old[3];
    int i, k, nn = 0, any = -1, match = -1;
    char topo[96], mesh[256], avail[256];

    for (i = 0; i < MG_COUNT(mg_tpu_tricks); i++)
        if (rank == 3 && memcmp(mg_tpu_tricks[i].topology, shape, sizeof old) == 0 && any < 0)
            any = i;
    mg_tpu_tuple(topo, sizeof topo, shape, rank, false);
    if (any < 0)
        return mg_tpu_fail(reason, cap,
                           "create_device_mesh cannot create contiguous submeshes for physical "
                           "mesh topology %s",
                           topo);
    for (i = 0; i < q->n_axes; i++)
        if (q->shape[i] != 1)
            nontrivial[nn++] = q->shape[i];
    avail[0] = '\0';
    mg_tpu_append(avail, sizeof avail, "[");
    for (i = any; i < MG_COUNT(mg_tpu_tricks); i++) {
        if (memcmp(mg_tpu_tricks[i].topology, shape, sizeof old) != 0)
            continue;
        if (nn == 2 && mg_tpu_tricks[i].mesh[0] == nontrivial[0] &&
            mg_tpu_tricks[i].mesh[1] == nontrivial[1])
            match = i;
        mg_tpu_tuple(mesh, sizeof mesh, mg_tpu_tricks[i].mesh, 2, false);
        mg_tpu_append(avail, sizeof avail, "%s%s", i > any ? ", " : "", mesh);
    }
    mg_tpu_append(avail, sizeof avail, "]");
    if (match < 0) {
        mg_tpu_tuple(mesh, sizeof mesh, q->shape, q->n_axes, false);
        return mg_tpu_fail(reason, cap,
                           "create_device_mesh cannot create contiguous submeshes for mesh_shape "
                           "%s and physical mesh topology %s. Available mesh_shapes: %s",
                           mesh, topo, avail);
    }
    memcpy(old, shape, sizeof old);
    for (k = 0; k < 3; k++)
        shape[k] = old[mg_tpu_tricks[match].perm[k]];
    for (i = 0; i < n; i++) {
        int64_t at[3], o[3], rest = i;
        for (k = 2; k >= 0; k--) {
            at[k] = rest % shape[k];
            rest /= shape[k];
        }
        for (k = 0; k < 3; k++)
            o[mg_tpu_tricks[match].perm[k]] = at[k];
        tmp[i] = cells[(o[0] * old[1] + o[1]) * old[2] + o[2]];
    }
    memcpy(cells, tmp, (size_t)n * sizeof *cells);
    return 0;
}

static int mg_tpu_check_request(const struct mg_tpu_request *q, const int64_t *shape, char *reason,
                                size_t cap)
{
    int64_t prod = 1;
    int i;
    char t[256];
    if (q->n_axes < 1 || q->n_axes > MG_TPU_MAX_AXES)
        return mg_tpu_fail(reason, cap, "%d mesh axes: expected 1 to %d", q->n_axes,
                           MG_TPU_MAX_AXES);
    for (i = 0; i < q->n_axes; i++) {
        if (shape[i] < 1 || shape[i] > INT32_MAX)
            return mg_tpu_fail(reason, cap, "mesh axis %d has size %" PRId64, i, shape[i]);
        prod = prod <= INT32_MAX ? prod * shape[i] : prod;
    }
    if (prod != q->n_devices) {
        mg_tpu_tuple(t, sizeof t, shape, q->n_axes, false);
        return mg_tpu_fail(reason, cap,
                           "Number of devices %d must equal the product of mesh_shape %s",
                           q->n_devices, t);
    }
    return 0;
}

int mg_tpu_create_device_mesh(const struct mg_tpu_request *q, struct mg_tpu_result *r)
{
    int32_t *cells = NULL, *tmp = NULL;
    int n = q->n_devices, i, rank, rc = -1;
    bool split;

    r->method = MG_TPU_HANDLER;
    r->n_physical = 0;
    memset(r->physical_shape, 0, sizeof r->physical_shape);
    memset(r->assignment, 0, sizeof r->assignment);
    r->reason[0] = '\0';
    if (mg_tpu_check_request(q, q->shape, r->reason, sizeof r->reason) != 0)
        return -1;
    cells = malloc((size_t)n * sizeof *cells);
    tmp = malloc((size_t)n * sizeof *tmp);
    if (!cells || !tmp)
        mg_oom();
    /* The handler is the last device's kind's, as in JAX; all devices of a
     * request share one kind here. */
    for (i = 0; i < MG_COUNT(mg_tpu_handlers); i++) {
        if (strcmp(mg_tpu_handlers[i].kind, q->device_kind) != 0)
            continue;
        rc = mg_tpu_handlers[i].fn(q, r->perm, tmp, r->reason, sizeof r->reason);
        if (rc != 0) {
            rc = rc > 0 ? 0 : -1;
            goto out;
        }
        break;
    }
    rc = -1;
    rank = mg_tpu_physical_mesh(q->device_kind, q->devices, n, r->physical_shape, cells, r->reason,
                                sizeof r->reason);
    if (rank < 0)
        goto out;
    r->n_physical = rank;
    if (q->contiguous_submeshes && mg_tpu_transpose_trick(rank, r->physical_shape, cells, tmp, n, q,
                                                          r->reason, sizeof r->reason) != 0)
        goto out;
    if (mg_tpu_torus_assign(q->device_kind, rank, r->physical_shape, q->n_axes, q->shape,
                            q->allow_split_physical_axes, r->assignment, &split, r->reason,
                            sizeof r->reason) != 0)
        goto out;
    r->method = split ? MG_TPU_SPLIT : MG_TPU_TORUS;
    mg_tpu_logical_mesh(rank, q->n_axes, q->shape, (const int64_t(*)[MG_TPU_MAX_AXES])r->assignment,
                        cells, r->perm);
    rc = 0;
out:
    free(cells);
    free(tmp);
    return rc;
}

/* ---- create_hybrid_device_mesh ---------------------------------------------- */

static int32_t mg_tpu_granule_key(const struct mg_tpu_request *q, int i)
{
    return q->process_is_granule ? q->devices[i].process : q->devices[i].slice;
}

/* The hybrid mesh from each granule's own mesh (local, in granule device
 * indices): DCN is the outer factor on every axis, so along axis k position
 * c lies in granule coordinate c / ici[k] at local coordinate c % ici[k]. */
static void mg_tpu_place_hybrid(const struct mg_tpu_request *q, const int64_t *total,
                                const int32_t *order, const int32_t *start, const int32_t *local,
                                int32_t *perm)
{
    int i, k;

    for (i = 0; i < q->n_devices; i++) {
        int64_t rest = i, gi = 0, li = 0, c[MG_TPU_MAX_AXES];
        for (k = q->n_axes - 1; k >= 0; k--) {
            c[k] = rest % total[k];
            rest /= total[k];
        }
        for (k = 0; k < q->n_axes; k++) {
            gi = gi * q->dcn[k] + c[k] / q->shape[k];
            li = li * q->shape[k] + c[k] % q->shape[k];
        }
        perm[i] = order[start[gi] + local[start[gi] + li]];
    }
}

/* The granules of the request's devices: keys[0..g) in order of first
 * appearance (sorted when asked), and order[] the devices grouped by
 * granule, granule j's in device order at order[start[j]..start[j + 1]).
 * Returns g. */
static int mg_tpu_granules(const struct mg_tpu_request *q, int32_t *keys, int32_t *order,
                           int32_t *start)
{
    int n = q->n_devices, g = 0, i, j, k;

    for (i = 0; i < n; i++) {
        int32_t key = mg_tpu_granule_key(q, i);
        for (j = 0; j < g && keys[j] != key; j++)
            ;
        if (j == g)
            keys[g++] = key;
    }
    if (q->sort_granules)
        for (i = 1; i < g; i++)
            for (j = i; j > 0 && keys[j - 1] > keys[j]; j--) {
                int32_t s = keys[j];
                keys[j] = keys[j - 1];
                keys[j - 1] = s;
            }
    for (j = 0, k = 0; j < g; j++) {
        start[j] = k;
        for (i = 0; i < n; i++)
            if (mg_tpu_granule_key(q, i) == keys[j])
                order[k++] = i;
    }
    start[g] = n;
    return g;
}

int mg_tpu_create_hybrid_device_mesh(const struct mg_tpu_request *q, struct mg_tpu_result *r)
{
    int n = q->n_devices, g = 0, i, j, k, rc = -1;
    int64_t total[MG_TPU_MAX_AXES], dcn_prod = 1;
    int32_t *keys = NULL, *order = NULL, *start = NULL, *local = NULL;
    struct mg_tpu_device *sub = NULL;
    struct mg_tpu_result one;
    char t[256];

    r->reason[0] = '\0';
    r->method = MG_TPU_HANDLER;
    r->n_physical = 0;
    if (q->n_axes < 1 || q->n_axes > MG_TPU_MAX_AXES || n < 1)
        return mg_tpu_fail(r->reason, sizeof r->reason, "%d mesh axes and %d devices", q->n_axes,
                           n);
    for (k = 0; k < q->n_axes; k++) {
        if (q->dcn[k] < 1 || q->shape[k] < 1 || q->dcn[k] > INT32_MAX / q->shape[k])
            return mg_tpu_fail(r->reason, sizeof r->reason,
                               "axis %d: ICI %" PRId64 " x DCN %" PRId64 " is out of range", k,
                               q->shape[k], q->dcn[k]);
        total[k] = q->shape[k] * q->dcn[k];
        dcn_prod = dcn_prod <= INT32_MAX ? dcn_prod * q->dcn[k] : dcn_prod;
    }
    keys = malloc((size_t)n * sizeof *keys);
    order = malloc((size_t)n * sizeof *order);
    start = malloc(((size_t)n + 1) * sizeof *start);
    local = malloc((size_t)n * sizeof *local);
    sub = malloc((size_t)n * sizeof *sub);
    if (!keys || !order || !start || !local || !sub)
        mg_oom();
    g = mg_tpu_granules(q, keys, order, start);
    if (dcn_prod != g) {
        mg_tpu_tuple(t, sizeof t, q->dcn, q->n_axes, false);
        mg_tpu_fail(r->reason, sizeof r->reason,
                    "Number of slices %d must equal the product of dcn_mesh_shape %s", g, t);
        goto out;
    }
    /* Each granule's mesh, in local (granule) device indices. */
    for (j = 0; j < g; j++) {
        struct mg_tpu_request sq = *q;
        int cnt = start[j + 1] - start[j];
        for (i = 0; i < cnt; i++)
            sub[i] = q->devices[order[start[j] + i]];
        sq.devices = sub;
        sq.n_devices = cnt;
        sq.dcn = NULL;
        sq.contiguous_submeshes = false;
        one.perm = local + start[j];
        if (mg_tpu_create_device_mesh(&sq, &one) != 0) {
            mg_tpu_fail(r->reason, sizeof r->reason, "%s %d: %s",
                        q->process_is_granule ? "process" : "slice", (int)keys[j], one.reason);
            goto out;
        }
        if (j == 0) {
            r->method = one.method;
            r->n_physical = one.n_physical;
            memcpy(r->physical_shape, one.physical_shape, sizeof r->physical_shape);
            memcpy(r->assignment, one.assignment, sizeof r->assignment);
        }
    }
    mg_tpu_place_hybrid(q, total, order, start, local, r->perm);
    rc = 0;
out:
    free(keys);
    free(order);
    free(start);
    free(local);
    free(sub);
    return rc;
}
