/*
 * The `show --svg` emitter: the grid of emit_grid.c as an SVG picture, one
 * labelled square per mesh position (device id and host name), filled by
 * host or by stage. Past MG_SVG_MAX_CELLS positions (issue 12: a million
 * devices made 3 million elements, 224 MiB that no browser opens) it draws
 * the grid at a lower resolution instead: at most MG_SVG_MAX_BLOCKS boxes,
 * each a block of rows and columns, labelled with the device ids and the
 * hosts at its first and last position. Host names are XML-escaped, so no
 * name can break the document. It formats the resolved model and knows
 * nothing of files.
 */
#include "emit_grid.h"

static const char *const mg_svg_fill[] = {"#4e79a7", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
                                          "#e15759", "#9c755f", "#f28e2b", "#ff9da7", "#bab0ac"};

static void mg_svg_text(struct mg_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': mg_buf_puts(b, "&lt;"); break;
        case '>': mg_buf_puts(b, "&gt;"); break;
        case '&': mg_buf_puts(b, "&amp;"); break;
        case '"': mg_buf_puts(b, "&quot;"); break;
        default: mg_buf_put(b, s, 1);
        }
    }
}

static void mg_svg_cell(struct mg_buf *b, const struct mg_plan *p, int flat, int x, int y, int cell)
{
    int dev = p->mesh[flat];

    mg_buf_printf(b,
                  "  <rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                  "stroke=\"white\"/>\n",
                  x, y, cell, cell, mg_svg_fill[mg_grid_key(p, flat) % 10]);
    mg_buf_printf(b, "  <text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x + cell / 2,
                  y + cell / 2, dev);
    mg_buf_printf(b,
                  "  <text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                  "font-size=\"9\">",
                  x + cell / 2, y + cell / 2 + 14);
    mg_svg_text(b, p->inv->hosts[p->devices[dev].host].name);
    mg_buf_puts(b, "</text>\n");
}

/* Three elements a square: a picture of 3072 positions is about 9000. */
#define MG_SVG_MAX_CELLS 3072
/* Three elements a box, at most 32 across. */
#define MG_SVG_MAX_BLOCKS 2048
#define MG_SVG_MAX_ACROSS 32

static int mg_ceil_div(int a, int b)
{
    return a / b + (a % b != 0);
}

/* One box: positions rows r0..r1-1 by columns c0..c1-1 of the grid. */
static void mg_svg_block(struct mg_buf *b, const struct mg_plan *p, int cols, const int *r,
                         const int *c, int x, int y)
{
    const int w = 168, h = 40;
    int first = r[0] * cols + c[0], last = (r[1] - 1) * cols + (c[1] - 1);
    int d0 = p->mesh[first], d1 = p->mesh[last];
    int h0 = p->devices[d0].host, h1 = p->devices[d1].host;

    mg_buf_printf(b,
                  "  <rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                  "stroke=\"white\"/>\n",
                  x, y, w, h, mg_svg_fill[mg_grid_key(p, first) % 10]);
    mg_buf_printf(b, "  <text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d..%d</text>\n", x + w / 2,
                  y + 16, d0, d1);
    mg_buf_printf(b, "  <text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"9\">", x + w / 2,
                  y + 31);
    mg_svg_text(b, p->inv->hosts[h0].name);
    if (h1 != h0) {
        mg_buf_puts(b, "..");
        mg_svg_text(b, p->inv->hosts[h1].name);
    }
    mg_buf_puts(b, "</text>\n");
}

/* The grid in boxes of br rows by bc columns, under a line that says so. */
static void mg_svg_blocks(struct mg_buf *b, const struct mg_plan *p, int rows, int cols)
{
    const int w = 168, h = 40, pad = 8, top = 24;
    int across = cols < MG_SVG_MAX_ACROSS ? cols : MG_SVG_MAX_ACROSS;
    int bc = mg_ceil_div(cols, across), down, br, i, j;

    across = mg_ceil_div(cols, bc);
    down = MG_SVG_MAX_BLOCKS / across;
    br = mg_ceil_div(rows, down < 1 ? 1 : down);
    down = mg_ceil_div(rows, br);
    mg_buf_printf(b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "font-family=\"monospace\" font-size=\"12\">\n",
                  across * w + 2 * pad, down * h + 2 * pad + top);
    mg_buf_printf(b,
                  "  <text x=\"%d\" y=\"%d\">%d positions, %d x %d: each box %d row%s x %d "
                  "column%s (device ids and hosts of its first and last position)</text>\n",
                  pad, pad + 12, p->n_mesh, rows, cols, br, br == 1 ? "" : "s", bc,
                  bc == 1 ? "" : "s");
    for (i = 0; i < down; i++)
        for (j = 0; j < across; j++) {
            int r[2], c[2];
            r[0] = i * br;
            r[1] = r[0] + br < rows ? r[0] + br : rows;
            c[0] = j * bc;
            c[1] = c[0] + bc < cols ? c[0] + bc : cols;
            mg_svg_block(b, p, cols, r, c, pad + j * w, pad + top + i * h);
        }
    mg_buf_puts(b, "</svg>\n");
}

void mg_emit_svg(struct mg_buf *b, const struct mg_plan *p)
{
    const int cell = 56, pad = 8;
    int rows, cols, i, j;

    mg_grid_shape(p, &rows, &cols);
    if ((int64_t)rows * cols > MG_SVG_MAX_CELLS) {
        mg_svg_blocks(b, p, rows, cols);
        return;
    }
    mg_buf_printf(b,
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "font-family=\"monospace\" font-size=\"12\">\n",
                  cols * cell + 2 * pad, rows * cell + 2 * pad);
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++)
            mg_svg_cell(b, p, i * cols + j, pad + j * cell, pad + i * cell, cell);
    mg_buf_puts(b, "</svg>\n");
}
