/* CSV: one field quoted as RFC 4180 asks, and the row writer every CSV
 * writer of the library puts its cells through (output/csv_row.h), so no
 * writer places a comma by hand. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "joules/output.h"
#include "output/csv_row.h"

void jl_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', f);
        fputc(*p, f);
    }
    fputc('"', f);
}

void jl__csvw_begin(jl__csvw *r, FILE *f)
{
    r->f = f;
    r->cells = 0;
}

FILE *jl__csvw_next(jl__csvw *r)
{
    if (r->cells++)
        fputc(',', r->f);
    return r->f;
}

void jl__csvw_cell(jl__csvw *r, const char *s)
{
    jl_csv_field(jl__csvw_next(r), s);
}

void jl__csvw_cells(jl__csvw *r, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        jl__csvw_cell(r, names[i]);
}

void jl__csvw_empty(jl__csvw *r)
{
    jl__csvw_next(r);
}

void jl__csvw_num(jl__csvw *r, double v)
{
    FILE *f = jl__csvw_next(r);
    if (isfinite(v))
        fprintf(f, "%.17g", v);
}

void jl__csvw_cellf(jl__csvw *r, const char *fmt, ...)
{
    FILE *f = jl__csvw_next(r);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

void jl__csvw_end(jl__csvw *r)
{
    fputc('\n', r->f);
    r->cells = 0;
}
