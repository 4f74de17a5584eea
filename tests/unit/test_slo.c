/* SLO expressions: good ones resolve to the right figures, bounds and
 * units; malformed ones fail with the offset of the bad part. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "joules/slo.h"
#include "test.h"

static jl_slo *parse_ok(const char *e)
{
    jl_slo *s = NULL;
    jl_error *err = NULL;
    size_t off = 99;
    jl_status st = jl_slo_parse(e, &s, &off, &err);
    if (st != JL_OK)
        fprintf(stderr, "unexpected failure for '%s': %s\n", e, err ? err->message : "?");
    CHECK(st == JL_OK);
    jl_error_free(err);
    return s;
}

/* Expect failure at offset `at` with `needle` in the message. */
static void parse_bad(const char *e, size_t at, const char *needle)
{
    jl_slo *s = NULL;
    jl_error *err = NULL;
    size_t off = 9999;
    jl_status st = jl_slo_parse(e, &s, &off, &err);
    CHECK(st == JL_EUSAGE);
    CHECK(s == NULL);
    if (off != at)
        fprintf(stderr, "  '%s': offset %zu, expected %zu (%s)\n", e, off, at,
                err ? err->message : "");
    CHECK_EQ_INT(off, at);
    CHECK(err != NULL);
    if (err)
        CHECK_CONTAINS(err->message, needle);
    jl_error_free(err);
}

TEST(simple_conditions)
{
    jl_slo *s = parse_ok("median_itl<=100ms");
    CHECK_EQ_INT(s->n, 1);
    CHECK_EQ_INT(s->conds[0].figure_llm, JL_FIG_MEDIAN_ITL_S);
    CHECK_EQ_INT(s->conds[0].op, JL_SLO_LE);
    CHECK_NEAR(s->conds[0].bound, 0.1, 1e-12, 0);
    jl_slo_free(s);

    s = parse_ok(" p90_itl <= 250 ms , ttft_p90<=2s ");
    CHECK_EQ_INT(s->n, 2);
    CHECK_EQ_INT(s->conds[0].figure_llm, JL_FIG_P90_ITL_S);
    CHECK_NEAR(s->conds[0].bound, 0.25, 1e-12, 0);
    CHECK_EQ_INT(s->conds[1].figure_llm, JL_FIG_TTFT_P90_S);
    CHECK_NEAR(s->conds[1].bound, 2.0, 1e-12, 0);
    char *canon = jl_slo_canonical(s);
    CHECK_STR(canon, "p90_itl_s<=0.25,ttft_p90_s<=2");
    free(canon);
    jl_slo_free(s);

    s = parse_ok("batch_latency<=30s");
    CHECK_EQ_INT(s->conds[0].figure_diffusion, JL_FIG_BATCH_LATENCY_S);
    CHECK_NEAR(s->conds[0].bound, 30, 1e-12, 0);
    jl_slo_free(s);

    s = parse_ok("median_itl_s<0.05");
    CHECK_EQ_INT(s->conds[0].op, JL_SLO_LT);
    CHECK_NEAR(s->conds[0].bound, 0.05, 1e-12, 0);
    jl_slo_free(s);

    s = parse_ok("batch_latency<=1.5min,avg_power<=1.2kW,energy_per_token<=500mJ");
    CHECK_NEAR(s->conds[0].bound, 90, 1e-12, 0);
    CHECK_EQ_INT(s->conds[1].figure_llm, JL_FIG_AVG_POWER_W);
    CHECK_NEAR(s->conds[1].bound, 1200, 1e-12, 0);
    CHECK_EQ_INT(s->conds[2].figure_llm, JL_FIG_ENERGY_PER_TOKEN_J);
    CHECK_NEAR(s->conds[2].bound, 0.5, 1e-12, 0);
    jl_slo_free(s);

    s = parse_ok("median_itl<=2.5e4us");
    CHECK_NEAR(s->conds[0].bound, 0.025, 1e-12, 0);
    jl_slo_free(s);

    /* the full figure name carries its unit: bare is in that unit */
    s = parse_ok("median_itl_s<=0.1,steady_energy_j<=1e6");
    CHECK_NEAR(s->conds[0].bound, 0.1, 1e-12, 0);
    jl_slo_free(s);
    /* figures without a time, energy or power unit may stay bare */
    s = parse_ok("static_energy_share<=0.4,avg_batch_size>=32,tokens_per_joule>=10");
    CHECK_NEAR(s->conds[0].bound, 0.4, 1e-12, 0);
    CHECK_NEAR(s->conds[1].bound, 32, 1e-12, 0);
    jl_slo_free(s);
    s = parse_ok("avg_kv_cache_usage<=90%");
    CHECK_NEAR(s->conds[0].bound, 0.9, 1e-12, 0);
    jl_slo_free(s);
}

TEST(workload_names)
{
    /* throughput: by workload, pinned by the unit */
    jl_slo *s = parse_ok("throughput>=5000tok/s");
    CHECK_EQ_INT(s->conds[0].op, JL_SLO_GE);
    CHECK_EQ_INT(s->conds[0].figure_llm, JL_FIG_OUTPUT_THROUGHPUT_TOK_S);
    CHECK_EQ_INT(s->conds[0].figure_diffusion, -1);
    jl_slo_free(s);
    s = parse_ok("throughput>=0.5items/s");
    CHECK_EQ_INT(s->conds[0].figure_llm, -1);
    CHECK_EQ_INT(s->conds[0].figure_diffusion, JL_FIG_ITEMS_PER_S);
    jl_slo_free(s);
    s = parse_ok("throughput>=2");
    CHECK_EQ_INT(s->conds[0].figure_llm, JL_FIG_OUTPUT_THROUGHPUT_TOK_S);
    CHECK_EQ_INT(s->conds[0].figure_diffusion, JL_FIG_ITEMS_PER_S);
    jl_slo_free(s);
    s = parse_ok("latency<=100ms");
    CHECK_EQ_INT(s->conds[0].figure_llm, JL_FIG_MEDIAN_ITL_S);
    CHECK_EQ_INT(s->conds[0].figure_diffusion, JL_FIG_BATCH_LATENCY_S);
    jl_slo_free(s);
    s = parse_ok("energy<=2J");
    CHECK_EQ_INT(s->conds[0].figure_llm, JL_FIG_ENERGY_PER_TOKEN_J);
    CHECK_EQ_INT(s->conds[0].figure_diffusion, JL_FIG_ENERGY_PER_ITEM_J);
    jl_slo_free(s);
    CHECK_EQ_INT(jl_slo_resolve_figure("p99_itl", "llm"), JL_FIG_P99_ITL_S);
    CHECK_EQ_INT(jl_slo_resolve_figure("latency", "diffusion"), JL_FIG_BATCH_LATENCY_S);
    CHECK_EQ_INT(jl_slo_resolve_figure("nonsense", NULL), -1);
}

TEST(malformed)
{
    parse_bad("", 0, "expected a condition");
    parse_bad("median_itl", 10, "expected an operator");
    parse_bad("median_itl=100ms", 10, "expected an operator");
    parse_bad("median_itl<=", 12, "expected a non-negative number");
    parse_bad("median_itl<=-5ms", 12, "expected a non-negative number");
    parse_bad("median_itl<=100parsecs", 15, "unknown unit 'parsecs'");
    /* a bare number on a time, energy or power figure is refused, the
     * caret at the end of the number, the units accepted named */
    parse_bad("median_itl<=10", 14, "'10' needs a unit");
    parse_bad("median_itl<=10", 14, "s ms us min h");
    parse_bad("p90_itl<=250,ttft_p90<=2s", 12, "figure 'p90_itl' is s");
    parse_bad("batch_latency <= 30 ", 20, "needs a unit");
    parse_bad("energy_per_token<=0.5", 21, "J/token");
    parse_bad("avg_power<=700", 14, "W mW kW MW");
    parse_bad("steady_energy<=1e6", 18, "J mJ kJ");
    parse_bad("median_itl<=100J", 15, "does not fit");
    parse_bad("foo<=1s", 0, "unknown figure 'foo'");
    parse_bad("median_itl<=100ms,", 18, "expected a condition");
    parse_bad("median_itl<=100ms,,p90_itl<=1s", 18, "expected a condition");
    parse_bad("median_itl<=100ms p90_itl<=1s", 18, "expected ','");
}

TEST(malformed_more)
{
    parse_bad("p90_itl<=250ms;ttft_p90<=2s", 14, "expected ','");
    parse_bad("throughput>=5000tok/s/s", 16, "unknown unit");
    parse_bad("batch_latency<=30 s extra", 20, "expected ','");
    parse_bad("3<=median_itl", 0, "expected a figure name");
    parse_bad("median_itl<=1e999ms", 12, "out of range");
}

/* Names as people write them: the percentile before or after, vLLM's mean
 * TPOT, the ML.ENERGY toolkit's names with a bare number in their unit. */
static void same_as(const char *e, int figure, double bound)
{
    jl_slo *s = parse_ok(e);
    if (!s)
        return;
    CHECK_EQ_INT(s->n, 1);
    CHECK_EQ_INT(s->conds[0].figure_llm, figure);
    CHECK_NEAR(s->conds[0].bound, bound, 1e-12, 1e-15);
    jl_slo_free(s);
}

TEST(names_people_write)
{
    same_as("p90_ttft<=2s", JL_FIG_TTFT_P90_S, 2);
    same_as("ttft_p90<=2s", JL_FIG_TTFT_P90_S, 2);
    same_as("p90_ttft_s<=2", JL_FIG_TTFT_P90_S, 2);
    same_as("median_ttft<=500ms", JL_FIG_TTFT_MEDIAN_S, 0.5);
    same_as("itl_p90<=100ms", JL_FIG_P90_ITL_S, 0.1);
    same_as("mean_tpot<=40ms", JL_FIG_AVG_TPOT_S, 0.04);
    same_as("median_itl_ms<=50", JL_FIG_MEDIAN_ITL_S, 0.05);
    same_as("p90_ttft_ms<=2000", JL_FIG_TTFT_P90_S, 2);
    same_as("ttft_p90_ms<=2000", JL_FIG_TTFT_P90_S, 2);
    same_as("median_itl_ms<=0.05s", JL_FIG_MEDIAN_ITL_S, 0.05);
    same_as("energy_per_token_joules<=0.1", JL_FIG_ENERGY_PER_TOKEN_J, 0.1);
    same_as("avg_power_watts<=700", JL_FIG_AVG_POWER_W, 700);
    CHECK_EQ_INT(jl_slo_resolve_figure("p90_ttft", "llm"), JL_FIG_TTFT_P90_S);
    /* a figure joules does not have says what it has */
    parse_bad("median_tpot<=50ms", 0, "mean_tpot");
    parse_bad("p90_tpot_ms<=50", 0, "median_itl");
    parse_bad("mean_itl_ms<=50", 0, "no mean ITL");
    parse_bad("p90_ttf<=1s", 0, "did you mean 'p90_ttft'?");
}

/* A misspelt figure gets the closest known name; a far one gets none. */
TEST(suggestions)
{
    parse_bad("p90_itll<=1s", 0, "did you mean 'p90_itl'?");
    /* a typed name, whatever its case; the 50th percentile is the median */
    jl_slo *up = parse_ok("P90_ITL<=1s");
    CHECK_EQ_INT(up->conds[0].figure_llm, JL_FIG_P90_ITL_S);
    jl_slo_free(up);
    for (int k = 0; k < 2; k++) {
        jl_slo *p50 = parse_ok(k ? "ttft_p50<=2s" : "p50_itl<=50ms");
        CHECK_EQ_INT(p50->conds[0].figure_llm, k ? JL_FIG_TTFT_MEDIAN_S : JL_FIG_MEDIAN_ITL_S);
        jl_slo_free(p50);
    }
    parse_bad("throughpt>=5tok/s", 0, "did you mean 'throughput'?");
    parse_bad("energy_per_tokn<=1J", 0, "did you mean 'energy_per_token'?");
    char buf[64];
    CHECK(jl_slo_suggest_figure("median_itl_ms", buf, sizeof buf));
    CHECK_STR(buf, "median_itl_s");
    CHECK(jl_slo_suggest_figure("ttft_p9", buf, sizeof buf));
    CHECK_STR(buf, "ttft_p90");
    CHECK(!jl_slo_suggest_figure("foo", buf, sizeof buf));
    CHECK_STR(buf, "");
    CHECK(!jl_slo_suggest_figure("completely_unrelated_words", buf, sizeof buf));
    CHECK(!jl_slo_suggest_figure("", buf, sizeof buf));
    CHECK(!jl_slo_suggest_figure(NULL, buf, sizeof buf));
    /* too small a buffer: no suggestion rather than a cut one */
    char tiny[4];
    CHECK(!jl_slo_suggest_figure("p90_itll", tiny, sizeof tiny));
    /* names longer than the distance table give up cleanly */
    char longname[200];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK(!jl_slo_suggest_figure(longname, buf, sizeof buf));
}

TEST(caret)
{
    char *c = jl_slo_caret("median_itl<=100parsecs", 15);
    CHECK_STR(c, "  median_itl<=100parsecs\n                 ^");
    free(c);
}

static jl_summary *run_with(const char *workload, jl_figure f, double v)
{
    jl_summary *s = jl_summary_new();
    s->attrs.workload = strdup(workload);
    s->fig[f] = v;
    return s;
}

TEST(evaluation)
{
    jl_slo *s = parse_ok("median_itl<=100ms");
    jl_summary *a = run_with("llm", JL_FIG_MEDIAN_ITL_S, 0.08);
    jl_summary *b = run_with("llm", JL_FIG_MEDIAN_ITL_S, 0.12);
    jl_summary *d = run_with("diffusion", JL_FIG_BATCH_LATENCY_S, 3);
    jl_summary *e = run_with("llm", JL_FIG_MEDIAN_ITL_S, 0.1);
    double m;
    CHECK_EQ_INT(jl_slo_eval(s, a, &m), JL_SLO_PASS);
    CHECK_NEAR(m, -0.2, 1e-9, 0);
    CHECK_EQ_INT(jl_slo_eval(s, b, &m), JL_SLO_FAIL);
    CHECK_NEAR(m, 0.2, 1e-9, 0);
    CHECK_EQ_INT(jl_slo_eval(s, d, &m), JL_SLO_MISSING);
    CHECK_EQ_INT(jl_slo_eval(s, e, NULL), JL_SLO_PASS); /* bound included */
    jl_slo_free(s);
    s = parse_ok("median_itl<100ms");
    CHECK_EQ_INT(jl_slo_eval(s, e, NULL), JL_SLO_FAIL); /* strict */
    jl_slo_free(s);
    s = parse_ok("throughput>=1000");
    jl_summary *t = run_with("llm", JL_FIG_OUTPUT_THROUGHPUT_TOK_S, 800);
    CHECK_EQ_INT(jl_slo_eval(s, t, &m), JL_SLO_FAIL);
    CHECK_NEAR(m, 0.2, 1e-9, 0);
    CHECK_EQ_INT(jl_slo_eval(NULL, t, &m), JL_SLO_PASS);
    jl_slo_free(s);
    jl_summary_free(a);
    jl_summary_free(b);
    jl_summary_free(d);
    jl_summary_free(e);
    jl_summary_free(t);
}

int main(void)
{
    RUN(simple_conditions);
    RUN(workload_names);
    RUN(malformed);
    RUN(malformed_more);
    RUN(suggestions);
    RUN(names_people_write);
    RUN(caret);
    RUN(evaluation);
    TEST_MAIN_END();
}
