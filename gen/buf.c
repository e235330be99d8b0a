/*
 * The growable text buffer every emitter writes into, and its line printer
 * (mg_println indents by the buffer's level, so no emitter indents by
 * hand). The memory is the heap's, not the arena's: outputs can be far
 * larger than anything else a run holds, and are freed as soon as they are
 * written. It knows nothing of what the text is.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

void mg_buf_init(struct mg_buf *b)
{
    memset(b, 0, sizeof *b);
}

void mg_buf_free(struct mg_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void mg_buf_stream(struct mg_buf *b, void (*sink)(void *ctx, const char *data, size_t len),
                   void *ctx)
{
    b->sink = sink;
    b->sink_ctx = ctx;
}

void mg_buf_flush(struct mg_buf *b)
{
    if (!b->sink || b->len == 0)
        return;
    b->sink(b->sink_ctx, b->data, b->len);
    b->flushed += b->len;
    b->len = 0;
    b->data[0] = '\0';
}

size_t mg_buf_pos(const struct mg_buf *b)
{
    return b->flushed + b->len;
}

/* Whether extra more bytes keep a streaming buffer within its chunk. */
static int mg_buf_in_chunk(const struct mg_buf *b, size_t extra)
{
    return b->len < MG_BUF_CHUNK && extra < MG_BUF_CHUNK - b->len;
}

/* The slow way to room for extra bytes (and the NUL after them): hand on
 * what a streaming buffer holds, or grow. mg_buf_room is the fast way. */
static void mg_buf_grow(struct mg_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;

    /* Before anything is written: no writer holds a pointer into data.
     * Handing on before the chunk would overflow keeps the buffer at one
     * chunk (a write larger than that still grows it). */
    if (b->sink && !mg_buf_in_chunk(b, extra))
        mg_buf_flush(b);

    if (extra > SIZE_MAX / 4 - b->len)
        mg_oom();
    need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    p = realloc(b->data, cap);
    if (!p)
        mg_oom();
    b->data = p;
    b->cap = cap;
}

/* Whether extra more bytes (and the NUL) fit without handing anything on
 * or growing: the test every small write makes, a few comparisons. */
static int mg_buf_fits(const struct mg_buf *b, size_t extra)
{
    return extra < b->cap - b->len && (!b->sink || mg_buf_in_chunk(b, extra));
}

char *mg_buf_room(struct mg_buf *b, size_t n)
{
    if (!mg_buf_fits(b, n))
        mg_buf_grow(b, n);
    return b->data + b->len;
}

void mg_buf_wrote(struct mg_buf *b, size_t n)
{
    b->len += n;
    b->data[b->len] = '\0';
}

void mg_buf_put(struct mg_buf *b, const char *s, size_t n)
{
    if (!mg_buf_fits(b, n))
        mg_buf_grow(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mg_buf_puts(struct mg_buf *b, const char *s)
{
    mg_buf_put(b, s, strlen(s));
}

static void mg_buf_vprintf(struct mg_buf *b, const char *fmt, va_list ap) MG_PRINTF(2, 0);
static void mg_buf_vprintf(struct mg_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;

    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0)
        return;
    mg_buf_grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void mg_buf_printf(struct mg_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mg_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void mg_buf_indent(struct mg_buf *b)
{
    int i;

    for (i = 0; i < b->indent; i++)
        mg_buf_put(b, "    ", 4);
}

void mg_println(struct mg_buf *b, const char *fmt, ...)
{
    va_list ap;

    if (fmt[0] != '\0')
        mg_buf_indent(b);
    va_start(ap, fmt);
    mg_buf_vprintf(b, fmt, ap);
    va_end(ap);
    mg_buf_put(b, "\n", 1);
}

/* "00" to "99": two digits a division, half the divisions of one digit at
 * a time. */
static const char mg_digit_pairs[] = "00010203040506070809"
                                     "10111213141516171819"
                                     "20212223242526272829"
                                     "30313233343536373839"
                                     "40414243444546474849"
                                     "50515253545556575859"
                                     "60616263646566676869"
                                     "70717273747576777879"
                                     "80818283848586878889"
                                     "90919293949596979899";

/* The number of decimal digits of u, by comparisons, which cost less than
 * the divisions that would count them. */
static int mg_dec_len(uint64_t u)
{
    uint64_t pow10 = 1000000000u;
    int n = 9;

    if (u < 10000u)
        return 1 + (u >= 10u) + (u >= 100u) + (u >= 1000u);
    if (u < 100000000u)
        return 5 + (u >= 100000u) + (u >= 1000000u) + (u >= 10000000u);
    /* 10^19 would overflow pow10: u <= 2^63 has at most 19 digits. */
    while (n < 19 && u >= pow10) {
        pow10 *= 10u;
        n++;
    }
    return n;
}

char *mg_fmt_i64(char *p, int64_t v)
{
    uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    char *end;

    if (v < 0)
        *p++ = '-';
    end = p + mg_dec_len(u);
    p = end;
    /* Most numbers here are ids below 2^32, whose divisions are cheaper in
     * 32 bits. */
    while (u > UINT32_MAX) {
        p -= 2;
        memcpy(p, mg_digit_pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    {
        uint32_t w = (uint32_t)u;
        while (w >= 100) {
            p -= 2;
            memcpy(p, mg_digit_pairs + 2 * (w % 100), 2);
            w /= 100;
        }
        if (w >= 10)
            memcpy(p - 2, mg_digit_pairs + 2 * w, 2);
        else
            p[-1] = (char)('0' + w);
    }
    return end;
}

void mg_buf_int(struct mg_buf *b, int v)
{
    mg_buf_i64(b, v);
}

void mg_buf_i64(struct mg_buf *b, int64_t v)
{
    char *p = mg_buf_room(b, MG_I64_CHARS);
    mg_buf_wrote(b, (size_t)(mg_fmt_i64(p, v) - p));
}

void mg_blank(struct mg_buf *b)
{
    mg_buf_put(b, "\n", 1);
}
