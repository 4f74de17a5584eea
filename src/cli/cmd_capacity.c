/* joules capacity — what a facility power budget buys. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"
#include "joules/choice.h"

static const char *const help =
    "usage: joules capacity --power-budget W [--pue X] [--grid-intensity G]\n"
    "                       [--slo EXPR]... [--json] [--csv FILE] [options] PATH...\n\n"
    "For every (model, task): under a facility power budget, the configuration\n"
    "with the highest throughput per watt that meets the SLO, how many replicas\n"
    "fit (floor(budget / (avg power x PUE))), the total tokens/s (items/s for\n"
    "diffusion), energy per token at the wall (x PUE) and, with a grid carbon\n"
    "intensity, grams CO2e per million tokens (items). Formulas: choice.md.\n\n"
    "  --power-budget W     facility power budget in watts (required)\n"
    "  --pue X              power usage effectiveness, 1.0..3.0 (default 1; above:\n"
    "                       X:forced); or a CSV\n"
    "                       series: its time-weighted mean (accounting.md)\n"
    "  --grid-intensity G   grid carbon intensity, gCO2e/kWh (5..2,000, or with its\n"
    "                       unit: 0.4kg/kWh, 900lbs/MWh); or a CSV series\n"
    "                       (Electricity Maps, WattTime): its time-weighted mean\n"
    "  --slo EXPR           a service-level objective (repeatable)\n"
    "  --json               print the joules.capacity/1 document\n"
    "  --csv FILE           one row per (model, task, SLO) ('-' = stdout)\n" CLI_STUDY_HELP
    "  -h, --help           this help\n";

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_capacity_result *r = result;
    int wm, wt;
    cli_model_task_widths(r->items, r->n, sizeof r->items[0], offsetof(jl_capacity_entry, model),
                          offsetof(jl_capacity_entry, task), &wm, &wt);
    for (size_t i = 0; i < r->n; i++) {
        const jl_capacity_entry *e = &r->items[i];
        const jl_summary *s = e->choice >= 0 ? l->items[e->choice] : NULL;
        int diff = jl_workload_counts_items(e->workload);
        printf("%-*s %-*s %-20s %-14s", wm, e->model ? e->model : "-", wt, e->task ? e->task : "-",
               e->slo < r->n_slos ? r->slos[e->slo]->text : "(none)",
               jl_capacity_status_name(e->status));
        char cap[24];
        if (s)
            printf(" %s x%ld %s  %ld replicas  %.6g %s  %.6g J/%s at the wall",
                   s->attrs.gpu_model ? s->attrs.gpu_model : "-", s->attrs.num_gpus,
                   cli_fmt_cap(cap, sizeof cap, s), e->replicas, e->total_throughput,
                   diff ? "items/s" : "tokens/s", e->energy_per_unit_wall_j,
                   diff ? "item" : "token");
        if (s && isfinite(e->carbon_g_per_million))
            printf("  %.6g gCO2e/M%s", e->carbon_g_per_million, diff ? "items" : "tok");
        putchar('\n');
    }
}

static jl_status write_csv(const char *path, const void *r, const jl_summary_list *l,
                           jl_error **err)
{
    return jl_write_capacity_csv(path, r, l, err);
}

static json_t *to_json(const void *r, const jl_summary_list *l)
{
    return jl_capacity_document(r, l);
}

static const cli_output output = {write_csv, to_json, print_table, "entries", 0, 1};

enum { OPT_BUDGET = CLI_OPT_FIRST_FREE, OPT_PUE, OPT_GRID };

/* A CSV series (joules/account.h): its time-weighted mean, for a facility
 * that runs through the period the series covers. */
static int series_mean(const char *cmd, const char *path, int pue, double *out)
{
    jl_tseries *s = NULL;
    jl_error *err = NULL;
    /* the units and ranges of the accounts (account.h): 0.4kg/kWh, PUE 1..3 */
    jl_status st = pue ? jl_tseries_parse_pue(path, &s, &err)
                       : jl_tseries_parse(path, JL_INTENSITY_AVERAGE, &s, &err);
    if (st != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        return st == JL_ENOMEM ? cli_oom(cmd) : cli_exit_for_status(JL_EUSAGE);
    }
    *out = jl_tseries_mean(s);
    jl_tseries_free(s);
    return 0;
}

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    jl_capacity_options *co = ctx;
    switch (code) {
    case OPT_BUDGET:
        return cli_parse_number(cmd, "--power-budget", arg, DBL_TRUE_MIN, INFINITY, "> 0 W",
                                &co->power_budget_w);
    case OPT_PUE: return series_mean(cmd, arg, 1, &co->pue);
    default: return series_mean(cmd, arg, 0, &co->grid_g_per_kwh);
    }
}

static const struct option longopts[] = {
    CLI_OUTPUT_LONG_OPTIONS,
    CLI_SLO_LONG_OPTION,
    {"power-budget", required_argument, NULL, OPT_BUDGET},
    {"pue", required_argument, NULL, OPT_PUE},
    {"grid-intensity", required_argument, NULL, OPT_GRID},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_capacity = {":h", longopts};

int cli_cmd_capacity(int argc, char **argv)
{
    const char *cmd = "capacity";
    jl_capacity_result *r = NULL;
    jl_capacity_options co;
    jl_capacity_options_default(&co);
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_capacity.optstring, longopts,
                       own_option, &co);
    if (!rc && !cs.helped && isnan(co.power_budget_w))
        rc = cli_usage_error(cmd, "--power-budget W is required");
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        jl_error *err = NULL;
        jl_status st =
            jl_capacity(&cs.runs, (const jl_slo *const *)cs.slos.items, cs.slos.n, &co, &r, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : cli_emit(cmd, &cs, &output, r);
    }
    jl_capacity_result_free(r);
    cli_study_free(&cs);
    return rc;
}
