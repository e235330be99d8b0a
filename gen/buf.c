/*
 * The growable text buffer every emitter writes into, and its line printer
 * (mg_println indents by the buffer's level, so no emitter indents by
 * hand). The memory is the heap's, not the arena's: outputs can be far
 * larger than anything else a run holds, and are freed as soon as they are
 * written. It knows nothing of what the text is.
 */
#include <meshgen/gen.h>

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

static void mg_buf_reserve(struct mg_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;

    /* Before anything is written: no writer holds a pointer into data. */
    if (b->sink && b->len >= MG_BUF_CHUNK)
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

void mg_buf_put(struct mg_buf *b, const char *s, size_t n)
{
    mg_buf_reserve(b, n);
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
    mg_buf_reserve(b, (size_t)n);
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

void mg_println(struct mg_buf *b, const char *fmt, ...)
{
    va_list ap;
    int i;

    if (fmt[0] != '\0')
        for (i = 0; i < b->indent; i++)
            mg_buf_put(b, "    ", 4);
    va_start(ap, fmt);
    mg_buf_vprintf(b, fmt, ap);
    va_end(ap);
    mg_buf_put(b, "\n", 1);
}

void mg_buf_int(struct mg_buf *b, int v)
{
    char tmp[12], *p = tmp + sizeof tmp;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    mg_buf_put(b, p, (size_t)(tmp + sizeof tmp - p));
}

void mg_buf_i64(struct mg_buf *b, int64_t v)
{
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    mg_buf_put(b, p, (size_t)(tmp + sizeof tmp - p));
}

void mg_blank(struct mg_buf *b)
{
    mg_buf_put(b, "\n", 1);
}
