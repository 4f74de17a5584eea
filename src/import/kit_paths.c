/* Paths as users type them (kit.h): a run's identity is read from the
 * absolute, resolved name of its folder, so `run_1`, `.`, `../run_1/` and
 * a symbolic link to it name one run (docs/import.md, "Paths"). */
#define _XOPEN_SOURCE 700
#include <stdlib.h>

#include "core/util.h"
#include "import/kit.h"

char *jl__imp_real_path(jl__imp *c, const char *path)
{
    char *r = realpath(path, NULL);
    if (!r)
        r = jl__strdup(path); /* not there (a buffer's name in tests): as given */
    if (!r)
        c->oom = 1;
    return r;
}
