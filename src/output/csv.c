/* CSV: one field quoted as RFC 4180 asks, and the row writer every CSV
 * writer of the library puts its cells through (output/csv_row.h), so no
 * writer places a comma by hand. In table mode (jl__csvw_begin_table) the
 * same cells go, typed, into a jl_table (table.c) instead of a stream. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/output.h"
#include "output/csv_row.h"
#include "output/table_internal.h"

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
    memset(r, 0, sizeof *r);
    r->f = f;
}

void jl__csvw_begin_table(jl__csvw *r, jl_table *t)
{
    memset(r, 0, sizeof *r);
    r->table = t;
    jl__tbl_row_begin(t);
}

/* Table mode: the cell composed through jl__csvw_next, as text. */
static void flush_scratch(jl__csvw *r)
{
    if (!r->scratch)
        return;
    fclose(r->scratch);
    r->scratch = NULL;
    jl__tbl_cell(r->table, r->scratch_len ? TC_TEXT : TC_EMPTY, NAN, r->scratch_buf,
                 r->scratch_len);
    free(r->scratch_buf);
    r->scratch_buf = NULL;
    r->scratch_len = 0;
}

FILE *jl__csvw_next(jl__csvw *r)
{
    if (r->table) {
        flush_scratch(r);
        r->cells++;
        r->scratch = open_memstream(&r->scratch_buf, &r->scratch_len);
        if (!r->scratch) /* remembered as out of memory by the next cell */
            jl__tbl_cell(r->table, TC_EMPTY, NAN, NULL, 0);
        return r->scratch; /* NULL in table mode when out of memory */
    }
    if (r->cells++)
        fputc(',', r->f);
    return r->f;
}

/* Table mode: one typed cell. */
static void table_cell(jl__csvw *r, int kind, double v, const char *text)
{
    flush_scratch(r);
    r->cells++;
    jl__tbl_cell(r->table, text || kind == TC_NUM || kind == TC_INT ? kind : TC_EMPTY, v, text,
                 text ? strlen(text) : 0);
}

void jl__csvw_cell(jl__csvw *r, const char *s)
{
    if (r->table) {
        table_cell(r, s && *s ? TC_TEXT : TC_EMPTY, NAN, s && *s ? s : NULL);
        return;
    }
    jl_csv_field(jl__csvw_next(r), s);
}

void jl__csvw_cells(jl__csvw *r, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        jl__csvw_cell(r, names[i]);
}

void jl__csvw_empty(jl__csvw *r)
{
    if (r->table) {
        table_cell(r, TC_EMPTY, NAN, NULL);
        return;
    }
    jl__csvw_next(r);
}

void jl__csvw_num(jl__csvw *r, double v)
{
    if (r->table) { /* its text (%.17g) is made only where a column turns out text */
        flush_scratch(r);
        r->cells++;
        jl__tbl_cell(r->table, isfinite(v) ? TC_NUM : TC_EMPTY, v, NULL, 0);
        return;
    }
    FILE *f = jl__csvw_next(r);
    if (isfinite(v))
        fprintf(f, "%.17g", v);
}

void jl__csvw_number_text(jl__csvw *r, const char *text, int integer)
{
    if (!r->table) {
        jl__csvw_cell(r, text);
        return;
    }
    char *end = NULL;
    double v = text ? strtod(text, &end) : NAN;
    if (!text || !*text)
        table_cell(r, TC_EMPTY, NAN, NULL);
    else if (end == text || *end)
        table_cell(r, TC_TEXT, NAN, text); /* not a number after all: text */
    else
        table_cell(r, integer && v == floor(v) ? TC_INT : TC_NUM, v, text);
}

/* A printf format of one numeric conversion ("%ld", "%zu", "%.17g"): 1 for
 * an integer one, 2 for a real one, 0 otherwise. */
static int numeric_format(const char *fmt)
{
    if (fmt[0] != '%')
        return 0;
    const char *p = fmt + 1;
    while (*p == '.' || (*p >= '0' && *p <= '9'))
        p++;
    while (*p == 'l' || *p == 'z' || *p == 'j' || *p == 'h')
        p++;
    if (!p[0] || p[1])
        return 0;
    return strchr("diu", *p) ? 1 : strchr("geEfG", *p) ? 2 : 0;
}

void jl__csvw_cellf(jl__csvw *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->table) {
        char buf[512];
        int n = vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        int num = numeric_format(fmt);
        if (n < 0 || (size_t)n >= sizeof buf) { /* a long cell: composed as text */
            va_start(ap, fmt);
            FILE *f = jl__csvw_next(r);
            if (f)
                vfprintf(f, fmt, ap);
            va_end(ap);
            return;
        }
        if (num)
            jl__csvw_number_text(r, buf, num == 1);
        else
            table_cell(r, n ? TC_TEXT : TC_EMPTY, NAN, n ? buf : NULL);
        return;
    }
    FILE *f = jl__csvw_next(r);
    vfprintf(f, fmt, ap);
    va_end(ap);
}

void jl__csvw_end(jl__csvw *r)
{
    if (r->table) {
        flush_scratch(r);
        r->cells = 0;
        return;
    }
    fputc('\n', r->f);
    r->cells = 0;
}
