/*
 * YAML text -> the generic node tree of internal.h (struct mg_node), through
 * libyaml's event parser. This is the only file that includes <yaml.h>.
 *
 * It knows YAML and nothing of the mesh format: it turns events into nodes
 * with 1-based marks, copies every string into the arena before the event
 * is deleted, and keeps hostile input bounded in time and memory (nesting
 * depth, the expanded size of aliases, the number of nodes and events).
 * Interpreting scalars (is `8` an integer?) is spec.c's job: a scalar keeps
 * its text, its quoting and its explicit tag.
 *
 * Aliases are resolved by sharing the anchored node, so the tree is a DAG.
 * A collection's anchor is registered only when the collection ends, which
 * makes an alias to an enclosing node an unknown anchor: no cycles.
 */
#include "internal.h"
#include "diag.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

/* libyaml 0.2.5 has no nesting limit of its own; 64 is far beyond any spec. */
#define MG_YAML_MAX_DEPTH 64
/* A node counts 1 plus the expanded size of its children, an alias counting
 * the whole node it names: this rejects "billion laughs" documents. */
#define MG_YAML_MAX_EXPANDED 1000000u
#define MG_YAML_MAX_EVENTS 10000000u

/* A finished node waiting in an open collection, with its expanded size. */
struct mg_yslot {
    struct mg_node *node;
    uint64_t size;
};

/* An open sequence or mapping: its children are slots[first..]. */
struct mg_yframe {
    struct mg_node *node;
    const char *anchor; /* registered when the collection ends */
    size_t first;
    uint64_t size;
};

struct mg_yanchor {
    const char *name; /* NULL: empty bucket */
    struct mg_node *node;
    uint64_t size;
};

/* A place in the text: libyaml's character index, the byte it starts at,
 * and the line and column an editor shows there. */
struct mg_ypos {
    size_t index, byte;
    int line, col;
    int after_cr; /* the character before was a CR: a LF here ends no line */
};

struct mg_yloader {
    struct mg_arena *arena;
    struct mg_diags *diags;
    const char *file;
    const char *buf;
    size_t len;
    struct mg_ypos pos; /* where the last mark was found (mg_yaml_mark) */
    int utf16;          /* libyaml decodes UTF-16: its own lines are kept */

    /* Heap, not arena: these grow and are thrown away when parsing ends. */
    struct mg_yslot *slots;
    size_t n_slots, cap_slots;
    struct mg_yanchor *anchors; /* open addressing, power-of-two size */
    size_t n_anchors, cap_anchors;

    struct mg_yframe frames[MG_YAML_MAX_DEPTH];
    int depth;
    int n_documents;
    size_t n_nodes;
    struct mg_node *root;
    int failed; /* an error was reported: the tree is not returned */
};

static void *mg_yaml_realloc(void *p, size_t n, size_t size)
{
    void *q;
    /* The same policy as the arena: nothing useful is left to do. */
    if (n > SIZE_MAX / size || !(q = realloc(p, n * size)))
        mg_oom();
    return q;
}

static int mg_yaml_clamp(size_t v)
{
    return v >= (size_t)INT_MAX ? INT_MAX : (int)v + 1;
}

/* The start of the text: after a UTF-8 byte order mark, which libyaml
 * drops before it counts characters. */
static void mg_yaml_pos_start(struct mg_yloader *l)
{
    memset(&l->pos, 0, sizeof l->pos);
    l->pos.line = l->pos.col = 1;
    if (l->len >= 3 && memcmp(l->buf, "\xEF\xBB\xBF", 3) == 0)
        l->pos.byte = 3;
}

/* Where libyaml's mark m is, as editors count lines: libyaml (YAML 1.1)
 * also ends a line at U+0085, U+2028 and U+2029, which editors and YAML
 * 1.2 do not, so its line numbers drift past one of them, in a comment
 * too. Lines here end at LF, CR LF and CR only, and columns count code
 * points, as libyaml's do. The text libyaml has read up to m is valid
 * UTF-8; marks mostly come in order, so the walk goes on from the last. */
static struct mg_mark mg_yaml_mark(struct mg_yloader *l, yaml_mark_t m)
{
    struct mg_mark at = {l->file, mg_yaml_clamp(m.line), mg_yaml_clamp(m.column)};
    struct mg_ypos *p = &l->pos;

    if (l->utf16)
        return at;
    if (m.index < p->index)
        mg_yaml_pos_start(l);
    while (p->index < m.index && p->byte < l->len) {
        unsigned char ch = (unsigned char)l->buf[p->byte];
        if (ch == '\r' || (ch == '\n' && !p->after_cr)) {
            p->line += p->line < INT_MAX;
            p->col = 1;
        } else if (ch != '\n') {
            p->col += p->col < INT_MAX;
        }
        p->after_cr = ch == '\r';
        p->byte += ch < 0xC0 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
        p->index++;
    }
    at.line = p->line;
    at.col = p->col;
    return at;
}

/* libyaml reports reader errors (bad encoding, control characters) by byte
 * offset only; turn it into line and column, counting UTF-8 characters. */
static struct mg_mark mg_yaml_offset_mark(const struct mg_yloader *l, size_t offset)
{
    struct mg_mark at = {l->file, 1, 1};
    size_t i;

    if (offset > l->len)
        offset = l->len;
    for (i = 0; i < offset; i++) {
        unsigned char ch = (unsigned char)l->buf[i];
        if (ch == '\n' || (ch == '\r' && (i + 1 >= l->len || l->buf[i + 1] != '\n'))) {
            if (at.line < INT_MAX)
                at.line++;
            at.col = 1;
        } else if ((ch & 0xC0) != 0x80 && ch != '\r' && at.col < INT_MAX) {
            at.col++;
        }
    }
    return at;
}

/* ---- syntax errors, in a beginner's words ----------------------------------- */

/* libyaml names a syntax error by what its grammar missed ("did not find
 * expected key"), which says little to someone who wrote a tab or one
 * space too many. The mistakes people make most (a tab, a line indented
 * to match nothing, a key without ':', a bracket or quote left open) are
 * recognised from the error and the text around it, and said in their
 * own words with the line to fix (docs/reference.md, "YAML mistakes");
 * anything else keeps libyaml's words. */

/* One line of the text. */
struct mg_yline {
    size_t start, end; /* its bytes, without the line end */
    int number;        /* as editors count */
    int indent;        /* the spaces it starts with */
    int key_indent;    /* past "- " list markers too: where its key starts */
    int tab_col;       /* the column of a tab among its leading blanks; 0: none */
    int empty;         /* blank, or only a comment */
};

static int mg_yaml_eol(char c)
{
    return c == '\n' || c == '\r';
}

/* The line that holds byte `at`, numbered `number`. */
static void mg_yaml_line_at(const struct mg_yloader *l, size_t at, int number, struct mg_yline *y)
{
    size_t i, bom = l->len >= 3 && memcmp(l->buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;

    y->start = at < l->len ? at : l->len;
    while (y->start > bom && !mg_yaml_eol(l->buf[y->start - 1]))
        y->start--;
    for (y->end = y->start; y->end < l->len && !mg_yaml_eol(l->buf[y->end]); y->end++)
        ;
    y->number = number;
    y->indent = y->tab_col = 0;
    for (i = y->start; i < y->end && (l->buf[i] == ' ' || l->buf[i] == '\t'); i++) {
        if (l->buf[i] == '\t' && !y->tab_col)
            y->tab_col = (int)(i - y->start) + 1;
        y->indent += !y->tab_col;
    }
    y->empty = i == y->end || l->buf[i] == '#';
    while (i + 1 < y->end && l->buf[i] == '-' && l->buf[i + 1] == ' ')
        for (i++; i < y->end && l->buf[i] == ' '; i++)
            ;
    y->key_indent = (int)(i - y->start);
}

/* The nearest line above y that is neither blank nor only a comment;
 * returns 0 when there is none. */
static int mg_yaml_line_above(const struct mg_yloader *l, const struct mg_yline *y,
                              struct mg_yline *above)
{
    struct mg_yline cur = *y;

    while (cur.number > 1 && cur.start > 0) {
        size_t end = cur.start - 1; /* the last byte of the line end before */
        if (l->buf[end] == '\n' && end > 0 && l->buf[end - 1] == '\r')
            end--;
        mg_yaml_line_at(l, end, cur.number - 1, &cur);
        if (!cur.empty) {
            *above = cur;
            return 1;
        }
    }
    return 0;
}

/* "3 spaces", "1 space", or "0 spaces". */
static const char *mg_yaml_spaces(struct mg_arena *a, int n)
{
    return mg_printf(a, "%d space%s", n, n == 1 ? "" : "s");
}

/* Whether line y holds a key: a ':' that ends its text or stands before
 * a blank (a rough reading, for a hint only). */
static int mg_yaml_has_key(const struct mg_yloader *l, const struct mg_yline *y)
{
    size_t i;

    for (i = y->start; i < y->end; i++)
        if (l->buf[i] == ':' && (i + 1 == y->end || l->buf[i + 1] == ' '))
            return 1;
    return 0;
}

/* A line indented to match no line above it: says how each enclosing
 * line above is indented (at most four). Returns 0 when it does match
 * one, which is then not the mistake. */
static int mg_yaml_misaligned(struct mg_yloader *l, const struct mg_yline *y, struct mg_mark at)
{
    struct mg_yline cur = *y, up;
    struct mg_buf b;
    int n = 0, low = INT_MAX, aligned = 0;

    mg_buf_init(&b);
    while (n < 4 && low > 0 && mg_yaml_line_above(l, &cur, &up)) {
        cur = up;
        if (up.indent >= low)
            continue;
        low = up.indent;
        aligned |= y->indent == up.indent || y->indent == up.key_indent;
        mg_buf_printf(&b, n ? ", line %d by %d" : "line %d is indented by %d", up.number,
                      up.indent);
        if (up.key_indent != up.indent)
            mg_buf_printf(&b, " and its item by %d", up.key_indent);
        n++;
    }
    if (!aligned && n)
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "line %d is indented by %s, which lines up with no line above it (%s); indent "
                 "it as the keys or list items it goes with",
                 y->number, mg_yaml_spaces(l->diags->arena, y->indent), b.data);
    mg_buf_free(&b);
    return !aligned && n;
}

/* A line indented deeper than the line above, which already has its value
 * (a nested mapping or list would start after a bare "key:"), or under a
 * list item as a list item but without its "- ". Otherwise, misaligned. */
static int mg_yaml_indentation(struct mg_yloader *l, const struct mg_yline *y, struct mg_mark at,
                               const char *problem)
{
    struct mg_yline up;
    struct mg_mark above;

    if (!mg_yaml_line_above(l, y, &up))
        return 0;
    at.col = y->indent + 1; /* the line, not the ':' that libyaml stopped at */
    above = (struct mg_mark){l->file, up.number, up.indent + 1};
    if (y->indent > up.indent && y->indent != up.key_indent) {
        mg_error_rel(l->diags, MG_CHK_YAML_SYNTAX, at, above, "the line above",
                     "line %d is indented by %s, more than line %d above it, which already has "
                     "its value%s",
                     y->number, mg_yaml_spaces(l->diags->arena, y->indent), up.number,
                     !mg_yaml_has_key(l, &up) ? ""
                     : up.key_indent          ? mg_printf(l->diags->arena,
                                                          "; indent it by %s to go on with the same mapping",
                                                          mg_yaml_spaces(l->diags->arena, up.key_indent))
                                     : "; start it in column 1 to go on with the same mapping");
        return 1;
    }
    if (strcmp(problem, "did not find expected '-' indicator") == 0 && y->indent == up.indent) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "line %d is indented as the list item above it (by %s) but does not start "
                 "with '- '; start it with '- ' to add an item, or indent it as the key it "
                 "belongs with",
                 y->number, mg_yaml_spaces(l->diags->arena, y->indent));
        return 1;
    }
    return mg_yaml_misaligned(l, y, at);
}

/* A key without ':' on line y, from byte `from` (at column col): the
 * text there is read as a plain value, and libyaml fails on the line after
 * ("could not find expected ':'", or "mapping values are not allowed"
 * when that line holds a key), so the error is blamed on this one. */
static int mg_yaml_keyless(struct mg_yloader *l, const struct mg_yline *y, size_t from, int col)
{
    struct mg_mark key = {l->file, y->number, col};
    const char *text = mg_strndup(l->diags->arena, l->buf + from, y->end - from);

    mg_error(l->diags, MG_CHK_YAML_SYNTAX, key,
             "found %s where a key is expected, with no ':' after it; write a key, ':', a space "
             "and its value ('key: value')",
             mg_show(l->diags->arena, text));
    return 1;
}

/* A ':' refused on line y: a second one in a plain value, a key without
 * ':' on the line above (which took this line as its continuation), or a
 * line indented wrong. */
static int mg_yaml_refused_colon(struct mg_yloader *l, const struct mg_yline *y, struct mg_mark at,
                                 size_t byte, const char *problem)
{
    struct mg_yline first = *y, up;

    first.end = byte; /* the text before the ':' that libyaml refused */
    if (mg_yaml_has_key(l, &first)) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "found a second ': ' on line %d; a value that holds ': ' must be put in quotes",
                 at.line);
        return 1;
    }
    if (mg_yaml_line_above(l, y, &up) && up.key_indent == up.indent && y->indent >= up.indent &&
        !mg_yaml_has_key(l, &up))
        return mg_yaml_keyless(l, &up, up.start + (size_t)up.indent, up.indent + 1);
    return mg_yaml_indentation(l, y, at, problem);
}

/* The mistakes of layout: a second ': ' in a plain value, a list item
 * after a key on its line, and lines indented wrong. */
static int mg_yaml_explain_layout(struct mg_yloader *l, const char *problem, struct mg_mark at,
                                  const struct mg_yline *y, size_t byte)
{
    int at_start = at.col == y->indent + 1;
    char c = byte < l->len ? l->buf[byte] : '\0';

    if (strcmp(problem, "mapping values are not allowed in this context") == 0)
        return mg_yaml_refused_colon(l, y, at, byte, problem);
    if (strcmp(problem, "block sequence entries are not allowed in this context") == 0 &&
        c == '-' && !at_start) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "found a list item ('- ') on the line of its key; start each item on a line of "
                 "its own, indented under the key, or write the list in brackets ([a, b])");
        return 1;
    }
    if (at_start &&
        (strcmp(problem, "did not find expected key") == 0 ||
         strcmp(problem, "did not find expected '-' indicator") == 0 ||
         strcmp(problem, "block sequence entries are not allowed in this context") == 0))
        return mg_yaml_indentation(l, y, at, problem);
    return 0;
}

/* An open bracket or quote, named by where it opened (the context). */
static int mg_yaml_unclosed(struct mg_yloader *l, const yaml_parser_t *p, struct mg_mark at)
{
    struct mg_mark open = mg_yaml_mark(l, p->context_mark);
    char c = l->pos.byte < l->len ? l->buf[l->pos.byte] : '?';
    int list = strcmp(p->context, "while parsing a flow sequence") == 0;

    if (strcmp(p->context, "while scanning a quoted scalar") == 0 &&
        strcmp(p->problem, "found unexpected end of stream") == 0 && (c == '"' || c == '\'')) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, open,
                 "the quoted text that starts here has no closing %c before the end of the file",
                 c);
        return 1;
    }
    if (!list && strcmp(p->context, "while parsing a flow mapping") != 0)
        return 0;
    mg_error_rel(
        l->diags, MG_CHK_YAML_SYNTAX, at, open, list ? "the '[' is here" : "the '{' is here",
        "the %s that '%c' opens at line %d, column %d is not closed: expected ',' or "
        "'%c' here%s",
        list ? "list" : "mapping", list ? '[' : '{', open.line, open.col, list ? ']' : '}',
        at.line > open.line ? mg_printf(l->diags->arena, " (a '%c' missing at the end of line %d?)",
                                        list ? ']' : '}', open.line)
                            : "");
    return 1;
}

/* The mistakes recognised by libyaml's problem and the text at it:
 * returns 1 after reporting one in plain words. */
static int mg_yaml_explain(struct mg_yloader *l, const yaml_parser_t *p)
{
    struct mg_mark at = mg_yaml_mark(l, p->problem_mark);
    size_t byte = l->pos.byte;
    char c = byte < l->len ? l->buf[byte] : '\0';
    struct mg_yline y;

    if (l->utf16 || !p->problem)
        return 0;
    mg_yaml_line_at(l, byte, at.line, &y);
    if (y.tab_col) {
        at.col = y.tab_col;
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "YAML indents with spaces, and line %d %s; replace the tab with spaces", at.line,
                 y.tab_col == 1 ? "starts with a tab"
                                : mg_printf(l->diags->arena,
                                            "has a tab in its indentation (column %d)", y.tab_col));
        return 1;
    }
    if (strcmp(p->problem, "found character that cannot start any token") == 0 &&
        (c == '@' || c == '`')) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "found '%c' at the start of a value; YAML reserves '@' and '`' there: put the "
                 "value in quotes",
                 c);
        return 1;
    }
    if (p->context && strcmp(p->problem, "could not find expected ':'") == 0 &&
        strcmp(p->context, "while scanning a simple key") == 0) {
        struct mg_mark key = mg_yaml_mark(l, p->context_mark);
        mg_yaml_line_at(l, l->pos.byte, key.line, &y);
        return mg_yaml_keyless(l, &y, l->pos.byte, key.col);
    }
    if (p->context && mg_yaml_unclosed(l, p, at))
        return 1;
    return mg_yaml_explain_layout(l, p->problem, at, &y, byte);
}

static void mg_yaml_syntax_error(struct mg_yloader *l, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "unknown libyaml error";

    switch (p->error) {
    case YAML_MEMORY_ERROR:
        /* Not the file's fault: the arena's policy, exit 2. */
        mg_oom();
        break;
    case YAML_READER_ERROR:
        if (p->problem_value >= 0)
            mg_error(l->diags, MG_CHK_YAML_SYNTAX, mg_yaml_offset_mark(l, p->problem_offset),
                     "%s (#x%02X); expected UTF-8 text without control characters", problem,
                     (unsigned)p->problem_value);
        else
            mg_error(l->diags, MG_CHK_YAML_SYNTAX, mg_yaml_offset_mark(l, p->problem_offset),
                     "%s; expected UTF-8 text without control characters", problem);
        break;
    default:
        if (mg_yaml_explain(l, p))
            break;
        if (p->context)
            mg_error_rel(l->diags, MG_CHK_YAML_SYNTAX, mg_yaml_mark(l, p->problem_mark),
                         mg_yaml_mark(l, p->context_mark), p->context, "%s", problem);
        else
            mg_error(l->diags, MG_CHK_YAML_SYNTAX, mg_yaml_mark(l, p->problem_mark), "%s", problem);
        break;
    }
    l->failed = 1;
}

/* ---- anchors --------------------------------------------------------------- */

static struct mg_yanchor *mg_yaml_anchor_slot(struct mg_yanchor *t, size_t cap, const char *name)
{
    size_t i = (size_t)mg_hash(name, strlen(name)) & (cap - 1);
    while (t[i].name && strcmp(t[i].name, name) != 0)
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* A later anchor of the same name replaces the earlier one, as YAML says. */
static void mg_yaml_anchor_set(struct mg_yloader *l, const char *name, struct mg_node *node,
                               uint64_t size)
{
    struct mg_yanchor *s;

    if (2 * (l->n_anchors + 1) > l->cap_anchors) {
        size_t cap = l->cap_anchors ? 2 * l->cap_anchors : 64, i;
        struct mg_yanchor *t = mg_yaml_realloc(NULL, cap, sizeof *t);
        memset(t, 0, cap * sizeof *t);
        for (i = 0; i < l->cap_anchors; i++)
            if (l->anchors[i].name)
                *mg_yaml_anchor_slot(t, cap, l->anchors[i].name) = l->anchors[i];
        free(l->anchors);
        l->anchors = t;
        l->cap_anchors = cap;
    }
    s = mg_yaml_anchor_slot(l->anchors, l->cap_anchors, name);
    if (!s->name)
        l->n_anchors++;
    s->name = name;
    s->node = node;
    s->size = size;
}

static const struct mg_yanchor *mg_yaml_anchor_get(const struct mg_yloader *l, const char *name)
{
    const struct mg_yanchor *s;
    if (!l->cap_anchors)
        return NULL;
    s = mg_yaml_anchor_slot(l->anchors, l->cap_anchors, name);
    return s->name ? s : NULL;
}

/* ---- building the tree ------------------------------------------------------ */

/* Every scalar, collection and alias ends up as at least one node of the
 * document's expansion, so counting them bounds memory before the expanded
 * size of the root is known. Returns 0 when the limit is passed. */
static int mg_yaml_count_node(struct mg_yloader *l, struct mg_mark at)
{
    if (++l->n_nodes > MG_YAML_MAX_EXPANDED) {
        mg_error(l->diags, MG_CHK_YAML_LIMITS, at,
                 "the document has more than %u nodes; expected a document of reasonable size",
                 MG_YAML_MAX_EXPANDED);
        l->failed = 1;
        return 0;
    }
    return 1;
}

#define MG_YAML_TAG(t) "tag:yaml.org,2002:" t

/* The tags a plain spec or inventory may carry: the standard scalar ones
 * (and "!", YAML's non-specific tag), only on scalars. Any other tag, on
 * any node, asks for a type or an object the format does not have
 * (!!python/object/apply:os.system), and is refused rather than ignored. */
static int mg_yaml_tag_ok(enum mg_node_kind kind, const char *tag)
{
    static const char *const ok[] = {"!", MG_YAML_TAG("str"), MG_YAML_TAG("int"),
                                     MG_YAML_TAG("bool"), MG_YAML_TAG("null")};
    size_t i;

    if (kind != MG_NODE_SCALAR)
        return 0;
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strcmp(tag, ok[i]) == 0)
            return 1;
    return 0;
}

static struct mg_node *mg_yaml_new_node(struct mg_yloader *l, enum mg_node_kind kind, yaml_mark_t m,
                                        const yaml_char_t *tag)
{
    struct mg_node *n = mg_alloc(l->arena, sizeof *n);
    size_t pre = strlen(MG_YAML_TAG(""));

    n->kind = kind;
    n->mark = mg_yaml_mark(l, m);
    n->tag = tag ? mg_strdup(l->arena, (const char *)tag) : NULL;
    if (n->tag && !mg_yaml_tag_ok(kind, n->tag)) {
        const char *t = n->tag;
        int std = strncmp(t, MG_YAML_TAG(""), pre) == 0;
        mg_error(l->diags, MG_CHK_YAML_TAG, n->mark,
                 "found the tag %s on a %s; expected no tag (only !!str, !!int, !!bool and "
                 "!!null are accepted, on scalars)",
                 mg_show(l->arena, mg_printf(l->arena, "%s%s", std ? "!!" : "", std ? t + pre : t)),
                 kind == MG_NODE_MAP   ? "mapping"
                 : kind == MG_NODE_SEQ ? "sequence"
                                       : "scalar");
        l->failed = 1;
    }
    return n;
}

/* Hands a finished node to the open collection (or makes it the root);
 * at is where it stands in the text, which for an alias is the alias, not
 * the anchored node. Returns 0 when parsing must stop. */
static int mg_yaml_add(struct mg_yloader *l, struct mg_node *node, uint64_t size, struct mg_mark at)
{
    struct mg_yframe *f;

    if (l->depth == 0) {
        l->root = node;
        return 1;
    }
    f = &l->frames[l->depth - 1];
    /* Even positions of a mapping are keys; the format only has scalar keys,
     * and the public header promises them. Parsing goes on to find further errors. */
    if (f->node->kind == MG_NODE_MAP && (l->n_slots - f->first) % 2 == 0 &&
        node->kind != MG_NODE_SCALAR) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "found a %s as a mapping key; expected a scalar key",
                 node->kind == MG_NODE_SEQ ? "sequence" : "mapping");
        l->failed = 1;
    }
    f->size += size;
    if (f->size > MG_YAML_MAX_EXPANDED) {
        mg_error(l->diags, MG_CHK_YAML_LIMITS, f->node->mark,
                 "this node expands to more than %u nodes (through aliases); expected a "
                 "document of reasonable size",
                 MG_YAML_MAX_EXPANDED);
        l->failed = 1;
        return 0;
    }
    if (l->n_slots == l->cap_slots) {
        l->cap_slots = l->cap_slots ? 2 * l->cap_slots : 256;
        l->slots = mg_yaml_realloc(l->slots, l->cap_slots, sizeof *l->slots);
    }
    l->slots[l->n_slots].node = node;
    l->slots[l->n_slots].size = size;
    l->n_slots++;
    return 1;
}

static int mg_yaml_scalar(struct mg_yloader *l, const yaml_event_t *ev)
{
    struct mg_node *n;
    struct mg_mark at = mg_yaml_mark(l, ev->start_mark);
    const char *text = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;

    if (!mg_yaml_count_node(l, at))
        return 0;
    n = mg_yaml_new_node(l, MG_NODE_SCALAR, ev->start_mark, ev->data.scalar.tag);
    /* A "\0" escape in a double-quoted scalar yields a NUL byte, which would
     * silently cut every C string made from it. */
    if (memchr(text, '\0', len)) {
        mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
                 "found a NUL character in a scalar; expected text without NUL");
        l->failed = 1;
    }
    n->value = mg_strndup(l->arena, text, len);
    n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    if (ev->data.scalar.anchor)
        mg_yaml_anchor_set(l, mg_strdup(l->arena, (const char *)ev->data.scalar.anchor), n, 1);
    return mg_yaml_add(l, n, 1, at);
}

static int mg_yaml_alias(struct mg_yloader *l, const yaml_event_t *ev)
{
    struct mg_mark at = mg_yaml_mark(l, ev->start_mark);
    const char *name = (const char *)ev->data.alias.anchor;
    const struct mg_yanchor *an = mg_yaml_anchor_get(l, name);
    struct mg_node *n;

    if (!mg_yaml_count_node(l, at))
        return 0;
    if (an)
        return mg_yaml_add(l, an->node, an->size, at);
    mg_error(l->diags, MG_CHK_YAML_SYNTAX, at,
             "found an alias to the unknown anchor %s; expected an anchor defined earlier "
             "and outside the aliasing node",
             mg_show(l->arena, name));
    l->failed = 1;
    /* A null placeholder keeps the mapping's keys and values paired. */
    n = mg_yaml_new_node(l, MG_NODE_SCALAR, ev->start_mark, NULL);
    n->value = "";
    return mg_yaml_add(l, n, 1, at);
}

static int mg_yaml_start(struct mg_yloader *l, const yaml_event_t *ev)
{
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    const yaml_char_t *tag = is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
    const yaml_char_t *anchor =
        is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    struct mg_mark at = mg_yaml_mark(l, ev->start_mark);
    struct mg_yframe *f;

    if (l->depth == MG_YAML_MAX_DEPTH) {
        mg_error(l->diags, MG_CHK_YAML_LIMITS, at,
                 "found nesting deeper than %d levels; expected a shallower document",
                 MG_YAML_MAX_DEPTH);
        l->failed = 1;
        return 0;
    }
    if (!mg_yaml_count_node(l, at))
        return 0;
    f = &l->frames[l->depth++];
    f->node = mg_yaml_new_node(l, is_map ? MG_NODE_MAP : MG_NODE_SEQ, ev->start_mark, tag);
    f->anchor = anchor ? mg_strdup(l->arena, (const char *)anchor) : NULL;
    f->first = l->n_slots;
    f->size = 1;
    return 1;
}

static int mg_yaml_end(struct mg_yloader *l)
{
    struct mg_yframe f = l->frames[--l->depth];
    struct mg_node *n = f.node;
    size_t count = l->n_slots - f.first, i;
    /* Indexed from slots, which is still NULL before the first child. */
    const struct mg_yslot *s = count ? &l->slots[f.first] : NULL;

    if (n->kind == MG_NODE_MAP) {
        /* libyaml always delivers a value for every key. */
        n->n = count / 2;
        n->keys = mg_alloc_array(l->arena, n->n, sizeof *n->keys);
        n->items = mg_alloc_array(l->arena, n->n, sizeof *n->items);
        for (i = 0; i < n->n; i++) {
            n->keys[i] = s[2 * i].node;
            n->items[i] = s[2 * i + 1].node;
        }
    } else {
        n->n = count;
        n->items = mg_alloc_array(l->arena, count, sizeof *n->items);
        for (i = 0; i < count; i++)
            n->items[i] = s[i].node;
    }
    l->n_slots = f.first;
    if (f.anchor)
        mg_yaml_anchor_set(l, f.anchor, n, f.size);
    return mg_yaml_add(l, n, f.size, n->mark);
}

/* Returns 0 when parsing must stop (an error, or the end of the stream). */
static int mg_yaml_event(struct mg_yloader *l, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (l->n_documents++ > 0) {
            mg_error(l->diags, MG_CHK_YAML_SYNTAX, mg_yaml_mark(l, ev->start_mark),
                     "found a second document; expected a single document");
            l->failed = 1;
            return 0;
        }
        return 1;
    case YAML_SCALAR_EVENT: return mg_yaml_scalar(l, ev);
    case YAML_ALIAS_EVENT: return mg_yaml_alias(l, ev);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: return mg_yaml_start(l, ev);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: return mg_yaml_end(l);
    case YAML_STREAM_END_EVENT: return 0;
    default: return 1;
    }
}

static int mg_yaml_is_empty(const struct mg_node *n)
{
    return n->kind == MG_NODE_SCALAR && !n->quoted && !n->tag && n->value[0] == '\0';
}

struct mg_node *mg_yaml_parse(struct mg_arena *a, struct mg_diags *d, const char *file,
                              const char *buf, size_t len)
{
    struct mg_yloader l;
    yaml_parser_t parser;
    yaml_event_t ev;
    size_t n_events = 0;
    int more = 1;

    memset(&l, 0, sizeof l);
    l.arena = a;
    l.diags = d;
    l.file = mg_strdup(a, file);
    /* libyaml asserts on a NULL input, even of length 0. */
    l.buf = buf ? buf : "";
    l.len = buf ? len : 0;
    l.utf16 =
        l.len >= 2 && (memcmp(l.buf, "\xFE\xFF", 2) == 0 || memcmp(l.buf, "\xFF\xFE", 2) == 0);
    mg_yaml_pos_start(&l);

    /* It fails only for want of memory: the arena's policy, exit 2. */
    if (!yaml_parser_initialize(&parser))
        mg_oom();
    yaml_parser_set_input_string(&parser, (const unsigned char *)l.buf, l.len);
    while (more) {
        if (!yaml_parser_parse(&parser, &ev)) {
            mg_yaml_syntax_error(&l, &parser);
            break;
        }
        if (++n_events > MG_YAML_MAX_EVENTS) {
            mg_error(d, MG_CHK_YAML_LIMITS, mg_yaml_mark(&l, ev.start_mark),
                     "the document has more than %u YAML events; expected a document of "
                     "reasonable size",
                     MG_YAML_MAX_EVENTS);
            l.failed = 1;
            more = 0;
        } else {
            more = mg_yaml_event(&l, &ev);
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    free(l.slots);
    free(l.anchors);

    if (l.failed)
        return NULL;
    if (!l.root || mg_yaml_is_empty(l.root)) {
        struct mg_mark whole = {l.file, 0, 0};
        mg_error(d, MG_CHK_YAML_SYNTAX, whole, "the file is empty; expected a YAML document");
        return NULL;
    }
    return l.root;
}
