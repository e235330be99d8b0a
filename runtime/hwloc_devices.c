/*
 * The device rules of docs/reference.md §2 over an hwloc topology, shared
 * by the generator's inventory loader and meshgen_verify (see
 * hwloc_devices.h): which PCI or OS devices are GPUs (compute backends,
 * deduplicated by PCI bus id, then PCI class and vendor per device), how a
 * PCI bus id is written, where a device's NUMA node and cpuset come from,
 * which CPU objects a kind means, and which XML format version a topology
 * file declares.
 *
 * It knows nothing of arenas, diagnostics, closeness or generated tables,
 * and allocates nothing: callers own every array and copy what they keep.
 */
#include "hwloc_devices.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <meshgen/meshgen.h>

#include "util.h"

/* ---- strings -------------------------------------------------------------- */

/* An info attribute, or NULL when absent or empty: exports write "" for
 * values a backend could not read, which says no more than absence. */
static const char *info_of(hwloc_obj_t o, const char *name)
{
    const char *v = o ? hwloc_obj_get_info_by_name(o, name) : NULL;
    return v && *v ? v : NULL;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len, i;

    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        len = 3;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (p[0] == 0xe0)
        lo = 0xa0;
    else if (p[0] == 0xed)
        hi = 0x9f;
    else if (p[0] == 0xf0)
        lo = 0x90;
    else if (p[0] == 0xf4)
        hi = 0x8f;
    if (len > n || p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return len;
}

void meshgen__sanitize(char *s, size_t n)
{
    unsigned char *p = (unsigned char *)s;
    size_t i = 0;

    while (i < n) {
        size_t len = 1;
        if (p[i] < 0x20 || p[i] == 0x7f)
            p[i] = '?';
        else if (p[i] >= 0x80 && (len = utf8_len(p + i, n - i)) == 0) {
            p[i] = '?';
            len = 1;
        }
        i += len;
    }
}

int meshgen__cpulist(hwloc_const_bitmap_t set, char *buf, size_t cap)
{
    int n = set ? hwloc_bitmap_list_snprintf(buf, cap, set) : 0;

    /* hwloc writes nothing at all for a NULL set; give callers a string. */
    if (n <= 0) {
        if (cap > 0)
            buf[0] = '\0';
        return 0;
    }
    return n;
}

/* NUMA nodes are named by OS index, as numactl counts them; the nodeset
 * holds OS indexes. */
static int first_numa(hwloc_const_bitmap_t nodeset)
{
    int i = nodeset ? hwloc_bitmap_first(nodeset) : -1;
    return i < 0 ? -1 : i;
}

/* ---- GPUs ----------------------------------------------------------------- */

/* Compute backends in order of preference when one GPU has several OS
 * devices: NVML and RSMI carry the UUID, CUDA and OpenCL only a model. */
static const struct {
    const char *backend; /* the "Backend" info value */
    const char *prefix;  /* OS device name prefix, for exports without it */
} backends[] = {
    {"NVML", "nvml"}, {"CUDA", "cuda"}, {"RSMI", "rsmi"}, {"LevelZero", "ze"}, {"OpenCL", "opencl"},
};

/* The backend rank of a compute OS device, or -1 when the object is not one.
 * The subtype is not used: exports before hwloc 2.5 lack it for NVML and
 * RSMI devices. DRM (card0, renderD128) and GL devices have no such backend. */
static int backend_rank(hwloc_obj_t o)
{
    const char *backend = hwloc_obj_get_info_by_name(o, "Backend");
    int i;

    if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_GPU && o->attr->osdev.type != HWLOC_OBJ_OSDEV_COPROC)
        return -1;
    for (i = 0; i < MG_COUNT(backends); i++) {
        if (backend) {
            if (strcmp(backend, backends[i].backend) == 0)
                return i;
        } else {
            size_t n = strlen(backends[i].prefix);
            if (o->name && strncmp(o->name, backends[i].prefix, n) == 0 && o->name[n] >= '0' &&
                o->name[n] <= '9')
                return i;
        }
    }
    return -1;
}

hwloc_obj_t meshgen__pci_of(hwloc_obj_t o)
{
    hwloc_obj_t p = o->parent;
    while (p && p->type == HWLOC_OBJ_OS_DEVICE)
        p = p->parent;
    return p && p->type == HWLOC_OBJ_PCI_DEVICE ? p : NULL;
}

uint64_t meshgen__pci_key(hwloc_obj_t pci)
{
    const struct hwloc_pcidev_attr_s *p = &pci->attr->pcidev;
    return (uint64_t)p->domain << 24 | (uint64_t)p->bus << 16 | (uint64_t)p->dev << 8 | p->func;
}

static int cmp_gpu_os(const void *pa, const void *pb)
{
    const struct meshgen__gpu_os *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->os->logical_index < b->os->logical_index
               ? -1
               : a->os->logical_index > b->os->logical_index;
}

/* GPUs sort by bus id; those without a PCI device (all keyed UINT64_MAX)
 * and the two PCI objects of one bus id that only a forged file holds keep
 * hwloc's logical order among themselves, so the result never depends on
 * qsort. */
static int cmp_gpu(const void *pa, const void *pb)
{
    const struct meshgen__gpu *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->anchor->logical_index < b->anchor->logical_index
               ? -1
               : a->anchor->logical_index > b->anchor->logical_index;
}

size_t meshgen__gpu_capacity(hwloc_topology_t topo)
{
    hwloc_obj_t o = NULL;
    size_t n_os = 0, n_pci = 0;

    while ((o = hwloc_get_next_osdev(topo, o)) != NULL)
        n_os++;
    while ((o = hwloc_get_next_pcidev(topo, o)) != NULL)
        n_pci++;
    /* Each GPU is a PCI device or an OS device without one. */
    return n_os + n_pci + 1;
}

/*
 * Whether a PCI device is a GPU by its class and vendor alone, for devices
 * no compute backend reported: Debian's hwloc has no CUDA, NVML or RSMI
 * plugin, so on a live host this is what finds the GPUs. 3D controllers
 * (Tesla, A100, H100) and processing accelerators count whoever makes
 * them; "other display controllers" count from the three GPU vendors (AMD
 * Instinct, Intel Data Center GPUs); VGA controllers only from NVIDIA,
 * whose GeForce and some data-center boards use that class. Other VGAs are
 * management consoles (ASPEED, Matrox, AMD's ES1000 1002:515e) or
 * integrated graphics, which a mesh never uses unless a compute backend
 * says otherwise.
 */
static int pci_class_is_gpu(hwloc_obj_t pci)
{
    unsigned vendor = pci->attr->pcidev.vendor_id;

    switch (pci->attr->pcidev.class_id) {
    case 0x0302:
    case 0x1200: return 1;
    case 0x0380:
        return vendor == MESHGEN_PCI_VENDOR_NVIDIA || vendor == MESHGEN_PCI_VENDOR_AMD ||
               vendor == MESHGEN_PCI_VENDOR_INTEL;
    case 0x0300: return vendor == MESHGEN_PCI_VENDOR_NVIDIA;
    default: return 0;
    }
}

int meshgen__gpu_lower_bound(const struct meshgen__gpu *g, int n, uint64_t key)
{
    int lo = 0, hi = n;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (g[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether one of the n GPUs at g (sorted by key) has this bus id key. */
static int has_key(const struct meshgen__gpu *g, int n, uint64_t key)
{
    int i = meshgen__gpu_lower_bound(g, n, key);
    return i < n && g[i].key == key;
}

/*
 * The rule is per PCI device: a PCI device is a GPU if an OS device with a
 * compute backend sits under it (however many backends report it), or if
 * its class and vendor say so (pci_class_is_gpu). So a host where only some
 * boards have a CUDA device still counts all of them (the three Tesla M2075
 * of 32em64t-2n8c2t-pci-wholeio.xml, one with cuda0). OS devices without a
 * PCI device cannot be told apart across backends, so only those of the
 * best backend among them count, after the PCI ones.
 */
int meshgen__find_gpus(hwloc_topology_t topo, struct meshgen__gpu_os *c, struct meshgen__gpu *g)
{
    hwloc_obj_t o = NULL;
    int n_os = 0, n = 0, n_pci, i, kept, best = MG_COUNT(backends);

    while ((o = hwloc_get_next_osdev(topo, o)) != NULL) {
        int rank = backend_rank(o);
        if (rank < 0)
            continue;
        c[n_os].os = o;
        c[n_os].pci = meshgen__pci_of(o);
        c[n_os].key = c[n_os].pci ? meshgen__pci_key(c[n_os].pci) : UINT64_MAX;
        c[n_os].rank = rank;
        if (!c[n_os].pci && rank < best)
            best = rank;
        n_os++;
    }

    if (n_os > 0)
        qsort(c, (size_t)n_os, sizeof *c, cmp_gpu_os);
    for (i = 0; i < n_os; i++) {
        if (c[i].pci && n > 0 && g[n - 1].pci && g[n - 1].key == c[i].key) {
            g[n - 1].n_os++;
            continue;
        }
        if (!c[i].pci && c[i].rank != best)
            continue;
        g[n].pci = c[i].pci;
        g[n].anchor = c[i].pci ? c[i].pci : c[i].os;
        g[n].key = c[i].key;
        g[n].os = &c[i];
        g[n].n_os = 1;
        n++;
    }

    /* The GPUs so far are sorted by key, those with a PCI device first. */
    n_pci = 0;
    while (n_pci < n && g[n_pci].pci)
        n_pci++;
    while ((o = hwloc_get_next_pcidev(topo, o)) != NULL) {
        uint64_t key = meshgen__pci_key(o);
        if (!pci_class_is_gpu(o) || has_key(g, n_pci, key))
            continue;
        g[n].pci = g[n].anchor = o;
        g[n].key = key;
        g[n].os = NULL;
        g[n].n_os = 0;
        n++;
    }
    qsort(g, (size_t)n, sizeof *g, cmp_gpu);
    /* Two PCI objects with one bus id only come from a forged file. */
    for (i = 0, kept = 0; i < n; i++)
        if (kept == 0 || !g[i].pci || g[kept - 1].key != g[i].key)
            g[kept++] = g[i];
    return kept;
}

/* The GPU vendor or model: from the best OS device that has it, else from
 * the PCI device's names. */
static const char *gpu_name(const struct meshgen__gpu *g, const char *os_info, const char *pci_info)
{
    int i;
    for (i = 0; i < g->n_os; i++)
        if (info_of(g->os[i].os, os_info))
            return info_of(g->os[i].os, os_info);
    return info_of(g->pci, pci_info);
}

static const char *gpu_uuid(const struct meshgen__gpu *g)
{
    int i;
    for (i = 0; i < g->n_os; i++) {
        const char *u = info_of(g->os[i].os, "NVIDIAUUID");
        if (!u)
            u = info_of(g->os[i].os, "AMDUUID");
        if (u)
            return u;
    }
    return NULL;
}

void meshgen__gpu_device(hwloc_topology_t topo, const struct meshgen__gpu *g,
                         struct meshgen__device *out)
{
    /* GPU locality can be a Package, a Group, an L3 cache or the Machine,
     * so the NUMA node comes from the nodeset, not from a NUMA parent. */
    hwloc_obj_t loc = hwloc_get_non_io_ancestor_obj(topo, g->anchor);

    out->kind = MESHGEN_KIND_GPU;
    out->os_index = -1;
    out->pci[0] = '\0';
    if (g->pci) {
        const struct hwloc_pcidev_attr_s *p = &g->pci->attr->pcidev;
        snprintf(out->pci, sizeof out->pci, "%04x:%02x:%02x.%x", (unsigned)p->domain,
                 (unsigned)p->bus, (unsigned)p->dev, (unsigned)p->func);
    }
    /* The vendor is the PCI device's id, through which the GPU was found;
     * names, from a backend or pci.ids, only say it (docs/reference.md §2,
     * "Vendors"). A container without pci.ids gives no names at all. */
    out->vendor_id = g->pci ? (int)g->pci->attr->pcidev.vendor_id : 0;
    out->vendor = gpu_name(g, "GPUVendor", "PCIVendor");
    if (out->vendor == NULL)
        out->vendor = meshgen_vendor_name(out->vendor_id);
    out->model = gpu_name(g, "GPUModel", "PCIDevice");
    out->uuid = gpu_uuid(g);
    out->cpuset = loc ? loc->cpuset : NULL;
    out->numa = first_numa(loc ? loc->nodeset : NULL);
    out->anchor = g->anchor;
}

/* ---- CPU objects -------------------------------------------------------------- */

/* The hwloc type of a kind. Topologies without Core objects (some POWER
 * exports) give their PUs as cores: a PU is then the smallest thing that
 * runs a thread, which is what a core device stands for. */
static hwloc_obj_type_t cpu_type(hwloc_topology_t topo, int kind)
{
    switch (kind) {
    case MESHGEN_KIND_NUMA: return HWLOC_OBJ_NUMANODE;
    case MESHGEN_KIND_PACKAGE: return HWLOC_OBJ_PACKAGE;
    case MESHGEN_KIND_PU: return HWLOC_OBJ_PU;
    default:
        return hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    }
}

int meshgen__cpu_count(hwloc_topology_t topo, int kind)
{
    int n = hwloc_get_nbobjs_by_type(topo, cpu_type(topo, kind));
    return n < 0 ? 0 : n;
}

/* CPU vendor/model live on the Package (or, in some exports, higher up). */
static const char *cpu_info(hwloc_obj_t o, const char *name)
{
    for (; o; o = o->parent)
        if (info_of(o, name))
            return info_of(o, name);
    return NULL;
}

void meshgen__cpu_device(hwloc_topology_t topo, int kind, int i, struct meshgen__device *out)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(topo, cpu_type(topo, kind), (unsigned)i);

    out->kind = kind;
    out->os_index =
        o->os_index == HWLOC_UNKNOWN_INDEX || o->os_index > INT_MAX ? -1 : (int)o->os_index;
    out->numa = first_numa(o->nodeset);
    out->pci[0] = '\0';
    out->vendor_id = 0;
    out->uuid = NULL;
    out->vendor = cpu_info(o, "CPUVendor");
    out->model = cpu_info(o, "CPUModel");
    out->cpuset = o->cpuset;
    out->anchor = o;
}

/* ---- XML files ---------------------------------------------------------------- */

static int is_xml_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

int meshgen__xml_version_major(const char *xml)
{
    const char *p = xml;

    /* The first <topology tag (not <topologydiff) is the root. */
    while ((p = strstr(p, "<topology")) != NULL) {
        p += strlen("<topology");
        if (is_xml_space(*p) || *p == '>' || *p == '/')
            break;
    }
    /* Its attributes run to the first '>'. hwloc escapes '>' in attribute
     * values, and a forged file that does not only loses the hint. */
    for (; p && *p && *p != '>'; p++) {
        const char *q = p + 1;
        int major = 0, digits = 0;

        if (!is_xml_space(*p) || strncmp(q, "version", strlen("version")) != 0)
            continue;
        q += strlen("version");
        while (is_xml_space(*q))
            q++;
        if (*q++ != '=')
            continue;
        while (is_xml_space(*q))
            q++;
        if (*q != '"' && *q != '\'')
            continue;
        for (q++; *q >= '0' && *q <= '9'; q++, digits++)
            if (major < 1000)
                major = major * 10 + (*q - '0');
        return digits > 0 ? major : -1;
    }
    return -1;
}

/* ---- what reaches hwloc's XML reader ------------------------------------------ */

/* Whether p starts with the ASCII text s, whatever the case of p. */
static int starts_nocase(const char *p, const char *s)
{
    for (; *s; p++, s++) {
        char c = *p;

        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if (c != *s)
            return 0;
    }
    return 1;
}

static const char *skip_space(const char *p)
{
    while (is_xml_space(*p))
        p++;
    return p;
}

/* A quoted literal at p: the text after its closing quote, or NULL. */
static const char *skip_literal(const char *p)
{
    const char *end;

    if (*p != '"' && *p != '\'')
        return NULL;
    end = strchr(p + 1, *p);
    return end ? end + 1 : NULL;
}

/*
 * The encoding an XML declaration (from "<?xml" to its "?>", at decl, end
 * excluded) declares is one whose first 128 code points are ASCII, so that
 * the rest of the prolog reads as bytes: UTF-8 (hwloc writes it), US-ASCII
 * or ISO-8859-1. Sets *at to the declaration's offset when it is not.
 */
static int encoding_ok(const char *decl, const char *end)
{
    static const char *const ok[] = {"UTF-8", "US-ASCII", "ISO-8859-1"};
    const char *p = decl;
    size_t i;

    while ((p = strstr(p, "encoding")) != NULL && p < end) {
        const char *v;

        if (!is_xml_space(p[-1])) {
            p++;
            continue;
        }
        v = skip_space(p + strlen("encoding"));
        if (*v != '=')
            return 0;
        v = skip_space(v + 1);
        if (*v != '"' && *v != '\'')
            return 0;
        for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
            if (starts_nocase(v + 1, ok[i]) && v[1 + strlen(ok[i])] == *v)
                return 1;
        return 0;
    }
    return 1;
}

/* A DOCTYPE declaration at p (at "<!DOCTYPE"): NULL and *next past its '>'
 * when it names an external DTD and nothing else, else the reason, with
 * *next at what is refused. */
static const char *doctype_refusal(const char *p, const char **next)
{
    const char *q = p + strlen("<!DOCTYPE"), *name;

    *next = p;
    if (!is_xml_space(*q))
        return "a malformed DOCTYPE";
    name = q = skip_space(q);
    while (*q && !is_xml_space(*q) && *q != '[' && *q != '>')
        q++;
    if (q == name)
        return "a malformed DOCTYPE";
    q = skip_space(q);
    if (strncmp(q, "SYSTEM", 6) == 0 && is_xml_space(q[6])) {
        q = skip_literal(skip_space(q + 6));
    } else if (strncmp(q, "PUBLIC", 6) == 0 && is_xml_space(q[6])) {
        q = skip_literal(skip_space(q + 6));
        q = q && is_xml_space(*q) ? skip_literal(skip_space(q)) : NULL;
    } else if (*q == '[') {
        *next = q;
        return "an internal DTD subset";
    } else {
        return "a DOCTYPE without a system identifier";
    }
    if (q == NULL)
        return "a malformed DOCTYPE";
    q = skip_space(q);
    *next = q;
    if (*q == '[')
        return "an internal DTD subset";
    if (*q != '>')
        return "a malformed DOCTYPE";
    *next = q + 1;
    return NULL;
}

const char *meshgen__xml_refusal(const char *xml, size_t len, size_t *at)
{
    const char *nul = memchr(xml, '\0', len), *p = xml, *end;

    *at = 0;
    if (nul != NULL) {
        *at = (size_t)(nul - xml);
        return "a NUL byte (UTF-16 or UTF-32 text, or no text at all)";
    }
    /* libxml2 reads "<?xm" in EBCDIC as EBCDIC; any other start that is
     * not '<' is no XML it reads. */
    if (strncmp(p, "\x4c\x6f\xa7\x94", 4) == 0)
        return "an EBCDIC encoding";
    if (strncmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    /* The prolog: an XML declaration, comments, processing instructions
     * and at most one DOCTYPE, up to the root element. */
    for (;;) {
        const char *why;

        p = skip_space(p);
        *at = (size_t)(p - xml);
        if (strncmp(p, "<?", 2) == 0) {
            if ((end = strstr(p + 2, "?>")) == NULL)
                return NULL;
            if (strncmp(p, "<?xml", 5) == 0 && is_xml_space(p[5]) && !encoding_ok(p, end))
                return "an encoding other than UTF-8, US-ASCII or ISO-8859-1";
            p = end + 2;
        } else if (strncmp(p, "<!--", 4) == 0) {
            if ((end = strstr(p + 4, "-->")) == NULL)
                return NULL;
            p = end + 3;
        } else if (strncmp(p, "<!DOCTYPE", 9) == 0) {
            why = doctype_refusal(p, &p);
            if (why != NULL) {
                *at = (size_t)(p - xml);
                return why;
            }
        } else {
            /* The root element, or something hwloc's parser refuses. */
            return NULL;
        }
    }
}
