/*
 * End-to-end checker of the group calls on one generated mesh (MESH, from
 * MESH_HEADER), linked against the runtime: for every subset of the axes,
 * meshgen_axis_groups (every group at once) and the cursor
 * (meshgen_cursor_init, meshgen_cursor_group) must give exactly what
 * meshgen_group and meshgen_group_index give device by device. Built for
 * every mesh of the e2e set and every golden mesh (tests/e2e/CMakeLists.txt),
 * so the calls meet the tables the generator really writes: permuted device
 * orders, identity tables left out, sizes that are not powers of two.
 * Prints one line per mask and exits 1 at the first difference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include MESH_HEADER

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "check_groups: " __VA_ARGS__);                                             \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

/* A value no device id takes: entries that must not be written hold it. */
enum { CANARY = -77 };

/*
 * One mask: the batch's layout (group g's members, in rank order, at g *
 * size), each group against meshgen_group of each of its members, each
 * device's group number and rank against meshgen_group_index and the
 * cursor, and the cap rule at its edge. Returns the group count.
 */
static int check_mask(const struct meshgen_mesh *m, uint32_t mask, int32_t *all, int32_t *members)
{
    struct meshgen_cursor c;
    int n = m->n_devices, count = meshgen_group_count(m, mask), size, k, g, r, got;

    if (count < 1 || n % count != 0)
        FAIL("mask %#x: %d groups of %d devices", (unsigned)mask, count, n);
    size = n / count;
    if ((got = meshgen_axis_groups(m, mask, NULL, 0)) != n)
        FAIL("mask %#x: sizing query gave %d, expected %d", (unsigned)mask, got, n);
    /* One entry short: an error, and nothing written anywhere. */
    for (k = 0; k <= n; k++)
        all[k] = CANARY;
    if ((got = meshgen_axis_groups(m, mask, all, (size_t)n - 1)) != MESHGEN_ERR_NO_SPACE)
        FAIL("mask %#x: cap %d gave %d, expected MESHGEN_ERR_NO_SPACE", (unsigned)mask, n - 1, got);
    for (k = 0; k <= n; k++)
        if (all[k] != CANARY)
            FAIL("mask %#x: a refused call wrote entry %d", (unsigned)mask, k);
    /* The exact cap: every entry written, none past it. */
    if ((got = meshgen_axis_groups(m, mask, all, (size_t)n)) != n)
        FAIL("mask %#x: meshgen_axis_groups gave %d: %s", (unsigned)mask, got,
             got < 0 ? meshgen_strerror(got) : "not n_devices");
    if (all[n] != CANARY)
        FAIL("mask %#x: entry %d past the cap written", (unsigned)mask, n);
    if ((got = meshgen_cursor_init(&c, m, mask)) != MESHGEN_OK)
        FAIL("mask %#x: meshgen_cursor_init: %s", (unsigned)mask, meshgen_strerror(got));
    for (g = 0; g < count; g++) {
        const int32_t *group = &all[(size_t)g * (size_t)size];

        for (r = 0; r < size; r++) {
            int32_t rank = -1, cursor_rank = -1;
            int device = group[r], index, cursor_group;

            if (meshgen_group(m, device, mask, members, n) != size ||
                memcmp(members, group, sizeof *members * (size_t)size) != 0)
                FAIL("mask %#x: group %d of the batch differs from meshgen_group(%d)",
                     (unsigned)mask, g, device);
            index = meshgen_group_index(m, device, mask, &rank);
            if (index != g || rank != r)
                FAIL("mask %#x: device %d is at group %d rank %d of the batch, "
                     "meshgen_group_index says group %d rank %d",
                     (unsigned)mask, device, g, r, index, (int)rank);
            cursor_group = meshgen_cursor_group(&c, device, &cursor_rank);
            if (cursor_group != g || cursor_rank != r)
                FAIL("mask %#x: device %d: the cursor says group %d rank %d, expected %d, %d",
                     (unsigned)mask, device, cursor_group, (int)cursor_rank, g, r);
        }
    }
    return count;
}

int main(void)
{
    const struct meshgen_mesh *m = &MESH;
    int32_t *all, *members;
    uint32_t mask;
    int err, d, seen;

    if ((err = meshgen_mesh_check(m)) != MESHGEN_OK)
        FAIL("mesh_check: %s", meshgen_strerror(err));
    all = malloc(sizeof *all * ((size_t)m->n_devices + 1));
    members = malloc(sizeof *members * (size_t)m->n_devices);
    if (all == NULL || members == NULL)
        FAIL("out of memory");
    for (mask = 0; mask < (1u << m->n_axes); mask++) {
        int count = check_mask(m, mask, all, members);

        /* Every device of the mesh once: the batch holds n_devices ids, each
         * of which meshgen_group_index placed at its own entry above. */
        for (d = 0, seen = 0; d < m->n_inventory_devices; d++)
            seen += meshgen_group_index(m, d, mask, NULL) >= 0;
        if (seen != m->n_devices)
            FAIL("mask %#x: %d devices in groups, expected %d", (unsigned)mask, seen,
                 (int)m->n_devices);
        printf("%s: mask %#x: %d groups of %d: ok\n", m->name, (unsigned)mask, count,
               (int)m->n_devices / count);
    }
    free(all);
    free(members);
    return 0;
}
