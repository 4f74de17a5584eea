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
 * deeper than JL_JSON_MAX_DEPTH also goes to json_dumps(). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/output.h"

#define JL_JSON_MAX_DEPTH 2048
#define HANDLED_FLAGS (JSON_MAX_INDENT | JSON_COMPACT | JSON_SORT_KEYS | (0x1F << 11) | JSON_ENCODE_ANY)

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

/* jansson's dump_indent */
static void indent(obuf *b, int depth, int space)
{
    size_t ws = b->flags & JSON_MAX_INDENT;
    if (ws > 0) {
        size_t n = (size_t)depth * ws;
        if (grow(b, n + 1))
            return;
        b->p[b->len++] = '\n';
        memset(b->p + b->len, ' ', n);
        b->len += n;
    } else if (space && !(b->flags & JSON_COMPACT)) {
        putc1(b, ' ');
    }
}

static void string(obuf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i = 0;
    /* the common case: nothing to escape, one copy */
    while (i < n && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
        i++;
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

/* jansson's jsonp_dtostr (the C locale's '.' assumed, as joules sets no
 * locale) */
static void real(obuf *b, double v, int precision)
{
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%.*g", precision ? precision : 17, v);
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
    if (depth > JL_JSON_MAX_DEPTH)
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
