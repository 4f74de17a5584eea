/* The CSV row writer (csv.c), the one of joules: cells go through it, and
 * it puts the commas between them and the newline at the end, so a writer
 * names its cells in order and never places a separator by hand. Text is
 * quoted as RFC 4180 asks (here and only here), numbers are written at full
 * precision (%.17g: strtod reads back the same double). Three backends with
 * the same cells: a FILE (jl__csvw_begin), a string buffer (core/util.h's
 * jl__strbuf, jl__csvw_begin_buf: the report's files and any CSV built in
 * memory; the same bytes as the FILE backend) and a jl_table
 * (jl__csvw_begin_table). Not public API. */
#ifndef JOULES_OUTPUT_CSV_ROW_H
#define JOULES_OUTPUT_CSV_ROW_H

#include <stddef.h>
#include <stdio.h>

#include "joules/error.h"

struct jl_table;
struct jl__strbuf;

typedef struct jl__csvw {
    FILE *f;
    /* not NULL: the text goes into this buffer instead (jl__csvw_begin_buf) */
    struct jl__strbuf *buf;
    size_t cells; /* cells written in this row so far */
    /* not NULL: the cells go into this table instead (jl__csvw_begin_table) */
    struct jl_table *table;
    /* table and buffer modes: a cell being composed through jl__csvw_next */
    FILE *scratch;
    char *scratch_buf;
    size_t scratch_len;
} jl__csvw;

/* A new row on f (nothing is written yet). */
void jl__csvw_begin(jl__csvw *r, FILE *f);
/* A new row appended to b, byte for byte what jl__csvw_begin would write
 * to a FILE; memory running out latches b->failed (jl__strbuf_take then
 * returns NULL). */
void jl__csvw_begin_buf(jl__csvw *r, struct jl__strbuf *b);
/* A new row of typed cells in t (joules/output.h, jl_table), the same cells
 * a CSV row would hold: the first row gives the column names. A number cell
 * (jl__csvw_num, _number_text, or _cellf with one numeric conversion such
 * as "%ld" or "%.17g") is a number there, every other cell text. Memory
 * running out is remembered in t (jl__tbl_finish says so). */
void jl__csvw_begin_table(jl__csvw *r, struct jl_table *t);
/* A text cell, quoted as needed (jl_csv_field: a comma, quote, CR or LF
 * anywhere, or a space or tab at either end, which the reader would trim);
 * NULL: an empty cell. */
void jl__csvw_cell(jl__csvw *r, const char *s);
/* A text cell for each name of the NULL-terminated list (a header). */
void jl__csvw_cells(jl__csvw *r, const char *const *names);
/* An empty cell (missing). */
void jl__csvw_empty(jl__csvw *r);
/* A number at full precision (%.17g); NaN/inf: an empty cell. */
void jl__csvw_num(jl__csvw *r, double v);
/* A number already in text (an attribute's %.17g form), written as is;
 * integer: a whole number (a table column of them all is an integer one). */
void jl__csvw_number_text(jl__csvw *r, const char *text, int integer);
/* A cell formatted with printf's fmt, written as is (no quoting: for numbers
 * and names that hold no comma, quote or newline). */
void jl__csvw_cellf(jl__csvw *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Start a cell (the separator) and return the stream, for a cell composed
 * of several writes that hold no comma, quote or newline (in table and
 * buffer modes a scratch stream, the cell's text; NULL when memory ran
 * out). */
FILE *jl__csvw_next(jl__csvw *r);
/* End the row (newline); the writer may begin the next. */
void jl__csvw_end(jl__csvw *r);
/* A whole row of n text cells (jl__csvw_cell each, NULL empty), ended. */
void jl__csvw_row(jl__csvw *r, size_t n, const char *const *cells);

/* Tables of typed cells (table.c): an empty table to begin rows in, and
 * the columns made from its rows (JL_ENOMEM when memory ran out on the
 * way; the table is then freed and *out NULL). */
struct jl_table *jl__tbl_new(void);
jl_status jl__tbl_finish(struct jl_table *t, struct jl_table **out);

#endif
