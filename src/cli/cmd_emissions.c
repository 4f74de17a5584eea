/* joules emissions — kWh and CO2eq per run and in total, at the boundary
 * asked for (by default the whole run at the widest measured scope), with
 * the PUE and grid intensity of the times the energy was used (numbers or
 * CSV time series); SCI on request. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "cli/table.h"
#include "joules/account.h"

static const char *const help =
    "usage: joules emissions [--grid-intensity G] [--marginal-intensity M] [--pue P]\n"
    "                        [--window run|steady] [--scope S] [--start TIME]\n"
    "                        [--sci --functional-unit U [--embodied-g-per-gpu-hour X]]\n"
    "                        [--json | --csv FILE] [options] PATH...\n\n"
    "Per run and in total: the energy counted (kWh; by default the whole run at\n"
    "the widest scope each run measured), at the wall (x PUE), and CO2eq with the\n"
    "grid's carbon intensity at the times the energy was used (power x PUE(t) x\n"
    "intensity(t) integrated over the run's samples), average and marginal side\n"
    "by side; per token, request, item and 1,000 queries; what was left out\n"
    "(energy outside the window counted, scopes measured but not counted, scopes\n"
    "not measured). Summary-only runs (ML.ENERGY, CodeCarbon, Zeus imports) get\n"
    "carbon from their energy and their time span (a series assumes constant\n"
    "power, and says so). With a series, the sweep's span and the start within the\n"
    "series when the same span would have been cleanest. accounting.md.\n\n"
    "  --grid-intensity G      average gCO2eq/kWh: a number (5..2,000, or with its unit:\n"
    "                          0.4kg/kWh, 900lbs/MWh), or a CSV time series\n"
    "                          (Electricity Maps or WattTime export, or time,value)\n"
    "  --marginal-intensity M  marginal gCO2eq/kWh: a number or a CSV series (WattTime\n"
    "                          MOER in lbs/MWh is converted)\n"
    "  --pue P                 power usage effectiveness: 1.0..3.0 (above: P:forced), or\n"
    "                          a CSV series\n"
    "  --window W              run (default: the whole run; a run with no whole-run\n"
    "                          energy is counted over its own window and says so) or\n"
    "                          steady (the steady-state window)\n"
    "  --scope S               auto (default: the widest measured: node, else GPUs +\n"
    "                          host, else GPUs), gpu, host, node, facility (the widest\n"
    "                          x PUE) or provisioned (TDP x GPUs x time)\n"
    "  --start TIME            place the first run at TIME (ISO 8601 or Unix seconds),\n"
    "                          the others at their offsets (default: start_time_unix)\n"
    "  --sci                   the Software Carbon Intensity (ISO/IEC 21031),\n"
    "                          SCI = (E x I + M) / R, every term shown\n"
    "  --functional-unit U     SCI's R: 1000-queries, request or token (with --sci)\n"
    "  --embodied-g-per-gpu-hour X  SCI's M: embodied gCO2eq per GPU-hour of the\n"
    "                          window (none is assumed: without it M is left out)\n"
    "  --embodied-source TEXT  where X comes from, printed beside M\n"
    "  --json                  print the joules.emissions/1 document\n"
    "  --csv FILE              one row per run and a total row (FILE '-' = stdout)\n" CLI_STUDY_HELP
    "  -h, --help              this help\n";

typedef struct opts {
    jl_tseries *grid, *marginal, *pue;
    double start;
    const char *window, *scope, *unit, *embodied_source;
    int sci, have_embodied;
    double embodied;
} opts;

static opts *g_opts;

static void clock_text(double t, char *buf, size_t n)
{
    time_t tt = (time_t)floor(t);
    struct tm tm;
    if (!isfinite(t) || !gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, n, "-");
}

static void print_sci(const char *who, const jl_sci *x, const jl_emissions_result *r)
{
    printf("  %-34s E %.6g kWh x I %.6g g/kWh", who, x->e_kwh, x->i_g_per_kwh);
    if (r->embodied)
        printf(" + M %.6g g", x->m_g);
    printf(" = %.6g g, / R %.6g = SCI %.6g gCO2eq per %s\n",
           x->e_kwh * x->i_g_per_kwh + (r->embodied ? x->m_g : 0), x->r, x->sci,
           r->sci == JL_SCI_1000_QUERIES ? "1,000 queries"
           : r->sci == JL_SCI_REQUEST    ? "request"
                                         : "token");
}

static void num_cell(cli_table *t, size_t col, double v)
{
    if (isfinite(v))
        cli_table_setf(t, col, "%.4g", v);
}

static void print_table(const void *result, const jl_summary_list *l)
{
    const jl_emissions_result *r = result;
    int marg = r->marginal;
    static const char *const heads[] = {"file",      "run",    "gpu",        "window",
                                        "scope",     "start",  "kWh",        "wall_kWh",
                                        "pue",       "g/kWh",  "gCO2eq",     "mg/token",
                                        "g/request", "g/item", "marg_g/kWh", "marg_gCO2eq",
                                        "note"};
    static const int right[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
    const char *h[17];
    int rt[17];
    size_t nc = 0;
    for (size_t k = 0; k < 17; k++)
        if (marg || (k != 14 && k != 15)) {
            h[nc] = heads[k];
            rt[nc++] = right[k];
        }
    cli_table *t = cli_table_new(nc, h, rt);
    if (!t)
        return;
    for (size_t i = 0; i < r->n; i++) {
        const jl_run_emissions *e = &r->runs[i];
        const jl_summary *s = l->items[e->run];
        if (cli_table_row(t))
            break;
        cli_table_set(t, 0, cli_basename(s->file));
        cli_table_set(t, 1, s->run);
        cli_table_set(t, 2, s->attrs.gpu_model ? s->attrs.gpu_model : "-");
        if (e->error) {
            cli_table_set(t, nc - 1, e->error);
            continue;
        }
        char when[32];
        clock_text(e->t0, when, sizeof when);
        cli_table_set(t, 3, jl_window_name(e->counted.boundary.window));
        cli_table_set(t, 4, jl_scope_name(e->counted.boundary.scope));
        cli_table_set(t, 5, when);
        num_cell(t, 6, e->energy_kwh);
        num_cell(t, 7, e->facility_kwh);
        num_cell(t, 8, e->pue);
        num_cell(t, 9, e->intensity[0]);
        num_cell(t, 10, e->g_co2eq[0]);
        num_cell(t, 11, e->g_per_token[0] * 1000);
        num_cell(t, 12, e->g_per_request[0]);
        num_cell(t, 13, e->g_per_item[0]);
        if (marg) {
            num_cell(t, 14, e->intensity[1]);
            num_cell(t, 15, e->g_co2eq[1]);
        }
        if (e->counted.window_fallback || e->constant_power)
            cli_table_setf(t, nc - 1, "%s%s%s",
                           e->counted.window_fallback ? "own window: no whole-run energy" : "",
                           e->counted.window_fallback && e->constant_power ? "; " : "",
                           e->constant_power ? "constant power assumed" : "");
    }
    const jl_emissions_total *T = &r->total;
    if (!cli_table_row(t)) {
        cli_table_setf(t, 0, "total (%zu run%s)", T->runs, T->runs == 1 ? "" : "s");
        num_cell(t, 6, T->energy_kwh);
        num_cell(t, 7, T->facility_kwh);
        num_cell(t, 10, T->g_co2eq[0]);
        if (marg)
            num_cell(t, 15, T->g_co2eq[1]);
    }
    cli_table_print(t, stdout, 0);
    cli_table_free(t);
    /* what the accounts left out */
    size_t nm_host = 0, nm_node = 0;
    for (size_t i = 0; i < r->n; i++)
        if (!r->runs[i].error) {
            nm_host += (r->runs[i].counted.not_measured >> JL_SCOPE_HOST) & 1u;
            nm_node += (r->runs[i].counted.not_measured >> JL_SCOPE_NODE) & 1u;
        }
    const int scope_given = g_opts && g_opts->scope && strcmp(g_opts->scope, "auto");
    printf("counted: %s at %s%s; left out: %.4g kWh outside the windows counted, %.4g kWh "
           "measured at wider scopes than counted; not measured: host power in %zu of %zu runs, "
           "node power in %zu of %zu",
           g_opts && g_opts->window
               ? (!strcmp(g_opts->window, "run") ? "the whole run" : "the steady state")
               : "the whole run (--window run)",
           scope_given ? "scope " : "",
           scope_given ? g_opts->scope : "each run's widest measured scope (--scope auto)",
           T->outside_window_kwh, T->wider_kwh, nm_host, T->runs, nm_node, T->runs);
    if (T->window_fallbacks)
        printf("; %zu run%s counted over %s own window (no whole-run energy)", T->window_fallbacks,
               T->window_fallbacks == 1 ? "" : "s", T->window_fallbacks == 1 ? "its" : "their");
    if (T->runs_per_unit_only)
        printf("; %zu run%s published per-unit figures only (no total energy): in no total",
               T->runs_per_unit_only, T->runs_per_unit_only == 1 ? "" : "s");
    if (T->runs_error)
        printf("; %zu run%s not counted (see above)", T->runs_error, T->runs_error == 1 ? "" : "s");
    printf("\n");
    if (r->sci) {
        printf("SCI (ISO/IEC 21031) = (E x I + M) / R; E = energy counted x PUE, I = average "
               "intensity (energy-weighted), M = %s, R = %s in the window:\n",
               r->embodied ? "embodied gCO2eq (--embodied-g-per-gpu-hour x GPUs x hours)"
                           : "not given (--embodied-g-per-gpu-hour): left out",
               r->sci == JL_SCI_1000_QUERIES ? "thousands of queries"
               : r->sci == JL_SCI_REQUEST    ? "requests"
                                             : "output tokens");
        if (r->embodied)
            printf("  M's source: %s\n", r->embodied_source ? r->embodied_source : "not stated");
        for (size_t i = 0; i < r->n; i++) {
            const jl_run_emissions *e = &r->runs[i];
            if (e->error)
                continue;
            char who[128];
            snprintf(who, sizeof who, "%s %s", cli_basename(l->items[e->run]->file),
                     l->items[e->run]->run);
            print_sci(who, &e->sci, r);
        }
        print_sci("total", &T->sci, r);
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

static jl_status write_csv(const char *path, const void *r, const jl_summary_list *l,
                           jl_error **err)
{
    return jl_write_emissions_csv(path, r, l, err);
}

static const cli_output output = {write_csv, to_json, print_table, "runs", 0, 0};

enum {
    OPT_GRID = CLI_OPT_FIRST_FREE,
    OPT_MARGINAL,
    OPT_PUE,
    OPT_START,
    OPT_WINDOW,
    OPT_SCOPE,
    OPT_SCI,
    OPT_UNIT,
    OPT_EMBODIED,
    OPT_EMBODIED_SOURCE
};

static int own_option(void *ctx, const char *cmd, int code, const char *arg)
{
    opts *o = ctx;
    jl_error *err = NULL;
    jl_status st = JL_OK;
    switch (code) {
    case OPT_START:
        if (jl_time_parse(arg, &o->start))
            return cli_usage_error(cmd, "--start: '%s' is not an ISO 8601 time or Unix seconds",
                                   arg);
        return 0;
    case OPT_WINDOW: o->window = arg; return 0;
    case OPT_SCOPE: o->scope = arg; return 0;
    case OPT_SCI: o->sci = 1; return 0;
    case OPT_UNIT: o->unit = arg; return 0;
    case OPT_EMBODIED_SOURCE: o->embodied_source = arg; return 0;
    case OPT_EMBODIED:
        o->have_embodied = 1;
        return cli_parse_number(cmd, "--embodied-g-per-gpu-hour", arg, 0, INFINITY, "a number >= 0",
                                &o->embodied);
    default: break;
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

static const struct option longopts[] = {
    CLI_OUTPUT_LONG_OPTIONS,
    {"grid-intensity", required_argument, NULL, OPT_GRID},
    {"marginal-intensity", required_argument, NULL, OPT_MARGINAL},
    {"pue", required_argument, NULL, OPT_PUE},
    {"start", required_argument, NULL, OPT_START},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"scope", required_argument, NULL, OPT_SCOPE},
    {"sci", no_argument, NULL, OPT_SCI},
    {"functional-unit", required_argument, NULL, OPT_UNIT},
    {"embodied-g-per-gpu-hour", required_argument, NULL, OPT_EMBODIED},
    {"embodied-source", required_argument, NULL, OPT_EMBODIED_SOURCE},
    CLI_END_LONG_OPTIONS,
};
const cli_options cli_options_emissions = {":h", longopts};

/* Runs not counted, on stderr, and the exit: 1 when others were counted, 3
 * when none was (a boundary a run cannot give, an intensity or PUE series
 * without the hours of its window: each names the run and why). */
static int refused(const char *cmd, const jl_emissions_result *r, const jl_summary_list *l)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->runs[i].error) {
            const jl_summary *s = l->items[r->runs[i].run];
            const char *f = s->file ? s->file : "?";
            /* the boundary's refusals name the file and run already */
            if (!strncmp(r->runs[i].error, f, strlen(f)))
                fprintf(stderr, "joules %s: %s\n", cmd, r->runs[i].error);
            else
                fprintf(stderr, "joules %s: %s: run %s: %s\n", cmd, f, s->run ? s->run : "?",
                        r->runs[i].error);
            n++;
        }
    if (!n)
        return 0;
    return n == r->n ? CLI_EXIT_NOINPUT : CLI_EXIT_PARTIAL;
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
    const char *cmd = "emissions";
    opts o;
    memset(&o, 0, sizeof o);
    o.start = NAN;
    g_opts = &o;
    jl_emissions_result *r = NULL;
    jl_account_boundary bound;
    jl_account_boundary_default(&bound);
    jl_sci_unit unit = JL_SCI_NONE;
    cli_study cs;
    cli_study_init(&cs);
    int rc = cli_parse(&cs, cmd, help, argc, argv, cli_options_emissions.optstring, longopts,
                       own_option, &o);
    if (!rc && !cs.helped &&
        !(rc = cli_account_boundary(cmd, o.window, o.scope, 1, NULL, &bound))) {
        if (o.sci) {
            if (!o.unit)
                rc = cli_usage_error(cmd, "--sci needs --functional-unit 1000-queries, request "
                                          "or token");
            else if (!strcmp(o.unit, "1000-queries"))
                unit = JL_SCI_1000_QUERIES;
            else if (!strcmp(o.unit, "request"))
                unit = JL_SCI_REQUEST;
            else if (!strcmp(o.unit, "token"))
                unit = JL_SCI_TOKEN;
            else
                rc = cli_usage_error(cmd,
                                     "--functional-unit: '%s' is not 1000-queries, request or "
                                     "token",
                                     o.unit);
            if (!rc && !o.grid)
                rc = cli_usage_error(cmd, "--sci needs --grid-intensity (SCI's I)");
        } else if (o.unit || o.have_embodied || o.embodied_source) {
            rc = cli_usage_error(cmd, "--functional-unit, --embodied-g-per-gpu-hour and "
                                      "--embodied-source go with --sci");
        }
        if (!rc && o.embodied_source && !o.have_embodied)
            rc = cli_usage_error(cmd, "--embodied-source says where --embodied-g-per-gpu-hour "
                                      "comes from: give the number too");
    }
    if (!rc && !cs.helped && !(rc = cli_study_start(&cs, cmd, argc, argv, &output))) {
        jl_error *err = NULL;
        jl_emissions_options eo = {o.pue,
                                   o.grid,
                                   o.marginal,
                                   o.start,
                                   &bound,
                                   unit,
                                   o.have_embodied ? &o.embodied : NULL,
                                   o.have_embodied
                                       ? (o.embodied_source
                                              ? o.embodied_source
                                              : "--embodied-g-per-gpu-hour, given without a source")
                                       : NULL};
        jl_status st = jl_emissions_study(&cs.runs, &eo, &r, &err);
        rc = st != JL_OK ? cli_fail(cmd, st, err) : series_overlap(cmd, r, o.grid, &cs.runs);
        if (!rc)
            rc = cli_emit(cmd, &cs, &output, r);
        if (st == JL_OK && !rc)
            rc = refused(cmd, r, &cs.runs);
    }
    g_opts = NULL;
    jl_emissions_result_free(r);
    jl_tseries_free(o.grid);
    jl_tseries_free(o.marginal);
    jl_tseries_free(o.pue);
    cli_study_free(&cs);
    return rc;
}
