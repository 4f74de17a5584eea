/* Figure: power over time of a group's representative run (docs/report.md,
 * "The figures" 1), and its data/timeseries/GROUP.csv. The samples come
 * through the study (jl_study_power_series), downsampled to at most
 * max_plot_points bucket means. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/output.h"
#include "joules/study.h"
#include "output/csv_row.h"
#include "report/figures.h"

/* What the .dat found and the script draws. */
typedef struct power_fig {
    double t0, t1, peak, occ_max;
    int have_occ, have_avg, diffusion;
    size_t n_samples; /* power samples in the run (the line draws bucket means of them) */
    const char *kind; /* the line's title: how power/watts was sampled (peak_power_kind) */
} power_fig;

/* The representative run's series, downsampled; NULL when there is none
 * to draw (summary-only, unreadable: the group's figure_note says why and
 * the figure is dropped). */
static jl_power_series *power_series(jl__report_report *r, jl__report_group *g, const jl_summary *s,
                                     const jl__report_figure *f)
{
    static const char *const summary_only =
        "No power-over-time figure: the runs are summary-only (e.g. imported published "
        "figures), without a power time series.";
    jl_power_series *ps = NULL;
    jl_error *rerr = NULL;
    if (!isfinite(s->fig[JL_FIG_RUN_DURATION_S])) {
        /* no power samples (run_duration_s is their span): a summary-only
         * run, e.g. imported published figures; nothing to read */
        g->figure_note = jl__strdup(summary_only);
        jl__report_drop_last_figure(r);
        return NULL;
    }
    if (jl_study_power_series(s, r->opt.max_plot_points, &ps, &rerr) != JL_OK) {
        /* not listed: the group says why in one line */
        char *m = rerr ? jl_error_format(rerr) : NULL;
        g->figure_note = jl__asprintf("No power-over-time figure: the representative run's time "
                                      "series could not be read (%s).",
                                      m ? m : "?");
        jl__report_note(r, "figure %s skipped: %s", f->id, m ? m : "?");
        free(m);
        jl_error_free(rerr);
        jl__report_drop_last_figure(r);
        return NULL;
    }
    if (!ps->n_samples) {
        /* summary-only runs (e.g. imported published summaries) */
        g->figure_note = jl__strdup(summary_only);
        jl_power_series_free(ps);
        jl__report_drop_last_figure(r);
        return NULL;
    }
    return ps;
}

/* The .dat and data/timeseries/GROUP.csv of the series (freed). */
static void power_dat(jl__report_report *r, const jl_summary *s, jl__report_figure *f,
                      jl_power_series *ps, power_fig *pf, jl__strbuf *dat, jl__strbuf *csv)
{
    size_t max_pts = r->opt.max_plot_points;
    pf->t0 = ps->first_s;
    pf->t1 = ps->last_s;
    jl__report_comment_line(dat,
                            "%s: power over time, downsampled to at most %zu points (bucket means)",
                            s->run ? s->run : "?", max_pts);
    jl__strbuf_puts(dat, "# time_s power_w power_avg_w running\n");
    static const char *const head[] = {"time_s", "power_w", "power_avg_w", "running", NULL};
    jl__csvw w;
    jl__csvw_begin_buf(&w, csv);
    jl__csvw_cells(&w, head);
    jl__csvw_end(&w);
    for (size_t b = 0; b < ps->n; b++) {
        double t = ps->time_s[b], p = ps->power_w[b], a = ps->power_avg_w[b], occ = ps->running[b];
        if (isfinite(p) && p > pf->peak)
            pf->peak = p;
        if (isfinite(occ) && occ > pf->occ_max)
            pf->occ_max = occ;
        jl__strbuf_printf(dat, "%.6f", t);
        jl__report_dat_num(dat, p);
        jl__report_dat_num(dat, a);
        jl__report_dat_num(dat, occ);
        jl__strbuf_puts(dat, "\n");
        jl__csvw_num(&w, t);
        jl__csvw_num(&w, p);
        jl__csvw_num(&w, a);
        jl__csvw_num(&w, occ);
        jl__csvw_end(&w);
        f->n_points++;
    }
    pf->have_occ = ps->has_running;
    pf->have_avg = ps->has_power_avg;
    pf->n_samples = ps->n_samples;
    jl_power_series_free(ps);
}

/* The script: power (and its 1 s average), occupancy on the right axis,
 * the steady-state window shaded, the power limit dashed. */
static void power_script(const jl__report_figure *f, const power_fig *pf, int node, double ws,
                         double we, double tdp, jl__strbuf *gp)
{
    jl__report_gp_header(
        gp, f->id, f->title,
        node
            ? "AC power of the whole node at the wall over the run (not GPU power), steady-state window shaded."
            : "Power of all GPUs over the run, steady-state window shaded, batch occupancy on the right axis.",
        1);
    jl__strbuf_printf(gp,
                      "set xlabel \"time in the run (s)\"\n"
                      "set ylabel \"%s\"\n",
                      node ? "node AC power at the wall (W)" : "GPU power, all GPUs (W)");
    jl__strbuf_puts(gp, "set ytics nomirror\n"
                        "set yrange [0:*]\n");
    if (pf->have_occ) {
        jl__strbuf_printf(gp, "set y2label \"%s\"\nset y2tics\nset y2range [0:%g]\n",
                          pf->diffusion ? "images in the running batch"
                                        : "batch occupancy (running requests)",
                          pf->occ_max > 0 ? pf->occ_max * 1.18 : 1.0);
    }
    jl__strbuf_printf(gp, "set xrange [%.6f:%.6f]\n", pf->t0,
                      pf->t1 > pf->t0 ? pf->t1 : pf->t0 + 1);
    if (isfinite(ws) && isfinite(we)) {
        jl__strbuf_printf(gp,
                          "ws = %.6f; we = %.6f\n"
                          "set object 1 rectangle from ws, graph 0 to we, graph 1 behind "
                          "fillcolor rgb \"#0072B2\" fillstyle transparent solid 0.12 noborder\n"
                          "set label 1 \"steady state\" at (ws+we)/2, graph 0.97 center "
                          "textcolor rgb \"#0072B2\"\n",
                          ws, we);
    }
    if (isfinite(tdp)) {
        jl__strbuf_printf(gp,
                          "tdp = %.3f\n"
                          "set yrange [0:%.1f]\n",
                          tdp, fmax(tdp, pf->peak) * 1.15);
    }
    jl__strbuf_puts(gp, "set key outside bottom center horizontal samplen 2.5 height 0.5\n");
    jl__strbuf_printf(
        gp, "plot \"%s.dat\" using 1:2 with lines lw 0.8 lc rgb \"#E69F00\" title \"power (%s)\"",
        f->id, pf->kind);
    if (pf->have_avg)
        jl__strbuf_puts(
            gp,
            ", \\\n     \"\" using 1:3 with lines lw 1.8 lc rgb \"#D55E00\" title \"power (1 s average)\"");
    if (pf->have_occ)
        jl__strbuf_puts(
            gp,
            ", \\\n     \"\" using 1:4 axes x1y2 with steps lw 1.8 lc rgb \"#009E73\" title \"batch occupancy (right axis)\"");
    if (isfinite(tdp)) /* in the key: a label over the trace would collide with it */
        jl__strbuf_puts(
            gp,
            ", \\\n     tdp with lines dt 2 lw 1 lc rgb \"#666666\" title sprintf(\"power limit %.0f W\", tdp)");
    jl__strbuf_puts(gp, "\nunset output\n");
}

/* The caption: only what the script draws (issue 36) -- whose power and
 * how it was sampled, the 1 s average line, the bucket means, the window,
 * the occupancy and the power limit where each is drawn. */
static void power_caption(jl__report_figure *f, const jl_summary *s, const jl__report_group *g,
                          const power_fig *pf, int node, int window, int limit)
{
    char *cfg = jl__report_config_label(s);
    jl__strbuf c;
    jl__strbuf_init(&c);
    jl__strbuf_printf(&c, "%s of the group's representative run (%s%s) over the whole run",
                      node ? "The node's AC power at the wall (not GPU power)"
                           : "GPU power (sum over the run's GPUs)",
                      cfg ? cfg : "", g->pick.run >= 0 ? ", the SLO pick" : ", lowest energy");
    jl__strbuf_printf(&c, ", readings %s", pf->kind);
    if (f->n_points && pf->n_samples > f->n_points)
        jl__strbuf_printf(&c, ", drawn as %zu bucket means of its %zu samples", f->n_points,
                          pf->n_samples);
    jl__strbuf_puts(&c, ".");
    if (pf->have_avg)
        jl__strbuf_puts(&c, " The darker line is the driver's 1 s average of the same power.");
    if (window)
        jl__strbuf_puts(&c, " The shaded band is the steady-state window of the run's steady "
                            "figures (its whole-run figures cover the whole span drawn).");
    if (pf->have_occ)
        jl__strbuf_printf(&c, " The green steps are the batch occupancy (%s) on the right axis.",
                          pf->diffusion ? "images in the batch being generated"
                                        : "requests running in the engine");
    if (limit)
        jl__strbuf_puts(&c, " The dashed line is the power limit.");
    char *cap = jl__strbuf_take(&c);
    if (cap) {
        free(f->caption);
        f->caption = cap;
    }
    free(cfg);
}

/* The figure of group gi: its series read, the .dat and CSV, the script,
 * the CSV registered as a data file. */
jl_status jl__report_fig_power(jl__report_report *r, long gi, jl_error **err)
{
    jl__report_group *g = &r->groups[gi];
    if (g->representative < 0)
        return JL_OK;
    const jl_summary *s = r->l->items[g->representative];
    char *id = jl__asprintf("power-%s", g->slug);
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_POWER, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    char *cfg = jl__report_config_label(s);
    f->title = jl__asprintf("Power over time: %s, %s (%s)", g->model ? g->model : "?",
                            g->task ? g->task : "?", cfg ? cfg : "");
    power_fig pf;
    memset(&pf, 0, sizeof pf);
    pf.diffusion = jl_attrs_is_diffusion(&s->attrs);
    pf.kind = !s->peak_power_kind                         ? "as logged"
              : !strcmp(s->peak_power_kind, "instant")    ? "instantaneous"
              : !strcmp(s->peak_power_kind, "average_1s") ? "1 s average, as logged"
                                                          : "as logged, sampling not recorded";
    /* a caption for a run whose series cannot be read; replaced below by
     * one that says what is drawn */
    f->caption =
        jl__asprintf("Power of the group's representative run (%s%s) over the whole run.",
                     cfg ? cfg : "", g->pick.run >= 0 ? ", the SLO pick" : ", lowest energy");
    free(cfg);
    jl_power_series *ps = power_series(r, g, s, f);
    if (!ps)
        return JL_OK;
    jl__strbuf dat, csv, gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&csv);
    jl__strbuf_init(&gp);
    power_dat(r, s, f, ps, &pf, &dat, &csv);
    double ws = s->fig[JL_FIG_STEADY_START_S], we = s->fig[JL_FIG_STEADY_END_S];
    /* @power_scope node_ac: the whole system at the wall, no GPU power limit */
    const int node = jl_attrs_is_node_ac(&s->attrs);
    double tdp =
        node ? NAN
             : jl__report_tdp_w(r, s) * (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
    power_script(f, &pf, node, ws, we, tdp, &gp);
    power_caption(f, s, g, &pf, node, isfinite(ws) && isfinite(we), isfinite(tdp));

    char *csvrel = jl__asprintf("data/timeseries/%s.csv", g->slug);
    jl_status st = csvrel ? jl__report_write_buf(r, csvrel, &csv, err)
                          : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (!st) {
        char *what = jl__asprintf("power and occupancy over time of %s run %s (downsampled; "
                                  "figure %s)",
                                  jl__report_base_name(s->file), s->run ? s->run : "?", f->id);
        jl__report_add_data(r, csvrel, what ? what : "time series", NULL);
        free(what);
        st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    }
    f->meta = json_pack("{s:o,s:s,s:o,s:o,s:o,s:b}", "run", jl_run_key_to_json(s), "timeseries",
                        csvrel ? csvrel : "", "steady_start_s", jl_json_number(ws), "steady_end_s",
                        jl_json_number(we), "power_limit_w", jl_json_number(tdp), "diffusion",
                        pf.diffusion);
    free(csvrel);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&csv);
    jl__strbuf_free(&gp);
    return st;
}
