/* The batch-size model on synthetic groups: parameters recovered within
 * their intervals, interpolation fallback, the ceiling refused, LOO
 * bookkeeping, the anchor's grid search, percentile conventions. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/ceiling.h"
#include "joules/descriptors.h"
#include "joules/model.h"
#include "model/model_internal.h"
#include "test.h"

static jl_summary *mk(const char *model, const char *task, long G, long cap, double b, double P,
                      double T)
{
    jl_summary *s = jl_summary_new();
    s->file = jl__strdup("synthetic.h5");
    s->run = jl__asprintf("%s_b%ld_%g", model, cap, b);
    s->attrs.workload = jl__strdup("llm");
    s->attrs.model = jl__strdup(model);
    s->attrs.task = jl__strdup(task);
    s->attrs.gpu_model = jl__strdup("H100");
    s->attrs.precision = jl__strdup("bfloat16");
    s->attrs.num_gpus = G;
    s->attrs.max_batch_size = cap;
    s->fig[JL_FIG_AVG_BATCH_SIZE] = b;
    s->fig[JL_FIG_AVG_POWER_W] = P;
    s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = T;
    s->fig[JL_FIG_ENERGY_PER_TOKEN_J] = P / T;
    s->fig[JL_FIG_AVG_OUTPUT_TOKENS] = 500;
    return s;
}

/* a dense 8B-like model on one H100 */
static const double TRUTH[JM_NP] = {
    100.0, 2.0,    0.05,
    0.9,   0.006,  1.5e-4,
    1.1,   0.0005, 2.772588722239781}; /* ln 16, spelt out: clang wants a constant */

static double noise(unsigned *state)
{
    /* deterministic, uniform in [-1, 1] */
    *state = *state * 1103515245u + 12345u;
    return ((double)((*state >> 8) & 0xffff) / 32767.5) - 1.0;
}

static void make_sweep(jl_summary_list *l, const char *model, double rel_noise, size_t n_caps)
{
    unsigned st = 42;
    for (size_t i = 0; i < n_caps; i++) {
        long cap = 1L << i;
        double b = (double)cap * 0.97, lP, lT;
        jl__model_eval(TRUTH, b, 1.0, &lP, &lT, NULL, NULL);
        jl_summary_list_push(l, mk(model, "chat", 1, cap, b, exp(lP) * (1 + rel_noise * noise(&st)),
                                   exp(lT) * (1 + rel_noise * noise(&st))));
    }
}

static jl_descriptors *desc(void)
{
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    if (jl_descriptors_load(JOULES_SOURCE_DIR "/models", &d, &err) != JL_OK)
        jl_error_free(err);
    return d;
}

TEST(recovers_parameters_within_intervals)
{
    jl_summary_list l = {0};
    make_sweep(&l, "synthetic/dense", 0.01, 10);
    jl_descriptors *d = desc();
    jl_group_fit *f = NULL;
    jl_error *err = NULL;
    CHECK(jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, d, &f, &err) ==
          JL_OK);
    CHECK(f && f->method == JL_FIT_MODEL);
    if (!f)
        goto end;
    CHECK_EQ_INT(f->n_points, 10);
    CHECK(f->has_ci);
    CHECK(f->dof > 0);
    CHECK(isfinite(f->t_quantile) && f->t_quantile > 1.96);
    /* the identified parameters have intervals and the truth is inside */
    int with_ci = 0;
    for (int j = 0; j < JL_MP_COUNT; j++) {
        const jl_param *q = &f->params[j];
        if (!isfinite(q->ci_low))
            continue;
        with_ci++;
        if (!(q->ci_low <= TRUTH[j] && TRUTH[j] <= q->ci_high))
            fprintf(stderr, "  %s = %g, CI [%g, %g], truth %g\n", q->name, q->value, q->ci_low,
                    q->ci_high, TRUTH[j]);
        CHECK(q->ci_low <= TRUTH[j] && TRUTH[j] <= q->ci_high);
    }
    CHECK(with_ci >= 4);
    /* the step-time floor and exponent are well determined */
    CHECK(isfinite(f->params[JL_MP_T0].ci_low));
    CHECK(isfinite(f->params[JL_MP_G].ci_low));
    CHECK(f->r2_energy > 0.999);
    CHECK(f->rms_ln_energy < 0.02);
    /* predictions against the noise-free truth, and inside their band */
    for (double b = 1.5; b < 500; b *= 3) {
        jl_prediction p;
        double lP, lT;
        jl__model_eval(TRUTH, b, 1.0, &lP, &lT, NULL, NULL);
        CHECK(jl_model_predict(f, b, &p) == JL_OK);
        CHECK_NEAR(p.energy_per_token_j.value, exp(lP - lT), 0.03, 0);
        CHECK_NEAR(p.power_w.value, exp(lP), 0.03, 0);
        CHECK_NEAR(p.step_time_s.value, b / exp(lT), 0.03, 0);
        CHECK(p.energy_per_token_j.lo < p.energy_per_token_j.value &&
              p.energy_per_token_j.value < p.energy_per_token_j.hi);
        CHECK(p.model_power_w.lo <= p.model_power_w.value);
        CHECK_NEAR(p.static_power_w + p.dynamic_power_w, p.power_w.value, 1e-12, 0);
        CHECK(p.utilisation > 0 && p.utilisation < 1.05);
        CHECK(!p.extrapolated);
    }
    /* the correction is a factor on the physical model */
    jl_prediction p;
    jl_model_predict(f, 20, &p);
    CHECK_NEAR(p.energy_per_token_j.value, p.model_energy_per_token_j.value * p.correction_energy,
               1e-12, 0);
    CHECK_NEAR(p.energy_per_token_j.value, p.power_w.value / p.throughput_tok_s.value, 1e-12, 0);
end:
    jl_group_fit_free(f);
    jl_descriptors_free(d);
    jl_summary_list_clear(&l);
}

TEST(no_intervals_when_dof_not_positive)
{
    jl_summary_list l = {0};
    make_sweep(&l, "synthetic/dense", 0.01, 4); /* 8 residuals, 9 parameters */
    jl_group_fit *f = NULL;
    CHECK(jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, NULL, &f, NULL) ==
          JL_OK);
    CHECK(f && f->method == JL_FIT_MODEL);
    if (f) {
        CHECK(!f->has_ci || f->dof > 0);
        if (f->dof <= 0) {
            CHECK(!f->has_ci);
            CHECK_CONTAINS(f->ci_note, "insufficient data");
            CHECK(isnan(f->t_quantile));
            for (int j = 0; j < JL_MP_COUNT; j++)
                CHECK(isnan(f->params[j].ci_low));
            jl_prediction p;
            CHECK(jl_model_predict(f, 3, &p) == JL_OK);
            CHECK(isfinite(p.energy_per_token_j.value));
            CHECK(isnan(p.energy_per_token_j.lo) && isnan(p.energy_per_token_j.hi));
        }
    }
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
}

TEST(interpolation_fallback)
{
    jl_summary_list l = {0};
    jl_summary_list_push(&l, mk("m", "t", 1, 8, 8, 300, 800));
    jl_summary_list_push(&l, mk("m", "t", 1, 32, 32, 400, 2400));
    jl_summary_list_push(&l, mk("m", "t", 1, 128, 120, 500, 4000));
    jl_group_fit *f = NULL;
    CHECK(jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, NULL, &f, NULL) ==
          JL_OK);
    CHECK(f && f->method == JL_FIT_INTERPOLATION);
    if (f) {
        CHECK_STR(jl_fit_method_name(f->method), "interpolation");
        CHECK_CONTAINS(f->note, "3 distinct batch sizes");
        jl_prediction p;
        CHECK(jl_model_predict(f, 32, &p) == JL_OK);
        CHECK_NEAR(p.power_w.value, 400, 1e-12, 0);
        CHECK_NEAR(p.energy_per_token_j.value, 400.0 / 2400, 1e-12, 0);
        CHECK(isnan(p.energy_per_token_j.lo));
        /* geometric midpoint in ln b: geometric mean of the values */
        CHECK(jl_model_predict(f, 16, &p) == JL_OK);
        CHECK_NEAR(p.power_w.value, sqrt(300.0 * 400.0), 1e-12, 0);
        CHECK_NEAR(p.throughput_tok_s.value, sqrt(800.0 * 2400.0), 1e-12, 0);
        /* extrapolation continues the end segment */
        CHECK(jl_model_predict(f, 4, &p) == JL_OK);
        CHECK(p.extrapolated);
        CHECK_NEAR(p.power_w.value, 300.0 * sqrt(300.0 / 400.0), 1e-12,
                   0); /* half the 8..32 segment */
    }
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
    /* one point: constant */
    jl_summary_list_push(&l, mk("m", "t", 1, 8, 8, 300, 800));
    CHECK(jl_model_fit_group((const jl_summary *const *)l.items, 1, NULL, NULL, &f, NULL) == JL_OK);
    if (f) {
        jl_prediction p;
        CHECK(jl_model_predict(f, 9, &p) == JL_OK);
        CHECK_NEAR(p.power_w.value, 300, 1e-12, 0);
    }
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
}

TEST(refuses_beyond_ceiling)
{
    jl_summary_list l = {0};
    make_sweep(&l, "synthetic/dense", 0.01, 6); /* largest batch 31.04 */
    jl_group_fit *f = NULL;
    jl_error *err = NULL;
    jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, NULL, &f, NULL);
    CHECK(f != NULL);
    if (f) {
        CHECK_NEAR(f->batch_ceiling, 2 * 32 * 0.97, 1e-12, 0);
        CHECK_CONTAINS(f->ceiling_reason, "extrapolation");
        CHECK(jl_model_check_batch(f, 50, NULL) == JL_OK);
        CHECK(jl_model_check_batch(f, 70, &err) == JL_ELIMIT);
        CHECK(err && strstr(err->message, "ceiling") && strstr(err->message, "extrapolation"));
        jl_error_free(err);
        err = NULL;
        CHECK(jl_model_check_batch(f, -1, &err) == JL_EUSAGE);
        jl_error_free(err);
        jl_prediction p;
        CHECK(jl_model_predict(f, 70, &p) == JL_OK);
        CHECK(p.beyond_ceiling && p.extrapolated);
        CHECK(jl_model_predict(f, NAN, &p) == JL_EUSAGE);
    }
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
}

TEST(memory_ceiling_from_descriptors)
{
    jl_descriptors *d = desc();
    jl_summary_list l = {0};
    for (int i = 0; i < 4; i++) {
        jl_summary *s = mk("Qwen/Qwen3-8B", "chat", 1, 8L << i, 8 << i, 300 + 50 * i, 1000 << i);
        s->fig[JL_FIG_AVG_OUTPUT_TOKENS] = 8000;
        jl_summary_list_push(&l, s);
    }
    jl_group_fit *f = NULL;
    jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, d, &f, NULL);
    CHECK(f != NULL);
    if (f && d) {
        /* the group ceiling of joules/ceiling.h (diagnose's), used as is */
        jl_group_ceiling gc;
        CHECK(jl_group_ceiling_compute((const jl_summary *const *)l.items, l.count, d, NULL, &gc) ==
              JL_OK);
        CHECK(isfinite(gc.memory));
        CHECK_NEAR(f->memory_ceiling, gc.memory, 1e-12, 0);
        if (gc.memory >= 64 && gc.memory < 128) {
            CHECK_NEAR(f->batch_ceiling, gc.memory, 1e-12, 0);
            CHECK_CONTAINS(f->ceiling_reason, "memory");
        } else {
            CHECK(f->batch_ceiling <= 128);
        }
        jl_group_ceiling_clear(&gc);
    }
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
    jl_descriptors_free(d);
}

TEST(groups_and_loo_bookkeeping)
{
    jl_summary_list l = {0};
    make_sweep(&l, "synthetic/a", 0.01, 4); /* 4 caps: evaluated */
    /* a re-measurement at cap 2: kept, scored on its own */
    jl_summary_list_push(&l, mk("synthetic/a", "chat", 1, 2, 1.9, 455, 300));
    make_sweep(&l, "synthetic/b", 0.01, 3); /* 3 caps: not evaluated */
    jl_summary *diff = mk("synthetic/c", "chat", 1, 4, 4, 300, 100);
    free(diff->attrs.workload);
    diff->attrs.workload = jl__strdup("diffusion");
    jl_summary_list_push(&l, diff); /* not modelled */
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 2);
    if (gl.count == 2) {
        CHECK_STR(gl.items[0].key.model, "synthetic/a");
        CHECK_EQ_INT(gl.items[0].n_runs, 5);
        CHECK_EQ_INT(gl.items[0].n_batch_sizes, 4);
        CHECK_EQ_INT(gl.items[1].n_batch_sizes, 3);
        char *k = jl_group_key_format(&gl.items[0].key);
        CHECK_STR(k, "model=synthetic/a,task=chat,gpu_model=H100,num_gpus=1,precision=bfloat16");
        free(k);
    }
    for (int which = 0; which < 2; which++) {
        jl_loo_result r = {0};
        CHECK(jl_model_loo(&gl, which ? JL_LOO_ANCHOR : JL_LOO_JOULES, NULL, NULL, &r, NULL) ==
              JL_OK);
        CHECK_EQ_INT(r.count, 5);
        int n_cap2 = 0;
        for (size_t i = 0; i < r.count; i++) {
            const jl_loo_point *p = &r.points[i];
            CHECK_STR(p->run->attrs.model, "synthetic/a");
            CHECK_EQ_INT(p->max_batch_size, p->run->attrs.max_batch_size);
            CHECK(isfinite(p->predicted_energy_per_token_j));
            CHECK_NEAR(p->abs_rel_error,
                       fabs(p->predicted_energy_per_token_j - p->actual_energy_per_token_j) /
                           p->actual_energy_per_token_j,
                       1e-12, 0);
            CHECK_EQ_INT(p->position,
                         p->max_batch_size == 1 ? -1 : (p->max_batch_size == 8 ? 1 : 0));
            n_cap2 += p->max_batch_size == 2;
        }
        CHECK_EQ_INT(n_cap2, 2);
        /* both rows at cap 2 were predicted from the same refit (without either) */
        for (size_t i = 0; i + 1 < r.count; i++)
            if (r.points[i].max_batch_size == 2 && r.points[i + 1].max_batch_size == 2 && which)
                CHECK_NEAR(r.points[i].predicted_energy_per_token_j,
                           r.points[i + 1].predicted_energy_per_token_j, 1e-15, 0);
        jl_loo_stats s = jl_loo_summarize(&r, "chat");
        CHECK_EQ_INT(s.n, 5);
        CHECK_EQ_INT(jl_loo_summarize(&r, "LLM").n, 5);
        CHECK_EQ_INT(jl_loo_summarize(&r, "MLLM").n, 0);
        CHECK(isnan(jl_loo_summarize(&r, "other").median));
        jl_loo_result_clear(&r);
    }
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
}

TEST(percentiles_like_numpy)
{
    jl_summary *s = mk("m", "t", 1, 1, 1, 1, 1);
    jl_loo_point pts[5];
    double v[5] = {0.05, 0.01, 0.04, 0.02, 0.03};
    for (int i = 0; i < 5; i++) {
        memset(&pts[i], 0, sizeof pts[i]);
        pts[i].run = s;
        pts[i].abs_rel_error = v[i];
    }
    jl_loo_result r = {pts, 5};
    jl_loo_stats st = jl_loo_summarize(&r, NULL);
    CHECK_NEAR(st.median, 0.03, 1e-15, 0);
    CHECK_NEAR(st.p90, 0.046, 1e-15, 0); /* numpy.percentile(v, 90) */
    CHECK_NEAR(st.max, 0.05, 0, 0);
    r.count = 4;
    st = jl_loo_summarize(&r, NULL);
    CHECK_NEAR(st.median, 0.03, 1e-15, 0);
    CHECK_NEAR(st.p90, 0.047, 1e-15, 0);
    jl_summary_free(s);
}

TEST(anchor_grid_search)
{
    /* exact logistic on a grid point: recovered exactly */
    double x[10], y[10];
    double x0 = -1.0 + 11.0 * 20 / 39.0, k = pow(10.0, -2.0 + 4.0 * 40 / 59.0);
    for (int i = 0; i < 10; i++) {
        x[i] = i;
        y[i] = 3.0 + 5.0 / (1.0 + exp(-k * (x[i] - x0)));
    }
    jl_logistic m = jl_logistic_fit(x, y, 10);
    CHECK_NEAR(m.x0, x0, 1e-12, 1e-12);
    CHECK_NEAR(m.k, k, 1e-12, 0);
    CHECK_NEAR(m.L, 5.0, 1e-9, 0);
    CHECK_NEAR(m.b0, 3.0, 1e-9, 0);
    CHECK_NEAR(jl_logistic_eval(&m, 4.2), 3.0 + 5.0 / (1.0 + exp(-k * (4.2 - x0))), 1e-9, 0);
    /* constant y and one point: L = 0, b0 = mean */
    double yc[3] = {2, 2, 2};
    m = jl_logistic_fit(x, yc, 3);
    CHECK_NEAR(m.L, 0, 0, 0);
    CHECK_NEAR(m.b0, 2, 0, 0);
    m = jl_logistic_fit(x, y, 1);
    CHECK_NEAR(jl_logistic_eval(&m, 7), y[0], 1e-15, 0);
}

TEST(json_document_pieces)
{
    jl_summary_list l = {0};
    make_sweep(&l, "synthetic/dense", 0.01, 8);
    jl_group_fit *f = NULL;
    jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, NULL, &f, NULL);
    double *grid = f ? jl_model_batch_grid(f, 5) : NULL;
    CHECK(grid != NULL);
    if (grid) {
        CHECK_NEAR(grid[4], f->batch_ceiling, 1e-12, 0);
        json_t *o = jl_group_fit_to_json(f, grid, 5);
        CHECK(o != NULL);
        CHECK_STR(json_string_value(json_object_get(o, "method")), "model");
        CHECK_EQ_INT(json_array_size(json_object_get(o, "curve")), 5);
        CHECK_EQ_INT(json_array_size(json_object_get(o, "points")), 8);
        json_t *pm = json_object_get(o, "physical_model");
        CHECK_EQ_INT(json_array_size(json_object_get(pm, "parameters")), JL_MP_COUNT);
        CHECK(json_object_get(json_object_get(o, "correction"), "applied") == json_true());
        json_t *c0 = json_array_get(json_object_get(o, "curve"), 0);
        CHECK(json_object_get(json_object_get(c0, "physical_model"), "energy_per_token_j"));
        CHECK(json_object_get(c0, "correction_factor"));
        json_decref(o);
    }
    free(grid);
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
}

/* The regime-break rule on hand-made sweeps: throughput falling by more
 * than the ratio from the smallest batch to one at least twice as large
 * (upstream limit) drops the smallest batch; the same at the largest batch
 * (past the memory ceiling) drops the largest; a small dip (noise) or too
 * few remaining batches drops nothing. */
TEST(regime_breaks_at_sweep_ends)
{
    const double b[6] = {8, 16, 32, 64, 128, 256};
    int keep[6];
    /* CPU-preprocessing case: T(8) = 1119, T(16) = 448 */
    const double up[6] = {1119, 448, 759, 1273, 1400, 1933};
    CHECK_EQ_INT(jl__model_regime_keep(b, up, 6, 0.85, keep), 5);
    CHECK(!keep[0] && keep[1] && keep[5]);
    /* memory collapse at the top: T(256) < 0.85 T(128) */
    const double mem[6] = {100, 190, 360, 650, 1100, 800};
    CHECK_EQ_INT(jl__model_regime_keep(b, mem, 6, 0.85, keep), 5);
    CHECK(keep[0] && !keep[5]);
    /* a 10 % dip is within noise */
    const double dip[6] = {100, 190, 360, 650, 1100, 1000};
    CHECK_EQ_INT(jl__model_regime_keep(b, dip, 6, 0.85, keep), 6);
    /* off */
    CHECK_EQ_INT(jl__model_regime_keep(b, up, 6, 0.0, keep), 6);
    /* both ends of a 4-point sweep would leave 2 batches: nothing dropped */
    const double both[4] = {1000, 300, 600, 400};
    CHECK_EQ_INT(jl__model_regime_keep(b, both, 4, 0.85, keep), 4);
}

/* Sweep ends pooled across the same model's sweeps (loo.c pooled_end):
 * with weight 1 the held-out lowest cap of sweep A is predicted exactly as
 * ln e_A(a) + s_B (ln b_A(c) - ln b_A(a)), s_B the elasticity of sweep B
 * (same model, 2 GPUs) between the same two caps; interior points are not
 * touched; weight 0 gives the model's own prediction. */
TEST(pooled_sweep_ends)
{
    jl_summary_list l = {0};
    unsigned st = 7;
    double eA[6], bA[6], eB[6], bB[6];
    for (int g = 1; g <= 2; g++)
        for (int i = 0; i < 6; i++) {
            long cap = 1L << (i + 1);
            double b = (double)cap * (g == 1 ? 0.97 : 0.95), lP, lT;
            jl__model_eval(TRUTH, b, (double)g, &lP, &lT, NULL, NULL);
            double P = exp(lP) * (1 + 0.02 * noise(&st)), T = exp(lT) * (1 + 0.02 * noise(&st));
            (g == 1 ? eA : eB)[i] = log(P / T);
            (g == 1 ? bA : bB)[i] = log(b);
            jl_summary_list_push(&l, mk("synthetic/p", "chat", g, cap, b, P, T));
        }
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 2);
    jl_model_options o0, o1;
    jl_model_options_default(&o0);
    jl_model_options_default(&o1);
    o0.pool_weight = 0;
    o1.pool_weight = 1;
    jl_loo_result r0 = {0}, r1 = {0};
    CHECK(jl_model_loo(&gl, JL_LOO_JOULES, &o0, NULL, &r0, NULL) == JL_OK);
    CHECK(jl_model_loo(&gl, JL_LOO_JOULES, &o1, NULL, &r1, NULL) == JL_OK);
    CHECK_EQ_INT(r0.count, 12);
    CHECK_EQ_INT(r1.count, 12);
    for (size_t i = 0; i < r0.count && i < r1.count; i++) {
        const jl_loo_point *p0 = &r0.points[i], *p1 = &r1.points[i];
        CHECK(p0->run == p1->run);
        if (p0->position == 0)
            CHECK_NEAR(p1->predicted_energy_per_token_j, p0->predicted_energy_per_token_j, 0,
                       1e-12);
        if (p1->run->attrs.num_gpus == 1 && p1->position == -1) {
            double sB = (eB[0] - eB[1]) / (bB[0] - bB[1]);
            CHECK_NEAR(log(p1->predicted_energy_per_token_j), eA[1] + sB * (bA[0] - bA[1]), 1e-9,
                       0);
        }
        if (p1->run->attrs.num_gpus == 1 && p1->position == 1) {
            double sB = (eB[5] - eB[4]) / (bB[5] - bB[4]);
            CHECK_NEAR(log(p1->predicted_energy_per_token_j), eA[4] + sB * (bA[5] - bA[4]), 1e-9,
                       0);
        }
    }
    jl_loo_result_clear(&r0);
    jl_loo_result_clear(&r1);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
}

/* joules predict uses the predictor the leave-one-out scores
 * (jl_model_fit_pool + jl_model_predict): sweep A (caps 2..64, 1 GPU) and
 * B (same model, caps 1..128, 2 GPUs).
 *  - past A's measured range, at cap 128, energy per token is pooled:
 *    0.3 ln e_model+GP + 0.7 (ln e_A(64) + s_B(64->128) (ln b - ln b_A(64))),
 *    without interval; power and throughput stay the model's;
 *  - an interior batch, a group without siblings, or --pool 0: unchanged;
 *  - a fit of A without cap 64, pooled with B, predicts A's cap-64 run
 *    exactly as the leave-one-out does. */
static void sweep_ab(jl_summary_list *l, int a_top, double *eA, double *bA, double *eB, double *bB)
{
    unsigned st = 11;
    for (int g = 1; g <= 2; g++)
        for (int i = g == 1 ? 1 : 0; i < (g == 1 ? 7 : 8); i++) {
            long cap = 1L << i;
            double b = (double)cap * (g == 1 ? 0.97 : 0.95), lP, lT;
            jl__model_eval(TRUTH, b, (double)g, &lP, &lT, NULL, NULL);
            double P = exp(lP) * (1 + 0.02 * noise(&st)), T = exp(lT) * (1 + 0.02 * noise(&st));
            (g == 1 ? eA : eB)[i] = log(P / T);
            (g == 1 ? bA : bB)[i] = log(b);
            if (g == 2 || i < a_top) /* the same draws whatever a_top */
                jl_summary_list_push(l, mk("synthetic/p", "chat", g, cap, b, P, T));
        }
}

TEST(predict_pools_sweep_ends)
{
    jl_summary_list l = {0};
    double eA[8], bA[8], eB[8], bB[8];
    sweep_ab(&l, 7, eA, bA, eB, bB);
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 2);
    jl_model_options o;
    jl_model_options_default(&o);
    jl_group_fit *fits[2] = {NULL, NULL}, *bare = NULL;
    CHECK(jl_model_fit_groups(&gl, &o, NULL, fits, NULL) == JL_OK);
    CHECK(jl_model_fit_group(gl.items[0].runs, gl.items[0].n_runs, &o, NULL, &bare, NULL) == JL_OK);
    jl_group_fit *fA = fits[0];
    CHECK(fA && bare && fA->key.num_gpus == 1 && fA->method == JL_FIT_MODEL);
    if (fA && bare) {
        CHECK_EQ_INT(fA->pool_n_siblings, 1);
        jl_prediction p, q;
        /* past the top: cap 128 of A */
        double b = 128 * fA->batch_per_cap;
        CHECK(jl_model_predict(fA, b, &p) == JL_OK);
        CHECK(jl_model_predict(bare, b, &q) == JL_OK);
        CHECK(p.method == JL_FIT_POOLED && q.method == JL_FIT_MODEL);
        CHECK_STR(jl_fit_method_name(p.method), "pooled");
        CHECK_EQ_INT(p.pool_anchor_cap, 64);
        CHECK_EQ_INT(p.pool_target_cap, 128);
        CHECK(!p.pool_interpolated && p.pool_siblings == 1);
        double sB = (eB[7] - eB[6]) / (bB[7] - bB[6]);
        double pooled = eA[6] + sB * (log(b) - bA[6]);
        CHECK_NEAR(log(p.pooled_energy_per_token_j), pooled, 1e-9, 0);
        CHECK_NEAR(log(p.energy_per_token_j.value),
                   0.3 * log(q.energy_per_token_j.value) + 0.7 * pooled, 1e-9, 0);
        CHECK(fabs(p.energy_per_token_j.value / q.energy_per_token_j.value - 1) > 1e-4);
        CHECK(isnan(p.energy_per_token_j.lo) && isnan(p.energy_per_token_j.hi));
        CHECK_NEAR(p.power_w.value, q.power_w.value, 0, 1e-12);
        CHECK_NEAR(p.throughput_tok_s.value, q.throughput_tok_s.value, 0, 1e-12);
        json_t *js = jl_prediction_to_json(&p);
        CHECK_STR(json_string_value(json_object_get(js, "method")), "pooled");
        CHECK(json_is_object(json_object_get(js, "pooled")));
        json_decref(js);
        /* below the bottom: cap 1 of A (B measured it) */
        b = 1 * fA->batch_per_cap;
        CHECK(jl_model_predict(fA, b, &p) == JL_OK);
        CHECK(p.method == JL_FIT_POOLED && p.pool_anchor_cap == 2 && p.pool_target_cap == 1);
        /* interior: untouched */
        CHECK(jl_model_predict(fA, 10, &p) == JL_OK);
        CHECK(jl_model_predict(bare, 10, &q) == JL_OK);
        CHECK(p.method == JL_FIT_MODEL && !p.pool_siblings);
        CHECK_NEAR(p.energy_per_token_j.value, q.energy_per_token_j.value, 0, 1e-15);
        CHECK_NEAR(p.energy_per_token_j.lo, q.energy_per_token_j.lo, 0, 1e-15);
        json_t *jq = jl_prediction_to_json(&p);
        CHECK(json_is_null(json_object_get(jq, "pooled")));
        json_decref(jq);
        /* no sibling sweep (bare), and weight 0: the model alone */
        CHECK(jl_model_predict(bare, 128 * fA->batch_per_cap, &q) == JL_OK);
        CHECK(q.method == JL_FIT_MODEL);
        jl_model_options o0 = o;
        o0.pool_weight = 0;
        CHECK(jl_model_fit_pool(bare, &gl, 0, &o0) == JL_OK);
        CHECK_EQ_INT(bare->pool_n_siblings, 0);
    }
    jl_group_fit_free(fits[0]);
    jl_group_fit_free(fits[1]);
    jl_group_fit_free(bare);

    /* the same predictor as the leave-one-out: hold out A's cap 64 */
    jl_loo_result r = {0};
    CHECK(jl_model_loo(&gl, JL_LOO_JOULES, &o, NULL, &r, NULL) == JL_OK);
    double loo64 = NAN, b64 = NAN;
    for (size_t i = 0; i < r.count; i++)
        if (r.points[i].run->attrs.num_gpus == 1 && r.points[i].max_batch_size == 64) {
            loo64 = r.points[i].predicted_energy_per_token_j;
            b64 = r.points[i].batch;
        }
    jl_loo_result_clear(&r);
    jl_summary_list l2 = {0};
    sweep_ab(&l2, 6, eA, bA, eB, bB); /* A without cap 64, same draws */
    jl_model_group_list gl2 = {0};
    CHECK(jl_model_groups(&l2, &gl2, NULL) == JL_OK);
    jl_group_fit *fits2[2] = {NULL, NULL};
    CHECK(gl2.count == 2 && jl_model_fit_groups(&gl2, &o, NULL, fits2, NULL) == JL_OK);
    if (fits2[0]) {
        jl_prediction p;
        CHECK(jl_model_predict(fits2[0], b64, &p) == JL_OK);
        CHECK(p.method == JL_FIT_POOLED);
        CHECK_NEAR(p.energy_per_token_j.value, loo64, 0, 1e-9);
    }
    jl_group_fit_free(fits2[0]);
    jl_group_fit_free(fits2[1]);
    jl_group_list_clear(&gl2);
    jl_summary_list_clear(&l2);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
}

/* The ceiling agrees with the regime rule (hand-made from Qwen3-VL-8B
 * image-chat on 1xB200): the cap-8 run the fit leaves out sets no upstream
 * ceiling, so batches between the measured ones are predicted (before: all
 * refused above 7.86); a high end in another regime (throughput halves at
 * the top) caps predictions at the largest batch of the fitted regime. */
TEST(ceiling_agrees_with_regime_rule)
{
    jl_summary_list l = {0};
    const double caps[] = {8, 16, 32, 64, 128, 256, 512};
    const double bb[] = {7.86, 15.9, 31.9, 63.7, 127.6, 255.3, 463.2};
    const double tt[] = {1119, 448, 759, 1273, 1399, 1933, 2301};
    const double pw[] = {513, 283, 291, 311, 290, 325, 325};
    for (int i = 0; i < 7; i++)
        jl_summary_list_push(&l, mk("synthetic/vl", "image-chat", 1, (long)caps[i], bb[i], pw[i],
                                    tt[i]));
    jl_group_fit *f = NULL;
    jl_error *err = NULL;
    CHECK(jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, NULL, &f, NULL) ==
          JL_OK);
    CHECK(f && f->method == JL_FIT_MODEL);
    if (f) {
        CHECK(f->points[0].regime_excluded);
        CHECK(f->batch_ceiling >= 463.2);
        CHECK(jl_model_check_batch(f, 100, &err) == JL_OK);
        CHECK(jl_model_check_batch(f, 463, &err) == JL_OK);
        CHECK(!strstr(f->ceiling_reason, "upstream ceiling ~"));
    }
    jl_group_fit_free(f);
    /* the high end of another regime: throughput at 463 a quarter of the
     * smooth curve, below 0.85 x that at 127.6 */
    for (int i = 0; i < 7; i++) {
        l.items[i]->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = 150 * pow(bb[i], 0.8);
        l.items[i]->fig[JL_FIG_AVG_POWER_W] = 300 + 0.3 * bb[i];
    }
    l.items[6]->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] *= 0.25;
    l.items[6]->fig[JL_FIG_AVG_POWER_W] *= 0.8;
    f = NULL;
    CHECK(jl_model_fit_group((const jl_summary *const *)l.items, l.count, NULL, NULL, &f, NULL) ==
          JL_OK);
    CHECK(f && f->method == JL_FIT_MODEL);
    if (f) {
        CHECK(f->points[6].regime_excluded && !f->points[5].regime_excluded);
        CHECK_NEAR(f->batch_ceiling, 255.3, 0, 0);
        CHECK(!strncmp(f->ceiling_reason, "regime: at batch 463.2 (cap 512)", 32));
        CHECK(jl_model_check_batch(f, 300, &err) == JL_ELIMIT);
        jl_error_free(err);
        err = NULL;
    }
    jl_group_fit_free(f);
    jl_summary_list_clear(&l);
}

/* A dense model of the descriptors, 5 batch sizes: Ps held near the idle
 * power, tw and ln_bw held at 0, 6 parameters fitted (dof 4); every
 * interval inside its declared range, an unidentified parameter without
 * one; and with nothing held, still nothing out of bounds. */
TEST(holds_and_bounds)
{
    jl_descriptors *d = desc();
    static const double truth[JM_NP] = {120.0, 2.0, 0.05, 0.9, 0.006, 1.5e-4, 1.1, 0, 0};
    jl_summary_list l = {0};
    unsigned st = 7;
    for (size_t i = 0; i < 5; i++) {
        long cap = 1L << (2 * i);
        double b = (double)cap, lP, lT;
        jl__model_eval(truth, b, 1.0, &lP, &lT, NULL, NULL);
        jl_summary_list_push(&l, mk("Qwen/Qwen3-8B", "chat", 1, cap, b,
                                    exp(lP) * (1 + 0.01 * noise(&st)),
                                    exp(lT) * (1 + 0.01 * noise(&st))));
    }
    for (int hold = 1; hold >= 0; hold--) {
        jl_model_options o;
        jl_model_options_default(&o);
        o.hold_params = hold;
        jl_group_fit *f = NULL;
        CHECK(jl_model_fit_group((const jl_summary *const *)l.items, l.count, &o, d, &f, NULL) ==
              JL_OK);
        if (!f)
            continue;
        CHECK(f->method == JL_FIT_MODEL);
        if (hold) {
            CHECK(!strcmp(f->params[JL_MP_PS].status, "held"));
            CHECK(!strcmp(f->params[JL_MP_TW].status, "held") && f->params[JL_MP_TW].value == 0);
            CHECK(!strcmp(f->params[JL_MP_LN_BW].status, "held"));
            CHECK_EQ_INT(f->dof, 10 - 6);
            /* Ps stays near the idle power (120 W for H100 in models/) */
            CHECK(fabs(f->params[JL_MP_PS].value / 120.0 - 1) < 0.25);
            CHECK(f->params[JL_MP_PS].basis && strstr(f->params[JL_MP_PS].basis, "idle"));
        }
        int fitted = 0;
        for (int j = 0; j < JL_MP_COUNT; j++) {
            const jl_param *q = &f->params[j];
            CHECK(q->status != NULL && q->basis != NULL);
            if (!strcmp(q->status, "not_identified") || !strcmp(q->status, "at_bound"))
                CHECK(!isfinite(q->ci_low) && !isfinite(q->ci_high));
            if (!strcmp(q->status, "fitted")) {
                fitted++;
                CHECK(isfinite(q->ci_low) && isfinite(q->ci_high));
            }
            if (isfinite(q->ci_low)) {
                CHECK(q->ci_low >= q->lower && q->ci_high <= q->upper);
                CHECK(q->ci_low <= q->value && q->value <= q->ci_high);
            }
        }
        CHECK(fitted >= 3);
        /* predictions: power within [0, G x TDP], bands around the value */
        for (double b = 1; b <= 512; b *= 2) {
            jl_prediction p;
            CHECK(jl_model_predict(f, b, &p) == JL_OK);
            CHECK(p.power_w.lo > 0 && p.power_w.lo <= p.power_w.value &&
                  p.power_w.value <= p.power_w.hi);
            /* one new run's interval, around the prediction, at least the
             * noise floor wide */
            CHECK(p.energy_per_token_pi_lo_j < p.energy_per_token_j.value &&
                  p.energy_per_token_j.value < p.energy_per_token_pi_hi_j);
            CHECK(p.energy_per_token_pi_hi_j / p.energy_per_token_j.value >=
                  exp(1.96 * 0.035) - 1e-9);
            if (p.power_w.value <= f->tdp_w)
                CHECK(p.power_w.hi <= f->tdp_w);
        }
        jl_group_fit_free(f);
    }
    jl_descriptors_free(d);
    jl_summary_list_clear(&l);
}

/* What if: four models measured on 1 and 2 GPUs, the 2-GPU configuration
 * costing 1.2 x the energy per token (1.9 x the power, 0.63 x the step
 * time) at every cap; the factor is learned from the other three and
 * recovered for the fourth; its own 2-GPU group is never a source. */
TEST(whatif_recovers_a_cross_model_factor)
{
    static const char *const models[] = {"synthetic/wa", "synthetic/wb", "synthetic/wc",
                                         "synthetic/wd"};
    jl_summary_list l = {0};
    for (size_t m = 0; m < 4; m++)
        for (long G = 1; G <= 2; G++)
            for (long cap = 8; cap <= 256; cap *= 2) {
                double scale = 1 + 0.3 * (double)m, b = 0.95 * (double)cap;
                double P1 = scale * (300 + 40 * log2((double)cap)),
                       tau1 = 0.01 * (1 + 0.02 * (double)cap) * scale;
                double P = G == 2 ? 1.9 * P1 : P1, tau = G == 2 ? 0.63 * tau1 : tau1;
                jl_summary_list_push(&l, mk(models[m], "chat", G, cap, b, P, b / tau));
            }
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 8);
    jl_group_key t = {(char *)"synthetic/wa", (char *)"chat", (char *)"H100", 2,
                      (char *)"bfloat16"};
    long caps[] = {8, 64, 256, 512};
    jl_whatif w;
    jl_error *err = NULL;
    CHECK(jl_whatif_predict(&gl, NULL, &t, JL_TRANSFER_NONE, caps, 4, &w, &err) == JL_OK);
    CHECK(w.transfer == JL_TRANSFER_GPU_COUNT);
    CHECK_EQ_INT(w.n_sources, 1);
    CHECK_EQ_INT(w.n_points, 4);
    CHECK(w.n_pairs > 0);
    for (size_t i = 0; i < w.n_points; i++) {
        const jl_whatif_point *p = &w.points[i];
        double b = 0.95 * (double)p->cap;
        double P1 = 300 + 40 * log2((double)p->cap), tau1 = 0.01 * (1 + 0.02 * (double)p->cap);
        double e = 1.9 * P1 * 0.63 * tau1 / b;
        if (p->cap <= 256) {
            CHECK(!p->extrapolated && !p->unlocked);
            CHECK_NEAR(p->energy_per_token_j.value, e, 0.01, 0);
            CHECK_NEAR(p->power_w.value, 1.9 * P1, 0.01, 0);
            CHECK_NEAR(p->step_time_s.value, 0.63 * tau1, 0.01, 0);
        } else {
            CHECK(p->extrapolated && p->unlocked); /* no one measured 512 */
        }
        CHECK(p->energy_per_token_j.lo <= p->energy_per_token_j.value &&
              p->energy_per_token_j.value <= p->energy_per_token_j.hi);
    }
    jl_whatif_clear(&w);
    /* another GPU model needs its bandwidth: no descriptors, no factor */
    t.num_gpus = 1;
    t.gpu_model = (char *)"B200";
    CHECK(jl_whatif_predict(&gl, NULL, &t, JL_TRANSFER_NONE, caps, 4, &w, &err) == JL_ENODATA);
    CHECK(err && strstr(err->message, "bandwidth"));
    jl_error_free(err);
    err = NULL;
    /* a model measured nowhere else: no source, said so */
    t.model = (char *)"synthetic/none";
    CHECK(jl_whatif_predict(&gl, NULL, &t, JL_TRANSFER_NONE, caps, 4, &w, &err) == JL_ENODATA);
    CHECK(err && strstr(err->message, "no measured group"));
    jl_error_free(err);
    /* held out: every group predicted from the others, never from itself */
    jl_whatif_loo r = {0};
    CHECK(jl_whatif_loo_run(&gl, NULL, &r, NULL) == JL_OK);
    CHECK_EQ_INT(r.count, 8 * 6); /* 8 groups x 6 caps, one transfer kind each */
    jl_loo_stats s = jl_whatif_loo_summarize(&r, JL_TRANSFER_GPU_COUNT, NULL);
    CHECK(s.n == r.count && s.max < 0.01);
    CHECK(jl_whatif_loo_summarize(&r, JL_TRANSFER_GPU_MODEL, NULL).n == 0);
    jl_whatif_loo_clear(&r);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
}

/* The what-if leave-one-out's intervals come from other models' groups
 * held out (docs/model.md "What if"): changing everything one model
 * measured on 2 GPUs changes none of that group's held-out predictions or
 * intervals, and changes the intervals of the other models it calibrates. */
static void whatif_set(jl_summary_list *l, double a2)
{
    static const char *const models[] = {"synthetic/xa", "synthetic/xb", "synthetic/xc",
                                         "synthetic/xd", "synthetic/xe", "synthetic/xf"};
    for (size_t m = 0; m < 6; m++)
        for (long G = 1; G <= 2; G++)
            for (long cap = 8; cap <= 256; cap *= 2) {
                /* a model-dependent factor with a deterministic wobble */
                double wob = 1 + 0.08 * sin(7.0 * (double)m + 3.0 * (double)G + (double)cap);
                double scale = 1 + 0.3 * (double)m, b = 0.95 * (double)cap;
                double P1 = scale * (300 + 40 * log2((double)cap)),
                       tau1 = 0.01 * (1 + 0.02 * (double)cap) * scale;
                double P = G == 2 ? (1.7 + 0.05 * (double)m) * P1 * wob : P1;
                if (m == 0 && G == 2)
                    P *= a2;
                double tau = G == 2 ? 0.63 * tau1 : tau1;
                jl_summary_list_push(l, mk(models[m], "chat", G, cap, b, P, b / tau));
            }
}

TEST(whatif_intervals_never_see_the_held_out_model)
{
    jl_whatif_loo r[2] = {{0}};
    jl_summary_list l[2] = {{0}};
    jl_model_group_list gl[2] = {{0}};
    for (int v = 0; v < 2; v++) {
        whatif_set(&l[v], v ? 1.5 : 1.0);
        CHECK(jl_model_groups(&l[v], &gl[v], NULL) == JL_OK);
        CHECK(jl_whatif_loo_run(&gl[v], NULL, &r[v], NULL) == JL_OK);
    }
    CHECK_EQ_INT(r[0].count, 12 * 6);
    CHECK_EQ_INT(r[1].count, r[0].count);
    int own = 0, other_moved = 0, wide = 0;
    for (size_t i = 0; i < r[0].count && i < r[1].count; i++) {
        const jl_whatif_loo_point *a = &r[0].points[i], *b = &r[1].points[i];
        const jl_group_key *k = &gl[0].items[a->group].key;
        CHECK(a->group == b->group && a->max_batch_size == b->max_batch_size);
        if (!strcmp(k->model, "synthetic/xa") && k->num_gpus == 2) {
            /* the changed group itself: predicted from its 1-GPU sibling
             * with factors and intervals that never saw model xa */
            own++;
            CHECK(a->predicted.value == b->predicted.value);
            CHECK(a->predicted.lo == b->predicted.lo && a->predicted.hi == b->predicted.hi);
            CHECK(b->actual_energy_per_token_j > 1.4 * a->actual_energy_per_token_j);
        } else if (strcmp(k->model, "synthetic/xa")) {
            other_moved += a->predicted.lo != b->predicted.lo || a->predicted.hi != b->predicted.hi;
        }
        wide += a->predicted.hi > 1.01 * a->predicted.value &&
                a->predicted.lo < 0.99 * a->predicted.value;
    }
    CHECK_EQ_INT(own, 6);
    CHECK(other_moved > 0);
    CHECK(wide > 0);
    for (int v = 0; v < 2; v++) {
        jl_whatif_loo_clear(&r[v]);
        jl_group_list_clear(&gl[v]);
        jl_summary_list_clear(&l[v]);
    }
}

/* The GPU-model transfer follows the roofline (docs/model.md "What if"):
 * where every model's step time is a fixed overhead plus streaming its
 * weights from HBM, the B200/H100 step-time ratio is 1 - phi + phi x
 * (bandwidth ratio), phi the share of the step that streams -- a curve no
 * linear term in phi follows across models from memory-bound to overhead-
 * bound. Held out, each group is predicted within 1 %. */
static const char ROOF_GPUS[] =
    "{\"gpus\": {\"H100\": {\"memory_bytes\": 85520809984, \"tdp_w\": 700, \"idle_power_w\": "
    "120, \"hbm_bandwidth_bytes_s\": 3.35e12}, \"B200\": {\"memory_bytes\": 193273528320, "
    "\"tdp_w\": 1000, \"idle_power_w\": 170, \"hbm_bandwidth_bytes_s\": 8e12}}}";

TEST(whatif_gpu_model_follows_the_roofline)
{
    static const char *const models[] = {"synthetic/ra", "synthetic/rb", "synthetic/rc",
                                         "synthetic/rd", "synthetic/re", "synthetic/rf",
                                         "synthetic/rg", "synthetic/rh"};
    char mj[2048];
    size_t o = (size_t)snprintf(mj, sizeof mj, "{\"models\": {");
    for (size_t m = 0; m < 8; m++)
        o += (size_t)snprintf(mj + o, sizeof mj - o,
                              "%s\"%s\": {\"active_params\": %g, \"total_params\": %g, "
                              "\"weight_bytes_per_param\": 2.0}",
                              m ? ", " : "", models[m], 1e9 * (double)(1 << m),
                              1e9 * (double)(1 << m));
    snprintf(mj + o, sizeof mj - o, "}}");
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    CHECK(jl_descriptors_load_buffers(ROOF_GPUS, strlen(ROOF_GPUS), mj, strlen(mj), &d, &err) ==
          JL_OK);
    jl_summary_list l = {0};
    static const char *const gpus[] = {"H100", "B200"};
    static const double bw[] = {3.35e12, 8e12};
    for (size_t m = 0; m < 8; m++)
        for (int g = 0; g < 2; g++)
            for (long cap = 8; cap <= 256; cap *= 2) {
                /* an overhead that grows with the batch, and the weights
                 * (2 bytes x 1-128 B parameters) streamed once per step */
                double b = 0.95 * (double)cap, ov = 0.004 * (1 + 0.3 * (double)(m % 3));
                double tau = ov * (1 + 0.01 * (double)cap) + 2e9 * (double)(1 << m) / bw[g];
                double P = (g ? 1.3 : 1.0) * (300 + 40 * log2((double)cap));
                jl_summary *s = mk(models[m], "chat", 1, cap, b, P, b / tau);
                free(s->attrs.gpu_model);
                s->attrs.gpu_model = jl__strdup(gpus[g]);
                jl_summary_list_push(&l, s);
            }
    jl_model_group_list gl = {0};
    CHECK(jl_model_groups(&l, &gl, NULL) == JL_OK);
    CHECK_EQ_INT(gl.count, 16);
    jl_whatif_loo r = {0};
    CHECK(jl_whatif_loo_run(&gl, d, &r, NULL) == JL_OK);
    jl_loo_stats s = jl_whatif_loo_summarize(&r, JL_TRANSFER_GPU_MODEL, NULL);
    CHECK_EQ_INT(s.n, 16 * 6);
    CHECK(s.max < 0.01);
    fprintf(stderr, "  roofline world: GPU-model transfer median %.3f%%, max %.3f%%\n",
            100 * s.median, 100 * s.max);
    jl_whatif_loo_clear(&r);
    jl_group_list_clear(&gl);
    jl_summary_list_clear(&l);
    jl_descriptors_free(d);
    /* window-limited attention layers hold their window, the others all of
     * the context: gpt-oss-20b's 12 of 24 layers at a 128-token window */
    jl_descriptors *dd = desc();
    const jl_model_desc *md = dd ? jl_descriptors_model(dd, "openai/gpt-oss-20b") : NULL;
    CHECK(md != NULL);
    if (md) {
        CHECK_NEAR(jl__model_window_scale(md, 1000), (12 + 12 * 0.128) / 24, 1e-12, 0);
        CHECK_NEAR(jl__model_window_scale(md, 100), 1.0, 1e-12, 0);
    }
    const jl_model_desc *q = dd ? jl_descriptors_model(dd, "Qwen/Qwen3-8B") : NULL;
    CHECK(q && jl__model_window_scale(q, 5000) == 1.0);
    jl_descriptors_free(dd);
}

int main(void)
{
    RUN(recovers_parameters_within_intervals);
    RUN(no_intervals_when_dof_not_positive);
    RUN(interpolation_fallback);
    RUN(refuses_beyond_ceiling);
    RUN(memory_ceiling_from_descriptors);
    RUN(groups_and_loo_bookkeeping);
    RUN(percentiles_like_numpy);
    RUN(anchor_grid_search);
    RUN(json_document_pieces);
    RUN(regime_breaks_at_sweep_ends);
    RUN(pooled_sweep_ends);
    RUN(predict_pools_sweep_ends);
    RUN(ceiling_agrees_with_regime_rule);
    RUN(holds_and_bounds);
    RUN(whatif_recovers_a_cross_model_factor);
    RUN(whatif_intervals_never_see_the_held_out_model);
    RUN(whatif_gpu_model_follows_the_roofline);
    fprintf(stderr, "%d checks, %d failures\n", jt_checks, jt_failures);
    return jt_failures != 0;
}
