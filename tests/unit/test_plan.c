/*
 * Unit tests of the checks and the planner on models built in C: no YAML,
 * no hwloc. The reference cases of docs/reference.md §9 (create_hybrid_device_mesh,
 * eformer's DCN inference, jaxpp's stages) are here, named as such.
 */
#include "harness.h"

static const char *const ab[] = {"a", "b"};
static const char *const abc[] = {"a", "b", "c"};

/* The mesh is want; its table, and device_index, are left out exactly
 * when want is the identity, and device_index maps every position back. */
static void assert_mesh(const struct mg_plan *p, const int *want, int n)
{
    int i, identity = 1;
    assert_non_null(p);
    assert_int_equal(p->n_mesh, n);
    for (i = 0; i < n; i++) {
        assert_int_equal(mg_plan_mesh_at(p, i), want[i]);
        assert_int_equal(mg_plan_index_of(p, want[i]), i);
        identity &= want[i] == i;
    }
    assert_int_equal(p->mesh == NULL, identity);
    assert_int_equal(p->device_index == NULL, identity);
    assert_int_equal(p->mesh_identity, identity);
}

/* Every device's host and index in it from the hosts' first devices, by
 * the search (hosts without devices among them) and by the division when
 * every host has as many. */
static void test_host_of(void **state)
{
    static const int counts[][7] = {{0, 4, 0, 0, 2, 3, 0}, {3, 3, 3, 3, 3, 3, 3}};
    struct th_fx *f = *state;
    struct mg_plan p;
    int first[7], c, h, i, uniform;

    (void)f;
    for (c = 0; c < 2; c++) {
        memset(&p, 0, sizeof p);
        p.inv = &f->inv;
        f->inv.n_hosts = 7;
        p.host_first = first;
        for (h = 0; h < 7; h++) {
            first[h] = p.n_devices;
            p.n_devices += counts[c][h];
        }
        for (uniform = 0; uniform <= c; uniform++) {
            p.host_devices = uniform ? 3 : 0;
            for (h = 0; h < 7; h++)
                for (i = 0; i < counts[c][h]; i++) {
                    int local = -1;
                    assert_int_equal(mg_plan_host_of(&p, first[h] + i, &local), h);
                    assert_int_equal(local, i);
                }
        }
    }
}

/* A process per host over the identity: process_devices left out, and
 * read back as the identity. */
static void test_process_devices_identity(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {4, 2}, dcn[] = {2, 1};
    struct mg_plan *p;
    int i;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, dcn);
    p = th_compile(f);
    assert_non_null(p);
    assert_null(p->process_devices);
    assert_int_equal(p->process_devices_identity, 1);
    assert_int_equal(p->processes_are_hosts, 1);
    for (i = 0; i < 8; i++)
        assert_int_equal(mg_plan_process_device(p, i), i);
}

/* Reference case (create_hybrid_device_mesh): 2 hosts x 4 devices, ici
 * (2,2), dcn (2,1) -> [[0,1],[2,3],[4,5],[6,7]]. */
static void test_reference_hybrid_dcn_outer(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {4, 2}, dcn[] = {2, 1};
    const int want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct mg_plan *p;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, dcn);
    p = th_compile(f);
    assert_mesh(p, want, 8);
    assert_int_equal(p->ici[0], 2);
    assert_int_equal(p->dcn[0], 2);
}

/* Reference case: dcn (1,2) -> [[0,1,4,5],[2,3,6,7]]. */
static void test_reference_hybrid_dcn_inner(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4}, dcn[] = {1, 2};
    const int want[] = {0, 1, 4, 5, 2, 3, 6, 7};
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, dcn);
    assert_mesh(th_compile(f), want, 8);
}

/* Reference case: dcn (4,1) -> error (2 granules, product 4). */
static void test_reference_hybrid_dcn_too_many(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {4, 2}, dcn[] = {4, 1};
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, dcn);
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "dcn-granules"));
    assert_non_null(strstr(f->diags.items[0].message, "is 4"));
    assert_non_null(strstr(f->diags.items[0].message, "2 granules"));
    assert_int_equal(f->diags.n_errors, 1);
}

/* Reference case: ici (2,4) -> error (4 devices per host, product 8). */
static void test_reference_hybrid_ici_too_big(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 8}, dcn[] = {1, 2};
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, dcn);
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "ici-devices"));
    assert_true(has_error(&f->diags, "shape-devices"));
}

/* Reference case (eformer calculate_host_mesh_shape): global (2,4), 4 per
 * host, 2 hosts -> host (1,4), dcn (2,1). */
static void test_reference_dcn_inference(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4};
    const int want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct mg_plan *p;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, NULL);
    p = th_compile(f);
    assert_mesh(p, want, 8);
    assert_int_equal(p->ici[0], 1);
    assert_int_equal(p->ici[1], 4);
    assert_int_equal(p->dcn[0], 2);
    assert_int_equal(p->dcn[1], 1);
}

/* -1 is resolved against the total, then the hybrid split is applied. */
static void test_infer_then_hybrid(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {-1, 4};
    struct mg_plan *p;
    th_hosts(f, 4, 4, NULL);
    th_axes(f, 2, ab, shape, NULL);
    p = th_compile(f);
    assert_non_null(p);
    assert_int_equal(p->size[0], 4);
    assert_int_equal(p->dcn[0], 4);
    assert_int_equal(p->ici[1], 4);
}

static void test_dcn_inference_fails(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {3, 4};
    th_hosts(f, 4, 3, NULL);
    th_axes(f, 2, ab, shape, NULL);
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "dcn-infer"));
}

/* Reference case (jaxpp MpmdMesh): 16 devices, shape (4,2,1,2,1), names
 * (stage,data,sequence,tensor,expert), mpmd=stage: stage i holds devices
 * 4i..4i+3; with one process per device every process is in one stage. */
static void test_reference_jaxpp_stages(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"stage", "data", "sequence", "tensor", "expert"};
    const int64_t shape[] = {4, 2, 1, 2, 1};
    struct mg_plan *p;
    int i;
    th_hosts(f, 1, 16, NULL);
    th_axes(f, 5, names, shape, NULL);
    f->spec.mpmd = "stage";
    f->spec.processes = MESHGEN_PROCESSES_DEVICE;
    p = th_compile(f);
    assert_non_null(p);
    assert_int_equal(p->mpmd_axis, 0);
    assert_int_equal(p->n_processes, 16);
    for (i = 0; i < 16; i++)
        assert_int_equal(mg_plan_mesh_at(p, i), i);
}

/* One process per host whose devices fall in two stages: named error. */
static void test_mpmd_process_in_two_stages(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"pp", "tp"};
    const int64_t shape[] = {4, 2};
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, names, shape, NULL);
    f->spec.mpmd = "pp";
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "mpmd-process"));
    assert_non_null(strstr(f->diags.items[0].message, "host 'h0'"));
    assert_non_null(strstr(f->diags.items[0].message, "stage 0"));
    assert_non_null(strstr(f->diags.items[0].message, "stage 1"));
}

/* The pipeline axis outermost over DCN: each host is one stage. */
static void test_mpmd_stage_per_host(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"pp", "tp"};
    const int64_t shape[] = {2, 4};
    struct mg_plan *p;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, names, shape, NULL);
    f->spec.mpmd = "pp";
    p = th_compile(f);
    assert_non_null(p);
    assert_int_equal(p->n_processes, 2);
    assert_int_equal(p->processes[1].host, 1);
    assert_int_equal(p->processes[1].count, 4);
}

static void test_granules_heterogeneous(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {-1};
    struct mg_topology *t;
    th_hosts(f, 3, 4, NULL);
    /* A second topology with 2 GPUs for host h2. */
    t = mg_alloc_array(&f->arena, 2, sizeof *t);
    t[0] = f->inv.topologies[0];
    t[1] = f->inv.topologies[0];
    t[1].n[MG_KIND_GPU] = 2;
    f->inv.topologies = t;
    f->inv.n_topologies = 2;
    f->inv.hosts[2].topology = 1;
    th_axes(f, 1, ab, shape, NULL);
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "granules-homogeneous"));
    assert_non_null(strstr(f->diags.items[0].message, "'h2' has 2"));
    assert_non_null(strstr(f->diags.items[0].message, "'h0' has 4"));
    assert_int_equal(f->diags.items[0].at.line, 102);
}

/* Slices group hosts; granules follow process order, the order of each
 * slice's first host, never their names (JAX keys them by slice_index). */
static void test_slices_in_process_order(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4}, dcn[] = {2, 1};
    const int want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct mg_plan *p;
    th_hosts(f, 4, 2, NULL);
    f->inv.hosts[0].slice = "rack10";
    f->inv.hosts[1].slice = "rack10";
    f->inv.hosts[2].slice = "rack9";
    f->inv.hosts[3].slice = "rack9";
    f->spec.granule = MG_GRANULE_SLICE;
    th_axes(f, 2, ab, shape, dcn);
    p = th_compile(f);
    assert_mesh(p, want, 8);
    assert_int_equal(p->host_granule[0], 0);
    assert_int_equal(p->host_granule[2], 1);

    /* JAX's should_sort_granules_by_key: sorted by key or not, the key is
     * the first process, so the order is the same. */
    f->spec.sort_granules = 0;
    p = th_compile(f);
    assert_mesh(p, want, 8);
}

/* Interleaved slices: a slice's devices are its hosts' in process order,
 * and slices are ordered by their first process. */
static void test_slices_interleaved(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4}, dcn[] = {2, 1};
    const int want[] = {0, 1, 4, 5, 2, 3, 6, 7};
    struct mg_plan *p;
    th_hosts(f, 4, 2, NULL);
    f->inv.hosts[0].slice = "b";
    f->inv.hosts[1].slice = "a";
    f->inv.hosts[2].slice = "b";
    f->inv.hosts[3].slice = "a";
    f->spec.granule = MG_GRANULE_SLICE;
    th_axes(f, 2, ab, shape, dcn);
    p = th_compile(f);
    assert_mesh(p, want, 8);
    assert_string_equal(p->granules[0].key, "b");
}

/* A host without a slice is a granule of its own, keyed by its name; a
 * slice with that name is another granule (they were once one). */
static void test_slice_named_like_host(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {3, 2}, dcn[] = {3, 1};
    const int want[] = {0, 1, 2, 3, 4, 5};
    struct mg_plan *p;
    th_hosts(f, 3, 2, NULL);
    f->inv.hosts[0].slice = "h2";
    f->inv.hosts[2].slice = "h1";
    f->spec.granule = MG_GRANULE_SLICE;
    th_axes(f, 2, ab, shape, dcn);
    p = th_compile(f);
    assert_mesh(p, want, 6);
    assert_int_equal(p->n_granules, 3);
    assert_int_equal(p->host_granule[0], 0);
    assert_int_equal(p->host_granule[1], 1);
    assert_int_equal(p->host_granule[2], 2);
    assert_string_equal(p->granules[0].key, "h2");
    assert_string_equal(p->granules[1].key, "h1");
    assert_string_equal(p->granules[2].key, "h1");
}

/* Reference case (issue 14): hosts n10, n2, n1 with 2 devices each, (3,2)
 * with dcn (3,1) gives [0..5], as create_hybrid_device_mesh does: host
 * granule k is process k, whatever the names. */
static void test_process_order_not_names(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {3, 2}, dcn[] = {3, 1};
    const int want[] = {0, 1, 2, 3, 4, 5};
    struct mg_plan *p;
    int k;
    th_hosts(f, 3, 2, NULL);
    f->inv.hosts[0].name = "n10";
    f->inv.hosts[1].name = "n2";
    f->inv.hosts[2].name = "n1";
    th_axes(f, 2, ab, shape, dcn);
    p = th_compile(f);
    assert_mesh(p, want, 6);
    for (k = 0; k < 3; k++) {
        assert_int_equal(p->host_granule[k], k);
        assert_int_equal(p->processes[k].host, k);
    }
}

/* Slices without `dcn`: eformer's multi-slice rule puts every slice on the
 * first axis the slice count divides; with none, an error that names the
 * shape, never a placeholder count. */
static void test_dcn_infer_slices(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {3, 4, 2}, bad[] = {2, 2};
    struct mg_plan *p;
    int i;
    th_hosts(f, 6, 4, NULL);
    for (i = 0; i < 6; i++)
        f->inv.hosts[i].slice = i < 3 ? "s0" : "s1";
    f->spec.granule = MG_GRANULE_SLICE;
    th_axes(f, 3, abc, shape, NULL);
    p = th_compile(f);
    assert_non_null(p);
    assert_int_equal(p->dcn[0], 1);
    assert_int_equal(p->dcn[1], 2);
    assert_int_equal(p->ici[1], 2);
    assert_int_equal(p->dcn[2], 1);

    th_hosts(f, 4, 1, NULL);
    for (i = 0; i < 4; i++)
        f->inv.hosts[i].slice = mg_printf(&f->arena, "s%d", i);
    th_axes(f, 2, ab, bad, NULL);
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "dcn-infer"));
    assert_null(strstr(f->diags.items[0].message, "-1"));
    assert_non_null(strstr(f->diags.items[0].message, "over 4 slices"));
}

/* The host walk's error says which axis did not split, never "-1
 * devices". */
static void test_dcn_infer_message(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {5, 2};
    th_hosts(f, 2, 5, NULL);
    th_axes(f, 2, ab, shape, NULL);
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "dcn-infer"));
    assert_null(strstr(f->diags.items[0].message, "-1"));
    assert_non_null(strstr(f->diags.items[0].message, "axis 'a' (size 5)"));
}

/* devices: N takes the first N devices; whole granules or part of one. */
static void test_devices_subset(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {-1};
    struct mg_plan *p;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 1, ab, shape, NULL);
    f->spec.has_devices = 1;
    f->spec.devices = 3;
    f->spec.devices_at = th_mark(9);
    p = th_compile(f);
    assert_non_null(p);
    assert_int_equal(p->n_mesh, 3);
    assert_int_equal(mg_plan_index_of(p, 3), -1);
    assert_int_equal(p->n_processes, 1);

    f->spec.devices = 6;
    assert_null(th_compile(f));
    assert_true(has_error(&f->diags, "devices-granules"));
}

static void test_processes_per_device(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4}, dcn[] = {2, 1};
    struct mg_plan *p;
    int i;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, dcn);
    f->spec.processes = MESHGEN_PROCESSES_DEVICE;
    p = th_compile(f);
    assert_non_null(p);
    assert_int_equal(p->n_processes, 8);
    for (i = 0; i < 8; i++) {
        assert_int_equal(p->processes[i].count, 1);
        assert_int_equal(p->processes[i].host, i / 4);
        assert_int_equal(mg_plan_process_device(p, p->processes[i].first), i);
    }
}

/* A closeness matrix whose PCI order alternates sockets: devices 0,2,4,6
 * on one socket, 1,3,5,7 on the other. */
static void alternating(int *m)
{
    int i, j;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 8; j++)
            m[i * 8 + j] = i == j ? 10 : (i % 2 == j % 2) ? 5 : 1;
}

static void test_locality_keeps_tp_in_socket(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"dp", "tp"};
    const int64_t shape[] = {2, 4};
    int m[64], i;
    struct mg_plan *p;
    alternating(m);
    th_hosts(f, 1, 8, m);
    th_axes(f, 2, names, shape, NULL);

    f->spec.order = MG_ORDER_INVENTORY;
    p = th_compile(f);
    assert_non_null(p);
    /* Inventory order mixes sockets inside each tp group. */
    assert_int_not_equal(mg_plan_mesh_at(p, 0) % 2, mg_plan_mesh_at(p, 1) % 2);

    f->spec.order = MG_ORDER_LOCALITY;
    p = th_compile(f);
    assert_non_null(p);
    for (i = 0; i < 8; i++)
        assert_int_equal(mg_plan_mesh_at(p, i) % 2, mg_plan_mesh_at(p, (i / 4) * 4) % 2);
    assert_true(p->score > p->score_inventory);
}

static void test_locality_uniform_is_inventory(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4};
    const int want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    int m[64], i;
    struct mg_plan *p;
    for (i = 0; i < 64; i++)
        m[i] = 3;
    th_hosts(f, 1, 8, m);
    th_axes(f, 2, ab, shape, NULL);
    f->spec.order = MG_ORDER_LOCALITY;
    p = th_compile(f);
    assert_mesh(p, want, 8);
    assert_true(p->score == p->score_inventory);
}

/* On the real shared topologies (DGX-2 with NVSwitch, POWER8 with direct
 * NVLink pairs, the MI250X node with XGMI, and the 2-socket test machine
 * whose PCI order alternates sockets) the locality order never scores
 * below inventory order, for every shape tried; it differs from inventory
 * order only when it scores strictly higher. */
static void test_locality_on_shared_topologies(void **state)
{
    static const char *const files[] = {"hwloc/nvidiaDGX2.xml", "hwloc/power8gpudistances.xml",
                                        "hwloc/eas-tioga.xml", "topo/alternating-sockets.xml"};
    static const int64_t shapes[][3] = {{2, 2, -1}, {-1, 2, 2}, {2, -1, 4},
                                        {-1, 1, 4}, {-1, 4, 1}, {4, 2, -1}};
    struct th_fx *f = *state;
    const char *const names[] = {"a", "b", "c"};
    size_t i, k;
    int improved = 0;

    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct mg_mark at = {"test", 1, 1};
        const char *path = mg_printf(&f->arena, "%s/%s", MESHGEN_TEST_DATA, files[i]);
        struct mg_inventory *inv = mg_inventory_load(&f->arena, &f->diags, path, at);
        assert_non_null(inv);
        for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            struct mg_plan *loc, *ord;
            int j, same = 1;
            th_axes(f, 3, names, shapes[k], NULL);
            f->spec.order = MG_ORDER_LOCALITY;
            loc = mg_compile(&f->arena, &f->diags, &f->spec, inv, NULL);
            f->spec.order = MG_ORDER_INVENTORY;
            ord = mg_compile(&f->arena, &f->diags, &f->spec, inv, NULL);
            if (!loc || !ord) { /* a shape this machine cannot hold */
                th_reset(f);
                continue;
            }
            assert_true(loc->score >= ord->score);
            assert_true(loc->score_inventory == ord->score);
            for (j = 0; j < loc->n_mesh; j++)
                same &= mg_plan_mesh_at(loc, j) == mg_plan_mesh_at(ord, j);
            if (!same) {
                assert_true(loc->score > ord->score);
                improved++;
            }
        }
    }
    /* The alternating machine is where locality must win. */
    assert_true(improved > 0);
}

/* The digest changes with the inputs and only with them. */
static void test_digest(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4};
    char first[72];
    struct mg_plan *p;
    th_hosts(f, 1, 8, NULL);
    th_axes(f, 2, ab, shape, NULL);
    p = th_compile(f);
    assert_non_null(p);
    memcpy(first, p->digest, sizeof first);
    assert_int_equal(strncmp(first, "sha256:", 7), 0);
    p = th_compile(f);
    assert_string_equal(first, p->digest);
    f->spec.axes[1].size = 8;
    f->spec.axes[0].size = 1;
    p = th_compile(f);
    assert_non_null(p);
    assert_string_not_equal(first, p->digest);
}

/* Every slice hashes as a text of its own: the slice "-" is not no slice
 * (the tables differ: "-" and ""), a name with a space or a newline is not
 * read as more fields or lines, and ordinary names hash as written. */
static void test_digest_slices(void **state)
{
    struct th_fx *f = *state;
    const int64_t shape[] = {2, 4};
    const char *slices[] = {NULL, "-", "\"-\"", "a b", "a\nhost h1 b", "a", "a\\"};
    char digests[7][72];
    struct mg_plan *p;
    int i, j;
    th_hosts(f, 2, 4, NULL);
    th_axes(f, 2, ab, shape, NULL);
    for (i = 0; i < 7; i++) {
        f->inv.hosts[0].slice = slices[i];
        p = th_compile(f);
        assert_non_null(p);
        memcpy(digests[i], p->digest, sizeof digests[i]);
        for (j = 0; j < i; j++)
            assert_string_not_equal(digests[i], digests[j]);
    }
}

/* Tree closeness for 8 GPUs: machine (depth 0), two sockets (1), each GPU
 * (2). `alternate`: sockets alternate in device order (0,2,4,6 on one),
 * else 0-3 and 4-7. The paths name each ancestor by its first device. */
static void tree_closeness(struct th_fx *f, int alternate)
{
    struct mg_topology *t = &f->inv.topologies[0];
    int i;

    t->tree_stride[MG_KIND_GPU] = 3;
    t->tree_depth[MG_KIND_GPU] = mg_alloc_array(&f->arena, 8, sizeof(int));
    t->tree_path[MG_KIND_GPU] = mg_alloc_array(&f->arena, 8 * 3, sizeof(int));
    for (i = 0; i < 8; i++) {
        int socket = alternate ? i % 2 : i / 4;
        t->tree_depth[MG_KIND_GPU][i] = 2;
        t->tree_path[MG_KIND_GPU][i * 3] = 0;
        t->tree_path[MG_KIND_GPU][i * 3 + 1] = alternate ? socket : socket * 4;
        t->tree_path[MG_KIND_GPU][i * 3 + 2] = i;
    }
}

/* The same placement as the matrix of test_locality_keeps_tp_in_socket,
 * from tree paths: closeness by the tree goes through the same grouping. */
static void test_locality_tree_paths(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"dp", "tp"};
    const int64_t shape[] = {2, 4};
    const int want[] = {0, 2, 4, 6, 1, 3, 5, 7};
    struct mg_plan *p;

    th_hosts(f, 1, 8, NULL);
    tree_closeness(f, 1);
    th_axes(f, 2, names, shape, NULL);
    f->spec.order = MG_ORDER_LOCALITY;
    p = th_compile(f);
    assert_mesh(p, want, 8);
    /* tp pairs inside a socket: 6 per group, closeness 1 each, weight 2. */
    assert_int_equal(p->score, 2 * 2 * 6 * 1);
    /* Inventory order: two such pairs per tp group, and every dp pair. */
    assert_int_equal(p->score_inventory, 2 * 2 * 2 * 1 + 4 * 1);
    assert_int_equal(mg_topology_closeness(&f->inv.topologies[0], MG_KIND_GPU, 0, 2), 1);
    assert_int_equal(mg_topology_closeness(&f->inv.topologies[0], MG_KIND_GPU, 0, 1), 0);
    assert_int_equal(mg_topology_closeness(&f->inv.topologies[0], MG_KIND_GPU, 3, 3), 2);
}

/* Sockets in device order: inventory order is already the best, kept
 * without the grouping; the score is counted per depth, as pairs would. */
static void test_locality_tree_in_order(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"dp", "tp"};
    const int64_t shape[] = {2, 4};
    const int want[] = {0, 1, 2, 3, 4, 5, 6, 7};
    struct mg_plan *p;

    th_hosts(f, 2, 8, NULL);
    tree_closeness(f, 0);
    th_axes(f, 2, names, shape, NULL);
    f->spec.devices = 8;
    f->spec.has_devices = 1;
    f->spec.order = MG_ORDER_LOCALITY;
    p = th_compile(f);
    assert_mesh(p, want, 8);
    assert_int_equal(p->score, p->score_inventory);
    assert_int_equal(p->score, 2 * 2 * 6 * 1);
}

/* Which tables are the identity, and the C that leaves them out. */
static void test_identity_tables(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"dp", "tp"};
    const int64_t shape[] = {4, 4};
    struct mg_plan *p;
    struct mg_buf b;
    int m[64];

    th_hosts(f, 2, 8, NULL);
    th_axes(f, 2, names, shape, NULL);
    p = th_compile(f);
    assert_non_null(p);
    assert_true(p->mesh_identity);
    assert_true(p->process_devices_identity);
    assert_true(p->processes_are_hosts);
    mg_buf_init(&b);
    mg_emit_source(&b, p, "test");
    assert_non_null(strstr(b.data, ".mesh_devices = NULL,"));
    assert_non_null(strstr(b.data, ".device_index = NULL,"));
    assert_non_null(strstr(b.data, ".processes = NULL,"));
    assert_non_null(strstr(b.data, ".process_devices = NULL,"));
    assert_null(strstr(b.data, "t__mesh_devices["));
    mg_buf_free(&b);

    /* One process per device is not the hosts; a reordered mesh keeps its
     * tables. */
    f->spec.processes = MESHGEN_PROCESSES_DEVICE;
    alternating(m);
    th_hosts(f, 2, 8, m);
    f->spec.order = MG_ORDER_LOCALITY;
    p = th_compile(f);
    assert_non_null(p);
    assert_false(p->mesh_identity);
    assert_true(p->process_devices_identity);
    assert_false(p->processes_are_hosts);
    mg_buf_init(&b);
    mg_emit_source(&b, p, "test");
    assert_non_null(strstr(b.data, ".mesh_devices = t__mesh_devices,"));
    assert_non_null(strstr(b.data, ".device_index = t__device_index,"));
    assert_non_null(strstr(b.data, ".processes = t__processes,"));
    assert_non_null(strstr(b.data, ".process_devices = NULL,"));
    mg_buf_free(&b);
}

static void append_sink(void *ctx, const char *data, size_t len)
{
    struct mg_buf *all = ctx;
    mg_buf_put(all, data, len);
    all->indent++; /* counts the chunks */
}

/* The JSON of resolve, streamed in chunks, is the same text as in one
 * buffer; the streaming buffer never holds much more than a chunk. */
static void test_streamed_json(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"dp", "tp"};
    const int64_t shape[] = {-1, 8};
    struct mg_buf whole, all, streamed;
    struct mg_plan *p;

    th_hosts(f, 4096, 8, NULL);
    th_axes(f, 2, names, shape, NULL);
    p = th_compile(f);
    assert_non_null(p);
    mg_buf_init(&whole);
    mg_emit_json(&whole, p);
    mg_buf_init(&all);
    mg_buf_init(&streamed);
    mg_buf_stream(&streamed, append_sink, &all);
    mg_emit_json(&streamed, p);
    assert_true(streamed.cap <= 4 * MG_BUF_CHUNK);
    mg_buf_flush(&streamed);
    assert_true(whole.len > 2 * MG_BUF_CHUNK);
    assert_true(all.indent >= 3);
    assert_int_equal(all.len, whole.len);
    assert_int_equal(mg_buf_pos(&streamed), whole.len);
    assert_memory_equal(all.data, whole.data, whole.len);
    mg_buf_free(&whole);
    mg_buf_free(&all);
    mg_buf_free(&streamed);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (text = strstr(text, what); text; text = strstr(text + 1, what))
        n++;
    return n;
}

/* show --svg: a square per position up to 4096 positions, then at most
 * 64 x 64 blocks of positions, each naming its rows, columns, first and
 * last device and hosts in its tooltip; elements and bytes stay bounded. */
static void test_svg_scales(void **state)
{
    struct th_fx *f = *state;
    const char *const names[] = {"dp", "tp"};
    const int64_t shape[] = {-1, 8};
    struct mg_plan *p;
    struct mg_buf b;

    th_hosts(f, 512, 8, NULL);
    th_axes(f, 2, names, shape, NULL);
    p = th_compile(f);
    assert_non_null(p);
    mg_buf_init(&b);
    mg_emit_svg(&b, p, MG_COLOR_BY_HOST);
    assert_int_equal(count_of(b.data, "<rect class=\"cell\""), 4096);
    assert_int_equal(count_of(b.data, "<rect class=\"block\""), 0);
    mg_buf_free(&b);

    th_hosts(f, 32768, 8, NULL);
    p = th_compile(f);
    assert_non_null(p);
    mg_buf_init(&b);
    mg_emit_svg(&b, p, MG_COLOR_BY_HOST);
    /* 32768 rows x 8 columns: 64 blocks down of 512 rows, 8 across. */
    assert_int_equal(count_of(b.data, "<rect class=\"cell\""), 0);
    assert_int_equal(count_of(b.data, "<rect class=\"block\""), 512);
    assert_non_null(strstr(b.data, "blocks of 512 x 1 positions"));
    assert_non_null(strstr(b.data, "rows 0-511, columns 0-0: 512 devices (0..4088) on 512 hosts, "
                                   "h0 ... h511</title>"));
    assert_non_null(strstr(b.data, "rows 32256-32767, columns 7-7: 512 devices (258055..262143) "
                                   "on 512 hosts, h32256 ... h32767</title>"));
    assert_true(count_of(b.data, "<") - count_of(b.data, "</") <= 2000);
    assert_true(b.len < 256 * 1024);
    mg_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        th_test(test_reference_hybrid_dcn_outer),
        th_test(test_reference_hybrid_dcn_inner),
        th_test(test_reference_hybrid_dcn_too_many),
        th_test(test_reference_hybrid_ici_too_big),
        th_test(test_reference_dcn_inference),
        th_test(test_infer_then_hybrid),
        th_test(test_dcn_inference_fails),
        th_test(test_reference_jaxpp_stages),
        th_test(test_mpmd_process_in_two_stages),
        th_test(test_mpmd_stage_per_host),
        th_test(test_granules_heterogeneous),
        th_test(test_slices_in_process_order),
        th_test(test_slices_interleaved),
        th_test(test_slice_named_like_host),
        th_test(test_process_order_not_names),
        th_test(test_dcn_infer_slices),
        th_test(test_dcn_infer_message),
        th_test(test_devices_subset),
        th_test(test_processes_per_device),
        th_test(test_locality_keeps_tp_in_socket),
        th_test(test_locality_tree_paths),
        th_test(test_locality_tree_in_order),
        th_test(test_identity_tables),
        th_test(test_streamed_json),
        th_test(test_svg_scales),
        th_test(test_locality_uniform_is_inventory),
        th_test(test_locality_on_shared_topologies),
        th_test(test_host_of),
        th_test(test_process_devices_identity),
        th_test(test_digest),
        th_test(test_digest_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
