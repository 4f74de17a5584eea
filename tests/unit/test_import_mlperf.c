/* MLPerf Power import (jl_import_mlperf_power_buffer): hand-made PTDaemon
 * and LoadGen logs whose figures are worked out by hand in the comments;
 * multi-channel analysers; bad input named by file, line and field. The
 * real run in JOULES_SHARED_DIR is checked by tests/import/mlperf_real.sh. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "joules/frontier.h"
#include "joules/import.h"
#include "joules/slo.h"
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
    /* a run folder outside a submission's tree: the benchmark is not
     * known, so the run is skipped, and the failed import says why */
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(run_import(SPL, DETAIL, "somewhere/run_1", &r, &errs) != JL_OK);
    CHECK_EQ_INT(errs.count, 2);
    if (errs.count == 2) {
        CHECK_STR(errs.items[0]->file, "somewhere/run_1");
        CHECK_CONTAINS(errs.items[0]->message, "skipped: the benchmark is not known");
        CHECK_CONTAINS(errs.items[0]->message, "--set model=BENCHMARK");
        CHECK_CONTAINS(errs.items[1]->message,
                       "no run could be imported: 1 run found, it was skipped");
    }
    jl_error_list_clear(&errs);
}

/* Vision, speech, recommendation and graph benchmarks import per sample
 * (they were skipped); BERT is language, per sample too, not tokens. */
TEST(per_sample_benchmarks)
{
    static const struct {
        const char *bench, *workload;
    } cases[] = {{"resnet50", "vision"},
                 {"retinanet", "vision"},
                 {"3d-unet-99", "vision"},
                 {"rnnt", "speech"},
                 {"dlrm-v2-99", "recommendation"},
                 {"rgat", "graph"},
                 {"bert-99", "language"},
                 {"newnet", "other"},
                 {"gptj-99", "llm"},
                 {"stable-diffusion-xl", "diffusion"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[256];
        snprintf(dir, sizeof dir,
                 "x/closed/S/results/SYS_A100-SXM-80GBx4/%s/Offline/performance/run_1",
                 cases[i].bench);
        jl_import_result *r = NULL;
        jl_error_list errs = {0};
        CHECK(run_import(SPL, DETAIL, dir, &r, &errs) == JL_OK);
        CHECK_EQ_INT(errs.count, 0);
        if (r && r->n_runs == 1) {
            const jl_run *run = r->runs[0];
            CHECK_STR(run->attrs.workload, cases[i].workload);
            CHECK_STR(run->attrs.gpu_model, "A100");
            CHECK_EQ_INT(run->attrs.num_gpus, 4);
            /* Offline: mean power 1400/3 W (300, 500, 600) over 250 samples/s */
            CHECK_NEAR(run->summary.energy_per_item_j, 1400.0 / 3 / 250, 1e-12, 0);
            CHECK_STR(sx(run, "items_per_s"), "250");
            int noted = 0;
            for (size_t k = 0; k < r->n_notes; k++)
                noted |= strstr(r->notes[k].message, "not in joules' table of benchmarks") != NULL;
            CHECK_EQ_INT(noted, !strcmp(cases[i].workload, "other"));
        }
        jl_import_result_free(r);
        jl_error_list_clear(&errs);
    }
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

/* ---- submission trees on disk ------------------------------------------------ */

static char root[64];

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    for (char *q = strchr(p + strlen(root) + 1, '/'); q; q = strchr(q + 1, '/')) {
        *q = '\0';
        mkdir(p, 0700);
        *q = '/';
    }
    FILE *f = fopen(p, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void put_run(const char *run_dir)
{
    char p[512];
    snprintf(p, sizeof p, "%s/spl.txt", run_dir);
    put(p, SPL);
    snprintf(p, sizeof p, "%s/mlperf_log_detail.txt", run_dir);
    put(p, DETAIL);
}

static jl_status import_one(const char *path, jl_import_result **r, jl_error_list *errs)
{
    const char *paths[] = {path};
    return jl_import_mlperf_power(paths, 1, NULL, r, errs);
}

#define QRUN "t/closed/Q/results/QAic_x16/resnet50/Offline/performance/run_1"

/* The accelerator and its count from systems/<system>.json (the folder
 * name says neither here), over several nodes. */
TEST(system_description)
{
    put_run(QRUN);
    put("t/closed/Q/systems/QAic_x16.json",
        "{\"system_name\": \"Q box\", \"submitter\": \"Q\", \"accelerator_model_name\": "
        "\"QUALCOMM Cloud AI 100 Standard\", \"accelerators_per_node\": \"8\", "
        "\"number_of_nodes\": 2, \"host_processor_model_name\": \"AMD EPYC 7282\"}");
    char p[512];
    snprintf(p, sizeof p, "%s/" QRUN, root);
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(import_one(p, &r, &errs) == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    if (r && r->n_runs == 1) {
        const jl_run *run = r->runs[0];
        CHECK_STR(run->attrs.workload, "vision");
        CHECK_STR(run->attrs.gpu_model, "Cloud-AI-100");
        CHECK_EQ_INT(run->attrs.num_gpus, 16);
        CHECK_STR(ax(run, "mlperf_accelerator_from"), "system description");
        CHECK_STR(ax(run, "mlperf_accelerator_model_name"), "QUALCOMM Cloud AI 100 Standard");
        CHECK_STR(ax(run, "mlperf_submitter"), "Q");
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);

    /* an edge system without accelerators: its processors, noted */
    put_run("t/closed/C/results/zen4/bert-99/SingleStream/performance/run_1");
    put("t/closed/C/systems/zen4.json",
        "{\"accelerator_model_name\": \"N/A\", \"accelerators_per_node\": 0, "
        "\"host_processor_model_name\": \"AMD Ryzen 9 7950X\", \"host_processors_per_node\": "
        "\"1\"}");
    snprintf(p, sizeof p, "%s/t/closed/C/results/zen4", root);
    r = NULL;
    CHECK(import_one(p, &r, &errs) == JL_OK);
    if (r && r->n_runs == 1) {
        CHECK_STR(r->runs[0]->attrs.gpu_model, "AMD_Ryzen_9_7950X");
        CHECK_EQ_INT(r->runs[0]->attrs.num_gpus, 1);
        CHECK_STR(ax(r->runs[0], "mlperf_accelerator_kind"), "cpu");
        CHECK_STR(r->runs[0]->attrs.workload, "language");
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* A run named as users type it (relative, ".", "..", a trailing '/', a
 * symbolic link) is the run its absolute path names. */
TEST(paths_as_typed)
{
    put_run(QRUN);
    char here[4096], abs[600], lnk[600];
    if (!getcwd(here, sizeof here))
        return;
    snprintf(abs, sizeof abs, "%s/" QRUN, root);
    snprintf(lnk, sizeof lnk, "%s/link", root);
    CHECK_EQ_INT(symlink(abs, lnk), 0);
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(import_one(abs, &r, &errs) == JL_OK);
    char *want = r && r->n_runs == 1 ? strdup(r->runs[0]->name) : NULL;
    jl_import_result_free(r);
    CHECK(want != NULL);
    static const struct {
        const char *cwd, *arg;
    } typed[] = {{QRUN "/..", "run_1"},
                 {QRUN, "."},
                 {QRUN "/..", "./run_1/"},
                 {QRUN, "../run_1"},
                 {"", "link"},
                 {"", "link/"},
                 {QRUN "/../..", "performance/run_1"}};
    for (size_t i = 0; want && i < sizeof typed / sizeof typed[0]; i++) {
        char d[600];
        snprintf(d, sizeof d, "%s/%s", root, typed[i].cwd);
        CHECK_EQ_INT(chdir(d), 0);
        r = NULL;
        jl_status st = import_one(typed[i].arg, &r, &errs);
        CHECK_EQ_INT(st, JL_OK);
        if (st != JL_OK)
            fprintf(stderr, "  %s in %s: %s\n", typed[i].arg, typed[i].cwd,
                    errs.count ? errs.items[0]->message : "?");
        if (r && r->n_runs == 1) {
            CHECK_STR(r->runs[0]->name, want);
            CHECK_STR(r->runs[0]->attrs.model, "resnet50");
        }
        jl_import_result_free(r);
        jl_error_list_clear(&errs);
        CHECK_EQ_INT(chdir(here), 0);
    }
    free(want);
}

/* Every run of a tree skipped: each reason an error of its own, and the
 * document's "skipped" lists them when something imports. */
TEST(every_skip_says_why)
{
    put("s/closed/X/results/SYS_H100x8/gptj-99/Offline/ranging/mlperf_log_detail.txt", DETAIL);
    put("s/closed/X/results/SYS_H100x8/gptj-99/Offline/performance/run_1/mlperf_log_detail.txt",
        DETAIL); /* no spl.txt: not power-measured */
    put_run("s/closed/X/compliance/SYS_H100x8/gptj-99/Offline/TEST01/performance/run_1");
    char p[512];
    snprintf(p, sizeof p, "%s/s", root);
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(import_one(p, &r, &errs) == JL_ENODATA);
    CHECK(r == NULL);
    CHECK_EQ_INT(errs.count, 4);
    int ranging = 0, nospl = 0, compliance = 0, total = 0;
    for (size_t i = 0; i < errs.count; i++) {
        const char *m = errs.items[i]->message;
        ranging += strstr(m, "skipped: a ranging run is not the measured one") != NULL;
        nospl += strstr(m, "skipped: no spl.txt here nor in ../power/") != NULL;
        compliance += strstr(m, "skipped: a compliance test's run") != NULL;
        total += strstr(m, "no run could be imported: 3 runs found, all were skipped") != NULL;
    }
    CHECK(ranging == 1 && nospl == 1 && compliance == 1 && total == 1);
    jl_error_list_clear(&errs);

    /* one run imports: the others are in "skipped" (and notes) */
    put_run("s/closed/X/results/SYS_H100x8/gptj-99/Server/performance/run_1");
    CHECK(import_one(p, &r, &errs) == JL_OK);
    if (r) {
        CHECK_EQ_INT(r->n_runs, 1);
        CHECK_EQ_INT(r->n_skipped, 3);
        json_t *doc = jl_import_document(r, "mlperf-power", NULL);
        json_t *sk = json_object_get(doc, "skipped");
        CHECK_EQ_INT(json_array_size(sk), 3);
        CHECK(json_string_value(json_object_get(json_array_get(sk, 0), "reason")) != NULL);
        json_decref(doc);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* The latency figure (issue 38): LoadGen's latency at the run's target
 * percentile, the key its results.cc writes for the scenario; Offline and
 * a MultiStream log without per-query latencies have none, with a reason. */
static jl_summary *latency_run(const char *scenario, const char *pct, const char *extra,
                               const char *bench)
{
    char detail[2048], dir[256];
    snprintf(detail, sizeof detail,
             ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"%s\"}\n"
             ":::MLLOG {\"key\": \"effective_samples_per_query\", \"value\": 8}\n"
             ":::MLLOG {\"key\": \"effective_max_async_queries\", \"value\": 1}\n"
             ":::MLLOG {\"key\": \"effective_target_latency_percentile\", \"value\": %s}\n"
             ":::MLLOG {\"key\": \"power_begin\", \"value\": \"01-02-2024 10:00:01.500\"}\n"
             ":::MLLOG {\"key\": \"power_end\", \"value\": \"01-02-2024 10:00:05.500\"}\n"
             ":::MLLOG {\"key\": \"result_samples_per_second\", \"value\": 250}\n"
             ":::MLLOG {\"key\": \"result_completed_samples_per_sec\", \"value\": 250}\n"
             ":::MLLOG {\"key\": \"result_query_count\", \"value\": 400}\n"
             ":::MLLOG {\"key\": \"result_90.00_percentile_latency_ns\", \"value\": 57538713}\n"
             ":::MLLOG {\"key\": \"result_99.00_percentile_latency_ns\", \"value\": 89091485}\n"
             "%s",
             scenario, pct, extra);
    snprintf(dir, sizeof dir, "x/closed/S/results/SYS_A100-SXM-80GBx4/%s/%s/performance/run_1",
             bench, scenario);
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    jl_summary *s = NULL;
    jl_error *err = NULL;
    CHECK(run_import(SPL, detail, dir, &r, &errs) == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    if (r && r->n_runs == 1)
        CHECK(jl_summarize(r->runs[0], NULL, &s, &err) == JL_OK);
    jl_error_free(err);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
    return s;
}

static const char *sa(const jl_summary *s, const char *k, char *buf, size_t cap)
{
    return jl_attrs_get(&s->attrs, k, buf, cap) == 0 ? buf : "(absent)";
}

TEST(latency_figure)
{
    char b[512];
    /* SingleStream: the 90th percentile over samples */
    jl_summary *ss = latency_run("SingleStream", "0.9", "", "resnet50");
    /* Server: the 99th over samples */
    jl_summary *sv = latency_run("Server", "0.99", "", "resnet50");
    /* MultiStream: the 99th over queries (result_..._per_query_latency_ns) */
    jl_summary *ms = latency_run(
        "MultiStream", "0.99",
        ":::MLLOG {\"key\": \"result_99.00_percentile_per_query_latency_ns\", \"value\": 524773}\n",
        "resnet50");
    /* MultiStream without per-query latencies (LoadGen before v1.1): none */
    jl_summary *legacy = latency_run("MultiStream", "0.99", "", "resnet50");
    jl_summary *off = latency_run("Offline", "0.99", "", "resnet50");
    if (!ss || !sv || !ms || !legacy || !off) {
        CHECK(0);
        goto end;
    }
    CHECK_NEAR(ss->fig[JL_FIG_PERCENTILE_LATENCY_S], 0.057538713, 1e-12, 0);
    CHECK_STR(sa(ss, "latency_percentile", b, sizeof b), "90");
    CHECK_STR(sa(ss, "latency_per", b, sizeof b), "sample");
    CHECK_STR(sa(ss, "latency_key", b, sizeof b), "result_90.00_percentile_latency_ns");
    CHECK_NEAR(sv->fig[JL_FIG_PERCENTILE_LATENCY_S], 0.089091485, 1e-12, 0);
    CHECK_STR(sa(sv, "latency_percentile", b, sizeof b), "99");
    CHECK_NEAR(ms->fig[JL_FIG_PERCENTILE_LATENCY_S], 524773e-9, 1e-12, 0);
    CHECK_STR(sa(ms, "latency_per", b, sizeof b), "query");
    CHECK(isnan(legacy->fig[JL_FIG_PERCENTILE_LATENCY_S]));
    CHECK_CONTAINS(sa(legacy, "latency_unknown", b, sizeof b), "per-query");
    CHECK(isnan(off->fig[JL_FIG_PERCENTILE_LATENCY_S]));
    CHECK_CONTAINS(sa(off, "latency_unknown", b, sizeof b), "Offline");
    CHECK_STR(sa(off, "latency_percentile", b, sizeof b), "(absent)");
    /* the frontier's latency for the per-sample workloads */
    CHECK_EQ_INT(jl_frontier_latency_figure(NULL, ss), JL_FIG_PERCENTILE_LATENCY_S);

    /* SLOs: latency judges each run at its own percentile; p90_latency
     * only runs whose percentile is the 90th, with the reason for others */
    jl_slo *any = NULL, *p90 = NULL, *p99 = NULL;
    CHECK(jl_slo_parse("latency<=60ms", &any, NULL, NULL) == JL_OK);
    CHECK(jl_slo_parse("p90_latency<=60ms", &p90, NULL, NULL) == JL_OK);
    CHECK(jl_slo_parse("latency_p99_s<=0.1", &p99, NULL, NULL) == JL_OK);
    if (any && p90 && p99) {
        CHECK_EQ_INT(jl_slo_eval(any, ss, NULL), JL_SLO_PASS);
        CHECK_EQ_INT(jl_slo_eval(any, sv, NULL), JL_SLO_FAIL); /* 89 ms */
        CHECK_EQ_INT(jl_slo_eval(p90, ss, NULL), JL_SLO_PASS);
        CHECK_EQ_INT(jl_slo_eval(p90, sv, NULL), JL_SLO_MISSING);
        CHECK(jl_slo_cond_refusal(&p90->conds[0], sv, b, sizeof b));
        CHECK_CONTAINS(b, "99th percentile per sample only");
        CHECK_EQ_INT(jl_slo_eval(p99, sv, NULL), JL_SLO_PASS);
        CHECK_EQ_INT(jl_slo_eval(p99, ss, NULL), JL_SLO_MISSING);
        CHECK_EQ_INT(jl_slo_eval(p99, off, NULL), JL_SLO_MISSING);
        CHECK(jl_slo_cond_refusal(&p99->conds[0], off, b, sizeof b));
        CHECK_CONTAINS(b, "no latency figure: Offline");
        CHECK(!jl_slo_cond_refusal(&any->conds[0], ss, b, sizeof b));
        char *canon = jl_slo_canonical(p90);
        CHECK_STR(canon, "percentile_latency_s[p90]<=0.06");
        free(canon);
    }
    /* a percentile name on an LLM: no figure for it */
    CHECK_EQ_INT(jl_slo_resolve_figure("p90_latency", "llm"), -1);
    CHECK_EQ_INT(jl_slo_resolve_figure("latency", "vision"), JL_FIG_PERCENTILE_LATENCY_S);
    jl_slo_free(any);
    jl_slo_free(p90);
    jl_slo_free(p99);
end:
    jl_summary_free(ss);
    jl_summary_free(sv);
    jl_summary_free(ms);
    jl_summary_free(legacy);
    jl_summary_free(off);
}

/* LLM runs' token latencies (issue 38): LoadGen's mean TPOT
 * (result_time_to_output_token_mean) as avg_tpot_s, the latency frontier
 * and pick take for a run without ITLs; each TPOT and TTFT percentile as
 * @loadgen_{tpot,ttft}_p<P>_s with its label; an LLM Server log without
 * token latencies (use_token_latencies off) has none, with a note. */
TEST(llm_token_latency)
{
    char b[512];
    const char *tok =
        ":::MLLOG {\"key\": \"result_completed_tokens_per_second\", \"value\": 5000}\n"
        ":::MLLOG {\"key\": \"result_first_token_mean_latency_ns\", \"value\": 119761993}\n"
        ":::MLLOG {\"key\": \"result_first_token_50.00_percentile_latency_ns\", \"value\": "
        "73941862}\n"
        ":::MLLOG {\"key\": \"result_first_token_99.00_percentile_latency_ns\", \"value\": "
        "1026078230}\n"
        ":::MLLOG {\"key\": \"result_first_token_99.90_percentile_latency_ns\", \"value\": "
        "1346394678}\n"
        ":::MLLOG {\"key\": \"result_time_per_output_token_50.00_percentile_ns\", \"value\": "
        "24055909}\n"
        ":::MLLOG {\"key\": \"result_time_per_output_token_99.00_percentile_ns\", \"value\": "
        "27141001}\n"
        ":::MLLOG {\"key\": \"result_time_per_output_token_99.90_percentile_ns\", \"value\": "
        "28838577}\n"
        ":::MLLOG {\"key\": \"result_time_to_output_token_mean\", \"value\": 23888819}\n";
    jl_summary *sv = latency_run("Server", "0.99", tok, "llama2-70b-99");
    jl_summary *bare =
        latency_run("Server", "0.99",
                    ":::MLLOG {\"key\": \"result_completed_tokens_per_second\", \"value\": 5000}\n",
                    "llama2-70b-99");
    jl_summary *vis = latency_run("Server", "0.99", tok, "resnet50");
    if (!sv || !bare || !vis) {
        CHECK(0);
        goto end;
    }
    CHECK_STR(sv->attrs.workload, "llm");
    CHECK_NEAR(sv->fig[JL_FIG_AVG_TPOT_S], 0.023888819, 1e-15, 0);
    CHECK_NEAR(sv->fig[JL_FIG_ENERGY_PER_TOKEN_J], sv->fig[JL_FIG_AVG_POWER_W] / 5000.0, 0, 1e-12);
    CHECK_NEAR(strtod(sa(sv, "loadgen_tpot_p99_s", b, sizeof b), NULL), 0.027141001, 1e-15, 0);
    CHECK_NEAR(strtod(sa(sv, "loadgen_tpot_p99.9_s", b, sizeof b), NULL), 0.028838577, 1e-15, 0);
    CHECK_NEAR(strtod(sa(sv, "loadgen_tpot_p50_s", b, sizeof b), NULL), 0.024055909, 1e-15, 0);
    CHECK_NEAR(strtod(sa(sv, "loadgen_ttft_p99_s", b, sizeof b), NULL), 1.02607823, 1e-15, 0);
    CHECK_NEAR(strtod(sa(sv, "loadgen_ttft_p50_s", b, sizeof b), NULL), 0.073941862, 1e-15, 0);
    CHECK_STR(sa(sv, "token_latency_percentiles", b, sizeof b), "50,99,99.9");
    /* never passed off as joules' own TTFT percentiles or ITLs */
    CHECK(isnan(sv->fig[JL_FIG_TTFT_P90_S]) && isnan(sv->fig[JL_FIG_TTFT_MEDIAN_S]));
    CHECK(isnan(sv->fig[JL_FIG_MEDIAN_ITL_S]));
    /* the frontier's latency for it: mean TPOT */
    CHECK_EQ_INT(jl_frontier_latency_figure(NULL, sv), JL_FIG_AVG_TPOT_S);
    jl_slo *tpot = NULL;
    CHECK(jl_slo_parse("avg_tpot<=25ms", &tpot, NULL, NULL) == JL_OK);
    if (tpot)
        CHECK_EQ_INT(jl_slo_eval(tpot, sv, NULL), JL_SLO_PASS);
    jl_slo_free(tpot);
    /* "latency" is the median ITL of an LLM run: this one lacks it, and the
     * reason says which figure it has */
    jl_slo *lat = NULL;
    CHECK(jl_slo_parse("latency<=50ms", &lat, NULL, NULL) == JL_OK);
    if (lat) {
        CHECK_EQ_INT(jl_slo_eval(lat, sv, NULL), JL_SLO_MISSING);
        CHECK(jl_slo_cond_refusal(&lat->conds[0], sv, b, sizeof b));
        CHECK_CONTAINS(b, "only a mean time per output token (avg_tpot_s 23.89 ms)");
        CHECK(!jl_slo_cond_refusal(&lat->conds[0], bare, b, sizeof b));
    }
    jl_slo_free(lat);
    /* without token latencies: no TPOT, no labels */
    CHECK(isnan(bare->fig[JL_FIG_AVG_TPOT_S]));
    CHECK_STR(sa(bare, "token_latency_percentiles", b, sizeof b), "(absent)");
    /* a per-sample benchmark does not take them */
    CHECK(isnan(vis->fig[JL_FIG_AVG_TPOT_S]));
    CHECK_STR(sa(vis, "loadgen_tpot_p99_s", b, sizeof b), "(absent)");
end:
    jl_summary_free(sv);
    jl_summary_free(bare);
    jl_summary_free(vis);
}

int main(void)
{
    RUN(offline_checker_figures);
    RUN(single_stream_energy_per_query);
    RUN(multi_channel_summed);
    RUN(bad_input);
    RUN(per_sample_benchmarks);
    RUN(latency_figure);
    RUN(llm_token_latency);
    snprintf(root, sizeof root, "/tmp/joules-mlperf-XXXXXX");
    if (!mkdtemp(root))
        return 1;
    RUN(system_description);
    RUN(paths_as_typed);
    RUN(every_skip_says_why);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        return 1;
    RUN(server_keys_big_integers_no_cap);
    TEST_MAIN_END();
}
