/* CSV: the row writer every CSV writer of joules puts its cells through
 * (output/csv_row.h), so no writer places a comma or a quote by hand, and
 * one field quoted as RFC 4180 asks (quoted(), the one place). The text
 * goes to a FILE or, byte for byte the same, into a string buffer
 * (jl__csvw_begin_buf); in table mode (jl__csvw_begin_table) the same cells
 * go, typed, into a jl_table (table.c) instead. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"
#include "output/csv_row.h"
#include "output/table_internal.h"

/* Stream and buffer modes: n bytes of text. */
static void out(jl__csvw *r, const char *s, size_t n)
{
    if (r->buf)
        jl__strbuf_append(r->buf, s, n);
    else
        fwrite(s, 1, n, r->f);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* One field, quoted when it holds a comma, a quote, a CR or LF, or starts
 * or ends with a space or tab (the reader, core/csv.h, trims those of an
 * unquoted field); a quote inside is doubled. */
static void quoted(jl__csvw *r, const char *s)
{
    if (!s)
        return;
    size_t n = strlen(s);
    if (!strpbrk(s, ",\"\n\r") && !(n && (is_blank(s[0]) || is_blank(s[n - 1])))) {
        out(r, s, n);
        return;
    }
    out(r, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1)
        out(r, s, (size_t)(q - s + 1)), out(r, "\"", 1);
    out(r, s, strlen(s));
    out(r, "\"", 1);
}

void jl_csv_field(FILE *f, const char *s)
{
    jl__csvw r;
    jl__csvw_begin(&r, f);
    quoted(&r, s);
}

void jl_csv_row(FILE *f, size_t n, const char *const *cells)
{
    jl__csvw r;
    jl__csvw_begin(&r, f);
    jl__csvw_row(&r, n, cells);
}

void jl__csvw_begin(jl__csvw *r, FILE *f)
{
    memset(r, 0, sizeof *r);
    r->f = f;
}

void jl__csvw_begin_buf(jl__csvw *r, jl__strbuf *b)
{
    memset(r, 0, sizeof *r);
    r->buf = b;
}

void jl__csvw_begin_table(jl__csvw *r, jl_table *t)
{
    memset(r, 0, sizeof *r);
    r->table = t;
    jl__tbl_row_begin(t);
}

/* Table and buffer modes: the cell composed through jl__csvw_next, as text
 * (its separator is already written in buffer mode). */
static void flush_scratch(jl__csvw *r)
{
    if (!r->scratch)
        return;
    fclose(r->scratch);
    r->scratch = NULL;
    if (r->table)
        jl__tbl_cell(r->table, r->scratch_len ? TC_TEXT : TC_EMPTY, NAN, r->scratch_buf,
                     r->scratch_len);
    else
        jl__strbuf_append(r->buf, r->scratch_buf, r->scratch_len);
    free(r->scratch_buf);
    r->scratch_buf = NULL;
    r->scratch_len = 0;
}

/* Stream and buffer modes: the separator of a cell written here. */
static void sep(jl__csvw *r)
{
    flush_scratch(r);
    if (r->cells++)
        out(r, ",", 1);
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
    sep(r);
    if (!r->buf)
        return r->f;
    r->scratch = open_memstream(&r->scratch_buf, &r->scratch_len);
    if (!r->scratch)
        r->buf->failed = 1;
    return r->scratch;
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
    sep(r);
    quoted(r, s);
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
    sep(r);
}

void jl__csvw_num(jl__csvw *r, double v)
{
    if (r->table) { /* its text (%.17g) is made only where a column turns out text */
        flush_scratch(r);
        r->cells++;
        jl__tbl_cell(r->table, isfinite(v) ? TC_NUM : TC_EMPTY, v, NULL, 0);
        return;
    }
    sep(r);
    if (isfinite(v)) {
        char t[32];
        out(r, t, (size_t)snprintf(t, sizeof t, "%.17g", v));
    }
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
    sep(r);
    if (!r->buf) {
        vfprintf(r->f, fmt, ap);
        va_end(ap);
        return;
    }
    char *t = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (t)
        jl__strbuf_puts(r->buf, t);
    else
        r->buf->failed = 1;
    free(t);
}

void jl__csvw_end(jl__csvw *r)
{
    if (r->table) {
        flush_scratch(r);
        r->cells = 0;
        return;
    }
    flush_scratch(r);
    out(r, "\n", 1);
    r->cells = 0;
}

void jl__csvw_row(jl__csvw *r, size_t n, const char *const *cells)
{
    for (size_t i = 0; i < n; i++)
        jl__csvw_cell(r, cells[i]);
    jl__csvw_end(r);
}
