/*
 * Slurm hostlists ("gpu[001-016]", "n[1-3,7]", "a,b[1-2]c[3-4]", "n1 n2")
 * expanded into host names, for the `names:` key of an inventory file, in
 * the order `scontrol show hostnames` prints them (docs/reference.md, §2,
 * "Hostlists").
 *
 * The text is parsed once into items (separated by a top-level comma or by
 * spaces and tabs, as Slurm separates them), each a row of literal and
 * bracket-group parts; only then is the number of names
 * counted in 64 bits and held against the caller's limit, so a hostlist of
 * a billion names costs a message, not a billion allocations. It knows
 * nothing of YAML (it gets the text and the mark of its first character),
 * nor of hwloc or the inventory format.
 */
#include "diag.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* POSIX's _POSIX_HOST_NAME_MAX. Bounding each name bounds the memory of an
 * expansion by limit * 256 bytes, whatever zero padding the text asks for. */
#define MG_HOST_NAME_MAX 255

/* One lo-hi range of a bracket group; a single number has lo == hi. */
struct mg_hl_range {
    uint64_t lo, hi;
    int width; /* zero-pad to this many digits; 0: no padding */
};

/* A part of an item: a literal (n_ranges == 0) or a bracket group. */
struct mg_hl_part {
    const char *text;
    size_t len;
    size_t first, n_ranges; /* into the parser's ranges */
};

struct mg_hl_item {
    size_t first, n_parts; /* into the parser's parts */
    uint64_t count;        /* names it expands to; UINT64_MAX: more than that */
    size_t max_len;        /* the longest name it gives */
};

struct mg_hl {
    struct mg_arena *a;
    struct mg_diags *d;
    const char *text;
    struct mg_mark at;
    struct mg_hl_range *ranges;
    struct mg_hl_part *parts;
    struct mg_hl_item *items;
    size_t n_ranges, n_parts, n_items;
};

static int mg_hl_name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '.' || ch == '_';
}

static int mg_hl_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* Slurm separates items by commas, spaces and tabs alike. */
static int mg_hl_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static const char *mg_hl_skip_blanks(const char *p)
{
    while (mg_hl_blank(*p))
        p++;
    return p;
}

/* Reports at p: the mark's column advanced by the characters before p.
 * Marks count UTF-8 characters, as libyaml does, not bytes. */
static void mg_hl_error(struct mg_hl *h, const char *p, const char *fmt, ...) MG_PRINTF(3, 4);
static void mg_hl_error(struct mg_hl *h, const char *p, const char *fmt, ...)
{
    struct mg_mark m = h->at;
    const char *q;
    va_list ap;
    char *msg;

    for (q = h->text; q < p; q++)
        if (((unsigned char)*q & 0xC0) != 0x80)
            m.col++;
    va_start(ap, fmt);
    msg = mg_vprintf(h->a, fmt, ap);
    va_end(ap);
    mg_error(h->d, MG_CHK_HOSTLIST, m, "hostlist %s: %s", mg_show(h->a, h->text), msg);
}

/* What sits at p, for "found ...": the character (all its UTF-8 bytes), or
 * the end of the text. */
static const char *mg_hl_found(struct mg_hl *h, const char *p)
{
    size_t n = 1;

    if (*p == '\0')
        return "the end of the text";
    if ((unsigned char)*p >= 0x80)
        while (((unsigned char)p[n] & 0xC0) == 0x80)
            n++;
    return mg_printf(h->a, "the character %s", mg_show(h->a, mg_strndup(h->a, p, n)));
}

static unsigned mg_hl_digits(uint64_t v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Saturating, so that a hostlist of more than 2^64 names is still "more
 * than the limit" and never wraps into a small count. */
static uint64_t mg_hl_add(uint64_t x, uint64_t y)
{
    return x > UINT64_MAX - y ? UINT64_MAX : x + y;
}

static uint64_t mg_hl_mul(uint64_t x, uint64_t y)
{
    return y && x > UINT64_MAX / y ? UINT64_MAX : x * y;
}

/* A decimal number at *pp; its digits count for the zero padding. Numbers
 * are bounded by INT64_MAX, so hi - lo + 1 always fits in 64 bits. */
static int mg_hl_number(struct mg_hl *h, const char **pp, uint64_t *out, size_t *digits)
{
    const char *p = *pp, *start = p;
    uint64_t v = 0;

    if (!mg_hl_digit(*p)) {
        if (*p == '\0')
            mg_hl_error(h, p, "found the end of the text inside '[', expected a number and ']'");
        else if (*p == '[')
            mg_hl_error(h, p, "found '[' inside '[...]', expected a number (groups do not nest)");
        else
            mg_hl_error(h, p, "found %s inside '[...]', expected a number", mg_hl_found(h, p));
        return 0;
    }
    for (; mg_hl_digit(*p); p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (v > ((uint64_t)INT64_MAX - digit) / 10) {
            while (mg_hl_digit(*p))
                p++;
            mg_hl_error(h, start, "found the number %s, expected at most %" PRId64,
                        mg_show(h->a, mg_strndup(h->a, start, (size_t)(p - start))), INT64_MAX);
            return 0;
        }
        v = v * 10 + digit;
    }
    *out = v;
    *digits = (size_t)(p - start);
    *pp = p;
    return 1;
}

/* A bracket group at *pp (on its '['): ranges appended, its count and the
 * digits of its longest number returned. */
static int mg_hl_group(struct mg_hl *h, const char **pp, uint64_t *count, size_t *len)
{
    const char *p = *pp + 1;

    *count = 0;
    *len = 0;
    if (*p == ']') {
        mg_hl_error(h, *pp, "found the empty group '[]', expected numbers or ranges inside");
        return 0;
    }
    for (;;) {
        struct mg_hl_range *r = &h->ranges[h->n_ranges];
        const char *lo_at = p;
        size_t lo_digits, hi_digits, longest;
        int ranged = 0;

        if (!mg_hl_number(h, &p, &r->lo, &lo_digits))
            return 0;
        r->hi = r->lo;
        hi_digits = lo_digits;
        if (*p == '-') {
            p++;
            ranged = 1;
            if (!mg_hl_number(h, &p, &r->hi, &hi_digits))
                return 0;
            if (r->lo > r->hi) {
                mg_hl_error(h, lo_at,
                            "found the range %s, expected a first number no larger than the last",
                            mg_show(h->a, mg_strndup(h->a, lo_at, (size_t)(p - lo_at))));
                return 0;
            }
        }
        /* Slurm's padding rule: "001-016" and "08-10" keep their width,
         * "9-10" has none to keep. */
        r->width = (lo_digits > 1 && *lo_at == '0') || lo_digits == hi_digits ? (int)lo_digits : 0;
        longest = mg_hl_digits(r->hi);
        if (longest < (size_t)r->width)
            longest = (size_t)r->width;
        if (longest > *len)
            *len = longest;
        *count = mg_hl_add(*count, r->hi - r->lo + 1);
        h->n_ranges++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ']') {
            *pp = p + 1;
            return 1;
        }
        if (*p == '\0')
            mg_hl_error(h, p, "found the end of the text inside '[', expected ']'");
        else if (*p == '[')
            mg_hl_error(h, p, "found '[' inside '[...]', expected ',' or ']' (groups do not nest)");
        else
            mg_hl_error(h, p, "found %s inside '[...]', expected %s", mg_hl_found(h, p),
                        ranged ? "',' or ']'" : "'-', ',' or ']'");
        return 0;
    }
}

/* Whether the names an item gives have no empty label (docs/reference.md
 * §2, "Host names"): a bracket group gives digits, so only a literal part
 * can start the name with '.', end it with one, or hold two in a row. */
static int mg_hl_labels(struct mg_hl *h, const struct mg_hl_item *it)
{
    size_t k, i;

    for (k = 0; k < it->n_parts; k++) {
        const struct mg_hl_part *part = &h->parts[it->first + k];

        for (i = 0; !part->n_ranges && i < part->len; i++) {
            if (part->text[i] != '.')
                continue;
            if ((k == 0 && i == 0) || (k + 1 == it->n_parts && i + 1 == part->len) ||
                (i + 1 < part->len && part->text[i + 1] == '.')) {
                mg_hl_error(h, part->text + i,
                            "found a '.' that leaves a label empty, expected a host name whose "
                            "labels hold something (no '.' first, last or twice in a row)");
                return 0;
            }
        }
    }
    return 1;
}

/* One top-level item at *pp, up to the next top-level ',', blank or the
 * end. */
static int mg_hl_item(struct mg_hl *h, const char **pp)
{
    struct mg_hl_item *it = &h->items[h->n_items];
    const char *p = *pp;

    it->first = h->n_parts;
    it->n_parts = 0;
    it->count = 1;
    it->max_len = 0;
    for (;;) {
        struct mg_hl_part *part = &h->parts[h->n_parts];
        const char *start = p;

        while (mg_hl_name_char(*p))
            p++;
        if (p > start) {
            part->text = start;
            part->len = (size_t)(p - start);
            part->n_ranges = 0;
            it->max_len += part->len;
            h->n_parts++;
            it->n_parts++;
            continue;
        }
        if (*p == '[') {
            uint64_t count;
            size_t len;
            part->first = h->n_ranges;
            if (!mg_hl_group(h, &p, &count, &len))
                return 0;
            part->n_ranges = h->n_ranges - part->first;
            it->count = mg_hl_mul(it->count, count);
            it->max_len += len;
            h->n_parts++;
            it->n_parts++;
            continue;
        }
        if (*p == ',' || *p == '\0' || mg_hl_blank(*p))
            break;
        if (*p == ']')
            mg_hl_error(h, p,
                        "found ']' with no '[' before it, expected a host name character, "
                        "'[', ',' or the end");
        else
            mg_hl_error(h, p,
                        "found %s, expected a host name (letters, digits, '-', '.' and '_'), "
                        "'[', ',' or a space",
                        mg_hl_found(h, p));
        return 0;
    }
    if (it->n_parts == 0) {
        /* Slurm skips an empty item; meshgen refuses it, as a host left
         * out by mistake more often than on purpose. */
        if (h->n_items == 0 && *p == '\0')
            mg_hl_error(h, p, "found an empty hostlist, expected at least one host name");
        else
            mg_hl_error(h, p, "found an empty item before %s, expected a host name",
                        *p ? "','" : "the end of the text");
        return 0;
    }
    if (!mg_hl_labels(h, it))
        return 0;
    if (it->max_len > MG_HOST_NAME_MAX) {
        mg_hl_error(h, *pp, "found an item giving names of %zu characters, expected at most %d",
                    it->max_len, MG_HOST_NAME_MAX);
        return 0;
    }
    h->n_items++;
    *pp = p;
    return 1;
}

/* The groups of an item in the order their numbers turn over, fastest
 * first, into order; returns how many. Slurm's order (docs/reference.md,
 * §2, "Hostlists"): the last group varies fastest, then the first, the
 * second, ..., the last but one slowest. With one or two groups that is
 * plain row-major order, the leftmost slowest. */
static size_t mg_hl_turn_order(const struct mg_hl_part *parts, size_t n_parts, size_t *order)
{
    size_t k, n = 0, last = n_parts;

    for (k = 0; k < n_parts; k++)
        if (parts[k].n_ranges)
            last = k;
    if (last == n_parts)
        return 0;
    order[n++] = last;
    for (k = 0; k < last; k++)
        if (parts[k].n_ranges)
            order[n++] = k;
    return n;
}

/* Writes the names of one item: an odometer over the groups, pos[k] and
 * val[k] for part k, its digits turning in mg_hl_turn_order's order. */
static void mg_hl_expand_item(struct mg_hl *h, const struct mg_hl_item *it, size_t *pos,
                              uint64_t *val, size_t *order, const char **names)
{
    const struct mg_hl_part *parts = &h->parts[it->first];
    size_t n_groups = mg_hl_turn_order(parts, it->n_parts, order);
    char name[MG_HOST_NAME_MAX + 1];
    uint64_t i;
    size_t j, k;

    for (k = 0; k < it->n_parts; k++) {
        pos[k] = parts[k].first;
        val[k] = parts[k].n_ranges ? h->ranges[parts[k].first].lo : 0;
    }
    for (i = 0; i < it->count; i++) {
        size_t len = 0;
        for (k = 0; k < it->n_parts; k++) {
            const struct mg_hl_part *pt = &parts[k];
            if (!pt->n_ranges) {
                memcpy(name + len, pt->text, pt->len);
                len += pt->len;
            } else {
                /* max_len was checked, so the number always fits. */
                len += (size_t)snprintf(name + len, sizeof name - len, "%0*" PRIu64,
                                        h->ranges[pos[k]].width, val[k]);
            }
        }
        names[i] = mg_strndup(h->a, name, len);
        for (j = 0; j < n_groups; j++) {
            const struct mg_hl_part *pt = &parts[order[j]];
            k = order[j];
            if (val[k] < h->ranges[pos[k]].hi) {
                val[k]++;
                break;
            }
            if (++pos[k] < pt->first + pt->n_ranges) {
                val[k] = h->ranges[pos[k]].lo;
                break;
            }
            pos[k] = pt->first;
            val[k] = h->ranges[pos[k]].lo;
        }
    }
}

int mg_hostlist_expand(struct mg_arena *a, struct mg_diags *d, const char *text, struct mg_mark at,
                       int limit, const char ***names)
{
    return mg_hostlist_expand_in(a, a, d, text, at, limit, names);
}

int mg_hostlist_expand_in(struct mg_arena *a, struct mg_arena *scratch, struct mg_diags *d,
                          const char *text, struct mg_mark at, int limit, const char ***names)
{
    struct mg_hl h;
    const char *p = text, *q;
    size_t commas = 0, blanks = 0, opens = 0, i, n_names;
    uint64_t total = 0;
    size_t *pos, *order;
    uint64_t *val;
    const char **out;

    *names = NULL;
    memset(&h, 0, sizeof h);
    h.a = a;
    h.d = d;
    h.text = text;
    h.at = at;
    /* Arrays sized from the text's own structure, never from the count:
     * items <= separators + 1, ranges <= commas + groups, parts <= 2 *
     * groups + items. */
    for (q = text; *q; q++) {
        commas += *q == ',';
        blanks += mg_hl_blank(*q);
        opens += *q == '[';
    }
    h.items = mg_alloc_array(scratch, commas + blanks + 1, sizeof *h.items);
    h.parts = mg_alloc_array(scratch, 2 * opens + commas + blanks + 1, sizeof *h.parts);
    h.ranges = mg_alloc_array(scratch, commas + opens + 1, sizeof *h.ranges);
    /* Items are separated by a comma or by blanks, and blanks around a
     * comma or around the whole text are no item. */
    p = mg_hl_skip_blanks(p);
    for (;;) {
        if (!mg_hl_item(&h, &p))
            return -1;
        total = mg_hl_add(total, h.items[h.n_items - 1].count);
        p = mg_hl_skip_blanks(p);
        if (*p == '\0')
            break;
        if (*p == ',')
            p = mg_hl_skip_blanks(p + 1);
    }
    if (limit < 0)
        limit = 0;
    if (total > (uint64_t)limit) {
        if (total == UINT64_MAX)
            mg_hl_error(&h, text, "found %" PRIu64 " or more names, expected at most %d",
                        UINT64_MAX, limit);
        else
            mg_hl_error(&h, text, "found %" PRIu64 " names, expected at most %d", total, limit);
        return -1;
    }
    n_names = (size_t)total;
    out = mg_alloc_array(scratch, n_names, sizeof *out);
    pos = mg_alloc_array(scratch, h.n_parts, sizeof *pos);
    val = mg_alloc_array(scratch, h.n_parts, sizeof *val);
    order = mg_alloc_array(scratch, h.n_parts, sizeof *order);
    for (i = 0, total = 0; i < h.n_items; i++) {
        mg_hl_expand_item(&h, &h.items[i], pos, val, order, out + total);
        total += h.items[i].count;
    }
    *names = out;
    return (int)n_names;
}
