/* Figure: every model of a task at its pick (paper Fig. 1; docs/report.md). */
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

/* One figure per task: every model (group) of the task at its minimum-energy
 * configuration meeting the group's SLO (without one: its minimum-energy
 * run, an open marker), energy per response (LLM: energy per token x mean
 * output tokens; diffusion: per image or video) against latency, log axes,
 * colour by the GPU model of that configuration. The view of the ML.ENERGY
 * leaderboard and the paper's Fig. 1. */
/* The figure's state: per point the run, its group and whether it meets
 * the SLO; the GPU models (borrowed labels); the label placers. */
typedef struct overview {
    long *runs;
    size_t *grp;
    int *meets;
    size_t n;
    char **gpus;
    size_t ng;
    int diffusion;
    int px_h;                /* the SVG's height: taller with more models, so their names fit */
    double pdf1_h;           /* the 3.3 in PDF's height (in), the same */
    jl__report_placer pl[2]; /* wide outputs, 3.3 in PDF */
} overview;

/* One point per group of the task: its pick, else its minimum-energy run.
 * -1 out of memory. */
static int overview_points(jl__report_report *r, const char *task, overview *ov)
{
    const jl_summary_list *l = r->l;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        jl__report_group *g = &r->groups[gi];
        if (!g->task || strcmp(g->task, task))
            continue;
        long run = g->pick.run;
        int m = run >= 0;
        if (run < 0) { /* the minimum-energy run */
            double best = INFINITY;
            for (size_t k = 0; k < g->n_runs; k++) {
                const jl_summary *s = l->items[g->runs[k]];
                double e = s->fig[jl__report_energy_fig(s)];
                if (isfinite(e) && e < best) {
                    best = e;
                    run = (long)g->runs[k];
                }
            }
        }
        if (run < 0)
            continue;
        const jl_summary *s = l->items[run];
        ov->diffusion = jl_attrs_is_diffusion(&s->attrs);
        double e =
            ov->diffusion ? s->fig[jl__report_energy_fig(s)] : s->fig[JL_FIG_ENERGY_PER_REQUEST_J];
        if (!isfinite(e) || e <= 0 || !isfinite(s->fig[jl__report_latency_fig(s)]))
            continue;
        ov->runs[ov->n] = run;
        ov->grp[ov->n] = gi;
        ov->meets[ov->n] = m;
        ov->n++;
        const char *gm = jl__report_gpu_label(s->attrs.gpu_model);
        size_t j = 0;
        while (j < ov->ng && strcmp(ov->gpus[j], gm))
            j++;
        if (j == ov->ng) {
            char **p = realloc(ov->gpus, (ov->ng + 1) * sizeof *p);
            if (!p)
                return -1;
            ov->gpus = p;
            ov->gpus[ov->ng++] = (char *)gm;
        }
    }
    return 0;
}

/* The .dat: a block per GPU model, each point with its label placements;
 * report.json's points (returned). */
static json_t *overview_dat(jl__report_report *r, overview *ov, jl__report_figure *f,
                            const char *resp, jl__strbuf *dat)
{
    const jl_summary_list *l = r->l;
    size_t n = ov->n;
    double lscale = ov->diffusion ? 1 : 1000;
    jl__report_comment_line(dat, "%s", f->title);
    jl__strbuf_printf(
        dat,
        "# blocks (gnuplot index): one per GPU model\n"
        "# latency_%s energy_j_per_%s meets_slo, label x y (wide), x y (3.3 in PDF), leader end x y (wide), x y (3.3 in PDF), label, model config\n",
        ov->diffusion ? "s" : "ms", resp);
    double *xs = jl__calloc_array(n, sizeof *xs), *ys = jl__calloc_array(n, sizeof *ys);
    for (size_t i = 0; xs && ys && i < n; i++) {
        const jl_summary *s = l->items[ov->runs[i]];
        xs[i] = s->fig[jl__report_latency_fig(s)] * lscale;
        ys[i] =
            ov->diffusion ? s->fig[jl__report_energy_fig(s)] : s->fig[JL_FIG_ENERGY_PER_REQUEST_J];
    }
    /* 520 px for ten models, 18 px more for each one more (the PDFs grow
     * alike): the labels' and markers' shares of the height shrink so */
    ov->px_h = 520 + (n > 10 ? (int)(n - 10) * 18 : 0);
    if (ov->px_h > 1200)
        ov->px_h = 1200;
    /* one column is narrow: a long name takes most of its width, so it grows
     * faster (2.5 in for five models, 0.26 in a model more, at most 7.5 in) */
    ov->pdf1_h = fmin(7.5, fmax(2.5, 1.3 + 0.26 * (double)n));
    double taller[2] = {ov->px_h / 520.0, ov->pdf1_h / 2.5};
    if (xs && ys)
        jl__report_placers_init(ov->pl, 1, 1, xs, ys, n, 0.08, 0.08, 0.08, 0.08, taller);
    json_t *pts = json_array();
    for (size_t j = 0; j < ov->ng; j++) {
        jl__report_comment_line(dat, "GPU model %s", ov->gpus[j]);
        for (size_t i = 0; xs && ys && i < n; i++) {
            const jl_summary *s = l->items[ov->runs[i]];
            if (strcmp(jl__report_gpu_label(s->attrs.gpu_model), ov->gpus[j]))
                continue;
            const jl__report_group *g = &r->groups[ov->grp[i]];
            const char *name = jl__report_base_name(g->model);
            char lab[40];
            snprintf(lab, sizeof lab, "%.38s", name);
            double a[8];
            for (int w = 0; w < 2; w++) {
                double ax[2], ay[2];
                jl__report_place_label_always(&ov->pl[w], xs[i], ys[i], lab, ax, ay);
                a[4 * w] = ax[0], a[4 * w + 1] = ay[0], a[4 * w + 2] = ax[1], a[4 * w + 3] = ay[1];
            }
            char *cfg = jl__report_config_label(s);
            jl__strbuf_printf(dat, "%.10g %.10g %d", xs[i], ys[i], ov->meets[i]);
            jl__report_dat_labels(dat, a, lab);
            jl__strbuf_puts(dat, " ");
            jl__report_dat_str(dat, g->model);
            jl__strbuf_puts(dat, " ");
            jl__report_dat_str(dat, cfg ? cfg : "?");
            jl__strbuf_puts(dat, "\n");
            free(cfg);
            json_t *rk = jl_run_key_to_json(s);
            json_object_set_new(rk, "meets_slo", json_boolean(ov->meets[i]));
            json_object_set_new(rk, "slo", json_string(g->slo_text));
            json_array_append_new(pts, rk);
            f->n_points++;
        }
        jl__strbuf_puts(dat, "\n\n");
    }
    free(xs);
    free(ys);
    return pts;
}

/* The script: log axes over the placer's ranges, a layer per GPU model
 * (filled: meets the SLO; open: does not), the labels. */
static void overview_script(const jl__report_report *r, const overview *ov,
                            const jl__report_figure *f, const char *resp, jl__strbuf *gp)
{
    jl__report_gp_header_sized(
        gp, f->id, f->title,
        "Every model of the task at its pick: energy per response against latency, log axes.", 900,
        ov->px_h, 7.0 * ov->px_h / 900, ov->pdf1_h);
    jl__strbuf_printf(gp,
                      "set xlabel \"%s, log scale\"\nset ylabel \"energy per %s (J), log scale\"\n"
                      "set logscale xy\n"
                      "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n"
                      "set key outside top center horizontal samplen 1\n",
                      ov->diffusion ? "batch latency (s)" : "median inter-token latency (ms)", resp,
                      ov->pl[0].xlo, ov->pl[0].xhi, ov->pl[0].ylo, ov->pl[0].yhi);
    jl__report_log_tics(gp, "x", ov->pl[0].xlo, ov->pl[0].xhi);
    jl__report_log_tics(gp, "y", ov->pl[0].ylo, ov->pl[0].yhi);
    jl__report_label_columns(gp, 4);
    jl__strbuf_puts(gp, "plot ");
    for (size_t j = 0; j < ov->ng; j++) {
        int pt;
        const char *col = jl__report_class_colour(r, RP_CLASS_GPU, ov->gpus[j], &pt);
        jl__strbuf_printf(
            gp,
            "%s\"%s.dat\" index %zu using 1:($3 != 0 ? $2 : NaN) with points pt %d ps 1.4 lc rgb \"%s\" title ",
            j ? ", \\\n     " : "", f->id, j, pt, col);
        jl__report_gp_str(gp, ov->gpus[j]);
        jl__strbuf_printf(
            gp,
            ", \\\n     \"\" index %zu using 1:($3 != 0 ? NaN : $2) with points pt %d ps 1.4 lc rgb \"%s\" notitle",
            j, pt - 1, col);
        char src[32];
        snprintf(src, sizeof src, "\"\" index %zu", j);
        jl__report_plot_label_layers(gp, src, "#333333");
    }
    jl__strbuf_puts(gp, "\nunset output\n");
}

jl_status jl__report_fig_overview(jl__report_report *r, const char *task, jl_error **err)
{
    const jl_summary_list *l = r->l;
    overview ov;
    memset(&ov, 0, sizeof ov);
    ov.runs = jl__calloc_array(r->n_groups ? r->n_groups : 1, sizeof *ov.runs);
    ov.grp = jl__calloc_array(r->n_groups ? r->n_groups : 1, sizeof *ov.grp);
    ov.meets = jl__calloc_array(r->n_groups ? r->n_groups : 1, sizeof *ov.meets);
    jl_status st = JL_OK;
    if (!ov.runs || !ov.grp || !ov.meets || overview_points(r, task, &ov)) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto out;
    }
    if (ov.n < 2)
        goto out; /* one model: its section says it all */
    const jl_summary *s0 = l->items[ov.runs[0]];
    char *id = jl__asprintf("overview-%s", task);
    for (char *c = id; c && *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '-'))
            *c = '-';
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_OVERVIEW, -1, id) : NULL;
    free(id);
    if (!f) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto out;
    }
    const char *resp = ov.diffusion ? jl__report_item(s0) : "response";
    f->title = jl__asprintf("Every model of %s at its minimum-energy configuration", task);
    f->caption = jl__asprintf(
        "Each point one model on task %s: its minimum-energy configuration meeting the group's "
        "SLO (open marker: no run meets it; its minimum-energy run instead), energy per %s%s "
        "against %s, log axes, colour by GPU model. Labels: the model, where they fit (every "
        "point is named in the .dat). The view of the ML.ENERGY leaderboard and the paper's "
        "Fig. 1.",
        task, resp, ov.diffusion ? "" : " (energy per token x mean output tokens)",
        ov.diffusion ? "batch latency" : "median inter-token latency");
    jl__strbuf dat, gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&gp);
    json_t *pts = overview_dat(r, &ov, f, resp, &dat);
    overview_script(r, &ov, f, resp, &gp);
    f->meta = json_pack("{s:s,s:s,s:s,s:o}", "task", task, "energy_unit",
                        ov.diffusion ? jl__report_energy_unit(s0) : "J/response", "latency_unit",
                        ov.diffusion ? "s" : "ms", "points", pts);
    st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&gp);
out:
    free(ov.pl[0].boxes);
    free(ov.pl[1].boxes);
    free(ov.runs);
    free(ov.grp);
    free(ov.meets);
    free(ov.gpus);
    return st;
}
