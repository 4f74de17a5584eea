/* What every analysis command shares: --where/--exclude, --workers, limits,
 * loading the study, reporting errors once, progress on a terminal. */
#ifndef JOULES_CLI_COMMON_H
#define JOULES_CLI_COMMON_H

#include <getopt.h>
#include <stdio.h>

#include "joules/check.h"
#include "joules/descriptors.h"
#include "joules/output.h"
#include "joules/study.h"

/* Option codes >= 256 so they never clash with short options. */
enum {
    CLI_OPT_WHERE = 256,
    CLI_OPT_EXCLUDE,
    CLI_OPT_WORKERS,
    CLI_OPT_MAX_ROWS,
    CLI_OPT_MAX_DATASET_BYTES,
    CLI_OPT_RULES,
    CLI_OPT_SET_RULE,
    CLI_OPT_FIRST_FREE /* commands number their own options from here */
};

#define CLI_STUDY_LONG_OPTIONS                                                 \
    {"where", required_argument, NULL, CLI_OPT_WHERE},                         \
    {"exclude", required_argument, NULL, CLI_OPT_EXCLUDE},                     \
    {"workers", required_argument, NULL, CLI_OPT_WORKERS},                     \
    {"max-rows", required_argument, NULL, CLI_OPT_MAX_ROWS},                   \
    {"max-dataset-bytes", required_argument, NULL, CLI_OPT_MAX_DATASET_BYTES}, \
    {"rules", required_argument, NULL, CLI_OPT_RULES},                         \
    {"set-rule", required_argument, NULL, CLI_OPT_SET_RULE}

#define CLI_STUDY_HELP                                                         \
    "  --where KEY=V1,V2      keep runs whose attribute KEY is one of the values (repeatable)\n" \
    "  --exclude KEY=V1,V2    drop runs whose attribute KEY is one of the values (repeatable)\n" \
    "  --workers N            summarise files in N worker processes (default 1)\n" \
    "  --max-rows N           refuse datasets with more rows (default 2^31)\n" \
    "  --max-dataset-bytes N  refuse datasets larger than N bytes decoded (default 4 GiB)\n" \
    "  --rules FILE           validation thresholds (joules.rules/1 JSON, docs/check.md)\n" \
    "  --set-rule R.warn=X    tune one rule (also R.fail=X, R=off); repeatable\n"

typedef struct cli_study {
    jl_selector *sel;
    jl_ruleset rules;       /* validation rules, annotated onto every summary */
    jl_descriptors *desc;   /* models/ descriptors, NULL when not found */
    jl_study_options opt;
    jl_summary_list runs;
    jl_error_list errors;
} cli_study;

void cli_study_init(cli_study *cs);
void cli_study_free(cli_study *cs);

/* Handle a shared option. Returns 1 if handled, 0 if not ours, -1 on a usage
 * error (already printed). */
int cli_study_option(cli_study *cs, const char *cmd, int code, const char *arg);

/* Load every path, apply the selection, print each error once to stderr.
 * Returns 0, or an exit code when the study cannot go on at all. */
int cli_study_load(cli_study *cs, const char *cmd, char **paths, int n_paths);

/* The exit code after a command wrote its outputs. */
int cli_study_exit(const cli_study *cs);

/* Print one error line to stderr: "joules CMD: <formatted error>". */
void cli_print_error(const char *cmd, const jl_error *e);

/* Usage error: message to stderr, returns JL_EXIT_USAGE. Commands set
 * opterr = 0 and report an unknown option as
 * cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]). */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parse a positive integer option; -1 on error (printed). */
long cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max);

/* Install SIGINT/SIGTERM handlers that remove half-written outputs. */
void cli_install_signal_cleanup(void);

/* Basename of a path, for tables. */
const char *cli_basename(const char *path);

#endif
