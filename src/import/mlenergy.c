/* Import of the ML.ENERGY Leaderboard's published data (joules/import.h;
 * the field mapping is docs/import.md), on the kit (kit.h): each file read
 * whole as a read-only tree (jl__imp_json_tree, duplicate keys noted),
 * walked configuration by configuration.
 *
 * jansson is used here only to write JSON text, where a tree is what the
 * writer takes: a value kept as an extra attribute that is an object or an
 * array becomes the compact text jl_json_dumps() writes from a jansson tree
 * (the bytes of every --json of joules; kept_text, with a cache of the
 * last two arrays), and a file-level histogram compared as that text. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "import/kit.h"
#include "joules/import.h"
#include "joules/output.h"
#include "json/json_internal.h"

/* Extras longer than this are not kept (HDF5 compact attributes hold 64 KiB). */
#define MAX_EXTRA_TEXT 60000
#define MAX_GPUS 1024

/* ---- context ---------------------------------------------------------------- */

/* What a known key of the Leaderboard's JSON is (key_of). */
typedef enum {
    K_NONE, /* not a key joules knows: kept as an extra attribute */
    K_SUMMARY,
    K_THROUGHPUT,
    K_INT,
    K_GPU_MODEL,
    K_FPS,
    K_NOTES,
    K_HISTOGRAM,
    K_MODEL_ID,
    K_TASK,
    K_PRECISION,
    K_PARAMS,
    K_MODEL_TEXT,
    K_CONFIGURATIONS,
    K_TIMELINES,
    K_KV_CACHE,
    K_PARALLELIZATION
} key_kind;

typedef struct key_slot {
    const char *key; /* NULL: empty */
    size_t klen;
    unsigned char kind, idx; /* idx: the row of summary_fields or int_fields */
} key_slot;

#define KEY_SLOTS 256 /* a power of two, over 4x the known keys */

typedef struct imp {
    jl__imp k;          /* the kit's context: options, result, errors, notes (indices folded) */
    jl__jv *index;      /* borrowed from the caller of import_doc; may be NULL */
    json_t *kept[2];    /* the last two arrays kept as JSON text, and their */
    char *kept_text[2]; /* text: the runs of a file share their histogram's bins */
    key_slot keys[KEY_SLOTS]; /* the known keys by hash (keys_init): one strcmp a key */
} imp;

static const char *json_kind(const jl__jv *v)
{
    switch (jv_typeof(v)) {
    case JV_OBJECT: return "an object";
    case JV_ARRAY: return "an array";
    case JV_STRING: return "a string";
    case JV_INTEGER: return "an integer";
    case JV_REAL: return "a number";
    case JV_TRUE:
    case JV_FALSE: return "a boolean";
    case JV_NULL: return "null";
    }
    return "something else";
}

/* Keep any JSON value as an extra attribute: numbers and strings as such,
 * booleans as "true"/"false", objects and arrays as compact JSON text. */
/* Arrays of the same scalars, bit for bit (so their JSON text is the same:
 * json_equal() takes -0.0 for 0.0). */
static int same_scalars(const jl__jv *a, const json_t *b)
{
    if (!jv_is_array(a) || !json_is_array(b) || jv_array_size(a) != json_array_size(b))
        return 0;
    for (size_t i = 0; i < jv_array_size(a); i++) {
        const jl__jv *x = jv_array_get(a, i);
        const json_t *y = json_array_get(b, i);
        if (jv_is_real(x)) {
            double dx = jv_real_value(x), dy = json_real_value(y);
            if (!json_is_real(y) || memcmp(&dx, &dy, sizeof dx))
                return 0;
        } else if (jv_is_integer(x)) {
            if (!json_is_integer(y) || jv_integer_value(x) != json_integer_value(y))
                return 0;
        } else if (jv_is_null(x)      ? !json_is_null(y)
                   : jv_is_true(x)    ? !json_is_true(y)
                   : jv_is_boolean(x) ? !json_is_false(y)
                                      : 1) {
            return 0; /* strings, containers: dumped afresh */
        }
    }
    return 1;
}

/* An array of integers, booleans and nulls (a histogram's counts) as
 * compact JSON text, the bytes jl_json_dumps writes for it ("%lld" each,
 * ',' between) without building jansson's tree; NULL for any other value
 * (or out of memory). */
static char *int_array_text(const jl__jv *v)
{
    if (!jv_is_array(v))
        return NULL;
    size_t n = jv_array_size(v);
    for (size_t i = 0; i < n; i++) {
        jv_type t = jv_typeof(jv_array_get(v, i));
        if (t != JV_INTEGER && t != JV_TRUE && t != JV_FALSE && t != JV_NULL)
            return NULL;
    }
    char *text = jl__malloc_array(n + 1, 22), *o = text; /* "-9223372036854775808," */
    if (!text)
        return NULL;
    *o++ = '[';
    for (size_t i = 0; i < n; i++) {
        const jl__jv *x = jv_array_get(v, i);
        if (i)
            *o++ = ',';
        const char *w = jv_is_integer(x) ? jl__imp_fmt_lld(o, jv_integer_value(x))
                        : jv_is_null(x)  ? strcpy(o, "null")
                        : jv_is_true(x)  ? strcpy(o, "true")
                                         : strcpy(o, "false");
        o += strlen(w);
    }
    strcpy(o, "]");
    return text;
}

/* The text of v when it is an array of the same scalars as one of the
 * last two kept (a copy; the caller frees); NULL otherwise or when out of
 * memory. Scalars only: the text is then the same with or without
 * JSON_SORT_KEYS. */
static char *cached_text(imp *c, const jl__jv *v)
{
    for (int k = 0; k < 2; k++)
        if (c->kept[k] && c->kept_text[k] && same_scalars(v, c->kept[k])) {
            if (k == 1) { /* most recently used first */
                json_t *j = c->kept[0];
                char *t = c->kept_text[0];
                c->kept[0] = c->kept[1];
                c->kept_text[0] = c->kept_text[1];
                c->kept[1] = j;
                c->kept_text[1] = t;
            }
            return jl__strdup(c->kept_text[0]);
        }
    return NULL;
}

/* v as compact JSON text (caller frees); an array of the same scalars as
 * one of the previous two (bins, counts) reuses its text instead of formatting every real with
 * %.17g again (~190 M instructions of the v3 import). */
static char *kept_text(imp *c, const jl__jv *v)
{
    char *text = int_array_text(v);
    if (text || (text = cached_text(c, v)))
        return text;
    json_t *j = jl__jv_to_json(v);
    text = j ? jl_json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
    if (text && jv_is_array(v)) { /* the older slot goes */
        json_decref(c->kept[1]);
        free(c->kept_text[1]);
        c->kept[1] = c->kept[0];
        c->kept_text[1] = c->kept_text[0];
        c->kept[0] = json_incref(j);
        c->kept_text[0] = jl__strdup(text);
    }
    json_decref(j);
    return text;
}

/* The JSON text of container v as extra `key`; a text too large is noted
 * instead (0). */
static int keep_text(imp *c, jl_run *r, const char *file, const char *field, const char *key,
                     const jl__jv *v, const char *text)
{
    size_t len = strlen(text);
    if (len > MAX_EXTRA_TEXT) {
        jl__imp_note(&c->k, file, field,
                     "%s too large to keep as an attribute (%zu bytes of JSON): not imported",
                     json_kind(v), len);
        return 0;
    }
    jl__imp_extra_str(&c->k, r, key, text);
    return 1;
}

static void keep_json(imp *c, jl_run *r, const char *file, const char *field, const char *key,
                      const jl__jv *v, int unknown)
{
    if (jv_is_null(v)) {
        jl__imp_note(&c->k, file, field, "null value: nothing to keep");
        return;
    }
    if (jv_is_number(v)) {
        jl__imp_extra_num(&c->k, r, key, jv_number_value(v));
    } else if (jv_is_string(v)) {
        jl__imp_extra_str(&c->k, r, key, jv_string_value(v));
    } else if (jv_is_boolean(v)) {
        jl__imp_extra_str(&c->k, r, key, jv_is_true(v) ? "true" : "false");
    } else {
        char *text = kept_text(c, v);
        if (!text) {
            c->k.oom = 1;
            return;
        }
        int kept = keep_text(c, r, file, field, key, v, text);
        free(text);
        if (!kept)
            return;
    }
    if (unknown)
        jl__imp_note(&c->k, file, field, "unknown field: kept as extra attribute '%s'", key);
}

/* A string into a typed field; a different earlier value is noted. */
static int set_string(imp *c, char **dst, const jl__jv *v, const char *file, const char *field)
{
    if (!jv_is_string(v)) {
        jl__imp_err(&c->k, JL_ETYPE, file, field, -1, "expected a string, found %s", json_kind(v));
        return -1;
    }
    const char *s = jv_string_value(v);
    if (*dst && strcmp(*dst, s))
        jl__imp_note(
            &c->k, file, field,
            "differs from an earlier value ('%s', index.json or the file); this one is used", *dst);
    char *d = jl__strdup(s);
    if (!d) {
        c->k.oom = 1;
        return -1;
    }
    free(*dst);
    *dst = d;
    return 0;
}

static int get_number(imp *c, const jl__jv *v, double *out, const char *file, const char *field)
{
    if (!jv_is_number(v)) {
        jl__imp_err(&c->k, JL_ETYPE, file, field, -1, "expected a number, found %s", json_kind(v));
        return -1;
    }
    *out = jv_number_value(v);
    if (!isfinite(*out)) {
        jl__imp_err(&c->k, JL_EINVALID, file, field, -1, "expected a finite number");
        return -1;
    }
    return 0;
}

static int get_nonneg(imp *c, const jl__jv *v, double *out, const char *file, const char *field)
{
    if (get_number(c, v, out, file, field))
        return -1;
    if (*out < 0) {
        jl__imp_err(&c->k, JL_EINVALID, file, field, -1, "expected a number >= 0, found %.17g",
                    *out);
        return -1;
    }
    return 0;
}

static int get_whole(imp *c, const jl__jv *v, long min, long max, long *out, const char *file,
                     const char *field)
{
    double d;
    if (!jv_is_number(v)) {
        jl__imp_err(&c->k, JL_ETYPE, file, field, -1, "expected a whole number, found %s",
                    json_kind(v));
        return -1;
    }
    d = jv_number_value(v);
    if (!isfinite(d) || d != floor(d) || d < (double)min || d > (double)max) {
        jl__imp_err(&c->k, JL_EINVALID, file, field, -1,
                    "expected a whole number in %ld..%ld, found %.17g", min, max, d);
        return -1;
    }
    *out = (long)d;
    return 0;
}

/* ---- model-level keys (index.json entries, file top level, task rows) ---------- */

/* kind: key_of(key). 1: handled, 0: not a model-level key, -1: error
 * (reported). */
static int model_key(imp *c, jl_run *r, const char *key, key_kind kind, const jl__jv *v,
                     const char *file, const char *field)
{
    double d;
    if (kind == K_MODEL_ID)
        return set_string(c, &r->attrs.model, v, file, field) ? -1 : 1;
    if (kind == K_TASK)
        return set_string(c, &r->attrs.task, v, file, field) ? -1 : 1;
    if (kind == K_PRECISION)
        return set_string(c, &r->attrs.precision, v, file, field) ? -1 : 1;
    if (kind == K_PARAMS) {
        if (jv_is_null(v)) {
            jl__imp_note(&c->k, file, field, "null value skipped");
            return 1;
        }
        if (get_nonneg(c, v, &d, file, field))
            return -1;
        double *dst = key[0] == 't' ? &r->attrs.total_params : &r->attrs.active_params;
        if (!isnan(*dst) && *dst != d * 1e9)
            jl__imp_note(
                &c->k, file, field,
                "differs from an earlier value (%.17g, index.json or the file); this one is used",
                *dst / 1e9);
        *dst = d * 1e9;
        return 1;
    }
    if (kind == K_MODEL_TEXT) {
        if (!jv_is_string(v)) {
            jl__imp_err(&c->k, JL_ETYPE, file, field, -1, "expected a string, found %s",
                        json_kind(v));
            return -1;
        }
        const char *old = jl__imp_extra_get(r, key);
        if (old && strcmp(old, jv_string_value(v)))
            jl__imp_note(
                &c->k, file, field,
                "differs from an earlier value ('%s', index.json or the file); this one is used",
                old);
        jl__imp_extra_str(&c->k, r, key, jv_string_value(v));
        return 1;
    }
    return 0;
}

/* ---- time series ------------------------------------------------------------------ */

typedef struct series {
    size_t n;
    double *t, *v;
} series;

static void series_free(series *s)
{
    free(s->t);
    free(s->v);
    s->t = s->v = NULL;
    s->n = 0;
}

static int read_series(imp *c, const jl__jv *obj, series *out, const char *file, const char *field)
{
    memset(out, 0, sizeof *out);
    if (!jv_is_object(obj)) {
        jl__imp_err(&c->k, JL_ETYPE, file, field, -1,
                    "expected an object {\"timestamps\", \"values\"}, found %s", json_kind(obj));
        return -1;
    }
    const jl__jv *ts = jv_object_get(obj, "timestamps"), *vs = jv_object_get(obj, "values");
    if (!jv_is_array(ts) || !jv_is_array(vs)) {
        jl__imp_err(&c->k, JL_ETYPE, file, field, -1,
                    "expected arrays \"timestamps\" and \"values\"");
        return -1;
    }
    const char *k;
    jl__jv *x;
    jv_object_foreach((jl__jv *)obj, k, x) if (strcmp(k, "timestamps") && strcmp(k, "values"))
        jl__imp_note(&c->k, file, field, "unknown key '%s' in a timeline: not imported", k);
    size_t n = jv_array_size(ts);
    if (n != jv_array_size(vs)) {
        jl__imp_err(&c->k, JL_EINVALID, file, field, -1, "%zu timestamps but %zu values", n,
                    jv_array_size(vs));
        return -1;
    }
    if (n > c->k.opt->max_series) {
        jl__imp_err(&c->k, JL_ELIMIT, file, field, -1, "%zu samples, more than the limit %zu", n,
                    c->k.opt->max_series);
        return -1;
    }
    if (n == 0)
        return 0;
    out->t = jl__malloc_array(n, sizeof *out->t);
    out->v = jl__malloc_array(n, sizeof *out->v);
    if (!out->t || !out->v) {
        series_free(out);
        c->k.oom = 1;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const jl__jv *a = jv_array_get(ts, i), *b = jv_array_get(vs, i);
        if (!jv_is_number(a) || !jv_is_number(b)) {
            jl__imp_err(&c->k, JL_ETYPE, file, field, -1,
                        "sample %zu: expected numbers, found %s and %s", i, json_kind(a),
                        json_kind(b));
            series_free(out);
            return -1;
        }
        out->t[i] = jv_number_value(a);
        out->v[i] = jv_number_value(b);
        if (!isfinite(out->t[i]) || !isfinite(out->v[i])) {
            jl__imp_err(&c->k, JL_EINVALID, file, field, -1, "sample %zu: not finite", i);
            series_free(out);
            return -1;
        }
        if (i && out->t[i] < out->t[i - 1]) {
            jl__imp_err(&c->k, JL_EINVALID, file, field, -1,
                        "timestamps not non-decreasing at sample %zu (%.17g after %.17g)", i,
                        out->t[i], out->t[i - 1]);
            series_free(out);
            return -1;
        }
    }
    out->n = n;
    return 0;
}

/* Value of s at time t: linear between samples, held at the ends. */
static double interp_linear(const series *s, double t)
{
    if (t <= s->t[0])
        return s->v[0];
    if (t >= s->t[s->n - 1])
        return s->v[s->n - 1];
    size_t lo = 0, hi = s->n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double dt = s->t[hi] - s->t[lo];
    return dt > 0 ? s->v[lo] + (s->v[hi] - s->v[lo]) * (t - s->t[lo]) / dt : s->v[hi];
}

/* Value of s at time t: the last sample at or before t (the first before it). */
static double interp_hold(const series *s, double t)
{
    if (t < s->t[0])
        return s->v[0];
    size_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return s->v[lo];
}

static int same_times(const series *a, const series *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->t[i] != b->t[i])
            return 0;
    return 1;
}

/* [n, G] from one column: each GPU gets v * scale. */
static double *spread(imp *c, const double *v, size_t n, size_t G, double scale)
{
    size_t total;
    if (!jl__mul_size(n, G, &total)) {
        c->k.oom = 1;
        return NULL;
    }
    double *out = jl__malloc_array(total ? total : 1, sizeof *out);
    if (!out) {
        c->k.oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++)
            out[i * G + g] = v[i] * scale;
    return out;
}

/* The timelines of one configuration, as read. */
typedef struct tl_set {
    series pi, pa, te, bs, kv; /* power_instant, power_average, temperature, batch_size, KV */
} tl_set;

static void timelines_free(tl_set *t)
{
    series_free(&t->pi);
    series_free(&t->pa);
    series_free(&t->te);
    series_free(&t->bs);
    series_free(&t->kv);
}

/* One member of `timelines`: k names the series. 0 or -1 (reported). */
static int read_timeline(imp *c, tl_set *t, const char *k, const jl__jv *x, const char *file,
                         const char *sub)
{
    series *dst = !strcmp(k, "power_instant")                                              ? &t->pi
                  : !strcmp(k, "power_average")                                            ? &t->pa
                  : !strcmp(k, "temperature")                                              ? &t->te
                  : !strcmp(k, "batch_size")                                               ? &t->bs
                  : (!strcmp(k, "kv_cache_usage_percent") || !strcmp(k, "kv_cache_usage")) ? &t->kv
                                                                                           : NULL;
    if (!dst) {
        jl__imp_note(&c->k, file, sub, "unknown timeline: not imported");
        return 0;
    }
    if (jv_is_null(x)) {
        jl__imp_note(&c->k, file, sub, "null timeline skipped");
        return 0;
    }
    if (dst->t) {
        jl__imp_err(&c->k, JL_EINVALID, file, sub, -1, "KV-cache timeline given twice");
        return -1;
    }
    if (read_series(c, x, dst, file, sub))
        return -1;
    if (dst == &t->kv && !strcmp(k, "kv_cache_usage"))
        for (size_t i = 0; i < t->kv.n; i++)
            t->kv.v[i] *= 100.0; /* stored below as a share: keep one convention */
    return 0;
}

/* timelines: {power_instant, ...} and the configuration's own
 * kv_cache_usage_percent timeline. 0 or -1 (reported). */
static int read_timelines(imp *c, tl_set *t, const jl__jv *tl, const jl__jv *kv_tl,
                          const char *file, const char *field)
{
    if (!jv_is_object(tl) && tl) {
        jl__imp_err(&c->k, JL_ETYPE, file, field, -1, "expected an object of timelines, found %s",
                    json_kind(tl));
        return -1;
    }
    const char *k;
    jl__jv *x;
    if (tl)
        jv_object_foreach((jl__jv *)tl, k, x)
        {
            char *sub = jl__asprintf("%s.%s", field, k);
            int rc = sub ? read_timeline(c, t, k, x, file, sub) : -1;
            if (!sub)
                c->k.oom = 1;
            free(sub);
            if (rc)
                return -1;
        }
    if (kv_tl) {
        if (t->kv.t) {
            jl__imp_err(&c->k, JL_EINVALID, file, field, -1, "KV-cache timeline given twice");
            return -1;
        }
        if (read_series(c, kv_tl, &t->kv, file, "kv_cache_usage_percent"))
            return -1;
    }
    return 0;
}

/* power/: power_instant (else power_average) as watts, power_average as
 * watts_avg (interpolated onto power_instant's times where they differ). */
static int power_series(imp *c, jl_run *r, const tl_set *t, const char *file, const char *field)
{
    const series *pi = &t->pi, *pa = &t->pa;
    size_t G = (size_t)r->attrs.num_gpus;
    const series *main = pi->n ? pi : pa;
    if (!pi->n)
        jl__imp_note(&c->k, file, field,
                     "power_average without power_instant: written as power/watts (the only "
                     "power timeline)");
    r->power_n = main->n;
    if (!(r->power_time = jl__malloc_array(main->n, sizeof *r->power_time))) {
        c->k.oom = 1;
        return -1;
    }
    memcpy(r->power_time, main->t, main->n * sizeof *main->t);
    /* one GPU's reading per value unless the source says it is the sum
     * over the GPUs (docs/import.md, "Timelines") */
    const double pscale = c->k.opt->timeline_power_is_sum ? 1.0 / (double)G : 1.0;
    if (!(r->watts.v = spread(c, main->v, main->n, G, pscale)))
        return -1;
    r->watts.n = main->n;
    r->watts.g = G;
    /* power/@watts_kind: Zeus' power_instant is NVML's POWER_INSTANT field,
     * its power_average the POWER_AVERAGE field (the last second's mean) */
    free(r->power_watts_kind);
    if (!(r->power_watts_kind = jl__strdup(pi->n ? "instant" : "average_1s"))) {
        c->k.oom = 1;
        return -1;
    }
    if (pi->n && pa->n) {
        double *avg = jl__malloc_array(pi->n, sizeof *avg);
        if (!avg) {
            c->k.oom = 1;
            return -1;
        }
        int same = same_times(pi, pa);
        for (size_t i = 0; i < pi->n; i++)
            avg[i] = same ? pa->v[i] : interp_linear(pa, pi->t[i]);
        if (!same)
            jl__imp_note(&c->k, file, field,
                         "power_average has its own timestamps: interpolated (linearly) onto "
                         "power_instant's for power/watts_avg");
        r->watts_avg.v = spread(c, avg, pi->n, G, pscale);
        free(avg);
        if (!r->watts_avg.v)
            return -1;
        r->watts_avg.n = pi->n;
        r->watts_avg.g = G;
    }
    if (G > 1)
        jl__imp_extra_str(&c->k, r, "imported_power_split",
                          c->k.opt->timeline_power_is_sum
                              ? "total / num_gpus per GPU (the source says each value is the sum)"
                              : "each value repeated on every GPU column (one GPU's reading: the "
                                "source merged all GPUs' points into one list)");
    return 0;
}

/* gpu/temp_c: the one published series, repeated per GPU. */
static int temp_series(imp *c, jl_run *r, const series *te)
{
    size_t G = (size_t)r->attrs.num_gpus;
    r->gpu_n = te->n;
    if (!(r->gpu_time = jl__malloc_array(te->n, sizeof *r->gpu_time))) {
        c->k.oom = 1;
        return -1;
    }
    memcpy(r->gpu_time, te->t, te->n * sizeof *te->t);
    if (!(r->temp_c.v = spread(c, te->v, te->n, G, 1.0)))
        return -1;
    r->temp_c.n = te->n;
    r->temp_c.g = G;
    if (G > 1)
        jl__imp_extra_str(&c->k, r, "imported_temperature",
                          "one published series, repeated per GPU");
    return 0;
}

/* engine/running from batch_size, engine/kv_cache_usage held onto its
 * times; a KV-cache timeline alone is kept as its time-weighted mean. */
static int engine_series(imp *c, jl_run *r, const series *bs, const series *kv, const char *file,
                         const char *field)
{
    if (!bs->n) {
        /* engine/ needs running: keep the time-weighted mean as a figure */
        double num = 0, den = 0;
        for (size_t i = 0; i + 1 < kv->n; i++) {
            num += kv->v[i] * (kv->t[i + 1] - kv->t[i]);
            den += kv->t[i + 1] - kv->t[i];
        }
        jl__imp_summary_num(&c->k, r, "avg_kv_cache_usage",
                            (den > 0 ? num / den : kv->v[0]) / 100.0);
        jl__imp_note(&c->k, file, field,
                     "KV-cache timeline without a batch_size timeline: engine/ needs running, so "
                     "only its time-weighted mean is kept (summary avg_kv_cache_usage)");
        return 0;
    }
    r->engine_n = bs->n;
    r->engine_time = jl__malloc_array(bs->n, sizeof *r->engine_time);
    r->running = jl__malloc_array(bs->n, sizeof *r->running);
    if (!r->engine_time || !r->running) {
        c->k.oom = 1;
        return -1;
    }
    for (size_t i = 0; i < bs->n; i++) {
        double v = bs->v[i];
        if (v < 0 || v > (double)INT32_MAX) {
            jl__imp_err(&c->k, JL_EINVALID, file, field, -1,
                        "batch_size sample %zu out of range (%.17g running sequences)", i, v);
            return -1;
        }
        r->engine_time[i] = bs->t[i];
        r->running[i] = (int32_t)lround(v);
    }
    if (!kv->n)
        return 0;
    if (!(r->kv_cache_usage = jl__malloc_array(bs->n, sizeof *r->kv_cache_usage))) {
        c->k.oom = 1;
        return -1;
    }
    int same = same_times(bs, kv);
    for (size_t i = 0; i < bs->n; i++)
        r->kv_cache_usage[i] = (float)((same ? kv->v[i] : interp_hold(kv, bs->t[i])) / 100.0);
    if (!same)
        jl__imp_note(&c->k, file, field,
                     "KV-cache timeline has its own timestamps: held (last value) onto "
                     "batch_size's for engine/kv_cache_usage");
    return 0;
}

/* timelines: {power_instant, power_average, temperature, batch_size, ...}.
 * kv is the configuration's kv_cache_usage_percent when it is a timeline. */
static int import_timelines(imp *c, jl_run *r, const jl__jv *tl, const jl__jv *kv_tl,
                            const char *file, const char *field)
{
    tl_set t = {0};
    int rc = read_timelines(c, &t, tl, kv_tl, file, field);
    if (!rc && (t.pi.n || t.pa.n))
        rc = power_series(c, r, &t, file, field);
    if (!rc && t.te.n)
        rc = temp_series(c, r, &t.te);
    if (!rc && (t.bs.n || t.kv.n))
        rc = engine_series(c, r, &t.bs, &t.kv, file, field);
    if (!rc && (r->power_n || r->gpu_n || r->engine_n)) {
        c->k.res->n_with_timelines++;
        /* spec 1.1: the published figures stay beside the series, named by
         * their source; the writer of these timelines kept only the
         * steady-state points, times from the window's start */
        jl__imp_extra_str(&c->k, r, "window", "steady_state_only");
        jl__imp_summary_str(&c->k, r, "source", "ML.ENERGY Leaderboard");
    }
    timelines_free(&t);
    return rc;
}

/* ---- configurations --------------------------------------------------------------- */

typedef struct summary_map {
    const char *key;
    size_t off; /* offset in jl_run_summary_attrs */
    double scale;
} summary_map;

#define SOFF(f) offsetof(jl_run_summary_attrs, f)
static const summary_map summary_fields[] = {
    {"energy_per_token_joules", SOFF(energy_per_token_j), 1.0},
    {"energy_per_request_joules", SOFF(energy_per_request_j), 1.0},
    {"avg_power_watts", SOFF(avg_power_w), 1.0},
    {"output_throughput_tokens_per_sec", SOFF(output_throughput_tok_s), 1.0},
    {"median_itl_ms", SOFF(median_itl_s), 1e-3},
    {"p90_itl_ms", SOFF(p90_itl_s), 1e-3},
    {"p95_itl_ms", SOFF(p95_itl_s), 1e-3},
    {"p99_itl_ms", SOFF(p99_itl_s), 1e-3},
    {"avg_batch_size", SOFF(avg_batch_size), 1.0},
    {"avg_output_len", SOFF(avg_output_tokens), 1.0},
    {"batch_latency_s", SOFF(batch_latency_s), 1.0},
    {"energy_per_image_joules", SOFF(energy_per_item_j), 1.0},
    {"energy_per_video_joules", SOFF(energy_per_item_j), 1.0},
};
#undef SOFF

/* Integer attributes: key -> field of jl_attrs (or an extra when off < 0). */
typedef struct int_map {
    const char *key;
    const char *extra; /* non-NULL: kept as this extra attribute */
    size_t off;
    long min;
} int_map;

#define AOFF(f) offsetof(jl_attrs, f)
static const int_map int_fields[] = {
    {"num_gpus", NULL, AOFF(num_gpus), 1},
    {"max_num_seqs", NULL, AOFF(max_batch_size), 1},
    {"batch_size", NULL, AOFF(max_batch_size), 1},
    {"tensor_parallel", NULL, AOFF(tensor_parallel), 0},
    {"expert_parallel", NULL, AOFF(expert_parallel), 0},
    {"data_parallel", NULL, AOFF(data_parallel), 0},
    {"inference_steps", NULL, AOFF(denoising_steps), 1},
    {"image_height", NULL, AOFF(height), 1},
    {"video_height", NULL, AOFF(height), 1},
    {"image_width", NULL, AOFF(width), 1},
    {"video_width", NULL, AOFF(width), 1},
    {"num_frames", NULL, AOFF(num_frames), 1},
    {"ulysses_degree", "ulysses_degree", 0, 0},
    {"ring_degree", "ring_degree", 0, 0},
};
#undef AOFF

/* The keys without a row in those tables. */
static const struct {
    const char *key;
    key_kind kind;
} other_keys[] = {
    {"throughput_images_per_sec", K_THROUGHPUT},
    {"throughput_videos_per_sec", K_THROUGHPUT},
    {"gpu_model", K_GPU_MODEL},
    {"fps", K_FPS},
    {"notes", K_NOTES},
    {"output_length_distribution", K_HISTOGRAM},
    {"model_id", K_MODEL_ID},
    {"task", K_TASK},
    {"weight_precision", K_PRECISION},
    {"total_params_billions", K_PARAMS},
    {"activated_params_billions", K_PARAMS},
    {"nickname", K_MODEL_TEXT},
    {"architecture", K_MODEL_TEXT},
    {"task_display_name", K_MODEL_TEXT},
    {"configurations", K_CONFIGURATIONS},
    {"timelines", K_TIMELINES},
    {"kv_cache_usage_percent", K_KV_CACHE},
    {"parallelization", K_PARALLELIZATION},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A key's slot to start from: its length and three of its bytes, mixed
 * (the known keys differ there; a collision only costs a probe). */
static size_t key_hash(const char *key, size_t len)
{
    uint32_t h = (uint32_t)len * 0x9E3779B1u;
    if (len)
        h ^= (uint32_t)(unsigned char)key[0] << 8 ^ (uint32_t)(unsigned char)key[len - 1] ^
             (uint32_t)(unsigned char)key[len / 2] << 16;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h & (KEY_SLOTS - 1);
}

static void key_put(imp *c, const char *key, key_kind kind, size_t idx)
{
    size_t len = strlen(key), h = key_hash(key, len);
    while (c->keys[h].key)
        h = (h + 1) & (KEY_SLOTS - 1);
    c->keys[h] = (key_slot){key, len, (unsigned char)kind, (unsigned char)idx};
}

/* Every known key into c->keys (each named once in the tables). */
static void keys_init(imp *c)
{
    for (size_t i = 0; i < N_OF(summary_fields); i++)
        key_put(c, summary_fields[i].key, K_SUMMARY, i);
    for (size_t i = 0; i < N_OF(int_fields); i++)
        key_put(c, int_fields[i].key, K_INT, i);
    for (size_t i = 0; i < N_OF(other_keys); i++)
        key_put(c, other_keys[i].key, other_keys[i].kind, 0);
}

/* The slot of a known key (len bytes); NULL for any other. */
static const key_slot *key_of(const imp *c, const char *key, size_t len)
{
    for (size_t h = key_hash(key, len); c->keys[h].key; h = (h + 1) & (KEY_SLOTS - 1))
        if (c->keys[h].klen == len && !memcmp(c->keys[h].key, key, len))
            return &c->keys[h];
    return NULL;
}

static key_kind kind_of(const key_slot *ks)
{
    return ks ? (key_kind)ks->kind : K_NONE;
}

/* One configuration key (also the flattened parallel keys of task files).
 * Returns 0 or -1 (error reported). */
static int config_key(imp *c, jl_run *r, const jv_member *m, const char *file, const char *field,
                      const char *extra_prefix)
{
    const char *key = m->key;
    const jl__jv *v = m->v;
    double d;
    if (jv_is_null(v)) {
        jl__imp_note(&c->k, file, field, "null value skipped");
        return 0;
    }
    const key_slot *ks = key_of(c, key, m->klen);
    key_kind kind = kind_of(ks);
    if (kind == K_SUMMARY) {
        const summary_map *sf = &summary_fields[ks->idx];
        if (get_nonneg(c, v, &d, file, field))
            return -1;
        double *dst = (double *)((char *)&r->summary + sf->off);
        if (!isnan(*dst)) {
            jl__imp_err(&c->k, JL_EINVALID, file, field, -1, "a second value for the same figure");
            return -1;
        }
        *dst = d * sf->scale;
        r->summary.present = 1;
        if (!strcmp(key, "energy_per_image_joules"))
            jl__imp_extra_str(&c->k, r, "item", "image");
        else if (!strcmp(key, "energy_per_video_joules"))
            jl__imp_extra_str(&c->k, r, "item", "video");
        return 0;
    }
    if (kind == K_THROUGHPUT) {
        if (get_nonneg(c, v, &d, file, field))
            return -1;
        jl__imp_summary_num(&c->k, r, "items_per_s", d);
        r->summary.present = 1;
        return 0;
    }
    if (kind == K_INT) {
        const int_map *f = &int_fields[ks->idx];
        long lv;
        long max = !strcmp(f->key, "num_gpus") ? MAX_GPUS : INT32_MAX;
        if (get_whole(c, v, f->min, max, &lv, file, field))
            return -1;
        if (f->extra) {
            jl__imp_extra_num(&c->k, r, f->extra, (double)lv);
        } else {
            long *dst = (long *)((char *)&r->attrs + f->off);
            if (*dst >= 0 && *dst != lv) {
                jl__imp_err(&c->k, JL_EINVALID, file, field, -1,
                            "conflicts with an earlier value %ld", *dst);
                return -1;
            }
            *dst = lv;
        }
        return 0;
    }
    if (kind == K_GPU_MODEL)
        return set_string(c, &r->attrs.gpu_model, v, file, field);
    if (kind == K_FPS) {
        if (get_nonneg(c, v, &d, file, field))
            return -1;
        jl__imp_extra_num(&c->k, r, "fps", d);
        return 0;
    }
    if (kind == K_NOTES) {
        if (!jv_is_string(v)) {
            jl__imp_err(&c->k, JL_ETYPE, file, field, -1, "expected a string, found %s",
                        json_kind(v));
            return -1;
        }
        if (*jv_string_value(v)) {
            char *s = jl__strdup(jv_string_value(v));
            if (!s) {
                c->k.oom = 1;
                return -1;
            }
            free(r->attrs.notes);
            r->attrs.notes = s;
        }
        return 0;
    }
    if (kind == K_HISTOGRAM) {
        const jl__jv *bins = jv_object_get(v, "bins"), *counts = jv_object_get(v, "counts");
        if (jv_is_object(v) && jv_is_array(bins) && jv_is_array(counts) &&
            jv_array_size(bins) == jv_array_size(counts) + 1 && jv_object_size(v) == 2) {
            keep_json(c, r, file, field, "output_length_bins", bins, 0);
            keep_json(c, r, file, field, "output_length_counts", counts, 0);
        } else {
            keep_json(c, r, file, field, "output_length_distribution", v, 0);
            jl__imp_note(&c->k, file, field,
                         "not the expected {bins, counts} histogram: kept as JSON text");
        }
        return 0;
    }
    int mk = model_key(c, r, key, kind, v, file, field);
    if (mk)
        return mk < 0 ? -1 : 0;
    /* unknown: kept */
    char *k = extra_prefix ? jl__asprintf("%s.%s", extra_prefix, key) : jl__strdup(key);
    if (!k) {
        c->k.oom = 1;
        return -1;
    }
    keep_json(c, r, file, field, k, v, 1);
    free(k);
    return 0;
}

static const char *workload_of_task(imp *c, const char *task)
{
    const jl__jv *arch = c->index ? jv_object_get(c->index, "architectures") : NULL;
    const char *k;
    jl__jv *list;
    if (!task || !jv_is_object(arch))
        return NULL;
    jv_object_foreach((jl__jv *)arch, k, list)
    {
        if (!jv_is_array(list))
            continue;
        for (size_t i = 0; i < jv_array_size(list); i++) {
            const jl__jv *t = jv_array_get(list, i);
            if (jv_is_string(t) && !strcmp(jv_string_value(t), task))
                return k;
        }
    }
    return NULL;
}

/* The workload of a configuration without index.json architectures: the
 * task file's own `architecture` (tasks/<diffusion task>.json say
 * "diffusion"), else a diffusion figure or knob among the fields, else the
 * task's name (image/video/audio chat: mllm; text-to-/image-to-: diffusion),
 * else llm. *why names the evidence. docs/import.md. */
static const char *guess_workload(const jl__jv *file_obj, const jl_run *r, const char **why)
{
    const jl__jv *arch = jv_object_get(file_obj, "architecture");
    const char *a = jv_is_string(arch) ? jv_string_value(arch) : "";
    if (!strcmp(a, "diffusion") || !strcmp(a, "llm") || !strcmp(a, "mllm")) {
        *why = "the file's architecture field";
        return !strcmp(a, "diffusion") ? "diffusion" : !strcmp(a, "mllm") ? "mllm" : "llm";
    }
    if (!isnan(r->summary.batch_latency_s) || !isnan(r->summary.energy_per_item_j) ||
        r->attrs.denoising_steps > 0) {
        *why = "its fields (a diffusion figure or inference_steps)";
        return "diffusion";
    }
    const char *t = r->attrs.task ? r->attrs.task : "";
    if (strstr(t, "text-to-") || strstr(t, "image-to-") || strstr(t, "video-to-")) {
        *why = "the task's name";
        return "diffusion";
    }
    if ((strstr(t, "image") || strstr(t, "video") || strstr(t, "audio")) && strstr(t, "chat")) {
        *why = "the task's name";
        return "mllm";
    }
    *why = "neither the fields nor the task's name saying otherwise";
    return "llm";
}

/* The members of an object in key order (deterministic order of extras),
 * each with its value; NULL when out of memory. An insertion sort: the
 * objects here have a few dozen keys at most, often already in order, and
 * keys are distinct (the parser refuses a key twice). */
static const jv_member **sorted_members(const jl__jv *obj, size_t *n)
{
    *n = jv_object_size(obj);
    const jv_member **m = jl__malloc_array(*n ? *n : 1, sizeof *m);
    if (!m)
        return NULL;
    for (size_t i = 0; i < *n; i++) {
        const jv_member *x = &obj->u.m[i];
        size_t j = i;
        for (; j > 0 && strcmp(m[j - 1]->key, x->key) > 0; j--)
            m[j] = m[j - 1];
        m[j] = x;
    }
    return m;
}

/* Index entry of a model id (NULL when none). */
static const jl__jv *index_entry(imp *c, const char *model)
{
    const jl__jv *models = c->index ? jv_object_get(c->index, "models") : NULL;
    return model && jv_is_object(models) ? jv_object_get(models, model) : NULL;
}

/* "a.b" into *buf (grown as needed, *cap its size): a field path reused
 * key after key; NULL when out of memory. */
static char *join_into(char **buf, size_t *cap, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na + nb + 2 > *cap) {
        size_t nc = (na + nb + 2) * 2;
        char *nbuf = realloc(*buf, nc);
        if (!nbuf)
            return NULL;
        *buf = nbuf;
        *cap = nc;
    }
    memcpy(*buf, a, na);
    (*buf)[na] = '.';
    memcpy(*buf + na + 1, b, nb + 1);
    return *buf;
}

/* The strings of parts[0..n) end to end (caller frees); NULL when out of
 * memory. */
static char *concat(const char *const *parts, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(parts[i]);
    char *s = malloc(len + 1), *o = s;
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(parts[i]);
        memcpy(o, parts[i], k);
        o += k;
    }
    *o = '\0';
    return s;
}

/* "configurations[idx]" into buf (48 bytes), without printf's cost. */
static void index_path(char *buf, size_t idx)
{
    memcpy(buf, "configurations[", 15);
    jl__imp_fmt_lld(buf + 15, (long long)idx);
    strcat(buf + 15, "]");
}

/* Field paths built key after key (grown as needed, reused). */
typedef struct field_paths {
    char *field, *pf;
    size_t field_cap, pf_cap;
} field_paths;

/* The model's layer: its index.json entry (lowest: the file and the
 * configuration override it). 0 or -1 (reported). */
static int config_model(imp *c, jl_run *r, const jl__jv *file_obj, const jl__jv *cfg,
                        const char *file, const char *path, field_paths *pb)
{
    const jl__jv *mid = jv_object_get(cfg, "model_id");
    if (!mid)
        mid = jv_object_get(file_obj, "model_id");
    if (!jv_is_string(mid)) {
        jl__imp_err(&c->k, mid ? JL_ETYPE : JL_EMISSING, file, path, -1, "model_id: %s",
                    mid ? "expected a string"
                        : "missing (neither in the file nor in the configuration)");
        return -1;
    }
    const jl__jv *entry = index_entry(c, jv_string_value(mid));
    if (!entry || !jv_is_object(entry)) {
        if (c->index)
            jl__imp_note(&c->k, file, "model_id",
                         "model not listed in index.json (no nickname from there)");
        return 0;
    }
    size_t nk;
    const jv_member **keys = sorted_members(entry, &nk);
    char *ipre = concat((const char *[]){"index.json: models.", jv_string_value(mid)}, 2);
    int rc = keys && ipre ? 0 : -1;
    if (rc)
        c->k.oom = 1;
    for (size_t i = 0; !rc && i < nk; i++) {
        const char *k = keys[i]->key;
        const jl__jv *v = keys[i]->v;
        if (!join_into(&pb->field, &pb->field_cap, ipre, k)) {
            c->k.oom = 1;
            rc = -1;
            break;
        }
        int m = model_key(c, r, k, kind_of(key_of(c, k, keys[i]->klen)), v, file, pb->field);
        if (m < 0)
            rc = -1;
        else if (m == 0)
            keep_json(c, r, file, pb->field, k, v, 1);
    }
    free(keys);
    free(ipre);
    return rc;
}

/* The file's top level (model and task keys shared by its configurations). */
static int config_file_keys(imp *c, jl_run *r, const jl__jv *file_obj, const char *file)
{
    size_t nk;
    const jv_member **keys = sorted_members(file_obj, &nk);
    if (!keys) {
        c->k.oom = 1;
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < nk; i++) {
        const char *k = keys[i]->key;
        key_kind kind = kind_of(key_of(c, k, keys[i]->klen));
        if (kind == K_CONFIGURATIONS || kind == K_HISTOGRAM ||
            (kind == K_MODEL_TEXT && !strcmp(k, "task_display_name")))
            continue;
        const jl__jv *v = keys[i]->v;
        if (kind == K_MODEL_TEXT && !strcmp(k, "architecture") && jv_is_string(v) &&
            !strcmp(jv_string_value(v), "diffusion") && !jv_object_get(file_obj, "model_id"))
            continue; /* tasks/<diffusion>.json: the task's kind, not a model architecture */
        rc = config_key(c, r, keys[i], file, k, NULL);
    }
    free(keys);
    return rc;
}

/* parallelization: {tensor_parallel, ...} as configuration keys. */
static int config_parallel(imp *c, jl_run *r, const jl__jv *v, const char *file, field_paths *pb)
{
    if (!jv_is_object(v)) {
        jl__imp_err(&c->k, JL_ETYPE, file, pb->field, -1, "expected an object, found %s",
                    json_kind(v));
        return -1;
    }
    size_t np;
    const jv_member **pk = sorted_members(v, &np);
    if (!pk) {
        c->k.oom = 1;
        return -1;
    }
    int rc = 0;
    for (size_t q = 0; !rc && q < np; q++) {
        if (!join_into(&pb->pf, &pb->pf_cap, pb->field, pk[q]->key)) {
            c->k.oom = 1;
            rc = -1;
        } else {
            rc = config_key(c, r, pk[q], file, pb->pf, "parallelization");
        }
    }
    free(pk);
    return rc;
}

/* The configuration's own keys; its timelines are returned, read later. */
static int config_own_keys(imp *c, jl_run *r, const jl__jv *cfg, const char *file, const char *path,
                           field_paths *pb, const jl__jv **timelines, const jl__jv **kv_tl)
{
    size_t nk;
    const jv_member **keys = sorted_members(cfg, &nk);
    if (!keys) {
        c->k.oom = 1;
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; !rc && i < nk; i++) {
        const char *k = keys[i]->key;
        const jl__jv *v = keys[i]->v;
        key_kind kind = kind_of(key_of(c, k, keys[i]->klen));
        double d;
        if (!join_into(&pb->field, &pb->field_cap, path, k)) {
            c->k.oom = 1;
            rc = -1;
        } else if (kind == K_TIMELINES && jv_is_null(v)) {
            jl__imp_note(&c->k, file, pb->field, "null value skipped");
        } else if (kind == K_TIMELINES) {
            *timelines = v;
        } else if (kind == K_KV_CACHE && jv_is_object(v)) {
            *kv_tl = v;
        } else if (kind == K_KV_CACHE && jv_is_number(v)) {
            rc = get_nonneg(c, v, &d, file, pb->field);
            if (!rc) {
                jl__imp_summary_num(&c->k, r, "avg_kv_cache_usage", d / 100.0);
                r->summary.present = 1;
            }
        } else if (kind == K_PARALLELIZATION) {
            rc = config_parallel(c, r, v, file, pb);
        } else {
            rc = config_key(c, r, keys[i], file, pb->field, NULL);
        }
    }
    free(keys);
    return rc;
}

/* The workload (index.json's architectures, else guessed with a note) and
 * the spec's MUST attributes and a measured figure. */
static int config_check(imp *c, jl_run *r, const jl__jv *file_obj, const char *file,
                        const char *path)
{
    const char *w = workload_of_task(c, r->attrs.task);
    if (!w) {
        const char *why = NULL;
        w = guess_workload(file_obj, r, &why);
        jl__imp_note(&c->k, file, "task", "%s: workload '%s' from %s",
                     c->index ? "task not listed under index.json architectures" : "no index.json",
                     w, why);
    }
    if (!(r->attrs.workload = jl__strdup(w))) {
        c->k.oom = 1;
        return -1;
    }
    const char *missing = !r->attrs.model         ? "model_id"
                          : !r->attrs.task        ? "task"
                          : !r->attrs.gpu_model   ? "gpu_model"
                          : r->attrs.num_gpus < 1 ? "num_gpus"
                          : !r->attrs.precision   ? "weight_precision"
                          : r->attrs.max_batch_size < 1
                              ? (strcmp(w, "diffusion") ? "max_num_seqs" : "batch_size")
                              : NULL;
    if (missing) {
        jl__imp_err(&c->k, JL_EMISSING, file, path, -1,
                    "%s missing: a run needs it (spec: run attributes)", missing);
        return -1;
    }
    if (!r->summary.present) {
        jl__imp_err(&c->k, JL_EMISSING, file, path, -1,
                    "no measured figure at all (energy, power, latency)");
        return -1;
    }
    return 0;
}

/* model__task__gpuxN__bM[__u<ul>r<ri>], claimed (a re-measurement gets
 * __dup<k>, a note and @duplicate_index). */
static int config_name(imp *c, jl_run *r, const char *file, const char *path)
{
    char *model = jl__imp_sanitize(r->attrs.model), *task = jl__imp_sanitize(r->attrs.task),
         *gpu = jl__imp_sanitize(r->attrs.gpu_model);
    const char *ul = jl__imp_extra_get(r, "ulysses_degree");
    const char *ri = jl__imp_extra_get(r, "ring_degree");
    char ng[24], nb[24];
    if (model && task && gpu) {
        int sp = ul || ri;
        const char *parts[] = {model,
                               "__",
                               task,
                               "__",
                               gpu,
                               "x",
                               jl__imp_fmt_lld(ng, r->attrs.num_gpus),
                               "__b",
                               jl__imp_fmt_lld(nb, r->attrs.max_batch_size),
                               sp ? "__u" : "",
                               sp ? (ul ? ul : "1") : "",
                               sp ? "r" : "",
                               sp ? (ri ? ri : "1") : ""};
        r->name = concat(parts, N_OF(parts));
    }
    free(model);
    free(task);
    free(gpu);
    size_t occ = r->name ? jl__imp_claim_name(&c->k, r) : 0;
    if (!occ) {
        c->k.oom = 1;
        return -1;
    }
    if (occ > 1) {
        jl__imp_note(&c->k, file, path,
                     "same configuration as an earlier one (re-measurement): kept as a distinct "
                     "run named ...__dupN");
        jl__imp_extra_num(&c->k, r, "duplicate_index", (double)occ);
    }
    return 0;
}

/* One configuration of a file (file_obj: the file's top level), in
 * layers: the model's index.json entry, the file, the configuration; then
 * checked, its timelines read, named and added. */
static void import_config(imp *c, const jl__jv *file_obj, const jl__jv *cfg, size_t idx,
                          const char *file, const char *task_display_name)
{
    char path[48];
    field_paths pb = {0};
    const jl__jv *timelines = NULL, *kv_tl = NULL;
    index_path(path, idx);
    jl_run *r = jl_run_new();
    if (!r) {
        c->k.oom = 1;
        return;
    }
    int rc = -1;
    if (!jv_is_object(cfg)) {
        jl__imp_err(&c->k, JL_ETYPE, file, path, -1, "expected an object, found %s",
                    json_kind(cfg));
        goto end;
    }
    if (config_model(c, r, file_obj, cfg, file, path, &pb) ||
        config_file_keys(c, r, file_obj, file))
        goto end;
    if (task_display_name)
        jl__imp_extra_str(&c->k, r, "task_display_name", task_display_name);
    if (config_own_keys(c, r, cfg, file, path, &pb, &timelines, &kv_tl) ||
        config_check(c, r, file_obj, file, path))
        goto end;
    if ((timelines || kv_tl) && import_timelines(c, r, timelines, kv_tl, file, path))
        goto end;
    if (config_name(c, r, file, path))
        goto end;
    if (!(r->file = jl__strdup(file))) {
        c->k.oom = 1;
        goto end;
    }
    jl__imp_extra_str(&c->k, r, "source", "ML.ENERGY Leaderboard");
    rc = c->k.oom ? -1 : 0;
end:
    if (rc)
        jl_run_free(r);
    else
        jl__imp_add_run(&c->k, r);
    free(pb.field);
    free(pb.pf);
}

/* Sum of the configurations' histograms against the file's own. */
/* Add to sum[0..n) the n integers of text written as int_array_text
 * writes them ("[1,2,3]", each within long long); -1, sum untouched, for
 * any other text (the caller parses it as JSON). tmp: room for n. */
static int add_int_list(const char *text, double *sum, size_t n, long long *tmp)
{
    const char *p = text;
    if (*p++ != '[')
        return -1;
    for (size_t k = 0; k < n; k++) {
        if (k && *p++ != ',')
            return -1;
        int neg = *p == '-';
        p += neg;
        if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
            return -1;
        unsigned long long u = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (u > (ULLONG_MAX - 9) / 10)
                return -1;
            u = u * 10 + (unsigned)(*p - '0');
        }
        if (u > (unsigned long long)LLONG_MAX + neg)
            return -1;
        tmp[k] = neg ? (long long)(0ull - u) : (long long)u;
    }
    if (*p++ != ']' || *p)
        return -1;
    for (size_t k = 0; k < n; k++)
        sum[k] += (double)tmp[k];
    return 0;
}

static void check_file_histogram(imp *c, const jl__jv *file_obj, size_t first_run, const char *file)
{
    const jl__jv *h = jv_object_get(file_obj, "output_length_distribution");
    if (!h)
        return;
    const jl__jv *bins = jv_object_get(h, "bins"), *counts = jv_object_get(h, "counts");
    char *bt = NULL, *ct = NULL;
    int equal = 0;
    if (jv_is_array(bins) && jv_is_array(counts) && jv_array_size(counts) < 100000) {
        size_t nb = jv_array_size(counts);
        double *sum = jl__calloc_array(nb ? nb : 1, sizeof *sum);
        long long *tmp = jl__malloc_array(nb ? nb : 1, sizeof *tmp);
        /* as the runs' bins were kept, when they are the same scalars */
        if (!(bt = int_array_text(bins)) && !(bt = cached_text(c, bins))) {
            json_t *bj = jl__jv_to_json(bins);
            bt = bj ? jl_json_dumps(bj, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
            json_decref(bj);
        }
        if (sum && tmp && bt) {
            equal = c->k.res->n_runs > first_run;
            for (size_t i = first_run; i < c->k.res->n_runs && equal; i++) {
                const jl_run *r = c->k.res->runs[i];
                const char *rb = jl__imp_extra_get(r, "output_length_bins");
                const char *rc = jl__imp_extra_get(r, "output_length_counts");
                if (rb && !strcmp(rb, bt) && rc && add_int_list(rc, sum, nb, tmp) == 0)
                    continue; /* the common case: integers, as int_array_text wrote them */
                /* the text is joules' own (jl_json_dumps): the tree reader takes it */
                jl__jv *rcj = rc ? jl__jv_parse(rc, strlen(rc)) : NULL;
                if (!rb || strcmp(rb, bt) || !jv_is_array(rcj) || jv_array_size(rcj) != nb)
                    equal = 0;
                for (size_t k = 0; equal && k < nb; k++)
                    sum[k] += jv_number_value(jv_array_get(rcj, k));
                jl__jv_free(rcj);
            }
            for (size_t k = 0; equal && k < nb; k++)
                equal = jv_is_number(jv_array_get(counts, k)) &&
                        sum[k] == jv_number_value(jv_array_get(counts, k));
        }
        free(sum);
        free(tmp);
    }
    if (equal) {
        jl__imp_note(
            &c->k, file, "output_length_distribution",
            "file-level histogram equals the sum of the configurations' histograms (kept per "
            "run as output_length_bins/output_length_counts)");
    } else {
        /* the same text on every run: formatted once */
        char *text = jv_is_object(h) || jv_is_array(h) ? kept_text(c, h) : NULL;
        for (size_t i = first_run; i < c->k.res->n_runs; i++)
            if (text)
                keep_text(c, c->k.res->runs[i], file, "output_length_distribution",
                          "file_output_length_distribution", h, text);
            else
                keep_json(c, c->k.res->runs[i], file, "output_length_distribution",
                          "file_output_length_distribution", h, 0);
        free(text);
        jl__imp_note(&c->k, file, "output_length_distribution",
                     "file-level histogram kept on every run of the file as "
                     "file_output_length_distribution");
    }
    free(bt);
    free(ct);
}

/* One parsed model or task file. */
static void import_doc(imp *c, const jl__jv *doc, const char *file, const char *display)
{
    if (!jv_is_object(doc)) {
        jl__imp_err(&c->k, JL_ETYPE, file, NULL, -1, "expected a JSON object at the top, found %s",
                    json_kind(doc));
        return;
    }
    const jl__jv *cfgs = jv_object_get(doc, "configurations");
    if (!jv_is_array(cfgs)) {
        jl__imp_err(&c->k, cfgs ? JL_ETYPE : JL_EMISSING, file, "configurations", -1,
                    cfgs ? "expected an array" : "missing");
        return;
    }
    size_t n = jv_array_size(cfgs);
    if (n > c->k.opt->max_configs) {
        jl__imp_err(&c->k, JL_ELIMIT, file, "configurations", -1,
                    "%zu configurations, more than the limit %zu", n, c->k.opt->max_configs);
        return;
    }
    const jl__jv *tdn = jv_object_get(doc, "task_display_name");
    if (jv_is_string(tdn))
        display = jv_string_value(tdn);
    size_t first = c->k.res->n_runs;
    for (size_t i = 0; i < n && !c->k.oom; i++)
        import_config(c, doc, jv_array_get(cfgs, i), i, file, display);
    if (!c->k.oom)
        check_file_histogram(c, doc, first, file);
    c->k.res->n_files++;
}

/* ---- files -------------------------------------------------------------------------- */

/* Sorted *.json names in dir (through the import's walk: a file reached
 * twice, by a hard link or a link, is listed once); -1 when the folder
 * cannot be opened. */
static long list_json(imp *c, const char *dir, char ***out)
{
    *out = NULL;
    char **dirs = NULL, **files = NULL;
    size_t nd = 0, nf = 0;
    jl_error_list quiet = {0}, *saved = c->k.errors;
    c->k.errors = &quiet; /* a folder that cannot be opened is said by the caller */
    int r = jl__imp_list_dir(&c->k, dir, &dirs, &nd, &files, &nf);
    c->k.errors = saved;
    jl_error_list_clear(&quiet);
    jl__imp_free_names(dirs, nd);
    if (r)
        return r == 1 ? 0 : -1;
    size_t n = 0;
    for (size_t i = 0; i < nf; i++) {
        if (!jl__imp_ends_with(files[i], ".json")) {
            free(files[i]);
            continue;
        }
        if (n >= c->k.opt->max_files) {
            jl__imp_err(&c->k, JL_ELIMIT, dir, NULL, -1, "more than %zu JSON files",
                        c->k.opt->max_files);
            for (size_t j = i; j < nf; j++)
                free(files[j]);
            break;
        }
        files[n++] = files[i];
    }
    if (!n) {
        free(files);
        files = NULL;
    }
    *out = files;
    return (long)n;
}

static void free_names(char **names, long n)
{
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void check_index_keys(imp *c, const char *path)
{
    static const char *const known[] = {"architectures", "last_updated", "models", "tasks"};
    const char *k;
    jl__jv *v;
    jv_object_foreach(c->index, k, v)
    {
        int kn = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            kn |= !strcmp(k, known[i]);
        if (!kn)
            jl__imp_note(&c->k, path, k, "unknown index.json field: not imported");
    }
}

/* The context of one import: the kit's (notes fold [k] indices: one note
 * for every configuration) and the known keys. -1: out of memory. */
static int start(imp *c, const jl_import_options *opt, jl_error_list *errors,
                 jl_import_result **out)
{
    *out = NULL;
    memset(c, 0, sizeof *c);
    if (jl__imp_start(&c->k, opt, errors))
        return -1;
    c->k.fold_indices = 1;
    keys_init(c);
    return 0;
}

static jl_status finish(imp *c, jl_import_result **out, jl_status st)
{
    for (int k = 0; k < 2; k++) {
        json_decref(c->kept[k]);
        free(c->kept_text[k]);
    }
    return jl__imp_end(&c->k, st, out);
}

static jl__jv *load_json(imp *c, const char *path, int missing_ok)
{
    size_t len = 0;
    char *text = jl__imp_read_file_opt(&c->k, path, &len, missing_ok);
    if (!text)
        return NULL;
    jl__jv *doc = jl__imp_json_tree(&c->k, path, text, len, JL__IMP_DUPS_NOTE);
    free(text);
    return doc;
}

jl_status jl_import_mlenergy(const char *dir, const jl_import_options *opt, jl_import_result **out,
                             jl_error_list *errors)
{
    imp c;
    if (start(&c, opt, errors, out))
        return JL_ENOMEM;
    jl_status st = JL_OK;
    char *ipath = jl__asprintf("%s/index.json", dir), *mdir = jl__asprintf("%s/models", dir),
         *tdir = jl__asprintf("%s/tasks", dir);
    char **mnames = NULL, **tnames = NULL;
    long nm = -1, nt = -1;
    jl__jv **task_docs = NULL;
    if (!ipath || !mdir || !tdir) {
        c.k.oom = 1;
        goto end;
    }
    /* index.json is optional: without it the model files stand alone */
    size_t nerr = errors ? errors->count : 0;
    c.index = load_json(&c, ipath, 1);
    if (!c.index && (c.k.oom || (errors && errors->count > nerr))) {
        st = c.k.oom ? JL_ENOMEM : JL_EIO;
        goto end;
    }
    if (c.index && !jv_is_object(c.index)) {
        jl__imp_err(&c.k, JL_ETYPE, ipath, NULL, -1, "expected a JSON object, found %s",
                    json_kind(c.index));
        st = JL_EFORMAT;
        goto end;
    }
    if (c.index) {
        check_index_keys(&c, ipath);
    } else {
        jl__imp_note(
            &c.k, dir, "index.json",
            "no index.json: imported without it (nicknames only where the files carry them; "
            "each workload from the task "
            "file's architecture, the fields present or the task's name)");
    }
    const jl__jv *lu = c.index ? jv_object_get(c.index, "last_updated") : NULL;
    c.k.res->source =
        jl__asprintf("ML.ENERGY Leaderboard data (%s), %s%s", dir,
                     c.index ? "last_updated " : "no index.json",
                     c.index ? (jv_is_string(lu) ? jv_string_value(lu) : "unknown") : "");
    /* task files: display names and the configuration count per task */
    nt = list_json(&c, tdir, &tnames);
    if (nt > 0 && !(task_docs = jl__calloc_array((size_t)nt, sizeof *task_docs))) {
        c.k.oom = 1;
        goto end;
    }
    for (long i = 0; i < nt && !c.k.oom; i++) {
        char *p = jl__asprintf("%s/%s", tdir, tnames[i]);
        if (!p) {
            c.k.oom = 1;
            break;
        }
        task_docs[i] = load_json(&c, p, 0);
        free(p);
    }
    nm = list_json(&c, mdir, &mnames);
    if (nm > 0) {
        for (long i = 0; i < nm && !c.k.oom; i++) {
            char *p = jl__asprintf("%s/%s", mdir, mnames[i]);
            if (!p) {
                c.k.oom = 1;
                break;
            }
            jl__jv *doc = load_json(&c, p, 0);
            const char *display = NULL;
            const jl__jv *task = doc && jv_is_object(doc) ? jv_object_get(doc, "task") : NULL;
            for (long k = 0; task && jv_is_string(task) && k < nt; k++) {
                const jl__jv *td = task_docs[k];
                const jl__jv *tt = td && jv_is_object(td) ? jv_object_get(td, "task") : NULL;
                const jl__jv *dn =
                    td && jv_is_object(td) ? jv_object_get(td, "task_display_name") : NULL;
                if (jv_is_string(tt) && jv_is_string(dn) &&
                    !strcmp(jv_string_value(tt), jv_string_value(task)))
                    display = jv_string_value(dn);
            }
            if (doc)
                import_doc(&c, doc, p, display);
            jl__jv_free(doc);
            free(p);
        }
        /* task files hold the same configurations: compare the counts */
        for (long k = 0; k < nt && !c.k.oom; k++) {
            const jl__jv *td = task_docs[k];
            const jl__jv *tt = td && jv_is_object(td) ? jv_object_get(td, "task") : NULL;
            const jl__jv *cf = td && jv_is_object(td) ? jv_object_get(td, "configurations") : NULL;
            if (!jv_is_string(tt) || !jv_is_array(cf))
                continue;
            size_t have = 0;
            for (size_t i = 0; i < c.k.res->n_runs; i++)
                have += c.k.res->runs[i]->attrs.task &&
                        !strcmp(c.k.res->runs[i]->attrs.task, jv_string_value(tt));
            if (have != jv_array_size(cf))
                jl__imp_note(&c.k, tnames[k], "configurations",
                             "tasks/ file lists %zu configurations of %s, models/ files gave %zu",
                             jv_array_size(cf), jv_string_value(tt), have);
        }
    } else if (nt > 0) {
        /* no models/: the task files are the source */
        jl__imp_note(&c.k, tdir, "",
                     "no models/ folder: configurations read from tasks/ (no histograms)");
        for (long k = 0; k < nt && !c.k.oom; k++)
            if (task_docs[k]) {
                char *p = jl__asprintf("%s/%s", tdir, tnames[k]);
                if (!p) {
                    c.k.oom = 1;
                    break;
                }
                import_doc(&c, task_docs[k], p, NULL);
                free(p);
            }
    } else {
        jl__imp_err(&c.k, JL_EMISSING, dir, NULL, -1,
                    "neither models/*.json nor tasks/*.json found");
        st = JL_ENODATA;
        goto end;
    }
    if (c.k.res->n_runs == 0 && !c.k.oom) {
        jl__imp_err(&c.k, JL_ENODATA, dir, NULL, -1, "no configuration could be imported");
        st = JL_ENODATA;
    }
end:
    for (long k = 0; k < nt; k++)
        if (task_docs)
            jl__jv_free(task_docs[k]);
    free(task_docs);
    free_names(mnames, nm > 0 ? nm : 0);
    free_names(tnames, nt > 0 ? nt : 0);
    jl__jv_free(c.index);
    free(ipath);
    free(mdir);
    free(tdir);
    return finish(&c, out, st);
}

jl_status jl_import_mlenergy_buffer(const char *index_json, size_t index_len,
                                    const char *model_json, size_t model_len, const char *name,
                                    const jl_import_options *opt, jl_import_result **out,
                                    jl_error_list *errors)
{
    imp c;
    if (start(&c, opt, errors, out))
        return JL_ENOMEM;
    jl_status st = JL_OK;
    if (!name)
        name = "<buffer>";
    if (index_json) {
        c.index = jl__imp_json_tree(&c.k, "index.json", index_json, index_len, JL__IMP_DUPS_NOTE);
        if (!c.index) {
            st = c.k.oom ? JL_ENOMEM : JL_EFORMAT;
            goto end;
        }
        if (!jv_is_object(c.index)) {
            jl__imp_err(&c.k, JL_ETYPE, "index.json", NULL, -1, "expected a JSON object, found %s",
                        json_kind(c.index));
            st = JL_EFORMAT;
            goto end;
        }
        check_index_keys(&c, "index.json");
    }
    if (model_len > c.k.opt->max_file_bytes) {
        jl__imp_err(&c.k, JL_ELIMIT, name, NULL, -1, "%zu bytes, more than the limit %zu",
                    model_len, c.k.opt->max_file_bytes);
        st = JL_ELIMIT;
        goto end;
    }
    jl__jv *doc =
        jl__imp_json_tree(&c.k, name, model_json ? model_json : "", model_len, JL__IMP_DUPS_NOTE);
    if (!doc) {
        st = c.k.oom ? JL_ENOMEM : JL_EFORMAT;
        goto end;
    }
    import_doc(&c, doc, name, NULL);
    jl__jv_free(doc);
end:
    jl__jv_free(c.index);
    return finish(&c, out, st);
}

/* ---- the importer table's row ------------------------------------------------ */

static jl_status mlenergy_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                              size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    (void)n_paths;
    jl_import_options o;
    jl_import_options_default(&o);
    for (size_t i = 0; i < n_args; i++)
        if (!strcmp(args[i].name, "power-timeline")) {
            if (strcmp(args[i].value, "per-gpu") && strcmp(args[i].value, "sum"))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--power-timeline: expected per-gpu or sum, found '%s'",
                                      args[i].value);
            o.timeline_power_is_sum = !strcmp(args[i].value, "sum");
        }
    jl_status st = jl_import_mlenergy_auto(paths[0], &o, out, errors);
    if (st == JL_OK && *out)
        (*out)->detail_text =
            jl__asprintf("%zu re-measurements as __dupN, %zu with timelines, "
                         "%zu notes",
                         (*out)->n_duplicates, (*out)->n_with_timelines, (*out)->n_notes);
    return st;
}

static const jl_importer_option mlenergy_options[] = {
    {"power-timeline", "per-gpu|sum",
     "a power timeline value is one GPU's reading (default) or the GPUs' sum"},
    {NULL, NULL, NULL},
};

const jl_importer jl__importer_mlenergy = {
    .name = "mlenergy",
    .summary =
        "the ML.ENERGY Leaderboard's published data (v3, v2 data/, v1 CSV) as summary-only runs",
    .paths = "DIR",
    .description = "Import the ML.ENERGY Leaderboard's published data as a trace file of\n"
                   "summary-only runs: one run per configuration, every field kept\n"
                   "(import.md). DIR is the v3 data (index.json, models/*.json,\n"
                   "tasks/*.json; index.json may be missing), the v2 data/ folder\n"
                   "(llm_text_generation/, mllm_text_generation/, diffusion/, legacy/) or a\n"
                   "folder of v1 <GPU>_<task>_benchmark.csv files. Re-measurements of the\n"
                   "same configuration become distinct runs named ...__dup2. v3\n"
                   "configurations with timelines keep their published figures beside the\n"
                   "series (trace format 1.1, @window steady_state_only).\n",
    .options = mlenergy_options,
    .min_paths = 1,
    .max_paths = 1,
    .run = mlenergy_run,
};
