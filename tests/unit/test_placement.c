/*
 * Unit tests of placement: meshgen_bind and meshgen_verify (runtime/placement.c,
 * the meshgen::placement library) and meshgen_placement_env (runtime/env.c).
 *
 * The meshes are tables as `meshgen generate` would emit them, built by the
 * harness (harness.h) from a description. The POWER8 mesh mirrors
 * tests/data/hwloc/power8gpudistances.xml (4 GPUs, 2 NUMA nodes), which
 * stands in for "this machine" through hwloc's HWLOC_XMLFILE, while
 * MESHGEN_HOSTNAME gives this machine the name of the host it plays; the
 * mismatch cases point HWLOC_XMLFILE at copies of that file, edited by this
 * test in a temporary directory, each with one difference; a made-for-test
 * file (tests/data/topo/mixed-compute.xml) checks the PCI class rule. Binding is tested live on the
 * machine running the tests (which has at least CPU 0 and no CPU 9999), reading the thread's
 * binding back through hwloc.
 */
#include "harness.h"

#include <unistd.h>

#include <hwloc.h>

#define POWER8_XML MESHGEN_TEST_DATA "/hwloc/power8gpudistances.xml"

/* ---- the POWER8 mesh: x=4 over the four P100s, two processes --------------------------- */

#define CPUS0 "0-1,8-9,16-17,24-25"
#define CPUS1 "80-81,88-89,96-97,104-105"
#define P100(bus, node, cpus, id)                                                                  \
    {                                                                                              \
        .kind = MESHGEN_KIND_GPU, .os_index = -1, .numa = (node),                                  \
        .vendor_id = MESHGEN_PCI_VENDOR_NVIDIA, .pci = (bus), .vendor = "NVIDIA Corporation",      \
        .model = "Tesla P100-SXM2-16GB", .uuid = (id), .cpuset = (cpus)                            \
    }

static const struct meshgen_device_info power8_gpus[4] = {
    P100("0002:01:00.0", 0, CPUS0, "GPU-77bf6b9a-6906-5a93-d28b-b77d2c23d1d2"),
    P100("0003:01:00.0", 0, CPUS0, "GPU-00fc8f7f-8206-b5f8-1d34-e600a300e314"),
    P100("000a:01:00.0", 1, CPUS1, "GPU-ea919830-8251-6a30-e379-daeb01448779"),
    P100("000b:01:00.0", 1, CPUS1, "GPU-93f5db36-624e-1453-40ab-85cc675aa903"),
};

/* A one-host mesh x=n over n devices in order. Process 0 holds device 0 and
 * process 1 the others (for the POWER8 GPUs, 1..3 across both sockets). */
static void one_host_init(struct th_mesh *s, const char *host, int kind,
                          const struct meshgen_device_info *devices, int n)
{
    const struct meshgen_process procs[2] = {{0, 0, 1}, {0, 1, n - 1}};
    struct th_mesh_desc d = {.name = "placement",
                             .kind = kind,
                             .axis_type = MESHGEN_AXIS_EXPLICIT,
                             .n_processes = n > 1 ? 2 : 1,
                             .processes = procs};

    d.axes[0] = (struct th_axis){"x", n, 1};
    d.hosts[0] = (struct th_host){host, n, devices, NULL};
    th_mesh_init(s, &d);
}

/* The name of the machine power8gpudistances.xml was exported on. */
#define POWER8_HOST "drac-12.grenoble.grid5000.fr"

static void power8_init(struct th_mesh *s)
{
    one_host_init(s, POWER8_HOST, MESHGEN_KIND_GPU, power8_gpus, 4);
}

/* The POWER8 mesh on the first of two hosts alike, a and b, whose devices
 * are numbered 0..3 and 4..7. */
static void two_hosts_init(struct th_mesh *s, const char *a, const char *b)
{
    static const int32_t first_four[4] = {0, 1, 2, 3};
    static const struct meshgen_process procs[2] = {{0, 0, 1}, {0, 1, 3}};
    struct th_mesh_desc d = {.name = "placement",
                             .axis_type = MESHGEN_AXIS_EXPLICIT,
                             .axes = {{"x", 4, 1}},
                             .mesh = first_four,
                             .n_processes = 2,
                             .processes = procs};

    d.hosts[0] = (struct th_host){a, 4, power8_gpus, NULL};
    d.hosts[1] = (struct th_host){b, 4, power8_gpus, NULL};
    th_mesh_init(s, &d);
}

/* ---- "this machine" through HWLOC_XMLFILE ------------------------------------------- */

/* Runs meshgen_verify on a machine called self (MESHGEN_HOSTNAME; NULL
 * leaves the name to gethostname()) described by xml (HWLOC_XMLFILE). */
static int verify_as(const struct meshgen_mesh *mesh, int host, const char *self, const char *xml,
                     char *report, size_t cap)
{
    int rc;

    if (self != NULL)
        assert_int_equal(setenv("MESHGEN_HOSTNAME", self, 1), 0);
    else
        assert_int_equal(unsetenv("MESHGEN_HOSTNAME"), 0);
    assert_int_equal(setenv("HWLOC_XMLFILE", xml, 1), 0);
    rc = meshgen_verify(mesh, host, report, cap);
    assert_int_equal(unsetenv("HWLOC_XMLFILE"), 0);
    assert_int_equal(unsetenv("MESHGEN_HOSTNAME"), 0);
    return rc;
}

/* meshgen_verify on the machine the POWER8 export describes. */
static int verify_xml(const struct meshgen_mesh *mesh, int host, const char *xml, char *report,
                      size_t cap)
{
    return verify_as(mesh, host, POWER8_HOST, xml, report, cap);
}

/* The start of the line holding needle, which must occur once in text. */
static char *line_of(char *text, const char *needle)
{
    char *at = strstr(text, needle);

    assert_non_null(at);
    assert_null(strstr(at + 1, needle));
    while (at > text && at[-1] != '\n')
        at--;
    return at;
}

/* The end (past the newline) of the XML element that starts on the line at
 * `line`: the next line that closes it at the same indentation. */
static char *element_end(char *line)
{
    size_t indent = strspn(line, " ");
    char close[64];
    char *end;

    assert_true(indent + 11 < sizeof close);
    close[0] = '\n';
    memset(close + 1, ' ', indent);
    strcpy(close + 1 + indent, "</object>\n");
    end = strstr(line, close);
    assert_non_null(end);
    return end + strlen(close);
}

/* Replaces the first `from` after `after` (each once in its place) with `to`
 * of the same length. */
static void patch(char *text, const char *after, const char *from, const char *to)
{
    char *at = strstr(strstr(text, after), from);

    assert_non_null(at);
    assert_int_equal(strlen(from), strlen(to));
    memcpy(at, to, strlen(to));
}

/* Verifies the POWER8 mesh against an edited copy of its XML and checks the
 * report. */
static void expect_mismatch(struct th_fx *f, const char *xml, const char *report_text)
{
    struct th_mesh s;
    char report[256];

    power8_init(&s);
    assert_int_equal(verify_xml(&s.mesh, -1, th_write(f, "power8.xml", xml), report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, report_text);
}

/* ---- meshgen_verify ------------------------------------------------------------------- */

static void test_verify_match(void **state)
{
    struct th_mesh s;
    char report[256];

    (void)state;
    power8_init(&s);
    memset(report, 'x', sizeof report);
    /* This machine is found by its name, or given explicitly. */
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report), MESHGEN_OK);
    assert_string_equal(report, "");
    assert_int_equal(verify_xml(&s.mesh, 0, POWER8_XML, report, sizeof report), MESHGEN_OK);
    /* A report is optional. */
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, NULL, 0), MESHGEN_OK);
    /* Only the first dot-separated part of a name has to match. */
    s.hosts[0].name = "drac-12";
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report), MESHGEN_OK);
    /* A mesh of one host is not any machine: its host has a name... */
    s.hosts[0].name = "elsewhere";
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_NO_HOST);
    assert_string_equal(report, "no host of the mesh is named '" POWER8_HOST
                                "' (from MESHGEN_HOSTNAME; the mesh has 1 host)");
    assert_int_equal(verify_xml(&s.mesh, 0, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "host 0 is 'elsewhere', but this machine is '" POWER8_HOST
                                "' (from MESHGEN_HOSTNAME)");
    /* ...unless it is a synthetic inventory's "localhost". */
    s.hosts[0].name = "localhost";
    assert_int_equal(verify_xml(&s.mesh, 0, POWER8_XML, report, sizeof report), MESHGEN_OK);
}

static void test_verify_cpu_kind(void **state)
{
    static const struct meshgen_device_info numa[2] = {
        {.kind = MESHGEN_KIND_NUMA,
         .os_index = 0,
         .numa = 0,
         .pci = "",
         .vendor = "",
         .model = "POWER8NVL, altivec supported",
         .uuid = "",
         .cpuset = CPUS0},
        {.kind = MESHGEN_KIND_NUMA,
         .os_index = 1,
         .numa = 1,
         .pci = "",
         .vendor = "",
         .model = "POWER8NVL, altivec supported",
         .uuid = "",
         .cpuset = CPUS1},
    };
    struct th_mesh s;
    char report[256];

    (void)state;
    one_host_init(&s, "drac-12.grenoble.grid5000.fr", MESHGEN_KIND_NUMA, numa, 2);
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report), MESHGEN_OK);
    s.devices[1].os_index = 4;
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "device 1: OS index 4 expected, 1 found");
    s.devices[1].os_index = 1;
    s.devices[0].cpuset = "0-1";
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "device 0: cpuset 0-1 expected, " CPUS0 " found");
}

/* A TPU mesh cannot be verified: hwloc does not see TPU chips. Its host is
 * still identified first. */
static void test_verify_tpu(void **state)
{
    static const struct meshgen_device_info tpu[2] = {
        {.kind = MESHGEN_KIND_TPU,
         .os_index = -1,
         .numa = -1,
         .pci = "",
         .vendor = "Google",
         .model = "TPU v5 lite",
         .uuid = "",
         .cpuset = "",
         .coords = {0, 0, 0}},
        {.kind = MESHGEN_KIND_TPU,
         .os_index = -1,
         .numa = -1,
         .pci = "",
         .vendor = "Google",
         .model = "TPU v5 lite",
         .uuid = "",
         .cpuset = "",
         .coords = {1, 0, 0}},
    };
    struct th_mesh s;
    char report[256];

    (void)state;
    one_host_init(&s, POWER8_HOST, MESHGEN_KIND_TPU, tpu, 2);
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_UNSUPPORTED);
    assert_string_equal(report,
                        "hwloc does not discover TPU devices; a TPU mesh cannot be verified");
}

static void test_verify_gpu_removed(void **state)
{
    struct th_fx *f = *state;
    char *xml = th_read(POWER8_XML, NULL);
    char *start = line_of(xml, "bridge_pci=\"000b:[00-01]\"");

    /* The last GPU's bridge, its PCI device and its three OS devices go. */
    memmove(start, element_end(start), strlen(element_end(start)) + 1);
    expect_mismatch(f, xml, "missing device: expected 4 gpu devices, found 3");
    free(xml);
}

static void test_verify_extra_device(void **state)
{
    struct th_mesh s;
    char report[256];

    (void)state;
    one_host_init(&s, "drac-12.grenoble.grid5000.fr", MESHGEN_KIND_GPU, power8_gpus, 3);
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "extra device: expected 3 gpu devices, found 4");
}

static void test_verify_model_changed(void **state)
{
    struct th_fx *f = *state;
    char *xml = th_read(POWER8_XML, NULL);

    /* NVML is the preferred backend, so its model is the one kept. */
    patch(xml, "name=\"nvml1\"", "Tesla P100-SXM2-16GB", "Tesla V100-SXM2-16GB");
    expect_mismatch(f, xml,
                    "device 1: model 'Tesla P100-SXM2-16GB' expected, "
                    "'Tesla V100-SXM2-16GB' found");
    free(xml);
}

/* The PCI vendor id is compared on its own: a name may be missing or
 * wrong, the id decides (docs/reference.md §2, "Vendors"). */
static void test_verify_vendor_id_changed(void **state)
{
    struct th_fx *f = *state;
    char *xml = th_read(POWER8_XML, NULL);
    struct th_mesh s;
    char report[256];

    patch(xml, "pci_busid=\"000a:01:00.0\"", "[10de:", "[10df:");
    expect_mismatch(f, xml, "device 2: PCI vendor id 0x10de expected, 0x10df found");
    free(xml);
    /* Tables without the id (a GPU with no PCI device) and this machine's. */
    power8_init(&s);
    s.devices[1].vendor_id = 0;
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "device 1: PCI vendor id none expected, 0x10de found");
}

static void test_verify_pci_changed(void **state)
{
    struct th_fx *f = *state;
    char *xml = th_read(POWER8_XML, NULL);

    patch(xml, "type=\"PCIDev\"", "pci_busid=\"000a:01:00.0\"", "pci_busid=\"000a:01:00.1\"");
    expect_mismatch(f, xml, "device 2: PCI bus id 000a:01:00.0 expected, 000a:01:00.1 found");
    free(xml);
}

static void test_verify_numa_changed(void **state)
{
    struct th_fx *f = *state;
    char *xml = th_read(POWER8_XML, NULL);
    char *moved, *block, *block_end, *target, *out;
    size_t n_before, n_block, n_between;

    /* GPU 0's bridge moves from package 0 to package 1, just before the
     * bridge of GPU 2: same PCI bus id, but now NUMA node 1. */
    block = line_of(xml, "bridge_pci=\"0002:[00-01]\"");
    block_end = element_end(block);
    target = line_of(xml, "bridge_pci=\"000a:[00-01]\"");
    assert_true(target > block_end);
    n_before = (size_t)(block - xml);
    n_block = (size_t)(block_end - block);
    n_between = (size_t)(target - block_end);
    out = malloc(strlen(xml) + 1);
    assert_non_null(out);
    moved = out;
    memcpy(moved, xml, n_before);
    moved += n_before;
    memcpy(moved, block_end, n_between);
    moved += n_between;
    memcpy(moved, block, n_block);
    moved += n_block;
    strcpy(moved, target);
    expect_mismatch(f, out, "device 0: NUMA node 0 expected, 1 found");
    free(out);
    free(xml);
}

static void test_verify_uuid_and_report_cap(void **state)
{
    struct th_mesh s;
    char report[16];

    (void)state;
    power8_init(&s);
    /* No UUID in the tables (a template's): nothing to compare. */
    s.devices[3].uuid = "";
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, NULL, 0), MESHGEN_OK);
    s.devices[3].uuid = "GPU-00000000-0000-0000-0000-000000000000";
    memset(report, 'x', sizeof report);
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    /* Cut to the buffer, always terminated. */
    assert_string_equal(report, "device 3: UUID ");
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, NULL, 0), MESHGEN_ERR_MISMATCH);
}

static void test_verify_errors(void **state)
{
    struct th_mesh s;
    char report[256];

    (void)state;
    power8_init(&s);
    assert_int_equal(meshgen_verify(NULL, 0, report, sizeof report), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_verify(&s.mesh, 0, NULL, 8), MESHGEN_ERR_NULL);
    assert_int_equal(verify_xml(&s.mesh, 1, POWER8_XML, report, sizeof report), MESHGEN_ERR_RANGE);
    s.mesh.magic = 0;
    assert_int_equal(verify_xml(&s.mesh, 0, POWER8_XML, report, sizeof report), MESHGEN_ERR_MAGIC);

    /* Two hosts, neither of them this machine: host 0 is no longer assumed. */
    two_hosts_init(&s, "gpu001", "gpu002");
    assert_int_equal(meshgen_mesh_check(&s.mesh), MESHGEN_OK);
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_NO_HOST);
    assert_string_equal(report, "no host of the mesh is named "
                                "'drac-12.grenoble.grid5000.fr' (from MESHGEN_HOSTNAME; "
                                "the mesh has 2 hosts)");
    /* Named, the second host is found, and its devices are numbered as such. */
    s.hosts[1].name = "drac-12.grenoble.grid5000.fr";
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report), MESHGEN_OK);
    s.devices[2].numa = 0;
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "host drac-12.grenoble.grid5000.fr, device 6 (local 2): "
                                "NUMA node 0 expected, 1 found");
    /* Two hosts with the same short name cannot be told apart. */
    s.hosts[0].name = "drac-12.a";
    s.hosts[1].name = "drac-12.b";
    assert_int_equal(verify_xml(&s.mesh, -1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_NO_HOST);
    assert_string_equal(report, "'drac-12.grenoble.grid5000.fr' (from MESHGEN_HOSTNAME) could be "
                                "host drac-12.a or host drac-12.b");
    /* Either one, given explicitly, is not confirmed by that name. */
    assert_int_equal(verify_xml(&s.mesh, 1, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "host 1 is 'drac-12.b', but this machine is "
                                "'drac-12.grenoble.grid5000.fr' (from MESHGEN_HOSTNAME)");
}

/* Two hosts with the same hardware, gpu001 and gpu002 (both the POWER8
 * export): only the name tells which one this machine is, and a program that
 * verifies the wrong one is told so even though every device matches. */
static void test_verify_host_identity(void **state)
{
    struct th_mesh s;
    char report[256], self[256] = "", expected[512];

    (void)state;
    two_hosts_init(&s, "gpu001", "gpu002");
    assert_int_equal(meshgen_mesh_check(&s.mesh), MESHGEN_OK);

    assert_int_equal(verify_as(&s.mesh, 1, "gpu002", POWER8_XML, report, sizeof report),
                     MESHGEN_OK);
    assert_int_equal(verify_as(&s.mesh, -1, "gpu002.cluster", POWER8_XML, report, sizeof report),
                     MESHGEN_OK);
    assert_int_equal(verify_as(&s.mesh, 0, "gpu002", POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "host 0 is 'gpu001', but this machine is 'gpu002' "
                                "(from MESHGEN_HOSTNAME)");
    assert_int_equal(verify_as(&s.mesh, 0, "gpu003", POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "host 0 is 'gpu001', but this machine is 'gpu003' "
                                "(from MESHGEN_HOSTNAME)");
    /* Any negative host asks which host this machine is. */
    assert_int_equal(
        verify_as(&s.mesh, MESHGEN_ERR_NO_HOST, "gpu003", POWER8_XML, report, sizeof report),
        MESHGEN_ERR_NO_HOST);
    assert_string_equal(report, "no host of the mesh is named 'gpu003' (from MESHGEN_HOSTNAME; "
                                "the mesh has 2 hosts)");
    assert_int_equal(verify_as(&s.mesh, 0, "", POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_BAD_ENV);
    assert_string_equal(report, "this machine's name '' (from MESHGEN_HOSTNAME) is not a host "
                                "name: an empty name");
    /* Host names follow one rule (docs/reference.md §2, "Host names"). */
    assert_int_equal(verify_as(&s.mesh, -1, ".gpu001", POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_BAD_ENV);
    assert_string_equal(report, "this machine's name '.gpu001' (from MESHGEN_HOSTNAME) is not a "
                                "host name: an empty label (a '.' first, last or twice in a row)");
    assert_int_equal(verify_as(&s.mesh, -1, "GPU002.Cluster", POWER8_XML, report, sizeof report),
                     MESHGEN_OK);

    /* Slurm's node name, when MESHGEN_HOSTNAME is not set. */
    assert_int_equal(setenv("SLURMD_NODENAME", "gpu001", 1), 0);
    assert_int_equal(verify_as(&s.mesh, 0, NULL, POWER8_XML, report, sizeof report), MESHGEN_OK);
    assert_int_equal(verify_as(&s.mesh, 1, NULL, POWER8_XML, report, sizeof report),
                     MESHGEN_ERR_MISMATCH);
    assert_string_equal(report, "host 1 is 'gpu002', but this machine is 'gpu001' "
                                "(from SLURMD_NODENAME)");
    assert_int_equal(unsetenv("SLURMD_NODENAME"), 0);

    /* Else the kernel's name, which is neither (unless the tests run on a
     * machine that is itself called gpu002). */
    assert_int_equal(gethostname(self, sizeof self - 1), 0);
    if (strncmp(self, "gpu002", 6) != 0) {
        assert_int_equal(verify_as(&s.mesh, 1, NULL, POWER8_XML, report, sizeof report),
                         MESHGEN_ERR_MISMATCH);
        snprintf(expected, sizeof expected,
                 "host 1 is 'gpu002', but this machine is '%s' (from gethostname())", self);
        assert_string_equal(report, expected);
    }
}

#define V100(bus, node, cpus, name, id)                                                            \
    {                                                                                              \
        .kind = MESHGEN_KIND_GPU, .os_index = -1, .numa = (node),                                  \
        .vendor_id = MESHGEN_PCI_VENDOR_NVIDIA, .pci = (bus), .vendor = "NVIDIA Corporation",      \
        .model = (name), .uuid = (id), .cpuset = (cpus)                                            \
    }

/* The GPUs of tests/data/topo/mixed-compute.xml: two of four Teslas have
 * CUDA and NVML devices (a model from NVML and a UUID), two only their PCI
 * names. */
static const struct meshgen_device_info mixed_gpus[4] = {
    V100("0000:18:00.0", 0, "0-1", "Tesla V100-PCIE-16GB",
         "GPU-18000000-0000-0000-0000-000000000000"),
    V100("0000:3b:00.0", 0, "0-1", "GV100GL [Tesla V100 PCIe 16GB]", ""),
    V100("0000:86:00.0", 1, "2-3", "Tesla V100-PCIE-16GB",
         "GPU-86000000-0000-0000-0000-000000000000"),
    V100("0000:af:00.0", 1, "2-3", "GV100GL [Tesla V100 PCIe 16GB]", ""),
};

/* meshgen_verify reads "this machine" by the generator's PCI rule, so all
 * four Teslas are found, in bus id order. */
static void test_verify_class_rule(void **state)
{
    struct th_mesh s;
    char report[256];

    (void)state;
    one_host_init(&s, "mixed-compute", MESHGEN_KIND_GPU, mixed_gpus, 4);
    assert_int_equal(verify_as(&s.mesh, -1, "mixed-compute",
                               MESHGEN_TEST_DATA "/topo/mixed-compute.xml", report, sizeof report),
                     MESHGEN_OK);
    assert_string_equal(report, "");
}

/* hwloc 2.9's XML reader crashes on a DOCTYPE without a system identifier;
 * the file HWLOC_XMLFILE names is checked before hwloc reads it, by verify
 * and bind alike, and refused with a report (docs/reference.md §2). */
static void test_verify_doctype_refused(void **state)
{
    struct th_fx *f = *state;
    static const char *const doctypes[] = {
        "<!DOCTYPE topology [ ]>",
        "<!DOCTYPE topology>",
        "<!DOCTYPE topology [<!ENTITY x \"y\">]>",
    };
    static const char *const why[] = {"an internal DTD subset",
                                      "a DOCTYPE without a system identifier",
                                      "an internal DTD subset"};
    const char *line = "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">";
    char *xml = th_read(POWER8_XML, NULL), *copy, report[512];
    const char *path;
    struct th_mesh s;
    int i;

    assert_non_null(strstr(xml, line));
    power8_init(&s);
    for (i = 0; i < COUNT(doctypes); i++) {
        copy = th_replace(xml, line, doctypes[i]);
        path = th_write(f, mg_printf(&f->arena, "doctype%d.xml", i), copy);
        assert_int_equal(verify_xml(&s.mesh, -1, path, report, sizeof report), MESHGEN_ERR_SYSTEM);
        assert_non_null(strstr(report, "is not given to hwloc"));
        assert_non_null(strstr(report, why[i]));
        assert_int_equal(setenv("HWLOC_XMLFILE", path, 1), 0);
        assert_int_equal(meshgen_bind(&s.mesh, 0), MESHGEN_ERR_SYSTEM);
        /* hwloc prefers a synthetic description to the file, and never reads it. */
        assert_int_equal(setenv("HWLOC_SYNTHETIC", "pu:2", 1), 0);
        assert_int_equal(meshgen_bind(&s.mesh, 0), MESHGEN_ERR_UNSUPPORTED);
        assert_int_equal(unsetenv("HWLOC_SYNTHETIC"), 0);
        assert_int_equal(unsetenv("HWLOC_XMLFILE"), 0);
        free(copy);
    }
    /* A file that cannot be read is a system error, with its reason. */
    assert_int_equal(verify_xml(&s.mesh, -1, "/nonexistent/meshgen.xml", report, sizeof report),
                     MESHGEN_ERR_SYSTEM);
    assert_string_equal(report, "cannot read HWLOC_XMLFILE '/nonexistent/meshgen.xml': No such "
                                "file or directory");
    free(xml);
}

/* ---- meshgen_bind (live) ----------------------------------------------------------------- */

#define CORE(cpus)                                                                                 \
    {                                                                                              \
        .kind = MESHGEN_KIND_CORE, .os_index = 0, .numa = 0, .pci = "", .vendor = "", .model = "", \
        .uuid = "", .cpuset = (cpus)                                                               \
    }

static void test_bind_live(void **state)
{
    static const struct meshgen_device_info cores[4] = {
        CORE("0"),
        CORE("9999"),
        CORE("0-1x"),
        CORE(""),
    };
    hwloc_topology_t topo;
    hwloc_bitmap_t before, after;
    struct th_mesh s;

    (void)state;
    one_host_init(&s, "any", MESHGEN_KIND_CORE, cores, 4);
    assert_int_equal(unsetenv("HWLOC_XMLFILE"), 0);
    assert_int_equal(unsetenv("HWLOC_THISSYSTEM"), 0);
    assert_int_equal(hwloc_topology_init(&topo), 0);
    assert_int_equal(hwloc_topology_load(topo), 0);
    before = hwloc_bitmap_alloc();
    after = hwloc_bitmap_alloc();
    assert_int_equal(hwloc_get_cpubind(topo, before, HWLOC_CPUBIND_THREAD), 0);

    assert_int_equal(meshgen_bind(&s.mesh, 0), MESHGEN_OK);
    assert_int_equal(hwloc_get_cpubind(topo, after, HWLOC_CPUBIND_THREAD), 0);
    assert_int_equal(hwloc_bitmap_weight(after), 1);
    assert_true(hwloc_bitmap_isset(after, 0));

    /* A CPU this machine does not have is refused and nothing changes. */
    assert_int_equal(meshgen_bind(&s.mesh, 1), MESHGEN_ERR_NO_CPU);
    assert_int_equal(meshgen_bind(&s.mesh, 2), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_bind(&s.mesh, 3), MESHGEN_ERR_NO_CPU);
    assert_int_equal(hwloc_get_cpubind(topo, after, HWLOC_CPUBIND_THREAD), 0);
    assert_int_equal(hwloc_bitmap_weight(after), 1);
    assert_true(hwloc_bitmap_isset(after, 0));

    assert_int_equal(meshgen_bind(&s.mesh, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_bind(&s.mesh, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_bind(NULL, 0), MESHGEN_ERR_NULL);

    /* An XML machine without HWLOC_THISSYSTEM=1 cannot be bound to. */
    assert_int_equal(setenv("HWLOC_XMLFILE", POWER8_XML, 1), 0);
    assert_int_equal(meshgen_bind(&s.mesh, 0), MESHGEN_ERR_UNSUPPORTED);
    assert_int_equal(unsetenv("HWLOC_XMLFILE"), 0);

    /* Leave the thread as it was, for the tests after this one. */
    assert_int_equal(hwloc_set_cpubind(topo, before, HWLOC_CPUBIND_THREAD), 0);
    hwloc_bitmap_free(before);
    hwloc_bitmap_free(after);
    hwloc_topology_destroy(topo);
}

/* ---- meshgen_placement_env ------------------------------------------------------------- */

/* The value as a string, asserting that sizing and writing agree. */
static const char *env(const struct meshgen_mesh *mesh, int process, int var)
{
    static char buf[512];
    int n = meshgen_placement_env(mesh, process, var, NULL, 0);

    assert_true(n >= 0);
    assert_int_equal(meshgen_placement_env(mesh, process, var, buf, sizeof buf), n);
    assert_int_equal(strlen(buf), (size_t)n);
    return buf;
}

static void test_env_names(void **state)
{
    (void)state;
    assert_string_equal(meshgen_env_name(MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "CUDA_VISIBLE_DEVICES");
    assert_string_equal(meshgen_env_name(MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "ROCR_VISIBLE_DEVICES");
    assert_string_equal(meshgen_env_name(MESHGEN_ENV_OMP_PLACES), "OMP_PLACES");
    assert_string_equal(meshgen_env_name(MESHGEN_ENV_ZE_AFFINITY_MASK), "ZE_AFFINITY_MASK");
    assert_null(meshgen_env_name(-1));
    assert_null(meshgen_env_name(4));
}

/* Vendors by PCI vendor id, never by name (docs/reference.md §2,
 * "Vendors"). */
static void test_vendor_table(void **state)
{
    (void)state;
    assert_int_equal(meshgen_vendor_env_var(0x10de), MESHGEN_ENV_CUDA_VISIBLE_DEVICES);
    assert_int_equal(meshgen_vendor_env_var(0x1002), MESHGEN_ENV_ROCR_VISIBLE_DEVICES);
    assert_int_equal(meshgen_vendor_env_var(0x8086), MESHGEN_ENV_ZE_AFFINITY_MASK);
    /* Named, but no runtime meshgen places; AMD's other id (chipsets,
     * CPUs) is not its GPUs'; none at all. */
    assert_int_equal(meshgen_vendor_env_var(0x1da3), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_vendor_env_var(0x1022), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_vendor_env_var(0), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_vendor_env_var(-1), MESHGEN_ERR_RANGE);
    assert_string_equal(meshgen_vendor_name(MESHGEN_PCI_VENDOR_NVIDIA), "NVIDIA");
    assert_string_equal(meshgen_vendor_name(MESHGEN_PCI_VENDOR_AMD), "AMD");
    assert_string_equal(meshgen_vendor_name(MESHGEN_PCI_VENDOR_INTEL), "Intel");
    assert_string_equal(meshgen_vendor_name(0x1da3), "Habana Labs");
    assert_null(meshgen_vendor_name(0x1af4));
    assert_null(meshgen_vendor_name(0));
}

static void test_env_cuda_uuid_and_index(void **state)
{
    struct th_mesh s;

    (void)state;
    power8_init(&s);
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES),
                        "GPU-77bf6b9a-6906-5a93-d28b-b77d2c23d1d2");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES),
                        "GPU-00fc8f7f-8206-b5f8-1d34-e600a300e314,"
                        "GPU-ea919830-8251-6a30-e379-daeb01448779,"
                        "GPU-93f5db36-624e-1453-40ab-85cc675aa903");
    /* ROCm and Level Zero do not see NVIDIA GPUs: nothing to list. */
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ZE_AFFINITY_MASK), "");
    /* One GPU without a UUID: the whole list falls back to indices. */
    s.devices[2].uuid = "";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "1,2,3");
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES),
                        "GPU-77bf6b9a-6906-5a93-d28b-b77d2c23d1d2");
    s.devices[0].uuid = "MIG-0c1dd3e2-0a45-5b1d-8a2d-4e8f6e8d1a11";
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES),
                        "MIG-0c1dd3e2-0a45-5b1d-8a2d-4e8f6e8d1a11");
    /* A UUID that would add an entry to the list (or break a shell word)
     * is not taken: the index instead, never "GPU-aaaa,1". */
    s.devices[0].uuid = "GPU-aaaa,1";
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "0");
    s.devices[0].uuid = "GPU-aa aa";
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "0");
    s.devices[0].uuid = "MIG-GPU-77bf6b9a/1/0";
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "MIG-GPU-77bf6b9a/1/0");
}

static void test_env_rocr_uuid(void **state)
{
    /* As hwloc's RSMI backend writes AMDUUID (eas-tioga.xml): hex, and
     * without leading zeros for the second one. */
    static const struct meshgen_device_info mi250x[2] = {
        {.kind = MESHGEN_KIND_GPU,
         .os_index = -1,
         .numa = 3,
         .vendor_id = MESHGEN_PCI_VENDOR_AMD,
         .pci = "0000:c1:00.0",
         .vendor = "AMD",
         .model = "MI250X",
         .uuid = "4a7c19da329a2b8c",
         .cpuset = "48-55,112-119"},
        {.kind = MESHGEN_KIND_GPU,
         .os_index = -1,
         .numa = 3,
         .vendor_id = MESHGEN_PCI_VENDOR_AMD,
         .pci = "0000:c6:00.0",
         .vendor = "AMD",
         .model = "MI250X",
         .uuid = "2293c2b81539dc",
         .cpuset = "56-63,120-127"},
    };
    struct th_mesh s;

    (void)state;
    one_host_init(&s, "tioga29", MESHGEN_KIND_GPU, mi250x, 2);
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "GPU-4a7c19da329a2b8c");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "GPU-002293c2b81539dc");
    /* CUDA does not see AMD GPUs. */
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "");
    /* Not hex, too long, or all zero (which ROCR never matches): indices. */
    s.devices[1].uuid = "2293c2b81539dz";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "1");
    s.devices[1].uuid = "12293c2b81539dc00";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "1");
    s.devices[1].uuid = "0";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "1");
}

/* A host of mixed vendors, as tests/data/topo/nvidia-amd.xml and
 * accel-0380.xml: each vendor's runtime sees only its own GPUs and numbers
 * them among themselves in PCI bus order, so each variable lists the
 * process's GPUs of its vendor by that index (or UUID), and a GPU of no
 * known vendor in none. */
static void test_env_mixed_vendors(void **state)
{
#define MIXED(bus, id_, maker, id)                                                                 \
    {                                                                                              \
        .kind = MESHGEN_KIND_GPU, .os_index = -1, .numa = 0, .vendor_id = (id_), .pci = (bus),     \
        .vendor = (maker), .model = "", .uuid = (id), .cpuset = "0-1"                              \
    }
    /* The names say the opposite of the ids: the ids decide. */
    static const struct meshgen_device_info gpus[4] = {
        MIXED("0000:18:00.0", 0x10de, "Amdahl Corporation", ""),
        MIXED("0000:3b:00.0", 0x1002, "", ""),
        MIXED("0000:86:00.0", 0x10de, "", ""),
        MIXED("0000:af:00.0", 0x1002, "NVIDIA Corporation", ""),
    };
    struct th_mesh s;

    (void)state;
    one_host_init(&s, "mixed", MESHGEN_KIND_GPU, gpus, 4);
    /* Process 1 holds devices 1..3: AMD, NVIDIA, AMD. The NVIDIA GPU at
     * 0000:86:00.0 is CUDA's second, the AMD GPUs ROCm's first and second
     * (their host indices, 2 and 1,3, would name other GPUs). */
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "1");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "0,1");
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "0");
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "");
    /* UUIDs where every listed GPU of the vendor has one: the AMD GPU
     * without one does not hold back CUDA's list. */
    s.devices[0].uuid = "GPU-18000000-0000-0000-0000-000000000000";
    s.devices[2].uuid = "GPU-86000000-0000-0000-0000-000000000000";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES),
                        "GPU-86000000-0000-0000-0000-000000000000");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "0,1");
    s.devices[3].uuid = "4a7c19da329a2b8c";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "0,1");
    s.devices[1].uuid = "ab";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES),
                        "GPU-00000000000000ab,GPU-4a7c19da329a2b8c");
    /* Intel and a vendor without a variable: Level Zero's mask counts the
     * Intel GPUs only and takes no UUID; the Habana card is in no list. */
    s.devices[1].vendor_id = MESHGEN_PCI_VENDOR_INTEL;
    s.devices[1].uuid = "";
    s.devices[3].vendor_id = 0x1da3;
    s.devices[3].vendor = "Habana Labs Ltd.";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ZE_AFFINITY_MASK), "0");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_ROCR_VISIBLE_DEVICES), "");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES),
                        "GPU-86000000-0000-0000-0000-000000000000");
    /* A GPU with no PCI device has no vendor id: named NVIDIA, it is in no
     * list. */
    s.devices[2].vendor_id = 0;
    s.devices[2].vendor = "NVIDIA Corporation";
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_CUDA_VISIBLE_DEVICES), "");
#undef MIXED
}

static void test_env_omp_places(void **state)
{
    static const struct meshgen_device_info cores[4] = {
        CORE("0"),
        CORE("1-3,5"),
        CORE("1-3,5"),
        CORE("7"),
    };
    struct th_mesh s;

    (void)state;
    power8_init(&s);
    /* One place per distinct cpuset, ranges as OpenMP intervals. */
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_OMP_PLACES), "{0:2,8:2,16:2,24:2}");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_OMP_PLACES),
                        "{0:2,8:2,16:2,24:2},{80:2,88:2,96:2,104:2}");

    one_host_init(&s, "any", MESHGEN_KIND_CORE, cores, 4);
    assert_string_equal(env(&s.mesh, 0, MESHGEN_ENV_OMP_PLACES), "{0}");
    assert_string_equal(env(&s.mesh, 1, MESHGEN_ENV_OMP_PLACES), "{1:3,5},{7}");
    /* Visible devices are for GPU meshes only. */
    assert_int_equal(meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES, NULL, 0),
                     MESHGEN_ERR_NOT_GPU);
    assert_int_equal(meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_ROCR_VISIBLE_DEVICES, NULL, 0),
                     MESHGEN_ERR_NOT_GPU);
    /* Cpusets the tables should never hold. */
    s.devices[3].cpuset = "";
    assert_int_equal(meshgen_placement_env(&s.mesh, 1, MESHGEN_ENV_OMP_PLACES, NULL, 0),
                     MESHGEN_ERR_NO_CPU);
    {
        static const char *const broken[] = {"7,", ",7", "7,,8",  "3-1",         "7-",        "-7",
                                             "a",  "7 ", "1-2-3", "99999999999", "2147483648"};
        int i;

        for (i = 0; i < COUNT(broken); i++) {
            s.devices[3].cpuset = broken[i];
            assert_int_equal(meshgen_placement_env(&s.mesh, 1, MESHGEN_ENV_OMP_PLACES, NULL, 0),
                             MESHGEN_ERR_CORRUPT);
        }
    }
}

static void test_env_no_space_and_errors(void **state)
{
    struct th_mesh s;
    char buf[64];
    int n;

    (void)state;
    power8_init(&s);
    n = meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES, NULL, 0);
    assert_int_equal(n, 40);
    /* Too small by one (no room for the NUL): only a NUL is written. */
    memset(buf, 'x', sizeof buf);
    assert_int_equal(
        meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES, buf, (size_t)n),
        MESHGEN_ERR_NO_SPACE);
    assert_int_equal(buf[0], '\0');
    assert_int_equal(buf[1], 'x');
    assert_int_equal(buf[n], 'x');
    assert_int_equal(
        meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_CUDA_VISIBLE_DEVICES, buf, (size_t)n + 1), n);
    assert_int_equal(meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_OMP_PLACES, buf, 1),
                     MESHGEN_ERR_NO_SPACE);
    assert_string_equal(buf, "");

    assert_int_equal(meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_OMP_PLACES, NULL, 4),
                     MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_placement_env(&s.mesh, 2, MESHGEN_ENV_OMP_PLACES, buf, sizeof buf),
                     MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_placement_env(&s.mesh, -1, MESHGEN_ENV_OMP_PLACES, buf, sizeof buf),
                     MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_placement_env(&s.mesh, 0, 4, buf, sizeof buf), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_placement_env(NULL, 0, 0, buf, sizeof buf), MESHGEN_ERR_NULL);
}

/* A buffer of no bytes is not written, even when it is not NULL (a caller
 * sizing with a pointer to the end of its storage): the value does not fit
 * and not even the NUL may go there (fuzz_runtime_env found buf[0]
 * written; fuzz/regressions/fuzz_runtime_env/env-cap-zero-writes-nul). */
static void test_env_cap_zero_writes_nothing(void **state)
{
    struct th_mesh s;
    char buf[8];
    int var;

    (void)state;
    power8_init(&s);
    for (var = 0; var <= MESHGEN_ENV_ZE_AFFINITY_MASK; var++) {
        int n = meshgen_placement_env(&s.mesh, 0, var, NULL, 0);

        memset(buf, 'x', sizeof buf);
        assert_int_equal(meshgen_placement_env(&s.mesh, 0, var, buf, 0),
                         n >= 0 ? MESHGEN_ERR_NO_SPACE : n);
        assert_int_equal(buf[0], 'x');
    }
    /* The empty value (no GPU of Intel's) does not fit in 0 bytes either. */
    assert_int_equal(meshgen_placement_env(&s.mesh, 0, MESHGEN_ENV_ZE_AFFINITY_MASK, NULL, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verify_match),
        cmocka_unit_test(test_verify_cpu_kind),
        cmocka_unit_test(test_verify_tpu),
        th_test(test_verify_gpu_removed),
        cmocka_unit_test(test_verify_extra_device),
        th_test(test_verify_model_changed),
        th_test(test_verify_pci_changed),
        th_test(test_verify_vendor_id_changed),
        th_test(test_verify_numa_changed),
        cmocka_unit_test(test_verify_uuid_and_report_cap),
        cmocka_unit_test(test_verify_errors),
        cmocka_unit_test(test_verify_class_rule),
        cmocka_unit_test(test_verify_host_identity),
        th_test(test_verify_doctype_refused),
        cmocka_unit_test(test_bind_live),
        cmocka_unit_test(test_env_names),
        cmocka_unit_test(test_env_cuda_uuid_and_index),
        cmocka_unit_test(test_env_rocr_uuid),
        cmocka_unit_test(test_vendor_table),
        cmocka_unit_test(test_env_mixed_vendors),
        cmocka_unit_test(test_env_omp_places),
        cmocka_unit_test(test_env_no_space_and_errors),
        cmocka_unit_test(test_env_cap_zero_writes_nothing),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
