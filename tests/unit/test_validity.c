/* The validity contract (issue 37; docs/check.md, "Reason codes"):
 *  - the reason table is the one docs/check.md prints, word for word;
 *  - a fault-injection corpus: for every code of the table a run, a log or
 *    a file, made here, that must produce it, and good ones that must
 *    produce none (a code without its fault fails the test);
 *  - the mistakes of the issue, each an error or a reason: two logging
 *    sessions in one nvidia-smi file, a last line cut mid-value, a request
 *    file of another cap, a profiler clock off by seconds, CodeCarbon's
 *    out-of-order flushes and g/s emissions_rate, kg/kWh intensities and PUE
 *    typos, bf16, offsets in timestamps, windows hours away from the log;
 *  - data (RUN_DATA): the checks over every shared real file, counting
 *    the alarms (no invalid reason is a false alarm we keep).
 * Each of these fails on the code before issue 37. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/reasons.h"
#include "import/profile_spans.h"
#include "joules/account.h"
#include "joules/check.h"
#include "joules/import.h"
#include "joules/spans.h"
#include "joules/summary.h"
#include "joules/trace_write.h"
#include "joules/validity.h"
#include "test.h"
#include "unit/test_summary_fixture.h"

/* ---- helpers ---------------------------------------------------------------- */

static const jl_reason *reason(const jl_summary *s, const char *code)
{
    for (size_t i = 0; s && i < s->validity.n; i++)
        if (!strcmp(s->validity.reasons[i].code, code))
            return &s->validity.reasons[i];
    return NULL;
}

/* A run of n samples every dt seconds at w watts (one GPU). */
static jl_run *flat(size_t n, double dt, double w)
{
    jl_run *r = fx_new("llm", 1, 8);
    double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        t[i] = (double)i * dt;
        v[i] = w;
    }
    fx_power(r, n, t, v, NULL);
    free(t);
    free(v);
    return r;
}

/* Summarise r (freed) with the default rules applied, as the study does. */
static jl_summary *judge(jl_run *r)
{
    jl_summary *s = fx_sum(r);
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    if (s)
        CHECK_EQ_INT(jl_check_annotate(s, &rs, NULL), JL_OK);
    jl_run_free(r);
    return s;
}

static const jl_kv SET[] = {{"workload", "llm", 0},     {"model", "org/m", 0},
                            {"task", "chat", 0},        {"precision", "bf16", 0},
                            {"max_batch_size", "8", 1}, {"gpu_model", "H100", 0}};

/* An nvidia-smi log (and RUNS.csv) imported in memory: run k summarised. */
static jl_import_result *nvsmi(const char *log, const char *runs, jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.set = SET;
    o.n_set = sizeof SET / sizeof SET[0];
    jl_import_result *r = NULL;
    jl_import_nvidia_smi_buffer(log, strlen(log), "log.csv", runs, runs ? strlen(runs) : 0, &o, &r,
                                errors);
    return r;
}

static jl_summary *nvsmi_run(const char *log, const char *runs, size_t k)
{
    jl_error_list errors = {0};
    jl_import_result *r = nvsmi(log, runs, &errors);
    for (size_t i = 0; i < errors.count; i++) {
        char *m = jl_error_format(errors.items[i]);
        fprintf(stderr, "  import: %s\n", m ? m : "?");
        free(m);
    }
    jl_error_list_clear(&errors);
    jl_summary *s = NULL;
    if (r && k < r->n_runs) {
        jl_run *run = r->runs[k];
        r->runs[k] = NULL;
        s = judge(run);
    }
    jl_import_result_free(r);
    return s;
}

static int has_note(const jl_import_result *r, const char *needle)
{
    for (size_t i = 0; r && i < r->n_notes; i++)
        if (strstr(r->notes[i].message, needle))
            return 1;
    return 0;
}

/* A log of power.draw readings: one line per second from 10:00:00 + t0 s. */
static char *smi_log(int n, int t0, const char *watts, const char *extra_cols,
                     const char *extra_vals)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    jl__strbuf_printf(&b, "timestamp, index, uuid, name, power.draw [W]%s\n", extra_cols);
    for (int i = 0; i < n; i++) {
        int t = t0 + i;
        jl__strbuf_printf(
            &b, "2026/11/23 %02d:%02d:%02d.000, 0, GPU-aaaa, NVIDIA H100 80GB HBM3, %s W%s\n",
            10 + t / 3600, t / 60 % 60, t % 60, watts, extra_vals);
    }
    return jl__strbuf_take(&b);
}

static char *temp_path(const char *name)
{
    static int k;
    const char *dir = getenv("TMPDIR");
    return jl__asprintf("%s/joules-validity-%ld-%d-%s", dir && *dir ? dir : "/tmp", (long)getpid(),
                        k++, name);
}

/* ---- the fault corpus: one maker per code ----------------------------------------- */

static jl_summary *fault_sample_gap(void)
{
    /* 5 s at 10 Hz, an hour without samples, 5 s more: integrated across */
    jl_run *r = flat(100, 0.1, 300);
    for (size_t i = 50; i < 100; i++)
        r->power_time[i] += 3600;
    r->attrs.gpu_idle_power_w = 60;
    return judge(r);
}

static jl_summary *fault_window_not_bracketed(void)
{
    char *log = smi_log(10, 0, "300.00", "", "");
    jl_summary *s =
        nvsmi_run(log, "run,start,end\nr1,2026-11-23T10:00:00Z,2026-11-23T10:00:30Z\n", 0);
    free(log);
    return s;
}

static jl_summary *fault_counter_reset(void)
{
    jl_run *r = fx_new("llm", 1, 8);
    double t[40], w[40], e[40];
    for (int i = 0; i < 40; i++) {
        t[i] = i;
        w[i] = 100;
        e[i] = i < 20 ? 5000 + 100.0 * i : 100.0 * (i - 20); /* the driver restarted */
    }
    fx_power(r, 40, t, w, e);
    return judge(r);
}

static jl_summary *fault_counter_wrap(void)
{
    jl_run *r = flat(11, 1, 100);
    r->host_n = 11;
    r->host_time = malloc(11 * sizeof(double));
    r->cpu_energy_j = (jl_series){11, 1, malloc(11 * sizeof(double))};
    double c = 840;
    for (int i = 0; i < 11; i++) {
        r->host_time[i] = i;
        r->cpu_energy_j.v[i] = c;
        c += 50;
        if (c > 1000)
            c -= 1000;
    }
    r->host_sockets = 1;
    r->cpu_max_energy_range_j = malloc(sizeof(double));
    r->cpu_max_energy_range_j[0] = 1000;
    return judge(r);
}

static const char *TWO_SESSIONS = "timestamp, index, name, power.draw [W]\n"
                                  "2026/01/01 10:00:00.000, 0, NVIDIA H100 80GB HBM3, 100.00 W\n"
                                  "2026/01/01 10:00:01.000, 0, NVIDIA H100 80GB HBM3, 100.00 W\n"
                                  "timestamp, index, name, power.draw [W]\n"
                                  "2026/01/01 11:00:00.000, 0, NVIDIA H100 80GB HBM3, 100.00 W\n"
                                  "2026/01/01 11:00:01.000, 0, NVIDIA H100 80GB HBM3, 100.00 W\n";

static jl_summary *fault_clock_jump(void)
{
    return nvsmi_run(TWO_SESSIONS,
                     "run,start,end\nboth,2026-01-01T10:00:00Z,2026-01-01T11:00:01Z\n", 0);
}

static jl_summary *fault_session_split(void)
{
    return nvsmi_run(TWO_SESSIONS, NULL, 1);
}

static jl_summary *fault_invalid_power_sample(void)
{
    jl_run *r = flat(50, 0.1, 300);
    r->attrs.gpu_tdp_w = 700;
    r->watts.v[20] = 65535; /* a sentinel read as watts */
    return judge(r);
}

static jl_summary *fault_truncated_record(void)
{
    char *log = smi_log(10, 0, "57.30", "", "");
    char *cut =
        jl__asprintf("%s2026/11/23 10:00:10.000, 0, GPU-aaaa, NVIDIA H100 80GB HBM3, 57", log);
    jl_summary *s = nvsmi_run(cut, NULL, 0);
    free(log);
    free(cut);
    return s;
}

static jl_summary *fault_identity_changed(void)
{
    char *a = smi_log(5, 0, "300.00", "", ""), *b = smi_log(5, 5, "300.00", "", "");
    char *bb = b;
    /* the second machine's GPU 0 has another uuid; no header between */
    char *body = strchr(bb, '\n') + 1, *p;
    while ((p = strstr(body, "GPU-aaaa")))
        memcpy(p, "GPU-bbbb", 8);
    char *log = jl__asprintf("%s%s", a, body);
    jl_summary *s =
        nvsmi_run(log, "run,start,end\nr,2026-11-23T10:00:00Z,2026-11-23T10:00:09Z\n", 0);
    free(a);
    free(b);
    free(log);
    return s;
}

static jl_summary *fault_requests_outside_window(void)
{
    jl_run *r = flat(100, 0.1, 300); /* power over [0, 9.9] s */
    double a[10], f[10], l[10];
    int32_t out[10];
    for (int i = 0; i < 10; i++) {
        a[i] = 100 + i; /* another run's requests, placed a minute and a half later */
        f[i] = a[i] + 0.1;
        l[i] = a[i] + 5;
        out[i] = 50;
    }
    fx_requests(r, 10, a, f, l, out);
    return judge(r);
}

static jl_summary *fault_requests_inconsistent(void)
{
    jl_run *r = flat(200, 0.1, 400);
    r->attrs.max_batch_size = 4;
    double a[32], f[32], l[32];
    int32_t out[32];
    for (int i = 0; i < 32; i++) { /* 32 decoding at once on a cap of 4: another cap's log */
        a[i] = 0.5 + 0.01 * i;
        f[i] = a[i] + 0.2;
        l[i] = 18 + 0.01 * i;
        out[i] = 200;
    }
    fx_requests(r, 32, a, f, l, out);
    return judge(r);
}

/* Bursts of load at irregular times (no period to alias), power following
 * them; the spans placed `shift` seconds off. */
#define N_BURSTS 8
static const double BURST_AT[N_BURSTS] = {2, 5, 11, 13.5, 20, 24, 31, 35};
static const double BURST_LEN[N_BURSTS] = {1.5, 3, 1, 4, 2, 2.5, 1, 3};

static jl_run *square_run(void)
{
    jl_run *r = fx_new("llm", 1, 8);
    size_t n = 450;
    double *t = malloc(n * sizeof *t), *w = malloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        t[i] = 0.1 * (double)i;
        w[i] = 100;
        for (int b = 0; b < N_BURSTS; b++)
            if (t[i] >= BURST_AT[b] && t[i] < BURST_AT[b] + BURST_LEN[b])
                w[i] = 600;
    }
    fx_power(r, n, t, w, NULL);
    free(t);
    free(w);
    return r;
}

static jl_spans *square_spans(double shift)
{
    jl_spans *sp = jl_spans_new();
    size_t n = N_BURSTS;
    sp->n = n;
    sp->names = malloc(sizeof(char *));
    sp->names[0] = jl__strdup("step");
    sp->n_names = 1;
    sp->name = calloc(n, sizeof(int32_t));
    sp->start = malloc(n * sizeof(double));
    sp->end = malloc(n * sizeof(double));
    sp->parent = malloc(n * sizeof(int32_t));
    for (size_t i = 0; i < n; i++) {
        sp->start[i] = BURST_AT[i] + shift;
        sp->end[i] = sp->start[i] + BURST_LEN[i];
        sp->parent[i] = -1;
    }
    sp->source = jl__strdup("harness");
    sp->side = jl__strdup("gpu");
    sp->window[0] = sp->start[0];
    sp->window[1] = sp->end[n - 1];
    return sp;
}

static jl_summary *fault_spans_misaligned(void)
{
    char *path = temp_path("spans.h5");
    jl_run *r = square_run();
    jl_error *err = NULL;
    const jl_run *one[1] = {r};
    CHECK_EQ_INT(jl_trace_write(path, one, 1, NULL, &err), JL_OK);
    jl_error_free(err);
    jl_spans *sp = square_spans(3.0); /* a profiler clock off by 3 s */
    jl_error_list errors = {0};
    jl__span_fit fit;
    /* refused by default, naming the offset that fits */
    CHECK_EQ_INT(jl__spans_write_checked(path, "b0000", sp, r, 0, "p.json", &errors, &fit),
                 JL_EINVALID);
    CHECK(errors.count == 1 && strstr(errors.items[0]->message, "fits the power best -3"));
    jl_error_list_clear(&errors);
    CHECK_NEAR(fit.best_offset_s, -3.0, 0, 0.15);
    /* kept on request, marked */
    CHECK_EQ_INT(jl__spans_write_checked(path, "b0000", sp, r, 1, "p.json", &errors, &fit), JL_OK);
    jl_error_list_clear(&errors);
    jl_spans_free(sp);
    jl_run_free(r);
    jl_trace *t = NULL;
    jl_run *back = NULL;
    jl_summary *s = NULL;
    if (jl_trace_open(path, NULL, &t, &err) == JL_OK &&
        jl_trace_read_run(t, 0, &back, &err) == JL_OK)
        s = judge(back);
    jl_error_free(err);
    jl_trace_close(t);
    unlink(path);
    free(path);
    return s;
}

static jl_summary *fault_power_capped(void)
{
    char *log = smi_log(10, 0, "699.00", ", clocks_throttle_reasons.sw_power_cap", ", Active");
    jl_summary *s = nvsmi_run(log, NULL, 0);
    free(log);
    return s;
}

static jl_summary *fault_clocks_throttled(void)
{
    char *log = smi_log(10, 0, "400.00", ", clocks_event_reasons.hw_slowdown", ", Active");
    jl_summary *s = nvsmi_run(log, NULL, 0);
    free(log);
    return s;
}

static jl_summary *fault_window_misaligned(void)
{
    /* requests in flight from t = 0 while power stays idle until t = 6 */
    jl_run *r = fx_new("llm", 1, 1);
    double t[201], w[201];
    for (int i = 0; i <= 200; i++) {
        t[i] = 0.1 * i;
        w[i] = t[i] < 6 ? 100 : 400;
    }
    fx_power(r, 201, t, w, NULL);
    double a[20], f[20], l[20];
    int32_t out[20];
    for (int i = 0; i < 20; i++) {
        a[i] = 0;
        f[i] = 0.5 + 0.01 * i;
        l[i] = 1 + i;
        out[i] = 100;
    }
    fx_requests(r, 20, a, f, l, out);
    return judge(r);
}

static jl_summary *fault_energy_sources_disagree(void)
{
    jl_run *r = fx_new("llm", 1, 8);
    double t[40], w[40], e[40];
    for (int i = 0; i < 40; i++) {
        t[i] = i;
        w[i] = 200; /* the integral says twice what the counter counted */
        e[i] = 100.0 * i;
    }
    fx_power(r, 40, t, w, e);
    return judge(r);
}

/* A CodeCarbon file: imported through the importer table, run k summarised. */
static jl_summary *codecarbon_run(const char *csv, size_t k, size_t *n_runs, jl_run **keep)
{
    char *path = temp_path("emissions.csv");
    FILE *f = fopen(path, "w");
    fputs(csv, f);
    fclose(f);
    const jl_importer *im = jl_importer_find("codecarbon");
    jl_importer_arg args[] = {{"set", "workload=llm"},     {"set", "model=org/m"},
                              {"set", "task=chat"},        {"set", "precision=bfloat16"},
                              {"set", "max_batch_size=1"}, {"set", "gpu_model=H100"},
                              {"set", "num_gpus=1"},       {"timezone", "UTC"}};
    const char *paths[] = {path};
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    jl_status st = im->run(paths, 1, args, sizeof args / sizeof args[0], &r, &errors);
    CHECK_EQ_INT(st, JL_OK);
    jl_error_list_clear(&errors);
    jl_summary *s = NULL;
    if (n_runs)
        *n_runs = r ? r->n_runs : 0;
    if (r && k < r->n_runs) {
        if (keep) {
            *keep = r->runs[k];
            r->runs[k] = NULL;
        } else {
            jl_run *run = r->runs[k];
            r->runs[k] = NULL;
            s = judge(run);
        }
    }
    jl_import_result_free(r);
    unlink(path);
    free(path);
    return s;
}

static jl_summary *fault_units_assumed(void)
{
    /* no codecarbon_version (before 2.2.0) and no emissions to check the rate against */
    return codecarbon_run("timestamp,project_name,run_id,duration,emissions,emissions_rate,"
                          "gpu_energy,energy_consumed\n"
                          "2024-01-01T00:00:10,p,r1,10,,0.002,0.001,0.001\n",
                          0, NULL, NULL);
}

static const struct {
    const char *code;
    jl_summary *(*make)(void);
} FAULTS[] = {
    {"window_not_bracketed", fault_window_not_bracketed},
    {"sample_gap", fault_sample_gap},
    {"counter_reset", fault_counter_reset},
    {"counter_wrap", fault_counter_wrap},
    {"clock_jump", fault_clock_jump},
    {"session_split", fault_session_split},
    {"invalid_power_sample", fault_invalid_power_sample},
    {"truncated_record", fault_truncated_record},
    {"identity_changed", fault_identity_changed},
    {"requests_outside_window", fault_requests_outside_window},
    {"requests_inconsistent", fault_requests_inconsistent},
    {"spans_misaligned", fault_spans_misaligned},
    {"power_capped", fault_power_capped},
    {"clocks_throttled", fault_clocks_throttled},
    {"window_misaligned", fault_window_misaligned},
    {"energy_sources_disagree", fault_energy_sources_disagree},
    {"units_assumed", fault_units_assumed},
};
#define N_FAULTS (sizeof FAULTS / sizeof FAULTS[0])

/* Every code of the table has its fault, and the fault gives it. */
TEST(every_reason_has_its_fault)
{
    size_t n;
    const jl_reason_info *t = jl_reason_infos(&n);
    CHECK_EQ_INT(n, N_FAULTS);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < N_FAULTS && strcmp(FAULTS[k].code, t[i].code))
            k++;
        if (k == N_FAULTS) {
            fprintf(stderr, "  no fault makes %s\n", t[i].code);
            CHECK(0);
            continue;
        }
        jl_summary *s = FAULTS[k].make();
        const jl_reason *r = reason(s, t[i].code);
        if (!r)
            fprintf(stderr, "  the fault for %s did not give it (%zu reasons)\n", t[i].code,
                    s ? s->validity.n : 0);
        CHECK(r != NULL);
        if (r && t[i].severity == JL_SEVERITY_INVALID)
            CHECK(!jl_validity_is_valid(&s->validity));
        jl_summary_free(s);
    }
}

/* Good runs give no reason at all: a steady run, its requests inside and
 * consistent; a clean log; a clean log with RUNS.csv inside it. */
TEST(good_files_give_none)
{
    jl_run *r = flat(300, 0.1, 400);
    r->attrs.gpu_tdp_w = 700;
    double a[8], f[8], l[8];
    int32_t out[8];
    for (int i = 0; i < 8; i++) {
        a[i] = 0.05 * i;
        f[i] = a[i] + 0.2;
        l[i] = 29.5 + 0.01 * i;
        out[i] = 1000;
    }
    fx_requests(r, 8, a, f, l, out);
    jl_summary *s = judge(r);
    CHECK(s && s->validity.n == 0);
    jl_summary_free(s);
    char *log = smi_log(30, 0, "300.00", ", enforced.power.limit [W]", ", 700.00 W");
    s = nvsmi_run(log, NULL, 0);
    CHECK(s && s->validity.n == 0);
    jl_summary_free(s);
    s = nvsmi_run(log, "run,start,end\nr,2026-11-23T10:00:05Z,2026-11-23T10:00:20Z\n", 0);
    CHECK(s && s->validity.n == 0);
    jl_summary_free(s);
    free(log);
}

/* The bundled traces: no reason that makes a run invalid. */
TEST(bundled_traces_valid)
{
    const char *files[] = {"h100/h100-qwen3-8b-shape-chat.h5", "h100/h100-qwen3-1.7b-shape-chat.h5",
                           "h100/h100-dit-shape-text-to-image.h5"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        char *p = jl__asprintf("%s/traces/%s", JOULES_SOURCE_DIR, files[k]);
        jl_trace *t = NULL;
        jl_error *err = NULL;
        if (access(p, R_OK) != 0 || jl_trace_open(p, NULL, &t, &err) != JL_OK) {
            free(p);
            jl_error_free(err);
            continue;
        }
        for (size_t i = 0; i < jl_trace_run_count(t); i++) {
            jl_run *r = NULL;
            if (jl_trace_read_run(t, i, &r, &err) != JL_OK) {
                jl_error_free(err);
                err = NULL;
                continue;
            }
            jl_summary *s = judge(r);
            CHECK(s && jl_validity_is_valid(&s->validity));
            jl_summary_free(s);
        }
        jl_trace_close(t);
        free(p);
    }
}

/* docs/check.md's table is the X-macro, row for row. */
TEST(docs_table_is_the_table)
{
    FILE *f = fopen(JOULES_SOURCE_DIR "/docs/check.md", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    static char text[1 << 17];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    size_t n, rows = 0;
    const jl_reason_info *t = jl_reason_infos(&n);
    for (size_t i = 0; i < n; i++) {
        char *row = jl__asprintf("| `%s` | %s | %s |\n", t[i].code, jl_severity_name(t[i].severity),
                                 t[i].doc);
        if (!strstr(text, row))
            fprintf(stderr, "  docs/check.md lacks: %s", row);
        CHECK(strstr(text, row) != NULL);
        free(row);
    }
    /* and no row of its own: every "| `code` | severity |" line is in the table */
    const char *sec = strstr(text, "## Reason codes");
    for (const char *p = sec; p && (p = strstr(p, "\n| `")); p++) {
        char code[64];
        if (sscanf(p, "\n| `%63[^`]`", code) == 1 && !strstr(p, "| code |")) {
            const char *bar = strchr(p + 4, '|');
            if (bar && (strncmp(bar, "| invalid", 9) && strncmp(bar, "| caution", 9) &&
                        strncmp(bar, "| info", 6)))
                continue;
            rows++;
            CHECK(jl_reason_find(code) != NULL);
        }
    }
    CHECK_EQ_INT(rows, n);
}

/* The validity's text form (the run attribute) and its JSON in the run
 * object. */
TEST(text_and_json)
{
    jl_validity v = {0};
    CHECK_EQ_INT(jl_validity_add(&v, "sample_gap", 12.5, "a \"gap\""), JL_OK);
    CHECK_EQ_INT(jl_validity_add(&v, "sample_gap", 12.5, "a \"gap\""), JL_OK); /* once */
    CHECK_EQ_INT(jl_validity_add(&v, "power_capped", NAN, "capped"), JL_OK);
    CHECK_EQ_INT(v.n, 2);
    CHECK(!jl_validity_is_valid(&v));
    char *text = jl_validity_to_text(&v);
    jl_validity w = {0};
    CHECK_EQ_INT(jl_validity_parse_text(&w, text), JL_OK);
    CHECK(w.n == 2 && !strcmp(w.reasons[0].message, "a \"gap\"") &&
          w.reasons[0].energy_bound_j == 12.5 && isnan(w.reasons[1].energy_bound_j));
    CHECK_EQ_INT(jl_validity_parse_text(&w, "{\"code\": 1}"), JL_EINVALID);
    CHECK_EQ_INT(w.n, 2);
    free(text);
    jl_validity_clear(&w);
    /* a newer writer's code: kept, and counted invalid */
    CHECK_EQ_INT(jl_validity_add(&v, "from_the_future", NAN, "?"), JL_OK);
    jl_validity_clear(&v);
    jl_summary *s = fault_sample_gap();
    json_t *o = s ? jl_summary_to_json(s) : NULL;
    json_t *val = json_object_get(o, "validity");
    CHECK(json_is_false(json_object_get(val, "valid")));
    json_t *r0 = json_array_get(json_object_get(val, "reasons"), 0);
    CHECK_STR(json_string_value(json_object_get(r0, "code")), "sample_gap");
    CHECK(json_number_value(json_object_get(r0, "energy_bound_j")) > 0);
    CHECK(json_is_string(json_object_get(r0, "message")));
    json_decref(o);
    jl_summary_free(s);
}

/* ---- the mistakes ------------------------------------------------------- */

/* Two 1-s, 100 W sessions an hour apart: two runs of 100 J (not one of
 * 3,601 s and 360,100 J). */
TEST(two_sessions_two_runs)
{
    jl_error_list errors = {0};
    jl_import_result *r = nvsmi(TWO_SESSIONS, NULL, &errors);
    CHECK(r && r->n_runs == 2);
    double total = 0;
    for (size_t i = 0; r && i < r->n_runs; i++) {
        jl_summary *s = fx_sum(r->runs[i]);
        CHECK(s != NULL);
        if (s) {
            total += FIG(s, RUN_ENERGY_J);
            CHECK_NEAR(FIG(s, RUN_DURATION_S), 1, 0, 1e-9);
        }
        jl_summary_free(s);
    }
    CHECK_NEAR(total, 200, 0, 1e-6);
    CHECK(r && !strcmp(r->runs[1]->name, "log__s2"));
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    /* a header repeated with no pause (a logger restarted at once): one run */
    char *a = smi_log(5, 0, "100.00", "", ""), *b = smi_log(5, 5, "100.00", "", "");
    char *log = jl__asprintf("%s%s", a, b);
    r = nvsmi(log, NULL, &errors);
    CHECK(r && r->n_runs == 1);
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    free(a);
    free(b);
    free(log);
}

/* A last line cut mid-value ("57" of "57.3 W", nounits): left out, said. */
TEST(cut_last_value)
{
    const char *log = "timestamp, power.draw [W]\n"
                      "2026/11/23 10:00:00.000, 57.3\n2026/11/23 10:00:01.000, 57.3\n"
                      "2026/11/23 10:00:02.000, 57.3\n2026/11/23 10:00:03.000, 57";
    jl_error_list errors = {0};
    jl_import_result *r = nvsmi(log, NULL, &errors);
    CHECK(r && r->n_runs == 1 && r->runs[0]->power_n == 3);
    CHECK(has_note(r, "cut short"));
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    jl_summary *s = fault_truncated_record();
    CHECK(reason(s, "truncated_record") && jl_validity_is_valid(&s->validity));
    jl_summary_free(s);
}

/* A request log of cap 128 on a cap-4 run (the swap of the issue). */
TEST(request_file_of_another_cap)
{
    jl_summary *s = fault_requests_inconsistent();
    const jl_reason *r = reason(s, "requests_inconsistent");
    CHECK(r && strstr(r->message, "more than the run's cap of 4"));
    jl_summary_free(s);
}

/* A vLLM file saved on another day than its window: requests_outside_window. */
TEST(request_file_of_another_day)
{
    char *dir = temp_path("req");
    mkdir(dir, 0700);
    char *req = jl__asprintf("%s/r.json", dir), *runs = jl__asprintf("%s/runs.csv", dir),
         *logp = jl__asprintf("%s/log.csv", dir);
    FILE *f = fopen(req, "w");
    fputs("{\"date\": \"20261120-101010\", \"max_concurrency\": 8, \"input_lens\": [10, 10], "
          "\"output_lens\": [5, 5], \"ttfts\": [0.1, 0.1], \"itls\": [[0.01, 0.01, 0.01, 0.01], "
          "[0.01, 0.01, 0.01, 0.01]], \"start_times\": [100.0, 100.5], \"errors\": [\"\", \"\"]}",
          f);
    fclose(f);
    f = fopen(runs, "w");
    fputs("run,start,end,requests\nr,2026-11-23T10:00:01Z,2026-11-23T10:00:08Z,r.json\n", f);
    fclose(f);
    char *log = smi_log(10, 0, "300.00", "", "");
    f = fopen(logp, "w");
    fputs(log, f);
    fclose(f);
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.set = SET;
    o.n_set = sizeof SET / sizeof SET[0];
    o.runs_csv = runs;
    const char *logs[] = {logp};
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    CHECK_EQ_INT(jl_import_nvidia_smi(logs, 1, &o, &r, &errors), JL_OK);
    jl_summary *s = r && r->n_runs ? fx_sum(r->runs[0]) : NULL;
    const jl_reason *x = reason(s, "requests_outside_window");
    CHECK(x && strstr(x->message, "before the run's window"));
    jl_summary_free(s);
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    unlink(req);
    unlink(runs);
    unlink(logp);
    rmdir(dir);
    free(log);
    free(req);
    free(runs);
    free(logp);
    free(dir);
}

/* A profiler clock off by 3 s: refused with the offset that fits; aligned
 * spans pass. */
TEST(profile_clock_off)
{
    jl_run *r = square_run();
    jl_spans *ok = square_spans(0), *off = square_spans(3);
    jl__span_fit fit;
    CHECK_EQ_INT(jl__spans_alignment(ok, r, &fit), 0);
    CHECK_EQ_INT(jl__spans_alignment(off, r, &fit), 1);
    CHECK_NEAR(fit.best_offset_s, -3, 0, 0.15);
    jl_spans_free(ok);
    jl_spans_free(off);
    jl_run_free(r);
}

/* CodeCarbon: flushes of forked processes out of time order are one run;
 * two trackers two runs; emissions_rate in g/s before 2.2.0. */
TEST(codecarbon_identity_and_units)
{
    const char *csv = "timestamp,project_name,run_id,duration,emissions,emissions_rate,"
                      "gpu_energy,energy_consumed,codecarbon_version\n"
                      "2024-01-01T00:00:10,p,A,10,0.001,0.0001,0.01,0.01,2.4.0\n"
                      "2024-01-01T00:00:30,p,A,30,0.003,0.0001,0.03,0.03,2.4.0\n"
                      "2024-01-01T00:00:20,p,A,20,0.002,0.0001,0.02,0.02,2.4.0\n"
                      "2024-01-01T00:00:15,p,B,15,0.0015,0.0001,0.015,0.015,2.4.0\n"
                      "2024-01-01T00:00:40,p,A,40,0.004,0.0001,0.04,0.04,2.4.0\n"
                      "2024-01-01T00:00:25,p,B,25,0.0025,0.0001,0.025,0.025,2.4.0\n";
    size_t n = 0;
    jl_run *a = NULL;
    codecarbon_run(csv, 0, &n, &a);
    CHECK_EQ_INT(n, 2);
    jl_summary *s = a ? fx_sum(a) : NULL;
    CHECK(s && FIG(s, STEADY_DURATION_S) == 40);
    jl_summary_free(s);
    jl_run_free(a);
    /* 2.1.x: g/s */
    const char *old = "timestamp,project_name,run_id,duration,emissions,emissions_rate,"
                      "gpu_energy,energy_consumed\n"
                      "2022-06-01T00:00:10,p,A,10,0.001,0.1,0.01,0.01\n";
    codecarbon_run(old, 0, &n, &a);
    const char *rate = NULL, *re = NULL;
    for (size_t i = 0; a && i < a->summary.n_extra; i++) {
        if (!strcmp(a->summary.extra[i].key, "emissions_rate_kg_s"))
            rate = a->summary.extra[i].value;
        if (!strcmp(a->summary.extra[i].key, "emissions_kg_recomputed"))
            re = a->summary.extra[i].value;
    }
    CHECK(rate && fabs(atof(rate) - 1e-4) < 1e-12);
    CHECK(re && fabs(atof(re) - 1e-3) < 1e-12);
    jl_run_free(a);
}

/* Units and ranges of the accounts' options. */
TEST(intensity_and_pue)
{
    double v;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_intensity_parse("0.4", &v, &e), JL_EUSAGE);
    CHECK(e && strstr(e->message, "0.4kg/kWh"));
    jl_error_free(e);
    e = NULL;
    CHECK_EQ_INT(jl_intensity_parse("4000", &v, &e), JL_EUSAGE);
    jl_error_free(e);
    e = NULL;
    CHECK(jl_intensity_parse("0.4kg/kWh", &v, NULL) == JL_OK && v == 400);
    CHECK(jl_intensity_parse("0.4 kgCO2e/kWh", &v, NULL) == JL_OK && v == 400);
    CHECK(jl_intensity_parse("400g/kWh", &v, NULL) == JL_OK && v == 400);
    CHECK(jl_intensity_parse("400", &v, NULL) == JL_OK && v == 400);
    CHECK(jl_intensity_parse("900lbs/MWh", &v, NULL) == JL_OK && fabs(v - 408.233133) < 1e-6);
    CHECK(jl_intensity_parse("0.2t/MWh", &v, NULL) == JL_OK && v == 200);
    CHECK_EQ_INT(jl_intensity_parse("400 furlongs", &v, &e), JL_EUSAGE);
    jl_error_free(e);
    e = NULL;
    CHECK_EQ_INT(jl_pue_parse("120", &v, &e), JL_EUSAGE);
    CHECK(e && strstr(e->message, "percentage"));
    jl_error_free(e);
    e = NULL;
    CHECK_EQ_INT(jl_pue_parse("0.9", &v, &e), JL_EUSAGE);
    jl_error_free(e);
    e = NULL;
    CHECK(jl_pue_parse("1.2", &v, NULL) == JL_OK && v == 1.2);
    CHECK(jl_pue_parse("3.4:forced", &v, NULL) == JL_OK && v == 3.4);
    jl_tseries *s = NULL;
    CHECK_EQ_INT(jl_tseries_parse("0.4", JL_INTENSITY_AVERAGE, &s, &e), JL_EUSAGE);
    jl_error_free(e);
    e = NULL;
    CHECK(jl_tseries_parse("0.4kg/kWh", JL_INTENSITY_AVERAGE, &s, NULL) == JL_OK &&
          jl_tseries_at(s, 0) == 400);
    jl_tseries_free(s);
    s = NULL;
    CHECK_EQ_INT(jl_tseries_parse_pue("120", &s, &e), JL_EUSAGE);
    jl_error_free(e);
}

/* Attribute values in the spec's vocabulary. */
TEST(vocabulary)
{
    char out[64];
    const char *p[][2] = {{"bf16", "bfloat16"},     {"BF16", "bfloat16"},
                          {"bfloat16", "bfloat16"}, {"fp16", "float16"},
                          {"half", "float16"},      {"FP32", "float32"},
                          {"fp8_e4m3", "fp8"},      {"float8", "fp8"},
                          {"MXFP4", "mxfp4"},       {"torch.bfloat16", "bfloat16"}};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        CHECK(jl_attrs_canonical_value("precision", p[i][0], out, sizeof out) == NULL);
        CHECK_STR(out, p[i][1]);
    }
    const char *why = jl_attrs_canonical_value("precision", "bf61", out, sizeof out);
    CHECK(why && strstr(why, "bfloat16, float16, float32, fp8"));
    CHECK(jl_attrs_canonical_value("workload", "LLM", out, sizeof out) == NULL);
    CHECK_STR(out, "llm");
    CHECK(jl_attrs_canonical_value("model", "Org/Model", out, sizeof out) == NULL);
    CHECK_STR(out, "Org/Model");
    /* --set precision=bf16 stores bfloat16 (SET gives bf16) */
    char *log = smi_log(5, 0, "300.00", "", "");
    jl_error_list errors = {0};
    jl_import_result *r = nvsmi(log, NULL, &errors);
    CHECK(r && r->n_runs == 1 && !strcmp(r->runs[0]->attrs.precision, "bfloat16"));
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    free(log);
    /* a trace's own "fp16" pairs with float16 in the summary */
    jl_run *run = flat(20, 0.1, 300);
    free(run->attrs.precision);
    run->attrs.precision = jl__strdup("fp16");
    jl_summary *s = judge(run);
    CHECK(s && !strcmp(s->attrs.precision, "float16"));
    jl_summary_free(s);
}

/* Timestamps with offsets get no contradicting zone note; RUNS.csv windows
 * hours away from the log are an error naming both spans. */
TEST(zones)
{
    const char *log = "timestamp,index,power.draw\n"
                      "2025-09-08T17:26:50+08:00,0,74.01\n2025-09-08T17:26:51+08:00,0,74.01\n"
                      "2025-09-08T17:26:52+08:00,0,74.01\n";
    jl_error_list errors = {0};
    jl_import_result *r = nvsmi(log, NULL, &errors);
    CHECK(r && has_note(r, "carry their own UTC offset (UTC+08:00)"));
    CHECK(r && !has_note(r, "local times read in"));
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    char *l2 = smi_log(10, 0, "300.00", "", "");
    r = nvsmi(l2, "run,start,end\nr,2026-11-23T04:00:00Z,2026-11-23T04:00:09Z\n", &errors);
    int found = 0;
    for (size_t i = 0; i < errors.count; i++)
        found |= strstr(errors.items[i]->message, "are 6.0 h before the log") != NULL;
    CHECK(found);
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    free(l2);
}

/* DCGM's enforced power limit and throttle reasons (the newer name too)
 * are kept per run; a run capped most of its window says so. */
TEST(dcgm_power_cap)
{
    char *path = temp_path("prom.json");
    FILE *f = fopen(path, "w");
    fputs("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[", f);
    const char *names[] = {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_ENFORCED_POWER_LIMIT",
                           "DCGM_FI_DEV_CLOCKS_EVENT_REASONS"};
    const char *vals[] = {"650", "650", "4"};
    for (int m = 0; m < 3; m++) {
        fprintf(f,
                "%s{\"metric\":{\"__name__\":\"%s\",\"gpu\":\"0\",\"UUID\":\"GPU-1\","
                "\"modelName\":\"NVIDIA H100 80GB HBM3\",\"Hostname\":\"n1\",\"pod\":\"p1\"},"
                "\"values\":[",
                m ? "," : "", names[m]);
        for (int k = 0; k < 20; k++)
            fprintf(f, "%s[%d,\"%s\"]", k ? "," : "", 1764230400 + 15 * k, vals[m]);
        fputs("]}", f);
    }
    fputs("]}}", f);
    fclose(f);
    const jl_importer *im = jl_importer_find("prometheus");
    jl_importer_arg args[] = {{"runs-by", "pod"},        {"set", "workload=llm"},
                              {"set", "model=org/m"},    {"set", "task=chat"},
                              {"set", "precision=bf16"}, {"set", "max_batch_size=8"}};
    const char *paths[] = {path};
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    CHECK_EQ_INT(im->run(paths, 1, args, sizeof args / sizeof args[0], &r, &errors), JL_OK);
    jl_summary *s = r && r->n_runs ? fx_sum(r->runs[0]) : NULL;
    CHECK(reason(s, "power_capped") != NULL);
    CHECK(s && s->attrs.gpu_tdp_w == 650);
    jl_summary_free(s);
    jl_import_result_free(r);
    jl_error_list_clear(&errors);
    unlink(path);
    free(path);
}

/* ---- the shared real files: false alarms --------------------------------------- */

typedef struct tally {
    size_t runs, invalid_runs, by_code[JL__R_COUNT], other;
} tally;

static void count(tally *t, const jl_summary *s, const char *what)
{
    t->runs++;
    if (!jl_validity_is_valid(&s->validity)) {
        t->invalid_runs++;
        for (size_t i = 0; i < s->validity.n; i++)
            if (jl_reason_severity(&s->validity.reasons[i]) == JL_SEVERITY_INVALID)
                fprintf(stderr, "  false alarm? %s %s: [%s] %s\n", what, s->run,
                        s->validity.reasons[i].code, s->validity.reasons[i].message);
    }
    for (size_t i = 0; i < s->validity.n; i++) {
        int k = -1;
        for (int c = 0; c < JL__R_COUNT; c++)
            if (!strcmp(jl__reason_code((jl__reason)c), s->validity.reasons[i].code))
                k = c;
        if (k >= 0)
            t->by_code[k]++;
        else
            t->other++;
    }
}

static void count_result(tally *t, jl_import_result *r, const char *what)
{
    for (size_t i = 0; r && i < r->n_runs; i++) {
        jl_run *run = r->runs[i];
        r->runs[i] = NULL;
        jl_summary *s = judge(run);
        if (s)
            count(t, s, what);
        jl_summary_free(s);
    }
    jl_import_result_free(r);
}

/* Every .h5 under dir (recursively), every run. */
static void count_traces(tally *t, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = jl__asprintf("%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            count_traces(t, p);
        } else if (strlen(p) > 3 && !strcmp(p + strlen(p) - 3, ".h5")) {
            jl_trace *tr = NULL;
            jl_error *err = NULL;
            if (jl_trace_open(p, NULL, &tr, &err) == JL_OK) {
                for (size_t i = 0; i < jl_trace_run_count(tr); i++) {
                    jl_run *r = NULL;
                    if (jl_trace_read_run(tr, i, &r, &err) == JL_OK) {
                        jl_summary *s = judge(r);
                        if (s)
                            count(t, s, p);
                        jl_summary_free(s);
                    } else {
                        jl_error_free(err);
                        err = NULL;
                    }
                }
            }
            jl_error_free(err);
            jl_trace_close(tr);
        }
        free(p);
    }
    if (d)
        closedir(d);
}

static void report(const char *what, const tally *t)
{
    fprintf(stderr, "  %-44s %5zu runs, %zu not valid;", what, t->runs, t->invalid_runs);
    for (int c = 0; c < JL__R_COUNT; c++)
        if (t->by_code[c])
            fprintf(stderr, " %s %zu", jl__reason_code((jl__reason)c), t->by_code[c]);
    fprintf(stderr, "\n");
}

TEST(shared_real_files_no_false_alarm)
{
    SKIP_UNLESS_READABLE(JOULES_SHARED_DIR "/traces");
    SKIP_UNLESS_READABLE(JOULES_SHARED_DIR "/realworld");
    tally all = {0};
    const char *trace_dirs[] = {"traces", "attribution-h100", "realworld/nvidia-smi-h100"};
    for (size_t k = 0; k < sizeof trace_dirs / sizeof trace_dirs[0]; k++) {
        tally t = {0};
        char *p = jl__asprintf("%s/%s", JOULES_SHARED_DIR, trace_dirs[k]);
        count_traces(&t, p);
        report(trace_dirs[k], &t);
        CHECK_EQ_INT(t.invalid_runs, 0);
        all.runs += t.runs;
        all.invalid_runs += t.invalid_runs;
        free(p);
    }
    /* nvidia-smi logs, each one run (the gap, session and unit checks) */
    const char *logs[] = {"realworld/nvidia-smi-h100/nvidia-smi-100ms.csv",
                          "realworld/public-corpus/nvidia-smi/darsh-nounits/"
                          "baseline_r1_20260418_205427_power.csv",
                          "realworld/public-corpus/nvidia-smi/flame-fluidsgl/fluidsGL-smi.csv",
                          "realworld/public-corpus/nvidia-smi/ignasipc-gpulog/gpu_log.csv",
                          "realworld/public-corpus/nvidia-smi/ignasipc-gpulog/"
                          "gpu_log_19_12_2025.csv"};
    tally tl = {0};
    for (size_t k = 0; k < sizeof logs / sizeof logs[0]; k++) {
        char *p = jl__asprintf("%s/%s", JOULES_SHARED_DIR, logs[k]);
        jl_import_nvsmi_options o;
        jl_import_nvsmi_options_default(&o);
        o.timezone = "UTC";
        o.set = SET;
        o.n_set = sizeof SET / sizeof SET[0];
        const char *one[] = {p};
        jl_import_result *r = NULL;
        jl_error_list errors = {0};
        if (access(p, R_OK) == 0 && jl_import_nvidia_smi(one, 1, &o, &r, &errors) == JL_OK) {
            CHECK_EQ_INT(r->n_runs, 1); /* no log here holds two sessions */
            count_result(&tl, r, logs[k]);
        } else {
            jl_import_result_free(r);
        }
        jl_error_list_clear(&errors);
        free(p);
    }
    report("nvidia-smi logs (public corpus, H100 log)", &tl);
    CHECK_EQ_INT(tl.invalid_runs, 0);
    /* MLPerf Power runs */
    tally tm = {0};
    const char *mp[] = {JOULES_SHARED_DIR "/realworld/mlperf-power-v1.0",
                        JOULES_SHARED_DIR "/realworld/public-corpus/mlperf-power"};
    jl_import_result *r = NULL;
    jl_error_list errors = {0};
    if (jl_import_mlperf_power(mp, 2, NULL, &r, &errors) == JL_OK)
        count_result(&tm, r, "mlperf");
    else
        jl_import_result_free(r);
    jl_error_list_clear(&errors);
    report("MLPerf Power (v1.0 and the public corpus)", &tm);
    CHECK_EQ_INT(tm.invalid_runs, 0);
    /* CodeCarbon and Zeus */
    tally tc = {0};
    const struct {
        const char *fmt, *path;
    } sums[] = {{"codecarbon", JOULES_SHARED_DIR "/realworld/codecarbon/examples/emissions.csv"},
                {"zeus", JOULES_SHARED_DIR "/realworld/zeus/tests/profile_data/"
                                           "A40+bert-base-uncased+gpu0.csv"},
                {"zeus", JOULES_SHARED_DIR "/realworld/zeus/tests/profile_data/"
                                           "A40+resnet18+gpu0,1,2,3.csv"},
                {"zeus", JOULES_SHARED_DIR "/realworld/zeus/tests/profile_data/"
                                           "V100+resnet50+gpu0,1.csv"}};
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++) {
        const jl_importer *im = jl_importer_find(sums[k].fmt);
        jl_importer_arg args[] = {{"set", "workload=llm"},     {"set", "model=org/m"},
                                  {"set", "task=chat"},        {"set", "precision=bfloat16"},
                                  {"set", "max_batch_size=1"}, {"set", "gpu_model=A40"}};
        size_t na = sizeof args / sizeof args[0] - (strcmp(sums[k].fmt, "zeus") ? 1 : 0);
        const char *one[] = {sums[k].path};
        r = NULL;
        if (access(sums[k].path, R_OK) == 0 && im->run(one, 1, args, na, &r, &errors) == JL_OK)
            count_result(&tc, r, sums[k].path);
        else
            jl_import_result_free(r);
        jl_error_list_clear(&errors);
    }
    report("CodeCarbon example, Zeus profiles", &tc);
    CHECK_EQ_INT(tc.invalid_runs, 0);
    /* the ML.ENERGY Leaderboard releases */
    tally td = {0};
    const char *ml[] = {JOULES_SHARED_DIR "/data/mlenergy-v3",
                        JOULES_SHARED_DIR "/data/mlenergy-2026-01-01"};
    for (size_t k = 0; k < 2; k++) {
        r = NULL;
        if (access(ml[k], R_OK) == 0 && jl_import_mlenergy_auto(ml[k], NULL, &r, &errors) == JL_OK)
            count_result(&td, r, ml[k]);
        else
            jl_import_result_free(r);
        jl_error_list_clear(&errors);
    }
    report("ML.ENERGY data (v3, 2026-01-01)", &td);
    CHECK_EQ_INT(td.invalid_runs, 0);
    fprintf(stderr, "  false alarms on the shared data: %zu invalid of %zu runs\n",
            all.invalid_runs + tl.invalid_runs + tm.invalid_runs + tc.invalid_runs +
                td.invalid_runs,
            all.runs + tl.runs + tm.runs + tc.runs + td.runs);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(every_reason_has_its_fault);
    RUN(good_files_give_none);
    RUN(bundled_traces_valid);
    RUN(docs_table_is_the_table);
    RUN(text_and_json);
    RUN(two_sessions_two_runs);
    RUN(cut_last_value);
    RUN(request_file_of_another_cap);
    RUN(request_file_of_another_day);
    RUN(profile_clock_off);
    RUN(codecarbon_identity_and_units);
    RUN(intensity_and_pue);
    RUN(vocabulary);
    RUN(zones);
    RUN(dcgm_power_cap);
    RUN_DATA(shared_real_files_no_false_alarm);
    TEST_MAIN_END();
}
