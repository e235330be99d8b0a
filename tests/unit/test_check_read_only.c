/*
 * The checks only read: every check (an MG_CHECK row of gen/checks.def)
 * leaves the model exactly as it found it, on every command-line case of
 * tests/cases that compiles a spec file against an inventory.
 *
 * The compiler already refuses a check that assigns through the model it
 * is given (a pointer to const); what it cannot see is a write through an
 * array the model points to. So mg_compile runs each case with a watcher
 * that copies the model and every array it holds just before a check, and
 * compares them just after. The cases are the inputs because between them
 * they make every check run and fail (test_checks holds each to a case),
 * so the error paths are watched as well as the passing ones.
 */
#include "harness.h"

#define CASES MESHGEN_SOURCE_DIR "/tests/cases"
#define MAX_ARRAYS (16 + MG_MAX_AXES)

/* The model as a check found it: the struct, and a copy of each array. */
struct snapshot {
    struct mg_plan plan;
    struct mg_spec spec;
    int n;
    const char *name[MAX_ARRAYS];
    const void *src[MAX_ARRAYS];
    void *copy[MAX_ARRAYS];
    size_t len[MAX_ARRAYS];
};

struct watch {
    const struct mg_spec *spec;
    const struct mg_inventory *inv;
    const char *case_name;
    struct snapshot before;
    const struct mg_plan *model; /* the last model a check was given */
    int ran[MG_CHK__COUNT], failed[MG_CHK__COUNT];
    int watched; /* checks watched in all */
};

static void keep(struct snapshot *s, const char *name, const void *src, size_t count, size_t size)
{
    if (!src || count == 0)
        return;
    assert_true(s->n < MAX_ARRAYS);
    s->name[s->n] = name;
    s->src[s->n] = src;
    s->len[s->n] = count * size;
    s->copy[s->n] = malloc(s->len[s->n]);
    assert_non_null(s->copy[s->n]);
    memcpy(s->copy[s->n], src, s->len[s->n]);
    s->n++;
}

/* Every array of the model, with its length as the model gives it. */
static void take(struct snapshot *s, const struct mg_plan *p, const struct mg_spec *spec,
                 const struct mg_inventory *inv)
{
    size_t hosts = (size_t)inv->n_hosts, mesh = (size_t)p->n_mesh, devs = (size_t)p->n_devices;
    int k;

    memset(s, 0, sizeof *s);
    /* memcpy, not assignment, so that padding is copied too. */
    memcpy(&s->plan, p, sizeof *p);
    memcpy(&s->spec, spec, sizeof *spec);
    keep(s, "spec shardings", spec->shardings, (size_t)spec->n_shardings, sizeof *spec->shardings);
    keep(s, "granules", p->granules, (size_t)p->n_granules_all, sizeof *p->granules);
    keep(s, "host_granule", p->host_granule, hosts, sizeof(int));
    keep(s, "granule_hosts", p->granule_hosts, hosts, sizeof(int));
    keep(s, "torus", p->torus, mesh, sizeof(int));
    keep(s, "tpu", p->tpu, 1, sizeof *p->tpu);
    if (p->tpu)
        keep(s, "tpu->perm", p->tpu->perm, mesh, sizeof(int32_t));
    keep(s, "host_first", p->host_first, hosts, sizeof(int));
    keep(s, "mesh", p->mesh, mesh, sizeof(int));
    keep(s, "device_index", p->device_index, devs, sizeof(int));
    keep(s, "processes", p->processes, (size_t)p->n_processes, sizeof *p->processes);
    keep(s, "process_devices", p->process_devices, mesh, sizeof(int));
    keep(s, "shardings", p->shardings, (size_t)p->n_shardings, sizeof *p->shardings);
    for (k = 0; k < MG_MAX_AXES; k++)
        keep(s, "groups", p->groups[k], mesh, sizeof(int));
}

static void drop(struct snapshot *s)
{
    int i;
    for (i = 0; i < s->n; i++)
        free(s->copy[i]);
    s->n = 0;
}

static void on_check(void *ctx, enum mg_check_id id, const struct mg_plan *model, int passed)
{
    struct watch *w = ctx;
    int i;

    w->model = model;
    if (passed < 0) {
        take(&w->before, model, w->spec, w->inv);
        return;
    }
    if (memcmp(&w->before.plan, model, sizeof *model) != 0)
        fail_msg("%s: check '%s' changed the model", w->case_name, mg_check_name(id));
    if (memcmp(&w->before.spec, w->spec, sizeof *w->spec) != 0)
        fail_msg("%s: check '%s' changed the spec", w->case_name, mg_check_name(id));
    for (i = 0; i < w->before.n; i++)
        if (memcmp(w->before.copy[i], w->before.src[i], w->before.len[i]) != 0)
            fail_msg("%s: check '%s' changed the model's %s", w->case_name, mg_check_name(id),
                     w->before.name[i]);
    drop(&w->before);
    w->ran[id]++;
    w->failed[id] += !passed;
    w->watched++;
}

/* ---- the cases -------------------------------------------------------------------- */

/* The value of `--inventory` on a case's command line (quoted or not),
 * into out; 0 when it has none. */
static int inventory_option(const char *cmd, char *out, size_t cap)
{
    const char *p = strstr(cmd, "--inventory");
    size_t n = 0;
    char end = ' ';

    if (!p)
        return 0;
    for (p += strlen("--inventory"); *p == ' ' || *p == '='; p++)
        ;
    if (*p == '"')
        end = *p++;
    while (p[n] && p[n] != end && p[n] != '\n')
        n++;
    assert_true(n > 0 && n < cap);
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* The case's command line (`# meshgen: ...`) into cmd, if it compiles a
 * spec file: validate, resolve, generate, show or env, without --mesh. */
static int compiles_spec(const char *path, char *cmd, size_t cap)
{
    static const char *const commands[] = {"validate", "resolve", "generate", "show", "env"};
    FILE *f = fopen(path, "r");
    char line[1024];
    int found = 0;
    size_t i, n;

    assert_non_null(f);
    while (!found && fgets(line, sizeof line, f) && line[0] == '#')
        if (strncmp(line, "# meshgen: ", 11) == 0)
            found = 1;
    fclose(f);
    if (!found || strstr(line, "--mesh") || strlen(line + 11) >= cap)
        return 0;
    strcpy(cmd, line + 11);
    for (i = 0; i < sizeof commands / sizeof *commands; i++) {
        n = strlen(commands[i]);
        if (strncmp(cmd, commands[i], n) == 0 && (cmd[n] == ' ' || cmd[n] == '\n'))
            return 1;
    }
    return 0;
}

/* Where the inventory of a case comes from, as the driver finds it:
 * --inventory (relative to the case's directory, where cases run), else
 * the spec's `inventory:` (relative to the spec). NULL for this machine,
 * which a unit test does not discover. */
static const char *inventory_source(struct mg_arena *a, const char *cmd, const struct mg_spec *spec)
{
    char opt[512];
    const char *src = inventory_option(cmd, opt, sizeof opt) ? opt : spec->inventory;

    if (!src || strcmp(src, "live") == 0)
        return NULL;
    if (strncmp(src, "synthetic:", 10) == 0)
        return mg_strdup(a, src);
    if (src == spec->inventory)
        return mg_printf(a, "%s/%s", spec->dir, src);
    return mg_printf(a, "%s/%s", CASES, src);
}

/* Compiles one case under the watcher. Returns 1 if it compiled (or
 * stopped at an error of a phase), 0 if it never reached the checks. */
static int watch_case(struct watch *w, const char *name)
{
    struct mg_arena a;
    struct mg_diags d;
    struct mg_mark at = {"--inventory", 0, 0};
    struct mg_compile_opts opts = {.groups = MG_WHEN_AUTO, .watch = on_check, .watch_ctx = w};
    char cmd[1024], *path = NULL, *buf;
    struct mg_node *root;
    struct mg_spec *spec;
    const struct mg_inventory *inv;
    const struct mg_plan *plan;
    const char *source;
    size_t len;
    int reached = 0;

    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    path = mg_printf(&a, "%s/%s", CASES, name);
    if (!compiles_spec(path, cmd, sizeof cmd) || !(buf = mg_read_file(&a, &d, path, at, &len)) ||
        !(root = mg_yaml_parse(&a, &d, path, buf, len)) ||
        !(spec = mg_spec_from_node(&a, &d, path, root)) || d.n_errors ||
        !(source = inventory_source(&a, cmd, spec)) ||
        !(inv = mg_inventory_load(&a, &d, source, at))) {
        mg_arena_free(&a);
        return 0;
    }
    w->spec = spec;
    w->inv = inv;
    w->case_name = name;
    w->model = NULL;
    plan = mg_compile(&a, &d, spec, inv, &opts);
    /* The watcher saw the model itself, not a copy of it. */
    if (plan)
        assert_ptr_equal(w->model, plan);
    reached = w->model != NULL;
    mg_arena_free(&a);
    return reached;
}

static void test_checks_only_read(void **state)
{
    static struct watch w;
    char **names;
    int n = th_names(CASES, ".yaml", &names), i, compiled = 0;
    (void)state;

    mg_topology_hold();
    for (i = 0; i < n; i++)
        compiled += watch_case(&w, names[i]);
    mg_topology_release();
    th_free_names(names, n);
    /* Enough inputs reached the checks for the watch to mean something:
     * every check ran on some case, and failed on some case. */
    assert_true(compiled >= 40);
    for (i = 0; i < MG_CHK__COUNT; i++) {
        if (mg_check_info((enum mg_check_id)i)->by != MG_BY_CHECK)
            continue;
        if (!w.ran[i] || !w.failed[i])
            fail_msg("check '%s' ran %d times and failed %d times over the cases",
                     mg_check_name((enum mg_check_id)i), w.ran[i], w.failed[i]);
    }
    print_message("%d cases compiled, %d checks watched\n", compiled, w.watched);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checks_only_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
