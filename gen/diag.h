/*
 * Message pieces for the stages that report diagnostics (diag.c): values
 * and paths quoted, and shapes written, the one way every message does.
 */
#ifndef MG_DIAG_H
#define MG_DIAG_H

#include "internal.h"

/* Values quoted in messages are cut past this many bytes, so a message
 * stays readable whatever a name holds. */
#define MG_SHOW_MAX 40

/* s quoted for a message, escaped as terminal text (escape.h),
 * cut past 40 bytes (at a UTF-8 character boundary) with "..." inside the
 * quotes. */
const char *mg_show(struct mg_arena *a, const char *s);
/* A host or slice name quoted for a message, escaped the same way; past
 * 40 bytes its first 24 and last 13 around "...": a hostlist numbers its
 * hosts at the end, so two long names still read apart. */
const char *mg_show_host(struct mg_arena *a, const char *name);
/* A path quoted for a message, escaped the same way; past 203 bytes its
 * first and last 100 (the file's name) around "...". */
const char *mg_show_path(struct mg_arena *a, const char *path);
/* A shape as messages show it, each axis named: "(dp=2, tp=4)". v holds
 * one value per axis of the spec. */
void mg_describe_shape(struct mg_buf *b, const struct mg_spec *spec, const int64_t *v);

#endif /* MG_DIAG_H */
