/* joules diagnose on the bundled traces: batch-1 runs under-utilised with a
 * large static share, the suggestion to raise the batch predicts lower
 * J/token, the definitions hold, the JSON document has every key. */
#include "test.h"

#include <math.h>

#include "core/util.h"
#include "joules/diagnose.h"
#include "joules/study.h"

static const jl_run_diagnosis *find(const jl_diagnosis *x, const char *run)
{
    for (size_t i = 0; i < x->count; i++)
        if (x->runs[i].run->run && !strcmp(x->runs[i].run->run, run))
            return &x->runs[i];
    return NULL;
}

static const jl_finding *finding(const jl_run_diagnosis *r, const char *kind)
{
    for (size_t i = 0; r && i < r->n_findings; i++)
        if (!strcmp(r->findings[i].kind, kind))
            return &r->findings[i];
    return NULL;
}

static double number(const jl_finding *f, const char *name)
{
    for (size_t i = 0; f && i < f->n_numbers; i++)
        if (!strcmp(f->numbers[i].name, name))
            return f->numbers[i].value;
    return NAN;
}

TEST(bundled_8b_h100)
{
    const char *paths[] = {JOULES_SOURCE_DIR "/traces/h100/h100-qwen3-8b-shape-chat.h5"};
    jl_study_options so;
    jl_study_options_default(&so);
    jl_summary_list l = {0};
    jl_error_list errs = {0};
    CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
    CHECK_EQ_INT(l.count, 9);
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    CHECK(jl_descriptors_load(JOULES_SOURCE_DIR "/models", &d, &err) == JL_OK);
    jl_diagnosis *x = NULL;
    CHECK(jl_diagnose(&l, d, NULL, &x, &err) == JL_OK);
    if (!x)
        return;
    const jl_run_diagnosis *b1 = find(x, "b0001"), *b256 = find(x, "b0256");
    CHECK(b1 && b256);
    if (!b1 || !b256)
        return;
    /* batch 1: under-utilised, a large static share, from the fitted model */
    CHECK_STR(b1->utilisation_source, "model");
    CHECK(b1->utilisation < 0.6);
    CHECK(b1->static_energy_share > 0.25);
    CHECK(b1->static_energy_share > b256->static_energy_share);
    CHECK(finding(b1, "under_utilised") != NULL);
    CHECK(finding(b256, "under_utilised") == NULL);
    /* static_wasted_j = G x idle x window x (1 - u) */
    const jl_summary *s = b1->run;
    CHECK_NEAR(b1->static_wasted_j,
               s->attrs.gpu_idle_power_w * s->fig[JL_FIG_STEADY_DURATION_S] * (1 - b1->utilisation),
               1e-12, 0);
    CHECK_NEAR(b1->static_energy_share, s->attrs.gpu_idle_power_w / s->fig[JL_FIG_AVG_POWER_W],
               1e-12, 0);
    /* the cap binds every run of this sweep (the README: the running batch
     * always reached the cap, KV peak 0.67) */
    for (size_t i = 0; i < x->count; i++)
        CHECK_EQ_INT(x->runs[i].ceiling.limit, JL_BATCH_LIMIT_CONFIG);
    /* measured memory ceiling: 414,144-token pool / ~1,000 tokens per sequence */
    CHECK(b256->ceiling.memory.value > 350 && b256->ceiling.memory.value < 500);
    CHECK_STR(b256->ceiling.memory.method, "measured");
    /* raise the batch: lower J/token predicted, more step time */
    const jl_finding *rb = finding(b1, "raise_batch");
    CHECK(rb != NULL);
    CHECK(number(rb, "predicted_energy_change") < -0.5);
    CHECK(number(rb, "predicted_step_time_change_s") > 0);
    CHECK(number(rb, "suggested_batch") > 1);
    /* the prediction agrees with what the sweep measured at that batch
     * (within 15 %) when the suggested batch was measured */
    double sb = number(rb, "suggested_batch");
    for (size_t i = 0; i < x->count; i++) {
        const jl_summary *m = x->runs[i].run;
        if (fabs(m->fig[JL_FIG_AVG_BATCH_SIZE] - sb) < 0.5)
            CHECK_NEAR(number(rb, "predicted_energy_per_token_j"),
                       m->fig[JL_FIG_ENERGY_PER_TOKEN_J], 0.15, 0);
    }
    /* JSON */
    json_t *doc = jl_diagnose_document(x);
    CHECK(doc != NULL);
    CHECK_STR(json_string_value(json_object_get(doc, "schema")), "joules.diagnose/1");
    json_t *r0 = json_array_get(json_object_get(doc, "runs"), 0);
    const char *keys[] = {"utilisation",    "static_energy_share", "static_wasted_j",
                          "batch_limit",    "batch_ceiling",       "findings",
                          "memory_ceiling", "utilisation_source"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        CHECK(json_object_get(r0, keys[k]) != NULL);
    json_decref(doc);
    jl_diagnosis_free(x);
    jl_descriptors_free(d);
    jl_summary_list_clear(&l);
    jl_error_list_clear(&errs);
}

TEST(diffusion_runs)
{
    const char *paths[] = {JOULES_SOURCE_DIR "/traces/h100/h100-dit-shape-text-to-image.h5"};
    jl_study_options so;
    jl_study_options_default(&so);
    jl_summary_list l = {0};
    jl_error_list errs = {0};
    CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
    jl_diagnosis *x = NULL;
    jl_error *err = NULL;
    CHECK(jl_diagnose(&l, NULL, NULL, &x, &err) == JL_OK);
    for (size_t i = 0; x && i < x->count; i++) {
        CHECK_EQ_INT(x->runs[i].ceiling.limit, JL_BATCH_LIMIT_CONFIG);
        CHECK_STR(x->runs[i].utilisation_source, "sm_util");
    }
    jl_diagnosis_free(x);
    jl_summary_list_clear(&l);
    jl_error_list_clear(&errs);
}

/* Qwen3-VL-8B image-chat on 1xB200 as measured (ML.ENERGY v3), by hand: the
 * cap-8 run (1119 tokens/s, then 448 at cap 16) is another regime. No run
 * is called upstream-bound from it (batches up to 463 were measured); the
 * cap-8 run gets the "regime" finding and no model-based number; the
 * others get predictions (the ceiling no longer stops them at 7.86). */
TEST(regime_run_of_an_mllm_sweep)
{
    const long caps[] = {8, 16, 32, 64, 128, 256, 512};
    const double bb[] = {7.86, 15.9, 31.9, 63.7, 127.6, 255.3, 463.2};
    const double tt[] = {1119, 448, 759, 1273, 1399, 1933, 2301};
    const double pw[] = {513, 283, 291, 311, 290, 325, 325};
    jl_summary_list l = {0};
    for (int i = 0; i < 7; i++) {
        jl_summary *s = jl_summary_new();
        s->file = jl__strdup("vl.h5");
        s->run = jl__asprintf("vl_b%ld", caps[i]);
        s->attrs.workload = jl__strdup("mllm");
        s->attrs.model = jl__strdup("Qwen/Qwen3-VL-8B-Instruct");
        s->attrs.task = jl__strdup("image-chat");
        s->attrs.gpu_model = jl__strdup("B200");
        s->attrs.precision = jl__strdup("bfloat16");
        s->attrs.num_gpus = 1;
        s->attrs.max_batch_size = caps[i];
        s->fig[JL_FIG_AVG_BATCH_SIZE] = bb[i];
        s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = tt[i];
        s->fig[JL_FIG_AVG_POWER_W] = pw[i];
        s->fig[JL_FIG_ENERGY_PER_TOKEN_J] = pw[i] / tt[i];
        s->fig[JL_FIG_AVG_OUTPUT_TOKENS] = 940;
        jl_summary_list_push(&l, s);
    }
    jl_diagnosis *x = NULL;
    CHECK(jl_diagnose(&l, NULL, NULL, &x, NULL) == JL_OK);
    for (size_t i = 0; x && i < x->count; i++)
        CHECK(!finding(&x->runs[i], "upstream"));
    const jl_run_diagnosis *r8 = x ? find(x, "vl_b8") : NULL, *r16 = x ? find(x, "vl_b16") : NULL;
    CHECK(r8 && r16);
    if (r8 && r16) {
        CHECK(finding(r8, "regime"));
        CHECK_CONTAINS(finding(r8, "regime")->message, "low end");
        CHECK(!finding(r8, "raise_batch") && !finding(r8, "fixed_cost"));
        CHECK(strcmp(r8->utilisation_source, "model"));
        CHECK(!finding(r16, "regime"));
        CHECK(finding(r16, "raise_batch") || finding(r16, "batch_plateau"));
        CHECK(r16->group_ceiling > 463);
    }
    jl_diagnosis_free(x);
    jl_summary_list_clear(&l);
}

int main(void)
{
    RUN(bundled_8b_h100);
    RUN(diffusion_runs);
    RUN(regime_run_of_an_mllm_sweep);
    TEST_MAIN_END();
}
