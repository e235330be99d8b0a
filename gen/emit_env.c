/*
 * The emitter of `meshgen env` (docs/reference.md, "meshgen env"): the
 * variables env.c found for one process, as sh export lines for
 * `v=$(meshgen env mesh.yaml) && eval "$v"`, or as one JSON object for a program
 * that reads them. Every sh value is single-quoted, a quote in it written
 * as '\'', so no value can end the word or run a command; a note is a
 * comment line ("# " and the note, a newline in it ending the line and
 * starting another comment), which eval skips. It computes nothing.
 */
#include "json.h"

/* One sh word holding s exactly. */
static void mg_sh_quote(struct mg_buf *b, const char *s)
{
    mg_buf_puts(b, "'");
    mg_escape(b, MG_ESC_SH, s);
    mg_buf_puts(b, "'");
}

static void mg_env_json(struct mg_buf *out, const struct mg_env *e)
{
    struct mg_json j;
    int i;

    mg_json_init(&j, out);
    mg_json_object(&j, MG_JSON_BLOCK);
    mg_json_key(&j, "process");
    mg_json_int(&j, e->process);
    mg_json_key(&j, "process_count");
    mg_json_int(&j, e->n_processes);
    mg_json_key(&j, "host");
    mg_json_int(&j, e->host);
    mg_json_key(&j, "host_name");
    mg_json_string(&j, e->host_name);
    mg_json_key(&j, "devices");
    mg_json_array(&j, MG_JSON_INLINE);
    for (i = 0; i < e->count; i++)
        mg_json_int(&j, e->devices[e->first + i]);
    mg_json_end(&j);
    mg_json_key(&j, "env");
    mg_json_object(&j, MG_JSON_ALIGNED);
    for (i = 0; i < e->n_vars; i++) {
        mg_json_key(&j, e->names[i]);
        mg_json_string(&j, e->values[i]);
    }
    mg_json_end(&j);
    mg_json_key(&j, "notes");
    mg_json_array(&j, MG_JSON_BLOCK);
    for (i = 0; i < e->n_notes; i++)
        mg_json_string(&j, e->notes[i]);
    mg_json_end(&j);
    mg_json_end(&j);
    mg_buf_puts(out, "\n");
}

void mg_emit_env(struct mg_buf *out, const struct mg_env *e, enum mg_env_format fmt)
{
    int i;

    if (fmt == MG_ENV_JSON) {
        mg_env_json(out, e);
        return;
    }
    for (i = 0; i < e->n_notes; i++) {
        mg_buf_puts(out, "# ");
        mg_escape(out, MG_ESC_SH_COMMENT, e->notes[i]);
        mg_buf_puts(out, "\n");
    }
    for (i = 0; i < e->n_vars; i++) {
        mg_buf_printf(out, "export %s=", e->names[i]);
        mg_sh_quote(out, e->values[i]);
        mg_buf_puts(out, "\n");
    }
}
