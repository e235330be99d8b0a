/*
 * Private to the runtime: reading the cpulists ("0-3,8-11") that generated
 * tables store for each device. meshgen_placement_env (env.c) and
 * meshgen_bind (placement.c) both read them through this one function, so
 * they accept and refuse exactly the same strings. Not installed; static
 * inline, so that each library has its own copy and neither exports it.
 */
#ifndef MESHGEN_CPULIST_H
#define MESHGEN_CPULIST_H

#include <stdint.h>

#include <meshgen/meshgen.h>

/*
 * Reads the next range of the cpulist at *pos and moves *pos past it (and
 * past its comma). Returns 1 with the range lo..hi (lo <= hi, both at most
 * INT32_MAX), 0 at the end of the string, or MESHGEN_ERR_CORRUPT when the
 * text is not a list of "N" and "N-M" items separated by single commas. An
 * empty string is an empty list.
 */
static inline int meshgen__cpulist_next(const char **pos, uint32_t *lo, uint32_t *hi)
{
    const char *p = *pos;
    uint32_t v[2] = {0, 0};
    int k;

    if (*p == '\0')
        return 0;
    for (k = 0; k < 2; k++) {
        if (*p < '0' || *p > '9')
            return MESHGEN_ERR_CORRUPT;
        for (; *p >= '0' && *p <= '9'; p++) {
            /* Checked before the step, which could otherwise wrap. */
            if (v[k] > (INT32_MAX - (uint32_t)(*p - '0')) / 10)
                return MESHGEN_ERR_CORRUPT;
            v[k] = v[k] * 10 + (uint32_t)(*p - '0');
        }
        if (k == 1 || *p != '-')
            break;
        p++;
    }
    if (k == 0)
        v[1] = v[0];
    if (v[0] > v[1])
        return MESHGEN_ERR_CORRUPT;
    if (*p == ',') {
        /* A comma must lead to another item: "0," is as broken as "0,,1". */
        if (p[1] < '0' || p[1] > '9')
            return MESHGEN_ERR_CORRUPT;
        p++;
    } else if (*p != '\0') {
        return MESHGEN_ERR_CORRUPT;
    }
    *lo = v[0];
    *hi = v[1];
    *pos = p;
    return 1;
}

#endif /* MESHGEN_CPULIST_H */
