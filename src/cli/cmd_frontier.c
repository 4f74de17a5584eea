/* joules frontier — Pareto-optimal configurations in (latency, energy). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

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
    "Ties and near-duplicates: choice.md.\n\n"
    "  --latency FIGURE  latency figure, e.g. p90_itl, p99_itl, ttft_p90 (default by workload)\n"
    "  --energy FIGURE   energy figure, e.g. energy_per_request (default by workload)\n"
    "  --tolerance REL   relative tolerance for equal points (default 1e-9)\n"
    "  --json            print the joules.frontier/1 document\n"
    "  --csv FILE        one row per frontier point ('-' = stdout)\n"
    CLI_STUDY_HELP
    "  -h, --help        this help\n";

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_frontier_set *fs = result;
    for (size_t i = 0; i < fs->n; i++) {
        const jl_frontier *f = &fs->frontiers[i];
        printf("%s  %s  (%zu runs, %zu on the frontier, %zu dominated, %zu skipped)%s\n",
               f->model ? f->model : "-", f->task ? f->task : "-", f->n_runs, f->n_points,
               f->n_dominated, f->n_skipped,
               f->node_ac ? "  [node AC power at the wall, not GPU power]" : "");
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

static jl_status write_csv(const char *path, const void *fs, const jl_summary_list *l,
                           jl_error **err)
{
    return jl_write_frontier_csv(path, fs, l, err);
}

static json_t *to_json(const void *fs, const jl_summary_list *l)
{
    return jl_frontier_set_to_json(fs, l);
}

static jl_status write_json(const char *path, const void *fs, const jl_summary_list *l,
                            const jl_error_list *errors, jl_error **err)
{
    return jl_write_frontier_json(path, fs, l, errors, err);
}

static const cli_output output = {write_csv, to_json, print_table, "frontiers/points", 0};

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
    int json = 0, c, rc = JL_EXIT_OK;
    jl_frontier_set *fs = NULL;
    jl_frontier_options fo;
    jl_frontier_options_default(&fo);
    cli_study cs;
    cli_study_init(&cs);
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("frontier", help); goto out;
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_LAT:
            fo.latency_figure = cli_figure_option(cmd, "--latency", optarg);
            rc = fo.latency_figure < 0 ? JL_EXIT_USAGE : 0;
            break;
        case OPT_EN:
            fo.energy_figure = cli_figure_option(cmd, "--energy", optarg);
            rc = fo.energy_figure < 0 ? JL_EXIT_USAGE : 0;
            break;
        case OPT_TOL:
            rc = cli_parse_number(cmd, "--tolerance", optarg, 0, 1, "in [0, 1)", &fo.tolerance);
            break;
        default: rc = cli_other_option(&cs, cmd, c, argv); break;
        }
        if (rc)
            goto out;
    }
    if ((rc = cli_check_outputs(cmd, &cs, csv, json, &output)))
        goto out;
    cli_install_signal_cleanup();
    if ((rc = cli_study_load(&cs, cmd, argv + optind, argc - optind)))
        goto out;
    jl_error *err = NULL;
    if (jl_frontier_compute(&cs.runs, &fo, &fs, &err) != JL_OK)
        rc = cli_fail(cmd, err, JL_EXIT_INTERNAL);
    else
        rc = cli_emit_written(cmd, &cs, csv, json, &output, fs, write_json);
out:
    jl_frontier_set_free(fs);
    cli_study_free(&cs);
    return rc;
}
