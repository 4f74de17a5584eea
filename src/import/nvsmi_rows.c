/* nvidia-smi logs: the rows -- each value parsed (units, missing values,
 * decimal commas, throttle reasons), each row's time and GPU, and the rows
 * grouped into samples (nvsmi_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

#include "import/nvsmi_internal.h"

/* A log to read from path: notes to k, errors to errors; NULL when out of
 * memory. The one start of every read (in memory, streamed, first pass). */
log_data *jl__nvsmi_log_new(const char *path, jl__imp *k, jl_error_list *errors,
                            const jl_import_nvsmi_options *opt, jl__zone *zone)
{
    log_data *L = calloc(1, sizeof *L);
    if (!L || !(L->path = jl__strdup(path))) {
        free(L);
        return NULL;
    }
    L->k = k;
    L->errors = errors;
    L->opt = opt;
    L->zone = zone;
    L->last_t = NAN;
    L->min_dt = NAN;
    return L;
}

void jl__nvsmi_log_free(log_data *L)
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

/* Group rows into samples, keyed by GPU: a row joins the current sample
 * unless its GPU is in it already. A GPU missing from a poll must not pull
 * the next poll's row into this sample: a row whose GPU does not come after
 * the current sample's last one (in the order of the first poll, which
 * numbers the slots) starts the next sample, unless it is within half the
 * log's shortest poll gap of the sample's first row (a poll whose rows came
 * in another GPU order). */
/* A logger's own header whose GPU number sits in a column nvidia-smi has
 * no field for ("gpu", "gpu_id", "device"...) beside an 'index' column that
 * does not tell the GPUs apart (a wrapper's shifted names): the --columns
 * line that reads the GPU from that column, into buf ("" when the header has
 * no such column). */
static void gpu_column_hint(const log_data *L, char *buf, size_t cap)
{
    static const char *const gpu_names[] = {"gpu",    "gpu_id",    "gpu_index", "gpu_idx",
                                            "device", "device_id", "gpu_num"};
    buf[0] = '\0';
    size_t g = (size_t)-1;
    for (size_t i = 0; i < L->n_cols && g == (size_t)-1; i++)
        for (size_t j = 0; j < sizeof gpu_names / sizeof gpu_names[0]; j++)
            if (L->cols[i].k == K_OTHER && !strcasecmp(L->cols[i].name, gpu_names[j]))
                g = i;
    if (g == (size_t)-1 || L->opt->columns)
        return;
    int w = snprintf(buf, cap,
                     "; the GPUs are not told apart by the 'index' column: if the column '%s' "
                     "holds the GPU index, name the columns so (the header line is then "
                     "skipped): --columns ",
                     L->cols[g].name);
    size_t k = w > 0 && (size_t)w < cap ? (size_t)w : 0;
    for (size_t i = 0; k && i < L->n_cols; i++) {
        const col *c = &L->cols[i];
        const char *name = i == g ? "index" : c->k == K_INDEX ? "index_as_logged" : c->name;
        w = snprintf(buf + k, cap - k, "%s%s", i ? "," : "", name);
        if (w < 0 || (size_t)w >= cap - k) {
            buf[0] = '\0';
            return;
        }
        k += (size_t)w;
    }
}

static jl_status add_row(log_data *L, const prow *r)
{
    int same_poll = L->n > 0 && isfinite(L->min_dt) && r->t - L->sample_t0 < 0.5 * L->min_dt;
    if (L->n == 0 || L->seen[r->slot] || (r->slot <= L->last_slot && !same_poll)) {
        double dt = r->t - L->sample_t0;
        int began = L->n_samples > 0 ? jl__nvsmi_new_session(L, r, dt) : 0;
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
    if (!isnan(L->gpu_last_t[r->slot]) && r->t == L->gpu_last_t[r->slot]) {
        char hint[1024];
        gpu_column_hint(L, hint, sizeof hint);
        return LERR(L, JL_EINVALID, r->line, 1, "timestamp",
                    "duplicate timestamp for GPU %zu: line %lld has the same time%s", r->slot,
                    L->gpu_last_line[r->slot], hint);
    }
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
        int k = jl__nvsmi_dmon_row(L, row, &dm);
        if (k <= 0)
            return k < 0 ? JL_ENOMEM : JL_OK;
        row = &dm;
    } else if (L->semi) {
        if (jl__nvsmi_semi_row(L, row, &dm) < 0)
            return JL_ENOMEM;
        row = &dm;
    }
    if (rd->cidx[K_TIME] < 0) {
        jl__nvsmi_layout_columns(L, rd);
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
    if (jl__nvsmi_repeats_header(L, row)) {
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
jl_status jl__nvsmi_read_log(log_data *L, jl__csv *csv)
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
    if (L->opt->columns && (st = jl__nvsmi_read_header(L, NULL)) != JL_OK)
        return st;
    while (st == JL_OK && (r = jl__csv_next(csv, &row, &err)) > 0)
        st = L->cols ? data_row(L, &rd, &row) : jl__nvsmi_read_header(L, &row);
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
