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
#include "test_model_fixtures.h"

#define JOULES JOULES_BINARY_DIR "/joules"

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
    jl_descriptors *d = mx_desc();
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
            /* the physical model (within 1 %: static power is held near the
             * idle power, so power is flat at the smallest batches); the
             * correction may bend it by a residual */
            CHECK(p.model_power_w.value > 0.99 * prev.model_power_w.value);
            CHECK(p.model_energy_per_token_j.value < prev.model_energy_per_token_j.value);
            CHECK(p.energy_per_token_j.value < prev.energy_per_token_j.value);
            CHECK(p.throughput_tok_s.value > prev.throughput_tok_s.value);
            CHECK(p.utilisation > 0 && p.utilisation < 1);
            prev = p;
        }
        if (!strcmp(f->key.model, "synthetic/Qwen3-8B-shape")) {
            /* 9 batch sizes, a dense model: 6 parameters fitted (Ps held
             * near the idle power, tw and ln_bw at 0), intervals exist for
             * the step-time parameters */
            CHECK(f->has_ci && f->dof == 18 - 6);
            CHECK(!strcmp(f->params[JL_MP_PS].status, "held"));
            CHECK(!strcmp(f->params[JL_MP_TW].status, "held"));
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
    snprintf(a, sizeof a,
             "predict --group model=synthetic/Qwen3-8B-shape,gpu_model=H100 --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 0);
    snprintf(a, sizeof a,
             "predict --group model=synthetic/Qwen3-8B-shape,gpu_model=H100 --batch 100000 %s", t);
    CHECK_EQ_INT(run_cli(a), 1); /* beyond the ceiling */
    snprintf(a, sizeof a, "predict --group model=synthetic/Qwen3-8B-shape --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* two groups */
    snprintf(a, sizeof a, "predict --group model=nope --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* no group */
    snprintf(a, sizeof a, "predict --group model --batch 100 %s", t);
    CHECK_EQ_INT(run_cli(a), 2); /* malformed */
    snprintf(a, sizeof a,
             "predict --group model=synthetic/Qwen3-8B-shape,gpu_model=H100 --batch-range 8:1 %s",
             t);
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

typedef struct expect_pi {
    double coverage, half_width; /* of the 95 % prediction intervals */
} expect_pi;

static const expect EXPECTED[] = {
    {"gpqa", 179, 0.0340, 0.1057, 0.0929, 0.2761},
    {"lm-arena-chat", 322, 0.0165, 0.0656, 0.0349, 0.1967},
    {"sourcegraph-fim", 50, 0.0298, 0.1516, 0.0478, 0.2207},
    {"image-chat", 161, 0.0253, 0.1100, 0.0467, 0.3324},
    {"video-chat", 95, 0.0381, 0.1899, 0.0874, 0.4373},
    {"LLM", 551, 0.0219, 0.0870, 0.0525, 0.2268},
    {"MLLM", 256, 0.0283, 0.1537, 0.0647, 0.3419},
    {NULL, 807, 0.0241, 0.0995, 0.0559, 0.2701},
};
/* docs/model-accuracy.md "Prediction intervals", in EXPECTED's order for
 * the five tasks and ALL (1 percentage point of coverage, 0.3 of width) */
static const expect_pi EXPECTED_PI[] = {
    {0.9162, 0.0933}, {0.9814, 0.0798}, {0.9000, 0.0980}, {0.9379, 0.0809},
    {0.8211, 0.1240}, {NAN, NAN},       {NAN, NAN},       {0.9343, 0.0887},
};

/* docs/model-accuracy.md "What if": per transfer kind over all points and
 * the LLM points: n, median, p90, coverage (0.2 pp) */
typedef struct expect_wi {
    jl_transfer k;
    const char *workload;
    size_t n;
    double median, p90, coverage;
} expect_wi;

static const expect_wi EXPECTED_WI[] = {
    {JL_TRANSFER_GPU_COUNT, NULL, 378, 0.0665, 0.2093, 0.939},
    {JL_TRANSFER_GPU_COUNT, "llm", 217, 0.0665, 0.2058, 0.917},
    {JL_TRANSFER_GPU_COUNT, "mllm", 161, 0.0670, 0.2133, 0.969},
    {JL_TRANSFER_GPU_MODEL, NULL, 450, 0.0833, 0.3069, 0.936},
    {JL_TRANSFER_GPU_MODEL, "llm", 313, 0.0785, 0.2510, 0.939},
    {JL_TRANSFER_GPU_MODEL, "mllm", 137, 0.0973, 0.3776, 0.927},
    {JL_TRANSFER_BOTH, NULL, 445, 0.0902, 0.2951, 0.917},
    {JL_TRANSFER_BOTH, "llm", 268, 0.0782, 0.1882, 0.933},
    {JL_TRANSFER_BOTH, "mllm", 177, 0.1268, 0.4240, 0.893},
};

/* Every parameter interval inside its declared range, every prediction
 * interval around its value, power within [0, G x TDP] (the issue's
 * physical bounds), over the fits of gl and their curves. */
static void check_bounds(const jl_model_group_list *gl, const jl_descriptors *d)
{
    jl_group_fit **fits = calloc(gl->count ? gl->count : 1, sizeof *fits);
    CHECK(fits && jl_model_fit_groups(gl, NULL, d, fits, NULL) == JL_OK);
    size_t n_iv = 0;
    for (size_t i = 0; fits && i < gl->count; i++) {
        jl_group_fit *f = fits[i];
        if (!f)
            continue;
        for (int j = 0; f->method == JL_FIT_MODEL && j < JL_MP_COUNT; j++) {
            const jl_param *q = &f->params[j];
            CHECK(q->status != NULL);
            if (!isfinite(q->ci_low))
                continue;
            n_iv++;
            CHECK(q->ci_low >= q->lower - 1e-12 * fabs(q->lower) &&
                  q->ci_high <= q->upper + 1e-12 * fabs(q->upper));
            CHECK(q->ci_low <= q->value * (1 + 1e-12) && q->ci_high >= q->value * (1 - 1e-12));
        }
        double *grid = jl_model_batch_grid(f, 16);
        double pmax = (double)f->key.num_gpus * f->tdp_w;
        for (size_t k = 0; grid && k < 16; k++) {
            jl_prediction p;
            if (jl_model_predict(f, grid[k], &p) != JL_OK || !isfinite(p.power_w.lo))
                continue;
            CHECK(p.power_w.lo >= 0 && p.power_w.lo <= p.power_w.value);
            CHECK(p.power_w.hi >= p.power_w.value);
            if (isfinite(pmax) && p.power_w.value <= pmax)
                CHECK(p.power_w.hi <= pmax * (1 + 1e-12));
            if (isfinite(p.energy_per_token_j.lo)) /* a pooled end has none */
                CHECK(p.energy_per_token_j.lo > 0 &&
                      p.energy_per_token_j.lo <= p.energy_per_token_j.value &&
                      p.energy_per_token_j.hi >= p.energy_per_token_j.value);
        }
        free(grid);
        jl_group_fit_free(f);
    }
    CHECK(n_iv > 0);
    free(fits);
}

TEST(bundled_traces_within_bounds)
{
    const char *paths[] = {JOULES_SOURCE_DIR "/traces"};
    jl_study_options so;
    jl_study_options_default(&so);
    jl_summary_list l = {0};
    jl_error_list errs = {0};
    CHECK(jl_study_load(paths, 1, &so, &l, &errs) == JL_OK);
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    jl_descriptors *d = mx_desc();
    check_bounds(&gl, d);
    jl_descriptors_free(d);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    jl_error_list_clear(&errs);
}

TEST(mlenergy_accuracy)
{
    SKIP_UNLESS_READABLE(MX_V3 "/index.json");
    jl_import_result *imp = NULL;
    jl_error_list errs = {0};
    jl_summary_list l = {0};
    CHECK(mx_import_mlenergy(&imp, &errs, &l) == JL_OK);
    jl_descriptors *d = mx_desc();
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
        if (isfinite(EXPECTED_PI[i].coverage)) {
            CHECK_NEAR(j.coverage, EXPECTED_PI[i].coverage, 0, 0.01);
            CHECK_NEAR(j.median_half_width, EXPECTED_PI[i].half_width, 0, 0.003);
        }
    }
    {
        /* the bars: point accuracy kept, intervals calibrated */
        jl_loo_stats all = jl_loo_summarize(&rj, NULL);
        CHECK(all.median <= 0.025 && all.p90 <= 0.10);
        CHECK(all.coverage >= 0.90 && all.coverage <= 0.98);
        CHECK(all.median_half_width < 0.10);
        for (size_t i = 0; i < rj.count; i++)
            CHECK(rj.points[i].predicted_lo_j <= rj.points[i].predicted_energy_per_token_j &&
                  rj.points[i].predicted_hi_j >= rj.points[i].predicted_energy_per_token_j &&
                  rj.points[i].predicted_lo_j > 0);
    }
    check_bounds(&gl, d);
    jl_whatif_loo wl = {0};
    CHECK(jl_whatif_loo_run(&gl, d, &wl, NULL) == JL_OK);
    for (size_t i = 0; i < sizeof EXPECTED_WI / sizeof *EXPECTED_WI; i++) {
        const expect_wi *e = &EXPECTED_WI[i];
        jl_loo_stats w = jl_whatif_loo_summarize(&wl, e->k, e->workload);
        fprintf(stderr, "  what-if %-9s %-4s n %3zu  %.2f%% / %.2f%%  coverage %.1f%%\n",
                jl_transfer_name(e->k), e->workload ? e->workload : "all", w.n, 100 * w.median,
                100 * w.p90, 100 * w.coverage);
        CHECK_EQ_INT(w.n, e->n);
        CHECK_NEAR(w.median, e->median, 0, 0.002);
        CHECK_NEAR(w.p90, e->p90, 0, 0.002);
        CHECK_NEAR(w.coverage, e->coverage, 0, 0.01);
        CHECK(w.coverage >= 0.85 && w.coverage <= 0.98);
    }
    /* the GPU-count targets of the issue hold on the LLM points */
    jl_loo_stats wc = jl_whatif_loo_summarize(&wl, JL_TRANSFER_GPU_COUNT, "llm");
    CHECK(wc.median <= 0.07 && wc.p90 <= 0.30);
    /* and the GPU-model (H100 <-> B200) targets (7.85 %: a narrow pass, see
     * docs/model-accuracy.md "A fifth round" for what it is worth out of
     * sample) */
    jl_loo_stats wm = jl_whatif_loo_summarize(&wl, JL_TRANSFER_GPU_MODEL, "llm");
    CHECK(wm.p90 <= 0.30 && wm.median <= 0.08);
    /* the held-out group is never its own source: no point predicted
     * exactly; every interval around its value, from the calibration */
    size_t n_ext = 0;
    for (size_t i = 0; i < wl.count; i++) {
        const jl_interval *p = &wl.points[i].predicted;
        CHECK(wl.points[i].abs_rel_error > 1e-9);
        CHECK(p->lo > 0 && p->lo < p->value && p->hi > p->value && isfinite(p->hi));
        /* the thin-evidence rules stay out of the way where held-out
         * transfers of many models calibrate the intervals: only a cap
         * farther out than any held-out point's is widened */
        CHECK(wl.points[i].calibrated >= 40);
        CHECK((wl.points[i].widened & ~(unsigned)JL_WHATIF_WIDE_EXTRAPOLATED) == 0);
        n_ext += (wl.points[i].widened & JL_WHATIF_WIDE_EXTRAPOLATED) != 0;
    }
    fprintf(stderr,
            "  what-if: %zu of %zu intervals widened as extrapolated beyond the "
            "calibration\n",
            n_ext, wl.count);
    jl_whatif_loo_clear(&wl);
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
    RUN(bundled_traces_within_bounds);
    RUN_DATA(mlenergy_accuracy); /* test_model_data_data */
    TEST_MAIN_END();
}
