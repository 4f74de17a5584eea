/* joules pick — the minimum-energy configuration meeting an SLO. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>

#include "cli/choice_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/choice.h"

static const char *const help =
    "usage: joules pick [--slo EXPR]... [--json] [--csv FILE] [options] PATH...\n\n"
    "For every (model, task) and every SLO: the minimum-energy configuration that\n"
    "meets it. Groups where nothing meets it are listed as infeasible with the\n"
    "closest configuration and by how much it misses; never dropped.\n"
    "EXPR: conditions joined by commas, e.g. median_itl<=100ms,\n"
    "p90_itl<=250ms,ttft_p90<=2s, batch_latency<=30s, throughput>=5000tok/s.\n"
    "Each --slo is evaluated on its own; without --slo, the minimum energy.\n\n"
    "  --slo EXPR      a service-level objective (repeatable; choice.md)\n"
    "  --json          print the joules.pick/1 document\n"
    "  --csv FILE      one row per (model, task, SLO) ('-' = stdout)\n"
    "  --allow-invalid also answer from runs that are not valid (left out by default,\n"
    "                  each named with its reasons: check.md, \"Reason codes\")\n" CLI_STUDY_HELP
    "  -h, --help      this help\n";

static jl_status write_csv(const char *path, const void *ps, const jl_summary_list *l,
                           jl_error **err)
{
    return jl_write_picks_csv(path, ps, l, err);
}

static json_t *to_json(const void *ps, const jl_summary_list *l)
{
    return jl_pick_document(ps, l);
}

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_pick_set *ps = result;
    int wm, wt;
    cli_model_task_widths(ps->items, ps->n, sizeof ps->items[0], offsetof(jl_pick_entry, model),
                          offsetof(jl_pick_entry, task), &wm, &wt);
    for (size_t i = 0; i < ps->n; i++) {
        const jl_pick_entry *e = &ps->items[i];
        const jl_pick *p = &e->pick;
        const jl_summary *s = p->choice >= 0 ? l->items[p->choice] : NULL;
        printf("%-*s %-*s %-22s %-12s", wm, e->model ? e->model : "-", wt, e->task ? e->task : "-",
               e->slo < ps->n_slos ? ps->slos[e->slo]->text : "(none)",
               jl_pick_status_name(p->status));
        if (s) {
            char en[96];
            cli_fmt_figure(en, sizeof en, p->energy_figure, p->energy);
            char cap[24];
            printf(" %s x%ld %s %s", s->attrs.gpu_model ? s->attrs.gpu_model : "-",
                   s->attrs.num_gpus, cli_fmt_cap(cap, sizeof cap, s), en);
            /* the figures the SLO judges */
            const jl_slo *slo = e->slo < ps->n_slos ? ps->slos[e->slo] : NULL;
            for (size_t c = 0; slo && c < slo->n; c++) {
                int f = jl_slo_cond_figure(&slo->conds[c], s);
                if (f < 0)
                    continue;
                char v[96];
                cli_fmt_run_figure(v, sizeof v, f, s->fig[f], s);
                printf(", %s", v);
            }
        }
        if (p->status == JL_PICK_INFEASIBLE && s)
            printf("  misses by %.1f%%", 100 * p->worst_miss);
        putchar('\n');
    }
}

static jl_status write_json(const char *path, const void *ps, const jl_summary_list *l,
                            const jl_error_list *errors, jl_error **err)
{
    return jl_write_pick_json(path, ps, l, errors, err);
}

static const cli_output output = {write_csv, to_json, print_table, "picks", 0, 1};

/* An SLO that applies to no run (no run has its figures: ttft_p90 of
 * diffusion runs, a typo's figure) judges nothing: an error, never a
 * quiet "not applicable" everywhere (issue 37). */
static int slos_apply(const char *cmd, const jl_pick_set *ps, const jl_summary_list *l)
{
    int rc = 0;
    for (size_t k = 0; k < ps->n_slos; k++) {
        if (!jl_pick_slo_applies(ps, k)) {
            fprintf(stderr,
                    "joules %s: --slo '%s' applies to no run: none has the figures it judges "
                    "(and the energy figure)\n",
                    cmd, ps->slos[k]->text);
            rc = cli_exit_for_status(JL_ENODATA);
        }
    }
    /* why a run lacks a condition's figure, where it says why (a latency
     * percentile it does not have, MLPerf Offline's no latency): once per
     * reason */
    for (size_t k = 0; k < ps->n_slos; k++)
        for (size_t c = 0; c < ps->slos[k]->n; c++) {
            size_t shown = 0, more = 0;
            for (size_t i = 0; i < l->count; i++) {
                char why[600];
                if (!jl_slo_cond_refusal(&ps->slos[k]->conds[c], l->items[i], why, sizeof why))
                    continue;
                if (shown++ < 3)
                    fprintf(stderr, "joules %s: note: --slo %s\n", cmd, why);
                else
                    more++;
            }
            if (more)
                fprintf(stderr, "joules %s: note: --slo '%s': %zu more runs lack it likewise\n",
                        cmd, ps->slos[k]->conds[c].name, more);
        }
    return rc;
}

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    (void)cmd;
    (void)code; /* --allow-invalid, the only one */
    (void)arg;
    *(int *)ctx = 1;
    return 0;
}

enum { OPT_ALLOW_INVALID = CLI_OPT_FIRST_FREE };
static const struct option longopts[] = {
    CLI_OUTPUT_LONG_OPTIONS,
    CLI_SLO_LONG_OPTION,
    {"allow-invalid", no_argument, NULL, OPT_ALLOW_INVALID},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_pick = {":h", longopts};

int cli_cmd_pick(int argc, char **argv)
{
    const char *cmd = "pick";
    jl_pick_set *ps = NULL;
    cli_study cs;
    cli_study_init(&cs);
    int allow = 0;
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_pick.optstring, longopts, own_option,
                       &allow);
    /* runs that are not valid (a request file of another run, a gap, ...)
     * answer no pick unless the user says so (issue 37) */
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output)) &&
        !(rc = cli_study_drop_invalid(&cs, cmd, allow))) {
        jl_error *err = NULL;
        jl_status st =
            jl_pick_all(&cs.runs, (const jl_slo *const *)cs.slos.items, cs.slos.n, NULL, &ps, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : slos_apply(cmd, ps, &cs.runs);
        if (!rc)
            rc = cli_emit_written(cmd, &cs, &output, ps, write_json);
    }
    jl_pick_set_free(ps);
    cli_study_free(&cs);
    return rc;
}
