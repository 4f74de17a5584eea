/* joules frontier — Pareto-optimal configurations in (latency, energy). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/frontier.h"

static const char *const help =
    "usage: joules frontier [--latency FIGURE] [--energy FIGURE] [--tolerance REL]\n"
    "                       [--json] [--csv FILE] [options] PATH...\n\n"
    "For every (model, task): the configurations not dominated in (latency,\n"
    "energy) — median ITL vs energy per token for LLMs, batch latency vs energy\n"
    "per item for diffusion — and the paper's curves (Fig. 8-9): one per (GPU\n"
    "model, GPU count, precision), every batch size, with the frontier marked.\n"
    "Ties and near-duplicates: docs/choice.md.\n\n"
    "  --latency FIGURE  latency figure, e.g. p90_itl, p99_itl, ttft_p90 (default by workload)\n"
    "  --energy FIGURE   energy figure, e.g. energy_per_request (default by workload)\n"
    "  --tolerance REL   relative tolerance for equal points (default 1e-9)\n"
    "  --json            print the joules.frontier/1 document\n"
    "  --csv FILE        one row per frontier point ('-' = stdout)\n"
    CLI_STUDY_HELP
    "  -h, --help        this help\n";

static void print_table(const jl_frontier_set *fs, const jl_summary_list *l)
{
    for (size_t i = 0; i < fs->n; i++) {
        const jl_frontier *f = &fs->frontiers[i];
        printf("%s  %s  (%zu runs, %zu on the frontier, %zu dominated, %zu skipped)\n",
               f->model ? f->model : "-", f->task ? f->task : "-", f->n_runs, f->n_points,
               f->n_dominated, f->n_skipped);
        for (size_t p = 0; p < f->n_points; p++) {
            const jl_summary *s = l->items[f->points[p].run];
            int fl = jl_frontier_latency_figure(&fs->opt, s);
            int fe = jl_frontier_energy_figure(&fs->opt, s);
            printf("  %-5s x%-2ld b%-5ld %s=%-12.6g %s=%-12.6g %s%s\n",
                   s->attrs.gpu_model ? s->attrs.gpu_model : "-", s->attrs.num_gpus,
                   s->attrs.max_batch_size, jl_figure_name((jl_figure)fl), f->points[p].latency,
                   jl_figure_name((jl_figure)fe), f->points[p].energy, s->run ? s->run : "",
                   f->points[p].n_equivalent ? " (+equivalent)" : "");
        }
    }
}

int jl_cmd_frontier(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_CSV, OPT_LAT, OPT_EN, OPT_TOL };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", required_argument, NULL, OPT_CSV},
        {"latency", required_argument, NULL, OPT_LAT},
        {"energy", required_argument, NULL, OPT_EN},
        {"tolerance", required_argument, NULL, OPT_TOL},
        {"help", no_argument, NULL, 'h'},
        CLI_STUDY_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "frontier", *csv = NULL;
    int json = 0, c, rc;
    jl_frontier_options fo;
    jl_frontier_options_default(&fo);
    cli_study cs;
    cli_study_init(&cs);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int h;
        switch (c) {
        case 'h': fputs(help, stdout); cli_study_free(&cs); return JL_EXIT_OK;
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_LAT:
            if ((fo.latency_figure = cli_figure_option(cmd, "--latency", optarg)) < 0)
                goto usage;
            break;
        case OPT_EN:
            if ((fo.energy_figure = cli_figure_option(cmd, "--energy", optarg)) < 0)
                goto usage;
            break;
        case OPT_TOL:
            fo.tolerance = cli_parse_double(cmd, "--tolerance", optarg);
            if (!(fo.tolerance >= 0 && fo.tolerance < 1)) {
                if (!isnan(fo.tolerance))
                    cli_usage_error(cmd, "--tolerance must be in [0, 1)");
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
    cli_install_signal_cleanup();
    if ((rc = cli_study_load(&cs, cmd, argv + optind, argc - optind))) {
        cli_study_free(&cs);
        return rc;
    }
    jl_frontier_set *fs = NULL;
    jl_error *err = NULL;
    if (jl_frontier_compute(&cs.runs, &fo, &fs, &err) != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        cli_study_free(&cs);
        return JL_EXIT_INTERNAL;
    }
    rc = 0;
    if (csv && jl_write_frontier_csv(csv, fs, &cs.runs, &err) != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        rc = JL_EXIT_OUTPUT;
    }
    if (!rc && json)
        rc = cli_print_document(cmd, jl_frontier_set_to_json(fs, &cs.runs), &cs.errors);
    else if (!rc && (!csv || strcmp(csv, "-")))
        print_table(fs, &cs.runs);
    if (!rc)
        rc = cli_study_exit(&cs);
    jl_frontier_set_free(fs);
    cli_study_free(&cs);
    return rc;
usage:
    cli_study_free(&cs);
    return JL_EXIT_USAGE;
}
