/* The joules.attribution/1 document, its rows as JSON lines and as CSV
 * (docs/attribute.md, "Output"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "joules/attribution.h"
#include "joules/output.h"
#include "output/csv_row.h"

static const char *by_name(jl_attribution_by by)
{
    switch (by) {
    case JL_ATTRIBUTION_BY_NAME: return "name";
    case JL_ATTRIBUTION_BY_CLASS: return "class";
    case JL_ATTRIBUTION_BY_LAYER: return "layer";
    case JL_ATTRIBUTION_BY_STEP: return "step";
    case JL_ATTRIBUTION_BY_KIND: return "kind";
    case JL_ATTRIBUTION_BY_TIME: return "time";
    }
    return "?";
}

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v ? v : json_null());
}

/* What a row's energy covers (the run document's boundary, issue 36): the
 * profiled window (or --window: custom), of the GPUs' counters. */
static json_t *boundary(const jl_attribution *a)
{
    return json_pack("{s:s,s:s}", "window", a->window_custom ? "custom" : "profiled", "scope",
                     "gpu");
}

static json_t *num_or_null(double v)
{
    return jl_json_number(v);
}

json_t *jl_attribution_row_to_json(const jl_attribution *a, const jl_attribution_row *r)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    set(o, "key", json_string(r->key));
    if (a->by == JL_ATTRIBUTION_BY_TIME) {
        set(o, "t0_s", jl_json_number(r->t0_s));
        set(o, "unattributed_j", jl_json_number(r->unattributed_j));
    }
    set(o, "time_s", jl_json_number(r->time_s));
    set(o, "busy_s", jl_json_number(r->busy_s));
    set(o, "calls", json_integer((json_int_t)r->calls));
    set(o, "energy_j", jl_json_number(r->energy_j));
    set(o, "static_j", jl_json_number(r->static_j));
    set(o, "dynamic_j", jl_json_number(r->dynamic_j));
    set(o, "share", jl_json_number(r->share));
    json_t *iv = json_array();
    json_array_append_new(iv, jl_json_number(r->energy_lo_j));
    json_array_append_new(iv, jl_json_number(r->energy_hi_j));
    set(o, "energy_interval_j", iv);
    set(o, "j_per_call", jl_json_number(r->j_per_call));
    set(o, "j_per_token", jl_json_number(r->j_per_token));
    set(o, "median_span_s", jl_json_number(r->median_span_s));
    json_t *bc = json_object();
    size_t ri = (size_t)(r - a->rows);
    for (size_t c = 0; bc && a->row_class_j && c < a->n_classes; c++) {
        double v = a->row_class_j[ri * a->n_classes + c];
        if (v != 0)
            json_object_set_new(bc, a->class_names[c], jl_json_number(v));
    }
    set(o, "by_class_j", bc);
    set(o, "peak_w", jl_json_number(r->peak_w));
    set(o, "peak_reason", r->peak_reason ? json_string(r->peak_reason) : json_null());
    set(o, "host_launch_j", jl_json_number(r->host_launch_j));
    if (a->weights_used && a->weights_used->n)
        set(o, "equal_weights_j", jl_json_number(r->equal_j));
    set(o, "boundary", boundary(a));
    return o;
}

json_t *jl_attribution_document(const jl_attribution *a)
{
    json_t *d = json_object(), *w = json_object(), *e = json_object(), *s = json_object(),
           *z = json_object(), *rows = json_array(), *warn = json_array(), *wt = json_object();
    if (!d || !w || !e || !s || !z || !rows || !warn || !wt) {
        json_decref(d);
        json_decref(w);
        json_decref(e);
        json_decref(s);
        json_decref(z);
        json_decref(rows);
        json_decref(warn);
        json_decref(wt);
        return NULL;
    }
    set(d, "schema", json_string("joules.attribution/1"));
    set(d, "file", json_string(a->file));
    set(d, "run", json_string(a->run));
    set(d, "by", json_string(by_name(a->by)));
    if (a->by == JL_ATTRIBUTION_BY_TIME)
        set(d, "time_bin_s", jl_json_number(a->time_bin_s));
    set(w, "start_s", jl_json_number(a->window[0]));
    set(w, "end_s", jl_json_number(a->window[1]));
    set(w, "duration_s", jl_json_number(a->window[1] - a->window[0]));
    set(d, "window", w);
    set(e, "source", json_string(a->energy_source));
    set(e, "window_j", jl_json_number(a->window_energy_j));
    /* what lies outside the profiled window (the rows add up to window_j) */
    set(e, "run_j", jl_json_number(a->run_energy_j));
    set(e, "outside_window_j", jl_json_number(a->run_energy_j - a->window_energy_j));
    set(e, "window_share_of_run",
        jl_json_number(a->run_energy_j > 0 ? a->window_energy_j / a->run_energy_j : NAN));
    set(e, "boundary", boundary(a));
    set(e, "attributed_j", jl_json_number(a->attributed_j));
    set(e, "unattributed_j", jl_json_number(a->unattributed_j));
    set(e, "unattributed_static_j", jl_json_number(a->unattributed_static_j));
    set(e, "unattributed_dynamic_j", jl_json_number(a->unattributed_dynamic_j));
    set(e, "stalls_j", jl_json_number(a->stall_j));
    set(e, "stalls_s", jl_json_number(a->stall_s));
    set(e, "stalls", json_integer((json_int_t)a->n_stalls));
    set(e, "residual_j", jl_json_number(a->residual_j));
    set(e, "residual_rel",
        jl_json_number(a->window_energy_j != 0 ? a->residual_j / a->window_energy_j : NAN));
    set(d, "energy", e);
    set(s, "power_w", jl_json_number(a->static_w));
    set(s, "source", json_string(a->static_source));
    set(d, "static", s);
    set(z, "update_period_s", jl_json_number(a->sensor.update_period_s));
    set(z, "energy_delay_s", jl_json_number(a->sensor.energy_delay_s));
    set(z, "watts_window_s", jl_json_number(a->sensor.watts_window_s));
    set(z, "watts_delay_s", jl_json_number(a->sensor.watts_delay_s));
    set(z, "watts_kind", a->sensor.watts_kind ? json_string(a->sensor.watts_kind) : json_null());
    set(z, "source", json_string(a->sensor_source));
    set(d, "sensor", z);
    set(wt, "source", json_string(a->weights));
    json_t *cl = json_array();
    const jl_class_weights *u = a->weights_used;
    for (size_t i = 0; u && cl && i < u->n; i++) {
        json_t *c = json_object();
        set(c, "class", json_string(u->cls[i]));
        set(c, "dynamic_w", jl_json_number(u->w_dyn[i]));
        set(c, "rel_uncertainty", jl_json_number(u->rel_unc[i]));
        if (u->wall_s) {
            set(c, "loop_s", num_or_null(u->wall_s[i]));
            set(c, "loop_busy_over_wall", num_or_null(u->busy_over_wall[i]));
            set(c, "loop_clock_mhz", num_or_null(u->clock_mhz[i]));
            set(c, "loop_throttled", json_boolean(u->throttled[i]));
            set(c, "window_clock_mhz", num_or_null(u->window_clock_mhz[i]));
            set(c, "clock_ratio", num_or_null(u->clock_ratio[i]));
        }
        json_array_append_new(cl, c);
    }
    set(wt, "classes", cl);
    if (u && u->n) {
        /* --calibration's effect: what the weights explain, where the rest went */
        json_t *x = json_object();
        set(x, "mode",
            json_string(a->calibration.mode == JL_CALIBRATION_ABSOLUTE   ? "absolute"
                        : a->calibration.mode == JL_CALIBRATION_RELATIVE ? "relative"
                                                                         : "time"));
        set(x, "measured_dynamic_j", jl_json_number(a->calibration.measured_dynamic_j));
        set(x, "predicted_j", jl_json_number(a->calibration.predicted_j));
        set(x, "explained_share",
            jl_json_number(a->calibration.measured_dynamic_j > 0
                               ? a->calibration.predicted_j / a->calibration.measured_dynamic_j
                               : NAN));
        set(x, "unexplained_j", jl_json_number(a->calibration.unexplained_j));
        set(x, "unexplained_to_rows_j", jl_json_number(a->calibration.unexplained_to_rows_j));
        set(x, "unattributed_dynamic_j", jl_json_number(a->calibration.unattributed_dynamic_j));
        json_t *mv = json_array();
        for (size_t i = 0; mv && i < a->n_rows; i++) {
            const jl_attribution_row *r = &a->rows[i];
            json_t *m = json_object();
            set(m, "key", json_string(r->key));
            set(m, "equal_weights_j", jl_json_number(r->equal_j));
            set(m, "calibrated_j", jl_json_number(r->energy_j));
            set(m, "change_j", jl_json_number(r->energy_j - r->equal_j));
            json_array_append_new(mv, m);
        }
        set(x, "against_equal_weights", mv);
        set(wt, "explanation", x);
    }
    set(d, "weights", wt);
    json_t *cv = json_object();
    set(cv, "run_start_s", jl_json_number(a->coverage.run_start_s));
    set(cv, "run_end_s", jl_json_number(a->coverage.run_end_s));
    set(cv, "run_j", jl_json_number(a->coverage.run_j));
    set(cv, "window_share", jl_json_number(a->coverage.window_share));
    set(cv, "before_window_s", jl_json_number(a->coverage.before_s));
    set(cv, "before_window_j", jl_json_number(a->coverage.before_j));
    set(cv, "after_window_s", jl_json_number(a->coverage.after_s));
    set(cv, "after_window_j", jl_json_number(a->coverage.after_j));
    set(cv, "before_run_s", jl_json_number(a->coverage.pre_run_s));
    set(cv, "before_run_j", jl_json_number(a->coverage.pre_run_j));
    set(cv, "tokens_run", jl_json_number(a->coverage.tokens_run));
    set(cv, "tokens_window", jl_json_number(a->coverage.tokens_window));
    set(d, "coverage", cv);
    json_t *hl = json_object();
    set(hl, "mode",
        json_string(a->host_launch_mode == JL_HOST_LAUNCH_ROW   ? "row"
                    : a->host_launch_mode == JL_HOST_LAUNCH_OFF ? "off"
                                                                : "spans"));
    set(hl, "energy_j", jl_json_number(a->host_launch_j));
    set(hl, "seconds", jl_json_number(a->host_launch_s));
    set(hl, "gaps", json_integer((json_int_t)a->n_host_gaps));
    set(d, "host_launch", hl);
    json_t *rs = json_object();
    set(rs, "below_sensor_everywhere", json_boolean(a->resolution.below_sensor_everywhere));
    set(rs, "resolved", json_boolean(a->resolution.resolved));
    set(rs, "condition_number", jl_json_number(a->resolution.condition));
    set(rs, "weight_uncertainty", jl_json_number(a->resolution.weight_unc));
    set(d, "resolution", rs);
    set(d, "tokens", jl_json_number(a->tokens));
    json_t *sp = json_object();
    set(sp, "total", json_integer((json_int_t)a->n_spans));
    set(sp, "in_window", json_integer((json_int_t)a->n_spans_in_window));
    set(d, "spans", sp);
    for (size_t i = 0; i < a->n_rows; i++)
        json_array_append_new(rows, jl_attribution_row_to_json(a, &a->rows[i]));
    set(d, "rows", rows);
    for (size_t i = 0; i < a->n_warnings; i++) {
        json_t *o = json_object();
        set(o, "name", json_string(jl_attribution_warning_name(a->warnings[i].id)));
        set(o, "message", json_string(a->warnings[i].message));
        json_array_append_new(warn, o);
    }
    set(d, "warnings", warn);
    return d;
}

jl_status jl_attribution_write_csv(const jl_attribution *a, FILE *f)
{
    return jl_attribution_write_csv_extra(a, f, 0, NULL, NULL);
}

/* n_extra empty cells (the rows no caller's column speaks of) */
static void blanks(jl__csvw *w, size_t n_extra)
{
    for (size_t k = 0; k < n_extra; k++)
        jl__csvw_empty(w);
}

/* The share of the window's energy in v (a NaN without a window). */
static double window_share(const jl_attribution *a, double v)
{
    return a->window_energy_j != 0 ? v / a->window_energy_j : NAN;
}

jl_status jl_attribution_write_csv_extra(const jl_attribution *a, FILE *f, size_t n_extra,
                                         const char *const *names, const char *const *values)
{
    static const char *const head[] = {"key",         "t0_s",           "time_s",
                                       "busy_s",      "calls",          "energy_j",
                                       "static_j",    "dynamic_j",      "share",
                                       "energy_lo_j", "energy_hi_j",    "j_per_call",
                                       "j_per_token", "median_span_s",  "peak_w",
                                       "peak_reason", "unattributed_j", "host_launch_j",
                                       NULL};
    jl__csvw w;
    jl__csvw_begin(&w, f);
    jl__csvw_cells(&w, head);
    for (size_t k = 0; k < n_extra; k++)
        jl__csvw_cell(&w, names[k]);
    jl__csvw_end(&w);
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_attribution_row *r = &a->rows[i];
        jl__csvw_cell(&w, r->key);
        jl__csvw_num(&w, r->t0_s);
        jl__csvw_num(&w, r->time_s);
        jl__csvw_num(&w, r->busy_s);
        jl__csvw_cellf(&w, "%zu", r->calls);
        jl__csvw_num(&w, r->energy_j);
        jl__csvw_num(&w, r->static_j);
        jl__csvw_num(&w, r->dynamic_j);
        jl__csvw_num(&w, r->share);
        jl__csvw_num(&w, r->energy_lo_j);
        jl__csvw_num(&w, r->energy_hi_j);
        jl__csvw_num(&w, r->j_per_call);
        jl__csvw_num(&w, r->j_per_token);
        jl__csvw_num(&w, r->median_span_s);
        jl__csvw_num(&w, r->peak_w);
        jl__csvw_cell(&w, r->peak_reason);
        jl__csvw_num(&w, a->by == JL_ATTRIBUTION_BY_TIME ? r->unattributed_j : NAN);
        jl__csvw_num(&w, r->host_launch_j);
        for (size_t k = 0; k < n_extra; k++)
            jl__csvw_cell(&w, values[i * n_extra + k]);
        jl__csvw_end(&w);
    }
    /* the energy no row holds, as rows of their own: the sum of the column
     * energy_j is the window's energy */
    jl__csvw_cell(&w, "(unattributed)");
    for (int k = 0; k < 4; k++) /* t0_s, time_s, busy_s, calls */
        jl__csvw_empty(&w);
    jl__csvw_num(&w, a->unattributed_j);
    jl__csvw_num(&w, a->unattributed_static_j);
    jl__csvw_num(&w, a->unattributed_dynamic_j);
    jl__csvw_num(&w, window_share(a, a->unattributed_j));
    blanks(&w, 9 + n_extra); /* energy_lo_j .. host_launch_j, the caller's */
    jl__csvw_end(&w);
    jl__csvw_cell(&w, "(stalls)");
    jl__csvw_empty(&w);
    jl__csvw_num(&w, a->stall_s);
    jl__csvw_empty(&w);
    jl__csvw_cellf(&w, "%zu", a->n_stalls);
    jl__csvw_num(&w, a->stall_j);
    jl__csvw_empty(&w);
    jl__csvw_empty(&w);
    jl__csvw_num(&w, window_share(a, a->stall_j));
    blanks(&w, 9 + n_extra);
    jl__csvw_end(&w);
    return ferror(f) ? JL_EIO : JL_OK;
}
