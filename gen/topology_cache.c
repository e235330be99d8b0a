/*
 * Topology files loaded once per command. While a command holds the cache
 * (mg_topology_cache_hold, which holds hwloc's plugins too), each topology
 * file loaded is kept, known by its device and inode, and a later load of
 * the same file is given the kept topology: `validate` of a thousand specs
 * that share an inventory loads, and trial-loads, its XML once. What the
 * first load reported (an error, a warning about the file) is reported to
 * that load only, so a bad file is reported once per command, at the first
 * place that names it; a load that failed fails again, silently.
 *
 * Synthetic descriptions and this machine are loaded each time: neither is
 * a file, a description costs little, and a machine can change. Without a
 * hold every load is a load. It knows nothing of inventory files or specs,
 * nor of hwloc (topology.c loads).
 */
#include "internal.h"
#include "io.h"

#include <stdio.h>
#include <string.h>

/* One kept load: its key, how it ended, and what it gave; and the same
 * topology as a template, made the first time an inventory asks. */
struct mg_kept {
    const char *key;
    int rc; /* 0, or -1: it failed (and said why to its first caller) */
    struct mg_topology t;
    int made; /* tmpl and cleared hold the template */
    struct mg_topology tmpl;
    int cleared;
};

/* The kept loads: open addressing over a power-of-two number of slots, at
 * most half of them used; all of it in the cache's arena. */
static struct {
    int held;
    int hwloc_held; /* the hold of hwloc's plugins is the cache's */
    struct mg_arena arena;
    struct mg_kept **slot;
    size_t mask, n;
} mg_cache;

int mg_topology_cache_hold(void)
{
    if (mg_cache.held)
        return -1;
    memset(&mg_cache, 0, sizeof mg_cache);
    mg_cache.hwloc_held = mg_topology_hold() == 0;
    mg_arena_init(&mg_cache.arena);
    mg_cache.held = 1;
    return 0;
}

void mg_topology_cache_release(void)
{
    if (!mg_cache.held)
        return;
    if (mg_cache.hwloc_held)
        mg_topology_release();
    mg_arena_free(&mg_cache.arena);
    memset(&mg_cache, 0, sizeof mg_cache);
}

/* Room for a key: two decimal numbers of up to 20 digits and a ':'. */
#define MG_KEPT_KEY 48

/* The slot of key: holding it, or the empty one where it goes. */
static struct mg_kept **mg_kept_slot(const char *key)
{
    size_t i = (size_t)mg_hash(key, strlen(key)) & mg_cache.mask;

    while (mg_cache.slot[i] && strcmp(mg_cache.slot[i]->key, key) != 0)
        i = (i + 1) & mg_cache.mask;
    return &mg_cache.slot[i];
}

/* Room for one more kept load: the table doubles past half full. */
static void mg_kept_reserve(void)
{
    struct mg_kept **old = mg_cache.slot;
    size_t old_size = old ? mg_cache.mask + 1 : 0, size = old_size ? 2 * old_size : 16, i;

    if (2 * (mg_cache.n + 1) <= old_size)
        return;
    mg_cache.slot = mg_alloc_array(&mg_cache.arena, size, sizeof *mg_cache.slot);
    mg_cache.mask = size - 1;
    for (i = 0; i < old_size; i++)
        if (old[i])
            *mg_kept_slot(old[i]->key) = old[i];
}

/* The key a file is kept under, in key[MG_KEPT_KEY]; or NULL when it is
 * not kept (no hold, not a file, or none that can be reached: then the
 * load says why). */
static const char *mg_kept_key(const char *source, char *key)
{
    struct mg_file_id id;

    if (!mg_cache.held || mg_source_kind(source) != MG_SOURCE_XML ||
        mg_file_identity(source, &id) != 0)
        return NULL;
    snprintf(key, MG_KEPT_KEY, "%ju:%ju", id.dev, id.ino);
    return key;
}

int mg_topology_open(struct mg_arena *a, struct mg_diags *d, const char *source, const char *label,
                     struct mg_mark at, struct mg_topology *t, const char **host_name)
{
    char buf[MG_KEPT_KEY];
    const char *key = mg_kept_key(source, buf);
    struct mg_kept **slot, *e;

    if (!key)
        return mg_topology_load(a, d, source, label, at, t, host_name);
    mg_kept_reserve();
    slot = mg_kept_slot(key);
    if (!*slot) {
        e = mg_alloc(&mg_cache.arena, sizeof *e);
        e->key = mg_strdup(&mg_cache.arena, key);
        /* The diagnostics are this caller's; what they point at (its
         * marks, the label) stays in its arena with them. */
        e->rc = mg_topology_load(&mg_cache.arena, d, source, label, at, &e->t, NULL);
        *slot = e;
        mg_cache.n++;
    }
    e = *slot;
    if (e->rc != 0)
        return -1;
    *t = e->t;
    t->label = mg_strdup(a, label);
    /* A file without a HostName names its host after the path it is
     * opened by, which differs between callers. */
    if (host_name && (*host_name = mg_topology_host_name(a, d, at, t, source, label)) == NULL)
        return -1;
    return 0;
}

/* The kept load that t is a copy of (its device lists are the kept ones),
 * or NULL. */
static struct mg_kept *mg_kept_of(const struct mg_topology *t)
{
    char buf[MG_KEPT_KEY];
    const char *key = t->key ? mg_kept_key(t->key, buf) : NULL;
    struct mg_kept *e;

    if (!key || !mg_cache.slot)
        return NULL;
    e = *mg_kept_slot(key);
    return e && e->rc == 0 && memcmp(e->t.devs, t->devs, sizeof t->devs) == 0 ? e : NULL;
}

/* The topology's own copy of its device lists, in a. */
static void mg_own_devices(struct mg_arena *a, struct mg_topology *t)
{
    int k;

    for (k = 0; k < MG_N_KINDS; k++) {
        struct mg_devinfo *copy;
        if (t->n[k] <= 0 || !t->devs[k])
            continue;
        copy = mg_alloc_array(a, (size_t)t->n[k], sizeof *copy);
        memcpy(copy, t->devs[k], (size_t)t->n[k] * sizeof *copy);
        t->devs[k] = copy;
    }
}

int mg_topology_template(struct mg_topology *t)
{
    struct mg_kept *e = mg_kept_of(t);
    const char *label = t->label;

    if (!e)
        return mg_topology_make_template(t);
    /* The kept load stays as it was loaded, for the inventories that give
     * its file to one host; the template is a copy, made once. */
    if (!e->made) {
        e->tmpl = e->t;
        mg_own_devices(&mg_cache.arena, &e->tmpl);
        e->cleared = mg_topology_make_template(&e->tmpl);
        e->made = 1;
    }
    *t = e->tmpl;
    t->label = label;
    return e->cleared;
}
