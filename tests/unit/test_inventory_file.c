/*
 * Unit tests of the inventory file (inventory.c, through mg_inventory_load):
 * host groups read into struct mg_inventory, each distinct topology loaded
 * once, slices, and every error with its check name and line:col.
 *
 * The fixtures under tests/data/inventory/ name real hwloc XML snapshots
 * (tests/data/hwloc/) and synthetic descriptions, loaded by topology.c;
 * those under errors/ each carry one kind of mistake. Inventories that need
 * an absolute path or no file at all are written to a temporary directory.
 */
#include "harness.h"

#include <limits.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#define INV_DATA MESHGEN_TEST_DATA "/inventory"
#define DGX2_XML MESHGEN_TEST_DATA "/hwloc/nvidiaDGX2.xml"

static struct mg_inventory *load(struct th_fx *f, const char *path)
{
    struct mg_mark at = {"--inventory", 0, 0};
    return mg_inventory_load(&f->arena, &f->diags, path, at);
}

/* Writes text as inv.yaml in the fixture's directory and loads it. */
static struct mg_inventory *load_text(struct th_fx *f, const char *text)
{
    return load(f, th_write(f, "inv.yaml", text));
}

/* ---- valid inventories ------------------------------------------------------- */

static void test_two_hosts_one_topology(void **state)
{
    struct th_fx *f = *state;
    const char *path = INV_DATA "/two-dgx.yaml";
    struct mg_inventory *inv = load(f, path);

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_string_equal(inv->source, path);
    assert_int_equal(inv->n_hosts, 2);
    assert_string_equal(inv->hosts[0].name, "dgx1");
    assert_string_equal(inv->hosts[1].name, "dgx2");
    assert_null(inv->hosts[0].slice);
    assert_mark(inv->hosts[0].at, path, 5, 12);
    assert_mark(inv->hosts[1].at, path, 7, 12);
    /* "../hwloc/x.xml" and "./../hwloc/x.xml" are one file, loaded once. */
    assert_int_equal(inv->n_topologies, 1);
    assert_int_equal(inv->hosts[0].topology, 0);
    assert_int_equal(inv->hosts[1].topology, 0);
    assert_int_equal(inv->topologies[0].n[MG_KIND_GPU], 16);
    /* The inventory, then each topology file as opened, for --depfile. */
    assert_int_equal(inv->n_files, 2);
    assert_string_equal(inv->files[0], path);
    assert_string_equal(inv->files[1], INV_DATA "/../hwloc/nvidiaDGX2.xml");
}

static void test_groups_and_slices(void **state)
{
    struct th_fx *f = *state;
    static const char *const names[] = {"gpu001", "gpu002", "gpu003", "gpu004",
                                        "cpu1",   "cpu2",   "login"};
    static const char *const slices[] = {"rack-a", "rack-a", "rack-b", "rack-b", NULL, NULL, NULL};
    const char *path = INV_DATA "/mixed.yaml";
    struct mg_inventory *inv = load(f, path);
    int i;

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_hosts, 7);
    for (i = 0; i < 7; i++) {
        assert_string_equal(inv->hosts[i].name, names[i]);
        if (slices[i])
            assert_string_equal(inv->hosts[i].slice, slices[i]);
        else
            assert_null(inv->hosts[i].slice);
        assert_int_equal(inv->hosts[i].topology, i < 4 ? 0 : 1);
    }
    assert_mark(inv->hosts[2].at, path, 7, 12);
    assert_mark(inv->hosts[6].at, path, 10, 12);
    /* Two groups share the XML file; the synthetic one is the second. */
    assert_int_equal(inv->n_topologies, 2);
    assert_int_equal(inv->topologies[0].n[MG_KIND_GPU], 16);
    assert_int_equal(inv->topologies[1].n[MG_KIND_GPU], 0);
    assert_int_equal(inv->topologies[1].n[MG_KIND_PU], 16);
    /* A synthetic topology is no file to depend on. */
    assert_int_equal(inv->n_files, 2);
}

static void test_ten_thousand_hosts(void **state)
{
    struct th_fx *f = *state;
    struct timespec t0, t1;
    struct mg_inventory *inv;
    double seconds;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    inv = load(f, INV_DATA "/many.yaml");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_hosts, 10000);
    assert_string_equal(inv->hosts[0].name, "n00001");
    assert_string_equal(inv->hosts[9999].name, "n10000");
    assert_int_equal(inv->hosts[9999].topology, 0);
    assert_int_equal(inv->n_topologies, 1);
    /* Milliseconds when each topology is loaded once; loading it per host
     * would take minutes. The bound leaves room for sanitizers and
     * valgrind. */
    seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (seconds > 10.0)
        fail_msg("loading 10000 hosts took %.1f s", seconds);
}

static void test_paths(void **state)
{
    struct th_fx *f = *state;
    char xml[2 * PATH_MAX], text[5 * PATH_MAX];
    struct mg_inventory *inv;

    /* An absolute path is kept as written, in whatever quoting. */
    th_absolute(xml, sizeof xml, DGX2_XML);
    snprintf(text, sizeof text,
             "meshgen-inventory: 1\nhosts:\n  - names: a1\n    topology: %s\n"
             "  - names: a2\n    topology: '%s'\n",
             xml, xml);
    inv = load_text(f, text);
    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_topologies, 1);
    assert_int_equal(inv->n_files, 2);
    assert_string_equal(inv->files[0], th_path(f, "inv.yaml"));
    assert_string_equal(inv->files[1], xml);
}

static void test_relative_to_current_directory(void **state)
{
    struct th_fx *f = *state;
    char cwd[PATH_MAX];
    struct mg_inventory *inv;

    /* An inventory named without a directory resolves its topologies
     * against the current one and shows them as written. */
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(INV_DATA), 0);
    inv = load(f, "two-dgx.yaml");
    assert_int_equal(chdir(cwd), 0);
    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_topologies, 1);
    assert_string_equal(inv->files[1], "../hwloc/nvidiaDGX2.xml");
}

/* ---- TPU slices (docs/tpu.md) -------------------------------------------------- */

/* A v3 4x4 slice and a v5e 2x2 one beside an hwloc host: each TPU worker
 * has a topology of its own whose devices sit where JAX's layout puts them;
 * a TPU group without `slice` is a slice of its own. */
static void test_tpu_groups(void **state)
{
    struct th_fx *f = *state;
    const struct mg_topology *t;
    struct mg_inventory *inv =
        load_text(f, "meshgen-inventory: 1\nhosts:\n"
                     "  - names: v3-w[0-3]\n    tpu: v3\n    topology: 4x4\n    slice: pod\n"
                     "  - names: cpu\n    synthetic: 'pack:1 core:2 pu:1'\n"
                     "  - names: e0\n    tpu: v5e\n    topology: 2x2\n");
    int h;

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_hosts, 6);
    assert_int_equal(inv->n_topologies, 6);
    for (h = 0; h < 4; h++) {
        t = &inv->topologies[inv->hosts[h].topology];
        assert_string_equal(inv->hosts[h].slice, "pod");
        assert_non_null(t->tpu);
        assert_string_equal(t->tpu->name, "v3");
        assert_int_equal(t->n[MG_KIND_TPU], 8);
        assert_int_equal(t->n[MG_KIND_CORE], 0);
        assert_int_equal(t->tpu_dims[0] * 100 + t->tpu_dims[1] * 10 + t->tpu_dims[2], 441);
    }
    /* Worker 1 holds chips x 2-3, y 0-1, x fastest, then the core. */
    t = &inv->topologies[inv->hosts[1].topology];
    assert_int_equal(t->devs[MG_KIND_TPU][0].coords[0], 2);
    assert_int_equal(t->devs[MG_KIND_TPU][1].core_on_chip, 1);
    assert_int_equal(t->devs[MG_KIND_TPU][7].coords[0] * 10 + t->devs[MG_KIND_TPU][7].coords[1],
                     31);
    assert_string_equal(t->devs[MG_KIND_TPU][7].model, "TPU v3");
    /* Workers differ, so do their digests. */
    assert_string_not_equal(inv->topologies[inv->hosts[0].topology].digest, t->digest);
    assert_null(inv->topologies[inv->hosts[4].topology].tpu);
    assert_int_equal(inv->topologies[inv->hosts[4].topology].n[MG_KIND_TPU], 0);
    assert_string_equal(inv->hosts[5].slice, "slice2");
    assert_int_equal(inv->topologies[inv->hosts[5].topology].n[MG_KIND_TPU], 4);
}

/* What a TPU group may not be, each at the node at fault. */
static void test_tpu_errors(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: t0\n    tpu: v5p\n"));
    g = expect_diag(&f->diags, "inventory-topology", 3, 5);
    expect_message(g, "found 'tpu' without 'topology'");
    th_reset(f);
    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: t0\n    tpu: v5e\n    topology: 3x3\n"));
    g = expect_diag(&f->diags, "tpu-topology", 5, 15);
    expect_message(g, "v5e has no 3x3 slice; its topologies are 1x1, 2x2, 2x4, 4x4, 4x8, 8x8, "
                      "8x16, 16x16");
    th_reset(f);
    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: t[0-1]\n    tpu: v5p\n    topology: 4x4x4\n"));
    g = expect_diag(&f->diags, "tpu-hosts", 3, 12);
    expect_message(g, "has 16 hosts of 4 chips (2x2) each, not 2");
    th_reset(f);
    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: t0\n    tpu: 5\n    topology: 2x2\n"));
    expect_diag(&f->diags, "type-mismatch", 4, 10);
}

/* ---- errors -------------------------------------------------------------------- */

static void test_duplicate_host(void **state)
{
    struct th_fx *f = *state;
    const char *path = INV_DATA "/errors/duplicate-host.yaml";
    const struct mg_diag *g;

    assert_null(load(f, path));
    g = expect_only(&f->diags, "inventory-host-duplicate", 5, 12);
    assert_mark(g->related, path, 3, 12);
    assert_string_equal(g->related_msg, "first defined here");
    assert_string_equal(g->message, "hosts[1].names: found the host 'gpu015' (and 1 more), "
                                    "already named by hosts[0], expected each host once");
}

static void test_duplicate_host_in_one_hostlist(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: n[1-3],n2\n    synthetic: 'pack:1 core:2 pu:1'\n"));
    g = expect_diag(&f->diags, "inventory-host-duplicate", 3, 12);
    assert_null(g->related.file);
    expect_message(g, "found the host 'n2' twice in this hostlist");
}

static void test_missing_topology(void **state)
{
    struct th_fx *f = *state;

    /* Two groups name the missing file: one error, at the first; the
     * synthetic group between them still loads. */
    assert_null(load(f, INV_DATA "/errors/missing-topology.yaml"));
    expect_diag(&f->diags, "inventory-load", 5, 15);
    assert_int_equal(count_check(&f->diags, "inventory-load"), 1);
    assert_int_equal(f->diags.n_errors, 1);
}

static void test_broken_topology(void **state)
{
    struct th_fx *f = *state;

    assert_null(load(f, INV_DATA "/errors/broken-topology.yaml"));
    expect_diag(&f->diags, "inventory-load", 5, 15);
}

static void test_both_topologies(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, INV_DATA "/errors/both-topologies.yaml"));
    g = expect_only(&f->diags, "inventory-topology", 5, 16);
    assert_string_equal(g->message, "hosts[0]: found both 'topology' and 'synthetic', expected "
                                    "exactly one of them");
}

static void test_no_topology(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, INV_DATA "/errors/no-topology.yaml"));
    g = expect_only(&f->diags, "inventory-topology", 3, 5);
    expect_message(g, "hosts[0]: found neither 'topology' nor 'synthetic'");
}

static void test_bad_hostlist(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, INV_DATA "/errors/bad-hostlist.yaml"));
    assert_int_equal(f->diags.n_errors, 2);
    /* Quoted: the columns count from the text inside the quotes. */
    g = expect_diag(&f->diags, "hostlist", 3, 24);
    expect_message(g, "found the end of the text inside '[', expected ']'");
    g = expect_diag(&f->diags, "hostlist", 5, 21);
    expect_message(g, "found ']' with no '[' before it");
}

static void test_format_version(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    /* Another version's keys are not judged by this one's rules. */
    assert_null(load(f, INV_DATA "/errors/format-version.yaml"));
    g = expect_only(&f->diags, "format-version", 1, 20);
    assert_string_equal(g->message, "meshgen-inventory: found format version '2', expected 1 (the "
                                    "only version this meshgen reads)");
}

static void test_unknown_key(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, INV_DATA "/errors/unknown-key.yaml"));
    g = expect_only(&f->diags, "key-unknown", 5, 5);
    assert_string_equal(g->message, "hosts[0]: found the unknown key 'slise', expected one of: "
                                    "names, topology, synthetic, slice, tpu; did you mean "
                                    "'slice'?");
}

static void test_self_reference(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    /* Refused once, although two groups name it in two spellings. */
    assert_null(load(f, INV_DATA "/errors/self-reference.yaml"));
    g = expect_only(&f->diags, "inventory-load", 5, 15);
    expect_message(g, "the inventory names itself as a topology ('self-reference.yaml')");
}

static void test_structure(void **state)
{
    struct th_fx *f = *state;
    const char *path = INV_DATA "/errors/structure.yaml";
    const struct mg_diag *g;

    assert_null(load(f, path));
    g = expect_diag(&f->diags, "type-mismatch", 1, 20);
    expect_message(g, "(the quotes make it a string)");
    g = expect_diag(&f->diags, "type-mismatch", 3, 12);
    assert_string_equal(g->message,
                        "hosts[0].names: found a sequence, expected a hostlist (a string such "
                        "as gpu[001-016])");
    g = expect_diag(&f->diags, "type-mismatch", 5, 5);
    expect_message(g, "hosts[1]: found the string 'just-a-string', expected a mapping");
    expect_diag(&f->diags, "key-required", 6, 5);
    g = expect_diag(&f->diags, "type-mismatch", 7, 12);
    assert_string_equal(g->message, "hosts[2].slice: found the integer '7', expected a string");
    g = expect_diag(&f->diags, "key-duplicate", 9, 5);
    assert_mark(g->related, path, 8, 5);
    g = expect_diag(&f->diags, "inventory-topology", 10, 16);
    expect_message(g, "hosts[3].synthetic: found an empty string");
    expect_diag(&f->diags, "key-unknown", 11, 1);
    assert_int_equal(f->diags.n_errors, 8);
}

static void test_empty_hosts(void **state)
{
    struct th_fx *f = *state;

    assert_null(load(f, INV_DATA "/errors/empty-hosts.yaml"));
    expect_diag(&f->diags, "inventory-empty", 2, 8);
    th_reset(f);
    assert_null(load_text(f, "meshgen-inventory: 1\nhosts: gpu1\n"));
    expect_diag(&f->diags, "type-mismatch", 2, 8);
    th_reset(f);
    assert_null(load_text(f, "meshgen-inventory: 1\n"));
    expect_diag(&f->diags, "key-required", 1, 1);
}

static void test_not_an_inventory(void **state)
{
    struct th_fx *f = *state;
    struct mg_mark at = {"spec.yaml", 4, 12};

    /* Missing: reported where the inventory was named. */
    assert_null(mg_inventory_load(&f->arena, &f->diags, INV_DATA "/no-such.yaml", at));
    expect_diag(&f->diags, "io", 4, 12);
    th_reset(f);
    assert_null(load_text(f, "- a\n- b\n"));
    expect_diag(&f->diags, "type-mismatch", 1, 1);
    th_reset(f);
    assert_null(load_text(f, "hosts: [\n"));
    expect_diag(&f->diags, "yaml-syntax", 2, 1);
}

static void test_host_count(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    /* One group past the ceiling is refused from its count alone. */
    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: n[0-1048576]\n    synthetic: 'pack:1 core:2 pu:1'\n"));
    g = expect_diag(&f->diags, "hostlist", 3, 12);
    expect_message(g, "found 1048577 names, expected at most 1048576");
    /* Several groups are held to it together. */
    th_reset(f);
    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: a[1-600000]\n    synthetic: 'pack:1 core:2 pu:1'\n"
                             "  - names: b[1-600000]\n    synthetic: 'pack:1 core:2 pu:1'\n"));
    g = expect_diag(&f->diags, "inventory-host-count", 5, 12);
    assert_string_equal(g->message, "hosts[1].names: found 1200000 hosts up to here, expected at "
                                    "most 1048576 in one inventory");
}

/* A topology file is hwloc XML whatever its name: one named .yaml inside an
 * inventory is read as XML, never as an inventory file and never as this
 * machine (which hwloc would discover if no XML were set). */
static void test_topology_named_yaml(void **state)
{
    struct th_fx *f = *state;
    const struct mg_inventory *inv;
    const struct mg_diag *g;

    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - names: a\n    topology: missing.yaml\n"));
    g = expect_diag(&f->diags, "inventory-load", 4, 15);
    expect_message(g, "cannot open inventory 'missing.yaml'");
    assert_int_equal(f->diags.n_errors, 1);

    /* The DGX-2 export under another name: its 16 GPUs, as from .xml. */
    th_copy(DGX2_XML, th_path(f, "dgx2.yaml"));
    th_reset(f);
    inv = load_text(f, "meshgen-inventory: 1\nhosts:\n  - names: a\n    topology: dgx2.yaml\n");
    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_topologies, 1);
    assert_int_equal(inv->topologies[0].n[MG_KIND_GPU], 16);
}

/* ---- topology files once per command (topology_cache.c) ----------------------- */

/* A test that failed under a hold leaves none to the next. */
static int cache_teardown(void **state)
{
    mg_topology_cache_release();
    return th_teardown(state);
}
#define cache_test(f) cmocka_unit_test_setup_teardown(f, th_setup, cache_teardown)

static struct mg_inventory *load_at(struct th_fx *f, const char *path, const char *file, int line)
{
    struct mg_mark at = {file, line, 12};
    return mg_inventory_load(&f->arena, &f->diags, path, at);
}

/* An absolute path to a file of the test data, for an inventory written
 * elsewhere to name. */
static const char *data_path(struct th_fx *f, const char *path)
{
    char cwd[PATH_MAX];

    if (path[0] == '/')
        return path;
    assert_non_null(getcwd(cwd, sizeof cwd));
    return mg_printf(&f->arena, "%s/%s", cwd, path);
}

/* Under a hold, inventories and topology sources that name one XML file
 * share one load of it, by its identity whatever the path's spelling.
 * Without a hold, each load is its own. */
static void test_cache_shared_topology(void **state)
{
    struct th_fx *f = *state;
    struct mg_inventory *x, *y, *z, *w, *v, *u;

    assert_int_equal(mg_topology_cache_hold(), 0);
    assert_int_equal(mg_topology_cache_hold(), -1); /* one hold at a time */
    x = load(f, INV_DATA "/two-dgx.yaml");
    y = load(f, INV_DATA "/mixed.yaml");
    z = load(f, INV_DATA "/../inventory/two-dgx.yaml");
    w = load(f, DGX2_XML);
    v = load(f, MESHGEN_TEST_DATA "/hwloc/../hwloc/nvidiaDGX2.xml");
    expect_clean(&f->diags);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(z);
    assert_non_null(w);
    assert_non_null(v);
    /* One load: its matrix is shared, and so are its devices where no
     * template made a copy of its own (test_cache_template_not_shared). */
    assert_non_null(x->topologies[0].closeness[MG_KIND_GPU]);
    assert_ptr_equal(x->topologies[0].closeness[MG_KIND_GPU],
                     y->topologies[0].closeness[MG_KIND_GPU]);
    assert_ptr_equal(x->topologies[0].closeness[MG_KIND_GPU],
                     z->topologies[0].closeness[MG_KIND_GPU]);
    assert_ptr_equal(x->topologies[0].closeness[MG_KIND_GPU],
                     w->topologies[0].closeness[MG_KIND_GPU]);
    assert_ptr_equal(v->topologies[0].devs[MG_KIND_GPU], w->topologies[0].devs[MG_KIND_GPU]);
    /* A file without a HostName names its one host after the path. */
    assert_string_equal(w->hosts[0].name, "nvidiaDGX2");
    /* Each inventory labels the file as it names it. */
    assert_string_equal(y->topologies[0].label, "../hwloc/nvidiaDGX2.xml");
    assert_string_equal(w->topologies[0].label, DGX2_XML);
    assert_mark(z->hosts[0].at, INV_DATA "/../inventory/two-dgx.yaml", 5, 12);
    mg_topology_cache_release();

    u = load(f, INV_DATA "/two-dgx.yaml");
    assert_non_null(u);
    assert_ptr_not_equal(u->topologies[0].closeness[MG_KIND_GPU],
                         x->topologies[0].closeness[MG_KIND_GPU]);
}

/* What a kept file's first load reported is reported there alone: another
 * inventory that names the file, by another spelling of its path, is
 * told nothing again. Without a hold each load reports. */
static void test_cache_reports_once(void **state)
{
    struct th_fx *f = *state;
    const char *xml = data_path(f, MESHGEN_TEST_DATA "/topo/bad-uuid.xml");
    const char *base = strrchr(xml, '/');
    const char *one, *two;
    const struct mg_diag *g;

    load_text(f, "meshgen-inventory: 1\nhosts: []\n"); /* makes the directory */
    mg_diags_init(&f->diags, &f->arena);
    one = th_write(f, "one.yaml",
                   mg_printf(&f->arena,
                             "meshgen-inventory: 1\nhosts:\n  - names: a1\n"
                             "    topology: %s\n",
                             xml));
    two = th_write(f, "two.yaml",
                   mg_printf(&f->arena,
                             "meshgen-inventory: 1\n# another\nhosts:\n"
                             "  - names: b1\n    topology: %.*s/.%s\n",
                             (int)(base - xml), xml, base));
    assert_int_equal(mg_topology_cache_hold(), 0);
    assert_non_null(load(f, one));
    g = find_check(&f->diags, "inventory-uuid");
    assert_non_null(g);
    assert_mark(g->at, one, 4, 15);
    assert_int_equal(f->diags.n, 1);
    assert_non_null(load(f, two));
    assert_int_equal(f->diags.n, 1);
    mg_topology_cache_release();

    assert_non_null(load(f, two));
    assert_int_equal(f->diags.n, 2);
    assert_mark(f->diags.items[1].at, two, 5, 15);
    expect_message(&f->diags.items[1], "/./bad-uuid.xml");
    unlink(one);
    unlink(two);
}

/* A file that fails to load is reported once per hold, at the first place
 * that names it; later loads fail too (no inventory), without a word. */
static void test_cache_failure_once(void **state)
{
    struct th_fx *f = *state;
    const char *xml = MESHGEN_TEST_DATA "/topo/doctype-entity.xml";
    int n;

    assert_int_equal(mg_topology_cache_hold(), 0);
    assert_null(load_at(f, xml, "first.yaml", 3));
    n = f->diags.n;
    assert_int_equal(f->diags.n_errors, 1);
    assert_mark(expect_diag(&f->diags, "inventory-load", 2, 20)->related, "first.yaml", 3, 12);
    assert_null(load_at(f, xml, "second.yaml", 4));
    assert_null(load(f, INV_DATA "/errors/doctype.yaml"));
    assert_int_equal(f->diags.n_errors, 2); /* doctype.yaml's other file */
    assert_int_equal(f->diags.n, n + 1);
    mg_topology_cache_release();
}

/* A synthetic description is no file: it is loaded, and reports, each
 * time. */
static void test_cache_synthetic_each_time(void **state)
{
    struct th_fx *f = *state;
    const char *bad = "synthetic:pack:2 nonsense:2 pu:1";

    assert_int_equal(mg_topology_cache_hold(), 0);
    assert_null(load_at(f, bad, "first.yaml", 3));
    assert_null(load_at(f, bad, "second.yaml", 5));
    assert_int_equal(f->diags.n_errors, 2);
    assert_mark(f->diags.items[1].at, "second.yaml", 5, 12);
    mg_topology_cache_release();
}

/* A topology source is an inventory of one host, blamed where the spec
 * names the source: a later run's host is at that run's place. */
static void test_cache_host_follows_caller(void **state)
{
    struct th_fx *f = *state;
    const struct mg_inventory *x, *y;

    assert_int_equal(mg_topology_cache_hold(), 0);
    x = load_at(f, DGX2_XML, "first.yaml", 3);
    y = load_at(f, DGX2_XML, "second.yaml", 5);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(y->n_hosts, 1);
    assert_mark(x->hosts[0].at, "first.yaml", 3, 12);
    assert_mark(y->hosts[0].at, "second.yaml", 5, 12);
    assert_string_equal(y->hosts[0].name, x->hosts[0].name);
    mg_topology_cache_release();
}

/* Making one inventory's topology a template does not change the kept
 * load another inventory shares: a later template still says so, and a
 * host that has the file to itself keeps its UUIDs. */
static void test_cache_template_not_shared(void **state)
{
    struct th_fx *f = *state;
    const char *xml = data_path(f, DGX2_XML);
    const char *names[] = {"a[1-2]", "c[1-3]", "b1"};
    struct mg_inventory *inv[3];
    int i;

    load_text(f, "meshgen-inventory: 1\nhosts:\n  - names: x\n    synthetic: core:1\n");
    assert_int_equal(mg_topology_cache_hold(), 0);
    for (i = 0; i < 3; i++) {
        const char *path = th_write(
            f, "t.yaml",
            mg_printf(&f->arena, "meshgen-inventory: 1\nhosts:\n  - names: %s\n    topology: %s\n",
                      names[i], xml));
        mg_diags_init(&f->diags, &f->arena);
        inv[i] = load(f, path);
        unlink(path);
        assert_non_null(inv[i]);
        if (i < 2)
            expect_message(expect_diag(&f->diags, "inventory-template", 4, 15), "its 16 GPU UUIDs");
        else
            assert_null(find_check(&f->diags, "inventory-template"));
    }
    assert_string_equal(inv[0]->topologies[0].devs[MG_KIND_GPU][0].uuid, "");
    assert_string_equal(inv[2]->topologies[0].devs[MG_KIND_GPU][0].uuid,
                        "GPU-d3977428-7a30-086b-2e20-5c1eeed647c6");
    assert_string_not_equal(inv[0]->topologies[0].digest, inv[2]->topologies[0].digest);
    mg_topology_cache_release();
}

/* ---- per-host identity (issue 14 §2) ----------------------------------------------- */

/* `topology: snap/{host}.xml`: each host its own snapshot, so each keeps
 * its own UUIDs; hosts in the hostlist's written order. */
static void test_per_host_snapshots(void **state)
{
    struct th_fx *f = *state;
    const struct mg_inventory *inv = load(f, INV_DATA "/per-host.yaml");
    const struct mg_devinfo *g0, *g1;

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_null(find_check(&f->diags, "inventory-uuid"));
    assert_int_equal(inv->n_hosts, 2);
    assert_string_equal(inv->hosts[0].name, "gpu2");
    assert_string_equal(inv->hosts[1].name, "gpu1");
    assert_int_equal(inv->n_topologies, 2);
    assert_int_not_equal(inv->hosts[0].topology, inv->hosts[1].topology);
    g0 = inv->topologies[inv->hosts[0].topology].devs[MG_KIND_GPU];
    g1 = inv->topologies[inv->hosts[1].topology].devs[MG_KIND_GPU];
    assert_string_equal(g0[0].uuid, "GPU-11111111-2222-3333-4444-000000000003");
    assert_string_equal(g1[1].uuid, "GPU-11111111-2222-3333-4444-000000000002");
    assert_string_equal(inv->topologies[inv->hosts[0].topology].label, "snap/gpu2.xml");
    assert_int_equal(inv->n_files, 3);
}

/* One host's snapshot named by two hosts is a template: no UUIDs (and a
 * digest without them), one warning; a single host keeps them. */
static void test_template_drops_uuids(void **state)
{
    struct th_fx *f = *state;
    const struct mg_inventory *inv = load(f, INV_DATA "/template.yaml"), *own;
    const struct mg_diag *g;
    int i;

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_topologies, 1);
    for (i = 0; i < 2; i++)
        assert_string_equal(inv->topologies[0].devs[MG_KIND_GPU][i].uuid, "");
    assert_null(find_check(&f->diags, "inventory-uuid"));
    g = find_check(&f->diags, "inventory-template");
    assert_non_null(g);
    assert_int_equal(g->severity, MG_SEV_NOTE);
    assert_int_equal(g->at.line, 6);
    expect_message(g, "shared by 2 hosts");
    expect_message(g, "its 2 GPU UUIDs");

    own = load(f, INV_DATA "/snap/gpu1.xml");
    assert_non_null(own);
    assert_string_equal(own->topologies[0].devs[MG_KIND_GPU][0].uuid,
                        "GPU-11111111-2222-3333-4444-000000000001");
    assert_string_not_equal(own->topologies[0].digest, inv->topologies[0].digest);

    /* The 64-host kind of template: the DGX-2 export shared by two hosts. */
    inv = load(f, INV_DATA "/two-dgx.yaml");
    assert_non_null(inv);
    for (i = 0; i < 16; i++)
        assert_string_equal(inv->topologies[0].devs[MG_KIND_GPU][i].uuid, "");
}

/* Snapshots that exist but fail to load still take a place in the table of
 * topologies seen: four groups of five broken ones are 20 keys, more than
 * the 16 places the table had, which then filled and the next lookup went
 * round it forever. SIGALRM ends the test if it hangs. */
static void test_per_host_broken_snapshots(void **state)
{
    struct th_fx *f = *state;
    const char *groups = "abcd";
    int g, h;

    load_text(f, "meshgen-inventory: 1\nhosts:\n"
                 "  - names: a[1-5]\n    topology: bad/{host}.xml\n"
                 "  - names: b[1-5]\n    topology: bad/{host}.xml\n"
                 "  - names: c[1-5]\n    topology: bad/{host}.xml\n"
                 "  - names: d[1-5]\n    topology: bad/{host}.xml\n");
    assert_int_equal(mkdir(th_path(f, "bad"), 0700), 0);
    for (g = 0; g < 4; g++)
        for (h = 1; h <= 5; h++)
            th_write(f, mg_printf(&f->arena, "bad/%c%d.xml", groups[g], h), "");
    /* Written before the snapshots: one error per group, none missing now. */
    assert_int_equal(f->diags.n_errors, 4);
    alarm(10);
    assert_null(load(f, th_path(f, "inv.yaml")));
    alarm(0);
    assert_int_equal(f->diags.n_errors, 4 + 20);
}

/* tpu-slice: a TPU group after any group of its slice, and any group
 * after a TPU group of its slice, each blamed against the first such;
 * groups that are not TPU slices may share a slice. */
static void test_tpu_slice_pairs(void **state)
{
    struct th_fx *f = *state;
    const char *want[] = {"hosts[1].slice: found the slice 's' of hosts[0] again",
                          "hosts[2].slice: found the slice 's' of hosts[1] again",
                          "hosts[6].slice: found the slice 'v' of hosts[5] again"};
    int i, k = 0;

    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n"
                             "  - {names: h0, synthetic: 'pack:1 core:1 pu:1', slice: s}\n"
                             "  - {names: t1, tpu: v5e, topology: 1x1, slice: s}\n"
                             "  - {names: h2, synthetic: 'pack:1 core:1 pu:1', slice: s}\n"
                             "  - {names: h3, synthetic: 'pack:1 core:1 pu:1', slice: u}\n"
                             "  - {names: h4, synthetic: 'pack:1 core:1 pu:1', slice: u}\n"
                             "  - {names: t5, tpu: v5e, topology: 1x1, slice: v}\n"
                             "  - {names: t6, tpu: v5e, topology: 1x1, slice: v}\n"));
    assert_int_equal(f->diags.n_errors, 3);
    for (i = 0; i < f->diags.n; i++) {
        if (strcmp(f->diags.items[i].check, "tpu-slice") != 0)
            continue;
        assert_true(k < 3);
        expect_message(&f->diags.items[i], want[k]);
        k++;
    }
    assert_int_equal(k, 3);
}

/* A TPU group without `slice` is slice<index>, or slice<index>-2, -3, ...
 * where a group names that (docs/tpu.md §5): never a name the file writes,
 * whichever group writes it, before or after; never another automatic one. */
static void test_tpu_auto_slice_names(void **state)
{
    struct th_fx *f = *state;
    const char *want[] = {"slice0-3", "slice0", "slice0-2", "slice3",
                          "slice1",   "slice5", "slice6-2", "slice6"};
    struct mg_inventory *inv =
        load_text(f, "meshgen-inventory: 1\nhosts:\n"
                     "  - {names: t0, tpu: v5e, topology: 1x1}\n"
                     "  - {names: t1, tpu: v5e, topology: 1x1, slice: slice0}\n"
                     "  - {names: t2, tpu: v5e, topology: 1x1, slice: slice0-2}\n"
                     "  - {names: t3, tpu: v5e, topology: 1x1}\n"
                     "  - {names: h4, synthetic: 'pack:1 core:1 pu:1', slice: slice1}\n"
                     "  - {names: t5, tpu: v5e, topology: 1x1}\n"
                     "  - {names: t6, tpu: v5e, topology: 1x1}\n"
                     "  - {names: h7, synthetic: 'pack:1 core:1 pu:1', slice: slice6}\n");
    int h;

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_hosts, 8);
    for (h = 0; h < 8; h++)
        assert_string_equal(inv->hosts[h].slice, want[h]);
}

/* `slice: ""` is refused: the tables and resolve write no slice so, and a
 * granule of that name would read as none. */
static void test_empty_slice(void **state)
{
    struct th_fx *f = *state;

    assert_null(load(f, INV_DATA "/errors/empty-slice.yaml"));
    expect_message(expect_only(&f->diags, "inventory-slice", 6, 12),
                   "hosts[0].slice: found an empty string");
}

/* A slice name of a control character is refused (show and meshgen
 * inventory print it as it is), and one past 255 characters (the generated
 * C's string literal); 255 characters of two bytes each are fine. */
static void test_slice_name_refused(void **state)
{
    struct th_fx *f = *state;
    char text[1400], *p;
    int i;

    assert_null(load(f, INV_DATA "/errors/control-slice.yaml"));
    expect_message(expect_only(&f->diags, "inventory-slice", 7, 12),
                   "hosts[0].slice: found the control character #x1B in 'r\\x1b[2Jx'");
    th_reset(f);
    assert_null(load(f, INV_DATA "/errors/long-slice.yaml"));
    expect_message(expect_only(&f->diags, "inventory-slice", 6, 12),
                   "hosts[0].slice: found a name of 256 characters, expected at most 255");
    th_reset(f);
    p = text + sprintf(text, "meshgen-inventory: 1\nhosts:\n  - {names: t0, tpu: v5e, "
                             "topology: 1x1, slice: ");
    for (i = 0; i < 255; i++)
        p += sprintf(p, "\u00e9");
    strcpy(p, "}\n");
    assert_non_null(load_text(f, text));
    expect_clean(&f->diags);
}

/* A missing snapshot: one error for the group, naming the first host
 * without one and its path. */
static void test_missing_snapshot(void **state)
{
    struct th_fx *f = *state;
    const struct mg_diag *g;

    assert_null(load(f, INV_DATA "/errors/missing-snapshot.yaml"));
    g = expect_diag(&f->diags, "inventory-load", 4, 15);
    expect_message(g, "host 'gpu3' has no snapshot at '../snap/gpu3.xml'");
    expect_message(g, "from '../snap/{host}.xml'; 2 of the group's 4 hosts");
    assert_int_equal(f->diags.n_errors, 1);
    /* An input that cannot be read, as any missing topology: exit 2. */
    assert_int_equal(f->diags.io_errors, 1);
}

/* A UUID that is not one a runtime takes is left out with a warning, never
 * carried into a list. */
static void test_bad_uuid(void **state)
{
    struct th_fx *f = *state;
    const struct mg_inventory *inv = load(f, MESHGEN_TEST_DATA "/topo/bad-uuid.xml");
    const struct mg_diag *g;

    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_string_equal(inv->topologies[0].devs[MG_KIND_GPU][0].uuid, "");
    assert_string_equal(inv->topologies[0].devs[MG_KIND_GPU][1].uuid,
                        "GPU-11111111-2222-3333-4444-000000000005");
    g = find_check(&f->diags, "inventory-uuid");
    assert_non_null(g);
    expect_message(g, "'GPU-aaaa,1'");
}

/* Many hosts, each its own snapshot file: the topology table grows past
 * the one-per-group it starts with. */
static void test_many_snapshots(void **state)
{
    struct th_fx *f = *state;
    const struct mg_inventory *inv;
    int i;

    assert_null(load_text(f, "meshgen-inventory: 1\nhosts:\n  - names: h[1-40]\n"
                             "    topology: s/{host}.xml\n"));
    assert_int_equal(mkdir(th_path(f, "s"), 0700), 0);
    for (i = 1; i <= 40; i++)
        th_copy(INV_DATA "/snap/gpu1.xml", th_path(f, mg_printf(&f->arena, "s/h%d.xml", i)));
    th_reset(f);
    inv = load_text(f, "meshgen-inventory: 1\nhosts:\n  - names: h[1-40]\n"
                       "    topology: s/{host}.xml\n");
    expect_clean(&f->diags);
    assert_non_null(inv);
    assert_int_equal(inv->n_topologies, 40);
    assert_int_equal(inv->n_files, 41);
    for (i = 0; i < 40; i++) {
        assert_int_equal(inv->hosts[i].topology, i);
        assert_string_equal(inv->topologies[i].devs[MG_KIND_GPU][0].uuid,
                            "GPU-11111111-2222-3333-4444-000000000001");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        th_test(test_two_hosts_one_topology),
        th_test(test_groups_and_slices),
        th_test(test_ten_thousand_hosts),
        th_test(test_paths),
        th_test(test_relative_to_current_directory),
        th_test(test_duplicate_host),
        th_test(test_duplicate_host_in_one_hostlist),
        th_test(test_missing_topology),
        th_test(test_broken_topology),
        th_test(test_both_topologies),
        th_test(test_no_topology),
        th_test(test_bad_hostlist),
        th_test(test_format_version),
        th_test(test_unknown_key),
        th_test(test_self_reference),
        th_test(test_structure),
        th_test(test_empty_hosts),
        th_test(test_not_an_inventory),
        th_test(test_host_count),
        th_test(test_topology_named_yaml),
        th_test(test_per_host_snapshots),
        th_test(test_template_drops_uuids),
        th_test(test_missing_snapshot),
        th_test(test_bad_uuid),
        th_test(test_many_snapshots),
        th_test(test_tpu_groups),
        th_test(test_tpu_errors),
        cache_test(test_cache_shared_topology),
        cache_test(test_cache_reports_once),
        cache_test(test_cache_failure_once),
        cache_test(test_cache_synthetic_each_time),
        cache_test(test_cache_template_not_shared),
        cache_test(test_cache_host_follows_caller),
        th_test(test_per_host_broken_snapshots),
        th_test(test_tpu_slice_pairs),
        th_test(test_tpu_auto_slice_names),
        th_test(test_empty_slice),
        th_test(test_slice_name_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
