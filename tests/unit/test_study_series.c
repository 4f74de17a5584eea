/* jl_study_power_series (src/study/series.c): a run's power over time read
 * back from its trace file and averaged in buckets, the series the report's
 * power figure draws; and the shared helpers of core/util.h and
 * joules/descriptors.h that replaced local copies (NULL-safe string
 * comparison, precision names). */
#define _POSIX_C_SOURCE 200809L
#include "joules/descriptors.h"
#include "joules/study.h"
#include "test_trace_fixtures.h"

/* Write runs into NAME under the test folder; returns its path. */
static char *write_runs(const char *name, jl_run **runs, size_t n)
{
    char *path = tf_path(name);
    jl_trace_writer *w = NULL;
    jl_error *err = NULL;
    CHECK(jl_trace_writer_open(path, NULL, &w, &err) == JL_OK);
    for (size_t i = 0; i < n; i++)
        CHECK(jl_trace_writer_add_run(w, runs[i], &err) == JL_OK);
    CHECK(jl_trace_writer_commit(w, &err) == JL_OK);
    jl_error_free(err);
    return path;
}

static jl_summary *summary_of(const char *file, const char *run)
{
    jl_summary *s = jl_summary_new();
    s->file = jl__strdup(file);
    s->run = jl__strdup(run);
    return s;
}

static jl_power_series *series_of(const char *file, const char *run, size_t max_points)
{
    jl_summary *s = summary_of(file, run);
    jl_power_series *ps = NULL;
    jl_error *err = NULL;
    jl_status st = jl_study_power_series(s, max_points, &ps, &err);
    CHECK_EQ_INT(st, JL_OK);
    CHECK(ps != NULL);
    jl_error_free(err);
    jl_summary_free(s);
    return ps;
}

/* 10 samples 0.1 s apart on 2 GPUs: watts 100.5 + i (+10 on GPU 1), so all
 * GPUs draw 211 + 2i W; the 1 s average 300 + 0.5i W; running requests
 * 1, 2, 3, 4, 8, 8, 8 at 0.05 + 0.1j s. */
TEST(bucket_means)
{
    jl_run *r = tf_make_run("b8", 10, 2);
    char *path = write_runs("llm.h5", &r, 1);

    /* 4 buckets: samples [0,2) [2,5) [5,7) [7,10) */
    jl_power_series *ps = series_of(path, "b8", 4);
    if (ps) {
        CHECK_EQ_INT(ps->n, 4);
        CHECK_EQ_INT(ps->n_samples, 10);
        CHECK(ps->has_power_avg);
        CHECK(ps->has_running);
        CHECK_NEAR(ps->first_s, 0.0, 0, 1e-12);
        CHECK_NEAR(ps->last_s, 0.9, 0, 1e-12);
        CHECK_NEAR(ps->time_s[0], 0.05, 0, 1e-12);
        CHECK_NEAR(ps->power_w[0], 212.0, 0, 1e-9);
        CHECK_NEAR(ps->power_avg_w[0], 300.25, 0, 1e-9);
        CHECK_NEAR(ps->running[0], 1.0, 0, 0);
        CHECK_NEAR(ps->time_s[1], 0.3, 0, 1e-12);
        CHECK_NEAR(ps->power_w[1], 217.0, 0, 1e-9);
        CHECK_NEAR(ps->power_avg_w[1], 301.5, 0, 1e-9);
        CHECK_NEAR(ps->running[1], 3.0, 0, 0); /* the last report at or before 0.3 s: 0.25 s */
        CHECK_NEAR(ps->time_s[3], 0.8, 0, 1e-12);
        CHECK_NEAR(ps->power_w[3], 227.0, 0, 1e-9);
        CHECK_NEAR(ps->running[3], 8.0, 0, 0);
    }
    jl_power_series_free(ps);

    /* more points allowed than samples: one bucket per sample */
    ps = series_of(path, "b8", 1200);
    if (ps) {
        CHECK_EQ_INT(ps->n, 10);
        CHECK_NEAR(ps->power_w[9], 229.0, 0, 1e-9);
        CHECK_NEAR(ps->power_avg_w[9], 304.5, 0, 1e-9);
    }
    jl_power_series_free(ps);
    jl_run_free(r);
    free(path);
}

/* Without watts: the power is the energy counter's derivative (12.5 J per
 * 0.1 s on each of 2 GPUs = 250 W), missing at the first sample. */
TEST(energy_counter_and_batches)
{
    jl_run *r = tf_make_run("counter", 10, 2);
    free(r->watts.v);
    free(r->watts_avg.v);
    r->watts.v = r->watts_avg.v = NULL;
    r->watts.n = r->watts_avg.n = r->watts.g = r->watts_avg.g = 0;
    jl_run *d =
        tf_make_diffusion_run("img", 40); /* batches of 4 over [0, 1.4) [1.5, 2.9) [3, 4.4) */
    jl_run *runs[] = {r, d};
    char *path = write_runs("counter.h5", runs, 2);

    jl_power_series *ps = series_of(path, "counter", 100);
    if (ps) {
        CHECK_EQ_INT(ps->n, 10);
        CHECK(!ps->has_power_avg);
        CHECK(isnan(ps->power_w[0]));
        CHECK_NEAR(ps->power_w[1], 250.0, 1e-9, 0);
        CHECK_NEAR(ps->power_w[9], 250.0, 1e-9, 0);
        CHECK(isnan(ps->power_avg_w[3]));
    }
    jl_power_series_free(ps);

    ps = series_of(path, "img", 100);
    if (ps) {
        CHECK_EQ_INT(ps->n, 40);
        CHECK(ps->has_running);
        CHECK_NEAR(ps->running[10], 4.0, 0, 0); /* 1.0 s: the first batch */
        CHECK_NEAR(ps->running[20], 4.0, 0, 0); /* 2.0 s: the second */
    }
    jl_power_series_free(ps);
    jl_run_free(r);
    jl_run_free(d);
    free(path);
}

/* A summary-only run has no series (not an error); a run or file that is not
 * there is an error naming the file. */
TEST(summary_only_and_missing)
{
    jl_run *r = tf_make_summary_run("published");
    char *path = write_runs("summary.h5", &r, 1);
    jl_power_series *ps = series_of(path, "published", 1200);
    if (ps) {
        CHECK_EQ_INT(ps->n_samples, 0);
        CHECK_EQ_INT(ps->n, 0);
    }
    jl_power_series_free(ps);

    jl_summary *s = summary_of(path, "nope");
    jl_error *err = NULL;
    ps = NULL;
    CHECK_EQ_INT(jl_study_power_series(s, 1200, &ps, &err), JL_EMISSING);
    CHECK(ps == NULL);
    CHECK(err && err->file && !strcmp(err->file, path));
    jl_error_free(err);
    jl_summary_free(s);

    char *gone = tf_path("gone.h5");
    s = summary_of(gone, "b8");
    err = NULL;
    CHECK(jl_study_power_series(s, 1200, &ps, &err) != JL_OK);
    CHECK(ps == NULL);
    CHECK(err != NULL);
    jl_error_free(err);
    jl_summary_free(s);
    free(gone);
    jl_run_free(r);
    free(path);
}

TEST(string_comparison_variants)
{
    CHECK(jl__strcmp_null_first(NULL, "a") < 0);
    CHECK(jl__strcmp_null_first("a", NULL) > 0);
    CHECK(jl__strcmp_null_last(NULL, "a") > 0);
    CHECK(jl__strcmp_null_last("a", NULL) < 0);
    CHECK_EQ_INT(jl__strcmp_null_first(NULL, NULL), 0);
    CHECK_EQ_INT(jl__strcmp_null_last(NULL, NULL), 0);
    CHECK(jl__strcmp_null_first("a", "b") < 0 && jl__strcmp_null_last("b", "a") > 0);
    CHECK(jl__str_eq("x", "x") && !jl__str_eq("x", "X") && !jl__str_eq(NULL, NULL) &&
          !jl__str_eq(NULL, "x"));
    CHECK(jl__str_eq_or_null("x", "x") && jl__str_eq_or_null(NULL, NULL) &&
          !jl__str_eq_or_null(NULL, "x") && !jl__str_eq_or_null("x", "y"));
}

TEST(precision_names)
{
    CHECK(jl_precision_is_reference(JL_REFERENCE_PRECISION));
    CHECK(jl_precision_is_reference("bf16"));
    CHECK(!jl_precision_is_reference("BF16")); /* exact, as the report's baseline has been */
    CHECK(!jl_precision_is_reference("fp16") && !jl_precision_is_reference(NULL));
    CHECK(jl_precision_is_16bit("BFloat16") && jl_precision_is_16bit("fp16") &&
          jl_precision_is_16bit("half") && jl_precision_is_16bit("float16"));
    CHECK(!jl_precision_is_16bit("fp8") && !jl_precision_is_16bit(NULL));
    CHECK_NEAR(jl_precision_bytes_per_param("BFLOAT16"), 2.0, 0, 0);
    CHECK_NEAR(jl_precision_bytes_per_param("float16"), 2.0, 0, 0);
    CHECK_NEAR(jl_precision_bytes_per_param("fp8"), 1.0, 0, 0);
    CHECK_NEAR(jl_precision_bytes_per_param("float32"), 4.0, 0, 0);
    CHECK(isnan(jl_precision_bytes_per_param("bf16"))); /* the descriptor decides */
    CHECK(isnan(jl_precision_bytes_per_param(NULL)));
}

int main(void)
{
    tf_init("test_study_series");
    RUN(bucket_means);
    RUN(energy_counter_and_batches);
    RUN(summary_only_and_missing);
    RUN(string_comparison_variants);
    RUN(precision_names);
    if (!jt_failures)
        tf_cleanup();
    TEST_MAIN_END();
}
