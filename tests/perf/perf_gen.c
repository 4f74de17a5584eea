/* joules-perf-gen — large, realistic traces (format v1) for benchmarks.
 *
 *   joules-perf-gen synth [options] -o DIR
 *       simulated LLM runs: continuous batching over R requests, power at
 *       100 Hz and gpu/ at 20 Hz on G GPUs, one engine row per iteration,
 *       every inter-token latency sample.
 *   joules-perf-gen tile [options] -o DIR SOURCE.h5...
 *       runs copied from real traces (every LLM run of every SOURCE), cycled
 *       until --files x --runs runs are written; datasets re-encoded with the
 *       chosen codec, attributes copied verbatim.
 *
 * Common options:
 *   --files N        files to write (default 1); named PREFIX-NNNNN.h5
 *   --runs N         runs per file (default 1)
 *   --prefix S       file name prefix (default "gen")
 *   --codec C        gzip | zstd | none (default gzip): gzip is shuffle +
 *                    deflate, zstd is shuffle + Zstandard (HDF5 filter 32015,
 *                    joules' own filter, registered with
 *                    jl_zstd_filter_register())
 *   --level N        compression level (default: gzip 4, zstd 3)
 *   --chunk-kib N    target chunk size in KiB (default 256; rows rounded)
 *   --seed N         random seed (default 1)
 * synth only:
 *   --gpus G         GPUs per run (default 8)
 *   --requests R     requests per run (default 1000)
 *   --mean-output T  median output tokens (default 100)
 *   --max-batch B    max_batch_size (default 256)
 *
 * The generator writes with the plain HDF5 API rather than joules' trace
 * writer, so the benchmark inputs do not depend on the code under test and
 * the chunk layout is under the benchmark's control (see
 * docs/performance.md). Output is deterministic for a given seed.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "joules/trace.h"

#define ZSTD_ID 32015

/* ---------------------------------------------------------------- options */

typedef enum { CODEC_NONE, CODEC_GZIP, CODEC_ZSTD } codec_t;

typedef struct gen_opts {
    const char *out_dir, *prefix;
    int files, runs, level, gpus, requests, max_batch;
    double mean_output;
    size_t chunk_bytes;
    codec_t codec;
    uint64_t seed;
} gen_opts;

static void die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("joules-perf-gen: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory (%zu bytes)", n);
    return p;
}

/* ------------------------------------------------------------------ random */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static double rng_unif(void) /* (0, 1) */
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_norm(void)
{
    return sqrt(-2.0 * log(rng_unif())) * cos(6.283185307179586 * rng_unif());
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ------------------------------------------------------------- HDF5 output */

static void check(herr_t r, const char *what)
{
    if (r < 0)
        die("HDF5 failed: %s", what);
}

static hid_t dcpl_for(const gen_opts *o, int rank, const hsize_t *dims, size_t tsize)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (o->codec == CODEC_NONE || dims[0] == 0)
        return dcpl;
    size_t row = tsize * (rank == 2 ? dims[1] : 1);
    hsize_t rows = o->chunk_bytes / row;
    if (rows < 1)
        rows = 1;
    if (rows > dims[0])
        rows = dims[0];
    hsize_t chunk[2] = {rows, rank == 2 ? dims[1] : 1};
    check(H5Pset_chunk(dcpl, rank, chunk), "set_chunk");
    check(H5Pset_shuffle(dcpl), "set_shuffle");
    if (o->codec == CODEC_GZIP) {
        check(H5Pset_deflate(dcpl, (unsigned)(o->level < 0 ? 4 : o->level)), "set_deflate");
    } else {
        unsigned cd = (unsigned)(o->level < 0 ? 3 : o->level);
        check(H5Pset_filter(dcpl, ZSTD_ID, H5Z_FLAG_MANDATORY, 1, &cd), "set_filter zstd");
    }
    return dcpl;
}

/* Write a [n] or [n, g] dataset; memory and file type are the same. */
static void write_ds(hid_t grp, const char *name, hid_t type, int rank, hsize_t n, hsize_t g,
                     const void *data, const gen_opts *o)
{
    hsize_t dims[2] = {n, g};
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = dcpl_for(o, rank, dims, H5Tget_size(type));
    hid_t ds = H5Dcreate2(grp, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0)
        die("cannot create dataset %s", name);
    if (n > 0)
        check(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    H5Dclose(ds);
    H5Pclose(dcpl);
    H5Sclose(space);
}

static void attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, type, &value), name);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
}

static void attr_num(hid_t obj, const char *name, hid_t type, const void *v)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(a, type, v), name);
    H5Aclose(a);
    H5Sclose(space);
}

static void attr_i64(hid_t obj, const char *name, long long v)
{
    int64_t x = v;
    attr_num(obj, name, H5T_NATIVE_INT64, &x);
}

static void attr_f64(hid_t obj, const char *name, double v)
{
    attr_num(obj, name, H5T_NATIVE_DOUBLE, &v);
}

static hid_t create_file(const gen_opts *o, int index, hid_t *runs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%05d.h5", o->out_dir, o->prefix, index);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (f < 0)
        die("cannot create %s", path);
    attr_str(f, "format", "joules-trace");
    attr_i64(f, "format_version", 1);
    attr_str(f, "harness", "joules-perf-gen (tests/perf/perf_gen.c)");
    attr_str(f, "created_utc", "2026-11-21T10:00:00Z");
    *runs = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    return f;
}

static hid_t group(hid_t parent, const char *name)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        die("cannot create group %s", name);
    return g;
}

/* --------------------------------------------------------------- synthetic */

typedef struct gbuf {
    void *p;
    size_t n, cap, sz;
} gbuf;

static void *gbuf_push(gbuf *b)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        void *np = realloc(b->p, b->cap * b->sz);
        if (!np)
            die("out of memory");
        b->p = np;
    }
    return (char *)b->p + b->sz * b->n++;
}

#define PUSH(b, type, v) (*(type *)gbuf_push(&(b)) = (v))

static void synth_run(hid_t runs, const char *name, const gen_opts *o, int run_index)
{
    const int G = o->gpus, B = o->max_batch, R = o->requests;
    const double tdp = 700.0, idle = 90.0 + 40.0 * rng_unif();
    const double kv_pool = 4e5;

    int32_t *in_tok = xmalloc(sizeof(int32_t) * (size_t)R);
    int32_t *out_tok = xmalloc(sizeof(int32_t) * (size_t)R);
    double *arrival = xmalloc(sizeof(double) * (size_t)R);
    double *first = xmalloc(sizeof(double) * (size_t)R);
    double *finish = xmalloc(sizeof(double) * (size_t)R);
    int32_t *produced = xmalloc(sizeof(int32_t) * (size_t)R);
    double *last_t = xmalloc(sizeof(double) * (size_t)R);
    int *run_set = xmalloc(sizeof(int) * (size_t)B);
    for (int r = 0; r < R; r++) {
        in_tok[r] = (int32_t)clampd(512.0 * exp(0.6 * rng_norm()), 32, 2048);
        out_tok[r] = (int32_t)clampd(o->mean_output * exp(0.6 * rng_norm()), 2, 8 * o->mean_output);
        arrival[r] = 0.0;
        first[r] = finish[r] = NAN;
        produced[r] = 0;
    }
    /* about one request in 500 fails: it never gets a token */
    gbuf e_time = {.sz = 8}, e_run = {.sz = 4}, e_wait = {.sz = 4}, e_tok = {.sz = 8},
         e_pre = {.sz = 8}, e_kv = {.sz = 4};
    gbuf itl_s = {.sz = 4}, itl_r = {.sz = 4};
    double t = 0.0;
    int n_run = 0, next = 0, done = 0;
    int64_t tokens = 0, prefill = 0;
    double kv_used = 0.0;
    PUSH(e_time, double, 0.0);
    PUSH(e_run, int32_t, 0);
    PUSH(e_wait, int32_t, R);
    PUSH(e_tok, int64_t, 0);
    PUSH(e_pre, int64_t, 0);
    PUSH(e_kv, float, 0.0f);
    while (done < R) {
        /* admission, FCFS, with a prefill budget */
        int64_t budget = 8192, pre_now = 0;
        int admitted0 = n_run;
        while (n_run < B && next < R && (pre_now == 0 || pre_now + in_tok[next] <= budget)) {
            int r = next++;
            if (rng_next() % 500 == 0) { /* failed request */
                done++;
                continue;
            }
            pre_now += in_tok[r];
            run_set[n_run++] = r;
            kv_used += in_tok[r] + out_tok[r];
        }
        if (pre_now > 0) {
            t += 0.002 + 2.5e-6 * (double)pre_now * (1.0 + 0.05 * rng_norm() * 0.2);
            prefill += pre_now;
            for (int i = admitted0; i < n_run; i++) {
                int r = run_set[i];
                first[r] = last_t[r] = t;
                produced[r] = 1;
                tokens++;
            }
        }
        int decoding = 0;
        if (n_run > 0) {
            t += (0.006 + 4e-5 * n_run) * (1.0 + 0.03 * fabs(rng_norm()));
            for (int i = 0; i < n_run; i++) {
                int r = run_set[i];
                if (produced[r] >= out_tok[r])
                    continue;
                decoding++;
                PUSH(itl_s, float, (float)(t - last_t[r]));
                PUSH(itl_r, int32_t, r);
                last_t[r] = t;
                produced[r]++;
                tokens++;
            }
        }
        /* retire finished sequences */
        int w = 0;
        for (int i = 0; i < n_run; i++) {
            int r = run_set[i];
            if (produced[r] >= out_tok[r]) {
                finish[r] = last_t[r];
                kv_used -= in_tok[r] + out_tok[r];
                done++;
            } else {
                run_set[w++] = r;
            }
        }
        n_run = w;
        if (pre_now == 0 && decoding == 0 && n_run == 0 && next >= R)
            break;
        PUSH(e_time, double, t);
        PUSH(e_run, int32_t, decoding);
        PUSH(e_wait, int32_t, R - next);
        PUSH(e_tok, int64_t, tokens);
        PUSH(e_pre, int64_t, prefill);
        PUSH(e_kv, float, (float)(kv_used / kv_pool));
    }
    double t_end = t + 0.5;

    /* power/ at ~100 Hz, gpu/ at ~20 Hz, activity from the engine rows */
    size_t np = (size_t)(t_end * 100.0) + 1, ng = (size_t)(t_end * 20.0) + 1;
    double *p_time = xmalloc(8 * np), *p_energy = xmalloc(8 * np * G);
    float *p_watts = xmalloc(4 * np * G), *p_avg = xmalloc(4 * np * G);
    double *g_time = xmalloc(8 * ng);
    float *g_sm = xmalloc(4 * ng * G), *g_mem = xmalloc(4 * ng * G), *g_clk = xmalloc(4 * ng * G),
          *g_temp = xmalloc(4 * ng * G);
    int64_t *g_used = xmalloc(8 * ng * G);
    const double *et = e_time.p;
    const int32_t *er = e_run.p;
    size_t ei = 0;
    for (size_t i = 0; i < np; i++) {
        double ti = (double)i / 100.0 + 0.002 * rng_unif();
        p_time[i] = ti;
        while (ei + 1 < e_time.n && et[ei] < ti)
            ei++;
        double act = ti <= et[e_time.n - 1] ? 0.35 + 0.65 * (double)er[ei] / B : 0.0;
        for (int gi = 0; gi < G; gi++) {
            double w = idle + (0.92 * tdp - idle) * act * (1.0 + 0.01 * gi) + 12.0 * rng_norm();
            p_watts[i * G + gi] = (float)w;
            if (i == 0) {
                p_energy[gi] = 1e6 * (1 + gi) + 1e5 * run_index;
                p_avg[gi] = (float)w;
            } else {
                double dt = ti - p_time[i - 1];
                p_energy[i * G + gi] =
                    p_energy[(i - 1) * G + gi] + 0.5 * dt * (w + p_watts[(i - 1) * G + gi]);
                p_avg[i * G + gi] = (float)(0.99 * p_avg[(i - 1) * G + gi] + 0.01 * w);
            }
        }
    }
    ei = 0;
    for (size_t i = 0; i < ng; i++) {
        double ti = (double)i / 20.0 + 0.003 * rng_unif();
        g_time[i] = ti;
        while (ei + 1 < e_time.n && et[ei] < ti)
            ei++;
        double act = ti <= et[e_time.n - 1] ? (double)er[ei] / B : 0.0;
        for (int gi = 0; gi < G; gi++) {
            size_t k = i * G + gi;
            g_sm[k] = (float)clampd(0.2 + 0.8 * act + 0.02 * rng_norm(), 0, 1);
            g_mem[k] = (float)clampd(0.1 + 0.6 * act + 0.02 * rng_norm(), 0, 1);
            g_clk[k] = (float)(1980.0 - 200.0 * act * rng_unif());
            g_temp[k] = (float)(40.0 + 20.0 * act);
            g_used[k] = (int64_t)(7e10 + 1e9 * act);
        }
    }

    char model[64];
    snprintf(model, sizeof model, "synthetic/perf-%dgpu", G);
    hid_t rg = group(runs, name);
    attr_str(rg, "workload", "llm");
    attr_str(rg, "model", model);
    attr_str(rg, "task", "chat");
    attr_str(rg, "gpu_model", "H100");
    attr_i64(rg, "num_gpus", G);
    attr_str(rg, "precision", "bfloat16");
    attr_i64(rg, "max_batch_size", B);
    attr_f64(rg, "start_time_unix", 1.79e9 + 100.0 * run_index);
    attr_i64(rg, "tensor_parallel", G);
    attr_i64(rg, "gpu_memory_bytes", 85899345920LL);
    attr_f64(rg, "gpu_tdp_w", tdp);
    attr_f64(rg, "gpu_idle_power_w", idle);
    attr_f64(rg, "total_params", 8.19e9);
    attr_f64(rg, "active_params", 8.19e9);
    attr_i64(rg, "kv_bytes_per_token", 147456);
    attr_str(rg, "notes", "generated by joules-perf-gen synth: simulated, not measured");

    hid_t g = group(rg, "power");
    write_ds(g, "time", H5T_NATIVE_DOUBLE, 1, np, 1, p_time, o);
    write_ds(g, "watts", H5T_NATIVE_FLOAT, 2, np, G, p_watts, o);
    write_ds(g, "energy_j", H5T_NATIVE_DOUBLE, 2, np, G, p_energy, o);
    write_ds(g, "watts_avg", H5T_NATIVE_FLOAT, 2, np, G, p_avg, o);
    H5Gclose(g);
    g = group(rg, "gpu");
    write_ds(g, "time", H5T_NATIVE_DOUBLE, 1, ng, 1, g_time, o);
    write_ds(g, "sm_util", H5T_NATIVE_FLOAT, 2, ng, G, g_sm, o);
    write_ds(g, "mem_util", H5T_NATIVE_FLOAT, 2, ng, G, g_mem, o);
    write_ds(g, "mem_used_bytes", H5T_NATIVE_INT64, 2, ng, G, g_used, o);
    write_ds(g, "sm_clock_mhz", H5T_NATIVE_FLOAT, 2, ng, G, g_clk, o);
    write_ds(g, "temp_c", H5T_NATIVE_FLOAT, 2, ng, G, g_temp, o);
    H5Gclose(g);
    g = group(rg, "engine");
    write_ds(g, "time", H5T_NATIVE_DOUBLE, 1, e_time.n, 1, e_time.p, o);
    write_ds(g, "running", H5T_NATIVE_INT32, 1, e_run.n, 1, e_run.p, o);
    write_ds(g, "waiting", H5T_NATIVE_INT32, 1, e_wait.n, 1, e_wait.p, o);
    write_ds(g, "tokens_generated", H5T_NATIVE_INT64, 1, e_tok.n, 1, e_tok.p, o);
    write_ds(g, "prefill_tokens", H5T_NATIVE_INT64, 1, e_pre.n, 1, e_pre.p, o);
    write_ds(g, "kv_cache_usage", H5T_NATIVE_FLOAT, 1, e_kv.n, 1, e_kv.p, o);
    H5Gclose(g);
    g = group(rg, "requests");
    write_ds(g, "arrival", H5T_NATIVE_DOUBLE, 1, (hsize_t)R, 1, arrival, o);
    write_ds(g, "first_token", H5T_NATIVE_DOUBLE, 1, (hsize_t)R, 1, first, o);
    write_ds(g, "finish", H5T_NATIVE_DOUBLE, 1, (hsize_t)R, 1, finish, o);
    write_ds(g, "input_tokens", H5T_NATIVE_INT32, 1, (hsize_t)R, 1, in_tok, o);
    write_ds(g, "output_tokens", H5T_NATIVE_INT32, 1, (hsize_t)R, 1, out_tok, o);
    H5Gclose(g);
    g = group(rg, "itl");
    write_ds(g, "seconds", H5T_NATIVE_FLOAT, 1, itl_s.n, 1, itl_s.p, o);
    write_ds(g, "request", H5T_NATIVE_INT32, 1, itl_r.n, 1, itl_r.p, o);
    H5Gclose(g);
    H5Gclose(rg);

    free(in_tok);
    free(out_tok);
    free(arrival);
    free(first);
    free(finish);
    free(produced);
    free(last_t);
    free(run_set);
    free(e_time.p);
    free(e_run.p);
    free(e_wait.p);
    free(e_tok.p);
    free(e_pre.p);
    free(e_kv.p);
    free(itl_s.p);
    free(itl_r.p);
    free(p_time);
    free(p_energy);
    free(p_watts);
    free(p_avg);
    free(g_time);
    free(g_sm);
    free(g_mem);
    free(g_clk);
    free(g_temp);
    free(g_used);
}

/* -------------------------------------------------------------------- tile */

typedef struct src_attr {
    char *name;
    hid_t type, space;
    void *data;
} src_attr;

typedef struct src_ds {
    char *path; /* "power/time" */
    hid_t type; /* native memory type, used for the file too */
    int rank;
    hsize_t dims[2];
    void *data;
} src_ds;

typedef struct src_run {
    src_attr *attrs;
    size_t n_attrs;
    char **groups;
    size_t n_groups;
    src_ds *ds;
    size_t n_ds;
} src_run;

/* Everything load_source_run allocated (a clean exit keeps leak checkers
 * quiet, so a real leak elsewhere stands out). */
static void free_sources(src_run *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t a = 0; a < src[i].n_attrs; a++) {
            free(src[i].attrs[a].name);
            if (src[i].attrs[a].type > 0 && H5Tis_variable_str(src[i].attrs[a].type) > 0)
                H5Dvlen_reclaim(src[i].attrs[a].type, src[i].attrs[a].space, H5P_DEFAULT,
                                src[i].attrs[a].data);
            free(src[i].attrs[a].data);
            if (src[i].attrs[a].type > 0)
                H5Tclose(src[i].attrs[a].type);
            if (src[i].attrs[a].space > 0)
                H5Sclose(src[i].attrs[a].space);
        }
        free(src[i].attrs);
        for (size_t g = 0; g < src[i].n_groups; g++)
            free(src[i].groups[g]);
        free(src[i].groups);
        for (size_t d = 0; d < src[i].n_ds; d++) {
            free(src[i].ds[d].path);
            free(src[i].ds[d].data);
            if (src[i].ds[d].type > 0)
                H5Tclose(src[i].ds[d].type);
        }
        free(src[i].ds);
    }
    free(src);
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
    (void)info;
    src_run *r = ctx;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t ft = H5Aget_type(a);
    src_attr *sa = &r->attrs[r->n_attrs];
    sa->name = strdup(name);
    sa->space = H5Aget_space(a);
    sa->type =
        H5Tget_class(ft) == H5T_STRING ? H5Tcopy(ft) : H5Tget_native_type(ft, H5T_DIR_ASCEND);
    hssize_t n = H5Sget_simple_extent_npoints(sa->space);
    sa->data = xmalloc(H5Tget_size(sa->type) * (size_t)(n > 0 ? n : 1));
    check(H5Aread(a, sa->type, sa->data), name);
    H5Tclose(ft);
    H5Aclose(a);
    r->n_attrs++;
    return 0;
}

static void load_source_run(hid_t rg, src_run *r)
{
    H5O_info_t oi;
    H5Oget_info2(rg, &oi, H5O_INFO_NUM_ATTRS);
    r->attrs = calloc((size_t)oi.num_attrs + 1, sizeof *r->attrs);
    H5Aiterate2(rg, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, r);
    H5G_info_t gi;
    H5Gget_info(rg, &gi);
    hsize_t ng = gi.nlinks;
    r->groups = calloc(ng + 1, sizeof *r->groups);
    r->ds = calloc(64, sizeof *r->ds);
    for (hsize_t i = 0; i < ng; i++) {
        char gname[256];
        H5Lget_name_by_idx(rg, ".", H5_INDEX_NAME, H5_ITER_INC, i, gname, sizeof gname,
                           H5P_DEFAULT);
        hid_t g = H5Gopen2(rg, gname, H5P_DEFAULT);
        if (g < 0)
            continue;
        r->groups[r->n_groups++] = strdup(gname);
        H5G_info_t gj;
        H5Gget_info(g, &gj);
        hsize_t nd = gj.nlinks;
        for (hsize_t j = 0; j < nd && r->n_ds < 64; j++) {
            char dname[256];
            H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, j, dname, sizeof dname,
                               H5P_DEFAULT);
            hid_t d = H5Dopen2(g, dname, H5P_DEFAULT);
            if (d < 0)
                continue;
            src_ds *s = &r->ds[r->n_ds++];
            char path[600];
            snprintf(path, sizeof path, "%s/%s", gname, dname);
            s->path = strdup(path);
            hid_t ft = H5Dget_type(d), sp = H5Dget_space(d);
            s->type = H5Tget_native_type(ft, H5T_DIR_ASCEND);
            s->rank = H5Sget_simple_extent_ndims(sp);
            s->dims[1] = 1;
            H5Sget_simple_extent_dims(sp, s->dims, NULL);
            size_t bytes = H5Tget_size(s->type) * s->dims[0] * (s->rank == 2 ? s->dims[1] : 1);
            s->data = xmalloc(bytes);
            if (bytes)
                check(H5Dread(d, s->type, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->data), path);
            H5Sclose(sp);
            H5Tclose(ft);
            H5Dclose(d);
        }
        H5Gclose(g);
    }
}

static void write_source_run(hid_t runs, const char *name, const src_run *r, const gen_opts *o)
{
    hid_t rg = group(runs, name);
    for (size_t i = 0; i < r->n_attrs; i++) {
        const src_attr *a = &r->attrs[i];
        hid_t h = H5Acreate2(rg, a->name, a->type, a->space, H5P_DEFAULT, H5P_DEFAULT);
        check(H5Awrite(h, a->type, a->data), a->name);
        H5Aclose(h);
    }
    for (size_t i = 0; i < r->n_groups; i++)
        H5Gclose(group(rg, r->groups[i]));
    for (size_t i = 0; i < r->n_ds; i++) {
        const src_ds *s = &r->ds[i];
        write_ds(rg, s->path, s->type, s->rank, s->dims[0], s->dims[1], s->data, o);
    }
    H5Gclose(rg);
}

static int is_llm_run(hid_t rg)
{
    if (H5Aexists(rg, "workload") <= 0)
        return 0;
    hid_t a = H5Aopen(rg, "workload", H5P_DEFAULT);
    hid_t ft = H5Aget_type(a);
    int llm = 0;
    if (H5Tis_variable_str(ft) > 0) {
        char *s = NULL;
        if (H5Aread(a, ft, &s) >= 0 && s) {
            llm = !strcmp(s, "llm") || !strcmp(s, "mllm");
            H5free_memory(s);
        }
    } else {
        char buf[64] = {0};
        size_t n = H5Tget_size(ft);
        if (n < sizeof buf && H5Aread(a, ft, buf) >= 0)
            llm = !strncmp(buf, "llm", 3) || !strncmp(buf, "mllm", 4);
    }
    H5Tclose(ft);
    H5Aclose(a);
    return llm;
}

/* ---------------------------------------------------------------- main */

static void usage(void)
{
    fputs("usage: joules-perf-gen synth|tile [options] -o DIR [SOURCE.h5...]\n"
          "(options: see the comment at the top of tests/perf/perf_gen.c)\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    const char *mode = argv[1];
    gen_opts o = {.out_dir = NULL,
                  .prefix = "gen",
                  .files = 1,
                  .runs = 1,
                  .level = -1,
                  .gpus = 8,
                  .requests = 1000,
                  .max_batch = 256,
                  .mean_output = 100.0,
                  .chunk_bytes = 256 * 1024,
                  .codec = CODEC_GZIP,
                  .seed = 1};
    const char **sources = xmalloc(sizeof(char *) * (size_t)argc);
    int n_sources = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(s) (!strcmp(a, s) && v && (i++, 1))
        if (OPT("-o"))
            o.out_dir = v;
        else if (OPT("--prefix"))
            o.prefix = v;
        else if (OPT("--files"))
            o.files = atoi(v);
        else if (OPT("--runs"))
            o.runs = atoi(v);
        else if (OPT("--level"))
            o.level = atoi(v);
        else if (OPT("--gpus"))
            o.gpus = atoi(v);
        else if (OPT("--requests"))
            o.requests = atoi(v);
        else if (OPT("--max-batch"))
            o.max_batch = atoi(v);
        else if (OPT("--mean-output"))
            o.mean_output = atof(v);
        else if (OPT("--chunk-kib"))
            o.chunk_bytes = (size_t)atol(v) * 1024;
        else if (OPT("--seed"))
            o.seed = strtoull(v, NULL, 10);
        else if (OPT("--codec")) {
            if (!strcmp(v, "gzip"))
                o.codec = CODEC_GZIP;
            else if (!strcmp(v, "zstd"))
                o.codec = CODEC_ZSTD;
            else if (!strcmp(v, "none"))
                o.codec = CODEC_NONE;
            else
                die("unknown codec '%s'", v);
        } else if (a[0] == '-') {
            die("unknown option '%s'", a);
        } else {
            sources[n_sources++] = a;
        }
#undef OPT
    }
    if (!o.out_dir || o.files < 1 || o.runs < 1 || o.gpus < 1 || o.requests < 1 ||
        o.max_batch < 1 || o.chunk_bytes < 1)
        usage();
    char *dir = strdup(o.out_dir); /* mkdir -p */
    for (char *p = dir + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST)
                die("cannot create %s: %s", dir, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    free(dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (jl_zstd_filter_register() != JL_OK)
        die("cannot register the Zstandard filter");
    rng_state = o.seed * 0x9E3779B97F4A7C15ULL + 1;

    if (!strcmp(mode, "synth")) {
        for (int f = 0; f < o.files; f++) {
            hid_t runs;
            hid_t file = create_file(&o, f, &runs);
            for (int r = 0; r < o.runs; r++) {
                char name[32];
                snprintf(name, sizeof name, "r%05d", r);
                synth_run(runs, name, &o, f * o.runs + r);
            }
            H5Gclose(runs);
            H5Fclose(file);
        }
    } else if (!strcmp(mode, "tile")) {
        if (n_sources == 0)
            usage();
        src_run *src = NULL;
        size_t n_src = 0;
        for (int s = 0; s < n_sources; s++) {
            hid_t f = H5Fopen(sources[s], H5F_ACC_RDONLY, H5P_DEFAULT);
            if (f < 0)
                die("cannot open %s", sources[s]);
            hid_t runs = H5Gopen2(f, "runs", H5P_DEFAULT);
            H5G_info_t ri;
            H5Gget_info(runs, &ri);
            hsize_t n = ri.nlinks;
            src = realloc(src, sizeof *src * (n_src + n));
            for (hsize_t i = 0; i < n; i++) {
                char name[256];
                H5Lget_name_by_idx(runs, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                                   H5P_DEFAULT);
                hid_t rg = H5Gopen2(runs, name, H5P_DEFAULT);
                if (is_llm_run(rg)) {
                    memset(&src[n_src], 0, sizeof src[n_src]);
                    load_source_run(rg, &src[n_src++]);
                }
                H5Gclose(rg);
            }
            H5Gclose(runs);
            H5Fclose(f);
        }
        if (n_src == 0)
            die("no LLM run in the sources");
        size_t k = 0;
        for (int f = 0; f < o.files; f++) {
            hid_t runs;
            hid_t file = create_file(&o, f, &runs);
            for (int r = 0; r < o.runs; r++) {
                char name[32];
                snprintf(name, sizeof name, "r%05d", r);
                write_source_run(runs, name, &src[k++ % n_src], &o);
            }
            H5Gclose(runs);
            H5Fclose(file);
        }
        free_sources(src, n_src);
    } else {
        usage();
    }
    free(sources);
    return 0;
}
