/*
 * The `inventory` emitter: what an inventory holds, host by host — device
 * counts per kind, the topology and its digest, and, once per topology,
 * its GPUs (PCI bus id, NUMA node, cpuset, model, UUID) with their
 * closeness matrix, its NUMA nodes and packages. It formats a loaded
 * inventory and knows nothing of hwloc, files or meshes. Every string an
 * input gave (a model or vendor from an hwloc export, a topology's path) is
 * escaped as terminal text where it is written (escape.h): hwloc's strings
 * reach here with C0 controls replaced but C1 ones (U+009B, a terminal's
 * CSI) kept, and a path may hold any byte.
 */
#include "internal.h"
#include "escape.h"

/* The most GPUs whose closeness is printed as a matrix: past it the matrix
 * (n x n numbers) would be most of the output and of the time, and no one
 * reads a table wider than a screen (docs/reference.md §6). */
#define MG_INVENTORY_MATRIX_MAX 64

/* s escaped as terminal text, then padded to width bytes, as "%-*s". */
static void mg_inventory_cell(struct mg_buf *b, const char *s, int width)
{
    struct mg_buf cell;

    mg_buf_init(&cell);
    mg_escape(&cell, MG_ESC_TEXT, s ? s : "");
    mg_buf_printf(b, "%-*s", width, cell.data ? cell.data : "");
    mg_buf_free(&cell);
}

static void mg_inventory_gpus(struct mg_buf *b, const struct mg_topology *t)
{
    int n = t->n[MG_KIND_GPU], i, j;

    mg_buf_printf(b, "  %-4s %-14s %-5s %-16s %-28s %s\n", "gpu", "pci", "numa", "cpuset", "model",
                  "uuid");
    for (i = 0; i < n; i++) {
        const struct mg_devinfo *d = &t->devs[MG_KIND_GPU][i];
        mg_buf_printf(b, "  %-4d %-14s %-5d %-16s ", i, d->pci, d->numa, d->cpuset);
        mg_inventory_cell(b, d->model, 28);
        mg_buf_puts(b, " ");
        mg_inventory_cell(b, d->uuid, 0);
        mg_buf_puts(b, "\n");
    }
    if (!mg_topology_has_closeness(t, MG_KIND_GPU))
        return;
    if (n > MG_INVENTORY_MATRIX_MAX) {
        mg_buf_printf(b, "  closeness: not printed for more than %d GPUs (%d x %d)\n",
                      MG_INVENTORY_MATRIX_MAX, n, n);
        return;
    }
    mg_buf_puts(b, "  closeness (higher is closer):\n      ");
    for (j = 0; j < n; j++)
        mg_buf_printf(b, " %6d", j);
    mg_buf_puts(b, "\n");
    for (i = 0; i < n; i++) {
        mg_buf_printf(b, "  %4d", i);
        for (j = 0; j < n; j++)
            mg_buf_printf(b, " %6d", mg_topology_closeness(t, MG_KIND_GPU, i, j));
        mg_buf_puts(b, "\n");
    }
}

/* The devices of one host of a TPU slice: where each sits (docs/tpu.md). */
static void mg_inventory_tpus(struct mg_buf *b, const struct mg_topology *t)
{
    int i;

    mg_buf_printf(b, "  %-4s %-12s %s\n", "id", "coords", "core_on_chip");
    for (i = 0; i < t->n[MG_KIND_TPU]; i++) {
        const struct mg_devinfo *d = &t->devs[MG_KIND_TPU][i];
        char xyz[48];
        snprintf(xyz, sizeof xyz, "(%d, %d, %d)", d->coords[0], d->coords[1], d->coords[2]);
        mg_buf_printf(b, "  %-4d %-12s %d\n", i, xyz, d->core_on_chip);
    }
}

/* NUMA nodes and packages, by OS index. */
static void mg_inventory_domains(struct mg_buf *b, const struct mg_topology *t)
{
    int k, i;

    for (k = MG_KIND_NUMA; k <= MG_KIND_PACKAGE; k++) {
        for (i = 0; i < t->n[k]; i++) {
            const struct mg_devinfo *d = &t->devs[k][i];
            mg_buf_printf(b, "  %-7s %-3d numa %-3d cpuset %s%s", mg_kind_name(k), d->os_index,
                          d->numa, d->cpuset, d->model[0] ? "  " : "");
            mg_escape(b, MG_ESC_TEXT, d->model);
            mg_buf_puts(b, "\n");
        }
    }
}

void mg_emit_inventory(struct mg_buf *b, const struct mg_inventory *inv)
{
    int h, k;

    for (h = 0; h < inv->n_hosts; h++) {
        const struct mg_host *host = &inv->hosts[h];
        const struct mg_topology *t = &inv->topologies[host->topology];
        mg_buf_puts(b, "host ");
        mg_escape(b, MG_ESC_TEXT, host->name);
        if (host->slice) {
            mg_buf_puts(b, " (slice ");
            mg_escape(b, MG_ESC_TEXT, host->slice);
            mg_buf_puts(b, ")");
        }
        mg_buf_puts(b, ":");
        /* A host has hwloc's kinds or, in a TPU slice, TPU devices alone. */
        for (k = 0; k < MG_N_KINDS; k++)
            if ((k == MG_KIND_TPU) == (t->tpu != NULL))
                mg_buf_printf(b, " %d %s", t->n[k], mg_kind_name(k));
        mg_buf_puts(b, "\n  topology ");
        mg_escape(b, MG_ESC_TEXT, t->label ? t->label : t->key);
        mg_buf_printf(b, ", digest %.16s\n", t->digest);
        /* Print a topology's devices once: hosts sharing it are alike. */
        if (h > 0 && inv->hosts[h - 1].topology == host->topology)
            continue;
        if (t->n[MG_KIND_GPU])
            mg_inventory_gpus(b, t);
        if (t->tpu)
            mg_inventory_tpus(b, t);
        mg_inventory_domains(b, t);
    }
}
