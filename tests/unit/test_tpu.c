/*
 * Unit tests of the TPU module (gen/tpu.c, docs/tpu.md): every expected
 * assignment of JAX's tests/mesh_utils_test.py that concerns TPU meshes,
 * each as a test named after the JAX test and its case ("reference case"),
 * with JAX's expected arrays transcribed; a multislice v5e case derived by
 * hand; and meshgen's own checks of families, topologies and host counts.
 * Devices are built in C: JAX's mock_tpu_devices is a layout with hosts of
 * min(x, 2) x min(y, 2) x 1 chips, which mg_tpu_layout_devices reproduces.
 * No file, no YAML, no hwloc.
 */
#include "harness.h"

/* ---- helpers ---------------------------------------------------------------- */

struct devs {
    struct mg_tpu_device *d;
    int n;
};

/* JAX's mock_tpu_devices(x, y, z, kind, one_device_per_chip, num_slices):
 * hosts of min(x, 2) x min(y, 2) x 1 chips, slices one after the other. */
static struct devs mock_slice(int x, int y, int z, int per_chip, int slices)
{
    struct devs v;
    int s;
    v.n = x * y * z * per_chip * slices;
    v.d = calloc((size_t)v.n, sizeof *v.d);
    assert_non_null(v.d);
    for (s = 0; s < slices; s++) {
        struct mg_tpu_layout l = {{x, y, z}, {x < 2 ? x : 2, y < 2 ? y : 2, 1}, per_chip, s};
        int per = v.n / slices;
        assert_int_equal(mg_tpu_layout_devices(&l, v.d + s * per, per), per);
    }
    return v;
}

/* A slice of a family through the public path: topology, hosts, devices. */
static struct devs slice_of(const char *family, const char *topology, int hosts, int slice)
{
    char reason[MG_TPU_REASON_MAX];
    const struct mg_tpu_family *f = mg_tpu_family_find(family, reason, sizeof reason);
    struct mg_tpu_layout l;
    struct devs v;
    int dims[3];
    if (!f)
        fail_msg("%s", reason);
    if (mg_tpu_parse_topology(f, topology, dims, reason, sizeof reason) != 0 ||
        mg_tpu_slice_layout(f, dims, hosts, slice, &l, reason, sizeof reason) != 0)
        fail_msg("%s %s: %s", family, topology, reason);
    v.n = dims[0] * dims[1] * dims[2] * f->devices_per_chip;
    v.d = calloc((size_t)v.n, sizeof *v.d);
    assert_non_null(v.d);
    assert_int_equal(mg_tpu_layout_devices(&l, v.d, v.n), v.n);
    return v;
}

/* Two slices' devices one after the other, as jax.devices() lists them. */
static struct devs concat(struct devs a, struct devs b)
{
    struct devs v;
    v.n = a.n + b.n;
    v.d = calloc((size_t)v.n, sizeof *v.d);
    assert_non_null(v.d);
    memcpy(v.d, a.d, (size_t)a.n * sizeof *v.d);
    memcpy(v.d + a.n, b.d, (size_t)b.n * sizeof *v.d);
    free(a.d);
    free(b.d);
    return v;
}

struct opts {
    bool split, contiguous, sort_granules, process_granules;
    const int64_t *dcn;
};

/* create_device_mesh (or, with DCN sizes, the hybrid) of v as o says; r's
 * permutation is allocated for it. */
static int create(const char *kind, struct devs v, const int64_t *shape, int n_axes, struct opts o,
                  struct mg_tpu_result *r)
{
    struct mg_tpu_request q;

    memset(&q, 0, sizeof q);
    q.device_kind = kind;
    q.devices = v.d;
    q.n_devices = v.n;
    q.n_axes = n_axes;
    q.shape = shape;
    q.dcn = o.dcn;
    q.allow_split_physical_axes = o.split;
    q.contiguous_submeshes = o.contiguous;
    q.sort_granules = o.sort_granules;
    q.process_is_granule = o.process_granules;
    r->perm = calloc((size_t)v.n, sizeof *r->perm);
    assert_non_null(r->perm);
    return o.dcn ? mg_tpu_create_hybrid_device_mesh(&q, r) : mg_tpu_create_device_mesh(&q, r);
}

/* The mesh (flat index -> device index), or a failure with the reason. */
static int32_t *mesh_of(const char *kind, struct devs v, const int64_t *shape, int n_axes,
                        struct opts o, struct mg_tpu_result *r)
{
    if (create(kind, v, shape, n_axes, o, r) != 0)
        fail_msg("%s: unexpected failure: %s", kind, r->reason);
    return r->perm;
}

/* The reason create_device_mesh (or the hybrid) gives for failing. */
static void expect_failure(const char *kind, struct devs v, const int64_t *shape, int n_axes,
                           struct opts o, const char *want)
{
    struct mg_tpu_result r;
    int rc;

    o.sort_granules = true;
    o.process_granules = false;
    rc = create(kind, v, shape, n_axes, o, &r);
    free(r.perm);
    if (rc != -1)
        fail_msg("expected a failure \"%s\"", want);
    if (strcmp(r.reason, want) != 0)
        fail_msg("reason \"%s\"\nexpected \"%s\"", r.reason, want);
}

/* The JAX ids of the mesh, compared with JAX's expected ids. */
static void expect_ids_at(struct devs v, const int32_t *perm, const int *want, int n,
                          const char *file, int line)
{
    int i;
    for (i = 0; i < n; i++)
        if (v.d[perm[i]].id != want[i])
            fail_msg("%s:%d: mesh position %d holds id %d, expected %d", file, line, i,
                     v.d[perm[i]].id, want[i]);
}
#define expect_ids(v, perm, ...)                                                                   \
    do {                                                                                           \
        static const int want_[] = {__VA_ARGS__};                                                  \
        assert_int_equal((v).n, (int)(sizeof want_ / sizeof want_[0]));                            \
        expect_ids_at((v), (perm), want_, (v).n, __FILE__, __LINE__);                              \
    } while (0)

/* The mesh as device indices (meshgen's device numbers, in JAX order). */
static void expect_perm_at(const int32_t *perm, const int *want, int n, const char *file, int line)
{
    int i;
    for (i = 0; i < n; i++)
        if (perm[i] != want[i])
            fail_msg("%s:%d: mesh position %d holds device %d, expected %d", file, line, i, perm[i],
                     want[i]);
}
#define expect_perm(perm, n, ...)                                                                  \
    do {                                                                                           \
        static const int want_[] = {__VA_ARGS__};                                                  \
        assert_int_equal((n), (int)(sizeof want_ / sizeof want_[0]));                              \
        expect_perm_at((perm), want_, (n), __FILE__, __LINE__);                                    \
    } while (0)

/* An assignment matrix as JAX's tests write it, one tuple of physical
 * axes per logical axis (bit p: physical axis p): each assigned physical
 * axis contributes its whole size. */
static void expect_whole_axes(int n_phys, const int64_t *phys, int n_axes,
                              int64_t a[][MG_TPU_MAX_AXES], const unsigned *masks)
{
    int p, l;
    for (p = 0; p < n_phys; p++)
        for (l = 0; l < n_axes; l++) {
            int64_t want = masks[l] & (1u << p) ? phys[p] : 1;
            if (a[p][l] != want)
                fail_msg("assignment[%d][%d] = %lld, expected %lld", p, l, (long long)a[p][l],
                         (long long)want);
        }
}

static void expect_matrix(int n_phys, int n_axes, int64_t a[][MG_TPU_MAX_AXES], const int64_t *want)
{
    int p, l;
    for (p = 0; p < n_phys; p++)
        for (l = 0; l < n_axes; l++)
            if (a[p][l] != want[p * n_axes + l])
                fail_msg("assignment[%d][%d] = %lld, expected %lld", p, l, (long long)a[p][l],
                         (long long)want[p * n_axes + l]);
}

/* The physical mesh of the mock devices (shape and cells). */
static int physical(const char *kind, struct devs v, int64_t shape[MG_TPU_MAX_PHYSICAL],
                    int32_t **cells)
{
    char reason[MG_TPU_REASON_MAX];
    int rank;
    *cells = calloc((size_t)v.n, sizeof **cells);
    assert_non_null(*cells);
    rank = mg_tpu_physical_mesh(kind, v.d, v.n, shape, *cells, reason, sizeof reason);
    if (rank < 0)
        fail_msg("%s", reason);
    return rank;
}

/* JAX's Mesh._local_mesh check: the devices of each process span a box of
 * mesh coordinates that holds no other process's device. Returns the first
 * process whose box does, or -1. */
static int first_split_process(struct devs v, const int32_t *perm, const int64_t *shape, int n_axes)
{
    int procs = 0, p, m, k;
    for (m = 0; m < v.n; m++)
        procs = v.d[m].process + 1 > procs ? v.d[m].process + 1 : procs;
    for (p = 0; p < procs; p++) {
        int64_t lo[MG_TPU_MAX_AXES], hi[MG_TPU_MAX_AXES], c[MG_TPU_MAX_AXES];
        for (k = 0; k < n_axes; k++)
            lo[k] = shape[k], hi[k] = -1;
        for (m = 0; m < v.n; m++) {
            int64_t rest = m;
            for (k = n_axes - 1; k >= 0; k--)
                c[k] = rest % shape[k], rest /= shape[k];
            if (v.d[perm[m]].process != p)
                continue;
            for (k = 0; k < n_axes; k++) {
                lo[k] = c[k] < lo[k] ? c[k] : lo[k];
                hi[k] = c[k] > hi[k] ? c[k] : hi[k];
            }
        }
        for (m = 0; m < v.n; m++) {
            int64_t rest = m;
            bool inside = true;
            for (k = n_axes - 1; k >= 0; k--)
                c[k] = rest % shape[k], rest /= shape[k];
            for (k = 0; k < n_axes; k++)
                inside = inside && c[k] >= lo[k] && c[k] <= hi[k];
            if (inside && v.d[perm[m]].process != p)
                return p;
        }
    }
    return -1;
}

/* ---- mock devices and the physical mesh ----------------------------------------------- */

/* Reference case: JAX test_bounds_from_last_device (2x2x1_t, 2x2x1_f,
 * 8x8x16_t, 8x8x16_f): the last device in JAX's order sits at the far
 * corner, on the last core. */
static void test_bounds_from_last_device(void **state)
{
    static const int cases[][4] = {{2, 2, 1, 1}, {2, 2, 1, 2}, {8, 8, 16, 1}, {8, 8, 16, 2}};
    int i;
    (void)state;
    for (i = 0; i < 4; i++) {
        struct devs v = mock_slice(cases[i][0], cases[i][1], cases[i][2], cases[i][3], 1);
        const struct mg_tpu_device *last = &v.d[v.n - 1];
        assert_int_equal(last->coords[0] + 1, cases[i][0]);
        assert_int_equal(last->coords[1] + 1, cases[i][1]);
        assert_int_equal(last->coords[2] + 1, cases[i][2]);
        assert_int_equal(last->core_on_chip + 1, cases[i][3]);
        free(v.d);
    }
}

/* Reference case: JAX test_get_physical_tpu_mesh (1x2x1_t, 4x4x4_t,
 * 4x4x4_f, 8x8x16_t, 8x8x16_f; _t: devices given in reverse): the physical
 * mesh is indexed x, y, z, major to minor. */
static void test_get_physical_tpu_mesh(void **state)
{
    static const int cases[][4] = {
        {1, 2, 1, 1}, {4, 4, 4, 1}, {4, 4, 4, 0}, {8, 8, 16, 1}, {8, 8, 16, 0}};
    int c, i, j, k;
    (void)state;
    for (c = 0; c < 5; c++) {
        struct devs v = mock_slice(cases[c][0], cases[c][1], cases[c][2], 1, 1);
        int64_t shape[MG_TPU_MAX_PHYSICAL];
        int32_t *cells;
        if (cases[c][3])
            for (i = 0; i < v.n / 2; i++) {
                struct mg_tpu_device t = v.d[i];
                v.d[i] = v.d[v.n - 1 - i];
                v.d[v.n - 1 - i] = t;
            }
        assert_int_equal(physical("TPU v4", v, shape, &cells), 3);
        for (k = 0; k < 3; k++)
            assert_int_equal(shape[k], cases[c][k]);
        for (i = 0; i < cases[c][0]; i++)
            for (j = 0; j < cases[c][1]; j++)
                for (k = 0; k < cases[c][2]; k++) {
                    const struct mg_tpu_device *d =
                        &v.d[cells[(i * cases[c][1] + j) * cases[c][2] + k]];
                    assert_int_equal(d->coords[0], i);
                    assert_int_equal(d->coords[1], j);
                    assert_int_equal(d->coords[2], k);
                }
        free(cells);
        free(v.d);
    }
}

/* Reference case: JAX test_get_physical_tpu_mesh_with_subslice_TPU_v2_1x1:
 * v2's two cores take the place of z; one core alone is a 1x1x1 mesh. */
static void test_get_physical_tpu_mesh_with_subslice_TPU_v2_1x1(void **state)
{
    struct devs v = mock_slice(1, 1, 1, 2, 1), one;
    int64_t shape[MG_TPU_MAX_PHYSICAL];
    int32_t *cells, *sub;
    int core;
    (void)state;
    assert_int_equal(physical("TPU v2", v, shape, &cells), 3);
    assert_int_equal(shape[0], 1);
    assert_int_equal(shape[1], 1);
    assert_int_equal(shape[2], 2);
    for (core = 0; core < 2; core++) {
        one.d = &v.d[cells[core]];
        one.n = 1;
        assert_int_equal(physical("TPU v2", one, shape, &sub), 3);
        assert_int_equal(shape[0] * shape[1] * shape[2], 1);
        assert_int_equal(sub[0], 0);
        assert_int_equal(one.d->coords[0] + one.d->coords[1] + one.d->coords[2], 0);
        assert_int_equal(one.d->core_on_chip, core);
        free(sub);
    }
    free(cells);
    free(v.d);
}

/* Reference case: JAX test_get_physical_tpu_mesh_with_subslice_TPU_v4_1x2x1:
 * a single device, at the origin or not, is a 1x1x1 mesh. */
static void test_get_physical_tpu_mesh_with_subslice_TPU_v4_1x2x1(void **state)
{
    struct devs v = mock_slice(1, 2, 1, 1, 1), one;
    int64_t shape[MG_TPU_MAX_PHYSICAL];
    int32_t *cells, *sub;
    int y;
    (void)state;
    assert_int_equal(physical("TPU v4", v, shape, &cells), 3);
    assert_int_equal(shape[0], 1);
    assert_int_equal(shape[1], 2);
    assert_int_equal(shape[2], 1);
    for (y = 0; y < 2; y++) {
        one.d = &v.d[cells[y]];
        one.n = 1;
        assert_int_equal(one.d->coords[1], y);
        assert_int_equal(physical("TPU v4", one, shape, &sub), 3);
        assert_int_equal(shape[0] * shape[1] * shape[2], 1);
        free(sub);
    }
    free(cells);
    free(v.d);
}

/* Reference case: JAX test_get_physical_tpu_mesh_with_subslice_TPU_v5e_4x4:
 * each half (y 0-1, y 2-3) of a 4x4 is a 4x2x1 mesh of the same devices. */
static void test_get_physical_tpu_mesh_with_subslice_TPU_v5e_4x4(void **state)
{
    struct devs v = mock_slice(4, 4, 1, 1, 1), sub;
    int64_t shape[MG_TPU_MAX_PHYSICAL];
    int32_t *cells, *scells;
    int start, x, dy;
    (void)state;
    assert_int_equal(physical("TPU v5e", v, shape, &cells), 3);
    assert_int_equal(shape[0] * 100 + shape[1] * 10 + shape[2], 441);
    sub.n = 8;
    sub.d = calloc(8, sizeof *sub.d);
    assert_non_null(sub.d);
    for (start = 0; start <= 2; start += 2) {
        for (x = 0; x < 4; x++)
            for (dy = 0; dy < 2; dy++)
                sub.d[x * 2 + dy] = v.d[cells[x * 4 + start + dy]];
        assert_int_equal(physical("TPU v5e", sub, shape, &scells), 3);
        assert_int_equal(shape[0] * 100 + shape[1] * 10 + shape[2], 421);
        for (x = 0; x < 4; x++)
            for (dy = 0; dy < 2; dy++)
                assert_int_equal(sub.d[scells[x * 2 + dy]].id, v.d[cells[x * 4 + start + dy]].id);
        free(scells);
    }
    free(sub.d);
    free(cells);
    free(v.d);
}

/* Reference case: JAX test_get_physical_tpu_mesh_with_bad_subslice: seven
 * devices of a 4x2 box, and then eight with one twice, are not a cuboid. */
static void test_get_physical_tpu_mesh_with_bad_subslice(void **state)
{
    struct devs v = mock_slice(4, 4, 1, 1, 1), sub;
    int64_t shape[MG_TPU_MAX_PHYSICAL];
    int32_t *cells, scells[8];
    char reason[MG_TPU_REASON_MAX];
    int x, dy;
    (void)state;
    physical("TPU v5e", v, shape, &cells);
    sub.d = calloc(8, sizeof *sub.d);
    assert_non_null(sub.d);
    sub.n = 0;
    for (x = 0; x < 4; x++)
        for (dy = 0; dy < 2; dy++)
            if (x != 0 || dy != 0)
                sub.d[sub.n++] = v.d[cells[x * 4 + 2 + dy]];
    assert_int_equal(
        mg_tpu_physical_mesh("TPU v5e", sub.d, sub.n, shape, scells, reason, sizeof reason), -1);
    expect_text(reason, "not a contiguous cuboid");
    sub.d[sub.n++] = v.d[cells[2 * 4 + 2]];
    assert_int_equal(
        mg_tpu_physical_mesh("TPU v5e", sub.d, sub.n, shape, scells, reason, sizeof reason), -1);
    expect_text(reason, "not a contiguous cuboid: their physical mesh has a hole at (0, 0, 0)");
    free(sub.d);
    free(cells);
    free(v.d);
}

/* ---- the n-d torus assignment ------------------------------------------------------ */

/* JAX test_create_device_mesh_for_nd_torus and ..._split_axes_backward_
 * compatible: the mock's physical mesh, the assignment of whole axes. */
static void nd_torus_case(int x, int y, int z, const char *kind, const int64_t *shape, int n_axes,
                          const unsigned *masks, bool split_only)
{
    struct devs v = mock_slice(x, y, z, 1, 1);
    int64_t phys[MG_TPU_MAX_PHYSICAL], a[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES];
    int32_t *cells;
    char reason[MG_TPU_REASON_MAX];
    int rank = physical(kind, v, phys, &cells);
    bool split;
    int rc = split_only ? mg_tpu_split_assign(rank, phys, n_axes, shape, a, reason, sizeof reason)
                        : mg_tpu_torus_assign(NULL, rank, phys, n_axes, shape, false, a, &split,
                                              reason, sizeof reason);
    if (rc != 0)
        fail_msg("%s", reason);
    expect_whole_axes(rank, phys, n_axes, a, masks);
    free(cells);
    free(v.d);
}

#define ND_TORUS(jax, name, x, y, z, kind, shape3, m0, m1, m2, split_only)                         \
    static void test_##jax##__##name(void **state)                                                 \
    {                                                                                              \
        static const int64_t s_[] = {shape3};                                                      \
        static const unsigned m_[] = {m0, m1, m2};                                                 \
        (void)state;                                                                               \
        nd_torus_case(x, y, z, kind, s_, (int)(sizeof s_ / sizeof s_[0]), m_, split_only);         \
    }
/* A shape as one macro argument. */
#define S3(a, b, c) a, b, c
#define S2(a, b) a, b
/* Masks: bit p is physical axis p; (0, 1, 2) is 7, (2,) is 4, () is 0. */
#define ND_CASES(jax, split_only)                                                                  \
    ND_TORUS(jax, 2x2x1, 2, 2, 1, "TPU v4", S3(1, 1, 4), 0, 0, 7, split_only)                      \
    ND_TORUS(jax, 2x2x4, 2, 2, 4, "TPU v4", S3(1, 4, 4), 0, 4, 3, split_only)                      \
    ND_TORUS(jax, 4x4x4, 4, 4, 4, "TPU v4", S3(1, 16, 4), 0, 6, 1, split_only)                     \
    ND_TORUS(jax, 4x4x8a, 4, 4, 8, "TPU v4", S3(1, 16, 8), 0, 3, 4, split_only)                    \
    ND_TORUS(jax, 4x4x8b, 4, 4, 8, "TPU v4", S3(1, 8, 16), 0, 4, 3, split_only)                    \
    ND_TORUS(jax, 4x4x8c, 4, 4, 8, "TPU v4", S3(16, 8, 1), 3, 4, 0, split_only)                    \
    ND_TORUS(jax, 4x8x8, 4, 8, 8, "TPU v4", S3(1, 32, 8), 0, 5, 2, split_only)                     \
    ND_TORUS(jax, 8x8x8, 8, 8, 8, "TPU v4", S3(1, 64, 8), 0, 6, 1, split_only)                     \
    ND_TORUS(jax, 8x8x16, 8, 8, 16, "TPU v4", S3(1, 64, 16), 0, 3, 4, split_only)                  \
    ND_TORUS(jax, 8x8, 8, 8, 1, "TPU v3", S2(8, 8), 2, 5, 0, split_only)

/* Reference cases: JAX test_create_device_mesh_for_nd_torus. */
ND_CASES(create_device_mesh_for_nd_torus, false)
/* Reference cases: JAX test_create_device_mesh_for_nd_torus_split_axes_
 * backward_compatible: the splitting algorithm agrees where no axis splits. */
ND_CASES(nd_torus_split_axes_backward_compatible, true)

/* Reference cases: JAX test_create_device_mesh_for_nd_torus_split_axes_can_
 * handle_axes_split: whole axes fail, allow_split finds these matrices
 * (rows: physical axes; columns: logical axes). */
static void split_case(int x, int y, int z, const char *kind, const int64_t *shape, int n_axes,
                       const int64_t *want)
{
    struct devs v = mock_slice(x, y, z, 1, 1);
    int64_t phys[MG_TPU_MAX_PHYSICAL], a[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES];
    int32_t *cells;
    char reason[MG_TPU_REASON_MAX];
    int rank = physical(kind, v, phys, &cells);
    bool split;
    if (mg_tpu_torus_assign(NULL, rank, phys, n_axes, shape, true, a, &split, reason,
                            sizeof reason))
        fail_msg("%s", reason);
    assert_true(split);
    expect_matrix(rank, n_axes, a, want);
    /* Without allow_split the same shape is refused. */
    assert_int_equal(mg_tpu_torus_assign(NULL, rank, phys, n_axes, shape, false, a, &split, reason,
                                         sizeof reason),
                     -1);
    expect_text(reason, "Failed to find assignment for logical_axis_index");
    free(cells);
    free(v.d);
}

static void test_nd_torus_split_axes_can_handle_axes_split__4x4x4a(void **state)
{
    static const int64_t shape[] = {2, 1, 32};
    static const int64_t want[] = {1, 1, 4, 1, 1, 4, 2, 1, 2};
    (void)state;
    split_case(4, 4, 4, "TPU v4", shape, 3, want);
}

static void test_nd_torus_split_axes_can_handle_axes_split__4x4x4b(void **state)
{
    static const int64_t shape[] = {8, 8, 1};
    static const int64_t want[] = {1, 4, 1, 2, 2, 1, 4, 1, 1};
    (void)state;
    split_case(4, 4, 4, "TPU v4", shape, 3, want);
}

static void test_nd_torus_split_axes_can_handle_axes_split__4x4x8a(void **state)
{
    static const int64_t shape[] = {2, 2, 8, 4};
    static const int64_t want[] = {1, 1, 1, 4, 2, 2, 1, 1, 1, 1, 8, 1};
    (void)state;
    split_case(4, 4, 8, "TPU v4", shape, 4, want);
}

static void test_nd_torus_split_axes_can_handle_axes_split__4x4x8b(void **state)
{
    static const int64_t shape[] = {2, 4, 1, 16};
    static const int64_t want[] = {1, 1, 1, 4, 1, 1, 1, 4, 2, 4, 1, 1};
    (void)state;
    split_case(4, 4, 8, "TPU v4", shape, 4, want);
}

static void test_nd_torus_split_axes_can_handle_axes_split__4x8x8(void **state)
{
    static const int64_t shape[] = {1, 128, 2};
    static const int64_t want[] = {1, 2, 2, 1, 8, 1, 1, 8, 1};
    (void)state;
    split_case(4, 8, 8, "TPU v4", shape, 3, want);
}

static void test_nd_torus_split_axes_can_handle_axes_split__8x8(void **state)
{
    static const int64_t shape[] = {2, 1, 32, 1};
    static const int64_t want[] = {1, 1, 8, 1, 2, 1, 4, 1, 1, 1, 1, 1};
    (void)state;
    split_case(8, 8, 1, "TPU v3", shape, 4, want);
}

/* ---- uniform sharding (JAX test_create_device_mesh_has_computable_global_shape) ---- */

/* Along one array dimension sharded over mesh axes `axes` (the first most
 * significant): every process holds as many distinct shards, and any two
 * processes hold the same shards or none in common -- JAX's conditions for
 * local_to_global_shape to answer. */
static bool uniform_dim(struct devs v, const int32_t *perm, const int64_t *shape, int n_axes,
                        const int *axes, int n_dim)
{
    int procs = 0, m, k, p, q;
    int64_t shards = 1;
    unsigned char *held;
    bool ok = true;
    for (k = 0; k < n_dim; k++)
        shards *= shape[axes[k]];
    for (m = 0; m < v.n; m++)
        procs = v.d[m].process + 1 > procs ? v.d[m].process + 1 : procs;
    held = calloc((size_t)procs * (size_t)shards, 1);
    assert_non_null(held);
    for (m = 0; m < v.n; m++) {
        int64_t c[MG_TPU_MAX_AXES], rest = m, s = 0;
        for (k = n_axes - 1; k >= 0; k--)
            c[k] = rest % shape[k], rest /= shape[k];
        for (k = 0; k < n_dim; k++)
            s = s * shape[axes[k]] + c[axes[k]];
        held[(size_t)v.d[perm[m]].process * (size_t)shards + (size_t)s] = 1;
    }
    for (p = 0; p < procs && ok; p++)
        for (q = p + 1; q < procs && ok; q++) {
            int64_t s, np = 0, nq = 0, both = 0;
            for (s = 0; s < shards; s++) {
                np += held[(size_t)p * (size_t)shards + (size_t)s];
                nq += held[(size_t)q * (size_t)shards + (size_t)s];
                both += held[(size_t)p * (size_t)shards + (size_t)s] &
                        held[(size_t)q * (size_t)shards + (size_t)s];
            }
            ok = np == nq && (both == 0 || both == np);
        }
    free(held);
    return ok;
}

static int shapes_tried;

/* factorize(n, 3) of the JAX test: the first factor at least 2, the rest
 * of n split the same way, (1, 1) once n is used up. */
static void computable_for(struct devs v, const char *kind, int64_t n, int64_t *shape, int depth)
{
    static const int spec_a[] = {0}, spec_b[] = {1}, spec_c[] = {2}, spec_ac[] = {0, 2};
    struct mg_tpu_result r;
    struct opts o = {.split = true};
    int64_t i;
    if (depth == 2 || n == 1) {
        for (i = depth; i < 3; i++)
            shape[i] = i == depth ? n : 1;
        mesh_of(kind, v, shape, 3, o, &r);
        if (!uniform_dim(v, r.perm, shape, 3, spec_a, 1) ||
            !uniform_dim(v, r.perm, shape, 3, spec_b, 1) ||
            !uniform_dim(v, r.perm, shape, 3, spec_c, 1) ||
            !uniform_dim(v, r.perm, shape, 3, spec_ac, 2))
            fail_msg("mesh (%lld, %lld, %lld): a sharding is not uniform across processes",
                     (long long)shape[0], (long long)shape[1], (long long)shape[2]);
        free(r.perm);
        shapes_tried++;
        return;
    }
    for (i = 2; i <= n; i++)
        if (n % i == 0) {
            shape[depth] = i;
            computable_for(v, kind, n / i, shape, depth + 1);
        }
}

/* Reference cases: JAX test_create_device_mesh_has_computable_global_shape
 * (2x2x1, 2x2x4, 4x4x4, 4x4x8, 4x8x8, 8x8): for every 3-factor shape, with
 * allow_split, P('a', 'b', 'c') and P(('a', 'c'), 'b') are uniform. */
static void test_create_device_mesh_has_computable_global_shape(void **state)
{
    static const int cases[][3] = {{2, 2, 1}, {2, 2, 4}, {4, 4, 4},
                                   {4, 4, 8}, {4, 8, 8}, {8, 8, 1}};
    int c;
    (void)state;
    for (c = 0; c < 6; c++) {
        struct devs v = mock_slice(cases[c][0], cases[c][1], cases[c][2], 1, 1);
        int64_t shape[3];
        shapes_tried = 0;
        computable_for(v, c == 5 ? "TPU v3" : "TPU v4", v.n, shape, 0);
        assert_true(shapes_tried > 0);
        free(v.d);
    }
}

/* ---- create_hybrid_device_mesh ---------------------------------------------------- */

/* Reference cases: JAX test_create_hybrid_device_mesh (2X4x4x4a: ici (1, 16,
 * 4), dcn (2, 1, 1); 2X4x4x4b: ici (1, 4, 16), dcn (1, 2, 1)) on two v4
 * 4x4x4 slices: the mesh is ici x dcn, and (earlier JAX versions assert)
 * stepping one along the DCN axis keeps the coordinates and changes slice. */
static void hybrid_case(const int64_t *ici, const int64_t *dcn, int dcn_axis)
{
    struct devs v = mock_slice(4, 4, 4, 1, 2);
    struct mg_tpu_result r;
    struct opts o = {.dcn = dcn, .sort_granules = true};
    int64_t total[3];
    int m, k;
    int32_t *perm = mesh_of("TPU v4", v, ici, 3, o, &r);
    for (k = 0; k < 3; k++)
        total[k] = ici[k] * dcn[k];
    assert_int_equal(total[0] * total[1] * total[2], v.n);
    /* Every position in the first DCN block, and its twin in the second. */
    for (m = 0; m < v.n; m++) {
        int64_t c[3], rest = m, twin = 0;
        for (k = 2; k >= 0; k--)
            c[k] = rest % total[k], rest /= total[k];
        if (c[dcn_axis] >= ici[dcn_axis])
            continue;
        c[dcn_axis] += ici[dcn_axis];
        for (k = 0; k < 3; k++)
            twin = twin * total[k] + c[k];
        assert_int_equal(v.d[perm[m]].slice, 0);
        assert_int_equal(v.d[perm[twin]].slice, 1);
        for (k = 0; k < 3; k++)
            assert_int_equal(v.d[perm[m]].coords[k], v.d[perm[twin]].coords[k]);
    }
    free(perm);
    free(v.d);
}

static void test_create_hybrid_device_mesh__2X4x4x4a(void **state)
{
    static const int64_t ici[] = {1, 16, 4}, dcn[] = {2, 1, 1};
    (void)state;
    hybrid_case(ici, dcn, 0);
}

static void test_create_hybrid_device_mesh__2X4x4x4b(void **state)
{
    static const int64_t ici[] = {1, 4, 16}, dcn[] = {1, 2, 1};
    (void)state;
    hybrid_case(ici, dcn, 1);
}

/* Reference cases: JAX test_create_hybrid_device_mesh_device_sorting: with
 * the slices listed in reverse, sorting granules by key gives the mesh of
 * the unreversed list unsorted; unsorted, slice 1 comes first. */
static void sorting_case(const int64_t *ici, const int64_t *dcn)
{
    struct devs v = mock_slice(4, 4, 4, 1, 2), rev;
    struct mg_tpu_result r1, r2, r3;
    struct opts unsorted = {.dcn = dcn}, sorted = {.dcn = dcn, .sort_granules = true};
    int half = v.n / 2, i;
    rev.n = v.n;
    rev.d = calloc((size_t)v.n, sizeof *rev.d);
    assert_non_null(rev.d);
    memcpy(rev.d, v.d + half, (size_t)half * sizeof *v.d);
    memcpy(rev.d + half, v.d, (size_t)half * sizeof *v.d);
    mesh_of("TPU v4", v, ici, 3, unsorted, &r1);
    mesh_of("TPU v4", rev, ici, 3, sorted, &r2);
    mesh_of("TPU v4", rev, ici, 3, unsorted, &r3);
    for (i = 0; i < v.n; i++) {
        assert_int_equal(v.d[r1.perm[i]].id, rev.d[r2.perm[i]].id);
        /* Unsorted, the reversed list puts slice 1 where slice 0 was. */
        assert_int_equal(rev.d[r3.perm[i]].slice, 1 - v.d[r1.perm[i]].slice);
    }
    free(r1.perm);
    free(r2.perm);
    free(r3.perm);
    free(rev.d);
    free(v.d);
}

static void test_create_hybrid_device_mesh_device_sorting__2X4x4x4a(void **state)
{
    static const int64_t ici[] = {1, 16, 4}, dcn[] = {2, 1, 1};
    (void)state;
    sorting_case(ici, dcn);
}

static void test_create_hybrid_device_mesh_device_sorting__2X4x4x4b(void **state)
{
    static const int64_t ici[] = {1, 4, 16}, dcn[] = {1, 2, 1};
    (void)state;
    sorting_case(ici, dcn);
}

/* ---- device-kind handlers -------------------------------------------------------- */

/* Reference cases: JAX test_v3_create_device_mesh (ids of the mesh). */
static void test_v3_create_device_mesh__2x2_1d(void **state)
{
    static const int64_t shape[] = {8};
    struct devs v = mock_slice(2, 2, 1, 2, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    mesh_of("TPU v3", v, shape, 1, o, &r);
    assert_int_equal(r.method, MG_TPU_HANDLER);
    expect_ids(v, r.perm, 0, 1, 2, 3, 6, 7, 4, 5);
    free(r.perm);
    free(v.d);
}

static void test_v3_create_device_mesh__2x2_2d(void **state)
{
    static const int64_t shape[] = {2, 4};
    struct devs v = mock_slice(2, 2, 1, 2, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    mesh_of("TPU v3", v, shape, 2, o, &r);
    expect_ids(v, r.perm, 0, 1, 2, 3, /**/ 6, 7, 4, 5);
    free(r.perm);
    free(v.d);
}

static void test_v3_create_device_mesh__4x4_2d(void **state)
{
    static const int64_t shape[] = {4, 8};
    struct devs v = mock_slice(4, 4, 1, 2, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    mesh_of("TPU v3", v, shape, 2, o, &r);
    expect_ids(v, r.perm, 0, 1, 2, 3, 10, 11, 8, 9, /**/ 4, 5, 6, 7, 14, 15, 12, 13, /**/ 16, 17,
               18, 19, 26, 27, 24, 25, /**/ 20, 21, 22, 23, 30, 31, 28, 29);
    free(r.perm);
    free(v.d);
}

/* Reference cases: JAX test_v5e_create_device_mesh (4x2_1d: ring order over
 * the tray; 2x2x2_1d: iota order). */
static void test_v5e_create_device_mesh__4x2_1d(void **state)
{
    static const int64_t shape[] = {8};
    struct devs v = mock_slice(4, 2, 1, 1, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    mesh_of("TPU v5 lite", v, shape, 1, o, &r);
    expect_ids(v, r.perm, 0, 1, 2, 3, 7, 6, 5, 4);
    free(r.perm);
    free(v.d);
}

static void test_v5e_create_device_mesh__2x2x2_1d(void **state)
{
    static const int64_t shape[] = {8};
    struct devs v = mock_slice(2, 2, 2, 1, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    mesh_of("TPU v5 lite", v, shape, 1, o, &r);
    expect_ids(v, r.perm, 0, 4, 2, 6, 1, 5, 3, 7);
    free(r.perm);
    free(v.d);
}

/* Reference cases: JAX test_v7x_create_device_mesh (logical shape, physical
 * chips, expected ids): rings of 8 devices over 2x2 chips and both cores,
 * repeated along z; one chip falls to the torus. */
static void v7x_case(const int64_t *shape, int n_axes, int x, int y, int z, const int *want, int n)
{
    struct devs v = mock_slice(x, y, z, 2, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    assert_int_equal(v.n, n);
    mesh_of("TPU7x", v, shape, n_axes, o, &r);
    expect_ids_at(v, r.perm, want, n, __FILE__, __LINE__);
    free(r.perm);
    free(v.d);
}

#define V7X(name, x, y, z, shape, ...)                                                             \
    static void test_v7x_create_device_mesh__##name(void **state)                                  \
    {                                                                                              \
        static const int64_t s_[] = {shape};                                                       \
        static const int w_[] = {__VA_ARGS__};                                                     \
        (void)state;                                                                               \
        v7x_case(s_, (int)(sizeof s_ / sizeof s_[0]), x, y, z, w_,                                 \
                 (int)(sizeof w_ / sizeof w_[0]));                                                 \
    }
V7X(1x1x2, 1, 1, 1, S3(1, 1, 2), 0, 1)
V7X(2x1x4, 2, 2, 1, S3(2, 1, 4), 0, 1, 2, 3, 6, 7, 4, 5)
V7X(4x1x2, 2, 2, 1, S3(4, 1, 2), 0, 1, 2, 3, 6, 7, 4, 5)
V7X(4x2x2, 2, 2, 2, S3(4, 2, 2), 0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13)
V7X(8x2, 2, 2, 2, S2(2, 8), 0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13)
V7X(4x4x2, 2, 2, 4, S3(4, 4, 2), 0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13, 16, 17, 18,
    19, 22, 23, 20, 21, 24, 25, 26, 27, 30, 31, 28, 29)
V7X(4x2x4, 2, 2, 4, S3(4, 2, 4), 0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13, 16, 17, 18,
    19, 22, 23, 20, 21, 24, 25, 26, 27, 30, 31, 28, 29)
V7X(8x4, 2, 2, 4, S2(8, 4), 0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13, 16, 17, 18, 19,
    22, 23, 20, 21, 24, 25, 26, 27, 30, 31, 28, 29)
V7X(4x8, 2, 2, 4, S2(4, 8), 0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13, 16, 17, 18, 19,
    22, 23, 20, 21, 24, 25, 26, 27, 30, 31, 28, 29)

/* Reference case: JAX test_v7x_create_device_mesh_fallback: half of a
 * 2x4x4 TPU7x slice (32 devices over 2x4 chips in x and y) is no ring; the
 * torus lays it out as (1, 32). The ids below follow from the physical
 * order x, y, z, core (JAX asserts the shape only). */
static void test_v7x_create_device_mesh_fallback(void **state)
{
    static const int64_t shape[] = {1, 32};
    struct devs all = mock_slice(2, 4, 4, 2, 1), half;
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    half.n = 32;
    half.d = all.d;
    mesh_of("TPU7x", half, shape, 2, o, &r);
    assert_int_equal(r.method, MG_TPU_TORUS);
    assert_int_equal(r.n_physical, 4);
    assert_int_equal(half.d[r.perm[1]].id, 1);  /* the other core of chip (0,0,0) */
    assert_int_equal(half.d[r.perm[2]].id, 16); /* then z: chip (0,0,1) */
    assert_int_equal(half.d[r.perm[4]].id, 4);  /* then y: chip (0,1,0) */
    free(r.perm);
    half.d = all.d + 32;
    mesh_of("TPU7x", half, shape, 2, o, &r);
    assert_int_equal(half.d[r.perm[0]].id, 32); /* chip (0,0,2): coordinates need not start at 0 */
    assert_int_equal(half.d[r.perm[2]].id, 48);
    assert_int_equal(half.d[r.perm[4]].id, 36);
    free(r.perm);
    free(all.d);
}

/* ---- JAX 0.11.2: its handler table, and orders its own code computes ------------ */

/* JAX 0.11.2's device_kind_handler_dict (jax/_src/mesh_utils.py, the file
 * docs/tpu.md names with its sha256), key by key in its order, with the
 * function each key runs. A new JAX release that changes the dict is a
 * changed line here and in gen/tpu.c's table. */
static const char *const jax_handlers[][2] = {
    {"TPU v2", "_tpu_v2_v3_create_device_mesh"},
    {"TPU v3", "_tpu_v2_v3_create_device_mesh"},
    {"TPU v4 lite", "_v4i_v8i_create_device_mesh"},
    {"TPU v5 lite", "_v5e_create_device_mesh"},
    {"TPU v5e", "_v5e_create_device_mesh"},
    {"TPU v5p", "_v5p_create_device_mesh"},
    {"TPU v5", "_v5p_create_device_mesh"},
    {"TPU v6 lite", "_v5e_create_device_mesh"},
    {"TPU7x", "_7x_create_device_mesh"},
    {"TPU7", "_7x_create_device_mesh"},
    {"TPU8i", "_v4i_v8i_create_device_mesh"},
};
#define N_JAX_HANDLERS ((int)(sizeof jax_handlers / sizeof jax_handlers[0]))

static void test_handler_table_is_jax_0_11_2(void **state)
{
    const char *fn = NULL;
    int i;
    (void)state;
    assert_string_equal(MG_TPU_JAX_VERSION, "0.11.2");
    assert_int_equal(mg_tpu_handler_count(), N_JAX_HANDLERS);
    for (i = 0; i < N_JAX_HANDLERS; i++) {
        const char *kind = mg_tpu_handler_kind(i, &fn);
        assert_non_null(kind);
        if (strcmp(kind, jax_handlers[i][0]) != 0 || strcmp(fn, jax_handlers[i][1]) != 0)
            fail_msg("handler %d is %s -> %s; JAX 0.11.2 has %s -> %s", i, kind, fn,
                     jax_handlers[i][0], jax_handlers[i][1]);
    }
    assert_null(mg_tpu_handler_kind(N_JAX_HANDLERS, &fn));
    assert_null(mg_tpu_handler_kind(-1, NULL));
}

/* Orders computed by JAX 0.11.2's own jax/_src/mesh_utils.py (sha256
 * bad7609718685b40aee0255934e8f3eb49dc846c568452c07d5515f4c194a079), run
 * with numpy on fake devices: for each row, the devices of `meshgen resolve`
 * of an inventory with one host group `tpu: FAMILY, topology: TOPOLOGY` of
 * HOSTS workers, each with resolve's id, coords and core_on_chip, its host
 * as process_index, slice_index 0, platform "tpu" and the row's
 * device_kind; then create_device_mesh(SHAPE, devices). The orders are
 * those devices' ids, i.e. positions in meshgen's device order, which is
 * also slice_of()'s. For the torus rows JAX's _get_physical_tpu_mesh and
 * _create_device_mesh_for_nd_torus on the same devices gave the physical
 * shape and the assignment matrix (physical axis x logical axis). The
 * kinds not written by any family (TPU v4 lite, TPU v5e, TPU v5p, TPU7,
 * TPU8i) are given to devices of a family with the layout wanted. */
struct jax_order {
    const char *kind, *family, *topology;
    int hosts, n_axes;
    int64_t shape[3];
    enum mg_tpu_method method;
    int64_t physical[MG_TPU_MAX_PHYSICAL]; /* torus rows; {0} for handler rows */
    int64_t assignment[MG_TPU_MAX_PHYSICAL * 3];
    int n;
    int want[64];
};

static const struct jax_order jax_orders[] = {
    {"TPU v2", "v2", "2x2", 1, 1, {8}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 2, 3, 6, 7, 4, 5}},
    {"TPU v2", "v2", "4x4", 4, 2, {4, 8}, MG_TPU_HANDLER, {0}, {0}, 32, {0,  1,  2,  3,  6,  7,  4,
                                                                         5,  8,  9,  10, 11, 14, 15,
                                                                         12, 13, 16, 17, 18, 19, 22,
                                                                         23, 20, 21, 24, 25, 26, 27,
                                                                         30, 31, 28, 29}},
    {"TPU v2", "v2", "4x4", 4, 2, {8, 4}, MG_TPU_HANDLER, {0}, {0}, 32, {0,  1,  2,  3,  4,  5,  6,
                                                                         7,  8,  9,  10, 11, 12, 13,
                                                                         14, 15, 16, 17, 18, 19, 20,
                                                                         21, 22, 23, 24, 25, 26, 27,
                                                                         28, 29, 30, 31}},
    {"TPU v3", "v3", "4x4", 4, 2, {4, 8}, MG_TPU_HANDLER, {0}, {0}, 32, {0,  1,  2,  3,  6,  7,  4,
                                                                         5,  8,  9,  10, 11, 14, 15,
                                                                         12, 13, 16, 17, 18, 19, 22,
                                                                         23, 20, 21, 24, 25, 26, 27,
                                                                         30, 31, 28, 29}},
    {"TPU v4 lite", "v4", "2x2x1", 1, 2, {2, 2}, MG_TPU_HANDLER, {0}, {0}, 4, {0, 1, 3, 2}},
    {"TPU v4 lite",
     "v4",
     "2x2x2",
     2,
     1,
     {8},
     MG_TPU_TORUS,
     {2, 2, 2},
     {2, 2, 2},
     8,
     {0, 4, 2, 6, 1, 5, 3, 7}},
    {"TPU v5 lite", "v5e", "2x4", 1, 1, {8}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 2, 3, 7, 6, 5, 4}},
    {"TPU v5 lite",
     "v5e",
     "4x4",
     4,
     2,
     {4, 4},
     MG_TPU_TORUS,
     {4, 4, 1},
     {1, 4, 4, 1, 1, 1},
     16,
     {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}},
    {"TPU v5e", "v5e", "2x4", 1, 1, {8}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 2, 3, 7, 6, 5, 4}},
    {"TPU v5e",
     "v5e",
     "4x4",
     4,
     1,
     {16},
     MG_TPU_HANDLER,
     {0},
     {0},
     16,
     {0, 1, 4, 5, 7, 6, 3, 9, 12, 13, 15, 14, 11, 10, 8, 2}},
    {"TPU v6 lite", "v6e", "2x4", 1, 1, {8}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 2, 3, 7, 6, 5, 4}},
    {"TPU v6 lite",
     "v6e",
     "4x4",
     4,
     2,
     {1, 16},
     MG_TPU_HANDLER,
     {0},
     {0},
     16,
     {0, 1, 4, 5, 7, 6, 3, 9, 12, 13, 15, 14, 11, 10, 8, 2}},
    {"TPU v5", "v5p", "2x2x2", 2, 1, {8}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 3, 2, 6, 7, 5, 4}},
    {"TPU v5", "v5p", "2x2x2", 2, 2, {2, 4}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 3, 2, 6, 7, 5, 4}},
    {"TPU v5",
     "v5p",
     "2x2x2",
     2,
     3,
     {2, 2, 2},
     MG_TPU_HANDLER,
     {0},
     {0},
     8,
     {0, 1, 3, 2, 6, 7, 5, 4}},
    {"TPU v5",
     "v5p",
     "2x2x4",
     4,
     1,
     {16},
     MG_TPU_TORUS,
     {2, 2, 4},
     {2, 2, 4},
     16,
     {0, 4, 8, 12, 2, 6, 10, 14, 1, 5, 9, 13, 3, 7, 11, 15}},
    {"TPU v5",
     "v5p",
     "2x2x4",
     4,
     2,
     {4, 4},
     MG_TPU_TORUS,
     {2, 2, 4},
     {1, 2, 1, 2, 4, 1},
     16,
     {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}},
    {"TPU v5",
     "tpu7x",
     "2x2x1",
     1,
     1,
     {8},
     MG_TPU_TORUS,
     {2, 2, 1, 2},
     {2, 2, 1, 2},
     8,
     {0, 1, 4, 5, 2, 3, 6, 7}},
    {"TPU v5p", "v5p", "2x2x2", 2, 1, {8}, MG_TPU_HANDLER, {0}, {0}, 8, {0, 1, 3, 2, 6, 7, 5, 4}},
    {"TPU v5p",
     "v5p",
     "2x2x2",
     2,
     2,
     {2, 4},
     MG_TPU_HANDLER,
     {0},
     {0},
     8,
     {0, 1, 3, 2, 6, 7, 5, 4}},
    {"TPU v5p",
     "v5p",
     "2x2x2",
     2,
     3,
     {2, 2, 2},
     MG_TPU_HANDLER,
     {0},
     {0},
     8,
     {0, 1, 3, 2, 6, 7, 5, 4}},
    {"TPU v5p",
     "tpu7x",
     "2x2x2",
     2,
     2,
     {4, 4},
     MG_TPU_TORUS,
     {2, 2, 2, 2},
     {1, 2, 1, 2, 2, 1, 2, 1},
     16,
     {0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15}},
    {"TPU7x",
     "tpu7x",
     "2x2x2",
     2,
     1,
     {16},
     MG_TPU_HANDLER,
     {0},
     {0},
     16,
     {0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13}},
    {"TPU7x",
     "tpu7x",
     "2x4x4",
     8,
     2,
     {8, 8},
     MG_TPU_TORUS,
     {2, 4, 4, 2},
     {2, 1, 1, 4, 4, 1, 1, 2},
     64,
     {0,  1,  4,  5,  8,  9,  12, 13, 16, 17, 20, 21, 24, 25, 28, 29, 32, 33, 36, 37, 40, 41,
      44, 45, 48, 49, 52, 53, 56, 57, 60, 61, 2,  3,  6,  7,  10, 11, 14, 15, 18, 19, 22, 23,
      26, 27, 30, 31, 34, 35, 38, 39, 42, 43, 46, 47, 50, 51, 54, 55, 58, 59, 62, 63}},
    {"TPU7x",
     "tpu7x",
     "2x4x4",
     8,
     2,
     {2, 32},
     MG_TPU_TORUS,
     {2, 4, 4, 2},
     {2, 1, 1, 4, 1, 4, 1, 2},
     64,
     {0,  1,  16, 17, 32, 33, 48, 49, 4,  5,  20, 21, 36, 37, 52, 53, 8,  9,  24, 25, 40, 41,
      56, 57, 12, 13, 28, 29, 44, 45, 60, 61, 2,  3,  18, 19, 34, 35, 50, 51, 6,  7,  22, 23,
      38, 39, 54, 55, 10, 11, 26, 27, 42, 43, 58, 59, 14, 15, 30, 31, 46, 47, 62, 63}},
    {"TPU7x",
     "tpu7x",
     "2x4x4",
     8,
     2,
     {16, 4},
     MG_TPU_TORUS,
     {2, 4, 4, 2},
     {1, 2, 4, 1, 4, 1, 1, 2},
     64,
     {0,  1,  2,  3,  16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51, 4,  5,  6,  7,  20, 21,
      22, 23, 36, 37, 38, 39, 52, 53, 54, 55, 8,  9,  10, 11, 24, 25, 26, 27, 40, 41, 42, 43,
      56, 57, 58, 59, 12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 60, 61, 62, 63}},
    {"TPU7",
     "tpu7x",
     "2x2x2",
     2,
     2,
     {2, 8},
     MG_TPU_HANDLER,
     {0},
     {0},
     16,
     {0, 1, 2, 3, 6, 7, 4, 5, 8, 9, 10, 11, 14, 15, 12, 13}},
    {"TPU7",
     "tpu7x",
     "2x4x4",
     8,
     2,
     {8, 8},
     MG_TPU_TORUS,
     {2, 4, 4, 2},
     {2, 1, 1, 4, 4, 1, 1, 2},
     64,
     {0,  1,  4,  5,  8,  9,  12, 13, 16, 17, 20, 21, 24, 25, 28, 29, 32, 33, 36, 37, 40, 41,
      44, 45, 48, 49, 52, 53, 56, 57, 60, 61, 2,  3,  6,  7,  10, 11, 14, 15, 18, 19, 22, 23,
      26, 27, 30, 31, 34, 35, 38, 39, 42, 43, 46, 47, 50, 51, 54, 55, 58, 59, 62, 63}},
    {"TPU7",
     "tpu7x",
     "2x4x4",
     8,
     2,
     {2, 32},
     MG_TPU_TORUS,
     {2, 4, 4, 2},
     {2, 1, 1, 4, 1, 4, 1, 2},
     64,
     {0,  1,  16, 17, 32, 33, 48, 49, 4,  5,  20, 21, 36, 37, 52, 53, 8,  9,  24, 25, 40, 41,
      56, 57, 12, 13, 28, 29, 44, 45, 60, 61, 2,  3,  18, 19, 34, 35, 50, 51, 6,  7,  22, 23,
      38, 39, 54, 55, 10, 11, 26, 27, 42, 43, 58, 59, 14, 15, 30, 31, 46, 47, 62, 63}},
    {"TPU8i", "v4", "2x2x1", 1, 1, {4}, MG_TPU_HANDLER, {0}, {0}, 4, {0, 1, 3, 2}},
    {"TPU8i",
     "v4",
     "2x2x2",
     2,
     2,
     {2, 4},
     MG_TPU_TORUS,
     {2, 2, 2, 1},
     {1, 2, 1, 2, 2, 1, 1, 1},
     8,
     {0, 2, 1, 3, 4, 6, 5, 7}},
    {"TPU8i",
     "tpu7x",
     "2x2x1",
     1,
     1,
     {8},
     MG_TPU_TORUS,
     {2, 2, 1, 2},
     {2, 2, 1, 2},
     8,
     {0, 1, 4, 5, 2, 3, 6, 7}},
    {"TPU8i",
     "tpu7x",
     "2x4x4",
     8,
     2,
     {8, 8},
     MG_TPU_TORUS,
     {2, 4, 4, 2},
     {1, 2, 1, 4, 4, 1, 2, 1},
     64,
     {0,  4,  8,  12, 2,  6,  10, 14, 1,  5,  9,  13, 3,  7,  11, 15, 16, 20, 24, 28, 18, 22,
      26, 30, 17, 21, 25, 29, 19, 23, 27, 31, 32, 36, 40, 44, 34, 38, 42, 46, 33, 37, 41, 45,
      35, 39, 43, 47, 48, 52, 56, 60, 50, 54, 58, 62, 49, 53, 57, 61, 51, 55, 59, 63}},
};
#define N_JAX_ORDERS ((int)(sizeof jax_orders / sizeof jax_orders[0]))

static void check_jax_order(const struct jax_order *c)
{
    struct devs v = slice_of(c->family, c->topology, c->hosts, 0);
    struct mg_tpu_result r;
    struct opts o = {0};
    int p, l, rank = 0;

    assert_int_equal(v.n, c->n);
    mesh_of(c->kind, v, c->shape, c->n_axes, o, &r);
    if (r.method != c->method)
        fail_msg("%s %s %s: method %d, JAX's is %d", c->kind, c->family, c->topology, r.method,
                 c->method);
    for (p = 0; p < c->n; p++)
        if (r.perm[p] != c->want[p])
            fail_msg("%s on %s %s, shape %lld x %d axes: mesh position %d holds device %d, JAX "
                     "puts %d there",
                     c->kind, c->family, c->topology, (long long)c->shape[0], c->n_axes, p,
                     r.perm[p], c->want[p]);
    while (rank < MG_TPU_MAX_PHYSICAL && c->physical[rank])
        rank++;
    assert_int_equal(r.n_physical, rank);
    for (p = 0; p < rank; p++) {
        assert_int_equal(r.physical_shape[p], c->physical[p]);
        for (l = 0; l < c->n_axes; l++)
            if (r.assignment[p][l] != c->assignment[p * c->n_axes + l])
                fail_msg("%s %s %s: assignment[%d][%d] = %lld, JAX's is %lld", c->kind, c->family,
                         c->topology, p, l, (long long)r.assignment[p][l],
                         (long long)c->assignment[p * c->n_axes + l]);
    }
    free(r.perm);
    free(v.d);
}

/* Every row above, and every handler key with a row of its own. */
static void test_jax_0_11_2_orders(void **state)
{
    int i, k;
    (void)state;
    for (i = 0; i < N_JAX_ORDERS; i++)
        check_jax_order(&jax_orders[i]);
    for (k = 0; k < mg_tpu_handler_count(); k++) {
        const char *kind = mg_tpu_handler_kind(k, NULL);
        for (i = 0; i < N_JAX_ORDERS && strcmp(jax_orders[i].kind, kind) != 0; i++)
            ;
        if (i == N_JAX_ORDERS)
            fail_msg("no order computed by JAX for the handler key %s", kind);
    }
}

/* TPU7 and TPU7x try the core axis first, TPU8i (the same 4-d physical
 * mesh) does not: the rows above give the two different orders for the
 * same 64 devices. Worked from JAX's rule: on (2, 4, 4, 2) the last logical
 * axis of 8 has no 3- or 4-axis subset; of the pairs of size 8, (y, core)
 * ranks first (core 0, y 2), (x, y) is first in combination order. */
static void test_core_axis_priority(void **state)
{
    static const int64_t phys[] = {2, 4, 4, 2}, shape[] = {8, 8};
    int64_t a[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES];
    char reason[MG_TPU_REASON_MAX];
    bool split;
    (void)state;
    assert_int_equal(
        mg_tpu_torus_assign("TPU7x", 4, phys, 2, shape, false, a, &split, reason, sizeof reason),
        0);
    assert_int_equal(a[1][1] * a[3][1], 8); /* y and the core */
    assert_int_equal(a[0][0] * a[2][0], 8); /* x and z */
    assert_int_equal(
        mg_tpu_torus_assign("TPU8i", 4, phys, 2, shape, false, a, &split, reason, sizeof reason),
        0);
    assert_int_equal(a[0][1] * a[1][1], 8); /* x and y */
    assert_int_equal(a[2][0] * a[3][0], 8); /* z and the core */
    /* A 3-d mesh has no core axis: TPU7x's kind changes nothing there. */
    assert_int_equal(mg_tpu_torus_assign("TPU7x", 3, phys + 1, 2, (const int64_t[]){4, 8}, false, a,
                                         &split, reason, sizeof reason),
                     0);
    assert_int_equal(a[0][1] * a[2][1], 8);
}

/* ---- contiguous submeshes ------------------------------------------------------------ */

/* Reference cases: JAX test_create_contiguous_submeshes_for_tpu_v4 and
 * ..._leading_1_dims: every topology and mesh shape of the transpose table
 * gives each process a contiguous submesh, with or without 1s around. */
static void contiguous_cases(bool pad)
{
    static const int cases[][5] = {{2, 2, 1, 2, 2},     {2, 2, 4, 4, 4},    {4, 4, 4, 16, 4},
                                   {4, 8, 8, 64, 4},    {4, 8, 8, 4, 64},   {8, 8, 8, 64, 8},
                                   {8, 16, 16, 256, 8}, {8, 16, 16, 8, 256}};
    int c;
    for (c = 0; c < 8; c++) {
        struct devs v = mock_slice(cases[c][0], cases[c][1], cases[c][2], 1, 1);
        int64_t shape[6] = {1, 1, cases[c][3], cases[c][4], 1, 1};
        struct mg_tpu_result r;
        struct opts o = {.contiguous = true};
        int64_t *s = pad ? shape : shape + 2;
        int n = pad ? 6 : 2;
        mesh_of("TPU v4", v, s, n, o, &r);
        if (first_split_process(v, r.perm, s, n) >= 0)
            fail_msg("case %d: process %d is not a contiguous submesh", c,
                     first_split_process(v, r.perm, s, n));
        free(r.perm);
        free(v.d);
    }
}

static void test_create_contiguous_submeshes_for_tpu_v4(void **state)
{
    (void)state;
    contiguous_cases(false);
}

static void test_create_contiguous_submeshes_for_tpu_v4_leading_1_dims(void **state)
{
    (void)state;
    contiguous_cases(true);
}

/* The check above can fail: without the transpose, 4x4x4 as (16, 4) is
 * (x) along the columns and (y, z) down the rows, so process 0's chips
 * (x, y < 2, z = 0) sit in rows 0 and 4 with other processes between. */
static void test_contiguous_check_can_fail(void **state)
{
    static const int64_t shape[] = {16, 4};
    struct devs v = mock_slice(4, 4, 4, 1, 1);
    struct mg_tpu_result r;
    struct opts o = {0};
    (void)state;
    mesh_of("TPU v4", v, shape, 2, o, &r);
    assert_int_equal(first_split_process(v, r.perm, shape, 2), 0);
    free(r.perm);
    free(v.d);
}

/* Reference case: JAX test_create_contiguous_submeshes_errors, messages
 * transcribed. */
static void test_create_contiguous_submeshes_errors(void **state)
{
    static const int64_t s1[] = {1, 16, 8}, s2[] = {1, 128, 2};
    struct devs v = mock_slice(4, 4, 8, 1, 1);
    struct opts o = {.contiguous = true};
    (void)state;
    expect_failure("TPU v4", v, s1, 3, o,
                   "create_device_mesh cannot create contiguous submeshes for physical mesh "
                   "topology (4, 4, 8)");
    free(v.d);
    v = mock_slice(4, 8, 8, 1, 1);
    expect_failure("TPU v4", v, s2, 3, o,
                   "create_device_mesh cannot create contiguous submeshes for mesh_shape (1, 128, "
                   "2) and physical mesh topology (4, 8, 8). Available mesh_shapes: [(64, 4), (4, "
                   "64)]");
    free(v.d);
}

/* ---- the steps, as JAX's SplitAxesDeviceMeshCreationTest tests them ---------------- */

/* Reference case: JAX test_get_prime_factors; and 14 and 1164, whose
 * factors JAX 0.11.2's _get_prime_factors gives as [2, 7] and [2, 2, 3, 97]
 * (run on that file, as for jax_orders above): the prime left after trial
 * division is kept with the others. */
static void test_get_prime_factors(void **state)
{
    int64_t f[64];
    (void)state;
    assert_int_equal(mg_tpu_prime_factors(1, f), 0);
    assert_int_equal(mg_tpu_prime_factors(2, f), 1);
    assert_int_equal(f[0], 2);
    assert_int_equal(mg_tpu_prime_factors(4, f), 2);
    assert_int_equal(f[0] * 10 + f[1], 22);
    assert_int_equal(mg_tpu_prime_factors(8, f), 3);
    assert_int_equal(mg_tpu_prime_factors(6, f), 2);
    assert_int_equal(f[0] * 10 + f[1], 23);
    assert_int_equal(mg_tpu_prime_factors(16, f), 4);
    assert_int_equal(mg_tpu_prime_factors(12, f), 3);
    assert_int_equal(f[0] * 100 + f[1] * 10 + f[2], 223);
    assert_int_equal(mg_tpu_prime_factors(121, f), 2);
    assert_int_equal(f[0] * 100 + f[1], 1111);
    assert_int_equal(mg_tpu_prime_factors(43, f), 1);
    assert_int_equal(f[0], 43);
    assert_int_equal(mg_tpu_prime_factors(14, f), 2);
    assert_int_equal(f[0] * 10 + f[1], 27);
    assert_int_equal(mg_tpu_prime_factors(1164, f), 4);
    assert_int_equal(f[0] * 1000000 + f[1] * 10000 + f[2] * 100 + f[3], 2020397);
}

static void enumerate_case(const int64_t *phys, const int64_t *used, int64_t size,
                           const int64_t *want, int n_want)
{
    int64_t got[64 * 3];
    int n = mg_tpu_feasible_assignments(3, phys, used, size, got, 64), i;
    assert_int_equal(n, n_want);
    for (i = 0; i < n * 3; i++)
        if (got[i] != want[i])
            fail_msg("assignment %d, axis %d: %lld, expected %lld", i / 3, i % 3, (long long)got[i],
                     (long long)want[i]);
}

/* Reference cases: JAX test_enumerate_feasible_axis_assignments (2x2x1:
 * infeasible; 12x4x4; 4x4x8), in JAX's order. */
static void test_enumerate_feasible_axis_assignments(void **state)
{
    static const int64_t p1[] = {2, 2, 1}, u1[] = {1, 2, 1};
    static const int64_t p2[] = {12, 4, 4}, u2[] = {2, 2, 1}, w2[] = {6, 1, 1, 3, 2, 1, 3, 1, 2};
    static const int64_t p3[] = {4, 4, 8}, u3[] = {2, 2, 2},
                         w3[] = {2, 2, 1, 2, 1, 2, 1, 2, 2, 1, 1, 4};
    (void)state;
    enumerate_case(p1, u1, 4, NULL, 0);
    enumerate_case(p2, u2, 6, w2, 3);
    enumerate_case(p3, u3, 4, w3, 4);
}

/* Reference cases: JAX test_generate_logical_mesh (2x2x1, 4x4x4, 12x4x8):
 * the logical mesh of an identity physical mesh. JAX checks the round trip
 * back to the physical mesh; the entries below are that reshape worked by
 * hand (docs/tpu.md, "Reading an assignment"). */
static void logical_case(const int64_t *shape, int n_axes, const int64_t *a, int n_phys,
                         const int (*at)[2], int n_at)
{
    int64_t m[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES];
    int64_t n = 1;
    int32_t *cells, *out;
    int p, l, i;
    char *seen;
    for (l = 0; l < n_axes; l++)
        n *= shape[l];
    for (p = 0; p < n_phys; p++)
        for (l = 0; l < n_axes; l++)
            m[p][l] = a[p * n_axes + l];
    cells = calloc((size_t)n, sizeof *cells);
    out = calloc((size_t)n, sizeof *out);
    seen = calloc((size_t)n, 1);
    assert_true(cells && out && seen);
    for (i = 0; i < n; i++)
        cells[i] = i;
    mg_tpu_logical_mesh(n_phys, n_axes, shape, (const int64_t(*)[MG_TPU_MAX_AXES])m, cells, out);
    for (i = 0; i < n_at; i++)
        if (out[at[i][0]] != at[i][1])
            fail_msg("logical %d holds physical %d, expected %d", at[i][0], out[at[i][0]],
                     at[i][1]);
    for (i = 0; i < n; i++) {
        assert_false(seen[out[i]]);
        seen[out[i]] = 1;
    }
    free(cells);
    free(out);
    free(seen);
}

static void test_generate_logical_mesh__2x2x1(void **state)
{
    static const int64_t shape[] = {1, 2, 2, 1}, a[] = {1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1};
    static const int at[][2] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}};
    (void)state;
    logical_case(shape, 4, a, 3, at, 4);
}

static void test_generate_logical_mesh__4x4x4(void **state)
{
    /* Logical (a, 0, c): c is physical x (4), then y's low half (2), then
     * z (4); a is y's high half: physical = 16 x + 4 (2a + y_low) + z. */
    static const int64_t shape[] = {2, 1, 32}, a[] = {1, 1, 4, 2, 1, 2, 1, 1, 4};
    static const int at[][2] = {{1, 1}, {4, 4}, {8, 16}, {32, 8}, {36, 12}, {63, 63}};
    (void)state;
    logical_case(shape, 3, a, 3, at, 6);
}

static void test_generate_logical_mesh__12x4x8(void **state)
{
    /* The matrix's rows multiply to 12, 8, 4, not the physical 12, 4, 8:
     * JAX reshapes the flat mesh regardless, into shares of sizes 2 2 3 |
     * 1 2 4 | 1 2 2, so physical = 192 a + 96 b0 + 32 c0 + 16 b1 + 4 c1 +
     * 2 b2 + c2 with b = 4 b0 + 2 b1 + b2 and c = 8 c0 + 2 c1 + c2. */
    static const int64_t shape[] = {2, 8, 24}, a[] = {2, 2, 3, 1, 2, 4, 1, 2, 2};
    static const int at[][2] = {{1, 1},   {2, 4},   {8, 32},    {24, 2},
                                {48, 16}, {96, 96}, {192, 192}, {191, 191}};
    (void)state;
    logical_case(shape, 3, a, 3, at, 8);
}

/* Reference cases: JAX test_prefer_assignment_whole_axis_size,
 * ..._more_whole_axes, ..._avoid_already_assigned; and each the other way
 * round, which must not be preferred. */
static void test_prefer_assignment(void **state)
{
    static const int64_t x1[] = {1, 2, 1}, y1[] = {1, 1, 2}, p1[] = {2, 2, 4}, u1[] = {1, 1, 1};
    static const int64_t x2[] = {4, 4, 1}, y2[] = {1, 1, 16}, p2[] = {4, 4, 16};
    static const int64_t x3[] = {2, 1}, y3[] = {1, 2}, p3[] = {2, 4}, u3[] = {1, 2};
    (void)state;
    assert_true(mg_tpu_prefer_first(3, x1, y1, p1, u1));
    assert_false(mg_tpu_prefer_first(3, y1, x1, p1, u1));
    assert_true(mg_tpu_prefer_first(3, x2, y2, p2, u1));
    assert_false(mg_tpu_prefer_first(3, y2, x2, p2, u1));
    assert_true(mg_tpu_prefer_first(2, x3, y3, p3, u3));
    assert_false(mg_tpu_prefer_first(2, y3, x3, p3, u3));
}

/* The third criterion, worked from JAX's code: on 4x4x4 with 1x2x4 used,
 * for a new axis of 2 its comment wants [2, 1, 1], but the code takes the
 * larger product over the axes already used, which is [1, 2, 1]'s. The
 * first two criteria tie (no whole axis either way). */
static void test_prefer_assignment_overlapping_axes(void **state)
{
    static const int64_t x[] = {1, 2, 1}, y[] = {2, 1, 1}, phys[] = {4, 4, 4}, used[] = {1, 2, 4};
    (void)state;
    assert_true(mg_tpu_prefer_first(3, x, y, phys, used));
    assert_false(mg_tpu_prefer_first(3, y, x, phys, used));
}

/* ---- where JAX raises ------------------------------------------------------------- */

static void test_errors_where_jax_raises(void **state)
{
    static const int64_t s24[] = {2, 4}, s232[] = {2, 32}, sq[] = {14, 2}, phys47[] = {4, 7};
    static const int64_t ici[] = {1, 16, 8}, ici2[] = {1, 16, 4}, dcn4[] = {4, 1, 1},
                         dcn2[] = {2, 1, 1};
    struct devs v = mock_slice(2, 2, 1, 1, 1);
    struct opts o = {0}, h4 = {.dcn = dcn4}, h2 = {.dcn = dcn2};
    int64_t a[MG_TPU_MAX_PHYSICAL][MG_TPU_MAX_AXES];
    char reason[MG_TPU_REASON_MAX];
    struct mg_tpu_result r;
    bool split;
    (void)state;
    expect_failure("TPU v4", v, s24, 2, o,
                   "Number of devices 4 must equal the product of mesh_shape (2, 4)");
    free(v.d);

    /* 32 is no product of 4, 4, 4: NotImplementedError without allow_split... */
    v = mock_slice(4, 4, 4, 1, 1);
    expect_failure("TPU v4", v, s232, 2, o,
                   "Failed to find assignment for logical_axis_index 1 of size 32 with remaining "
                   "assignable mesh [4, 4, 4]: each logical axis must be the product of some of "
                   "the physical axes (e.g. logical mesh (4, 16) on physical 4x4x4), unless "
                   "allow_split_physical_axes is set");
    /* ...and with it, 4 x 4 x 2 for the 32 (whole axes first, then the
     * lexicographically larger), 2 of z's 4 for the 2. */
    o.split = true;
    mesh_of("TPU v4", v, s232, 2, o, &r);
    assert_int_equal(r.method, MG_TPU_SPLIT);
    assert_int_equal(r.assignment[0][1] * 100 + r.assignment[1][1] * 10 + r.assignment[2][1], 442);
    assert_int_equal(r.assignment[2][0], 2);
    free(r.perm);
    free(v.d);

    /* Granules: as many as dcn says, each with the ICI shape's devices. */
    v = mock_slice(4, 4, 4, 1, 2);
    expect_failure("TPU v4", v, ici2, 3, h4,
                   "Number of slices 2 must equal the product of dcn_mesh_shape (4, 1, 1)");
    expect_failure("TPU v4", v, ici, 3, h2,
                   "slice 0: Number of devices 64 must equal the product of mesh_shape (1, 16, "
                   "8)");
    free(v.d);

    /* (14, 2) on 4 x 7 splits: the 2 takes half of the 4, the 14 the other
     * half and the 7; JAX 0.11.2's _create_device_mesh_for_nd_torus (with
     * allow_split_physical_axes) gives [[2, 2], [7, 1]] (run on that file,
     * as for jax_orders above). */
    assert_int_equal(
        mg_tpu_torus_assign(NULL, 2, phys47, 2, sq, true, a, &split, reason, sizeof reason), 0);
    assert_true(split);
    assert_int_equal(a[0][0] * 1000 + a[0][1] * 100 + a[1][0] * 10 + a[1][1], 2271);

    /* One device per chip past v3, unless the kind lays cores out. */
    v = mock_slice(2, 2, 1, 2, 1);
    {
        static const int64_t s8[] = {8};
        expect_failure("TPU v4", v, s8, 1, (struct opts){0},
                       "Creating meshes for TPU >v3 requires one device per chip (\"megacore\" "
                       "mode); device 1 of kind TPU v4 has core_on_chip 1");
    }
    free(v.d);
}

/* ---- families, topologies, hosts and the devices of a slice ----------------------- */

static void expect_topology_refused(const char *family, const char *topology, const char *want)
{
    char reason[MG_TPU_REASON_MAX];
    int dims[3];
    const struct mg_tpu_family *f = mg_tpu_family_find(family, reason, sizeof reason);
    assert_non_null(f);
    if (mg_tpu_parse_topology(f, topology, dims, reason, sizeof reason) >= 0)
        fail_msg("%s %s accepted", family, topology);
    if (want && strcmp(reason, want) != 0)
        fail_msg("reason \"%s\"\nexpected \"%s\"", reason, want);
}

static void expect_topology(const char *family, const char *topology, int x, int y, int z)
{
    char reason[MG_TPU_REASON_MAX];
    int dims[3];
    const struct mg_tpu_family *f = mg_tpu_family_find(family, reason, sizeof reason);
    assert_non_null(f);
    if (mg_tpu_parse_topology(f, topology, dims, reason, sizeof reason) != 0)
        fail_msg("%s %s: %s", family, topology, reason);
    assert_int_equal(dims[0], x);
    assert_int_equal(dims[1], y);
    assert_int_equal(dims[2], z);
}

/* A size a family cannot have is refused with the sizes that exist. */
/* Wraparound (docs/tpu.md §1): whole-cube slices of v4, v5p and TPU7x wrap
 * in x, y and z, smaller ones in none; a 2-D slice wraps in a dimension as
 * long as the pod's side (16, or 32 on v3), so v5e 8x16 in y only. */
static void wraps(const char *family, int x, int y, int z, int wx, int wy, int wz)
{
    const struct mg_tpu_family *f = mg_tpu_family_find(family, NULL, 0);
    int dims[3] = {x, y, z};
    bool w[3];

    assert_non_null(f);
    assert_int_equal(mg_tpu_wraparound(f, dims, w), wx + wy + wz);
    assert_int_equal(w[0], wx);
    assert_int_equal(w[1], wy);
    assert_int_equal(w[2], wz);
}

static void test_wraparound(void **state)
{
    (void)state;
    wraps("v5p", 4, 4, 4, 1, 1, 1);
    wraps("v5p", 4, 4, 8, 1, 1, 1);
    wraps("v5p", 2, 4, 4, 0, 0, 0);
    wraps("v5p", 2, 2, 1, 0, 0, 0);
    wraps("v4", 8, 8, 16, 1, 1, 1);
    wraps("v4", 2, 2, 4, 0, 0, 0);
    wraps("tpu7x", 1, 1, 1, 0, 0, 0);
    wraps("tpu7x", 4, 4, 4, 1, 1, 1);
    wraps("v5e", 4, 4, 1, 0, 0, 0);
    wraps("v5e", 8, 16, 1, 0, 1, 0);
    wraps("v5e", 16, 16, 1, 1, 1, 0);
    wraps("v6e", 16, 8, 1, 1, 0, 0);
    wraps("v2", 16, 16, 1, 1, 1, 0);
    wraps("v3", 16, 32, 1, 0, 1, 0);
    wraps("v3", 32, 32, 1, 1, 1, 0);
}

static void test_topologies(void **state)
{
    char reason[MG_TPU_REASON_MAX];
    (void)state;
    expect_topology("v5p", "2x2x1", 2, 2, 1);
    expect_topology("v5p", "16x20x28", 16, 20, 28); /* the whole v5p pod, 8960 chips */
    expect_topology("v4", "4x4x12", 4, 4, 12);
    expect_topology("v5e", "2x4", 2, 4, 1);
    expect_topology("v5e", "4x2", 4, 2, 1);
    expect_topology("v3", "32x32", 32, 32, 1);
    expect_topology("tpu7x", "1x1x1", 1, 1, 1);
    expect_topology_refused("v5p", "2x2x3",
                            "v5p has no 2x2x3 slice; its topologies are 2x2x1, 2x2x2, 2x2x4, "
                            "2x4x4 and every AxBxC with A <= B <= C, each a multiple of 4, of at "
                            "most 8960 chips (4x4x4, 4x4x8, 4x8x8, 8x8x8, ...)");
    expect_topology_refused("v5e", "3x3",
                            "v5e has no 3x3 slice; its topologies are 1x1, 2x2, 2x4, 4x4, 4x8, "
                            "8x8, 8x16, 16x16 (either way round)");
    expect_topology_refused("v2", "32x32",
                            "v2 has no 32x32 slice; its topologies are 2x2, 4x4, 8x8, 8x16, 16x16 "
                            "(either way round)");
    expect_topology_refused("v4", "8x8x128", NULL); /* 8192 chips, past the 4096 of a pod */
    expect_topology_refused("v4", "8x4x4", NULL);   /* A <= B <= C */
    expect_topology_refused("v4", "4x4x6", NULL);
    expect_topology_refused("v4", "2x2",
                            "is not a v4 topology: expected AxBxC (chips along x, y and z)");
    expect_topology_refused("v6e", "2x2x1",
                            "is not a v6e topology: expected AxB (chips along x and y)");
    expect_topology_refused("v4", "2x2x", NULL);
    expect_topology_refused("v4", "x2x2", NULL);
    expect_topology_refused("v4", "2x2x1x1", NULL);
    expect_topology_refused("v4", "0x2x2", NULL);
    expect_topology_refused("v4", "4x4x999999", NULL);
    expect_topology_refused("v4", "2 x2x2", NULL);
    expect_topology_refused("v4", "", NULL);
    assert_null(mg_tpu_family_find("v9", reason, sizeof reason));
    assert_string_equal(reason, "the families are v2, v3, v4, v5e, v5p, v6e, tpu7x");
}

static void expect_hosts_refused(const char *family, const char *topology, int hosts,
                                 const char *want)
{
    char reason[MG_TPU_REASON_MAX];
    const struct mg_tpu_family *f = mg_tpu_family_find(family, reason, sizeof reason);
    struct mg_tpu_layout l;
    int dims[3];
    assert_int_equal(mg_tpu_parse_topology(f, topology, dims, reason, sizeof reason), 0);
    assert_int_equal(mg_tpu_slice_layout(f, dims, hosts, 0, &l, reason, sizeof reason), -1);
    assert_string_equal(reason, want);
}

/* Hosts: 4 chips (2x2) each past one host; v5e and v6e hosts of up to 8. */
static void test_slice_hosts(void **state)
{
    (void)state;
    expect_hosts_refused("v5e", "4x4", 3,
                         "a v5e 4x4 slice (16 chips) has 4 hosts of 4 chips (2x2) each, not 3");
    expect_hosts_refused("v5e", "2x4", 3,
                         "a v5e 2x4 slice (8 chips) has 1 host of 8 chips or 2 hosts of 4 chips "
                         "(2x2) each, not 3");
    expect_hosts_refused("v4", "2x2x1", 2, "a v4 2x2x1 slice (4 chips) has 1 host, not 2");
    expect_hosts_refused("v5p", "4x4x4", 1,
                         "a v5p 4x4x4 slice (64 chips) has 16 hosts of 4 chips (2x2) each, not 1");
}

/* The devices of a slice: JAX's order, coordinates, cores, hosts, ids. */
static void test_slice_devices(void **state)
{
    struct devs v;
    (void)state;
    /* v3 2x2: one host, two cores per chip, x fastest then the core... */
    v = slice_of("v3", "2x2", 1, 0);
    assert_int_equal(v.n, 8);
    assert_int_equal(v.d[1].core_on_chip, 1);
    assert_int_equal(v.d[1].coords[0], 0);
    assert_int_equal(v.d[2].coords[0], 1);
    assert_int_equal(v.d[7].coords[1] * 10 + v.d[7].core_on_chip, 11);
    assert_int_equal(v.d[7].id, 7);
    free(v.d);
    /* ...v5p 4x4x4: 16 hosts of 2x2 chips, hosts x fastest, then y, then z. */
    v = slice_of("v5p", "4x4x4", 16, 0);
    assert_int_equal(v.n, 64);
    assert_int_equal(v.d[4].host, 1);
    assert_int_equal(v.d[4].coords[0] * 100 + v.d[4].coords[1] * 10 + v.d[4].coords[2], 200);
    assert_int_equal(v.d[4].id, 2);
    assert_int_equal(v.d[8].host, 2);
    assert_int_equal(v.d[8].coords[0] * 100 + v.d[8].coords[1] * 10 + v.d[8].coords[2], 20);
    assert_int_equal(v.d[16].host, 4);
    assert_int_equal(v.d[16].coords[0] * 100 + v.d[16].coords[1] * 10 + v.d[16].coords[2], 1);
    assert_int_equal(v.d[63].host, 15);
    assert_int_equal(v.d[63].coords[0] * 100 + v.d[63].coords[1] * 10 + v.d[63].coords[2], 333);
    free(v.d);
    /* ...v5e 2x4: one host of 8 chips, or two of 2x2. */
    v = slice_of("v5e", "2x4", 1, 0);
    assert_int_equal(v.d[2].coords[0] * 10 + v.d[2].coords[1], 1);
    assert_int_equal(v.d[7].host, 0);
    free(v.d);
    v = slice_of("v5e", "2x4", 2, 0);
    assert_int_equal(v.d[4].host, 1);
    assert_int_equal(v.d[4].coords[0] * 10 + v.d[4].coords[1], 2);
    free(v.d);
    /* ...the second slice of a multislice continues processes and ids. */
    v = slice_of("v5e", "4x4", 4, 1);
    assert_int_equal(v.d[0].process, 4);
    assert_int_equal(v.d[0].slice, 1);
    assert_int_equal(v.d[0].id, 16);
    assert_int_equal(v.d[15].process, 7);
    free(v.d);
    /* ...TPU7x: two devices per chip. */
    v = slice_of("tpu7x", "2x2x1", 1, 0);
    assert_int_equal(v.n, 8);
    assert_int_equal(v.d[3].core_on_chip * 10 + v.d[3].coords[0], 11);
    free(v.d);
}

/* ---- multislice (meshgen's own reference case) ------------------------------------- */

/* Two v5e 4x4 slices, four hosts of 2x2 chips each. Device numbers (JAX
 * order): in slice 0, chip (x, y) is 4 * (x/2 + 2 * (y/2)) + 2 * (y%2) + x%2;
 * slice 1 adds 16.
 *
 * ici (1, 16), dcn (2, 1): each slice is one ring of 16, so the v5e handler
 * takes the 4x4 ring order over the chips sorted x-minor: (0,0) (1,0) (2,0)
 * (3,0) (3,1) (2,1) (1,1) (1,2) (2,2) (3,2) (3,3) (2,3) (1,3) (0,3) (0,2)
 * (0,1); DCN is the outer factor, so row 0 is slice 0 and row 1 slice 1. */
static void test_multislice_v5e_ring(void **state)
{
    static const int64_t ici[] = {1, 16}, dcn[] = {2, 1};
    struct devs v = concat(slice_of("v5e", "4x4", 4, 0), slice_of("v5e", "4x4", 4, 1));
    struct mg_tpu_result r;
    struct opts o = {.dcn = dcn, .sort_granules = true};
    (void)state;
    mesh_of("TPU v5 lite", v, ici, 2, o, &r);
    assert_int_equal(r.method, MG_TPU_HANDLER);
    expect_perm(r.perm, v.n, 0, 1, 4, 5, 7, 6, 3, 9, 12, 13, 15, 14, 11, 10, 8, 2, /**/ 16, 17, 20,
                21, 23, 22, 19, 25, 28, 29, 31, 30, 27, 26, 24, 18);
    free(r.perm);
    free(v.d);
}

/* The same slices, ici (4, 4), dcn (1, 2): no ring (the longest axis is 4,
 * not 16), so the torus: the last logical axis takes x (with z's 1), the
 * first takes y; position (a, j) is chip (x = j % 4, y = a) of slice j / 4. */
static void test_multislice_v5e_torus(void **state)
{
    static const int64_t ici[] = {4, 4}, dcn[] = {1, 2};
    struct devs v = concat(slice_of("v5e", "4x4", 4, 0), slice_of("v5e", "4x4", 4, 1));
    struct mg_tpu_result r;
    struct opts o = {.dcn = dcn, .sort_granules = true};
    (void)state;
    mesh_of("TPU v5 lite", v, ici, 2, o, &r);
    assert_int_equal(r.method, MG_TPU_TORUS);
    expect_perm(r.perm, v.n, 0, 1, 4, 5, 16, 17, 20, 21, /**/ 2, 3, 6, 7, 18, 19, 22, 23, /**/ 8, 9,
                12, 13, 24, 25, 28, 29, /**/ 10, 11, 14, 15, 26, 27, 30, 31);
    free(r.perm);
    free(v.d);
}

/* Granules may be processes instead of slices (process_is_granule): one v5e
 * 4x4 slice of four hosts, dcn (2, 2) over its hosts, ici (2, 2) each. The
 * v5e handler takes its bounds from the largest coordinates, not their
 * extent, so only host 0 (largest (1, 1)) is a 2x2 tray and gets the ring
 * 0, 1, 3, 2; the others (largest (3, 1), (1, 3), (3, 3)) fall to the
 * torus, which keeps their order. Host h holds devices 4h .. 4h + 3. */
static void test_hybrid_process_granules(void **state)
{
    static const int64_t ici[] = {2, 2}, dcn[] = {2, 2};
    struct devs v = slice_of("v5e", "4x4", 4, 0);
    struct mg_tpu_result r;
    struct opts o = {.dcn = dcn, .sort_granules = true, .process_granules = true};
    (void)state;
    mesh_of("TPU v5 lite", v, ici, 2, o, &r);
    expect_perm(r.perm, v.n, 0, 1, 4, 5, 3, 2, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15);
    free(r.perm);
    free(v.d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_from_last_device),
        cmocka_unit_test(test_get_physical_tpu_mesh),
        cmocka_unit_test(test_get_physical_tpu_mesh_with_subslice_TPU_v2_1x1),
        cmocka_unit_test(test_get_physical_tpu_mesh_with_subslice_TPU_v4_1x2x1),
        cmocka_unit_test(test_get_physical_tpu_mesh_with_subslice_TPU_v5e_4x4),
        cmocka_unit_test(test_get_physical_tpu_mesh_with_bad_subslice),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__2x2x1),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__2x2x4),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__4x4x4),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__4x4x8a),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__4x4x8b),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__4x4x8c),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__4x8x8),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__8x8x8),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__8x8x16),
        cmocka_unit_test(test_create_device_mesh_for_nd_torus__8x8),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__2x2x1),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__2x2x4),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__4x4x4),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__4x4x8a),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__4x4x8b),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__4x4x8c),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__4x8x8),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__8x8x8),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__8x8x16),
        cmocka_unit_test(test_nd_torus_split_axes_backward_compatible__8x8),
        cmocka_unit_test(test_nd_torus_split_axes_can_handle_axes_split__4x4x4a),
        cmocka_unit_test(test_nd_torus_split_axes_can_handle_axes_split__4x4x4b),
        cmocka_unit_test(test_nd_torus_split_axes_can_handle_axes_split__4x4x8a),
        cmocka_unit_test(test_nd_torus_split_axes_can_handle_axes_split__4x4x8b),
        cmocka_unit_test(test_nd_torus_split_axes_can_handle_axes_split__4x8x8),
        cmocka_unit_test(test_nd_torus_split_axes_can_handle_axes_split__8x8),
        cmocka_unit_test(test_create_device_mesh_has_computable_global_shape),
        cmocka_unit_test(test_create_hybrid_device_mesh__2X4x4x4a),
        cmocka_unit_test(test_create_hybrid_device_mesh__2X4x4x4b),
        cmocka_unit_test(test_create_hybrid_device_mesh_device_sorting__2X4x4x4a),
        cmocka_unit_test(test_create_hybrid_device_mesh_device_sorting__2X4x4x4b),
        cmocka_unit_test(test_v3_create_device_mesh__2x2_1d),
        cmocka_unit_test(test_v3_create_device_mesh__2x2_2d),
        cmocka_unit_test(test_v3_create_device_mesh__4x4_2d),
        cmocka_unit_test(test_v5e_create_device_mesh__4x2_1d),
        cmocka_unit_test(test_v5e_create_device_mesh__2x2x2_1d),
        cmocka_unit_test(test_v7x_create_device_mesh__1x1x2),
        cmocka_unit_test(test_v7x_create_device_mesh__2x1x4),
        cmocka_unit_test(test_v7x_create_device_mesh__4x1x2),
        cmocka_unit_test(test_v7x_create_device_mesh__4x2x2),
        cmocka_unit_test(test_v7x_create_device_mesh__8x2),
        cmocka_unit_test(test_v7x_create_device_mesh__4x4x2),
        cmocka_unit_test(test_v7x_create_device_mesh__4x2x4),
        cmocka_unit_test(test_v7x_create_device_mesh__8x4),
        cmocka_unit_test(test_v7x_create_device_mesh__4x8),
        cmocka_unit_test(test_v7x_create_device_mesh_fallback),
        cmocka_unit_test(test_handler_table_is_jax_0_11_2),
        cmocka_unit_test(test_jax_0_11_2_orders),
        cmocka_unit_test(test_core_axis_priority),
        cmocka_unit_test(test_create_contiguous_submeshes_for_tpu_v4),
        cmocka_unit_test(test_create_contiguous_submeshes_for_tpu_v4_leading_1_dims),
        cmocka_unit_test(test_contiguous_check_can_fail),
        cmocka_unit_test(test_create_contiguous_submeshes_errors),
        cmocka_unit_test(test_get_prime_factors),
        cmocka_unit_test(test_enumerate_feasible_axis_assignments),
        cmocka_unit_test(test_generate_logical_mesh__2x2x1),
        cmocka_unit_test(test_generate_logical_mesh__4x4x4),
        cmocka_unit_test(test_generate_logical_mesh__12x4x8),
        cmocka_unit_test(test_prefer_assignment),
        cmocka_unit_test(test_prefer_assignment_overlapping_axes),
        cmocka_unit_test(test_errors_where_jax_raises),
        cmocka_unit_test(test_topologies),
        cmocka_unit_test(test_wraparound),
        cmocka_unit_test(test_slice_hosts),
        cmocka_unit_test(test_slice_devices),
        cmocka_unit_test(test_multislice_v5e_ring),
        cmocka_unit_test(test_multislice_v5e_torus),
        cmocka_unit_test(test_hybrid_process_granules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
