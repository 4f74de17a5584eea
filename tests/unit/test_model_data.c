/* The batch-size model on real data: the bundled H100 traces (physical
 * parameters, power rising and energy per token falling with batch), the
 * CLI's refusals (exit codes), and the accuracy on the ML.ENERGY data
 * (JOULES_SHARED_DIR/data/mlenergy-v3, imported in memory, never copied):
 * a regression in the leave-one-out numbers of docs/model-accuracy.md fails. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "joules/descriptors.h"
#include "joules/import.h"
#include "joules/model.h"
#include "joules/study.h"
#include "test.h"

#define V3 JOULES_SHARED_DIR "/data/mlenergy-v3"
#define JOULES JOULES_BINARY_DIR "/joules"

static jl_descriptors *desc(void)
{
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    if (jl_descriptors_load(JOULES_SOURCE_DIR "/models", &d, &err) != JL_OK)
        jl_error_free(err);
    return d;
}

TEST(h100_traces_are_physical)
{
    const char *paths[] = {JOULES_SOURCE_DIR "/traces/h100"};
    jl_study_options so;
    jl_study_options_default(&so);
    jl_summary_list l = {0};
    jl_error_list errs = {0};
    CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 2); /* the diffusion sweep is not modelled */
    jl_descriptors *d = desc();
    for (size_t i = 0; i < gl.count; i++) {
        jl_group_fit *f = NULL;
        CHECK(jl_model_fit_group(gl.items[i].runs, gl.items[i].n_runs, NULL, d, &f, NULL) == JL_OK);
        if (!f)
            continue;
        CHECK(f->method == JL_FIT_MODEL);
        /* Ps in the +-15 % box around the measured idle power */
        CHECK(f->params[JL_MP_PS].value >= 0.85 * f->idle_w - 1e-9);
        CHECK(f->params[JL_MP_PS].value <= 1.15 * f->idle_w + 1e-9);
        CHECK(f->params[JL_MP_T0].value > 1e-4 && f->params[JL_MP_T0].value < 0.05);
        CHECK(f->params[JL_MP_G].value > 0.5 && f->params[JL_MP_G].value < 2);
        CHECK(f->params[JL_MP_Q].value > 0.3 && f->params[JL_MP_Q].value < 2);
        CHECK(f->r2_power > 0.95 && f->r2_throughput > 0.99 && f->r2_energy > 0.99);
        CHECK(f->rms_ln_energy < 0.03);
        /* power rises and energy per token falls with batch over the
         * sweep, and stays under TDP where measured */
        jl_prediction prev, p;
        CHECK(jl_model_predict(f, 1, &prev) == JL_OK);
        for (double b = 2; b <= 256; b *= 2) {
            CHECK(jl_model_predict(f, b, &p) == JL_OK);
            /* the physical model; the correction may bend it by a residual */
            CHECK(p.model_power_w.value > prev.model_power_w.value);
            CHECK(p.model_energy_per_token_j.value < prev.model_energy_per_token_j.value);
            CHECK(p.energy_per_token_j.value < prev.energy_per_token_j.value);
            CHECK(p.throughput_tok_s.value > prev.throughput_tok_s.value);
            CHECK(p.utilisation > 0 && p.utilisation < 1);
            prev = p;
        }
        if (!strcmp(f->key.model, "synthetic/Qwen3-8B-shape")) {
            /* 9 batch sizes: intervals exist for the step-time parameters */
            CHECK(f->has_ci && f->dof == 18 - 9);
            CHECK(isfinite(f->params[JL_MP_T0].ci_low) && isfinite(f->params[JL_MP_G].ci_low));
            CHECK(jl_model_predict(f, 100, &p) == JL_OK);
            CHECK(p.energy_per_token_j.lo < p.energy_per_token_j.value);
            CHECK(p.energy_per_token_j.hi / p.energy_per_token_j.lo < 1.2);
        }
        jl_group_fit_free(f);
    }
    jl_descriptors_free(d);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    jl_error_list_clear(&errs);
}

static int run_cli(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", JOULES, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(cli_exit_codes)
{
    /* built with the library by `cmake --build`, before ctest runs */
    CHECK(access(JOULES, X_OK) == 0);
    const char *t = JOULES_SOURCE_DIR "/traces";
    char a[600];
    snprintf(a, sizeof a, "predict --group model=synthetic/Qwen3-8B-shape,gpu_model=H100 --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 0);
    snprintf(a, sizeof a, "predict --group model=synthetic/Qwen3-8B-shape,gpu_model=H100 --batch 100000 %s", t);
    CHECK_EQ_INT(run_cli(a), 1); /* beyond the ceiling */
    snprintf(a, sizeof a, "predict --group model=synthetic/Qwen3-8B-shape --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* two groups */
    snprintf(a, sizeof a, "predict --group model=nope --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* no group */
    snprintf(a, sizeof a, "predict --group model --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* malformed */
    snprintf(a, sizeof a, "predict --group model=synthetic/Qwen3-8B-shape,gpu_model=H100 --batch-range 8:1 %s", t);
    CHECK_EQ_INT(run_cli(a), 2);
    snprintf(a, sizeof a, "fit --anchor %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* --anchor needs --loo */
    snprintf(a, sizeof a, "fit --json --loo %s", t);
    CHECK_EQ_INT(run_cli(a), 0);
}

/* The numbers of docs/model-accuracy.md (joules, default options, descriptor
 * idle ranges). Tolerance: 0.1 percentage point on median and p90 (the
 * fit is deterministic; this allows for libm/GSL differences). */
typedef struct expect {
    const char *task;
    size_t n;
    double median, p90;
    double anchor_median, anchor_p90;
} expect;

static const expect EXPECTED[] = {
    {"gpqa", 179, 0.0346, 0.1046, 0.0929, 0.2761},
    {"lm-arena-chat", 322, 0.0173, 0.0656, 0.0349, 0.1967},
    {"sourcegraph-fim", 50, 0.0290, 0.1514, 0.0478, 0.2207},
    {"image-chat", 161, 0.0255, 0.1086, 0.0467, 0.3324},
    {"video-chat", 95, 0.0398, 0.1865, 0.0874, 0.4373},
    {"LLM", 551, 0.0224, 0.0881, 0.0525, 0.2268},
    {"MLLM", 256, 0.0281, 0.1511, 0.0647, 0.3419},
    {NULL, 807, 0.0244, 0.0995, 0.0559, 0.2701},
};

TEST(mlenergy_accuracy)
{
    SKIP_UNLESS_READABLE(V3 "/index.json");
    jl_import_result *imp = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy(V3, NULL, &imp, &errs) == JL_OK);
    jl_summary_list l = {0};
    for (size_t i = 0; imp && i < imp->n_runs; i++) {
        jl_summary *s = NULL;
        jl_error *err = NULL;
        if (jl_summarize(imp->runs[i], NULL, &s, &err) == JL_OK)
            jl_summary_list_push(&l, s);
        jl_error_free(err);
    }
    jl_descriptors *d = desc();
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 114);
    jl_loo_result rj = {0}, ra = {0};
    CHECK(jl_model_loo(&gl, JL_LOO_JOULES, NULL, d, &rj, NULL) == JL_OK);
    CHECK(jl_model_loo(&gl, JL_LOO_ANCHOR, NULL, d, &ra, NULL) == JL_OK);
    CHECK_EQ_INT(rj.count, 807);
    for (size_t i = 0; i < sizeof EXPECTED / sizeof *EXPECTED; i++) {
        const expect *e = &EXPECTED[i];
        jl_loo_stats j = jl_loo_summarize(&rj, e->task), a = jl_loo_summarize(&ra, e->task);
        fprintf(stderr, "  %-16s n %3zu  joules %.2f%% / %.2f%%  anchor %.2f%% / %.2f%%\n",
                e->task ? e->task : "ALL", j.n, 100 * j.median, 100 * j.p90, 100 * a.median,
                100 * a.p90);
        CHECK_EQ_INT(j.n, e->n);
        CHECK_NEAR(j.median, e->median, 0, 0.001);
        CHECK_NEAR(j.p90, e->p90, 0, 0.001);
        CHECK_NEAR(a.median, e->anchor_median, 0, 0.001);
        CHECK_NEAR(a.p90, e->anchor_p90, 0, 0.001);
        /* never worse than the anchor */
        CHECK(j.median <= a.median && j.p90 <= a.p90);
    }
    jl_loo_result_clear(&rj);
    jl_loo_result_clear(&ra);
    jl_group_list_clear(&gl);
    jl_descriptors_free(d);
    jl_summary_list_clear(&l);
    jl_import_result_free(imp);
    jl_error_list_clear(&errs);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(h100_traces_are_physical);
    RUN(cli_exit_codes);
    RUN_DATA(mlenergy_accuracy); /* test_model_data_data */
    TEST_MAIN_END();
}
