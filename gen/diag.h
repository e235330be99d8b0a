/*
 * Message pieces for the stages that report diagnostics (diag.c): values
 * and paths quoted the one way every message quotes them.
 */
#ifndef MG_DIAG_H
#define MG_DIAG_H

#include <meshgen/gen.h>

/* s quoted for a message, escaped as terminal text (<meshgen/escape.h>),
 * cut past 40 bytes (at a UTF-8 character boundary) with "..." inside the
 * quotes. */
const char *mg_show(struct mg_arena *a, const char *s);
/* A path quoted for a message, escaped the same way; past 203 bytes its
 * first and last 100 (the file's name) around "...". */
const char *mg_show_path(struct mg_arena *a, const char *path);

#endif /* MG_DIAG_H */
