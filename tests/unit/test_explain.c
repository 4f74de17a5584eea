/* joules explain: the factors multiply back to the measured ratio exactly,
 * the static/dynamic split is the LMDI one, degenerate cases, knobs. */
#include "test.h"

#include <math.h>

#include "joules/explain.h"
#include "test_choice_fixtures.h"

/* A run with e = P/T exactly (P all GPUs, T tokens/s, b avg batch). */
static jl_summary *mk(jl_summary_list *l, const char *gpu, long n, long cap, double b, double P,
                      double T, double idle)
{
    jl_summary *s = fx_run(l, "m", gpu, n, cap, 0.01, P / T);
    s->fig[JL_FIG_AVG_POWER_W] = P;
    s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = T;
    s->fig[JL_FIG_AVG_BATCH_SIZE] = b;
    s->attrs.gpu_idle_power_w = idle;
    return s;
}

static double sum_logs(const jl_explanation *x)
{
    double s = 0;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++)
        s += x->factors[i].log_ratio;
    return s;
}

static double prod_ratios(const jl_explanation *x)
{
    double p = 1;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++)
        p *= x->factors[i].ratio;
    return p * exp(x->residual);
}

TEST(exact_decomposition)
{
    jl_summary_list l = {0};
    /* A: 2 GPUs, 900 W total, 2000 tok/s at b = 60; B: 1 GPU, 400 W, 3000 tok/s at b = 120 */
    jl_summary *a = mk(&l, "H100", 2, 64, 60, 900, 2000, 120);
    jl_summary *b = mk(&l, "H100", 1, 128, 120, 400, 3000, 110);
    jl_explanation *x = NULL;
    jl_error *err = NULL;
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
    if (!x)
        return;
    double eA = 900.0 / 2000, eB = 400.0 / 3000;
    CHECK_NEAR(x->ratio, eA / eB, 1e-14, 0);
    CHECK_NEAR(sum_logs(x), log(eA / eB), 1e-12, 1e-12);
    CHECK_NEAR(prod_ratios(x), eA / eB, 1e-12, 0);
    CHECK(fabs(x->residual) < 1e-12);
    CHECK_NEAR(x->factors[JL_EXPLAIN_GPU_COUNT].ratio, 2.0, 1e-14, 0);
    /* step time: τ = b/T */
    CHECK_NEAR(x->factors[JL_EXPLAIN_STEP_TIME].ratio, (60.0 / 2000) / (120.0 / 3000), 1e-13, 0);
    CHECK_NEAR(x->factors[JL_EXPLAIN_BATCH].ratio, 120.0 / 60, 1e-13, 0);
    /* LMDI: p = 450 vs 400, s = 120 vs 110, d = 330 vs 290 */
    double L = (450.0 - 400.0) / log(450.0 / 400.0);
    CHECK_NEAR(x->factors[JL_EXPLAIN_STATIC_POWER].log_ratio, (120.0 - 110.0) / L, 1e-12, 1e-15);
    CHECK_NEAR(x->factors[JL_EXPLAIN_DYNAMIC_POWER].log_ratio, (330.0 - 290.0) / L, 1e-12, 1e-15);
    CHECK_NEAR(x->factors[JL_EXPLAIN_STATIC_POWER].log_ratio +
                   x->factors[JL_EXPLAIN_DYNAMIC_POWER].log_ratio,
               log(450.0 / 400.0), 1e-13, 0);
    /* shares add to 1 */
    double sh = 0;
    for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++)
        sh += x->factors[i].share;
    CHECK_NEAR(sh, 1.0, 1e-12, 0);
    /* knobs: num_gpus and max_batch_size differ, gpu_model does not */
    CHECK_EQ_INT(x->n_knobs, 2);
    CHECK_EQ_INT(x->factors[JL_EXPLAIN_GPU_COUNT].n_knobs, 1);
    CHECK_STR(x->knobs[x->factors[JL_EXPLAIN_GPU_COUNT].knobs[0]].knob, "num_gpus");
    CHECK_EQ_INT(x->factors[JL_EXPLAIN_STATIC_POWER].n_knobs, 0);
    CHECK_CONTAINS(x->sentence, "uses 3.38x the energy per token of B");
    CHECK_CONTAINS(x->sentence, "2.00x from GPU count (2 vs 1; knob num_gpus 2 vs 1)");
    json_t *doc = jl_explain_document(x);
    CHECK(doc != NULL);
    CHECK_STR(json_string_value(json_object_get(doc, "schema")), "joules.explain/1");
    CHECK_EQ_INT(json_array_size(json_object_get(doc, "factors")), JL_EXPLAIN_FACTOR_COUNT);
    json_decref(doc);
    jl_explanation_free(x);
    jl_summary_list_clear(&l);
}

static double rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)(*seed >> 8) / (double)(1u << 24);
}

TEST(many_random_pairs_exact)
{
    jl_summary_list l = {0};
    unsigned seed = 12345;
    double worst = 0;
    for (int i = 0; i < 500; i++) {
#define RND() rnd(&seed) /* a call: several in one argument list are sequenced */
        long ga = 1 + (long)(RND() * 8), gb = 1 + (long)(RND() * 8);
        double ia = 50 + 150 * RND(), ib = 50 + 150 * RND();
        jl_summary *a = mk(&l, RND() < 0.5 ? "H100" : "B200", ga, 64, 1 + 1000 * RND(),
                           ga * (ia + 600 * RND()), 10 + 1e5 * RND(), ia);
        jl_summary *b = mk(&l, "H100", gb, 128, 1 + 1000 * RND(), gb * (ib + 600 * RND()),
                           10 + 1e5 * RND(), ib);
        jl_explanation *x = NULL;
        jl_error *err = NULL;
        CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
        if (!x)
            continue;
        double e = fabs(prod_ratios(x) / x->ratio - 1);
        if (e > worst)
            worst = e;
        CHECK(fabs(x->residual) < 1e-12);
        jl_explanation_free(x);
    }
    CHECK(worst < 1e-12);
    jl_summary_list_clear(&l);
}

TEST(degenerate_cases)
{
    jl_summary_list l = {0};
    jl_explanation *x = NULL;
    jl_error *err = NULL;
    /* identical runs: every factor 1, shares NaN */
    jl_summary *a = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    jl_summary *b = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
    if (x) {
        CHECK_NEAR(x->ratio, 1.0, 0, 0);
        for (int i = 0; i < JL_EXPLAIN_FACTOR_COUNT; i++) {
            CHECK_NEAR(x->factors[i].log_ratio, 0, 0, 1e-15);
            CHECK(isnan(x->factors[i].share));
        }
        CHECK_CONTAINS(x->sentence, "No factor differs");
        jl_explanation_free(x);
        x = NULL;
    }
    /* same power, different static: LMDI weight L(p, p) = p */
    a = mk(&l, "H100", 1, 8, 8, 300, 1000, 150);
    b = mk(&l, "H100", 1, 8, 8, 300, 1500, 100);
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
    if (x) {
        CHECK_NEAR(x->factors[JL_EXPLAIN_STATIC_POWER].log_ratio, 50.0 / 300, 1e-14, 0);
        CHECK_NEAR(x->factors[JL_EXPLAIN_DYNAMIC_POWER].log_ratio, -50.0 / 300, 1e-14, 0);
        CHECK_NEAR(prod_ratios(x), x->ratio, 1e-12, 0);
        jl_explanation_free(x);
        x = NULL;
    }
    /* idle unknown (no trace value, no descriptors): power unsplit */
    a = mk(&l, "X1", 1, 8, 8, 300, 1000, NAN);
    b = mk(&l, "X1", 1, 8, 8, 200, 1000, NAN);
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
    if (x) {
        CHECK(!x->power_split);
        CHECK_NEAR(x->factors[JL_EXPLAIN_STATIC_POWER].log_ratio, 0, 0, 0);
        CHECK_NEAR(x->factors[JL_EXPLAIN_DYNAMIC_POWER].log_ratio, log(1.5), 1e-14, 0);
        CHECK(x->n_notes >= 1);
        CHECK_NEAR(prod_ratios(x), 1.5, 1e-12, 0);
        jl_explanation_free(x);
        x = NULL;
    }
    /* idle above the mean power: static clamped, still exact */
    a = mk(&l, "H100", 1, 8, 8, 90, 1000, 120);
    b = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
    if (x) {
        CHECK_NEAR(x->static_a, 90, 0, 0);
        CHECK_NEAR(x->factors[JL_EXPLAIN_DYNAMIC_POWER].value_a, 0, 0, 0);
        CHECK_NEAR(prod_ratios(x), 90.0 / 300, 1e-12, 0);
        CHECK(x->n_notes >= 1);
        jl_explanation_free(x);
        x = NULL;
    }
    /* inconsistent figures: the residual carries the difference */
    a = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    a->fig[JL_FIG_ENERGY_PER_TOKEN_J] = 0.33;
    b = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_OK);
    if (x) {
        CHECK_NEAR(x->residual, log(1.1), 1e-12, 0);
        CHECK_NEAR(prod_ratios(x), 1.1, 1e-12, 0);
        jl_explanation_free(x);
        x = NULL;
    }
    /* missing throughput: an error naming the figure */
    a = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    a->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = NAN;
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_ENODATA);
    CHECK(x == NULL);
    CHECK(err && strstr(err->message, "output_throughput_tok_s"));
    jl_error_free(err);
    err = NULL;
    /* diffusion against LLM: refused */
    a = mk(&l, "H100", 1, 8, 8, 300, 1000, 100);
    free(a->attrs.workload);
    a->attrs.workload = fx_dup("diffusion");
    CHECK(jl_explain(a, b, NULL, &x, &err) == JL_EUSAGE);
    jl_error_free(err);
    jl_summary_list_clear(&l);
}

int main(void)
{
    RUN(exact_decomposition);
    RUN(many_random_pairs_exact);
    RUN(degenerate_cases);
    TEST_MAIN_END();
}
