/* Internal helpers shared by src/frontier/ and src/choice/. Not public API. */
#ifndef JOULES_FRONTIER_INTERNAL_H
#define JOULES_FRONTIER_INTERNAL_H

#include <stdio.h>

#include "joules/error.h"
#include "output/csv_row.h"

/* Columns named by figure, so a CSV never mixes units in one column (J/token
 * and J/item, ITL and batch latency): the figures given by default, then
 * every other figure the rows use, in figure-table order. */
typedef struct jl__figcols {
    int fig[64];
    int n;
} jl__figcols;

/* Start with the default figures (-1 terminated). */
void jl__figcols_init(jl__figcols *c, const int *defaults);
void jl__figcols_add(jl__figcols *c, int fig);
/* A header cell "PREFIX<figure name>" per column. */
void jl__figcols_header(jl__csvw *r, const jl__figcols *c, const char *prefix);
/* One cell per column: v under figure fig, empty elsewhere (and everywhere
 * when v is missing). */
void jl__figcols_cells(jl__csvw *r, const jl__figcols *c, int fig, double v);

/* jl__attr_value_cmp, the comparison of attribute values that grouping
 * uses, is in study/study_internal.h (src/study/group.c). */
#include "study/study_internal.h"

#endif
