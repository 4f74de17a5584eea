/* Internal helpers shared by every subsystem: strings (copies, formatting,
 * NULL-safe comparison), growable string buffers, checked size arithmetic
 * and allocation, growing two parallel arrays, NaN, the binary search of
 * time series and the edit distance behind "did you mean" suggestions. Not
 * part of the public API. The rest of the floor: order statistics
 * (core/stats.h), hashing and string maps (core/hash.h), civil time and
 * zones (core/civil_time.h), the CSV reader (core/csv.h); precision names
 * (joules/descriptors.h). */
#ifndef JOULES_CORE_UTIL_H
#define JOULES_CORE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

char *jl__strdup(const char *s);
char *jl__asprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
char *jl__vasprintf(const char *fmt, va_list ap)
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
int jl__strcmp_null_first(const char *a, const char *b);
int jl__strcmp_null_last(const char *a, const char *b);
int jl__str_eq(const char *a, const char *b);
int jl__str_eq_or_null(const char *a, const char *b);

/* A growable string. On allocation failure it latches `failed` and further
 * appends are no-ops, so callers check once at the end (jl__strbuf_take
 * returns NULL). */
typedef struct jl__strbuf {
    char *data;
    size_t len, cap;
    int failed;
} jl__strbuf;

void jl__strbuf_init(jl__strbuf *b);
void jl__strbuf_append(jl__strbuf *b, const char *s, size_t n);
void jl__strbuf_puts(jl__strbuf *b, const char *s);
void jl__strbuf_printf(jl__strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Returns the string (caller frees) and resets b; NULL if any append failed. */
char *jl__strbuf_take(jl__strbuf *b);
void jl__strbuf_free(jl__strbuf *b);

/* Overflow-checked size arithmetic: return 0 on overflow. */
int jl__mul_size(size_t a, size_t b, size_t *out);

/* Allocate n elements of size sz, checking the multiplication; NULL on
 * overflow or exhaustion. */
void *jl__calloc_array(size_t n, size_t sz);
void *jl__malloc_array(size_t n, size_t sz);

/* NaN constant without relying on <math.h> macros in every file. */
double jl__nan(void);

/* First index i with v[i] >= x in a non-decreasing v of n values (n when
 * none): the one binary search of time series (summary, importers). */
size_t jl__first_ge(const double *v, size_t n, double x);

/* UTF-8 (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF).
 * jl__utf8_next: the length of the well-formed sequence at s[0..n) (1-4),
 * or 0 when s[0] starts none. jl__utf8_fix: a copy of s with each byte
 * that starts no well-formed sequence replaced by U+FFFD (caller frees), or
 * NULL when s is well-formed already (*oom set when a copy was needed and
 * could not be made). Text from files is checked where it enters (the
 * trace reader) and where it leaves (the JSON writer), so a document
 * joules writes is always valid JSON. */
size_t jl__utf8_next(const unsigned char *s, size_t n);
char *jl__utf8_fix(const char *s, int *oom);

/* Edit distance (insertions, deletions, substitutions; ASCII case folded)
 * between a and b, or limit + 1 once it exceeds limit: for "did you mean"
 * suggestions. Strings longer than 63 bytes count as too far. */
size_t jl__edit_distance(const char *a, const char *b, size_t limit);

/* Two parallel arrays (*a of elements of a_size bytes, *b of b_size) that
 * hold n elements in *cap: grown to hold one more when full (capacity
 * doubled, `first` when 0), `jl__grow2((void **)&x, sizeof *x, (void **)&y,
 * sizeof *y, n, &cap, 16)`. Returns 0, or -1 out of memory (the arrays
 * still valid and owned by the caller). */
int jl__grow2(void **a, size_t a_size, void **b, size_t b_size, size_t n, size_t *cap,
              size_t first);

/* Files a user named, opened for reading (src/core/files.c): a path that is
 * not a regular file (a FIFO, a device, a socket, a folder) is refused
 * before it is opened (stat), the open never blocks (O_NONBLOCK, cleared
 * once the descriptor is checked) and fstat() refuses what was swapped in
 * meanwhile, so reading a file joules is given never waits on a FIFO or
 * reads a device. jl__open_input returns the descriptor, or -1 with the
 * reason in why ("not a regular file (a FIFO)", "cannot open: ...") and
 * errno kept (ENOENT: missing; EINVAL: not a regular file);
 * jl__fopen_input the same as a FILE ("rb"). jl__file_kind: "a FIFO",
 * "a folder", ... for an st_mode. */
int jl__open_input(const char *path, char *why, size_t why_cap);
FILE *jl__fopen_input(const char *path, char *why, size_t why_cap);
const char *jl__file_kind(unsigned mode);
/* rename(from, to) unless `to` exists, the check and the move one step
 * (renameat2 RENAME_NOREPLACE; link() and unlink() where a file system
 * lacks it; apart only where it has neither): two writers that both found
 * `to` absent cannot both put their file there. 0, or -1 with errno
 * (EEXIST: `to` exists). */
int jl__rename_noreplace(const char *from, const char *to);

#endif
