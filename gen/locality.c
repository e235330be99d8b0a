/*
 * Locality-aware assignment inside a granule (docs/reference.md, "Locality
 * order").
 *
 * The ICI shape of a granule is a small mesh of its own. Devices are grouped
 * bottom-up: first into groups of ici[last] (the innermost axis), greedily
 * maximising the closeness inside each group; those groups are then grouped
 * by ici[last-1] with the summed closeness between groups, and so on out to
 * the outermost axis. The greedy step seeds each group with the first free
 * item in inventory order and breaks ties by inventory order, so uniform
 * closeness gives back inventory order exactly (JAX's order). The result is
 * kept only if it scores strictly higher than inventory order, so a tie
 * keeps inventory order too.
 */
#include "locality.h"
#include "mesh_math.h"

#include <string.h>

/* Closeness of two device ids: from their host's topology, 0 across hosts
 * (DCN is always farther than anything inside a host). */
static int64_t mg_close(const struct mg_plan *p, int a, int b)
{
    int la, lb, ha = mg_plan_host_of(p, a, &la), hb = mg_plan_host_of(p, b, &lb);
    if (ha != hb)
        return 0;
    return mg_topology_closeness(&p->inv->topologies[p->inv->hosts[ha].topology], p->kind, la, lb);
}

/* ---- closeness by the tree, linear in the devices ----------------------------- */

/* A device's ancestor at depth d across the whole inventory: its host's
 * first device id plus the ancestor's name in the host (depth 0, the root,
 * names the host); -1 when the device is shallower than d. */
static int mg_tree_key(const struct mg_plan *p, int dev, int d)
{
    int local, host = mg_plan_host_of(p, dev, &local);
    const struct mg_topology *t = &p->inv->topologies[p->inv->hosts[host].topology];

    if (d > t->tree_depth[p->kind][local])
        return -1;
    return p->host_first[host] +
           t->tree_path[p->kind][(size_t)local * (size_t)t->tree_stride[p->kind] + (size_t)d];
}

/* Whether every device of devs has its closeness by the tree; *depth
 * receives the deepest of them. */
static int mg_all_tree(const struct mg_plan *p, const int *devs, int n, int *depth)
{
    int i;

    *depth = 0;
    for (i = 0; i < n; i++) {
        int local, host = mg_plan_host_of(p, devs[i], &local);
        const struct mg_topology *t = &p->inv->topologies[p->inv->hosts[host].topology];
        if (!t->tree_path[p->kind])
            return 0;
        if (t->tree_depth[p->kind][local] > *depth)
            *depth = t->tree_depth[p->kind][local];
    }
    return 1;
}

/* A counting table of keys (open addressing), sized for `cap` keys. */
struct mg_key_count {
    int *key, *count;
    size_t mask;
};

static void mg_key_count_init(struct mg_arena *a, struct mg_key_count *kc, int cap)
{
    size_t slots = 16;
    while (slots < 2 * (size_t)cap)
        slots *= 2;
    kc->key = mg_alloc_array(a, slots, sizeof(int));
    kc->count = mg_alloc_array(a, slots, sizeof(int));
    kc->mask = slots - 1;
}

/* Counts one more of key and returns how many there were before. */
static int mg_key_count_add(struct mg_key_count *kc, int key)
{
    size_t i = ((size_t)(unsigned)key * 0x9E3779B1u) & kc->mask;
    while (kc->count[i] && kc->key[i] != key)
        i = (i + 1) & kc->mask;
    kc->key[i] = key;
    return kc->count[i]++;
}

static void mg_key_count_clear(struct mg_key_count *kc)
{
    memset(kc->count, 0, (kc->mask + 1) * sizeof(int));
}

/* The summed closeness of every pair of len members `stride` apart from
 * devs: a pair's closeness is the number of depths >= 1 where the two
 * paths agree, so count, depth by depth, the pairs that share each key. */
static int64_t mg_tree_pairs(const struct mg_plan *p, const int *devs, int len, int stride,
                             int depth, struct mg_key_count *kc)
{
    int64_t sum = 0;
    int d, j;

    for (d = 1; d <= depth; d++) {
        mg_key_count_clear(kc);
        for (j = 0; j < len; j++) {
            int key = mg_tree_key(p, devs[(size_t)j * (size_t)stride], d);
            if (key >= 0)
                sum += mg_key_count_add(kc, key);
        }
    }
    return sum;
}

/* Whether devs, in this order, keep every subtree together: each host, and
 * each ancestor in it, covers consecutive positions. Closeness is then
 * never larger to a later device than to an earlier one, and the greedy
 * grouping below, seeding with the first free item and breaking ties by
 * order, takes the devices in this order: it would give back inventory
 * order, so there is nothing to compute. */
static int mg_tree_ordered(struct mg_arena *a, const struct mg_plan *p, const int *devs, int n,
                           int depth)
{
    struct mg_key_count seen;
    int d, i;

    mg_key_count_init(a, &seen, n);
    for (d = 0; d <= depth; d++) {
        int prev = -2;
        mg_key_count_clear(&seen);
        for (i = 0; i < n; i++) {
            int key = mg_tree_key(p, devs[i], d);
            if (key != prev && key >= 0 && mg_key_count_add(&seen, key) > 0)
                return 0;
            prev = key;
        }
    }
    return 1;
}

/* ---- the score ------------------------------------------------------------------- */

int64_t mg_order_score(struct mg_arena *a, const struct mg_plan *p, const int *devs, int n)
{
    struct mg_key_count kc;
    int64_t score = 0;
    int k, i, j, depth, tree = mg_all_tree(p, devs, n, &depth);

    if (tree)
        mg_key_count_init(a, &kc, n);
    /* Local index = row-major over ici; along axis k, members of one group
     * are `stride` apart. */
    for (k = p->n_axes - 1; k >= 0; k--) {
        int len = (int)p->ici[k], stride = mg_rm_stride(p->ici, p->n_axes, k);
        int64_t axis_sum = 0;
        if (len > 1 && tree) {
            /* Each group once, from its first member. */
            for (i = 0; i < n; i++)
                if (mg_rm_coord(p->ici, p->n_axes, i, k) == 0)
                    axis_sum += mg_tree_pairs(p, devs + i, len, stride, depth, &kc);
        } else if (len > 1) {
            for (i = 0; i < n; i++) {
                int pos = mg_rm_coord(p->ici, p->n_axes, i, k);
                /* Count each pair once: from its lower member. */
                for (j = pos + 1; j < len; j++)
                    axis_sum += mg_close(p, devs[i], devs[i + (j - pos) * stride]);
            }
        }
        score += axis_sum * (k + 1);
    }
    return score;
}

/* The closeness of every pair of devs into m (n x n, 0 on the diagonal).
 * Returns whether every pair is alike, when no order beats another. */
static int mg_closeness_matrix(const struct mg_plan *p, const int *devs, int n, int64_t *m)
{
    int i, j, uniform = 1;
    int64_t first = -1;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            int64_t v = i == j ? 0 : mg_close(p, devs[i], devs[j]);
            m[(size_t)i * (size_t)n + (size_t)j] = v;
            if (i == j)
                continue;
            if (first < 0)
                first = v;
            else if (v != first)
                uniform = 0;
        }
    }
    return uniform;
}

/* Scratch for one run of the grouping, sized for n devices. */
struct mg_grouping {
    int *seq, *next, *tmp;
    int64_t *im, *gain;
    unsigned char *used;
};

/* Greedy groups of `len` items out of n_items, given their closeness im
 * (n_items x n_items): seed with the first free item, then add the free
 * item closest to the group so far (ties: the first), keeping each item's
 * closeness to the group as a running sum. The items in group order go to
 * g->tmp. */
static void mg_group_items(struct mg_grouping *g, int n_items, int len)
{
    int out = 0, i;

    memset(g->used, 0, (size_t)n_items);
    while (out < n_items) {
        int count, seed = 0;
        for (i = 0; i < n_items; i++)
            if (!g->used[i]) {
                seed = i;
                break;
            }
        g->used[seed] = 1;
        g->tmp[out++] = seed;
        for (i = 0; i < n_items; i++)
            g->gain[i] = g->im[(size_t)i * (size_t)n_items + (size_t)seed];
        for (count = 1; count < len; count++) {
            int best = -1;
            for (i = 0; i < n_items; i++)
                if (!g->used[i] && (best < 0 || g->gain[i] > g->gain[best]))
                    best = i;
            g->used[best] = 1;
            g->tmp[out++] = best;
            for (i = 0; i < n_items; i++)
                g->gain[i] += g->im[(size_t)i * (size_t)n_items + (size_t)best];
        }
    }
}

/* One level of the grouping: g->seq read as items of `item` consecutive
 * positions, grouped `len` at a time by the closeness m of their devices;
 * g->seq is rewritten in the new order. */
static void mg_group_level(struct mg_grouping *g, const int64_t *m, int n, int item, int len)
{
    int n_items = n / item, i, j, a, b;

    /* Closeness between items: the sum over their devices' pairs. */
    for (i = 0; i < n_items; i++)
        for (j = 0; j < n_items; j++) {
            int64_t sum = 0;
            for (a = 0; a < item; a++)
                for (b = 0; b < item; b++)
                    sum +=
                        m[(size_t)g->seq[i * item + a] * (size_t)n + (size_t)g->seq[j * item + b]];
            g->im[(size_t)i * (size_t)n_items + (size_t)j] = sum;
        }
    mg_group_items(g, n_items, len);
    for (i = 0; i < n_items; i++)
        memcpy(g->next + i * item, g->seq + g->tmp[i] * item, (size_t)item * sizeof(int));
    memcpy(g->seq, g->next, (size_t)n * sizeof(int));
}

void mg_locality_order(struct mg_arena *a, const struct mg_plan *p, const int *devs, int n,
                       int *order)
{
    struct mg_grouping g;
    int64_t *m;
    int item = 1; /* devices per item at this level */
    int i, k, depth;

    for (i = 0; i < n; i++)
        order[i] = i;
    if (mg_all_tree(p, devs, n, &depth) && mg_tree_ordered(a, p, devs, n, depth))
        return;
    /* The matrices are n x n: past this, keep inventory order (a slice of
     * hundreds of hosts is one granule, and its devices already come host
     * by host). */
    if (n > MG_LOCALITY_MAX)
        return;
    m = mg_alloc_array(a, (size_t)n * (size_t)n, sizeof(int64_t));
    if (mg_closeness_matrix(p, devs, n, m))
        return;
    g.seq = mg_alloc_array(a, (size_t)n, sizeof(int));
    g.next = mg_alloc_array(a, (size_t)n, sizeof(int));
    g.tmp = mg_alloc_array(a, (size_t)n, sizeof(int));
    g.im = mg_alloc_array(a, (size_t)n * (size_t)n, sizeof(int64_t));
    g.gain = mg_alloc_array(a, (size_t)n, sizeof(int64_t));
    g.used = mg_alloc(a, (size_t)n);
    for (i = 0; i < n; i++)
        g.seq[i] = i;
    for (k = p->n_axes - 1; k >= 0; k--) {
        int len = (int)p->ici[k];
        if (len <= 1)
            continue;
        mg_group_level(&g, m, n, item, len);
        item *= len;
    }
    /* Keep inventory order unless the locality order is strictly better. */
    for (i = 0; i < n; i++)
        g.tmp[i] = devs[g.seq[i]];
    if (mg_order_score(a, p, g.tmp, n) > mg_order_score(a, p, devs, n))
        memcpy(order, g.seq, (size_t)n * sizeof(int));
}
