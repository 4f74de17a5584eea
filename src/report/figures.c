/* The report's figures: for each one a data file (ID.dat) and a gnuplot
 * script (ID.gp) in figures/, then gnuplot draws ID.svg, ID.pdf and ID.png
 * from them (one gnuplot process per figure, fixed argv, run in figures/ so
 * the script refers to its data by a relative name and a user can re-run
 * `gnuplot ID.gp` there to restyle). Each output is written as ID.EXT.part
 * and renamed when gnuplot exited 0.
 *
 * What each figure shows and how it is computed: docs/report.md. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "joules/choice.h"
#include "joules/output.h"
#include "joules/trace.h"
#include "joules/frontier.h"
#include "report/report_internal.h"

/* Okabe–Ito: distinguishable for colour-blind readers, prints well. */
const char *const rp_palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                      "#E69F00", "#56B4E9", "#999999", "#000000"};
#define N_PALETTE RP_N_PALETTE

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* A string for a gnuplot script: double-quoted, \ and " escaped, no newlines. */
void rp_gp_str(jl_strbuf *b, const char *s)
{
    jl_strbuf_puts(b, "\"");
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            jl_strbuf_append(b, "\\", 1);
        if (*s == '\n' || *s == '\r')
            jl_strbuf_puts(b, " ");
        else
            jl_strbuf_append(b, s, 1);
    }
    jl_strbuf_puts(b, "\"");
}

/* A string column in a .dat file: double-quoted, quotes replaced. */
static void dat_str(jl_strbuf *b, const char *s)
{
    jl_strbuf_puts(b, "\"");
    for (; s && *s; s++)
        jl_strbuf_append(b, (*s == '"' || *s == '\n' || *s == '\t') ? "'" : s, 1);
    jl_strbuf_puts(b, "\"");
}

void rp_dat_num(jl_strbuf *b, double v)
{
    if (isfinite(v))
        jl_strbuf_printf(b, " %.10g", v);
    else
        jl_strbuf_puts(b, " NaN");
}

void rp_gp_header(jl_strbuf *b, const char *id, const char *title, const char *what,
                      int wide)
{
    jl_strbuf_printf(b, "# joules report figure %s: %s\n", id, title);
    jl_strbuf_printf(b, "# %s\n", what);
    jl_strbuf_printf(b,
                     "# Data: %s.dat (columns are named in its header). Restyle by editing this\n"
                     "# script, then from this folder:\n"
                     "#   gnuplot %s.gp                      -> %s.svg\n"
                     "#   gnuplot -e \"fmt='pdf'\" %s.gp       -> %s.pdf   (fmt='png' -> %s.png)\n"
                     "reset\n"
                     "if (!exists(\"fmt\")) fmt = \"svg\"\n"
                     "if (!exists(\"out\")) out = \"%s.\" . fmt\n",
                     id, id, id, id, id, id, id);
    int w = wide ? 1000 : 900, h = wide ? 480 : 520;
    jl_strbuf_printf(b,
                     "if (fmt eq \"svg\") set terminal svg size %d,%d font \"Helvetica,13\" linewidth 1.3 background rgb \"white\"\n"
                     "if (fmt eq \"pdf\") set terminal pdfcairo size %.2fin,%.2fin font \"Helvetica,9\" linewidth 1.1\n"
                     "if (fmt eq \"png\") set terminal pngcairo size %d,%d font \"Helvetica,14\" linewidth 1.5 background rgb \"white\"\n"
                     "set output out\n"
                     "set encoding utf8\n"
                     "set termoption noenhanced\n"
                     "set datafile missing \"NaN\"\n"
                     "set border 3 lc rgb \"#555555\"\n"
                     "set tics nomirror out\n"
                     "set grid xtics ytics lc rgb \"#e6e6e6\" lt 1 lw 1\n"
                     "set key noautotitle\n",
                     w, h, w / 140.0, h / 140.0, w * 3 / 2, h * 3 / 2);
    jl_strbuf_puts(b, "set title ");
    rp_gp_str(b, title);
    jl_strbuf_puts(b, " font \",14\"\n");
}

static jl_status write_rel(rp_report *r, const char *rel, jl_strbuf *b, jl_error **err)
{
    char *text = jl_strbuf_take(b);
    jl_status st = rp_write_text(r, rel, text, err);
    free(text);
    return st;
}

jl_status rp_write_fig_files(rp_report *r, rp_figure *f, jl_strbuf *dat, jl_strbuf *gp,
                                 jl_error **err)
{
    char *rel = jl_asprintf("figures/%s.dat", f->id);
    if (!rel)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    jl_status st = write_rel(r, rel, dat, err);
    free(rel);
    if (st)
        return st;
    rel = jl_asprintf("figures/%s.gp", f->id);
    if (!rel)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    st = write_rel(r, rel, gp, err);
    free(rel);
    return st;
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : (p ? p : "?");
}

static const char *gpu_label(const char *s)
{
    return s ? s : "?";
}

/* ---- 1. power over time ------------------------------------------------------------ */

/* Sum over GPUs of row i of a series. */
static double row_sum(const jl_series *s, size_t i)
{
    double t = 0;
    for (size_t g = 0; g < s->g; g++) {
        double v = s->v[i * s->g + g];
        if (!isfinite(v))
            return NAN;
        t += v;
    }
    return t;
}

static jl_status read_run(const jl_summary *s, jl_run **out, jl_error **err)
{
    *out = NULL;
    jl_trace *t = NULL;
    jl_status st = jl_trace_open(s->file, NULL, &t, err);
    if (st)
        return st;
    size_t n = jl_trace_run_count(t), idx = n;
    for (size_t i = 0; i < n; i++)
        if (s->run && !strcmp(jl_trace_run_name(t, i), s->run))
            idx = i;
    if (idx == n)
        st = jl_fail(err, JL_EMISSING, s->file, s->run, NULL, -1, "run not found in the file");
    else
        st = jl_trace_read_run(t, idx, out, err);
    jl_trace_close(t);
    return st;
}

static jl_status fig_power(rp_report *r, long gi, jl_error **err)
{
    rp_group *g = &r->groups[gi];
    if (g->representative < 0)
        return JL_OK;
    const jl_summary *s = r->l->items[g->representative];
    char *id = jl_asprintf("power-%s", g->slug);
    rp_figure *f = id ? rp_add_figure(r, RP_FIG_POWER, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    char *cfg = rp_config_label(s);
    f->title = jl_asprintf("Power over time: %s, %s (%s)", g->model ? g->model : "?",
                           g->task ? g->task : "?", cfg ? cfg : "");
    int diffusion = jl_attrs_is_diffusion(&s->attrs);
    f->caption = jl_asprintf(
        "GPU power (sum over the run's GPUs) of the group's representative run (%s%s) over "
        "the whole run. The shaded band is the steady-state window every figure of the run is "
        "computed over; the green steps are the batch occupancy (%s) on the right axis; the "
        "dashed line is the power limit.",
        cfg ? cfg : "", g->pick.run >= 0 ? ", the SLO pick" : ", lowest energy",
        diffusion ? "images in the batch being generated" : "requests running in the engine");
    free(cfg);
    jl_run *run = NULL;
    jl_error *rerr = NULL;
    if (read_run(s, &run, &rerr) != JL_OK) {
        char *m = rerr ? jl_error_format(rerr) : NULL;
        f->note = jl_asprintf("the time series could not be read: %s", m ? m : "?");
        rp_note(r, "figure %s skipped: %s", f->id, m ? m : "?");
        free(m);
        jl_error_free(rerr);
        return JL_OK;
    }
    if (!run->power_n || !run->power_time) {
        /* summary-only runs (e.g. imported published summaries) */
        f->note = jl_strdup("the run has no power time series (a summary-only run, e.g. imported "
                            "published figures): nothing to draw over time");
        jl_run_free(run);
        return JL_OK;
    }
    /* power per sample: instantaneous watts, else the 1 s average, else the
     * derivative of the energy counter */
    size_t n = run->power_n;
    const jl_series *pw = run->watts.v ? &run->watts : (run->watts_avg.v ? &run->watts_avg : NULL);
    size_t max_pts = r->opt.max_plot_points;
    size_t nb = n < max_pts ? n : max_pts;
    double t0 = n ? run->power_time[0] : 0, t1 = n ? run->power_time[n - 1] : 0;
    jl_strbuf dat, csv, gp;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&csv);
    jl_strbuf_init(&gp);
    jl_strbuf_printf(&dat, "# %s: power over time, downsampled to at most %zu points (bucket means)\n"
                           "# time_s power_w power_avg_w running\n",
                     s->run ? s->run : "?", max_pts);
    jl_strbuf_puts(&csv, "time_s,power_w,power_avg_w,running\n");
    size_t ei = 0, k = 0;
    double peak = 0, occ_max = 0;
    for (size_t b = 0; b < nb; b++) {
        /* samples [lo, hi) of bucket b */
        size_t lo = n * b / nb, hi = n * (b + 1) / nb;
        double st = 0, sp = 0, sa = 0;
        size_t cp = 0, ca = 0;
        for (k = lo; k < hi; k++) {
            st += run->power_time[k];
            double p = NAN;
            if (pw)
                p = row_sum(pw, k);
            else if (run->energy_j.v && k > 0) {
                double dt = run->power_time[k] - run->power_time[k - 1];
                p = dt > 0 ? (row_sum(&run->energy_j, k) - row_sum(&run->energy_j, k - 1)) / dt : NAN;
            }
            if (isfinite(p)) {
                sp += p;
                cp++;
            }
            if (run->watts_avg.v && pw != &run->watts_avg) {
                double a = row_sum(&run->watts_avg, k);
                if (isfinite(a)) {
                    sa += a;
                    ca++;
                }
            }
        }
        if (hi == lo)
            continue;
        double t = st / (double)(hi - lo);
        double p = cp ? sp / (double)cp : NAN, a = ca ? sa / (double)ca : NAN;
        if (isfinite(p) && p > peak)
            peak = p;
        /* (occ_max below) */
        /* occupancy at t */
        double occ = NAN;
        if (run->engine_n && run->running) {
            while (ei + 1 < run->engine_n && run->engine_time[ei + 1] <= t)
                ei++;
            occ = run->engine_time[ei] <= t ? run->running[ei] : 0;
        } else if (run->batch_n && run->batch_size) {
            occ = 0;
            for (size_t q = 0; q < run->batch_n; q++)
                if (run->batch_start[q] <= t && t < run->batch_end[q])
                    occ += run->batch_size[q];
        }
        if (isfinite(occ) && occ > occ_max)
            occ_max = occ;
        jl_strbuf_printf(&dat, "%.6f", t);
        rp_dat_num(&dat, p);
        rp_dat_num(&dat, a);
        rp_dat_num(&dat, occ);
        jl_strbuf_puts(&dat, "\n");
        jl_strbuf_printf(&csv, "%.9g,", t);
        if (isfinite(p))
            jl_strbuf_printf(&csv, "%.9g", p);
        jl_strbuf_puts(&csv, ",");
        if (isfinite(a))
            jl_strbuf_printf(&csv, "%.9g", a);
        jl_strbuf_puts(&csv, ",");
        if (isfinite(occ))
            jl_strbuf_printf(&csv, "%.9g", occ);
        jl_strbuf_puts(&csv, "\n");
        f->n_points++;
    }
    int have_occ = (run->engine_n && run->running) || (run->batch_n && run->batch_size);
    int have_avg = run->watts_avg.v && pw != &run->watts_avg;
    jl_run_free(run);

    double ws = s->fig[JL_FIG_STEADY_START_S], we = s->fig[JL_FIG_STEADY_END_S];
    double tdp = rp_tdp_w(r, s) * (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
    rp_gp_header(&gp, f->id, f->title, "Power of all GPUs over the run, steady-state window shaded, batch occupancy on the right axis.", 1);
    jl_strbuf_puts(&gp, "set xlabel \"time in the run (s)\"\n"
                        "set ylabel \"GPU power, all GPUs (W)\"\n"
                        "set ytics nomirror\n"
                        "set yrange [0:*]\n");
    if (have_occ) {
        jl_strbuf_printf(&gp, "set y2label \"%s\"\nset y2tics\nset y2range [0:%g]\n",
                         diffusion ? "images in the running batch" : "batch occupancy (running requests)",
                         occ_max > 0 ? occ_max * 1.18 : 1.0);
    }
    jl_strbuf_printf(&gp, "set xrange [%.6f:%.6f]\n", t0, t1 > t0 ? t1 : t0 + 1);
    if (isfinite(ws) && isfinite(we)) {
        jl_strbuf_printf(&gp,
                         "ws = %.6f; we = %.6f\n"
                         "set object 1 rectangle from ws, graph 0 to we, graph 1 behind "
                         "fillcolor rgb \"#0072B2\" fillstyle transparent solid 0.12 noborder\n"
                         "set label 1 \"steady state\" at (ws+we)/2, graph 0.97 center "
                         "textcolor rgb \"#0072B2\"\n",
                         ws, we);
    }
    if (isfinite(tdp)) {
        jl_strbuf_printf(&gp,
                         "tdp = %.3f\n"
                         "set arrow 1 from graph 0, first tdp to graph 1, first tdp nohead dt 2 lc rgb \"#666666\" lw 1\n"
                         "set label 2 sprintf(\"power limit %%.0f W\", tdp) at graph 0.01, first tdp offset 0,0.7 textcolor rgb \"#666666\" font \",11\"\n"
                         "set yrange [0:%.1f]\n",
                         tdp, fmax(tdp, peak) * 1.15);
    }
    jl_strbuf_puts(&gp, "set key outside bottom center horizontal samplen 2.5 height 0.5\n");
    jl_strbuf_printf(&gp, "plot \"%s.dat\" using 1:2 with lines lw 0.8 lc rgb \"#E69F00\" title \"power (instantaneous)\"",
                     f->id);
    if (have_avg)
        jl_strbuf_puts(&gp, ", \\\n     \"\" using 1:3 with lines lw 1.8 lc rgb \"#D55E00\" title \"power (1 s average)\"");
    if (have_occ)
        jl_strbuf_puts(&gp, ", \\\n     \"\" using 1:4 axes x1y2 with steps lw 1.8 lc rgb \"#009E73\" title \"batch occupancy (right axis)\"");
    jl_strbuf_puts(&gp, "\nunset output\n");

    char *csvrel = jl_asprintf("data/timeseries/%s.csv", g->slug);
    jl_status st = csvrel ? write_rel(r, csvrel, &csv, err)
                          : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (!st) {
        char *what = jl_asprintf("power and occupancy over time of %s run %s (downsampled; "
                                 "figure %s)", base_name(s->file), s->run ? s->run : "?", f->id);
        rp_add_data(r, csvrel, what ? what : "time series", NULL);
        free(what);
        st = rp_write_fig_files(r, f, &dat, &gp, err);
    }
    f->meta = json_pack("{s:o,s:s,s:o,s:o,s:o,s:b}", "run", jl_run_key_to_json(s), "timeseries",
                        csvrel ? csvrel : "", "steady_start_s", jl_json_number(ws),
                        "steady_end_s", jl_json_number(we), "power_limit_w", jl_json_number(tdp),
                        "diffusion", diffusion);
    free(csvrel);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&csv);
    jl_strbuf_free(&gp);
    return st;
}

/* ---- curves split by the work done ------------------------------------------------- */

/* Runs of one curve can differ in the work itself (a diffusion run at 50
 * denoising steps among 28-step runs, another resolution): those are
 * different curves for a plot. A series is one curve restricted to one such
 * variant; `variant` is NULL when the curve has only one. */
typedef struct rp_series {
    jl_curve cv;      /* points owned, names borrowed */
    char *variant;
} rp_series;

static void variant_key(const jl_summary *s, char *buf, size_t cap)
{
    const jl_attrs *a = &s->attrs;
    buf[0] = 0;
    if (!jl_attrs_is_diffusion(a))
        return;
    size_t o = 0;
    if (a->denoising_steps > 0)
        o += (size_t)snprintf(buf + o, cap - o, "%ld steps", a->denoising_steps);
    if (a->height > 0 && a->width > 0 && o < cap)
        o += (size_t)snprintf(buf + o, cap - o, "%s%ldx%ld", o ? ", " : "", a->width, a->height);
    if (a->num_frames > 1 && o < cap)
        snprintf(buf + o, cap - o, "%s%ld frames", o ? ", " : "", a->num_frames);
}

static void series_free(rp_series *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].cv.points);
        free(s[i].variant);
    }
    free(s);
}

static size_t split_curves(const jl_summary_list *l, const jl_frontier *fr, rp_series **out)
{
    rp_series *res = NULL;
    size_t n = 0;
    char k1[128], k2[128];
    for (size_t c = 0; c < fr->n_curves; c++) {
        const jl_curve *cv = &fr->curves[c];
        /* distinct variants in order of first appearance */
        unsigned char *done = jl_calloc_array(cv->n_points ? cv->n_points : 1, 1);
        if (!done)
            break;
        size_t nvar = 0;
        for (size_t i = 0; i < cv->n_points; i++) {
            if (done[i])
                continue;
            nvar++;
            variant_key(l->items[cv->points[i].run], k1, sizeof k1);
            for (size_t j = i; j < cv->n_points; j++) {
                variant_key(l->items[cv->points[j].run], k2, sizeof k2);
                if (!strcmp(k1, k2))
                    done[j] = 1;
            }
        }
        memset(done, 0, cv->n_points);
        for (size_t i = 0; i < cv->n_points; i++) {
            if (done[i])
                continue;
            rp_series *p = realloc(res, (n + 1) * sizeof *p);
            if (!p)
                break;
            res = p;
            rp_series *sr = &res[n++];
            memset(sr, 0, sizeof *sr);
            sr->cv = *cv;
            sr->cv.points = jl_calloc_array(cv->n_points, sizeof *sr->cv.points);
            sr->cv.n_points = 0;
            variant_key(l->items[cv->points[i].run], k1, sizeof k1);
            sr->variant = nvar > 1 && k1[0] ? jl_strdup(k1) : NULL;
            for (size_t j = i; j < cv->n_points && sr->cv.points; j++) {
                variant_key(l->items[cv->points[j].run], k2, sizeof k2);
                if (!strcmp(k1, k2)) {
                    done[j] = 1;
                    sr->cv.points[sr->cv.n_points++] = cv->points[j];
                }
            }
        }
        free(done);
    }
    *out = res;
    return n;
}

/* ---- 2. trends against batch size (paper Fig. 4) ------------------------------------ */

static double curve_max(const jl_summary_list *l, const jl_curve *cv, int fig)
{
    double m = NAN;
    for (size_t i = 0; i < cv->n_points; i++) {
        double v = l->items[cv->points[i].run]->fig[fig];
        if (isfinite(v) && (!isfinite(m) || v > m))
            m = v;
    }
    return m;
}

static void batch_xtics(jl_strbuf *gp, const long *b, size_t n)
{
    jl_strbuf_puts(gp, "set xtics (");
    long last = -1;
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == last || b[i] <= 0)
            continue;
        jl_strbuf_printf(gp, "%s\"%ld\" %ld", first ? "" : ", ", b[i], b[i]);
        first = 0;
        last = b[i];
    }
    jl_strbuf_puts(gp, ")\n");
}

static jl_status fig_trends(rp_report *r, long gi, const jl_curve *cv, const char *variant,
                            jl_error **err)
{
    rp_group *g = &r->groups[gi];
    const jl_summary_list *l = r->l;
    if (cv->n_points < 2 || cv->points[0].batch == cv->points[cv->n_points - 1].batch)
        return JL_OK;
    const jl_summary *s0 = l->items[cv->points[0].run];
    int diffusion = jl_attrs_is_diffusion(&s0->attrs);
    int fe = rp_energy_fig(s0), ft = rp_throughput_fig(s0), fl = rp_latency_fig(s0);
    char *id = jl_asprintf("trends-%s-%s-x%ld-%s%s%s", g->slug, gpu_label(cv->gpu_model),
                           cv->num_gpus, cv->precision ? cv->precision : "na", variant ? "-" : "",
                           variant ? variant : "");
    if (id) {
        /* file-name safe, no runs of dashes */
        size_t o = 0;
        for (size_t i = 0; id[i]; i++) {
            char ch = id[i];
            int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.';
            if (!ok && o && id[o - 1] == '-')
                continue;
            id[o++] = ok ? ch : '-';
        }
        id[o] = 0;
    }
    rp_figure *f = id ? rp_add_figure(r, RP_FIG_TRENDS, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    f->title = jl_asprintf("Batch size trends: %s, %s on %s x%ld (%s%s%s)", g->model ? g->model : "?",
                           g->task ? g->task : "?", gpu_label(cv->gpu_model), cv->num_gpus,
                           cv->precision ? cv->precision : "?", variant ? ", " : "",
                           variant ? variant : "");
    double me = curve_max(l, cv, fe), mt = curve_max(l, cv, ft), ml = curve_max(l, cv, fl);
    double tdp = rp_tdp_w(r, s0);
    double mp = NAN;
    for (size_t i = 0; i < cv->n_points; i++) {
        const jl_summary *s = l->items[cv->points[i].run];
        double p = s->fig[JL_FIG_AVG_POWER_W] / (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
        if (isfinite(p) && (!isfinite(mp) || p > mp))
            mp = p;
    }
    int power_of_tdp = isfinite(tdp) && tdp > 0;
    f->caption = jl_asprintf(
        "Energy per %s, throughput, %s and power against the batch-size cap, each as %% of its "
        "largest value on this configuration; power as %% of the GPU's power limit%s (the "
        "paper's Fig. 4). Maxima: %s.",
        diffusion ? "image" : "token", diffusion ? "batch latency" : "median ITL",
        power_of_tdp ? "" : " (unknown here: % of its maximum instead)", "see the .dat header");
    jl_strbuf dat, gp;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&gp);
    jl_strbuf_printf(&dat,
                     "# %s\n# maxima: %s %.10g %s, %s %.10g %s, %s %.10g %s; power limit %.10g W per GPU\n"
                     "# batch energy energy_pct throughput throughput_pct latency latency_pct power_per_gpu_w power_pct\n",
                     f->title, jl_figure_name((jl_figure)fe), me, jl_figure_unit((jl_figure)fe),
                     jl_figure_name((jl_figure)ft), mt, jl_figure_unit((jl_figure)ft),
                     jl_figure_name((jl_figure)fl), ml, jl_figure_unit((jl_figure)fl), tdp);
    long *batches = jl_calloc_array(cv->n_points, sizeof *batches);
    json_t *runs = json_array();
    for (size_t i = 0; i < cv->n_points; i++) {
        const jl_summary *s = l->items[cv->points[i].run];
        double e = s->fig[fe], t = s->fig[ft], la = s->fig[fl];
        double p = s->fig[JL_FIG_AVG_POWER_W] / (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
        if (batches)
            batches[i] = cv->points[i].batch;
        jl_strbuf_printf(&dat, "%ld", cv->points[i].batch);
        rp_dat_num(&dat, e);
        rp_dat_num(&dat, e / me * 100);
        rp_dat_num(&dat, t);
        rp_dat_num(&dat, t / mt * 100);
        rp_dat_num(&dat, la);
        rp_dat_num(&dat, la / ml * 100);
        rp_dat_num(&dat, p);
        rp_dat_num(&dat, power_of_tdp ? p / tdp * 100 : p / mp * 100);
        jl_strbuf_puts(&dat, "\n");
        json_array_append_new(runs, jl_run_key_to_json(s));
        f->n_points++;
    }
    rp_gp_header(&gp, f->id, f->title,
              "Energy, throughput, latency as % of their maximum and power as % of the power limit, against batch size.", 0);
    jl_strbuf_puts(&gp, "set logscale x 2\n");
    if (batches)
        batch_xtics(&gp, batches, cv->n_points);
    free(batches);
    jl_strbuf_printf(&gp,
                     "set xlabel \"batch size (max_batch_size)\"\n"
                     "set ylabel \"%% of maximum (power: %% of %s)\"\n"
                     "set yrange [0:110]\n"
                     "set ytics 0,20,100\n"
                     "set key outside right center vertical\n"
                     "set offsets graph 0.03, graph 0.03, 0, 0\n",
                     power_of_tdp ? "power limit" : "maximum");
    jl_strbuf_printf(&gp,
                     "plot \"%s.dat\" using 1:3 with linespoints pt 7 ps 1.1 lw 2 lc rgb \"%s\" title \"energy per %s\", \\\n"
                     "     \"\" using 1:5 with linespoints pt 5 ps 1.0 lw 2 lc rgb \"%s\" title \"%s\", \\\n"
                     "     \"\" using 1:7 with linespoints pt 9 ps 1.2 lw 2 lc rgb \"%s\" title \"%s\", \\\n"
                     "     \"\" using 1:9 with linespoints pt 13 ps 1.2 lw 2 lc rgb \"%s\" title \"%s\"\n"
                     "unset output\n",
                     f->id, rp_palette[0], diffusion ? "image" : "token", rp_palette[2],
                     diffusion ? "throughput (images/s)" : "throughput (tokens/s)", rp_palette[1],
                     diffusion ? "batch latency" : "median ITL", rp_palette[3],
                     power_of_tdp ? "power (% of limit)" : "power (% of max)");
    f->meta = json_pack("{s:s?,s:I,s:s?,s:s,s:s,s:s,s:o,s:b,s:o}", "gpu_model", cv->gpu_model,
                        "num_gpus", (json_int_t)cv->num_gpus, "precision", cv->precision,
                        "energy_figure", jl_figure_name((jl_figure)fe), "throughput_figure",
                        jl_figure_name((jl_figure)ft), "latency_figure", jl_figure_name((jl_figure)fl),
                        "power_limit_w", jl_json_number(tdp), "power_of_limit", power_of_tdp,
                        "runs", runs);
    jl_status st = rp_write_fig_files(r, f, &dat, &gp, err);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&gp);
    return st;
}

/* ---- 3. time-energy frontier (paper Fig. 8-9) ---------------------------------------- */

static int wide_range(const double *v, size_t n, double ratio)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > 0) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    return isfinite(lo) && hi / lo > ratio;
}

static jl_status fig_frontier(rp_report *r, long gi, jl_error **err)
{
    rp_group *g = &r->groups[gi];
    const jl_frontier *fr = g->frontier;
    const jl_summary_list *l = r->l;
    if (!fr || !fr->n_points)
        return JL_OK;
    const jl_summary *s0 = l->items[fr->points[0].run];
    int diffusion = jl_attrs_is_diffusion(&s0->attrs);
    double lscale = diffusion ? 1 : 1000; /* ITL in ms */
    char *id = jl_asprintf("frontier-%s", g->slug);
    rp_figure *f = id ? rp_add_figure(r, RP_FIG_FRONTIER, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    f->title = jl_asprintf("Time-energy tradeoff: %s, %s", g->model ? g->model : "?",
                           g->task ? g->task : "?");
    f->caption = jl_asprintf(
        "Each line is one (GPU model, GPU count, precision); each point a run, labelled with its "
        "batch size. Black rings and the dashed line: the frontier of the group (no run is both "
        "faster and cheaper). The right end of each curve is that configuration's minimum "
        "energy; a vertical line at a latency target finds the cheapest run meeting it (the "
        "paper's Fig. 8-9).");
    jl_strbuf dat, gp;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&gp);
    jl_strbuf_printf(&dat, "# %s\n# blocks (gnuplot index): one per curve, then the frontier\n"
                           "# latency_%s energy_%s batch on_frontier\n",
                     f->title, diffusion ? "s" : "ms", diffusion ? "j_per_image" : "j_per_token");
    size_t nv = 0;
    double *lat = NULL, *en = NULL;
    size_t total = 0;
    rp_series *ser = NULL;
    size_t nser = split_curves(l, fr, &ser);
    for (size_t c = 0; c < nser; c++)
        total += ser[c].cv.n_points;
    lat = jl_calloc_array(total + fr->n_points + 1, sizeof *lat);
    en = jl_calloc_array(total + fr->n_points + 1, sizeof *en);
    json_t *curves = json_array();
    for (size_t c = 0; c < nser; c++) {
        const jl_curve *cv = &ser[c].cv;
        jl_strbuf_printf(&dat, "# curve %zu: %s x%ld %s%s%s\n", c, gpu_label(cv->gpu_model), cv->num_gpus,
                         cv->precision ? cv->precision : "?", ser[c].variant ? ", " : "",
                         ser[c].variant ? ser[c].variant : "");
        for (size_t i = 0; i < cv->n_points; i++) {
            const jl_curve_point *p = &cv->points[i];
            jl_strbuf_printf(&dat, "%.10g %.10g %ld %d\n", p->latency * lscale, p->energy, p->batch,
                             p->on_frontier);
            if (lat && en && isfinite(p->latency) && isfinite(p->energy)) {
                lat[nv] = p->latency * lscale;
                en[nv++] = p->energy;
            }
            f->n_points++;
        }
        jl_strbuf_puts(&dat, "\n\n");
        json_t *cj = json_pack("{s:s?,s:I,s:s?,s:I}", "gpu_model", cv->gpu_model,
                               "num_gpus", (json_int_t)cv->num_gpus, "precision",
                               cv->precision, "n_points", (json_int_t)cv->n_points);
        json_object_set_new(cj, "variant", ser[c].variant ? json_string(ser[c].variant) : json_null());
        json_t *rk = json_array();
        for (size_t i = 0; i < cv->n_points; i++)
            json_array_append_new(rk, jl_run_key_to_json(l->items[cv->points[i].run]));
        json_object_set_new(cj, "runs", rk);
        json_array_append_new(curves, cj);
    }
    jl_strbuf_puts(&dat, "# frontier\n");
    for (size_t i = 0; i < fr->n_points; i++)
        jl_strbuf_printf(&dat, "%.10g %.10g %ld 1\n", fr->points[i].latency * lscale, fr->points[i].energy,
                         l->items[fr->points[i].run]->attrs.max_batch_size);
    int logy = lat && en ? wide_range(en, nv, 8) : 0, logx = lat && en ? wide_range(lat, nv, 8) : 0;
    free(lat);
    free(en);
    rp_gp_header(&gp, f->id, f->title,
              "Time-energy curves per (GPU model, count, precision), batch sizes annotated, frontier in black.", 0);
    jl_strbuf_printf(&gp, "set xlabel \"%s\"\nset ylabel \"%s\"\n",
                     diffusion ? "batch latency (s)" : "median inter-token latency (ms)",
                     diffusion ? "energy per image (J)" : "energy per token (J)");
    /* log axes get 1-2-5 ticks (decades alone leave too few labels) */
    static const char *ticks125 =
        "(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, "
        "500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)";
    if (logx)
        jl_strbuf_printf(&gp, "set logscale x\nset xtics %s\nset format x \"%%g\"\n", ticks125);
    if (logy)
        jl_strbuf_printf(&gp, "set logscale y\nset ytics %s\nset format y \"%%g\"\n", ticks125);
    jl_strbuf_puts(&gp, "set autoscale fix\n"
                        "set offsets graph 0.06, graph 0.10, graph 0.12, graph 0.08\n"
                        "set key outside bottom center horizontal samplen 2.5 height 0.5\n");
    /* the SLO bound as a vertical line, when it is a latency bound */
    if (g->slo) {
        for (size_t k = 0; k < g->slo->n; k++) {
            const jl_slo_cond *c = &g->slo->conds[k];
            int fig = diffusion ? c->figure_diffusion : c->figure_llm;
            if (fig == rp_latency_fig(s0) && (c->op == JL_SLO_LE || c->op == JL_SLO_LT)) {
                double x = c->bound * lscale;
                /* only when it falls near the data: otherwise it squeezes the plot */
                double maxlat = 0;
                for (size_t i = 0; i < fr->n_points; i++)
                    maxlat = fmax(maxlat, fr->points[i].latency * lscale);
                for (size_t cc = 0; cc < fr->n_curves; cc++)
                    for (size_t i = 0; i < fr->curves[cc].n_points; i++)
                        maxlat = fmax(maxlat, fr->curves[cc].points[i].latency * lscale);
                if (x <= maxlat * 1.5) {
                    jl_strbuf_printf(&gp,
                                     "set arrow 1 from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb \"#888888\"\n"
                                     "set label 1 ",
                                     x, x);
                    rp_gp_str(&gp, g->slo_text);
                    jl_strbuf_printf(&gp, " at %.10g, graph 0.03 right offset -0.5,0 textcolor rgb \"#888888\" font \",10\"\n", x);
                } else {
                    jl_strbuf_puts(&gp, "# the SLO's latency bound lies far right of every run (all meet it): not drawn\n");
                }
            }
        }
    }
    jl_strbuf_puts(&gp, "plot ");
    for (size_t c = 0; c < nser; c++) {
        const jl_curve *cv = &ser[c].cv;
        const char *col = rp_palette[c % N_PALETTE];
        char *t = jl_asprintf("%s x%ld, %s%s%s", gpu_label(cv->gpu_model), cv->num_gpus,
                              cv->precision ? cv->precision : "?", ser[c].variant ? ", " : "",
                              ser[c].variant ? ser[c].variant : "");
        jl_strbuf_printf(&gp, "%s\"%s.dat\" index %zu using 1:2 with linespoints pt 7 ps 1.0 lw 2 lc rgb \"%s\" title ",
                         c ? ", \\\n     " : "", f->id, c, col);
        rp_gp_str(&gp, t ? t : "?");
        free(t);
        jl_strbuf_printf(&gp, ", \\\n     \"\" index %zu using 1:2:(sprintf(\"%%d\", $3)) with labels offset char 1.1,0.75 font \",10\" textcolor rgb \"%s\" notitle",
                         c, col);
    }
    jl_strbuf_printf(&gp, ", \\\n     \"%s.dat\" index %zu using 1:2 with lines dt 2 lw 1.4 lc rgb \"#000000\" title \"frontier\", \\\n"
                          "     \"\" index %zu using 1:2 with points pt 6 ps 2.0 lw 1.4 lc rgb \"#000000\" notitle\n"
                          "unset output\n",
                     f->id, nser, nser);
    series_free(ser, nser);
    f->meta = json_pack("{s:s,s:s,s:b,s:b,s:o}", "latency_unit", diffusion ? "s" : "ms", "energy_unit",
                        diffusion ? "J/image" : "J/token", "log_x", logx, "log_y", logy, "curves", curves);
    jl_status st = rp_write_fig_files(r, f, &dat, &gp, err);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&gp);
    return st;
}

/* ---- 4. GPU models at matched SLOs (paper Fig. 6) ---------------------------------- */

/* One figure per kind of work (tokens or images): each (model, task) with at
 * least two GPU models meeting its SLO, the minimum-energy configuration of
 * each GPU model as a bar, annotated with its configuration and its energy
 * change against the GPU model using the most energy (negative = less
 * energy, the sign `joules compare` uses). */
static jl_status fig_gpu_compare(rp_report *r, int diffusion, jl_error **err)
{
    const jl_summary_list *l = r->l;
    /* the union of GPU models over the qualifying groups, sorted */
    char **gpus = NULL;
    size_t ng = 0, nq = 0;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        rp_group *g = &r->groups[gi];
        if (!g->workload || (!strcmp(g->workload, "diffusion")) != diffusion)
            continue;
        size_t meeting = 0;
        for (size_t k = 0; k < g->n_gpu_models; k++)
            meeting += g->gpu_picks[k].run >= 0;
        if (meeting < 2)
            continue;
        nq++;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            if (g->gpu_picks[k].run < 0)
                continue;
            size_t j = 0;
            while (j < ng && strcmp(gpus[j], g->gpu_models[k]) < 0)
                j++;
            if (j < ng && !strcmp(gpus[j], g->gpu_models[k]))
                continue;
            char **p = realloc(gpus, (ng + 1) * sizeof *p);
            if (!p) {
                free(gpus);
                return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            }
            gpus = p;
            memmove(gpus + j + 1, gpus + j, (ng - j) * sizeof *gpus);
            gpus[j] = g->gpu_models[k];
            ng++;
        }
    }
    rp_figure *f = rp_add_figure(r, RP_FIG_GPU_COMPARE, -1, diffusion ? "gpu-comparison-diffusion" : "gpu-comparison-llm");
    if (!f) {
        free(gpus);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    f->title = jl_asprintf("GPU models at matched SLOs (%s)", diffusion ? "diffusion" : "LLM / MLLM");
    f->caption = jl_asprintf(
        "For each (model, task) measured on more than one GPU model: the minimum-energy "
        "configuration of each GPU model among runs meeting the group's SLO (given under the "
        "bars). Labels: GPU count and batch size, and the energy change against the GPU "
        "model that needs the most energy (negative = less energy; the paper's Fig. 6).");
    if (nq == 0) {
        f->note = jl_asprintf("no (model, task) with %s runs on two or more GPU models meeting "
                              "its SLO: nothing to compare",
                              diffusion ? "diffusion" : "LLM");
        free(gpus);
        return JL_OK;
    }
    jl_strbuf dat, gp, tics;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&gp);
    jl_strbuf_init(&tics);
    double bw = 0.8 / (double)ng;
    jl_strbuf_printf(&dat, "# %s\n# blocks (gnuplot index): one per GPU model\n"
                           "# x energy label reduction_pct model task slo\n",
                     f->title);
    json_t *bars = json_array();
    for (size_t j = 0; j < ng; j++) {
        jl_strbuf_printf(&dat, "# GPU model %s\n", gpus[j]);
        size_t xi = 0;
        for (size_t gi = 0; gi < r->n_groups; gi++) {
            rp_group *g = &r->groups[gi];
            if (!g->workload || (!strcmp(g->workload, "diffusion")) != diffusion)
                continue;
            size_t meeting = 0;
            double worst = -INFINITY;
            for (size_t k = 0; k < g->n_gpu_models; k++)
                if (g->gpu_picks[k].run >= 0) {
                    meeting++;
                    const jl_summary *s = l->items[g->gpu_picks[k].run];
                    worst = fmax(worst, s->fig[rp_energy_fig(s)]);
                }
            if (meeting < 2)
                continue;
            if (j == 0) {
                const char *m = g->model ? strrchr(g->model, '/') : NULL;
                m = m ? m + 1 : (g->model ? g->model : "?");
                char *t = jl_asprintf("%s\\n%s\\n%s", m, g->task ? g->task : "?", g->slo_text);
                jl_strbuf_printf(&tics, "%s", xi ? ", " : "");
                /* escape only the quotes: \n must stay a gnuplot newline */
                jl_strbuf_puts(&tics, "\"");
                for (const char *c = t; c && *c; c++)
                    jl_strbuf_append(&tics, *c == '"' ? "'" : c, 1);
                jl_strbuf_printf(&tics, "\" %zu", xi);
                free(t);
            }
            double x = (double)xi + ((double)j - (double)(ng - 1) / 2) * bw;
            xi++;
            long run = -1;
            for (size_t k = 0; k < g->n_gpu_models; k++)
                if (!strcmp(g->gpu_models[k], gpus[j]))
                    run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            const jl_summary *s = l->items[run];
            double e = s->fig[rp_energy_fig(s)];
            double red = (1 - e / worst) * 100;
            char lab[96];
            if (red > 0.05)
                snprintf(lab, sizeof lab, "x%ld b%ld: -%.0f%%", s->attrs.num_gpus, s->attrs.max_batch_size, red);
            else
                snprintf(lab, sizeof lab, "x%ld b%ld", s->attrs.num_gpus, s->attrs.max_batch_size);
            jl_strbuf_printf(&dat, "%.6f %.10g ", x, e);
            dat_str(&dat, lab);
            jl_strbuf_printf(&dat, " %.4f ", red);
            dat_str(&dat, g->model);
            jl_strbuf_puts(&dat, " ");
            dat_str(&dat, g->task);
            jl_strbuf_puts(&dat, " ");
            dat_str(&dat, g->slo_text);
            jl_strbuf_puts(&dat, "\n");
            json_t *run_key = jl_run_key_to_json(s);
            json_object_set_new(run_key, "energy", jl_json_number(e));
            json_object_set_new(run_key, "reduction_pct", jl_json_number(red));
            json_object_set_new(run_key, "energy_change_pct", jl_json_number(red != 0 ? -red : 0));
            json_object_set_new(run_key, "slo", json_string(g->slo_text));
            json_array_append_new(bars, run_key);
            f->n_points++;
        }
        jl_strbuf_puts(&dat, "\n\n");
    }
    char *t = jl_strbuf_take(&tics);
    char xr[64];
    /* one or two groups: keep the bars from filling the whole width */
    double pad = nq <= 2 ? 1.0 : 0.6;
    snprintf(xr, sizeof xr, "%.2f:%.2f", -pad, (double)(nq - 1) + pad);
    rp_gp_header(&gp, f->id, f->title, "Minimum energy per GPU model at each group's SLO; energy change vs the most energy-hungry GPU model (negative = less).", 0);
    jl_strbuf_printf(&gp,
                     "set ylabel \"%s at the SLO (J)\"\n"
                     "set xtics (%s) scale 0\n"
                     "set xrange [%s]\n"
                     "set yrange [0:*]\n"
                     "set offsets 0, 0, graph 0.12, 0\n"
                     "set grid noxtics\n"
                     "set style fill solid 0.85 border lc rgb \"#333333\"\n"
                     "set boxwidth %.4f absolute\n"
                     "set key top right\n"
                     "set bmargin 6\n",
                     diffusion ? "energy per image" : "energy per token", t ? t : "", xr, bw * 0.92);
    free(t);
    jl_strbuf_puts(&gp, "plot ");
    for (size_t j = 0; j < ng; j++) {
        jl_strbuf_printf(&gp, "%s\"%s.dat\" index %zu using 1:2 with boxes lc rgb \"%s\" title ",
                         j ? ", \\\n     " : "", f->id, j, rp_palette[j % N_PALETTE]);
        rp_gp_str(&gp, gpus[j]);
        jl_strbuf_printf(&gp, ", \\\n     \"\" index %zu using 1:2:3 with labels offset 0,0.8 font \",11\" notitle", j);
    }
    jl_strbuf_puts(&gp, "\nunset output\n");
    json_t *gl = json_array();
    for (size_t j = 0; j < ng; j++)
        json_array_append_new(gl, json_string(gpus[j]));
    f->meta = json_pack("{s:s,s:o,s:o}", "energy_unit", diffusion ? "J/image" : "J/token",
                        "gpu_models", gl, "bars", bars);
    free(gpus);
    jl_status st = rp_write_fig_files(r, f, &dat, &gp, err);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&gp);
    return st;
}

/* ---- 5. precisions against batch size (paper Fig. 7) --------------------------------- */

static int is_reference_precision(const char *p)
{
    return p && (!strcasecmp(p, "bf16") || !strcasecmp(p, "bfloat16") || !strcasecmp(p, "fp16") ||
                 !strcasecmp(p, "float16") || !strcasecmp(p, "half"));
}

typedef struct prec_run {
    char *base;
    size_t run;
} prec_run;

static int cmp_prec_run(const void *pa, const void *pb, void *ctx);

static const jl_summary_list *sort_list;
static int cmp_prec_run_q(const void *pa, const void *pb)
{
    return cmp_prec_run(pa, pb, NULL);
}

static int strcmp0(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_prec_run(const void *pa, const void *pb, void *ctx)
{
    (void)ctx;
    const prec_run *a = pa, *b = pb;
    const jl_attrs *x = &sort_list->items[a->run]->attrs, *y = &sort_list->items[b->run]->attrs;
    int c;
    if ((c = strcmp0(a->base, b->base)) || (c = strcmp0(x->task, y->task)) ||
        (c = strcmp0(x->gpu_model, y->gpu_model)))
        return c;
    if (x->num_gpus != y->num_gpus)
        return x->num_gpus < y->num_gpus ? -1 : 1;
    if ((c = strcmp0(x->precision, y->precision)))
        return c;
    if (x->max_batch_size != y->max_batch_size)
        return x->max_batch_size < y->max_batch_size ? -1 : 1;
    return (a->run > b->run) - (a->run < b->run);
}

static int same_set(const jl_summary_list *l, const prec_run *a, const prec_run *b)
{
    const jl_attrs *x = &l->items[a->run]->attrs, *y = &l->items[b->run]->attrs;
    return !strcmp0(a->base, b->base) && !strcmp0(x->task, y->task) &&
           !strcmp0(x->gpu_model, y->gpu_model) && x->num_gpus == y->num_gpus;
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

static jl_status fig_precision(rp_report *r, jl_error **err)
{
    const jl_summary_list *l = r->l;
    prec_run *pr = jl_calloc_array(l->count ? l->count : 1, sizeof *pr);
    if (!pr)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (!s->attrs.precision || s->attrs.max_batch_size <= 0)
            continue;
        pr[n].run = i;
        pr[n].base = jl_model_base_id(s->attrs.model ? s->attrs.model : "");
        n++;
    }
    sort_list = l;
    qsort(pr, n, sizeof *pr, cmp_prec_run_q);
    size_t drawn = 0;
    jl_status st = JL_OK;
    for (size_t i = 0; i < n && !st;) {
        size_t j = i + 1;
        while (j < n && same_set(l, &pr[i], &pr[j]))
            j++;
        /* precisions in [i, j): runs sorted by precision then batch */
        size_t np = 0, starts[16], counts[16];
        for (size_t k = i; k < j; k++) {
            if (k == i || strcmp0(l->items[pr[k].run]->attrs.precision, l->items[pr[k - 1].run]->attrs.precision)) {
                if (np == 16)
                    break;
                starts[np] = k;
                counts[np] = 0;
                np++;
            }
            counts[np - 1]++;
        }
        if (np < 2) {
            i = j;
            continue;
        }
        /* the reference precision: a 16-bit one, else the first */
        size_t ref = 0;
        for (size_t p = 0; p < np; p++)
            if (is_reference_precision(l->items[pr[starts[p]].run]->attrs.precision)) {
                ref = p;
                break;
            }
        const jl_summary *s0 = l->items[pr[i].run];
        int diffusion = jl_attrs_is_diffusion(&s0->attrs);
        int fe = rp_energy_fig(s0), fl = rp_latency_fig(s0);
        double lscale = diffusion ? 1 : 1000;
        const char *bm = strrchr(pr[i].base, '/');
        bm = bm ? bm + 1 : pr[i].base;
        char *id = jl_asprintf("precision-%s-%s-%s-x%ld", bm, s0->attrs.task ? s0->attrs.task : "task",
                               gpu_label(s0->attrs.gpu_model), s0->attrs.num_gpus);
        for (char *c = id; c && *c; c++)
            if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
                *c = '-';
        /* the group of the reference run, for the page */
        long gidx = -1;
        for (size_t gi = 0; gi < r->n_groups; gi++)
            for (size_t k = 0; k < r->groups[gi].n_runs; k++)
                if (r->groups[gi].runs[k] == pr[starts[ref]].run)
                    gidx = (long)gi;
        rp_figure *f = id ? rp_add_figure(r, RP_FIG_PRECISION, gidx, id) : NULL;
        free(id);
        if (!f) {
            st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            break;
        }
        f->title = jl_asprintf("Precision against batch size: %s, %s on %s x%ld", pr[i].base,
                               s0->attrs.task ? s0->attrs.task : "?", gpu_label(s0->attrs.gpu_model),
                               s0->attrs.num_gpus);
        jl_strbuf dat, gp;
        jl_strbuf_init(&dat);
        jl_strbuf_init(&gp);
        jl_strbuf_printf(&dat, "# %s\n# blocks (gnuplot index): one per precision\n# batch energy latency_%s\n",
                         f->title, diffusion ? "s" : "ms");
        json_t *precs = json_array(), *cross = json_array();
        for (size_t p = 0; p < np; p++) {
            jl_strbuf_printf(&dat, "# precision %s\n", l->items[pr[starts[p]].run]->attrs.precision);
            json_t *runs = json_array();
            for (size_t k = starts[p]; k < starts[p] + counts[p]; k++) {
                const jl_summary *s = l->items[pr[k].run];
                jl_strbuf_printf(&dat, "%ld", s->attrs.max_batch_size);
                rp_dat_num(&dat, s->fig[fe]);
                rp_dat_num(&dat, s->fig[fl] * lscale);
                jl_strbuf_puts(&dat, "\n");
                json_array_append_new(runs, jl_run_key_to_json(s));
                f->n_points++;
            }
            jl_strbuf_puts(&dat, "\n\n");
            json_array_append_new(precs, json_pack("{s:s,s:o}", "precision",
                                                   l->items[pr[starts[p]].run]->attrs.precision, "runs", runs));
        }
        /* crossovers of each precision against the reference */
        double ce[8], cl[8];
        size_t nce = 0, ncl = 0;
        char desc[512] = "";
        for (size_t p = 0; p < np; p++) {
            if (p == ref)
                continue;
            size_t a = crossovers(l, &pr[starts[ref]], counts[ref], &pr[starts[p]], counts[p], fe, ce + nce, 8 - nce);
            size_t b = crossovers(l, &pr[starts[ref]], counts[ref], &pr[starts[p]], counts[p], fl, cl + ncl, 8 - ncl);
            for (size_t q = 0; q < a; q++)
                json_array_append_new(cross, json_pack("{s:s,s:s,s:s,s:f}", "precision",
                                                       l->items[pr[starts[p]].run]->attrs.precision, "reference",
                                                       l->items[pr[starts[ref]].run]->attrs.precision, "figure",
                                                       jl_figure_name((jl_figure)fe), "batch", ce[nce + q]));
            for (size_t q = 0; q < b; q++)
                json_array_append_new(cross, json_pack("{s:s,s:s,s:s,s:f}", "precision",
                                                       l->items[pr[starts[p]].run]->attrs.precision, "reference",
                                                       l->items[pr[starts[ref]].run]->attrs.precision, "figure",
                                                       jl_figure_name((jl_figure)fl), "batch", cl[ncl + q]));
            nce += a;
            ncl += b;
        }
        if (nce)
            snprintf(desc, sizeof desc, " The energy curves cross near batch size %.0f (dashed line).", ce[0]);
        else
            snprintf(desc, sizeof desc, " The energy curves do not cross over the batch sizes measured.");
        f->caption = jl_asprintf(
            "Energy per %s (left) and %s (right) against batch size for each precision of the "
            "model on the same GPUs (the paper's Fig. 7); dashed vertical lines mark where a "
            "precision's curve crosses the %s one (interpolated in log2 batch size).%s",
            diffusion ? "image" : "token", diffusion ? "batch latency" : "median ITL",
            l->items[pr[starts[ref]].run]->attrs.precision, desc);
        long *batches = jl_calloc_array(j - i, sizeof *batches);
        size_t nbt = 0;
        for (size_t k = i; batches && k < j; k++)
            batches[nbt++] = l->items[pr[k].run]->attrs.max_batch_size;
        if (batches)
            qsort(batches, nbt, sizeof *batches, cmp_long);
        rp_gp_header(&gp, f->id, f->title, "Energy and latency per precision against batch size; crossovers dashed.", 1);
        jl_strbuf_puts(&gp, "set title\nset multiplot layout 1,2 title ");
        rp_gp_str(&gp, f->title);
        jl_strbuf_puts(&gp, " font \",14\"\nset logscale x 2\n");
        if (batches)
            batch_xtics(&gp, batches, nbt);
        free(batches);
        jl_strbuf_puts(&gp, "set xlabel \"batch size (max_batch_size)\"\nset key top right\n"
                            "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
        double *ev = jl_calloc_array(j - i, sizeof *ev);
        for (size_t k = i; ev && k < j; k++)
            ev[k - i] = l->items[pr[k].run]->fig[fe];
        int energy_wide = ev ? wide_range(ev, j - i, 8) : 0;
        free(ev);
        jl_strbuf_puts(&gp, "set offsets graph 0.03, graph 0.03, graph 0.05, 0\n");
        for (int panel = 0; panel < 2; panel++) {
            double *cx = panel ? cl : ce;
            size_t ncx = panel ? ncl : nce;
            jl_strbuf_puts(&gp, "unset arrow\n");
            for (size_t q = 0; q < ncx; q++)
                jl_strbuf_printf(&gp, "set arrow %zu from %.6g, graph 0 to %.6g, graph 1 nohead dt 2 lw 1.5 lc rgb \"#444444\"\n",
                                 q + 1, cx[q], cx[q]);
            if (panel == 0 && energy_wide)
                jl_strbuf_puts(&gp, "set logscale y\nset autoscale yfix\nset format y \"%g\"\n"
                                    "set ytics (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)\n");
            else
                jl_strbuf_puts(&gp, "unset logscale y\nset autoscale y\nset ytics autofreq\nset format y \"%g\"\nset yrange [0:*]\n");
            if (panel == 0)
                jl_strbuf_printf(&gp, "set ylabel \"energy per %s (J)\"\n", diffusion ? "image" : "token");
            else
                jl_strbuf_printf(&gp, "set ylabel \"%s\"\n", diffusion ? "batch latency (s)" : "median ITL (ms)");
            jl_strbuf_puts(&gp, "plot ");
            for (size_t p = 0; p < np; p++) {
                jl_strbuf_printf(&gp, "%s\"%s.dat\" index %zu using 1:%d with linespoints pt 7 lw 2 lc rgb \"%s\" title ",
                                 p ? ", \\\n     " : "", f->id, p, panel ? 3 : 2, rp_palette[p % N_PALETTE]);
                rp_gp_str(&gp, l->items[pr[starts[p]].run]->attrs.precision);
            }
            jl_strbuf_puts(&gp, "\n");
        }
        jl_strbuf_puts(&gp, "unset multiplot\nunset output\n");
        f->meta = json_pack("{s:s,s:s?,s:s?,s:I,s:s,s:s,s:s,s:o,s:o}", "model_base", pr[i].base, "task",
                            s0->attrs.task, "gpu_model", s0->attrs.gpu_model, "num_gpus",
                            (json_int_t)s0->attrs.num_gpus, "reference",
                            l->items[pr[starts[ref]].run]->attrs.precision, "energy_figure",
                            jl_figure_name((jl_figure)fe), "latency_figure", jl_figure_name((jl_figure)fl),
                            "precisions", precs, "crossovers", cross);
        st = rp_write_fig_files(r, f, &dat, &gp, err);
        jl_strbuf_free(&dat);
        jl_strbuf_free(&gp);
        drawn++;
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        free(pr[i].base);
    free(pr);
    if (!st && !drawn) {
        rp_figure *f = rp_add_figure(r, RP_FIG_PRECISION, -1, "precision");
        if (!f)
            return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        f->title = jl_strdup("Precision against batch size");
        f->caption = jl_strdup("FP8 vs BF16 (or any two precisions) of one model on the same GPUs, against batch size (the paper's Fig. 7).");
        f->note = jl_strdup("no model was measured in two precisions on the same GPU model and count: nothing to compare");
    }
    return st;
}

/* ---- planning ------------------------------------------------------------------------ */

jl_status rp_figures_plan_and_write(rp_report *r, jl_error **err)
{
    jl_status st = JL_OK;
    for (size_t gi = 0; gi < r->n_groups && !st; gi++) {
        if (r->opt.progress)
            r->opt.progress(r->opt.progress_ctx, "time series", gi, r->n_groups, r->groups[gi].slug);
        st = fig_power(r, (long)gi, err);
        if (!st)
            st = fig_frontier(r, (long)gi, err);
        const jl_frontier *fr = r->groups[gi].frontier;
        if (fr && !st) {
            rp_series *ser = NULL;
            size_t ns = split_curves(r->l, fr, &ser);
            for (size_t c = 0; !st && c < ns; c++)
                st = fig_trends(r, (long)gi, &ser[c].cv, ser[c].variant, err);
            series_free(ser, ns);
        }
    }
    if (r->opt.progress)
        r->opt.progress(r->opt.progress_ctx, "time series", r->n_groups, r->n_groups, "");
    if (!st)
        st = fig_gpu_compare(r, 0, err);
    if (!st) {
        int any_diffusion = 0;
        for (size_t gi = 0; gi < r->n_groups; gi++)
            any_diffusion |= r->groups[gi].workload && !strcmp(r->groups[gi].workload, "diffusion");
        if (any_diffusion)
            st = fig_gpu_compare(r, 1, err);
    }
    if (!st)
        st = fig_precision(r, err);
    return st;
}

/* ---- rendering --------------------------------------------------------------------- */

/* Run argv in cwd with stdout and stderr captured into out (truncated to
 * cap). Returns the exit status (0..255), 127 when the program could not be
 * started (*not_found set when it does not exist), -1 when killed. */
static int run_child(const char *cwd, char *const argv[], char *out, size_t cap, int *not_found)
{
    int outp[2], errp[2];
    *not_found = 0;
    if (cap)
        out[0] = 0;
    if (pipe(outp) != 0)
        return 127;
    if (pipe(errp) != 0) {
        close(outp[0]);
        close(outp[1]);
        return 127;
    }
    fcntl(errp[1], F_SETFD, FD_CLOEXEC);
    fcntl(outp[0], F_SETFD, FD_CLOEXEC);
    fcntl(errp[0], F_SETFD, FD_CLOEXEC);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        int e = 0;
        if (chdir(cwd) != 0)
            e = errno;
        if (!e) {
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0) {
                dup2(devnull, 0);
                close(devnull);
            }
            dup2(outp[1], 1);
            dup2(outp[1], 2);
            close(outp[1]);
            execvp(argv[0], argv);
            e = errno;
        }
        ssize_t w = write(errp[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    if (pid > 0)
        jl_atomic_register_child(pid);
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(outp[1]);
    close(errp[1]);
    if (pid < 0) {
        close(outp[0]);
        close(errp[0]);
        return 127;
    }
    size_t len = 0;
    char buf[4096];
    ssize_t k;
    while ((k = read(outp[0], buf, sizeof buf)) != 0) {
        if (k < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        size_t take = (size_t)k;
        if (cap && len + take >= cap)
            take = cap - 1 - len;
        memcpy(out + len, buf, take);
        len += take;
        if (cap)
            out[len] = 0;
    }
    close(outp[0]);
    int e = 0;
    ssize_t got = read(errp[0], &e, sizeof e);
    close(errp[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    jl_atomic_unregister_child(pid);
    if (got == (ssize_t)sizeof e) {
        *not_found = e == ENOENT || e == EACCES || e == ENOTDIR;
        if (cap)
            snprintf(out, cap, "%s", strerror(e));
        return 127;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return -1;
}

char *rp_read_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    jl_strbuf b;
    jl_strbuf_init(&b);
    char buf[8192];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, fp)) > 0)
        jl_strbuf_append(&b, buf, k);
    fclose(fp);
    return jl_strbuf_take(&b);
}

static const char *const formats[] = {"svg", "pdf", "png"};

static void first_line(char *dst, size_t cap, const char *src)
{
    /* gnuplot's message: skip blank lines, keep up to two lines */
    size_t o = 0;
    int lines = 0;
    while (*src == '\n' || *src == ' ')
        src++;
    for (; *src && o + 1 < cap && lines < 3; src++) {
        if (*src == '\n') {
            lines++;
            if (lines < 3)
                dst[o++] = ' ';
            continue;
        }
        dst[o++] = *src;
    }
    dst[o] = 0;
}

jl_status rp_figures_render(rp_report *r, jl_error **err)
{
    (void)err;
    const char *gnuplot = r->opt.gnuplot ? r->opt.gnuplot : "gnuplot";
    char *figdir = jl_asprintf("%s/figures", r->root);
    if (!figdir)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    char out[2048];
    int nf = 0;
    if (!*gnuplot) {
        r->gnuplot_missing = 1;
        rp_note(r, "figures not drawn (disabled); their .gp scripts and .dat files are in figures/");
    } else {
        char *argv[] = {(char *)gnuplot, "--version", NULL};
        int rc = run_child(figdir, argv, out, sizeof out, &nf);
        if (rc != 0) {
            r->gnuplot_missing = 1;
            rp_note(r, "gnuplot %s (%s): figures skipped; their .gp scripts and .dat files are in "
                       "figures/ (install gnuplot, then run `gnuplot NAME.gp` there)",
                    nf ? "not found" : "does not run", rc == 127 ? out : "exit status");
        } else {
            char v[256];
            first_line(v, sizeof v, out);
            r->gnuplot_version = jl_strdup(v);
        }
    }
    size_t todo = 0, done = 0;
    for (size_t i = 0; i < r->n_figs; i++)
        todo += !r->figs[i].note;
    for (size_t i = 0; i < r->n_figs; i++) {
        rp_figure *f = &r->figs[i];
        if (f->note)
            continue;
        if (r->gnuplot_missing) {
            f->note = jl_strdup("not drawn: gnuplot is not available (see the notes)");
            continue;
        }
        if (r->opt.progress)
            r->opt.progress(r->opt.progress_ctx, "figures", done, todo, f->id);
        char *gp = jl_asprintf("%s.gp", f->id);
        char *e[3], *parts[3];
        int ok = gp != NULL;
        for (int k = 0; k < 3; k++) {
            parts[k] = jl_asprintf("%s.%s.part", f->id, formats[k]);
            e[k] = jl_asprintf("fmt='%s'; out='%s'", formats[k], parts[k] ? parts[k] : "");
            ok &= parts[k] && e[k];
        }
        if (ok) {
            char *argv[] = {(char *)gnuplot, "-e", e[0], gp, "-e", e[1], gp, "-e", e[2], gp, NULL};
            int rc = run_child(figdir, argv, out, sizeof out, &nf);
            int complete = rc == 0;
            for (int k = 0; complete && k < 3; k++) {
                char *p = jl_asprintf("%s/%s", figdir, parts[k]);
                struct stat sb;
                complete = p && stat(p, &sb) == 0 && sb.st_size > 0;
                free(p);
            }
            if (complete) {
                for (int k = 0; k < 3 && complete; k++) {
                    char *from = jl_asprintf("%s/%s", figdir, parts[k]);
                    char *to = jl_asprintf("%s/%s.%s", figdir, f->id, formats[k]);
                    complete = from && to && rename(from, to) == 0;
                    if (complete && k == 0)
                        f->svg = rp_read_file(to);
                    free(from);
                    free(to);
                }
            }
            if (complete && f->svg) {
                f->drawn = 1;
            } else {
                char msg[600];
                first_line(msg, sizeof msg, out);
                if (rc != 0)
                    f->note = jl_asprintf("gnuplot failed (exit status %d): %s", rc, msg);
                else
                    f->note = jl_asprintf("gnuplot wrote no complete output: %s", msg);
                rp_note(r, "figure %s: %s", f->id, f->note ? f->note : "gnuplot failed");
            }
            for (int k = 0; k < 3; k++) {
                char *p = jl_asprintf("%s/%s", figdir, parts[k]);
                if (p)
                    unlink(p); /* leftovers of a failed run */
                free(p);
            }
        }
        for (int k = 0; k < 3; k++) {
            free(parts[k]);
            free(e[k]);
        }
        free(gp);
        done++;
    }
    if (r->opt.progress && todo)
        r->opt.progress(r->opt.progress_ctx, "figures", todo, todo, "");
    free(figdir);
    return JL_OK;
}
