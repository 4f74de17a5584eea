/* joules pick — the minimum-energy configuration meeting an SLO. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    "  --slo EXPR      a service-level objective (repeatable; docs/choice.md)\n"
    "  --json          print the joules.pick/1 document\n"
    "  --csv FILE      one row per (model, task, SLO) ('-' = stdout)\n"
    CLI_STUDY_HELP
    "  -h, --help      this help\n";

static void print_table(const jl_pick_set *ps, const jl_summary_list *l)
{
    for (size_t i = 0; i < ps->n; i++) {
        const jl_pick_entry *e = &ps->items[i];
        const jl_pick *p = &e->pick;
        const jl_summary *s = p->choice >= 0 ? l->items[p->choice] : NULL;
        printf("%-45.45s %-15.15s %-22.22s %-12s", e->model ? e->model : "-",
               e->task ? e->task : "-", e->slo < ps->n_slos ? ps->slos[e->slo]->text : "(none)",
               jl_pick_status_name(p->status));
        if (s)
            printf(" %s x%ld b%ld %s=%.6g", s->attrs.gpu_model ? s->attrs.gpu_model : "-",
                   s->attrs.num_gpus, s->attrs.max_batch_size,
                   jl_figure_name((jl_figure)p->energy_figure), p->energy);
        if (p->status == JL_PICK_INFEASIBLE && s)
            printf("  misses by %.1f%%", 100 * p->worst_miss);
        putchar('\n');
    }
}

int jl_cmd_pick(int argc, char **argv)
{
    enum { OPT_JSON = CLI_OPT_FIRST_FREE, OPT_CSV, OPT_SLO };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"csv", required_argument, NULL, OPT_CSV},
        {"slo", required_argument, NULL, OPT_SLO},
        {"help", no_argument, NULL, 'h'},
        CLI_STUDY_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "pick", *csv = NULL;
    int json = 0, c, rc;
    cli_slos slos = {0};
    cli_study cs;
    cli_study_init(&cs);
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int h;
        switch (c) {
        case 'h': fputs(help, stdout); goto done_ok;
        case OPT_JSON: json = 1; break;
        case OPT_CSV: csv = optarg; break;
        case OPT_SLO:
            if (cli_slos_add(&slos, cmd, optarg))
                goto usage;
            break;
        default:
            h = cli_study_option(&cs, cmd, c, optarg);
            if (h == 1)
                break;
            if (h == 0)
                cli_usage_error(cmd, "unknown option");
            goto usage;
        }
    }
    cli_install_signal_cleanup();
    if ((rc = cli_study_load(&cs, cmd, argv + optind, argc - optind)))
        goto out;
    jl_pick_set *ps = NULL;
    jl_error *err = NULL;
    if (jl_pick_all(&cs.runs, (const jl_slo *const *)slos.items, slos.n, NULL, &ps, &err)) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        rc = JL_EXIT_INTERNAL;
        goto out;
    }
    if (csv && jl_write_picks_csv(csv, ps, &cs.runs, &err) != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        rc = JL_EXIT_OUTPUT;
    }
    if (!rc && json)
        rc = cli_print_document(cmd, jl_pick_set_to_json(ps, &cs.runs), &cs.errors);
    else if (!rc && (!csv || strcmp(csv, "-")))
        print_table(ps, &cs.runs);
    if (!rc)
        rc = cli_study_exit(&cs);
    jl_pick_set_free(ps);
out:
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return rc;
done_ok:
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return JL_EXIT_OK;
usage:
    cli_slos_free(&slos);
    cli_study_free(&cs);
    return JL_EXIT_USAGE;
}
