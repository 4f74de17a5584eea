/* JSON documents without a file: the errors list, a document emitter's
 * tree (through the writer of json_internal.h), a document's text with
 * sorted keys and fixed precision. Writing them to files, with the
 * provenance block, is the output kit's (src/output/document.c). */
#include <stdlib.h>
#include <string.h>

#include "joules/json.h"
#include "json/json_internal.h"

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

char *jl__json_text_of(json_t *doc, size_t *len)
{
    char *s = doc ? jl_json_dump(doc) : NULL;
    json_decref(doc);
    if (len)
        *len = s ? strlen(s) : 0;
    return s;
}
