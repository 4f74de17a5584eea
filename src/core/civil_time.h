/* Civil time and time zones, the one home (importers' logs, RUNS.csv, the
 * grid-intensity series of the accounts): days from a civil date, the
 * ISO 8601 parser, wall-clock times in a zone, UTC times written out. Not
 * part of the public API. */
#ifndef JOULES_CORE_CIVIL_TIME_H
#define JOULES_CORE_CIVIL_TIME_H

#include "joules/error.h"

/* Days since 1970-01-01 of a proleptic Gregorian date: the one civil-time
 * function (H. Hinnant's days_from_civil). */
long long jl__days_from_civil(long long y, unsigned m, unsigned d);

/* Broken-down wall-clock time. */
typedef struct jl__civil {
    int year, mon, day, hour, min;
    double sec;     /* with fraction */
    int has_offset; /* an explicit zone in the text (Z or +hh:mm) */
    int offset_s;   /* east of UTC */
} jl__civil;

/* "YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|+hh[:mm]|-hh[:mm]|+hhmm]" ('/' may
 * separate the date's parts, ',' the fraction; spaces or tabs around).
 * 1 and *out on success, 0 when s is not such a time. */
int jl__civil_parse(const char *s, jl__civil *out);
/* The same, also with ISO 8601's shorter forms: a date alone (midnight),
 * HH:MM without seconds, and 24:00[:00] (the end of the day). */
int jl__civil_parse_short(const char *s, jl__civil *out);
/* Seconds since the epoch of a civil time taken as UTC (its offset not
 * applied). */
double jl__civil_utc(const jl__civil *c);

/* A time zone for local wall-clock times: UTC, a fixed offset (+05:30), a
 * name of the tz database (America/Chicago), or NULL: this machine's local
 * time. */
typedef struct jl__zone jl__zone;

jl_status jl__zone_open(const char *spec, jl__zone **out, jl_error **err);
const char *jl__zone_name(const jl__zone *z); /* what was used, for notes */
void jl__zone_free(jl__zone *z);
/* The Unix time of a local wall-clock time in zone z (an explicit offset in
 * c wins). `prev` (NaN: none) resolves a repeated hour (DST's end): the
 * earlier reading unless that goes back before it. *gap is set when the
 * time does not exist (a DST gap). */
double jl__zone_to_unix(jl__zone *z, const jl__civil *c, double prev, int *gap);
/* The times z converted so far: with their own offset (the last one's in
 * *offset_s) and without (read in z): the note of a log that carried its
 * own offsets never names another zone (issue 37). */
void jl__zone_usage(const jl__zone *z, size_t *n_offset, size_t *n_local, int *offset_s);
/* Unix time t as "YYYY-MM-DD HH:MM:SS" in zone z; 0, or -1. */
int jl__zone_format(jl__zone *z, double t, char *buf, size_t cap);

/* t (Unix seconds) as "YYYY-MM-DDTHH:MM:SSZ" into buf; 0, or -1 when t is
 * not finite or out of range (buf then ""). */
int jl__iso_utc(double t, char buf[32]);
/* t as "YYYY-MM-DDTHH:MM:SS.mmmZ" (rounded to the millisecond) into buf,
 * which it returns ("" when t is not finite or out of range). */
char *jl__iso_utc_ms(char buf[32], double t);

#endif
