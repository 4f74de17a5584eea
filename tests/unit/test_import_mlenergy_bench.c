/* ML.ENERGY Benchmark import: the streaming JSON parser, the Prometheus
 * text parser, the hand-made run directories in tests/fixtures/
 * mlenergy-benchmark (figures worked out by hand in the fixture generator
 * tests/import/make_mlenergy_bench_fixtures.py), and bad input named by
 * file, JSON path and line. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/prom_text.h"
#include "joules/import.h"
#include "joules/summary.h"
#include "test.h"
#include "json/json_internal.h"

#define FIX JOULES_SOURCE_DIR "/tests/fixtures/mlenergy-benchmark"

TEST(stream_parser)
{
    const char *doc =
        "{\"a\": [1, -2.5e1, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\","
        " \"skip\": {\"deep\": [\"long \\\" text\", {}]}, \"e\": []}";
    js p;
    jl__jstream_init_mem(&p, doc, strlen(doc), 1024);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_OBJ_START);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_KEY);
    CHECK_STR(p.str, "a");
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_NUM);
    CHECK_NEAR(p.num, 1, 0, 0);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_NUM);
    CHECK_NEAR(p.num, -25, 0, 0);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_TRUE);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_FALSE);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_NULL);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_END);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_KEY);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_STR);
    CHECK_STR(p.str, "x\xc3\xa9\xf0\x9f\x98\x80\n");
    CHECK_EQ_INT(jl__jstream_next(&p), JS_KEY);
    CHECK_EQ_INT(jl__jstream_skip(&p), 0);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_KEY);
    CHECK_STR(p.str, "e");
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_END);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_OBJ_END);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_EOF);
    jl__jstream_free(&p);
    /* malformed: each is an error, never a crash */
    const char *bad[] = {"{\"a\": 01}",
                         "{\"a\" 1}",
                         "[1,]",
                         "{\"a\": 1,}",
                         "[1 2]",
                         "\"\\x\"",
                         "\"\\ud800\"",
                         "{\"a\": tru}",
                         "[",
                         "{\"a\": \"cut",
                         "1 2",
                         "}",
                         ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jl__jstream_init_mem(&p, bad[i], strlen(bad[i]), 1024);
        int err = 0;
        for (int k = 0; k < 50; k++) {
            jl__jstream_tok t = jl__jstream_next(&p);
            if (t == JS_ERROR) {
                err = 1;
                break;
            }
            if (t == JS_EOF)
                break;
        }
        if (!err)
            fprintf(stderr, "not rejected: %s\n", bad[i]);
        CHECK(err);
        CHECK(p.err[0] != '\0');
        jl__jstream_free(&p);
    }
    /* from a file, read in small chunks: strings across chunk borders */
    char path[] = "/tmp/joules_js_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w+");
    fputs("{\"k\": \"", f);
    for (int i = 0; i < 20000; i++)
        fputs("ab\\\"c", f);
    fputs("\", \"n\": 12.5}", f);
    rewind(f);
    jl__jstream_init_file(&p, f, 100, 1024);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_OBJ_START);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_KEY);
    CHECK_EQ_INT(jl__jstream_skip(&p), 0); /* 100 KB string skipped, never kept */
    CHECK_EQ_INT(jl__jstream_next(&p), JS_KEY);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_NUM);
    CHECK_NEAR(p.num, 12.5, 0, 0);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_OBJ_END);
    CHECK_EQ_INT(jl__jstream_next(&p), JS_EOF);
    jl__jstream_free(&p);
    fclose(f);
    unlink(path);
}

TEST(prometheus_text)
{
    const char *t = "# HELP vllm:num_requests_running Running.\n"
                    "# TYPE vllm:num_requests_running gauge\n"
                    "vllm:num_requests_running{engine=\"0\",model_name=\"a \\\"b\\\" c\"} 3\n"
                    "vllm:num_requests_running{engine=\"1\"} 4.5 1700000000000\n"
                    "vllm:num_requests_running_total 100\n"
                    "vllm:x_bucket{le=\"+Inf\"} 7\n"
                    "vllm:kv{} NaN\n"
                    "\n";
    const char *names[] = {"vllm:num_requests_running", "vllm:kv"};
    double sum[2];
    size_t cnt[2];
    long line = 0;
    char msg[128];
    CHECK_EQ_INT(jl__prom_sums(t, strlen(t), names, 2, sum, cnt, &line, msg, sizeof msg), 0);
    CHECK_NEAR(sum[0], 7.5, 0, 0); /* two engines summed; _total not matched */
    CHECK_EQ_INT(cnt[0], 2);
    CHECK(isnan(sum[1]));
    const char *bad = "ok 1\nvllm:a{engine=\"0} 1\n";
    CHECK_EQ_INT(jl__prom_sums(bad, strlen(bad), names, 2, sum, cnt, &line, msg, sizeof msg), -1);
    CHECK_EQ_INT(line, 2);
    const char *bad2 = "vllm:a{engine=\"0\"} one\n";
    CHECK_EQ_INT(jl__prom_sums(bad2, strlen(bad2), names, 2, sum, cnt, &line, msg, sizeof msg), -1);
    CHECK_CONTAINS(msg, "not a number");
}

static const jl_run *find(const jl_import_result *r, const char *needle)
{
    for (size_t i = 0; i < r->n_runs; i++)
        if (strstr(r->runs[i]->name, needle))
            return r->runs[i];
    return NULL;
}

static const char *ax(const jl_run *r, const char *k)
{
    for (size_t i = 0; i < r->attrs.n_extra; i++)
        if (!strcmp(r->attrs.extra[i].key, k))
            return r->attrs.extra[i].value;
    return NULL;
}

/* Figure f as joules recomputes it from the series. The harness's own
 * figures (summary/, spec 1.1) are the run's headline where it published
 * them; the recomputed value then sits beside it (docs/summary.md). */
static double fig(const jl_run *run, jl_figure f)
{
    jl_summary *s = NULL;
    jl_error *e = NULL;
    double v = NAN;
    if (jl_summarize(run, NULL, &s, &e) == JL_OK)
        v = s->published && !isnan(s->published->recomputed[f]) ? s->published->recomputed[f]
                                                                : s->fig[f];
    jl_summary_free(s);
    jl_error_free(e);
    return v;
}

TEST(fixtures)
{
    const char *paths[] = {FIX};
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy_benchmark(paths, 1, NULL, &r, &errs) == JL_OK);
    CHECK_EQ_INT(r->n_runs, 4);
    /* the truncated run: file, JSON path and line named; the others imported */
    CHECK_EQ_INT(errs.count, 1);
    if (errs.count) {
        CHECK_CONTAINS(errs.items[0]->file, "max_num_seqs+8/results.json");
        CHECK_STR(errs.items[0]->object, "results[1]");
        CHECK_CONTAINS(errs.items[0]->message, "line 145: the file ends inside an object");
    }
    /* 1. one GPU, rate inf: steps 100/300/100 W -> 2200 J over 10 s */
    const jl_run *a = find(r, "Tiny-1B__H100__num_gpus+1+max_num_seqs+2");
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(a->attrs.workload, "llm");
        CHECK_STR(a->attrs.task, "lm-arena-chat");
        CHECK_STR(a->attrs.model, "org/Tiny-1B");
        CHECK_EQ_INT(a->attrs.max_batch_size, 2);
        CHECK_NEAR(a->attrs.start_time_unix, 1700000000.0, 0, 0);
        CHECK_EQ_INT(a->req_n, 4);
        CHECK_NEAR(a->first_token[2], 3.0, 0, 0);
        CHECK_NEAR(a->finish[3], 8.0, 0, 0);
        CHECK_EQ_INT(a->itl_n, 6 + 8 + 4 + 8);
        CHECK_EQ_INT(a->engine_n, 6);
        CHECK_EQ_INT(a->running[1], 2);
        CHECK_NEAR(a->kv_cache_usage[2], 0.5, 0, 1e-7);
        CHECK_EQ_INT(a->tokens_generated[5], 30);
        CHECK(a->watts_avg.v != NULL);
        CHECK_STR(a->power_watts_kind, "instant"); /* device_instant: NVML POWER_INSTANT */
        CHECK(ax(a, "requests_clock") != NULL);
        CHECK_NEAR(fig(a, JL_FIG_RUN_ENERGY_J), 2200.0, 1e-9, 0);
        /* request rule: window [1, 4] s (2 first tokens at 1 s; 1st finish at
         * 4 s): 100 W x 1 s + 300 W x 2 s = 700 J; engine tokens 1 -> 12 */
        CHECK_NEAR(fig(a, JL_FIG_STEADY_START_S), 1.0, 0, 1e-9);
        CHECK_NEAR(fig(a, JL_FIG_STEADY_END_S), 4.0, 0, 1e-9);
        CHECK_NEAR(fig(a, JL_FIG_STEADY_ENERGY_J), 700.0, 1e-9, 0);
        CHECK_NEAR(fig(a, JL_FIG_ENERGY_PER_TOKEN_J), 700.0 / 11, 1e-9, 0);
        /* (3/6 + 4/8 + 4/4 + 4/8) / 4 */
        CHECK_NEAR(fig(a, JL_FIG_AVG_TPOT_S), 0.625, 1e-9, 0);
        CHECK_NEAR(a->summary.steady_state_energy_j, 1500.0, 0, 0); /* published */
        CHECK_NEAR(a->summary.energy_per_token_j, 75.0, 0, 0);
        /* the headline is the harness's figure, the disagreement named */
        jl_summary *s = NULL;
        jl_error *e = NULL;
        CHECK(jl_summarize(a, NULL, &s, &e) == JL_OK);
        if (s) {
            CHECK_NEAR(s->fig[JL_FIG_STEADY_ENERGY_J], 1500.0, 0, 0);
            CHECK_NEAR(s->fig[JL_FIG_ENERGY_PER_TOKEN_J], 75.0, 0, 0);
            CHECK(s->published != NULL);
        }
        jl_summary_free(s);
        jl_error_free(e);
    }
    /* 2. two GPUs, two engines summed: 3000 + 2200 J; window 600 + 300 J */
    const jl_run *b = find(r, "Mid-8B");
    CHECK(b != NULL);
    if (b) {
        CHECK_EQ_INT(b->attrs.num_gpus, 2);
        CHECK_EQ_INT(b->watts.g, 2);
        CHECK_NEAR(fig(b, JL_FIG_RUN_ENERGY_J), 5200.0, 1e-9, 0);
        CHECK_NEAR(fig(b, JL_FIG_STEADY_ENERGY_J), 900.0, 1e-9, 0);
        CHECK_EQ_INT(b->running[0], 2);
        CHECK_EQ_INT(b->tokens_generated[3], 30);
    }
    /* 3. finite rate: no requests/, the occupancy rule, ITL kept */
    const jl_run *c = find(r, "request_rate+4");
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_INT(c->req_n, 0);
        CHECK_EQ_INT(c->itl_n, 26);
        CHECK(c->itl_request == NULL);
        CHECK_NEAR(fig(c, JL_FIG_STEADY_ENERGY_J), 900.0, 1e-9, 0);
    }
    /* 4. diffusion: batches back to back, 1.5 s + 2.5 s at 500 W */
    const jl_run *d = find(r, "Img-2B");
    CHECK(d != NULL);
    if (d) {
        CHECK_STR(d->attrs.workload, "diffusion");
        CHECK_EQ_INT(d->batch_n, 2);
        CHECK_NEAR(d->batch_end[1], 4.0, 0, 1e-12);
        CHECK_EQ_INT(d->attrs.denoising_steps, 20);
        CHECK(ax(d, "batches_clock") != NULL);
        CHECK_NEAR(fig(d, JL_FIG_ENERGY_PER_ITEM_J), 500.0, 1e-9, 0);
        CHECK_NEAR(d->summary.energy_per_item_j, 625.0, 0, 0); /* published: whole run */
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

static void expect_error(const char *results, const char *field, const char *msg)
{
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy_benchmark_buffer(results, strlen(results), NULL, 0,
                                              "run/llm/t/o/m/H100/num_gpus+1+max_num_seqs+2", NULL,
                                              &r, &errs) != JL_OK);
    CHECK(errs.count >= 1);
    if (errs.count) {
        if (field)
            CHECK_STR(errs.items[0]->object, field);
        CHECK_CONTAINS(errs.items[0]->message, msg);
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
}

#define TL(p) \
    "\"timeline\": {\"benchmark_start_time\": 10, \"benchmark_end_time\": 20, \"power\": " p "}"

TEST(bad_input)
{
    expect_error("{\"num_gpus\": \"two\"}", "num_gpus", "expected a number, found a string");
    expect_error("{" TL("{\"device_instant\": {}}") "}", "timeline.power.device_instant",
                 "missing or empty");
    expect_error("{" TL("{\"device_instant\": {\"0\": []}}") "}", "timeline.power.device_instant.0",
                 "no power sample");
    expect_error("{" TL("{\"device_instant\": {\"0\": [[12, 1], [11, 2]]}}") "}",
                 "timeline.power.device_instant.0[1]", "time goes backwards");
    expect_error("{" TL("{\"device_instant\": {\"x\": [[12, 1]]}}") "}",
                 "timeline.power.device_instant.x", "not an index");
    expect_error("{\"results\": [{\"itl\": [0.1, \"a\"]}]}", "results[0].itl", "itl[1]");
    expect_error("{\"results\": [{\"success\": 1}]}", "results[0].success", "true or false");
    expect_error("{\"timeline\": {\"power\": {\"device_instant\": {\"0\": [[1, 2]]}}}}",
                 "timeline.benchmark_start_time", "required");
    expect_error("{\"a\": 1", NULL, "ends inside an object");
    /* a run directory without results.json */
    char dir[] = "/tmp/joules_bench_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char sub[256], file[300];
    snprintf(sub, sizeof sub, "%s/num_gpus+1+max_num_seqs+4", dir);
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(file, sizeof file, "%s/driver_log.txt", sub);
    FILE *f = fopen(file, "w");
    fputs("crashed\n", f);
    fclose(f);
    const char *paths[] = {dir};
    jl_import_result *r = NULL;
    jl_error_list errs = {0};
    CHECK(jl_import_mlenergy_benchmark(paths, 1, NULL, &r, &errs) != JL_OK);
    CHECK(errs.count >= 1);
    if (errs.count) {
        CHECK_STR(errs.items[0]->file, sub);
        CHECK_CONTAINS(errs.items[0]->message, "without results.json");
    }
    jl_import_result_free(r);
    jl_error_list_clear(&errs);
    unlink(file);
    rmdir(sub);
    rmdir(dir);
}

/* The number fast path (8 digits at a time, one correctly rounded division)
 * gives strtod's double to the bit: boundary cases, then 200,000
 * deterministic pseudo-random decimals of 1-40 digits with and without
 * exponents, read both from memory and through a small file buffer. */
static unsigned long long lcg_state = 88172645463325252ull;
static unsigned rnd(unsigned n)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((lcg_state >> 33) % n);
}

static void check_numbers(const char *doc, size_t len, char **texts, size_t n, int from_file)
{
    js p;
    FILE *f = NULL;
    if (from_file) {
        f = fmemopen((void *)doc, len, "r");
        CHECK(f != NULL);
        if (!f)
            return;
        jl__jstream_init_file(&p, f, 4096, 1024);
    } else {
        jl__jstream_init_mem(&p, doc, len, 1024);
    }
    CHECK_EQ_INT(jl__jstream_next(&p), JS_ARR_START);
    size_t k = 0, bad = 0;
    double v;
    int r;
    while ((r = jl__jstream_array_number(&p, &v)) == 1 && k < n) {
        double want = strtod(texts[k], NULL);
        if (memcmp(&v, &want, sizeof v)) {
            if (bad++ < 5)
                fprintf(stderr, "  %s: parsed %.17g, strtod %.17g\n", texts[k], v, want);
        }
        k++;
    }
    CHECK_EQ_INT(r, 0);
    CHECK_EQ_INT(k, n);
    CHECK_EQ_INT(bad, 0);
    jl__jstream_free(&p);
    if (f)
        fclose(f);
}

TEST(numbers_match_strtod)
{
    static const char *const edge[] = {"0",
                                       "-0",
                                       "1",
                                       "0.1",
                                       "0.30000000000000004",
                                       "9007199254740992",
                                       "9007199254740993",
                                       "9007199254740991.5",
                                       "1e22",
                                       "1e23",
                                       "1.5e-22",
                                       "123456789012345678901234",
                                       "0.000000000000000000001",
                                       "4.9406564584124654e-324",
                                       "2.2250738585072014e-308",
                                       "1.7976931348623157e308",
                                       "12345678",
                                       "123456789",
                                       "1234567890123456789",
                                       "12345678901234567890",
                                       "0.12345678901234567890",
                                       "99999999.99999999",
                                       "-1.25E+3",
                                       "3.14159265358979323846264338327950288"};
    const size_t n_edge = sizeof edge / sizeof edge[0], n = n_edge + 200000;
    char **texts = calloc(n, sizeof *texts);
    size_t cap = n * 48 + 16, len = 0;
    char *doc = malloc(cap);
    CHECK(texts && doc);
    if (!texts || !doc) {
        free(texts);
        free(doc);
        return;
    }
    doc[len++] = '[';
    for (size_t i = 0; i < n; i++) {
        char t[48];
        if (i < n_edge) {
            snprintf(t, sizeof t, "%s", edge[i]);
        } else {
            size_t m = 0;
            if (rnd(4) == 0)
                t[m++] = '-';
            unsigned int_digits = 1 + rnd(20), frac_digits = rnd(3) ? rnd(20) : 0;
            t[m++] = (char)('0' + (int_digits > 1 ? 1 + rnd(9) : rnd(10)));
            for (unsigned d = 1; d < int_digits; d++)
                t[m++] = (char)('0' + rnd(10));
            if (frac_digits) {
                t[m++] = '.';
                for (unsigned d = 0; d < frac_digits; d++)
                    t[m++] = (char)('0' + rnd(10));
            }
            if (rnd(5) == 0)
                m += (size_t)snprintf(t + m, sizeof t - m, "e%d", (int)rnd(60) - 30);
            t[m] = '\0';
        }
        texts[i] = strdup(t);
        const char *sep = i == 0 ? "" : rnd(3) == 0 ? ",\n  " : rnd(2) ? ", " : ",";
        len += (size_t)snprintf(doc + len, cap - len, "%s%s", sep, t);
    }
    doc[len++] = ']';
    check_numbers(doc, len, texts, n, 0);
    check_numbers(doc, len, texts, n, 1);
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
    free(doc);
}

/* Errors inside a [time, value] pair name the pair (its index joins the
 * path only when an error is reported); errors after a good series do not. */
TEST(pair_paths)
{
    expect_error("{" TL("{\"device_instant\": {\"0\": [[12, 1], [13, \"x\"]]}}") "}",
                 "timeline.power.device_instant.0[1]", "expected a number");
    expect_error("{" TL("{\"device_instant\": {\"0\": [[12, 1], [13, 2], 5]}}") "}",
                 "timeline.power.device_instant.0[2]", "expected a [time, value] pair");
    expect_error("{" TL("{\"device_instant\": {\"0\": [[12, 1], [13, 2, 3]]}}") "}",
                 "timeline.power.device_instant.0[1]", "");
    expect_error("{" TL("{\"device_instant\": {\"0\": [[12, 1], [13, null]]}}") "}",
                 "timeline.power.device_instant.0[1]", "not finite");
    expect_error("{" TL("{\"device_instant\": {\"0\": [[12, 1]], \"1\": [[12, 1], [1") "}",
                 "timeline.power.device_instant.1[1]", "");
    expect_error(
        "{" TL("{\"device_instant\": {\"0\": [[12, 1], [13, 2]]}}") ", \"num_gpus\": \"two\"}",
        "num_gpus", "expected a number");
}

int main(void)
{
    RUN(stream_parser);
    RUN(numbers_match_strtod);
    RUN(prometheus_text);
    RUN(fixtures);
    RUN(bad_input);
    RUN(pair_paths);
    TEST_MAIN_END();
}
