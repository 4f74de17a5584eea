/* joules import mlperf-power: one measured run of an MLPerf Inference power
 * submission (SPEC PTDaemon's spl.txt + LoadGen's mlperf_log_detail.txt,
 * optionally mlperf_log_summary.txt) as a run with @power_scope node_ac.
 * Field mapping and the checker's rules: docs/import.md, "MLPerf Power". */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/util.h"
#include "import/kit.h"
#include "joules/import.h"
#include "json/json_internal.h"

#define SOURCE "MLPerf Inference power run (SPEC PTDaemon spl.txt, LoadGen mlperf_log_detail.txt)"
#define MAX_CHANNELS 16

/* One import: the kit's context first (a walk gets it as a jl__imp *) and
 * the user's --set values, applied to every run over what the files say. */
typedef struct mlp {
    jl__imp c;
    const jl__imp_sets *sets;
} mlp;

/* ---- time stamps ------------------------------------------------------------ */

/* "MM-DD-YYYY HH:MM:SS.fff" (PTDaemon and LoadGen's power marks) as Unix
 * seconds, read as UTC (the logs carry no zone). Returns 0 or -1. */
static int parse_stamp(const char *s, size_t n, double *out)
{
    unsigned mo, d, y, h, mi;
    char buf[48];
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    int used = 0;
    if (sscanf(buf, "%2u-%2u-%4u %2u:%2u:%n", &mo, &d, &y, &h, &mi, &used) != 5 || used == 0)
        return -1;
    char *end = NULL;
    errno = 0;
    double sec = strtod(buf + used, &end);
    if (errno || end == buf + used || *end || !isdigit((unsigned char)buf[used]))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || !(sec >= 0 && sec < 61))
        return -1;
    jl__civil cv = {(int)y, (int)mo, (int)d, (int)h, (int)mi, sec, 0, 0};
    *out = jl__civil_utc(&cv);
    return 0;
}

/* Differences of Unix times, to the microsecond (the stamps have ms). */
static double round_us(double dt)
{
    return round(dt * 1e6) / 1e6;
}

/* ---- the LoadGen detail log ------------------------------------------------- */

/* A scalar of an MLLOG record, as read. */
/* V_BIG: an integer beyond 64 bits (LoadGen's unsigned RNG seeds): its
 * digits in s, its value as a real in num. */
typedef enum { V_NONE, V_INT, V_REAL, V_BIG, V_STR, V_TRUE, V_FALSE, V_NULL, V_OTHER } vkind;

typedef struct mlval {
    vkind kind;
    long long i;
    double num;
    char *s;
} mlval;

typedef struct kept {
    char *key;
    mlval v;
} kept;

typedef struct mllog {
    double power_begin, power_end; /* Unix s; NaN when absent */
    char *begin_text, *end_text;
    char *scenario;
    double samples_per_s,
        tokens_per_s; /* Offline: result_samples_per_second, result_tokens_per_second */
    double completed_per_s,
        scheduled_per_s; /* Server: result_{completed,scheduled}_samples_per_sec */
    double completed_tok_s, inferred_tok_s, inferred_completed_tok_s;
    double samples_per_query, max_async, query_count, generated_queries;
    char *validity;
    long n_errors;
    kept *keep; /* scalar keys kept as extras, in file order of first sight */
    size_t n_keep;
} mllog;

static void mllog_free(mllog *m)
{
    free(m->begin_text);
    free(m->end_text);
    free(m->scenario);
    free(m->validity);
    for (size_t i = 0; i < m->n_keep; i++) {
        free(m->keep[i].key);
        free(m->keep[i].v.s);
    }
    free(m->keep);
}

static const char *const skip_prefix[] = {"loadgen_file_sha1",
                                          "loadgen_git_",
                                          "logger_",
                                          "generic_message",
                                          "warning_generic_message",
                                          "error_",
                                          "loaded_qsl_set",
                                          "power_begin",
                                          "power_end"};

static int skipped_key(const char *k)
{
    for (size_t i = 0; i < sizeof skip_prefix / sizeof skip_prefix[0]; i++)
        if (!strncmp(k, skip_prefix[i], strlen(skip_prefix[i])))
            return 1;
    return 0;
}

static int is_number(const mlval *v)
{
    return v->kind == V_INT || v->kind == V_REAL || v->kind == V_BIG;
}

static double number_of(const mlval *v)
{
    return v->kind == V_INT ? (double)v->i : v->num;
}

/* One `:::MLLOG {json}` record as read by the streaming reader: its
 * "key", its "value" (a scalar; an object or array is V_OTHER) and
 * whether metadata.is_error is true. */
typedef struct record {
    char *key;
    mlval value;
    int is_error;
    char *why; /* NULL: read; else what is wrong */
} record;

static void record_free(record *r)
{
    free(r->key);
    free(r->value.s);
    free(r->why);
}

/* The value whose first token is t: a scalar, or a container skipped
 * (V_OTHER). An integer beyond 64 bits (every LoadGen log since v1.1 has
 * its RNG seeds as unsigned 64-bit numbers) is kept as its digits (V_BIG).
 * 0, or -1. */
static int read_value(js *p, jl__jstream_tok t, mlval *v, record *r)
{
    (void)r;
    memset(v, 0, sizeof *v);
    switch (t) {
    case JS_NUM:
        if (p->num_kind == 2) { /* the digits just read end at the parser's position */
            const char *e = p->buf + p->pos, *q = e;
            while (q > p->buf && (isdigit((unsigned char)q[-1]) || q[-1] == '-'))
                q--;
            v->kind = V_BIG;
            v->num = p->num;
            v->s = jl__asprintf("%.*s", (int)(e - q), q);
            return v->s ? 0 : -1;
        }
        v->kind = p->num_kind == 1 ? V_INT : V_REAL;
        v->i = p->num_int;
        v->num = p->num;
        return 0;
    case JS_STR: v->kind = V_STR; return (v->s = jl__strdup(p->str)) ? 0 : -1;
    case JS_TRUE: v->kind = V_TRUE; return 0;
    case JS_FALSE: v->kind = V_FALSE; return 0;
    case JS_NULL: v->kind = V_NULL; return 0;
    case JS_OBJ_START:
    case JS_ARR_START: v->kind = V_OTHER; return jl__jstream_skip_open(p);
    default: return -1;
    }
}

/* metadata: only is_error matters. */
static int read_metadata(js *p, record *r)
{
    jl__jstream_tok t;
    while ((t = jl__jstream_next(p)) == JS_KEY) {
        int is_error = !strcmp(p->str, "is_error");
        mlval v;
        if (read_value(p, jl__jstream_next(p), &v, r))
            return -1;
        free(v.s);
        if (is_error)
            r->is_error = v.kind == V_TRUE;
    }
    return t == JS_OBJ_END ? 0 : -1;
}

#define MAX_RECORD_KEYS 64

/* Parse the record's text; -1 with r->why when it is not a JSON object of
 * distinct keys. */
static int read_record(const char *txt, size_t n, record *r)
{
    js p;
    jl__jstream_init_mem(&p, txt, n, (size_t)1 << 20);
    char *seen[MAX_RECORD_KEYS];
    size_t n_seen = 0;
    int rc = -1;
    jl__jstream_tok t = jl__jstream_next(&p);
    if (t != JS_OBJ_START) {
        r->why = t == JS_ERROR ? NULL : jl__strdup("wrong type");
        goto end;
    }
    while ((t = jl__jstream_next(&p)) == JS_KEY) {
        for (size_t i = 0; i < n_seen; i++)
            if (!strcmp(seen[i], p.str)) {
                r->why = jl__asprintf("duplicate object key near '%s', column %lld", p.str,
                                      jl__jstream_col(&p));
                goto end;
            }
        if (n_seen == MAX_RECORD_KEYS) {
            r->why = jl__strdup("more than 64 keys");
            goto end;
        }
        if (!(seen[n_seen] = jl__strdup(p.str)))
            goto end;
        const char *k = seen[n_seen++];
        t = jl__jstream_next(&p);
        if (!strcmp(k, "metadata") && t == JS_OBJ_START) {
            if (read_metadata(&p, r))
                goto end;
            continue;
        }
        mlval v;
        if (read_value(&p, t, &v, r))
            goto end;
        if (!strcmp(k, "key")) {
            free(r->key);
            r->key = v.kind == V_STR ? v.s : NULL;
            if (v.kind != V_STR)
                free(v.s);
        } else if (!strcmp(k, "value")) {
            r->value = v;
        } else {
            free(v.s);
        }
    }
    if (t == JS_OBJ_END && jl__jstream_next(&p) == JS_EOF)
        rc = 0;
end:
    if (rc && !r->why)
        r->why = jl__asprintf("%s, column %lld", p.err[0] ? p.err : "out of memory",
                              jl__jstream_col(&p));
    for (size_t i = 0; i < n_seen; i++)
        free(seen[i]);
    jl__jstream_free(&p);
    return rc;
}

static int set_text(jl__imp *c, char **dst, const char *s)
{
    free(*dst);
    *dst = jl__strdup(s);
    if (!*dst)
        c->oom = 1;
    return *dst ? 0 : -1;
}

/* A scalar record kept as an extra, at its first sight. */
static void keep_record(jl__imp *c, mllog *m, const char *key, mlval *v)
{
    if (skipped_key(key) ||
        !(is_number(v) || v->kind == V_STR || v->kind == V_TRUE || v->kind == V_FALSE))
        return;
    for (size_t i = 0; i < m->n_keep; i++)
        if (!strcmp(m->keep[i].key, key))
            return;
    kept *g = realloc(m->keep, (m->n_keep + 1) * sizeof *g);
    if (!g || !(g[m->n_keep].key = jl__strdup(key))) {
        if (g)
            m->keep = g;
        c->oom = 1;
        return;
    }
    m->keep = g;
    g[m->n_keep].v = *v;
    v->s = NULL; /* taken over */
    m->n_keep++;
}

/* The numbers of the records joules reads (>= 0), by key. */
static double *number_slot(mllog *m, const char *key)
{
    return !strcmp(key, "result_samples_per_second")            ? &m->samples_per_s
           : !strcmp(key, "result_tokens_per_second")           ? &m->tokens_per_s
           : !strcmp(key, "result_completed_samples_per_sec")   ? &m->completed_per_s
           : !strcmp(key, "result_scheduled_samples_per_sec")   ? &m->scheduled_per_s
           : !strcmp(key, "result_completed_tokens_per_second") ? &m->completed_tok_s
           : !strcmp(key, "result_inferred_tokens_per_second")  ? &m->inferred_tok_s
           : !strcmp(key, "result_inferred_completed_tokens_per_second")
               ? &m->inferred_completed_tok_s
           : !strcmp(key, "effective_samples_per_query") ? &m->samples_per_query
           : !strcmp(key, "effective_max_async_queries") ? &m->max_async
           : !strcmp(key, "result_query_count")          ? &m->query_count
           : !strcmp(key, "generated_query_count")       ? &m->generated_queries
                                                         : NULL;
}

/* One record's key and value into m. Returns 0, or -1 after an error. */
static int take_record(jl__imp *c, mllog *m, const char *file, long long line, record *rec)
{
    const char *key = rec->key;
    mlval *v = &rec->value;
    double *num = number_slot(m, key);
    if (num) {
        if (!is_number(v) || !isfinite(number_of(v)) || number_of(v) < 0) {
            jl__imp_err(c, JL_ETYPE, file, key, line, "expected a finite number >= 0, found %s",
                        is_number(v) ? "a negative number" : "another type");
            return -1;
        }
        *num = number_of(v);
    } else if (!strcmp(key, "power_begin") || !strcmp(key, "power_end")) {
        int begin = key[6] == 'b';
        double t;
        if (v->kind != V_STR || parse_stamp(v->s, strlen(v->s), &t)) {
            jl__imp_err(c, JL_EINVALID, file, key, line,
                        "expected a time \"MM-DD-YYYY HH:MM:SS.fff\"");
            return -1;
        }
        *(begin ? &m->power_begin : &m->power_end) = t;
        if (set_text(c, begin ? &m->begin_text : &m->end_text, v->s))
            return -1;
    } else if (!strcmp(key, "effective_scenario") ||
               (!strcmp(key, "requested_scenario") && !m->scenario)) {
        if (v->kind != V_STR) {
            jl__imp_err(c, JL_ETYPE, file, key, line, "expected a string");
            return -1;
        }
        if (set_text(c, &m->scenario, v->s))
            return -1;
    } else if (!strcmp(key, "result_validity") && v->kind == V_STR) {
        if (set_text(c, &m->validity, v->s))
            return -1;
    }
    keep_record(c, m, key, v);
    return 0;
}

/* One `:::MLLOG {json}` line. Returns 0, or -1 after an error was pushed. */
static int mllog_line(jl__imp *c, mllog *m, const char *file, long long line, const char *txt,
                      size_t n)
{
    record rec = {0};
    int rc = -1;
    if (read_record(txt, n, &rec)) {
        jl__imp_err(c, JL_EFORMAT, file, ":::MLLOG", line, "not a JSON object (%s)",
                    rec.why ? rec.why : "out of memory");
        goto end;
    }
    if (rec.is_error)
        m->n_errors++;
    if (!rec.key || rec.value.kind == V_NONE) {
        jl__imp_err(c, JL_EMISSING, file, !rec.key ? "key" : "value", line,
                    "an MLLOG record needs a string \"key\" and a \"value\"");
        goto end;
    }
    rc = take_record(c, m, file, line, &rec);
end:
    record_free(&rec);
    return rc;
}

static int read_detail(jl__imp *c, mllog *m, const char *file, const char *buf, size_t len)
{
    static const char tag[] = ":::MLLOG";
    long long line = 0;
    size_t records = 0;
    for (size_t i = 0; i < len;) {
        const char *s = buf + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl ? (size_t)(nl - s) : len - i;
        i += n + 1;
        line++;
        if (n >= sizeof tag - 1 && !memcmp(s, tag, sizeof tag - 1)) {
            records++;
            if (mllog_line(c, m, file, line, s + sizeof tag - 1, n - (sizeof tag - 1)))
                return -1;
        }
    }
    if (!records) {
        jl__imp_err(c, JL_EFORMAT, file, NULL, -1, "no :::MLLOG record: not a LoadGen detail log");
        return -1;
    }
    const char *missing = isnan(m->power_begin) ? "power_begin"
                          : isnan(m->power_end) ? "power_end"
                          : !m->scenario        ? "effective_scenario"
                                                : NULL;
    if (missing) {
        jl__imp_err(c, JL_EMISSING, file, missing, -1,
                    "no %s record (a run without power measurement?)", missing);
        return -1;
    }
    if (!(m->power_end > m->power_begin)) {
        jl__imp_err(c, JL_EINVALID, file, "power_end", -1,
                    "power_end (%s) is not after power_begin (%s)", m->end_text, m->begin_text);
        return -1;
    }
    return 0;
}

/* ---- the PTDaemon sample log ---------------------------------------------- */

typedef struct spl {
    size_t n, cap;
    double *t, *w;        /* samples strictly inside the window: time from begin, W */
    double sum_w, peak_w; /* checker's mean = sum_w / n */
    double sum_v, sum_a, sum_pf;
    size_t n_v, n_a, n_pf;
    int n_ch; /* analyser channels seen (0: one-channel log) */
    double ch_sum[MAX_CHANNELS];
    size_t before, after, dropped;
    size_t unmeasured;            /* readings whose total Volts was < 0 (not measured) */
    double max_total_vs_channels; /* largest |Watts - sum(ChN Watts)| / Watts */
} spl;

static void spl_free(spl *s)
{
    free(s->t);
    free(s->w);
}

/* One `Time,...` record: its time and readings (Watts the channels' sum
 * where the analyser has channels). */
typedef struct reading {
    double t, w, v, a, pf;
    int n_ch;
    double chw[MAX_CHANNELS];
} reading;

static int field_is(const jl__csv_row *row, size_t k, const char *word)
{
    return k < row->n && !strcmp(row->f[k].s, word);
}

static int field_num(const jl__csv_row *row, size_t k, double *out)
{
    return k < row->n && jl__imp_number(row->f[k].s, out) ? 0 : -1;
}

static int spl_push(jl__imp *c, spl *s, double t, double w)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 1024;
        double *nt = realloc(s->t, ncap * sizeof *nt);
        if (nt)
            s->t = nt;
        double *nw = nt ? realloc(s->w, ncap * sizeof *nw) : NULL;
        if (!nw) {
            c->oom = 1;
            return -1;
        }
        s->w = nw;
        s->cap = ncap;
    }
    s->t[s->n] = t;
    s->w[s->n++] = w;
    return 0;
}

/* The "<name>,<value>" pairs after the time: Watts, Volts, Amps, PF of the
 * total, then per channel "ChN" followed by its own pairs (only Watts
 * read). Returns 0 or -1 (error pushed). */
static int read_pairs(jl__imp *c, const char *file, const jl__csv_row *row, reading *x)
{
    int ch = -1;
    for (size_t k = 2; k + 1 < row->n; k++) {
        const char *f = row->f[k].s;
        if (row->f[k].len >= 3 && !memcmp(f, "Ch", 2) && isdigit((unsigned char)f[2])) {
            if (++ch >= MAX_CHANNELS) {
                jl__imp_err(c, JL_ELIMIT, file, "Ch", row->line, "more than %d channels",
                            MAX_CHANNELS);
                return -1;
            }
            x->chw[ch] = NAN;
            continue;
        }
        static const char *const names[] = {"Watts", "Volts", "Amps", "PF"};
        int which = -1;
        for (int q = 0; q < 4 && which < 0; q++)
            if (field_is(row, k, names[q]))
                which = q;
        if (which < 0)
            continue;
        double v;
        if (field_num(row, k + 1, &v)) {
            jl__imp_err(c, JL_ETYPE, file, names[which], row->line,
                        "expected a number after \"%s\" (field %zu)", f, k + 2);
            return -1;
        }
        double *dst = ch >= 0      ? (which == 0 ? &x->chw[ch] : NULL)
                      : which == 0 ? &x->w
                      : which == 1 ? &x->v
                      : which == 2 ? &x->a
                                   : &x->pf;
        if (dst)
            *dst = v;
        k++;
    }
    x->n_ch = ch + 1;
    return 0;
}

/* One record's reading: time (not before prev), then pairs; channels summed into w (their
 * total compared with the analyser's). Returns 0 or -1 (error pushed). */
static int read_reading(jl__imp *c, spl *s, const char *file, const jl__csv_row *row, double prev,
                        reading *x)
{
    *x = (reading){.w = NAN, .v = NAN, .a = NAN, .pf = NAN};
    if (row->n < 4 || parse_stamp(row->f[1].s, row->f[1].len, &x->t)) {
        jl__imp_err(c, JL_EINVALID, file, "Time", row->line,
                    "expected Time,MM-DD-YYYY HH:MM:SS.fff,...");
        return -1;
    }
    if (x->t < prev) {
        jl__imp_err(c, JL_EINVALID, file, "Time", row->line,
                    "time goes backwards (%.3f s before the previous sample)", prev - x->t);
        return -1;
    }
    if (read_pairs(c, file, row, x))
        return -1;
    if (x->n_ch > 0) {
        double total = 0;
        for (int k = 0; k < x->n_ch; k++) {
            if (isnan(x->chw[k])) {
                jl__imp_err(c, JL_EMISSING, file, "Watts", row->line,
                            "channel Ch%d has no Watts value", k + 1);
                return -1;
            }
            total += x->chw[k];
        }
        if (s->n_ch && s->n_ch != x->n_ch) {
            jl__imp_err(c, JL_EINVALID, file, "Ch", row->line,
                        "%d channels here, %d on earlier lines", x->n_ch, s->n_ch);
            return -1;
        }
        s->n_ch = x->n_ch;
        if (isfinite(x->w) && x->w > 0) {
            double rel = fabs(x->w - total) / x->w;
            if (rel > s->max_total_vs_channels)
                s->max_total_vs_channels = rel;
        }
        x->w = total;
    }
    if (isnan(x->w)) {
        jl__imp_err(c, JL_EMISSING, file, "Watts", row->line, "no Watts value on this line");
        return -1;
    }
    return 0;
}

/* A reading strictly inside (begin, end) with Watts > 0 into s. */
static int add_reading(jl__imp *c, spl *s, const reading *x, double begin, double end)
{
    if (!(x->t > begin)) {
        s->before++;
        return 0;
    }
    if (!(x->t < end)) {
        s->after++;
        return 0;
    }
    if (!(x->w > 0)) { /* PTDaemon writes -1 for a failed reading */
        s->dropped++;
        return 0;
    }
    if (spl_push(c, s, round_us(x->t - begin), x->w))
        return -1;
    s->sum_w += x->w;
    if (x->w > s->peak_w)
        s->peak_w = x->w;
    /* an analyser writes -1 for what it does not measure (a multi-channel
     * analyser's total Volts and Amps): missing, not data */
    if (isfinite(x->v) && x->v >= 0) {
        s->sum_v += x->v;
        s->n_v++;
    } else if (isfinite(x->v)) {
        s->unmeasured++;
    }
    if (isfinite(x->a) && x->a >= 0) {
        s->sum_a += x->a;
        s->n_a++;
    }
    if (isfinite(x->pf) && x->pf > 0) {
        s->sum_pf += x->pf;
        s->n_pf++;
    }
    for (int k = 0; k < x->n_ch; k++)
        s->ch_sum[k] += x->chw[k];
    return 0;
}

/* Parse spl.txt (the kit's CSV reader, quotes plain: the checker splits
 * at commas), keep the samples strictly inside (begin, end) whose Watts
 * is > 0, as the MLPerf submission checker does. Returns 0 or -1 (error
 * pushed). */
static int read_spl(jl__imp *c, spl *s, const char *file, const char *buf, size_t len, double begin,
                    double end)
{
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    if (jl__csv_open_buffer(buf, len, file, &csv, &err) != JL_OK) {
        jl_error_list_push(c->errors, err);
        c->oom = 1;
        return -1;
    }
    jl__csv_plain(csv);
    double prev = -INFINITY;
    jl__csv_row row;
    int r, rc = -1;
    while ((r = jl__csv_next(csv, &row, &err)) > 0) {
        /* PTDaemon writes other records (e.g. errors); the checker skips them */
        if (row.n < 2 || row.f[0].column != 1 || strcmp(row.f[0].s, "Time"))
            continue;
        reading x;
        if (read_reading(c, s, file, &row, prev, &x))
            goto end;
        prev = x.t;
        if (add_reading(c, s, &x, begin, end))
            goto end;
    }
    if (r < 0) {
        jl_error_list_push(c->errors, err);
        goto end;
    }
    if (s->n == 0) {
        jl__imp_err(c, JL_ENODATA, file, "Time", -1,
                    "no power sample lies strictly between power_begin and power_end "
                    "(%zu before, %zu after, %zu readings <= 0)",
                    s->before, s->after, s->dropped);
        goto end;
    }
    rc = 0;
end:
    jl__csv_close(csv);
    return rc;
}

/* ---- where the run sits in a submission tree -------------------------------- */

typedef struct where {
    char *system, *benchmark, *scenario_dir, *run;
    char *root;     /* the folder holding results/ (systems/ beside it), or NULL */
    int compliance; /* under compliance/: an audit test's run, not the result */
} where;

static void where_free(where *w)
{
    free(w->system);
    free(w->benchmark);
    free(w->scenario_dir);
    free(w->run);
    free(w->root);
}

/* .../results/<system>/<benchmark>/<scenario>/performance/<run>: the last
 * components of the run folder's absolute, resolved path (missing ones
 * stay NULL), so a run named `run_1`, `.`, `../run_1/` or through a
 * symbolic link is the run its absolute path names. */
static void locate(jl__imp *c, const char *dir, where *w)
{
    memset(w, 0, sizeof *w);
    char *copy = jl__imp_real_path(c, dir);
    if (!copy)
        return;
    char *parts[64];
    int n = 0;
    for (char *tok = strtok(copy, "/"); tok && n < 64; tok = strtok(NULL, "/"))
        if (strcmp(tok, "."))
            parts[n++] = tok;
    int perf = -1;
    for (int k = n - 1; k >= 0; k--)
        if (!strcmp(parts[k], "performance")) {
            perf = k;
            break;
        }
    for (int k = 0; k < n; k++)
        w->compliance |= !strcmp(parts[k], "compliance");
    if (n > 0)
        w->run = jl__strdup(parts[n - 1]);
    if (perf >= 3) {
        w->scenario_dir = jl__strdup(parts[perf - 1]);
        w->benchmark = jl__strdup(parts[perf - 2]);
        w->system = jl__strdup(parts[perf - 3]);
        if (perf >= 4 && !strcmp(parts[perf - 4], "results")) {
            jl__strbuf b;
            jl__strbuf_init(&b);
            for (int k = 0; k < perf - 4; k++)
                jl__strbuf_printf(&b, "/%s", parts[k]);
            w->root = b.len ? jl__strbuf_take(&b) : (jl__strbuf_free(&b), jl__strdup("/"));
        }
    }
    free(copy);
}

typedef struct bench_kind {
    const char *prefix, *workload;
} bench_kind;

/* MLPerf benchmark ids (the submission checker's models and the names
 * submitters give their folders, v0.5 to v5.1) by workload: the generative
 * language models, the diffusion ones, and the per-sample workloads
 * (attrs.h: language for BERT, vision, speech, recommendation, graph),
 * whose energy is per sample. */
static const bench_kind bench_kinds[] = {
    {"bert", "language"}, /* question answering: an encoder, no generated tokens */
    {"gnmt", "language"},
    {"gptj", "llm"},
    {"gpt-j", "llm"},
    {"gpt", "llm"},
    {"llama", "llm"},
    {"mixtral", "llm"},
    {"deepseek", "llm"},
    {"qwen", "llm"},
    {"stable-diffusion", "diffusion"},
    {"sdxl", "diffusion"},
    {"resnet", "vision"},
    {"mobilenet", "vision"},
    {"efficientnet", "vision"},
    {"ssd", "vision"},
    {"retinanet", "vision"},
    {"3d-unet", "vision"},
    {"3dunet", "vision"},
    {"unet3d", "vision"},
    {"pointpainting", "vision"},
    {"yolo", "vision"},
    {"rcnn", "vision"},
    {"rnnt", "speech"},
    {"rnn-t", "speech"},
    {"whisper", "speech"},
    {"dlrm", "recommendation"},
    {"rgat", "graph"},
    {"gnn", "graph"},
};

/* The workload of benchmark `bench`: from the table, "other" for a name
 * it does not know (*known 0), NULL without a name. */
static const char *workload_of(const char *bench, int *known)
{
    *known = 0;
    if (!bench)
        return NULL;
    for (size_t i = 0; i < sizeof bench_kinds / sizeof bench_kinds[0]; i++)
        if (!strncasecmp(bench, bench_kinds[i].prefix, strlen(bench_kinds[i].prefix))) {
            *known = 1;
            return bench_kinds[i].workload;
        }
    return "other";
}

/* ---- the system description (<root>/systems/<system>.json) ------------------ */

/* A count in a system description: a whole number, or a string of one
 * ("8"); -1 when absent or neither (the checker's files write both). */
static long desc_count(const jl__jv *v)
{
    if (jv_is_integer(v))
        return jv_integer_value(v) >= 0 && jv_integer_value(v) < 1000000 ? (long)jv_integer_value(v)
                                                                         : -1;
    if (jv_is_real(v)) {
        double x = jv_real_value(v);
        return x >= 0 && x < 1e6 && x == floor(x) ? (long)x : -1;
    }
    const char *s = jv_string_value(v);
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    char *end = NULL;
    long x = strtol(s, &end, 10);
    while (end && isspace((unsigned char)*end))
        end++;
    return end != s && end && !*end && x >= 0 && x < 1000000 ? x : -1;
}

/* "N/A", "none", "" and the like: no accelerator named. */
static int no_accelerator(const char *s)
{
    if (!s)
        return 1;
    while (isspace((unsigned char)*s))
        s++;
    return !*s || !strcasecmp(s, "N/A") || !strcasecmp(s, "NA") || !strcasecmp(s, "none") ||
           !strcasecmp(s, "-") || !strcasecmp(s, "null");
}

typedef struct sysdesc {
    int found;           /* the file was read */
    char gpu_model[128]; /* joules' id, or the name kept */
    long count;          /* accelerators (or processors) of the whole system, >= 1 */
    double memory_bytes;
    int known; /* the name table knows it */
    int cpu;   /* no accelerator: the host processors ran the benchmark */
} sysdesc;

static void desc_extra(jl__imp *c, jl_run *r, const jl__jv *d, const char *field)
{
    const jl__jv *v = jv_object_get(d, field);
    char *key = jl__asprintf("mlperf_%s", field);
    if (!key) {
        c->oom = 1;
        return;
    }
    if (jv_is_string(v))
        jl__imp_extra_str(c, r, key, jv_string_value(v));
    else if (jv_is_number(v))
        jl__imp_extra_num(c, r, key, jv_number_value(v));
    free(key);
}

/* The accelerator and its count from the submission's system description
 * (accelerator_model_name, accelerators_per_node x number_of_nodes; a
 * system without accelerators: its host processors), kept as extras
 * too. 0 when there is none to read (sd->found 0), -1 on an error
 * (pushed). */
static int read_sysdesc(jl__imp *c, jl_run *r, const where *w, sysdesc *sd)
{
    memset(sd, 0, sizeof *sd);
    sd->memory_bytes = NAN;
    if (!w->root || !w->system)
        return 0;
    char *path = jl__asprintf("%s/systems/%s.json", strcmp(w->root, "/") ? w->root : "", w->system);
    if (!path) {
        c->oom = 1;
        return -1;
    }
    size_t len = 0;
    char *text = jl__imp_is_file(path) ? jl__imp_read_file(c, path, &len) : NULL;
    if (!text) {
        free(path);
        return 0;
    }
    jl__jv *d = jl__imp_json_tree(c, path, text, len, JL__IMP_DUPS_NOTE);
    free(text);
    int rc = -1;
    if (!d)
        goto end;
    if (!jv_is_object(d)) {
        jl__imp_err(c, JL_EFORMAT, path, NULL, -1, "a system description is a JSON object");
        goto end;
    }
    static const char *const fields[] = {"system_name",
                                         "submitter",
                                         "division",
                                         "system_type",
                                         "status",
                                         "accelerator_model_name",
                                         "accelerators_per_node",
                                         "number_of_nodes",
                                         "host_processor_model_name",
                                         "host_processors_per_node",
                                         "accelerator_memory_capacity",
                                         NULL};
    for (const char *const *f = fields; *f; f++)
        desc_extra(c, r, d, *f);
    const char *acc = jv_string_value(jv_object_get(d, "accelerator_model_name"));
    long per_node = desc_count(jv_object_get(d, "accelerators_per_node"));
    long nodes = desc_count(jv_object_get(d, "number_of_nodes"));
    if (nodes < 1)
        nodes = 1; /* absent (older rounds) or "N/A": one node */
    sd->found = 1;
    if (no_accelerator(acc) || per_node == 0) {
        const char *cpu = jv_string_value(jv_object_get(d, "host_processor_model_name"));
        long per = desc_count(jv_object_get(d, "host_processors_per_node"));
        sd->cpu = 1;
        sd->known = !no_accelerator(cpu);
        snprintf(sd->gpu_model, sizeof sd->gpu_model, "%s", sd->known ? cpu : "unknown");
        sd->count = (per >= 1 ? per : 1) * nodes;
        jl__imp_note(c, path, "accelerator_model_name",
                     "the system has no accelerator (%s): the benchmark ran on its host "
                     "processors, @gpu_model '%s' x %ld (@mlperf_accelerator_kind cpu)",
                     acc ? acc : "none named", sd->gpu_model, sd->count);
    } else {
        char id[64];
        sd->known = jl__imp_gpu_name(acc, id, sizeof id, &sd->memory_bytes);
        snprintf(sd->gpu_model, sizeof sd->gpu_model, "%s", sd->known ? id : acc);
        if (per_node < 1) {
            jl__imp_note(c, path, "accelerators_per_node",
                         "no accelerator count (%s): taken as 1 per node",
                         jv_object_get(d, "accelerators_per_node") ? "not a whole number"
                                                                   : "absent");
            per_node = 1;
        }
        sd->count = per_node * nodes;
        if (!sd->known)
            jl__imp_note(c, path, "accelerator_model_name",
                         "accelerator '%s' is not in the GPU name table: kept as written", acc);
    }
    rc = 1;
end:
    jl__jv_free(d);
    free(path);
    return rc;
}

/* ---- one run ------------------------------------------------------------------ */

static void keep_mllog(jl__imp *c, jl_run *r, const mllog *m)
{
    for (size_t i = 0; i < m->n_keep; i++) {
        const mlval *v = &m->keep[i].v;
        char *key = jl__asprintf("mlperf_%s", m->keep[i].key);
        if (!key) {
            c->oom = 1;
            return;
        }
        if (v->kind == V_INT) {
            char num[32];
            snprintf(num, sizeof num, "%lld", v->i);
            jl__imp_extra_text(c, r, key, num, 1);
        } else if (v->kind == V_BIG) {
            jl__imp_extra_text(c, r, key, v->s, 1); /* exactly, as written */
        } else if (v->kind == V_REAL)
            jl__imp_extra_num(c, r, key, v->num);
        else if (v->kind == V_STR)
            jl__imp_extra_str(c, r, key, v->s);
        else
            jl__imp_extra_str(c, r, key, v->kind == V_TRUE ? "true" : "false");
        free(key);
    }
}

/* mlperf_log_summary.txt: cross-check its "Samples per second". */
static void check_summary(jl__imp *c, const char *file, const char *buf, const mllog *m)
{
    const char *p = strstr(buf, "Samples per second:");
    if (!p || isnan(m->samples_per_s))
        return;
    double v = strtod(p + strlen("Samples per second:"), NULL);
    if (!(fabs(v - m->samples_per_s) <= 1e-6 * fmax(1.0, fabs(v))))
        jl__imp_note(c, file, "Samples per second",
                     "the summary says %.9g, the detail log's result_samples_per_second %.9g", v,
                     m->samples_per_s);
}

/* The first finite value > 0 of vals (n of them), its key into *key. */
static double first_rate(const double *vals, const char *const *keys, size_t n, const char **key)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(vals[i]) && vals[i] > 0) {
            *key = keys[i];
            return vals[i];
        }
    *key = NULL;
    return NAN;
}

/* The scenario's throughput as LoadGen writes it and the submission
 * checker reads it (RESULT_FIELD_NEW, RESULT_FIELD_BENCHMARK_OVERWRITE):
 * Offline result_samples_per_second and result_tokens_per_second (GPT-J:
 * result_inferred_tokens_per_second); Server the completed rate (v4.1 on),
 * else the scheduled one (earlier checkers), and
 * result_completed_tokens_per_second (GPT-J: the inferred one). The
 * completed rate is what energy per sample divides by: the samples the
 * system finished per second while it drew the power. */
static void rates(const mllog *m, double *samples, const char **skey, double *tokens,
                  const char **tkey)
{
    if (!strcmp(m->scenario, "Server")) {
        const double sv[] = {m->completed_per_s, m->scheduled_per_s};
        static const char *const sk[] = {"result_completed_samples_per_sec",
                                         "result_scheduled_samples_per_sec"};
        const double tv[] = {m->completed_tok_s, m->inferred_completed_tok_s};
        static const char *const tk[] = {"result_completed_tokens_per_second",
                                         "result_inferred_completed_tokens_per_second"};
        *samples = first_rate(sv, sk, 2, skey);
        *tokens = first_rate(tv, tk, 2, tkey);
    } else {
        const double sv[] = {m->samples_per_s};
        static const char *const sk[] = {"result_samples_per_second"};
        const double tv[] = {m->tokens_per_s, m->inferred_tok_s};
        static const char *const tk[] = {"result_tokens_per_second",
                                         "result_inferred_tokens_per_second"};
        *samples = first_rate(sv, sk, 1, skey);
        *tokens = first_rate(tv, tk, 2, tkey);
    }
}

/* A kept record's number by key (NaN when absent or not a number). */
static double kept_number(const mllog *m, const char *key)
{
    for (size_t i = 0; i < m->n_keep; i++)
        if (!strcmp(m->keep[i].key, key))
            return is_number(&m->keep[i].v) ? number_of(&m->keep[i].v) : NAN;
    return NAN;
}

/* The run's latency at its target percentile, as LoadGen logs it (its
 * results.cc, every version with :::MLLOG records): the percentile is
 * effective_target_latency_percentile (SingleStream 0.90, Server and
 * MultiStream 0.99 in mlperf.conf; a benchmark's own where the conf sets
 * one), formatted as LoadGen formats it ("90.00"). SingleStream and Server
 * report result_<P>_percentile_latency_ns over samples (one sample per
 * query); MultiStream result_<P>_percentile_per_query_latency_ns over
 * queries. Offline has none: its one query holds every sample, so its
 * latencies are times since the run began. Writes summary/
 * percentile_latency_s and @latency_percentile, @latency_per,
 * @latency_key; or @latency_unknown with the reason. */
static void run_latency(jl__imp *c, jl_run *r, const char *dir, const mllog *m)
{
    const char *why = NULL;
    char key[96] = "";
    double pct = kept_number(m, "effective_target_latency_percentile"), ns = NAN;
    int per_query = !strcmp(m->scenario, "MultiStream");
    if (!strcmp(m->scenario, "Offline"))
        why = "Offline: LoadGen issues every sample in one query at the start, so its latencies "
              "are times since the run began, not a service latency (no latency percentile)";
    else if (strcmp(m->scenario, "SingleStream") && strcmp(m->scenario, "Server") && !per_query)
        why = "a scenario LoadGen reports no target-percentile latency for";
    else if (!(pct > 0 && pct < 1))
        why = "no effective_target_latency_percentile record in the LoadGen log";
    else {
        snprintf(key, sizeof key, "result_%.2f_percentile%s_latency_ns", pct * 100.0,
                 per_query ? "_per_query" : "");
        ns = kept_number(m, key);
        if (!(ns >= 0) || !isfinite(ns))
            why = per_query ? "no per-query latency percentile in the LoadGen log (MultiStream "
                              "before LoadGen v1.1 logs per-sample latencies only)"
                            : "the LoadGen log has no latency record at its target percentile";
    }
    if (why) {
        jl__imp_extra_str(c, r, "latency_unknown", why);
        jl__imp_note(c, dir, "percentile_latency_s", "no latency figure: %s", why);
        return;
    }
    char label[16];
    snprintf(label, sizeof label, "%.6g", pct * 100.0);
    jl__imp_summary_num(c, r, "percentile_latency_s", ns * 1e-9);
    jl__imp_extra_text(c, r, "latency_percentile", label, 1);
    jl__imp_extra_str(c, r, "latency_per", per_query ? "query" : "sample");
    jl__imp_extra_str(c, r, "latency_key", key);
}

/* The token latencies of an LLM run, as LoadGen logs them where
 * use_token_latencies is set (its results.cc, v4.0 on; every scenario but
 * Offline): the mean time per output token
 * (result_time_to_output_token_mean, ns, the mean over samples of
 * (latency - first token) / (tokens - 1)) as summary/avg_tpot_s, the
 * latency figure frontier and pick take for a run without an ITL
 * distribution; each logged percentile P of TPOT
 * (result_time_per_output_token_<P>_percentile_ns) and of the first token
 * (result_first_token_<P>_percentile_latency_ns) as @loadgen_tpot_p<P>_s and
 * @loadgen_ttft_p<P>_s in seconds, P as LoadGen labels it less its zeros ("99",
 * "99.9"; nearest rank over samples, LoadGen's definition, so not joules'
 * ttft_p90_s), and @token_latency_percentiles listing them. */
static void run_token_latency(jl__imp *c, jl_run *r, const char *dir, const mllog *m)
{
    static const struct {
        const char *prefix, *suffix, *attr;
    } kinds[] = {{"result_time_per_output_token_", "_percentile_ns", "tpot"},
                 {"result_first_token_", "_percentile_latency_ns", "ttft"}};
    char labels[128] = "";
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t np = strlen(kinds[k].prefix), ns = strlen(kinds[k].suffix);
        for (size_t i = 0; i < m->n_keep; i++) {
            const char *key = m->keep[i].key;
            size_t n = strlen(key);
            if (n <= np + ns || strncmp(key, kinds[k].prefix, np) ||
                strcmp(key + n - ns, kinds[k].suffix) || !is_number(&m->keep[i].v))
                continue;
            char pct_text[16];
            size_t pn = n - np - ns;
            if (pn >= sizeof pct_text)
                continue;
            memcpy(pct_text, key + np, pn);
            pct_text[pn] = '\0';
            char *end;
            double pct = strtod(pct_text, &end), ns_v = number_of(&m->keep[i].v);
            if (*end || !(pct > 0 && pct < 100) || !(ns_v >= 0) || !isfinite(ns_v))
                continue;
            char label[16], attr[40];
            snprintf(label, sizeof label, "%.6g", pct);
            snprintf(attr, sizeof attr, "loadgen_%s_p%s_s", kinds[k].attr, label);
            jl__imp_extra_num(c, r, attr, ns_v * 1e-9);
            if (k == 0 && strlen(labels) + strlen(label) + 2 < sizeof labels) {
                if (labels[0])
                    strcat(labels, ",");
                strcat(labels, label);
            }
        }
    }
    if (labels[0])
        jl__imp_extra_str(c, r, "token_latency_percentiles", labels);
    double mean = kept_number(m, "result_time_to_output_token_mean");
    if (mean >= 0 && isfinite(mean)) {
        jl__imp_summary_num(c, r, "avg_tpot_s", mean * 1e-9);
        jl__imp_summary_str(c, r, "avg_tpot_key", "result_time_to_output_token_mean");
    } else if (strcmp(m->scenario, "Offline")) {
        jl__imp_note(c, dir, "result_time_to_output_token_mean",
                     "no token latencies in the LoadGen log (use_token_latencies not set, or "
                     "LoadGen before v4.0): no avg_tpot_s, so frontier and pick have no "
                     "latency for this LLM run");
    }
}

/* summary/: the figures as the MLPerf checker computes them, and the
 * notes on the power readings. */
static void run_summary(jl__imp *c, jl_run *r, const char *dir, const mllog *m, const spl *s)
{
    double dur = round_us(m->power_end - m->power_begin), avg = s->sum_w / (double)s->n;
    jl_run_summary_attrs *su = &r->summary;
    su->present = 1;
    su->avg_power_w = avg;
    su->steady_state_duration_s = dur;
    su->steady_state_energy_j = avg * dur;
    jl__imp_summary_str(c, r, "source", SOURCE);
    jl__imp_summary_num(c, r, "peak_power_w", s->peak_w);
    jl__imp_summary_num(c, r, "power_samples", (double)s->n);
    int streams = !strcmp(m->scenario, "SingleStream") || !strcmp(m->scenario, "MultiStream");
    const char *skey, *tkey;
    double sps, tps;
    rates(m, &sps, &skey, &tps, &tkey);
    if (isfinite(sps)) {
        jl__imp_summary_num(c, r, "samples_per_s", sps);
        jl__imp_summary_str(c, r, "samples_per_s_key", skey);
        jl__imp_summary_num(c, r, "samples_per_joule", sps / avg);
        if (!streams) /* the samples finished per second: the item rate */
            jl__imp_summary_num(c, r, "items_per_s", sps);
        if (!streams) {
            su->energy_per_item_j = avg / sps;
            su->energy_per_request_j = su->energy_per_item_j;
        }
    } else if (!streams) {
        jl__imp_note(c, dir, "result_samples_per_second",
                     "no %s throughput in the LoadGen log: no energy per sample", m->scenario);
    }
    if (isfinite(tps)) {
        su->output_throughput_tok_s = tps;
        su->energy_per_token_j = avg / tps;
        jl__imp_summary_str(c, r, "output_throughput_key", tkey);
    }
    if (streams) {
        double queries = isfinite(m->query_count) ? m->query_count : m->generated_queries;
        if (isfinite(queries) && queries > 0) {
            double per_query = avg * dur / queries;
            jl__imp_summary_num(c, r, "energy_per_query_mj", per_query * 1000.0);
            if (m->samples_per_query >= 1) {
                su->energy_per_item_j = per_query / m->samples_per_query;
                su->energy_per_request_j = per_query;
                /* the samples of the queries issued over the window */
                jl__imp_summary_num(c, r, "items_per_s", queries * m->samples_per_query / dur);
            }
        }
        jl__imp_summary_str(c, r, "mlperf_power_metric", "energy_per_query_mj");
    } else {
        jl__imp_summary_str(c, r, "mlperf_power_metric", "avg_power_w");
    }
    if (s->n_v)
        jl__imp_summary_num(c, r, "avg_volts", s->sum_v / (double)s->n_v);
    if (s->n_a)
        jl__imp_summary_num(c, r, "avg_amps", s->sum_a / (double)s->n_a);
    if (s->n_pf)
        jl__imp_summary_num(c, r, "avg_power_factor", s->sum_pf / (double)s->n_pf);
    for (int k = 0; k < s->n_ch; k++) {
        char key[40];
        snprintf(key, sizeof key, "ch%d_avg_power_w", k + 1);
        jl__imp_summary_num(c, r, key, s->ch_sum[k] / (double)s->n);
    }
    if (s->n_ch && s->max_total_vs_channels > 0.01)
        jl__imp_note(c, dir, "Watts",
                     "the analyser's total Watts differs from the sum of its channels by up "
                     "to %.1f %%: the sum of the channels is used",
                     100 * s->max_total_vs_channels);
    if (s->unmeasured)
        jl__imp_note(c, dir, "Volts",
                     "the analyser's total Volts/Amps/PF read < 0 (not measured) in %zu of %zu "
                     "samples: left out of avg_volts, avg_amps, avg_power_factor",
                     s->unmeasured, s->n);
    if (s->dropped)
        jl__imp_note(c, dir, "Watts",
                     "%zu readings <= 0 in the window dropped (as the checker does)", s->dropped);
    if (m->validity && strcmp(m->validity, "VALID"))
        jl__imp_note(c, dir, "result_validity", "LoadGen says the run is %s", m->validity);
}

static jl_run *build_run(jl__imp *c, const char *dir, const char *detail_file, const mllog *m,
                         spl *s)
{
    jl_run *r = jl_run_new();
    where w;
    locate(c, dir, &w);
    if (!r) {
        c->oom = 1;
        where_free(&w);
        return NULL;
    }
    const jl__imp_sets *sets = ((const mlp *)c)->sets;
    const char *set_model = NULL, *set_workload = NULL;
    for (size_t i = 0; sets && i < sets->n; i++) {
        if (!strcmp(sets->kv[i].key, "model"))
            set_model = sets->kv[i].value;
        else if (!strcmp(sets->kv[i].key, "workload"))
            set_workload = sets->kv[i].value;
    }
    if (w.compliance) { /* an audit test (TEST01, TEST04, ...), not the measured result */
        jl__imp_skip(c, dir, "compliance",
                     "a compliance test's run (under compliance/), not the submission's result");
        jl_run_free(r);
        where_free(&w);
        return NULL;
    }
    const char *bench = w.benchmark ? w.benchmark : set_model;
    if (!bench) { /* no tree to read the benchmark from, and none given */
        jl__imp_skip(c, dir, "benchmark",
                     "the benchmark is not known: the run folder is not under "
                     "results/<system>/<benchmark>/<scenario>/performance/ (a submission's "
                     "layout); name it with --set model=BENCHMARK (e.g. resnet50, bert-99, "
                     "llama2-70b-99)");
        jl_run_free(r);
        where_free(&w);
        return NULL;
    }
    int known = 0;
    const char *workload = workload_of(bench, &known);
    if (set_workload)
        known = 1; /* applied with the other --set values below */
    else if (!known)
        jl__imp_note(c, dir, "benchmark",
                     "MLPerf benchmark '%s' is not in joules' table of benchmarks: imported as "
                     "@workload other (energy per sample); --set workload=vision|speech|"
                     "recommendation|graph|language|llm|diffusion names its kind",
                     bench);
    if (jl_workload_counts_items(workload) && strcmp(workload, "diffusion"))
        jl__imp_note(c, dir, "workload",
                     "@workload %s: energy per sample (per query for SingleStream and "
                     "MultiStream); the latent model and the LLM-only figures (per token, ITL, "
                     "TTFT) do not apply",
                     workload);
    char acc[128] = "", gid[64];
    long count = 1;
    double mem = NAN;
    sysdesc sd;
    if (read_sysdesc(c, r, &w, &sd) < 0) {
        jl_run_free(r);
        where_free(&w);
        return NULL;
    }
    int from_name =
        jl__imp_system_accelerators(w.system, acc, sizeof acc, &count, gid, sizeof gid, &mem);
    if (sd.found) {
        /* the description says what and how many; the folder name only
         * where it disagrees, in a note */
        if (from_name && !sd.cpu && (strcmp(gid, sd.gpu_model) || count != sd.count))
            jl__imp_note(c, dir, "system",
                         "the system description says %s x %ld, the folder name '%s' %s x %ld: "
                         "the description is used",
                         sd.gpu_model, sd.count, w.system, gid, count);
        r->attrs.gpu_model = jl__imp_sanitize(sd.gpu_model);
        count = sd.count;
        mem = sd.memory_bytes;
        jl__imp_extra_str(c, r, "mlperf_accelerator_from", "system description");
        if (sd.cpu)
            jl__imp_extra_str(c, r, "mlperf_accelerator_kind", "cpu");
    } else if (from_name) {
        r->attrs.gpu_model = jl__strdup(gid);
        jl__imp_extra_str(c, r, "mlperf_accelerator_from", "system name");
    } else {
        r->attrs.gpu_model = jl__strdup(acc[0] ? acc : "unknown");
        count = acc[0] ? count : 1;
        jl__imp_note(c, dir, "system",
                     "accelerator and count not recognised in the system name '%s' and no "
                     "system description (%s/systems/%s.json): gpu_model '%s', num_gpus %ld",
                     w.system ? w.system : "", w.root ? w.root : "<submission>",
                     w.system ? w.system : "<system>", acc[0] ? acc : "unknown", count);
        jl__imp_extra_str(c, r, "mlperf_accelerator_from", "unknown");
    }
    r->attrs.gpu_memory_bytes = mem;
    r->attrs.num_gpus = count;
    r->attrs.workload = jl__strdup(workload);
    r->attrs.model = jl__strdup(bench);
    char *task = jl__asprintf("mlperf-%s", m->scenario);
    for (char *q = task; q && *q; q++)
        *q = (char)tolower((unsigned char)*q);
    r->attrs.task = task;
    r->attrs.precision = jl__strdup("unknown");
    jl__imp_note(c, dir, "precision",
                 "LoadGen logs do not say the numeric precision: @precision is 'unknown'");
    /* LoadGen's cap on outstanding samples: samples per query x queries in
     * flight. max_async 0 (Server, and Offline in some rounds) means no
     * bound: the log says no cap, and the query count is not one. */
    double cap = m->samples_per_query * m->max_async;
    const int offline = !strcmp(m->scenario, "Offline");
    if (!offline && isfinite(cap) && cap >= 1 && cap < 2e9) {
        r->attrs.max_batch_size = (long)cap;
    } else if (offline) {
        /* Offline: one query holding every sample of the run (6,600,000 of
         * them): an outstanding-sample count, not a batch cap */
        r->attrs.max_batch_size = 1;
        jl__imp_extra_str(c, r, "unknown_attributes", "max_batch_size");
        jl__imp_note(c, dir, "samples_per_query",
                     "the Offline scenario issues every sample in one query (%g samples): no "
                     "batch cap is known; @max_batch_size 1 is a placeholder listed in "
                     "@unknown_attributes",
                     m->samples_per_query);
    } else {
        r->attrs.max_batch_size = 1; /* the format needs one: marked as not known */
        jl__imp_extra_str(c, r, "unknown_attributes", "max_batch_size");
        jl__imp_note(c, dir, "effective_max_async_queries",
                     "LoadGen bounds no outstanding queries in this run (%s %g): no batch cap is "
                     "known; @max_batch_size 1 is a placeholder listed in @unknown_attributes",
                     "effective_max_async_queries", m->max_async);
    }
    r->attrs.start_time_unix = m->power_begin;
    if (sets)
        jl__imp_sets_apply(c, sets, r); /* the user's values win */
    jl__imp_extra_str(c, r, "power_scope", "node_ac");
    jl__imp_extra_str(c, r, "window", "steady_state_only");
    jl__imp_extra_str(c, r, "mlperf_system", w.system ? w.system : "");
    jl__imp_extra_str(c, r, "mlperf_scenario", m->scenario);
    jl__imp_extra_str(c, r, "mlperf_power_begin", m->begin_text);
    jl__imp_extra_str(c, r, "mlperf_power_end", m->end_text);
    jl__imp_extra_num(c, r, "mlperf_error_records", (double)m->n_errors);
    if (acc[0] && !sd.found)
        jl__imp_extra_str(c, r, "mlperf_accelerator", acc);
    keep_mllog(c, r, m);

    /* power/: the node's AC power, one column; each PTDaemon reading is
     * the analyser's active power over its update interval (1 s) */
    if (!(r->power_watts_kind = jl__strdup("average_1s")))
        c->oom = 1;
    r->power_n = s->n;
    r->power_time = s->t;
    r->watts.v = s->w;
    r->watts.n = s->n;
    r->watts.g = 1;
    s->t = s->w = NULL;

    run_summary(c, r, dir, m, s);
    run_latency(c, r, dir, m);
    if (r->attrs.workload && !strcmp(r->attrs.workload, "llm"))
        run_token_latency(c, r, dir, m);

    char *sys = jl__imp_sanitize(w.system ? w.system : "mlperf");
    char *be = jl__imp_sanitize(bench);
    char *sc = jl__imp_sanitize(m->scenario);
    char *rn = jl__imp_sanitize(w.run ? w.run : "run");
    r->name = sys && be && sc && rn ? jl__asprintf("%s__%s__%s__%s", sys, be, sc, rn) : NULL;
    free(sys);
    free(be);
    free(sc);
    free(rn);
    where_free(&w);
    if (!r->attrs.gpu_model || !r->attrs.workload || !r->attrs.model || !r->attrs.task ||
        !r->attrs.precision || !r->name) {
        c->oom = 1;
        jl_run_free(r);
        return NULL;
    }
    return r;
}

/* One run from its documents in memory. */
static void import_texts(jl__imp *c, const char *dir, const char *spl_file, const char *spl_txt,
                         size_t spl_len, const char *detail_file, const char *detail_txt,
                         size_t detail_len, const char *summary_file, const char *summary_txt)
{
    mllog m = {.power_begin = NAN,
               .power_end = NAN,
               .samples_per_s = NAN,
               .tokens_per_s = NAN,
               .completed_per_s = NAN,
               .scheduled_per_s = NAN,
               .completed_tok_s = NAN,
               .inferred_tok_s = NAN,
               .inferred_completed_tok_s = NAN,
               .samples_per_query = NAN,
               .max_async = NAN,
               .query_count = NAN,
               .generated_queries = NAN};
    spl s = {0};
    if (read_detail(c, &m, detail_file, detail_txt, detail_len) == 0 &&
        read_spl(c, &s, spl_file, spl_txt, spl_len, m.power_begin, m.power_end) == 0) {
        if (summary_txt)
            check_summary(c, summary_file, summary_txt, &m);
        jl_run *r = build_run(c, dir, detail_file, &m, &s);
        if (r) {
            jl__imp_push_run(c, r);
            c->res->n_files += summary_txt ? 3 : 2;
        }
    }
    spl_free(&s);
    mllog_free(&m);
}

/* ---- folders ------------------------------------------------------------------ */

static char *join(jl__imp *c, const char *a, const char *b)
{
    char *p = jl__asprintf("%s/%s", a, b);
    if (!p)
        c->oom = 1;
    return p;
}

/* direct: dir was named by the user (not found below a named folder). */
static void import_run_dir(jl__imp *c, const char *dir, int direct)
{
    char *detail = join(c, dir, "mlperf_log_detail.txt");
    char *spl_path = join(c, dir, "spl.txt");
    char *summary = join(c, dir, "mlperf_log_summary.txt");
    char *dt = NULL, *st = NULL, *su = NULL;
    size_t dl = 0, sl = 0, ul = 0;
    if (!detail || !spl_path || !summary)
        goto end;
    if (!jl__imp_is_file(spl_path)) {
        /* v1.1 and later: performance/power/spl.txt beside performance/run_1/ */
        free(spl_path);
        spl_path = join(c, dir, "../power/spl.txt");
        if (!spl_path)
            goto end;
        if (!jl__imp_is_file(spl_path)) {
            if (direct)
                jl__imp_err(c, JL_EMISSING, dir, "spl.txt", -1,
                            "no spl.txt here nor in ../power/: not a power-measured run");
            else /* a submission tree holds performance-only runs beside the power ones */
                jl__imp_skip(c, dir, "spl.txt",
                             "no spl.txt here nor in ../power/ (a run without power "
                             "measurement)");
            goto end;
        }
    }
    if (!(dt = jl__imp_read_file(c, detail, &dl)) || !(st = jl__imp_read_file(c, spl_path, &sl)))
        goto end;
    if (jl__imp_is_file(summary))
        su = jl__imp_read_file(c, summary, &ul);
    import_texts(c, dir, spl_path, st, sl, detail, dt, dl, summary, su);
end:
    free(dt);
    free(st);
    free(su);
    free(detail);
    free(spl_path);
    free(summary);
}

/* Every folder holding mlperf_log_detail.txt under `dir` (depth-first,
 * sorted); accuracy/ and ranging/ runs are not power-measured results. */
static void walk(jl__imp *c, const char *dir, int depth, size_t *found)
{
    char **dirs, **files;
    size_t nd, nf;
    if (depth > 16 || jl__imp_list_dir(c, dir, &dirs, &nd, &files, &nf))
        return;
    int has_detail = 0;
    for (size_t i = 0; i < nf; i++)
        has_detail |= !strcmp(files[i], "mlperf_log_detail.txt");
    if (has_detail) {
        const char *base = strrchr(dir, '/');
        base = base ? base + 1 : dir;
        (*found)++;
        if (!strcmp(base, "ranging") || !strcmp(base, "accuracy"))
            jl__imp_skip(c, dir, base,
                         "a %s run is not the measured one (the power result is "
                         "performance/run_1)",
                         base);
        else
            import_run_dir(c, dir, depth == 0);
    }
    for (size_t i = 0; i < nd && !c->oom; i++) {
        char *sub = join(c, dir, dirs[i]);
        if (sub)
            walk(c, sub, depth + 1, found);
        free(sub);
    }
    jl__imp_free_names(dirs, nd);
    jl__imp_free_names(files, nf);
}

/* Every path walked (none found: an error naming it), with the --set
 * values of sets (NULL: none). */
static jl_status import_paths(const char *const *paths, size_t n_paths,
                              const jl_import_options *opt, const jl__imp_sets *sets,
                              jl_import_result **out, jl_error_list *errors)
{
    mlp m = {.sets = sets};
    *out = NULL;
    if (jl__imp_start(&m.c, opt, errors))
        return JL_ENOMEM;
    for (size_t i = 0; i < n_paths && !m.c.oom; i++) {
        size_t found = 0;
        if (jl__imp_refuse_special(errors, paths[i]))
            continue; /* a FIFO, a device, a socket: named, never read */
        struct stat sb;
        if (stat(paths[i], &sb) == 0 && jl__walk_seen(&m.c.walk, &sb))
            continue; /* named before, or inside a folder walked before: read once */
        walk(&m.c, paths[i], 0, &found);
        if (!found)
            jl__imp_err(&m.c, JL_EMISSING, paths[i], "mlperf_log_detail.txt", -1,
                        "no MLPerf run here (no mlperf_log_detail.txt in it or below)");
    }
    if (!(m.c.res->source = jl__strdup(SOURCE)))
        m.c.oom = 1;
    return jl__imp_finish(&m.c, out, n_paths ? paths[0] : NULL);
}

jl_status jl_import_mlperf_power(const char *const *paths, size_t n_paths,
                                 const jl_import_options *opt, jl_import_result **out,
                                 jl_error_list *errors)
{
    return import_paths(paths, n_paths, opt, NULL, out, errors);
}

jl_status jl_import_mlperf_power_buffer(const char *spl_txt, size_t spl_len, const char *detail_txt,
                                        size_t detail_len, const char *summary_txt, const char *dir,
                                        const jl_import_options *opt, jl_import_result **out,
                                        jl_error_list *errors)
{
    mlp m = {.sets = NULL};
    *out = NULL;
    if (jl__imp_start(&m.c, opt, errors))
        return JL_ENOMEM;
    import_texts(&m.c, dir, "spl.txt", spl_txt, spl_len, "mlperf_log_detail.txt", detail_txt,
                 detail_len, "mlperf_log_summary.txt", summary_txt);
    m.c.res->source = jl__strdup(SOURCE);
    if (!m.c.res->source)
        m.c.oom = 1;
    return jl__imp_finish(&m.c, out, dir);
}

/* ---- the importer table's row ------------------------------------------------ */

static jl_status mlperf_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                            size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    *out = NULL;
    jl__imp_sets sets;
    jl_status st = jl__imp_sets_parse(args, n_args, &sets, errors);
    if (st == JL_OK)
        st = import_paths(paths, n_paths, NULL, &sets, out, errors);
    jl__imp_sets_free(&sets);
    if (st == JL_OK && *out)
        (*out)->detail_text = jl__asprintf("node AC power, %zu notes", (*out)->n_notes);
    return st;
}

static const jl_importer_option mlperf_options[] = {
    {"set", "KEY=VALUE",
     "a run attribute for every run, over what the files say (repeatable): model=BENCHMARK "
     "for a run folder outside a submission's results/ tree, workload=, precision=, ..."},
    {NULL, NULL, NULL},
};

const jl_importer jl__importer_mlperf_power = {
    .name = "mlperf-power",
    .summary = "MLPerf Inference power runs (PTDaemon spl.txt + LoadGen logs): node AC power",
    .paths = "RUN_DIR...",
    .description = "Import MLPerf Inference power runs: LoadGen's mlperf_log_detail.txt with\n"
                   "SPEC PTDaemon's spl.txt (in the run folder or ../power/). A path may be a\n"
                   "run folder or any folder above run folders (ranging/ and accuracy/ runs\n"
                   "are skipped). Each run is the system's AC power at the wall\n"
                   "(@power_scope node_ac, one column), cut to LoadGen's power_begin..power_end\n"
                   "with samples strictly inside, as the MLPerf checker does; summary/ holds the\n"
                   "checker's figures. Every benchmark: language models per token, vision,\n"
                   "speech, recommendation and graph benchmarks per sample (@workload vision,\n"
                   "...). Accelerator and count from the submission's systems/<system>.json,\n"
                   "else the system's folder name (import.md, \"MLPerf Power\").\n",
    .options = mlperf_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = mlperf_run,
};
