/* Internal helpers of src/choice/. Not public API. */
#ifndef JOULES_CHOICE_INTERNAL_H
#define JOULES_CHOICE_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "joules/choice.h"
#include "output/document_internal.h"

/* The energy figure minimised for run s (opt may be NULL). */
int jl__energy_figure(const jl_pick_options *opt, const jl_summary *s);
/* The workload's default latency: median ITL (llm, mllm), batch latency. */
double jl__latency_of(const jl_summary *s);
/* a and b equal within relative tolerance tol. */
int jl__ties(double a, double b, double tol);

/* Median, min and max of v[0..n) (reorders v). NaN when n == 0. */
void jl__stats(double *v, size_t n, double *median, double *min, double *max);

/* The pick of a group as JSON fields added to o: status, feasible, choice,
 * closest, conditions, energy_figure, energy, worst_miss_rel, ties, n_runs,
 * n_feasible, n_missing. */
/* The members of a pick (jl_pick_document's "status" ... "n_missing")
 * written into the object open now; jl__pick_json: as an object. */
void jl__pick_write(jl__jw *w, const jl_pick *p, const jl_slo *slo, const jl_summary_list *l);
json_t *jl__pick_json(const jl_pick *p, const jl_slo *slo, const jl_summary_list *l);

#endif
