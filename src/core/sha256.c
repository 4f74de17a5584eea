/* SHA-256 (FIPS 180-4), for the inputs' fingerprints in a document's
 * provenance. In core so that the study load can hash each file where it
 * is read (core/digests.c) and account can put the digest in the
 * provenance; the public jl_sha256_hex/jl_sha256_file are account's. Written here rather than taken from a crypto library: about a
 * hundred lines, checked against the standard's test vectors
 * (tests/unit/test_account.c), and the one digest joules needs.
 *
 * Every --json document hashes each input file whole, so on x86-64 with the
 * SHA extensions (cpuid leaf 7 EBX bit 29; SSSE3 and SSE4.1 too) the blocks
 * go through sha256rnds2/msg1/msg2 instead of the portable rounds: ~64
 * instructions a byte -> ~2 (docs/performance.md, "The decode floor").
 * Both give the same digest (test_account compares them on random data). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define JL__SHA_X86 1
#endif

#include "core/sha256.h"
#include "core/util.h"

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

static void blocks_portable(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    for (; nblocks; nblocks--, p += 64)
        block(h, p);
}

#ifdef JL__SHA_X86
__attribute__((target("sha,ssse3,sse4.1"))) static void
blocks_shani(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i tmp = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
    __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
    tmp = _mm_shuffle_epi32(tmp, 0xB1);       /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);         /* EFGH */
    __m128i s0 = _mm_alignr_epi8(tmp, s1, 8); /* ABEF */
    s1 = _mm_blend_epi16(s1, tmp, 0xF0);      /* CDGH */
    for (; nblocks; nblocks--, p += 64) {
        const __m128i abef = s0, cdgh = s1;
        __m128i w[4];
        for (int i = 0; i < 16; i++) {
            __m128i x;
            if (i < 4) {
                x = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)),
                                     mask);
            } else { /* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16] */
                x = _mm_sha256msg1_epu32(w[i & 3], w[(i - 3) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[(i - 1) & 3], w[(i - 2) & 3], 4));
                x = _mm_sha256msg2_epu32(x, w[(i - 1) & 3]);
            }
            w[i & 3] = x;
            __m128i m = _mm_add_epi32(x, _mm_loadu_si128((const __m128i *)(const void *)&K[4 * i]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, m);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    tmp = _mm_shuffle_epi32(s0, 0x1B);   /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);    /* DCHG */
    s0 = _mm_blend_epi16(tmp, s1, 0xF0); /* DCBA */
    s1 = _mm_alignr_epi8(s1, tmp, 8);    /* ABEF */
    _mm_storeu_si128((__m128i *)(void *)&h[0], s0);
    _mm_storeu_si128((__m128i *)(void *)&h[4], s1);
}

static int have_shani(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSSE3) || !(c & bit_SSE4_1))
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 29) & 1;
}
#endif

/* -1: not decided yet; 0: portable; 1: the SHA extensions. Process-wide
 * on purpose (the CPU's, not a study's); atomic: threads hashing at once
 * each decide the same. */
static _Atomic int use_hw = -1;

int jl__sha256_hw(int on)
{
#ifdef JL__SHA_X86
    int now = on < 0 ? have_shani() : on && have_shani();
#else
    (void)on;
    int now = 0;
#endif
    return atomic_exchange_explicit(&use_hw, now, memory_order_relaxed);
}

static void blocks(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
#ifdef JL__SHA_X86
    int hw = atomic_load_explicit(&use_hw, memory_order_relaxed);
    if (hw < 0) {
        hw = have_shani();
        atomic_store_explicit(&use_hw, hw, memory_order_relaxed);
    }
    if (hw) {
        blocks_shani(h, p, nblocks);
        return;
    }
#endif
    blocks_portable(h, p, nblocks);
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

void jl__sha256_to_hex(const unsigned char d[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[64] = '\0';
}

jl_status jl__sha256_file(const char *path, char hex[65], unsigned long long *size, jl_error **err)
{
    char why[128];
    FILE *f = jl__fopen_input(path, why, sizeof why);
    if (!f)
        return jl_fail(err, errno == ENOENT ? JL_EMISSING : JL_EIO, path, NULL, NULL, -1, "%s",
                       why);
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
    jl__sha256_to_hex(d, hex);
    return JL_OK;
}
