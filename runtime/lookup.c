/*
 * The runtime's lowest layer: axes, coordinates, devices and hosts, the
 * lookups of the first section of <meshgen/meshgen.h> (meshgen_axis_index
 * to meshgen_device_coords), and the helpers internal.h declares for the
 * other files (a process as a value, a device's coordinates, the search of
 * a table by name).
 *
 * Everything here is arithmetic over the const tables generated code
 * provides: no allocation, no global mutable state, no I/O. It knows nothing
 * of YAML, hwloc or how the tables were produced, nor of groups, what a
 * sharding means, launchers or environment variables, which the files above
 * it build on these lookups.
 *
 * meshgen_mesh_check() (table.c) establishes the invariants the lookups rely
 * on. They still validate every argument against the counts the mesh states,
 * and cheaply guard the few table values that index a local buffer or a
 * table, or divide, so that even an unchecked mesh cannot make them read or
 * write past the counts it states, or trap. The lookups are written to cost
 * about what the same arithmetic costs written inline (docs/reference.md,
 * §5): a check per call, not per element, and no division where a shift
 * does.
 */
#include <string.h>

#include "internal.h"

/* ---- shared with the other files (declared in internal.h) -------------------- */

struct meshgen_process meshgen__process_at(const struct meshgen_mesh *mesh, int32_t p)
{
    struct meshgen_process proc = {p, -1, 0};

    if (mesh->processes != NULL)
        return mesh->processes[p];
    if (mesh->hosts != NULL && p < mesh->n_hosts) {
        proc.first = mesh->hosts[p].first_device;
        proc.count = mesh->hosts[p].n_devices;
    }
    return proc;
}

/*
 * The mixed-radix digits of a flat index over the axis sizes, last axis
 * fastest: a division per axis but the first, whose digit is what remains.
 * Returns CORRUPT for a mesh whose sizes do not describe the index.
 */
static int coords_from_flat(const struct meshgen_mesh *mesh, uint32_t flat, int32_t *coords)
{
    uint32_t size;
    int i;

    for (i = mesh->n_axes - 1; i > 0; i--) {
        uint32_t rest = flat;

        size = axis_size(&mesh->axes[i]);
        if (size == 0)
            return MESHGEN_ERR_CORRUPT;
        flat = divide(&rest, size);
        coords[i] = (int32_t)rest;
    }
    if (flat >= axis_size(&mesh->axes[0]))
        return MESHGEN_ERR_CORRUPT;
    coords[0] = (int32_t)flat;
    return MESHGEN_OK;
}

int meshgen__device_coords(const struct meshgen_mesh *mesh, int device, int32_t *coords)
{
    int32_t flat;
    int rc = flat_of(mesh, device, &flat);

    if (rc != MESHGEN_OK)
        return rc;
    return coords_from_flat(mesh, (uint32_t)flat, coords);
}

int meshgen__name_index(const struct meshgen_mesh *mesh, enum meshgen__named table,
                        const char *name)
{
    int rc = mesh_usable(mesh);
    int32_t i, n;

    if (rc != MESHGEN_OK)
        return rc;
    if (name == NULL)
        return MESHGEN_ERR_NULL;
    n = table == MESHGEN__AXES ? mesh->n_axes : mesh->n_shardings;
    for (i = 0; i < n; i++) {
        const char *entry = table == MESHGEN__AXES ? mesh->axes[i].name : mesh->shardings[i].name;

        if (strcmp(entry, name) == 0)
            return i;
    }
    return table == MESHGEN__AXES ? MESHGEN_ERR_NO_AXIS : MESHGEN_ERR_NO_SHARDING;
}

/* ---- axes, coordinates and devices ---------------------------------------------- */

int meshgen_axis_index(const struct meshgen_mesh *mesh, const char *name)
{
    return meshgen__name_index(mesh, MESHGEN__AXES, name);
}

int meshgen_axis_size(const struct meshgen_mesh *mesh, int axis)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (axis < 0 || axis >= mesh->n_axes)
        return MESHGEN_ERR_RANGE;
    return mesh->axes[axis].size;
}

int meshgen_device_at(const struct meshgen_mesh *mesh, const int32_t *coords)
{
    const struct meshgen_axis *axes;
    uint32_t flat;
    int i, n, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (coords == NULL)
        return MESHGEN_ERR_NULL;
    /* The range check and the mixed-radix step in one pass, the first axis
     * (there is one) before the loop. Unsigned, a negative coordinate (or
     * size) compares as too large; the sizes of a checked mesh multiply to
     * n_devices, so the index cannot wrap, and the last test keeps any other
     * mesh inside its table. */
    axes = mesh->axes;
    n = mesh->n_axes;
    flat = (uint32_t)coords[0];
    if (flat >= (uint32_t)axes[0].size)
        return MESHGEN_ERR_RANGE;
    for (i = 1; i < n; i++) {
        uint32_t c = (uint32_t)coords[i], size = (uint32_t)axes[i].size;

        if (c >= size)
            return MESHGEN_ERR_RANGE;
        flat = flat * size + c;
    }
    if ((int64_t)flat >= mesh->n_devices)
        return MESHGEN_ERR_CORRUPT;
    return table_device(mesh, flat);
}

int meshgen_mesh_device(const struct meshgen_mesh *mesh, int flat)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (flat < 0 || flat >= mesh->n_devices)
        return MESHGEN_ERR_RANGE;
    return table_device(mesh, (uint32_t)flat);
}

int meshgen_coords_of(const struct meshgen_mesh *mesh, int device, int32_t *coords)
{
    int32_t c[MESHGEN_MAX_AXES];
    int i, rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (coords == NULL)
        return MESHGEN_ERR_NULL;
    /* Into a local buffer first: coords is untouched on error. */
    rc = meshgen__device_coords(mesh, device, c);
    if (rc != MESHGEN_OK)
        return rc;
    for (i = 0; i < mesh->n_axes; i++)
        coords[i] = c[i];
    return MESHGEN_OK;
}

/*
 * The host of a device id: the last host whose first device is <= the id.
 * A host with no devices starts where the next one starts, so taking the last
 * of a run of equal starts skips empty hosts.
 */
int meshgen_device_host(const struct meshgen_mesh *mesh, int device)
{
    int rc = mesh_usable(mesh);
    int32_t lo = 0, hi;

    if (rc != MESHGEN_OK)
        return rc;
    if (device < 0 || device >= mesh->n_inventory_devices)
        return MESHGEN_ERR_RANGE;
    if (mesh->n_hosts < 1 || mesh->hosts == NULL)
        return MESHGEN_ERR_CORRUPT;
    hi = mesh->n_hosts;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;

        if (mesh->hosts[mid].first_device <= device)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* lo is 0 only when host 0 starts past the id: a mesh that failed its
     * check, reported rather than indexed with -1. */
    return lo > 0 ? lo - 1 : MESHGEN_ERR_CORRUPT;
}

const struct meshgen_device_info *meshgen_device_info(const struct meshgen_mesh *mesh, int device)
{
    const struct meshgen_host *host;
    const struct meshgen_host_template *tp;
    int h = meshgen_device_host(mesh, device);

    if (h < 0)
        return NULL;
    host = &mesh->hosts[h];
    /* Guarded like the other table-derived indices: NULL beats a wild read. */
    if (host->template_index < 0 || host->template_index >= mesh->n_templates ||
        mesh->templates == NULL)
        return NULL;
    tp = &mesh->templates[host->template_index];
    if (device - host->first_device >= tp->n_devices)
        return NULL;
    return &tp->devices[device - host->first_device];
}

int meshgen_device_coords(const struct meshgen_mesh *mesh, int device, int coords[3], int *core)
{
    const struct meshgen_device_info *info;
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (coords == NULL)
        return MESHGEN_ERR_NULL;
    if (mesh->device_kind != MESHGEN_KIND_TPU)
        return MESHGEN_ERR_NOT_TPU;
    info = meshgen_device_info(mesh, device);
    if (info == NULL)
        return MESHGEN_ERR_RANGE;
    coords[0] = info->coords[0];
    coords[1] = info->coords[1];
    coords[2] = info->coords[2];
    if (core)
        *core = info->core_on_chip;
    return MESHGEN_OK;
}
