/* Carbon and facility over time: a grid-intensity or PUE series read from
 * CSV (Electricity Maps and WattTime layouts), and emissions integrated over
 * a run's power samples (docs/accounting.md, "Carbon and facility over
 * time"). */
#define _DEFAULT_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "account/account_internal.h"
#include "core/civil_time.h"
#include "core/csv.h"
#include "core/stats.h"
#include "core/util.h"
#include "joules/carbon.h"

/* Pieces: value v[i] holds over [t[i], end[i]); a constant is one piece
 * over (-inf, inf). Adjacent pieces with the same value are one piece. */
struct jl_tseries {
    double *t, *end, *v;
    size_t n;
};

void jl_tseries_free(jl_tseries *s)
{
    if (!s)
        return;
    free(s->t);
    free(s->end);
    free(s->v);
    free(s);
}

static jl_tseries *alloc_series(size_t n)
{
    jl_tseries *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->t = malloc((n ? n : 1) * sizeof *s->t);
    s->end = malloc((n ? n : 1) * sizeof *s->end);
    s->v = malloc((n ? n : 1) * sizeof *s->v);
    if (!s->t || !s->end || !s->v) {
        jl_tseries_free(s);
        return NULL;
    }
    return s;
}

jl_tseries *jl_tseries_constant(double v)
{
    jl_tseries *s = alloc_series(1);
    if (s) {
        s->t[0] = -INFINITY;
        s->end[0] = INFINITY;
        s->v[0] = v;
        s->n = 1;
    }
    return s;
}

size_t jl_tseries_count(const jl_tseries *s)
{
    return s->n;
}

int jl_tseries_is_constant(const jl_tseries *s)
{
    return s->n == 1 && isinf(s->t[0]) && isinf(s->end[0]);
}

/* The first piece starting after t (s->n: none). */
static size_t first_after(const jl_tseries *s, double t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->t[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The piece holding t, or -1. */
static long piece_at(const jl_tseries *s, double t)
{
    size_t lo = first_after(s, t);
    if (lo == 0)
        return -1;
    return t < s->end[lo - 1] ? (long)(lo - 1) : -1;
}

double jl_tseries_at(const jl_tseries *s, double t)
{
    long i = piece_at(s, t);
    return i < 0 ? NAN : s->v[i];
}

double jl_tseries_integral(const jl_tseries *s, double t0, double t1)
{
    double sum = 0, t = t0;
    while (t < t1) {
        long i = piece_at(s, t);
        if (i < 0)
            return NAN;
        double e = s->end[i] < t1 ? s->end[i] : t1;
        sum += (e - t) * s->v[i];
        t = e;
    }
    return sum;
}

/* ---- CSV ---- */

/* ISO 8601 (core's parser with its short forms: a date alone, HH:MM; no
 * zone: UTC), or Unix seconds. 0 and *t on success. */
int jl_time_parse(const char *s, double *t)
{
    jl__civil c;
    if (jl__civil_parse_short(s, &c)) {
        *t = jl__civil_utc(&c) - c.offset_s;
        return 0;
    }
    while (isspace((unsigned char)*s))
        s++;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (end && isspace((unsigned char)*end))
        end++;
    if (errno || end == s || *end || !isfinite(v))
        return -1;
    *t = v;
    return 0;
}

static int find_col(const jl__csv_row *row, const char *const *names)
{
    for (size_t k = 0; names[k]; k++)
        for (size_t i = 0; i < row->n; i++)
            if (!strcasecmp(row->f[i].s, names[k]))
                return (int)i;
    return -1;
}

static jl_status load_rows(jl__csv *csv, jl_intensity_kind kind, const char *column,
                           jl_tseries **out, jl_error **err)
{
    static const char *const time_cols[] = {"datetime", "Datetime (UTC)", "point_time", "timestamp",
                                            "time",     "date",           NULL};
    static const char *const avg_cols[] = {"value",
                                           "Carbon Intensity gCO\xe2\x82\x82"
                                           "eq/kWh (direct)",
                                           "Carbon Intensity gCO\xe2\x82\x82"
                                           "eq/kWh (LCA)",
                                           "carbon_intensity_avg",
                                           "carbonIntensity",
                                           "average",
                                           "carbon_intensity",
                                           "pue",
                                           NULL};
    static const char *const marg_cols[] = {"marginal", "moer", "marginal_carbon_intensity",
                                            "value", NULL};
    const char *path = jl__csv_name(csv);
    *out = NULL;
    size_t n = 0, vcap = 0;
    double *ts = NULL, *vs = NULL;
    jl_status st = JL_OK;
    jl__csv_row row;
    int got, tcol = -1, vcol = -1, unitcol = -1, lbs = 0;
    char tname[128] = "", vname[128] = ""; /* the header's names, for messages */
    while (st == JL_OK && (got = jl__csv_next(csv, &row, err)) > 0) {
        if (row.f[0].column == 1 && row.f[0].s[0] == '#')
            continue; /* a comment line */
        size_t nf = row.n;
        if (tcol < 0) {
            const char *const one[] = {column, NULL};
            tcol = find_col(&row, time_cols);
            vcol = column ? find_col(&row, one)
                          : find_col(&row, kind == JL_INTENSITY_MARGINAL ? marg_cols : avg_cols);
            const char *const units[] = {"units", "unit", NULL};
            unitcol = find_col(&row, units);
            /* WattTime's exports: point_time, value in lbs CO2 per MWh */
            const char *const wt[] = {"point_time", NULL};
            lbs = find_col(&row, wt) >= 0;
            if (vcol >= 0 && strstr(row.f[vcol].s, "lbs"))
                lbs = 1;
            if (tcol >= 0)
                snprintf(tname, sizeof tname, "%s", row.f[tcol].s);
            if (vcol >= 0)
                snprintf(vname, sizeof vname, "%s", row.f[vcol].s);
            if (tcol < 0 || vcol < 0) {
                st = jl_fail(err, JL_EINVALID, path, NULL, NULL, -1,
                             "no %s column in the header (%s)", tcol < 0 ? "time" : "value",
                             tcol < 0 ? "datetime, Datetime (UTC), point_time, timestamp, time"
                             : column ? column
                             : kind == JL_INTENSITY_MARGINAL
                                 ? "marginal, moer, marginal_carbon_intensity, value"
                                 : "value, Carbon Intensity gCO2eq/kWh (direct|LCA), "
                                   "carbon_intensity_avg, carbonIntensity, average, pue");
                if (err && *err)
                    jl_error_set_position(*err, row.line, 0);
            }
            continue;
        }
        double t, v;
        char *end = NULL;
        const char *tf = (size_t)tcol < nf ? row.f[tcol].s : "";
        if ((size_t)tcol >= nf || (size_t)vcol >= nf || jl_time_parse(tf, &t)) {
            st = jl_fail(err, JL_EINVALID, path, NULL, NULL, -1,
                         "column '%s': '%s' is not an ISO 8601 time or Unix seconds", tname, tf);
            if (err && *err)
                jl_error_set_position(*err, row.line, 0);
            break;
        }
        const char *vf = row.f[vcol].s;
        if (!*vf)
            continue; /* a gap: the previous value holds at most one step */
        errno = 0;
        v = strtod(vf, &end);
        if (errno || !end || *end || !isfinite(v) || v < 0) {
            st = jl_fail(err, JL_EINVALID, path, NULL, NULL, -1,
                         "column '%s': '%s' is not a number >= 0", vname, vf);
            if (err && *err)
                jl_error_set_position(*err, row.line, 0);
            break;
        }
        int row_lbs = lbs;
        if (unitcol >= 0 && (size_t)unitcol < nf)
            row_lbs = strstr(row.f[unitcol].s, "lbs") != NULL;
        if (row_lbs)
            v *= 0.45359237; /* lbs/MWh -> g/kWh */
        if (n && t <= ts[n - 1]) {
            st = jl_fail(err, JL_EINVALID, path, NULL, NULL, -1,
                         "column '%s': times must increase: '%s' is not after the row before",
                         tname, tf);
            if (err && *err)
                jl_error_set_position(*err, row.line, 0);
            break;
        }
        if (n == vcap) {
            vcap = vcap ? 2 * vcap : 256;
            double *a = realloc(ts, vcap * sizeof *a),
                   *b = a ? realloc(vs, vcap * sizeof *b) : NULL;
            if (a)
                ts = a;
            if (b)
                vs = b;
            if (!a || !b) {
                st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "out of memory");
                break;
            }
        }
        ts[n] = t;
        vs[n++] = v;
    }
    if (st == JL_OK && got < 0)
        st = err && *err ? (*err)->code : JL_EINVALID;
    if (st == JL_OK && n == 0)
        st = jl_fail(err, JL_ENODATA, path, NULL, NULL, -1, "no rows with a value");
    jl_tseries *s = NULL;
    if (st == JL_OK && !(s = alloc_series(n)))
        st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "out of memory");
    if (st == JL_OK) {
        /* the step: the median spacing (3600 s for one row) */
        double step = 3600;
        if (n > 1) {
            double *d = malloc((n - 1) * sizeof *d);
            if (!d) {
                st = jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "out of memory");
            } else {
                for (size_t i = 0; i + 1 < n; i++)
                    d[i] = ts[i + 1] - ts[i];
                step = jl__kth_d(d, n - 1, (n - 2) / 2); /* the lower median */
                free(d);
            }
        }
        for (size_t i = 0; st == JL_OK && i < n; i++) {
            double end = i + 1 < n && ts[i + 1] - ts[i] <= step ? ts[i + 1] : ts[i] + step;
            if (s->n && s->v[s->n - 1] == vs[i] && s->end[s->n - 1] == ts[i]) {
                s->end[s->n - 1] = end; /* the same value goes on: one piece */
                continue;
            }
            s->t[s->n] = ts[i];
            s->end[s->n] = end;
            s->v[s->n++] = vs[i];
        }
    }
    free(ts);
    free(vs);
    if (st != JL_OK) {
        jl_tseries_free(s);
        return st;
    }
    *out = s;
    return JL_OK;
}

jl_status jl_tseries_load_csv(const char *path, jl_intensity_kind kind, const char *column,
                              jl_tseries **out, jl_error **err)
{
    *out = NULL;
    jl__csv *csv = NULL;
    jl_status st = jl__csv_open_file(path, &csv, err);
    if (st != JL_OK)
        return st;
    st = load_rows(csv, kind, column, out, err);
    jl__csv_close(csv);
    return st;
}

jl_status jl_tseries_load_csv_buffer(const char *buf, size_t len, const char *name,
                                     jl_intensity_kind kind, const char *column, jl_tseries **out,
                                     jl_error **err)
{
    *out = NULL;
    if (!len)
        return jl_fail(err, JL_ENODATA, name, NULL, NULL, -1, "no rows with a value");
    jl__csv *csv = NULL;
    jl_status st = jl__csv_open_buffer(buf, len, name, &csv, err);
    if (st != JL_OK)
        return st;
    st = load_rows(csv, kind, column, out, err);
    jl__csv_close(csv);
    return st;
}

/* text starts like a number ("0.4", "-3", ".5", "400g/kWh"): it is one */
static int looks_numeric(const char *text)
{
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == '+' || *p == '-')
        p++;
    return (*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9');
}

jl_status jl_tseries_parse(const char *arg, jl_intensity_kind kind, jl_tseries **out,
                           jl_error **err)
{
    *out = NULL;
    if (looks_numeric(arg) && access(arg, R_OK) != 0) {
        double v;
        jl_status st = jl_intensity_parse(arg, &v, err);
        if (st != JL_OK)
            return st;
        *out = jl_tseries_constant(v);
        return *out ? JL_OK : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    jl_status st = jl_tseries_load_csv(arg, kind, NULL, out, err);
    if (st != JL_OK)
        return st;
    double m = jl_tseries_mean(*out);
    if (isfinite(m) && (m < JL_INTENSITY_MIN || m > JL_INTENSITY_MAX)) {
        jl_tseries_free(*out);
        *out = NULL;
        return jl_fail(err, JL_EUSAGE, arg, NULL, NULL, -1,
                       "the series' values average %.6g, outside %g..%g gCO2eq/kWh: %s (convert "
                       "the column to g/kWh, or name a column in g/kWh)",
                       m, JL_INTENSITY_MIN, JL_INTENSITY_MAX,
                       m < JL_INTENSITY_MIN ? "kg/kWh or t/MWh read as g/kWh?"
                                            : "g/MWh or mg/kWh read as g/kWh?");
    }
    return JL_OK;
}

double jl_tseries_mean(const jl_tseries *s)
{
    if (jl_tseries_is_constant(s))
        return s->v[0];
    double sum = 0, span = 0;
    for (size_t i = 0; i < s->n; i++) {
        sum += (s->end[i] - s->t[i]) * s->v[i];
        span += s->end[i] - s->t[i];
    }
    return span > 0 ? sum / span : NAN;
}

double jl_tseries_cleanest(const jl_tseries *s, double lo, double hi, double duration,
                           double *best_start)
{
    double best = NAN;
    *best_start = NAN;
    if (!(duration > 0) || !s->n)
        return NAN;
    if (lo < s->t[0])
        lo = s->t[0];
    if (hi > s->end[s->n - 1])
        hi = s->end[s->n - 1];
    if (!isfinite(lo) || !isfinite(hi))
        return NAN;
    for (size_t i = 0; i <= s->n; i++) {
        double start = i == 0 ? lo : s->t[i - 1];
        if (start < lo || start + duration > hi)
            continue;
        double m = jl_tseries_integral(s, start, start + duration) / duration;
        if (isfinite(m) && !(m >= best)) {
            best = m;
            *best_start = start;
        }
    }
    return best;
}

/* ---- emissions ---- */

/* The next breakpoint of s after t (inf when none). */
static double next_break(const jl_tseries *s, double t)
{
    long i = piece_at(s, t);
    if (i >= 0)
        return s->end[i];
    return INFINITY;
}

jl_status jl_emissions_integrate(const double *time_s, const double *watts, size_t n, double t0,
                                 const jl_tseries *pue, const jl_tseries *intensity,
                                 jl_emissions *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    out->t0 = out->t1 = out->pue = out->intensity = NAN;
    if (n < 2)
        return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                       "fewer than two power samples to integrate");
    int constant = jl_tseries_is_constant(pue) && jl_tseries_is_constant(intensity);
    if (!constant && !isfinite(t0))
        return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                       "the run has no wall-clock start (start_time_unix): a time series "
                       "cannot be placed; give --start TIME");
    double energy = 0, facility = 0, grams = 0;
    /* one piece of each series over the whole run: the products in one
     * step, so a constant series gives the constant's figures exactly */
    double a = t0 + time_s[0], b = t0 + time_s[n - 1];
    long pp = piece_at(pue, constant ? 0 : a), pi = piece_at(intensity, constant ? 0 : a);
    if (pp < 0 || pi < 0)
        goto outside;
    if (constant || (next_break(pue, a) >= b && next_break(intensity, a) >= b)) {
        for (size_t i = 0; i + 1 < n; i++) {
            double dt = time_s[i + 1] - time_s[i];
            if (dt > 0 && isfinite(watts[i]) && isfinite(watts[i + 1]))
                energy += dt * (watts[i] + watts[i + 1]) / 2;
        }
        facility = energy * pue->v[pp];
        grams = facility * intensity->v[pi] / 3.6e6;
        out->pue = pue->v[pp];
        out->intensity = intensity->v[pi];
    } else {
        for (size_t i = 0; i + 1 < n; i++) {
            double u = t0 + time_s[i], v = t0 + time_s[i + 1];
            if (!(v > u) || !isfinite(watts[i]) || !isfinite(watts[i + 1]))
                continue;
            double slope = (watts[i + 1] - watts[i]) / (v - u);
            while (u < v) {
                long kp = piece_at(pue, u), ki = piece_at(intensity, u);
                if (kp < 0 || ki < 0) {
                    a = u;
                    goto outside;
                }
                double e = v;
                if (pue->end[kp] < e)
                    e = pue->end[kp];
                if (intensity->end[ki] < e)
                    e = intensity->end[ki];
                double pu = watts[i] + slope * (u - (t0 + time_s[i]));
                double pe = watts[i] + slope * (e - (t0 + time_s[i]));
                double de = (e - u) * (pu + pe) / 2;
                energy += de;
                facility += de * pue->v[kp];
                grams += de * pue->v[kp] * intensity->v[ki] / 3.6e6;
                u = e;
            }
        }
    }
    if (isnan(out->pue) || out->pue == 0) {
        out->pue = facility / energy;
        out->intensity = grams * 3.6e6 / facility;
    }
    out->energy_j = energy;
    out->facility_j = facility;
    out->grams_co2eq = grams;
    out->t0 = t0 + time_s[0];
    out->t1 = t0 + time_s[n - 1];
    return JL_OK;
outside : {
    char buf[32];
    if (jl__iso_utc(a, buf))
        snprintf(buf, sizeof buf, "?");
    return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                   "the run at %s is outside the %s series (or in one of its gaps)", buf,
                   piece_at(pue, a) < 0 ? "PUE" : "intensity");
}
}

/* "2026-12-01 00:00:00 UTC" (core's ISO 8601 in words) */
static void clock_words(double t, char buf[40])
{
    char iso[32];
    if (jl__iso_utc(t, iso) || strlen(iso) != 20) {
        snprintf(buf, 40, "?");
        return;
    }
    snprintf(buf, 40, "%.10s %.8s UTC", iso, iso + 11);
}

size_t jl_tseries_gaps(const jl_tseries *s, double t0, double t1, char *buf, size_t cap)
{
    size_t n = 0, len = 0;
    if (cap)
        buf[0] = '\0';
#define PUT(...)                                                        \
    do {                                                                \
        if (len < cap)                                                  \
            len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__); \
    } while (0)
    double t = t0;
    while (t < t1) {
        long i = piece_at(s, t);
        if (i >= 0) {
            t = s->end[i];
            continue;
        }
        /* uncovered from t to the next piece's start (or t1) */
        size_t lo = first_after(s, t);
        double e = lo < s->n && s->t[lo] < t1 ? s->t[lo] : t1;
        char a[40], b[40];
        clock_words(t, a);
        clock_words(e, b);
        PUT("%s%s to %s (hours", n ? "; " : "", a, b);
        /* the clock hours the stretch touches, named (the first 12) */
        double h0 = floor(t / 3600), h1 = floor((e - 1e-9) / 3600);
        for (double h = h0; h <= h1; h++) {
            if (h - h0 < 12) {
                char w[40];
                clock_words(h * 3600, w);
                PUT("%s %.16s", h > h0 ? "," : "", w);
            } else if (h - h0 == 12) {
                PUT(" and %.0f more", h1 - h);
            }
        }
        PUT(" UTC)");
        n++;
        t = e;
    }
#undef PUT
    return n;
}

/* ---- units and ranges of the accounts' options (issue 37) ---------------- */

/* The unit after a number, folded: lower case, spaces and "co2", "co2e",
 * "co2eq" dropped ("kgCO2e/kWh" -> "kg/kwh"). */
static void fold_unit(const char *u, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = u; *p && n + 1 < cap; p++) {
        char ch = (char)tolower((unsigned char)*p);
        if (ch == ' ')
            continue;
        if (ch == 'c' && tolower((unsigned char)p[1]) == 'o' && p[2] == '2') {
            p += 2;
            if (tolower((unsigned char)p[1]) == 'e') {
                p++;
                if (tolower((unsigned char)p[1]) == 'q')
                    p++;
            }
            continue;
        }
        out[n++] = ch;
    }
    out[n] = '\0';
}

jl_status jl_intensity_parse(const char *text, double *g_per_kwh, jl_error **err)
{
    static const struct {
        const char *unit;
        double to_g_per_kwh;
    } units[] = {
        {"g/kwh", 1},
        {"kg/kwh", 1000},
        {"t/mwh", 1000},
        {"kg/mwh", 1},
        {"g/mwh", 1e-3},
        {"lb/mwh", 0.45359237},
        {"lbs/mwh", 0.45359237},
        {"lb/kwh", 453.59237},
        {"lbs/kwh", 453.59237},
        {"mg/kwh", 1e-3},
    };
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || !end || end == text || !isfinite(v) || v < 0)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "grid intensity '%s': expected a number >= 0 (gCO2eq/kWh) or a number "
                       "with its unit (0.4kg/kWh, 400g/kWh, 900lbs/MWh)",
                       text);
    char u[32];
    fold_unit(end, u, sizeof u);
    if (!u[0]) {
        if (v < JL_INTENSITY_MIN || v > JL_INTENSITY_MAX)
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "grid intensity %s gCO2eq/kWh is outside %g..%g, where every grid "
                           "lies: %s; give the unit to use it as written (%s)",
                           text, JL_INTENSITY_MIN, JL_INTENSITY_MAX,
                           v < JL_INTENSITY_MIN ? "kg/kWh or t/MWh written bare?"
                                                : "g/MWh or lbs/MWh written bare?",
                           v < JL_INTENSITY_MIN ? "e.g. 0.4kg/kWh = 400 g/kWh"
                                                : "e.g. 900lbs/MWh = 408 g/kWh");
        *g_per_kwh = v;
        return JL_OK;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(u, units[i].unit)) {
            *g_per_kwh = v * units[i].to_g_per_kwh;
            return JL_OK;
        }
    return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                   "grid intensity '%s': unknown unit '%s' (known: g/kWh, kg/kWh, t/MWh, kg/MWh, "
                   "g/MWh, lbs/MWh, lbs/kWh; CO2, CO2e or CO2eq may follow the mass)",
                   text, end);
}

jl_status jl_pue_parse(const char *text, double *pue, jl_error **err)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    int forced = end && !strcmp(end, ":forced");
    if (errno || !end || end == text || (*end && !forced) || !isfinite(v))
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "PUE '%s': expected a number (facility energy / IT energy, e.g. 1.2)", text);
    if (v < JL_PUE_MIN)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "PUE %s is below 1: a facility cannot draw less than its IT load", text);
    if (v > JL_PUE_MAX && !forced)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "PUE %s is outside %g..%g, where data centres lie (%s); write "
                       "%s:forced to use it as given",
                       text, JL_PUE_MIN, JL_PUE_MAX,
                       v >= 100 ? "a percentage? 120 % is 1.2" : "a typo?", text);
    *pue = v;
    return JL_OK;
}

jl_status jl_tseries_parse_pue(const char *arg, jl_tseries **out, jl_error **err)
{
    *out = NULL;
    if (looks_numeric(arg) && access(arg, R_OK) != 0) {
        double v;
        jl_status st = jl_pue_parse(arg, &v, err);
        if (st != JL_OK)
            return st;
        *out = jl_tseries_constant(v);
        return *out ? JL_OK : jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    size_t n = strlen(arg);
    int forced = n > 7 && !strcmp(arg + n - 7, ":forced");
    char *path = jl__strdup(arg);
    if (!path)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (forced && access(arg, R_OK) != 0)
        path[n - 7] = '\0';
    else
        forced = 0;
    jl_status st = jl_tseries_load_csv(path, JL_INTENSITY_AVERAGE, NULL, out, err);
    for (size_t i = 0; st == JL_OK && i < (*out)->n; i++) {
        double v = (*out)->v[i];
        if (v < JL_PUE_MIN || (v > JL_PUE_MAX && !forced)) {
            st =
                jl_fail(err, JL_EUSAGE, path, NULL, NULL, (long long)i,
                        "PUE %.6g at row %zu is outside %g..%g%s", v, i + 1, JL_PUE_MIN, JL_PUE_MAX,
                        v < JL_PUE_MIN ? " (below 1 is impossible)"
                                       : " (a percentage? name the file PATH:forced to use it)");
            jl_tseries_free(*out);
            *out = NULL;
        }
    }
    free(path);
    return st;
}

int jl_tseries_span(const jl_tseries *s, double *t0, double *t1)
{
    if (!s || jl_tseries_is_constant(s) || !s->n)
        return -1;
    *t0 = s->t[0];
    *t1 = s->end[s->n - 1];
    return 0;
}
