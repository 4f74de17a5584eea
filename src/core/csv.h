/* The CSV reader, the one of the library (importers' logs, RUNS.csv, the
 * grid-intensity series of the accounts). Not part of the public API.
 *
 * RFC 4180 quoting ("a ""b"""), \n or \r\n, spaces around unquoted fields
 * trimmed (nvidia-smi writes ", "); a UTF-8 byte-order mark dropped, UTF-16
 * with its byte-order mark (what Windows PowerShell's `>` writes) decoded to
 * UTF-8 as it is read. Reads a file in blocks of a fixed size (memory does
 * not grow with the file; a line over 16 MiB is an error) or a buffer.
 * Fields point into the reader's buffer and stay valid until the next
 * call. */
#ifndef JOULES_CORE_CSV_H
#define JOULES_CORE_CSV_H

#include <stddef.h>

#include "joules/error.h"

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
    int complete;   /* 0: the last line of the input, without its line end (cut?) */
} jl__csv_row;

jl_status jl__csv_open_file(const char *path, jl__csv **out, jl_error **err);
jl_status jl__csv_open_buffer(const char *buf, size_t len, const char *name, jl__csv **out,
                              jl_error **err);
/* 1: a row; 0: end of input; -1: error (*err: file:line:column). Blank
 * lines are skipped. */
int jl__csv_next(jl__csv *c, jl__csv_row *row, jl_error **err);
const char *jl__csv_name(const jl__csv *c);
/* What the byte-order mark said ("UTF-16LE", "UTF-8 with a byte-order
 * mark", ...), NULL when there was none. */
const char *jl__csv_encoding(const jl__csv *c);
/* Lines split at every comma, quotes ordinary characters: comma-separated
 * text that is not RFC 4180 (PTDaemon's spl.txt, whose records are split
 * so by the MLPerf checker). Call before the first row. */
void jl__csv_plain(jl__csv *c);
void jl__csv_close(jl__csv *c);

#endif
