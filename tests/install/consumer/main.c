/* Prints the device at (1, 2) of an installed meshgen's generated mesh. */
#include <stdio.h>

#include "consumer_mesh.h"

_Static_assert(CONSUMER_MESH_AXIS__tp__SIZE == 4, "tp is 4-way");

int main(void)
{
    const int32_t coords[CONSUMER_MESH_AXES] = {1, 2};
    if (meshgen_mesh_check(&consumer_mesh) != MESHGEN_OK)
        return 1;
    printf("device at (1,2): %d\n", meshgen_device_at(&consumer_mesh, coords));
    return 0;
}
