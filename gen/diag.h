/*
 * Message pieces for the stages that report diagnostics (diag.c): values
 * and paths quoted, and shapes written, the one way every message does.
 */
#ifndef MG_DIAG_H
#define MG_DIAG_H

#include <meshgen/gen.h>

/* s quoted for a message, control bytes escaped, cut past 40 bytes (at a
 * UTF-8 character boundary). */
const char *mg_show(struct mg_arena *a, const char *s);
/* A path quoted for a message, control bytes escaped, not cut here (a cut
 * path would not say which file was meant); a message cuts any string it
 * echoes past 200 bytes (diag.c, MG_ECHO_MAX). */
const char *mg_show_path(struct mg_arena *a, const char *path);
/* A shape as messages show it, each axis named: "(dp=2, tp=4)". v holds
 * one value per axis of the spec. */
void mg_describe_shape(struct mg_buf *b, const struct mg_spec *spec, const int64_t *v);

#endif /* MG_DIAG_H */
