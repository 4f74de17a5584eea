/* Unit tests of the validation rules. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "joules/check.h"
#include "test.h"
#include "test_summary_fixture.h"

static jl_summary *loaded_run(void)
{
    jl_summary *s = jl_summary_new();
    s->attrs.workload = strdup("llm");
    s->attrs.gpu_model = strdup("H100");
    s->attrs.num_gpus = 2;
    s->attrs.max_batch_size = 64;
    s->attrs.gpu_tdp_w = 700;
    s->attrs.gpu_idle_power_w = 100;
    s->steady_method = JL_STEADY_REQUESTS;
    s->fig[JL_FIG_POWER_SAMPLE_COVERAGE] = 1.0;
    s->fig[JL_FIG_STEADY_DURATION_S] = 30;
    s->fig[JL_FIG_AVG_BATCH_SIZE] = 60;
    s->fig[JL_FIG_AVG_POWER_W] = 1000;  /* 500 W per GPU */
    s->fig[JL_FIG_PEAK_POWER_W] = 1600; /* 800 W per GPU: 1.14 x TDP */
    s->fig[JL_FIG_ENERGY_SOURCE_DISAGREEMENT] = -0.01;
    s->fig[JL_FIG_AVG_SM_CLOCK_MHZ] = 1900;
    s->fig[JL_FIG_COMPLETED_REQUESTS] = 100;
    s->fig[JL_FIG_FAILED_REQUESTS] = 0;
    s->power_rise_lag_s = 0.2;
    return s;
}

TEST(all_pass_on_a_good_run)
{
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    jl_summary *s = loaded_run();
    jl_check_result res[JL_RULE_COUNT];
    CHECK_EQ_INT(jl_check_run(s, &rs, NULL, res), JL_OK);
    for (int r = 0; r < JL_RULE_COUNT; r++)
        CHECK_EQ_INT(res[r].level, r == JL_RULE_PUBLISHED_AGREES ? JL_CHECK_SKIP : JL_CHECK_PASS);
    CHECK_CONTAINS(res[JL_RULE_PUBLISHED_AGREES].message,
                   "no published figures beside time series");
    CHECK_NEAR(res[JL_RULE_BATCH_SATURATION].value, 60.0 / 64, 1e-12, 0);
    CHECK_NEAR(res[JL_RULE_POWER_BELOW_TDP].value, 500.0 / 700, 1e-12, 0);
    jl_check_results_clear(res);
    jl_summary_free(s);
}

TEST(warn_fail_and_skip)
{
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    jl_summary *s = loaded_run();
    s->fig[JL_FIG_AVG_BATCH_SIZE] = 20;               /* 0.31 < fail 0.5 */
    s->fig[JL_FIG_ENERGY_SOURCE_DISAGREEMENT] = 0.08; /* warn */
    s->fig[JL_FIG_AVG_SM_CLOCK_MHZ] = NAN;            /* skip: no gpu/ */
    s->fig[JL_FIG_STEADY_DURATION_S] = 3;             /* warn (< 5 s) */
    jl_check_result res[JL_RULE_COUNT];
    CHECK_EQ_INT(jl_check_run(s, &rs, NULL, res), JL_OK);
    CHECK_EQ_INT(res[JL_RULE_BATCH_SATURATION].level, JL_CHECK_FAIL);
    CHECK_EQ_INT(res[JL_RULE_ENERGY_SOURCES_AGREE].level, JL_CHECK_WARN);
    CHECK_EQ_INT(res[JL_RULE_SM_CLOCK_SANITY].level, JL_CHECK_SKIP);
    CHECK_CONTAINS(res[JL_RULE_SM_CLOCK_SANITY].message, "sm_clock");
    CHECK_EQ_INT(res[JL_RULE_STEADY_DURATION].level, JL_CHECK_WARN);
    jl_check_results_clear(res);
    CHECK_EQ_INT(jl_check_annotate(s, &rs, NULL), JL_OK);
    CHECK_EQ_INT(s->n_warnings, 3);
    CHECK_STR(s->warnings[0].rule, "check:steady_duration");
    jl_summary_free(s);
}

/* A skip names the figure or attribute it lacks. */
TEST(skips_name_the_data)
{
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    jl_summary *s = loaded_run();
    s->fig[JL_FIG_POWER_SAMPLE_COVERAGE] = NAN;
    s->fig[JL_FIG_STEADY_DURATION_S] = NAN;
    s->fig[JL_FIG_AVG_BATCH_SIZE] = NAN;
    s->fig[JL_FIG_AVG_POWER_W] = NAN;
    s->fig[JL_FIG_PEAK_POWER_W] = NAN;
    jl_check_result res[JL_RULE_COUNT];
    CHECK_EQ_INT(jl_check_run(s, &rs, NULL, res), JL_OK);
    CHECK_CONTAINS(res[JL_RULE_POWER_SAMPLE_COVERAGE].message, "no power_sample_coverage");
    CHECK_CONTAINS(res[JL_RULE_STEADY_DURATION].message, "no steady_duration_s");
    CHECK_CONTAINS(res[JL_RULE_BATCH_SATURATION].message, "no avg_batch_size");
    CHECK_CONTAINS(res[JL_RULE_POWER_BELOW_TDP].message, "no avg_power_w");
    CHECK_CONTAINS(res[JL_RULE_POWER_ABOVE_IDLE].message, "no avg_power_w");
    CHECK_CONTAINS(res[JL_RULE_PEAK_WITHIN_LIMIT].message, "no peak_power_w");
    for (int r = 0; r < JL_RULE_COUNT; r++)
        if (res[r].level == JL_CHECK_SKIP && strstr(res[r].message, "data needed"))
            CHECK(!"a skip says 'the data needed' without naming it");
    jl_check_results_clear(res);
    s->attrs.max_batch_size = -1;
    CHECK_EQ_INT(jl_check_run(s, &rs, NULL, res), JL_OK);
    CHECK_CONTAINS(res[JL_RULE_BATCH_SATURATION].message, "no max_batch_size attribute");
    jl_check_results_clear(res);
    jl_summary_free(s);
}

TEST(tuning)
{
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    jl_error *err = NULL;
    CHECK_EQ_INT(jl_ruleset_set(&rs, "batch_saturation.fail=0.2", &err), JL_OK);
    CHECK_NEAR(rs.rules[JL_RULE_BATCH_SATURATION].fail, 0.2, 0, 0);
    CHECK_EQ_INT(jl_ruleset_set(&rs, "sm_clock_sanity=off", &err), JL_OK);
    CHECK_EQ_INT(rs.rules[JL_RULE_SM_CLOCK_SANITY].enabled, 0);
    CHECK_EQ_INT(jl_ruleset_set(&rs, "no_such_rule.warn=1", &err), JL_EUSAGE);
    CHECK_CONTAINS(err ? err->message : NULL, "unknown rule 'no_such_rule'");
    jl_error_free(err);
    err = NULL;
    CHECK_EQ_INT(jl_ruleset_set(&rs, "steady_duration.warn=abc", &err), JL_EUSAGE);
    CHECK_CONTAINS(err ? err->message : NULL, "not a number");
    jl_error_free(err);
    err = NULL;
    char path[] = "/tmp/joules-rules-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(
        "{\"version\": \"joules.rules/1\", \"rules\": {\"steady_duration\": {\"warn\": 20, \"fail\": 4}}}",
        f);
    fclose(f);
    CHECK_EQ_INT(jl_ruleset_load_json(&rs, path, &err), JL_OK);
    CHECK_NEAR(rs.rules[JL_RULE_STEADY_DURATION].warn, 20, 0, 0);
    f = fopen(path, "w");
    fputs("{\"version\": \"joules.rules/1\", \"rules\": {\"steady_duration\": {\"wran\": 20}}}", f);
    fclose(f);
    CHECK_EQ_INT(jl_ruleset_load_json(&rs, path, &err), JL_EFORMAT);
    CHECK_CONTAINS(err ? err->message : NULL, "wran");
    jl_error_free(err);
    remove(path);
}

/* A one-GPU run: idle 100 W until `rise`, then 400 W to 30 s, idle again
 * to 34 s, sampled every `dt`; 20 requests arriving from 0 s (as a RUNS.csv
 * start placed them), each taking 10 s. */
static jl_summary *aligned_at(double rise, double dt)
{
    jl_run *r = fx_new("llm", 1, 16);
    size_t n = (size_t)(34.0 / dt) + 1;
    double *t = malloc(n * sizeof *t), *w = malloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        t[i] = (double)i * dt;
        w[i] = t[i] >= rise && t[i] <= 30 ? 400 : 100;
    }
    fx_power(r, n, t, w, NULL);
    double arr[20], first[20], fin[20];
    int32_t out[20];
    for (int i = 0; i < 20; i++) {
        arr[i] = i;
        first[i] = i + 0.2;
        fin[i] = i + 10;
        out[i] = 100;
    }
    fx_requests(r, 20, arr, first, fin, out);
    jl_summary *s = fx_sum(r);
    free(t);
    free(w);
    jl_run_free(r);
    return s;
}

/* window_alignment's level (and *value) for a run from aligned_at(). */
static jl_check_level alignment_level(double rise, double dt, const jl_ruleset *rs, double *value)
{
    jl_summary *s = aligned_at(rise, dt);
    jl_check_result res[JL_RULE_COUNT];
    jl_check_level l = JL_CHECK_SKIP;
    if (s && jl_check_run(s, rs, NULL, res) == JL_OK) {
        l = res[JL_RULE_WINDOW_ALIGNMENT].level;
        *value = res[JL_RULE_WINDOW_ALIGNMENT].value;
        jl_check_results_clear(res);
    }
    jl_summary_free(s);
    return l;
}

TEST(window_alignment)
{
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    double v = NAN;
    /* power up with the first request (sampled at 100 ms): pass */
    CHECK_EQ_INT(alignment_level(0, 0.1, &rs, &v), JL_CHECK_PASS);
    CHECK(v <= 0);
    /* the window placed 4 s before the load: fail, the lag measured */
    CHECK_EQ_INT(alignment_level(4, 0.1, &rs, &v), JL_CHECK_FAIL);
    CHECK_NEAR(v, 3.9, 1e-9, 0);
    /* 2 s: warn */
    CHECK_EQ_INT(alignment_level(2, 0.1, &rs, &v), JL_CHECK_WARN);
    /* an aligned log sampled every 5 s (nvidia-smi -l 5): the rise lies
     * between two samples, no lag of the sampling's own */
    CHECK_EQ_INT(alignment_level(0.5, 5, &rs, &v), JL_CHECK_PASS);
    /* summarize's warning */
    jl_summary *s = aligned_at(4, 0.1);
    CHECK_EQ_INT(jl_check_annotate(s, &rs, NULL), JL_OK);
    CHECK_CONTAINS(fx_warning(s, "check:window_alignment"), "fail: window_alignment = 3.9 s");
    jl_summary_free(s);
    /* tunable */
    CHECK_EQ_INT(jl_ruleset_set(&rs, "window_alignment.fail=0.1", NULL), JL_OK);
    CHECK_EQ_INT(alignment_level(2, 0.1, &rs, &v), JL_CHECK_FAIL);
    /* no requests: skipped, saying why */
    jl_run *r = fx_new("llm", 1, 16);
    double t[3] = {0, 1, 2}, w[3] = {100, 400, 400};
    fx_power(r, 3, t, w, NULL);
    s = fx_sum(r);
    jl_check_result res[JL_RULE_COUNT];
    CHECK_EQ_INT(jl_check_run(s, &rs, NULL, res), JL_OK);
    CHECK_EQ_INT(res[JL_RULE_WINDOW_ALIGNMENT].level, JL_CHECK_SKIP);
    CHECK_CONTAINS(res[JL_RULE_WINDOW_ALIGNMENT].message, "no requests/");
    jl_check_results_clear(res);
    jl_summary_free(s);
    jl_run_free(r);
}

int main(void)
{
    RUN(window_alignment);
    RUN(all_pass_on_a_good_run);
    RUN(warn_fail_and_skip);
    RUN(skips_name_the_data);
    RUN(tuning);
    TEST_MAIN_END();
}
