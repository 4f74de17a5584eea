/* The time–energy frontier of each (model, task) and the per-configuration
 * curves (joules/frontier.h; the rule is in docs/choice.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/frontier.h"

void jl_frontier_options_default(jl_frontier_options *opt)
{
    opt->latency_figure = -1;
    opt->energy_figure = -1;
    opt->tolerance = 1e-9;
}

int jl_frontier_latency_figure(const jl_frontier_options *opt, const jl_summary *s)
{
    if (opt && opt->latency_figure >= 0)
        return opt->latency_figure;
    if (jl_attrs_is_diffusion(&s->attrs))
        return JL_FIG_BATCH_LATENCY_S;
    /* the per-sample workloads (MLPerf's): LoadGen's latency at the run's
     * target percentile (@latency_percentile; sweep() keeps one per
     * frontier) */
    if (jl_attrs_is_per_sample(&s->attrs))
        return JL_FIG_PERCENTILE_LATENCY_S;
    /* published data with a mean time per output token and no ITL
     * distribution (ML.ENERGY v2): that figure, never mixed with median ITL
     * in one frontier (sweep()) */
    if (!isfinite(s->fig[JL_FIG_MEDIAN_ITL_S]) && isfinite(s->fig[JL_FIG_AVG_TPOT_S]))
        return JL_FIG_AVG_TPOT_S;
    return JL_FIG_MEDIAN_ITL_S;
}

int jl_frontier_energy_figure(const jl_frontier_options *opt, const jl_summary *s)
{
    if (opt && opt->energy_figure >= 0)
        return opt->energy_figure;
    return jl_attrs_counts_items(&s->attrs) ? JL_FIG_ENERGY_PER_ITEM_J : JL_FIG_ENERGY_PER_TOKEN_J;
}

typedef struct cand {
    size_t run;
    double lat, en;
    const jl_summary *s;
} cand;

static int cmp_cand(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->lat != b->lat)
        return a->lat < b->lat ? -1 : 1;
    if (a->en != b->en)
        return a->en < b->en ? -1 : 1;
    int c = jl_run_config_cmp(a->s, b->s);
    if (c)
        return c;
    return (a->run > b->run) - (a->run < b->run);
}

/* |a - b| within the relative tolerance of the larger magnitude. */
static int close_to(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

void jl_frontier_clear(jl_frontier *f)
{
    if (!f)
        return;
    free(f->model);
    free(f->task);
    free(f->workload);
    for (size_t i = 0; i < f->n_points; i++)
        free(f->points[i].equivalent);
    free(f->points);
    free(f->dominated);
    free(f->skipped);
    for (size_t c = 0; c < f->n_curves; c++) {
        free(f->curves[c].gpu_model);
        free(f->curves[c].precision);
        free(f->curves[c].points);
    }
    free(f->curves);
    memset(f, 0, sizeof *f);
}

static jl_status push_size(size_t **arr, size_t *n, size_t v)
{
    size_t *na = realloc(*arr, (*n + 1) * sizeof *na);
    if (!na)
        return JL_ENOMEM;
    na[(*n)++] = v;
    *arr = na;
    return JL_OK;
}

/* Points, dominated and skipped of the runs given (no curves). */
static jl_status sweep(const jl_summary_list *l, const size_t *runs, size_t n_runs,
                       const jl_frontier_options *opt, jl_frontier *out)
{
    cand *c = jl__calloc_array(n_runs ? n_runs : 1, sizeof *c);
    if (!c)
        return JL_ENOMEM;
    size_t nc = 0;
    jl_status st = JL_OK;
    double tol = opt->tolerance >= 0 && isfinite(opt->tolerance) ? opt->tolerance : 0;
    /* one latency figure per frontier: where some runs have a median ITL,
     * runs that only have the mean TPOT are skipped, not compared */
    int any_itl = 0;
    for (size_t i = 0; i < n_runs; i++)
        any_itl |= jl_frontier_latency_figure(opt, l->items[runs[i]]) == JL_FIG_MEDIAN_ITL_S &&
                   isfinite(l->items[runs[i]]->fig[JL_FIG_MEDIAN_ITL_S]);
    /* one percentile per frontier too: runs whose latency is another
     * percentile than the first such run's (p90 beside p99) are skipped */
    char pct[32] = "";
    for (size_t i = 0; i < n_runs && !pct[0]; i++) {
        const jl_summary *s = l->items[runs[i]];
        if (jl_frontier_latency_figure(opt, s) == JL_FIG_PERCENTILE_LATENCY_S &&
            isfinite(s->fig[JL_FIG_PERCENTILE_LATENCY_S]) &&
            jl_attrs_get(&s->attrs, "latency_percentile", pct, sizeof pct) < 0)
            pct[0] = '\0';
    }
    for (size_t i = 0; i < n_runs; i++) {
        const jl_summary *s = l->items[runs[i]];
        int fl = jl_frontier_latency_figure(opt, s), fe = jl_frontier_energy_figure(opt, s);
        double lat = fl >= 0 ? s->fig[fl] : NAN, en = fe >= 0 ? s->fig[fe] : NAN;
        if (any_itl && fl == JL_FIG_AVG_TPOT_S)
            lat = NAN;
        char rp[32] = "";
        if (fl == JL_FIG_PERCENTILE_LATENCY_S &&
            (jl_attrs_get(&s->attrs, "latency_percentile", rp, sizeof rp) < 0 || strcmp(rp, pct)))
            lat = NAN;
        if (!isfinite(lat) || !isfinite(en)) {
            if ((st = push_size(&out->skipped, &out->n_skipped, runs[i])))
                goto end;
            continue;
        }
        c[nc].run = runs[i];
        c[nc].lat = lat;
        c[nc].en = en;
        c[nc].s = s;
        nc++;
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    if (nc && !(out->points = jl__calloc_array(nc, sizeof *out->points))) {
        st = JL_ENOMEM;
        goto end;
    }
    if (nc && !(out->dominated = jl__calloc_array(nc, sizeof *out->dominated))) {
        st = JL_ENOMEM;
        goto end;
    }
    for (size_t i = 0; i < nc; i++) {
        jl_frontier_point *last = out->n_points ? &out->points[out->n_points - 1] : NULL;
        if (last && close_to(c[i].lat, last->latency, tol) &&
            close_to(c[i].en, last->energy, tol)) {
            if ((st = push_size(&last->equivalent, &last->n_equivalent, c[i].run)))
                goto end;
        } else if (!last || c[i].en < last->energy - tol * fabs(last->energy)) {
            jl_frontier_point *p = &out->points[out->n_points++];
            p->run = c[i].run;
            p->latency = c[i].lat;
            p->energy = c[i].en;
        } else {
            out->dominated[out->n_dominated].run = c[i].run;
            out->dominated[out->n_dominated].by = last->run;
            out->n_dominated++;
        }
    }
end:
    free(c);
    return st;
}

static int in_frontier(const jl_frontier *f, size_t run)
{
    for (size_t i = 0; i < f->n_points; i++) {
        if (f->points[i].run == run)
            return 1;
        for (size_t k = 0; k < f->points[i].n_equivalent; k++)
            if (f->points[i].equivalent[k] == run)
                return 1;
    }
    return 0;
}

typedef struct cp_sort {
    jl_curve_point p;
    const jl_summary *s;
} cp_sort;

static int cmp_cp(const void *pa, const void *pb)
{
    const cp_sort *a = pa, *b = pb;
    if (a->p.batch != b->p.batch)
        return a->p.batch < b->p.batch ? -1 : 1;
    int an = isnan(a->p.latency), bn = isnan(b->p.latency);
    if (an != bn)
        return an - bn;
    if (!an && a->p.latency != b->p.latency)
        return a->p.latency < b->p.latency ? -1 : 1;
    return jl_run_config_cmp(a->s, b->s);
}

static jl_status build_curves(const jl_summary_list *l, const size_t *runs, size_t n_runs,
                              const jl_frontier_options *opt, jl_frontier *f)
{
    static const char *const keys[] = {"gpu_model", "num_gpus", "precision"};
    /* group the group's runs: build a keep mask over the whole list */
    unsigned char *keep = calloc(l->count ? l->count : 1, 1);
    jl_group_set gs = {0};
    jl_status st = JL_OK;
    if (!keep)
        return JL_ENOMEM;
    for (size_t i = 0; i < n_runs; i++)
        keep[runs[i]] = 1;
    if ((st = jl_group_runs(l, keys, 3, keep, &gs, NULL)))
        goto end;
    if (gs.n && !(f->curves = jl__calloc_array(gs.n, sizeof *f->curves))) {
        st = JL_ENOMEM;
        goto end;
    }
    for (size_t g = 0; g < gs.n; g++) {
        jl_group *gr = &gs.groups[g];
        jl_curve *cv = &f->curves[f->n_curves++];
        const jl_summary *s0 = l->items[gr->runs[0]];
        cv->num_gpus = s0->attrs.num_gpus;
        if ((s0->attrs.gpu_model && !(cv->gpu_model = jl__strdup(s0->attrs.gpu_model))) ||
            (s0->attrs.precision && !(cv->precision = jl__strdup(s0->attrs.precision)))) {
            st = JL_ENOMEM;
            goto end;
        }
        jl_frontier cf;
        memset(&cf, 0, sizeof cf);
        if ((st = sweep(l, gr->runs, gr->n_runs, opt, &cf))) {
            jl_frontier_clear(&cf);
            goto end;
        }
        cp_sort *tmp = jl__calloc_array(gr->n_runs, sizeof *tmp);
        if (!tmp) {
            jl_frontier_clear(&cf);
            st = JL_ENOMEM;
            goto end;
        }
        for (size_t i = 0; i < gr->n_runs; i++) {
            const jl_summary *s = l->items[gr->runs[i]];
            int fl = jl_frontier_latency_figure(opt, s), fe = jl_frontier_energy_figure(opt, s);
            tmp[i].s = s;
            tmp[i].p.run = gr->runs[i];
            tmp[i].p.latency = fl >= 0 ? s->fig[fl] : NAN;
            tmp[i].p.energy = fe >= 0 ? s->fig[fe] : NAN;
            tmp[i].p.batch = s->attrs.max_batch_size;
            tmp[i].p.on_curve_frontier = in_frontier(&cf, gr->runs[i]);
            tmp[i].p.on_frontier = in_frontier(f, gr->runs[i]);
        }
        jl_frontier_clear(&cf);
        qsort(tmp, gr->n_runs, sizeof *tmp, cmp_cp);
        cv->points = jl__calloc_array(gr->n_runs, sizeof *cv->points);
        if (!cv->points) {
            free(tmp);
            st = JL_ENOMEM;
            goto end;
        }
        for (size_t i = 0; i < gr->n_runs; i++)
            cv->points[i] = tmp[i].p;
        cv->n_points = gr->n_runs;
        free(tmp);
    }
end:
    jl_group_set_clear(&gs);
    free(keep);
    return st;
}

jl_status jl_frontier_of(const jl_summary_list *l, const size_t *runs, size_t n_runs,
                         const jl_frontier_options *opt, jl_frontier *out, jl_error **err)
{
    jl_frontier_options def;
    if (!opt) {
        jl_frontier_options_default(&def);
        opt = &def;
    }
    memset(out, 0, sizeof *out);
    out->n_runs = n_runs;
    if (n_runs) {
        const jl_attrs *a = &l->items[runs[0]]->attrs;
        if ((a->model && !(out->model = jl__strdup(a->model))) ||
            (a->task && !(out->task = jl__strdup(a->task))) ||
            (a->workload && !(out->workload = jl__strdup(a->workload))))
            goto oom;
    }
    if (sweep(l, runs, n_runs, opt, out) != JL_OK)
        goto oom;
    if (build_curves(l, runs, n_runs, opt, out) != JL_OK)
        goto oom;
    return JL_OK;
oom:
    jl_frontier_clear(out);
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
}

void jl_frontier_set_free(jl_frontier_set *fs)
{
    if (!fs)
        return;
    for (size_t i = 0; i < fs->n; i++)
        jl_frontier_clear(&fs->frontiers[i]);
    free(fs->frontiers);
    free(fs);
}

jl_status jl_frontier_compute(const jl_summary_list *l, const jl_frontier_options *opt,
                              jl_frontier_set **out, jl_error **err)
{
    *out = NULL;
    jl_frontier_set *fs = calloc(1, sizeof *fs);
    if (!fs)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (opt)
        fs->opt = *opt;
    else
        jl_frontier_options_default(&fs->opt);
    static const char *const keys[] = {"model", "task"};
    jl_group_set gs;
    jl_status st = jl_group_runs(l, keys, 2, NULL, &gs, err);
    if (st) {
        free(fs);
        return st;
    }
    if (gs.n && !(fs->frontiers = jl__calloc_array(gs.n, sizeof *fs->frontiers))) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto end;
    }
    for (size_t g = 0; g < gs.n; g++) {
        st = jl_frontier_of(l, gs.groups[g].runs, gs.groups[g].n_runs, &fs->opt,
                            &fs->frontiers[fs->n], err);
        if (st)
            goto end;
        fs->frontiers[fs->n].node_ac = gs.groups[g].node_ac;
        fs->n++;
    }
end:
    jl_group_set_clear(&gs);
    if (st) {
        jl_frontier_set_free(fs);
        return st;
    }
    *out = fs;
    return JL_OK;
}
