/* The Zstandard HDF5 filter (registered id 32015), built on libzstd, so
 * joules reads and writes Zstandard-compressed traces without any HDF5
 * plugin. See docs/trace-reading.md, "Zstandard".
 *
 * Client values: cd_values[0] is the compression level (the convention of
 * the registered filter; default 3). When joules creates a dataset,
 * set_local appends cd_values[1] = the decoded size of one chunk in bytes,
 * which other readers ignore.
 *
 * Decompression is bounded: a chunk never decodes to more than one chunk's
 * bytes. The bound is, in order of preference, the chunk size the trace
 * reader announces for the dataset it is reading (thread-local, computed
 * from the dataset's chunk dimensions and type size: files written by
 * other implementations carry only the level), the cd_values[1] joules
 * stored, or HDF5's own limit on a chunk (4 GiB - 1). A frame that declares
 * a larger content size is refused before anything is allocated; a frame
 * without a declared size is decoded by streaming into a buffer that never
 * grows past the bound. When the reader announced the chunk size, the frame
 * must decode to exactly that size. Any failure returns 0, which HDF5
 * reports as a failed read; the reason is kept for the reader's message
 * (jl__zstd_last_error). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "joules/trace.h"
#include "trace/trace_internal.h"

#define JL__ZSTD_DEFAULT_LEVEL 3
/* HDF5 limits a chunk to 2^32 - 1 bytes. */
#define JL__ZSTD_MAX_CHUNK ((size_t)0xffffffffu)

static _Thread_local size_t tl_chunk_bytes;
static _Thread_local char tl_error[256];

void jl__zstd_set_chunk_bytes(size_t bytes)
{
    tl_chunk_bytes = bytes;
    tl_error[0] = '\0';
}

const char *jl__zstd_last_error(void)
{
    return tl_error;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static size_t
zfail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tl_error, sizeof tl_error, fmt, ap);
    va_end(ap);
    return 0;
}

/* The frame the filter writes for src[0..n) at `level`, into dst (cap
 * bytes, at least ZSTD_compressBound(n)), with a context the caller keeps
 * (*cctx: created on first use, freed by jl__zstd_free_cctx). The same
 * bytes as ZSTD_compress(), which the filter calls: ZSTD_compressCCtx resets
 * the context's parameters to the level's. Returns the frame's size, 0 on
 * failure (the reason in jl__zstd_last_error). */
size_t jl__zstd_compress_chunk(void **cctx, void *dst, size_t cap, const void *src, size_t n,
                               int level)
{
    if (!*cctx && !(*cctx = ZSTD_createCCtx()))
        return zfail("zstd: out of memory");
    size_t r = ZSTD_compressCCtx(*cctx, dst, cap, src, n, level);
    if (ZSTD_isError(r)) {
        snprintf(tl_error, sizeof tl_error, "zstd: %s", ZSTD_getErrorName(r));
        return 0;
    }
    return r;
}

size_t jl__zstd_bound(size_t n)
{
    return ZSTD_compressBound(n);
}

void jl__zstd_free_cctx(void *cctx)
{
    ZSTD_freeCCtx(cctx);
}

static size_t zstd_compress(size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
                            size_t *buf_size, void **buf)
{
    int level = JL__ZSTD_DEFAULT_LEVEL;
    if (cd_nelmts > 0) {
        level = (int)cd_values[0];
        if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
            level = JL__ZSTD_DEFAULT_LEVEL;
    }
    size_t cap = ZSTD_compressBound(nbytes);
    if (ZSTD_isError(cap))
        return zfail("zstd: chunk of %llu bytes too large to compress", (unsigned long long)nbytes);
    void *out = H5allocate_memory(cap ? cap : 1, 0);
    if (!out)
        return zfail("zstd: out of memory (%llu bytes)", (unsigned long long)cap);
    size_t r = ZSTD_compress(out, cap, *buf, nbytes, level);
    if (ZSTD_isError(r)) {
        H5free_memory(out);
        snprintf(tl_error, sizeof tl_error, "zstd: %s", ZSTD_getErrorName(r));
        return 0;
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = cap;
    return r;
}

/* Streaming decode of a frame without a declared content size, into a
 * buffer that grows up to `bound` bytes and no further. */
static size_t zstd_stream_decode(const void *src, size_t nbytes, size_t bound, void **outp)
{
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    void *out = NULL;
    size_t cap = bound < ((size_t)1 << 20) ? bound : ((size_t)1 << 20);
    size_t result = 0;
    if (!dctx)
        return zfail("zstd: out of memory");
    if (cap == 0)
        cap = 1;
    out = H5allocate_memory(cap, 0);
    if (!out) {
        zfail("zstd: out of memory (%llu bytes)", (unsigned long long)cap);
        goto end;
    }
    ZSTD_inBuffer in = {src, nbytes, 0};
    ZSTD_outBuffer ob = {out, cap, 0};
    for (;;) {
        size_t r = ZSTD_decompressStream(dctx, &ob, &in);
        if (ZSTD_isError(r)) {
            snprintf(tl_error, sizeof tl_error, "zstd: corrupt frame: %s", ZSTD_getErrorName(r));
            goto end;
        }
        if (r == 0) /* frame complete */
            break;
        if (ob.pos == ob.size) {
            if (ob.size >= bound) {
                zfail("zstd: frame without a declared size decodes to more than "
                      "the chunk's %llu bytes",
                      (unsigned long long)bound);
                goto end;
            }
            size_t ncap = ob.size > bound / 2 ? bound : ob.size * 2;
            void *n = H5resize_memory(out, ncap);
            if (!n) {
                zfail("zstd: out of memory (%llu bytes)", (unsigned long long)ncap);
                goto end;
            }
            out = n;
            ob.dst = out;
            ob.size = ncap;
        } else if (in.pos == in.size) {
            zfail("zstd: truncated frame (%llu compressed bytes)", (unsigned long long)nbytes);
            goto end;
        }
    }
    if (in.pos != in.size) {
        zfail("zstd: %llu bytes of trailing data after the frame",
              (unsigned long long)(in.size - in.pos));
        goto end;
    }
    result = ob.pos;
    *outp = out;
    out = NULL;
end:
    if (out)
        H5free_memory(out);
    ZSTD_freeDCtx(dctx);
    return result;
}

static size_t zstd_decompress(size_t cd_nelmts, const unsigned int cd_values[], size_t nbytes,
                              size_t *buf_size, void **buf)
{
    size_t bound = JL__ZSTD_MAX_CHUNK;
    int exact = 0;
    if (tl_chunk_bytes) {
        bound = tl_chunk_bytes;
        exact = 1;
    } else if (cd_nelmts >= 2 && cd_values[1] > 0) {
        bound = cd_values[1];
    }
    unsigned long long declared = ZSTD_getFrameContentSize(*buf, nbytes);
    if (declared == ZSTD_CONTENTSIZE_ERROR)
        return zfail("zstd: chunk of %llu bytes is not a Zstandard frame",
                     (unsigned long long)nbytes);
    void *out = NULL;
    size_t got;
    if (declared == ZSTD_CONTENTSIZE_UNKNOWN) {
        got = zstd_stream_decode(*buf, nbytes, bound, &out);
        if (!out)
            return 0;
    } else {
        if (declared > bound)
            return zfail("zstd: frame declares %llu bytes, more than the chunk's %llu bytes",
                         declared, (unsigned long long)bound);
        out = H5allocate_memory(declared ? (size_t)declared : 1, 0);
        if (!out)
            return zfail("zstd: out of memory (%llu bytes)", declared);
        got = ZSTD_decompress(out, (size_t)declared, *buf, nbytes);
        if (ZSTD_isError(got)) {
            snprintf(tl_error, sizeof tl_error, "zstd: corrupt frame: %s", ZSTD_getErrorName(got));
            H5free_memory(out);
            return 0;
        }
        if (got != declared) {
            H5free_memory(out);
            return zfail("zstd: frame declares %llu bytes but decodes to %llu", declared,
                         (unsigned long long)got);
        }
    }
    if (exact && got != bound) {
        H5free_memory(out);
        return zfail("zstd: frame decodes to %llu bytes, the chunk holds %llu",
                     (unsigned long long)got, (unsigned long long)bound);
    }
    if (got == 0) { /* HDF5 reads a 0 return as failure */
        H5free_memory(out);
        return zfail("zstd: empty frame");
    }
    H5free_memory(*buf);
    *buf = out;
    *buf_size = got;
    return got;
}

static size_t zstd_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                          size_t nbytes, size_t *buf_size, void **buf)
{
    if (flags & H5Z_FLAG_REVERSE)
        return zstd_decompress(cd_nelmts, cd_values, nbytes, buf_size, buf);
    return zstd_compress(cd_nelmts, cd_values, nbytes, buf_size, buf);
}

/* At dataset creation: store {level, chunk bytes}. */
static herr_t zstd_set_local(hid_t dcpl, hid_t type, hid_t space)
{
    unsigned int flags = 0;
    size_t n = 8;
    unsigned int cd[8] = {0};
    if (H5Pget_filter_by_id2(dcpl, JL__ZSTD_FILTER_ID, &flags, &n, cd, 0, NULL, NULL) < 0)
        return -1;
    unsigned int level = n > 0 ? cd[0] : JL__ZSTD_DEFAULT_LEVEL;
    hsize_t chunk[H5S_MAX_RANK];
    int rank = H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk);
    size_t tsize = H5Tget_size(type);
    if (rank <= 0 || tsize == 0)
        return -1;
    unsigned long long bytes = tsize;
    for (int i = 0; i < rank; i++) {
        if (chunk[i] && bytes > JL__ZSTD_MAX_CHUNK / chunk[i]) {
            bytes = 0; /* too large to store: unknown */
            break;
        }
        bytes *= chunk[i];
    }
    unsigned int out[2] = {level, (unsigned int)bytes};
    if (H5Pmodify_filter(dcpl, JL__ZSTD_FILTER_ID, flags, 2, out) < 0)
        return -1;
    return 1;
}

static const H5Z_class2_t zstd_class = {
    H5Z_CLASS_T_VERS,
    (H5Z_filter_t)JL__ZSTD_FILTER_ID,
    1, /* encoder present */
    1, /* decoder present */
    "Zstandard",
    NULL, /* can_apply */
    zstd_set_local,
    zstd_filter,
};

static pthread_once_t register_once = PTHREAD_ONCE_INIT;
static herr_t register_result = -1;

static void do_register(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    register_result = H5Zregister(&zstd_class);
}

jl_status jl_zstd_filter_register(void)
{
    pthread_once(&register_once, do_register);
    return register_result < 0 ? JL_EINTERNAL : JL_OK;
}
