/* Figure: GPU models at matched SLOs (paper Fig. 6; docs/report.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "joules/choice.h"
#include "joules/output.h"
#include "report/figures.h"
#include "report/knobs.h"

typedef struct cmp_row {
    size_t group;
    double best, worst;
} cmp_row;

static int cmp_rows(const void *pa, const void *pb)
{
    const cmp_row *a = pa, *b = pb;
    if (a->best != b->best)
        return a->best < b->best ? -1 : 1;
    return (a->group > b->group) - (a->group < b->group);
}

/* What the phases of the figure share: its rows (groups with two or more
 * GPU models meeting their SLO), the GPU models (sorted), the energy range,
 * the tic labels and their widths. */
typedef struct gpu_fig {
    jl__report_kind kind;
    const char *item;
    cmp_row *rows;
    size_t nq, n_kind;
    char **gpus; /* borrowed from the groups */
    size_t ng;
    double lo, hi;
    char *yts, *y2ts, *ytns; /* row names, winners, short names (3.3 in PDF) */
    size_t maxlen, maxlen2, maxlen_n;
} gpu_fig;

/* The rows and the GPU models of this kind of work. -1 out of memory. */
static int gpu_rows(jl__report_report *r, gpu_fig *gf)
{
    const jl_summary_list *l = r->l;
    if (!(gf->rows = jl__calloc_array(r->n_groups ? r->n_groups : 1, sizeof *gf->rows)))
        return -1;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        jl__report_group *g = &r->groups[gi];
        if (g->kind != gf->kind)
            continue;
        gf->n_kind++;
        double best = INFINITY, worst = -INFINITY;
        size_t meeting = 0;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            double e = l->items[run]->fig[jl__report_energy_fig(l->items[run])];
            if (!isfinite(e) || e <= 0)
                continue;
            meeting++;
            best = fmin(best, e);
            worst = fmax(worst, e);
            size_t j = 0;
            while (j < gf->ng && strcmp(gf->gpus[j], g->gpu_models[k]) < 0)
                j++;
            if (j < gf->ng && !strcmp(gf->gpus[j], g->gpu_models[k]))
                continue;
            char **p = realloc(gf->gpus, (gf->ng + 1) * sizeof *p);
            if (!p)
                return -1;
            gf->gpus = p;
            memmove(gf->gpus + j + 1, gf->gpus + j, (gf->ng - j) * sizeof *gf->gpus);
            gf->gpus[j] = g->gpu_models[k];
            gf->ng++;
        }
        if (meeting >= 2)
            gf->rows[gf->nq++] = (cmp_row){gi, best, worst};
    }
    return 0;
}

/* The energy of the baseline's pick in group g (NaN when it has none). */
static double row_baseline_energy(const jl__report_report *r, const jl__report_group *g)
{
    for (size_t k = 0; r->gpu_baseline && k < g->n_gpu_models; k++)
        if (!strcmp(g->gpu_models[k], r->gpu_baseline) && g->gpu_picks[k].run >= 0) {
            const jl_summary *s = r->l->items[g->gpu_picks[k].run];
            return s->fig[jl__report_energy_fig(s)];
        }
    return NAN;
}

/* The .dat: block 0 the rows' ranges, then a block per GPU model; each
 * point's entry in report.json's `bars` (returned). */
static json_t *gpu_dat(jl__report_report *r, gpu_fig *gf, jl__report_figure *f, jl__strbuf *dat)
{
    const jl_summary_list *l = r->l;
    jl__report_comment_line(dat, "%s", f->title);
    jl__strbuf_printf(dat,
                      "# blocks (gnuplot index): the rows' ranges, then one per GPU model\n"
                      "# row energy_j_per_%s gpus batch model task slo\n",
                      gf->item);
    /* block 0: per row the least and the most */
    for (size_t q = 0; q < gf->nq; q++)
        jl__strbuf_printf(dat, "%zu %.10g %.10g\n", q, gf->rows[q].best, gf->rows[q].worst);
    jl__strbuf_puts(dat, "\n\n");
    json_t *pts = json_array();
    gf->lo = INFINITY;
    gf->hi = -INFINITY;
    for (size_t j = 0; j < gf->ng; j++) {
        jl__report_comment_line(dat, "GPU model %s", gf->gpus[j]);
        for (size_t q = 0; q < gf->nq; q++) {
            jl__report_group *g = &r->groups[gf->rows[q].group];
            long run = -1;
            for (size_t k = 0; k < g->n_gpu_models; k++)
                if (!strcmp(g->gpu_models[k], gf->gpus[j]))
                    run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            const jl_summary *s = l->items[run];
            double e = s->fig[jl__report_energy_fig(s)];
            if (!isfinite(e) || e <= 0)
                continue;
            gf->lo = fmin(gf->lo, e);
            gf->hi = fmax(gf->hi, e);
            jl__strbuf_printf(dat, "%zu %.10g %ld %ld ", q, e, s->attrs.num_gpus,
                              s->attrs.max_batch_size);
            jl__report_dat_str(dat, g->model);
            jl__strbuf_puts(dat, " ");
            jl__report_dat_str(dat, g->task);
            jl__strbuf_puts(dat, " ");
            jl__report_dat_str(dat, g->slo_text);
            jl__strbuf_puts(dat, "\n");
            json_t *rk = jl_run_key_to_json(s);
            json_object_set_new(rk, "energy", jl_json_number(e));
            json_object_set_new(rk, "energy_unit", json_string(jl__report_energy_unit(s)));
            json_object_set_new(rk, "row", json_integer((json_int_t)q));
            /* the one sign of the page and of `joules compare`: the change vs
             * the baseline, negative = less energy (NaN: the baseline has no
             * pick in the row); reduction_pct, its opposite, kept one
             * release for older readers */
            double eb = row_baseline_energy(r, g);
            double change = isfinite(eb) && eb > 0 ? (e / eb - 1) * 100 : NAN;
            json_object_set_new(rk, "energy_change_pct", jl_json_number(change != 0 ? change : 0));
            json_object_set_new(rk, "reduction_pct", jl_json_number(change != 0 ? -change : 0));
            json_object_set_new(rk, "slo", json_string(g->slo_text));
            json_array_append_new(pts, rk);
            f->n_points++;
        }
        jl__strbuf_puts(dat, "\n\n");
    }
    return pts;
}

/* The tic labels: row names (left), the winner and its change (right),
 * short names for the 3.3 in PDF; report.json's `rows` (returned). */
static json_t *gpu_labels(jl__report_report *r, gpu_fig *gf)
{
    const jl_summary_list *l = r->l;
    jl__strbuf yt, y2t, ytn;
    jl__strbuf_init(&yt);
    jl__strbuf_init(&y2t);
    jl__strbuf_init(&ytn); /* shorter names for the 3.3 in PDF */
    json_t *rj = json_array();
    for (size_t q = 0; q < gf->nq; q++) {
        jl__report_group *g = &r->groups[gf->rows[q].group];
        char name[96], win[160];
        snprintf(name, sizeof name, "%.38s \xc2\xb7 %.18s", jl__report_base_name(g->model),
                 g->task ? g->task : "?");
        const char *wg = "?";
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run >= 0 &&
                l->items[run]->fig[jl__report_energy_fig(l->items[run])] == gf->rows[q].best)
                wg = g->gpu_models[k];
        }
        /* right: each other GPU model's energy change vs the baseline (the
         * sign of the page's table and of `joules compare`); tic labels are
         * formats to gnuplot: jl__report_gp_fmt_str doubles the % */
        double eb = row_baseline_energy(r, g);
        json_t *changes = json_object();
        size_t wl = 0;
        win[0] = '\0';
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run < 0 || !strcmp(g->gpu_models[k], r->gpu_baseline ? r->gpu_baseline : ""))
                continue;
            double e = l->items[run]->fig[jl__report_energy_fig(l->items[run])];
            if (!isfinite(e) || !isfinite(eb) || !(eb > 0))
                continue;
            double c = (e / eb - 1) * 100;
            char pc[32];
            jl__report_fmt_num(pc, sizeof pc, fabs(c), 2);
            wl += (size_t)snprintf(win + wl, wl < sizeof win ? sizeof win - wl : 0,
                                   "%s%.12s %s%s%%", wl ? ", " : "", g->gpu_models[k],
                                   c < 0 ? "\xe2\x88\x92" : "+", pc);
            if (wl >= sizeof win)
                wl = sizeof win - 1;
            json_object_set_new(changes, g->gpu_models[k], jl_json_number(c));
        }
        if (!win[0])
            snprintf(win, sizeof win, "no %.12s", r->gpu_baseline ? r->gpu_baseline : "baseline");
        gf->maxlen = strlen(name) > gf->maxlen ? strlen(name) : gf->maxlen;
        /* the model's start and end ("stable-d...5-medium"), the task when
         * the rows' tasks differ */
        char nname[64];
        const char *sm = jl__report_base_name(g->model);
        size_t sl = strlen(sm);
        if (sl <= 20)
            snprintf(nname, sizeof nname, "%s", sm);
        else
            snprintf(nname, sizeof nname, "%.9s\xe2\x80\xa6%s", sm, sm + sl - 10);
        int tasks_differ = 0;
        for (size_t q2 = 0; q2 < gf->nq; q2++)
            tasks_differ |=
                strcmp(r->groups[gf->rows[q2].group].task ? r->groups[gf->rows[q2].group].task : "",
                       g->task ? g->task : "") != 0;
        if (tasks_differ)
            snprintf(nname + strlen(nname), sizeof nname - strlen(nname), " %.9s",
                     g->task ? g->task : "?");
        gf->maxlen_n = strlen(nname) > gf->maxlen_n ? strlen(nname) : gf->maxlen_n;
        jl__strbuf_puts(&ytn, q ? ", " : "");
        jl__report_gp_fmt_str(&ytn, nname);
        jl__strbuf_printf(&ytn, " %zu", q);
        gf->maxlen2 = strlen(win) > gf->maxlen2 ? strlen(win) : gf->maxlen2;
        jl__strbuf_puts(&yt, q ? ", " : "");
        jl__report_gp_fmt_str(&yt, name);
        jl__strbuf_printf(&yt, " %zu", q);
        jl__strbuf_puts(&y2t, q ? ", " : "");
        jl__report_gp_fmt_str(&y2t, win);
        jl__strbuf_printf(&y2t, " %zu", q);
        json_array_append_new(rj,
                              json_pack("{s:s?,s:s?,s:s,s:f,s:f,s:s?,s:o}", "model", g->model,
                                        "task", g->task, "least_energy_gpu", wg, "least",
                                        gf->rows[q].best, "most", gf->rows[q].worst, "baseline",
                                        r->gpu_baseline, "energy_change_vs_baseline_pct", changes));
    }
    gf->yts = jl__strbuf_take(&yt);
    gf->y2ts = jl__strbuf_take(&y2t);
    gf->ytns = jl__strbuf_take(&ytn);
    return rj;
}

/* The script: size by rows, the log energy axis, the tics, the plot. */
static void gpu_script(const jl__report_report *r, const gpu_fig *gf, const jl__report_figure *f,
                       const char *base, jl__strbuf *gp)
{
    size_t nq = gf->nq;
    int h = 110 + 21 * (int)nq;
    jl__report_gp_header_sized(
        gp, f->id, f->title,
        "Minimum energy per GPU model at each group's SLO, one row per group, log axis.", 900, h,
        0.9 + 0.16 * (double)nq, 0.9 + 0.15 * (double)nq);
    double l0 = log10(gf->lo), l1 = log10(gf->hi), span = l1 > l0 ? l1 - l0 : 1;
    jl__strbuf_printf(gp,
                      "set xlabel \"energy per %s at the SLO (J), log scale\"\n"
                      "set logscale x\n"
                      "set xrange [%.6g:%.6g]\n"
                      "set yrange [%g:-0.7] reverse\n"
                      "set ytics (%s) scale 0\n"
                      "set y2range [%g:-0.7] reverse\n"
                      "set y2tics (%s) scale 0 textcolor rgb \"#333333\"\n"
                      "if (narrow) unset label 1\n"
                      "set grid xtics noytics\n"
                      "set bars 0\n"
                      "set border 1\n"
                      "set lmargin %zu\nset rmargin %zu\n"
                      "set key outside top center horizontal samplen 1\n",
                      gf->item, pow(10, l0 - span * 0.06), pow(10, l1 + span * 0.06),
                      (double)nq - 0.3, gf->yts ? gf->yts : "", (double)nq - 0.3,
                      gf->y2ts ? gf->y2ts : "", gf->maxlen + 2,
                      (base && strlen(base) + 12 > gf->maxlen2 ? strlen(base) + 12 : gf->maxlen2) +
                          2);
    jl__report_log_tics(gp, "x", pow(10, l0 - span * 0.06), pow(10, l1 + span * 0.06));
    if (base) { /* what the right column says, once */
        char t[96];
        snprintf(t, sizeof t, "change vs %s", base);
        jl__strbuf_puts(gp, "set label 1 ");
        jl__report_gp_str(gp, t);
        jl__strbuf_puts(gp,
                        " at graph 1, graph 1 left offset char 1,1.4 textcolor rgb \"#333333\"\n");
    }
    /* 3.3 in: short names, no savings column (the dots show it), decade ticks */
    jl__strbuf_printf(gp,
                      "if (narrow) set ytics (%s) scale 0; set lmargin %zu; unset y2tics; "
                      "set rmargin 3; set xlabel \"energy per %s (J)\"; set xtics (",
                      gf->ytns ? gf->ytns : "", gf->maxlen_n + 1, gf->item);
    /* decades; 1-3 per decade when fewer than three decades show */
    double xa = pow(10, l0 - span * 0.06), xb = pow(10, l1 + span * 0.06);
    int firstd = 1, nd = 0;
    for (int k = (int)floor(log10(xa)); k <= (int)ceil(log10(xb)); k++)
        nd += pow(10, k) >= xa && pow(10, k) <= xb;
    for (int k = (int)floor(log10(xa)); k <= (int)ceil(log10(xb)); k++)
        for (int m = 1; m <= 3; m += 2) {
            double v = m * pow(10, k);
            if ((m == 1 || nd < 3) && v >= xa && v <= xb) {
                jl__strbuf_printf(gp, "%s%.10g", firstd ? "" : ", ", v);
                firstd = 0;
            }
        }
    jl__strbuf_puts(gp, ")\n");
    /* the range lines are vectors, not error bars: error bars with no point
     * write scale(0), which librsvg refuses to draw */
    jl__strbuf_printf(gp,
                      "plot \"%s.dat\" index 0 using 2:1:($3-$2):(0) with vectors nohead lw 1.2 "
                      "lc rgb \"#bbbbbb\" notitle",
                      f->id);
    for (size_t j = 0; j < gf->ng; j++) {
        int pt;
        const char *col = jl__report_class_colour(r, RP_CLASS_GPU, gf->gpus[j], &pt);
        jl__strbuf_printf(
            gp, ", \\\n     \"\" index %zu using 2:1 with points pt %d ps 1.3 lc rgb \"%s\" title ",
            j + 1, pt, col);
        jl__report_gp_str(gp, gf->gpus[j]);
    }
    jl__strbuf_puts(gp, "\nunset output\n");
}

static void gpu_fig_free(gpu_fig *gf)
{
    free(gf->rows);
    free(gf->gpus);
    free(gf->yts);
    free(gf->y2ts);
    free(gf->ytns);
}

/* One figure per kind of work (tokens, images, videos): a row per (model,
 * task) with two or more GPU models meeting its SLO, sorted by the least
 * energy; on a log axis, a dot per GPU model at the energy of its
 * minimum-energy configuration meeting the SLO, a line from the least to
 * the most; on the right, the GPU model needing the least and by how much
 * less than the one needing the most. Legible at any number of rows: the
 * figure grows with them. In phases: the rows, the .dat, the labels, the
 * script. */
jl_status jl__report_fig_gpu_compare(jl__report_report *r, jl__report_kind kind, jl_error **err)
{
    gpu_fig gf;
    memset(&gf, 0, sizeof gf);
    gf.kind = kind;
    gf.item = kind == RP_KIND_LLM ? "token" : kind == RP_KIND_IMAGE ? "image" : "video";
    if (gpu_rows(r, &gf)) {
        gpu_fig_free(&gf);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    static const char *const what[] = {"LLM / MLLM", "text-to-image", "text-to-video"};
    if (gf.nq == 0) {
        if (gf.n_kind)
            jl__report_cmp_note(
                r,
                "GPU models at matched SLOs (%s): no (model, task) has runs on two or "
                "more GPU models meeting its SLO, so there is nothing to compare.",
                what[kind]);
        gpu_fig_free(&gf);
        return JL_OK;
    }
    qsort(gf.rows, gf.nq, sizeof *gf.rows, cmp_rows);
    char *id = jl__asprintf("gpu-comparison-%s", jl__report_kind_name(kind));
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_GPU_COMPARE, -1, id) : NULL;
    free(id);
    if (!f) {
        gpu_fig_free(&gf);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    f->title = jl__asprintf("GPU models at matched SLOs (%s)", what[kind]);
    f->caption = jl__asprintf(
        "Each row a (model, task) with two or more GPU models meeting its SLO (%zu rows), "
        "sorted by the least energy: a dot per GPU model at the energy per %s of its "
        "minimum-energy configuration meeting the group's SLO (log axis; a line joins the least "
        "and the most). Right: each other GPU model's energy change vs %s (negative = less "
        "energy; \"no %s\" where %s has no pick). The paper's Fig. 6. Configurations: the "
        ".dat and report.json.",
        gf.nq, gf.item, r->gpu_baseline ? r->gpu_baseline : "the baseline",
        r->gpu_baseline ? r->gpu_baseline : "baseline",
        r->gpu_baseline ? r->gpu_baseline : "the baseline");
    jl__strbuf dat, gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&gp);
    json_t *pts = gpu_dat(r, &gf, f, &dat);
    json_t *rj = gpu_labels(r, &gf);
    gpu_script(r, &gf, f, r->gpu_baseline, &gp);
    json_t *gl = json_array();
    for (size_t j = 0; j < gf.ng; j++)
        json_array_append_new(gl, json_string(gf.gpus[j]));
    f->meta = json_pack("{s:s,s:s,s:o,s:o,s:o}", "kind", jl__report_kind_name(kind), "energy_unit",
                        kind == RP_KIND_LLM     ? "J/token"
                        : kind == RP_KIND_IMAGE ? "J/image"
                                                : "J/video",
                        "gpu_models", gl, "rows", rj, "bars", pts);
    gpu_fig_free(&gf);
    jl_status st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&gp);
    return st;
}
