/* JSON documents as read-only trees in one arena (json/json_internal.h), built from
 * the streaming reader's tokens. */
#define _POSIX_C_SOURCE 200809L
#include "json/json_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/hash.h"
#include "core/util.h"

/* ---- the arena ---------------------------------------------------------------- */

typedef struct jv_block {
    struct jv_block *next;
    size_t used, cap;
    double data[]; /* aligned for every node field */
} jv_block;

typedef struct jv_arena {
    jv_block *blocks;
    size_t next_cap;
    jl__jv root; /* the tree's root: jl__jv_free() finds the arena from it */
} jv_arena;

static void *aalloc(jv_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    jv_block *b = a->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = a->next_cap > n ? a->next_cap : n;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = a->blocks;
        a->blocks = b;
        if (a->next_cap < (size_t)1 << 24)
            a->next_cap *= 2;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

static jv_arena *arena_new(size_t first)
{
    jv_arena *a = calloc(1, sizeof *a);
    if (a)
        a->next_cap = first < 4096 ? 4096 : first;
    return a;
}

static void arena_free(jv_arena *a)
{
    if (!a)
        return;
    for (jv_block *b = a->blocks, *nb; b; b = nb) {
        nb = b->next;
        free(b);
    }
    free(a);
}

void jl__jv_free(jl__jv *root)
{
    if (root)
        arena_free((jv_arena *)(void *)((char *)root - offsetof(jv_arena, root)));
}

static const char *copy_text(jv_arena *a, const char *s, size_t n)
{
    char *d = aalloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- reading ------------------------------------------------------------------ */

/* 1 when s[0..n) is text jansson takes: no NUL, UTF-8 as its decoder
 * checks it (jl__utf8_next: no overlong form, no surrogate, nothing above
 * U+10FFFF). */
static int text_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
#if defined(__GNUC__)
        if (n - i >= 8) { /* eight ASCII bytes, none NUL, at a time */
            unsigned long long w;
            memcpy(&w, s + i, 8);
            if (!(w & 0x8080808080808080ULL) &&
                !(~(((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | w) &
                  0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
#endif
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x80) {
            i++;
            continue;
        }
        if (c == 0)
            return 0;
        if (c < 0x80) { /* control bytes arrive unescaped only from \u escapes */
            i++;
            continue;
        }
        size_t k = jl__utf8_next(s + i, n - i); /* 0: no well-formed sequence */
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

static int same_key(const jv_member *a, const jv_member *b)
{
    return a->klen == b->klen && !memcmp(a->key, b->key, a->klen);
}

/* 1 when a key stands twice among m[0..n). */
static int has_dup(const jv_member *m, size_t n, uint32_t **tab, size_t *tab_cap)
{
    if (n <= 12) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (same_key(&m[i], &m[j]))
                    return 1;
        return 0;
    }
    size_t cap = 32;
    while (cap < 2 * n)
        cap *= 2;
    if (cap > *tab_cap) {
        uint32_t *t = realloc(*tab, cap * sizeof *t);
        if (!t)
            return 1; /* declined: jansson's path judges */
        *tab = t;
        *tab_cap = cap;
    }
    uint32_t *t = *tab;
    for (size_t i = 0; i < cap; i++)
        t[i] = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)jl__fnv1a_add(JL__FNV1A_INIT, m[i].key, m[i].klen) & (cap - 1);
        for (; t[h] != UINT32_MAX; h = (h + 1) & (cap - 1))
            if (same_key(&m[i], &m[t[h]]))
                return 1;
        t[h] = (uint32_t)i;
    }
    return 0;
}

typedef struct frame {
    jl__jv *node;
    size_t start; /* its children from here in the pending list */
} frame;

jl__jv *jl__jv_parse(const char *text, size_t len)
{
    jv_arena *a = arena_new(len + len / 2);
    if (!a)
        return NULL;
    js p;
    jl__jstream_init_mem(&p, text, len, len);
    frame stack[sizeof p.stack + 1];
    int depth = 0, ok = 0, have_root = 0;
    jv_member *pend = NULL; /* the children of the open containers */
    size_t np = 0, cap_p = 0, tab_cap = 0;
    uint32_t *tab = NULL;
    const char *key = NULL;
    size_t klen = 0;
    for (;;) {
        jl__jstream_tok t = jl__jstream_next(&p);
        if (t == JS_ERROR)
            break;
        if (t == JS_EOF) {
            ok = have_root && depth == 0;
            break;
        }
        if (t == JS_KEY) {
            if (!text_ok((const unsigned char *)p.str, p.slen) ||
                !(key = copy_text(a, p.str, p.slen)))
                break;
            klen = p.slen;
            continue;
        }
        if (t == JS_OBJ_END || t == JS_ARR_END) {
            frame f = stack[--depth];
            size_t n = np - f.start;
            f.node->n = n;
            if (t == JS_OBJ_END) {
                f.node->u.m = n ? aalloc(a, n * sizeof(jv_member)) : NULL;
                if (n && (!f.node->u.m || has_dup(pend + f.start, n, &tab, &tab_cap)))
                    break;
                if (n)
                    memcpy(f.node->u.m, pend + f.start, n * sizeof(jv_member));
            } else {
                f.node->u.items = n ? aalloc(a, n * sizeof(jl__jv *)) : NULL;
                if (n && !f.node->u.items)
                    break;
                for (size_t i = 0; i < n; i++)
                    f.node->u.items[i] = pend[f.start + i].v;
            }
            np = f.start;
            continue;
        }
        int container = t == JS_OBJ_START || t == JS_ARR_START;
        jl__jv *v;
        if (!have_root) { /* the top: an object or an array, as json_loadb() wants */
            if (!container)
                break;
            v = &a->root;
            have_root = 1;
        } else if (!(v = aalloc(a, sizeof *v))) {
            break;
        }
        v->n = 0;
        switch (t) {
        case JS_OBJ_START: v->type = JV_OBJECT; break;
        case JS_ARR_START: v->type = JV_ARRAY; break;
        case JS_STR:
            v->type = JV_STRING;
            v->n = p.slen;
            if (!text_ok((const unsigned char *)p.str, p.slen) ||
                !(v->u.s = copy_text(a, p.str, p.slen)))
                goto done;
            break;
        case JS_NUM:
            if (p.num_kind == 1) {
                v->type = JV_INTEGER;
                v->u.i = p.num_int;
            } else if (p.num_kind == 2 || isinf(p.num)) {
                goto done; /* jansson refuses it: its message */
            } else {
                v->type = JV_REAL;
                v->u.r = p.num;
            }
            break;
        case JS_TRUE: v->type = JV_TRUE; break;
        case JS_FALSE: v->type = JV_FALSE; break;
        default: v->type = JV_NULL; break;
        }
        if (depth > 0) {
            if (np == cap_p) {
                size_t nc = cap_p ? 2 * cap_p : 256;
                jv_member *q = realloc(pend, nc * sizeof *q);
                if (!q)
                    break;
                pend = q;
                cap_p = nc;
            }
            int in_obj = stack[depth - 1].node->type == JV_OBJECT;
            pend[np++] = (jv_member){in_obj ? key : NULL, in_obj ? klen : 0, v};
        }
        if (container)
            stack[depth++] = (frame){v, np};
    }
done:
    free(pend);
    free(tab);
    jl__jstream_free(&p);
    if (!ok) {
        arena_free(a);
        return NULL;
    }
    return &a->root;
}

/* ---- to and from jansson ----------------------------------------------------------- */

static int from_json(jv_arena *a, const json_t *j, jl__jv *v)
{
    v->n = 0;
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        v->type = JV_OBJECT;
        v->n = json_object_size(j);
        v->u.m = v->n ? aalloc(a, v->n * sizeof(jv_member)) : NULL;
        if (v->n && !v->u.m)
            return -1;
        const char *k;
        json_t *x;
        size_t i = 0;
        json_object_foreach((json_t *)j, k, x) {
            jv_member *m = &v->u.m[i++];
            m->klen = strlen(k);
            if (!(m->key = copy_text(a, k, m->klen)) || !(m->v = aalloc(a, sizeof(jl__jv))) ||
                from_json(a, x, m->v))
                return -1;
        }
        return 0;
    }
    case JSON_ARRAY:
        v->type = JV_ARRAY;
        v->n = json_array_size(j);
        v->u.items = v->n ? aalloc(a, v->n * sizeof(jl__jv *)) : NULL;
        if (v->n && !v->u.items)
            return -1;
        for (size_t i = 0; i < v->n; i++)
            if (!(v->u.items[i] = aalloc(a, sizeof(jl__jv))) ||
                from_json(a, json_array_get(j, i), v->u.items[i]))
                return -1;
        return 0;
    case JSON_STRING:
        v->type = JV_STRING;
        v->n = json_string_length(j);
        return (v->u.s = copy_text(a, json_string_value(j), v->n)) ? 0 : -1;
    case JSON_INTEGER:
        v->type = JV_INTEGER;
        v->u.i = (long long)json_integer_value(j);
        return 0;
    case JSON_REAL:
        v->type = JV_REAL;
        v->u.r = json_real_value(j);
        return 0;
    case JSON_TRUE: v->type = JV_TRUE; return 0;
    case JSON_FALSE: v->type = JV_FALSE; return 0;
    default: v->type = JV_NULL; return 0;
    }
}

jl__jv *jl__jv_from_json(const json_t *j)
{
    jv_arena *a = j ? arena_new(65536) : NULL;
    if (!a)
        return NULL;
    if (from_json(a, j, &a->root)) {
        arena_free(a);
        return NULL;
    }
    return &a->root;
}

json_t *jl__jv_to_json(const jl__jv *v)
{
    switch (v->type) {
    case JV_OBJECT: {
        json_t *o = json_object();
        for (size_t i = 0; o && i < v->n; i++)
            if (json_object_setn_new_nocheck(o, v->u.m[i].key, v->u.m[i].klen,
                                             jl__jv_to_json(v->u.m[i].v))) {
                json_decref(o);
                return NULL;
            }
        return o;
    }
    case JV_ARRAY: {
        json_t *arr = json_array();
        for (size_t i = 0; arr && i < v->n; i++)
            if (json_array_append_new(arr, jl__jv_to_json(v->u.items[i]))) {
                json_decref(arr);
                return NULL;
            }
        return arr;
    }
    case JV_STRING: return json_stringn_nocheck(v->u.s, v->n);
    case JV_INTEGER: return json_integer((json_int_t)v->u.i);
    case JV_REAL: return json_real(v->u.r);
    case JV_TRUE: return json_true();
    case JV_FALSE: return json_false();
    default: return json_null();
    }
}
