/*
 * The unit tests' harness (harness.h says what each part is for).
 */
#include "harness.h"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the fixture ------------------------------------------------------------------------ */

int th_setup(void **state)
{
    struct th_fx *f = calloc(1, sizeof *f);

    if (!f)
        return -1;
    mg_arena_init(&f->arena);
    mg_diags_init(&f->diags, &f->arena);
    f->spec.file = "test.yaml";
    f->spec.dir = ".";
    f->spec.format = 1;
    f->spec.name = "t";
    f->spec.name_at = th_mark(2);
    f->spec.mesh_at = th_mark(3);
    f->spec.axes_at = th_mark(4);
    f->spec.shape_at = th_mark(5);
    f->spec.dcn_at = th_mark(6);
    f->spec.mpmd_at = th_mark(7);
    f->spec.device_kind = MG_KIND_GPU;
    f->spec.order = MG_ORDER_INVENTORY;
    f->spec.processes = MESHGEN_PROCESSES_HOST;
    f->spec.granule = MG_GRANULE_HOST;
    f->spec.sort_granules = 1;
    *state = f;
    return 0;
}

/* Removes path and, if it is a directory, everything below it, without
 * following links. */
static void remove_tree(const char *path)
{
    struct stat st;
    DIR *dir;
    struct dirent *e;

    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    dir = opendir(path);
    if (dir) {
        while ((e = readdir(dir)) != NULL) {
            char child[PATH_MAX];
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) < (int)sizeof child)
                remove_tree(child);
        }
        closedir(dir);
    }
    rmdir(path);
}

int th_teardown(void **state)
{
    struct th_fx *f = *state;

    if (f->dir[0])
        remove_tree(f->dir);
    mg_arena_free(&f->arena);
    free(f);
    return 0;
}

void th_reset(struct th_fx *f)
{
    mg_diags_init(&f->diags, &f->arena);
}

/* ---- diagnostics ------------------------------------------------------------------------ */

void th_dump(const struct mg_diags *d)
{
    mg_diags_print(d, stderr, MG_FORMAT_TEXT);
}

void th_expect_clean(const struct mg_diags *d, const char *file, int line)
{
    if (d->n_errors != 0) {
        th_dump(d);
        fail_msg("%s:%d: expected no errors, got %d", file, line, d->n_errors);
    }
}

static const struct mg_diag *find_at(const struct mg_diags *d, const char *check, int line, int col)
{
    int i;

    for (i = 0; i < d->n; i++) {
        const struct mg_diag *g = &d->items[i];
        if (strcmp(g->check, check) == 0 && g->at.line == line && g->at.col == col)
            return g;
    }
    return NULL;
}

const struct mg_diag *th_expect_diag(const struct mg_diags *d, const char *check, int line, int col,
                                     const char *file, int tline)
{
    const struct mg_diag *g = find_at(d, check, line, col);

    if (!g) {
        th_dump(d);
        fail_msg("%s:%d: no [%s] diagnostic at %d:%d", file, tline, check, line, col);
    }
    return g;
}

const struct mg_diag *th_expect_only(const struct mg_diags *d, const char *check, int line, int col,
                                     const char *file, int tline)
{
    const struct mg_diag *g = th_expect_diag(d, check, line, col, file, tline);
    int others = d->n_errors - (g->severity == MG_SEV_ERROR);

    if (others != 0) {
        th_dump(d);
        fail_msg("%s:%d: %d errors besides [%s] at %d:%d", file, tline, others, check, line, col);
    }
    return g;
}

void th_expect_text(const char *text, const char *part, int present, const char *file, int line)
{
    if (!text)
        fail_msg("%s:%d: no text to look for \"%s\" in", file, line, part);
    if ((strstr(text, part) != NULL) != present)
        fail_msg("%s:%d: \"%s\" %s \"%s\"", file, line, text, present ? "lacks" : "holds", part);
}

void th_assert_mark(struct mg_mark m, const char *file, int line, int col, const char *tfile,
                    int tline)
{
    if (!m.file || (file && strcmp(m.file, file) != 0) || m.line != line || m.col != col)
        fail_msg("%s:%d: the mark is %s:%d:%d, expected %s:%d:%d", tfile, tline,
                 m.file ? m.file : "(no file)", m.line, m.col, file ? file : "(a file)", line, col);
}

int count_check(const struct mg_diags *d, const char *check)
{
    int i, n = 0;

    for (i = 0; i < d->n; i++)
        n += strcmp(d->items[i].check, check) == 0;
    return n;
}

const struct mg_diag *find_check(const struct mg_diags *d, const char *check)
{
    int i;

    for (i = 0; i < d->n; i++)
        if (strcmp(d->items[i].check, check) == 0)
            return &d->items[i];
    return NULL;
}

int has_error(const struct mg_diags *d, const char *check)
{
    int i;

    for (i = 0; i < d->n; i++)
        if (d->items[i].severity == MG_SEV_ERROR && strcmp(d->items[i].check, check) == 0)
            return 1;
    return 0;
}

/* ---- files ------------------------------------------------------------------------------ */

char *th_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;

    if (!f)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return text;
}

const char *th_dir(struct th_fx *f)
{
    if (!f->dir[0]) {
        strcpy(f->dir, "/tmp/meshgen-unit-XXXXXX");
        if (!mkdtemp(f->dir)) {
            f->dir[0] = '\0';
            fail_msg("cannot make a temporary directory");
        }
    }
    return f->dir;
}

const char *th_path(struct th_fx *f, const char *name)
{
    return mg_printf(&f->arena, "%s/%s", th_dir(f), name);
}

const char *th_write_bytes(struct th_fx *f, const char *name, const void *data, size_t len)
{
    const char *path = th_path(f, name);
    FILE *fp = fopen(path, "wb");

    assert_non_null(fp);
    if (len)
        assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    return path;
}

const char *th_write(struct th_fx *f, const char *name, const char *text)
{
    return th_write_bytes(f, name, text, strlen(text));
}

void th_copy(const char *from, const char *to)
{
    char buf[1 << 16];
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    size_t n;

    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

void th_absolute(char *out, size_t cap, const char *path)
{
    char cwd[PATH_MAX];

    if (path[0] == '/') {
        assert_true(strlen(path) < cap);
        strcpy(out, path);
        return;
    }
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_true((size_t)snprintf(out, cap, "%s/%s", cwd, path) < cap);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int th_names(const char *dir, const char *suffix, char ***names)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t k = strlen(suffix);
    int n = 0, cap = 64;

    if (!d)
        fail_msg("cannot open the directory %s", dir);
    *names = malloc((size_t)cap * sizeof **names);
    assert_non_null(*names);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= k || strcmp(e->d_name + len - k, suffix) != 0)
            continue;
        if (n == cap) {
            cap *= 2;
            *names = realloc(*names, (size_t)cap * sizeof **names);
            assert_non_null(*names);
        }
        (*names)[n] = malloc(len + 1);
        assert_non_null((*names)[n]);
        memcpy((*names)[n++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(*names, (size_t)n, sizeof **names, by_name);
    return n;
}

void th_free_names(char **names, int n)
{
    int i;

    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int th_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        int n = *p < 0x80                  ? 1
                : *p >= 0xC2 && *p <= 0xDF ? 2
                : *p >= 0xE0 && *p <= 0xEF ? 3
                : *p >= 0xF0 && *p <= 0xF4 ? 4
                                           : 0;
        int i;

        if (n == 0)
            return 0;
        for (i = 1; i < n; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        /* The second byte's range that would be overlong, a surrogate or
         * past U+10FFFF. */
        if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0) ||
            (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))
            return 0;
        p += n;
    }
    return 1;
}

char *th_replace(const char *s, const char *from, const char *to)
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

void th_shuffle(int32_t *a, int n, uint32_t seed)
{
    int i;

    for (i = n - 1; i > 0; i--) {
        int32_t j, t;

        seed = seed * 1103515245u + 12345u;
        j = (int32_t)((seed >> 8) % (uint32_t)(i + 1));
        t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- the model of the generator's stages ------------------------------------------------ */

struct mg_mark th_mark(int line)
{
    struct mg_mark m = {"test.yaml", line, 1};
    return m;
}

void th_axes(struct th_fx *f, int n, const char *const *names, const int64_t *shape,
             const int64_t *dcn)
{
    int i;

    f->spec.n_axes = f->spec.shape_n = n;
    for (i = 0; i < n; i++) {
        f->spec.axes[i].name = names[i];
        f->spec.axes[i].name_at = th_mark(4);
        f->spec.axes[i].size = shape[i];
        f->spec.axes[i].size_at = th_mark(5);
        f->spec.axes[i].type = MESHGEN_AXIS_EXPLICIT;
        if (dcn) {
            f->spec.axes[i].dcn = dcn[i];
            f->spec.axes[i].dcn_at = th_mark(6);
        }
    }
    if (dcn) {
        f->spec.has_dcn = 1;
        f->spec.dcn_n = n;
    }
}

void th_topology(struct th_fx *f, struct mg_topology *t, const char *key, int n,
                 const struct th_gpu *gpus, const int *closeness)
{
    int i;

    t->key = t->label = key;
    t->n[MG_KIND_GPU] = n;
    t->devs[MG_KIND_GPU] = mg_alloc_array(&f->arena, (size_t)n, sizeof(struct mg_devinfo));
    for (i = 0; i < n; i++) {
        struct mg_devinfo *d = &t->devs[MG_KIND_GPU][i];
        d->kind = MG_KIND_GPU;
        if (gpus) {
            d->pci = gpus[i].pci;
            d->vendor = gpus[i].vendor;
            d->model = gpus[i].model;
            d->uuid = gpus[i].uuid;
            d->cpuset = gpus[i].cpuset;
            d->os_index = gpus[i].os_index;
            d->numa = gpus[i].numa;
        } else {
            d->pci = d->vendor = d->model = d->uuid = d->cpuset = "";
            d->os_index = -1;
            d->numa = 0;
        }
    }
    if (closeness) {
        size_t cells = (size_t)n * (size_t)n;
        t->closeness[MG_KIND_GPU] = mg_alloc_array(&f->arena, cells, sizeof(int));
        memcpy(t->closeness[MG_KIND_GPU], closeness, cells * sizeof(int));
    }
}

void th_inventory(struct th_fx *f, struct mg_topology *topologies, int n_topologies, int n_hosts,
                  const int *topology_of)
{
    int i;

    f->inv.source = "test-inventory";
    f->inv.n_topologies = n_topologies;
    f->inv.topologies = topologies;
    f->inv.n_hosts = n_hosts;
    f->inv.hosts = mg_alloc_array(&f->arena, (size_t)n_hosts, sizeof(struct mg_host));
    for (i = 0; i < n_hosts; i++) {
        f->inv.hosts[i].name = mg_printf(&f->arena, "h%d", i);
        f->inv.hosts[i].topology = topology_of ? topology_of[i] : 0;
        f->inv.hosts[i].at = th_mark(100 + i);
    }
}

void th_hosts(struct th_fx *f, int n_hosts, int per_host, const int *closeness)
{
    struct mg_topology *t = mg_alloc(&f->arena, sizeof *t);

    th_topology(f, t, "test", per_host, NULL, closeness);
    th_inventory(f, t, 1, n_hosts, NULL);
}

struct mg_plan *th_compile(struct th_fx *f)
{
    return mg_compile(&f->arena, &f->diags, &f->spec, &f->inv, NULL);
}

/* ---- runtime meshes --------------------------------------------------------------------- */

/* The device a host of no device list of its own is given. */
static const struct meshgen_device_info any_gpu = {.kind = MESHGEN_KIND_GPU,
                                                   .os_index = -1,
                                                   .numa = 0,
                                                   .pci = "0000:01:00.0",
                                                   .vendor = "NVIDIA",
                                                   .model = "H100",
                                                   .uuid = "",
                                                   .cpuset = "0"};

/* The template of host h: an earlier host's when it was given the same
 * devices, else a new one holding a copy of them. */
static int32_t template_of(struct th_mesh *m, const struct th_mesh_desc *d, int h, int *copied)
{
    const struct th_host *x = &d->hosts[h];
    int k, i;

    for (k = 0; k < h; k++)
        if (d->hosts[k].devices == x->devices && d->hosts[k].n_devices == x->n_devices)
            return m->hosts[k].template_index;
    k = m->mesh.n_templates++;
    m->templates[k].n_devices = x->n_devices;
    if (x->n_devices == 0)
        return k;
    assert_true(*copied + x->n_devices <= TH_MAX_DEVICES);
    m->templates[k].devices = &m->devices[*copied];
    for (i = 0; i < x->n_devices; i++)
        m->devices[*copied + i] = x->devices ? x->devices[i] : any_gpu;
    *copied += x->n_devices;
    return k;
}

/* Hosts, templates and the devices they describe. */
static void mesh_hosts(struct th_mesh *m, const struct th_mesh_desc *d)
{
    int h, copied = 0, first = 0;

    for (h = 0; h < TH_MAX_HOSTS && d->hosts[h].name; h++) {
        struct meshgen_host *x = &m->hosts[h];
        x->name = d->hosts[h].name;
        x->slice = d->hosts[h].slice ? d->hosts[h].slice : "";
        x->template_index = template_of(m, d, h, &copied);
        x->first_device = first;
        x->n_devices = d->hosts[h].n_devices;
        x->granule = -1;
        first += x->n_devices;
    }
    assert_true(first <= TH_MAX_DEVICES);
    m->mesh.n_hosts = h;
    m->mesh.n_inventory_devices = first;
}

static int host_of(const struct th_mesh *m, int device)
{
    int h;

    for (h = 0; h < m->mesh.n_hosts; h++)
        if (device < m->hosts[h].first_device + m->hosts[h].n_devices)
            return h;
    return -1;
}

/* The flat table and its inverse, and the granules in the order the mesh
 * meets their hosts. */
static void mesh_tables(struct th_mesh *m, const struct th_mesh_desc *d)
{
    int n = m->mesh.n_devices, total = m->mesh.n_inventory_devices, i, h;

    assert_true(n <= total);
    for (i = 0; i < total; i++)
        m->device_index[i] = -1;
    for (i = 0; i < n; i++) {
        int32_t dev = d->mesh ? d->mesh[i] : i;
        assert_true(dev >= 0 && dev < total && m->device_index[dev] < 0);
        m->mesh_devices[i] = dev;
        m->device_index[dev] = i;
        h = host_of(m, dev);
        if (m->hosts[h].granule < 0)
            m->hosts[h].granule = m->mesh.n_granules++;
    }
    for (h = 0; h < m->mesh.n_hosts; h++)
        if (m->hosts[h].granule < 0 && m->hosts[h].n_devices > 0)
            m->hosts[h].granule = m->mesh.n_granules++;
}

/* The devices of the mesh in id order, and the processes over them. */
static void mesh_processes(struct th_mesh *m, const struct th_mesh_desc *d)
{
    int i, k = 0;

    for (i = 0; i < m->mesh.n_inventory_devices; i++)
        if (m->device_index[i] >= 0)
            m->process_devices[k++] = i;
    m->mesh.n_process_devices = k;
    m->mesh.process_mode = d->per_device ? MESHGEN_PROCESSES_DEVICE : MESHGEN_PROCESSES_HOST;
    if (d->n_processes) {
        assert_true(d->n_processes <= TH_MAX_DEVICES);
        memcpy(m->processes, d->processes, (size_t)d->n_processes * sizeof *m->processes);
        m->mesh.n_processes = d->n_processes;
        return;
    }
    for (i = 0; i < k; i++) {
        int h = host_of(m, m->process_devices[i]), p = m->mesh.n_processes;
        if (!d->per_device && p > 0 && m->processes[p - 1].host == h)
            m->processes[p - 1].count++;
        else
            m->processes[m->mesh.n_processes++] = (struct meshgen_process){h, i, 1};
    }
}

static void mesh_shardings(struct th_mesh *m, const struct th_mesh_desc *d)
{
    int s, used = 0;

    assert_true(d->n_shardings <= TH_MAX_SHARDINGS);
    for (s = 0; s < d->n_shardings; s++) {
        m->shardings[s] = d->shardings[s];
        if (d->shardings[s].n_dims == 0)
            continue;
        assert_true(used + d->shardings[s].n_dims <= TH_MAX_SHARDING_DIMS);
        memcpy(&m->dims[used], d->shardings[s].dims,
               (size_t)d->shardings[s].n_dims * sizeof m->dims[0]);
        m->shardings[s].dims = &m->dims[used];
        used += d->shardings[s].n_dims;
    }
    m->mesh.n_shardings = d->n_shardings;
    m->mesh.shardings = d->n_shardings ? m->shardings : NULL;
}

void th_mesh_init(struct th_mesh *m, const struct th_mesh_desc *d)
{
    int k, n = 1, mpmd = -1;

    memset(m, 0, sizeof *m);
    for (k = 0; k < MESHGEN_MAX_AXES && d->axes[k].name; k++) {
        const struct th_axis *a = &d->axes[k];
        int32_t dcn = a->dcn ? a->dcn : 1;
        m->axes[k] = (struct meshgen_axis){a->name, a->size, a->size / dcn, dcn, d->axis_type};
        n *= a->size;
        if (d->mpmd && strcmp(d->mpmd, a->name) == 0)
            mpmd = k;
    }
    assert_true(!d->mpmd || mpmd >= 0);
    m->mesh.magic = MESHGEN_MAGIC;
    m->mesh.abi = MESHGEN_ABI;
    m->mesh.name = d->name ? d->name : "test";
    m->mesh.generator_version = MESHGEN_VERSION_STRING;
    m->mesh.digest = "sha256:0";
    m->mesh.n_axes = k;
    m->mesh.axes = m->axes;
    m->mesh.device_kind = d->kind;
    m->mesh.n_devices = n;
    m->mesh.templates = m->templates;
    m->mesh.hosts = m->hosts;
    m->mesh.mesh_devices = m->mesh_devices;
    m->mesh.device_index = m->device_index;
    m->mesh.processes = m->processes;
    m->mesh.process_devices = m->process_devices;
    m->mesh.mpmd_axis = mpmd;
    mesh_hosts(m, d);
    mesh_tables(m, d);
    mesh_processes(m, d);
    mesh_shardings(m, d);
    assert_int_equal(meshgen_mesh_check(&m->mesh), MESHGEN_OK);
}

struct meshgen_device_info th_core(int os_index)
{
    /* The cpusets' text outlives the call, as a generated table's does. */
    static char sets[TH_MAX_DEVICES][4];
    struct meshgen_device_info d = {.kind = MESHGEN_KIND_CORE,
                                    .os_index = os_index,
                                    .numa = 0,
                                    .pci = "",
                                    .vendor = "",
                                    .model = "",
                                    .uuid = ""};

    assert_true(os_index >= 0 && os_index < TH_MAX_DEVICES);
    snprintf(sets[os_index], sizeof sets[os_index], "%d", os_index);
    d.cpuset = sets[os_index];
    return d;
}

const char *th_lookup(void *ctx, const char *name)
{
    const char *const *var;
    size_t n = strlen(name);

    for (var = ctx; *var != NULL; var++)
        if (strncmp(*var, name, n) == 0 && (*var)[n] == '=')
            return *var + n + 1;
    return NULL;
}
