/* The streaming JSON pull parser (json/json_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "json/json_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static jl__jstream_tok fail(js *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static jl__jstream_tok fail(js *p, const char *fmt, ...)
{
    if (!p->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, sizeof p->err, fmt, ap);
        va_end(ap);
    }
    return JS_ERROR;
}

void jl__jstream_init_file(js *p, FILE *f, size_t chunk, size_t max_str)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->cap = chunk < 4096 ? 4096 : chunk;
    p->buf = malloc(p->cap);
    p->line = 1;
    p->max_str = max_str;
    p->need_value = 1;
    if (!p->buf)
        fail(p, "out of memory");
}

void jl__jstream_init_mem(js *p, const char *text, size_t len, size_t max_str)
{
    memset(p, 0, sizeof *p);
    p->buf = (char *)text;
    p->cap = p->len = len;
    p->line = 1;
    p->max_str = max_str;
    p->need_value = 1;
}

void jl__jstream_free(js *p)
{
    if (p->f)
        free(p->buf);
    free(p->str);
    p->buf = p->str = NULL;
}

long long jl__jstream_line(const js *p)
{
    return p->line;
}

long long jl__jstream_col(const js *p)
{
    return p->off + (long long)p->pos - p->col0 + 1;
}

const char *jl__jstream_tok_name(jl__jstream_tok t)
{
    static const char *const n[] = {"error",    "'{'",      "'}'",  "'['",   "']'",  "a key",
                                    "a string", "a number", "true", "false", "null", "end of file"};
    return t <= JS_EOF ? n[t] : "?";
}

/* Make at least `want` unread bytes available if the file has them.
 * Returns the number available (may be less at the end of the file). */
static size_t fill(js *p, size_t want)
{
    if (p->len - p->pos >= want || !p->f || p->err[0])
        return p->len - p->pos;
    if (p->pos > 0) {
        memmove(p->buf, p->buf + p->pos, p->len - p->pos);
        p->off += (long long)p->pos;
        p->len -= p->pos;
        p->pos = 0;
    }
    if (want > p->cap) {
        size_t ncap = p->cap;
        while (ncap < want)
            ncap *= 2;
        char *nb = realloc(p->buf, ncap);
        if (!nb) {
            fail(p, "out of memory");
            return p->len - p->pos;
        }
        p->buf = nb;
        p->cap = ncap;
    }
    while (p->len < p->cap) {
        size_t got = fread(p->buf + p->len, 1, p->cap - p->len, p->f);
        if (got == 0) {
            if (ferror(p->f)) {
                const char *why = p->read_why ? p->read_why(p->read_ctx) : NULL;
                fail(p, "read error: %s",
                     why     ? why
                     : errno ? strerror(errno)
                             : "the file could not be read");
            }
            break;
        }
        p->len += got;
        if (p->len - p->pos >= want)
            break;
    }
    return p->len - p->pos;
}

static int peek(js *p)
{
    if (p->pos >= p->len && fill(p, 1) == 0)
        return -1;
    return (unsigned char)p->buf[p->pos];
}

/* Whitespace: indentation eight bytes at a time (one word compared with
 * eight spaces) where the platform reads words. */
static void skip_ws_run(js *p)
{
    for (;;) {
        const char *b = p->buf;
        size_t i = p->pos, n = p->len;
        while (i < n) {
            char c = b[i];
            if (c == ' ') {
                i++;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                while (n - i >= 8) {
                    unsigned long long w;
                    memcpy(&w, b + i, 8);
                    w ^= 0x2020202020202020ULL;
                    if (w) {
                        i += (size_t)(__builtin_ctzll(w) >> 3);
                        break;
                    }
                    i += 8;
                }
#endif
                continue;
            }
            if (c == '\n') {
                p->line++;
                p->col0 = p->off + (long long)i + 1;
            } else if (c != '\t' && c != '\r') {
                p->pos = i;
                return;
            }
            i++;
        }
        p->pos = i;
        if (fill(p, 1) == 0)
            return;
    }
}

/* Most tokens follow another directly: no call for those. */
static inline void skip_ws(js *p)
{
    if (p->pos < p->len && (unsigned char)p->buf[p->pos] > ' ')
        return;
    skip_ws_run(p);
}

static int put_str(js *p, const char *s, size_t n)
{
    if (p->slen + n + 1 > p->scap) {
        size_t ncap = p->scap ? p->scap : 64;
        while (ncap < p->slen + n + 1)
            ncap *= 2;
        char *ns = realloc(p->str, ncap);
        if (!ns)
            return -1;
        p->str = ns;
        p->scap = ncap;
    }
    memcpy(p->str + p->slen, s, n);
    p->slen += n;
    p->str[p->slen] = '\0';
    return 0;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static int put_utf8(js *p, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return put_str(p, b, n);
}

/* Bytes that end a run of plain string characters: '"', '\\' and the
 * control characters JSON forbids inside strings. */
static int stop_byte(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/* Backslashes that end [s, e), counting `carry` from before s when all of
 * [s, e) are backslashes. */
static int trailing_bs(const char *s, const char *e, int carry)
{
    const char *q = e;
    while (q > s && q[-1] == '\\')
        q--;
    int n = (int)(e - q);
    return q == s ? (carry + n) & 1 : n & 1;
}

/* A string after its opening quote; keep: copy (unescaped) into p->str. */
static int string_body(js *p, int keep)
{
    p->slen = 0;
    p->skip_bs = 0;
    if (keep && put_str(p, "", 0))
        return fail(p, "out of memory"), -1;
    for (;;) {
        if (p->pos >= p->len && fill(p, 1) == 0)
            return fail(p, "the file ends inside a string"), -1;
        const char *s = p->buf + p->pos, *e = p->buf + p->len;
        const char *q = s;
        if (!keep) {
            /* skipped: only the closing quote matters (escapes and raw
             * control bytes are not checked in text nobody reads) */
            const char *qq = memchr(s, '"', (size_t)(e - s));
            if (!qq) {
                p->skip_bs = trailing_bs(s, e, p->skip_bs);
                p->pos = p->len;
                continue;
            }
            int odd = trailing_bs(s, qq, p->skip_bs) & 1;
            p->skip_bs = 0;
            p->pos += (size_t)(qq - s) + 1;
            if (!odd)
                return 0;
            continue;
        }
        /* the run up to the next quote, backslash or control byte */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        while (e - q >= 8) { /* eight bytes at a time: exact per-byte tests, no carries */
            const unsigned long long lo = 0x7F7F7F7F7F7F7F7FULL, hi = 0x8080808080808080ULL;
            unsigned long long w, vq, vb;
            memcpy(&w, q, 8);
            vq = w ^ 0x2222222222222222ULL;                                       /* '"' */
            vb = w ^ 0x5C5C5C5C5C5C5C5CULL;                                       /* '\\' */
            unsigned long long stop = ~(((w & lo) + 0x6060606060606060ULL) | w) | /* < 0x20 */
                                      ~(((vq & lo) + lo) | vq) | ~(((vb & lo) + lo) | vb);
            stop &= hi;
            if (stop) {
                q += __builtin_ctzll(stop) >> 3;
                break;
            }
            q += 8;
        }
#endif
        while (q < e && !stop_byte((unsigned char)*q))
            q++;
        if (keep) {
            if (p->slen + (size_t)(q - s) > p->max_str)
                return fail(p, "a string longer than %zu bytes", p->max_str), -1;
            if (put_str(p, s, (size_t)(q - s)))
                return fail(p, "out of memory"), -1;
        }
        p->pos += (size_t)(q - s);
        if (q == e)
            continue;
        if (*q == '"') {
            p->pos++;
            return 0;
        }
        if ((unsigned char)*q < 0x20)
            return fail(p, "a control character inside a string"), -1;
        /* a backslash escape */
        if (fill(p, 6) < 2)
            return fail(p, "the file ends inside a string"), -1;
        char c = p->buf[p->pos + 1];
        const char *rep = NULL;
        switch (c) {
        case '"': rep = "\""; break;
        case '\\': rep = "\\"; break;
        case '/': rep = "/"; break;
        case 'b': rep = "\b"; break;
        case 'f': rep = "\f"; break;
        case 'n': rep = "\n"; break;
        case 'r': rep = "\r"; break;
        case 't': rep = "\t"; break;
        case 'u': {
            unsigned cp;
            if (p->len - p->pos < 6 || hex4(p->buf + p->pos + 2, &cp))
                return fail(p, "a bad \\u escape"), -1;
            p->pos += 6;
            if (cp >= 0xD800 && cp < 0xDC00) { /* a surrogate pair */
                unsigned lo;
                if (fill(p, 6) < 6 || p->buf[p->pos] != '\\' || p->buf[p->pos + 1] != 'u' ||
                    hex4(p->buf + p->pos + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return fail(p, "an unpaired surrogate in a \\u escape"), -1;
                p->pos += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                return fail(p, "an unpaired surrogate in a \\u escape"), -1;
            }
            if (keep && put_utf8(p, cp))
                return fail(p, "out of memory"), -1;
            continue;
        }
        default: return fail(p, "a bad escape \\%c", c), -1;
        }
        p->pos += 2;
        if (keep && put_str(p, rep, 1))
            return fail(p, "out of memory"), -1;
    }
}

/* Up to 8 digits at q (the buffer holds at least 8 bytes there) read as
 * one little-endian word: adds their value to *m (times 10 per digit) and
 * returns how many there were; the rest of the run is the caller's. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JS_SWAR 1
__attribute__((always_inline)) static inline int digits8(const char *q, unsigned long long *m)
{
    static const unsigned long long pow10[] = {1,      10,      100,      1000,     10000,
                                               100000, 1000000, 10000000, 100000000};
    unsigned long long w;
    memcpy(&w, q, 8);
    /* a byte is a digit when its high nibble is 3 before and after adding
     * 6; a carry out of a non-digit byte only disturbs the bytes after it */
    unsigned long long bad =
        ((w & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL) |
        (((w + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) ^ 0x3030303030303030ULL);
    int k = bad ? __builtin_ctzll(bad) >> 3 : 8;
    if (!k)
        return 0;
    unsigned long long d = (w - 0x3030303030303030ULL) << (8 * (8 - k)); /* leading zeros */
    d = d * 10 + (d >> 8);
    d = ((d & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
        (((d >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)));
    d = (d >> 32) & 0xFFFFFFFFULL;
    *m = *m * pow10[k] + d;
    return k;
}
#endif

/* A run of digits from q (before e), added to *m; returns its end. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const char *
digit_run(const char *q, const char *e, unsigned long long *m, int *nd)
{
#ifdef JS_SWAR
    while (e - q >= 8) {
        int k = digits8(q, m);
        q += k;
        *nd += k;
        if (k < 8)
            return q;
    }
#endif
    for (; q < e && *q >= '0' && *q <= '9'; q++, ++*nd)
        *m = *m * 10 + (unsigned)(*q - '0');
    return q;
}

/* m * 10^e10 (m < 2^64) as the correctly rounded double strtod gives,
 * when that can be had exactly and cheaply: 1 and *out set, else 0 (the
 * caller runs strtod). Clinger's case first: m <= 2^53 and |e10| <= 22,
 * both exact doubles, one correctly rounded multiplication or division.
 * Where long double has a 64-bit mantissa (x87), m (exact) times or
 * divided by 10^|e10| <= 10^27 (exact: 5^27 < 2^64) is rounded once to 64
 * bits, then to 53: the second rounding can differ from rounding the
 * exact value only when the 64-bit result lies exactly halfway between two
 * doubles (its 11 low bits 10000000000), and then strtod decides. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64 && \
    defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JS_X87 1
#endif
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int
exact_double(unsigned long long m, int e10, int neg, double *out)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double v;
    if (m <= (1ULL << 53) && e10 >= -22 && e10 <= 22) {
        v = e10 < 0 ? (double)m / p10[-e10] : (double)m * p10[e10];
    } else {
#ifdef JS_X87
        static const long double lp10[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                           1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                           1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                           1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
        if (e10 < -27 || e10 > 27)
            return 0;
        long double r = e10 < 0 ? (long double)m / lp10[-e10] : (long double)m * lp10[e10];
        unsigned long long sig;
        memcpy(&sig, &r, sizeof sig); /* the 64-bit significand */
        if ((sig & 0x7FF) == 0x400)
            return 0;
        v = (double)r;
#else
        return 0;
#endif
    }
    *out = neg ? -v : v;
    return 1;
}

/* A number in one pass over the buffer: the grammar
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? checked while the mantissa
 * is accumulated (8 digits at a time where the buffer allows). Clinger's
 * exact case (a mantissa <= 2^53 and <= 22 decimals: one correctly rounded
 * division, the same double strtod gives) is computed here, the rest by
 * strtod on a copy. Inlined: jl__jstream_array_number's per-element cost.
 * exact_int (a constant at each call): also set num_kind and num_int, which
 * jl__jstream_next's readers of whole documents need and jl__jstream_array_number's do not. */
static const unsigned char after_number[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['.'] = 1, ['-'] = 1, ['+'] = 1, ['e'] = 1, ['E'] = 1,
};

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline jl__jstream_tok
number(js *p, int exact_int)
{
    if (p->len - p->pos < 80)
        fill(p, 80);
    const char *s = p->buf + p->pos, *e = p->buf + p->len, *q = s;
    int neg = q < e && *q == '-';
    q += neg;
    unsigned long long m = 0;
    int digits = 0, frac = 0;
    if (q < e && *q == '0') {
        q++;
    } else if (q < e && *q >= '1' && *q <= '9') {
        q = digit_run(q, e, &m, &digits);
    } else {
        return fail(p, "a bad number (expected a digit)");
    }
    if (q < e && *q == '.') {
        q++;
        if (!(q < e && *q >= '0' && *q <= '9'))
            return fail(p, "a bad number (no digit after '.')");
        q = digit_run(q, e, &m, &frac);
    }
    int ex = 0, eneg = 0;
    if (q < e && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < e && (*q == '+' || *q == '-'))
            eneg = *q++ == '-';
        if (!(q < e && *q >= '0' && *q <= '9'))
            return fail(p, "a bad number (no digit in the exponent)");
        for (; q < e && *q >= '0' && *q <= '9'; q++)
            if (ex < 100000) /* beyond every double's exponent: strtod judges */
                ex = ex * 10 + (*q - '0');
    }
    if (q < e && after_number[(unsigned char)*q])
        return fail(p, "a bad number");
    size_t n = (size_t)(q - s);
    if (n > 64)
        return fail(p, "a number longer than 64 characters");
    p->num_kind = 0;
    if (exact_int && q == s + neg + (digits ? digits : 1)) { /* an integer: the value exactly too */
        if (digits <= 18) {
            p->num_int = neg ? -(long long)m : (long long)m;
            p->num_kind = 1;
        } else {
            char tmp[72];
            memcpy(tmp, s, n);
            tmp[n] = '\0';
            errno = 0;
            p->num_int = strtoll(tmp, NULL, 10);
            p->num_kind = errno == ERANGE ? 2 : 1;
        }
    }
    /* more than 19 digits may have wrapped m (leading zeros count too) */
    if (digits + frac > 19 || !exact_double(m, (eneg ? -ex : ex) - frac, neg, &p->num)) {
        char tmp[72];
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        p->num = strtod(tmp, NULL);
    }
    p->pos += n;
    return JS_NUM;
}

static jl__jstream_tok word(js *p, const char *w, jl__jstream_tok t)
{
    size_t n = strlen(w);
    if (fill(p, n) < n || memcmp(p->buf + p->pos, w, n))
        return fail(p, "unexpected characters (expected a value)");
    p->pos += n;
    return t;
}

/* The next token, with the grammar's punctuation checked. */
jl__jstream_tok jl__jstream_next(js *p)
{
    if (p->err[0])
        return JS_ERROR;
    skip_ws(p);
    int c = peek(p);
    if (p->err[0])
        return JS_ERROR;
    if (p->after_value) {
        if (c == ',' && p->depth > 0) {
            p->pos++;
            p->after_value = 0;
            skip_ws(p);
            c = peek(p);
            if (p->stack[p->depth - 1] == '{') {
                if (c != '"')
                    return fail(p, c < 0 ? "the file ends inside an object"
                                         : "expected a key after ','");
            } else {
                p->need_value = 1;
                if (c == ']')
                    return fail(p, "a ',' before ']'");
            }
        } else if (c == '}' || c == ']') {
            /* handled below */
        } else if (p->depth == 0) {
            if (c < 0)
                return JS_EOF;
            return fail(p, "extra data after the document");
        } else {
            return fail(p,
                        c < 0 ? "the file ends inside %s"
                              : "expected ',' or a closing bracket in %s",
                        p->stack[p->depth - 1] == '{' ? "an object" : "an array");
        }
    } else if (p->done_top && c < 0) {
        return JS_EOF;
    }
    if (c < 0)
        return fail(p, p->depth ? "the file ends inside %s" : "the file is empty",
                    p->depth && p->stack[p->depth - 1] == '{' ? "an object" : "an array");
    int in_obj = p->depth > 0 && p->stack[p->depth - 1] == '{';
    if (c == '}' || c == ']') {
        if (!p->depth || p->stack[p->depth - 1] != (c == '}' ? '{' : '['))
            return fail(p, "an unmatched '%c'", c);
        if (p->need_value == 1)
            return fail(p, "a value is missing before '%c'", c);
        p->pos++;
        p->depth--;
        p->need_value = 0;
        p->after_value = 1;
        if (!p->depth)
            p->done_top = 1;
        return c == '}' ? JS_OBJ_END : JS_ARR_END;
    }
    if (in_obj && !p->need_value) {
        if (c != '"')
            return fail(p, "expected a key");
        p->pos++;
        if (string_body(p, 1))
            return JS_ERROR;
        skip_ws(p);
        if (peek(p) != ':')
            return fail(p, "expected ':' after a key");
        p->pos++;
        p->need_value = 1;
        return JS_KEY;
    }
    if (!p->need_value && !(p->depth == 0 && !p->done_top))
        return fail(p, "unexpected value");
    p->need_value = 0;
    jl__jstream_tok t;
    switch (c) {
    case '{':
    case '[':
        if (p->depth == (int)sizeof p->stack)
            return fail(p, "nested deeper than %zu levels", sizeof p->stack);
        p->stack[p->depth++] = (unsigned char)c;
        p->pos++;
        p->after_value = 0;
        p->need_value = c == '[' ? 2 : 0; /* 2: a value or ']' */
        return c == '{' ? JS_OBJ_START : JS_ARR_START;
    case '"':
        p->pos++;
        t = string_body(p, 1) ? JS_ERROR : JS_STR;
        break;
    case 't': t = word(p, "true", JS_TRUE); break;
    case 'f': t = word(p, "false", JS_FALSE); break;
    case 'n': t = word(p, "null", JS_NULL); break;
    default: t = number(p, 1); break;
    }
    if (t == JS_ERROR)
        return t;
    p->after_value = 1;
    if (!p->depth)
        p->done_top = 1;
    return t;
}

int jl__jstream_array_number(js *p, double *out)
{
    if (p->err[0])
        return -1;
    if (!p->depth || p->stack[p->depth - 1] != '[')
        return fail(p, "not inside an array"), -1;
    /* the common case first: ',' and at most one space before a number */
    if (p->after_value && p->len - p->pos >= 3 && p->buf[p->pos] == ',') {
        size_t i = p->pos + 1 + (p->buf[p->pos + 1] == ' ');
        char d = p->buf[i];
        if (d == '-' || (d >= '0' && d <= '9')) {
            p->pos = i;
            p->after_value = 0;
            p->need_value = 0;
            if (number(p, 0) == JS_ERROR)
                return -1;
            p->after_value = 1;
            *out = p->num;
            return 1;
        }
    }
    skip_ws(p);
    int c = peek(p);
    int close = 0;
    if (p->after_value) {
        if (c == ',') {
            p->pos++;
            p->after_value = 0;
            p->need_value = 1;
            skip_ws(p);
            c = peek(p);
            if (c == ']')
                return fail(p, "a ',' before ']'"), -1;
        } else if (c == ']') {
            close = 1;
        } else {
            return fail(p, c < 0 ? "the file ends inside an array"
                                 : "expected ',' or a closing bracket in an array"),
                   -1;
        }
    } else if (c == ']' && p->need_value == 2) {
        close = 1;
    }
    if (close) {
        p->pos++;
        p->depth--;
        p->need_value = 0;
        p->after_value = 1;
        if (!p->depth)
            p->done_top = 1;
        return 0;
    }
    if (!(c == '-' || (c >= '0' && c <= '9')))
        return -2; /* another kind of value: the caller reads it with jl__jstream_next */
    p->need_value = 0;
    if (number(p, 0) == JS_ERROR)
        return -1;
    p->after_value = 1;
    *out = p->num;
    return 1;
}

/* The common case of an array element: a number of at most 19 digits
 * without an exponent, whole in [q, e) (the caller leaves at least 80 bytes
 * there) and followed by a byte that cannot continue it. Its value by
 * Clinger's exact case (as number() computes it) into *out; NULL for
 * anything else (an exponent, a longer mantissa, a syntax error), which
 * number() then reads, errors included. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline const char *
fast_number(const char *q, const char *e, double *out)
{
    int neg = *q == '-';
    q += neg;
    unsigned long long m = 0;
    int digits = 0, frac = 0;
    if (*q == '0')
        q++;
    else if (*q >= '1' && *q <= '9')
        q = digit_run(q, e, &m, &digits);
    else
        return NULL;
    if (q == e) /* digits to the end of the buffer: number() judges */
        return NULL;
    if (*q == '.') {
        q = digit_run(q + 1, e, &m, &frac);
        if (!frac || q == e)
            return NULL;
    }
    if (digits + frac > 19 || after_number[(unsigned char)*q] || !exact_double(m, -frac, neg, out))
        return NULL;
    return q;
}

int jl__jstream_array_numbers(js *p, double *out, size_t max, size_t *got)
{
    size_t n = 0;
    int r = 1;
    while (n < max) {
        if (p->after_value && !p->err[0] && p->len - p->pos >= 80) {
            /* ", " or "," and a number, whole in the buffer: no call, no
             * parser state touched until the run ends */
            const char *buf = p->buf, *e = buf + p->len, *s = buf + p->pos, *lim = e - 80;
            while (n < max && s <= lim && *s == ',') {
                const char *end = fast_number(s + 1 + (s[1] == ' '), e, &out[n]);
                if (!end)
                    break;
                s = end;
                if (!(out[n++] >= 0)) {
                    p->pos = (size_t)(s - buf);
                    return *got = n, 1;
                }
            }
            p->pos = (size_t)(s - buf);
            if (n == max)
                break;
        }
        if ((r = jl__jstream_array_number(p, &out[n])) != 1)
            break;
        if (!(out[n++] >= 0) || !isfinite(out[n - 1]))
            break;
    }
    *got = n;
    return r;
}

int jl__jstream_skip(js *p)
{
    if (p->err[0])
        return -1;
    skip_ws(p);
    if (peek(p) == '"' && p->need_value) {
        p->pos++;
        p->need_value = 0;
        if (string_body(p, 0))
            return -1;
        p->after_value = 1;
        return 0;
    }
    int depth = 0;
    do {
        jl__jstream_tok t = jl__jstream_next(p);
        if (t == JS_ERROR)
            return -1;
        if (t == JS_EOF)
            return fail(p, "the file ends inside a value"), -1;
        if (t == JS_OBJ_START || t == JS_ARR_START)
            depth++;
        else if (t == JS_OBJ_END || t == JS_ARR_END)
            depth--;
        else if (t == JS_KEY)
            continue;
    } while (depth > 0);
    return 0;
}

int jl__jstream_skip_open(js *p)
{
    for (int depth = 1; depth > 0;) {
        jl__jstream_tok t = jl__jstream_next(p);
        if (t == JS_ERROR)
            return -1;
        if (t == JS_EOF)
            return fail(p, "the file ends inside a value"), -1;
        depth += (t == JS_OBJ_START || t == JS_ARR_START) - (t == JS_OBJ_END || t == JS_ARR_END);
    }
    return 0;
}

int jl__jstream_num_str(js *p, double *num, const char **str, size_t *len)
{
    if (p->err[0] || !p->after_value || !p->depth || p->stack[p->depth - 1] != '[' ||
        p->depth == (int)sizeof p->stack)
        return 0;
    if (p->len - p->pos < 160 && fill(p, 160) < 160)
        return 0; /* near the end of the text: token by token */
    const char *b = p->buf + p->pos;
    if (b[0] != ',' || b[1] != '[' || !(b[2] == '-' || (b[2] >= '0' && b[2] <= '9')))
        return 0;
    size_t save = p->pos;
    p->pos += 2; /* 158 bytes left: number() reads no more from the file */
    if (number(p, 0) == JS_ERROR)
        return -1;
    const char *q = p->buf + p->pos, *e = p->buf + p->len;
    if (e - q < 2 || q[0] != ',' || q[1] != '"') {
        p->pos = save;
        return 0;
    }
    const char *s = q + 2, *t = s;
    if ((size_t)(e - s) > *len + 1)
        e = s + *len + 1; /* a longer string: token by token */
    while (t < e && !stop_byte((unsigned char)*t))
        t++;
    if (t == e || *t != '"') {
        p->pos = save;
        return 0;
    }
    p->stack[p->depth++] = '[';
    p->after_value = 1;
    p->need_value = 0;
    p->pos = (size_t)(t + 1 - p->buf);
    *num = p->num;
    *str = s;
    *len = (size_t)(t - s);
    return 1;
}
