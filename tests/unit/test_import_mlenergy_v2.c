/* ML.ENERGY Leaderboard v2 / v1 import (jl_import_mlenergy_v2_buffer):
 * hand-made configuration files and CSV rows with figures worked out by
 * hand, the GPU name table, and bad input named by file, field and line.
 * The whole real data/ folder: tests/import/mlenergy_v2_real.py. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "joules/frontier.h"
#include "joules/import.h"
#include "joules/summary.h"
#include "test.h"

#define LLM_PATH "llm_text_generation/chat/A100-SXM4-40GB/org/M-8B/bs64+tp2+pp1.json"
#define DIFF_PATH "diffusion/text-to-video/H100 80GB HBM3/org/V/bs2+steps25+frames16.json"

static const char *LLM =
    "{\"Model\": \"org/M-8B\", \"GPU\": \"NVIDIA A100-SXM4-40GB\", \"TP\": 2, \"PP\": 1,"
    " \"Energy/req (J)\": 120.0, \"Avg TPOT (s)\": 0.05, \"Token tput (tok/s)\": 900.0,"
    " \"Avg Output Tokens\": 240.0, \"Avg BS (reqs)\": 60.5, \"Max BS (reqs)\": 64}";

static const char *DIFF =
    "{\"Model\": \"org/V\", \"GPU\": \"NVIDIA H100 80GB HBM3\", \"Energy/video (J)\": 3000.0,"
    " \"Batch latency (s)\": 12.0, \"Batch size\": 2, \"Denoising steps\": 25, \"Frames\": 16}";

static const char *sx(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->summary.n_extra; i++)
        if (!strcmp(r->summary.extra[i].key, k))
            return r->summary.extra[i].value;
    return "";
}

static const char *ax(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (!strcmp(r->attrs.extra[i].key, k))
            return r->attrs.extra[i].value;
    return "";
}

static jl_import_result *imp(const char *text, const char *path, jl_error_list *errs)
{
    jl_import_result *r = NULL;
    jl_import_mlenergy_v2_buffer(text, strlen(text), path, NULL, &r, errs);
    return r;
}

TEST(llm_config)
{
    jl_error_list errs = {0};
    jl_import_result *r = imp(LLM, LLM_PATH, &errs);
    CHECK(r && r->n_runs == 1);
    CHECK_EQ_INT(errs.count, 0);
    if (!r || r->n_runs != 1)
        return;
    const jl_run *run = r->runs[0];
    CHECK_STR(run->name, "v2__chat__org__M-8B__A100-SXM4-40GB__bs64+tp2+pp1");
    CHECK_STR(run->attrs.workload, "llm");
    CHECK_STR(run->attrs.task, "chat");
    CHECK_STR(run->attrs.model, "org/M-8B");
    CHECK_STR(run->attrs.gpu_model, "A100");
    CHECK_STR(ax(run, "gpu_name"), "NVIDIA A100-SXM4-40GB");
    CHECK_NEAR(run->attrs.gpu_memory_bytes, 40960.0 * 1048576, 0, 0);
    CHECK_EQ_INT(run->attrs.num_gpus, 2); /* TP 2 x PP 1 */
    CHECK_EQ_INT(run->attrs.tensor_parallel, 2);
    CHECK_EQ_INT(run->attrs.max_batch_size, 64); /* bs64 in the file name */
    CHECK_STR(sx(run, "source"),
              "ML.ENERGY Leaderboard v2 data (github.com/ml-energy/leaderboard-v2, data/)");
    CHECK_NEAR(run->summary.energy_per_request_j, 120.0, 0, 0);
    /* 120 J / 240 tokens = 0.5 J/token; x 900 tok/s = 450 W */
    CHECK_NEAR(run->summary.energy_per_token_j, 0.5, 1e-15, 0);
    CHECK_NEAR(run->summary.avg_power_w, 450.0, 1e-15, 0);
    CHECK_NEAR(run->summary.avg_batch_size, 60.5, 0, 0);
    CHECK_STR(sx(run, "avg_tpot_s"), "0.050000000000000003");
    /* through the summariser: published figures pass through, and the
     * frontier's latency for it is the mean TPOT */
    jl_summary *s = NULL;
    jl_error *err = NULL;
    CHECK(jl_summarize(run, NULL, &s, &err) == JL_OK);
    CHECK_NEAR(s->fig[JL_FIG_AVG_TPOT_S], 0.05, 1e-15, 0);
    CHECK_NEAR(s->fig[JL_FIG_PEAK_RUNNING], 64, 0, 0);
    CHECK_NEAR(s->fig[JL_FIG_TOKENS_PER_JOULE], 2.0, 1e-15, 0);
    CHECK_EQ_INT(jl_frontier_latency_figure(NULL, s), JL_FIG_AVG_TPOT_S);
    jl_summary_free(s);
    jl_error_free(err);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

TEST(diffusion_config)
{
    jl_error_list errs = {0};
    jl_import_result *r = imp(DIFF, DIFF_PATH, &errs);
    CHECK(r && r->n_runs == 1);
    if (!r || r->n_runs != 1)
        return;
    const jl_run *run = r->runs[0];
    CHECK_STR(run->attrs.workload, "diffusion");
    CHECK_STR(run->attrs.gpu_model, "H100");
    CHECK_EQ_INT(run->attrs.num_gpus, 1);
    CHECK_EQ_INT(run->attrs.max_batch_size, 2);
    CHECK_EQ_INT(run->attrs.denoising_steps, 25);
    CHECK_EQ_INT(run->attrs.num_frames, 16);
    CHECK_NEAR(run->summary.energy_per_item_j, 3000, 0, 0);
    CHECK_NEAR(run->summary.batch_latency_s, 12, 0, 0);
    /* 2 videos / 12 s; 3000 J x 2 / 12 s = 500 W */
    CHECK_NEAR(atof(sx(run, "items_per_s")), 2.0 / 12, 1e-15, 0);
    CHECK_NEAR(run->summary.avg_power_w, 500, 1e-15, 0);
    CHECK_STR(sx(run, "item"), "video");
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

TEST(v1_csv_rows)
{
    const char *csv = "model,throughput,response_length,latency,energy\n"
                      "org/a-7b,25.0,250.0,10.0,2000.0\n"
                      "\"org/b,13b\",20,200,8,1000\n";
    jl_error_list errs = {0};
    jl_import_result *r = imp(csv, "A40_chat-concise_benchmark.csv", &errs);
    CHECK(r && r->n_runs == 2);
    CHECK_EQ_INT(errs.count, 0);
    if (!r || r->n_runs != 2)
        return;
    const jl_run *a = r->runs[0], *b = r->runs[1];
    CHECK_STR(a->name, "v1__A40__chat-concise__org__a-7b");
    CHECK_STR(a->attrs.task, "chat-concise");
    CHECK_STR(a->attrs.gpu_model, "A40");
    CHECK_EQ_INT(a->attrs.max_batch_size, 1);
    CHECK_NEAR(a->summary.energy_per_request_j, 2000, 0, 0);
    CHECK_NEAR(a->summary.energy_per_token_j, 8.0, 1e-15, 0); /* 2000 J / 250 tokens */
    CHECK_NEAR(a->summary.output_throughput_tok_s, 25, 0, 0);
    CHECK_NEAR(atof(sx(a, "avg_latency_s")), 10, 0, 0);
    CHECK(isnan(a->summary.avg_power_w));   /* not derived for v1 */
    CHECK_STR(b->attrs.model, "org/b,13b"); /* quoted field */
    CHECK_NEAR(b->summary.energy_per_token_j, 5.0, 1e-15, 0);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* The error names the file, field and line; `good` runs are still imported. */
static void expect_error_n(const char *text, const char *path, const char *field, long long line,
                           const char *msg, size_t good)
{
    jl_error_list errs = {0};
    jl_import_result *r = imp(text, path, &errs);
    CHECK_EQ_INT(r ? r->n_runs : 0, good);
    CHECK(errs.count >= 1);
    if (errs.count >= 1) {
        const jl_error *e = errs.items[0];
        CHECK_STR(e->file, path);
        if (field)
            CHECK_STR(e->object, field);
        CHECK_EQ_INT(e->row, line);
        CHECK_CONTAINS(e->message, msg);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

static void expect_error(const char *text, const char *path, const char *field, long long line,
                         const char *msg)
{
    expect_error_n(text, path, field, line, msg, 0);
}

TEST(bad_input)
{
    expect_error(
        "{\"Model\": \"m\", \"GPU\": \"NVIDIA A100-SXM4-40GB\", \"Energy/req (J)\": \"x\"}",
        LLM_PATH, "Energy/req (J)", -1, "expected a finite number >= 0");
    expect_error("{\"Model\": \"m\", \"GPU\": \"g\", \"TP\": 1.5, \"Energy/req (J)\": 1}", LLM_PATH,
                 "TP", -1, "whole number");
    expect_error("{\"GPU\": \"g\", \"Energy/req (J)\": 1}", LLM_PATH, "Model", -1,
                 "required field missing");
    expect_error("{\"Model\": \"m\", \"GPU\": \"g\"}", LLM_PATH, "Energy/req (J)", -1,
                 "required for a llm configuration");
    expect_error("{\"Model\": \"m\", \"GPU\": \"g\", \"Energy/r", LLM_PATH, NULL, 1, "");
    expect_error("{\"Model\": \"m\", \"Model\": \"m\"}", LLM_PATH, NULL, 1, "duplicate");
    expect_error("[1, 2]", LLM_PATH, NULL, -1, "expected a JSON object");
    expect_error(LLM, "llm_text_generation/chat/x.json", NULL, -1, "not {family}");
    expect_error_n("model,energy\norg/a,12\norg/b,-3\n", "A100_chat_benchmark.csv", "energy", 3,
                   "expected a finite number >= 0, found \"-3\"", 1);
    expect_error("model,energy\norg/a\n", "A100_chat_benchmark.csv", NULL, 2,
                 "1 fields, the header has 2");
    expect_error("name,energy\norg/a,1\n", "A100_chat_benchmark.csv", "model", 1,
                 "required column missing");
    expect_error("model,energy\n", "chat.csv", NULL, -1, "<GPU>_<task>_benchmark.csv");
}

int main(void)
{
    RUN(llm_config);
    RUN(diffusion_config);
    RUN(v1_csv_rows);
    RUN(bad_input);
    TEST_MAIN_END();
}
