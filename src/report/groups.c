/* The report's analysis: its groups (one per model and task), the SLOs
 * judging each (the paper's set for its kind of work, or --slo), the pick
 * at each SLO over all runs and per GPU model (jl_pick_runs, the rule of
 * `joules pick`), the representative run and the findings in words. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/stats.h"
#include "joules/choice.h"
#include "joules/descriptors.h"
#include "joules/frontier.h"
#include "joules/output.h"
#include "report/knobs.h"
#include "report/sections.h"

/* The SLOs judging a group of this workload and kind: the last --slo
 * matching it (one), else the paper's set for the kind (the middle one is
 * the group's SLO). */
/* The condition of slo whose figure no run of this kind of work has
 * (p90_itl on images), or NULL when every condition's figure exists. */
static const jl_slo_cond *cond_without_figure(const jl_summary_list *l, const jl_slo *slo,
                                              jl__report_kind kind)
{
    for (size_t c = 0; c < slo->n; c++) {
        size_t i = 0;
        for (; i < l->count; i++) {
            const jl_summary *s = l->items[i];
            int f = jl_slo_cond_figure(&slo->conds[c], s);
            if (jl__report_kind_of(s) == kind && f >= 0 && isfinite(s->fig[f]))
                break;
        }
        if (i == l->count)
            return &slo->conds[c];
    }
    return NULL;
}

/* An SLO given without a workload applies only where its figures exist:
 * elsewhere the kind keeps its defaults, said once per SLO and kind. */
static int applies(jl__report_report *r, size_t i, jl__report_kind kind)
{
    const jl_report_slo *e = &r->opt.slos[i];
    const jl_slo_cond *c = cond_without_figure(r->l, e->slo, kind);
    if (!c)
        return 1;
    static const char *const what[] = {"LLM/MLLM", "text-to-image", "text-to-video"};
    unsigned bit = 1u << kind;
    if (i < sizeof r->slo_skip_noted / sizeof r->slo_skip_noted[0] &&
        !(r->slo_skip_noted[i] & bit)) {
        r->slo_skip_noted[i] |= bit;
        jl__report_note(r,
                        "--slo '%s': %s does not apply to %s (no such figure there): those "
                        "groups keep the paper's SLO set",
                        e->slo->text, c->name, what[kind]);
    }
    return 0;
}

static size_t slo_set_for(jl__report_report *r, const char *workload, jl__report_kind kind,
                          const jl_slo **set, size_t *primary)
{
    const jl_slo *best = NULL;
    for (size_t i = 0; i < r->opt.n_slos; i++) {
        const jl_report_slo *e = &r->opt.slos[i];
        if ((!e->workload && applies(r, i, kind)) ||
            (e->workload && workload && !strcmp(e->workload, workload)) ||
            (e->workload && kind != RP_KIND_LLM &&
             !strcmp(e->workload, jl__report_kind_name(kind))))
            best = e->slo;
    }
    *primary = 0;
    if (best) {
        set[0] = best;
        return 1;
    }
    size_t n = 0;
    for (size_t k = 0; k < RP_SET_MAX; k++)
        if (r->slo_sets[kind][k])
            set[n++] = r->slo_sets[kind][k];
    *primary = n / 2;
    return n;
}

/* The minimum-energy run meeting the SLO among runs[0..n) (optionally only
 * those on one GPU model): jl_pick_runs(), the same rule as `joules pick`. */
static jl_status pick_min_energy(const jl_summary_list *l, const size_t *runs, size_t n,
                                 const jl_slo *slo, const char *gpu_model, jl__report_pick *out,
                                 jl_error **err)
{
    out->run = -1;
    out->n_meeting = out->n_missing = 0;
    out->closest = -1;
    out->worst_miss = NAN;
    size_t *sub = jl__calloc_array(n ? n : 1, sizeof *sub);
    if (!sub)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        const jl_summary *s = l->items[runs[k]];
        if (gpu_model && (!s->attrs.gpu_model || strcmp(s->attrs.gpu_model, gpu_model)))
            continue;
        sub[m++] = runs[k];
    }
    jl_pick p;
    memset(&p, 0, sizeof p);
    jl_status st = jl_pick_runs(l, sub, m, slo, NULL, &p, err);
    free(sub);
    if (st)
        return st;
    if (p.status == JL_PICK_FEASIBLE)
        out->run = p.choice;
    else if (p.status == JL_PICK_INFEASIBLE) {
        out->closest = p.choice;
        out->worst_miss = p.worst_miss;
    }
    out->n_meeting = p.n_feasible;
    out->n_missing = p.n_missing;
    jl_pick_clear(&p);
    return JL_OK;
}

static char *slugify(const char *model, const char *task)
{
    const char *m = model ? strrchr(model, '/') : NULL;
    m = m ? m + 1 : (model ? model : "model");
    char *raw = jl__asprintf("%s-%s", m, task ? task : "task");
    if (!raw)
        return NULL;
    size_t o = 0;
    int dash = 0;
    for (size_t i = 0; raw[i]; i++) {
        char c = raw[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.') {
            raw[o++] = c;
            dash = 0;
        } else if (!dash && o) {
            raw[o++] = '-';
            dash = 1;
        }
    }
    while (o && raw[o - 1] == '-')
        o--;
    raw[o] = 0;
    /* a file name part (data/timeseries/SLUG.csv, the figures' ids): a long
     * one keeps its start and a hash of the model and task */
    if (o > 80) {
        const char *mo = model ? model : "", *ta = task ? task : "";
        uint64_t h = jl__fnv1a_add(jl__fnv1a_add(JL__FNV1A_INIT, mo, strlen(mo)), ta, strlen(ta));
        snprintf(raw + 71, 10, "-%08x", (unsigned)(uint32_t)h);
    }
    return raw;
}

static void add_finding(jl__report_group *g, char *s)
{
    if (!s)
        return;
    char **p = realloc(g->findings, (g->n_findings + 1) * sizeof *p);
    if (!p) {
        free(s);
        return;
    }
    g->findings = p;
    g->findings[g->n_findings++] = s;
}

/* Latency for people: ms for ITL, s for batch latency. */
static void fmt_latency(char *buf, size_t cap, const jl_summary *s, double v)
{
    char n[48];
    if (jl_attrs_is_diffusion(&s->attrs)) {
        jl__report_fmt_num(n, sizeof n, v, 3);
        snprintf(buf, cap, "%s s", n);
    } else {
        jl__report_fmt_num(n, sizeof n, v * 1000, 3);
        snprintf(buf, cap, "%s ms", n);
    }
}

/* The batch-size effect on each curve of the group's frontier, and
 * whether its last step still saves energy. */
static void curve_findings(jl__report_report *r, jl__report_group *g)
{
    const jl_summary_list *l = r->l;
    char a[48], b[48], c[64], d[64];
    jl__report_series *ser = NULL;
    size_t nser = g->frontier ? jl__report_split_curves(l, g->frontier, &ser) : 0;
    for (size_t ci = 0; ci < nser; ci++) {
        const jl_curve *cv = &ser[ci].cv;
        char cfgname[256];
        snprintf(cfgname, sizeof cfgname, "%s x%ld (%s%s%s)", cv->gpu_model ? cv->gpu_model : "?",
                 cv->num_gpus, cv->precision ? cv->precision : "?", ser[ci].variant ? ", " : "",
                 ser[ci].variant ? ser[ci].variant : "");
        if (cv->n_points < 2)
            continue;
        const jl_curve_point *lo = &cv->points[0], *hi = &cv->points[cv->n_points - 1];
        if (lo->batch == hi->batch || !isfinite(lo->energy) || !isfinite(hi->energy) ||
            hi->energy <= 0)
            continue;
        const jl_summary *s = l->items[lo->run];
        jl__report_fmt_num(a, sizeof a, lo->energy, 3);
        jl__report_fmt_num(b, sizeof b, hi->energy, 3);
        fmt_latency(c, sizeof c, s, lo->latency);
        fmt_latency(d, sizeof d, s, hi->latency);
        double er = lo->energy / hi->energy, lr = hi->latency / lo->latency;
        char ers[32], lrs[32];
        jl__report_fmt_num(ers, sizeof ers, er, 2);
        jl__report_fmt_num(lrs, sizeof lrs, lr, 2);
        const char *item = jl__report_item(s);
        const char *latname = jl_attrs_is_diffusion(&s->attrs) ? "batch latency" : "median ITL";
        if (er >= 0.95 && er < 1.1) {
            char pct[32];
            jl__report_fmt_num(pct, sizeof pct, fabs(1 - 1 / er) * 100, 2);
            add_finding(
                g,
                jl__asprintf("On %s, the batch size barely matters for energy: batch "
                             "%ld \xe2\x86\x92 %ld changes energy per %s by %s%s%% (%s "
                             "\xe2\x86\x92 %s %s) while %s rises %s\xc3\x97 (%s \xe2\x86\x92 %s): "
                             "the GPU is already busy at batch %ld.",
                             cfgname, lo->batch, hi->batch, item, er >= 1 ? "\xe2\x88\x92" : "+",
                             pct, a, b, jl__report_energy_unit(s), latname, lrs, c, d, lo->batch));
        } else if (er >= 1)
            add_finding(
                g,
                jl__asprintf("On %s, raising the batch size from %ld to %ld cuts energy "
                             "per %s %s\xc3\x97 (%s \xe2\x86\x92 %s %s) while %s rises %s\xc3\x97 "
                             "(%s \xe2\x86\x92 %s).",
                             cfgname, lo->batch, hi->batch, item, ers, a, b,
                             jl__report_energy_unit(s), latname, lrs, c, d));
        else
            add_finding(g, jl__asprintf("On %s, energy per %s grows with batch size "
                                        "(%s \xe2\x86\x92 %s %s from batch %ld to %ld).",
                                        cfgname, item, a, b, jl__report_energy_unit(s), lo->batch,
                                        hi->batch));
        /* saturation: the last step of the curve */
        const jl_curve_point *pr = &cv->points[cv->n_points - 2];
        if (pr->batch != hi->batch && isfinite(pr->energy) && pr->energy > 0 && er >= 1) {
            double step = (hi->energy - pr->energy) / pr->energy * 100;
            char st[32];
            jl__report_fmt_num(st, sizeof st, fabs(step), 2);
            if (step < -10)
                add_finding(g, jl__asprintf("Not saturated on %s: going from batch %ld to %ld "
                                            "still cuts energy %s%% \xe2\x80\x94 larger batches "
                                            "(if memory allows) should save more.",
                                            cfgname, pr->batch, hi->batch, st));
            else if (step <= 3)
                add_finding(g, jl__asprintf("Near saturation on %s: batch %ld \xe2\x86\x92 %ld "
                                            "changes energy by only %s%s%%.",
                                            cfgname, pr->batch, hi->batch,
                                            step < 0 ? "\xe2\x88\x92" : "+", st));
        }
    }
    jl__report_series_free(ser, nser);
}

/* A group's findings in words: the SLO outcome, the GPU comparison, the
 * batch-size effect per curve, the static power at the pick, validation. */
static void group_findings(jl__report_report *r, jl__report_group *g)
{
    const jl_summary_list *l = r->l;
    char a[48];
    /* SLO outcome */
    if (g->pick.run < 0 && g->pick.closest >= 0) {
        char *cfg = jl__report_config_label(l->items[g->pick.closest]);
        jl__report_fmt_num(a, sizeof a, g->pick.worst_miss * 100, 2);
        add_finding(g, jl__asprintf("No run meets %s; the closest (%s) misses it by %s%%.",
                                    g->slo_text, cfg ? cfg : "?", a));
        free(cfg);
    } else if (g->pick.run < 0) {
        add_finding(g, jl__asprintf("No run can be judged by %s: the runs lack the figures it "
                                    "needs.",
                                    g->slo_text));
    }
    /* GPU comparison at the SLO */
    if (g->n_gpu_models >= 2) {
        long best = -1, worst = -1;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            double e = l->items[run]->fig[jl__report_energy_fig(l->items[run])];
            if (best < 0 || e < l->items[best]->fig[jl__report_energy_fig(l->items[best])])
                best = run;
            if (worst < 0 || e > l->items[worst]->fig[jl__report_energy_fig(l->items[worst])])
                worst = run;
        }
        if (best >= 0 && worst >= 0 && best != worst) {
            const jl_summary *sb = l->items[best], *sw = l->items[worst];
            double eb = sb->fig[jl__report_energy_fig(sb)], ew = sw->fig[jl__report_energy_fig(sw)];
            jl__report_fmt_num(a, sizeof a, (1 - eb / ew) * 100, 2);
            add_finding(g, jl__asprintf("At %s, %s x%ld (batch %ld) uses %s%% less energy than "
                                        "the best %s configuration (%s x%ld, batch %ld).",
                                        g->slo_text, sb->attrs.gpu_model, sb->attrs.num_gpus,
                                        sb->attrs.max_batch_size, a, sw->attrs.gpu_model,
                                        sw->attrs.gpu_model, sw->attrs.num_gpus,
                                        sw->attrs.max_batch_size));
        }
    }
    curve_findings(r, g);
    /* static power at the pick */
    if (g->pick.run >= 0) {
        const jl_summary *s = l->items[g->pick.run];
        double share = s->fig[JL_FIG_STATIC_ENERGY_SHARE];
        if (isfinite(share)) {
            jl__report_fmt_num(a, sizeof a, share * 100, 2);
            add_finding(g, jl__asprintf("At the pick, idle (static) power is %s%% of the average "
                                        "power: that share of the energy is spent just keeping "
                                        "the GPU%s on.",
                                        a, s->attrs.num_gpus > 1 ? "s" : ""));
        }
    }
    /* validation: the rules' verdicts (check:*), as the Validation section
     * counts them; a run's other warnings (summary_only: published figures
     * passed through) are notes about it, not failed rules */
    size_t warned = 0, failed = 0;
    for (size_t k = 0; k < g->n_runs; k++) {
        const jl_summary *s = l->items[g->runs[k]];
        int w = 0, fl = 0;
        for (size_t i = 0; i < s->n_warnings; i++) {
            const char *msg = s->warnings[i].message ? s->warnings[i].message : "";
            if (strncmp(s->warnings[i].rule, "check:", 6))
                continue;
            if (!strncmp(msg, "fail", 4))
                fl = 1;
            else
                w = 1;
        }
        failed += fl;
        warned += w && !fl;
    }
    if (warned || failed)
        add_finding(g, jl__asprintf("Validation: %zu of %zu runs fail a rule and %zu more only "
                                    "warn (the Validation section lists each; a failed rule "
                                    "makes that run's figures less trustworthy).",
                                    failed, g->n_runs, warned));
}

/* ---- the GPU baseline and the first screen's answer -------------------------------- */

/* The distinct GPU models (what 0) or precisions (1) of the runs, sorted
 * (borrowed from them); -1 out of memory. */
static int classes_of(const jl_summary_list *l, int what, const char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t i = 0; i < l->count; i++) {
        const char *v = what ? l->items[i]->attrs.precision : l->items[i]->attrs.gpu_model;
        if (!v)
            continue;
        size_t j = 0;
        while (j < *n && strcmp((*out)[j], v) < 0)
            j++;
        if (j < *n && !strcmp((*out)[j], v))
            continue;
        if (*n == cap) {
            size_t nc = cap ? 2 * cap : 8;
            const char **p = realloc(*out, nc * sizeof *p);
            if (!p)
                return -1;
            *out = p;
            cap = nc;
        }
        memmove(*out + j + 1, *out + j, (*n - j) * sizeof **out);
        (*out)[j] = v;
        (*n)++;
    }
    return 0;
}

/* The baseline of every GPU comparison of the report: --baseline as the
 * data spell it (the case rule of typed names), else the oldest GPU model
 * (models/gpus.json's "released": the changes then say what newer hardware
 * does), those without a date after those with one; ties: the GPU model of
 * the most groups, then the first by name. NULL with fewer than two GPU
 * models; an error when --baseline names none of them. */
static jl_status choose_gpu_baseline(jl__report_report *r, jl_error **err)
{
    const char *names[64] = {NULL};
    size_t counts[64] = {0}, n = 0;
    for (size_t i = 0; i < r->n_groups; i++)
        for (size_t k = 0; k < r->groups[i].n_gpu_models; k++) {
            const char *gm = r->groups[i].gpu_models[k];
            size_t j = 0;
            while (j < n && strcmp(names[j], gm))
                j++;
            if (j == n && n < 64) {
                names[n] = gm;
                counts[n++] = 0;
            }
            if (j < n)
                counts[j]++;
        }
    r->gpu_baseline = NULL;
    if (r->opt.gpu_baseline) {
        long k = jl_name_find(r->opt.gpu_baseline, names, n);
        if (k < 0) {
            jl__strbuf b;
            jl__strbuf_init(&b);
            for (size_t j = 0; j < n; j++)
                jl__strbuf_printf(&b, "%s%s", j ? ", " : "", names[j]);
            char *present = jl__strbuf_take(&b), near[128];
            int hint = jl_suggest_value(r->opt.gpu_baseline, names, n, near, sizeof near);
            jl_status st =
                jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                        "--baseline %s: no run has gpu_model %s (%s%s%sGPU models present: %s)",
                        r->opt.gpu_baseline, r->opt.gpu_baseline, hint ? "did you mean '" : "",
                        hint ? near : "", hint ? "'? " : "", present ? present : "none");
            free(present);
            return st;
        }
        r->gpu_baseline = names[k];
        return JL_OK;
    }
    if (n < 2)
        return JL_OK;
    double rel[64];
    for (size_t j = 0; j < n; j++) {
        const jl_gpu_desc *d = r->opt.desc ? jl_descriptors_gpu(r->opt.desc, names[j]) : NULL;
        rel[j] = d && isfinite(d->released) ? d->released : INFINITY;
    }
    size_t best = 0;
    for (size_t j = 1; j < n; j++)
        if (rel[j] < rel[best] || (rel[j] == rel[best] && (counts[j] > counts[best] ||
                                                           (counts[j] == counts[best] &&
                                                            strcmp(names[j], names[best]) < 0))))
            best = j;
    r->gpu_baseline = names[best];
    return JL_OK;
}

/* n changes (E_side / E_baseline - 1) into a side's median, min, max (the
 * median as `joules compare` takes it: the middle one, or the mean of the
 * two middle ones). */
static void side_stats(jl__report_side *sd, double *v, size_t n)
{
    sd->median = sd->min = sd->max = NAN;
    if (!n)
        return;
    qsort(v, n, sizeof *v, jl__cmp_double);
    sd->min = v[0];
    sd->max = v[n - 1];
    sd->median = jl__median_d(v, n);
}

static double pick_e(const jl__report_report *r, const jl__report_pick *p)
{
    if (p->run < 0)
        return NAN;
    const jl_summary *s = r->l->items[p->run];
    return s->fig[jl__report_energy_fig(s)];
}

/* One kind of work's headline: each other GPU model against the baseline
 * at each group's SLO and at every SLO of its set (the comparisons of
 * `joules compare --by gpu_model --baseline B`), who needs the least most
 * often, the cheapest pick. */
static jl_status headline_of(jl__report_report *r, jl__report_kind kind, jl_error **err)
{
    jl__report_headline *h = &r->headline[kind];
    memset(h, 0, sizeof *h);
    h->cheapest = h->cheapest_group = -1;
    double best_e = INFINITY;
    size_t cap = r->n_groups * RP_SET_MAX + 1;
    double *at = jl__calloc_array(cap, sizeof *at), *in = jl__calloc_array(cap, sizeof *in);
    const char *winners[64];
    size_t wcount[64], nw = 0;
    if (!at || !in) {
        free(at);
        free(in);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    for (size_t i = 0; i < r->n_groups; i++) {
        const jl__report_group *g = &r->groups[i];
        if (g->kind != kind)
            continue;
        h->n_groups++;
        h->n_multi += g->n_gpu_models >= 2;
        double e = pick_e(r, &g->pick);
        if (isfinite(e) && e < best_e) {
            best_e = e;
            h->cheapest = g->pick.run;
            h->cheapest_group = (long)i;
        }
        /* who needs the least at the group's SLO, of two or more meeting it */
        long win = -1;
        size_t meeting = 0;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            double ek = pick_e(r, &g->gpu_picks[k]);
            if (!isfinite(ek))
                continue;
            meeting++;
            if (win < 0 || ek < pick_e(r, &g->gpu_picks[win]))
                win = (long)k;
        }
        if (meeting >= 2 && win >= 0) {
            size_t j = 0;
            while (j < nw && strcmp(winners[j], g->gpu_models[win]))
                j++;
            if (j == nw && nw < 64) {
                winners[nw] = g->gpu_models[win];
                wcount[nw++] = 0;
            }
            if (j < nw)
                wcount[j]++;
            h->n_decided++;
        }
    }
    for (size_t j = 0; j < nw; j++)
        if (!h->most_often || wcount[j] > h->most_often_n) {
            h->most_often = winners[j];
            h->most_often_n = wcount[j];
        }
    /* each side against the baseline */
    const char *base = r->gpu_baseline;
    for (size_t i = 0; base && i < r->n_groups; i++) {
        const jl__report_group *g = &r->groups[i];
        if (g->kind != kind)
            continue;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            if (!strcmp(g->gpu_models[k], base))
                continue;
            size_t j = 0;
            while (j < h->n_sides && strcmp(h->at_slo[j].gpu, g->gpu_models[k]))
                j++;
            if (j == h->n_sides && h->n_sides < RP_HEADLINE_SIDES) {
                h->at_slo[j].gpu = h->in_set[j].gpu = g->gpu_models[k];
                h->n_sides++;
            }
        }
    }
    for (size_t j = 0; j < h->n_sides; j++)
        for (int set = 0; set < 2; set++) {
            jl__report_side *sd = set ? &h->in_set[j] : &h->at_slo[j];
            double *v = set ? in : at;
            size_t n = 0;
            for (size_t i = 0; i < r->n_groups; i++) {
                const jl__report_group *g = &r->groups[i];
                long kb = -1, ks = -1;
                for (size_t k = 0; k < g->n_gpu_models; k++) {
                    if (!strcmp(g->gpu_models[k], base))
                        kb = (long)k;
                    if (!strcmp(g->gpu_models[k], sd->gpu))
                        ks = (long)k;
                }
                if (g->kind != kind || kb < 0 || ks < 0)
                    continue;
                for (size_t q = 0; q < (set ? g->n_set : 1); q++) {
                    size_t sj = set ? q : g->primary;
                    double eb = pick_e(r, &g->gpu_set_picks[(size_t)kb * g->n_set + sj]),
                           es = pick_e(r, &g->gpu_set_picks[(size_t)ks * g->n_set + sj]);
                    if (!isfinite(eb) || !isfinite(es) || !(eb > 0))
                        continue;
                    double c = es / eb - 1;
                    v[n++] = c;
                    sd->n++;
                    if (fabs(es - eb) <= 1e-9 * fmax(fabs(es), fabs(eb)))
                        sd->ties++;
                    else if (es < eb)
                        sd->wins++;
                    else
                        sd->losses++;
                }
            }
            side_stats(sd, v, n);
        }
    free(at);
    free(in);
    return JL_OK;
}

jl_status jl__report_build_groups(jl__report_report *r, jl_error **err)
{
    static const char *const keys[] = {"model", "task"};
    jl_group_set gs;
    jl_status st = jl_group_runs(r->l, keys, 2, NULL, &gs, err);
    if (st)
        return st;
    r->groups = jl__calloc_array(gs.n ? gs.n : 1, sizeof *r->groups);
    if (!r->groups) {
        jl_group_set_clear(&gs);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    for (size_t i = 0; i < gs.n; i++) {
        jl__report_group *g = &r->groups[r->n_groups++];
        g->runs = gs.groups[i].runs;
        g->n_runs = gs.groups[i].n_runs;
        gs.groups[i].runs = NULL;
        const jl_summary *s0 = r->l->items[g->runs[0]];
        g->model = s0->attrs.model;
        g->task = s0->attrs.task;
        g->workload = s0->attrs.workload;
        for (size_t k = 0; r->fs && k < r->fs->n; k++) {
            const jl_frontier *f = &r->fs->frontiers[k];
            if (((!f->model && !g->model) ||
                 (f->model && g->model && !strcmp(f->model, g->model))) &&
                ((!f->task && !g->task) || (f->task && g->task && !strcmp(f->task, g->task))))
                g->frontier = f;
        }
        g->kind = jl__report_kind_of(s0);
        g->item = jl__report_item(s0);
        g->n_set = slo_set_for(r, g->workload, g->kind, g->set, &g->primary);
        g->slo = g->n_set ? g->set[g->primary] : NULL;
        g->slo_text = jl__strdup(g->slo ? g->slo->text : "");
        for (size_t j = 0; j < g->n_set; j++)
            if ((st = pick_min_energy(r->l, g->runs, g->n_runs, g->set[j], NULL, &g->set_picks[j],
                                      err))) {
                jl_group_set_clear(&gs);
                return st;
            }
        g->pick = g->set_picks[g->primary];
        /* distinct GPU models, sorted */
        for (size_t k = 0; k < g->n_runs; k++) {
            const char *gm = r->l->items[g->runs[k]]->attrs.gpu_model;
            if (!gm)
                continue;
            size_t j = 0;
            while (j < g->n_gpu_models && strcmp(g->gpu_models[j], gm) < 0)
                j++;
            if (j < g->n_gpu_models && !strcmp(g->gpu_models[j], gm))
                continue;
            char **nm = realloc(g->gpu_models, (g->n_gpu_models + 1) * sizeof *nm);
            if (!nm)
                break;
            g->gpu_models = nm;
            memmove(nm + j + 1, nm + j, (g->n_gpu_models - j) * sizeof *nm);
            nm[j] = jl__strdup(gm);
            g->n_gpu_models++;
        }
        g->gpu_picks =
            jl__calloc_array(g->n_gpu_models ? g->n_gpu_models : 1, sizeof *g->gpu_picks);
        g->gpu_set_picks = jl__calloc_array((g->n_gpu_models ? g->n_gpu_models : 1) * RP_SET_MAX,
                                            sizeof *g->gpu_set_picks);
        for (size_t k = 0; g->gpu_picks && g->gpu_set_picks && k < g->n_gpu_models; k++) {
            for (size_t j = 0; j < g->n_set; j++)
                if ((st = pick_min_energy(r->l, g->runs, g->n_runs, g->set[j], g->gpu_models[k],
                                          &g->gpu_set_picks[k * g->n_set + j], err))) {
                    jl_group_set_clear(&gs);
                    return st;
                }
            g->gpu_picks[k] = g->gpu_set_picks[k * g->n_set + g->primary];
        }
        /* representative run: the pick, else the lowest energy */
        g->representative = g->pick.run;
        if (g->representative < 0) {
            double best = INFINITY;
            for (size_t k = 0; k < g->n_runs; k++) {
                const jl_summary *s = r->l->items[g->runs[k]];
                double e = s->fig[jl__report_energy_fig(s)];
                if (g->representative < 0 || (isfinite(e) && e < best)) {
                    if (isfinite(e))
                        best = e;
                    g->representative = (long)g->runs[k];
                }
            }
        }
        /* a unique slug */
        char *slug = slugify(g->model, g->task);
        for (size_t k = 0; slug && k + 1 < r->n_groups; k++)
            if (!strcmp(r->groups[k].slug, slug)) {
                char *s2 = jl__asprintf("%s-%zu", slug, i + 1);
                free(slug);
                slug = s2;
                break;
            }
        g->slug = slug;
        if (!g->slug || !g->slo_text || !g->gpu_picks || !g->gpu_set_picks) {
            jl_group_set_clear(&gs);
            return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        }
        group_findings(r, g);
    }
    jl_group_set_clear(&gs);
    if (classes_of(r->l, 0, &r->gpu_classes, &r->n_gpu_classes) ||
        classes_of(r->l, 1, &r->prec_classes, &r->n_prec_classes))
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if ((st = choose_gpu_baseline(r, err)))
        return st;
    for (int k = 0; k < RP_KIND_COUNT && !st; k++)
        st = headline_of(r, (jl__report_kind)k, err);
    return st;
}
