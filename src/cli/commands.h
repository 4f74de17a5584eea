/* The CLI's command table. Each command lives in its own cmd_<name>.c with
 * its own getopt_long table and help text; main.c only dispatches. */
#ifndef JOULES_CLI_COMMANDS_H
#define JOULES_CLI_COMMANDS_H

#include <getopt.h>

#include "joules/import.h"

typedef struct cli_command {
    const char *name;
    const char *summary;               /* one line, for `joules --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

#define CLI_COMMANDS(X)                                                                           \
    X(inspect, "what is in each trace file: runs, datasets, problems")                            \
    X(summarize, "one row per run: steady state, energy, power, latency")                         \
    X(check, "validation rules per run: pass / warn / fail with the figure")                      \
    X(import, "other formats into a trace file: nvidia-smi logs, ML.ENERGY data (import --list)") \
    X(frontier, "Pareto-optimal configurations in (latency, energy) and curves per GPU setup")    \
    X(pick, "minimum-energy configuration per (model, task) meeting an SLO")                      \
    X(compare, "matched-constraint comparisons: GPU model, GPU count, precision pairs")           \
    X(capacity, "under a power budget: best throughput/W within an SLO, replicas, totals")        \
    X(explain, "why run A costs more energy per token than run B: factors that multiply")         \
    X(diagnose,                                                                                   \
      "per run: utilisation, static waste, which ceiling binds the batch, what would help")       \
    X(report, "the whole analysis as a directory: index.html, data/, figures/, notebooks")        \
    X(fit,                                                                                        \
      "batch-size model per group: parameters with intervals, residuals, curves, --loo accuracy") \
    X(predict, "energy per token, power, step time, throughput at unmeasured batch sizes")        \
    X(verify, "re-derive a document from its provenance: inputs re-hashed, command re-run")       \
    X(budget, "ceilings from a budgets file per run and group: pass / fail / undetermined")       \
    X(emissions, "kWh and CO2eq per run and in total, whole run by default, grid by the hour")    \
    X(label, "energy labels: Wh per 1,000 queries, 1-5 stars within task, GPU, size (SVG, JSON)") \
    X(card, "a Markdown energy card of one model for the Hub: inference under joules_energy")     \
    X(attribute, "energy per layer, operator class, step and second from profiler spans")

/* A command's --help: its text, then where its manual page and the
 * documents the text names (*.md) are installed (src/cli/help.c); cmd NULL:
 * the footer of `joules --help`. The man pages are made from this same
 * output (cmake/help2roff.sh). */
void cli_help(const char *cmd, const char *text);

/* An installed joules reads the models/ descriptors and notebook templates
 * installed beside it (share/joules), unless JOULES_MODELS_DIR /
 * JOULES_NOTEBOOKS_DIR say otherwise: sets those for the library. */
void cli_use_installed_data(void);

#define CLI_X_DECL(name, summary) int cli_cmd_##name(int argc, char **argv);
CLI_COMMANDS(CLI_X_DECL)
#undef CLI_X_DECL

/* A command's own option table, the one its getopt_long() reads: verify
 * parses a document's command with it (cmd_verify.c). import's depends on
 * the format: cli_import_longopts(). */
typedef struct cli_options {
    const char *optstring;
    const struct option *longopts; /* ends with {NULL, 0, NULL, 0} */
} cli_options;
#define CLI_X_OPTS(name, summary) extern const cli_options cli_options_##name;
CLI_COMMANDS(CLI_X_OPTS)
#undef CLI_X_OPTS

/* `joules import FORMAT`'s option table (its optstring: ":ho:"), codes from
 * CLI_IMPORT_FORMAT_FIRST for the format's own; free() it. NULL when out
 * of memory. */
enum { CLI_IMPORT_FORMAT_FIRST = 512 };
struct option *cli_import_longopts(const jl_importer *im);

#endif
