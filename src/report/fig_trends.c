/* Figure: batch-size trends of one curve (paper Fig. 4; docs/report.md). */
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

jl_status jl__report_fig_trends(jl__report_report *r, long gi, const jl_curve *cv,
                                const char *variant, jl_error **err)
{
    jl__report_group *g = &r->groups[gi];
    const jl_summary_list *l = r->l;
    if (cv->n_points < 2 || cv->points[0].batch == cv->points[cv->n_points - 1].batch)
        return JL_OK;
    const jl_summary *s0 = l->items[cv->points[0].run];
    int diffusion = jl_attrs_is_diffusion(&s0->attrs);
    int fe = jl__report_energy_fig(s0), ft = jl__report_throughput_fig(s0),
        fl = jl__report_latency_fig(s0);
    char *id =
        jl__asprintf("trends-%s-%s-x%ld-%s%s%s", g->slug, jl__report_gpu_label(cv->gpu_model),
                     cv->num_gpus, cv->precision ? cv->precision : "na", variant ? "-" : "",
                     variant ? variant : "");
    if (id) {
        /* file-name safe, no runs of dashes */
        size_t o = 0;
        for (size_t i = 0; id[i]; i++) {
            char ch = id[i];
            int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                     (ch >= '0' && ch <= '9') || ch == '.';
            if (!ok && o && id[o - 1] == '-')
                continue;
            id[o++] = ok ? ch : '-';
        }
        id[o] = 0;
    }
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_TRENDS, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    f->title =
        jl__asprintf("Batch size trends: %s, %s on %s x%ld (%s%s%s)", g->model ? g->model : "?",
                     g->task ? g->task : "?", jl__report_gpu_label(cv->gpu_model), cv->num_gpus,
                     cv->precision ? cv->precision : "?", variant ? ", " : "",
                     variant ? variant : "");
    double me = curve_max(l, cv, fe), mt = curve_max(l, cv, ft), ml = curve_max(l, cv, fl);
    double tdp = jl__report_tdp_w(r, s0);
    double mp = NAN;
    for (size_t i = 0; i < cv->n_points; i++) {
        const jl_summary *s = l->items[cv->points[i].run];
        double p =
            s->fig[JL_FIG_AVG_POWER_W] / (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
        if (isfinite(p) && (!isfinite(mp) || p > mp))
            mp = p;
    }
    int power_of_tdp = isfinite(tdp) && tdp > 0;
    f->caption = jl__asprintf(
        "Energy per %s, throughput, %s and power against the batch-size cap, each as %% of its "
        "largest value on this configuration; power as %% of the GPU's power limit%s (the "
        "paper's Fig. 4). Maxima: %s.",
        jl__report_item(s0), diffusion ? "batch latency" : "median ITL",
        power_of_tdp ? "" : " (unknown here: % of its maximum instead)", "see the .dat header");
    jl__strbuf dat, gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&gp);
    jl__report_comment_line(&dat, "%s", f->title);
    jl__strbuf_printf(
        &dat,
        "# maxima: %s %.10g %s, %s %.10g %s, %s %.10g %s; power limit %.10g W per GPU\n"
        "# batch energy energy_pct throughput throughput_pct latency latency_pct power_per_gpu_w power_pct\n",
        jl_figure_name((jl_figure)fe), me, jl_figure_unit((jl_figure)fe),
        jl_figure_name((jl_figure)ft), mt, jl_figure_unit((jl_figure)ft),
        jl_figure_name((jl_figure)fl), ml, jl_figure_unit((jl_figure)fl), tdp);
    long *batches = jl__calloc_array(cv->n_points, sizeof *batches);
    json_t *runs = json_array();
    for (size_t i = 0; i < cv->n_points; i++) {
        const jl_summary *s = l->items[cv->points[i].run];
        double e = s->fig[fe], t = s->fig[ft], la = s->fig[fl];
        double p =
            s->fig[JL_FIG_AVG_POWER_W] / (double)(s->attrs.num_gpus > 0 ? s->attrs.num_gpus : 1);
        if (batches)
            batches[i] = cv->points[i].batch;
        jl__strbuf_printf(&dat, "%ld", cv->points[i].batch);
        jl__report_dat_num(&dat, e);
        jl__report_dat_num(&dat, e / me * 100);
        jl__report_dat_num(&dat, t);
        jl__report_dat_num(&dat, t / mt * 100);
        jl__report_dat_num(&dat, la);
        jl__report_dat_num(&dat, la / ml * 100);
        jl__report_dat_num(&dat, p);
        jl__report_dat_num(&dat, power_of_tdp ? p / tdp * 100 : p / mp * 100);
        jl__strbuf_puts(&dat, "\n");
        json_array_append_new(runs, jl_run_key_to_json(s));
        f->n_points++;
    }
    jl__report_gp_header(
        &gp, f->id, f->title,
        "Energy, throughput, latency as % of their maximum and power as % of the power limit, against batch size.",
        0);
    jl__strbuf_puts(&gp, "set logscale x 2\n");
    if (batches)
        jl__report_batch_xtics(&gp, batches, cv->n_points, 1);
    free(batches);
    jl__strbuf_printf(&gp, "set xlabel \"batch size (max_batch_size)\"\n"
                           "set ylabel \"%% of maximum (power: the key)\"\n"
                           "if (narrow) set ylabel \"%% of maximum\"\n"
                           "set yrange [0:110]\n"
                           "set ytics 0,20,100\n"
                           "set key outside bottom center horizontal maxcols 2 samplen 2\n"
                           "set offsets graph 0.03, graph 0.03, 0, 0\n");
    char thr_title[64];
    snprintf(thr_title, sizeof thr_title, "throughput (%s)", jl__report_throughput_unit(s0));
    jl__strbuf_printf(
        &gp,
        "# the 3.3 in PDF: short key entries (the caption gives the units)\n"
        "plot \"%s.dat\" using 1:3 with linespoints pt 7 ps 1.1 lw 2 lc rgb \"%s\" title (narrow ? \"energy\" : \"energy per %s\"), \\\n"
        "     \"\" using 1:5 with linespoints pt 5 ps 1.0 lw 2 lc rgb \"%s\" title (narrow ? \"throughput\" : \"%s\"), \\\n"
        "     \"\" using 1:7 with linespoints pt 9 ps 1.2 lw 2 lc rgb \"%s\" title (narrow ? \"latency\" : \"%s\"), \\\n"
        "     \"\" using 1:9 with linespoints pt 13 ps 1.2 lw 2 lc rgb \"%s\" title (narrow ? \"power\" : \"%s\")\n"
        "unset output\n",
        f->id, jl__report_palette[0], jl__report_item(s0), jl__report_palette[2], thr_title,
        jl__report_palette[1], diffusion ? "batch latency" : "median ITL", jl__report_palette[3],
        power_of_tdp ? "power (% of limit)" : "power (% of max)");
    f->meta =
        json_pack("{s:s?,s:I,s:s?,s:s,s:s,s:s,s:o,s:b,s:o}", "gpu_model", cv->gpu_model, "num_gpus",
                  (json_int_t)cv->num_gpus, "precision", cv->precision, "energy_figure",
                  jl_figure_name((jl_figure)fe), "throughput_figure", jl_figure_name((jl_figure)ft),
                  "latency_figure", jl_figure_name((jl_figure)fl), "power_limit_w",
                  jl_json_number(tdp), "power_of_limit", power_of_tdp, "runs", runs);
    jl_status st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&gp);
    return st;
}
