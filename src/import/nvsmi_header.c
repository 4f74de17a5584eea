/* nvidia-smi logs: the header line (or --columns) and its columns, and the
 * files that are not a plain CSV log: nvidia-smi's other outputs, named;
 * `nvidia-smi dmon -o DT` and ';'-separated logs, read as CSV rows
 * (nvsmi_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "import/nvsmi_internal.h"

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
        return 2; /* ';' between fields: read as such (jl__nvsmi_semi_row) */
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
int jl__nvsmi_semi_row(log_data *L, const jl__csv_row *in, jl__csv_row *out)
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
int jl__nvsmi_dmon_row(log_data *L, const jl__csv_row *in, jl__csv_row *out)
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

/* The header row, or --columns (names split at ','). */
jl_status jl__nvsmi_read_header(log_data *L, const jl__csv_row *row)
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
        if (jl__nvsmi_semi_row(L, row, &semi) < 0)
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
void jl__nvsmi_layout_columns(log_data *L, reader *rd)
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
