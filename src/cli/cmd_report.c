/* joules report — the whole analysis as a directory a person can open. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"
#include "joules/report.h"

static const char *const help =
    "usage: joules report -o DIR [--slo [WORKLOAD:]EXPR]... [options] PATH...\n\n"
    "Run the whole analysis and write DIR: index.html (the page: the minimum-energy\n"
    "configuration per (model, task) and GPU model at the paper's SLO set, task\n"
    "overviews, frontiers, findings, a section per group; figures referenced from\n"
    "figures/, it opens offline), runs.html (every run), data/ (the JSON and CSV\n"
    "documents of every command), figures/ (drawn by gnuplot, with their .gp scripts\n"
    "and .dat data) and notebooks-export/ (Jupyter notebooks redrawing each figure).\n"
    "DIR is built beside itself and renamed into place at the end; an interrupted\n"
    "run leaves nothing behind.\n\n"
    "  -o, --output DIR       the report directory (required)\n"
    "  --force                replace DIR if it exists\n"
    "  --slo [W:]EXPR         SLO for workload W (llm, mllm, diffusion) or for all;\n"
    "                         W also image or video (diffusion items); repeatable,\n"
    "                         the last matching one wins. An SLO without W applies\n"
    "                         where its figures exist (p90_itl: LLM/MLLM only; the\n"
    "                         others keep their defaults, a note says so). Defaults:\n"
    "                         the paper's sets, LLM/MLLM median ITL 50/100/250 ms,\n"
    "                         images 10/30/60 s, videos 100/500/1000 s (the middle\n"
    "                         one picks)\n"
    "  --gpus M1,M2           only runs on these GPU models (= --where gpu_model=M1,M2)\n"
    "  --formats LIST         figure formats, of svg,pdf,png (default svg); pdf writes\n"
    "                         ID.pdf (7 in wide) and ID.1col.pdf (3.3 in wide)\n"
    "  --workers N            files summarised and gnuplot processes run at once\n"
    "                         (default: the online CPUs for figures, 1 for loading)\n"
    "  --gnuplot PROGRAM      the gnuplot to run (default: gnuplot from PATH)\n"
    "  --no-figures           write the figures' .gp and .dat files but do not draw them\n"
    "  --templates DIR        notebook templates (default: the repository's notebooks-export/)\n"
    "  --baseline GPU         the GPU model the comparisons are against (default: the\n"
    "                         first, alphabetically); energy change = E_GPU/E_baseline - 1,\n"
    "                         negative = less energy, as in `joules compare`\n"
    "  --no-data              no data/ (nor notebooks-export/, which reads it): the pages\n"
    "                         and figures only\n"
    "  --single-page          one self-contained index.html (figures inside it, no\n"
    "                         runs.html or diagnosis.html; implies --no-data): a page\n"
    "                         to mail\n"
    "  --budgets FILE         a joules.budgets/1 file: a budgets section (each run's and\n"
    "                         group's verdicts, the adherence rate, figures vs\n"
    "                         ceilings), data/budget.json, and the per-class verdicts\n"
    "                         of the profiled runs in attribution.html (accounting.md)\n" CLI_STUDY_HELP_SELECT
        CLI_STUDY_HELP_LIMITS "  -h, --help             this help\n\n"
    "Progress goes to stderr: a status line on a terminal, otherwise a line at least\n"
    "every ~2 s of work; a summary line at the end either way.\n"
    "Without gnuplot the report is still written (figures skipped, noted in the page\n"
    "and on stderr). What each figure shows: report.md. Exit status: cli.md.\n";

/* --slo [W:]EXPR: the SLO joins slos (which owns it) and an entry for its
 * workload (NULL: every workload) joins *rs. Returns 0 or an exit code. */
static int add_slo(const char *cmd, const char *arg, cli_slos *slos, jl_report_slo **rs)
{
    static const char *const workloads[] = {"llm", "mllm", "diffusion", "image", "video"};
    const char *workload = NULL, *expr = arg, *colon = strchr(arg, ':');
    if (colon) {
        for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
            if ((size_t)(colon - arg) == strlen(workloads[i]) &&
                !strncmp(arg, workloads[i], strlen(workloads[i])))
                workload = workloads[i];
        if (!workload)
            return cli_usage_error(
                cmd, "--slo %s: unknown workload '%.*s' (llm, mllm, diffusion, image, video)", arg,
                (int)(colon - arg), arg);
        expr = colon + 1;
    }
    jl_report_slo *n = realloc(*rs, (slos->n + 1) * sizeof *n);
    if (!n)
        return cli_oom(cmd);
    *rs = n;
    int rc = cli_slos_add(slos, cmd, expr);
    if (rc)
        return rc;
    n[slos->n - 1] = (jl_report_slo){workload, slos->items[slos->n - 1]};
    return 0;
}

static void load_progress(void *ctx, size_t done, size_t total, const char *current)
{
    const char *b = current ? strrchr(current, '/') : NULL;
    cli_progress(ctx, "loading", done, total, b ? b + 1 : current);
}

/* --formats svg,pdf,png -> JL_REPORT_* bits; 0 on an unknown name. */
static unsigned parse_formats(const char *arg)
{
    unsigned f = 0;
    const char *p = arg;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 3 && !strncmp(p, "svg", 3))
            f |= JL_REPORT_SVG;
        else if (n == 3 && !strncmp(p, "pdf", 3))
            f |= JL_REPORT_PDF;
        else if (n == 3 && !strncmp(p, "png", 3))
            f |= JL_REPORT_PNG;
        else
            return 0;
        p += n;
        if (*p == ',')
            p++;
    }
    return f;
}

enum {
    OPT_FORCE = CLI_OPT_FIRST_FREE,
    OPT_SLO,
    OPT_GNUPLOT,
    OPT_NO_FIGURES,
    OPT_TEMPLATES,
    OPT_FORMATS,
    OPT_GPUS,
    OPT_BASELINE,
    OPT_NO_DATA,
    OPT_SINGLE_PAGE,
    OPT_BUDGETS
};

/* report's own options */
typedef struct report_args {
    cli_study *cs;
    const char *out_dir;
    jl_report_options ro;
    cli_slos slos;
    jl_report_slo *rs; /* one per SLO, in order */
    char **gpus;       /* --gpus, split */
    size_t n_gpus;
    jl_budgets *budgets; /* --budgets FILE, loaded */
} report_args;

/* --gpus M1,M2: the whole report is restricted (a selection like --where)
 * and the page's GPU sections follow the list. */
static int add_gpus(const char *cmd, report_args *a, const char *arg)
{
    size_t cap = strlen(arg) + 16;
    char *sel = malloc(cap);
    if (sel)
        snprintf(sel, cap, "gpu_model=%s", arg);
    int rc = sel ? cli_study_where(a->cs, cmd, 0, sel) : cli_oom(cmd);
    free(sel);
    for (const char *p = arg; !rc && *p;) {
        size_t n = strcspn(p, ",");
        char **ng = n ? realloc(a->gpus, (a->n_gpus + 1) * sizeof *ng) : a->gpus;
        if (n && ng) {
            a->gpus = ng;
            a->gpus[a->n_gpus++] = strndup(p, n);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return rc;
}

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    report_args *a = ctx;
    switch (code) {
    case 'o': a->out_dir = arg; return 0;
    case OPT_FORCE: a->ro.replace = 1; return 0;
    case OPT_GNUPLOT: a->ro.gnuplot = arg; return 0;
    case OPT_NO_FIGURES: a->ro.gnuplot = ""; return 0;
    case OPT_TEMPLATES: a->ro.templates_dir = arg; return 0;
    case OPT_SLO: return add_slo(cmd, arg, &a->slos, &a->rs);
    case OPT_BASELINE: a->ro.gpu_baseline = arg; return 0;
    case OPT_NO_DATA: a->ro.no_data = 1; return 0;
    case OPT_SINGLE_PAGE: a->ro.single_page = a->ro.no_data = 1; return 0;
    case OPT_BUDGETS: {
        jl_error *err = NULL;
        jl_budgets_free(a->budgets);
        a->budgets = NULL;
        jl_status st = jl_budgets_load(arg, &a->budgets, &err);
        if (st != JL_OK) {
            cli_print_error(cmd, err);
            jl_error_free(err);
            return st == JL_ENOMEM ? cli_oom(cmd) : cli_exit_for_status(JL_EUSAGE);
        }
        a->ro.budgets = a->budgets;
        a->ro.budgets_path = arg;
        return 0;
    }
    case OPT_FORMATS:
        if (!(a->ro.formats = parse_formats(arg)))
            return cli_usage_error(cmd, "--formats %s: a comma-separated list of svg, pdf, png",
                                   arg);
        return 0;
    default: return add_gpus(cmd, a, arg);
    }
}

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"slo", required_argument, NULL, OPT_SLO},
    {"gnuplot", required_argument, NULL, OPT_GNUPLOT},
    {"no-figures", no_argument, NULL, OPT_NO_FIGURES},
    {"templates", required_argument, NULL, OPT_TEMPLATES},
    {"formats", required_argument, NULL, OPT_FORMATS},
    {"gpus", required_argument, NULL, OPT_GPUS},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"no-data", no_argument, NULL, OPT_NO_DATA},
    {"single-page", no_argument, NULL, OPT_SINGLE_PAGE},
    {"budgets", required_argument, NULL, OPT_BUDGETS},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_report = {":ho:", longopts};

int cli_cmd_report(int argc, char **argv)
{
    const char *cmd = "report";
    cli_study cs;
    cli_study_init(&cs);
    report_args a = {.cs = &cs};
    jl_report_options_default(&a.ro);
    cli_progress_state ps;
    cli_progress_init(&ps, cmd);
    /* --workers: loading and drawing both (0 until given: drawing then
     * defaults to the online CPUs, loading to 1) */
    cs.opt.workers = 0;
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_report.optstring, longopts,
                       own_option, &a);
    if (cs.opt.workers)
        a.ro.workers = cs.opt.workers;
    else
        cs.opt.workers = 1;
    if (rc || cs.helped)
        goto done;
    if (cs.jsonl || cs.names != JL_NAMES_JOULES) {
        rc = cli_usage_error(cmd, "--jsonl and --names belong to the commands that print "
                                  "(summarize, pick, ...), not to report");
        goto done;
    }
    if (!a.out_dir) {
        rc = cli_usage_error(cmd, "no output directory given (-o DIR)");
        goto done;
    }
    if (optind >= argc) {
        rc = cli_usage_error(cmd, "no PATH given");
        goto done;
    }
    if (!a.ro.replace && access(a.out_dir, F_OK) == 0) {
        fprintf(stderr, "joules %s: %s already exists (use --force to replace it)\n", cmd,
                a.out_dir);
        rc = cli_exit_for_status(JL_EUSAGE);
        goto done;
    }
    cli_install_signal_cleanup();
    cli_set_interrupt_message("%sjoules %s: interrupted: %s was not written (its temporary "
                              "directory was removed%s)\n",
                              ps.tty ? "\r\033[K" : "", cmd, a.out_dir,
                              access(a.out_dir, F_OK) == 0 ? "; the existing one is unchanged"
                                                           : "");
    if (!ps.tty) {
        cs.opt.progress = load_progress;
        cs.opt.progress_ctx = &ps;
    }
    rc = cli_study_load(&cs, cmd, argv + optind, argc - optind);
    if (rc)
        goto done;
    if (cs.runs.count == 0) {
        fprintf(stderr, "joules %s: no runs to report on\n", cmd);
        rc = cli_exit_for_status(JL_ENODATA);
        goto done;
    }
    a.ro.slos = a.rs;
    a.ro.n_slos = a.slos.n;
    a.ro.inputs = (const char *const *)(argv + optind);
    a.ro.n_inputs = (size_t)(argc - optind);
    a.ro.rules = &cs.rules;
    a.ro.desc = cs.desc;
    /* A generated-at line in the page (not in any data document);
     * SOURCE_DATE_EPOCH makes it reproducible. */
    char when[64] = "";
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t now = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tmv);
    a.ro.generated_at = when[0] ? when : NULL;
    a.ro.progress = cli_progress;
    a.ro.progress_ctx = &ps;
    a.ro.gpus = (const char *const *)a.gpus;
    a.ro.n_gpus = a.n_gpus;
    jl_report_result res;
    jl_error *err = NULL;
    jl_status st = jl_report_write(a.out_dir, &cs.runs, &cs.errors, &a.ro, &res, &err);
    if (ps.tty)
        fputs("\r\033[K", stderr); /* the status line gone before the last lines */
    for (size_t i = 0; i < res.n_notes; i++)
        fprintf(stderr, "joules %s: warning: %s\n", cmd, res.notes[i]);
    if (st != JL_OK) {
        rc = cli_fail(cmd, st, err);
    } else {
        fprintf(
            stderr,
            "joules %s: wrote %s/index.html in %.1f s: %zu runs, %zu groups, %zu of %zu figures drawn (%.1f s), %zu data files\n",
            cmd, a.out_dir, cli_now_s() - ps.t0, cs.runs.count, res.n_groups, res.n_figures_drawn,
            res.n_figures, res.figures_s, res.n_data_files);
        rc = cli_study_exit(&cs);
    }
    jl_report_result_clear(&res);
done:
    for (size_t i = 0; i < a.n_gpus; i++)
        free(a.gpus[i]);
    free(a.gpus);
    free(a.rs);
    jl_budgets_free(a.budgets);
    cli_slos_free(&a.slos);
    cli_study_free(&cs);
    return rc;
}
