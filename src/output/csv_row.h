/* The CSV row writer (csv.c): cells go through it, and it puts the commas
 * between them and the newline at the end, so a writer names its cells in
 * order and never places a separator by hand. Not public API. */
#ifndef JOULES_OUTPUT_CSV_ROW_H
#define JOULES_OUTPUT_CSV_ROW_H

#include <stddef.h>
#include <stdio.h>

typedef struct jl__csvw {
    FILE *f;
    size_t cells; /* cells written in this row so far */
} jl__csvw;

/* A new row on f (nothing is written yet). */
void jl__csvw_begin(jl__csvw *r, FILE *f);
/* A text cell, quoted as needed (jl_csv_field); NULL: an empty cell. */
void jl__csvw_cell(jl__csvw *r, const char *s);
/* A text cell for each name of the NULL-terminated list (a header). */
void jl__csvw_cells(jl__csvw *r, const char *const *names);
/* An empty cell (missing). */
void jl__csvw_empty(jl__csvw *r);
/* A number at full precision (%.17g); NaN/inf: an empty cell. */
void jl__csvw_num(jl__csvw *r, double v);
/* A cell formatted with printf's fmt, written as is (no quoting: for numbers
 * and names that hold no comma, quote or newline). */
void jl__csvw_cellf(jl__csvw *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Start a cell (the separator) and return the stream, for a cell composed
 * of several writes that hold no comma, quote or newline. */
FILE *jl__csvw_next(jl__csvw *r);
/* End the row (newline); the writer may begin the next. */
void jl__csvw_end(jl__csvw *r);

#endif
