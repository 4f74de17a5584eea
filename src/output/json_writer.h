/* A JSON writer with two backends (src/output/json_dump.c): one emitter
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
#ifndef JOULES_OUTPUT_JSON_WRITER_H
#define JOULES_OUTPUT_JSON_WRITER_H

#include <jansson.h>
#include <stddef.h>

#include "joules/error.h"

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

/* doc with "provenance" (jl_output_provenance) when it is a joules.*\/N
 * document without one and the hook gives a block: a shallow copy, the
 * caller's reference; else NULL (write doc as it is). */
json_t *jl__with_provenance(const json_t *doc);

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
/* The text jl_json_dump writes for fn's document with "errors" (the list as
 * jl_errors_to_json; NULL: an empty list), without building its tree; *len
 * (may be NULL) its length. NULL on out of memory. */
char *jl__jw_document_text(jl__jw_document_fn fn, const void *result,
                           const struct jl_summary_list *l, const jl_error_list *errors,
                           size_t *len);
/* That text written whole to path ("-" = stdout). */
jl_status jl__jw_write_document(const char *path, jl__jw_document_fn fn, const void *result,
                                const struct jl_summary_list *l, const jl_error_list *errors,
                                jl_error **err);

#endif
