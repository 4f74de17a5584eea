/* Writing trace files (format v1): see include/joules/trace_write.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/civil_time.h"
#include "core/util.h"
#include "joules/output.h"
#include "joules/spans.h"
#include "joules/trace_write.h"
#include "joules/version.h"
#include "trace/trace_internal.h"

#define JL__WRITE_MAX_CHUNK_BYTES ((size_t)1 << 30)

/* A failed HDF5 write: JL_EIO with the HDF5 stack as its cause, on the
 * output side (include/joules/error.h: the CLI's exit 4, not a read error). */
#define WFAIL(errp, ...) jl_error_mark_output(jl__h5_fail(errp, JL_EIO, __VA_ARGS__), errp)

struct jl_trace_writer {
    char *path, *tmp;
    hid_t file, runs;
    hid_t scalar, vstr; /* a scalar dataspace and the UTF-8 string type, for attributes */
    jl_trace_write_options opt;
    /* direct Zstandard chunk writes (write_chunks_zstd): kept between datasets */
    void *zcctx;
    unsigned char *zraw, *zshuf, *zout;
    size_t zraw_cap, zshuf_cap, zout_cap;
};

void jl_trace_write_options_default(jl_trace_write_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->layout = JL_LAYOUT_CHUNKED;
    opt->chunk_rows = 65536;
    opt->compression = JL_COMPRESS_DEFLATE;
    opt->level = -1;
    opt->shuffle = 1;
    opt->watts_float32 = 1;
    opt->summary_table = 1;
}

/* ------------------------------------------------------------------ */
/* Attributes                                                          */

typedef struct {
    jl_trace_writer *w;
    const char *run;
    jl_error **err;
} wctx;

static jl_status attr_write(wctx *c, hid_t obj, const char *opath, const char *name, hid_t ftype,
                            hid_t mtype, const void *value)
{
    jl_status st = JL_OK;
    hid_t a = -1;
    if ((a = H5Acreate2(obj, name, ftype, c->w->scalar, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
        H5Awrite(a, mtype, value) < 0)
        st = WFAIL(c->err, c->w->path, c->run, opath, -1, "cannot write attribute @%s", name);
    CLOSE(a, H5Aclose);
    return st;
}

static jl_status attr_str(wctx *c, hid_t obj, const char *opath, const char *name,
                          const char *value)
{
    if (!value)
        return JL_OK;
    return attr_write(c, obj, opath, name, c->w->vstr, c->w->vstr, &value);
}

static jl_status attr_i64(wctx *c, hid_t obj, const char *opath, const char *name, long long v)
{
    int64_t x = v;
    return attr_write(c, obj, opath, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &x);
}

static jl_status attr_f64(wctx *c, hid_t obj, const char *opath, const char *name, double v)
{
    return attr_write(c, obj, opath, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

/* A number that is integral and fits int64 is written as int64. */
static jl_status attr_num(wctx *c, hid_t obj, const char *opath, const char *name, double v)
{
    if (isnan(v))
        return JL_OK;
    if (v == floor(v) && fabs(v) < 9.0e18)
        return attr_i64(c, obj, opath, name, (long long)v);
    return attr_f64(c, obj, opath, name, v);
}

/* Extras are text: numbers go back as int64 or float64, the rest as strings. */
static jl_status attr_extra(wctx *c, hid_t obj, const char *opath, const jl_kv *kv)
{
    const char *s = kv->value ? kv->value : "";
    if (kv->is_number && *s) {
        char *end;
        errno = 0;
        long long i = strtoll(s, &end, 10);
        if (!*end && !errno)
            return attr_i64(c, obj, opath, kv->key, i);
        double d = strtod(s, &end);
        if (!*end)
            return attr_f64(c, obj, opath, kv->key, d);
    }
    return attr_str(c, obj, opath, kv->key, s);
}

static jl_status write_run_attrs(wctx *c, hid_t g, const char *opath, const jl_attrs *a)
{
    jl_status st;
#define S(f)                                             \
    if ((st = attr_str(c, g, opath, #f, a->f)) != JL_OK) \
        return st;
#define L(f)                                                          \
    if (a->f >= 0 && (st = attr_i64(c, g, opath, #f, a->f)) != JL_OK) \
        return st;
#define D(f)                                                             \
    if (!isnan(a->f) && (st = attr_f64(c, g, opath, #f, a->f)) != JL_OK) \
        return st;
#define N(f)                                             \
    if ((st = attr_num(c, g, opath, #f, a->f)) != JL_OK) \
        return st;
    /* clang-format off */
    S(workload) S(model) S(task) S(gpu_model) L(num_gpus) S(precision)
    L(max_batch_size) D(start_time_unix) L(tensor_parallel) L(expert_parallel)
    L(data_parallel) N(gpu_memory_bytes) D(gpu_tdp_w) D(gpu_idle_power_w)
    D(total_params) D(active_params) N(kv_bytes_per_token) L(denoising_steps)
    L(height) L(width) L(num_frames) S(notes)
    /* clang-format on */
#undef S
#undef L
#undef D
#undef N
                    for (size_t i = 0; i < a->n_extra;
                         i++) if ((st = attr_extra(c, g, opath, &a->extra[i])) != JL_OK) return st;
    return JL_OK;
}

/* ------------------------------------------------------------------ */
/* Datasets                                                            */

/* HDF5's shuffle filter: byte b of each of the count elements of es bytes
 * goes to out[b * count + i] (es <= 1 or count <= 1: a plain copy). */
static void shuffle_bytes(unsigned char *out, const unsigned char *in, size_t count, size_t es)
{
    if (es <= 1 || count <= 1) {
        memcpy(out, in, count * es);
    } else if (es == 4) {
        size_t i = 0;
#ifdef __SSE2__
        /* 16 elements at a time: bytes, words, then double and quad words
         * transposed with SSE2 unpacks (x86-64's baseline) */
        for (; i + 16 <= count; i += 16) {
            __m128i x[4], y[4];
            for (int k = 0; k < 4; k++) {
                x[k] = _mm_loadu_si128((const __m128i *)(const void *)(in + 4 * i + 16 * k));
                y[k] = _mm_shuffle_epi32(x[k], 0xd8);
                x[k] = _mm_shuffle_epi32(x[k], 0x8d);
                x[k] = _mm_unpacklo_epi8(y[k], x[k]);
                y[k] = _mm_shuffle_epi32(x[k], 0x4e);
                x[k] = _mm_unpacklo_epi16(x[k], y[k]);
            }
            for (int k = 0; k < 2; k++) {
                y[2 * k] = _mm_unpacklo_epi32(x[2 * k], x[2 * k + 1]);
                y[2 * k + 1] = _mm_unpackhi_epi32(x[2 * k], x[2 * k + 1]);
            }
            for (int k = 0; k < 2; k++) {
                x[2 * k] = _mm_unpacklo_epi64(y[k], y[k + 2]);
                x[2 * k + 1] = _mm_unpackhi_epi64(y[k], y[k + 2]);
            }
            for (int k = 0; k < 4; k++)
                _mm_storeu_si128((__m128i *)(void *)(out + (size_t)k * count + i), x[k]);
        }
#endif
        for (; i < count; i++) {
            const unsigned char *e = in + 4 * i;
            out[i] = e[0];
            out[count + i] = e[1];
            out[2 * count + i] = e[2];
            out[3 * count + i] = e[3];
        }
    } else {
        for (size_t i = 0; i < count; i++)
            for (size_t b = 0; b < es; b++)
                out[b * count + i] = in[i * es + b];
    }
}

static int grow_buf(unsigned char **b, size_t *cap, size_t want)
{
    if (*cap >= want)
        return 0;
    unsigned char *nb = realloc(*b, want);
    if (!nb)
        return -1;
    *b = nb;
    *cap = want;
    return 0;
}

/* Rows [0, n) of data (row_bytes each; no type conversion) as chunks of
 * chunk_rows rows through [shuffle,] Zstandard done here and written with
 * H5Dwrite_chunk: the bytes HDF5's pipeline stores (the last chunk padded
 * with zeros, as HDF5 pads it), without its per-chunk allocations, copies
 * and byte-at-a-time shuffle. */
static jl_status write_chunks_zstd(wctx *c, hid_t d, const char *obj, const unsigned char *data,
                                   size_t n, size_t row_bytes, size_t es, size_t chunk_rows,
                                   int level)
{
    jl_trace_writer *w = c->w;
    size_t cbytes = chunk_rows * row_bytes;
    if ((n % chunk_rows && grow_buf(&w->zraw, &w->zraw_cap, cbytes)) ||
        (w->opt.shuffle && grow_buf(&w->zshuf, &w->zshuf_cap, cbytes)) ||
        grow_buf(&w->zout, &w->zout_cap, jl__zstd_bound(cbytes)))
        return jl_fail(c->err, JL_ENOMEM, w->path, c->run, obj, -1, NULL);
    for (size_t r0 = 0; r0 < n; r0 += chunk_rows) {
        const unsigned char *src = data + r0 * row_bytes;
        size_t rows = n - r0 < chunk_rows ? n - r0 : chunk_rows;
        if (rows < chunk_rows) { /* the last chunk, padded */
            memcpy(w->zraw, src, rows * row_bytes);
            memset(w->zraw + rows * row_bytes, 0, cbytes - rows * row_bytes);
            src = w->zraw;
        }
        if (w->opt.shuffle) {
            shuffle_bytes(w->zshuf, src, cbytes / es, es);
            src = w->zshuf;
        }
        size_t z = jl__zstd_compress_chunk(&w->zcctx, w->zout, w->zout_cap, src, cbytes, level);
        if (!z)
            return jl_fail_output(c->err, JL_EIO, w->path, c->run, obj, -1,
                                  "cannot compress the data: %s", jl__zstd_last_error());
        hsize_t off[2] = {r0, 0};
        if (H5Dwrite_chunk(d, H5P_DEFAULT, 0, off, z, w->zout) < 0)
            return WFAIL(c->err, w->path, c->run, obj, -1, "cannot write the data");
    }
    return JL_OK;
}

static jl_status write_ds(wctx *c, hid_t grp, const char *gpath, const char *name, int rank,
                          size_t n, size_t g, hid_t ftype, hid_t mtype, const void *data)
{
    jl_status st = JL_OK;
    hid_t space = -1, dcpl = -1, d = -1;
    size_t chunk_rows = 0; /* chunked: rows per chunk */
    const jl_trace_write_options *o = &c->w->opt;
    char *obj = jl__asprintf("%s/%s", gpath, name);
    if (!obj)
        return jl_fail(c->err, JL_ENOMEM, c->w->path, c->run, gpath, -1, NULL);
    if (rank == 2 && g == 0) {
        st = jl_fail(c->err, JL_EUSAGE, c->w->path, c->run, obj, -1,
                     "series with 0 columns cannot be written");
        goto end;
    }
    hsize_t dims[2] = {n, g};
    space = H5Screate_simple(rank, dims, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (space < 0 || dcpl < 0) {
        st = jl__h5_fail(c->err, JL_EINTERNAL, c->w->path, c->run, obj, -1,
                         "cannot set up the dataset");
        goto end;
    }
    /* An empty dataset cannot be chunked with fixed dimensions: contiguous. */
    if (o->layout == JL_LAYOUT_CHUNKED && n > 0) {
        size_t row_bytes = (rank == 2 ? g : 1) * H5Tget_size(ftype);
        size_t rows = o->chunk_rows < n ? o->chunk_rows : n;
        if (rows > JL__WRITE_MAX_CHUNK_BYTES / row_bytes)
            rows = JL__WRITE_MAX_CHUNK_BYTES / row_bytes;
        if (rows == 0)
            rows = 1;
        chunk_rows = rows;
        hsize_t chunk[2] = {rows, g};
        herr_t r = H5Pset_chunk(dcpl, rank, chunk);
        if (r >= 0 && o->shuffle)
            r = H5Pset_shuffle(dcpl);
        if (r >= 0 && o->compression == JL_COMPRESS_DEFLATE)
            r = H5Pset_deflate(dcpl, (unsigned)(o->level < 0 ? 4 : o->level));
        if (r >= 0 && o->compression == JL_COMPRESS_ZSTD) {
            unsigned cd[1] = {(unsigned)(o->level < 0 ? 3 : o->level)};
            r = H5Pset_filter(dcpl, JL__ZSTD_FILTER_ID, H5Z_FLAG_MANDATORY, 1, cd);
        }
        if (r < 0) {
            st = jl__h5_fail(c->err, JL_EINTERNAL, c->w->path, c->run, obj, -1,
                             "cannot set up chunking and filters");
            goto end;
        }
    }
    d = H5Dcreate2(grp, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) {
        st = WFAIL(c->err, c->w->path, c->run, obj, -1, "cannot create the dataset");
        goto end;
    }
    if (chunk_rows && o->compression == JL_COMPRESS_ZSTD && H5Tequal(ftype, mtype) > 0) {
        size_t es = H5Tget_size(ftype);
        st = write_chunks_zstd(c, d, obj, data, n, (rank == 2 ? g : 1) * es, es, chunk_rows,
                               o->level < 0 ? 3 : o->level);
    } else if (n > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        st = WFAIL(c->err, c->w->path, c->run, obj, -1, "cannot write the data");
        goto end;
    }
end:
    free(obj);
    CLOSE(d, H5Dclose);
    CLOSE(dcpl, H5Pclose);
    CLOSE(space, H5Sclose);
    return st;
}

#define F64 H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE
#define F32 H5T_IEEE_F32LE, H5T_NATIVE_FLOAT
#define I32 H5T_STD_I32LE, H5T_NATIVE_INT32
#define I64 H5T_STD_I64LE, H5T_NATIVE_INT64

static jl_status ds1(wctx *c, hid_t grp, const char *gpath, const char *name, size_t n, hid_t ft,
                     hid_t mt, const void *data)
{
    if (!data)
        return JL_OK;
    return write_ds(c, grp, gpath, name, 1, n, 1, ft, mt, data);
}

static jl_status series(wctx *c, hid_t grp, const char *gpath, const char *name, const jl_series *s,
                        int f32)
{
    if (!s->v)
        return JL_OK;
    if (f32) {
        /* Convert here: the run holds doubles. */
        size_t nv;
        if (!jl__mul_size(s->n, s->g, &nv))
            return jl_fail(c->err, JL_ELIMIT, c->w->path, c->run, gpath, -1, "series too large");
        float *f = jl__malloc_array(nv ? nv : 1, sizeof *f);
        if (!f)
            return jl_fail(c->err, JL_ENOMEM, c->w->path, c->run, gpath, -1, NULL);
        for (size_t i = 0; i < nv; i++)
            f[i] = (float)s->v[i];
        jl_status st = write_ds(c, grp, gpath, name, 2, s->n, s->g, F32, f);
        free(f);
        return st;
    }
    return write_ds(c, grp, gpath, name, 2, s->n, s->g, F64, s->v);
}

static jl_status make_group(wctx *c, hid_t parent, const char *ppath, const char *name, hid_t *g,
                            char **path)
{
    *path = jl__asprintf("%s/%s", ppath, name);
    if (!*path)
        return jl_fail(c->err, JL_ENOMEM, c->w->path, c->run, ppath, -1, NULL);
    *g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (*g < 0)
        return WFAIL(c->err, c->w->path, c->run, *path, -1, "cannot create the group");
    return JL_OK;
}

/* @max_energy_range_j of counter `name` of host/ (S per-socket values, NaN
 * unknown): one number when every socket has the same, else one per socket. */
static jl_status host_range(wctx *c, hid_t g, const char *gpath, const char *name, const double *W,
                            size_t S)
{
    if (!W || S == 0)
        return JL_OK;
    char *obj = jl__asprintf("%s/%s", gpath, name);
    if (!obj)
        return jl_fail(c->err, JL_ENOMEM, c->w->path, c->run, gpath, -1, NULL);
    jl_status st = JL_OK;
    hid_t d = -1, sp = -1, a = -1;
    htri_t ex = H5Lexists(g, name, H5P_DEFAULT);
    int same = 1;
    for (size_t s = 1; s < S; s++)
        same = same && (W[s] == W[0] || (isnan(W[s]) && isnan(W[0])));
    hsize_t dim = same ? 1 : S;
    if (ex == 0)
        st = jl_fail(c->err, JL_EUSAGE, c->w->path, c->run, obj, -1,
                     "@max_energy_range_j given without the counter it describes");
    else if (ex < 0 || (d = H5Dopen2(g, name, H5P_DEFAULT)) < 0 ||
             (sp = same ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL)) < 0 ||
             (a = H5Acreate2(d, "max_energy_range_j", H5T_IEEE_F64LE, sp, H5P_DEFAULT,
                             H5P_DEFAULT)) < 0 ||
             H5Awrite(a, H5T_NATIVE_DOUBLE, W) < 0)
        st = WFAIL(c->err, c->w->path, c->run, obj, -1,
                   "cannot write attribute @max_energy_range_j");
    CLOSE(a, H5Aclose);
    CLOSE(sp, H5Sclose);
    CLOSE(d, H5Dclose);
    free(obj);
    return st;
}

/* host/ (format 1.2): its series, @source and the counters' wrap values;
 * into the group a streamed run already holds, if it does. */
static jl_status write_host(wctx *c, hid_t rg, const char *rpath, const jl_run *r)
{
    if (!r->host_time && !r->cpu_energy_j.v && !r->dram_energy_j.v && !r->node_watts &&
        !r->host_source && !r->cpu_max_energy_range_j && !r->dram_max_energy_range_j)
        return JL_OK;
    jl_status st = JL_OK;
    hid_t g = -1;
    char *p = NULL;
    htri_t ex = H5Lexists(rg, "host", H5P_DEFAULT);
    if (ex > 0) {
        if (!(p = jl__asprintf("%s/host", rpath)))
            return jl_fail(c->err, JL_ENOMEM, c->w->path, c->run, rpath, -1, NULL);
        if ((g = H5Gopen2(rg, "host", H5P_DEFAULT)) < 0)
            st = WFAIL(c->err, c->w->path, c->run, p, -1, "cannot open the group");
    } else
        st = make_group(c, rg, rpath, "host", &g, &p);
    size_t S = r->host_sockets     ? r->host_sockets
               : r->cpu_energy_j.v ? r->cpu_energy_j.g
                                   : r->dram_energy_j.g;
    if (st == JL_OK)
        st = ds1(c, g, p, "time", r->host_n, F64, r->host_time);
    if (st == JL_OK)
        st = series(c, g, p, "cpu_energy_j", &r->cpu_energy_j, 0);
    if (st == JL_OK)
        st = series(c, g, p, "dram_energy_j", &r->dram_energy_j, 0);
    if (st == JL_OK)
        st = ds1(c, g, p, "node_watts", r->host_n, F64, r->node_watts);
    if (st == JL_OK)
        st = attr_str(c, g, p, "source", r->host_source);
    if (st == JL_OK)
        st = host_range(c, g, p, "cpu_energy_j", r->cpu_max_energy_range_j, S);
    if (st == JL_OK)
        st = host_range(c, g, p, "dram_energy_j", r->dram_max_energy_range_j, S);
    free(p);
    CLOSE(g, H5Gclose);
    return st;
}

static jl_status write_groups(wctx *c, hid_t rg, const char *rpath, const jl_run *r)
{
    jl_status st = JL_OK;
    hid_t g = -1;
    char *p = NULL;
    int f32 = c->w->opt.watts_float32;
#define GROUP(name)                                                 \
    do {                                                            \
        CLOSE(g, H5Gclose);                                         \
        free(p);                                                    \
        p = NULL;                                                   \
        if ((st = make_group(c, rg, rpath, name, &g, &p)) != JL_OK) \
            goto end;                                               \
    } while (0)
#define TRY(call)               \
    if ((st = (call)) != JL_OK) \
    goto end
    if (r->power_time || r->watts.v || r->energy_j.v || r->watts_avg.v) {
        GROUP("power");
        TRY(ds1(c, g, p, "time", r->power_n, F64, r->power_time));
        TRY(series(c, g, p, "watts", &r->watts, f32));
        TRY(series(c, g, p, "energy_j", &r->energy_j, 0));
        TRY(series(c, g, p, "watts_avg", &r->watts_avg, f32));
        if (r->power_watts_kind)
            TRY(attr_str(c, g, p, "watts_kind", r->power_watts_kind));
    } else if (r->power_watts_kind && H5Lexists(rg, "power", H5P_DEFAULT) > 0) {
        /* a streamed power/ (jl_trace_stream_end): its attribute */
        CLOSE(g, H5Gclose);
        free(p);
        if (!(p = jl__asprintf("%s/power", rpath))) {
            st = jl_fail(c->err, JL_ENOMEM, c->w->path, c->run, rpath, -1, NULL);
            goto end;
        }
        if ((g = H5Gopen2(rg, "power", H5P_DEFAULT)) < 0) {
            st = WFAIL(c->err, c->w->path, c->run, p, -1, "cannot open the group");
            goto end;
        }
        TRY(attr_str(c, g, p, "watts_kind", r->power_watts_kind));
    }
    if (r->gpu_time || r->sm_util.v || r->mem_util.v || r->mem_used_bytes.v || r->sm_clock_mhz.v ||
        r->temp_c.v) {
        GROUP("gpu");
        TRY(ds1(c, g, p, "time", r->gpu_n, F64, r->gpu_time));
        TRY(series(c, g, p, "sm_util", &r->sm_util, 0));
        TRY(series(c, g, p, "mem_util", &r->mem_util, 0));
        TRY(series(c, g, p, "mem_used_bytes", &r->mem_used_bytes, 0));
        TRY(series(c, g, p, "sm_clock_mhz", &r->sm_clock_mhz, 0));
        TRY(series(c, g, p, "temp_c", &r->temp_c, 0));
    }
    if (r->engine_time || r->running || r->waiting || r->tokens_generated || r->prefill_tokens ||
        r->kv_cache_usage) {
        GROUP("engine");
        size_t S = r->engine_n;
        TRY(ds1(c, g, p, "time", S, F64, r->engine_time));
        TRY(ds1(c, g, p, "running", S, I32, r->running));
        TRY(ds1(c, g, p, "waiting", S, I32, r->waiting));
        TRY(ds1(c, g, p, "tokens_generated", S, I64, r->tokens_generated));
        TRY(ds1(c, g, p, "prefill_tokens", S, I64, r->prefill_tokens));
        TRY(ds1(c, g, p, "kv_cache_usage", S, F32, r->kv_cache_usage));
    }
    if (r->arrival || r->first_token || r->finish || r->input_tokens || r->output_tokens) {
        GROUP("requests");
        size_t R = r->req_n;
        TRY(ds1(c, g, p, "arrival", R, F64, r->arrival));
        TRY(ds1(c, g, p, "first_token", R, F64, r->first_token));
        TRY(ds1(c, g, p, "finish", R, F64, r->finish));
        TRY(ds1(c, g, p, "input_tokens", R, I32, r->input_tokens));
        TRY(ds1(c, g, p, "output_tokens", R, I32, r->output_tokens));
    }
    if (r->itl_seconds || r->itl_request) {
        GROUP("itl");
        TRY(ds1(c, g, p, "seconds", r->itl_n, F32, r->itl_seconds));
        TRY(ds1(c, g, p, "request", r->itl_n, I32, r->itl_request));
    }
    if (r->batch_start || r->batch_end || r->batch_size) {
        GROUP("batches");
        TRY(ds1(c, g, p, "start", r->batch_n, F64, r->batch_start));
        TRY(ds1(c, g, p, "end", r->batch_n, F64, r->batch_end));
        TRY(ds1(c, g, p, "size", r->batch_n, I32, r->batch_size));
    }
    TRY(write_host(c, rg, rpath, r));
    if (r->summary.present) {
        GROUP("summary");
        for (size_t k = 0; k < jl__n_summary_fields; k++) {
            const jl__summary_field *f = &jl__summary_fields[k];
            double v = *(const double *)((const char *)&r->summary + f->off);
            if (!isnan(v))
                TRY(attr_f64(c, g, p, f->name, v));
        }
        for (size_t i = 0; i < r->summary.n_extra; i++)
            TRY(attr_extra(c, g, p, &r->summary.extra[i]));
    }
#undef GROUP
#undef TRY
end:
    free(p);
    CLOSE(g, H5Gclose);
    return st;
}

/* ------------------------------------------------------------------ */
/* The writer                                                          */

void jl_trace_writer_abort(jl_trace_writer *w)
{
    if (!w)
        return;
    CLOSE(w->runs, H5Gclose);
    CLOSE(w->scalar, H5Sclose);
    CLOSE(w->vstr, H5Tclose);
    int e;
    (void)jl__h5_close_written(w->file, 0, &e); /* nothing of it is kept */
    w->file = -1;
    jl__zstd_free_cctx(w->zcctx);
    free(w->zraw);
    free(w->zshuf);
    free(w->zout);
    if (w->tmp) {
        unlink(w->tmp);
        jl_atomic_unregister_file(w->tmp);
    }
    free(w->tmp);
    free(w->path);
    free(w);
}

static jl_status check_options(const char *path, const jl_trace_write_options *o, jl_error **err)
{
    if (o->layout != JL_LAYOUT_CONTIGUOUS && o->layout != JL_LAYOUT_CHUNKED)
        return jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1, "unknown layout %d", (int)o->layout);
    if (o->layout == JL_LAYOUT_CONTIGUOUS && (o->compression != JL_COMPRESS_NONE || o->shuffle))
        return jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1,
                       "compression and shuffle need the chunked layout");
    if (o->layout == JL_LAYOUT_CHUNKED && o->chunk_rows == 0)
        return jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1, "chunk_rows must be >= 1");
    switch (o->compression) {
    case JL_COMPRESS_NONE: break;
    case JL_COMPRESS_DEFLATE:
        if (o->level > 9)
            return jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1,
                           "deflate level must be 0..9, not %d", o->level);
        break;
    case JL_COMPRESS_ZSTD:
        if (o->level == 0 || o->level > 22)
            return jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1, "zstd level must be 1..22, not %d",
                           o->level);
        break;
    default:
        return jl_fail(err, JL_EUSAGE, path, NULL, NULL, -1, "unknown compression %d",
                       (int)o->compression);
    }
    return JL_OK;
}

jl_status jl_trace_writer_open(const char *path, const jl_trace_write_options *opt,
                               jl_trace_writer **out, jl_error **err)
{
    jl_status st = JL_OK;
    jl_trace_writer *w = NULL;
    hid_t fapl = -1, root = -1;
    *out = NULL;
    if (!path || !*path)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "no output path given");
    if (jl__h5_init() != JL_OK)
        return jl__h5_fail(err, JL_EINTERNAL, path, NULL, NULL, -1,
                           "cannot register the Zstandard filter with HDF5");
    jl_trace_write_options o;
    if (opt)
        o = *opt;
    else
        jl_trace_write_options_default(&o);
    if ((st = check_options(path, &o, err)) != JL_OK)
        return st;
    w = calloc(1, sizeof *w);
    if (!w)
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
    w->file = w->runs = w->scalar = w->vstr = -1;
    w->opt = o;
    w->opt.harness = w->opt.created_utc = w->opt.provenance = NULL; /* borrowed: used only here */
    if (!(w->path = jl__strdup(path)) || !(w->tmp = jl__asprintf("%s.tmp-XXXXXX", path))) {
        st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
        goto end;
    }
    int fd = mkstemp(w->tmp);
    if (fd < 0) {
        st = jl_fail_output(err, JL_EIO, path, NULL, NULL, -1,
                            "cannot create a temporary file beside it: %s", strerror(errno));
        free(w->tmp);
        w->tmp = NULL;
        goto end;
    }
    fchmod(fd, 0644); /* mkstemp's 0600 would be kept by the rename */
    close(fd);
    /* removed if the command is interrupted (jl_atomic_cleanup_signal) */
    (void)jl_atomic_register_file(w->tmp);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        jl__h5_small_cache(fapl) < 0) {
        st = jl__h5_fail(err, JL_EINTERNAL, path, NULL, NULL, -1, "cannot set up file access");
        goto end;
    }
    w->scalar = H5Screate(H5S_SCALAR);
    w->vstr = H5Tcopy(H5T_C_S1);
    if (w->scalar < 0 || w->vstr < 0 || H5Tset_size(w->vstr, H5T_VARIABLE) < 0 ||
        H5Tset_cset(w->vstr, H5T_CSET_UTF8) < 0) {
        st = jl__h5_fail(err, JL_EINTERNAL, path, NULL, NULL, -1,
                         "cannot build the attribute types");
        goto end;
    }
    errno = 0;
    w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (w->file < 0) {
        int e = errno;
        jl__h5_create_failed(e);
        st = WFAIL(err, path, NULL, NULL, -1, "cannot create the file%s%s", e ? ": " : "",
                   e ? strerror(e) : "");
        goto end;
    }
    root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    wctx c = {w, NULL, err};
    char created[32];
    const char *cu = o.created_utc;
    if (!cu && jl__iso_utc((double)time(NULL), created) == 0)
        cu = created;
    if (root < 0) {
        st = WFAIL(err, path, NULL, "/", -1, "cannot open the root group");
        goto end;
    }
    if ((st = attr_str(&c, root, "/", "format", "joules-trace")) != JL_OK ||
        (st = attr_i64(&c, root, "/", "format_version", 1)) != JL_OK ||
        (st = attr_str(&c, root, "/", "harness",
                       o.harness ? o.harness : "joules " JL_VERSION_STRING)) != JL_OK ||
        (st = attr_str(&c, root, "/", "created_utc", cu)) != JL_OK ||
        (o.provenance && (st = attr_str(&c, root, "/", "provenance", o.provenance)) != JL_OK))
        goto end;
    w->runs = H5Gcreate2(w->file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (w->runs < 0) {
        st = WFAIL(err, path, NULL, "/runs", -1, "cannot create the group");
        goto end;
    }
    *out = w;
    w = NULL;
end:
    CLOSE(root, H5Gclose);
    CLOSE(fapl, H5Pclose);
    jl_trace_writer_abort(w);
    return st;
}

jl_status jl_trace_writer_add_run(jl_trace_writer *w, const jl_run *r, jl_error **err)
{
    if (!r->name || !*r->name || strchr(r->name, '/') || !strcmp(r->name, "."))
        return jl_fail(err, JL_EUSAGE, w->path, r->name, NULL, -1,
                       "a run name must be non-empty and contain no '/'");
    wctx c = {w, r->name, err};
    jl_status st = JL_OK;
    hid_t g = -1;
    char *rpath = jl__asprintf("/runs/%s", r->name);
    if (!rpath)
        return jl_fail(err, JL_ENOMEM, w->path, r->name, NULL, -1, NULL);
    htri_t ex = H5Lexists(w->runs, r->name, H5P_DEFAULT);
    if (ex != 0) {
        st = ex < 0 ? WFAIL(err, w->path, r->name, rpath, -1, "cannot look up")
                    : jl_fail(err, JL_EUSAGE, w->path, r->name, rpath, -1,
                              "a run of this name was already written");
        goto end;
    }
    g = H5Gcreate2(w->runs, r->name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) {
        st = WFAIL(err, w->path, r->name, rpath, -1, "cannot create the group");
        goto end;
    }
    if ((st = write_run_attrs(&c, g, rpath, &r->attrs)) != JL_OK ||
        (st = write_groups(&c, g, rpath, r)) != JL_OK)
        goto end;
end:
    free(rpath);
    CLOSE(g, H5Gclose);
    return st;
}

static int cmp_run_name(const void *a, const void *b)
{
    return strcmp((*(const jl_run *const *)a)->name, (*(const jl_run *const *)b)->name);
}

jl_status jl_trace_writer_set_provenance(jl_trace_writer *w, const char *text, jl_error **err)
{
    if (!text)
        return JL_OK;
    hid_t root = H5Gopen2(w->file, "/", H5P_DEFAULT);
    if (root < 0)
        return WFAIL(err, w->path, NULL, "/", -1, "cannot open the root group");
    wctx c = {w, NULL, err};
    jl_status st = attr_str(&c, root, "/", "provenance", text);
    H5Gclose(root);
    return st;
}

jl_status jl_trace_writer_commit(jl_trace_writer *w, jl_error **err)
{
    jl_status st = JL_OK;
    CLOSE(w->runs, H5Gclose);
    CLOSE(w->scalar, H5Sclose);
    CLOSE(w->vstr, H5Tclose);
    int e = 0;
    int r = jl__h5_close_written(w->file, 1, &e);
    w->file = -1;
    if (r < 0) {
        st = WFAIL(err, w->path, NULL, NULL, -1, "cannot finish writing the file%s%s",
                   e ? ": " : "", e ? strerror(e) : "");
        goto end;
    }
    if ((w->opt.no_replace ? jl__rename_noreplace(w->tmp, w->path) : rename(w->tmp, w->path)) !=
        0) {
        e = errno;
        st = w->opt.no_replace && e == EEXIST
                 ? jl_fail_output(err, JL_EIO, w->path, NULL, NULL, -1,
                                  "appeared while it was being written (another writer?): not "
                                  "replaced without --force, nothing written")
                 : jl_fail_output(err, JL_EIO, w->path, NULL, NULL, -1,
                                  "cannot rename %s into place: %s", w->tmp, strerror(e));
        goto end;
    }
    jl_atomic_unregister_file(w->tmp);
    free(w->tmp);
    w->tmp = NULL;
end:
    jl_trace_writer_abort(w);
    return st;
}

/* The first run whose name an earlier run has (NULL when all differ). */
static const jl_run *first_duplicate(const jl_run *const *runs, size_t n, jl_error **err,
                                     const char *path, int *nomem)
{
    *nomem = 0;
    const jl_run **sorted = jl__malloc_array(n ? n : 1, sizeof *sorted);
    const jl_run *dup = NULL;
    if (!sorted) {
        *nomem = 1;
        jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
        return NULL;
    }
    memcpy(sorted, runs, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_run_name);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(sorted[i - 1]->name, sorted[i]->name)) {
            /* the later of the two in the caller's order */
            for (size_t k = 0; k < n && !dup; k++)
                if (runs[k] == sorted[i - 1] || runs[k] == sorted[i])
                    dup = runs[k] == sorted[i - 1] ? sorted[i] : sorted[i - 1];
            break;
        }
    free(sorted);
    return dup;
}

jl_status jl_trace_write(const char *path, const jl_run *const *runs, size_t n,
                         const jl_trace_write_options *opt, jl_error **err)
{
    jl_trace_writer *w = NULL;
    unsigned char *in_table = NULL;
    jl_status st = jl_trace_writer_open(path, opt, &w, err);
    if (st != JL_OK)
        return st;
    if (w->opt.summary_table && n) {
        int nomem = 0;
        for (size_t i = 0; i < n; i++)
            if (!runs[i]->name) /* the group writer refuses it, with its message */
                goto groups;
        const jl_run *dup = first_duplicate(runs, n, err, path, &nomem);
        if (nomem || dup) {
            if (dup) {
                char *rpath = jl__asprintf("/runs/%s", dup->name);
                jl_fail(err, JL_EUSAGE, path, dup->name, rpath, -1,
                        "a run of this name was already written");
                free(rpath);
            }
            jl_trace_writer_abort(w);
            return nomem ? JL_ENOMEM : JL_EUSAGE;
        }
        if (!(in_table = calloc(n, 1))) {
            jl_trace_writer_abort(w);
            return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, NULL);
        }
        if ((st = jl_error_mark_output(jl__table_write(w->file, path, runs, n, in_table, err),
                                       err)) != JL_OK) {
            free(in_table);
            jl_trace_writer_abort(w);
            return st;
        }
    }
groups:
    for (size_t i = 0; i < n; i++) {
        if (in_table && in_table[i])
            continue;
        if ((st = jl_trace_writer_add_run(w, runs[i], err)) != JL_OK) {
            free(in_table);
            jl_trace_writer_abort(w);
            return st;
        }
    }
    free(in_table);
    return jl_trace_writer_commit(w, err);
}

/* ------------------------------------------------------------------ */
/* A run written piece by piece                                        */

typedef struct sds {
    char *group, *name, *path;
    const char *group_arg, *name_arg; /* the caller's pointers: a fast first match */
    hid_t d;
    size_t g, rows, nbuf; /* rows written, rows buffered */
    double *buf;          /* chunk_rows * g */
    void *tbuf;           /* the same in the file's type (allocated once), unless float64 */
    int ctype;            /* the file's type: JL__COL_* (the format's type of the column) */
    /* validate: the last row appended (times, cumulative counts), and the
     * largest itl/request */
    double last;
    int64_t last_i;
    int has_last;
    int64_t max_i;
} sds;

struct jl_trace_stream {
    jl_trace_writer *w;
    char *name, *rpath;
    hid_t run;
    sds *ds;
    size_t n_ds;
    int has_spans;
};

jl_status jl_trace_writer_begin_run(jl_trace_writer *w, const char *name, jl_trace_stream **out,
                                    jl_error **err)
{
    *out = NULL;
    if (!name || !*name || strchr(name, '/') || !strcmp(name, "."))
        return jl_fail(err, JL_EUSAGE, w->path, name, NULL, -1,
                       "a run name must be non-empty and contain no '/'");
    jl_trace_stream *s = calloc(1, sizeof *s);
    if (!s || !(s->name = jl__strdup(name)) || !(s->rpath = jl__asprintf("/runs/%s", name))) {
        if (s)
            free(s->name);
        free(s);
        return jl_fail(err, JL_ENOMEM, w->path, name, NULL, -1, NULL);
    }
    s->w = w;
    s->run = -1;
    htri_t ex = H5Lexists(w->runs, name, H5P_DEFAULT);
    if (ex != 0) {
        jl_status st = ex < 0 ? WFAIL(err, w->path, name, s->rpath, -1, "cannot look up")
                              : jl_fail(err, JL_EUSAGE, w->path, name, s->rpath, -1,
                                        "a run of this name was already written");
        free(s->name);
        free(s->rpath);
        free(s);
        return st;
    }
    s->run = H5Gcreate2(w->runs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (s->run < 0) {
        jl_status st = WFAIL(err, w->path, name, s->rpath, -1, "cannot create the group");
        free(s->name);
        free(s->rpath);
        free(s);
        return st;
    }
    *out = s;
    return JL_OK;
}

static sds *stream_find(const jl_trace_stream *s, const char *group, const char *name)
{
    for (size_t i = 0; i < s->n_ds; i++) /* callers pass the same literals every time */
        if (s->ds[i].group_arg == group && s->ds[i].name_arg == name)
            return &s->ds[i];
    for (size_t i = 0; i < s->n_ds; i++)
        if (!strcmp(s->ds[i].group, group) && !strcmp(s->ds[i].name, name))
            return &s->ds[i];
    return NULL;
}

size_t jl_trace_stream_rows(const jl_trace_stream *s, const char *group, const char *name)
{
    const sds *d = stream_find(s, group, name);
    return d ? d->rows + d->nbuf : 0;
}

static size_t stream_chunk(const jl_trace_stream *s, size_t g)
{
    size_t rows = s->w->opt.layout == JL_LAYOUT_CHUNKED ? s->w->opt.chunk_rows : 65536;
    if (rows > JL__WRITE_MAX_CHUNK_BYTES / (g * sizeof(double)))
        rows = JL__WRITE_MAX_CHUNK_BYTES / (g * sizeof(double));
    return rows ? rows : 1;
}

/* The type a streamed dataset is stored in: the format's for its column
 * (engine/running int32, engine/tokens_generated int64, itl/seconds
 * float32, ...; docs/trace-format.md), watts float32 or float64 as the
 * options say, float64 for any other. */
static int stream_ctype(const jl_trace_writer *w, const char *group, const char *name)
{
    if (!strcmp(group, "power") && (!strcmp(name, "watts") || !strcmp(name, "watts_avg")))
        return w->opt.watts_float32 ? JL__COL_F32 : JL__COL_F64;
    int rank;
    int t = jl__column_type(group, name, &rank);
    return t < 0 ? JL__COL_F64 : t;
}

static hid_t file_type(int ctype)
{
    return ctype == JL__COL_F32   ? H5T_IEEE_F32LE
           : ctype == JL__COL_I32 ? H5T_STD_I32LE
           : ctype == JL__COL_I64 ? H5T_STD_I64LE
                                  : H5T_IEEE_F64LE;
}

static hid_t mem_type(int ctype)
{
    return ctype == JL__COL_F32   ? H5T_NATIVE_FLOAT
           : ctype == JL__COL_I32 ? H5T_NATIVE_INT32
           : ctype == JL__COL_I64 ? H5T_NATIVE_INT64
                                  : H5T_NATIVE_DOUBLE;
}

static size_t ctype_size(int ctype)
{
    return ctype == JL__COL_F32 || ctype == JL__COL_I32 ? 4 : 8;
}

/* n values of rows as ctype into out (ctype_size each): an integer column
 * takes whole numbers only, in its range. The index of the first value
 * that is not one, or SIZE_MAX. */
static size_t convert_values(int ctype, const double *v, size_t n, void *out)
{
    switch (ctype) {
    case JL__COL_F32:
        for (size_t i = 0; i < n; i++)
            ((float *)out)[i] = (float)v[i];
        return SIZE_MAX;
    case JL__COL_I32:
        for (size_t i = 0; i < n; i++) {
            if (!(v[i] == floor(v[i]) && v[i] >= INT32_MIN && v[i] <= INT32_MAX))
                return i;
            ((int32_t *)out)[i] = (int32_t)v[i];
        }
        return SIZE_MAX;
    case JL__COL_I64:
        for (size_t i = 0; i < n; i++) {
            if (!(v[i] == floor(v[i]) && fabs(v[i]) < 9.0e18))
                return i;
            ((int64_t *)out)[i] = (int64_t)v[i];
        }
        return SIZE_MAX;
    default: memcpy(out, v, n * sizeof *v); return SIZE_MAX;
    }
}

static jl_status stream_open_ds(jl_trace_stream *s, const char *group, const char *name, size_t g,
                                sds **out, jl_error **err)
{
    jl_trace_writer *w = s->w;
    jl_status st = JL_OK;
    hid_t grp = -1, space = -1, dcpl = -1;
    sds *x = realloc(s->ds, (s->n_ds + 1) * sizeof *x);
    if (!x)
        return jl_fail(err, JL_ENOMEM, w->path, s->name, NULL, -1, NULL);
    s->ds = x;
    sds *d = &x[s->n_ds];
    memset(d, 0, sizeof *d);
    d->d = -1;
    d->g = g;
    d->group_arg = group;
    d->name_arg = name;
    d->ctype = stream_ctype(w, group, name);
    d->max_i = -1;
    size_t chunk = stream_chunk(s, g);
    if (!(d->group = jl__strdup(group)) || !(d->name = jl__strdup(name)) ||
        !(d->path = jl__asprintf("%s/%s/%s", s->rpath, group, name)) ||
        !(d->buf = jl__malloc_array(chunk * g, sizeof(double)))) {
        free(d->group);
        free(d->name);
        free(d->path);
        free(d->buf);
        return jl_fail(err, JL_ENOMEM, w->path, s->name, NULL, -1, NULL);
    }
    s->n_ds++;
    htri_t ex = H5Lexists(s->run, group, H5P_DEFAULT);
    grp = ex > 0 ? H5Gopen2(s->run, group, H5P_DEFAULT)
                 : H5Gcreate2(s->run, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    /* power/ and gpu/ series are [N, G] even for one GPU, host/'s counters
     * [T, S] even for one socket; time is [N] */
    int rank = (!strcmp(group, "power") || !strcmp(group, "gpu")) ? (strcmp(name, "time") ? 2 : 1)
               : !strcmp(group, "host") && strstr(name, "_energy_j") ? 2
                                                                     : (g > 1 ? 2 : 1);
    hsize_t dims[2] = {0, g}, maxd[2] = {H5S_UNLIMITED, g}, ch[2] = {chunk, g};
    space = H5Screate_simple(rank, dims, maxd);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    herr_t r = (grp < 0 || space < 0 || dcpl < 0) ? -1 : H5Pset_chunk(dcpl, rank, ch);
    /* every row is written: no fill values to write first */
    if (r >= 0)
        r = H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    if (r >= 0 && w->opt.shuffle)
        r = H5Pset_shuffle(dcpl);
    if (r >= 0 && w->opt.compression == JL_COMPRESS_DEFLATE)
        r = H5Pset_deflate(dcpl, (unsigned)(w->opt.level < 0 ? 4 : w->opt.level));
    if (r >= 0 && w->opt.compression == JL_COMPRESS_ZSTD) {
        unsigned cd[1] = {(unsigned)(w->opt.level < 0 ? 3 : w->opt.level)};
        r = H5Pset_filter(dcpl, JL__ZSTD_FILTER_ID, H5Z_FLAG_MANDATORY, 1, cd);
    }
    if (r >= 0)
        d->d = H5Dcreate2(grp, name, file_type(d->ctype), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d->d < 0)
        st = WFAIL(err, w->path, s->name, d->path, -1, "cannot create the dataset");
    CLOSE(dcpl, H5Pclose);
    CLOSE(space, H5Sclose);
    CLOSE(grp, H5Gclose);
    *out = d;
    return st;
}

static jl_status stream_flush(jl_trace_stream *s, sds *d, jl_error **err)
{
    if (d->nbuf == 0)
        return JL_OK;
    jl_status st = JL_OK;
    hid_t fs = -1, ms = -1;
    hid_t sp0 = H5Dget_space(d->d);
    int nd = sp0 >= 0 ? H5Sget_simple_extent_ndims(sp0) : -1;
    CLOSE(sp0, H5Sclose);
    hsize_t newd[2] = {d->rows + d->nbuf, d->g}, start[2] = {d->rows, 0},
            count[2] = {d->nbuf, d->g};
    void *data = d->buf;
    if (d->ctype != JL__COL_F64) {
        if (!d->tbuf &&
            !(d->tbuf = jl__malloc_array(stream_chunk(s, d->g) * d->g, ctype_size(d->ctype))))
            return jl_fail(err, JL_ENOMEM, s->w->path, s->name, d->path, -1, NULL);
        size_t bad = convert_values(d->ctype, d->buf, d->nbuf * d->g, d->tbuf);
        if (bad != SIZE_MAX) { /* checked as appended: only an unchecked writer gets here */
            char a[40];
            jl__fmt_double(a, sizeof a, d->buf[bad]);
            return jl_fail(err, JL_ETYPE, s->w->path, s->name, d->path,
                           (long long)(d->rows + bad / d->g),
                           "not a whole number in range at row %zu (%s): the dataset holds "
                           "integers",
                           d->rows + bad / d->g, a);
        }
        data = d->tbuf;
    }
    if (nd < 1 || H5Dset_extent(d->d, newd) < 0 || (fs = H5Dget_space(d->d)) < 0 ||
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
        (ms = H5Screate_simple(nd, count, NULL)) < 0 ||
        H5Dwrite(d->d, mem_type(d->ctype), ms, fs, H5P_DEFAULT, data) < 0)
        st = WFAIL(err, s->w->path, s->name, d->path, (long long)d->rows, "cannot write the data");
    CLOSE(ms, H5Sclose);
    CLOSE(fs, H5Sclose);
    d->rows += d->nbuf;
    d->nbuf = 0;
    return st;
}

/* The rows of one column appended by a checked writer (opt.validate),
 * before any is kept: whole numbers where the column holds integers, then
 * the reader's rule of the column, across appends (d: the dataset so far,
 * NULL when this is its first append). */
static jl_status check_append(jl_trace_stream *s, const sds *d, const char *group, const char *name,
                              size_t g, const double *rows, size_t n, jl_error **err)
{
    jl_trace_writer *w = s->w;
    /* the rule sees the values as the reader holds them (its target type,
     * e.g. float32 watts as float64); the file's type is the writer's */
    int rank;
    int ctype = jl__column_type(group, name, &rank);
    if (ctype < 0)
        ctype = JL__COL_F64;
    int ftype = d ? d->ctype : stream_ctype(w, group, name);
    size_t row0 = d ? d->rows + d->nbuf : 0;
    char *obj = d ? NULL : jl__asprintf("%s/%s/%s", s->rpath, group, name);
    const char *path = d ? d->path : obj;
    if (!path)
        return jl_fail(err, JL_ENOMEM, w->path, s->name, NULL, -1, NULL);
    size_t nv = n * g;
    void *typed = jl__malloc_array(nv ? nv : 1, ctype_size(ctype));
    jl_status st = typed ? JL_OK : jl_fail(err, JL_ENOMEM, w->path, s->name, path, -1, NULL);
    size_t bad = typed ? convert_values(ctype, rows, n * g, typed) : SIZE_MAX;
    /* stored narrower than the reader holds it: whole numbers in its range too */
    if (bad == SIZE_MAX && typed && ftype != ctype) {
        void *f = jl__malloc_array(nv ? nv : 1, ctype_size(ftype));
        bad = f ? convert_values(ftype, rows, n * g, f) : SIZE_MAX;
        free(f);
    }
    if (st == JL_OK && bad != SIZE_MAX) {
        char a[40];
        jl__fmt_double(a, sizeof a, rows[bad]);
        st = jl_fail(err, JL_ETYPE, w->path, s->name, path, (long long)(row0 + bad / g),
                     "not a whole number in range at row %zu (%s): the dataset holds integers",
                     row0 + bad / g, a);
    }
    const void *prev = NULL;
    if (d && d->has_last)
        prev = ctype == JL__COL_I64 ? (const void *)&d->last_i : (const void *)&d->last;
    if (st == JL_OK)
        st = jl__column_check(w->path, s->name, path, group, name, typed, n, g, row0, prev, err);
    free(typed);
    free(obj);
    return st;
}

/* What a checked writer remembers of rows appended to d. */
static void note_rows(sds *d, const double *rows, size_t n)
{
    if (!n)
        return;
    d->last = rows[(n - 1) * d->g];
    /* the integer view only where one exists (a NaN row of a real dataset
     * is never cast) */
    d->last_i = d->last >= -9.2e18 && d->last <= 9.2e18 ? (int64_t)d->last : 0;
    d->has_last = 1;
    if (!strcmp(d->group, "itl") && !strcmp(d->name, "request"))
        for (size_t i = 0; i < n; i++)
            if ((int64_t)rows[i] > d->max_i)
                d->max_i = (int64_t)rows[i];
}

static jl_status append_checked(jl_trace_stream *s, const char *group, const char *name, size_t g,
                                const double *rows, size_t n, int checked, jl_error **err)
{
    if (g == 0)
        return jl_fail(err, JL_EUSAGE, s->w->path, s->name, NULL, -1, "0 columns");
    sds *d = stream_find(s, group, name);
    jl_status st;
    if (d && d->g != g)
        return jl_fail(err, JL_EUSAGE, s->w->path, s->name, d->path, -1,
                       "%zu columns, the dataset has %zu", g, d->g);
    if (s->w->opt.validate && !checked &&
        (st = check_append(s, d, group, name, g, rows, n, err)) != JL_OK)
        return st;
    if (!d && (st = stream_open_ds(s, group, name, g, &d, err)) != JL_OK)
        return st;
    if (s->w->opt.validate)
        note_rows(d, rows, n);
    size_t chunk = stream_chunk(s, g);
    while (n > 0) {
        size_t k = chunk - d->nbuf < n ? chunk - d->nbuf : n;
        memcpy(d->buf + d->nbuf * g, rows, k * g * sizeof *rows);
        d->nbuf += k;
        rows += k * g;
        n -= k;
        if (d->nbuf == chunk && (st = stream_flush(s, d, err)) != JL_OK)
            return st;
    }
    return JL_OK;
}

jl_status jl_trace_stream_append(jl_trace_stream *s, const char *group, const char *name, size_t g,
                                 const double *rows, size_t n, jl_error **err)
{
    return append_checked(s, group, name, g, rows, n, 0, err);
}

jl_status jl_trace_stream_append_group(jl_trace_stream *s, const char *group, size_t n_cols,
                                       const char *const *names, const size_t *widths,
                                       const double *const *cols, size_t n, jl_error **err)
{
    jl_trace_writer *w = s->w;
    jl_status st = JL_OK;
    if (w->opt.validate) {
        /* every column of the group so far, and those given, grow together */
        size_t rows = SIZE_MAX;
        const char *from = NULL;
        for (size_t i = 0; i < s->n_ds; i++) {
            const sds *d = &s->ds[i];
            if (strcmp(d->group, group))
                continue;
            size_t k = 0;
            while (k < n_cols && strcmp(names[k], d->name))
                k++;
            if (k == n_cols)
                return jl_fail(err, JL_EUSAGE, w->path, s->name, d->path, -1,
                               "%s/%s is not given with the other columns: the columns of %s/ "
                               "are appended together",
                               group, d->name, group);
            if (rows != SIZE_MAX && d->rows + d->nbuf != rows)
                return jl_fail(err, JL_EINVALID, w->path, s->name, d->path, -1,
                               "has %zu rows, %s has %zu", d->rows + d->nbuf, from, rows);
            rows = d->rows + d->nbuf;
            from = d->path;
        }
        for (size_t k = 0; k < n_cols; k++) {
            const sds *d = stream_find(s, group, names[k]);
            if (!d && rows != SIZE_MAX && rows > 0)
                return jl_fail(err, JL_EUSAGE, w->path, s->name, NULL, -1,
                               "%s/%s starts after %zu rows of %s: the columns of %s/ are "
                               "appended together from the first row",
                               group, names[k], rows, from, group);
            if ((st = check_append(s, d, group, names[k], widths[k], cols[k], n, err)) != JL_OK)
                return st;
        }
        /* batches/: each batch ends no earlier than it starts */
        const double *start = NULL, *end = NULL;
        for (size_t k = 0; !strcmp(group, "batches") && k < n_cols; k++) {
            if (!strcmp(names[k], "start"))
                start = cols[k];
            if (!strcmp(names[k], "end"))
                end = cols[k];
        }
        for (size_t i = 0; start && end && i < n; i++)
            if (end[i] < start[i]) {
                size_t row = (rows == SIZE_MAX ? 0 : rows) + i;
                char *obj = jl__asprintf("%s/batches/end", s->rpath);
                char a[40], b[40];
                jl__fmt_double(a, sizeof a, end[i]);
                jl__fmt_double(b, sizeof b, start[i]);
                st = jl_fail(err, JL_EINVALID, w->path, s->name, obj, (long long)row,
                             "batch ends before it starts at row %zu (end %s < start %s)", row, a,
                             b);
                free(obj);
                return st;
            }
    }
    for (size_t k = 0; k < n_cols && st == JL_OK; k++)
        st = append_checked(s, group, names[k], widths[k], cols[k], n, 1, err);
    return st;
}

jl_status jl_trace_stream_set_spans(jl_trace_stream *s, const struct jl_spans *spans,
                                    jl_error **err)
{
    jl_trace_writer *w = s->w;
    jl_status st;
    if (w->opt.validate && (st = jl_spans_check(spans, w->path, s->name, err)) != JL_OK)
        return st;
    if (!jl__spans_write_group(s->run, spans))
        return WFAIL(err, w->path, s->name, "spans", -1, "cannot write spans/");
    s->has_spans = 1;
    return JL_OK;
}

static void sds_free(sds *d)
{
    CLOSE(d->d, H5Dclose);
    free(d->group);
    free(d->name);
    free(d->path);
    free(d->buf);
    free(d->tbuf);
}

jl_status jl_trace_stream_drop(jl_trace_stream *s, const char *group, const char *name,
                               jl_error **err)
{
    sds *d = stream_find(s, group, name);
    if (!d)
        return JL_OK;
    char *rel = jl__asprintf("%s/%s", group, name);
    if (!rel)
        return jl_fail(err, JL_ENOMEM, s->w->path, s->name, NULL, -1, NULL);
    jl_status st = JL_OK;
    CLOSE(d->d, H5Dclose);
    if (H5Ldelete(s->run, rel, H5P_DEFAULT) < 0)
        st = WFAIL(err, s->w->path, s->name, d->path, -1, "cannot remove");
    free(rel);
    sds_free(d);
    *d = s->ds[--s->n_ds];
    return st;
}

static void stream_release(jl_trace_stream *s)
{
    for (size_t i = 0; i < s->n_ds; i++)
        sds_free(&s->ds[i]);
    free(s->ds);
    CLOSE(s->run, H5Gclose);
    free(s->name);
    free(s->rpath);
    free(s);
}

static const sds *stream_get(const jl_trace_stream *s, const char *group, const char *name)
{
    return stream_find(s, group, name);
}

/* A checked writer's rules on the run as a whole (what the reader checks
 * across a run's datasets): its attributes, each group's required
 * datasets, its columns of one length and of the width the run's GPUs (or
 * sockets) give, itl/request within requests/. Only the streamed groups:
 * a run's arrays are jl_trace_writer_add_run's. */
static jl_status check_run_end(const jl_trace_stream *s, const jl_run *run, jl_error **err)
{
    jl_trace_writer *w = s->w;
    jl_trace_limits lim;
    jl_trace_limits_default(&lim);
    jl_error *e = NULL;
    jl_status st = jl_attrs_check(&run->attrs, lim.max_gpus, &e);
    if (st != JL_OK) {
        jl_fail(err, st, w->path, s->name, s->rpath, -1, "%s", e ? e->message : jl_strerror(st));
        jl_error_free(e);
        return st;
    }
    static const struct {
        const char *group, *required[2];
        int either; /* 1: one of the two is enough */
    } need[] = {{"power", {"time", NULL}, 0},  {"power", {"watts", "energy_j"}, 1},
                {"gpu", {"time", NULL}, 0},    {"engine", {"time", "running"}, 0},
                {"itl", {"seconds", NULL}, 0}, {"batches", {"start", "end"}, 0},
                {"host", {"time", NULL}, 0}};
    size_t G = jl_attrs_is_node_ac(&run->attrs) ? 1 : (size_t)run->attrs.num_gpus;
    for (size_t i = 0; i < s->n_ds; i++) {
        const sds *d = &s->ds[i];
        for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
            if (strcmp(need[k].group, d->group))
                continue;
            int have0 = need[k].required[0] && stream_get(s, d->group, need[k].required[0]),
                have1 = need[k].required[1] && stream_get(s, d->group, need[k].required[1]);
            const char *missing = NULL;
            if (need[k].either && !have0 && !have1)
                missing = "watts or energy_j";
            else if (!need[k].either && need[k].required[0] && !have0)
                missing = need[k].required[0];
            else if (!need[k].either && need[k].required[1] && !have1)
                missing = need[k].required[1];
            if (missing) {
                char *obj = jl__asprintf("%s/%s", s->rpath, d->group);
                st = jl_fail(err, JL_EMISSING, w->path, s->name, obj, -1,
                             "required dataset %s is missing", missing);
                free(obj);
                return st;
            }
        }
        for (size_t j = 0; j < i; j++) /* one length per group */
            if (!strcmp(s->ds[j].group, d->group) &&
                s->ds[j].rows + s->ds[j].nbuf != d->rows + d->nbuf)
                return jl_fail(err, JL_EINVALID, w->path, s->name, d->path, -1,
                               "has %zu rows, expected %zu (the length of %s)", d->rows + d->nbuf,
                               s->ds[j].rows + s->ds[j].nbuf, s->ds[j].path);
        int rank;
        if (jl__column_type(d->group, d->name, &rank) < 0)
            continue;
        int per_gpu = rank == 2 && (!strcmp(d->group, "power") || !strcmp(d->group, "gpu"));
        if ((rank == 1 && d->g != 1) || (per_gpu && d->g != G))
            return jl_fail(err, JL_ETYPE, w->path, s->name, d->path, -1,
                           "has %zu columns, expected %zu (%s)", d->g, rank == 1 ? (size_t)1 : G,
                           rank == 1 ? "shape [N]" : "num_gpus");
        if (rank == 2 && !strcmp(d->group, "host")) {
            const sds *o =
                stream_get(s, "host",
                           strcmp(d->name, "cpu_energy_j") ? "cpu_energy_j" : "dram_energy_j");
            if (o && o->g != d->g)
                return jl_fail(err, JL_ETYPE, w->path, s->name, d->path, -1,
                               "has %zu columns, %s has %zu (one per socket)", d->g, o->path, o->g);
        }
    }
    int has_power = stream_get(s, "power", "time") || run->power_time;
    if (!has_power && !run->summary.present)
        return jl_fail(err, JL_EMISSING, w->path, s->name, s->rpath, -1,
                       "required group power/ is missing (power/ is required unless summary/ is "
                       "present)");
    const sds *q = stream_get(s, "itl", "request");
    size_t R = 0;
    int has_requests = 0;
    for (size_t i = 0; i < s->n_ds; i++)
        if (!strcmp(s->ds[i].group, "requests")) {
            has_requests = 1;
            R = s->ds[i].rows + s->ds[i].nbuf;
        }
    if (q && has_requests && q->max_i >= (int64_t)R)
        return jl_fail(err, JL_EINVALID, w->path, s->name, q->path, -1,
                       "request index out of range (%lld; requests/ has %zu rows)",
                       (long long)q->max_i, R);
    return JL_OK;
}

jl_status jl_trace_stream_end(jl_trace_stream *s, const jl_run *run, jl_error **err)
{
    jl_status st = JL_OK;
    if (s->w->opt.validate && (st = check_run_end(s, run, err)) != JL_OK) {
        jl_trace_stream_abort(s);
        return st;
    }
    for (size_t i = 0; i < s->n_ds && st == JL_OK; i++)
        st = stream_flush(s, &s->ds[i], err);
    if (st == JL_OK) {
        wctx c = {s->w, s->name, err};
        st = write_run_attrs(&c, s->run, s->rpath, &run->attrs);
        if (st == JL_OK)
            st = write_groups(&c, s->run, s->rpath, run);
    }
    if (st != JL_OK) {
        jl_trace_stream_abort(s);
        return st;
    }
    stream_release(s);
    return JL_OK;
}

void jl_trace_stream_abort(jl_trace_stream *s)
{
    if (!s)
        return;
    jl_trace_writer *w = s->w;
    char *name = jl__strdup(s->name);
    stream_release(s);
    if (name)
        H5Ldelete(w->runs, name, H5P_DEFAULT);
    free(name);
}
