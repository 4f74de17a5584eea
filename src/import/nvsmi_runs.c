/* Import of nvidia-smi CSV logs (joules/import.h; the mapping is
 * docs/import.md, "nvidia-smi"), with runs cut by RUNS.csv and requests from
 * vLLM's `bench serve --save-result --save-detailed` JSON. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hash.h"
#include "core/reasons.h"
#include "core/util.h"
#include "import/kit.h"
#include "import/kit_segment.h"
#include "trace/trace_internal.h"

void jl_import_nvsmi_options_default(jl_import_nvsmi_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->max_rows = 100000000;
    opt->max_gpus = 1024;
    opt->max_request_bytes = (size_t)1 << 30;
    opt->power_lag_s = NAN;
    opt->auto_min_run_s = 5.0;
    opt->auto_merge_s = 1.0;
}

/* ---- the log's columns ------------------------------------------------------- */

typedef enum {
    K_TIME,
    K_INDEX,
    K_UUID,
    K_NAME,
    K_LIMIT,
    K_MEMTOTAL, /* per GPU, not series */
    K_POWER,
    K_POWER_INST,
    K_POWER_AVG,
    K_SM_UTIL,
    K_MEM_UTIL,
    K_MEM_USED,
    K_SM_CLOCK,
    K_TEMP,
    K_ENF_LIMIT, /* enforced.power.limit, W: per sample (nvidia-smi -pl changes it) */
    K_CAPPED,    /* 1: a power throttle reason active (sw_power_cap, hw_power_brake) */
    K_SLOWED,    /* 1: a thermal or hardware slowdown active */
    K_NSERIES,
    K_OTHER
} kind;
/* the throttle kinds: several columns fold into one series (the larger value) */
#define IS_THROTTLE(k) ((k) == K_CAPPED || (k) == K_SLOWED)
#define K_THR_MASK K_NSERIES /* clocks_*_reasons.active: a bit mask for both */
#define FIRST_SERIES K_POWER
#define N_SERIES (K_NSERIES - FIRST_SERIES)

static const struct {
    const char *field;
    kind k;
    const char *unit; /* the unit nvidia-smi prints */
    double scale;     /* to the trace's unit */
} known[] = {
    {"timestamp", K_TIME, "", 1},
    {"index", K_INDEX, "", 1},
    {"uuid", K_UUID, "", 1},
    {"gpu_uuid", K_UUID, "", 1},
    {"name", K_NAME, "", 1},
    {"gpu_name", K_NAME, "", 1},
    {"power.limit", K_LIMIT, "W", 1},
    {"enforced.power.limit", K_ENF_LIMIT, "W", 1},
    {"power.limit.enforced", K_ENF_LIMIT, "W", 1},
    /* power-cap and throttling context (docs/import.md, "Power caps"):
     * "Active" / "Not Active", under the older (clocks_throttle_reasons)
     * and the newer name (clocks_event_reasons, drivers 535+) */
    {"clocks_throttle_reasons.sw_power_cap", K_CAPPED, "", 1},
    {"clocks_event_reasons.sw_power_cap", K_CAPPED, "", 1},
    {"clocks_throttle_reasons.hw_power_brake_slowdown", K_CAPPED, "", 1},
    {"clocks_event_reasons.hw_power_brake_slowdown", K_CAPPED, "", 1},
    {"clocks_throttle_reasons.hw_slowdown", K_SLOWED, "", 1},
    {"clocks_event_reasons.hw_slowdown", K_SLOWED, "", 1},
    {"clocks_throttle_reasons.hw_thermal_slowdown", K_SLOWED, "", 1},
    {"clocks_event_reasons.hw_thermal_slowdown", K_SLOWED, "", 1},
    {"clocks_throttle_reasons.sw_thermal_slowdown", K_SLOWED, "", 1},
    {"clocks_event_reasons.sw_thermal_slowdown", K_SLOWED, "", 1},
    {"clocks_throttle_reasons.active", K_THR_MASK, "", 1},
    {"clocks_event_reasons.active", K_THR_MASK, "", 1},
    {"memory.total", K_MEMTOTAL, "MiB", 1048576.0},
    {"power.draw", K_POWER, "W", 1},
    {"power.draw.instant", K_POWER_INST, "W", 1},
    {"power.draw.average", K_POWER_AVG, "W", 1},
    {"utilization.gpu", K_SM_UTIL, "%", 0.01},
    {"utilization.memory", K_MEM_UTIL, "%", 0.01},
    {"memory.used", K_MEM_USED, "MiB", 1048576.0},
    {"clocks.sm", K_SM_CLOCK, "MHz", 1},
    {"clocks.current.sm", K_SM_CLOCK, "MHz", 1},
    {"temperature.gpu", K_TEMP, "C", 1},
};
#define N_KNOWN (sizeof known / sizeof known[0])

typedef struct col {
    char name[128]; /* field name without unit */
    char unit[128]; /* from the header's brackets, else the known unit */
    kind k;
    double scale;
} col;

/* One GPU of a log. */
typedef struct gpu {
    long index; /* nvidia-smi's index, -1 when not logged */
    char *uuid, *name;
    double limit_w, mem_total;
} gpu;

/* A log, grouped into samples: time [n] and each series [n, G]. */
struct log_data;
typedef struct log_data {
    char *path;
    jl__imp *k;            /* borrowed, for notes */
    jl_error_list *errors; /* borrowed */
    const jl_import_nvsmi_options *opt;
    jl__zone *zone; /* borrowed */
    col *cols;
    size_t n_cols;
    int has_series[N_SERIES];
    gpu *gpus;
    size_t G;
    int gpus_fixed; /* the first sample's GPU set is complete */
    /* samples */
    double *t;           /* Unix seconds */
    long long *line;     /* line of the sample's first row */
    double *v[N_SERIES]; /* [n * cap_g] */
    size_t n, cap;
    /* grouping state */
    unsigned char *seen; /* [G] seen in the current sample */
    size_t last_slot;    /* the current sample's last GPU */
    double last_t;       /* last row's time */
    double *gpu_last_t;  /* per GPU, its last row's time */
    long long *gpu_last_line;
    size_t rows, missing_values, decimal_commas;
    size_t n_samples;         /* samples grouped so far (all of them, streamed or not) */
    double sample_t0, min_dt; /* the current sample's first time; the shortest poll gap */
    int gpu_keyed;            /* an index or uuid column tells the GPUs apart */
    int ident_col;            /* without: a pci.bus_id, serial or name column, -1: none */
    char *ident;              /* its first value */
    long long ident_line;
    /* `nvidia-smi dmon -o DT` output: its columns by position (-1: the date,
     * merged into the time) and a row rebuilt as CSV fields */
    int dmon, *dmon_col;
    size_t dmon_n;
    /* a log re-exported with ';' between fields (a spreadsheet's, often with
     * decimal commas): each row rejoined and split at ';' into dmon_f */
    int semi;
    jl__csv_field *dmon_f;
    char *dmon_text;
    /* streaming: each completed sample goes to emit() and only the current
     * one is held (n <= 1); NULL: every sample is kept */
    jl_status (*emit)(void *ctx, struct log_data *L);
    void *emit_ctx;
    jl__imp_idle *idle; /* each GPU's idle level outside the runs (kit_segment.h); NULL */
    /* logging sessions (issue 37): where a new one begins (a header line
     * repeated, the clock jumping past SESSION_GAP_S, another GPU under an
     * index), the last line cut */
    int hdr_pending, ident_pending;
    char ident_msg[400];
    size_t session; /* the session of the sample being built, from 0 */
    struct log_session *sess;
    size_t n_sess, cap_sess;
    int cut_last;
    long long cut_line;
    double t_end; /* the last sample's time */
} log_data;

/* The first sample of a logging session after the first. */
typedef struct log_session {
    size_t at;      /* its sample number in the log (from 0) */
    double t, gap;  /* its time, and the time since the sample before */
    long long line; /* its first line */
    char why[400];  /* what began it */
} log_session;

/* A stretch without samples longer than this (and than the gap limit) is
 * two logging sessions: no logger pauses a minute on its own. */
#define SESSION_GAP_S 60.0

static void log_free(log_data *L)
{
    if (!L)
        return;
    free(L->path);
    free(L->cols);
    for (size_t g = 0; g < L->G; g++) {
        free(L->gpus[g].uuid);
        free(L->gpus[g].name);
    }
    free(L->gpus);
    free(L->t);
    free(L->line);
    for (int s = 0; s < N_SERIES; s++)
        free(L->v[s]);
    free(L->seen);
    free(L->dmon_col);
    free(L->ident);
    free(L->dmon_f);
    free(L->dmon_text);
    free(L->gpu_last_t);
    free(L->gpu_last_line);
    free(L->sess);
    jl__imp_idle_free(L->idle);
    free(L->idle);
    free(L);
}

#define LERR(L, code, line, column, field, ...) \
    jl__imp_err_at((L)->errors, code, (L)->path, line, column, field, __VA_ARGS__)

/* The nvidia-smi field a custom logger's column name stands for (its
 * words: power_draw_W, gpu_util, mem_used_MiB, temp_C, ...), else the name
 * itself (a column joules has no place for, noted). */
static const char *field_for(const char *name, char *buf, size_t cap)
{
    char low[128];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[i] = '\0';
    int mem = strstr(low, "mem") != NULL, util = strstr(low, "util") != NULL;
    const char *f =
        strstr(low, "time") || strstr(low, "date") ? "timestamp"
        : strstr(low, "power") || !strcmp(low, "pwr") || !strcmp(low, "watts") || !strcmp(low, "w")
            ? "power.draw"
        : strstr(low, "uuid")         ? "uuid"
        : util && mem                 ? "utilization.memory"
        : util                        ? "utilization.gpu"
        : mem && strstr(low, "used")  ? "memory.used"
        : mem && strstr(low, "total") ? "memory.total"
        : strstr(low, "temp")         ? "temperature.gpu"
        : strstr(low, "clock") && mem ? "clocks.mem"
        : strstr(low, "clock")        ? "clocks.sm"
        : strstr(low, "index") || !strcmp(low, "gpu") || !strcmp(low, "gpu_id") ||
                !strcmp(low, "device") || !strcmp(low, "id")
            ? "index"
        : strstr(low, "name") || strstr(low, "model") ? "name"
                                                      : NULL;
    snprintf(buf, cap, "%s", f ? f : name);
    return buf;
}

/* A header that is not nvidia-smi's (a logger of its own): the --columns
 * line that would read it, into buf. */
static void columns_hint(char **names, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k + 1 < cap; i++) {
        char name[128], unit[128], f[128];
        jl__imp_csv_split_unit(names[i], name, unit, sizeof name);
        int w = snprintf(buf + k, cap - k, "%s%s", i ? "," : "", field_for(name, f, sizeof f));
        if (w < 0 || (size_t)w >= cap - k) {
            buf[k] = '\0';
            break;
        }
        k += (size_t)w;
    }
}

static jl_status set_columns(log_data *L, char **names, size_t n, long long line)
{
    L->cols = calloc(n ? n : 1, sizeof *L->cols);
    if (!L->cols)
        return JL_ENOMEM;
    L->n_cols = n;
    int have_time = 0, have_power = 0;
    size_t first_of[K_OTHER + 1]; /* each kind's first column: a header is read in linear time */
    for (size_t k = 0; k <= K_OTHER; k++)
        first_of[k] = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        col *c = &L->cols[i];
        jl__imp_csv_split_unit(names[i], c->name, c->unit,
                               sizeof c->unit < sizeof c->name ? sizeof c->unit : sizeof c->name);
        char unit_hdr[128];
        snprintf(unit_hdr, sizeof unit_hdr, "%s", c->unit);
        c->k = K_OTHER;
        c->scale = 1;
        for (size_t k = 0; k < N_KNOWN; k++)
            if (!strcmp(known[k].field, c->name)) {
                c->k = known[k].k;
                c->scale = known[k].scale;
                if (unit_hdr[0] && known[k].unit[0] && strcmp(unit_hdr, known[k].unit))
                    return LERR(L, JL_EINVALID, line, 0, c->name,
                                "the header says [%s], expected [%s]", unit_hdr, known[k].unit);
                if (!unit_hdr[0])
                    snprintf(c->unit, sizeof c->unit, "%s", known[k].unit);
                break;
            }
        /* the throttle columns fold into one series: logged more than once by design */
        int once = c->k != K_OTHER && !IS_THROTTLE(c->k) && c->k != K_THR_MASK;
        if (once && first_of[c->k] != (size_t)-1)
            return LERR(L, JL_EINVALID, line, 0, c->name, "logged twice (also as '%s')",
                        L->cols[first_of[c->k]].name);
        if (first_of[c->k] == (size_t)-1)
            first_of[c->k] = i;
        if (c->k == K_TIME)
            have_time = 1;
        if (c->k == K_POWER || c->k == K_POWER_INST)
            have_power = 1;
        if (c->k == K_OTHER)
            jl__imp_note(L->k, L->path, c->name,
                         "column not imported (joules has no "
                         "place for it)");
    }
    if ((!have_time || !have_power) && line > 0 && !L->opt->columns) {
        /* a header of another logger: the --columns line that reads it */
        char hint[1024];
        columns_hint(names, n, hint, sizeof hint);
        if (strstr(hint, "timestamp") && strstr(hint, "power.draw"))
            return LERR(L, JL_EMISSING, line, 0, NULL,
                        "no '%s' column: this header is not nvidia-smi's (a logger of its own?); "
                        "name its columns as nvidia-smi's fields, in order, and the header line "
                        "is skipped: --columns %s (values in nvidia-smi's units: W, %%, MiB, "
                        "MHz, C)",
                        !have_time ? "timestamp" : "power.draw", hint);
    }
    if (!have_time)
        return LERR(L, JL_EMISSING, line, 0, NULL,
                    "no 'timestamp' column (query it with --query-gpu=timestamp,...)");
    if (!have_power)
        return LERR(L, JL_EMISSING, line, 0, NULL,
                    "no power column (power.draw or power.draw.instant)");
    return JL_OK;
}

static int grow_samples(log_data *L)
{
    if (L->n < L->cap)
        return 1;
    size_t nc = L->cap ? L->cap * 2 : 4096;
    double *t = realloc(L->t, nc * sizeof *t);
    if (!t)
        return 0;
    L->t = t;
    long long *ln = realloc(L->line, nc * sizeof *ln);
    if (!ln)
        return 0;
    L->line = ln;
    for (int s = 0; s < N_SERIES; s++) {
        if (!L->has_series[s])
            continue;
        size_t bytes;
        if (!jl__mul_size(nc, L->G * sizeof(double), &bytes))
            return 0;
        double *v = realloc(L->v[s], bytes);
        if (!v)
            return 0;
        L->v[s] = v;
    }
    L->cap = nc;
    return 1;
}

static void start_sample(log_data *L, double t, long long line)
{
    size_t i = L->n++;
    L->t[i] = t;
    L->line[i] = line;
    for (int s = 0; s < N_SERIES; s++)
        if (L->has_series[s])
            for (size_t g = 0; g < L->G; g++)
                L->v[s][i * L->G + g] = NAN;
    memset(L->seen, 0, L->G);
}

/* The slot of a row's GPU: 1 when known. */
static int find_gpu(const log_data *L, long index, const char *uuid, size_t *slot)
{
    for (size_t g = 0; g < L->G; g++) {
        int same = index >= 0 ? L->gpus[g].index == index
                              : (uuid && L->gpus[g].uuid && !strcmp(L->gpus[g].uuid, uuid));
        if (same) {
            *slot = g;
            return 1;
        }
    }
    return 0;
}

/* A GPU of the first sample. */
static jl_status add_gpu(log_data *L, long index, const char *uuid, long long line,
                         long long column, size_t *slot)
{
    if (L->G >= L->opt->max_gpus)
        return LERR(L, JL_ELIMIT, line, column, NULL, "more than %zu GPUs", L->opt->max_gpus);
    gpu *ng = realloc(L->gpus, (L->G + 1) * sizeof *ng);
    if (!ng)
        return JL_ENOMEM;
    L->gpus = ng;
    unsigned char *ns = realloc(L->seen, L->G + 1);
    if (!ns)
        return JL_ENOMEM;
    L->seen = ns;
    double *lt = realloc(L->gpu_last_t, (L->G + 1) * sizeof *lt);
    if (!lt)
        return JL_ENOMEM;
    L->gpu_last_t = lt;
    long long *ll = realloc(L->gpu_last_line, (L->G + 1) * sizeof *ll);
    if (!ll)
        return JL_ENOMEM;
    L->gpu_last_line = ll;
    memset(&ng[L->G], 0, sizeof *ng);
    ng[L->G].index = index;
    ng[L->G].limit_w = ng[L->G].mem_total = NAN;
    if (uuid && !(ng[L->G].uuid = jl__strdup(uuid)))
        return JL_ENOMEM;
    L->seen[L->G] = 0;
    L->gpu_last_t[L->G] = NAN;
    L->gpu_last_line[L->G] = 0;
    *slot = L->G++;
    return JL_OK;
}

/* a == b for the short unit texts (inline: called for every value) */
static inline int same_unit(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* One parsed row, before grouping. */
typedef struct prow {
    double t;
    long long line;
    size_t slot;
    double v[N_SERIES];
} prow;

/* Does the sample of row r (dt after the one before) begin a new logging
 * session? A header line repeated since, with a gap beyond the gap limit
 * (5 polls of the log's shortest, and 1 s more than one: the limit the
 * summary's sample_gap uses); a gap beyond SESSION_GAP_S; another GPU under
 * an index. 1 (recorded), 0, -1 out of memory. */
static int new_session(log_data *L, const prow *r, double dt)
{
    double lim = isfinite(L->min_dt) ? fmax(5 * L->min_dt, L->min_dt + 1.0) : 1.0;
    char why[400] = "";
    if (L->ident_pending)
        snprintf(why, sizeof why, "%s", L->ident_msg);
    else if (L->hdr_pending && dt > lim)
        snprintf(why, sizeof why, "a header line repeated and %.6g s without samples", dt);
    else if (dt > SESSION_GAP_S && dt > lim)
        snprintf(why, sizeof why, "%.6g s without samples (more than %g s)", dt, SESSION_GAP_S);
    L->hdr_pending = L->ident_pending = 0;
    if (!why[0])
        return 0;
    if (L->n_sess == L->cap_sess) {
        size_t nc = L->cap_sess ? 2 * L->cap_sess : 4;
        log_session *x = realloc(L->sess, nc * sizeof *x);
        if (!x)
            return -1;
        L->sess = x;
        L->cap_sess = nc;
    }
    log_session *x = &L->sess[L->n_sess++];
    x->at = L->n_samples;
    x->t = r->t;
    x->gap = dt;
    x->line = r->line;
    snprintf(x->why, sizeof x->why, "%s", why);
    return 1;
}

/* Group rows into samples, keyed by GPU: a row joins the current sample
 * unless its GPU is in it already. A GPU missing from a poll must not pull
 * the next poll's row into this sample: a row whose GPU does not come after
 * the current sample's last one (in the order of the first poll, which
 * numbers the slots) starts the next sample, unless it is within half the
 * log's shortest poll gap of the sample's first row (a poll whose rows came
 * in another GPU order). */
static jl_status add_row(log_data *L, const prow *r)
{
    int same_poll = L->n > 0 && isfinite(L->min_dt) && r->t - L->sample_t0 < 0.5 * L->min_dt;
    if (L->n == 0 || L->seen[r->slot] || (r->slot <= L->last_slot && !same_poll)) {
        double dt = r->t - L->sample_t0;
        int began = L->n_samples > 0 ? new_session(L, r, dt) : 0;
        if (began < 0)
            return JL_ENOMEM;
        if (L->n_samples > 0 && r->t > L->sample_t0 && !began &&
            (isnan(L->min_dt) || r->t - L->sample_t0 < L->min_dt))
            L->min_dt = r->t - L->sample_t0;
        L->sample_t0 = r->t;
        if (L->emit && L->n == 1) {
            jl_status st = L->emit(L->emit_ctx, L);
            if (st != JL_OK)
                return st;
            L->n = 0;
        }
        L->session += began;
        if (!grow_samples(L))
            return JL_ENOMEM;
        start_sample(L, r->t, r->line);
        L->n_samples++;
    }
    size_t i = L->n - 1;
    if (!isnan(L->gpu_last_t[r->slot]) && r->t == L->gpu_last_t[r->slot] && !L->gpu_keyed)
        return LERR(L, JL_EINVALID, r->line, 1, "timestamp",
                    "line %lld has the same time: the log holds several GPUs but no index or "
                    "uuid column to tell them apart; log them with --query-gpu=timestamp,index,"
                    "uuid,power.draw,... (or one GPU with -i N)",
                    L->gpu_last_line[r->slot]);
    if (!isnan(L->gpu_last_t[r->slot]) && r->t == L->gpu_last_t[r->slot])
        return LERR(L, JL_EINVALID, r->line, 1, "timestamp",
                    "duplicate timestamp for GPU %zu: line %lld has the same time", r->slot,
                    L->gpu_last_line[r->slot]);
    L->gpu_last_t[r->slot] = r->t;
    L->gpu_last_line[r->slot] = r->line;
    L->seen[r->slot] = 1;
    L->last_slot = r->slot;
    for (int s = 0; s < N_SERIES; s++)
        if (L->has_series[s])
            L->v[s][i * L->G + r->slot] = r->v[s];
    return JL_OK;
}

static int cmp_prow(const void *a, const void *b)
{
    const prow *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static char *xdup(const char *s)
{
    return s ? jl__strdup(s) : NULL;
}

/* ---- what a file that is not a CSV log is -------------------------------------- */

#define RECORD_HINT                                                                      \
    "record a log with `nvidia-smi --query-gpu=timestamp,index,power.draw --format=csv " \
    "-lms 100 -f log.csv` (or `nvidia-smi dmon -o DT`)"

static int starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* A line `Tue Oct 29 19:00:23 2024`: what plain `nvidia-smi` prints first. */
static int is_ctime_line(const char *s)
{
    static const char *const days[] = {"Mon ", "Tue ", "Wed ", "Thu ", "Fri ", "Sat ", "Sun "};
    for (size_t i = 0; i < sizeof days / sizeof days[0]; i++)
        if (starts_with(s, days[i]))
            return strlen(s) >= 24 && s[13] == ':' && s[16] == ':';
    return 0;
}

/* The first line when it is not a CSV header: nvidia-smi's other outputs,
 * said by name with what to record instead. 1: dmon -o DT (read); -1: an
 * error (pushed); 0: something else (read as a CSV header). */
static int other_format(log_data *L, const jl__csv_row *row, jl_status *st)
{
    const char *s = row->f[0].s;
    if (row->n == 1 && s[0] == '#' && strstr(s, "gpu")) {
        if (strstr(s, "Date") && strstr(s, "Time"))
            return 1;
        *st = LERR(L, JL_EFORMAT, row->line, 1, NULL,
                   "`nvidia-smi dmon` output without date and time (its samples cannot be placed "
                   "in time): record it with `nvidia-smi dmon -o DT`, or %s",
                   RECORD_HINT);
        return -1;
    }
    if (row->n == 1 &&
        (starts_with(s, "+-") || starts_with(s, "| NVIDIA-SMI") || is_ctime_line(s))) {
        *st = LERR(L, JL_EFORMAT, row->line, 1, NULL,
                   "the human-readable table of plain `nvidia-smi` (one snapshot per call, "
                   "no series to integrate), not a CSV log: %s",
                   RECORD_HINT);
        return -1;
    }
    if (row->n == 1 && strchr(s, ';') && (strstr(s, "timestamp") || strstr(s, "power")))
        return 2; /* ';' between fields: read as such (semi_row) */
    return 0;
}

/* dmon's column names as the CSV fields joules knows. */
static const char *dmon_field(const char *tok)
{
    static const char *const map[][2] = {
        {"gpu", "index"},          {"pwr", "power.draw"},         {"gtemp", "temperature.gpu"},
        {"sm", "utilization.gpu"}, {"mem", "utilization.memory"}, {"pclk", "clocks.sm"},
        {"fb", "memory.used"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(tok, map[i][0]))
            return map[i][1];
    return NULL;
}

/* `#Date Time gpu pwr gtemp ...` (dmon -o DT): the columns. Date and Time
 * become one timestamp; a column joules has no place for keeps its dmon
 * name (noted). dmon's MB are MiB. */
static jl_status dmon_header(log_data *L, const jl__csv_row *row)
{
    char *copy = jl__strdup(row->f[0].s + 1);
    char *names[256], *save = NULL;
    size_t n = 0, nt = 0;
    int cols[256];
    if (!copy)
        return JL_ENOMEM;
    for (char *tok = strtok_r(copy, " \t", &save); tok && nt < 256;
         tok = strtok_r(NULL, " \t", &save), nt++) {
        const char *f = dmon_field(tok);
        if (!strcmp(tok, "Date")) {
            cols[nt] = -1;
            continue;
        }
        cols[nt] = (int)n;
        names[n++] = !strcmp(tok, "Time") ? "timestamp" : f ? (char *)f : tok;
    }
    jl_status st = JL_ENOMEM;
    L->dmon_col = jl__malloc_array(nt ? nt : 1, sizeof *L->dmon_col);
    L->dmon_f = jl__malloc_array(n ? n : 1, sizeof *L->dmon_f);
    if (L->dmon_col && L->dmon_f) {
        memcpy(L->dmon_col, cols, nt * sizeof *cols);
        L->dmon_n = nt;
        L->dmon = 1;
        st = set_columns(L, names, n, row->line);
    }
    free(copy);
    if (st == JL_OK)
        jl__imp_note(L->k, L->path, "",
                     "`nvidia-smi dmon -o DT` output: read by its columns "
                     "(gpu as index, pwr as power.draw, times to the second)");
    return st;
}

/* One row of a ';'-separated log as the CSV row data_row reads: the fields
 * the CSV reader split at ',' joined again (a decimal comma: "12,06 W"),
 * then split at ';', blanks around each field trimmed. */
static int semi_row(log_data *L, const jl__csv_row *in, jl__csv_row *out)
{
    size_t len = 0;
    for (size_t i = 0; i < in->n; i++)
        len += in->f[i].len + 1;
    char *text = realloc(L->dmon_text, len + 1);
    if (!text)
        return -1;
    L->dmon_text = text;
    char *o = text;
    for (size_t i = 0; i < in->n; i++) {
        if (i)
            *o++ = ',';
        memcpy(o, in->f[i].s, in->f[i].len);
        o += in->f[i].len;
    }
    *o = '\0';
    size_t nf = 1;
    for (const char *q = text; *q; q++)
        nf += *q == ';';
    jl__csv_field *f = realloc(L->dmon_f, nf * sizeof *f);
    if (!f)
        return -1;
    L->dmon_f = f;
    char *start = text;
    for (size_t k = 0; k < nf; k++) {
        char *end = strchr(start, ';');
        if (end)
            *end = '\0';
        while (*start == ' ' || *start == '\t')
            start++;
        size_t n = strlen(start);
        while (n && (start[n - 1] == ' ' || start[n - 1] == '\t' || start[n - 1] == '\r'))
            start[--n] = '\0';
        f[k].s = start;
        f[k].len = n;
        f[k].column = in->n ? in->f[0].column + (long long)(start - text) : 1;
        start = end ? end + 1 : start + n;
    }
    *out = *in;
    out->f = f;
    out->n = nf;
    return 1;
}

/* One dmon data line as the CSV row data_row reads: fields split at
 * blanks, the date and time joined as "YYYY/MM/DD HH:MM:SS", '-' missing.
 * 0: not a data line (a repeated '#' header). */
static int dmon_row(log_data *L, const jl__csv_row *in, jl__csv_row *out)
{
    const char *s = in->f[0].s;
    if (s[0] == '#')
        return 0;
    size_t len = strlen(s);
    char *text = realloc(L->dmon_text, 2 * len + 16), *o = text, *save = NULL;
    if (!text)
        return -1;
    L->dmon_text = text;
    char *copy = text + len + 8;
    memcpy(copy, s, len + 1);
    jl__csv_field *f = realloc(L->dmon_f, (len / 2 + 2) * sizeof *f);
    if (!f)
        return -1;
    L->dmon_f = f;
    const char *date = "";
    size_t t = 0, nf = 0;
    for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save), t++) {
        int c = t < L->dmon_n ? L->dmon_col[t] : -2; /* -2: beyond the header */
        if (c == -1) {
            date = tok;
            continue;
        }
        L->dmon_f[nf].s = o;
        L->dmon_f[nf].column = (long long)(tok - copy) + in->f[0].column;
        if (c >= 0 && L->cols[c].k == K_TIME && strlen(date) == 8)
            o += sprintf(o, "%.4s/%.2s/%.2s %s", date, date + 4, date + 6, tok);
        else if (strcmp(tok, "-"))
            o += sprintf(o, "%s", tok);
        L->dmon_f[nf].len = (size_t)(o - L->dmon_f[nf].s);
        *o++ = '\0';
        nf++;
    }
    *out = *in;
    out->f = L->dmon_f;
    out->n = nf;
    return 1;
}

/* A row that repeats the header (another logging session appended to the
 * file): every field names the same column. */
static int repeats_header(const log_data *L, const jl__csv_row *row)
{
    if (row->n != L->n_cols || L->dmon)
        return 0;
    for (size_t i = 0; i < row->n; i++) {
        char name[128], unit[128];
        jl__imp_csv_split_unit(row->f[i].s, name, unit, sizeof name);
        if (strcmp(name, L->cols[i].name))
            return 0;
    }
    return 1;
}

/* What read_log holds between rows: the columns of the series, the rows
 * held back (the first sample's until its GPUs are known; every row under
 * --sort) and whether the first sample is complete. */
typedef struct reader {
    int cidx[K_NSERIES + 1];
    prow *rows, *first;
    size_t nrows, caprows, nfirst, capfirst;
    int first_done;
} reader;

/* The header row, or --columns (names split at ','). */
static jl_status read_header(log_data *L, const jl__csv_row *row)
{
    if (!row) {
        char *copy = jl__strdup(L->opt->columns);
        char *names[512];
        size_t n = 0;
        if (!copy)
            return JL_ENOMEM;
        for (char *tok = strtok(copy, ","); tok && n < 512; tok = strtok(NULL, ","))
            names[n++] = tok;
        jl_status st = set_columns(L, names, n, 0);
        free(copy);
        return st;
    }
    jl_status st = JL_OK;
    int other = other_format(L, row, &st);
    jl__csv_row semi;
    if (other == 2) { /* ';' between fields: the header split so too */
        if (semi_row(L, row, &semi) < 0)
            return JL_ENOMEM;
        L->semi = 1;
        jl__imp_note(L->k, L->path, "",
                     "fields separated by ';' (a spreadsheet's export of the log): read as "
                     "such, a decimal comma in a value as a decimal point");
        row = &semi;
    } else if (other) {
        return other > 0 ? dmon_header(L, row) : st;
    }
    /* the header: its first field must not be a time */
    jl__civil cv;
    if (row->n > 0 && jl__civil_parse(row->f[0].s, &cv))
        return LERR(L, JL_EMISSING, row->line, 1, NULL,
                    "the log has no header line (format=csv,noheader?): name its "
                    "fields with --columns timestamp,index,power.draw,...");
    char **names = malloc((row->n ? row->n : 1) * sizeof *names);
    if (!names)
        return JL_ENOMEM;
    for (size_t i = 0; i < row->n; i++)
        names[i] = (char *)row->f[i].s;
    st = set_columns(L, names, row->n, row->line);
    free(names);
    return st;
}

/* The columns of time, GPU and series (once, at the first data row). */
static void layout_columns(log_data *L, reader *rd)
{
    for (size_t i = 0; i < L->n_cols; i++)
        if (L->cols[i].k <= K_NSERIES)
            rd->cidx[L->cols[i].k] = (int)i;
    for (int s = 0; s < N_SERIES; s++)
        L->has_series[s] = rd->cidx[FIRST_SERIES + s] >= 0;
    if (rd->cidx[K_THR_MASK] >= 0)
        L->has_series[K_CAPPED - FIRST_SERIES] = L->has_series[K_SLOWED - FIRST_SERIES] = 1;
    L->gpu_keyed = rd->cidx[K_INDEX] >= 0 || rd->cidx[K_UUID] >= 0;
    L->ident_col = -1;
    static const char *const idents[] = {"pci.bus_id", "serial", "name", "gpu_name"};
    for (size_t k = 0; !L->gpu_keyed && k < sizeof idents / sizeof idents[0]; k++)
        for (size_t i = 0; L->ident_col < 0 && i < L->n_cols; i++)
            if (!strcmp(L->cols[i].name, idents[k]))
                L->ident_col = (int)i;
}

/* Without index or uuid every row is one GPU's: a pci.bus_id, serial or
 * name that changes says the log holds several it cannot tell apart. */
static jl_status same_gpu(log_data *L, const jl__csv_row *row)
{
    if (L->ident_col < 0)
        return JL_OK;
    const jl__csv_field *f = &row->f[L->ident_col];
    if (!L->ident) {
        L->ident_line = row->line;
        return (L->ident = jl__strdup(f->s)) ? JL_OK : JL_ENOMEM;
    }
    if (!strcmp(L->ident, f->s))
        return JL_OK;
    return LERR(L, JL_EINVALID, row->line, f->column, L->cols[L->ident_col].name,
                "'%s' here, '%s' at line %lld: the log holds several GPUs but no index or uuid "
                "column to tell them apart; log them with --query-gpu=timestamp,index,uuid,"
                "power.draw,... (or one GPU with -i N)",
                f->s, L->ident, L->ident_line);
}

/* The row's time (Unix s, through the zone) into pr->t. */
static jl_status row_time(log_data *L, const jl__csv_row *row, const reader *rd, prow *pr)
{
    const jl__csv_field *tf = &row->f[rd->cidx[K_TIME]];
    jl__civil cv;
    if (!jl__civil_parse(tf->s, &cv))
        return LERR(L, JL_EINVALID, row->line, tf->column, "timestamp",
                    "expected a time like 2026/11/23 22:17:22.120, found '%s'", tf->s);
    int gap = 0;
    pr->t = jl__zone_to_unix(L->zone, &cv, L->last_t, &gap);
    if (gap)
        jl__imp_note(L->k, L->path, "timestamp",
                     "a time that does not exist in %s (a clock change gap), first at line %lld",
                     jl__zone_name(L->zone), row->line);
    if (!L->opt->sort && L->rows > 1 && pr->t < L->last_t)
        return LERR(L, JL_EINVALID, row->line, tf->column, "timestamp",
                    "time goes backwards (%s is %.3f s before the line above): a clock "
                    "change or logs concatenated out of order; --sort sorts the rows",
                    tf->s, L->last_t - pr->t);
    L->last_t = pr->t;
    return JL_OK;
}

/* The row's GPU (by index, else uuid, else the only one) as a slot; a GPU
 * not in the first sample is an error. */
static jl_status row_gpu(log_data *L, const jl__csv_row *row, reader *rd, size_t *slot)
{
    long index = -1;
    const char *uuid = NULL;
    long long gcol = 1;
    if (rd->cidx[K_INDEX] >= 0) {
        const jl__csv_field *f = &row->f[rd->cidx[K_INDEX]];
        char *e;
        errno = 0;
        long x = strtol(f->s, &e, 10);
        if (!*f->s || *e || errno || x < 0 || x > 1000000)
            return LERR(L, JL_EINVALID, row->line, f->column, "index",
                        "expected a GPU index (0, 1, ...), found '%s'", f->s);
        index = x;
        gcol = f->column;
    } else if (rd->cidx[K_UUID] >= 0) {
        uuid = row->f[rd->cidx[K_UUID]].s;
        gcol = row->f[rd->cidx[K_UUID]].column;
    } else {
        index = 0;
    }
    if (find_gpu(L, index, uuid, slot)) {
        if (!rd->first_done) { /* a GPU seen again: the first sample is complete */
            rd->first_done = 1;
            L->gpus_fixed = 1;
        }
        return JL_OK;
    }
    if (!rd->first_done)
        return add_gpu(L, index, uuid, row->line, gcol, slot);
    return index >= 0 ? LERR(L, JL_EINVALID, row->line, gcol, "index",
                             "GPU %ld appears mid-log (the log's first sample has %zu "
                             "GPU%s): a log must list the same GPUs throughout",
                             index, L->G, L->G == 1 ? "" : "s")
                      : LERR(L, JL_EINVALID, row->line, gcol, "uuid",
                             "GPU %s appears mid-log (the log's first sample has %zu "
                             "GPU%s): a log must list the same GPUs throughout",
                             uuid, L->G, L->G == 1 ? "" : "s");
}

/* One value of a series or per-GPU column: NaN when missing, else the
 * number in the trace's unit (a unit in the value must be the column's). */
static jl_status row_value(log_data *L, const jl__csv_row *row, const col *c,
                           const jl__csv_field *f, double *out)
{
    *out = NAN;
    if (jl__imp_csv_missing(f->s)) {
        L->missing_values++;
        return JL_OK;
    }
    const char *unit;
    double x;
    if (!jl__imp_number_unit(f->s, &x, &unit))
        return LERR(L, JL_EINVALID, row->line, f->column, c->name,
                    "expected a number%s%s, found '%s'", c->unit[0] ? " in " : "", c->unit, f->s);
    /* a decimal comma ("12,06 W": a locale's export, quoted in a ','-log or
     * in a ';'-log): the comma read as the decimal point; nvidia-smi writes
     * no thousands separator, so ',' then digits is never one */
    char dot[64];
    if (unit[0] == ',' && isdigit((unsigned char)unit[1]) && f->len < sizeof dot &&
        !strchr(unit + 1, ',')) {
        memcpy(dot, f->s, f->len + 1);
        dot[unit - f->s] = '.';
        const char *u2;
        if (jl__imp_number_unit(dot, &x, &u2)) {
            unit = f->s + (u2 - dot);
            if (!L->decimal_commas++)
                jl__imp_note(L->k, L->path, c->name,
                             "decimal commas read as decimal points (line %lld: '%s' is %.10g)",
                             row->line, f->s, x);
        }
    }
    if (*unit && !same_unit(unit, c->unit) && !(c->k == K_TEMP && !c->unit[0]))
        return LERR(L, JL_EINVALID, row->line, f->column, c->name,
                    "the unit '%s' does not match the column's [%s] (value '%s')", unit, c->unit,
                    f->s);
    if (!isfinite(x))
        return LERR(L, JL_EINVALID, row->line, f->column, c->name,
                    "expected a finite number, found '%s'", f->s);
    *out = x * c->scale;
    return JL_OK;
}

/* A throttle reason cell: "Active" / "Not Active" (a reason's own column)
 * or the bit mask of clocks_*_reasons.active ("0x0000000000000004"), folded
 * into the row's K_CAPPED and K_SLOWED (the larger value wins; missing
 * cells leave NaN). The mask's bits (NVML's nvmlClocksEventReasons): 0x4
 * SW power cap, 0x80 HW power brake; 0x8 HW slowdown, 0x20 SW thermal,
 * 0x40 HW thermal. */
static void throttle_value(kind k, const char *s, double *v)
{
    double cap = NAN, slow = NAN;
    if (!strcmp(s, "Active") || !strcmp(s, "Not Active")) {
        double x = s[0] == 'A';
        if (k == K_CAPPED)
            cap = x;
        else
            slow = x;
    } else if (k == K_THR_MASK && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        char *end;
        errno = 0;
        unsigned long long m = strtoull(s + 2, &end, 16);
        if (!errno && end != s + 2 && !*end) {
            cap = (m & 0x84u) != 0;
            slow = (m & 0x68u) != 0;
        }
    }
    double *pc = &v[K_CAPPED - FIRST_SERIES], *ps = &v[K_SLOWED - FIRST_SERIES];
    if (!isnan(cap))
        *pc = isnan(*pc) ? cap : fmax(*pc, cap);
    if (!isnan(slow))
        *ps = isnan(*ps) ? slow : fmax(*ps, slow);
}

/* The row's per-GPU attributes (name, uuid, power limit, memory) into its
 * GPU and its series values into pr. */
static jl_status row_values(log_data *L, const jl__csv_row *row, gpu *gp, prow *pr)
{
    for (size_t i = 0; i < L->n_cols; i++) {
        const col *c = &L->cols[i];
        const jl__csv_field *f = &row->f[i];
        if (c->k == K_NAME || c->k == K_UUID) {
            char **dst = c->k == K_NAME ? &gp->name : &gp->uuid;
            int usable = *f->s && (c->k == K_UUID || !jl__imp_csv_missing(f->s));
            if (!*dst && usable && !(*dst = xdup(f->s)))
                return JL_ENOMEM;
            if (*dst && usable && strcmp(*dst, f->s) && !L->ident_pending) {
                /* another GPU under this index: another machine's log appended */
                snprintf(L->ident_msg, sizeof L->ident_msg,
                         "GPU %ld's %.60s changes from '%.80s' to '%.80s' at line %lld", gp->index,
                         c->name, *dst, f->s, row->line);
                L->ident_pending = 1;
                char *d = xdup(f->s);
                if (!d)
                    return JL_ENOMEM;
                free(*dst);
                *dst = d;
            }
            continue;
        }
        if (c->k == K_TIME || c->k == K_INDEX || c->k == K_OTHER)
            continue;
        if (IS_THROTTLE(c->k) || c->k == K_THR_MASK) {
            throttle_value(c->k, f->s, pr->v);
            continue;
        }
        double x;
        jl_status st = row_value(L, row, c, f, &x);
        if (st != JL_OK)
            return st;
        if (c->k == K_LIMIT) {
            if (isnan(gp->limit_w))
                gp->limit_w = x;
        } else if (c->k == K_MEMTOTAL) {
            if (isnan(gp->mem_total))
                gp->mem_total = x;
        } else {
            pr->v[c->k - FIRST_SERIES] = x;
        }
    }
    return JL_OK;
}

/* A parsed row: held back (the first sample's, or every row under --sort)
 * or grouped now (the first sample's held rows first). */
static jl_status place_row(log_data *L, reader *rd, const prow *pr)
{
    if (L->opt->sort || !rd->first_done) {
        prow **arr = L->opt->sort ? &rd->rows : &rd->first;
        size_t *n = L->opt->sort ? &rd->nrows : &rd->nfirst,
               *cap = L->opt->sort ? &rd->caprows : &rd->capfirst;
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 1024;
            prow *x = realloc(*arr, nc * sizeof *x);
            if (!x)
                return JL_ENOMEM;
            *arr = x;
            *cap = nc;
        }
        (*arr)[(*n)++] = *pr;
        return JL_OK;
    }
    jl_status st = JL_OK;
    if (rd->first) {
        for (size_t k = 0; k < rd->nfirst && st == JL_OK; k++)
            st = add_row(L, &rd->first[k]);
        free(rd->first);
        rd->first = NULL;
        rd->nfirst = 0;
        if (st != JL_OK)
            return st;
    }
    return add_row(L, pr);
}

/* One data row: checked, parsed and placed. 1: skipped (a noheader log's
 * header line given with --columns). */
static jl_status data_row(log_data *L, reader *rd, const jl__csv_row *row)
{
    jl__csv_row dm;
    if (L->dmon) {
        int k = dmon_row(L, row, &dm);
        if (k <= 0)
            return k < 0 ? JL_ENOMEM : JL_OK;
        row = &dm;
    } else if (L->semi) {
        if (semi_row(L, row, &dm) < 0)
            return JL_ENOMEM;
        row = &dm;
    }
    if (rd->cidx[K_TIME] < 0) {
        layout_columns(L, rd);
        /* a noheader log whose first line is the header anyway, or a
         * logger's own header replaced by --columns (its time field is no
         * time) */
        int ti = rd->cidx[K_TIME];
        jl__civil cv;
        if (L->opt->columns && row->n > 0 &&
            (!strcmp(row->f[0].s, L->cols[0].name) ||
             (ti >= 0 && (size_t)ti < row->n && !jl__civil_parse(row->f[ti].s, &cv))))
            return JL_OK;
    }
    if (repeats_header(L, row)) {
        jl__imp_note(L->k, L->path, "",
                     "line %lld repeats the header: another logging session appended to the "
                     "file (a new run where the clock jumps past the gap limit)",
                     row->line);
        L->hdr_pending = 1;
        return JL_OK;
    }
    if (!row->complete) {
        /* nvidia-smi ends every line: one without its end was cut mid-value
         * ("57" of "57.3 W") and is no reading */
        jl__imp_note(L->k, L->path, "truncated_record",
                     "the last line (%lld) is cut short (no line end, %zu of %zu fields: the "
                     "logger was stopped mid-line, and a value cut short reads as another "
                     "number): dropped",
                     row->line, row->n, L->n_cols);
        L->cut_last = 1;
        L->cut_line = row->line;
        return JL_OK;
    }
    if (row->n != L->n_cols)
        return LERR(L, JL_EINVALID, row->line, row->n ? row->f[row->n - 1].column : 1, NULL,
                    "%zu fields, the header has %zu (a malformed or cut line)", row->n, L->n_cols);
    if (++L->rows > L->opt->max_rows)
        return LERR(L, JL_ELIMIT, row->line, 1, NULL, "more than %zu rows (the limit)",
                    L->opt->max_rows);
    prow pr;
    pr.line = row->line;
    for (int q = 0; q < N_SERIES; q++)
        pr.v[q] = NAN;
    size_t slot = 0;
    jl_status st = same_gpu(L, row);
    if (st == JL_OK)
        st = row_time(L, row, rd, &pr);
    if (st == JL_OK)
        st = row_gpu(L, row, rd, &slot);
    if (st == JL_OK)
        st = row_values(L, row, &L->gpus[slot], &pr);
    pr.slot = slot;
    return st == JL_OK ? place_row(L, rd, &pr) : st;
}

/* The end of the log: the held rows grouped (sorted under --sort), the
 * last sample emitted. */
static jl_status flush_rows(log_data *L, reader *rd)
{
    jl_status st = JL_OK;
    L->gpus_fixed = 1;
    for (size_t k = 0; rd->first && k < rd->nfirst && st == JL_OK; k++)
        st = add_row(L, &rd->first[k]);
    if (st == JL_OK && L->opt->sort && rd->nrows) {
        qsort(rd->rows, rd->nrows, sizeof *rd->rows, cmp_prow);
        for (size_t k = 0; k < rd->nrows && st == JL_OK; k++)
            st = add_row(L, &rd->rows[k]);
    }
    if (st != JL_OK)
        return st;
    if (L->n_samples == 0)
        return LERR(L, JL_ENODATA, 0, 0, NULL, "no samples (only a header)");
    L->t_end = L->sample_t0;
    if (L->min_dt >= 2.0)
        jl__imp_note(L->k, L->path, "timestamp",
                     "the log polls every %.3g s at the most: windows shorter than a few polls "
                     "are imprecise (power_sample_coverage is judged against the log's own "
                     "sampling gap)",
                     L->min_dt);
    if (L->emit && L->n == 1 && (st = L->emit(L->emit_ctx, L)) == JL_OK)
        L->n = 0;
    return st;
}

/* Read one log whole: header, rows, grouping into samples. Returns JL_OK
 * or an error code (already in the list). */
static jl_status read_log(log_data *L, jl__csv *csv)
{
    jl_status st = JL_OK;
    jl__csv_row row;
    jl_error *err = NULL;
    int r = 0;
    reader rd = {0};
    for (int k = 0; k <= K_NSERIES; k++)
        rd.cidx[k] = -1;
    const char *enc = jl__csv_encoding(csv);
    if (enc)
        jl__imp_note(L->k, L->path, "", "the log is %s%s: read as text", enc,
                     strstr(enc, "16") ? " (what Windows PowerShell's `>` writes)" : "");
    if (L->opt->columns && (st = read_header(L, NULL)) != JL_OK)
        return st;
    while (st == JL_OK && (r = jl__csv_next(csv, &row, &err)) > 0)
        st = L->cols ? data_row(L, &rd, &row) : read_header(L, &row);
    if (st != JL_OK)
        goto end;
    if (r < 0) {
        st = err ? err->code : JL_ENOMEM;
        jl_error_list_push(L->errors, err);
        err = NULL;
    } else if (!L->cols) {
        st = LERR(L, JL_EMISSING, 0, 0, NULL, "empty log: no header and no rows");
    } else {
        st = flush_rows(L, &rd);
    }
end:
    if (st == JL_ENOMEM && (!L->errors->count))
        LERR(L, JL_ENOMEM, 0, 0, NULL, "out of memory");
    jl_error_free(err);
    free(rd.rows);
    free(rd.first);
    return st;
}

/* ---- run attributes --------------------------------------------------------- */

#define FIELD(a, f, type) ((type *)((char *)(a) + (f)->off))

/* Set attribute key=value on a (the kit's one rule for typed attributes);
 * NULL or the reason it cannot be. */
static const char *set_attr(jl_attrs *a, const char *key, const char *value)
{
    return jl__imp_set_attr(a, key, value);
}

/* ---- runs ---------------------------------------------------------------------- */

typedef struct ctx {
    const jl_import_nvsmi_options *opt;
    jl__imp *k;            /* the kit's context: notes, runs */
    jl_import_result *res; /* k->res */
    jl_error_list *errors;
    jl__zone *zone;
    log_data **logs;
    size_t n_logs;
    size_t dropped_rows;
    int fields_used; /* power fields of the runs: 1 power.draw, 2 power.draw.instant */
    double lag_used; /* the runs' power lag (NaN: none yet; -1: they differ) */
    /* --runs auto: the options with runs_csv naming the runs file written,
     * so that a run's errors name it (and its line) */
    jl_import_nvsmi_options auto_opt;
    char *auto_path;
    double log_t0, log_t1; /* the logs' span, Unix s (NaN: none read) */
} ctx;

static void log_span(ctx *c, double t0, double t1)
{
    if (!(c->log_t0 <= t0))
        c->log_t0 = t0;
    if (!(c->log_t1 >= t1))
        c->log_t1 = t1;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* GPU slots of a `gpus` cell ("0,1,2,3", "0 1", "GPU-uuid;..."), or all. */
static jl_status select_gpus(ctx *c, const log_data *L, const jl__imp_run_spec *sp, size_t *sel,
                             size_t *G)
{
    *G = 0;
    if (!sp || !sp->gpus) {
        for (size_t g = 0; g < L->G; g++)
            sel[(*G)++] = g;
        return JL_OK;
    }
    char *copy = jl__strdup(sp->gpus);
    if (!copy)
        return JL_ENOMEM;
    jl_status st = JL_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",; ", &save); tok; tok = strtok_r(NULL, ",; ", &save)) {
        size_t found = L->G;
        char *e;
        long idx = strtol(tok, &e, 10);
        for (size_t g = 0; g < L->G; g++)
            if ((!*e && L->gpus[g].index == idx) ||
                (L->gpus[g].uuid && !strcmp(L->gpus[g].uuid, tok)))
                found = g;
        if (found == L->G) {
            st = jl__imp_err_at(c->errors, JL_EINVALID, c->opt->runs_csv, sp->line, 0, "gpus",
                                "run %s: GPU '%s' is not in the log %s", sp->name, tok, L->path);
            break;
        }
        for (size_t k = 0; k < *G; k++)
            if (sel[k] == found) {
                st = jl__imp_err_at(c->errors, JL_EINVALID, c->opt->runs_csv, sp->line, 0, "gpus",
                                    "run %s: GPU '%s' named twice", sp->name, tok);
                break;
            }
        if (st != JL_OK)
            break;
        sel[(*G)++] = found;
    }
    if (st == JL_OK && *G == 0)
        st = jl__imp_err_at(c->errors, JL_EINVALID, c->opt->runs_csv, sp->line, 0, "gpus",
                            "run %s: no GPU named", sp->name);
    free(copy);
    return st;
}

static double *series_out(const log_data *L, int s, const size_t *rows, size_t n, const size_t *sel,
                          size_t G, int need_finite)
{
    if (!L->has_series[s])
        return NULL;
    int any = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++) {
            double x = L->v[s][rows[i] * L->G + sel[g]];
            if (isfinite(x))
                any = 1;
            else if (need_finite)
                return NULL;
        }
    if (!any)
        return NULL;
    double *v = jl__malloc_array(n * G > 0 ? n * G : 1, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++)
            v[i * G + g] = L->v[s][rows[i] * L->G + sel[g]];
    return v;
}

/* Power: with the lag compensated (auto, or a shift), power.draw where
 * logged with a value for every GPU of the run at its first sample (the
 * 1-s average on Ampere and newer: its readings together cover every
 * instant), else power.draw.instant; with it off (lag 0), power.draw.instant
 * first, as before (index into the series). */
static int choose_power(const log_data *L, size_t i0, const size_t *sel, size_t G, double lag)
{
    int inst = K_POWER_INST - FIRST_SERIES, avg = K_POWER - FIRST_SERIES;
    int first = lag == 0 ? inst : avg, other = lag == 0 ? avg : inst;
    if (!L->has_series[first])
        return other;
    if (!L->has_series[other])
        return first;
    for (size_t g = 0; g < G; g++)
        if (!isfinite(L->v[first][i0 * L->G + sel[g]]))
            return other;
    return first;
}

static int before_ampere(const char *name)
{
    return jl__imp_gpu_before_ampere(name);
}

/* The lag taken off the power field's times (s): the option when given;
 * auto: half of power.draw's 1-s averaging window, 0 where the field is
 * instantaneous (power.draw.instant, power.draw before Ampere). */
static double power_lag(const ctx *c, const log_data *L, const size_t *sel, int pw)
{
    if (!isnan(c->opt->power_lag_s))
        return c->opt->power_lag_s;
    if (pw + FIRST_SERIES != K_POWER || before_ampere(L->gpus[sel[0]].name))
        return 0;
    return 0.5;
}

/* The run's power field and lag, for the result's details. */
static void used_power(ctx *c, int pw, double lag)
{
    c->fields_used |= pw + FIRST_SERIES == K_POWER ? 1 : 2;
    c->lag_used = isnan(c->lag_used) || c->lag_used == lag ? lag : -1;
}

/* The notes' sentences on the power: the field, its lag, the edges. */
static void power_notes(jl__strbuf *b, const log_data *L, const size_t *sel, int pw, double lag,
                        const int edge[2])
{
    if (pw + FIRST_SERIES == K_POWER_INST)
        jl__strbuf_puts(b, " (the instantaneous reading)");
    else if (before_ampere(L->gpus[sel[0]].name))
        jl__strbuf_puts(b, " (on this GPU, older than Ampere, the instantaneous reading)");
    else
        jl__strbuf_puts(b, " (on Ampere and newer GPUs the driver's 1-second average: it smears "
                           "peaks)");
    if (lag > 0)
        jl__strbuf_printf(b, ", each reading placed %g s before its timestamp (%s)", lag,
                          lag == 0.5 && pw + FIRST_SERIES == K_POWER
                              ? "the middle of the second it averages; --power-lag off keeps "
                                "the logged times"
                              : "--power-lag");
    else if (pw + FIRST_SERIES == K_POWER && !before_ampere(L->gpus[sel[0]].name))
        jl__strbuf_puts(b, ", at its logged time (no lag compensation: it lags the load by "
                           "about 0.5 s)");
    if (edge[0] != JL__IMP_EDGE_NONE || edge[1] != JL__IMP_EDGE_NONE)
        jl__strbuf_printf(b,
                          ". Power at the window's start: %s, at its end: %s (linear "
                          "between the samples either side; held from the nearest inside "
                          "where the one outside has no power)",
                          jl__imp_edge_name(edge[0]), jl__imp_edge_name(edge[1]));
}

static void note_dropped(ctx *c, const log_data *L, int pw)
{
    jl__imp_note(c->k, L->path,
                 pw + FIRST_SERIES == K_POWER_INST ? "power.draw.instant" : "power.draw",
                 "samples where a GPU's power is missing are left out of power/ (the "
                 "format needs finite watts; the integral bridges them) and kept in "
                 "gpu/ with the missing values as NaN");
}

static void note_no_avg(ctx *c, const log_data *L)
{
    jl__imp_note(c->k, L->path, "power.draw.average",
                 "not written as power/watts_avg where a value is missing in the run");
}

/* ---- idle power from the log, --runs auto (the rules: kit_segment.c) --------- */

/* L's power per GPU: power.draw.instant where logged at a sample, else
 * power.draw; *w [n * G] (caller frees). -1 when out of memory. */
static int log_power(const log_data *L, double **w, jl__imp_pwlog *p)
{
    int inst = K_POWER_INST - FIRST_SERIES, draw = K_POWER - FIRST_SERIES;
    size_t nv = L->n * L->G;
    if (!(*w = jl__malloc_array(nv ? nv : 1, sizeof **w)))
        return -1;
    for (size_t i = 0; i < nv; i++) {
        double x = L->has_series[inst] ? L->v[inst][i] : NAN;
        if (!isfinite(x) && L->has_series[draw])
            x = L->v[draw][i];
        (*w)[i] = isfinite(x) && x >= 0 ? x : NAN;
    }
    *p = (jl__imp_pwlog){L->t, *w, L->n, L->G, !L->has_series[inst]};
    return 0;
}

static int spec_of_log(const jl__imp_run_spec *sp, const char *path)
{
    return !sp->log || !strcmp(sp->log, path) || !strcmp(sp->log, base_name(path));
}

/* The GPUs of L a run's gpus cell names ([L->G], 1 where named; NULL for
 * all, or when out of memory: *oom). A name not in the log is passed over:
 * cutting the run says so. */
static unsigned char *spec_gpus(const jl__imp_run_spec *sp, const log_data *L, int *oom)
{
    if (!sp->gpus)
        return NULL;
    unsigned char *m = calloc(L->G ? L->G : 1, 1);
    char *copy = jl__strdup(sp->gpus), *save = NULL;
    if (!m || !copy) {
        free(m);
        free(copy);
        *oom = 1;
        return NULL;
    }
    for (char *tok = strtok_r(copy, ",; ", &save); tok; tok = strtok_r(NULL, ",; ", &save)) {
        char *e;
        long idx = strtol(tok, &e, 10);
        for (size_t g = 0; g < L->G; g++)
            if ((!*e && L->gpus[g].index == idx) ||
                (L->gpus[g].uuid && !strcmp(L->gpus[g].uuid, tok)))
                m[g] = 1;
    }
    free(copy);
    return m;
}

/* *out: each GPU's idle level in p (the log L) outside the windows of its
 * runs (kit_segment.c), with a note. */
static jl_status measure_idle(ctx *c, const log_data *L, const jl__imp_pwlog *p,
                              const jl__imp_run_spec *specs, size_t n, jl__imp_idle **out)
{
    jl__imp_window *w = jl__calloc_array(n ? n : 1, sizeof *w);
    int oom = !w;
    size_t m = 0;
    for (size_t i = 0; w && i < n; i++)
        if (spec_of_log(&specs[i], L->path))
            w[m++] = (jl__imp_window){specs[i].start, specs[i].end, spec_gpus(&specs[i], L, &oom)};
    jl_status st = oom ? JL_ENOMEM : jl__imp_idle_measure(c->k, L->path, p, w, m, out);
    for (size_t i = 0; i < m; i++)
        free((void *)w[i].gpus);
    free(w);
    return st;
}

/* 1 when every run has its idle power given (--set or RUNS.csv). */
static int idle_given(const jl_import_nvsmi_options *o, const jl__imp_run_spec *specs, size_t n)
{
    for (size_t i = 0; i < o->n_set; i++)
        if (!strcmp(o->set[i].key, "gpu_idle_power_w"))
            return 1;
    for (size_t i = 0; i < n; i++) {
        int has = 0;
        for (size_t k = 0; k < specs[i].n_attrs; k++)
            has |= !strcmp(specs[i].attrs[k].key, "gpu_idle_power_w");
        if (!has)
            return 0;
    }
    return 1;
}

static jl_status auto_runs(ctx *c, const jl__imp_pwlog *ps, const char *const *paths, size_t n_logs,
                           int gpu_names, jl__imp_run_spec **out, size_t *n_out);

/* In memory: --runs auto's runs, then each log's idle level outside the
 * runs (RUNS.csv or auto). */
static jl_status logs_auto_idle(ctx *c, jl__csv **csvs, size_t n, jl__imp_run_spec **specs,
                                size_t *n_specs)
{
    jl__imp_pwlog *ps = calloc(n ? n : 1, sizeof *ps);
    double **ws = calloc(n ? n : 1, sizeof *ws);
    const char **paths = calloc(n ? n : 1, sizeof *paths);
    jl_status st = JL_OK;
    int names = 1;
    if (!ps || !ws || !paths)
        st = JL_ENOMEM;
    for (size_t k = 0; k < n && st == JL_OK; k++) {
        paths[k] = csvs[k] ? jl__csv_name(csvs[k]) : NULL;
        if (!c->logs[k])
            continue;
        if (log_power(c->logs[k], &ws[k], &ps[k]))
            st = JL_ENOMEM;
        names &= c->logs[k]->gpus[0].name != NULL;
    }
    if (st == JL_OK && c->opt->runs_auto)
        st = auto_runs(c, ps, paths, n, names, specs, n_specs);
    for (size_t k = 0; k < n && st == JL_OK && *specs; k++)
        if (c->logs[k])
            st = measure_idle(c, c->logs[k], &ps[k], *specs, *n_specs, &c->logs[k]->idle);
    for (size_t k = 0; ws && k < n; k++)
        free(ws[k]);
    free(ws);
    free(ps);
    free(paths);
    return st;
}

/* The run's gpu_idle_power_w: the value given (its RUNS.csv row, else
 * --set) wins; else the log's idle level (kit_segment.c). */
static void apply_idle(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                       const size_t *sel, size_t G, jl__strbuf *notes)
{
    const char *given = NULL;
    for (size_t i = 0; sp && i < sp->n_attrs && !given; i++)
        if (!strcmp(sp->attrs[i].key, "gpu_idle_power_w"))
            given = "its RUNS.csv row";
    for (size_t i = 0; i < c->opt->n_set && !given; i++)
        if (!strcmp(c->opt->set[i].key, "gpu_idle_power_w"))
            given = "--set";
    jl__imp_idle_apply(c->k, L->path, L->idle, sel, G, given, r, notes);
}

/* --runs auto (kit_segment.c): the runs of each log (ps[k]; t NULL for a
 * log not read), written to a runs file; *out the runs to import, whose
 * errors name that file from now on. */
/* The zone the log's times were read in, as they were: their own offset
 * when every timestamp carried one ("UTC+08:00 (from the timestamps)"),
 * else the zone used. */
static const char *zone_text(const ctx *c, char *buf, size_t cap)
{
    size_t n_off, n_loc;
    int off;
    jl__zone_usage(c->zone, &n_off, &n_loc, &off);
    if (!n_off || n_loc)
        return jl__zone_name(c->zone);
    snprintf(buf, cap, "UTC%c%02d:%02d (from the timestamps)", off < 0 ? '-' : '+', abs(off) / 3600,
             abs(off) % 3600 / 60);
    return buf;
}

static jl_status auto_runs(ctx *c, const jl__imp_pwlog *ps, const char *const *paths, size_t n_logs,
                           int gpu_names, jl__imp_run_spec **out, size_t *n_out)
{
    const jl_import_nvsmi_options *o = c->opt;
    const char *flags[8];
    size_t nf = 0;
    if (o->timezone)
        flags[2 * nf] = "--timezone", flags[2 * nf++ + 1] = o->timezone;
    if (o->columns)
        flags[2 * nf] = "--columns", flags[2 * nf++ + 1] = o->columns;
    if (o->sort)
        flags[2 * nf] = "--sort", flags[2 * nf++ + 1] = NULL;
    jl__imp_auto ao = {
        "nvidia-smi", o->runs_out, o->output, o->force, {o->auto_min_run_s, o->auto_merge_s},
        o->set,       o->n_set,    flags,     nf,       gpu_names};
    jl__imp_auto_runs ar;
    *out = NULL;
    *n_out = 0;
    jl_status st = jl__imp_auto_runs_find(c->k, c->errors, ps, paths, n_logs, &ao, &ar);
    if (st != JL_OK)
        return st;
    /* each window in UTC and in the zone the log was read in: a wrong
     * --timezone shows as hours that do not match the user's notes */
    char ztext[96];
    const char *zn = zone_text(c, ztext, sizeof ztext);
    for (size_t i = 0; i < ar.n && i < 50; i++) {
        char u0[32], u1[32], l0[32], l1[32];
        jl__zone *utc = NULL;
        jl_error *ze = NULL;
        if (jl__zone_open("UTC", &utc, &ze) != JL_OK) {
            jl_error_free(ze);
            break;
        }
        if (!jl__zone_format(utc, ar.rows[i].start, u0, sizeof u0) &&
            !jl__zone_format(utc, ar.rows[i].end, u1, sizeof u1) &&
            !jl__zone_format(c->zone, ar.rows[i].start, l0, sizeof l0) &&
            !jl__zone_format(c->zone, ar.rows[i].end, l1, sizeof l1))
            jl__imp_note(c->k, "", "run", "--runs auto: run %s from %s to %s UTC (%s to %s in %s)",
                         ar.rows[i].name ? ar.rows[i].name : "?", u0, u1 + 11, l0, l1 + 11, zn);
        jl__zone_free(utc);
    }
    jl__imp_run_spec *specs = calloc(ar.n, sizeof *specs);
    for (size_t i = 0; specs && i < ar.n; i++) {
        specs[i].req_offset = NAN;
        specs[i].start = ar.rows[i].start;
        specs[i].end = ar.rows[i].end;
        specs[i].line = (long long)i + 2;
        specs[i].name = (char *)ar.rows[i].name;
        ar.rows[i].name = NULL;
        if (n_logs > 1) {
            specs[i].log = (char *)ar.rows[i].log;
            ar.rows[i].log = NULL;
        }
    }
    if (!specs) {
        jl__imp_auto_runs_free(&ar);
        return jl__imp_err_at(c->errors, JL_ENOMEM, NULL, 0, 0, NULL, "--runs auto: out of memory");
    }
    *out = specs;
    *n_out = ar.n;
    c->auto_opt = *c->opt;
    c->auto_opt.runs_csv = c->auto_path = ar.path;
    c->opt = &c->auto_opt;
    ar.path = NULL;
    jl__imp_auto_runs_free(&ar);
    return JL_OK;
}

/* ---- what a run's window says about its figures (issue 37) ------------ */

/* A run's samples: their span, and the power-cap context of its GPUs. */
typedef struct run_info {
    double span0, span1;              /* Unix s of its first and last sample; NaN: none yet */
    size_t n_thr, n_capped, n_slowed; /* samples with a throttle reason logged; capped; slowed */
    size_t n_enf, n_at_limit; /* samples with an enforced limit; power at 97 % of it or more */
    double enf_min, enf_max;  /* the enforced limit per GPU (NaN: not logged) */
} run_info;

/* Power at this share of its enforced limit or more: at the cap. */
#define AT_LIMIT_SHARE 0.97
/* A run is capped (slowed) when this share of its samples is. */
#define CAPPED_RUN_SHARE 0.5

static void info_init(run_info *ri)
{
    memset(ri, 0, sizeof *ri);
    ri->span0 = ri->span1 = ri->enf_min = ri->enf_max = NAN;
}

/* Sample i of L (its series at v[s] + i * L->G) into ri. */
static void info_sample(run_info *ri, const log_data *L, size_t i, double t, const size_t *sel,
                        size_t G, int pw)
{
    if (isnan(ri->span0))
        ri->span0 = t;
    ri->span1 = t;
    const int cap = K_CAPPED - FIRST_SERIES, slow = K_SLOWED - FIRST_SERIES,
              enf = K_ENF_LIMIT - FIRST_SERIES;
    int any = 0, capped = 0, slowed = 0, lim = 1, at = 1;
    for (size_t g = 0; g < G; g++) {
        size_t k = i * L->G + sel[g];
        if (L->has_series[cap] && isfinite(L->v[cap][k]))
            any = 1, capped |= L->v[cap][k] > 0;
        if (L->has_series[slow] && isfinite(L->v[slow][k]))
            any = 1, slowed |= L->v[slow][k] > 0;
        double e = L->has_series[enf] ? L->v[enf][k] : NAN, w = L->v[pw][k];
        if (isfinite(e) && e > 0) {
            ri->enf_min = isnan(ri->enf_min) ? e : fmin(ri->enf_min, e);
            ri->enf_max = isnan(ri->enf_max) ? e : fmax(ri->enf_max, e);
            at &= isfinite(w) && w >= AT_LIMIT_SHARE * e;
        } else {
            lim = 0;
        }
    }
    ri->n_thr += any;
    ri->n_capped += capped;
    ri->n_slowed += slowed;
    if (lim && G) {
        ri->n_enf++;
        ri->n_at_limit += at;
    }
}

/* The reasons of run r from its log: the sessions and identity changes its
 * window spans, a window beyond the log, the last line cut, the power cap
 * and throttling; and the power-cap context kept as attributes. */
static void run_reasons(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                        const run_info *ri, const int edge[2], size_t session)
{
    const char *where = sp ? (c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv") : L->path;
    for (size_t k = 0; sp && k < L->n_sess; k++) {
        const log_session *x = &L->sess[k];
        if (!(x->t > ri->span0 && x->t <= ri->span1))
            continue;
        int ident = !strncmp(x->why, "GPU ", 4);
        jl__imp_reason(c->k, r, ident ? JL__R_IDENTITY_CHANGED : JL__R_CLOCK_JUMP, NAN, where,
                       "its window spans two logging sessions of %s: %s, line %lld (t = %.3f "
                       "Unix s); the energy across %.6g s without samples is not a measurement",
                       base_name(L->path), x->why, x->line, x->t, x->gap);
    }
    if (!sp && L->n_sess)
        jl__imp_reason(c->k, r, JL__R_SESSION_SPLIT, NAN, where,
                       "%s holds %zu logging sessions; this run is session %zu (%s)",
                       base_name(L->path), L->n_sess + 1, session + 1,
                       session ? L->sess[session - 1].why : "the first");
    if (sp && (edge[0] == JL__IMP_EDGE_CUT || edge[1] == JL__IMP_EDGE_CUT))
        jl__imp_reason(c->k, r, JL__R_WINDOW_NOT_BRACKETED, NAN, where,
                       "its window %.3f..%.3f (Unix s) reaches beyond the log's samples (%s "
                       "edge%s cut): its power covers only %.3f..%.3f",
                       sp->start, sp->end,
                       edge[0] == JL__IMP_EDGE_CUT && edge[1] == JL__IMP_EDGE_CUT ? "both"
                       : edge[0] == JL__IMP_EDGE_CUT                              ? "the start"
                                                                                  : "the end",
                       edge[0] == JL__IMP_EDGE_CUT && edge[1] == JL__IMP_EDGE_CUT ? "s" : "",
                       ri->span0, ri->span1);
    if (L->cut_last && ri->span1 >= L->t_end)
        jl__imp_reason(c->k, r, JL__R_TRUNCATED_RECORD, NAN, L->path,
                       "the log's last line (%lld) was cut mid-line and is left out: the run "
                       "ends at the reading before",
                       L->cut_line);
    /* power-cap context, kept per run */
    if (isfinite(ri->enf_min)) {
        jl__imp_extra_num(c->k, r, "enforced_power_limit_w", ri->enf_min);
        if (ri->enf_max > ri->enf_min)
            jl__imp_extra_num(c->k, r, "enforced_power_limit_max_w", ri->enf_max);
        if (isnan(r->attrs.gpu_tdp_w) || ri->enf_min < r->attrs.gpu_tdp_w)
            r->attrs.gpu_tdp_w = ri->enf_min;
    }
    if (ri->n_thr) {
        double cs = (double)ri->n_capped / (double)ri->n_thr,
               ss = (double)ri->n_slowed / (double)ri->n_thr;
        jl__imp_extra_num(c->k, r, "power_capped_share", cs);
        jl__imp_extra_num(c->k, r, "clocks_throttled_share", ss);
        if (cs >= CAPPED_RUN_SHARE)
            jl__imp_reason(c->k, r, JL__R_POWER_CAPPED, NAN, L->path,
                           "a power throttle reason (sw_power_cap or hw_power_brake) is active in "
                           "%.0f %% of its %zu samples%s",
                           100 * cs, ri->n_thr, "");
        if (ss >= CAPPED_RUN_SHARE)
            jl__imp_reason(c->k, r, JL__R_CLOCKS_THROTTLED, NAN, L->path,
                           "a thermal or hardware slowdown is active in %.0f %% of its %zu "
                           "samples",
                           100 * ss, ri->n_thr);
    } else if (ri->n_enf && (double)ri->n_at_limit >= CAPPED_RUN_SHARE * (double)ri->n_enf) {
        jl__imp_reason(c->k, r, JL__R_POWER_CAPPED, NAN, L->path,
                       "power is at %g %% of the enforced limit (%.6g W) or more in %.0f %% of "
                       "its samples",
                       100 * AT_LIMIT_SHARE, ri->enf_min,
                       100.0 * (double)ri->n_at_limit / (double)ri->n_enf);
    }
}

/* The request file's own date (vLLM's "date", the client's local time when
 * it saved the file, read in the log's zone) against the run's window: a
 * file saved hours or days away from it is another run's. */
#define REQUESTS_DATE_TOL_S 600.0
static void requests_date(ctx *c, const jl__imp_run_spec *sp, jl_run *r)
{
    const char *d = jl__imp_extra_get(r, "requests_date");
    int Y, M, D, h, m, sec;
    char tail;
    if (!d || sscanf(d, "%4d%2d%2d-%2d%2d%2d%c", &Y, &M, &D, &h, &m, &sec, &tail) != 6)
        return;
    char text[40];
    snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", Y, M, D, h, m, sec);
    jl__civil cv;
    int gap = 0;
    if (!jl__civil_parse(text, &cv))
        return;
    double t = jl__zone_to_unix(c->zone, &cv, NAN, &gap);
    double tol = fmax(REQUESTS_DATE_TOL_S, sp->end - sp->start);
    double off = t < sp->start ? t - sp->start : t > sp->end ? t - sp->end : 0;
    if (!isfinite(t) || fabs(off) <= tol)
        return;
    jl__imp_reason(c->k, r, JL__R_REQUESTS_OUTSIDE_WINDOW, NAN, sp->requests,
                   "the request file says it was saved at %s (%s), %.1f h %s the run's window "
                   "(tolerance %.0f s): a file from another run or another day",
                   text, jl__zone_name(c->zone), fabs(off) / 3600, off < 0 ? "before" : "after",
                   tol);
}

/* Everything of a run but its power/ and gpu/ series: attributes (--set,
 * then the RUNS.csv row, then the log), notes, requests; a required
 * attribute not given is an error. n = the samples of its window; ri its
 * span and power-cap context, session its logging session (whole-log runs). */
static jl_status finish_run(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                            double t0, const size_t *sel, size_t G, int pw, size_t n, double lag,
                            const int edge[2], const run_info *ri, size_t session)
{
    const char *where = sp ? c->opt->runs_csv : L->path;
    long long line = sp ? sp->line : 0;
    const char *name = r->name;
    jl_status st = JL_OK;
    jl__strbuf notes;
    jl__strbuf_init(&notes);
    jl_attrs *a = &r->attrs;
    for (size_t i = 0; i < c->opt->n_set; i++)
        set_attr(a, c->opt->set[i].key, c->opt->set[i].value);
    for (size_t i = 0; sp && i < sp->n_attrs; i++)
        set_attr(a, sp->attrs[i].key, sp->attrs[i].value);
    a->start_time_unix = t0;
    if (a->num_gpus >= 0 && (size_t)a->num_gpus != G) {
        st = jl__imp_err_at(c->errors, JL_EINVALID, where, line, 0, "num_gpus",
                            "run %s: num_gpus is %ld but the run holds %zu GPU%s of the log "
                            "(name them in a gpus column)",
                            name, a->num_gpus, G, G == 1 ? "" : "s");
        goto fail;
    }
    a->num_gpus = (long)G;
    /* from the log: GPU model, memory, power limit */
    const char *gname = L->gpus[sel[0]].name;
    if (gname)
        jl__imp_extra_default(c->k, r, "gpu_name", gname, 0);
    for (size_t g = 1; g < G; g++)
        if (gname && L->gpus[sel[g]].name && strcmp(gname, L->gpus[sel[g]].name))
            jl__imp_note(c->k, L->path, "name",
                         "run %s mixes GPU models (%s, %s): gpu_model is the first's", name, gname,
                         L->gpus[sel[g]].name);
    if (!a->gpu_model && gname) {
        char buf[128];
        if (!jl_gpu_model_from_name(gname, buf, sizeof buf))
            jl__imp_note(c->k, L->path, "name",
                         "GPU name '%s' is not in joules' table: gpu_model '%s'", gname, buf);
        if (!(a->gpu_model = jl__strdup(buf)))
            goto nomem;
    }
    if (isnan(a->gpu_memory_bytes) && isfinite(L->gpus[sel[0]].mem_total))
        a->gpu_memory_bytes = L->gpus[sel[0]].mem_total;
    if (isnan(a->gpu_tdp_w) && isfinite(L->gpus[sel[0]].limit_w))
        a->gpu_tdp_w = L->gpus[sel[0]].limit_w;
    const char *pname = (pw + FIRST_SERIES == K_POWER_INST ? "power.draw.instant" : "power.draw");
    /* power/@watts_kind: power.draw is the 1-s average on Ampere and newer */
    free(r->power_watts_kind);
    r->power_watts_kind = jl__strdup(
        pw + FIRST_SERIES == K_POWER_INST || before_ampere(gname) ? "instant" : "average_1s");
    if (!r->power_watts_kind)
        goto nomem;
    char *psrc = jl__asprintf("nvidia-smi %s", pname);
    if (!psrc)
        goto nomem;
    jl__imp_extra_default(c->k, r, "power_source", psrc, 0);
    free(psrc);
    jl__imp_extra_default(c->k, r, "source", "nvidia-smi", 0);
    jl__imp_extra_default(c->k, r, "nvidia_smi_log", L->path, 0);
    char ztext[96];
    jl__imp_extra_default(c->k, r, "timezone", zone_text(c, ztext, sizeof ztext), 0);
    if (a->notes)
        jl__strbuf_printf(&notes, "%s ", a->notes);
    jl__strbuf_printf(&notes,
                      "Imported from the nvidia-smi log %s (%zu samples, %zu GPU%s). "
                      "power/watts: %s",
                      base_name(L->path), n, G, G == 1 ? "" : "s", pname);
    power_notes(&notes, L, sel, pw, lag, edge);
    jl__strbuf_puts(&notes, ".");
    apply_idle(c, L, sp, r, sel, G, &notes);
    run_reasons(c, L, sp, r, ri, edge, session);
    /* requests */
    if (sp && sp->requests) {
        char *path = NULL;
        if (sp->requests[0] == '/' || !c->opt->runs_csv || !strchr(c->opt->runs_csv, '/'))
            path = jl__strdup(sp->requests);
        else
            path = jl__asprintf("%.*s/%s", (int)(strrchr(c->opt->runs_csv, '/') - c->opt->runs_csv),
                                c->opt->runs_csv, sp->requests);
        if (!path)
            goto nomem;
        int given = !isnan(sp->req_offset);
        st = jl__imp_vllm_requests(c->k, path, r, given ? sp->req_offset : 0.0, given,
                                   c->opt->max_request_bytes, c->errors);
        if (st != JL_OK) {
            jl_error *e = c->errors->count ? c->errors->items[c->errors->count - 1] : NULL;
            if (e && !e->run)
                e->run = jl__strdup(name);
            free(path);
            goto fail;
        }
        free(path);
        requests_date(c, sp, r);
    }
    /* vLLM's max_concurrency bounds the requests in flight: the batch cap
     * when none is given */
    const char *mc = jl__imp_extra_get(r, "client_max_concurrency");
    if (a->max_batch_size < 1 && mc && atol(mc) >= 1) {
        a->max_batch_size = atol(mc);
        jl__imp_note(c->k, where, "max_batch_size",
                     "run %s: max_batch_size not given: the request file's max_concurrency (%s) "
                     "is used, the most requests the client kept in flight",
                     name, mc);
        jl__strbuf_printf(&notes, " max_batch_size from the request file's max_concurrency.");
    }
    /* required attributes still missing: an error naming them, never a
     * placeholder (a cap of 1 in place of the real one moves energy per
     * token by 5-26 % and every batch figure without a word) */
    jl__strbuf unk, fix;
    jl__strbuf_init(&unk);
    jl__strbuf_init(&fix);
    static const char *const all_required[] = {"workload",  "model",          "task", "precision",
                                               "gpu_model", "max_batch_size", NULL};
    for (const char *const *k = all_required; *k; k++) {
        int missing = !strcmp(*k, "max_batch_size") ? a->max_batch_size < 1
                                                    : !*FIELD(a, jl__imp_attr_field(*k), char *);
        if (!missing)
            continue;
        jl__strbuf_printf(&unk, "%s%s", unk.len ? ", " : "", *k);
        jl__strbuf_printf(&fix, " --set %s=...", *k);
    }
    if (unk.len) {
        char *u = jl__strbuf_take(&unk), *fx = jl__strbuf_take(&fix);
        st = jl__imp_err_at(c->errors, JL_EMISSING, where, line, 0, u ? u : "attributes",
                            "run %s: required attribute%s not given: %s. Give %s in a RUNS.csv "
                            "column%s or for every run with%s (docs/import.md, \"Runs\")",
                            name, strchr(u ? u : "", ',') ? "s" : "", u ? u : "",
                            strchr(u ? u : "", ',') ? "them" : "it",
                            strchr(u ? u : "", ',') ? "s" : "", fx ? fx : "");
        free(u);
        free(fx);
        goto fail;
    }
    jl__strbuf_free(&fix);
    jl__strbuf_free(&unk);
    free(a->notes);
    a->notes = jl__strbuf_take(&notes);
    return a->notes ? JL_OK
                    : jl__imp_err_at(c->errors, JL_ENOMEM, where, line, 0, NULL,
                                     "run %s: out of memory", name);
nomem:
    st = jl__imp_err_at(c->errors, JL_ENOMEM, where, line, 0, NULL, "run %s: out of memory", name);
fail:
    jl__strbuf_free(&notes);
    return st;
}

/* ---- a run's power over exactly its window (kit_clip.c) ---------------- */

/* The run's GPUs' values of one sample (v: its series, each G values): the
 * power field into a, power.draw.average into b (NULL: not wanted); 1 when
 * every GPU has finite power >= 0. */
static int run_values(const double *const *v, int pw, const size_t *sel, size_t G, double *a,
                      double *b)
{
    int ok = 1;
    for (size_t g = 0; g < G; g++) {
        a[g] = v[pw][sel[g]];
        ok &= isfinite(a[g]) && a[g] >= 0;
        if (b)
            b[g] = v[K_POWER_AVG - FIRST_SERIES][sel[g]];
    }
    return ok;
}

/* The notes a run's window gets from its power: samples without power,
 * an edge beyond the log. */
static void window_notes(ctx *c, const log_data *L, const jl__imp_run_spec *sp, int pw,
                         const jl__imp_clip *w)
{
    c->dropped_rows += w->dropped;
    if (w->dropped)
        note_dropped(c, L, pw);
    if (sp && (w->edge[0] == JL__IMP_EDGE_CUT || w->edge[1] == JL__IMP_EDGE_CUT))
        jl__imp_note(c->k, c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv", "run",
                     "a run's window reaches beyond its log (first: %s): its power "
                     "covers only the logged part",
                     sp->name);
}

typedef struct mem_power {
    double t0, *time, *w, *a;
    size_t n, G;
    int avg_bad;
} mem_power;

static void mem_emit(void *vp, double t, const double *a, const double *b)
{
    mem_power *m = vp;
    m->time[m->n] = t - m->t0;
    memcpy(m->w + m->n * m->G, a, m->G * sizeof *a);
    for (size_t g = 0; b && g < m->G; g++)
        m->avg_bad |= !isfinite(m->a[m->n * m->G + g] = b[g]);
    m->n++;
}

/* r's power/: the readings at their time minus the lag inside [start, end]
 * and the window's edges (the whole log without RUNS.csv); edge[] says
 * how each edge was reached. */
static jl_status window_power(ctx *c, const log_data *L, const jl__imp_run_spec *sp,
                              const size_t *sel, size_t G, int pw, double lag, double t0, jl_run *r,
                              size_t n, int edge[2])
{
    double start = sp ? sp->start : -INFINITY, end = sp ? sp->end : INFINITY;
    int has_avg = L->has_series[K_POWER_AVG - FIRST_SERIES];
    /* the samples fed: the last before start to the first after end */
    size_t k0 = jl__first_ge(L->t, L->n, start + lag), k1 = jl__first_ge(L->t, L->n, end + lag);
    while (k0 > 0 && L->t[k0 - 1] - lag >= start)
        k0--;
    while (k0 < L->n && L->t[k0] - lag < start)
        k0++;
    while (k1 < L->n && L->t[k1] - lag <= end)
        k1++;
    k0 -= k0 > 0;
    k1 += k1 < L->n;
    mem_power m = {.t0 = t0, .G = G};
    jl__imp_clip w;
    double *vals = jl__malloc_array(2 * G, sizeof *vals);
    size_t cap = k1 - k0 + 2;
    m.time = jl__malloc_array(cap, sizeof(double));
    m.w = jl__malloc_array(cap * G, sizeof(double));
    m.a = has_avg ? jl__malloc_array(cap * G, sizeof(double)) : NULL;
    jl_status st = JL_OK;
    if (jl__imp_clip_init(&w, start, end, G, has_avg, mem_emit, &m) || !vals || !m.time || !m.w ||
        (has_avg && !m.a)) {
        st = jl__imp_err_at(c->errors, JL_ENOMEM, sp ? c->opt->runs_csv : L->path,
                            sp ? sp->line : 0, 0, NULL, "run %s: out of memory", r->name);
        goto end;
    }
    for (size_t i = k0; i < k1 && !w.closed; i++) {
        const double *v[N_SERIES];
        for (int q = 0; q < N_SERIES; q++)
            v[q] = L->has_series[q] ? L->v[q] + i * L->G : NULL;
        int ok = run_values(v, pw, sel, G, vals, has_avg ? vals + G : NULL);
        jl__imp_clip_sample(&w, L->t[i] - lag, vals, vals + G, ok);
    }
    jl__imp_clip_end(&w, L->n && L->t[L->n - 1] >= end);
    edge[0] = w.edge[0];
    edge[1] = w.edge[1];
    if (m.n < 2) {
        st = jl__imp_err_at(c->errors, JL_ENODATA, sp ? c->opt->runs_csv : L->path,
                            sp ? sp->line : 0, 0, NULL,
                            "run %s: %zu power sample%s in its window (%zu rows of %s): "
                            "nothing to integrate",
                            r->name, m.n, m.n == 1 ? "" : "s", n, L->path);
        goto end;
    }
    window_notes(c, L, sp, pw, &w);
    used_power(c, pw, lag);
    r->power_n = m.n;
    r->power_time = m.time;
    r->watts = (jl_series){m.n, G, m.w};
    m.time = m.w = NULL;
    if (has_avg && !m.avg_bad) {
        r->watts_avg = (jl_series){m.n, G, m.a};
        m.a = NULL;
    } else if (has_avg) {
        note_no_avg(c, L);
    }
end:
    jl__imp_clip_free(&w);
    free(vals);
    free(m.time);
    free(m.w);
    free(m.a);
    return st;
}

static jl_status build_run(ctx *c, const log_data *L, const jl__imp_run_spec *sp, const char *name,
                           size_t i0, size_t i1, double t0, const size_t *sel, size_t G,
                           jl_run **out)
{
    *out = NULL;
    const char *where = sp ? c->opt->runs_csv : L->path;
    long long line = sp ? sp->line : 0;
    jl_run *r = jl_run_new();
    jl_status st = JL_OK;
    if (!r || !(r->name = jl__strdup(name)) || !(r->file = jl__strdup(L->path)))
        goto nomem;
    size_t n = i1 - i0;
    int pw = choose_power(L, i0, sel, G, c->opt->power_lag_s), edge[2];
    double lag = power_lag(c, L, sel, pw);
    if (!sp)
        t0 -= lag; /* the whole log: t = 0 at its first reading's time */
    if ((st = window_power(c, L, sp, sel, G, pw, lag, t0, r, n, edge)) != JL_OK)
        goto fail;
    /* gpu/: every row of the window */
    size_t *all = jl__malloc_array(n, sizeof *all);
    if (!all)
        goto nomem;
    for (size_t i = 0; i < n; i++)
        all[i] = i0 + i;
    static const struct {
        kind k;
        size_t off;
    } gmap[] = {{K_SM_UTIL, offsetof(jl_run, sm_util)},
                {K_MEM_UTIL, offsetof(jl_run, mem_util)},
                {K_MEM_USED, offsetof(jl_run, mem_used_bytes)},
                {K_SM_CLOCK, offsetof(jl_run, sm_clock_mhz)},
                {K_TEMP, offsetof(jl_run, temp_c)}};
    int any_gpu = 0;
    for (size_t k = 0; k < sizeof gmap / sizeof gmap[0]; k++) {
        double *v = series_out(L, gmap[k].k - FIRST_SERIES, all, n, sel, G, 0);
        if (v) {
            *(jl_series *)((char *)r + gmap[k].off) = (jl_series){n, G, v};
            any_gpu = 1;
        }
    }
    if (any_gpu) {
        r->gpu_n = n;
        if (!(r->gpu_time = jl__malloc_array(n, sizeof(double)))) {
            free(all);
            goto nomem;
        }
        for (size_t i = 0; i < n; i++)
            r->gpu_time[i] = L->t[i0 + i] - t0;
    }
    free(all);
    run_info ri;
    info_init(&ri);
    for (size_t i = i0; i < i1; i++)
        info_sample(&ri, L, i, L->t[i], sel, G, pw);
    if ((st = finish_run(c, L, sp, r, t0, sel, G, pw, n, lag, edge, &ri, L->session)) != JL_OK)
        goto fail;
    *out = r;
    return JL_OK;
nomem:
    st = jl__imp_err_at(c->errors, JL_ENOMEM, where, line, 0, NULL, "run %s: out of memory", name);
fail:
    jl_run_free(r);
    return st;
}

static void cut_run(ctx *c, const jl__imp_run_spec *sp)
{
    const char *rf = c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv";
    const log_data *L = NULL;
    size_t best = 0;
    int ambiguous = 0;
    for (size_t k = 0; k < c->n_logs; k++) {
        const log_data *x = c->logs[k];
        if (!x)
            continue;
        if (sp->log && strcmp(sp->log, x->path) && strcmp(sp->log, base_name(x->path)))
            continue;
        size_t i0 = jl__first_ge(x->t, x->n, sp->start), i1 = jl__first_ge(x->t, x->n, sp->end);
        while (i1 < x->n && x->t[i1] <= sp->end)
            i1++;
        if (i1 > i0) {
            if (L)
                ambiguous = 1;
            if (!L || i1 - i0 > best) {
                L = x;
                best = i1 - i0;
            }
        }
    }
    if (ambiguous) {
        jl__imp_err_at(c->errors, JL_EINVALID, rf, sp->line, 0, "run",
                       "run %s: its window holds samples of several logs (add a log column "
                       "naming the file)",
                       sp->name);
        return;
    }
    if (!L) {
        jl__strbuf b;
        jl__strbuf_init(&b);
        for (size_t k = 0; k < c->n_logs; k++)
            if (c->logs[k])
                jl__strbuf_printf(&b, "%s%s spans %.3f..%.3f", k ? "; " : "",
                                  base_name(c->logs[k]->path), c->logs[k]->t[0],
                                  c->logs[k]->t[c->logs[k]->n - 1]);
        char *spans = jl__strbuf_take(&b);
        jl__imp_err_at(c->errors, JL_ENODATA, rf, sp->line, 0, "run",
                       "run %s: no sample in its window %.3f..%.3f (Unix s)%s%s: it falls "
                       "outside the log%s (%s)",
                       sp->name, sp->start, sp->end, sp->log ? " in log " : "",
                       sp->log ? sp->log : "", c->n_logs == 1 ? "" : "s", spans ? spans : "");
        free(spans);
        return;
    }
    size_t i0 = jl__first_ge(L->t, L->n, sp->start), i1 = i0;
    while (i1 < L->n && L->t[i1] <= sp->end)
        i1++;
    size_t *sel = jl__malloc_array(L->G ? L->G : 1, sizeof *sel), G;
    if (!sel) {
        jl__imp_err_at(c->errors, JL_ENOMEM, rf, sp->line, 0, NULL, "out of memory");
        return;
    }
    jl_run *r = NULL;
    if (select_gpus(c, L, sp, sel, &G) == JL_OK &&
        build_run(c, L, sp, sp->name, i0, i1, sp->start, sel, G, &r) == JL_OK) {
        jl__imp_push_run(c->k, r);
    }
    free(sel);
}

static void result_details(ctx *c, size_t n_logs, size_t rows, size_t G, int inst)
{
    const char *field = c->fields_used == 3           ? "power.draw, power.draw.instant"
                        : c->fields_used == 1         ? "power.draw"
                        : c->fields_used == 2 || inst ? "power.draw.instant"
                                                      : "power.draw";
    jl__imp_detail_num(c->k, "n_rows", (double)rows);
    jl__imp_detail_num(c->k, "max_gpus_per_log", (double)G);
    char zbuf[96];
    const char *ztext = zone_text(c, zbuf, sizeof zbuf);
    jl__imp_detail(c->k, "timezone", ztext, 0);
    jl__imp_detail(c->k, "power_field", field, 0);
    if (c->lag_used >= 0)
        jl__imp_detail_num(c->k, "power_lag_s", c->lag_used);
    else
        jl__imp_detail(c->k, "power_lag_s", "differs between runs (their notes say)", 0);
    jl__imp_detail_num(c->k, "samples_without_power", (double)c->dropped_rows);
    /* a note that matches what the times carried: their own offsets are
     * never said to be read in another zone (issue 37) */
    size_t n_off, n_loc;
    int off;
    jl__zone_usage(c->zone, &n_off, &n_loc, &off);
    if (n_off && !n_loc)
        jl__imp_note(c->k, "", "timestamp",
                     "the timestamps carry their own UTC offset (UTC%c%02d:%02d): read as "
                     "written%s",
                     off < 0 ? '-' : '+', abs(off) / 3600, abs(off) % 3600 / 60,
                     c->opt->timezone ? " (--timezone not used for them)" : "");
    else if (n_off)
        jl__imp_note(c->k, "", "timestamp",
                     "%zu timestamps carry their own UTC offset (read as written), %zu local ones "
                     "read in %s%s",
                     n_off, n_loc, jl__zone_name(c->zone),
                     c->opt->timezone ? "" : " (no --timezone given)");
    else
        jl__imp_note(c->k, "", "timestamp", "local times read in %s%s", jl__zone_name(c->zone),
                     c->opt->timezone ? "" : " (no --timezone given)");
    c->res->source = jl__asprintf("nvidia-smi CSV log%s (%zu rows)", n_logs == 1 ? "" : "s", rows);
    c->res->detail_text = jl__asprintf("%zu rows, up to %zu GPU%s a log, times in %s, power from "
                                       "%s, %zu notes",
                                       rows, G, G == 1 ? "" : "s", ztext, field, c->res->n_notes);
}

/* ---- streaming: runs written while the log is read ---------------------------- */

typedef struct srun {
    const jl__imp_run_spec *sp; /* NULL: the whole log */
    char name[256];
    double start, end; /* window, Unix s */
    double t0;         /* NaN until its first sample */
    size_t *sel, G;
    int pw, avg_bad, any[N_SERIES], failed, done;
    size_t n_samples;
    jl_trace_stream *st;
    double lag;       /* taken off the power field's times */
    jl__imp_clip win; /* power/ over exactly [start, end] */
    jl_status wst;    /* the first failed append to power/ */
    jl_error *werr;
    run_info info;  /* its samples' span and power-cap context */
    size_t session; /* whole-log runs: the logging session it holds */
} srun;

typedef struct sctx {
    ctx *c;
    jl_trace_writer *w;
    srun *runs;
    size_t n;
    double *row;
    double t_first, t_last;
    double *prev, prev_t; /* the log's previous sample: N_SERIES x max_gpus; NaN: none */
    size_t cap;           /* runs allocated (a whole log split into sessions grows them) */
} sctx;

static const struct {
    kind k;
    const char *name;
} gpu_ds[] = {{K_SM_UTIL, "sm_util"},
              {K_MEM_UTIL, "mem_util"},
              {K_MEM_USED, "mem_used_bytes"},
              {K_SM_CLOCK, "sm_clock_mhz"},
              {K_TEMP, "temp_c"}};
#define N_GPU_DS (sizeof gpu_ds / sizeof gpu_ds[0])

static void srun_fail(sctx *x, srun *r, jl_error *err)
{
    if (err) {
        jl_error_set_context(err, NULL, r->name);
        jl_error_list_push(x->c->errors, err);
    }
    jl_trace_stream_abort(r->st);
    r->st = NULL;
    r->failed = 1;
}

static int row_of(const log_data *L, int s, const srun *r, double *row)
{
    int finite = 1;
    for (size_t g = 0; g < r->G; g++) {
        row[g] = L->v[s][r->sel[g]];
        finite &= isfinite(row[g]);
    }
    return finite;
}

/* power/ of a streamed run: a point of its window (kit_clip.c). */
static void stream_power(void *vr, double t, const double *a, const double *b)
{
    srun *r = vr;
    double rt = t - r->t0;
    if (r->wst == JL_OK)
        r->wst = jl_trace_stream_append(r->st, "power", "time", 1, &rt, 1, &r->werr);
    if (r->wst == JL_OK)
        r->wst = jl_trace_stream_append(r->st, "power", "watts", r->G, a, 1, &r->werr);
    for (size_t g = 0; b && g < r->G; g++)
        r->avg_bad |= !isfinite(b[g]);
    if (r->wst == JL_OK && b && !r->avg_bad)
        r->wst = jl_trace_stream_append(r->st, "power", "watts_avg", r->G, b, 1, &r->werr);
}

/* Feed one sample (its series v, each G values) to r's power window. */
static void stream_window(sctx *x, const log_data *L, srun *r, double t, const double *const *v)
{
    int has_avg = L->has_series[K_POWER_AVG - FIRST_SERIES];
    int ok = run_values(v, r->pw, r->sel, r->G, x->row, has_avg ? x->row + r->G : NULL);
    jl__imp_clip_sample(&r->win, t - r->lag, x->row, x->row + r->G, ok);
}

static void stream_finish(sctx *x, const log_data *L, srun *r);

/* A whole log's run ends where a new logging session begins (issue 37):
 * the open run is finished at the sample before, and a run named
 * <log>__s<k> opens at this one, with no edge from the session before. */
static jl_status stream_split(sctx *x, const log_data *L, double t)
{
    size_t open = x->n;
    for (size_t k = 0; k < x->n; k++)
        if (!x->runs[k].sp && !x->runs[k].done && !x->runs[k].failed &&
            x->runs[k].session != L->session)
            open = k;
    if (open == x->n)
        return JL_OK;
    double t_last = x->t_last;
    x->t_last = x->prev_t;
    stream_finish(x, L, &x->runs[open]);
    x->t_last = t_last;
    if (x->n == x->cap) {
        size_t nc = 2 * x->cap;
        srun *nr = realloc(x->runs, nc * sizeof *nr);
        if (!nr)
            return JL_ENOMEM;
        memset(nr + x->cap, 0, (nc - x->cap) * sizeof *nr);
        x->runs = nr;
        x->cap = nc;
    }
    char base[256];
    snprintf(base, sizeof base, "%s", x->runs[open].name);
    char *sfx = strstr(base, "__s");
    if (sfx && x->runs[open].session > 0)
        *sfx = '\0';
    base[200] = '\0';
    srun *r = &x->runs[x->n++];
    r->t0 = NAN;
    r->session = L->session;
    snprintf(r->name, sizeof r->name, "%.200s__s%zu", base, L->session + 1);
    (void)t;
    r->start = -INFINITY; /* opens at this sample: none before it reaches it */
    r->end = INFINITY;
    x->prev_t = NAN; /* no start edge from the session before */
    return JL_OK;
}

/* Append sample 0 of L to every run whose window holds it. */
static jl_status stream_sample(void *vx, log_data *L)
{
    sctx *x = vx;
    ctx *c = x->c;
    double t = L->t[0];
    if (isnan(x->t_first))
        x->t_first = t;
    jl_status sst = stream_split(x, L, t);
    if (sst != JL_OK)
        return sst;
    x->t_last = t;
    const double *v[N_SERIES];
    for (int q = 0; q < N_SERIES; q++)
        v[q] = L->has_series[q] ? L->v[q] : NULL;
    for (size_t k = 0; k < x->n; k++) {
        srun *r = &x->runs[k];
        if (r->failed || r->done || (isnan(r->t0) && (t < r->start || t > r->end)))
            continue;
        jl_error *err = NULL;
        if (isnan(r->t0)) {
            if (!(r->sel = jl__malloc_array(L->G, sizeof *r->sel)))
                return JL_ENOMEM;
            if (select_gpus(c, L, r->sp, r->sel, &r->G) != JL_OK) {
                r->failed = 1;
                continue;
            }
            if (jl_trace_writer_begin_run(x->w, r->name, &r->st, &err) != JL_OK) {
                srun_fail(x, r, err);
                continue;
            }
            r->pw = choose_power(L, 0, r->sel, r->G, c->opt->power_lag_s);
            r->lag = power_lag(c, L, r->sel, r->pw);
            info_init(&r->info);
            r->t0 = r->sp ? r->sp->start : t - r->lag;
            if (jl__imp_clip_init(&r->win, r->start, r->end, r->G,
                                  L->has_series[K_POWER_AVG - FIRST_SERIES], stream_power, r))
                return JL_ENOMEM;
            if (!isnan(x->prev_t)) { /* the sample before the window: its start edge */
                const double *pv[N_SERIES];
                for (int q = 0; q < N_SERIES; q++)
                    pv[q] = x->prev + (size_t)q * c->opt->max_gpus;
                stream_window(x, L, r, x->prev_t, pv);
            }
        }
        if (!r->win.closed)
            stream_window(x, L, r, t, v);
        jl_status st = r->wst;
        err = r->werr;
        r->werr = NULL;
        if (st == JL_OK && t <= r->end) {
            r->n_samples++;
            info_sample(&r->info, L, 0, t, r->sel, r->G, r->pw);
            double rt = t - r->t0;
            int any_gpu = 0;
            for (size_t q = 0; q < N_GPU_DS; q++)
                any_gpu |= L->has_series[gpu_ds[q].k - FIRST_SERIES];
            if (any_gpu)
                st = jl_trace_stream_append(r->st, "gpu", "time", 1, &rt, 1, &err);
            for (size_t q = 0; q < N_GPU_DS && st == JL_OK; q++) {
                int sidx = gpu_ds[q].k - FIRST_SERIES;
                if (!L->has_series[sidx])
                    continue;
                row_of(L, sidx, r, x->row);
                for (size_t g = 0; g < r->G; g++)
                    r->any[sidx] |= isfinite(x->row[g]);
                st = jl_trace_stream_append(r->st, "gpu", gpu_ds[q].name, r->G, x->row, 1, &err);
            }
        }
        if (st != JL_OK) {
            srun_fail(x, r, err);
            if (st == JL_ENOMEM)
                return st;
        }
    }
    return JL_OK;
}

/* The end of a run's window (or of the log): check, finish and write it. */
static void stream_finish(sctx *x, const log_data *L, srun *r)
{
    ctx *c = x->c;
    const char *rf = c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv";
    const char *where = r->sp ? rf : L->path;
    long long line = r->sp ? r->sp->line : 0;
    if (r->failed || r->done)
        return;
    r->done = 1;
    if (isnan(r->t0)) {
        jl__imp_err_at(c->errors, JL_ENODATA, rf, line, 0, "run",
                       "run %s: no sample in its window %.3f..%.3f (Unix s): it falls outside "
                       "the log (%s spans %.3f..%.3f)",
                       r->name, r->start, r->end, base_name(L->path), x->t_first, x->t_last);
        return;
    }
    jl__imp_clip_end(&r->win, x->t_last >= r->end);
    if (r->win.n < 2) {
        jl__imp_err_at(c->errors, JL_ENODATA, where, line, 0, NULL,
                       "run %s: %zu power sample%s in its window (%zu rows of %s): nothing to "
                       "integrate",
                       r->name, r->win.n, r->win.n == 1 ? "" : "s", r->n_samples, L->path);
        srun_fail(x, r, NULL);
        return;
    }
    window_notes(c, L, r->sp, r->pw, &r->win);
    used_power(c, r->pw, r->lag);
    jl_error *err = NULL;
    jl_status st = JL_OK;
    if (r->avg_bad) {
        note_no_avg(c, L);
        st = jl_trace_stream_drop(r->st, "power", "watts_avg", &err);
    }
    int kept = 0;
    for (size_t q = 0; q < N_GPU_DS && st == JL_OK; q++) {
        int sidx = gpu_ds[q].k - FIRST_SERIES;
        if (!L->has_series[sidx])
            continue;
        if (r->any[sidx])
            kept = 1;
        else
            st = jl_trace_stream_drop(r->st, "gpu", gpu_ds[q].name, &err);
    }
    if (st == JL_OK && !kept)
        st = jl_trace_stream_drop(r->st, "gpu", "time", &err);
    if (st != JL_OK) {
        srun_fail(x, r, err);
        return;
    }
    jl_run *run = jl_run_new();
    if (!run || !(run->name = jl__strdup(r->name)) || !(run->file = jl__strdup(L->path))) {
        jl_run_free(run);
        srun_fail(x, r, jl_error_new(JL_ENOMEM, where, NULL, NULL, -1, "out of memory"));
        return;
    }
    if (finish_run(c, L, r->sp, run, r->t0, r->sel, r->G, r->pw, r->n_samples, r->lag, r->win.edge,
                   &r->info, r->session) != JL_OK) {
        jl_run_free(run);
        srun_fail(x, r, NULL);
        return;
    }
    st = jl_trace_stream_end(r->st, run, &err);
    r->st = NULL;
    jl_run_free(run);
    if (st != JL_OK) {
        r->failed = 1;
        jl_error_list_push(c->errors, err);
        return;
    }
    c->res->n_runs++;
}

/* Wrap the emit callback: runs whose window has passed are finished at
 * once, so only the runs open at a time hold buffers. */
static jl_status stream_emit(void *vx, log_data *L)
{
    sctx *x = vx;
    jl_status st = stream_sample(vx, L);
    for (size_t k = 0; st == JL_OK && k < x->n; k++)
        if (!x->runs[k].done && !x->runs[k].failed && !isnan(x->runs[k].t0) &&
            x->runs[k].win.closed)
            stream_finish(x, L, &x->runs[k]);
    x->prev_t = L->t[0]; /* kept for the start edge of a run opening next */
    for (int q = 0; st == JL_OK && q < N_SERIES; q++)
        if (L->has_series[q])
            memcpy(x->prev + (size_t)q * x->c->opt->max_gpus, L->v[q], L->G * sizeof *x->prev);
    return st;
}

/* The first of two reads of a log written as it is read: every sample's
 * power per GPU (8 bytes per GPU and sample), for --runs auto and the idle
 * level outside the runs. Its notes and errors are dropped: the second
 * read reports them. */
typedef struct prepass {
    double *t, *w;
    size_t n, cap, G;
    int inst, names;
} prepass;

static jl_status prepass_emit(void *vx, log_data *L)
{
    prepass *pp = vx;
    if (pp->n == pp->cap) {
        size_t nc = pp->cap ? 2 * pp->cap : 4096;
        double *t = realloc(pp->t, nc * sizeof *t);
        if (t)
            pp->t = t;
        double *w = t ? realloc(pp->w, nc * L->G * sizeof *w) : NULL;
        if (!w)
            return JL_ENOMEM;
        pp->w = w;
        pp->cap = nc;
    }
    int inst = K_POWER_INST - FIRST_SERIES, draw = K_POWER - FIRST_SERIES;
    pp->G = L->G;
    pp->t[pp->n] = L->t[0];
    for (size_t g = 0; g < L->G; g++) {
        double x = L->has_series[inst] ? L->v[inst][g] : NAN;
        if (!isfinite(x) && L->has_series[draw])
            x = L->v[draw][g];
        pp->w[pp->n * L->G + g] = isfinite(x) && x >= 0 ? x : NAN;
    }
    pp->inst = L->has_series[inst];
    pp->names = L->G && L->gpus[0].name;
    pp->n++;
    return JL_OK;
}

static jl_status prepass_log(ctx *c, const char *path, prepass *pp, int report, log_data **keep)
{
    jl_error_list errs = {0};
    jl__imp kit;
    jl_import_result *none = NULL;
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    log_data *L = calloc(1, sizeof *L);
    jl_status st = JL_ENOMEM;
    if (!L || jl__imp_start(&kit, NULL, &errs)) {
        free(L);
        return JL_ENOMEM;
    }
    if (!(L->path = jl__strdup(path)))
        goto end;
    L->k = report ? c->k : &kit;
    L->errors = report ? c->errors : &errs;
    L->opt = c->opt;
    L->zone = c->zone;
    L->last_t = NAN;
    L->min_dt = NAN;
    L->emit = prepass_emit;
    L->emit_ctx = pp;
    if ((st = jl__csv_open_file(path, &csv, &err)) == JL_OK)
        st = read_log(L, csv);
    else if (report)
        jl_error_list_push(c->errors, err), err = NULL;
    if (st == JL_OK && keep) { /* its GPUs, for the runs' gpus cells */
        L->k = c->k;
        L->errors = c->errors;
        *keep = L;
        L = NULL;
    }
end:
    jl_error_free(err);
    jl__csv_close(csv);
    log_free(L);
    jl__imp_end(&kit, JL_EINVALID, &none);
    jl_error_list_clear(&errs);
    return st;
}

/* Before streaming log k: --runs auto's runs and the idle level outside
 * the runs, from a first read of the log (when needed). */
static jl_status stream_prepare(ctx *c, const char *path, jl__imp_run_spec **specs, size_t *n_specs,
                                jl__imp_idle **idle)
{
    *idle = NULL;
    if (!c->opt->runs_auto && (!*specs || idle_given(c->opt, *specs, *n_specs)))
        return JL_OK;
    prepass pp = {0};
    log_data *L = NULL;
    jl_status st = prepass_log(c, path, &pp, 0, &L);
    if (st == JL_ENOMEM)
        goto end;
    if (st != JL_OK || pp.n == 0) {
        /* the second read says why; under --runs auto there is none */
        if (c->opt->runs_auto) {
            free(pp.t);
            free(pp.w);
            pp = (prepass){0};
            st = prepass_log(c, path, &pp, 1, NULL);
            st = st == JL_OK ? JL_ENODATA : st;
        } else {
            st = JL_OK;
        }
        goto end;
    }
    jl__imp_pwlog p = {pp.t, pp.w, pp.n, pp.G, !pp.inst};
    if (c->opt->runs_auto && (st = auto_runs(c, &p, &path, 1, pp.names, specs, n_specs)) != JL_OK)
        goto end;
    st = measure_idle(c, L, &p, *specs, *n_specs, idle);
end:
    log_free(L);
    free(pp.t);
    free(pp.w);
    return st;
}

static jl_status stream_log(ctx *c, jl_trace_writer *w, jl__csv *csv, const jl__imp_run_spec *specs,
                            size_t n_specs, size_t k, size_t *rows, size_t *G, int *inst,
                            jl__imp_idle *idle)
{
    jl_status st = JL_OK;
    log_data *L = calloc(1, sizeof *L);
    if (L)
        L->idle = idle;
    else if (idle) {
        jl__imp_idle_free(idle);
        free(idle);
    }
    sctx x = {.c = c, .w = w, .t_first = NAN, .t_last = NAN};
    size_t nr = specs ? n_specs : 1;
    x.runs = calloc(nr, sizeof *x.runs);
    x.cap = nr;
    if (!L || !x.runs || !(L->path = jl__strdup(jl__csv_name(csv)))) {
        st = JL_ENOMEM;
        goto end;
    }
    x.n = nr;
    for (size_t i = 0; i < nr; i++) {
        srun *r = &x.runs[i];
        r->t0 = NAN;
        if (specs) {
            r->sp = &specs[i];
            snprintf(r->name, sizeof r->name, "%s", specs[i].name);
            r->start = specs[i].start;
            r->end = specs[i].end;
            if (specs[i].log && strcmp(specs[i].log, L->path) &&
                strcmp(specs[i].log, base_name(L->path)))
                r->end = -INFINITY; /* another log's run: no sample */
        } else {
            const char *b = base_name(L->path), *dot = strrchr(b, '.');
            snprintf(r->name, sizeof r->name, "%.*s",
                     (int)(dot && dot > b ? dot - b : (long)strlen(b)), b);
            if (k > 0) {
                size_t l = strlen(r->name);
                if (l > 200)
                    l = 200;
                snprintf(r->name + l, sizeof r->name - l, "__%zu", k + 1);
            }
            r->start = -INFINITY;
            r->end = INFINITY;
        }
    }
    L->k = c->k;
    L->errors = c->errors;
    L->opt = c->opt;
    L->zone = c->zone;
    L->last_t = NAN;
    L->min_dt = NAN;
    L->emit = stream_emit;
    L->emit_ctx = &x;
    x.row = jl__malloc_array(2 * c->opt->max_gpus, sizeof *x.row);
    x.prev = jl__malloc_array(N_SERIES * c->opt->max_gpus, sizeof *x.prev);
    x.prev_t = NAN;
    if (!x.row || !x.prev) {
        st = JL_ENOMEM;
        goto end;
    }
    st = read_log(L, csv);
    if (st == JL_OK) {
        log_span(c, x.t_first, x.t_last);
        for (size_t i = 0; i < x.n; i++)
            stream_finish(&x, L, &x.runs[i]);
        *rows += L->rows;
        *G = L->G > *G ? L->G : *G;
        *inst |= L->has_series[K_POWER_INST - FIRST_SERIES];
        c->res->n_files++;
    }
end:
    for (size_t i = 0; x.runs && i < x.n; i++) {
        if (x.runs[i].st)
            jl_trace_stream_abort(x.runs[i].st);
        free(x.runs[i].sel);
        jl__imp_clip_free(&x.runs[i].win);
        jl_error_free(x.runs[i].werr);
    }
    free(x.runs);
    free(x.row);
    free(x.prev);
    log_free(L);
    return st == JL_ENOMEM ? st : JL_OK;
}

/* No window of RUNS.csv holds a sample of the logs: one error naming both
 * spans in UTC and how far apart they are ("your windows are 6.0 h before
 * the log"): a wrong --timezone, or a zone missing from RUNS.csv. */
static void windows_outside(ctx *c, const jl__imp_run_spec *specs, size_t n)
{
    if (!specs || !n || !isfinite(c->log_t0))
        return;
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        a = fmin(a, specs[i].start);
        b = fmax(b, specs[i].end);
    }
    if (!(b < c->log_t0 || a > c->log_t1))
        return; /* some overlap: each run said why */
    char w0[32] = "?", w1[32] = "?", l0[32] = "?", l1[32] = "?";
    jl__zone *utc = NULL;
    jl_error *ze = NULL;
    if (jl__zone_open("UTC", &utc, &ze) == JL_OK) {
        jl__zone_format(utc, a, w0, sizeof w0);
        jl__zone_format(utc, b, w1, sizeof w1);
        jl__zone_format(utc, c->log_t0, l0, sizeof l0);
        jl__zone_format(utc, c->log_t1, l1, sizeof l1);
    }
    jl_error_free(ze);
    jl__zone_free(utc);
    double gap = b < c->log_t0 ? c->log_t0 - b : a - c->log_t1;
    jl__imp_err_at(c->errors, JL_ENODATA, c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv", 0, 0,
                   "start",
                   "no window overlaps the log: your windows (%s to %s UTC) are %.1f h %s the "
                   "log's samples (%s to %s UTC, read in %s): a wrong --timezone, or times in "
                   "RUNS.csv without their zone?",
                   w0, w1, gap / 3600, b < c->log_t0 ? "before" : "after", l0, l1,
                   jl__zone_name(c->zone));
}

static jl_status import_logs(ctx *c, jl__csv **csvs, size_t n, jl__csv *runs_csv,
                             jl_import_result **out)
{
    jl_status st = JL_OK;
    jl__imp_run_spec *specs = NULL;
    size_t n_specs = 0;
    *out = NULL;
    jl__imp kit;
    if (jl__imp_start(&kit, NULL, c->errors))
        return JL_ENOMEM;
    c->k = &kit;
    c->res = kit.res;
    c->logs = calloc(n ? n : 1, sizeof *c->logs);
    if (!c->logs) {
        st = JL_ENOMEM;
        goto end;
    }
    c->n_logs = n;
    if (runs_csv &&
        (st = jl__imp_runs_read(runs_csv, c->zone, c->errors, &specs, &n_specs)) != JL_OK)
        goto end;
    size_t rows = 0, read_ok = 0;
    for (size_t k = 0; k < n; k++) {
        if (!csvs[k])
            continue;
        log_data *L = calloc(1, sizeof *L);
        if (!L || !(L->path = jl__strdup(jl__csv_name(csvs[k])))) {
            free(L);
            st = JL_ENOMEM;
            goto end;
        }
        L->k = c->k;
        L->errors = c->errors;
        L->opt = c->opt;
        L->zone = c->zone;
        L->last_t = NAN;
        L->min_dt = NAN;
        jl_status ls = read_log(L, csvs[k]);
        if (ls == JL_ENOMEM) {
            log_free(L);
            st = JL_ENOMEM;
            goto end;
        }
        if (ls != JL_OK) {
            log_free(L);
            continue;
        }
        rows += L->rows;
        read_ok++;
        c->logs[k] = L;
        if (L->n)
            log_span(c, L->t[0], L->t[L->n - 1]);
    }
    c->res->n_files = read_ok;
    if (read_ok == 0) {
        st = JL_ENODATA;
        goto end;
    }
    if ((specs || c->opt->runs_auto) &&
        (st = logs_auto_idle(c, csvs, n, &specs, &n_specs)) != JL_OK)
        goto end;
    if (specs) {
        for (size_t i = 0; i < n_specs; i++)
            cut_run(c, &specs[i]);
    } else {
        for (size_t k = 0; k < n; k++) {
            log_data *L = c->logs[k];
            if (!L)
                continue;
            char name[256];
            const char *b = base_name(L->path);
            const char *dot = strrchr(b, '.');
            snprintf(name, sizeof name, "%.*s", (int)(dot && dot > b ? dot - b : (long)strlen(b)),
                     b);
            for (size_t j = 0; j < c->res->n_runs; j++)
                if (!strcmp(c->res->runs[j]->name, name)) {
                    size_t l = strlen(name);
                    if (l > 200)
                        l = 200;
                    snprintf(name + l, sizeof name - l, "__%zu", k + 1);
                }
            size_t *sel = jl__malloc_array(L->G ? L->G : 1, sizeof *sel), G;
            if (!sel) {
                st = JL_ENOMEM;
                goto end;
            }
            /* one run per logging session (issue 37): a view of its samples */
            for (size_t q = 0; q <= L->n_sess && select_gpus(c, L, NULL, sel, &G) == JL_OK; q++) {
                size_t i0 = q ? L->sess[q - 1].at : 0, i1 = q < L->n_sess ? L->sess[q].at : L->n;
                log_data v = *L;
                v.t += i0;
                v.line += i0;
                v.n = i1 - i0;
                for (int sx = 0; sx < N_SERIES; sx++)
                    if (v.v[sx])
                        v.v[sx] += i0 * L->G;
                v.session = q;
                char sname[300];
                snprintf(sname, sizeof sname, q ? "%.250s__s%zu" : "%.250s", name, q + 1);
                jl_run *r = NULL;
                if (v.n && build_run(c, &v, NULL, sname, 0, v.n, v.t[0], sel, G, &r) == JL_OK)
                    jl__imp_push_run(c->k, r);
            }
            free(sel);
        }
    }
    if (c->res->n_runs == 0) {
        windows_outside(c, specs, n_specs);
        st = JL_ENODATA;
        goto end;
    }
    size_t G = 0;
    int inst = 0;
    for (size_t k = 0; k < n; k++)
        if (c->logs[k]) {
            G = c->logs[k]->G > G ? c->logs[k]->G : G;
            inst |= c->logs[k]->has_series[K_POWER_INST - FIRST_SERIES];
        }
    result_details(c, n, rows, G, inst);
end:
    jl__imp_run_specs_free(specs, n_specs);
    for (size_t k = 0; c->logs && k < c->n_logs; k++)
        log_free(c->logs[k]);
    free(c->logs);
    free(c->auto_path);
    return jl__imp_end(c->k, st, out);
}

static jl_status check_set(const jl_import_nvsmi_options *opt, jl_error_list *errors)
{
    if (!isnan(opt->power_lag_s) && !(opt->power_lag_s >= 0 && opt->power_lag_s <= 10))
        return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                              "power lag %g s: from 0 to 10 s (NaN: auto)", opt->power_lag_s);
    for (size_t i = 0; i < opt->n_set; i++) {
        jl_attrs probe;
        jl_attrs_init(&probe);
        const char *why = set_attr(&probe, opt->set[i].key, opt->set[i].value);
        jl_attrs_clear(&probe);
        if (why)
            return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL, "--set %s=%s: %s",
                                  opt->set[i].key, opt->set[i].value, why);
    }
    return JL_OK;
}

jl_status jl_import_nvidia_smi(const char *const *logs, size_t n,
                               const jl_import_nvsmi_options *opt, jl_import_result **out,
                               jl_error_list *errors)
{
    jl_import_nvsmi_options def;
    if (!opt) {
        jl_import_nvsmi_options_default(&def);
        opt = &def;
    }
    *out = NULL;
    ctx c = {.opt = opt, .errors = errors, .lag_used = NAN, .log_t0 = NAN, .log_t1 = NAN};
    jl_error *err = NULL;
    jl_status st = check_set(opt, errors);
    if (st != JL_OK)
        return st;
    if ((st = jl__zone_open(opt->timezone, &c.zone, &err)) != JL_OK) {
        jl_error_list_push(errors, err);
        return st;
    }
    jl__csv **csvs = calloc(n ? n : 1, sizeof *csvs);
    jl__csv *runs = NULL;
    if (!csvs) {
        jl__zone_free(c.zone);
        return JL_ENOMEM;
    }
    if (opt->runs_csv && jl__csv_open_file(opt->runs_csv, &runs, &err) != JL_OK) {
        st = err ? (err->code == JL_EIO ? JL_EUSAGE : err->code) : JL_ENOMEM;
        jl_error_list_push(errors, err);
        goto end;
    }
    for (size_t k = 0; k < n; k++) {
        err = NULL;
        if (jl__csv_open_file(logs[k], &csvs[k], &err) != JL_OK)
            jl_error_list_push(errors, err);
    }
    st = import_logs(&c, csvs, n, runs, out);
end:
    for (size_t k = 0; k < n; k++)
        jl__csv_close(csvs[k]);
    free(csvs);
    jl__csv_close(runs);
    jl__zone_free(c.zone);
    return st;
}

jl_status jl_import_nvidia_smi_buffer(const char *log, size_t len, const char *name,
                                      const char *runs_csv, size_t runs_len,
                                      const jl_import_nvsmi_options *opt, jl_import_result **out,
                                      jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    if (opt)
        o = *opt;
    else
        jl_import_nvsmi_options_default(&o);
    o.runs_csv = NULL;
    *out = NULL;
    ctx c = {.opt = &o, .errors = errors, .lag_used = NAN, .log_t0 = NAN, .log_t1 = NAN};
    jl_error *err = NULL;
    jl_status st = check_set(&o, errors);
    if (st != JL_OK)
        return st;
    if ((st = jl__zone_open(o.timezone, &c.zone, &err)) != JL_OK) {
        jl_error_list_push(errors, err);
        return st;
    }
    jl__csv *csv = NULL, *runs = NULL;
    if (jl__csv_open_buffer(log, len, name, &csv, &err) != JL_OK ||
        (runs_csv && jl__csv_open_buffer(runs_csv, runs_len, "RUNS.csv", &runs, &err) != JL_OK)) {
        jl_error_list_push(errors, err);
        st = JL_ENOMEM;
    } else {
        /* requests columns name files: not read from buffers */
        st = import_logs(&c, &csv, 1, runs, out);
    }
    jl__csv_close(csv);
    jl__csv_close(runs);
    jl__zone_free(c.zone);
    return st;
}

jl_status jl_import_nvidia_smi_write(const char *const *logs, size_t n,
                                     const jl_import_nvsmi_options *opt, jl_trace_writer *w,
                                     jl_import_result **out, jl_error_list *errors)
{
    jl_import_nvsmi_options def;
    if (!opt) {
        jl_import_nvsmi_options_default(&def);
        opt = &def;
    }
    *out = NULL;
    if (opt->sort || (opt->runs_csv && n > 1) || (opt->runs_auto && n > 1)) {
        /* sorting needs every row; runs over several logs need every log:
         * in memory, then written */
        jl_status st = jl_import_nvidia_smi(logs, n, opt, out, errors);
        for (size_t i = 0; st == JL_OK && i < (*out)->n_runs; i++) {
            jl_error *err = NULL;
            if (jl_trace_writer_add_run(w, (*out)->runs[i], &err) != JL_OK) {
                jl_error_list_push(errors, err);
                jl_import_result_free(*out);
                *out = NULL;
                return JL_EIO;
            }
        }
        return st;
    }
    ctx c = {.opt = opt, .errors = errors, .lag_used = NAN, .log_t0 = NAN, .log_t1 = NAN};
    jl_error *err = NULL;
    jl__imp_run_spec *specs = NULL;
    size_t n_specs = 0, rows = 0, G = 0;
    int inst = 0;
    jl__csv *runs = NULL;
    jl_status st = check_set(opt, errors);
    if (st != JL_OK)
        return st;
    if ((st = jl__zone_open(opt->timezone, &c.zone, &err)) != JL_OK) {
        jl_error_list_push(errors, err);
        return st;
    }
    jl__imp kit;
    if (jl__imp_start(&kit, NULL, errors)) {
        jl__zone_free(c.zone);
        return JL_ENOMEM;
    }
    c.k = &kit;
    c.res = kit.res;
    if (opt->runs_csv) {
        if (jl__csv_open_file(opt->runs_csv, &runs, &err) != JL_OK) {
            st = err ? (err->code == JL_EIO ? JL_EUSAGE : err->code) : JL_ENOMEM;
            jl_error_list_push(errors, err);
            goto end;
        }
        if ((st = jl__imp_runs_read(runs, c.zone, errors, &specs, &n_specs)) != JL_OK)
            goto end;
    }
    for (size_t k = 0; k < n; k++) {
        jl__csv *csv = NULL;
        jl__imp_idle *idle = NULL;
        err = NULL;
        if ((st = stream_prepare(&c, logs[k], &specs, &n_specs, &idle)) != JL_OK)
            goto end;
        if (jl__csv_open_file(logs[k], &csv, &err) != JL_OK) {
            jl_error_list_push(errors, err);
            if (idle) {
                jl__imp_idle_free(idle);
                free(idle);
            }
            continue;
        }
        st = stream_log(&c, w, csv, specs, n_specs, k, &rows, &G, &inst, idle);
        jl__csv_close(csv);
        if (st != JL_OK)
            goto end;
    }
    if (c.res->n_files == 0 || c.res->n_runs == 0) {
        if (c.res->n_files)
            windows_outside(&c, specs, n_specs);
        st = JL_ENODATA;
        goto end;
    }
    result_details(&c, n, rows, G, inst);
end:
    jl__imp_run_specs_free(specs, n_specs);
    jl__csv_close(runs);
    jl__zone_free(c.zone);
    free(c.auto_path);
    return jl__imp_end(&kit, st, out);
}

/* ---- the importer table's row ---------------------------------------------- */

static const jl_importer_option nvsmi_options[] = {
    {"runs", "RUNS.csv|auto",
     "runs to cut from the log: columns run,start,end then any run "
     "attribute, gpus, requests, requests_offset, log; auto: cut at the power's rises and "
     "falls (thresholds printed) and written to a RUNS.csv to edit"},
    {"runs-out", "FILE",
     "with --runs auto: where to write the runs found (default: -o's name with .runs.csv)"},
    {"auto-min-run", "S", "with --runs auto: drop runs shorter than S seconds (default 5)"},
    {"auto-merge", "S", "with --runs auto: merge dips in power shorter than S seconds (default 1)"},
    {"set", "KEY=VALUE", "a run attribute for every run (repeatable; RUNS.csv wins)"},
    {"timezone", "ZONE",
     "zone of the log's timestamps: UTC, +05:30, America/Chicago "
     "(default: this machine's)"},
    {"columns", "LIST", "field names of a noheader log, in order (timestamp,index,power.draw)"},
    {"sort", NULL, "sort rows by time instead of refusing time that goes backwards"},
    {"power-lag", "auto|off|SECONDS",
     "auto (default): power.draw, the 1-s average, placed 0.5 s before its timestamp; off: "
     "power.draw.instant where logged, times as logged; SECONDS: power.draw shifted so much"},
    {NULL, NULL, NULL},
};

/* The CLI's options into o (set and keys allocated for --set; freed by the
 * caller). */
static jl_status parse_args(const jl_importer_arg *args, size_t n_args, jl_import_nvsmi_options *o,
                            jl_kv **set, char ***keys, jl_error_list *errors)
{
    jl_import_nvsmi_options_default(o);
    *set = calloc(n_args ? n_args : 1, sizeof **set);
    *keys = calloc(n_args ? n_args : 1, sizeof **keys);
    if (!*set || !*keys)
        return JL_ENOMEM;
    for (size_t i = 0; i < n_args; i++) {
        const char *k = args[i].name, *v = args[i].value;
        if (!strcmp(k, "runs") && !strcmp(v, "auto"))
            o->runs_auto = 1, o->runs_csv = NULL;
        else if (!strcmp(k, "runs"))
            o->runs_csv = v, o->runs_auto = 0;
        else if (!strcmp(k, "runs-out"))
            o->runs_out = v;
        else if (!strcmp(k, "output"))
            o->output = v;
        else if (!strcmp(k, "force"))
            o->force = 1;
        else if (!strcmp(k, "auto-min-run") || !strcmp(k, "auto-merge")) {
            double x;
            if (!jl__imp_number(v, &x) || x < 0)
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--%s wants seconds >= 0, found '%s'", k, v);
            *(!strcmp(k, "auto-min-run") ? &o->auto_min_run_s : &o->auto_merge_s) = x;
        } else if (!strcmp(k, "timezone"))
            o->timezone = v;
        else if (!strcmp(k, "columns"))
            o->columns = v;
        else if (!strcmp(k, "sort"))
            o->sort = 1;
        else if (!strcmp(k, "power-lag")) {
            char *e = NULL;
            double d = strcmp(v, "auto") ? strcmp(v, "off") ? strtod(v, &e) : 0 : NAN;
            if (e && (e == v || *e || !(d >= 0 && d <= 10)))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--power-lag wants auto, off or seconds from 0 to 10, "
                                      "found '%s'",
                                      v);
            o->power_lag_s = d;
        } else if (!strcmp(k, "set")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v)
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--set wants KEY=VALUE, found '%s'", v);
            if (!((*keys)[o->n_set] = jl__asprintf("%.*s", (int)(eq - v), v)))
                return JL_ENOMEM;
            (*set)[o->n_set].key = (*keys)[o->n_set];
            (*set)[o->n_set].value = (char *)(eq + 1);
            o->n_set++;
        }
    }
    o->set = *set;
    return JL_OK;
}

static void free_args(jl_kv *set, char **keys, size_t n_args)
{
    for (size_t i = 0; keys && i < n_args; i++)
        free(keys[i]);
    free(keys);
    free(set);
}

static jl_status nvsmi_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                           size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    jl_kv *set = NULL;
    char **keys = NULL;
    jl_status st = parse_args(args, n_args, &o, &set, &keys, errors);
    if (st == JL_OK)
        st = jl_import_nvidia_smi(paths, n_paths, &o, out, errors);
    free_args(set, keys, n_args);
    return st;
}

static jl_status nvsmi_write(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                             size_t n_args, jl_trace_writer *w, jl_import_result **out,
                             jl_error_list *errors)
{
    jl_import_nvsmi_options o;
    jl_kv *set = NULL;
    char **keys = NULL;
    jl_status st = parse_args(args, n_args, &o, &set, &keys, errors);
    if (st == JL_OK)
        st = jl_import_nvidia_smi_write(paths, n_paths, &o, w, out, errors);
    free_args(set, keys, n_args);
    return st;
}

const jl_importer jl__importer_nvidia_smi = {
    .name = "nvidia-smi",
    .summary = "CSV logs of nvidia-smi --query-gpu=... --format=csv -lms N, cut into runs",
    .paths = "LOG.csv...",
    .description =
        "Import CSV logs written by `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader]\n"
        "[,nounits] -lms N`: any fields with timestamp and a power field. Units in the\n"
        "header or the values, [N/A] and [Not Supported] are missing (never 0); rows of\n"
        "several GPUs become watts [N, G] by index (or uuid). Power is power.draw, the\n"
        "driver's 1-s average on Ampere and newer, each reading placed 0.5 s before its\n"
        "timestamp (--power-lag), else power.draw.instant; the run's notes say which.\n"
        "Without --runs each log is one run named after its file; with it each row of\n"
        "RUNS.csv is a run [start, end] (Unix seconds or ISO 8601), its power\n"
        "interpolated to both edges so its energy covers exactly the window,\n"
        "on the GPUs of its gpus column, with attributes from the other columns and\n"
        "requests from a vLLM `bench serve --save-result --save-detailed` JSON named in a\n"
        "requests column. --runs auto cuts runs where the total power rises and falls\n"
        "(the thresholds are printed) and writes them as a RUNS.csv to edit\n"
        "(OUT.runs.csv for -o OUT.h5, or --runs-out FILE); without --set for every required\n"
        "attribute it stops there, naming the columns to fill and the command to re-run.\n"
        "A required attribute given by none of RUNS.csv, --set, the request file or the\n"
        "log is an error naming it. A run given no gpu_idle_power_w gets the median\n"
        "power of the log's quiet stretches outside every run (its notes say which).\n"
        "Field mapping and units: import.md, \"nvidia-smi\".\n",
    .options = nvsmi_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = nvsmi_run,
    .write = nvsmi_write,
};
