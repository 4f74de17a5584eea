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
    "       joules attribute SQUARE.h5[:RUN] --fit-sensor [--json] [--into TRACE.h5:RUN]\n\n"
    "Split the energy the GPU's counter measured over a profiled window among the\n"
    "run's spans (spans/: joules import kineto ... --into TRACE.h5:RUN): static\n"
    "power by time, dynamic energy by device-busy time x class weights (equal, or\n"
    "from --calibration). Rows + unattributed + stalls = the window's energy; the\n"
    "residual is printed. Spans shorter than the sensor's update are apportioned,\n"
    "not measured: every row has an interval, and peak power only where a power\n"
    "reading's window lies inside the row (attribute.md).\n\n"
    "  --by KEY           rows per span name, class (default), layer, step, kind, or\n"
    "                     time:S (bins of S seconds, e.g. time:1s, time:250ms)\n"
    "  --calibration FILE isolated-loop runs, one per class: per-class weights\n"
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

static int open_run(const char *cmd, const char *arg, opened *o)
{
    memset(o, 0, sizeof *o);
    jl_sensor_init(&o->sensor);
    char *path = strdup(arg);
    if (!path)
        return cli_oom(cmd);
    char *run = NULL, *colon = strrchr(path, ':');
    if (colon && colon > path && strstr(path, ".h5") && colon > strstr(path, ".h5")) {
        *colon = 0;
        run = colon + 1;
    }
    jl_error *err = NULL;
    jl_status st = jl_trace_open(path, NULL, &o->t, &err);
    size_t idx = 0;
    if (st == JL_OK) {
        size_t n = jl_trace_run_count(o->t);
        if (run) {
            while (idx < n && strcmp(jl_trace_run_name(o->t, idx), run))
                idx++;
            if (idx == n)
                st = jl_fail(&err, JL_EUSAGE, path, run, NULL, -1, "no run '%s' in the file", run);
        } else if (n != 1) {
            st = jl_fail(&err, JL_EUSAGE, path, NULL, NULL, -1,
                         "the file holds %zu runs: name one (FILE.h5:RUN)", n);
        }
    }
    if (st == JL_OK)
        st = jl_trace_read_run(o->t, idx, &o->run, &err);
    if (st == JL_OK)
        st = jl_trace_read_spans(o->t, idx, &o->spans, &err);
    if (st == JL_OK)
        st = jl_trace_read_sensor(o->t, idx, &o->sensor, &err);
    free(path);
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
    printf("boundary  the profiled window at GPU power (profiled/gpu): %.1f %% of the run's %s J; "
           "%s J lie outside it, in no row\n",
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
    fprintf(f, "(budgets),,,,,,,,,,,,,,,,,%s,", verdict ? verdict : "");
    char msg[256];
    snprintf(msg, sizeof msg,
             "adherence %s: %zu pass of %zu determined; %zu judged, %zu fail, %zu "
             "undetermined, %zu unmeasured, %zu ceilings without a row",
             *ad ? ad : "-", r->rows_pass, r->rows_pass + r->rows_fail, r->rows_judged,
             r->rows_fail, r->rows_undetermined, r->rows_unmeasured, r->n_unmatched);
    jl_csv_field(f, msg);
    fputc('\n', f);
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

static int parse_by(const char *cmd, const char *s, jl_attribution_options *o)
{
    static const struct {
        const char *name;
        jl_attribution_by by;
    } t[] = {{"name", JL_ATTRIBUTION_BY_NAME},
             {"class", JL_ATTRIBUTION_BY_CLASS},
             {"layer", JL_ATTRIBUTION_BY_LAYER},
             {"step", JL_ATTRIBUTION_BY_STEP},
             {"kind", JL_ATTRIBUTION_BY_KIND}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name)) {
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
    return cli_usage_error(cmd, "--by: '%s' is not name, class, layer, step, kind or time:S", s);
}

/* attribute's own options (the run's options into ao, the rest into x). */
typedef struct attribute_args {
    const char *cal, *csv, *sensor_from, *into, *budgets;
    const char **rules; /* --class PATTERN=CLASS, in order */
    size_t n_rules;
    int json, jsonl, fit, helped, require_valid;
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
        case OPT_BY: rc = parse_by(cmd, optarg, ao); break;
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
