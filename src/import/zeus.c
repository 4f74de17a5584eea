/* joules import zeus — the log of Zeus' ZeusMonitor (`ZeusMonitor(log_file=
 * ...)`, zeus/monitor/energy.py; docs/import.md, "Zeus"): a header
 * `start_time,window_name,elapsed_time,gpu<i>_energy...` then one row per
 * measurement window ended (end_window), written as it ends:
 *
 *   start_time    time.time() at begin_window (Unix seconds; the Zeus of
 *                 2023 wrote time.monotonic(): seconds since boot)
 *   window_name   the key given to begin_window, written unquoted (a key
 *                 holding commas spreads over several fields)
 *   elapsed_time  seconds
 *   gpu<i>_energy joules over the window per GPU (NVML's total-energy
 *                 counter at end minus begin; older GPUs: the integral of
 *                 Zeus' power monitor)
 *
 * cpu<i>_energy and dram<i>_energy columns (RAPL, in joules; ZeusMonitor
 * measures them but its log does not write them) are read where a log has
 * them. Columns by name, any order; an unknown one is kept as an extra with
 * a note. Each window is one summary-only run with Zeus' figures in
 * summary/ (@source). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "import/kit.h"

#define SOURCE "Zeus ZeusMonitor log"
#define MAX_DEV 4096

enum { K_GPU, K_CPU, K_DRAM, K_OTHER };

typedef struct zcol {
    char *name;
    int kind;   /* K_* */
    long index; /* the device index of gpu<i>/cpu<i>/dram<i> */
} zcol;

typedef struct zs {
    jl__imp *k;
    const jl__imp_sets *sets;
    const char *path;
    zcol *cols;
    size_t H;
    int c_start, c_name, c_elapsed;
    size_t n_gpu, n_host;
    size_t rows, bad, monotonic;
    size_t n_col_notes, n_header_notes; /* the first 10 of each named, then a count */
} zs;

/* "gpu3_energy" -> K_GPU, 3. */
static int device_col(const char *s, long *index)
{
    static const char *const pre[] = {"gpu", "cpu", "dram"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(pre[k]);
        if (strncmp(s, pre[k], n) || s[n] < '0' || s[n] > '9')
            continue;
        char *end = NULL;
        long i = strtol(s + n, &end, 10);
        if (end && !strcmp(end, "_energy") && i >= 0 && i < MAX_DEV) {
            *index = i;
            return k;
        }
    }
    return K_OTHER;
}

static int read_header(zs *z, const jl__csv_row *row)
{
    z->c_start = z->c_name = z->c_elapsed = -1;
    if (!(z->cols = calloc(row->n ? row->n : 1, sizeof *z->cols))) {
        z->k->oom = 1;
        return -1;
    }
    z->H = row->n;
    for (size_t i = 0; i < row->n; i++) {
        zcol *c = &z->cols[i];
        if (!(c->name = jl__strdup(row->f[i].s))) {
            z->k->oom = 1;
            return -1;
        }
        c->kind = device_col(c->name, &c->index);
        if (c->kind == K_GPU)
            z->n_gpu++;
        else if (c->kind != K_OTHER)
            z->n_host++;
        else if (!strcmp(c->name, "start_time") && z->c_start < 0)
            z->c_start = (int)i;
        else if (!strcmp(c->name, "window_name") && z->c_name < 0)
            z->c_name = (int)i;
        else if (!strcmp(c->name, "elapsed_time") && z->c_elapsed < 0)
            z->c_elapsed = (int)i;
        else if (z->n_col_notes++ < 10)
            jl__imp_note(z->k, z->path, c->name,
                         "a column this importer does not know: kept as the extra attribute "
                         "zeus_%s",
                         c->name);
    }
    unsigned char seen[3][MAX_DEV]; /* 12 KiB */
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < row->n; i++) {
        const zcol *c = &z->cols[i];
        if (c->kind == K_OTHER)
            continue;
        if (seen[c->kind][c->index]++) {
            jl__imp_err_at(z->k->errors, JL_EFORMAT, z->path, row->line, row->f[i].column, c->name,
                           "column given twice");
            return -1;
        }
    }
    const char *missing = z->c_elapsed < 0 ? "elapsed_time" : !z->n_gpu ? "gpu<i>_energy" : NULL;
    if (missing) {
        jl__imp_err_at(z->k->errors, JL_EFORMAT, z->path, row->line, 0, missing,
                       "not a ZeusMonitor log: no %s column in the header (a ZeusMonitor "
                       "log starts start_time,window_name,elapsed_time,gpu0_energy...)",
                       missing);
        return -1;
    }
    return 0;
}

/* The row's fields with a window name that spread over several fields
 * (its commas: Zeus writes the key unquoted) joined back: the writer's
 * layout (start_time, window_name, then the rest) and extra fields. f[] of
 * z->H entries; *name_buf allocated when joined. 0, or -1 when the fields
 * cannot be matched to the header. */
static int fields_of(zs *z, const jl__csv_row *row, const char **f, char **name_buf)
{
    *name_buf = NULL;
    if (row->n == z->H) {
        for (size_t i = 0; i < z->H; i++)
            f[i] = row->f[i].s;
        return 0;
    }
    if (row->n < z->H || z->c_start != 0 || z->c_name != 1)
        return -1;
    size_t extra = row->n - z->H;
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (size_t i = 1; i <= 1 + extra; i++) {
        /* the reader trimmed the spaces around each comma: put them back
         * after it ("a, b"), as many as the columns say */
        long long gap =
            i > 1 ? row->f[i].column - row->f[i - 1].column - (long long)row->f[i - 1].len - 1 : 0;
        jl__strbuf_printf(&b, "%s%*s%s", i > 1 ? "," : "", gap > 0 && gap < 64 ? (int)gap : 0, "",
                          row->f[i].s);
    }
    if (!(*name_buf = jl__strbuf_take(&b))) {
        z->k->oom = 1;
        return -1;
    }
    f[0] = row->f[0].s;
    f[1] = *name_buf;
    for (size_t i = 2; i < z->H; i++)
        f[i] = row->f[i + extra].s;
    return 0;
}

/* "__GlobalPowerLimitOptimizer_250" (Zeus' power-limit optimiser names its
 * windows by the limit in W): the limit, else NaN. */
static double power_limit_of(const char *name)
{
    static const char pre[] = "__GlobalPowerLimitOptimizer_";
    if (strncmp(name, pre, sizeof pre - 1))
        return NAN;
    double w;
    return jl__imp_number(name + sizeof pre - 1, &w) && w > 0 ? w : NAN;
}

/* One window as a run. */
static void window_run(zs *z, const jl__csv_row *row, const char **f, const double *v)
{
    jl_run *r = jl_run_new();
    if (!r) {
        z->k->oom = 1;
        return;
    }
    const char *wname = z->c_name >= 0 && f[z->c_name][0] ? f[z->c_name] : "window";
    /* <log's name without .csv>__<window> (leading '_' of the window left out) */
    const char *base = strrchr(z->path, '/') ? strrchr(z->path, '/') + 1 : z->path;
    size_t bl = strlen(base);
    if (jl__imp_ends_with(base, ".csv") || jl__imp_ends_with(base, ".CSV"))
        bl -= 4;
    const char *wn = wname;
    while (*wn == '_')
        wn++;
    char *nm = jl__asprintf("%.*s__%s", (int)bl, base, *wn ? wn : wname);
    r->name = nm ? jl__imp_sanitize(nm) : NULL;
    free(nm);
    if (!r->name) {
        jl_run_free(r);
        z->k->oom = 1;
        return;
    }
    jl__imp_sets_apply(z->k, z->sets, r);
    if (r->attrs.num_gpus >= 1 && (size_t)r->attrs.num_gpus != z->n_gpu) {
        jl__imp_err_at(z->k->errors, JL_EINVALID, z->path, row->line, 0, "num_gpus",
                       "run %s: --set num_gpus=%ld but the log has %zu gpu<i>_energy "
                       "column%s",
                       r->name, r->attrs.num_gpus, z->n_gpu, z->n_gpu == 1 ? "" : "s");
        jl_run_free(r);
        return;
    }
    r->attrs.num_gpus = (long)z->n_gpu;
    const double el = z->c_elapsed >= 0 ? v[z->c_elapsed] : NAN;
    const double t0 = z->c_start >= 0 ? v[z->c_start] : NAN;
    jl_run_summary_attrs *s = &r->summary;
    s->present = 1;
    jl__imp_summary_str(z->k, r, "source", SOURCE);
    /* the boundary of the published figures (docs/summary.md): the user's
     * measurement window; per-GPU energies at gpu scope, CPU + DRAM the host */
    jl__imp_summary_str(z->k, r, "boundary_window", "custom");
    jl__imp_summary_str(z->k, r, "boundary_scope", "gpu");
    jl__imp_summary_str(z->k, r, "total_scope", "host");
    double gpu = 0, host = 0;
    size_t zero = 0;
    for (size_t i = 0; i < z->H; i++) {
        const zcol *c = &z->cols[i];
        if (c->kind == K_OTHER)
            continue;
        char key[48];
        snprintf(key, sizeof key, "%s%ld_energy_j",
                 c->kind == K_GPU   ? "gpu"
                 : c->kind == K_CPU ? "cpu"
                                    : "dram",
                 c->index);
        if (isfinite(v[i]))
            jl__imp_summary_num(z->k, r, key, v[i]);
        if (c->kind == K_GPU) {
            gpu += v[i];
            zero += v[i] == 0;
        } else {
            host += v[i];
        }
    }
    /* sums that overflow are no figures */
    gpu = isfinite(gpu) ? gpu : NAN;
    host = isfinite(host) ? host : NAN;
    s->steady_state_duration_s = el;
    s->steady_state_energy_j = gpu;
    jl__imp_summary_num(z->k, r, "run_duration_s", el);
    if (isfinite(gpu))
        jl__imp_summary_num(z->k, r, "run_energy_j", gpu);
    jl__strbuf der;
    jl__strbuf_init(&der);
    jl__strbuf_puts(&der, "steady_state_energy_j = the sum of gpu<i>_energy_j");
    if (el > 0 && isfinite(gpu / el)) {
        s->avg_power_w = gpu / el;
        jl__strbuf_puts(&der, "; avg_power_w = GPU energy / elapsed_time");
    }
    if (z->n_host && isfinite(host) && isfinite(gpu + host)) {
        jl__imp_summary_num(z->k, r, "host_energy_j", host);
        jl__imp_summary_num(z->k, r, "total_energy_j", gpu + host);
        jl__strbuf_puts(&der, "; host_energy_j = the sum of cpu<i>/dram<i>_energy_j; "
                              "total_energy_j = GPU + host energy");
    }
    char *d = jl__strbuf_take(&der);
    if (d)
        jl__imp_summary_str(z->k, r, "derived", d);
    else
        z->k->oom = 1;
    free(d);
    if (zero)
        jl__imp_note(z->k, z->path, "gpu<i>_energy",
                     "a window with a GPU energy of 0: shorter than the energy counter's update "
                     "period (Zeus warns of it; its approx_instant_energy option fills such "
                     "windows): kept as written");
    if (t0 > 1e9) {
        r->attrs.start_time_unix = t0;
    } else if (isfinite(t0)) {
        z->monotonic++;
        jl__imp_extra_num(z->k, r, "zeus_monotonic_start_s", t0);
    }
    double limit = power_limit_of(wname);
    if (isfinite(limit)) {
        jl__imp_extra_num(z->k, r, "power_limit_w", limit);
        if (isnan(r->attrs.gpu_tdp_w))
            r->attrs.gpu_tdp_w = limit;
        jl__imp_note(z->k, z->path, "window_name",
                     "windows of Zeus' GlobalPowerLimitOptimizer: the GPUs' power limit (W) in "
                     "the name is @gpu_tdp_w and @power_limit_w");
    }
    for (size_t i = 0; i < z->H; i++)
        if (z->cols[i].kind == K_OTHER && (int)i != z->c_start && (int)i != z->c_elapsed &&
            (int)i != z->c_name && f[i][0]) {
            char *key = jl__asprintf("zeus_%s", z->cols[i].name);
            double x;
            if (key)
                jl__imp_extra_text(z->k, r, key, f[i], jl__imp_number(f[i], &x));
            else
                z->k->oom = 1;
            free(key);
        }
    jl__imp_extra_str(z->k, r, "zeus_window_name", wname);
    jl__imp_extra_default(z->k, r, "source", "zeus", 0);
    jl__imp_extra_path(z->k, r, "zeus_log", z->path);
    jl__strbuf nb;
    jl__strbuf_init(&nb);
    if (r->attrs.notes)
        jl__strbuf_printf(&nb, "%s ", r->attrs.notes);
    jl__strbuf_printf(&nb,
                      "Imported from the ZeusMonitor log %s, line %lld: one measurement window "
                      "(each GPU's energy counter at its begin and end). A window is whatever "
                      "the program measured (a training step, an epoch, a batch of inference): "
                      "no tokens, requests or items, so no energy per token, request or item; "
                      "what can be analysed is the GPUs' energy, the window's length and the "
                      "average power.",
                      z->path, row->line);
    free(r->attrs.notes);
    if (!(r->attrs.notes = jl__strbuf_take(&nb)))
        z->k->oom = 1;
    char *miss = jl__imp_missing_required(&r->attrs);
    if (miss) {
        jl__imp_err_at(z->k->errors, JL_EMISSING, z->path, row->line, 0, miss,
                       "run %s: required attribute%s not given: %s: give %s with --set "
                       "KEY=VALUE (docs/import.md, \"Zeus\")",
                       r->name, strchr(miss, ',') ? "s" : "", miss,
                       strchr(miss, ',') ? "them" : "it");
        free(miss);
        jl_run_free(r);
        return;
    }
    jl__imp_push_run(z->k, r);
}

static void data_row(zs *z, const jl__csv_row *row)
{
    const char **f = calloc(z->H, sizeof *f);
    double *v = calloc(z->H, sizeof *v);
    char *joined = NULL;
    if (!f || !v) {
        z->k->oom = 1;
        goto done;
    }
    int bad = fields_of(z, row, f, &joined);
    if (!bad && z->k->oom)
        goto done;
    size_t bad_i = 0;
    const char *why = NULL;
    for (size_t i = 0; !bad && i < z->H; i++) {
        v[i] = NAN;
        const zcol *c = &z->cols[i];
        int numeric = c->kind != K_OTHER || (int)i == z->c_start || (int)i == z->c_elapsed;
        if (!numeric)
            continue;
        if (!jl__imp_number(f[i], &v[i]))
            why = "expected a number";
        else if (v[i] < 0 && (int)i != z->c_start)
            why = c->kind == K_OTHER ? "expected a number >= 0"
                                     : "expected an energy >= 0 (the counter went back?)";
        if (why) {
            bad = 1;
            bad_i = i;
        }
    }
    if (bad) {
        if (!row->complete) {
            jl__imp_note(z->k, z->path, NULL,
                         "line %lld: the last line is cut (no line end): dropped", row->line);
            goto done;
        }
        z->bad++;
        if (!why)
            jl__imp_err_at(z->k->errors, JL_EFORMAT, z->path, row->line, 0, NULL,
                           "%zu fields, the header has %zu: row skipped", row->n, z->H);
        else
            jl__imp_err_at(z->k->errors, JL_ETYPE, z->path, row->line,
                           row->n == z->H ? row->f[bad_i].column : 0, z->cols[bad_i].name,
                           "%s, found '%s': row skipped", why, f[bad_i]);
        goto done;
    }
    if (joined)
        jl__imp_note(z->k, z->path, "window_name",
                     "window names holding commas (Zeus writes them unquoted): the fields "
                     "between start_time and elapsed_time joined back");
    z->rows++;
    window_run(z, row, f, v);
done:
    free(joined);
    free(f);
    free(v);
}

static int header_cb(void *ctx, const jl__csv_row *row)
{
    return read_header(ctx, row);
}

static void row_cb(void *ctx, const jl__csv_row *row)
{
    zs *z = ctx;
    if (row->n == z->H && !strcmp(row->f[0].s, z->cols[0].name)) {
        if (z->n_header_notes++ < 10)
            jl__imp_note(z->k, z->path, NULL, "line %lld: the header again (logs appended)",
                         row->line);
    } else
        data_row(z, row);
}

static const jl_importer_option zeus_options[] = {
    {"set", "KEY=VALUE",
     "a run attribute for every window (repeatable): workload, model, task, precision, "
     "max_batch_size and gpu_model are required (the log records none)"},
    {NULL, NULL, NULL},
};

static jl_status zeus_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                          size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    *out = NULL;
    jl__imp_sets sets;
    jl__imp k;
    jl_status st = jl__imp_sets_start(&k, &sets, args, n_args, 0, n_paths ? paths[0] : NULL,
                                      "A ZeusMonitor log", errors);
    if (st != JL_OK)
        return st;
    size_t rows = 0, bad = 0, gpus = 0;
    for (size_t p = 0; p < n_paths && !k.oom; p++) {
        zs z = {0};
        z.k = &k;
        z.sets = &sets;
        z.path = paths[p];
        jl__imp_csv_each(&k, z.path, &z, header_cb, row_cb);
        if (z.n_col_notes > 10)
            jl__imp_note(&k, z.path, "columns", "%zu more unknown columns kept",
                         z.n_col_notes - 10);
        if (z.n_header_notes > 10)
            jl__imp_note(&k, z.path, "header", "%zu more headers again", z.n_header_notes - 10);
        if (z.monotonic)
            jl__imp_note(&k, z.path, "start_time",
                         "start_time is not Unix time (the Zeus of 2023 wrote time.monotonic(), "
                         "seconds since boot): no @start_time_unix, kept as "
                         "@zeus_monotonic_start_s");
        rows += z.rows;
        bad += z.bad;
        gpus = z.n_gpu > gpus ? z.n_gpu : gpus;
        k.res->n_files++;
        for (size_t i = 0; i < z.H; i++)
            free(z.cols[i].name);
        free(z.cols);
    }
    jl__imp_detail_num(&k, "n_rows", (double)rows);
    jl__imp_detail_num(&k, "rows_skipped", (double)bad);
    jl__imp_detail_num(&k, "max_gpus_per_log", (double)gpus);
    k.res->source = jl__strdup(SOURCE);
    k.res->detail_text = jl__asprintf("%zu windows, %zu notes", rows, k.res->n_notes);
    if (!k.res->source || !k.res->detail_text)
        k.oom = 1;
    jl__imp_sets_free(&sets);
    return jl__imp_finish(&k, out, n_paths ? paths[0] : NULL);
}

const jl_importer jl__importer_zeus = {
    .name = "zeus",
    .summary = "Zeus' ZeusMonitor log (GPU energy per measurement window)",
    .paths = "LOG.csv...",
    .description =
        "Import the CSV ZeusMonitor(log_file=...) writes: start_time,window_name,\n"
        "elapsed_time,gpu<i>_energy (J) per measurement window (and cpu<i>_energy,\n"
        "dram<i>_energy where a log has them). Each window is one summary-only run: each\n"
        "GPU's energy, their sum, the window's length and the average power in summary/\n"
        "(@source). start_time is Unix time (current Zeus) or time.monotonic() (Zeus of\n"
        "2023: no wall clock, said in a note). The log records no model, task, precision,\n"
        "batch cap or GPU model: give them with --set. No tokens: no energy per token.\n"
        "import.md, \"Zeus\".\n",
    .options = zeus_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = zeus_run,
};
