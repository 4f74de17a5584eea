/* Duplicate keys in JSON objects, with line numbers (json/json_internal.h).
 *
 * A recursive descent over text jansson has already accepted: nesting is
 * bounded by jansson's own depth limit (2048), strings and numbers are
 * skipped. The members of the objects being read sit on one shared stack
 * (an object's members above its parents'); at an object's end they are
 * compared (pairwise for a few, sorted by key beyond), so the scan is
 * linear in the text apart from that sort, with no allocation per object.
 * The path of the value being read is a stack of (key | index) frames,
 * turned into text only when a repeat is reported. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "json/json_internal.h"

#define VALUE_SHOWN 60
#define FEW_KEYS 12 /* up to this many members: pairwise comparison */

typedef struct member {
    const char *key; /* the key's bytes between the quotes */
    size_t key_len;
    size_t val_off, val_end;
    long line;
    size_t order; /* the order it came in */
} member;

typedef struct frame {
    const char *key; /* NULL: an array element */
    size_t key_len, index;
} frame;

typedef struct scan {
    const char *t;
    size_t n, pos;
    long line;
    member *m; /* the members of the open objects */
    size_t nm, cap_m;
    frame *f; /* the path */
    size_t nf, cap_f;
    jl__json_dup *dups;
    size_t n_dups, cap_dups;
    char **decoded; /* keys written with escapes, decoded (owned) */
    size_t n_decoded, cap_decoded;
    int oom;
} scan;

/* A key written with escapes ("\u0061" is "a" to jansson): its decoded
 * text, kept until the end of the scan, so that it compares as jansson
 * sees it. NULL when out of memory. */
static const char *decode_key(scan *s, const char *quoted, size_t len, size_t *out_len)
{
    if (s->n_decoded == s->cap_decoded) {
        size_t cap = s->cap_decoded ? s->cap_decoded * 2 : 8;
        char **d = realloc(s->decoded, cap * sizeof *d);
        if (!d)
            return NULL;
        s->decoded = d;
        s->cap_decoded = cap;
    }
    json_t *v = json_loadb(quoted, len, JSON_DECODE_ANY, NULL);
    char *k = json_is_string(v) ? jl__strdup(json_string_value(v)) : NULL;
    json_decref(v);
    if (!k)
        return NULL;
    s->decoded[s->n_decoded++] = k;
    *out_len = strlen(k);
    return k;
}

static void ws(scan *s)
{
    while (s->pos < s->n) {
        char c = s->t[s->pos];
        if (c == '\n')
            s->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            return;
        s->pos++;
    }
}

/* At the opening quote: skip to after the closing one. */
static void skip_string(scan *s)
{
    s->pos++;
    while (s->pos < s->n && s->t[s->pos] != '"') {
        if (s->t[s->pos] == '\\')
            s->pos++;
        s->pos++;
    }
    s->pos++;
}

static int push_frame(scan *s, const char *key, size_t key_len, size_t index)
{
    if (s->nf == s->cap_f) {
        size_t cap = s->cap_f ? s->cap_f * 2 : 64;
        frame *f = realloc(s->f, cap * sizeof *f);
        if (!f) {
            s->oom = 1;
            return 0;
        }
        s->f = f;
        s->cap_f = cap;
    }
    s->f[s->nf++] = (frame){key, key_len, index};
    return 1;
}

/* The path of the current frames, then ".key" (key may be NULL). */
static char *path_text(const scan *s, const char *key, size_t key_len)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    jl__strbuf_append(&b, "", 0);
    for (size_t i = 0; i < s->nf; i++) {
        if (s->f[i].key) {
            if (b.len)
                jl__strbuf_append(&b, ".", 1);
            jl__strbuf_append(&b, s->f[i].key, s->f[i].key_len);
        } else {
            jl__strbuf_printf(&b, "[%zu]", s->f[i].index);
        }
    }
    if (key) {
        if (b.len)
            jl__strbuf_append(&b, ".", 1);
        jl__strbuf_append(&b, key, key_len);
    }
    return jl__strbuf_take(&b);
}

static void value(scan *s);

static char *shown(const scan *s, size_t off, size_t end)
{
    size_t len = end - off;
    if (len <= VALUE_SHOWN)
        return jl__asprintf("%.*s", (int)len, s->t + off);
    return jl__asprintf("%.*s...", VALUE_SHOWN, s->t + off);
}

static int key_cmp_raw(const member *a, const member *b)
{
    size_t m = a->key_len < b->key_len ? a->key_len : b->key_len;
    int c = memcmp(a->key, b->key, m);
    if (c)
        return c;
    return a->key_len < b->key_len ? -1 : a->key_len > b->key_len;
}

static int member_cmp(const void *pa, const void *pb)
{
    const member *a = pa, *b = pb;
    int c = key_cmp_raw(a, b);
    if (c)
        return c;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Equal JSON values: the same bytes, or equal once parsed. */
static int values_equal(const scan *s, const member *a, const member *b)
{
    size_t la = a->val_end - a->val_off, lb = b->val_end - b->val_off;
    if (la == lb && !memcmp(s->t + a->val_off, s->t + b->val_off, la))
        return 1;
    json_t *x = json_loadb(s->t + a->val_off, la, JSON_DECODE_ANY, NULL);
    json_t *y = json_loadb(s->t + b->val_off, lb, JSON_DECODE_ANY, NULL);
    /* numbers by value (2 and 2.0 are equal, as in Python) */
    int eq = x && y &&
             (json_is_number(x) && json_is_number(y) ? json_number_value(x) == json_number_value(y)
                                                     : json_equal(x, y));
    json_decref(x);
    json_decref(y);
    return eq;
}

/* dup repeats first's key (first came earlier in the text). */
static void report(scan *s, const member *first, const member *dup)
{
    if (s->n_dups == s->cap_dups) {
        size_t cap = s->cap_dups ? s->cap_dups * 2 : 8;
        jl__json_dup *d = realloc(s->dups, cap * sizeof *d);
        if (!d) {
            s->oom = 1;
            return;
        }
        s->dups = d;
        s->cap_dups = cap;
    }
    jl__json_dup *d = &s->dups[s->n_dups];
    memset(d, 0, sizeof *d);
    d->key = jl__asprintf("%.*s", (int)dup->key_len, dup->key);
    d->path = path_text(s, dup->key, dup->key_len);
    d->line_first = first->line;
    d->line_dup = dup->line;
    d->equal = values_equal(s, first, dup);
    d->value_first = shown(s, first->val_off, first->val_end);
    d->value_dup = shown(s, dup->val_off, dup->val_end);
    s->n_dups++;
    if (!d->key || !d->path || !d->value_first || !d->value_dup)
        s->oom = 1;
}

/* The members m[0..k) of one object: report each key given again. */
static void repeats(scan *s, member *m, size_t k)
{
    if (k <= FEW_KEYS) {
        for (size_t j = 1; j < k && !s->oom; j++)
            for (size_t i = j; i-- > 0;)
                if (!key_cmp_raw(&m[i], &m[j])) {
                    report(s, &m[i], &m[j]); /* against the nearest earlier one */
                    break;
                }
        return;
    }
    qsort(m, k, sizeof *m, member_cmp);
    for (size_t i = 1; i < k && !s->oom; i++)
        if (!key_cmp_raw(&m[i - 1], &m[i]))
            report(s, &m[i - 1], &m[i]);
}

static void object(scan *s)
{
    size_t base = s->nm;
    s->pos++; /* '{' */
    ws(s);
    if (s->pos < s->n && s->t[s->pos] == '}') {
        s->pos++;
        return;
    }
    while (s->pos < s->n && !s->oom) {
        ws(s);
        if (s->nm == s->cap_m) {
            size_t nc = s->cap_m ? s->cap_m * 2 : 256;
            member *x = realloc(s->m, nc * sizeof *x);
            if (!x) {
                s->oom = 1;
                break;
            }
            s->m = x;
            s->cap_m = nc;
        }
        member e;
        e.line = s->line;
        size_t key_off = s->pos + 1;
        skip_string(s);
        e.key = s->t + key_off;
        e.key_len = s->pos - 1 - key_off;
        if (memchr(e.key, '\\', e.key_len) &&
            !(e.key = decode_key(s, s->t + key_off - 1, e.key_len + 2, &e.key_len))) {
            s->oom = 1;
            break;
        }
        e.order = s->nm - base;
        ws(s);
        s->pos++; /* ':' */
        ws(s);
        e.val_off = s->pos;
        if (!push_frame(s, e.key, e.key_len, 0))
            break;
        value(s);
        s->nf--;
        e.val_end = s->pos;
        s->m[s->nm++] = e; /* after value(): nested objects used the stack above */
        ws(s);
        if (s->pos < s->n && s->t[s->pos] == ',') {
            s->pos++;
            continue;
        }
        s->pos++; /* '}' */
        break;
    }
    if (s->nm - base > 1 && !s->oom)
        repeats(s, s->m + base, s->nm - base);
    s->nm = base;
}

static void array(scan *s)
{
    size_t i = 0;
    s->pos++; /* '[' */
    ws(s);
    if (s->pos < s->n && s->t[s->pos] == ']') {
        s->pos++;
        return;
    }
    while (s->pos < s->n && !s->oom) {
        ws(s);
        /* only containers can hold a key: name the element then */
        int nested = s->pos < s->n && (s->t[s->pos] == '{' || s->t[s->pos] == '[');
        if (nested && !push_frame(s, NULL, 0, i))
            break;
        value(s);
        if (nested)
            s->nf--;
        i++;
        ws(s);
        if (s->pos < s->n && s->t[s->pos] == ',') {
            s->pos++;
            continue;
        }
        s->pos++; /* ']' */
        break;
    }
}

static void value(scan *s)
{
    ws(s);
    if (s->pos >= s->n)
        return;
    switch (s->t[s->pos]) {
    case '{': object(s); return;
    case '[': array(s); return;
    case '"': skip_string(s); return;
    default:
        for (; s->pos < s->n; s->pos++) {
            char c = s->t[s->pos];
            if (c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n')
                break;
        }
    }
}

static int dup_cmp(const void *pa, const void *pb)
{
    const jl__json_dup *a = pa, *b = pb;
    if (a->line_dup != b->line_dup)
        return a->line_dup < b->line_dup ? -1 : 1;
    return strcmp(a->path, b->path);
}

int jl__json_find_dups(const char *text, size_t n, jl__json_dup **out, size_t *n_out)
{
    scan s;
    memset(&s, 0, sizeof s);
    s.t = text;
    s.n = n;
    s.line = 1;
    value(&s);
    free(s.m);
    free(s.f);
    for (size_t i = 0; i < s.n_decoded; i++)
        free(s.decoded[i]);
    free(s.decoded);
    if (s.oom) {
        jl__json_dups_free(s.dups, s.n_dups);
        *out = NULL;
        *n_out = 0;
        return -1;
    }
    /* text order of the repeated key */
    if (s.n_dups > 1)
        qsort(s.dups, s.n_dups, sizeof *s.dups, dup_cmp);
    *out = s.dups;
    *n_out = s.n_dups;
    return 0;
}

void jl__json_dups_free(jl__json_dup *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(d[i].path);
        free(d[i].key);
        free(d[i].value_first);
        free(d[i].value_dup);
    }
    free(d);
}
