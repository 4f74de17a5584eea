/* Tables of typed cells (joules/output.h, jl_table): the rows a CSV writer
 * of the library puts through the row writer (csv_row.h) in table mode,
 * turned into columns. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"
#include "output/csv_row.h"
#include "output/table_internal.h"

typedef struct cell {
    int kind; /* TC_* */
    double v;
    char *text; /* the cell as the CSV holds it (NULL: empty) */
} cell;

typedef struct row {
    cell *cells;
    size_t n, cap;
} row;

struct jl__tbl_rows {
    row *rows;
    size_t n, cap;
    int oom;
};

jl_table *jl__tbl_new(void)
{
    jl_table *t = calloc(1, sizeof *t);
    if (t && !(t->rows_ = calloc(1, sizeof *t->rows_))) {
        free(t);
        t = NULL;
    }
    return t;
}

static void rows_free(struct jl__tbl_rows *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        for (size_t k = 0; k < b->rows[i].n; k++)
            free(b->rows[i].cells[k].text);
        free(b->rows[i].cells);
    }
    free(b->rows);
    free(b);
}

void jl__tbl_row_begin(jl_table *t)
{
    struct jl__tbl_rows *b = t->rows_;
    if (b->oom)
        return;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        row *nr = realloc(b->rows, cap * sizeof *nr);
        if (!nr) {
            b->oom = 1;
            return;
        }
        b->rows = nr;
        b->cap = cap;
    }
    b->rows[b->n++] = (row){NULL, 0, 0};
}

void jl__tbl_cell(jl_table *t, int kind, double v, const char *text, size_t len)
{
    struct jl__tbl_rows *b = t->rows_;
    if (b->oom || !b->n)
        return;
    row *r = &b->rows[b->n - 1];
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        cell *nc = realloc(r->cells, cap * sizeof *nc);
        if (!nc) {
            b->oom = 1;
            return;
        }
        r->cells = nc;
        r->cap = cap;
    }
    cell c = {kind, v, NULL};
    if (text && kind != TC_EMPTY) { /* a number without text: %.17g, made when needed */
        if (!(c.text = malloc(len + 1))) {
            b->oom = 1;
            return;
        }
        memcpy(c.text, text, len);
        c.text[len] = '\0';
    }
    r->cells[r->n++] = c;
}

/* The kind of column k over the data rows. */
static jl_table_kind column_kind(const struct jl__tbl_rows *b, size_t k)
{
    int all_int = 1, all_num = 1;
    for (size_t i = 1; i < b->n; i++) {
        int kind = k < b->rows[i].n ? b->rows[i].cells[k].kind : TC_EMPTY;
        if (kind != TC_INT)
            all_int = 0;
        if (kind == TC_TEXT)
            all_num = 0;
    }
    return all_int && b->n > 1 ? JL_TABLE_INTEGER : all_num ? JL_TABLE_NUMBER : JL_TABLE_TEXT;
}

jl_status jl__tbl_finish(jl_table *t, jl_table **out)
{
    struct jl__tbl_rows *b = t->rows_;
    *out = NULL;
    if (b->oom || !b->n) {
        jl_table_free(t);
        return b && !b->oom && !b->n ? JL_EINTERNAL : JL_ENOMEM;
    }
    size_t nc = b->rows[0].n, nr = b->n - 1;
    t->cols = calloc(nc ? nc : 1, sizeof *t->cols);
    if (!t->cols) {
        jl_table_free(t);
        return JL_ENOMEM;
    }
    t->n_cols = nc;
    t->n_rows = nr;
    for (size_t k = 0; k < nc; k++) {
        jl_table_column *c = &t->cols[k];
        cell *h = &b->rows[0].cells[k];
        c->name = h->text ? h->text : jl__strdup("");
        h->text = NULL;
        c->kind = column_kind(b, k);
        if (c->kind == JL_TABLE_TEXT)
            c->text = calloc(nr ? nr : 1, sizeof *c->text);
        else
            c->num = malloc((nr ? nr : 1) * sizeof *c->num);
        if (!c->name || (!c->text && !c->num)) {
            jl_table_free(t);
            return JL_ENOMEM;
        }
        for (size_t i = 0; i < nr; i++) {
            cell *x = k < b->rows[i + 1].n ? &b->rows[i + 1].cells[k] : NULL;
            if (c->kind != JL_TABLE_TEXT) {
                c->num[i] = x && x->kind != TC_EMPTY ? x->v : NAN;
            } else if (x && !x->text && (x->kind == TC_NUM || x->kind == TC_INT)) {
                char buf[40]; /* as the CSV writer writes a number (jl__csvw_num) */
                snprintf(buf, sizeof buf, "%.17g", x->v);
                if (!(c->text[i] = jl__strdup(buf))) {
                    jl_table_free(t);
                    return JL_ENOMEM;
                }
            } else if (x) {
                c->text[i] = x->text; /* moved */
                x->text = NULL;
            }
        }
    }
    rows_free(b);
    t->rows_ = NULL;
    *out = t;
    return JL_OK;
}

void jl_table_free(jl_table *t)
{
    if (!t)
        return;
    for (size_t k = 0; k < t->n_cols; k++) {
        jl_table_column *c = &t->cols[k];
        free(c->name);
        for (size_t i = 0; c->text && i < t->n_rows; i++)
            free(c->text[i]);
        free(c->text);
        free(c->num);
    }
    free(t->cols);
    rows_free(t->rows_);
    free(t);
}
