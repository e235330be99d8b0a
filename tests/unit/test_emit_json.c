/*
 * Unit tests of resolve's JSON (mg_emit_json) and of the buffer under it,
 * on models built in C: rows of hosts whose topologies alternate, so a
 * device's row must come from its own topology and index; every escape a
 * device's strings can need; null where a field is missing; the output
 * streamed in chunks that stay within MG_BUF_CHUNK; and decimal numbers
 * against printf's.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

struct fixture {
    struct mg_arena arena;
    struct mg_diags diags;
    struct mg_spec spec;
    struct mg_inventory inv;
};

static struct mg_mark mark(int line)
{
    struct mg_mark m = {"test.yaml", line, 1};
    return m;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    static const char *const names[] = {"dp", "tp"};
    int i;

    mg_arena_init(&f->arena);
    mg_diags_init(&f->diags, &f->arena);
    f->spec.file = "test.yaml";
    f->spec.dir = ".";
    f->spec.format = 1;
    f->spec.name = "t";
    f->spec.name_at = mark(2);
    f->spec.mesh_at = mark(3);
    f->spec.axes_at = mark(4);
    f->spec.shape_at = mark(5);
    f->spec.dcn_at = mark(6);
    f->spec.mpmd_at = mark(7);
    f->spec.device_kind = MG_KIND_GPU;
    f->spec.order = MG_ORDER_INVENTORY;
    f->spec.processes = MESHGEN_PROCESSES_HOST;
    f->spec.granule = MG_GRANULE_HOST;
    f->spec.sort_granules = 1;
    f->spec.n_axes = f->spec.shape_n = 2;
    for (i = 0; i < 2; i++) {
        f->spec.axes[i].name = names[i];
        f->spec.axes[i].name_at = mark(4);
        f->spec.axes[i].size = i == 0 ? -1 : 2;
        f->spec.axes[i].size_at = mark(5);
        f->spec.axes[i].type = MESHGEN_AXIS_EXPLICIT;
    }
    f->inv.source = "test-inventory";
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    mg_arena_free(&f->arena);
    free(f);
    return 0;
}

/* A device's strings as a topology holds them (NULL: unknown). */
struct dev {
    const char *pci, *vendor, *model, *uuid, *cpuset;
    int os_index, numa;
};

static void topology(struct fixture *f, struct mg_topology *t, const char *key,
                     const struct dev *devs, int n)
{
    int i;

    t->key = t->label = key;
    t->n[MG_KIND_GPU] = n;
    t->devs[MG_KIND_GPU] = mg_alloc_array(&f->arena, (size_t)n, sizeof(struct mg_devinfo));
    for (i = 0; i < n; i++) {
        struct mg_devinfo *d = &t->devs[MG_KIND_GPU][i];
        d->kind = MG_KIND_GPU;
        d->pci = devs[i].pci;
        d->vendor = devs[i].vendor;
        d->model = devs[i].model;
        d->uuid = devs[i].uuid;
        d->cpuset = devs[i].cpuset;
        d->os_index = devs[i].os_index;
        d->numa = devs[i].numa;
    }
}

/* mg_emit_json of the fixture's model, as a string of the arena's. */
static const char *resolve_json(struct fixture *f)
{
    struct mg_plan *p = mg_compile(&f->arena, &f->diags, &f->spec, &f->inv, NULL);
    struct mg_buf b;
    char *text;

    assert_non_null(p);
    mg_buf_init(&b);
    mg_emit_json(&b, p);
    text = mg_strndup(&f->arena, b.data, b.len);
    mg_buf_free(&b);
    return text;
}

/* Three hosts of two GPUs: h0 and h2 share topology A, h1 has B, so the
 * rows of A's devices are needed again after B's. Each row is the one of
 * its own topology and index, with its own id and host; the strings are
 * escaped as JSON needs (quote, backslash, control characters, a byte
 * that is not UTF-8, U+2028) and a missing or empty one is null. */
static void test_rows_of_alternating_topologies(void **state)
{
    struct fixture *f = *state;
    static const struct dev a[] = {
        {"0000:01:00.0", "V\"Q", "M\\1", "", "0-3", -1, 0},
        {NULL, "ctl\x01\x7f", "bad\xff", "u\xe2\x80\xa8", NULL, 5, -1},
    };
    static const struct dev b[] = {
        {"0000:02:00.0", "B", "caf\xc3\xa9", "GPU-1", "4-7", -1, 1},
        {"0000:03:00.0", "B", "tab\tnl\n", NULL, "", -1, 1},
    };
    static const int topo_of[] = {0, 1, 0};
    struct mg_topology *t = mg_alloc_array(&f->arena, 2, sizeof *t);
    const char *json;
    int i;

    topology(f, &t[0], "a", a, 2);
    topology(f, &t[1], "b", b, 2);
    f->inv.n_topologies = 2;
    f->inv.topologies = t;
    f->inv.n_hosts = 3;
    f->inv.hosts = mg_alloc_array(&f->arena, 3, sizeof(struct mg_host));
    for (i = 0; i < 3; i++) {
        f->inv.hosts[i].name = mg_printf(&f->arena, "h%d", i);
        f->inv.hosts[i].topology = topo_of[i];
        f->inv.hosts[i].at = mark(100 + i);
    }
    f->inv.hosts[0].slice = "s0";
    json = resolve_json(f);

#define ROW_A0                                                                                     \
    "\"local\": 0, \"kind\": \"gpu\", \"pci\": \"0000:01:00.0\", \"vendor_id\": null, "            \
    "\"vendor\": \"V\\\"Q\", "                                                                     \
    "\"model\": \"M\\\\1\", \"uuid\": null, \"numa\": 0, \"cpuset\": \"0-3\"}"
#define ROW_A1                                                                                     \
    "\"local\": 1, \"kind\": \"gpu\", \"pci\": null, \"vendor_id\": null, \"vendor\": "            \
    "\"ctl\\u0001\\u007f\", "                                                                      \
    "\"model\": \"bad\\ufffd\", \"uuid\": \"u\\u2028\", \"os_index\": 5, \"numa\": null, "         \
    "\"cpuset\": null}"
#define INDENT "             "
    assert_non_null(strstr(
        json,
        "\n \"devices\": [{\"id\": 0, \"host\": 0, " ROW_A0 ",\n" INDENT
        "{\"id\": 1, \"host\": 0, " ROW_A1 ",\n" INDENT
        "{\"id\": 2, \"host\": 1, \"local\": 0, \"kind\": \"gpu\", \"pci\": \"0000:02:00.0\", "
        "\"vendor_id\": null, \"vendor\": \"B\", \"model\": \"caf\xc3\xa9\", \"uuid\": \"GPU-1\", "
        "\"numa\": 1, "
        "\"cpuset\": \"4-7\"},\n" INDENT
        "{\"id\": 3, \"host\": 1, \"local\": 1, \"kind\": \"gpu\", \"pci\": \"0000:03:00.0\", "
        "\"vendor_id\": null, \"vendor\": \"B\", \"model\": \"tab\\tnl\\n\", \"uuid\": null, "
        "\"numa\": 1, "
        "\"cpuset\": null},\n" INDENT "{\"id\": 4, \"host\": 2, " ROW_A0 ",\n" INDENT
        "{\"id\": 5, \"host\": 2, " ROW_A1 "],\n"));
#undef INDENT
#undef ROW_A0
#undef ROW_A1
    assert_non_null(strstr(json,
                           "\n \"hosts\": [{\"name\": \"h0\", \"slice\": \"s0\", "
                           "\"granule\": 0},\n"
                           "           {\"name\": \"h1\", \"slice\": null, \"granule\": 1},\n"
                           "           {\"name\": \"h2\", \"slice\": null, \"granule\": 2}],\n"));
    assert_non_null(strstr(json, "\n \"mesh\": [0, 1, 2, 3, 4, 5],\n"));
    assert_non_null(strstr(json,
                           "\n \"processes\": [{\"id\": 0, \"host\": 0, \"devices\": [0, 1]},\n"
                           "               {\"id\": 1, \"host\": 1, \"devices\": [2, 3]},\n"
                           "               {\"id\": 2, \"host\": 2, \"devices\": [4, 5]}],\n"));
}

/* What the sink was handed: the text, its chunks and the longest. */
struct sink {
    struct mg_buf all;
    int chunks;
    size_t longest;
};

static void sink(void *ctx, const char *data, size_t len)
{
    struct sink *s = ctx;
    mg_buf_put(&s->all, data, len);
    s->chunks++;
    if (len > s->longest)
        s->longest = len;
}

/* 4096 hosts of 8 GPUs (some 8 MB of JSON): streamed, the text is the
 * same as in one buffer, and neither a chunk nor the buffer ever exceeds
 * MG_BUF_CHUNK, which is what resolve holds of its output at any size. */
static void test_streamed_within_a_chunk(void **state)
{
    struct fixture *f = *state;
    static const struct dev gpu = {"0000:01:00.0", "V", "M", NULL, "0-3", -1, 0};
    struct mg_topology *t = mg_alloc(&f->arena, sizeof *t);
    struct mg_buf whole, streamed;
    struct sink s = {{0}, 0, 0};
    struct mg_plan *p;
    struct dev devs[8];
    int i;

    for (i = 0; i < 8; i++)
        devs[i] = gpu;
    topology(f, t, "a", devs, 8);
    f->inv.n_topologies = 1;
    f->inv.topologies = t;
    f->inv.n_hosts = 4096;
    f->inv.hosts = mg_alloc_array(&f->arena, 4096, sizeof(struct mg_host));
    for (i = 0; i < 4096; i++) {
        f->inv.hosts[i].name = mg_printf(&f->arena, "h%d", i);
        f->inv.hosts[i].at = mark(100);
    }
    f->spec.axes[1].size = 8;
    p = mg_compile(&f->arena, &f->diags, &f->spec, &f->inv, NULL);
    assert_non_null(p);

    mg_buf_init(&whole);
    mg_emit_json(&whole, p);
    mg_buf_init(&s.all);
    mg_buf_init(&streamed);
    mg_buf_stream(&streamed, sink, &s);
    mg_emit_json(&streamed, p);
    assert_true(streamed.cap <= MG_BUF_CHUNK);
    mg_buf_flush(&streamed);
    assert_true(whole.len > 8 * MG_BUF_CHUNK);
    assert_true(s.chunks > 8);
    assert_true(s.longest <= MG_BUF_CHUNK);
    assert_int_equal(s.all.len, whole.len);
    assert_memory_equal(s.all.data, whole.data, whole.len);
    mg_buf_free(&whole);
    mg_buf_free(&s.all);
    mg_buf_free(&streamed);
}

/* One write larger than a chunk still goes through whole, after what the
 * buffer held. */
static void test_stream_large_write(void **state)
{
    size_t n = 3 * MG_BUF_CHUNK + 7, i;
    char *big = malloc(n);
    struct sink s = {{0}, 0, 0};
    struct mg_buf b;

    (void)state;
    assert_non_null(big);
    for (i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    mg_buf_init(&s.all);
    mg_buf_init(&b);
    mg_buf_stream(&b, sink, &s);
    mg_buf_put(&b, "head", 4);
    mg_buf_put(&b, big, n);
    mg_buf_put(&b, "tail", 4);
    mg_buf_flush(&b);
    assert_int_equal(s.all.len, n + 8);
    assert_memory_equal(s.all.data, "head", 4);
    assert_memory_equal(s.all.data + 4, big, n);
    assert_memory_equal(s.all.data + 4 + n, "tail", 4);
    assert_int_equal(mg_buf_pos(&b), n + 8);
    mg_buf_free(&b);
    mg_buf_free(&s.all);
    free(big);
}

/* v through mg_fmt_i64, compared with printf's. */
static void check_i64(int64_t v)
{
    char got[MG_I64_CHARS + 1], want[32];
    char *end = mg_fmt_i64(got, v);

    *end = '\0';
    snprintf(want, sizeof want, "%" PRId64, v);
    assert_string_equal(got, want);
}

/* Every digit count, on both sides of each power of ten, the ends of
 * int32 and int64 and where the formatter leaves 32 bits. */
static void test_decimal(void **state)
{
    int64_t p = 1;
    uint64_t x = 88172645463325252u;
    int i;

    (void)state;
    check_i64(0);
    check_i64(INT64_MAX);
    check_i64(INT64_MIN);
    check_i64(INT32_MAX);
    check_i64(INT32_MIN);
    check_i64(UINT32_MAX);
    check_i64((int64_t)UINT32_MAX + 1);
    for (i = 0; i < 19; i++) {
        check_i64(p);
        check_i64(p - 1);
        check_i64(p + 1);
        check_i64(-p);
        check_i64(1 - p);
        if (i < 18) {
            check_i64(10 * p - 1);
            p *= 10;
        }
    }
    for (i = 0; i < 10000; i++) {
        int64_t v;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* Below 2^63, so that negating it is defined. */
        v = (int64_t)(x >> (1 + i % 63));
        check_i64(i % 2 ? -v : v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rows_of_alternating_topologies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_streamed_within_a_chunk, setup, teardown),
        cmocka_unit_test(test_stream_large_write),
        cmocka_unit_test(test_decimal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
