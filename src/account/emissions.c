/* Emissions of a study's runs at the boundary asked for (jl_account_count:
 * by default the whole run at the widest measured scope), with the PUE and
 * intensity of the times the energy was used; totals, what was left out,
 * and SCI (ISO/IEC 21031). docs/accounting.md, "Carbon and facility over
 * time" and "What each command counts". */
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
#include "output/csv_row.h"

void jl_emissions_result_free(jl_emissions_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->runs[i].error);
    free(r->runs);
    free(r->embodied_source);
    free(r);
}

static void sci_nan(jl_sci *x)
{
    x->e_kwh = x->i_g_per_kwh = x->m_g = x->r = x->sci = NAN;
}

static void set_nan(jl_run_emissions *e)
{
    e->t0 = e->t1 = e->energy_kwh = e->facility_kwh = e->pue = NAN;
    e->wh_per_1000_queries = NAN;
    for (int k = 0; k < 2; k++)
        e->intensity[k] = e->g_co2eq[k] = e->g_per_token[k] = e->g_per_request[k] =
            e->g_per_item[k] = NAN;
    sci_nan(&e->sci);
}

/* ---- the power profile that weights PUE(t) and intensity(t) ------------ */

/* A profile part: points (t, p) in run time, integrated as trapezoids
 * (a step is two points at one time). */
typedef struct part {
    double *t, *p;
    size_t n, cap;
    int oom;
} part;

static void push(part *q, double t, double p)
{
    if (q->oom)
        return;
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        double *a = realloc(q->t, cap * sizeof *a);
        if (a)
            q->t = a;
        double *b = a ? realloc(q->p, cap * sizeof *b) : NULL;
        if (b)
            q->p = b;
        if (!a || !b) {
            q->oom = 1;
            return;
        }
        q->cap = cap;
    }
    q->t[q->n] = t;
    q->p[q->n++] = p;
}

static void part_free(part *q)
{
    free(q->t);
    free(q->p);
    memset(q, 0, sizeof *q);
}

static double row_sum(const jl_series *s, size_t i)
{
    double v = 0;
    for (size_t g = 0; g < s->g; g++)
        v += s->v[i * s->g + g];
    return v;
}

/* A cumulative counter (sum over its columns) as steps of its mean power
 * between samples, clipped to [a, b]; drops count as no energy. */
static void counter_steps(part *q, const double *t, size_t n, const jl_series *e, double a,
                          double b)
{
    for (size_t i = 0; i + 1 < n; i++) {
        double lo = fmax(t[i], a), hi = fmin(t[i + 1], b), dt = t[i + 1] - t[i];
        if (!(hi > lo) || !(dt > 0))
            continue;
        double d = row_sum(e, i + 1) - row_sum(e, i), w = d > 0 && isfinite(d) ? d / dt : 0;
        push(q, lo, w);
        push(q, hi, w);
    }
}

/* Power samples (sum over columns) as a piecewise-linear profile over
 * [a, b], interpolated at a and b. */
static void power_lines(part *q, const double *t, size_t n, const double *v, size_t stride,
                        double a, double b)
{
#define AT(i) (stride ? row_sum(&(jl_series){n, stride, (double *)v}, (i)) : v[(i)])
    for (size_t i = 0; i + 1 < n; i++) {
        double lo = fmax(t[i], a), hi = fmin(t[i + 1], b), dt = t[i + 1] - t[i];
        if (!(hi > lo) || !(dt > 0))
            continue;
        double p0 = AT(i), p1 = AT(i + 1), s = (p1 - p0) / dt;
        if (!isfinite(p0) || !isfinite(p1))
            continue;
        push(q, lo, p0 + s * (lo - t[i]));
        push(q, hi, p0 + s * (hi - t[i]));
    }
#undef AT
}

/* Does counter e only rise over the samples within [a, b]? */
static int rises(const double *t, size_t n, const jl_series *e, double a, double b)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (t[i + 1] >= a && t[i] <= b && !(row_sum(e, i + 1) >= row_sum(e, i)))
            return 0;
    return 1;
}

/* The profile of power/ (the GPUs, or the node under node_ac): the energy
 * counter's steps where it only rises, else the watts. */
static void power_part(part *q, const jl_run *r, double a, double b)
{
    if (r->energy_j.v && rises(r->power_time, r->power_n, &r->energy_j, a, b))
        counter_steps(q, r->power_time, r->power_n, &r->energy_j, a, b);
    else if (r->watts.v)
        power_lines(q, r->power_time, r->power_n, r->watts.v, r->watts.g, a, b);
    else if (r->watts_avg.v)
        power_lines(q, r->power_time, r->power_n, r->watts_avg.v, r->watts_avg.g, a, b);
}

/* The window [*a, *b] (run time) and the parts of the profile of what is
 * counted; *constant: no profile (summary-only, or provisioned), constant
 * power over the window. An error message (owned) or NULL. */
static char *profile(const jl_summary *s, const jl_counted *c, part *parts, size_t *n_parts,
                     double *a, double *b, int *constant)
{
    *n_parts = 0;
    *constant = 0;
    jl_window w = c->boundary.window;
    if (s->steady_method == JL_STEADY_SUMMARY) {
        *a = 0;
        *b = c->duration_s;
        *constant = 1;
        if (!(*b > 0))
            return jl__strdup("the run's duration is not known: its energy cannot be placed in "
                              "time (a constant intensity and PUE need none)");
        push(&parts[0], *a, 1);
        push(&parts[0], *b, 1);
        *n_parts = 1;
        return NULL;
    }
    jl_run *r = NULL;
    jl_error *err = NULL;
    if (jl_study_read_run(s, &r, &err) != JL_OK) {
        char *m = jl_error_format(err);
        jl_error_free(err);
        return m ? m : jl__strdup("cannot read the run");
    }
    char *msg = NULL;
    if (!r->power_n) {
        msg = jl__strdup("no power samples");
        goto end;
    }
    if (w == JL_WINDOW_RUN) {
        *a = r->power_time[0];
        *b = r->power_time[r->power_n - 1];
    } else {
        *a = s->fig[JL_FIG_STEADY_START_S];
        *b = s->fig[JL_FIG_STEADY_END_S];
    }
    if (!(*b > *a)) {
        msg = jl__strdup("the window has no length");
        goto end;
    }
    const jl_scope base = c->base_scope;
    if (base == JL_SCOPE_PROVISIONED) {
        *constant = 1;
        push(&parts[0], *a, 1);
        push(&parts[0], *b, 1);
        *n_parts = 1;
    } else if (base == s->boundary.scope) {
        power_part(&parts[0], r, *a, *b);
        *n_parts = 1;
    } else if (base == JL_SCOPE_NODE && r->node_watts) {
        power_lines(&parts[0], r->host_time, r->host_n, r->node_watts, 0, *a, *b);
        *n_parts = 1;
    } else if (base == JL_SCOPE_HOST) {
        power_part(&parts[0], r, *a, *b);
        if (r->cpu_energy_j.v)
            counter_steps(&parts[1], r->host_time, r->host_n, &r->cpu_energy_j, *a, *b);
        if (r->dram_energy_j.v)
            counter_steps(&parts[2], r->host_time, r->host_n, &r->dram_energy_j, *a, *b);
        *n_parts = 3;
    } else {
        msg = jl__strdup("no power profile for the scope counted");
    }
end:
    jl_run_free(r);
    return msg;
}

/* ---- one run ---------------------------------------------------------- */

/* [lo, hi] (Unix seconds) missing from a series, in words, or NULL. */
static char *gap_message(const jl_emissions_options *o, double lo, double hi)
{
    static const char *const names[] = {"PUE", "intensity", "marginal intensity"};
    const jl_tseries *ser[] = {o->pue, o->intensity, o->marginal};
    for (int k = 0; k < 3; k++) {
        char buf[512];
        if (ser[k] && jl_tseries_gaps(ser[k], lo, hi, buf, sizeof buf))
            return jl__asprintf("the %s series has no value for %s of the counted window", names[k],
                                buf);
    }
    return NULL;
}

/* The counted window's samples integrated with the series; NULL or an
 * error message (owned). */
static char *one_run(const jl_summary *s, double t0, const jl_emissions_options *o,
                     const jl_tseries *unit_pue, jl_run_emissions *e)
{
    jl_error *err = NULL;
    if (jl_account_count(s, o->bound, &e->counted, &err) != JL_OK) {
        char *m = jl_error_format(err);
        jl_error_free(err);
        return m ? m : jl__strdup("out of memory");
    }
    const jl_counted *c = &e->counted;
    part parts[3] = {{0}};
    size_t np = 0;
    double a = NAN, b = NAN;
    int constant = 0;
    const int series_given = !(jl_tseries_is_constant(o->pue ? o->pue : unit_pue) &&
                               (!o->intensity || jl_tseries_is_constant(o->intensity)) &&
                               (!o->marginal || jl_tseries_is_constant(o->marginal)));
    char *msg = NULL;
    if (s->steady_method == JL_STEADY_SUMMARY && !series_given) {
        /* constants need no profile: one point of unit power */
        a = 0;
        b = c->duration_s;
        constant = 1;
        push(&parts[0], 0, 1);
        push(&parts[0], 1, 1);
        np = 1;
    } else {
        msg = profile(s, c, parts, &np, &a, &b, &constant);
    }
    e->constant_power = constant && series_given && c->base_scope != JL_SCOPE_PROVISIONED;
    const jl_tseries *pue = o->pue ? o->pue : unit_pue;
    const double energy_j = c->energy_j;
    e->energy_kwh = energy_j / 3.6e6;
    double per_query = isfinite(c->per_request_j) ? c->per_request_j : c->per_item_j;
    e->wh_per_1000_queries = per_query * 1000 / 3600;
    for (size_t k = 0; !msg && k < np; k++)
        if (parts[k].oom)
            msg = jl__strdup("out of memory");
    for (int k = 0; !msg && k < 2; k++) {
        const jl_tseries *in = k ? o->marginal : o->intensity;
        if (!in && k)
            continue;
        jl_tseries *none = in ? NULL : jl_tseries_constant(NAN);
        double en = 0, fac = 0, grams = 0, pue_one = NAN, int_one = NAN;
        int same = 1;
        for (size_t q = 0; q < np && !msg; q++) {
            if (parts[q].n < 2)
                continue;
            jl_emissions em;
            if (jl_emissions_integrate(parts[q].t, parts[q].p, parts[q].n, t0, pue, in ? in : none,
                                       &em, &err) != JL_OK) {
                jl_error_free(err);
                err = NULL;
                msg = gap_message(o, t0 + a, t0 + b);
                if (!msg) {
                    char w0[32];
                    jl__iso_utc(t0 + a, w0);
                    msg = isfinite(t0) ? jl__asprintf("the run at %s cannot be placed on the "
                                                      "series",
                                                      w0)
                                       : jl__strdup("the run has no wall-clock start "
                                                    "(start_time_unix): a time series cannot "
                                                    "be placed; give --start TIME");
                }
                break;
            }
            if (isnan(pue_one)) {
                pue_one = em.pue;
                int_one = em.intensity;
            } else if (em.pue != pue_one || !(em.intensity == int_one || isnan(em.intensity))) {
                same = 0;
            }
            en += em.energy_j;
            fac += em.facility_j;
            grams += em.grams_co2eq;
        }
        jl_tseries_free(none);
        if (msg)
            break;
        e->t0 = t0 + a;
        e->t1 = isfinite(b) ? t0 + b : NAN;
        /* a constant series (or one piece over the window) gives the
         * constant's figures exactly; else the energy-weighted means */
        double pw = same ? pue_one : fac / en, iw = same ? int_one : grams * 3.6e6 / fac;
        if (!isfinite(pw) && jl_tseries_is_constant(pue))
            pw = jl_tseries_at(pue, 0); /* no power at all in the window */
        e->pue = pw;
        e->facility_kwh = energy_j * pw / 3.6e6;
        if (!in)
            continue;
        if (!isfinite(iw) && jl_tseries_is_constant(in))
            iw = jl_tseries_at(in, 0);
        /* per unit: J x PUE / 3.6e6 x g/kWh, the order capacity uses */
        e->intensity[k] = iw;
        e->g_co2eq[k] = energy_j * pw / 3.6e6 * iw;
        e->g_per_token[k] = c->per_token_j * pw / 3.6e6 * iw;
        e->g_per_request[k] = c->per_request_j * pw / 3.6e6 * iw;
        e->g_per_item[k] = c->per_item_j * pw / 3.6e6 * iw;
    }
    for (size_t k = 0; k < 3; k++)
        part_free(&parts[k]);
    if (msg)
        return msg;
    /* SCI = (E x I + M) / R */
    if (o->sci != JL_SCI_NONE) {
        jl_sci *x = &e->sci;
        double per = o->sci == JL_SCI_TOKEN       ? c->per_token_j
                     : isfinite(c->per_request_j) ? c->per_request_j
                                                  : c->per_item_j;
        x->e_kwh = e->facility_kwh;
        x->i_g_per_kwh = e->intensity[0];
        x->r = energy_j / per / (o->sci == JL_SCI_1000_QUERIES ? 1000.0 : 1.0);
        if (o->embodied_g_per_gpu_hour)
            x->m_g = *o->embodied_g_per_gpu_hour * (double)s->attrs.num_gpus * c->duration_s / 3600;
        double m = o->embodied_g_per_gpu_hour ? x->m_g : 0;
        x->sci = (x->e_kwh * x->i_g_per_kwh + m) / x->r;
        if (!(x->r > 0))
            x->sci = NAN;
    }
    return NULL;
}

static void add_sci(jl_sci *t, const jl_sci *x, int embodied)
{
    if (!isfinite(x->sci))
        return;
    if (isnan(t->r)) {
        t->e_kwh = t->r = 0;
        t->m_g = embodied ? 0 : NAN;
        t->i_g_per_kwh = 0; /* grams of E x I, made a mean at the end */
    }
    t->e_kwh += x->e_kwh;
    t->i_g_per_kwh += x->e_kwh * x->i_g_per_kwh;
    t->r += x->r;
    if (embodied)
        t->m_g += x->m_g;
}

jl_status jl_emissions_study(const jl_summary_list *runs, const jl_emissions_options *opt,
                             jl_emissions_result **out, jl_error **err)
{
    *out = NULL;
    jl_emissions_result *r = calloc(1, sizeof *r);
    jl_tseries *unit = jl_tseries_constant(1);
    if (!r || !unit || !(r->runs = calloc(runs->count ? runs->count : 1, sizeof *r->runs)) ||
        (opt->embodied_source && !(r->embodied_source = jl__strdup(opt->embodied_source)))) {
        jl_emissions_result_free(r);
        jl_tseries_free(unit);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    r->sci = opt->sci;
    r->marginal = opt->marginal != NULL;
    r->embodied = opt->embodied_g_per_gpu_hour != NULL;
    jl_emissions_total *T = &r->total;
    T->g_co2eq[0] = T->g_co2eq[1] = 0;
    sci_nan(&T->sci);
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
        if (e->error) {
            jl_counted keep = e->counted;
            set_nan(e);
            e->counted = keep;
            T->runs_error++;
            continue;
        }
        T->runs++;
        if (!isfinite(e->energy_kwh)) {
            T->runs_per_unit_only++;
        } else {
            T->energy_kwh += e->energy_kwh;
            T->facility_kwh += e->facility_kwh;
            for (int k = 0; k < 2; k++)
                T->g_co2eq[k] += e->g_co2eq[k];
        }
        if (isfinite(e->counted.outside_window_j))
            T->outside_window_kwh += e->counted.outside_window_j / 3.6e6;
        if (isfinite(e->counted.wider_j))
            T->wider_kwh += e->counted.wider_j / 3.6e6;
        T->window_fallbacks += e->counted.window_fallback != 0;
        add_sci(&T->sci, &e->sci, r->embodied);
        if (isfinite(e->t0)) {
            if (!(e->t0 >= r->span_t0))
                r->span_t0 = e->t0;
            if (!(e->t1 <= r->span_t1))
                r->span_t1 = e->t1;
        }
    }
    if (isfinite(T->sci.r) && T->sci.e_kwh > 0) {
        double ei = T->sci.i_g_per_kwh; /* sum of E x I */
        T->sci.i_g_per_kwh = ei / T->sci.e_kwh;
        T->sci.sci = (ei + (r->embodied ? T->sci.m_g : 0)) / T->sci.r;
    }
    if (T->runs == T->runs_per_unit_only) /* no run had a total to sum */
        T->energy_kwh = T->facility_kwh = T->g_co2eq[0] = T->g_co2eq[1] = NAN;
    if (!opt->intensity)
        T->g_co2eq[0] = NAN;
    if (!opt->marginal)
        T->g_co2eq[1] = NAN;
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

/* ---- documents ---------------------------------------------------------- */

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

static const char *unit_name(jl_sci_unit u)
{
    return u == JL_SCI_1000_QUERIES ? "1000-queries" : u == JL_SCI_REQUEST ? "request" : "token";
}

static json_t *sci_json(const jl_sci *x, const jl_emissions_result *r)
{
    return json_pack("{s:s,s:o,s:o,s:o,s:s?,s:o,s:o,s:s}", "functional_unit", unit_name(r->sci),
                     "e_kwh", jl_json_number(x->e_kwh), "i_g_per_kwh",
                     jl_json_number(x->i_g_per_kwh), "m_g", jl_json_number(x->m_g), "m_source",
                     r->embodied ? r->embodied_source : NULL, "r", jl_json_number(x->r),
                     "sci_g_per_unit", jl_json_number(x->sci), "formula",
                     r->embodied
                         ? "(E x I + M) / R"
                         : "(E x I) / R: M not given (--embodied-g-per-gpu-hour), left out");
}

json_t *jl_emissions_document(const jl_emissions_result *r, const jl_summary_list *runs)
{
    json_t *doc = json_object(), *arr = json_array();
    int bad = !doc || !arr, marg = r->marginal;
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
        if (!e->error) {
            json_object_set_new(o, "boundary",
                                json_pack("{s:s,s:s,s:s}", "window",
                                          jl_window_name(e->counted.boundary.window), "scope",
                                          jl_scope_name(e->counted.boundary.scope), "base_scope",
                                          jl_scope_name(e->counted.base_scope)));
            json_object_set_new(o, "left_out", jl_counted_left_out_to_json(&e->counted));
            json_object_set_new(o, "assumed_constant_power", json_boolean(e->constant_power));
        }
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
        if (r->sci && !e->error)
            json_object_set_new(o, "sci", sci_json(&e->sci, r));
        bad = json_array_append_new(arr, o);
    }
    const jl_emissions_total *T = &r->total;
    double kg[2] = {T->g_co2eq[0] / 1000, T->g_co2eq[1] / 1000};
    json_t *total =
        bad ? NULL
            : json_pack("{s:I,s:I,s:I,s:o,s:o,s:o,s:o}", "runs", (json_int_t)T->runs,
                        "runs_with_error", (json_int_t)T->runs_error, "runs_per_unit_only",
                        (json_int_t)T->runs_per_unit_only, "energy_kwh",
                        jl_json_number(T->energy_kwh), "facility_kwh",
                        jl_json_number(T->facility_kwh), "kg_co2eq", pair(kg, 1), "left_out",
                        json_pack("{s:o,s:o,s:I}", "outside_window_kwh",
                                  jl_json_number(T->outside_window_kwh), "wider_scope_kwh",
                                  jl_json_number(T->wider_kwh), "window_fallbacks",
                                  (json_int_t)T->window_fallbacks));
    if (total && r->sci)
        json_object_set_new(total, "sci", sci_json(&T->sci, r));
    if (!bad && total)
        bad = json_object_set_new(doc, "schema", json_string("joules.emissions/1")) ||
              json_object_set_new(doc, "runs", arr) || json_object_set_new(doc, "total", total) ||
              json_object_set_new(doc, "sweep",
                                  json_pack("{s:o,s:o,s:o,s:o,s:o}", "start", iso(r->span_t0),
                                            "end", iso(r->span_t1), "mean_intensity_g_per_kwh",
                                            jl_json_number(r->span_mean), "cleanest_start",
                                            iso(r->cleanest_start),
                                            "cleanest_mean_intensity_g_per_kwh",
                                            jl_json_number(r->cleanest_mean)));
    else {
        json_decref(arr);
        json_decref(total);
        bad = 1;
    }
    if (bad) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* ---- CSV ------------------------------------------------------------------ */

typedef struct {
    const jl_emissions_result *r;
    const jl_summary_list *runs;
} csv_ctx;

static void iso_cell(jl__csvw *w, double t)
{
    char buf[32];
    jl__csvw_cell(w, jl__iso_utc(t, buf) ? NULL : buf);
}

static void sci_cells(jl__csvw *w, const jl_sci *x)
{
    jl__csvw_num(w, x->e_kwh);
    jl__csvw_num(w, x->i_g_per_kwh);
    jl__csvw_num(w, x->m_g);
    jl__csvw_num(w, x->r);
    jl__csvw_num(w, x->sci);
}

static int print_csv(FILE *f, const void *vctx)
{
    const csv_ctx *c = vctx;
    const jl_emissions_result *r = c->r;
    static const char *const head[] = {"file",
                                       "run",
                                       "workload",
                                       "model",
                                       "task",
                                       "gpu_model",
                                       "num_gpus",
                                       "max_batch_size",
                                       "boundary_window",
                                       "boundary_scope",
                                       "start",
                                       "end",
                                       "energy_kwh",
                                       "facility_kwh",
                                       "pue",
                                       "intensity_average_g_per_kwh",
                                       "intensity_marginal_g_per_kwh",
                                       "kg_co2eq_average",
                                       "kg_co2eq_marginal",
                                       "g_co2eq_per_token_average",
                                       "g_co2eq_per_request_average",
                                       "g_co2eq_per_item_average",
                                       "wh_per_1000_queries",
                                       "outside_window_kwh",
                                       "wider_scope",
                                       "wider_scope_kwh",
                                       "scopes_not_measured",
                                       "window_fallback",
                                       "assumed_constant_power",
                                       "error",
                                       NULL};
    static const char *const sci_head[] = {
        "sci_functional_unit", "sci_e_kwh", "sci_i_g_per_kwh", "sci_m_g", "sci_r",
        "sci_g_per_unit",      NULL};
    jl__csvw w;
    jl__csvw_begin(&w, f);
    jl__csvw_cells(&w, head);
    if (r->sci)
        jl__csvw_cells(&w, sci_head);
    jl__csvw_end(&w);
    for (size_t i = 0; i < r->n; i++) {
        const jl_run_emissions *e = &r->runs[i];
        const jl_summary *s = c->runs->items[e->run];
        const jl_counted *k = &e->counted;
        jl__csvw_begin(&w, f);
        jl__csvw_cell(&w, s->file);
        jl__csvw_cell(&w, s->run);
        jl__csvw_cell(&w, s->attrs.workload);
        jl__csvw_cell(&w, s->attrs.model);
        jl__csvw_cell(&w, s->attrs.task);
        jl__csvw_cell(&w, s->attrs.gpu_model);
        jl__csvw_cellf(&w, "%ld", s->attrs.num_gpus);
        jl__csvw_cellf(&w, "%ld", s->attrs.max_batch_size);
        jl__csvw_cell(&w, e->error ? NULL : jl_window_name(k->boundary.window));
        jl__csvw_cell(&w, e->error ? NULL : jl_scope_name(k->boundary.scope));
        iso_cell(&w, e->t0);
        iso_cell(&w, e->t1);
        jl__csvw_num(&w, e->energy_kwh);
        jl__csvw_num(&w, e->facility_kwh);
        jl__csvw_num(&w, e->pue);
        jl__csvw_num(&w, e->intensity[0]);
        jl__csvw_num(&w, e->intensity[1]);
        jl__csvw_num(&w, e->g_co2eq[0] / 1000);
        jl__csvw_num(&w, e->g_co2eq[1] / 1000);
        jl__csvw_num(&w, e->g_per_token[0]);
        jl__csvw_num(&w, e->g_per_request[0]);
        jl__csvw_num(&w, e->g_per_item[0]);
        jl__csvw_num(&w, e->wh_per_1000_queries);
        jl__csvw_num(&w, e->error ? NAN : k->outside_window_j / 3.6e6);
        jl__csvw_cell(&w, !e->error && k->wider < JL_SCOPE_COUNT ? jl_scope_name(k->wider) : NULL);
        jl__csvw_num(&w, e->error ? NAN : k->wider_j / 3.6e6);
        char nm[32] = "";
        if (!e->error)
            snprintf(nm, sizeof nm, "%s%s%s", k->not_measured & (1u << JL_SCOPE_HOST) ? "host" : "",
                     (k->not_measured & (1u << JL_SCOPE_HOST)) &&
                             (k->not_measured & (1u << JL_SCOPE_NODE))
                         ? ";"
                         : "",
                     k->not_measured & (1u << JL_SCOPE_NODE) ? "node" : "");
        jl__csvw_cell(&w, nm[0] ? nm : NULL);
        jl__csvw_cell(&w, e->error ? NULL : k->window_fallback ? "true" : "false");
        jl__csvw_cell(&w, e->error ? NULL : e->constant_power ? "true" : "false");
        jl__csvw_cell(&w, e->error);
        if (r->sci) {
            jl__csvw_cell(&w, unit_name(r->sci));
            sci_cells(&w, &e->sci);
        }
        jl__csvw_end(&w);
    }
    const jl_emissions_total *T = &r->total;
    jl__csvw_begin(&w, f);
    jl__csvw_cell(&w, "(total)");
    jl__csvw_cellf(&w, "%zu runs", T->runs);
    for (int k = 0; k < 10; k++)
        jl__csvw_empty(&w); /* workload .. end */
    jl__csvw_num(&w, T->energy_kwh);
    jl__csvw_num(&w, T->facility_kwh);
    for (int k = 0; k < 3; k++)
        jl__csvw_empty(&w);
    jl__csvw_num(&w, T->g_co2eq[0] / 1000);
    jl__csvw_num(&w, T->g_co2eq[1] / 1000);
    for (int k = 0; k < 4; k++)
        jl__csvw_empty(&w);
    jl__csvw_num(&w, T->outside_window_kwh);
    jl__csvw_empty(&w);
    jl__csvw_num(&w, T->wider_kwh);
    jl__csvw_empty(&w);
    jl__csvw_cellf(&w, "%zu", T->window_fallbacks);
    jl__csvw_empty(&w);
    if (T->runs_error)
        jl__csvw_cellf(&w, "%zu runs with an error", T->runs_error);
    else
        jl__csvw_empty(&w);
    if (r->sci) {
        jl__csvw_cell(&w, unit_name(r->sci));
        sci_cells(&w, &T->sci);
    }
    jl__csvw_end(&w);
    return ferror(f) != 0;
}

jl_status jl_write_emissions_csv(const char *path, const jl_emissions_result *r,
                                 const jl_summary_list *runs, jl_error **err)
{
    csv_ctx c = {r, runs};
    return jl_write_text(path, print_csv, &c, err);
}
