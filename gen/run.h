/*
 * A run as the two files built on it see it: run.c, which implements the
 * public API's struct mg_run, and driver.c, whose commands are runs. The
 * public header keeps the struct opaque.
 */
#ifndef MG_RUN_H
#define MG_RUN_H

#include "internal.h"

struct mg_run {
    struct mg_arena arena;
    struct mg_diags diags;
    const struct mg_opts *opts;
    struct mg_report *report; /* the command's, across its files (driver.c) */
    mg_message_fn *tell;      /* the library caller's callback, or NULL */
    void *tell_ctx;
    int told;            /* diagnostics handed to it so far */
    enum mg_when groups; /* group tables: the options', or what the command needs */
    struct mg_spec *spec;
    const char *inv_label;   /* the inventory as written */
    const char *spec_file;   /* the spec file read, if any */
    const char *source_file; /* the file inventory --export reads, if any */
    struct mg_inventory *inv;
    struct mg_plan *plan;
    int spec_errors;  /* errors in reading the spec, which is then not compiled */
    int failed;       /* a call of the public API failed */
    int io_error;     /* the spec could not be read, or the output not written */
    int is_inventory; /* the file is an inventory, not a mesh spec */
};

/* A run in the caller's memory: its arena and diagnostics ready, the
 * command's report (NULL: none), nothing read. */
void mg_run_start(struct mg_run *r, const struct mg_opts *o, struct mg_report *report);

/* The spec: from --mesh or from the file. A file that is an inventory is
 * loaded as one instead (validate checks inventories and meshes alike);
 * then r->is_inventory is set and no spec is returned. */
struct mg_spec *mg_read_spec(struct mg_run *r, const char *file);

/* The run's exit code: 2 after an I/O error, else 0 when it did what it
 * was asked (ok) without an error, else 1. */
int mg_run_code(const struct mg_run *r, int ok);

#endif /* MG_RUN_H */
