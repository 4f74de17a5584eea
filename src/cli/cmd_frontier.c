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
    "  --csv FILE        one row per frontier point ('-' = stdout)\n" CLI_STUDY_HELP
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
            char lat[96], en[96];
            cli_fmt_run_figure(lat, sizeof lat, fl, f->points[p].latency, s);
            cli_fmt_figure(en, sizeof en, fe, f->points[p].energy);
            char cap[24];
            printf("  %-5s x%-2ld %-6s %-26s %-34s %s%s\n",
                   s->attrs.gpu_model ? s->attrs.gpu_model : "-", s->attrs.num_gpus,
                   cli_fmt_cap(cap, sizeof cap, s), lat, en, s->run ? s->run : "",
                   f->points[p].n_equivalent ? " (+equivalent)" : "");
        }
        /* runs of the per-sample workloads left out, with the reason (MLPerf
         * Offline has no latency; one percentile per frontier) */
        for (size_t k = 0; k < f->n_skipped; k++) {
            const jl_summary *s = l->items[f->skipped[k]];
            if (jl_frontier_latency_figure(&fs->opt, s) != JL_FIG_PERCENTILE_LATENCY_S)
                continue;
            char why[512];
            printf("  skipped %s: %s\n", s->run ? s->run : "-",
                   jl_frontier_skip_reason(fs, f, l, f->skipped[k], why, sizeof why));
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
    return jl_frontier_document(fs, l);
}

static jl_status write_json(const char *path, const void *fs, const jl_summary_list *l,
                            const jl_error_list *errors, jl_error **err)
{
    return jl_write_frontier_json(path, fs, l, errors, err);
}

static const cli_output output = {write_csv, to_json, print_table, "frontiers/points", 0, 1};

enum { OPT_LAT = CLI_OPT_FIRST_FREE, OPT_EN, OPT_TOL };

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    jl_frontier_options *fo = ctx;
    switch (code) {
    case OPT_LAT: return cli_figure_option(cmd, "--latency", arg, &fo->latency_figure);
    case OPT_EN: return cli_figure_option(cmd, "--energy", arg, &fo->energy_figure);
    default: return cli_parse_number(cmd, "--tolerance", arg, 0, 1, "in [0, 1)", &fo->tolerance);
    }
}

static const struct option longopts[] = {
    CLI_OUTPUT_LONG_OPTIONS,
    {"latency", required_argument, NULL, OPT_LAT},
    {"energy", required_argument, NULL, OPT_EN},
    {"tolerance", required_argument, NULL, OPT_TOL},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_frontier = {":h", longopts};

int cli_cmd_frontier(int argc, char **argv)
{
    const char *cmd = "frontier";
    jl_frontier_set *fs = NULL;
    jl_frontier_options fo;
    jl_frontier_options_default(&fo);
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_frontier.optstring, longopts,
                       own_option, &fo);
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        jl_error *err = NULL;
        jl_status st = jl_frontier_compute(&cs.runs, &fo, &fs, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err)
                         : cli_emit_written(cmd, &cs, &output, fs, write_json);
    }
    jl_frontier_set_free(fs);
    cli_study_free(&cs);
    return rc;
}
