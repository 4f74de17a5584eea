/* What every energy figure covers (docs/summary.md, "Every figure and its
 * boundary"): a time window (steady, run, profiled, custom) and a power
 * scope (gpu, host, node, facility, provisioned). This file decides the
 * boundary of a run's headline figures, computes the whole-run figures
 * beside the steady-state ones (run_tokens, run_energy_per_token_j, ...,
 * run_total_energy_j), says how the peak was sampled, and gives the
 * accounts one way to ask for the energy at a boundary (jl_summary_energy).
 * The run object's "boundary", "figure_boundaries", "peak_power_kind" and
 * "total_scope" members are written here too (jl__boundary_write). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "summary/summary_internal.h"

static const char *const window_names[JL_WINDOW_COUNT] = {"steady", "run", "profiled", "custom"};
static const char *const scope_names[JL_SCOPE_COUNT] = {"gpu", "host", "node", "facility",
                                                        "provisioned"};

const char *jl_window_name(jl_window w)
{
    return (unsigned)w < JL_WINDOW_COUNT ? window_names[w] : "unknown";
}

const char *jl_scope_name(jl_scope s)
{
    return (unsigned)s < JL_SCOPE_COUNT ? scope_names[s] : "unknown";
}

int jl_window_lookup(const char *name)
{
    for (int i = 0; name && i < JL_WINDOW_COUNT; i++)
        if (!strcmp(name, window_names[i]))
            return i;
    return -1;
}

int jl_scope_lookup(const char *name)
{
    for (int i = 0; name && i < JL_SCOPE_COUNT; i++)
        if (!strcmp(name, scope_names[i]))
            return i;
    return -1;
}

#define F(id) (s->fig[JL_FIG_##id])

static double ratio(double a, double b)
{
    return isfinite(a) && isfinite(b) && b != 0 ? a / b : NAN;
}

/* A string attribute of summary/ (the importers' boundary of published
 * figures), or NULL. */
static const char *summary_text(const jl_run *r, const char *key)
{
    for (size_t i = 0; i < r->summary.n_extra; i++)
        if (!r->summary.extra[i].is_number && !strcmp(r->summary.extra[i].key, key))
            return r->summary.extra[i].value;
    return NULL;
}

/* ---- the whole run ------------------------------------------------------- */

/* Output tokens of the whole run: the engine's counter from its first row
 * to its last, else every completed request's output tokens (plus the
 * first token of a request that got one and never finished: the rule of
 * steady_tokens over an unbounded window). NaN when neither is there. */
static double run_tokens(const jl_run *r)
{
    if (r->engine_n > 0 && r->tokens_generated)
        return (double)(r->tokens_generated[r->engine_n - 1] - r->tokens_generated[0]);
    if (r->req_n > 0 && r->output_tokens && r->finish && r->first_token) {
        double n = 0;
        for (size_t i = 0; i < r->req_n; i++)
            if (isfinite(r->finish[i]))
                n += r->output_tokens[i];
            else if (isfinite(r->first_token[i]))
                n += 1;
        return n;
    }
    return NAN;
}

static double run_items(const jl_run *r)
{
    if (!r->batch_n || !r->batch_size)
        return NAN;
    double n = 0;
    for (size_t i = 0; i < r->batch_n; i++)
        n += r->batch_size[i];
    return n;
}

/* The headline boundary of a series run and of a summary-only one. */
static void headline(const jl_run *r, jl_summary *s)
{
    s->boundary.window = JL_WINDOW_STEADY;
    s->boundary.scope = jl_attrs_is_node_ac(&r->attrs) ? JL_SCOPE_NODE : JL_SCOPE_GPU;
    if (s->steady_method == JL_STEADY_WHOLE_RUN)
        s->boundary.window = JL_WINDOW_RUN;
    if (s->steady_method == JL_STEADY_SUMMARY) {
        int w = jl_window_lookup(summary_text(r, "boundary_window"));
        int sc = jl_scope_lookup(summary_text(r, "boundary_scope"));
        if (w >= 0)
            s->boundary.window = (jl_window)w;
        if (sc >= 0 && sc != JL_SCOPE_FACILITY && sc != JL_SCOPE_PROVISIONED)
            s->boundary.scope = (jl_scope)sc;
    }
}

/* How watts was sampled: power/@watts_kind; else the harness's own
 * @power_source naming NVML's instantaneous field; else unknown. */
static const char *peak_kind(const jl_run *r)
{
    if (r->power_watts_kind)
        return r->power_watts_kind;
    char src[128];
    if (jl_attrs_get(&r->attrs, "power_source", src, sizeof src) == 0 &&
        !strcmp(src, "nvml_field_power_instant"))
        return "instant";
    if (r->summary.present) {
        const char *k = summary_text(r, "peak_power_kind");
        if (k && (!strcmp(k, "instant") || !strcmp(k, "average_1s")))
            return k;
    }
    return "unknown";
}

jl_status jl__boundary_figures(const jl_run *r, const jl_summary_options *opt, double extrapolate_s,
                               jl_summary *s)
{
    headline(r, s);
    const int node_ac = s->boundary.scope == JL_SCOPE_NODE;
    const int series = s->steady_method != JL_STEADY_SUMMARY;
    if (isfinite(F(PEAK_POWER_W)) && !(s->peak_power_kind = jl__strdup(peak_kind(r))))
        return JL_ENOMEM;
    if (series && s->steady_method == JL_STEADY_SOURCE) {
        /* the source cut the series to its steady state: the whole run was
         * not measured, so nothing is known of the energy outside it */
        F(RUN_ENERGY_J) = NAN;
        F(OUTSIDE_ENERGY_SHARE) = NAN;
    }
    if (series) {
        double tok = jl_attrs_is_diffusion(&r->attrs) ? NAN : run_tokens(r);
        F(RUN_TOKENS) = tok;
        if (tok > 0)
            F(RUN_ENERGY_PER_TOKEN_J) = ratio(F(RUN_ENERGY_J), tok);
        if (F(COMPLETED_REQUESTS) > 0)
            F(RUN_ENERGY_PER_REQUEST_J) = ratio(F(RUN_ENERGY_J), F(COMPLETED_REQUESTS));
        if (jl_attrs_is_diffusion(&r->attrs) || !r->req_n)
            F(RUN_ENERGY_PER_ITEM_J) = ratio(F(RUN_ENERGY_J), run_items(r));
        /* the whole system over the whole run: host/ over the power span */
        if (r->host_n > 0 && !node_ac && r->power_n > 0 && isfinite(F(RUN_ENERGY_J))) {
            jl_summary *x = jl_summary_new();
            if (!x)
                return JL_ENOMEM;
            jl_status st = jl__host_figures(r, opt, r->power_time[0], r->power_time[r->power_n - 1],
                                            F(RUN_ENERGY_J), tok > 0 ? tok : NAN, extrapolate_s, x);
            if (st == JL_OK) {
                F(RUN_TOTAL_ENERGY_J) = x->fig[JL_FIG_TOTAL_ENERGY_J];
                F(RUN_TOTAL_ENERGY_PER_TOKEN_J) = x->fig[JL_FIG_TOTAL_ENERGY_PER_TOKEN_J];
                if (F(COMPLETED_REQUESTS) > 0)
                    F(RUN_TOTAL_ENERGY_PER_REQUEST_J) =
                        ratio(F(RUN_TOTAL_ENERGY_J), F(COMPLETED_REQUESTS));
            }
            jl_summary_free(x);
            if (st != JL_OK)
                return st;
        }
    }
    if (node_ac) {
        /* power/ is the node's AC power (MLPerf Power): the node scope's
         * figures are the headline's, and there is no per-GPU energy */
        F(TOTAL_ENERGY_J) = F(STEADY_ENERGY_J);
        F(TOTAL_ENERGY_PER_TOKEN_J) = F(ENERGY_PER_TOKEN_J);
        F(RUN_TOTAL_ENERGY_J) = F(RUN_ENERGY_J);
        F(RUN_TOTAL_ENERGY_PER_TOKEN_J) = F(RUN_ENERGY_PER_TOKEN_J);
        F(RUN_TOTAL_ENERGY_PER_REQUEST_J) = F(RUN_ENERGY_PER_REQUEST_J);
        /* the GPUs' idle power is no share of the node's */
        F(STATIC_ENERGY_SHARE) = NAN;
        free(s->gpu_energy_j);
        free(s->gpu_avg_power_w);
        s->gpu_energy_j = s->gpu_avg_power_w = NULL;
    }
    if (s->boundary.window == JL_WINDOW_RUN) {
        /* the headline figures cover the whole run: they are its run figures */
        static const int pairs[][2] = {
            {JL_FIG_RUN_ENERGY_J, JL_FIG_STEADY_ENERGY_J},
            {JL_FIG_RUN_DURATION_S, JL_FIG_STEADY_DURATION_S},
            {JL_FIG_RUN_TOKENS, JL_FIG_STEADY_TOKENS},
            {JL_FIG_RUN_ENERGY_PER_TOKEN_J, JL_FIG_ENERGY_PER_TOKEN_J},
            {JL_FIG_RUN_ENERGY_PER_REQUEST_J, JL_FIG_ENERGY_PER_REQUEST_J},
            {JL_FIG_RUN_ENERGY_PER_ITEM_J, JL_FIG_ENERGY_PER_ITEM_J},
            {JL_FIG_RUN_TOTAL_ENERGY_J, JL_FIG_TOTAL_ENERGY_J},
            {JL_FIG_RUN_TOTAL_ENERGY_PER_TOKEN_J, JL_FIG_TOTAL_ENERGY_PER_TOKEN_J},
        };
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
            if (isnan(s->fig[pairs[k][0]]))
                s->fig[pairs[k][0]] = s->fig[pairs[k][1]];
    }
    /* the scope of the totals */
    s->total_scope = JL_SCOPE_COUNT;
    if (node_ac)
        s->total_scope = JL_SCOPE_NODE;
    else if (s->host && s->host->method == JL_HOST_NODE_AC)
        s->total_scope = JL_SCOPE_NODE;
    else if (s->host && s->host->method == JL_HOST_CPU_DRAM)
        s->total_scope = JL_SCOPE_HOST;
    else if (!series && (isfinite(F(TOTAL_ENERGY_J)) || isfinite(F(RUN_TOTAL_ENERGY_J)))) {
        int sc = jl_scope_lookup(summary_text(r, "total_scope"));
        s->total_scope = sc == JL_SCOPE_NODE ? JL_SCOPE_NODE : JL_SCOPE_HOST;
    }
    return JL_OK;
}

/* ---- boundaries of figures ------------------------------------------------ */

int jl_figure_boundary(const jl_summary *s, jl_figure f, jl_boundary *out)
{
    jl_boundary b = s->boundary;
    jl_scope total = s->total_scope < JL_SCOPE_COUNT ? s->total_scope : JL_SCOPE_HOST;
    switch (f) {
    case JL_FIG_STEADY_ENERGY_J:
    case JL_FIG_ENERGY_PER_TOKEN_J:
    case JL_FIG_ENERGY_PER_REQUEST_J:
    case JL_FIG_ENERGY_PER_ITEM_J:
    case JL_FIG_AVG_POWER_W:
    case JL_FIG_PEAK_POWER_W:
    case JL_FIG_PEAK_TO_AVG:
    case JL_FIG_STATIC_ENERGY_SHARE:
    case JL_FIG_TOKENS_PER_JOULE:
    case JL_FIG_ENERGY_SOURCE_DISAGREEMENT:
    case JL_FIG_PREFILL_ENERGY_J:
    case JL_FIG_DECODE_ENERGY_J:
    case JL_FIG_PREFILL_ENERGY_SHARE:
    case JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE:
    case JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_LO:
    case JL_FIG_PREFILL_MARGINAL_ENERGY_SHARE_HI: break;
    case JL_FIG_IDLE_POWER_W:
        /* measured by the source outside the run (gpu_idle_power_w) */
        b.window = JL_WINDOW_CUSTOM;
        b.scope = JL_SCOPE_GPU;
        break;
    case JL_FIG_OUTSIDE_ENERGY_SHARE:
    case JL_FIG_RUN_ENERGY_J:
    case JL_FIG_RUN_ENERGY_PER_TOKEN_J:
    case JL_FIG_RUN_ENERGY_PER_REQUEST_J:
    case JL_FIG_RUN_ENERGY_PER_ITEM_J: b.window = JL_WINDOW_RUN; break;
    case JL_FIG_HOST_ENERGY_J:
    case JL_FIG_HOST_ENERGY_PER_TOKEN_J:
    case JL_FIG_TOTAL_ENERGY_J:
    case JL_FIG_TOTAL_ENERGY_PER_TOKEN_J: b.scope = total; break;
    case JL_FIG_RUN_TOTAL_ENERGY_J:
    case JL_FIG_RUN_TOTAL_ENERGY_PER_TOKEN_J:
    case JL_FIG_RUN_TOTAL_ENERGY_PER_REQUEST_J:
        b.window = JL_WINDOW_RUN;
        b.scope = total;
        break;
    default: return 0;
    }
    *out = b;
    return 1;
}

/* The figure of (window, scope-kind, per): scope-kind 0 = power/'s own
 * scope (the headline's), 1 = the totals'. -1 when none. */
static int figure_of(int run, int total, jl_energy_per per)
{
    static const int tab[2][2][4] = {
        {{JL_FIG_STEADY_ENERGY_J, JL_FIG_ENERGY_PER_TOKEN_J, JL_FIG_ENERGY_PER_REQUEST_J,
          JL_FIG_ENERGY_PER_ITEM_J},
         {JL_FIG_TOTAL_ENERGY_J, JL_FIG_TOTAL_ENERGY_PER_TOKEN_J, -1, -1}},
        {{JL_FIG_RUN_ENERGY_J, JL_FIG_RUN_ENERGY_PER_TOKEN_J, JL_FIG_RUN_ENERGY_PER_REQUEST_J,
          JL_FIG_RUN_ENERGY_PER_ITEM_J},
         {JL_FIG_RUN_TOTAL_ENERGY_J, JL_FIG_RUN_TOTAL_ENERGY_PER_TOKEN_J,
          JL_FIG_RUN_TOTAL_ENERGY_PER_REQUEST_J, -1}},
    };
    return tab[run][total][per];
}

/* The requests (or items) a window's per-request figure divides by: the
 * ratio of its total energy to that figure. */
static double per_of(const jl_summary *s, int run, jl_energy_per per)
{
    int f = figure_of(run, 0, per), t = figure_of(run, 0, JL_PER_TOTAL);
    return f < 0 ? NAN : ratio(s->fig[t], s->fig[f]);
}

double jl_summary_energy(const jl_summary *s, jl_boundary b, jl_energy_per per)
{
    if ((unsigned)per > JL_PER_ITEM)
        return NAN;
    int run;
    if (b.window == JL_WINDOW_RUN)
        run = 1;
    else if (b.window == s->boundary.window)
        run = 0; /* steady, profiled or custom: the headline's own */
    else
        return NAN;
    if (b.scope == JL_SCOPE_PROVISIONED) {
        /* TDP x GPUs x the window's duration, over the same units */
        double dur = run ? F(RUN_DURATION_S) : F(STEADY_DURATION_S);
        double e = s->attrs.gpu_tdp_w * (double)s->attrs.num_gpus * dur;
        if (!(s->attrs.num_gpus > 0) || !isfinite(e))
            return NAN;
        if (per == JL_PER_TOTAL)
            return e;
        double n = per_of(s, run, per);
        return n > 0 ? e / n : NAN;
    }
    if (b.scope == s->boundary.scope) {
        int f = figure_of(run, 0, per);
        double v = f < 0 ? NAN : s->fig[f];
        /* a source that published its average power and duration but not
         * their product: the window's energy by definition */
        if (per == JL_PER_TOTAL && !run && isnan(v))
            v = F(AVG_POWER_W) * F(STEADY_DURATION_S);
        return v;
    }
    if (b.scope == s->total_scope && s->total_scope != s->boundary.scope) {
        int f = figure_of(run, 1, per);
        if (f >= 0)
            return s->fig[f];
        /* per request / item of the totals: the totals over the window's
         * requests or items */
        double n = per_of(s, run, per);
        return n > 0 ? ratio(s->fig[figure_of(run, 1, JL_PER_TOTAL)], n) : NAN;
    }
    return NAN;
}

/* Some energy figure at b (a summary-only source may publish per-unit
 * figures without their total). */
static int has_energy(const jl_summary *s, jl_boundary b)
{
    for (int per = JL_PER_TOTAL; per <= JL_PER_ITEM; per++)
        if (isfinite(jl_summary_energy(s, b, (jl_energy_per)per)))
            return 1;
    return 0;
}

int jl_summary_widest_scope(const jl_summary *s, jl_window w)
{
    static const jl_scope order[] = {JL_SCOPE_NODE, JL_SCOPE_HOST, JL_SCOPE_GPU};
    for (size_t k = 0; k < 3; k++) {
        jl_boundary b = {w, order[k]};
        if (has_energy(s, b))
            return (int)order[k];
    }
    return -1;
}

size_t jl_summary_boundaries_text(const jl_summary *s, char *buf, size_t cap)
{
    size_t n = 0, len = 0;
    if (cap)
        buf[0] = '\0';
    for (int sc = 0; sc < JL_SCOPE_COUNT; sc++)
        for (int w = 0; w < JL_WINDOW_COUNT; w++) {
            jl_boundary b = {(jl_window)w, (jl_scope)sc};
            if (sc == JL_SCOPE_FACILITY || !has_energy(s, b))
                continue;
            if (len < cap)
                len += (size_t)snprintf(buf + len, cap - len, "%s%s/%s", n ? ", " : "",
                                        window_names[w], scope_names[sc]);
            n++;
        }
    if (!n && cap)
        snprintf(buf, cap, "no energy");
    return n;
}

int jl_summary_window_span(const jl_summary *s, jl_window w, double *t0, double *t1)
{
    double a = NAN, b = NAN;
    if (s->steady_method != JL_STEADY_SUMMARY) {
        /* a series run: its headline window (the whole run's edges are the
         * power samples', which the summary does not keep) */
        if (w == s->boundary.window) {
            a = s->fig[JL_FIG_STEADY_START_S];
            b = s->fig[JL_FIG_STEADY_END_S];
        }
    } else if (w == s->boundary.window) {
        a = 0;
        b = s->fig[JL_FIG_STEADY_DURATION_S];
    } else if (w == JL_WINDOW_RUN) {
        a = 0;
        b = s->fig[JL_FIG_RUN_DURATION_S];
    }
    if (!(isfinite(a) && isfinite(b) && b >= a))
        return -1;
    *t0 = a;
    *t1 = b;
    return 0;
}

/* ---- the run object --------------------------------------------------- */

static void boundary_obj(jl__jw *w, const char *key, jl_boundary b)
{
    jl__jw_key(w, key);
    jl__jw_object(w);
    jl__jw_kstring(w, "scope", jl_scope_name(b.scope));
    jl__jw_kstring(w, "window", jl_window_name(b.window));
    jl__jw_end(w);
}

void jl__boundary_write(jl__jw *w, const jl_summary *s)
{
    boundary_obj(w, "boundary", s->boundary);
    jl__jw_key(w, "figure_boundaries");
    jl__jw_object(w);
    for (int f = 0; f < JL_FIG_COUNT; f++) {
        jl_boundary b;
        if (!isfinite(s->fig[f]) || !jl_figure_boundary(s, (jl_figure)f, &b) ||
            (b.window == s->boundary.window && b.scope == s->boundary.scope))
            continue;
        boundary_obj(w, jl_figure_name((jl_figure)f), b);
    }
    jl__jw_end(w);
    jl__jw_kstring(w, "peak_power_kind", s->peak_power_kind);
    jl__jw_kstring(w, "total_scope",
                   s->total_scope < JL_SCOPE_COUNT ? jl_scope_name(s->total_scope) : NULL);
}

json_t *jl_boundary_to_json(jl_boundary b)
{
    return json_pack("{s:s,s:s}", "scope", jl_scope_name(b.scope), "window",
                     jl_window_name(b.window));
}
