/*
 * End-to-end checker: linked against one generated mesh (MESH, from
 * MESH_HEADER) and the runtime. It checks the invariants that hold for any
 * mesh — the tables pass meshgen_mesh_check, every device appears exactly
 * once, coordinates round-trip — and prints what the runtime answers as
 * JSON, for compare.py to hold against `meshgen resolve` and, where the
 * case has one, against the reference results of docs/reference.md
 * (tests/e2e/expect/).
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

/* s as a JSON string: quotes, backslashes and control characters escaped,
 * other bytes as they are (the tables hold UTF-8). */
static void json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    putchar('"');
    for (; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

int main(void)
{
    const struct meshgen_mesh *m = &MESH;
    int32_t coords[MESHGEN_MAX_AXES], buf[4096];
    int f, d, a, p, err, n, xyz_past[3];
    static int seen[1 << 16];

    if ((err = meshgen_mesh_check(m)) != MESHGEN_OK)
        FAIL("mesh_check: %s", meshgen_strerror(err));
    if (m->n_inventory_devices > (int)(sizeof seen / sizeof seen[0]))
        FAIL("mesh too large for this checker");

    /* Every position holds a distinct device, and the device's coordinates
     * lead back to the position. */
    for (f = 0; f < m->n_devices; f++) {
        int dev = meshgen_mesh_device(m, f), back;
        if (dev < 0 || dev >= m->n_inventory_devices)
            FAIL("position %d holds device %d, out of range", f, dev);
        if (seen[dev]++)
            FAIL("device %d appears twice", dev);
        if ((err = meshgen_coords_of(m, dev, coords)) != MESHGEN_OK)
            FAIL("coords_of(%d): %s", dev, meshgen_strerror(err));
        back = meshgen_device_at(m, coords);
        if (back != dev)
            FAIL("device_at(coords_of(%d)) = %d", dev, back);
    }
    for (d = 0; d < m->n_inventory_devices; d++)
        if (!seen[d] && meshgen_coords_of(m, d, coords) != MESHGEN_ERR_NOT_IN_MESH)
            FAIL("device %d is not in the mesh but coords_of accepts it", d);

    printf("{\"axes\": [");
    for (a = 0; a < m->n_axes; a++)
        printf("%s{\"name\": \"%s\", \"size\": %d, \"ici\": %d, \"dcn\": %d}", a ? ", " : "",
               m->axes[a].name, (int)m->axes[a].size, (int)m->axes[a].ici, (int)m->axes[a].dcn);
    /* TPU devices have a place in their slice; the others have none. */
    printf("],\n \"tpu\": [");
    for (d = 0; d < m->n_inventory_devices; d++) {
        int xyz[3] = {-1, -1, -1}, core = -1;
        err = meshgen_device_coords(m, d, xyz, &core);
        if (m->device_kind != MESHGEN_KIND_TPU) {
            if (err != MESHGEN_ERR_NOT_TPU || xyz[0] != -1)
                FAIL("device_coords(%d) of a %d mesh: %d, expected MESHGEN_ERR_NOT_TPU", d,
                     (int)m->device_kind, err);
            continue;
        }
        if (err != MESHGEN_OK)
            FAIL("device_coords(%d): %s", d, meshgen_strerror(err));
        printf("%s[%d, %d, %d, %d]", d ? ", " : "", xyz[0], xyz[1], xyz[2], core);
    }
    if (m->device_kind == MESHGEN_KIND_TPU &&
        meshgen_device_coords(m, m->n_inventory_devices, xyz_past, NULL) != MESHGEN_ERR_RANGE)
        FAIL("device_coords accepts a device past the last");
    /* Every device's description strings, as the tables hold them (a long
     * cpuset is a char array of its own there, not a literal). */
    printf("],\n \"descriptions\": [");
    for (d = 0; d < m->n_inventory_devices; d++) {
        const struct meshgen_device_info *info = meshgen_device_info(m, d);
        if (info == NULL)
            FAIL("device_info(%d) is NULL", d);
        printf("%s[", d ? ", " : "");
        json_string(info->pci);
        printf(", ");
        json_string(info->vendor);
        printf(", ");
        json_string(info->model);
        printf(", ");
        json_string(info->uuid);
        printf(", ");
        json_string(info->cpuset);
        printf("]");
    }
    printf("],\n \"mesh\": [");
    for (f = 0; f < m->n_devices; f++)
        printf("%s%d", f ? ", " : "", (int)meshgen_mesh_device(m, f));
    printf("],\n \"coords\": {");
    for (f = 0; f < m->n_devices; f++) {
        meshgen_coords_of(m, meshgen_mesh_device(m, f), coords);
        printf("%s\"%d\": [", f ? ", " : "", (int)meshgen_mesh_device(m, f));
        for (a = 0; a < m->n_axes; a++)
            printf("%s%d", a ? ", " : "", (int)coords[a]);
        printf("]");
    }
    printf("},\n \"processes\": [");
    for (p = 0; p < m->n_processes; p++) {
        n = meshgen_process_devices(m, p, buf, (int)(sizeof buf / sizeof buf[0]));
        if (n < 0)
            FAIL("process_devices(%d): %s", p, meshgen_strerror(n));
        printf("%s{\"id\": %d, \"host\": %d, \"stage\": %d, \"devices\": [", p ? ", " : "", p,
               meshgen_device_host(m, buf[0]), meshgen_stage_of(m, buf[0]));
        for (d = 0; d < n; d++) {
            if (meshgen_process_of(m, buf[d]) != p)
                FAIL("process_of(%d) != %d", (int)buf[d], p);
            printf("%s%d", d ? ", " : "", (int)buf[d]);
        }
        printf("]}");
    }
    printf("],\n \"stages\": [");
    for (p = 0; p < meshgen_stage_count(m); p++) {
        n = meshgen_stage_devices(m, p, buf, (int)(sizeof buf / sizeof buf[0]));
        if (n < 0)
            FAIL("stage_devices(%d): %s", p, meshgen_strerror(n));
        printf("%s[", p ? ", " : "");
        for (d = 0; d < n; d++)
            printf("%s%d", d ? ", " : "", (int)buf[d]);
        printf("]");
    }
    printf("],\n \"groups\": [");
    for (a = 0; a < m->n_axes; a++) {
        printf("%s[", a ? ", " : "");
        for (f = 0; f < m->n_devices; f++) {
            int32_t rank = -1;
            int dev = meshgen_mesh_device(m, f);
            int g = meshgen_group_index(m, dev, 1u << a, &rank);
            n = meshgen_group(m, dev, 1u << a, buf, (int)(sizeof buf / sizeof buf[0]));
            if (g < 0 || n < 0)
                FAIL("group of %d along axis %d: %s", dev, a, meshgen_strerror(g < 0 ? g : n));
            if (buf[rank] != dev)
                FAIL("device %d is not at its rank %d in its group", dev, (int)rank);
            printf("%s{\"device\": %d, \"group\": %d, \"rank\": %d, \"members\": [", f ? ", " : "",
                   dev, g, (int)rank);
            for (d = 0; d < n; d++)
                printf("%s%d", d ? ", " : "", (int)buf[d]);
            printf("]}");
        }
        printf("]");
    }
    /* Shards: with the spec's shape where it has one, else 3 elements per
     * shard in each dimension. */
    printf("],\n \"shards\": {");
    for (p = 0; p < m->n_shardings; p++) {
        const struct meshgen_sharding *sh = &m->shardings[p];
        int64_t global[MESHGEN_MAX_DIMS], start[MESHGEN_MAX_DIMS], size[MESHGEN_MAX_DIMS];
        for (d = 0; d < sh->n_dims; d++)
            global[d] = sh->has_shape ? sh->dims[d].global_size : sh->dims[d].shards * 3;
        printf("%s\"%s\": {\"global\": [", p ? ", " : "", sh->name);
        for (d = 0; d < sh->n_dims; d++)
            printf("%s%lld", d ? ", " : "", (long long)global[d]);
        printf("], \"devices\": [");
        for (f = 0; f < m->n_devices; f++) {
            int32_t replica = -1;
            int dev = meshgen_mesh_device(m, f);
            err = meshgen_shard(m, p, global, sh->n_dims, dev, start, size, &replica);
            if (err != MESHGEN_OK)
                FAIL("shard %s of device %d: %s", sh->name, dev, meshgen_strerror(err));
            printf("%s{\"device\": %d, \"replica\": %d, \"start\": [", f ? ", " : "", dev,
                   (int)replica);
            for (d = 0; d < sh->n_dims; d++)
                printf("%s%lld", d ? ", " : "", (long long)start[d]);
            printf("], \"size\": [");
            for (d = 0; d < sh->n_dims; d++)
                printf("%s%lld", d ? ", " : "", (long long)size[d]);
            printf("]}");
        }
        printf("]}");
    }
    printf("}}\n");
    return 0;
}
