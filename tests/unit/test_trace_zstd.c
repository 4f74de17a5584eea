/* The Zstandard filter: the re-encoded real trace reads identical to the
 * deflate original; crafted chunks (a frame claiming more than its chunk,
 * frames without a declared size, short, corrupt and foreign chunks) are
 * refused with clean errors. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <zstd.h>

#include "test_trace_fixtures.h"

#define TRACES JOULES_SOURCE_DIR "/traces"
#define ZSTD_TRACES JOULES_SOURCE_DIR "/tests/traces"
#define ROWS 100
#define CHUNK_BYTES (ROWS * 8)

TEST(zstd_copy_reads_identical)
{
    jl_trace *z = NULL, *d = NULL;
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_open(ZSTD_TRACES "/h100-zstd/h100-qwen3-1.7b-shape-chat.h5", NULL, &z,
                               &e),
                 JL_OK);
    CHECK_EQ_INT(jl_trace_open(TRACES "/h100/h100-qwen3-1.7b-shape-chat.h5", NULL, &d, &e), JL_OK);
    if (!z || !d) {
        jl_error_free(e);
        jl_trace_close(z);
        jl_trace_close(d);
        return;
    }
    CHECK_EQ_INT(jl_trace_run_count(z), 5);
    CHECK_EQ_INT(jl_trace_run_count(z), jl_trace_run_count(d));
    size_t compared = 0;
    for (size_t i = 0; i < jl_trace_run_count(z); i++) {
        jl_run *a = NULL, *b = NULL;
        CHECK_EQ_INT(jl_trace_read_run(z, i, &a, &e), JL_OK);
        CHECK_EQ_INT(jl_trace_read_run(d, i, &b, &e), JL_OK);
        if (a && b) {
            int same = tf_runs_equal(a, b);
            if (!same)
                fprintf(stderr, "run %s differs\n", a->name);
            CHECK(same);
            compared += a->power_n + a->itl_n + a->engine_n;
        }
        jl_run_free(a);
        jl_run_free(b);
    }
    CHECK(compared > 400000);
    /* and it really is Zstandard */
    jl_run_info info;
    CHECK_EQ_INT(jl_trace_describe_run(z, 0, &info, &e), JL_OK);
    CHECK(info.n_datasets > 20);
    for (size_t k = 0; k < info.n_datasets; k++)
        CHECK_STR(info.datasets[k].filters, "zstd(5)");
    jl_run_info_clear(&info);
    jl_error_free(e);
    jl_trace_close(z);
    jl_trace_close(d);
}

/* A valid trace whose power/watts ([ROWS, 1] float64, one chunk) is
 * replaced by a zstd-filtered dataset holding `chunk` as its raw chunk. */
static char *craft(const char *name, const void *chunk, size_t len)
{
    char *path = tf_path(name);
    jl_run *r = tf_make_run("r", ROWS, 1);
    jl_trace_write_options o;
    jl_trace_write_options_default(&o);
    o.layout = JL_LAYOUT_CONTIGUOUS;
    o.compression = JL_COMPRESS_NONE;
    o.shuffle = 0;
    const jl_run *one[1] = {r};
    jl_error *e = NULL;
    CHECK_EQ_INT(jl_trace_write(path, one, 1, &o, &e), JL_OK);
    jl_error_free(e);
    jl_run_free(r);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    CHECK(H5Ldelete(f, "/runs/r/power/watts", H5P_DEFAULT) >= 0);
    hsize_t dims[2] = {ROWS, 1};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, dims) >= 0);
    unsigned cd[1] = {3};
    CHECK(H5Pset_filter(dcpl, 32015, H5Z_FLAG_MANDATORY, 1, cd) >= 0);
    hid_t d =
        H5Dcreate2(f, "/runs/r/power/watts", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d >= 0);
    hsize_t off[2] = {0, 0};
    CHECK(H5Dwrite_chunk(d, H5P_DEFAULT, 0, off, len, chunk) >= 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
    return path;
}

/* Compress `n` bytes of a pattern (the fixture's watts when n = CHUNK_BYTES). */
static void *frame(size_t n, int with_size, int checksum, size_t *out_len)
{
    unsigned char *src = calloc(1, n ? n : 1);
    for (size_t i = 0; i + 8 <= n && n <= 1 << 20; i += 8) {
        double w = 100.0 + (double)(i / 8) + 0.5;
        memcpy(src + i, &w, 8);
    }
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, with_size);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
    size_t cap = ZSTD_compressBound(n);
    void *dst = malloc(cap);
    size_t r;
    if (with_size) {
        r = ZSTD_compress2(cc, dst, cap, src, n);
    } else {
        /* streaming without a pledged size: no content size in the header */
        ZSTD_inBuffer in = {src, n, 0};
        ZSTD_outBuffer ob = {dst, cap, 0};
        r = ZSTD_compressStream2(cc, &ob, &in, ZSTD_e_end);
        CHECK_EQ_INT(r, 0);
        r = ob.pos;
        CHECK(ZSTD_getFrameContentSize(dst, r) == ZSTD_CONTENTSIZE_UNKNOWN);
    }
    CHECK(!ZSTD_isError(r));
    ZSTD_freeCCtx(cc);
    free(src);
    *out_len = r;
    return dst;
}

/* Read the crafted trace; expect st and the zstd cause text. */
static void expect_read(const char *path, jl_status want, const char *cause_text)
{
    jl_run *r = NULL;
    char *msg = NULL;
    jl_error *e = NULL;
    jl_status st = tf_read(path, 0, NULL, &r, &msg, &e);
    CHECK_EQ_INT(st, want);
    if (want == JL_OK) {
        CHECK(r && r->watts.v && r->watts.n == ROWS);
        if (r && r->watts.v)
            CHECK_NEAR(r->watts.v[ROWS - 1], 100.0 + ROWS - 1 + 0.5, 0, 0);
        if (msg)
            fprintf(stderr, "unexpected: %s\n", msg);
    } else {
        CHECK(e != NULL);
        if (e) {
            CHECK_STR(e->object, "/runs/r/power/watts");
            CHECK_STR(e->run, "r");
            CHECK_STR(e->file, path);
            CHECK_STR(e->message, "cannot read the data (corrupt compressed chunk)");
            CHECK(e->cause != NULL);
            if (e->cause) {
                CHECK_CONTAINS(e->cause->message, cause_text);
                /* and HDF5's own account below it */
                CHECK(e->cause->cause && strstr(e->cause->cause->message, "HDF5:"));
            }
        }
        CHECK_CONTAINS(msg, cause_text);
    }
    free(msg);
    jl_error_free(e);
    jl_run_free(r);
}

/* H5Dread without the reader: the bound then comes from the cd_values
 * joules' set_local stored ({level, chunk bytes}). */
static herr_t raw_read(const char *path)
{
    double buf[ROWS];
    jl_zstd_filter_register();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/runs/r/power/watts", H5P_DEFAULT);
    herr_t r = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return r;
}

TEST(crafted_good_chunk_reads)
{
    size_t len;
    void *fr = frame(CHUNK_BYTES, 1, 0, &len);
    char *p = craft("good.h5", fr, len);
    expect_read(p, JL_OK, NULL);
    CHECK(raw_read(p) >= 0);
    free(fr);
    free(p);
    /* without a declared size: streamed into a chunk-sized buffer */
    fr = frame(CHUNK_BYTES, 0, 1, &len);
    p = craft("good-nosize.h5", fr, len);
    expect_read(p, JL_OK, NULL);
    free(fr);
    free(p);
}

TEST(frame_claiming_more_than_its_chunk)
{
    size_t len;
    void *fr = frame(100 * CHUNK_BYTES, 1, 0, &len);
    char *p = craft("bomb.h5", fr, len);
    expect_read(p, JL_EFORMAT, "zstd: frame declares 80000 bytes, more than the chunk's 800 bytes");
    CHECK(raw_read(p) < 0); /* cd_values[1] = 800 bounds it too */
    free(fr);
    free(p);
    /* 64 MiB of zeros in a few KiB: refused before allocating */
    fr = frame((size_t)64 << 20, 1, 0, &len);
    CHECK(len < 100000);
    p = craft("bomb64m.h5", fr, len);
    expect_read(p, JL_EFORMAT, "frame declares 67108864 bytes, more than the chunk's 800 bytes");
    free(fr);
    free(p);
    /* the same without a declared size: the streaming decoder stops at 800 */
    fr = frame(10 * CHUNK_BYTES, 0, 0, &len);
    p = craft("bomb-nosize.h5", fr, len);
    expect_read(p, JL_EFORMAT,
                "zstd: frame without a declared size decodes to more than the chunk's 800 bytes");
    CHECK(raw_read(p) < 0);
    free(fr);
    free(p);
}

TEST(short_corrupt_and_foreign_chunks)
{
    size_t len;
    void *fr = frame(CHUNK_BYTES / 2, 1, 0, &len);
    char *p = craft("short.h5", fr, len);
    expect_read(p, JL_EFORMAT, "zstd: frame decodes to 400 bytes, the chunk holds 800");
    free(fr);
    free(p);

    /* checksummed frame with one payload byte flipped */
    fr = frame(CHUNK_BYTES, 1, 1, &len);
    ((unsigned char *)fr)[len / 2] ^= 0x55;
    p = craft("corrupt.h5", fr, len);
    expect_read(p, JL_EFORMAT, "zstd: corrupt frame");
    free(fr);
    free(p);

    /* truncated frame */
    fr = frame(CHUNK_BYTES, 1, 0, &len);
    p = craft("truncated.h5", fr, len - 4);
    expect_read(p, JL_EFORMAT, "zstd: corrupt frame");
    free(fr);
    free(p);

    /* not Zstandard at all */
    unsigned char junk[64];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    p = craft("junk.h5", junk, sizeof junk);
    expect_read(p, JL_EFORMAT, "zstd: chunk of 64 bytes is not a Zstandard frame");
    free(p);
}

int main(void)
{
    tf_init("test_trace_zstd");
    RUN(zstd_copy_reads_identical);
    RUN(crafted_good_chunk_reads);
    RUN(frame_claiming_more_than_its_chunk);
    RUN(short_corrupt_and_foreign_chunks);
    if (!jt_failures)
        tf_cleanup();
    TEST_MAIN_END();
}
