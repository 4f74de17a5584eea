/* Documents written whole: a document emitter's text with "errors" and the
 * provenance block, and a document (text or tree) written atomically. The
 * JSON itself is src/json/'s; here are the hook and the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/output.h"
#include "output/document_internal.h"

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
        const json_t *prov = jl_output_provenance(); /* joules/output.h */
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
