/* joules attribute — energy per span row (layer, operator class, step,
 * second) of one profiled run (docs/attribute.md). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/exit_codes.h"
#include "joules/account.h"
#include "joules/attribution.h"
#include "joules/output.h"
#include "joules/trace.h"

static const char *const help =
    "usage: joules attribute TRACE.h5[:RUN] [--by name|class|layer|step|kind|time:1s]\n"
    "                        [--json | --jsonl] [--csv FILE] [--calibration FILE.h5]\n"
    "                        [--class PATTERN=CLASS]... [--static-w W] [--window A,B]\n"
    "                        [--budgets FILE]\n"
    "       joules attribute SQUARE.h5[:RUN] --fit-sensor [--json] [--into TRACE.h5:RUN]\n"
    "       joules attribute TRACE.h5[:RUN] --by request|request-class [--window A,B]\n"
    "                        [--static-w W] [--json | --jsonl] [--csv FILE]\n\n"
    "Split the energy the GPU's counter measured over a profiled window among the\n"
    "run's spans (spans/: joules import kineto ... --into TRACE.h5:RUN): static\n"
    "power by time, dynamic energy by device-busy time x class weights (equal, or\n"
    "from --calibration). Rows + unattributed + stalls = the window's energy; the\n"
    "residual is printed. Spans shorter than the sensor's update are apportioned,\n"
    "not measured: every row has an interval, and peak power only where a power\n"
    "reading's window lies inside the row (attribute.md).\n\n"
    "  --by KEY           rows per span name, class (default), layer, step, kind, or\n"
    "                     time:S (bins of S seconds, e.g. time:1s, time:250ms);\n"
    "                     request: per request of requests/ (no spans needed): dynamic\n"
    "                     energy by its prompt and output tokens and engine steps, static\n"
    "                     by residency; request-class: per prompt/output length bucket;\n"
    "                     the J-per-token fit checked on the file's other runs\n"
    "  --calibration FILE isolated-loop runs, one per class: per-class weights\n"
    "  --calibration-mode absolute|relative|time  absolute (default): a span gets\n"
    "                     weight x busy, the rest stays unattributed (and is explained);\n"
    "                     relative: the weights split each counter interval's measured\n"
    "                     dynamic energy, all of it; time: absolute, the rest by time\n"
    "  --clock-correction clock|busy|off  move each weight to the window's speed: the\n"
    "                     SM clocks' ratio, window over loop, where the traces record\n"
    "                     both (clock, the default), or the loop's device time per\n"
    "                     call over its class's in the window (busy)\n"
    "  --host-launch spans|row|off  GPU-idle gaps between spans shorter than a\n"
    "                     stall: to the span after each (default), to a row\n"
    "                     host_launch, or unattributed\n"
    "  --class PAT=CLASS  span names matching the glob PAT are class CLASS (repeatable;\n"
    "                     before the default grammar: layerN.op -> op)\n"
    "  --static-w W       static power per GPU, stated (default: idle before t = 0,\n"
    "                     else the run's @gpu_idle_power_w)\n"
    "  --window A,B       the window in run seconds (default: the spans' @window)\n"
    "  --stall-min S      a gap without spans this long is a stall (default 0.01)\n"
    "  --fit-weights      without --calibration: fit the class weights on the trace,\n"
    "                     used only where the trace identifies them (attribute.md)\n"
    "  --sensor-from F.h5[:RUN]  fit the sensor model on a square-wave run and use it\n"
    "  --set-warning NAME=VALUE|off  a warning's threshold, or off\n"
    "  --budgets FILE     judge each row (--by class) against the per-class ceilings\n"
    "                     (\"spans\") of the joules.budgets/1 budgets that select the\n"
    "                     run: pass, fail, or undetermined when the row's interval\n"
    "                     crosses the ceiling; the adherence rate; exit 1 when a row\n"
    "                     fails (accounting.md, \"Per-component budgets\")\n"
    "  --fit-sensor       fit the sensor model on the run's bursts (spans/) and print it\n"
    "  --into TRACE.h5:RUN  with --fit-sensor: write the model as power/'s attributes\n"
    "                     of that run (@update_period_s, @energy_delay_s, ...)\n"
    "  --json             print the joules.attribution/1 document\n"
    "  --jsonl            one JSON object per row\n"
    "  --require-valid    exit 1 when the run is not valid (spans_misaligned, ...: check.md)\n"
    "  --csv FILE         the rows as CSV ('-' = stdout)\n"
    "  --allow-external-storage  read datasets a trace keeps in other files (HDF5\n"
    "                     external storage, virtual datasets): only for traces you\n"
    "                     trust (default: refused, security.md)\n"
    "  -h, --help         this help\n";

enum {
    OPT_BY = CLI_OPT_FIRST_FREE,
    OPT_CAL,
    OPT_CLASS,
    OPT_STATIC,
    OPT_WINDOW,
    OPT_STALL,
    OPT_SENSOR_FROM,
    OPT_SET_WARNING,
    OPT_FIT,
    OPT_FIT_WEIGHTS,
    OPT_INTO,
    OPT_BUDGETS,
    OPT_CAL_MODE,
    OPT_CLOCKS,
    OPT_HOST_LAUNCH,
    OPT_VALID
};

/* --budgets: the file, and its verdicts on the rows */
typedef struct judged {
    const jl_budgets *b;
    const jl_span_budget_result *r;
} judged;

/* TRACE.h5[:RUN] opened, run read with its spans and sensor */
typedef struct {
    jl_trace *t;
    jl_run *run;
    jl_spans *spans;
    jl_sensor sensor;
} opened;

static void opened_close(opened *o)
{
    jl_spans_free(o->spans);
    jl_run_free(o->run);
    jl_sensor_clear(&o->sensor);
    jl_trace_close(o->t);
    memset(o, 0, sizeof *o);
}

/* TRACE.h5[:RUN] opened: the trace and the run's index (the one run when
 * none is named) */
static jl_status open_trace_run(const char *arg, jl_trace **t, size_t *idx, jl_error **err)
{
    *t = NULL;
    *idx = 0;
    char *path = strdup(arg);
    if (!path)
        return JL_ENOMEM;
    char *run = NULL, *colon = strrchr(path, ':');
    if (colon && colon > path && strstr(path, ".h5") && colon > strstr(path, ".h5")) {
        *colon = 0;
        run = colon + 1;
    }
    jl_status st = jl_trace_open(path, NULL, t, err);
    if (st == JL_OK) {
        size_t n = jl_trace_run_count(*t);
        if (run) {
            while (*idx < n && strcmp(jl_trace_run_name(*t, *idx), run))
                (*idx)++;
            if (*idx == n)
                st = jl_fail(err, JL_EUSAGE, path, run, NULL, -1, "no run '%s' in the file", run);
        } else if (n != 1) {
            st = jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1,
                         "the file holds %zu runs: name one (FILE.h5:RUN)", n);
        }
    }
    if (st != JL_OK) {
        jl_trace_close(*t);
        *t = NULL;
    }
    free(path);
    return st;
}

static int open_run(const char *cmd, const char *arg, opened *o)
{
    memset(o, 0, sizeof *o);
    jl_sensor_init(&o->sensor);
    jl_error *err = NULL;
    size_t idx = 0;
    jl_status st = open_trace_run(arg, &o->t, &idx, &err);
    if (st == JL_OK)
        st = jl_trace_read_run(o->t, idx, &o->run, &err);
    if (st == JL_OK)
        st = jl_trace_read_spans(o->t, idx, &o->spans, &err);
    if (st == JL_OK)
        st = jl_trace_read_sensor(o->t, idx, &o->sensor, &err);
    if (st != JL_OK) {
        opened_close(o);
        return cli_fail(cmd, st, err);
    }
    return 0;
}

static int fit_sensor(const char *cmd, opened *o, jl_sensor_fit_result *f)
{
    jl_error *err = NULL;
    jl_status st = jl_sensor_fit(o->run, o->spans, f, &err);
    return st == JL_OK ? 0 : cli_fail(cmd, st, err);
}

static void print_fit(const jl_sensor_fit_result *f, int json)
{
    if (json) {
        json_t *d = json_object();
        json_object_set_new(d, "schema", json_string("joules.sensor-fit/1"));
        json_object_set_new(d, "poll_period_s", jl_json_number(f->poll_period_s));
        json_object_set_new(d, "update_period_s", jl_json_number(f->update_period_s));
        json_object_set_new(d, "energy_delay_s", jl_json_number(f->energy_delay_s));
        json_object_set_new(d, "watts_window_s", jl_json_number(f->watts_window_s));
        json_object_set_new(d, "watts_delay_s", jl_json_number(f->watts_delay_s));
        json_object_set_new(d, "watts_avg_window_s", jl_json_number(f->avg_window_s));
        json_object_set_new(d, "watts_avg_delay_s", jl_json_number(f->avg_delay_s));
        json_object_set_new(d, "idle_w", jl_json_number(f->idle_w));
        json_object_set_new(d, "busy_w", jl_json_number(f->busy_w));
        json_object_set_new(d, "counter_rms_w", jl_json_number(f->counter_rms_w));
        json_object_set_new(d, "watts_rms_w", jl_json_number(f->watts_rms_w));
        json_object_set_new(d, "updates", json_integer((json_int_t)f->n_updates));
        json_object_set_new(d, "bursts", json_integer((json_int_t)f->n_bursts));
        char *s = jl_json_dump(d);
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(d);
        return;
    }
    printf("polls every               %.2f ms\n"
           "energy counter updates    every %.1f ms, %.0f ms late (%zu updates)\n"
           "watts (instant field)     last %.0f ms, %.0f ms late\n",
           1e3 * f->poll_period_s, 1e3 * f->update_period_s, 1e3 * f->energy_delay_s, f->n_updates,
           1e3 * f->watts_window_s, 1e3 * f->watts_delay_s);
    if (isfinite(f->avg_window_s))
        printf("watts_avg (average field) last %.0f ms, %.0f ms late\n", 1e3 * f->avg_window_s,
               1e3 * f->avg_delay_s);
    printf("fitted power              %.1f W idle, %.1f W in a burst (%zu bursts)\n"
           "fit rms                   counter %.1f W, watts %.1f W\n",
           f->idle_w, f->busy_w, f->n_bursts, f->counter_rms_w, f->watts_rms_w);
}

/* The fitted model as power/'s attributes of TRACE.h5:RUN. */
static int write_sensor(const char *cmd, const jl_sensor_fit_result *f, const char *from,
                        const char *into)
{
    const char *colon = strrchr(into, ':');
    if (!colon || colon == into || !colon[1])
        return cli_usage_error(cmd, "--into TRACE.h5:RUN names the trace and the run");
    char *path = strndup(into, (size_t)(colon - into));
    jl_sensor z;
    jl_sensor_init(&z);
    z.update_period_s = f->update_period_s;
    z.energy_delay_s = f->energy_delay_s;
    z.watts_window_s = f->watts_window_s;
    z.watts_delay_s = f->watts_delay_s;
    z.watts_kind = strdup("instant");
    char buf[1024];
    snprintf(buf, sizeof buf,
             "joules attribute --fit-sensor on %s: least squares of each field's readings "
             "against the bursts in spans/ (attribute.md)",
             from);
    z.calibration = strdup(buf);
    jl_error *err = NULL;
    jl_status st = path && z.watts_kind && z.calibration
                       ? jl_trace_write_spans(path, colon + 1, NULL, &z, &err)
                       : JL_ENOMEM;
    jl_sensor_clear(&z);
    free(path);
    return st == JL_OK ? 0 : cli_fail(cmd, st, err);
}

static void fmt_j(char *b, size_t cap, double v)
{
    if (!isfinite(v))
        snprintf(b, cap, "-");
    else if (fabs(v) >= 100)
        snprintf(b, cap, "%.1f", v);
    else if (fabs(v) >= 1)
        snprintf(b, cap, "%.3f", v);
    else
        snprintf(b, cap, "%.4g", v);
}

/* the budgets' block under the table: the adherence, every check that
 * does not pass, the ceilings with no row */
static void print_budgets(const jl_attribution *a, const judged *jb)
{
    const jl_span_budget_result *r = jb->r;
    printf("budgets   ");
    for (size_t i = 0; i < r->n_budgets; i++)
        printf("%s%s", i ? ", " : "", jl_budgets_name(jb->b, r->budgets[i]));
    if (!r->n_budgets)
        printf("none of the file's per-class budgets selects this run");
    printf("\nadherence %zu of %zu rows determined pass", r->rows_pass,
           r->rows_pass + r->rows_fail);
    if (isfinite(r->adherence))
        printf(" (%.1f %%)", 100 * r->adherence);
    printf("; %zu rows judged: %zu pass, %zu fail, %zu undetermined, %zu unmeasured\n",
           r->rows_judged, r->rows_pass, r->rows_fail, r->rows_undetermined, r->rows_unmeasured);
    for (size_t i = 0; i < r->n_checks; i++) {
        const jl_span_check *c = &r->checks[i];
        printf("  %-12s %-16s %-11s %.4g [%.4g, %.4g] <= %.4g  (%s: %s)\n",
               jl_budget_verdict_name(c->verdict), a->rows[c->row].key,
               jl_span_figure_name(c->figure), c->value, c->lo, c->hi, c->max,
               jl_budgets_name(jb->b, c->budget), c->cls);
    }
    for (size_t i = 0; i < r->n_unmatched; i++)
        printf("  %-12s %-16s (%s: no row of this class)\n", "no row", r->unmatched[i].cls,
               jl_budgets_name(jb->b, r->unmatched[i].budget));
}

/* what the window covers, the host launch gaps, what the calibration moved,
 * the sensor's resolution: the lines under the table */
static void print_context(const jl_attribution *a)
{
    char b1[32], b2[32], b3[32];
    if (isfinite(a->coverage.window_share)) {
        fmt_j(b1, sizeof b1, a->window_energy_j);
        fmt_j(b2, sizeof b2, a->coverage.run_j);
        printf("coverage  the window holds %.1f %% of the run's energy (%s of %s J, run t = %.3f "
               "to %.3f s); outside it: %.3f s before (",
               100 * a->coverage.window_share, b1, b2, a->coverage.run_start_s,
               a->coverage.run_end_s, a->coverage.before_s);
        fmt_j(b1, sizeof b1, a->coverage.before_j);
        fmt_j(b2, sizeof b2, a->coverage.after_j);
        printf("%s J), %.3f s after (%s J)", b1, a->coverage.after_s, b2);
        if (isfinite(a->coverage.tokens_run) && isfinite(a->coverage.tokens_window))
            printf("; %.0f of %.0f tokens in the window", a->coverage.tokens_window,
                   a->coverage.tokens_run);
        printf("\n");
    }
    if (a->n_host_gaps) {
        fmt_j(b1, sizeof b1, a->host_launch_j);
        printf("host      %s J in %zu GPU-idle gaps between spans (%.3f s, each < stall-min): %s\n",
               b1, a->n_host_gaps, a->host_launch_s,
               a->host_launch_mode == JL_HOST_LAUNCH_ROW
                   ? "the row host_launch"
                   : "charged to the span after each gap (its row's host_launch_j)");
    }
    if (a->weights_used && a->weights_used->n) {
        fmt_j(b1, sizeof b1, a->calibration.measured_dynamic_j);
        fmt_j(b2, sizeof b2, a->calibration.unexplained_j);
        printf("calibration  the weights explain %.1f %% of the %s J of dynamic energy measured "
               "under the spans; the other %s J ",
               a->calibration.measured_dynamic_j > 0
                   ? 100 * a->calibration.predicted_j / a->calibration.measured_dynamic_j
                   : NAN,
               b1, b2);
        if (a->calibration.mode == JL_CALIBRATION_ABSOLUTE)
            printf("(what the isolated loops do not see: interactions, clocks and tails in the "
                   "gaps between kernels) stays unattributed; --calibration-mode relative or "
                   "time would spread it\n");
        else
            printf("is spread over the spans %s; --calibration-mode absolute leaves it "
                   "unattributed\n",
                   a->calibration.mode == JL_CALIBRATION_RELATIVE ? "by the weights' prediction"
                                                                  : "by their time");
        /* the largest moves against equal weights */
        printf("             against equal weights:");
        unsigned char *taken = calloc(a->n_rows ? a->n_rows : 1, 1);
        for (size_t k = 0; taken && k < 4 && k < a->n_rows; k++) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < a->n_rows; i++)
                if (!taken[i] &&
                    (best == SIZE_MAX || fabs(a->rows[i].energy_j - a->rows[i].equal_j) >
                                             fabs(a->rows[best].energy_j - a->rows[best].equal_j)))
                    best = i;
            taken[best] = 1;
            fmt_j(b3, sizeof b3, a->rows[best].energy_j - a->rows[best].equal_j);
            printf("%s %s %s%s J", k ? "," : "", a->rows[best].key,
                   a->rows[best].energy_j >= a->rows[best].equal_j ? "+" : "", b3);
        }
        free(taken);
        printf("\n");
    }
    if (!a->resolution.resolved) {
        char how[64];
        if (isfinite(a->resolution.weight_unc))
            snprintf(how, sizeof how, "each weight within +-%.0f %%",
                     100 * a->resolution.weight_unc);
        else
            snprintf(how, sizeof how, "equal weights: classes within a factor of each other");
        printf("resolution  the counter's intervals do not resolve the classes (most busy time in "
               "spans shorter than an update, the classes' mix steady%s): class figures are known "
               "to the weights' uncertainty (%s), and their intervals say so\n",
               isfinite(a->resolution.condition) ? ", condition number above 30" : "", how);
    }
}

static void print_table(const jl_attribution *a, const judged *jb)
{
    int kw = 5;
    for (size_t i = 0; i < a->n_rows; i++)
        if ((int)strlen(a->rows[i].key) > kw)
            kw = (int)strlen(a->rows[i].key);
    if (kw < 16)
        kw = 16;
    printf("%-*s %10s %21s %7s %9s %9s %8s %8s %7s %10s %10s %8s%s\n", kw, "row", "energy_J",
           "interval_J", "share%", "static_J", "dynamic_J", "time_s", "busy_s", "calls", "J/call",
           "J/token", "peak_W", jb ? "  budget" : "");
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_attribution_row *r = &a->rows[i];
        char e[32], lo[32], hi[32], s[32], d[32], jc[32], jt[32], iv[80], pk[32];
        fmt_j(e, sizeof e, r->energy_j);
        fmt_j(lo, sizeof lo, r->energy_lo_j);
        fmt_j(hi, sizeof hi, r->energy_hi_j);
        fmt_j(s, sizeof s, r->static_j);
        fmt_j(d, sizeof d, r->dynamic_j);
        fmt_j(jc, sizeof jc, r->j_per_call);
        fmt_j(jt, sizeof jt, r->j_per_token);
        snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
        if (isfinite(r->peak_w))
            snprintf(pk, sizeof pk, "%.0f", r->peak_w);
        else
            snprintf(pk, sizeof pk, "-");
        int v = jb ? jb->r->row_verdict[i] : -1;
        printf("%-*s %10s %21s %7.2f %9s %9s %8.3f %8.3f %7zu %10s %10s %8s%s%s\n", kw, r->key, e,
               iv, 100 * r->share, s, d, r->time_s, r->busy_s, r->calls, jc, jt, pk, jb ? "  " : "",
               !jb     ? ""
               : v < 0 ? "-"
                       : jl_budget_verdict_name((jl_budget_verdict)v));
    }
    char w[32], at[32], un[32], stl[32], us[32], ud[32];
    fmt_j(w, sizeof w, a->window_energy_j);
    fmt_j(at, sizeof at, a->attributed_j);
    fmt_j(un, sizeof un, a->unattributed_j);
    fmt_j(us, sizeof us, a->unattributed_static_j);
    fmt_j(ud, sizeof ud, a->unattributed_dynamic_j);
    fmt_j(stl, sizeof stl, a->stall_j);
    printf("%-*s %10s %21s %7.2f   (static %s, dynamic %s)\n", kw, "(unattributed)", un, "",
           100 * a->unattributed_j / a->window_energy_j, us, ud);
    printf("%-*s %10s %21s %7.2f   (%zu gaps >= stall-min, %.3f s)\n", kw, "(stalls)", stl, "",
           100 * a->stall_j / a->window_energy_j, a->n_stalls, a->stall_s);
    printf("\nwindow    [%.6f, %.6f] s (%.3f s), %zu of %zu spans\n", a->window[0], a->window[1],
           a->window[1] - a->window[0], a->n_spans_in_window, a->n_spans);
    char rj[32], oj[32];
    fmt_j(rj, sizeof rj, a->run_energy_j);
    fmt_j(oj, sizeof oj, a->run_energy_j - a->window_energy_j);
    printf("boundary  the %s window at GPU power (%s/gpu): %.1f %% of the run's %s J (the "
           "counter's first update to its last); %s J lie outside it, in no row\n",
           a->window_custom ? "--window" : "profiled", a->window_custom ? "custom" : "profiled",
           a->run_energy_j > 0 ? 100 * a->window_energy_j / a->run_energy_j : NAN, rj, oj);
    printf("energy    %s J measured (%s); rows %s J + unattributed %s J + stalls %s J; "
           "residual %.3g J (%.2g relative)\n",
           w, a->energy_source, at, un, stl, a->residual_j,
           a->window_energy_j != 0 ? a->residual_j / a->window_energy_j : NAN);
    if (isfinite(a->tokens))
        printf("tokens    %.0f in the window (%.4g J/token)\n", a->tokens,
               a->window_energy_j / a->tokens);
    printf("static    %.2f W per GPU: %s\n", a->static_w, a->static_source);
    printf("sensor    counter every %.0f ms, %.0f ms late; watts: last %.0f ms, %.0f ms late "
           "(%s)\n",
           1e3 * a->sensor.update_period_s, 1e3 * a->sensor.energy_delay_s,
           1e3 * a->sensor.watts_window_s, 1e3 * a->sensor.watts_delay_s, a->sensor_source);
    printf("weights   %s", a->weights);
    for (size_t i = 0; a->weights_used && i < a->weights_used->n; i++)
        printf("%s%s %.1f W", i ? ", " : ": ", a->weights_used->cls[i], a->weights_used->w_dyn[i]);
    putchar('\n');
    print_context(a);
    for (size_t i = 0; i < a->n_warnings; i++)
        printf("warning   %s: %s\n", jl_attribution_warning_name(a->warnings[i].id),
               a->warnings[i].message);
    if (jb)
        print_budgets(a, jb);
}

typedef struct csv_ctx {
    const jl_attribution *a;
    const judged *jb;
} csv_ctx;

/* the CSV; with --budgets two more columns (budget_verdict, budget_checks)
 * and a last row "(budgets)": the adherence and the counts */
static int write_csv(FILE *f, const jl_attribution *a, const judged *jb)
{
    if (!jb)
        return jl_attribution_write_csv(a, f) == JL_OK ? 0 : -1;
    char **v = NULL;
    if (jl_span_budget_csv_columns(jb->r, jb->b, &v) != JL_OK)
        return -1;
    static const char *const names[] = {"budget_verdict", "budget_checks"};
    jl_status st = jl_attribution_write_csv_extra(a, f, 2, names, (const char *const *)v);
    for (size_t i = 0; i < 2 * a->n_rows; i++)
        free(v[i]);
    free(v);
    const jl_span_budget_result *r = jb->r;
    char ad[32] = "";
    if (isfinite(r->adherence))
        snprintf(ad, sizeof ad, "%.9g", r->adherence);
    const char *verdict = jl_span_budget_verdict(r);
    char msg[256];
    snprintf(msg, sizeof msg,
             "adherence %s: %zu pass of %zu determined; %zu judged, %zu fail, %zu "
             "undetermined, %zu unmeasured, %zu ceilings without a row",
             *ad ? ad : "-", r->rows_pass, r->rows_pass + r->rows_fail, r->rows_judged,
             r->rows_fail, r->rows_undetermined, r->rows_unmeasured, r->n_unmatched);
    /* the 18 columns of the attribution (the key first), then the two of
     * the budgets */
    const char *cells[20] = {"(budgets)"};
    cells[18] = verdict;
    cells[19] = msg;
    jl_csv_row(f, 20, cells);
    return st == JL_OK && !ferror(f) ? 0 : -1;
}

static int write_csv_fn(FILE *f, const void *ctx)
{
    const csv_ctx *c = ctx;
    return write_csv(f, c->a, c->jb);
}

/* The attribution as asked: --csv FILE (or -), then the --json document,
 * the --jsonl rows or the table; warnings on stderr when the output has no
 * room for them. */
static int emit(const char *cmd, const jl_attribution *a, const judged *jb, const char *csv,
                int json, int jsonl)
{
    int rc = 0;
    jl_error *err = NULL;
    jl_status st;
    if (csv) {
        csv_ctx cc = {a, jb};
        if (!strcmp(csv, "-")) {
            if (write_csv(stdout, a, jb) != 0)
                rc = CLI_EXIT_OUTPUT;
        } else if ((st = jl_write_text(csv, write_csv_fn, &cc, &err)) != JL_OK) {
            return cli_fail(cmd, st, err);
        }
    }
    if (json) {
        jl_error_list none = {0};
        json_t *doc = jl_attribution_document(a);
        if (doc && jb && jl_span_budget_annotate(jb->r, jb->b, doc) != JL_OK) {
            json_decref(doc);
            doc = NULL;
        }
        rc = cli_print_document(cmd, doc, &none);
    } else if (jsonl) {
        for (size_t i = 0; i <= a->n_rows; i++) {
            json_t *r = NULL;
            if (i < a->n_rows) {
                r = jl_attribution_row_to_json(a, &a->rows[i]);
                json_t *bv = r && jb ? jl_span_budget_row_json(jb->r, jb->b, i) : NULL;
                if (r && jb && (!bv || json_object_set_new(r, "budget", bv))) {
                    json_decref(r);
                    r = NULL;
                }
            } else if (!jb) {
                break;
            } else {
                /* the last line: the adherence and counts */
                json_t *sm = jl_span_budget_summary_json(jb->r, jb->b);
                r = sm ? json_pack("{s:o}", "budgets", sm) : NULL;
            }
            char *s = r ? jl_json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
            if (!s) {
                json_decref(r);
                rc = cli_oom(cmd);
                return rc;
            }
            printf("%s\n", s);
            free(s);
            json_decref(r);
        }
    } else if (!csv || strcmp(csv, "-")) {
        print_table(a, jb);
    }
    if (!rc && (fflush(stdout) != 0 || ferror(stdout)))
        rc = CLI_EXIT_OUTPUT;
    if (!rc && !json && !jsonl)
        for (size_t i = 0; csv && !strcmp(csv, "-") && i < a->n_warnings; i++)
            fprintf(stderr, "joules attribute: warning: %s: %s\n",
                    jl_attribution_warning_name(a->warnings[i].id), a->warnings[i].message);
    return rc;
}

static int parse_by(const char *cmd, const char *s, jl_attribution_options *o, int *per_request)
{
    if (!strcmp(s, "request") || !strcmp(s, "request-class")) {
        *per_request = !strcmp(s, "request") ? 1 : 2;
        return 0;
    }
    *per_request = 0;
    static const struct {
        const char *name;
        jl_attribution_by by;
    } t[] = {{"name", JL_ATTRIBUTION_BY_NAME},
             {"class", JL_ATTRIBUTION_BY_CLASS},
             {"layer", JL_ATTRIBUTION_BY_LAYER},
             {"step", JL_ATTRIBUTION_BY_STEP},
             {"kind", JL_ATTRIBUTION_BY_KIND}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (jl_name_eq(s, t[i].name)) {
            o->by = t[i].by;
            return 0;
        }
    if (!strncmp(s, "time", 4)) {
        o->by = JL_ATTRIBUTION_BY_TIME;
        if (!s[4])
            return 0;
        if (s[4] == ':') {
            char *end;
            double v = strtod(s + 5, &end);
            double mul = !strcmp(end, "s") || !*end ? 1 : !strcmp(end, "ms") ? 1e-3 : NAN;
            if (end != s + 5 && isfinite(mul) && v > 0) {
                o->time_bin_s = v * mul;
                return 0;
            }
        }
    }
    static const char *const names[] = {"name", "class", "layer",   "step",
                                        "kind", "time",  "request", "request-class"};
    char near[16];
    int hint = jl_suggest_name(s, names, 8, near, sizeof near);
    return cli_usage_error(cmd,
                           "--by: '%s' is not name, class, layer, step, kind, time:S, request or "
                           "request-class%s%s%s",
                           s, hint ? " (did you mean '" : "", hint ? near : "", hint ? "'?)" : "");
}

/* attribute's own options (the run's options into ao, the rest into x). */
typedef struct attribute_args {
    const char *cal, *csv, *sensor_from, *into, *budgets;
    const char **rules; /* --class PATTERN=CLASS, in order */
    size_t n_rules;
    int json, jsonl, fit, helped, require_valid;
    int per_request; /* --by request (1), request-class (2) */
} attribute_args;

static const struct option longopts[] = {{"by", required_argument, NULL, OPT_BY},
                                         {"calibration", required_argument, NULL, OPT_CAL},
                                         {"class", required_argument, NULL, OPT_CLASS},
                                         {"static-w", required_argument, NULL, OPT_STATIC},
                                         {"window", required_argument, NULL, OPT_WINDOW},
                                         {"stall-min", required_argument, NULL, OPT_STALL},
                                         {"sensor-from", required_argument, NULL, OPT_SENSOR_FROM},
                                         {"set-warning", required_argument, NULL, OPT_SET_WARNING},
                                         {"fit-sensor", no_argument, NULL, OPT_FIT},
                                         {"fit-weights", no_argument, NULL, OPT_FIT_WEIGHTS},
                                         {"into", required_argument, NULL, OPT_INTO},
                                         {"budgets", required_argument, NULL, OPT_BUDGETS},
                                         {"calibration-mode", required_argument, NULL,
                                          OPT_CAL_MODE},
                                         {"clock-correction", required_argument, NULL, OPT_CLOCKS},
                                         {"host-launch", required_argument, NULL, OPT_HOST_LAUNCH},
                                         {"json", no_argument, NULL, CLI_OPT_JSON},
                                         {"jsonl", no_argument, NULL, CLI_OPT_JSONL},
                                         {"csv", required_argument, NULL, CLI_OPT_CSV},
                                         {"require-valid", no_argument, NULL, OPT_VALID},
                                         {"help", no_argument, NULL, 'h'},
                                         {"allow-external-storage", no_argument, NULL,
                                          CLI_OPT_ALLOW_EXTERNAL},
                                         {NULL, 0, NULL, 0}};
const cli_options cli_options_attribute = {":h", longopts};

static int parse_args(const char *cmd, int argc, char **argv, jl_attribution_options *ao,
                      attribute_args *x)
{
    int c, rc = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, cli_options_attribute.optstring, longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            cli_help(cmd, help);
            x->helped = 1;
            return CLI_EXIT_OK;
        case OPT_BY: rc = parse_by(cmd, optarg, ao, &x->per_request); break;
        case OPT_VALID: x->require_valid = 1; break;
        case OPT_CAL: x->cal = optarg; break;
        case CLI_OPT_ALLOW_EXTERNAL: jl_trace_default_allow_external_storage(1); break;
        case OPT_CLASS:
            if (!strchr(optarg, '='))
                rc = cli_usage_error(cmd, "--class: expected PATTERN=CLASS, got '%s'", optarg);
            x->rules[x->n_rules++] = optarg;
            break;
        case OPT_STATIC:
            rc = cli_parse_number(cmd, "--static-w", optarg, 0, 1e6, "a power in W, >= 0",
                                  &ao->static_w);
            break;
        case OPT_WINDOW: {
            char *end;
            ao->window[0] = strtod(optarg, &end);
            if (*end == ',')
                ao->window[1] = strtod(end + 1, &end);
            if (*end || !(ao->window[1] > ao->window[0]))
                rc = cli_usage_error(cmd, "--window: expected A,B with A < B, got '%s'", optarg);
            break;
        }
        case OPT_STALL:
            rc = cli_parse_number(cmd, "--stall-min", optarg, DBL_TRUE_MIN, 1e6, "> 0",
                                  &ao->stall_min_s);
            break;
        case OPT_SENSOR_FROM: x->sensor_from = optarg; break;
        case OPT_SET_WARNING: {
            const char *eq = strchr(optarg, '=');
            char name[64];
            int id = -1;
            if (eq && (size_t)(eq - optarg) < sizeof name) {
                memcpy(name, optarg, (size_t)(eq - optarg));
                name[eq - optarg] = 0;
                id = jl_attribution_warning_find(name);
            }
            if (id < 0) {
                rc = cli_usage_error(cmd,
                                     "--set-warning: expected NAME=VALUE|off with a known "
                                     "NAME (attribute.md, \"Warnings\"), got '%s'",
                                     optarg);
            } else if (!strcmp(eq + 1, "off")) {
                ao->warn_off[id] = 1;
            } else {
                rc = cli_parse_number(cmd, "--set-warning", eq + 1, 0, 1e9, "a number >= 0 or off",
                                      &ao->warn_threshold[id]);
            }
            break;
        }
        case OPT_FIT: x->fit = 1; break;
        case OPT_FIT_WEIGHTS: ao->fit_weights = 1; break;
        case OPT_INTO: x->into = optarg; break;
        case OPT_BUDGETS: x->budgets = optarg; break;
        case OPT_CAL_MODE:
            if (!strcmp(optarg, "relative"))
                ao->calibration_mode = JL_CALIBRATION_RELATIVE;
            else if (!strcmp(optarg, "absolute"))
                ao->calibration_mode = JL_CALIBRATION_ABSOLUTE;
            else if (!strcmp(optarg, "time"))
                ao->calibration_mode = JL_CALIBRATION_TIME;
            else
                rc = cli_usage_error(cmd, "--calibration-mode: '%s' is not relative or absolute",
                                     optarg);
            break;
        case OPT_CLOCKS:
            if (!strcmp(optarg, "busy"))
                ao->clock_correction = JL_SPEED_BUSY;
            else if (!strcmp(optarg, "clock"))
                ao->clock_correction = JL_SPEED_CLOCK;
            else if (!strcmp(optarg, "off"))
                ao->clock_correction = JL_SPEED_OFF;
            else
                rc = cli_usage_error(cmd, "--clock-correction: '%s' is not busy, clock or off",
                                     optarg);
            break;
        case OPT_HOST_LAUNCH:
            if (!strcmp(optarg, "spans"))
                ao->host_launch = JL_HOST_LAUNCH_SPANS;
            else if (!strcmp(optarg, "row"))
                ao->host_launch = JL_HOST_LAUNCH_ROW;
            else if (!strcmp(optarg, "off"))
                ao->host_launch = JL_HOST_LAUNCH_OFF;

            else
                rc = cli_usage_error(cmd, "--host-launch: '%s' is not spans, row or off", optarg);
            break;
        case CLI_OPT_JSON: x->json = 1; break;
        case CLI_OPT_JSONL: x->jsonl = 1; break;
        case CLI_OPT_CSV: x->csv = optarg; break;
        default: rc = cli_bad_option(cmd, c, argv); break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* --sensor-from: the sensor model fitted on another run (a square wave). */
static int sensor_from_run(const char *cmd, const char *spec, jl_sensor *use)
{
    opened q;
    jl_sensor_fit_result f;
    int rc = open_run(cmd, spec, &q);
    if (rc)
        return rc;
    rc = fit_sensor(cmd, &q, &f);
    opened_close(&q);
    if (rc)
        return rc;
    use->update_period_s = f.update_period_s;
    use->energy_delay_s = f.energy_delay_s;
    use->watts_window_s = f.watts_window_s;
    use->watts_delay_s = f.watts_delay_s;
    return 0;
}

/* ---- --by request | request-class ------------------------------------------ */

static void print_requests(const jl_request_attribution *a)
{
    int kw = 8;
    for (size_t i = 0; i < a->n_rows; i++)
        if ((int)strlen(a->rows[i].key) > kw)
            kw = (int)strlen(a->rows[i].key);
    printf("%-*s %5s %10s %21s %9s %9s %9s %8s %8s %9s %10s\n", kw,
           a->by == JL_REQUESTS_BY_CLASS ? "class" : "request", "reqs", "energy_J", "interval_J",
           "prefill_J", "decode_J", "static_J", "prompt", "output", "resident", "J/out_tok");
    char e[32], lo[32], hi[32], p[32], d[32], s[32], jt[32], iv[80];
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_request_row *r = &a->rows[i];
        fmt_j(e, sizeof e, r->energy_j);
        fmt_j(lo, sizeof lo, r->energy_lo_j);
        fmt_j(hi, sizeof hi, r->energy_hi_j);
        fmt_j(p, sizeof p, r->prefill_j);
        fmt_j(d, sizeof d, r->decode_j);
        fmt_j(s, sizeof s, r->static_j);
        fmt_j(jt, sizeof jt, r->output_tokens > 0 ? r->energy_j / r->output_tokens : NAN);
        snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
        printf("%-*s %5zu %10s %21s %9s %9s %9s %8.0f %8.0f %9.3f %10s\n", kw, r->key,
               r->n_requests, e, iv, p, d, s, r->input_tokens, r->output_tokens, r->resident_s, jt);
    }
    fmt_j(e, sizeof e, a->unattributed_j);
    fmt_j(s, sizeof s, a->unattributed_static_j);
    fmt_j(d, sizeof d, a->unattributed_dynamic_j);
    printf("%-*s %5s %10s   (static %s: no request resident; dynamic %s: no work in the "
           "interval)\n",
           kw, "(unattributed)", "", e, s, d);
    fmt_j(e, sizeof e, a->window_energy_j);
    fmt_j(p, sizeof p, a->attributed_j);
    printf("\nwindow    [%.6f, %.6f] s (%.3f s, %s), %zu requests (%zu never started or "
           "finished)\n",
           a->window[0], a->window[1], a->window[1] - a->window[0],
           a->window_custom ? "--window" : "first prefill to last token", a->n_requests,
           a->n_requests_skipped);
    char un[32];
    fmt_j(un, sizeof un, a->unattributed_j);
    printf("energy    %s J measured (%s, %zu GPU%s); rows %s J + unattributed %s J; residual "
           "%.3g J\n",
           e, a->energy_source, a->n_gpus, a->n_gpus == 1 ? "" : "s", p, un, a->residual_j);
    printf("static    %.2f W (+-%.0f %%): %s\n", a->static_w, 100 * a->static_unc,
           a->static_source);
    const jl_request_fit *f = &a->fit;
    printf("fit       %.4g J per prompt token [%.4g, %.4g], %.4g J per output token [%.4g, "
           "%.4g], %.4g J per engine step [%.4g, %.4g] (95 %%), r2 %.3f over %zu intervals: %s\n",
           f->j_per_prompt_token, f->j_per_prompt_token_lo, f->j_per_prompt_token_hi,
           f->j_per_output_token, f->j_per_output_token_lo, f->j_per_output_token_hi, f->j_per_step,
           f->j_per_step_lo, f->j_per_step_hi, f->r2, f->n_intervals, f->note);
    printf("work      %.0f prompt and %.0f output tokens, %.0f engine steps in the window\n",
           a->prompt_tokens, a->output_tokens, a->engine_steps);
    if (a->prompt_tokens_outside > 0 || a->output_tokens_outside > 0)
        printf("outside   %.0f prompt and %.0f output tokens of the requests lie outside the "
               "window (before the counter's first update, or outside --window): their energy "
               "is not measured, and not in the rows\n",
               a->prompt_tokens_outside, a->output_tokens_outside);
    printf("prefill   %s\ndecode    %s\n", a->prefill_source, a->decode_source);
    if (isfinite(a->window_share))
        printf("coverage  the window holds %.1f %% of the run's energy; the counter updates "
               "every %.0f ms, the split resolves %.0f ms (three updates)\n",
               100 * a->window_share, 1e3 * a->update_period_s, 1e3 * a->split_s);
    if (a->costliest >= 0 && (size_t)a->costliest < a->n_rows) {
        const jl_request_row *r = &a->rows[a->costliest];
        printf("costliest request %s: %.4g J per output token (the median request %.4g)", r->key,
               r->energy_j / r->output_tokens, a->median_j_per_output_token);
        if (r->step_share > 0 && isfinite(r->step_j) && r->energy_j > 0)
            printf("; %.1f J of its %.1f J (%.0f %%) is its share of the engine steps' fixed "
                   "cost: the steps it ran in held %.1f requests on average (the median "
                   "request's %.1f)",
                   r->step_j, r->energy_j, 100 * r->step_j / r->energy_j, r->steps / r->step_share,
                   a->median_mean_batch);
        printf("\n");
    }
    for (size_t i = 0; i < a->n_checks; i++) {
        const jl_request_check *c = &a->checks[i];
        printf("check     %s: predicted %.1f J, measured %.1f J (%+.1f %%; dynamic %+.1f %%)\n",
               c->run, c->predicted_j, c->measured_j, 100 * c->error, 100 * c->dynamic_error);
    }
}

static int write_requests_csv(FILE *f, const void *ctx)
{
    return jl_request_attribution_write_csv(ctx, f) == JL_OK ? 0 : -1;
}

/* TRACE.h5[:RUN] per request; the fit checked on the file's other runs
 * with requests/ */
static int attribute_requests(const char *cmd, const char *arg, const jl_attribution_options *ao,
                              const attribute_args *x)
{
    jl_error *err = NULL;
    jl_trace *t = NULL;
    jl_run *run = NULL;
    jl_summary *sum = NULL;
    jl_request_attribution *a = NULL;
    jl_sensor sen;
    jl_sensor_init(&sen);
    jl_request_options ro;
    jl_request_options_default(&ro);
    ro.by = x->per_request == 2 ? JL_REQUESTS_BY_CLASS : JL_REQUESTS_BY_REQUEST;
    ro.window[0] = ao->window[0], ro.window[1] = ao->window[1];
    ro.static_w = ao->static_w;
    int rc = 0;
    size_t idx = 0;
    jl_status st = open_trace_run(arg, &t, &idx, &err);
    size_t n = t ? jl_trace_run_count(t) : 0;
    if (st == JL_OK)
        st = jl_trace_read_run(t, idx, &run, &err);
    if (st == JL_OK)
        st = jl_trace_read_sensor(t, idx, &sen, &err);
    if (st == JL_OK && x->require_valid && (st = jl_summarize(run, NULL, &sum, &err)) == JL_OK) {
        jl_summary_list one = {&sum, 1, 1};
        if ((rc = cli_require_valid(cmd, 1, &one)))
            goto end;
    }
    if (st == JL_OK)
        st = jl_request_attribution_compute(run, &sen, &ro, &a, &err);
    /* the sweep's other runs: the fit's prediction of their energy (their own
     * requests' window, the stated static power or their own) */
    for (size_t i = 0; st == JL_OK && i < n; i++) {
        if (i == idx)
            continue;
        jl_run *o = NULL;
        jl_sensor os;
        jl_sensor_init(&os);
        jl_request_attribution *oa = NULL;
        jl_request_options oo = ro;
        oo.window[0] = oo.window[1] = NAN;
        jl_error *e2 = NULL;
        if (jl_trace_read_run(t, i, &o, &e2) == JL_OK && o->req_n &&
            jl_trace_read_sensor(t, i, &os, &e2) == JL_OK &&
            jl_request_attribution_compute(o, &os, &oo, &oa, &e2) == JL_OK)
            st = jl_request_attribution_check(a, oa);
        jl_error_free(e2);
        jl_request_attribution_free(oa);
        jl_sensor_clear(&os);
        jl_run_free(o);
    }
    if (st != JL_OK) {
        rc = cli_fail(cmd, st, err);
        goto end;
    }
    if (x->csv) {
        if (!strcmp(x->csv, "-")) {
            if (jl_request_attribution_write_csv(a, stdout) != JL_OK)
                rc = CLI_EXIT_OUTPUT;
        } else if ((st = jl_write_text(x->csv, write_requests_csv, a, &err)) != JL_OK) {
            rc = cli_fail(cmd, st, err);
            goto end;
        }
    }
    if (x->json) {
        jl_error_list none = {0};
        rc = cli_print_document(cmd, jl_request_attribution_document(a), &none);
    } else if (x->jsonl) {
        for (size_t i = 0; i < a->n_rows; i++) {
            json_t *r = jl_request_row_to_json(a, &a->rows[i]);
            char *s = r ? jl_json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
            json_decref(r);
            if (!s) {
                rc = cli_oom(cmd);
                goto end;
            }
            printf("%s\n", s);
            free(s);
        }
    } else if (!x->csv || strcmp(x->csv, "-")) {
        print_requests(a);
    }
    if (!rc && (fflush(stdout) != 0 || ferror(stdout)))
        rc = CLI_EXIT_OUTPUT;
end:
    jl_request_attribution_free(a);
    jl_summary_free(sum);
    jl_sensor_clear(&sen);
    jl_run_free(run);
    jl_trace_close(t);
    return rc;
}

int cli_cmd_attribute(int argc, char **argv)
{
    const char *cmd = "attribute";
    jl_attribution_options ao;
    jl_attribution_options_default(&ao);
    attribute_args x = {0};
    x.rules = calloc((size_t)argc + 1, sizeof *x.rules);
    if (!x.rules)
        return cli_oom(cmd);
    int rc = parse_args(cmd, argc, argv, &ao, &x);
    const char **rules = x.rules;
    if (rc || x.helped) {
        free(rules);
        return rc;
    }
    const char *cal = x.cal, *csv = x.csv, *sensor_from = x.sensor_from, *into = x.into;
    if (x.budgets && (x.fit || ao.by != JL_ATTRIBUTION_BY_CLASS)) {
        free(rules);
        return cli_usage_error(cmd, "--budgets judges the rows of --by class (not with --by "
                                    "other than class, nor with --fit-sensor)");
    }
    jl_budgets *budgets = NULL;
    if (x.budgets) {
        jl_error *berr = NULL;
        jl_status bst = jl_budgets_load(x.budgets, &budgets, &berr);
        if (bst != JL_OK) {
            free(rules);
            cli_print_error(cmd, berr);
            jl_error_free(berr);
            return bst == JL_ENOMEM ? cli_oom(cmd) : cli_exit_for_status(JL_EUSAGE);
        }
    }
    int json = x.json, jsonl = x.jsonl, fit = x.fit;
    size_t n_rules = x.n_rules;
    if (argc - optind != 1) {
        jl_budgets_free(budgets);
        free(rules);
        return cli_usage_error(cmd, "give one TRACE.h5[:RUN]");
    }
    if (json + jsonl > 1 || (csv && !strcmp(csv, "-") && (json || jsonl))) {
        jl_budgets_free(budgets);
        free(rules);
        return cli_usage_error(cmd, "--json, --jsonl and --csv - all want stdout: pick one");
    }
    if (x.per_request) {
        free(rules);
        if (x.cal || x.budgets || fit || into || x.sensor_from || n_rules || ao.fit_weights) {
            jl_budgets_free(budgets);
            return cli_usage_error(cmd, "--by request|request-class takes --window, --static-w, "
                                        "--json, --jsonl, --csv and --require-valid only");
        }
        return attribute_requests(cmd, argv[optind], &ao, &x);
    }
    ao.class_rules = rules;
    ao.n_class_rules = n_rules;
    opened o;
    if ((rc = open_run(cmd, argv[optind], &o)) != 0) {
        jl_budgets_free(budgets);
        free(rules);
        return rc;
    }
    jl_error *err = NULL;
    jl_status st;
    if (fit) {
        jl_sensor_fit_result f;
        if ((rc = fit_sensor(cmd, &o, &f)) == 0 && into)
            rc = write_sensor(cmd, &f, argv[optind], into);
        if (rc == 0)
            print_fit(&f, json);
        opened_close(&o);
        free(rules);
        return rc;
    }
    if (into) {
        jl_budgets_free(budgets);
        opened_close(&o);
        free(rules);
        return cli_usage_error(cmd, "--into goes with --fit-sensor");
    }
    jl_class_weights *w = NULL;
    jl_attribution *a = NULL;
    jl_summary *sum = NULL;
    jl_span_budget_result *br = NULL;
    jl_sensor use;
    jl_sensor_init(&use);
    if (x.require_valid) { /* the run's validity (spans_misaligned, gaps, ...) */
        if ((st = jl_summarize(o.run, NULL, &sum, &err)) != JL_OK) {
            rc = cli_fail(cmd, st, err);
            err = NULL;
            goto end;
        }
        jl_summary_list one = {&sum, 1, 1};
        if ((rc = cli_require_valid(cmd, 1, &one)))
            goto end;
    }
    if (sensor_from && (rc = sensor_from_run(cmd, sensor_from, &use)) != 0)
        goto end;
    if (cal && (st = jl_class_weights_from_trace(cal, &w, &err)) != JL_OK) {
        rc = cli_fail(cmd, st, err);
        goto end;
    }
    ao.weights = w;
    if ((st = jl_attribution_compute(o.run, o.spans, sensor_from ? &use : &o.sensor, &ao, &a,
                                     &err)) != JL_OK) {
        rc = cli_fail(cmd, st, err);
        goto end;
    }
    if (budgets) {
        /* the run's summary, for the budgets' selectors */
        if ((!sum && (st = jl_summarize(o.run, NULL, &sum, &err)) != JL_OK) ||
            (st = jl_budgets_evaluate_spans(budgets, sum, a, &br, &err)) != JL_OK) {
            rc = cli_fail(cmd, st, err);
            goto end;
        }
        if (!br->n_budgets)
            fprintf(stderr, "joules attribute: note: no budget of %s with \"spans\" selects %s\n",
                    x.budgets, a->run);
        for (size_t i = 0; i < br->n_unmatched; i++)
            fprintf(stderr, "joules attribute: note: %s: budget '%s': class '%s' matches no row\n",
                    x.budgets, jl_budgets_name(budgets, br->unmatched[i].budget),
                    br->unmatched[i].cls);
    }
    judged jb = {budgets, br};
    rc = emit(cmd, a, br ? &jb : NULL, csv, json, jsonl);
    if (rc == CLI_EXIT_OK && br && br->rows_fail)
        rc = CLI_EXIT_PARTIAL;
end:
    jl_span_budget_result_free(br);
    jl_summary_free(sum);
    jl_budgets_free(budgets);
    jl_attribution_free(a);
    jl_class_weights_free(w);
    jl_sensor_clear(&use);
    opened_close(&o);
    free(rules);
    return rc;
}
