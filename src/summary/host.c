/* host/ over the steady-state window (trace format 1.2): the energy of the
 * rest of the system, and the whole system's. The rules are in
 * docs/summary.md, "The whole system: host/"; the window is the one every
 * other figure uses, the counters go through the GPU counter's walk
 * (energy.c: restarts, jitter, and wraps at @max_energy_range_j when it is
 * known), and node_watts is integrated by trapezoid, each interpolated at
 * the window's edges as the GPUs' energy is. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "core/util.h"
#include "summary/summary_internal.h"

static jl_host_summary *host_new(void)
{
    jl_host_summary *h = calloc(1, sizeof *h);
    if (h)
        h->cpu_dram_energy_j = h->node_energy_j = h->rest_energy_j = NAN;
    return h;
}

static double *nan_array(size_t n)
{
    double *v = jl__malloc_array(n ? n : 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        v[i] = NAN;
    return v;
}

/* Each socket's energy of one counter over [a, b] into out[S]; *sum = their
 * sum (NaN when one is not usable). Warnings name the counter and socket. */
static jl_status counter_energy(const jl_run *r, const char *name, const jl_series *e,
                                const double *W, const jl_summary_options *opt, double a, double b,
                                double *out, double *sum, jl_summary *s)
{
    jl_status st = JL_OK;
    *sum = 0;
    for (size_t k = 0; k < e->g; k++) {
        jl__track tr;
        jl__counter_report rep;
        double mod = W ? W[k] : NAN;
        if ((st = jl__track_counter(&tr, r->host_time, r->host_n, e, NULL, k,
                                    opt->counter_restart_min_drop_j, mod, &rep, NULL)) != JL_OK)
            return st;
        out[k] = NAN;
        if (rep.usable) {
            out[k] = jl__track_at(&tr, b) - jl__track_at(&tr, a);
            for (size_t j = 0; j < rep.n_restarts && st == JL_OK; j++) {
                const jl__restart *x = &rep.restarts[j];
                st = jl_summary_warn(s, "host_counter_restart",
                                     "host/%s socket %zu: dropped from %.6g J to %.6g J at t = "
                                     "%.6g s (row %zu): %s; bridged %.6g J with the mean rate "
                                     "of the neighbouring intervals",
                                     name, k, x->from_j, x->to_j, x->time, x->row,
                                     isfinite(mod) ? "a restart (not a plausible wrap at "
                                                     "@max_energy_range_j)"
                                                   : "restart or wrap (@max_energy_range_j "
                                                     "unknown)",
                                     x->bridged_j);
            }
            for (size_t j = 0; j < rep.n_restarts && st == JL_OK; j++)
                st = jl__validity_add(&s->validity, JL__R_COUNTER_RESET, rep.restarts[j].bridged_j,
                                      "host/%s socket %zu: the counter restarted at t = %.6g s; "
                                      "%.6g J bridged with the neighbouring rate",
                                      name, k, rep.restarts[j].time, rep.restarts[j].bridged_j);
            if (st == JL_OK && rep.n_wraps)
                st = jl__validity_add(&s->validity, JL__R_COUNTER_WRAP, NAN,
                                      "host/%s socket %zu: the counter wrapped %zu time%s at "
                                      "@max_energy_range_j %.6g J: unwrapped exactly",
                                      name, k, rep.n_wraps, rep.n_wraps == 1 ? "" : "s", mod);
            if (st == JL_OK && rep.n_jitter)
                st = jl_summary_warn(s, "host_counter_jitter",
                                     "host/%s socket %zu: decreased %zu times by less than "
                                     "%.6g J (largest %.6g J); held at its running maximum",
                                     name, k, rep.n_jitter, opt->counter_restart_min_drop_j,
                                     rep.jitter_max_j);
        } else
            st = jl_summary_warn(s, "host_counter_unusable",
                                 "host/%s socket %zu: %s: host energy from this counter is "
                                 "missing",
                                 name, k, rep.reason);
        jl__track_free(&tr);
        if (st != JL_OK)
            return st;
        *sum += out[k];
    }
    return JL_OK;
}

jl_status jl__host_figures(const jl_run *r, const jl_summary_options *opt, double a, double b,
                           double E, double tokens, double extrapolate_s, jl_summary *s)
{
    if (r->host_n == 0 || !r->host_time)
        return JL_OK;
    jl_status st = JL_OK;
    jl_host_summary *h = host_new();
    if (!h)
        return JL_ENOMEM;
    s->host = h;
    if (r->host_source && !(h->source = jl__strdup(r->host_source)))
        return JL_ENOMEM;
    /* S from the series themselves (a run filled by hand may leave
     * host_sockets 0); the per-socket arrays hold S values, NaN where a
     * counter has fewer columns (the reader allows none such) */
    size_t S = r->cpu_energy_j.v ? r->cpu_energy_j.g : 0;
    if (r->dram_energy_j.v && r->dram_energy_j.g > S)
        S = r->dram_energy_j.g;
    h->sockets = S;
    if (jl_attrs_is_node_ac(&r->attrs))
        return jl_summary_warn(s, "host_node_ac_scope",
                               "power/ already holds the node's AC power (@power_scope "
                               "node_ac): host/ is not added to it");
    if (!(isfinite(a) && isfinite(b)))
        return JL_OK;
    const double t0 = r->host_time[0], t1 = r->host_time[r->host_n - 1];
    if (!(a >= t0 - extrapolate_s && b <= t1 + extrapolate_s))
        return jl_summary_warn(s, "host_span",
                               "the window [%.6g, %.6g] s reaches more than %g s beyond the "
                               "host/ samples [%.6g, %.6g] s: host figures are missing",
                               a, b, extrapolate_s, t0, t1);
    double cpu = NAN, dram = NAN;
    if (r->cpu_energy_j.v) {
        if (!(h->cpu_energy_j = nan_array(S)))
            return JL_ENOMEM;
        if ((st = counter_energy(r, "cpu_energy_j", &r->cpu_energy_j, r->cpu_max_energy_range_j,
                                 opt, a, b, h->cpu_energy_j, &cpu, s)) != JL_OK)
            return st;
    }
    if (r->dram_energy_j.v) {
        if (!(h->dram_energy_j = nan_array(S)))
            return JL_ENOMEM;
        if ((st = counter_energy(r, "dram_energy_j", &r->dram_energy_j, r->dram_max_energy_range_j,
                                 opt, a, b, h->dram_energy_j, &dram, s)) != JL_OK)
            return st;
    }
    /* CPU + DRAM: the package counters are required (a DRAM counter alone
     * misses the larger part); DRAM is added where recorded */
    if (r->cpu_energy_j.v)
        h->cpu_dram_energy_j = r->dram_energy_j.v ? cpu + dram : cpu;
    if (r->node_watts) {
        jl__track tr;
        jl_series nw = {r->host_n, 1, r->node_watts};
        int usable;
        size_t bad;
        if ((st = jl__track_integral(&tr, r->host_time, r->host_n, &nw, 0, &usable, &bad, NULL)) !=
            JL_OK)
            return st;
        if (usable)
            h->node_energy_j = jl__track_at(&tr, b) - jl__track_at(&tr, a);
        jl__track_free(&tr);
    }
    double host = NAN, total = NAN;
    if (isfinite(h->node_energy_j)) {
        h->method = JL_HOST_NODE_AC;
        total = h->node_energy_j;
        host = total - E;
        h->rest_energy_j = host - h->cpu_dram_energy_j;
        double parts = E + (isfinite(h->cpu_dram_energy_j) ? h->cpu_dram_energy_j : 0);
        if (isfinite(E) && parts > total &&
            (st = jl_summary_warn(s, "host_below_parts",
                                  "the node's AC energy over the window (%.6g J) is less than "
                                  "the GPUs'%s (%.6g J): node_watts does not cover them all, "
                                  "or the clocks differ",
                                  total, isfinite(h->cpu_dram_energy_j) ? " + CPU + DRAM" : "",
                                  parts)) != JL_OK)
            return st;
    } else if (isfinite(h->cpu_dram_energy_j)) {
        h->method = JL_HOST_CPU_DRAM;
        host = h->cpu_dram_energy_j;
        total = E + host;
    } else if (r->dram_energy_j.v && !r->cpu_energy_j.v && !r->node_watts &&
               (st = jl_summary_warn(s, "host_incomplete",
                                     "host/ has dram_energy_j but neither cpu_energy_j nor "
                                     "node_watts: host figures are missing")) != JL_OK)
        return st;
    s->fig[JL_FIG_HOST_ENERGY_J] = host;
    s->fig[JL_FIG_TOTAL_ENERGY_J] = total;
    if (isfinite(tokens) && tokens > 0) {
        s->fig[JL_FIG_HOST_ENERGY_PER_TOKEN_J] = host / tokens;
        s->fig[JL_FIG_TOTAL_ENERGY_PER_TOKEN_J] = total / tokens;
    }
    return JL_OK;
}
