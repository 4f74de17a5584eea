/* Curves split by every knob that changes the configuration (knobs.c):
 * one jl_frontier curve (GPU model, count, precision) becomes one series
 * per distinct (tensor/expert/data parallel, Ulysses/ring degrees,
 * denoising steps, resolution, frames); `variant` names the knobs that
 * differ within the curve ("ulysses 2, ring 1"), NULL when none does.
 * Used by the findings (report.c), the figures and the page. */
#ifndef JOULES_REPORT_KNOBS_H
#define JOULES_REPORT_KNOBS_H

#include "core/util.h"
#include "joules/frontier.h"

typedef struct jl__report_series {
    jl_curve cv; /* points owned, names borrowed */
    char *variant;
} jl__report_series;

/* The knobs beyond GPU, count, precision and batch that a run sets:
 * parallel degrees above 1 and denoising steps ("TP 2", "ulysses 2, ring 1,
 * 50 steps"); "" when none. */
void jl__report_knobs_text(const jl_summary *s, char *buf, size_t cap);

size_t jl__report_split_curves(const jl_summary_list *l, const jl_frontier *fr,
                               jl__report_series **out);
void jl__report_series_free(jl__report_series *s, size_t n);

#endif
