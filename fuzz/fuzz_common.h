/*
 * What the fuzz targets share: the fixed inventory the spec, mesh-string
 * and generate targets plan against, the emitters run over a plan, and the
 * compile check of emitted C. Like the unit tests, they use the
 * generator's internal header, gen/internal.h, and no other of gen/.
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

#include "internal.h"

/* libFuzzer's entry point, declared for -Wmissing-prototypes, and its
 * default mutation (libFuzzer defines it). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* The mutation of the YAML targets (their LLVMFuzzerCustomMutator): 1 in 8
 * times one plain item of a flow sequence (`[dp, tp]`, `[[x]]`) is
 * repeated 1 to 16 times in place (`[dp, tp, tp, tp]`), else libFuzzer's
 * own mutation. Coverage counts loop trips in buckets (4-7, 8-15, ...),
 * so growing a list one item at a time earns nothing between them; this
 * step crosses a bucket at once (fuzz/README.md, "Reaching large
 * products"). Deterministic in seed. */
size_t mg_fuzz_mutate_yaml(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* One of three fixed inventories. 0: four hosts of one topology (8 GPUs,
 * 16 cores, 32 PUs, 2 NUMA nodes, 2 packages; closeness for GPUs and
 * cores), two hosts in one slice and two in none; host names, slices, the
 * label and device strings hold quotes, backslashes, comment ends,
 * trigraphs, control and non-ASCII bytes, as a hostile hwloc XML or
 * inventory file could. 1: four hosts of two topologies, the second
 * smaller and without PUs, alternating in two slices. 2: the large
 * inventory, 64 hosts of 256 GPUs and 64 cores (16384 GPUs, 4096 cores),
 * no slices, no closeness: axis sizes up to 2^14, so that five
 * references to one axis make a product past 64 bits (0 and 1 have at
 * most 128 devices of a kind: 9 to 13 references). Built on first use and
 * kept. */
const struct mg_inventory *mg_fuzz_inventory(int which);

/* The inventory a spec plans against: the large one when the spec's
 * `inventory:` starts with "large" (a word of yaml.dict), else 0 or 1 by
 * the input's length. */
const struct mg_inventory *mg_fuzz_inventory_for(const struct mg_spec *spec, size_t size);

/* Plans of more devices than this are checked (mg_fuzz_check_plan) but not
 * emitted, unless MESHGEN_FUZZ_REPLAY=1: formatting 16384 devices would
 * cost each input of the large inventory a hundred times a small one, and
 * the emitters meet the same code at 32. */
#define MG_FUZZ_EMIT_MAX 256

/* Whether the targets emit this plan (see MG_FUZZ_EMIT_MAX). */
int mg_fuzz_emits(const struct mg_plan *plan);

/* Traps unless the plan is consistent: every axis size is ici x dcn and
 * their product the mesh's devices, the mesh maps to distinct devices that
 * device_index maps back, and the processes hold each mesh device once, in
 * ascending order, on its own host. */
void mg_fuzz_check_plan(const struct mg_plan *p);

/* The compile options of an input: group tables always or never, by `bit`
 * (--groups=always or never). */
const struct mg_compile_opts *mg_fuzz_opts(int bit);

/* Checks the plan, then runs every emitter of a model (header, source,
 * JSON, the show grid with and without colour, the SVG) when
 * mg_fuzz_emits(); the output is thrown away. */
void mg_fuzz_emit_all(const struct mg_plan *plan, const char *inputs);

/* Whether MESHGEN_FUZZ_REPLAY=1: known inputs are being replayed (the
 * regressions, a crash), so every plan is compiled and no input is skipped
 * or cut short for its size. */
int mg_fuzz_replay(void);

/* Writes <name>_mesh.h and <name>_mesh.c to a private temporary directory
 * and runs each compiler of MESHGEN_FUZZ_CCS on the source with -std=c11
 * -Wall -Wextra -Wpedantic -Werror -fsyntax-only. Returns 0 when all accept
 * it (or none could be run), -1 when one rejects it. */
int mg_fuzz_compile(const char *name, const struct mg_buf *h, const struct mg_buf *c);

/* The targets that read a file: input bytes written to `name` in a private
 * directory, made on first use in memory where there is a tmpfs (rewriting
 * a file on ext4 costs a flush per input) and removed at exit. The first
 * call also keeps one hwloc topology open, so that hwloc's plugins stay
 * loaded between inputs as in a long run (hwloc loads them with the first
 * topology and unloads them with the last). Returns the file's path. */
const char *mg_fuzz_write_input(const char *name, const uint8_t *data, size_t size);

#endif /* MG_FUZZ_COMMON_H */
