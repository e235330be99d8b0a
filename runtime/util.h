/*
 * The few utilities both of meshgen's libraries share (the runtime's files
 * directly, the generator's through gen/internal.h): the length of an
 * array, the printf format attribute and one hash. Private: not installed,
 * and reached by its place in the tree. Macros and static inline functions
 * only, so it adds no symbol to either library.
 */
#ifndef MESHGEN_UTIL_H
#define MESHGEN_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The number of elements of an array (never a pointer), as an int. */
#define MG_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Has the compiler check a printf-like function's arguments against its
 * format: argument f is the format, the values start at argument a (0 for
 * a va_list). */
#if defined(__GNUC__)
#define MG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MG_PRINTF(f, a)
#endif

/* FNV-1a over n bytes: for the open-addressing tables of names, whose keys
 * are short and few, so anything uniform will do. */
static inline uint64_t mg_hash(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037u;
    size_t i;

    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

#endif /* MESHGEN_UTIL_H */
