/* Paths as users type them (kit.h): a run's identity is read from the
 * absolute, resolved name of its folder, so `run_1`, `.`, `../run_1/` and
 * a symbolic link to it name one run (docs/import.md, "Paths as typed"). */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

char *jl__imp_source_name(const char *prefix, const char *path)
{
    char *r = realpath(path, NULL);
    char *s = jl__asprintf("%s%s", prefix, r ? r : path);
    free(r);
    return s;
}

static int same_file(const char *a, const struct stat *b)
{
    struct stat sa;
    return stat(a, &sa) == 0 && sa.st_dev == b->st_dev && sa.st_ino == b->st_ino;
}

int jl__imp_log_named(const char *cell, const char *runs_csv, const char *path)
{
    if (!cell || !strcmp(cell, path))
        return 1;
    const char *slash = strrchr(path, '/');
    if (!strcmp(cell, slash ? slash + 1 : path))
        return 1;
    struct stat sp;
    if (!*cell || stat(path, &sp) != 0)
        return 0;
    const char *rs = runs_csv ? strrchr(runs_csv, '/') : NULL;
    if (cell[0] != '/' && rs) {
        char *rel = jl__asprintf("%.*s/%s", (int)(rs - runs_csv), runs_csv, cell);
        int same = rel && same_file(rel, &sp);
        free(rel);
        if (same)
            return 1;
    }
    return same_file(cell, &sp);
}

void jl__imp_extra_path(jl__imp *c, jl_run *r, const char *key, const char *path)
{
    if (jl__imp_extra_get(r, key))
        return;
    char *real = jl__imp_real_path(c, path);
    if (real)
        jl__imp_extra_default(c, r, key, real, 0);
    free(real);
}
