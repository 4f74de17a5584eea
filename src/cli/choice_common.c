/* Shared by the choice commands (frontier, pick, compare, capacity) and report. */
#define _POSIX_C_SOURCE 200809L
#include "cli/choice_common.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/common.h"
#include "cli/exit_codes.h"

int cli_slos_add(cli_slos *s, const char *cmd, const char *expr)
{
    jl_slo *slo = NULL;
    jl_error *err = NULL;
    size_t off = 0;
    if (jl_slo_parse(expr, &slo, &off, &err) != JL_OK) {
        char *caret = jl_slo_caret(expr, off);
        fprintf(
            stderr,
            "joules %s: --slo: %s\n%s\n(see `joules %s --help`; the grammar in full: choice.md, "
            "among the documents the help names)\n",
            cmd, err ? err->message : "out of memory", caret ? caret : "", cmd);
        free(caret);
        jl_error_free(err);
        return cli_exit_for_status(JL_EUSAGE);
    }
    jl_slo **ni = realloc(s->items, (s->n + 1) * sizeof *ni);
    if (!ni) {
        jl_slo_free(slo);
        return cli_oom(cmd);
    }
    s->items = ni;
    s->items[s->n++] = slo;
    return 0;
}

void cli_slos_free(cli_slos *s)
{
    for (size_t i = 0; i < s->n; i++)
        jl_slo_free(s->items[i]);
    free(s->items);
    s->items = NULL;
    s->n = 0;
}

int cli_figure_option(const char *cmd, const char *opt, const char *name, int *out)
{
    int f = jl_slo_resolve_figure(name, NULL);
    if (f < 0) {
        char near[64];
        int hint = jl_slo_suggest_figure(name, near, sizeof near);
        return cli_usage_error(cmd,
                               "%s: unknown figure '%s' (%s%s%se.g. median_itl, p90_itl, p99_itl, "
                               "ttft_p90, batch_latency; summary.md lists them all)",
                               opt, name, hint ? "did you mean '" : "", hint ? near : "",
                               hint ? "'? " : "");
    }
    *out = f;
    return 0;
}
