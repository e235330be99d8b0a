/*
 * The launcher environment: the text of the variables that place a process
 * (meshgen_placement_env: each GPU vendor's visible-devices list,
 * OMP_PLACES) and their names (meshgen_env_name), the "launcher environment"
 * section of <meshgen/meshgen.h>; which variable lists a vendor's GPUs is
 * vendor.c's table (meshgen_vendor_env_var).
 *
 * The values are text written from the tables (device UUIDs, per-vendor
 * indices, cpulists read through cpulist.h, shared with meshgen_bind), so
 * they are here and need no hwloc. It never reads the environment or decides
 * which process this is (identity.c does), and knows nothing of groups or
 * shardings.
 */
#include <string.h>

#include "cpulist.h"
#include "internal.h"

/* ---- launcher environment ------------------------------------------------------------ */

static const char *const env_names[] = {
    [MESHGEN_ENV_CUDA_VISIBLE_DEVICES] = "CUDA_VISIBLE_DEVICES",
    [MESHGEN_ENV_ROCR_VISIBLE_DEVICES] = "ROCR_VISIBLE_DEVICES",
    [MESHGEN_ENV_OMP_PLACES] = "OMP_PLACES",
    [MESHGEN_ENV_ZE_AFFINITY_MASK] = "ZE_AFFINITY_MASK",
};

const char *meshgen_env_name(int var)
{
    return var >= 0 && var < MG_COUNT(env_names) ? env_names[var] : NULL;
}

/*
 * Text written into a caller's buffer, or only measured when buf is NULL.
 * The value is produced twice, measured and then written, so that a buffer
 * too small is left with nothing but a NUL instead of a cut-off list.
 */
struct text {
    char *buf;
    size_t len;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->buf != NULL)
        memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void put_str(struct text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void put_uint(struct text *t, uint32_t v)
{
    char digits[10];
    size_t n = 0;

    do {
        digits[sizeof digits - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(t, digits + sizeof digits - n, n);
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Whether a runtime accepts this UUID in its visible-devices variable, as
 * hwloc reports it. CUDA takes NVML's "GPU-<uuid>" (and MIG instances'
 * "MIG-<uuid>") as they are. ROCR compares against "GPU-" and the 16 hex
 * digits of the KFD unique id; hwloc's RSMI backend writes that id as up to
 * 16 hex digits without leading zeros, and ROCR can never match an id of 0.
 */
static int uuid_accepted(int var, const char *uuid)
{
    size_t n = strlen(uuid), i;
    int nonzero = 0;

    if (var == MESHGEN_ENV_CUDA_VISIBLE_DEVICES) {
        /* Letters, digits, '-' and '/' only: a ',' would add an entry. */
        if (n <= 4 || (strncmp(uuid, "GPU-", 4) != 0 && strncmp(uuid, "MIG-", 4) != 0))
            return 0;
        for (i = 4; i < n; i++)
            if (!is_hex(uuid[i]) && !(uuid[i] >= 'g' && uuid[i] <= 'z') &&
                !(uuid[i] >= 'G' && uuid[i] <= 'Z') && uuid[i] != '-' && uuid[i] != '/')
                return 0;
        return 1;
    }
    if (n == 0 || n > 16)
        return 0;
    for (i = 0; i < n; i++) {
        if (!is_hex(uuid[i]))
            return 0;
        nonzero |= uuid[i] != '0';
    }
    return nonzero;
}

/* Whether visible-devices variable var lists a GPU of this vendor: only its
 * own vendor's runtime sees it. */
static int vendor_listed(int var, int32_t vendor_id)
{
    return meshgen_vendor_env_var(vendor_id) == var;
}

/* The visible-devices list of a process's GPUs (see meshgen_placement_env). */
static int visible_devices(const struct meshgen_mesh *mesh, const struct meshgen_process *proc,
                           int var, struct text *t)
{
    int by_uuid = var != MESHGEN_ENV_ZE_AFFINITY_MASK, listed = 0;
    int32_t i, host = -1, k = 0, index = 0;

    if (mesh->device_kind != MESHGEN_KIND_GPU)
        return MESHGEN_ERR_NOT_GPU;
    for (i = 0; i < proc->count; i++) {
        const struct meshgen_device_info *info =
            meshgen_device_info(mesh, table_process_device(mesh, proc->first + i));

        if (info == NULL)
            return MESHGEN_ERR_CORRUPT;
        if (vendor_listed(var, info->vendor_id))
            by_uuid &= uuid_accepted(var, info->uuid);
    }
    for (i = 0; i < proc->count; i++) {
        int32_t d = table_process_device(mesh, proc->first + i);
        const struct meshgen_device_info *info = meshgen_device_info(mesh, d);
        const char *uuid = info->uuid;

        if (!vendor_listed(var, info->vendor_id))
            continue;
        if (listed++ > 0)
            put(t, ",", 1);
        if (by_uuid && var == MESHGEN_ENV_ROCR_VISIBLE_DEVICES) {
            put_str(t, "GPU-");
            put(t, "0000000000000000", 16 - strlen(uuid));
            put_str(t, uuid);
        } else if (by_uuid) {
            put_str(t, uuid);
        } else {
            /* A host's GPUs are its first devices in PCI bus id order; the
             * vendor's runtime numbers only its own among them. A process's
             * devices ascend, so the count goes on from the last one, once
             * over the host however many GPUs the process has. */
            if (meshgen_device_host(mesh, d) != host || d < k) {
                host = meshgen_device_host(mesh, d);
                k = mesh->hosts[host].first_device;
                index = 0;
            }
            for (; k < d; k++)
                index += vendor_listed(var, meshgen_device_info(mesh, k)->vendor_id);
            put_uint(t, (uint32_t)index);
        }
    }
    return MESHGEN_OK;
}

/* One OpenMP place per distinct device cpuset, in device order: each range
 * "lo-hi" of a cpulist becomes the interval "lo:len" (OpenMP 5.0 §6.5,
 * <lower-bound>:<length>), a single CPU stays a number. */
static int omp_places(const struct meshgen_mesh *mesh, const struct meshgen_process *proc,
                      struct text *t)
{
    int32_t i, j;
    int places = 0;

    for (i = 0; i < proc->count; i++) {
        const struct meshgen_device_info *info =
            meshgen_device_info(mesh, table_process_device(mesh, proc->first + i));
        const char *pos;
        uint32_t lo, hi;
        int rc, first = 1;

        if (info == NULL)
            return MESHGEN_ERR_CORRUPT;
        if (info->cpuset[0] == '\0')
            return MESHGEN_ERR_NO_CPU;
        /* Devices that share a cpuset (GPUs behind one socket) share a place:
         * repeating it would give OpenMP two places with the same CPUs. */
        for (j = 0; j < i; j++)
            if (strcmp(
                    meshgen_device_info(mesh, table_process_device(mesh, proc->first + j))->cpuset,
                    info->cpuset) == 0)
                break;
        if (j < i)
            continue;
        if (places++ > 0)
            put(t, ",", 1);
        put(t, "{", 1);
        pos = info->cpuset;
        while ((rc = meshgen__cpulist_next(&pos, &lo, &hi)) == 1) {
            if (!first)
                put(t, ",", 1);
            first = 0;
            put_uint(t, lo);
            if (hi > lo) {
                put(t, ":", 1);
                put_uint(t, hi - lo + 1);
            }
        }
        if (rc < 0)
            return rc;
        put(t, "}", 1);
    }
    return MESHGEN_OK;
}

static int env_value(const struct meshgen_mesh *mesh, const struct meshgen_process *proc, int var,
                     struct text *t)
{
    if (var == MESHGEN_ENV_OMP_PLACES)
        return omp_places(mesh, proc, t);
    return visible_devices(mesh, proc, var, t);
}

int meshgen_placement_env(const struct meshgen_mesh *mesh, int process, int var, char *buf,
                          size_t cap)
{
    struct meshgen_process proc;
    struct text t = {NULL, 0};
    int rc = mesh_usable(mesh);

    if (rc != MESHGEN_OK)
        return rc;
    if (process < 0 || process >= mesh->n_processes || meshgen_env_name(var) == NULL)
        return MESHGEN_ERR_RANGE;
    if (buf == NULL && cap > 0)
        return MESHGEN_ERR_NULL;
    proc = meshgen__process_at(mesh, process);
    if (!process_run_ok(mesh, &proc))
        return MESHGEN_ERR_CORRUPT;
    rc = env_value(mesh, &proc, var, &t);
    if (rc != MESHGEN_OK)
        return rc;
    if (t.len > INT32_MAX)
        return MESHGEN_ERR_NO_SPACE;
    if (buf == NULL)
        return (int)t.len;
    if (t.len >= cap) {
        /* A buffer of cap 0 has no byte, not even for the NUL. */
        if (cap > 0)
            buf[0] = '\0';
        return MESHGEN_ERR_NO_SPACE;
    }
    t.buf = buf;
    t.len = 0;
    env_value(mesh, &proc, var, &t);
    buf[t.len] = '\0';
    return (int)t.len;
}
