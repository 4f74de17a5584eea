/* joules import mlperf-power: one measured run of an MLPerf Inference power
 * submission (SPEC PTDaemon's spl.txt + LoadGen's mlperf_log_detail.txt,
 * optionally mlperf_log_summary.txt) as a run with @power_scope node_ac.
 * Field mapping and the checker's rules: docs/import.md, "MLPerf Power". */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "import/gpu_names.h"
#include "import/import_common.h"
#include "import/importers.h"
#include "joules/import.h"

#define SOURCE "MLPerf Inference power run (SPEC PTDaemon spl.txt, LoadGen mlperf_log_detail.txt)"
#define MAX_CHANNELS 16

/* ---- time stamps ------------------------------------------------------------ */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

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
    *out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
    return 0;
}

/* Differences of Unix times, to the microsecond (the stamps have ms). */
static double round_us(double dt)
{
    return round(dt * 1e6) / 1e6;
}

/* ---- the LoadGen detail log ------------------------------------------------- */

typedef struct mllog {
    double power_begin, power_end; /* Unix s; NaN when absent */
    char *begin_text, *end_text;
    char *scenario;
    double samples_per_s, tokens_per_s;
    double samples_per_query, max_async, query_count, generated_queries;
    char *validity;
    long n_errors;
    json_t *keep; /* scalar keys kept as extras, in file order of first sight */
} mllog;

static void mllog_free(mllog *m)
{
    free(m->begin_text);
    free(m->end_text);
    free(m->scenario);
    free(m->validity);
    json_decref(m->keep);
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

static int set_text(jl__imp *c, char **dst, const json_t *v)
{
    free(*dst);
    *dst = jl__strdup(json_string_value(v));
    if (!*dst)
        c->oom = 1;
    return *dst ? 0 : -1;
}

/* One `:::MLLOG {json}` line. Returns 0, or -1 after an error was pushed. */
static int mllog_line(jl__imp *c, mllog *m, const char *file, long long line, const char *txt,
                      size_t n)
{
    json_error_t je;
    json_t *o = json_loadb(txt, n, JSON_REJECT_DUPLICATES, &je);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        jl__imp_err(c, JL_EFORMAT, file, ":::MLLOG", line, "not a JSON object (%s, column %d)",
                    o ? "wrong type" : je.text, je.column);
        return -1;
    }
    int rc = 0;
    const json_t *k = json_object_get(o, "key"), *v = json_object_get(o, "value");
    const json_t *meta = json_object_get(o, "metadata");
    if (json_is_object(meta) && json_is_true(json_object_get(meta, "is_error")))
        m->n_errors++;
    if (!json_is_string(k) || !v) {
        rc = -1;
        jl__imp_err(c, JL_EMISSING, file, !json_is_string(k) ? "key" : "value", line,
                    "an MLLOG record needs a string \"key\" and a \"value\"");
        goto end;
    }
    const char *key = json_string_value(k);
    double *num = !strcmp(key, "result_samples_per_second")     ? &m->samples_per_s
                  : !strcmp(key, "result_tokens_per_second")    ? &m->tokens_per_s
                  : !strcmp(key, "effective_samples_per_query") ? &m->samples_per_query
                  : !strcmp(key, "effective_max_async_queries") ? &m->max_async
                  : !strcmp(key, "result_query_count")          ? &m->query_count
                  : !strcmp(key, "generated_query_count")       ? &m->generated_queries
                                                                : NULL;
    if (num) {
        if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0) {
            rc = -1;
            jl__imp_err(c, JL_ETYPE, file, key, line, "expected a finite number >= 0, found %s",
                        json_is_number(v) ? "a negative number" : "another type");
            goto end;
        }
        *num = json_number_value(v);
    } else if (!strcmp(key, "power_begin") || !strcmp(key, "power_end")) {
        int begin = key[6] == 'b';
        double t;
        if (!json_is_string(v) ||
            parse_stamp(json_string_value(v), strlen(json_string_value(v)), &t)) {
            rc = -1;
            jl__imp_err(c, JL_EINVALID, file, key, line,
                        "expected a time \"MM-DD-YYYY HH:MM:SS.fff\"");
            goto end;
        }
        *(begin ? &m->power_begin : &m->power_end) = t;
        if (set_text(c, begin ? &m->begin_text : &m->end_text, v))
            rc = -1;
    } else if (!strcmp(key, "effective_scenario") ||
               (!strcmp(key, "requested_scenario") && !m->scenario)) {
        if (!json_is_string(v)) {
            rc = -1;
            jl__imp_err(c, JL_ETYPE, file, key, line, "expected a string");
            goto end;
        }
        if (set_text(c, &m->scenario, v))
            rc = -1;
    } else if (!strcmp(key, "result_validity") && json_is_string(v)) {
        if (set_text(c, &m->validity, v))
            rc = -1;
    }
    if (!skipped_key(key) && (json_is_number(v) || json_is_string(v) || json_is_boolean(v)) &&
        !json_object_get(m->keep, key))
        json_object_set(m->keep, key, (json_t *)v);
end:
    json_decref(o);
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
    double max_total_vs_channels; /* largest |Watts - sum(ChN Watts)| / Watts */
} spl;

static void spl_free(spl *s)
{
    free(s->t);
    free(s->w);
}

/* The comma-separated fields of one line: pointers into the buffer and lengths. */
#define MAX_FIELDS 128
typedef struct fields {
    const char *p[MAX_FIELDS];
    size_t n[MAX_FIELDS];
    int count;
} fields;

static int split(const char *s, size_t len, fields *f)
{
    f->count = 0;
    size_t a = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || s[i] == ',') {
            if (f->count == MAX_FIELDS)
                return -1;
            size_t b = i;
            while (a < b && (s[a] == ' ' || s[a] == '\t'))
                a++;
            while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
                b--;
            f->p[f->count] = s + a;
            f->n[f->count++] = b - a;
            a = i + 1;
        }
    return 0;
}

static int field_is(const fields *f, int k, const char *word)
{
    return k < f->count && f->n[k] == strlen(word) && !memcmp(f->p[k], word, f->n[k]);
}

static int field_num(const fields *f, int k, double *out)
{
    char buf[64];
    if (k >= f->count || f->n[k] == 0 || f->n[k] >= sizeof buf)
        return -1;
    memcpy(buf, f->p[k], f->n[k]);
    buf[f->n[k]] = '\0';
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    return (errno || *end || !isfinite(*out)) ? -1 : 0;
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

/* Parse spl.txt, keep the samples strictly inside (begin, end) whose Watts
 * is > 0, as the MLPerf submission checker does. Returns 0 or -1 (error
 * pushed). */
static int read_spl(jl__imp *c, spl *s, const char *file, const char *buf, size_t len, double begin,
                    double end)
{
    long long line = 0;
    double prev = -INFINITY;
    fields f;
    for (size_t i = 0; i < len;) {
        const char *ls = buf + i;
        const char *nl = memchr(ls, '\n', len - i);
        size_t n = nl ? (size_t)(nl - ls) : len - i;
        i += n + 1;
        line++;
        if (n == 0 || (n == 1 && ls[0] == '\r'))
            continue;
        if (n < 5 || memcmp(ls, "Time,", 5) != 0)
            continue; /* PTDaemon writes other records (e.g. errors); the checker skips them */
        if (split(ls, n, &f)) {
            jl__imp_err(c, JL_ELIMIT, file, NULL, line, "more than %d fields", MAX_FIELDS);
            return -1;
        }
        double t, w = NAN, ch_total = 0;
        if (f.count < 4 || parse_stamp(f.p[1], f.n[1], &t)) {
            jl__imp_err(c, JL_EINVALID, file, "Time", line,
                        "expected Time,MM-DD-YYYY HH:MM:SS.fff,...");
            return -1;
        }
        if (t < prev) {
            jl__imp_err(c, JL_EINVALID, file, "Time", line,
                        "time goes backwards (%.3f s before the previous sample)", prev - t);
            return -1;
        }
        prev = t;
        int ch = -1, n_ch = 0;
        double chw[MAX_CHANNELS];
        double v = NAN, a = NAN, pf = NAN;
        for (int k = 2; k + 1 < f.count; k++) {
            if (f.n[k] >= 3 && !memcmp(f.p[k], "Ch", 2) && isdigit((unsigned char)f.p[k][2])) {
                if (++ch >= MAX_CHANNELS) {
                    jl__imp_err(c, JL_ELIMIT, file, "Ch", line, "more than %d channels",
                                MAX_CHANNELS);
                    return -1;
                }
                chw[ch] = NAN;
                continue;
            }
            double x;
            int is_w = field_is(&f, k, "Watts"), is_v = field_is(&f, k, "Volts"),
                is_a = field_is(&f, k, "Amps"), is_pf = field_is(&f, k, "PF");
            if (!(is_w || is_v || is_a || is_pf))
                continue;
            if (field_num(&f, k + 1, &x)) {
                jl__imp_err(c, JL_ETYPE, file,
                            is_w   ? "Watts"
                            : is_v ? "Volts"
                            : is_a ? "Amps"
                                   : "PF",
                            line, "expected a number after \"%.*s\" (field %d)", (int)f.n[k],
                            f.p[k], k + 2);
                return -1;
            }
            if (ch < 0) {
                if (is_w)
                    w = x;
                else if (is_v)
                    v = x;
                else if (is_a)
                    a = x;
                else
                    pf = x;
            } else if (is_w) {
                chw[ch] = x;
            }
            k++;
        }
        n_ch = ch + 1;
        if (n_ch > 0) {
            for (int k = 0; k < n_ch; k++) {
                if (isnan(chw[k])) {
                    jl__imp_err(c, JL_EMISSING, file, "Watts", line,
                                "channel Ch%d has no Watts value", k + 1);
                    return -1;
                }
                ch_total += chw[k];
            }
            if (s->n_ch && s->n_ch != n_ch) {
                jl__imp_err(c, JL_EINVALID, file, "Ch", line,
                            "%d channels here, %d on earlier lines", n_ch, s->n_ch);
                return -1;
            }
            s->n_ch = n_ch;
            if (isfinite(w) && w > 0) {
                double rel = fabs(w - ch_total) / w;
                if (rel > s->max_total_vs_channels)
                    s->max_total_vs_channels = rel;
            }
            w = ch_total;
        }
        if (isnan(w)) {
            jl__imp_err(c, JL_EMISSING, file, "Watts", line, "no Watts value on this line");
            return -1;
        }
        if (!(t > begin)) {
            s->before++;
            continue;
        }
        if (!(t < end)) {
            s->after++;
            continue;
        }
        if (!(w > 0)) { /* PTDaemon writes -1 for a failed reading */
            s->dropped++;
            continue;
        }
        if (spl_push(c, s, round_us(t - begin), w))
            return -1;
        s->sum_w += w;
        if (w > s->peak_w)
            s->peak_w = w;
        if (isfinite(v)) {
            s->sum_v += v;
            s->n_v++;
        }
        if (isfinite(a)) {
            s->sum_a += a;
            s->n_a++;
        }
        if (isfinite(pf) && pf > 0) {
            s->sum_pf += pf;
            s->n_pf++;
        }
        for (int k = 0; k < n_ch; k++)
            s->ch_sum[k] += chw[k];
    }
    if (s->n == 0) {
        jl__imp_err(c, JL_ENODATA, file, "Time", -1,
                    "no power sample lies strictly between power_begin and power_end "
                    "(%zu before, %zu after, %zu readings <= 0)",
                    s->before, s->after, s->dropped);
        return -1;
    }
    return 0;
}

/* ---- where the run sits in a submission tree -------------------------------- */

typedef struct where {
    char *system, *benchmark, *scenario_dir, *run;
} where;

static void where_free(where *w)
{
    free(w->system);
    free(w->benchmark);
    free(w->scenario_dir);
    free(w->run);
}

/* .../results/<system>/<benchmark>/<scenario>/performance/<run>: the last
 * path components (missing ones stay NULL). */
static void locate(jl__imp *c, const char *dir, where *w)
{
    memset(w, 0, sizeof *w);
    char *copy = jl__strdup(dir);
    if (!copy) {
        c->oom = 1;
        return;
    }
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
    if (n > 0)
        w->run = jl__strdup(parts[n - 1]);
    if (perf >= 3) {
        w->scenario_dir = jl__strdup(parts[perf - 1]);
        w->benchmark = jl__strdup(parts[perf - 2]);
        w->system = jl__strdup(parts[perf - 3]);
    }
    free(copy);
}

typedef struct bench_kind {
    const char *prefix, *workload;
} bench_kind;

/* MLPerf benchmark ids by the workload the trace format knows. */
static const bench_kind bench_kinds[] = {
    {"bert", "llm"},       {"gptj", "llm"},     {"gpt-j", "llm"}, {"llama", "llm"},
    {"mixtral", "llm"},    {"deepseek", "llm"}, {"gpt", "llm"},   {"stable-diffusion", "diffusion"},
    {"sdxl", "diffusion"},
};

static const char *workload_of(const char *bench)
{
    for (size_t i = 0; bench && i < sizeof bench_kinds / sizeof bench_kinds[0]; i++)
        if (!strncasecmp(bench, bench_kinds[i].prefix, strlen(bench_kinds[i].prefix)))
            return bench_kinds[i].workload;
    return NULL;
}

/* "<...>_<accelerator>x<N>_<...>" in NVIDIA-style system names. */
static int accelerators(const char *system, char *acc, size_t cap, long *count)
{
    if (!system)
        return 0;
    const char *p = system;
    for (const char *u = strchr(p, '_'); u; u = strchr(u + 1, '_')) {
        const char *seg = u + 1, *segend = strchr(seg, '_');
        size_t len = segend ? (size_t)(segend - seg) : strlen(seg);
        const char *x = NULL;
        for (const char *q = seg + len; q > seg; q--)
            if (q[-1] == 'x') {
                x = q - 1;
                break;
            }
        if (!x || x == seg || x + 1 >= seg + len)
            continue;
        int digits = 1;
        for (const char *q = x + 1; q < seg + len; q++)
            digits &= isdigit((unsigned char)*q) != 0;
        if (!digits || (size_t)(x - seg) >= cap)
            continue;
        memcpy(acc, seg, (size_t)(x - seg));
        acc[x - seg] = '\0';
        *count = strtol(x + 1, NULL, 10);
        return *count >= 1 && *count <= 1024;
    }
    return 0;
}

/* ---- one run ------------------------------------------------------------------ */

static void keep_mllog(jl__imp *c, jl_run *r, const json_t *keep)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)keep, k, v) {
        char *key = jl__asprintf("mlperf_%s", k);
        if (!key) {
            c->oom = 1;
            return;
        }
        if (json_is_integer(v)) {
            char num[32];
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
            jl__imp_extra_text(c, r, key, num, 1);
        } else if (json_is_number(v))
            jl__imp_extra_num(c, r, key, json_number_value(v));
        else if (json_is_string(v))
            jl__imp_extra_str(c, r, key, json_string_value(v));
        else
            jl__imp_extra_str(c, r, key, json_is_true(v) ? "true" : "false");
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
    const char *bench = w.benchmark ? w.benchmark : "mlperf";
    const char *workload = workload_of(w.benchmark);
    if (!workload) {
        jl__imp_err(
            c, JL_EINVALID, detail_file, "benchmark", -1,
            "MLPerf benchmark '%s' is neither a language nor a diffusion model: the "
            "trace format's @workload (llm, mllm, diffusion) has no value for it",
            w.benchmark
                ? w.benchmark
                : "(unknown: not under results/<system>/<benchmark>/<scenario>/performance/)");
        jl_run_free(r);
        where_free(&w);
        return NULL;
    }
    char acc[128] = "", gid[64];
    long count = 1;
    double mem = NAN;
    if (accelerators(w.system, acc, sizeof acc, &count) &&
        jl__gpu_name_map(acc, gid, sizeof gid, &mem)) {
        r->attrs.gpu_model = jl__strdup(gid);
    } else {
        r->attrs.gpu_model = jl__strdup(acc[0] ? acc : "unknown");
        count = acc[0] ? count : 1;
        jl__imp_note(c, dir, "system",
                     "accelerator and count not recognised in the system name '%s': "
                     "gpu_model '%s', num_gpus %ld",
                     w.system ? w.system : "", acc[0] ? acc : "unknown", count);
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
    /* LoadGen's cap on outstanding samples: samples per query x queries in flight. */
    double cap = m->samples_per_query;
    if (m->max_async >= 1)
        cap *= m->max_async;
    else if (m->generated_queries >= 1)
        cap *= m->generated_queries;
    r->attrs.max_batch_size = isfinite(cap) && cap >= 1 && cap < 2e9 ? (long)cap : 1;
    r->attrs.start_time_unix = m->power_begin;
    jl__imp_extra_str(c, r, "power_scope", "node_ac");
    jl__imp_extra_str(c, r, "window", "steady_state_only");
    jl__imp_extra_str(c, r, "mlperf_system", w.system ? w.system : "");
    jl__imp_extra_str(c, r, "mlperf_scenario", m->scenario);
    jl__imp_extra_str(c, r, "mlperf_power_begin", m->begin_text);
    jl__imp_extra_str(c, r, "mlperf_power_end", m->end_text);
    jl__imp_extra_num(c, r, "mlperf_error_records", (double)m->n_errors);
    if (acc[0])
        jl__imp_extra_str(c, r, "mlperf_accelerator", acc);
    keep_mllog(c, r, m->keep);

    /* power/: the node's AC power, one column */
    r->power_n = s->n;
    r->power_time = s->t;
    r->watts.v = s->w;
    r->watts.n = s->n;
    r->watts.g = 1;
    s->t = s->w = NULL;

    /* summary/: the figures as the MLPerf checker computes them */
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
    if (isfinite(m->samples_per_s) && m->samples_per_s > 0) {
        jl__imp_summary_num(c, r, "samples_per_s", m->samples_per_s);
        jl__imp_summary_num(c, r, "samples_per_joule", m->samples_per_s / avg);
        if (!streams) {
            su->energy_per_item_j = avg / m->samples_per_s;
            su->energy_per_request_j = su->energy_per_item_j;
        }
    }
    if (isfinite(m->tokens_per_s) && m->tokens_per_s > 0) {
        su->output_throughput_tok_s = m->tokens_per_s;
        su->energy_per_token_j = avg / m->tokens_per_s;
    }
    if (streams) {
        double queries = isfinite(m->query_count) ? m->query_count : m->generated_queries;
        if (isfinite(queries) && queries > 0) {
            double per_query = avg * dur / queries;
            jl__imp_summary_num(c, r, "energy_per_query_mj", per_query * 1000.0);
            if (m->samples_per_query >= 1) {
                su->energy_per_item_j = per_query / m->samples_per_query;
                su->energy_per_request_j = per_query;
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
    if (s->dropped)
        jl__imp_note(c, dir, "Watts",
                     "%zu readings <= 0 in the window dropped (as the checker does)", s->dropped);
    if (m->validity && strcmp(m->validity, "VALID"))
        jl__imp_note(c, dir, "result_validity", "LoadGen says the run is %s", m->validity);

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
               .samples_per_query = NAN,
               .max_async = NAN,
               .query_count = NAN,
               .generated_queries = NAN,
               .keep = json_object()};
    spl s = {0};
    if (!m.keep) {
        c->oom = 1;
        return;
    }
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

static void import_run_dir(jl__imp *c, const char *dir)
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
            jl__imp_err(c, JL_EMISSING, dir, "spl.txt", -1,
                        "no spl.txt here nor in ../power/: not a power-measured run");
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
            jl__imp_note(c, dir, base, "a %s run is not the measured one: skipped", base);
        else
            import_run_dir(c, dir);
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

jl_status jl_import_mlperf_power(const char *const *paths, size_t n_paths,
                                 const jl_import_options *opt, jl_import_result **out,
                                 jl_error_list *errors)
{
    return jl__imp_paths(paths, n_paths, opt, out, errors, walk, "mlperf_log_detail.txt",
                         "no MLPerf run here (no mlperf_log_detail.txt in it or below)", SOURCE);
}

jl_status jl_import_mlperf_power_buffer(const char *spl_txt, size_t spl_len, const char *detail_txt,
                                        size_t detail_len, const char *summary_txt, const char *dir,
                                        const jl_import_options *opt, jl_import_result **out,
                                        jl_error_list *errors)
{
    jl__imp c;
    *out = NULL;
    if (jl__imp_start(&c, opt, errors))
        return JL_ENOMEM;
    import_texts(&c, dir, "spl.txt", spl_txt, spl_len, "mlperf_log_detail.txt", detail_txt,
                 detail_len, "mlperf_log_summary.txt", summary_txt);
    c.res->source = jl__strdup(SOURCE);
    if (!c.res->source)
        c.oom = 1;
    return jl__imp_finish(&c, out, dir);
}

/* ---- the importer table's row ------------------------------------------------ */

static jl_status mlperf_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                            size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    (void)args;
    (void)n_args;
    return jl__imp_run_plain(jl_import_mlperf_power, paths, n_paths, out, errors, "node AC power");
}

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
                   "checker's figures (import.md, \"MLPerf Power\").\n",
    .options = jl__imp_no_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = mlperf_run,
};
