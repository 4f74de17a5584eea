/* Reading a chunked, compressed dataset without HDF5's filter pipeline:
 * H5Dread_chunk() hands over each stored chunk as it is on disk, and the
 * reader decodes it itself — deflate with libdeflate (whole-buffer inflate,
 * 2-3x faster than the zlib stream HDF5's built-in filter uses; HDF5 1.10
 * refuses to replace its predefined filters, so H5Zregister cannot swap the
 * decoder in), Zstandard with libzstd — then undoes the shuffle filter and
 * copies (or widens) the chunk's rows into the destination. See
 * docs/trace-reading.md, "How datasets are decoded".
 *
 * Only the common layout takes this path: chunked along rows (a chunk holds
 * whole rows), pipeline [shuffle,] deflate|zstd with nothing else, every
 * chunk stored and applied with all filters, file type equal to the memory
 * type or float32 -> double or int32 -> int64. Anything else — and any
 * chunk that fails to decode to exactly one chunk's bytes — returns 0
 * before the caller relies on the data, and the caller reads the dataset
 * with H5Dread() as before, so unusual files and corrupt chunks get the
 * same handling and the same error messages as without this path. Memory:
 * one compressed and one decoded chunk (bounded by the chunk size the caller
 * checked against its limits). */
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <libdeflate.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "trace/trace_internal.h"

enum { CODEC_DEFLATE = 1, CODEC_ZSTD = 2 };
enum { CONV_COPY, CONV_F32_F64, CONV_I32_I64 };

/* Which codec, whether shuffled; 0 when the pipeline is not one we decode. */
static int pipeline(hid_t dcpl, int *shuffled)
{
    int nf = H5Pget_nfilters(dcpl), codec = 0;
    *shuffled = 0;
    if (nf < 1 || nf > 2)
        return 0;
    for (int i = 0; i < nf; i++) {
        unsigned flags = 0;
        size_t ncd = 0;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, 0, NULL, NULL);
        if (id == H5Z_FILTER_SHUFFLE && i == 0 && nf == 2)
            *shuffled = 1;
        else if (id == H5Z_FILTER_DEFLATE && i == nf - 1)
            codec = CODEC_DEFLATE;
        else if (id == JL__ZSTD_FILTER_ID && i == nf - 1)
            codec = CODEC_ZSTD;
        else
            return 0;
    }
    return codec;
}

static int conversion(hid_t ftype, hid_t mtype, size_t *fsize)
{
    *fsize = H5Tget_size(ftype);
    if (H5Tequal(ftype, mtype) > 0)
        return CONV_COPY;
    if (H5Tequal(mtype, H5T_NATIVE_DOUBLE) > 0 && H5Tequal(ftype, H5T_NATIVE_FLOAT) > 0)
        return CONV_F32_F64;
    if (H5Tequal(mtype, H5T_NATIVE_INT64) > 0 && H5Tequal(ftype, H5T_NATIVE_INT32) > 0)
        return CONV_I32_I64;
    H5Eclear2(H5E_DEFAULT);
    return -1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define JL__UNSHUFFLE_AVX2 1
#include <immintrin.h>
/* unshuffle's 32-at-a-time form on AVX2 (found at run time): the unpacks
 * work within each 128-bit half, so the low halves hold elements i..i+15
 * and the high halves i+16..i+31, put back in order when stored. Returns
 * the elements done (a multiple of 32). */
__attribute__((target("avx2"))) static size_t
unshuffle_avx2(unsigned char *out, const unsigned char *in, size_t n, size_t count, size_t es)
{
    size_t i = 0;
    if (es == 4) {
        for (; i + 32 <= count; i += 32) {
            __m256i p0 = _mm256_loadu_si256((const __m256i *)(const void *)(in + i));
            __m256i p1 = _mm256_loadu_si256((const __m256i *)(const void *)(in + n + i));
            __m256i p2 = _mm256_loadu_si256((const __m256i *)(const void *)(in + 2 * n + i));
            __m256i p3 = _mm256_loadu_si256((const __m256i *)(const void *)(in + 3 * n + i));
            __m256i a = _mm256_unpacklo_epi8(p0, p1), b = _mm256_unpackhi_epi8(p0, p1);
            __m256i c = _mm256_unpacklo_epi8(p2, p3), d = _mm256_unpackhi_epi8(p2, p3);
            __m256i r0 = _mm256_unpacklo_epi16(a, c), r1 = _mm256_unpackhi_epi16(a, c);
            __m256i r2 = _mm256_unpacklo_epi16(b, d), r3 = _mm256_unpackhi_epi16(b, d);
            __m256i *o = (__m256i *)(void *)(out + 4 * i);
            _mm256_storeu_si256(o, _mm256_permute2x128_si256(r0, r1, 0x20));
            _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(r2, r3, 0x20));
            _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(r0, r1, 0x31));
            _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(r2, r3, 0x31));
        }
    } else if (es == 8) {
        for (; i + 32 <= count; i += 32) {
            __m256i p[8], q[8], r[8], e[8];
            for (int k = 0; k < 8; k++)
                p[k] = _mm256_loadu_si256((const __m256i *)(const void *)(in + (size_t)k * n + i));
            for (int k = 0; k < 4; k++) {
                q[2 * k] = _mm256_unpacklo_epi8(p[2 * k], p[2 * k + 1]);
                q[2 * k + 1] = _mm256_unpackhi_epi8(p[2 * k], p[2 * k + 1]);
            }
            for (int k = 0; k < 2; k++) {
                r[4 * k] = _mm256_unpacklo_epi16(q[4 * k], q[4 * k + 2]);
                r[4 * k + 1] = _mm256_unpackhi_epi16(q[4 * k], q[4 * k + 2]);
                r[4 * k + 2] = _mm256_unpacklo_epi16(q[4 * k + 1], q[4 * k + 3]);
                r[4 * k + 3] = _mm256_unpackhi_epi16(q[4 * k + 1], q[4 * k + 3]);
            }
            for (int k = 0; k < 4; k++) { /* per half: elements 4k .. 4k+3 */
                e[2 * k] = _mm256_unpacklo_epi32(r[k], r[4 + k]);
                e[2 * k + 1] = _mm256_unpackhi_epi32(r[k], r[4 + k]);
            }
            __m256i *o = (__m256i *)(void *)(out + 8 * i);
            for (int k = 0; k < 4; k++) { /* elements 4k..4k+3, then 16+4k.. */
                _mm256_storeu_si256(o + k, _mm256_permute2x128_si256(e[2 * k], e[2 * k + 1], 0x20));
                _mm256_storeu_si256(o + 4 + k,
                                    _mm256_permute2x128_si256(e[2 * k], e[2 * k + 1], 0x31));
            }
        }
    }
    return i;
}

/* the CPU's answer, asked once (atomic: threads may ask at once; each
 * would store the same value) */
static int have_avx2(void)
{
    static _Atomic int known = -1;
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k < 0) {
        k = __builtin_cpu_supports("avx2") != 0;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k;
}
#endif

/* Element i of a shuffled chunk of n elements of es bytes: byte b of every
 * element is stored together, at b * n. Elements of 4 and 8 bytes are
 * interleaved 32 at a time with AVX2 where the processor has it, else 16
 * at a time with SSE2 unpacks (x86-64's baseline). */
static void unshuffle(unsigned char *out, const unsigned char *in, size_t n, size_t count,
                      size_t es)
{
    size_t i = 0;
#ifdef JL__UNSHUFFLE_AVX2
    if ((es == 4 || es == 8) && have_avx2())
        i = unshuffle_avx2(out, in, n, count, es);
#endif
#ifdef __SSE2__
    if (es == 4) {
        for (; i + 16 <= count; i += 16) {
            __m128i p0 = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
            __m128i p1 = _mm_loadu_si128((const __m128i *)(const void *)(in + n + i));
            __m128i p2 = _mm_loadu_si128((const __m128i *)(const void *)(in + 2 * n + i));
            __m128i p3 = _mm_loadu_si128((const __m128i *)(const void *)(in + 3 * n + i));
            __m128i a = _mm_unpacklo_epi8(p0, p1), b = _mm_unpackhi_epi8(p0, p1);
            __m128i c = _mm_unpacklo_epi8(p2, p3), d = _mm_unpackhi_epi8(p2, p3);
            __m128i *o = (__m128i *)(void *)(out + 4 * i);
            _mm_storeu_si128(o, _mm_unpacklo_epi16(a, c));
            _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(a, c));
            _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(b, d));
            _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(b, d));
        }
    } else if (es == 8) {
        for (; i + 16 <= count; i += 16) {
            __m128i p[8], q[8], r[8];
            for (int k = 0; k < 8; k++)
                p[k] = _mm_loadu_si128((const __m128i *)(const void *)(in + (size_t)k * n + i));
            for (int k = 0; k < 4; k++) { /* bytes 2k, 2k+1 of each element */
                q[2 * k] = _mm_unpacklo_epi8(p[2 * k], p[2 * k + 1]);
                q[2 * k + 1] = _mm_unpackhi_epi8(p[2 * k], p[2 * k + 1]);
            }
            for (int k = 0; k < 2; k++) { /* bytes 4k .. 4k+3 */
                r[4 * k] = _mm_unpacklo_epi16(q[4 * k], q[4 * k + 2]);
                r[4 * k + 1] = _mm_unpackhi_epi16(q[4 * k], q[4 * k + 2]);
                r[4 * k + 2] = _mm_unpacklo_epi16(q[4 * k + 1], q[4 * k + 3]);
                r[4 * k + 3] = _mm_unpackhi_epi16(q[4 * k + 1], q[4 * k + 3]);
            }
            __m128i *o = (__m128i *)(void *)(out + 8 * i);
            for (int k = 0; k < 4; k++) { /* elements 4k .. 4k+3 */
                _mm_storeu_si128(o + 2 * k, _mm_unpacklo_epi32(r[k], r[4 + k]));
                _mm_storeu_si128(o + 2 * k + 1, _mm_unpackhi_epi32(r[k], r[4 + k]));
            }
        }
    }
#endif
    for (; i < count; i++)
        for (size_t b = 0; b < es; b++)
            out[i * es + b] = in[b * n + i];
}

/* The decoders, one of each per thread and kept: libzstd's
 * ZSTD_decompress() makes and frees a context (~100 KiB, zeroed) for every
 * frame, i.e. every chunk, and a libdeflate decompressor per dataset was
 * ~20 % of a small dataset's decoding (docs/performance.md, session 11).
 * Never freed: reachable from here until the process ends. */
static _Thread_local ZSTD_DCtx *zstd_ctx;
static _Thread_local struct libdeflate_decompressor *deflate_ctx;

static ZSTD_DCtx *zstd_dctx(void)
{
    if (!zstd_ctx)
        zstd_ctx = ZSTD_createDCtx();
    return zstd_ctx;
}

static struct libdeflate_decompressor *deflate_dec(void)
{
    if (!deflate_ctx)
        deflate_ctx = libdeflate_alloc_decompressor();
    return deflate_ctx;
}

/* A dataset whose chunks this path decodes (jl__chunks_open). */
struct jl__chunks {
    hid_t dset;
    int codec, shuffled, conv;
    size_t cols, fs, ms, elems, cbytes, max_stored;
    hsize_t rows, chunk_rows;
    unsigned char *cbuf, *dbuf, *sbuf;
    struct libdeflate_decompressor *dec; /* the thread's (deflate_dec) */
    ZSTD_DCtx *zdc;                      /* the thread's (zstd_dctx) */
    size_t missing;                      /* the first row of a chunk not stored + 1; 0: none met */
};

jl__chunks *jl__chunks_open(hid_t dset, hid_t dcpl, hid_t ftype, hid_t mtype, const hsize_t dims[2],
                            int rank, size_t cbytes)
{
    int shuffled = 0;
    if (dcpl < 0 || cbytes == 0 || H5Pget_layout(dcpl) != H5D_CHUNKED)
        return NULL;
    hsize_t chunk[2] = {0, 0};
    if (H5Pget_chunk(dcpl, 2, chunk) != rank || chunk[0] == 0)
        return NULL;
    size_t cols = rank == 2 ? (size_t)dims[1] : 1;
    if (rank == 2 && chunk[1] != dims[1])
        return NULL;
    int codec = pipeline(dcpl, &shuffled);
    size_t fs;
    int conv = conversion(ftype, mtype, &fs);
    if (!codec || conv < 0 || fs == 0 || cbytes != chunk[0] * cols * fs)
        return NULL;
    jl__chunks *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->dset = dset;
    c->codec = codec;
    c->shuffled = shuffled;
    c->conv = conv;
    c->cols = cols;
    c->fs = fs;
    c->ms = H5Tget_size(mtype);
    c->elems = cbytes / fs;
    c->cbytes = cbytes;
    c->rows = dims[0];
    c->chunk_rows = chunk[0];
    /* a stored chunk larger than this is not what an encoder of this chunk
     * writes: leave it to HDF5 */
    c->max_stored = cbytes + cbytes / 8 + 4096;
    c->cbuf = malloc(c->max_stored);
    c->dbuf = malloc(cbytes);
    c->sbuf = shuffled || conv != CONV_COPY ? malloc(cbytes) : NULL;
    if (!c->cbuf || !c->dbuf || ((shuffled || conv != CONV_COPY) && !c->sbuf) ||
        (codec == CODEC_DEFLATE && !(c->dec = deflate_dec())) ||
        (codec != CODEC_DEFLATE && !(c->zdc = zstd_dctx()))) {
        jl__chunks_free(c);
        return NULL;
    }
    return c;
}

size_t jl__chunks_rows(const jl__chunks *c)
{
    return (size_t)c->chunk_rows;
}

void jl__chunks_free(jl__chunks *c)
{
    if (!c)
        return;
    free(c->cbuf);
    free(c->dbuf);
    free(c->sbuf);
    free(c);
}

int jl__chunks_read(jl__chunks *c, size_t row, void *out_rows)
{
    hsize_t off[2] = {row, 0}, stored = 0;
    uint32_t mask = 0;
    if (row >= c->rows || row % c->chunk_rows)
        return 0;
    int sized = H5Dget_chunk_storage_size(c->dset, off, &stored) >= 0;
    if (!sized || stored == 0) {
        /* never written (HDF5 1.10 fails to size such a chunk): HDF5 would
         * read fill values */
        unsigned fm = 0;
        haddr_t addr = 0;
        hsize_t sz = 0;
        H5Eclear2(H5E_DEFAULT);
        if (!c->missing &&
            (sized || (H5Dget_chunk_info_by_coord(c->dset, off, &fm, &addr, &sz) >= 0 &&
                       addr == HADDR_UNDEF)))
            c->missing = row + 1;
        goto fail;
    }
    if (stored > c->max_stored)
        goto fail;
    if (H5Dread_chunk(c->dset, H5P_DEFAULT, off, &mask, c->cbuf) < 0 || mask != 0)
        goto fail;
    if (c->codec == CODEC_DEFLATE) {
        if (libdeflate_zlib_decompress(c->dec, c->cbuf, (size_t)stored, c->dbuf, c->cbytes, NULL) !=
            LIBDEFLATE_SUCCESS)
            goto fail;
    } else {
        size_t got = ZSTD_decompressDCtx(c->zdc, c->dbuf, c->cbytes, c->cbuf, (size_t)stored);
        if (ZSTD_isError(got) || got != c->cbytes)
            goto fail;
    }
    size_t rows = c->rows - row < c->chunk_rows ? (size_t)(c->rows - row) : (size_t)c->chunk_rows;
    size_t count = rows * c->cols, fs = c->fs;
    unsigned char *out = out_rows;
    const unsigned char *src = c->dbuf;
    if (c->shuffled) {
        unsigned char *to = c->conv == CONV_COPY ? out : c->sbuf;
        unshuffle(to, c->dbuf, c->elems, count, fs);
        if (c->conv == CONV_COPY)
            return 1;
        src = c->sbuf;
    }
    if (c->conv == CONV_COPY) {
        memcpy(out, src, count * fs);
    } else if (c->conv == CONV_F32_F64) {
        double *o = (double *)(void *)out;
        for (size_t i = 0; i < count; i++) {
            float v;
            memcpy(&v, src + 4 * i, 4);
            o[i] = (double)v;
        }
    } else {
        int64_t *o = (int64_t *)(void *)out;
        for (size_t i = 0; i < count; i++) {
            int32_t v;
            memcpy(&v, src + 4 * i, 4);
            o[i] = (int64_t)v;
        }
    }
    return 1;
fail:
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

int jl__read_chunks_direct(hid_t dset, hid_t dcpl, hid_t ftype, hid_t mtype, const hsize_t dims[2],
                           int rank, size_t cbytes, void *dst, size_t *missing_row)
{
    jl__chunks *c = jl__chunks_open(dset, dcpl, ftype, mtype, dims, rank, cbytes);
    int ok = c != NULL;
    for (hsize_t row = 0; ok && row < dims[0]; row += c->chunk_rows)
        ok = jl__chunks_read(c, (size_t)row, (unsigned char *)dst + (size_t)row * c->cols * c->ms);
    if (c && c->missing) {
        *missing_row = c->missing - 1;
        ok = -1;
    }
    jl__chunks_free(c);
    if (!ok)
        H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* After a failed H5Dread of a dataset (the reader's read_ds, a streamed
 * itl/ read whole): the error, EFORMAT when a chunk did not
 * decode (our Zstandard filter says why; deflate, shuffle, fletcher32...:
 * HDF5 says its filter failed), EIO otherwise. Ends the chunk-size hint. */
jl_status jl__read_failed(const rctx *at)
{
    jl_error *cause = jl__h5_stack_error();
    if (*jl__zstd_last_error()) {
        jl_error *z = jl_error_new(JL_EFORMAT, NULL, NULL, NULL, -1, "%s", jl__zstd_last_error());
        if (z) {
            z->cause = cause;
            cause = z;
        }
    }
    int chunk_failed = *jl__zstd_last_error() != '\0';
    jl__zstd_set_chunk_bytes(0);
    if (!chunk_failed && cause) {
        char *m = jl_error_format(cause);
        if (m && (strstr(m, "data pipeline read failed") || strstr(m, "filter returned failure")))
            chunk_failed = 1;
        free(m);
    }
    return jl__rctx_fail_cause(at, chunk_failed ? JL_EFORMAT : JL_EIO, cause,
                               "cannot read the data%s",
                               chunk_failed ? " (corrupt compressed chunk)" : "");
}
