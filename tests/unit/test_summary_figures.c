/* Engine-derived figures (tokens, batch, KV cache, prefill/decode energy),
 * power-sample coverage, gpu/ means and the saturation warning. */
#include "test.h"
#include "unit/test_summary_fixture.h"

/* Constant 100 W from 0 to 10 s at 10 Hz; engine rows at 0..8 s:
 *   running   0  4  8  8  8  8  8  8  2   (row i holds on (t[i-1], t[i]])
 *   tokens    0 10 30 60 100 140 180 220 230
 *   prefill   0 100 100 150 150 150 150 150 150
 *   kv        0 .1 .2 .3 .4 .4 .4 .4 .1
 * Requests chosen so that the rule gives [1.5, 3.5] (B = 2: first tokens
 * 1, 1.5, ...; R = 6: the 3rd finish is 3.5). */
static jl_run *engine_run(void)
{
    jl_run *r = fx_new("llm", 1, 2);
    double t[101], w[101];
    for (int i = 0; i <= 100; i++) {
        t[i] = 0.1 * i;
        w[i] = 100;
    }
    fx_power(r, 101, t, w, NULL);
    double et[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    int32_t run[] = {0, 4, 8, 8, 8, 8, 8, 8, 2};
    int64_t tok[] = {0, 10, 30, 60, 100, 140, 180, 220, 230};
    int64_t pre[] = {0, 100, 100, 150, 150, 150, 150, 150, 150};
    float kv[] = {0, 0.125f, 0.25f, 0.375f, 0.5f, 0.5f, 0.5f, 0.5f, 0.125f};
    fx_engine(r, 9, et, run, tok, pre, kv);
    double arr[] = {0, 0, 0, 0, 0, 0}, ft[] = {1, 1.5, 2, 2, 2, 2};
    double fin[] = {2.5, 3, 3.5, 7, 8, 8};
    int32_t out[] = {10, 10, 10, 10, 10, 10};
    fx_requests(r, 6, arr, ft, fin, out);
    return r;
}

TEST(engine_figures)
{
    jl_run *r = engine_run();
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_REQUESTS);
    CHECK_NEAR(FIG(s, STEADY_START_S), 1.5, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 3.5, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 200, 1e-12, 0);
    /* tokens linear within iterations: at 1.5 -> 20, at 3.5 -> 80: 60 */
    CHECK_NEAR(FIG(s, STEADY_TOKENS), 60, 1e-12, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_TOKEN_J), 200.0 / 60, 1e-12, 0);
    CHECK_NEAR(FIG(s, OUTPUT_THROUGHPUT_TOK_S), 30, 1e-12, 0);
    /* running over (1.5,2] 8, (2,3] 8, (3,3.5] 8 -> 8; peak 8 */
    CHECK_NEAR(FIG(s, AVG_BATCH_SIZE), 8, 1e-12, 0);
    CHECK_NEAR(FIG(s, PEAK_RUNNING), 8, 0, 0);
    /* kv: 0.5 x .25 + 1 x .375 + 0.5 x .5 = .75 over 2 s -> .375 */
    CHECK_NEAR(FIG(s, AVG_KV_CACHE_USAGE), 0.375, 1e-12, 0);
    CHECK_NEAR(FIG(s, PEAK_KV_CACHE_USAGE), 0.5, 0, 0);
    /* prefill_tokens grows in iterations (0,1] and (2,3]: in the window the
     * (2,3] part is prefill (100 J); (1.5,2] and (3,3.5] decode (100 J) */
    CHECK_NEAR(FIG(s, PREFILL_ENERGY_J), 100, 1e-12, 0);
    CHECK_NEAR(FIG(s, DECODE_ENERGY_J), 100, 1e-12, 0);
    CHECK_NEAR(FIG(s, PREFILL_ENERGY_SHARE), 0.5, 1e-12, 0);
    CHECK_NEAR(FIG(s, AVG_OUTPUT_TOKENS), 10, 0, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_REQUEST_J), 2000.0 / 60, 1e-12, 0);
    /* max_batch_size 2, mean batch 8: no saturation warning */
    CHECK(fx_warning(s, "batch_saturation") == NULL);
    CHECK(fx_warning(s, "short_window") != NULL); /* 2 s */
    jl_summary_free(s);
    jl_run_free(r);
}

/* A server that never fills its batch: mean batch below 80 % of
 * max_batch_size is flagged. */
TEST(batch_saturation)
{
    jl_run *r = engine_run();
    r->attrs.max_batch_size = 16;
    free(r->arrival);
    free(r->first_token);
    free(r->finish);
    free(r->output_tokens);
    r->arrival = r->first_token = r->finish = NULL;
    r->output_tokens = NULL;
    r->req_n = 0;
    jl_summary *s = fx_sum(r);
    /* occupancy rule: peak 8, threshold 7.2: (1, 7] */
    CHECK_EQ_INT(s->steady_method, JL_STEADY_OCCUPANCY);
    CHECK_NEAR(FIG(s, STEADY_START_S), 1, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 7, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_TOKENS), 210, 1e-12, 0);
    CHECK_CONTAINS(fx_warning(s, "batch_saturation"), "max_batch_size 16");
    CHECK(fx_warning(s, "short_window") == NULL); /* 6 s, 61 samples */
    jl_summary_free(s);
    jl_run_free(r);
}

/* Power samples at 0..3 s and 10..13 s; window [0, 13]: covered
 * [0, 4] and [9, 13] = 8 of 13 s. */
TEST(coverage)
{
    jl_run *r = fx_new("diffusion", 1, 1);
    double t[] = {0, 1, 2, 3, 10, 11, 12, 13};
    double w[] = {100, 100, 100, 100, 100, 100, 100, 100};
    fx_power(r, 8, t, w, NULL);
    double bs[] = {0}, be[] = {13};
    int32_t sz[] = {1};
    fx_batches(r, 1, bs, be, sz);
    jl_summary *s = fx_sum(r);
    CHECK_NEAR(FIG(s, POWER_SAMPLE_COVERAGE), 8.0 / 13, 1e-12, 0);
    CHECK(fx_warning(s, "low_coverage") != NULL);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 1300, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Token times from itl/ exactly: a request whose four gaps are 0.1, 0.1,
 * 0.1 and 3.7 s has four of its five tokens in its first 0.3 s, not spread
 * evenly over its 4 s; a request whose itl/ count does not match its
 * tokens is spread as before. The window is [0, 2] (@window
 * steady_state_only over a series cut there). */
TEST(tokens_at_itl_times)
{
    jl_run *r = fx_new("llm", 1, 8);
    double t[] = {0, 1, 2};
    double w[] = {100, 100, 100};
    fx_power(r, 3, t, w, NULL);
    jl_attrs_add_extra(&r->attrs, "window", "steady_state_only", 0);
    double arr[] = {0, 0}, first[] = {1, 1}, fin[] = {5, 5};
    int32_t out[] = {5, 5};
    fx_requests(r, 2, arr, first, fin, out);
    float sec[] = {0.1f, 0.1f, 0.1f, 3.7f, 2.0f}; /* request 1: one gap for four tokens */
    int32_t req[] = {0, 0, 0, 0, 1};
    fx_itl(r, 5, sec, req);
    jl_summary *s = fx_sum(r);
    /* request 0: tokens at 1, 1.1, 1.2, 1.3 in (0, 2]; request 1: its first
     * at 1 and 4 x (2 - 1) / (5 - 1) = 1 spread */
    CHECK_NEAR(FIG(s, STEADY_TOKENS), 4 + 2, 1e-6, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* gpu/: plain mean over the rows in the window and over GPUs. */
TEST(gpu_means)
{
    jl_run *r = fx_new("diffusion", 2, 1);
    double t[] = {0, 10}, w[] = {100, 100, 100, 100};
    fx_power(r, 2, t, w, NULL);
    double bs[] = {2}, be[] = {6};
    int32_t sz[] = {1};
    fx_batches(r, 1, bs, be, sz);
    double gt[] = {0, 2, 4, 6, 8};
    double clk[] = {1000, 1000, 1800, 1600, 1900, NAN, 1700, 1500, 1000, 1000};
    double util[] = {0, 0, 1, 0.5, 1, 1, 0.5, 0.5, 0, 0};
    r->gpu_n = 5;
    r->gpu_time = fx_copy(gt, 5, sizeof(double));
    r->sm_clock_mhz = (jl_series){5, 2, fx_copy(clk, 10, sizeof(double))};
    r->sm_util = (jl_series){5, 2, fx_copy(util, 10, sizeof(double))};
    jl_summary *s = fx_sum(r);
    /* rows at 2, 4, 6: clocks 1800 1600 1900 (NaN skipped) 1700 1500 */
    CHECK_NEAR(FIG(s, AVG_SM_CLOCK_MHZ), 8500.0 / 5, 1e-12, 0);
    CHECK_NEAR(FIG(s, AVG_SM_UTIL), 4.5 / 6, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Spec 1.1 from any source: the engine run with a summary/ group beside its
 * series. The published figures are the headline; every figure the series
 * give is recomputed (tokens from engine/, so no published rate is used);
 * the identities follow the headline; only figures published AND
 * recomputable are disagreements; marks follow the threshold. */
TEST(published_beside_series)
{
    jl_run *r = engine_run();
    r->summary.present = 1;
    r->summary.energy_per_token_j = 4.0; /* recomputed 200/60 = 3.333: -16.7 % */
    r->summary.avg_power_w = 101.0;      /* recomputed 100: -0.99 % */
    r->summary.median_itl_s = 0.02;      /* no itl/: published only */
    jl_kv *x = calloc(1, sizeof *x);
    x[0].key = jl__strdup("source");
    x[0].value = jl__strdup("Some Benchmark");
    r->summary.extra = x;
    r->summary.n_extra = 1;
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_REQUESTS); /* no @window: the usual rules */
    CHECK(s->published != NULL);
    if (s->published) {
        CHECK_STR(s->published->source, "Some Benchmark");
        CHECK_NEAR(s->published->recomputed[JL_FIG_ENERGY_PER_TOKEN_J], 200.0 / 60, 1e-12, 0);
        CHECK(s->published->with_published_rate == 0);
    }
    CHECK_NEAR(FIG(s, ENERGY_PER_TOKEN_J), 4.0, 0, 0);
    CHECK_NEAR(FIG(s, TOKENS_PER_JOULE), 0.25, 0, 0);
    CHECK_NEAR(FIG(s, AVG_POWER_W), 101.0, 0, 0);
    CHECK_NEAR(FIG(s, MEDIAN_ITL_S), 0.02, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 200, 1e-12, 0); /* not published: the series' */
    CHECK_NEAR(FIG(s, AVG_BATCH_SIZE), 8, 1e-12, 0);
    jl_disagreement d[JL_FIG_COUNT];
    size_t n = jl_summary_disagreements(s, d);
    CHECK_EQ_INT(n, 2); /* energy_per_token_j and avg_power_w, in figure order */
    if (n == 2) {
        CHECK_EQ_INT(d[0].figure, JL_FIG_ENERGY_PER_TOKEN_J);
        CHECK_NEAR(d[0].relative_difference, (200.0 / 60 - 4) / 4, 1e-12, 0);
        CHECK(d[0].marked);
        CHECK_STR(d[0].recomputed_from, "the time series");
        CHECK_EQ_INT(d[1].figure, JL_FIG_AVG_POWER_W);
        CHECK_NEAR(d[1].relative_difference, -1.0 / 101, 1e-12, 0);
        CHECK(!d[1].marked);
    }
    CHECK(jl_summary_figure_marked(s, JL_FIG_ENERGY_PER_TOKEN_J));
    CHECK(!jl_summary_figure_marked(s, JL_FIG_AVG_POWER_W));
    jl_summary_set_mark_threshold(s, 0.2); /* tuned: -16.7 % no longer marked */
    CHECK(!jl_summary_figure_marked(s, JL_FIG_ENERGY_PER_TOKEN_J));
    CHECK(fx_warning(s, "summary_only") == NULL);
    jl_summary_free(s);
    /* @window = steady_state_only: the whole span of the power samples */
    jl_attrs_add_extra(&r->attrs, "window", "steady_state_only", 0);
    s = fx_sum(r);
    CHECK_STR(jl_steady_method_name(s->steady_method), "source");
    CHECK_NEAR(FIG(s, STEADY_START_S), 0, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 10, 0, 0);
    /* the series were cut to the steady state: nothing is known of the
     * whole run (null, never 0) */
    CHECK_NAN(FIG(s, OUTSIDE_ENERGY_SHARE));
    CHECK_NAN(FIG(s, RUN_ENERGY_J));
    CHECK_NAN(FIG(s, RUN_ENERGY_PER_TOKEN_J));
    CHECK(s->boundary.window == JL_WINDOW_STEADY);
    CHECK(fx_warning(s, "steady_whole_run") == NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

int main(void)
{
    RUN(engine_figures);
    RUN(published_beside_series);
    RUN(batch_saturation);
    RUN(coverage);
    RUN(gpu_means);
    RUN(tokens_at_itl_times);
    TEST_MAIN_END();
}
