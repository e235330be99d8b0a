/*
 * The placement library (meshgen::placement): binding the calling thread
 * near a device and checking this machine against the compiled inventory,
 * meshgen_bind and meshgen_verify of <meshgen/meshgen.h>.
 *
 * This is the only part of the runtime that uses hwloc; the lookups stay in
 * the dependency-free core library, which this one links. The devices of the
 * live machine are found by the generator's own rules (hwloc_devices.c), so a
 * mesh compiled from an export of this machine verifies against it. Each call
 * discovers what it needs and releases everything hwloc allocated before
 * returning: no state is kept between calls, so any thread may call.
 */
#include <meshgen/meshgen.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "cpulist.h"
#include "device_compare.h"
#include "host.h"
#include "hwloc_devices.h"
#include "util.h"

/* ---- binding ------------------------------------------------------------------- */

/* Writes the report; a buffer too small keeps the start of the text. */
static void say(char *report, size_t cap, const char *fmt, ...) MG_PRINTF(3, 4);
static void say(char *report, size_t cap, const char *fmt, ...)
{
    va_list ap;

    if (cap == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(report, cap, fmt, ap);
    va_end(ap);
}

/*
 * Walks a cpulist. Without a machine (allowed NULL) it only checks the text,
 * so that a malformed table is reported before anything is discovered; with
 * one it adds each CPU to set, refusing CPUs outside allowed before hwloc
 * would grow the set to reach them (a corrupt "0-2000000000" must not cost
 * a quarter of a gigabyte).
 */
static int cpulist_scan(const char *list, hwloc_const_bitmap_t allowed, hwloc_bitmap_t set)
{
    int last = allowed != NULL ? hwloc_bitmap_last(allowed) : -1;
    uint32_t lo, hi;
    int rc;

    if (list[0] == '\0')
        return MESHGEN_ERR_NO_CPU;
    while ((rc = meshgen__cpulist_next(&list, &lo, &hi)) == 1) {
        if (allowed == NULL)
            continue;
        if (last < 0 || hi > (uint32_t)last)
            return MESHGEN_ERR_NO_CPU;
        if (hwloc_bitmap_set_range(set, lo, (int)hi) < 0)
            return MESHGEN_ERR_SYSTEM;
    }
    if (rc < 0)
        return rc;
    if (allowed != NULL && !hwloc_bitmap_isincluded(set, allowed))
        return MESHGEN_ERR_NO_CPU;
    return MESHGEN_OK;
}

/* The largest topology file read for HWLOC_XMLFILE, as the generator reads
 * topology files (docs/reference.md §2). */
#define MESHGEN__XML_MAX ((size_t)64 << 20)

/* The whole file at path, NUL-terminated, or NULL with errno set (EFBIG
 * past MESHGEN__XML_MAX). */
static char *read_xml(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    char *buf = NULL, *grown;
    int saved;

    if (f == NULL)
        return NULL;
    for (;;) {
        if ((grown = realloc(buf, cap + 1)) == NULL)
            break;
        buf = grown;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) {
            if (ferror(f))
                break;
            fclose(f);
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        if (cap > MESHGEN__XML_MAX) {
            errno = EFBIG;
            break;
        }
        cap *= 2;
    }
    saved = errno;
    fclose(f);
    free(buf);
    errno = saved;
    return NULL;
}

/*
 * Where hwloc would read this machine from the file HWLOC_XMLFILE names
 * (it does unless HWLOC_FSROOT, HWLOC_CPUID_PATH or HWLOC_SYNTHETIC, which
 * hwloc prefers, is set), the file is read here and checked as the
 * generator checks topology files (meshgen__xml_refusal) before hwloc sees
 * it as a buffer, which hwloc then prefers to the variable:
 * hwloc 2.9's XML reader crashes on some DOCTYPEs. HWLOC_THISSYSTEM still
 * applies. *xml receives the buffer (NULL when hwloc is left to itself),
 * to free after loading. Returns MESHGEN_OK, or MESHGEN_ERR_SYSTEM with
 * errno set and a report.
 */
static int xml_from_env(hwloc_topology_t topo, char **xml, char *report, size_t cap)
{
    const char *path = getenv("HWLOC_XMLFILE"), *why;
    size_t len, at;

    *xml = NULL;
    if (path == NULL || path[0] == '\0' || getenv("HWLOC_FSROOT") != NULL ||
        getenv("HWLOC_CPUID_PATH") != NULL || getenv("HWLOC_SYNTHETIC") != NULL)
        return MESHGEN_OK;
    if ((*xml = read_xml(path, &len)) == NULL) {
        say(report, cap, "cannot read HWLOC_XMLFILE '%s': %s", path, strerror(errno));
        return MESHGEN_ERR_SYSTEM;
    }
    if ((why = meshgen__xml_refusal(*xml, len, &at)) != NULL) {
        say(report, cap,
            "HWLOC_XMLFILE '%s' is not given to hwloc: at byte %zu it holds %s, and hwloc "
            "2.9's XML reader crashes on some such files",
            path, at, why);
        errno = EINVAL;
        return MESHGEN_ERR_SYSTEM;
    }
    if (hwloc_topology_set_xmlbuffer(topo, *xml, (int)len + 1) < 0) {
        say(report, cap, "hwloc cannot read HWLOC_XMLFILE '%s': %s", path, strerror(errno));
        return MESHGEN_ERR_SYSTEM;
    }
    return MESHGEN_OK;
}

/*
 * Loads this machine. Binding needs only the CPUs this process may use, so
 * without io every object type hwloc may drop is dropped (PUs, NUMA nodes
 * and the machine stay) and, where hwloc allows, distances, memory
 * attributes and CPU kinds are not gathered. Verification needs the whole
 * tree with its I/O devices, exactly as the generator loads it.
 */
static int load_machine(hwloc_topology_t *topo, int io, char *report, size_t cap)
{
    char *xml;
    int rc;

    if (hwloc_topology_init(topo) < 0) {
        say(report, cap, "hwloc cannot discover this machine: %s", strerror(errno));
        return MESHGEN_ERR_SYSTEM;
    }
    rc = xml_from_env(*topo, &xml, report, cap);
    if (rc != MESHGEN_OK) {
        int saved = errno;

        free(xml);
        hwloc_topology_destroy(*topo);
        errno = saved;
        return rc;
    }
    if (io) {
        hwloc_topology_set_io_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    } else {
        hwloc_topology_set_all_types_filter(*topo, HWLOC_TYPE_FILTER_KEEP_NONE);
#if HWLOC_API_VERSION >= 0x00020800
        hwloc_topology_set_flags(*topo, HWLOC_TOPOLOGY_FLAG_NO_DISTANCES |
                                            HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS |
                                            HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
#endif
    }
    rc = hwloc_topology_load(*topo) < 0 ? MESHGEN_ERR_SYSTEM : MESHGEN_OK;
    if (rc != MESHGEN_OK) {
        int saved = errno;

        say(report, cap, "hwloc cannot discover this machine: %s", strerror(saved));
        hwloc_topology_destroy(*topo);
        errno = saved;
    }
    /* hwloc is done with the buffer once the topology is loaded. */
    free(xml);
    return rc;
}

int meshgen_bind(const struct meshgen_mesh *mesh, int device)
{
    const struct meshgen_device_info *info;
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    int saved, rc = meshgen_device_host(mesh, device);

    if (rc < 0)
        return rc;
    info = meshgen_device_info(mesh, device);
    if (info == NULL || info->cpuset == NULL)
        return MESHGEN_ERR_CORRUPT;
    rc = cpulist_scan(info->cpuset, NULL, NULL);
    if (rc != MESHGEN_OK)
        return rc;
    rc = load_machine(&topo, 0, NULL, 0);
    if (rc != MESHGEN_OK)
        return rc;
    /* Through HWLOC_XMLFILE hwloc may describe another machine, and then its
     * binding calls succeed without doing anything. */
    if (!hwloc_topology_is_thissystem(topo)) {
        rc = MESHGEN_ERR_UNSUPPORTED;
    } else if ((set = hwloc_bitmap_alloc()) == NULL) {
        rc = MESHGEN_ERR_SYSTEM;
    } else {
        rc = cpulist_scan(info->cpuset, hwloc_topology_get_allowed_cpuset(topo), set);
        if (rc == MESHGEN_OK && hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) < 0)
            rc = MESHGEN_ERR_SYSTEM;
        hwloc_bitmap_free(set);
    }
    saved = errno;
    hwloc_topology_destroy(topo);
    errno = saved;
    return rc;
}

/* ---- verification ----------------------------------------------------------------- */

static const char *const kind_names[] = {
    [MESHGEN_KIND_GPU] = "gpu",         [MESHGEN_KIND_CORE] = "core", [MESHGEN_KIND_NUMA] = "numa",
    [MESHGEN_KIND_PACKAGE] = "package", [MESHGEN_KIND_PU] = "pu",     [MESHGEN_KIND_TPU] = "tpu",
};

/*
 * Which host this machine is, by the one rule of docs/reference.md ("Which
 * process am I"), or MESHGEN_ERR_MISMATCH / _NO_HOST / _BAD_ENV / _SYSTEM
 * with a report. A host given explicitly (want >= 0) must be that host; a
 * negative want asks which host it is.
 */
static int identify_host(const struct meshgen_mesh *mesh, int want, char *report, size_t cap)
{
    struct meshgen__host_name self;
    int32_t match[2];
    int h, rc = meshgen__this_host_name(meshgen__getenv, NULL, &self);

    if (rc == MESHGEN_ERR_BAD_ENV) {
        size_t at, n = strlen(self.name);
        const char *why = meshgen__host_name_refusal(self.name, n, &at);

        /* A name that long is not repeated: the report says where it goes
         * wrong. */
        say(report, cap, "this machine's name '%.*s%s' (from %s) is not a host name: %s", 64,
            self.name, n > 64 ? "..." : "", self.source, why);
        return rc;
    }
    if (rc != MESHGEN_OK) {
        say(report, cap, "this machine has no name: gethostname() failed");
        return rc;
    }
    h = meshgen__find_host(mesh, self.name, match);
    if (h >= 0 && (want < 0 || h == want))
        return h;
    if (want >= 0) {
        say(report, cap, "host %d is '%s', but this machine is '%s' (from %s)", want,
            mesh->hosts[want].name, self.name, self.source);
        return MESHGEN_ERR_MISMATCH;
    }
    if (match[1] >= 0)
        say(report, cap, "'%s' (from %s) could be host %s or host %s", self.name, self.source,
            mesh->hosts[match[0]].name, mesh->hosts[match[1]].name);
    else
        say(report, cap, "no host of the mesh is named '%s' (from %s; the mesh has %d host%s)",
            self.name, self.source, mesh->n_hosts, mesh->n_hosts == 1 ? "" : "s");
    return h;
}

/* The live machine's devices of one kind, described as the tables
 * describe them: text sanitised as the generator sanitises it (strings on
 * the heap), numbers as they are. */
struct live {
    int n;
    struct meshgen_device_info *info;
    struct meshgen__gpu_os *os;
    struct meshgen__gpu *gpus;
};

/* A sanitised heap copy of an hwloc string; "" for NULL. */
static char *clean_copy(const char *raw)
{
    size_t n = raw != NULL ? strlen(raw) : 0;
    char *p = malloc(n + 1);

    if (p == NULL)
        return NULL;
    if (n > 0)
        memcpy(p, raw, n);
    p[n] = '\0';
    meshgen__sanitize(p, n);
    return p;
}

static void live_free(struct live *l)
{
    int i;

    for (i = 0; l->info != NULL && i < l->n; i++) {
        free((char *)l->info[i].vendor);
        free((char *)l->info[i].model);
        free((char *)l->info[i].uuid);
        free((char *)l->info[i].cpuset);
        free((char *)l->info[i].pci);
    }
    free(l->info);
    free(l->os);
    free(l->gpus);
}

/* One device found, as the tables would hold it. */
static int live_fill(struct meshgen_device_info *out, const struct meshgen__device *dev)
{
    int n = meshgen__cpulist(dev->cpuset, NULL, 0);
    char *cpuset = malloc((size_t)n + 1);

    if (cpuset != NULL)
        meshgen__cpulist(dev->cpuset, cpuset, (size_t)n + 1);
    out->kind = dev->kind;
    out->os_index = dev->os_index;
    out->numa = dev->numa;
    out->vendor_id = dev->vendor_id;
    out->pci = clean_copy(dev->pci);
    out->vendor = clean_copy(dev->vendor);
    out->model = clean_copy(dev->model);
    out->uuid = clean_copy(dev->uuid);
    out->cpuset = cpuset;
    return out->pci && out->vendor && out->model && out->uuid && out->cpuset ? MESHGEN_OK
                                                                             : MESHGEN_ERR_SYSTEM;
}

/* The devices of a kind this machine has, by the generator's rules. */
static int live_load(struct live *l, hwloc_topology_t topo, int kind)
{
    int i, rc = MESHGEN_OK;

    memset(l, 0, sizeof *l);
    if (kind == MESHGEN_KIND_GPU) {
        size_t room = meshgen__gpu_capacity(topo);

        l->os = calloc(room, sizeof *l->os);
        l->gpus = calloc(room, sizeof *l->gpus);
        if (l->os == NULL || l->gpus == NULL)
            return MESHGEN_ERR_SYSTEM;
        l->n = meshgen__find_gpus(topo, l->os, l->gpus);
    } else {
        l->n = meshgen__cpu_count(topo, kind);
    }
    l->info = calloc((size_t)l->n + 1, sizeof *l->info);
    if (l->info == NULL)
        return MESHGEN_ERR_SYSTEM;
    for (i = 0; i < l->n && rc == MESHGEN_OK; i++) {
        struct meshgen__device dev;

        if (kind == MESHGEN_KIND_GPU)
            meshgen__gpu_device(topo, &l->gpus[i], &dev);
        else
            meshgen__cpu_device(topo, kind, i, &dev);
        rc = live_fill(&l->info[i], &dev);
    }
    return rc;
}

/* Where the first difference goes: the report, worded for host h. */
struct first {
    const struct meshgen_mesh *mesh;
    int host, kind;
    char *report;
    size_t cap;
};

/* The first difference of meshgen__compare_devices, in words; it stops
 * the comparison. */
static int say_first(void *ctx, const struct meshgen__diff *d)
{
    const struct first *f = ctx;
    const struct meshgen_host *host = &f->mesh->hosts[f->host];
    int local = d->want >= 0 ? d->want : d->got;
    const char *q = d->quoted ? "'" : "";
    char where[96];

    if (d->field != NULL && strcmp(d->field, "count") == 0) {
        say(f->report, f->cap, "%s device: expected %s %s devices, found %s",
            atoi(d->want_text) > atoi(d->got_text) ? "missing" : "extra", d->want_text,
            kind_names[f->kind], d->got_text);
        return 1;
    }
    if (f->mesh->n_hosts > 1)
        snprintf(where, sizeof where, "host %s, device %d (local %d)", host->name,
                 host->first_device + local, local);
    else
        snprintf(where, sizeof where, "device %d", host->first_device + local);
    if (d->field == NULL)
        say(f->report, f->cap, "%s: %s", where,
            d->got < 0 ? "not on this machine" : "not in the tables");
    else
        say(f->report, f->cap, "%s: %s %s%s%s expected, %s%s%s found", where, d->field,
            d->want_text[0] ? q : "", d->want_text[0] ? d->want_text : "none",
            d->want_text[0] ? q : "", d->got_text[0] ? q : "",
            d->got_text[0] ? d->got_text : "none", d->got_text[0] ? q : "");
    return 1;
}

/* Compares host h's compiled devices with the live machine's, by the
 * comparison `meshgen verify` makes too (device_compare.h). */
static int compare_host(const struct meshgen_mesh *mesh, int h, hwloc_topology_t topo, char *report,
                        size_t cap)
{
    const struct meshgen_host_template *tp = &mesh->templates[mesh->hosts[h].template_index];
    struct first first = {mesh, h, mesh->device_kind, report, cap};
    struct live live;
    void *scratch = NULL;
    int rc;

    /* hwloc does not see TPU chips: there is nothing to compare them with. */
    if (first.kind == MESHGEN_KIND_TPU) {
        say(report, cap, "hwloc does not discover TPU devices; a TPU mesh cannot be verified");
        return MESHGEN_ERR_UNSUPPORTED;
    }
    rc = live_load(&live, topo, first.kind);
    if (rc == MESHGEN_OK &&
        (scratch = malloc(meshgen__compare_room(tp->n_devices, live.n))) == NULL)
        rc = MESHGEN_ERR_SYSTEM;
    if (rc != MESHGEN_OK)
        say(report, cap, "out of memory");
    else if (meshgen__compare_devices(first.kind, tp->devices, tp->n_devices, live.info, live.n,
                                      scratch, say_first, &first) > 0)
        rc = MESHGEN_ERR_MISMATCH;
    free(scratch);
    live_free(&live);
    return rc;
}

int meshgen_verify(const struct meshgen_mesh *mesh, int host, char *report, size_t cap)
{
    hwloc_topology_t topo;
    int rc;

    if (report == NULL && cap > 0)
        return MESHGEN_ERR_NULL;
    if (cap > 0)
        report[0] = '\0';
    /* The comparison walks the host templates, so the whole mesh must hold
     * together first; the cost is nothing beside discovering the machine. */
    rc = meshgen_mesh_check(mesh);
    if (rc != MESHGEN_OK)
        return rc;
    if (host >= mesh->n_hosts)
        return MESHGEN_ERR_RANGE;
    /* Who this machine is comes before what it holds: the other host's
     * devices may well be identical, and then only the name tells. */
    host = identify_host(mesh, host, report, cap);
    if (host < 0)
        return host;
    rc = load_machine(&topo, 1, report, cap);
    if (rc != MESHGEN_OK)
        return rc;
    rc = compare_host(mesh, host, topo, report, cap);
    hwloc_topology_destroy(topo);
    return rc;
}
