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
 * about 130 KB, not hundreds of megabytes (issue 12). Every
 * name is XML-escaped, so no name can break the document. It formats the
 * resolved model and knows nothing of files.
 */
#include "emit_grid.h"
#include "mesh_math.h"

#include <stdlib.h>
#include <string.h>

/* Tableau's 20 colours, the ten strong ones first: neighbouring keys differ
 * in hue, and twenty keys pass before one repeats. */
static const char *const mg_svg_fill[] = {"#4e79a7", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
                                          "#e15759", "#9c755f", "#f28e2b", "#ff9da7", "#bab0ac",
                                          "#a0cbe8", "#8cd17d", "#d4a6c8", "#f1ce63", "#86bcb6",
                                          "#ff9d9a", "#d7b5a6", "#ffbe7d", "#fabfd2", "#79706e"};
#define MG_SVG_N_FILLS 20

#define MG_SVG_MAX_CELLS 4096  /* squares, one a device, before blocks */
#define MG_SVG_MAX_SIDE 64     /* blocks a side */
#define MG_SVG_CELL 56         /* a device's square */
#define MG_SVG_BLOCK 14        /* a block's square */
#define MG_SVG_PAD 12          /* the margin */
#define MG_SVG_CHAR 7          /* the width of a character at font-size 12 (monospace) */
#define MG_SVG_CELL_CHARS 9    /* host name characters a square holds (font-size 9) */
#define MG_SVG_LEGEND_CHARS 28 /* name characters a legend entry shows */
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
};

/* Text content or an attribute value: XML-escaped, control characters
 * (which XML 1.0 cannot hold even escaped) as '?'. */
static void mg_svg_text(struct mg_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': mg_buf_puts(b, "&lt;"); break;
        case '>': mg_buf_puts(b, "&gt;"); break;
        case '&': mg_buf_puts(b, "&amp;"); break;
        case '"': mg_buf_puts(b, "&quot;"); break;
        default:
            if ((unsigned char)*s < 0x20 || *s == 0x7f)
                mg_buf_puts(b, "?");
            else
                mg_buf_put(b, s, 1);
        }
    }
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
    int flat = i * g->cols + j, dev = p->mesh[flat], x = g->gx + j * g->side;
    int y = g->gy + i * g->side, mid = x + g->side / 2;
    const struct mg_host *h = &p->inv->hosts[p->devices[dev].host];

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
            int flat = r * g->cols + c, host = p->devices[p->mesh[flat]].host;
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
        p->mesh[first], p->mesh[last], n_hosts, n_hosts == 1 ? "" : "s");
    mg_svg_text(b, p->inv->hosts[p->devices[p->mesh[first]].host].name);
    if (n_hosts > 1) {
        mg_buf_puts(b, " ... ");
        mg_svg_text(b, p->inv->hosts[p->devices[p->mesh[last]].host].name);
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

/* The legend: a swatch and a name per key, at most MG_SVG_LEGEND_MAX. */
static void mg_svg_legend(struct mg_buf *b, const struct mg_svg *g)
{
    const struct mg_grid_keys *k = g->keys;
    int i, shown = k->n < MG_SVG_LEGEND_MAX ? k->n : MG_SVG_LEGEND_MAX;
    char tmp[32];

    mg_buf_printf(b, "<g class=\"legend\"><text class=\"axis\" x=\"%d\" y=\"%d\">%s</text>\n",
                  g->legend_x, g->gy - 6, mg_word(&mg_color_by_words, (int)k->by));
    for (i = 0; i < shown; i++) {
        const char *name = mg_grid_key_name(k, g->p, i, tmp, sizeof tmp);
        int y = g->gy + i * MG_SVG_LEGEND_ROW;
        mg_buf_printf(b, "<g><title>");
        mg_svg_text(b, name);
        mg_buf_printf(b,
                      "</title><rect class=\"swatch\" x=\"%d\" y=\"%d\" width=\"12\" "
                      "height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                      g->legend_x, y, mg_svg_fill[i % MG_SVG_N_FILLS], g->legend_x + 18, y + 11);
        mg_svg_abbrev(b, name, MG_SVG_LEGEND_CHARS);
        mg_buf_puts(b, "</text></g>\n");
    }
    if (k->n > shown)
        mg_buf_printf(b, "<text x=\"%d\" y=\"%d\">and %d more</text>\n", g->legend_x,
                      g->gy + shown * MG_SVG_LEGEND_ROW + 11, k->n - shown);
    mg_buf_puts(b, "</g>\n");
}

/* Where everything goes: the widest row label and the legend's names
 * decide the margins; the titles may widen it (mg_svg_head). */
static void mg_svg_layout(struct mg_svg *g, const struct mg_plan *p, const struct mg_grid_keys *k)
{
    struct mg_buf row;
    int label = 0, legend = 6, i, shown = k->n < MG_SVG_LEGEND_MAX ? k->n : MG_SVG_LEGEND_MAX;
    char tmp[32];

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
        int n = mg_svg_chars(mg_grid_key_name(k, p, i, tmp, sizeof tmp));
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
    if (g->side == MG_SVG_BLOCK)
        mg_buf_printf(sub, "; blocks of %d x %d positions", (g->rows + g->brows - 1) / g->brows,
                      (g->cols + g->bcols - 1) / g->bcols);
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
    struct mg_svg g;
    int i, j, *stamp;

    mg_grid_keys_init(&keys, p, by);
    mg_svg_layout(&g, p, &keys);
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
    mg_buf_puts(b, "</svg>\n");
    mg_grid_keys_free(&keys);
}
