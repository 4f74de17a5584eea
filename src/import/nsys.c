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
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "import/kit.h"
#include "import/profile_spans.h"
#include "joules/attribute.h"

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

static jl_status nsys_into(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                           size_t n_args, const char *trace, const char *run_name,
                           jl_import_result **out, jl_error_list *errors)
{
    (void)n_paths;
    *out = NULL;
    const char *path = paths[0];
    double offset = 0;
    int has_offset = 0;
    for (size_t i = 0; i < n_args; i++)
        if (!strcmp(args[i].name, "offset")) {
            char *end;
            offset = strtod(args[i].value, &end);
            has_offset = 1;
            if (*end || end == args[i].value || !isfinite(offset))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, "--offset",
                                      "--offset: '%s' is not a number of seconds", args[i].value);
        }

    jl_trace *t = NULL;
    jl_run *run = NULL;
    jl_error *err = NULL;
    jl_status st = jl_trace_open(trace, NULL, &t, &err);
    size_t ri = 0;
    if (st == JL_OK) {
        while (ri < jl_trace_run_count(t) && strcmp(jl_trace_run_name(t, ri), run_name))
            ri++;
        if (ri == jl_trace_run_count(t))
            st = jl_fail(&err, JL_EUSAGE, trace, run_name, NULL, -1, "no run '%s' in the trace",
                         run_name);
    }
    if (st == JL_OK)
        st = jl_trace_read_run(t, ri, &run, &err);
    jl_trace_close(t);
    if (st != JL_OK) {
        jl_error_list_push(errors, err);
        return st;
    }

    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    nrange *rg = NULL;
    ncall *calls = NULL;
    corrmap cm = {NULL, NULL, 0};
    char **names = NULL;
    size_t n_names = 0, n_rg = 0, n_calls = 0, cap = 0;
    double *env0 = NULL, *env1 = NULL, *busy = NULL;
    int16_t *gpu = NULL;
    size_t *n_ops = NULL;
    jl_spans *sp = NULL;
    jl_import_result *r = NULL;
    char *clock = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        st = jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "cannot open: %s",
                            db ? sqlite3_errmsg(db) : "out of memory");
        goto end;
    }
    if (!has_table(db, "NVTX_EVENTS") || !has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
        st = jl__imp_err_at(errors, JL_EFORMAT, path, 0, 0, NULL,
                            "not an Nsight Systems export with NVTX and CUDA traces (tables "
                            "NVTX_EVENTS and CUPTI_ACTIVITY_KIND_RUNTIME); record with "
                            "`nsys profile -t cuda,nvtx` and `nsys export --type sqlite`");
        goto end;
    }

    /* the NVTX ranges (push/pop 59, start/end 60), names interned */
    const char *sql = has_column(db, "NVTX_EVENTS", "textId") && has_table(db, "StringIds")
                          ? "SELECT n.start, n.end, n.globalTid, COALESCE(n.text, s.value) FROM "
                            "NVTX_EVENTS n LEFT JOIN StringIds s ON n.textId = s.id WHERE "
                            "n.eventType IN (59, 60) AND n.end > n.start"
                          : "SELECT start, end, globalTid, text FROM NVTX_EVENTS WHERE "
                            "eventType IN (59, 60) AND end > start";
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        goto sql_fail;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (n_rg == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            nrange *v = realloc(rg, nc * sizeof *v);
            if (!v)
                goto oom;
            rg = v;
            cap = nc;
        }
        const char *text = (const char *)sqlite3_column_text(q, 3);
        if (!text)
            text = "(unnamed)";
        size_t k = 0;
        /* names are few (one per annotation site): a linear look-up */
        while (k < n_names && strcmp(names[k], text))
            k++;
        if (k == n_names) {
            char **nn = realloc(names, (n_names + 1) * sizeof *nn);
            if (!nn)
                goto oom;
            names = nn;
            if (!(names[n_names] = jl__strdup(text)))
                goto oom;
            n_names++;
        }
        rg[n_rg++] = (nrange){sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1),
                              sqlite3_column_int64(q, 2), (int32_t)k};
    }
    if (rc != SQLITE_DONE)
        goto sql_fail;
    sqlite3_finalize(q);
    q = NULL;
    if (!n_rg) {
        st = jl__imp_err_at(errors, JL_ENODATA, path, 0, 0, "NVTX_EVENTS",
                            "no NVTX ranges in the export");
        goto end;
    }
    qsort(rg, n_rg, sizeof *rg, cmp_range);

    /* the CUDA API calls, each to the innermost range open on its thread */
    cap = 0;
    if (sqlite3_prepare_v2(db,
                           "SELECT start, globalTid, correlationId FROM "
                           "CUPTI_ACTIVITY_KIND_RUNTIME",
                           -1, &q, NULL) != SQLITE_OK)
        goto sql_fail;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (n_calls == cap) {
            size_t nc = cap ? 2 * cap : 4096;
            ncall *v = realloc(calls, nc * sizeof *v);
            if (!v)
                goto oom;
            calls = v;
            cap = nc;
        }
        calls[n_calls++] = (ncall){sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1),
                                   sqlite3_column_int64(q, 2)};
    }
    if (rc != SQLITE_DONE)
        goto sql_fail;
    sqlite3_finalize(q);
    q = NULL;
    qsort(calls, n_calls, sizeof *calls, cmp_call);
    cm.cap = 1024;
    while (cm.cap < 2 * n_calls + 2)
        cm.cap *= 2;
    cm.key = malloc(cm.cap * sizeof *cm.key);
    cm.val = malloc(cm.cap * sizeof *cm.val);
    size_t *stack = malloc((n_rg + 1) * sizeof *stack);
    if (!cm.key || !cm.val || !stack) {
        free(stack);
        goto oom;
    }
    for (size_t i = 0; i < cm.cap; i++)
        cm.val[i] = -1;
    size_t ri2 = 0, depth = 0, n_in_range = 0;
    int64_t cur = INT64_MIN;
    for (size_t c = 0; c < n_calls; c++) {
        if (calls[c].tid != cur) {
            cur = calls[c].tid;
            depth = 0;
            while (ri2 < n_rg && rg[ri2].tid < cur)
                ri2++;
        }
        while (ri2 < n_rg && rg[ri2].tid == cur && rg[ri2].t0 <= calls[c].t) {
            while (depth && rg[stack[depth - 1]].t1 < rg[ri2].t0)
                depth--;
            stack[depth++] = ri2++;
        }
        while (depth && rg[stack[depth - 1]].t1 < calls[c].t)
            depth--;
        if (depth) {
            corr_put(&cm, calls[c].corr, (int32_t)stack[depth - 1]);
            n_in_range++;
        }
    }
    free(stack);

    /* the device work, folded into its range */
    env0 = malloc(n_rg * sizeof *env0);
    env1 = malloc(n_rg * sizeof *env1);
    busy = calloc(n_rg, sizeof *busy);
    gpu = calloc(n_rg, sizeof *gpu);
    n_ops = calloc(n_rg, sizeof *n_ops);
    if (!env0 || !env1 || !busy || !gpu || !n_ops)
        goto oom;
    for (size_t i = 0; i < n_rg; i++) {
        env0[i] = INFINITY;
        env1[i] = -INFINITY;
    }
    static const char *const dev_tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
                                             "CUPTI_ACTIVITY_KIND_MEMCPY",
                                             "CUPTI_ACTIVITY_KIND_MEMSET"};
    size_t n_dev = 0, n_zero = 0, n_outside = 0;
    double outside_s = 0;
    for (size_t tb = 0; tb < 3; tb++) {
        if (!has_table(db, dev_tables[tb]))
            continue;
        char q2[160];
        snprintf(q2, sizeof q2, "SELECT correlationId, start, end, deviceId FROM %s",
                 dev_tables[tb]);
        if (sqlite3_prepare_v2(db, q2, -1, &q, NULL) != SQLITE_OK)
            goto sql_fail;
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            int64_t corr = sqlite3_column_int64(q, 0), a = sqlite3_column_int64(q, 1),
                    b = sqlite3_column_int64(q, 2);
            n_dev++;
            if (a <= 0 || b < a) {
                n_zero++; /* a record without its times: never a span */
                continue;
            }
            int32_t k = corr_get(&cm, corr);
            if (k < 0) {
                n_outside++;
                outside_s += (double)(b - a) * 1e-9;
                continue;
            }
            env0[k] = fmin(env0[k], (double)a);
            env1[k] = fmax(env1[k], (double)b);
            busy[k] += (double)(b - a) * 1e-9;
            gpu[k] = (int16_t)sqlite3_column_int(q, 3);
            n_ops[k]++;
        }
        if (rc != SQLITE_DONE)
            goto sql_fail;
        sqlite3_finalize(q);
        q = NULL;
    }

    /* the clock */
    double base = NAN;
    if (has_table(db, "TARGET_INFO_SESSION_START_TIME") &&
        sqlite3_prepare_v2(db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", -1, &q,
                           NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW && isfinite(run->attrs.start_time_unix)) {
        double whole = floor(run->attrs.start_time_unix);
        long long t0_ns =
            (long long)whole * 1000000000LL + llround((run->attrs.start_time_unix - whole) * 1e9);
        base = (double)(sqlite3_column_int64(q, 0) - t0_ns) * 1e-9;
        clock = jl__strdup("Nsight Systems session start (utcEpochNs) + ns against the run's "
                           "@start_time_unix (wall clock; agreement not measured)");
    }
    sqlite3_finalize(q);
    q = NULL;
    if (!isfinite(base)) {
        if (!has_offset) {
            st = jl__imp_err_at(errors, JL_EMISSING, path, 0, 0, "TARGET_INFO_SESSION_START_TIME",
                                "cannot place the export on the run's clock: no session start "
                                "time, or the run has no @start_time_unix; give --offset S "
                                "(run time = Nsight ns / 1e9 + S)");
            goto end;
        }
        base = 0;
        clock = jl__strdup("Nsight Systems ns + --offset");
    }
    if (!clock)
        goto oom;
    base += offset;

    /* ranges with device work become spans */
    size_t n_sp = 0, n_empty = 0;
    for (size_t i = 0; i < n_rg; i++) {
        if (!n_ops[i]) {
            n_empty++;
            continue;
        }
        env0[n_sp] = base + env0[i] * 1e-9;
        env1[n_sp] = base + env1[i] * 1e-9;
        busy[n_sp] = busy[i];
        gpu[n_sp] = gpu[i];
        rg[n_sp].name = rg[i].name;
        n_sp++;
    }
    if (!n_sp) {
        st = jl__imp_err_at(errors, JL_ENODATA, path, 0, 0, NULL,
                            "no NVTX range launched device work (%zu ranges, %zu device "
                            "records, %zu without times)",
                            n_rg, n_dev, n_zero);
        goto end;
    }
    int32_t *nmi = malloc(n_sp * sizeof *nmi);
    if (!nmi)
        goto oom;
    for (size_t i = 0; i < n_sp; i++)
        nmi[i] = rg[i].name;
    jl__raw_spans raw = {n_sp, env0, env1, nmi, NULL, busy, gpu, names, n_names};
    double win[2] = {NAN, NAN};
    size_t n_steps = 0;
    st = jl__spans_from_raw(&raw, run, win, &sp, &n_steps);
    free(nmi);
    if (st != JL_OK)
        goto end;
    sp->source = jl__asprintf("nsys:%s", path);
    sp->side = jl__strdup("gpu");
    sp->clock = clock;
    clock = NULL;
    if (!sp->source || !sp->side)
        goto oom;
    jl_error *werr = NULL;
    if ((st = jl_trace_write_spans(trace, run_name, sp, NULL, &werr)) != JL_OK) {
        jl_error_list_push(errors, werr);
        goto end;
    }
    jl__imp kit;
    if (jl__imp_start(&kit, NULL, errors) < 0) {
        st = JL_ENOMEM;
        goto end;
    }
    r = kit.res;
    r->n_files = 1;
    r->n_runs = 1;
    r->source = jl__asprintf("Nsight Systems export %s", path);
    jl__imp_detail_num(&kit, "nvtx_ranges", (double)n_rg);
    jl__imp_detail_num(&kit, "spans", (double)n_sp);
    jl__imp_detail_num(&kit, "ranges_without_device_work", (double)n_empty);
    jl__imp_detail_num(&kit, "device_records", (double)n_dev);
    jl__imp_detail_num(&kit, "device_records_without_times", (double)n_zero);
    jl__imp_detail_num(&kit, "device_busy_outside_ranges_s", outside_s);
    jl__imp_detail_num(&kit, "steps", (double)n_steps);
    jl__imp_detail_num(&kit, "window_start_s", sp->window[0]);
    jl__imp_detail_num(&kit, "window_end_s", sp->window[1]);
    jl__imp_detail(&kit, "side", "gpu", 0);
    jl__imp_detail(&kit, "into", trace, 0);
    jl__imp_detail(&kit, "run", run_name, 0);
    r->detail_text =
        jl__asprintf("%zu spans from %zu NVTX ranges, %zu steps, window [%.3f, %.3f] s", n_sp, n_rg,
                     n_steps, sp->window[0], sp->window[1]);
    if (n_empty)
        jl__imp_note(&kit, path, "NVTX_EVENTS",
                     "%zu NVTX ranges launched no device work of their own: not spans", n_empty);
    if (n_zero)
        jl__imp_note(&kit, path, "CUPTI_ACTIVITY_KIND_KERNEL",
                     "%zu device records without times rejected", n_zero);
    if (n_outside)
        jl__imp_note(&kit, path, "CUPTI_ACTIVITY_KIND_KERNEL",
                     "%zu device records (%.6g s) launched outside every NVTX range "
                     "(unattributed)",
                     n_outside, outside_s);
    if (has_table(db, "GPU_METRICS"))
        jl__imp_note(&kit, path, "GPU_METRICS",
                     "Nsight's GPU metrics (its power rows are 1-s averages) are not used: "
                     "the run's own energy counter is");
    jl__imp_note(&kit, path, "",
                 "the spans' window is their hull: Nsight exports no profiler "
                 "window; set --window in attribute if the capture was cut");
    r = NULL; /* the kit's, handed over */
    st = jl__imp_end(&kit, JL_OK, out);
    goto end;
sql_fail:
    st = jl__imp_err_at(errors, JL_EFORMAT, path, 0, 0, NULL, "SQLite: %s", sqlite3_errmsg(db));
    goto end;
oom:
    st = jl__imp_err_at(errors, JL_ENOMEM, path, 0, 0, NULL, "out of memory");
end:
    sqlite3_finalize(q);
    sqlite3_close(db);
    jl_import_result_free(r);
    jl_spans_free(sp);
    for (size_t i = 0; i < n_names; i++)
        free(names[i]);
    free(names);
    free(rg);
    free(calls);
    free(cm.key);
    free(cm.val);
    free(env0);
    free(env1);
    free(busy);
    free(gpu);
    free(n_ops);
    free(clock);
    jl_run_free(run);
    return st;
}

static const jl_importer_option nsys_options[] = {{"offset", "S", "add S seconds to the alignment"},
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
