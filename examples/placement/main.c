/*
 * The placement example: prints a generated mesh and where each of its
 * devices is — coordinates, host, NUMA node, CPUs — using only the meshgen
 * runtime over the tables meshgen_add_mesh() generated at build time.
 */
#include <stdio.h>

#include "local_mesh.h"

int main(void)
{
    const struct meshgen_mesh *m = &local_mesh;
    int32_t coords[MESHGEN_MAX_AXES];
    int err, f, a;

    err = meshgen_mesh_check(m);
    if (err != MESHGEN_OK) {
        fprintf(stderr, "placement: the mesh tables are not usable: %s\n", meshgen_strerror(err));
        return 1;
    }
    printf("mesh '%s' (meshgen %s, %s)\n", m->name, m->generator_version, m->digest);
    printf("%d devices on %d host(s); axes:", m->n_devices, m->n_hosts);
    for (a = 0; a < m->n_axes; a++)
        printf(" %s=%d", m->axes[a].name, meshgen_axis_size(m, a));
    printf("\n\n%-12s %-6s %-12s %-5s %-6s %s\n", "coords", "device", "host", "numa", "os idx",
           "cpus");
    for (f = 0; f < LOCAL_MESH_DEVICES; f++) {
        int device = meshgen_mesh_device(m, f);
        const struct meshgen_device_info *info = meshgen_device_info(m, device);
        char text[64];
        int n = 0;
        err = meshgen_coords_of(m, device, coords);
        if (err != MESHGEN_OK || info == NULL) {
            fprintf(stderr, "placement: device %d: %s\n", device, meshgen_strerror(err));
            return 1;
        }
        for (a = 0; a < m->n_axes && n < (int)sizeof text - 12; a++)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s%d", a ? "," : "(", (int)coords[a]);
        snprintf(text + n, sizeof text - (size_t)n, ")");
        printf("%-12s %-6d %-12s %-5d %-6d %s\n", text, device,
               m->hosts[meshgen_device_host(m, device)].name, info->numa, info->os_index,
               info->cpuset);
    }
    return 0;
}
