/* Energy per request: the fit checked on another run, the
 * joules.request-attribution/1 document, its rows as JSON lines and as CSV
 * (docs/attribute.md, "Per request"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/attribution.h"
#include "joules/output.h"
#include "output/csv_row.h"

jl_status jl_request_attribution_check(jl_request_attribution *a,
                                       const jl_request_attribution *other)
{
    jl_request_check *c = realloc(a->checks, (a->n_checks + 1) * sizeof *c);
    if (!c)
        return JL_ENOMEM;
    a->checks = c;
    c = &a->checks[a->n_checks];
    memset(c, 0, sizeof *c);
    if (!(c->run = jl__strdup(other->run)))
        return JL_ENOMEM;
    a->n_checks++;
    double T = other->window[1] - other->window[0];
    double st = other->static_w * T;
    c->prompt_tokens = other->prompt_tokens;
    c->output_tokens = other->output_tokens;
    c->measured_j = other->window_energy_j;
    c->engine_steps = other->engine_steps;
    c->predicted_dynamic_j = a->fit.j_per_prompt_token * other->prompt_tokens +
                             a->fit.j_per_output_token * other->output_tokens +
                             a->fit.j_per_step * other->engine_steps;
    c->predicted_j = st + c->predicted_dynamic_j;
    c->measured_dynamic_j = c->measured_j - st;
    c->error = c->measured_j != 0 ? c->predicted_j / c->measured_j - 1 : NAN;
    c->dynamic_error =
        c->measured_dynamic_j != 0 ? c->predicted_dynamic_j / c->measured_dynamic_j - 1 : NAN;
    return JL_OK;
}

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v ? v : json_null());
}

json_t *jl_request_row_to_json(const jl_request_attribution *a, const jl_request_row *r)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    if (r->request >= 0)
        set(o, "request", json_integer(r->request));
    else
        set(o, "request_class", json_string(r->key));
    set(o, "requests", json_integer((json_int_t)r->n_requests));
    set(o, "energy_j", jl_json_number(r->energy_j));
    set(o, "prefill_j", jl_json_number(r->prefill_j));
    set(o, "decode_j", jl_json_number(r->decode_j));
    set(o, "static_j", jl_json_number(r->static_j));
    set(o, "energy_interval_j",
        json_pack("[o,o]", jl_json_number(r->energy_lo_j), jl_json_number(r->energy_hi_j)));
    set(o, "share",
        jl_json_number(a->window_energy_j != 0 ? r->energy_j / a->window_energy_j : NAN));
    set(o, "input_tokens", jl_json_number(r->input_tokens));
    set(o, "output_tokens", jl_json_number(r->output_tokens));
    set(o, "start_s", jl_json_number(r->start_s));
    set(o, "finish_s", jl_json_number(r->finish_s));
    set(o, "resident_s", jl_json_number(r->resident_s));
    set(o, "j_per_output_token",
        jl_json_number(r->output_tokens > 0 ? r->energy_j / r->output_tokens : NAN));
    set(o, "step_j", jl_json_number(r->step_j));
    set(o, "steps", jl_json_number(r->steps));
    set(o, "step_share", jl_json_number(r->step_share));
    set(o, "mean_batch", jl_json_number(r->step_share > 0 ? r->steps / r->step_share : NAN));
    return o;
}

static json_t *cost(double v, double lo, double hi)
{
    return json_pack("{s:o,s:[o,o]}", "value", jl_json_number(v), "interval", jl_json_number(lo),
                     jl_json_number(hi));
}

json_t *jl_request_attribution_document(const jl_request_attribution *a)
{
    json_t *d = json_object(), *rows = json_array(), *checks = json_array();
    if (!d || !rows || !checks) {
        json_decref(d), json_decref(rows), json_decref(checks);
        return NULL;
    }
    set(d, "schema", json_string("joules.request-attribution/1"));
    set(d, "file", json_string(a->file));
    set(d, "run", json_string(a->run));
    set(d, "by", json_string(a->by == JL_REQUESTS_BY_CLASS ? "request-class" : "request"));
    set(d, "window",
        json_pack("[o,o]", jl_json_number(a->window[0]), jl_json_number(a->window[1])));
    set(d, "boundary",
        json_pack("{s:s,s:s}", "window", a->window_custom ? "custom" : "requests", "scope", "gpu"));
    set(d, "window_energy_j", jl_json_number(a->window_energy_j));
    set(d, "energy_source", json_string(a->energy_source));
    set(d, "gpus", json_integer((json_int_t)a->n_gpus));
    for (size_t i = 0; i < a->n_rows; i++)
        json_array_append_new(rows, jl_request_row_to_json(a, &a->rows[i]));
    set(d, "rows", rows);
    set(d, "attributed_j", jl_json_number(a->attributed_j));
    set(d, "unattributed",
        json_pack("{s:o,s:o,s:o}", "energy_j", jl_json_number(a->unattributed_j), "static_j",
                  jl_json_number(a->unattributed_static_j), "dynamic_j",
                  jl_json_number(a->unattributed_dynamic_j)));
    set(d, "residual_j", jl_json_number(a->residual_j));
    set(d, "static",
        json_pack("{s:o,s:o,s:s}", "w", jl_json_number(a->static_w), "relative_unc",
                  jl_json_number(a->static_unc), "source",
                  a->static_source ? a->static_source : ""));
    set(d, "fit",
        json_pack("{s:o,s:o,s:o,s:o,s:i,s:b,s:s}", "j_per_prompt_token",
                  cost(a->fit.j_per_prompt_token, a->fit.j_per_prompt_token_lo,
                       a->fit.j_per_prompt_token_hi),
                  "j_per_output_token",
                  cost(a->fit.j_per_output_token, a->fit.j_per_output_token_lo,
                       a->fit.j_per_output_token_hi),
                  "j_per_step", cost(a->fit.j_per_step, a->fit.j_per_step_lo, a->fit.j_per_step_hi),
                  "r2", jl_json_number(a->fit.r2), "intervals", (json_int_t)a->fit.n_intervals,
                  "identified", a->fit.identified, "how", a->fit.note ? a->fit.note : ""));
    set(d, "work",
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:i,s:i}", "prompt_tokens",
                  jl_json_number(a->prompt_tokens), "output_tokens",
                  jl_json_number(a->output_tokens), "engine_steps", jl_json_number(a->engine_steps),
                  "prompt_tokens_outside", jl_json_number(a->prompt_tokens_outside),
                  "output_tokens_outside", jl_json_number(a->output_tokens_outside), "requests",
                  (json_int_t)a->n_requests, "requests_skipped",
                  (json_int_t)a->n_requests_skipped));
    set(d, "approximations",
        json_pack("{s:s,s:s}", "prefill", a->prefill_source, "decode", a->decode_source));
    set(d, "coverage",
        json_pack("{s:o,s:o,s:o,s:o}", "run_j", jl_json_number(a->run_j), "window_share",
                  jl_json_number(a->window_share), "update_period_s",
                  jl_json_number(a->update_period_s), "split_s", jl_json_number(a->split_s)));
    if (a->costliest >= 0 && (size_t)a->costliest < a->n_rows) {
        const jl_request_row *r = &a->rows[a->costliest];
        set(d, "costliest",
            json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "request", (json_int_t)r->request,
                      "j_per_output_token", jl_json_number(r->energy_j / r->output_tokens),
                      "median_j_per_output_token", jl_json_number(a->median_j_per_output_token),
                      "step_j", jl_json_number(r->step_j), "energy_j", jl_json_number(r->energy_j),
                      "mean_batch",
                      jl_json_number(r->step_share > 0 ? r->steps / r->step_share : NAN),
                      "median_mean_batch", jl_json_number(a->median_mean_batch)));
    } else {
        set(d, "costliest", json_null());
    }
    for (size_t i = 0; i < a->n_checks; i++) {
        const jl_request_check *c = &a->checks[i];
        json_array_append_new(
            checks, json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "run", c->run,
                              "measured_j", jl_json_number(c->measured_j), "predicted_j",
                              jl_json_number(c->predicted_j), "error", jl_json_number(c->error),
                              "measured_dynamic_j", jl_json_number(c->measured_dynamic_j),
                              "predicted_dynamic_j", jl_json_number(c->predicted_dynamic_j),
                              "dynamic_error", jl_json_number(c->dynamic_error), "prompt_tokens",
                              jl_json_number(c->prompt_tokens), "output_tokens",
                              jl_json_number(c->output_tokens), "engine_steps",
                              jl_json_number(c->engine_steps)));
    }
    set(d, "checks", checks);
    return d;
}

jl_status jl_request_attribution_write_csv(const jl_request_attribution *a, FILE *f)
{
    static const char *const head[] = {"requests",    "energy_j",     "prefill_j",
                                       "decode_j",    "static_j",     "energy_lo_j",
                                       "energy_hi_j", "input_tokens", "output_tokens",
                                       "start_s",     "finish_s",     "resident_s",
                                       "step_j",      "steps",        "step_share",
                                       NULL};
    jl__csvw w;
    jl__csvw_begin(&w, f);
    jl__csvw_cell(&w, a->by == JL_REQUESTS_BY_CLASS ? "request_class" : "request");
    jl__csvw_cells(&w, head);
    jl__csvw_end(&w);
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_request_row *r = &a->rows[i];
        jl__csvw_cell(&w, r->key);
        jl__csvw_cellf(&w, "%zu", r->n_requests);
        const double v[] = {r->energy_j,    r->prefill_j,   r->decode_j,     r->static_j,
                            r->energy_lo_j, r->energy_hi_j, r->input_tokens, r->output_tokens,
                            r->start_s,     r->finish_s,    r->resident_s,   r->step_j,
                            r->steps,       r->step_share};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            jl__csvw_num(&w, v[k]);
        jl__csvw_end(&w);
    }
    /* the energy no request holds: request, requests empty; energy_j,
     * prefill_j and decode_j (NaN: empty), static_j; the rest empty */
    jl__csvw_cell(&w, "(unattributed)");
    jl__csvw_empty(&w);
    jl__csvw_num(&w, a->unattributed_j);
    jl__csvw_empty(&w);
    jl__csvw_empty(&w);
    jl__csvw_num(&w, a->unattributed_static_j);
    for (int k = 0; k < 10; k++) /* energy_lo_j .. step_share */
        jl__csvw_empty(&w);
    jl__csvw_end(&w);
    return ferror(f) ? JL_EIO : JL_OK;
}
