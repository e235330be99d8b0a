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

/*
 * TPU: the slices a mesh uses, chip by chip, for the physical drawings of
 * both pictures. Chips are numbered x fastest, then y, then z (chip = x +
 * X * (y + Y * z)); at[chip * cores + core] is the mesh position (flat
 * index) of the device there, or -1 where the mesh uses none. Slices come
 * in inventory order, each once (a slice is one host group: its hosts are
 * consecutive); a mesh that uses no device of a slice leaves it out.
 */
struct mg_torus_slice {
    const char *name;                /* the hosts' `slice:` */
    const struct mg_tpu_family *tpu; /* the family */
    int dims[3];                     /* chips along x, y and z */
    bool wrap[3];                    /* the dimensions that wrap around */
    int cores;                       /* devices per chip */
    int *at;                         /* dims[0] * dims[1] * dims[2] * cores */
};
/* Returns how many slices it wrote to *out (NULL and 0 for a mesh of other
 * devices). */
int mg_torus_slices(const struct mg_plan *p, struct mg_torus_slice **out);
void mg_torus_slices_free(struct mg_torus_slice *s, int n);

#endif /* MG_EMIT_GRID_H */
