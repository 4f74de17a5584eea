/* joules capacity — what a facility power budget buys. */
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
    "usage: joules capacity --power-budget W [--pue X] [--grid-intensity G]\n"
    "                       [--slo EXPR]... [--json] [--csv FILE] [options] PATH...\n\n"
    "For every (model, task): under a facility power budget, the configuration\n"
    "with the highest throughput per watt that meets the SLO, how many replicas\n"
    "fit (floor(budget / (avg power x PUE))), the total tokens/s (items/s for\n"
    "diffusion), energy per token at the wall (x PUE) and, with a grid carbon\n"
    "intensity, grams CO2e per million tokens (items). Formulas: docs/choice.md.\n\n"
    "  --power-budget W     facility power budget in watts (required)\n"
    "  --pue X              power usage effectiveness, >= 1 (default 1)\n"
    "  --grid-intensity G   grid carbon intensity, gCO2e/kWh\n"
    "  --slo EXPR           a service-level objective (repeatable)\n"
    "  --json               print the joules.capacity/1 document\n"
    "  --csv FILE           one row per (model, task, SLO) ('-' = stdout)\n"
    CLI_STUDY_HELP
    "  -h, --help           this help\n";

static void print_table(const jl_capacity_result *r, const jl_summary_list *l)
{
    for (size_t i = 0; i < r->n; i++) {
        const jl_capacity_entry *e = &r->items[i];
        const jl_summary *s = e->choice >= 0 ? l->items[e->choice] : NULL;
        int diff = e->workload && !strcmp(e->workload, "diffusion");
        printf("%-45.45s %-15.15s %-20.20s %-14s", e->model ? e->model : "-",
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
    int json = 0, c, rc;
    cli_slos slos = {0};
    jl_capacity_options co;
    jl_capacity_options_default(&co);
    cli_study cs;
    cli_study_init(&cs);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int h;
        switch (c) {
        case 'h': fputs(help, stdout); cli_slos_free(&slos); cli_study_free(&cs); return JL_EXIT_OK;
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_SLO:
            if (cli_slos_add(&slos, cmd, optarg))
                goto usage;
            break;
        case OPT_BUDGET:
            co.power_budget_w = cli_parse_double(cmd, "--power-budget", optarg);
            if (!(co.power_budget_w > 0)) {
                if (!isnan(co.power_budget_w))
                    cli_usage_error(cmd, "--power-budget must be > 0 W");
                goto usage;
            }
            break;
        case OPT_PUE:
            co.pue = cli_parse_double(cmd, "--pue", optarg);
            if (!(co.pue >= 1)) {
                if (!isnan(co.pue))
                    cli_usage_error(cmd, "--pue must be >= 1");
                goto usage;
            }
            break;
        case OPT_GRID:
            co.grid_g_per_kwh = cli_parse_double(cmd, "--grid-intensity", optarg);
            if (!(co.grid_g_per_kwh >= 0)) {
                if (!isnan(co.grid_g_per_kwh))
                    cli_usage_error(cmd, "--grid-intensity must be >= 0");
                goto usage;
            }
            break;
        default:
            h = cli_study_option(&cs, cmd, c, optarg);
            if (h == 1)
                break;
            if (h == 0)
                cli_usage_error(cmd, "unknown option");
            goto usage;
        }
    }
    if (isnan(co.power_budget_w)) {
        cli_usage_error(cmd, "--power-budget W is required");
        goto usage;
    }
    cli_install_signal_cleanup();
    if ((rc = cli_study_load(&cs, cmd, argv + optind, argc - optind)))
        goto out;
    jl_capacity_result *r = NULL;
    jl_error *err = NULL;
    if (jl_capacity(&cs.runs, (const jl_slo *const *)slos.items, slos.n, &co, &r, &err)) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        rc = JL_EXIT_INTERNAL;
        goto out;
    }
    if (csv && jl_write_capacity_csv(csv, r, &cs.runs, &err) != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        rc = JL_EXIT_OUTPUT;
    }
    if (!rc && json)
        rc = cli_print_document(cmd, jl_capacity_to_json(r, &cs.runs), &cs.errors);
    else if (!rc && (!csv || strcmp(csv, "-")))
        print_table(r, &cs.runs);
    if (!rc)
        rc = cli_study_exit(&cs);
    jl_capacity_result_free(r);
out:
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return rc;
usage:
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return JL_EXIT_USAGE;
}
