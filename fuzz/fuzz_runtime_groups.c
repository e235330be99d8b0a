/*
 * Fuzz target: a mesh's shape, device order and a mask -> every group at
 * once (meshgen_axis_groups) and the per-device cursor (meshgen_cursor_init,
 * meshgen_cursor_group), against an oracle that knows no mixed-radix trick
 * and against meshgen_group and meshgen_group_index.
 *
 * The input, byte by byte (missing bytes read as 0):
 *   0      axes: 1 + b % 6
 *   1..6   axis sizes: 1 + b % 9 (the first n_axes of them), 1 where it
 *          would take the mesh past MAX_DEVICES
 *   7      flags: bit 0 the mesh carries a device order (shuffled from
 *          bytes 9.. with the rest of the input as the seed) instead of
 *          leaving the identity tables out; bit 1 one axis size is made
 *          wrong (byte 8 picks the axis, bit 2 whether it becomes 0 or one
 *          more), which every call must refuse as CORRUPT, writing nothing;
 *          bits 3-4 unused devices past the mesh (0 to 3)
 *   8      the axis that is made wrong
 *   9..    the shuffle's seed, then masks: each further byte pair is a
 *          mask (bits past n_axes included, which must be RANGE) and a cap
 *          selector (the exact count, one less, none with a NULL array,
 *          none with an array, or more)
 * An input that gives no mask (ten bytes or fewer) has every mask of its
 * axes checked instead, each with the exact cap.
 *
 * The oracle: position p's coordinates by repeated division by the sizes;
 * its group is the row-major number of its coordinates outside the mask,
 * its rank that of those inside; so meshgen_axis_groups must hold device
 * mesh[p] at group * size + rank, and the cursor must give that group and
 * rank for it. The cap rule: a cap below the count writes nothing (the
 * whole buffer keeps its canary), the exact cap nothing past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <meshgen/meshgen.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* Meshes stay small enough for every mask of every input to be checked
 * in full, thousands of inputs a second. */
enum { MAX_AXES = 6, MAX_DEVICES = 512, CANARY = -77 };

static uint8_t byte_at(const uint8_t *data, size_t size, size_t i)
{
    return i < size ? data[i] : 0;
}

struct fuzz_mesh {
    struct meshgen_mesh mesh;
    struct meshgen_axis axes[MAX_AXES];
    int32_t sizes[MAX_AXES]; /* the true sizes, whatever axes[] says */
    int32_t *order;          /* position -> device id */
    int32_t *index;          /* device id -> position or -1 */
};

/* The oracle's group and rank of position p along mask. */
static void oracle(const struct fuzz_mesh *f, int32_t p, uint32_t mask, int32_t *group,
                   int32_t *rank)
{
    int32_t coords[MAX_AXES], g = 0, r = 0;
    int k;

    for (k = f->mesh.n_axes - 1; k >= 0; k--) {
        coords[k] = p % f->sizes[k];
        p /= f->sizes[k];
    }
    for (k = 0; k < f->mesh.n_axes; k++) {
        if (mask & (1u << k))
            r = r * f->sizes[k] + coords[k];
        else
            g = g * f->sizes[k] + coords[k];
    }
    *group = g;
    *rank = r;
}

/* One mask with one cap selector: the batch, the cursor and the single
 * calls, or the errors a bad mesh or a bad mask must give. */
static void check_mask(const struct fuzz_mesh *f, int corrupt, uint32_t mask, uint8_t cap_sel,
                       int32_t *buf)
{
    const struct meshgen_mesh *m = &f->mesh;
    int32_t n = m->n_devices, p, size = 1, g, r;
    size_t cap, k, room = (size_t)n + 4;
    struct meshgen_cursor c;
    int rc, want_error = 0, i;

    for (i = 0; i < m->n_axes; i++)
        if (mask & (1u << i))
            size *= f->sizes[i];
    if (mask >> m->n_axes)
        want_error = MESHGEN_ERR_RANGE;
    else if (corrupt)
        want_error = MESHGEN_ERR_CORRUPT;
    switch (cap_sel % 5) {
    case 0: cap = (size_t)n; break;
    case 1: cap = (size_t)n - 1; break;
    case 2: cap = 0; break;
    case 3: cap = 0; break;
    default: cap = (size_t)n + 1 + cap_sel / 5 % 3; break;
    }
    for (k = 0; k < room; k++)
        buf[k] = CANARY;
    rc = meshgen_axis_groups(m, mask, cap_sel % 5 == 2 ? NULL : buf, cap);
    if (want_error != 0)
        CHECK(rc == want_error);
    else if (cap_sel % 5 == 2)
        CHECK(rc == n); /* a sizing query */
    else if (cap < (size_t)n)
        CHECK(rc == MESHGEN_ERR_NO_SPACE);
    else
        CHECK(rc == n);
    /* Nothing at or past the count, whatever the cap; nothing at all
     * unless the call succeeded with an array. */
    for (k = rc == n && cap_sel % 5 != 2 ? (size_t)n : 0; k < room; k++)
        CHECK(buf[k] == CANARY);
    memset(&c, 0x5a, sizeof c);
    rc = meshgen_cursor_init(&c, m, mask);
    CHECK(rc == want_error);
    if (want_error != 0) {
        const unsigned char *bytes = (const unsigned char *)&c;

        for (k = 0; k < sizeof c; k++)
            CHECK(bytes[k] == 0x5a); /* untouched on error */
        return;
    }
    CHECK(c.version == MESHGEN_CURSOR_VERSION);
    CHECK(meshgen_axis_groups(m, mask, buf, (size_t)n) == n);
    for (p = 0; p < n; p++) {
        int32_t device = f->order != NULL ? f->order[p] : p, got_rank = -1, one_rank = -1;

        oracle(f, p, mask, &g, &r);
        CHECK(buf[(size_t)g * (size_t)size + (size_t)r] == device);
        CHECK(meshgen_cursor_group(&c, device, &got_rank) == g);
        CHECK(got_rank == r);
        CHECK(meshgen_group_index(m, device, mask, &one_rank) == g);
        CHECK(one_rank == r);
    }
    /* The first member of each group lists the group as the batch does. */
    for (g = 0; g < n / size; g++) {
        int32_t *members = buf + n + 4;

        CHECK(meshgen_group(m, buf[(size_t)g * (size_t)size], mask, members, size) == size);
        CHECK(memcmp(members, &buf[(size_t)g * (size_t)size], sizeof *members * (size_t)size) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_mesh f;
    uint8_t flags = byte_at(data, size, 7);
    uint32_t seed = 2166136261u, mask;
    int32_t n = 1, total, i, extra = (flags >> 3) & 3;
    int corrupt = (flags >> 1) & 1, k;
    size_t at;
    int32_t *buf;

    memset(&f, 0, sizeof f);
    f.mesh.n_axes = 1 + byte_at(data, size, 0) % MAX_AXES;
    for (k = 0; k < f.mesh.n_axes; k++) {
        f.sizes[k] = 1 + byte_at(data, size, 1 + (size_t)k) % 9;
        if (n * f.sizes[k] > MAX_DEVICES)
            f.sizes[k] = 1;
        f.axes[k] = (struct meshgen_axis){"a", f.sizes[k], f.sizes[k], 1, MESHGEN_AXIS_AUTO};
        n *= f.sizes[k];
    }
    if (corrupt) {
        k = byte_at(data, size, 8) % f.mesh.n_axes;
        f.axes[k].size = (flags & 4) ? 0 : f.sizes[k] + 1;
    }
    total = n + extra;
    f.mesh.magic = MESHGEN_MAGIC;
    f.mesh.abi = MESHGEN_ABI;
    f.mesh.axes = f.axes;
    f.mesh.n_devices = n;
    f.mesh.n_inventory_devices = total;
    f.mesh.mpmd_axis = -1;
    if (flags & 1) {
        /* A shuffled order over the devices, FNV-1a of the input as seed. */
        int32_t *ids = malloc(sizeof *ids * (size_t)total);

        f.order = malloc(sizeof *f.order * (size_t)n);
        f.index = malloc(sizeof *f.index * (size_t)total);
        CHECK(ids != NULL && f.order != NULL && f.index != NULL);
        for (at = 9; at < size; at++)
            seed = (seed ^ data[at]) * 16777619u;
        for (i = 0; i < total; i++)
            ids[i] = i;
        for (i = total - 1; i > 0; i--) {
            int32_t j, t;

            seed = seed * 1103515245u + 12345u;
            j = (int32_t)((seed >> 8) % (uint32_t)(i + 1));
            t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
        for (i = 0; i < total; i++)
            f.index[i] = -1;
        for (i = 0; i < n; i++) {
            f.order[i] = ids[i];
            f.index[ids[i]] = i;
        }
        free(ids);
        f.mesh.mesh_devices = f.order;
        f.mesh.device_index = f.index;
    }
    /* The batch (n + 4 entries, the last 4 canaries) and a group's members. */
    buf = malloc(sizeof *buf * ((size_t)n * 2 + 4));
    CHECK(buf != NULL);
    for (at = 9; at + 1 < size && at < 9 + 2 * 16; at += 2)
        check_mask(&f, corrupt, data[at] | (uint32_t)(data[at] & 0x80) << 24, data[at + 1], buf);
    if (size <= 10)
        for (mask = 0; mask < (1u << f.mesh.n_axes); mask++)
            check_mask(&f, corrupt, mask, 0, buf);
    free(buf);
    free(f.order);
    free(f.index);
    return 0;
}
