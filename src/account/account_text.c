/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/budget.h"
#include "joules/carbon.h"
#include "joules/publish.h"
#include "json/json_internal.h"

char *jl_budget_document_text(const jl_budget_result *r, const jl_budgets *b,
                              const jl_summary_list *runs, size_t *len)
{
    return jl__json_text_of(jl_budget_document(r, b, runs), len);
}

char *jl_emissions_document_text(const jl_emissions_result *r, const jl_summary_list *runs,
                                 size_t *len)
{
    return jl__json_text_of(jl_emissions_document(r, runs), len);
}

char *jl_label_document_text(const jl_label_set *ls, const jl_summary_list *runs,
                             const char *slo_text, const char *provenance_sha256, size_t *len)
{
    return jl__json_text_of(jl_label_document(ls, runs, slo_text, provenance_sha256), len);
}
