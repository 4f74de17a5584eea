/* The figure builders (fig_*.c), each writing one kind of figure's .dat and
 * .gp and registering it (jl__report_add_figure); figures.c calls them in page
 * order. A figure that cannot be drawn is dropped and its group (or the
 * comparisons section) says why in one line. What each shows:
 * docs/report.md, "The figures". */
#ifndef JOULES_REPORT_FIGURES_H
#define JOULES_REPORT_FIGURES_H

#include "report/plot.h"

struct jl_curve;

/* Power over time of group gi's representative run (fig_power.c). */
jl_status jl__report_fig_power(jl__report_report *r, long gi, jl_error **err);
/* The time-energy frontier of group gi (fig_frontier.c). */
jl_status jl__report_fig_frontier(jl__report_report *r, long gi, jl_error **err);
/* Batch-size trends of one curve of group gi; variant names the knobs that
 * set it apart, or NULL (fig_trends.c). */
jl_status jl__report_fig_trends(jl__report_report *r, long gi, const struct jl_curve *cv,
                                const char *variant, jl_error **err);
/* GPU models at matched SLOs, one figure per kind of work (fig_gpus.c). */
jl_status jl__report_fig_gpu_compare(jl__report_report *r, jl__report_kind kind, jl_error **err);
/* Every model of a task at its pick (fig_overview.c). */
jl_status jl__report_fig_overview(jl__report_report *r, const char *task, jl_error **err);
/* Precisions against batch size, every (model, GPU, count) measured in two
 * or more precisions (fig_precision.c). */
jl_status jl__report_fig_precision(jl__report_report *r, jl_error **err);

#endif
