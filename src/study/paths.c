/* Expanding the user's paths into a sorted list of trace files. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/inputs.h"
#include "core/util.h"
#include "joules/import.h"
#include "joules/study.h"

typedef struct {
    char **v;
    size_t n, cap;
} strvec;

static int strvec_push(strvec *sv, char *s)
{
    if (!s)
        return 0;
    if (sv->n == sv->cap) {
        size_t cap = sv->cap ? sv->cap * 2 : 16;
        char **v = realloc(sv->v, cap * sizeof *v);
        if (!v) {
            free(s);
            return 0;
        }
        sv->v = v;
        sv->cap = cap;
    }
    sv->v[sv->n++] = s;
    return 1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Depth-limited so a symlink loop cannot recurse forever. */
static jl_status walk(const char *dir, int depth, strvec *out, jl_error_list *errors)
{
    if (depth > 32)
        return jl_error_list_push(errors, jl_error_new(JL_ELIMIT, dir, NULL, NULL, -1,
                                                       "directory nesting deeper than 32 levels"));
    DIR *d = opendir(dir);
    if (!d)
        return jl_error_list_push(errors,
                                  jl_error_new(JL_EIO, dir, NULL, NULL, -1,
                                               "cannot open directory: %s", strerror(errno)));
    strvec names = {0};
    struct dirent *de;
    jl_status st = JL_OK;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue; /* hidden files, . and .. */
        if (!strvec_push(&names, jl__strdup(de->d_name))) {
            st = JL_ENOMEM;
            break;
        }
    }
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    for (size_t i = 0; i < names.n && st == JL_OK; i++) {
        char *p = jl__asprintf("%s%s%s", dir, ends_with(dir, "/") ? "" : "/", names.v[i]);
        struct stat sb;
        if (!p) {
            st = JL_ENOMEM;
        } else if (stat(p, &sb) != 0) {
            free(p); /* dangling link: not a trace */
        } else if (S_ISDIR(sb.st_mode)) {
            st = walk(p, depth + 1, out, errors);
            free(p);
        } else if (S_ISREG(sb.st_mode) && ends_with(p, ".h5")) {
            if (!strvec_push(out, p))
                st = JL_ENOMEM;
        } else {
            free(p);
        }
    }
    for (size_t i = 0; i < names.n; i++)
        free(names.v[i]);
    free(names.v);
    return st;
}

/* A path that is no trace but something `joules import` reads (or a known
 * log it cannot): an error saying what it looks like and the command to
 * run (jl_import_guess_path). 1 when pushed (st set), 0 when not
 * recognised. */
static int not_a_trace(const char *path, const char *lead, jl_error_list *errors, jl_status *st)
{
    jl_import_guess g;
    if (!jl_import_guess_path(path, &g))
        return 0;
    jl_error *e =
        g.command[0]
            ? jl_error_new(JL_EFORMAT, path, NULL, NULL, -1,
                           "%s: it looks like %s. Import it first: `%s`", lead, g.what, g.command)
            : jl_error_new(JL_EFORMAT, path, NULL, NULL, -1, "%s: it looks like %s", lead, g.what);
    *st = jl_error_list_push(errors, e);
    return 1;
}

jl_status jl_collect_paths(const char *const *paths, size_t n, char ***files, size_t *n_files,
                           jl_error_list *errors)
{
    strvec out = {0};
    jl_status st = JL_OK;
    for (size_t i = 0; i < n && st == JL_OK; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) != 0) {
            st = jl_error_list_push(errors, jl_error_new(JL_EIO, paths[i], NULL, NULL, -1, "%s",
                                                         strerror(errno)));
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            size_t before = out.n;
            st = walk(paths[i], 0, &out, errors);
            if (st == JL_OK && out.n == before &&
                !not_a_trace(paths[i], "no *.h5 trace files in this directory", errors, &st))
                st = jl_error_list_push(errors,
                                        jl_error_new(JL_EMISSING, paths[i], NULL, NULL, -1,
                                                     "no *.h5 trace files in this directory"));
        } else if (!ends_with(paths[i], ".h5") &&
                   not_a_trace(paths[i], "not a trace file", errors, &st)) {
            continue;
        } else if (!strvec_push(&out, jl__strdup(paths[i]))) {
            st = JL_ENOMEM;
        }
    }
    if (st != JL_OK) {
        jl_paths_free(out.v, out.n);
        *files = NULL;
        *n_files = 0;
        return st;
    }
    /* Sorted, duplicates removed: the same file named twice is read once. */
    if (out.n)
        qsort(out.v, out.n, sizeof *out.v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < out.n; i++) {
        if (k && !strcmp(out.v[k - 1], out.v[i])) {
            free(out.v[i]);
            continue;
        }
        out.v[k++] = out.v[i];
    }
    /* the traces the study reads (in worker processes too): the
     * provenance's inputs, noted here in the process that writes it */
    for (size_t i = 0; i < k; i++)
        jl__input_read(out.v[i]);
    *files = out.v;
    *n_files = k;
    return JL_OK;
}

void jl_paths_free(char **files, size_t n)
{
    if (!files)
        return;
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
}
