/*
 * The distributed example: per-axis MPI communicators from a generated mesh.
 *
 * Run under Open MPI with one rank per device of the mesh (pp=2, dp=2, tp=2):
 *
 *     mpirun --oversubscribe -np 8 ./mpi_groups
 *
 * Each rank finds its process from where it runs: its host by name
 * (MESHGEN_HOSTNAME, SLURMD_NODENAME or the machine's own name) and its local
 * rank on that host from the launcher (OMPI_COMM_WORLD_LOCAL_RANK under
 * mpirun), never from its global rank, which depends on how mpirun mapped
 * the ranks (docs/reference.md, "Which process am I"). It checks that the
 * process's devices are on its own host and that the ranks took every
 * process once. Then, for each axis — and for the combined dp+tp group — it
 * lists every group at once (meshgen_axis_groups: group g's members, in
 * rank order, at g * size), reads its colour and key from where its own
 * device sits in that list, splits MPI_COMM_WORLD with them (MPI_Cart_sub
 * by hand), and checks, against the single-device calls and the generated
 * tables, that the colour and key are meshgen_group_index's, that the
 * communicator has the group's size, that the rank MPI gives is the key,
 * that the members are the group's devices in mesh order, and that an
 * allreduce of the device ids gives the sum over the group. Any mismatch
 * ends the whole job with MPI_Abort.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "train_mesh.h"

static int world_rank = -1;

static void fail(const char *what, int got, int want)
{
    fprintf(stderr, "mpi_groups: rank %d: %s: got %d, expected %d\n", world_rank, what, got, want);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

static void need(int err, const char *call)
{
    if (err < 0) {
        fprintf(stderr, "mpi_groups: rank %d: %s: %s\n", world_rank, call, meshgen_strerror(err));
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
        exit(1);
    }
}

/* The generated group tables, row g = group g's device ids in mesh order:
 * an independent statement of what meshgen_group() must return. */
static const int32_t *axis_table(int axis)
{
    switch (axis) {
    case TRAIN_MESH_AXIS__pp: return &train__groups__pp[0][0];
    case TRAIN_MESH_AXIS__dp: return &train__groups__dp[0][0];
    case TRAIN_MESH_AXIS__tp: return &train__groups__tp[0][0];
    default: return NULL;
    }
}

/*
 * Splits MPI_COMM_WORLD into the groups of `device` along axes_mask, checks
 * the new communicator and allreduces over it. `label` names the axes.
 */
static void check_group(const struct meshgen_mesh *m, int device, uint32_t axes_mask,
                        const char *label, const int32_t *table)
{
    int32_t all[TRAIN_MESH_DEVICES], one[TRAIN_MESH_DEVICES];
    const int32_t *members;
    int32_t group_rank, index_rank = -1;
    int gathered[TRAIN_MESH_DEVICES];
    int color, n, i, k, size, rank, sum, want_sum = 0, want_size = 1, max_color, count, listed;
    MPI_Comm comm;
    char text[96];
    int len = 0;

    /* Every group along the mask at once, group after group: this rank's
     * colour and key are where its device sits in the list. */
    listed = meshgen_axis_groups(m, axes_mask, all, TRAIN_MESH_DEVICES);
    need(listed, "meshgen_axis_groups");
    count = meshgen_group_count(m, axes_mask);
    need(count, "meshgen_group_count");
    if (listed != TRAIN_MESH_DEVICES)
        fail("meshgen_axis_groups() count", listed, TRAIN_MESH_DEVICES);
    n = listed / count;
    for (k = 0; k < listed && all[k] != device; k++)
        ;
    if (k == listed)
        fail("this device in meshgen_axis_groups()", -1, device);
    color = k / n;
    group_rank = k % n;
    members = &all[color * n];

    /* The single-device calls must say the same. */
    i = meshgen_group_index(m, device, axes_mask, &index_rank);
    need(i, "meshgen_group_index");
    if (i != color || index_rank != group_rank)
        fail("meshgen_group_index() against the batch's colour", i, color);
    need(meshgen_group(m, device, axes_mask, one, TRAIN_MESH_DEVICES), "meshgen_group");
    for (i = 0; i < n; i++)
        if (one[i] != members[i])
            fail("meshgen_group() against the batch's group", one[i], members[i]);
    for (i = 0; i < m->n_axes; i++)
        if (axes_mask & (1u << i))
            want_size *= meshgen_axis_size(m, i);
    if (n != want_size)
        fail("group size against the axis sizes", n, want_size);
    for (i = 0; i < n; i++)
        want_sum += members[i];
    if (table != NULL)
        for (i = 0; i < n; i++)
            if (table[color * n + i] != members[i])
                fail("meshgen_axis_groups() against the generated table", members[i],
                     table[color * n + i]);

    /* The one call a program needs: colour = group number, key = position. */
    if (MPI_Comm_split(MPI_COMM_WORLD, color, group_rank, &comm) != MPI_SUCCESS)
        fail("MPI_Comm_split", -1, 0);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (size != want_size)
        fail("communicator size", size, want_size);
    if (rank != group_rank)
        fail("rank in the communicator", rank, group_rank);

    /* Rank i of the communicator holds members[i]: the order is mesh order. */
    MPI_Allgather(&device, 1, MPI_INT, gathered, 1, MPI_INT, comm);
    for (i = 0; i < n; i++)
        if (gathered[i] != members[i])
            fail("device at communicator rank", gathered[i], members[i]);

    MPI_Allreduce(&device, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (sum != want_sum)
        fail("allreduce of device ids", sum, want_sum);

    /* Colours are 0 .. count-1 over the whole world. */
    MPI_Allreduce(&color, &max_color, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (max_color + 1 != count)
        fail("number of groups", max_color + 1, count);

    for (i = 0; i < n && len < (int)sizeof text - 16; i++)
        len +=
            snprintf(text + len, sizeof text - (size_t)len, "%s%d", i ? "," : "[", (int)members[i]);
    snprintf(text + len, sizeof text - (size_t)len, "]");
    printf(
        "rank %d device %d %-5s group %d of %d, rank %d of %d, members %s, allreduce sum %d: ok\n",
        world_rank, device, label, color, count, rank, size, text, sum);
    fflush(stdout);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    const struct meshgen_mesh *m = &train_mesh;
    int32_t process = -1, devices[TRAIN_MESH_DEVICES], coords[MESHGEN_MAX_AXES];
    int32_t taken[TRAIN_MESH_PROCESSES];
    int seen[TRAIN_MESH_PROCESSES];
    char host_name[256];
    int world_size, n, device, owner, axis, mask, host, i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);

    need(meshgen_mesh_check(m), "meshgen_mesh_check");
    if (world_size != TRAIN_MESH_PROCESSES)
        fail("MPI_COMM_WORLD size (run with -np 8)", world_size, TRAIN_MESH_PROCESSES);

    /* Which process am I? The runtime reads where this rank runs. */
    host = meshgen_host_from_env(m, host_name, sizeof host_name);
    need(host, "meshgen_host_from_env");
    need(meshgen_process_from_env(m, &process), "meshgen_process_from_env");
    n = meshgen_process_devices(m, process, devices, TRAIN_MESH_DEVICES);
    need(n, "meshgen_process_devices");
    if (n != 1)
        fail("devices of this process (processes: device)", n, 1);
    device = devices[0];
    /* The point of finding the process by host: its devices are this
     * host's, whichever way mpirun spread the ranks over the hosts. */
    if (meshgen_device_host(m, device) != host)
        fail("host of this process's device", meshgen_device_host(m, device), host);
    owner = meshgen_process_of(m, device);
    need(owner, "meshgen_process_of");
    if (owner != process)
        fail("meshgen_process_of", owner, process);
    /* Every process of the mesh is taken by exactly one rank. */
    MPI_Allgather(&process, 1, MPI_INT32_T, taken, 1, MPI_INT32_T, MPI_COMM_WORLD);
    for (i = 0; i < world_size; i++)
        seen[i] = 0;
    for (i = 0; i < world_size; i++) {
        if (taken[i] < 0 || taken[i] >= world_size || seen[taken[i]]++)
            fail("process taken by rank (twice, or out of range)", taken[i], i);
    }
    need(meshgen_coords_of(m, device, coords), "meshgen_coords_of");
    printf("rank %d on %s: host %d (%s), process %d, device %d, coords (pp=%d, dp=%d, tp=%d)\n",
           world_rank, host_name, host, m->hosts[host].name, (int)process, device,
           (int)coords[TRAIN_MESH_AXIS__pp], (int)coords[TRAIN_MESH_AXIS__dp],
           (int)coords[TRAIN_MESH_AXIS__tp]);
    fflush(stdout);

    /* One communicator per axis... */
    for (axis = 0; axis < m->n_axes; axis++) {
        if (meshgen_axis_size(m, axis) != m->axes[axis].size)
            fail("meshgen_axis_size", meshgen_axis_size(m, axis), m->axes[axis].size);
        check_group(m, device, 1u << axis, m->axes[axis].name, axis_table(axis));
    }
    /* ...and one across two axes: the dp x tp block of a pipeline stage. */
    mask = meshgen_axes_mask(m, "dp,tp");
    need(mask, "meshgen_axes_mask");
    if (mask != (1 << TRAIN_MESH_AXIS__dp | 1 << TRAIN_MESH_AXIS__tp))
        fail("meshgen_axes_mask(\"dp,tp\")", mask,
             1 << TRAIN_MESH_AXIS__dp | 1 << TRAIN_MESH_AXIS__tp);
    check_group(m, device, (uint32_t)mask, "dp+tp", NULL);

    /* Every rank got here: say so once. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("mpi_groups: all %d ranks agree with mesh '%s' on %d axes and dp+tp\n", world_size,
               m->name, m->n_axes);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
