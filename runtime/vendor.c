/*
 * GPU vendors by PCI vendor id: the one table the runtime and the generator
 * share (docs/reference.md §2, "Vendors"). A vendor is decided by the
 * numeric id of the GPU's PCI device, never by a name: containers usually
 * have no pci.ids database, so hwloc gives ids and no names (an H200 seen
 * as "0302 [10de:2335]" and nothing else), and a name matched by substring
 * would take "Amdahl" for AMD. The names here are for display, where hwloc has
 * none; the variable says which runtime sees the vendor's GPUs.
 *
 * Plain data and two lookups: no allocation, no state, nothing but
 * <meshgen/meshgen.h>.
 */
#include <meshgen/meshgen.h>

#include <stddef.h>

#include "util.h"

static const struct {
    int32_t id;
    const char *name;
    int var; /* enum meshgen_env_var, or -1: no variable selects its GPUs */
} vendors[] = {
    /* The three whose runtimes meshgen_placement_env places; also the
     * vendors whose "other display controllers" (class 0x0380) count as
     * GPUs (runtime/hwloc_devices.c). */
    {MESHGEN_PCI_VENDOR_NVIDIA, "NVIDIA", MESHGEN_ENV_CUDA_VISIBLE_DEVICES},
    {MESHGEN_PCI_VENDOR_AMD, "AMD", MESHGEN_ENV_ROCR_VISIBLE_DEVICES},
    {MESHGEN_PCI_VENDOR_INTEL, "Intel", MESHGEN_ENV_ZE_AFFINITY_MASK},
    /* Accelerators the class rule admits (processing accelerators, 0x1200)
     * whose runtimes take other variables: named, never placed. */
    {0x1da3, "Habana Labs", -1},
    {0x1ae0, "Google", -1},
};

static int vendor_index(int32_t vendor_id)
{
    int i;

    for (i = 0; i < MG_COUNT(vendors); i++)
        if (vendors[i].id == vendor_id)
            return i;
    return -1;
}

const char *meshgen_vendor_name(int32_t vendor_id)
{
    int i = vendor_index(vendor_id);

    return i >= 0 ? vendors[i].name : NULL;
}

int meshgen_vendor_env_var(int32_t vendor_id)
{
    int i = vendor_index(vendor_id);

    return i >= 0 && vendors[i].var >= 0 ? vendors[i].var : MESHGEN_ERR_RANGE;
}
