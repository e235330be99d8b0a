/*
 * The comparison of a host's expected devices with those a machine has,
 * shared by meshgen_verify and `meshgen verify` (device_compare.h). Pairing
 * sorts the devices by a key, so a host of many devices costs n log n, not
 * n squared. It knows nothing of hwloc, files or messages: the callers
 * describe both sides and word what differs.
 */
#include "device_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One device of either side, sorted by a key so that equal keys meet. */
struct slot {
    const char *text; /* a key that is a string, else NULL */
    long long num;    /* a key that is a number */
    int side;         /* 0: expected, 1: found */
    int index;
};

size_t meshgen__compare_room(int n_want, int n_got)
{
    size_t n = (size_t)(n_want > 0 ? n_want : 0) + (size_t)(n_got > 0 ? n_got : 0) + 1;

    return n * (sizeof(struct slot) + sizeof(int));
}

static int slot_cmp(const void *pa, const void *pb)
{
    const struct slot *a = pa, *b = pb;
    int c = a->text != NULL ? strcmp(a->text, b->text) : (a->num > b->num) - (a->num < b->num);

    if (c != 0)
        return c;
    if (a->side != b->side)
        return a->side - b->side;
    return (a->index > b->index) - (a->index < b->index);
}

static int same_key(const struct slot *a, const struct slot *b)
{
    return a->text != NULL ? strcmp(a->text, b->text) == 0 : a->num == b->num;
}

/* The pairing so far: want_pair[i] is the device found for expected
 * device i, got_pair[j] the expected device for device j found; -1 none. */
struct pairing {
    int kind;
    const struct meshgen_device_info *want, *got;
    int n_want, n_got;
    struct slot *slots;
    int *want_pair, *got_pair;
};

/* A device's key for a pass, into *s; 0 when it has none. Pass 0: what
 * names it on a machine (a GPU's PCI bus id, a CPU object's OS index);
 * pass 1: its UUID. */
static int key_of(const struct pairing *p, int pass, const struct meshgen_device_info *d,
                  struct slot *s)
{
    s->text = NULL;
    s->num = 0;
    if (pass == 1) {
        s->text = d->uuid != NULL && d->uuid[0] != '\0' ? d->uuid : NULL;
        return s->text != NULL;
    }
    if (p->kind == MESHGEN_KIND_GPU) {
        s->text = d->pci != NULL && d->pci[0] != '\0' ? d->pci : NULL;
        return s->text != NULL;
    }
    s->num = d->os_index;
    return d->os_index >= 0;
}

/* Pairs the devices not yet paired whose keys are equal, the k-th
 * expected with the k-th found of each key. */
static void pair_by(struct pairing *p, int pass)
{
    int n = 0, a, b, w, g, i;

    for (i = 0; i < p->n_want; i++)
        if (p->want_pair[i] < 0 && key_of(p, pass, &p->want[i], &p->slots[n])) {
            p->slots[n].side = 0;
            p->slots[n++].index = i;
        }
    for (i = 0; i < p->n_got; i++)
        if (p->got_pair[i] < 0 && key_of(p, pass, &p->got[i], &p->slots[n])) {
            p->slots[n].side = 1;
            p->slots[n++].index = i;
        }
    if (n > 1)
        qsort(p->slots, (size_t)n, sizeof *p->slots, slot_cmp);
    for (a = 0; a < n; a = b) {
        for (b = a + 1; b < n && same_key(&p->slots[a], &p->slots[b]); b++)
            continue;
        for (g = a; g < b && p->slots[g].side == 0; g++)
            continue;
        for (w = a; p->slots[w].side == 0 && g < b; w++, g++) {
            p->want_pair[p->slots[w].index] = p->slots[g].index;
            p->got_pair[p->slots[g].index] = p->slots[w].index;
        }
    }
}

/* Pairs the devices left, in their order on each side. */
static void pair_rest(struct pairing *p)
{
    int i, j = 0;

    for (i = 0; i < p->n_want; i++) {
        if (p->want_pair[i] >= 0)
            continue;
        while (j < p->n_got && p->got_pair[j] >= 0)
            j++;
        if (j == p->n_got)
            return;
        p->want_pair[i] = j;
        p->got_pair[j] = i;
    }
}

/* A number as the reports write it: "unknown" for -1 (no OS index, no
 * NUMA node). */
static const char *number_text(char *buf, int v)
{
    if (v < 0)
        return "unknown";
    snprintf(buf, 24, "%d", v);
    return buf;
}

/* A PCI vendor id as lspci writes it, "" for none (0). */
static const char *vendor_id_text(char *buf, int v)
{
    if (v <= 0)
        return "";
    snprintf(buf, 24, "0x%04x", (unsigned)v);
    return buf;
}

static const char *text_of(const char *s)
{
    return s != NULL ? s : "";
}

/* The fields of a pair that differ, each through fn; returns nonzero when
 * fn stopped. */
static int compare_pair(const struct meshgen_device_info *w, const struct meshgen_device_info *g,
                        struct meshgen__diff *d, meshgen__diff_fn fn, void *ctx, int *count)
{
    enum { F_OS, F_PCI, F_VENDOR, F_MODEL, F_UUID, F_NUMA, F_CPUSET, F_N };
    static const char *const names[F_N] = {"OS index", "PCI bus id", "PCI vendor id", "model",
                                           "UUID",     "NUMA node",  "cpuset"};
    int f;

    for (f = 0; f < F_N; f++) {
        d->field = names[f];
        d->quoted = f == F_MODEL;
        switch (f) {
        case F_OS:
            d->want_text = number_text(d->buf[0], w->os_index);
            d->got_text = number_text(d->buf[1], g->os_index);
            break;
        case F_PCI:
            d->want_text = text_of(w->pci);
            d->got_text = text_of(g->pci);
            break;
        case F_VENDOR:
            d->want_text = vendor_id_text(d->buf[0], w->vendor_id);
            d->got_text = vendor_id_text(d->buf[1], g->vendor_id);
            break;
        case F_MODEL:
            d->want_text = text_of(w->model);
            d->got_text = text_of(g->model);
            /* A name from pci.ids or a backend that one side lacks says
             * nothing about the device. */
            if (d->want_text[0] == '\0' || d->got_text[0] == '\0')
                continue;
            break;
        case F_UUID:
            d->want_text = text_of(w->uuid);
            d->got_text = text_of(g->uuid);
            /* A template's tables leave UUIDs out (docs/reference.md,
             * "Per-host identity"). */
            if (d->want_text[0] == '\0')
                continue;
            break;
        case F_NUMA:
            d->want_text = number_text(d->buf[0], w->numa);
            d->got_text = number_text(d->buf[1], g->numa);
            break;
        default:
            d->want_text = text_of(w->cpuset);
            d->got_text = text_of(g->cpuset);
            break;
        }
        if (strcmp(d->want_text, d->got_text) == 0)
            continue;
        ++*count;
        if (fn(ctx, d))
            return 1;
    }
    return 0;
}

/* Reports a device with no pair: missing (side 0) or extra (side 1). */
static int report_alone(int side, int index, meshgen__diff_fn fn, void *ctx, int *count)
{
    struct meshgen__diff d;

    memset(&d, 0, sizeof d);
    d.want = side == 0 ? index : -1;
    d.got = side == 1 ? index : -1;
    d.want_text = d.got_text = "";
    ++*count;
    return fn(ctx, &d);
}

int meshgen__compare_devices(int kind, const struct meshgen_device_info *want, int n_want,
                             const struct meshgen_device_info *got, int n_got, void *scratch,
                             meshgen__diff_fn fn, void *ctx)
{
    struct pairing p;
    struct meshgen__diff d;
    int i, count = 0;

    p.kind = kind;
    p.want = want;
    p.got = got;
    p.n_want = n_want > 0 ? n_want : 0;
    p.n_got = n_got > 0 ? n_got : 0;
    p.slots = scratch;
    p.want_pair = (int *)(p.slots + p.n_want + p.n_got + 1);
    p.got_pair = p.want_pair + p.n_want;
    for (i = 0; i < p.n_want; i++)
        p.want_pair[i] = -1;
    for (i = 0; i < p.n_got; i++)
        p.got_pair[i] = -1;
    pair_by(&p, 0);
    pair_by(&p, 1);
    pair_rest(&p);

    memset(&d, 0, sizeof d);
    if (p.n_want != p.n_got) {
        d.want = d.got = -1;
        d.field = "count";
        d.want_text = number_text(d.buf[0], p.n_want);
        d.got_text = number_text(d.buf[1], p.n_got);
        count++;
        if (fn(ctx, &d))
            return count;
    }
    for (i = 0; i < p.n_want; i++) {
        int j = p.want_pair[i];

        if (j < 0) {
            if (report_alone(0, i, fn, ctx, &count))
                return count;
            continue;
        }
        d.want = i;
        d.got = j;
        if (compare_pair(&want[i], &got[j], &d, fn, ctx, &count))
            return count;
    }
    for (i = 0; i < p.n_got; i++)
        if (p.got_pair[i] < 0 && report_alone(1, i, fn, ctx, &count))
            return count;
    return count;
}
