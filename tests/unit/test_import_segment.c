/* The power-log kit (src/import/kit_segment.c): the idle level outside a
 * log's runs and runs cut at its power's rises and falls, on exact series
 * whose answers are known; the RUNS.csv it writes and the shell quoting of
 * the re-run command. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import/kit_segment.h"
#include "test.h"

/* n samples at 10 Hz from t = 1000 s; w[i] from the level function. */
typedef struct series {
    double t[2000], w[4000];
    size_t n, G;
} series;

/* idle 50 W; load `lvl` W in [a, b) s (relative), per GPU + g * 10 */
static void fill(series *s, size_t n, size_t G, const double (*runs)[3], size_t nr)
{
    s->n = n;
    s->G = G;
    for (size_t i = 0; i < n; i++) {
        double t = 0.1 * (double)i;
        s->t[i] = 1000.0 + t;
        for (size_t g = 0; g < G; g++) {
            double x = 50.0 + 10.0 * (double)g + ((i % 2) ? 0.5 : -0.5);
            for (size_t k = 0; k < nr; k++)
                if (t >= runs[k][0] && t < runs[k][1])
                    x = runs[k][2] + 10.0 * (double)g;
            s->w[i * G + g] = x;
        }
    }
}

TEST(segments_on_exact_steps)
{
    static series s;
    const double runs[][3] = {{10, 30, 400}, {40, 60, 500}, {70, 90, 600}};
    fill(&s, 1000, 1, runs, 3);
    jl__imp_pwlog p = {s.t, s.w, s.n, s.G, 0};
    jl__imp_segments sg;
    CHECK_EQ_INT(jl__imp_segment(&p, NULL, &sg), 0);
    CHECK_EQ_INT((int)sg.n, 3);
    for (size_t k = 0; k < sg.n && k < 3; k++) {
        /* the edge half way between the last idle and the first load sample */
        CHECK_NEAR(sg.runs[k].start, 1000.0 + runs[k][0] - 0.05, 0, 1e-6);
        CHECK_NEAR(sg.runs[k].end, 1000.0 + runs[k][1] - 0.05, 0, 1e-6);
    }
    CHECK(sg.rise_w > sg.fall_w && sg.fall_w > 51.0);
    CHECK_NEAR(sg.floor_w, 49.5, 0, 1e-9);
    CHECK_CONTAINS(sg.text, "3 runs found");
    CHECK_CONTAINS(sg.text, "rises to");
    jl__imp_segments_free(&sg);
}

TEST(segments_merge_drop_and_flat)
{
    static series s;
    /* a 0.5 s dip (merged), a 2 s burst (dropped: shorter than 5 s) */
    const double runs[][3] = {{10, 20, 400}, {20.5, 30, 400}, {50, 52, 400}};
    fill(&s, 800, 1, runs, 3);
    jl__imp_pwlog p = {s.t, s.w, s.n, s.G, 0};
    jl__imp_segments sg;
    CHECK_EQ_INT(jl__imp_segment(&p, NULL, &sg), 0);
    CHECK_EQ_INT((int)sg.n, 1);
    CHECK_EQ_INT((int)sg.n_dropped, 1);
    if (sg.n == 1)
        CHECK_NEAR(sg.runs[0].end - sg.runs[0].start, 20.0, 0, 1e-6);
    jl__imp_segments_free(&sg);
    /* the merge window shorter than the dip: two runs */
    jl__imp_segment_opt o = {5.0, 0.2};
    CHECK_EQ_INT(jl__imp_segment(&p, &o, &sg), 0);
    CHECK_EQ_INT((int)sg.n, 2);
    jl__imp_segments_free(&sg);
    /* one level throughout: none, and why */
    const double all[][3] = {{0, 1000, 400}};
    fill(&s, 600, 1, all, 1);
    p.n = s.n;
    CHECK_EQ_INT(jl__imp_segment(&p, NULL, &sg), 0);
    CHECK_EQ_INT((int)sg.n, 0);
    CHECK_CONTAINS(sg.text, "one level");
    jl__imp_segments_free(&sg);
    /* a GPU without power at a sample: that sample is left out */
    fill(&s, 600, 2, runs, 2);
    s.w[150 * 2 + 1] = NAN;
    p.n = s.n;
    p.G = 2;
    CHECK_EQ_INT(jl__imp_segment(&p, NULL, &sg), 0);
    CHECK_EQ_INT((int)sg.n, 1);
    CHECK_CONTAINS(sg.text, "of 599 samples");
    jl__imp_segments_free(&sg);
}

TEST(idle_level_outside_the_runs)
{
    static series s;
    const double runs[][3] = {{10, 30, 400}, {40, 60, 500}};
    fill(&s, 700, 2, runs, 2);
    jl__imp_pwlog p = {s.t, s.w, s.n, s.G, 0};
    /* the windows overlapping and out of order: their union counts */
    jl__imp_window w[] = {{1040, 1060, NULL}, {1010, 1030, NULL}, {1012, 1020, NULL}};
    jl__imp_idle x;
    CHECK_EQ_INT(jl__imp_idle_level(&p, w, 3, &x), 0);
    CHECK_NEAR(x.w[0], 50.0, 0, 0.5);
    CHECK_NEAR(x.w[1], 60.0, 0, 0.5);
    CHECK_EQ_INT((int)x.stretches[0], 3);
    CHECK_CONTAINS(x.text, "before the first run");
    CHECK_CONTAINS(x.text, "between runs");
    CHECK_CONTAINS(x.text, "after the last run");
    jl__imp_idle_free(&x);
    /* runs on some GPUs only: each GPU's idle judged against its own runs */
    for (size_t i = 0; i < s.n; i++) {
        double t = s.t[i] - 1000.0;
        if (t >= 10 && t < 30)
            s.w[i * 2 + 1] = 60.0;
        if (t >= 40 && t < 60)
            s.w[i * 2 + 0] = 50.0;
    }
    const unsigned char only0[] = {1, 0}, only1[] = {0, 1};
    jl__imp_window part[] = {{1010, 1030, only0}, {1040, 1060, only1}};
    CHECK_EQ_INT(jl__imp_idle_level(&p, part, 2, &x), 0);
    CHECK_NEAR(x.w[0], 50.0, 0, 0.5);
    CHECK_NEAR(x.w[1], 60.0, 0, 0.5);
    jl__imp_idle_free(&x);
    part[0].gpus = part[1].gpus = NULL; /* taken as runs on both: GPU 1 idles in the first */
    CHECK_EQ_INT(jl__imp_idle_level(&p, part, 2, &x), 0);
    CHECK(isnan(x.w[1]));
    jl__imp_idle_free(&x);
    /* a quiet stretch at load level (a run the windows leave out) is no idle */
    const double hidden[][3] = {{0, 9, 450}, {10, 30, 400}, {31, 70, 450}};
    fill(&s, 700, 1, hidden, 3);
    p.n = s.n;
    p.G = 1;
    jl__imp_window w1[] = {{1010, 1030, NULL}};
    CHECK_EQ_INT(jl__imp_idle_level(&p, w1, 1, &x), 0);
    CHECK(isnan(x.w[0]));
    CHECK_CONTAINS(x.text, "not below every run's median power");
    jl__imp_idle_free(&x);
    /* no stretch outside the runs; no runs at all */
    jl__imp_window whole[] = {{900, 2000, NULL}};
    CHECK_EQ_INT(jl__imp_idle_level(&p, whole, 1, &x), 0);
    CHECK(isnan(x.w[0]));
    CHECK_CONTAINS(x.text, "no samples outside their windows");
    jl__imp_idle_free(&x);
    CHECK_EQ_INT(jl__imp_idle_level(&p, NULL, 0, &x), 0);
    CHECK(isnan(x.w[0]));
    jl__imp_idle_free(&x);
    /* too short a stretch: 0.6 s between runs (with 1 s of settling) */
    const double close[][3] = {{10, 30, 400}, {31.5, 50, 400}};
    fill(&s, 520, 1, close, 2);
    p.n = s.n;
    jl__imp_window w2[] = {{1010, 1030, NULL}, {1031.5, 1050, NULL}};
    jl__imp_window w3[] = {{1000, 1030, NULL}, {1032, 1052, NULL}};
    CHECK_EQ_INT(jl__imp_idle_level(&p, w2, 2, &x), 0);
    CHECK_EQ_INT((int)x.stretches[0], 1); /* only before the first */
    jl__imp_idle_free(&x);
    CHECK_EQ_INT(jl__imp_idle_level(&p, w3, 2, &x), 0);
    CHECK(isnan(x.w[0]));
    CHECK_CONTAINS(x.text, "no quiet part of 5 samples over 1 s");
    jl__imp_idle_free(&x);
}

TEST(runs_csv_and_quoting)
{
    char dir[] = "/tmp/joules-segment-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    jl__imp_runs_row rows[] = {{"run01", 1795472273.3, 1795472290.4726, "a.csv"},
                               {"run,02", 1795472293.0, 1795472311.9996, "b \"x\".csv"}};
    jl_kv set[] = {{"model", "Qwen/Qwen3-8B", 0}, {"team", "x", 0}, {"gpus", "0,1", 0}};
    jl_error_list errors = {0};
    CHECK_EQ_INT(jl__imp_write_runs_csv(path, rows, 2, 1, set, 3, 0, &errors), JL_OK);
    FILE *f = fopen(path, "r");
    char text[1024] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = 0;
        fclose(f);
    }
    CHECK_STR(text, "run,start,end,log,gpus,workload,model,task,precision,max_batch_size,"
                    "requests,requests_offset\n"
                    "run01,2026-11-23T22:17:53.300Z,2026-11-23T22:18:10.473Z,a.csv,\"0,1\",,"
                    "Qwen/Qwen3-8B,,,,,\n"
                    "\"run,02\",2026-11-23T22:18:13.000Z,2026-11-23T22:18:32.000Z,"
                    "\"b \"\"x\"\".csv\",\"0,1\",,Qwen/Qwen3-8B,,,,,\n");
    /* kept without force, replaced with it */
    CHECK_EQ_INT(jl__imp_write_runs_csv(path, rows, 1, 0, NULL, 0, 0, &errors), JL_EUSAGE);
    CHECK(errors.count == 1 && strstr(errors.items[0]->message, "already exists"));
    CHECK_EQ_INT(jl__imp_write_runs_csv(path, rows, 1, 0, NULL, 0, 1, &errors), JL_OK);
    jl_error_list_clear(&errors);
    char *q = jl_shell_quote("a b'c");
    CHECK_STR(q, "'a b'\\''c'");
    free(q);
    q = jl_shell_quote("/x/y-1.csv");
    CHECK_STR(q, "/x/y-1.csv");
    free(q);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    RUN(segments_on_exact_steps);
    RUN(segments_merge_drop_and_flat);
    RUN(idle_level_outside_the_runs);
    RUN(runs_csv_and_quoting);
    TEST_MAIN_END();
}
