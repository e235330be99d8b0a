/*
 * The words of every enumeration the generator reads or writes, one table
 * per enumeration: device kinds, axis types, orders, process modes,
 * granules, severities, diagnostic formats, the auto/always/never switches
 * and the commands. The spec reader, the option parser and every emitter
 * take their words from here, and a unit test holds docs/reference.md to
 * the same tables, so a word cannot be spelt two ways.
 *
 * Each table is indexed by the enumeration's value through designated
 * initialisers, so its order cannot drift from the enum. Where the runtime
 * header has an enumerator for a value, its C spelling stands beside the
 * word for the C emitter. Nothing here knows how a word is used.
 */
#include "internal.h"

#include <string.h>

static const struct mg_word mg_kinds[] = {
    [MG_KIND_GPU] = {"gpu", "MESHGEN_KIND_GPU"},
    [MG_KIND_CORE] = {"core", "MESHGEN_KIND_CORE"},
    [MG_KIND_NUMA] = {"numa", "MESHGEN_KIND_NUMA"},
    [MG_KIND_PACKAGE] = {"package", "MESHGEN_KIND_PACKAGE"},
    [MG_KIND_PU] = {"pu", "MESHGEN_KIND_PU"},
    [MG_KIND_TPU] = {"tpu", "MESHGEN_KIND_TPU"},
};
_Static_assert(MG_COUNT(mg_kinds) == MG_N_KINDS, "a word for every kind");
const struct mg_words mg_kind_words = {mg_kinds, MG_COUNT(mg_kinds)};

static const struct mg_word mg_axis_types[] = {
    [MESHGEN_AXIS_AUTO] = {"auto", "MESHGEN_AXIS_AUTO"},
    [MESHGEN_AXIS_EXPLICIT] = {"explicit", "MESHGEN_AXIS_EXPLICIT"},
    [MESHGEN_AXIS_MANUAL] = {"manual", "MESHGEN_AXIS_MANUAL"},
};
const struct mg_words mg_axis_type_words = {mg_axis_types, MG_COUNT(mg_axis_types)};

static const struct mg_word mg_orders[] = {
    [MG_ORDER_LOCALITY] = {"locality", NULL},
    [MG_ORDER_INVENTORY] = {"inventory", NULL},
    [MG_ORDER_TORUS] = {"torus", NULL},
};
const struct mg_words mg_order_words = {mg_orders, MG_COUNT(mg_orders)};

static const struct mg_word mg_tpu_methods[] = {
    [MG_TPU_HANDLER] = {"handler", NULL},
    [MG_TPU_TORUS] = {"torus", NULL},
    [MG_TPU_SPLIT] = {"split", NULL},
};
const struct mg_words mg_tpu_method_words = {mg_tpu_methods, MG_COUNT(mg_tpu_methods)};

static const struct mg_word mg_process_modes[] = {
    [MESHGEN_PROCESSES_HOST] = {"host", "MESHGEN_PROCESSES_HOST"},
    [MESHGEN_PROCESSES_DEVICE] = {"device", "MESHGEN_PROCESSES_DEVICE"},
};
const struct mg_words mg_process_words = {mg_process_modes, MG_COUNT(mg_process_modes)};

static const struct mg_word mg_granules[] = {
    [MG_GRANULE_HOST] = {"host", NULL},
    [MG_GRANULE_SLICE] = {"slice", NULL},
};
const struct mg_words mg_granule_words = {mg_granules, MG_COUNT(mg_granules)};

static const struct mg_word mg_severities[] = {
    [MG_SEV_ERROR] = {"error", NULL},
    [MG_SEV_WARNING] = {"warning", NULL},
    [MG_SEV_NOTE] = {"note", NULL},
};
const struct mg_words mg_severity_words = {mg_severities, MG_COUNT(mg_severities)};

static const struct mg_word mg_formats[] = {
    [MG_FORMAT_TEXT] = {"text", NULL},
    [MG_FORMAT_JSON] = {"json", NULL},
    [MG_FORMAT_GITHUB] = {"github", NULL},
    [MG_FORMAT_SARIF] = {"sarif", NULL},
};
const struct mg_words mg_format_words = {mg_formats, MG_COUNT(mg_formats)};

static const struct mg_word mg_whens[] = {
    [MG_WHEN_AUTO] = {"auto", NULL},
    [MG_WHEN_ALWAYS] = {"always", NULL},
    [MG_WHEN_NEVER] = {"never", NULL},
};
const struct mg_words mg_when_words = {mg_whens, MG_COUNT(mg_whens)};

static const struct mg_word mg_color_bys[] = {
    [MG_COLOR_BY_HOST] = {"host", NULL},
    [MG_COLOR_BY_SLICE] = {"slice", NULL},
    [MG_COLOR_BY_STAGE] = {"stage", NULL},
};
const struct mg_words mg_color_by_words = {mg_color_bys, MG_COUNT(mg_color_bys)};

static const struct mg_word mg_commands[] = {
    [MG_CMD_VALIDATE] = {"validate", NULL},   [MG_CMD_GENERATE] = {"generate", NULL},
    [MG_CMD_RESOLVE] = {"resolve", NULL},     [MG_CMD_SHOW] = {"show", NULL},
    [MG_CMD_INVENTORY] = {"inventory", NULL}, [MG_CMD_ENV] = {"env", NULL},
    [MG_CMD_VERIFY] = {"verify", NULL},
};
_Static_assert(sizeof mg_commands / sizeof mg_commands[0] == MG_N_COMMANDS,
               "a word for every command");
const struct mg_words mg_command_words = {mg_commands, MG_COUNT(mg_commands)};

static const struct mg_word mg_env_formats[] = {
    [MG_ENV_SH] = {"sh", NULL},
    [MG_ENV_JSON] = {"json", NULL},
};
const struct mg_words mg_env_format_words = {mg_env_formats, MG_COUNT(mg_env_formats)};

const char *mg_word(const struct mg_words *words, int value)
{
    return value >= 0 && value < words->n ? words->w[value].name : "unknown";
}

const char *mg_word_c(const struct mg_words *words, int value)
{
    return value >= 0 && value < words->n ? words->w[value].c_name : NULL;
}

int mg_word_value(const struct mg_words *words, const char *name)
{
    int i;
    for (i = 0; name && i < words->n; i++)
        if (strcmp(name, words->w[i].name) == 0)
            return i;
    return -1;
}

void mg_word_list(struct mg_buf *b, const struct mg_words *words, const char *last)
{
    int i;
    for (i = 0; i < words->n; i++) {
        if (i > 0)
            mg_buf_puts(b, i == words->n - 1 ? last : ", ");
        mg_buf_puts(b, words->w[i].name);
    }
}

const char *mg_kind_name(int kind)
{
    return mg_word(&mg_kind_words, kind);
}

int mg_kind_from_name(const char *name)
{
    return mg_word_value(&mg_kind_words, name);
}
