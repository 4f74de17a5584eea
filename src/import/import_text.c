/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/import.h"
#include "json/json_internal.h"

char *jl_import_document_text(const jl_import_result *r, const char *format, const char *output,
                              size_t *len)
{
    return jl__json_text_of(jl_import_document(r, format, output), len);
}
