/* joules report — the whole analysis as a directory a person can open. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/report.h"

static const char *const help =
    "usage: joules report -o DIR [--slo [WORKLOAD:]EXPR]... [options] PATH...\n\n"
    "Run the whole analysis and write DIR: index.html (one self-contained page: the\n"
    "minimum-energy configuration per (model, task) at the SLOs, frontiers, findings,\n"
    "a section per group, every run), data/ (the JSON and CSV documents of every\n"
    "command), figures/ (SVG, PDF, PNG drawn by gnuplot, with their .gp scripts and\n"
    ".dat data) and notebooks-export/ (Jupyter notebooks redrawing each figure).\n"
    "DIR is built beside itself and renamed into place at the end; an interrupted\n"
    "run leaves nothing behind.\n\n"
    "  -o, --output DIR       the report directory (required)\n"
    "  --force                replace DIR if it exists\n"
    "  --slo [W:]EXPR         SLO for workload W (llm, mllm, diffusion) or for all;\n"
    "                         repeatable, the last matching one wins. Defaults:\n"
    "                         " JL_REPORT_DEFAULT_SLO_LLM " (llm, mllm), " JL_REPORT_DEFAULT_SLO_DIFFUSION " (diffusion)\n"
    "  --gnuplot PROGRAM      the gnuplot to run (default: gnuplot from PATH)\n"
    "  --no-figures           write the figures' .gp and .dat files but do not draw them\n"
    "  --templates DIR        notebook templates (default: the repository's notebooks-export/)\n"
    CLI_STUDY_HELP
    "  -h, --help             this help\n\n"
    "Without gnuplot the report is still written (figures skipped, noted in the page\n"
    "and on stderr). What each figure shows: report.md. Exit status: cli.md.\n";

/* --slo [W:]EXPR: the SLO joins slos (which owns it) and an entry for its
 * workload (NULL: every workload) joins *rs. Returns 0 or an exit code. */
static int add_slo(const char *cmd, const char *arg, cli_slos *slos, jl_report_slo **rs)
{
    static const char *const workloads[] = {"llm", "mllm", "diffusion"};
    const char *workload = NULL, *expr = arg, *colon = strchr(arg, ':');
    if (colon) {
        for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
            if ((size_t)(colon - arg) == strlen(workloads[i]) &&
                !strncmp(arg, workloads[i], strlen(workloads[i])))
                workload = workloads[i];
        if (!workload)
            return cli_usage_error(cmd, "--slo %s: unknown workload '%.*s' (llm, mllm, diffusion)",
                                   arg, (int)(colon - arg), arg);
        expr = colon + 1;
    }
    jl_report_slo *n = realloc(*rs, (slos->n + 1) * sizeof *n);
    if (!n) {
        fprintf(stderr, "joules %s: out of memory\n", cmd);
        return JL_EXIT_INTERNAL;
    }
    *rs = n;
    if (cli_slos_add(slos, cmd, expr))
        return JL_EXIT_USAGE;
    n[slos->n - 1] = (jl_report_slo){workload, slos->items[slos->n - 1]};
    return 0;
}

static void progress(void *ctx, const char *phase, size_t done, size_t total, const char *current)
{
    (void)ctx;
    fprintf(stderr, "\r[report: %s %zu/%zu] %-50.50s", phase, done, total, current ? current : "");
    if (done == total)
        fputs("\r\033[K", stderr);
}

int jl_cmd_report(int argc, char **argv)
{
    enum { OPT_FORCE = CLI_OPT_FIRST_FREE, OPT_SLO, OPT_GNUPLOT, OPT_NO_FIGURES, OPT_TEMPLATES };
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, OPT_FORCE},
        {"slo", required_argument, NULL, OPT_SLO},
        {"gnuplot", required_argument, NULL, OPT_GNUPLOT},
        {"no-figures", no_argument, NULL, OPT_NO_FIGURES},
        {"templates", required_argument, NULL, OPT_TEMPLATES},
        {"help", no_argument, NULL, 'h'},
        CLI_STUDY_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "report";
    const char *out_dir = NULL;
    jl_report_options ro;
    jl_report_options_default(&ro);
    cli_slos slos = {0};
    jl_report_slo *rs = NULL; /* one per SLO, in order */
    cli_study cs;
    cli_study_init(&cs);
    int c, rc = JL_EXIT_OK;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h': cli_help("report", help); goto done;
        case 'o': out_dir = optarg; break;
        case OPT_FORCE: ro.replace = 1; break;
        case OPT_GNUPLOT: ro.gnuplot = optarg; break;
        case OPT_NO_FIGURES: ro.gnuplot = ""; break;
        case OPT_TEMPLATES: ro.templates_dir = optarg; break;
        case OPT_SLO: rc = add_slo(cmd, optarg, &slos, &rs); break;
        default: rc = cli_other_option(&cs, cmd, c, argv); break;
        }
        if (rc)
            goto done;
    }
    if (cs.jsonl || cs.names != JL_NAMES_JOULES) {
        rc = cli_usage_error(cmd, "--jsonl and --names belong to the commands that print "
                                  "(summarize, pick, ...), not to report");
        goto done;
    }
    if (!out_dir) {
        rc = cli_usage_error(cmd, "no output directory given (-o DIR)");
        goto done;
    }
    if (optind >= argc) {
        rc = cli_usage_error(cmd, "no PATH given");
        goto done;
    }
    if (!ro.replace && access(out_dir, F_OK) == 0) {
        fprintf(stderr, "joules %s: %s already exists (use --force to replace it)\n", cmd, out_dir);
        rc = JL_EXIT_USAGE;
        goto done;
    }
    cli_install_signal_cleanup();
    rc = cli_study_load(&cs, cmd, argv + optind, argc - optind);
    if (rc)
        goto done;
    if (cs.runs.count == 0) {
        fprintf(stderr, "joules %s: no runs to report on\n", cmd);
        rc = JL_EXIT_NOINPUT;
        goto done;
    }
    ro.slos = rs;
    ro.n_slos = slos.n;
    ro.inputs = (const char *const *)(argv + optind);
    ro.n_inputs = (size_t)(argc - optind);
    ro.rules = &cs.rules;
    ro.desc = cs.desc;
    /* A generated-at line in the page (not in any data document);
     * SOURCE_DATE_EPOCH makes it reproducible. */
    char when[64] = "";
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t now = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tmv);
    ro.generated_at = when[0] ? when : NULL;
    if (isatty(STDERR_FILENO))
        ro.progress = progress;
    jl_report_result res;
    jl_error *err = NULL;
    jl_status st = jl_report_write(out_dir, &cs.runs, &cs.errors, &ro, &res, &err);
    for (size_t i = 0; i < res.n_notes; i++)
        fprintf(stderr, "joules %s: warning: %s\n", cmd, res.notes[i]);
    if (st != JL_OK) {
        rc = st == JL_EUSAGE ? JL_EXIT_USAGE : st == JL_ENOMEM ? JL_EXIT_INTERNAL : JL_EXIT_OUTPUT;
        cli_fail(cmd, err, rc);
    } else {
        fprintf(stderr, "joules %s: wrote %s/index.html: %zu runs, %zu groups, %zu of %zu figures drawn, %zu data files\n",
                cmd, out_dir, cs.runs.count, res.n_groups, res.n_figures_drawn, res.n_figures,
                res.n_data_files);
        rc = cli_study_exit(&cs);
    }
    jl_report_result_clear(&res);
done:
    free(rs);
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return rc;
}
