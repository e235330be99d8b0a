/*
 * Private to meshgen: how the devices an inventory recorded for a host are
 * compared with those a machine has (docs/reference.md, "meshgen verify").
 * meshgen_verify (runtime/placement.c) reports the first difference, and
 * `meshgen verify` (gen/verify.c) every one, through this one comparison,
 * so that the program and the command cannot disagree about a node.
 *
 * Both sides are given as the runtime's device descriptions: the tables'
 * (or the inventory's, which the tables are lowered from) and the
 * machine's, written out by the generator's device rules
 * (runtime/hwloc_devices.c). Plain C, no hwloc, no allocation: the caller
 * gives the scratch memory. Not installed; the double underscore keeps the
 * name apart from the public ones in a static link, and the libraries are
 * built with hidden visibility, so neither exports it.
 */
#ifndef MESHGEN_DEVICE_COMPARE_H
#define MESHGEN_DEVICE_COMPARE_H

#include <stddef.h>

#include <meshgen/meshgen.h>

/* One difference between the devices expected and those found. */
struct meshgen__diff {
    /* The expected device (an index into want), -1 for an extra device or
     * for the count; the device found (an index into got), -1 for a
     * missing device or for the count. */
    int want, got;
    /* What differs: "count" (of the devices of the kind), "OS index",
     * "PCI bus id", "PCI vendor id", "model", "UUID", "NUMA node" or
     * "cpuset"; NULL for a device missing (got -1) or extra (want -1). */
    const char *field;
    /* The field's values as text ("" for none: no vendor id, a model or a
     * UUID not known); free text (a model) is to be quoted. */
    const char *want_text, *got_text;
    int quoted;
    char buf[2][24]; /* where numbers are written */
};

/* Called for each difference, in the order of meshgen__compare_devices;
 * returns nonzero to stop. */
typedef int (*meshgen__diff_fn)(void *ctx, const struct meshgen__diff *diff);

/* The bytes of scratch memory meshgen__compare_devices needs for n_want
 * and n_got devices (never 0). */
size_t meshgen__compare_room(int n_want, int n_got);

/*
 * Compares the n_want devices a host is expected to have with the n_got
 * found, all of kind `kind`, and calls fn for each difference. Devices are
 * paired first by what names them on a machine (a GPU's PCI bus id, a CPU
 * object's OS index), then, among those left, by UUID (a GPU moved to
 * another slot), then in order (a device moved, or replaced, with no UUID
 * to tell). The differences come in this order: the count, when it
 * differs; then each expected device in order, with the fields of its
 * pair that differ (OS index, PCI bus id, PCI vendor id, model, UUID,
 * NUMA node, cpuset; a model is compared only when both sides know one,
 * a UUID only when the expected side knows one, and the vendor's name,
 * which is for display, never: the vendor id decides), or as missing;
 * then each device found that nothing expected, as extra. scratch has
 * meshgen__compare_room(n_want, n_got) bytes, aligned as malloc aligns.
 * Returns the number of differences reported (up to and including the
 * one fn stopped at).
 */
int meshgen__compare_devices(int kind, const struct meshgen_device_info *want, int n_want,
                             const struct meshgen_device_info *got, int n_got, void *scratch,
                             meshgen__diff_fn fn, void *ctx);

#endif /* MESHGEN_DEVICE_COMPARE_H */
