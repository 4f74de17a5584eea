/* Internal helpers shared by every subsystem: strings (copies, formatting,
 * NULL-safe comparison), growable string buffers, checked size arithmetic
 * and allocation, growing two parallel arrays, NaN, a qsort comparator for
 * doubles, the binary search of time series and the edit distance behind
 * "did you mean" suggestions. Not part of the public
 * API. Elsewhere: the median and k-th smallest (summary/summary_internal.h:
 * jl__median_d, jl__kth_d); precision names (joules/descriptors.h). */
#ifndef JOULES_CORE_UTIL_H
#define JOULES_CORE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

char *jl_strdup(const char *s);
char *jl_asprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
char *jl_vasprintf(const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 0)))
#endif
    ;

/* NULL-safe string comparison, in the variants the code needs (they treat
 * NULL differently, so which one a caller uses is part of its meaning):
 * strcmp with NULL (a missing value) sorting before every string, or after
 * every string (two NULLs compare equal in both); equality where NULL
 * equals nothing, not even NULL (a missing key matches no key), or where
 * two NULLs are equal. */
int jl_strcmp_null_first(const char *a, const char *b);
int jl_strcmp_null_last(const char *a, const char *b);
int jl_str_eq(const char *a, const char *b);
int jl_str_eq_or_null(const char *a, const char *b);

/* A growable string. On allocation failure it latches `failed` and further
 * appends are no-ops, so callers check once at the end (jl_strbuf_take
 * returns NULL). */
typedef struct jl_strbuf {
    char *data;
    size_t len, cap;
    int failed;
} jl_strbuf;

void jl_strbuf_init(jl_strbuf *b);
void jl_strbuf_append(jl_strbuf *b, const char *s, size_t n);
void jl_strbuf_puts(jl_strbuf *b, const char *s);
void jl_strbuf_printf(jl_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Returns the string (caller frees) and resets b; NULL if any append failed. */
char *jl_strbuf_take(jl_strbuf *b);
void jl_strbuf_free(jl_strbuf *b);

/* Overflow-checked size arithmetic: return 0 on overflow. */
int jl_mul_size(size_t a, size_t b, size_t *out);

/* Allocate n elements of size sz, checking the multiplication; NULL on
 * overflow or exhaustion. */
void *jl_calloc_array(size_t n, size_t sz);
void *jl_malloc_array(size_t n, size_t sz);

/* NaN constant without relying on <math.h> macros in every file. */
double jl_nan(void);

/* qsort comparator for doubles (NaN last). */
int jl_cmp_double(const void *a, const void *b);

/* First index i with v[i] >= x in a non-decreasing v of n values (n when
 * none): the one binary search of time series (summary, importers). */
size_t jl__first_ge(const double *v, size_t n, double x);

/* Edit distance (insertions, deletions, substitutions; ASCII case folded)
 * between a and b, or limit + 1 once it exceeds limit: for "did you mean"
 * suggestions. Strings longer than 63 bytes count as too far. */
size_t jl__edit_distance(const char *a, const char *b, size_t limit);

/* Two parallel arrays (*a of elements of a_size bytes, *b of b_size) that
 * hold n elements in *cap: grown to hold one more when full (capacity
 * doubled, `first` when 0), `jl_grow2((void **)&x, sizeof *x, (void **)&y,
 * sizeof *y, n, &cap, 16)`. Returns 0, or -1 out of memory (the arrays
 * still valid and owned by the caller). */
int jl_grow2(void **a, size_t a_size, void **b, size_t b_size, size_t n, size_t *cap, size_t first);

#endif
