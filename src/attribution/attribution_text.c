/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/attribution.h"
#include "json/json_internal.h"

char *jl_attribution_document_text(const jl_attribution *a, size_t *len)
{
    return jl__json_text_of(jl_attribution_document(a), len);
}

char *jl_request_attribution_document_text(const jl_request_attribution *a, size_t *len)
{
    return jl__json_text_of(jl_request_attribution_document(a), len);
}
