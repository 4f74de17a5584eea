/* joules fit — the batch-size model per group, its intervals and residuals,
 * predicted curves, and the leave-one-out accuracy (docs/model.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/model.h"

static const char *const help =
    "usage: joules fit [--json] [--loo] [--anchor] [--what-if-loo] [--csv FILE] [--grid N] [options] PATH...\n\n"
    "For every group of LLM/MLLM runs differing only in their batch cap (same model,\n"
    "task, gpu_model, num_gpus, precision): the physical batch-size model fitted to\n"
    "power and throughput against the achieved batch (avg_batch_size), each parameter\n"
    "with its 95% confidence interval, R^2 and residuals per run, a Gaussian-process\n"
    "correction of the residuals, and the predicted curves (energy per token, power,\n"
    "step time, throughput, each with a band) up to the batch ceiling. Groups with\n"
    "fewer than 4 batch sizes are interpolated log-log instead. See model.md.\n\n"
    "  --json          print the joules.fit/1 document\n"
    "  --loo           leave each batch size out in turn, refit, predict energy per token\n"
    "                  at the held-out runs; prints the accuracy per task\n"
    "  --what-if-loo   hold out each group (model, task, GPU, count, precision) in turn and\n"
    "                  predict its runs from the model's other configurations and factors\n"
    "                  learned across other models (joules predict --what-if); prints the\n"
    "                  accuracy and interval coverage per kind of transfer\n"
    "  --anchor        with --loo: also evaluate the ML.ENERGY toolkit's logistic (the\n"
    "                  anchor) and print both side by side (model-accuracy.md)\n"
    "  --no-correction the physical model alone (no GP correction)\n"
    "  --robust C      one Cauchy-reweighted refit, scale C x 1.4826 MAD (default off)\n"
    "  --pool W        weight of the sweep-end prediction pooled from the model's other\n"
    "                  sweeps, in the curves and the LOO (default 0.7, 0 = off; model.md)\n"
    "  --regime R      leave a sweep end out of the fit when throughput falls below R x\n"
    "                  that of a row with half (or twice) its batch (default 0.85, 0 = off)\n"
    "  --csv FILE      the parameter table, one row per (group, parameter) ('-' = stdout)\n"
    "  --grid N        points of each predicted curve (default 16, 0 = none)\n" CLI_STUDY_HELP
    "  -h, --help      this help\n";

static void fmt_ci(char *buf, size_t cap, const jl_param *q)
{
    const char *st = q->status ? q->status : "";
    if (q->at_bound)
        snprintf(buf, cap, "at bound [%g, %g]", q->lower, q->upper);
    else if (!strcmp(st, "held"))
        snprintf(buf, cap, isfinite(q->ci_low) ? "held, assumed [%.4g, %.4g]" : "held", q->ci_low,
                 q->ci_high);
    else if (!strcmp(st, "not_identified"))
        snprintf(buf, cap, "not identified by the data");
    else if (isfinite(q->ci_low))
        snprintf(buf, cap, "[%.4g, %.4g]", q->ci_low, q->ci_high);
    else
        snprintf(buf, cap, "unavailable");
}

static void print_fit(const jl_group_fit *f, const double *grid, size_t n_grid)
{
    char *k = jl_group_key_format(&f->key);
    printf("%s\n  method %s, %zu runs, %zu batch sizes, batch %.4g..%.4g, ceiling %.4g (%s)\n",
           k ? k : "?", jl_fit_method_name(f->method), f->n_points, f->n_batch_sizes, f->batch_min,
           f->batch_max, f->batch_ceiling, f->ceiling_reason ? f->ceiling_reason : "-");
    free(k);
    if (f->note)
        printf("  note: %s\n", f->note);
    if (f->method == JL_FIT_MODEL) {
        printf("  physical model: R^2 (ln) power %.4f, throughput %.4f, energy/token %.4f; "
               "with correction %.4f\n",
               f->r2_power, f->r2_throughput, f->r2_energy, f->r2_energy_corrected);
        if (!f->has_ci || f->ci_note)
            printf("  intervals: %s\n", f->ci_note ? f->ci_note : "unavailable");
        for (int j = 0; j < JL_MP_COUNT; j++) {
            char ci[96];
            fmt_ci(ci, sizeof ci, &f->params[j]);
            printf("    %-6s %-14.6g %-14s 95%% CI %s\n", f->params[j].name, f->params[j].value,
                   f->params[j].unit, ci);
        }
        printf("  residuals (ln model - ln measured): cap batch power throughput energy/token "
               "energy/token(corrected)\n");
        for (size_t i = 0; i < f->n_points; i++) {
            const jl_fit_point *p = &f->points[i];
            printf("    %5ld %8.2f %+8.4f %+8.4f %+8.4f %+8.4f\n", p->max_batch_size, p->batch,
                   p->resid_ln_power, p->resid_ln_throughput, p->resid_ln_energy,
                   p->resid_ln_energy_corrected);
        }
    }
    if (grid && n_grid) {
        printf("  curve: batch  energy/token J [lo, hi]  power W [lo, hi]  step ms  tok/s\n");
        for (size_t i = 0; i < n_grid; i++) {
            jl_prediction p;
            if (jl_model_predict(f, grid[i], &p) != JL_OK)
                continue;
            printf("    %8.2f  %.4g [%.4g, %.4g]  %.4g [%.4g, %.4g]  %.4g  %.4g%s\n", p.batch,
                   p.energy_per_token_j.value, p.energy_per_token_j.lo, p.energy_per_token_j.hi,
                   p.power_w.value, p.power_w.lo, p.power_w.hi, 1e3 * p.step_time_s.value,
                   p.throughput_tok_s.value,
                   p.method == JL_FIT_POOLED ? "  (extrapolated, pooled)"
                                             : (p.extrapolated ? "  (extrapolated)" : ""));
        }
    }
    putchar('\n');
}

/* Statistics over points at one sweep position (-1, 0, 1). */
static jl_loo_stats position_stats(const jl_loo_result *r, int pos)
{
    jl_loo_result sub = {malloc((r->count ? r->count : 1) * sizeof *r->points), 0};
    jl_loo_stats st = {0, NAN, NAN, NAN, NAN, NAN};
    if (!sub.points)
        return st;
    for (size_t i = 0; i < r->count; i++)
        if (r->points[i].position == pos)
            sub.points[sub.count++] = r->points[i];
    st = jl_loo_summarize(&sub, NULL);
    free(sub.points);
    return st;
}

static void print_stats_cols(jl_loo_stats s)
{
    printf(" | %6.2f%% %7.2f%% %10.4g%%", 100 * s.median, 100 * s.p90, 100 * s.max);
}

static void print_loo_table(const jl_loo_result *j, const jl_loo_result *a)
{
    const char *rows[] = {"gpqa", "lm-arena-chat", "sourcegraph-fim", "image-chat", "video-chat"};
    printf("leave-one-batch-size-out: |predicted - actual| / actual energy per token\n");
    printf("%-18s %5s", "task", "n");
    if (a)
        printf(" | %-27s", "anchor: median  p90  max");
    printf(" | %-27s\n", "joules: median  p90  max");
    /* the five ML.ENERGY tasks first, then any other task in the data */
    const char **tasks = calloc(j->count + 5, sizeof *tasks);
    size_t nt = 0;
    for (size_t i = 0; tasks && i < 5; i++)
        if (jl_loo_summarize(j, rows[i]).n)
            tasks[nt++] = rows[i];
    for (size_t i = 0; tasks && i < j->count; i++) {
        const char *t = j->points[i].run->attrs.task;
        size_t k = 0;
        while (k < nt && strcmp(tasks[k], t))
            k++;
        if (k == nt)
            tasks[nt++] = t;
    }
    for (size_t i = 0; i <= nt + 2; i++) {
        const char *t = i < nt ? tasks[i] : (i == nt ? "LLM" : (i == nt + 1 ? "MLLM" : NULL));
        jl_loo_stats s = jl_loo_summarize(j, t);
        if (!s.n)
            continue;
        printf("%-18s %5zu", t ? (i < nt ? t : (i == nt ? "LLM (all)" : "MLLM (all)")) : "ALL",
               s.n);
        if (a)
            print_stats_cols(jl_loo_summarize(a, t));
        print_stats_cols(s);
        putchar('\n');
    }
    static const char *const pn[3] = {"  sweep low end", "  interior", "  sweep high end"};
    for (int p = -1; p <= 1; p++) {
        jl_loo_stats s = position_stats(j, p);
        printf("%-18s %5zu", pn[p + 1], s.n);
        if (a)
            print_stats_cols(position_stats(a, p));
        print_stats_cols(s);
        putchar('\n');
    }
    free(tasks);
}

static void print_whatif_table(const jl_whatif_loo *r)
{
    static const jl_transfer ks[] = {JL_TRANSFER_GPU_COUNT, JL_TRANSFER_GPU_MODEL,
                                     JL_TRANSFER_BOTH};
    static const char *const wls[] = {NULL, "llm", "mllm"};
    printf("what if: each group held out, predicted from the model's other configurations\n"
           "transfer   workload     n   median     p90      max  | 95%% interval: coverage "
           "median half-width\n");
    for (size_t i = 0; i < 3; i++)
        for (size_t w = 0; w < 3; w++) {
            jl_loo_stats s = jl_whatif_loo_summarize(r, ks[i], wls[w]);
            if (!s.n)
                continue;
            printf("%-10s %-8s %5zu  %6.2f%%  %6.2f%%  %7.4g%% | %6.1f%%  %6.2f%%\n",
                   jl_transfer_name(ks[i]), wls[w] ? wls[w] : "all", s.n, 100 * s.median,
                   100 * s.p90, 100 * s.max, 100 * s.coverage, 100 * s.median_half_width);
        }
}

/* What fit shows: the fits of every group, and with --loo the accuracy. */
typedef struct fit_result {
    jl_model_set *set;
    jl_group_fit *const *fits; /* one per group, owned by set */
    size_t n_grid;
    jl_loo_result loo, anchor;
    jl_whatif_loo whatif;
    int with_loo, with_anchor, with_whatif;
} fit_result;

static jl_status write_csv(const char *path, const void *result, const jl_summary_list *l,
                           jl_error **err)
{
    const fit_result *f = result;
    (void)l;
    return jl_write_fit_params_csv(path, f->fits, jl_model_set_groups(f->set)->count, err);
}

static json_t *to_json(const void *result, const jl_summary_list *l)
{
    const fit_result *f = result;
    (void)l;
    return jl_model_set_fit_document(f->set, f->n_grid, f->with_loo ? &f->loo : NULL,
                                     f->with_anchor ? &f->anchor : NULL,
                                     f->with_whatif ? &f->whatif : NULL);
}

static void print_table(const void *result, const jl_summary_list *l)
{
    const fit_result *f = result;
    (void)l;
    if (f->with_loo)
        print_loo_table(&f->loo, f->with_anchor ? &f->anchor : NULL);
    if (f->with_whatif)
        print_whatif_table(&f->whatif);
    if (f->with_loo || f->with_whatif)
        return;
    for (size_t i = 0; i < jl_model_set_groups(f->set)->count; i++) {
        double *grid = jl_model_batch_grid(f->fits[i], f->n_grid);
        print_fit(f->fits[i], grid, grid ? f->n_grid : 0);
        free(grid);
    }
}

static const cli_output output = {write_csv, to_json, print_table, "groups/points", 0, 1};

/* Fit every group (and with --loo, leave each batch size out), timing each
 * step on stderr; the what-if leave-one-out shows its progress. */
static jl_status fit_all(const cli_study *cs, const jl_model_options *mo, fit_result *f,
                         jl_error **err)
{
    jl_status st = jl_model_set_open(&cs->runs, cs->desc, mo, &f->set, err);
    if (st != JL_OK)
        return st;
    double t0 = cli_now_s();
    if ((st = jl_model_set_fit_all(f->set, &f->fits, err)) != JL_OK)
        return st;
    double t_fit = cli_now_s() - t0, t_loo = 0, t_anchor = 0, t_whatif = 0;
    if (f->with_loo) {
        t0 = cli_now_s();
        if ((st = jl_model_set_loo(f->set, JL_LOO_JOULES, &f->loo, err)) != JL_OK)
            return st;
        t_loo = cli_now_s() - t0;
    }
    if (f->with_anchor) {
        t0 = cli_now_s();
        if ((st = jl_model_set_loo(f->set, JL_LOO_ANCHOR, &f->anchor, err)) != JL_OK)
            return st;
        t_anchor = cli_now_s() - t0;
    }
    if (f->with_whatif) {
        cli_progress_state ps;
        cli_progress_init(&ps, "fit");
        jl_model_set_progress(f->set, cli_progress, &ps);
        t0 = cli_now_s();
        if ((st = jl_model_set_whatif_loo(f->set, &f->whatif, err)) != JL_OK)
            return st;
        t_whatif = cli_now_s() - t0;
        jl_model_set_progress(f->set, NULL, NULL);
    }
    size_t n_groups = jl_model_set_groups(f->set)->count;
    fprintf(stderr, "joules fit: %zu groups fitted in %.2f s", n_groups, t_fit);
    if (f->with_whatif)
        fprintf(stderr, "; what-if held out: %.2f s (%zu points)", t_whatif, f->whatif.count);
    if (f->with_loo)
        fprintf(stderr, "; leave-one-out: joules %.2f s (%zu points)", t_loo, f->loo.count);
    if (f->with_anchor)
        fprintf(stderr, ", anchor %.2f s", t_anchor);
    fputc('\n', stderr);
    /* the runs the latent model does not describe, said rather than dropped */
    size_t n_items = 0, n_node = 0;
    for (size_t i = 0; i < cs->runs.count; i++) {
        const jl_attrs *a = &cs->runs.items[i]->attrs;
        if (a->workload && !jl_attrs_is_llm(a))
            n_items++;
        else if (jl_attrs_is_node_ac(a))
            n_node++;
    }
    if (n_items)
        fprintf(stderr,
                "joules fit: note: %zu run%s of a workload counted in items (diffusion; vision, "
                "speech, recommendation, graph, language, other: per sample) left out: the "
                "model describes LLM decoding (tokens, batches)\n",
                n_items, n_items == 1 ? "" : "s");
    if (n_node)
        fprintf(stderr,
                "joules fit: note: %zu run%s of node AC power left out: the model splits power "
                "per GPU\n",
                n_node, n_node == 1 ? "" : "s");
    return JL_OK;
}

static void fit_result_clear(fit_result *f)
{
    jl_loo_result_clear(&f->loo);
    jl_loo_result_clear(&f->anchor);
    jl_whatif_loo_clear(&f->whatif);
    jl_model_set_free(f->set);
}

enum {
    OPT_LOO = CLI_OPT_FIRST_FREE,
    OPT_ANCHOR,
    OPT_GRID,
    OPT_NOCORR,
    OPT_ROBUST,
    OPT_POOL,
    OPT_REGIME,
    OPT_WHATIF
};

/* fit's own options set these */
typedef struct fit_args {
    fit_result *f;
    jl_model_options *mo;
} fit_args;

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    fit_result *f = ((fit_args *)ctx)->f;
    jl_model_options *mo = ((fit_args *)ctx)->mo;
    long n_grid;
    int rc;
    switch (code) {
    case OPT_LOO: f->with_loo = 1; return 0;
    case OPT_ANCHOR: f->with_anchor = 1; return 0;
    case OPT_WHATIF: f->with_whatif = 1; return 0;
    case OPT_NOCORR: mo->correction = 0; return 0;
    case OPT_ROBUST:
        return cli_parse_number(cmd, "--robust", arg, 0, INFINITY, ">= 0", &mo->robust);
    case OPT_POOL:
        return cli_parse_number(cmd, "--pool", arg, 0, nextafter(1.0, 2.0), "in [0, 1]",
                                &mo->pool_weight);
    case OPT_REGIME:
        return cli_parse_number(cmd, "--regime", arg, 0, nextafter(1.0, 2.0), "in [0, 1]",
                                &mo->regime_ratio);
    default: /* --grid */
        if (!(rc = cli_parse_long(cmd, "--grid", arg, 0, 10000, &n_grid)))
            f->n_grid = n_grid == 1 ? 2 : (size_t)n_grid;
        return rc;
    }
}

static const struct option longopts[] = {
    CLI_OUTPUT_LONG_OPTIONS,
    {"loo", no_argument, NULL, OPT_LOO},
    {"anchor", no_argument, NULL, OPT_ANCHOR},
    {"what-if-loo", no_argument, NULL, OPT_WHATIF},
    {"grid", required_argument, NULL, OPT_GRID},
    {"no-correction", no_argument, NULL, OPT_NOCORR},
    {"robust", required_argument, NULL, OPT_ROBUST},
    {"pool", required_argument, NULL, OPT_POOL},
    {"regime", required_argument, NULL, OPT_REGIME},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_fit = {":h", longopts};

int cli_cmd_fit(int argc, char **argv)
{
    const char *cmd = "fit";
    jl_model_options mo;
    jl_model_options_default(&mo);
    fit_result f = {.n_grid = JL_FIT_DEFAULT_GRID};
    cli_study cs;
    cli_study_init(&cs);
    fit_args fa = {&f, &mo};
    int rc =
        cli_parse(&cs, cmd, help, argc, argv, cli_options_fit.optstring, longopts, own_option, &fa);
    if (rc || cs.helped)
        goto out;
    if (f.with_anchor && !f.with_loo) {
        rc = cli_usage_error(cmd, "--anchor needs --loo");
        goto out;
    }
    if ((rc = cli_study_start(&cs, cmd, argc, argv, &output)))
        goto out;
    jl_error *err = NULL;
    jl_status st = fit_all(&cs, &mo, &f, &err);
    rc = st != JL_OK ? cli_fail(cmd, st, err) : cli_emit(cmd, &cs, &output, &f);
out:
    fit_result_clear(&f);
    cli_study_free(&cs);
    return rc;
}
