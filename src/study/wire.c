/* The wire format between worker processes and the parent: a compact,
 * length-prefixed encoding of jl_summary and jl_error (study_internal.h).
 *
 * Layout (native byte order; the two ends are the same binary):
 *   string  u32 length, then the bytes; length 0xffffffff = NULL
 *   long    i64;  double  8 bytes, bit for bit
 *   summary file, run, attrs, i32 steady_method, i32 energy_source,
 *           u32 JL_FIG_COUNT, the figures, power_rise_lag_s, i32
 *           power_rise_skip, u64 num_gpus, u8 has_energy,
 *           [energies], u8 has_power, [powers], u32 n_warnings,
 *           (rule, message)..., u8 has_published, [source, the published
 *           figures, the recomputed figures, u64 with_published_rate,
 *           mark_threshold, u64 from_parts], u8 has_host, [source, i32
 *           method, u64 sockets, u8 has_cpu, [cpu], u8 has_dram, [dram],
 *           cpu_dram_energy_j, node_energy_j, rest_energy_j], i32 boundary
 *           window, i32 boundary scope, i32 total_scope, peak_power_kind, u32
 *           n_reasons, (code, message, energy_bound_j)...
 *   attrs   the typed fields in the order of jl_attrs, u32 n_extra,
 *           (key, value, u8 is_number)...
 *   error   i32 code, file, run, object, i64 row, message, u8 has_cause,
 *           [cause] (a chain, at most 64 deep)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/attrs_internal.h"
#include "core/util.h"
#include "study/study_internal.h"

#define NULL_STR 0xffffffffu
#define MAX_CAUSES 64

/* ------------------------------------------------------------- writing */

void jl__wbuf_free(jl__wbuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int jl__wbuf_grow(jl__wbuf *b, size_t n)
{
    if (b->failed)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (n > cap - b->len) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return 0;
        }
        cap *= 2;
    }
    unsigned char *d = realloc(b->data, cap);
    if (!d) {
        b->failed = 1;
        return 0;
    }
    b->data = d;
    b->cap = cap;
    return 1;
}

static void put_i32(jl__wbuf *b, int32_t v)
{
    jl__wbuf_put(b, &v, sizeof v);
}
static void put_i64(jl__wbuf *b, int64_t v)
{
    jl__wbuf_put(b, &v, sizeof v);
}
static void put_u64(jl__wbuf *b, uint64_t v)
{
    jl__wbuf_put(b, &v, sizeof v);
}
static void put_u8(jl__wbuf *b, uint8_t v)
{
    jl__wbuf_put(b, &v, 1);
}
static void put_f64(jl__wbuf *b, double v)
{
    jl__wbuf_put(b, &v, sizeof v);
}

static void put_str(jl__wbuf *b, const char *s)
{
    if (!s) {
        jl__wbuf_u32(b, NULL_STR);
        return;
    }
    size_t n = strlen(s);
    if (n >= NULL_STR) {
        b->failed = 1;
        return;
    }
    jl__wbuf_u32(b, (uint32_t)n);
    jl__wbuf_put(b, s, n);
}

/* The typed fields in the order of jl__attr_fields, then the extras. */
static void put_attrs(jl__wbuf *b, const jl_attrs *a)
{
    for (size_t k = 0; k < jl__n_attr_fields; k++) {
        const char *base = (const char *)a + jl__attr_fields[k].off;
        switch (jl__attr_fields[k].kind) {
        case JL__F_STR: put_str(b, *(char *const *)base); break;
        case JL__F_LONG: put_i64(b, *(const long *)base); break;
        case JL__F_DBL: put_f64(b, *(const double *)base); break;
        }
    }
    jl__wbuf_u32(b, (uint32_t)a->n_extra);
    for (size_t i = 0; i < a->n_extra; i++) {
        put_str(b, a->extra[i].key);
        put_str(b, a->extra[i].value);
        put_u8(b, (uint8_t)(a->extra[i].is_number != 0));
    }
}

jl_status jl__wire_put_summary(jl__wbuf *b, const jl_summary *s)
{
    put_str(b, s->file);
    put_str(b, s->run);
    put_attrs(b, &s->attrs);
    put_i32(b, (int32_t)s->steady_method);
    put_i32(b, (int32_t)s->energy_source);
    jl__wbuf_u32(b, JL_FIG_COUNT);
    jl__wbuf_put(b, s->fig, sizeof s->fig);
    put_f64(b, s->power_rise_lag_s);
    put_i32(b, (int32_t)s->power_rise_skip);
    put_u64(b, s->num_gpus);
    put_u8(b, s->gpu_energy_j != NULL);
    if (s->gpu_energy_j)
        jl__wbuf_put(b, s->gpu_energy_j, s->num_gpus * sizeof(double));
    put_u8(b, s->gpu_avg_power_w != NULL);
    if (s->gpu_avg_power_w)
        jl__wbuf_put(b, s->gpu_avg_power_w, s->num_gpus * sizeof(double));
    jl__wbuf_u32(b, (uint32_t)s->n_warnings);
    for (size_t i = 0; i < s->n_warnings; i++) {
        put_str(b, s->warnings[i].rule);
        put_str(b, s->warnings[i].message);
    }
    put_u8(b, s->published != NULL);
    if (s->published) {
        put_str(b, s->published->source);
        jl__wbuf_put(b, s->published->fig, sizeof s->published->fig);
        jl__wbuf_put(b, s->published->recomputed, sizeof s->published->recomputed);
        put_u64(b, s->published->with_published_rate);
        put_f64(b, s->published->mark_threshold);
        put_u64(b, s->published->from_parts);
    }
    put_u8(b, s->host != NULL);
    if (s->host) {
        const jl_host_summary *h = s->host;
        put_str(b, h->source);
        put_i32(b, (int32_t)h->method);
        put_u64(b, h->sockets);
        put_u8(b, h->cpu_energy_j != NULL);
        if (h->cpu_energy_j)
            jl__wbuf_put(b, h->cpu_energy_j, h->sockets * sizeof(double));
        put_u8(b, h->dram_energy_j != NULL);
        if (h->dram_energy_j)
            jl__wbuf_put(b, h->dram_energy_j, h->sockets * sizeof(double));
        put_f64(b, h->cpu_dram_energy_j);
        put_f64(b, h->node_energy_j);
        put_f64(b, h->rest_energy_j);
    }
    /* boundaries (summary/boundary.c) */
    put_i32(b, (int32_t)s->boundary.window);
    put_i32(b, (int32_t)s->boundary.scope);
    put_i32(b, (int32_t)s->total_scope);
    put_str(b, s->peak_power_kind);
    jl__wbuf_u32(b, (uint32_t)s->validity.n);
    for (size_t i = 0; i < s->validity.n; i++) {
        put_str(b, s->validity.reasons[i].code);
        put_str(b, s->validity.reasons[i].message);
        put_f64(b, s->validity.reasons[i].energy_bound_j);
    }
    return b->failed ? JL_ENOMEM : JL_OK;
}

jl_status jl__wire_put_error(jl__wbuf *b, const jl_error *e)
{
    int depth = 0;
    for (; e && depth < MAX_CAUSES; e = e->cause, depth++) {
        put_i32(b, (int32_t)e->code);
        put_str(b, e->file);
        put_str(b, e->run);
        put_str(b, e->object);
        put_i64(b, e->row);
        put_str(b, e->message ? e->message : "");
        put_u8(b, e->cause != NULL && depth + 1 < MAX_CAUSES);
    }
    return b->failed ? JL_ENOMEM : JL_OK;
}

/* ------------------------------------------------------------- reading */

typedef struct rd {
    const unsigned char *p;
    size_t n, pos;
    jl_status st; /* first failure */
} rd;

static int take(rd *r, void *out, size_t n)
{
    if (r->st != JL_OK)
        return 0;
    if (n > r->n - r->pos) {
        r->st = JL_EINVALID;
        return 0;
    }
    memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return 1;
}

/* get_u32 ... get_f64: one fixed-size value (0 once the input ran out). */
#define GETTER(T, name)        \
    static T name(rd *r)       \
    {                          \
        T v = 0;               \
        take(r, &v, sizeof v); \
        return v;              \
    }
GETTER(uint32_t, get_u32)
GETTER(int32_t, get_i32)
GETTER(int64_t, get_i64)
GETTER(uint64_t, get_u64)
GETTER(uint8_t, get_u8)
GETTER(double, get_f64)
#undef GETTER

static char *get_str(rd *r)
{
    uint32_t n = get_u32(r);
    if (r->st != JL_OK || n == NULL_STR)
        return NULL;
    if (n > r->n - r->pos) {
        r->st = JL_EINVALID;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        r->st = JL_ENOMEM;
        return NULL;
    }
    memcpy(s, r->p + r->pos, n);
    s[n] = '\0';
    r->pos += n;
    return s;
}

static void get_attrs(rd *r, jl_attrs *a)
{
    for (size_t k = 0; k < jl__n_attr_fields; k++) {
        char *base = (char *)a + jl__attr_fields[k].off;
        switch (jl__attr_fields[k].kind) {
        case JL__F_STR: *(char **)base = get_str(r); break;
        case JL__F_LONG: *(long *)base = (long)get_i64(r); break;
        case JL__F_DBL: *(double *)base = get_f64(r); break;
        }
    }
    uint32_t n = get_u32(r);
    if (r->st != JL_OK || n == 0)
        return;
    /* each extra takes at least 9 bytes: refuse counts the input cannot hold */
    if (n > (r->n - r->pos) / 9) {
        r->st = JL_EINVALID;
        return;
    }
    a->extra = calloc(n, sizeof *a->extra);
    if (!a->extra) {
        r->st = JL_ENOMEM;
        return;
    }
    for (uint32_t i = 0; i < n && r->st == JL_OK; i++) {
        a->extra[i].key = get_str(r);
        a->extra[i].value = get_str(r);
        a->extra[i].is_number = get_u8(r);
        a->n_extra = i + 1;
    }
}

static double *get_doubles(rd *r, uint64_t n)
{
    if (r->st != JL_OK)
        return NULL;
    if (n > (r->n - r->pos) / sizeof(double)) {
        r->st = JL_EINVALID;
        return NULL;
    }
    double *v = jl__malloc_array((size_t)n, sizeof *v);
    if (!v) {
        r->st = JL_ENOMEM;
        return NULL;
    }
    take(r, v, (size_t)n * sizeof *v);
    return v;
}

jl_status jl__wire_get_summary(const unsigned char *p, size_t n, size_t *used, jl_summary **out)
{
    *out = NULL;
    jl_summary *s = jl_summary_new();
    if (!s)
        return JL_ENOMEM;
    rd r = {p, n, 0, JL_OK};
    s->file = get_str(&r);
    s->run = get_str(&r);
    jl_attrs_clear(&s->attrs);
    get_attrs(&r, &s->attrs);
    int32_t method = get_i32(&r), source = get_i32(&r);
    if (method < 0 || method >= JL_STEADY_COUNT || source < 0 || source > JL_ENERGY_SUMMARY ||
        get_u32(&r) != JL_FIG_COUNT) {
        if (r.st == JL_OK)
            r.st = JL_EINVALID;
    }
    s->steady_method = (jl_steady_method)method;
    s->energy_source = (jl_energy_source)source;
    take(&r, s->fig, sizeof s->fig);
    s->power_rise_lag_s = get_f64(&r);
    s->power_rise_skip = (int)get_i32(&r);
    uint64_t g = get_u64(&r);
    s->num_gpus = (size_t)g;
    if (get_u8(&r))
        s->gpu_energy_j = get_doubles(&r, g);
    if (get_u8(&r))
        s->gpu_avg_power_w = get_doubles(&r, g);
    uint32_t nw = get_u32(&r);
    if (r.st == JL_OK && nw > 0) {
        if (nw > (r.n - r.pos) / 8) {
            r.st = JL_EINVALID;
        } else if (!(s->warnings = calloc(nw, sizeof *s->warnings))) {
            r.st = JL_ENOMEM;
        } else {
            for (uint32_t i = 0; i < nw && r.st == JL_OK; i++) {
                s->warnings[i].rule = get_str(&r);
                s->warnings[i].message = get_str(&r);
                s->n_warnings = i + 1;
            }
        }
    }
    if (get_u8(&r) && r.st == JL_OK) {
        if (!(s->published = calloc(1, sizeof *s->published))) {
            r.st = JL_ENOMEM;
        } else {
            s->published->source = get_str(&r);
            take(&r, s->published->fig, sizeof s->published->fig);
            take(&r, s->published->recomputed, sizeof s->published->recomputed);
            s->published->with_published_rate = get_u64(&r);
            s->published->mark_threshold = get_f64(&r);
            s->published->from_parts = get_u64(&r);
        }
    }
    if (get_u8(&r) && r.st == JL_OK) {
        jl_host_summary *h = calloc(1, sizeof *h);
        if (!(s->host = h)) {
            r.st = JL_ENOMEM;
        } else {
            h->source = get_str(&r);
            int32_t m = get_i32(&r);
            if (m < JL_HOST_NONE || m > JL_HOST_NODE_AC) {
                if (r.st == JL_OK)
                    r.st = JL_EINVALID;
            }
            h->method = (jl_host_method)m;
            uint64_t S = get_u64(&r);
            h->sockets = (size_t)S;
            if (get_u8(&r))
                h->cpu_energy_j = get_doubles(&r, S);
            if (get_u8(&r))
                h->dram_energy_j = get_doubles(&r, S);
            h->cpu_dram_energy_j = get_f64(&r);
            h->node_energy_j = get_f64(&r);
            h->rest_energy_j = get_f64(&r);
        }
    }
    /* boundaries (summary/boundary.c) */
    int32_t bw = get_i32(&r), bs = get_i32(&r), ts = get_i32(&r);
    if ((bw < 0 || bw >= JL_WINDOW_COUNT || bs < 0 || bs >= JL_SCOPE_COUNT || ts < 0 ||
         ts > JL_SCOPE_COUNT) &&
        r.st == JL_OK)
        r.st = JL_EINVALID;
    s->boundary.window = (jl_window)bw;
    s->boundary.scope = (jl_scope)bs;
    s->total_scope = (jl_scope)ts;
    s->peak_power_kind = get_str(&r);
    uint32_t nr = get_u32(&r);
    if (r.st == JL_OK && nr > 0) {
        if (nr > (r.n - r.pos) / 16) {
            r.st = JL_EINVALID;
        } else if (!(s->validity.reasons = calloc(nr, sizeof *s->validity.reasons))) {
            r.st = JL_ENOMEM;
        } else {
            for (uint32_t i = 0; i < nr && r.st == JL_OK; i++) {
                jl_reason *x = &s->validity.reasons[i];
                x->code = get_str(&r);
                x->message = get_str(&r);
                x->energy_bound_j = get_f64(&r);
                s->validity.n = i + 1;
                if (r.st == JL_OK && (!x->code || !x->message))
                    r.st = JL_EINVALID;
            }
        }
    }
    if (r.st != JL_OK) {
        jl_summary_free(s);
        return r.st;
    }
    *used = r.pos;
    *out = s;
    return JL_OK;
}

jl_status jl__wire_get_error(const unsigned char *p, size_t n, size_t *used, jl_error **out)
{
    *out = NULL;
    rd r = {p, n, 0, JL_OK};
    jl_error *head = NULL, **link = &head;
    int more = 1;
    for (int depth = 0; more && r.st == JL_OK; depth++) {
        if (depth >= MAX_CAUSES) {
            r.st = JL_EINVALID;
            break;
        }
        jl_error *e = calloc(1, sizeof *e);
        if (!e) {
            r.st = JL_ENOMEM;
            break;
        }
        *link = e;
        link = &e->cause;
        int32_t code = get_i32(&r);
        if (r.st == JL_OK && (code < 0 || code >= JL_STATUS_COUNT))
            r.st = JL_EINVALID;
        e->code = (jl_status)code;
        e->file = get_str(&r);
        e->run = get_str(&r);
        e->object = get_str(&r);
        e->row = (long long)get_i64(&r);
        e->message = get_str(&r);
        if (r.st == JL_OK && !e->message)
            r.st = JL_EINVALID;
        more = get_u8(&r);
    }
    if (r.st != JL_OK) {
        jl_error_free(head);
        return r.st;
    }
    *used = r.pos;
    *out = head;
    return JL_OK;
}
