/* The cells of a table being built (table.c), for the row writer's table
 * mode (csv.c). Not public API. */
#ifndef JOULES_OUTPUT_TABLE_INTERNAL_H
#define JOULES_OUTPUT_TABLE_INTERNAL_H

#include <stddef.h>

#include "joules/output.h"

enum { TC_EMPTY, TC_NUM, TC_INT, TC_TEXT };

void jl__tbl_row_begin(jl_table *t);
/* One cell of the row begun last: kind TC_*, its number (TC_NUM, TC_INT)
 * and its text (len bytes; NULL or TC_EMPTY: none). */
void jl__tbl_cell(jl_table *t, int kind, double v, const char *text, size_t len);

#endif
