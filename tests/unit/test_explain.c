/*
 * Unit tests of meshgen_process_explain: the one line that says why a
 * process cannot be placed (docs/reference.md, "When no process is
 * found"), for every error meshgen_process_from_vars can return, under each
 * launcher of the table, and how it found the process when it can.
 *
 * The meshes, built by the harness (harness.h): six hosts node1..node6 of
 * two CPU cores each, one process per host or one per core.
 */
#include "harness.h"

#include <unistd.h>

#define N_HOSTS 6

/* A mesh of six hosts, with one process per host or per core: axis dp of
 * 12 cores, 6 of them over DCN. */
static void six_init(struct th_mesh *s, int per_device, const char *const names[N_HOSTS])
{
    const struct meshgen_device_info cores[2] = {th_core(0), th_core(1)};
    struct th_mesh_desc d = {.name = "six",
                             .kind = MESHGEN_KIND_CORE,
                             .axis_type = MESHGEN_AXIS_EXPLICIT,
                             .axes = {{"dp", 2 * N_HOSTS, N_HOSTS}},
                             .per_device = per_device};
    int h;

    for (h = 0; h < N_HOSTS; h++)
        d.hosts[h] = (struct th_host){names[h], 2, cores, NULL};
    th_mesh_init(s, &d);
    /* Every table here is the identity, and meshgen generate leaves such
     * tables out (the process table too, when the processes are the hosts):
     * the lines are those of the mesh as it ships. */
    s->mesh.mesh_devices = s->mesh.device_index = s->mesh.process_devices = NULL;
    if (!per_device)
        s->mesh.processes = NULL;
    assert_int_equal(meshgen_mesh_check(&s->mesh), MESHGEN_OK);
}

static const char *const node_names[N_HOSTS] = {"node1", "node2", "node3",
                                                "node4", "node5", "node6"};

/* The line for vars, which must come with the code want; the code is
 * meshgen_process_from_vars's own. */
static const char *explain(const struct meshgen_mesh *m, const char *const *vars, int want)
{
    static char line[1024];
    int32_t process;

    memset(line, 'x', sizeof line);
    assert_int_equal(meshgen_process_explain(m, th_lookup, (void *)vars, line, sizeof line), want);
    assert_int_equal(meshgen_process_from_vars(m, th_lookup, (void *)vars, &process), want);
    return line;
}

/* A launcher's count other than the mesh's: the variable, its value, the
 * mesh's count and the launcher's own way to start one process per host. */
static void test_world_size(void **state)
{
    static const char *const ompi[] = {"MESHGEN_HOSTNAME=node2", "OMPI_COMM_WORLD_LOCAL_RANK=0",
                                       "OMPI_COMM_WORLD_SIZE=3", NULL};
    static const char *const srun[] = {"SLURMD_NODENAME=node2", "SLURM_LOCALID=0",
                                       "SLURM_NTASKS=12", NULL};
    static const char *const torchrun[] = {"MESHGEN_HOSTNAME=node2", "LOCAL_RANK=0",
                                           "WORLD_SIZE=12", NULL};
    static const char *const hydra[] = {"MESHGEN_HOSTNAME=node2", "MPI_LOCALRANKID=0",
                                        "PMI_SIZE=12", NULL};
    static const char *const pals[] = {"MESHGEN_HOSTNAME=node2", "PALS_LOCAL_RANKID=0",
                                       "PMI_SIZE=12", NULL};
    static const char *const flux[] = {"MESHGEN_HOSTNAME=node2", "FLUX_TASK_LOCAL_ID=0",
                                       "FLUX_JOB_SIZE=12", NULL};
    struct th_mesh s;

    (void)state;
    six_init(&s, 0, node_names);
    assert_string_equal(explain(&s.mesh, ompi, MESHGEN_ERR_PROCESS_COUNT),
                        "OMPI_COMM_WORLD_SIZE=3, but the mesh has 6 processes, one per host "
                        "('processes: host'); start one process per host, 6 in all: mpirun -np "
                        "6 --map-by ppr:1:node (or -N 1)");
    assert_string_equal(explain(&s.mesh, srun, MESHGEN_ERR_PROCESS_COUNT),
                        "SLURM_NTASKS=12, but the mesh has 6 processes, one per host "
                        "('processes: host'); start one process per host, 6 in all: srun -N 6 "
                        "--ntasks-per-node=1");
    assert_non_null(strstr(explain(&s.mesh, torchrun, MESHGEN_ERR_PROCESS_COUNT),
                           "WORLD_SIZE=12, but the mesh has 6 processes, one per host "
                           "('processes: host'); start one process per host, 6 in all: "
                           "torchrun --nnodes=6 --nproc-per-node=1"));
    assert_non_null(strstr(explain(&s.mesh, hydra, MESHGEN_ERR_PROCESS_COUNT),
                           "PMI_SIZE=12, but the mesh has 6 processes, one per host"));
    assert_non_null(
        strstr(explain(&s.mesh, hydra, MESHGEN_ERR_PROCESS_COUNT), ": mpiexec -n 6 -ppn 1"));
    assert_non_null(
        strstr(explain(&s.mesh, pals, MESHGEN_ERR_PROCESS_COUNT), ": mpiexec -n 6 --ppn 1"));
    assert_non_null(
        strstr(explain(&s.mesh, flux, MESHGEN_ERR_PROCESS_COUNT), ": flux run -N 6 -n 6"));
}

/* One process per device: the count on this host is the host's. */
static void test_local_size(void **state)
{
    static const char *const ompi[] = {"MESHGEN_HOSTNAME=node2", "OMPI_COMM_WORLD_LOCAL_RANK=0",
                                       "OMPI_COMM_WORLD_LOCAL_SIZE=3", "OMPI_COMM_WORLD_SIZE=12",
                                       NULL};
    struct th_mesh s;

    (void)state;
    six_init(&s, 1, node_names);
    assert_string_equal(explain(&s.mesh, ompi, MESHGEN_ERR_PROCESS_COUNT),
                        "OMPI_COMM_WORLD_LOCAL_SIZE=3, but host 'node2' has 2 processes of the "
                        "mesh (local ranks 0 to 1): the mesh has 12 processes, one per device "
                        "('processes: device'); start 2 processes per host, 12 in all: mpirun "
                        "-np 12 --map-by ppr:2:node (or -N 2)");
}

/* A local rank past the host's processes, with 'processes: host' and
 * with 'processes: device'. */
static void test_local_rank(void **state)
{
    static const char *const host[] = {"MESHGEN_HOSTNAME=node1", "SLURM_LOCALID=1", NULL};
    static const char *const device[] = {"MESHGEN_HOSTNAME=node1", "LOCAL_RANK=2", NULL};
    struct th_mesh s;

    (void)state;
    six_init(&s, 0, node_names);
    assert_string_equal(explain(&s.mesh, host, MESHGEN_ERR_LOCAL_RANK),
                        "SLURM_LOCALID=1, but host 'node1' has 1 process of the mesh (local "
                        "rank 0): the mesh has 6 processes, one per host ('processes: host'); "
                        "start one process per host, 6 in all: srun -N 6 --ntasks-per-node=1");
    six_init(&s, 1, node_names);
    assert_string_equal(explain(&s.mesh, device, MESHGEN_ERR_LOCAL_RANK),
                        "LOCAL_RANK=2, but host 'node1' has 2 processes of the mesh (local ranks "
                        "0 to 1): the mesh has 12 processes, one per device ('processes: "
                        "device'); start 2 processes per host, 12 in all: torchrun --nnodes=6 "
                        "--nproc-per-node=2");
}

/* A value that is no number, or no host name, is named with its value. */
static void test_bad_values(void **state)
{
    static const char *const rank[] = {"MESHGEN_HOSTNAME=node1", "LOCAL_RANK=x", NULL};
    static const char *const count[] = {"MESHGEN_HOSTNAME=node1", "SLURM_LOCALID=0",
                                        "SLURM_NTASKS=-6", NULL};
    static const char *const name[] = {"MESHGEN_HOSTNAME=.node1", NULL};
    static const char *const slurm_name[] = {"SLURMD_NODENAME=", NULL};
    static const char *const process[] = {"MESHGEN_PROCESS=2a", NULL};
    static const char *const hostile[] = {
        "MESHGEN_HOSTNAME=node1",
        "LOCAL_RANK=\x1b[31m0123456789012345678901234567890123456789012345678901234567890123456789",
        NULL};
    struct th_mesh s;

    (void)state;
    six_init(&s, 1, node_names);
    assert_string_equal(explain(&s.mesh, rank, MESHGEN_ERR_BAD_ENV),
                        "LOCAL_RANK='x' is not a number (decimal digits only, no sign or "
                        "spaces, below 2^31)");
    assert_string_equal(explain(&s.mesh, count, MESHGEN_ERR_BAD_ENV),
                        "SLURM_NTASKS='-6' is not a number (decimal digits only, no sign or "
                        "spaces, below 2^31)");
    assert_string_equal(explain(&s.mesh, process, MESHGEN_ERR_BAD_ENV),
                        "MESHGEN_PROCESS='2a' is not a number (decimal digits only, no sign or "
                        "spaces, below 2^31)");
    assert_string_equal(explain(&s.mesh, name, MESHGEN_ERR_BAD_ENV),
                        "MESHGEN_HOSTNAME='.node1' is not a host name: an empty label (a '.' "
                        "first, last or twice in a row) (a host name is 1 to 255 ASCII letters, "
                        "digits, '-', '_' and '.')");
    assert_string_equal(explain(&s.mesh, slurm_name, MESHGEN_ERR_BAD_ENV),
                        "SLURMD_NODENAME='' is not a host name: an empty name (a host name is 1 "
                        "to 255 ASCII letters, digits, '-', '_' and '.')");
    /* Control bytes are escaped, not echoed, and a long value is cut. */
    assert_string_equal(
        explain(&s.mesh, hostile, MESHGEN_ERR_BAD_ENV),
        "LOCAL_RANK='\\x1b[31m01234567890123456789012345678901234567890123456789012345678...' "
        "is not a number (decimal digits only, no sign or spaces, below 2^31)");
}

/* A name that is no host: the mesh's first hosts and how to name this
 * machine, which under Slurm is the hostlist or MESHGEN_HOSTNAME. */
static void test_no_host(void **state)
{
    static const char *const named[] = {"MESHGEN_HOSTNAME=node7", NULL};
    static const char *const slurm[] = {"SLURMD_NODENAME=node7", "SLURM_LOCALID=0", NULL};
    static const char *const none[] = {NULL};
    static const char *const allocation[] = {"SLURM_JOB_ID=9", NULL};
    static const char *const names4[N_HOSTS] = {"a.x", "a.y", "b", "c", "d", "e"};
    static const char *const short_name[] = {"MESHGEN_HOSTNAME=a", NULL};
    char self[256] = "", want[512];
    struct th_mesh s;
    int h, mine = 0;

    (void)state;
    six_init(&s, 0, node_names);
    assert_string_equal(explain(&s.mesh, named, MESHGEN_ERR_NO_HOST),
                        "this machine's name 'node7' (from MESHGEN_HOSTNAME) is no host of the "
                        "mesh, whose hosts are 'node1', 'node2', 'node3' and 3 more; "
                        "MESHGEN_HOSTNAME must name one of them (case does not matter)");
    assert_string_equal(explain(&s.mesh, slurm, MESHGEN_ERR_NO_HOST),
                        "this machine's name 'node7' (from SLURMD_NODENAME) is no host of the "
                        "mesh, whose hosts are 'node1', 'node2', 'node3' and 3 more; under Slurm "
                        "the inventory's hostlist must name the allocation's nodes as 'scontrol "
                        "show hostnames' does, or set MESHGEN_HOSTNAME to this node's name "
                        "among them");
    /* From gethostname(), unless this machine is called like a test host. */
    assert_int_equal(gethostname(self, sizeof self - 1), 0);
    for (h = 0; h < N_HOSTS; h++)
        mine |= strncmp(self, node_names[h], 5) == 0;
    if (!mine && strlen(self) < 64) {
        snprintf(want, sizeof want,
                 "this machine's name '%s' (from gethostname()) is no host of the mesh, whose "
                 "hosts are 'node1', 'node2', 'node3' and 3 more; set MESHGEN_HOSTNAME to this "
                 "machine's name among them",
                 self);
        assert_string_equal(explain(&s.mesh, none, MESHGEN_ERR_NO_HOST), want);
        assert_non_null(strstr(explain(&s.mesh, allocation, MESHGEN_ERR_NO_HOST),
                               "(from gethostname()) is no host of the mesh, whose hosts are "
                               "'node1', 'node2', 'node3' and 3 more; under Slurm the "
                               "inventory's hostlist"));
    }
    /* A short name that two hosts share. */
    six_init(&s, 0, names4);
    assert_string_equal(explain(&s.mesh, short_name, MESHGEN_ERR_NO_HOST),
                        "this machine's name 'a' (from MESHGEN_HOSTNAME) fits hosts 'a.x' and "
                        "'a.y' alike (up to the first dot); set MESHGEN_HOSTNAME to the full name "
                        "of one");
}

/* No launcher where one process per device needs one; MESHGEN_PROCESS
 * past the processes. */
static void test_no_launcher_and_range(void **state)
{
    static const char *const none[] = {"MESHGEN_HOSTNAME=node3", NULL};
    static const char *const past[] = {"MESHGEN_PROCESS=12", NULL};
    struct th_mesh s;

    (void)state;
    six_init(&s, 1, node_names);
    assert_string_equal(explain(&s.mesh, none, MESHGEN_ERR_NO_ENV),
                        "with 'processes: device' a launcher's local rank says which of the 2 "
                        "processes of host 'node3' this is, and none is set (LOCAL_RANK, "
                        "OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, PALS_LOCAL_RANKID, "
                        "FLUX_TASK_LOCAL_ID or SLURM_LOCALID); start it under a launcher, or set "
                        "MESHGEN_PROCESS");
    assert_string_equal(explain(&s.mesh, past, MESHGEN_ERR_RANGE),
                        "MESHGEN_PROCESS=12, but the mesh has 12 processes (0 to 11)");
}

/* Found: how, in a line for a log. Host names match without regard to
 * case (docs/reference.md, "Host names"). */
static void test_found(void **state)
{
    static const char *const upper[] = {"MESHGEN_HOSTNAME=NODE2", NULL};
    static const char *const ranked[] = {"SLURMD_NODENAME=node4", "OMPI_COMM_WORLD_LOCAL_RANK=1",
                                         "OMPI_COMM_WORLD_SIZE=12", NULL};
    static const char *const chosen[] = {"MESHGEN_PROCESS=5", "LOCAL_RANK=x", NULL};
    struct th_mesh s;

    (void)state;
    six_init(&s, 0, node_names);
    assert_string_equal(explain(&s.mesh, upper, MESHGEN_OK),
                        "process 1 of 6: host 'node2' (this machine's name 'NODE2', from "
                        "MESHGEN_HOSTNAME)");
    six_init(&s, 1, node_names);
    assert_string_equal(explain(&s.mesh, ranked, MESHGEN_OK),
                        "process 7 of 12: host 'node4' (this machine's name 'node4', from "
                        "SLURMD_NODENAME), local rank 1 (OMPI_COMM_WORLD_LOCAL_RANK)");
    assert_string_equal(explain(&s.mesh, chosen, MESHGEN_OK), "process 5 of 12: MESHGEN_PROCESS=5");
}

/* The buffer: cut to fit and always terminated, optional when cap is 0;
 * NULL get reads the environment. */
static void test_buffer_and_environment(void **state)
{
    static const char *const ompi[] = {"MESHGEN_HOSTNAME=node2", "OMPI_COMM_WORLD_LOCAL_RANK=0",
                                       "OMPI_COMM_WORLD_SIZE=3", NULL};
    struct th_mesh s;
    char line[16];

    (void)state;
    six_init(&s, 0, node_names);
    memset(line, 'x', sizeof line);
    assert_int_equal(meshgen_process_explain(&s.mesh, th_lookup, (void *)ompi, line, sizeof line),
                     MESHGEN_ERR_PROCESS_COUNT);
    assert_string_equal(line, "OMPI_COMM_WORLD");
    assert_int_equal(meshgen_process_explain(&s.mesh, th_lookup, (void *)ompi, NULL, 0),
                     MESHGEN_ERR_PROCESS_COUNT);
    assert_int_equal(meshgen_process_explain(&s.mesh, th_lookup, (void *)ompi, NULL, 4),
                     MESHGEN_ERR_NULL);
    assert_int_equal(meshgen_process_explain(NULL, th_lookup, (void *)ompi, line, sizeof line),
                     MESHGEN_ERR_NULL);
    assert_string_equal(line, "a required poin");
    assert_int_equal(setenv("MESHGEN_PROCESS", "4", 1), 0);
    assert_int_equal(meshgen_process_explain(&s.mesh, NULL, NULL, line, sizeof line), MESHGEN_OK);
    assert_int_equal(unsetenv("MESHGEN_PROCESS"), 0);
    assert_string_equal(line, "process 4 of 6:");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_size), cmocka_unit_test(test_local_size),
        cmocka_unit_test(test_local_rank), cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_no_host),    cmocka_unit_test(test_no_launcher_and_range),
        cmocka_unit_test(test_found),      cmocka_unit_test(test_buffer_and_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
