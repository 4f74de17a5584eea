/* itl/ walked chunk by chunk instead of read whole (jl_trace_options
 * .stream_itl; docs/trace-reading.md, "Streaming itl/").
 *
 * itl/ holds one sample per generated token: ~10^7 a long run, 100x the rows
 * of power/, and most of a run's decoded bytes. When the reader streams it,
 * it checks each column's type, shape, length and chunking as for a read,
 * then hands the open dataset to the run's stream (jl__itl_stream_keep)
 * and leaves its value rule to the stream (jl__itl_stream_defer): the first
 * whole walk, jl_summarize()'s first pass (jl_run_itl_blocks), checks each
 * block before handing it on, so a long run's itl/ is decoded once less
 * than if the reader walked it to check it first. A walk decodes one chunk
 * of each column at a time with the reader's own chunk decoder
 * (chunk_read.c) and hands the caller blocks of rows both columns cover:
 * memory is one compressed and one decoded chunk per column. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/util.h"
#include "trace/trace_internal.h"

/* One column: streamed (dset >= 0), in memory (mem), or absent. */
typedef struct {
    char *obj;      /* object path, for messages */
    hid_t dset;     /* -1 unless streamed */
    jl__chunks *ch; /* its chunk decoder */
    void *buf;      /* one chunk of rows, decoded */
    size_t chunk_rows;
    const void *mem; /* the column in memory (jl_run's array), or NULL */
    void *whole;     /* the column read whole by the check (dset closed), or NULL */
} stream_col;

struct jl_itl_stream {
    size_t rows;
    stream_col col[2]; /* 0: seconds (float), 1: request (int32) */
    /* the reader's rule, made by the first whole walk (jl__itl_stream_defer) */
    int pending; /* 1 until a walk has checked every row */
    uint32_t R;  /* request indices must be below R */
    int has_req; /* requests/ is there (req_n rows): the message says so */
    size_t req_n;
    /* its verdict once made with a failure (bad_lat or bad_q < SIZE_MAX) */
    size_t bad_lat, bad_q;
    float lat;
    int32_t q;
};

static hid_t col_mtype(int col)
{
    return col == 0 ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT32;
}

int jl__itl_stream_keep(jl_run *run, int col, const char *obj, hid_t dset, hid_t dcpl, hid_t ftype,
                        size_t rows, size_t cbytes)
{
    /* request streams only beside streamed seconds */
    if (col == 1 && !run->itl_stream)
        return 0;
    hsize_t dims[2] = {rows, 1};
    jl__chunks *ch = jl__chunks_open(dset, dcpl, ftype, col_mtype(col), dims, 1, cbytes);
    if (!ch) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    if (!run->itl_stream) {
        if (!(run->itl_stream = calloc(1, sizeof *run->itl_stream))) {
            jl__chunks_free(ch);
            return -1;
        }
        run->itl_stream->col[0].dset = run->itl_stream->col[1].dset = -1;
        run->itl_stream->bad_lat = run->itl_stream->bad_q = SIZE_MAX;
    }
    stream_col *c = &run->itl_stream->col[col];
    c->ch = ch;
    c->chunk_rows = jl__chunks_rows(ch);
    c->buf = jl__malloc_array(c->chunk_rows, 4);
    c->obj = jl__strdup(obj);
    if (!c->buf || !c->obj) {
        jl__chunks_free(ch);
        free(c->buf);
        free(c->obj);
        memset(c, 0, sizeof *c);
        c->dset = -1;
        return -1;
    }
    c->dset = dset;
    run->itl_stream->rows = rows;
    return 1;
}

void jl__itl_stream_drop(jl_run *run)
{
    struct jl_itl_stream *s = run->itl_stream;
    if (!s)
        return;
    for (int k = 0; k < 2; k++) {
        stream_col *c = &s->col[k];
        jl__chunks_free(c->ch);
        free(c->buf);
        free(c->obj);
        free(c->whole);
        /* the file may be closed already (H5F_CLOSE_STRONG closed this too) */
        if (c->dset >= 0 && H5Dclose(c->dset) < 0)
            H5Eclear2(H5E_DEFAULT);
    }
    free(s);
    run->itl_stream = NULL;
}

/* ---- the reader's check ---------------------------------------------- */

typedef struct {
    uint32_t R;
    size_t bad_lat, bad_q;
    float lat;
    int32_t q;
} scan_state;

/* 1 when some sample of x[0..n) is not a finite latency >= 0, or (q not
 * NULL) some index of q[0..n) is >= R: four samples at a time, no branch. */
static int block_bad(const float *x, const int32_t *q, size_t n, uint32_t R)
{
    size_t i = 0;
    int bad = 0;
#ifdef __SSE2__
    const __m128 inf = _mm_set1_ps(INFINITY), zero = _mm_setzero_ps();
    /* unsigned q >= R as signed compares after flipping the sign bits */
    const __m128i flip = _mm_set1_epi32((int)0x80000000u),
                  lim = _mm_set1_epi32((int)((R - 1u) ^ 0x80000000u));
    __m128 accf = _mm_setzero_ps();
    __m128i accq = _mm_setzero_si128();
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_loadu_ps(x + i);
        /* ok: 0 <= v < inf (NaN fails both) */
        __m128 ok = _mm_and_ps(_mm_cmpge_ps(v, zero), _mm_cmplt_ps(v, inf));
        accf = _mm_or_ps(accf, _mm_andnot_ps(ok, _mm_castsi128_ps(_mm_set1_epi32(-1))));
        if (q) {
            __m128i k =
                _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(q + i)), flip);
            accq = _mm_or_si128(accq, _mm_cmpgt_epi32(k, lim));
        }
    }
    bad = _mm_movemask_ps(accf) | _mm_movemask_epi8(accq);
    if (R == 0 && q && n > 0)
        bad = 1;
#endif
    for (; i < n; i++) {
        bad |= !(x[i] >= 0.0f) | !(x[i] < INFINITY);
        if (q)
            bad |= (uint32_t)q[i] >= R;
    }
    return bad != 0;
}

/* The reader's itl/ rule over one block, a block with a bad value walked
 * again for its row. A bad latency ends the walk (it is reported before
 * any bad index). */
static jl_status scan_block(void *ctx, const float *x, const int32_t *q, size_t n, size_t row0)
{
    scan_state *st = ctx;
    enum { BLOCK = 1024 };
    for (size_t b = 0; b < n; b += BLOCK) {
        size_t e = n - b < BLOCK ? n : b + BLOCK;
        if (!block_bad(x + b, q ? q + b : NULL, e - b, st->R))
            continue;
        for (size_t i = b; i < e; i++) {
            if (!(x[i] >= 0.0f && x[i] < INFINITY)) {
                st->bad_lat = row0 + i;
                st->lat = x[i];
                return JL_EINVALID;
            }
            if (q && (uint32_t)q[i] >= st->R && st->bad_q == SIZE_MAX) {
                st->bad_q = row0 + i;
                st->q = q[i];
            }
        }
    }
    return JL_OK;
}

void jl__itl_scan(const jl_run *run, uint32_t R, size_t *bad_lat, float *lat, size_t *bad_q,
                  int32_t *q)
{
    scan_state st = {R, SIZE_MAX, SIZE_MAX, 0.0f, 0};
    if (run->itl_n && run->itl_seconds)
        (void)scan_block(&st, run->itl_seconds, run->itl_request, run->itl_n, 0);
    *bad_lat = st.bad_lat;
    *lat = st.lat;
    *bad_q = st.bad_q;
    *q = st.q;
}

jl_status jl__itl_fail(jl_error **err, const char *file, const char *run, const char *obj_seconds,
                       const char *obj_request, int has_req, size_t req_n, size_t bad_lat,
                       float lat, size_t bad_q, int32_t q)
{
    const char *obj = bad_lat != SIZE_MAX ? obj_seconds : obj_request;
    size_t row = bad_lat != SIZE_MAX ? bad_lat : bad_q;
    if (bad_lat == SIZE_MAX && bad_q == SIZE_MAX)
        return JL_OK;
    if (!err || *err)
        return JL_EINVALID;
    if (bad_lat != SIZE_MAX) {
        char a[40];
        jl__fmt_double(a, sizeof a, lat);
        *err = jl_error_new(JL_EINVALID, file, run, obj, (long long)row, "%s at row %zu (%s)",
                            isfinite(lat) ? "negative latency" : "not finite", row, a);
    } else if (q < 0 || !has_req) {
        *err = jl_error_new(JL_EINVALID, file, run, obj, (long long)row,
                            "request index out of range at row %zu (%d)", row, (int)q);
    } else {
        *err = jl_error_new(JL_EINVALID, file, run, obj, (long long)row,
                            "request index out of range at row %zu (%d; requests/ has %zu rows)",
                            row, (int)q, req_n);
    }
    return JL_EINVALID;
}

void jl__itl_stream_defer(jl_run *run, uint32_t R, int has_req, size_t req_n)
{
    struct jl_itl_stream *s = run->itl_stream;
    s->pending = 1;
    s->R = R;
    s->has_req = has_req;
    s->req_n = req_n;
}

int jl__itl_stream_pending(const jl_run *run)
{
    return run->itl_stream && run->itl_stream->pending;
}

static jl_status stream_fail(const jl_run *run, const struct jl_itl_stream *s, jl_error **err)
{
    return jl__itl_fail(err, run->file, run->name, s->col[0].obj, s->col[1].obj, s->has_req,
                        s->req_n, s->bad_lat, s->lat, s->bad_q, s->q);
}

/* The check met a chunk the chunk path does not decode: as the reader did
 * before streaming, both columns are read whole through HDF5 (seconds
 * first; a failure is the reader's message for that dataset) and the walk
 * goes on over them. */
static jl_status read_whole(const jl_run *run, struct jl_itl_stream *s, jl_error **err)
{
    for (int k = 0; k < 2; k++) {
        stream_col *c = &s->col[k];
        if (c->dset < 0)
            continue;
        free(c->whole); /* a check walked again after a read that failed */
        if (!(c->whole = jl__malloc_array(s->rows ? s->rows : 1, 4)))
            return JL_ENOMEM;
        jl__zstd_set_chunk_bytes(c->chunk_rows * 4);
        if (H5Dread(c->dset, col_mtype(k), H5S_ALL, H5S_ALL, H5P_DEFAULT, c->whole) < 0) {
            rctx at = {run->file,         run->name, NULL, err, NULL,
                       RUN_LINKS_UNKNOWN, c->obj,    NULL, 0,   0};
            return jl__read_failed(&at);
        }
        jl__zstd_set_chunk_bytes(0);
        if (H5Dclose(c->dset) < 0)
            H5Eclear2(H5E_DEFAULT);
        c->dset = -1;
        c->mem = c->whole;
    }
    return JL_OK;
}

/* Rows [row, row + n) of streamed column c, whose chunks could not be
 * decoded here, through HDF5's own pipeline into c->buf. */
static int read_rows_hdf5(stream_col *c, int col, size_t row, size_t n)
{
    hsize_t start = row, count = n;
    hid_t fs = H5Dget_space(c->dset), ms = H5Screate_simple(1, &count, NULL);
    int ok = fs >= 0 && ms >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             H5Dread(c->dset, col_mtype(col), ms, fs, H5P_DEFAULT, c->buf) >= 0;
    if (fs >= 0)
        H5Sclose(fs);
    if (ms >= 0)
        H5Sclose(ms);
    return ok;
}

/* Walk the stream of run: fn (may be NULL: the check alone) on blocks of
 * rows both columns hold. While the check is pending, each block is
 * checked first: a bad latency ends the walk with the reader's error, a
 * bad index is reported once the walk is through (a bad latency later on
 * comes first) and no block is handed on after it; a chunk that does not
 * decode reads both columns whole (read_whole). Once checked, a chunk that
 * does not decode is read through HDF5, and a failure there is an error
 * naming the dataset. */
static jl_status walk(const jl_run *run, jl_itl_block_fn fn, void *ctx, jl_error **err)
{
    struct jl_itl_stream *s = run->itl_stream;
    if (s->bad_lat != SIZE_MAX || s->bad_q != SIZE_MAX) /* checked, and failed */
        return stream_fail(run, s, err);
    for (int k = 0; k < 2; k++)
        if (!s->col[k].whole)
            s->col[k].mem = k ? (const void *)run->itl_request : (const void *)run->itl_seconds;
    const int checking = s->pending;
    scan_state sc = {s->R, SIZE_MAX, SIZE_MAX, 0.0f, 0};
    size_t lo[2] = {0, 0}, hi[2] = {0, 0}; /* rows of each column's buffer */
    const int have_q = s->col[1].dset >= 0 || s->col[1].mem;
    for (size_t row = 0; row < s->rows;) {
        const void *p[2] = {NULL, NULL};
        size_t m = s->rows - row;
        int again = 0;
        for (int k = 0; k < 1 + have_q && !again; k++) {
            stream_col *c = &s->col[k];
            if (c->dset < 0) {
                p[k] = (const char *)c->mem + row * 4;
                continue;
            }
            if (row >= hi[k]) {
                size_t n = s->rows - row < c->chunk_rows ? s->rows - row : c->chunk_rows;
                if (!jl__chunks_read(c->ch, row, c->buf)) {
                    if (checking) {
                        jl_status st = read_whole(run, s, err);
                        if (st != JL_OK)
                            return st;
                        again = 1; /* this row again, from the columns in memory */
                        continue;
                    }
                    jl__zstd_set_chunk_bytes(c->chunk_rows * 4);
                    int ok = read_rows_hdf5(c, k, row, n);
                    jl__zstd_set_chunk_bytes(0);
                    if (!ok)
                        return jl__h5_fail(err, JL_EIO, run->file, run->name, c->obj,
                                           (long long)row, "cannot read the data at row %zu", row);
                }
                lo[k] = row;
                hi[k] = row + n;
            }
            p[k] = (const char *)c->buf + (row - lo[k]) * 4;
            if (hi[k] - row < m)
                m = hi[k] - row;
        }
        if (again)
            continue;
        int give = fn != NULL;
        if (checking) {
            if (scan_block(&sc, p[0], p[1], m, row) != JL_OK) {
                s->pending = 0;
                s->bad_lat = sc.bad_lat;
                s->lat = sc.lat;
                return stream_fail(run, s, err);
            }
            give &= sc.bad_q == SIZE_MAX; /* the run fails: nothing more to hand on */
        }
        if (give) {
            jl_status st = fn(ctx, p[0], p[1], m, row);
            if (st != JL_OK)
                return st; /* a check not through stays pending */
        }
        row += m;
    }
    if (checking) {
        s->pending = 0;
        s->bad_q = sc.bad_q;
        s->q = sc.q;
        if (sc.bad_q != SIZE_MAX)
            return stream_fail(run, s, err);
    }
    return JL_OK;
}

jl_status jl_run_itl_blocks(const jl_run *run, jl_itl_block_fn fn, void *ctx, jl_error **err)
{
    if (!run->itl_stream)
        return run->itl_n && run->itl_seconds
                   ? fn(ctx, run->itl_seconds, run->itl_request, run->itl_n, 0)
                   : JL_OK;
    return walk(run, fn, ctx, err);
}

jl_status jl_run_itl_check(const jl_run *run, jl_error **err)
{
    if (!run->itl_stream)
        return JL_OK;
    return run->itl_stream->pending ? walk(run, NULL, NULL, err)
                                    : stream_fail(run, run->itl_stream, err);
}
