/*
 * Inventories: where one comes from (mg_inventory_load: a single topology
 * source — live, synthetic or an hwloc XML file — is one host; an inventory
 * YAML file is many), and the inventory file (docs/reference.md,
 * "Inventories") as a struct mg_inventory: a YAML list of host groups, each
 * a Slurm hostlist with one topology (an hwloc XML file relative to the
 * inventory, or a synthetic description) and an optional slice.
 *
 * It judges the format (keys, types, exactly one topology per group, host
 * names unique across the file, whatever the case of their letters) and decides which topologies
 * are the same, so that each distinct one is loaded once however many hosts share it. It knows
 * nothing of hwloc (topology.c loads a topology; that file never calls this one), of libyaml (it
 * reads struct mg_node) or of mesh specs.
 */
#include "io.h"
#include "mesh_math.h"
#include "node.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The rule for host names, shared with the runtime: private to meshgen
 * and not on any include path, so reached by its place in the tree. */
#include "../runtime/host.h"

enum { MG_IK_VERSION, MG_IK_HOSTS, MG_IK_N };

static const struct mg_key mg_inventory_keys[MG_IK_N] = {
    [MG_IK_VERSION] = {"meshgen-inventory", 1},
    [MG_IK_HOSTS] = {"hosts", 1},
};

enum { MG_GK_NAMES, MG_GK_TOPOLOGY, MG_GK_SYNTHETIC, MG_GK_SLICE, MG_GK_TPU, MG_GK_N };

static const struct mg_key mg_group_keys[MG_GK_N] = {
    [MG_GK_NAMES] = {"names", 1},
    [MG_GK_TOPOLOGY] = {"topology", 0},
    [MG_GK_SYNTHETIC] = {"synthetic", 0},
    [MG_GK_SLICE] = {"slice", 0},
    [MG_GK_TPU] = {"tpu", 0},
};

/* One entry of `hosts:` as read. */
struct mg_group {
    const char **names;
    int n_names;       /* 0 when the names were in error */
    const char *slice; /* as written; for a TPU group without one, named later */
    struct mg_mark slice_at;
    int slice_auto;     /* a TPU group without `slice`: mg_name_auto_slices names it */
    int topology;       /* index into inv->topologies; -1 when in error */
    int tpu;            /* a TPU slice: host h has topology `topology + h` */
    int *host_topology; /* `topology: snap/{host}.xml`: one per name, else NULL */
    struct mg_mark at;  /* the names node: where its hosts are blamed */
};

/* A distinct topology already seen: its key and its index (-1 when it
 * failed to load, so that it is reported once and not tried again). */
struct mg_topo_slot {
    const char *key;
    int index;
};

struct mg_inv_ctx {
    struct mg_arena *a;
    /* Scratch of the read, dropped when the file is read: the hostlists'
     * arrays of names (copied into inv->hosts), the per-host topologies of
     * "{host}" patterns and the unique-name check's sort, 28 bytes per
     * host that the model never reads (docs/architecture.md, "Where
     * memory comes from"). */
    struct mg_arena *tmp;
    struct mg_diags *d;
    const char *dir; /* of the inventory file */
    int have_self;   /* self is the inventory file's identity */
    struct mg_file_id self;
    struct mg_inventory *inv;
    int cap;                    /* of inv->topologies (inv->files holds one more) */
    struct mg_mark *topo_at;    /* per topology: the node that first named it */
    const char **topo_where;    /* and its place, "hosts[3].topology" */
    struct mg_topo_slot *slots; /* open addressing, power-of-two size, over 2 * n_keys */
    size_t mask;
    size_t n_keys;       /* in slots: the topologies and the sources that failed to load */
    int64_t tpu_devices; /* in the TPU groups so far */
    int64_t devices;     /* hosts x their most numerous kind, up to here */
    int refused;         /* inventory-device-count: read no further */
    int lost;            /* a topology failed to load: the inventory did too */
};

/* ---- topologies ---------------------------------------------------------------- */

static size_t mg_key_hash(const char *s)
{
    return (size_t)mg_hash(s, strlen(s));
}

static struct mg_topo_slot *mg_topo_slot(struct mg_inv_ctx *c, const char *key)
{
    size_t i = mg_key_hash(key) & c->mask;
    while (c->slots[i].key && strcmp(c->slots[i].key, key) != 0)
        i = (i + 1) & c->mask;
    return &c->slots[i];
}

/* Room for `more` topologies beyond those loaded (a TPU slice has one per
 * host, a `{host}` pattern one per name): the arrays grow, and the table is
 * rebuilt at twice its keys, so it never fills. A source that failed to
 * load keeps its key and adds no topology, so the table counts keys. */
static void mg_topologies_reserve(struct mg_inv_ctx *c, size_t more)
{
    struct mg_inventory *inv = c->inv;
    struct mg_topo_slot *old = c->slots;
    size_t need = (size_t)inv->n_topologies + more, old_size = old ? c->mask + 1 : 0, size = 16;
    size_t keys = c->n_keys + more;
    struct mg_topology *t;
    const char **files;
    struct mg_mark *at;
    const char **where;
    size_t i;

    if (need > (size_t)c->cap) {
        t = mg_alloc_array(c->a, need, sizeof *t);
        files = mg_alloc_array(c->a, need + 1, sizeof *files);
        at = mg_alloc_array(c->a, need, sizeof *at);
        where = mg_alloc_array(c->a, need, sizeof *where);
        if (c->cap) {
            memcpy(t, inv->topologies, (size_t)inv->n_topologies * sizeof *t);
            memcpy(files, inv->files, (size_t)inv->n_files * sizeof *files);
            memcpy(at, c->topo_at, (size_t)inv->n_topologies * sizeof *at);
            memcpy(where, c->topo_where, (size_t)inv->n_topologies * sizeof *where);
        }
        inv->topologies = t;
        inv->files = files;
        c->topo_at = at;
        c->topo_where = where;
        c->cap = (int)need;
    }
    if (old && 2 * keys <= old_size)
        return;
    while (size < 2 * keys)
        size *= 2;
    c->slots = mg_alloc_array(c->a, size, sizeof *c->slots);
    c->mask = size - 1;
    for (i = 0; i < old_size; i++)
        if (old[i].key)
            *mg_topo_slot(c, old[i].key) = old[i];
}

static int mg_mark_after(struct mg_mark x, struct mg_mark y)
{
    return x.line > y.line || (x.line == y.line && x.col > y.col);
}

/* The index of the topology that `value` names (a synthetic description,
 * or a path relative to the inventory file), loaded the first time. A file
 * is known by its device and inode, so "dgx.xml", "./dgx.xml" and a link to
 * it are one topology; a synthetic one by its description. Returns -1 after
 * reporting. */
static int mg_topology_index(struct mg_inv_ctx *c, const struct mg_node *n, const char *value,
                             int synth, const char *where)
{
    const char *source, *key;
    struct mg_topo_slot *slot;
    struct mg_topology t;
    struct mg_file_id id;
    int is_self = 0;

    if (synth) {
        source = key = mg_printf(c->a, "synthetic:%s", value);
    } else {
        /* As the driver resolves the spec's `inventory:`: relative to the
         * file that names it. */
        source = mg_path_relative(c->a, c->dir, value);
        if (mg_file_identity(source, &id) == 0) {
            key = mg_printf(c->a, "file:%ju:%ju", id.dev, id.ino);
            is_self = c->have_self && id.dev == c->self.dev && id.ino == c->self.ino;
        } else {
            key = mg_printf(c->a, "path:%s", source);
        }
    }
    mg_topologies_reserve(c, 1);
    slot = mg_topo_slot(c, key);
    if (slot->key)
        return slot->index;
    slot->key = key;
    slot->index = -1;
    c->n_keys++;
    /* hwloc would fail on it too, but with a message about XML syntax. */
    if (is_self) {
        mg_error(c->d, MG_CHK_INVENTORY_LOAD, n->mark,
                 "%s: the inventory names itself as a topology (%s), expected an hwloc XML file",
                 where, mg_show_path(c->a, value));
        return -1;
    }
    memset(&t, 0, sizeof t);
    /* A file the command loaded before, and that failed then, fails
     * without a word here: the error was said where it was first named. */
    if (mg_topology_open(c->a, c->d, source, synth ? source : value, n->mark, &t, NULL) != 0) {
        c->lost = 1;
        return -1;
    }
    slot->index = c->inv->n_topologies;
    c->topo_at[slot->index] = n->mark;
    c->topo_where[slot->index] = where;
    c->inv->topologies[c->inv->n_topologies++] = t;
    if (!synth)
        c->inv->files[c->inv->n_files++] = source;
    return slot->index;
}

/* `topology: snap/{host}.xml`: each host of the group its own snapshot,
 * every "{host}" replaced by its name. A missing snapshot is one error for
 * the group, naming the first host without one and its path. */
static void mg_topology_per_host(struct mg_inv_ctx *c, struct mg_group *g, const struct mg_node *n,
                                 const char *pattern, const char *where)
{
    int h, missing = 0, first = -1, err = 0;
    const char *first_path = NULL;

    g->host_topology = mg_alloc_array(c->tmp, (size_t)g->n_names + 1, sizeof(int));
    mg_topologies_reserve(c, (size_t)g->n_names);
    for (h = 0; h < g->n_names; h++) {
        struct mg_buf b;
        const char *p, *value;
        struct mg_file_id id;

        mg_buf_init(&b);
        for (p = pattern; *p;) {
            if (strncmp(p, "{host}", 6) == 0) {
                mg_buf_puts(&b, g->names[h]);
                p += 6;
            } else {
                mg_buf_put(&b, p++, 1);
            }
        }
        value = mg_strdup(c->a, b.data);
        mg_buf_free(&b);
        g->host_topology[h] = -1;
        if (mg_file_identity(mg_path_relative(c->a, c->dir, value), &id) != 0) {
            if (missing++ == 0) {
                err = errno;
                first = h;
                first_path = value;
            }
            continue;
        }
        g->host_topology[h] = mg_topology_index(c, n, value, 0, where);
    }
    if (!missing)
        return;
    c->d->io_errors++; /* an input that cannot be read, as any topology: exit 2 */
    mg_error(c->d, MG_CHK_INVENTORY_LOAD, n->mark,
             "%s: host %s has no snapshot at %s (from %s; %d of the group's %d hosts have "
             "none): %s; export it on that host with 'meshgen inventory --export'",
             where, mg_show_host(c->a, g->names[first]), mg_show_path(c->a, first_path),
             mg_show_path(c->a, pattern), missing, g->n_names, strerror(err));
}

/* Which topology a group names: exactly one of `topology` and `synthetic`
 * (when both are there, the second in the file is blamed); a topology path
 * with "{host}" names one per host. Sets g->topology, or -1 after
 * reporting. */
static void mg_group_topology(struct mg_inv_ctx *c, struct mg_group *g, const struct mg_node *group,
                              const struct mg_node *topo, const struct mg_node *synth,
                              const char *where)
{
    const struct mg_node *n = topo ? topo : synth;
    const char *value;

    g->topology = -1;
    if (topo && synth) {
        mg_error(c->d, MG_CHK_INVENTORY_TOPOLOGY,
                 mg_mark_after(topo->mark, synth->mark) ? topo->mark : synth->mark,
                 "%s: found both 'topology' and 'synthetic', expected exactly one of them", where);
        return;
    }
    if (!n) {
        mg_error(c->d, MG_CHK_INVENTORY_TOPOLOGY, group->mark,
                 "%s: found neither 'topology' nor 'synthetic', expected exactly one of them (an "
                 "hwloc XML file or a synthetic description)",
                 where);
        return;
    }
    where = mg_printf(c->a, "%s.%s", where, topo ? "topology" : "synthetic");
    if (!mg_get_string(c->d, n, where, -1, &value))
        return;
    if (value[0] == '\0') {
        mg_error(c->d, MG_CHK_INVENTORY_TOPOLOGY, n->mark, "%s: found an empty string, expected %s",
                 where, topo ? "the path of an hwloc XML file" : "a synthetic description");
        return;
    }
    if (topo && strstr(value, "{host}"))
        mg_topology_per_host(c, g, n, value, where);
    else
        g->topology = mg_topology_index(c, n, value, synth != NULL, where);
}

/* A topology that more than one host names is a template, not any one
 * host's snapshot: the fields of the machine it was exported from (GPU
 * UUIDs) are left out, so that no host is given another's GPUs by UUID,
 * with a warning where there were any. */
static void mg_templates(struct mg_inv_ctx *c)
{
    const struct mg_inventory *inv = c->inv;
    int *users = mg_alloc_array(c->a, (size_t)inv->n_topologies + 1, sizeof(int));
    int h, t;

    for (h = 0; h < inv->n_hosts; h++)
        if (inv->hosts[h].topology >= 0)
            users[inv->hosts[h].topology]++;
    for (t = 0; t < inv->n_topologies; t++) {
        int cleared;
        if (users[t] < 2)
            continue;
        cleared = mg_topology_template(&inv->topologies[t]);
        if (cleared)
            mg_warning(c->d, MG_CHK_INVENTORY_TEMPLATE, c->topo_at[t],
                       "%s: %s is shared by %d hosts, so it is a template: its %d GPU UUIDs "
                       "belong to the machine it was exported from and are left out, and these "
                       "hosts' GPUs are named by index; give each host its own snapshot "
                       "(topology: snap/{host}.xml) to keep them",
                       c->topo_where[t], mg_show_path(c->a, inv->topologies[t].label), users[t],
                       cleared);
    }
}

/* ---- TPU slices (docs/tpu.md) ---------------------------------------------------- */

/* The family a group names in `tpu`, and the slice's chips along x, y, z
 * from its `topology`. Returns the family, or NULL after reporting. */
static const struct mg_tpu_family *mg_tpu_shape(struct mg_inv_ctx *c, const struct mg_node *group,
                                                const struct mg_node *const *v, const char *where,
                                                int dims[3], const char **text)
{
    char reason[MG_TPU_REASON_MAX];
    const struct mg_tpu_family *f;
    const char *name;
    int rc;

    if (v[MG_GK_SYNTHETIC]) {
        mg_error(c->d, MG_CHK_INVENTORY_TOPOLOGY, v[MG_GK_SYNTHETIC]->mark,
                 "%s: found both 'tpu' and 'synthetic', expected 'tpu' with 'topology' (the "
                 "slice's chips per dimension, such as 2x2x4)",
                 where);
        return NULL;
    }
    if (!mg_get_string(c->d, v[MG_GK_TPU], mg_printf(c->a, "%s.tpu", where), -1, &name))
        return NULL;
    f = mg_tpu_family_find(name, reason, sizeof reason);
    if (!f) {
        mg_error(c->d, MG_CHK_TPU_FAMILY, v[MG_GK_TPU]->mark, "%s.tpu: unknown TPU family %s; %s",
                 where, mg_show(c->a, name), reason);
        return NULL;
    }
    if (!v[MG_GK_TOPOLOGY]) {
        mg_error(c->d, MG_CHK_INVENTORY_TOPOLOGY, group->mark,
                 "%s: found 'tpu' without 'topology', expected the slice's chips per dimension "
                 "(a %s has %s, ...)",
                 where, f->name, f->shapes[0]);
        return NULL;
    }
    if (!mg_get_string(c->d, v[MG_GK_TOPOLOGY], mg_printf(c->a, "%s.topology", where), -1, text))
        return NULL;
    rc = mg_tpu_parse_topology(f, *text, dims, reason, sizeof reason);
    if (rc != 0) {
        mg_error(c->d, MG_CHK_TPU_TOPOLOGY, v[MG_GK_TOPOLOGY]->mark, "%s.topology: %s%s%s", where,
                 rc == -2 ? mg_show(c->a, *text) : "", rc == -2 ? " " : "", reason);
        return NULL;
    }
    return f;
}

/* The topology of worker h of a slice: its devices, in JAX's device order,
 * with their coordinates and cores. */
static void mg_tpu_host(struct mg_inv_ctx *c, struct mg_topology *t, const struct mg_tpu_family *f,
                        const int dims[3], const char *text, const struct mg_tpu_device *devs,
                        int per, size_t group, int h)
{
    struct mg_buf b;
    int i, k;

    memset(t, 0, sizeof *t);
    t->key = mg_printf(c->a, "tpu:%zu:%d", group, h);
    t->label = mg_printf(c->a, "tpu %s %s worker %d", f->name, text, h);
    t->tpu = f;
    memcpy(t->tpu_dims, dims, sizeof t->tpu_dims);
    mg_tpu_wraparound(f, dims, t->tpu_wrap);
    t->n[MG_KIND_TPU] = per;
    t->devs[MG_KIND_TPU] = mg_alloc_array(c->a, (size_t)per, sizeof(struct mg_devinfo));
    mg_buf_init(&b);
    mg_buf_printf(&b, "meshgen-tpu 1\nfamily %s\ntopology %dx%dx%d\nworker %d\n", f->name, dims[0],
                  dims[1], dims[2], h);
    for (i = 0; i < per; i++) {
        struct mg_devinfo *dv = &t->devs[MG_KIND_TPU][i];
        dv->kind = MG_KIND_TPU;
        dv->os_index = -1;
        dv->numa = -1;
        dv->pci = dv->uuid = dv->cpuset = "";
        dv->vendor = "Google";
        dv->model = f->device_kind;
        memcpy(dv->coords, devs[i].coords, sizeof dv->coords);
        dv->core_on_chip = devs[i].core_on_chip;
        /* Without printf: a pod has thousands of hosts. */
        mg_buf_puts(&b, "tpu\t");
        for (k = 0; k < 3; k++) {
            mg_buf_int(&b, dv->coords[k]);
            mg_buf_put(&b, " ", 1);
        }
        mg_buf_int(&b, dv->core_on_chip);
        mg_buf_put(&b, "\n", 1);
    }
    mg_sha256_hex(b.data, b.len, t->digest);
    mg_buf_free(&b);
}

/* A TPU slice: `tpu` names the family, `topology` the chips per dimension,
 * `names` the hosts (TPU VM workers) in worker order. Each host gets a
 * topology of its own, whose devices carry the coordinates JAX reports.
 * Returns the first host's topology, or -1 after reporting. */
static int mg_group_tpu(struct mg_inv_ctx *c, struct mg_group *g, const struct mg_node *group,
                        const struct mg_node *const *v, const char *where, size_t idx)
{
    char reason[MG_TPU_REASON_MAX];
    const struct mg_tpu_family *f;
    struct mg_tpu_layout l;
    struct mg_tpu_device *devs;
    const char *text;
    int dims[3], n, per, h, first;

    f = mg_tpu_shape(c, group, v, where, dims, &text);
    if (!f || g->n_names == 0)
        return -1;
    if (mg_tpu_slice_layout(f, dims, g->n_names, 0, &l, reason, sizeof reason) != 0) {
        mg_error(c->d, MG_CHK_TPU_HOSTS, g->at, "%s.names: found %d host%s: %s", where, g->n_names,
                 g->n_names == 1 ? "" : "s", reason);
        return -1;
    }
    n = dims[0] * dims[1] * dims[2] * f->devices_per_chip;
    /* Each worker has its own devices (their coordinates differ), so the
     * inventory's cost grows with them: held to the ceiling of a mesh. */
    mg_add_size(c->tpu_devices, n, &c->tpu_devices);
    if (c->tpu_devices > MG_MAX_DEVICES) {
        /* Once: the groups after it are past the ceiling too. */
        if (c->tpu_devices - n > MG_MAX_DEVICES)
            return -1;
        mg_error(c->d, MG_CHK_INVENTORY_HOST_COUNT, g->at,
                 "%s.names: found %lld TPU devices up to here, expected at most %d in one "
                 "inventory",
                 where, (long long)c->tpu_devices, MG_MAX_DEVICES);
        return -1;
    }
    devs = malloc((size_t)n * sizeof *devs);
    if (!devs)
        mg_oom();
    if (mg_tpu_layout_devices(&l, devs, n) != n) {
        free(devs);
        return -1;
    }
    per = n / g->n_names;
    mg_topologies_reserve(c, (size_t)g->n_names);
    first = c->inv->n_topologies;
    for (h = 0; h < g->n_names; h++)
        mg_tpu_host(c, &c->inv->topologies[c->inv->n_topologies++], f, dims, text,
                    devs + (size_t)h * (size_t)per, per, idx, h);
    free(devs);
    g->tpu = 1;
    return first;
}

/* A set of names: open addressing, a power-of-two size over twice the
 * names it may hold. */
struct mg_name_set {
    const char **slot;
    size_t mask;
};

static void mg_name_set_init(struct mg_arena *a, struct mg_name_set *s, size_t n)
{
    size_t size = 16;
    while (size < 2 * n)
        size *= 2;
    s->slot = mg_alloc_array(a, size, sizeof *s->slot);
    s->mask = size - 1;
}

/* The slot of `name`: holding it, or the empty one where it would go. */
static const char **mg_name_set_slot(const struct mg_name_set *s, const char *name)
{
    size_t k = mg_key_hash(name) & s->mask;
    while (s->slot[k] && strcmp(s->slot[k], name) != 0)
        k = (k + 1) & s->mask;
    return &s->slot[k];
}

/* A TPU group without `slice` is a slice of its own, named slice<index of
 * the group> (docs/tpu.md §5) unless some group's `slice` is that name:
 * then slice<index>-2, slice<index>-3, ..., the first name no group has.
 * The names written in the file are all taken first, so a name the user
 * wrote once is never also an automatic slice's (it would have merged two
 * slices into one granule, or been reported as named twice); automatic
 * names differ from each other by their index. Each probe is a distinct
 * name taken by the file, so the whole costs O(groups). */
static void mg_name_auto_slices(struct mg_inv_ctx *c, struct mg_group *groups, size_t n)
{
    struct mg_name_set taken;
    size_t i;

    mg_name_set_init(c->a, &taken, n);
    for (i = 0; i < n; i++)
        if (groups[i].slice)
            *mg_name_set_slot(&taken, groups[i].slice) = groups[i].slice;
    for (i = 0; i < n; i++) {
        const char *name, **slot;
        int k = 2;
        if (!groups[i].slice_auto)
            continue;
        name = mg_printf(c->a, "slice%zu", i);
        while (*(slot = mg_name_set_slot(&taken, name)) != NULL)
            name = mg_printf(c->a, "slice%zu-%d", i, k++);
        *slot = groups[i].slice = name;
    }
}

/* The longest slice name, in characters, as a host name's (hostlist.c):
 * the generated C holds it as a string literal, and C11 compilers need
 * take none past 4095 bytes (-Woverlength-strings). */
#define MG_SLICE_NAME_MAX 255

/* A group's `slice`. Refused (inventory-slice), as if not written: ""
 * (how the tables, `meshgen env` and resolve's null write no slice: as a
 * name it would be a granule that reads as none); a control character
 * (C0, DEL or C1), which `show` and `meshgen inventory` would print as it
 * is; a name past MG_SLICE_NAME_MAX characters. */
static void mg_group_slice(struct mg_inv_ctx *c, struct mg_group *g, const struct mg_node *node,
                           const char *where)
{
    const unsigned char *s;
    size_t chars = 0;
    long cp;

    g->slice_at = node->mark;
    mg_get_string(c->d, node, mg_printf(c->a, "%s.slice", where), -1, &g->slice);
    if (!g->slice)
        return;
    if ((cp = mg_first_control(g->slice)) >= 0) {
        mg_error(c->d, MG_CHK_INVENTORY_SLICE, g->slice_at,
                 "%s.slice: found the control character #x%02lX in %s, expected a name of "
                 "printable characters",
                 where, cp, mg_show_host(c->a, g->slice));
        g->slice = NULL;
        return;
    }
    for (s = (const unsigned char *)g->slice; *s; s++)
        chars += (*s & 0xC0) != 0x80;
    if (chars == 0)
        mg_error(c->d, MG_CHK_INVENTORY_SLICE, g->slice_at,
                 "%s.slice: found an empty string, expected the slice's name (or no 'slice' "
                 "for hosts in no slice)",
                 where);
    else if (chars > MG_SLICE_NAME_MAX)
        mg_error(c->d, MG_CHK_INVENTORY_SLICE, g->slice_at,
                 "%s.slice: found a name of %zu characters, expected at most %d", where, chars,
                 MG_SLICE_NAME_MAX);
    if (chars == 0 || chars > MG_SLICE_NAME_MAX)
        g->slice = NULL;
}

/* The groups that name one slice so far: the first, and the first that is
 * a TPU slice (n when none). */
struct mg_slice_seen {
    const char *slice;
    size_t first, first_tpu;
};

/* A TPU slice is one host group: no other group may name its slice. Each
 * group is compared with the first earlier group of its slice (the first
 * TPU one, when it is not one itself) by a table of slices, so a pod's
 * thousands of groups cost time linear in them, not a comparison a pair. */
static void mg_check_tpu_slices(struct mg_inv_ctx *c, const struct mg_group *groups, size_t n)
{
    size_t i, j, size = 16, mask;
    struct mg_slice_seen *seen;

    while (size < 2 * n)
        size *= 2;
    mask = size - 1;
    seen = mg_alloc_array(c->a, size, sizeof *seen);
    for (i = 0; i < n; i++) {
        struct mg_slice_seen *e;
        size_t k;
        if (!groups[i].slice)
            continue;
        k = mg_key_hash(groups[i].slice) & mask;
        while (seen[k].slice && strcmp(seen[k].slice, groups[i].slice) != 0)
            k = (k + 1) & mask;
        e = &seen[k];
        if (!e->slice) {
            e->slice = groups[i].slice;
            e->first = i;
            e->first_tpu = n;
        }
        j = groups[i].tpu ? e->first : e->first_tpu;
        if (groups[i].tpu && e->first_tpu == n)
            e->first_tpu = i;
        if (j >= i)
            continue;
        mg_error_rel(c->d, MG_CHK_TPU_SLICE, groups[i].slice_at, groups[j].slice_at,
                     "first named here",
                     "%s.slice: found the slice %s of hosts[%zu] again, expected each TPU "
                     "slice to be one host group of its own",
                     mg_where(c->a, "hosts", (long)i), mg_show_host(c->a, groups[i].slice), j);
    }
}

/* ---- host groups ----------------------------------------------------------------- */

/* Counts a group's devices before any host is built (its hosts times
 * per_host), and a synthetic topology's before it is loaded, from its
 * description (its leaves). A loaded topology counts its least numerous
 * kind: the inventory is refused here only when no kind of it is within
 * MG_MAX_DEVICES, so no mesh could use it; a mesh of one kind past the
 * limit, in an inventory that has another kind within it (a million GPUs
 * beside a hundred million PUs), is refused by device-kind-available before
 * that kind's devices are gathered. One of 2^33 devices is refused at once
 * rather than after it was built. Returns 0 after reporting. */
static int mg_count_devices(struct mg_inv_ctx *c, const struct mg_group *g, int64_t per_host,
                            const char *where)
{
    if (per_host <= 0 || g->n_names <= 0)
        return 1;
    /* At most 2^20 hosts of at most INT_MAX devices, added once past the
     * limit: no overflow. */
    c->devices += (int64_t)g->n_names * per_host;
    if (c->devices <= MG_MAX_DEVICES)
        return 1;
    mg_error(c->d, MG_CHK_INVENTORY_DEVICE_COUNT, g->at,
             "%s.names: %d hosts of %" PRId64 " devices each make %" PRId64
             " devices in the inventory up to here, expected at most %d",
             where, g->n_names, per_host, c->devices, MG_MAX_DEVICES);
    c->refused = 1;
    return 0;
}

/* The least numerous kind a loaded topology has (0 if it has none). */
static int64_t mg_topology_devices(const struct mg_topology *t)
{
    int64_t least = 0;
    int k;
    for (k = 0; k < MG_N_KINDS; k++)
        if (t->n[k] > 0 && (least == 0 || t->n[k] < least))
            least = t->n[k];
    return least;
}

/* mg_count_devices for a group whose hosts each have a snapshot of their
 * own (`topology: snap/{host}.xml`): the sum over its hosts. */
static void mg_count_host_devices(struct mg_inv_ctx *c, const struct mg_group *g, const char *where)
{
    int64_t n = 0;
    int h;

    for (h = 0; h < g->n_names; h++)
        if (g->host_topology[h] >= 0)
            n += mg_topology_devices(&c->inv->topologies[g->host_topology[h]]);
    if (n <= 0)
        return;
    c->devices += n;
    if (c->devices <= MG_MAX_DEVICES)
        return;
    mg_error(c->d, MG_CHK_INVENTORY_DEVICE_COUNT, g->at,
             "%s.names: %d hosts with %" PRId64
             " devices of their least numerous kind make %" PRId64
             " such devices in the inventory up to here, expected at most %d of some kind",
             where, g->n_names, n, c->devices, MG_MAX_DEVICES);
    c->refused = 1;
}

static void mg_read_group(struct mg_inv_ctx *c, struct mg_group *g, const struct mg_node *n,
                          size_t idx)
{
    const char *where = mg_where(c->a, "hosts", (long)idx);
    const struct mg_node *v[MG_GK_N], *names;

    g->topology = -1;
    g->at = n->mark;
    if (n->kind != MG_NODE_MAP) {
        mg_mismatch(c->d, n, "hosts", (long)idx, "a mapping (names, topology or synthetic, slice)",
                    "");
        return;
    }
    mg_read_map(c->d, n, where, mg_group_keys, MG_GK_N, v);
    names = v[MG_GK_NAMES];
    if (names) {
        g->at = names->mark;
        if (mg_want(c->d, names, MG_ST_STR, mg_printf(c->a, "%s.names", where), -1,
                    "a hostlist (a string such as gpu[001-016])")) {
            struct mg_mark at = g->at;
            /* The mark of a quoted scalar is its opening quote; the
             * hostlist's columns count from the text after it. */
            if (names->quoted)
                at.col++;
            g->n_names = mg_hostlist_expand_in(c->a, c->tmp, c->d, names->value, at, MG_MAX_HOSTS,
                                               &g->names);
            if (g->n_names < 0)
                g->n_names = 0;
        }
    }
    if (v[MG_GK_SLICE])
        mg_group_slice(c, g, v[MG_GK_SLICE], where);
    if (v[MG_GK_TPU]) {
        /* A slice is a granule of its own even when the file names none;
         * its name waits for every group's (mg_name_auto_slices). */
        if (!g->slice) {
            g->slice_auto = 1;
            g->slice_at = v[MG_GK_TPU]->mark;
        }
        g->topology = mg_group_tpu(c, g, n, (const struct mg_node *const *)v, where, idx);
        return;
    }
    if (v[MG_GK_SYNTHETIC] && !v[MG_GK_TOPOLOGY] && v[MG_GK_SYNTHETIC]->kind == MG_NODE_SCALAR &&
        !mg_count_devices(c, g, mg_synthetic_leaves(v[MG_GK_SYNTHETIC]->value), where))
        return;
    mg_group_topology(c, g, n, v[MG_GK_TOPOLOGY], v[MG_GK_SYNTHETIC], where);
    if (g->host_topology)
        mg_count_host_devices(c, g, where);
    else if (g->topology >= 0 && v[MG_GK_TOPOLOGY])
        mg_count_devices(c, g, mg_topology_devices(&c->inv->topologies[g->topology]), where);
}

static int mg_host_cmp(const void *x, const void *y)
{
    const struct mg_named *p = x, *q = y;
    return mg_named_order(meshgen__host_name_cmp(p->name, q->name), p, q);
}

/* Host names are unique across the file. One error per group that repeats
 * a name, at its names and related to the group that named it first, so
 * two groups "gpu[001-016]" give one message, not sixteen. Sorting keeps
 * a million hosts cheap. */
static void mg_check_unique_hosts(struct mg_inv_ctx *c, const struct mg_group *groups,
                                  size_t n_groups, const int *host_group)
{
    const struct mg_inventory *inv = c->inv;
    struct mg_named *refs = mg_alloc_array(c->tmp, (size_t)inv->n_hosts, sizeof *refs);
    int *dups = mg_alloc_array(c->a, n_groups, sizeof *dups);
    int *dup_host = mg_alloc_array(c->a, n_groups, sizeof *dup_host);
    int *dup_first = mg_alloc_array(c->a, n_groups, sizeof *dup_first);
    int i, run = 0;
    size_t g;

    for (i = 0; i < inv->n_hosts; i++) {
        refs[i].name = inv->hosts[i].name;
        refs[i].index = (size_t)i;
    }
    mg_sort_unless_sorted(refs, (size_t)inv->n_hosts, sizeof *refs, mg_host_cmp);
    for (i = 0; i < inv->n_hosts; i++) {
        int host = (int)refs[i].index, grp;
        /* One host whatever the case of its letters, as the runtime
         * matches names (runtime/host.h). */
        if (i == 0 || meshgen__host_name_cmp(refs[i].name, refs[run].name) != 0) {
            run = i;
            continue;
        }
        /* The group's first repeated host (in file order) is the one named. */
        grp = host_group[host];
        if (dups[grp]++ == 0 || host < dup_host[grp]) {
            dup_host[grp] = host;
            dup_first[grp] = (int)refs[run].index;
        }
    }
    for (g = 0; g < n_groups; g++) {
        const char *where, *name, *more;
        int first_group;
        if (!dups[g])
            continue;
        where = mg_where(c->a, "hosts", (long)g);
        name = mg_show_host(c->a, inv->hosts[dup_host[g]].name);
        more = dups[g] > 1 ? mg_printf(c->a, " (and %d more)", dups[g] - 1) : "";
        first_group = host_group[dup_first[g]];
        if ((size_t)first_group == g)
            mg_error(c->d, MG_CHK_INVENTORY_HOST_DUPLICATE, groups[g].at,
                     "%s.names: found the host %s%s twice in this hostlist, expected each host "
                     "once",
                     where, name, more);
        else
            mg_error_rel(c->d, MG_CHK_INVENTORY_HOST_DUPLICATE, groups[g].at,
                         groups[first_group].at, "first defined here",
                         "%s.names: found the host %s%s, already named by hosts[%d], expected "
                         "each host once",
                         where, name, more, first_group);
    }
}

/* ---- the file -------------------------------------------------------------------- */

static void mg_read_hosts(struct mg_inv_ctx *c, const struct mg_node *hosts)
{
    struct mg_inventory *inv = c->inv;
    struct mg_group *groups;
    int *host_group;
    size_t i;
    int64_t total = 0;
    int h;

    if (hosts->kind != MG_NODE_SEQ) {
        mg_mismatch(c->d, hosts, "hosts", -1,
                    "a sequence of host groups (names, topology or synthetic, slice)", "");
        return;
    }
    if (hosts->n == 0) {
        mg_error(c->d, MG_CHK_INVENTORY_EMPTY, hosts->mark,
                 "hosts: found an empty sequence, expected at least one group of hosts");
        return;
    }
    /* Each group names at most one new topology, or one per host (a TPU
     * slice, a "{host}" pattern: those reserve their own). */
    mg_topologies_reserve(c, hosts->n);
    inv->files[inv->n_files++] = inv->source;

    groups = mg_alloc_array(c->a, hosts->n, sizeof *groups);
    for (i = 0; i < hosts->n; i++) {
        mg_read_group(c, &groups[i], hosts->items[i], i);
        if (c->refused)
            return;
        mg_add_size(total, groups[i].n_names, &total);
        if (total > MG_MAX_HOSTS) {
            mg_error(c->d, MG_CHK_INVENTORY_HOST_COUNT, groups[i].at,
                     "hosts[%zu].names: found %" PRId64 " hosts up to here, expected at most %d "
                     "in one inventory",
                     i, total, MG_MAX_HOSTS);
            return;
        }
    }

    mg_name_auto_slices(c, groups, hosts->n);
    inv->hosts = mg_alloc_array(c->a, (size_t)total, sizeof *inv->hosts);
    host_group = mg_alloc_array(c->tmp, (size_t)total, sizeof *host_group);
    for (i = 0; i < hosts->n; i++) {
        for (h = 0; h < groups[i].n_names; h++) {
            struct mg_host *host = &inv->hosts[inv->n_hosts];
            host->name = groups[i].names[h];
            host->slice = groups[i].slice;
            host->topology =
                groups[i].host_topology
                    ? groups[i].host_topology[h]
                    : groups[i].topology + (groups[i].tpu && groups[i].topology >= 0 ? h : 0);
            host->at = groups[i].at;
            host_group[inv->n_hosts++] = (int)i;
        }
    }
    mg_check_unique_hosts(c, groups, hosts->n, host_group);
    mg_check_tpu_slices(c, groups, hosts->n);
    mg_templates(c);
}

static struct mg_inventory *mg_inventory_read(struct mg_arena *a, struct mg_diags *d,
                                              const char *path, const struct mg_node *root)
{
    int errors = d->n_errors;
    struct mg_inv_ctx c;
    struct mg_arena tmp;
    const struct mg_node *v[MG_IK_N];
    int64_t version;

    if (root->kind != MG_NODE_MAP) {
        mg_mismatch(d, root, "the top level", -1, "a mapping (meshgen-inventory, hosts)", "");
        return NULL;
    }
    if (mg_other_version(d, root, "meshgen-inventory", &version))
        return NULL;

    memset(&c, 0, sizeof c);
    c.a = a;
    c.tmp = &tmp;
    c.d = d;
    path = mg_strdup(a, path);
    c.dir = mg_path_dirname(a, path);
    c.have_self = mg_file_identity(path, &c.self) == 0;
    c.inv = mg_alloc(a, sizeof *c.inv);
    c.inv->source = path;

    mg_read_map(d, root, "the top level", mg_inventory_keys, MG_IK_N, v);
    /* Any other integer has been refused above: this is version 1, and only
     * its type is left to judge. */
    if (v[MG_IK_VERSION])
        mg_get_int(d, v[MG_IK_VERSION], "meshgen-inventory", -1, &version);
    if (v[MG_IK_HOSTS]) {
        /* hwloc loads its plugins with the first topology and unloads them
         * with the last: held across the file, distinct topologies pay
         * for them once. */
        int held = mg_topology_hold() == 0;
        mg_arena_init(&tmp);
        mg_read_hosts(&c, v[MG_IK_HOSTS]);
        mg_arena_free(&tmp);
        if (held)
            mg_topology_release();
    }
    return d->n_errors > errors || c.lost ? NULL : c.inv;
}

struct mg_inventory *mg_inventory_from_node(struct mg_arena *a, struct mg_diags *d,
                                            const char *path, const struct mg_node *root)
{
    return mg_inventory_read(a, d, path, root);
}

/* An inventory YAML file; path as it should be opened. */
static struct mg_inventory *mg_inventory_file(struct mg_arena *a, struct mg_diags *d,
                                              const char *path, struct mg_mark at)
{
    const struct mg_node *root;
    size_t len;
    char *buf;

    buf = mg_read_file(a, d, path, at, &len);
    if (!buf)
        return NULL;
    path = mg_strdup(a, path);
    root = mg_yaml_parse(a, d, path, buf, len);
    /* The loader has already said why there is no tree. */
    if (!root)
        return NULL;
    return mg_inventory_read(a, d, path, root);
}

/* One topology source as an inventory of one host. */
static struct mg_inventory *mg_inventory_single(struct mg_arena *a, struct mg_diags *d,
                                                const char *source, struct mg_mark at)
{
    struct mg_inventory *inv;
    struct mg_topology t;
    const char *host;

    if (mg_topology_open(a, d, source, source, at, &t, &host) != 0)
        return NULL;
    inv = mg_alloc(a, sizeof *inv);
    inv->source = mg_strdup(a, source);
    inv->n_topologies = 1;
    inv->topologies = mg_alloc(a, sizeof *inv->topologies);
    inv->topologies[0] = t;
    inv->n_hosts = 1;
    inv->hosts = mg_alloc(a, sizeof *inv->hosts);
    inv->hosts[0].name = host;
    inv->hosts[0].slice = NULL;
    inv->hosts[0].topology = 0;
    inv->hosts[0].at = at;
    /* The depfile lists the XML file; a description or this machine is no file. */
    inv->files = mg_alloc(a, sizeof *inv->files);
    if (mg_source_kind(source) == MG_SOURCE_XML)
        inv->files[inv->n_files++] = inv->source;
    return inv;
}

struct mg_inventory *mg_inventory_load(struct mg_arena *a, struct mg_diags *d, const char *source,
                                       struct mg_mark at)
{
    if (!source || !*source) {
        mg_error(d, MG_CHK_INVENTORY_LOAD, at, "empty inventory source");
        return NULL;
    }
    if (mg_source_kind(source) == MG_SOURCE_INVENTORY)
        return mg_inventory_file(a, d, source, at);
    return mg_inventory_single(a, d, source, at);
}
