/*
 * What the codes mean and whether a mesh's tables hold: meshgen_strerror,
 * meshgen_version and meshgen_mesh_check, the first functions of
 * <meshgen/meshgen.h>.
 *
 * The check proves, once at start-up, the invariants every other file of the
 * runtime relies on (docs/reference.md §3): sizes, the flat table a
 * bijection onto the devices it names, hosts numbering the device ids in
 * order, processes inside their hosts, shardings over distinct axes. It reads
 * the tables only within the counts the mesh states and knows nothing of how
 * the lookups use them, nor of launchers or environment variables.
 */
#include <string.h>

#include "internal.h"

/* ---- errors and version ---------------------------------------------------- */

/* Indexed by the negated code, so the order must follow enum meshgen_error. */
static const char *const error_text[] = {
    "success",
    "a required pointer argument is NULL",
    "not a meshgen mesh (bad magic word)",
    "mesh tables from an incompatible generator (ABI mismatch)",
    "mesh tables are inconsistent",
    "coordinate, index or id out of range",
    "no axis of that name",
    "buffer too small for the result",
    "array dimension not divisible by its shard count",
    "device is not used by the mesh",
    "unused error code",
    "no launcher environment variable names this process",
    "a launcher or host name variable is empty, not a valid number or not a host name",
    "no sharding of that name or index",
    "not supported in this build or on this system",
    "the operating system or hwloc refused",
    "this machine differs from the compiled inventory",
    "the device's CPUs are unknown or not available on this machine",
    "the mesh's devices are not GPUs",
    "no one host of the mesh is this machine",
    "this host has no process of the mesh at the launcher's local rank",
    "the launcher started another number of processes than the mesh has",
    "the mesh's devices are not TPU devices",
};
_Static_assert(sizeof error_text / sizeof error_text[0] == 1 - MESHGEN_ERR_NOT_TPU,
               "error_text must describe every enum meshgen_error code");

const char *meshgen_strerror(int err)
{
    /* Compare before negating so that INT_MIN cannot overflow. */
    if (err > 0 || err <= -(int)(sizeof error_text / sizeof error_text[0]))
        return "unknown meshgen error code";
    return error_text[-err];
}

const char *meshgen_version(void)
{
    return MESHGEN_VERSION_STRING;
}

/* ---- the consistency check ------------------------------------------------------ */

static int axes_consistent(const struct meshgen_mesh *mesh)
{
    int64_t product = 1;
    int i, j;

    for (i = 0; i < mesh->n_axes; i++) {
        const struct meshgen_axis *a = &mesh->axes[i];

        if (a->name == NULL || a->name[0] == '\0')
            return 0;
        for (j = 0; j < i; j++)
            if (strcmp(mesh->axes[j].name, a->name) == 0)
                return 0;
        if (a->size < 1 || a->ici < 1 || a->dcn < 1 || (int64_t)a->ici * a->dcn != a->size)
            return 0;
        if (a->type < MESHGEN_AXIS_AUTO || a->type > MESHGEN_AXIS_MANUAL)
            return 0;
        /* Sizes are >= 1, so checking after each step keeps the product in
         * 64 bits: it never exceeds INT32_MAX before the next multiply. */
        product *= a->size;
        if (product > INT32_MAX)
            return 0;
    }
    if (product != mesh->n_devices)
        return 0;
    return mesh->mpmd_axis >= -1 && mesh->mpmd_axis < mesh->n_axes;
}

/*
 * mesh_devices and device_index are inverse bijections between flat indices
 * and the mesh's device ids. The first loop proves mesh_devices injective (two
 * positions with one device would need two values of device_index), which
 * also proves n_devices <= n_inventory_devices. Both left out: the identity,
 * which needs only that bound.
 */
static int devices_consistent(const struct meshgen_mesh *mesh)
{
    int32_t f, d;

    if (mesh->device_kind < MESHGEN_KIND_GPU || mesh->device_kind > MESHGEN_KIND_TPU)
        return 0;
    if (mesh->mesh_devices == NULL && mesh->device_index == NULL)
        return mesh->n_devices <= mesh->n_inventory_devices;
    if (mesh->mesh_devices == NULL || mesh->device_index == NULL)
        return 0;
    for (f = 0; f < mesh->n_devices; f++) {
        d = mesh->mesh_devices[f];
        if (d < 0 || d >= mesh->n_inventory_devices || mesh->device_index[d] != f)
            return 0;
    }
    for (d = 0; d < mesh->n_inventory_devices; d++) {
        f = mesh->device_index[d];
        if (f != -1 && (f < 0 || f >= mesh->n_devices || mesh->mesh_devices[f] != d))
            return 0;
    }
    return 1;
}

static int device_info_consistent(const struct meshgen_device_info *info)
{
    /* A PCI vendor id is 16 bits; 0 is "none". */
    return info->pci != NULL && info->vendor != NULL && info->model != NULL && info->uuid != NULL &&
           info->cpuset != NULL && info->vendor_id >= 0 && info->vendor_id <= 0xffff;
}

/* Hosts number the device ids contiguously, in order, each through a template
 * of the same size; this is what lets meshgen_device_host() binary-search. */
static int hosts_consistent(const struct meshgen_mesh *mesh)
{
    int64_t next = 0;
    int32_t h, t, i;

    if (mesh->n_hosts < 1 || mesh->hosts == NULL || mesh->n_templates < 1 ||
        mesh->templates == NULL)
        return 0;
    for (t = 0; t < mesh->n_templates; t++) {
        const struct meshgen_host_template *tp = &mesh->templates[t];

        if (tp->n_devices < 0 || (tp->n_devices > 0 && tp->devices == NULL))
            return 0;
        for (i = 0; i < tp->n_devices; i++)
            if (!device_info_consistent(&tp->devices[i]))
                return 0;
    }
    for (h = 0; h < mesh->n_hosts; h++) {
        const struct meshgen_host *host = &mesh->hosts[h];

        if (host->name == NULL || host->slice == NULL)
            return 0;
        if (host->template_index < 0 || host->template_index >= mesh->n_templates)
            return 0;
        if (host->n_devices < 0 || host->first_device != next ||
            mesh->templates[host->template_index].n_devices != host->n_devices)
            return 0;
        next += host->n_devices;
    }
    return next == mesh->n_inventory_devices;
}

/* Each process lists devices of its own host, ascending, inside the
 * process_devices array. */
static int processes_consistent(const struct meshgen_mesh *mesh)
{
    int32_t p, i;

    if (mesh->process_mode != MESHGEN_PROCESSES_HOST &&
        mesh->process_mode != MESHGEN_PROCESSES_DEVICE)
        return 0;
    if (mesh->n_processes < 0 || mesh->n_process_devices < 0)
        return 0;
    /* Left out, the processes are the hosts. */
    if (mesh->processes == NULL && mesh->n_processes > 0 && mesh->n_processes != mesh->n_hosts)
        return 0;
    for (p = 0; p < mesh->n_processes; p++) {
        struct meshgen_process proc = meshgen__process_at(mesh, p);
        const struct meshgen_host *host;

        if (proc.host < 0 || proc.host >= mesh->n_hosts || !process_run_ok(mesh, &proc))
            return 0;
        host = &mesh->hosts[proc.host];
        for (i = 0; i < proc.count; i++) {
            int32_t d = table_process_device(mesh, proc.first + i);

            if (d < host->first_device || d - host->first_device >= host->n_devices)
                return 0;
            if (i > 0 && d <= table_process_device(mesh, proc.first + i - 1))
                return 0;
        }
    }
    return 1;
}

/* One sharding: each axis used at most once across all its dimensions, never
 * the MPMD axis (docs/reference.md §9), shard counts the products of the axis sizes and,
 * with a shape, divisible shapes. */
static int sharding_consistent(const struct meshgen_mesh *mesh, const struct meshgen_sharding *s)
{
    uint32_t used = 0;
    int32_t d, k;

    if (s->name == NULL || s->name[0] == '\0')
        return 0;
    if (s->n_dims < 0 || s->n_dims > MESHGEN_MAX_DIMS || (s->n_dims > 0 && s->dims == NULL))
        return 0;
    if (s->has_shape != 0 && s->has_shape != 1)
        return 0;
    for (d = 0; d < s->n_dims; d++) {
        const struct meshgen_sharding_dim *dim = &s->dims[d];
        int64_t shards = 1;

        if (dim->n_axes < 0 || dim->n_axes > MESHGEN_MAX_AXES)
            return 0;
        for (k = 0; k < dim->n_axes; k++) {
            int32_t a = dim->axes[k];

            if (a < 0 || a >= mesh->n_axes || (used & (1u << a)) || a == mesh->mpmd_axis)
                return 0;
            used |= 1u << a;
            shards *= mesh->axes[a].size;
        }
        if (dim->shards != shards)
            return 0;
        if (s->has_shape) {
            if (dim->global_size < 0 || dim->global_size % shards != 0 ||
                dim->local_size != dim->global_size / shards)
                return 0;
        } else if (dim->global_size != 0 || dim->local_size != 0) {
            return 0;
        }
    }
    return 1;
}

static int shardings_consistent(const struct meshgen_mesh *mesh)
{
    int32_t i, j;

    if (mesh->n_shardings < 0 || (mesh->n_shardings > 0 && mesh->shardings == NULL))
        return 0;
    for (i = 0; i < mesh->n_shardings; i++) {
        if (!sharding_consistent(mesh, &mesh->shardings[i]))
            return 0;
        for (j = 0; j < i; j++)
            if (strcmp(mesh->shardings[j].name, mesh->shardings[i].name) == 0)
                return 0;
    }
    return 1;
}

int meshgen_mesh_check(const struct meshgen_mesh *mesh)
{
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    /* The order matters: each step relies on what the earlier ones proved
     * (devices on n_devices, processes on hosts, shardings on axes). */
    if (!axes_consistent(mesh) || !devices_consistent(mesh) || !hosts_consistent(mesh) ||
        !processes_consistent(mesh) || !shardings_consistent(mesh))
        return MESHGEN_ERR_CORRUPT;
    return MESHGEN_OK;
}
