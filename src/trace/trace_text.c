/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/trace.h"
#include "json/json_internal.h"

char *jl_inspect_document_text(const char *const *files, size_t n_files, jl_error_list *errors,
                               size_t *n_ok, size_t *n_bad, size_t *len)
{
    return jl__json_text_of(jl_inspect_document(files, n_files, errors, n_ok, n_bad), len);
}
