/* The steady-state window: the request rule (with failed requests and its
 * fallbacks), the occupancy rule, whole-run fallback, diffusion batches and
 * summary/ pass-through. */
#include "test.h"
#include "unit/test_summary_fixture.h"

/* Flat 100 W power from 0 to 20 s, 0.5 s apart. */
static void flat_power(jl_run *r)
{
    double t[41], w[41];
    for (int i = 0; i <= 40; i++) {
        t[i] = 0.5 * i;
        w[i] = 100;
    }
    fx_power(r, 41, t, w, NULL);
}

/* B = 2, R = 8, rows shuffled. First tokens 1..8, finishes 5..12.
 * Start: the 2nd smallest first token = 2. End: R - B - 1 = 5 requests
 * finished, the 5th smallest finish = 9. */
TEST(request_rule)
{
    jl_run *r = fx_new("llm", 1, 2);
    flat_power(r);
    double arr[] = {0, 0, 0, 0, 0, 0, 0, 0};
    double ft[] = {5, 2, 8, 1, 7, 3, 6, 4};
    double fin[] = {9, 6, 12, 5, 11, 7, 10, 8};
    int32_t out[] = {10, 20, 30, 40, 50, 60, 70, 80};
    fx_requests(r, 8, arr, ft, fin, out);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_REQUESTS);
    CHECK_NEAR(FIG(s, STEADY_START_S), 2, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 9, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_DURATION_S), 7, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 700, 1e-12, 0);
    CHECK_NEAR(FIG(s, COMPLETED_REQUESTS), 8, 0, 0);
    CHECK_NEAR(FIG(s, FAILED_REQUESTS), 0, 0, 0);
    CHECK_NEAR(FIG(s, AVG_OUTPUT_TOKENS), 45, 1e-12, 0);
    /* Tokens from the request table in (2, 9]: first tokens at 3..8 (6
     * requests) plus each request's other n-1 tokens spread uniformly over
     * (ft, fin] (4 s each), clipped to the window:
     *   ft=1 (n=40): (1,5]∩(2,9] = 3 s -> 39 x 3/4 = 29.25
     *   ft=2 (20):   4 s -> 19;   ft=3 (60): 4 s -> 59;  ft=4 (80): 79
     *   ft=5 (10):   4 s -> 9;    ft=6 (70): (6,10] -> 3 s -> 51.75
     *   ft=7 (50):   (7,11] -> 2 s -> 24.5;  ft=8 (30): 1 s -> 7.25
     * total 6 + 29.25+19+59+79+9+51.75+24.5+7.25 = 284.75 */
    CHECK_NEAR(FIG(s, STEADY_TOKENS), 284.75, 1e-12, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_TOKEN_J), 700 / 284.75, 1e-12, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_REQUEST_J), 700 / 284.75 * 45, 1e-12, 0);
    CHECK_NEAR(FIG(s, OUTPUT_THROUGHPUT_TOK_S), 284.75 / 7, 1e-12, 0);
    CHECK_NEAR(FIG(s, TOKENS_PER_JOULE), 284.75 / 700, 1e-12, 0);
    /* TTFT: first_token - 0 -> median of 1..8 = 4.5, p90 = 7.3 */
    CHECK_NEAR(FIG(s, TTFT_MEDIAN_S), 4.5, 1e-12, 0);
    CHECK_NEAR(FIG(s, TTFT_P90_S), 7.3, 1e-12, 0);
    CHECK(fx_warning(s, "steady_fallback") == NULL);
    CHECK(fx_warning(s, "steady_whole_run") == NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Failed requests leave the rule: a 9th request with NaN first token and
 * finish and a 10th with a first token (0.5) but no finish. Start: 2nd
 * smallest finite first token = 1; end: completed 8 - 2 - 1 = 5th finish
 * = 9 (counting all 10 rows as R would give the 7th finish, 11). */
TEST(request_rule_failed_requests)
{
    jl_run *r = fx_new("llm", 1, 2);
    flat_power(r);
    double arr[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    double ft[] = {5, 2, 8, 1, 7, 3, 6, 4, NAN, 0.5};
    double fin[] = {9, 6, 12, 5, 11, 7, 10, 8, NAN, NAN};
    int32_t out[] = {10, 20, 30, 40, 50, 60, 70, 80, 5, 5};
    fx_requests(r, 10, arr, ft, fin, out);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_REQUESTS);
    CHECK_NEAR(FIG(s, STEADY_START_S), 1, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 9, 0, 0);
    CHECK_NEAR(FIG(s, COMPLETED_REQUESTS), 8, 0, 0);
    CHECK_NEAR(FIG(s, FAILED_REQUESTS), 2, 0, 0);
    CHECK_NEAR(FIG(s, AVG_OUTPUT_TOKENS), 45, 1e-12, 0); /* completed only */
    CHECK_CONTAINS(fx_warning(s, "failed_requests"), "2 of 10");
    /* TTFT over the 9 finite values 0.5, 1..8: median 4, p90 7.2 */
    CHECK_NEAR(FIG(s, TTFT_MEDIAN_S), 4, 1e-12, 0);
    CHECK_NEAR(FIG(s, TTFT_P90_S), 7.2, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Engine rows for the occupancy tests: running holds on (t[i-1], t[i]]. */
static void engine_a(jl_run *r)
{
    double t[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    int32_t run[] = {0, 2, 10, 10, 9, 5, 10, 10, 1};
    int64_t tok[] = {0, 2, 12, 22, 31, 36, 46, 56, 57};
    fx_engine(r, 9, t, run, tok, NULL, NULL);
}

/* Too few requests for the rule (R - B - 1 = 0): fall back to the
 * occupancy rule, with a warning saying why. Peak 10, threshold 9: the
 * intervals (1,2], (2,3], (3,4] (3 s) beat (5,6], (6,7] (2 s): [1, 4]. */
TEST(request_rule_falls_back_to_occupancy)
{
    jl_run *r = fx_new("llm", 1, 4);
    flat_power(r);
    double arr[] = {0, 0, 0, 0, 0}, ft[] = {1, 1, 1, 1, 2};
    double fin[] = {3, 4, 5, 6, 7};
    int32_t out[] = {5, 5, 5, 5, 5};
    fx_requests(r, 5, arr, ft, fin, out);
    engine_a(r);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_OCCUPANCY);
    CHECK_CONTAINS(fx_warning(s, "steady_fallback"), "= 0");
    CHECK_NEAR(FIG(s, STEADY_START_S), 1, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 4, 0, 0);
    CHECK_NEAR(FIG(s, AVG_BATCH_SIZE), 29.0 / 3, 1e-12, 0);
    CHECK_NEAR(FIG(s, PEAK_RUNNING), 10, 0, 0);
    /* engine tokens: 31 - 2 = 29 */
    CHECK_NEAR(FIG(s, STEADY_TOKENS), 29, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Without requests: the occupancy rule directly, and it measures stretches
 * in time, not rows: three 0.1 s rows lose against one 2 s row. */
TEST(occupancy_in_time_not_rows)
{
    jl_run *r = fx_new("llm", 1, 10);
    flat_power(r);
    double t[] = {0, 0.1, 0.2, 0.3, 0.4, 2.4, 2.5};
    int32_t run[] = {0, 10, 10, 10, 1, 10, 1};
    fx_engine(r, 7, t, run, NULL, NULL, NULL);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_OCCUPANCY);
    CHECK(fx_warning(s, "steady_fallback") == NULL);
    CHECK_NEAR(FIG(s, STEADY_START_S), 0.4, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 2.4, 0, 0);
    CHECK_NEAR(FIG(s, AVG_BATCH_SIZE), 10, 1e-12, 0);
    CHECK_NAN(FIG(s, STEADY_TOKENS)); /* no tokens_generated, no requests */
    CHECK(fx_warning(s, "no_tokens") != NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

/* The occupancy share is an option: at 0.5 the threshold is 5 and the
 * stretch (1, 8]... up to running 1 at t = 8: (1,7] = 6 s -> [1, 7]. */
TEST(occupancy_share_option)
{
    jl_run *r = fx_new("llm", 1, 10);
    flat_power(r);
    engine_a(r);
    jl_summary_options o;
    jl_summary_options_default(&o);
    CHECK_NEAR(o.occupancy_share, 0.9, 0, 0);
    o.occupancy_share = 0.5;
    jl_summary *s = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_summarize(r, &o, &s, &e), JL_OK);
    CHECK_NEAR(FIG(s, STEADY_START_S), 1, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 7, 0, 0);
    jl_summary_free(s);
    o.occupancy_share = 1.5; /* invalid */
    s = NULL;
    CHECK_EQ_INT(jl_summarize(r, &o, &s, &e), JL_EUSAGE);
    CHECK(s == NULL);
    CHECK(e != NULL);
    jl_error_free(e);
    jl_run_free(r);
}

/* Nothing to find a window with: the whole run, flagged. */
TEST(whole_run_fallback)
{
    jl_run *r = fx_new("llm", 1, 8);
    flat_power(r);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_WHOLE_RUN);
    CHECK(fx_warning(s, "steady_whole_run") != NULL);
    CHECK_NEAR(FIG(s, STEADY_START_S), 0, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 20, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 2000, 1e-12, 0);
    CHECK_NEAR(FIG(s, OUTSIDE_ENERGY_SHARE), 0, 0, 1e-15);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Requests whose rule gives end <= start, and no engine: whole run.
 * B = 2; first tokens 1, 9, 9, 9, 9, 9 -> start = 9; finishes 2, 3, 4,
 * 10, 10, 10 -> end = the (6-2-1) = 3rd finish = 4 < 9. */
TEST(request_rule_to_whole_run)
{
    jl_run *r = fx_new("llm", 1, 2);
    flat_power(r);
    double arr[] = {0, 0, 0, 0, 0, 0}, ft[] = {1, 9, 9, 9, 9, 9};
    double fin[] = {2, 3, 4, 10, 10, 10};
    int32_t out[] = {5, 5, 5, 5, 5, 5};
    fx_requests(r, 6, arr, ft, fin, out);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_WHOLE_RUN);
    CHECK_CONTAINS(fx_warning(s, "steady_whole_run"), "before it starts");
    CHECK_NEAR(FIG(s, STEADY_END_S), 20, 0, 0);
    jl_summary_free(s);
    /* with finishes 2, 10, 10, ... the 3rd finish is 10 > 9: the rule holds */
    r->finish[1] = 10;
    r->finish[2] = 10;
    s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_REQUESTS);
    CHECK_NEAR(FIG(s, STEADY_START_S), 9, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 10, 0, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Diffusion: first batch start to last batch end; energy per item is the
 * batch windows' energy over all items (not the mean of per-batch values):
 * batches [0, 1] x 1 item and [1, 3] x 3 items at 100 W: 300 J / 4 = 75
 * (the mean of per-batch values would be 83.3). */
TEST(diffusion_batches)
{
    jl_run *r = fx_new("diffusion", 1, 3);
    flat_power(r);
    double bs[] = {1, 0}, be[] = {3, 1};
    int32_t sz[] = {3, 1};
    fx_batches(r, 2, bs, be, sz);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_BATCHES);
    CHECK_NEAR(FIG(s, STEADY_START_S), 0, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_END_S), 3, 0, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_ITEM_J), 75, 1e-12, 0);
    CHECK_NEAR(FIG(s, BATCH_LATENCY_S), 1.5, 1e-12, 0);
    CHECK_NEAR(FIG(s, ITEMS_PER_S), 4.0 / 3, 1e-12, 0);
    CHECK_NAN(FIG(s, ENERGY_PER_TOKEN_J));
    CHECK_NAN(FIG(s, STEADY_TOKENS));
    CHECK(fx_warning(s, "no_tokens") == NULL); /* not expected of diffusion */
    CHECK(fx_warning(s, "batch_saturation") == NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

/* summary/ only: figures pass through, names mapped, only exact
 * identities derived. */
TEST(summary_pass_through)
{
    jl_run *r = fx_new("llm", 2, 64);
    r->attrs.gpu_idle_power_w = 100;
    r->summary.present = 1;
    r->summary.energy_per_token_j = 0.25;
    r->summary.avg_power_w = 800;
    r->summary.median_itl_s = 0.02;
    r->summary.steady_state_duration_s = 120;
    r->summary.steady_state_energy_j = 96000;
    r->summary.avg_batch_size = 50;
    jl_kv extra = {.key = "peak_power_w", .value = "1234.5", .is_number = 1};
    r->summary.extra = &extra;
    r->summary.n_extra = 1;
    jl_summary *s = fx_sum(r);
    r->summary.extra = NULL;
    r->summary.n_extra = 0;
    CHECK_EQ_INT(s->steady_method, JL_STEADY_SUMMARY);
    CHECK_EQ_INT(s->energy_source, JL_ENERGY_SUMMARY);
    CHECK_NEAR(FIG(s, ENERGY_PER_TOKEN_J), 0.25, 0, 0);
    CHECK_NEAR(FIG(s, TOKENS_PER_JOULE), 4, 0, 0);
    CHECK_NEAR(FIG(s, AVG_POWER_W), 800, 0, 0);
    CHECK_NEAR(FIG(s, MEDIAN_ITL_S), 0.02, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_DURATION_S), 120, 0, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 96000, 0, 0);
    CHECK_NEAR(FIG(s, AVG_BATCH_SIZE), 50, 0, 0);
    CHECK_NEAR(FIG(s, PEAK_POWER_W), 1234.5, 0, 0);
    CHECK_NEAR(FIG(s, IDLE_POWER_W), 200, 0, 0);
    CHECK_NEAR(FIG(s, STATIC_ENERGY_SHARE), 0.25, 0, 0);
    /* not there, not derived */
    CHECK_NAN(FIG(s, STEADY_TOKENS));
    CHECK_NAN(FIG(s, OUTPUT_THROUGHPUT_TOK_S));
    CHECK_NAN(FIG(s, ENERGY_PER_REQUEST_J));
    CHECK_NAN(FIG(s, P99_ITL_S));
    CHECK_NAN(FIG(s, STEADY_START_S));
    CHECK(fx_warning(s, "summary_only") != NULL);
    CHECK_STR(s->run, "b0000");
    CHECK_STR(s->attrs.model, "test/model");
    jl_summary_free(s);
    jl_run_free(r);
}

int main(void)
{
    RUN(request_rule);
    RUN(request_rule_failed_requests);
    RUN(request_rule_falls_back_to_occupancy);
    RUN(occupancy_in_time_not_rows);
    RUN(occupancy_share_option);
    RUN(whole_run_fallback);
    RUN(request_rule_to_whole_run);
    RUN(diffusion_batches);
    RUN(summary_pass_through);
    TEST_MAIN_END();
}
