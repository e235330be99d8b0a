/*
 * Unit tests of the runtime library (meshgen::runtime, the lookups of runtime/).
 *
 * The meshes are described below and built by the harness (harness.h) into
 * the tables `meshgen generate` would emit, so these tests call nothing but
 * the runtime: no generator, no YAML, no hwloc. Cases taken from the
 * reference systems (docs/reference.md §9) say "reference case".
 */
/* The cursor's division without a 128-bit type, which compilers that have
 * one never take by themselves: the tests below hold it to
 * meshgen_group_index's answers, up to 2^31 - 2 devices; the e2e checkers
 * (tests/e2e/check_groups.c) hold the 128-bit form to the same. */
#define MESHGEN_CURSOR_NO_INT128 1
#include "harness.h"

#include <limits.h>
#include <dirent.h>
#include <unistd.h>

/* ---- the meshes ------------------------------------------------------------------ */

/* One GPU's description: PCI bus id, NUMA node, local CPUs. */
#define GPU(bus, node, cpus)                                                                       \
    {                                                                                              \
        .kind = MESHGEN_KIND_GPU, .os_index = -1, .numa = (node), .pci = (bus),                    \
        .vendor = "NVIDIA", .model = "H100", .uuid = "", .cpuset = (cpus)                          \
    }

static const struct meshgen_device_info gpu8_devices[8] = {
    GPU("0000:07:00.0", 0, "0-7"),  GPU("0000:0f:00.0", 0, "0-7"),  GPU("0000:47:00.0", 0, "0-7"),
    GPU("0000:4e:00.0", 0, "0-7"),  GPU("0000:87:00.0", 1, "8-15"), GPU("0000:90:00.0", 1, "8-15"),
    GPU("0000:b7:00.0", 1, "8-15"), GPU("0000:bd:00.0", 1, "8-15"),
};

/* A TPU tray: one host of four v5e chips, 2x2, a ring 0 1 3 2. */
#define TPU(x, y)                                                                                  \
    {                                                                                              \
        .kind = MESHGEN_KIND_TPU, .os_index = -1, .numa = -1, .pci = "", .vendor = "Google",       \
        .model = "TPU v5 lite", .uuid = "", .cpuset = "", .coords = {(x), (y), 0},                 \
        .core_on_chip = 0                                                                          \
    }

static const struct meshgen_device_info tpu4_devices[4] = {TPU(0, 0), TPU(1, 0), TPU(0, 1),
                                                           TPU(1, 1)};
static const int32_t tpu_ring[4] = {0, 1, 3, 2};

static const struct th_mesh_desc tpu_desc = {
    .name = "tpu",
    .kind = MESHGEN_KIND_TPU,
    .axis_type = MESHGEN_AXIS_EXPLICIT,
    .axes = {{"ring", 4, 1}},
    .hosts = {{"t1v-n-0", 4, tpu4_devices, "slice0"}},
    .mesh = tpu_ring,
};

/* (pp=4, dp=2, tp=2) over two 8-GPU hosts, devices 0..15 in order, one
 * process per device (torchrun, MPI). */
static const struct th_mesh_desc ppdptp_desc = {
    .name = "ppdptp",
    .axis_type = MESHGEN_AXIS_EXPLICIT,
    .axes = {{"pp", 4, 2}, {"dp", 2, 1}, {"tp", 2, 1}},
    .hosts = {{"node0", 8, gpu8_devices, NULL}, {"node1", 8, gpu8_devices, NULL}},
    .per_device = 1,
};

/* jaxpp: shape (4,2,1,2,1), names (stage,data,sequence,tensor,expert). */
static const struct th_mesh_desc jaxpp_desc = {
    .name = "jaxpp",
    .axis_type = MESHGEN_AXIS_EXPLICIT,
    .axes =
        {{"stage", 4, 2}, {"data", 2, 1}, {"sequence", 1, 1}, {"tensor", 2, 1}, {"expert", 1, 1}},
    .hosts = {{"node0", 8, gpu8_devices, NULL}, {"node1", 8, gpu8_devices, NULL}},
    .per_device = 1,
    .mpmd = "stage",
};

/* (a=2, b=2, c=2) over devices 0..7 of one host, with shardings. */

/* [[a, c], b] with shape (8, 4). */
static const struct meshgen_sharding_dim rows_cols_dims[2] = {
    {.n_axes = 2, .axes = {0, 2}, .shards = 4, .global_size = 8, .local_size = 2},
    {.n_axes = 1, .axes = {1}, .shards = 2, .global_size = 4, .local_size = 2},
};
/* [null, [b, c]], no shape. */
static const struct meshgen_sharding_dim cols_bc_dims[2] = {
    {.n_axes = 0, .shards = 1},
    {.n_axes = 2, .axes = {1, 2}, .shards = 4},
};
/* [a], no shape. */
static const struct meshgen_sharding_dim rows_a_dims[1] = {
    {.n_axes = 1, .axes = {0}, .shards = 2},
};

/* The fourth, an empty spec [], replicates everything. */
static const struct meshgen_sharding abc_shardings[4] = {
    {.name = "rows_cols", .n_dims = 2, .has_shape = 1, .dims = rows_cols_dims},
    {.name = "cols_bc", .n_dims = 2, .has_shape = 0, .dims = cols_bc_dims},
    {.name = "rows_a", .n_dims = 1, .has_shape = 0, .dims = rows_a_dims},
    {.name = "replicated", .n_dims = 0, .has_shape = 0, .dims = NULL},
};

static const struct th_mesh_desc abc_desc = {
    .name = "abc",
    .axes = {{"a", 2, 1}, {"b", 2, 1}, {"c", 2, 1}},
    .hosts = {{"node0", 8, gpu8_devices, NULL}},
    .n_shardings = 4,
    .shardings = abc_shardings,
};

/*
 * A permuted mesh (x=2, y=2) using 4 of 6 devices. Hosts: node0 (ids 0..2),
 * cpu0 (no devices of the kind), node1 (ids 3..5). Granule x=0 is node1, x=1
 * is node0; devices 1 and 3 are not used (`devices: 4`), so the flat table is
 * a permutation onto {4, 5, 0, 2}.
 */
static const struct meshgen_device_info gpu3_devices[3] = {
    GPU("0000:01:00.0", 0, "0-3"),
    GPU("0000:02:00.0", 0, "0-3"),
    GPU("0000:81:00.0", 1, "4-7"),
};

static const int32_t xy_mesh_devices[4] = {4, 5, 0, 2};

/* [y, x] with shape (4, 6). */
static const struct meshgen_sharding_dim yx_dims[2] = {
    {.n_axes = 1, .axes = {1}, .shards = 2, .global_size = 4, .local_size = 2},
    {.n_axes = 1, .axes = {0}, .shards = 2, .global_size = 6, .local_size = 3},
};
static const struct meshgen_sharding xy_shardings[1] = {
    {.name = "yx", .n_dims = 2, .has_shape = 1, .dims = yx_dims},
};

static const struct th_mesh_desc xy_desc = {
    .name = "xy",
    .axis_type = MESHGEN_AXIS_EXPLICIT,
    .axes = {{"x", 2, 2}, {"y", 2, 1}},
    .hosts = {{"node0", 3, gpu3_devices, NULL},
              {"cpu0", 0, NULL, NULL},
              {"node1", 3, gpu3_devices, NULL}},
    .mesh = xy_mesh_devices,
    .n_shardings = 1,
    .shardings = xy_shardings,
};

/* The meshes the tests read, built once before them. */
static struct th_mesh tpu, ppdptp, jaxpp, abc, xy;

static int build_meshes(void **state)
{
    (void)state;
    th_mesh_init(&tpu, &tpu_desc);
    th_mesh_init(&ppdptp, &ppdptp_desc);
    th_mesh_init(&jaxpp, &jaxpp_desc);
    th_mesh_init(&abc, &abc_desc);
    th_mesh_init(&xy, &xy_desc);
    return 0;
}

/* ---- errors and version -------------------------------------------------------------- */

static void test_strerror_every_code(void **state)
{
    const char *text[23];
    const char *unknown = meshgen_strerror(1);
    int i, j;

    (void)state;
    for (i = 0; i < COUNT(text); i++) {
        text[i] = meshgen_strerror(-i);
        assert_non_null(text[i]);
        assert_true(strlen(text[i]) > 0);
        assert_string_not_equal(text[i], unknown);
        for (j = 0; j < i; j++)
            assert_string_not_equal(text[i], text[j]);
    }
    /* -22 is the last code; past it, and far past it, the text is generic. */
    assert_int_equal(MESHGEN_ERR_NOT_TPU, -(COUNT(text) - 1));
    assert_non_null(unknown);
    assert_string_equal(meshgen_strerror(-23), unknown);
    assert_string_equal(meshgen_strerror(INT_MIN), unknown);
    assert_string_equal(meshgen_strerror(INT_MAX), unknown);
}

/* The integer after the first occurrence of `key` in text. */
static long number_after(const char *text, const char *key, const char *file)
{
    const char *p = strstr(text, key);
    if (!p)
        fail_msg("%s has no '%s'", file, key);
    return strtol(p + strlen(key), NULL, 10);
}

/* The version guards and ABI word of one golden's generated pair, against
 * this runtime's: a golden from another generator, or a runtime whose
 * constants moved without the generator, differs here. */
static void check_generated_pair(const char *dir, const char *base)
{
    char path[1024];
    char *h, *c, want[64];

    snprintf(path, sizeof path, "%s/%s", dir, base);
    h = th_read(path, NULL);
    assert_int_equal(number_after(h, "#elif MESHGEN_ABI != ", path), MESHGEN_ABI);
    assert_int_equal(number_after(h, "MESHGEN_VERSION_NUMBER < ", path),
                     MESHGEN_MIN_RUNTIME_VERSION);
    assert_int_equal(number_after(h, "#elif ", path), MESHGEN_VERSION_NUMBER);
    free(h);
    snprintf(path, sizeof path, "%s/%.*s.c", dir, (int)(strlen(base) - 2), base);
    c = th_read(path, NULL);
    assert_non_null(strstr(c, ".abi = MESHGEN_ABI,"));
    assert_non_null(strstr(c, ".magic = MESHGEN_MAGIC,"));
    snprintf(want, sizeof want, ".generator_version = \"%s\",", meshgen_version());
    if (!strstr(c, want))
        fail_msg("%s does not hold %s", path, want);
    free(c);
}

static void test_version(void **state)
{
    char numbers[64];
    DIR *goldens;
    struct dirent *e;
    int pairs = 0;
    (void)state;

    /* The runtime's version is the project's (CMakeLists.txt, project()),
     * and its parts make up both the string and the number. */
    assert_string_equal(meshgen_version(), MESHGEN_PROJECT_VERSION);
    snprintf(numbers, sizeof numbers, "%d.%d.%d", MESHGEN_VERSION_MAJOR, MESHGEN_VERSION_MINOR,
             MESHGEN_VERSION_PATCH);
    assert_string_equal(meshgen_version(), numbers);
    assert_int_equal(MESHGEN_VERSION_NUMBER, MESHGEN_VERSION_MAJOR * 10000 +
                                                 MESHGEN_VERSION_MINOR * 100 +
                                                 MESHGEN_VERSION_PATCH);
    /* This runtime reads what the generator of its own version writes, and
     * that generator asks for no newer runtime than this one. */
    assert_true(MESHGEN_MIN_GENERATOR_VERSION <= MESHGEN_VERSION_NUMBER);
    assert_true(MESHGEN_MIN_GENERATOR_VERSION > 0);
    assert_true(MESHGEN_MIN_RUNTIME_VERSION <= MESHGEN_VERSION_NUMBER);
    snprintf(numbers, sizeof numbers, "%d.%d.%d", MESHGEN_MIN_RUNTIME_VERSION / 10000,
             MESHGEN_MIN_RUNTIME_VERSION / 100 % 100, MESHGEN_MIN_RUNTIME_VERSION % 100);
    assert_string_equal(MESHGEN_MIN_RUNTIME_VERSION_STRING, numbers);

    /* Every golden header and source carries this runtime's numbers. */
    goldens = opendir(MESHGEN_SOURCE_DIR "/tests/golden");
    assert_non_null(goldens);
    while ((e = readdir(goldens)) != NULL) {
        char dir[768];
        DIR *expected;
        struct dirent *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(dir, sizeof dir, "%s/tests/golden/%s/expected", MESHGEN_SOURCE_DIR, e->d_name);
        expected = opendir(dir);
        if (!expected)
            continue;
        while ((f = readdir(expected)) != NULL) {
            size_t n = strlen(f->d_name);
            if (n > 7 && strcmp(f->d_name + n - 7, "_mesh.h") == 0) {
                check_generated_pair(dir, f->d_name);
                pairs++;
            }
        }
        closedir(expected);
    }
    closedir(goldens);
    assert_true(pairs >= 5);
}

/* ---- meshgen_mesh_check --------------------------------------------------------------- */

static void test_check_accepts_test_meshes(void **state)
{
    (void)state;
    assert_int_equal(meshgen_mesh_check(&ppdptp.mesh), MESHGEN_OK);
    assert_int_equal(meshgen_mesh_check(&jaxpp.mesh), MESHGEN_OK);
    assert_int_equal(meshgen_mesh_check(&abc.mesh), MESHGEN_OK);
    assert_int_equal(meshgen_mesh_check(&xy.mesh), MESHGEN_OK);
}

static void test_check_rejects_null_magic_abi(void **state)
{
    struct meshgen_mesh m = xy.mesh;

    (void)state;
    assert_int_equal(meshgen_mesh_check(NULL), MESHGEN_ERR_NULL);
    m.magic = 0x4D534847u; /* the magic with its bytes swapped */
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_MAGIC);
    m = xy.mesh;
    m.abi = MESHGEN_ABI + 1;
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_ABI);
    /* Magic is checked before ABI: tables that are not a mesh at all should
     * not be reported as coming from another generator. */
    m.magic = 0;
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_MAGIC);
}

/* A writable copy of xy's mesh and every table it points to, for corrupting. */
static void scratch_init(struct th_mesh *s)
{
    th_mesh_init(s, &xy_desc);
}

/* One corruption each; every one must make meshgen_mesh_check say CORRUPT. */
static void no_axes(struct th_mesh *s)
{
    s->mesh.n_axes = 0;
}
static void too_many_axes(struct th_mesh *s)
{
    s->mesh.n_axes = MESHGEN_MAX_AXES + 1;
}
static void size_not_ici_dcn(struct th_mesh *s)
{
    s->axes[1].ici = 1;
}
static void size_zero(struct th_mesh *s)
{
    s->axes[0].size = 0;
}
static void product_not_n_devices(struct th_mesh *s)
{
    s->mesh.n_devices = 3;
}
/* (2^31 - 1)^3 overflows even 64 bits, so the product must be bounded as it
 * grows (UBSan reports the overflow if it is not). */
static void product_overflows(struct th_mesh *s)
{
    static const struct meshgen_axis huge[3] = {
        {"x", INT32_MAX, INT32_MAX, 1, MESHGEN_AXIS_AUTO},
        {"y", INT32_MAX, INT32_MAX, 1, MESHGEN_AXIS_AUTO},
        {"z", INT32_MAX, INT32_MAX, 1, MESHGEN_AXIS_AUTO},
    };

    memcpy(s->axes, huge, sizeof huge);
    s->mesh.n_axes = 3;
}
static void axis_name_null(struct th_mesh *s)
{
    s->axes[1].name = NULL;
}
static void axis_name_empty(struct th_mesh *s)
{
    s->axes[1].name = "";
}
static void axis_name_duplicate(struct th_mesh *s)
{
    s->axes[1].name = "x";
}
static void axis_type_unknown(struct th_mesh *s)
{
    s->axes[0].type = 7;
}
static void mpmd_out_of_range(struct th_mesh *s)
{
    s->mesh.mpmd_axis = 2;
}
static void mpmd_below_none(struct th_mesh *s)
{
    s->mesh.mpmd_axis = -2;
}
static void device_kind_unknown(struct th_mesh *s)
{
    s->mesh.device_kind = 9;
}
static void more_devices_than_inventory(struct th_mesh *s)
{
    s->mesh.n_inventory_devices = 3;
}
static void flat_table_missing(struct th_mesh *s)
{
    s->mesh.mesh_devices = NULL;
}
static void mesh_device_out_of_range(struct th_mesh *s)
{
    s->mesh_devices[1] = 6;
}
static void mesh_device_negative(struct th_mesh *s)
{
    s->mesh_devices[1] = -1;
}
/* Device 0 twice; device_index cannot be the inverse of both positions. */
static void duplicate_device(struct th_mesh *s)
{
    s->mesh_devices[3] = 0;
}
static void index_mismatch(struct th_mesh *s)
{
    s->device_index[4] = 1;
}
/* An unused device claiming a flat position that holds another device. */
static void index_extra_entry(struct th_mesh *s)
{
    s->device_index[1] = 0;
}
static void index_out_of_range(struct th_mesh *s)
{
    s->device_index[1] = 4;
}
static void host_gap(struct th_mesh *s)
{
    s->hosts[2].first_device = 4;
}
static void host_overlap(struct th_mesh *s)
{
    s->hosts[2].first_device = 2;
}
static void host_not_from_zero(struct th_mesh *s)
{
    s->hosts[0].first_device = 1;
}
/* A host shrunk together with its template: only the total is wrong. */
static void hosts_short_of_inventory(struct th_mesh *s)
{
    s->templates[2].n_devices = 2;
    s->templates[2].devices = s->devices;
    s->mesh.n_templates = 3;
    s->hosts[2].template_index = 2;
    s->hosts[2].n_devices = 2;
}
static void no_hosts(struct th_mesh *s)
{
    s->mesh.n_hosts = 0;
}
static void template_out_of_range(struct th_mesh *s)
{
    s->hosts[0].template_index = 2;
}
static void template_size_mismatch(struct th_mesh *s)
{
    s->templates[0].n_devices = 2;
}
static void template_devices_missing(struct th_mesh *s)
{
    s->templates[0].devices = NULL;
}
static void device_string_null(struct th_mesh *s)
{
    s->devices[2].pci = NULL;
}
static void host_name_null(struct th_mesh *s)
{
    s->hosts[1].name = NULL;
}
static void host_slice_null(struct th_mesh *s)
{
    s->hosts[2].slice = NULL;
}
static void process_mode_unknown(struct th_mesh *s)
{
    s->mesh.process_mode = 2;
}
static void process_host_out_of_range(struct th_mesh *s)
{
    s->processes[1].host = 3;
}
static void process_past_end(struct th_mesh *s)
{
    s->processes[1].count = 3;
}
static void process_negative_first(struct th_mesh *s)
{
    s->processes[0].first = -1;
}
static void process_device_off_host(struct th_mesh *s)
{
    s->process_devices[1] = 3;
}
static void process_device_repeated(struct th_mesh *s)
{
    s->process_devices[1] = 0;
}
static void process_devices_unsorted(struct th_mesh *s)
{
    s->process_devices[2] = 5;
    s->process_devices[3] = 4;
}
static void process_table_missing(struct th_mesh *s)
{
    s->mesh.processes = NULL;
}
static void process_devices_missing(struct th_mesh *s)
{
    s->mesh.process_devices = NULL;
}
static void sharding_table_missing(struct th_mesh *s)
{
    s->mesh.shardings = NULL;
}
static void sharding_name_null(struct th_mesh *s)
{
    s->shardings[0].name = NULL;
}
static void sharding_name_empty(struct th_mesh *s)
{
    s->shardings[0].name = "";
}
static void sharding_has_shape_not_bool(struct th_mesh *s)
{
    s->shardings[0].has_shape = 2;
}
/* Sizes are stored only with a shape. */
static void sharding_size_without_shape(struct th_mesh *s)
{
    s->shardings[0].has_shape = 0;
}
static void sharding_dim_axes_negative(struct th_mesh *s)
{
    s->dims[0].n_axes = -1;
    s->dims[0].shards = 1;
    s->dims[0].local_size = s->dims[0].global_size;
}
static void sharding_too_many_dims(struct th_mesh *s)
{
    s->shardings[0].n_dims = MESHGEN_MAX_DIMS + 1;
}
static void sharding_axis_out_of_range(struct th_mesh *s)
{
    s->dims[0].axes[0] = 2;
}
static void sharding_axis_repeated(struct th_mesh *s)
{
    s->dims[1].axes[0] = 1;
}
static void sharding_shards_wrong(struct th_mesh *s)
{
    s->dims[0].shards = 4;
}
static void sharding_local_wrong(struct th_mesh *s)
{
    s->dims[1].local_size = 2;
}
static void sharding_shape_indivisible(struct th_mesh *s)
{
    s->dims[1].global_size = 5;
    s->dims[1].local_size = 2;
}
static void sharding_on_mpmd_axis(struct th_mesh *s)
{
    s->mesh.mpmd_axis = 0;
}
static void sharding_name_duplicate(struct th_mesh *s)
{
    s->shardings[1] = s->shardings[0];
    s->mesh.n_shardings = 2;
}

static void test_check_rejects_corruptions(void **state)
{
    static const struct {
        const char *name;
        void (*corrupt)(struct th_mesh *);
    } cases[] = {
#define CASE(f) {#f, f}
        CASE(no_axes),
        CASE(too_many_axes),
        CASE(size_not_ici_dcn),
        CASE(size_zero),
        CASE(product_not_n_devices),
        CASE(product_overflows),
        CASE(axis_name_null),
        CASE(axis_name_empty),
        CASE(axis_name_duplicate),
        CASE(axis_type_unknown),
        CASE(mpmd_out_of_range),
        CASE(mpmd_below_none),
        CASE(device_kind_unknown),
        CASE(more_devices_than_inventory),
        CASE(flat_table_missing),
        CASE(mesh_device_out_of_range),
        CASE(mesh_device_negative),
        CASE(duplicate_device),
        CASE(index_mismatch),
        CASE(index_extra_entry),
        CASE(index_out_of_range),
        CASE(host_gap),
        CASE(host_overlap),
        CASE(host_not_from_zero),
        CASE(hosts_short_of_inventory),
        CASE(no_hosts),
        CASE(template_out_of_range),
        CASE(template_size_mismatch),
        CASE(template_devices_missing),
        CASE(device_string_null),
        CASE(host_name_null),
        CASE(host_slice_null),
        CASE(process_mode_unknown),
        CASE(process_host_out_of_range),
        CASE(process_past_end),
        CASE(process_negative_first),
        CASE(process_device_off_host),
        CASE(process_device_repeated),
        CASE(process_devices_unsorted),
        CASE(process_table_missing),
        CASE(process_devices_missing),
        CASE(sharding_table_missing),
        CASE(sharding_name_null),
        CASE(sharding_name_empty),
        CASE(sharding_has_shape_not_bool),
        CASE(sharding_size_without_shape),
        CASE(sharding_dim_axes_negative),
        CASE(sharding_too_many_dims),
        CASE(sharding_axis_out_of_range),
        CASE(sharding_axis_repeated),
        CASE(sharding_shards_wrong),
        CASE(sharding_local_wrong),
        CASE(sharding_shape_indivisible),
        CASE(sharding_on_mpmd_axis),
        CASE(sharding_name_duplicate),
#undef CASE
    };
    struct th_mesh s;
    int i, rc;

    (void)state;
    scratch_init(&s);
    assert_int_equal(meshgen_mesh_check(&s.mesh), MESHGEN_OK);
    for (i = 0; i < COUNT(cases); i++) {
        scratch_init(&s);
        cases[i].corrupt(&s);
        rc = meshgen_mesh_check(&s.mesh);
        if (rc != MESHGEN_ERR_CORRUPT)
            fail_msg("corruption %s: meshgen_mesh_check returned %d", cases[i].name, rc);
    }
}

/* Functions other than meshgen_mesh_check still refuse a mesh that is not one,
 * or whose axis count would overrun their coordinate buffers. */
static void test_every_function_rejects_unusable_mesh(void **state)
{
    static const int64_t shape[2] = {4, 6};
    struct meshgen_mesh bad[3];
    const int expect[3] = {MESHGEN_ERR_MAGIC, MESHGEN_ERR_ABI, MESHGEN_ERR_CORRUPT};
    static const char *const vars[] = {"MESHGEN_HOSTNAME=node0", NULL};
    int32_t coords[MESHGEN_MAX_AXES] = {0}, out[8], process;
    int64_t start[2], size[2];
    char name[16];
    int xyz[3];
    struct meshgen_cursor cursor;
    int i;

    (void)state;
    bad[0] = bad[1] = bad[2] = xy.mesh;
    bad[0].magic = 0;
    bad[1].abi = 0;
    bad[2].n_axes = MESHGEN_MAX_AXES + 1;
    setenv("MESHGEN_PROCESS", "0", 1);
    for (i = 0; i < 3; i++) {
        const struct meshgen_mesh *m = &bad[i];
        int e = expect[i];

        assert_int_equal(meshgen_mesh_check(m), e);
        assert_int_equal(meshgen_axis_index(m, "x"), e);
        assert_int_equal(meshgen_axis_size(m, 0), e);
        assert_int_equal(meshgen_device_at(m, coords), e);
        assert_int_equal(meshgen_coords_of(m, 0, coords), e);
        assert_int_equal(meshgen_device_host(m, 0), e);
        assert_null(meshgen_device_info(m, 0));
        assert_int_equal(meshgen_device_coords(m, 0, xyz, NULL), e);
        assert_int_equal(meshgen_axes_mask(m, "x"), e);
        assert_int_equal(meshgen_group(m, 0, 1, out, 8), e);
        assert_int_equal(meshgen_group_index(m, 0, 1, NULL), e);
        assert_int_equal(meshgen_group_count(m, 1), e);
        assert_int_equal(meshgen_axis_groups(m, 1, out, 8), e);
        assert_int_equal(meshgen_cursor_init(&cursor, m, 1), e);
        assert_int_equal(meshgen_stage_count(m), e);
        assert_int_equal(meshgen_stage_of(m, 0), e);
        assert_int_equal(meshgen_stage_devices(m, 0, out, 8), e);
        assert_int_equal(meshgen_sharding_index(m, "yx"), e);
        assert_int_equal(meshgen_shard(m, 0, shape, 2, 0, start, size, NULL), e);
        assert_int_equal(meshgen_process_from_env(m, &process), e);
        assert_int_equal(meshgen_process_from_vars(m, th_lookup, (void *)vars, &process), e);
        assert_int_equal(meshgen_host_from_env(m, name, sizeof name), e);
        assert_int_equal(meshgen_host_from_vars(m, th_lookup, (void *)vars, name, sizeof name), e);
        assert_int_equal(meshgen_process_devices(m, 0, out, 8), e);
        assert_int_equal(meshgen_process_of(m, 0), e);
    }
    unsetenv("MESHGEN_PROCESS");
}

static void test_every_function_rejects_null_mesh(void **state)
{
    static const char *const vars[] = {"MESHGEN_PROCESS=0", NULL};
    int32_t coords[MESHGEN_MAX_AXES] = {0}, out[8], process;
    int64_t start[2], size[2];
    char name[16];
    struct meshgen_cursor cursor;

    (void)state;
    assert_int_equal(meshgen_axis_index(NULL, "x"), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_axis_size(NULL, 0), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_device_at(NULL, coords), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_coords_of(NULL, 0, coords), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_device_host(NULL, 0), MESHGEN_ERR_NULL);
    assert_null(meshgen_device_info(NULL, 0));
    assert_int_equal(meshgen_axes_mask(NULL, "x"), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_group(NULL, 0, 1, out, 8), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_group_index(NULL, 0, 1, NULL), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_group_count(NULL, 1), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_axis_groups(NULL, 1, out, 8), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_cursor_init(&cursor, NULL, 1), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_stage_count(NULL), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_stage_of(NULL, 0), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_stage_devices(NULL, 0, out, 8), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_sharding_index(NULL, "yx"), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_shard(NULL, 0, NULL, 2, 0, start, size, NULL), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_from_env(NULL, &process), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_from_vars(NULL, th_lookup, (void *)vars, &process),
                     MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_host_from_env(NULL, name, sizeof name), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_host_from_vars(NULL, th_lookup, (void *)vars, name, sizeof name),
                     MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_devices(NULL, 0, out, 8), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_of(NULL, 0), MESHGEN_ERR_NULL);
}

/* ---- axes, coordinates, devices ---------------------------------------------------------- */

static void test_axis_index_and_size(void **state)
{
    (void)state;
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, "pp"), 0);
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, "dp"), 1);
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, "tp"), 2);
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, "t"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, "tpp"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, ""), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axis_index(&ppdptp.mesh, NULL), MESHGEN_ERR_NULL);

    assert_int_equal(meshgen_axis_size(&ppdptp.mesh, 0), 4);
    assert_int_equal(meshgen_axis_size(&ppdptp.mesh, 2), 2);
    assert_int_equal(meshgen_axis_size(&ppdptp.mesh, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_axis_size(&ppdptp.mesh, 3), MESHGEN_ERR_RANGE);
}

/* Every position of a permuted mesh that leaves two devices unused. */
static void test_device_at_coords_of_round_trip(void **state)
{
    static const int32_t expect[2][2] = {{4, 5}, {0, 2}};
    int32_t c[2], back[2];
    int used = 0, d;

    (void)state;
    for (c[0] = 0; c[0] < 2; c[0]++) {
        for (c[1] = 0; c[1] < 2; c[1]++) {
            int dev = meshgen_device_at(&xy.mesh, c);

            assert_int_equal(dev, expect[c[0]][c[1]]);
            assert_int_equal(meshgen_coords_of(&xy.mesh, dev, back), MESHGEN_OK);
            assert_int_equal(back[0], c[0]);
            assert_int_equal(back[1], c[1]);
        }
    }
    /* Going the other way, from each device id: the used ones come back to
     * themselves, the unused ones are reported as such. */
    for (d = 0; d < 6; d++) {
        int rc = meshgen_coords_of(&xy.mesh, d, back);

        if (d == 1 || d == 3) {
            assert_int_equal(rc, MESHGEN_ERR_NOT_IN_MESH);
            continue;
        }
        assert_int_equal(rc, MESHGEN_OK);
        assert_int_equal(meshgen_device_at(&xy.mesh, back), d);
        used++;
    }
    assert_int_equal(used, 4);
}

static void test_device_at_coords_of_errors(void **state)
{
    int32_t c[2] = {0, 0}, out[2] = {-7, -7};

    (void)state;
    assert_int_equal(meshgen_device_at(&xy.mesh, NULL), MESHGEN_ERR_NULL);
    c[1] = 2;
    assert_int_equal(meshgen_device_at(&xy.mesh, c), MESHGEN_ERR_RANGE);
    c[1] = -1;
    assert_int_equal(meshgen_device_at(&xy.mesh, c), MESHGEN_ERR_RANGE);
    c[0] = 2;
    c[1] = 0;
    assert_int_equal(meshgen_device_at(&xy.mesh, c), MESHGEN_ERR_RANGE);

    assert_int_equal(meshgen_coords_of(&xy.mesh, 0, NULL), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_coords_of(&xy.mesh, -1, out), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_coords_of(&xy.mesh, 6, out), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_coords_of(&xy.mesh, 3, out), MESHGEN_ERR_NOT_IN_MESH);
    /* Nothing is written on error. */
    assert_int_equal(out[0], -7);
    assert_int_equal(out[1], -7);
}

/* Host lookup over hosts that share a template, with a host of no devices. */
/* meshgen_device_coords: a TPU device's chip and core, as the tables hold
 * them; an error, and nothing written, for anything else. */
static void test_device_coords(void **state)
{
    int c[3] = {-1, -1, -1}, core = -1;

    (void)state;
    assert_int_equal(meshgen_mesh_check(&tpu.mesh), MESHGEN_OK);
    assert_int_equal(meshgen_device_coords(&tpu.mesh, 3, c, &core), MESHGEN_OK);
    assert_int_equal(c[0] * 100 + c[1] * 10 + c[2], 110);
    assert_int_equal(core, 0);
    assert_int_equal(meshgen_device_coords(&tpu.mesh, 2, c, NULL), MESHGEN_OK);
    assert_int_equal(c[0] * 100 + c[1] * 10 + c[2], 10);
    c[0] = c[1] = c[2] = core = -1;
    assert_int_equal(meshgen_device_coords(&tpu.mesh, 4, c, &core), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_device_coords(&tpu.mesh, -1, c, &core), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_device_coords(&tpu.mesh, 0, NULL, &core), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_device_coords(&ppdptp.mesh, 0, c, &core), MESHGEN_ERR_NOT_TPU);
    assert_int_equal(meshgen_device_coords(NULL, 0, c, &core), MESHGEN_ERR_NULL);
    assert_int_equal(c[0] + c[1] + c[2] + core, -4);
}

static void test_device_host_and_info(void **state)
{
    static const int host_of[6] = {0, 0, 0, 2, 2, 2};
    int d;

    (void)state;
    for (d = 0; d < 6; d++) {
        const struct meshgen_device_info *info = meshgen_device_info(&xy.mesh, d);

        assert_int_equal(meshgen_device_host(&xy.mesh, d), host_of[d]);
        assert_ptr_equal(info, &xy.devices[d % 3]);
    }
    assert_string_equal(meshgen_device_info(&xy.mesh, 5)->pci, "0000:81:00.0");
    assert_int_equal(meshgen_device_info(&xy.mesh, 5)->numa, 1);
    /* An unused device still has a host and a description. */
    assert_non_null(meshgen_device_info(&xy.mesh, 1));
    for (d = 0; d < 16; d++) {
        assert_int_equal(meshgen_device_host(&ppdptp.mesh, d), d / 8);
        assert_ptr_equal(meshgen_device_info(&ppdptp.mesh, d), &ppdptp.devices[d % 8]);
    }

    assert_int_equal(meshgen_device_host(&xy.mesh, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_device_host(&xy.mesh, 6), MESHGEN_ERR_RANGE);
    assert_null(meshgen_device_info(&xy.mesh, -1));
    assert_null(meshgen_device_info(&xy.mesh, 6));
}

/* ---- groups ---------------------------------------------------------------------------- */

static void test_axes_mask(void **state)
{
    const struct meshgen_mesh *m = &ppdptp.mesh;

    (void)state;
    assert_int_equal(meshgen_axes_mask(m, ""), 0);
    assert_int_equal(meshgen_axes_mask(m, "pp"), 1);
    assert_int_equal(meshgen_axes_mask(m, "tp"), 4);
    assert_int_equal(meshgen_axes_mask(m, "dp,tp"), 6);
    assert_int_equal(meshgen_axes_mask(m, "tp,pp"), 5);
    assert_int_equal(meshgen_axes_mask(m, "pp,dp,tp"), 7);
    assert_int_equal(meshgen_axes_mask(m, "tp,tp"), 4);

    assert_int_equal(meshgen_axes_mask(m, NULL), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_axes_mask(m, "ep"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, "dp,ep"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, "t"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, "tpp"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, "dp,"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, ",dp"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, "dp,,tp"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, ","), MESHGEN_ERR_NO_AXIS);
    /* Names are exact: no spaces are trimmed. */
    assert_int_equal(meshgen_axes_mask(m, "dp, tp"), MESHGEN_ERR_NO_AXIS);
    assert_int_equal(meshgen_axes_mask(m, " dp"), MESHGEN_ERR_NO_AXIS);
}

/*
 * Checks each listed group: every member gets exactly that group, the
 * group's position in the list as its number, and its position in the group
 * as its rank; and the list covers the mesh.
 */
static void check_groups(const char *axes, int n_groups, int group_size, const int32_t *groups)
{
    uint32_t mask = (uint32_t)meshgen_axes_mask(&ppdptp.mesh, axes);
    int g, r, k;

    assert_int_equal(meshgen_group_count(&ppdptp.mesh, mask), n_groups);
    assert_int_equal(n_groups * group_size, 16);
    for (g = 0; g < n_groups; g++) {
        for (r = 0; r < group_size; r++) {
            int32_t members[16], rank = -1;
            int device = groups[g * group_size + r];

            assert_int_equal(meshgen_group(&ppdptp.mesh, device, mask, members, 16), group_size);
            for (k = 0; k < group_size; k++)
                assert_int_equal(members[k], groups[g * group_size + k]);
            assert_int_equal(meshgen_group_index(&ppdptp.mesh, device, mask, &rank), g);
            assert_int_equal(rank, r);
        }
    }
}

/* Reference case (docs/reference.md §9, Megatron RankGenerator / DeviceMesh.get_group):
 * mesh (pp=4, dp=2, tp=2) over ranks 0..15. */
static void test_reference_groups_pp_dp_tp(void **state)
{
    static const int32_t tp[8][2] = {{0, 1}, {2, 3},   {4, 5},   {6, 7},
                                     {8, 9}, {10, 11}, {12, 13}, {14, 15}};
    static const int32_t dp[8][2] = {{0, 2},  {1, 3},  {4, 6},   {5, 7},
                                     {8, 10}, {9, 11}, {12, 14}, {13, 15}};
    static const int32_t pp[4][4] = {{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}};
    int32_t rank = -1;

    (void)state;
    check_groups("tp", 8, 2, &tp[0][0]);
    check_groups("dp", 8, 2, &dp[0][0]);
    check_groups("pp", 4, 4, &pp[0][0]);
    /* Reference case: the dp group of device 5 (pp1, dp0, tp1) is number
     * 1*2+1 = 3 in row-major order of (pp, tp). */
    assert_int_equal(meshgen_group_index(&ppdptp.mesh, 5, 2, &rank), 3);
    assert_int_equal(rank, 0);
}

static void test_group_empty_full_and_multi_axis(void **state)
{
    int32_t members[16], rank = -1;
    int d, k;

    (void)state;
    /* An empty mask: every device alone, numbered by its flat index. */
    assert_int_equal(meshgen_group_count(&xy.mesh, 0), 4);
    for (d = 0; d < 4; d++) {
        int device = xy_mesh_devices[d];

        assert_int_equal(meshgen_group(&xy.mesh, device, 0, members, 16), 1);
        assert_int_equal(members[0], device);
        assert_int_equal(meshgen_group_index(&xy.mesh, device, 0, &rank), d);
        assert_int_equal(rank, 0);
    }
    /* Every axis: one group, the mesh in mesh order; rank = flat index. */
    assert_int_equal(meshgen_group_count(&xy.mesh, 3), 1);
    assert_int_equal(meshgen_group(&xy.mesh, 2, 3, members, 16), 4);
    for (k = 0; k < 4; k++)
        assert_int_equal(members[k], xy_mesh_devices[k]);
    assert_int_equal(meshgen_group_index(&xy.mesh, 2, 3, &rank), 0);
    assert_int_equal(rank, 3);
    /* Along a permuted mesh's x axis: devices at (0,y) and (1,y). */
    assert_int_equal(meshgen_group(&xy.mesh, 5, 1, members, 16), 2);
    assert_int_equal(members[0], 5);
    assert_int_equal(members[1], 2);
    assert_int_equal(meshgen_group_index(&xy.mesh, 2, 1, &rank), 1);
    assert_int_equal(rank, 1);
    /* Two axes of three: (dp, tp) groups of ppdptp are the pp stages' blocks;
     * rank NULL is allowed. */
    assert_int_equal(meshgen_group(&ppdptp.mesh, 9, 6, members, 16), 4);
    for (k = 0; k < 4; k++)
        assert_int_equal(members[k], 8 + k);
    assert_int_equal(meshgen_group_index(&ppdptp.mesh, 9, 6, NULL), 2);
}

static void test_group_errors(void **state)
{
    int32_t members[4] = {-7, -7, -7, -7}, rank = -7;

    (void)state;
    /* Sizing query. */
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 1, NULL, 0), 4);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 1, NULL, 4), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 1, members, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 1, members, 3), MESHGEN_ERR_NO_SPACE);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 1, members, 0), MESHGEN_ERR_NO_SPACE);
    assert_int_equal(members[0], -7); /* nothing written */
    assert_int_equal(meshgen_group(&ppdptp.mesh, -1, 1, members, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 16, 1, members, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 8, members, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group(&ppdptp.mesh, 0, 0x80000000u, members, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group(&xy.mesh, 1, 1, members, 4), MESHGEN_ERR_NOT_IN_MESH);
    assert_int_equal(members[0], -7);

    assert_int_equal(meshgen_group_index(&ppdptp.mesh, -1, 1, &rank), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group_index(&ppdptp.mesh, 16, 1, &rank), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group_index(&ppdptp.mesh, 0, 8, &rank), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_group_index(&xy.mesh, 3, 1, &rank), MESHGEN_ERR_NOT_IN_MESH);
    assert_int_equal(rank, -7);

    assert_int_equal(meshgen_group_count(&ppdptp.mesh, 8), MESHGEN_ERR_RANGE);
}

/*
 * ---- groups against brute force ------------------------------------------------------
 *
 * Meshes of every shape the lookups special-case (one axis, axes of size 1,
 * sizes that are not powers of two, the MPMD axis anywhere), each over a
 * shuffled device order with unused devices, checked for every mask and
 * every device against answers found without any mixed-radix arithmetic:
 * coordinates come from counting positions like an odometer, and a group
 * is found by comparing coordinates across the whole mesh.
 */

enum { BF_MAX = TH_MAX_DEVICES };

struct brute {
    struct th_mesh m;
    int32_t coords[BF_MAX][6]; /* of each position, by counting */
};

/* A mesh of the given sizes over n_devices + 3 devices of one host, its
 * positions holding devices in an order shuffled by `seed`. */
static void brute_init(struct brute *b, int n_axes, const int32_t *sizes, int mpmd, uint32_t seed)
{
    static const char *const names[6] = {"a", "b", "c", "d", "e", "f"};
    struct th_mesh_desc d = {.name = "brute", .mpmd = mpmd >= 0 ? names[mpmd] : NULL};
    int32_t order[BF_MAX], n = 1, total, i, k;

    memset(b->coords, 0, sizeof b->coords);
    for (k = 0; k < n_axes; k++) {
        d.axes[k] = (struct th_axis){names[k], sizes[k], 1};
        n *= sizes[k];
    }
    total = n + 3;
    assert_true(total <= BF_MAX);
    for (i = 0; i < total; i++)
        order[i] = i;
    th_shuffle(order, total, seed);
    d.hosts[0] = (struct th_host){"node0", total, NULL, NULL};
    d.mesh = order;
    th_mesh_init(&b->m, &d);
    /* Coordinates of each position: position 0 is all zeros, and each next
     * one adds 1 to the last axis, carrying into the earlier ones. */
    for (i = 1; i < n; i++) {
        memcpy(b->coords[i], b->coords[i - 1], sizeof b->coords[i]);
        for (k = n_axes - 1; k >= 0 && ++b->coords[i][k] == sizes[k]; k--)
            b->coords[i][k] = 0;
    }
}

/* Whether positions p and q agree on every axis outside mask. */
static int same_group(const struct brute *b, int p, int q, uint32_t mask)
{
    int k;

    for (k = 0; k < b->m.mesh.n_axes; k++)
        if (!(mask & (1u << k)) && b->coords[p][k] != b->coords[q][k])
            return 0;
    return 1;
}

/*
 * meshgen_axis_groups and the cursor along mask, against meshgen_group and
 * meshgen_group_index of every device of m: each group's members in rank
 * order at group number times group size, every device once; the cap rule
 * at its edge (one entry short writes nothing, the exact cap nothing past
 * it); the cursor's group and rank for every device, with and without rank.
 */
static void check_all_groups(const struct meshgen_mesh *m, uint32_t mask)
{
    enum { CANARY = -77 };
    int32_t *all, *members, rank, cursor_rank;
    int n = m->n_devices, size = n / meshgen_group_count(m, mask), f, k;
    struct meshgen_cursor c;

    all = malloc(sizeof *all * (size_t)(n + 1));
    members = malloc(sizeof *members * (size_t)n);
    assert_non_null(all);
    assert_non_null(members);
    assert_int_equal(meshgen_axis_groups(m, mask, NULL, 0), n);
    for (k = 0; k <= n; k++)
        all[k] = CANARY;
    assert_int_equal(meshgen_axis_groups(m, mask, all, (size_t)n - 1), MESHGEN_ERR_NO_SPACE);
    for (k = 0; k <= n; k++)
        assert_int_equal(all[k], CANARY);
    assert_int_equal(meshgen_axis_groups(m, mask, all, (size_t)n), n);
    assert_int_equal(all[n], CANARY);
    assert_int_equal(meshgen_cursor_init(&c, m, mask), MESHGEN_OK);
    assert_int_equal(c.version, MESHGEN_CURSOR_VERSION);
    for (f = 0; f < n; f++) {
        int device = meshgen_mesh_device(m, f);
        int g = meshgen_group_index(m, device, mask, &rank);

        assert_true(g >= 0);
        assert_int_equal(all[g * size + rank], device);
        cursor_rank = -1;
        assert_int_equal(meshgen_cursor_group(&c, device, &cursor_rank), g);
        assert_int_equal(cursor_rank, rank);
        assert_int_equal(meshgen_cursor_group(&c, device, NULL), g);
        if (rank == 0) {
            assert_int_equal(meshgen_group(m, device, mask, members, n), size);
            assert_memory_equal(members, &all[g * size], sizeof *members * (size_t)size);
        }
    }
    free(all);
    free(members);
}

/* Every lookup of every device against the brute-force answers: the group
 * is every position that agrees outside the mask, in mesh order; the rank
 * is how many of them come first; the group number is how many groups have
 * their first member earlier (row-major order of the other axes is the
 * order of first members, as each lies where the mask's coordinates are 0). */
static void check_brute(const struct brute *b)
{
    const struct meshgen_mesh *m = &b->m.mesh;
    int n = m->n_devices, p, q, k;
    uint32_t mask;

    for (p = 0; p < n; p++) {
        int32_t c[6];

        assert_int_equal(meshgen_device_at(m, b->coords[p]), b->m.mesh_devices[p]);
        assert_int_equal(meshgen_coords_of(m, b->m.mesh_devices[p], c), MESHGEN_OK);
        for (k = 0; k < m->n_axes; k++)
            assert_int_equal(c[k], b->coords[p][k]);
    }
    for (mask = 0; mask < (1u << m->n_axes); mask++) {
        int groups = 0, firsts[BF_MAX];

        for (p = 0; p < n; p++) {
            for (q = 0; q < p && !same_group(b, q, p, mask); q++)
                ;
            if (q == p)
                firsts[groups++] = p;
        }
        assert_int_equal(meshgen_group_count(m, mask), groups);
        for (p = 0; p < n; p++) {
            int32_t members[BF_MAX], rank = -1, expect_rank = 0, size = 0, group = 0;
            int got = meshgen_group(m, b->m.mesh_devices[p], mask, members, BF_MAX);

            for (q = 0; q < n; q++) {
                if (!same_group(b, q, p, mask))
                    continue;
                assert_true(size < got);
                assert_int_equal(members[size], b->m.mesh_devices[q]);
                size++;
                expect_rank += q < p;
            }
            assert_int_equal(got, size);
            assert_int_equal(meshgen_group(m, b->m.mesh_devices[p], mask, NULL, 0), size);
            assert_int_equal(meshgen_group(m, b->m.mesh_devices[p], mask, members, size), size);
            while (!same_group(b, firsts[group], p, mask))
                group++;
            assert_int_equal(meshgen_group_index(m, b->m.mesh_devices[p], mask, &rank), group);
            assert_int_equal(rank, expect_rank);
        }
        check_all_groups(m, mask);
    }
    /* Stages: the positions whose coordinate on the MPMD axis is the stage. */
    for (k = 0; k < meshgen_stage_count(m); k++) {
        int32_t devices[BF_MAX];
        int count = meshgen_stage_devices(m, k, devices, BF_MAX), size = 0;

        for (p = 0; p < n; p++) {
            if (m->mpmd_axis >= 0 && b->coords[p][m->mpmd_axis] != k)
                continue;
            assert_true(size < count);
            assert_int_equal(devices[size++], b->m.mesh_devices[p]);
            assert_int_equal(meshgen_stage_of(m, b->m.mesh_devices[p]), k);
        }
        assert_int_equal(count, size);
    }
}

static void test_groups_against_brute_force(void **state)
{
    static const struct {
        int n_axes;
        int32_t sizes[6];
        int mpmd;
    } shapes[] = {
        {1, {6}, -1},               /* one axis, not a power of two */
        {1, {8}, 0},                /* one axis, and it is the MPMD axis */
        {3, {3, 5, 2}, -1},         /* no power of two but 2 */
        {4, {2, 4, 2, 2}, 3},       /* powers of two; MPMD innermost */
        {5, {1, 3, 1, 4, 1}, 1},    /* axes of size 1 around the others */
        {6, {2, 1, 3, 1, 2, 2}, 2}, /* runs of masked axes split by size-1 axes */
        {2, {1, 1}, -1},            /* a mesh of one device */
    };
    struct brute *b = malloc(sizeof *b);
    size_t i;

    (void)state;
    assert_non_null(b);
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        brute_init(b, shapes[i].n_axes, shapes[i].sizes, shapes[i].mpmd, (uint32_t)i + 1);
        check_brute(b);
    }
    free(b);
}

/* Only what the group functions read of a mesh of many devices: its axes
 * and, unless the mesh leaves them out, a flat table shuffled by `seed`
 * and its inverse over two more devices than the mesh uses. */
struct big {
    struct meshgen_mesh mesh;
    struct meshgen_axis axes[MESHGEN_MAX_AXES];
    int32_t *mesh_devices, *device_index;
};

static void big_init(struct big *b, int n_axes, const int32_t *sizes, int tables, uint32_t seed)
{
    int64_t n = 1;
    int32_t i, total;
    int k;

    memset(b, 0, sizeof *b);
    for (k = 0; k < n_axes; k++) {
        b->axes[k] = (struct meshgen_axis){"a", sizes[k], sizes[k], 1, MESHGEN_AXIS_AUTO};
        n *= sizes[k];
    }
    assert_true(n + (tables ? 2 : 0) <= INT32_MAX);
    total = (int32_t)n + (tables ? 2 : 0);
    b->mesh = (struct meshgen_mesh){.magic = MESHGEN_MAGIC,
                                    .abi = MESHGEN_ABI,
                                    .n_axes = n_axes,
                                    .axes = b->axes,
                                    .n_devices = (int32_t)n,
                                    .n_inventory_devices = total,
                                    .mpmd_axis = -1};
    if (!tables)
        return;
    b->mesh_devices = malloc(sizeof(int32_t) * (size_t)n);
    b->device_index = malloc(sizeof(int32_t) * (size_t)total);
    assert_non_null(b->mesh_devices);
    assert_non_null(b->device_index);
    for (i = 0; i < total; i++)
        b->device_index[i] = i;
    th_shuffle(b->device_index, total, seed);
    /* device_index holds a shuffled order here: its first n entries are
     * the mesh, the rest unused. */
    for (i = 0; i < (int32_t)n; i++)
        b->mesh_devices[i] = b->device_index[i];
    for (i = 0; i < total; i++)
        b->device_index[i] = -1;
    for (i = 0; i < (int32_t)n; i++)
        b->device_index[b->mesh_devices[i]] = i;
    b->mesh.mesh_devices = b->mesh_devices;
    b->mesh.device_index = b->device_index;
}

/* Every group at once and the cursor against meshgen_group and
 * meshgen_group_index on meshes of thousands of devices: tiles of the
 * batch's walk that are cut short at either edge, sizes that are not
 * powers of two, a mesh's tables left out or shuffled. */
static void test_all_groups_large(void **state)
{
    static const struct {
        int n_axes;
        int32_t sizes[5];
        int tables;
    } shapes[] = {
        {4, {3, 20, 17, 2}, 1}, /* tiles cut short in both directions */
        {5, {5, 6, 7, 8, 9}, 0}, {5, {5, 6, 7, 8, 9}, 1},
        {3, {33, 1, 40}, 1},     /* a size-1 axis between two others */
        {2, {2, 4099}, 1},       /* a long last axis */
        {4, {16, 32, 2, 16}, 0}, /* powers of two, whole tiles */
        {4, {16, 32, 2, 16}, 1},
    };
    size_t i;
    uint32_t mask;

    (void)state;
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct big b;

        big_init(&b, shapes[i].n_axes, shapes[i].sizes, shapes[i].tables, (uint32_t)i + 7);
        for (mask = 0; mask < (1u << shapes[i].n_axes); mask++)
            check_all_groups(&b.mesh, mask);
        free(b.mesh_devices);
        free(b.device_index);
    }
}

/* The cursor divides by multiplying, which must be exact for every flat
 * index below 2^31: its answers against meshgen_group_index at the ends of
 * meshes of up to 2^31 - 2 devices (no tables: the ids are the indices)
 * and at a thousand places between, for every mask. */
static void test_cursor_large_indices(void **state)
{
    static const struct {
        int n_axes;
        int32_t sizes[7];
    } shapes[] = {
        {2, {46337, 46337}},             /* 2 147 117 569 */
        {2, {1073741823, 2}},            /* 2^31 - 2 */
        {2, {2, 1073741823}},            /* the same, the odd size innermost */
        {7, {3, 7, 11, 13, 17, 19, 23}}, /* seven primes */
        {3, {1024, 1024, 1024}},         /* 2^30 */
        {4, {3, 65536, 5, 2047}},
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct big b;
        uint32_t mask;

        big_init(&b, shapes[i].n_axes, shapes[i].sizes, 0, 0);
        for (mask = 0; mask < (1u << shapes[i].n_axes); mask++) {
            struct meshgen_cursor c;
            int32_t n = b.mesh.n_devices, step = n / 1000 + 1, d;

            assert_int_equal(meshgen_cursor_init(&c, &b.mesh, mask), MESHGEN_OK);
            for (d = 0; d < n; d = d < n - step ? d + step : (d < n - 3 ? n - 3 : d + 1)) {
                int32_t rank = -1, want_rank = -2;
                int want = meshgen_group_index(&b.mesh, d, mask, &want_rank);

                assert_true(want >= 0);
                assert_int_equal(meshgen_cursor_group(&c, d, &rank), want);
                assert_int_equal(rank, want_rank);
            }
        }
    }
}

/* The cursor's layout is ABI (meshgen.h): pinned here on LP64, so that a
 * change of it is seen, and made with a new MESHGEN_CURSOR_VERSION. */
static void test_cursor_layout(void **state)
{
    (void)state;
    assert_int_equal(MESHGEN_CURSOR_VERSION, 1);
    assert_int_equal(sizeof(struct meshgen_cursor_run), 24);
    assert_int_equal(offsetof(struct meshgen_cursor_run, base), 8);
    assert_int_equal(offsetof(struct meshgen_cursor, form), 4);
    if (sizeof(void *) == 8) {
        assert_int_equal(offsetof(struct meshgen_cursor, device_index), 8);
        assert_int_equal(offsetof(struct meshgen_cursor, mul_stride), 16);
        assert_int_equal(offsetof(struct meshgen_cursor, mul_block), 24);
        assert_int_equal(offsetof(struct meshgen_cursor, stride), 32);
        assert_int_equal(offsetof(struct meshgen_cursor, n_runs), 40);
        assert_int_equal(offsetof(struct meshgen_cursor, reserved), 44);
        assert_int_equal(offsetof(struct meshgen_cursor, runs), 56);
        assert_int_equal(sizeof(struct meshgen_cursor), 440);
    }
}

static void test_all_groups_and_cursor_errors(void **state)
{
    int32_t out[16];
    struct meshgen_cursor c, before;
    int k;

    (void)state;
    for (k = 0; k < 16; k++)
        out[k] = -7;
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 1, NULL, 0), 16);
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 1, NULL, 16), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 1, out, 0), MESHGEN_ERR_NO_SPACE);
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 1, out, 15), MESHGEN_ERR_NO_SPACE);
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 8, out, 16), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 0x80000000u, out, 16), MESHGEN_ERR_RANGE);
    for (k = 0; k < 16; k++)
        assert_int_equal(out[k], -7);
    /* The reference case's pp groups (test_reference_groups_pp_dp_tp). */
    assert_int_equal(meshgen_axis_groups(&ppdptp.mesh, 1, out, 16), 16);
    for (k = 0; k < 16; k++)
        assert_int_equal(out[k], k % 4 * 4 + k / 4);

    memset(&c, 0x5a, sizeof c);
    before = c;
    assert_int_equal(meshgen_cursor_init(NULL, &ppdptp.mesh, 1), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_cursor_init(&c, NULL, 1), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 8), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 0x80000000u), MESHGEN_ERR_RANGE);
    assert_memory_equal(&c, &before, sizeof c);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 5), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_RUNS);
    for (k = 0; k < 3; k++)
        assert_int_equal(c.reserved[k], 0);
    for (k = 0; k < (int)c.n_runs; k++)
        assert_int_equal(c.runs[k].reserved, 0);
    /* The forms, by where the mask's axes lie in (pp, dp, tp). */
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 0), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_NONE);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 4), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_INNER);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 7), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_INNER);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 1), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_OUTER);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 3), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_OUTER);
    assert_int_equal(meshgen_cursor_init(&c, &ppdptp.mesh, 2), MESHGEN_OK);
    assert_int_equal(c.form, MESHGEN_CURSOR_MIDDLE);
}

/* ---- MPMD stages --------------------------------------------------------------------- */

/* Reference case (docs/reference.md §9, jaxpp MpmdMesh): 16 devices, shape (4,2,1,2,1),
 * names (stage,data,sequence,tensor,expert), mpmd = stage. */
static void test_reference_jaxpp_stages(void **state)
{
    static const int32_t device1[5] = {0, 0, 0, 1, 0};
    int32_t coords[5], devices[16];
    uint32_t within_stage = (uint32_t)meshgen_axes_mask(&jaxpp.mesh, "data,sequence,tensor,expert");
    int s, k, d;

    (void)state;
    assert_int_equal(meshgen_coords_of(&jaxpp.mesh, 1, coords), MESHGEN_OK);
    for (k = 0; k < 5; k++)
        assert_int_equal(coords[k], device1[k]);
    assert_int_equal(meshgen_stage_count(&jaxpp.mesh), 4);
    for (s = 0; s < 4; s++) {
        assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, s, devices, 16), 4);
        for (k = 0; k < 4; k++)
            assert_int_equal(devices[k], 4 * s + k);
    }
    for (d = 0; d < 16; d++)
        assert_int_equal(meshgen_stage_of(&jaxpp.mesh, d), d / 4);
    /* A stage is the group along every axis but the MPMD one. */
    assert_int_equal(within_stage, 0x1e);
    assert_int_equal(meshgen_group_index(&jaxpp.mesh, 9, within_stage, NULL), 2);
}

/* An MPMD axis in the middle: stage devices are strided, in mesh order. */
static void test_stages_inner_axis_and_none(void **state)
{
    struct meshgen_mesh m = ppdptp.mesh;
    int32_t devices[16];
    int k;

    (void)state;
    m.mpmd_axis = 1; /* dp as the stage axis, for the arithmetic only */
    assert_int_equal(meshgen_stage_count(&m), 2);
    assert_int_equal(meshgen_stage_devices(&m, 1, devices, 16), 8);
    {
        static const int32_t expect[8] = {2, 3, 6, 7, 10, 11, 14, 15};

        for (k = 0; k < 8; k++)
            assert_int_equal(devices[k], expect[k]);
    }
    assert_int_equal(meshgen_stage_of(&m, 6), 1);
    assert_int_equal(meshgen_stage_of(&m, 13), 0);

    /* No MPMD axis: one stage, the whole mesh in mesh order. */
    assert_int_equal(meshgen_stage_count(&xy.mesh), 1);
    assert_int_equal(meshgen_stage_of(&xy.mesh, 2), 0);
    assert_int_equal(meshgen_stage_devices(&xy.mesh, 0, devices, 16), 4);
    for (k = 0; k < 4; k++)
        assert_int_equal(devices[k], xy_mesh_devices[k]);
}

static void test_stage_errors(void **state)
{
    int32_t devices[4] = {-7, -7, -7, -7};

    (void)state;
    assert_int_equal(meshgen_stage_of(&jaxpp.mesh, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_stage_of(&jaxpp.mesh, 16), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_stage_of(&xy.mesh, 1), MESHGEN_ERR_NOT_IN_MESH);

    assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, 0, NULL, 0), 4);
    assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, -1, devices, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, 4, devices, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_stage_devices(&xy.mesh, 1, devices, 4), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, 0, NULL, 4), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, 0, devices, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_stage_devices(&jaxpp.mesh, 0, devices, 3), MESHGEN_ERR_NO_SPACE);
    assert_int_equal(devices[0], -7);
}

/* ---- shardings -------------------------------------------------------------------------- */

static void test_sharding_index(void **state)
{
    (void)state;
    assert_int_equal(meshgen_sharding_index(&abc.mesh, "rows_cols"), 0);
    assert_int_equal(meshgen_sharding_index(&abc.mesh, "rows_a"), 2);
    assert_int_equal(meshgen_sharding_index(&abc.mesh, "rows"), MESHGEN_ERR_NO_SHARDING);
    assert_int_equal(meshgen_sharding_index(&abc.mesh, NULL), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_sharding_index(&ppdptp.mesh, "rows_cols"), MESHGEN_ERR_NO_SHARDING);
}

/* Reference case (docs/reference.md §9, NamedSharding.devices_indices_map): mesh
 * (a=2,b=2,c=2), array (8,4), spec [[a,c], b]: device 1 (a0 b0 c1) holds rows
 * 2:4, cols 0:2. */
static void test_reference_shard_rows_cols(void **state)
{
    static const int64_t shape[2] = {8, 4};
    int64_t start[2], size[2];
    int32_t replica = -1;

    (void)state;
    assert_int_equal(meshgen_shard(&abc.mesh, 0, shape, 2, 1, start, size, &replica), MESHGEN_OK);
    assert_int_equal(start[0], 2);
    assert_int_equal(size[0], 2);
    assert_int_equal(start[1], 0);
    assert_int_equal(size[1], 2);
    assert_int_equal(replica, 0);
    /* The spec's own shape gives the same answer. */
    start[0] = start[1] = size[0] = size[1] = -1;
    assert_int_equal(meshgen_shard(&abc.mesh, 0, NULL, 2, 1, start, size, NULL), MESHGEN_OK);
    assert_int_equal(start[0], 2);
    assert_int_equal(size[0], 2);
    assert_int_equal(start[1], 0);
    assert_int_equal(size[1], 2);
}

/* Reference case (docs/reference.md §9): replica ids of [null, [b, c]] are 0,0,0,0,1,1,1,1
 * and of [a] are 0,1,2,3,0,1,2,3. */
static void test_reference_shard_replica_ids(void **state)
{
    static const int64_t shape[2] = {8, 4};
    static const int32_t cols_bc[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    static const int32_t rows_a[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    int64_t start[2], size[2];
    int32_t replica;
    int d;

    (void)state;
    for (d = 0; d < 8; d++) {
        assert_int_equal(meshgen_shard(&abc.mesh, 1, shape, 2, d, start, size, &replica),
                         MESHGEN_OK);
        assert_int_equal(replica, cols_bc[d]);
        assert_int_equal(meshgen_shard(&abc.mesh, 2, shape, 2, d, start, size, &replica),
                         MESHGEN_OK);
        assert_int_equal(replica, rows_a[d]);
        /* [a] leaves dimension 1, past the spec, whole. */
        assert_int_equal(start[0], (d / 4) * 4);
        assert_int_equal(size[0], 4);
        assert_int_equal(start[1], 0);
        assert_int_equal(size[1], 4);
    }
}

/* For each sharding of the reference case, the 8 devices' shards tile the
 * (8,4) array: every element is held by exactly 8 / (shard count) devices,
 * whose replica ids are 0 .. that count - 1, once each. */
static void test_reference_shards_tile_array(void **state)
{
    static const int64_t shape[2] = {8, 4};
    static const int replicas[3] = {1, 2, 4};
    int sharding;

    (void)state;
    for (sharding = 0; sharding < 3; sharding++) {
        int holders[8][4] = {{0}};
        unsigned seen[8][4] = {{0}};
        int d, i, j;

        for (d = 0; d < 8; d++) {
            int64_t start[2], size[2];
            int32_t replica = -1;

            assert_int_equal(meshgen_shard(&abc.mesh, sharding, shape, 2, d, start, size, &replica),
                             MESHGEN_OK);
            assert_true(replica >= 0 && replica < replicas[sharding]);
            assert_true(start[0] >= 0 && start[0] + size[0] <= 8);
            assert_true(start[1] >= 0 && start[1] + size[1] <= 4);
            for (i = (int)start[0]; i < start[0] + size[0]; i++) {
                for (j = (int)start[1]; j < start[1] + size[1]; j++) {
                    assert_false(seen[i][j] & (1u << replica));
                    seen[i][j] |= 1u << replica;
                    holders[i][j]++;
                }
            }
        }
        for (i = 0; i < 8; i++) {
            for (j = 0; j < 4; j++) {
                assert_int_equal(holders[i][j], replicas[sharding]);
                assert_int_equal(seen[i][j], (1u << replicas[sharding]) - 1u);
            }
        }
    }
}

/* A permuted mesh, and array dimensions past the spec. */
static void test_shard_permuted_and_trailing_dims(void **state)
{
    static const int64_t shape[3] = {4, 6, 5};
    int64_t start[3], size[3];
    int32_t replica = -1;
    int d;

    (void)state;
    /* Device 0 sits at (x1, y0): rows by y, columns by x. */
    assert_int_equal(meshgen_shard(&xy.mesh, 0, NULL, 2, 0, start, size, &replica), MESHGEN_OK);
    assert_int_equal(start[0], 0);
    assert_int_equal(size[0], 2);
    assert_int_equal(start[1], 3);
    assert_int_equal(size[1], 3);
    assert_int_equal(replica, 0);
    /* A third dimension, past the spec, is whole. */
    assert_int_equal(meshgen_shard(&xy.mesh, 0, shape, 3, 5, start, size, &replica), MESHGEN_OK);
    assert_int_equal(start[0], 2);
    assert_int_equal(size[0], 2);
    assert_int_equal(start[1], 0);
    assert_int_equal(size[1], 3);
    assert_int_equal(start[2], 0);
    assert_int_equal(size[2], 5);
    /* An empty spec over a rank-0 array needs no start or size; every device
     * holds the whole value, so the replica id is the flat index. */
    for (d = 0; d < 8; d++) {
        replica = -1;
        assert_int_equal(meshgen_shard(&abc.mesh, 3, shape, 0, d, NULL, NULL, &replica),
                         MESHGEN_OK);
        assert_int_equal(replica, d);
    }
    /* Empty dimensions are divisible by anything. */
    {
        static const int64_t empty[2] = {0, 0};

        assert_int_equal(meshgen_shard(&abc.mesh, 0, empty, 2, 7, start, size, NULL), MESHGEN_OK);
        assert_int_equal(size[0], 0);
        assert_int_equal(size[1], 0);
    }
}

/* Shard counts that are not powers of two, and dimensions past 2^32: the
 * division meshgen_shard does by shift, in 32 bits or in 64 (shard.c)
 * gives what the plain 64-bit formula gives, start = index * (global /
 * shards), and finds every remainder. Mesh (x=3, y=2), spec [[x, y], x]
 * would repeat an axis, so three shardings: [x], [[x, y]] and [y, x]. */
static const struct meshgen_sharding_dim three_x_dims[1] = {
    {.n_axes = 1, .axes = {0}, .shards = 3},
};
static const struct meshgen_sharding_dim three_xy_dims[1] = {
    {.n_axes = 2, .axes = {0, 1}, .shards = 6},
};
static const struct meshgen_sharding_dim three_yx_dims[2] = {
    {.n_axes = 1, .axes = {1}, .shards = 2},
    {.n_axes = 1, .axes = {0}, .shards = 3},
};
static const struct meshgen_sharding three_shardings[3] = {
    {.name = "x", .n_dims = 1, .has_shape = 0, .dims = three_x_dims},
    {.name = "xy", .n_dims = 1, .has_shape = 0, .dims = three_xy_dims},
    {.name = "yx", .n_dims = 2, .has_shape = 0, .dims = three_yx_dims},
};

static void test_shard_counts_not_powers_of_two(void **state)
{
    static const struct th_mesh_desc desc = {
        .name = "three",
        .axes = {{"x", 3, 1}, {"y", 2, 1}},
        .hosts = {{"node0", 6, gpu8_devices, NULL}},
        .n_shardings = 3,
        .shardings = three_shardings,
    };
    /* Dimension sizes: small, at and past 2^32, powers of two and not. */
    static const int64_t sizes[] = {0,
                                    6,
                                    9,
                                    12,
                                    7,
                                    (int64_t)1 << 32,
                                    ((int64_t)1 << 32) + 2,
                                    3 * ((int64_t)1 << 33),
                                    3 * ((int64_t)1 << 33) + 3,
                                    3 * ((int64_t)1 << 33) + 1,
                                    (int64_t)1 << 40,
                                    INT64_MAX - 1};
    static struct th_mesh three;
    int sharding, d, i, j;

    (void)state;
    th_mesh_init(&three, &desc);
    assert_int_equal(meshgen_mesh_check(&three.mesh), MESHGEN_OK);
    for (sharding = 0; sharding < 3; sharding++) {
        const struct meshgen_sharding *s = &three.mesh.shardings[sharding];

        for (i = 0; i < (int)(sizeof sizes / sizeof sizes[0]); i++) {
            for (j = 0; j < (int)(sizeof sizes / sizeof sizes[0]); j++) {
                int64_t shape[2] = {sizes[i], sizes[j]};
                int divisible = shape[0] % s->dims[0].shards == 0 &&
                                (s->n_dims < 2 || shape[1] % s->dims[1].shards == 0);

                for (d = 0; d < 6; d++) {
                    int64_t start[2] = {-7, -7}, size[2] = {-7, -7};
                    int32_t coords[2], k;
                    int rc = meshgen_shard(&three.mesh, sharding, shape, 2, d, start, size, NULL);

                    if (!divisible) {
                        assert_int_equal(rc, MESHGEN_ERR_INDIVISIBLE);
                        assert_int_equal(start[0], -7);
                        assert_int_equal(size[1], -7);
                        continue;
                    }
                    assert_int_equal(rc, MESHGEN_OK);
                    assert_int_equal(meshgen_coords_of(&three.mesh, d, coords), MESHGEN_OK);
                    for (k = 0; k < 2; k++) {
                        int64_t index = 0, shards = 1;
                        int a;

                        if (k < s->n_dims) {
                            for (a = 0; a < s->dims[k].n_axes; a++)
                                index = index * three.mesh.axes[s->dims[k].axes[a]].size +
                                        coords[s->dims[k].axes[a]];
                            shards = s->dims[k].shards;
                        }
                        assert_true(size[k] == shape[k] / shards);
                        assert_true(start[k] == index * (shape[k] / shards));
                    }
                }
            }
        }
    }
}

static void test_shard_errors(void **state)
{
    static const int64_t shape[2] = {8, 4};
    static const int64_t odd_rows[2] = {6, 4};
    static const int64_t odd_cols[2] = {8, 3};
    static const int64_t negative[2] = {8, -4};
    int64_t start[2] = {-7, -7}, size[2] = {-7, -7};
    int32_t replica = -7;
    const struct meshgen_mesh *m = &abc.mesh;

    (void)state;
    assert_int_equal(meshgen_shard(m, -1, shape, 2, 0, start, size, &replica),
                     MESHGEN_ERR_NO_SHARDING);
    assert_int_equal(meshgen_shard(m, 4, shape, 2, 0, start, size, &replica),
                     MESHGEN_ERR_NO_SHARDING);
    assert_int_equal(meshgen_shard(m, 0, shape, 2, 0, NULL, size, &replica), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_shard(m, 0, shape, 2, 0, start, NULL, &replica), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_shard(m, 2, shape, 1, 0, NULL, size, &replica), MESHGEN_ERR_NULL);
    /* Fewer dimensions than the spec. */
    assert_int_equal(meshgen_shard(m, 0, shape, 1, 0, start, size, &replica), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_shard(m, 2, shape, -1, 0, start, size, &replica), MESHGEN_ERR_RANGE);
    /* No shape anywhere, or more dimensions than the spec's shape. */
    assert_int_equal(meshgen_shard(m, 1, NULL, 2, 0, start, size, &replica), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_shard(m, 0, NULL, 3, 0, start, size, &replica), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_shard(m, 0, negative, 2, 0, start, size, &replica), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_shard(m, 0, odd_rows, 2, 0, start, size, &replica),
                     MESHGEN_ERR_INDIVISIBLE);
    assert_int_equal(meshgen_shard(m, 0, odd_cols, 2, 0, start, size, &replica),
                     MESHGEN_ERR_INDIVISIBLE);
    /* [a] leaves an odd trailing dimension alone: that is not an error. */
    assert_int_equal(meshgen_shard(m, 2, odd_cols, 2, 0, start, size, NULL), MESHGEN_OK);
    start[0] = start[1] = size[0] = size[1] = -7;
    assert_int_equal(meshgen_shard(m, 0, shape, 2, -1, start, size, &replica), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_shard(m, 0, shape, 2, 8, start, size, &replica), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_shard(&xy.mesh, 0, NULL, 2, 1, start, size, &replica),
                     MESHGEN_ERR_NOT_IN_MESH);
    /* Nothing was written by any failing call. */
    assert_int_equal(start[0], -7);
    assert_int_equal(start[1], -7);
    assert_int_equal(size[0], -7);
    assert_int_equal(size[1], -7);
    assert_int_equal(replica, -7);
}

/* ---- processes ---------------------------------------------------------------------------- */

/* The process meshgen_process_from_vars finds for vars, or its error. */
static int process_in(const struct meshgen_mesh *mesh, const char *const *vars)
{
    int32_t p = -7;
    int rc = meshgen_process_from_vars(mesh, th_lookup, (void *)vars, &p);

    if (rc != MESHGEN_OK) {
        /* Nothing is written on error. */
        assert_int_equal(p, -7);
        return rc;
    }
    return p;
}

/* The host meshgen_host_from_vars finds for vars, or its error. */
static int host_in(const struct meshgen_mesh *mesh, const char *const *vars)
{
    char name[64];

    return meshgen_host_from_vars(mesh, th_lookup, (void *)vars, name, sizeof name);
}

static void test_host_by_name(void **state)
{
    static const char *const exact[] = {"MESHGEN_HOSTNAME=node1", NULL};
    static const char *const qualified[] = {"MESHGEN_HOSTNAME=node1.cluster.example", NULL};
    static const char *const slurm[] = {"SLURMD_NODENAME=node1", NULL};
    static const char *const both[] = {"SLURMD_NODENAME=node1", "MESHGEN_HOSTNAME=node0", NULL};
    static const char *const unknown[] = {"MESHGEN_HOSTNAME=node2", "SLURMD_NODENAME=node1", NULL};
    static const char *const empty[] = {"MESHGEN_HOSTNAME=", "SLURMD_NODENAME=node1", NULL};
    static const char *const prefix[] = {"MESHGEN_HOSTNAME=node", NULL};
    struct th_mesh dotted, local;
    char name[8];

    (void)state;
    assert_int_equal(host_in(&ppdptp.mesh, exact), 1);
    /* Up to the first dot on both sides. */
    assert_int_equal(host_in(&ppdptp.mesh, qualified), 1);
    assert_int_equal(host_in(&ppdptp.mesh, slurm), 1);
    /* MESHGEN_HOSTNAME before SLURMD_NODENAME, even when it names no host. */
    assert_int_equal(host_in(&ppdptp.mesh, both), 0);
    assert_int_equal(host_in(&ppdptp.mesh, unknown), MESHGEN_ERR_NO_HOST);
    assert_int_equal(host_in(&ppdptp.mesh, empty), MESHGEN_ERR_BAD_ENV);
    assert_int_equal(host_in(&ppdptp.mesh, prefix), MESHGEN_ERR_NO_HOST);
    /* A host the tables do not list is an error even for one host... */
    assert_int_equal(host_in(&abc.mesh, unknown), MESHGEN_ERR_NO_HOST);
    /* ...unless that host is a synthetic inventory's "localhost". */
    th_mesh_init(&local, &abc_desc);
    local.hosts[0].name = "localhost";
    assert_int_equal(host_in(&local.mesh, unknown), 0);

    /* Hosts that share a short name: the full name tells them apart, the
     * short one fits both and names neither. */
    th_mesh_init(&dotted, &ppdptp_desc);
    dotted.hosts[0].name = "gpu001.rack-a";
    dotted.hosts[1].name = "gpu001.rack-b";
    {
        static const char *const a[] = {"MESHGEN_HOSTNAME=gpu001.rack-b", NULL};
        static const char *const short_name[] = {"MESHGEN_HOSTNAME=gpu001", NULL};
        static const char *const other[] = {"MESHGEN_HOSTNAME=gpu001.rack-c", NULL};

        assert_int_equal(host_in(&dotted.mesh, a), 1);
        assert_int_equal(host_in(&dotted.mesh, short_name), MESHGEN_ERR_NO_HOST);
        assert_int_equal(host_in(&dotted.mesh, other), MESHGEN_ERR_NO_HOST);
    }

    /* The name read is given back, found or not, cut to the buffer. */
    memset(name, 'x', sizeof name);
    assert_int_equal(meshgen_host_from_vars(&ppdptp.mesh, th_lookup, (void *)unknown, name, 8),
                     MESHGEN_ERR_NO_HOST);
    assert_string_equal(name, "node2");
    assert_int_equal(meshgen_host_from_vars(&ppdptp.mesh, th_lookup, (void *)qualified, name, 8),
                     1);
    assert_string_equal(name, "node1.c");
    assert_int_equal(meshgen_host_from_vars(&ppdptp.mesh, th_lookup, (void *)empty, name, 8),
                     MESHGEN_ERR_BAD_ENV);
    assert_string_equal(name, "");
    assert_int_equal(meshgen_host_from_vars(&ppdptp.mesh, th_lookup, (void *)exact, NULL, 0), 1);
    assert_int_equal(meshgen_host_from_vars(&ppdptp.mesh, th_lookup, (void *)exact, NULL, 8),
                     MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_host_from_vars(&ppdptp.mesh, NULL, NULL, name, 8), MESHGEN_ERR_NULL);
}

/*
 * Host names follow one rule (docs/reference.md §2, "Host names"): a
 * variable that holds no host name is refused, names match whatever the
 * case of their ASCII letters, and a name that starts with a dot is the
 * short name of none, so a host ".a" (which the generator refuses) never
 * stands for a machine ".b".
 */
static void test_host_name_rule(void **state)
{
    static const char *const dot_b[] = {"MESHGEN_HOSTNAME=.b", NULL};
    static const char *const dot_a_slurm[] = {"SLURMD_NODENAME=.a", NULL};
    static const char *const upper[] = {"MESHGEN_HOSTNAME=NODE1.Cluster", NULL};
    static const char *const space[] = {"MESHGEN_HOSTNAME=node 1", NULL};
    static const char *const dots[] = {"MESHGEN_HOSTNAME=node1..x", NULL};
    static const char *const trailing[] = {"MESHGEN_HOSTNAME=node1.", NULL};
    static const char *const underscore[] = {"MESHGEN_HOSTNAME=Node_1", NULL};
    char long_var[300] = "MESHGEN_HOSTNAME=", name[300];
    const char *long_name[2] = {long_var, NULL};
    struct meshgen_host hosts[2];
    struct meshgen_mesh m = ppdptp.mesh;
    size_t n = strlen(long_var);

    (void)state;
    memcpy(hosts, ppdptp.hosts, sizeof hosts);
    hosts[0].name = ".a";
    hosts[1].name = "node_1";
    m.hosts = hosts;
    /* A name that starts with a dot is no host name... */
    assert_int_equal(host_in(&m, dot_b), MESHGEN_ERR_BAD_ENV);
    assert_int_equal(host_in(&m, dot_a_slurm), MESHGEN_ERR_BAD_ENV);
    /* ...and the one read is given back. */
    assert_int_equal(meshgen_host_from_vars(&m, th_lookup, (void *)dot_b, name, sizeof name),
                     MESHGEN_ERR_BAD_ENV);
    assert_string_equal(name, ".b");
    assert_int_equal(host_in(&m, space), MESHGEN_ERR_BAD_ENV);
    assert_int_equal(host_in(&m, dots), MESHGEN_ERR_BAD_ENV);
    assert_int_equal(host_in(&m, trailing), MESHGEN_ERR_BAD_ENV);
    assert_int_equal(host_in(&m, underscore), 1);
    /* DNS compares names without case, whole or up to the first dot. */
    assert_int_equal(host_in(&ppdptp.mesh, upper), 1);
    /* 255 bytes is a host name, 256 is not. */
    memset(long_var + n, 'a', 255);
    long_var[n + 255] = '\0';
    assert_int_equal(host_in(&m, long_name), MESHGEN_ERR_NO_HOST);
    long_var[n + 255] = 'a';
    long_var[n + 256] = '\0';
    assert_int_equal(host_in(&m, long_name), MESHGEN_ERR_BAD_ENV);
}

/* Without either variable the kernel's host name is this machine's. */
static void test_host_from_gethostname(void **state)
{
    static const char *const none[] = {"SLURM_LOCALID=0", NULL};
    char expected[256] = "", name[256];
    struct meshgen_host named[2];
    struct meshgen_mesh m = ppdptp.mesh;
    size_t n;

    (void)state;
    assert_int_equal(gethostname(expected, sizeof expected - 1), 0);
    assert_true(expected[0] != '\0');
    assert_int_equal(meshgen_host_from_vars(&m, th_lookup, (void *)none, name, sizeof name),
                     MESHGEN_ERR_NO_HOST);
    assert_string_equal(name, expected);
    /* A host called like this machine, up to the first dot, is found. */
    memcpy(named, ppdptp.hosts, sizeof named);
    n = strcspn(expected, ".");
    expected[n] = '\0';
    named[1].name = expected;
    m.hosts = named;
    assert_int_equal(meshgen_host_from_vars(&m, th_lookup, (void *)none, name, sizeof name), 1);
}

/* The variables of each launcher, as its own sources name them (the table of
 * docs/reference.md): rank on this host, count on this host (NULL when the
 * launcher sets none), count in all. */
struct launcher_vars {
    const char *launcher, *local_rank, *local_size, *world_size;
};

static const struct launcher_vars launcher_vars[] = {
    {"torchrun", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "WORLD_SIZE"},
    {"Open MPI", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
     "OMPI_COMM_WORLD_SIZE"},
    {"MPICH Hydra", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_SIZE"},
    {"Cray PALS", "PALS_LOCAL_RANKID", "PALS_LOCAL_SIZE", "PMI_SIZE"},
    {"Flux", "FLUX_TASK_LOCAL_ID", NULL, "FLUX_JOB_SIZE"},
    {"Slurm", "SLURM_LOCALID", NULL, "SLURM_NTASKS"},
    {"Slurm, older name", "SLURM_LOCALID", NULL, "SLURM_NPROCS"},
};

/* Builds "NAME=value" strings for one launcher into vars (room for 5). */
static void launch(const struct launcher_vars *l, const char *host, const char *local,
                   const char *local_size, const char *world, char text[4][64], const char *vars[5])
{
    int n = 0;

    snprintf(text[0], 64, "MESHGEN_HOSTNAME=%s", host);
    vars[n++] = text[0];
    snprintf(text[1], 64, "%s=%s", l->local_rank, local);
    vars[n++] = text[1];
    if (l->local_size != NULL && local_size != NULL) {
        snprintf(text[2], 64, "%s=%s", l->local_size, local_size);
        vars[n++] = text[2];
    }
    if (world != NULL) {
        snprintf(text[3], 64, "%s=%s", l->world_size, world);
        vars[n++] = text[3];
    }
    vars[n] = NULL;
}

/* Every launcher by its own variables, over 2 hosts x 8 processes: the
 * process is the host's k-th for local rank k, and the counts are checked. */
static void test_process_every_launcher(void **state)
{
    char text[4][64];
    const char *vars[5];
    int i;

    (void)state;
    for (i = 0; i < COUNT(launcher_vars); i++) {
        const struct launcher_vars *l = &launcher_vars[i];

        print_message("%s\n", l->launcher);
        launch(l, "node1", "3", "8", "16", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), 11);
        launch(l, "node0.cluster.example", "7", "8", "16", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), 7);
        launch(l, "node1", "0", NULL, NULL, text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), 8);
        /* A job of another size than the mesh's is an error, in all... */
        launch(l, "node1", "3", "8", "15", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), MESHGEN_ERR_PROCESS_COUNT);
        launch(l, "node1", "3", NULL, "32", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), MESHGEN_ERR_PROCESS_COUNT);
        /* ...and, where the launcher says, on this host. */
        launch(l, "node1", "3", "4", "16", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars),
                         l->local_size != NULL ? MESHGEN_ERR_PROCESS_COUNT : 11);
        /* A local rank past the host's processes, or not a number. */
        launch(l, "node1", "8", NULL, "16", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), MESHGEN_ERR_LOCAL_RANK);
        launch(l, "node1", "-1", "8", "16", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), MESHGEN_ERR_BAD_ENV);
        launch(l, "node1", "3", "8", "16 ", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), MESHGEN_ERR_BAD_ENV);
        /* A host the tables do not list: never a guess. */
        launch(l, "node2", "3", "8", "16", text, vars);
        assert_int_equal(process_in(&ppdptp.mesh, vars), MESHGEN_ERR_NO_HOST);
    }
}

/*
 * The case of the issue: Open MPI `--map-by node` over two hosts puts ranks
 * 0, 2, 4... on the first and 1, 3, 5... on the second. Global rank 1 runs
 * on node1 as its local rank 0: it is process 8, not process 1, whose device
 * is on node0.
 */
static void test_process_map_by_node(void **state)
{
    static const char *const rank1[] = {
        "MESHGEN_HOSTNAME=node1",       "OMPI_COMM_WORLD_RANK=1",  "OMPI_COMM_WORLD_LOCAL_RANK=0",
        "OMPI_COMM_WORLD_LOCAL_SIZE=8", "OMPI_COMM_WORLD_SIZE=16", NULL};
    static const char *const rank6[] = {
        "MESHGEN_HOSTNAME=node0",       "OMPI_COMM_WORLD_RANK=6",  "OMPI_COMM_WORLD_LOCAL_RANK=3",
        "OMPI_COMM_WORLD_LOCAL_SIZE=8", "OMPI_COMM_WORLD_SIZE=16", NULL};
    int32_t devices[1];
    int p;

    (void)state;
    p = process_in(&ppdptp.mesh, rank1);
    assert_int_equal(p, 8);
    assert_int_equal(meshgen_process_devices(&ppdptp.mesh, p, devices, 1), 1);
    assert_int_equal(meshgen_device_host(&ppdptp.mesh, devices[0]), 1);
    assert_int_equal(process_in(&ppdptp.mesh, rank6), 3);
}

/* Launchers inside launchers: the innermost describes the process, and the
 * outer one's variables are not even read. */
static void test_process_nested_launchers(void **state)
{
    /* torchrun under srun: one torchrun agent per node (2 Slurm tasks),
     * 8 workers each. */
    static const char *const torchrun_in_srun[] = {"SLURMD_NODENAME=node1",
                                                   "SLURM_PROCID=1",
                                                   "SLURM_LOCALID=0",
                                                   "SLURM_NTASKS=2",
                                                   "RANK=13",
                                                   "LOCAL_RANK=5",
                                                   "LOCAL_WORLD_SIZE=8",
                                                   "WORLD_SIZE=16",
                                                   "GROUP_RANK=1",
                                                   NULL};
    /* mpirun in a Slurm allocation: Open MPI started its daemons with srun
     * (one task per node), and the ranks inherit the daemon's SLURM_*. */
    static const char *const mpirun_in_salloc[] = {"SLURMD_NODENAME=node1",
                                                   "SLURM_LOCALID=0",
                                                   "SLURM_NTASKS=2",
                                                   "SLURM_NPROCS=2",
                                                   "OMPI_COMM_WORLD_RANK=5",
                                                   "OMPI_COMM_WORLD_LOCAL_RANK=2",
                                                   "OMPI_COMM_WORLD_LOCAL_SIZE=8",
                                                   "OMPI_COMM_WORLD_SIZE=16",
                                                   NULL};
    /* ...and in the batch script's own step, whose values are stale. */
    static const char *const mpirun_in_sbatch[] = {
        "MESHGEN_HOSTNAME=node0",       "SLURM_LOCALID=garbage",   "SLURM_NTASKS=1",
        "OMPI_COMM_WORLD_LOCAL_RANK=6", "OMPI_COMM_WORLD_SIZE=16", NULL};
    /* torchrun started by mpirun, one agent per node. */
    static const char *const torchrun_in_mpirun[] = {
        "MESHGEN_HOSTNAME=node0", "OMPI_COMM_WORLD_LOCAL_RANK=0",
        "OMPI_COMM_WORLD_SIZE=2", "LOCAL_RANK=4",
        "WORLD_SIZE=16",          NULL};
    /* A Flux instance started by srun: Flux unsets SLURM_*, but even if
     * they leaked, Flux's task id decides. */
    static const char *const flux_in_srun[] = {"MESHGEN_HOSTNAME=node1", "SLURM_LOCALID=0",
                                               "SLURM_NTASKS=2",         "FLUX_TASK_LOCAL_ID=7",
                                               "FLUX_JOB_SIZE=16",       NULL};
    /* mpirun on a PALS system: Open MPI's daemons were started by PALS. */
    static const char *const mpirun_in_pals[] = {"MESHGEN_HOSTNAME=node1",
                                                 "PALS_LOCAL_RANKID=0",
                                                 "PALS_LOCAL_SIZE=1",
                                                 "PMI_SIZE=2",
                                                 "OMPI_COMM_WORLD_LOCAL_RANK=1",
                                                 "OMPI_COMM_WORLD_SIZE=16",
                                                 NULL};
    /* Hydra's mpiexec in a Slurm allocation. */
    static const char *const hydra_in_salloc[] = {"SLURMD_NODENAME=node0",
                                                  "SLURM_LOCALID=0",
                                                  "SLURM_NTASKS=2",
                                                  "MPI_LOCALRANKID=5",
                                                  "MPI_LOCALNRANKS=8",
                                                  "PMI_SIZE=16",
                                                  NULL};

    (void)state;
    assert_int_equal(process_in(&ppdptp.mesh, torchrun_in_srun), 13);
    assert_int_equal(process_in(&ppdptp.mesh, mpirun_in_salloc), 10);
    assert_int_equal(process_in(&ppdptp.mesh, mpirun_in_sbatch), 6);
    assert_int_equal(process_in(&ppdptp.mesh, torchrun_in_mpirun), 4);
    assert_int_equal(process_in(&ppdptp.mesh, flux_in_srun), 15);
    assert_int_equal(process_in(&ppdptp.mesh, mpirun_in_pals), 9);
    assert_int_equal(process_in(&ppdptp.mesh, hydra_in_salloc), 5);
    /* Had the outer launcher decided, the counts would have disagreed. */
    {
        static const char *const srun_alone[] = {"SLURMD_NODENAME=node1", "SLURM_LOCALID=0",
                                                 "SLURM_NTASKS=2", NULL};

        assert_int_equal(process_in(&ppdptp.mesh, srun_alone), MESHGEN_ERR_PROCESS_COUNT);
    }
}

/* `processes: device` needs a local rank: a global rank alone is not trusted. */
static void test_process_needs_local_rank(void **state)
{
    static const char *const global_only[] = {"MESHGEN_HOSTNAME=node1",
                                              "OMPI_COMM_WORLD_RANK=9",
                                              "SLURM_PROCID=9",
                                              "RANK=9",
                                              "PMI_RANK=9",
                                              "PMIX_RANK=9",
                                              NULL};
    static const char *const nothing[] = {NULL};
    int rc;

    (void)state;
    assert_int_equal(process_in(&ppdptp.mesh, global_only), MESHGEN_ERR_NO_ENV);
    /* With no variable at all, gethostname() names this machine, which is
     * node0 or node1 only by chance: either way no process is chosen. */
    rc = process_in(&ppdptp.mesh, nothing);
    assert_true(rc == MESHGEN_ERR_NO_HOST || rc == MESHGEN_ERR_NO_ENV);
}

/* `processes: host` (JAX): the host decides; a second process on it does
 * not fit. xy.mesh's host cpu0 has no devices and so no process. */
static void test_process_per_host(void **state)
{
    static const char *const node1[] = {"MESHGEN_HOSTNAME=node1", NULL};
    static const char *const node0[] = {"MESHGEN_HOSTNAME=node0.example", NULL};
    static const char *const cpu0[] = {"MESHGEN_HOSTNAME=cpu0", NULL};
    static const char *const srun[] = {"SLURMD_NODENAME=node1", "SLURM_LOCALID=0", "SLURM_NTASKS=2",
                                       NULL};
    static const char *const second[] = {"MESHGEN_HOSTNAME=node0", "OMPI_COMM_WORLD_LOCAL_RANK=1",
                                         NULL};
    static const char *const too_many[] = {"SLURMD_NODENAME=node1", "SLURM_LOCALID=0",
                                           "SLURM_NTASKS=4", NULL};
    static const char *const two_here[] = {"MESHGEN_HOSTNAME=node1", "LOCAL_RANK=0",
                                           "LOCAL_WORLD_SIZE=2", NULL};

    (void)state;
    assert_int_equal(process_in(&xy.mesh, node1), 1);
    assert_int_equal(process_in(&xy.mesh, node0), 0);
    assert_int_equal(process_in(&xy.mesh, cpu0), MESHGEN_ERR_LOCAL_RANK);
    assert_int_equal(process_in(&xy.mesh, srun), 1);
    assert_int_equal(process_in(&xy.mesh, second), MESHGEN_ERR_LOCAL_RANK);
    assert_int_equal(process_in(&xy.mesh, too_many), MESHGEN_ERR_PROCESS_COUNT);
    assert_int_equal(process_in(&xy.mesh, two_here), MESHGEN_ERR_PROCESS_COUNT);
}

/* MESHGEN_PROCESS is the answer: no host, no launcher is consulted. */
static void test_process_explicit(void **state)
{
    static const char *const malformed[] = {
        "", "-1", "+1", " 1", "1 ", "1x", "0x1", "1.0", "99999999999", "2147483648",
    };
    static const char *const chosen[] = {"MESHGEN_PROCESS=015", "MESHGEN_HOSTNAME=nowhere",
                                         "OMPI_COMM_WORLD_LOCAL_RANK=x", "WORLD_SIZE=3", NULL};
    static const char *const past[] = {"MESHGEN_PROCESS=16", "MESHGEN_HOSTNAME=node0", NULL};
    static const char *const huge[] = {"MESHGEN_PROCESS=2147483647", NULL};
    static const char *const xy_one[] = {"MESHGEN_PROCESS=1", NULL};
    static const char *const xy_past[] = {"MESHGEN_PROCESS=2", NULL};
    char text[64];
    const char *vars[2] = {text, NULL};
    int32_t p = -7;
    int i;

    (void)state;
    /* Leading zeros are still plain decimal. */
    assert_int_equal(process_in(&ppdptp.mesh, chosen), 15);
    assert_int_equal(process_in(&ppdptp.mesh, past), MESHGEN_ERR_RANGE);
    assert_int_equal(process_in(&ppdptp.mesh, huge), MESHGEN_ERR_RANGE);
    assert_int_equal(process_in(&xy.mesh, xy_one), 1);
    assert_int_equal(process_in(&xy.mesh, xy_past), MESHGEN_ERR_RANGE);
    for (i = 0; i < COUNT(malformed); i++) {
        snprintf(text, sizeof text, "MESHGEN_PROCESS=%s", malformed[i]);
        if (process_in(&ppdptp.mesh, vars) != MESHGEN_ERR_BAD_ENV)
            fail_msg("MESHGEN_PROCESS=\"%s\" was accepted", malformed[i]);
    }
    assert_int_equal(meshgen_process_from_vars(&ppdptp.mesh, th_lookup, (void *)chosen, NULL),
                     MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_from_vars(&ppdptp.mesh, NULL, NULL, &p), MESHGEN_ERR_NULL);
    assert_int_equal(p, -7);
}

/* Tables no checked mesh has are refused, not read through. */
static void test_process_unchecked_tables(void **state)
{
    static const char *const vars[] = {"MESHGEN_HOSTNAME=node0", "LOCAL_RANK=0", NULL};
    struct meshgen_host hosts[3];
    struct meshgen_mesh m = xy.mesh;

    (void)state;
    memcpy(hosts, xy.hosts, sizeof hosts);
    hosts[1].name = NULL;
    m.hosts = hosts;
    assert_int_equal(process_in(&m, vars), MESHGEN_ERR_CORRUPT);
    assert_int_equal(host_in(&m, vars), MESHGEN_ERR_CORRUPT);
    m = xy.mesh;
    m.n_hosts = 0;
    assert_int_equal(process_in(&m, vars), MESHGEN_ERR_CORRUPT);
    m = xy.mesh;
    m.processes = NULL;
    assert_int_equal(process_in(&m, vars), MESHGEN_ERR_CORRUPT);
}

/* The real environment: the *_from_env functions read what getenv() reads. */
static void clear_launcher_env(void)
{
    static const char *const names[] = {
        "MESHGEN_PROCESS",
        "MESHGEN_HOSTNAME",
        "SLURMD_NODENAME",
        "LOCAL_RANK",
        "LOCAL_WORLD_SIZE",
        "WORLD_SIZE",
        "OMPI_COMM_WORLD_LOCAL_RANK",
        "OMPI_COMM_WORLD_LOCAL_SIZE",
        "OMPI_COMM_WORLD_SIZE",
        "MPI_LOCALRANKID",
        "MPI_LOCALNRANKS",
        "PMI_SIZE",
        "PALS_LOCAL_RANKID",
        "PALS_LOCAL_SIZE",
        "FLUX_TASK_LOCAL_ID",
        "FLUX_JOB_SIZE",
        "SLURM_LOCALID",
        "SLURM_NTASKS",
        "SLURM_NPROCS",
    };
    int i;

    for (i = 0; i < COUNT(names); i++)
        unsetenv(names[i]);
}

static void test_process_from_env(void **state)
{
    int32_t p = -1;
    char name[64];

    (void)state;
    clear_launcher_env();
    setenv("MESHGEN_HOSTNAME", "node1", 1);
    assert_int_equal(meshgen_process_from_env(&ppdptp.mesh, &p), MESHGEN_ERR_NO_ENV);
    assert_int_equal(p, -1);
    assert_int_equal(meshgen_host_from_env(&ppdptp.mesh, name, sizeof name), 1);
    assert_string_equal(name, "node1");

    setenv("SLURM_LOCALID", "0", 1);
    setenv("SLURM_NTASKS", "2", 1);
    assert_int_equal(meshgen_process_from_env(&ppdptp.mesh, &p), MESHGEN_ERR_PROCESS_COUNT);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "16", 1);
    assert_int_equal(meshgen_process_from_env(&ppdptp.mesh, &p), MESHGEN_OK);
    assert_int_equal(p, 10);
    setenv("LOCAL_RANK", "5", 1);
    assert_int_equal(meshgen_process_from_env(&ppdptp.mesh, &p), MESHGEN_OK);
    assert_int_equal(p, 13);
    setenv("MESHGEN_PROCESS", "0", 1);
    assert_int_equal(meshgen_process_from_env(&ppdptp.mesh, &p), MESHGEN_OK);
    assert_int_equal(p, 0);
    clear_launcher_env();
}

static void test_process_devices_and_of(void **state)
{
    static const int owner[6] = {0, MESHGEN_ERR_NOT_IN_MESH, 0, MESHGEN_ERR_NOT_IN_MESH, 1, 1};
    int32_t devices[8];
    int d;

    (void)state;
    assert_int_equal(meshgen_process_devices(&xy.mesh, 0, devices, 8), 2);
    assert_int_equal(devices[0], 0);
    assert_int_equal(devices[1], 2);
    assert_int_equal(meshgen_process_devices(&xy.mesh, 1, devices, 2), 2);
    assert_int_equal(devices[0], 4);
    assert_int_equal(devices[1], 5);
    for (d = 0; d < 6; d++)
        assert_int_equal(meshgen_process_of(&xy.mesh, d), owner[d]);
    for (d = 0; d < 16; d++) {
        assert_int_equal(meshgen_process_of(&ppdptp.mesh, d), d);
        assert_int_equal(meshgen_process_devices(&ppdptp.mesh, d, devices, 1), 1);
        assert_int_equal(devices[0], d);
    }
    assert_int_equal(meshgen_process_devices(&abc.mesh, 0, devices, 8), 8);
    for (d = 0; d < 8; d++)
        assert_int_equal(devices[d], d);
}

static void test_process_errors(void **state)
{
    int32_t devices[2] = {-7, -7};

    (void)state;
    assert_int_equal(meshgen_process_devices(&xy.mesh, 0, NULL, 0), 2);
    assert_int_equal(meshgen_process_devices(&xy.mesh, 0, NULL, 2), MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_devices(&xy.mesh, 0, devices, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_process_devices(&xy.mesh, 0, devices, 1), MESHGEN_ERR_NO_SPACE);
    assert_int_equal(devices[0], -7);
    assert_int_equal(meshgen_process_devices(&xy.mesh, -1, devices, 2), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_process_devices(&xy.mesh, 2, devices, 2), MESHGEN_ERR_RANGE);

    assert_int_equal(meshgen_process_of(&xy.mesh, -1), MESHGEN_ERR_RANGE);
    assert_int_equal(meshgen_process_of(&xy.mesh, 6), MESHGEN_ERR_RANGE);
}

/*
 * A mesh that fails meshgen_mesh_check must still not make the other
 * functions index out of bounds through the table values they guard (run
 * under ASan, an overrun here is a failure even when the result is right).
 */
static void test_unchecked_mesh_guards(void **state)
{
    static const int64_t shape[2] = {4, 6};
    int32_t coords[2], out[4];
    int64_t start[2], size[2];
    struct th_mesh s;
    struct meshgen_cursor cursor;
    uint32_t mask;

    (void)state;
    scratch_init(&s);
    s.device_index[1] = 4; /* one past the last flat index */
    assert_int_equal(meshgen_coords_of(&s.mesh, 1, coords), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group(&s.mesh, 1, 1, out, 4), MESHGEN_ERR_CORRUPT);

    /* Sizes (1, 3) that multiply to less than the 4 positions: device 2 at
     * flat index 3 would have coordinates (1, 0), outside the mesh, and a
     * group along y running to flat index 5, past the table. */
    scratch_init(&s);
    s.axes[0].size = 1;
    s.axes[1].size = 3;
    coords[0] = coords[1] = -7;
    assert_int_equal(meshgen_coords_of(&s.mesh, 2, coords), MESHGEN_ERR_CORRUPT);
    assert_int_equal(coords[0], -7);
    assert_int_equal(coords[1], -7);
    assert_int_equal(meshgen_group(&s.mesh, 2, 2, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group(&s.mesh, 2, 3, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group_index(&s.mesh, 2, 3, NULL), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_stage_of(&s.mesh, 2), MESHGEN_ERR_CORRUPT);
    /* Every group at once, and the cursor, need sizes that multiply to
     * exactly n_devices: any other product is CORRUPT, whatever the mask,
     * and nothing is written. */
    out[0] = -7;
    for (mask = 0; mask < 4; mask++) {
        assert_int_equal(meshgen_axis_groups(&s.mesh, mask, out, 4), MESHGEN_ERR_CORRUPT);
        assert_int_equal(meshgen_cursor_init(&cursor, &s.mesh, mask), MESHGEN_ERR_CORRUPT);
    }
    assert_int_equal(out[0], -7);
    s.axes[0].size = 2;
    s.axes[1].size = 4;
    assert_int_equal(meshgen_axis_groups(&s.mesh, 1, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_cursor_init(&cursor, &s.mesh, 1), MESHGEN_ERR_CORRUPT);
    s.axes[0].size = 4;
    s.axes[1].size = 0;
    assert_int_equal(meshgen_axis_groups(&s.mesh, 1, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_cursor_init(&cursor, &s.mesh, 1), MESHGEN_ERR_CORRUPT);
    s.axes[1].size = -1;
    assert_int_equal(meshgen_axis_groups(&s.mesh, 1, out, 4), MESHGEN_ERR_CORRUPT);
    s.axes[0].size = 1;
    s.axes[1].size = 1;
    s.mesh.n_devices = 1;
    assert_int_equal(meshgen_axis_groups(&s.mesh, 1, out, 4), 1);
    s.mesh.n_devices = 0;
    assert_int_equal(meshgen_axis_groups(&s.mesh, 1, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_cursor_init(&cursor, &s.mesh, 1), MESHGEN_ERR_CORRUPT);
    s.mesh.n_devices = 4;
    s.axes[0].size = 1;
    s.axes[1].size = 3;
    /* Sizes whose product passes n_devices, and sizes of 0 (no division by
     * them). The outermost axis takes its stride from n_devices, and its
     * group must still stop at the table's end: with sizes (3, 1), flat
     * index 3's group along x would run to flat index 5. */
    s.axes[1].size = 5;
    assert_int_equal(meshgen_group(&s.mesh, 0, 2, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group_index(&s.mesh, 0, 2, NULL), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group(&s.mesh, 0, 0, out, 4), MESHGEN_ERR_CORRUPT);
    s.axes[0].size = 5;
    s.axes[1].size = 1;
    assert_int_equal(meshgen_group(&s.mesh, 0, 1, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group_index(&s.mesh, 0, 1, NULL), MESHGEN_ERR_CORRUPT);
    s.axes[0].size = 3;
    assert_int_equal(meshgen_group(&s.mesh, 2, 1, out, 4), MESHGEN_ERR_CORRUPT);
    s.axes[0].size = 0;
    assert_int_equal(meshgen_group(&s.mesh, 0, 1, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group_index(&s.mesh, 0, 1, NULL), MESHGEN_ERR_CORRUPT);
    s.axes[0].size = 1;
    s.axes[1].size = 0;
    assert_int_equal(meshgen_coords_of(&s.mesh, 0, coords), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group(&s.mesh, 0, 2, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group_index(&s.mesh, 0, 2, NULL), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_group_index(&s.mesh, 0, 3, NULL), MESHGEN_ERR_CORRUPT);
    /* Coordinates inside sizes (2, 2) whose product passes n_devices. */
    s.axes[0].size = 2;
    s.axes[1].size = 2;
    s.mesh.n_devices = 2;
    coords[0] = 1;
    coords[1] = 0;
    assert_int_equal(meshgen_device_at(&s.mesh, coords), MESHGEN_ERR_CORRUPT);

    scratch_init(&s);
    s.hosts[0].first_device = 1;
    assert_int_equal(meshgen_device_host(&s.mesh, 0), MESHGEN_ERR_CORRUPT);
    assert_null(meshgen_device_info(&s.mesh, 0));

    scratch_init(&s);
    s.mesh.n_hosts = 0;
    assert_int_equal(meshgen_device_host(&s.mesh, 0), MESHGEN_ERR_CORRUPT);

    scratch_init(&s);
    s.hosts[2].template_index = 2;
    assert_null(meshgen_device_info(&s.mesh, 4));
    scratch_init(&s);
    s.hosts[2].n_devices = 4; /* more than its template describes */
    s.mesh.n_inventory_devices = 7;
    assert_null(meshgen_device_info(&s.mesh, 6));

    scratch_init(&s);
    s.processes[1].count = 3;
    assert_int_equal(meshgen_process_devices(&s.mesh, 1, out, 4), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_process_of(&s.mesh, 5), MESHGEN_ERR_CORRUPT);

    /* An MPMD axis past the coordinate buffer, and past a 32-bit shift. */
    scratch_init(&s);
    s.mesh.mpmd_axis = MESHGEN_MAX_AXES;
    assert_int_equal(meshgen_stage_count(&s.mesh), 1);
    assert_int_equal(meshgen_stage_devices(&s.mesh, 0, out, 4), 4);
    assert_int_equal(meshgen_stage_of(&s.mesh, 0), 0);
    s.mesh.mpmd_axis = 40;
    assert_int_equal(meshgen_stage_devices(&s.mesh, 0, out, 4), 4);

    scratch_init(&s);
    s.dims[0].shards = 0;
    assert_int_equal(meshgen_shard(&s.mesh, 0, shape, 2, 0, start, size, NULL),
                     MESHGEN_ERR_CORRUPT);
    /* A shard count below its axes' product: device 5 (y = 1) would start
     * past the array. */
    scratch_init(&s);
    s.dims[0].shards = 1;
    assert_int_equal(meshgen_shard(&s.mesh, 0, NULL, 2, 5, start, size, NULL), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_shard(&s.mesh, 0, NULL, 2, 4, start, size, NULL), MESHGEN_OK);
    /* A shard count no mesh of at most INT32_MAX devices can have. */
    s.dims[0].shards = (int64_t)INT32_MAX + 1;
    assert_int_equal(meshgen_shard(&s.mesh, 0, shape, 2, 4, start, size, NULL),
                     MESHGEN_ERR_CORRUPT);
    scratch_init(&s);
    s.dims[1].axes[0] = 5;
    assert_int_equal(meshgen_shard(&s.mesh, 0, shape, 2, 0, start, size, NULL),
                     MESHGEN_ERR_CORRUPT);
    scratch_init(&s);
    s.dims[1].n_axes = MESHGEN_MAX_AXES + 1;
    assert_int_equal(meshgen_shard(&s.mesh, 0, shape, 2, 0, start, size, NULL),
                     MESHGEN_ERR_CORRUPT);
    scratch_init(&s);
    s.shardings[0].n_dims = MESHGEN_MAX_DIMS + 1;
    assert_int_equal(meshgen_shard(&s.mesh, 0, NULL, 2, 0, start, size, NULL), MESHGEN_ERR_CORRUPT);
}

/* ---- identity tables left out (ABI 2) ---------------------------------------------- */

/* Every lookup answers alike whether a mesh carries its identity tables or
 * leaves them out (NULL), as the generator does. */
static void expect_same_answers(const struct meshgen_mesh *x, const struct meshgen_mesh *y)
{
    int32_t a[16], b[16], cx[MESHGEN_MAX_AXES], cy[MESHGEN_MAX_AXES], rx, ry;
    int d, f, k, p, mask;

    assert_int_equal(meshgen_mesh_check(y), MESHGEN_OK);
    for (f = -1; f <= x->n_devices; f++)
        assert_int_equal(meshgen_mesh_device(x, f), meshgen_mesh_device(y, f));
    for (d = -1; d <= x->n_inventory_devices; d++) {
        assert_int_equal(meshgen_coords_of(x, d, cx), meshgen_coords_of(y, d, cy));
        if (meshgen_coords_of(x, d, cx) == MESHGEN_OK) {
            meshgen_coords_of(y, d, cy);
            assert_memory_equal(cx, cy, (size_t)x->n_axes * sizeof cx[0]);
            assert_int_equal(meshgen_device_at(x, cx), meshgen_device_at(y, cy));
            assert_int_equal(meshgen_device_at(y, cy), d);
        }
        assert_int_equal(meshgen_process_of(x, d), meshgen_process_of(y, d));
        for (mask = 0; mask < (1 << x->n_axes); mask++) {
            int nx = meshgen_group(x, d, (uint32_t)mask, a, 16);
            assert_int_equal(nx, meshgen_group(y, d, (uint32_t)mask, b, 16));
            for (k = 0; k < nx; k++)
                assert_int_equal(a[k], b[k]);
            assert_int_equal(meshgen_group_index(x, d, (uint32_t)mask, &rx),
                             meshgen_group_index(y, d, (uint32_t)mask, &ry));
        }
    }
    for (mask = 0; mask < (1 << x->n_axes); mask++) {
        assert_int_equal(meshgen_axis_groups(x, (uint32_t)mask, a, 16), x->n_devices);
        assert_int_equal(meshgen_axis_groups(y, (uint32_t)mask, b, 16), x->n_devices);
        assert_memory_equal(a, b, sizeof a[0] * (size_t)x->n_devices);
        check_all_groups(x, (uint32_t)mask);
        check_all_groups(y, (uint32_t)mask);
    }
    for (p = -1; p <= x->n_processes; p++) {
        int n = meshgen_process_devices(x, p, a, 16);
        assert_int_equal(n, meshgen_process_devices(y, p, b, 16));
        for (k = 0; k < n; k++)
            assert_int_equal(a[k], b[k]);
    }
}

static void test_identity_tables_left_out(void **state)
{
    struct meshgen_mesh m = abc.mesh;

    (void)state;
    m.mesh_devices = NULL;
    m.device_index = NULL;
    m.processes = NULL;
    m.process_devices = NULL;
    expect_same_answers(&abc.mesh, &m);
    m = ppdptp.mesh;
    m.mesh_devices = NULL;
    m.device_index = NULL;
    m.process_devices = NULL;
    expect_same_answers(&ppdptp.mesh, &m);
    /* A mesh over the first 8 of 16 devices: ids 8..15 are not in it. */
    m.n_devices = 8;
    m.axes = abc.axes;
    m.process_mode = MESHGEN_PROCESSES_HOST;
    m.n_processes = 2;
    m.processes = NULL;
    m.n_process_devices = 16;
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_OK);
    assert_int_equal(meshgen_mesh_device(&m, 7), 7);
    assert_int_equal(meshgen_mesh_device(&m, 8), MESHGEN_ERR_RANGE);
    {
        int32_t c[MESHGEN_MAX_AXES];
        assert_int_equal(meshgen_coords_of(&m, 8, c), MESHGEN_ERR_NOT_IN_MESH);
    }
    assert_int_equal(meshgen_process_of(&m, 12), 1);
}

/* Half a pair, or host processes that are not one per host, is corrupt. */
static void test_identity_tables_refused(void **state)
{
    struct meshgen_mesh m = abc.mesh;

    (void)state;
    m.mesh_devices = NULL;
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_CORRUPT);
    m = abc.mesh;
    m.device_index = NULL;
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_CORRUPT);
    m = ppdptp.mesh;
    m.processes = NULL; /* 16 processes on 2 hosts */
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_CORRUPT);
    assert_int_equal(meshgen_process_devices(&m, 5, NULL, 0), MESHGEN_ERR_CORRUPT);
    /* More mesh positions than devices. */
    m = abc.mesh;
    m.mesh_devices = NULL;
    m.device_index = NULL;
    m.n_inventory_devices = 4;
    assert_int_equal(meshgen_mesh_check(&m), MESHGEN_ERR_CORRUPT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror_every_code),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_identity_tables_left_out),
        cmocka_unit_test(test_identity_tables_refused),
        cmocka_unit_test(test_check_accepts_test_meshes),
        cmocka_unit_test(test_check_rejects_null_magic_abi),
        cmocka_unit_test(test_check_rejects_corruptions),
        cmocka_unit_test(test_every_function_rejects_unusable_mesh),
        cmocka_unit_test(test_every_function_rejects_null_mesh),
        cmocka_unit_test(test_unchecked_mesh_guards),
        cmocka_unit_test(test_axis_index_and_size),
        cmocka_unit_test(test_device_at_coords_of_round_trip),
        cmocka_unit_test(test_device_at_coords_of_errors),
        cmocka_unit_test(test_device_host_and_info),
        cmocka_unit_test(test_device_coords),
        cmocka_unit_test(test_axes_mask),
        cmocka_unit_test(test_reference_groups_pp_dp_tp),
        cmocka_unit_test(test_group_empty_full_and_multi_axis),
        cmocka_unit_test(test_group_errors),
        cmocka_unit_test(test_groups_against_brute_force),
        cmocka_unit_test(test_all_groups_large),
        cmocka_unit_test(test_cursor_large_indices),
        cmocka_unit_test(test_cursor_layout),
        cmocka_unit_test(test_all_groups_and_cursor_errors),
        cmocka_unit_test(test_reference_jaxpp_stages),
        cmocka_unit_test(test_stages_inner_axis_and_none),
        cmocka_unit_test(test_stage_errors),
        cmocka_unit_test(test_sharding_index),
        cmocka_unit_test(test_reference_shard_rows_cols),
        cmocka_unit_test(test_reference_shard_replica_ids),
        cmocka_unit_test(test_reference_shards_tile_array),
        cmocka_unit_test(test_shard_counts_not_powers_of_two),
        cmocka_unit_test(test_shard_permuted_and_trailing_dims),
        cmocka_unit_test(test_shard_errors),
        cmocka_unit_test(test_host_by_name),
        cmocka_unit_test(test_host_name_rule),
        cmocka_unit_test(test_host_from_gethostname),
        cmocka_unit_test(test_process_every_launcher),
        cmocka_unit_test(test_process_map_by_node),
        cmocka_unit_test(test_process_nested_launchers),
        cmocka_unit_test(test_process_needs_local_rank),
        cmocka_unit_test(test_process_per_host),
        cmocka_unit_test(test_process_explicit),
        cmocka_unit_test(test_process_unchecked_tables),
        cmocka_unit_test(test_process_from_env),
        cmocka_unit_test(test_process_devices_and_of),
        cmocka_unit_test(test_process_errors),
    };

    return cmocka_run_group_tests(tests, build_meshes, NULL);
}
