/* The joules.predict/1 document (`joules predict --json`): a prediction
 * at batch sizes of one group, or a what-if configuration (docs/model.md
 * "joules predict"). */
#include <stdlib.h>

#include "joules/model.h"
#include "joules/output.h"
#include "model/model_internal.h"

json_t *jl_predict_document(const jl_group_fit *fit, const jl_prediction *pred, size_t n)
{
    json_t *doc = json_object(), *arr = json_array(), *go = json_object();
    char *k = jl_group_key_format(&fit->key);
    json_object_set_new(doc, "schema", json_string("joules.predict/1"));
    json_object_set_new(go, "group", k ? json_string(k) : json_null());
    free(k);
    json_object_set_new(go, "method", json_string(jl_fit_method_name(fit->method)));
    json_object_set_new(go, "note", fit->note ? json_string(fit->note) : json_null());
    json_object_set_new(go, "intervals", json_boolean(fit->method == JL_FIT_MODEL && fit->has_ci));
    json_object_set_new(go, "intervals_note",
                        fit->ci_note ? json_string(fit->ci_note) : json_null());
    json_object_set_new(go, "correction", json_boolean(fit->has_correction));
    json_object_set_new(go, "batch_min", jl_json_number(fit->batch_min));
    json_object_set_new(go, "batch_max", jl_json_number(fit->batch_max));
    json_object_set_new(go, "batch_per_cap", jl_json_number(fit->batch_per_cap));
    json_object_set_new(go, "ceiling_batch", jl_json_number(fit->batch_ceiling));
    json_object_set_new(go, "ceiling_reason", json_string(fit->ceiling_reason));
    json_object_set_new(go, "pool_weight", jl_json_number(fit->pool_weight));
    json_object_set_new(go, "pool_siblings", json_integer((json_int_t)fit->pool_n_siblings));
    json_object_set_new(doc, "group", go);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, jl_prediction_to_json(&pred[i]));
    json_object_set_new(doc, "predictions", arr);
    return doc;
}

json_t *jl_whatif_document(const jl_whatif *w, const jl_model_group_list *gl)
{
    json_t *doc = json_object(), *src = json_array(), *pts = json_array();
    char *k = jl_group_key_format(&w->target);
    json_object_set_new(doc, "schema", json_string("joules.predict/1"));
    json_object_set_new(doc, "what_if", json_true());
    json_object_set_new(doc, "group", k ? json_string(k) : json_null());
    free(k);
    json_object_set_new(doc, "transfer", json_string(jl_transfer_name(w->transfer)));
    for (size_t i = 0; i < w->n_sources; i++) {
        char *s = jl_group_key_format(&gl->items[w->sources[i]].key);
        json_array_append_new(src, s ? json_string(s) : json_null());
        free(s);
    }
    json_object_set_new(doc, "sources", src);
    json_object_set_new(doc, "factor_pairs", json_integer((json_int_t)w->n_pairs));
    json_object_set_new(doc, "factor_pairs_of_this_kind",
                        json_integer((json_int_t)w->n_pairs_kind));
    json_object_set_new(doc, "factor_models_of_this_kind",
                        json_integer((json_int_t)w->n_models_kind));
    json_object_set_new(doc, "gpu_model_pairs", json_integer((json_int_t)w->n_gpu_pair));
    json_object_set_new(doc, "gpu_model_pair_models",
                        json_integer((json_int_t)w->n_gpu_pair_models));
    json_object_set_new(doc, "gpu_pair_sd_ln", jl_json_number(w->gpu_pair_sd));
    json_object_set_new(doc, "roofline_route", json_boolean(w->roofline));
    json_object_set_new(doc, "memory_ceiling", jl_json_number(w->memory_ceiling));
    json_object_set_new(doc, "memory_ceiling_assumed", json_boolean(w->memory_assumed));
    for (size_t i = 0; i < w->n_points; i++) {
        const jl_whatif_point *p = &w->points[i];
        json_t *o = json_object();
        json_object_set_new(o, "max_batch_size", json_integer((json_int_t)p->cap));
        json_object_set_new(o, "batch", jl_json_number(p->batch));
        json_object_set_new(o, "energy_per_token_j", jl_interval_to_json(&p->energy_per_token_j));
        json_object_set_new(o, "power_w", jl_interval_to_json(&p->power_w));
        json_object_set_new(o, "step_time_s", jl_interval_to_json(&p->step_time_s));
        json_object_set_new(o, "throughput_tok_s", jl_json_number(p->throughput_tok_s));
        json_object_set_new(o, "beyond_ceiling", json_boolean(p->beyond_ceiling));
        json_object_set_new(o, "unlocked", json_boolean(p->unlocked));
        json_object_set_new(o, "extrapolated", json_boolean(p->extrapolated));
        json_object_set_new(o, "n_sources", json_integer((json_int_t)p->n_sources));
        json_object_set_new(o, "reference_route", json_boolean(p->reference));
        json_object_set_new(o, "interval_calibration_points",
                            json_integer((json_int_t)p->calibrated));
        json_object_set_new(o, "interval_widened", jl__whatif_widened_json(p->widened));
        json_object_set_new(o, "interval_widening_sd_ln", jl_json_number(p->widen_sd));
        json_object_set_new(o, "interval_least_half_width_ln", jl_json_number(p->widen_floor));
        json_object_set_new(o, "extrapolation_ln_cap", jl_json_number(p->extrapolation));
        json_array_append_new(pts, o);
    }
    json_object_set_new(doc, "predictions", pts);
    return doc;
}
