/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/choice.h"
#include "json/json_internal.h"

char *jl_pick_document_text(const jl_pick_set *ps, const jl_summary_list *l, size_t *len)
{
    return jl__json_text_of(jl_pick_document(ps, l), len);
}

char *jl_compare_document_text(const jl_compare_result *r, const jl_summary_list *l, size_t *len)
{
    return jl__json_text_of(jl_compare_document(r, l), len);
}

char *jl_precision_document_text(const jl_precision_result *r, const jl_summary_list *l,
                                 size_t *len)
{
    return jl__json_text_of(jl_precision_document(r, l), len);
}

char *jl_capacity_document_text(const jl_capacity_result *r, const jl_summary_list *l, size_t *len)
{
    return jl__json_text_of(jl_capacity_document(r, l), len);
}
