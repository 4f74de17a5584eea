/* json_tree.h — a JSON document in memory as a read-only tree in one
 * arena, read by the streaming reader (json_stream.c): what the ML.ENERGY
 * Leaderboard importer walks (docs/import.md, "Speed"). jansson's decoder
 * reads a character at a time and builds a hash table per object, and its
 * trees are freed a node at a time: two thirds of that import's
 * instructions. Here a document is a few allocations, objects are their
 * members in the file's order (looked up by length and bytes), numbers are
 * integers (exact, as json_int_t) or reals as jansson reads them, and a
 * whole tree goes with one jl__jv_free().
 *
 * jl__jv_parse() declines (NULL) whatever it would not read exactly as
 * json_loadb(text, len, 0, ...): any syntax error, a key given twice, a
 * string with a NUL or with bytes that are not UTF-8, an integer beyond
 * json_int_t, a real that overflows, a scalar at the top, nesting deeper
 * than the reader's 256 levels, out of memory. The caller then runs
 * jansson (its error message; the duplicate-key report, src/import/
 * json_dups.c) and takes its tree with jl__jv_from_json(). The accessors
 * mirror jansson's and accept NULL as jansson's do. Internal to src/import/.
 */
#ifndef JOULES_IMPORT_JSON_TREE_H
#define JOULES_IMPORT_JSON_TREE_H

#include <jansson.h>
#include <stddef.h>
#include <string.h>

typedef enum {
    JV_OBJECT,
    JV_ARRAY,
    JV_STRING,
    JV_INTEGER,
    JV_REAL,
    JV_TRUE,
    JV_FALSE,
    JV_NULL
} jv_type;

typedef struct jl__jv jl__jv;
typedef struct jv_member {
    const char *key; /* NUL-terminated */
    size_t klen;
    jl__jv *v;
} jv_member;

struct jl__jv {
    jv_type type;
    size_t n; /* members, elements, or the string's length */
    union {
        jv_member *m;   /* JV_OBJECT, in the text's order */
        jl__jv **items; /* JV_ARRAY */
        const char *s;  /* JV_STRING, NUL-terminated */
        long long i;    /* JV_INTEGER */
        double r;       /* JV_REAL */
    } u;
};

jl__jv *jl__jv_parse(const char *text, size_t len);
/* jansson's tree as a jl__jv tree (NULL when out of memory). */
jl__jv *jl__jv_from_json(const json_t *j);
/* v as a jansson tree (for jl_json_dumps); NULL when out of memory. */
json_t *jl__jv_to_json(const jl__jv *v);
/* Free a tree: only a root that jl__jv_parse() or jl__jv_from_json()
 * returned (NULL accepted). */
void jl__jv_free(jl__jv *root);

static inline jv_type jv_typeof(const jl__jv *v)
{
    return v->type;
}
static inline int jv_is_object(const jl__jv *v)
{
    return v && v->type == JV_OBJECT;
}
static inline int jv_is_array(const jl__jv *v)
{
    return v && v->type == JV_ARRAY;
}
static inline int jv_is_string(const jl__jv *v)
{
    return v && v->type == JV_STRING;
}
static inline int jv_is_integer(const jl__jv *v)
{
    return v && v->type == JV_INTEGER;
}
static inline int jv_is_real(const jl__jv *v)
{
    return v && v->type == JV_REAL;
}
static inline int jv_is_number(const jl__jv *v)
{
    return v && (v->type == JV_INTEGER || v->type == JV_REAL);
}
static inline int jv_is_true(const jl__jv *v)
{
    return v && v->type == JV_TRUE;
}
static inline int jv_is_boolean(const jl__jv *v)
{
    return v && (v->type == JV_TRUE || v->type == JV_FALSE);
}
static inline int jv_is_null(const jl__jv *v)
{
    return v && v->type == JV_NULL;
}
static inline const char *jv_string_value(const jl__jv *v)
{
    return jv_is_string(v) ? v->u.s : NULL;
}
static inline long long jv_integer_value(const jl__jv *v)
{
    return jv_is_integer(v) ? v->u.i : 0;
}
static inline double jv_real_value(const jl__jv *v)
{
    return jv_is_real(v) ? v->u.r : 0.0;
}
static inline double jv_number_value(const jl__jv *v)
{
    return jv_is_integer(v) ? (double)v->u.i : jv_real_value(v);
}
static inline size_t jv_array_size(const jl__jv *v)
{
    return jv_is_array(v) ? v->n : 0;
}
static inline jl__jv *jv_array_get(const jl__jv *v, size_t i)
{
    return jv_is_array(v) && i < v->n ? v->u.items[i] : NULL;
}
static inline size_t jv_object_size(const jl__jv *v)
{
    return jv_is_object(v) ? v->n : 0;
}
static inline jl__jv *jv_object_get(const jl__jv *v, const char *key)
{
    if (!jv_is_object(v) || !key)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < v->n; i++)
        if (v->u.m[i].klen == kl && !memcmp(v->u.m[i].key, key, kl))
            return v->u.m[i].v;
    return NULL;
}
/* for (each member) with key (const char *) and value (jl__jv *) set */
#define jv_object_foreach(obj, k_, v_)                                              \
    for (size_t jv_i_ = 0;                                                          \
         jv_is_object(obj) && jv_i_ < (obj)->n &&                                   \
         ((k_) = (obj)->u.m[jv_i_].key, (v_) = (obj)->u.m[jv_i_].v, (void)(v_), 1); \
         jv_i_++)

#endif
