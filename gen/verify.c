/*
 * `meshgen verify` (docs/reference.md, "meshgen verify"): this machine
 * against its host's entry in the inventory, every difference located at
 * the line of the inventory that expects otherwise.
 *
 * Which host this machine is follows the runtime's one rule (runtime/host.h:
 * MESHGEN_HOSTNAME, else SLURMD_NODENAME, else gethostname(), case
 * ignored, up to the first dot), as meshgen_verify finds it. The machine
 * is loaded by topology.c ("live": hwloc, or the file HWLOC_XMLFILE names,
 * checked and trial-loaded like any topology file), and each kind of
 * device is compared by the comparison meshgen_verify makes
 * (runtime/device_compare.c): GPUs, NUMA nodes and the mesh's own kind
 * device by device, the other CPU objects by their count. Each difference
 * is a node-drift error at the topology file's line of the device (its
 * PCIDev or CPU object), or of its Machine object, with the host's line of
 * the inventory file as the related location. It knows nothing of hwloc
 * (topology.c loads), of the tables or of output formats.
 */
#include "diag.h"
#include "io.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/device_compare.h"
#include "../runtime/host.h"

/* A kind's noun in messages, one and many. */
static const char *const mg_nouns[MG_N_HWLOC_KINDS][2] = {
    [MG_KIND_GPU] = {"GPU", "GPUs"},
    [MG_KIND_CORE] = {"core", "cores"},
    [MG_KIND_NUMA] = {"NUMA node", "NUMA nodes"},
    [MG_KIND_PACKAGE] = {"package", "packages"},
    [MG_KIND_PU] = {"PU", "PUs"},
};

/* The hwloc object type of a kind, as XML exports write it. */
static const char *const mg_xml_types[MG_N_HWLOC_KINDS] = {
    [MG_KIND_GPU] = "PCIDev",      [MG_KIND_CORE] = "Core", [MG_KIND_NUMA] = "NUMANode",
    [MG_KIND_PACKAGE] = "Package", [MG_KIND_PU] = "PU",
};

static const char *mg_noun(int kind, int n)
{
    return mg_nouns[kind][n != 1];
}

/* ---- which host --------------------------------------------------------------- */

/* The variables as the runtime reads them, --host answering for
 * MESHGEN_HOSTNAME. */
static const char *mg_verify_get(void *ctx, const char *name)
{
    const struct mg_verify_query *q = ctx;

    if (q->host && strcmp(name, "MESHGEN_HOSTNAME") == 0)
        return q->host;
    return q->get ? q->get(q->ctx, name) : NULL;
}

/* Whether the job runs under Slurm, where every task of an srun shares the
 * command line, so --host is not the fix (docs/reference.md, "When no
 * process is found"). */
static int mg_verify_under_slurm(const struct mg_verify_query *q)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "SLURM_JOBID", "SLURMD_NODENAME",
                                       "SLURM_LOCALID", "SLURM_NTASKS"};
    size_t i;

    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (mg_verify_get((void *)q, vars[i]))
            return 1;
    return 0;
}

/* "'a', 'b', 'c' and 7 more": the inventory's first hosts. */
static const char *mg_first_hosts(struct mg_arena *a, const struct mg_inventory *inv)
{
    int h, shown = inv->n_hosts <= 4 ? inv->n_hosts : 3;
    struct mg_buf b;
    const char *s;

    mg_buf_init(&b);
    for (h = 0; h < shown; h++)
        mg_buf_printf(&b, "%s%s",
                      h == 0                  ? ""
                      : h + 1 == inv->n_hosts ? " and "
                                              : ", ",
                      mg_show_host(a, inv->hosts[h].name));
    if (shown < inv->n_hosts)
        mg_buf_printf(&b, " and %d more", inv->n_hosts - shown);
    s = mg_strdup(a, b.data ? b.data : "");
    mg_buf_free(&b);
    return s;
}

/* The host of the inventory this machine is, by the runtime's rule, or -1
 * after a node-host error that names the machine and the fix. */
static int mg_verify_host(struct mg_arena *a, struct mg_diags *d, const struct mg_inventory *inv,
                          const struct mg_verify_query *q, struct mg_mark at)
{
    struct meshgen__host_name self;
    struct meshgen_mesh view;
    struct meshgen_host *hosts = mg_alloc_array(a, (size_t)inv->n_hosts, sizeof *hosts);
    int32_t match[2];
    size_t off;
    int h, rc = meshgen__this_host_name(mg_verify_get, (void *)q, &self);

    if (rc == MESHGEN_ERR_SYSTEM) {
        mg_error(d, MG_CHK_NODE_HOST, at,
                 "this machine has no name (gethostname() failed); set MESHGEN_HOSTNAME or "
                 "give --host");
        return -1;
    }
    if (rc != MESHGEN_OK) {
        mg_error(d, MG_CHK_NODE_HOST, at, "%s=%s is not a host name: %s",
                 q->host ? "--host" : self.source, mg_show_host(a, self.name),
                 meshgen__host_name_refusal(self.name, strlen(self.name), &off));
        return -1;
    }
    /* The runtime's matching reads a mesh's host names and nothing else. */
    memset(&view, 0, sizeof view);
    for (h = 0; h < inv->n_hosts; h++)
        hosts[h].name = inv->hosts[h].name;
    view.n_hosts = inv->n_hosts;
    view.hosts = hosts;
    rc = meshgen__find_host(&view, self.name, match);
    if (rc >= 0)
        return rc;
    if (match[1] >= 0)
        mg_error(d, MG_CHK_NODE_HOST, at,
                 "this machine's name %s (from %s) fits hosts %s and %s alike (up to the first "
                 "dot); set MESHGEN_HOSTNAME to the full name of one",
                 mg_show_host(a, self.name), q->host ? "--host" : self.source,
                 mg_show_host(a, inv->hosts[match[0]].name),
                 mg_show_host(a, inv->hosts[match[1]].name));
    else
        mg_error(d, MG_CHK_NODE_HOST, at,
                 "this machine's name %s (from %s) is no host of the inventory, whose hosts are "
                 "%s; %s",
                 mg_show_host(a, self.name), q->host ? "--host" : self.source,
                 mg_first_hosts(a, inv),
                 q->host || strcmp(self.source, "MESHGEN_HOSTNAME") == 0
                     ? "name one of them (case does not matter)"
                 : mg_verify_under_slurm(q)
                     ? "under Slurm the inventory's hostlist must name the allocation's nodes as "
                       "'scontrol show hostnames' does, or set MESHGEN_HOSTNAME to this node's "
                       "name among them"
                     : "set MESHGEN_HOSTNAME to this machine's name among them, or give --host");
    return -1;
}

/* ---- where a difference is written --------------------------------------------- */

/* One host's expectations: its topology, the text of its XML file (NULL
 * for a synthetic one, or one that cannot be read again) and where the
 * inventory names the host. */
struct mg_verify_ctx {
    struct mg_arena *a;
    struct mg_diags *d;
    const struct mg_host *host;
    const struct mg_topology *want, *got;
    int kind; /* of the devices being compared */
    const struct meshgen_device_info *want_info, *got_info;
    const char *xml;
    const char *listed; /* the related note at the host's line */
    int n_diffs;
};

/* Whether the n bytes at p hold needle. */
static int mg_holds(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle), i;

    for (i = 0; i + k <= n; i++)
        if (memcmp(p + i, needle, k) == 0)
            return 1;
    return 0;
}

/* The place (1-based line, and the column of its '<') of the XML element
 * of an object of type `type` whose attribute attr (NULL: any) is value;
 * line 0 when there is none. hwloc writes each object's attributes on one
 * line. */
static struct mg_mark mg_xml_place(const char *xml, const char *type, const char *attr,
                                   const char *value)
{
    struct mg_mark at = {NULL, 0, 0};
    char want_type[32], want_attr[64] = "";
    const char *p = xml;
    int line = 1;

    snprintf(want_type, sizeof want_type, "<object type=\"%s\"", type);
    if (attr)
        snprintf(want_attr, sizeof want_attr, " %s=\"%s\"", attr, value);
    while (p && *p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);

        if (mg_holds(p, n, want_type) && mg_holds(p, n, want_attr)) {
            at.line = line;
            at.col = (int)strspn(p, " \t") + 1;
            return at;
        }
        p = end ? end + 1 : NULL;
        line++;
    }
    return at;
}

/* Where an expected device is written (its object's line, else the
 * Machine's), or the host's line of the inventory when the topology is no
 * file. */
static struct mg_mark mg_verify_where(const struct mg_verify_ctx *c, int want)
{
    struct mg_mark at = {NULL, 0, 0};

    if (!c->xml)
        return c->host->at;
    if (want >= 0) {
        const struct meshgen_device_info *w = &c->want_info[want];
        char os[16];

        snprintf(os, sizeof os, "%d", (int)w->os_index);
        if (c->kind == MG_KIND_GPU && w->pci[0])
            at = mg_xml_place(c->xml, "PCIDev", "pci_busid", w->pci);
        else if (c->kind != MG_KIND_GPU)
            at = mg_xml_place(c->xml, mg_xml_types[c->kind], "os_index", os);
        /* Topologies without Core objects give their PUs as cores. */
        if (!at.line && c->kind == MG_KIND_CORE)
            at = mg_xml_place(c->xml, "PU", "os_index", os);
    }
    if (!at.line)
        at = mg_xml_place(c->xml, "Machine", NULL, NULL);
    at.file = c->want->key;
    return at;
}

/* ---- one difference ------------------------------------------------------------- */

/* A device in a message: "GPU 2 (PCI bus id '0000:03:00.0', 'Tesla
 * P100')", "core 3 (OS index 3)"; the model only when whole (a device
 * missing or extra), the bus id unless the bus id is what differs. */
static const char *mg_device_text(struct mg_arena *a, int kind, int index,
                                  const struct meshgen_device_info *v, int whole, int pci)
{
    if (kind != MG_KIND_GPU)
        return mg_printf(a, "%s %d (OS index %d)", mg_noun(kind, 1), index, (int)v->os_index);
    if (!pci)
        return mg_printf(a, "GPU %d", index);
    return mg_printf(a, "GPU %d (%s%s%s%s)", index, v->pci[0] ? "PCI bus id " : "no PCI bus id",
                     v->pci[0] ? mg_show(a, v->pci) : "", whole && v->model[0] ? ", " : "",
                     whole && v->model[0] ? mg_show(a, v->model) : "");
}

/* A field's value in a message: a number as it is, text quoted, "none". */
static const char *mg_value_text(struct mg_arena *a, const struct meshgen__diff *diff,
                                 const char *text)
{
    static const char *const numbers[] = {"count", "OS index", "PCI vendor id", "NUMA node"};
    size_t i;

    if (!text[0])
        return "none";
    for (i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        if (strcmp(diff->field, numbers[i]) == 0)
            return text;
    return mg_show(a, text);
}

/* The message of one difference. */
static const char *mg_diff_text(const struct mg_verify_ctx *c, const struct meshgen__diff *diff)
{
    struct mg_arena *a = c->a;
    const char *host = mg_show_host(a, c->host->name);

    if (diff->field && strcmp(diff->field, "count") == 0)
        return mg_printf(a, "host %s has %s %s in the inventory and %s on this machine", host,
                         diff->want_text, mg_noun(c->kind, atoi(diff->want_text)), diff->got_text);
    if (!diff->field && diff->want >= 0)
        return mg_printf(a, "%s of host %s is in the inventory but not on this machine",
                         mg_device_text(a, c->kind, diff->want, &c->want_info[diff->want], 1, 1),
                         host);
    if (!diff->field)
        return mg_printf(a, "this machine's %s is not in the inventory of host %s",
                         mg_device_text(a, c->kind, diff->got, &c->got_info[diff->got], 1, 1),
                         host);
    return mg_printf(a, "%s of host %s: %s %s in the inventory, %s on this machine",
                     mg_device_text(a, c->kind, diff->want, &c->want_info[diff->want], 0,
                                    strcmp(diff->field, "PCI bus id") != 0),
                     host, diff->field, mg_value_text(a, diff, diff->want_text),
                     mg_value_text(a, diff, diff->got_text));
}

/* One difference (meshgen__compare_devices' callback): a node-drift error
 * where the inventory expects otherwise, the host's line as its related
 * place. Past the cap of diagnostics only the count grows, so no file is
 * searched for them. */
static int mg_verify_diff(void *ctx, const struct meshgen__diff *diff)
{
    struct mg_verify_ctx *c = ctx;
    struct mg_mark at, listed = c->host->at;

    c->n_diffs++;
    if (c->d->n >= MG_MAX_ERRORS) {
        mg_error(c->d, MG_CHK_NODE_DRIFT, listed, "another difference");
        return 0;
    }
    at = mg_verify_where(c, diff->field && strcmp(diff->field, "count") == 0 ? -1 : diff->want);
    if (listed.file && listed.line > 0 && (!at.file || strcmp(at.file, listed.file) != 0))
        mg_error_rel(c->d, MG_CHK_NODE_DRIFT, at, listed, c->listed, "%s", mg_diff_text(c, diff));
    else
        mg_error(c->d, MG_CHK_NODE_DRIFT, at, "%s", mg_diff_text(c, diff));
    return 0;
}

/* ---- the comparison ----------------------------------------------------------------- */

/* A topology's devices of a kind as the runtime's tables describe them
 * (the fields lower.c fills in). */
static const struct meshgen_device_info *mg_infos(struct mg_arena *a, const struct mg_topology *t,
                                                  int kind)
{
    struct meshgen_device_info *out = mg_alloc_array(a, (size_t)t->n[kind] + 1, sizeof *out);
    int i;

    for (i = 0; i < t->n[kind]; i++) {
        const struct mg_devinfo *v = &t->devs[kind][i];

        out[i].kind = v->kind;
        out[i].os_index = v->os_index;
        out[i].numa = v->numa;
        out[i].vendor_id = v->vendor_id;
        out[i].pci = v->pci ? v->pci : "";
        out[i].vendor = v->vendor ? v->vendor : "";
        out[i].model = v->model ? v->model : "";
        out[i].uuid = v->uuid ? v->uuid : "";
        out[i].cpuset = v->cpuset ? v->cpuset : "";
    }
    return out;
}

/* The devices of one kind: device by device, or (by_count 1) their count
 * only. */
static void mg_verify_kind(struct mg_verify_ctx *c, int kind, int by_count)
{
    int nw = c->want->n[kind], ng = c->got->n[kind];

    c->kind = kind;
    c->want_info = mg_infos(c->a, c->want, kind);
    c->got_info = mg_infos(c->a, c->got, kind);
    if (by_count) {
        struct meshgen__diff diff;

        if (nw == ng)
            return;
        memset(&diff, 0, sizeof diff);
        diff.want = diff.got = -1;
        diff.field = "count";
        snprintf(diff.buf[0], sizeof diff.buf[0], "%d", nw);
        snprintf(diff.buf[1], sizeof diff.buf[1], "%d", ng);
        diff.want_text = diff.buf[0];
        diff.got_text = diff.buf[1];
        mg_verify_diff(c, &diff);
        return;
    }
    meshgen__compare_devices(kind, c->want_info, nw, c->got_info, ng,
                             mg_alloc(c->a, meshgen__compare_room(nw, ng)), mg_verify_diff, c);
}

/* The text of the host's topology file, for the lines of its objects; NULL
 * for a synthetic topology, or a file that cannot be read again (then the
 * host's line of the inventory stands for it). */
static char *mg_verify_xml(struct mg_arena *a, const struct mg_topology *t)
{
    struct mg_diags quiet;
    struct mg_mark nowhere = {NULL, 0, 0};
    size_t len;

    if (mg_source_kind(t->key) != MG_SOURCE_XML)
        return NULL;
    mg_diags_init(&quiet, a);
    return mg_io_read(&quiet, nowhere, t->key, t->label, MG_INPUT_XML, &len);
}

int mg_verify_node(struct mg_arena *a, struct mg_diags *d, const struct mg_inventory *inv, int kind,
                   const struct mg_verify_query *q, struct mg_mark at, struct mg_verify *out)
{
    struct mg_mark machine = {"(this machine)", 0, 0};
    struct mg_verify_ctx c;
    struct mg_topology live;
    char *xml;
    int k, h = mg_verify_host(a, d, inv, q, at);

    memset(out, 0, sizeof *out);
    out->host = -1;
    if (h < 0)
        return -1;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.d = d;
    c.host = &inv->hosts[h];
    c.want = &inv->topologies[c.host->topology];
    out->host_name = c.host->name;
    if (c.want->tpu) {
        mg_error(d, MG_CHK_NODE_HOST, c.host->at,
                 "host %s is a TPU host: hwloc does not see TPU chips, so there is nothing of "
                 "it to compare with the inventory",
                 mg_show_host(a, c.host->name));
        return -1;
    }
    if (mg_topology_load(a, d, "live", "live", machine, &live, NULL) != 0)
        return -1;
    c.got = &live;
    c.xml = xml = mg_verify_xml(a, c.want);
    /* A single topology file is the inventory, named by the spec. */
    c.listed = mg_source_kind(inv->source) == MG_SOURCE_INVENTORY
                   ? mg_printf(a, "host %s is listed here", mg_show_host(a, c.host->name))
                   : "the inventory is named here";
    /* GPUs and NUMA nodes are what a job is placed by, and the mesh's own
     * kind what its tables hold: each device is compared. Of the other CPU
     * objects, a changed count is what shows. */
    for (k = 0; k < MG_N_HWLOC_KINDS; k++) {
        out->n[k] = c.want->n[k];
        mg_verify_kind(&c, k, !(k == MG_KIND_GPU || k == MG_KIND_NUMA || k == kind));
    }
    free(xml);
    out->host = h;
    out->n_diffs = c.n_diffs;
    return c.n_diffs ? -1 : 0;
}

void mg_emit_verify(struct mg_buf *out, const struct mg_verify *v)
{
    static const int order[] = {MG_KIND_GPU, MG_KIND_NUMA, MG_KIND_PACKAGE, MG_KIND_CORE,
                                MG_KIND_PU};
    size_t i;

    if (v->host < 0)
        return;
    mg_buf_puts(out, "host ");
    mg_escape(out, MG_ESC_TEXT, v->host_name);
    if (v->n_diffs) {
        mg_buf_printf(out, ": %d difference%s from the inventory\n", v->n_diffs,
                      v->n_diffs == 1 ? "" : "s");
        return;
    }
    mg_buf_puts(out, " matches the inventory:");
    for (i = 0; i < sizeof order / sizeof order[0]; i++)
        mg_buf_printf(out, "%s %d %s", i ? "," : "", v->n[order[i]],
                      mg_noun(order[i], v->n[order[i]]));
    mg_buf_puts(out, "\n");
}
