/* joules budget — ceilings from a joules.budgets/1 file judged per run and
 * group: pass, fail, or undetermined when the figure's interval crosses
 * the ceiling; exit 1 when any fails (a CI gate). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"

static const char *const help =
    "usage: joules budget --budgets FILE [--json] [options] PATH...\n\n"
    "Judge every run a budget selects against its ceilings (energy per token,\n"
    "request or item, average or peak power, kWh per day at a stated load,\n"
    "gCO2eq per request): pass when the figure's interval (the relative\n"
    "uncertainty, default 5 %, or the run's counter-vs-integral disagreement when\n"
    "larger) lies at or under the ceiling, fail when it lies above, undetermined\n"
    "when it crosses. Per group (model, task, GPU model, GPU count) the worst of\n"
    "its runs. The adherence rate: runs passing / runs judged. The file's format:\n"
    "accounting.md. A budget's per-class ceilings (\"spans\") are judged on a\n"
    "profiled run's rows by joules attribute --budgets, not here.\n\n"
    "  --budgets FILE   the joules.budgets/1 file (required)\n"
    "  --window W       the energy judged: run (default: the whole run; a run with\n"
    "                   no whole-run energy is judged over its own window) or steady\n"
    "  --scope S        auto (default: the widest measured: node, else GPUs + host,\n"
    "                   else GPUs), gpu, host, node or provisioned; peak_power_w is\n"
    "                   always its own figure (the steady state at power/'s scope)\n"
    "  --json           print the joules.budget/1 document\n" CLI_STUDY_HELP
    "  -h, --help       this help\n\n"
    "Exit status: 1 when any run fails a budget (or cannot give the energy asked\n"
    "for, or some input failed), else as\n"
    "every command (cli.md).\n";

typedef struct ctx {
    const char *path, *window, *scope;
    jl_budgets *b;
} ctx;

static const jl_budgets *the_budgets;
static const char *the_window, *the_scope; /* as typed, for the left-out line */

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_budget_result *r = result;
    const jl_budgets *b = the_budgets;
    cli_left_out lo = {0};
    for (size_t c = 0; c < r->n_checks; c++) /* each (budget, run) once */
        if (!c || r->checks[c].run != r->checks[c - 1].run ||
            r->checks[c].budget != r->checks[c - 1].budget)
            cli_left_out_add(&lo, &r->checks[c].counted);
    for (size_t i = 0; i < jl_budgets_count(b); i++) {
        printf("%s\n", jl_budgets_name(b, i));
        if (!jl_budgets_run_ceilings(b, i))
            printf("  per span class only (%zu ceilings): judged by joules attribute --budgets\n",
                   jl_budgets_span_ceilings(b, i));
        for (size_t c = 0; c < r->n_checks; c++) {
            const jl_budget_check *k = &r->checks[c];
            if (k->budget != i)
                continue;
            const jl_summary *s = l->items[k->run];
            printf("  %-12s %-22s %-6s %-10s %-26s %.4g [%.4g, %.4g] <= %.4g  %s:%s\n",
                   jl_budget_verdict_name(k->verdict), k->ceiling,
                   jl_window_name(k->boundary.window), jl_scope_name(k->boundary.scope),
                   s->attrs.gpu_model ? s->attrs.gpu_model : "-", k->value, k->lo, k->hi, k->max,
                   cli_basename(s->file), s->run);
        }
        for (size_t g = 0; g < r->n_groups; g++) {
            const jl_budget_group *gr = &r->groups[g];
            if (gr->budget != i)
                continue;
            const jl_attrs *a = &l->items[gr->first_run]->attrs;
            printf("  group %s %s %s x%ld: %s (%zu runs: %zu pass, %zu fail, %zu undetermined)\n",
                   a->model ? a->model : "-", a->task ? a->task : "-",
                   a->gpu_model ? a->gpu_model : "-", a->num_gpus,
                   jl_budget_verdict_name(gr->verdict), gr->n_runs, gr->n_pass, gr->n_fail,
                   gr->n_undetermined);
        }
    }
    printf("adherence: %zu of %zu runs judged pass", r->runs_pass,
           r->runs_pass + r->runs_fail + r->runs_undetermined);
    if (isfinite(r->adherence))
        printf(" (%.1f %%)", 100 * r->adherence);
    printf("; %zu fail, %zu undetermined, %zu unmeasured\n", r->runs_fail, r->runs_undetermined,
           r->runs_unmeasured);
    cli_left_out_print(&lo, the_window, the_scope, "runs judged");
    if (r->n_refused)
        printf("not judged: %zu run%s cannot give the energy asked for (--window, --scope)\n",
               r->n_refused, r->n_refused == 1 ? "" : "s");
}

static json_t *to_json(const void *r, const jl_summary_list *l)
{
    return jl_budget_document(r, the_budgets, l);
}

static const cli_output output = {NULL, to_json, print_table, "budgets/runs", 0, 0};

enum { OPT_BUDGETS = CLI_OPT_FIRST_FREE, OPT_WINDOW, OPT_SCOPE };

static int own_option(void *vctx, const char *cmd, int code, const char *arg)
{
    ctx *c = vctx;
    (void)cmd;
    *(code == OPT_WINDOW ? &c->window : code == OPT_SCOPE ? &c->scope : &c->path) = arg;
    return 0;
}

static const struct option longopts[] = {
    CLI_JSON_LONG_OPTION,
    {"budgets", required_argument, NULL, OPT_BUDGETS},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"scope", required_argument, NULL, OPT_SCOPE},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_budget = {":h", longopts};

int cli_cmd_budget(int argc, char **argv)
{
    const char *cmd = "budget";
    ctx c = {NULL, NULL, NULL, NULL};
    jl_budget_result *r = NULL;
    jl_account_boundary bound;
    jl_account_boundary_default(&bound);
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_budget.optstring, longopts,
                       own_option, &c);
    if (!rc && !cs.helped && !c.path)
        rc = cli_usage_error(cmd, "--budgets FILE is required");
    if (!rc && !cs.helped)
        rc = cli_account_boundary(cmd, c.window, c.scope, 0,
                                  "budgets state their PUE in kwh_per_day and "
                                  "g_co2eq_per_request",
                                  &bound);
    if (!rc && !cs.helped) {
        jl_error *err = NULL;
        jl_status st = jl_budgets_load(c.path, &c.b, &err);
        if (st != JL_OK) {
            cli_print_error(cmd, err);
            jl_error_free(err);
            rc = st == JL_ENOMEM ? cli_oom(cmd) : cli_exit_for_status(JL_EUSAGE);
        }
    }
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        jl_error *err = NULL;
        the_budgets = c.b;
        the_window = c.window;
        the_scope = c.scope;
        jl_status st = jl_budgets_evaluate_at(c.b, &cs.runs, &bound, &r, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : cli_emit(cmd, &cs, &output, r);
        for (size_t i = 0; st == JL_OK && i < r->n_refused; i++)
            fprintf(stderr, "joules %s: %s\n", cmd, r->refused[i]);
        if (st == JL_OK && rc == CLI_EXIT_OK && (r->runs_fail || r->n_refused))
            rc = CLI_EXIT_PARTIAL;
    }
    jl_budget_result_free(r);
    jl_budgets_free(c.b);
    cli_study_free(&cs);
    return rc;
}
