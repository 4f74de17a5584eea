/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/check.h"
#include "json/json_internal.h"

char *jl_check_document_text(const jl_summary_list *l, const jl_ruleset *rs,
                             const jl_descriptors *desc, const jl_error_list *errors,
                             size_t *n_failed_runs, size_t *len)
{
    return jl__json_text_of(jl_check_document(l, rs, desc, errors, n_failed_runs), len);
}
