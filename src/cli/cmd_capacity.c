/* joules capacity — what a facility power budget buys. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
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
    "  --pue X              power usage effectiveness, >= 1 (default 1)\n"
    "  --grid-intensity G   grid carbon intensity, gCO2e/kWh\n"
    "  --slo EXPR           a service-level objective (repeatable)\n"
    "  --json               print the joules.capacity/1 document\n"
    "  --csv FILE           one row per (model, task, SLO) ('-' = stdout)\n"
    CLI_STUDY_HELP
    "  -h, --help           this help\n";

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_capacity_result *r = result;
    int wm = r->n ? cli_text_width((const char *const *)&r->items[0].model, r->n, sizeof r->items[0], 5) : 5;
    int wt = r->n ? cli_text_width((const char *const *)&r->items[0].task, r->n, sizeof r->items[0], 4) : 4;
    for (size_t i = 0; i < r->n; i++) {
        const jl_capacity_entry *e = &r->items[i];
        const jl_summary *s = e->choice >= 0 ? l->items[e->choice] : NULL;
        int diff = e->workload && !strcmp(e->workload, "diffusion");
        printf("%-*s %-*s %-20s %-14s", wm, e->model ? e->model : "-", wt,
               e->task ? e->task : "-", e->slo < r->n_slos ? r->slos[e->slo]->text : "(none)",
               jl_capacity_status_name(e->status));
        if (s)
            printf(" %s x%ld b%ld  %ld replicas  %.6g %s  %.6g J/%s at the wall",
                   s->attrs.gpu_model ? s->attrs.gpu_model : "-", s->attrs.num_gpus,
                   s->attrs.max_batch_size, e->replicas, e->total_throughput,
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
    return jl_capacity_to_json(r, l);
}

static const cli_output output = {write_csv, to_json, print_table, "entries", 0};

int jl_cmd_capacity(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_CSV, OPT_SLO, OPT_BUDGET, OPT_PUE, OPT_GRID };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", required_argument, NULL, OPT_CSV},
        {"slo", required_argument, NULL, OPT_SLO},
        {"power-budget", required_argument, NULL, OPT_BUDGET},
        {"pue", required_argument, NULL, OPT_PUE},
        {"grid-intensity", required_argument, NULL, OPT_GRID},
        {"help", no_argument, NULL, 'h'},
        CLI_STUDY_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "capacity", *csv = NULL;
    int json = 0, c, rc = JL_EXIT_OK;
    cli_slos slos = {0};
    jl_capacity_result *r = NULL;
    jl_capacity_options co;
    jl_capacity_options_default(&co);
    cli_study cs;
    cli_study_init(&cs);
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("capacity", help); goto out;
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_SLO: rc = cli_slos_add(&slos, cmd, optarg) ? JL_EXIT_USAGE : 0; break;
        case OPT_BUDGET:
            rc = cli_parse_number(cmd, "--power-budget", optarg, DBL_TRUE_MIN, INFINITY, "> 0 W",
                                  &co.power_budget_w);
            break;
        case OPT_PUE:
            rc = cli_parse_number(cmd, "--pue", optarg, 1, INFINITY, ">= 1", &co.pue);
            break;
        case OPT_GRID:
            rc = cli_parse_number(cmd, "--grid-intensity", optarg, 0, INFINITY, ">= 0",
                                  &co.grid_g_per_kwh);
            break;
        default: rc = cli_other_option(&cs, cmd, c, argv); break;
        }
        if (rc)
            goto out;
    }
    if (isnan(co.power_budget_w)) {
        rc = cli_usage_error(cmd, "--power-budget W is required");
        goto out;
    }
    if ((rc = cli_check_outputs(cmd, &cs, csv, json, &output)))
        goto out;
    cli_install_signal_cleanup();
    if ((rc = cli_study_load(&cs, cmd, argv + optind, argc - optind)))
        goto out;
    jl_error *err = NULL;
    if (jl_capacity(&cs.runs, (const jl_slo *const *)slos.items, slos.n, &co, &r, &err) != JL_OK)
        rc = cli_fail(cmd, err, JL_EXIT_INTERNAL);
    else
        rc = cli_emit(cmd, &cs, csv, json, &output, r);
out:
    jl_capacity_result_free(r);
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return rc;
}
