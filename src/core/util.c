/* Internal helpers: see util.h. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include "core/util.h"
#include "joules/error.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

char *jl__strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *jl__vasprintf(const char *fmt, va_list ap)
{
    /* one formatting pass for the usual short text, two for a long one */
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    if ((size_t)n < sizeof small)
        memcpy(s, small, (size_t)n + 1);
    else
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

int jl__strcmp_null_first(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

int jl__strcmp_null_last(const char *a, const char *b)
{
    if (!a || !b)
        return (a == NULL) - (b == NULL);
    return strcmp(a, b);
}

int jl__str_eq(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

int jl__str_eq_or_null(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

char *jl__asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = jl__vasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void jl__strbuf_init(jl__strbuf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

void jl__strbuf_append(jl__strbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                b->failed = 1;
                return;
            }
            cap *= 2;
        }
        char *d = realloc(b->data, cap);
        if (!d) {
            b->failed = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void jl__strbuf_puts(jl__strbuf *b, const char *s)
{
    jl__strbuf_append(b, s, strlen(s));
}

void jl__strbuf_printf(jl__strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!s) {
        b->failed = 1;
        return;
    }
    jl__strbuf_puts(b, s);
    free(s);
}

char *jl__strbuf_take(jl__strbuf *b)
{
    char *s = NULL;
    if (!b->failed)
        s = b->data ? b->data : jl__strdup("");
    else
        free(b->data);
    jl__strbuf_init(b);
    return s;
}

void jl__strbuf_free(jl__strbuf *b)
{
    free(b->data);
    jl__strbuf_init(b);
}

int jl__mul_size(size_t a, size_t b, size_t *out)
{
    if (a && b > SIZE_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

void *jl__calloc_array(size_t n, size_t sz)
{
    size_t total;
    if (!jl__mul_size(n, sz, &total))
        return NULL;
    return calloc(n ? n : 1, sz ? sz : 1);
}

/* Arrays of at least this many bytes are laid on huge pages where the
 * kernel offers them on request (Linux, transparent_hugepage "madvise" or
 * "always"): a long run's columns and its block of energy tracks are
 * written once, front to back, and take one fault per 2 MiB instead of one
 * per 4 KiB (docs/performance.md, "Session 11, second part": a long run's
 * faults 9.7k -> 5.1k). Advice on these blocks only: nothing of the
 * process's allocator changes, and the block is an ordinary one (free,
 * realloc). */
#define JL__HUGE (2u << 20)
#define JL__HUGE_MIN (4u << 20)

void *jl__malloc_array(size_t n, size_t sz)
{
    size_t total;
    if (!jl__mul_size(n, sz, &total))
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (total >= JL__HUGE_MIN) {
        void *p = NULL;
        if (posix_memalign(&p, JL__HUGE, total) != 0)
            return NULL;
        /* the whole huge pages inside the block (p is aligned): a partial
         * last one stays small, so no more is resident than is written */
        (void)madvise(p, total & ~(size_t)(JL__HUGE - 1), MADV_HUGEPAGE);
        return p;
    }
#endif
    return malloc(total ? total : 1);
}

double jl__nan(void)
{
    return NAN;
}

/* First index i with v[i] >= x in a non-decreasing v (n when none). */
size_t jl__first_ge(const double *v, size_t n, double x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t jl__utf8_next(const unsigned char *s, size_t n)
{
    if (n == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if ((s[k] & 0xC0) != 0x80)
            return 0;
    return len;
}

char *jl__utf8_fix(const char *s, int *oom)
{
    *oom = 0;
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, bad = 0;
    while (i < n) {
        /* ASCII eight bytes at a time: most text is */
        uint64_t x;
        while (i + 8 <= n && (memcpy(&x, u + i, 8), !(x & 0x8080808080808080ull)))
            i += 8;
        while (i < n && u[i] < 0x80)
            i++;
        if (i == n)
            break;
        size_t k = jl__utf8_next(u + i, n - i);
        bad += !k;
        i += k ? k : 1;
    }
    if (!bad)
        return NULL;
    char *out = malloc(n + 2 * bad + 1); /* each bad byte becomes 3 */
    if (!out) {
        *oom = 1;
        return NULL;
    }
    size_t o = 0;
    for (i = 0; i < n;) {
        size_t k = jl__utf8_next(u + i, n - i);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

size_t jl__edit_distance(const char *a, const char *b, size_t limit)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63)
        return limit + 1;
    if ((na > nb ? na - nb : nb - na) > limit)
        return limit + 1;
    /* optimal string alignment: rows i-2, i-1 and i */
    size_t r0[64], r1[64], r2[64];
    size_t *pp = r0, *prev = r1, *row = r2;
    for (size_t j = 0; j <= nb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t best = row[0] = i;
        int ai = tolower((unsigned char)a[i - 1]);
        for (size_t j = 1; j <= nb; j++) {
            int bj = tolower((unsigned char)b[j - 1]);
            size_t v = prev[j - 1] + (ai != bj);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            /* two neighbours swapped count as one edit ("cpa" for "cap") */
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            row[j] = v;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
        size_t *t = pp;
        pp = prev;
        prev = row;
        row = t;
    }
    return prev[nb] > limit ? limit + 1 : prev[nb];
}

int jl__grow2(void **a, size_t a_size, void **b, size_t b_size, size_t n, size_t *cap, size_t first)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : first;
    void *na = realloc(*a, nc * a_size);
    if (!na)
        return -1;
    *a = na;
    void *nb = realloc(*b, nc * b_size);
    if (!nb)
        return -1;
    *b = nb;
    *cap = nc;
    return 0;
}

int jl_suggest_name(const char *name, const char *const *cands, size_t n, char *buf, size_t cap)
{
    if (!buf || !cap)
        return 0;
    buf[0] = '\0';
    if (!name)
        return 0;
    size_t len = strlen(name), limit = len < 3 ? 0 : len < 6 ? 1 : 2;
    size_t best = limit + 1;
    for (size_t i = 0; i < n && best; i++) {
        if (!cands[i] || !strcmp(cands[i], name))
            continue;
        size_t d = jl__edit_distance(name, cands[i], best - 1);
        if (d < best && strlen(cands[i]) < cap) {
            best = d;
            strcpy(buf, cands[i]);
        }
    }
    return buf[0] != '\0';
}
