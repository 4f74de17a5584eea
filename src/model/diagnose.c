/* Per-run diagnosis: utilisation, static-power waste, batch ceiling,
 * headroom, and model-predicted changes (joules/diagnose.h,
 * docs/diagnose.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/diagnose.h"
#include "joules/model.h"
#include "joules/output.h"

void jl_diagnose_options_default(jl_diagnose_options *o)
{
    jl_ceiling_options_default(&o->ceiling);
    o->under_utilised = 0.6;
    o->min_gain = 0.05;
}

void jl_diagnosis_free(jl_diagnosis *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->count; i++) {
        jl_run_diagnosis *r = &x->runs[i];
        jl_batch_ceiling_clear(&r->ceiling);
        free(r->group);
        free(r->group_ceiling_reason);
        for (size_t f = 0; f < r->n_findings; f++)
            free(r->findings[f].message);
        free(r->findings);
    }
    free(x->runs);
    free(x);
}

static int pos(double v)
{
    return isfinite(v) && v > 0;
}

/* Append a finding; numbers are (name, value) pairs ended by NULL. */
static jl_finding *add_finding(jl_run_diagnosis *r, const char *kind, const char *severity,
                               char *message)
{
    if (!message)
        return NULL;
    jl_finding *f = realloc(r->findings, (r->n_findings + 1) * sizeof *f);
    if (!f) {
        free(message);
        return NULL;
    }
    r->findings = f;
    f = &r->findings[r->n_findings++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->severity = severity;
    f->message = message;
    return f;
}

static void num(jl_finding *f, const char *name, double v)
{
    if (f && f->n_numbers < sizeof f->numbers / sizeof f->numbers[0]) {
        f->numbers[f->n_numbers].name = name;
        f->numbers[f->n_numbers].value = v;
        f->n_numbers++;
    }
}

/* Per-group state. */
typedef struct gstate {
    const jl_group_fit *fit; /* borrowed */
    jl_group_ceiling ceil;
    double max_dyn_per_gpu; /* largest measured P/G − idle in the group */
    /* the what-if of twice the group's GPUs: computed at its first memory-
     * bound run, with the one engine of the command (built at the first) */
    jl_whatif whatif;
    int whatif_state; /* 0 not yet, 1 predicted, -1 cannot be */
} gstate;

static const char *pct(double x, char *buf, size_t n)
{
    snprintf(buf, n, "%+.0f%%", x * 100);
    return buf;
}

static void ms_delta(char *buf, size_t n, double dt)
{
    snprintf(buf, n, "%+.1f ms", dt * 1e3);
}

/* The smallest batch ceiling that applies to predictions in a group. */
static double group_limit(const gstate *g)
{
    double v = g->fit ? g->fit->batch_ceiling : INFINITY;
    if (!(v > 0))
        v = INFINITY;
    if (g->ceil.value < v)
        v = g->ceil.value;
    return v;
}

/* Suggest a larger batch in the run's own group (config-bound runs). */
static int suggest_batch(jl_run_diagnosis *r, const gstate *g, const jl_diagnose_options *o)
{
    const jl_summary *s = r->run;
    double b = s->fig[JL_FIG_AVG_BATCH_SIZE];
    jl_prediction now;
    if (!g->fit || jl_model_predict(g->fit, b, &now) != JL_OK || !pos(now.energy_per_token_j.value))
        return 0;
    double limit = group_limit(g);
    const char *assumed = "";
    /* leave a tenth of the KV cache free: a batch at 100 % would preempt */
    if (isfinite(r->ceiling.memory.value) && 0.9 * r->ceiling.memory.value < limit) {
        limit = 0.9 * r->ceiling.memory.value;
        if (jl_memory_ceiling_assumed(&r->ceiling.memory))
            assumed = ", on an assumed per-task input length";
    }
    if (!isfinite(limit) || limit <= b * 1.05) {
        return 0;
    }
    /* candidates: doublings of b, and the limit itself; the suggestion is
     * the smallest that gets 90 % of the largest predicted saving (most of
     * the gain for the least latency) */
    double cand_b[64], cand_e[64];
    jl_prediction cand_p[64];
    size_t nc = 0;
    double min_e = INFINITY;
    for (double c = 2 * b; nc < 64; c *= 2) {
        double cb = c < limit ? c : limit;
        if (jl_model_predict(g->fit, cb, &cand_p[nc]) == JL_OK &&
            pos(cand_p[nc].energy_per_token_j.value)) {
            cand_b[nc] = cb;
            cand_e[nc] = cand_p[nc].energy_per_token_j.value;
            if (cand_e[nc] < min_e)
                min_e = cand_e[nc];
            nc++;
        }
        if (c >= limit)
            break;
    }
    if (!nc)
        return 0;
    double e_now = now.energy_per_token_j.value;
    size_t pick = 0;
    for (size_t i = 0; i < nc; i++)
        if (e_now - cand_e[i] >= 0.9 * (e_now - min_e)) {
            pick = i;
            break;
        }
    double best_b = cand_b[pick], best_e = cand_e[pick];
    jl_prediction best = cand_p[pick];
    double change = best_e / e_now - 1;
    double dt = best.step_time_s.value - now.step_time_s.value;
    char p1[32], p2[32], p3[32];
    if (-(min_e / e_now - 1) < o->min_gain) {
        jl_finding *f = add_finding(
            r, "batch_plateau", "info",
            jl__asprintf("at the efficient plateau: a larger batch (up to %.0f, the ceiling%s) is "
                         "predicted to save under %.0f%% energy per token (%s at batch %.0f)",
                         limit, assumed, o->min_gain * 100, pct(min_e / e_now - 1, p1, sizeof p1),
                         cand_b[nc - 1]));
        if (!f)
            return -1;
        num(f, "batch", b);
        num(f, "best_batch", best_b);
        num(f, "predicted_energy_change", change);
        return 0;
    }
    ms_delta(p2, sizeof p2, dt);
    double itl = s->fig[JL_FIG_MEDIAN_ITL_S];
    char itl_words[64] = "";
    if (isfinite(itl))
        snprintf(itl_words, sizeof itl_words, "; median ITL now %.1f ms", itl * 1e3);
    jl_finding *f = add_finding(
        r, "raise_batch", "suggestion",
        jl__asprintf("batch %.0f instead of %.0f is predicted at %s J/token (%.3g -> %.3g), at "
                     "%s step time (~ ITL%s)%s [%s fit]; up to the ceiling (%.0f%s) the best is "
                     "%s",
                     best_b, b, pct(change, p1, sizeof p1), e_now, best_e, p2, itl_words,
                     best.method == JL_FIT_POOLED
                         ? "; extrapolated beyond the measured batches, energy per token pooled "
                           "with the model's other sweeps"
                         : (best.extrapolated ? "; extrapolated beyond the measured batches" : ""),
                     jl_fit_method_name(g->fit->method), limit, assumed,
                     pct(min_e / e_now - 1, p3, sizeof p3)));
    if (!f)
        return -1;
    num(f, "batch", b);
    num(f, "suggested_batch", best_b);
    num(f, "predicted_energy_per_token_j", best_e);
    num(f, "predicted_energy_per_token_now_j", now.energy_per_token_j.value);
    num(f, "predicted_energy_change", change);
    num(f, "predicted_step_time_change_s", dt);
    num(f, "ceiling", limit);
    return 0;
}

/* Memory-bound: what more GPUs would do, from a measured group with more. */
static int suggest_gpus(jl_run_diagnosis *r, const jl_model_group_list *gl, gstate *gs, size_t own,
                        jl_whatif_engine **engine, const jl_descriptors *d,
                        const jl_diagnose_options *o)
{
    const jl_summary *s = r->run;
    const jl_group_key *k = gl ? &gl->items[own].key : NULL;
    size_t best = (size_t)-1;
    for (size_t i = 0; k && i < gl->count; i++) {
        const jl_group_key *q = &gl->items[i].key;
        if (i == own || !jl__str_eq(q->model, k->model) || !jl__str_eq(q->task, k->task) ||
            !jl__str_eq(q->gpu_model, k->gpu_model) || !jl__str_eq(q->precision, k->precision) ||
            q->num_gpus <= k->num_gpus || !gs[i].fit || gs[i].fit->method == JL_FIT_NONE)
            continue;
        if (best == (size_t)-1 || q->num_gpus < gl->items[best].key.num_gpus)
            best = i;
    }
    if (best == (size_t)-1 && k) {
        /* no measured group with more GPUs: the what-if prediction of 2x
         * (jl_whatif_predict, docs/model.md "What if") */
        jl_group_key t = *k;
        t.num_gpus = 2 * k->num_gpus;
        gstate *g = &gs[own];
        if (!g->whatif_state) {
            jl_error *we = NULL;
            jl_status ws = JL_OK;
            if (!*engine)
                ws = jl_whatif_engine_new(gl, d, engine, &we);
            if (ws == JL_OK)
                ws = jl_whatif_engine_predict(*engine, &t, JL_TRANSFER_NONE, NULL, 0, &g->whatif,
                                              &we);
            jl_error_free(we);
            if (ws == JL_ENOMEM)
                return -1;
            g->whatif_state = ws == JL_OK ? 1 : -1;
        }
        if (g->whatif_state > 0) {
            const jl_whatif *w = &g->whatif;
            const jl_whatif_point *wp = NULL;
            for (size_t i = 0; i < w->n_points; i++)
                if (!w->points[i].beyond_ceiling && pos(w->points[i].energy_per_token_j.value))
                    wp = &w->points[i];
            jl_finding *f = NULL;
            if (wp && isfinite(w->memory_ceiling) && w->memory_ceiling > r->ceiling.ceiling)
                f = add_finding(
                    r, "what_if_gpus", "info",
                    jl__asprintf("%ldx%s would lift the memory ceiling to ~%.0f sequences%s (%.0f "
                                 "now) and is predicted at %.3g J/token [%.3g, %.3g] at cap %ld "
                                 "(not measured: %s transfer from this model's measured "
                                 "configurations, docs/model.md \"What if\")",
                                 t.num_gpus, t.gpu_model ? t.gpu_model : "", w->memory_ceiling,
                                 w->memory_assumed ? " (on an assumed per-task input length)" : "",
                                 r->ceiling.ceiling, wp->energy_per_token_j.value,
                                 wp->energy_per_token_j.lo, wp->energy_per_token_j.hi, wp->cap,
                                 jl_transfer_name(w->transfer)));
            if (f) {
                num(f, "num_gpus", (double)t.num_gpus);
                num(f, "memory_ceiling", w->memory_ceiling);
                num(f, "cap", (double)wp->cap);
                num(f, "predicted_energy_per_token_j", wp->energy_per_token_j.value);
                num(f, "predicted_energy_per_token_lo_j", wp->energy_per_token_j.lo);
                num(f, "predicted_energy_per_token_hi_j", wp->energy_per_token_j.hi);
            }
            if (f)
                return 0;
        }
    }
    if (best == (size_t)-1) {
        jl_finding *f = add_finding(
            r, "no_prediction", "info",
            jl__asprintf("more GPUs would lift the memory ceiling (%.0f sequences now%s), but "
                         "there is no measured group of %s on more %s GPUs to predict from",
                         r->ceiling.ceiling,
                         jl_memory_ceiling_assumed(&r->ceiling.memory)
                             ? ", on an assumed per-task input length"
                             : "",
                         s->attrs.model ? s->attrs.model : "this model",
                         s->attrs.gpu_model ? s->attrs.gpu_model : ""));
        return f ? 0 : -1;
    }
    long G2 = gl->items[best].key.num_gpus;
    jl_memory_ceiling m2;
    if (jl_memory_ceiling_run(s, d, &o->ceiling, G2, &m2) != JL_OK)
        return -1;
    double target = group_limit(&gs[best]);
    double mem2 = m2.value;
    int assumed2 = jl_memory_ceiling_assumed(&m2);
    jl_memory_ceiling_clear(&m2);
    if (isfinite(mem2) && mem2 < target)
        target = mem2;
    /* predict where that group was measured, not beyond */
    if (pos(gs[best].fit->batch_max) && gs[best].fit->batch_max < target)
        target = gs[best].fit->batch_max;
    /* Never below the batch this run already has; a cap the user can set. */
    double b = s->fig[JL_FIG_AVG_BATCH_SIZE];
    if (!isfinite(target) || target < b)
        target = isfinite(target) ? b : gs[best].fit->batch_max;
    jl_prediction p;
    if (jl_model_predict(gs[best].fit, target, &p) != JL_OK || !pos(p.energy_per_token_j.value))
        return 0;
    double e = s->fig[JL_FIG_ENERGY_PER_TOKEN_J];
    double tau = b / s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
    double change = p.energy_per_token_j.value / e - 1;
    double dt = p.step_time_s.value - tau;
    char p1[32], p2[32];
    ms_delta(p2, sizeof p2, dt);
    jl_finding *f = add_finding(
        r, "more_gpus", change < -o->min_gain ? "suggestion" : "info",
        jl__asprintf("%ld GPUs lift the memory ceiling to ~%.0f sequences%s; at batch %.0f the "
                     "measured %ldx%s group's %s fit predicts %.3g J/token (%s vs this run's "
                     "%.3g) at %s step time%s%s",
                     G2, mem2, assumed2 ? " (on an assumed per-task input length)" : "", target, G2,
                     s->attrs.gpu_model ? s->attrs.gpu_model : "",
                     jl_fit_method_name(gs[best].fit->method), p.energy_per_token_j.value,
                     pct(change, p1, sizeof p1), e, p2,
                     p.method == JL_FIT_POOLED
                         ? " (extrapolated beyond that group's measured batches, energy per token "
                           "pooled with the model's other sweeps)"
                         : (p.extrapolated ? " (extrapolated beyond that group's measured batches)"
                                           : ""),
                     change < -o->min_gain ? ""
                                           : ": more GPUs would not save energy here (paper "
                                             "Obs. 8: only when memory held the batch back)"));
    if (!f)
        return -1;
    num(f, "num_gpus", (double)G2);
    num(f, "memory_ceiling", mem2);
    num(f, "batch", target);
    num(f, "predicted_energy_per_token_j", p.energy_per_token_j.value);
    num(f, "predicted_energy_change", change);
    num(f, "predicted_step_time_change_s", dt);
    return 0;
}

/* The fit point of run s when the fit left it out as another regime (the
 * model does not describe it: no model-based number for it), else NULL. */
static const jl_fit_point *regime_excluded(const jl_group_fit *f, const jl_summary *s)
{
    for (size_t i = 0; f && i < f->n_points; i++)
        if (f->points[i].run == s)
            return f->points[i].regime_excluded ? &f->points[i] : NULL;
    return NULL;
}

/* The run's static power (G x idle power, from the trace, else the
 * descriptor) and its share of the energy; returns the idle power per GPU
 * (NaN unknown). */
static double run_static_power(jl_run_diagnosis *r, const jl_summary *s, const jl_descriptors *d,
                               double G, double P)
{
    double idle = NAN;
    r->static_power_source = "none";
    if (pos(s->attrs.gpu_idle_power_w)) {
        idle = s->attrs.gpu_idle_power_w;
        r->static_power_source = "trace";
    } else if (d && pos(jl_run_gpu_idle_w(&s->attrs, d))) {
        idle = jl_run_gpu_idle_w(&s->attrs, d);
        r->static_power_source = "descriptor";
    }
    r->static_power_w = G * idle;
    r->static_energy_share = pos(P) ? fmin(r->static_power_w / P, 1.0) : NAN;
    return idle;
}

/* The run's utilisation, from the first source that gives one: the group's
 * model (not for a run set apart as another regime, which gets the model's
 * definition with its measured power), SM utilisation, the group's
 * largest dynamic power. */
static void run_utilisation(jl_run_diagnosis *r, const jl_summary *s, const gstate *g,
                            const jl_fit_point *apart, double idle, double P, double G, double b)
{
    r->utilisation = NAN;
    r->utilisation_source = "none";
    if (g && g->fit && g->fit->method == JL_FIT_MODEL && pos(b) && !apart) {
        jl_prediction p;
        if (jl_model_predict(g->fit, b, &p) == JL_OK && isfinite(p.utilisation)) {
            r->utilisation = fmin(fmax(p.utilisation, 0), 1);
            r->utilisation_source = "model";
        }
    }
    if (apart && isfinite(idle) && pos(P) && pos(G) && isfinite(g->fit->tdp_w) &&
        g->fit->tdp_w > idle) {
        /* u(b) of the model's definition with the measured power */
        r->utilisation = fmin(fmax((P / G - idle) / (g->fit->tdp_w - idle), 0), 1);
        r->utilisation_source = "power";
    }
    if (!isfinite(r->utilisation) && isfinite(s->fig[JL_FIG_AVG_SM_UTIL])) {
        r->utilisation = fmin(fmax(s->fig[JL_FIG_AVG_SM_UTIL], 0), 1);
        r->utilisation_source = "sm_util";
    }
    if (!isfinite(r->utilisation) && g && pos(g->max_dyn_per_gpu) && pos(P) && pos(G) &&
        isfinite(idle)) {
        r->utilisation = fmin(fmax((P / G - idle) / g->max_dyn_per_gpu, 0), 1);
        r->utilisation_source = "group_power";
    }
}

/* Finding under_utilised: u below the threshold, with the static share and
 * the static energy wasted. 0, -1 on out-of-memory. */
static int finding_under_utilised(jl_run_diagnosis *r, double P, const char *unit)
{
    double u = r->utilisation;
    jl_finding *f = add_finding(
        r, "under_utilised", "warning",
        jl__asprintf("under-utilised (u = %.2f, %s): %.0f%% of the energy is static power "
                     "(%.0f W of %.0f W)%s%s",
                     u, r->utilisation_source, r->static_energy_share * 100, r->static_power_w, P,
                     isfinite(r->static_wasted_j) ? "; static energy wasted while idle: " : "",
                     ""));
    if (!f)
        return -1;
    if (isfinite(r->static_wasted_j)) {
        char *m = jl__asprintf("%s%.0f J (%.3g J/%s)", f->message, r->static_wasted_j,
                               r->static_wasted_j_per_token, unit);
        if (!m)
            return -1;
        free(f->message);
        f->message = m;
    } else if (isfinite(r->static_wasted_j_per_token)) {
        char *m = jl__asprintf("%s; static energy wasted while idle: %.3g J/%s", f->message,
                               r->static_wasted_j_per_token, unit);
        if (!m)
            return -1;
        free(f->message);
        f->message = m;
    }
    num(f, "utilisation", u);
    num(f, "static_energy_share", r->static_energy_share);
    num(f, "static_wasted_j", r->static_wasted_j);
    num(f, "static_wasted_j_per_token", r->static_wasted_j_per_token);
    return 0;
}

/* Finding fixed_cost: the energy of one step by the model's terms -- static
 * G·Ps·τ, the batch-independent dynamic Ew (weights, launches), the rest per
 * sequence -- when the first two are over half of it. 0, -1 on
 * out-of-memory. */
static int finding_fixed_cost(jl_run_diagnosis *r, const gstate *g, double b, double G)
{
    jl_prediction p;
    if (jl_model_predict(g->fit, b, &p) != JL_OK)
        return 0;
    double tau = p.model_step_time_s.value, E = p.model_power_w.value * tau;
    double st = G * g->fit->params[JL_MP_PS].value * tau, ew = g->fit->params[JL_MP_EW].value;
    if (!(pos(E) && st + ew > 0.5 * E))
        return 0;
    jl_finding *fa =
        add_finding(r, "fixed_cost", "info",
                    jl__asprintf("%.0f%% of each step's energy does not grow with the batch "
                                 "(static %.0f%%, weights and launches %.0f%%; model terms "
                                 "G·Ps·τ and Ew): a larger batch spreads it over more tokens",
                                 (st + ew) / E * 100, st / E * 100, ew / E * 100));
    if (!fa)
        return -1;
    num(fa, "fixed_share", (st + ew) / E);
    num(fa, "static_share", st / E);
    num(fa, "batch_independent_dynamic_share", ew / E);
    return 0;
}

/* Findings batch_limit (which limit binds, always) and headroom (a cap
 * that binds well below the memory ceiling). 0, -1 on out-of-memory. */
static int finding_batch_limit(jl_run_diagnosis *r, int diffusion)
{
    jl_finding *f =
        add_finding(r, "batch_limit", "info",
                    jl__asprintf("batch limit: %s — %s", jl_batch_limit_name(r->ceiling.limit),
                                 r->ceiling.evidence));
    if (!f)
        return -1;
    num(f, "achieved_batch", r->ceiling.achieved);
    num(f, "max_batch_size", r->ceiling.cap);
    num(f, "batch_ceiling", r->ceiling.ceiling);
    num(f, "memory_ceiling", r->ceiling.memory.value);
    num(f, "kv_cache_usage", r->ceiling.kv_usage_avg);
    if (r->ceiling.limit == JL_BATCH_LIMIT_CONFIG && pos(r->ceiling.memory_headroom) &&
        !diffusion) {
        f = add_finding(r, "headroom", "info",
                        jl__asprintf("headroom: the KV cache would fit ~%.1fx this batch (memory "
                                     "ceiling ~%.0f, %s%s)",
                                     r->ceiling.memory_headroom, r->ceiling.memory.value,
                                     r->ceiling.memory.method,
                                     jl_memory_ceiling_assumed(&r->ceiling.memory)
                                         ? " on an assumed per-task input length"
                                         : ""));
        if (!f)
            return -1;
        num(f, "memory_headroom", r->ceiling.memory_headroom);
    }
    return 0;
}

/* Finding regime: the run is set apart from its group's fit as another
 * regime at a sweep end. 0, -1 on out-of-memory. */
static int finding_regime(jl_run_diagnosis *r, const gstate *g, const jl_diagnose_options *o,
                          double b, double T)
{
    int low = b <= g->fit->batch_min;
    jl_finding *f =
        add_finding(r, "regime", "info",
                    jl__asprintf("another regime: this run (batch %.1f, %.0f tokens/s) is at "
                                 "the %s end of its sweep, where %s %.2fx %s; the group's fit "
                                 "leaves it out, so no model number or suggestion is given "
                                 "for it",
                                 b, T, low ? "low" : "high",
                                 low ? "a run with at least twice its batch has less than"
                                     : "it has less than",
                                 o->ceiling.regime_ratio,
                                 low ? "its throughput (an upstream limit above it, e.g. "
                                       "CPU-side preprocessing, or a fast path of its own)"
                                     : "the throughput of a run with at most half its batch "
                                       "(e.g. KV preemption)"));
    if (!f)
        return -1;
    num(f, "batch", b);
    num(f, "throughput_tok_s", T);
    return 0;
}

static int diagnose_run(jl_run_diagnosis *r, const jl_summary *s, const jl_model_group_list *gl,
                        gstate *gs, size_t gi, jl_whatif_engine **engine, const jl_descriptors *d,
                        const jl_diagnose_options *o)
{
    const gstate *g = gi != (size_t)-1 ? &gs[gi] : NULL;
    double G = s->attrs.num_gpus > 0 ? (double)s->attrs.num_gpus : NAN;
    double P = s->fig[JL_FIG_AVG_POWER_W];
    double b = s->fig[JL_FIG_AVG_BATCH_SIZE];
    int diffusion = jl_attrs_is_diffusion(&s->attrs);
    double T = diffusion ? s->fig[JL_FIG_ITEMS_PER_S] : s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
    r->run = s;
    r->group_ceiling = INFINITY;
    r->fit_method = "none";
    if (jl_batch_ceiling_run(s, d, &o->ceiling, &r->ceiling) != JL_OK)
        return -1;
    double idle = run_static_power(r, s, d, G, P);
    const jl_fit_point *apart = g ? regime_excluded(g->fit, s) : NULL;
    run_utilisation(r, s, g, apart, idle, P, G, b);
    double dur = s->fig[JL_FIG_STEADY_DURATION_S];
    double u = r->utilisation;
    r->static_wasted_j = isfinite(u) && pos(dur) ? r->static_power_w * dur * (1 - u) : NAN;
    r->static_wasted_j_per_token = isfinite(u) && pos(T) ? r->static_power_w * (1 - u) / T : NAN;
    if (g) {
        r->group = jl_group_key_format(&gl->items[gi].key);
        if (!r->group)
            return -1;
        if (g->fit)
            r->fit_method = jl_fit_method_name(g->fit->method);
        r->group_ceiling = group_limit(g);
        r->group_ceiling_reason = jl__strdup(g->ceil.reason ? g->ceil.reason : "");
        if (!r->group_ceiling_reason)
            return -1;
    }

    /* findings */
    if (isfinite(u) && u < o->under_utilised &&
        finding_under_utilised(r, P, diffusion ? "item" : "token"))
        return -1;
    if (g && g->fit && g->fit->method == JL_FIT_MODEL && pos(b) && pos(G) && !apart &&
        finding_fixed_cost(r, g, b, G))
        return -1;
    if (finding_batch_limit(r, diffusion))
        return -1;
    if (g && isfinite(g->ceil.upstream) && s->attrs.max_batch_size > 0 &&
        (double)s->attrs.max_batch_size > g->ceil.upstream * 1.05) {
        jl_finding *f =
            add_finding(r, "upstream", "warning",
                        jl__asprintf("upstream-bound: %s; this run's cap %ld is past it, so the "
                                     "GPU waits on work (CPU-side preprocessing, paper §3.2): a "
                                     "faster front end, not the GPU, would cut its energy",
                                     g->ceil.reason, s->attrs.max_batch_size));
        if (!f)
            return -1;
        num(f, "upstream_ceiling", g->ceil.upstream);
    }
    if (apart)
        return finding_regime(r, g, o, b, T);
    if (!g || diffusion)
        return 0;
    if (r->ceiling.limit == JL_BATCH_LIMIT_CONFIG || r->ceiling.limit == JL_BATCH_LIMIT_UNKNOWN) {
        if (!(isfinite(g->ceil.upstream) &&
              (double)s->attrs.max_batch_size > g->ceil.upstream * 1.05) &&
            suggest_batch(r, g, o))
            return -1;
    } else if (r->ceiling.limit == JL_BATCH_LIMIT_MEMORY) {
        if (suggest_gpus(r, gl, gs, gi, engine, d, o))
            return -1;
    }
    return 0;
}

jl_status jl_diagnose_fitted(const jl_summary_list *l, const jl_model_group_list *gl,
                             jl_group_fit *const *fits, const jl_descriptors *d,
                             const jl_diagnose_options *opt, jl_diagnosis **out, jl_error **err)
{
    jl_diagnose_options defo;
    if (!opt) {
        jl_diagnose_options_default(&defo);
        opt = &defo;
    }
    *out = NULL;
    jl_status st = JL_OK;
    gstate *gs = NULL;
    size_t *run_group = NULL;
    jl_whatif_engine *engine = NULL;
    jl_diagnosis *x = calloc(1, sizeof *x);
    if (!x)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    gs = gl->count ? calloc(gl->count, sizeof *gs) : NULL;
    run_group = l->count ? malloc(l->count * sizeof *run_group) : NULL;
    x->runs = l->count ? calloc(l->count, sizeof *x->runs) : NULL;
    if ((gl->count && !gs) || (l->count && (!run_group || !x->runs))) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto end;
    }
    for (size_t i = 0; i < l->count; i++)
        run_group[i] = (size_t)-1;
    for (size_t gi = 0; gi < gl->count; gi++) {
        const jl_model_group *g = &gl->items[gi];
        gs[gi].fit = fits[gi];
        if (jl_group_ceiling_compute(g->runs, g->n_runs, d, &opt->ceiling, &gs[gi].ceil) != JL_OK) {
            st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            goto end;
        }
        for (size_t k = 0; k < g->n_runs; k++) {
            const jl_summary *s = g->runs[k];
            double G = s->attrs.num_gpus > 0 ? (double)s->attrs.num_gpus : NAN;
            double idle = jl_run_gpu_idle_w(&s->attrs, d);
            double dyn = s->fig[JL_FIG_AVG_POWER_W] / G - (isfinite(idle) ? idle : 0);
            if (isfinite(dyn) && dyn > gs[gi].max_dyn_per_gpu)
                gs[gi].max_dyn_per_gpu = dyn;
            run_group[g->run_index[k]] = gi;
        }
    }
    for (size_t i = 0; i < l->count; i++) {
        x->count = i + 1;
        if (diagnose_run(&x->runs[i], l->items[i], gl, gs, run_group[i], &engine, d, opt)) {
            st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            goto end;
        }
    }
end:
    for (size_t gi = 0; gs && gi < gl->count; gi++) {
        jl_group_ceiling_clear(&gs[gi].ceil);
        jl_whatif_clear(&gs[gi].whatif);
    }
    jl_whatif_engine_free(engine);
    free(gs);
    free(run_group);
    if (st != JL_OK) {
        jl_diagnosis_free(x);
        return st;
    }
    *out = x;
    return JL_OK;
}

jl_status jl_diagnose(const jl_summary_list *l, const jl_descriptors *d,
                      const jl_diagnose_options *opt, jl_diagnosis **out, jl_error **err)
{
    *out = NULL;
    jl_model_group_list gl = {0};
    jl_group_fit **fits = NULL;
    jl_status st = jl_model_groups(l, &gl, err);
    if (st != JL_OK)
        return st;
    if (!(fits = jl__calloc_array(gl.count ? gl.count : 1, sizeof *fits))) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto end;
    }
    jl_model_options mo;
    jl_model_options_default(&mo);
    if ((st = jl_model_fit_groups(&gl, &mo, d, fits, err)) != JL_OK)
        goto end;
    st = jl_diagnose_fitted(l, &gl, fits, d, opt, out, err);
end:
    for (size_t gi = 0; fits && gi < gl.count; gi++)
        jl_group_fit_free(fits[gi]);
    free(fits);
    jl_group_list_clear(&gl);
    return st;
}

static json_t *memory_json(const jl_memory_ceiling *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "value", jl_json_number(m->value));
    json_object_set_new(o, "method", json_string(m->method));
    json_object_set_new(o, "arithmetic_value", jl_json_number(m->arithmetic_value));
    json_object_set_new(o, "gpu_memory_bytes", jl_json_number(m->gpu_memory_bytes));
    json_object_set_new(o, "usable_bytes", jl_json_number(m->usable_bytes));
    json_object_set_new(o, "weight_bytes", jl_json_number(m->weight_bytes));
    json_object_set_new(o, "kv_bytes_per_token", jl_json_number(m->kv_bytes_per_token));
    json_object_set_new(o, "kv_capacity_tokens", jl_json_number(m->kv_capacity_tokens));
    json_object_set_new(o, "mean_input_tokens", jl_json_number(m->mean_input_tokens));
    json_object_set_new(o, "mean_output_tokens", jl_json_number(m->mean_output_tokens));
    json_object_set_new(o, "context_tokens", jl_json_number(m->context_tokens));
    json_object_set_new(o, "input_source", json_string(m->input_source));
    json_object_set_new(o, "kv_cache_usage", jl_json_number(m->kv_usage));
    json_object_set_new(o, "tokens_per_sequence", jl_json_number(m->tokens_per_sequence));
    json_object_set_new(o, "missing", m->missing ? json_string(m->missing) : json_null());
    return o;
}

json_t *jl_diagnose_document(const jl_diagnosis *x)
{
    json_t *doc = json_object(), *runs = json_array();
    if (!doc || !runs) {
        json_decref(doc);
        json_decref(runs);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string("joules.diagnose/1"));
    json_object_set_new(doc, "runs", runs);
    for (size_t i = 0; i < x->count; i++) {
        const jl_run_diagnosis *r = &x->runs[i];
        json_t *o = jl_run_key_to_json(r->run);
        if (!o) {
            json_decref(doc);
            return NULL;
        }
        json_object_set_new(o, "boundary", jl_boundary_to_json(r->run->boundary));
        json_object_set_new(o, "utilisation", jl_json_number(r->utilisation));
        json_object_set_new(o, "utilisation_source", json_string(r->utilisation_source));
        json_object_set_new(o, "static_power_w", jl_json_number(r->static_power_w));
        json_object_set_new(o, "static_power_source", json_string(r->static_power_source));
        json_object_set_new(o, "static_energy_share", jl_json_number(r->static_energy_share));
        json_object_set_new(o, "static_wasted_j", jl_json_number(r->static_wasted_j));
        json_object_set_new(o, "static_wasted_j_per_token",
                            jl_json_number(r->static_wasted_j_per_token));
        json_object_set_new(o, "energy_per_token_j",
                            jl_json_number(r->run->fig[JL_FIG_ENERGY_PER_TOKEN_J]));
        json_object_set_new(o, "batch_limit", json_string(jl_batch_limit_name(r->ceiling.limit)));
        json_object_set_new(o, "batch_ceiling", jl_json_number(r->ceiling.ceiling));
        json_object_set_new(o, "achieved_batch", jl_json_number(r->ceiling.achieved));
        json_object_set_new(o, "achieved_over_cap", jl_json_number(r->ceiling.achieved_over_cap));
        json_object_set_new(o, "kv_cache_usage", jl_json_number(r->ceiling.kv_usage_avg));
        json_object_set_new(o, "kv_cache_usage_peak", jl_json_number(r->ceiling.kv_usage_peak));
        json_object_set_new(o, "kv_cache_usage_source",
                            r->ceiling.kv_source ? json_string(r->ceiling.kv_source) : json_null());
        json_object_set_new(o, "batch_evidence_mixed", json_boolean(r->ceiling.mixed));
        json_object_set_new(o, "memory_ceiling", memory_json(&r->ceiling.memory));
        json_object_set_new(o, "memory_headroom", jl_json_number(r->ceiling.memory_headroom));
        json_object_set_new(o, "batch_evidence", json_string(r->ceiling.evidence));
        json_object_set_new(o, "group", r->group ? json_string(r->group) : json_null());
        json_object_set_new(o, "fit_method", json_string(r->fit_method));
        json_object_set_new(o, "group_ceiling", jl_json_number(r->group_ceiling));
        json_object_set_new(o, "group_ceiling_reason",
                            r->group_ceiling_reason ? json_string(r->group_ceiling_reason)
                                                    : json_null());
        json_t *fs = json_array();
        for (size_t k = 0; fs && k < r->n_findings; k++) {
            const jl_finding *f = &r->findings[k];
            json_t *fo = json_object(), *nums = json_object();
            if (!fo || !nums) {
                json_decref(fo);
                json_decref(nums);
                continue;
            }
            json_object_set_new(fo, "kind", json_string(f->kind));
            json_object_set_new(fo, "severity", json_string(f->severity));
            json_object_set_new(fo, "message", json_string(f->message));
            for (size_t n = 0; n < f->n_numbers; n++)
                json_object_set_new(nums, f->numbers[n].name, jl_json_number(f->numbers[n].value));
            json_object_set_new(fo, "numbers", nums);
            json_array_append_new(fs, fo);
        }
        json_object_set_new(o, "findings", fs ? fs : json_array());
        json_array_append_new(runs, o);
    }
    return doc;
}
