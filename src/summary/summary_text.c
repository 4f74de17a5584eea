/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/summary.h"
#include "json/json_internal.h"

char *jl_summary_document_text(const jl_summary_list *l, const jl_error_list *errors, size_t *len)
{
    return jl__json_text_of(jl_summary_document(l, errors), len);
}
