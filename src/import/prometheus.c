/* joules import prometheus — a fleet's own GPU telemetry: NVIDIA DCGM
 * exporter series as Prometheus keeps them (docs/import.md, "Prometheus /
 * DCGM exporter"). Two shapes of input:
 *
 *   - the JSON of Prometheus' HTTP API, /api/v1/query_range (resultType
 *     "matrix": per series its labels and [time, "value"] pairs; "vector"
 *     of /api/v1/query is read too), one query per file or several files;
 *   - the text exposition format (what /metrics answers: `# HELP`, `# TYPE`,
 *     `name{label="v",...} value timestamp_ms`), a scrape archive being
 *     scrapes appended one after the other. Each sample needs its
 *     timestamp there: without one the time of a scrape is unknown.
 *
 * Series are kept per GPU (Hostname or instance, then UUID or gpu) and cut
 * into runs by a RUNS.csv (run,start,end[,gpus][,attributes]) or by
 * labels (--runs-by pod: one run per pod, on the GPUs whose series carry
 * it). Energy from DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ; the counter
 * as the trace format's energy_j, whose resets the summary handles) when
 * scraped, power from DCGM_FI_DEV_POWER_USAGE. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/inputs.h"
#include "core/reasons.h"
#include "core/stats.h"
#include "core/util.h"
#include "import/kit.h"

/* ---- what a series is ----------------------------------------------------------- */

enum {
    M_POWER,
    M_ENERGY,
    M_SM_UTIL,
    M_MEM_UTIL,
    M_FB_USED,
    M_SM_CLOCK,
    M_TEMP,
    M_ENF_LIMIT, /* power-cap context (issue 37): kept per run, not series */
    M_THROTTLE,
    M_COUNT
};

static const struct {
    const char *name;
    double scale; /* to the trace format's unit */
} metrics[M_COUNT] = {
    [M_POWER] = {"DCGM_FI_DEV_POWER_USAGE", 1},                  /* W */
    [M_ENERGY] = {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", 1e-3}, /* mJ -> J */
    [M_SM_UTIL] = {"DCGM_FI_DEV_GPU_UTIL", 0.01},                /* % -> 0..1 */
    [M_MEM_UTIL] = {"DCGM_FI_DEV_MEM_COPY_UTIL", 0.01},          /* % -> 0..1 */
    [M_FB_USED] = {"DCGM_FI_DEV_FB_USED", 1048576},              /* MiB -> bytes */
    [M_SM_CLOCK] = {"DCGM_FI_DEV_SM_CLOCK", 1},                  /* MHz */
    [M_TEMP] = {"DCGM_FI_DEV_GPU_TEMP", 1},                      /* C */
    [M_ENF_LIMIT] = {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", 1},     /* W */
    [M_THROTTLE] = {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", 1},    /* NVML's bit mask */
};

static int metric_of(const char *name)
{
    for (int m = 0; m < M_COUNT; m++)
        if (!strcmp(metrics[m].name, name))
            return m;
    if (!strcmp(name, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS")) /* the newer name */
        return M_THROTTLE;
    return -1;
}

typedef struct label {
    char *k, *v;
} label;

/* One series: a metric of one GPU with one set of labels (a GPU whose pod
 * changes has one series per pod). */
typedef struct series {
    int metric;
    size_t gpu;
    label *labels;
    size_t n_labels;
    char *key; /* metric + labels, for finding it again (text format) */
    double *t, *v;
    size_t n, cap;
    double last;  /* its last sample's time (kept or not) */
    int has_last; /* a sample was read */
    int keep;     /* 0: --runs-by's labels absent, no run takes it: samples counted, not kept */
    size_t run;   /* --runs-by: the run it belongs to, (size_t)-1 none */
    const char *file;
} series;

typedef struct pgpu {
    char *host, *id; /* Hostname (or instance) and UUID (or gpu) */
    char *model_name;
} pgpu;

typedef struct prom {
    jl__imp *c;
    series *s;
    size_t n_s, cap_s;
    pgpu *g;
    size_t n_g, cap_g;
    size_t ignored; /* samples of metrics joules does not use */
    size_t max_samples, n_samples;
    const char *runs_by; /* --runs-by's labels, comma-separated (NULL: RUNS.csv) */
    char **names;        /* the files of folders read (series point to them) */
    size_t n_names;
    jl__strmap series_of; /* text format: series key -> its index in s */
    struct skey *ord;     /* the series by (run, GPU, metric): index_series */
    jl__strmap gpu_index; /* "LEN:host" + id -> its index in g */
} prom;

static const char *label_get(const label *l, size_t n, const char *k)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i].k, k))
            return l[i].v;
    return NULL;
}

static void labels_free(label *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].k);
        free(l[i].v);
    }
    free(l);
}

static void prom_free(prom *p)
{
    for (size_t i = 0; i < p->n_s; i++) {
        labels_free(p->s[i].labels, p->s[i].n_labels);
        free(p->s[i].key);
        free(p->s[i].t);
        free(p->s[i].v);
    }
    free(p->s);
    for (size_t i = 0; i < p->n_g; i++) {
        free(p->g[i].host);
        free(p->g[i].id);
        free(p->g[i].model_name);
    }
    free(p->g);
    for (size_t i = 0; i < p->n_names; i++)
        free(p->names[i]);
    free(p->names);
    jl__strmap_free(&p->series_of);
    jl__strmap_free(&p->gpu_index);
    free(p->ord);
}

/* The GPU a series' labels name; (size_t)-1 when they name none (no UUID
 * and no gpu label), -2 out of memory. */
static size_t gpu_of(prom *p, const label *l, size_t n)
{
    const char *host = label_get(l, n, "Hostname");
    if (!host)
        host = label_get(l, n, "instance");
    const char *id = label_get(l, n, "UUID");
    if (!id)
        id = label_get(l, n, "gpu");
    if (!id)
        return (size_t)-1;
    if (!host)
        host = "";
    char *hk = jl__asprintf("%zu:%s%s", strlen(host), host, id);
    if (!hk)
        return (size_t)-2;
    int added;
    const jl__strmap_entry *gi = jl__strmap_add(&p->gpu_index, hk, p->n_g, &added);
    free(hk);
    if (!gi)
        return (size_t)-2;
    if (!added)
        return gi->value;
    if (p->n_g == p->cap_g) {
        size_t cap = p->cap_g ? 2 * p->cap_g : 16;
        pgpu *g = realloc(p->g, cap * sizeof *g);
        if (!g)
            return (size_t)-2;
        p->g = g;
        p->cap_g = cap;
    }
    const char *mn = label_get(l, n, "modelName");
    pgpu *g = &p->g[p->n_g];
    g->host = jl__strdup(host);
    g->id = jl__strdup(id);
    g->model_name = mn ? jl__strdup(mn) : NULL;
    if (!g->host || !g->id || (mn && !g->model_name)) {
        free(g->host);
        free(g->id);
        free(g->model_name);
        return (size_t)-2;
    }
    return p->n_g++;
}

/* A new series of metric m with labels l (taken over). NULL: out of memory
 * (l freed) or no GPU named (l freed, *no_gpu set). */
static series *series_new(prom *p, int m, label *l, size_t n, char *key, const char *file,
                          int *no_gpu)
{
    size_t g = gpu_of(p, l, n);
    if (g == (size_t)-1 || g == (size_t)-2) {
        *no_gpu = g == (size_t)-1;
        labels_free(l, n);
        free(key);
        return NULL;
    }
    if (p->n_s == p->cap_s) {
        size_t cap = p->cap_s ? 2 * p->cap_s : 64;
        series *s = realloc(p->s, cap * sizeof *s);
        if (!s) {
            labels_free(l, n);
            free(key);
            return NULL;
        }
        p->s = s;
        p->cap_s = cap;
    }
    series *s = &p->s[p->n_s++];
    memset(s, 0, sizeof *s);
    s->metric = m;
    s->gpu = g;
    s->labels = l;
    s->n_labels = n;
    s->key = key;
    s->file = file;
    s->run = (size_t)-1;
    s->keep = 1;
    for (const char *b = p->runs_by; b && *b && s->keep;) { /* every label of --runs-by */
        size_t len = strcspn(b, ",");
        int have = 0;
        for (size_t i = 0; i < n && !have; i++)
            have = strlen(l[i].k) == len && !strncmp(l[i].k, b, len);
        s->keep = have;
        b += len + (b[len] == ',');
    }
    return s;
}

/* Append a sample; -1 out of memory, -2 over the sample limit. */
static int series_add(prom *p, series *s, double t, double v)
{
    if (++p->n_samples > p->max_samples)
        return -2;
    s->last = t;
    s->has_last = 1;
    if (!s->keep)
        return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        double *nt = realloc(s->t, cap * sizeof *nt);
        if (!nt)
            return -1;
        s->t = nt;
        double *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = cap;
    }
    s->t[s->n] = t;
    s->v[s->n++] = v * metrics[s->metric].scale;
    return 0;
}

/* A plain decimal ("312.456", "4200000123", "-0.5": at most 19 digits, a
 * mantissa below 2^53, no exponent), the double strtod gives: Clinger's
 * exact case, one correctly rounded division. 0: another shape (strtod
 * reads it). */
static int plain_decimal(const char *s, double *v)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *q = s;
    int neg = *q == '-', nd = 0, frac = 0;
    q += neg;
    uint64_t m = 0;
    if (!(*q >= '0' && *q <= '9'))
        return 0;
    for (; *q >= '0' && *q <= '9'; q++, nd++)
        m = m * 10 + (uint64_t)(*q - '0');
    if (*q == '.') {
        q++;
        if (!(*q >= '0' && *q <= '9'))
            return 0;
        for (; *q >= '0' && *q <= '9'; q++, nd++, frac++)
            m = m * 10 + (uint64_t)(*q - '0');
    }
    if (*q || nd > 19 || m > ((uint64_t)1 << 53) || frac > 22)
        return 0;
    double x = frac ? (double)m / p10[frac] : (double)m;
    *v = neg ? -x : x;
    return 1;
}

/* Prometheus writes values as text: "NaN", "+Inf", "-Inf" or a number. A
 * value that is not finite is missing (left out; the run's grid bridges
 * it), never 0. 1: *v finite; 0: missing; -1: not a value. */
static int prom_value(const char *s, double *v)
{
    if (plain_decimal(s, v))
        return 1;
    if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf") || !strcmp(s, "Inf"))
        return 0;
    char *end = NULL;
    *v = strtod(s, &end);
    if (end == s || *end)
        return -1;
    return isfinite(*v) ? 1 : 0;
}

/* ---- the JSON of /api/v1/query_range -------------------------------------------- */

static char *dup_str(const js *j)
{
    return jl__strdup(j->str);
}

/* "metric": {"k": "v", ...} — the labels (NULL on an error, pushed). */
static int read_labels(prom *p, js *j, const char *file, label **out, size_t *n, char **name)
{
    *out = NULL;
    *n = 0;
    *name = NULL;
    size_t cap = 0;
    for (;;) {
        jl__jstream_tok t = jl__jstream_next(j);
        if (t == JS_OBJ_END)
            return 0;
        if (t != JS_KEY)
            goto bad;
        char *k = dup_str(j);
        if (!k)
            return -1;
        if (jl__jstream_next(j) != JS_STR) {
            free(k);
            goto bad;
        }
        if (!strcmp(k, "__name__")) {
            free(k);
            free(*name);
            if (!(*name = dup_str(j)))
                return -1;
            continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            label *l = realloc(*out, cap * sizeof *l);
            if (!l) {
                free(k);
                return -1;
            }
            *out = l;
        }
        (*out)[*n].k = k;
        if (!((*out)[*n].v = dup_str(j))) {
            free(k);
            return -1;
        }
        (*n)++;
    }
bad:
    jl__imp_err(p->c, JL_EFORMAT, file, "data.result[].metric", jl__jstream_line(j),
                "a label is not a string (column %lld)%s%s", jl__jstream_col(j),
                *j->err ? ": " : "", j->err);
    return -2;
}

/* [t, "v"] */
static int read_pair(prom *p, js *j, series *s, const char *file, int *stop)
{
    /* the common case at once: ,[t,"v"] whole in the read buffer */
    char vbuf[64];
    const char *vs;
    size_t vn = sizeof vbuf - 1;
    double tm, v;
    int fast = jl__jstream_num_str(j, &tm, &vs, &vn);
    if (fast < 0)
        goto bad;
    if (fast) {
        memcpy(vbuf, vs, vn);
        vbuf[vn] = '\0';
        vs = vbuf;
    } else {
        jl__jstream_tok t = jl__jstream_next(j);
        if (t == JS_ARR_END) {
            *stop = 1;
            return 0;
        }
        if (t != JS_ARR_START || jl__jstream_next(j) != JS_NUM)
            goto bad;
        tm = j->num;
        if (jl__jstream_next(j) != JS_STR)
            goto bad;
        vs = j->str;
    }
    int ok = prom_value(vs, &v);
    if (ok < 0) {
        jl__imp_err(p->c, JL_EINVALID, file, "data.result[].values", jl__jstream_line(j),
                    "'%s' is not a sample value (column %lld)", vs, jl__jstream_col(j));
        return -2;
    }
    if (jl__jstream_next(j) != JS_ARR_END)
        goto bad;
    if (!isfinite(tm)) {
        jl__imp_err(p->c, JL_EINVALID, file, "data.result[].values", jl__jstream_line(j),
                    "a sample time is not finite");
        return -2;
    }
    if (ok && s) {
        if (s->has_last && tm < s->last) {
            jl__imp_err(p->c, JL_EINVALID, file, "data.result[].values", jl__jstream_line(j),
                        "time goes backwards in a series (%.3f after %.3f)", tm, s->last);
            return -2;
        }
        int r = series_add(p, s, tm, v);
        if (r == -2) {
            jl__imp_err(p->c, JL_ELIMIT, file, "data.result[].values", jl__jstream_line(j),
                        "more than %zu samples", p->max_samples);
            return -2;
        }
        if (r)
            return -1;
    }
    return 0;
bad:
    jl__imp_err(p->c, JL_EFORMAT, file, "data.result[].values", jl__jstream_line(j),
                "expected [time, \"value\"] pairs (column %lld)%s%s", jl__jstream_col(j),
                *j->err ? ": " : "", j->err);
    return -2;
}

/* One element of data.result: {"metric": {...}, "values": [...]} (or
 * "value": [t, "v"]). The metric object comes first in what Prometheus
 * writes; a file where it does not is read all the same (values before
 * the labels are kept aside and joined when the labels come). */
static int read_result(prom *p, js *j, const char *file)
{
    label *l = NULL;
    size_t n = 0;
    char *name = NULL;
    series *s = NULL;
    int have_metric = 0, rc = 0, m = -1;
    for (;;) {
        jl__jstream_tok t = jl__jstream_next(j);
        if (t == JS_OBJ_END)
            break;
        if (t != JS_KEY) {
            rc = -3;
            break;
        }
        if (!strcmp(j->str, "metric") && !have_metric) {
            if (jl__jstream_next(j) != JS_OBJ_START) {
                rc = -3;
                break;
            }
            if ((rc = read_labels(p, j, file, &l, &n, &name)))
                break;
            have_metric = 1;
            m = name ? metric_of(name) : -1;
            if (m >= 0) {
                int no_gpu = 0;
                s = series_new(p, m, l, n, NULL, file, &no_gpu);
                l = NULL;
                n = 0;
                if (!s && !no_gpu) {
                    rc = -1;
                    break;
                }
                if (!s)
                    jl__imp_note(p->c, file, name,
                                 "series without a UUID or gpu label (which GPU?) left out");
            }
        } else if (!strcmp(j->str, "values") || !strcmp(j->str, "value")) {
            int one = !strcmp(j->str, "value");
            if (!have_metric) {
                jl__imp_err(p->c, JL_EFORMAT, file, "data.result[]", jl__jstream_line(j),
                            "values before the series' \"metric\" labels");
                rc = -2;
                break;
            }
            if (jl__jstream_next(j) != JS_ARR_START) {
                rc = -3;
                break;
            }
            if (one) { /* [t, "v"] itself */
                double tm, v;
                int ok;
                if (jl__jstream_next(j) != JS_NUM) {
                    rc = -3;
                    break;
                }
                tm = j->num;
                if (jl__jstream_next(j) != JS_STR || (ok = prom_value(j->str, &v)) < 0 ||
                    jl__jstream_next(j) != JS_ARR_END) {
                    rc = -3;
                    break;
                }
                if (ok && s && isfinite(tm) && (rc = series_add(p, s, tm, v)))
                    break;
                if (m < 0)
                    p->ignored++;
                continue;
            }
            int stop = 0;
            while (!stop && !(rc = read_pair(p, j, m >= 0 ? s : NULL, file, &stop)))
                if (m < 0 && !stop)
                    p->ignored++;
            if (rc)
                break;
        } else if (jl__jstream_skip(j)) {
            rc = -3;
            break;
        }
    }
    labels_free(l, n);
    free(name);
    if (rc == -3)
        jl__imp_err(p->c, JL_EFORMAT, file, "data.result[]", jl__jstream_line(j),
                    "expected {\"metric\": {...}, \"values\": [[time, \"value\"], ...]} "
                    "(column %lld)%s%s",
                    jl__jstream_col(j), *j->err ? ": " : "", j->err);
    return rc == -1 ? -1 : rc ? -2 : 0;
}

/* "data": {"resultType": "matrix"|"vector", "result": [...]}. 0, -2 an
 * error (pushed), -3 a shape error (the caller says where), -1 out of
 * memory. *saw_result is set to 2 when a result array was read. */
static int read_data(prom *p, js *j, const char *file, int *saw_result)
{
    if (jl__jstream_next(j) != JS_OBJ_START)
        return -3;
    for (;;) {
        jl__jstream_tok t = jl__jstream_next(j);
        if (t == JS_OBJ_END)
            return 0;
        if (t != JS_KEY)
            return -3;
        if (!strcmp(j->str, "resultType")) {
            if (jl__jstream_next(j) != JS_STR)
                return -3;
            if (strcmp(j->str, "matrix") && strcmp(j->str, "vector")) {
                jl__imp_err(p->c, JL_EFORMAT, file, "data.resultType", jl__jstream_line(j),
                            "'%s': joules reads series (matrix, from query_range) or "
                            "samples (vector, from query)",
                            j->str);
                return -2;
            }
        } else if (!strcmp(j->str, "result")) {
            *saw_result = 2;
            if (jl__jstream_next(j) != JS_ARR_START)
                return -3;
            for (;;) {
                t = jl__jstream_next(j);
                if (t == JS_ARR_END)
                    break;
                if (t != JS_OBJ_START)
                    return -3;
                int rc = read_result(p, j, file);
                if (rc)
                    return rc;
            }
        } else if (jl__jstream_skip(j)) {
            return -3;
        }
    }
}

static int read_json(prom *p, js *j, const char *file)
{
    if (jl__jstream_next(j) != JS_OBJ_START)
        goto bad;
    char *status = NULL, *error = NULL;
    int rc = 0, saw_result = 0;
    for (;;) {
        jl__jstream_tok t = jl__jstream_next(j);
        if (t == JS_OBJ_END)
            break;
        if (t != JS_KEY) {
            rc = -3;
            break;
        }
        if (!strcmp(j->str, "status") || !strcmp(j->str, "error")) {
            char **dst = !strcmp(j->str, "status") ? &status : &error;
            if (jl__jstream_next(j) != JS_STR) {
                rc = -3;
                break;
            }
            free(*dst);
            *dst = dup_str(j);
        } else if (!strcmp(j->str, "data")) {
            if ((rc = read_data(p, j, file, &saw_result)))
                break;
        } else if (jl__jstream_skip(j)) {
            rc = -3;
            break;
        }
    }
    if (!rc && status && strcmp(status, "success")) {
        jl__imp_err(p->c, JL_EINVALID, file, "status", -1,
                    "the query failed (status '%s'%s%s): nothing to import", status,
                    error ? ": " : "", error ? error : "");
        rc = -2;
    } else if (!rc && saw_result != 2) {
        jl__imp_err(p->c, JL_EFORMAT, file, "data.result", -1,
                    "no data.result: not the JSON of Prometheus' query_range API");
        rc = -2;
    }
    free(status);
    free(error);
    if (rc == -3)
        goto bad;
    return rc;
bad:
    jl__imp_err(p->c, JL_EFORMAT, file, NULL, jl__jstream_line(j),
                "not the JSON of Prometheus' query_range API (column %lld)%s%s", jl__jstream_col(j),
                *j->err ? ": " : "", j->err);
    return -2;
}

/* ---- the text exposition format ------------------------------------------------- */

static int cmp_label(const void *a, const void *b)
{
    const label *x = a, *y = b;
    int c = strcmp(x->k, y->k);
    return c ? c : strcmp(x->v, y->v); /* a label given twice: one order */
}

/* name{k="v",...} value [timestamp_ms] — labels into *l (sorted by key,
 * so one series' samples of several scrapes find each other), the key
 * "name{k=v,...}" into key. 0, or -1 with *why. */
static int parse_line(char *s, char **name, label **l, size_t *n, double *v, double *t,
                      jl__strbuf *key, const char **why)
{
    *l = NULL;
    *n = 0;
    char *p = s;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == ':')
        p++;
    if (p == s) {
        *why = "expected a metric name";
        return -1;
    }
    *name = s;
    size_t cap = 0;
    jl__strbuf_append(key, s, (size_t)(p - s));
    if (*p == '{') {
        *p++ = '\0';
        for (;;) {
            while (*p == ' ' || *p == ',')
                p++;
            if (*p == '}') {
                p++;
                break;
            }
            char *k = p;
            while (isalnum((unsigned char)*p) || *p == '_')
                p++;
            if (p == k || *p != '=' || p[1] != '"') {
                *why = "expected label=\"value\"";
                return -1;
            }
            *p = '\0';
            p += 2;
            char *val = p, *w = p;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1]) {
                    p++;
                    *w++ = *p == 'n' ? '\n' : *p;
                    p++;
                } else {
                    *w++ = *p++;
                }
            }
            if (*p != '"') {
                *why = "a label value without its closing quote";
                return -1;
            }
            p++;
            *w = '\0';
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                label *nl = realloc(*l, cap * sizeof *nl);
                if (!nl) {
                    *why = "out of memory";
                    return -1;
                }
                *l = nl;
            }
            (*l)[*n].k = jl__strdup(k);
            (*l)[*n].v = jl__strdup(val);
            (*n)++;
            if (!(*l)[*n - 1].k || !(*l)[*n - 1].v) {
                *why = "out of memory";
                return -1;
            }
        }
    } else if (*p == ' ' || *p == '\t') {
        *p++ = '\0';
    } else {
        *why = "expected '{' or a space after the metric name";
        return -1;
    }
    /* sorted labels in the key (qsort: a line of many labels costs n log n) */
    if (*n > 1)
        qsort(*l, *n, sizeof **l, cmp_label);
    for (size_t i = 0; i < *n; i++)
        jl__strbuf_printf(key, "%c%s=%s", i ? ',' : '{', (*l)[i].k, (*l)[i].v);
    while (*p == ' ' || *p == '\t')
        p++;
    char *vs = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    char save = *p;
    *p = '\0';
    int ok = prom_value(vs, v);
    *p = save;
    if (ok < 0) {
        *why = "expected a sample value";
        return -1;
    }
    if (!ok)
        *v = NAN;
    while (*p == ' ' || *p == '\t')
        p++;
    char *end = NULL;
    if (!*p) {
        /* one scrape of the exporter's /metrics: no time per sample, no
         * series; what gives joules the series, as commands to run */
        *why = "a sample without its timestamp: this is one scrape of the exporter (its /metrics "
               "page), which has no time per sample and no series over time. Ask Prometheus for "
               "the series, one query per file: `curl -sG http://PROMETHEUS:9090/api/v1/"
               "query_range --data-urlencode query=DCGM_FI_DEV_POWER_USAGE --data-urlencode "
               "start=START --data-urlencode end=END --data-urlencode step=1s > power.json` "
               "(START, END: RFC 3339 or Unix seconds; DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION "
               "likewise), or record a scrape archive with each sample's time in ms while the "
               "runs go: `while sleep 1; do curl -s http://HOST:9400/metrics | awk -v "
               "t=$(date +%s%3N) '/^DCGM_FI_DEV_(POWER_USAGE|TOTAL_ENERGY_CONSUMPTION)[{]/ "
               "{print $0, t}'; done >> scrape.txt`";
        return -1;
    }
    *t = strtod(p, &end) / 1000.0;
    while (end && (*end == ' ' || *end == '\t' || *end == '\r'))
        end++;
    if (!end || end == p || *end || !isfinite(*t)) {
        *why = "expected a timestamp in milliseconds after the value";
        return -1;
    }
    return 0;
}

/* The text format's series of key (its metric and labels), through a hash
 * of the keys: N series cost linear time, not a scan per sample. */
static series *find_series(prom *p, int m, const char *key)
{
    const jl__strmap_entry *e = jl__strmap_find(&p->series_of, key);
    return e && p->s[e->value].metric == m ? &p->s[e->value] : NULL;
}

static int read_text(prom *p, FILE *f, const char *file)
{
    long long line = 0;
    char *buf = NULL;
    size_t bcap = 0;
    jl__strbuf key;
    jl__strbuf_init(&key);
    int rc = 0;
    while (!rc) {
        long long got = jl__getline_max(f, &buf, &bcap, JL__IMP_MAX_LINE);
        if (got == -1)
            break;
        if (got < -1) {
            if (got == -3) {
                rc = -1;
                break;
            }
            jl__imp_err(p->c, JL_ELIMIT, file, NULL, line + 1,
                        "a line longer than %zu bytes: not a Prometheus scrape (the text "
                        "format's lines are one sample each)",
                        JL__IMP_MAX_LINE);
            rc = -2;
            break;
        }
        if (memchr(buf, '\0', (size_t)got)) {
            jl__imp_err(p->c, JL_EFORMAT, file, NULL, line + 1,
                        "a NUL byte in the line: not the text exposition format");
            rc = -2;
            break;
        }
        char *s = buf, *e = buf + got;
        if (e > s && e[-1] == '\n')
            *--e = '\0';
        if (e > s && e[-1] == '\r')
            e[-1] = '\0';
        line++;
        char *q = s;
        while (*q == ' ' || *q == '\t')
            q++;
        if (!*q || *q == '#')
            continue;
        char *name;
        label *l;
        size_t n;
        double v, t;
        const char *why = NULL;
        key.len = 0;
        if (key.data)
            key.data[0] = '\0';
        if (parse_line(q, &name, &l, &n, &v, &t, &key, &why)) {
            labels_free(l, n);
            jl__imp_err(p->c, JL_EFORMAT, file, NULL, line, "%s", why);
            rc = -2;
            break;
        }
        int m = metric_of(name);
        if (m < 0) {
            p->ignored++;
            labels_free(l, n);
            continue;
        }
        series *sr = find_series(p, m, key.data);
        if (sr) {
            labels_free(l, n);
        } else {
            int no_gpu = 0, added;
            char *k = jl__strdup(key.data);
            if (!k || !(sr = series_new(p, m, l, n, k, file, &no_gpu)) ||
                !jl__strmap_add(&p->series_of, sr->key, (size_t)(sr - p->s), &added)) {
                if (sr) {
                    rc = -1; /* out of memory: the series is the prom's, freed with it */
                    break;
                }
                if (!k)
                    labels_free(l, n);
                if (!no_gpu) {
                    rc = -1;
                    break;
                }
                jl__imp_note(p->c, file, name,
                             "series without a UUID or gpu label (which GPU?) left out");
                continue;
            }
        }
        if (!isfinite(v))
            continue;
        if (sr->has_last && t < sr->last) {
            jl__imp_err(p->c, JL_EINVALID, file, name, line,
                        "time goes backwards in a series (%.3f after %.3f)", t, sr->last);
            rc = -2;
            break;
        }
        if (sr->has_last && t == sr->last)
            continue; /* the same sample scraped twice */
        int r = series_add(p, sr, t, v);
        if (r == -2) {
            jl__imp_err(p->c, JL_ELIMIT, file, name, line, "more than %zu samples", p->max_samples);
            rc = -2;
        } else if (r) {
            rc = -1;
        }
    }
    if (!rc && ferror(f)) {
        jl__imp_err(p->c, JL_EIO, file, NULL, line, "read error");
        rc = -2;
    }
    free(buf);
    jl__strbuf_free(&key);
    return rc;
}

/* ---- runs ------------------------------------------------------------------------ */

typedef struct opts {
    const char *runs_csv, *runs_by, *timezone;
    jl_kv *set;
    size_t n_set;
} opts;

/* One run to build: its name, window, GPUs and the series it takes. */
typedef struct want {
    char *name;
    double start, end; /* NaN: the series' own span (--runs-by) */
    size_t *gpus;
    size_t n_gpus;
    const char *label_key; /* --runs-by: the value the run's series carry */
    char *label_value;
    jl_kv *attrs; /* RUNS.csv's other columns */
    size_t n_attrs;
    long long line;
    size_t idx; /* its place in the list (series.run) */
} want;

/* The series in (run, GPU, metric) order (the run: --runs-by's, else 0),
 * so a run's series of one GPU and metric are one range, found by a
 * binary search: building R runs of S series costs (R + S) log S, not a
 * scan of every series per run. */
typedef struct skey {
    size_t run, gpu;
    int metric;
    size_t idx;
} skey;

static int cmp_skey(const void *a, const void *b)
{
    const skey *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->metric != y->metric)
        return x->metric < y->metric ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int index_series(prom *p, int by_run)
{
    free(p->ord);
    p->ord = jl__malloc_array(p->n_s ? p->n_s : 1, sizeof *p->ord);
    if (!p->ord)
        return -1;
    for (size_t i = 0; i < p->n_s; i++)
        p->ord[i] = (skey){by_run ? p->s[i].run : 0, p->s[i].gpu, p->s[i].metric, i};
    if (p->n_s)
        qsort(p->ord, p->n_s, sizeof *p->ord, cmp_skey);
    return 0;
}

/* The first entry of p->ord at or after (run, gpu, metric). */
static size_t ord_lower(const prom *p, size_t run, size_t gpu, int metric)
{
    skey k = {run, gpu, metric, 0};
    size_t lo = 0, hi = p->n_s;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_skey(&p->ord[mid], &k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Value of a series at time x: linear between its samples, NaN outside
 * its span. *k: where the search starts (t[*k] <= x; advanced). */
static double at(const double *t, const double *v, size_t n, double x, size_t *k)
{
    if (!n || x < t[0] || x > t[n - 1])
        return NAN;
    while (*k + 1 < n && t[*k + 1] <= x)
        (*k)++;
    if (t[*k] == x || *k + 1 >= n)
        return v[*k];
    double a = t[*k], b = t[*k + 1];
    return jl__imp_lerp(a, v[*k], b, v[*k + 1], x);
}

typedef struct merged {
    double *t, *v;
    size_t n;
} merged;

/* The samples of metric m of GPU g in run w, merged over its series in time
 * order (a GPU's pod label is one series per pod). */
static int merged_of(const prom *p, const want *w, size_t g, int m, merged *out)
{
    memset(out, 0, sizeof *out);
    size_t run = w->label_value ? w->idx : 0, lo = ord_lower(p, run, g, m), hi = lo, n = 0;
    while (hi < p->n_s && p->ord[hi].run == run && p->ord[hi].gpu == g && p->ord[hi].metric == m)
        n += p->s[p->ord[hi++].idx].n;
    if (!n)
        return 0;
    double *pairs = jl__malloc_array(2 * n, sizeof *pairs);
    if (!pairs)
        return -1;
    size_t k = 0;
    for (size_t o = lo; o < hi; o++) {
        const series *sr = &p->s[p->ord[o].idx];
        for (size_t j = 0; j < sr->n; j++) {
            pairs[2 * k] = sr->t[j];
            pairs[2 * k + 1] = sr->v[j];
            k++;
        }
    }
    /* sort pairs by time (qsort on 2-double records; glibc's is a stable
     * merge sort, so samples already in order, as one series' are, stay
     * as they are without it) */
    size_t sorted = 1;
    while (sorted < n && pairs[2 * sorted] >= pairs[2 * sorted - 2])
        sorted++;
    if (sorted < n)
        qsort(pairs, n, 2 * sizeof *pairs, jl__cmp_double);
    out->t = malloc(n * sizeof *out->t);
    out->v = malloc(n * sizeof *out->v);
    if (!out->t || !out->v) {
        free(pairs);
        free(out->t);
        free(out->v);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (out->n && pairs[2 * i] == out->t[out->n - 1])
            continue; /* one time twice (two series overlapping): the first */
        out->t[out->n] = pairs[2 * i];
        out->v[out->n++] = pairs[2 * i + 1];
    }
    free(pairs);
    return 0;
}

static void merged_free(merged *m)
{
    free(m->t);
    free(m->v);
}

static const char *const required[] = {"workload",  "model",          "task",
                                       "precision", "max_batch_size", NULL};

/* Set the attributes a run must have: RUNS.csv's columns, then --set, then
 * a label of the same name on its series; one missing is an error naming
 * it (never a placeholder). */
static int run_attrs(prom *p, const opts *o, const want *w, jl_run *r, const series *first)
{
    jl_attrs *a = &r->attrs;
    for (size_t i = 0; i < o->n_set; i++) { /* --set, then RUNS.csv over it */
        const char *why = jl__imp_set_attr(a, o->set[i].key, o->set[i].value);
        if (why) {
            jl__imp_err(p->c, JL_EUSAGE, NULL, o->set[i].key, -1, "--set %s: %s", o->set[i].key,
                        why);
            return -1;
        }
    }
    for (size_t i = 0; i < w->n_attrs; i++) {
        const char *why = jl__imp_set_attr(a, w->attrs[i].key, w->attrs[i].value);
        if (why) {
            jl__imp_err(p->c, JL_EINVALID, o->runs_csv, w->attrs[i].key, w->line, "run %s: %s",
                        w->name, why);
            return -1;
        }
    }
    jl__strbuf miss;
    jl__strbuf_init(&miss);
    for (const char *const *k = required; *k; k++) {
        int have = !strcmp(*k, "workload")    ? a->workload != NULL
                   : !strcmp(*k, "model")     ? a->model != NULL
                   : !strcmp(*k, "task")      ? a->task != NULL
                   : !strcmp(*k, "precision") ? a->precision != NULL
                                              : a->max_batch_size >= 1;
        const char *lv = first ? label_get(first->labels, first->n_labels, *k) : NULL;
        if (!have && lv && !jl__imp_set_attr(a, *k, lv))
            have = 1;
        if (!have)
            jl__strbuf_printf(&miss, "%s%s", miss.len ? ", " : "", *k);
    }
    if (miss.len) {
        jl__imp_err(p->c, JL_EMISSING,
                    o->runs_csv ? o->runs_csv
                    : first     ? first->file
                                : NULL,
                    "run", w->line,
                    "run %s: no %s (a RUNS.csv column, --set KEY=VALUE, or a label of that "
                    "name on its series): joules writes no placeholder",
                    w->name, miss.data);
        jl__strbuf_free(&miss);
        return -1;
    }
    jl__strbuf_free(&miss);
    return 0;
}

/* Run w's time grid: every time a GPU of the run reported the base
 * metric (power, else energy) inside the window, plus the window's edges,
 * cut to the span all its GPUs cover. 0, -1 out of memory, -2 an error
 * (pushed). */
static int run_grid(prom *p, const opts *o, const want *w, const merged *ms, int base,
                    double **grid_out, size_t *n_out)
{
    size_t G = w->n_gpus;
    double lo = isnan(w->start) ? -INFINITY : w->start, hi = isnan(w->end) ? INFINITY : w->end;
    for (size_t g = 0; g < G; g++) {
        const merged *b = &ms[g * M_COUNT + base];
        if (b->t[0] > lo)
            lo = b->t[0];
        if (b->t[b->n - 1] < hi)
            hi = b->t[b->n - 1];
    }
    if (!(hi > lo)) {
        jl__imp_err(p->c, JL_ENODATA, o->runs_csv, "run", w->line,
                    "run %s: its GPUs' samples do not overlap in its window", w->name);
        return -2;
    }
    if ((!isnan(w->start) && lo > w->start) || (!isnan(w->end) && hi < w->end))
        jl__imp_note(p->c, o->runs_csv, "run",
                     "a run's window reaches beyond its GPUs' samples: cut to the samples");
    size_t cap = 2;
    for (size_t g = 0; g < G; g++)
        cap += ms[g * M_COUNT + base].n;
    double *grid = malloc(cap * sizeof *grid);
    if (!grid)
        return -1;
    size_t N = 0;
    grid[N++] = lo; /* the window's edges exactly: interpolated, not the nearest sample */
    for (size_t g = 0; g < G; g++) {
        const merged *b = &ms[g * M_COUNT + base];
        for (size_t i = 0; i < b->n; i++)
            if (b->t[i] > lo && b->t[i] < hi)
                grid[N++] = b->t[i];
    }
    grid[N++] = hi;
    size_t sorted = 1;
    while (sorted < N && grid[sorted] >= grid[sorted - 1])
        sorted++;
    if (sorted < N)
        qsort(grid, N, sizeof *grid, jl__cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < N; i++)
        if (!u || grid[i] > grid[u - 1])
            grid[u++] = grid[i];
    *grid_out = grid;
    *n_out = u;
    return 0;
}

/* r's power/ and gpu/ series on the grid: each GPU's samples of each
 * metric every GPU of the run has, interpolated (outside a metric's own
 * span: its nearest sample). Arrays belong to r as soon as they exist.
 * 0 or -1 (out of memory). */
static int fill_series(jl_run *r, const merged *ms, size_t G, const double *grid, size_t N)
{
    r->power_n = N;
    if (!(r->power_time = malloc(N * sizeof *r->power_time)))
        return -1;
    for (size_t i = 0; i < N; i++)
        r->power_time[i] = grid[i] - grid[0];
    jl_series *dst[M_COUNT] = {&r->watts,          &r->energy_j,     &r->sm_util, &r->mem_util,
                               &r->mem_used_bytes, &r->sm_clock_mhz, &r->temp_c};
    int any_gpu = 0;
    for (int m = 0; m < M_COUNT; m++) {
        if (!dst[m])
            continue; /* context, not a series (cap_context) */
        int all = 1;
        for (size_t g = 0; g < G; g++)
            all &= ms[g * M_COUNT + m].n > (m == M_ENERGY ? 1u : 0u);
        if (!all)
            continue;
        double *v = malloc(N * G * sizeof *v);
        if (!v)
            return -1;
        *dst[m] = (jl_series){N, G, v};
        any_gpu |= m != M_POWER && m != M_ENERGY;
        for (size_t g = 0; g < G; g++) {
            const merged *b = &ms[g * M_COUNT + m];
            size_t k = 0;
            for (size_t i = 0; i < N; i++) {
                double x = at(b->t, b->v, b->n, grid[i], &k);
                if (isnan(x))
                    x = grid[i] < b->t[0] ? b->v[0] : b->v[b->n - 1];
                v[i * G + g] = x;
            }
        }
    }
    if (any_gpu) {
        r->gpu_n = N;
        if (!(r->gpu_time = malloc(N * sizeof *r->gpu_time)))
            return -1;
        memcpy(r->gpu_time, r->power_time, N * sizeof *r->gpu_time);
    }
    return 0;
}

/* r's attributes: its GPUs' one model (modelName), the required ones
 * (run_attrs), where it came from. 0, -1 out of memory, -2 an error. */
static int run_identity(prom *p, const opts *o, const want *w, jl_run *r, int base,
                        const char *const *by, size_t n_by)
{
    size_t G = w->n_gpus;
    const char *mn = p->g[w->gpus[0]].model_name;
    for (size_t g = 1; g < G; g++) {
        const char *o2 = p->g[w->gpus[g]].model_name;
        if ((mn == NULL) != (o2 == NULL) || (mn && strcmp(mn, o2))) {
            jl__imp_err(p->c, JL_EINVALID, o->runs_csv, "modelName", w->line,
                        "run %s: GPUs of different models (%s, %s): one run is one "
                        "configuration",
                        w->name, mn ? mn : "?", o2 ? o2 : "?");
            return -2;
        }
    }
    if (mn) {
        char id[128];
        double mem = NAN;
        jl__imp_gpu_name(mn, id, sizeof id, &mem);
        if (!(r->attrs.gpu_model = jl__strdup(id)))
            return -1;
        if (isfinite(mem))
            r->attrs.gpu_memory_bytes = mem;
    }
    const series *first = NULL;
    size_t run = w->label_value ? w->idx : 0, f = ord_lower(p, run, w->gpus[0], base);
    if (f < p->n_s && p->ord[f].run == run && p->ord[f].gpu == w->gpus[0] &&
        p->ord[f].metric == base)
        first = &p->s[p->ord[f].idx];
    if (run_attrs(p, o, w, r, first))
        return -2;
    if (!r->attrs.gpu_model) {
        jl__imp_err(p->c, JL_EMISSING, o->runs_csv, "gpu_model", w->line,
                    "run %s: no modelName label and no gpu_model given (--set gpu_model=H100)",
                    w->name);
        return -2;
    }
    jl__strbuf where;
    jl__strbuf_init(&where);
    for (size_t g = 0; g < G; g++)
        jl__strbuf_printf(&where, "%s%s%s%s", g ? "," : "", p->g[w->gpus[g]].host,
                          *p->g[w->gpus[g]].host ? ":" : "", p->g[w->gpus[g]].id);
    jl__imp_extra_str(p->c, r, "prometheus_gpus", where.data ? where.data : "");
    jl__strbuf_free(&where);
    if (w->label_value)
        jl__imp_extra_str(p->c, r, "prometheus_runs_by", w->label_value);
    jl__imp_extra_str(p->c, r, "power_source",
                      r->energy_j.v ? "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (counter)"
                                    : "DCGM_FI_DEV_POWER_USAGE");
    /* power/@watts_kind: DCGM_FI_DEV_POWER_USAGE is NVML's plain reading, a
     * 1-s average on Ampere and newer; unknown without a GPU model */
    if (r->watts.v && (mn || r->attrs.gpu_model)) {
        free(r->power_watts_kind);
        r->power_watts_kind = jl__strdup(
            jl__imp_gpu_before_ampere(mn ? mn : r->attrs.gpu_model) ? "instant" : "average_1s");
        if (!r->power_watts_kind)
            return -1;
    }
    return 0;
}

/* The power-cap context of run r (issue 37): DCGM's enforced power limit
 * (the lowest of its GPUs and samples in the window) and the throttle
 * reasons' bit mask (NVML's: 0x4 SW power cap, 0x80 HW power brake; 0x8 HW
 * slowdown, 0x20 SW thermal, 0x40 HW thermal), as the nvidia-smi importer
 * keeps them (docs/import.md, "Power caps"). */
static void cap_context(prom *p, jl_run *r, const merged *ms, size_t G, double t0, double t1)
{
    double enf = NAN;
    size_t n = 0, capped = 0, slowed = 0;
    for (size_t g = 0; g < G; g++) {
        const merged *e = &ms[g * M_COUNT + M_ENF_LIMIT], *th = &ms[g * M_COUNT + M_THROTTLE];
        for (size_t i = 0; i < e->n; i++)
            if (e->t[i] >= t0 && e->t[i] <= t1 && e->v[i] > 0 && !(e->v[i] >= enf))
                enf = e->v[i];
        for (size_t i = 0; i < th->n; i++) {
            if (th->t[i] < t0 || th->t[i] > t1 || !(th->v[i] >= 0) || th->v[i] > 1e18)
                continue;
            unsigned long long m = (unsigned long long)th->v[i];
            n++;
            capped += (m & 0x84u) != 0;
            slowed += (m & 0x68u) != 0;
        }
    }
    if (isfinite(enf)) {
        jl__imp_extra_num(p->c, r, "enforced_power_limit_w", enf);
        if (isnan(r->attrs.gpu_tdp_w) || enf < r->attrs.gpu_tdp_w)
            r->attrs.gpu_tdp_w = enf;
    }
    if (!n)
        return;
    double cs = (double)capped / (double)n, ss = (double)slowed / (double)n;
    jl__imp_extra_num(p->c, r, "power_capped_share", cs);
    jl__imp_extra_num(p->c, r, "clocks_throttled_share", ss);
    if (cs >= 0.5)
        jl__imp_reason(p->c, r, JL__R_POWER_CAPPED, NAN, "",
                       "DCGM's throttle reasons say the power cap (SW power cap or HW power brake) "
                       "in %.0f %% of its %zu samples",
                       100 * cs, n);
    if (ss >= 0.5)
        jl__imp_reason(p->c, r, JL__R_CLOCKS_THROTTLED, NAN, "",
                       "DCGM's throttle reasons say a thermal or hardware slowdown in %.0f %% of "
                       "its %zu samples",
                       100 * ss, n);
}

/* Build run w from its GPUs' series (merged over the series of each). */
static void build_run(prom *p, const opts *o, want *w, const char *const *by, size_t n_by)
{
    size_t G = w->n_gpus, N = 0;
    merged *ms = calloc(G * M_COUNT, sizeof *ms);
    double *grid = NULL;
    jl_run *r = NULL;
    int rc = ms ? 0 : -1;
    for (size_t g = 0; g < G && !rc; g++)
        for (int m = 0; m < M_COUNT && !rc; m++)
            rc = merged_of(p, w, w->gpus[g], m, &ms[g * M_COUNT + m]);
    int has_power = 1, has_energy = 1;
    for (size_t g = 0; g < G && !rc; g++) {
        has_power &= ms[g * M_COUNT + M_POWER].n > 0;
        has_energy &= ms[g * M_COUNT + M_ENERGY].n > 1;
    }
    if (!rc && !has_power && !has_energy) {
        jl__imp_err(p->c, JL_EMISSING, o->runs_csv, "run", w->line,
                    "run %s: a GPU without %s or %s samples in its window", w->name,
                    metrics[M_POWER].name, metrics[M_ENERGY].name);
        rc = -2;
    }
    int base = has_power ? M_POWER : M_ENERGY;
    if (!rc)
        rc = run_grid(p, o, w, ms, base, &grid, &N);
    if (!rc && (!(r = jl_run_new()) || !(r->name = jl__imp_sanitize(w->name))))
        rc = -1;
    if (!rc) {
        r->attrs.num_gpus = (long)G;
        r->attrs.start_time_unix = grid[0];
        rc = fill_series(r, ms, G, grid, N);
    }
    if (!rc)
        rc = run_identity(p, o, w, r, base, by, n_by);
    if (!rc)
        cap_context(p, r, ms, G, grid[0], grid[N - 1]);
    if (!rc) {
        jl__imp_push_run(p->c, r);
        r = NULL;
    }
    if (rc == -1)
        p->c->oom = 1;
    jl_run_free(r);
    for (size_t i = 0; ms && i < G * M_COUNT; i++)
        merged_free(&ms[i]);
    free(ms);
    free(grid);
}

/* --runs-by L1,L2: one run per distinct value of the labels, on the GPUs
 * whose power or energy series carry it. */
static int plan_by(prom *p, const char *by_text, want **out, size_t *n_out, char ***by,
                   size_t *n_by)
{
    *out = NULL;
    *n_out = 0;
    char *copy = jl__strdup(by_text);
    if (!copy)
        return -1;
    size_t cap = 4;
    *by = calloc(cap, sizeof **by);
    *n_by = 0;
    if (!*by) {
        free(copy);
        return -1;
    }
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        if (*n_by == cap) {
            char **nb = realloc(*by, 2 * cap * sizeof *nb);
            if (!nb) {
                free(copy);
                return -1;
            }
            *by = nb;
            cap *= 2;
        }
        if (!((*by)[(*n_by)++] = jl__strdup(tok))) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    /* the runs by label value, and each run's GPUs, through hashes: S
     * series cost linear time, not a scan of the runs per series */
    jl__strmap runs = JL__STRMAP_INIT, run_gpus = JL__STRMAP_INIT;
    int rc = 0;
    size_t wcap = 0;
    for (size_t i = 0; i < p->n_s && !rc; i++) {
        series *s = &p->s[i];
        if (s->metric != M_POWER && s->metric != M_ENERGY)
            continue;
        jl__strbuf v;
        jl__strbuf_init(&v);
        int all = 1;
        for (size_t k = 0; k < *n_by && all; k++) {
            const char *x = label_get(s->labels, s->n_labels, (*by)[k]);
            if (!x || !*x)
                all = 0;
            else
                jl__strbuf_printf(&v, "%s%s", k ? "/" : "", x);
        }
        if (!all || !v.data) {
            jl__strbuf_free(&v);
            continue;
        }
        int added;
        const jl__strmap_entry *at = jl__strmap_add(&runs, v.data, *n_out, &added);
        if (!at) {
            jl__strbuf_free(&v);
            rc = -1;
            break;
        }
        want *w = NULL;
        if (!added) {
            w = &(*out)[at->value];
            jl__strbuf_free(&v);
        } else {
            if (*n_out == wcap) {
                size_t nc = wcap ? 2 * wcap : 16;
                want *nw = realloc(*out, nc * sizeof *nw);
                if (!nw) {
                    jl__strbuf_free(&v);
                    rc = -1;
                    break;
                }
                *out = nw;
                wcap = nc;
            }
            w = &(*out)[(*n_out)++];
            memset(w, 0, sizeof *w);
            w->start = w->end = NAN;
            w->line = -1;
            w->idx = *n_out - 1;
            w->label_value = v.data;
            w->name = jl__strdup(v.data);
            if (!w->name) {
                rc = -1;
                break;
            }
        }
        size_t key[2] = {w->idx, s->gpu};
        char gk[48];
        snprintf(gk, sizeof gk, "%zu:%zu", key[0], key[1]);
        if (!jl__strmap_add(&run_gpus, gk, 0, &added)) {
            rc = -1;
            break;
        }
        if (added) {
            size_t *ng = realloc(w->gpus, (w->n_gpus + 1) * sizeof *ng);
            if (!ng) {
                rc = -1;
                break;
            }
            w->gpus = ng;
            w->gpus[w->n_gpus++] = s->gpu;
        }
    }
    /* every series (any metric) to the run whose value its labels give */
    for (size_t i = 0; i < p->n_s && !rc; i++) {
        series *s = &p->s[i];
        jl__strbuf v;
        jl__strbuf_init(&v);
        int all = 1;
        for (size_t k = 0; k < *n_by && all; k++) {
            const char *x = label_get(s->labels, s->n_labels, (*by)[k]);
            if (!x)
                all = 0;
            else
                jl__strbuf_printf(&v, "%s%s", k ? "/" : "", x);
        }
        const jl__strmap_entry *at =
            all && v.data && s->run == (size_t)-1 ? jl__strmap_find(&runs, v.data) : NULL;
        if (at)
            s->run = at->value;
        jl__strbuf_free(&v);
    }
    jl__strmap_free(&runs);
    jl__strmap_free(&run_gpus);
    return rc;
}

/* A RUNS.csv row's gpus cell (host:UUID, UUID or index; NULL: every GPU). */
static int csv_gpus(prom *p, const opts *o, long long line, const char *gs, want *w)
{
    if (!(w->gpus = malloc((p->n_g ? p->n_g : 1) * sizeof *w->gpus)))
        return -1;
    if (!gs || !*gs) {
        for (size_t g = 0; g < p->n_g; g++)
            w->gpus[w->n_gpus++] = g;
        return 0;
    }
    char *copy = jl__strdup(gs);
    if (!copy)
        return -1;
    int rc = 0;
    for (char *tok = strtok(copy, "; "); tok && !rc; tok = strtok(NULL, "; ")) {
        char *colon = strrchr(tok, ':');
        const char *host = colon ? tok : NULL, *id = colon ? colon + 1 : tok;
        if (colon)
            *colon = '\0';
        size_t found = (size_t)-1, count = 0;
        for (size_t g = 0; g < p->n_g; g++)
            if (!strcmp(p->g[g].id, id) && (!host || !strcmp(p->g[g].host, host))) {
                found = g;
                count++;
            }
        if (count != 1) {
            jl__imp_err(p->c, JL_EINVALID, o->runs_csv, "gpus", line,
                        count ? "run %s: GPU '%s' is on several hosts: write host:%s"
                              : "run %s: no GPU '%s' in the series",
                        w->name, id, id);
            rc = -2;
        } else if (w->n_gpus < p->n_g) {
            w->gpus[w->n_gpus++] = found;
        }
    }
    free(copy);
    return rc;
}

/* RUNS.csv (kit_runs.c: run,start,end[,gpus][,attribute columns]); gpus
 * lists GPUs as host:id, id (UUID or index) when one host, separated by ';'
 * or spaces (none: every GPU). 0, -1 out of memory, -2 an error (pushed). */
static int plan_csv(prom *p, const opts *o, want **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    jl__zone *z = NULL;
    if (jl__csv_open_file(o->runs_csv, &csv, &err) != JL_OK) {
        jl_error_list_push(p->c->errors, err);
        return -2;
    }
    if (jl__zone_open(o->timezone ? o->timezone : "UTC", &z, &err) != JL_OK) {
        jl__csv_close(csv);
        jl_error_list_push(p->c->errors, err);
        return -2;
    }
    jl__imp_run_spec *specs = NULL;
    size_t n = 0;
    jl_status st = jl__imp_runs_read(csv, z, p->c->errors, &specs, &n);
    jl__csv_close(csv);
    jl__zone_free(z);
    if (st != JL_OK)
        return st == JL_ENOMEM ? -1 : -2;
    int rc = (*out = calloc(n, sizeof **out)) ? 0 : -1;
    for (size_t i = 0; i < n && !rc; i++) {
        jl__imp_run_spec *sp = &specs[i];
        want *w = &(*out)[i];
        (*n_out)++;
        w->line = sp->line;
        w->start = sp->start;
        w->end = sp->end;
        w->name = sp->name;
        sp->name = NULL;
        w->attrs = sp->attrs;
        w->n_attrs = sp->n_attrs;
        sp->attrs = NULL;
        sp->n_attrs = 0;
        const char *other = sp->requests             ? "requests"
                            : sp->log                ? "log"
                            : !isnan(sp->req_offset) ? "requests_offset"
                                                     : NULL;
        if (other) {
            jl__imp_err(p->c, JL_EINVALID, o->runs_csv, other, sp->line,
                        "run %s: column '%s' is one of nvidia-smi's RUNS.csv (a requests "
                        "file, a log per run); prometheus reads neither",
                        w->name, other);
            rc = -2;
        } else {
            rc = csv_gpus(p, o, sp->line, sp->gpus, w);
        }
    }
    jl__imp_run_specs_free(specs, n);
    return rc;
}

static void wants_free(want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(w[i].name);
        free(w[i].gpus);
        free(w[i].label_value);
        for (size_t k = 0; k < w[i].n_attrs; k++) {
            free(w[i].attrs[k].key);
            free(w[i].attrs[k].value);
        }
        free(w[i].attrs);
    }
    free(w);
}

/* ---- the importer ------------------------------------------------------------------- */

/* One file, streamed: the JSON through the streaming reader's own buffer
 * (1 MiB reads), the text format line by line; memory is the series'
 * samples, never the file. */
static int read_file(prom *p, const char *path)
{
    /* a FIFO or a device named by mistake is refused, not waited on */
    char why[128];
    int fd = jl__open_input(path, why, sizeof why);
    if (fd < 0) {
        jl__imp_err(p->c, JL_EIO, path, NULL, -1, "%s", why);
        return -2;
    }
    jl__input_read(path); /* the provenance's inputs */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return -1;
    }
    /* what it is: the first byte after a byte-order mark and white space */
    unsigned char head[3] = {0};
    size_t nh = fread(head, 1, 3, f);
    long skip = nh == 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0;
    int c;
    if (fseek(f, skip, SEEK_SET) != 0) {
        fclose(f);
        jl__imp_err(p->c, JL_EIO, path, NULL, -1, "cannot read: %s", strerror(errno));
        return -2;
    }
    while ((c = getc(f)) != EOF && isspace(c))
        ;
    int is_json = c == '{';
    int rc;
    if (fseek(f, skip, SEEK_SET) != 0) {
        jl__imp_err(p->c, JL_EIO, path, NULL, -1, "cannot read: %s", strerror(errno));
        rc = -2;
    } else if (is_json) {
        js j;
        jl__jstream_init_file(&j, f, 1 << 20, 1 << 20);
        j.off = skip; /* columns as in the file */
        j.col0 = skip;
        rc = read_json(p, &j, path);
        jl__jstream_free(&j);
    } else {
        rc = read_text(p, f, path);
    }
    fclose(f);
    return rc;
}

/* A file, or a folder of them (one query per file, e.g. a node's day as
 * 24 hourly query_range answers): its files in name order. */
static int read_input(prom *p, const char *path)
{
    if (!jl__imp_is_dir(path)) {
        /* a file named twice (or through a link) is read once */
        int first = jl__imp_claim_path(p->c, path);
        if (first == -1)
            return -1;
        return first == 0 ? 0 : read_file(p, path);
    }
    char **dirs = NULL, **files = NULL;
    size_t n_dirs = 0, n_files = 0;
    int listed = jl__imp_list_dir(p->c, path, &dirs, &n_dirs, &files, &n_files);
    if (listed == 1)
        return 0; /* the folder was read already, through another name */
    if (listed)
        return p->c->oom ? -1 : -2;
    int rc = 0;
    if (!n_files) {
        jl__imp_err(p->c, JL_ENODATA, path, NULL, -1,
                    "a folder without files (expected query_range JSON or scrape archives)");
        rc = -2;
    }
    for (size_t i = 0; i < n_files && rc != -1; i++) {
        char *full = jl__imp_join(p->c, path, files[i]);
        char **names = full ? realloc(p->names, (p->n_names + 1) * sizeof *names) : NULL;
        if (!names) {
            free(full);
            rc = -1;
            break;
        }
        p->names = names;
        p->names[p->n_names++] = full; /* series keep their file's name */
        int r = read_file(p, full);
        if (r && !rc)
            rc = r;
    }
    jl__imp_free_names(dirs, n_dirs);
    jl__imp_free_names(files, n_files);
    return rc;
}

static jl_status prom_import(const char *const *paths, size_t n_paths, const opts *o,
                             jl_import_result **out, jl_error_list *errors)
{
    *out = NULL;
    jl__imp c;
    if (jl__imp_start(&c, NULL, errors))
        return JL_ENOMEM;
    if (!!o->runs_csv == !!o->runs_by) {
        jl__imp_err(&c, JL_EUSAGE, NULL, NULL, -1,
                    o->runs_csv ? "--runs and --runs-by: give one"
                                : "how are the series cut into runs? --runs RUNS.csv "
                                  "(run,start,end[,gpus],...) or --runs-by LABEL[,LABEL] "
                                  "(e.g. pod)");
        return jl__imp_end(&c, JL_EUSAGE, out);
    }
    prom p = {0};
    p.c = &c;
    p.runs_by = o->runs_by;
    p.max_samples = 500000000;
    size_t files_ok = 0;
    for (size_t i = 0; i < n_paths && !c.oom; i++) {
        size_t before = errors->count;
        int rc = read_input(&p, paths[i]);
        if (rc == -1)
            c.oom = 1;
        else if (!rc && errors->count == before)
            files_ok++;
        c.res->n_files++;
    }
    want *w = NULL;
    size_t n_w = 0;
    char **by = NULL;
    size_t n_by = 0;
    jl_status st = JL_OK;
    if (!c.oom && files_ok) {
        int rc =
            o->runs_by ? plan_by(&p, o->runs_by, &w, &n_w, &by, &n_by) : plan_csv(&p, o, &w, &n_w);
        if (rc == -1)
            c.oom = 1;
        else if (rc == -2)
            st = JL_EUSAGE;
        else if (!n_w && o->runs_by)
            jl__imp_err(&c, JL_ENODATA, NULL, "runs-by", -1,
                        "no power or energy series carries the label%s %s", n_by > 1 ? "s" : "",
                        o->runs_by);
        if (n_w && index_series(&p, o->runs_by != NULL))
            c.oom = 1;
        for (size_t i = 0; i < n_w && !c.oom && st == JL_OK; i++) {
            build_run(&p, o, &w[i], (const char *const *)by, n_by);
            for (size_t k = o->runs_by ? ord_lower(&p, i, 0, 0) : p.n_s;
                 k < p.n_s && p.ord[k].run == i; k++) {
                series *sr = &p.s[p.ord[k].idx]; /* no other run takes it: its samples go */
                free(sr->t);
                free(sr->v);
                sr->t = sr->v = NULL;
                sr->n = sr->cap = 0;
            }
        }
    }
    if (p.ignored)
        jl__imp_note(&c, NULL, "metrics",
                     "samples of other metrics than the DCGM fields joules maps were left out");
    jl__imp_detail_num(&c, "series", (double)p.n_s);
    jl__imp_detail_num(&c, "gpus", (double)p.n_g);
    jl__imp_detail_num(&c, "samples", (double)p.n_samples);
    if (c.res && !c.oom)
        c.res->detail_text =
            jl__asprintf("%zu series of %zu GPUs, %zu samples", p.n_s, p.n_g, p.n_samples);
    wants_free(w, n_w);
    for (size_t i = 0; i < n_by; i++)
        free(by[i]);
    free(by);
    prom_free(&p);
    if (st != JL_OK)
        return jl__imp_end(&c, st, out);
    c.res->source = jl__strdup("Prometheus (DCGM exporter series)");
    return jl__imp_finish(&c, out, "the Prometheus series");
}

static const jl_importer_option prom_options[] = {
    {"runs", "RUNS.csv",
     "runs to cut: columns run,start,end then gpus (host:UUID or UUID/index, ';'-separated; "
     "none: every GPU) and any run attribute"},
    {"runs-by", "LABEL[,LABEL]", "one run per value of these labels (pod; namespace,pod; job)"},
    {"set", "KEY=VALUE", "a run attribute for every run (repeatable; RUNS.csv wins)"},
    {"timezone", "ZONE", "zone of RUNS.csv's times without an offset (default UTC)"},
    {NULL, NULL, NULL},
};

static jl_status prom_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                          size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    opts o = {0};
    jl_kv *set = calloc(n_args ? n_args : 1, sizeof *set);
    char **keys = calloc(n_args ? n_args : 1, sizeof *keys);
    jl_status st = set && keys ? JL_OK : JL_ENOMEM;
    for (size_t i = 0; i < n_args && st == JL_OK; i++) {
        const char *k = args[i].name, *v = args[i].value;
        if (!strcmp(k, "runs"))
            o.runs_csv = v;
        else if (!strcmp(k, "runs-by"))
            o.runs_by = v;
        else if (!strcmp(k, "timezone"))
            o.timezone = v;
        else if (!strcmp(k, "set")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v) {
                st = jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                    "--set wants KEY=VALUE, found '%s'", v);
                break;
            }
            if (!(keys[o.n_set] = jl__asprintf("%.*s", (int)(eq - v), v))) {
                st = JL_ENOMEM;
                break;
            }
            set[o.n_set].key = keys[o.n_set];
            set[o.n_set].value = (char *)(eq + 1);
            o.n_set++;
        }
    }
    o.set = set;
    if (st == JL_OK)
        st = prom_import(paths, n_paths, &o, out, errors);
    for (size_t i = 0; keys && i < n_args; i++)
        free(keys[i]);
    free(keys);
    free(set);
    return st;
}

const jl_importer jl__importer_prometheus = {
    .name = "prometheus",
    .summary = "a fleet's DCGM exporter series from Prometheus (query_range JSON, scrape text)",
    .paths = "FILE|DIR...",
    .description =
        "Import NVIDIA DCGM exporter series as Prometheus keeps them: the JSON of\n"
        "/api/v1/query_range (one query per file; matrix results) or the text exposition\n"
        "format with each sample's timestamp (a scrape archive); a folder is its files\n"
        "in name order (a node's day as hourly queries). Files are streamed. Reads\n"
        "DCGM_FI_DEV_POWER_USAGE (W), DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ: energy from\n"
        "the counter when scraped), GPU_UTIL, MEM_COPY_UTIL, FB_USED, SM_CLOCK, GPU_TEMP;\n"
        "a GPU is its Hostname (or instance) and UUID (or gpu) labels, its model the\n"
        "modelName label. Runs from a RUNS.csv or --runs-by LABEL (one run per pod or\n"
        "job, on the GPUs whose series carry it). A run's required attributes come from\n"
        "RUNS.csv, --set or a label of that name; one missing is an error, never a\n"
        "placeholder (import.md, \"Prometheus\").\n",
    .options = prom_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = prom_run,
};
