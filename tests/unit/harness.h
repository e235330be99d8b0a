/*
 * The unit tests' one harness (harness.c, linked into every program of
 * tests/unit): the headers they all include, a fixture of one arena and
 * its diagnostics with a temporary directory, assertions on diagnostics,
 * files, the model the generator's stages take (a spec, an inventory of
 * hosts built in C), and runtime meshes built from a short description.
 *
 * The headers of meshgen that the tests see are included here and
 * nowhere else, so that a test file needs only "harness.h".
 */
#ifndef MG_TEST_HARNESS_H
#define MG_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The generator's internal header (gen/internal.h), and through it the
 * public <meshgen/gen.h> and the runtime's <meshgen/meshgen.h>. */
#include "internal.h"

#ifndef MESHGEN_TEST_DATA
#define MESHGEN_TEST_DATA "tests/data"
#endif

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- the fixture: an arena, its diagnostics, a model, a temporary directory ---------- */

struct th_fx {
    struct mg_arena arena;
    struct mg_diags diags;
    /* A spec as th_setup leaves it: mesh "t" of test.yaml, no axes yet
     * (th_axes), GPUs in inventory order, a process and a granule per
     * host. */
    struct mg_spec spec;
    /* No hosts until th_hosts or th_inventory. */
    struct mg_inventory inv;
    /* Made by the first th_dir and removed, with all it holds, by
     * th_teardown; "" until then. */
    char dir[64];
};

/* cmocka's setup and teardown of a struct th_fx (*state). */
int th_setup(void **state);
int th_teardown(void **state);
#define th_test(f) cmocka_unit_test_setup_teardown(f, th_setup, th_teardown)

/* Forgets the diagnostics reported so far (the arena keeps its memory). */
void th_reset(struct th_fx *f);

/* ---- diagnostics ------------------------------------------------------------------------ */

/* Every diagnostic, as the text format prints them (on a failure). */
void th_dump(const struct mg_diags *d);

/* No error was reported. */
#define expect_clean(d) th_expect_clean((d), __FILE__, __LINE__)
/* The diagnostic with this check name at line:col (any severity). */
#define expect_diag(d, check, line, col)                                                           \
    th_expect_diag((d), (check), (line), (col), __FILE__, __LINE__)
/* That diagnostic, and no other error. */
#define expect_only(d, check, line, col)                                                           \
    th_expect_only((d), (check), (line), (col), __FILE__, __LINE__)
/* text holds part / does not hold it. */
#define expect_text(text, part) th_expect_text((text), (part), 1, __FILE__, __LINE__)
#define expect_no_text(text, part) th_expect_text((text), (part), 0, __FILE__, __LINE__)
/* The message of diagnostic g holds part. */
#define expect_message(g, part) th_expect_text((g)->message, (part), 1, __FILE__, __LINE__)

void th_expect_clean(const struct mg_diags *d, const char *file, int line);
const struct mg_diag *th_expect_diag(const struct mg_diags *d, const char *check, int line, int col,
                                     const char *file, int tline);
const struct mg_diag *th_expect_only(const struct mg_diags *d, const char *check, int line, int col,
                                     const char *file, int tline);
void th_expect_text(const char *text, const char *part, int present, const char *file, int line);

/* m is file:line:col; a NULL file stands for any file, but one. */
#define assert_mark(m, file, line, col)                                                            \
    th_assert_mark((m), (file), (line), (col), __FILE__, __LINE__)
void th_assert_mark(struct mg_mark m, const char *file, int line, int col, const char *tfile,
                    int tline);

/* How many diagnostics of the check were reported; the first of them
 * (NULL: none); whether one of them is an error. */
int count_check(const struct mg_diags *d, const char *check);
const struct mg_diag *find_check(const struct mg_diags *d, const char *check);
int has_error(const struct mg_diags *d, const char *check);

/* ---- files ------------------------------------------------------------------------------ */

/* The whole file, NUL-terminated, in memory of malloc's (free it); its
 * length in *len unless len is NULL. An unreadable file fails the test. */
char *th_read(const char *path, size_t *len);

/* The fixture's temporary directory, made on first use. */
const char *th_dir(struct th_fx *f);
/* name inside it, in the arena. */
const char *th_path(struct th_fx *f, const char *name);
/* Writes len bytes (th_write: the string) as name inside it; its path. */
const char *th_write_bytes(struct th_fx *f, const char *name, const void *data, size_t len);
const char *th_write(struct th_fx *f, const char *name, const char *text);
/* Copies a file (any size) to a path. */
void th_copy(const char *from, const char *to);
/* path made absolute against the current directory, into out. */
void th_absolute(char *out, size_t cap, const char *path);
/* The names in dir that end in suffix, sorted, in memory of malloc's;
 * th_free_names frees them. */
int th_names(const char *dir, const char *suffix, char ***names);
void th_free_names(char **names, int n);

/* Whether s is valid UTF-8: no stray or missing continuation byte, no
 * overlong form, no UTF-16 surrogate, nothing past U+10FFFF. */
int th_utf8(const char *s);

/* s with every `from` replaced by `to`, in memory of malloc's. */
char *th_replace(const char *s, const char *from, const char *to);

/* Fisher-Yates over a[0..n) with a small LCG of the seed: the same order
 * for the same seed on every machine. */
void th_shuffle(int32_t *a, int n, uint32_t seed);

/* ---- the model of the generator's stages, built in C ------------------------------------ */

/* test.yaml:line:1. */
struct mg_mark th_mark(int line);

/* n axes of the fixture's spec (names, sizes, and the sizes over DCN
 * unless dcn is NULL), explicit, at test.yaml lines 4, 5 and 6. */
void th_axes(struct th_fx *f, int n, const char *const *names, const int64_t *shape,
             const int64_t *dcn);

/* One GPU as a topology holds it; a NULL string is unknown. */
struct th_gpu {
    const char *pci, *vendor, *model, *uuid, *cpuset;
    int os_index, numa;
};

/* t, a topology of n GPUs: gpus[i] each, or, where gpus is NULL, GPUs of
 * empty strings on NUMA node 0; closeness (n x n, NULL: none given). */
void th_topology(struct th_fx *f, struct mg_topology *t, const char *key, int n,
                 const struct th_gpu *gpus, const int *closeness);

/* The fixture's inventory: hosts h0, h1, ... at test.yaml:100, 101, ...,
 * host i on topologies[topology_of[i]] (topology_of NULL: all on the
 * first). */
void th_inventory(struct th_fx *f, struct mg_topology *topologies, int n_topologies, int n_hosts,
                  const int *topology_of);

/* n_hosts hosts of one topology of per_host GPUs (th_topology "test"). */
void th_hosts(struct th_fx *f, int n_hosts, int per_host, const int *closeness);

/* mg_compile of the fixture's spec and inventory. */
struct mg_plan *th_compile(struct th_fx *f);

/* ---- runtime meshes from a short description --------------------------------------------- */

#define TH_MAX_HOSTS 8
#define TH_MAX_DEVICES 64
#define TH_MAX_SHARDINGS 4
#define TH_MAX_SHARDING_DIMS 8

struct th_axis {
    const char *name;
    int32_t size;
    int32_t dcn; /* of the size, over DCN; 0 is 1 */
};

struct th_host {
    const char *name;
    int32_t n_devices;
    /* Its devices; hosts given the same array share a template. NULL: GPUs
     * alike (bus 0000:01:00.0, NUMA node 0, CPU 0). */
    const struct meshgen_device_info *devices;
    const char *slice; /* NULL: none ("") */
};

/*
 * A mesh as `meshgen generate` would write it, from what a test says of it;
 * zero is the default of every field. The rest is derived: the ids number the
 * hosts' devices in order; granules are the hosts in the order the mesh
 * meets them (then hosts it leaves out, then -1 for hosts without devices);
 * processes are one per host, or per device, over the devices of the mesh
 * in id order.
 */
struct th_mesh_desc {
    const char *name;                      /* "test" */
    int32_t kind;                          /* enum meshgen_device_kind: GPU */
    int32_t axis_type;                     /* of every axis: MESHGEN_AXIS_AUTO */
    struct th_axis axes[MESHGEN_MAX_AXES]; /* up to the first without a name */
    struct th_host hosts[TH_MAX_HOSTS];    /* up to the first without a name */
    const int32_t *mesh;                   /* flat index -> device id; NULL: in id order */
    int per_device;                        /* a process per device, not per host */
    const char *mpmd;                      /* the MPMD axis; NULL: none */
    /* Processes other than those derived (n_processes 0: derived). */
    int32_t n_processes;
    const struct meshgen_process *processes;
    int32_t n_shardings;
    const struct meshgen_sharding *shardings; /* copied, with their dims */
};

/* The mesh and every table it points to, writable, so that a test may
 * change a copy. */
struct th_mesh {
    struct meshgen_mesh mesh;
    struct meshgen_axis axes[MESHGEN_MAX_AXES];
    struct meshgen_host_template templates[TH_MAX_HOSTS + 1];
    struct meshgen_device_info devices[TH_MAX_DEVICES]; /* the templates' in turn */
    struct meshgen_host hosts[TH_MAX_HOSTS];
    int32_t mesh_devices[TH_MAX_DEVICES];
    int32_t device_index[TH_MAX_DEVICES];
    struct meshgen_process processes[TH_MAX_DEVICES];
    int32_t process_devices[TH_MAX_DEVICES];
    struct meshgen_sharding shardings[TH_MAX_SHARDINGS];
    struct meshgen_sharding_dim dims[TH_MAX_SHARDING_DIMS];
};

/* Builds m from d; meshgen_mesh_check must accept it. */
void th_mesh_init(struct th_mesh *m, const struct th_mesh_desc *d);

/* CPU core os_index (0 to TH_MAX_DEVICES - 1) as a topology describes it:
 * on NUMA node 0, its cpuset the one CPU of its number. */
struct meshgen_device_info th_core(int os_index);

/* A launcher's environment for meshgen_*_from_vars and
 * meshgen_process_explain, as their get function: ctx is a NULL-terminated
 * array of "NAME=value" strings, so that a test says every variable and
 * inherits none from the environment it runs in. */
const char *th_lookup(void *ctx, const char *name);

#endif /* MG_TEST_HARNESS_H */
