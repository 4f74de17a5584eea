/* `joules import nsys EXPORT.sqlite --into TRACE.h5:RUN`: the NVTX ranges
 * of an Nsight Systems SQLite export (`nsys export --type sqlite`),
 * projected onto the GPU through the kernels, copies and sets they
 * launched, as the run's spans/ (docs/attribute.md).
 *
 * A CUDA API call (CUPTI_ACTIVITY_KIND_RUNTIME) belongs to the innermost
 * NVTX range open on its thread when it was made; the device work with its
 * correlationId belongs to that range. A range's span is the envelope of
 * its own device work (as Kineto's GPU-side annotations are), its busy_s
 * their sum. Ranges that launched nothing are left out (counted). Nsight's
 * own power rows (1-s averages of the GPU metrics) are not used: the run's
 * counter is. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/inputs.h"
#include "core/util.h"
#include "import/kit.h"
#include "import/profile_spans.h"
#include "joules/spans.h"

typedef struct {
    int64_t t0, t1, tid;
    int32_t name;
} nrange;

typedef struct {
    int64_t t, tid, corr;
} ncall;

static int cmp_range(const void *a, const void *b)
{
    const nrange *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return (x->t1 < y->t1) - (x->t1 > y->t1); /* the enclosing first */
}

static int cmp_call(const void *a, const void *b)
{
    const ncall *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}

static int has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *q = NULL;
    int yes = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &q,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
        yes = sqlite3_step(q) == SQLITE_ROW;
    }
    sqlite3_finalize(q);
    return yes;
}

static int has_column(sqlite3 *db, const char *table, const char *col)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s LIMIT 0", col, table);
    sqlite3_stmt *q = NULL;
    int ok = sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK;
    sqlite3_finalize(q);
    return ok;
}

/* correlationId -> range: open addressing */
typedef struct {
    int64_t *key;
    int32_t *val;
    size_t cap;
} corrmap;

static size_t hash64(int64_t k, size_t cap)
{
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ULL;
    return (size_t)(x >> 17) & (cap - 1);
}

static int corr_put(corrmap *m, int64_t k, int32_t v)
{
    size_t h = hash64(k, m->cap);
    while (m->val[h] >= 0 && m->key[h] != k)
        h = (h + 1) & (m->cap - 1);
    m->key[h] = k;
    m->val[h] = v;
    return 1;
}

static int32_t corr_get(const corrmap *m, int64_t k)
{
    size_t h = hash64(k, m->cap);
    while (m->val[h] >= 0) {
        if (m->key[h] == k)
            return m->val[h];
        h = (h + 1) & (m->cap - 1);
    }
    return -1;
}

/* One import's state. */
typedef struct {
    const char *path;
    jl_error_list *errors;
    sqlite3 *db;
    sqlite3_stmt *q;
    nrange *rg; /* the NVTX ranges, by thread and start */
    size_t n_rg;
    char **names;
    size_t n_names, cap_names;
    jl__strmap name_of;         /* name -> its index in names */
    corrmap cm;                 /* correlationId -> range */
    double *env0, *env1, *busy; /* per range: its device work's envelope and sum */
    int16_t *gpu;
    size_t *n_ops;
    size_t n_dev, n_zero, n_outside;
    double outside_s;
    double base; /* run time of Nsight's 0 */
    char *clock;
} nsx;

static jl_status sql_fail(nsx *x)
{
    return jl__imp_err_at(x->errors, JL_EFORMAT, x->path, 0, 0, NULL, "SQLite: %s",
                          sqlite3_errmsg(x->db));
}

static jl_status oom(nsx *x)
{
    return jl__imp_err_at(x->errors, JL_ENOMEM, x->path, 0, 0, NULL, "out of memory");
}

/* The index of name in x->names, added when new, through a hash of the
 * names (an export may hold a name per range: 100,000 names cost linear
 * time, not a scan of the names per range); -1 when out of memory. */
static int32_t name_index(nsx *x, const char *text)
{
    int added;
    const jl__strmap_entry *k = jl__strmap_add(&x->name_of, text, x->n_names, &added);
    if (!k)
        return -1;
    if (!added)
        return (int32_t)k->value;
    if (x->n_names >= INT32_MAX)
        return -1;
    if (x->n_names == x->cap_names) {
        size_t nc = x->cap_names ? 2 * x->cap_names : 64;
        char **nn = jl__malloc_array(nc, sizeof *nn);
        if (!nn)
            return -1;
        if (x->n_names)
            memcpy(nn, x->names, x->n_names * sizeof *nn);
        free(x->names);
        x->names = nn;
        x->cap_names = nc;
    }
    if (!(x->names[x->n_names] = jl__strdup(text)))
        return -1;
    return (int32_t)x->n_names++;
}

/* The NVTX ranges (push/pop 59, start/end 60), names interned, sorted by
 * thread and start (the enclosing first). */
static jl_status read_ranges(nsx *x)
{
    const char *sql = has_column(x->db, "NVTX_EVENTS", "textId") && has_table(x->db, "StringIds")
                          ? "SELECT n.start, n.end, n.globalTid, COALESCE(n.text, s.value) FROM "
                            "NVTX_EVENTS n LEFT JOIN StringIds s ON n.textId = s.id WHERE "
                            "n.eventType IN (59, 60) AND n.end > n.start"
                          : "SELECT start, end, globalTid, text FROM NVTX_EVENTS WHERE "
                            "eventType IN (59, 60) AND end > start";
    if (sqlite3_prepare_v2(x->db, sql, -1, &x->q, NULL) != SQLITE_OK)
        return sql_fail(x);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(x->q)) == SQLITE_ROW) {
        if (x->n_rg >= INT32_MAX) /* ranges are indexed by int32 */
            return jl__imp_err_at(x->errors, JL_ELIMIT, x->path, 0, 0, "NVTX_EVENTS",
                                  "more than %d NVTX ranges", INT32_MAX);
        if (x->n_rg == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            nrange *v = realloc(x->rg, nc * sizeof *v);
            if (!v)
                return oom(x);
            x->rg = v;
            cap = nc;
        }
        const char *text = (const char *)sqlite3_column_text(x->q, 3);
        int32_t k = name_index(x, text ? text : "(unnamed)");
        if (k < 0)
            return oom(x);
        x->rg[x->n_rg++] = (nrange){sqlite3_column_int64(x->q, 0), sqlite3_column_int64(x->q, 1),
                                    sqlite3_column_int64(x->q, 2), k};
    }
    if (rc != SQLITE_DONE)
        return sql_fail(x);
    sqlite3_finalize(x->q);
    x->q = NULL;
    if (!x->n_rg)
        return jl__imp_err_at(x->errors, JL_ENODATA, x->path, 0, 0, "NVTX_EVENTS",
                              "no NVTX ranges in the export");
    qsort(x->rg, x->n_rg, sizeof *x->rg, cmp_range);
    return JL_OK;
}

/* Each CUDA API call to the innermost range open on its thread, by its
 * correlationId. */
static jl_status assign_calls(nsx *x)
{
    ncall *calls = NULL;
    size_t n_calls = 0, cap = 0;
    int rc;
    if (sqlite3_prepare_v2(x->db,
                           "SELECT start, globalTid, correlationId FROM "
                           "CUPTI_ACTIVITY_KIND_RUNTIME",
                           -1, &x->q, NULL) != SQLITE_OK)
        return sql_fail(x);
    while ((rc = sqlite3_step(x->q)) == SQLITE_ROW) {
        if (n_calls == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            ncall *v = realloc(calls, nc * sizeof *v);
            if (!v) {
                free(calls);
                return oom(x);
            }
            calls = v;
            cap = nc;
        }
        calls[n_calls++] = (ncall){sqlite3_column_int64(x->q, 0), sqlite3_column_int64(x->q, 1),
                                   sqlite3_column_int64(x->q, 2)};
    }
    if (rc != SQLITE_DONE) {
        free(calls);
        return sql_fail(x);
    }
    sqlite3_finalize(x->q);
    x->q = NULL;
    if (n_calls) /* qsort(NULL, 0) is undefined */
        qsort(calls, n_calls, sizeof *calls, cmp_call);
    corrmap *cm = &x->cm;
    cm->cap = 1024;
    while (cm->cap < 2 * n_calls + 2)
        cm->cap *= 2;
    cm->key = malloc(cm->cap * sizeof *cm->key);
    cm->val = malloc(cm->cap * sizeof *cm->val);
    size_t *stack = malloc((x->n_rg + 1) * sizeof *stack);
    if (!cm->key || !cm->val || !stack) {
        free(stack);
        free(calls);
        return oom(x);
    }
    for (size_t i = 0; i < cm->cap; i++)
        cm->val[i] = -1;
    const nrange *rg = x->rg;
    size_t ri = 0, depth = 0;
    int64_t cur = INT64_MIN;
    for (size_t c = 0; c < n_calls; c++) {
        if (calls[c].tid != cur) {
            cur = calls[c].tid;
            depth = 0;
            while (ri < x->n_rg && rg[ri].tid < cur)
                ri++;
        }
        while (ri < x->n_rg && rg[ri].tid == cur && rg[ri].t0 <= calls[c].t) {
            while (depth && rg[stack[depth - 1]].t1 < rg[ri].t0)
                depth--;
            stack[depth++] = ri++;
        }
        while (depth && rg[stack[depth - 1]].t1 < calls[c].t)
            depth--;
        if (depth)
            corr_put(cm, calls[c].corr, (int32_t)stack[depth - 1]);
    }
    free(stack);
    free(calls);
    return JL_OK;
}

/* The kernels, copies and sets, each folded into its call's range. */
static jl_status fold_device(nsx *x)
{
    size_t n = x->n_rg;
    x->env0 = malloc(n * sizeof *x->env0);
    x->env1 = malloc(n * sizeof *x->env1);
    x->busy = calloc(n, sizeof *x->busy);
    x->gpu = calloc(n, sizeof *x->gpu);
    x->n_ops = calloc(n, sizeof *x->n_ops);
    if (!x->env0 || !x->env1 || !x->busy || !x->gpu || !x->n_ops)
        return oom(x);
    for (size_t i = 0; i < n; i++) {
        x->env0[i] = INFINITY;
        x->env1[i] = -INFINITY;
    }
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET"};
    for (size_t tb = 0; tb < 3; tb++) {
        if (!has_table(x->db, tables[tb]))
            continue;
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT correlationId, start, end, deviceId FROM %s", tables[tb]);
        if (sqlite3_prepare_v2(x->db, sql, -1, &x->q, NULL) != SQLITE_OK)
            return sql_fail(x);
        int rc;
        while ((rc = sqlite3_step(x->q)) == SQLITE_ROW) {
            int64_t corr = sqlite3_column_int64(x->q, 0), a = sqlite3_column_int64(x->q, 1),
                    b = sqlite3_column_int64(x->q, 2);
            x->n_dev++;
            if (a <= 0 || b < a) {
                x->n_zero++; /* a record without its times: never a span */
                continue;
            }
            int32_t k = corr_get(&x->cm, corr);
            if (k < 0) {
                x->n_outside++;
                x->outside_s += (double)(b - a) * 1e-9;
                continue;
            }
            x->env0[k] = fmin(x->env0[k], (double)a);
            x->env1[k] = fmax(x->env1[k], (double)b);
            x->busy[k] += (double)(b - a) * 1e-9;
            x->gpu[k] = (int16_t)sqlite3_column_int(x->q, 3);
            x->n_ops[k]++;
        }
        if (rc != SQLITE_DONE)
            return sql_fail(x);
        sqlite3_finalize(x->q);
        x->q = NULL;
    }
    return JL_OK;
}

/* *p resized to n elements of size bytes; 0 when out of memory (*p kept). */
static int grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (q)
        *p = q;
    return q != NULL;
}

/* An export without NVTX ranges: each kernel its own span, named by its
 * name — or, with --kernel-pattern, by the part of it the pattern matches
 * (its first group when it has one; "(other kernels)" when none) — so
 * `attribute` groups the device work by kernel. */
static jl_status kernel_ranges(nsx *x, const regex_t *re)
{
    const char *name_col =
        has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "shortName")       ? "shortName"
        : has_column(x->db, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName") ? "demangledName"
                                                                           : NULL;
    char sql[256];
    if (name_col && has_table(x->db, "StringIds"))
        snprintf(sql, sizeof sql,
                 "SELECT k.start, k.end, k.deviceId, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                 "LEFT JOIN StringIds s ON k.%s = s.id",
                 name_col);
    else
        snprintf(sql, sizeof sql,
                 "SELECT start, end, deviceId, NULL FROM CUPTI_ACTIVITY_KIND_KERNEL");
    if (sqlite3_prepare_v2(x->db, sql, -1, &x->q, NULL) != SQLITE_OK)
        return sql_fail(x);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(x->q)) == SQLITE_ROW) {
        int64_t a = sqlite3_column_int64(x->q, 0), b = sqlite3_column_int64(x->q, 1);
        x->n_dev++;
        if (a <= 0 || b < a) {
            x->n_zero++;
            continue;
        }
        if (x->n_rg == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            if (!grow((void **)&x->rg, nc, sizeof *x->rg) ||
                !grow((void **)&x->env0, nc, sizeof *x->env0) ||
                !grow((void **)&x->env1, nc, sizeof *x->env1) ||
                !grow((void **)&x->busy, nc, sizeof *x->busy) ||
                !grow((void **)&x->gpu, nc, sizeof *x->gpu) ||
                !grow((void **)&x->n_ops, nc, sizeof *x->n_ops))
                return oom(x);
            cap = nc;
        }
        const char *text = (const char *)sqlite3_column_text(x->q, 3);
        char group[256];
        const char *label = text ? text : "(unnamed kernel)";
        regmatch_t m[2];
        if (re) {
            if (text && !regexec(re, text, 2, m, 0)) {
                int g = m[1].rm_so >= 0 ? 1 : 0;
                snprintf(group, sizeof group, "%.*s", (int)(m[g].rm_eo - m[g].rm_so),
                         text + m[g].rm_so);
                label = group[0] ? group : "(other kernels)";
            } else {
                label = "(other kernels)";
            }
        }
        int32_t k = name_index(x, label);
        if (k < 0)
            return oom(x);
        size_t i = x->n_rg++;
        x->rg[i] = (nrange){a, b, 0, k};
        x->env0[i] = (double)a;
        x->env1[i] = (double)b;
        x->busy[i] = (double)(b - a) * 1e-9;
        x->gpu[i] = (int16_t)sqlite3_column_int(x->q, 2);
        x->n_ops[i] = 1;
    }
    if (rc != SQLITE_DONE)
        return sql_fail(x);
    sqlite3_finalize(x->q);
    x->q = NULL;
    if (!x->n_rg)
        return jl__imp_err_at(x->errors, JL_ENODATA, x->path, 0, 0, "CUPTI_ACTIVITY_KIND_KERNEL",
                              "no NVTX ranges and no kernel with its times in the export (%zu "
                              "kernel records, %zu without times)",
                              x->n_dev, x->n_zero);
    return JL_OK;
}

/* The count of NVTX ranges (push/pop, start/end) in the export; 0 without
 * the table. */
static long long nvtx_count(nsx *x)
{
    if (!has_table(x->db, "NVTX_EVENTS"))
        return 0;
    long long n = 0;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(x->db,
                           "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end "
                           "> start",
                           -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        n = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return n;
}

/* What a file that is not an SQLite database is (first bytes): an error
 * naming it; JL_OK when it is one. */
static jl_status sniff(nsx *x)
{
    char head[64] = "";
    char why[128];
    FILE *f = jl__fopen_input(x->path, why, sizeof why);
    size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
    if (f)
        fclose(f);
    if (!f)
        return JL_OK; /* sqlite says why it cannot open it */
    head[n] = '\0';
    if (n >= 16 && !memcmp(head, "SQLite format 3", 16))
        return JL_OK;
    if (!strncmp(head, "version https://git-lfs.github.com/spec/", 40))
        return jl__imp_err_at(x->errors, JL_EFORMAT, x->path, 0, 0, NULL,
                              "a Git LFS pointer (the stand-in a repository holds for a large "
                              "file), not the export itself: fetch it with `git lfs pull "
                              "--include=PATH` in the clone");
    return jl__imp_err_at(x->errors, JL_EFORMAT, x->path, 0, 0, NULL,
                          "not an SQLite database (%zu bytes read, no 'SQLite format 3' header): "
                          "an Nsight Systems report (.nsys-rep, .qdrep) is exported first with "
                          "`nsys export --type sqlite -o EXPORT.sqlite REPORT.nsys-rep`",
                          n);
}

/* Nsight's 0 on the run's clock: the session's utcEpochNs against
 * @start_time_unix, else --offset alone; --offset added either way. */
static jl_status place_clock(nsx *x, const jl_run *run, int has_offset, double offset)
{
    x->base = NAN;
    if (has_table(x->db, "TARGET_INFO_SESSION_START_TIME") &&
        sqlite3_prepare_v2(x->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", -1,
                           &x->q, NULL) == SQLITE_OK &&
        sqlite3_step(x->q) == SQLITE_ROW && isfinite(run->attrs.start_time_unix)) {
        long long t0_ns, d_ns;
        if (jl__unix_ns(run->attrs.start_time_unix, &t0_ns) ||
            jl__ll_sub(sqlite3_column_int64(x->q, 0), t0_ns, &d_ns)) {
            jl_status st = jl__imp_err_at(
                x->errors, JL_EINVALID, x->path, 0, 0, "TARGET_INFO_SESSION_START_TIME",
                "utcEpochNs %lld is not a time near the run's @start_time_unix %.17g (their "
                "difference overflows 64-bit nanoseconds)",
                (long long)sqlite3_column_int64(x->q, 0), run->attrs.start_time_unix);
            sqlite3_finalize(x->q);
            x->q = NULL;
            return st;
        }
        x->base = (double)d_ns * 1e-9;
        x->clock = jl__strdup("Nsight Systems session start (utcEpochNs) + ns against the run's "
                              "@start_time_unix (wall clock; agreement not measured)");
    }
    sqlite3_finalize(x->q);
    x->q = NULL;
    if (!isfinite(x->base)) {
        if (!has_offset)
            return jl__imp_err_at(x->errors, JL_EMISSING, x->path, 0, 0,
                                  "TARGET_INFO_SESSION_START_TIME",
                                  "cannot place the export on the run's clock: no session start "
                                  "time, or the run has no @start_time_unix; give --offset S "
                                  "(run time = Nsight ns / 1e9 + S)");
        x->base = 0;
        x->clock = jl__strdup("Nsight Systems ns + --offset");
    }
    if (!x->clock)
        return oom(x);
    x->base += offset;
    return JL_OK;
}

/* The ranges that launched device work, as spans; *n_empty: the others. */
static jl_status make_spans(nsx *x, const jl_run *run, jl_spans **sp, size_t *n_sp, size_t *n_empty,
                            size_t *n_steps)
{
    *n_sp = *n_empty = 0;
    for (size_t i = 0; i < x->n_rg; i++) {
        if (!x->n_ops[i]) {
            (*n_empty)++;
            continue;
        }
        size_t j = (*n_sp)++;
        x->env0[j] = x->base + x->env0[i] * 1e-9;
        x->env1[j] = x->base + x->env1[i] * 1e-9;
        x->busy[j] = x->busy[i];
        x->gpu[j] = x->gpu[i];
        x->rg[j].name = x->rg[i].name;
    }
    if (!*n_sp)
        return jl__imp_err_at(x->errors, JL_ENODATA, x->path, 0, 0, NULL,
                              "no NVTX range launched device work (%zu ranges, %zu device "
                              "records, %zu without times)",
                              x->n_rg, x->n_dev, x->n_zero);
    int32_t *nmi = malloc(*n_sp * sizeof *nmi);
    if (!nmi)
        return oom(x);
    for (size_t i = 0; i < *n_sp; i++)
        nmi[i] = x->rg[i].name;
    jl__raw_spans raw = {*n_sp, x->env0, x->env1, nmi, NULL, x->busy, x->gpu, x->names, x->n_names};
    double win[2] = {NAN, NAN};
    jl_status st = jl__spans_from_raw(&raw, run, win, sp, n_steps);
    free(nmi);
    if (st != JL_OK)
        return oom(x);
    (*sp)->source = jl__imp_source_name("nsys:", x->path);
    (*sp)->side = jl__strdup("gpu");
    (*sp)->clock = x->clock;
    x->clock = NULL;
    return (*sp)->source && (*sp)->side ? JL_OK : oom(x);
}

static void nsx_free(nsx *x)
{
    sqlite3_finalize(x->q);
    sqlite3_close(x->db);
    for (size_t i = 0; i < x->n_names; i++)
        free(x->names[i]);
    free(x->names);
    jl__strmap_free(&x->name_of);
    free(x->rg);
    free(x->cm.key);
    free(x->cm.val);
    free(x->env0);
    free(x->env1);
    free(x->busy);
    free(x->gpu);
    free(x->n_ops);
    free(x->clock);
}

/* The spans of the open export x->db on run's clock: its tables checked,
 * the ranges read, the calls and device work folded, the clock placed. */
static jl_status spans_of_db(nsx *x, const jl_run *run, int has_offset, double offset,
                             jl_spans **sp, size_t *n_sp, size_t *n_empty, size_t *n_steps)
{
    if (!has_table(x->db, "NVTX_EVENTS") || !has_table(x->db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        return jl__imp_err_at(x->errors, JL_EFORMAT, x->path, 0, 0, NULL,
                              "not an Nsight Systems export with NVTX and CUDA traces (tables "
                              "NVTX_EVENTS and CUPTI_ACTIVITY_KIND_RUNTIME); record with "
                              "`nsys profile -t cuda,nvtx` and `nsys export --type sqlite`");
    jl_status st = read_ranges(x);
    if (st == JL_OK)
        st = assign_calls(x);
    if (st == JL_OK)
        st = fold_device(x);
    if (st == JL_OK)
        st = place_clock(x, run, has_offset, offset);
    if (st == JL_OK)
        st = make_spans(x, run, sp, n_sp, n_empty, n_steps);
    return st;
}

jl_status jl__nsys_spans_db(struct sqlite3 *db, const char *path, const jl_run *run, int has_offset,
                            double offset, jl_spans **out, jl_error_list *errors)
{
    nsx x;
    memset(&x, 0, sizeof x);
    x.path = path;
    x.errors = errors;
    x.db = db;
    size_t n_sp = 0, n_empty = 0, n_steps = 0;
    *out = NULL;
    jl_status st = spans_of_db(&x, run, has_offset, offset, out, &n_sp, &n_empty, &n_steps);
    x.db = NULL; /* the caller's */
    nsx_free(&x);
    return st;
}

static jl_status nsys_into(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                           size_t n_args, const char *trace, const char *run_name,
                           jl_import_result **out, jl_error_list *errors)
{
    (void)n_paths;
    *out = NULL;
    double offset = 0;
    int has_offset = 0, allow = 0;
    const char *kernel_pattern = NULL;
    for (size_t i = 0; i < n_args; i++)
        if (!strcmp(args[i].name, "allow-misaligned"))
            allow = 1;
        else if (!strcmp(args[i].name, "kernel-pattern"))
            kernel_pattern = args[i].value;
        else if (!strcmp(args[i].name, "offset")) {
            char *end;
            offset = strtod(args[i].value, &end);
            has_offset = 1;
            if (*end || end == args[i].value || !isfinite(offset))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, "--offset",
                                      "--offset: '%s' is not a number of seconds", args[i].value);
        }
    jl_run *run = NULL;
    jl_status st = jl__profile_read_run(trace, run_name, &run, errors);
    if (st != JL_OK)
        return st;
    nsx x;
    memset(&x, 0, sizeof x);
    x.path = paths[0];
    x.errors = errors;
    jl_spans *sp = NULL;
    size_t n_sp = 0, n_empty = 0, n_steps = 0;
    /* SQLite opens the path itself: a FIFO or a device is refused first */
    char why[128];
    int fd = jl__open_input(x.path, why, sizeof why);
    if (fd >= 0)
        close(fd);
    if (fd < 0)
        st = jl__imp_err_at(errors, JL_EIO, x.path, 0, 0, NULL, "%s", why);
    if (fd >= 0)
        jl__input_read(x.path); /* the provenance's inputs */
    int by_kernel = 0;
    regex_t re;
    int have_re = 0;
    if (kernel_pattern) {
        int rc = regcomp(&re, kernel_pattern, REG_EXTENDED);
        if (rc) {
            char m[256];
            regerror(rc, &re, m, sizeof m);
            jl_run_free(run);
            return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, "--kernel-pattern",
                                  "--kernel-pattern '%s': %s", kernel_pattern, m);
        }
        have_re = 1;
    }
    if (st != JL_OK || (st = sniff(&x)) != JL_OK)
        ;
    else if (sqlite3_open_v2(x.path, &x.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        st = jl__imp_err_at(errors, JL_EIO, x.path, 0, 0, NULL, "cannot open: %s",
                            x.db ? sqlite3_errmsg(x.db) : "out of memory");
    else if (!has_table(x.db, "StringIds") && !has_table(x.db, "NVTX_EVENTS") &&
             !has_table(x.db, "CUPTI_ACTIVITY_KIND_KERNEL"))
        st = jl__imp_err_at(errors, JL_EFORMAT, x.path, 0, 0, NULL,
                            "an SQLite database, but not an Nsight Systems export (no StringIds, "
                            "NVTX_EVENTS or CUPTI_ACTIVITY_KIND_KERNEL table); record with `nsys "
                            "profile -t cuda,nvtx` and `nsys export --type sqlite`");
    else if ((have_re || !nvtx_count(&x)) && has_table(x.db, "CUPTI_ACTIVITY_KIND_KERNEL"))
        by_kernel = 1; /* no NVTX ranges (or --kernel-pattern): the kernels themselves */
    else if (!has_table(x.db, "NVTX_EVENTS") || !has_table(x.db, "CUPTI_ACTIVITY_KIND_RUNTIME"))
        st = jl__imp_err_at(errors, JL_EFORMAT, x.path, 0, 0, NULL,
                            "not an Nsight Systems export with NVTX and CUDA traces (tables "
                            "NVTX_EVENTS and CUPTI_ACTIVITY_KIND_RUNTIME); record with "
                            "`nsys profile -t cuda,nvtx` and `nsys export --type sqlite`");
    if (st == JL_OK && by_kernel)
        st = kernel_ranges(&x, have_re ? &re : NULL);
    if (st == JL_OK && !by_kernel)
        st = read_ranges(&x);
    if (st == JL_OK && !by_kernel)
        st = assign_calls(&x);
    if (st == JL_OK && !by_kernel)
        st = fold_device(&x);
    if (have_re)
        regfree(&re);
    if (st == JL_OK)
        st = place_clock(&x, run, has_offset, offset);
    if (st == JL_OK)
        st = make_spans(&x, run, &sp, &n_sp, &n_empty, &n_steps);
    jl__span_fit fit;
    if (st == JL_OK)
        st = jl__spans_write_checked(trace, run_name, sp, run, allow, x.path, errors, &fit);
    jl__imp kit;
    if (st == JL_OK && jl__imp_start(&kit, NULL, errors) < 0)
        st = oom(&x);
    if (st == JL_OK) {
        jl_import_result *r = kit.res;
        r->n_files = 1;
        r->n_runs = 1;
        r->source = jl__imp_source_name("Nsight Systems export ", x.path);
        jl__imp_detail_num(&kit, "nvtx_ranges", (double)x.n_rg);
        jl__imp_detail_num(&kit, "spans", (double)n_sp);
        jl__imp_detail_num(&kit, "ranges_without_device_work", (double)n_empty);
        jl__imp_detail_num(&kit, "device_records", (double)x.n_dev);
        jl__imp_detail_num(&kit, "device_records_without_times", (double)x.n_zero);
        jl__imp_detail_num(&kit, "device_busy_outside_ranges_s", x.outside_s);
        jl__imp_detail_num(&kit, "steps", (double)n_steps);
        jl__imp_detail_num(&kit, "window_start_s", sp->window[0]);
        jl__imp_detail_num(&kit, "window_end_s", sp->window[1]);
        jl__imp_detail(&kit, "side", "gpu", 0);
        jl__imp_detail(&kit, "into", trace, 0);
        jl__imp_detail(&kit, "run", run_name, 0);
        r->detail_text = jl__asprintf("%zu spans from %zu %s, %zu steps, window [%.3f, %.3f] s",
                                      n_sp, x.n_rg, by_kernel ? "kernels" : "NVTX ranges", n_steps,
                                      sp->window[0], sp->window[1]);
        if (by_kernel)
            jl__imp_note(&kit, x.path, "NVTX_EVENTS",
                         "%s: each kernel is a span named by %s, so `attribute` groups the "
                         "device work by kernel (no host ranges, no layers or steps; record "
                         "with `nsys profile -t cuda,nvtx` and NVTX ranges for those)",
                         have_re ? "kernels grouped by --kernel-pattern"
                                 : "no NVTX ranges in the export",
                         have_re ? "the part of its name the pattern matches" : "its name");
        if (n_empty)
            jl__imp_note(&kit, x.path, "NVTX_EVENTS",
                         "%zu NVTX ranges launched no device work of their own: not spans",
                         n_empty);
        if (x.n_zero)
            jl__imp_note(&kit, x.path, "CUPTI_ACTIVITY_KIND_KERNEL",
                         "%zu device records without times rejected", x.n_zero);
        if (x.n_outside)
            jl__imp_note(&kit, x.path, "CUPTI_ACTIVITY_KIND_KERNEL",
                         "%zu device records (%.6g s) launched outside every NVTX range "
                         "(unattributed)",
                         x.n_outside, x.outside_s);
        if (has_table(x.db, "GPU_METRICS"))
            jl__imp_note(&kit, x.path, "GPU_METRICS",
                         "Nsight's GPU metrics (its power rows are 1-s averages) are not used: "
                         "the run's own energy counter is");
        jl__imp_note(&kit, x.path, "",
                     "the spans' window is their hull: Nsight exports no profiler window; set "
                     "--window in attribute if the capture was cut");
        st = jl__imp_end(&kit, JL_OK, out);
    }
    jl_spans_free(sp);
    nsx_free(&x);
    jl_run_free(run);
    return st;
}

static const jl_importer_option nsys_options[] = {
    {"offset", "S", "add S seconds to the alignment"},
    {"kernel-pattern", "REGEX",
     "kernels as the spans, grouped by the part of their name REGEX (POSIX extended) matches "
     "(its first group if any; others: '(other kernels)'); the default without NVTX ranges is "
     "each kernel by its name"},
    {"allow-misaligned", NULL,
     "import ranges whose busy/idle pattern fits the power better elsewhere (marked "
     "spans_misaligned)"},
    {NULL, NULL, NULL}};

const jl_importer jl__importer_nsys = {
    .name = "nsys",
    .summary = "Nsight Systems NVTX ranges (SQLite export) into a run's spans/ (--into)",
    .paths = "EXPORT.sqlite",
    .description =
        "Import the NVTX ranges of an Nsight Systems SQLite export (`nsys profile -t\n"
        "cuda,nvtx`, then `nsys export --type sqlite`) into run RUN of an existing trace\n"
        "as its spans/ (trace format 1.2), for `joules attribute`. Each range is projected\n"
        "onto the GPU through the device work its CUDA calls launched (correlationId):\n"
        "the span is that work's envelope, busy_s its sum; ranges that launched nothing are\n"
        "left out. Times: the session's utcEpochNs against the run's @start_time_unix.\n"
        "Nsight's power rows (1-s averages) are not used. attribute.md.\n",
    .options = nsys_options,
    .min_paths = 1,
    .max_paths = 1,
    .into = nsys_into,
};
