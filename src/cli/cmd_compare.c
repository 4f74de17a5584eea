/* joules compare — matched-constraint comparisons (paper §4.3) and precision
 * pairs (paper §4.4). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/choice.h"

static const char *const help =
    "usage: joules compare --by ATTR --baseline VALUE [--slo EXPR]... [--hold ATTR]...\n"
    "                      [--json] [--csv FILE] [options] PATH...\n"
    "       joules compare --by precision --baseline bfloat16 [--bins 8,16,64,256]\n"
    "                      [--latency FIGURE] [--json] [--csv FILE] [options] PATH...\n\n"
    "--by gpu_model|num_gpus|...: for each (model, task[, held attributes], SLO),\n"
    "the minimum-energy configuration meeting the SLO on each value of ATTR\n"
    "against the baseline value; energy change = E_side / E_baseline - 1\n"
    "(negative: the side needs less energy; the JSON keeps reduction = -change);\n"
    "totals: comparisons made, wins per side, median/min/max change. A side without\n"
    "a run or a feasible one is listed with the reason and not counted.\n"
    "--by num_gpus holds gpu_model by default (compare GPU counts on one GPU).\n\n"
    "--by precision: each run of another precision paired with its baseline\n"
    "twin (same task, GPU model, GPU count, batch cap; model id without its\n"
    "precision suffix), energy and latency changes, bucketed by batch size with\n"
    "right-closed buckets (8,16], (16,64], (64,256]. Which pairs enter: choice.md.\n\n"
    "  --by ATTR         attribute compared (gpu_model, num_gpus, precision, ...)\n"
    "  --baseline VALUE  the baseline value of ATTR\n"
    "  --slo EXPR        a service-level objective (repeatable)\n"
    "  --hold ATTR       also group by ATTR (repeatable); --hold none: nothing more\n"
    "  --bins LIST       precision: bucket edges (default 8,16,64,256)\n"
    "  --latency FIGURE  precision: latency figure (default median ITL / batch latency)\n"
    "  --json            print the joules.compare/1 document\n"
    "  --csv FILE        one row per comparison or pair ('-' = stdout)\n" CLI_STUDY_HELP
    "  -h, --help        this help\n";

/* The figure of slo that the runs of (model, task) lack, and the task's
 * kind of work: "p90_itl does not apply to text-to-image". NULL when every
 * condition's figure exists for some run of the group. */
static const char *missing_figure(const jl_slo *slo, const jl_summary_list *l, const char *model,
                                  const char *task)
{
    for (size_t c = 0; slo && c < slo->n; c++) {
        int seen = 0, has = 0;
        for (size_t i = 0; i < l->count && !has; i++) {
            const jl_summary *s = l->items[i];
            if (!s->attrs.model || !model || strcmp(s->attrs.model, model) || !s->attrs.task ||
                !task || strcmp(s->attrs.task, task))
                continue;
            seen = 1;
            int f = jl_slo_cond_figure(&slo->conds[c], s);
            has = f >= 0 && isfinite(s->fig[f]);
        }
        if (seen && !has)
            return slo->conds[c].name;
    }
    return NULL;
}

static int same_group(const jl_comparison *a, const jl_comparison *b, size_t n_keys)
{
    for (size_t k = 0; k < n_keys; k++) {
        const char *x = a->group_values[k], *y = b->group_values[k];
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y)))
            return 0;
    }
    return 1;
}

/* An energy for people, with its unit. */
/* A pick's energy and its latency ("0.07596 J/token at 16.01 ms median ITL") */
static void print_energy(const jl_summary *s, double e)
{
    int dif = jl_attrs_counts_items(&s->attrs);
    printf("%.4g %s", e, dif ? "J/item" : "J/token");
    double lat = s->fig[dif ? JL_FIG_BATCH_LATENCY_S : JL_FIG_MEDIAN_ITL_S];
    if (lat == lat) /* not NaN */
        printf(dif ? " at %.4g s batch latency" : " at %.4g ms median ITL", dif ? lat : lat * 1e3);
}

/* One line per (SLO, missing figure, task) of the comparisons skipped
 * because no run of the group has the SLO's figure: "p90_itl does not apply
 * to text-to-image: skipped (p90_itl<=100ms; 3 groups)". */
typedef struct skipped {
    size_t slo;
    const char *figure, *task;
    size_t groups;
} skipped;

static void print_not_applicable(const jl_compare_result *r, const jl_summary_list *l)
{
    skipped *sk = NULL;
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const jl_comparison *c = &r->items[i];
        if (c->base.status != JL_PICK_NOT_APPLICABLE || c->slo >= r->n_slos ||
            (i > 0 && r->items[i - 1].slo == c->slo &&
             same_group(&r->items[i - 1], c, r->n_group_keys)))
            continue; /* one per group and SLO, not per side */
        const char *fig =
            missing_figure(r->slos[c->slo], l, c->group_values[0], c->group_values[1]);
        if (!fig)
            continue;
        const char *task = c->group_values[1] ? c->group_values[1] : "this task";
        size_t k = 0;
        while (k < n &&
               (sk[k].slo != c->slo || strcmp(sk[k].figure, fig) || strcmp(sk[k].task, task)))
            k++;
        if (k == n) {
            skipped *ns = realloc(sk, (n + 1) * sizeof *ns);
            if (!ns)
                break;
            sk = ns;
            sk[n++] = (skipped){c->slo, fig, task, 0};
        }
        sk[k].groups++;
    }
    for (size_t k = 0; k < n; k++)
        printf("%s does not apply to %s: skipped (%s; %zu group%s)\n", sk[k].figure, sk[k].task,
               r->slos[sk[k].slo]->text, sk[k].groups, sk[k].groups == 1 ? "" : "s");
    free(sk);
}

static void print_compare(const void *result, const jl_summary_list *l)
{
    const jl_compare_result *r = result;
    printf("energy change vs %s=%s: E_side/E_%s - 1, negative = less energy than %s\n\n", r->by,
           r->baseline, r->baseline, r->baseline);
    int wm = 5, wt = 4;
    for (size_t i = 0; i < r->n; i++) {
        const char *m = r->items[i].group_values[0], *t = r->items[i].group_values[1];
        wm = cli_text_width(&m, 1, 0, wm);
        wt = cli_text_width(&t, 1, 0, wt);
    }
    for (size_t i = 0; i < r->n; i++) {
        const jl_comparison *c = &r->items[i];
        const jl_slo *slo = c->slo < r->n_slos ? r->slos[c->slo] : NULL;
        const char *absent = c->base.status == JL_PICK_NOT_APPLICABLE &&
                                     (c->other.status == JL_PICK_NOT_APPLICABLE ||
                                      c->other.status == JL_PICK_NO_RUNS)
                                 ? missing_figure(slo, l, c->group_values[0], c->group_values[1])
                                 : NULL;
        /* the SLO's figure does not exist for the group: said once under
         * the table for every group of the task */
        if (absent)
            continue;
        printf("%-*s %-*s", wm, c->group_values[0] ? c->group_values[0] : "-", wt,
               c->group_values[1] ? c->group_values[1] : "-");
        for (size_t k = 2; k < r->n_group_keys; k++)
            printf(" %s=%s", r->group_keys[k], c->group_values[k] ? c->group_values[k] : "-");
        printf(" %-20s %s vs %s: ", slo ? slo->text : "(none)", c->side, r->baseline);
        if (c->counted) {
            const jl_summary *b = l->items[c->base.choice], *o = l->items[c->other.choice];
            char cap[24];
            printf("%+.1f%% (%s x%ld %s ", -100 * c->reduction, c->side, o->attrs.num_gpus,
                   cli_fmt_cap(cap, sizeof cap, o));
            print_energy(o, c->other.energy);
            printf(" vs %s x%ld %s ", r->baseline, b->attrs.num_gpus,
                   cli_fmt_cap(cap, sizeof cap, b));
            print_energy(b, c->base.energy);
            printf(") winner %s\n", c->winner == 1   ? c->side
                                    : c->winner == 0 ? r->baseline
                                                     : "tie");
        } else {
            printf("not counted: %s\n", c->reason ? c->reason : "");
        }
    }
    print_not_applicable(r, l);
    printf("\n%zu comparison%s counted (%zu listed); wins: %s %zu", r->n_counted,
           r->n_counted == 1 ? "" : "s", r->n, r->baseline, r->baseline_wins);
    for (size_t s = 0; s < r->n_sides; s++)
        printf(", %s %zu", r->sides[s].side, r->sides[s].wins);
    if (r->n_ties)
        printf(", ties %zu", r->n_ties);
    printf("\nenergy change (E_side/E_%s - 1, negative = less energy): median %+.1f%%, "
           "min %+.1f%%, max %+.1f%%\n",
           r->baseline, -100 * r->median_reduction, -100 * r->max_reduction,
           -100 * r->min_reduction);
}

static void print_precision(const void *result, const jl_summary_list *l)
{
    const jl_precision_result *r = result;
    (void)l;
    printf("change vs the %s twin: X/X_twin - 1, negative = less energy (E) or lower latency (L)\n",
           r->baseline);
    printf("%zu pairs, %zu runs without a usable %s twin, %zu pairs outside the bins\n", r->n_pairs,
           r->n_unpaired, r->baseline, r->n_outside);
    printf("%-14s %-7s %-9s %-18s %-8s | %-9s %-18s %-8s\n", "batch size", "pairs", "E wins",
           "E range", "E median", "L wins", "L range", "L median");
    for (size_t k = 0; k < r->n_buckets; k++) {
        const jl_precision_bucket *b = &r->buckets[k];
        char lab[32], er[40], lr[40], em[16], lm[16];
        snprintf(lab, sizeof lab, "(%g, %g]", b->lo, b->hi);
        snprintf(er, sizeof er, "%+.0f%% to %+.0f%%", 100 * b->energy.min, 100 * b->energy.max);
        snprintf(lr, sizeof lr, "%+.0f%% to %+.0f%%", 100 * b->latency.min, 100 * b->latency.max);
        /* an empty bucket has no median: '-', never a number-like "nan" */
        snprintf(em, sizeof em, isfinite(b->energy.median) ? "%+.0f%%" : "-",
                 100 * b->energy.median);
        snprintf(lm, sizeof lm, isfinite(b->latency.median) ? "%+.0f%%" : "-",
                 100 * b->latency.median);
        printf("%-14s %-7zu %3zu/%-5zu %-18s %8s | %3zu/%-5zu %-18s %8s\n", lab, b->energy.n,
               b->energy.wins, b->energy.n, b->energy.n ? er : "-", em, b->latency.wins,
               b->latency.n, b->latency.n ? lr : "-", lm);
    }
}

static jl_status compare_csv(const char *path, const void *r, const jl_summary_list *l,
                             jl_error **err)
{
    return jl_write_compare_csv(path, r, l, err);
}

static json_t *compare_json(const void *r, const jl_summary_list *l)
{
    return jl_compare_document(r, l);
}

static jl_status compare_write_json(const char *path, const void *r, const jl_summary_list *l,
                                    const jl_error_list *errors, jl_error **err)
{
    return jl_write_compare_json(path, r, l, errors, err);
}

static jl_status precision_csv(const char *path, const void *r, const jl_summary_list *l,
                               jl_error **err)
{
    return jl_write_precision_csv(path, r, l, err);
}

static json_t *precision_json(const void *r, const jl_summary_list *l)
{
    return jl_precision_document(r, l);
}

static const cli_output compare_output = {
    compare_csv, compare_json, print_compare, "comparisons", 0, 1};
static const cli_output precision_output = {
    precision_csv, precision_json, print_precision, "pairs", 0, 1};

/* "8,16,64,256" into *out (the caller frees it, also on error). Returns 0
 * or an exit code (printed). */
static int parse_bins(const char *cmd, const char *arg, double **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (const char *p = arg; *p;) {
        char *end = NULL;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v) || (*end && *end != ','))
            return cli_usage_error(
                cmd, "--bins: '%s' is not a comma-separated list of numbers (at '%s')", arg, p);
        double *nb = realloc(*out, (*n + 1) * sizeof *nb);
        if (!nb)
            return cli_oom(cmd);
        *out = nb;
        nb[(*n)++] = v;
        if (*n > 1 && !(nb[*n - 1] > nb[*n - 2]))
            return cli_usage_error(cmd, "--bins must be strictly ascending");
        p = *end ? end + 1 : end;
    }
    if (*n < 2)
        return cli_usage_error(cmd, "--bins needs at least two edges");
    return 0;
}

enum { OPT_BY = CLI_OPT_FIRST_FREE, OPT_BASE, OPT_HOLD, OPT_BINS, OPT_LAT };

/* compare's own options */
typedef struct compare_args {
    const char *by, *baseline;
    const char *hold[16];
    size_t n_hold, n_bins;
    int hold_given, latency;
    double *bins;
} compare_args;

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    compare_args *a = ctx;
    switch (code) {
    case OPT_BY: a->by = arg; return 0;
    case OPT_BASE: a->baseline = arg; return 0;
    case OPT_HOLD:
        a->hold_given = 1;
        if (!strcmp(arg, "none"))
            return 0;
        if (a->n_hold == sizeof a->hold / sizeof a->hold[0])
            return cli_usage_error(cmd, "too many --hold");
        a->hold[a->n_hold++] = arg;
        return 0;
    case OPT_BINS: free(a->bins); return parse_bins(cmd, arg, &a->bins, &a->n_bins);
    default: return cli_figure_option(cmd, "--latency", arg, &a->latency);
    }
}

/* The comparison the arguments ask for, written. Returns the exit code. */
static int run_compare(const char *cmd, cli_study *cs, const compare_args *a, int precision)
{
    jl_error *err = NULL;
    jl_status st;
    int rc = 0;
    if (precision) {
        jl_precision_options po;
        jl_precision_options_default(&po);
        po.baseline = a->baseline;
        if (a->bins) {
            po.bins = a->bins;
            po.n_bins = a->n_bins;
        }
        po.latency_figure = a->latency;
        jl_precision_result *r = NULL;
        st = jl_compare_precision(&cs->runs, &po, &r, &err);
        if (st == JL_OK)
            rc = cli_emit(cmd, cs, &precision_output, r);
        jl_precision_result_free(r);
    } else {
        jl_compare_options co = {a->by, a->baseline, a->hold, a->n_hold, {-1, 1e-9}};
        jl_compare_result *r = NULL;
        st =
            jl_compare(&cs->runs, (const jl_slo *const *)cs->slos.items, cs->slos.n, &co, &r, &err);
        if (st == JL_OK)
            rc = cli_emit_written(cmd, cs, &compare_output, r, compare_write_json);
        jl_compare_result_free(r);
    }
    return st != JL_OK ? cli_fail(cmd, st, err) : rc;
}

static const struct option longopts[] = {
    CLI_OUTPUT_LONG_OPTIONS,
    CLI_SLO_LONG_OPTION,
    {"by", required_argument, NULL, OPT_BY},
    {"baseline", required_argument, NULL, OPT_BASE},
    {"hold", required_argument, NULL, OPT_HOLD},
    {"bins", required_argument, NULL, OPT_BINS},
    {"latency", required_argument, NULL, OPT_LAT},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_compare = {":h", longopts};

int cli_cmd_compare(int argc, char **argv)
{
    const char *cmd = "compare";
    compare_args a = {.latency = -1};
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_compare.optstring, longopts,
                       own_option, &a);
    if (rc || cs.helped)
        goto out;
    if (!a.by || !a.baseline) {
        rc = cli_usage_error(cmd, "--by ATTR and --baseline VALUE are required");
        goto out;
    }
    int precision = !strcmp(a.by, "precision");
    if (precision && cs.slos.n) {
        rc = cli_usage_error(cmd,
                             "--by precision pairs runs configuration by configuration: no --slo");
        goto out;
    }
    if (!precision && (a.bins || a.latency >= 0)) {
        rc = cli_usage_error(cmd, "--bins and --latency belong to --by precision");
        goto out;
    }
    if (!a.hold_given && !strcmp(a.by, "num_gpus"))
        a.hold[a.n_hold++] = "gpu_model";
    if (!(rc = cli_study_start(&cs, cmd, argc, argv,
                               precision ? &precision_output : &compare_output)))
        rc = run_compare(cmd, &cs, &a, precision);
out:
    free(a.bins);
    cli_study_free(&cs);
    return rc;
}
