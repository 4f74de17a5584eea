/* The parts of a report, as the orchestration (report.c) calls them, in
 * the order it does: the analysis (groups.c), the batch-size model's fits
 * and diagnosis (model_section.c), the data/ documents (documents.c), the
 * figures' scripts and data (figures.c) and their drawing (render.c), the
 * pages (html.c), the notebooks (notebooks.c).
 * Each stands on the report kit (report_internal.h) and none calls another
 * or report.c, so the calls run one way: kit <- parts <- report.c. */
#ifndef JOULES_REPORT_SECTIONS_H
#define JOULES_REPORT_SECTIONS_H

#include "report/report_internal.h"

/* groups.c: the groups (model, task), their SLO sets, picks,
 * representative runs and findings. */
jl_status jl__report_build_groups(jl__report_report *r, jl_error **err);

/* documents.c: the JSON and CSV documents of data/ as the commands print them, and
 * data/answers.csv; report.json's document (joules.report/1). */
jl_status jl__report_write_documents(jl__report_report *r, jl_error **err);
jl_status jl__report_write_answers_csv(jl__report_report *r, jl_error **err);
json_t *jl__report_report_document(jl__report_report *r);

/* model_section.c: fits and diagnosis (a failure becomes a note), their
 * documents (data/fit.json, data/fit-curves.csv, data/diagnose.json), one
 * figure per fitted group. */
jl_status jl__report_model_compute(jl__report_report *r, jl_error **err);
jl_status jl__report_model_write_documents(jl__report_report *r, jl_error **err);
jl_status jl__report_model_figures(jl__report_report *r, jl_error **err);
void jl__report_model_free(jl__report_report *r);

/* figures.c: every figure's .dat and .gp, in page order. */
jl_status jl__report_figures_plan_and_write(jl__report_report *r, jl_error **err);

/* render.c: run gnuplot on every planned figure, opt.workers processes at
 * once, each fed a batch of scripts; failures become notes. */
jl_status jl__report_figures_render(jl__report_report *r, jl_error **err);

/* attribution_section.c: attribution.html and data/attribution-<run>.json for
 * the runs whose traces hold spans/ (none: nothing written). */
jl_status jl__report_attribution_write(jl__report_report *r, jl_error **err);

/* budgets_section.c: with opt.budgets, data/budget.json and the budgets
 * section's HTML (r->budgets_html) for the page. */
jl_status jl__report_budgets_write(jl__report_report *r, jl_error **err);

/* html.c: index.html, runs.html, diagnosis.html (not with --single-page). */
jl_status jl__report_html_write(jl__report_report *r, jl_error **err);
/* pack.c: the page as opt.no_data and opt.single_page ask (links to what is
 * not written become their text; figures inside the page); a no-op
 * otherwise. */
jl_status jl__report_pack_page(jl__report_report *r, jl__strbuf *page, jl_error **err);

/* notebooks.c: notebooks-export/, the notebooks redrawing every figure. */
jl_status jl__report_notebooks_write(jl__report_report *r, jl_error **err);

#endif
