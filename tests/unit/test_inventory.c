/*
 * Unit tests of gen/topology.c (through mg_inventory_load and
 * mg_topology_load): GPU detection on the shared real hwloc
 * exports (tests/data/hwloc, counts from their README) and on the made-for-
 * test topologies of tests/data/topo (one per case of the PCI rule, counts
 * from their README), locality, NVLink and XGMI closeness, CPU objects of
 * synthetic topologies and of a topology without cores, the digest, and
 * every load error (check name and location), including truncated and
 * random files and hwloc 3.x exports. Only the public header
 * <meshgen/gen.h> is used here: no hwloc header, no YAML.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "internal.h"

#ifndef MESHGEN_TEST_DATA
#define MESHGEN_TEST_DATA "tests/data"
#endif
#define HWLOC_DIR MESHGEN_TEST_DATA "/hwloc/"

/*
 * hwloc 2.9 itself leaks in two places these tests reach: the live load,
 * through the PCI plugin's libpciaccess (about 1 KiB per load, lost when the
 * plugin is unloaded), and a failed import with hwloc's own XML parser (used
 * when the libxml2 plugin is not installed), which drops the objects it had
 * built. Neither is ours, so LeakSanitizer ignores what those calls allocate;
 * valgrind runs of this test check our side of them.
 */
#if defined(__SANITIZE_ADDRESS__)
#define MG_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define MG_LSAN 1
#endif
#endif
#ifdef MG_LSAN
#include <sanitizer/lsan_interface.h>
#define HWLOC_LEAKS_BEGIN() __lsan_disable()
#define HWLOC_LEAKS_END() __lsan_enable()
#else
#define HWLOC_LEAKS_BEGIN() ((void)0)
#define HWLOC_LEAKS_END() ((void)0)
#endif

/* ---- fixture: one arena and diagnostics per test -------------------------- */

struct ctx {
    struct mg_arena arena;
    struct mg_diags diags;
    struct mg_mark at;
};

static int setup(void **state)
{
    struct ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    mg_arena_init(&c->arena);
    mg_diags_init(&c->diags, &c->arena);
    c->at.file = "spec.yaml";
    c->at.line = 7;
    c->at.col = 12;
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;
    mg_arena_free(&c->arena);
    free(c);
    return 0;
}

/* Loads a source that must load cleanly (warnings allowed). */
static const struct mg_topology *load_ok(struct ctx *c, const char *source,
                                         const struct mg_inventory **inv_out)
{
    const struct mg_inventory *inv = mg_inventory_load(&c->arena, &c->diags, source, c->at);
    if (!inv || c->diags.n_errors)
        mg_diags_print(&c->diags, stderr, MG_FORMAT_TEXT);
    assert_non_null(inv);
    assert_int_equal(c->diags.n_errors, 0);
    assert_int_equal(inv->n_hosts, 1);
    assert_int_equal(inv->n_topologies, 1);
    assert_int_equal(inv->hosts[0].topology, 0);
    if (inv_out)
        *inv_out = inv;
    return &inv->topologies[0];
}

static int closeness(const struct mg_topology *t, int kind, int a, int b)
{
    assert_true(mg_topology_has_closeness(t, kind));
    return mg_topology_closeness(t, kind, a, b);
}

/* A load that must fail with exactly one error of `check` at c->at, whose
 * message holds `has` unless it is NULL and lacks `lacks` unless NULL. */
static void expect_error_text(struct ctx *c, const char *source, const char *check, const char *has,
                              const char *lacks)
{
    const struct mg_inventory *inv;

    HWLOC_LEAKS_BEGIN();
    inv = mg_inventory_load(&c->arena, &c->diags, source, c->at);
    HWLOC_LEAKS_END();
    assert_null(inv);
    assert_int_equal(c->diags.n_errors, 1);
    assert_int_equal(c->diags.n, 1);
    assert_string_equal(c->diags.items[0].check, check);
    assert_ptr_equal(c->diags.items[0].at.file, c->at.file);
    assert_int_equal(c->diags.items[0].at.line, c->at.line);
    assert_int_equal(c->diags.items[0].at.col, c->at.col);
    assert_non_null(c->diags.items[0].message);
    if (has && !strstr(c->diags.items[0].message, has))
        fail_msg("message '%s' lacks '%s'", c->diags.items[0].message, has);
    if (lacks && strstr(c->diags.items[0].message, lacks))
        fail_msg("message '%s' has '%s'", c->diags.items[0].message, lacks);
    /* Start the next case with no diagnostics. */
    mg_diags_init(&c->diags, &c->arena);
}

static void expect_error(struct ctx *c, const char *source, const char *check)
{
    expect_error_text(c, source, check, NULL, NULL);
}

/* ---- temporary files --------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Writes the bytes to a fresh file under /tmp and returns its path. */
static void write_temp(char path[64], const void *data, size_t len)
{
    int fd;
    FILE *f;

    snprintf(path, 64, "/tmp/mg_test_inventory_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    f = fdopen(fd, "wb");
    assert_non_null(f);
    if (len)
        assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* s with every `from` replaced by `to`, in heap memory. */
static char *replace_all(const char *s, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    const char *p;
    char *out, *q;

    for (p = strstr(s, from); p; p = strstr(p + nf, from))
        n++;
    out = malloc(strlen(s) + n * nt + 1);
    assert_non_null(out);
    for (q = out; (p = strstr(s, from)) != NULL; s = p + nf) {
        memcpy(q, s, (size_t)(p - s));
        q += p - s;
        memcpy(q, to, nt);
        q += nt;
    }
    strcpy(q, s);
    return out;
}

/* ---- kinds --------------------------------------------------------------------- */

static void test_kind_names(void **state)
{
    static const char *const names[] = {"gpu", "core", "numa", "package", "pu", "tpu"};
    int k;

    (void)state;
    for (k = 0; k < MG_N_KINDS; k++) {
        assert_string_equal(mg_kind_name(k), names[k]);
        assert_int_equal(mg_kind_from_name(names[k]), k);
    }
    assert_int_equal(mg_kind_from_name("GPU"), -1);
    assert_int_equal(mg_kind_from_name("socket"), -1);
    assert_int_equal(mg_kind_from_name(NULL), -1);
    assert_string_equal(mg_kind_name(MG_N_KINDS), "unknown");
    assert_string_equal(mg_kind_name(-1), "unknown");
}

/* ---- GPUs on real exports ------------------------------------------------------ */

/* The GPUs of a topology: their PCI bus ids in inventory order, separated
 * by spaces ("-" for a GPU without one), in heap memory. */
static char *gpu_list(const struct mg_topology *t)
{
    size_t cap = 16 * (size_t)t->n[MG_KIND_GPU] + 1, len = 0;
    char *s = malloc(cap);
    int g;

    assert_non_null(s);
    s[0] = '\0';
    for (g = 0; g < t->n[MG_KIND_GPU]; g++) {
        const char *pci = t->devs[MG_KIND_GPU][g].pci;
        len += (size_t)snprintf(s + len, cap - len, "%s%s", g ? " " : "", pci[0] ? pci : "-");
    }
    return s;
}

/*
 * Which devices are GPUs, per file: the counts of tests/data/hwloc/README.md
 * for the shared real exports and of tests/data/topo/README.md for the
 * made-for-test ones, and the bus id of each GPU (read from the files).
 */
static void test_gpu_counts(void **state)
{
    static const struct {
        const char *file;
        int gpus;
        const char *pci;
    } cases[] = {
        {"hwloc/nvidiaDGX2.xml", 16,
         "0000:34:00.0 0000:36:00.0 0000:39:00.0 0000:3b:00.0 0000:57:00.0 0000:59:00.0 "
         "0000:5c:00.0 0000:5e:00.0 0000:b7:00.0 0000:b9:00.0 0000:bc:00.0 0000:be:00.0 "
         "0000:e0:00.0 0000:e2:00.0 0000:e5:00.0 0000:e7:00.0"},
        {"hwloc/power8gpudistances.xml", 4, "0002:01:00.0 0003:01:00.0 000a:01:00.0 000b:01:00.0"},
        /* Three Tesla 3D controllers, one with cuda0; the Radeon VGA by its
         * OpenCL device; not the Matrox VGA 0000:05:03.0. */
        {"hwloc/32em64t-2n8c2t-pci-wholeio.xml", 4,
         "0000:03:00.0 0000:83:00.0 0000:84:00.0 0000:84:00.1"},
        /* Not the ES1000 VGA 0000:01:03.0. */
        {"hwloc/24em64t-2n6c2t-pci.xml", 3, "0000:06:00.0 0000:11:00.0 0000:14:00.0"},
        {"hwloc/eas-tioga.xml", 8,
         "0000:c1:00.0 0000:c6:00.0 0000:c9:00.0 0000:ce:00.0 0000:d1:00.0 0000:d6:00.0 "
         "0000:d9:00.0 0000:de:00.0"},
        {"hwloc/96em64t-4n4d3ca2co-pci.xml", 0, ""}, /* an ES1000 with card0 only */
        {"hwloc/test-hwloc-annotate.input", 0, ""},  /* Intel integrated graphics */
        {"hwloc/192em64t-24n8c2t.xml", 0, ""},       /* a Matrox VGA */
        {"hwloc/memorysidecaches.xml", 0, ""},
        {"hwloc/h200-container.xml", 1, "0000:00:06.0"}, /* ids only, no names */
        {"topo/alternating-sockets.xml", 8,
         "0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0 0000:05:00.0 0000:06:00.0 "
         "0000:07:00.0 0000:08:00.0"},
        {"topo/gpu-backends.xml", 3, "0000:02:00.0 0000:03:00.0 -"},
        {"topo/nvidia-vga.xml", 2, "0000:01:00.0 0000:02:00.0"},
        {"topo/accel-0380.xml", 4, "0000:29:00.0 0000:2a:00.0 0000:c1:00.0 0000:c2:00.0"},
        {"topo/es1000-beside-gpus.xml", 2, "0000:3b:00.0 0000:d8:00.0"},
        {"topo/mixed-compute.xml", 4, "0000:18:00.0 0000:3b:00.0 0000:86:00.0 0000:af:00.0"},
        {"topo/no-cores.xml", 0, ""},
        {"topo/vendor-ids.xml", 5,
         "0000:01:00.0 0000:02:00.0 0000:81:00.0 0000:82:00.0 0000:83:00.0"},
    };
    struct ctx *c = *state;
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        const struct mg_topology *t;
        char *list;
        int g;

        snprintf(path, sizeof path, MESHGEN_TEST_DATA "/%s", cases[i].file);
        t = load_ok(c, path, NULL);
        list = gpu_list(t);
        if (t->n[MG_KIND_GPU] != cases[i].gpus || strcmp(list, cases[i].pci) != 0)
            fprintf(stderr, "%s: %d GPUs (%s), expected %d (%s)\n", cases[i].file,
                    t->n[MG_KIND_GPU], list, cases[i].gpus, cases[i].pci);
        assert_int_equal(t->n[MG_KIND_GPU], cases[i].gpus);
        assert_string_equal(list, cases[i].pci);
        free(list);
        assert_string_equal(t->key, path);
        assert_string_equal(t->label, path);
        assert_true(t->n[MG_KIND_CORE] > 0 && t->n[MG_KIND_PU] >= t->n[MG_KIND_CORE]);
        /* Every GPU is placed, and those with a PCI device come first. */
        for (g = 0; g < t->n[MG_KIND_GPU]; g++) {
            const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
            assert_int_equal(v->kind, MG_KIND_GPU);
            assert_int_equal(v->os_index, -1);
            assert_true(v->numa >= 0);
            assert_true(v->cpuset[0] != '\0');
        }
    }
}

static void test_dgx2(void **state)
{
    /* The NVSwitch PCI devices (class 0x0680, one 0x0000) of the file. */
    static const char *const switches[] = {
        "0000:61:00.0", "0000:62:00.0", "0000:63:00.0", "0000:65:00.0",
        "0000:66:00.0", "0000:67:00.0", "0000:c1:00.0", "0000:c2:00.0",
        "0000:c3:00.0", "0000:c5:00.0", "0000:c6:00.0", "0000:c7:00.0",
    };
    struct ctx *c = *state;
    const struct mg_inventory *inv;
    const struct mg_topology *t = load_ok(c, HWLOC_DIR "nvidiaDGX2.xml", &inv);
    int g, h;
    size_t s;

    assert_int_equal(t->n[MG_KIND_GPU], 16);
    /* No HostName in this export: the file's base name. */
    assert_string_equal(inv->hosts[0].name, "nvidiaDGX2");
    assert_string_equal(t->devs[MG_KIND_GPU][0].pci, "0000:34:00.0");
    assert_string_equal(t->devs[MG_KIND_GPU][0].uuid, "GPU-d3977428-7a30-086b-2e20-5c1eeed647c6");
    for (g = 0; g < 16; g++) {
        const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
        assert_true(strncmp(v->uuid, "GPU-", 4) == 0);
        assert_non_null(strstr(v->model, "V100"));
        assert_string_equal(v->vendor, "NVIDIA Corporation");
        /* Eight GPUs on each package; the export keeps 2 PUs of each. */
        assert_int_equal(v->numa, g < 8 ? 0 : 1);
        assert_string_equal(v->cpuset, g < 8 ? "0-1" : "24-25");
        for (s = 0; s < sizeof switches / sizeof switches[0]; s++)
            assert_string_not_equal(v->pci, switches[s]);
    }
    /* Through the NVSwitches every pair has the full 6 x 25 GB/s. */
    for (g = 0; g < 16; g++)
        for (h = 0; h < 16; h++)
            assert_int_equal(closeness(t, MG_KIND_GPU, g, h), 150000);
}

static void test_power8(void **state)
{
    static const char *const pci[] = {"0002:01:00.0", "0003:01:00.0", "000a:01:00.0",
                                      "000b:01:00.0"};
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, HWLOC_DIR "power8gpudistances.xml", NULL);
    int g;

    /* cudaN, opencl0dN and nvmlN are one GPU each. */
    assert_int_equal(t->n[MG_KIND_GPU], 4);
    for (g = 0; g < 4; g++) {
        const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
        assert_string_equal(v->pci, pci[g]);
        assert_string_equal(v->model, "Tesla P100-SXM2-16GB");
        assert_true(strncmp(v->uuid, "GPU-", 4) == 0);
        assert_int_equal(v->numa, g < 2 ? 0 : 1);
    }
    /* Direct NVLink pairs 0-1 and 2-3 (40 GB/s); none across the sockets.
     * A transitive closure in hwloc 2.9 would zero these. */
    assert_int_equal(closeness(t, MG_KIND_GPU, 0, 1), 40000);
    assert_int_equal(closeness(t, MG_KIND_GPU, 1, 0), 40000);
    assert_int_equal(closeness(t, MG_KIND_GPU, 2, 3), 40000);
    assert_int_equal(closeness(t, MG_KIND_GPU, 0, 2), 0);
    assert_int_equal(closeness(t, MG_KIND_GPU, 1, 3), 0);
    assert_true(closeness(t, MG_KIND_GPU, 0, 0) >= closeness(t, MG_KIND_GPU, 0, 1));
}

static void test_tioga(void **state)
{
    /* Each GCD's locality is one L3 (CCD); its NUMA node comes from the
     * L3's nodeset (NPS4: two CCDs per NUMA node). From the file. */
    static const struct {
        const char *pci;
        int numa;
        const char *cpuset;
    } want[] = {
        {"0000:c1:00.0", 3, "48-55,112-119"}, {"0000:c6:00.0", 3, "56-63,120-127"},
        {"0000:c9:00.0", 1, "16-23,80-87"},   {"0000:ce:00.0", 1, "24-31,88-95"},
        {"0000:d1:00.0", 0, "0-7,64-71"},     {"0000:d6:00.0", 0, "8-15,72-79"},
        {"0000:d9:00.0", 2, "32-39,96-103"},  {"0000:de:00.0", 2, "40-47,104-111"},
    };
    struct ctx *c = *state;
    const struct mg_inventory *inv;
    const struct mg_topology *t = load_ok(c, HWLOC_DIR "eas-tioga.xml", &inv);
    int g, h, seen = 0;

    assert_string_equal(inv->hosts[0].name, "tioga29");
    assert_int_equal(t->n[MG_KIND_GPU], 8);
    assert_int_equal(t->n[MG_KIND_NUMA], 4);
    assert_string_equal(t->devs[MG_KIND_GPU][0].uuid, "4a7c19da329a2b8c");
    for (g = 0; g < 8; g++) {
        const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
        assert_string_equal(v->pci, want[g].pci);
        assert_int_equal(v->numa, want[g].numa);
        assert_string_equal(v->cpuset, want[g].cpuset);
        assert_string_equal(v->vendor, "AMD");
        assert_non_null(strstr(v->model, "MI200"));
        /* AMDUUID: 16 hex digits. */
        assert_int_equal(strlen(v->uuid), 16);
        assert_int_equal(strspn(v->uuid, "0123456789abcdef"), 16);
        seen |= 1 << v->numa;
    }
    assert_int_equal(seen, 0xf); /* all four NUMA nodes have GPUs */
    /* XGMIBandwidth: every pair 100 GB/s, the diagonal the row maximum. */
    for (g = 0; g < 8; g++)
        for (h = 0; h < 8; h++)
            assert_int_equal(closeness(t, MG_KIND_GPU, g, h), 100000);
}

static void test_pci_class_rule(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, HWLOC_DIR "24em64t-2n6c2t-pci.xml", NULL);
    static const char *const pci[] = {"0000:06:00.0", "0000:11:00.0", "0000:14:00.0"};
    int g;

    /* No GPU OS device at all: the three class-0x0302 Teslas count, the
     * ES1000 VGA (class 0x0300) does not. */
    assert_int_equal(t->n[MG_KIND_GPU], 3);
    for (g = 0; g < 3; g++) {
        const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
        assert_string_equal(v->pci, pci[g]);
        assert_string_equal(v->vendor, "nVidia Corporation");
        assert_string_equal(v->model, ""); /* no PCIDevice name in the export */
        assert_string_equal(v->uuid, "");
        assert_int_equal(v->numa, g == 0 ? 0 : 1);
    }
    /* No bandwidth matrix: the tree. 0000:11 and 0000:14 share the host
     * bridge of package 1; 0000:06 is on package 0. */
    assert_true(closeness(t, MG_KIND_GPU, 1, 2) > closeness(t, MG_KIND_GPU, 0, 1));
    assert_int_equal(closeness(t, MG_KIND_GPU, 0, 1), closeness(t, MG_KIND_GPU, 0, 2));
    assert_true(closeness(t, MG_KIND_GPU, 1, 1) > closeness(t, MG_KIND_GPU, 1, 2));
}

static void test_per_device_rule(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, HWLOC_DIR "32em64t-2n8c2t-pci-wholeio.xml", NULL);
    const struct mg_devinfo *v = t->devs[MG_KIND_GPU];

    /* The rule is per PCI device: the two Tesla M2075 with no OS device
     * count beside the one with cuda0 (DRM card0 adds nothing), and the
     * Radeon VGA counts by its OpenCL device. */
    assert_int_equal(t->n[MG_KIND_GPU], 4);
    assert_string_equal(v[0].pci, "0000:03:00.0");
    assert_string_equal(v[1].pci, "0000:83:00.0");
    assert_string_equal(v[2].pci, "0000:84:00.0");
    assert_string_equal(v[3].pci, "0000:84:00.1");
    /* Found by class only: the PCI device's names and no UUID. */
    assert_string_equal(v[0].model, "Tesla M2075 Dual-Slot Computing Processor Module");
    assert_string_equal(v[0].vendor, "NVIDIA Corporation");
    assert_string_equal(v[0].uuid, "");
    /* The OS device's model wins over the PCI device name. */
    assert_string_equal(v[2].model, "Tesla K40m");
    assert_string_equal(v[3].model, "AMD Radeon R9 200 / HD 7900 Series");
    assert_string_equal(v[3].vendor, "Advanced Micro Devices, Inc.");
    /* The vendor ids of the PCI devices, through the OS devices too. */
    assert_int_equal(v[0].vendor_id, 0x10de);
    assert_int_equal(v[2].vendor_id, 0x10de);
    assert_int_equal(v[3].vendor_id, 0x1002);
    assert_int_equal(v[0].numa, 0);
    assert_int_equal(v[1].numa, 1);
    assert_int_equal(v[2].numa, 1);
    assert_int_equal(v[3].numa, 1);
}

static void test_nvidia_vga(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, MESHGEN_TEST_DATA "/topo/nvidia-vga.xml", NULL);
    int g;

    /* NVIDIA's VGA-class boards count with display devices only; the
     * ASPEED management VGA 0000:03:00.0 does not. */
    assert_int_equal(t->n[MG_KIND_GPU], 2);
    for (g = 0; g < 2; g++) {
        const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
        assert_string_equal(v->model, "GA102 [GeForce RTX 3090]");
        assert_string_equal(v->vendor, "NVIDIA Corporation");
        assert_string_equal(v->uuid, "");
        assert_int_equal(v->numa, g);
    }
}

static void test_accel_0380(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, MESHGEN_TEST_DATA "/topo/accel-0380.xml", NULL);
    const struct mg_devinfo *v = t->devs[MG_KIND_GPU];

    /* Class 0x0380 from Intel and AMD, and a processing accelerator (0x1200)
     * of any vendor; not a 0x0380 from Matrox (0000:2b:00.0). */
    assert_int_equal(t->n[MG_KIND_GPU], 4);
    assert_string_equal(v[0].vendor, "Intel Corporation");
    assert_string_equal(v[1].vendor, "Habana Labs Ltd.");
    assert_int_equal(v[0].vendor_id, 0x8086);
    assert_int_equal(v[1].vendor_id, 0x1da3);
    assert_int_equal(v[2].vendor_id, 0x1002);
    assert_string_equal(v[2].model, "Aldebaran/MI200 [Instinct MI210]");
    assert_string_equal(v[3].model, "Aldebaran/MI200 [Instinct MI210]");
    assert_int_equal(v[0].numa, 0);
    assert_int_equal(v[2].numa, 1);
}

/* Vendors by PCI vendor id (docs/reference.md §2, "Vendors"): names only
 * for display, the table's where hwloc has none, a misleading one kept as
 * it is and deciding nothing. */
static void test_vendor_ids(void **state)
{
    static const struct {
        int id;
        const char *vendor;
    } want[5] = {
        {0x1002, "AMD"},
        {0x8086, "Intel"},
        {0x10de, "Amdahl Corporation"},
        {0x1e52, "NVIDIA Corporation"},
        {0x10ee, "Applied Intelligent Systems, Inc."},
    };
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, MESHGEN_TEST_DATA "/topo/vendor-ids.xml", NULL);
    int g;

    assert_int_equal(t->n[MG_KIND_GPU], 5);
    for (g = 0; g < 5; g++) {
        assert_int_equal(t->devs[MG_KIND_GPU][g].vendor_id, want[g].id);
        assert_string_equal(t->devs[MG_KIND_GPU][g].vendor, want[g].vendor);
    }
    /* The H200 in a container: no names at all. */
    t = load_ok(c, HWLOC_DIR "h200-container.xml", NULL);
    assert_int_equal(t->devs[MG_KIND_GPU][0].vendor_id, 0x10de);
    assert_string_equal(t->devs[MG_KIND_GPU][0].vendor, "NVIDIA");
    assert_string_equal(t->devs[MG_KIND_GPU][0].model, "");
    /* CPU objects have no PCI vendor. */
    assert_int_equal(t->devs[MG_KIND_CORE][0].vendor_id, 0);
}

static void test_es1000_beside_gpus(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t =
        load_ok(c, MESHGEN_TEST_DATA "/topo/es1000-beside-gpus.xml", NULL);

    /* AMD's ES1000 (1002:515e) is a VGA of a GPU vendor with a DRM device,
     * and still no mesh device. */
    assert_int_equal(t->n[MG_KIND_GPU], 2);
    assert_string_equal(t->devs[MG_KIND_GPU][0].pci, "0000:3b:00.0");
    assert_string_equal(t->devs[MG_KIND_GPU][1].pci, "0000:d8:00.0");
    assert_string_equal(t->devs[MG_KIND_GPU][0].model, "GV100GL [Tesla V100 PCIe 32GB]");
}

static void test_mixed_compute(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, MESHGEN_TEST_DATA "/topo/mixed-compute.xml", NULL);
    const struct mg_devinfo *v = t->devs[MG_KIND_GPU];
    int g;

    /* Four Teslas, only two with CUDA and NVML devices: all four count, in
     * bus id order; the Intel iGPU with card0 and renderD128 does not. */
    assert_int_equal(t->n[MG_KIND_GPU], 4);
    assert_string_equal(v[0].uuid, "GPU-18000000-0000-0000-0000-000000000000");
    assert_string_equal(v[2].uuid, "GPU-86000000-0000-0000-0000-000000000000");
    assert_string_equal(v[1].uuid, "");
    assert_string_equal(v[3].uuid, "");
    for (g = 0; g < 4; g++) {
        assert_string_equal(v[g].model,
                            g % 2 ? "GV100GL [Tesla V100 PCIe 16GB]" : "Tesla V100-PCIE-16GB");
        assert_int_equal(v[g].numa, g / 2);
        assert_string_equal(v[g].cpuset, g < 2 ? "0-1" : "2-3");
    }
    /* With or without OS devices, GPUs on one package are closer. */
    assert_true(closeness(t, MG_KIND_GPU, 0, 1) > closeness(t, MG_KIND_GPU, 1, 2));
    assert_true(closeness(t, MG_KIND_GPU, 2, 3) > closeness(t, MG_KIND_GPU, 0, 3));
}

static void test_alternating_sockets(void **state)
{
    struct ctx *c = *state;
    const struct mg_inventory *inv;
    const struct mg_topology *t =
        load_ok(c, MESHGEN_TEST_DATA "/topo/alternating-sockets.xml", &inv);
    int g;

    assert_string_equal(inv->hosts[0].name, "alternating-sockets");
    assert_int_equal(t->n[MG_KIND_GPU], 8);
    for (g = 0; g < 8; g++) {
        char pci[16];
        snprintf(pci, sizeof pci, "0000:%02x:00.0", g + 1);
        assert_string_equal(t->devs[MG_KIND_GPU][g].pci, pci);
        assert_int_equal(t->devs[MG_KIND_GPU][g].numa, g % 2);
        assert_string_equal(t->devs[MG_KIND_GPU][g].cpuset, g % 2 ? "8-15" : "0-7");
    }
    /* Same package closer than across, whatever the PCI order says. */
    assert_true(closeness(t, MG_KIND_GPU, 0, 2) > closeness(t, MG_KIND_GPU, 0, 1));
    assert_true(closeness(t, MG_KIND_GPU, 1, 7) > closeness(t, MG_KIND_GPU, 1, 2));
}

static void test_backends_without_pci(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, MESHGEN_TEST_DATA "/topo/gpu-backends.xml", NULL);
    const struct mg_devinfo *v;

    /* cuda0 and nvml0 (no Backend info: known by name) are one GPU; card1
     * and card9 are display devices; the 3D controller 0000:03:00.0 counts
     * by its class, with no OS device and no names at all. */
    assert_int_equal(t->n[MG_KIND_GPU], 3);
    v = &t->devs[MG_KIND_GPU][0];
    assert_string_equal(v->pci, "0000:02:00.0");
    assert_string_equal(v->model, "from nvml"); /* NVML is preferred */
    assert_string_equal(v->uuid, "GPU-0000");   /* only cuda0 has one */
    assert_string_equal(v->vendor, "NVIDIA Corporation");
    assert_int_equal(v->numa, 1);
    v = &t->devs[MG_KIND_GPU][1];
    assert_string_equal(v->pci, "0000:03:00.0");
    assert_string_equal(v->model, "");
    /* No name from hwloc: the vendor table's, for its id 10de. */
    assert_int_equal(v->vendor_id, 0x10de);
    assert_string_equal(v->vendor, "NVIDIA");
    assert_int_equal(v->numa, 1);
    /* The integrated GPU has no PCI id: listed last, once, from the
     * preferred of its two backends. */
    v = &t->devs[MG_KIND_GPU][2];
    assert_string_equal(v->pci, "");
    assert_int_equal(v->vendor_id, 0); /* no PCI device, no vendor id */
    assert_string_equal(v->model, "integrated, via Level Zero");
    assert_string_equal(v->cpuset, "0");
    assert_int_equal(v->numa, 0);
    assert_int_equal(closeness(t, MG_KIND_GPU, 0, 2), 0);
    assert_true(closeness(t, MG_KIND_GPU, 0, 1) > 0); /* one host bridge */
}

/* ---- CPU objects --------------------------------------------------------------- */

static void test_synthetic_cpu(void **state)
{
    struct ctx *c = *state;
    const struct mg_inventory *inv;
    const struct mg_topology *t = load_ok(c, "synthetic:pack:2 core:4 pu:2", &inv);
    int i;

    assert_string_equal(inv->source, "synthetic:pack:2 core:4 pu:2");
    assert_string_equal(inv->hosts[0].name, "localhost");
    assert_null(inv->hosts[0].slice);
    assert_ptr_equal(inv->hosts[0].at.file, c->at.file);
    assert_int_equal(inv->hosts[0].at.line, c->at.line);
    assert_string_equal(t->key, "synthetic:pack:2 core:4 pu:2");
    assert_int_equal(t->n[MG_KIND_GPU], 0);
    assert_false(mg_topology_has_closeness(t, MG_KIND_GPU));
    assert_int_equal(t->n[MG_KIND_PACKAGE], 2);
    assert_int_equal(t->n[MG_KIND_CORE], 8);
    assert_int_equal(t->n[MG_KIND_PU], 16);
    assert_int_equal(t->n[MG_KIND_NUMA], 1); /* hwloc adds one */
    for (i = 0; i < 8; i++) {
        char want[16];
        const struct mg_devinfo *v = &t->devs[MG_KIND_CORE][i];
        snprintf(want, sizeof want, "%d-%d", 2 * i, 2 * i + 1);
        assert_string_equal(v->cpuset, want);
        assert_int_equal(v->kind, MG_KIND_CORE);
        assert_int_equal(v->os_index, i);
        assert_int_equal(v->numa, 0);
        assert_string_equal(v->pci, "");
        assert_string_equal(v->uuid, "");
        assert_string_equal(v->model, "");
    }
    for (i = 0; i < 16; i++)
        assert_int_equal(t->devs[MG_KIND_PU][i].os_index, i);
    assert_string_equal(t->devs[MG_KIND_PACKAGE][0].cpuset, "0-7");
    assert_string_equal(t->devs[MG_KIND_PACKAGE][1].cpuset, "8-15");
    assert_string_equal(t->devs[MG_KIND_NUMA][0].cpuset, "0-15");
    /* Cores 0 and 1 share package 0; core 4 is on package 1. */
    assert_true(closeness(t, MG_KIND_CORE, 0, 1) > closeness(t, MG_KIND_CORE, 0, 4));
    assert_int_equal(closeness(t, MG_KIND_CORE, 0, 1), closeness(t, MG_KIND_CORE, 1, 3));
    /* PUs: same core > same package > across. */
    assert_true(closeness(t, MG_KIND_PU, 0, 1) > closeness(t, MG_KIND_PU, 0, 2));
    assert_true(closeness(t, MG_KIND_PU, 0, 2) > closeness(t, MG_KIND_PU, 0, 8));
    assert_true(closeness(t, MG_KIND_PACKAGE, 0, 0) > closeness(t, MG_KIND_PACKAGE, 0, 1));
}

static void test_real_cpu(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, HWLOC_DIR "memorysidecaches.xml", NULL);

    /* Sub-NUMA clustering: NUMA nodes 0 and 2 on package 0, 1 and 3 on
     * package 1, listed in logical order, numbered by OS index. */
    assert_int_equal(t->n[MG_KIND_NUMA], 4);
    assert_int_equal(t->devs[MG_KIND_NUMA][0].os_index, 0);
    assert_int_equal(t->devs[MG_KIND_NUMA][1].os_index, 2);
    assert_int_equal(t->devs[MG_KIND_NUMA][2].os_index, 1);
    assert_int_equal(t->devs[MG_KIND_NUMA][1].numa, 2);
    assert_true(closeness(t, MG_KIND_NUMA, 0, 1) > closeness(t, MG_KIND_NUMA, 0, 2));
    assert_string_equal(t->devs[MG_KIND_CORE][0].vendor, "GenuineIntel");
    assert_non_null(strstr(t->devs[MG_KIND_CORE][0].model, "Gold 6230"));
    assert_string_equal(t->devs[MG_KIND_CORE][0].cpuset, "0,40");
    assert_string_equal(t->devs[MG_KIND_NUMA][0].vendor, "GenuineIntel");
    assert_int_equal(t->n[MG_KIND_PU], 80);
}

static void test_no_cores(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, MESHGEN_TEST_DATA "/topo/no-cores.xml", NULL);
    const struct mg_topology *s;
    int i;

    /* No Core objects: the PUs are the cores, with their OS indexes. */
    assert_int_equal(t->n[MG_KIND_PU], 8);
    assert_int_equal(t->n[MG_KIND_CORE], 8);
    for (i = 0; i < 8; i++) {
        char want[4];
        const struct mg_devinfo *v = &t->devs[MG_KIND_CORE][i];
        snprintf(want, sizeof want, "%d", i);
        assert_int_equal(v->kind, MG_KIND_CORE);
        assert_int_equal(v->os_index, i);
        assert_string_equal(v->cpuset, want);
        assert_int_equal(v->numa, i / 4);
    }
    assert_true(closeness(t, MG_KIND_CORE, 0, 3) > closeness(t, MG_KIND_CORE, 3, 4));
    /* The same from a synthetic description, and a topology with cores
     * keeps them. */
    s = load_ok(c, "synthetic:pack:2 pu:3", NULL);
    assert_int_equal(s->n[MG_KIND_CORE], 6);
    assert_string_equal(s->devs[MG_KIND_CORE][5].cpuset, "5");
    s = load_ok(c, "synthetic:pack:2 core:3 pu:2", NULL);
    assert_int_equal(s->n[MG_KIND_CORE], 6);
    assert_string_equal(s->devs[MG_KIND_CORE][5].cpuset, "10-11");
}

static void test_live(void **state)
{
    struct ctx *c = *state;
    const struct mg_inventory *inv;
    const struct mg_topology *t;

    HWLOC_LEAKS_BEGIN();
    t = load_ok(c, "live", &inv);
    HWLOC_LEAKS_END();
    assert_string_equal(t->key, "live");
    assert_true(t->n[MG_KIND_CORE] >= 1);
    assert_true(t->n[MG_KIND_PU] >= t->n[MG_KIND_CORE]);
    assert_true(t->n[MG_KIND_GPU] >= 0);
    assert_true(inv->hosts[0].name[0] != '\0');
    assert_int_equal(strlen(t->digest), 64);
}

/* 4200 cores and PUs: closeness by the tree has no ceiling (an n x n matrix
 * had one, 4096, with a warning past it), and costs a path per device. */
static void test_closeness_linear(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *t = load_ok(c, "synthetic:pack:2 core:2100 pu:1", NULL);
    int k;

    assert_int_equal(t->n[MG_KIND_CORE], 4200);
    assert_int_equal(c->diags.n, 0);
    for (k = 0; k < MG_N_HWLOC_KINDS; k++) {
        assert_null(t->closeness[k]);
        if (k == MG_KIND_GPU)
            continue;
        assert_non_null(t->tree_path[k]);
        /* Machine, package, core (and the PU under it): a short path. */
        assert_true(t->tree_stride[k] <= 8);
    }
    /* Two cores of one package meet there, of two packages at the root. */
    assert_int_equal(closeness(t, MG_KIND_CORE, 0, 2099), closeness(t, MG_KIND_CORE, 1, 2));
    assert_true(closeness(t, MG_KIND_CORE, 0, 2099) > closeness(t, MG_KIND_CORE, 0, 2100));
    assert_int_equal(closeness(t, MG_KIND_CORE, 2100, 4199), closeness(t, MG_KIND_CORE, 0, 1));
    assert_int_equal(closeness(t, MG_KIND_CORE, 0, 4199), 0);
    assert_int_equal(closeness(t, MG_KIND_CORE, 7, 7), t->tree_depth[MG_KIND_CORE][7]);
    assert_int_equal(closeness(t, MG_KIND_PU, 0, 4199), 0);
    assert_int_equal(closeness(t, MG_KIND_PACKAGE, 0, 1), 0);
}

/* ---- strings from a hostile file ------------------------------------------------ */

static int clean_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80                  ? 1
                : *p >= 0xc2 && *p <= 0xdf ? 2
                : *p >= 0xe0 && *p <= 0xef ? 3
                : *p >= 0xf0 && *p <= 0xf4 ? 4
                                           : 0;
        int i;
        if (n == 0 || *p < 0x20 || *p == 0x7f)
            return 0;
        for (i = 1; i < n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return 0;
        p += n;
    }
    return 1;
}

static void test_hostile_strings(void **state)
{
    struct ctx *c = *state;
    size_t len;
    char *xml = slurp(MESHGEN_TEST_DATA "/topo/alternating-sockets.xml", &len);
    /* Tab and newline as character references, a literal tab and DEL, and
     * a valid two-byte character that must survive. */
    char *bad = replace_all(xml, "value=\"GA100 [A100 SXM4 40GB]\"",
                            "value=\"A&#9;B&#10;C\tD\x7f caf\xc3\xa9\"");
    char path[64];
    const struct mg_topology *t;
    int g;

    write_temp(path, bad, strlen(bad));
    t = load_ok(c, path, NULL);
    assert_int_equal(t->n[MG_KIND_GPU], 8);
    for (g = 0; g < 8; g++) {
        const struct mg_devinfo *v = &t->devs[MG_KIND_GPU][g];
        assert_true(clean_utf8(v->model));
        assert_true(clean_utf8(v->vendor));
        assert_non_null(strstr(v->model, "caf\xc3\xa9"));
        assert_true(strncmp(v->model, "A?B?C", 5) == 0);
    }
    remove(path);
    free(bad);
    free(xml);
}

/* ---- errors ----------------------------------------------------------------------- */

static void test_error_missing_file(void **state)
{
    struct ctx *c = *state;
    expect_error(c, HWLOC_DIR "no-such-file.xml", "inventory-load");
    expect_error(c, MESHGEN_TEST_DATA, "inventory-load"); /* a directory */
    expect_error(c, "", "inventory-load");
}

static void test_error_truncated(void **state)
{
    struct ctx *c = *state;
    size_t len, cut;
    char *xml = slurp(HWLOC_DIR "nvidiaDGX2.xml", &len);
    char path[64];

    /* Cut at many points, including mid-tag, mid-attribute and just before
     * the closing </topology>: always one clean error, never a live load. */
    for (cut = 1; cut < len; cut += len / 23) {
        write_temp(path, xml, cut);
        expect_error(c, path, "inventory-load");
        remove(path);
    }
    write_temp(path, xml, len - strlen("</topology>\n"));
    expect_error(c, path, "inventory-load");
    remove(path);
    free(xml);
}

static void test_error_garbage(void **state)
{
    static const char html[] = "<?xml version=\"1.0\"?>\n<html></html>\n";
    static const char v3[] = "<?xml version=\"1.0\"?>\n<topology version=\"3.0\">\n</topology>\n";
    struct ctx *c = *state;
    unsigned char bytes[4096];
    uint32_t x = 12345;
    char path[64];
    size_t i;

    /* Random bytes, then the same with no NUL (so hwloc itself rejects
     * them), then an empty file. */
    for (i = 0; i < sizeof bytes; i++) {
        x = x * 1103515245u + 12345u;
        bytes[i] = (unsigned char)(x >> 16);
    }
    write_temp(path, bytes, sizeof bytes);
    expect_error(c, path, "inventory-load");
    remove(path);
    for (i = 0; i < sizeof bytes; i++)
        bytes[i] = bytes[i] ? bytes[i] : '<';
    write_temp(path, bytes, sizeof bytes);
    expect_error(c, path, "inventory-load");
    remove(path);
    write_temp(path, "", 0);
    expect_error(c, path, "inventory-load");
    remove(path);
    /* Well-formed XML that is not a topology, and a future format. */
    write_temp(path, html, strlen(html));
    expect_error(c, path, "inventory-load");
    remove(path);
    write_temp(path, v3, strlen(v3));
    expect_error_text(c, path, "inventory-load", "XML format 3 (hwloc 3.x)", NULL);
    remove(path);
}

/* Files of hwloc 3's XML format: hwloc 2.x refuses them, and the error says
 * so and how to export again (docs/reference.md §2). */
static void test_error_hwloc3(void **state)
{
    static const char *const headers[] = {
        "<topology version='3.1'>",         /* single quotes */
        "<topology\n  version = \"4.0\" >", /* spaces around '=' */
        "<topology version=\"2.0\" >",      /* hwloc refuses it for another reason */
        "<topologydiff version=\"3.0\">",   /* not a topology */
    };
    struct ctx *c = *state;
    size_t len, i;
    char *xml = slurp(MESHGEN_TEST_DATA "/topo/hwloc3-export.xml", &len);
    char *v2 = replace_all(xml, "<topology version=\"3.0\">", "<topology version=\"2.0\">");
    char path[64];
    const struct mg_topology *t;

    expect_error_text(c, MESHGEN_TEST_DATA "/topo/hwloc3-export.xml", "inventory-load",
                      "'" MESHGEN_TEST_DATA "/topo/hwloc3-export.xml': it is in XML format 3 "
                      "(hwloc 3.x) and meshgen reads format 2 (hwloc 2.x); export it again "
                      "with hwloc 3's 'lstopo --export-xml-flags v2 FILE.xml'",
                      NULL);
    /* The same objects under the 2.0 header load: only the version
     * stopped hwloc. */
    write_temp(path, v2, strlen(v2));
    t = load_ok(c, path, NULL);
    assert_int_equal(t->n[MG_KIND_GPU], 1);
    assert_string_equal(t->devs[MG_KIND_GPU][0].pci, "0000:01:00.0");
    assert_int_equal(t->n[MG_KIND_CORE], 2);
    remove(path);
    /* Other ways of writing the root tag; a topology that hwloc refuses for
     * another reason (no objects) gets the general message. */
    for (i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        char doc[256];
        snprintf(doc, sizeof doc, "<?xml version=\"1.0\"?>\n%s\n</topology>\n", headers[i]);
        write_temp(path, doc, strlen(doc));
        if (i < 2)
            expect_error_text(c, path, "inventory-load", i ? "XML format 4" : "XML format 3", NULL);
        else
            expect_error_text(c, path, "inventory-load", "not a topology XML", "hwloc 3");
        remove(path);
    }
    free(v2);
    free(xml);
}

static void test_error_synthetic(void **state)
{
    struct ctx *c = *state;
    expect_error(c, "synthetic:bogus:3", "inventory-load");
    expect_error(c, "synthetic:", "inventory-load");
    expect_error(c, "synthetic:pack:2 core:0 pu:1", "inventory-load");
    expect_error(c, "synthetic:pack:2 core:4", "inventory-load"); /* last level not PU */
    /* Ten million PUs would take hwloc minutes: refused before it starts. */
    expect_error(c, "synthetic:pack:1000 core:1000 pu:10", "inventory-load");
    expect_error(c, "synthetic:pack:99999999999999999999 pu:1", "inventory-load");
}

/* Inventory YAML files go to their own reader (inventory.c), which
 * reports a missing file as an I/O error, never as broken XML. */
static void test_error_yaml(void **state)
{
    struct ctx *c = *state;
    expect_error(c, "inventories/missing-cluster.yaml", "io");
    expect_error(c, "missing-cluster.YML", "io");
}

/* ---- the entry point inventory.c uses ------------------------------------------ */

static void test_topology_load(void **state)
{
    struct ctx *c = *state;
    struct mg_topology t;
    const char *host = NULL;
    const struct mg_inventory *inv;

    /* key: the path as opened; label: as the user wrote it. */
    assert_int_equal(mg_topology_load(&c->arena, &c->diags, HWLOC_DIR "eas-tioga.xml",
                                      "../hwloc/eas-tioga.xml", c->at, &t, &host),
                     0);
    assert_string_equal(t.key, HWLOC_DIR "eas-tioga.xml");
    assert_string_equal(t.label, "../hwloc/eas-tioga.xml");
    assert_string_equal(host, "tioga29");
    assert_int_equal(t.n[MG_KIND_GPU], 8);
    assert_int_equal(mg_topology_load(&c->arena, &c->diags, "synthetic:pack:1 core:2 pu:1",
                                      "synthetic:pack:1 core:2 pu:1", c->at, &t, NULL),
                     0);
    assert_int_equal(t.n[MG_KIND_CORE], 2);
    assert_int_equal(c->diags.n, 0);
    /* Messages name the file as the user wrote it. */
    assert_int_equal(
        mg_topology_load(&c->arena, &c->diags, "/nonexistent/dir/x.xml", "x.xml", c->at, &t, NULL),
        -1);
    assert_int_equal(c->diags.n_errors, 1);
    assert_string_equal(c->diags.items[0].check, "inventory-load");
    assert_non_null(strstr(c->diags.items[0].message, "'x.xml'"));
    assert_null(strstr(c->diags.items[0].message, "nonexistent"));
    mg_diags_init(&c->diags, &c->arena);

    /* The depfile gets the XML file, and nothing for a description. */
    inv = mg_inventory_load(&c->arena, &c->diags, HWLOC_DIR "nvidiaDGX2.xml", c->at);
    assert_non_null(inv);
    assert_int_equal(inv->n_files, 1);
    assert_string_equal(inv->files[0], HWLOC_DIR "nvidiaDGX2.xml");
    inv = mg_inventory_load(&c->arena, &c->diags, "synthetic:pack:1 core:2 pu:1", c->at);
    assert_non_null(inv);
    assert_int_equal(inv->n_files, 0);
}

/* ---- digest ------------------------------------------------------------------------ */

static void test_digest(void **state)
{
    struct ctx *c = *state;
    const struct mg_topology *a = load_ok(c, HWLOC_DIR "nvidiaDGX2.xml", NULL);
    const struct mg_topology *b = load_ok(c, HWLOC_DIR "nvidiaDGX2.xml", NULL);
    const struct mg_topology *p = load_ok(c, HWLOC_DIR "power8gpudistances.xml", NULL);
    const struct mg_topology *s1 = load_ok(c, "synthetic:pack:2 core:4 pu:2", NULL);
    const struct mg_topology *s2 = load_ok(c, "synthetic:pack:2 core:4 pu:1", NULL);

    assert_int_equal(strlen(a->digest), 64);
    assert_int_equal(strspn(a->digest, "0123456789abcdef"), 64);
    assert_string_equal(a->digest, b->digest);
    assert_string_not_equal(a->digest, p->digest);
    assert_string_not_equal(s1->digest, s2->digest);
}

static void test_digest_ignores_formatting(void **state)
{
    struct ctx *c = *state;
    size_t len;
    char *xml = slurp(HWLOC_DIR "eas-tioga.xml", &len);
    /* Re-indented, with blank lines, and another host name: the same
     * topology, so the same digest (the host name belongs to the host). */
    char *spaced = replace_all(xml, "\n  <", "\n\n      <");
    char *renamed = replace_all(spaced, "value=\"tioga29\"", "value=\"tioga30\"");
    char path[64];
    const struct mg_inventory *inv;
    const struct mg_topology *a = load_ok(c, HWLOC_DIR "eas-tioga.xml", NULL), *b;

    write_temp(path, renamed, strlen(renamed));
    b = load_ok(c, path, &inv);
    assert_string_equal(inv->hosts[0].name, "tioga30");
    assert_string_equal(a->digest, b->digest);
    remove(path);
    free(renamed);
    free(spaced);
    free(xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test_setup_teardown(test_gpu_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dgx2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_power8, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tioga, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pci_class_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_per_device_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nvidia_vga, setup, teardown),
        cmocka_unit_test_setup_teardown(test_accel_0380, setup, teardown),
        cmocka_unit_test_setup_teardown(test_es1000_beside_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vendor_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mixed_compute, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alternating_sockets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backends_without_pci, setup, teardown),
        cmocka_unit_test_setup_teardown(test_synthetic_cpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real_cpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_cores, setup, teardown),
        cmocka_unit_test_setup_teardown(test_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_closeness_linear, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_strings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_missing_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_garbage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_hwloc3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_synthetic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_error_yaml, setup, teardown),
        cmocka_unit_test_setup_teardown(test_topology_load, setup, teardown),
        cmocka_unit_test_setup_teardown(test_digest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_digest_ignores_formatting, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
