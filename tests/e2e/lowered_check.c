/*
 * The generated C against the lowering it was printed from: linked with
 * one generated mesh (MESH, from MESH_HEADER, compiled as a user compiles
 * it) and the generator library, it compiles the same spec and inventory
 * in memory, lowers the model with mg_lower (the tables `meshgen env`
 * hands the runtime) and compares the two structs field by field, every
 * table entry and every string byte included, and which tables are left
 * out (NULL). A formatting slip of the C emitter (a number printed from
 * elsewhere, a string escaped wrongly, a table written or left out where
 * the lowering did otherwise) fails here with the field's path.
 *
 * Usage: lowered_check SPEC INVENTORY NAME, as meshgen_add_mesh() was
 * given them (INVENTORY "" for the spec's own, NAME the --name it passed),
 * run from the directory the paths are relative to.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#include MESH_HEADER

static int failures, compared;

/* One number of the two structs; a mismatch is printed with its path. */
static void eq(long long compiled, long long lowered, const char *fmt, ...) MG_PRINTF(3, 4);
static void eq(long long compiled, long long lowered, const char *fmt, ...)
{
    va_list ap;

    compared++;
    if (compiled == lowered)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": compiled %lld, lowered %lld\n", compiled, lowered);
    failures++;
}

/* One string, byte for byte (NULL differs from ""). */
static void streq(const char *compiled, const char *lowered, const char *fmt, ...) MG_PRINTF(3, 4);
static void streq(const char *compiled, const char *lowered, const char *fmt, ...)
{
    va_list ap;

    compared++;
    if (compiled && lowered && strcmp(compiled, lowered) == 0)
        return;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": compiled %s%s%s, lowered %s%s%s\n", compiled ? "\"" : "",
            compiled ? compiled : "NULL", compiled ? "\"" : "", lowered ? "\"" : "",
            lowered ? lowered : "NULL", lowered ? "\"" : "");
    failures++;
}

/* Whether a table is there in both or left out of both; 1 when both hold
 * entries to compare. */
static int both(const void *compiled, const void *lowered, const char *what)
{
    eq(compiled != NULL, lowered != NULL, "%s is there (1) or left out (0)", what);
    return compiled && lowered;
}

static void ints(const int32_t *c, const int32_t *l, int n, const char *what)
{
    int i;

    if (both(c, l, what))
        for (i = 0; i < n; i++)
            eq(c[i], l[i], "%s[%d]", what, i);
}

static void device(const struct meshgen_device_info *c, const struct meshgen_device_info *l, int t,
                   int i)
{
    int k;

    eq(c->kind, l->kind, "templates[%d].devices[%d].kind", t, i);
    eq(c->os_index, l->os_index, "templates[%d].devices[%d].os_index", t, i);
    eq(c->numa, l->numa, "templates[%d].devices[%d].numa", t, i);
    eq(c->vendor_id, l->vendor_id, "templates[%d].devices[%d].vendor_id", t, i);
    streq(c->pci, l->pci, "templates[%d].devices[%d].pci", t, i);
    streq(c->vendor, l->vendor, "templates[%d].devices[%d].vendor", t, i);
    streq(c->model, l->model, "templates[%d].devices[%d].model", t, i);
    streq(c->uuid, l->uuid, "templates[%d].devices[%d].uuid", t, i);
    streq(c->cpuset, l->cpuset, "templates[%d].devices[%d].cpuset", t, i);
    for (k = 0; k < 3; k++)
        eq(c->coords[k], l->coords[k], "templates[%d].devices[%d].coords[%d]", t, i, k);
    eq(c->core_on_chip, l->core_on_chip, "templates[%d].devices[%d].core_on_chip", t, i);
}

static void templates(const struct meshgen_mesh *c, const struct meshgen_mesh *l)
{
    int t, i;

    eq(c->n_templates, l->n_templates, "n_templates");
    if (!both(c->templates, l->templates, "templates"))
        return;
    for (t = 0; t < c->n_templates && t < l->n_templates; t++) {
        const struct meshgen_host_template *ct = &c->templates[t], *lt = &l->templates[t];
        char what[64];

        eq(ct->n_devices, lt->n_devices, "templates[%d].n_devices", t);
        snprintf(what, sizeof what, "templates[%d].devices", t);
        if (both(ct->devices, lt->devices, what))
            for (i = 0; i < ct->n_devices && i < lt->n_devices; i++)
                device(&ct->devices[i], &lt->devices[i], t, i);
    }
}

static void hosts(const struct meshgen_mesh *c, const struct meshgen_mesh *l)
{
    int i;

    eq(c->n_hosts, l->n_hosts, "n_hosts");
    if (!both(c->hosts, l->hosts, "hosts"))
        return;
    for (i = 0; i < c->n_hosts && i < l->n_hosts; i++) {
        const struct meshgen_host *ch = &c->hosts[i], *lh = &l->hosts[i];
        streq(ch->name, lh->name, "hosts[%d].name", i);
        streq(ch->slice, lh->slice, "hosts[%d].slice", i);
        eq(ch->granule, lh->granule, "hosts[%d].granule", i);
        eq(ch->template_index, lh->template_index, "hosts[%d].template_index", i);
        eq(ch->first_device, lh->first_device, "hosts[%d].first_device", i);
        eq(ch->n_devices, lh->n_devices, "hosts[%d].n_devices", i);
    }
}

static void processes(const struct meshgen_mesh *c, const struct meshgen_mesh *l)
{
    int i;

    eq(c->process_mode, l->process_mode, "process_mode");
    eq(c->n_processes, l->n_processes, "n_processes");
    if (both(c->processes, l->processes, "processes"))
        for (i = 0; i < c->n_processes && i < l->n_processes; i++) {
            eq(c->processes[i].host, l->processes[i].host, "processes[%d].host", i);
            eq(c->processes[i].first, l->processes[i].first, "processes[%d].first", i);
            eq(c->processes[i].count, l->processes[i].count, "processes[%d].count", i);
        }
    eq(c->n_process_devices, l->n_process_devices, "n_process_devices");
    if (c->n_process_devices == l->n_process_devices)
        ints(c->process_devices, l->process_devices, c->n_process_devices, "process_devices");
}

static void dims(const struct meshgen_sharding *c, const struct meshgen_sharding *l, int s)
{
    int d, k;
    char what[64];

    snprintf(what, sizeof what, "shardings[%d].dims", s);
    if (!both(c->dims, l->dims, what))
        return;
    for (d = 0; d < c->n_dims && d < l->n_dims; d++) {
        const struct meshgen_sharding_dim *cd = &c->dims[d], *ld = &l->dims[d];
        eq(cd->n_axes, ld->n_axes, "shardings[%d].dims[%d].n_axes", s, d);
        /* Every slot, the unused ones (0) too. */
        for (k = 0; k < MESHGEN_MAX_AXES; k++)
            eq(cd->axes[k], ld->axes[k], "shardings[%d].dims[%d].axes[%d]", s, d, k);
        eq(cd->shards, ld->shards, "shardings[%d].dims[%d].shards", s, d);
        eq(cd->global_size, ld->global_size, "shardings[%d].dims[%d].global_size", s, d);
        eq(cd->local_size, ld->local_size, "shardings[%d].dims[%d].local_size", s, d);
    }
}

static void shardings(const struct meshgen_mesh *c, const struct meshgen_mesh *l)
{
    int s;

    eq(c->n_shardings, l->n_shardings, "n_shardings");
    if (!both(c->shardings, l->shardings, "shardings"))
        return;
    for (s = 0; s < c->n_shardings && s < l->n_shardings; s++) {
        streq(c->shardings[s].name, l->shardings[s].name, "shardings[%d].name", s);
        eq(c->shardings[s].n_dims, l->shardings[s].n_dims, "shardings[%d].n_dims", s);
        eq(c->shardings[s].has_shape, l->shardings[s].has_shape, "shardings[%d].has_shape", s);
        dims(&c->shardings[s], &l->shardings[s], s);
    }
}

static void compare(const struct meshgen_mesh *c, const struct meshgen_mesh *l)
{
    int i;

    eq(c->magic, l->magic, "magic");
    eq(c->abi, l->abi, "abi");
    streq(c->name, l->name, "name");
    streq(c->generator_version, l->generator_version, "generator_version");
    streq(c->digest, l->digest, "digest");
    eq(c->n_axes, l->n_axes, "n_axes");
    if (both(c->axes, l->axes, "axes"))
        for (i = 0; i < c->n_axes && i < l->n_axes; i++) {
            streq(c->axes[i].name, l->axes[i].name, "axes[%d].name", i);
            eq(c->axes[i].size, l->axes[i].size, "axes[%d].size", i);
            eq(c->axes[i].ici, l->axes[i].ici, "axes[%d].ici", i);
            eq(c->axes[i].dcn, l->axes[i].dcn, "axes[%d].dcn", i);
            eq(c->axes[i].type, l->axes[i].type, "axes[%d].type", i);
        }
    eq(c->device_kind, l->device_kind, "device_kind");
    eq(c->n_devices, l->n_devices, "n_devices");
    eq(c->n_inventory_devices, l->n_inventory_devices, "n_inventory_devices");
    templates(c, l);
    hosts(c, l);
    eq(c->n_granules, l->n_granules, "n_granules");
    if (c->n_devices == l->n_devices)
        ints(c->mesh_devices, l->mesh_devices, c->n_devices, "mesh_devices");
    if (c->n_inventory_devices == l->n_inventory_devices)
        ints(c->device_index, l->device_index, c->n_inventory_devices, "device_index");
    processes(c, l);
    eq(c->mpmd_axis, l->mpmd_axis, "mpmd_axis");
    shardings(c, l);
}

/* The model of SPEC on INVENTORY, as `meshgen generate` builds it. */
static const struct mg_plan *compile(struct mg_arena *a, struct mg_diags *d, const char *file,
                                     const char *inventory, const char *name)
{
    struct mg_compile_opts opts = {MG_WHEN_AUTO};
    struct mg_mark at = {file, 0, 0};
    struct mg_inventory *inv;
    struct mg_spec *spec;
    struct mg_node *root;
    size_t len = 0;
    char *buf;

    buf = mg_read_file(a, d, file, at, &len);
    root = buf ? mg_yaml_parse(a, d, file, buf, len) : NULL;
    spec = root ? mg_spec_from_node(a, d, file, root) : NULL;
    if (!spec)
        return NULL;
    spec->name = name;
    if (!*inventory) {
        enum mg_source kind = mg_source_kind(spec->inventory ? spec->inventory : "live");
        inventory = spec->inventory ? spec->inventory : "live";
        if ((kind == MG_SOURCE_XML || kind == MG_SOURCE_INVENTORY) && inventory[0] != '/')
            inventory = mg_printf(a, "%s/%s", spec->dir, inventory);
        at = spec->inventory_at;
    }
    inv = mg_inventory_load(a, d, inventory, at);
    return inv ? mg_compile(a, d, spec, inv, &opts) : NULL;
}

int main(int argc, char **argv)
{
    struct mg_arena a;
    struct mg_diags d;
    const struct mg_plan *plan;
    struct meshgen_mesh lowered;

    if (argc != 4) {
        fprintf(stderr, "usage: lowered_check SPEC INVENTORY NAME\n");
        return 2;
    }
    mg_arena_init(&a);
    mg_diags_init(&d, &a);
    plan = compile(&a, &d, argv[1], argv[2], argv[3]);
    if (!plan) {
        mg_diags_print(&d, stderr, MG_FORMAT_TEXT);
        return 2;
    }
    mg_lower(&a, plan, &lowered);
    eq(meshgen_mesh_check(&MESH), MESHGEN_OK, "meshgen_mesh_check of the compiled tables");
    eq(meshgen_mesh_check(&lowered), MESHGEN_OK, "meshgen_mesh_check of the lowered tables");
    compare(&MESH, &lowered);
    printf("%s: %d fields compared, %d differ\n", argv[3], compared, failures);
    mg_arena_free(&a);
    return failures ? 1 : 0;
}
