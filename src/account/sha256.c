/* SHA-256 (FIPS 180-4), for the inputs' fingerprints in a document's
 * provenance. Written here rather than taken from a crypto library: about a
 * hundred lines, checked against the standard's test vectors
 * (tests/unit/test_account.c), and the one digest joules needs.
 *
 * Every input of a study is hashed once per document, so the hash runs over
 * as many bytes as the analysis decodes: the portable rounds cost about 63
 * instructions a byte, more than the summary itself (docs/scaling.md). On
 * x86-64 processors with the SHA extensions (Intel since Goldmont/Ice Lake,
 * AMD since Zen) the rounds run on sha256rnds2/msg1/msg2, chosen at run time;
 * JOULES_SHA256=portable forces the portable rounds (the unit test compares
 * the two on random data). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account/account_internal.h"
#include "joules/account.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROTR(w[i - 15], 7) ^ ROTR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROTR(w[i - 2], 17) ^ ROTR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            k + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
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
    h[7] += k;
}

static void blocks_portable(uint32_t h[8], const unsigned char *p, size_t n)
{
    for (; n; n--, p += 64)
        block(h, p);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define JL_SHA256_HAVE_SHANI 1

/* The state lives in two registers as (A,B,E,F) and (C,D,G,H), the layout
 * sha256rnds2 takes; each call does two rounds, so a 4-word group of the
 * message schedule (W + K) feeds two calls. */
__attribute__((target("sha,sse4.1,ssse3"))) static void
blocks_shani(uint32_t h[8], const unsigned char *p, size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&h[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&h[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (; n; n--, p += 64) {
        __m128i abef0 = abef, cdgh0 = cdgh, m[4];
        for (int g = 0; g < 16; g++) {
            __m128i w;
            if (g < 4) {
                w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else { /* W[t] from W[t-16], W[t-15], W[t-7], W[t-2] */
                __m128i a = m[g & 3], b = m[(g + 1) & 3], c = m[(g + 2) & 3], d = m[(g + 3) & 3];
                w = _mm_sha256msg1_epu32(a, b);
                w = _mm_add_epi32(w, _mm_alignr_epi8(d, c, 4));
                w = _mm_sha256msg2_epu32(w, d);
            }
            m[g & 3] = w;
            __m128i wk = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&K[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(dchg, feba, 8));
}
#endif

int jl__sha256_accelerated(void)
{
#ifdef JL_SHA256_HAVE_SHANI
    const char *force = getenv("JOULES_SHA256");
    if (force && strcmp(force, "portable") == 0)
        return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") &&
           __builtin_cpu_supports("ssse3");
#else
    return 0;
#endif
}

static int accel = -1; /* decided once; the same answer from any thread */

void jl__sha256_select(int accelerated)
{
    accel = accelerated && jl__sha256_accelerated();
}

static void blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
    if (accel < 0)
        accel = jl__sha256_accelerated();
#ifdef JL_SHA256_HAVE_SHANI
    if (accel) {
        blocks_shani(h, p, n);
        return;
    }
#endif
    blocks_portable(h, p, n);
}

void jl__sha256_init(jl__sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->len = 0;
    s->n = 0;
}

void jl__sha256_update(jl__sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    if (s->n) {
        size_t take = 64 - s->n < len ? 64 - s->n : len;
        memcpy(s->buf + s->n, p, take);
        s->n += take;
        p += take;
        len -= take;
        if (s->n < 64)
            return;
        blocks(s->h, s->buf, 1);
        s->n = 0;
    }
    if (len >= 64) {
        blocks(s->h, p, len / 64);
        p += len / 64 * 64;
        len %= 64;
    }
    memcpy(s->buf, p, len);
    s->n = len;
}

void jl__sha256_final(jl__sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80;
    jl__sha256_update(s, &pad, 1);
    unsigned char zero = 0;
    while (s->n != 56)
        jl__sha256_update(s, &zero, 1);
    unsigned char lenb[8];
    for (int i = 0; i < 8; i++)
        lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
    jl__sha256_update(s, lenb, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

static void to_hex(const unsigned char d[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
}

void jl_sha256_hex(const void *data, size_t len, char hex[65])
{
    jl__sha256 s;
    unsigned char d[32];
    jl__sha256_init(&s);
    jl__sha256_update(&s, data, len);
    jl__sha256_final(&s, d);
    to_hex(d, hex);
}

jl_status jl_sha256_file(const char *path, char hex[65], unsigned long long *size, jl_error **err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return jl_fail(err, errno == ENOENT ? JL_EMISSING : JL_EIO, path, NULL, NULL, -1,
                       "cannot open: %s", strerror(errno));
    jl__sha256 s;
    jl__sha256_init(&s);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        jl__sha256_update(&s, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "read error");
    unsigned char d[32];
    if (size)
        *size = s.len;
    jl__sha256_final(&s, d);
    to_hex(d, hex);
    return JL_OK;
}
