/*
 * TPU slices and JAX's device assignment for them (docs/tpu.md).
 *
 * The family table holds what the Cloud TPU documentation and JAX say about
 * each generation: the device kind, devices per chip, chips per host and the
 * topologies that exist. A slice's devices come out in JAX's device order
 * (process-tiled: hosts in worker order, inside a host z, y, x, then the
 * core), with the coordinates and ids JAX's own tests give them.
 *
 * The assignment follows mesh_utils.create_device_mesh step by step: a
 * handler for the device kind (ring orders of a tray) may answer first;
 * otherwise the devices are placed into their physical mesh, transposed for
 * contiguous submeshes when asked, and the logical axes are assigned to
 * physical axes from the most network-intensive (last) one outwards, whole
 * axes first, split axes when allowed. Where JAX raises, the reason is
 * written and -1 returned. Knows nothing of YAML, hwloc, the spec or the
 * inventory; libc only.
 */
#include "tpu.h"

/* MG_COUNT, MG_PRINTF: private to meshgen, reached by its place in the tree. */
#include "../runtime/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- families ------------------------------------------------------------ */

/* Topologies as the Cloud TPU documentation lists them (docs/tpu.md). */
static const char *const mg_tpu_v2_shapes[] = {"2x2", "4x4", "8x8", "8x16", "16x16", NULL};
static const char *const mg_tpu_v3_shapes[] = {"2x2",   "4x4",   "4x8",   "8x8", "8x16",
                                               "16x16", "16x32", "32x32", NULL};
static const char *const mg_tpu_lite_shapes[] = {"1x1", "2x2",  "2x4",   "4x4", "4x8",
                                                 "8x8", "8x16", "16x16", NULL};
static const char *const mg_tpu_cube_shapes[] = {"2x2x1", "2x2x2", "2x2x4", "2x4x4", NULL};
static const char *const mg_tpu_7x_shapes[] = {"1x1x1", "2x2x1", "2x2x2", "2x2x4", "2x4x4", NULL};

const struct mg_tpu_family mg_tpu_families[] = {
    {"v2", "TPU v2", 2, 2, 4, 256, mg_tpu_v2_shapes, false},
    {"v3", "TPU v3", 2, 2, 4, 1024, mg_tpu_v3_shapes, false},
    {"v4", "TPU v4", 1, 3, 4, 4096, mg_tpu_cube_shapes, true},
    {"v5e", "TPU v5 lite", 1, 2, 8, 256, mg_tpu_lite_shapes, false},
    {"v5p", "TPU v5", 1, 3, 4, 8960, mg_tpu_cube_shapes, true},
    {"v6e", "TPU v6 lite", 1, 2, 8, 256, mg_tpu_lite_shapes, false},
    {"tpu7x", "TPU7x", 2, 3, 4, 9216, mg_tpu_7x_shapes, true},
};
const int mg_tpu_family_count = (int)(sizeof mg_tpu_families / sizeof mg_tpu_families[0]);

MG_PRINTF(3, 4)
static int mg_tpu_fail(char *reason, size_t cap, const char *fmt, ...)
{
    va_list ap;
    if (cap) {
        va_start(ap, fmt);
        vsnprintf(reason, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Appends to a reason buffer, keeping it terminated when it fills up. */
MG_PRINTF(3, 4)
static void mg_tpu_append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    if (len + 1 >= cap)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* A tuple as Python prints it, so that reasons read as JAX's messages do:
 * "(1, 128, 2)", "(8,)", or with brackets "[0, 4, 0]". */
static void mg_tpu_tuple(char *buf, size_t cap, const int64_t *v, int n, bool list)
{
    int i;
    buf[0] = '\0';
    mg_tpu_append(buf, cap, "%c", list ? '[' : '(');
    for (i = 0; i < n; i++)
        mg_tpu_append(buf, cap, "%s%" PRId64, i ? ", " : "", v[i]);
    mg_tpu_append(buf, cap, "%s%c", !list && n == 1 ? "," : "", list ? ']' : ')');
}

const struct mg_tpu_family *mg_tpu_family_find(const char *name, char *reason, size_t cap)
{
    int i;
    for (i = 0; i < mg_tpu_family_count; i++)
        if (strcmp(mg_tpu_families[i].name, name) == 0)
            return &mg_tpu_families[i];
    if (cap) {
        snprintf(reason, cap, "unknown TPU family '%s'; the families are", name);
        for (i = 0; i < mg_tpu_family_count; i++)
            mg_tpu_append(reason, cap, "%s %s", i ? "," : "", mg_tpu_families[i].name);
    }
    return NULL;
}

/* Reads "AxB" or "AxBxC"; 0 on success. Each number is 1..99999, which
 * keeps every product of three in 64 bits and any real slice in range. */
static int mg_tpu_read_dims(const char *text, int want, int dims[3])
{
    const char *s = text;
    int n = 0;
    dims[0] = dims[1] = dims[2] = 1;
    for (;;) {
        long v = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 6) {
            v = v * 10 + (*s++ - '0');
            digits++;
        }
        if (digits == 0 || digits > 5 || v < 1 || n == want)
            return -1;
        dims[n++] = (int)v;
        if (*s == '\0')
            break;
        if (*s++ != 'x')
            return -1;
    }
    return n == want ? 0 : -1;
}

int mg_tpu_parse_topology(const struct mg_tpu_family *f, const char *text, int dims[3],
                          char *reason, size_t cap)
{
    int i, d[3];
    int64_t chips;

    if (mg_tpu_read_dims(text, f->topology_dims, dims) != 0)
        return mg_tpu_fail(reason, cap, "'%s' is not a %s topology: expected %s", text, f->name,
                           f->topology_dims == 2 ? "AxB (chips along x and y)"
                                                 : "AxBxC (chips along x, y and z)");
    for (i = 0; f->shapes[i]; i++) {
        if (mg_tpu_read_dims(f->shapes[i], f->topology_dims, d) != 0)
            continue;
        if (d[0] == dims[0] && d[1] == dims[1] && d[2] == dims[2])
            return 0;
        /* The documentation names a 2-d slice by its chip count, not its
         * orientation (JAX's tests mock the v5e tray of "2x4" as x=4, y=2),
         * so either way round is the same slice. */
        if (f->topology_dims == 2 && d[0] == dims[1] && d[1] == dims[0])
            return 0;
    }
    chips = (int64_t)dims[0] * dims[1] * dims[2];
    if (f->cube_multiples && dims[0] % 4 == 0 && dims[1] % 4 == 0 && dims[2] % 4 == 0 &&
        dims[0] <= dims[1] && dims[1] <= dims[2] && chips <= f->max_chips)
        return 0;

    snprintf(reason, cap, "%s has no %s slice; its topologies are", f->name, text);
    for (i = 0; f->shapes[i]; i++)
        mg_tpu_append(reason, cap, "%s %s", i ? "," : "", f->shapes[i]);
    if (f->cube_multiples)
        mg_tpu_append(reason, cap,
                      " and every AxBxC with A <= B <= C, each a multiple of 4, of at most %d "
                      "chips (4x4x4, 4x4x8, 4x8x8, 8x8x8, ...)",
                      f->max_chips);
    else
        mg_tpu_append(reason, cap, " (either way round)");
    return -1;
}

int mg_tpu_wraparound(const struct mg_tpu_family *f, const int dims[3], bool wrap[3])
{
    int side = 1, i, n = 0;
    bool cubes = dims[0] % 4 == 0 && dims[1] % 4 == 0 && dims[2] % 4 == 0;

    /* A 2-D pod is square: 256 chips as 16x16, 1024 as 32x32. */
    while ((int64_t)(side + 1) * (side + 1) <= f->max_chips)
        side++;
    for (i = 0; i < 3; i++) {
        wrap[i] = f->topology_dims == 3 ? cubes : i < 2 && dims[i] == side;
        n += wrap[i];
    }
    return n;
}

/* ---- the devices of a slice ---------------------------------------------- */

int mg_tpu_layout_devices(const struct mg_tpu_layout *l, struct mg_tpu_device *out, int cap)
{
    int nh[3], k, n = 0, hosts;
    int hx, hy, hz, dx, dy, dz, c, total_chips;
    int64_t total = l->devices_per_chip;

    for (k = 0; k < 3; k++) {
        if (l->dims[k] < 1 || l->host_dims[k] < 1 || l->dims[k] % l->host_dims[k] != 0)
            return -1;
        nh[k] = l->dims[k] / l->host_dims[k];
        total *= l->dims[k];
    }
    if (l->devices_per_chip < 1 || total > cap)
        return -1;
    hosts = nh[0] * nh[1] * nh[2];
    total_chips = l->dims[0] * l->dims[1] * l->dims[2];
    for (hz = 0; hz < nh[2]; hz++)
        for (hy = 0; hy < nh[1]; hy++)
            for (hx = 0; hx < nh[0]; hx++)
                for (dz = 0; dz < l->host_dims[2]; dz++)
                    for (dy = 0; dy < l->host_dims[1]; dy++)
                        for (dx = 0; dx < l->host_dims[0]; dx++)
                            for (c = 0; c < l->devices_per_chip; c++) {
                                struct mg_tpu_device *d = &out[n++];
                                int x = hx * l->host_dims[0] + dx;
                                int y = hy * l->host_dims[1] + dy;
                                int z = hz * l->host_dims[2] + dz;
                                d->coords[0] = x;
                                d->coords[1] = y;
                                d->coords[2] = z;
                                d->core_on_chip = c;
                                d->host = hx + nh[0] * (hy + nh[1] * hz);
                                d->process = l->slice * hosts + d->host;
                                d->slice = l->slice;
                                /* JAX's tests number chips x fastest over the
                                 * whole (multi)slice, cores innermost. */
                                int chip =
                                    x + l->dims[0] * (y + l->dims[1] * z) + total_chips * l->slice;
                                d->id = c + l->devices_per_chip * chip;
                            }
    return n;
}

int mg_tpu_slice_layout(const struct mg_tpu_family *f, const int dims[3], int n_hosts, int slice,
                        struct mg_tpu_layout *l, char *reason, size_t cap)
{
    int64_t chips = (int64_t)dims[0] * dims[1] * dims[2];
    bool single = chips <= f->single_host_chips;
    /* Multi-host slices have hosts of 2x2 chips (4 chips per TPU VM). */
    int64_t multi = dims[0] % 2 == 0 && dims[1] % 2 == 0 && chips / 4 > 1 ? chips / 4 : 0;
    char topo[48];

    memset(l, 0, sizeof *l);
    memcpy(l->dims, dims, sizeof l->dims);
    l->devices_per_chip = f->devices_per_chip;
    l->slice = slice;
    if (n_hosts == 1 && single) {
        memcpy(l->host_dims, dims, sizeof l->host_dims);
        return 0;
    }
    if (n_hosts == multi) {
        l->host_dims[0] = 2;
        l->host_dims[1] = 2;
        l->host_dims[2] = 1;
        return 0;
    }
    if (f->topology_dims == 2)
        snprintf(topo, sizeof topo, "%dx%d", dims[0], dims[1]);
    else
        snprintf(topo, sizeof topo, "%dx%dx%d", dims[0], dims[1], dims[2]);
    snprintf(reason, cap, "a %s %s slice (%" PRId64 " chips) has ", f->name, topo, chips);
    if (single)
        mg_tpu_append(reason, cap, "1 host%s", multi ? "" : ",");
    if (single && multi)
        mg_tpu_append(reason, cap, " of %" PRId64 " chips or ", chips);
    if (multi)
        mg_tpu_append(reason, cap, "%" PRId64 " hosts of 4 chips (2x2) each,", multi);
    mg_tpu_append(reason, cap, " not %d", n_hosts);
    return -1;
}

/* ---- the physical mesh ---------------------------------------------------- */

static int64_t mg_tpu_prod(const int64_t *v, int n)
{
    int64_t p = 1;
    int i;
    for (i = 0; i < n; i++)
        p *= v[i];
    return p;
}

/* The smallest and largest x, y, z and core of n >= 1 devices. */
static void mg_tpu_bounds(const struct mg_tpu_device *devices, int n, int32_t lo[4], int32_t hi[4])
{
    int i, k;

    for (k = 0; k < 4; k++)
        lo[k] = hi[k] = k < 3 ? devices[0].coords[k] : devices[0].core_on_chip;
    for (i = 1; i < n; i++)
        for (k = 0; k < 4; k++) {
            int32_t v = k < 3 ? devices[i].coords[k] : devices[i].core_on_chip;
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
}

/* Places device i at its cell of the physical mesh (cells has n entries of
 * the mesh `shape` of `rank` axes) and reports the first cell no device
 * fills. Returns rank, or -1 after writing the reason. */
static int mg_tpu_fill_cells(const struct mg_tpu_device *devices, int n, bool v2v3,
                             const int32_t lo[4], const int64_t *shape, int rank, int32_t *cells,
                             char *reason, size_t cap)
{
    int i, k;

    for (i = 0; i < n; i++)
        cells[i] = -1;
    for (i = 0; i < n; i++) {
        const struct mg_tpu_device *d = &devices[i];
        int64_t at[4], flat = 0;
        at[0] = d->coords[0] - lo[0];
        at[1] = d->coords[1] - lo[1];
        at[2] = v2v3 ? d->core_on_chip - lo[3] : d->coords[2] - lo[2];
        at[3] = d->core_on_chip - lo[3];
        for (k = 0; k < rank; k++)
            flat = flat * shape[k] + at[k];
        cells[flat] = i;
    }
    for (i = 0; i < n; i++)
        if (cells[i] < 0) {
            int64_t at[MG_TPU_MAX_PHYSICAL], rest = i;
            char where[96];
            for (k = rank - 1; k >= 0; k--) {
                at[k] = rest % shape[k];
                rest /= shape[k];
            }
            mg_tpu_tuple(where, sizeof where, at, rank, false);
            return mg_tpu_fail(reason, cap,
                               "the devices are not a contiguous cuboid: their physical mesh has "
                               "a hole at %s (counted from their smallest coordinates)",
                               where);
        }
    return rank;
}

/* Whether the device kind is one of up to three (a NULL ends the list). */
static bool mg_tpu_kind_is(const char *kind, const char *a, const char *b, const char *c)
{
    return strcmp(kind, a) == 0 || (b && strcmp(kind, b) == 0) || (c && strcmp(kind, c) == 0);
}

int mg_tpu_physical_mesh(const char *device_kind, const struct mg_tpu_device *devices, int n,
                         int64_t shape[MG_TPU_MAX_PHYSICAL], int32_t *cells, char *reason,
                         size_t cap)
{
    int32_t lo[4], hi[4];
    int64_t dims[4], cores;
    int i, k, rank;
    bool v2v3 = mg_tpu_kind_is(device_kind, "TPU v2", "TPU v3", NULL);
    bool with_cores;

    if (n < 1)
        return mg_tpu_fail(reason, cap, "no devices");
    mg_tpu_bounds(devices, n, lo, hi);
    for (k = 0; k < 3; k++)
        dims[k] = (int64_t)hi[k] - lo[k] + 1;
    cores = (int64_t)hi[3] - lo[3] + 1;
    /* Each extent is at most n when the box holds n devices; checking that
     * first keeps the product in 64 bits. */
    if (dims[0] > n || dims[1] > n || dims[2] > n || cores > n ||
        dims[0] * dims[1] * dims[2] * cores != n)
        return mg_tpu_fail(reason, cap,
                           "the devices are not a contiguous cuboid: %d devices, and their box "
                           "of %" PRId64 "x%" PRId64 "x%" PRId64 " chips with %" PRId64
                           " core(s) each holds %" PRId64,
                           n, dims[0], dims[1], dims[2], cores,
                           dims[0] * dims[1] * dims[2] * cores);

    /* The layouts of _get_physical_tpu_mesh: v2 and v3 put the cores where
     * z would be; TPU7, TPU7x and TPU8i (and v5p, under either of its
     * kinds, when it shows both cores) add the core as a fourth axis; the
     * others need one device per chip. */
    with_cores = mg_tpu_kind_is(device_kind, "TPU7x", "TPU7", "TPU8i") ||
                 (mg_tpu_kind_is(device_kind, "TPU v5p", "TPU v5", NULL) && cores == 2);
    for (i = 0; i < n; i++) {
        if (v2v3 && devices[i].coords[2] != 0)
            return mg_tpu_fail(reason, cap, "%s devices have z = 0; device %d is at z = %" PRId32,
                               device_kind, i, devices[i].coords[2]);
        if (!v2v3 && !with_cores && devices[i].core_on_chip != 0)
            return mg_tpu_fail(
                reason, cap,
                "Creating meshes for TPU >v3 requires one device per chip "
                "(\"megacore\" mode); device %d of kind %s has core_on_chip %" PRId32,
                i, device_kind, devices[i].core_on_chip);
    }
    if (v2v3) {
        shape[0] = dims[0], shape[1] = dims[1], shape[2] = cores;
        rank = 3;
    } else {
        shape[0] = dims[0], shape[1] = dims[1], shape[2] = dims[2];
        rank = 3;
        if (with_cores)
            shape[rank++] = cores;
    }
    return mg_tpu_fill_cells(devices, n, v2v3, lo, shape, rank, cells, reason, cap);
}

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
 * coordinates (compared as tuples, as Python's max does). Returns -1 when
 * out of memory. */
static int mg_tpu_sequential(const struct mg_tpu_request *q, int32_t *scratch, int bound[3],
                             char *reason, size_t cap)
{
    const int32_t *top = q->devices[0].coords;
    struct mg_tpu_zyx *s = malloc((size_t)q->n_devices * sizeof *s);
    int i, k;
    if (!s)
        return mg_tpu_fail(reason, cap, "out of memory for %d devices", q->n_devices);
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
    return 0;
}

static int mg_tpu_v5e(const struct mg_tpu_request *q, int32_t *perm, int32_t *scratch, char *reason,
                      size_t cap)
{
    const int *order = NULL;
    int b[3], i, n = q->n_devices;
    int64_t longest = 0;
    if (mg_tpu_sequential(q, scratch, b, reason, cap) != 0)
        return -1;
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
    if (mg_tpu_sequential(q, scratch, b, reason, cap) != 0)
        return -1;
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
    if (!cells || !tmp) {
        mg_tpu_fail(r->reason, sizeof r->reason, "out of memory for %d devices", n);
        goto out;
    }
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
    if (!keys || !order || !start || !local || !sub) {
        mg_tpu_fail(r->reason, sizeof r->reason, "out of memory for %d devices", n);
        goto out;
    }
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
