/* Documents written whole with the provenance block (src/output/document.c,
 * src/output/provenance_hook.c): the output kit's side of the JSON writer
 * of json/json_internal.h, the part that calls the provenance hook and the
 * atomic writer. Not public API. */
#ifndef JOULES_OUTPUT_DOCUMENT_INTERNAL_H
#define JOULES_OUTPUT_DOCUMENT_INTERNAL_H

#include "joules/error.h"
#include "json/json_internal.h"

/* doc with "provenance" (jl_output_provenance) when it is a joules.*\/N
 * document without one and the hook gives a block: a shallow copy, the
 * caller's reference; else NULL (write doc as it is). */
json_t *jl__with_provenance(const json_t *doc);

/* The text jl_json_dump writes for fn's document with "errors" (the list as
 * jl_errors_to_json; NULL: an empty list) and the provenance block when the
 * hook gives one, without building its tree; *len (may be NULL) its length.
 * NULL on out of memory. */
char *jl__jw_document_text(jl__jw_document_fn fn, const void *result,
                           const struct jl_summary_list *l, const jl_error_list *errors,
                           size_t *len);
/* That text written whole to path ("-" = stdout). */
jl_status jl__jw_write_document(const char *path, jl__jw_document_fn fn, const void *result,
                                const struct jl_summary_list *l, const jl_error_list *errors,
                                jl_error **err);

#endif
