/* nvidia-smi import: hand-made logs (units, missing values, several GPUs,
 * noheader + --columns, time zones, --sort, runs, --set, requests from a
 * vLLM result JSON) and the bad-input errors (file:line:column, field,
 * value). The real-data check against the NVML counter is
 * tests/import/realdata.py. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "joules/import.h"
#include "joules/summary.h"
#include "joules/trace_write.h"
#include "test.h"

static const char *extra(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (!strcmp(r->attrs.extra[i].key, k))
            return r->attrs.extra[i].value;
    return NULL;
}

/* The required attributes the logs do not say, as --set gives them (a
 * test's own set, if any, is used instead). */
static const jl_kv REQUIRED_SET[] = {{"workload", "llm", 0},     {"model", "org/m", 0},
                                     {"task", "chat", 0},        {"precision", "bfloat16", 0},
                                     {"max_batch_size", "8", 1}, {"gpu_model", "H100", 0}};

static jl_import_result *imp(const char *log, const char *runs, const jl_import_nvsmi_options *o,
                             jl_error_list *errors)
{
    jl_import_result *r = NULL;
    jl_import_nvsmi_options oo = *o;
    if (!oo.n_set) {
        oo.set = REQUIRED_SET;
        oo.n_set = sizeof REQUIRED_SET / sizeof REQUIRED_SET[0];
    }
    jl_import_nvidia_smi_buffer(log, strlen(log), "log.csv", runs, runs ? strlen(runs) : 0, &oo, &r,
                                errors);
    return r;
}

static char *first_error(const jl_error_list *e)
{
    return e->count ? jl_error_format(e->items[0]) : NULL;
}

static const char *TWO_GPUS =
    "timestamp, index, name, power.draw [W], power.draw.instant [W], power.limit [W], "
    "utilization.gpu [%], memory.used [MiB], memory.total [MiB], clocks.current.sm [MHz], "
    "temperature.gpu, pstate\r\n"
    "2026/11/23 10:00:00.000, 0, NVIDIA H100 80GB HBM3, 100.00 W, 110.00 W, 700.00 W, 50 %, 1024 MiB, 81559 MiB, 1980 MHz, 40, P0\r\n"
    "2026/11/23 10:00:00.010, 1, NVIDIA H100 80GB HBM3, 200.00 W, 210.00 W, 700.00 W, 60 %, 2048 MiB, 81559 MiB, 1980 MHz, 41, P0\r\n"
    "2026/11/23 10:00:01.000, 0, NVIDIA H100 80GB HBM3, 100.00 W, 130.00 W, 700.00 W, [N/A], 1024 MiB, 81559 MiB, 1980 MHz, 40, P0\r\n"
    "2026/11/23 10:00:01.010, 1, NVIDIA H100 80GB HBM3, 200.00 W, 230.00 W, 700.00 W, 70 %, 2048 MiB, 81559 MiB, 1980 MHz, 41, P0\r\n"
    "2026/11/23 10:00:02.000, 0, NVIDIA H100 80GB HBM3, 100.00 W, 150.00 W, 700.00 W, 50 %, 1024 MiB, 81559 MiB, 1980 MHz, 40, P0\r\n"
    "2026/11/23 10:00:03.000, 0, NVIDIA H100 80GB HBM3, 100.00 W, 150.00 W, 700.00 W, 50 %, 1024 MiB, 81559 MiB, 1980 MHz, 40, P0\r\n"
    "2026/11/23 10:00:03.010, 1, NVIDIA H100 80GB HBM3, 200.00 W, 250.00 W, 700.00 W, 50 %, 2048 MiB, 81559 MiB, 1980 MHz, 41, P0\r\n";

/* A log as Windows PowerShell's `>` writes it (UTF-16LE with its BOM, CRLF)
 * reads as the UTF-8 one, with a note; a poll whose rows come in another
 * GPU order keeps its power (samples keyed by GPU). */
static void test_utf16_and_order(void)
{
    jt_current = "utf16_and_order";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    size_t n = strlen(TWO_GPUS);
    char *u16 = malloc(2 * n + 2);
    u16[0] = (char)0xFF;
    u16[1] = (char)0xFE;
    for (size_t i = 0; i < n; i++) {
        u16[2 + 2 * i] = TWO_GPUS[i];
        u16[3 + 2 * i] = 0;
    }
    jl_error_list e = {0};
    jl_import_result *a = imp(TWO_GPUS, NULL, &o, &e), *b = NULL;
    o.set = REQUIRED_SET;
    o.n_set = sizeof REQUIRED_SET / sizeof REQUIRED_SET[0];
    jl_import_nvidia_smi_buffer(u16, 2 * n + 2, "log.csv", NULL, 0, &o, &b, &e);
    free(u16);
    CHECK(a && b);
    CHECK_EQ_INT(e.count, 0);
    if (a && b) {
        CHECK_EQ_INT(b->runs[0]->power_n, a->runs[0]->power_n);
        for (size_t i = 0; i < a->runs[0]->power_n * 2; i++)
            CHECK_NEAR(b->runs[0]->watts.v[i], a->runs[0]->watts.v[i], 0, 0);
        int noted = 0;
        for (size_t i = 0; i < b->n_notes; i++)
            noted |= strstr(b->notes[i].message, "UTF-16LE") != NULL;
        CHECK(noted);
    }
    jl_import_result_free(a);
    jl_import_result_free(b);
    const char *mixed = "timestamp, index, power.draw [W]\n"
                        "2026/11/23 10:00:00.000, 0, 100 W\n"
                        "2026/11/23 10:00:00.010, 1, 200 W\n"
                        "2026/11/23 10:00:01.000, 1, 210 W\n"
                        "2026/11/23 10:00:01.010, 0, 110 W\n"
                        "2026/11/23 10:00:02.000, 0, 120 W\n"
                        "2026/11/23 10:00:02.010, 1, 220 W\n";
    jl_import_result *r = imp(mixed, NULL, &o, &e);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->runs[0]->power_n, 3); /* before: 4 samples, 2 of them half */
        CHECK_NEAR(r->runs[0]->watts.v[2], 110, 0, 0);
        CHECK_NEAR(r->runs[0]->watts.v[3], 210, 0, 0);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

static void test_two_gpus(void)
{
    jt_current = "two_gpus";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.power_lag_s = 0; /* off: power.draw.instant, times as logged (auto: test_window_*) */
    jl_error_list e = {0};
    jl_import_result *r = imp(TWO_GPUS, NULL, &o, &e);
    CHECK(r != NULL);
    CHECK_EQ_INT(e.count, 0);
    if (!r)
        return;
    CHECK_EQ_INT(r->n_runs, 1);
    jl_run *x = r->runs[0];
    CHECK_STR(x->name, "log");
    CHECK_EQ_INT(x->attrs.num_gpus, 2);
    CHECK_STR(x->attrs.gpu_model, "H100");
    CHECK_NEAR(x->attrs.gpu_memory_bytes, 81559.0 * 1048576, 0, 0);
    CHECK_NEAR(x->attrs.gpu_tdp_w, 700, 0, 0);
    CHECK_NEAR(x->attrs.start_time_unix, 1795428000.0, 0, 1e-6);
    CHECK_STR(extra(x, "power_source"), "nvidia-smi power.draw.instant");
    /* 4 samples; the third lacks GPU 1: left out of power/, NaN in gpu/ */
    CHECK_EQ_INT(x->gpu_n, 4);
    CHECK_EQ_INT(x->power_n, 3);
    CHECK_NEAR(x->watts.v[0], 110, 0, 0);
    CHECK_NEAR(x->watts.v[1], 210, 0, 0);
    CHECK_NEAR(x->watts.v[2 * 2 + 1], 250, 0, 0);
    CHECK_NEAR(x->power_time[2], 3.0, 0, 1e-9);
    CHECK(isnan(x->sm_util.v[2 * 2 + 0]) == 0);
    CHECK(isnan(x->sm_util.v[1 * 2 + 0])); /* [N/A] */
    CHECK(isnan(x->sm_util.v[2 * 2 + 1])); /* GPU 1 missing in the 3rd sample */
    CHECK_NEAR(x->sm_util.v[1], 0.6, 0, 1e-12);
    CHECK_NEAR(x->mem_used_bytes.v[1], 2048.0 * 1048576, 0, 0);
    CHECK_NEAR(x->temp_c.v[1], 41, 0, 0);
    CHECK(x->watts_avg.v == NULL);
    CHECK_STR(x->attrs.model, "org/m");
    CHECK_EQ_INT(x->attrs.max_batch_size, 8);
    CHECK(extra(x, "unknown_attributes") == NULL);
    jl_summary *s = NULL;
    jl_error *err = NULL;
    CHECK(jl_summarize(x, NULL, &s, &err) == JL_OK);
    if (s) /* trapezoids of (110+210), (130+230) over 1 s, then 2 s of ... */
        CHECK_NEAR(s->fig[JL_FIG_RUN_ENERGY_J], (320 + 360) / 2.0 * 1 + (360 + 400) / 2.0 * 2,
                   1e-12, 0);
    jl_summary_free(s);
    jl_error_free(err);
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

/* GPU 0 missing from the second poll: its next row must not join that poll */
static void test_missing_first_gpu(void)
{
    jt_current = "missing_first_gpu";
    const char *log = "timestamp, index, power.draw [W]\n"
                      "2026/11/23 10:00:00.000, 0, 10 W\n"
                      "2026/11/23 10:00:00.001, 1, 20 W\n"
                      "2026/11/23 10:00:01.001, 1, 21 W\n"
                      "2026/11/23 10:00:02.000, 0, 12 W\n"
                      "2026/11/23 10:00:02.001, 1, 22 W\n";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    jl_error_list e = {0};
    jl_import_result *r = imp(log, NULL, &o, &e);
    CHECK(r != NULL);
    if (r) {
        jl_run *x = r->runs[0];
        CHECK_EQ_INT(x->power_n, 2); /* the middle sample lacks GPU 0 */
        CHECK_NEAR(x->power_time[1], 2.0, 0, 1e-9);
        CHECK_NEAR(x->watts.v[2], 12, 0, 0);
        CHECK_NEAR(x->watts.v[3], 22, 0, 0);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

static void test_noheader_columns_zone(void)
{
    jt_current = "noheader_columns_zone";
    const char *log = "2026/07/01 12:00:00.000, 72.19, 72.00\n"
                      "2026/07/01 12:00:00.100, 80.00, 75.00\n"
                      "2026/07/01 12:00:00.200, 90.00, 80.00\n";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.columns = "timestamp,power.draw,power.draw.average";
    o.timezone = "America/Chicago"; /* CDT in July: UTC-5 */
    jl_error_list e = {0};
    jl_import_result *r = imp(log, NULL, &o, &e);
    CHECK(r != NULL);
    if (r) {
        jl_run *x = r->runs[0];
        /* t = 0 at the first reading's time: power.draw (a 1-s average) 0.5 s
         * before its timestamp */
        CHECK_NEAR(x->attrs.start_time_unix, 1782907200.0 + 5 * 3600 - 0.5, 0, 1e-6);
        CHECK_EQ_INT(x->power_n, 3);
        CHECK_NEAR(x->watts.v[1], 80, 0, 0);
        CHECK(x->watts_avg.v != NULL);
        CHECK(strstr(x->attrs.notes, "1-second average") != NULL);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&e);
    /* the same log without --columns: it has no header */
    o.columns = NULL;
    r = imp(log, NULL, &o, &e);
    CHECK(r == NULL);
    char *m = first_error(&e);
    CHECK(m && strstr(m, "log.csv:1:1:") && strstr(m, "--columns"));
    free(m);
    jl_error_list_clear(&e);
    /* fixed offset */
    o.columns = "timestamp,power.draw,power.draw.average";
    o.timezone = "+05:30";
    r = imp(log, NULL, &o, &e);
    CHECK(r && fabs(r->runs[0]->attrs.start_time_unix - (1782907200.0 - 5.5 * 3600 - 0.5)) < 1e-6);
    jl_import_result_free(r);
    jl_error_list_clear(&e);
    o.timezone = "Mars/Olympus";
    r = imp(log, NULL, &o, &e);
    CHECK(r == NULL && e.count == 1 && e.items[0]->code == JL_EUSAGE);
    jl_error_list_clear(&e);
}

/* log refused by the importer with a first error containing a (and b). */
static void refused_saying(const char *log, const jl_import_nvsmi_options *o, const char *a,
                           const char *b)
{
    jl_error_list e = {0};
    jl_import_result *r = imp(log, NULL, o, &e);
    CHECK(r == NULL);
    char *m = first_error(&e);
    CHECK_CONTAINS(m, a);
    if (b)
        CHECK_CONTAINS(m, b);
    free(m);
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

/* Look-alike logs (issue 38): decimal commas in a ','-log (quoted) and in a
 * ';'-log (a spreadsheet's export), the separator told apart; a custom
 * logger's header gets the --columns line that reads it, and that line,
 * given, reads it (its own header skipped). */
static void test_lookalike_logs(void)
{
    jt_current = "lookalike_logs";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.power_lag_s = 0; /* times as logged */
    const char *logs[] = {
        "timestamp, index, power.draw [W]\n2026/11/23 10:00:00.000, 0, \"12,06 W\"\n"
        "2026/11/23 10:00:01.000, 0, \"13,94 W\"\n",
        "timestamp;index;power.draw [W]\n2026/11/23 10:00:00.000;0;12,06 W\n"
        "2026/11/23 10:00:01.000;0;13,94 W\n",
    };
    for (size_t i = 0; i < 2; i++) {
        jl_error_list e = {0};
        jl_import_result *r = imp(logs[i], NULL, &o, &e);
        CHECK(r != NULL);
        if (r) {
            CHECK_EQ_INT(r->runs[0]->power_n, 2);
            CHECK_NEAR(r->runs[0]->watts.v[0], 12.06, 1e-12, 0);
            CHECK_NEAR(r->runs[0]->watts.v[1], 13.94, 1e-12, 0);
            int noted = 0;
            for (size_t k = 0; k < r->n_notes; k++)
                noted |= strstr(r->notes[k].message, "decimal commas") != NULL;
            CHECK(noted);
        }
        jl_import_result_free(r);
        jl_error_list_clear(&e);
    }
    const char *custom = "time,power_draw_W,gpu_util\n2026-11-23T10:00:00Z,100,50\n"
                         "2026-11-23T10:00:01Z,110,50\n";
    refused_saying(custom, &o, "--columns timestamp,power.draw,utilization.gpu", NULL);
    jl_error_list e = {0};
    jl_import_result *r = NULL;
    o.columns = "timestamp,power.draw,utilization.gpu";
    r = imp(custom, NULL, &o, &e);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->runs[0]->power_n, 2);
        CHECK_NEAR(r->runs[0]->watts.v[1], 110, 0, 0);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

/* A wrapper's header with shifted names (the public corpus' xypp3 log:
 * `timestamp,gpu,index,...`, the GPU number under 'gpu', 'index' constant):
 * the duplicate-time error gives the --columns line that reads the GPU from
 * 'gpu', and that line, given, reads both GPUs. */
static void test_shifted_gpu_column(void)
{
    jt_current = "shifted_gpu_column";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.power_lag_s = 0;
    const char *log = "timestamp,gpu,index,power.draw\n"
                      "2025-09-08T17:26:50+08:00,0, 0, 74.01\n"
                      "2025-09-08T17:26:50+08:00,1, 0, 73.23\n"
                      "2025-09-08T17:26:51+08:00,0, 0, 75.00\n"
                      "2025-09-08T17:26:51+08:00,1, 0, 76.00\n";
    refused_saying(log, &o, "if the column 'gpu' holds the GPU index",
                   "--columns timestamp,index,index_as_logged,power.draw");
    jl_error_list e = {0};
    jl_import_result *r = NULL;
    o.columns = "timestamp,index,index_as_logged,power.draw";
    r = imp(log, NULL, &o, &e);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ_INT(r->runs[0]->watts.g, 2);
        CHECK_EQ_INT(r->runs[0]->power_n, 2);
        CHECK_NEAR(r->runs[0]->watts.v[1], 73.23, 1e-12, 0); /* row 0, GPU 1 */
        CHECK_NEAR(r->runs[0]->watts.v[3], 76.00, 1e-12, 0);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

static void expect_error(const char *name, const char *log, int sort, const char *a, const char *b)
{
    jt_current = name;
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.sort = sort;
    jl_error_list e = {0};
    jl_import_result *r = imp(log, NULL, &o, &e);
    CHECK(r == NULL);
    char *m = first_error(&e);
    if (!m || !strstr(m, a) || (b && !strstr(m, b)))
        fprintf(stderr, "[%s] message: %s\n", name, m ? m : "(none)");
    CHECK(m && strstr(m, a) && (!b || strstr(m, b)));
    free(m);
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

#define HDR "timestamp, index, power.draw [W]\n"
static void test_bad_input(void)
{
    expect_error("not_a_number",
                 HDR "2026/11/23 10:00:00.000, 0, 72.1 W\n"
                     "2026/11/23 10:00:01.000, 0, abc W\n",
                 0, "log.csv:3:29: field 'power.draw': expected a number in W", "'abc W'");
    expect_error("unit_mismatch", HDR "2026/11/23 10:00:00.000, 0, 72.1 MHz\n", 0,
                 "log.csv:2:29: field 'power.draw': the unit 'MHz' does not match", NULL);
    expect_error("malformed_line", HDR "2026/11/23 10:00:00.000, 0\n", 0,
                 "log.csv:2:", "2 fields, the header has 3");
    expect_error("backwards",
                 HDR "2026/11/23 10:00:01.000, 0, 72 W\n"
                     "2026/11/23 10:00:00.000, 0, 72 W\n",
                 0, "log.csv:3:1: field 'timestamp': time goes backwards", "--sort");
    expect_error("duplicate",
                 HDR "2026/11/23 10:00:01.000, 0, 72 W\n"
                     "2026/11/23 10:00:01.000, 0, 73 W\n",
                 0, "log.csv:3:1: field 'timestamp': duplicate timestamp", "line 2");
    expect_error("several_gpus_no_index",
                 "timestamp, pci.bus_id, power.draw [W]\n"
                 "2026/11/23 10:00:00.000, 00000000:18:00.0, 72 W\n"
                 "2026/11/23 10:00:00.004, 00000000:2A:00.0, 75 W\n",
                 0, "log.csv:3:26: field 'pci.bus_id': '00000000:2A:00.0' here",
                 "no index or uuid column");
    expect_error("gpu_mid_log",
                 HDR "2026/11/23 10:00:00.000, 0, 72 W\n"
                     "2026/11/23 10:00:01.000, 0, 72 W\n"
                     "2026/11/23 10:00:01.010, 3, 72 W\n",
                 0, "log.csv:4:26: field 'index': GPU 3 appears mid-log", NULL);
    expect_error("bad_time", HDR "23/11/2026 10:00:00, 0, 72 W\n", 0,
                 "log.csv:2:1: field 'timestamp': expected a time", NULL);
    expect_error("no_power", "timestamp, index\n2026/11/23 10:00:00.000, 0\n", 0, "no power column",
                 NULL);
    expect_error("quote", HDR "\"2026/11/23 10:00:00.000, 0, 72 W\n", 0,
                 "quoted field is not closed", NULL);
    /* --sort puts rows in order */
    jt_current = "sort";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.sort = 1;
    jl_error_list e = {0};
    jl_import_result *r = imp(HDR "2026/11/23 10:00:02.000, 0, 30 W\n"
                                  "2026/11/23 10:00:00.000, 0, 10 W\n"
                                  "2026/11/23 10:00:01.000, 0, 20 W\n",
                              NULL, &o, &e);
    CHECK(r && r->runs[0]->power_n == 3 && r->runs[0]->watts.v[2] == 30);
    jl_import_result_free(r);
    jl_error_list_clear(&e);
}

static void test_runs_and_requests(void)
{
    jt_current = "runs_requests";
    char dir[] = "/tmp/joules-nvsmi-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p_log[256], p_runs[256], p_req[256];
    snprintf(p_log, sizeof p_log, "%s/gpu.csv", dir);
    snprintf(p_runs, sizeof p_runs, "%s/runs.csv", dir);
    snprintf(p_req, sizeof p_req, "%s/vllm.json", dir);
    FILE *f = fopen(p_log, "w");
    fputs("timestamp, index, name, power.draw [W]\n", f);
    for (int i = 0; i <= 200; i++) /* 20 s at 10 Hz, 2 GPUs, 300 W and 100 W */
        fprintf(f,
                "2026/11/23 10:00:%02d.%d00, 0, NVIDIA A100-SXM4-80GB, 300.00 W\n"
                "2026/11/23 10:00:%02d.%d05, 1, NVIDIA A100-SXM4-80GB, 100.00 W\n",
                i / 10, i % 10, i / 10, i % 10);
    fclose(f);
    f = fopen(p_req, "w"); /* two requests of 3 tokens, one failed */
    fputs("{\"model_id\": \"org/m\", \"max_concurrency\": 2, \"input_lens\": [10, 20, 30],"
          " \"output_lens\": [3, 3, 0], \"ttfts\": [0.5, 0.25, 0.0],"
          " \"itls\": [[0.1, 0.1], [0.2, 0.2], []], \"start_times\": [1000.0, 1001.0, 1002.0],"
          " \"errors\": [\"\", \"\", \"timeout\"]}",
          f);
    fclose(f);
    f = fopen(p_runs, "w");
    fputs(
        "run,start,end,gpus,workload,task,precision,max_batch_size,requests,requests_offset,team\n"
        "a,2026-11-23T10:00:02Z,2026-11-23T10:00:08Z,\"0,1\",llm,chat,bfloat16,2,vllm.json,1.5,x\n"
        "b,1795428010,1795428015,1,llm,chat,bfloat16,8,,,y\n"
        "c,1795428100,1795428110,,llm,chat,bfloat16,8,,,z\n",
        f);
    fclose(f);
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.runs_csv = p_runs;
    jl_kv set[] = {{"model", "org/set-model", 0}};
    o.set = set;
    o.n_set = 1;
    const char *logs[] = {p_log};
    jl_import_result *r = NULL;
    jl_error_list e = {0};
    CHECK(jl_import_nvidia_smi(logs, 1, &o, &r, &e) == JL_OK);
    /* run c falls outside the log: an error naming it; a and b imported */
    CHECK_EQ_INT(e.count, 1);
    char *m = first_error(&e);
    CHECK(m && strstr(m, "runs.csv:4:") && strstr(m, "run c") && strstr(m, "outside the log"));
    free(m);
    CHECK(r && r->n_runs == 2);
    if (r && r->n_runs == 2) {
        jl_run *a = r->runs[0], *b = r->runs[1];
        CHECK_STR(a->name, "a");
        CHECK_STR(a->attrs.gpu_model, "A100");
        CHECK_STR(a->attrs.model, "org/set-model");
        CHECK_EQ_INT(a->attrs.num_gpus, 2);
        CHECK_STR(extra(a, "team"), "x");
        CHECK_EQ_INT(a->power_n, 61); /* samples at 10:00:02.000 .. 10:00:08.000 */
        CHECK_EQ_INT(a->req_n, 3);
        CHECK_NEAR(a->arrival[0], 1.5, 0, 1e-12);
        CHECK_NEAR(a->arrival[1], 2.5, 0, 1e-12);
        CHECK_NEAR(a->first_token[1], 2.75, 0, 1e-12);
        CHECK_NEAR(a->finish[1], 3.15, 0, 1e-12);
        CHECK(isnan(a->finish[2]));
        CHECK_EQ_INT(a->itl_n, 4);
        CHECK_EQ_INT(a->itl_request[3], 1);
        CHECK(strstr(extra(a, "requests_clock"), "requests_offset") != NULL);
        CHECK_STR(extra(a, "client_max_concurrency"), "2");
        CHECK_EQ_INT(b->attrs.num_gpus, 1);
        CHECK_NEAR(b->watts.v[0], 100, 0, 0);
        jl_summary *s = NULL;
        jl_error *err = NULL;
        CHECK(jl_summarize(a, NULL, &s, &err) == JL_OK);
        if (s) {
            CHECK(isfinite(s->fig[JL_FIG_ENERGY_PER_TOKEN_J]));
            CHECK_NEAR(s->fig[JL_FIG_COMPLETED_REQUESTS], 2, 0, 0);
            CHECK(isfinite(s->fig[JL_FIG_MEDIAN_ITL_S]));
        }
        jl_summary_free(s);
        jl_error_free(err);
    }
    /* the same written as the log is read (memory bounded by the chunks):
     * a small chunk size so the runs span several chunks; the same runs
     * read back, run c (an error) not in the file */
    jt_current = "runs_requests_streamed";
    char p_h5[300];
    snprintf(p_h5, sizeof p_h5, "%s/out.h5", dir);
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.chunk_rows = 7;
    jl_trace_writer *w = NULL;
    jl_error *werr = NULL;
    jl_import_result *rs = NULL;
    jl_error_list es = {0};
    CHECK(jl_trace_writer_open(p_h5, &wo, &w, &werr) == JL_OK);
    CHECK(jl_import_nvidia_smi_write(logs, 1, &o, w, &rs, &es) == JL_OK);
    CHECK(jl_trace_writer_commit(w, &werr) == JL_OK);
    CHECK(rs && rs->n_runs == 2 && rs->runs == NULL);
    CHECK_EQ_INT(es.count, 1);
    jl_trace *tr = NULL;
    CHECK(jl_trace_open(p_h5, NULL, &tr, &werr) == JL_OK);
    if (tr && r && r->n_runs == 2) {
        CHECK_EQ_INT(jl_trace_run_count(tr), 2);
        for (size_t k = 0; k < jl_trace_run_count(tr) && k < 2; k++) {
            jl_run *x = NULL, *mem = r->runs[k];
            CHECK(jl_trace_read_run(tr, k, &x, &werr) == JL_OK);
            if (!x)
                continue;
            CHECK_STR(x->name, mem->name);
            CHECK_EQ_INT(x->power_n, mem->power_n);
            CHECK_EQ_INT(x->attrs.num_gpus, mem->attrs.num_gpus);
            CHECK_STR(x->attrs.model, mem->attrs.model);
            for (size_t i = 0; i < x->power_n * x->watts.g && i < mem->power_n * mem->watts.g; i++)
                CHECK_NEAR(x->watts.v[i], mem->watts.v[i], 0, 1e-4);
            CHECK_NEAR(x->power_time[x->power_n - 1], mem->power_time[mem->power_n - 1], 0, 1e-12);
            CHECK_EQ_INT(x->req_n, mem->req_n);
            CHECK_EQ_INT(x->itl_n, mem->itl_n);
            jl_run_free(x);
        }
    }
    jl_trace_close(tr);
    jl_error_free(werr);
    jl_import_result_free(rs);
    jl_error_list_clear(&es);
    unlink(p_h5);
    jl_import_result_free(r);
    jl_error_list_clear(&e);
    unlink(p_log);
    unlink(p_runs);
    unlink(p_req);
    rmdir(dir);
}

static void test_gpu_names(void)
{
    jt_current = "gpu_names";
    char b[64];
    CHECK(jl_gpu_model_from_name("NVIDIA H100 80GB HBM3", b, sizeof b) && !strcmp(b, "H100"));
    CHECK(jl_gpu_model_from_name("NVIDIA A100-SXM4-80GB", b, sizeof b) && !strcmp(b, "A100"));
    CHECK(jl_gpu_model_from_name("Tesla V100-SXM2-16GB", b, sizeof b) && !strcmp(b, "V100"));
    CHECK(jl_gpu_model_from_name("NVIDIA H200 NVL", b, sizeof b) && !strcmp(b, "H200"));
    CHECK(jl_gpu_model_from_name("NVIDIA L40S", b, sizeof b) && !strcmp(b, "L40S"));
    CHECK(!jl_gpu_model_from_name("NVIDIA GeForce RTX 4090", b, sizeof b) &&
          !strcmp(b, "GeForce RTX 4090"));
    /* MLPerf system descriptions' accelerator_model_name */
    CHECK(jl_gpu_model_from_name("QUALCOMM Cloud AI 100 Standard", b, sizeof b) &&
          !strcmp(b, "Cloud-AI-100"));
    CHECK(jl_gpu_model_from_name("NVIDIA Jetson AGX Orin 64G", b, sizeof b) &&
          !strcmp(b, "AGX-Orin"));
    CHECK(jl_gpu_model_from_name("Xavier_NX", b, sizeof b) && !strcmp(b, "Xavier-NX"));
    CHECK(jl_gpu_model_from_name("AMD Instinct MI300X", b, sizeof b) && !strcmp(b, "MI300X"));
    CHECK(jl_gpu_model_from_name("Intel Gaudi2 HL-225H", b, sizeof b) && !strcmp(b, "GAUDI2"));
}

/* One run of a 10-s, 200 W, one-GPU log with a vLLM result written
 * without start_times (every public file predates the key). */
static jl_run *vllm_run(const char *dir, const char *vllm_json, jl_import_result **res)
{
    char p_log[256], p_runs[256], p_req[256];
    snprintf(p_log, sizeof p_log, "%s/gpu.csv", dir);
    snprintf(p_runs, sizeof p_runs, "%s/runs.csv", dir);
    snprintf(p_req, sizeof p_req, "%s/v.json", dir);
    FILE *f = fopen(p_log, "w");
    fputs("timestamp, power.draw [W]\n", f);
    for (int i = 0; i <= 100; i++)
        fprintf(f, "2026/11/23 10:00:%02d.%d00, 200.00 W\n", i / 10, i % 10);
    fclose(f);
    f = fopen(p_req, "w");
    fputs(vllm_json, f);
    fclose(f);
    f = fopen(p_runs, "w");
    fputs("run,start,end,workload,model,task,precision,max_batch_size,gpu_model,requests\n"
          "a,2026-11-23T10:00:00Z,2026-11-23T10:00:10Z,llm,m,chat,bf16,8,H100,v.json\n",
          f);
    fclose(f);
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.runs_csv = p_runs;
    const char *logs[] = {p_log};
    jl_error_list e = {0};
    *res = NULL;
    jl_status st = jl_import_nvidia_smi(logs, 1, &o, res, &e);
    CHECK_EQ_INT(st, JL_OK);
    CHECK_EQ_INT(e.count, 0);
    jl_error_list_clear(&e);
    return *res && (*res)->n_runs == 1 ? (*res)->runs[0] : NULL;
}

static void test_vllm_without_start_times(void)
{
    jt_current = "vllm_without_start_times";
    char dir[] = "/tmp/joules-vllm-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    /* a finite rate: arrivals unknown; requests/ left out, the client's
     * figures in summary/, ITL samples kept exactly */
    jl_import_result *res;
    jl_run *a =
        vllm_run(dir,
                 "{\"request_rate\": 1.0, \"max_concurrency\": null, \"duration\": 10.0,"
                 " \"input_lens\": [10, 20, 30], \"output_lens\": [3, 5, 1],"
                 " \"ttfts\": [0.5, 0.25, 0.1], \"itls\": [[0.1, 0.3], [0.2, 0.2, 0.2, 0.2], []],"
                 " \"errors\": [\"\", \"\", \"\"]}",
                 &res);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ_INT(a->req_n, 0);
        CHECK_EQ_INT(a->itl_n, 6);
        CHECK(a->itl_request == NULL);
        CHECK_NEAR(a->itl_seconds[1], 0.3f, 0, 0);
        CHECK(strstr(extra(a, "requests_clock"), "unknown") != NULL);
        CHECK(a->summary.present);
        CHECK_NEAR(a->summary.output_throughput_tok_s, 0.9, 1e-12, 0); /* 9 tokens / 10 s */
        CHECK_NEAR(a->summary.avg_output_tokens, 3, 0, 0);
        jl_summary *s = NULL;
        jl_error *err = NULL;
        CHECK(jl_summarize(a, NULL, &s, &err) == JL_OK);
        if (s) {
            /* the run's 2,000 J over the client's 0.9 tokens/s x 10 s */
            CHECK_NEAR(s->fig[JL_FIG_ENERGY_PER_TOKEN_J], 200 / 0.9, 1e-9, 0);
            CHECK_NEAR(s->fig[JL_FIG_COMPLETED_REQUESTS], 3, 0, 0);
            CHECK_NEAR(s->fig[JL_FIG_TTFT_MEDIAN_S], 0.25, 0, 1e-12);
            CHECK(isfinite(s->fig[JL_FIG_MEDIAN_ITL_S]));
        }
        jl_summary_free(s);
        jl_error_free(err);
    }
    jl_import_result_free(res);
    /* request_rate inf without a concurrency limit: all sent at t = 0 */
    a = vllm_run(
        dir,
        "{\"request_rate\": \"inf\", \"max_concurrency\": null,"
        " \"input_lens\": [10, 20], \"output_lens\": [3, 2],"
        " \"ttfts\": [0.5, 0.25], \"itls\": [[0.1, 0.3], [0.2]], \"errors\": [\"\", \"\"]}",
        &res);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ_INT(a->req_n, 2);
        CHECK_NEAR(a->arrival[1], 0, 0, 0);
        CHECK_NEAR(a->first_token[0], 0.5, 0, 1e-12);
        CHECK_NEAR(a->finish[0], 0.9, 0, 1e-12);
        CHECK(strstr(extra(a, "requests_clock"), "sent at once") != NULL);
    }
    jl_import_result_free(res);
    /* inf with max_concurrency below the request count: not sent at once */
    a = vllm_run(dir,
                 "{\"request_rate\": \"inf\", \"max_concurrency\": 1,"
                 " \"input_lens\": [10, 20], \"output_lens\": [3, 2],"
                 " \"ttfts\": [0.5, 0.25], \"itls\": [[0.1, 0.3], [0.2]]}",
                 &res);
    CHECK(a && a->req_n == 0 && strstr(extra(a, "requests_clock"), "unknown"));
    jl_import_result_free(res);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* A required attribute missing (no RUNS.csv column, no --set, not in the
 * request file) is an error naming it and how to give it, never a
 * placeholder; vLLM's max_concurrency gives the cap. */
static void test_required_attributes(void)
{
    jt_current = "required_attributes";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    jl_kv set[] = {{"workload", "llm", 0}, {"model", "m", 0}, {"task", "chat", 0}};
    o.set = set;
    o.n_set = 3;
    jl_error_list e = {0};
    jl_import_result *r = imp(TWO_GPUS, NULL, &o, &e);
    CHECK(r == NULL);
    char *m = first_error(&e);
    CHECK(m && strstr(m, "run log: required attributes not given: precision, max_batch_size") &&
          strstr(m, "--set precision=... --set max_batch_size=..."));
    free(m);
    jl_error_list_clear(&e);
    /* in a RUNS.csv: the row named */
    r = imp(TWO_GPUS, "run,start,end,precision\nx,2026-11-23T10:00:00Z,2026-11-23T10:00:03Z,bf16\n",
            &o, &e);
    m = first_error(&e);
    CHECK(r == NULL && m && strstr(m, "run x: required attribute not given: max_batch_size"));
    free(m);
    jl_error_list_clear(&e);
    /* max_concurrency from the request file gives the cap */
    char dir[] = "/tmp/joules-req-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *json = "{\"request_rate\": \"inf\", \"max_concurrency\": 4, \"input_lens\": [1],"
                       " \"output_lens\": [2], \"ttfts\": [0.1], \"itls\": [[0.1]]}";
    jl_import_result *res;
    jl_run *a = NULL;
    {
        /* vllm_run's RUNS.csv gives max_batch_size; write one without it */
        char p_log[256], p_runs[256], p_req[256];
        snprintf(p_log, sizeof p_log, "%s/gpu.csv", dir);
        snprintf(p_runs, sizeof p_runs, "%s/runs.csv", dir);
        snprintf(p_req, sizeof p_req, "%s/v.json", dir);
        FILE *f = fopen(p_log, "w");
        fputs("timestamp, name, power.draw [W]\n2026/11/23 10:00:00.000, NVIDIA H100, 100 W\n"
              "2026/11/23 10:00:01.000, NVIDIA H100, 100 W\n",
              f);
        fclose(f);
        f = fopen(p_req, "w");
        fputs(json, f);
        fclose(f);
        f = fopen(p_runs, "w");
        fputs("run,start,end,workload,model,task,precision,requests\n"
              "a,2026-11-23T10:00:00Z,2026-11-23T10:00:01Z,llm,m,chat,bf16,v.json\n",
              f);
        fclose(f);
        jl_import_nvsmi_options o2;
        jl_import_nvsmi_options_default(&o2);
        o2.timezone = "UTC";
        o2.runs_csv = p_runs;
        const char *logs[] = {p_log};
        res = NULL;
        CHECK(jl_import_nvidia_smi(logs, 1, &o2, &res, &e) == JL_OK);
        a = res && res->n_runs == 1 ? res->runs[0] : NULL;
    }
    CHECK(a && a->attrs.max_batch_size == 4);
    jl_import_result_free(res);
    jl_error_list_clear(&e);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* ---- energy over exactly the window (issue 26, item 4) ---------------------- */

/* A log of one H100 every 250 ms over 8 s (10:00:00.000 .. 10:00:08.000)
 * of `field`: w(t) the reading at t s; sample k_na (-1: none) without a
 * value. */
static char *step_log(const char *field, double (*w)(double), int k_na)
{
    size_t cap = 8192, len = 0;
    char *b = malloc(cap);
    len += (size_t)snprintf(b + len, cap - len, "timestamp, name, %s [W]\n", field);
    for (int k = 0; k <= 32; k++) {
        char v[32];
        if (k == k_na)
            snprintf(v, sizeof v, "[N/A]");
        else
            snprintf(v, sizeof v, "%.3f W", w(0.25 * k));
        len += (size_t)snprintf(b + len, cap - len,
                                "2026/11/23 10:00:%02d.%03d, NVIDIA H100 80GB HBM3, %s\n", k / 4,
                                250 * (k % 4), v);
    }
    return b;
}

/* The load: 100 W, then 300 W from t = 3.125 s (midway between samples). */
static double step_instant(double t)
{
    return t < 3.125 ? 100 : 300;
}

/* power.draw of a load stepping from 100 to 300 W at t = 4 s: the driver's
 * average over the second before t (a ramp from 4 to 5 s). */
static double step_average(double t)
{
    return t <= 4 ? 100 : t >= 5 ? 300 : 100 + 200 * (t - 4);
}

static double window_energy(const char *log, double lag, jl_run **keep, const char *path_for_stream)
{
    /* the run: 10:00:01.100 .. 10:00:07.100, 6 s between samples */
    const char *runs = "run,start,end\nw,1795428001.1,1795428007.1\n";
    jl_import_nvsmi_options o;
    jl_import_nvsmi_options_default(&o);
    o.timezone = "UTC";
    o.power_lag_s = lag;
    jl_import_result *r = NULL;
    jl_error_list e = {0};
    jl_import_nvsmi_options oo = o;
    oo.set = REQUIRED_SET;
    oo.n_set = sizeof REQUIRED_SET / sizeof REQUIRED_SET[0];
    CHECK(jl_import_nvidia_smi_buffer(log, strlen(log), "step.csv", runs, strlen(runs), &oo, &r,
                                      &e) == JL_OK);
    CHECK_EQ_INT(e.count, 0);
    double E = NAN;
    if (!r || r->n_runs != 1) {
        jl_import_result_free(r);
        jl_error_list_clear(&e);
        return E;
    }
    jl_run *x = r->runs[0];
    CHECK_NEAR(x->power_time[0], 0, 0, 0);                   /* the window's start */
    CHECK_NEAR(x->power_time[x->power_n - 1], 6.0, 0, 1e-6); /* its end */
    jl_summary *s = NULL;
    jl_error *err = NULL;
    CHECK(jl_summarize(x, NULL, &s, &err) == JL_OK);
    if (s)
        E = s->fig[JL_FIG_RUN_ENERGY_J];
    jl_summary_free(s);
    jl_error_free(err);
    if (path_for_stream) { /* written as the log is read: the same series */
        char dir[] = "/tmp/joules-window-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        char p_log[300], p_runs[300], p_h5[300];
        snprintf(p_log, sizeof p_log, "%s/step.csv", dir);
        snprintf(p_runs, sizeof p_runs, "%s/runs.csv", dir);
        snprintf(p_h5, sizeof p_h5, "%s/out.h5", dir);
        FILE *f = fopen(p_log, "w");
        fputs(log, f);
        fclose(f);
        f = fopen(p_runs, "w");
        fputs(runs, f);
        fclose(f);
        oo.runs_csv = p_runs;
        const char *logs[] = {p_log};
        jl_trace_writer *w = NULL;
        jl_import_result *rs = NULL;
        jl_error_list es = {0};
        CHECK(jl_trace_writer_open(p_h5, NULL, &w, &err) == JL_OK);
        CHECK(jl_import_nvidia_smi_write(logs, 1, &oo, w, &rs, &es) == JL_OK);
        CHECK(jl_trace_writer_commit(w, &err) == JL_OK);
        jl_trace *tr = NULL;
        jl_run *y = NULL;
        CHECK(jl_trace_open(p_h5, NULL, &tr, &err) == JL_OK);
        if (tr && jl_trace_read_run(tr, 0, &y, &err) == JL_OK && y) {
            CHECK_EQ_INT(y->power_n, x->power_n);
            for (size_t i = 0; i < y->power_n && i < x->power_n; i++) {
                CHECK_NEAR(y->power_time[i], x->power_time[i], 0, 1e-12);
                CHECK_NEAR(y->watts.v[i], x->watts.v[i], 0, 1e-4); /* float32 on disk */
            }
            CHECK_STR(y->attrs.notes, x->attrs.notes);
        }
        jl_run_free(y);
        jl_trace_close(tr);
        jl_import_result_free(rs);
        jl_error_list_clear(&es);
        unlink(p_log);
        unlink(p_runs);
        unlink(p_h5);
        rmdir(dir);
    }
    if (keep) {
        *keep = x;
        r->runs[0] = NULL;
        r->n_runs = 0;
    }
    jl_import_result_free(r);
    jl_error_list_clear(&e);
    return E;
}

/* A step load sampled every 250 ms, a 6-s window whose edges fall between
 * samples: the trapezoid over exactly [start, end] is the analytic energy
 * (the samples inside alone give 1350 J, -3.2 %), to 1e-7 (Unix times in
 * double: ~1e-7 s). */
static void test_window_edges(void)
{
    jt_current = "window_edges";
    jl_run *x = NULL;
    char *log = step_log("power.draw.instant", step_instant, -1);
    /* 100 W x 2.025 s + 300 W x 3.975 s */
    CHECK_NEAR(window_energy(log, NAN, &x, "stream"), 100 * 2.025 + 300 * 3.975, 1e-7, 0);
    CHECK(x && strstr(x->attrs.notes, "start: interpolated, at its end: interpolated"));
    CHECK(x && strstr(x->attrs.notes, "instantaneous") && !strstr(x->attrs.notes, "0.5 s"));
    jl_run_free(x);
    free(log);
    /* the sample before the start without power: the first inside held */
    jt_current = "window_edges_held";
    log = step_log("power.draw.instant", step_instant, 4);
    CHECK_NEAR(window_energy(log, NAN, &x, "stream"), 100 * 2.025 + 300 * 3.975, 1e-7, 0);
    CHECK(x && strstr(x->attrs.notes, "start: held, at its end: interpolated"));
    jl_run_free(x);
    free(log);
}

/* power.draw, the driver's 1-s average, of a load stepping at 4 s: placed
 * 0.5 s before its timestamps (auto) it gives the load's energy exactly;
 * as logged (--power-lag off) 100 J (0.5 s x 200 W) less. */
static void test_window_lag(void)
{
    jt_current = "window_lag";
    jl_run *x = NULL;
    char *log = step_log("power.draw", step_average, -1);
    double truth = 100 * 2.9 + 300 * 3.1;
    CHECK_NEAR(window_energy(log, NAN, &x, "stream"), truth, 1e-7, 0);
    CHECK(x && strstr(x->attrs.notes, "placed 0.5 s before its timestamp"));
    jl_run_free(x);
    x = NULL;
    CHECK_NEAR(window_energy(log, 0, &x, NULL), truth - 100, 1e-7, 0);
    CHECK(x && strstr(x->attrs.notes, "no lag compensation"));
    jl_run_free(x);
    x = NULL;
    /* before Ampere power.draw is the instantaneous reading: not shifted */
    jt_current = "window_lag_volta";
    char *volta = malloc(strlen(log) + 33 * 8 + 1), *o = volta;
    for (const char *p = log; *p;) {
        const char *h = strstr(p, "NVIDIA H100 80GB HBM3");
        size_t k = h ? (size_t)(h - p) : strlen(p);
        memcpy(o, p, k);
        o += k;
        p += k;
        if (h) {
            o += sprintf(o, "Tesla V100-SXM2-16GB");
            p += strlen("NVIDIA H100 80GB HBM3");
        }
    }
    *o = '\0';
    CHECK_NEAR(window_energy(volta, NAN, &x, NULL), truth - 100, 1e-7, 0);
    CHECK(x && strstr(x->attrs.notes, "older than Ampere"));
    jl_run_free(x);
    free(volta);
    free(log);
    /* a lag out of range is a usage error */
    jt_current = "window_lag_range";
    jl_import_nvsmi_options bad;
    jl_import_nvsmi_options_default(&bad);
    bad.power_lag_s = -0.5;
    jl_import_result *r = NULL;
    jl_error_list e = {0};
    CHECK_EQ_INT(jl_import_nvidia_smi_buffer("timestamp, power.draw\n", 21, "l.csv", NULL, 0, &bad,
                                             &r, &e),
                 JL_EUSAGE);
    CHECK(r == NULL && e.count == 1);
    jl_error_list_clear(&e);
}

int main(void)
{
    test_required_attributes();
    test_vllm_without_start_times();
    test_two_gpus();
    test_utf16_and_order();
    test_missing_first_gpu();
    test_noheader_columns_zone();
    test_lookalike_logs();
    test_shifted_gpu_column();
    test_bad_input();
    test_runs_and_requests();
    test_gpu_names();
    test_window_edges();
    test_window_lag();
    TEST_MAIN_END();
}
