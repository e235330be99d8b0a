/*
 * What the runtime answers over one generated mesh (MESH, from MESH_HEADER),
 * printed as JSON for tests/python/check_mesh.py to hold against the Python
 * module's answers on the same spec: the mesh, each position's process and
 * stage, the groups along every set of axes (meshgen_group,
 * meshgen_group_index) and every sharding's shards (meshgen_shard). The
 * runtime and the module compute these separately, from the tables and
 * from the resolve JSON, so agreement is a check of both.
 */
#include <stdio.h>
#include <stdlib.h>

#include MESH_HEADER

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

/* Meshes of more axes get the single axes and all of them, not every set. */
#define ALL_SETS_UP_TO 6
#define MAX_DEVICES (1 << 16)

static int32_t members[MAX_DEVICES];
static int first_of_group[MAX_DEVICES];

static void print_ints(const int32_t *v, int n)
{
    int i;

    putchar('[');
    for (i = 0; i < n; i++)
        printf("%s%d", i ? ", " : "", (int)v[i]);
    putchar(']');
}

/* The groups along one set of axes: every position's group number and rank,
 * then each group's members by number. */
static void print_groups(const struct meshgen_mesh *m, uint32_t mask)
{
    int f, g, n, count = meshgen_group_count(m, mask);

    if (count <= 0 || count > m->n_devices)
        FAIL("group_count(%u) = %d", (unsigned)mask, count);
    for (g = 0; g < count; g++)
        first_of_group[g] = -1;
    printf("{\"mask\": %u, \"count\": %d, \"index\": [", (unsigned)mask, count);
    for (f = 0; f < m->n_devices; f++) {
        int dev = meshgen_mesh_device(m, f);
        g = meshgen_group_index(m, dev, mask, NULL);
        if (g < 0 || g >= count)
            FAIL("group_index(%d, %u): %s", dev, (unsigned)mask, meshgen_strerror(g));
        if (first_of_group[g] < 0)
            first_of_group[g] = dev;
        printf("%s%d", f ? ", " : "", g);
    }
    printf("], \"rank\": [");
    for (f = 0; f < m->n_devices; f++) {
        int32_t rank = -1;
        meshgen_group_index(m, meshgen_mesh_device(m, f), mask, &rank);
        printf("%s%d", f ? ", " : "", (int)rank);
    }
    printf("], \"members\": [");
    for (g = 0; g < count; g++) {
        if (first_of_group[g] < 0)
            FAIL("group %d along %u has no device", g, (unsigned)mask);
        n = meshgen_group(m, first_of_group[g], mask, members, MAX_DEVICES);
        if (n < 0)
            FAIL("group(%d, %u): %s", first_of_group[g], (unsigned)mask, meshgen_strerror(n));
        printf("%s", g ? ", " : "");
        print_ints(members, n);
    }
    printf("]}");
}

/* One sharding: with the spec's shape where it has one, else 3 elements
 * per shard in each dimension and one more, replicated, dimension of 5. */
static void print_shards(const struct meshgen_mesh *m, int s)
{
    const struct meshgen_sharding *sh = &m->shardings[s];
    int64_t global[MESHGEN_MAX_DIMS + 1], start[MESHGEN_MAX_DIMS + 1], size[MESHGEN_MAX_DIMS + 1];
    int d, f, err, n_dims = sh->n_dims + (sh->has_shape ? 0 : 1);

    for (d = 0; d < sh->n_dims; d++)
        global[d] = sh->has_shape ? sh->dims[d].global_size : sh->dims[d].shards * 3;
    if (!sh->has_shape)
        global[sh->n_dims] = 5;
    printf("\"%s\": {\"global\": [", sh->name);
    for (d = 0; d < n_dims; d++)
        printf("%s%lld", d ? ", " : "", (long long)global[d]);
    printf("], \"devices\": [");
    for (f = 0; f < m->n_devices; f++) {
        int32_t replica = -1;
        int dev = meshgen_mesh_device(m, f);
        err = meshgen_shard(m, s, global, n_dims, dev, start, size, &replica);
        if (err != MESHGEN_OK)
            FAIL("shard %s of device %d: %s", sh->name, dev, meshgen_strerror(err));
        printf("%s{\"replica\": %d, \"start\": [", f ? ", " : "", (int)replica);
        for (d = 0; d < n_dims; d++)
            printf("%s%lld", d ? ", " : "", (long long)start[d]);
        printf("], \"size\": [");
        for (d = 0; d < n_dims; d++)
            printf("%s%lld", d ? ", " : "", (long long)size[d]);
        printf("]}");
    }
    printf("]}");
}

int main(void)
{
    const struct meshgen_mesh *m = &MESH;
    int f, s, err, first = 1;
    uint32_t mask, all;

    if ((err = meshgen_mesh_check(m)) != MESHGEN_OK)
        FAIL("mesh_check: %s", meshgen_strerror(err));
    if (m->n_devices > MAX_DEVICES)
        FAIL("mesh too large for this program");
    all = (1u << m->n_axes) - 1;
    printf("{\"mesh\": [");
    for (f = 0; f < m->n_devices; f++)
        printf("%s%d", f ? ", " : "", (int)meshgen_mesh_device(m, f));
    printf("],\n \"process\": [");
    for (f = 0; f < m->n_devices; f++)
        printf("%s%d", f ? ", " : "", meshgen_process_of(m, meshgen_mesh_device(m, f)));
    printf("],\n \"stage\": [");
    for (f = 0; f < m->n_devices; f++)
        printf("%s%d", f ? ", " : "", meshgen_stage_of(m, meshgen_mesh_device(m, f)));
    printf("],\n \"groups\": [");
    for (mask = 1; mask <= all; mask++) {
        int single = (mask & (mask - 1)) == 0;
        if (m->n_axes > ALL_SETS_UP_TO && !single && mask != all)
            continue;
        printf("%s\n  ", first ? "" : ",");
        print_groups(m, mask);
        first = 0;
    }
    printf("],\n \"shards\": {");
    for (s = 0; s < m->n_shardings; s++) {
        printf("%s\n  ", s ? "," : "");
        print_shards(m, s);
    }
    printf("}}\n");
    return 0;
}
