/* What frontier, pick, compare, capacity and report share: --slo parsing
 * (with the caret under the bad part) and figure-name options. */
#ifndef JOULES_CLI_CHOICE_COMMON_H
#define JOULES_CLI_CHOICE_COMMON_H

#include <stddef.h>

#include "joules/slo.h"

typedef struct cli_slos {
    jl_slo **items;
    size_t n;
} cli_slos;

/* Parse and append one --slo EXPR. On a malformed expression prints the
 * message and the expression with a caret to stderr. Returns 0 or an exit
 * code (printed). */
int cli_slos_add(cli_slos *s, const char *cmd, const char *expr);
void cli_slos_free(cli_slos *s);

/* Parse a figure name option (--latency p90_itl) into *out. Returns 0 or an
 * exit code (printed) when unknown. */
int cli_figure_option(const char *cmd, const char *opt, const char *name, int *out);

#endif
