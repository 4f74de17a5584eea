/* The reader's own chunk decoding (src/trace/chunk_read.c): every layout it
 * takes — shuffle or not, deflate or Zstandard, rank 1 and [N, G], a
 * partial last chunk, each element size, float32 -> double and int32 ->
 * int64 — gives exactly what H5Dread gives; every layout it must leave to
 * HDF5 (other filters, chunks split across columns, narrowing types, an
 * unwritten or corrupt chunk) returns 0 so that the reader falls back.
 * And jl_trace_options.summary_fields_only skips the unused columns. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>

#include "test_trace_fixtures.h"
#include "trace/trace_internal.h"

#define N 1000
#define G 3
#define CROWS 37

enum { F_SHUFFLE = 1, F_DEFLATE = 2, F_ZSTD = 4, F_FLETCHER = 8 };

/* Write dataset "d" of ftype with n x cols values 0.5 * i - 7 (as the type
 * holds them), chunks of crows x ccols, the given filters. */
static hid_t make(hid_t f, const char *name, hid_t ftype, int rank, size_t cols, hsize_t crows,
                  hsize_t ccols, int filters, size_t n)
{
    hsize_t dims[2] = {n, cols}, chunk[2] = {crows, ccols};
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    if (filters & F_SHUFFLE)
        H5Pset_shuffle(dcpl);
    if (filters & F_DEFLATE)
        H5Pset_deflate(dcpl, 4);
    if (filters & F_ZSTD) {
        unsigned cd[1] = {3};
        H5Pset_filter(dcpl, JL__ZSTD_FILTER_ID, H5Z_FLAG_MANDATORY, 1, cd);
    }
    if (filters & F_FLETCHER)
        H5Pset_fletcher32(dcpl);
    hid_t d = H5Dcreate2(f, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    double *v = malloc(n * cols * sizeof *v);
    for (size_t i = 0; i < n * cols; i++)
        v[i] = H5Tget_class(ftype) == H5T_INTEGER ? (double)((long)i * 7919 % 100003 - 50000)
                                                  : 0.5 * (double)i - 7.0 + 1e-3 * (double)(i % 13);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    free(v);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* jl__read_chunks_direct against H5Dread for one dataset; 1 if it took it
 * (-1: a chunk is not stored, its first row in last_missing). */
static size_t last_missing;
static int direct_vs_hdf5(hid_t d, hid_t mtype, int rank, size_t cols, size_t n)
{
    hid_t ftype = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
    hsize_t chunk[2] = {0, 0}, dims[2] = {n, cols};
    H5Pget_chunk(dcpl, 2, chunk);
    size_t cbytes = (size_t)chunk[0] * (rank == 2 ? (size_t)chunk[1] : 1) * H5Tget_size(ftype);
    size_t ms = H5Tget_size(mtype);
    unsigned char *a = calloc(n * cols, ms), *b = calloc(n * cols, ms);
    int took = jl__read_chunks_direct(d, dcpl, ftype, mtype, dims, rank, cbytes, a, &last_missing);
    CHECK(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0);
    if (took > 0)
        CHECK(memcmp(a, b, n * cols * ms) == 0);
    free(a);
    free(b);
    H5Pclose(dcpl);
    H5Tclose(ftype);
    return took;
}

TEST(direct_equals_h5dread)
{
    char *path = tf_path("layouts.h5");
    jl_zstd_filter_register();
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const int pipes[] = {F_SHUFFLE | F_DEFLATE, F_DEFLATE, F_SHUFFLE | F_ZSTD, F_ZSTD};
    struct {
        hid_t ftype, mtype;
    } types[] = {
        {H5T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE}, {H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE},
        {H5T_NATIVE_FLOAT, H5T_NATIVE_FLOAT},   {H5T_NATIVE_INT32, H5T_NATIVE_INT32},
        {H5T_NATIVE_INT32, H5T_NATIVE_INT64},   {H5T_NATIVE_INT64, H5T_NATIVE_INT64},
    };
    int k = 0;
    for (size_t p = 0; p < sizeof pipes / sizeof *pipes; p++)
        for (size_t t = 0; t < sizeof types / sizeof *types; t++)
            for (int rank = 1; rank <= 2; rank++) {
                char name[32];
                snprintf(name, sizeof name, "d%d", k++);
                size_t cols = rank == 2 ? G : 1;
                hid_t d = make(f, name, types[t].ftype, rank, cols, CROWS, cols, pipes[p], N);
                int took = direct_vs_hdf5(d, types[t].mtype, rank, cols, N);
                if (!took)
                    fprintf(stderr, "not taken: pipe %zu type %zu rank %d\n", p, t, rank);
                CHECK(took);
                H5Dclose(d);
            }
    /* one chunk only, smaller than 16 elements (no vector step) */
    hid_t d = make(f, "small", H5T_NATIVE_DOUBLE, 1, 1, 5, 1, F_SHUFFLE | F_DEFLATE, 5);
    CHECK(direct_vs_hdf5(d, H5T_NATIVE_DOUBLE, 1, 1, 5));
    H5Dclose(d);
    H5Fclose(f);
    free(path);
}

TEST(left_to_hdf5)
{
    char *path = tf_path("others.h5");
    jl_zstd_filter_register();
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    /* another filter in the pipeline */
    hid_t d = make(f, "fletcher", H5T_NATIVE_DOUBLE, 1, 1, CROWS, 1,
                   F_SHUFFLE | F_DEFLATE | F_FLETCHER, N);
    CHECK(!direct_vs_hdf5(d, H5T_NATIVE_DOUBLE, 1, 1, N));
    H5Dclose(d);
    /* shuffle only, no codec */
    d = make(f, "shuffle", H5T_NATIVE_DOUBLE, 1, 1, CROWS, 1, F_SHUFFLE, N);
    CHECK(!direct_vs_hdf5(d, H5T_NATIVE_DOUBLE, 1, 1, N));
    H5Dclose(d);
    /* a chunk holds part of each row */
    d = make(f, "split", H5T_NATIVE_DOUBLE, 2, G, CROWS, 1, F_DEFLATE, N);
    CHECK(!direct_vs_hdf5(d, H5T_NATIVE_DOUBLE, 2, G, N));
    H5Dclose(d);
    /* a conversion it does not do: int64 file read as int32 */
    d = make(f, "narrow", H5T_NATIVE_INT64, 1, 1, CROWS, 1, F_DEFLATE, N);
    CHECK(!direct_vs_hdf5(d, H5T_NATIVE_INT32, 1, 1, N));
    H5Dclose(d);
    /* a chunk never written: HDF5 would read fill values; refused (-1),
     * naming the chunk's first row (docs/security.md, "Declared sizes") */
    hsize_t dims[1] = {N}, chunk[1] = {CROWS};
    hid_t space = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    H5Pset_deflate(dcpl, 4);
    d = H5Dcreate2(f, "sparse", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    double one[CROWS] = {1};
    hid_t ms = H5Screate_simple(1, chunk, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, (hsize_t[]){0}, NULL, chunk, NULL);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, space, H5P_DEFAULT, one);
    CHECK_EQ_INT(direct_vs_hdf5(d, H5T_NATIVE_DOUBLE, 1, 1, N), -1);
    CHECK_EQ_INT(last_missing, CROWS);
    H5Dclose(d);
    /* a corrupt chunk: 0, and H5Dread fails on it too */
    d = H5Dcreate2(f, "corrupt", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, (double[N]){0});
    unsigned char junk[64];
    memset(junk, 0xA5, sizeof junk);
    H5Dwrite_chunk(d, H5P_DEFAULT, 0, (hsize_t[]){0}, sizeof junk, junk);
    hid_t ft = H5Dget_type(d), dp = H5Dget_create_plist(d);
    double *buf = malloc(N * sizeof *buf);
    size_t missing = 0;
    CHECK(!jl__read_chunks_direct(d, dp, ft, H5T_NATIVE_DOUBLE, (hsize_t[]){N, 1}, 1,
                                  CROWS * sizeof(double), buf, &missing));
    H5Pclose(dp);
    CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
    H5Eclear2(H5E_DEFAULT);
    free(buf);
    H5Tclose(ft);
    H5Dclose(d);
    H5Sclose(ms);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
    free(path);
}

/* summary_fields_only: the six columns the summary never uses are neither
 * read nor validated (a broken temp_c and waiting no longer fail the run),
 * every other column still is; by default all are. */
TEST(summary_fields_only)
{
    jl_run *run = tf_make_run("r", 50, 2);
    char *path = tf_path("unused.h5");
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_write(path, (const jl_run *const *)&run, 1, NULL, &e), JL_OK);
    jl_error_free(e);
    jl_run_free(run);
    /* gpu/temp_c of the wrong length, engine/waiting negative */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    H5Ldelete(f, "/runs/r/gpu/temp_c", H5P_DEFAULT);
    hsize_t dims[2] = {3, 2};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "/runs/r/gpu/temp_c", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(sp);
    d = H5Dopen2(f, "/runs/r/engine/waiting", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(fs);
    int32_t *neg = calloc((size_t)n, sizeof *neg);
    neg[0] = -5;
    H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, neg);
    free(neg);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);

    char *msg = NULL;
    jl_run *r = NULL;
    CHECK_EQ_INT(tf_read(path, 0, NULL, &r, &msg, NULL), JL_EINVALID);
    CHECK(msg && strstr(msg, "/runs/r/gpu/temp_c"));
    free(msg);
    jl_run_free(r);

    jl_trace_options opt;
    jl_trace_options_default(&opt);
    CHECK_EQ_INT(opt.summary_fields_only, 0);
    opt.summary_fields_only = 1;
    r = NULL;
    msg = NULL;
    CHECK_EQ_INT(tf_read(path, 0, &opt, &r, &msg, NULL), JL_OK);
    free(msg);
    if (r) {
        CHECK(!r->temp_c.v && !r->mem_util.v && !r->mem_used_bytes.v && !r->watts_avg.v);
        CHECK(!r->waiting && !r->input_tokens);
        CHECK(r->watts.v && r->energy_j.v && r->sm_util.v && r->sm_clock_mhz.v);
        CHECK(r->running && r->output_tokens && r->arrival && r->itl_seconds);
    }
    jl_run_free(r);
    free(path);
}

int main(void)
{
    tf_init("test_trace_chunks");
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    RUN(direct_equals_h5dread);
    RUN(left_to_hdf5);
    RUN(summary_fields_only);
    if (!jt_failures)
        tf_cleanup();
    TEST_MAIN_END();
}
