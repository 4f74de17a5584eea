/* joules emissions — kWh and CO2eq per run with the PUE and grid intensity
 * of the times the energy was used (numbers or CSV time series). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"

static const char *const help =
    "usage: joules emissions [--grid-intensity G] [--marginal-intensity M] [--pue P]\n"
    "                        [--start TIME] [--json] [options] PATH...\n\n"
    "Per run, over its steady-state window: GPU energy (kWh), at the wall (x PUE),\n"
    "and CO2eq with the grid's carbon intensity at the times the energy was used\n"
    "(power x PUE(t) x intensity(t) integrated over the run's samples), average and\n"
    "marginal side by side; per token, request, item and 1,000 queries. With a\n"
    "series, the sweep's span and the start within the series when the same span\n"
    "would have been cleanest. Formulas and the CSV layouts: accounting.md.\n\n"
    "  --grid-intensity G      average gCO2eq/kWh: a number (5..2,000, or with its unit:\n"
    "                          0.4kg/kWh, 900lbs/MWh), or a CSV time series\n"
    "                          (Electricity Maps or WattTime export, or time,value)\n"
    "  --marginal-intensity M  marginal gCO2eq/kWh: a number or a CSV series (WattTime\n"
    "                          MOER in lbs/MWh is converted)\n"
    "  --pue P                 power usage effectiveness: 1.0..3.0 (above: P:forced), or\n"
    "                          a CSV series\n"
    "  --start TIME            place the first run at TIME (ISO 8601 or Unix seconds),\n"
    "                          the others at their offsets (default: start_time_unix)\n"
    "  --json                  print the joules.emissions/1 document\n" CLI_STUDY_HELP
    "  -h, --help              this help\n";

typedef struct opts {
    jl_tseries *grid, *marginal, *pue;
    double start;
} opts;

static void clock_text(double t, char *buf, size_t n)
{
    time_t tt = (time_t)floor(t);
    struct tm tm;
    if (!isfinite(t) || !gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, n, "-");
}

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_emissions_result *r = result;
    int marg = 0;
    for (size_t i = 0; i < r->n; i++)
        marg |= isfinite(r->runs[i].intensity[1]);
    printf("%-30s %-6s %-5s %-20s %10s %10s %6s %8s %10s %12s %12s%s\n", "file", "run", "gpu",
           "start", "gpu_kWh", "wall_kWh", "pue", "g/kWh", "gCO2eq", "mg/token", "g/request",
           marg ? "  marginal: g/kWh gCO2eq" : "");
    for (size_t i = 0; i < r->n; i++) {
        const jl_run_emissions *e = &r->runs[i];
        const jl_summary *s = l->items[e->run];
        if (e->error) {
            printf("%-30s %-6s %s\n", cli_basename(s->file), s->run, e->error);
            continue;
        }
        char when[32];
        clock_text(e->t0, when, sizeof when);
        printf("%-30s %-6s %-5s %-20s %10.4g %10.4g %6.3g %8.4g %10.4g %12.4g %12.4g",
               cli_basename(s->file), s->run, s->attrs.gpu_model ? s->attrs.gpu_model : "-", when,
               e->energy_kwh, e->facility_kwh, e->pue, e->intensity[0], e->g_co2eq[0],
               e->g_per_token[0] * 1000, e->g_per_request[0]);
        if (marg)
            printf("  %8.4g %10.4g", e->intensity[1], e->g_co2eq[1]);
        putchar('\n');
    }
    if (isfinite(r->cleanest_mean) && isfinite(r->span_mean)) {
        char a[32], b[32];
        clock_text(r->span_t0, a, sizeof a);
        clock_text(r->cleanest_start, b, sizeof b);
        printf("cleanest: the sweep (%.2f h from %s) ran at %.4g gCO2eq/kWh on average; "
               "starting %s it would have run at %.4g (%.1f %% less CO2eq)\n",
               (r->span_t1 - r->span_t0) / 3600, a, r->span_mean, b, r->cleanest_mean,
               100 * (1 - r->cleanest_mean / r->span_mean));
    }
}

static json_t *to_json(const void *r, const jl_summary_list *l)
{
    return jl_emissions_document(r, l);
}

static const cli_output output = {NULL, to_json, print_table, "runs", 0};

enum { OPT_GRID = CLI_OPT_FIRST_FREE, OPT_MARGINAL, OPT_PUE, OPT_START };

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    opts *o = ctx;
    jl_error *err = NULL;
    jl_status st = JL_OK;
    if (code == OPT_START) {
        if (jl_time_parse(arg, &o->start))
            return cli_usage_error(cmd, "--start: '%s' is not an ISO 8601 time or Unix seconds",
                                   arg);
        return 0;
    }
    jl_tseries **slot = code == OPT_GRID ? &o->grid : code == OPT_MARGINAL ? &o->marginal : &o->pue;
    jl_tseries_free(*slot);
    *slot = NULL;
    st = code == OPT_PUE
             ? jl_tseries_parse_pue(arg, slot, &err)
             : jl_tseries_parse(arg,
                                code == OPT_MARGINAL ? JL_INTENSITY_MARGINAL : JL_INTENSITY_AVERAGE,
                                slot, &err);
    if (st != JL_OK) {
        cli_print_error(cmd, err);
        jl_error_free(err);
        return st == JL_ENOMEM ? cli_oom(cmd) : cli_exit_for_status(JL_EUSAGE);
    }
    return 0;
}

/* A series whose hours hold none of the runs is an error naming both
 * spans ("your runs are 72.0 h after the series"): a wrong zone or the
 * wrong file, never a table of runs "outside the series" (issue 37). */
static int series_overlap(const char *cmd, const jl_emissions_result *r, const jl_tseries *s,
                          const jl_summary_list *l)
{
    double s0, s1, a = INFINITY, b = -INFINITY;
    if (jl_tseries_span(s, &s0, &s1) || !r->n)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        const jl_summary *u = r->runs[i].run < l->count ? l->items[r->runs[i].run] : NULL;
        double t0 = r->runs[i].t0, t1 = r->runs[i].t1;
        if (!isfinite(t0) && u) { /* no figures: the run's own start and span */
            double d = u->fig[JL_FIG_RUN_DURATION_S];
            t0 = u->attrs.start_time_unix;
            t1 = t0 + (isfinite(d) ? d : 0);
        }
        if (!isfinite(t1))
            t1 = t0;
        if (!isfinite(t0))
            return 0;
        a = fmin(a, t0);
        b = fmax(b, t1);
        if (t1 >= s0 && t0 < s1)
            return 0; /* some run lies in the series: each other one says why */
    }
    char w0[32], w1[32], g0[32], g1[32];
    clock_text(a, w0, sizeof w0);
    clock_text(b, w1, sizeof w1);
    clock_text(s0, g0, sizeof g0);
    clock_text(s1, g1, sizeof g1);
    double gap = b <= s0 ? s0 - b : a - s1;
    fprintf(stderr,
            "joules %s: the intensity series holds none of the runs: your runs (%s to %s) are "
            "%.1f h %s the series (%s to %s): the wrong file, or runs placed in the wrong zone "
            "(--start)?\n",
            cmd, w0, w1, gap / 3600, b <= s0 ? "before" : "after", g0, g1);
    return cli_exit_for_status(JL_ENODATA);
}

int cli_cmd_emissions(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_JSON_LONG_OPTION,
        {"grid-intensity", required_argument, NULL, OPT_GRID},
        {"marginal-intensity", required_argument, NULL, OPT_MARGINAL},
        {"pue", required_argument, NULL, OPT_PUE},
        {"start", required_argument, NULL, OPT_START},
        CLI_END_LONG_OPTIONS,
    };
    const char *cmd = "emissions";
    opts o = {NULL, NULL, NULL, NAN};
    jl_emissions_result *r = NULL;
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, ":h", longopts, own_option, &o);
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        jl_error *err = NULL;
        jl_emissions_options eo = {o.pue, o.grid, o.marginal, o.start};
        jl_status st = jl_emissions_study(&cs.runs, &eo, &r, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : series_overlap(cmd, r, o.grid, &cs.runs);
        if (!rc)
            rc = cli_emit(cmd, &cs, &output, r);
    }
    jl_emissions_result_free(r);
    jl_tseries_free(o.grid);
    jl_tseries_free(o.marginal);
    jl_tseries_free(o.pue);
    cli_study_free(&cs);
    return rc;
}
