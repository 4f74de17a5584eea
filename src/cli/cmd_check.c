/* joules check — every validation rule for every run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"

static const char *const help =
    "usage: joules check [--json | --jsonl] [--problems] [--list-rules] [options] PATH...\n\n"
    "Judge every run by the validation rules (joules.rules/1): power-sample\n"
    "coverage of the window, steady-state duration, batch saturation, power\n"
    "within idle..TDP, peak power, energy counter vs integral agreement, SM\n"
    "clock sanity, failed requests. Each rule: pass, warn, fail or skip, with\n"
    "the figure it judged. Exit status 1 when any run fails a rule.\n\n"
    "  --json          print a joules.check/1 document on stdout\n"
    "  --list-rules    print the rules with their thresholds and exit\n"
    "  --problems      text: only the warn and fail results (and the runs that have\n"
    "                  them); the totals line still counts everything\n" CLI_STUDY_HELP
    "  -h, --help      this help\n\nRules and defaults: check.md.\n";

static void list_rules(const jl_ruleset *rs)
{
    printf("%-24s %-6s %-8s %10s %10s  %s\n", "rule", "unit", "enabled", "warn", "fail", "judges");
    for (int r = 0; r < JL_RULE_COUNT; r++) {
        const jl_rule *x = &rs->rules[r];
        printf("%-24s %-6s %-8s %10.4g %10.4g  %s (%s is better)\n", x->name, x->unit,
               x->enabled ? "yes" : "no", x->warn, x->fail, x->doc,
               x->higher_is_better ? "higher" : "lower");
    }
}

/* The text form, printed from the same document as --json; problems: only
 * warn and fail lines, and only the runs that have one. */
static void print_text(const json_t *doc, const cli_study *cs, size_t n_failed_runs, int problems)
{
    json_t *runs = json_object_get(doc, "runs");
    size_t shown = 0;
    for (size_t i = 0; i < cs->runs.count; i++) {
        const jl_summary *s = cs->runs.items[i];
        json_t *rules = json_object_get(json_array_get(runs, i), "rules");
        int header = 0;
        for (int r = 0; r < JL_RULE_COUNT; r++) {
            json_t *ro = json_object_get(rules, cs->rules.rules[r].name);
            const char *level = json_string_value(json_object_get(ro, "level"));
            if (problems && (!level || (strcmp(level, "warn") && strcmp(level, "fail"))))
                continue;
            if (!header++) {
                printf("%s run %s (%s, %s x%ld, max_batch_size %ld)\n", s->file, s->run,
                       s->attrs.model ? s->attrs.model : "?",
                       s->attrs.gpu_model ? s->attrs.gpu_model : "?", s->attrs.num_gpus,
                       s->attrs.max_batch_size);
                shown++;
            }
            printf("  %-4s %-24s %s\n", level, cs->rules.rules[r].name,
                   json_string_value(json_object_get(ro, "message")));
        }
    }
    if (problems && !shown)
        printf("no warn or fail result\n");
    json_t *t = json_object_get(doc, "totals");
    printf(
        "\n%zu runs: %zu rule results pass, %zu warn, %zu fail, %zu skipped; %zu runs fail a rule\n",
        cs->runs.count, (size_t)json_integer_value(json_object_get(t, "pass")),
        (size_t)json_integer_value(json_object_get(t, "warn")),
        (size_t)json_integer_value(json_object_get(t, "fail")),
        (size_t)json_integer_value(json_object_get(t, "skip")), n_failed_runs);
}

enum { OPT_LIST = CLI_OPT_FIRST_FREE, OPT_PROBLEMS };

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    int *flags = ctx; /* --list-rules, --problems */
    (void)cmd;
    (void)arg;
    flags[code - OPT_LIST] = 1;
    return 0;
}

static const struct option longopts[] = {
    CLI_JSON_LONG_OPTION,
    {"list-rules", no_argument, NULL, OPT_LIST},
    {"problems", no_argument, NULL, OPT_PROBLEMS},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_check = {":h", longopts};

int cli_cmd_check(int argc, char **argv)
{
    const char *cmd = "check";
    int flags[2] = {0, 0}; /* list, problems */
    json_t *doc = NULL;
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_check.optstring, longopts,
                       own_option, flags);
    if (rc || cs.helped)
        goto out;
    if (flags[0]) {
        list_rules(&cs.rules);
        goto out;
    }
    static const cli_output rows = {NULL, NULL, NULL, "runs", 0, 0};
    if ((rc = cli_study_start(&cs, cmd, argc, argv, &rows)))
        goto out;
    size_t n_failed_runs = 0;
    doc = jl_check_document(&cs.runs, &cs.rules, cs.desc, &cs.errors, &n_failed_runs);
    if (doc && cs.names == JL_NAMES_MLENERGY)
        jl_json_rename_mlenergy(doc);
    if (doc && cs.jsonl) {
        rc = cli_print_jsonl(cmd, &cs, doc, "runs");
        doc = NULL; /* released */
    } else if (!doc || cs.json) {
        rc = cli_write_document(cmd, doc); /* NULL: out of memory */
    } else {
        print_text(doc, &cs, n_failed_runs, flags[1]);
    }
    if (!rc)
        rc = cli_study_exit(&cs);
    if (!rc && n_failed_runs)
        rc = CLI_EXIT_PARTIAL; /* a run that fails a rule is a failed input */
out:
    json_decref(doc);
    cli_study_free(&cs);
    return rc;
}
