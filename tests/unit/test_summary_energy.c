/* Energy of the window: the integral of watts with clipping, the counter
 * with restarts, wraps, jitter and garbage, disagreement, several GPUs,
 * missing data. Every expected value is worked out by hand in comments. */
#include "test.h"
#include "unit/test_summary_fixture.h"

/* Piecewise-linear power 100, 200, 200, 100, 100 W at t = 0..4; one batch
 * [0.5, 3.5] of 2 items. Energy in the window, by hand:
 *   [0.5, 1]: (150 + 200) / 2 x 0.5 =  87.5
 *   [1, 2]:   200                    = 200
 *   [2, 3]:   (200 + 100) / 2        = 150
 *   [3, 3.5]: 100 x 0.5              =  50     total 487.5 J.
 * (Interpolating the cumulative integral linearly would give 75 for the
 * first piece: the test fails for that mistake.) Whole run: 600 J. */
TEST(integral_with_window_clipping)
{
    jl_run *r = fx_new("diffusion", 1, 2);
    double t[] = {0, 1, 2, 3, 4}, w[] = {100, 200, 200, 100, 100};
    fx_power(r, 5, t, w, NULL);
    double bs[] = {0.5}, be[] = {3.5};
    int32_t sz[] = {2};
    fx_batches(r, 1, bs, be, sz);
    jl_summary *s = fx_sum(r);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_INT(s->steady_method, JL_STEADY_BATCHES);
        CHECK_EQ_INT(s->energy_source, JL_ENERGY_INTEGRAL);
        CHECK_NEAR(FIG(s, STEADY_START_S), 0.5, 0, 0);
        CHECK_NEAR(FIG(s, STEADY_END_S), 3.5, 0, 0);
        CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 487.5, 1e-12, 0);
        CHECK_NEAR(FIG(s, RUN_ENERGY_J), 600, 1e-12, 0);
        CHECK_NEAR(FIG(s, RUN_DURATION_S), 4, 0, 0);
        CHECK_NEAR(FIG(s, OUTSIDE_ENERGY_SHARE), 112.5 / 600, 1e-12, 0);
        CHECK_NEAR(FIG(s, AVG_POWER_W), 487.5 / 3, 1e-12, 0);
        CHECK_NEAR(FIG(s, PEAK_POWER_W), 200, 0, 0);
        CHECK_NEAR(FIG(s, PEAK_TO_AVG), 200 / (487.5 / 3), 1e-12, 0);
        CHECK_NEAR(FIG(s, ENERGY_PER_ITEM_J), 243.75, 1e-12, 0);
        CHECK_NEAR(FIG(s, BATCH_LATENCY_S), 3, 1e-12, 0);
        CHECK_NEAR(FIG(s, ITEMS_PER_S), 2.0 / 3, 1e-12, 0);
        CHECK_NEAR(FIG(s, POWER_SAMPLE_COVERAGE), 1, 0, 0);
        CHECK_NAN(FIG(s, ENERGY_SOURCE_DISAGREEMENT)); /* one source only */
        CHECK_NAN(FIG(s, ENERGY_PER_TOKEN_J));         /* diffusion */
        CHECK(fx_warning(s, "short_window") != NULL);  /* 3 s, 4 samples */
        CHECK_EQ_INT(s->num_gpus, 1);
        CHECK_NEAR(s->gpu_energy_j[0], 487.5, 1e-12, 0);
    }
    jl_summary_free(s);
    jl_run_free(r);
}

/* A window whose edges fall strictly inside one sampling interval, with
 * no sample in the window: peak power comes from the interpolated edges. */
TEST(window_inside_one_interval)
{
    jl_run *r = fx_new("diffusion", 1, 1);
    double t[] = {0, 10}, w[] = {0, 1000};
    fx_power(r, 2, t, w, NULL);
    double bs[] = {2}, be[] = {4};
    int32_t sz[] = {1};
    fx_batches(r, 1, bs, be, sz);
    jl_summary *s = fx_sum(r);
    /* power 100 t: integral from 2 to 4 = 50 (16 - 4) = 600 J; peak 400 W */
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 600, 1e-12, 0);
    CHECK_NEAR(FIG(s, PEAK_POWER_W), 400, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Constant 100 W for t = 0..10; the counter runs 1000 + 100 t up to t = 5
 * (1500 J), restarts between t = 5 and 6 and reads 30 at t = 6, then
 * +100 J/s. True energy over [0, 10]: 1000 J. The counter alone gives
 * 500 + 400 = 900 (lost) or, taking the drop at face value, 900 - 1470
 * (nonsense); bridging [5, 6] with 100 W x 1 s gives exactly 1000. */
static void restart_case(int with_watts)
{
    jl_run *r = fx_new("llm", 1, 1);
    double t[11], w[11], e[11];
    for (int i = 0; i <= 10; i++) {
        t[i] = i;
        w[i] = 100;
        e[i] = i <= 5 ? 1000 + 100.0 * i : 30 + 100.0 * (i - 6);
    }
    fx_power(r, 11, t, with_watts ? w : NULL, e);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->steady_method, JL_STEADY_WHOLE_RUN);
    CHECK(fx_warning(s, "steady_whole_run") != NULL);
    CHECK_EQ_INT(s->energy_source, JL_ENERGY_COUNTER);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 1000, 1e-12, 0);
    CHECK_NEAR(FIG(s, RUN_ENERGY_J), 1000, 1e-12, 0);
    const char *m = fx_warning(s, "counter_restart");
    CHECK(m != NULL);
    CHECK_CONTAINS(m, "bridged 100 J");
    CHECK_CONTAINS(m, with_watts ? "power/watts" : "neighbouring");
    CHECK_CONTAINS(m, "t = 6 s");
    if (with_watts)
        CHECK_NEAR(FIG(s, ENERGY_SOURCE_DISAGREEMENT), 0, 0, 1e-12);
    else
        CHECK_NAN(FIG(s, ENERGY_SOURCE_DISAGREEMENT));
    jl_summary_free(s);
    jl_run_free(r);
}

TEST(counter_restart_bridged_by_watts)
{
    restart_case(1);
}
TEST(counter_restart_bridged_by_neighbour_rates)
{
    restart_case(0);
}

/* A 32-bit millijoule counter wraps at 4294967.296 J: 100 J/s from
 * W - 250, so it reads W-250, W-150, W-50, then 50, 150, ... Energy over
 * [0, 10] is 1000 J. A window [1.5, 7.5] (batch) gets 600 J. */
TEST(counter_wrap)
{
    const double W = 4294967.296;
    jl_run *r = fx_new("diffusion", 1, 1);
    double t[11], w[11], e[11];
    for (int i = 0; i <= 10; i++) {
        t[i] = i;
        w[i] = 100;
        e[i] = fmod(W - 250 + 100.0 * i, W);
    }
    fx_power(r, 11, t, w, e);
    double bs[] = {1.5}, be[] = {7.5};
    int32_t sz[] = {3};
    fx_batches(r, 1, bs, be, sz);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->energy_source, JL_ENERGY_COUNTER);
    CHECK_NEAR(FIG(s, RUN_ENERGY_J), 1000, 1e-9, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 600, 1e-9, 0);
    CHECK_NEAR(FIG(s, ENERGY_PER_ITEM_J), 200, 1e-9, 0);
    CHECK(fx_warning(s, "counter_restart") != NULL);
    CHECK(fx_warning(s, "counter_unusable") == NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Garbage: the counter jumps down and straight back up (1300 -> 500 ->
 * 1500): unusable, and the energy comes from watts (1000 J, not 1000 +
 * any bridge). Without watts the energy is missing: NaN, never 0. */
TEST(counter_garbage_back_and_forth)
{
    for (int with_watts = 1; with_watts >= 0; with_watts--) {
        jl_run *r = fx_new("llm", 1, 1);
        double t[11], w[11], e[11];
        for (int i = 0; i <= 10; i++) {
            t[i] = i;
            w[i] = 100;
            e[i] = 1000 + 100.0 * i;
        }
        e[4] = 500;
        fx_power(r, 11, t, with_watts ? w : NULL, e);
        jl_summary *s = fx_sum(r);
        const char *m = fx_warning(s, "counter_unusable");
        CHECK(m != NULL);
        CHECK_CONTAINS(m, "jumps back");
        CHECK(fx_warning(s, "counter_restart") == NULL);
        if (with_watts) {
            CHECK_EQ_INT(s->energy_source, JL_ENERGY_INTEGRAL);
            CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 1000, 1e-12, 0);
        } else {
            CHECK_EQ_INT(s->energy_source, JL_ENERGY_NONE);
            CHECK_NAN(FIG(s, STEADY_ENERGY_J));
            CHECK_NAN(FIG(s, AVG_POWER_W));
            CHECK_NAN(FIG(s, RUN_ENERGY_J));
            CHECK(fx_warning(s, "no_energy") != NULL);
            CHECK_NAN(s->gpu_energy_j[0]);
        }
        jl_summary_free(s);
        jl_run_free(r);
    }
}

/* A drop that does not land near zero (1200 -> 1150) is no restart. */
TEST(counter_garbage_not_near_zero)
{
    jl_run *r = fx_new("llm", 1, 1);
    double t[] = {0, 1, 2, 3, 4}, w[] = {100, 100, 100, 100, 100};
    double e[] = {1000, 1100, 1200, 1150, 1400};
    fx_power(r, 5, t, w, e);
    jl_summary *s = fx_sum(r);
    CHECK_CONTAINS(fx_warning(s, "counter_unusable"), "not to near zero");
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 400, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* More restarts than JL__MAX_RESTARTS (2) are noise, not restarts. */
TEST(counter_garbage_too_many_drops)
{
    jl_run *r = fx_new("llm", 1, 1);
    double t[] = {0, 1, 2, 3, 4, 5, 6}, w[] = {100, 100, 100, 100, 100, 100, 100};
    double e[] = {1000, 1100, 10, 110, 5, 105, 2};
    fx_power(r, 7, t, w, e);
    jl_summary *s = fx_sum(r);
    CHECK_CONTAINS(fx_warning(s, "counter_unusable"), "more than 2 times");
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 600, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Small decreases (< 1 J) are held at the running maximum: increments
 * 100, 100, 0, 200 -> exactly 400 J, nothing invented. */
TEST(counter_jitter_held)
{
    jl_run *r = fx_new("llm", 1, 1);
    double t[] = {0, 1, 2, 3, 4};
    double e[] = {0, 100, 200, 199.5, 400};
    fx_power(r, 5, t, NULL, e);
    jl_summary *s = fx_sum(r);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 400, 1e-12, 0);
    CHECK_CONTAINS(fx_warning(s, "counter_jitter"), "largest 0.5 J");
    CHECK(fx_warning(s, "counter_unusable") == NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Counter 100 J/s, watts 110 W: the integral is 10 % above the counter. The
 * counter is the source; disagreement +0.1, above 5 %: a warning. */
TEST(disagreement)
{
    jl_run *r = fx_new("diffusion", 1, 1);
    double t[11], w[11], e[11];
    for (int i = 0; i <= 10; i++) {
        t[i] = i;
        w[i] = 110;
        e[i] = 5e6 + 100.0 * i;
    }
    fx_power(r, 11, t, w, e);
    double bs[] = {2.25}, be[] = {6.75};
    int32_t sz[] = {1};
    fx_batches(r, 1, bs, be, sz);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->energy_source, JL_ENERGY_COUNTER);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 450, 1e-9, 0);
    CHECK_NEAR(FIG(s, ENERGY_SOURCE_DISAGREEMENT), 0.1, 1e-9, 0);
    CHECK_CONTAINS(fx_warning(s, "energy_sources_agree"), "+10.00 %");
    CHECK_NEAR(FIG(s, PEAK_POWER_W), 110, 0, 0); /* peaks from watts */
    jl_summary_free(s);
    jl_run_free(r);
}

/* Two GPUs at 100 W and 300 W; window [2, 8]: 600 J and 1800 J. */
TEST(multi_gpu)
{
    jl_run *r = fx_new("diffusion", 2, 1);
    r->attrs.gpu_idle_power_w = 50;
    double t[11], w[22];
    for (int i = 0; i <= 10; i++) {
        t[i] = i;
        w[2 * i] = 100;
        w[2 * i + 1] = 300;
    }
    fx_power(r, 11, t, w, NULL);
    double bs[] = {2}, be[] = {8};
    int32_t sz[] = {1};
    fx_batches(r, 1, bs, be, sz);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->num_gpus, 2);
    CHECK_NEAR(s->gpu_energy_j[0], 600, 1e-12, 0);
    CHECK_NEAR(s->gpu_energy_j[1], 1800, 1e-12, 0);
    CHECK_NEAR(s->gpu_avg_power_w[0], 100, 1e-12, 0);
    CHECK_NEAR(s->gpu_avg_power_w[1], 300, 1e-12, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 2400, 1e-12, 0);
    CHECK_NEAR(FIG(s, AVG_POWER_W), 400, 1e-12, 0);
    CHECK_NEAR(FIG(s, PEAK_POWER_W), 400, 1e-12, 0);
    CHECK_NEAR(FIG(s, IDLE_POWER_W), 100, 0, 0);
    CHECK_NEAR(FIG(s, STATIC_ENERGY_SHARE), 0.25, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* GPU 1's counter is garbage: it falls back to watts, GPU 0 keeps its
 * counter; the run reports the integral as its (least exact) source. */
TEST(multi_gpu_mixed_sources)
{
    jl_run *r = fx_new("llm", 2, 1);
    double t[5], w[10], e[10];
    for (int i = 0; i < 5; i++) {
        t[i] = i;
        w[2 * i] = 100;
        w[2 * i + 1] = 200;
        e[2 * i] = 50 + 90.0 * i; /* GPU 0: 90 J/s by the counter */
        e[2 * i + 1] = 1000 + 200.0 * i;
    }
    e[2 * 2 + 1] = 900; /* GPU 1: 1200 -> 900, not near zero */
    fx_power(r, 5, t, w, e);
    jl_summary *s = fx_sum(r);
    CHECK_EQ_INT(s->energy_source, JL_ENERGY_INTEGRAL);
    CHECK_NEAR(s->gpu_energy_j[0], 360, 1e-12, 0);
    CHECK_NEAR(s->gpu_energy_j[1], 800, 1e-12, 0);
    CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 1160, 1e-12, 0);
    CHECK_CONTAINS(fx_warning(s, "counter_unusable"), "GPU 1");
    /* disagreement over the GPU with both sources: (400 - 360) / 360 */
    CHECK_NEAR(FIG(s, ENERGY_SOURCE_DISAGREEMENT), 40.0 / 360, 1e-12, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

/* Missing data: no counter and no watts values usable, no idle power, no
 * tokens: NaN everywhere, never 0. */
TEST(missing_data_is_nan)
{
    jl_run *r = fx_new("llm", 1, 4);
    double t[] = {0, 1, 2, 3}, w[] = {100, NAN, 100, 100};
    fx_power(r, 4, t, w, NULL);
    jl_summary *s = fx_sum(r);
    CHECK(fx_warning(s, "watts_unusable") != NULL);
    CHECK_EQ_INT(s->energy_source, JL_ENERGY_NONE);
    CHECK_NAN(FIG(s, STEADY_ENERGY_J));
    CHECK_NAN(FIG(s, RUN_ENERGY_J));
    CHECK_NAN(FIG(s, ENERGY_PER_TOKEN_J));
    CHECK_NAN(FIG(s, STEADY_TOKENS));
    CHECK_NAN(FIG(s, IDLE_POWER_W));
    CHECK_NAN(FIG(s, STATIC_ENERGY_SHARE));
    CHECK_NAN(FIG(s, MEDIAN_ITL_S));
    CHECK_NAN(FIG(s, AVG_BATCH_SIZE));
    CHECK_NAN(FIG(s, COMPLETED_REQUESTS));
    CHECK_NAN(FIG(s, PREFILL_ENERGY_J));
    CHECK_NAN(FIG(s, AVG_SM_CLOCK_MHZ));
    CHECK(fx_warning(s, "no_tokens") != NULL);
    jl_summary_free(s);
    jl_run_free(r);
}

/* A window reaching more than 1 s beyond the power samples has no energy;
 * within 1 s it is extrapolated at the edge power. */
TEST(window_beyond_power_span)
{
    for (int far = 0; far <= 1; far++) {
        jl_run *r = fx_new("diffusion", 1, 1);
        double t[] = {1, 2, 3}, w[] = {100, 100, 200};
        fx_power(r, 3, t, w, NULL);
        double bs[] = {far ? -5.0 : 0.5}, be[] = {3.5};
        int32_t sz[] = {1};
        fx_batches(r, 1, bs, be, sz);
        jl_summary *s = fx_sum(r);
        if (far) {
            CHECK_NAN(FIG(s, STEADY_ENERGY_J));
            CHECK(fx_warning(s, "power_span") != NULL);
        } else {
            /* 0.5 x 100 + 100 + 150 + 0.5 x 200 = 400 */
            CHECK_NEAR(FIG(s, STEADY_ENERGY_J), 400, 1e-12, 0);
            CHECK(fx_warning(s, "power_span") == NULL);
        }
        jl_summary_free(s);
        jl_run_free(r);
    }
}

int main(void)
{
    RUN(integral_with_window_clipping);
    RUN(window_inside_one_interval);
    RUN(counter_restart_bridged_by_watts);
    RUN(counter_restart_bridged_by_neighbour_rates);
    RUN(counter_wrap);
    RUN(counter_garbage_back_and_forth);
    RUN(counter_garbage_not_near_zero);
    RUN(counter_garbage_too_many_drops);
    RUN(counter_jitter_held);
    RUN(disagreement);
    RUN(multi_gpu);
    RUN(multi_gpu_mixed_sources);
    RUN(missing_data_is_nan);
    RUN(window_beyond_power_span);
    TEST_MAIN_END();
}
