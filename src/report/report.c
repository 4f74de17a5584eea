/* joules report, the orchestration: the order in which the directory is
 * built (jl_report_write), calling the parts (sections.h: the analysis,
 * the data/ documents, the model section, the figures and their drawing,
 * the pages, the notebooks), which stand on the kits (report_internal.h).
 * Nothing below calls back up here. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "joules/choice.h"
#include "joules/descriptors.h"
#include "joules/frontier.h"
#include "joules/output.h"
#include "report/knobs.h"
#include "report/report_internal.h"
#include "report/sections.h"

void jl_report_options_default(jl_report_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->max_plot_points = 1200;
}

void jl_report_result_clear(jl_report_result *res)
{
    if (!res)
        return;
    for (size_t i = 0; i < res->n_notes; i++)
        free(res->notes[i]);
    free(res->notes);
    memset(res, 0, sizeof *res);
}

/* ---- the whole report -------------------------------------------------------------- */

static void report_free(jl__report_report *r)
{
    for (size_t i = 0; i < r->n_groups; i++) {
        jl__report_group *g = &r->groups[i];
        free(g->runs);
        free(g->slo_text);
        for (size_t k = 0; k < g->n_gpu_models; k++)
            free(g->gpu_models[k]);
        free(g->gpu_models);
        free(g->gpu_picks);
        free(g->gpu_set_picks);
        free(g->figure_note);
        free(g->slug);
        for (size_t k = 0; k < g->n_findings; k++)
            free(g->findings[k]);
        free(g->findings);
    }
    free(r->groups);
    for (size_t i = 0; i < r->n_figs; i++)
        jl__report_figure_free(&r->figs[i]);
    free(r->figs);
    for (size_t i = 0; i < r->n_data; i++) {
        free(r->data[i].path);
        free(r->data[i].what);
        free(r->data[i].cmd);
    }
    free(r->data);
    for (size_t i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    free(r->gnuplot_version);
    json_decref(r->check_doc);
    jl__report_model_free(r);
    free(r->gpu_classes);
    free(r->prec_classes);
    jl_frontier_set_free(r->fs);
    for (int k = 0; k < RP_KIND_COUNT; k++)
        for (int j = 0; j < RP_SET_MAX; j++)
            jl_slo_free(r->slo_sets[k][j]);
    for (size_t i = 0; i < r->n_cmp_notes; i++)
        free(r->cmp_notes[i]);
    free(r->cmp_notes);
    free(r->budgets_html);
    free(r->span_budget_lines);
    free(r->root);
}

/* A previous report (data/report.json inside) or an empty directory. */
static int looks_like_report(const char *dir, const struct stat *sb)
{
    if (!S_ISDIR(sb->st_mode))
        return 0;
    char *marker = jl__asprintf("%s/data/report.json", dir);
    int ok = marker && access(marker, F_OK) == 0;
    free(marker);
    if (ok)
        return 1;
    /* one written with --no-data or --single-page: its page says so */
    char *page = jl__asprintf("%s/index.html", dir);
    char *text = page ? jl__report_read_file(page) : NULL;
    ok = text && strstr(text, "<meta name=\"generator\" content=\"joules report\">") != NULL;
    free(page);
    free(text);
    if (ok)
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            empty = 0;
    closedir(d);
    return empty;
}

jl_status jl_report_write(const char *dir, const jl_summary_list *runs, const jl_error_list *errors,
                          const jl_report_options *opt, jl_report_result *res, jl_error **err)
{
    jl__report_report r;
    memset(&r, 0, sizeof r);
    if (res)
        memset(res, 0, sizeof *res);
    r.l = runs;
    r.errors = errors;
    if (opt)
        r.opt = *opt;
    else
        jl_report_options_default(&r.opt);
    if (!r.opt.max_plot_points)
        r.opt.max_plot_points = 1200;
    if (r.opt.single_page)
        r.opt.no_data = 1;
    if (r.opt.rules)
        r.rules = *r.opt.rules;
    else
        jl_ruleset_default(&r.rules);

    struct stat sb;
    if (!r.opt.replace && lstat(dir, &sb) == 0)
        return jl_fail(err, JL_EUSAGE, dir, NULL, NULL, -1,
                       "already exists (use --force to replace it)");
    /* --force replaces only what joules wrote: a directory holding a
     * previous report (data/report.json), or an empty one. Anything else
     * could be a user's own folder, and replacing it would lose data. */
    if (r.opt.replace && lstat(dir, &sb) == 0 && !looks_like_report(dir, &sb))
        return jl_fail(
            err, JL_EUSAGE, dir, NULL, NULL, -1,
            "exists and is not a joules report (no data/report.json): not replacing it, even with --force");
    jl_status st = JL_OK;
    /* the paper's SLO sets (JL_REPORT_DEFAULT_SLO_* are their middle ones) */
    static const char *const sets[RP_KIND_COUNT][RP_SET_MAX] = {JL_REPORT_SLO_SET_LLM,
                                                                JL_REPORT_SLO_SET_IMAGE,
                                                                JL_REPORT_SLO_SET_VIDEO};
    for (int k = 0; !st && k < RP_KIND_COUNT; k++)
        for (int j = 0; !st && j < RP_SET_MAX; j++)
            st = jl_slo_parse(sets[k][j], &r.slo_sets[k][j], NULL, err);
    if (!st)
        st = jl_atomic_dir_open(dir, &r.root, err);
    if (st) {
        report_free(&r);
        return st;
    }
    /* the steps, each announced to the progress callback (a line per step
     * off a terminal, so no step is silent for long) */
    enum { N_STEPS = 9 };
    size_t step = 0;
#define RP_STEP(name)                                                            \
    do {                                                                         \
        if (!st && r.opt.progress)                                               \
            r.opt.progress(r.opt.progress_ctx, "analysis", step, N_STEPS, name); \
        step++;                                                                  \
    } while (0)
    if (!st)
        st = jl__report_mkdir(&r, "data", err);
    if (!st)
        st = jl__report_mkdir(&r, "data/timeseries", err);
    if (!st)
        st = jl__report_mkdir(&r, "figures", err);
    if (!st)
        st = jl__report_mkdir(&r, "notebooks-export", err);
    RP_STEP("frontiers");
    if (!st)
        st = jl_frontier_compute(runs, NULL, &r.fs, err);
    RP_STEP("groups and picks");
    if (!st)
        st = jl__report_build_groups(&r, err);
    RP_STEP("model fits and diagnosis");
    if (!st)
        st = jl__report_model_compute(&r, err);
    RP_STEP("data documents");
    if (!st)
        st = jl__report_write_documents(&r, err);
    if (!st)
        st = jl__report_model_write_documents(&r, err);
    if (!st)
        st = jl__report_write_answers_csv(&r, err);
    if (!st)
        st = jl__report_attribution_write(&r, err);
    if (!st)
        st = jl__report_budgets_write(&r, err);
    RP_STEP("figure scripts");
    if (!st)
        st = jl__report_figures_plan_and_write(&r, err);
    if (!st)
        st = jl__report_model_figures(&r, err);
    RP_STEP("drawing");
    if (!st)
        st = jl__report_figures_render(&r, err);
    RP_STEP("report.json and notebooks");
    if (!st) {
        json_t *doc = jl__report_report_document(&r);
        st = jl__report_write_json(&r, "data/report.json", doc, err);
        json_decref(doc);
        jl__report_add_data(&r, "data/report.json",
                            "joules.report/1: SLOs, picks, findings and the figures of this report",
                            NULL);
    }
    if (!st)
        st = jl__report_notebooks_write(&r, err);
    RP_STEP("pages");
    if (!st)
        st = jl__report_html_write(&r, err);
    /* --no-data, --single-page: what the page does not link is not kept */
    static const char *const no_data[] = {"data", "notebooks-export"};
    static const char *const single[] = {"figures", "runs.html", "diagnosis.html"};
    for (size_t i = 0; !st && r.opt.no_data && i < 2; i++) {
        char *p = jl__report_path(&r, no_data[i]);
        st = p ? jl_remove_tree(p, err)
               : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        free(p);
    }
    for (size_t i = 0; !st && r.opt.single_page && i < 3; i++) {
        char *p = jl__report_path(&r, single[i]);
        st = p ? jl_remove_tree(p, err)
               : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        free(p);
    }
    RP_STEP("done");
#undef RP_STEP
    if (!st) {
        st = jl_atomic_dir_commit(r.root, dir, r.opt.replace, err);
    } else {
        jl_atomic_dir_abort(r.root);
    }
    if (res) {
        res->n_groups = r.n_groups;
        res->n_figures = r.n_figs;
        for (size_t i = 0; i < r.n_figs; i++)
            res->n_figures_drawn += r.figs[i].drawn;
        res->figures_s = r.figures_s;
        res->n_data_files = r.opt.no_data ? 0 : r.n_data;
        res->notes = r.notes;
        res->n_notes = r.n_notes;
        r.notes = NULL;
        r.n_notes = 0;
    }
    report_free(&r);
    return st;
}
