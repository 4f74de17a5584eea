/* Figure: the time-energy frontier of a group (paper Fig. 8-9; docs/report.md). */
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

/* The latency bounds of a group's SLO set as dashed vertical lines, those
 * near the data (a bound far right of every run squeezes the plot). */
static void slo_lines(jl__strbuf *gp, const jl__report_group *g, int diffusion, double lscale,
                      double maxlat, int first_arrow, jl__report_placer *pl)
{
    int na = first_arrow;
    for (size_t j = 0; j < g->n_set; j++) {
        const jl_slo *slo = g->set[j];
        for (size_t k = 0; slo && k < slo->n; k++) {
            const jl_slo_cond *c = &slo->conds[k];
            int fig = diffusion ? c->figure_diffusion : c->figure_llm;
            if (fig != (diffusion ? JL_FIG_BATCH_LATENCY_S : JL_FIG_MEDIAN_ITL_S) ||
                (c->op != JL_SLO_LE && c->op != JL_SLO_LT))
                continue;
            double x = c->bound * lscale;
            if (x > maxlat * 1.5) {
                jl__report_comment_line(
                    gp, "SLO %s lies far right of every run (all meet it): not drawn", slo->text);
                continue;
            }
            double nx0 = pl ? jl__report_place_norm(x, pl[0].xlo, pl[0].xhi, pl[0].logx) : 0.5;
            if (pl && (nx0 < 0 || nx0 > 1)) { /* outside the axis: a line would stray */
                jl__report_comment_line(gp, "SLO %s lies outside the plotted latencies: not drawn",
                                        slo->text);
                continue;
            }
            /* its label left of the line, or right of it at the axis' left end
             * (not over the tick labels) */
            jl__strbuf_printf(
                gp,
                "set arrow %d from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb \"%s\"\n"
                "set label %d \"%g %s\" at %.10g, graph 0.98 right rotate by 90 offset %s,0 textcolor rgb \"#777777\" font lblfont\n",
                na, x, x, j == g->primary ? "#555555" : "#aaaaaa", na, x, diffusion ? "s" : "ms", x,
                nx0 < 0.06 ? "1.2" : "-0.4");
            for (int w = 0; pl && w < 2; w++) { /* the rotated label at the top */
                double nx = jl__report_place_norm(x, pl[w].xlo, pl[w].xhi, pl[w].logx);
                double side = nx0 < 0.06 ? 2.0 : 0;
                jl__report_place_push(&pl[w], (jl__report_box){nx - pl[w].cw * (2.5 - side),
                                                               1.0 - pl[w].ch * 6,
                                                               nx + pl[w].cw * (1.5 + side), 1.05});
            }
            na++;
        }
    }
}

/* What the phases of a frontier figure share: the curves, the axes (log or
 * not, their ranges) and the label placers. */
typedef struct frontier_fig {
    int diffusion;
    double lscale; /* ITL in ms */
    jl__report_series *ser;
    size_t nser;
    int logx, logy;
    double xlo, xhi, ylo, yhi;
    jl__report_placer pl[2];
} frontier_fig;

/* The axes from every curve's points: log when they span 8x or more; the
 * SLO lines into slo_gp (they reserve their label's place). */
static void frontier_axes(jl__report_group *g, frontier_fig *ff, jl__strbuf *slo_gp)
{
    size_t nv = 0, total = g->frontier->n_points;
    for (size_t c = 0; c < ff->nser; c++)
        total += ff->ser[c].cv.n_points;
    double *lat = jl__calloc_array(total + 1, sizeof *lat);
    double *en = jl__calloc_array(total + 1, sizeof *en);
    double maxlat = 0;
    for (size_t c = 0; lat && en && c < ff->nser; c++)
        for (size_t i = 0; i < ff->ser[c].cv.n_points; i++) {
            const jl_curve_point *p = &ff->ser[c].cv.points[i];
            if (isfinite(p->latency) && isfinite(p->energy)) {
                lat[nv] = p->latency * ff->lscale;
                en[nv++] = p->energy;
                maxlat = fmax(maxlat, p->latency * ff->lscale);
            }
        }
    ff->logy = lat && en ? jl__report_wide_range(en, nv, 8) : 0;
    ff->logx = lat && en ? jl__report_wide_range(lat, nv, 8) : 0;
    jl__report_placers_init(ff->pl, ff->logx, ff->logy, lat, en, lat && en ? nv : 0, 0.06, 0.10,
                            0.12, 0.08, NULL);
    ff->xlo = ff->pl[0].xlo;
    ff->xhi = ff->pl[0].xhi;
    ff->ylo = ff->pl[0].ylo;
    ff->yhi = ff->pl[0].yhi;
    /* the frontier's rings (point size 2.0) take more room than a marker */
    for (size_t i = 0; i < g->frontier->n_points; i++)
        for (int w = 0; w < 2; w++) {
            jl__report_placer *p = &ff->pl[w];
            double nx = jl__report_place_norm(g->frontier->points[i].latency * ff->lscale, p->xlo,
                                              p->xhi, p->logx),
                   ny = jl__report_place_norm(g->frontier->points[i].energy, p->ylo, p->yhi,
                                              p->logy);
            jl__report_place_push(p, (jl__report_box){nx - 1.5 * p->mw, ny - 1.5 * p->mh,
                                                      nx + 1.5 * p->mw, ny + 1.5 * p->mh});
        }
    slo_lines(slo_gp, g, ff->diffusion, ff->lscale, maxlat, 1, ff->pl);
    free(lat);
    free(en);
}

/* The .dat: a block per curve (points labelled with their batch where the
 * label fits), then the frontier; report.json's curves (returned). */
static json_t *frontier_dat(const jl_summary_list *l, const jl_frontier *fr, frontier_fig *ff,
                            jl__report_figure *f, jl__strbuf *dat)
{
    json_t *curves = json_array();
    for (size_t c = 0; c < ff->nser; c++) {
        const jl_curve *cv = &ff->ser[c].cv;
        jl__report_comment_line(dat, "curve %zu: %s x%ld %s%s%s", c,
                                jl__report_gpu_label(cv->gpu_model), cv->num_gpus,
                                cv->precision ? cv->precision : "?", ff->ser[c].variant ? ", " : "",
                                ff->ser[c].variant ? ff->ser[c].variant : "");
        for (size_t i = 0; i < cv->n_points; i++) {
            const jl_curve_point *p = &cv->points[i];
            char lab[32];
            snprintf(lab, sizeof lab, "%ld", p->batch);
            double a[8] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
            for (int w = 0; w < 2; w++)
                if (isfinite(p->latency) && isfinite(p->energy)) {
                    double ax[2], ay[2];
                    jl__report_place_label(&ff->pl[w], p->latency * ff->lscale, p->energy, lab, ax,
                                           ay);
                    a[4 * w] = ax[0], a[4 * w + 1] = ay[0], a[4 * w + 2] = ax[1],
                          a[4 * w + 3] = ay[1];
                }
            jl__strbuf_printf(dat, "%.10g %.10g %ld %d", p->latency * ff->lscale, p->energy,
                              p->batch, p->on_frontier);
            jl__report_dat_labels(dat, a, lab);
            jl__strbuf_puts(dat, "\n");
            f->n_points++;
        }
        jl__strbuf_puts(dat, "\n\n");
        json_t *cj = json_pack("{s:s?,s:I,s:s?,s:I}", "gpu_model", cv->gpu_model, "num_gpus",
                               (json_int_t)cv->num_gpus, "precision", cv->precision, "n_points",
                               (json_int_t)cv->n_points);
        json_object_set_new(cj, "variant",
                            ff->ser[c].variant ? json_string(ff->ser[c].variant) : json_null());
        json_t *rk = json_array();
        for (size_t i = 0; i < cv->n_points; i++)
            json_array_append_new(rk, jl_run_key_to_json(l->items[cv->points[i].run]));
        json_object_set_new(cj, "runs", rk);
        json_array_append_new(curves, cj);
    }
    jl__strbuf_puts(dat, "# frontier\n");
    for (size_t i = 0; i < fr->n_points; i++)
        jl__strbuf_printf(dat, "%.10g %.10g %ld 1 NaN NaN NaN NaN NaN NaN NaN NaN \"\"\n",
                          fr->points[i].latency * ff->lscale, fr->points[i].energy,
                          l->items[fr->points[i].run]->attrs.max_batch_size);
    return curves;
}

/* The script: axes, the SLO lines, a line per curve with its labels, the
 * frontier in black. */
static void frontier_script(const jl__report_report *r, const frontier_fig *ff,
                            const jl__report_figure *f, const char *elabel, jl__strbuf *slo_gp,
                            jl__strbuf *gp)
{
    /* the 3.3 in PDF: the key in one column below, the page as tall as it needs */
    /* the key below in rows of three (one column in the 3.3 in PDF): the
     * figure grows by its rows, so the plot keeps the size its labels were
     * placed for */
    int rows = (int)(ff->nser + 1 + 2) / 3;
    jl__report_gp_header_sized(
        gp, f->id, f->title,
        "Time-energy curves per configuration, batch sizes annotated, frontier in black.", 900,
        520 + (rows - 1) * 20, 7.0 * 520 / 900 + (rows - 1) * 0.17,
        2.4 + 0.15 * (double)(ff->nser + 1));
    jl__strbuf_printf(gp, "set xlabel \"%s\"\nset ylabel \"%s\"\n",
                      ff->diffusion ? "batch latency (s)" : "median inter-token latency (ms)",
                      elabel);
    if (ff->logx) {
        jl__strbuf_puts(gp, "set logscale x\n");
        jl__report_log_tics(gp, "x", ff->xlo, ff->xhi);
    }
    if (ff->logy) {
        jl__strbuf_puts(gp, "set logscale y\n");
        jl__report_log_tics(gp, "y", ff->ylo, ff->yhi);
    }
    jl__report_label_columns(gp, 5);
    /* the ranges the labels were placed over (their margins included) */
    jl__strbuf_printf(gp, "set xrange [%.10g:%.10g]\nset yrange [%.10g:%.10g]\n", ff->xlo, ff->xhi,
                      ff->ylo, ff->yhi);
    jl__strbuf_puts(gp,
                    "set key outside bottom center horizontal maxcols 3 samplen 2.5 height 0.5\n"
                    "if (narrow) set key outside bottom center vertical maxcols 1 samplen 2\n");
    char *slo_text = jl__strbuf_take(slo_gp);
    jl__strbuf_puts(gp, slo_text ? slo_text : "");
    free(slo_text);
    jl__strbuf_puts(gp, "plot ");
    for (size_t c = 0; c < ff->nser; c++) {
        const jl_curve *cv = &ff->ser[c].cv;
        /* the GPU model's colour (one per class across the page); the curves
         * of one GPU model told apart by their marker and dash */
        size_t same = 0;
        for (size_t d = 0; d < c; d++)
            same += !jl__strcmp_null_first(ff->ser[d].cv.gpu_model, cv->gpu_model);
        size_t of = same;
        for (size_t d = c + 1; d < ff->nser; d++)
            of += !jl__strcmp_null_first(ff->ser[d].cv.gpu_model, cv->gpu_model);
        int pt0;
        char col[8];
        jl__report_shade(col, jl__report_class_colour(r, RP_CLASS_GPU, cv->gpu_model, &pt0),
                         of ? 0.6 * (double)same / (double)of : 0);
        int pt = same ? jl__report_point_types[(same + 1) % RP_N_POINT_TYPES] : pt0;
        char *tt =
            jl__asprintf("%s x%ld, %s%s%s", jl__report_gpu_label(cv->gpu_model), cv->num_gpus,
                         cv->precision ? cv->precision : "?", ff->ser[c].variant ? ", " : "",
                         ff->ser[c].variant ? ff->ser[c].variant : "");
        jl__strbuf_printf(
            gp,
            "%s\"%s.dat\" index %zu using 1:2 with linespoints pt %d ps 1.0 lw 2 dt %d lc rgb \"%s\" title ",
            c ? ", \\\n     " : "", f->id, c, pt, (int)same % 5 + 1, col);
        jl__report_gp_str(gp, tt ? tt : "?");
        free(tt);
        char src[32];
        snprintf(src, sizeof src, "\"\" index %zu", c);
        jl__report_plot_label_layers(gp, src, col);
    }
    jl__strbuf_printf(
        gp,
        ", \\\n     \"%s.dat\" index %zu using 1:2 with lines dt 2 lw 1.4 lc rgb \"#000000\" title \"frontier\", \\\n"
        "     \"\" index %zu using 1:2 with points pt 6 ps 2.0 lw 1.4 lc rgb \"#000000\" notitle\n"
        "unset output\n",
        f->id, ff->nser, ff->nser);
}

/* The group's frontier figure, in phases: the axes, the .dat, the script. */
jl_status jl__report_fig_frontier(jl__report_report *r, long gi, jl_error **err)
{
    jl__report_group *g = &r->groups[gi];
    const jl_frontier *fr = g->frontier;
    const jl_summary_list *l = r->l;
    if (!fr || !fr->n_points)
        return JL_OK;
    const jl_summary *s0 = l->items[fr->points[0].run];
    frontier_fig ff;
    memset(&ff, 0, sizeof ff);
    ff.diffusion = jl_attrs_is_diffusion(&s0->attrs);
    ff.lscale = ff.diffusion ? 1 : 1000;
    char *id = jl__asprintf("frontier-%s", g->slug);
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_FRONTIER, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    f->title = jl__asprintf("Time-energy tradeoff: %s, %s", g->model ? g->model : "?",
                            g->task ? g->task : "?");
    f->caption = jl__asprintf(
        "Each line is one configuration: GPU model, count, precision, and where they differ the "
        "parallel degrees, denoising steps, resolution or frames; each point a run, labelled "
        "with its batch size where the label fits. Black rings and the dashed line: the "
        "frontier of the group (no run is both faster and cheaper). Dashed verticals: the "
        "latency bounds of the SLO set (the darker one is the group's SLO). The paper's "
        "Fig. 8-9.");
    char elabel[64];
    snprintf(elabel, sizeof elabel, "energy per %s (J)", jl__report_item(s0));
    jl__strbuf dat, gp, slo_gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&gp);
    jl__strbuf_init(&slo_gp);
    jl__report_comment_line(&dat, "%s", f->title);
    jl__strbuf_printf(
        &dat,
        "# blocks (gnuplot index): one per curve, then the frontier\n"
        "# latency_%s energy_j_per_%s batch on_frontier, label x y (wide), x y (3.3 in PDF), leader end x y (wide), x y (3.3 in PDF), label\n",
        ff.diffusion ? "s" : "ms", jl__report_item(s0));
    ff.nser = jl__report_split_curves(l, fr, &ff.ser);
    frontier_axes(g, &ff, &slo_gp);
    json_t *curves = frontier_dat(l, fr, &ff, f, &dat);
    free(ff.pl[0].boxes);
    free(ff.pl[1].boxes);
    frontier_script(r, &ff, f, elabel, &slo_gp, &gp);
    jl__report_series_free(ff.ser, ff.nser);
    f->meta =
        json_pack("{s:s,s:s,s:b,s:b,s:o}", "latency_unit", ff.diffusion ? "s" : "ms", "energy_unit",
                  jl__report_energy_unit(s0), "log_x", ff.logx, "log_y", ff.logy, "curves", curves);
    jl_status st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&gp);
    return st;
}
