/* pick: the minimum-energy configuration meeting an SLO (joules/choice.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "choice/choice_internal.h"
#include "core/util.h"
#include "joules/choice.h"
#include "joules/frontier.h"

const char *jl_pick_status_name(jl_pick_status s)
{
    switch (s) {
    case JL_PICK_FEASIBLE: return "feasible";
    case JL_PICK_INFEASIBLE: return "infeasible";
    case JL_PICK_NOT_APPLICABLE: return "not_applicable";
    case JL_PICK_NO_RUNS: return "no_runs";
    }
    return "unknown";
}

void jl_pick_options_default(jl_pick_options *opt)
{
    opt->energy_figure = -1;
    opt->tie_tolerance = 1e-9;
}

void jl_pick_clear(jl_pick *p)
{
    if (!p)
        return;
    free(p->ties);
    memset(p, 0, sizeof *p);
    p->choice = -1;
    p->energy = NAN;
    p->worst_miss = NAN;
    p->energy_figure = -1;
}

int jl__energy_figure(const jl_pick_options *opt, const jl_summary *s)
{
    if (opt && opt->energy_figure >= 0)
        return opt->energy_figure;
    return jl_attrs_counts_items(&s->attrs) ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J;
}

double jl__latency_of(const jl_summary *s)
{
    int f = jl_attrs_is_diffusion(&s->attrs)    ? JL_FIG_BATCH_LATENCY_S
            : jl_attrs_is_per_sample(&s->attrs) ? JL_FIG_PERCENTILE_LATENCY_S
                                                : JL_FIG_MEDIAN_ITL_S;
    return s->fig[f];
}

int jl__ties(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* NaN-safe "a < b": NaN sorts last. */
static int lt_nan_last(double a, double b)
{
    if (isnan(a))
        return 0;
    if (isnan(b))
        return 1;
    return a < b;
}

/* Is feasible run a better than b (energy, latency, config)? */
static int better_feasible(const jl_summary *a, double ea, const jl_summary *b, double eb,
                           double tol)
{
    if (!jl__ties(ea, eb, tol))
        return ea < eb;
    double la = jl__latency_of(a), lb = jl__latency_of(b);
    if (la != lb && !(isnan(la) && isnan(lb)))
        return lt_nan_last(la, lb);
    return jl_run_config_cmp(a, b) < 0;
}

/* Is infeasible run a closer than b (miss, energy, config)? */
static int closer(const jl_summary *a, double ma, double ea, const jl_summary *b, double mb,
                  double eb)
{
    if (ma != mb)
        return ma < mb;
    if (ea != eb && !(isnan(ea) && isnan(eb)))
        return lt_nan_last(ea, eb);
    return jl_run_config_cmp(a, b) < 0;
}

jl_status jl_pick_runs(const jl_summary_list *l, const size_t *runs, size_t n, const jl_slo *slo,
                       const jl_pick_options *opt, jl_pick *out, jl_error **err)
{
    jl_pick_options def;
    if (!opt) {
        jl_pick_options_default(&def);
        opt = &def;
    }
    double tol = opt->tie_tolerance >= 0 ? opt->tie_tolerance : 0;
    memset(out, 0, sizeof *out);
    jl_pick_clear(out);
    out->n_runs = n;
    if (n == 0) {
        out->status = JL_PICK_NO_RUNS;
        return JL_OK;
    }
    long best = -1, closest = -1;
    double best_e = NAN, closest_m = NAN, closest_e = NAN;
    size_t n_eval = 0;
    for (size_t i = 0; i < n; i++) {
        const jl_summary *s = l->items[runs[i]];
        int fe = jl__energy_figure(opt, s);
        double e = fe >= 0 ? s->fig[fe] : NAN;
        double miss;
        jl_slo_result r = jl_slo_eval(slo, s, &miss);
        if (r == JL_SLO_MISSING || !isfinite(e)) {
            out->n_missing++;
            continue;
        }
        n_eval++;
        if (r == JL_SLO_PASS) {
            out->n_feasible++;
            if (best < 0 || better_feasible(s, e, l->items[best], best_e, tol)) {
                best = (long)runs[i];
                best_e = e;
            }
        } else if (closest < 0 || closer(s, miss, e, l->items[closest], closest_m, closest_e)) {
            closest = (long)runs[i];
            closest_m = miss;
            closest_e = e;
        }
    }
    if (best >= 0) {
        out->status = JL_PICK_FEASIBLE;
        out->choice = best;
        out->energy = best_e;
        out->energy_figure = jl__energy_figure(opt, l->items[best]);
        out->worst_miss = NAN;
        /* ties: other feasible runs with the same energy */
        for (size_t i = 0; i < n; i++) {
            const jl_summary *s = l->items[runs[i]];
            if ((long)runs[i] == best)
                continue;
            int fe = jl__energy_figure(opt, s);
            double e = fe >= 0 ? s->fig[fe] : NAN;
            if (!isfinite(e) || jl_slo_eval(slo, s, NULL) != JL_SLO_PASS ||
                !jl__ties(e, best_e, tol))
                continue;
            size_t *nt = realloc(out->ties, (out->n_ties + 1) * sizeof *nt);
            if (!nt)
                return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            nt[out->n_ties++] = runs[i];
            out->ties = nt;
        }
    } else if (closest >= 0) {
        out->status = JL_PICK_INFEASIBLE;
        out->choice = closest;
        out->energy = closest_e;
        out->energy_figure = jl__energy_figure(opt, l->items[closest]);
        out->worst_miss = closest_m;
    } else {
        out->status = n_eval ? JL_PICK_INFEASIBLE : JL_PICK_NOT_APPLICABLE;
    }
    return JL_OK;
}

size_t jl_pick_slo_applies(const jl_pick_set *ps, size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < ps->n; i++)
        n += ps->items[i].slo == k && ps->items[i].pick.status != JL_PICK_NOT_APPLICABLE &&
             ps->items[i].pick.status != JL_PICK_NO_RUNS;
    return n;
}

void jl_pick_set_free(jl_pick_set *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->items[i].model);
        free(ps->items[i].task);
        jl_pick_clear(&ps->items[i].pick);
    }
    free(ps->items);
    free(ps);
}

jl_status jl_pick_all(const jl_summary_list *l, const jl_slo *const *slos, size_t n_slos,
                      const jl_pick_options *opt, jl_pick_set **out, jl_error **err)
{
    *out = NULL;
    jl_pick_set *ps = calloc(1, sizeof *ps);
    if (!ps)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (opt)
        ps->opt = *opt;
    else
        jl_pick_options_default(&ps->opt);
    ps->slos = slos;
    ps->n_slos = n_slos;
    static const char *const keys[] = {"model", "task"};
    jl_group_set gs;
    jl_status st = jl_group_runs(l, keys, 2, NULL, &gs, err);
    if (st) {
        free(ps);
        return st;
    }
    size_t per = n_slos ? n_slos : 1;
    if (gs.n && !(ps->items = jl__calloc_array(gs.n * per, sizeof *ps->items)))
        goto oom;
    for (size_t g = 0; g < gs.n; g++)
        for (size_t k = 0; k < per; k++) {
            jl_pick_entry *e = &ps->items[ps->n];
            if ((gs.groups[g].values[0] && !(e->model = jl__strdup(gs.groups[g].values[0]))) ||
                (gs.groups[g].values[1] && !(e->task = jl__strdup(gs.groups[g].values[1])))) {
                free(e->model);
                free(e->task);
                goto oom;
            }
            e->slo = n_slos ? k : (size_t)-1;
            ps->n++;
            st = jl_pick_runs(l, gs.groups[g].runs, gs.groups[g].n_runs, n_slos ? slos[k] : NULL,
                              &ps->opt, &e->pick, err);
            if (st)
                goto fail;
        }
    jl_group_set_clear(&gs);
    *out = ps;
    return JL_OK;
oom:
    st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
fail:
    jl_group_set_clear(&gs);
    jl_pick_set_free(ps);
    return st;
}
