/* The joules.attribution/1 document, its rows as JSON lines and as CSV
 * (docs/attribute.md, "Output"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "joules/attribution.h"
#include "joules/output.h"

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
    set(o, "boundary", json_pack("{s:s,s:s}", "window", "profiled", "scope", "gpu"));
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
    set(e, "boundary", json_pack("{s:s,s:s}", "window", "profiled", "scope", "gpu"));
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
    for (size_t i = 0; a->weights_used && cl && i < a->weights_used->n; i++) {
        json_t *c = json_object();
        set(c, "class", json_string(a->weights_used->cls[i]));
        set(c, "dynamic_w", jl_json_number(a->weights_used->w_dyn[i]));
        set(c, "rel_uncertainty", jl_json_number(a->weights_used->rel_unc[i]));
        json_array_append_new(cl, c);
    }
    set(wt, "classes", cl);
    set(d, "weights", wt);
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

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.9g", v);
    else
        fputs(",", f);
}

jl_status jl_attribution_write_csv(const jl_attribution *a, FILE *f)
{
    return jl_attribution_write_csv_extra(a, f, 0, NULL, NULL);
}

/* n_extra empty fields (the rows no caller's column speaks of) */
static void blanks(FILE *f, size_t n_extra)
{
    for (size_t k = 0; k < n_extra; k++)
        fputc(',', f);
}

jl_status jl_attribution_write_csv_extra(const jl_attribution *a, FILE *f, size_t n_extra,
                                         const char *const *names, const char *const *values)
{
    fprintf(f, "key,t0_s,time_s,busy_s,calls,energy_j,static_j,dynamic_j,share,energy_lo_j,"
               "energy_hi_j,j_per_call,j_per_token,median_span_s,peak_w,peak_reason,"
               "unattributed_j");
    for (size_t k = 0; k < n_extra; k++) {
        fputc(',', f);
        jl_csv_field(f, names[k]);
    }
    fputc('\n', f);
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_attribution_row *r = &a->rows[i];
        jl_csv_field(f, r->key);
        num(f, r->t0_s);
        num(f, r->time_s);
        num(f, r->busy_s);
        fprintf(f, ",%zu", r->calls);
        num(f, r->energy_j);
        num(f, r->static_j);
        num(f, r->dynamic_j);
        num(f, r->share);
        num(f, r->energy_lo_j);
        num(f, r->energy_hi_j);
        num(f, r->j_per_call);
        num(f, r->j_per_token);
        num(f, r->median_span_s);
        num(f, r->peak_w);
        fputc(',', f);
        if (r->peak_reason)
            jl_csv_field(f, r->peak_reason);
        num(f, a->by == JL_ATTRIBUTION_BY_TIME ? r->unattributed_j : NAN);
        for (size_t k = 0; k < n_extra; k++) {
            fputc(',', f);
            if (values[i * n_extra + k])
                jl_csv_field(f, values[i * n_extra + k]);
        }
        fputc('\n', f);
    }
    /* the energy no row holds, as rows of their own: the sum of the column
     * energy_j is the window's energy */
    fputs("(unattributed),", f);
    fprintf(f, ",,,,%.9g,%.9g,%.9g", a->unattributed_j, a->unattributed_static_j,
            a->unattributed_dynamic_j);
    num(f, a->window_energy_j != 0 ? a->unattributed_j / a->window_energy_j : NAN);
    fputs(",,,,,,,,", f);
    blanks(f, n_extra);
    fputc('\n', f);
    fprintf(f, "(stalls),,%.9g,,%zu,%.9g,,", a->stall_s, a->n_stalls, a->stall_j);
    num(f, a->window_energy_j != 0 ? a->stall_j / a->window_energy_j : NAN);
    fputs(",,,,,,,,", f);
    blanks(f, n_extra);
    fputc('\n', f);
    return ferror(f) ? JL_EIO : JL_OK;
}
