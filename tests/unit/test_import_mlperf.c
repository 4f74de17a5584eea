/* MLPerf Power import (jl_import_mlperf_power_buffer): hand-made PTDaemon
 * and LoadGen logs whose figures are worked out by hand in the comments;
 * multi-channel analysers; bad input named by file, line and field. The
 * real run in JOULES_SHARED_DIR is checked by tests/import/mlperf_real.sh. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "joules/import.h"
#include "joules/summary.h"
#include "test.h"

#define DIR "sub/closed/X/results/SYS_H100-SXM-80GBx8_TRT/gptj-99/Offline/performance/run_1"
#define MARK ",Mark,m_testing\n"

static const char *DETAIL =
    ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"Offline\"}\n"
    "some other line\n"
    ":::MLLOG {\"key\": \"effective_samples_per_query\", \"value\": 1000}\n"
    ":::MLLOG {\"key\": \"effective_max_async_queries\", \"value\": 1}\n"
    ":::MLLOG {\"key\": \"power_begin\", \"value\": \"01-02-2024 10:00:01.500\"}\n"
    ":::MLLOG {\"key\": \"power_end\", \"value\": \"01-02-2024 10:00:05.500\"}\n"
    ":::MLLOG {\"key\": \"result_samples_per_second\", \"value\": 250}\n"
    ":::MLLOG {\"key\": \"result_validity\", \"value\": \"VALID\"}\n"
    ":::MLLOG {\"key\": \"effective_qsl_rng_seed\", \"value\": 7322528924094909334}\n";

/* Inside (01.5, 05.5) and > 0: 300 W at 02, 500 at 04, 600 at 05; 03 is a
 * failed reading (-1); 01.000 and 05.500 are not strictly inside. */
static const char *SPL = "Time,01-02-2024 10:00:00.000,Watts,100.0,Volts,230,Amps,0.5,PF,0.9" MARK
                         "Time,01-02-2024 10:00:01.000,Watts,200.0,Volts,230,Amps,0.9,PF,0.9" MARK
                         "Time,01-02-2024 10:00:02.000,Watts,300.0,Volts,230,Amps,1.3,PF,0.9" MARK
                         "Time,01-02-2024 10:00:03.000,Watts,-1.0,Volts,230,Amps,-1,PF,-1" MARK
                         "Time,01-02-2024 10:00:04.000,Watts,500.0,Volts,232,Amps,2.2,PF,0.95" MARK
                         "Time,01-02-2024 10:00:05.000,Watts,600.0,Volts,234,Amps,2.6,PF,0.97" MARK
                         "Time,01-02-2024 10:00:05.500,Watts,700.0,Volts,230,Amps,3.0,PF,0.9" MARK
                         "Time,01-02-2024 10:00:06.000,Watts,800.0,Volts,230,Amps,3.5,PF,0.9" MARK;

static const char *sx(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->summary.n_extra; i++)
        if (!strcmp(r->summary.extra[i].key, k))
            return r->summary.extra[i].value;
    return NULL;
}

static const char *ax(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (!strcmp(r->attrs.extra[i].key, k))
            return r->attrs.extra[i].value;
    return NULL;
}

static jl_status run_import(const char *spl, const char *detail, const char *dir,
                            jl_import_result **r, jl_error_list *errs)
{
    return jl_import_mlperf_power_buffer(spl, strlen(spl), detail, strlen(detail), NULL, dir, NULL,
                                         r, errs);
}

TEST(offline_checker_figures)
{
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(run_import(SPL, DETAIL, DIR, &r, &errs) == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    CHECK_EQ_INT(r->n_runs, 1);
    const jl_run *run = r->runs[0];
    CHECK_STR(run->name, "SYS_H100-SXM-80GBx8_TRT__gptj-99__Offline__run_1");
    CHECK_STR(run->attrs.workload, "llm");
    CHECK_STR(run->attrs.model, "gptj-99");
    CHECK_STR(run->attrs.task, "mlperf-offline");
    CHECK_STR(run->attrs.gpu_model, "H100");
    CHECK_NEAR(run->attrs.gpu_memory_bytes, 81559.0 * 1048576.0, 0, 0);
    CHECK_EQ_INT(run->attrs.num_gpus, 8);
    /* Offline: one query of 1000 samples is no batch cap: a placeholder,
     * listed as unknown */
    CHECK_EQ_INT(run->attrs.max_batch_size, 1);
    CHECK_STR(ax(run, "unknown_attributes"), "max_batch_size");
    CHECK(!jl_attrs_known(&run->attrs, "max_batch_size")); /* tables print "-" */
    CHECK(jl_attrs_known(&run->attrs, "num_gpus"));
    CHECK_STR(run->power_watts_kind, "average_1s");
    /* 2024-01-02 = 19724 days after 1970-01-01; + 10:00:01.5 */
    CHECK_NEAR(run->attrs.start_time_unix, 19724.0 * 86400 + 36001.5, 0, 1e-6);
    CHECK_STR(ax(run, "power_scope"), "node_ac");
    CHECK_STR(ax(run, "window"), "steady_state_only");
    CHECK_STR(ax(run, "mlperf_effective_qsl_rng_seed"), "7322528924094909334");
    /* power/: three samples, one column, times from power_begin */
    CHECK_EQ_INT(run->power_n, 3);
    CHECK_EQ_INT(run->watts.g, 1);
    CHECK_NEAR(run->power_time[0], 0.5, 0, 1e-9);
    CHECK_NEAR(run->power_time[2], 3.5, 0, 1e-9);
    CHECK_NEAR(run->watts.v[1], 500.0, 0, 0);
    /* summary/: mean (300+500+600)/3 = 466.667 W; window 4 s -> 1866.67 J;
     * 250 samples/s -> 1.86667 J per sample, 0.535714 samples per joule */
    CHECK(run->summary.present);
    CHECK_NEAR(run->summary.avg_power_w, 1400.0 / 3, 1e-12, 0);
    CHECK_NEAR(run->summary.steady_state_duration_s, 4.0, 0, 1e-9);
    CHECK_NEAR(run->summary.steady_state_energy_j, 4 * 1400.0 / 3, 1e-12, 0);
    CHECK_NEAR(run->summary.energy_per_item_j, 1400.0 / 3 / 250, 1e-12, 0);
    CHECK_NEAR(atof(sx(run, "samples_per_joule")), 250 / (1400.0 / 3), 1e-12, 0);
    CHECK_NEAR(atof(sx(run, "peak_power_w")), 600, 0, 0);
    CHECK_NEAR(atof(sx(run, "power_samples")), 3, 0, 0);
    CHECK_NEAR(atof(sx(run, "avg_volts")), (230 + 232 + 234) / 3.0, 1e-12, 0);
    CHECK_CONTAINS(sx(run, "source"), "MLPerf");
    /* the summariser recomputes from the series: trapezoid of 300, 500,
     * 600 over [0.5, 3.5] = (800/2*2 + 1100/2) / 3 = 1350/3 = 450 W */
    jl_summary *s = NULL;
    jl_error *err = NULL;
    CHECK(jl_summarize(run, NULL, &s, &err) == JL_OK);
    /* headline: the checker's mean (published); recomputed beside it */
    CHECK_NEAR(s->fig[JL_FIG_AVG_POWER_W], 1400.0 / 3, 1e-12, 0);
    CHECK(s->published != NULL);
    if (s->published)
        CHECK_NEAR(s->published->recomputed[JL_FIG_AVG_POWER_W], 450.0, 1e-9, 0);
    CHECK_NEAR(s->fig[JL_FIG_PEAK_POWER_W], 600.0, 1e-9, 0);
    jl_summary_free(s);
    jl_error_free(err);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

TEST(single_stream_energy_per_query)
{
    char detail[2048];
    snprintf(detail, sizeof detail, "%s",
             ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"SingleStream\"}\n"
             ":::MLLOG {\"key\": \"effective_samples_per_query\", \"value\": 1}\n"
             ":::MLLOG {\"key\": \"power_begin\", \"value\": \"01-02-2024 10:00:01.500\"}\n"
             ":::MLLOG {\"key\": \"power_end\", \"value\": \"01-02-2024 10:00:05.500\"}\n"
             ":::MLLOG {\"key\": \"result_query_count\", \"value\": 4}\n");
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(run_import(SPL, detail, DIR, &r, &errs) == JL_OK);
    const jl_run *run = r->runs[0];
    /* 466.667 W x 4 s / 4 queries = 466.667 J = 466667 mJ per query */
    CHECK_NEAR(atof(sx(run, "energy_per_query_mj")), 1400.0 / 3 * 1000, 1e-12, 0);
    CHECK_NEAR(run->summary.energy_per_request_j, 1400.0 / 3, 1e-12, 0);
    CHECK_STR(sx(run, "mlperf_power_metric"), "energy_per_query_mj");
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

TEST(multi_channel_summed)
{
    const char *spl =
        "Time,01-02-2024 10:00:02.000,Watts,1000,Volts,230,Amps,4,PF,0.9,Mark,m,"
        "Ch1,Watts,400,Volts,230,Amps,2,PF,0.9,Ch2,Watts,600,Volts,230,Amps,2,PF,0.9\n"
        "Time,01-02-2024 10:00:03.000,Watts,1100,Volts,230,Amps,4,PF,0.9,Mark,m,"
        "Ch1,Watts,450,Volts,230,Amps,2,PF,0.9,Ch2,Watts,650,Volts,230,Amps,2,PF,0.9\n";
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(run_import(spl, DETAIL, DIR, &r, &errs) == JL_OK);
    const jl_run *run = r->runs[0];
    CHECK_EQ_INT(run->power_n, 2);
    CHECK_NEAR(run->watts.v[0], 1000, 0, 0);
    CHECK_NEAR(atof(sx(run, "ch1_avg_power_w")), 425, 1e-12, 0);
    CHECK_NEAR(atof(sx(run, "ch2_avg_power_w")), 625, 1e-12, 0);
    CHECK_NEAR(run->summary.avg_power_w, 1050, 1e-12, 0);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* One bad input: the error names file, field and line; nothing imported. */
static void expect_error(const char *spl, const char *detail, const char *dir, const char *file,
                         const char *field, long long line, const char *msg)
{
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(run_import(spl, detail, dir, &r, &errs) != JL_OK);
    CHECK(r == NULL);
    CHECK(errs.count >= 1);
    if (errs.count >= 1) {
        const jl_error *e = errs.items[0];
        CHECK_STR(e->file, file);
        if (field)
            CHECK_STR(e->object, field);
        CHECK_EQ_INT(e->row, line);
        CHECK_CONTAINS(e->message, msg);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

TEST(bad_input)
{
    expect_error("Time,01-02-2024 10:00:02.000,Watts,3" MARK
                 "Time,01-02-2024 10:00:01.000,Watts,3" MARK,
                 DETAIL, DIR, "spl.txt", "Time", 2, "time goes backwards");
    expect_error("Time,01-02-2024 10:00:02.000,Watts,abc" MARK, DETAIL, DIR, "spl.txt", "Watts", 1,
                 "expected a number");
    expect_error("Time,13-02-2024 10:00:02.000,Watts,3" MARK, DETAIL, DIR, "spl.txt", "Time", 1,
                 "MM-DD-YYYY");
    expect_error("Time,01-02-2024 10:00:09.000,Watts,3" MARK, DETAIL, DIR, "spl.txt", "Time", -1,
                 "no power sample lies strictly between");
    expect_error(SPL, ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"Offline\"}\n", DIR,
                 "mlperf_log_detail.txt", "power_begin", -1, "no power_begin record");
    expect_error(SPL, ":::MLLOG {\"key\": \"power_begin\", \"val", DIR, "mlperf_log_detail.txt",
                 ":::MLLOG", 1, "not a JSON object");
    expect_error(SPL,
                 ":::MLLOG {\"key\": \"power_begin\", \"value\": \"01-02-2024 10:00:05.500\"}\n"
                 ":::MLLOG {\"key\": \"power_end\", \"value\": \"01-02-2024 10:00:01.500\"}\n"
                 ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"Offline\"}\n",
                 DIR, "mlperf_log_detail.txt", "power_end", -1, "is not after power_begin");
    expect_error(SPL, ":::MLLOG {\"key\": \"result_samples_per_second\", \"value\": \"fast\"}\n",
                 DIR, "mlperf_log_detail.txt", "result_samples_per_second", 1,
                 "expected a finite number");
    expect_error(SPL, "no records at all\n", DIR, "mlperf_log_detail.txt", NULL, -1,
                 "no :::MLLOG record");
    /* a benchmark the format has no workload for: skipped with a note (a
     * system tree holds such runs beside the LLM ones); nothing imported */
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(run_import(SPL, DETAIL, "r/SYS_A100x1/resnet50/Offline/performance/run_1", &r, &errs) !=
          JL_OK);
    CHECK(errs.count == 1 && strstr(errs.items[0]->message, "no run could be imported"));
    jl_error_list_clear(&errs);
}

/* A Server run as LoadGen v1.1+ writes it: unsigned 64-bit seeds, the
 * completed and scheduled rates, tokens, no bound on queries in flight. */
static const char *SERVER =
    ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"Server\"}\n"
    ":::MLLOG {\"key\": \"requested_schedule_rng_seed\", \"value\": 10051496985653635065, "
    "\"time_ms\": 0.1, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", "
    "\"metadata\": {\"is_error\": false, \"is_warning\": false, \"file\": \"a.cc\", \"line_no\": 1, "
    "\"pid\": 1, \"tid\": 1}}\n"
    ":::MLLOG {\"key\": \"huge\", \"value\": -123456789012345678901234567890}\n"
    ":::MLLOG {\"key\": \"effective_samples_per_query\", \"value\": 1}\n"
    ":::MLLOG {\"key\": \"effective_max_async_queries\", \"value\": 0}\n"
    ":::MLLOG {\"key\": \"generated_query_count\", \"value\": 750000}\n"
    ":::MLLOG {\"key\": \"power_begin\", \"value\": \"01-02-2024 10:00:01.500\"}\n"
    ":::MLLOG {\"key\": \"power_end\", \"value\": \"01-02-2024 10:00:05.500\"}\n"
    ":::MLLOG {\"key\": \"result_scheduled_samples_per_sec\", \"value\": 312.048}\n"
    ":::MLLOG {\"key\": \"result_completed_samples_per_sec\", \"value\": 311.753}\n"
    ":::MLLOG {\"key\": \"result_completed_tokens_per_second\", \"value\": 45497}\n";

TEST(server_keys_big_integers_no_cap)
{
    /* total Volts/Amps/PF -1 (not measured), as multi-channel analysers write */
    const char *spl = "Time,01-02-2024 10:00:02.000,Watts,1000,Volts,-1,Amps,-1,PF,-1" MARK
                      "Time,01-02-2024 10:00:03.000,Watts,1100,Volts,-1,Amps,-1,PF,-1" MARK;
    static const char *const systems[][3] = {
        {"H200-SXM-141GBx8_TRT_MaxQ", "H200", "8"},  {"A30x3_R4900G5_TRT_MaxQ", "A30", "3"},
        {"SR780a_V3_B200SXMx8_TRT", "B200", "8"},    {"H100-PCIe-80GBx8_TRT_MaxQ", "H100", "8"},
        {"XE8545_A100-SXM-80GBx4_TRT", "A100", "4"}, {"8xH100_SXM_vllm", "H100", "8"},
        {"Xavier_NX_TRT_MaxQ", "Xavier-NX", "1"},
    };
    for (size_t k = 0; k < sizeof systems / sizeof systems[0]; k++) {
        char dir[200];
        snprintf(dir, sizeof dir, "x/closed/S/results/%s/mixtral-8x7b/Server/performance/run_1",
                 systems[k][0]);
        jl_import_result *r = NULL;
        jl_error_list errs = {0};
        CHECK(run_import(spl, SERVER, dir, &r, &errs) == JL_OK);
        CHECK_EQ_INT(errs.count, 0);
        if (!r)
            continue;
        const jl_run *run = r->runs[0];
        CHECK_STR(run->attrs.gpu_model, systems[k][1]);
        CHECK_EQ_INT(run->attrs.num_gpus, atol(systems[k][2]));
        if (k == 0) {
            CHECK_STR(ax(run, "mlperf_requested_schedule_rng_seed"), "10051496985653635065");
            CHECK_STR(ax(run, "mlperf_huge"), "-123456789012345678901234567890");
            /* the completed rate; tokens */
            CHECK_NEAR(atof(sx(run, "samples_per_s")), 311.753, 0, 0);
            CHECK_STR(sx(run, "samples_per_s_key"), "result_completed_samples_per_sec");
            CHECK_NEAR(run->summary.energy_per_item_j, 1050 / 311.753, 1e-12, 0);
            CHECK_NEAR(run->summary.output_throughput_tok_s, 45497, 0, 0);
            CHECK_NEAR(run->summary.energy_per_token_j, 1050 / 45497.0, 1e-12, 0);
            /* -1 is not measured: no average of it */
            CHECK(sx(run, "avg_volts") == NULL);
            CHECK(sx(run, "avg_amps") == NULL);
            /* no cap from the query count */
            CHECK_EQ_INT(run->attrs.max_batch_size, 1);
            CHECK_STR(ax(run, "unknown_attributes"), "max_batch_size");
        }
        jl_import_result_free(r);
        jl_error_list_clear(&errs);
    }
}

int main(void)
{
    RUN(offline_checker_figures);
    RUN(single_stream_energy_per_query);
    RUN(multi_channel_summed);
    RUN(bad_input);
    RUN(server_keys_big_integers_no_cap);
    TEST_MAIN_END();
}
