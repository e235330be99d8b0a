/*
 * Locality-aware assignment inside a granule.
 *
 * The ICI shape of a granule is a small mesh of its own. Devices are grouped
 * bottom-up: first into groups of ici[last] (the innermost axis), greedily
 * maximising the closeness inside each group; those groups are then grouped
 * by ici[last-1] with the summed closeness between groups, and so on out to
 * the outermost axis. The greedy step seeds each group with the first free
 * item in inventory order and breaks ties by inventory order, so uniform
 * closeness gives back inventory order exactly (JAX's order). The result is
 * kept only if it scores at least as well as inventory order.
 */
#include "locality.h"

#include <string.h>

/* Closeness of two device ids: from their host's matrix, 0 across hosts
 * (DCN is always farther than anything inside a host). */
static int64_t mg_close(const struct mg_ctx *c, const struct mg_plan *p, int a, int b)
{
    const struct mg_plan_device *da = &p->devices[a], *db = &p->devices[b];
    const struct mg_topology *t;
    if (da->host != db->host)
        return 0;
    t = &c->inv->topologies[c->inv->hosts[da->host].topology];
    if (!t->closeness[p->kind])
        return 0;
    return t->closeness[p->kind][(size_t)da->local * (size_t)t->n[p->kind] + (size_t)db->local];
}

int64_t mg_order_score(const struct mg_ctx *c, const struct mg_plan *p, const int *devs, int n)
{
    int64_t score = 0;
    int k, i, j;
    int stride = 1;

    /* Local index = row-major over ici; along axis k, members of one group
     * are `stride` apart, where stride = product of ici of inner axes. */
    for (k = p->n_axes - 1; k >= 0; k--) {
        int len = (int)p->ici[k];
        int64_t axis_sum = 0;
        if (len > 1) {
            for (i = 0; i < n; i++) {
                int pos = (i / stride) % len;
                /* Count each pair once: from its lower member. */
                for (j = pos + 1; j < len; j++)
                    axis_sum += mg_close(c, p, devs[i], devs[i + (j - pos) * stride]);
            }
        }
        score += axis_sum * (k + 1);
        stride *= len;
    }
    return score;
}

void mg_locality_order(const struct mg_ctx *c, const struct mg_plan *p, const int *devs, int n,
                       int *order)
{
    /* seq holds positions into devs; at each level it is read as items of
     * `item` consecutive positions, and items are grouped `len` at a time. */
    int *seq, *next, *tmp;
    int64_t *m, *im, *gain;
    unsigned char *used;
    int item = 1; /* devices per item at this level */
    int i, j, k, uniform = 1;
    int64_t first = -1;

    for (i = 0; i < n; i++)
        order[i] = i;
    /* The matrices are n x n: past this, keep inventory order (a slice of
     * hundreds of hosts is one granule, and its devices already come host
     * by host). */
    if (n > MG_LOCALITY_MAX)
        return;
    seq = mg_alloc_array(c->arena, (size_t)n, sizeof(int));
    next = mg_alloc_array(c->arena, (size_t)n, sizeof(int));
    tmp = mg_alloc_array(c->arena, (size_t)n, sizeof(int));
    m = mg_alloc_array(c->arena, (size_t)n * (size_t)n, sizeof(int64_t));
    im = mg_alloc_array(c->arena, (size_t)n * (size_t)n, sizeof(int64_t));
    gain = mg_alloc_array(c->arena, (size_t)n, sizeof(int64_t));
    used = mg_alloc(c->arena, (size_t)n);
    for (i = 0; i < n; i++) {
        seq[i] = i;
        for (j = 0; j < n; j++) {
            int64_t v = i == j ? 0 : mg_close(c, p, devs[i], devs[j]);
            m[(size_t)i * (size_t)n + (size_t)j] = v;
            if (i == j)
                continue;
            if (first < 0)
                first = v;
            else if (v != first)
                uniform = 0;
        }
    }
    if (uniform)
        return;
    for (k = p->n_axes - 1; k >= 0; k--) {
        int len = (int)p->ici[k], n_items = n / item, out = 0, a, b;
        if (len <= 1)
            continue;
        /* Closeness between items: the sum over their devices' pairs. */
        for (i = 0; i < n_items; i++)
            for (j = 0; j < n_items; j++) {
                int64_t sum = 0;
                for (a = 0; a < item; a++)
                    for (b = 0; b < item; b++)
                        sum += m[(size_t)seq[i * item + a] * (size_t)n +
                                 (size_t)seq[j * item + b]];
                im[(size_t)i * (size_t)n_items + (size_t)j] = sum;
            }
        memset(used, 0, (size_t)n_items);
        /* Greedy groups: seed with the first free item, then add the free
         * item closest to the group so far (ties: the first), keeping each
         * item's closeness to the group as a running sum. */
        while (out < n_items) {
            int count, seed = 0;
            for (i = 0; i < n_items; i++)
                if (!used[i]) {
                    seed = i;
                    break;
                }
            used[seed] = 1;
            tmp[out++] = seed;
            for (i = 0; i < n_items; i++)
                gain[i] = im[(size_t)i * (size_t)n_items + (size_t)seed];
            for (count = 1; count < len; count++) {
                int best = -1;
                for (i = 0; i < n_items; i++)
                    if (!used[i] && (best < 0 || gain[i] > gain[best]))
                        best = i;
                used[best] = 1;
                tmp[out++] = best;
                for (i = 0; i < n_items; i++)
                    gain[i] += im[(size_t)i * (size_t)n_items + (size_t)best];
            }
        }
        for (i = 0; i < n_items; i++)
            memcpy(next + i * item, seq + tmp[i] * item, (size_t)item * sizeof(int));
        memcpy(seq, next, (size_t)n * sizeof(int));
        item *= len;
    }
    /* Keep inventory order unless the locality order is strictly better. */
    for (i = 0; i < n; i++)
        tmp[i] = devs[seq[i]];
    if (mg_order_score(c, p, tmp, n) > mg_order_score(c, p, devs, n))
        memcpy(order, seq, (size_t)n * sizeof(int));
}
