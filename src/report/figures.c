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
#include "report/series.h"

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
    int w = wide ? 1000 : 900, h = wide ? 460 : 520;
    rp_gp_header_sized(b, id, title, what, w, h, 7.0 * h / w, wide ? 2.9 : 2.5);
}

void rp_gp_header_sized(jl_strbuf *b, const char *id, const char *title, const char *what, int w,
                        int h, double pdf_h_in, double pdf1_h_in)
{
    /* The title is the page's (and this comment's): none is drawn, so
     * nothing is clipped and a paper's caption carries it. */
    jl_strbuf_printf(b, "# joules report figure %s: %s\n", id, title);
    jl_strbuf_printf(b, "# %s\n", what);
    jl_strbuf_printf(b,
                     "# Data: %s.dat (columns are named in its header). Restyle by editing this\n"
                     "# script, then from this folder:\n"
                     "#   gnuplot %s.gp                      -> %s.svg\n"
                     "#   gnuplot -e \"fmt='png'\" %s.gp       -> %s.png\n"
                     "#   gnuplot -e \"fmt='pdf'\" %s.gp       -> %s.pdf       (7 in wide, double column)\n"
                     "#   gnuplot -e \"fmt='pdf1'\" %s.gp      -> %s.1col.pdf  (3.3 in wide, single column)\n"
                     "# PDF text is 9 pt (8 pt single column); no title is drawn.\n"
                     "reset\n"
                     "if (!exists(\"fmt\")) fmt = \"svg\"\n"
                     "if (!exists(\"out\")) out = \"%s.\" . (fmt eq \"pdf1\" ? \"1col.pdf\" : fmt)\n",
                     id, id, id, id, id, id, id, id, id, id);
    /* pdfcairo draws a font of size S at S x fontscale x 4/3 points:
     * fontscale 0.75 makes "Helvetica,9" 9 pt */
    jl_strbuf_printf(b,
                     "lblfont = \",10\"\n"
                     "if (fmt eq \"svg\") set terminal svg size %d,%d font \"Helvetica,13\" linewidth 1.3 background rgb \"white\"\n"
                     "if (fmt eq \"png\") set terminal pngcairo size %d,%d font \"Helvetica,14\" linewidth 1.5 background rgb \"white\"; lblfont = \",11\"\n"
                     "if (fmt eq \"pdf\") set terminal pdfcairo size 7in,%.2fin font \"Helvetica,9\" fontscale 0.75 linewidth 1.2 pointscale 0.7; lblfont = \",8\"\n"
                     "if (fmt eq \"pdf1\") set terminal pdfcairo size 3.3in,%.2fin font \"Helvetica,8\" fontscale 0.75 linewidth 1.0 pointscale 0.55; lblfont = \",8\"\n"
                     "# narrow: the 3.3 in PDF (scripts thin ticks and rearrange panels for it)\n"
                     "narrow = (fmt eq \"pdf1\")\n"
                     "set output out\n"
                     "set encoding utf8\n"
                     "set termoption noenhanced\n"
                     "set datafile missing \"NaN\"\n"
                     "set border 3 lc rgb \"#555555\"\n"
                     "set tics nomirror out\n"
                     "set grid xtics ytics lc rgb \"#e6e6e6\" lt 1 lw 1\n"
                     "set key noautotitle\n",
                     w, h, w * 3 / 2, h * 3 / 2, pdf_h_in, pdf1_h_in);
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
    /* the SVG's pixel size, for the page's <img width height> (a lazy image
     * without them takes no room and so is loaded at once) */
    const char *sz = gp->data ? strstr(gp->data, "set terminal svg size ") : NULL;
    if (!sz || sscanf(sz, "set terminal svg size %d,%d", &f->px_w, &f->px_h) != 2)
        f->px_w = f->px_h = 0;
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
    if (!isfinite(s->fig[JL_FIG_RUN_DURATION_S])) {
        /* no power samples (run_duration_s is their span): a summary-only
         * run, e.g. imported published figures; nothing to read */
        g->figure_note = jl_strdup("No power-over-time figure: the runs are summary-only (e.g. "
                                   "imported published figures), without a power time series.");
        rp_drop_last_figure(r);
        return JL_OK;
    }
    if (read_run(s, &run, &rerr) != JL_OK) {
        /* not listed: the group says why in one line */
        char *m = rerr ? jl_error_format(rerr) : NULL;
        g->figure_note = jl_asprintf("No power-over-time figure: the representative run's time "
                                     "series could not be read (%s).", m ? m : "?");
        rp_note(r, "figure %s skipped: %s", f->id, m ? m : "?");
        free(m);
        jl_error_free(rerr);
        rp_drop_last_figure(r);
        return JL_OK;
    }
    if (!run->power_n || !run->power_time) {
        /* summary-only runs (e.g. imported published summaries) */
        g->figure_note = jl_strdup("No power-over-time figure: the runs are summary-only (e.g. "
                                   "imported published figures), without a power time series.");
        jl_run_free(run);
        rp_drop_last_figure(r);
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
    /* @power_scope node_ac: the whole system at the wall, no GPU power limit */
    const int node = jl_attrs_is_node_ac(&s->attrs);
    double tdp = node ? NAN : rp_tdp_w(r, s) * (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
    rp_gp_header(&gp, f->id, f->title,
                 node ? "AC power of the whole node at the wall over the run (not GPU power), steady-state window shaded."
                      : "Power of all GPUs over the run, steady-state window shaded, batch occupancy on the right axis.",
                 1);
    jl_strbuf_printf(&gp, "set xlabel \"time in the run (s)\"\n"
                        "set ylabel \"%s\"\n", node ? "node AC power at the wall (W)" : "GPU power, all GPUs (W)");
    jl_strbuf_puts(&gp, "set ytics nomirror\n"
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
    if (isfinite(tdp)) /* in the key: a label over the trace would collide with it */
        jl_strbuf_puts(&gp, ", \\\n     tdp with lines dt 2 lw 1 lc rgb \"#666666\" title sprintf(\"power limit %.0f W\", tdp)");
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

/* The knobs that change a configuration beyond (GPU model, count,
 * precision): a run's value of knob k, or -1 when it has none. */
enum { KN_TP, KN_EP, KN_DP, KN_ULYSSES, KN_RING, KN_STEPS, KN_WIDTH, KN_HEIGHT, KN_FRAMES, KN_COUNT };

static long extra_long(const jl_attrs *a, const char *key)
{
    char buf[64], *end;
    if (jl_attrs_get(a, key, buf, sizeof buf) != 0)
        return -1;
    double v = strtod(buf, &end);
    return end != buf && isfinite(v) ? (long)v : -1;
}

static long knob(const jl_summary *s, int k)
{
    const jl_attrs *a = &s->attrs;
    switch (k) {
    case KN_TP: return a->tensor_parallel > 0 ? a->tensor_parallel : -1;
    case KN_EP: return a->expert_parallel > 0 ? a->expert_parallel : -1;
    case KN_DP: return a->data_parallel > 0 ? a->data_parallel : -1;
    case KN_ULYSSES: return extra_long(a, "ulysses_degree");
    case KN_RING: return extra_long(a, "ring_degree");
    case KN_STEPS: return a->denoising_steps > 0 ? a->denoising_steps : -1;
    case KN_WIDTH: return a->width > 0 ? a->width : -1;
    case KN_HEIGHT: return a->height > 0 ? a->height : -1;
    case KN_FRAMES: return a->num_frames > 0 ? a->num_frames : -1;
    default: return -1;
    }
}

/* The label of a run's values of the knobs in mask ("ulysses 2, ring 1"). */
static void variant_label(const jl_summary *s, unsigned mask, char *buf, size_t cap)
{
    static const char *const names[] = {"TP", "EP", "DP", "ulysses", "ring", "steps", "", "", "frames"};
    size_t o = 0;
    buf[0] = 0;
    for (int k = 0; k < KN_COUNT && o < cap; k++) {
        if (!(mask & (1u << k)) || k == KN_HEIGHT)
            continue;
        long v = knob(s, k);
        const char *sep = o ? ", " : "";
        if (k == KN_WIDTH || (k == KN_HEIGHT))
            o += (size_t)snprintf(buf + o, cap - o, "%s%ldx%ld", sep, v, knob(s, KN_HEIGHT));
        else if (k == KN_STEPS || k == KN_FRAMES)
            o += (size_t)snprintf(buf + o, cap - o, "%s%ld %s", sep, v, names[k]);
        else
            o += (size_t)snprintf(buf + o, cap - o, "%s%s %ld", sep, names[k], v);
    }
}

void rp_knobs_text(const jl_summary *s, char *buf, size_t cap)
{
    unsigned mask = 0;
    for (int k = KN_TP; k <= KN_RING; k++)
        if (knob(s, k) > 1)
            mask |= 1u << k;
    if (knob(s, KN_STEPS) > 0)
        mask |= 1u << KN_STEPS;
    variant_label(s, mask, buf, cap);
}

static int same_variant(const jl_summary *a, const jl_summary *b)
{
    for (int k = 0; k < KN_COUNT; k++)
        if (knob(a, k) != knob(b, k))
            return 0;
    return 1;
}

void rp_series_free(rp_series *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].cv.points);
        free(s[i].variant);
    }
    free(s);
}

size_t rp_split_curves(const jl_summary_list *l, const jl_frontier *fr, rp_series **out)
{
    rp_series *res = NULL;
    size_t n = 0;
    char k1[160];
    for (size_t c = 0; c < fr->n_curves; c++) {
        const jl_curve *cv = &fr->curves[c];
        if (!cv->n_points)
            continue;
        /* the knobs that differ within the curve */
        unsigned mask = 0;
        const jl_summary *s0 = l->items[cv->points[0].run];
        for (size_t i = 1; i < cv->n_points; i++)
            for (int k = 0; k < KN_COUNT; k++)
                if (knob(l->items[cv->points[i].run], k) != knob(s0, k))
                    mask |= 1u << k;
        if (mask & ((1u << KN_WIDTH) | (1u << KN_HEIGHT)))
            mask |= (1u << KN_WIDTH) | (1u << KN_HEIGHT);
        unsigned char *done = jl_calloc_array(cv->n_points, 1);
        if (!done)
            break;
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
            const jl_summary *si = l->items[cv->points[i].run];
            variant_label(si, mask, k1, sizeof k1);
            sr->variant = mask && k1[0] ? jl_strdup(k1) : NULL;
            for (size_t j = i; j < cv->n_points && sr->cv.points; j++)
                if (!done[j] && same_variant(si, l->items[cv->points[j].run])) {
                    done[j] = 1;
                    sr->cv.points[sr->cv.n_points++] = cv->points[j];
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

/* Batch-size ticks on a log2 axis: every batch measured gets a tick, but
 * only those at least ~1/8 of the axis (and 0.75 octave) from the last
 * labelled one get a label ("2048" and "3072" side by side collide). */
static void batch_xtics(jl_strbuf *gp, const long *b, size_t n)
{
    long lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i] > 0) {
            lo = lo ? (b[i] < lo ? b[i] : lo) : b[i];
            hi = b[i] > hi ? b[i] : hi;
        }
    double span = lo > 0 ? log2((double)hi / (double)lo) : 0;
    double minsep = fmax(span / 8, 0.75);
    jl_strbuf_puts(gp, "set xtics (");
    long last = -1;
    double last_lab = -INFINITY;
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == last || b[i] <= 0)
            continue;
        double x = log2((double)b[i]);
        int lab = x - last_lab >= minsep - 1e-9;
        if (lab)
            jl_strbuf_printf(gp, "%s\"%ld\" %ld", first ? "" : ", ", b[i], b[i]);
        else
            jl_strbuf_printf(gp, "%s\"\" %ld 1", first ? "" : ", ", b[i]);
        if (lab)
            last_lab = x;
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
        rp_item(s0), diffusion ? "batch latency" : "median ITL",
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
                     "set ylabel \"%% of maximum (power: the key)\"\n"
                     "if (narrow) set ylabel \"%% of maximum\"\n"
                     "set yrange [0:110]\n"
                     "set ytics 0,20,100\n"
                     "set key outside bottom center horizontal maxcols 2 samplen 2\n"
                     "set offsets graph 0.03, graph 0.03, 0, 0\n");
    char thr_title[64];
    snprintf(thr_title, sizeof thr_title, "throughput (%s)", rp_throughput_unit(s0));
    jl_strbuf_printf(&gp,
                     "# the 3.3 in PDF: short key entries (the caption gives the units)\n"
                     "plot \"%s.dat\" using 1:3 with linespoints pt 7 ps 1.1 lw 2 lc rgb \"%s\" title (narrow ? \"energy\" : \"energy per %s\"), \\\n"
                     "     \"\" using 1:5 with linespoints pt 5 ps 1.0 lw 2 lc rgb \"%s\" title (narrow ? \"throughput\" : \"%s\"), \\\n"
                     "     \"\" using 1:7 with linespoints pt 9 ps 1.2 lw 2 lc rgb \"%s\" title (narrow ? \"latency\" : \"%s\"), \\\n"
                     "     \"\" using 1:9 with linespoints pt 13 ps 1.2 lw 2 lc rgb \"%s\" title (narrow ? \"power\" : \"%s\")\n"
                     "unset output\n",
                     f->id, rp_palette[0], rp_item(s0), rp_palette[2],
                     thr_title, rp_palette[1],
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

/* ---- point labels that do not collide ----------------------------------------------- */

/* Labels are placed greedily in axis-normalised coordinates (0..1 over the
 * plotted range, log or linear as the axis): each label tries right-above,
 * right-below, left-above, left-below of its point and takes the first
 * place where it overlaps no label placed before and no marker; else it is
 * left out (the .dat keeps every value). Sizes are for the narrowest output
 * (the 3.3 in PDF), so no format shows a collision. */
typedef struct rp_box { double x0, y0, x1, y1; } rp_box;
typedef struct rp_placer {
    double xlo, xhi, ylo, yhi;
    int logx, logy;
    double cw, ch; /* one character and one line, shares of the plot's width and height */
    rp_box *boxes;
    size_t n, cap;
} rp_placer;

/* Two placements per figure: for the wide outputs (SVG, PNG, 7 in PDF)
 * and for the 3.3 in PDF, where text takes twice the share of the plot;
 * the .dat has both sets of label columns and the script picks by fmt. */
static const double rp_char_w[2] = {0.0105, 0.023}, rp_char_h[2] = {0.045, 0.075};
#define RP_MARK 0.009    /* half a marker */

static double place_norm(double v, double lo, double hi, int logs)
{
    if (logs)
        return v > 0 && lo > 0 && hi > lo ? (log(v) - log(lo)) / (log(hi) - log(lo)) : 0.5;
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

/* The plotted range of values v (log: multiplicative margins). */
static void place_range(const double *v, size_t n, int logs, double margin_lo, double margin_hi,
                        double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && (!logs || v[i] > 0)) {
            a = fmin(a, v[i]);
            b = fmax(b, v[i]);
        }
    if (!isfinite(a)) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (logs) {
        double la = log(a), lb = log(b), s = lb > la ? lb - la : 1;
        *lo = exp(la - s * margin_lo);
        *hi = exp(lb + s * margin_hi);
    } else {
        double s = b > a ? b - a : (a ? fabs(a) : 1);
        *lo = a - s * margin_lo;
        *hi = b + s * margin_hi;
    }
}

static int place_push(rp_placer *p, rp_box bx)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        rp_box *nb = realloc(p->boxes, nc * sizeof *nb);
        if (!nb)
            return 0;
        p->boxes = nb;
        p->cap = nc;
    }
    p->boxes[p->n++] = bx;
    return 1;
}

static void place_marker(rp_placer *p, double x, double y)
{
    double nx = place_norm(x, p->xlo, p->xhi, p->logx), ny = place_norm(y, p->ylo, p->yhi, p->logy);
    place_push(p, (rp_box){nx - RP_MARK, ny - RP_MARK * 1.6, nx + RP_MARK, ny + RP_MARK * 1.6});
}

/* The box of a w x h label at position pos (0 right-above, 1 right-below,
 * 2 left-above, 3 left-below) of the point (nx, ny), in plot units. */
static rp_box label_box(double nx, double ny, double w, double h, int pos)
{
    const double gx = 0.012, gy = 0.012;
    rp_box bx;
    bx.x0 = pos < 2 ? nx + gx : nx - gx - w;
    bx.x1 = bx.x0 + w;
    bx.y0 = pos % 2 == 0 ? ny + gy : ny - gy - h;
    bx.y1 = bx.y0 + h;
    return bx;
}

static int box_inside(rp_box bx)
{
    return !(bx.x0 < -0.02 || bx.x1 > 1.04 || bx.y0 < -0.02 || bx.y1 > 1.04);
}

/* Where a label of nchars goes: 0 right-above, 1 right-below, 2 left-above,
 * 3 left-below, -1 nowhere. */
static int place_label(rp_placer *p, double x, double y, size_t nchars)
{
    double nx = place_norm(x, p->xlo, p->xhi, p->logx), ny = place_norm(y, p->ylo, p->yhi, p->logy);
    double w = (double)nchars * p->cw, h = p->ch;
    for (int pos = 0; pos < 4; pos++) {
        rp_box bx = label_box(nx, ny, w, h, pos);
        if (!box_inside(bx))
            continue;
        int clash = 0;
        for (size_t i = 0; i < p->n && !clash; i++)
            clash = bx.x0 < p->boxes[i].x1 && p->boxes[i].x0 < bx.x1 && bx.y0 < p->boxes[i].y1 &&
                    p->boxes[i].y0 < bx.y1;
        if (!clash) {
            place_push(p, bx);
            return pos;
        }
    }
    return -1;
}

/* As place_label, for a label that must be shown (the overview's model
 * names: an unlabelled point there names nothing): when every position
 * clashes, the one overlapping least (inside the plot where possible). */
static int place_label_always(rp_placer *p, double x, double y, size_t nchars)
{
    int pos = place_label(p, x, y, nchars);
    if (pos >= 0)
        return pos;
    double nx = place_norm(x, p->xlo, p->xhi, p->logx), ny = place_norm(y, p->ylo, p->yhi, p->logy);
    double w = (double)nchars * p->cw, h = p->ch, best_cost = INFINITY;
    rp_box best = {0, 0, 0, 0};
    for (int k = 0; k < 4; k++) {
        rp_box bx = label_box(nx, ny, w, h, k);
        /* outside the plot costs more than any overlap inside it */
        double cost = box_inside(bx) ? 0 : 1e6;
        for (size_t i = 0; i < p->n; i++) {
            double ox = fmin(bx.x1, p->boxes[i].x1) - fmax(bx.x0, p->boxes[i].x0);
            double oy = fmin(bx.y1, p->boxes[i].y1) - fmax(bx.y0, p->boxes[i].y0);
            if (ox > 0 && oy > 0)
                cost += ox * oy;
        }
        if (cost < best_cost) {
            best_cost = cost;
            best = bx;
            pos = k;
        }
    }
    place_push(p, best);
    return pos;
}

/* gnuplot: four label layers, one per position: columns lc..lc+3 of the
 * .dat hold the text at that position ("" elsewhere), lc = col for the wide
 * outputs and col + 4 for the 3.3 in PDF (label_columns() sets lc). */
static void plot_label_layers(jl_strbuf *gp, const char *src, const char *colour)
{
    static const char *const where[] = {"left offset char 0.5,0.55", "left offset char 0.5,-0.55",
                                        "right offset char -0.5,0.55", "right offset char -0.5,-0.55"};
    for (int k = 0; k < 4; k++)
        jl_strbuf_printf(gp, ", \\\n     %s using 1:2:(stringcolumn(lc+%d)) with labels %s font lblfont textcolor rgb \"%s\" notitle",
                         src, k, where[k], colour);
}

static void label_columns(jl_strbuf *gp, int col)
{
    jl_strbuf_printf(gp, "# point labels: columns %d-%d (wide outputs) or %d-%d (3.3 in PDF)\n"
                         "lc = (fmt eq \"pdf1\") ? %d : %d\n",
                     col, col + 3, col + 4, col + 7, col + 4, col);
}

static void dat_labels(jl_strbuf *dat, const int *pos, const char *text)
{
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < 4; k++) {
            jl_strbuf_puts(dat, " ");
            dat_str(dat, k == pos[w] ? text : "");
        }
}

static void placers_init(rp_placer *pl, int logx, int logy, const double *xs, const double *ys,
                         size_t n, double mx0, double mx1, double my0, double my1)
{
    for (int w = 0; w < 2; w++) {
        memset(&pl[w], 0, sizeof pl[w]);
        pl[w].logx = logx;
        pl[w].logy = logy;
        pl[w].cw = rp_char_w[w];
        pl[w].ch = rp_char_h[w];
        place_range(xs, n, logx, mx0, mx1, &pl[w].xlo, &pl[w].xhi);
        place_range(ys, n, logy, my0, my1, &pl[w].ylo, &pl[w].yhi);
        for (size_t i = 0; i < n; i++)
            place_marker(&pl[w], xs[i], ys[i]);
    }
}

/* Explicit ticks for a log axis over [lo, hi]: the first of 1; 1-2-5;
 * 1-2-3-5-7; 1..9 (x 10^k) giving at least four inside. */
static void log_tics(jl_strbuf *gp, const char *axis, double lo, double hi)
{
    static const double sets[4][10] = {{1}, {1, 2, 5}, {1, 2, 3, 5, 7}, {1, 2, 3, 4, 5, 6, 7, 8, 9}};
    static const int ns[4] = {1, 3, 5, 9};
    if (!(lo > 0) || !(hi > lo))
        return;
    int k0 = (int)floor(log10(lo)), k1 = (int)ceil(log10(hi));
    for (int s = 0; s < 4; s++) {
        int cnt = 0;
        for (int k = k0; k <= k1; k++)
            for (int i = 0; i < ns[s]; i++) {
                double v = sets[s][i] * pow(10, k);
                cnt += v >= lo && v <= hi;
            }
        if (cnt < 4 && s < 3)
            continue;
        if (cnt < 2) { /* a narrow range: evenly spaced 1-2-5 steps */
            double raw = (hi - lo) / 4, mag = pow(10, floor(log10(raw))), step = mag;
            if (raw / mag >= 5)
                step = 5 * mag;
            else if (raw / mag >= 2)
                step = 2 * mag;
            jl_strbuf_printf(gp, "set %stics (", axis);
            int f1 = 1;
            for (double v = ceil(lo / step) * step; v <= hi; v += step) {
                jl_strbuf_printf(gp, "%s%.6g", f1 ? "" : ", ", v);
                f1 = 0;
            }
            jl_strbuf_printf(gp, ")\nset format %s \"%%.4g\"\n", axis);
            return;
        }
        jl_strbuf_printf(gp, "set %stics (", axis);
        int first = 1;
        for (int k = k0; k <= k1; k++)
            for (int i = 0; i < ns[s]; i++) {
                double v = sets[s][i] * pow(10, k);
                if (v >= lo && v <= hi) {
                    jl_strbuf_printf(gp, "%s%.10g", first ? "" : ", ", v);
                    first = 0;
                }
            }
        jl_strbuf_printf(gp, ")\nset format %s \"%%.7g\"\n", axis);
        /* the 3.3 in PDF: decades alone when two or more show */
        int nd = 0;
        for (int k = k0; k <= k1; k++)
            nd += pow(10, k) >= lo && pow(10, k) <= hi;
        if (s > 0 && nd >= 2) {
            jl_strbuf_printf(gp, "if (narrow) set %stics (", axis);
            first = 1;
            for (int k = k0; k <= k1; k++)
                if (pow(10, k) >= lo && pow(10, k) <= hi) {
                    jl_strbuf_printf(gp, "%s%.10g", first ? "" : ", ", pow(10, k));
                    first = 0;
                }
            jl_strbuf_puts(gp, ")\n");
        }
        return;
    }
}

static const int point_types[] = {7, 5, 9, 11, 13, 15};


/* The latency bounds of a group's SLO set as dashed vertical lines, those
 * near the data (a bound far right of every run squeezes the plot). */
static void slo_lines(jl_strbuf *gp, const rp_group *g, int diffusion, double lscale, double maxlat,
                      int first_arrow, rp_placer *pl)
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
                jl_strbuf_printf(gp, "# SLO %s lies far right of every run (all meet it): not drawn\n",
                                 slo->text);
                continue;
            }
            jl_strbuf_printf(gp,
                             "set arrow %d from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb \"%s\"\n"
                             "set label %d \"%g %s\" at %.10g, graph 0.98 right rotate by 90 offset -0.4,0 textcolor rgb \"#777777\" font lblfont\n",
                             na, x, x, j == g->primary ? "#555555" : "#aaaaaa", na, x,
                             diffusion ? "s" : "ms", x);
            for (int w = 0; pl && w < 2; w++) { /* the rotated label, left of the line at the top */
                double nx = place_norm(x, pl[w].xlo, pl[w].xhi, pl[w].logx);
                place_push(&pl[w], (rp_box){nx - pl[w].cw * 2.5, 1.0 - pl[w].ch * 6, nx + pl[w].cw * 1.5, 1.05});
            }
            na++;
        }
    }
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
        "Each line is one configuration: GPU model, count, precision, and where they differ the "
        "parallel degrees, denoising steps, resolution or frames; each point a run, labelled "
        "with its batch size where the label fits. Black rings and the dashed line: the "
        "frontier of the group (no run is both faster and cheaper). Dashed verticals: the "
        "latency bounds of the SLO set (the darker one is the group's SLO). The paper's "
        "Fig. 8-9.");
    char elabel[64];
    snprintf(elabel, sizeof elabel, "energy per %s (J)", rp_item(s0));
    jl_strbuf dat, gp;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&gp);
    jl_strbuf_printf(&dat, "# %s\n# blocks (gnuplot index): one per curve, then the frontier\n"
                           "# latency_%s energy_j_per_%s batch on_frontier, labels right-up right-down left-up left-down (wide), the same (3.3 in PDF)\n",
                     f->title, diffusion ? "s" : "ms", rp_item(s0));
    size_t nv = 0;
    rp_series *ser = NULL;
    size_t nser = rp_split_curves(l, fr, &ser);
    size_t total = fr->n_points;
    for (size_t c = 0; c < nser; c++)
        total += ser[c].cv.n_points;
    double *lat = jl_calloc_array(total + 1, sizeof *lat);
    double *en = jl_calloc_array(total + 1, sizeof *en);
    double maxlat = 0;
    for (size_t c = 0; lat && en && c < nser; c++)
        for (size_t i = 0; i < ser[c].cv.n_points; i++) {
            const jl_curve_point *p = &ser[c].cv.points[i];
            if (isfinite(p->latency) && isfinite(p->energy)) {
                lat[nv] = p->latency * lscale;
                en[nv++] = p->energy;
                maxlat = fmax(maxlat, p->latency * lscale);
            }
        }
    int logy = lat && en ? wide_range(en, nv, 8) : 0, logx = lat && en ? wide_range(lat, nv, 8) : 0;
    rp_placer pl[2];
    placers_init(pl, logx, logy, lat, en, lat && en ? nv : 0, 0.06, 0.10, 0.12, 0.08);
    double xlo = pl[0].xlo, xhi = pl[0].xhi, ylo = pl[0].ylo, yhi = pl[0].yhi;
    jl_strbuf slo_gp;
    jl_strbuf_init(&slo_gp);
    slo_lines(&slo_gp, g, diffusion, lscale, maxlat, 1, pl);
    free(lat);
    free(en);
    json_t *curves = json_array();
    for (size_t c = 0; c < nser; c++) {
        const jl_curve *cv = &ser[c].cv;
        jl_strbuf_printf(&dat, "# curve %zu: %s x%ld %s%s%s\n", c, gpu_label(cv->gpu_model), cv->num_gpus,
                         cv->precision ? cv->precision : "?", ser[c].variant ? ", " : "",
                         ser[c].variant ? ser[c].variant : "");
        for (size_t i = 0; i < cv->n_points; i++) {
            const jl_curve_point *p = &cv->points[i];
            char lab[32];
            snprintf(lab, sizeof lab, "%ld", p->batch);
            int pos[2];
            for (int w = 0; w < 2; w++)
                pos[w] = isfinite(p->latency) && isfinite(p->energy)
                             ? place_label(&pl[w], p->latency * lscale, p->energy, strlen(lab))
                             : -1;
            jl_strbuf_printf(&dat, "%.10g %.10g %ld %d", p->latency * lscale, p->energy, p->batch,
                             p->on_frontier);
            dat_labels(&dat, pos, lab);
            jl_strbuf_puts(&dat, "\n");
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
    free(pl[0].boxes);
    free(pl[1].boxes);
    jl_strbuf_puts(&dat, "# frontier\n");
    for (size_t i = 0; i < fr->n_points; i++)
        jl_strbuf_printf(&dat, "%.10g %.10g %ld 1 \"\" \"\" \"\" \"\" \"\" \"\" \"\" \"\"\n", fr->points[i].latency * lscale,
                         fr->points[i].energy, l->items[fr->points[i].run]->attrs.max_batch_size);
    /* the 3.3 in PDF: the key in one column below, the page as tall as it needs */
    rp_gp_header_sized(&gp, f->id, f->title,
                       "Time-energy curves per configuration, batch sizes annotated, frontier in black.",
                       900, 520, 7.0 * 520 / 900, 2.4 + 0.15 * (double)(nser + 1));
    jl_strbuf_printf(&gp, "set xlabel \"%s\"\nset ylabel \"%s\"\n",
                     diffusion ? "batch latency (s)" : "median inter-token latency (ms)", elabel);
    if (logx) {
        jl_strbuf_puts(&gp, "set logscale x\n");
        log_tics(&gp, "x", xlo, xhi);
    }
    if (logy) {
        jl_strbuf_puts(&gp, "set logscale y\n");
        log_tics(&gp, "y", ylo, yhi);
    }
    label_columns(&gp, 5);
    jl_strbuf_puts(&gp, "set autoscale fix\n"
                        "set offsets graph 0.06, graph 0.10, graph 0.12, graph 0.08\n"
                        "set key outside bottom center horizontal samplen 2.5 height 0.5\n"
                        "if (narrow) set key outside bottom center vertical maxcols 1 samplen 2\n");
    char *slo_text = jl_strbuf_take(&slo_gp);
    jl_strbuf_puts(&gp, slo_text ? slo_text : "");
    free(slo_text);
    jl_strbuf_puts(&gp, "plot ");
    for (size_t c = 0; c < nser; c++) {
        const jl_curve *cv = &ser[c].cv;
        const char *col = rp_palette[c % N_PALETTE];
        int pt = point_types[(c / N_PALETTE) % (sizeof point_types / sizeof point_types[0])];
        char *tt = jl_asprintf("%s x%ld, %s%s%s", gpu_label(cv->gpu_model), cv->num_gpus,
                               cv->precision ? cv->precision : "?", ser[c].variant ? ", " : "",
                               ser[c].variant ? ser[c].variant : "");
        jl_strbuf_printf(&gp, "%s\"%s.dat\" index %zu using 1:2 with linespoints pt %d ps 1.0 lw 2 dt %d lc rgb \"%s\" title ",
                         c ? ", \\\n     " : "", f->id, c, pt, (int)(c / N_PALETTE) % 3 + 1, col);
        rp_gp_str(&gp, tt ? tt : "?");
        free(tt);
        char src[32];
        snprintf(src, sizeof src, "\"\" index %zu", c);
        plot_label_layers(&gp, src, col);
    }
    jl_strbuf_printf(&gp, ", \\\n     \"%s.dat\" index %zu using 1:2 with lines dt 2 lw 1.4 lc rgb \"#000000\" title \"frontier\", \\\n"
                          "     \"\" index %zu using 1:2 with points pt 6 ps 2.0 lw 1.4 lc rgb \"#000000\" notitle\n"
                          "unset output\n",
                     f->id, nser, nser);
    rp_series_free(ser, nser);
    f->meta = json_pack("{s:s,s:s,s:b,s:b,s:o}", "latency_unit", diffusion ? "s" : "ms", "energy_unit",
                        rp_energy_unit(s0), "log_x", logx, "log_y", logy, "curves", curves);
    jl_status st = rp_write_fig_files(r, f, &dat, &gp, err);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&gp);
    return st;
}

/* ---- 4. GPU models at matched SLOs (paper Fig. 6) ---------------------------------- */

static const char *const kind_names[] = {"llm", "image", "video"};

/* The model id without its organisation ("Qwen/Qwen3-8B" -> "Qwen3-8B"). */
static const char *short_model(const char *m)
{
    const char *s = m ? strrchr(m, '/') : NULL;
    return s ? s + 1 : (m ? m : "?");
}

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

/* One figure per kind of work (tokens, images, videos): a row per (model,
 * task) with two or more GPU models meeting its SLO, sorted by the least
 * energy; on a log axis, a dot per GPU model at the energy of its
 * minimum-energy configuration meeting the SLO, a line from the least to
 * the most; on the right, the GPU model needing the least and by how much
 * less than the one needing the most. Legible at any number of rows: the
 * figure grows with them. */
static jl_status fig_gpu_compare(rp_report *r, rp_kind kind, jl_error **err)
{
    const jl_summary_list *l = r->l;
    char **gpus = NULL;
    size_t ng = 0, nq = 0, n_kind = 0;
    cmp_row *rows = jl_calloc_array(r->n_groups ? r->n_groups : 1, sizeof *rows);
    if (!rows)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        rp_group *g = &r->groups[gi];
        if (g->kind != kind)
            continue;
        n_kind++;
        double best = INFINITY, worst = -INFINITY;
        size_t meeting = 0;
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            double e = l->items[run]->fig[rp_energy_fig(l->items[run])];
            if (!isfinite(e) || e <= 0)
                continue;
            meeting++;
            best = fmin(best, e);
            worst = fmax(worst, e);
            size_t j = 0;
            while (j < ng && strcmp(gpus[j], g->gpu_models[k]) < 0)
                j++;
            if (j < ng && !strcmp(gpus[j], g->gpu_models[k]))
                continue;
            char **p = realloc(gpus, (ng + 1) * sizeof *p);
            if (!p) {
                free(gpus);
                free(rows);
                return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
            }
            gpus = p;
            memmove(gpus + j + 1, gpus + j, (ng - j) * sizeof *gpus);
            gpus[j] = g->gpu_models[k];
            ng++;
        }
        if (meeting >= 2)
            rows[nq++] = (cmp_row){gi, best, worst};
    }
    static const char *const what[] = {"LLM / MLLM", "text-to-image", "text-to-video"};
    if (nq == 0) {
        if (n_kind)
            rp_cmp_note(r, "GPU models at matched SLOs (%s): no (model, task) has runs on two or "
                           "more GPU models meeting its SLO, so there is nothing to compare.",
                        what[kind]);
        free(gpus);
        free(rows);
        return JL_OK;
    }
    qsort(rows, nq, sizeof *rows, cmp_rows);
    char *id = jl_asprintf("gpu-comparison-%s", kind_names[kind]);
    rp_figure *f = id ? rp_add_figure(r, RP_FIG_GPU_COMPARE, -1, id) : NULL;
    free(id);
    if (!f) {
        free(gpus);
        free(rows);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    const char *item = kind == RP_KIND_LLM ? "token" : kind == RP_KIND_IMAGE ? "image" : "video";
    f->title = jl_asprintf("GPU models at matched SLOs (%s)", what[kind]);
    f->caption = jl_asprintf(
        "Each row a (model, task) measured on two or more GPU models, sorted by the least "
        "energy: a dot per GPU model at the energy per %s of its minimum-energy configuration "
        "among runs meeting the group's SLO (log axis; a line joins the least and the most). "
        "Right: the GPU model needing the least energy and how much less it needs than the "
        "one needing the most (the paper's Fig. 6). Configurations: the .dat and report.json.",
        item);
    jl_strbuf dat, gp;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&gp);
    jl_strbuf_printf(&dat, "# %s\n# blocks (gnuplot index): the rows' ranges, then one per GPU model\n"
                           "# row energy_j_per_%s gpus batch model task slo\n",
                     f->title, item);
    /* block 0: per row the least and the most */
    for (size_t q = 0; q < nq; q++)
        jl_strbuf_printf(&dat, "%zu %.10g %.10g\n", q, rows[q].best, rows[q].worst);
    jl_strbuf_puts(&dat, "\n\n");
    json_t *pts = json_array();
    double lo = INFINITY, hi = -INFINITY;
    for (size_t j = 0; j < ng; j++) {
        jl_strbuf_printf(&dat, "# GPU model %s\n", gpus[j]);
        for (size_t q = 0; q < nq; q++) {
            rp_group *g = &r->groups[rows[q].group];
            long run = -1;
            for (size_t k = 0; k < g->n_gpu_models; k++)
                if (!strcmp(g->gpu_models[k], gpus[j]))
                    run = g->gpu_picks[k].run;
            if (run < 0)
                continue;
            const jl_summary *s = l->items[run];
            double e = s->fig[rp_energy_fig(s)];
            if (!isfinite(e) || e <= 0)
                continue;
            lo = fmin(lo, e);
            hi = fmax(hi, e);
            jl_strbuf_printf(&dat, "%zu %.10g %ld %ld ", q, e, s->attrs.num_gpus, s->attrs.max_batch_size);
            dat_str(&dat, g->model);
            jl_strbuf_puts(&dat, " ");
            dat_str(&dat, g->task);
            jl_strbuf_puts(&dat, " ");
            dat_str(&dat, g->slo_text);
            jl_strbuf_puts(&dat, "\n");
            json_t *rk = jl_run_key_to_json(s);
            json_object_set_new(rk, "energy", jl_json_number(e));
            json_object_set_new(rk, "energy_unit", json_string(rp_energy_unit(s)));
            json_object_set_new(rk, "row", json_integer((json_int_t)q));
            /* the sign of `joules compare`: negative = less energy; reduction_pct
             * (its opposite) kept for older readers */
            double change = (e / rows[q].worst - 1) * 100;
            json_object_set_new(rk, "energy_change_pct", jl_json_number(change != 0 ? change : 0));
            json_object_set_new(rk, "reduction_pct", jl_json_number(change != 0 ? -change : 0));
            json_object_set_new(rk, "slo", json_string(g->slo_text));
            json_array_append_new(pts, rk);
            f->n_points++;
        }
        jl_strbuf_puts(&dat, "\n\n");
    }
    /* row names (left) and the winner (right) */
    jl_strbuf yt, y2t, ytn;
    jl_strbuf_init(&yt);
    jl_strbuf_init(&y2t);
    jl_strbuf_init(&ytn); /* shorter names for the 3.3 in PDF */
    size_t maxlen = 0, maxlen2 = 0, maxlen_n = 0;
    json_t *rj = json_array();
    for (size_t q = 0; q < nq; q++) {
        rp_group *g = &r->groups[rows[q].group];
        char name[96], win[96];
        snprintf(name, sizeof name, "%.38s \xc2\xb7 %.18s", short_model(g->model), g->task ? g->task : "?");
        const char *wg = "?";
        for (size_t k = 0; k < g->n_gpu_models; k++) {
            long run = g->gpu_picks[k].run;
            if (run >= 0 && l->items[run]->fig[rp_energy_fig(l->items[run])] == rows[q].best)
                wg = g->gpu_models[k];
        }
        /* tic labels are formats to gnuplot: %% for a percent sign */
        snprintf(win, sizeof win, "%s \xe2\x88\x92%.0f%%%%", wg, (1 - rows[q].best / rows[q].worst) * 100);
        maxlen = strlen(name) > maxlen ? strlen(name) : maxlen;
        /* the model's start and end ("stable-d...5-medium"), the task when
         * the rows' tasks differ */
        char nname[64];
        const char *sm = short_model(g->model);
        size_t sl = strlen(sm);
        if (sl <= 20)
            snprintf(nname, sizeof nname, "%s", sm);
        else
            snprintf(nname, sizeof nname, "%.9s\xe2\x80\xa6%s", sm, sm + sl - 10);
        int tasks_differ = 0;
        for (size_t q2 = 0; q2 < nq; q2++)
            tasks_differ |= strcmp(r->groups[rows[q2].group].task ? r->groups[rows[q2].group].task : "",
                                   g->task ? g->task : "") != 0;
        if (tasks_differ)
            snprintf(nname + strlen(nname), sizeof nname - strlen(nname), " %.9s", g->task ? g->task : "?");
        maxlen_n = strlen(nname) > maxlen_n ? strlen(nname) : maxlen_n;
        jl_strbuf_puts(&ytn, q ? ", " : "");
        rp_gp_str(&ytn, nname);
        jl_strbuf_printf(&ytn, " %zu", q);
        maxlen2 = strlen(win) > maxlen2 ? strlen(win) : maxlen2;
        jl_strbuf_puts(&yt, q ? ", " : "");
        rp_gp_str(&yt, name);
        jl_strbuf_printf(&yt, " %zu", q);
        jl_strbuf_puts(&y2t, q ? ", " : "");
        rp_gp_str(&y2t, win);
        jl_strbuf_printf(&y2t, " %zu", q);
        json_array_append_new(rj, json_pack("{s:s?,s:s?,s:s,s:f,s:f,s:f}", "model", g->model, "task",
                                            g->task, "least_energy_gpu", wg, "least", rows[q].best,
                                            "most", rows[q].worst, "energy_change_pct",
                                            (rows[q].best / rows[q].worst - 1) * 100));
    }
    int h = 110 + 21 * (int)nq;
    rp_gp_header_sized(&gp, f->id, f->title,
                       "Minimum energy per GPU model at each group's SLO, one row per group, log axis.",
                       900, h, 0.9 + 0.16 * (double)nq, 0.9 + 0.15 * (double)nq);
    char *yts = jl_strbuf_take(&yt), *y2ts = jl_strbuf_take(&y2t), *ytns = jl_strbuf_take(&ytn);
    double l0 = log10(lo), l1 = log10(hi), span = l1 > l0 ? l1 - l0 : 1;
    jl_strbuf_printf(&gp,
                     "set xlabel \"energy per %s at the SLO (J), log scale\"\n"
                     "set logscale x\n"
                     "set xrange [%.6g:%.6g]\n"
                     "set yrange [%g:-0.7] reverse\n"
                     "set ytics (%s) scale 0\n"
                     "set y2range [%g:-0.7] reverse\n"
                     "set y2tics (%s) scale 0 textcolor rgb \"#333333\"\n"
                     "set grid xtics noytics\n"
                     "set bars 0\n"
                     "set border 1\n"
                     "set lmargin %zu\nset rmargin %zu\n"
                     "set key outside top center horizontal samplen 1\n",
                     item, pow(10, l0 - span * 0.06), pow(10, l1 + span * 0.06),
                     (double)nq - 0.3, yts ? yts : "", (double)nq - 0.3, y2ts ? y2ts : "",
                     maxlen + 2, maxlen2 + 2);
    log_tics(&gp, "x", pow(10, l0 - span * 0.06), pow(10, l1 + span * 0.06));
    /* 3.3 in: short names, no savings column (the dots show it), decade ticks */
    jl_strbuf_printf(&gp, "if (narrow) set ytics (%s) scale 0; set lmargin %zu; unset y2tics; "
                          "set rmargin 3; set xlabel \"energy per %s (J)\"; set xtics (",
                     ytns ? ytns : "", maxlen_n + 1, item);
    /* decades; 1-3 per decade when fewer than three decades show */
    double xa = pow(10, l0 - span * 0.06), xb = pow(10, l1 + span * 0.06);
    int firstd = 1, nd = 0;
    for (int k = (int)floor(log10(xa)); k <= (int)ceil(log10(xb)); k++)
        nd += pow(10, k) >= xa && pow(10, k) <= xb;
    for (int k = (int)floor(log10(xa)); k <= (int)ceil(log10(xb)); k++)
        for (int m = 1; m <= 3; m += 2) {
            double v = m * pow(10, k);
            if ((m == 1 || nd < 3) && v >= xa && v <= xb) {
                jl_strbuf_printf(&gp, "%s%.10g", firstd ? "" : ", ", v);
                firstd = 0;
            }
        }
    jl_strbuf_puts(&gp, ")\n");
    free(yts);
    free(y2ts);
    free(ytns);
    jl_strbuf_printf(&gp, "plot \"%s.dat\" index 0 using 2:1:2:3:1:1 with xyerrorbars pt 7 ps 0 lw 1.2 lc rgb \"#bbbbbb\" notitle",
                     f->id);
    for (size_t j = 0; j < ng; j++) {
        jl_strbuf_printf(&gp, ", \\\n     \"\" index %zu using 2:1 with points pt %d ps 1.3 lc rgb \"%s\" title ",
                         j + 1, point_types[j % (sizeof point_types / sizeof point_types[0])],
                         rp_palette[j % N_PALETTE]);
        rp_gp_str(&gp, gpus[j]);
    }
    jl_strbuf_puts(&gp, "\nunset output\n");
    json_t *gl = json_array();
    for (size_t j = 0; j < ng; j++)
        json_array_append_new(gl, json_string(gpus[j]));
    f->meta = json_pack("{s:s,s:s,s:o,s:o,s:o}", "kind", kind_names[kind], "energy_unit",
                        kind == RP_KIND_LLM ? "J/token" : kind == RP_KIND_IMAGE ? "J/image" : "J/video",
                        "gpu_models", gl, "rows", rj, "bars", pts);
    free(gpus);
    free(rows);
    jl_status st = rp_write_fig_files(r, f, &dat, &gp, err);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&gp);
    return st;
}

/* ---- task overview: every model of a task ---------------------------------------------- */

/* One figure per task: every model (group) of the task at its minimum-energy
 * configuration meeting the group's SLO (without one: its minimum-energy
 * run, an open marker), energy per response (LLM: energy per token x mean
 * output tokens; diffusion: per image or video) against latency, log axes,
 * colour by the GPU model of that configuration. The view of the ML.ENERGY
 * leaderboard and the paper's Fig. 1. */
static jl_status fig_overview(rp_report *r, const char *task, jl_error **err)
{
    const jl_summary_list *l = r->l;
    size_t n = 0;
    long *runs = jl_calloc_array(r->n_groups ? r->n_groups : 1, sizeof *runs);
    size_t *grp = jl_calloc_array(r->n_groups ? r->n_groups : 1, sizeof *grp);
    int *meets = jl_calloc_array(r->n_groups ? r->n_groups : 1, sizeof *meets);
    char **gpus = NULL;
    size_t ng = 0;
    jl_status st = JL_OK;
    if (!runs || !grp || !meets) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto out;
    }
    int diffusion = 0;
    for (size_t gi = 0; gi < r->n_groups; gi++) {
        rp_group *g = &r->groups[gi];
        if (!g->task || strcmp(g->task, task))
            continue;
        long run = g->pick.run;
        int m = run >= 0;
        if (run < 0) { /* the minimum-energy run */
            double best = INFINITY;
            for (size_t k = 0; k < g->n_runs; k++) {
                const jl_summary *s = l->items[g->runs[k]];
                double e = s->fig[rp_energy_fig(s)];
                if (isfinite(e) && e < best) {
                    best = e;
                    run = (long)g->runs[k];
                }
            }
        }
        if (run < 0)
            continue;
        const jl_summary *s = l->items[run];
        diffusion = jl_attrs_is_diffusion(&s->attrs);
        double e = diffusion ? s->fig[rp_energy_fig(s)] : s->fig[JL_FIG_ENERGY_PER_REQUEST_J];
        if (!isfinite(e) || e <= 0 || !isfinite(s->fig[rp_latency_fig(s)]))
            continue;
        runs[n] = run;
        grp[n] = gi;
        meets[n] = m;
        n++;
        const char *gm = gpu_label(s->attrs.gpu_model);
        size_t j = 0;
        while (j < ng && strcmp(gpus[j], gm))
            j++;
        if (j == ng) {
            char **p = realloc(gpus, (ng + 1) * sizeof *p);
            if (!p) {
                st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
                goto out;
            }
            gpus = p;
            gpus[ng++] = (char *)gm;
        }
    }
    if (n < 2)
        goto out; /* one model: its section says it all */
    const jl_summary *s0 = l->items[runs[0]];
    double lscale = diffusion ? 1 : 1000;
    char *id = jl_asprintf("overview-%s", task);
    for (char *c = id; c && *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
            *c = '-';
    rp_figure *f = id ? rp_add_figure(r, RP_FIG_OVERVIEW, -1, id) : NULL;
    free(id);
    if (!f) {
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        goto out;
    }
    const char *resp = diffusion ? rp_item(s0) : "response";
    f->title = jl_asprintf("Every model of %s at its minimum-energy configuration", task);
    f->caption = jl_asprintf(
        "Each point one model on task %s: its minimum-energy configuration meeting the group's "
        "SLO (open marker: no run meets it; its minimum-energy run instead), energy per %s%s "
        "against %s, log axes, colour by GPU model. Labels: the model, where they fit (every "
        "point is named in the .dat). The view of the ML.ENERGY leaderboard and the paper's "
        "Fig. 1.",
        task, resp, diffusion ? "" : " (energy per token x mean output tokens)",
        diffusion ? "batch latency" : "median inter-token latency");
    jl_strbuf dat, gp;
    jl_strbuf_init(&dat);
    jl_strbuf_init(&gp);
    jl_strbuf_printf(&dat, "# %s\n# blocks (gnuplot index): one per GPU model\n"
                           "# latency_%s energy_j_per_%s meets_slo, labels right-up right-down left-up left-down (wide), the same (3.3 in PDF), model config\n",
                     f->title, diffusion ? "s" : "ms", resp);
    double *xs = jl_calloc_array(n, sizeof *xs), *ys = jl_calloc_array(n, sizeof *ys);
    rp_placer pl[2] = {{0}};
    for (size_t i = 0; xs && ys && i < n; i++) {
        const jl_summary *s = l->items[runs[i]];
        xs[i] = s->fig[rp_latency_fig(s)] * lscale;
        ys[i] = diffusion ? s->fig[rp_energy_fig(s)] : s->fig[JL_FIG_ENERGY_PER_REQUEST_J];
    }
    if (xs && ys)
        placers_init(pl, 1, 1, xs, ys, n, 0.08, 0.08, 0.08, 0.08);
    json_t *pts = json_array();
    for (size_t j = 0; j < ng; j++) {
        jl_strbuf_printf(&dat, "# GPU model %s\n", gpus[j]);
        for (size_t i = 0; xs && ys && i < n; i++) {
            const jl_summary *s = l->items[runs[i]];
            if (strcmp(gpu_label(s->attrs.gpu_model), gpus[j]))
                continue;
            const char *name = short_model(r->groups[grp[i]].model);
            char lab[40];
            snprintf(lab, sizeof lab, "%.38s", name);
            int pos[2] = {place_label_always(&pl[0], xs[i], ys[i], strlen(lab)),
                          place_label_always(&pl[1], xs[i], ys[i], strlen(lab))};
            char *cfg = rp_config_label(s);
            jl_strbuf_printf(&dat, "%.10g %.10g %d", xs[i], ys[i], meets[i]);
            dat_labels(&dat, pos, lab);
            jl_strbuf_puts(&dat, " ");
            dat_str(&dat, r->groups[grp[i]].model);
            jl_strbuf_puts(&dat, " ");
            dat_str(&dat, cfg ? cfg : "?");
            jl_strbuf_puts(&dat, "\n");
            free(cfg);
            json_t *rk = jl_run_key_to_json(s);
            json_object_set_new(rk, "meets_slo", json_boolean(meets[i]));
            json_object_set_new(rk, "slo", json_string(r->groups[grp[i]].slo_text));
            json_array_append_new(pts, rk);
            f->n_points++;
        }
        jl_strbuf_puts(&dat, "\n\n");
    }
    free(xs);
    free(ys);
    free(pl[0].boxes);
    free(pl[1].boxes);
    rp_gp_header(&gp, f->id, f->title, "Every model of the task at its pick: energy per response against latency, log axes.", 0);
    jl_strbuf_printf(&gp,
                     "set xlabel \"%s, log scale\"\nset ylabel \"energy per %s (J), log scale\"\n"
                     "set logscale xy\n"
                     "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n"
                     "set key outside top center horizontal samplen 1\n",
                     diffusion ? "batch latency (s)" : "median inter-token latency (ms)", resp,
                     pl[0].xlo, pl[0].xhi, pl[0].ylo, pl[0].yhi);
    log_tics(&gp, "x", pl[0].xlo, pl[0].xhi);
    log_tics(&gp, "y", pl[0].ylo, pl[0].yhi);
    label_columns(&gp, 4);
    jl_strbuf_puts(&gp, "plot ");
    for (size_t j = 0; j < ng; j++) {
        const char *col = rp_palette[j % N_PALETTE];
        int pt = point_types[j % (sizeof point_types / sizeof point_types[0])];
        jl_strbuf_printf(&gp, "%s\"%s.dat\" index %zu using 1:($3 != 0 ? $2 : NaN) with points pt %d ps 1.4 lc rgb \"%s\" title ",
                         j ? ", \\\n     " : "", f->id, j, pt, col);
        rp_gp_str(&gp, gpus[j]);
        jl_strbuf_printf(&gp, ", \\\n     \"\" index %zu using 1:($3 != 0 ? NaN : $2) with points pt %d ps 1.4 lc rgb \"%s\" notitle",
                         j, pt - 1, col);
        char src[32];
        snprintf(src, sizeof src, "\"\" index %zu", j);
        plot_label_layers(&gp, src, "#333333");
    }
    jl_strbuf_puts(&gp, "\nunset output\n");
    f->meta = json_pack("{s:s,s:s,s:s,s:o}", "task", task, "energy_unit",
                        diffusion ? rp_energy_unit(s0) : "J/response", "latency_unit",
                        diffusion ? "s" : "ms", "points", pts);
    st = rp_write_fig_files(r, f, &dat, &gp, err);
    jl_strbuf_free(&dat);
    jl_strbuf_free(&gp);
out:
    free(runs);
    free(grp);
    free(meets);
    free(gpus);
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
            rp_item(s0), diffusion ? "batch latency" : "median ITL",
            l->items[pr[starts[ref]].run]->attrs.precision, desc);
        long *batches = jl_calloc_array(j - i, sizeof *batches);
        size_t nbt = 0;
        for (size_t k = i; batches && k < j; k++)
            batches[nbt++] = l->items[pr[k].run]->attrs.max_batch_size;
        if (batches)
            qsort(batches, nbt, sizeof *batches, cmp_long);
        rp_gp_header(&gp, f->id, f->title, "Energy and latency per precision against batch size; crossovers dashed.", 1);
        jl_strbuf_puts(&gp, "set multiplot layout 1,2\nset logscale x 2\n");
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
            /* energy falls and latency rises with batch: keep the key off the curves */
            jl_strbuf_puts(&gp, panel ? "unset arrow\nset key top left\n" : "unset arrow\nset key top right\n");
            for (size_t q = 0; q < ncx; q++)
                jl_strbuf_printf(&gp, "set arrow %zu from %.6g, graph 0 to %.6g, graph 1 nohead dt 2 lw 1.5 lc rgb \"#444444\"\n",
                                 q + 1, cx[q], cx[q]);
            if (panel == 0 && energy_wide)
                jl_strbuf_puts(&gp, "set logscale y\nset autoscale yfix\nset format y \"%g\"\n"
                                    "set ytics (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)\n");
            else
                jl_strbuf_puts(&gp, "unset logscale y\nset autoscale y\nset ytics autofreq\nset format y \"%g\"\nset yrange [0:*]\n");
            if (panel == 0)
                jl_strbuf_printf(&gp, "set ylabel \"energy per %s (J)\"\n", rp_item(s0));
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
    if (!st && !drawn)
        rp_cmp_note(r, "Precision against batch size (the paper's Fig. 7): no model was measured "
                       "in two precisions on the same GPU model and count, so there is nothing "
                       "to compare.");
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
            size_t ns = rp_split_curves(r->l, fr, &ser);
            for (size_t c = 0; !st && c < ns; c++)
                st = fig_trends(r, (long)gi, &ser[c].cv, ser[c].variant, err);
            rp_series_free(ser, ns);
        }
    }
    if (r->opt.progress)
        r->opt.progress(r->opt.progress_ctx, "time series", r->n_groups, r->n_groups, "");
    for (int k = 0; !st && k < RP_KIND_COUNT; k++)
        st = fig_gpu_compare(r, (rp_kind)k, err);
    /* task overviews, tasks in group order */
    for (size_t gi = 0; !st && gi < r->n_groups; gi++) {
        const char *task = r->groups[gi].task;
        int seen = !task;
        for (size_t k = 0; !seen && k < gi; k++)
            seen = r->groups[k].task && !strcmp(r->groups[k].task, task);
        if (!seen)
            st = fig_overview(r, task, err);
    }
    if (!st)
        st = fig_precision(r, err);
    return st;
}

