/*
 * Message pieces for the stages that report diagnostics (diag.c): values
 * and paths quoted the one way every message quotes them.
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

#endif /* MG_DIAG_H */
