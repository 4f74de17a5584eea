/* The text variants of this folder's whole documents: the bytes
 * jl_json_dump writes for each jl_*_document() tree (sorted keys, two
 * spaces, fixed precision, trailing newline; no provenance block), for a
 * program that does not include jansson.h (docs/library.md, "Stable and
 * experimental"). */
#include "joules/diagnose.h"
#include "joules/explain.h"
#include "joules/model.h"
#include "json/json_internal.h"

char *jl_diagnose_document_text(const jl_diagnosis *x, size_t *len)
{
    return jl__json_text_of(jl_diagnose_document(x), len);
}

char *jl_explain_document_text(const jl_explanation *x, size_t *len)
{
    return jl__json_text_of(jl_explain_document(x), len);
}

char *jl_model_set_fit_document_text(const jl_model_set *m, size_t n_grid, const jl_loo_result *loo,
                                     const jl_loo_result *anchor_loo,
                                     const jl_whatif_loo *whatif_loo, size_t *len)
{
    return jl__json_text_of(jl_model_set_fit_document(m, n_grid, loo, anchor_loo, whatif_loo), len);
}

char *jl_fit_document_text(jl_group_fit *const *fits, size_t n, const jl_model_options *opt,
                           size_t n_grid, const jl_loo_result *loo, const jl_loo_result *anchor_loo,
                           const jl_model_group_list *groups, size_t *len)
{
    return jl__json_text_of(jl_fit_document(fits, n, opt, n_grid, loo, anchor_loo, groups), len);
}

char *jl_predict_document_text(const jl_group_fit *fit, const jl_prediction *pred, size_t n,
                               size_t *len)
{
    return jl__json_text_of(jl_predict_document(fit, pred, n), len);
}

char *jl_whatif_document_text(const jl_whatif *w, const jl_model_group_list *gl, size_t *len)
{
    return jl__json_text_of(jl_whatif_document(w, gl), len);
}
