/*
 * TPU slices (docs/tpu.md): the families, a slice's devices and their
 * physical mesh; JAX's device assignment over them is tpu_assign.c.
 *
 * The family table holds what the Cloud TPU documentation and JAX say about
 * each generation: the device kind, devices per chip, chips per host and the
 * topologies that exist. A slice's devices come out in JAX's device order
 * (process-tiled: hosts in worker order, inside a host z, y, x, then the
 * core), with the coordinates and ids JAX's own tests give them, and are
 * placed into the physical mesh as mesh_utils._get_physical_tpu_mesh places
 * them. Where JAX raises, the reason is written (with the helpers both
 * files share) and -1 returned. Knows nothing of YAML, hwloc, the spec or
 * the inventory; libc only.
 */
#include "tpu.h"

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

int mg_tpu_fail(char *reason, size_t cap, const char *fmt, ...)
{
    va_list ap;
    if (cap) {
        va_start(ap, fmt);
        vsnprintf(reason, cap, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void mg_tpu_append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(buf);
    va_list ap;
    if (len + 1 >= cap)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

void mg_tpu_tuple(char *buf, size_t cap, const int64_t *v, int n, bool list)
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
        snprintf(reason, cap, "the families are");
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

    /* The text is left out of this reason: it can hold anything, and the
     * caller quotes it through the escaper. Past this point it is digits
     * and 'x'. */
    if (mg_tpu_read_dims(text, f->topology_dims, dims) != 0) {
        mg_tpu_fail(reason, cap, "is not a %s topology: expected %s", f->name,
                    f->topology_dims == 2 ? "AxB (chips along x and y)"
                                          : "AxBxC (chips along x, y and z)");
        return -2;
    }
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

int64_t mg_tpu_prod(const int64_t *v, int n)
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
