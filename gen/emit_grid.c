/*
 * The `show` emitter: the mesh as a grid of device ids in the terminal
 * (like jax.debug.visualize_sharding), under a header that gives each
 * axis's ICI x DCN split and both closeness scores. Cells are coloured by
 * host, slice or stage (--color-by) when the caller asks for colour. A
 * TPU mesh is also drawn the other way round: each slice's physical torus,
 * chip by chip, with the mesh coordinates each chip took; the slices are
 * gathered once (mg_torus_slices) for the SVG's view too. It formats the
 * resolved model and decides nothing: whether the terminal takes colour is
 * the driver's call.
 */
#include "emit_grid.h"
#include "mesh_math.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void mg_emit_torus(struct mg_buf *b, const struct mg_plan *p);

/* Background colours for hosts, slices or stages, cycling. */
static const int mg_palette[] = {44, 42, 45, 43, 46, 41, 104, 102, 105, 103, 106, 101};

void mg_grid_shape(const struct mg_plan *p, int *rows, int *cols)
{
    *cols = (int)p->size[p->n_axes - 1];
    *rows = p->n_mesh / *cols;
}

/* A host's slice, or NULL. */
static const char *mg_grid_slice(const struct mg_plan *p, int host)
{
    return p->inv->hosts[host].slice;
}

static int mg_grid_same_slice(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The raw key of a mesh position before numbering: a host index, a stage,
 * or for slices the first host (in inventory order) of the same slice,
 * found through `slice_host` (host -> that host). */
static int mg_grid_raw(const struct mg_plan *p, enum mg_color_by by, const int *slice_host,
                       int flat)
{
    int host = mg_plan_host_of(p, mg_plan_mesh_at(p, flat), NULL);

    if (by == MG_COLOR_BY_STAGE)
        return mg_stage_of(p, flat);
    return by == MG_COLOR_BY_SLICE ? slice_host[host] : host;
}

struct mg_grid_host {
    const char *slice;
    int host;
};

static int mg_grid_by_slice(const void *x, const void *y)
{
    const struct mg_grid_host *a = x, *b = y;
    int c = !a->slice || !b->slice ? (a->slice != NULL) - (b->slice != NULL)
                                   : strcmp(a->slice, b->slice);
    return c ? c : a->host - b->host;
}

/* host -> the first host of its slice (hosts without a slice together):
 * a sort by slice name, so that a million hosts cost n log n. */
static int *mg_grid_slice_hosts(const struct mg_plan *p)
{
    int n = p->inv->n_hosts, i, *first;
    struct mg_grid_host *order;

    order = malloc((size_t)n * sizeof *order);
    first = malloc((size_t)n * sizeof *first);
    if (!order || !first)
        mg_oom();
    for (i = 0; i < n; i++) {
        order[i].slice = mg_grid_slice(p, i);
        order[i].host = i;
    }
    qsort(order, (size_t)n, sizeof *order, mg_grid_by_slice);
    for (i = 0; i < n; i++)
        first[order[i].host] = i > 0 && mg_grid_same_slice(order[i].slice, order[i - 1].slice)
                                   ? first[order[i - 1].host]
                                   : order[i].host;
    free(order);
    return first;
}

/* ---- the colour keys ---------------------------------------------------------- */

static char *mg_grid_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);

    if (!d)
        mg_oom();
    return memcpy(d, s, n);
}

int mg_natural_cmp(const char *a, const char *b)
{
    const char *x = a, *y = b;

    while (*x && *y) {
        if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
            size_t nx = 0, ny = 0;
            int c;
            while (*x == '0')
                x++;
            while (*y == '0')
                y++;
            while (isdigit((unsigned char)x[nx]))
                nx++;
            while (isdigit((unsigned char)y[ny]))
                ny++;
            if (nx != ny)
                return nx < ny ? -1 : 1;
            if ((c = memcmp(x, y, nx)) != 0)
                return c;
            x += nx;
            y += ny;
            continue;
        }
        if (*x != *y)
            return (unsigned char)*x - (unsigned char)*y;
        x++;
        y++;
    }
    if (*x || *y)
        return *x ? 1 : -1;
    return strcmp(a, b); /* "n01" and "n1": equal values, kept apart */
}

/* The name of the raw key at mesh position flat, on the heap. */
static char *mg_grid_raw_name(const struct mg_plan *p, enum mg_color_by by, int flat)
{
    int host = mg_plan_host_of(p, mg_plan_mesh_at(p, flat), NULL);
    char buf[32];

    if (by == MG_COLOR_BY_STAGE) {
        snprintf(buf, sizeof buf, "stage %d", mg_stage_of(p, flat));
        return mg_grid_strdup(buf);
    }
    if (by == MG_COLOR_BY_SLICE)
        return mg_grid_strdup(mg_grid_slice(p, host) ? mg_grid_slice(p, host) : "(no slice)");
    return mg_grid_strdup(p->inv->hosts[host].name);
}

/* The distinct hosts the mesh uses. */
static int mg_grid_count_hosts(const struct mg_plan *p)
{
    unsigned char *seen = calloc((size_t)p->inv->n_hosts, 1);
    int i, n = 0;

    if (!seen)
        mg_oom();
    for (i = 0; i < p->n_mesh; i++) {
        int host = mg_plan_host_of(p, mg_plan_mesh_at(p, i), NULL);
        n += !seen[host];
        seen[host] = 1;
    }
    free(seen);
    return n;
}

/* Too many raw keys: MG_GRID_RUNS runs of them in process order (the
 * order of their values: host indices, first hosts of slices, stages).
 * number[raw] becomes the run; pos[raw] is a position that has it. */
static void mg_grid_runs(struct mg_grid_keys *k, const struct mg_plan *p, int *number,
                         const int *pos, int space)
{
    int lo[MG_GRID_RUNS], hi[MG_GRID_RUNS], count[MG_GRID_RUNS] = {0}, raw, rank = 0, r;

    k->runs = 1;
    k->n = MG_GRID_RUNS;
    for (raw = 0; raw < space; raw++) {
        if (number[raw] < 0)
            continue;
        r = (int)((int64_t)rank++ * MG_GRID_RUNS / k->n_raw);
        if (!count[r]++)
            lo[r] = pos[raw];
        hi[r] = pos[raw];
        number[raw] = r;
    }
    k->names = malloc(MG_GRID_RUNS * sizeof *k->names);
    if (!k->names)
        mg_oom();
    for (r = 0; r < MG_GRID_RUNS; r++) {
        char *a = mg_grid_raw_name(p, k->by, lo[r]), *b = mg_grid_raw_name(p, k->by, hi[r]);
        size_t n = strlen(a) + strlen(b) + 48;
        char *name = malloc(n);
        if (!name)
            mg_oom();
        snprintf(name, n, "%s \xe2\x80\xa6 %s (%d %s)", a, b, count[r], mg_grid_keys_noun(k));
        k->names[r] = name;
        free(a);
        free(b);
    }
}

static int mg_grid_by_name(const void *x, const void *y)
{
    const struct mg_named *a = x, *b = y;
    return mg_named_order(mg_natural_cmp(a->name, b->name), a, b);
}

/* The legend's order: keys by name; runs as they come (process order). */
static void mg_grid_order(struct mg_grid_keys *k)
{
    struct mg_named *t = malloc((size_t)k->n * sizeof *t);
    int i;

    k->order = malloc((size_t)k->n * sizeof *k->order);
    if (!t || !k->order)
        mg_oom();
    for (i = 0; i < k->n; i++) {
        t[i].name = k->names[i];
        t[i].index = (size_t)i;
    }
    if (!k->runs)
        qsort(t, (size_t)k->n, sizeof *t, mg_grid_by_name);
    for (i = 0; i < k->n; i++)
        k->order[i] = (int)t[i].index;
    free(t);
}

void mg_grid_keys_init(struct mg_grid_keys *k, const struct mg_plan *p, enum mg_color_by by)
{
    int space = p->inv->n_hosts > p->n_mesh ? p->inv->n_hosts : p->n_mesh, i;
    int *number = malloc((size_t)space * sizeof *number),
        *pos = malloc((size_t)space * sizeof *pos);
    int *slice_host;

    memset(k, 0, sizeof *k);
    k->n_hosts = mg_grid_count_hosts(p);
    if (by == MG_COLOR_BY_HOST && k->n_hosts > MG_GRID_KEYS_MAX && p->granule == MG_GRANULE_SLICE)
        by = MG_COLOR_BY_SLICE, k->coarsened = 1;
    k->by = by;
    slice_host = by == MG_COLOR_BY_SLICE ? mg_grid_slice_hosts(p) : NULL;
    k->of = malloc((size_t)p->n_mesh * sizeof *k->of);
    if (!number || !pos || !k->of)
        mg_oom();
    for (i = 0; i < space; i++)
        number[i] = -1;
    for (i = 0; i < p->n_mesh; i++) {
        int raw = k->of[i] = mg_grid_raw(p, by, slice_host, i);
        if (number[raw] < 0) {
            pos[raw] = i;
            number[raw] = k->n_raw++;
        }
    }
    if (k->n_raw > MG_GRID_KEYS_MAX) {
        mg_grid_runs(k, p, number, pos, space);
    } else {
        k->n = k->n_raw;
        k->names = malloc((size_t)k->n * sizeof *k->names);
        if (!k->names)
            mg_oom();
        for (i = 0; i < space; i++)
            if (number[i] >= 0)
                k->names[number[i]] = mg_grid_raw_name(p, by, pos[i]);
    }
    for (i = 0; i < p->n_mesh; i++)
        k->of[i] = number[k->of[i]];
    mg_grid_order(k);
    free(number);
    free(pos);
    free(slice_host);
}

void mg_grid_keys_free(struct mg_grid_keys *k)
{
    int i;

    for (i = 0; k->names && i < k->n; i++)
        free((char *)k->names[i]);
    free(k->names);
    free(k->order);
    free(k->of);
    memset(k, 0, sizeof *k);
}

const char *mg_grid_keys_noun(const struct mg_grid_keys *k)
{
    return k->by == MG_COLOR_BY_STAGE ? "stages" : k->by == MG_COLOR_BY_SLICE ? "slices" : "hosts";
}

static void mg_grid_header(struct mg_buf *b, const struct mg_plan *p)
{
    int n_hosts = p->inv->n_hosts, i;

    mg_buf_printf(b, "mesh '%s': ", p->name);
    for (i = 0; i < p->n_axes; i++)
        mg_buf_printf(b, "%s%s=%lld (ici %lld x dcn %lld)", i ? ", " : "", p->axis_names[i],
                      (long long)p->size[i], (long long)p->ici[i], (long long)p->dcn[i]);
    mg_buf_printf(b,
                  "\n%d %s devices on %d host%s; order %s, closeness score %lld (inventory "
                  "order %lld)\n",
                  p->n_mesh, mg_kind_name(p->kind), n_hosts, n_hosts == 1 ? "" : "s",
                  mg_word(&mg_order_words, p->order), (long long)p->score,
                  (long long)p->score_inventory);
    mg_buf_printf(b, "rows: ");
    if (p->n_axes == 1)
        mg_buf_puts(b, "-");
    for (i = 0; i + 1 < p->n_axes; i++)
        mg_buf_printf(b, "%s%s", i ? " x " : "", p->axis_names[i]);
    mg_buf_printf(b, "; columns: %s; cells: device id%s\n\n", p->axis_names[p->n_axes - 1],
                  n_hosts > 1 ? "@host (the hosts are named below)" : "");
}

/* What a terminal shows of the grid: past these, the first rows and
 * columns and a note (resolve gives every device, --svg the whole mesh),
 * so that a million devices print a few hundred KB, not 13.6 MB. */
#define MG_GRID_MAX_ROWS 1000
#define MG_GRID_MAX_COLS 64
/* Host names listed under the grid, at most. */
#define MG_GRID_MAX_NAMES 512

static int mg_grid_digits(int v)
{
    int n = 1;
    for (; v >= 10; v /= 10)
        n++;
    return n;
}

static void mg_grid_color(struct mg_buf *b, const struct mg_grid_keys *k, int color, int flat)
{
    if (color)
        mg_buf_printf(b, "\033[30;%dm", mg_palette[k->of[flat] % 12]);
}

/* The rows and columns shown, each cell "id@host" (the host's index,
 * named under the grid) or "id" on one host; seen[host] receives a
 * position of each host shown, plus one (0: not shown). */
static void mg_grid_cells(struct mg_buf *b, const struct mg_plan *p, const struct mg_grid_keys *k,
                          int color, int *seen)
{
    int rows, cols, i, j, width = mg_grid_digits(p->n_devices);
    int hwidth = mg_grid_digits(p->inv->n_hosts - 1);

    mg_grid_shape(p, &rows, &cols);
    for (i = 0; i < rows && i < MG_GRID_MAX_ROWS; i++) {
        for (j = 0; j < cols && j < MG_GRID_MAX_COLS; j++) {
            int flat = i * cols + j, dev = mg_plan_mesh_at(p, flat);
            int host = mg_plan_host_of(p, dev, NULL);
            mg_grid_color(b, k, color, flat);
            if (p->inv->n_hosts > 1)
                mg_buf_printf(b, " %*d@%-*d ", width, dev, hwidth, host);
            else
                mg_buf_printf(b, " %*d ", width, dev);
            if (color)
                mg_buf_puts(b, "\033[0m");
            if (!seen[host])
                seen[host] = flat + 1;
        }
        mg_buf_puts(b, cols > MG_GRID_MAX_COLS ? " ...\n" : "\n");
    }
    if (rows > MG_GRID_MAX_ROWS || cols > MG_GRID_MAX_COLS)
        mg_buf_printf(b,
                      "(shown: rows 0-%d of %d, columns 0-%d of %d; meshgen resolve lists every "
                      "device, --svg draws the whole mesh)\n",
                      (rows < MG_GRID_MAX_ROWS ? rows : MG_GRID_MAX_ROWS) - 1, rows,
                      (cols < MG_GRID_MAX_COLS ? cols : MG_GRID_MAX_COLS) - 1, cols);
}

/* The names of the hosts the cells show, "@3 node004", in index order,
 * wrapped at about 100 columns. */
static void mg_grid_host_names(struct mg_buf *b, const struct mg_plan *p,
                               const struct mg_grid_keys *k, int color, const int *seen)
{
    int h, listed = 0, shown = 0, at = 0;

    for (h = 0; h < p->inv->n_hosts; h++)
        shown += seen[h] != 0;
    mg_buf_puts(b, "\nhosts:");
    at = 6;
    for (h = 0; h < p->inv->n_hosts && listed < MG_GRID_MAX_NAMES; h++) {
        const char *name = p->inv->hosts[h].name;
        size_t len = strlen(name) + (size_t)mg_grid_digits(h) + 3;
        if (!seen[h])
            continue;
        if (at > 6 && at + len > 100) {
            mg_buf_puts(b, "\n      ");
            at = 6;
        }
        mg_buf_puts(b, "  ");
        mg_grid_color(b, k, color && k->by == MG_COLOR_BY_HOST, seen[h] - 1);
        mg_buf_printf(b, "@%d %s", h, name);
        if (color && k->by == MG_COLOR_BY_HOST)
            mg_buf_puts(b, "\033[0m");
        at += (int)len;
        listed++;
    }
    if (shown > listed)
        mg_buf_printf(b, "\n        ... and %d more (meshgen resolve lists every host)",
                      shown - listed);
    mg_buf_puts(b, "\n");
}

void mg_emit_grid(struct mg_buf *b, const struct mg_plan *p, int color, enum mg_color_by by)
{
    struct mg_grid_keys keys;
    int *seen = calloc((size_t)p->inv->n_hosts, sizeof *seen);

    if (!seen)
        mg_oom();
    mg_grid_keys_init(&keys, p, by);
    mg_grid_header(b, p);
    if (color && (keys.runs || keys.coarsened)) {
        mg_buf_printf(b, "colours: %s", mg_word(&mg_color_by_words, (int)keys.by));
        if (keys.coarsened)
            mg_buf_puts(b, " (too many hosts for a colour each)");
        if (keys.runs)
            mg_buf_printf(b, ", in %d runs of consecutive %s", keys.n, mg_grid_keys_noun(&keys));
        mg_buf_puts(b, "\n\n");
    }
    mg_grid_cells(b, p, &keys, color, seen);
    if (p->inv->n_hosts > 1)
        mg_grid_host_names(b, p, &keys, color, seen);
    free(seen);
    mg_grid_keys_free(&keys);
    mg_emit_torus(b, p);
}

/* ---- TPU: the physical torus next to the logical mesh ------------------------------ */

/* Inventories of up to this many devices of the kind get the physical
 * drawing: beyond it the planes no longer fit a terminal, and each slice
 * drawn scans every device. */
#define MG_TORUS_DRAW_MAX 4096

/* The mesh coordinates of position flat, "a,b,c", or "-" for none. */
static void mg_torus_cell(struct mg_buf *cell, const struct mg_plan *p, int flat)
{
    int k;

    if (flat < 0) {
        mg_buf_puts(cell, "-");
        return;
    }
    for (k = 0; k < p->n_axes; k++) {
        if (k)
            mg_buf_put(cell, ",", 1);
        mg_buf_int(cell, mg_rm_coord(p->size, p->n_axes, flat, k));
    }
}

/* The devices of the chip at `chip`, cores joined by '|'. at[chip * cores
 * + core] is the mesh position there, or -1. */
static void mg_torus_chip(struct mg_buf *cell, const struct mg_plan *p, int chip, int cores,
                          const int *at)
{
    int c;

    cell->len = 0;
    for (c = 0; c < cores; c++) {
        if (c)
            mg_buf_put(cell, "|", 1);
        mg_torus_cell(cell, p, at[chip * cores + c]);
    }
    mg_buf_put(cell, "", 0);
}

/* One slice: for every z a plane of y rows and x columns, each chip
 * showing the mesh coordinates its devices took. */
static void mg_torus_slice(struct mg_buf *b, const struct mg_plan *p, const int *dims, int cores,
                           const int *at)
{
    int n_chips = dims[0] * dims[1] * dims[2], chip, width = 1;
    struct mg_buf cell;

    mg_buf_init(&cell);
    /* The widest cell first, so that the columns line up. */
    for (chip = 0; chip < n_chips; chip++) {
        mg_torus_chip(&cell, p, chip, cores, at);
        width = (int)cell.len > width ? (int)cell.len : width;
    }
    for (chip = 0; chip < n_chips; chip++) {
        int x = chip % dims[0], y = chip / dims[0] % dims[1];
        if (x == 0 && y == 0)
            mg_buf_printf(b, "  z=%d\n", chip / (dims[0] * dims[1]));
        mg_torus_chip(&cell, p, chip, cores, at);
        mg_buf_printf(b, "%s%*s%s", x ? "  " : "    ", width, cell.data,
                      x + 1 == dims[0] ? "\n" : "");
    }
    mg_buf_free(&cell);
}

/* The slice that host h's devices are on: a new one after the previous
 * TPU host (slices are host groups, their hosts consecutive) when the name
 * differs. Returns its index in s, growing s by one for a new slice. */
static int mg_torus_slice_of(const struct mg_plan *p, int h, struct mg_torus_slice **s, int *n,
                             int *cap)
{
    const struct mg_host *host = &p->inv->hosts[h];
    const struct mg_topology *t = &p->inv->topologies[host->topology];
    struct mg_torus_slice *e;
    int i, n_at;

    if (*n > 0 && mg_grid_same_slice((*s)[*n - 1].name, host->slice))
        return *n - 1;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        *s = realloc(*s, (size_t)*cap * sizeof **s);
        if (!*s)
            mg_oom();
    }
    e = &(*s)[(*n)++];
    e->name = host->slice ? host->slice : host->name;
    e->tpu = t->tpu;
    memcpy(e->dims, t->tpu_dims, sizeof e->dims);
    memcpy(e->wrap, t->tpu_wrap, sizeof e->wrap);
    e->cores = t->tpu->devices_per_chip;
    n_at = e->dims[0] * e->dims[1] * e->dims[2] * e->cores;
    e->at = malloc((size_t)n_at * sizeof *e->at);
    if (!e->at)
        mg_oom();
    for (i = 0; i < n_at; i++)
        e->at[i] = -1;
    return *n - 1;
}

int mg_torus_slices(const struct mg_plan *p, struct mg_torus_slice **out)
{
    const struct mg_inventory *inv = p->inv;
    struct mg_torus_slice *s = NULL;
    int n = 0, cap = 0, i, k = 0, last_host = -1, used;

    *out = NULL;
    if (p->kind != MG_KIND_TPU)
        return 0;
    for (i = 0; i < p->n_devices; i++) {
        int local, host = mg_plan_host_of(p, i, &local);
        const struct mg_topology *t = &inv->topologies[inv->hosts[host].topology];
        const struct mg_devinfo *dv = &t->devs[MG_KIND_TPU][local];
        struct mg_torus_slice *e;
        if (!t->tpu)
            continue;
        if (host != last_host)
            k = mg_torus_slice_of(p, host, &s, &n, &cap);
        last_host = host;
        e = &s[k];
        e->at[(dv->coords[0] + e->dims[0] * (dv->coords[1] + e->dims[1] * dv->coords[2])) *
                  e->cores +
              dv->core_on_chip] = mg_plan_index_of(p, i);
    }
    /* Only the slices the mesh uses. */
    for (i = k = 0; i < n; i++) {
        int j, n_at = s[i].dims[0] * s[i].dims[1] * s[i].dims[2] * s[i].cores;
        for (j = used = 0; j < n_at && !used; j++)
            used = s[i].at[j] >= 0;
        if (used)
            s[k++] = s[i];
        else
            free(s[i].at);
    }
    *out = s;
    return k;
}

void mg_torus_slices_free(struct mg_torus_slice *s, int n)
{
    int i;

    for (i = 0; i < n; i++)
        free(s[i].at);
    free(s);
}

static void mg_emit_torus(struct mg_buf *b, const struct mg_plan *p)
{
    struct mg_torus_slice *s;
    int n, g, i;

    if (p->kind != MG_KIND_TPU || p->n_devices > MG_TORUS_DRAW_MAX)
        return;
    n = mg_torus_slices(p, &s);
    for (g = 0; g < n; g++) {
        mg_buf_printf(b, "\nphysical torus of %s (%s %dx%d", s[g].name, s[g].tpu->name,
                      s[g].dims[0], s[g].dims[1]);
        if (s[g].tpu->topology_dims == 3)
            mg_buf_printf(b, "x%d", s[g].dims[2]);
        mg_buf_puts(b, "): rows y, columns x, one plane per z; cells: mesh coordinates (");
        for (i = 0; i < p->n_axes; i++)
            mg_buf_printf(b, "%s%s", i ? "," : "", p->axis_names[i]);
        mg_buf_printf(b, ")%s\n", s[g].cores > 1 ? " of each core, '|' between them" : "");
        mg_torus_slice(b, p, s[g].dims, s[g].cores, s[g].at);
    }
    mg_torus_slices_free(s, n);
}
