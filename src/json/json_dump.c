/* jl_json_dumps: jansson's json_dumps(), byte for byte, faster.
 *
 * jansson 2.14 writes through a callback per token, checks every container
 * against a hashtable of its parents (loop detection) and copies each
 * object's keys for sorting; on the 4 MB document of `joules frontier` over
 * the ML.ENERGY study that was 327 M instructions of the command's 540 M
 * (docs/performance.md). This writer walks the same tree into one growing
 * buffer with the same rules — separators, indentation, key order (bytes,
 * then length), escapes, integers with "%lld", reals with "%.*g" plus ".0"
 * when the text has neither '.' nor 'e' and the exponent without '+' or
 * leading zeros — so the output is identical (tests/unit/test_json_dump.c
 * compares both on every kind of value). Flags: JSON_INDENT(n),
 * JSON_COMPACT, JSON_SORT_KEYS, JSON_REAL_PRECISION(n), JSON_ENCODE_ANY;
 * any other flag (ASCII escaping, '/' escaping, embedding) goes to
 * json_dumps() itself. joules builds no cyclic documents; a document
 * deeper than JL__JSON_MAX_DEPTH also goes to json_dumps().
 *
 * The writer of json/json_internal.h shares these rules: its text backend
 * writes a document without building the tree, byte for byte what dump()
 * writes for the tree its tree backend builds. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/json.h"
#include "json/json_internal.h"

#define JL__JSON_MAX_DEPTH 2048
#define HANDLED_FLAGS \
    (JSON_MAX_INDENT | JSON_COMPACT | JSON_SORT_KEYS | (0x1F << 11) | JSON_ENCODE_ANY)

typedef struct {
    char *p;
    size_t len, cap;
    int failed;
    size_t flags;
} obuf;

static int grow_slow(obuf *b, size_t need)
{
    if (b->failed)
        return -1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) {
        b->failed = 1;
        return -1;
    }
    b->p = np;
    b->cap = cap;
    return 0;
}

/* Room for need more bytes and a NUL (the failed latch keeps cap at 0). */
static inline int grow(obuf *b, size_t need)
{
    return b->len + need + 1 <= b->cap ? 0 : grow_slow(b, need);
}

static void put(obuf *b, const char *s, size_t n)
{
    if (grow(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void putc1(obuf *b, char c)
{
    if (grow(b, 1))
        return;
    b->p[b->len++] = c;
}

/* n spaces at o, which has room for at least 32 bytes more than n (a fixed
 * 32-byte copy is a few moves; a call to memset costs more than the usual
 * indentation). */
static char *spaces(char *o, size_t n)
{
    static const char sp[32] = "                                ";
    if (n <= sizeof sp)
        memcpy(o, sp, sizeof sp);
    else
        memset(o, ' ', n);
    return o + n;
}

/* jansson's dump_indent */
static void indent(obuf *b, int depth, int space)
{
    size_t ws = b->flags & JSON_MAX_INDENT;
    if (ws > 0) {
        size_t n = (size_t)depth * ws;
        if (grow(b, n + 33))
            return;
        b->p[b->len++] = '\n';
        b->len = (size_t)(spaces(b->p + b->len, n) - b->p);
    } else if (space && !(b->flags & JSON_COMPACT)) {
        putc1(b, ' ');
    }
}

/* How many bytes of s[0..n) are plain ASCII that needs no escape: eight
 * bytes at a time while no byte is a control character, '"', '\\' or
 * above 0x7f (those are checked as UTF-8 one sequence at a time). */
static size_t clean_prefix(const char *s, size_t n)
{
    size_t i = 0;
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, q, bs;
        memcpy(&x, s + i, 8);
        q = x ^ (ones * '"');
        bs = x ^ (ones * '\\');
        /* (v - ones) & ~v & highs: nonzero iff a byte of v is zero (and
         * with 0x20s: below 0x20); exact as a yes/no */
        if (((x - ones * 0x20) & ~x & highs) | ((q - ones) & ~q & highs) |
            ((bs - ones) & ~bs & highs) | (x & highs))
            break;
    }
    while (i < n && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x80 && s[i] != '"' &&
           s[i] != '\\')
        i++;
    return i;
}

static void string(obuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    /* the common case: nothing to escape, one copy */
    size_t i = clean_prefix(s, n);
    if (i == n) {
        if (grow(b, n + 2))
            return;
        b->p[b->len++] = '"';
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len++] = '"';
        return;
    }
    putc1(b, '"');
    size_t start = 0;
    for (; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x80) { /* well-formed UTF-8 as it is; a byte that starts
                           * no sequence as U+FFFD, so the text stays JSON */
            size_t k = jl__utf8_next((const unsigned char *)s + i, n - i);
            if (k) {
                i += k - 1;
                continue;
            }
            put(b, s + start, i - start);
            put(b, "\xEF\xBF\xBD", 3);
            start = i + 1;
            continue;
        }
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        put(b, s + start, i - start);
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        size_t el = 2;
        switch (ch) {
        case '\\': esc[1] = '\\'; break;
        case '"': esc[1] = '"'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[ch >> 4];
            esc[5] = hex[ch & 15];
            el = 6;
            break;
        }
        put(b, esc, el);
        start = i + 1;
    }
    put(b, s + start, n - start);
    putc1(b, '"');
}

/* snprintf(buf, "%.*g", p, v) for 1 <= p <= 15, the same text, about ten
 * times faster for the usual magnitudes (a 4 MB document holds ~30,000
 * numbers). v is scaled by an exact power of ten in long double (one
 * rounding: an error below 1e-4 units of the last digit for p <= 15) and
 * rounded to p digits; when the scaled value lies too near a rounding
 * boundary to be sure, or outside the exact powers, snprintf decides.
 * tests/unit/test_json_dump.c compares both on millions of values. */
int jl__format_g(char *buf, size_t size, int p, double v)
{
#if LDBL_MANT_DIG >= 64
    static const long double pow10[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                        1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                        1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                        1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (p >= 1 && p <= 15 && size >= 32 && isfinite(v) && v != 0) {
        double a = fabs(v);
        int e = (int)floor(log10(a));
        for (int tries = 0; tries < 2; tries++) {
            int k = e - (p - 1); /* a = r * 10^k */
            if (k < -27 || k > 27)
                break;
            long double r = k <= 0 ? (long double)a * pow10[-k] : (long double)a / pow10[k];
            if (r < pow10[p - 1] - 0.5L) { /* e was one too high */
                e--;
                continue;
            }
            if (r >= pow10[p]) { /* one too low */
                e++;
                continue;
            }
            long double fl = floorl(r), frac = r - fl;
            if (frac > 0.4999L && frac < 0.5001L)
                break; /* too near a tie: snprintf */
            unsigned long long m = (unsigned long long)fl + (frac > 0.5L);
            if (m == (unsigned long long)pow10[p]) { /* 9.99..95 carried */
                m /= 10;
                e++;
            }
            char dg[16];
            for (int i = p - 1; i >= 0; i--) {
                dg[i] = (char)('0' + m % 10);
                m /= 10;
            }
            int nd = p; /* significant digits without trailing zeros */
            while (nd > 1 && dg[nd - 1] == '0')
                nd--;
            char *o = buf;
            if (v < 0)
                *o++ = '-';
            if (e < -4 || e >= p) { /* %e */
                *o++ = dg[0];
                if (nd > 1) {
                    *o++ = '.';
                    memcpy(o, dg + 1, (size_t)nd - 1);
                    o += nd - 1;
                }
                *o++ = 'e';
                *o++ = e < 0 ? '-' : '+';
                int x = e < 0 ? -e : e;
                if (x >= 100)
                    *o++ = (char)('0' + x / 100);
                *o++ = (char)('0' + x / 10 % 10);
                *o++ = (char)('0' + x % 10);
            } else if (e >= 0) { /* %f: e + 1 integer digits */
                memcpy(o, dg, (size_t)e + 1);
                o += e + 1;
                if (nd > e + 1) {
                    *o++ = '.';
                    memcpy(o, dg + e + 1, (size_t)(nd - e - 1));
                    o += nd - e - 1;
                }
            } else { /* %f: 0.000ddd */
                *o++ = '0';
                *o++ = '.';
                for (int i = -1; i > e; i--)
                    *o++ = '0';
                memcpy(o, dg, (size_t)nd);
                o += nd;
            }
            *o = '\0';
            return (int)(o - buf);
        }
    }
#endif
    return snprintf(buf, size, "%.*g", p, v);
}

/* The digits of v: "%.*g" at the document's precision, except that a
 * number of magnitude JL_JSON_FULL_FROM (1e9) or more gets as many digits
 * as it takes to read back as the same double (at most 17): an absolute
 * time in Unix seconds (1e9 s is 2001-09-09) written to 12 digits would
 * lose everything below 10 ms (joules/output.h). */
static int digits_of(char *buf, size_t cap, double v, int precision)
{
    int n = precision && precision <= 15
                ? jl__format_g(buf, cap, precision, v)
                : snprintf(buf, cap, "%.*g", precision ? precision : 17, v);
    if (n < 0 || !(fabs(v) >= JL_JSON_FULL_FROM) || !isfinite(v))
        return n;
    for (int p = precision ? precision : 17; p <= 17; p++) {
        if (p > precision || !precision)
            n = snprintf(buf, cap, "%.*g", p, v);
        if (n < 0 || strtod(buf, NULL) == v)
            break;
    }
    return n;
}

/* jansson's jsonp_dtostr (the C locale's '.' assumed, as joules sets no
 * locale), with digits_of's digits */
static void real(obuf *b, double v, int precision)
{
    char buf[64];
    int n = digits_of(buf, sizeof buf, v, precision);
    if (n < 0 || (size_t)n >= sizeof buf - 3) {
        b->failed = 1;
        return;
    }
    size_t len = (size_t)n;
    if (!memchr(buf, '.', len) && !memchr(buf, 'e', len)) {
        buf[len++] = '.';
        buf[len++] = '0';
        buf[len] = '\0';
    }
    char *e = memchr(buf, 'e', len);
    if (e) {
        char *start = e + 1, *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, len - (size_t)(end - buf) + 1);
            len -= (size_t)(end - start);
        }
    }
    put(b, buf, len);
}

static void integer(obuf *b, json_int_t v)
{
    char buf[24];
    char *p = buf + sizeof buf;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    put(b, p, (size_t)(buf + sizeof buf - p));
}

typedef struct {
    const char *key;
    size_t len;
    json_t *value;
} kv;

static int cmp_kv(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->key, y->key, m);
    if (r)
        return r;
    return x->len < y->len ? -1 : x->len > y->len;
}

static int dump(obuf *b, const json_t *v, int depth);

static int dump_object(obuf *b, const json_t *v, int depth)
{
    const char *sep = b->flags & JSON_COMPACT ? ":" : ": ";
    size_t sep_len = b->flags & JSON_COMPACT ? 1 : 2;
    size_t n = json_object_size(v);
    putc1(b, '{');
    if (n == 0) {
        putc1(b, '}');
        return 0;
    }
    indent(b, depth + 1, 0);
    kv small[32];
    kv *keys = n <= 32 ? small : malloc(n * sizeof *keys);
    if (!keys) {
        b->failed = 1;
        return -1;
    }
    size_t i = 0;
    for (void *it = json_object_iter((json_t *)v); it && i < n;
         it = json_object_iter_next((json_t *)v, it), i++) {
        keys[i].key = json_object_iter_key(it);
        keys[i].len = json_object_iter_key_len(it);
        keys[i].value = json_object_iter_value(it);
    }
    n = i;
    if ((b->flags & JSON_SORT_KEYS) && n > 32) {
        qsort(keys, n, sizeof *keys, cmp_kv);
    } else if (b->flags & JSON_SORT_KEYS) { /* insertion: objects are small */
        for (size_t a = 1; a < n; a++) {
            kv x = keys[a];
            size_t j = a;
            for (; j > 0 && cmp_kv(&keys[j - 1], &x) > 0; j--)
                keys[j] = keys[j - 1];
            keys[j] = x;
        }
    }
    int rc = 0;
    for (i = 0; i < n && !rc; i++) {
        string(b, keys[i].key, keys[i].len);
        put(b, sep, sep_len);
        rc = dump(b, keys[i].value, depth + 1);
        if (i < n - 1) {
            putc1(b, ',');
            indent(b, depth + 1, 1);
        } else {
            indent(b, depth, 0);
        }
    }
    if (keys != small)
        free(keys);
    putc1(b, '}');
    return rc;
}

static int dump(obuf *b, const json_t *v, int depth)
{
    if (depth > JL__JSON_MAX_DEPTH)
        return -1;
    switch (json_typeof(v)) {
    case JSON_NULL: put(b, "null", 4); return 0;
    case JSON_TRUE: put(b, "true", 4); return 0;
    case JSON_FALSE: put(b, "false", 5); return 0;
    case JSON_INTEGER: integer(b, json_integer_value(v)); return 0;
    case JSON_REAL: real(b, json_real_value(v), (int)((b->flags >> 11) & 0x1F)); return 0;
    case JSON_STRING: string(b, json_string_value(v), json_string_length(v)); return 0;
    case JSON_ARRAY: {
        size_t n = json_array_size(v);
        putc1(b, '[');
        if (n == 0) {
            putc1(b, ']');
            return 0;
        }
        indent(b, depth + 1, 0);
        for (size_t i = 0; i < n; i++) {
            if (dump(b, json_array_get(v, i), depth + 1))
                return -1;
            if (i < n - 1) {
                putc1(b, ',');
                indent(b, depth + 1, 1);
            } else {
                indent(b, depth, 0);
            }
        }
        putc1(b, ']');
        return 0;
    }
    case JSON_OBJECT: return dump_object(b, v, depth);
    }
    return -1;
}

char *jl_json_dumps(const json_t *v, size_t flags)
{
    if (!v)
        return NULL;
    if ((flags & ~(size_t)HANDLED_FLAGS) ||
        (!(flags & JSON_ENCODE_ANY) && !json_is_object(v) && !json_is_array(v)))
        return json_dumps(v, flags);
    obuf b = {NULL, 0, 0, 0, flags};
    int rc = dump(&b, v, 0);
    if (!rc && !b.failed && grow(&b, 0) == 0) {
        b.p[b.len] = '\0';
        return b.p;
    }
    free(b.p);
    return b.failed ? NULL : json_dumps(v, flags); /* too deep: jansson decides */
}

/* ---- the writer of json/json_internal.h ---------------------------------- */

typedef struct {
    int is_object;
    size_t n;       /* members or elements so far */
    size_t m_first; /* this object's first entry in jl__jw.mem */
    int unsorted;   /* a key came out of order or twice */
    json_t *node;   /* tree backend */
} jw_frame;

/* One member of an open object (text backend): the key, and where its text
 * ("key": value) begins and ends in the buffer. */
typedef struct {
    const char *key;
    size_t klen, start, end, order;
} jw_member;

/* The order an object's members were sorted into, kept for the next
 * object with the same keys (the same pointers, in the same order): a
 * document repeats a few shapes (every run object), so most objects are
 * laid out without sorting. */
#define JW_ORDERS 4
#define JW_KNOWN 256 /* a power of two */
typedef struct {
    const char **keys;
    size_t *perm, n;
} jw_order;

struct jl__jw {
    int tree, failed;
    obuf b;
    json_t *root;
    const char *key; /* tree: the pending member's key */
    jw_frame *st;
    size_t depth, st_cap;
    jw_member *mem, *tmp;
    size_t n_mem, mem_cap, tmp_cap;
    jw_order orders[JW_ORDERS];
    size_t next_order;
    /* the length of clean keys (no escapes) by address: a document repeats
     * a few dozen keys tens of thousands of times */
    struct {
        const char *key;
        size_t klen;
    } known[JW_KNOWN];
    /* a member the root object gets as it closes (jl__jw_root_member) */
    const char *root_key;
    const json_t *root_value;
};

static jl__jw *jw_new(int tree, size_t flags)
{
    jl__jw *w = calloc(1, sizeof *w);
    if (w) {
        w->tree = tree;
        w->b.flags = flags;
    }
    return w;
}

jl__jw *jl__jw_text(size_t flags)
{
    if (!(flags & JSON_SORT_KEYS) || (flags & ~(size_t)HANDLED_FLAGS))
        return NULL;
    return jw_new(0, flags);
}

jl__jw *jl__jw_tree(void)
{
    return jw_new(1, 0);
}

static int jw_failed(jl__jw *w)
{
    return w->failed || w->b.failed;
}

/* Text: the separator (and for a member, its key) before a value. */
static void jw_before_value(jl__jw *w)
{
    if (w->tree || !w->depth)
        return;
    jw_frame *f = &w->st[w->depth - 1];
    if (f->is_object)
        return; /* jl__jw_key wrote it */
    if (f->n++)
        putc1(&w->b, ',');
    indent(&w->b, (int)w->depth, f->n > 1);
}

/* Tree: attach v (a new reference) where the next value goes. */
static void jw_add(jl__jw *w, json_t *v)
{
    if (!v) {
        w->failed = 1;
        return;
    }
    if (!w->depth) {
        if (w->root)
            json_decref(w->root);
        w->root = v;
        return;
    }
    jw_frame *f = &w->st[w->depth - 1];
    if (!f->is_object) {
        if (json_array_append_new(f->node, v))
            w->failed = 1;
        return;
    }
    const char *key = w->key ? w->key : "";
    int oom;
    char *fixed = jl__utf8_fix(key, &oom); /* jansson refuses a key that is not UTF-8 */
    if (json_object_set_new(f->node, fixed ? fixed : key, v) || oom)
        w->failed = 1;
    free(fixed);
}

/* A string as the text backend writes it: bytes that start no UTF-8
 * sequence as U+FFFD (jansson refuses them). */
static json_t *jw_json_string(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    int oom;
    char *fixed = jl__utf8_fix(s, &oom);
    v = fixed ? json_string(fixed) : NULL;
    free(fixed);
    return v;
}

/* 1 for NUL, the bytes a JSON string holds only escaped, and bytes above
 * 0x7f (checked as UTF-8 by string()) */
/* clang-format off */
static const unsigned char key_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1};
/* clang-format on */

void jl__jw_key(jl__jw *w, const char *key)
{
    if (!w->depth || !w->st[w->depth - 1].is_object) {
        w->failed = 1;
        return;
    }
    if (w->tree) {
        w->key = key;
        return;
    }
    jw_frame *f = &w->st[w->depth - 1];
    obuf *b = &w->b;
    if (w->n_mem == w->mem_cap) {
        size_t cap = w->mem_cap ? 2 * w->mem_cap : 64;
        jw_member *m = realloc(w->mem, cap * sizeof *m);
        if (!m) {
            w->failed = 1;
            return;
        }
        w->mem = m;
        w->mem_cap = cap;
    }
    jw_member *m = &w->mem[w->n_mem];
    size_t slot = (size_t)(((uintptr_t)key >> 3) * 0x9E3779B97F4A7C15ull >> 32) & (JW_KNOWN - 1);
    size_t klen;
    int clean = 1;
    if (w->known[slot].key == key && key[w->known[slot].klen] == '\0') {
        /* the same address, and the length still ends there (a cheap check
         * of the contract that a key's bytes do not change) */
        klen = w->known[slot].klen;
    } else { /* length and escapes in one pass: keys are short */
        const unsigned char *kp = (const unsigned char *)key;
        while (!key_stop[*kp])
            kp++;
        klen = (size_t)(kp - (const unsigned char *)key);
        clean = *kp == '\0';
        if (!clean) {
            klen += strlen((const char *)kp);
        } else {
            w->known[slot].key = key;
            w->known[slot].klen = klen;
        }
    }
    m->key = key;
    m->klen = klen;
    m->order = f->n;
    if (f->n) {
        jw_member *prev = m - 1;
        prev->end = b->len;
        /* strcmp orders C strings as cmp_kv does (bytes, then length); the
         * first bytes mostly decide */
        unsigned char p0 = (unsigned char)prev->key[0], k0 = (unsigned char)key[0];
        if (p0 != k0 ? p0 > k0 : strcmp(prev->key, key) >= 0)
            f->unsorted = 1;
    }
    size_t ws = b->flags & JSON_MAX_INDENT, pad = ws * w->depth;
    if (ws && !(b->flags & JSON_COMPACT) && clean && grow(b, pad + klen + 38) == 0) {
        /* the usual case in one step: ",\n    \"key\": " */
        char *o = b->p + b->len;
        if (f->n)
            *o++ = ',';
        *o++ = '\n';
        o = spaces(o, pad);
        m->start = (size_t)(o - b->p);
        *o++ = '"';
        memcpy(o, key, klen);
        o += klen;
        memcpy(o, "\": ", 3);
        b->len = (size_t)(o + 3 - b->p);
    } else {
        if (f->n)
            putc1(b, ',');
        indent(b, (int)w->depth, f->n > 0);
        m->start = b->len;
        string(b, key, klen);
        if (b->flags & JSON_COMPACT)
            putc1(b, ':');
        else
            put(b, ": ", 2);
    }
    w->n_mem++;
    f->n++;
}

static void jw_open(jl__jw *w, int is_object)
{
    if (jw_failed(w))
        return;
    if (w->depth == w->st_cap) {
        size_t cap = w->st_cap ? 2 * w->st_cap : 16;
        jw_frame *st = cap <= JL__JSON_MAX_DEPTH ? realloc(w->st, cap * sizeof *st) : NULL;
        if (!st) {
            w->failed = 1;
            return;
        }
        w->st = st;
        w->st_cap = cap;
    }
    jw_frame f = {is_object, 0, w->n_mem, 0, NULL};
    if (w->tree) {
        f.node = is_object ? json_object() : json_array();
        jw_add(w, f.node);
        if (w->failed)
            return;
    } else {
        jw_before_value(w);
        putc1(&w->b, is_object ? '{' : '[');
    }
    w->st[w->depth++] = f;
}

void jl__jw_object(jl__jw *w)
{
    jw_open(w, 1);
}

void jl__jw_array(jl__jw *w)
{
    jw_open(w, 0);
}

static int cmp_member(const void *pa, const void *pb)
{
    const jw_member *a = pa, *b = pb;
    kv x = {a->key, a->klen, NULL}, y = {b->key, b->klen, NULL};
    int c = cmp_kv(&x, &y);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

static int jw_grow_tmp(jl__jw *w, size_t n)
{
    jw_member *t = realloc(w->tmp, n * sizeof *t);
    if (!t)
        return -1;
    w->tmp = t;
    w->tmp_cap = n;
    return 0;
}

/* Put the members of the object closing now in key order: its text from the
 * first member's key to the last member's end is cut into members and laid
 * out again sorted, with the separators jansson writes between them. */
static void jw_sort_members(jl__jw *w, jw_frame *f)
{
    jw_member *m = w->mem + f->m_first;
    size_t n = w->n_mem - f->m_first, base = m[0].start, len = w->b.len - base;
    char *copy = malloc(len ? len : 1);
    if (!copy) {
        w->failed = 1;
        return;
    }
    memcpy(copy, w->b.p + base, len);
    jw_order *o = NULL;
    for (size_t k = 0; k < JW_ORDERS && !o; k++) {
        jw_order *c = &w->orders[k];
        if (c->n != n)
            continue;
        size_t i = 0;
        while (i < n && c->keys[i] == m[i].key)
            i++;
        if (i == n)
            o = c;
    }
    if (o && (w->tmp_cap >= n || jw_grow_tmp(w, n) == 0)) {
        memcpy(w->tmp, m, n * sizeof *m);
        for (size_t i = 0; i < n; i++)
            m[i] = w->tmp[o->perm[i]];
    } else {
        jw_order *c = &w->orders[w->next_order++ % JW_ORDERS];
        const char **keys = realloc(c->keys, n * sizeof *keys);
        size_t *perm = keys ? realloc(c->perm, n * sizeof *perm) : NULL;
        if (keys)
            c->keys = keys;
        if (perm)
            c->perm = perm;
        c->n = 0;
        for (size_t i = 0; perm && i < n; i++)
            keys[i] = m[i].key;
        if (n > 32) {
            qsort(m, n, sizeof *m, cmp_member);
        } else { /* insertion: objects are small */
            for (size_t i = 1; i < n; i++) {
                jw_member x = m[i];
                size_t j = i;
                for (; j > 0 && cmp_member(&m[j - 1], &x) > 0; j--)
                    m[j] = m[j - 1];
                m[j] = x;
            }
        }
        if (perm) {
            for (size_t i = 0; i < n; i++)
                perm[i] = m[i].order;
            c->n = n;
        }
    }
    w->b.len = base;
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && m[i].klen == m[i + 1].klen && !memcmp(m[i].key, m[i + 1].key, m[i].klen))
            continue; /* a later value of the same key replaces it */
        if (!first) {
            putc1(&w->b, ',');
            indent(&w->b, (int)w->depth, 1);
        }
        first = 0;
        put(&w->b, copy + (m[i].start - base), m[i].end - m[i].start);
    }
    free(copy);
}

void jl__jw_root_member(jl__jw *w, const char *key, const json_t *v)
{
    w->root_key = key;
    w->root_value = v;
}

void jl__jw_end(jl__jw *w)
{
    if (jw_failed(w))
        return;
    if (!w->depth) {
        w->failed = 1;
        return;
    }
    if (w->depth == 1 && w->root_key && w->st[0].is_object) {
        const char *k = w->root_key;
        w->root_key = NULL;
        jl__jw_key(w, k);
        jl__jw_json(w, w->root_value);
        if (jw_failed(w))
            return;
    }
    jw_frame *f = &w->st[w->depth - 1];
    if (!w->tree) {
        if (f->n) {
            if (f->is_object) {
                w->mem[w->n_mem - 1].end = w->b.len;
                if (f->unsorted)
                    jw_sort_members(w, f);
            }
            indent(&w->b, (int)w->depth - 1, 0);
        }
        putc1(&w->b, f->is_object ? '}' : ']');
        w->n_mem = f->m_first;
    }
    w->depth--;
}

typedef enum { JW_STRING, JW_NUMBER, JW_INTEGER, JW_BOOL } jw_kind;

/* A number, or null when NaN/inf (missing is never 0): the tree backend's
 * numbers and every document's. */
json_t *jl_json_number(double v)
{
    if (!isfinite(v))
        return json_null();
    return json_real(v);
}

/* One scalar value: s for JW_STRING (NULL: null), d for JW_NUMBER, i for
 * JW_INTEGER and JW_BOOL. */
static void jw_scalar(jl__jw *w, jw_kind kind, const char *s, double d, json_int_t i)
{
    if (jw_failed(w))
        return;
    if (w->tree) {
        jw_add(w, kind == JW_STRING    ? (s ? jw_json_string(s) : json_null())
                  : kind == JW_NUMBER  ? jl_json_number(d)
                  : kind == JW_INTEGER ? json_integer(i)
                                       : json_boolean(i));
        return;
    }
    jw_before_value(w);
    obuf *b = &w->b;
    switch (kind) {
    case JW_STRING:
        if (s)
            string(b, s, strlen(s));
        else
            put(b, "null", 4);
        break;
    case JW_NUMBER:
        if (isfinite(d))
            real(b, d, (int)((b->flags >> 11) & 0x1F));
        else
            put(b, "null", 4);
        break;
    case JW_INTEGER: integer(b, i); break;
    case JW_BOOL:
        if (i)
            put(b, "true", 4);
        else
            put(b, "false", 5);
        break;
    }
}

void jl__jw_string(jl__jw *w, const char *s)
{
    jw_scalar(w, JW_STRING, s, 0, 0);
}

void jl__jw_number(jl__jw *w, double v)
{
    jw_scalar(w, JW_NUMBER, NULL, v, 0);
}

void jl__jw_integer(jl__jw *w, json_int_t v)
{
    jw_scalar(w, JW_INTEGER, NULL, 0, v);
}

void jl__jw_bool(jl__jw *w, int v)
{
    jw_scalar(w, JW_BOOL, NULL, 0, v);
}

void jl__jw_null(jl__jw *w)
{
    jw_scalar(w, JW_STRING, NULL, 0, 0);
}

void jl__jw_json(jl__jw *w, const json_t *v)
{
    if (jw_failed(w))
        return;
    if (!v) {
        w->failed = 1;
        return;
    }
    if (w->tree) {
        jw_add(w, json_incref((json_t *)v));
        return;
    }
    jw_before_value(w);
    if (dump(&w->b, v, (int)w->depth))
        w->failed = 1;
}

size_t jl__jw_text_len(const jl__jw *w)
{
    return w->b.len;
}

const char *jl__jw_text_ptr(const jl__jw *w)
{
    return w->b.p;
}

size_t jl__jw_depth(const jl__jw *w)
{
    return w->depth;
}

int jl__jw_ok(const jl__jw *w)
{
    return !w->failed && !w->b.failed;
}

int jl__jw_is_text(const jl__jw *w)
{
    return !w->tree;
}

void jl__jw_raw_value(jl__jw *w, const char *text, size_t len)
{
    if (jw_failed(w))
        return;
    if (w->tree) {
        w->failed = 1;
        return;
    }
    jw_before_value(w);
    put(&w->b, text, len);
}

void jl__jw_kstring(jl__jw *w, const char *key, const char *s)
{
    jl__jw_key(w, key);
    jl__jw_string(w, s);
}

void jl__jw_knumber(jl__jw *w, const char *key, double v)
{
    jl__jw_key(w, key);
    jl__jw_number(w, v);
}

void jl__jw_kbool(jl__jw *w, const char *key, int v)
{
    jl__jw_key(w, key);
    jl__jw_bool(w, v);
}

void jl__jw_klong(jl__jw *w, const char *key, long v)
{
    jl__jw_key(w, key);
    if (v >= 0)
        jl__jw_integer(w, v);
    else
        jl__jw_null(w);
}

void jl__jw_free(jl__jw *w)
{
    if (!w)
        return;
    json_decref(w->root);
    free(w->b.p);
    free(w->st);
    free(w->mem);
    free(w->tmp);
    for (size_t k = 0; k < JW_ORDERS; k++) {
        free(w->orders[k].keys);
        free(w->orders[k].perm);
    }
    free(w);
}

char *jl__jw_finish_text(jl__jw *w, size_t *len)
{
    if (!w)
        return NULL;
    char *s = NULL;
    if (!w->tree && !jw_failed(w) && !w->depth && w->b.len && grow(&w->b, 1) == 0) {
        w->b.p[w->b.len++] = '\n';
        w->b.p[w->b.len] = '\0';
        s = w->b.p;
        w->b.p = NULL;
        if (len)
            *len = w->b.len;
    }
    jl__jw_free(w);
    return s;
}

json_t *jl__jw_finish_tree(jl__jw *w)
{
    if (!w)
        return NULL;
    json_t *root = NULL;
    if (w->tree && !jw_failed(w) && !w->depth) {
        root = w->root;
        w->root = NULL;
    }
    jl__jw_free(w);
    return root;
}
