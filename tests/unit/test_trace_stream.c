/* itl/ streamed through the summary (jl_trace_options.stream_itl,
 * src/trace/column_stream.c, jl__qstream): the summary of a streamed run
 * is the summary of the same run read whole, figure for figure to the bit
 * (deflate and Zstandard, seconds and request chunked differently, few and
 * many samples (past 2^20: pass 1 gathers ahead), heavy ties); a bad
 * latency, a bad request index, a wrong length and a corrupt chunk give
 * the same message either way; layouts the stream does not take
 * (contiguous) are read whole; and the two-pass quantiles equal
 * jl__quantiles_f on every kind of sample set. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>

#include "joules/summary.h"
#include "summary/summary_internal.h"
#include "test_trace_fixtures.h"
#include "trace/trace_internal.h"

static const double Q4[4] = {0.5, 0.9, 0.95, 0.99};

/* tf_make_run with K ITL samples: latencies quantised to 0.1 ms (many
 * ties), request i % 6 (request 5 never finishes). */
static jl_run *make_itl_run(size_t K)
{
    jl_run *r = tf_make_run("r", 50, 2);
    free(r->itl_seconds);
    free(r->itl_request);
    r->itl_n = K;
    r->itl_seconds = tf_alloc(K * sizeof(float));
    r->itl_request = tf_alloc(K * sizeof(int32_t));
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < K; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0;
        r->itl_seconds[i] = (float)(0.0001 * floor(200.0 * u * u + 5.0));
        r->itl_request[i] = (int32_t)(i % 6);
    }
    return r;
}

static char *write_run(const char *name, jl_run *r, jl_trace_compression comp, size_t chunk_rows)
{
    char *path = tf_path(name);
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.compression = comp;
    wo.chunk_rows = chunk_rows;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_write(path, (const jl_run *const *)&r, 1, &wo, &e), JL_OK);
    jl_error_free(e);
    return path;
}

/* Read run 0 of path (streamed or not) and summarise it while the trace is
 * open; *msg: the error, formatted (caller frees). */
static jl_summary *summary_of(const char *path, int stream, char **msg, int *was_streamed)
{
    jl_trace_options opt;
    jl_trace_options_default(&opt);
    opt.summary_fields_only = 1;
    opt.stream_itl = stream;
    jl_trace *t = NULL;
    jl_run *r = NULL;
    jl_summary *s = NULL;
    jl_error *e = NULL;
    *msg = NULL;
    if (jl_trace_open(path, &opt, &t, &e) == JL_OK && jl_trace_read_run(t, 0, &r, &e) == JL_OK) {
        if (was_streamed)
            *was_streamed = r->itl_stream != NULL && !r->itl_seconds;
        jl_summarize(r, NULL, &s, &e);
    }
    if (e)
        *msg = jl_error_format(e);
    jl_error_free(e);
    jl_run_free(r);
    jl_trace_close(t);
    return s;
}

static int same_summary(const jl_summary *a, const jl_summary *b)
{
    if (!a || !b)
        return 0;
    if (memcmp(a->fig, b->fig, sizeof a->fig) != 0 || a->n_warnings != b->n_warnings ||
        a->steady_method != b->steady_method)
        return 0;
    for (size_t i = 0; i < a->n_warnings; i++)
        if (strcmp(a->warnings[i].message, b->warnings[i].message))
            return 0;
    return 1;
}

/* The ITL quantiles of r computed here from its samples, as the summary
 * defines them: finite samples of requests that finished. */
static void expected_itl(const jl_run *r, double *o)
{
    float *k = malloc(r->itl_n * sizeof *k);
    size_t m = 0;
    for (size_t i = 0; i < r->itl_n; i++)
        if (isfinite(r->finish[r->itl_request[i]]))
            k[m++] = r->itl_seconds[i];
    jl__quantiles_f(k, m, Q4, 4, o);
    free(k);
}

/* Rewrite /runs/r/itl/request of path with chunks of crows rows (<= its
 * rows: HDF5 refuses larger chunks for a fixed size). */
static void rechunk_request(const char *path, hsize_t crows, const jl_run *r)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/runs/r/itl/request", H5P_DEFAULT);
    hsize_t dims[1] = {r->itl_n};
    hid_t sp = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &crows);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 1);
    hid_t d =
        H5Dcreate2(f, "/runs/r/itl/request", H5T_NATIVE_INT32, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0);
    H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->itl_request);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(f);
}

static void check_same_both_ways(const char *path, const jl_run *r, int expect_streamed)
{
    char *m1 = NULL, *m2 = NULL;
    int streamed = -1;
    jl_summary *a = summary_of(path, 0, &m1, NULL);
    jl_summary *b = summary_of(path, 1, &m2, &streamed);
    CHECK(a && b && !m1 && !m2);
    CHECK_EQ_INT(streamed, expect_streamed);
    CHECK(same_summary(a, b));
    if (a && r) {
        double o[4];
        expected_itl(r, o);
        for (int j = 0; j < 4; j++)
            CHECK(o[j] == a->fig[JL_FIG_MEDIAN_ITL_S + j] &&
                  o[j] == b->fig[JL_FIG_MEDIAN_ITL_S + j]);
    }
    jl_summary_free(a);
    jl_summary_free(b);
    free(m1);
    free(m2);
}

TEST(streamed_equals_whole)
{
    /* the last past 2^20 samples: pass 1 keeps 32,768, gathers ahead and
     * filters as it counts (jl__qstream_want, jl__qstream_add_sel) */
    const size_t sizes[] = {11, 20000, 100000, ((size_t)1 << 20) + 70001};
    const jl_trace_compression comps[] = {JL_COMPRESS_DEFLATE, JL_COMPRESS_ZSTD};
    for (size_t i = 0; i < 4; i++)
        for (size_t c = 0; c < 2; c++) {
            jl_run *r = make_itl_run(sizes[i]);
            char name[64];
            snprintf(name, sizeof name, "eq-%zu-%zu.h5", i, c);
            char *path = write_run(name, r, comps[c], 4096);
            check_same_both_ways(path, r, 1);
            /* request chunked otherwise than seconds: blocks of both */
            rechunk_request(path, sizes[i] < 1000 ? 3 : 1000, r);
            check_same_both_ways(path, r, 1);
            jl_run_free(r);
            free(path);
        }
}

/* Contiguous itl/ is read whole (the stream takes chunked layouts only). */
TEST(contiguous_read_whole)
{
    jl_run *r = make_itl_run(50000);
    char *path = tf_path("contiguous.h5");
    jl_trace_write_options wo;
    jl_trace_write_options_default(&wo);
    wo.layout = JL_LAYOUT_CONTIGUOUS;
    wo.compression = JL_COMPRESS_NONE;
    wo.shuffle = 0;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_write(path, (const jl_run *const *)&r, 1, &wo, &e), JL_OK);
    jl_error_free(e);
    check_same_both_ways(path, r, 0);
    jl_run_free(r);
    free(path);
}

/* Overwrite itl/<col> at row with value v (float or int32). */
static void poke(const char *path, const char *col, size_t row, double v)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    char obj[64];
    snprintf(obj, sizeof obj, "/runs/r/itl/%s", col);
    hid_t d = H5Dopen2(f, obj, H5P_DEFAULT), fs = H5Dget_space(d);
    hsize_t start = row, one = 1;
    hid_t ms = H5Screate_simple(1, &one, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &v);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
}

/* Both ways fail with the same message, which contains want. */
static void check_same_error(const char *path, const char *want)
{
    char *m1 = NULL, *m2 = NULL;
    jl_summary *a = summary_of(path, 0, &m1, NULL);
    jl_summary *b = summary_of(path, 1, &m2, NULL);
    CHECK(!a && !b);
    CHECK(m1 && m2 && !strcmp(m1, m2));
    if (m2)
        CHECK_CONTAINS(m2, want);
    else
        CHECK(0);
    jl_summary_free(a);
    jl_summary_free(b);
    free(m1);
    free(m2);
}

TEST(bad_values_same_message)
{
    jl_run *r = make_itl_run(30000);
    char *path = write_run("bad.h5", r, JL_COMPRESS_ZSTD, 4096);
    /* a bad index early, a bad latency late: the latency is reported */
    poke(path, "request", 100, 6);
    poke(path, "seconds", 25000, -0.5);
    check_same_error(path, "/runs/r/itl/seconds: negative latency at row 25000 (-0.5)");
    poke(path, "seconds", 25000, NAN);
    check_same_error(path, "/runs/r/itl/seconds: not finite at row 25000 (nan)");
    poke(path, "seconds", 25000, 0.001);
    check_same_error(path, "/runs/r/itl/request: request index out of range at row 100 "
                           "(6; requests/ has 6 rows)");
    poke(path, "request", 100, -2);
    check_same_error(path, "request index out of range at row 100 (-2)");
    poke(path, "request", 100, 4);
    check_same_both_ways(path, NULL, 1);
    /* request one row short: the length message, before any value check */
    poke(path, "seconds", 7, -1);
    jl_run *s = make_itl_run(30000);
    s->itl_n = 29999;
    rechunk_request(path, 512, s);
    check_same_error(path, "/runs/r/itl/request: has 29999 rows, expected 30000 (the length "
                           "of itl/seconds)");
    jl_run_free(s);
    jl_run_free(r);
    free(path);
}

/* A chunk that does not decode: the columns are read whole, as unstreamed,
 * and the message is HDF5's path's. */
TEST(corrupt_chunk_same_message)
{
    jl_run *r = make_itl_run(30000);
    char *path = write_run("corrupt.h5", r, JL_COMPRESS_DEFLATE, 4096);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/runs/r/itl/seconds", H5P_DEFAULT);
    unsigned char junk[64];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 37 + 1);
    hsize_t off = 3 * 4096;
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, &off, sizeof junk, junk) >= 0);
    H5Dclose(d);
    H5Fclose(f);
    check_same_error(path, "/runs/r/itl/seconds: cannot read the data (corrupt compressed chunk)");
    jl_run_free(r);
    free(path);
}

/* jl__qstream against jl__quantiles_f: uniform, heavy ties, one value, two
 * values, negatives and zeros, a ramp over the first 4 % (the estimates
 * of pass 1 move), sizes around the histogram threshold; with the samples kept,
 * gathered in pass 2, counted by their low key bits, or gathered in pass 1
 * (jl__qstream_want) with pass 2 ending early or past gather_max. */
TEST(qstream_equals_quantiles_f)
{
    const size_t sizes[] = {
        0, 1, 2, 1000, JL__RADIX_MIN_N - 1, JL__RADIX_MIN_N, JL__RADIX_MIN_N + 1, 200000};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int kind = 0; kind < 6; kind++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            float *v = malloc((n ? n : 1) * sizeof *v), *w = malloc((n ? n : 1) * sizeof *w);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                double u = (double)(x >> 11) / 9007199254740992.0;
                v[i] = kind == 0   ? (float)u
                       : kind == 1 ? (float)(0.001 * floor(30.0 * u))
                       : kind == 2 ? 0.004f
                       : kind == 3 ? (u < 0.3 ? 1.0f : 2.0f)
                       : kind == 4 ? (float)(u < 0.2 ? 0.0 : 10.0 * (u - 0.5))
                                   : (float)(0.01 + 0.02 * fmin(25.0 * (double)i / (double)n, 1.0) +
                                             0.005 * u);
            }
            memcpy(w, v, n * sizeof *v);
            double want[4];
            jl__quantiles_f(w, n, Q4, 4, want);
            /* mode 0: the default (keeps JL__RADIX_MIN_N), pass 2 gathers;
             * 1: pass 2 counts low key bits (nothing gathered); 2: every
             * sample kept (reserved), no pass 2; 3: as 0, added in blocks;
             * 4: gathered in pass 1 (the count known, not kept), pass 2
             * only while jl__qstream_pass2_done says not done; 5: as 4,
             * past gather_max in pass 1 */
            for (int mode = 0; mode < 6; mode++) {
                double got[4];
                jl__qstream qs;
                CHECK_EQ_INT(jl__qstream_init(&qs), JL_OK);
                if (mode == 1)
                    qs.gather_max = 0;
                if (mode == 2)
                    CHECK_EQ_INT(jl__qstream_reserve(&qs, n), JL_OK);
                if (mode >= 4) {
                    qs.expect = n; /* as jl__qstream_reserve of a count past the keep bound */
                    qs.gather_max = mode == 5 ? 3000 : qs.gather_max;
                    CHECK_EQ_INT(jl__qstream_want(&qs, Q4, 4), JL_OK);
                    CHECK(n <= JL__RADIX_MIN_N || qs.want_nq == 4);
                }
                if (mode >= 3)
                    for (size_t i = 0; i < n; i += 1000)
                        CHECK_EQ_INT(jl__qstream_add_n(&qs, v + i, n - i < 1000 ? n - i : 1000),
                                     JL_OK);
                else
                    for (size_t i = 0; i < n; i++)
                        CHECK_EQ_INT(jl__qstream_add(&qs, v[i]), JL_OK);
                int spec = qs.want_nq == 4; /* still gathering in pass 1 */
                int plan = jl__qstream_plan(&qs, Q4, 4);
                CHECK(spec ? plan >= 0 : plan == (mode != 2 && n > JL__RADIX_MIN_N));
                CHECK(plan <= 0 || (mode == 1   ? qs.low != NULL
                                    : mode == 5 ? (qs.gat || qs.low)
                                                : qs.gat != NULL));
                size_t fed = 0; /* samples pass 2 was given */
                if (plan > 0 && mode >= 3)
                    for (size_t i = 0; i < n && !jl__qstream_pass2_done(&qs); i += 777) {
                        jl__qstream_add2_n(&qs, v + i, n - i < 777 ? n - i : 777);
                        fed = n - i < 777 ? n : i + 777;
                    }
                else if (plan > 0)
                    for (size_t i = 0; i < n; i++)
                        jl__qstream_add2(&qs, v[i]);
                /* steady samples: no pass 2; a drift that settles: pass 2
                 * ends early; past gather_max: pass 2 over every sample */
                if (mode == 4 && n == 200000 && kind == 0)
                    CHECK_EQ_INT(plan, 0);
                if (mode == 4 && n == 200000 && kind == 5)
                    CHECK(plan == 1 && fed < n);
                if (mode == 5 && n == 200000 && plan > 0 && qs.gat)
                    CHECK(fed == n);
                jl__qstream_result(&qs, Q4, 4, got);
                jl__qstream_free(&qs);
                for (int j = 0; j < 4; j++)
                    CHECK((isnan(want[j]) && isnan(got[j])) || want[j] == got[j]);
            }
            free(v);
            free(w);
        }
}

/* jl__qstream_add_sel (filter and count in one loop) against the same
 * samples filtered first: a kept flag per request, two requests of seven
 * left out; with room to gather in pass 1, without (gather_max), and
 * without jl__qstream_want. */
TEST(qstream_add_sel_equals_filtered)
{
    const size_t n = 300000;
    static const unsigned char keep[7] = {1, 1, 0, 1, 1, 1, 0};
    float *v = malloc(n * sizeof *v), *f = malloc(n * sizeof *f), buf[1000];
    uint32_t *idx = malloc(n * sizeof *idx);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0;
        idx[i] = (uint32_t)(x % 7);
        v[i] = (float)(0.02 + 0.01 * fmin(20.0 * (double)i / (double)n, 1.0) + 0.004 * u * u);
        if (keep[idx[i]])
            f[nf++] = v[i];
    }
    double want[4];
    jl__quantiles_f(f, nf, Q4, 4, want);
    for (int mode = 0; mode < 3; mode++) {
        jl__qstream qs;
        size_t sel = 0;
        CHECK_EQ_INT(jl__qstream_init(&qs), JL_OK);
        qs.expect = n;
        if (mode == 1)
            qs.gather_max = 20000;
        if (mode < 2)
            CHECK_EQ_INT(jl__qstream_want(&qs, Q4, 4), JL_OK);
        for (size_t i = 0; i < n; i += 1000) {
            size_t e = n - i < 1000 ? n - i : 1000, m = 0;
            if (jl__qstream_counting(&qs)) {
                jl__qstream_add_sel(&qs, v + i, idx + i, keep, e);
                sel++;
                continue;
            }
            for (size_t j = i; j < i + e; j++)
                if (keep[idx[j]])
                    buf[m++] = v[j];
            CHECK_EQ_INT(jl__qstream_add_n(&qs, buf, m), JL_OK);
        }
        CHECK(sel > 0 && qs.n == nf);
        int plan = jl__qstream_plan(&qs, Q4, 4);
        CHECK(plan >= 0);
        for (size_t i = 0; plan > 0 && i < n && !jl__qstream_pass2_done(&qs); i += 1000) {
            size_t e = n - i < 1000 ? n - i : 1000, m = 0;
            for (size_t j = i; j < i + e; j++)
                if (keep[idx[j]])
                    buf[m++] = v[j];
            jl__qstream_add2_n(&qs, buf, m);
        }
        double got[4];
        jl__qstream_result(&qs, Q4, 4, got);
        jl__qstream_free(&qs);
        for (int j = 0; j < 4; j++)
            CHECK(want[j] == got[j]);
    }
    free(v);
    free(f);
    free(idx);
}

int main(void)
{
    tf_init("test_trace_stream");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    RUN(streamed_equals_whole);
    RUN(contiguous_read_whole);
    RUN(bad_values_same_message);
    RUN(corrupt_chunk_same_message);
    RUN(qstream_equals_quantiles_f);
    RUN(qstream_add_sel_equals_filtered);
    tf_cleanup();
    TEST_MAIN_END();
}
