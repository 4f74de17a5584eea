/* What every analysis command shares: --where/--exclude, --workers, limits,
 * loading the study, reporting errors once, progress on a terminal, and
 * writing the result (CSV, JSON document or table) with its exit code. */
#ifndef JOULES_CLI_COMMON_H
#define JOULES_CLI_COMMON_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "cli/choice_common.h"
#include "joules/account.h"
#include "joules/check.h"
#include "joules/descriptors.h"
#include "joules/import.h"
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
    CLI_OPT_JSONL,
    CLI_OPT_NAMES,
    CLI_OPT_JSON,
    CLI_OPT_CSV,
    CLI_OPT_SLO,
    CLI_OPT_FORCE,
    CLI_OPT_ALLOW_EXTERNAL,
    CLI_OPT_REQUIRE_VALID,
    CLI_OPT_FIRST_FREE /* commands number their own options from here */
};

/* --json, --csv FILE, --slo EXPR and -h/--help: kept by cli_parse, for the
 * commands whose table names them. A study command's table starts with
 * CLI_OUTPUT_LONG_OPTIONS (--json, --csv) where it takes both, and ends
 * with CLI_END_LONG_OPTIONS (--help, the study options, the terminator). */
/* clang-format off */
#define CLI_JSON_LONG_OPTION {"json", no_argument, NULL, CLI_OPT_JSON}
#define CLI_CSV_LONG_OPTION {"csv", required_argument, NULL, CLI_OPT_CSV}
#define CLI_SLO_LONG_OPTION {"slo", required_argument, NULL, CLI_OPT_SLO}
#define CLI_HELP_LONG_OPTION {"help", no_argument, NULL, 'h'}
#define CLI_OUTPUT_LONG_OPTIONS CLI_JSON_LONG_OPTION, CLI_CSV_LONG_OPTION

#define CLI_STUDY_LONG_OPTIONS                                                 \
    {"where", required_argument, NULL, CLI_OPT_WHERE},                         \
    {"exclude", required_argument, NULL, CLI_OPT_EXCLUDE},                     \
    {"workers", required_argument, NULL, CLI_OPT_WORKERS},                     \
    {"max-rows", required_argument, NULL, CLI_OPT_MAX_ROWS},                   \
    {"max-dataset-bytes", required_argument, NULL, CLI_OPT_MAX_DATASET_BYTES}, \
    {"rules", required_argument, NULL, CLI_OPT_RULES},                         \
    {"set-rule", required_argument, NULL, CLI_OPT_SET_RULE},                   \
    {"jsonl", no_argument, NULL, CLI_OPT_JSONL},                               \
    {"names", required_argument, NULL, CLI_OPT_NAMES},                         \
    {"force", no_argument, NULL, CLI_OPT_FORCE},                               \
    {"allow-external-storage", no_argument, NULL, CLI_OPT_ALLOW_EXTERNAL},     \
    {"require-valid", no_argument, NULL, CLI_OPT_REQUIRE_VALID}
#define CLI_END_LONG_OPTIONS CLI_HELP_LONG_OPTION, CLI_STUDY_LONG_OPTIONS, {NULL, 0, NULL, 0}
/* clang-format on */

#define CLI_STUDY_HELP_SELECT                                                                    \
    "  --where KEY=V1,V2      keep runs whose attribute KEY is one of the values (repeatable;\n" \
    "                         also KEY!=V, 'KEY>=N', 'KEY<=N', 'KEY>N', 'KEY<N'; names\n"        \
    "                         such as gpu_model=h100 match whatever the case)\n"                 \
    "  --exclude KEY=V1,V2    drop runs whose attribute KEY is one of the values (repeatable)\n"
#define CLI_STUDY_HELP_WORKERS \
    "  --workers N            summarise files in N worker processes (default 1)\n"
#define CLI_STUDY_HELP_LIMITS                                                                \
    "  --max-rows N           refuse datasets with more rows (default 2^31)\n"               \
    "  --max-dataset-bytes N  refuse datasets larger than N bytes decoded (default 4 GiB)\n" \
    "  --rules FILE           validation thresholds (joules.rules/1 JSON, check.md)\n"       \
    "  --set-rule R.warn=X    tune one rule (also R.fail=X, R=off); repeatable\n"            \
    "  --allow-external-storage  read datasets a trace keeps in other files (HDF5\n"         \
    "                         external storage, virtual datasets): only for traces you\n"    \
    "                         trust (default: refused, security.md)\n"                       \
    "  --require-valid        exit 1, with each reason, when a run used is not valid\n"      \
    "                         (check.md, \"Reason codes\")\n"
#define CLI_STUDY_HELP_ROWS                                                                    \
    "  --jsonl                one JSON object per line and per row (run, point, ...), no\n"    \
    "                         envelope: pandas.read_json(FILE, lines=True)\n"                  \
    "  --names mlenergy       keys/columns named as the ML.ENERGY data toolkit names them\n"   \
    "                         (energy_per_token_joules, median_itl_ms, ...; default joules)\n" \
    "  --force                replace an output FILE that exists (--csv; without it joules\n"  \
    "                         refuses, as import and report do)\n"
/* The study options' help; a command that has its own words for one of
 * them (report: --workers; no --jsonl or --names) composes the parts. */
#define CLI_STUDY_HELP \
    CLI_STUDY_HELP_SELECT CLI_STUDY_HELP_WORKERS CLI_STUDY_HELP_LIMITS CLI_STUDY_HELP_ROWS

/* How a command shows its result: each callback gets the result and the
 * study's runs back. csv is NULL for a command without --csv. */
typedef struct cli_output {
    jl_status (*csv)(const char *path, const void *result, const jl_summary_list *runs,
                     jl_error **err);
    json_t *(*json)(const void *result, const jl_summary_list *runs);
    void (*table)(const void *result, const jl_summary_list *runs);
    /* --jsonl: the document's rows, "KEY" (an array of the document) or
     * "KEY/SUB" (the SUB array of each element of KEY, each row with its
     * parent's scalar fields added). NULL: the command has no --jsonl. */
    const char *rows;
    /* the csv callback honours --names (result points at a jl_names) */
    int csv_names;
    /* 1: the table shows the runs' headline energy figures: a line under it
     * names their boundaries (cli_print_boundaries) */
    int boundaries;
} cli_output;

typedef struct cli_study {
    jl_selector *sel;
    jl_ruleset rules;     /* validation rules, annotated onto every summary */
    jl_descriptors *desc; /* models/ descriptors, NULL when not found */
    jl_study_options opt;
    jl_summary_list runs;
    jl_error_list errors;
    int jsonl;       /* --jsonl */
    jl_names names;  /* --names */
    int json;        /* --json */
    const char *csv; /* --csv FILE, or NULL */
    int force;       /* --force: replace an output file that exists */
    cli_slos slos;   /* --slo, in order */
    int helped;      /* --help was printed: nothing more to do */
    int valid_only;  /* --require-valid: a run not valid stops the command (exit 1) */
} cli_study;

void cli_study_init(cli_study *cs);
/* Frees the study; its summaries are left to the operating system (kept
 * reachable) unless JOULES_FREE_AT_EXIT is set: call it as the command
 * ends. */
void cli_study_free(cli_study *cs);
/* jl_import_result_free as the command ends, the same way. */
void cli_import_result_release(jl_import_result *r);

/* One --where (exclude 0) or --exclude (1) clause. Returns 0 or an exit
 * code (printed). */
int cli_study_where(cli_study *cs, const char *cmd, int exclude, const char *clause);

/* A command's own option (code, optarg): 0 or an exit code (printed). */
typedef int (*cli_own_option)(void *ctx, const char *cmd, int code, const char *arg);

/* The option loop every analysis command shares: getopt_long(argc, argv,
 * optstring, longopts) from the start; -h/--help prints help (cs->helped),
 * --json, --csv, --slo and the study options (CLI_STUDY_LONG_OPTIONS) go
 * into cs, every other option to own (NULL: none); an unknown option is a
 * usage error. Leaves optind at the first PATH. Returns 0 or an exit code
 * (printed). */
int cli_parse(cli_study *cs, const char *cmd, const char *help, int argc, char **argv,
              const char *optstring, const struct option *longopts, cli_own_option own, void *ctx);

/* Load every path, apply the selection, print each error once to stderr.
 * Returns 0, or an exit code when the study cannot go on at all. */
int cli_study_load(cli_study *cs, const char *cmd, char **paths, int n_paths);

/* After cli_parse: the output options checked (cli_check_outputs, out may
 * be NULL), half-written outputs removed on a signal, and the study loaded
 * from the PATHs after the options. Returns 0 or an exit code (printed). */
int cli_study_start(cli_study *cs, const char *cmd, int argc, char **argv, const cli_output *out);

/* --require-valid: 0 when every run of runs is valid (or the option was not
 * given); else each run that is not and its reasons printed, and exit 1. */
int cli_require_valid(const char *cmd, int require, const jl_summary_list *runs);

/* Runs that are not valid taken out of cs->runs (each named on stderr with
 * its reasons, "use --allow-invalid to keep them"), unless allow. Returns 0
 * or an exit code: no run left is JL_ENODATA's. */
int cli_study_drop_invalid(cli_study *cs, const char *cmd, int allow);

/* The exit code after a command wrote its outputs. */
int cli_study_exit(const cli_study *cs);
/* The order every command prints runs in, people's order: by file, then by
 * run name with its numbers compared as numbers (b8, b16, b128): order[0..
 * l->count) the list's indices so sorted. */
void cli_run_order(const jl_summary_list *l, size_t *order);

/* The option getopt_long just rejected, named: "unknown option '--x'", or
 * for code ':' "option '--x' needs an argument". main() sets opterr = 0 so
 * getopt prints nothing itself, and optstrings start with ':' so a missing
 * argument comes back as ':'. Returns CLI_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int code, char *const *argv);

/* Print one error line to stderr: "joules CMD: <formatted error>". */
void cli_print_error(const char *cmd, const jl_error *e);

/* Print err (or, when NULL, the message of st), free it and return its exit
 * code (cli_exit_for_error: status and side): `return cli_fail(cmd, st, err)`. */
int cli_fail(const char *cmd, jl_status st, jl_error *err);

/* "out of memory" printed; returns its exit code. */
int cli_oom(const char *cmd);

/* Usage error: message to stderr, returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Parse a whole-number option in [min, max] into *out. Returns 0 or
 * CLI_EXIT_USAGE (printed). */
int cli_parse_long(const char *cmd, const char *opt, const char *arg, long min, long max,
                   long *out);

/* Parse a number option into *out when it lies in [lo, hi); otherwise a
 * usage error "OPT must be MUST" (or "not a number"). Returns 0 or
 * CLI_EXIT_USAGE (printed). For "> 0" pass lo = DBL_TRUE_MIN. */
int cli_parse_number(const char *cmd, const char *opt, const char *arg, double lo, double hi,
                     const char *must, double *out);

/* Under a table of energy figures: the boundaries they cover, from the
 * runs' headline boundaries ("energy: the steady-state window at GPU power
 * (steady/gpu: every run); summary.md, ...") on one line. */
void cli_print_boundaries(const jl_summary_list *l);

/* Under an account's table (label, budget): what its rows counted and
 * left out, summed over them (cli_left_out_add each row's jl_counted):
 * "counted: ...; left out: X kWh outside the windows counted, Y kWh
 * measured at wider scopes than counted; not measured: host power in a of
 * n ROWS, node power in b of n" (docs/accounting.md). */
typedef struct cli_left_out {
    size_t n, nm_host, nm_node, fallbacks, outside_unknown;
    double outside_j, wider_j;
} cli_left_out;
void cli_left_out_add(cli_left_out *t, const jl_counted *c);
void cli_left_out_print(const cli_left_out *t, const char *window, const char *scope,
                        const char *rows);

/* The accounts' --window and --scope (jl_account_boundary_parse) into *out;
 * --scope facility refused unless allow_facility (with why_not: what the
 * command counts instead). 0 or an exit code (printed). */
int cli_account_boundary(const char *cmd, const char *window, const char *scope, int allow_facility,
                         const char *why_not, jl_account_boundary *out);

/* Print a document to stdout. 0, CLI_EXIT_INTERNAL for a NULL document
 * (out of memory) or CLI_EXIT_OUTPUT when stdout cannot be written (printed). */
int cli_write_document(const char *cmd, const json_t *doc);

/* Add "errors" to doc, print it to stdout and release it (takes ownership).
 * Returns 0 or an exit code. */
int cli_print_document(const char *cmd, json_t *doc, const jl_error_list *errors);

/* The output options chosen together, checked once parsing is done: --json
 * and --jsonl exclude each other, and neither shares stdout with --csv -;
 * a --csv FILE that exists (a regular file) needs --force, as import's and
 * report's outputs do;
 * --names mlenergy needs a JSON output (or a CSV that honours it: csv_names).
 * Returns 0 or CLI_EXIT_USAGE (printed). out may be NULL (no CSV). */
int cli_check_outputs(const char *cmd, const cli_study *cs, const char *csv, int json,
                      const cli_output *out);

/* Print each row of doc (see cli_output.rows) as one JSON line on stdout,
 * named as cs->names says, and release doc. Returns 0 or an exit code. */
int cli_print_jsonl(const char *cmd, const cli_study *cs, json_t *doc, const char *rows);

/* The tail every analysis command shares: --csv FILE first, then the --json
 * document (with the study's errors), the --jsonl rows or, unless the CSV
 * went to stdout, the table; then the study's exit code. Returns that code, or the one for an
 * output that could not be written (printed). */
int cli_emit(const char *cmd, const cli_study *cs, const cli_output *out, const void *result);
/* The same, with the --json document written by json_write (errors
 * included; the bytes out->json's tree would give) without building the
 * tree, unless --names renames its keys. */
typedef jl_status (*cli_json_writer)(const char *path, const void *result,
                                     const jl_summary_list *runs, const jl_error_list *errors,
                                     jl_error **err);
int cli_emit_written(const char *cmd, const cli_study *cs, const cli_output *out,
                     const void *result, cli_json_writer json_write);

/* Install SIGINT/SIGTERM handlers that remove half-written outputs. */
void cli_install_signal_cleanup(void);
/* The line the handler prints when the command is interrupted: what was
 * not written ("joules report: interrupted: out/ was not written ...\n"). */
void cli_set_interrupt_message(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* The width of a text column: the longest of the strings (NULL counts as
 * "-"), at least `min`. Text columns are never cut: two model names that
 * differ only at their end (...-2507, ...-2507-FP8) must read differently. */
int cli_text_width(const char *const *texts, size_t n, size_t stride, int min);

/* The widths of the model (at least 5) and task (at least 4) columns of n
 * rows of `stride` bytes from rows, the strings at those offsets in a row:
 * cli_model_task_widths(r->items, r->n, sizeof r->items[0],
 * offsetof(T, model), offsetof(T, task), &wm, &wt). */
void cli_model_task_widths(const void *rows, size_t n, size_t stride, size_t model_off,
                           size_t task_off, int *wm, int *wt);

/* A figure for text tables: its name without the unit suffix, the value
 * (4 significant digits) and its unit, token latencies (ITL, TTFT, TPOT) in ms:
 * "median_itl 4.942 ms", "energy_per_token 0.04657 J/token". */
void cli_fmt_figure(char *buf, size_t cap, int fig, double v);
/* A run's batch cap for text tables: "b8", or "b-" where the cap is a
 * placeholder its importer listed in @unknown_attributes (MLPerf). */
const char *cli_fmt_cap(char *buf, size_t cap, const jl_summary *s);
/* cli_fmt_figure, labelled for run s where the figure needs its run: a
 * percentile_latency_s as "p90 latency/sample 57.54 ms" (the run's
 * @latency_percentile and @latency_per). */
void cli_fmt_run_figure(char *buf, size_t cap, int fig, double v, const jl_summary *s);

/* Basename of a path, for tables. */
const char *cli_basename(const char *path);

/* Progress of a long library call, as `joules report` shows it: on a
 * terminal one status line rewritten (cleared at the end); otherwise (a log,
 * CI) a line when the phase changes and at least every 1.5 s within one.
 * cli_progress_init, then pass cli_progress and the state as the callback
 * (jl_model_progress_fn's shape). */
typedef struct cli_progress_state {
    const char *cmd;
    int tty;
    double t0, last;
    char phase[32];
} cli_progress_state;
void cli_progress_init(cli_progress_state *p, const char *cmd);
void cli_progress(void *ctx, const char *phase, size_t done, size_t total, const char *current);
/* Seconds on a monotonic clock. */
double cli_now_s(void);

/* Provenance (src/cli/provenance.c, joules/account.h): the command line
 * and its inputs (every argument naming a file or directory, except the
 * values of -o/--output/--csv), set before the command runs; the study's
 * rules and method choices; another method choice (key = v). */
void cli_provenance_begin(int argc, char **argv);
/* The next document's inputs are the files read from now on (import
 * --each: each trace its own sources). */
void cli_provenance_restart_inputs(void);
void cli_provenance_study(const cli_study *cs);
void cli_provenance_method(const char *key, const json_t *v);

#endif
