/*
 * Private to meshgen: what a host name is, and which host of a mesh this
 * machine is. The rule for host names (docs/reference.md §2, "Host names")
 * is here once: the generator checks every name it reads (hostlists, an
 * XML file's HostName, a file's base name) with meshgen__host_name_refusal
 * and tells hosts apart with meshgen__host_name_cmp, and the runtime checks
 * the names it reads from the environment the same way and matches them
 * with meshgen__same_host. The lookups (meshgen_host_from_vars,
 * meshgen_process_from_vars in identity.c) and the verification
 * (meshgen_verify in placement.c) both name this machine and find it among
 * the hosts through meshgen__this_host_name and meshgen__find_host, so that
 * "which host am I" has one answer everywhere (docs/reference.md, "Which
 * process am I"). Not installed. The functions are static inline: each
 * library (and the placement library is a separate one) and the generator
 * has its own copy, and none exports them.
 */
#ifndef MESHGEN_HOST_H
#define MESHGEN_HOST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshgen/meshgen.h>

/* The longest host name: POSIX's _POSIX_HOST_NAME_MAX, and DNS's longest
 * name. Generated tables hold host names as string literals, which C
 * compilers need not take past 4095 bytes. */
#define MESHGEN__HOST_NAME_MAX 255

/* Room for a name from gethostname(): Linux allows 64 bytes, POSIX 255. */
#define MESHGEN__HOST_NAME_CAP (MESHGEN__HOST_NAME_MAX + 1)

/*
 * Why the n bytes at name are not a host name, or NULL when they are: a
 * host name is 1 to MESHGEN__HOST_NAME_MAX bytes of ASCII letters, digits,
 * '-', '_' and '.' (DNS's letters, digits and hyphens, and the underscore
 * Slurm node names may hold), in dot-separated labels none of which is
 * empty (no '.' first, last or twice in a row). *at receives the offset of
 * what is wrong (n for a name too long or empty).
 */
static inline const char *meshgen__host_name_refusal(const char *name, size_t n, size_t *at)
{
    size_t i;

    *at = n;
    if (n == 0)
        return "an empty name";
    if (n > MESHGEN__HOST_NAME_MAX)
        return "more than 255 bytes";
    for (i = 0; i < n; i++) {
        char c = name[i];

        *at = i;
        if (c == '.' && (i == 0 || i + 1 == n || name[i + 1] == '.'))
            return "an empty label (a '.' first, last or twice in a row)";
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.'))
            return "a character other than ASCII letters, digits, '-', '_' and '.'";
    }
    return NULL;
}

/* An ASCII letter in lower case; any other byte as it is. */
static inline unsigned char meshgen__host_lower(char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

/* Host names compared as DNS compares them, ignoring the case of ASCII
 * letters, in the order strcmp gives their lower-case forms: "GPU001" and
 * "gpu001" are one host. */
static inline int meshgen__host_name_cmp(const char *a, const char *b)
{
    while (*a != '\0' && meshgen__host_lower(*a) == meshgen__host_lower(*b)) {
        a++;
        b++;
    }
    return (int)meshgen__host_lower(*a) - (int)meshgen__host_lower(*b);
}

/* This machine's name and where it was read. name points either at the
 * caller's variable or into buf, so the struct must not be copied. */
struct meshgen__host_name {
    const char *name;
    const char *source; /* "MESHGEN_HOSTNAME", "SLURMD_NODENAME" or "gethostname()" */
    char buf[MESHGEN__HOST_NAME_CAP];
};

/* getenv() as a meshgen_lookup_fn; ctx is not used. */
static inline const char *meshgen__getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* The variables that name this machine, before gethostname(): an explicit
 * choice, then the Slurm node name, which inventories written from Slurm
 * use and which may differ from the host name the kernel has. Their values
 * must be host names (meshgen__host_name_refusal). */
static const char *const meshgen__host_vars[] = {"MESHGEN_HOSTNAME", "SLURMD_NODENAME"};

/*
 * This machine's name: MESHGEN_HOSTNAME, else SLURMD_NODENAME (read through
 * get), else gethostname(). Returns 0, MESHGEN_ERR_BAD_ENV (a variable set
 * but empty, or not a host name: out->name and out->source still say which)
 * or MESHGEN_ERR_SYSTEM (gethostname() failed or gave nothing). The name
 * gethostname() gives is taken as it is: one that is no host name matches
 * no host of a mesh (meshgen__same_host).
 */
static inline int meshgen__this_host_name(meshgen_lookup_fn get, void *ctx,
                                          struct meshgen__host_name *out)
{
    size_t i;

    for (i = 0; i < sizeof meshgen__host_vars / sizeof meshgen__host_vars[0]; i++) {
        const char *text = get(ctx, meshgen__host_vars[i]);
        size_t at;

        if (text == NULL)
            continue;
        out->name = text;
        out->source = meshgen__host_vars[i];
        /* As with the ranks, a variable set to nothing (or to no host name)
         * is a broken job script, not a reason to fall through to another
         * name. */
        return meshgen__host_name_refusal(text, strlen(text), &at) == NULL ? MESHGEN_OK
                                                                           : MESHGEN_ERR_BAD_ENV;
    }
    /* POSIX leaves a truncated name unterminated, hence the last byte. */
    if (gethostname(out->buf, sizeof out->buf - 1) != 0)
        return MESHGEN_ERR_SYSTEM;
    out->buf[sizeof out->buf - 1] = '\0';
    if (out->buf[0] == '\0')
        return MESHGEN_ERR_SYSTEM;
    out->name = out->buf;
    out->source = "gethostname()";
    return MESHGEN_OK;
}

/* Whether two host names are the same, ignoring the case of ASCII letters
 * (meshgen__host_name_cmp), whole or (short) up to the first dot of each:
 * inventories name hosts the way Slurm does, while gethostname() may give
 * the fully qualified name. The part before the dot must not be empty: a
 * name that starts with a dot is no host name, and is the short name of
 * none. */
static inline int meshgen__same_host(const char *a, const char *b, int short_form)
{
    size_t n, m, i;

    if (!short_form)
        return meshgen__host_name_cmp(a, b) == 0;
    n = strcspn(a, ".");
    m = strcspn(b, ".");
    if (n == 0 || n != m)
        return 0;
    for (i = 0; i < n; i++)
        if (meshgen__host_lower(a[i]) != meshgen__host_lower(b[i]))
            return 0;
    return 1;
}

/*
 * The host called name: the one whose name equals it, else the one equal to
 * it up to the first dot of each; whatever the name, host 0 of a mesh whose
 * only host is "localhost". Returns the host index, MESHGEN_ERR_NO_HOST
 * (match[0] and match[1] then hold the two hosts the name fits equally well,
 * or -1 when none fits), or MESHGEN_ERR_CORRUPT for a host table that no
 * checked mesh has.
 */
static inline int meshgen__find_host(const struct meshgen_mesh *mesh, const char *name,
                                     int32_t match[2])
{
    int pass;
    int32_t h;

    match[0] = match[1] = -1;
    if (mesh->n_hosts < 1 || mesh->hosts == NULL)
        return MESHGEN_ERR_CORRUPT;
    for (h = 0; h < mesh->n_hosts; h++)
        if (mesh->hosts[h].name == NULL)
            return MESHGEN_ERR_CORRUPT;
    /* A synthetic inventory's host stands for whichever machine runs the
     * program; no other host could be meant. */
    if (mesh->n_hosts == 1 && strcmp(mesh->hosts[0].name, "localhost") == 0) {
        match[0] = 0;
        return 0;
    }
    /* An exact match first, so that hosts that share a short name are still
     * told apart by their full names; a name that fits two equally well
     * names neither. */
    for (pass = 0; pass < 2; pass++) {
        for (h = 0; h < mesh->n_hosts; h++) {
            if (!meshgen__same_host(mesh->hosts[h].name, name, pass))
                continue;
            if (match[0] >= 0) {
                match[1] = h;
                return MESHGEN_ERR_NO_HOST;
            }
            match[0] = h;
        }
        if (match[0] >= 0)
            return match[0];
    }
    return MESHGEN_ERR_NO_HOST;
}

#endif /* MESHGEN_HOST_H */
