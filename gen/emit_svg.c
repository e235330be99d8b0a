/*
 * The `show --svg` emitter: the grid of emit_grid.c as an SVG picture that
 * a browser opens at any size. A title and the axis sizes head it; rows
 * (all axes but the last) are labelled by their coordinates at the left,
 * columns (the last axis) above; a legend at the right names the colour
 * keys (--color-by: host, slice or stage). Up to 4096 positions each is a
 * square with its device id and host name (names longer than a square are
 * abbreviated; every square's <title> tooltip gives the full name, the
 * device and its coordinates). Past that the grid is drawn in at most
 * 64 x 64 blocks of positions, each coloured by its first position's key
 * (paler when it holds several) with a tooltip naming its rows, columns,
 * first and last device and hosts: a million devices give a picture of
 * about 130 KB, not hundreds of megabytes. A TPU mesh goes on
 * below the grid with its physical view (docs/tpu.md §5): each slice's
 * chips at their (x, y, z), one x-y plane per z side by side, coloured by
 * the same keys and labelled with their devices' mesh coordinates, with
 * the links between neighbours and dashed wraparound links along the
 * dimensions the inventory marks as wrapping; past 4096 chips, blocks of
 * chips. Other meshes' pictures hold the grid alone. Every name is
 * XML-escaped, so no name can break the document. It formats the resolved
 * model and knows nothing of files.
 */
#include "emit_grid.h"
#include "mesh_math.h"

#include <stdlib.h>
#include <string.h>

/* A qualitative palette of 16 colours (docs/reference.md, "show"): Tableau
 * 10 without its grey, then seven more, each chosen as far as it could be
 * from those before it. No two are closer than CIEDE2000 18 (the closest,
 * #c0d8a0 and #28e8b0, 18.0), none is closer than 20 to the white
 * background or to the grey of an unused chip, and black text on each has
 * a WCAG contrast of at least 4.5:1 (tests/tools/svg_check.py measures
 * all three). Neighbouring keys take neighbouring entries, which differ
 * in hue. Tableau 20, used before, held pairs 2.6 apart. */
static const char *const mg_svg_fill[] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#908000", "#a8b0f8", "#38b8f8", "#c0d8a0", "#f8b0f8", "#008878", "#28e8b0"};
#define MG_SVG_N_FILLS 16

#define MG_SVG_MAX_CELLS 4096  /* squares, one a device, before blocks */
#define MG_SVG_MAX_SIDE 64     /* blocks a side */
#define MG_SVG_CELL 56         /* a device's square */
#define MG_SVG_BLOCK 14        /* a block's square */
#define MG_SVG_PAD 12          /* the margin */
#define MG_SVG_CHAR 7          /* the width of a character at font-size 12 (monospace) */
#define MG_SVG_CELL_CHARS 9    /* host name characters a square holds (font-size 9) */
#define MG_SVG_LEGEND_CHARS 36 /* name characters a legend entry shows */
#define MG_SVG_LEGEND_MAX 32   /* legend entries before "and N more" */
#define MG_SVG_LEGEND_ROW 18

/* The picture's geometry. */
struct mg_svg {
    const struct mg_plan *p;
    const struct mg_grid_keys *keys;
    int rows, cols;   /* the mesh grid */
    int brows, bcols; /* squares drawn: the grid, or its blocks */
    int side;         /* a square's side */
    int gx, gy;       /* the grid's top left corner */
    int legend_x;
    int width, height;
    int n_slices; /* TPU slices drawn chip by chip below the grid */
};

/* Text content or an attribute value, escaped by the one escaper
 * (escape.h, MG_ESC_XML): what XML 1.0 cannot hold as '?', and
 * bytes that are not UTF-8 as U+FFFD, so the picture always parses. */
static void mg_svg_text(struct mg_buf *b, const char *s)
{
    mg_escape(b, MG_ESC_XML, s);
}

/* Characters (UTF-8 code points) of s. */
static int mg_svg_chars(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The byte offset of code point i of s. */
static size_t mg_svg_offset(const char *s, int i)
{
    size_t at;
    int seen = 0;

    for (at = 0; s[at]; at++)
        if (((unsigned char)s[at] & 0xC0) != 0x80 && seen++ == i)
            return at;
    return at;
}

/* s, escaped, in at most max characters: a longer name keeps its head and,
 * longer, its tail (where host numbers are) around an ellipsis. */
static void mg_svg_abbrev(struct mg_buf *b, const char *s, int max)
{
    struct mg_buf cut;
    int n = mg_svg_chars(s), head = (max - 1) * 3 / 8;

    if (n <= max) {
        mg_svg_text(b, s);
        return;
    }
    mg_buf_init(&cut);
    mg_buf_put(&cut, s, mg_svg_offset(s, head));
    mg_buf_puts(&cut, "\xe2\x80\xa6"); /* U+2026 HORIZONTAL ELLIPSIS */
    mg_buf_puts(&cut, s + mg_svg_offset(s, n - (max - 1 - head)));
    mg_svg_text(b, cut.data);
    mg_buf_free(&cut);
}

/* The coordinates of grid row r ("0,1"): the axes but the last. */
static void mg_svg_row_coords(struct mg_buf *b, const struct mg_plan *p, int r)
{
    int64_t c[MG_MAX_AXES];
    int k;

    for (k = p->n_axes - 2; k >= 0; k--) {
        c[k] = r % p->size[k];
        r = (int)(r / p->size[k]);
    }
    for (k = 0; k + 1 < p->n_axes; k++)
        mg_buf_printf(b, "%s%lld", k ? "," : "", (long long)c[k]);
}

/* "dp=0 fsdp=1 tp=2" of a mesh position. */
static void mg_svg_coords(struct mg_buf *b, const struct mg_plan *p, int flat)
{
    int64_t c[MG_MAX_AXES];
    int k, rest = flat;

    for (k = p->n_axes - 1; k >= 0; k--) {
        c[k] = rest % p->size[k];
        rest = (int)(rest / p->size[k]);
    }
    for (k = 0; k < p->n_axes; k++)
        mg_buf_printf(b, "%s%s=%lld", k ? " " : "", p->axis_names[k], (long long)c[k]);
}

/* First grid row or column of block i of n over len. */
static int mg_svg_span(int i, int n, int len)
{
    return (int)((int64_t)i * len / n);
}

static const char *mg_svg_fill_of(const struct mg_svg *g, int flat)
{
    return mg_svg_fill[g->keys->of[flat] % MG_SVG_N_FILLS];
}

/* One position: its square, device id, host name and tooltip. */
static void mg_svg_cell(struct mg_buf *b, const struct mg_svg *g, int i, int j)
{
    const struct mg_plan *p = g->p;
    int flat = i * g->cols + j, dev = mg_plan_mesh_at(p, flat), x = g->gx + j * g->side;
    int y = g->gy + i * g->side, mid = x + g->side / 2;
    const struct mg_host *h = &p->inv->hosts[mg_plan_host_of(p, dev, NULL)];

    mg_buf_printf(b, "<g><title>device %d on host ", dev);
    mg_svg_text(b, h->name);
    if (h->slice) {
        mg_buf_puts(b, ", slice ");
        mg_svg_text(b, h->slice);
    }
    mg_buf_puts(b, "; ");
    mg_svg_coords(b, p, flat);
    mg_buf_printf(b,
                  "</title><rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                  "fill=\"%s\" stroke=\"white\"/>",
                  x, y, g->side, g->side, mg_svg_fill_of(g, flat));
    mg_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>", mid,
                  y + g->side / 2, dev);
    mg_buf_printf(b,
                  "<text class=\"host\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\">",
                  mid, y + g->side / 2 + 14);
    mg_svg_abbrev(b, h->name, MG_SVG_CELL_CHARS);
    mg_buf_puts(b, "</text></g>\n");
}

/* One block of positions: rows r0..r1-1, columns c0..c1-1. stamp (host ->
 * the last block that met it) counts the hosts in it. */
static void mg_svg_block(struct mg_buf *b, const struct mg_svg *g, int bi, int bj, int *stamp)
{
    const struct mg_plan *p = g->p;
    int r0 = mg_svg_span(bi, g->brows, g->rows), r1 = mg_svg_span(bi + 1, g->brows, g->rows);
    int c0 = mg_svg_span(bj, g->bcols, g->cols), c1 = mg_svg_span(bj + 1, g->bcols, g->cols);
    int first = r0 * g->cols + c0, id = bi * g->bcols + bj, n_hosts = 0, mixed = 0, r, c;
    int last = (r1 - 1) * g->cols + c1 - 1;

    for (r = r0; r < r1; r++)
        for (c = c0; c < c1; c++) {
            int flat = r * g->cols + c, host = mg_plan_host_of(p, mg_plan_mesh_at(p, flat), NULL);
            mixed |= g->keys->of[flat] != g->keys->of[first];
            n_hosts += stamp[host] != id;
            stamp[host] = id;
        }
    mg_buf_printf(
        b,
        "<rect class=\"block\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s "
        "stroke=\"white\" stroke-width=\"0.5\"><title>rows %d-%d, columns %d-%d: %d "
        "devices (%d..%d) on %d host%s, ",
        g->gx + bj * g->side, g->gy + bi * g->side, g->side, g->side, mg_svg_fill_of(g, first),
        mixed ? " fill-opacity=\"0.55\"" : "", r0, r1 - 1, c0, c1 - 1, (r1 - r0) * (c1 - c0),
        mg_plan_mesh_at(p, first), mg_plan_mesh_at(p, last), n_hosts, n_hosts == 1 ? "" : "s");
    mg_svg_text(b, p->inv->hosts[mg_plan_host_of(p, mg_plan_mesh_at(p, first), NULL)].name);
    if (n_hosts > 1) {
        mg_buf_puts(b, " ... ");
        mg_svg_text(b, p->inv->hosts[mg_plan_host_of(p, mg_plan_mesh_at(p, last), NULL)].name);
    }
    mg_buf_puts(b, "</title></rect>\n");
}

/* The labels of the rows (coordinates at the left) and of the columns
 * (indices above), each block labelled by its first row or column. */
static void mg_svg_axis_labels(struct mg_buf *b, const struct mg_svg *g)
{
    const struct mg_plan *p = g->p;
    int i, step, digits = 1;

    /* Column numbers no closer than their width. */
    for (i = g->cols - 1; i >= 10; i /= 10)
        digits++;
    step = (digits * 6 + 6 + g->side - 1) / g->side;

    mg_buf_printf(b, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
                  g->gx + g->bcols * g->side / 2, g->gy - 22);
    mg_svg_text(b, p->axis_names[p->n_axes - 1]);
    mg_buf_puts(b, " (columns)</text>\n");
    for (i = 0; i < g->bcols; i += step)
        mg_buf_printf(
            b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%d</text>\n",
            g->gx + i * g->side + g->side / 2, g->gy - 6, mg_svg_span(i, g->bcols, g->cols));
    if (p->n_axes < 2)
        return;
    mg_buf_printf(b, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", g->gx - 6,
                  g->gy - 6);
    for (i = 0; i + 1 < p->n_axes; i++) {
        mg_buf_puts(b, i ? "," : "");
        mg_svg_text(b, p->axis_names[i]);
    }
    mg_buf_puts(b, "</text>\n");
    for (i = 0; i < g->brows; i++) {
        mg_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\">", g->gx - 6,
                      g->gy + i * g->side + g->side / 2 + 4);
        mg_svg_row_coords(b, p, mg_svg_span(i, g->brows, g->rows));
        mg_buf_puts(b, "</text>\n");
    }
}

/* The legend: a swatch and a name per key, by name, at most
 * MG_SVG_LEGEND_MAX; its heading says what the keys are. */
static void mg_svg_legend(struct mg_buf *b, const struct mg_svg *g)
{
    const struct mg_grid_keys *k = g->keys;
    int i, shown = k->n < MG_SVG_LEGEND_MAX ? k->n : MG_SVG_LEGEND_MAX;

    mg_buf_printf(b, "<g class=\"legend\"><text class=\"axis\" x=\"%d\" y=\"%d\">%s%s</text>\n",
                  g->legend_x, g->gy - 6, mg_word(&mg_color_by_words, (int)k->by),
                  k->runs ? " runs" : "");
    for (i = 0; i < shown; i++) {
        int key = k->order[i], y = g->gy + i * MG_SVG_LEGEND_ROW;
        mg_buf_printf(b, "<g><title>");
        mg_svg_text(b, k->names[key]);
        mg_buf_printf(b,
                      "</title><rect class=\"swatch\" x=\"%d\" y=\"%d\" width=\"12\" "
                      "height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                      g->legend_x, y, mg_svg_fill[key % MG_SVG_N_FILLS], g->legend_x + 18, y + 11);
        mg_svg_abbrev(b, k->names[key], MG_SVG_LEGEND_CHARS);
        mg_buf_puts(b, "</text></g>\n");
    }
    if (k->n > shown)
        mg_buf_printf(b, "<text x=\"%d\" y=\"%d\">and %d more</text>\n", g->legend_x,
                      g->gy + shown * MG_SVG_LEGEND_ROW + 11, k->n - shown);
    mg_buf_puts(b, "</g>\n");
}

/* ---- TPU: each slice's chips at their coordinates ------------------------ */

#define MG_SVG_TORUS_SLICES 16  /* slices drawn; the rest are named by count */
#define MG_SVG_TORUS_PLANES 16  /* planes of chips before blocks */
#define MG_SVG_CHIP 56          /* a chip's square */
#define MG_SVG_CHIP_GAP 20      /* between chips: the links, and the wraparound lanes */
#define MG_SVG_TBLOCK_GAP 8     /* between blocks of chips */
#define MG_SVG_PLANE_GAP 44     /* between planes: the next plane's y indices */
#define MG_SVG_SLICE_HEAD 72    /* a slice's top to its first row of chips */
#define MG_SVG_CHIP_CHARS 8     /* label characters a chip holds (font-size 10) */
#define MG_SVG_UNUSED "#e0e0e0" /* a chip the mesh does not use */

/* The physical view: the slices drawn, chip by chip while they hold at
 * most MG_SVG_MAX_CELLS chips in all and MG_SVG_TORUS_PLANES planes each,
 * else in blocks of chips like the grid's. */
struct mg_svg_torus {
    struct mg_torus_slice *s;
    int n, shown;
    int blocks;    /* blocks of chips, not chips */
    int budget;    /* blocks a slice may take */
    int side, gap; /* a square and the room between squares */
    int top;       /* the section's top */
    int width, height;
};

/* One slice's geometry: the squares along x, y and z (chips, or blocks
 * of chips), each plane's size, and where it is. */
struct mg_svg_slice {
    const struct mg_torus_slice *s;
    int n[3];
    int pw, ph; /* a plane's width and height */
    int x0, y0; /* the first plane's left, the slice's top */
    int ty;     /* the first row's top */
    bool wrap[3];
};

static void mg_svg_slice_geometry(const struct mg_svg_torus *v, const struct mg_torus_slice *s,
                                  int y0, struct mg_svg_slice *o)
{
    int k, big;

    o->s = s;
    memcpy(o->n, s->dims, sizeof o->n);
    if (v->blocks) {
        /* Halve the longest side until the blocks fit the slice's share. */
        o->n[2] = o->n[2] < MG_SVG_TORUS_PLANES ? o->n[2] : MG_SVG_TORUS_PLANES;
        while ((int64_t)o->n[0] * o->n[1] * o->n[2] > v->budget) {
            for (big = 0, k = 1; k < 3; k++)
                big = o->n[k] > o->n[big] ? k : big;
            o->n[big] = (o->n[big] + 1) / 2;
        }
    }
    o->pw = o->n[0] * v->side + (o->n[0] - 1) * v->gap;
    o->ph = o->n[1] * v->side + (o->n[1] - 1) * v->gap;
    o->x0 = MG_SVG_PAD + 24;
    o->y0 = y0;
    o->ty = y0 + MG_SVG_SLICE_HEAD;
    memcpy(o->wrap, s->wrap, sizeof o->wrap);
}

/* The height a slice takes, its wraparound lane below included. */
static int mg_svg_slice_height(const struct mg_svg_slice *o)
{
    return MG_SVG_SLICE_HEAD + o->ph + 28;
}

static int mg_svg_plane_x(const struct mg_svg_slice *o, int k)
{
    return o->x0 + k * (o->pw + MG_SVG_PLANE_GAP);
}

/* The physical view's heading, escaped: how to read it. */
static void mg_svg_torus_heading(struct mg_buf *b, const struct mg_plan *p,
                                 const struct mg_svg_torus *v)
{
    int i;

    mg_buf_puts(b, "each TPU slice chip by chip: one plane per z, rows y, columns x; a chip "
                   "shows the mesh coordinates (");
    for (i = 0; i < p->n_axes; i++) {
        mg_buf_puts(b, i ? "," : "");
        mg_svg_text(b, p->axis_names[i]);
    }
    mg_buf_printf(b, ") of its device%s; dashed: wraparound links",
                  v->s[0].cores > 1 ? "s, a line a core" : "");
}

/* A slice's heading, escaped: its name, family and topology, the blocks
 * it is drawn in, and the dimensions that wrap around. */
static void mg_svg_slice_title(struct mg_buf *b, const struct mg_svg_slice *o)
{
    static const char *const dim = "xyz";
    int k, n = 0;

    mg_svg_text(b, o->s->name);
    mg_buf_printf(b, ": %s %dx%d", o->s->tpu->name, o->s->dims[0], o->s->dims[1]);
    if (o->s->tpu->topology_dims == 3)
        mg_buf_printf(b, "x%d", o->s->dims[2]);
    if (o->n[0] != o->s->dims[0] || o->n[1] != o->s->dims[1] || o->n[2] != o->s->dims[2])
        mg_buf_printf(
            b, " in blocks of up to %dx%dx%d chips", (o->s->dims[0] + o->n[0] - 1) / o->n[0],
            (o->s->dims[1] + o->n[1] - 1) / o->n[1], (o->s->dims[2] + o->n[2] - 1) / o->n[2]);
    for (k = 0; k < 3; k++)
        if (o->wrap[k])
            mg_buf_printf(b, "%s%c", n++ ? ", " : ", wraparound in ", dim[k]);
    if (!n)
        mg_buf_puts(b, ", no wraparound (no dimension is full-size)");
}

/* The width text of n characters takes at up to px pixels a character,
 * with the margins. */
static int mg_svg_text_width(const struct mg_buf *t, int px)
{
    return MG_SVG_PAD * 2 + mg_svg_chars(t->data) * px;
}

/* Where everything of the physical view goes, below the grid (top). */
static void mg_svg_torus_layout(struct mg_svg_torus *v, const struct mg_plan *p, int top)
{
    struct mg_svg_slice o;
    struct mg_buf t;
    int64_t chips = 0;
    int i, planes = 0, y, w;

    memset(v, 0, sizeof *v);
    v->n = mg_torus_slices(p, &v->s);
    v->shown = v->n < MG_SVG_TORUS_SLICES ? v->n : MG_SVG_TORUS_SLICES;
    for (i = 0; i < v->shown; i++) {
        chips += (int64_t)v->s[i].dims[0] * v->s[i].dims[1] * v->s[i].dims[2];
        planes = v->s[i].dims[2] > planes ? v->s[i].dims[2] : planes;
    }
    v->blocks = chips > MG_SVG_MAX_CELLS || planes > MG_SVG_TORUS_PLANES;
    v->budget = v->shown ? MG_SVG_MAX_CELLS / v->shown : 0;
    v->budget = v->budget > 64 ? v->budget : 64;
    v->side = v->blocks ? MG_SVG_BLOCK : MG_SVG_CHIP;
    v->gap = v->blocks ? MG_SVG_TBLOCK_GAP : MG_SVG_CHIP_GAP;
    v->top = top;
    if (!v->shown)
        return;
    mg_buf_init(&t);
    mg_svg_torus_heading(&t, p, v);
    v->width = mg_svg_text_width(&t, 8);
    for (i = 0, y = top + 24; i < v->shown; i++) {
        mg_svg_slice_geometry(v, &v->s[i], y, &o);
        t.len = 0;
        mg_svg_slice_title(&t, &o);
        v->width = mg_svg_text_width(&t, 9) > v->width ? mg_svg_text_width(&t, 9) : v->width;
        w = mg_svg_plane_x(&o, o.n[2]) - MG_SVG_PLANE_GAP + 24 + MG_SVG_PAD;
        v->width = w > v->width ? w : v->width;
        y += mg_svg_slice_height(&o);
    }
    mg_buf_free(&t);
    v->height = y - top + (v->n > v->shown ? 20 : 0);
}

/* The label of one device on a chip: its mesh coordinates ("1,0,3"), or
 * where they are longer than a square holds its flat index ("#19"). */
static void mg_svg_chip_label(struct mg_buf *b, const struct mg_plan *p, int flat)
{
    struct mg_buf c;
    int k;

    if (flat < 0) {
        mg_buf_puts(b, "-");
        return;
    }
    mg_buf_init(&c);
    for (k = 0; k < p->n_axes; k++)
        mg_buf_printf(&c, "%s%d", k ? "," : "", mg_rm_coord(p->size, p->n_axes, flat, k));
    if ((int)c.len <= MG_SVG_CHIP_CHARS)
        mg_buf_puts(b, c.data);
    else
        mg_buf_printf(b, "#%d", flat);
    mg_buf_free(&c);
}

/* The first mesh position on chips [c0, c1) of one square's range, or -1;
 * *mixed: whether the positions there have more than one colour key. */
static int mg_svg_first_at(const struct mg_svg *g, const struct mg_torus_slice *s, const int *lo,
                           const int *hi, int *mixed, int *n_used)
{
    int x, y, z, c, first = -1;

    *mixed = *n_used = 0;
    for (z = lo[2]; z < hi[2]; z++)
        for (y = lo[1]; y < hi[1]; y++)
            for (x = lo[0]; x < hi[0]; x++)
                for (c = 0; c < s->cores; c++) {
                    int f = s->at[(x + s->dims[0] * (y + s->dims[1] * z)) * s->cores + c];
                    if (f < 0)
                        continue;
                    ++*n_used;
                    if (first < 0)
                        first = f;
                    *mixed |= g->keys->of[f] != g->keys->of[first];
                }
    return first;
}

/* One chip: its square in the colour of its (first) device's key, each
 * core's mesh coordinates, and a tooltip with the devices and host. */
static void mg_svg_chip(struct mg_buf *b, const struct mg_svg *g, const struct mg_svg_slice *o,
                        int x, int y, int z)
{
    const struct mg_plan *p = g->p;
    const struct mg_torus_slice *s = o->s;
    int lo[3] = {x, y, z}, hi[3] = {x + 1, y + 1, z + 1}, mixed, used, c;
    int first = mg_svg_first_at(g, s, lo, hi, &mixed, &used);
    int px = mg_svg_plane_x(o, z) + x * (MG_SVG_CHIP + MG_SVG_CHIP_GAP);
    int py = o->ty + y * (MG_SVG_CHIP + MG_SVG_CHIP_GAP), mid = px + MG_SVG_CHIP / 2;

    mg_buf_printf(b, "<g class=\"chip\"><title>chip (%d, %d, %d) of ", x, y, z);
    mg_svg_text(b, s->name);
    for (c = 0; c < s->cores; c++) {
        int f = s->at[(x + s->dims[0] * (y + s->dims[1] * z)) * s->cores + c];
        mg_buf_puts(b, c ? "; " : ": ");
        if (s->cores > 1)
            mg_buf_printf(b, "core %d: ", c);
        if (f < 0) {
            mg_buf_puts(b, "not in the mesh");
            continue;
        }
        mg_buf_printf(b, "device %d (", mg_plan_mesh_at(p, f));
        mg_svg_coords(b, p, f);
        mg_buf_puts(b, ") on host ");
        mg_svg_text(b, p->inv->hosts[mg_plan_host_of(p, mg_plan_mesh_at(p, f), NULL)].name);
    }
    mg_buf_printf(b,
                  "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                  "stroke=\"white\"/>",
                  px, py, MG_SVG_CHIP, MG_SVG_CHIP,
                  first < 0 ? MG_SVG_UNUSED : mg_svg_fill_of(g, first));
    for (c = 0; c < s->cores; c++) {
        int line = MG_SVG_CHIP / 2 + 4 + (2 * c - (s->cores - 1)) * 7;
        mg_buf_printf(b,
                      "<text class=\"coords\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                      "font-size=\"10\">",
                      mid, py + line);
        mg_svg_chip_label(b, p, s->at[(x + s->dims[0] * (y + s->dims[1] * z)) * s->cores + c]);
        mg_buf_puts(b, "</text>");
    }
    mg_buf_puts(b, "</g>\n");
}

/* The chips of square i of n along dimension k: [lo, hi). */
static void mg_svg_range(const struct mg_svg_slice *o, int k, int i, int *lo, int *hi)
{
    *lo = mg_svg_span(i, o->n[k], o->s->dims[k]);
    *hi = mg_svg_span(i + 1, o->n[k], o->s->dims[k]);
}

/* "3", or "4-7" for a block of chips. */
static void mg_svg_range_text(struct mg_buf *b, const struct mg_svg_slice *o, int k, int i)
{
    int lo, hi;

    mg_svg_range(o, k, i, &lo, &hi);
    if (hi - lo == 1)
        mg_buf_int(b, lo);
    else
        mg_buf_printf(b, "%d-%d", lo, hi - 1);
}

/* One block of chips: the colour of its first device's key (paler when it
 * holds several keys), and a tooltip naming its chips and devices. */
static void mg_svg_chip_block(struct mg_buf *b, const struct mg_svg *g,
                              const struct mg_svg_slice *o, int i, int j, int k)
{
    const struct mg_plan *p = g->p;
    int lo[3], hi[3], mixed, used, first;
    int px = mg_svg_plane_x(o, k) + i * (MG_SVG_BLOCK + MG_SVG_TBLOCK_GAP);
    int py = o->ty + j * (MG_SVG_BLOCK + MG_SVG_TBLOCK_GAP);

    mg_svg_range(o, 0, i, &lo[0], &hi[0]);
    mg_svg_range(o, 1, j, &lo[1], &hi[1]);
    mg_svg_range(o, 2, k, &lo[2], &hi[2]);
    first = mg_svg_first_at(g, o->s, lo, hi, &mixed, &used);
    mg_buf_printf(b,
                  "<rect class=\"chips\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                  "fill=\"%s\"%s stroke=\"white\" stroke-width=\"0.5\"><title>chips x ",
                  px, py, MG_SVG_BLOCK, MG_SVG_BLOCK,
                  first < 0 ? MG_SVG_UNUSED : mg_svg_fill_of(g, first),
                  mixed ? " fill-opacity=\"0.55\"" : "");
    mg_svg_range_text(b, o, 0, i);
    mg_buf_puts(b, ", y ");
    mg_svg_range_text(b, o, 1, j);
    mg_buf_puts(b, ", z ");
    mg_svg_range_text(b, o, 2, k);
    mg_buf_puts(b, " of ");
    mg_svg_text(b, o->s->name);
    mg_buf_printf(b, ": %d device%s in the mesh", used, used == 1 ? "" : "s");
    if (first >= 0) {
        mg_buf_printf(b, ", the first device %d (", mg_plan_mesh_at(p, first));
        mg_svg_coords(b, p, first);
        mg_buf_puts(b, ") on host ");
        mg_svg_text(b, p->inv->hosts[mg_plan_host_of(p, mg_plan_mesh_at(p, first), NULL)].name);
    }
    mg_buf_puts(b, "</title></rect>\n");
}

/* The links between neighbouring squares of a plane, along x and y. */
static void mg_svg_plane_links(struct mg_buf *b, const struct mg_svg_torus *v,
                               const struct mg_svg_slice *o, int k)
{
    int i, j, step = v->side + v->gap, px = mg_svg_plane_x(o, k), h = v->side / 2;

    mg_buf_puts(b, "<path class=\"link\" stroke=\"#b0b0b0\" stroke-width=\"2\" d=\"");
    for (j = 0; j < o->n[1]; j++)
        for (i = 0; i + 1 < o->n[0]; i++)
            mg_buf_printf(b, "M%d %dh%d", px + i * step + v->side, o->ty + j * step + h, v->gap);
    for (j = 0; j + 1 < o->n[1]; j++)
        for (i = 0; i < o->n[0]; i++)
            mg_buf_printf(b, "M%d %dv%d", px + i * step + h, o->ty + j * step + v->side, v->gap);
    mg_buf_puts(b, "\"/>\n");
}

/* The wraparound links of plane k along x (one a row: out of the last
 * square's right side, back over the row, into the first's left side) and
 * along y (one a column: out of the last square's bottom, up the gap at
 * its right, into the first's top). */
static void mg_svg_plane_wraps(struct mg_buf *b, const struct mg_svg_torus *v,
                               const struct mg_svg_slice *o, int k)
{
    int i, step = v->side + v->gap, px = mg_svg_plane_x(o, k), h = v->side / 2;
    int xo = v->gap / 4, yo = v->gap / 2;
    static const char *const style = "fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\" "
                                     "stroke-dasharray=\"4 2\"";

    for (i = 0; o->wrap[0] && i < o->n[1]; i++) {
        int y = o->ty + i * step;
        mg_buf_printf(b,
                      "<path class=\"wrap wrap-x\" %s d=\"M%d %dh%dV%dH%dV%dh%d\"><title>x "
                      "wraparound: x=%d to x=0 at y=",
                      style, px + o->pw, y + h, xo, y - xo, px - xo, y + h, xo, o->s->dims[0] - 1);
        mg_svg_range_text(b, o, 1, i);
        mg_buf_puts(b, "</title></path>\n");
    }
    for (i = 0; o->wrap[1] && i < o->n[0]; i++) {
        int x = px + i * step;
        mg_buf_printf(b,
                      "<path class=\"wrap wrap-y\" %s d=\"M%d %dv%dH%dV%dH%dv%d\"><title>y "
                      "wraparound: y=%d to y=0 at x=",
                      style, x + h, o->ty + o->ph, yo, x + v->side + yo, o->ty - yo, x + h, yo,
                      o->s->dims[1] - 1);
        mg_svg_range_text(b, o, 0, i);
        mg_buf_puts(b, "</title></path>\n");
    }
}

/* A plane's labels: its z (or z range) above, x above each column and y
 * left of each row (for chips; blocks are named by their tooltips). */
static void mg_svg_plane_labels(struct mg_buf *b, const struct mg_svg_torus *v,
                                const struct mg_svg_slice *o, int k)
{
    int i, step = v->side + v->gap, px = mg_svg_plane_x(o, k);

    mg_buf_printf(b, "<text class=\"plane\" x=\"%d\" y=\"%d\">z=", px, o->y0 + 44);
    mg_svg_range_text(b, o, 2, k);
    mg_buf_puts(b, "</text>\n");
    if (v->blocks)
        return;
    for (i = 0; i < o->n[0]; i++)
        mg_buf_printf(b,
                      "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\">%d</text>\n",
                      px + i * step + v->side / 2, o->ty - 14, i);
    for (i = 0; i < o->n[1]; i++)
        mg_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"9\">%d</text>\n",
                      px - 10, o->ty + i * step + v->side / 2 + 3, i);
}

/* The slice's heading (its family, topology, what a square shows and
 * which dimensions wrap) and its z wraparound: from the last plane's top
 * over the planes to the first's. */
static void mg_svg_slice_head(struct mg_buf *b, const struct mg_svg_slice *o)
{
    int last = mg_svg_plane_x(o, o->n[2] - 1) + o->pw / 2;

    mg_buf_printf(b, "<text class=\"slice\" x=\"%d\" y=\"%d\" font-weight=\"bold\">", MG_SVG_PAD,
                  o->y0 + 14);
    mg_svg_slice_title(b, o);
    mg_buf_puts(b, "</text>\n");
    if (!o->wrap[2])
        return;
    mg_buf_printf(b,
                  "<path class=\"wrap wrap-z\" fill=\"none\" stroke=\"#333333\" "
                  "stroke-width=\"1.2\" stroke-dasharray=\"4 2\" d=\"M%d %dV%dH%dV%d\"><title>z "
                  "wraparound: z=%d to z=0, chip by chip</title></path>\n",
                  last, o->y0 + 32, o->y0 + 24, o->x0 + o->pw / 2, o->y0 + 32, o->s->dims[2] - 1);
}

/* One slice: its heading, then per plane its links, wraparound links,
 * labels and squares. */
static void mg_svg_torus_slice(struct mg_buf *b, const struct mg_svg *g,
                               const struct mg_svg_torus *v, const struct mg_svg_slice *o)
{
    int i, j, k;

    mg_buf_puts(b, "<g class=\"slice\">\n");
    mg_svg_slice_head(b, o);
    for (k = 0; k < o->n[2]; k++) {
        mg_buf_printf(b, "<g class=\"plane\">\n");
        mg_svg_plane_links(b, v, o, k);
        mg_svg_plane_wraps(b, v, o, k);
        mg_svg_plane_labels(b, v, o, k);
        for (j = 0; j < o->n[1]; j++)
            for (i = 0; i < o->n[0]; i++) {
                if (v->blocks)
                    mg_svg_chip_block(b, g, o, i, j, k);
                else
                    mg_svg_chip(b, g, o, i, j, k);
            }
        mg_buf_puts(b, "</g>\n");
    }
    mg_buf_puts(b, "</g>\n");
}

/* The physical view: a heading, then each slice drawn. */
static void mg_svg_torus(struct mg_buf *b, const struct mg_svg *g, const struct mg_svg_torus *v)
{
    struct mg_svg_slice o;
    int i, y = v->top + 24;

    if (!v->shown)
        return;
    mg_buf_printf(b, "<g class=\"torus\">\n<text x=\"%d\" y=\"%d\">", MG_SVG_PAD, v->top + 14);
    mg_svg_torus_heading(b, g->p, v);
    mg_buf_puts(b, "</text>\n");
    for (i = 0; i < v->shown; i++) {
        mg_svg_slice_geometry(v, &v->s[i], y, &o);
        mg_svg_torus_slice(b, g, v, &o);
        y += mg_svg_slice_height(&o);
    }
    if (v->n > v->shown)
        mg_buf_printf(b, "<text x=\"%d\" y=\"%d\">and %d more slices, not drawn</text>\n",
                      MG_SVG_PAD, y + 12, v->n - v->shown);
    mg_buf_puts(b, "</g>\n");
}

/* Where everything goes: the widest row label and the legend's names
 * decide the margins; the titles may widen it (mg_svg_head). */
static void mg_svg_layout(struct mg_svg *g, const struct mg_plan *p, const struct mg_grid_keys *k)
{
    struct mg_buf row;
    int label = 0, legend = 6, i, shown = k->n < MG_SVG_LEGEND_MAX ? k->n : MG_SVG_LEGEND_MAX;

    memset(g, 0, sizeof *g);
    g->p = p;
    g->keys = k;
    mg_grid_shape(p, &g->rows, &g->cols);
    g->brows = g->rows < MG_SVG_MAX_SIDE ? g->rows : MG_SVG_MAX_SIDE;
    g->bcols = g->cols < MG_SVG_MAX_SIDE ? g->cols : MG_SVG_MAX_SIDE;
    g->side = MG_SVG_BLOCK;
    if ((int64_t)g->rows * g->cols <= MG_SVG_MAX_CELLS) {
        g->side = MG_SVG_CELL;
        g->brows = g->rows;
        g->bcols = g->cols;
    }
    mg_buf_init(&row);
    for (i = 0; i + 1 < p->n_axes; i++)
        label += mg_svg_chars(p->axis_names[i]) + 1;
    mg_svg_row_coords(&row, p, g->rows - 1); /* the widest coordinates */
    if ((int)row.len > label)
        label = (int)row.len;
    mg_buf_free(&row);
    for (i = 0; i < shown; i++) {
        int n = mg_svg_chars(k->names[k->order[i]]);
        legend = n > legend ? n : legend;
    }
    legend = legend < MG_SVG_LEGEND_CHARS ? legend : MG_SVG_LEGEND_CHARS;
    if (k->n > shown && legend < 20) /* "and N more" */
        legend = 20;
    g->gx = MG_SVG_PAD + label * MG_SVG_CHAR + 8;
    g->gy = 84;
    g->legend_x = g->gx + g->bcols * g->side + 24;
    g->width = g->legend_x + 18 + legend * MG_SVG_CHAR + MG_SVG_PAD;
    g->height = g->gy + g->brows * g->side;
    if (g->height < g->gy + (shown + 1) * MG_SVG_LEGEND_ROW)
        g->height = g->gy + (shown + 1) * MG_SVG_LEGEND_ROW;
    g->height += MG_SVG_PAD;
}

/* The title (the mesh, its axes and sizes) and the line below it (what
 * is drawn), escaped. */
static void mg_svg_titles(struct mg_buf *title, struct mg_buf *sub, const struct mg_svg *g)
{
    const struct mg_plan *p = g->p;
    int i;

    mg_buf_puts(title, "mesh ");
    mg_svg_text(title, p->name);
    mg_buf_puts(title, ": ");
    for (i = 0; i < p->n_axes; i++) {
        mg_buf_puts(title, i ? " x " : "");
        mg_svg_text(title, p->axis_names[i]);
        mg_buf_printf(title, "=%lld", (long long)p->size[i]);
    }
    mg_buf_printf(sub, "%d %s devices on %d host%s, coloured by %s", p->n_mesh,
                  mg_kind_name(p->kind), g->keys->n_hosts, g->keys->n_hosts == 1 ? "" : "s",
                  mg_word(&mg_color_by_words, (int)g->keys->by));
    if (g->keys->coarsened)
        mg_buf_puts(sub, " (too many hosts for a colour each)");
    if (g->keys->runs)
        mg_buf_printf(sub, ", in %d runs of consecutive %s", g->keys->n,
                      mg_grid_keys_noun(g->keys));
    if (g->side == MG_SVG_BLOCK)
        mg_buf_printf(sub, "; blocks of %d x %d positions", (g->rows + g->brows - 1) / g->brows,
                      (g->cols + g->bcols - 1) / g->bcols);
    if (g->n_slices)
        mg_buf_printf(sub, "; below, the chips of %d TPU slice%s", g->n_slices,
                      g->n_slices == 1 ? "" : "s");
}

/* The document's head: its size, <title>, background and titles. The
 * width grows to the titles (at up to 9 and 8 pixels a character). */
static void mg_svg_head(struct mg_buf *b, struct mg_svg *g)
{
    struct mg_buf title, sub;

    mg_buf_init(&title);
    mg_buf_init(&sub);
    mg_svg_titles(&title, &sub, g);
    if (g->width < MG_SVG_PAD * 2 + mg_svg_chars(title.data) * 9)
        g->width = MG_SVG_PAD * 2 + mg_svg_chars(title.data) * 9;
    if (g->width < MG_SVG_PAD * 2 + mg_svg_chars(sub.data) * 8)
        g->width = MG_SVG_PAD * 2 + mg_svg_chars(sub.data) * 8;
    mg_buf_printf(b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "viewBox=\"0 0 %d %d\" font-family=\"monospace\" font-size=\"12\">\n",
                  g->width, g->height, g->width, g->height);
    mg_buf_printf(b, "<title>%s</title>\n", title.data);
    mg_buf_printf(b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", g->width, g->height);
    mg_buf_printf(b, "<text x=\"%d\" y=\"22\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
                  MG_SVG_PAD, title.data);
    mg_buf_printf(b, "<text x=\"%d\" y=\"40\">%s</text>\n", MG_SVG_PAD, sub.data);
    mg_buf_free(&title);
    mg_buf_free(&sub);
}

void mg_emit_svg(struct mg_buf *b, const struct mg_plan *p, enum mg_color_by by)
{
    struct mg_grid_keys keys;
    struct mg_svg_torus v;
    struct mg_svg g;
    int i, j, *stamp;

    mg_grid_keys_init(&keys, p, by);
    mg_svg_layout(&g, p, &keys);
    mg_svg_torus_layout(&v, p, g.height);
    if (v.shown) {
        g.n_slices = v.n;
        g.width = v.width > g.width ? v.width : g.width;
        g.height += v.height + MG_SVG_PAD;
    }
    mg_svg_head(b, &g);
    mg_svg_axis_labels(b, &g);
    stamp = malloc((size_t)p->inv->n_hosts * sizeof *stamp);
    if (!stamp)
        mg_oom();
    for (i = 0; i < p->inv->n_hosts; i++)
        stamp[i] = -1;
    for (i = 0; i < g.brows; i++)
        for (j = 0; j < g.bcols; j++) {
            if (g.side == MG_SVG_CELL)
                mg_svg_cell(b, &g, i, j);
            else
                mg_svg_block(b, &g, i, j, stamp);
        }
    free(stamp);
    mg_svg_legend(b, &g);
    mg_svg_torus(b, &g, &v);
    mg_torus_slices_free(v.s, v.n);
    mg_buf_puts(b, "</svg>\n");
    mg_grid_keys_free(&keys);
}
