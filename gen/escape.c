/*
 * The one escaper (escape.h): a string is read as UTF-8, one
 * character (or one byte that is not UTF-8) at a time, and each is written
 * as its format needs it: plain ASCII runs at once, everything else through
 * the format's writer in a table indexed by enum mg_esc. Make's names are
 * the exception, as their escapes depend on the characters around them.
 * It knows the formats and nothing of what the strings are.
 */
#include "internal.h"

#include <string.h>

/* The length of the UTF-8 sequence at p (1 to 4 bytes, no further than
 * end) and its code point, or 0 where p starts none: a stray continuation
 * byte, a cut sequence, an overlong form, a surrogate, past U+10FFFF. */
static size_t mg_utf8_seq(const unsigned char *p, const unsigned char *end, unsigned *cp)
{
    unsigned c = p[0], v, min;
    size_t n, i;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

static const char mg_hex_lower[] = "0123456789abcdef";
static const char mg_hex_upper[] = "0123456789ABCDEF";

/* "\xNN" (TEXT) or "%NN" (URI) for each byte of p[0..n). */
static void mg_esc_bytes(struct mg_buf *b, const unsigned char *p, size_t n, int uri)
{
    char tmp[4];
    size_t i;

    for (i = 0; i < n; i++) {
        size_t k = 0;
        if (uri) {
            tmp[k++] = '%';
        } else {
            tmp[k++] = '\\';
            tmp[k++] = 'x';
        }
        tmp[k++] = (uri ? mg_hex_upper : mg_hex_lower)[p[i] >> 4];
        tmp[k++] = (uri ? mg_hex_upper : mg_hex_lower)[p[i] & 15];
        mg_buf_put(b, tmp, k);
    }
}

/* A C0 or C1 control character, or DEL. */
static int mg_is_control(unsigned cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* Each writer gets one character: its bytes p[0..n) and code point cp, or
 * n == 0 for one byte p[0] that is not UTF-8. */
typedef void mg_esc_writer(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp);

/* The replacement character, for a byte that is not UTF-8. */
#define MG_U_FFFD "\xEF\xBF\xBD"

static void mg_esc_text(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    if (n && !mg_is_control(cp))
        mg_buf_put(b, (const char *)p, n);
    else if (n && cp == '\n')
        mg_buf_puts(b, "\\n");
    else if (n && cp == '\t')
        mg_buf_puts(b, "\\t");
    else if (n && cp == '\r')
        mg_buf_puts(b, "\\r");
    else
        mg_esc_bytes(b, p, n ? n : 1, 0);
}

static void mg_esc_c(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    char tmp[4];
    size_t i;

    switch (n == 1 ? cp : 0x80) {
    case '"': mg_buf_puts(b, "\\\""); return;
    case '\\': mg_buf_puts(b, "\\\\"); return;
    case '\n': mg_buf_puts(b, "\\n"); return;
    case '\t': mg_buf_puts(b, "\\t"); return;
    case '?': mg_buf_puts(b, "\\?"); return;
    default: break;
    }
    if (n == 1 && cp >= 0x20 && cp < 0x7F) {
        mg_buf_put(b, (const char *)p, 1);
        return;
    }
    /* Three octal digits always: an escape never swallows a digit after it. */
    for (i = 0; i < (n ? n : 1); i++) {
        tmp[0] = '\\';
        tmp[1] = (char)('0' + (p[i] >> 6));
        tmp[2] = (char)('0' + (p[i] >> 3 & 7));
        tmp[3] = (char)('0' + (p[i] & 7));
        mg_buf_put(b, tmp, 4);
    }
}

static void mg_esc_json(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    char tmp[6] = {'\\', 'u'};
    int k;

    if (!n) {
        mg_buf_puts(b, "\\ufffd");
    } else if (cp == '"' || cp == '\\') {
        mg_buf_put(b, "\\", 1);
        mg_buf_put(b, (const char *)p, 1);
    } else if (cp == '\n' || cp == '\r' || cp == '\t') {
        mg_buf_puts(b, cp == '\n' ? "\\n" : cp == '\r' ? "\\r" : "\\t");
    } else if (mg_is_control(cp) || cp == 0x2028 || cp == 0x2029) {
        /* U+2028 and U+2029 too: JavaScript before ES2019 ends a line there. */
        for (k = 0; k < 4; k++)
            tmp[2 + k] = mg_hex_lower[cp >> (12 - 4 * k) & 15];
        mg_buf_put(b, tmp, 6);
    } else {
        mg_buf_put(b, (const char *)p, n);
    }
}

static void mg_esc_xml(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    if (!n)
        mg_buf_puts(b, MG_U_FFFD);
    else if (cp == '<')
        mg_buf_puts(b, "&lt;");
    else if (cp == '>')
        mg_buf_puts(b, "&gt;");
    else if (cp == '&')
        mg_buf_puts(b, "&amp;");
    else if (cp == '"')
        mg_buf_puts(b, "&quot;");
    else if (cp < 0x20 || cp == 0x7F || cp == 0xFFFE || cp == 0xFFFF)
        mg_buf_puts(b, "?"); /* XML 1.0 cannot hold them, not even as &#...; */
    else
        mg_buf_put(b, (const char *)p, n);
}

static void mg_esc_sh(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    if (n == 1 && cp == '\'')
        mg_buf_puts(b, "'\\''");
    else
        mg_buf_put(b, (const char *)p, n ? n : 1);
}

static void mg_esc_sh_comment(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    if (n == 1 && (cp == '\n' || cp == '\r'))
        mg_buf_puts(b, "\n# ");
    else
        mg_buf_put(b, (const char *)p, n ? n : 1);
}

/* Messages and properties alike: what the runner decodes, and U+FFFD for
 * what is not UTF-8 (the runner reads its log as UTF-8). */
static void mg_esc_github(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    if (!n)
        mg_buf_puts(b, MG_U_FFFD);
    else if (n == 1 && (cp == '%' || cp == '\r' || cp == '\n' || cp == ':' || cp == ','))
        mg_esc_bytes(b, p, 1, 1);
    else
        mg_buf_put(b, (const char *)p, n);
}

static void mg_esc_uri(struct mg_buf *b, const unsigned char *p, size_t n, unsigned cp)
{
    (void)cp;
    mg_esc_bytes(b, p, n ? n : 1, 1);
}

/* Make's writer is mg_esc_make, which sees the whole name. */
static mg_esc_writer *const mg_esc_writers[MG_ESC__COUNT] = {
    [MG_ESC_TEXT] = mg_esc_text,     [MG_ESC_C] = mg_esc_c,
    [MG_ESC_JSON] = mg_esc_json,     [MG_ESC_XML] = mg_esc_xml,
    [MG_ESC_SH] = mg_esc_sh,         [MG_ESC_SH_COMMENT] = mg_esc_sh_comment,
    [MG_ESC_GITHUB] = mg_esc_github, [MG_ESC_GITHUB_PROPERTY] = mg_esc_github,
    [MG_ESC_URI] = mg_esc_uri,
};

/* Whether an ASCII byte is written as itself in fmt. */
static int mg_esc_plain(enum mg_esc fmt, unsigned char c)
{
    switch (fmt) {
    case MG_ESC_TEXT: return c >= 0x20 && c != 0x7F;
    case MG_ESC_C: return c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '?';
    case MG_ESC_JSON: return c >= 0x20 && c != 0x7F && c != '"' && c != '\\';
    case MG_ESC_XML: return c >= 0x20 && c != 0x7F && !strchr("<>&\"", c);
    case MG_ESC_SH: return c != '\'';
    case MG_ESC_SH_COMMENT: return c != '\n' && c != '\r';
    case MG_ESC_GITHUB: return c != '%' && c != '\r' && c != '\n';
    case MG_ESC_GITHUB_PROPERTY: return c != '%' && c != '\r' && c != '\n' && c != ':' && c != ',';
    case MG_ESC_URI:
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("-._~/", c));
    default: return 0;
    }
}

/* s[0..len) escaped for fmt (not Make). */
static void mg_esc_run(struct mg_buf *b, enum mg_esc fmt, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;

    while (p < end) {
        const unsigned char *run = p;
        unsigned cp = 0;
        size_t n;

        while (p < end && *p < 0x80 && mg_esc_plain(fmt, *p))
            p++;
        if (p > run) {
            mg_buf_put(b, (const char *)run, (size_t)(p - run));
            continue;
        }
        n = mg_utf8_seq(p, end, &cp);
        mg_esc_writers[fmt](b, p, n, cp);
        p += n ? n : 1;
    }
}

/* A name in a Make rule, already known to hold nothing refused: ' ', '#'
 * and ':' escaped by a backslash and the backslashes before them doubled
 * (GCC's -MD, which Make and Ninja both read back), '$' as "$$". Other
 * backslashes stay single: Make keeps a backslash before anything else. */
static void mg_esc_make(struct mg_buf *b, const char *s)
{
    const char *p = s;

    while (*p) {
        size_t run = strcspn(p, "\\ #:$");
        mg_buf_put(b, p, run);
        p += run;
        if (*p == '\\') {
            size_t k = strspn(p, "\\");
            mg_buf_put(b, p, k);
            if (p[k] == ' ' || p[k] == '#' || p[k] == ':')
                mg_buf_put(b, p, k);
            p += k;
        } else if (*p == '$') {
            mg_buf_puts(b, "$$");
            p++;
        } else if (*p) {
            mg_buf_put(b, "\\", 1);
            mg_buf_put(b, p++, 1);
        }
    }
}

const char *mg_esc_refusal(enum mg_esc fmt, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    if (fmt != MG_ESC_MAKE && fmt != MG_ESC_MAKE_TARGET)
        return NULL;
    if (!*p)
        return "no character";
    for (; *p; p++) {
        switch (*p) {
        case '\n': return "a newline";
        case '\t': return "a tab";
        case '\r': return "a carriage return";
        case ';': return "';'";
        case '=': return "'='";
        case '|': return "'|'";
        case '%':
            if (fmt == MG_ESC_MAKE_TARGET)
                return "'%'";
            break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                return "a control character";
        }
    }
    return p[-1] == '\\' ? "a final '\\'" : NULL;
}

/* The largest character boundary of s at or before i. */
static size_t mg_utf8_floor(const char *s, size_t i)
{
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
}

int mg_escape_cut(struct mg_buf *b, enum mg_esc fmt, const char *s, size_t head, size_t tail)
{
    size_t len = strlen(s), h, t;

    if (fmt == MG_ESC_MAKE || fmt == MG_ESC_MAKE_TARGET) {
        if (mg_esc_refusal(fmt, s))
            return -1;
        mg_esc_make(b, s);
        return 0;
    }
    if (head >= len || len - head <= tail || len - head - tail <= 3) {
        mg_esc_run(b, fmt, s, len);
        return 0;
    }
    h = mg_utf8_floor(s, head);
    t = len - tail;
    while (t < len && ((unsigned char)s[t] & 0xC0) == 0x80)
        t++;
    mg_esc_run(b, fmt, s, h);
    mg_buf_puts(b, "...");
    mg_esc_run(b, fmt, s + t, len - t);
    return 0;
}

long mg_first_control(const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    unsigned cp;
    size_t n;

    for (; p < end; p += n ? n : 1) {
        n = mg_utf8_seq(p, end, &cp);
        if (!n)
            cp = *p;
        if (mg_is_control(cp))
            return (long)cp;
    }
    return -1;
}

void mg_echo(struct mg_buf *b, const char *s, size_t max)
{
    mg_escape_cut(b, MG_ESC_TEXT, s, max, 0);
}

int mg_escape(struct mg_buf *b, enum mg_esc fmt, const char *s)
{
    return mg_escape_cut(b, fmt, s, (size_t)-1, 0);
}
