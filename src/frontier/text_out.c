/* The figure columns shared by the frontier and choice CSVs (the files
 * themselves are written with output.h's jl_write_text, their cells with
 * the output kit's row writer). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "frontier/frontier_internal.h"
#include "joules/output.h"

void jl__figcols_add(jl__figcols *c, int fig)
{
    if (fig < 0)
        return;
    for (int i = 0; i < c->n; i++)
        if (c->fig[i] == fig)
            return;
    if (c->n == (int)(sizeof c->fig / sizeof c->fig[0]))
        return;
    /* keep figure-table order */
    int i = c->n++;
    while (i > 0 && c->fig[i - 1] > fig) {
        c->fig[i] = c->fig[i - 1];
        i--;
    }
    c->fig[i] = fig;
}

void jl__figcols_init(jl__figcols *c, const int *defaults)
{
    c->n = 0;
    for (int i = 0; defaults && defaults[i] >= 0; i++)
        jl__figcols_add(c, defaults[i]);
}

void jl__figcols_header(jl__csvw *r, const jl__figcols *c, const char *prefix)
{
    for (int i = 0; i < c->n; i++)
        jl__csvw_cellf(r, "%s%s", prefix ? prefix : "", jl_figure_name((jl_figure)c->fig[i]));
}

void jl__figcols_cells(jl__csvw *r, const jl__figcols *c, int fig, double v)
{
    for (int i = 0; i < c->n; i++) {
        if (c->fig[i] == fig)
            jl__csvw_num(r, v);
        else
            jl__csvw_empty(r);
    }
}
