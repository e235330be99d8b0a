/*
 * The JSON emitter: the resolved mesh as `meshgen resolve` prints it
 * (docs/reference.md, "The resolve JSON"). Keys named there are stable;
 * others may be added. It formats the resolved model, one function per
 * field that is more than a scalar, through the JSON writer (json.c),
 * which places every separator and line break. The rows written once per
 * host, device or process are recorded once through the writer and then
 * filled in (a device's row differs from another of the same topology and
 * index by its id and host alone), so every byte is still the writer's. It
 * computes nothing and never sees the spec, YAML or hwloc.
 */
#include "json.h"

#include <stdlib.h>

static void mg_json_axes(struct mg_json *j, const struct mg_plan *p)
{
    int i;

    mg_json_key(j, "axes");
    mg_json_array(j, MG_JSON_ALIGNED);
    for (i = 0; i < p->n_axes; i++) {
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_key_string(j, "name", p->axis_names[i]);
        mg_json_key_int(j, "size", p->size[i]);
        mg_json_key_int(j, "ici", p->ici[i]);
        mg_json_key_int(j, "dcn", p->dcn[i]);
        mg_json_key_string(j, "type", mg_word(&mg_axis_type_words, p->types[i]));
        mg_json_end(j);
    }
    mg_json_end(j);
}

static void mg_json_score(struct mg_json *j, const struct mg_plan *p)
{
    mg_json_key(j, "score");
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key_int(j, "assignment", p->score);
    mg_json_key_int(j, "inventory_order", p->score_inventory);
    mg_json_end(j);
}

/* Every host's row is the same but for its name, slice and granule. */
static void mg_json_hosts(struct mg_json *j, const struct mg_plan *p)
{
    struct mg_json_tpl row;
    struct mg_json rec;
    struct mg_json_arg arg[3] = {{0}};
    int i;

    mg_json_record(&rec, &row);
    mg_json_object(&rec, MG_JSON_INLINE);
    mg_json_key(&rec, "name");
    mg_json_hole(&rec, MG_JSON_HOLE_STRING);
    mg_json_key(&rec, "slice");
    mg_json_hole(&rec, MG_JSON_HOLE_STRING_OR_NULL);
    mg_json_key(&rec, "granule");
    mg_json_hole(&rec, MG_JSON_HOLE_INT);
    mg_json_end(&rec);
    mg_json_record_end(&rec);

    mg_json_key(j, "hosts");
    mg_json_array(j, MG_JSON_ALIGNED);
    for (i = 0; i < p->inv->n_hosts; i++) {
        arg[0].s = p->inv->hosts[i].name;
        arg[1].s = p->inv->hosts[i].slice;
        arg[2].i = p->host_granule[i];
        mg_json_fill(j, &row, arg);
    }
    mg_json_end(j);
    mg_json_tpl_free(&row);
}

/* An inline array of n ints (v NULL: 0 to n - 1). */
static void mg_json_ints(struct mg_json *j, const char *key, const int *v, int n)
{
    mg_json_key(j, key);
    mg_json_int_array(j, v, (size_t)n);
}

/* The row of a device of topology t at index local among its host's:
 * everything but its id and host, which are the holes. */
static void mg_json_device_row(struct mg_json_tpl *row, const struct mg_plan *p,
                               const struct mg_topology *t, int local)
{
    const struct mg_devinfo *info = &t->devs[p->kind][local];
    struct mg_json rec, *j = &rec;

    mg_json_record(j, row);
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key(j, "id");
    mg_json_hole(j, MG_JSON_HOLE_INT);
    mg_json_key(j, "host");
    mg_json_hole(j, MG_JSON_HOLE_INT);
    mg_json_key_int(j, "local", local);
    mg_json_key_string(j, "kind", mg_kind_name(p->kind));
    mg_json_key_string_or_null(j, "pci", info->pci);
    /* GPUs only, as os_index is CPU objects' and coords TPU devices'. */
    if (p->kind == MG_KIND_GPU) {
        mg_json_key(j, "vendor_id");
        if (info->vendor_id)
            mg_json_int(j, info->vendor_id);
        else
            mg_json_null(j);
    }
    mg_json_key_string_or_null(j, "vendor", info->vendor);
    mg_json_key_string_or_null(j, "model", info->model);
    mg_json_key_string_or_null(j, "uuid", info->uuid);
    if (info->os_index >= 0) {
        mg_json_key_int(j, "os_index", info->os_index);
    }
    mg_json_key(j, "numa");
    if (info->numa >= 0)
        mg_json_int(j, info->numa);
    else
        mg_json_null(j);
    mg_json_key_string_or_null(j, "cpuset", info->cpuset);
    if (p->kind == MG_KIND_TPU) {
        mg_json_ints(j, "coords", info->coords, 3);
        mg_json_key_int(j, "core_on_chip", info->core_on_chip);
    }
    mg_json_end(j);
    mg_json_record_end(j);
}

/* The rows of one topology's devices, recorded as they are first needed.
 * Hosts that share a topology usually come together, so holding the rows
 * of one topology at a time records each about once, and what they hold
 * is bounded by one host's devices, not by the cluster. */
struct mg_device_rows {
    int topology; /* whose rows these are; -1: none */
    int n;
    struct mg_json_tpl *row; /* [n]; text.data NULL: not recorded yet */
};

static void mg_device_rows_clear(struct mg_device_rows *r)
{
    int i;

    for (i = 0; i < r->n; i++)
        mg_json_tpl_free(&r->row[i]);
    free(r->row);
    r->topology = -1;
    r->n = 0;
    r->row = NULL;
}

static const struct mg_json_tpl *mg_device_row(struct mg_device_rows *r, const struct mg_plan *p,
                                               int topology, int local)
{
    const struct mg_topology *t = &p->inv->topologies[topology];

    if (r->topology != topology) {
        mg_device_rows_clear(r);
        r->row = calloc((size_t)t->n[p->kind], sizeof *r->row);
        if (!r->row)
            mg_oom();
        r->topology = topology;
        r->n = t->n[p->kind];
    }
    if (!r->row[local].text.data)
        mg_json_device_row(&r->row[local], p, t, local);
    return &r->row[local];
}

static void mg_json_devices(struct mg_json *j, const struct mg_plan *p)
{
    struct mg_device_rows rows = {-1, 0, NULL};
    struct mg_json_arg arg[2] = {{0}};
    int h, i, first;

    mg_json_key(j, "devices");
    mg_json_array(j, MG_JSON_ALIGNED);
    /* Device ids are numbered host by host. */
    for (h = 0; h < p->inv->n_hosts; h++) {
        int end = h + 1 < p->inv->n_hosts ? p->host_first[h + 1] : p->n_devices;
        int topology = p->inv->hosts[h].topology;
        for (i = first = p->host_first[h]; i < end; i++) {
            arg[0].i = i;
            arg[1].i = h;
            mg_json_fill(j, mg_device_row(&rows, p, topology, i - first), arg);
        }
    }
    mg_json_end(j);
    mg_device_rows_clear(&rows);
}

/* key NULL: an entry of an array. */
static void mg_json_int64s(struct mg_json *j, const char *key, const int64_t *v, int n)
{
    int i;

    if (key)
        mg_json_key(j, key);
    mg_json_array(j, MG_JSON_INLINE);
    for (i = 0; i < n; i++)
        mg_json_int(j, v[i]);
    mg_json_end(j);
}

/* order: torus: how JAX's rules placed the devices (docs/tpu.md §3): the
 * step that answered and, for the torus steps, the physical mesh and the
 * share of each physical axis each logical axis takes. */
static void mg_json_tpu(struct mg_json *j, const struct mg_plan *p)
{
    const struct mg_tpu_result *r = p->tpu;
    int i;

    mg_json_key(j, "tpu");
    mg_json_object(j, MG_JSON_INLINE);
    mg_json_key_string(j, "method", mg_word(&mg_tpu_method_words, (int)r->method));
    if (r->method != MG_TPU_HANDLER) {
        mg_json_int64s(j, "physical_shape", r->physical_shape, r->n_physical);
        mg_json_key(j, "assignment");
        mg_json_array(j, MG_JSON_INLINE);
        for (i = 0; i < r->n_physical; i++)
            mg_json_int64s(j, NULL, r->assignment[i], p->n_axes);
        mg_json_end(j);
    }
    mg_json_end(j);
}

/* Every process's row is the same but for its id, host, devices and
 * stage. */
static void mg_json_processes(struct mg_json *j, const struct mg_plan *p)
{
    struct mg_json_tpl row;
    struct mg_json rec;
    struct mg_json_arg arg[4] = {{0}};
    int i;

    mg_json_record(&rec, &row);
    mg_json_object(&rec, MG_JSON_INLINE);
    mg_json_key(&rec, "id");
    mg_json_hole(&rec, MG_JSON_HOLE_INT);
    mg_json_key(&rec, "host");
    mg_json_hole(&rec, MG_JSON_HOLE_INT);
    mg_json_key(&rec, "devices");
    mg_json_hole(&rec, MG_JSON_HOLE_INTS);
    if (p->mpmd_axis >= 0) {
        mg_json_key(&rec, "stage");
        mg_json_hole(&rec, MG_JSON_HOLE_INT);
    }
    mg_json_end(&rec);
    mg_json_record_end(&rec);

    mg_json_key(j, "processes");
    mg_json_array(j, MG_JSON_ALIGNED);
    for (i = 0; i < p->n_processes; i++) {
        const struct mg_plan_process *pr = &p->processes[i];
        arg[0].i = i;
        arg[1].i = pr->host;
        arg[2].ints = p->process_devices ? p->process_devices + pr->first : NULL;
        arg[2].i = pr->first;
        arg[2].n = (size_t)pr->count;
        arg[3].i = pr->stage;
        mg_json_fill(j, &row, arg);
    }
    mg_json_end(j);
    mg_json_tpl_free(&row);
}

/* A PartitionSpec: per dimension null or the list of its axes. */
static void mg_json_partition(struct mg_json *j, const struct mg_plan *p,
                              const struct mg_plan_sharding *s)
{
    int d, k;

    mg_json_key(j, "spec");
    mg_json_array(j, MG_JSON_INLINE);
    for (d = 0; d < s->n_dims; d++) {
        if (s->n_axes[d] == 0) {
            mg_json_null(j);
            continue;
        }
        mg_json_array(j, MG_JSON_INLINE);
        for (k = 0; k < s->n_axes[d]; k++)
            mg_json_string(j, p->axis_names[s->axes[d][k]]);
        mg_json_end(j);
    }
    mg_json_end(j);
}

static void mg_json_shardings(struct mg_json *j, const struct mg_plan *p)
{
    int i;

    mg_json_key(j, "shardings");
    mg_json_object(j, MG_JSON_ALIGNED);
    for (i = 0; i < p->n_shardings; i++) {
        const struct mg_plan_sharding *s = &p->shardings[i];
        mg_json_key(j, s->name);
        mg_json_object(j, MG_JSON_INLINE);
        mg_json_partition(j, p, s);
        mg_json_int64s(j, "shards", s->shards, s->n_dims);
        if (s->has_shape) {
            mg_json_int64s(j, "shape", s->global, s->n_dims);
            mg_json_int64s(j, "local_shape", s->local, s->n_dims);
        }
        mg_json_end(j);
    }
    mg_json_end(j);
}

void mg_emit_json(struct mg_buf *b, const struct mg_plan *p)
{
    struct mg_json j;

    mg_json_init(&j, b);
    mg_json_object(&j, MG_JSON_ALIGNED);
    mg_json_key(&j, "meshgen-resolve");
    mg_json_int(&j, 1);
    mg_json_key(&j, "name");
    mg_json_string(&j, p->name);
    mg_json_axes(&j, p);
    mg_json_key(&j, "mpmd");
    mg_json_string_or_null(&j, p->mpmd_axis >= 0 ? p->axis_names[p->mpmd_axis] : NULL);
    mg_json_key(&j, "device_kind");
    mg_json_string(&j, mg_kind_name(p->kind));
    mg_json_key(&j, "order");
    mg_json_string(&j, mg_word(&mg_order_words, p->order));
    mg_json_score(&j, p);
    if (p->tpu)
        mg_json_tpu(&j, p);
    mg_json_key(&j, "digest");
    mg_json_string(&j, p->digest);
    mg_json_hosts(&j, p);
    mg_json_devices(&j, p);
    mg_json_ints(&j, "mesh", p->mesh, p->n_mesh);
    mg_json_processes(&j, p);
    mg_json_shardings(&j, p);
    mg_json_end(&j);
    mg_buf_put(b, "\n", 1);
}
