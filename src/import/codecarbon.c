/* joules import codecarbon — CodeCarbon's emissions.csv (docs/import.md,
 * "CodeCarbon"): what `EmissionsTracker(save_to_file=True)` appends, one
 * row per stop() or flush(), and the per-task files of start_task() /
 * stop_task() (a `task_name` column).
 *
 * The columns are read by name, in any order, for every layout the
 * versions write (1.x without emissions_rate or the power columns, 2.x
 * adding codecarbon_version, then pue, then experiment_id, water, the
 * utilisations); a column this importer does not know is kept as an extra
 * attribute with a note. Units as CodeCarbon writes them: duration s,
 * emissions kg CO2eq, emissions_rate kg/s from 2.2.0 and g/s before it
 * (emissions_rate() below), *_power W (the last measurement
 * interval's, not an average), *_energy and energy_consumed kWh with the
 * PUE already applied (CodeCarbon multiplies every energy by its pue).
 *
 * A flush() writes the totals since start() again under the same run_id
 * (cumulative rows): the rows of one run are grouped by identity (run_id
 * and start; project, experiment_id and start without a run_id), in any
 * order (processes forked from one tracker flush out of time order), and
 * the longest is the run's. Each run becomes a summary-only run with CodeCarbon's figures in
 * summary/ (@source), in joules' units, the PUE taken back out of the device
 * energies; what is derived (average power, the intensity) is named in
 * summary/@derived, and the identities CodeCarbon's figures obey
 * (energy_consumed = cpu + gpu + ram; emissions = emissions_rate x duration)
 * are recomputed and a disagreement is a note. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "core/util.h"
#include "import/kit.h"

#define SOURCE "CodeCarbon emissions.csv"
#define KWH_J 3.6e6
/* two rows without a run_id are one run's flushes when their starts
 * (timestamp - duration) agree this closely: timestamps have whole seconds */
#define SAME_START_S 2.5
/* published and recomputed differ by more than this (relative): a note */
#define AGREE_REL 1e-6

enum {
    C_TIMESTAMP,
    C_PROJECT,
    C_RUN_ID,
    C_EXPERIMENT_ID,
    C_TASK,
    C_DURATION,
    C_EMISSIONS,
    C_EMISSIONS_RATE,
    C_CPU_POWER,
    C_GPU_POWER,
    C_RAM_POWER,
    C_CPU_ENERGY,
    C_GPU_ENERGY,
    C_RAM_ENERGY,
    C_ENERGY,
    C_WATER,
    C_CPU_COUNT,
    C_GPU_COUNT,
    C_GPU_MODEL,
    C_CPU_MODEL,
    C_PUE,
    C_WUE,
    C_VERSION,
    C_TRACKING,
    C_COUNTRY,
    C_COUNTRY_ISO,
    C_REGION,
    C_CLOUD_PROVIDER,
    C_CLOUD_REGION,
    C_ON_CLOUD,
    C_LONGITUDE,
    C_LATITUDE,
    C_RAM_TOTAL,
    C_OS,
    C_PYTHON,
    C_CPU_UTIL,
    C_GPU_UTIL,
    C_RAM_UTIL,
    C_RAM_USED,
    N_COLS
};

static const struct {
    const char *name;
    int numeric;
} COLS[N_COLS] = {
    [C_TIMESTAMP] = {"timestamp", 0},
    [C_PROJECT] = {"project_name", 0},
    [C_RUN_ID] = {"run_id", 0},
    [C_EXPERIMENT_ID] = {"experiment_id", 0},
    [C_TASK] = {"task_name", 0},
    [C_DURATION] = {"duration", 1},
    [C_EMISSIONS] = {"emissions", 1},
    [C_EMISSIONS_RATE] = {"emissions_rate", 1},
    [C_CPU_POWER] = {"cpu_power", 1},
    [C_GPU_POWER] = {"gpu_power", 1},
    [C_RAM_POWER] = {"ram_power", 1},
    [C_CPU_ENERGY] = {"cpu_energy", 1},
    [C_GPU_ENERGY] = {"gpu_energy", 1},
    [C_RAM_ENERGY] = {"ram_energy", 1},
    [C_ENERGY] = {"energy_consumed", 1},
    [C_WATER] = {"water_consumed", 1},
    [C_CPU_COUNT] = {"cpu_count", 1},
    [C_GPU_COUNT] = {"gpu_count", 1},
    [C_GPU_MODEL] = {"gpu_model", 0},
    [C_CPU_MODEL] = {"cpu_model", 0},
    [C_PUE] = {"pue", 1},
    [C_WUE] = {"wue", 1},
    [C_VERSION] = {"codecarbon_version", 0},
    [C_TRACKING] = {"tracking_mode", 0},
    [C_COUNTRY] = {"country_name", 0},
    [C_COUNTRY_ISO] = {"country_iso_code", 0},
    [C_REGION] = {"region", 0},
    [C_CLOUD_PROVIDER] = {"cloud_provider", 0},
    [C_CLOUD_REGION] = {"cloud_region", 0},
    [C_ON_CLOUD] = {"on_cloud", 0},
    [C_LONGITUDE] = {"longitude", 1},
    [C_LATITUDE] = {"latitude", 1},
    [C_RAM_TOTAL] = {"ram_total_size", 1},
    [C_OS] = {"os", 0},
    [C_PYTHON] = {"python_version", 0},
    [C_CPU_UTIL] = {"cpu_utilization_percent", 1},
    [C_GPU_UTIL] = {"gpu_utilization_percent", 1},
    [C_RAM_UTIL] = {"ram_utilization_percent", 1},
    [C_RAM_USED] = {"ram_used_gb", 1},
};

enum {
    N_COLUMN,
    N_SHORTER,
    N_HEADER,
    N_GPU_NAME,
    N_GPU_MIXED,
    N_ENERGY,
    N_EMISSIONS,
    N_NOTE_KINDS
};
static const char *const NOTE_FIELD[N_NOTE_KINDS] = {"columns",       "run_id",
                                                     "header",        "gpu_model",
                                                     "gpu_model",     "energy_consumed",
                                                     "emissions_rate"};
#define MAX_DETAILED 10
/* A note of kind K naming a line or a value: only the first MAX_DETAILED. */
#define NOTE_CAPPED(c, K, ...)                            \
    do {                                                  \
        if ((c)->n_note[K]++ < MAX_DETAILED)              \
            jl__imp_note((c)->k, (c)->path, __VA_ARGS__); \
    } while (0)

/* One row kept: its fields (copies) and the numbers of the known columns. */
typedef struct ccrow {
    char **f;
    size_t n;
    long long line;
    double v[N_COLS]; /* NaN: empty or not a numeric column */
    double end;       /* Unix time of the timestamp (the row was written), NaN */
} ccrow;

/* One run: the rows grouped into it (flushes), the last kept. */
typedef struct crun {
    ccrow last;
    char **hdr; /* the header the last row was read under (owned by the file) */
    int col[N_COLS];
    size_t n_rows;
    long long first_line;
    double start; /* Unix time of start(), NaN */
} crun;

typedef struct cc {
    jl__imp *k;
    const jl__imp_sets *sets;
    jl__zone *zone;
    const char *path;
    /* the current header */
    char **hdr;
    size_t H;
    int col[N_COLS];
    /* headers read (a file of appended sessions may hold several) */
    struct hdr {
        char **h;
        size_t n;
    } * hdrs;
    size_t n_hdrs;
    crun *runs;
    size_t n_runs, cap;
    jl__strmap ids; /* run_id -> the index of its latest run */
    size_t n_rows, n_merged, n_bad;
    int stopped; /* a header again that cannot be read: the rest is skipped */
    /* notes that name a line or a value: the first MAX_DETAILED of each
     * kind, then one count (a large file must not make thousands) */
    size_t n_note[N_NOTE_KINDS];
} cc;

static void row_free(ccrow *w)
{
    for (size_t i = 0; w->f && i < w->n; i++)
        free(w->f[i]);
    free(w->f);
    w->f = NULL;
}

static int known_col(const char *name)
{
    for (int k = 0; k < N_COLS; k++)
        if (!strcmp(COLS[k].name, name))
            return k;
    return -1;
}

/* The header row: the columns by name. 0, or -1 after an error. */
static int read_header(cc *c, const jl__csv_row *row)
{
    char **h = calloc(row->n ? row->n : 1, sizeof *h);
    struct hdr *hs = realloc(c->hdrs, (c->n_hdrs + 1) * sizeof *hs);
    if (!h || !hs) {
        free(h);
        if (hs)
            c->hdrs = hs;
        c->k->oom = 1;
        return -1;
    }
    c->hdrs = hs;
    c->hdrs[c->n_hdrs].h = h;
    c->hdrs[c->n_hdrs++].n = row->n;
    for (int k = 0; k < N_COLS; k++)
        c->col[k] = -1;
    for (size_t i = 0; i < row->n; i++) {
        if (!(h[i] = jl__strdup(row->f[i].s))) {
            c->k->oom = 1;
            return -1;
        }
        int k = known_col(h[i]);
        if (k >= 0 && c->col[k] < 0)
            c->col[k] = (int)i;
        else if (k >= 0)
            NOTE_CAPPED(c, N_COLUMN, h[i], "column given twice: the first is read");
        else if (h[i][0])
            NOTE_CAPPED(c, N_COLUMN, h[i],
                        "a column this importer does not know: kept as the extra attribute "
                        "codecarbon_%s",
                        h[i]);
    }
    c->hdr = h;
    c->H = row->n;
    if (c->col[C_DURATION] < 0) {
        jl__imp_err_at(c->k->errors, JL_EFORMAT, c->path, row->line, 0, "duration",
                       "not a CodeCarbon emissions.csv: no 'duration' column in the header "
                       "(first field '%s')",
                       row->n ? row->f[0].s : "");
        return -1;
    }
    if (c->col[C_ENERGY] < 0 && c->col[C_GPU_ENERGY] < 0 && c->col[C_CPU_ENERGY] < 0) {
        jl__imp_err_at(c->k->errors, JL_EFORMAT, c->path, row->line, 0, "energy_consumed",
                       "no energy column (energy_consumed, gpu_energy or cpu_energy) in the "
                       "header: nothing to import");
        return -1;
    }
    return 0;
}

/* A row that repeats a header (two files appended): every field a column
 * name, the first one a known column. */
static int is_header_row(const jl__csv_row *row)
{
    if (!row->n || known_col(row->f[0].s) < 0)
        return 0;
    for (size_t i = 0; i < row->n; i++) {
        double x;
        if (!row->f[i].s[0] || jl__imp_number(row->f[i].s, &x))
            return 0;
    }
    return 1;
}

/* Parse the numbers and the timestamp of a data row into w (fields not
 * copied yet). 0; 1 when a value is bad (quiet: *bad_col set); the caller
 * reports or drops. */
static int parse_row(cc *c, const jl__csv_row *row, ccrow *w, int *bad_col, const char **why)
{
    for (int k = 0; k < N_COLS; k++) {
        w->v[k] = NAN;
        int i = c->col[k];
        if (i < 0 || !COLS[k].numeric || !row->f[i].s[0])
            continue;
        if (!jl__imp_number(row->f[i].s, &w->v[k])) {
            *bad_col = k;
            *why = "expected a number";
            return 1;
        }
    }
    static const int nonneg[] = {C_DURATION,   C_EMISSIONS, C_CPU_ENERGY, C_GPU_ENERGY,
                                 C_RAM_ENERGY, C_ENERGY,    C_CPU_POWER,  C_GPU_POWER,
                                 C_RAM_POWER,  C_GPU_COUNT, C_CPU_COUNT};
    for (size_t j = 0; j < sizeof nonneg / sizeof nonneg[0]; j++)
        if (w->v[nonneg[j]] < 0) {
            *bad_col = nonneg[j];
            *why = "expected a number >= 0";
            return 1;
        }
    if (!(w->v[C_PUE] > 0) && !isnan(w->v[C_PUE])) {
        *bad_col = C_PUE;
        *why = "expected a PUE > 0";
        return 1;
    }
    if (isnan(w->v[C_DURATION])) {
        *bad_col = C_DURATION;
        *why = "a duration is needed (the value is empty)";
        return 1;
    }
    w->end = NAN;
    int it = c->col[C_TIMESTAMP];
    if (it >= 0 && row->f[it].s[0]) {
        jl__civil civ;
        int gap = 0;
        if (!jl__civil_parse(row->f[it].s, &civ)) {
            *bad_col = C_TIMESTAMP;
            *why = "expected a time like 2024-05-31T10:39:13";
            return 1;
        }
        w->end = jl__zone_to_unix(c->zone, &civ, NAN, &gap);
    }
    w->line = row->line;
    return 0;
}

static const char *text_of(const crun *u, int k)
{
    int i = u->col[k];
    return i >= 0 && (size_t)i < u->last.n ? u->last.f[i] : "";
}

/* ---- runs by run_id: the latest run of each id ---- */

/* Run `run` as its id's latest; -1 out of memory. */
static int id_put(cc *c, size_t run)
{
    const char *id = text_of(&c->runs[run], C_RUN_ID);
    if (!id[0])
        return 0;
    jl__strmap_entry *e = jl__strmap_add(&c->ids, id, run, NULL);
    if (!e)
        return -1;
    e->value = run;
    return 0;
}

static crun *id_get(cc *c, const char *id)
{
    const jl__strmap_entry *e = jl__strmap_find(&c->ids, id);
    return e ? &c->runs[e->value] : NULL;
}

/* Whether the row w is a flush of run u, by identity (issue 37): the same
 * run_id (a tracker's uuid4) and start (timestamp - duration), or, in files
 * without one, the same project, experiment_id and start. Flushes of several
 * processes reach the file out of time order: the order does not matter. */
static int flush_of(cc *c, const crun *u, const ccrow *w, const char *run_id, double start)
{
    if (strcmp(text_of(u, C_PROJECT), c->col[C_PROJECT] >= 0 ? w->f[c->col[C_PROJECT]] : ""))
        return 0;
    if (!run_id[0] && strcmp(text_of(u, C_EXPERIMENT_ID),
                             c->col[C_EXPERIMENT_ID] >= 0 ? w->f[c->col[C_EXPERIMENT_ID]] : ""))
        return 0;
    /* the start too: a tracker started again keeps its run_id */
    if ((!run_id[0] || (isfinite(start) && isfinite(u->start))) &&
        !(fabs(start - u->start) <= SAME_START_S))
        return 0;
    if (w->v[C_DURATION] + 1e-9 < u->last.v[C_DURATION])
        NOTE_CAPPED(c, N_SHORTER, "run_id",
                    "line %lld: a flush of %s %s with a shorter duration than line %lld "
                    "(flushes out of time order, several processes writing): merged, the "
                    "longest is the run's",
                    w->line, run_id[0] ? "run_id" : "the run started at",
                    run_id[0] ? run_id
                              : (c->col[C_TIMESTAMP] >= 0 ? w->f[c->col[C_TIMESTAMP]] : "?"),
                    u->last.line);
    return 1;
}

/* The run the row continues (a later flush of it), or NULL: the latest run
 * of its run_id; without one, a run without one among the last 64 whose
 * start agrees. */
static crun *continued(cc *c, const ccrow *w, const char *run_id, const char *task, double start)
{
    if (c->col[C_TASK] >= 0 && task[0])
        return NULL; /* a task's row is the task's own measurement */
    if (run_id[0]) {
        crun *u = id_get(c, run_id);
        return u && flush_of(c, u, w, run_id, start) ? u : NULL;
    }
    for (size_t i = c->n_runs, k = 0; i-- > 0 && k < 64; k++) {
        crun *u = &c->runs[i];
        if (!text_of(u, C_RUN_ID)[0] && flush_of(c, u, w, run_id, start))
            return u;
    }
    return NULL;
}

/* A data row: parsed, copied, grouped. */
static void data_row(cc *c, const jl__csv_row *row)
{
    ccrow w = {0};
    int bad = -1;
    const char *why = NULL;
    if (row->n != c->H || parse_row(c, row, &w, &bad, &why)) {
        if (!row->complete) {
            jl__imp_note(c->k, c->path, NULL,
                         "line %lld: the last line is cut (no line end%s): dropped", row->line,
                         row->n != c->H ? ", fields missing" : ", a value cut");
            return;
        }
        c->n_bad++;
        if (row->n != c->H)
            jl__imp_err_at(c->k->errors, JL_EFORMAT, c->path, row->line, 0, NULL,
                           "%zu fields, the header has %zu (CodeCarbon's append mode drops "
                           "the columns that are empty in a row, so its values cannot be "
                           "matched to columns): row skipped",
                           row->n, c->H);
        else
            jl__imp_err_at(c->k->errors, JL_ETYPE, c->path, row->line, row->f[c->col[bad]].column,
                           COLS[bad].name, "%s, found '%s': row skipped", why,
                           row->f[c->col[bad]].s);
        return;
    }
    c->n_rows++;
    if (!(w.f = calloc(row->n ? row->n : 1, sizeof *w.f))) {
        c->k->oom = 1;
        return;
    }
    w.n = row->n;
    for (size_t i = 0; i < row->n; i++)
        if (!(w.f[i] = jl__strdup(row->f[i].s))) {
            c->k->oom = 1;
            row_free(&w);
            return;
        }
    const char *run_id = c->col[C_RUN_ID] >= 0 ? w.f[c->col[C_RUN_ID]] : "";
    const char *task = c->col[C_TASK] >= 0 ? w.f[c->col[C_TASK]] : "";
    double start = w.end - w.v[C_DURATION];
    crun *u = continued(c, &w, run_id, task, start);
    if (u && w.v[C_DURATION] + 1e-9 < u->last.v[C_DURATION]) {
        c->n_merged++; /* an earlier flush read late: the run keeps its longest */
        u->n_rows++;
        row_free(&w);
        return;
    }
    if (u) {
        c->n_merged++;
        row_free(&u->last);
        u->last = w;
        u->hdr = c->hdr;
        memcpy(u->col, c->col, sizeof u->col);
        u->n_rows++;
        return;
    }
    if (c->n_runs == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 16;
        crun *p = realloc(c->runs, cap * sizeof *p);
        if (!p) {
            c->k->oom = 1;
            row_free(&w);
            return;
        }
        c->runs = p;
        c->cap = cap;
    }
    u = &c->runs[c->n_runs++];
    memset(u, 0, sizeof *u);
    u->last = w;
    u->hdr = c->hdr;
    memcpy(u->col, c->col, sizeof u->col);
    u->n_rows = 1;
    u->first_line = w.line;
    u->start = start;
    if (id_put(c, c->n_runs - 1))
        c->k->oom = 1;
}

static int header_cb(void *ctx, const jl__csv_row *row)
{
    return read_header(ctx, row);
}

/* A data row, or a header again (files appended). */
static void row_cb(void *ctx, const jl__csv_row *row)
{
    cc *c = ctx;
    if (c->stopped) {
        c->n_bad++;
        return;
    }
    if (!is_header_row(row)) {
        data_row(c, row);
        return;
    }
    int same = row->n == c->H;
    for (size_t i = 0; same && i < row->n; i++)
        same = !strcmp(row->f[i].s, c->hdr[i]);
    NOTE_CAPPED(c, N_HEADER, NULL, "line %lld: a header again (files appended)%s", row->line,
                same ? "" : " with other columns: the rows below are read by it");
    if (!same && read_header(c, row))
        c->stopped = 1; /* the error names the header; the rows below are skipped */
}

/* "2 x NVIDIA A100-SXM4-40GB" (CodeCarbon 2.x: count x name per model,
 * concatenated) -> count 2, name; a plain name -> count 0. */
static const char *gpu_name_of(const char *s, long *count)
{
    *count = 0;
    char *end = NULL;
    long n = strtol(s, &end, 10);
    if (end != s && n >= 1 && n <= 1000000 && !strncmp(end, " x ", 3)) {
        *count = n;
        return end + 3;
    }
    return s;
}

/* A summary/ number, written only when finite (an overflow is no figure). */
static void snum(cc *c, jl_run *r, const char *key, double v)
{
    if (isfinite(v))
        jl__imp_summary_num(c->k, r, key, v);
}

static double rel_diff(double published, double recomputed)
{
    return (recomputed - published) / fabs(published);
}

static void set_gpu(cc *c, const crun *u, jl_run *r, const char *name)
{
    const char *gm = text_of(u, C_GPU_MODEL);
    long pc = 0;
    const char *gname = gpu_name_of(gm, &pc);
    if (!r->attrs.gpu_model && gname[0]) {
        char id[128];
        double mem = NAN;
        if (!jl__imp_gpu_name(gname, id, sizeof id, &mem))
            NOTE_CAPPED(c, N_GPU_NAME, "gpu_model",
                        "GPU name '%s' is not in joules' GPU table: gpu_model '%s'", gname, id);
        if (strstr(gname, " x "))
            NOTE_CAPPED(c, N_GPU_MIXED, "gpu_model",
                        "run %s: several GPU models ('%s'): gpu_model is the first's", name, gm);
        r->attrs.gpu_model = jl__strdup(id);
        if (!r->attrs.gpu_model)
            c->k->oom = 1;
        if (isnan(r->attrs.gpu_memory_bytes) && isfinite(mem))
            r->attrs.gpu_memory_bytes = mem;
    }
    double gc = u->last.v[C_GPU_COUNT];
    if (r->attrs.num_gpus < 1) {
        if (isfinite(gc) && gc >= 1 && gc == floor(gc) && gc <= 1e6)
            r->attrs.num_gpus = (long)gc;
        else if (pc >= 1)
            r->attrs.num_gpus = pc;
    }
}

/* emissions_rate in kg/s, read in the unit of the file's version: CodeCarbon
 * up to 2.1.x wrote emissions * 1000 / duration (g/s), 2.2.0 (the release
 * that added the codecarbon_version column) emissions / duration (kg/s).
 * A file without the column is before 2.2.0. Where emissions and duration
 * say otherwise (rate x duration = emissions in the other unit only), the
 * file's own numbers win, with a note; without them the unit is assumed
 * from the version (units_assumed, docs/import.md, "CodeCarbon"). */
static double emissions_rate(cc *c, const crun *u, jl_run *r, const char *name)
{
    const double *v = u->last.v;
    double x = v[C_EMISSIONS_RATE], dur = v[C_DURATION], e = v[C_EMISSIONS];
    if (!isfinite(x))
        return NAN;
    const char *ver = text_of(u, C_VERSION);
    int major = 0, minor = 0;
    int known = ver[0] && sscanf(ver, "%d.%d", &major, &minor) == 2;
    int grams = !known || major < 2 || (major == 2 && minor < 2);
    double kg = grams ? x / 1000 : x, other = grams ? x : x / 1000;
    int checkable = isfinite(e) && e > 0 && isfinite(dur) && dur > 0;
    if (checkable && fabs(rel_diff(e, kg * dur)) > 0.01 && fabs(rel_diff(e, other * dur)) <= 0.01) {
        jl__imp_note(c->k, c->path, "emissions_rate",
                     "run %s: emissions_rate x duration matches emissions in %s, not in the %s "
                     "its version (%s) writes: read as %s",
                     name, grams ? "kg/s" : "g/s", grams ? "g/s" : "kg/s",
                     ver[0] ? ver : "no codecarbon_version: before 2.2.0", grams ? "kg/s" : "g/s");
        return other;
    }
    if (!checkable && !known)
        jl__imp_reason(c->k, r, JL__R_UNITS_ASSUMED, NAN, c->path,
                       "emissions_rate read as g/s: the file has no codecarbon_version (CodeCarbon "
                       "before 2.2.0 wrote g/s, 2.2.0 and later kg/s) and no emissions to check "
                       "it against");
    return kg;
}

/* The published figures of the run's last row into summary/, with the
 * identities checked. */
static void figures(cc *c, const crun *u, jl_run *r, const char *name, int gpu_tracked)
{
    const double *v = u->last.v;
    const long long line = u->last.line;
    jl_run_summary_attrs *s = &r->summary;
    s->present = 1;
    jl__imp_summary_str(c->k, r, "source", SOURCE);
    /* the boundary of the published figures (docs/summary.md): the tracker's
     * whole duration; GPU energy at gpu scope, cpu + gpu + ram the GPUs + host */
    jl__imp_summary_str(c->k, r, "boundary_window", "run");
    jl__imp_summary_str(c->k, r, "boundary_scope", "gpu");
    jl__imp_summary_str(c->k, r, "total_scope", "host");
    const double pue = isfinite(v[C_PUE]) ? v[C_PUE] : 1.0;
    const double dur = v[C_DURATION];
    const double to_j = KWH_J / pue;
    jl__strbuf der;
    jl__strbuf_init(&der);
    jl__strbuf_puts(&der, "energies in J = kWh x 3.6e6 / pue (CodeCarbon's energies include its "
                          "PUE)");
    s->steady_state_duration_s = dur;
    snum(c, r, "run_duration_s", dur);
    const double gpu = gpu_tracked ? v[C_GPU_ENERGY] * to_j : NAN;
    const double cpu = v[C_CPU_ENERGY] * to_j, ram = v[C_RAM_ENERGY] * to_j;
    if (isfinite(gpu)) {
        s->steady_state_energy_j = gpu;
        snum(c, r, "run_energy_j", gpu);
        if (dur > 0 && isfinite(gpu / dur)) {
            s->avg_power_w = gpu / dur;
            jl__strbuf_puts(&der, "; avg_power_w = GPU energy / duration");
        }
    }
    if (isfinite(cpu))
        snum(c, r, "cpu_energy_j", cpu);
    if (isfinite(ram))
        snum(c, r, "ram_energy_j", ram);
    if (isfinite(cpu) && isfinite(ram))
        snum(c, r, "host_energy_j", cpu + ram);
    /* energy_consumed against its parts */
    const double parts_kwh = v[C_CPU_ENERGY] + v[C_GPU_ENERGY] + v[C_RAM_ENERGY];
    if (isfinite(v[C_ENERGY])) {
        snum(c, r, "total_energy_j", v[C_ENERGY] * to_j);
        snum(c, r, "facility_energy_j", v[C_ENERGY] * KWH_J);
        if (isfinite(parts_kwh)) {
            snum(c, r, "total_energy_j_recomputed", parts_kwh * to_j);
            double d = rel_diff(v[C_ENERGY], parts_kwh);
            if (fabs(d) > AGREE_REL && fabs(v[C_ENERGY] - parts_kwh) > 1e-15)
                NOTE_CAPPED(c, N_ENERGY, "energy_consumed",
                            "run %s (line %lld): energy_consumed %.9g kWh, cpu + gpu + ram "
                            "energy %.9g kWh (%+.3g %%): the published figure is kept",
                            name, line, v[C_ENERGY], parts_kwh, 100 * d);
        }
    } else if (isfinite(parts_kwh)) {
        snum(c, r, "total_energy_j", parts_kwh * to_j);
        jl__strbuf_puts(&der, "; total_energy_j = cpu + gpu + ram energy (no energy_consumed)");
    }
    /* emissions, their rate, the intensity CodeCarbon applied */
    const double rate_kg_s = emissions_rate(c, u, r, name);
    if (isfinite(v[C_EMISSIONS])) {
        snum(c, r, "emissions_kg", v[C_EMISSIONS]);
        if (isfinite(v[C_ENERGY]) && v[C_ENERGY] > 0) {
            double g_kwh = v[C_EMISSIONS] * 1000.0 / v[C_ENERGY];
            if (isfinite(g_kwh))
                jl__imp_extra_num(c->k, r, "grid_intensity_g_per_kwh", g_kwh);
            jl__strbuf_puts(&der, "; @grid_intensity_g_per_kwh = emissions / energy_consumed "
                                  "(the intensity CodeCarbon applied, per kWh with PUE)");
        }
        if (isfinite(rate_kg_s) && isfinite(dur) && dur > 0) {
            double re = rate_kg_s * dur;
            snum(c, r, "emissions_kg_recomputed", re);
            double d = v[C_EMISSIONS] > 0 ? rel_diff(v[C_EMISSIONS], re) : 0;
            if (fabs(d) > AGREE_REL)
                NOTE_CAPPED(c, N_EMISSIONS, "emissions_rate",
                            "run %s (line %lld): emissions %.9g kg, emissions_rate x duration "
                            "%.9g kg (%+.3g %%): the published figure is kept",
                            name, line, v[C_EMISSIONS], re, 100 * d);
        }
    }
    if (isfinite(rate_kg_s))
        snum(c, r, "emissions_rate_kg_s", rate_kg_s);
    if (isfinite(v[C_WATER]))
        snum(c, r, "water_consumed_l", v[C_WATER]);
    static const struct {
        int col;
        const char *key;
    } last_power[] = {{C_CPU_POWER, "last_cpu_power_w"},
                      {C_GPU_POWER, "last_gpu_power_w"},
                      {C_RAM_POWER, "last_ram_power_w"}};
    for (size_t j = 0; j < 3; j++)
        if (isfinite(v[last_power[j].col]))
            snum(c, r, last_power[j].key, v[last_power[j].col]);
    jl__imp_extra_num(c->k, r, "pue", pue);
    if (!isfinite(v[C_PUE]))
        jl__imp_note(c->k, c->path, "pue",
                     "no pue: energies taken as written (CodeCarbon before its pue option "
                     "applied none)");
    char *d = jl__strbuf_take(&der);
    if (!d)
        c->k->oom = 1;
    else
        jl__imp_summary_str(c->k, r, "derived", d);
    free(d);
}

static void build_run(cc *c, crun *u)
{
    jl_run *r = jl_run_new();
    if (!r) {
        c->k->oom = 1;
        return;
    }
    const char *proj = text_of(u, C_PROJECT), *rid = text_of(u, C_RUN_ID),
               *task = text_of(u, C_TASK), *ts = text_of(u, C_TIMESTAMP);
    char *base = jl__asprintf("%s__%s", proj[0] ? proj : "codecarbon",
                              task[0]  ? task
                              : rid[0] ? rid
                              : ts[0]  ? ts
                                       : "run");
    r->name = base ? jl__imp_sanitize(base) : NULL;
    free(base);
    if (!r->name) {
        jl_run_free(r);
        c->k->oom = 1;
        return;
    }
    jl__imp_sets_apply(c->k, c->sets, r);
    const double *v = u->last.v;
    /* a GPU energy of 0 where CodeCarbon found no GPU is "not tracked" */
    int gpu_tracked = isfinite(v[C_GPU_ENERGY]) &&
                      (v[C_GPU_ENERGY] > 0 || v[C_GPU_COUNT] >= 1 || text_of(u, C_GPU_MODEL)[0]);
    if (isfinite(v[C_GPU_ENERGY]) && !gpu_tracked)
        jl__imp_note(c->k, c->path, "gpu_energy",
                     "a row without gpu_count or gpu_model and gpu_energy 0: no GPU was "
                     "tracked, the GPU energy is missing (not 0)");
    set_gpu(c, u, r, r->name);
    figures(c, u, r, r->name, gpu_tracked);
    if (isfinite(u->start))
        r->attrs.start_time_unix = u->start;
    /* every column as written */
    for (size_t i = 0; i < u->last.n; i++) {
        if (!u->hdr[i][0] || !u->last.f[i][0])
            continue;
        char *key = jl__asprintf("codecarbon_%s", u->hdr[i]);
        double x;
        if (!key)
            c->k->oom = 1;
        else
            jl__imp_extra_text(c->k, r, key, u->last.f[i], jl__imp_number(u->last.f[i], &x));
        free(key);
    }
    jl__imp_extra_default(c->k, r, "source", "codecarbon", 0);
    jl__imp_extra_path(c->k, r, "codecarbon_file", c->path);
    if (u->n_rows > 1)
        jl__imp_extra_num(c->k, r, "codecarbon_flushes", (double)u->n_rows);
    jl__strbuf nb;
    jl__strbuf_init(&nb);
    if (r->attrs.notes)
        jl__strbuf_printf(&nb, "%s ", r->attrs.notes);
    jl__strbuf_printf(&nb,
                      "Imported from CodeCarbon's emissions.csv %s, line %lld%s. CodeCarbon "
                      "measures a %s (tracking_mode %s) over whatever it ran: no tokens, "
                      "requests or items, so no energy per token, request or item; what can be "
                      "analysed is its energy by component (GPU, CPU + RAM as host), duration, "
                      "average GPU power, emissions and the intensity it applied.",
                      c->path, u->last.line,
                      u->n_rows > 1 ? " (the last of its flushes: totals since start)" : "",
                      !strcmp(text_of(u, C_TRACKING), "process") ? "process" : "machine",
                      text_of(u, C_TRACKING)[0] ? text_of(u, C_TRACKING) : "not written");
    free(r->attrs.notes);
    r->attrs.notes = jl__strbuf_take(&nb);
    if (!r->attrs.notes)
        c->k->oom = 1;
    char *miss = jl__imp_missing_required(&r->attrs);
    if (miss) {
        jl__imp_err_at(c->k->errors, JL_EMISSING, c->path, u->last.line, 0, miss,
                       "run %s: required attribute%s not given: %s (CodeCarbon writes %s): "
                       "give %s with --set KEY=VALUE (docs/import.md, \"CodeCarbon\")",
                       r->name, strchr(miss, ',') ? "s" : "", miss,
                       strstr(miss, "gpu") || strstr(miss, "num_gpus")
                           ? "no GPU model or count for this row"
                           : "no model, task, precision or batch cap",
                       strchr(miss, ',') ? "them" : "it");
        free(miss);
        jl_run_free(r);
        return;
    }
    jl__imp_push_run(c->k, r);
}

static void cc_free(cc *c)
{
    for (size_t i = 0; i < c->n_runs; i++)
        row_free(&c->runs[i].last);
    free(c->runs);
    jl__strmap_free(&c->ids);
    for (size_t h = 0; h < c->n_hdrs; h++) {
        for (size_t i = 0; i < c->hdrs[h].n; i++)
            free(c->hdrs[h].h[i]);
        free(c->hdrs[h].h);
    }
    free(c->hdrs);
}

static const jl_importer_option cc_options[] = {
    {"set", "KEY=VALUE",
     "a run attribute for every run (repeatable): workload, model, task, precision and "
     "max_batch_size are required (CodeCarbon records none), gpu_model and num_gpus where a row "
     "has no gpu_model/gpu_count"},
    {"timezone", "ZONE",
     "zone of the timestamps (CodeCarbon writes the machine's local time without one; default "
     "UTC)"},
    {NULL, NULL, NULL},
};

static jl_status cc_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                        size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    *out = NULL;
    jl__imp_sets sets;
    jl__imp k;
    jl_status st = jl__imp_sets_start(&k, &sets, args, n_args, 1, n_paths ? paths[0] : NULL,
                                      "CodeCarbon", errors);
    if (st != JL_OK)
        return st;
    jl__zone *zone = NULL;
    jl_error *err = NULL;
    if (jl__zone_open(sets.timezone ? sets.timezone : "UTC", &zone, &err) != JL_OK) {
        jl_error_list_push(errors,
                           err ? err
                               : jl_error_new(JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory"));
        jl__imp_sets_free(&sets);
        return jl__imp_end(&k, err ? JL_EUSAGE : JL_ENOMEM, out);
    }
    size_t rows = 0, merged = 0, bad = 0;
    for (size_t p = 0; p < n_paths && !k.oom; p++) {
        cc c = {0};
        c.k = &k;
        c.sets = &sets;
        c.zone = zone;
        c.path = paths[p];
        jl__imp_csv_each(&k, c.path, &c, header_cb, row_cb);
        int gpu_given = 0;
        for (size_t i = 0; i < sets.n; i++)
            gpu_given |= !strcmp(sets.kv[i].key, "gpu_model");
        if (c.n_runs && c.col[C_GPU_MODEL] < 0 && !gpu_given)
            jl__imp_err_at(errors, JL_EMISSING, c.path, 0, 0, "gpu_model",
                           "no gpu_model column (older CodeCarbon versions write none): give the "
                           "GPUs with --set gpu_model=NAME --set num_gpus=N; nothing imported "
                           "from this file");
        else
            for (size_t i = 0; i < c.n_runs && !k.oom; i++)
                build_run(&c, &c.runs[i]);
        if (c.n_hdrs && !sets.timezone && c.col[C_TIMESTAMP] >= 0)
            jl__imp_note(&k, c.path, "timestamp",
                         "timestamps read as UTC: CodeCarbon writes the machine's local time "
                         "without a zone (give --timezone ZONE)");
        for (int n = 0; n < N_NOTE_KINDS; n++)
            if (c.n_note[n] > MAX_DETAILED)
                jl__imp_note(&k, c.path, NOTE_FIELD[n], "%zu more notes like the ones above",
                             c.n_note[n] - MAX_DETAILED);
        if (c.n_merged)
            jl__imp_note(&k, c.path, "run_id",
                         "%zu rows were flushes of a run written again later (cumulative "
                         "totals since start()): each run is its last row",
                         c.n_merged);
        rows += c.n_rows;
        merged += c.n_merged;
        bad += c.n_bad;
        k.res->n_files++;
        cc_free(&c);
    }
    jl__imp_detail_num(&k, "n_rows", (double)rows);
    jl__imp_detail_num(&k, "flushes_merged", (double)merged);
    jl__imp_detail_num(&k, "rows_skipped", (double)bad);
    jl__imp_detail(&k, "timezone", jl__zone_name(zone), 0);
    k.res->source = jl__strdup(SOURCE);
    k.res->detail_text =
        jl__asprintf("%zu rows, %zu flushes merged, %zu notes", rows, merged, k.res->n_notes);
    if (!k.res->source || !k.res->detail_text)
        k.oom = 1;
    jl__zone_free(zone);
    jl__imp_sets_free(&sets);
    return jl__imp_finish(&k, out, n_paths ? paths[0] : NULL);
}

const jl_importer jl__importer_codecarbon = {
    .name = "codecarbon",
    .summary = "CodeCarbon's emissions.csv (CPU, GPU and RAM energy, emissions, PUE per run)",
    .paths = "emissions.csv...",
    .description =
        "Import the emissions.csv CodeCarbon's EmissionsTracker writes (save_to_file): one\n"
        "row per stop() or flush(), columns read by name for every version's layout (unknown\n"
        "ones kept as codecarbon_<name>). The rows of one run (a run_id flushed several\n"
        "times: totals since start) are one run, its last row. Each run is summary-only:\n"
        "GPU energy, host energy (CPU + RAM), total energy, duration and average GPU power\n"
        "in summary/ (kWh to J, CodeCarbon's PUE taken back out), emissions, the rate, the\n"
        "intensity applied (@grid_intensity_g_per_kwh) and @pue; energy_consumed = cpu +\n"
        "gpu + ram and emissions = rate x duration are recomputed and a difference is a\n"
        "note. CodeCarbon records no model, task, precision or batch cap: give them with\n"
        "--set. No tokens: no energy per token. import.md, \"CodeCarbon\".\n",
    .options = cc_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = cc_run,
};
