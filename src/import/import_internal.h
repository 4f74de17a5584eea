/* Helpers shared by the importers (not public): results and notes, the
 * CSV reader, wall-clock times and zones, the GPU-name table lives in
 * common.c behind jl_gpu_model_from_name() (joules/import.h). */
#ifndef JOULES_IMPORT_INTERNAL_H
#define JOULES_IMPORT_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "joules/import.h"

/* ---- results ---------------------------------------------------------------- */

jl_import_result *jl__import_result_new(void);
/* r's requests/ columns (arrival, first_token, finish, input_tokens,
 * output_tokens) for R requests, req_n = R; JL_ENOMEM when one is missing
 * (those allocated stay with r, freed by jl_run_free). */
jl_status jl__import_run_requests(jl_run *r, size_t R);
/* A note; the same (field, message) is counted once, naming the first file. */
void jl__import_note(jl_import_result *r, const char *file, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void jl__import_detail(jl_import_result *r, const char *key, const char *value, int is_number);
void jl__import_detail_num(jl_import_result *r, const char *key, double v);
int jl__import_push_run(jl_import_result *r, jl_run *run);
/* Push an error at file:line:column (line 0: none). Returns code. */
jl_status jl__import_error(jl_error_list *errors, jl_status code, const char *file, long long line,
                           long long column, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* ---- CSV ---------------------------------------------------------------- */

/* A streaming CSV reader: RFC 4180 quoting ("a ""b"""), \n or \r\n, spaces
 * around unquoted fields trimmed (nvidia-smi writes ", "). Reads a file in
 * blocks of a fixed size (memory does not grow with the file) or a buffer.
 * Fields point into the reader's buffer and stay valid until the next call. */
typedef struct jl__csv jl__csv;

typedef struct jl__csv_field {
    const char *s; /* NUL-terminated (quotes removed) */
    size_t len;
    long long column; /* 1-based byte column of the field's start */
} jl__csv_field;

typedef struct jl__csv_row {
    jl__csv_field *f;
    size_t n;
    long long line; /* 1-based line where the row starts */
} jl__csv_row;

jl_status jl__csv_open_file(const char *path, jl__csv **out, jl_error **err);
jl_status jl__csv_open_buffer(const char *buf, size_t len, const char *name, jl__csv **out,
                              jl_error **err);
/* 1: a row; 0: end of input; -1: error (*err: file:line:column). Blank
 * lines are skipped. */
int jl__csv_next(jl__csv *c, jl__csv_row *row, jl_error **err);
const char *jl__csv_name(const jl__csv *c);
void jl__csv_close(jl__csv *c);

/* "power.draw [W]" -> name "power.draw" (written into name), unit "W" (into
 * unit, "" when none). Both buffers of cap bytes. */
void jl__csv_split_unit(const char *header, char *name, char *unit, size_t cap);

/* A number with an optional unit after it ("72.19 W", "0 %", "81559 MiB",
 * "1.5e3"). Returns 1 and sets *v and *unit (pointer into s, "" when none);
 * 0 when s does not start with a number. Missing values are the caller's. */
int jl__parse_number_unit(const char *s, double *v, const char **unit);

/* "[N/A]", "[Not Supported]", "N/A", "" and other "[...]" texts. */
int jl__csv_is_missing(const char *s);

/* ---- times and zones ----------------------------------------------------- */

/* A time zone for local wall-clock times: UTC, a fixed offset (+05:30), a
 * tz database name (America/Chicago, read by the C library from the system
 * tz database) or the machine's own (NULL). */
typedef struct jl__zone jl__zone;

jl_status jl__zone_open(const char *spec, jl__zone **out, jl_error **err);
const char *jl__zone_name(const jl__zone *z); /* what was used, for notes */
void jl__zone_free(jl__zone *z);

/* Broken-down wall-clock time. */
typedef struct jl__civil {
    int year, mon, day, hour, min;
    double sec;     /* with fraction */
    int has_offset; /* an explicit zone in the text (Z or +hh:mm) */
    int offset_s;
} jl__civil;

/* "2026/11/23 22:17:22.120", "2026-11-23T22:17:22.120Z", "...+05:30".
 * Returns 1 on success. */
int jl__parse_civil(const char *s, jl__civil *out);
/* Seconds since the epoch of a civil time taken as UTC. */
double jl__civil_utc(const jl__civil *c);
/* The Unix time of a local wall-clock time in zone z. `prev` (NaN: none)
 * picks the interpretation of a repeated hour that does not go back
 * before it. *gap is set when the time does not exist (a DST gap). */
double jl__zone_to_unix(jl__zone *z, const jl__civil *c, double prev, int *gap);

#endif
