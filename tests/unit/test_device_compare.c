/*
 * Unit tests of the comparison meshgen_verify and `meshgen verify` share
 * (runtime/device_compare.c): how expected and found devices are paired
 * (bus id or OS index, then UUID, then order), which fields count, and
 * the order the differences come in.
 */
#include "harness.h"

#include "../../runtime/device_compare.h"

/* What the differences were, one line each: "want/got field: a | b". */
struct seen {
    char text[4096];
    int calls, stop_at;
};

static int record(void *ctx, const struct meshgen__diff *d)
{
    struct seen *s = ctx;
    size_t n = strlen(s->text);

    snprintf(s->text + n, sizeof s->text - n, "%d/%d %s: %s | %s%s\n", d->want, d->got,
             d->field ? d->field : "-", d->want_text, d->got_text, d->quoted ? " (quoted)" : "");
    return ++s->calls == s->stop_at;
}

static const char *compare(int kind, const struct meshgen_device_info *want, int n_want,
                           const struct meshgen_device_info *got, int n_got, int stop_at,
                           int *count)
{
    static struct seen s;
    void *scratch = malloc(meshgen__compare_room(n_want, n_got));

    assert_non_null(scratch);
    memset(&s, 0, sizeof s);
    s.stop_at = stop_at;
    *count = meshgen__compare_devices(kind, want, n_want, got, n_got, scratch, record, &s);
    assert_int_equal(*count, s.calls);
    free(scratch);
    return s.text;
}

#define GPU(bus, id, name, u, node, cpus)                                                          \
    {                                                                                              \
        .kind = MESHGEN_KIND_GPU, .os_index = -1, .numa = (node), .vendor_id = (id), .pci = (bus), \
        .vendor = "NVIDIA", .model = (name), .uuid = (u), .cpuset = (cpus)                         \
    }

static const struct meshgen_device_info four[4] = {
    GPU("0000:01:00.0", 0x10de, "A100", "GPU-1", 0, "0-7"),
    GPU("0000:02:00.0", 0x10de, "A100", "GPU-2", 0, "0-7"),
    GPU("0000:81:00.0", 0x10de, "A100", "GPU-3", 1, "8-15"),
    GPU("0000:82:00.0", 0x10de, "A100", "GPU-4", 1, "8-15"),
};

static void test_same(void **state)
{
    int n;

    (void)state;
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, four, 4, 0, &n), "");
    assert_int_equal(n, 0);
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 0, four, 0, 0, &n), "");
}

/* A GPU moved to another slot keeps its UUID: one difference, its bus id,
 * even where the new bus id sorts elsewhere. */
static void test_moved(void **state)
{
    struct meshgen_device_info got[4];
    int n;

    (void)state;
    memcpy(got, four, sizeof got);
    got[1].pci = "0000:c1:00.0";
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, got, 4, 0, &n),
                        "1/1 PCI bus id: 0000:02:00.0 | 0000:c1:00.0\n");
    /* Without UUIDs the ones left are paired in order. */
    got[1].uuid = "";
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, got, 4, 0, &n),
                        "1/1 PCI bus id: 0000:02:00.0 | 0000:c1:00.0\n"
                        "1/1 UUID: GPU-2 | \n");
    /* Two GPUs swapped between slots: paired by slot, their UUIDs differ. */
    memcpy(got, four, sizeof got);
    got[0].uuid = "GPU-2";
    got[1].uuid = "GPU-1";
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, got, 4, 0, &n),
                        "0/0 UUID: GPU-1 | GPU-2\n"
                        "1/1 UUID: GPU-2 | GPU-1\n");
    /* Two GPUs moved, each found where the other was listed: their UUIDs
     * pair them across the order. */
    memcpy(got, four, sizeof got);
    got[0] = four[1];
    got[0].pci = "0000:c2:00.0";
    got[1] = four[0];
    got[1].pci = "0000:c1:00.0";
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, got, 4, 0, &n),
                        "0/1 PCI bus id: 0000:01:00.0 | 0000:c1:00.0\n"
                        "1/0 PCI bus id: 0000:02:00.0 | 0000:c2:00.0\n");
}

/* A GPU missing, or one more: the count first, then only that device; the
 * others are still paired with themselves. */
static void test_missing_and_extra(void **state)
{
    const struct meshgen_device_info three[3] = {four[0], four[2], four[3]};
    struct meshgen_device_info five[5];
    int n;

    (void)state;
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, three, 3, 0, &n), "-1/-1 count: 4 | 3\n"
                                                                             "1/-1 -:  | \n");
    memcpy(five, four, sizeof four);
    five[4] = (struct meshgen_device_info)GPU("0000:83:00.0", 0x10de, "A100", "GPU-5", 1, "8-15");
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, five, 5, 0, &n), "-1/-1 count: 4 | 5\n"
                                                                            "-1/4 -:  | \n");
    /* The first difference alone, when the caller stops there. */
    assert_string_equal(compare(MESHGEN_KIND_GPU, four, 4, five, 5, 1, &n), "-1/-1 count: 4 | 5\n");
    assert_int_equal(n, 1);
}

/* Which fields count: the vendor id, not the vendor's name; a model only
 * when both sides know one; a UUID only when the expected side knows it. */
static void test_fields(void **state)
{
    struct meshgen_device_info want[1] = {four[0]}, got[1] = {four[0]};
    int n;

    (void)state;
    got[0].vendor = "NVIDIA Corporation";
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, 1, got, 1, 0, &n), "");
    got[0].model = "";
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, 1, got, 1, 0, &n), "");
    got[0].model = "H100";
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, 1, got, 1, 0, &n),
                        "0/0 model: A100 | H100 (quoted)\n");
    got[0].model = "A100";
    want[0].uuid = "";
    got[0].uuid = "GPU-9";
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, 1, got, 1, 0, &n), "");
    want[0].uuid = "GPU-1";
    got[0].uuid = "";
    got[0].vendor_id = 0x1002;
    got[0].numa = -1;
    got[0].cpuset = "0-3";
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, 1, got, 1, 0, &n),
                        "0/0 PCI vendor id: 0x10de | 0x1002\n"
                        "0/0 UUID: GPU-1 | \n"
                        "0/0 NUMA node: 0 | unknown\n"
                        "0/0 cpuset: 0-7 | 0-3\n");
    got[0] = four[0];
    got[0].vendor_id = 0;
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, 1, got, 1, 0, &n),
                        "0/0 PCI vendor id: 0x10de | \n");
}

/* CPU objects are paired by OS index: a core gone from the middle is the
 * one missing. */
static void test_cpu_objects(void **state)
{
    struct meshgen_device_info cores[4], got[3];
    int i, n;

    (void)state;
    for (i = 0; i < 4; i++)
        cores[i] = th_core(i);
    got[0] = cores[0];
    got[1] = cores[1];
    got[2] = cores[3];
    assert_string_equal(compare(MESHGEN_KIND_CORE, cores, 4, got, 3, 0, &n), "-1/-1 count: 4 | 3\n"
                                                                             "2/-1 -:  | \n");
    got[2].os_index = 7;
    got[2].cpuset = "7";
    assert_string_equal(compare(MESHGEN_KIND_CORE, cores, 3, got, 3, 0, &n), "2/2 OS index: 2 | 7\n"
                                                                             "2/2 cpuset: 2 | 7\n");
}

/* Many GPUs, found in the reverse order: pairing sorts, so each is found
 * (a quadratic pairing would take seconds here). */
static void test_many(void **state)
{
    enum { N = 20000 };
    struct meshgen_device_info *want = calloc(N, sizeof *want), *got = calloc(N, sizeof *got);
    char(*bus)[16] = calloc(N, sizeof *bus);
    int i, n;

    (void)state;
    assert_true(want && got && bus);
    for (i = 0; i < N; i++) {
        snprintf(bus[i], sizeof bus[i], "%04x:01:00.0", i);
        want[i] = (struct meshgen_device_info)GPU(bus[i], 0x10de, "A100", "", 0, "0");
        got[N - 1 - i] = want[i];
    }
    got[0].model = "H100";
    assert_string_equal(compare(MESHGEN_KIND_GPU, want, N, got, N, 0, &n),
                        "19999/0 model: A100 | H100 (quoted)\n");
    free(want);
    free(got);
    free(bus);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same),
        cmocka_unit_test(test_moved),
        cmocka_unit_test(test_missing_and_extra),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_cpu_objects),
        cmocka_unit_test(test_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
