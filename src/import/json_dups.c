/* Duplicate keys in JSON objects, with line numbers (json_dups.h).
 *
 * A recursive descent over text jansson has already accepted: nesting is
 * bounded by jansson's own depth limit (2048), strings and numbers are
 * skipped, and each object's members are sorted by key at its end (O(k log
 * k)), so the scan is linear in the text apart from that sort. The path of
 * the member being read is kept in one buffer, appended to and cut back. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "import/json_dups.h"

#define VALUE_SHOWN 60

typedef struct member {
    const char *key;         /* the key's bytes between the quotes */
    size_t key_len;
    size_t val_off, val_end;
    long line;
    size_t order;            /* the order it came in */
} member;

typedef struct scan {
    const char *t;
    size_t n, pos;
    long line;
    jl_strbuf path;
    jl__json_dup *dups;
    size_t n_dups, cap_dups;
    int oom;
} scan;

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

static void value(scan *s);

static char *shown(const scan *s, size_t off, size_t end)
{
    size_t len = end - off;
    if (len <= VALUE_SHOWN)
        return jl_asprintf("%.*s", (int)len, s->t + off);
    return jl_asprintf("%.*s...", VALUE_SHOWN, s->t + off);
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

/* Equal JSON values: the same bytes, or json_equal of both parsed. */
static int values_equal(const scan *s, const member *a, const member *b)
{
    size_t la = a->val_end - a->val_off, lb = b->val_end - b->val_off;
    if (la == lb && !memcmp(s->t + a->val_off, s->t + b->val_off, la))
        return 1;
    json_t *x = json_loadb(s->t + a->val_off, la, JSON_DECODE_ANY, NULL);
    json_t *y = json_loadb(s->t + b->val_off, lb, JSON_DECODE_ANY, NULL);
    /* numbers by value (2 and 2.0 are equal, as in Python) */
    int eq = x && y &&
             (json_is_number(x) && json_is_number(y)
                  ? json_number_value(x) == json_number_value(y)
                  : json_equal(x, y));
    json_decref(x);
    json_decref(y);
    return eq;
}

static void report(scan *s, const member *first, const member *dup, const char *obj_path)
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
    d->key = jl_asprintf("%.*s", (int)dup->key_len, dup->key);
    d->path = *obj_path ? jl_asprintf("%s.%s", obj_path, d->key ? d->key : "")
                        : jl_strdup(d->key ? d->key : "");
    d->line_first = first->line;
    d->line_dup = dup->line;
    d->equal = values_equal(s, first, dup);
    d->value_first = shown(s, first->val_off, first->val_end);
    d->value_dup = shown(s, dup->val_off, dup->val_end);
    s->n_dups++;
    if (!d->key || !d->path || !d->value_first || !d->value_dup)
        s->oom = 1;
}

static void object(scan *s)
{
    member *m = NULL;
    size_t nm = 0, cap = 0, base = s->path.len;
    s->pos++; /* '{' */
    ws(s);
    if (s->pos < s->n && s->t[s->pos] == '}') {
        s->pos++;
        return;
    }
    while (s->pos < s->n && !s->oom) {
        ws(s);
        if (nm == cap) {
            size_t nc = cap ? cap * 2 : 16;
            member *x = realloc(m, nc * sizeof *x);
            if (!x) {
                s->oom = 1;
                break;
            }
            m = x;
            cap = nc;
        }
        member *e = &m[nm];
        e->line = s->line;
        size_t key_off = s->pos + 1;
        skip_string(s);
        e->key = s->t + key_off;
        e->key_len = s->pos - 1 - key_off;
        e->order = nm;
        ws(s);
        s->pos++; /* ':' */
        ws(s);
        if (base)
            jl_strbuf_append(&s->path, ".", 1);
        jl_strbuf_append(&s->path, e->key, e->key_len);
        e->val_off = s->pos;
        value(s);
        e->val_end = s->pos;
        s->path.len = base;
        if (s->path.data)
            s->path.data[base] = '\0';
        nm++;
        ws(s);
        if (s->pos < s->n && s->t[s->pos] == ',') {
            s->pos++;
            continue;
        }
        s->pos++; /* '}' */
        break;
    }
    if (nm > 1 && !s->oom) {
        qsort(m, nm, sizeof *m, member_cmp);
        char *obj_path = jl_strdup(s->path.data ? s->path.data : "");
        if (!obj_path)
            s->oom = 1;
        for (size_t i = 1; i < nm && !s->oom; i++)
            if (!key_cmp_raw(&m[i - 1], &m[i]))
                report(s, &m[i - 1], &m[i], obj_path);
        free(obj_path);
    }
    free(m);
}

static void array(scan *s)
{
    size_t base = s->path.len, i = 0;
    s->pos++; /* '[' */
    ws(s);
    if (s->pos < s->n && s->t[s->pos] == ']') {
        s->pos++;
        return;
    }
    while (s->pos < s->n && !s->oom) {
        ws(s);
        /* only containers can hold a key: name the element then */
        int nested = s->t[s->pos] == '{' || s->t[s->pos] == '[';
        if (nested)
            jl_strbuf_printf(&s->path, "[%zu]", i);
        value(s);
        if (nested) {
            s->path.len = base;
            if (s->path.data)
                s->path.data[base] = '\0';
        }
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
        while (s->pos < s->n && !strchr(",]} \t\r\n", s->t[s->pos]))
            s->pos++;
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
    scan s = {text, n, 0, 1, {0}, NULL, 0, 0, 0};
    jl_strbuf_init(&s.path);
    jl_strbuf_append(&s.path, "", 0);
    value(&s);
    if (s.path.failed)
        s.oom = 1;
    jl_strbuf_free(&s.path);
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
