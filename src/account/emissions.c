/* Emissions of a study's runs over their steady-state windows, with the
 * PUE and intensity of the times the energy was used. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "account/account_internal.h"
#include "core/util.h"
#include "joules/carbon.h"
#include "joules/output.h"
#include "joules/study.h"

void jl_emissions_result_free(jl_emissions_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->runs[i].error);
    free(r->runs);
    free(r);
}

static void set_nan(jl_run_emissions *e)
{
    e->t0 = e->t1 = e->energy_kwh = e->facility_kwh = e->pue = NAN;
    e->wh_per_1000_queries = NAN;
    for (int k = 0; k < 2; k++)
        e->intensity[k] = e->g_co2eq[k] = e->g_per_token[k] = e->g_per_request[k] =
            e->g_per_item[k] = NAN;
}

/* The window's samples of s integrated with the series; 0 or an error
 * message (owned). */
static char *one_run(const jl_summary *s, double t0, const jl_emissions_options *o,
                     const jl_tseries *unit_pue, jl_run_emissions *e)
{
    jl_power_series *ps = NULL;
    jl_error *err = NULL;
    jl_status st = jl_study_power_series(s, SIZE_MAX, &ps, &err);
    char *msg = NULL;
    if (st != JL_OK) {
        msg = jl_error_format(err);
        jl_error_free(err);
        return msg ? msg : jl__strdup("cannot read the power samples");
    }
    double w0 = s->fig[JL_FIG_STEADY_START_S], w1 = s->fig[JL_FIG_STEADY_END_S];
    size_t a = 0, b = ps->n;
    while (a < ps->n && isfinite(w0) && ps->time_s[a] < w0)
        a++;
    while (b > a && isfinite(w1) && ps->time_s[b - 1] > w1)
        b--;
    const jl_tseries *pue = o->pue ? o->pue : unit_pue;
    double energy_j = s->fig[JL_FIG_STEADY_ENERGY_J];
    e->energy_kwh = energy_j / 3.6e6;
    e->wh_per_1000_queries = s->fig[JL_FIG_ENERGY_PER_REQUEST_J] * 1000 / 3600;
    for (int k = 0; k < 2; k++) {
        const jl_tseries *in = k ? o->marginal : o->intensity;
        if (!in && k)
            continue;
        jl_tseries *none = in ? NULL : jl_tseries_constant(NAN);
        jl_emissions em;
        st = jl_emissions_integrate(ps->time_s + a, ps->power_w + a, b - a, t0, pue, in ? in : none,
                                    &em, &err);
        jl_tseries_free(none);
        if (st != JL_OK) {
            msg = jl_error_format(err);
            jl_error_free(err);
            jl_power_series_free(ps);
            return msg ? msg : jl__strdup("out of memory");
        }
        e->t0 = em.t0;
        e->t1 = em.t1;
        e->pue = em.pue;
        e->facility_kwh = energy_j * em.pue / 3.6e6;
        if (!in)
            continue;
        /* per unit: J x PUE / 3.6e6 x g/kWh, the order capacity uses */
        e->intensity[k] = em.intensity;
        e->g_co2eq[k] = energy_j * em.pue / 3.6e6 * em.intensity;
        e->g_per_token[k] = s->fig[JL_FIG_ENERGY_PER_TOKEN_J] * em.pue / 3.6e6 * em.intensity;
        e->g_per_request[k] = s->fig[JL_FIG_ENERGY_PER_REQUEST_J] * em.pue / 3.6e6 * em.intensity;
        e->g_per_item[k] = s->fig[JL_FIG_ENERGY_PER_ITEM_J] * em.pue / 3.6e6 * em.intensity;
    }
    jl_power_series_free(ps);
    return NULL;
}

jl_status jl_emissions_study(const jl_summary_list *runs, const jl_emissions_options *opt,
                             jl_emissions_result **out, jl_error **err)
{
    *out = NULL;
    jl_emissions_result *r = calloc(1, sizeof *r);
    jl_tseries *unit = jl_tseries_constant(1);
    if (!r || !unit || !(r->runs = calloc(runs->count ? runs->count : 1, sizeof *r->runs))) {
        jl_emissions_result_free(r);
        jl_tseries_free(unit);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    double first = NAN;
    for (size_t i = 0; i < runs->count; i++) {
        double t = runs->items[i]->attrs.start_time_unix;
        if (isfinite(t) && !(t >= first))
            first = t;
    }
    r->span_t0 = r->span_t1 = r->span_mean = r->cleanest_mean = r->cleanest_start = NAN;
    for (size_t i = 0; i < runs->count; i++) {
        const jl_summary *s = runs->items[i];
        jl_run_emissions *e = &r->runs[r->n++];
        set_nan(e);
        e->run = i;
        double t0 = s->attrs.start_time_unix;
        if (!isnan(opt->start_unix))
            t0 = isfinite(t0) && isfinite(first) ? opt->start_unix + (t0 - first) : opt->start_unix;
        e->error = one_run(s, t0, opt, unit, e);
        if (!e->error && isfinite(e->t0)) {
            if (!(e->t0 >= r->span_t0))
                r->span_t0 = e->t0;
            if (!(e->t1 <= r->span_t1))
                r->span_t1 = e->t1;
        }
    }
    jl_tseries_free(unit);
    if (opt->intensity && !jl_tseries_is_constant(opt->intensity) && r->span_t1 > r->span_t0) {
        double d = r->span_t1 - r->span_t0;
        r->span_mean = jl_tseries_integral(opt->intensity, r->span_t0, r->span_t1) / d;
        r->cleanest_mean =
            jl_tseries_cleanest(opt->intensity, -INFINITY, INFINITY, d, &r->cleanest_start);
    }
    *out = r;
    return JL_OK;
}

static json_t *pair(const double v[2], int marginal)
{
    return marginal ? json_pack("{s:o,s:o}", "average", jl_json_number(v[0]), "marginal",
                                jl_json_number(v[1]))
                    : json_pack("{s:o}", "average", jl_json_number(v[0]));
}

static json_t *iso(double t)
{
    char buf[32];
    return jl__iso_utc(t, buf) ? json_null() : json_string(buf);
}

json_t *jl_emissions_document(const jl_emissions_result *r, const jl_summary_list *runs)
{
    json_t *doc = json_object(), *arr = json_array();
    int bad = !doc || !arr, marg = 0;
    for (size_t i = 0; i < r->n; i++)
        marg |= isfinite(r->runs[i].intensity[1]);
    for (size_t i = 0; !bad && i < r->n; i++) {
        const jl_run_emissions *e = &r->runs[i];
        json_t *o = jl_run_key_to_json(runs->items[e->run]);
        if (!o) {
            bad = 1;
            break;
        }
        json_object_set_new(o, "error", e->error ? json_string(e->error) : json_null());
        json_object_set_new(o, "start", iso(e->t0));
        json_object_set_new(o, "end", iso(e->t1));
        json_object_set_new(o, "energy_kwh", jl_json_number(e->energy_kwh));
        json_object_set_new(o, "facility_kwh", jl_json_number(e->facility_kwh));
        json_object_set_new(o, "pue", jl_json_number(e->pue));
        json_object_set_new(o, "wh_per_1000_queries", jl_json_number(e->wh_per_1000_queries));
        json_object_set_new(o, "intensity_g_per_kwh", pair(e->intensity, marg));
        double kg[2] = {e->g_co2eq[0] / 1000, e->g_co2eq[1] / 1000};
        json_object_set_new(o, "kg_co2eq", pair(kg, marg));
        json_object_set_new(o, "g_co2eq_per_token", pair(e->g_per_token, marg));
        json_object_set_new(o, "g_co2eq_per_request", pair(e->g_per_request, marg));
        json_object_set_new(o, "g_co2eq_per_item", pair(e->g_per_item, marg));
        /* 1,000 queries x g per request / 1,000 g per kg: the same number */
        json_object_set_new(o, "kg_co2eq_per_1000_queries", pair(e->g_per_request, marg));
        bad = json_array_append_new(arr, o);
    }
    if (!bad)
        bad = json_object_set_new(doc, "schema", json_string("joules.emissions/1")) ||
              json_object_set_new(doc, "runs", arr) ||
              json_object_set_new(doc, "sweep",
                                  json_pack("{s:o,s:o,s:o,s:o,s:o}", "start", iso(r->span_t0),
                                            "end", iso(r->span_t1), "mean_intensity_g_per_kwh",
                                            jl_json_number(r->span_mean), "cleanest_start",
                                            iso(r->cleanest_start),
                                            "cleanest_mean_intensity_g_per_kwh",
                                            jl_json_number(r->cleanest_mean)));
    else
        json_decref(arr);
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}
