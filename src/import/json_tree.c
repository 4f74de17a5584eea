/* jansson trees built from the streaming reader's tokens (json_tree.h).
 *
 * jansson's own decoder reads a character at a time through a stream
 * abstraction, checks UTF-8 everywhere and converts every real with
 * strtod: about two thirds of the ML.ENERGY v3 import's instructions. This
 * builder takes the tokens of json_stream.c (strings scanned a run at a
 * time, numbers by Clinger's exact case) and hands them to jansson's
 * constructors. It declines (NULL) whatever it does not build exactly as
 * json_loadb() would, so that the caller's jansson path gives the same
 * tree or the same error message: any syntax error, a duplicate key (the
 * caller's duplicate report needs the text), a string with a NUL or with
 * UTF-8 that jansson's checked constructors refuse, an integer beyond
 * json_int_t, a real that overflows, a scalar at the top, nesting deeper
 * than the reader's 256 levels. */
#define _POSIX_C_SOURCE 200809L
#include "import/json_tree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/json_stream.h"

/* 1 when s[0..n) is plain ASCII without NUL (the common case: the
 * unchecked constructors apply), 0 when jansson must check it, -1 when it
 * holds a NUL (jansson refuses it: decline). */
static int plain(const char *s, size_t n)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= (unsigned char)s[i];
    if (strlen(s) != n)
        return -1;
    return acc < 0x80;
}

static json_t *scalar(js *p, js_tok t)
{
    switch (t) {
    case JS_STR: {
        int k = plain(p->str, p->slen);
        return k < 0 ? NULL : k ? json_stringn_nocheck(p->str, p->slen) : json_stringn(p->str, p->slen);
    }
    case JS_NUM:
        if (p->num_kind == 1)
            return json_integer((json_int_t)p->num_int);
        if (p->num_kind == 2 || isinf(p->num))
            return NULL;
        return json_real(p->num);
    case JS_TRUE: return json_true();
    case JS_FALSE: return json_false();
    case JS_NULL: return json_null();
    default: return NULL;
    }
}

/* Add v (taken over) to the open container: under key (length klen) in an
 * object, appended in an array. -1 on a duplicate key, a refused key or
 * out of memory. */
static int add(json_t *parent, const char *key, size_t klen, int key_plain, json_t *v)
{
    if (!v)
        return -1;
    if (json_is_array(parent))
        return json_array_append_new(parent, v);
    size_t before = json_object_size(parent);
    int rc = key_plain ? json_object_setn_new_nocheck(parent, key, klen, v)
                       : json_object_setn_new(parent, key, klen, v);
    return rc || json_object_size(parent) == before ? -1 : 0;
}

json_t *jl__json_tree(const char *text, size_t len)
{
    js p;
    js_init_mem(&p, text, len, len);
    json_t *stack[sizeof p.stack + 1];
    int depth = 0;
    json_t *root = NULL;
    char kbuf[256], *key = kbuf;
    size_t klen = 0, kcap = sizeof kbuf;
    int key_plain = 1, ok = 0;
    for (;;) {
        js_tok t = js_next(&p);
        if (t == JS_ERROR)
            break;
        if (t == JS_EOF) {
            ok = root != NULL && depth == 0;
            break;
        }
        if (t == JS_KEY) {
            int k = plain(p.str, p.slen);
            if (k < 0)
                break;
            key_plain = k;
            if (p.slen + 1 > kcap) {
                char *nk = malloc(p.slen + 1);
                if (!nk)
                    break;
                if (key != kbuf)
                    free(key);
                key = nk;
                kcap = p.slen + 1;
            }
            memcpy(key, p.str, p.slen + 1);
            klen = p.slen;
            continue;
        }
        if (t == JS_OBJ_END || t == JS_ARR_END) {
            depth--;
            continue;
        }
        json_t *v = t == JS_OBJ_START ? json_object() : t == JS_ARR_START ? json_array()
                                                                            : scalar(&p, t);
        if (!root) { /* the top: an object or an array, as json_loadb() wants */
            if (!v || !(json_is_object(v) || json_is_array(v))) {
                json_decref(v);
                break;
            }
            root = v;
        } else if (add(stack[depth - 1], key, klen, key_plain, v)) {
            break;
        }
        if (t == JS_OBJ_START || t == JS_ARR_START)
            stack[depth++] = v;
    }
    if (key != kbuf)
        free(key);
    js_free(&p);
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}
