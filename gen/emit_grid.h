/*
 * What the two pictures of `meshgen show` share (emit_grid.c): the grid's
 * geometry and what colours a cell, so the terminal grid and the SVG
 * (emit_svg.c) draw the same mesh alike.
 */
#ifndef MG_EMIT_GRID_H
#define MG_EMIT_GRID_H

#include "internal.h"

/* Rows: all axes but the last, row-major; columns: the last axis. */
void mg_grid_shape(const struct mg_plan *p, int *rows, int *cols);

/*
 * The colour keys of a mesh (--color-by): hosts, slices or MPMD stages,
 * numbered in the order the mesh first meets them (row-major), so that
 * neighbouring keys take neighbouring colours. A picture groups the cells
 * by them; the plan is not changed.
 *
 * Past MG_GRID_KEYS_MAX of them, one colour a key tells nobody who owns
 * what, so the keys coarsen (docs/reference.md, "show"): hosts whose
 * granules are slices are coloured by slice; and where that still leaves
 * too many, the keys become MG_GRID_RUNS runs of consecutive hosts, slices
 * or stages in process order (which DCN order follows), each a colour.
 */
#define MG_GRID_KEYS_MAX 256
#define MG_GRID_RUNS 16

struct mg_grid_keys {
    enum mg_color_by by; /* what the keys are (slices when hosts were too many) */
    int coarsened;       /* by differs from what was asked */
    int n;               /* keys the mesh uses */
    int *of;             /* mesh position -> key */
    const char **names;  /* key -> its name for a legend ("a ... b" for a run) */
    int *order;          /* the keys in legend order: by name (runs in process order) */
    int n_hosts;         /* distinct hosts the mesh uses */
    int n_raw;           /* distinct hosts, slices or stages the keys cover */
    int runs;            /* the keys are runs of n_raw hosts, slices or stages */
};
void mg_grid_keys_init(struct mg_grid_keys *k, const struct mg_plan *p, enum mg_color_by by);
void mg_grid_keys_free(struct mg_grid_keys *k);
/* The plural noun of what the keys are: "hosts", "slices" or "stages". */
const char *mg_grid_keys_noun(const struct mg_grid_keys *k);
/* Names compared as people sort them: digit runs by their value
 * ("node2" before "node10"), then byte by byte. */
int mg_natural_cmp(const char *a, const char *b);

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
