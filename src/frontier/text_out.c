/* Shared CSV cell helper for the frontier and choice CSVs (the files
 * themselves are written with output.h's jl_write_text). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "frontier/frontier_internal.h"
#include "joules/output.h"

void jl__csv_double(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
}
