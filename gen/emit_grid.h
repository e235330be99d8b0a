/*
 * What the two pictures of `meshgen show` share (emit_grid.c): the grid's
 * geometry and what colours a cell, so the terminal grid and the SVG
 * (emit_svg.c) draw the same mesh alike.
 */
#ifndef MG_EMIT_GRID_H
#define MG_EMIT_GRID_H

#include <meshgen/gen.h>

/* Rows: all axes but the last, row-major; columns: the last axis. */
void mg_grid_shape(const struct mg_plan *p, int *rows, int *cols);

/*
 * The colour keys of a mesh (--color-by): hosts, slices or MPMD stages,
 * numbered in the order the mesh first meets them (row-major), so that
 * neighbouring keys take neighbouring colours. A picture groups the cells
 * by them; the plan is not changed.
 */
struct mg_grid_keys {
    enum mg_color_by by;
    int n;       /* distinct keys the mesh uses */
    int *of;     /* mesh position -> key */
    int *first;  /* key -> the first mesh position that has it */
    int n_hosts; /* distinct hosts the mesh uses */
};
void mg_grid_keys_init(struct mg_grid_keys *k, const struct mg_plan *p, enum mg_color_by by);
void mg_grid_keys_free(struct mg_grid_keys *k);
/* The name of a key for a legend: the host name, the slice name or
 * "(no slice)", or "stage N" (the latter two in buf, of size cap). */
const char *mg_grid_key_name(const struct mg_grid_keys *k, const struct mg_plan *p, int key,
                             char *buf, size_t cap);

#endif /* MG_EMIT_GRID_H */
