/* `joules import kineto PROFILE.json[.gz] --into TRACE.h5:RUN`: the
 * annotation spans of a PyTorch profiler (Kineto) Chrome trace, with the
 * device work folded into them, as the run's spans/ (docs/attribute.md,
 * "Recording and importing a profile").
 *
 * One streaming pass (json_stream, through zlib for .gz) keeps, per event,
 * only what the spans need: annotations (GPU-side gpu_user_annotation, else
 * CPU-side user_annotation) with interned names, and the start and length
 * of each kernel, copy and set. Memory is ~40 bytes per kept event, never
 * the document. Then, per stream, each device event is folded into the
 * innermost annotation that contains it (busy_s); annotations nest by a
 * stack; steps follow the `*_step` markers in time order. */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "core/inputs.h"
#include "core/util.h"
#include "import/kit.h"
#include "import/profile_spans.h"
#include "joules/spans.h"
#include "json/json_internal.h"

enum { K_GPU_ANN, K_CPU_ANN, K_DEVICE };

typedef struct {
    double ts, dur; /* µs, as in the file */
    int64_t stream; /* pid * 2^32 + tid, numbers only */
    int32_t name;   /* annotations: interned name */
    int32_t kind;
} kev;

typedef struct {
    kev *v;
    size_t n, cap;
    /* interned names: names[i] (owned; jl__spans_from_raw moves those it
     * uses out) is name i, found by its entry of value i in ids */
    char **names;
    size_t n_names, cap_names;
    jl__strmap ids;
    long long base_ns;
    int has_base;
    double win_ts, win_dur; /* the "Trace" event: the profiler's window */
    size_t n_events, n_zero, n_other;
    size_t n_operator_ann; /* PyTorch 1.8/1.9: record_function ranges as "Operator" */
    double min_ts;         /* the earliest annotation or device event, µs */
    /* the GPUs the profile names (deviceProperties, one entry per device:
     * Kineto's DeviceProperties.cpp writes hipDeviceProp_t's fields on ROCm,
     * with maxSharedMemoryPerMultiProcessor where CUDA builds write
     * regsPerMultiprocessor and sharedMemPerBlockOptin) and the runtime
     * calls' names (cat cuda_runtime on both: hipLaunchKernel on ROCm) */
    size_t n_devices, n_rocm_props, n_cuda_props, n_hip_calls, n_cuda_calls;
    char device_name[128];
    int device_names_differ;
} kin;

static int32_t intern(kin *k, const char *s)
{
    if (k->n_names == k->cap_names) {
        size_t nc = k->cap_names ? 2 * k->cap_names : 256;
        char **nn = realloc(k->names, nc * sizeof *nn);
        if (!nn)
            return -1;
        k->names = nn;
        k->cap_names = nc;
    }
    int added = 0;
    jl__strmap_entry *e = jl__strmap_add(&k->ids, s, k->n_names, &added);
    if (!e || e->value > INT32_MAX)
        return -1;
    if (added && !(k->names[k->n_names++] = jl__strdup(s)))
        return -1;
    return (int32_t)e->value;
}

static int push(kin *k, kev e)
{
    if (k->n == k->cap) {
        size_t nc = k->cap ? 2 * k->cap : 4096;
        kev *v = realloc(k->v, nc * sizeof *v);
        if (!v)
            return 0;
        k->v = v;
        k->cap = nc;
    }
    k->v[k->n++] = e;
    return 1;
}

static void kin_free(kin *k)
{
    for (size_t i = 0; i < k->n_names; i++)
        free(k->names[i]);
    free(k->names);
    jl__strmap_free(&k->ids);
    free(k->v);
}

/* ---- reading: a gzip stream behind a FILE * --------------------------------- */

/* The gzip stream behind the FILE, and what went wrong in it (zlib's own
 * words: "incorrect data check" for a CRC error), for the read error's
 * message. */
typedef struct gzsrc {
    gzFile z;
    char why[200];
} gzsrc;

static ssize_t gz_read(void *c, char *buf, size_t n)
{
    gzsrc *g = c;
    int r = gzread(g->z, buf, n > (1u << 30) ? (1u << 30) : (unsigned)n);
    if (r < 0 && !g->why[0]) {
        int code = 0;
        const char *m = gzerror(g->z, &code), *colon = m ? strrchr(m, ':') : NULL;
        if (colon && colon[1] == ' ')
            m = colon + 2; /* zlib's "PATH: message": the path is said already */
        snprintf(g->why, sizeof g->why, "the gzip data is corrupt (%s)%s",
                 m && *m ? m : "zlib error",
                 code == Z_DATA_ERROR ? ": the file was damaged or cut in copying" : "");
    }
    return r < 0 ? -1 : r;
}

static int gz_close(void *c)
{
    gzsrc *g = c;
    int ok = gzclose_r(g->z) == Z_OK;
    free(g);
    return ok ? 0 : -1;
}

static const char *gz_why(void *c)
{
    const gzsrc *g = c;
    return g && g->why[0] ? g->why : NULL;
}

/* The profile as a FILE (through zlib for .gz: *gz the stream's state, for
 * its error message; NULL otherwise). */
static FILE *open_profile(const char *path, gzsrc **gz, char *why, size_t why_cap)
{
    *gz = NULL;
    jl__input_read(path); /* the provenance's inputs (a regular file only) */
    size_t n = strlen(path);
    int fd = jl__open_input(path, why, why_cap);
    if (fd < 0)
        return NULL;
    if (n > 3 && !strcmp(path + n - 3, ".gz")) {
        gzsrc *g = calloc(1, sizeof *g);
        if (!g || !(g->z = gzdopen(fd, "rb"))) {
            free(g);
            close(fd);
            snprintf(why, why_cap, "out of memory");
            return NULL;
        }
        gzbuffer(g->z, 1 << 18);
        cookie_io_functions_t io = {gz_read, NULL, NULL, gz_close};
        FILE *f = fopencookie(g, "r", io);
        if (!f) {
            gzclose_r(g->z);
            free(g);
            snprintf(why, why_cap, "out of memory");
            return NULL;
        }
        *gz = g;
        return f;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        snprintf(why, why_cap, "out of memory");
    }
    return f;
}

/* After jl__jstream_next() returned t: the rest of that value skipped. */
static int skip_rest(js *p, jl__jstream_tok t)
{
    if (t == JS_ERROR || t == JS_EOF)
        return -1;
    int d = t == JS_OBJ_START || t == JS_ARR_START;
    while (d > 0) {
        t = jl__jstream_next(p);
        if (t == JS_ERROR || t == JS_EOF)
            return -1;
        d += (t == JS_OBJ_START || t == JS_ARR_START) - (t == JS_OBJ_END || t == JS_ARR_END);
    }
    return 0;
}

/* A number or a numeric string as an id (Kineto writes pid/tid as either):
 * a whole number in [0, 2^31), else -1 (other strings, fractions, numbers
 * too large for an id: the event's stream is then 0, as for a name). */
static int64_t id_of(js *p, jl__jstream_tok t)
{
    double v = -1;
    if (t == JS_NUM) {
        v = p->num;
    } else if (t == JS_STR) {
        char *end;
        errno = 0;
        long long x = strtoll(p->str, &end, 10);
        v = *end || end == p->str || errno ? -1 : (double)x;
    }
    return v >= 0 && v < 2147483648.0 && v == floor(v) ? (int64_t)v : -1;
}

/* The next key of an object: 1 (p->str holds it), 0 at the object's end,
 * -1 on anything else. */
static int next_key(js *p)
{
    jl__jstream_tok t = jl__jstream_next(p);
    return t == JS_OBJ_END ? 0 : t == JS_KEY ? 1 : -1;
}

/* One event object (after its '{'). */
static int read_event(js *p, kin *k, char **name, size_t *name_cap)
{
    char ph = 0, cat[64] = "";
    int has_name = 0;
    double ts = NAN, dur = NAN;
    int64_t pid = -1, tid = -1;
    for (int more; (more = next_key(p)) != 0;) {
        if (more < 0)
            return 0;
        jl__jstream_tok t;
        const char *key = p->str;
        char c0 = key[0];
        if (c0 == 'p' && !strcmp(key, "ph")) {
            t = jl__jstream_next(p);
            ph = t == JS_STR ? p->str[0] : 0;
            if (t != JS_STR && skip_rest(p, t) < 0)
                return 0;
        } else if (c0 == 'c' && !strcmp(key, "cat")) {
            t = jl__jstream_next(p);
            if (t == JS_STR)
                snprintf(cat, sizeof cat, "%s", p->str);
            else if (skip_rest(p, t) < 0)
                return 0;
        } else if (c0 == 'n' && !strcmp(key, "name")) {
            t = jl__jstream_next(p);
            if (t == JS_STR) {
                if (p->slen + 1 > *name_cap) {
                    size_t nc = 2 * (p->slen + 1);
                    char *nn = realloc(*name, nc);
                    if (!nn)
                        return 0;
                    *name = nn;
                    *name_cap = nc;
                }
                memcpy(*name, p->str, p->slen + 1);
                has_name = 1;
            } else if (skip_rest(p, t) < 0) {
                return 0;
            }
        } else if (c0 == 't' && (!strcmp(key, "ts") || !strcmp(key, "tid"))) {
            int is_ts = key[1] == 's';
            t = jl__jstream_next(p);
            if (is_ts)
                ts = t == JS_NUM ? p->num : NAN;
            else
                tid = id_of(p, t);
            if (t != JS_NUM && t != JS_STR && skip_rest(p, t) < 0)
                return 0;
        } else if (c0 == 'p' && !strcmp(key, "pid")) {
            t = jl__jstream_next(p);
            pid = id_of(p, t);
            if (t != JS_NUM && t != JS_STR && skip_rest(p, t) < 0)
                return 0;
        } else if (c0 == 'd' && !strcmp(key, "dur")) {
            t = jl__jstream_next(p);
            dur = t == JS_NUM ? p->num : NAN;
            if (t != JS_NUM && skip_rest(p, t) < 0)
                return 0;
        } else if (jl__jstream_skip(p) < 0) {
            return 0;
        }
    }
    k->n_events++;
    if (ph != 'X')
        return 1;
    /* the categories of every generation, case aside: PyTorch 1.8/1.9 write
     * Kernel, Memcpy, Memset and Operator (record_function's ranges among
     * the operators: those without a '::' in their name, ProfilerStep#N),
     * later ones kernel, gpu_memcpy, gpu_memset, cpu_op, user_annotation and
     * gpu_user_annotation; ROCm's roctracer the same names */
    if (has_name && (!strcasecmp(cat, "cuda_runtime") || !strcasecmp(cat, "cuda_driver") ||
                     !strcmp(cat, "Runtime"))) {
        k->n_hip_calls += !strncmp(*name, "hip", 3);
        k->n_cuda_calls += !strncmp(*name, "cuda", 4) || !strncmp(*name, "cu", 2);
    }
    int kind;
    if (!strcasecmp(cat, "gpu_user_annotation"))
        kind = K_GPU_ANN;
    else if (!strcasecmp(cat, "user_annotation"))
        kind = K_CPU_ANN;
    else if (!strcasecmp(cat, "kernel") || !strcasecmp(cat, "gpu_memcpy") ||
             !strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "memcpy") ||
             !strcasecmp(cat, "memset"))
        kind = K_DEVICE;
    else if (!strcmp(cat, "Operator") && has_name && !strstr(*name, "::")) {
        kind = K_CPU_ANN;
        k->n_operator_ann++;
    } else {
        if (!strcmp(cat, "Trace") && isfinite(ts) && isfinite(dur)) {
            k->win_ts = ts;
            k->win_dur = dur;
        }
        k->n_other++;
        return 1;
    }
    if (kind != K_CPU_ANN && pid > INT16_MAX) {
        k->n_other++; /* device-side: pid is the GPU, and this is none */
        return 1;
    }
    if (!isfinite(ts) || !isfinite(dur) || dur < 0 || ts <= 0) {
        k->n_zero++; /* a stale export's zero timestamps: never a span */
        return 1;
    }
    if (!k->n || ts < k->min_ts)
        k->min_ts = ts;
    kev e = {ts, dur, (pid < 0 ? 0 : pid) * 4294967296LL + (tid < 0 ? 0 : tid), -1, kind};
    if (kind != K_DEVICE && (e.name = intern(k, has_name ? *name : "(unnamed)")) < 0)
        return 0;
    return push(k, e);
}

/* One deviceProperties entry (after its '{'): its name and which vendor's
 * fields it has. 0 on a syntax error. */
static int read_device(js *p, kin *k)
{
    int rocm = 0, cuda = 0;
    for (int more; (more = next_key(p)) != 0;) {
        if (more < 0)
            return 0;
        jl__jstream_tok t;
        if (!strcmp(p->str, "maxSharedMemoryPerMultiProcessor"))
            rocm = 1;
        else if (!strcmp(p->str, "regsPerMultiprocessor") ||
                 !strcmp(p->str, "sharedMemPerBlockOptin"))
            cuda = 1;
        if (!strcmp(p->str, "name")) {
            t = jl__jstream_next(p);
            if (t == JS_STR) {
                if (!k->n_devices)
                    snprintf(k->device_name, sizeof k->device_name, "%s", p->str);
                else if (strcmp(k->device_name, p->str))
                    k->device_names_differ = 1;
            } else if (skip_rest(p, t) < 0) {
                return 0;
            }
        } else if (jl__jstream_skip(p) < 0) {
            return 0;
        }
    }
    k->n_devices++;
    k->n_rocm_props += rocm;
    k->n_cuda_props += cuda;
    return 1;
}

/* The GPU platform the profile was recorded on: "ROCm" (AMD) where its
 * device properties carry ROCm's fields or an AMD name, or its runtime
 * calls are HIP's; "CUDA" (NVIDIA) likewise; NULL when it says neither
 * (a CPU-only profile, or a writer that records no devices). */
static const char *platform_of(const kin *k, const char **vendor)
{
    int amd_name = !strncasecmp(k->device_name, "AMD", 3) || strstr(k->device_name, "Instinct") ||
                   strstr(k->device_name, "Radeon");
    int nv_name =
        !strncasecmp(k->device_name, "NVIDIA", 6) || !strncasecmp(k->device_name, "Tesla", 5);
    int rocm = k->n_rocm_props || (k->n_devices && amd_name) || k->n_hip_calls > k->n_cuda_calls;
    int cuda = k->n_cuda_props || (k->n_devices && nv_name) || k->n_cuda_calls > k->n_hip_calls;
    if (rocm && !cuda) {
        *vendor = "AMD";
        return "ROCm";
    }
    if (cuda && !rocm) {
        *vendor = "NVIDIA";
        return "CUDA";
    }
    *vendor = NULL;
    return NULL;
}

/* Parse the whole profile. 0 on success, else -1 (syntax: *where set). */
/* The document from p (a file's stream or a buffer), named path in errors. */
static jl_status parse_js(js *p, const char *path, kin *k, jl_error_list *errors)
{
    char *name = NULL;
    size_t name_cap = 0;
    jl_status st = JL_OK;
    int have_events = 0;
    jl__jstream_tok t = jl__jstream_next(p);
    if (t != JS_OBJ_START) {
        st = JL_EFORMAT;
        goto bad;
    }
    for (;;) {
        t = jl__jstream_next(p);
        if (t == JS_OBJ_END)
            break;
        if (t != JS_KEY) {
            st = JL_EFORMAT;
            goto bad;
        }
        if (!strcmp(p->str, "baseTimeNanoseconds")) {
            t = jl__jstream_next(p);
            if (t != JS_NUM) {
                st = JL_EFORMAT;
                goto bad;
            }
            if (p->num_kind != 1 && jl__ll_of_double(p->num, &k->base_ns)) {
                st = jl__imp_err_at(errors, JL_EINVALID, path, jl__jstream_line(p),
                                    jl__jstream_col(p), "baseTimeNanoseconds",
                                    "%.17g is not a time in nanoseconds (beyond 64 bits)", p->num);
                free(name);
                return st;
            }
            if (p->num_kind == 1)
                k->base_ns = p->num_int;
            k->has_base = 1;
        } else if (!strcmp(p->str, "deviceProperties")) {
            t = jl__jstream_next(p);
            if (t == JS_ARR_START) {
                while ((t = jl__jstream_next(p)) == JS_OBJ_START)
                    if (!read_device(p, k)) {
                        st = JL_EFORMAT;
                        goto bad;
                    }
                if (t != JS_ARR_END) {
                    st = JL_EFORMAT;
                    goto bad;
                }
            } else if (skip_rest(p, t) < 0) {
                st = JL_EFORMAT;
                goto bad;
            }
        } else if (!strcmp(p->str, "traceEvents")) {
            if (jl__jstream_next(p) != JS_ARR_START) {
                st = JL_EFORMAT;
                goto bad;
            }
            have_events = 1;
            while ((t = jl__jstream_next(p)) == JS_OBJ_START)
                if (!read_event(p, k, &name, &name_cap)) {
                    st = p->err[0] ? JL_EFORMAT : JL_ENOMEM;
                    goto bad;
                }
            if (t != JS_ARR_END) {
                st = JL_EFORMAT;
                goto bad;
            }
        } else if (jl__jstream_skip(p) < 0) {
            st = JL_EFORMAT;
            goto bad;
        }
    }
    if (!have_events)
        st = jl__imp_err_at(errors, JL_EFORMAT, path, 0, 0, "traceEvents",
                            "not a Kineto trace: no traceEvents");
    free(name);
    return st;
bad:
    if (st == JL_ENOMEM)
        jl__imp_err_at(errors, st, path, 0, 0, NULL, "out of memory");
    else
        jl__imp_err_at(errors, JL_EFORMAT, path, jl__jstream_line(p), jl__jstream_col(p), NULL,
                       "%s", p->err[0] ? p->err : "not a Kineto (Chrome trace) document");
    free(name);
    return st;
}

static jl_status parse(const char *path, kin *k, jl_error_list *errors)
{
    char why[128];
    gzsrc *gz;
    FILE *f = open_profile(path, &gz, why, sizeof why);
    if (!f)
        return jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "%s", why);
    js p;
    jl__jstream_init_file(&p, f, 1 << 18, 1 << 20);
    p.read_why = gz_why;
    p.read_ctx = gz;
    jl_status st = parse_js(&p, path, k, errors);
    jl__jstream_free(&p);
    if (fclose(f) != 0 && st == JL_OK)
        st = jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "cannot read (truncated gzip?)");
    return st;
}

/* ---- folding ------------------------------------------------------------------- */

static int cmp_kev(const void *a, const void *b)
{
    const kev *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    /* at one start: the longer (enclosing) first, annotations before work */
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return (x->kind == K_DEVICE) - (y->kind == K_DEVICE);
}

/* ---- alignment ------------------------------------------------------------------ */

typedef struct {
    double offset_s; /* run time = offset_s + ts * 1e-6 */
    double unc_s;    /* NaN: not known */
    char *clock;
} align;

static jl_status align_from_file(const char *spec, const char *profile, const kin *k, align *a,
                                 jl_error_list *errors)
{
    char *path = jl__strdup(spec);
    if (!path)
        return JL_ENOMEM;
    char *key = NULL, *colon = strrchr(path, ':');
    if (colon && strstr(path, ".json") && colon > strstr(path, ".json")) {
        *colon = 0;
        key = colon + 1;
    }
    json_error_t je;
    char why[128];
    FILE *af = jl__fopen_input(path, why, sizeof why);
    json_t *doc = af ? json_loadf(af, 0, &je) : NULL, *e = NULL;
    if (af)
        jl__input_read(path); /* the provenance's inputs: the --align file */
    jl_status st = JL_OK;
    if (af)
        fclose(af);
    if (!af) {
        st = jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "%s", why);
        goto end;
    }
    if (!doc) {
        st = jl__imp_err_at(errors, JL_EFORMAT, path, je.line, je.column, NULL, "%s", je.text);
        goto end;
    }
    const char *base = strrchr(profile, '/');
    base = base ? base + 1 : profile;
    if (key) {
        e = json_object_get(doc, key);
    } else {
        const char *k2;
        json_t *v;
        json_object_foreach(doc, k2, v) {
            json_t *files = json_object_get(v, "files"), *x;
            size_t i;
            json_array_foreach(files, i, x)
                if (json_is_string(x) && !strcmp(json_string_value(x), base))
                    e = v;
        }
        if (!e && json_object_size(doc) == 1) {
            void *it = json_object_iter(doc);
            e = json_object_iter_value(it);
        }
    }
    if (!json_is_object(e)) {
        st = jl__imp_err_at(errors, JL_EUSAGE, path, 0, 0, key,
                            key ? "no entry '%s' in the alignment file"
                                : "no entry lists %s in its \"files\": name one "
                                  "(--align FILE.json:KEY)",
                            key ? key : base);
        goto end;
    }
    const char *need[] = {"wall_ns_start", "perf_counter_ns_start", "wall_ns_end",
                          "perf_counter_ns_end", "run_t0_perf_counter_s"};
    for (size_t i = 0; i < 5; i++)
        if (!json_is_number(json_object_get(e, need[i]))) {
            st = jl__imp_err_at(errors, JL_EMISSING, path, 0, 0, need[i],
                                "the alignment entry has no number %s", need[i]);
            goto end;
        }
    json_t *b = json_object_get(e, "baseTimeNanoseconds");
    long long base_ns = k->base_ns;
    if (json_is_integer(b))
        base_ns = (long long)json_integer_value(b);
    else if (!k->has_base) {
        st = jl__imp_err_at(errors, JL_EMISSING, profile, 0, 0, "baseTimeNanoseconds",
                            "neither the profile nor the alignment gives baseTimeNanoseconds");
        goto end;
    }
    /* the four clock readings: whole nanoseconds (a number written with a
     * fraction or an exponent is refused, not truncated) */
    long long ns[4];
    for (size_t i = 0; i < 4; i++)
        if (!json_is_integer(json_object_get(e, need[i]))) {
            st = jl__imp_err_at(errors, JL_ETYPE, path, 0, 0, need[i],
                                "%s must be a whole number of nanoseconds", need[i]);
            goto end;
        }
    for (size_t i = 0; i < 4; i++)
        ns[i] = (long long)json_integer_value(json_object_get(e, need[i]));
    long long w0 = ns[0], p0 = ns[1], w1 = ns[2], p1 = ns[3];
    double t0 = json_number_value(json_object_get(e, "run_t0_perf_counter_s"));
    /* run = (base + 1000 ts + p0 - w0) / 1e9 - t0, in exact integers first;
     * and the two clocks' drift over the window, which bounds the mapping's
     * error: integers that overflow are a crafted file, refused */
    long long at, dw, dp, drift;
    if (jl__ll_sub(p0, w0, &at) || jl__ll_add(base_ns, at, &at) || jl__ll_sub(w1, w0, &dw) ||
        jl__ll_sub(p1, p0, &dp) || jl__ll_sub(dw, dp, &drift) || !isfinite(t0)) {
        st = jl__imp_err_at(errors, JL_EINVALID, path, 0, 0, key,
                            "the clock readings are not times of one window (their sums and "
                            "differences overflow 64-bit nanoseconds, or "
                            "run_t0_perf_counter_s is not finite)");
        goto end;
    }
    a->offset_s = (double)at / 1e9 - t0;
    a->unc_s = fmax(1e-6, fabs((double)drift) / 1e9);
    a->clock = jl__asprintf("--align %s: Kineto baseTimeNanoseconds + ts, wall clock to "
                            "perf_counter by the pair read at the window's start",
                            spec);
    if (!a->clock)
        st = JL_ENOMEM;
end:
    json_decref(doc);
    free(path);
    return st;
}

/* ---- the import ---------------------------------------------------------------------- */

/* The profile's clock on the run's: --align, else baseTimeNanoseconds
 * against @start_time_unix. */
/* Timestamps of at least this many µs are Unix µs (2001-09-09 on): what
 * PyTorch before 2.0 writes, with no baseTimeNanoseconds. */
#define UNIX_US_MIN 1e15

static jl_status place(const kin *k, const char *path, const jl_run *run, const char *align_spec,
                       int offset_given, align *al, jl_error_list *errors)
{
    if (align_spec) {
        return align_from_file(align_spec, path, k, al, errors);
    } else if (!k->has_base && k->min_ts >= UNIX_US_MIN && isfinite(run->attrs.start_time_unix)) {
        /* PyTorch 1.x: ts is already wall-clock µs since 1970 */
        al->offset_s = -run->attrs.start_time_unix;
        al->clock = jl__strdup("Kineto ts as Unix microseconds (PyTorch 1.x: no "
                               "baseTimeNanoseconds) against the run's @start_time_unix (wall "
                               "clock; agreement not measured)");
        if (!al->clock)
            return JL_ENOMEM;
    } else if (!k->has_base && offset_given) {
        /* the profile's own clock: --offset S puts its ts 0 at run time S */
        al->offset_s = 0;
        al->clock = jl__strdup("Kineto ts from the profile's own zero, placed by --offset");
        if (!al->clock)
            return JL_ENOMEM;
    } else {
        if (!k->has_base || !isfinite(run->attrs.start_time_unix)) {
            return jl__imp_err_at(
                errors, JL_EMISSING, path, 0, 0, "baseTimeNanoseconds",
                "cannot place the profile on the run's clock: %s; give --align FILE.json (clock "
                "readings taken beside the profiler) or --offset S (the run time, in seconds "
                "from the run's t = 0, of the profile's ts 0)",
                !k->has_base ? "the profile has no baseTimeNanoseconds and its timestamps are "
                               "not Unix microseconds"
                             : "the run has no @start_time_unix");
        }
        long long t0_ns, d_ns;
        if (jl__unix_ns(run->attrs.start_time_unix, &t0_ns) || jl__ll_sub(k->base_ns, t0_ns, &d_ns))
            return jl__imp_err_at(errors, JL_EINVALID, path, 0, 0, "baseTimeNanoseconds",
                                  "baseTimeNanoseconds %lld is not a time near the run's "
                                  "@start_time_unix %.17g (their difference overflows 64-bit "
                                  "nanoseconds); give --align FILE.json or --offset S",
                                  k->base_ns, run->attrs.start_time_unix);
        al->offset_s = (double)d_ns / 1e9;
        al->clock = jl__strdup("Kineto baseTimeNanoseconds + ts against the run's "
                               "@start_time_unix (wall clock; agreement not measured)");
        if (!al->clock)
            return JL_ENOMEM;
    }
    return JL_OK;
}

typedef struct {
    int side;
    size_t n_dev, n_spans, n_steps;
    double folded_us, unannotated_us, offset_s;
} kstats;

/* The spans of a parsed profile on run's clock (alignment, side, folding,
 * steps, window). */
static jl_status build(kin *k, const char *path, const jl_run *run, const char *align_spec,
                       const char *side_opt, double offset, int offset_given, jl_spans **out,
                       kstats *ks, jl_error_list *errors)
{
    *out = NULL;
    jl_status st = JL_OK;
    align al = {NAN, NAN, NULL};
    jl_spans *sp = NULL;
    size_t *ann = NULL;
    double *busy = NULL;
    int32_t *parent = NULL;
    if ((st = place(k, path, run, align_spec, offset_given, &al, errors)) != JL_OK)
        goto end;
    al.offset_s += offset;

    /* which side */
    size_t n_gpu = 0, n_cpu = 0, n_dev = 0;
    for (size_t i = 0; i < k->n; i++)
        n_gpu += k->v[i].kind == K_GPU_ANN, n_cpu += k->v[i].kind == K_CPU_ANN,
            n_dev += k->v[i].kind == K_DEVICE;
    int side = side_opt ? (!strcmp(side_opt, "gpu") ? K_GPU_ANN : K_CPU_ANN)
                        : (n_gpu ? K_GPU_ANN : K_CPU_ANN);
    size_t n_ann = side == K_GPU_ANN ? n_gpu : n_cpu;
    if (!n_ann) {
        st = jl__imp_err_at(errors, JL_ENODATA, path, 0, 0, "traceEvents",
                            "no %s annotations with valid timestamps (%zu events, %zu with zero "
                            "timestamps rejected)",
                            side == K_GPU_ANN ? "GPU-side (gpu_user_annotation)"
                                              : "CPU-side (user_annotation)",
                            k->n_events, k->n_zero);
        goto end;
    }

    /* fold: per stream, device work into the innermost annotation holding it */
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i].kind != side && k->v[i].kind != K_DEVICE)
            k->v[i].kind = -1; /* the other side's annotations: dropped */
    size_t m = 0;
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i].kind >= 0)
            k->v[m++] = k->v[i];
    k->n = m;
    qsort(k->v, k->n, sizeof *k->v, cmp_kev);
    ann = malloc(n_ann * sizeof *ann);
    busy = calloc(n_ann, sizeof *busy);
    parent = malloc(n_ann * sizeof *parent);
    size_t *stack = malloc((n_ann + 1) * sizeof *stack);
    if (!ann || !busy || !parent || !stack) {
        free(stack);
        st = JL_ENOMEM;
        goto end;
    }
    size_t na = 0, depth = 0;
    double unannotated_us = 0, folded_us = 0;
    int64_t cur = INT64_MIN;
    const double tol = 0.5; /* µs: device work may end a rounding after its envelope */
    for (size_t i = 0; i < k->n; i++) {
        kev *e = &k->v[i];
        if (e->stream != cur) {
            cur = e->stream;
            depth = 0;
        }
        while (depth &&
               k->v[ann[stack[depth - 1]]].ts + k->v[ann[stack[depth - 1]]].dur + tol <= e->ts)
            depth--;
        if (e->kind == side) {
            ann[na] = i;
            parent[na] = -1;
            if (depth) {
                const kev *p = &k->v[ann[stack[depth - 1]]];
                if (e->ts + e->dur <= p->ts + p->dur + tol)
                    parent[na] = (int32_t)stack[depth - 1];
            }
            stack[depth++] = na;
            na++;
        } else if (side == K_GPU_ANN) {
            size_t d = depth;
            while (d &&
                   k->v[ann[stack[d - 1]]].ts + k->v[ann[stack[d - 1]]].dur + tol < e->ts + e->dur)
                d--;
            if (d) {
                busy[stack[d - 1]] += e->dur;
                folded_us += e->dur;
            } else {
                unannotated_us += e->dur;
            }
        }
    }
    free(stack);

    /* the spans on the run's clock, in time order, steps and window */
    double *t0 = malloc((na ? na : 1) * sizeof *t0), *t1 = malloc((na ? na : 1) * sizeof *t1);
    int32_t *nmi = malloc((na ? na : 1) * sizeof *nmi);
    int16_t *gpu = malloc((na ? na : 1) * sizeof *gpu);
    if (!t0 || !t1 || !nmi || !gpu) {
        free(t0);
        free(t1);
        free(nmi);
        free(gpu);
        st = JL_ENOMEM;
        goto end;
    }
    for (size_t j = 0; j < na; j++) {
        const kev *e = &k->v[ann[j]];
        t0[j] = al.offset_s + e->ts * 1e-6;
        t1[j] = t0[j] + e->dur * 1e-6;
        nmi[j] = e->name;
        /* GPU-side events: pid is the device; CPU-side: the process */
        gpu[j] = side == K_GPU_ANN ? (int16_t)(e->stream >> 32) : 0;
        busy[j] *= 1e-6;
    }
    jl__raw_spans raw = {na,  t0,       t1,        nmi, parent, side == K_GPU_ANN ? busy : NULL,
                         gpu, k->names, k->n_names};
    double win[2] = {al.offset_s + k->win_ts * 1e-6, al.offset_s + (k->win_ts + k->win_dur) * 1e-6};
    size_t n_steps = 0;
    st = jl__spans_from_raw(&raw, run, win, &sp, &n_steps);
    free(t0);
    free(t1);
    free(nmi);
    free(gpu);
    if (st != JL_OK)
        goto end;
    sp->source = jl__imp_source_name("kineto:", path);
    sp->side = jl__strdup(side == K_GPU_ANN ? "gpu" : "cpu");
    sp->clock = al.clock;
    al.clock = NULL;
    sp->clock_uncertainty_s = al.unc_s;
    if (!sp->source || !sp->side) {
        st = JL_ENOMEM;
        goto end;
    }
    ks->side = side;
    ks->n_dev = n_dev;
    ks->n_spans = na;
    ks->n_steps = n_steps;
    ks->folded_us = folded_us;
    ks->unannotated_us = unannotated_us;
    ks->offset_s = al.offset_s;
    *out = sp;
    sp = NULL;
end:
    free(al.clock);
    jl_spans_free(sp);
    free(ann);
    free(busy);
    free(parent);
    return st;
}

static jl_status kineto_into(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                             size_t n_args, const char *trace, const char *run_name,
                             jl_import_result **out, jl_error_list *errors)
{
    (void)n_paths;
    *out = NULL;
    const char *path = paths[0], *align_spec = NULL, *side_opt = NULL;
    double offset = 0;
    int offset_given = 0;
    int allow = 0;
    for (size_t i = 0; i < n_args; i++) {
        if (!strcmp(args[i].name, "allow-misaligned"))
            allow = 1;
        else if (!strcmp(args[i].name, "align"))
            align_spec = args[i].value;
        else if (!strcmp(args[i].name, "side"))
            side_opt = args[i].value;
        else if (!strcmp(args[i].name, "offset")) {
            char *end;
            offset = strtod(args[i].value, &end);
            offset_given = 1;
            if (*end || end == args[i].value || !isfinite(offset))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, "--offset",
                                      "--offset: '%s' is not a number of seconds", args[i].value);
        }
    }
    if (side_opt && strcmp(side_opt, "gpu") && strcmp(side_opt, "cpu"))
        return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, "--side",
                              "--side: expected gpu or cpu, got '%s'", side_opt);

    /* the run: its start time and its engine rows (steps) */
    jl_run *run = NULL;
    jl_status st = jl__profile_read_run(trace, run_name, &run, errors);
    if (st != JL_OK)
        return st;

    kin k = {0};
    k.win_ts = k.win_dur = NAN;
    jl_spans *sp = NULL;
    jl_import_result *r = NULL;
    kstats ks = {0};
    if ((st = parse(path, &k, errors)) != JL_OK ||
        (st = build(&k, path, run, align_spec, side_opt, offset, offset_given, &sp, &ks, errors)) !=
            JL_OK)
        goto end;
    int side = ks.side;
    size_t na = ks.n_spans, n_steps = ks.n_steps, n_dev = ks.n_dev;
    double lo = sp->window[0], hi = sp->window[1], folded_us = ks.folded_us,
           unannotated_us = ks.unannotated_us;
    jl__span_fit fit;
    if ((st = jl__spans_write_checked(trace, run_name, sp, run, allow, path, errors, &fit)) !=
        JL_OK)
        goto end;
    jl__imp kit;
    if (jl__imp_start(&kit, NULL, errors) < 0) {
        st = JL_ENOMEM;
        goto end;
    }
    r = kit.res;
    r->n_files = 1;
    r->n_runs = 1;
    r->source = jl__imp_source_name("Kineto trace ", path);
    jl__imp_detail_num(&kit, "events", (double)k.n_events);
    jl__imp_detail_num(&kit, "spans", (double)na);
    jl__imp_detail(&kit, "side", sp->side, 0);
    jl__imp_detail_num(&kit, "device_events", (double)n_dev);
    jl__imp_detail_num(&kit, "device_busy_in_spans_s", folded_us * 1e-6);
    jl__imp_detail_num(&kit, "device_busy_outside_spans_s", unannotated_us * 1e-6);
    jl__imp_detail_num(&kit, "zero_timestamp_events_rejected", (double)k.n_zero);
    jl__imp_detail_num(&kit, "steps", (double)n_steps);
    jl__imp_detail_num(&kit, "window_start_s", lo);
    jl__imp_detail_num(&kit, "window_end_s", hi);
    jl__imp_detail_num(&kit, "offset_s", ks.offset_s);
    jl__imp_detail(&kit, "into", trace, 0);
    jl__imp_detail_num(&kit, "power_fit_offset_s", fit.best_offset_s);
    jl__imp_detail_num(&kit, "power_fit_correlation", fit.score_now);
    if (fit.misaligned)
        jl__imp_note(&kit, path, "spans_misaligned",
                     "run %s: imported as placed (--allow-misaligned) although the power fits "
                     "best %+.2f s away: the run is marked spans_misaligned",
                     run_name, fit.best_offset_s);
    jl__imp_detail(&kit, "run", run_name, 0);
    const char *vendor = NULL, *platform = platform_of(&k, &vendor);
    if (platform) { /* else not said: a CPU-only profile, no device properties */
        jl__imp_detail(&kit, "gpu_platform", platform, 0);
        jl__imp_detail(&kit, "gpu_vendor", vendor, 0);
    }
    if (k.n_devices)
        jl__imp_detail_num(&kit, "gpu_devices", (double)k.n_devices);
    if (k.device_name[0])
        jl__imp_detail(&kit, "gpu_name", k.device_names_differ ? "(several)" : k.device_name, 0);
    char devs[200] = "";
    if (platform)
        snprintf(devs, sizeof devs, "; %s (%s)%s%s%s", platform, vendor,
                 k.device_name[0] ? ": " : "", k.device_name,
                 k.n_devices > 1 && !k.device_names_differ ? " x" : "");
    if (platform && k.n_devices > 1 && !k.device_names_differ)
        snprintf(devs + strlen(devs), sizeof devs - strlen(devs), "%zu", k.n_devices);
    r->detail_text = jl__asprintf("%zu %s-side spans, %zu steps, window [%.3f, %.3f] s%s", na,
                                  sp->side, n_steps, lo, hi, devs);
    if (k.n_zero)
        jl__imp_note(&kit, path, "traceEvents",
                     "%zu events with zero or missing timestamps rejected (a stale export)",
                     k.n_zero);
    if (side == K_CPU_ANN)
        jl__imp_note(&kit, path, "traceEvents",
                     "CPU-side annotations only: spans without busy_s (host time, not "
                     "device work)");
    if (side == K_CPU_ANN && k.n_operator_ann)
        jl__imp_note(&kit, path, "cat",
                     "%zu 'Operator' events without '::' in their name taken as record_function "
                     "ranges (PyTorch 1.8/1.9 write them among the operators)",
                     k.n_operator_ann);
    if (!k.has_base && !align_spec)
        jl__imp_note(&kit, path, "baseTimeNanoseconds", "no baseTimeNanoseconds: %s",
                     sp->clock ? sp->clock : "placed by --offset");
    if (unannotated_us > 0)
        jl__imp_note(&kit, path, "traceEvents",
                     "%.6g s of device work outside every annotation (unattributed)",
                     unannotated_us * 1e-6);
    r = NULL; /* the kit's, handed over */
    st = jl__imp_end(&kit, JL_OK, out);
end:
    jl_import_result_free(r);
    jl_spans_free(sp);
    kin_free(&k);
    jl_run_free(run);
    return st;
}

jl_status jl__kineto_spans_buffer_aligned(const char *text, size_t len, const jl_run *run,
                                          const char *side, const char *align_spec,
                                          const char *profile_name, jl_spans **out,
                                          jl_error_list *errors)
{
    kin k = {0};
    k.win_ts = k.win_dur = NAN;
    kstats ks = {0};
    js p;
    const char *name = profile_name ? profile_name : "(buffer)";
    jl__jstream_init_mem(&p, text, len, 1 << 20);
    jl_status st = parse_js(&p, name, &k, errors);
    jl__jstream_free(&p);
    if (st == JL_OK)
        st = build(&k, name, run, align_spec, side, 0, 0, out, &ks, errors);
    kin_free(&k);
    return st;
}

jl_status jl__kineto_spans_buffer(const char *text, size_t len, const jl_run *run, const char *side,
                                  jl_spans **out, jl_error_list *errors)
{
    return jl__kineto_spans_buffer_aligned(text, len, run, side, NULL, NULL, out, errors);
}

static const jl_importer_option kineto_options[] = {
    {"align", "FILE.json[:KEY]",
     "clocks from an alignment file (wall_ns/perf_counter_ns pairs, run_t0_perf_counter_s)"},
    {"offset", "S", "add S seconds to the alignment"},
    {"side", "gpu|cpu", "which annotations (default: GPU-side when the profile has them)"},
    {"allow-misaligned", NULL,
     "import spans whose busy/idle pattern fits the power better elsewhere (marked "
     "spans_misaligned)"},
    {NULL, NULL, NULL}};

const jl_importer jl__importer_kineto = {
    .name = "kineto",
    .summary = "PyTorch profiler (Kineto) spans into a run's spans/ (--into TRACE.h5:RUN)",
    .paths = "PROFILE.json[.gz]",
    .description =
        "Import the annotation spans (torch.profiler.record_function) of a PyTorch\n"
        "profiler Chrome trace into run RUN of an existing trace as its spans/ group\n"
        "(trace format 1.2), for `joules attribute`. GPU-side annotations are preferred;\n"
        "each kernel, copy and set is folded into the innermost annotation holding it\n"
        "(busy_s); events with zero timestamps (a stale export) are rejected. Times:\n"
        "baseTimeNanoseconds + ts against the run's @start_time_unix, or --align.\n"
        "Streaming (zlib for .gz): memory follows the events kept, not the file.\n"
        "attribute.md, \"Recording and importing a profile\".\n",
    .options = kineto_options,
    .min_paths = 1,
    .max_paths = 1,
    .into = kineto_into,
};
