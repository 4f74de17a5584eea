/* itl/ walked chunk by chunk instead of read whole (jl_trace_options
 * .stream_itl; docs/trace-reading.md, "Streaming itl/").
 *
 * itl/ holds one sample per generated token: ~10^7 a long run, 100x the rows
 * of power/, and most of a run's decoded bytes. When the reader streams it,
 * it checks each column's type, shape, length and chunking as for a read,
 * then hands the open dataset to the run's stream (jl__itl_stream_keep);
 * its value rule then walks the stream once (jl__itl_stream_scan), and
 * jl_summarize() walks it again (jl_run_itl_blocks). A walk decodes one
 * chunk of each column at a time with the reader's own chunk decoder
 * (chunk_read.c) and hands the caller blocks of rows both columns cover:
 * memory is one compressed and one decoded chunk per column. */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
} stream_col;

struct jl_itl_stream {
    size_t rows;
    stream_col col[2]; /* 0: seconds (float), 1: request (int32) */
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
        /* the file may be closed already (H5F_CLOSE_STRONG closed this too) */
        if (c->dset >= 0 && H5Dclose(c->dset) < 0)
            H5Eclear2(H5E_DEFAULT);
    }
    free(s);
    run->itl_stream = NULL;
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

/* Walk the stream of run: fn on blocks of rows both columns hold. strict:
 * a chunk that does not decode ends the walk with JL_EFORMAT and no
 * message (the reader's scan: the caller reads the columns whole); else it
 * is read through HDF5, and a failure there is an error naming the
 * dataset. */
static jl_status walk(const jl_run *run, int strict, jl_itl_block_fn fn, void *ctx, jl_error **err)
{
    struct jl_itl_stream *s = run->itl_stream;
    s->col[0].mem = run->itl_seconds;
    s->col[1].mem = run->itl_request;
    size_t lo[2] = {0, 0}, hi[2] = {0, 0}; /* rows of each column's buffer */
    const int have_q = s->col[1].dset >= 0 || s->col[1].mem;
    for (size_t row = 0; row < s->rows;) {
        const void *p[2] = {NULL, NULL};
        size_t m = s->rows - row;
        for (int k = 0; k < 1 + have_q; k++) {
            stream_col *c = &s->col[k];
            if (c->dset < 0) {
                p[k] = (const char *)c->mem + row * 4;
                continue;
            }
            if (row >= hi[k]) {
                size_t n = s->rows - row < c->chunk_rows ? s->rows - row : c->chunk_rows;
                if (!jl__chunks_read(c->ch, row, c->buf)) {
                    if (strict)
                        return JL_EFORMAT;
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
        jl_status st = fn(ctx, p[0], p[1], m, row);
        if (st != JL_OK)
            return st;
        row += m;
    }
    return JL_OK;
}

jl_status jl_run_itl_blocks(const jl_run *run, jl_itl_block_fn fn, void *ctx, jl_error **err)
{
    if (!run->itl_stream)
        return run->itl_n && run->itl_seconds
                   ? fn(ctx, run->itl_seconds, run->itl_request, run->itl_n, 0)
                   : JL_OK;
    return walk(run, 0, fn, ctx, err);
}

/* ---- the reader's check ---------------------------------------------- */

typedef struct {
    uint32_t R;
    size_t bad_lat, bad_q;
    float lat;
    int32_t q;
} scan_state;

/* The reader's itl/ rule over one block: checked without a branch per
 * sample (vectorised), a block with a bad value walked again for its row.
 * A bad latency ends the walk (it is reported before any bad index). */
static jl_status scan_block(void *ctx, const float *x, const int32_t *q, size_t n, size_t row0)
{
    scan_state *st = ctx;
    enum { BLOCK = 1024 };
    for (size_t b = 0; b < n; b += BLOCK) {
        size_t e = n - b < BLOCK ? n : b + BLOCK;
        if (e - b == BLOCK) {
            const float *xb = x + b;
            int bad = 0;
            for (size_t i = 0; i < BLOCK; i++)
                bad |= !(xb[i] >= 0.0f) | !(xb[i] < INFINITY);
            if (q) {
                const uint32_t *qb = (const uint32_t *)(const void *)(q + b);
                for (size_t i = 0; i < BLOCK; i++)
                    bad |= qb[i] >= st->R;
            }
            if (!bad)
                continue;
        }
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

int jl__itl_scan(const jl_run *run, uint32_t R, size_t *bad_lat, float *lat, size_t *bad_q,
                 int32_t *q)
{
    scan_state st = {R, SIZE_MAX, SIZE_MAX, 0.0f, 0};
    jl_status rc = run->itl_stream ? walk(run, 1, scan_block, &st, NULL)
                                   : jl_run_itl_blocks(run, scan_block, &st, NULL);
    *bad_lat = st.bad_lat;
    *lat = st.lat;
    *bad_q = st.bad_q;
    *q = st.q;
    if (rc == JL_EFORMAT)
        return 0;
    if (rc != JL_OK && rc != JL_EINVALID)
        return -1;
    return 1;
}
