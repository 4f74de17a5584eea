/* JSON documents of the output kit: the errors list, a document written
 * whole (as text or as a tree, through the writer of json_writer.h), the
 * document's text with sorted keys and fixed precision. The run object is
 * the summary's (src/summary/summary_json.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"
#include "output/json_writer.h"

static int set_str(json_t *o, const char *k, const char *v)
{
    return json_object_set_new(o, k, v ? json_string(v) : json_null());
}

json_t *jl_errors_to_json(const jl_error_list *errors)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    for (size_t i = 0; errors && i < errors->count; i++) {
        const jl_error *e = errors->items[i];
        json_t *o = json_object();
        set_str(o, "file", e->file);
        set_str(o, "run", e->run);
        set_str(o, "object", e->object);
        json_object_set_new(o, "row", e->row >= 0 ? json_integer(e->row) : json_null());
        if (e->line > 0) { /* text inputs only: existing documents keep their keys */
            json_object_set_new(o, "line", json_integer(e->line));
            json_object_set_new(o, "column", e->column > 0 ? json_integer(e->column) : json_null());
        }
        set_str(o, "code", jl_status_name(e->code));
        char *msg = jl_error_format(e);
        set_str(o, "message", msg);
        free(msg);
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *jl__jw_document_tree(jl__jw_document_fn fn, const void *result,
                             const struct jl_summary_list *l)
{
    jl__jw *w = jl__jw_tree();
    if (!w)
        return NULL;
    fn(w, result, l, NULL);
    return jl__jw_finish_tree(w);
}

char *jl__jw_document_text(jl__jw_document_fn fn, const void *result,
                           const struct jl_summary_list *l, const jl_error_list *errors,
                           size_t *len)
{
    json_t *ej = jl_errors_to_json(errors);
    jl__jw *w = ej ? jl__jw_text(JSON_SORT_KEYS | JSON_INDENT(2) |
                                 JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION))
                   : NULL;
    char *text = NULL;
    if (w) {
        const json_t *prov = jl_output_provenance(); /* joules/account.h */
        if (prov)
            jl__jw_root_member(w, "provenance", prov);
        fn(w, result, l, ej);
        text = jl__jw_finish_text(w, len);
    }
    json_decref(ej);
    return text;
}

typedef struct text_buf {
    const char *p;
    size_t len;
} text_buf;

static int print_text(FILE *f, const void *ctx)
{
    const text_buf *t = ctx;
    return fwrite(t->p, 1, t->len, f) != t->len;
}

jl_status jl__jw_write_document(const char *path, jl__jw_document_fn fn, const void *result,
                                const struct jl_summary_list *l, const jl_error_list *errors,
                                jl_error **err)
{
    size_t len = 0;
    char *text = jl__jw_document_text(fn, result, l, errors, &len);
    if (!text)
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "cannot serialise JSON document");
    text_buf t = {text, len};
    jl_status st = jl_write_text(path, print_text, &t, err);
    free(text);
    return st;
}

char *jl_json_dump(const json_t *doc)
{
    char *s = jl_json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(2) |
                                     JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION));
    if (!s)
        return NULL;
    size_t n = strlen(s); /* a plain copy: megabytes through "%s" cost more */
    char *withnl = realloc(s, n + 2);
    if (!withnl) {
        free(s);
        return NULL;
    }
    withnl[n] = '\n';
    withnl[n + 1] = '\0';
    return withnl;
}

static int print_string(FILE *f, const void *ctx)
{
    const char *s = ctx;
    size_t n = strlen(s);
    return fwrite(s, 1, n, f) != n;
}

jl_status jl_write_json(const char *path, const json_t *doc, jl_error **err)
{
    json_t *with = jl__with_provenance(doc);
    char *s = jl_json_dump(with ? with : doc);
    json_decref(with);
    if (!s)
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "cannot serialise JSON document");
    jl_status st = jl_write_text(path, print_string, s, err);
    free(s);
    return st;
}
