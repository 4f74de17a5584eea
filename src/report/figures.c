/* The report's figures, planned: which figures a report has, in page
 * order. For each, a data file (ID.dat) and a gnuplot script (ID.gp) in
 * figures/, written by its builder (figures.h: fig_power.c, fig_frontier.c,
 * fig_trends.c, fig_gpus.c, fig_overview.c, fig_precision.c; the model's
 * figures: model_section.c) with the gnuplot kit (plot.h). gnuplot draws
 * them afterwards (render.c), in figures/, so a script refers to its data
 * by a relative name and a user can re-run `gnuplot ID.gp` there.
 *
 * What each figure shows and how it is computed: docs/report.md. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "report/figures.h"
#include "report/knobs.h"
#include "report/sections.h"

jl_status jl__report_figures_plan_and_write(jl__report_report *r, jl_error **err)
{
    jl_status st = JL_OK;
    for (size_t gi = 0; gi < r->n_groups && !st; gi++) {
        if (r->opt.progress)
            r->opt.progress(r->opt.progress_ctx, "time series", gi, r->n_groups,
                            r->groups[gi].slug);
        st = jl__report_fig_power(r, (long)gi, err);
        if (!st)
            st = jl__report_fig_frontier(r, (long)gi, err);
        const jl_frontier *fr = r->groups[gi].frontier;
        if (fr && !st) {
            jl__report_series *ser = NULL;
            size_t ns = jl__report_split_curves(r->l, fr, &ser);
            for (size_t c = 0; !st && c < ns; c++)
                st = jl__report_fig_trends(r, (long)gi, &ser[c].cv, ser[c].variant, err);
            jl__report_series_free(ser, ns);
        }
    }
    if (r->opt.progress)
        r->opt.progress(r->opt.progress_ctx, "time series", r->n_groups, r->n_groups, "");
    for (int k = 0; !st && k < RP_KIND_COUNT; k++)
        st = jl__report_fig_gpu_compare(r, (jl__report_kind)k, err);
    /* task overviews, tasks in group order */
    for (size_t gi = 0; !st && gi < r->n_groups; gi++) {
        const char *task = r->groups[gi].task;
        int seen = !task;
        for (size_t k = 0; !seen && k < gi; k++)
            seen = r->groups[k].task && !strcmp(r->groups[k].task, task);
        if (!seen)
            st = jl__report_fig_overview(r, task, err);
    }
    if (!st)
        st = jl__report_fig_precision(r, err);
    return st;
}
