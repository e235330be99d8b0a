/*
 * The depfile emitter: a Make rule naming every input a run read, so build
 * systems (meshgen_add_mesh's add_custom_command DEPFILE, Ninja, Make)
 * re-run the generator when one changes. Names are escaped as GCC's -MD
 * writes them (escape.h, MG_ESC_MAKE), and a name a Make rule
 * cannot hold (a newline would start a rule of its own) is refused before
 * anything is written. It formats the names it is given and knows nothing
 * of where they came from.
 */
#include "internal.h"

/* The first of names[0..n) that fmt refuses, with *why. */
static const char *mg_dep_refused(enum mg_esc fmt, const char *const *names, int n,
                                  const char **why)
{
    int i;

    for (i = 0; i < n; i++)
        if ((*why = mg_esc_refusal(fmt, names[i])) != NULL)
            return names[i];
    return NULL;
}

const char *mg_emit_depfile(struct mg_buf *b, const char *const *targets, int n_targets,
                            const char *const *prereqs, int n_prereqs, const char **why)
{
    const char *refused = mg_dep_refused(MG_ESC_MAKE_TARGET, targets, n_targets, why);
    int i;

    if (refused || (refused = mg_dep_refused(MG_ESC_MAKE, prereqs, n_prereqs, why)) != NULL)
        return refused;
    for (i = 0; i < n_targets; i++) {
        if (i)
            mg_buf_puts(b, " ");
        mg_escape(b, MG_ESC_MAKE_TARGET, targets[i]);
    }
    mg_buf_puts(b, ":");
    for (i = 0; i < n_prereqs; i++) {
        mg_buf_puts(b, " ");
        mg_escape(b, MG_ESC_MAKE, prereqs[i]);
    }
    mg_buf_puts(b, "\n");
    return NULL;
}
