/*
 * What the fuzz targets share: the fixed inventory the spec, mesh-string
 * and generate targets plan against, the emitters run over a plan, and the
 * compile check of emitted C.
 *
 * The inventory is built in C, with no hwloc and no file, so every input
 * that gets past the spec reaches the checks and the planner at full speed
 * and the same input always meets the same machine. Nothing here knows the
 * format of any input.
 */
#ifndef MG_FUZZ_COMMON_H
#define MG_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* libFuzzer's entry point, declared for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Four hosts in two slices, each with 8 GPUs, 2 packages, 2 NUMA nodes, 16
 * cores and 32 PUs of one topology, with closeness matrices for GPUs and
 * cores. Host names, slices and device strings hold quotes, backslashes,
 * comment ends, trigraphs and non-ASCII bytes, as a hostile hwloc XML or
 * inventory file could. Built on the first call and kept. */
const struct mg_inventory *mg_fuzz_inventory(void);

/* Sets the plan's group-table switch from `bit` as --groups would, then
 * runs the header, source and JSON emitters; the output is thrown away. */
void mg_fuzz_emit_all(struct mg_plan *plan, const struct mg_inventory *inv,
                      const char *inputs, int bit);

/* FNV-1a of the input: a deterministic way to pick a sample of inputs. */
uint64_t mg_fuzz_hash(const uint8_t *data, size_t size);

/* Writes <name>_mesh.h and <name>_mesh.c to a private temporary directory
 * and runs each compiler of MESHGEN_FUZZ_CCS on the source with -std=c11
 * -Wall -Wextra -Wpedantic -Werror -fsyntax-only. Returns 0 when all accept
 * it (or none could be run), -1 when one rejects it. */
int mg_fuzz_compile(const char *name, const struct mg_buf *h, const struct mg_buf *c);

#endif /* MG_FUZZ_COMMON_H */
