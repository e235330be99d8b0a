/*
 * The arena every stage allocates from: one per run, freed at once at the
 * end, so no stage frees on its own. Allocation failure ends the process
 * (mg_oom) with exit 2 and a message: a command-line generator has nothing
 * better to do, and every caller would otherwise repeat the check. It knows
 * nothing of what is stored in it.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct mg_arena_block {
    struct mg_arena_block *next;
    size_t used, cap;
    max_align_t data[];
};

#define MG_BLOCK_MIN (64 * 1024)

void mg_oom(void)
{
    /* exit, not abort: an I/O error of the run (docs/reference.md, "Files
     * and streams"), without a core dump, and the exit handlers remove any
     * lock file an output holds. */
    fputs("meshgen: error: out of memory\n", stderr);
    exit(MG_EXIT_USAGE);
}

int mg_room_for(size_t bytes)
{
    /* volatile: a compiler may drop a malloc whose block is only freed. */
    void *volatile p = malloc(bytes);

    free(p);
    return p != NULL;
}

void mg_arena_init(struct mg_arena *a)
{
    memset(a, 0, sizeof *a);
}

void mg_arena_free(struct mg_arena *a)
{
    struct mg_arena_block *b = a->head;
    while (b) {
        struct mg_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}

void *mg_alloc(struct mg_arena *a, size_t size)
{
    /* The alignment, not the size, of max_align_t (32 bytes on x86-64,
     * which would round every host name of a big inventory up to 32). */
    const size_t align = _Alignof(max_align_t);
    size_t rounded;
    struct mg_arena_block *b = a->head;
    void *p;

    if (size == 0)
        size = 1;
    if (size > SIZE_MAX / 2)
        mg_oom();
    rounded = (size + align - 1) / align * align;
    if (!b || b->cap - b->used < rounded) {
        size_t cap = rounded > MG_BLOCK_MIN ? rounded : MG_BLOCK_MIN;
        b = malloc(sizeof *b + cap);
        if (!b)
            mg_oom();
        b->next = a->head;
        b->used = 0;
        b->cap = cap;
        a->head = b;
    }
    p = (char *)b->data + b->used;
    b->used += rounded;
    a->total += rounded;
    memset(p, 0, size);
    return p;
}

void *mg_alloc_array(struct mg_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / 2 / size)
        mg_oom();
    return mg_alloc(a, n * size);
}

char *mg_strndup(struct mg_arena *a, const char *s, size_t n)
{
    char *p = mg_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *mg_strdup(struct mg_arena *a, const char *s)
{
    return s ? mg_strndup(a, s, strlen(s)) : NULL;
}

char *mg_vprintf(struct mg_arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;
    char *p;

    va_copy(ap2, ap);
    n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    p = mg_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *mg_printf(struct mg_arena *a, const char *fmt, ...)
{
    va_list ap;
    char *p;
    va_start(ap, fmt);
    p = mg_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}
