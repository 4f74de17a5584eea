/* Civil time and time zones (core/civil_time.h): one days_from_civil for
 * the whole library. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/civil_time.h"
#include "core/util.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
long long jl__days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static int digits_n(const char **pp, int n, int *out)
{
    const char *p = *pp;
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    *pp = p + n;
    return 1;
}

/* jl__civil_parse(_short): short_forms allows a date alone, HH:MM and
 * 24:00. */
static int civil_parse(const char *s, jl__civil *out, int short_forms)
{
    const char *p = s;
    memset(out, 0, sizeof *out);
    while (*p == ' ' || *p == '\t')
        p++;
    int y, mo, d, h = 0, mi = 0, se = 0;
    if (!digits_n(&p, 4, &y) || (*p != '/' && *p != '-'))
        return 0;
    char sep = *p++;
    if (!digits_n(&p, 2, &mo) || *p++ != sep || !digits_n(&p, 2, &d))
        return 0;
    double sec = 0;
    if (*p == ' ' || *p == 'T') {
        const char *t = p + 1;
        if (digits_n(&t, 2, &h) && *t == ':' && (t++, digits_n(&t, 2, &mi))) {
            p = t;
            if (*p == ':') {
                p++;
                if (!digits_n(&p, 2, &se))
                    return 0;
                sec = se;
                if (*p == '.' || *p == ',') {
                    p++;
                    double f = 0.1;
                    if (*p < '0' || *p > '9')
                        return 0;
                    while (*p >= '0' && *p <= '9') {
                        sec += (*p - '0') * f;
                        f *= 0.1;
                        p++;
                    }
                }
            } else if (!short_forms) {
                return 0;
            }
        } else if (!short_forms || *p == 'T') {
            return 0;
        }
    } else if (!short_forms) {
        return 0;
    }
    int end_of_day = short_forms && h == 24 && mi == 0 && sec == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || (h > 23 && !end_of_day) || mi > 59 || se > 60)
        return 0;
    if (*p == 'Z') {
        out->has_offset = 1;
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
        if (!digits_n(&p, 2, &oh))
            return 0;
        if (*p == ':')
            p++;
        if (*p >= '0' && *p <= '9' && !digits_n(&p, 2, &om))
            return 0;
        if (oh > 23 || om > 59)
            return 0;
        out->has_offset = 1;
        out->offset_s = sign * (oh * 3600 + om * 60);
    }
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p)
        return 0;
    out->year = y;
    out->mon = mo;
    out->day = d;
    out->hour = h;
    out->min = mi;
    out->sec = sec;
    return 1;
}

int jl__civil_parse(const char *s, jl__civil *out)
{
    return civil_parse(s, out, 0);
}

int jl__civil_parse_short(const char *s, jl__civil *out)
{
    return civil_parse(s, out, 1);
}

double jl__civil_utc(const jl__civil *c)
{
    long long days = jl__days_from_civil(c->year, (unsigned)c->mon, (unsigned)c->day);
    return (double)((days * 24 + c->hour) * 60 + c->min) * 60.0 + c->sec;
}

enum { Z_LOCAL, Z_FIXED, Z_NAMED };

struct jl__zone {
    int kind;
    int offset_s; /* Z_FIXED */
    char *name;   /* what was used */
    char *tz;     /* Z_NAMED: the TZ value */
    /* cache: the last local minute converted */
    long long key;
    double early, late; /* Unix time of the minute's start; late != early: repeated */
    int gap;
    /* what the times converted carried (issue 37): their own offset, or none */
    size_t n_offset, n_local;
    int last_offset_s;
};

static int parse_offset(const char *s, int *off)
{
    const char *p = s;
    if (!strcmp(s, "UTC") || !strcmp(s, "Z") || !strcmp(s, "GMT")) {
        *off = 0;
        return 1;
    }
    if (!strncmp(p, "UTC", 3))
        p += 3;
    if (*p != '+' && *p != '-')
        return 0;
    int sign = *p++ == '-' ? -1 : 1, h, m = 0;
    if (!digits_n(&p, 2, &h))
        return 0;
    if (*p == ':')
        p++;
    if (*p && !digits_n(&p, 2, &m))
        return 0;
    if (*p || h > 23 || m > 59)
        return 0;
    *off = sign * (h * 3600 + m * 60);
    return 1;
}

jl_status jl__zone_open(const char *spec, jl__zone **out, jl_error **err)
{
    *out = NULL;
    jl__zone *z = calloc(1, sizeof *z);
    if (!z)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, NULL);
    z->key = LLONG_MIN;
    if (spec && parse_offset(spec, &z->offset_s)) {
        z->kind = Z_FIXED;
        z->name = z->offset_s == 0
                      ? jl__strdup("UTC")
                      : jl__asprintf("UTC%c%02d:%02d", z->offset_s < 0 ? '-' : '+',
                                     abs(z->offset_s) / 3600, abs(z->offset_s) % 3600 / 60);
    } else if (spec) {
        /* A tz database name: it must be a file of the system's database. */
        const char *dir = getenv("TZDIR");
        if (!dir || !*dir)
            dir = "/usr/share/zoneinfo";
        struct stat sb;
        char *path = jl__asprintf("%s/%s", dir, spec);
        int ok = path && *spec && spec[0] != '/' && !strstr(spec, "..") && stat(path, &sb) == 0 &&
                 S_ISREG(sb.st_mode);
        free(path);
        if (!ok) {
            free(z);
            return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                           "unknown time zone '%s' (give UTC, an offset like +05:30, or a "
                           "name of the tz database in %s such as America/Chicago)",
                           spec, dir);
        }
        z->kind = Z_NAMED;
        z->name = jl__strdup(spec);
        z->tz = jl__strdup(spec);
    } else {
        z->kind = Z_LOCAL;
        const char *tz = getenv("TZ");
        char link[512];
        ssize_t n;
        if (tz && *tz) {
            z->name = jl__asprintf("%s (TZ)", tz[0] == ':' ? tz + 1 : tz);
        } else if ((n = readlink("/etc/localtime", link, sizeof link - 1)) > 0) {
            link[n] = '\0';
            const char *zi = strstr(link, "zoneinfo/");
            z->name = jl__asprintf("%s (this machine's zone)", zi ? zi + 9 : link);
        } else {
            z->name = jl__strdup("this machine's local time");
        }
    }
    if (!z->name || (z->kind == Z_NAMED && !z->tz)) {
        jl__zone_free(z);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, NULL);
    }
    *out = z;
    return JL_OK;
}

const char *jl__zone_name(const jl__zone *z)
{
    return z->name;
}

void jl__zone_free(jl__zone *z)
{
    if (!z)
        return;
    free(z->name);
    free(z->tz);
    free(z);
}

/* One local minute through the C library's zone rules (TZ set for a named
 * zone and put back afterwards). */
static void zone_minute(jl__zone *z, const jl__civil *c)
{
    char *saved = NULL;
    int had = 0;
    if (z->kind == Z_NAMED) {
        const char *old = getenv("TZ");
        had = old != NULL;
        saved = old ? jl__strdup(old) : NULL;
        setenv("TZ", z->tz, 1);
        tzset();
    }
    struct tm a = {0};
    a.tm_year = c->year - 1900;
    a.tm_mon = c->mon - 1;
    a.tm_mday = c->day;
    a.tm_hour = c->hour;
    a.tm_min = c->min;
    a.tm_isdst = -1;
    struct tm b = a;
    time_t t1 = mktime(&a);
    z->gap = a.tm_hour != c->hour || a.tm_min != c->min || a.tm_mday != c->day;
    z->early = z->late = (double)t1;
    if (!z->gap && a.tm_isdst >= 0) {
        b.tm_isdst = !a.tm_isdst;
        time_t t2 = mktime(&b);
        struct tm chk;
        if (t2 != (time_t)-1 && t2 != t1 && localtime_r(&t2, &chk) && chk.tm_hour == c->hour &&
            chk.tm_min == c->min && chk.tm_mday == c->day) {
            z->early = (double)(t1 < t2 ? t1 : t2);
            z->late = (double)(t1 < t2 ? t2 : t1);
        }
    }
    if (z->kind == Z_NAMED) {
        if (had)
            setenv("TZ", saved, 1);
        else
            unsetenv("TZ");
        tzset();
        free(saved);
    }
}

double jl__zone_to_unix(jl__zone *z, const jl__civil *c, double prev, int *gap)
{
    *gap = 0;
    if (c->has_offset) {
        z->n_offset++;
        z->last_offset_s = c->offset_s;
        return jl__civil_utc(c) - c->offset_s;
    }
    z->n_local++;
    if (z->kind == Z_FIXED)
        return jl__civil_utc(c) - z->offset_s;
    long long key = jl__days_from_civil(c->year, (unsigned)c->mon, (unsigned)c->day) * 1440 +
                    c->hour * 60 + c->min;
    if (key != z->key) {
        zone_minute(z, c);
        z->key = key;
    }
    *gap = z->gap;
    double t = z->early + c->sec;
    if (z->late != z->early && !isnan(prev) && t < prev)
        t = z->late + c->sec;
    return t;
}

void jl__zone_usage(const jl__zone *z, size_t *n_offset, size_t *n_local, int *offset_s)
{
    *n_offset = z->n_offset;
    *n_local = z->n_local;
    *offset_s = z->last_offset_s;
}

int jl__zone_format(jl__zone *z, double t, char *buf, size_t cap)
{
    if (!isfinite(t) || fabs(t) > 1e12 || !cap)
        return -1;
    time_t tt = (time_t)floor(t);
    struct tm tm;
    int ok;
    if (z->kind == Z_FIXED) {
        tt += z->offset_s;
        ok = gmtime_r(&tt, &tm) != NULL;
    } else {
        char *saved = NULL;
        int had = 0;
        if (z->kind == Z_NAMED) {
            const char *old = getenv("TZ");
            had = old != NULL;
            saved = old ? jl__strdup(old) : NULL;
            setenv("TZ", z->tz, 1);
            tzset();
        }
        ok = localtime_r(&tt, &tm) != NULL;
        if (z->kind == Z_NAMED) {
            if (had)
                setenv("TZ", saved, 1);
            else
                unsetenv("TZ");
            tzset();
            free(saved);
        }
    }
    return ok && strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm) ? 0 : -1;
}

/* ---- UTC times written out ---------------------------------------------- */

/* t's whole seconds as "YYYY-MM-DDTHH:MM:SS" into buf; -1 when t is not
 * finite or out of range (buf then ""). */
static int utc_seconds(double t, char buf[32])
{
    buf[0] = 0;
    if (!isfinite(t) || fabs(t) > 1e15)
        return -1;
    time_t tt = (time_t)floor(t);
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, 28, "%Y-%m-%dT%H:%M:%S", &tm)) {
        buf[0] = 0;
        return -1;
    }
    return 0;
}

int jl__iso_utc(double t, char buf[32])
{
    if (utc_seconds(t, buf))
        return -1;
    strcat(buf, "Z");
    return 0;
}

char *jl__iso_utc_ms(char buf[32], double t)
{
    double whole = floor(t);
    long ms = isfinite(t) ? lround((t - whole) * 1000.0) : 0;
    if (ms >= 1000) {
        whole += 1.0;
        ms -= 1000;
    }
    if (utc_seconds(whole, buf) == 0) {
        size_t n = strlen(buf);
        snprintf(buf + n, 32 - n, ".%03ldZ", ms);
    }
    return buf;
}
