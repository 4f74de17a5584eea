/* The quantiles of float samples: core's quickselect (core/stats.h, whose
 * definition of a quantile this keeps to the bit) behind a histogram step.
 *
 * Large float arrays (the ITL samples in memory, up to 2^20 a run) first go
 * through a histogram step on the float bits (quantiles_fit_f): one pass
 * counts the samples in buckets over the range of an order-preserving key,
 * which names the bucket that holds each order statistic wanted; a second
 * pass gathers the samples of those few buckets; quickselect then runs on
 * them only (typically well under 1 % of the samples), at ranks shifted by
 * the number of samples in lower buckets. The streamed samples
 * (jl__qstream) and jl__quantiles_f_hist count by the top 16 key bits
 * instead (quantiles_radix_f, radix_buckets). The order statistics are the same
 * values, so the results are the same to the bit (-0.0 and +0.0 are equal
 * to both, so which zero a zero order statistic keeps is not defined). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <xmmintrin.h>
#endif

#include "core/stats.h"
#include "summary/summary_internal.h"

/* ---- histogram select for float ----------------------------------------- */

#define RADIX_MIN_N JL__RADIX_MIN_N
#define RADIX_MAX_Q 8
#define RADIX_BITS 16
#define RADIX_BUCKETS JL__RADIX_BUCKETS
#define fkey jl__fkey

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The order statistics (0-based ranks) quantiles q[0..nq) of n samples
 * need, ascending, each once; returns how many (<= 2 nq). */
static size_t radix_ranks(size_t n, const double *q, size_t nq, size_t *rank)
{
    size_t nr = 0;
    for (size_t j = 0; j < nq; j++) {
        size_t lo;
        double g;
        int top;
        jl__quantile_pos(n, q[j], &lo, &g, &top);
        rank[nr++] = lo;
        if (!top)
            rank[nr++] = lo + 1;
    }
    qsort(rank, nr, sizeof *rank, cmp_size);
    size_t nu = 0;
    for (size_t i = 0; i < nr; i++)
        if (nu == 0 || rank[i] != rank[nu - 1])
            rank[nu++] = rank[i];
    return nu;
}

/* The bucket of each rank[0..nu) (ascending) in hist[0..nb), and how many
 * samples lie in lower buckets. */
static void buckets_of(const uint32_t *hist, size_t nb, const size_t *rank, size_t nu,
                       size_t *bucket, size_t *below)
{
    size_t cum = 0, r = 0;
    for (size_t b = 0; b < nb && r < nu; b++) {
        size_t c = hist[b];
        while (r < nu && rank[r] < cum + c) {
            bucket[r] = b;
            below[r] = cum;
            r++;
        }
        cum += c;
    }
}

static void radix_buckets(const uint32_t *hist, const size_t *rank, size_t nu, size_t *bucket,
                          size_t *below)
{
    buckets_of(hist, RADIX_BUCKETS, rank, nu, bucket, below);
}

/* The quantiles from the values val[i] of the order statistics rank[i],
 * with numpy's lerp (core/stats.h, as jl__quantiles_select_f computes them). */
static void radix_lerp(size_t n, const double *q, size_t nq, const size_t *rank, const float *val,
                       double *out)
{
    for (size_t j = 0; j < nq; j++) {
        size_t lo;
        double g;
        int top;
        jl__quantile_pos(n, q[j], &lo, &g, &top);
        size_t ia = 0;
        while (rank[ia] != lo)
            ia++;
        out[j] = top ? (double)val[ia] : jl__quantile_lerp((double)val[ia], (double)val[ia + 1], g);
    }
}

/* The order statistics local[0..nu) (ascending) of x[0..m) into val, by
 * ascending selects as jl__quantiles_select_f does (a rank right after the last
 * one: the least of what lies above it). */
static void select_ranks_f(float *x, size_t m, const size_t *local, size_t nu, float *val)
{
    ptrdiff_t from = 0, last = (ptrdiff_t)m - 1;
    for (size_t i = 0; i < nu; i++) {
        ptrdiff_t k = (ptrdiff_t)local[i];
        if (i > 0 && local[i] == local[i - 1] + 1) {
            ptrdiff_t mi = k;
            for (ptrdiff_t t = k + 1; t <= last; t++)
                if (x[t] < x[mi])
                    mi = t;
            float tmin = x[mi];
            x[mi] = x[k];
            x[k] = tmin;
        } else {
            jl__select_f(x, from, last, k);
        }
        from = k + 1;
        val[i] = x[k];
    }
}

/* 0 when it cannot help (then the caller uses quickselect alone). hist:
 * the caller's counts of x by top 16 key bits, or NULL; freed here. */
static int quantiles_radix_f(float *x, size_t n, uint32_t *hist, const double *q, size_t nq,
                             double *out)
{
    if (n < RADIX_MIN_N || nq > RADIX_MAX_Q || n > UINT32_MAX) {
        free(hist);
        return 0;
    }
    /* the order statistics each quantile needs */
    size_t rank[2 * RADIX_MAX_Q];
    size_t nu = radix_ranks(n, q, nq, rank);
    if (!hist) {
        if (!(hist = calloc(RADIX_BUCKETS, sizeof *hist)))
            return 0;
        for (size_t i = 0; i < n; i++)
            hist[fkey(x[i]) >> (32 - RADIX_BITS)]++;
    }
    /* bucket of each rank, and how many samples lie in lower buckets */
    size_t bucket[2 * RADIX_MAX_Q], below[2 * RADIX_MAX_Q];
    radix_buckets(hist, rank, nu, bucket, below);
    /* samples of the wanted buckets, in bucket order, go to the front */
    size_t nb = 0, bsize[2 * RADIX_MAX_Q], bval[2 * RADIX_MAX_Q];
    for (size_t i = 0; i < nu; i++)
        if (nb == 0 || bucket[i] != bval[nb - 1]) {
            bval[nb] = bucket[i];
            bsize[nb] = hist[bucket[i]];
            nb++;
        }
    unsigned char *want = (unsigned char *)hist; /* reused as a flag table */
    memset(want, 0, RADIX_BUCKETS);
    for (size_t i = 0; i < nb; i++)
        want[bval[i]] = 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        if (want[fkey(v) >> (32 - RADIX_BITS)]) {
            x[i] = x[m];
            x[m++] = v;
        }
    }
    free(hist);
    /* rank within x[0..m): every sample of a lower wanted bucket is smaller,
     * so the rank shifts by the samples of lower buckets left behind */
    size_t local[2 * RADIX_MAX_Q];
    for (size_t i = 0, k = 0, front = 0; i < nu; i++) {
        while (bval[k] != bucket[i])
            front += bsize[k++];
        local[i] = rank[i] - below[i] + front;
    }
    float val[2 * RADIX_MAX_Q];
    select_ranks_f(x, m, local, nu, val);
    radix_lerp(n, q, nq, rank, val, out);
    return 1;
}

/* ---- histogram select over the samples' own range (jl__quantiles_f) ------ */

/* The samples in memory (every run whose itl/ is not streamed) are counted
 * in FIT_BUCKETS buckets of equal width over their own key range
 * [kmin, kmax] instead of by the top 16 key bits: 16 KiB of counts on the
 * stack, in L1, where the fixed buckets cost a 256 KiB calloc, counts that
 * miss the cache and a scan of up to 65,536 buckets per run. Keys are
 * logarithmic in the value, so ITL samples spread over a few octaves get
 * ~1,000 buckets per octave (the fixed ones: 128), and the wanted buckets
 * hold fewer samples. Those are gathered into a scratch array without a
 * branch per sample (the input is left as it was) and selected there. */
#define FIT_BITS 12
#define FIT_BUCKETS (1u << FIT_BITS)

/* The order-preserving key of v: its bits when every sample is > 0 (pos,
 * the usual latencies: two operations fewer per sample), else jl__fkey. */
static inline uint32_t fit_key(float v, int pos)
{
    if (!pos)
        return fkey(v);
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* hist[(key - kmin) >> shift] counts of x, then the wanted buckets'
 * samples appended to g[m...] (room for one more) without a branch; two
 * copies of each loop (pos known) so the key costs nothing it need not,
 * unrolled four times so the loop's own cost is a quarter. */
#define FIT_BUCKET(v, pos) ((fit_key(v, pos) - kmin) >> shift)
#define FIT_COUNT(pos)                          \
    {                                           \
        size_t i_ = 0;                          \
        for (; i_ + 4 <= n; i_ += 4) {          \
            hist[FIT_BUCKET(x[i_], pos)]++;     \
            hist[FIT_BUCKET(x[i_ + 1], pos)]++; \
            hist[FIT_BUCKET(x[i_ + 2], pos)]++; \
            hist[FIT_BUCKET(x[i_ + 3], pos)]++; \
        }                                       \
        for (; i_ < n; i_++)                    \
            hist[FIT_BUCKET(x[i_], pos)]++;     \
    }
#define FIT_GATHER_ONE(k, pos)          \
    {                                   \
        float v_ = x[k];                \
        g[m] = v_;                      \
        m += want[FIT_BUCKET(v_, pos)]; \
    }
#define FIT_GATHER(pos)                 \
    {                                   \
        size_t i_ = 0;                  \
        for (; i_ + 4 <= n; i_ += 4) {  \
            FIT_GATHER_ONE(i_, pos)     \
            FIT_GATHER_ONE(i_ + 1, pos) \
            FIT_GATHER_ONE(i_ + 2, pos) \
            FIT_GATHER_ONE(i_ + 3, pos) \
        }                               \
        for (; i_ < n; i_++)            \
            FIT_GATHER_ONE(i_, pos)     \
    }

/* Below this quickselect alone is as fast (the fixed cost: 20 KiB of
 * counts and flags zeroed, up to 4,096 buckets scanned). */
#define FIT_MIN_N 8192

int jl__quantiles_fit_f(const float *x, size_t n, const double *q, size_t nq, double *out)
{
    if (n < FIT_MIN_N || nq > RADIX_MAX_Q || n > UINT32_MAX)
        return 0;
    /* the range, in four lanes (no NaN: min/max are exact) */
    float lo[4] = {x[0], x[0], x[0], x[0]}, hi[4] = {x[0], x[0], x[0], x[0]};
    size_t i = 0;
#ifdef __SSE2__
    __m128 vlo = _mm_set1_ps(x[0]), vhi = vlo;
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_loadu_ps(x + i);
        vlo = _mm_min_ps(vlo, v);
        vhi = _mm_max_ps(vhi, v);
    }
    _mm_storeu_ps(lo, vlo);
    _mm_storeu_ps(hi, vhi);
#else
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) {
            lo[l] = x[i + l] < lo[l] ? x[i + l] : lo[l];
            hi[l] = x[i + l] > hi[l] ? x[i + l] : hi[l];
        }
#endif
    for (; i < n; i++) {
        lo[0] = x[i] < lo[0] ? x[i] : lo[0];
        hi[0] = x[i] > hi[0] ? x[i] : hi[0];
    }
    for (int l = 1; l < 4; l++) {
        lo[0] = lo[l] < lo[0] ? lo[l] : lo[0];
        hi[0] = hi[l] > hi[0] ? hi[l] : hi[0];
    }
    const int pos = lo[0] > 0.0f;
    const uint32_t kmin = fit_key(lo[0], pos), span = fit_key(hi[0], pos) - kmin;
    unsigned shift = 0;
    while ((span >> shift) >= FIT_BUCKETS)
        shift++;
    uint32_t hist[FIT_BUCKETS];
    memset(hist, 0, sizeof hist);
    if (pos) {
        FIT_COUNT(1)
    } else {
        FIT_COUNT(0)
    }
    size_t rank[2 * RADIX_MAX_Q];
    size_t nu = radix_ranks(n, q, nq, rank);
    /* bucket of each rank, and how many samples lie in lower buckets */
    size_t bucket[2 * RADIX_MAX_Q], below[2 * RADIX_MAX_Q];
    buckets_of(hist, FIT_BUCKETS, rank, nu, bucket, below);
    size_t r;
    /* the wanted buckets' samples, gathered (lower buckets first in rank) */
    unsigned char want[FIT_BUCKETS];
    memset(want, 0, sizeof want);
    size_t total = 0;
    for (r = 0; r < nu; r++)
        if (!want[bucket[r]]) {
            want[bucket[r]] = 1;
            total += hist[bucket[r]];
        }
    float *g = malloc((total + 1) * sizeof *g);
    if (!g)
        return 0;
    size_t m = 0;
    if (pos) {
        FIT_GATHER(1)
    } else {
        FIT_GATHER(0)
    }
    /* rank within g: every sample of a lower wanted bucket is smaller, so
     * the rank shifts by the samples of lower buckets not gathered */
    size_t local[2 * RADIX_MAX_Q];
    for (r = 0; r < nu; r++) {
        size_t front = 0; /* gathered samples in wanted buckets below */
        for (size_t b = 0; b < r; b++)
            if (bucket[b] != bucket[r] && (b == 0 || bucket[b] != bucket[b - 1]))
                front += hist[bucket[b]];
        local[r] = rank[r] - below[r] + front;
    }
    float val[2 * RADIX_MAX_Q];
    select_ranks_f(g, m, local, nu, val);
    free(g);
    radix_lerp(n, q, nq, rank, val, out);
    return 1;
}

/* ---- two passes, nothing kept (jl__qstream) ------------------------------ */

_Static_assert(JL__QSTREAM_MAX_Q == RADIX_MAX_Q, "one bound on the quantiles");

jl_status jl__qstream_init(jl__qstream *s)
{
    memset(s, 0, sizeof *s);
    s->cap = RADIX_MIN_N;
    s->gather_max = JL__QSTREAM_KEEP_MAX;
    if (!(s->first = malloc(RADIX_MIN_N * sizeof *s->first))) {
        jl__qstream_free(s);
        return JL_ENOMEM;
    }
    return JL_OK;
}

/* The float whose key is k (the inverse of jl__fkey; a zero comes back
 * +0.0). */
static float fkey_value(uint32_t k)
{
    uint32_t u = k & 0x80000000u ? k ^ 0x80000000u : ~k;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void spec_stop(jl__qstream *s)
{
    free(s->spec_on);
    free(s->spec);
    s->spec_on = NULL;
    s->spec = NULL;
    s->spec_n = 0;
    s->want_nq = 0;
}

void jl__qstream_free(jl__qstream *s)
{
    free(s->first);
    free(s->hist);
    free(s->slot);
    free(s->low);
    free(s->gat);
    spec_stop(s);
    memset(s, 0, sizeof *s);
}

jl_status jl__qstream_reserve(jl__qstream *s, size_t n)
{
    if (s->n == 0)
        s->expect = n;
    if (n <= s->cap || n > JL__QSTREAM_KEEP_MAX || s->n > 0)
        return JL_OK;
    float *f = realloc(s->first, n * sizeof *f);
    if (!f)
        return JL_ENOMEM;
    s->first = f;
    s->cap = n;
    return JL_OK;
}

jl_status jl__qstream_want(jl__qstream *s, const double *q, size_t nq)
{
    /* only for a count known beforehand that pass 1 will not keep whole */
    if (s->n > 0 || nq == 0 || nq > RADIX_MAX_Q || s->expect <= s->cap || s->expect > UINT32_MAX)
        return JL_OK;
    memcpy(s->want_q, q, nq * sizeof *q);
    s->want_nq = nq;
    return JL_OK;
}

/* Whether bucket b, holding ranks [cum, cum + c), has a rank within d of
 * one of rank[*r..nu) (ascending); *r moves past the ranks below. */
static int near_rank(const size_t *rank, size_t nu, size_t *r, size_t cum, size_t c, size_t d)
{
    while (*r < nu && rank[*r] + d < cum)
        ++*r;
    return c && *r < nu && rank[*r] < cum + c + d;
}

/* A round of pass 1's gathering, at s->n samples: the buckets holding the
 * ranks within d of each order statistic wanted (estimated from the counts
 * so far) are gathered from now on, and their kept samples at once; those
 * gathered so far that are now beyond 4 d of every one are dropped (the
 * estimates move while the samples come: a run's latencies drift). Pass 1
 * stops gathering when out of memory or past gather_max. */
static void spec_round(jl__qstream *s)
{
    if (!s->spec_on) {
        s->spec_on = calloc(RADIX_BUCKETS, 1);
        s->spec = malloc((s->gather_max ? s->gather_max : 1) * sizeof *s->spec);
        if (!s->spec_on || !s->spec) {
            spec_stop(s);
            return;
        }
    }
    if (s->spec_rounds >= 254) { /* 255 marks the buckets plan_from_spec adds */
        s->next_round = SIZE_MAX;
        return;
    }
    /* half a band, as a share of the samples: the bands of the whole run
     * (2 order statistics per quantile, with room) fit in gather_max */
    double share = (double)s->gather_max / (8.0 * (double)s->want_nq * (double)s->expect);
    if (share > 0.01)
        share = 0.01;
    size_t d = (size_t)(share * (double)s->n), rank[2 * RADIX_MAX_Q];
    size_t nu = radix_ranks(s->n, s->want_q, s->want_nq, rank);
    unsigned char mark = (unsigned char)(s->spec_rounds + 1);
    size_t added = 0, dropped = 0, cum = 0, r1 = 0, r4 = 0;
    for (size_t b = 0; b < RADIX_BUCKETS; b++) {
        size_t c = s->hist[b];
        if (!c && !s->spec_on[b]) /* most buckets: nothing to mark or drop */
            continue;
        int near = near_rank(rank, nu, &r1, cum, c, d);
        int kept = near_rank(rank, nu, &r4, cum, c, 4 * d);
        if (near && !s->spec_on[b]) {
            s->spec_on[b] = mark;
            added++;
        } else if (!kept && s->spec_on[b]) {
            s->spec_on[b] = 0;
            dropped++;
        }
        cum += c;
    }
    s->spec_since[s->spec_rounds++] = s->n;
    s->next_round = s->n > SIZE_MAX / 2 ? SIZE_MAX : 2 * s->n;
    if (dropped) {
        size_t k = 0;
        for (size_t i = 0; i < s->spec_n; i++) {
            float v = s->spec[i];
            s->spec[k] = v;
            k += s->spec_on[fkey(v) >> (32 - RADIX_BITS)] != 0;
        }
        s->spec_n = k;
    }
    if (!added)
        return;
    for (size_t i = 0; i < s->cap; i++) {
        float v = s->first[i];
        if (s->spec_on[fkey(v) >> (32 - RADIX_BITS)] == mark) {
            if (s->spec_n >= s->gather_max) {
                spec_stop(s);
                return;
            }
            s->spec[s->spec_n++] = v + 0.0f;
        }
    }
}

/* Pass 1 past the kept samples: counts, and gathers while want_nq. */
static void count_spec(jl__qstream *s, const float *v, size_t m)
{
    uint32_t *h = s->hist;
    if (!s->want_nq) {
        for (size_t i = 0; i < m; i++)
            h[fkey(v[i]) >> (32 - RADIX_BITS)]++;
        return;
    }
    const unsigned char *on = s->spec_on;
    float *out = s->spec;
    size_t k = s->spec_n;
    if (k + m <= s->gather_max) { /* room for the block: no branch per sample */
        enum { SUB = 256 };
        uint32_t key[SUB];
        for (size_t a = 0; a < m; a += SUB) {
            size_t e = m - a < SUB ? m - a : SUB;
            for (size_t i = 0; i < e; i++) /* vectorised */
                key[i] = fkey(v[a + i]);
            for (size_t i = 0; i < e; i++) {
                uint32_t b = key[i] >> (32 - RADIX_BITS);
                h[b]++;
                out[k] = v[a + i] + 0.0f;
                k += on[b] != 0;
            }
        }
        s->spec_n = k;
        return;
    }
    for (size_t i = 0; i < m; i++) {
        uint32_t b = fkey(v[i]) >> (32 - RADIX_BITS);
        h[b]++;
        if (s->want_nq && on[b]) {
            if (s->spec_n >= s->gather_max)
                spec_stop(s);
            else
                s->spec[s->spec_n++] = v[i] + 0.0f;
        }
    }
}

jl_status jl__qstream_add_n(jl__qstream *s, const float *v, size_t m)
{
    if (s->n < s->cap) { /* kept */
        size_t k = s->cap - s->n < m ? s->cap - s->n : m;
        memcpy(s->first + s->n, v, k * sizeof *v);
        s->n += k;
        v += k;
        m -= k;
        if (m == 0)
            return JL_OK;
    }
    if (!s->hist) { /* the first sample not kept */
        if (!(s->hist = calloc(RADIX_BUCKETS, sizeof *s->hist)))
            return JL_ENOMEM;
        for (size_t i = 0; i < s->n; i++)
            s->hist[fkey(s->first[i]) >> (32 - RADIX_BITS)]++;
        if (s->want_nq)
            spec_round(s);
    }
    count_spec(s, v, m);
    s->n += m;
    if (s->want_nq && s->n >= s->next_round)
        spec_round(s);
    return JL_OK;
}

void jl__qstream_add_sel(jl__qstream *s, const float *v, const uint32_t *idx,
                         const unsigned char *keep, size_t m)
{
    uint32_t *h = s->hist;
    const unsigned char *on = s->spec_on;
    enum { SUB = 256 };
    uint32_t key[SUB];
    for (size_t a = 0; a < m; a += SUB) {
        size_t e = m - a < SUB ? m - a : SUB, got = 0;
        if (s->want_nq && s->spec_n + e > s->gather_max) { /* no room: sample by sample */
            for (size_t i = a; i < a + e; i++)
                if (keep[idx[i]])
                    count_spec(s, v + i, 1);
            for (size_t i = a; i < a + e; i++)
                got += keep[idx[i]];
            s->n += got;
            on = s->spec_on;
            continue;
        }
        for (size_t i = 0; i < e; i++) /* vectorised */
            key[i] = fkey(v[a + i]);
        if (s->want_nq) {
            float *out = s->spec;
            size_t k = s->spec_n;
            for (size_t i = 0; i < e; i++) {
                uint32_t b = key[i] >> (32 - RADIX_BITS);
                unsigned d = keep[idx[a + i]];
                h[b] += d;
                got += d;
                out[k] = v[a + i] + 0.0f;
                k += d & (on[b] != 0);
            }
            s->spec_n = k;
        } else {
            for (size_t i = 0; i < e; i++) {
                unsigned d = keep[idx[a + i]];
                h[key[i] >> (32 - RADIX_BITS)] += d;
                got += d;
            }
        }
        s->n += got;
    }
    if (s->want_nq && s->n >= s->next_round)
        spec_round(s);
}

/* With pass 1's gathering: the wanted buckets' samples gathered so far into
 * s->gat, and what pass 2 must add (p2_lim). 1: pass 2 needed; 0: not;
 * -1: out of memory. */
static int plan_from_spec(jl__qstream *s, size_t nb)
{
    size_t lim_max = s->cap;
    for (size_t k = 0; k < nb; k++)
        s->p2_lim[k] = s->cap;
    for (size_t i = 0; i < s->nu; i++) {
        size_t b = s->bucket[i], k = (size_t)s->slot[b] - 1;
        if (s->spec_on[b] == 255) /* the bucket of the rank before */
            continue;
        if (s->spec_on[b]) {
            s->p2_lim[k] = s->spec_since[s->spec_on[b] - 1];
        } else { /* never gathered: its kept samples now, the rest in pass 2 */
            s->p2_lim[k] = s->n;
            s->spec_on[b] = 255; /* taken from first below */
        }
        if (s->p2_lim[k] > lim_max)
            lim_max = s->p2_lim[k];
    }
    float *g = s->gat;
    size_t *at = s->gat_at;
    const size_t *end = s->gat_end;
    for (size_t i = 0; i < s->spec_n; i++) {
        float v = s->spec[i];
        unsigned sl = s->slot[fkey(v) >> (32 - RADIX_BITS)];
        if (sl && at[sl - 1] < end[sl - 1])
            g[at[sl - 1]++] = v;
    }
    for (size_t i = 0; i < s->cap; i++) {
        uint32_t k = fkey(s->first[i]);
        unsigned sl = s->slot[k >> RADIX_BITS];
        if (sl && s->spec_on[k >> RADIX_BITS] == 255 && at[sl - 1] < end[sl - 1])
            g[at[sl - 1]++] = fkey_value(k);
    }
    spec_stop(s);
    s->p2_from = s->cap;
    s->p2_end = lim_max;
    return lim_max > s->cap;
}

int jl__qstream_plan(jl__qstream *s, const double *q, size_t nq)
{
    if (s->n <= s->cap || nq > RADIX_MAX_Q) {
        spec_stop(s);
        return 0;
    }
    s->nu = radix_ranks(s->n, q, nq, s->rank);
    radix_buckets(s->hist, s->rank, s->nu, s->bucket, s->below);
    size_t nb = 0, total = 0;
    if (!(s->slot = calloc(RADIX_BUCKETS, 1)))
        return -1;
    for (size_t i = 0; i < s->nu; i++)
        if (!s->slot[s->bucket[i]]) {
            s->gat_at[nb] = total;
            total += s->hist[s->bucket[i]];
            s->gat_end[nb] = total;
            s->slot[s->bucket[i]] = (unsigned char)++nb;
        }
    /* pass 1's gathering counts only for the same quantiles */
    int same = s->want_nq == nq && !memcmp(s->want_q, q, nq * sizeof *q);
    s->p2_from = 0;
    s->p2_end = SIZE_MAX;
    for (size_t k = 0; k < nb; k++)
        s->p2_lim[k] = SIZE_MAX;
    if (total <= s->gather_max) {
        if (!(s->gat = malloc((total ? total : 1) * sizeof *s->gat)))
            return -1;
        if (same)
            return plan_from_spec(s, nb);
        spec_stop(s);
        return 1;
    }
    spec_stop(s);
    if (!(s->low = calloc(nb << RADIX_BITS, sizeof *s->low)))
        return -1;
    return 1;
}

void jl__qstream_add2_n(jl__qstream *s, const float *v, size_t m)
{
    const unsigned char *slot = s->slot;
    if (s->gat) {
        size_t base = s->n2;
        s->n2 += m;
        if (base >= s->p2_end)
            return;
        /* samples [i0, i1) of v are in [p2_from, p2_end) */
        size_t i0 = base < s->p2_from ? (s->p2_from - base < m ? s->p2_from - base : m) : 0;
        size_t i1 = s->p2_end - base < m ? s->p2_end - base : m;
        float *g = s->gat;
        size_t *at = s->gat_at;
        const size_t *end = s->gat_end, *lim = s->p2_lim;
        for (size_t i = i0; i < i1; i++) {
            uint32_t k = fkey(v[i]);
            unsigned sl = slot[k >> RADIX_BITS];
            /* each bucket's room is its pass-1 count */
            if (sl && base + i < lim[sl - 1] && at[sl - 1] < end[sl - 1])
                g[at[sl - 1]++] = fkey_value(k);
        }
        return;
    }
    for (size_t i = 0; i < m; i++) {
        uint32_t k = fkey(v[i]);
        unsigned sl = slot[k >> RADIX_BITS];
        if (sl)
            s->low[((size_t)(sl - 1) << RADIX_BITS) | (k & 0xffffu)]++;
    }
}

int jl__qstream_pass2_done(const jl__qstream *s)
{
    return s->gat && s->n2 >= s->p2_end;
}

void jl__qstream_result(jl__qstream *s, const double *q, size_t nq, double *out)
{
    if (!s->low && !s->gat) { /* every sample kept: selected as jl__quantiles_f does */
        if (s->n > s->cap || (s->n >= RADIX_MIN_N && nq > RADIX_MAX_Q)) {
            /* cannot happen with a plan; stay defined */
            for (size_t j = 0; j < nq; j++)
                out[j] = NAN;
            return;
        }
        jl__quantiles_f(s->first, s->n, q, nq, out);
        if (s->n >= RADIX_MIN_N) /* a zero is +0.0, as the keys give it */
            for (size_t j = 0; j < nq; j++)
                out[j] += 0.0;
        return;
    }
    /* each order statistic: selected within its bucket's gathered samples,
     * or its key from the bucket's top bits and the low bits where the rank
     * within the bucket falls in the bucket's low counts */
    float val[2 * RADIX_MAX_Q];
    for (size_t i = 0; i < s->nu; i++) {
        size_t sl = (size_t)s->slot[s->bucket[i]] - 1, r = s->rank[i] - s->below[i];
        if (s->gat) { /* the bucket's samples: [end - its count, filled) */
            size_t from = s->gat_end[sl] - s->hist[s->bucket[i]], filled = s->gat_at[sl];
            if (from + r >= filled) { /* pass 2 saw fewer samples than pass 1 */
                val[i] = NAN;
                continue;
            }
            jl__select_f(s->gat, (ptrdiff_t)from, (ptrdiff_t)filled - 1, (ptrdiff_t)(from + r));
            val[i] = s->gat[from + r];
            continue;
        }
        const uint32_t *low = s->low + (sl << RADIX_BITS);
        size_t cum = 0, b = 0;
        while (b + 1 < RADIX_BUCKETS && cum + low[b] <= r)
            cum += low[b++];
        val[i] = fkey_value((uint32_t)(s->bucket[i] << RADIX_BITS) | (uint32_t)b);
    }
    radix_lerp(s->n, q, nq, s->rank, val, out);
}

void jl__quantiles_f(float *x, size_t n, const double *q, size_t nq, double *out)
{
    if (!jl__quantiles_fit_f(x, n, q, nq, out))
        jl__quantiles_select_f(x, n, q, nq, out);
}

void jl__quantiles_f_hist(float *x, size_t n, uint32_t *hist, const double *q, size_t nq,
                          double *out)
{
    if (!quantiles_radix_f(x, n, hist, q, nq, out))
        jl__quantiles_select_f(x, n, q, nq, out);
}
