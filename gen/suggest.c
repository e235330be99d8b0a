/*
 * "Did you mean": the one place that decides which known word a mistyped
 * one stands for, for every message that offers one (keys, enumeration
 * words, axis names, commands and options; docs/reference.md,
 * "Suggestions").
 *
 * A candidate is close when its Damerau-Levenshtein distance (the optimal
 * string alignment form: insertions, deletions, substitutions and swaps of
 * two neighbouring characters, each costing 1) to the word, compared
 * without regard to ASCII case, is at most a third of the word's length
 * (at least 1), as rustc's "did you mean" allows: `device-kind` is one
 * substitution from `device_kind`, `valdate` one deletion from `validate`.
 * The closest win, and up to MG_SUGGEST_MAX of them are offered when they
 * tie. Before them comes the one candidate the word begins, if only one
 * does (`inv` for `inventory`, not the closer `env`); after them, when
 * nothing is that close, the one candidate the word abbreviates: same
 * first letter, and the shorter of the two (at least two characters) a
 * subsequence of the longer (`pipe` for the axis `pp`). It knows nothing of where the words
 * come from, nor of how a message is worded around the suggestion.
 */
#include "internal.h"
#include "diag.h"
#include "escape.h"

#include <string.h>

/* Longer words are not compared: no name the formats have is this long,
 * and the distance costs the product of the two lengths. */
#define MG_SUGGEST_LEN 64

static unsigned char mg_ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static int mg_min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

int mg_edit_distance(const char *a, const char *b)
{
    /* Three rows of the dynamic programme: the swap looks two rows back. */
    int rows[3][MG_SUGGEST_LEN + 1];
    size_t n = strlen(a), m = strlen(b), i, j;

    if (n > MG_SUGGEST_LEN || m > MG_SUGGEST_LEN)
        return -1;
    for (j = 0; j <= m; j++)
        rows[0][j] = (int)j;
    for (i = 1; i <= n; i++) {
        int *cur = rows[i % 3], *prev = rows[(i + 2) % 3], *prev2 = rows[(i + 1) % 3];
        unsigned char ca = mg_ascii_lower((unsigned char)a[i - 1]);
        cur[0] = (int)i;
        for (j = 1; j <= m; j++) {
            unsigned char cb = mg_ascii_lower((unsigned char)b[j - 1]);
            cur[j] = mg_min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb));
            if (i > 1 && j > 1 && ca == mg_ascii_lower((unsigned char)b[j - 2]) &&
                mg_ascii_lower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
    }
    return rows[n % 3][m];
}

/* Whether the shorter of a and b (at least two characters) is a
 * subsequence of the longer, and both start with the same letter. */
static int mg_abbreviates(const char *a, const char *b)
{
    const char *s = strlen(a) <= strlen(b) ? a : b, *l = s == a ? b : a;

    if (strlen(s) < 2 || mg_ascii_lower((unsigned char)s[0]) != mg_ascii_lower((unsigned char)l[0]))
        return 0;
    for (; *l && *s; l++)
        s += mg_ascii_lower((unsigned char)*s) == mg_ascii_lower((unsigned char)*l);
    return *s == '\0';
}

/* Whether word (at least two characters) begins candidate, case aside. */
static int mg_is_prefix(const char *word, const char *candidate)
{
    size_t i;

    if (strlen(word) < 2)
        return 0;
    for (i = 0; word[i]; i++)
        if (mg_ascii_lower((unsigned char)word[i]) != mg_ascii_lower((unsigned char)candidate[i]))
            return 0;
    return 1;
}

void mg_suggest_init(struct mg_suggest *s, const char *word)
{
    size_t len = word ? strlen(word) : 0;

    memset(s, 0, sizeof *s);
    s->word = word;
    s->limit = len / 3 > 1 ? (int)(len / 3) : 1;
    s->best_distance = -1;
}

static int mg_suggest_has(const char *const *list, int n, const char *c)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(list[i], c) == 0)
            return 1;
    return 0;
}

void mg_suggest_add(struct mg_suggest *s, const char *candidate)
{
    int d;

    if (!s->word || !candidate || !*candidate || strcmp(s->word, candidate) == 0)
        return;
    if (mg_is_prefix(s->word, candidate) && !(s->prefix && strcmp(s->prefix, candidate) == 0)) {
        s->prefix = candidate;
        s->n_prefix++;
    }
    d = mg_edit_distance(s->word, candidate);
    if (d >= 0 && d <= s->limit) {
        if (s->best_distance < 0 || d < s->best_distance) {
            s->best_distance = d;
            s->n_best = 0;
        }
        if (d == s->best_distance && s->n_best < MG_SUGGEST_MAX &&
            !mg_suggest_has(s->best, s->n_best, candidate))
            s->best[s->n_best++] = candidate;
        return;
    }
    if (d >= 0 && mg_abbreviates(s->word, candidate) &&
        !(s->abbrev && strcmp(s->abbrev, candidate) == 0)) {
        s->abbrev = candidate;
        s->n_abbrev++;
    }
}

void mg_suggest_words(struct mg_suggest *s, const struct mg_words *words)
{
    int i;
    for (i = 0; i < words->n; i++)
        mg_suggest_add(s, words->w[i].name);
}

int mg_suggest_result(const struct mg_suggest *s, const char **out)
{
    int i;

    if (s->n_prefix == 1) {
        out[0] = s->prefix;
        return 1;
    }
    for (i = 0; i < s->n_best; i++)
        out[i] = s->best[i];
    if (s->n_best)
        return s->n_best;
    if (s->n_abbrev == 1) {
        out[0] = s->abbrev;
        return 1;
    }
    return 0;
}

void mg_suggest_put(struct mg_buf *b, const struct mg_suggest *s)
{
    const char *w[MG_SUGGEST_MAX];
    int n = mg_suggest_result(s, w), i;

    if (!n)
        return;
    mg_buf_puts(b, "; did you mean ");
    for (i = 0; i < n; i++) {
        /* A candidate may be a name of the spec (an axis), so it is quoted
         * as any echoed value is: escaped, and cut past 40 bytes. */
        mg_buf_puts(b, i == 0 ? "'" : i + 1 == n ? " or '" : ", '");
        mg_escape_cut(b, MG_ESC_TEXT, w[i], MG_SHOW_MAX, 0);
        mg_buf_puts(b, "'");
    }
    mg_buf_puts(b, "?");
}

const char *mg_suggest_text(struct mg_arena *a, const struct mg_suggest *s)
{
    struct mg_buf b;
    const char *out;

    mg_buf_init(&b);
    mg_suggest_put(&b, s);
    out = mg_strdup(a, b.data ? b.data : "");
    mg_buf_free(&b);
    return out;
}

const char *mg_suggest_axis(struct mg_arena *a, const struct mg_spec *spec, const char *name)
{
    struct mg_suggest s;
    int i;

    mg_suggest_init(&s, name);
    for (i = 0; i < spec->n_axes; i++)
        if (spec->axes[i].name)
            mg_suggest_add(&s, spec->axes[i].name);
    return mg_suggest_text(a, &s);
}
