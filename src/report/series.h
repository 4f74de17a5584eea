/* Curves split by every knob that changes the configuration (series.c):
 * one jl_frontier curve (GPU model, count, precision) becomes one series
 * per distinct (tensor/expert/data parallel, Ulysses/ring degrees,
 * denoising steps, resolution, frames); `variant` names the knobs that
 * differ within the curve ("ulysses 2, ring 1"), NULL when none does.
 * Used by the findings (report.c), the figures and the page. */
#ifndef JOULES_REPORT_SERIES_H
#define JOULES_REPORT_SERIES_H

#include "joules/frontier.h"
#include "report/report_internal.h"

typedef struct rp_series {
    jl_curve cv;      /* points owned, names borrowed */
    char *variant;
} rp_series;

size_t rp_split_curves(const jl_summary_list *l, const jl_frontier *fr, rp_series **out);
void rp_series_free(rp_series *s, size_t n);

#endif
