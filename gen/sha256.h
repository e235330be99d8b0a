/*
 * SHA-256 (sha256.c), for the digests of topologies and meshes.
 */
#ifndef MG_SHA256_H
#define MG_SHA256_H

#include <stddef.h>

#include <stdint.h>

/* The digest of len bytes as 64 lower-case hex digits and a NUL. */
void mg_sha256_hex(const void *data, size_t len, char out[65]);

/* The same over text given in pieces: init, update any number of times,
 * then final. */
struct mg_sha256 {
    uint32_t h[8];
    unsigned char block[64];
    size_t used; /* bytes in block */
    uint64_t total;
};
void mg_sha256_init(struct mg_sha256 *c);
void mg_sha256_update(struct mg_sha256 *c, const void *data, size_t len);
void mg_sha256_final(struct mg_sha256 *c, char out[65]);
/* mg_sha256_update with the signature of a streaming buffer's sink. */
void mg_sha256_sink(void *ctx, const char *data, size_t len);

#endif /* MG_SHA256_H */
