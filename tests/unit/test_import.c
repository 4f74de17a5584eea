/* ML.ENERGY import: hand-made documents (mapping, unknown fields, nulls,
 * duplicates, timelines, malformed input) and the real data set in
 * JOULES_SHARED_DIR/data/mlenergy-v3 (never copied into the repo): counts,
 * values checked by hand against the JSON files, a write/read round trip,
 * and the paper's §4.3–§4.5 numbers through pick and compare. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/choice.h"
#include "joules/frontier.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/study.h"
#include "joules/summary.h"
#include "joules/trace_write.h"
#include "test.h"

static const char *INDEX =
    "{\"architectures\": {\"llm\": [\"gpqa\"], \"diffusion\": [\"text-to-image\"]},"
    " \"last_updated\": \"2026-01-01\", \"tasks\": [\"gpqa\", \"text-to-image\"],"
    " \"models\": {\"org/M-8B\": {\"nickname\": \"M 8B\", \"total_params_billions\": 8.0,"
    "   \"activated_params_billions\": 8.0, \"weight_precision\": \"bfloat16\","
    "   \"architecture\": \"Dense Transformer\"}}}";

static const char *LLM =
    "{\"model_id\": \"org/M-8B\", \"task\": \"gpqa\", \"total_params_billions\": 8.0,"
    " \"activated_params_billions\": 8.0, \"weight_precision\": \"bfloat16\","
    " \"architecture\": \"Dense Transformer\", \"configurations\": ["
    "  {\"gpu_model\": \"H100\", \"num_gpus\": 2, \"max_num_seqs\": 64,"
    "   \"energy_per_token_joules\": 0.5, \"avg_power_watts\": 900, \"median_itl_ms\": 40,"
    "   \"p90_itl_ms\": 55, \"output_throughput_tokens_per_sec\": 1800, \"avg_output_len\": 100,"
    "   \"energy_per_request_joules\": 50, \"avg_batch_size\": 60.5,"
    "   \"parallelization\": {\"tensor_parallel\": 2, \"expert_parallel\": 1,"
    "                         \"data_parallel\": 1, \"notes\": \"\"},"
    "   \"mystery\": 7, \"max_num_batched_tokens\": null},"
    "  {\"gpu_model\": \"H100\", \"num_gpus\": 2, \"max_num_seqs\": 64,"
    "   \"energy_per_token_joules\": 0.6, \"avg_power_watts\": 950, \"median_itl_ms\": 42,"
    "   \"kv_cache_usage_percent\": 50,"
    "   \"timelines\": {\"power_instant\": {\"timestamps\": [0, 1, 2], \"values\": [800, 900, 1000]},"
    "                 \"batch_size\": {\"timestamps\": [0, 1.5], \"values\": [10.0, 64.0]},"
    "                 \"temperature\": {\"timestamps\": [0, 2], \"values\": [50, 60]}}}"
    "]}";

static const char *DIFF =
    "{\"model_id\": \"org/D\", \"nickname\": \"D\", \"task\": \"text-to-image\","
    " \"total_params_billions\": 1.5, \"activated_params_billions\": 1.5,"
    " \"weight_precision\": \"bfloat16\", \"configurations\": ["
    "  {\"gpu_model\": \"B200\", \"num_gpus\": 2, \"batch_size\": 4, \"batch_latency_s\": 12.5,"
    "   \"avg_power_watts\": 1500, \"energy_per_image_joules\": 4687.5,"
    "   \"throughput_images_per_sec\": 0.32, \"inference_steps\": 28, \"image_height\": 1024,"
    "   \"image_width\": 1024, \"parallelization\": {\"ulysses_degree\": 2, \"ring_degree\": 1}}]}";

static const char *extra(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (!strcmp(r->attrs.extra[i].key, k))
            return r->attrs.extra[i].value;
    return NULL;
}

static const char *sextra(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->summary.n_extra; i++)
        if (!strcmp(r->summary.extra[i].key, k))
            return r->summary.extra[i].value;
    return NULL;
}

static int has_note(const jl_import_result *r, const char *needle)
{
    for (size_t i = 0; i < r->n_notes; i++)
        if (strstr(r->notes[i].message, needle))
            return 1;
    return 0;
}

TEST(llm_mapping)
{
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    jl_status st = jl_import_mlenergy_buffer(INDEX, strlen(INDEX), LLM, strlen(LLM), "m.json", NULL,
                                             &r, &errs);
    CHECK(st == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "  %s\n", errs.items[i]->message);
    if (!r)
        return;
    CHECK_EQ_INT(r->n_runs, 2);
    const jl_run *a = r->runs[0], *b = r->runs[1];
    CHECK_STR(a->name, "org__M-8B__gpqa__H100x2__b64");
    CHECK_STR(b->name, "org__M-8B__gpqa__H100x2__b64__dup2");
    CHECK_EQ_INT(r->n_duplicates, 1);
    CHECK_STR(a->attrs.workload, "llm");
    CHECK_STR(a->attrs.model, "org/M-8B");
    CHECK_STR(a->attrs.precision, "bfloat16");
    CHECK_EQ_INT(a->attrs.num_gpus, 2);
    CHECK_EQ_INT(a->attrs.max_batch_size, 64);
    CHECK_EQ_INT(a->attrs.tensor_parallel, 2);
    CHECK_NEAR(a->attrs.total_params, 8e9, 1e-12, 0);
    CHECK_STR(extra(a, "nickname"), "M 8B");
    CHECK_STR(extra(a, "architecture"), "Dense Transformer");
    CHECK_STR(extra(a, "mystery"), "7");
    CHECK(a->attrs.notes == NULL); /* empty notes not stored */
    CHECK(a->summary.present);
    CHECK_NEAR(a->summary.median_itl_s, 0.040, 1e-12, 0);
    CHECK_NEAR(a->summary.p90_itl_s, 0.055, 1e-12, 0);
    CHECK_NEAR(a->summary.energy_per_token_j, 0.5, 0, 0);
    CHECK_NEAR(a->summary.avg_output_tokens, 100, 0, 0);
    CHECK(has_note(r, "unknown field: kept as extra attribute 'mystery'"));
    CHECK(has_note(r, "null value skipped"));
    CHECK(has_note(r, "re-measurement"));
    /* timelines of the second configuration */
    CHECK_EQ_INT(b->power_n, 3);
    CHECK_EQ_INT(b->watts.g, 2);
    /* one GPU's reading per value (docs/import.md): repeated on both columns */
    CHECK_NEAR(b->watts.v[2 * 2 + 1], 1000, 0, 0);
    CHECK_NEAR(b->watts.v[2 * 2 + 0], 1000, 0, 0);
    CHECK_STR(extra(b, "window"), "steady_state_only");
    CHECK_STR(sextra(b, "source"), "ML.ENERGY Leaderboard");
    CHECK(extra(a, "window") == NULL);
    CHECK(sextra(a, "source") == NULL);
    CHECK_EQ_INT(b->engine_n, 2);
    CHECK_EQ_INT(b->running[1], 64);
    CHECK_EQ_INT(b->gpu_n, 2);
    CHECK_NEAR(b->temp_c.v[3], 60, 0, 0);
    CHECK_STR(sextra(b, "avg_kv_cache_usage"), "0.5");
    CHECK_EQ_INT(r->n_with_timelines, 1);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* The two-GPU timeline of LLM's second configuration, both ways: by
 * default a value is one GPU's reading (each column holds it, the run's
 * power is twice the mean); with timeline_power_is_sum the value is the
 * total (each column holds half). The summary keeps the published
 * avg_power_w (950 W) as the headline and the recomputed one beside it. */
TEST(two_gpu_timeline_both_ways)
{
    for (int sum = 0; sum <= 1; sum++) {
        jl_import_options o;
        jl_import_options_default(&o);
        o.timeline_power_is_sum = sum;
        jl_import_result *r = NULL;
        jl_error_list errs = {0};
        CHECK(jl_import_mlenergy_buffer(INDEX, strlen(INDEX), LLM, strlen(LLM), "m.json", &o, &r,
                                        &errs) == JL_OK);
        CHECK_EQ_INT(errs.count, 0);
        const jl_run *b = r && r->n_runs == 2 ? r->runs[1] : NULL;
        CHECK(b != NULL);
        if (!b) {
            jl_import_result_free(r);
            jl_error_list_clear(&errs);
            continue;
        }
        CHECK_EQ_INT(b->watts.g, 2);
        for (size_t i = 0; i < 3; i++)
            for (size_t g = 0; g < 2; g++)
                CHECK_NEAR(b->watts.v[i * 2 + g], (800.0 + 100.0 * (double)i) / (sum ? 2 : 1), 0,
                           0);
        CHECK_CONTAINS(extra(b, "imported_power_split"), sum ? "total / num_gpus" : "repeated");
        jl_summary *s = NULL;
        jl_error *err = NULL;
        CHECK(jl_summarize(b, NULL, &s, &err) == JL_OK);
        jl_error_free(err);
        if (s) {
            CHECK_STR(jl_steady_method_name(s->steady_method), "source");
            CHECK(s->published != NULL);
            /* the window is the whole span [0, 2] s: trapezoids of 800, 900,
             * 1000 W give 1800 J per GPU column (per-GPU) or 900 J (sum) */
            CHECK_NEAR(s->fig[JL_FIG_STEADY_START_S], 0, 0, 0);
            CHECK_NEAR(s->fig[JL_FIG_STEADY_END_S], 2, 0, 0);
            CHECK_NEAR(s->fig[JL_FIG_STEADY_ENERGY_J], sum ? 1800 : 3600, 1e-12, 0);
            CHECK_NEAR(s->fig[JL_FIG_AVG_POWER_W], 950, 0, 0); /* published: the headline */
            CHECK_NEAR(s->published->recomputed[JL_FIG_AVG_POWER_W], sum ? 900 : 1800, 1e-12, 0);
            jl_disagreement d[JL_FIG_COUNT];
            size_t n = jl_summary_disagreements(s, d);
            int seen = 0;
            for (size_t k = 0; k < n; k++)
                if (d[k].figure == JL_FIG_AVG_POWER_W) {
                    seen = 1;
                    CHECK_NEAR(d[k].relative_difference, ((sum ? 900.0 : 1800.0) - 950) / 950,
                               1e-12, 0);
                    CHECK(d[k].marked == !sum); /* -5.3 % within 10 %; +89 % not */
                }
            CHECK(seen);
            jl_summary_free(s);
        }
        jl_import_result_free(r);
        jl_error_list_clear(&errs);
    }
}

/* Unknown keys are kept as text: arrays as the compact JSON jl_json_dumps
 * writes (a histogram's integer counts are written without jansson's tree:
 * the same bytes, checked here against jansson on edge values), numbers as
 * "%.17g" writes them (whole numbers without printf), and a key that only
 * resembles a known one stays unknown. */
TEST(kept_values_as_jansson_writes_them)
{
    static const char *const arrays[] = {
        "[]",
        "[0]",
        "[-1, 2, -9223372036854775807, 9223372036854775807, 10, 100, 1000000000000000000]",
        "[null, true, false, 3]",
        "[1, 2.5, -0.0, 1e300]",
        "[[1, 2], {\"b\": 1, \"a\": [3]}]",
        "[\"x\", 1]",
    };
    static const char *const numbers[] = {
        "0",   "-0.0", "7",  "9007199254740991",  "9007199254740993", "1e17",
        "2.5", "0.1",  "-3", "123456789012345678"};
    enum { NA = sizeof arrays / sizeof arrays[0], NN = sizeof numbers / sizeof numbers[0] };
    jl__strbuf doc;
    jl__strbuf_init(&doc);
    jl__strbuf_puts(&doc, "{\"model_id\": \"org/M-8B\", \"task\": \"gpqa\", \"weight_precision\": "
                          "\"bfloat16\", \"configurations\": [{\"gpu_model\": \"H100\", "
                          "\"num_gpus\": 1, \"max_num_seqs\": 8, \"avg_power_watts\": 500, "
                          "\"gpu_modelx\": \"y\", \"Num_gpus\": 3, \"num_gpu\": 4");
    for (int i = 0; i < NA; i++) {
        char k[32];
        snprintf(k, sizeof k, ", \"arr%d\": ", i);
        jl__strbuf_puts(&doc, k);
        jl__strbuf_puts(&doc, arrays[i]);
    }
    for (int i = 0; i < NN; i++) {
        char k[32];
        snprintf(k, sizeof k, ", \"num%d\": ", i);
        jl__strbuf_puts(&doc, k);
        jl__strbuf_puts(&doc, numbers[i]);
    }
    jl__strbuf_puts(&doc, "}]}");
    char *text = jl__strbuf_take(&doc);
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(text != NULL);
    if (!text)
        return;
    CHECK_EQ_INT(jl_import_mlenergy_buffer(INDEX, strlen(INDEX), text, strlen(text), "k.json", NULL,
                                           &r, &errs),
                 JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    if (r && r->n_runs == 1) {
        const jl_run *a = r->runs[0];
        CHECK_STR(extra(a, "gpu_modelx"), "y");
        CHECK_STR(extra(a, "Num_gpus"), "3");
        CHECK_STR(extra(a, "num_gpu"), "4");
        CHECK_EQ_INT(a->attrs.num_gpus, 1);
        for (int i = 0; i < NA; i++) {
            char k[16];
            snprintf(k, sizeof k, "arr%d", i);
            json_t *j = json_loads(arrays[i], 0, NULL);
            char *want =
                j ? jl_json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
            CHECK(want != NULL);
            if (want)
                CHECK_STR(extra(a, k), want);
            free(want);
            json_decref(j);
        }
        for (int i = 0; i < NN; i++) {
            char k[16], want[64];
            snprintf(k, sizeof k, "num%d", i);
            json_t *j = json_loads(numbers[i], JSON_DECODE_ANY, NULL);
            CHECK(j != NULL);
            snprintf(want, sizeof want, "%.17g", json_number_value(j));
            CHECK_STR(extra(a, k), want);
            json_decref(j);
        }
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
    free(text);
}

TEST(diffusion_mapping)
{
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    jl_status st = jl_import_mlenergy_buffer(INDEX, strlen(INDEX), DIFF, strlen(DIFF), "d.json",
                                             NULL, &r, &errs);
    CHECK(st == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    if (!r)
        return;
    CHECK_EQ_INT(r->n_runs, 1);
    const jl_run *a = r->runs[0];
    CHECK_STR(a->name, "org__D__text-to-image__B200x2__b4__u2r1");
    CHECK_STR(a->attrs.workload, "diffusion");
    CHECK_EQ_INT(a->attrs.max_batch_size, 4);
    CHECK_EQ_INT(a->attrs.denoising_steps, 28);
    CHECK_EQ_INT(a->attrs.height, 1024);
    CHECK_NEAR(a->summary.energy_per_item_j, 4687.5, 0, 0);
    CHECK_NEAR(a->summary.batch_latency_s, 12.5, 0, 0);
    CHECK_STR(sextra(a, "items_per_s"), "0.32000000000000001");
    CHECK_STR(extra(a, "ulysses_degree"), "2");
    CHECK_STR(extra(a, "item"), "image");
    CHECK(has_note(r, "model not listed in index.json"));
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* Malformed input: clean errors naming file and field, never a crash. */
static void expect_error(const char *doc, const char *field, const char *needle)
{
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    jl_import_options opt;
    jl_import_options_default(&opt);
    opt.max_series = 4;
    opt.max_configs = 3;
    jl_import_mlenergy_buffer(INDEX, strlen(INDEX), doc, strlen(doc), "bad.json", &opt, &r, &errs);
    CHECK(errs.count >= 1);
    int found = 0;
    for (size_t i = 0; i < errs.count; i++) {
        const jl_error *e = errs.items[i];
        if ((!field || (e->object && !strcmp(e->object, field))) && strstr(e->message, needle) &&
            e->file && !strcmp(e->file, "bad.json"))
            found = 1;
    }
    if (!found)
        for (size_t i = 0; i < errs.count; i++)
            fprintf(stderr, "  got: %s | %s\n", errs.items[i]->object ? errs.items[i]->object : "-",
                    errs.items[i]->message);
    CHECK(found);
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

#define CFG_HEAD "{\"model_id\": \"org/M-8B\", \"task\": \"gpqa\", \"configurations\": ["
#define GOOD "\"gpu_model\": \"H100\", \"max_num_seqs\": 8, \"energy_per_token_joules\": 1"

TEST(malformed_input)
{
    expect_error("{", NULL, "not valid JSON");
    expect_error("[]", NULL, "expected a JSON object");
    expect_error("{\"model_id\": \"x\"}", "configurations", "missing");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": \"two\"}]}", "configurations[0].num_gpus",
                 "expected a whole number");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1.5}]}", "configurations[0].num_gpus",
                 "expected a whole number");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 100000}]}", "configurations[0].num_gpus",
                 "1..1024");
    expect_error(CFG_HEAD "{" GOOD "}]}", "configurations[0]", "num_gpus missing");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1, \"median_itl_ms\": -3}]}",
                 "configurations[0].median_itl_ms", ">= 0");
    expect_error(CFG_HEAD "7]}", "configurations[0]", "expected an object");
    expect_error(CFG_HEAD "{},{},{},{}]}", "configurations", "more than the limit");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1, \"timelines\": {\"power_instant\": "
                          "{\"timestamps\": [0,1,2,3,4,5], \"values\": [1,1,1,1,1,1]}}}]}",
                 "configurations[0].power_instant", "more than the limit");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1, \"timelines\": {\"power_instant\": "
                          "{\"timestamps\": [0,2,1], \"values\": [1,1,1]}}}]}",
                 "configurations[0].power_instant", "non-decreasing");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1, \"timelines\": {\"batch_size\": "
                          "{\"timestamps\": [0,1], \"values\": [1]}}}]}",
                 "configurations[0].batch_size", "2 timestamps but 1 values");
    expect_error("{\"model_id\": \"a\", \"model_id\": \"b\", \"configurations\": []}", "model_id",
                 "line 1: key \"model_id\" given again with a different value");
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1},\n{" GOOD ",\n \"num_gpus\": 1,\n"
                          " \"num_gpus\": 2}]}",
                 "configurations[1].num_gpus",
                 "line 4: key \"num_gpus\" given again with a "
                 "different value (2; at line 3 it was 1)");
    /* an escaped key is the same key to jansson: caught too */
    expect_error(CFG_HEAD "{" GOOD ", \"num_gpus\": 1, \"fps\": 1, \"\\u0066ps\": 2}]}",
                 "configurations[0].fps", "key \"fps\" given again with a different value");
}

/* Duplicate keys: equal values are a note (one per field, counted), the
 * configuration imports; the scan finds them at any depth with lines. */
TEST(duplicate_keys)
{
    const char *doc = CFG_HEAD
        "{" GOOD ", \"num_gpus\": 1, \"weight_precision\": \"bfloat16\",\n"
        "  \"weight_precision\": \"bfloat16\"},\n"
        "{" GOOD ", \"num_gpus\": 2, \"weight_precision\": \"bfloat16\",\n"
        "  \"weight_precision\": \"bfloat16\", \"parallelization\": {\"tensor_parallel\": 2,\n"
        "  \"tensor_parallel\": 2.0}}]}";
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy_buffer(INDEX, strlen(INDEX), doc, strlen(doc), "dup.json", NULL, &r,
                                    &errs) == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    CHECK(r && r->n_runs == 2);
    int seen_wp = 0, seen_tp = 0;
    for (size_t i = 0; r && i < r->n_notes; i++) {
        if (!strcmp(r->notes[i].field, "configurations[*].weight_precision")) {
            seen_wp = 1;
            CHECK_CONTAINS(r->notes[i].message, "given twice with the same value in 2 objects "
                                                "(first at lines 1 and 2): kept once");
        }
        if (!strcmp(r->notes[i].field, "configurations[*].parallelization.tensor_parallel")) {
            seen_tp = 1; /* 2 and 2.0 are equal JSON numbers */
            CHECK_CONTAINS(r->notes[i].message, "in 1 object (first at lines 4 and 5)");
        }
    }
    CHECK(seen_wp);
    CHECK(seen_tp);
    if (r && r->n_runs == 2)
        CHECK_STR(r->runs[1]->attrs.precision, "bfloat16");
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* ../shared/realworld/mlenergy-leaderboard-e0ba9ed: a published tasks/
 * file repeating weight_precision in every configuration, in a folder
 * without index.json or models/: it imports, with notes saying both. */
TEST(realworld_duplicate_key_file)
{
    const char *dir = JOULES_SHARED_DIR "/realworld/mlenergy-leaderboard-e0ba9ed/public/data";
    if (access(JOULES_SHARED_DIR "/realworld/mlenergy-leaderboard-e0ba9ed/public/data/tasks/"
                                 "text-to-video.json",
               R_OK) != 0) {
        fprintf(stderr, "skipping: %s not found\n", dir);
        return;
    }
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy(dir, NULL, &r, &errs) == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    CHECK_EQ_INT(r->n_runs, 382); /* "configurations" of tasks/text-to-video.json */
    CHECK(has_note(r, "no index.json"));
    CHECK(has_note(r, "key \"weight_precision\" given twice with the same value in 382 "
                      "objects (first at lines 13 and 26): kept once"));
    CHECK(has_note(r, "workload 'diffusion' from the file's architecture field"));
    for (size_t i = 0; i < r->n_runs; i++)
        CHECK(r->runs[i]->attrs.workload && !strcmp(r->runs[i]->attrs.workload, "diffusion"));
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

/* ---- the real data set ----------------------------------------------------- */

#define V3 JOULES_SHARED_DIR "/data/mlenergy-v3"

static jl_import_result *real = NULL;
static jl_summary_list runs;

static const jl_run *find_run(const char *name)
{
    for (size_t i = 0; real && i < real->n_runs; i++)
        if (!strcmp(real->runs[i]->name, name))
            return real->runs[i];
    return NULL;
}

TEST(real_import)
{
    SKIP_UNLESS_READABLE(V3 "/index.json");
    jl_error_list errs = {0};
    jl_status st = jl_import_mlenergy(V3, NULL, &real, &errs);
    CHECK(st == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    for (size_t i = 0; i < errs.count && i < 5; i++)
        fprintf(stderr, "  %s\n", errs.items[i]->message);
    jl_error_list_clear(&errs);
    if (!real)
        return;
    CHECK_EQ_INT(real->n_runs, 1858);
    CHECK_EQ_INT(real->n_files, 62);
    CHECK_EQ_INT(real->n_duplicates, 3);
    size_t h100 = 0, b200 = 0, diff = 0, mllm = 0;
    for (size_t i = 0; i < real->n_runs; i++) {
        const jl_run *r = real->runs[i];
        h100 += !strcmp(r->attrs.gpu_model, "H100");
        b200 += !strcmp(r->attrs.gpu_model, "B200");
        diff += !strcmp(r->attrs.workload, "diffusion");
        mllm += !strcmp(r->attrs.workload, "mllm");
    }
    CHECK_EQ_INT(h100, 888);
    CHECK_EQ_INT(b200, 970);
    CHECK_EQ_INT(diff, 638 + 382);
    CHECK_EQ_INT(mllm, 173 + 100);
    /* models/Qwen__Qwen3-14B__gpqa.json, configurations[0] (checked by hand) */
    const jl_run *q = find_run("Qwen__Qwen3-14B__gpqa__B200x1__b8");
    CHECK(q != NULL);
    if (q) {
        CHECK_NEAR(q->summary.energy_per_token_j, 1.3662634337367148, 0, 0);
        CHECK_NEAR(q->summary.median_itl_s, 0.03362808651581872, 1e-15, 0);
        CHECK_NEAR(q->summary.avg_power_w, 319.7883095908309, 0, 0);
        CHECK_NEAR(q->summary.avg_output_tokens, 7026.242424242424, 0, 0);
        CHECK_STR(extra(q, "nickname"), "Qwen 3 14B");
        CHECK(extra(q, "task_display_name") != NULL);
        CHECK(extra(q, "output_length_counts") != NULL);
    }
    /* the three re-measurements */
    CHECK(find_run("openai__gpt-oss-20b__gpqa__H100x1__b96__dup2") != NULL);
    CHECK(find_run("Qwen__Qwen3-30B-A3B-Instruct-2507__lm-arena-chat__H100x2__b256__dup2") != NULL);
    CHECK(find_run("Qwen__Qwen3-30B-A3B-Instruct-2507__lm-arena-chat__H100x2__b512__dup2") != NULL);
    /* GPT OSS keeps mxfp4; Qwen3-Coder-480B-FP8 notes the DP/EP split */
    const jl_run *g = find_run("openai__gpt-oss-120b__gpqa__H100x1__b64");
    CHECK(g && !strcmp(g->attrs.precision, "mxfp4"));
    /* summaries by pass-through */
    memset(&runs, 0, sizeof runs);
    for (size_t i = 0; i < real->n_runs; i++) {
        jl_summary *s = NULL;
        jl_error *err = NULL;
        if (jl_summarize(real->runs[i], NULL, &s, &err) != JL_OK) {
            CHECK(0);
            jl_error_free(err);
            continue;
        }
        jl_summary_list_push(&runs, s);
    }
    CHECK_EQ_INT(runs.count, 1858);
}

TEST(real_round_trip)
{
    if (!real)
        return;
    const char *path = JOULES_BINARY_DIR "/tests/mlenergy-v3-import.h5";
    jl_error *err = NULL;
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    jl_status st = jl_trace_write(path, (const jl_run *const *)real->runs, real->n_runs, &wo, &err);
    CHECK(st == JL_OK);
    if (err)
        fprintf(stderr, "  %s\n", err->message);
    jl_error_free(err);
    jl_summary_list back = {0};
    jl_error_list errs = {0};
    jl_study_options so;
    jl_study_options_default(&so);
    const char *paths[] = {path};
    st = jl_study_load(paths, 1, &so, &back, &errs);
    CHECK(st == JL_OK);
    CHECK_EQ_INT(errs.count, 0);
    CHECK_EQ_INT(back.count, 1858);
    /* same figures (run order: names sorted by the reader, so match by name) */
    size_t same = 0;
    for (size_t i = 0; i < back.count; i++)
        for (size_t j = 0; j < runs.count; j++)
            if (!strcmp(back.items[i]->run, runs.items[j]->run)) {
                int eq = 1;
                for (int f = 0; f < JL_FIG_COUNT; f++) {
                    double a = back.items[i]->fig[f], b = runs.items[j]->fig[f];
                    if (!(a == b || (isnan(a) && isnan(b))))
                        eq = 0;
                }
                same += eq;
                break;
            }
    CHECK_EQ_INT(same, 1858);
    jl_summary_list_clear(&back);
    jl_error_list_clear(&errs);
    unlink(path);
}

static jl_slo *slo(const char *e)
{
    jl_slo *s = NULL;
    jl_error *err = NULL;
    jl_slo_parse(e, &s, NULL, &err);
    jl_error_free(err);
    return s;
}

/* Runs of the given tasks only (a selection like --where task=...). */
static void select_tasks(jl_summary_list *out, const char *const *tasks, size_t n)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < runs.count; i++)
        for (size_t k = 0; k < n; k++)
            if (!strcmp(runs.items[i]->attrs.task, tasks[k])) {
                jl_summary *c = NULL;
                jl_summary_copy(runs.items[i], &c);
                jl_summary_list_push(out, c);
            }
}

static void gpu_compare(const char *const *tasks, size_t nt, const char *const *slos_text,
                        size_t wins_b200, size_t n, double median, double min, double max)
{
    jl_summary_list sel;
    select_tasks(&sel, tasks, nt);
    jl_slo *s[3];
    for (int i = 0; i < 3; i++)
        s[i] = slo(slos_text[i]);
    jl_compare_options o = {"gpu_model", "H100", NULL, 0, {-1, 1e-9}};
    jl_compare_result *r = NULL;
    jl_error *err = NULL;
    CHECK(jl_compare(&sel, (const jl_slo *const *)s, 3, &o, &r, &err) == JL_OK);
    if (r) {
        CHECK_EQ_INT(r->n_counted, n);
        CHECK_EQ_INT(r->n_sides, 1);
        CHECK_EQ_INT(r->sides[0].wins, wins_b200);
        CHECK_NEAR(r->median_reduction, median, 0, 0.005);
        CHECK_NEAR(r->min_reduction, min, 0, 0.005);
        CHECK_NEAR(r->max_reduction, max, 0, 0.005);
    }
    jl_compare_result_free(r);
    jl_error_free(err);
    for (int i = 0; i < 3; i++)
        jl_slo_free(s[i]);
    jl_summary_list_clear(&sel);
}

TEST(paper_gpu_generation)
{
    if (!runs.count)
        return;
    /* §4.3: LLM (Problem Solving + Text Conversation, as in Fig. 6) */
    static const char *const llm[] = {"gpqa", "lm-arena-chat"};
    static const char *const itl[] = {"median_itl<=50ms", "median_itl<=100ms", "median_itl<=250ms"};
    gpu_compare(llm, 2, itl, 63, 72, 0.35, -0.53, 0.82);
    static const char *const t2i[] = {"text-to-image"};
    static const char *const t2i_slo[] = {"batch_latency<=10s", "batch_latency<=30s",
                                          "batch_latency<=60s"};
    gpu_compare(t2i, 1, t2i_slo, 18, 21, 0.15, -0.04, 0.23);
    static const char *const t2v[] = {"text-to-video"};
    static const char *const t2v_slo[] = {"batch_latency<=100s", "batch_latency<=500s",
                                          "batch_latency<=1000s"};
    gpu_compare(t2v, 1, t2v_slo, 11, 14, 0.04, -0.06, 0.08);
}

TEST(paper_precision)
{
    if (!runs.count)
        return;
    /* §4.4: every FP8 run with its BF16 twin, LLM and MLLM, without Qwen 3
     * Coder 480B (the paper's stated exception), buckets (8,16], (16,64],
     * (64,256] */
    jl_summary_list sel = {0};
    for (size_t i = 0; i < runs.count; i++) {
        const jl_summary *s = runs.items[i];
        if (strstr(s->attrs.model, "Qwen3-Coder-480B") || !strcmp(s->attrs.workload, "diffusion"))
            continue;
        jl_summary *c = NULL;
        jl_summary_copy(s, &c);
        jl_summary_list_push(&sel, c);
    }
    double bins[] = {8, 16, 64, 256};
    jl_precision_options o = {"bfloat16", bins, 4, -1, -1};
    jl_precision_result *r = NULL;
    jl_error *err = NULL;
    CHECK(jl_compare_precision(&sel, &o, &r, &err) == JL_OK);
    if (r) {
        CHECK_EQ_INT(r->n_buckets, 3);
        CHECK_EQ_INT(r->buckets[0].energy.n, 7);
        CHECK_EQ_INT(r->buckets[0].energy.wins, 0);
        CHECK_NEAR(r->buckets[0].energy.min, 0.13, 0, 0.005);
        CHECK_NEAR(r->buckets[0].energy.max, 0.56, 0, 0.005);
        CHECK_NEAR(r->buckets[0].energy.median, 0.30, 0, 0.005);
        CHECK_EQ_INT(r->buckets[1].energy.n, 13);
        CHECK_EQ_INT(r->buckets[1].energy.wins, 6);
        CHECK_NEAR(r->buckets[1].energy.median, 0.01, 0, 0.005);
        CHECK_EQ_INT(r->buckets[2].energy.n, 12);
        CHECK_EQ_INT(r->buckets[2].energy.wins, 11);
        CHECK_NEAR(r->buckets[2].energy.median, -0.11, 0, 0.005);
        CHECK_EQ_INT(r->buckets[0].latency.wins, 1);
        CHECK_EQ_INT(r->buckets[1].latency.wins, 11);
        CHECK_EQ_INT(r->buckets[2].latency.wins, 11);
        CHECK_NEAR(r->buckets[0].latency.median, 0.07, 0, 0.005);
        CHECK_NEAR(r->buckets[1].latency.median, -0.12, 0, 0.005);
    }
    jl_precision_result_free(r);
    jl_error_free(err);
    jl_summary_list_clear(&sel);
}

/* The pick of one (model, task) restricted to a GPU model and count. */
static long pick_in(const char *model, const char *task, const char *gpu, long n, const char *e,
                    double *energy)
{
    size_t idx[4096], k = 0;
    for (size_t i = 0; i < runs.count && k < 4096; i++) {
        const jl_attrs *a = &runs.items[i]->attrs;
        if (!strcmp(a->model, model) && !strcmp(a->task, task) && !strcmp(a->gpu_model, gpu) &&
            (n < 0 || a->num_gpus == n))
            idx[k++] = i;
    }
    jl_slo *s = e ? slo(e) : NULL;
    jl_pick p;
    jl_pick_runs(&runs, idx, k, s, NULL, &p, NULL);
    long c = p.status == JL_PICK_FEASIBLE ? p.choice : -1;
    *energy = p.energy;
    jl_pick_clear(&p);
    jl_slo_free(s);
    return c;
}

TEST(paper_examples)
{
    if (!runs.count)
        return;
    double eh, eb;
    /* §4.3: Qwen 3 30B A3B Thinking at 50 ms: 2xH100 bs128 53% less than 1xB200 bs64 */
    long h =
        pick_in("Qwen/Qwen3-30B-A3B-Thinking-2507", "gpqa", "H100", -1, "median_itl<=50ms", &eh);
    long b =
        pick_in("Qwen/Qwen3-30B-A3B-Thinking-2507", "gpqa", "B200", -1, "median_itl<=50ms", &eb);
    CHECK(h >= 0 && b >= 0);
    if (h >= 0 && b >= 0) {
        CHECK_EQ_INT(runs.items[h]->attrs.num_gpus, 2);
        CHECK_EQ_INT(runs.items[h]->attrs.max_batch_size, 128);
        CHECK_EQ_INT(runs.items[b]->attrs.num_gpus, 1);
        CHECK_EQ_INT(runs.items[b]->attrs.max_batch_size, 64);
        /* the paper's "53% less" is the reduction column of Fig. 6: B200's
         * 1 - E_B200/E_H100 = -53% (B200 uses 53% more); H100 uses 35% less */
        CHECK_NEAR(1 - eb / eh, -0.53, 0, 0.005);
        CHECK_NEAR(1 - eh / eb, 0.35, 0, 0.005);
    }
    /* Qwen 3 235B A22B Instruct FP8: 8xH100 bs192 33% less than 2xB200 bs64 */
    h = pick_in("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "lm-arena-chat", "H100", -1,
                "median_itl<=50ms", &eh);
    b = pick_in("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "lm-arena-chat", "B200", -1,
                "median_itl<=50ms", &eb);
    CHECK(h >= 0 && b >= 0);
    if (h >= 0 && b >= 0) {
        CHECK_EQ_INT(runs.items[h]->attrs.num_gpus, 8);
        CHECK_EQ_INT(runs.items[h]->attrs.max_batch_size, 192);
        CHECK_EQ_INT(runs.items[b]->attrs.num_gpus, 2);
        CHECK_EQ_INT(runs.items[b]->attrs.max_batch_size, 64);
        CHECK_NEAR(1 - eb / eh, -0.33, 0, 0.005); /* H100 itself: 25% less */
        CHECK_NEAR(1 - eh / eb, 0.25, 0, 0.005);
    }
    /* §4.5: GPT OSS 120B, 1xH100 tops out at bs 64; 2xH100 reaches 2048 with 68% less */
    double e1, e2;
    long one = pick_in("openai/gpt-oss-120b", "gpqa", "H100", 1, NULL, &e1);
    long two = pick_in("openai/gpt-oss-120b", "gpqa", "H100", 2, NULL, &e2);
    CHECK(one >= 0 && two >= 0);
    if (one >= 0 && two >= 0) {
        CHECK_EQ_INT(runs.items[one]->attrs.max_batch_size, 64);
        CHECK_EQ_INT(runs.items[two]->attrs.max_batch_size, 2048);
        CHECK_NEAR(1 - e2 / e1, 0.68, 0, 0.005);
    }
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(llm_mapping);
    RUN(two_gpu_timeline_both_ways);
    RUN(duplicate_keys);
    RUN(realworld_duplicate_key_file);
    RUN(kept_values_as_jansson_writes_them);
    RUN(diffusion_mapping);
    RUN(malformed_input);
    /* test_import_data: the published data set */
    RUN_DATA(real_import);
    RUN_DATA(real_round_trip);
    RUN_DATA(paper_gpu_generation);
    RUN_DATA(paper_precision);
    RUN_DATA(paper_examples);
    jl_summary_list_clear(&runs);
    jl_import_result_free(real);
    TEST_MAIN_END();
}
