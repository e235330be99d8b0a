/*
 * meshgen's command line: options, usage and exit codes — nothing else.
 * It uses the generator only through its public header: every command is
 * run by mg_run_command, and the words of commands and option values are
 * the library's.
 */
#define _DEFAULT_SOURCE /* getopt_long */
#include <meshgen/gen.h>
#include <meshgen/meshgen.h> /* MESHGEN_VERSION_STRING */

/* MG_PRINTF: macros only, private to meshgen, reached by its place in the
 * tree. */
#include "../runtime/util.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char mg_usage_main[] =
    "usage: meshgen <command> [options] [FILE...]\n"
    "\n"
    "A build-time compiler for device meshes: checks a YAML mesh spec against a\n"
    "device inventory and emits C tables for the meshgen runtime.\n"
    "\n"
    "commands:\n"
    "  validate FILE...     check mesh specs and inventories; errors as file:line:col\n"
    "  generate FILE -o DIR write DIR/<name>_mesh.h and DIR/<name>_mesh.c\n"
    "  resolve FILE         print the resolved mesh as JSON\n"
    "  show FILE            draw the mesh as a grid of device ids\n"
    "  inventory            list the devices hwloc sees (--inventory to read a file,\n"
    "                       --export FILE to write an XML snapshot)\n"
    "  env FILE             the variables that place this process (sh or JSON)\n"
    "  verify FILE          compare this machine with its host in the inventory\n"
    "  help [COMMAND]       this text, or a command's\n"
    "\n"
    "Run 'meshgen COMMAND --help' for a command's options. Exit codes: 0 ok,\n"
    "1 the inputs are wrong, 2 usage or I/O error.\n";

static const char mg_usage_common[] =
    "  --inventory SRC   the devices: an hwloc .xml file, an inventory .yaml file,\n"
    "                    'synthetic:<hwloc synthetic description>' (e.g.\n"
    "                    'synthetic:pack:2 core:4 pu:2') or 'live' (this machine).\n"
    "                    Overrides the spec's 'inventory:' key; without either,\n"
    "                    this machine is used.\n"
    "  --mesh STR        a mesh instead of a spec file: 'dp:2,tp:4', or '2,4' with\n"
    "                    --axes dp,tp (one size may be -1)\n"
    "  --axes NAMES      axis names for a positional --mesh\n"
    "  --name NAME       the mesh name (prefix of emitted symbols); overrides the\n"
    "                    spec's 'name:'; default 'mesh' with --mesh\n";

/* Every command's but env's, whose --format is its output's. */
static const char mg_usage_format[] =
    "  --format FMT      diagnostics as text (default), json (one document per run),\n"
    "                    github (workflow commands) or sarif (SARIF 2.1.0)\n";

/* The help of each command; its name is in words.c. */
struct mg_help {
    const char *synopsis;
    const char *text;
    const char *extra; /* options of this command only */
};

static const struct mg_help mg_helps[MG_N_COMMANDS] = {
    [MG_CMD_VALIDATE] =
        {"meshgen validate [options] FILE...",
         "Checks each mesh spec against its inventory, and each inventory file\n"
         "(a file with 'meshgen-inventory:') on its own, and reports every error as\n"
         "FILE:LINE:COL: error: MESSAGE [check-name]. Writes nothing.\n",
         ""},
    [MG_CMD_GENERATE] =
        {"meshgen generate [options] FILE -o DIR",
         "Checks the spec and writes DIR/<name>_mesh.h and DIR/<name>_mesh.c: the\n"
         "compile-time constants and the static tables of the mesh. Files are written\n"
         "atomically and only when there is no error; the output is byte-identical\n"
         "for the same inputs, and a file that already holds it is left untouched.\n",
         "  -o, --output DIR  the output directory (must exist; default '.')\n"
         "  --depfile FILE    also write a Make-style depfile listing every input read\n"
         "  --print-outputs   print the paths of the .h and .c it would write (from the\n"
         "                    spec's name or --name), one a line, and write nothing; reads\n"
         "                    the spec but not the inventory (for build systems)\n"
         "  --groups WHEN     emit each axis's groups as static tables: auto (default:\n"
         "                    when devices x axes <= 65536), always or never\n"},
    [MG_CMD_RESOLVE] =
        {"meshgen resolve [options] FILE",
         "Prints the resolved mesh as one JSON object: axes, hosts, devices, the mesh\n"
         "(device id at each position, row-major), processes and shardings.\n",
         ""},
    [MG_CMD_SHOW] =
        {"meshgen show [options] FILE",
         "Draws the mesh as a grid (rows: all axes but the last; columns: the last),\n"
         "each cell a device id and its host's index (the hosts named below), coloured\n"
         "by host, slice or MPMD stage; past 256 hosts by slice, or by runs of\n"
         "consecutive hosts. At most 1000 rows and 64 columns, then a note.\n",
         "  --color WHEN      auto (default: when stdout is a terminal, TERM is set and\n"
         "                    not 'dumb', and NO_COLOR is unset), always or never\n"
         "  --color-by KEY    what colours a cell: host (default), slice or stage\n"
         "  --svg FILE        also draw the grid as an SVG picture into FILE (with a\n"
         "                    legend by name; past 64 rows or columns, blocks of\n"
         "                    positions), written even when stdout's reader goes away;\n"
         "                    for a TPU mesh, below it each slice chip by chip, one\n"
         "                    x-y plane per z, with its wraparound links\n"},
    [MG_CMD_INVENTORY] =
        {"meshgen inventory [--inventory SRC] [--export FILE]",
         "Lists what hwloc sees: each host's device counts per kind, its GPUs (PCI bus\n"
         "id, NUMA node, cpuset, model, UUID) and their closeness matrix, NUMA nodes\n"
         "and packages.\n",
         "  --export FILE     write the source (this machine unless --inventory gives an\n"
         "                    .xml file or a synthetic description) as an hwloc XML\n"
         "                    snapshot to check in, instead of listing it. It reads back\n"
         "                    as the same inventory, and two exports of one machine are\n"
         "                    byte-identical (no process name or cgroup in it).\n"
         "                    A whole allocation, one snapshot per host, for an\n"
         "                    inventory's 'topology: snap/{host}.xml':\n"
         "                      srun --ntasks-per-node=1 sh -c \\\n"
         "                        'meshgen inventory --export snap/$(hostname -s).xml'\n"},
    [MG_CMD_ENV] = {"meshgen env [options] FILE [--host H] [--local-rank L | --process P]",
                    "Prints the variables that place one process of the mesh, for a wrapper\n"
                    "script (eval \"$(meshgen env mesh.yaml)\") or a program that reads JSON:\n"
                    "CUDA_VISIBLE_DEVICES (and CUDA_DEVICE_ORDER), ROCR_VISIBLE_DEVICES,\n"
                    "ZE_AFFINITY_MASK (and ZE_ENABLE_PCI_ID_DEVICE_ORDER and\n"
                    "ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE: an Intel card of several tiles is\n"
                    "one device), one for each vendor of the process's GPUs\n"
                    "(HIP_VISIBLE_DEVICES beside CUDA's and ROCm's);\n"
                    "libtpu's TPU_* variables for one process per TPU chip; OMP_PLACES and\n"
                    "OMP_PROC_BIND, MESHGEN_PROCESS and MESHGEN_PROCESS_COUNT. The process\n"
                    "is found as the runtime finds it: the host by name (MESHGEN_HOSTNAME,\n"
                    "SLURMD_NODENAME, gethostname()), the innermost launcher's local rank, or\n"
                    "MESHGEN_PROCESS. For example:\n"
                    "  srun --ntasks-per-node=8 sh -c \\\n"
                    "    'v=$(meshgen env mesh.yaml) && eval \"$v\" && exec python train.py'\n"
                    "(an eval of \"$(...)\" alone would succeed when meshgen fails).\n",
                    "  --host H          this machine's name (instead of MESHGEN_HOSTNAME, ...)\n"
                    "  --local-rank L    the process's local rank on its host (instead of the\n"
                    "                    launcher's variables)\n"
                    "  --process P       the process index itself\n"
                    "  --format FMT      sh (default: export lines, values single-quoted) or\n"
                    "                    json; diagnostics are text\n"},
    [MG_CMD_VERIFY] =
        {"meshgen verify [options] FILE [--host H]",
         "Compares this machine with its host's entry in the inventory the spec names:\n"
         "its GPUs one by one (PCI bus id, PCI vendor id, model, UUID where the\n"
         "inventory knows it, NUMA node, cpuset), its NUMA nodes, and its counts of\n"
         "cores, packages and PUs. Each difference is an error at the line of the\n"
         "topology file that expects otherwise [node-drift]; exit 0 when the node\n"
         "matches, 1 on any difference. The host is found as the runtime finds it\n"
         "(MESHGEN_HOSTNAME, SLURMD_NODENAME, gethostname()); the machine is hwloc's\n"
         "(HWLOC_XMLFILE, checked as topology files are, stands in for it). On every\n"
         "node of a job, before it starts (a Slurm prolog does the same):\n"
         "  srun -N$SLURM_NNODES --ntasks-per-node=1 meshgen verify mesh.yaml\n",
         "  --host H          this machine's name (instead of MESHGEN_HOSTNAME, ...)\n"},
};

static void mg_command_help(enum mg_command cmd, FILE *out)
{
    const struct mg_help *h = &mg_helps[cmd];
    fprintf(out, "usage: %s\n\n%s\noptions:\n%s%s%s  -h, --help        this help\n", h->synopsis,
            h->text, h->extra, mg_usage_common, cmd == MG_CMD_ENV ? "" : mg_usage_format);
}

/* A command-line argument as a message may echo it: escaped as terminal
 * text and cut past 200 bytes (at a character) with "...", as diagnostics
 * echo their values (docs/reference.md, "Checks"). Escaped, 200 bytes take
 * at most 800, so cap 1024 holds them. Returns buf. */
static const char *mg_arg_shown(const char *s, char *buf, size_t cap)
{
    struct mg_buf b;
    size_t n;

    mg_buf_init(&b);
    mg_echo(&b, s, 200);
    n = b.len < cap ? b.len : cap - 1;
    memcpy(buf, b.data, n);
    buf[n] = '\0';
    mg_buf_free(&b);
    return buf;
}

static int mg_usage_error(enum mg_command cmd, const char *fmt, ...) MG_PRINTF(2, 3);
static int mg_usage_error(enum mg_command cmd, const char *fmt, ...)
{
    va_list ap;
    fputs("meshgen: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\nTry 'meshgen %s --help'.\n", mg_helps[cmd].synopsis,
            mg_word(&mg_command_words, cmd));
    return MG_EXIT_USAGE;
}

/* An option whose value is a word of an enumeration (words.c). Returns 0
 * with *out set, or -1 after the usage error, which lists the words. */
static int mg_option_word(enum mg_command cmd, const char *option, const struct mg_words *words,
                          const char *value, int *out)
{
    struct mg_suggest s;
    struct mg_buf b;
    char shown[1024];

    *out = mg_word_value(words, value);
    if (*out >= 0)
        return 0;
    mg_buf_init(&b);
    mg_word_list(&b, words, " or ");
    mg_suggest_init(&s, value);
    mg_suggest_words(&s, words);
    mg_buf_puts(&b, ", not '");
    mg_buf_puts(&b, mg_arg_shown(value, shown, sizeof shown));
    mg_buf_puts(&b, "'");
    mg_suggest_put(&b, &s);
    mg_usage_error(cmd, "%s must be %s", option, b.data);
    mg_buf_free(&b);
    return -1;
}

enum {
    OPT_INVENTORY = 256,
    OPT_MESH,
    OPT_AXES,
    OPT_NAME,
    OPT_FORMAT,
    OPT_DEPFILE,
    OPT_COLOR,
    OPT_COLOR_BY,
    OPT_GROUPS,
    OPT_EXPORT,
    OPT_SVG,
    OPT_HOST,
    OPT_LOCAL_RANK,
    OPT_PROCESS,
    OPT_PRINT_OUTPUTS,
};

static const struct option mg_long_options[] = {
    {"inventory", required_argument, NULL, OPT_INVENTORY},
    {"mesh", required_argument, NULL, OPT_MESH},
    {"axes", required_argument, NULL, OPT_AXES},
    {"name", required_argument, NULL, OPT_NAME},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"depfile", required_argument, NULL, OPT_DEPFILE},
    {"print-outputs", no_argument, NULL, OPT_PRINT_OUTPUTS},
    {"color", required_argument, NULL, OPT_COLOR},
    {"color-by", required_argument, NULL, OPT_COLOR_BY},
    {"groups", required_argument, NULL, OPT_GROUPS},
    {"svg", required_argument, NULL, OPT_SVG},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"host", required_argument, NULL, OPT_HOST},
    {"local-rank", required_argument, NULL, OPT_LOCAL_RANK},
    {"process", required_argument, NULL, OPT_PROCESS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* A count for --local-rank or --process: decimal digits, below 2^31.
 * Returns 0 with *out set, or -1 after the usage error. */
static int mg_option_count(enum mg_command cmd, const char *option, const char *value, int *out)
{
    long v = 0;
    const char *p = value;
    char shown[1024];

    for (; *p >= '0' && *p <= '9' && v <= 0x7fffffffL; p++)
        v = v * 10 + (*p - '0');
    if (*value && !*p && v <= 0x7fffffffL) {
        *out = (int)v;
        return 0;
    }
    mg_usage_error(cmd, "%s must be a number (decimal digits), not '%s'", option,
                   mg_arg_shown(value, shown, sizeof shown));
    return -1;
}

/* "; did you mean '--inventory'?" for an unknown long option (written
 * without its "--"; a "=value" is not part of its name), into buf. */
static const char *mg_option_suggestion(const char *name, char *buf, size_t cap)
{
    struct mg_suggest s;
    const char *w[MG_SUGGEST_MAX];
    char word[64];
    size_t i, n = strcspn(name, "=");
    int k, found;

    buf[0] = '\0';
    if (n >= sizeof word)
        return buf;
    memcpy(word, name, n);
    word[n] = '\0';
    mg_suggest_init(&s, word);
    for (i = 0; mg_long_options[i].name; i++)
        mg_suggest_add(&s, mg_long_options[i].name);
    found = mg_suggest_result(&s, w);
    for (k = 0; k < found; k++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s'--%s'",
                 k == 0           ? "; did you mean "
                 : k + 1 == found ? " or "
                                  : ", ",
                 w[k]);
    if (found)
        snprintf(buf + strlen(buf), cap - strlen(buf), "?");
    return buf;
}

/* An unknown option: a long one as written; a short one by its letter and
 * the word it starts, which may be a file whose name starts with '-'
 * (`validate -weird.yaml`), so the message says how to name such a file. */
static int mg_unknown_option(enum mg_command cmd, const char *arg)
{
    char shown[1024], letter[8], hint[160];
    const char in[] = {'-', arg[1], '\0'};

    mg_arg_shown(arg, shown, sizeof shown);
    if (arg[1] == '-')
        return mg_usage_error(cmd, "unknown option '%s'%s", shown,
                              mg_option_suggestion(arg + 2, hint, sizeof hint));
    mg_arg_shown(in, letter, sizeof letter);
    if (!arg[2])
        return mg_usage_error(
            cmd, "unknown option '%s' (a file named so: write './%s', or put '--' before it)",
            letter, shown);
    return mg_usage_error(
        cmd, "unknown option '%s' in '%s' (a file named so: write './%s', or put '--' before it)",
        letter, shown, shown);
}

/* One option, the word arg of the command line, into *o. Returns -1 to go
 * on, or the exit code: 0 after --help, 2 after a usage error. */
static int mg_parse_option(enum mg_command cmd, int ch, const char *arg, struct mg_opts *o)
{
    int value;
    char shown[1024];

    switch (ch) {
    case OPT_INVENTORY: o->inventory = optarg; break;
    case OPT_MESH: o->mesh = optarg; break;
    case OPT_AXES: o->axes = optarg; break;
    case OPT_NAME: o->name = optarg; break;
    case 'o': o->out_dir = optarg; break;
    case OPT_DEPFILE: o->depfile = optarg; break;
    case OPT_PRINT_OUTPUTS: o->print_outputs = 1; break;
    case OPT_SVG: o->svg_path = optarg; break;
    case OPT_EXPORT: o->export_path = optarg; break;
    case OPT_HOST: o->env_host = optarg; break;
    case OPT_LOCAL_RANK:
        if (mg_option_count(cmd, "--local-rank", optarg, &o->env_local_rank) != 0)
            return MG_EXIT_USAGE;
        break;
    case OPT_PROCESS:
        if (mg_option_count(cmd, "--process", optarg, &o->env_process) != 0)
            return MG_EXIT_USAGE;
        break;
    case OPT_FORMAT:
        if (cmd == MG_CMD_ENV) {
            if (mg_option_word(cmd, "--format", &mg_env_format_words, optarg, &value) != 0)
                return MG_EXIT_USAGE;
            o->env_format = (enum mg_env_format)value;
            break;
        }
        if (mg_option_word(cmd, "--format", &mg_format_words, optarg, &value) != 0)
            return MG_EXIT_USAGE;
        o->format = (enum mg_diag_format)value;
        break;
    case OPT_COLOR:
        if (mg_option_word(cmd, "--color", &mg_when_words, optarg, &value) != 0)
            return MG_EXIT_USAGE;
        o->color = (enum mg_when)value;
        break;
    case OPT_COLOR_BY:
        if (mg_option_word(cmd, "--color-by", &mg_color_by_words, optarg, &value) != 0)
            return MG_EXIT_USAGE;
        o->color_by = (enum mg_color_by)value;
        o->color_by_given = 1;
        break;
    case OPT_GROUPS:
        if (mg_option_word(cmd, "--groups", &mg_when_words, optarg, &value) != 0)
            return MG_EXIT_USAGE;
        o->groups = (enum mg_when)value;
        break;
    case 'h': mg_command_help(cmd, stdout); return MG_EXIT_OK;
    case ':':
        return mg_usage_error(cmd, "option '%s' needs an argument",
                              mg_arg_shown(arg, shown, sizeof shown));
    default: return mg_unknown_option(cmd, arg);
    }
    return -1;
}

/* Whether the options and files fit the command. Options that only one
 * command takes are refused elsewhere, so a mistyped command line never
 * silently does less than asked. Returns -1 when they fit, else the exit
 * code after the usage error. */
static int mg_check_usage(enum mg_command cmd, const struct mg_opts *o, int n_files, char **files)
{
    char shown[1024];

    if ((o->out_dir || o->depfile || o->print_outputs) && cmd != MG_CMD_GENERATE)
        return mg_usage_error(cmd, "%s is an option of 'generate' only",
                              o->out_dir         ? "-o"
                              : o->print_outputs ? "--print-outputs"
                                                 : "--depfile");
    if ((o->svg_path || o->color_by_given) && cmd != MG_CMD_SHOW)
        return mg_usage_error(cmd, "%s is an option of 'show' only",
                              o->svg_path ? "--svg" : "--color-by");
    if (o->axes && !o->mesh)
        return mg_usage_error(cmd, "%s needs --mesh", "--axes");
    if (o->export_path && cmd != MG_CMD_INVENTORY)
        return mg_usage_error(cmd, "%s is an option of 'inventory' only", "--export");
    if (o->env_host && cmd != MG_CMD_ENV && cmd != MG_CMD_VERIFY)
        return mg_usage_error(cmd, "%s is an option of 'env' and 'verify' only", "--host");
    if ((o->env_local_rank >= 0 || o->env_process >= 0) && cmd != MG_CMD_ENV)
        return mg_usage_error(cmd, "%s is an option of 'env' only",
                              o->env_local_rank >= 0 ? "--local-rank" : "--process");
    if (o->env_local_rank >= 0 && o->env_process >= 0)
        return mg_usage_error(cmd, "give %s or %s, not both", "--local-rank", "--process");
    if (cmd == MG_CMD_INVENTORY) {
        if (n_files > 0 || o->mesh)
            return mg_usage_error(cmd, "'inventory' takes no file or --mesh; use %s",
                                  "--inventory SRC");
        return -1;
    }
    if (o->mesh && n_files > 0)
        return mg_usage_error(cmd, "give a spec file or --mesh, not both (got '%s')",
                              mg_arg_shown(files[0], shown, sizeof shown));
    if (!o->mesh && n_files == 0)
        return mg_usage_error(cmd, "%s", "no spec file given (or use --mesh)");
    if (cmd != MG_CMD_VALIDATE && n_files > 1)
        return mg_usage_error(cmd, "one spec file at a time (got '%s' too)",
                              mg_arg_shown(files[1], shown, sizeof shown));
    return -1;
}

/* An unknown command, with the one it may stand for, then the usage
 * (after `gap`). */
static void mg_unknown_command(const char *arg, const char *gap)
{
    struct mg_suggest s;
    struct mg_buf b;
    char shown[1024];

    mg_suggest_init(&s, arg);
    mg_suggest_words(&s, &mg_command_words);
    mg_suggest_add(&s, "help");
    mg_suggest_add(&s, "version");
    mg_buf_init(&b);
    mg_suggest_put(&b, &s);
    fprintf(stderr, "meshgen: unknown command '%s'%s\n%s%s", mg_arg_shown(arg, shown, sizeof shown),
            b.data ? b.data : "", gap, mg_usage_main);
    mg_buf_free(&b);
}

/* What comes before a command: help, the version, or no command. Returns
 * the command, or -1 with *code set when there is nothing more to do. */
static int mg_find_command(int argc, char **argv, int *code)
{
    int cmd;

    *code = MG_EXIT_OK;
    if (argc < 2) {
        fputs(mg_usage_main, stderr);
        *code = MG_EXIT_USAGE;
        return -1;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(mg_usage_main, stdout);
        return -1;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("meshgen %s\n", MESHGEN_VERSION_STRING);
        return -1;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (argc < 3) {
            fputs(mg_usage_main, stdout);
            return -1;
        }
        cmd = mg_word_value(&mg_command_words, argv[2]);
        if (cmd < 0) {
            mg_unknown_command(argv[2], "");
            *code = MG_EXIT_USAGE;
            return -1;
        }
        mg_command_help((enum mg_command)cmd, stdout);
        return -1;
    }
    cmd = mg_word_value(&mg_command_words, argv[1]);
    if (cmd < 0) {
        mg_unknown_command(argv[1], "\n");
        *code = MG_EXIT_USAGE;
    }
    return cmd;
}

/* The options of argv (argv[0] is the command's name) into *o, the files
 * into files[0..*n_files). getopt_long returns the words in order ('-'
 * first in its option string), so each call reads the word at optind when
 * it starts (no option here takes the rest of a word after a letter that
 * is one: -o takes it as its value, -h stops), and a message can name the
 * word it failed on. Returns -1 to go on, or the exit code. */
static int mg_parse_argv(enum mg_command cmd, int argc, char **argv, struct mg_opts *o,
                         char **files, int *n_files)
{
    int ch, code, at = optind = 1;

    opterr = 0;
    *n_files = 0;
    while ((ch = getopt_long(argc, argv, "-:o:h", mg_long_options, NULL)) != -1) {
        if (ch == 1)
            files[(*n_files)++] = optarg;
        else if ((code = mg_parse_option(cmd, ch, argv[at], o)) >= 0)
            return code;
        at = optind;
    }
    while (optind < argc) /* after "--" */
        files[(*n_files)++] = argv[optind++];
    return -1;
}

/* --color=auto (the default) is decided here, for the stream show writes
 * to: colour only where a person reads it, on a terminal that shows colour
 * (TERM set and not "dumb", as git decides), and not when NO_COLOR is set
 * (no-color.org). The driver colours for always only. */
static enum mg_when mg_color_when(enum mg_when when, FILE *out)
{
    const char *term = getenv("TERM");

    if (when != MG_WHEN_AUTO)
        return when;
    if (isatty(fileno(out)) && term && *term && strcmp(term, "dumb") != 0 && !getenv("NO_COLOR"))
        return MG_WHEN_ALWAYS;
    return MG_WHEN_NEVER;
}

static int mg_main(int argc, char **argv)
{
    struct mg_opts o;
    int cmd, code, n_files;
    char **files;

    cmd = mg_find_command(argc, argv, &code);
    if (cmd < 0)
        return code;
    mg_opts_init(&o);
    if (!(files = calloc((size_t)argc, sizeof *files)))
        mg_oom();
    code = mg_parse_argv((enum mg_command)cmd, argc - 1, argv + 1, &o, files, &n_files);
    o.color = mg_color_when(o.color, o.out);
    if (code < 0)
        code = mg_check_usage((enum mg_command)cmd, &o, n_files, files);
    if (code < 0)
        code = mg_run_command((enum mg_command)cmd, &o, n_files, files);
    free(files);
    return code;
}

/* Whatever went to stdout (help, the version, a command's result) must
 * have arrived: a stream that could not be written is an I/O error, exit 2
 * with a message, never a silent success. A run that already failed with
 * exit 2 has said why. */
int main(int argc, char **argv)
{
    int code, err;

    /* A reader that goes away (`meshgen show big.yaml | head`) is a write
     * error like any other, reported with exit 2, not a silent death by
     * SIGPIPE (exit 141) that could leave the work half done. */
    signal(SIGPIPE, SIG_IGN);

    /* A file-size limit (ulimit -f) then fails a write with EFBIG, which is
     * reported as an I/O error, instead of killing the process silently. */
    signal(SIGXFSZ, SIG_IGN);
    code = mg_main(argc, argv);
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return code;
    err = errno;
    if (code != MG_EXIT_USAGE)
        fprintf(stderr, "meshgen: error: cannot write the output: %s\n",
                err ? strerror(err) : "write error");
    return MG_EXIT_USAGE;
}
