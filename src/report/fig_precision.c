/* Figure: precisions against batch size (paper Fig. 7; docs/report.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "joules/choice.h"
#include "joules/descriptors.h"
#include "joules/output.h"
#include "report/figures.h"
#include "report/knobs.h"

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

typedef struct prec_run {
    char *base;
    size_t run;
    const jl_attrs *attrs; /* the run's (l->items[run]->attrs) */
} prec_run;

/* qsort's order of prec_run; each carries its run's attributes (attrs),
 * so the comparison needs no static list (thread-safe) */
static int cmp_prec_run(const void *pa, const void *pb)
{
    const prec_run *a = pa, *b = pb;
    const jl_attrs *x = a->attrs, *y = b->attrs;
    int c;
    if ((c = jl__strcmp_null_first(a->base, b->base)) ||
        (c = jl__strcmp_null_first(x->task, y->task)) ||
        (c = jl__strcmp_null_first(x->gpu_model, y->gpu_model)))
        return c;
    if (x->num_gpus != y->num_gpus)
        return x->num_gpus < y->num_gpus ? -1 : 1;
    if ((c = jl__strcmp_null_first(x->precision, y->precision)))
        return c;
    if (x->max_batch_size != y->max_batch_size)
        return x->max_batch_size < y->max_batch_size ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

static int same_set(const jl_summary_list *l, const prec_run *a, const prec_run *b)
{
    const jl_attrs *x = &l->items[a->run]->attrs, *y = &l->items[b->run]->attrs;
    return !jl__strcmp_null_first(a->base, b->base) && !jl__strcmp_null_first(x->task, y->task) &&
           !jl__strcmp_null_first(x->gpu_model, y->gpu_model) && x->num_gpus == y->num_gpus;
}

/* Crossovers of (other - reference) over the batch sizes both have: where
 * the sign changes between two consecutive common batch sizes, the batch
 * size interpolated linearly in log2(batch). */
static size_t crossovers(const jl_summary_list *l, const prec_run *ref, size_t nref,
                         const prec_run *oth, size_t noth, int fig, double *out, size_t cap)
{
    size_t n = 0;
    double pb = NAN, pd = NAN;
    for (size_t i = 0; i < nref; i++) {
        const jl_summary *a = l->items[ref[i].run];
        for (size_t j = 0; j < noth; j++) {
            const jl_summary *b = l->items[oth[j].run];
            if (b->attrs.max_batch_size != a->attrs.max_batch_size)
                continue;
            double d = b->fig[fig] - a->fig[fig];
            double x = log2((double)a->attrs.max_batch_size);
            if (!isfinite(d))
                break;
            if (isfinite(pd) && ((pd < 0 && d > 0) || (pd > 0 && d < 0)) && n < cap)
                out[n++] = exp2(pb + (x - pb) * pd / (pd - d));
            pb = x;
            pd = d;
            break;
        }
    }
    return n;
}

/* One figure's state: its runs pr[i, j) (one model, task, GPU model and
 * count), split by precision, the reference precision, the figures and the
 * crossovers found. */
typedef struct prec_fig {
    const prec_run *pr;
    size_t i, j;
    size_t np, starts[16], counts[16], ref;
    const jl_summary *s0;
    int diffusion, fe, fl;
    double lscale;
    double ce[8], cl[8]; /* crossovers in energy and in latency */
    size_t nce, ncl;
} prec_fig;

static const char *prec_name(const jl_summary_list *l, const prec_fig *pf, size_t p)
{
    return l->items[pf->pr[pf->starts[p]].run]->attrs.precision;
}

/* The .dat: a block per precision; report.json's `precisions` (returned). */
static json_t *prec_dat(const jl_summary_list *l, const prec_fig *pf, jl__report_figure *f,
                        jl__strbuf *dat)
{
    jl__report_comment_line(dat, "%s", f->title);
    jl__strbuf_printf(dat,
                      "# blocks (gnuplot index): one per precision\n# batch energy latency_%s\n",
                      pf->diffusion ? "s" : "ms");
    json_t *precs = json_array();
    for (size_t p = 0; p < pf->np; p++) {
        jl__report_comment_line(dat, "precision %s", prec_name(l, pf, p));
        json_t *runs = json_array();
        for (size_t k = pf->starts[p]; k < pf->starts[p] + pf->counts[p]; k++) {
            const jl_summary *s = l->items[pf->pr[k].run];
            jl__strbuf_printf(dat, "%ld", s->attrs.max_batch_size);
            jl__report_dat_num(dat, s->fig[pf->fe]);
            jl__report_dat_num(dat, s->fig[pf->fl] * pf->lscale);
            jl__strbuf_puts(dat, "\n");
            json_array_append_new(runs, jl_run_key_to_json(s));
            f->n_points++;
        }
        jl__strbuf_puts(dat, "\n\n");
        json_array_append_new(precs, json_pack("{s:s,s:o}", "precision", prec_name(l, pf, p),
                                               "runs", runs));
    }
    return precs;
}

/* Crossovers of each precision against the reference, in energy and in
 * latency; report.json's `crossovers` (returned). */
static json_t *prec_crossovers(const jl_summary_list *l, prec_fig *pf)
{
    json_t *cross = json_array();
    const prec_run *pr = pf->pr;
    for (size_t p = 0; p < pf->np; p++) {
        if (p == pf->ref)
            continue;
        size_t a = crossovers(l, &pr[pf->starts[pf->ref]], pf->counts[pf->ref], &pr[pf->starts[p]],
                              pf->counts[p], pf->fe, pf->ce + pf->nce, 8 - pf->nce);
        size_t b = crossovers(l, &pr[pf->starts[pf->ref]], pf->counts[pf->ref], &pr[pf->starts[p]],
                              pf->counts[p], pf->fl, pf->cl + pf->ncl, 8 - pf->ncl);
        for (size_t q = 0; q < a; q++)
            json_array_append_new(cross,
                                  json_pack("{s:s,s:s,s:s,s:f}", "precision", prec_name(l, pf, p),
                                            "reference", prec_name(l, pf, pf->ref), "figure",
                                            jl_figure_name((jl_figure)pf->fe), "batch",
                                            pf->ce[pf->nce + q]));
        for (size_t q = 0; q < b; q++)
            json_array_append_new(cross,
                                  json_pack("{s:s,s:s,s:s,s:f}", "precision", prec_name(l, pf, p),
                                            "reference", prec_name(l, pf, pf->ref), "figure",
                                            jl_figure_name((jl_figure)pf->fl), "batch",
                                            pf->cl[pf->ncl + q]));
        pf->nce += a;
        pf->ncl += b;
    }
    return cross;
}

/* The script: two panels (energy, latency), the crossovers dashed. */
static void prec_script(const jl__report_report *r, const prec_fig *pf, const jl__report_figure *f,
                        jl__strbuf *gp)
{
    const jl_summary_list *l = r->l;
    size_t i = pf->i, j = pf->j;
    long *batches = jl__calloc_array(j - i, sizeof *batches);
    size_t nbt = 0;
    for (size_t k = i; batches && k < j; k++)
        batches[nbt++] = l->items[pf->pr[k].run]->attrs.max_batch_size;
    if (batches)
        qsort(batches, nbt, sizeof *batches, cmp_long);
    jl__report_gp_header(gp, f->id, f->title,
                         "Energy and latency per precision against batch size; crossovers dashed.",
                         1);
    jl__strbuf_puts(gp, "set multiplot layout 1,2\nset logscale x 2\n");
    if (batches)
        jl__report_batch_xtics(gp, batches, nbt, 2);
    free(batches);
    jl__strbuf_puts(gp, "set xlabel \"batch size (max_batch_size)\"\nset key top right\n"
                        "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
    double *ev = jl__calloc_array(j - i, sizeof *ev);
    for (size_t k = i; ev && k < j; k++)
        ev[k - i] = l->items[pf->pr[k].run]->fig[pf->fe];
    int energy_wide = ev ? jl__report_wide_range(ev, j - i, 8) : 0;
    free(ev);
    jl__strbuf_puts(gp, "set offsets graph 0.03, graph 0.03, graph 0.05, 0\n");
    for (int panel = 0; panel < 2; panel++) {
        const double *cx = panel ? pf->cl : pf->ce;
        size_t ncx = panel ? pf->ncl : pf->nce;
        /* energy falls and latency rises with batch: keep the key off the curves */
        jl__strbuf_puts(gp, panel ? "unset arrow\nset key top left\n"
                                  : "unset arrow\nset key top right\n");
        for (size_t q = 0; q < ncx; q++)
            jl__strbuf_printf(
                gp,
                "set arrow %zu from %.6g, graph 0 to %.6g, graph 1 nohead dt 2 lw 1.5 lc rgb \"#444444\"\n",
                q + 1, cx[q], cx[q]);
        if (panel == 0 && energy_wide)
            jl__strbuf_puts(
                gp,
                "set logscale y\nset autoscale yfix\nset format y \"%g\"\n"
                "set ytics (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)\n");
        else
            jl__strbuf_puts(
                gp,
                "unset logscale y\nset autoscale y\nset ytics autofreq\nset format y \"%g\"\nset yrange [0:*]\n");
        if (panel == 0)
            jl__strbuf_printf(gp, "set ylabel \"energy per %s (J)\"\n", jl__report_item(pf->s0));
        else
            jl__strbuf_printf(gp, "set ylabel \"%s\"\n",
                              pf->diffusion ? "batch latency (s)" : "median ITL (ms)");
        jl__strbuf_puts(gp, "plot ");
        for (size_t p = 0; p < pf->np; p++) {
            jl__strbuf_printf(
                gp,
                "%s\"%s.dat\" index %zu using 1:%d with linespoints pt 7 lw 2 lc rgb \"%s\" title ",
                p ? ", \\\n     " : "", f->id, p, panel ? 3 : 2,
                jl__report_class_colour(r, RP_CLASS_PRECISION, prec_name(l, pf, p), NULL));
            jl__report_gp_str(gp, prec_name(l, pf, p));
        }
        jl__strbuf_puts(gp, "\n");
    }
    jl__strbuf_puts(gp, "unset multiplot\nunset output\n");
}

/* The figure of runs pr[i, j) when they hold two or more precisions
 * (*made set): its id and group, the .dat, the crossovers, the caption,
 * the script. */
static jl_status prec_figure(jl__report_report *r, const prec_run *pr, size_t i, size_t j,
                             int *made, jl_error **err)
{
    const jl_summary_list *l = r->l;
    prec_fig pf;
    memset(&pf, 0, sizeof pf);
    pf.pr = pr;
    pf.i = i;
    pf.j = j;
    /* precisions in [i, j): runs sorted by precision then batch */
    for (size_t k = i; k < j; k++) {
        if (k == i || jl__strcmp_null_first(l->items[pr[k].run]->attrs.precision,
                                            l->items[pr[k - 1].run]->attrs.precision)) {
            if (pf.np == 16)
                break;
            pf.starts[pf.np] = k;
            pf.counts[pf.np] = 0;
            pf.np++;
        }
        pf.counts[pf.np - 1]++;
    }
    *made = 0;
    if (pf.np < 2)
        return JL_OK;
    /* the reference precision: a 16-bit one, else the first */
    for (size_t p = 0; p < pf.np; p++)
        if (jl_precision_is_16bit(prec_name(l, &pf, p))) {
            pf.ref = p;
            break;
        }
    const jl_summary *s0 = pf.s0 = l->items[pr[i].run];
    pf.diffusion = jl_attrs_is_diffusion(&s0->attrs);
    pf.fe = jl__report_energy_fig(s0);
    pf.fl = jl__report_latency_fig(s0);
    pf.lscale = pf.diffusion ? 1 : 1000;
    const char *bm = strrchr(pr[i].base, '/');
    bm = bm ? bm + 1 : pr[i].base;
    char *id = jl__asprintf("precision-%s-%s-%s-x%ld", bm, s0->attrs.task ? s0->attrs.task : "task",
                            jl__report_gpu_label(s0->attrs.gpu_model), s0->attrs.num_gpus);
    for (char *c = id; c && *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-'))
            *c = '-';
    /* the group of the reference run, for the page */
    long gidx = -1;
    for (size_t gi = 0; gi < r->n_groups; gi++)
        for (size_t k = 0; k < r->groups[gi].n_runs; k++)
            if (r->groups[gi].runs[k] == pr[pf.starts[pf.ref]].run)
                gidx = (long)gi;
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_PRECISION, gidx, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    f->title = jl__asprintf("Precision against batch size: %s, %s on %s x%ld", pr[i].base,
                            s0->attrs.task ? s0->attrs.task : "?",
                            jl__report_gpu_label(s0->attrs.gpu_model), s0->attrs.num_gpus);
    jl__strbuf dat, gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&gp);
    json_t *precs = prec_dat(l, &pf, f, &dat);
    json_t *cross = prec_crossovers(l, &pf);
    char desc[512] = "";
    if (pf.nce)
        snprintf(desc, sizeof desc, " The energy curves cross near batch size %.0f (dashed line).",
                 pf.ce[0]);
    else
        snprintf(desc, sizeof desc,
                 " The energy curves do not cross over the batch sizes measured.");
    f->caption = jl__asprintf(
        "Energy per %s (left) and %s (right) against batch size for each precision of the "
        "model on the same GPUs (the paper's Fig. 7); dashed vertical lines mark where a "
        "precision's curve crosses the %s one (interpolated in log2 batch size).%s",
        jl__report_item(s0), pf.diffusion ? "batch latency" : "median ITL",
        prec_name(l, &pf, pf.ref), desc);
    prec_script(r, &pf, f, &gp);
    f->meta = json_pack("{s:s,s:s?,s:s?,s:I,s:s,s:s,s:s,s:o,s:o}", "model_base", pr[i].base, "task",
                        s0->attrs.task, "gpu_model", s0->attrs.gpu_model, "num_gpus",
                        (json_int_t)s0->attrs.num_gpus, "reference", prec_name(l, &pf, pf.ref),
                        "energy_figure", jl_figure_name((jl_figure)pf.fe), "latency_figure",
                        jl_figure_name((jl_figure)pf.fl), "precisions", precs, "crossovers", cross);
    jl_status st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&gp);
    *made = 1;
    return st;
}

jl_status jl__report_fig_precision(jl__report_report *r, jl_error **err)
{
    const jl_summary_list *l = r->l;
    prec_run *pr = jl__calloc_array(l->count ? l->count : 1, sizeof *pr);
    if (!pr)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (!s->attrs.precision || s->attrs.max_batch_size <= 0)
            continue;
        pr[n].run = i;
        pr[n].attrs = &s->attrs;
        pr[n].base = jl_model_base_id(s->attrs.model ? s->attrs.model : "");
        n++;
    }
    qsort(pr, n, sizeof *pr, cmp_prec_run);
    size_t drawn = 0;
    jl_status st = JL_OK;
    for (size_t i = 0; i < n && !st;) {
        size_t j = i + 1;
        while (j < n && same_set(l, &pr[i], &pr[j]))
            j++;
        int made = 0;
        st = prec_figure(r, pr, i, j, &made, err);
        drawn += (size_t)made;
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        free(pr[i].base);
    free(pr);
    if (!st && !drawn)
        jl__report_cmp_note(
            r, "Precision against batch size (the paper's Fig. 7): no model was measured "
               "in two precisions on the same GPU model and count, so there is nothing "
               "to compare.");
    return st;
}
