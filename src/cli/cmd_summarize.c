/* joules summarize — one row per run. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"

static const char *const help =
    "usage: joules summarize [--json] [--csv FILE] [options] PATH...\n\n"
    "Summarise every run of every trace: the steady-state window and, over it,\n"
    "energy, energy per token / request / item, power (average, peak, idle share),\n"
    "throughput, batch occupancy, KV-cache use, latency percentiles.\n"
    "PATH is a trace file or a directory (searched recursively for *.h5).\n\n"
    "  --json         print the joules.summary/1 document on stdout\n"
    "  --csv FILE     also write a CSV with one row per run (FILE '-' = stdout)\n"
    CLI_STUDY_HELP
    "  -h, --help     this help\n\n"
    "Figures and JSON keys: summary.md. Exit status: cli.md.\n";

/* A figure printed for people: scaled, rounded, '-' when missing. */
static void cell(char *buf, size_t cap, double v, double scale, int decimals)
{
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.*f", decimals, v * scale);
}

static void print_table(const void *result, const jl_summary_list *l)
{
    (void)result;
    printf("%-34s %-10s %-28s %-6s %3s %5s %-9s %8s %9s %10s %7s %7s %5s %9s %7s %7s %6s %4s\n",
           "file", "run", "model", "gpu", "G", "cap", "window", "dur_s", "energy_J",
           "J/token", "avg_W", "peak_W", "idle%", "tok/s", "batch", "mITL_ms", "p90ms", "warn");
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        const double *f = s->fig;
        int diffusion = jl_attrs_is_diffusion(&s->attrs);
        char dur[32], en[32], ept[32], avg[32], peak[32], idle[32], tps[32], bat[32],
            itl[32], p90[32];
        cell(dur, sizeof dur, f[JL_FIG_STEADY_DURATION_S], 1, 1);
        cell(en, sizeof en, f[JL_FIG_STEADY_ENERGY_J], 1, 0);
        if (diffusion) {
            cell(ept, sizeof ept, f[JL_FIG_ENERGY_PER_ITEM_J], 1, 1);
            strncat(ept, "/it", sizeof ept - strlen(ept) - 1);
            cell(tps, sizeof tps, f[JL_FIG_ITEMS_PER_S], 1, 3);
            cell(itl, sizeof itl, f[JL_FIG_BATCH_LATENCY_S], 1000, 0);
            snprintf(p90, sizeof p90, "-");
        } else {
            cell(ept, sizeof ept, f[JL_FIG_ENERGY_PER_TOKEN_J], 1, 4);
            cell(tps, sizeof tps, f[JL_FIG_OUTPUT_THROUGHPUT_TOK_S], 1, 0);
            cell(itl, sizeof itl, f[JL_FIG_MEDIAN_ITL_S], 1000, 1);
            cell(p90, sizeof p90, f[JL_FIG_P90_ITL_S], 1000, 1);
        }
        cell(avg, sizeof avg, f[JL_FIG_AVG_POWER_W], 1, 0);
        cell(peak, sizeof peak, f[JL_FIG_PEAK_POWER_W], 1, 0);
        cell(idle, sizeof idle, f[JL_FIG_STATIC_ENERGY_SHARE], 100, 0);
        cell(bat, sizeof bat, f[JL_FIG_AVG_BATCH_SIZE], 1, 1);
        printf("%-34.34s %-10.10s %-28.28s %-6.6s %3ld %5ld %-9s %8s %9s %10s %7s %7s %5s %9s %7s %7s %6s %4zu\n",
               cli_basename(s->file ? s->file : "-"), s->run ? s->run : "-",
               s->attrs.model ? s->attrs.model : "-",
               s->attrs.gpu_model ? s->attrs.gpu_model : "-", s->attrs.num_gpus,
               s->attrs.max_batch_size, jl_steady_method_name(s->steady_method), dur, en,
               ept, avg, peak, idle, tps, bat, itl, p90, s->n_warnings);
    }
    /* Warnings in words under the table, so the person sees why. */
    int any = 0;
    for (size_t i = 0; i < l->count; i++)
        for (size_t w = 0; w < l->items[i]->n_warnings; w++) {
            if (!any++)
                printf("\nwarnings:\n");
            printf("  %s %s: [%s] %s\n", cli_basename(l->items[i]->file), l->items[i]->run,
                   l->items[i]->warnings[w].rule, l->items[i]->warnings[w].message);
        }
}

static jl_status write_csv(const char *path, const void *result, const jl_summary_list *l,
                           jl_error **err)
{
    (void)result;
    return jl_write_summaries_csv(path, l, err);
}

static json_t *to_json(const void *result, const jl_summary_list *l)
{
    (void)result;
    return jl_summary_document(l, NULL); /* cli_emit adds the errors */
}

/* The result is the study's runs themselves. */
static const cli_output output = {write_csv, to_json, print_table};

int jl_cmd_summarize(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_CSV };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", required_argument, NULL, OPT_CSV},
        {"help", no_argument, NULL, 'h'},
        CLI_STUDY_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "summarize", *csv = NULL;
    int json = 0, c, rc = JL_EXIT_OK;
    cli_study cs;
    cli_study_init(&cs);
    cs.opt.trace.summary_fields_only = 1; /* summaries only: skip unused datasets */
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("summarize", help); goto out;
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        default: rc = cli_other_option(&cs, cmd, c, argv); break;
        }
        if (rc)
            goto out;
    }
    cli_install_signal_cleanup();
    if (!(rc = cli_study_load(&cs, cmd, argv + optind, argc - optind)))
        rc = cli_emit(cmd, &cs, csv, json, &output, NULL);
out:
    cli_study_free(&cs);
    return rc;
}
