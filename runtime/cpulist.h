/*
 * Private to the runtime: reading the cpulists ("0-3,8-11") that generated
 * tables store for each device. meshgen_placement_env (meshgen.c) and
 * meshgen_bind (placement.c) both read them through this one function, so
 * they accept and refuse exactly the same strings. Not installed.
 */
#ifndef MESHGEN_CPULIST_H
#define MESHGEN_CPULIST_H

#include <stdint.h>

/*
 * Reads the next range of the cpulist at *pos and moves *pos past it (and
 * past its comma). Returns 1 with the range lo..hi (lo <= hi, both at most
 * INT32_MAX), 0 at the end of the string, or MESHGEN_ERR_CORRUPT when the
 * text is not a list of "N" and "N-M" items separated by single commas. An
 * empty string is an empty list.
 */
int meshgen__cpulist_next(const char **pos, uint32_t *lo, uint32_t *hi);

#endif /* MESHGEN_CPULIST_H */
