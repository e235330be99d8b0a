/*
 * SHA-256 (FIPS 180-4), for the digests of topologies and of the resolved
 * mesh that the banner and the tables carry. A small self-contained copy,
 * so the generator needs no crypto library; it knows nothing of what it
 * hashes.
 */
#include "internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint32_t mg_k256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define MG_ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void mg_sha256_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
    int i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (i = 16; i < 64; i++) {
        uint32_t s0 = MG_ROR(w[i - 15], 7) ^ MG_ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = MG_ROR(w[i - 2], 17) ^ MG_ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = h[0];
    b = h[1];
    c = h[2];
    d = h[3];
    e = h[4];
    f = h[5];
    g = h[6];
    hh = h[7];
    for (i = 0; i < 64; i++) {
        uint32_t S1 = MG_ROR(e, 6) ^ MG_ROR(e, 11) ^ MG_ROR(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t S0 = MG_ROR(a, 2) ^ MG_ROR(a, 13) ^ MG_ROR(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        t1 = hh + S1 + ch + mg_k256[i] + w[i];
        t2 = S0 + maj;
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void mg_sha256_init(struct mg_sha256 *c)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, h0, sizeof h0);
    c->used = 0;
    c->total = 0;
}

void mg_sha256_update(struct mg_sha256 *c, const void *data, size_t len)
{
    const unsigned char *p = data;

    c->total += len;
    if (c->used) {
        size_t k = 64 - c->used < len ? 64 - c->used : len;
        memcpy(c->block + c->used, p, k);
        c->used += k;
        p += k;
        len -= k;
        if (c->used < 64)
            return;
        mg_sha256_block(c->h, c->block);
        c->used = 0;
    }
    for (; len >= 64; p += 64, len -= 64)
        mg_sha256_block(c->h, p);
    memcpy(c->block, p, len);
    c->used = len;
}

void mg_sha256_final(struct mg_sha256 *c, char out[65])
{
    unsigned char tail[128];
    size_t tail_len = c->used + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = c->total * 8;
    int i;

    memset(tail, 0, sizeof tail);
    memcpy(tail, c->block, c->used);
    tail[c->used] = 0x80;
    for (i = 0; i < 8; i++)
        tail[tail_len - 1 - i] = (unsigned char)(bits >> (8 * i));
    mg_sha256_block(c->h, tail);
    if (tail_len == 128)
        mg_sha256_block(c->h, tail + 64);
    for (i = 0; i < 8; i++)
        snprintf(out + 8 * i, 9, "%08x", c->h[i]);
}

void mg_sha256_sink(void *ctx, const char *data, size_t len)
{
    mg_sha256_update(ctx, data, len);
}

void mg_sha256_hex(const void *data, size_t len, char out[65])
{
    struct mg_sha256 c;

    mg_sha256_init(&c);
    mg_sha256_update(&c, data, len);
    mg_sha256_final(&c, out);
}
