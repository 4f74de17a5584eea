/* json_internal.h — the one internal header of src/json/, the JSON room
 * (docs/architecture.md, "Layers"): reading (json_stream.c, a pull parser;
 * json_tree.c, read-only trees in one arena; json_dups.c, repeated keys
 * with their lines) and writing (json_dump.c, jl_json_dumps and the writer
 * with a text and a tree backend; json_doc.c, the errors list and a
 * document as text). src/json/ sits on core only, so that the importers
 * (reading) and the output kit and every document builder (writing) may
 * call it. Not public API: the public part is joules/json.h. */
#ifndef JOULES_JSON_JSON_INTERNAL_H
#define JOULES_JSON_JSON_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "joules/error.h"

/* ---- Reading: the streaming pull parser (json_stream.c) ---- */
/* The streaming pull parser (json_stream.c): a small parser for JSON read from a file in chunks
 * (docs/import.md, "Why a streaming parser of our own"). Memory is the
 * read buffer plus the longest string or number the caller asks to keep;
 * values the caller does not want (prompt and output texts of tens of MB)
 * are skipped without being copied: strings are scanned with memchr.
 *
 * Errors (syntax, truncation, I/O, size limits) name the line and column;
 * after one, every call returns JS_ERROR.
 */

typedef enum {
    JS_ERROR = 0,
    JS_OBJ_START, /* '{' */
    JS_OBJ_END,
    JS_ARR_START,
    JS_ARR_END,
    JS_KEY, /* an object key: text in js->str */
    JS_STR, /* a string value: text in js->str (len js->len) */
    JS_NUM, /* a number: value in js->num */
    JS_TRUE,
    JS_FALSE,
    JS_NULL,
    JS_EOF
} jl__jstream_tok;

typedef struct js {
    FILE *f;              /* NULL: parsing a buffer in memory */
    char *buf;            /* read buffer (owned when f != NULL) */
    size_t cap, pos, len; /* buffer: [pos, len) unread */
    long long line, col0; /* line number; byte offset of the line start */
    long long off;        /* file offset of buf[0] */
    char *str;            /* last string / key (NUL-terminated, owned) */
    size_t slen, scap, max_str;
    double num;
    int num_kind; /* the last number: 1 written as an integer (no '.', no
                               * exponent) that fits in num_int, 2 an integer that does
                               * not, 0 otherwise */
    long long num_int;
    int depth;
    unsigned char stack[256]; /* '{' or '[' per level */
    int need_value;           /* after a key or ',' in an array, or at the top */
    int after_value;          /* a value ended: ',' or a closer may follow */
    int done_top;
    int skip_bs; /* parity of backslashes ending the last chunk of a skipped string */
    char err[200];
    /* what went wrong when the FILE reports an error (a stream behind a
     * cookie, e.g. gzip's CRC): NULL, or the cause in words */
    const char *(*read_why)(void *ctx);
    void *read_ctx;
} js;

/* Parse a file (opened by the caller) or a buffer in memory. max_str:
 * longest string kept (longer ones are an error unless skipped). */
void jl__jstream_init_file(js *p, FILE *f, size_t chunk, size_t max_str);
void jl__jstream_init_mem(js *p, const char *text, size_t len, size_t max_str);
void jl__jstream_free(js *p);

jl__jstream_tok jl__jstream_next(js *p);
/* Inside an array (after its '['): the next element when it is a number
 * (1, *out set), 0 at the closing ']' (consumed), -2 when the element is
 * something else (nothing consumed: read it with jl__jstream_next), -1 on error. The
 * fast path for long arrays of numbers. */
int jl__jstream_array_number(js *p, double *out);
/* jl__jstream_array_number for up to max elements at once, into out[]:
 * *got numbers read, and what ended the batch: 1 max reached, or a number
 * that is negative or not finite (the last one, the parser just after it,
 * so that a caller rejecting it names the right place), 0 the closing ']',
 * -2 an element that is not a number, -1 an error. The same values and
 * errors, element by element, as jl__jstream_array_number. */
int jl__jstream_array_numbers(js *p, double *out, size_t max, size_t *got);
/* Inside an array, after an element: the common case of the next
 * element being [number, "string"] (a Prometheus sample), read at once
 * when ',' '[' the number ',' and the string without escapes or control
 * bytes, of at most *len bytes, are whole in the buffer: 1 with *num, and
 * *str and *len the string's
 * bytes in the read buffer (valid until the next call, not NUL-ended), the
 * parser then just after the string, inside the pair (its ']' read with
 * jl__jstream_next) — the state, value and errors of reading those tokens
 * one by one. 0: not that shape here (nothing consumed: read it token by
 * token); -1: a bad number (the error set, as jl__jstream_next sets it). */
int jl__jstream_num_str(js *p, double *num, const char **str, size_t *len);
/* Skip the next value whole (after a key, or an array element). Returns
 * 0, or -1 on error. */
int jl__jstream_skip(js *p);
/* Skip the rest of an object or array whose '{' or '[' was just read
 * (jl__jstream_next returned JS_OBJ_START or JS_ARR_START). 0 or -1. */
int jl__jstream_skip_open(js *p);
/* Where the parser is (1-based line and column of the next byte). */
long long jl__jstream_line(const js *p);
long long jl__jstream_col(const js *p);
const char *jl__jstream_tok_name(jl__jstream_tok t);

/* ---- Reading: trees in one arena (json_tree.c) ---- */
/* Trees (json_tree.c): a JSON document in memory as a read-only tree in one
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
 * jansson (its error message; the duplicate-key report, src/json/
 * json_dups.c) and takes its tree with jl__jv_from_json(). The accessors
 * mirror jansson's and accept NULL as jansson's do.
 */

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

/* ---- Reading: repeated keys (json_dups.c) ---- */
/* Duplicate keys in JSON objects, with line numbers (internal to the
 * importers).
 *
 * jansson either rejects a document with a duplicate key outright
 * (JSON_REJECT_DUPLICATES, no line of the second key) or keeps the last
 * value silently; published data (ML.ENERGY Leaderboard commits 866faaa and
 * e0ba9ed) repeats keys with the same value, which Python's json accepts.
 * jl__json_find_dups() scans a text that jansson has already parsed (so it
 * is valid JSON) and lists every key given more than once in one object:
 * its path (`configurations[3].weight_precision`), the lines of the first
 * and the repeated occurrence, and whether the two values are equal JSON
 * (jansson's json_equal; numbers by value, so `2`, `2.0` and `2.00` are
 * equal, as in Python; nested values by json_equal). */

typedef struct jl__json_dup {
    char *path;      /* the repeated member's path, e.g. configurations[3].weight_precision */
    char *key;       /* the key (escapes decoded, as jansson reads it) */
    long line_first; /* 1-based lines of the first and the repeated key */
    long line_dup;
    int equal;         /* 1: the two values are equal JSON */
    char *value_first; /* the values as written, cut to 60 bytes */
    char *value_dup;
} jl__json_dup;

/* Scans text[0..n) (valid JSON); *out gets the repeats in text order of the
 * repeated key (NULL when none). 0, or -1 when memory ran out. */
int jl__json_find_dups(const char *text, size_t n, jl__json_dup **out, size_t *n_out);
void jl__json_dups_free(jl__json_dup *d, size_t n);

/* ---- Writing: the writer with two backends (json_dump.c, json_doc.c) ---- */
/* A JSON writer with two backends (src/json/json_dump.c): one emitter
 * function builds either a jansson tree or the document's text directly,
 * the same bytes jl_json_dumps would write for that tree. Not public API.
 *
 * A document too large to build as a tree first (the joules.frontier/1
 * document of a whole study is 4 MB: building, dumping and freeing the tree
 * was most of `joules frontier`) is written straight to text, while the
 * callers that want a tree (--jsonl rows, --names renaming, tests) get one
 * from the same emitter, so the two cannot drift.
 *
 * Objects: jl__jw_key() names the next value. Keys may come in any order;
 * with JSON_SORT_KEYS the text backend sorts each object's members when it
 * closes (jansson's order: bytes, then length; a repeated key keeps its
 * last value, as json_object_set does). Keys are not copied: each must stay
 * valid until its object is closed, and its bytes must not change while the
 * writer lives (the text backend remembers key lengths by address). Out of memory latches: the finish
 * functions then return NULL. */

/* The summaries a document emitter is handed, passed through untouched (the
 * kit knows no analysis: joules/summary.h). */
struct jl_summary_list;

typedef struct jl__jw jl__jw;

/* Text backend: flags as jl_json_dumps (JSON_SORT_KEYS required; NULL
 * otherwise, or on out of memory). */
jl__jw *jl__jw_text(size_t flags);
/* Tree backend. */
jl__jw *jl__jw_tree(void);

void jl__jw_object(jl__jw *w); /* open an object (the root, an element, or a member's value) */
void jl__jw_array(jl__jw *w);
void jl__jw_end(jl__jw *w); /* close the innermost open container */
void jl__jw_key(jl__jw *w, const char *key);

void jl__jw_string(jl__jw *w, const char *s); /* NULL: null */
void jl__jw_number(jl__jw *w, double v);      /* NaN/inf: null (jl_json_number) */
void jl__jw_integer(jl__jw *w, json_int_t v);
void jl__jw_bool(jl__jw *w, int v);
void jl__jw_null(jl__jw *w);
/* A value that exists as a tree (text: written in place; tree: shared,
 * the caller keeps its reference). NULL: the writer fails (out of memory). */
void jl__jw_json(jl__jw *w, const json_t *v);

/* The root object gets member key = v just before it closes (unless the
 * emitter wrote that key itself: the last value wins); key and v must stay
 * valid until then. The document writers' provenance hook. */
void jl__jw_root_member(jl__jw *w, const char *key, const json_t *v);

/* Text backend only: bytes written so far, and the text (valid until the
 * next write); the depth of open containers. A closed value's bytes never
 * change afterwards (sorting moves whole members), so a caller may keep a
 * copy of them and write it again with jl__jw_raw_value at the same depth
 * (the indentation is part of the text). jl__jw_ok: nothing failed. */
size_t jl__jw_text_len(const jl__jw *w);
const char *jl__jw_text_ptr(const jl__jw *w);
size_t jl__jw_depth(const jl__jw *w);
int jl__jw_ok(const jl__jw *w);
int jl__jw_is_text(const jl__jw *w);
/* The next value as text written before by this writer at the same depth
 * (text backend; the tree backend fails). */
void jl__jw_raw_value(jl__jw *w, const char *text, size_t len);

/* One member: key and value. */
void jl__jw_kstring(jl__jw *w, const char *key, const char *s);
void jl__jw_knumber(jl__jw *w, const char *key, double v);
void jl__jw_kbool(jl__jw *w, const char *key, int v);
/* v >= 0 an integer, else null (counts and sizes that may be unknown) */
void jl__jw_klong(jl__jw *w, const char *key, long v);

/* snprintf(buf, size, "%.*g", p, v), faster for 1 <= p <= 15 (what
 * jl_json_dumps uses for JSON_REAL_PRECISION(p)). */
int jl__format_g(char *buf, size_t size, int p, double v);

/* The text with a trailing newline (jl_json_dump's bytes); frees w. NULL
 * on failure or when containers are left open. */
char *jl__jw_finish_text(jl__jw *w, size_t *len);
/* The root; frees w. NULL on failure. */
json_t *jl__jw_finish_tree(jl__jw *w);
/* Free without a result (either backend). */
void jl__jw_free(jl__jw *w);

/* A document emitter: writes the document of result (an object), with the
 * member "errors" = errors_json when that is non-NULL. */
typedef void (*jl__jw_document_fn)(jl__jw *w, const void *result, const struct jl_summary_list *l,
                                   const json_t *errors_json);
/* fn's document as a tree, without "errors". NULL on out of memory. */
json_t *jl__jw_document_tree(jl__jw_document_fn fn, const void *result,
                             const struct jl_summary_list *l);
/* jl_json_dump's text of doc, whose reference it takes (frees it); *len
 * (may be NULL) its length. NULL when doc is NULL or memory ran out. The
 * public text variants of the whole-document builders (jl_*_document_text)
 * are this over their builder. */
char *jl__json_text_of(json_t *doc, size_t *len);

/* The text of fn's document with "errors" and the provenance block, and
 * that text written to a file, are the output kit's (src/output/document.c,
 * output/document_internal.h): they call the provenance hook. */

#endif
