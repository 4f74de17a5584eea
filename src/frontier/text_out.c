/* Atomic text output for the frontier and choice CSVs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "frontier/frontier_internal.h"
#include "joules/output.h"

jl_status jl__write_text(const char *path, int (*fn)(FILE *f, const void *ctx),
                         const void *ctx, jl_error **err)
{
    if (!strcmp(path, "-")) {
        if (fn(stdout, ctx) || fflush(stdout))
            return jl_fail(err, JL_EIO, "<stdout>", NULL, NULL, -1,
                           "cannot write to standard output");
        return JL_OK;
    }
    jl_atomic_file af;
    jl_status st = jl_atomic_open(&af, path, err);
    if (st != JL_OK)
        return st;
    if (fn(af.fp, ctx) || ferror(af.fp)) {
        jl_atomic_abort(&af);
        return jl_fail(err, JL_EIO, path, NULL, NULL, -1, "write failed");
    }
    return jl_atomic_commit(&af, err);
}

void jl__csv_double(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
}
