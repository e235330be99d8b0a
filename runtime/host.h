/*
 * Private to the runtime: which host of a mesh this machine is. The
 * lookups (meshgen_host_from_vars, meshgen_process_from_vars in identity.c)
 * and the verification (meshgen_verify in placement.c) both name this machine
 * and find it among the hosts through these two functions, so that "which
 * host am I" has one answer everywhere (docs/reference.md, "Which process am
 * I"). Not installed. The functions are static inline: each library (and
 * the placement library is a separate one) has its own copy, and neither
 * exports them.
 */
#ifndef MESHGEN_HOST_H
#define MESHGEN_HOST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <meshgen/meshgen.h>

/* Room for a name from gethostname(): Linux allows 64 bytes, POSIX 255. */
#define MESHGEN__HOST_NAME_CAP 256

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
 * use and which may differ from the host name the kernel has. */
static const char *const meshgen__host_vars[] = {"MESHGEN_HOSTNAME", "SLURMD_NODENAME"};

/*
 * This machine's name: MESHGEN_HOSTNAME, else SLURMD_NODENAME (read through
 * get), else gethostname(). Returns 0, MESHGEN_ERR_BAD_ENV (a variable set
 * but empty) or MESHGEN_ERR_SYSTEM (gethostname() failed or gave nothing).
 */
static inline int meshgen__this_host_name(meshgen_lookup_fn get, void *ctx,
                                          struct meshgen__host_name *out)
{
    size_t i;

    for (i = 0; i < sizeof meshgen__host_vars / sizeof meshgen__host_vars[0]; i++) {
        const char *text = get(ctx, meshgen__host_vars[i]);

        /* As with the ranks, a variable set to nothing is a broken job
         * script, not a reason to fall through to another name. */
        if (text == NULL)
            continue;
        if (text[0] == '\0')
            return MESHGEN_ERR_BAD_ENV;
        out->name = text;
        out->source = meshgen__host_vars[i];
        return MESHGEN_OK;
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

/* Whether two host names are the same, exactly or (short) up to the first dot
 * of each: inventories name hosts the way Slurm does, while gethostname() may
 * give the fully qualified name. */
static inline int meshgen__same_host(const char *a, const char *b, int short_form)
{
    size_t n, m;

    if (!short_form)
        return strcmp(a, b) == 0;
    n = strcspn(a, ".");
    m = strcspn(b, ".");
    return n == m && strncmp(a, b, n) == 0;
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
