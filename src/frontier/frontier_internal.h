/* Internal helpers shared by src/frontier/ and src/choice/. Not public API. */
#ifndef JOULES_FRONTIER_INTERNAL_H
#define JOULES_FRONTIER_INTERNAL_H

#include <stdio.h>

#include "joules/error.h"

/* A double for CSV: %.17g, empty when NaN/inf. */
void jl__csv_double(FILE *f, double v);

/* Attribute values as grouping compares them: missing (NULL) last, two
 * numbers numerically ("1" == "1.0"), else strcmp. */
int jl__attr_value_cmp(const char *a, const char *b);

#endif
