/*
 * Reads a mesh's group tables (docs/reference.md, "Group tables") and holds
 * them against the runtime: each table is COUNT x SIZE int32_t, COUNT is
 * meshgen_group_count() along its axis, every device sits in row
 * meshgen_group_index() at its rank, and each row is meshgen_group() of its
 * devices, in order. Then writes the tables' bytes to the file argv[1], so
 * that group_tables.py can compare the tables compiled from strings with
 * the same tables compiled from integers.
 *
 * Written in the C and C++ they share: group_tables.py builds it as C11 and
 * as C++17 against the same tables compiled as C. GROUP_LIST names a header
 * (written by group_tables.py) that includes the mesh's header, defines
 * MESH and lists the tables in TABLES.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct group_table {
    const char *axis_name;
    int axis;
    const int32_t *entries; /* &<name>__groups__<axis>[0][0] */
    size_t bytes;           /* sizeof <name>__groups__<axis> */
    int count, size;
};

#include GROUP_LIST

static int failures;

static void expect(int ok, const char *axis, const char *what, long a, long b)
{
    if (!ok && failures++ < 20)
        printf("FAIL: %s: %s: %ld, expected %ld\n", axis, what, a, b);
}

/* One table against the runtime; returns the entries checked. */
static long check_table(const struct group_table *t, int32_t *members)
{
    uint32_t mask = 1u << t->axis;
    long checked = 0;
    int f, i;

    expect(t->bytes == (size_t)t->count * (size_t)t->size * 4, t->axis_name, "sizeof",
           (long)t->bytes, (long)t->count * t->size * 4);
    expect(meshgen_group_count(&MESH, mask) == t->count, t->axis_name, "groups",
           (long)meshgen_group_count(&MESH, mask), (long)t->count);
    for (f = 0; f < MESH.n_devices; f++) {
        int device = meshgen_mesh_device(&MESH, f), g, n;
        int32_t rank = -1;
        g = meshgen_group_index(&MESH, device, mask, &rank);
        if (g < 0 || g >= t->count || rank < 0 || rank >= t->size) {
            expect(0, t->axis_name, "group of a device", g, -1);
            continue;
        }
        expect(t->entries[(long)g * t->size + rank] == device, t->axis_name, "entry",
               (long)t->entries[(long)g * t->size + rank], device);
        checked++;
        if (rank != 0)
            continue;
        n = meshgen_group(&MESH, device, mask, members, t->size);
        expect(n == t->size, t->axis_name, "group size", n, t->size);
        for (i = 0; i < n && i < t->size; i++)
            expect(t->entries[(long)g * t->size + i] == members[i], t->axis_name, "member",
                   (long)t->entries[(long)g * t->size + i], (long)members[i]);
    }
    return checked;
}

int main(int argc, char **argv)
{
    size_t k, n_tables = sizeof TABLES / sizeof TABLES[0];
    long entries = 0;
    int32_t *members;
    FILE *out;

    if (argc != 2 || !(out = fopen(argv[1], "wb")))
        return 2;
    members = (int32_t *)malloc((size_t)MESH.n_devices * sizeof *members);
    if (!members)
        return 2;
    for (k = 0; k < n_tables; k++) {
        entries += check_table(&TABLES[k], members);
        if (fwrite(TABLES[k].entries, 1, TABLES[k].bytes, out) != TABLES[k].bytes)
            return 2;
    }
    free(members);
    if (fclose(out) != 0)
        return 2;
    printf("%d failures; %ld entries of %d tables\n", failures, entries, (int)n_tables);
    return failures ? 1 : 0;
}
