/* Expanding the user's paths into a sorted list of trace files. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/inputs.h"
#include "core/util.h"
#include "core/walk.h"
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

/* Every *.h5 file under dir, depth-first in name order, through the one
 * walker (core/walk.h): each folder and file once per (device, inode), so
 * links that loop or repeat end; the depth limit only bounds the stack. */
static jl_status walk(jl__walk *wk, const char *dir, int depth, strvec *out, jl_error_list *errors)
{
    if (depth > 32)
        return jl_error_list_push(errors, jl_error_new(JL_ELIMIT, dir, NULL, NULL, -1,
                                                       "directory nesting deeper than 32 levels"));
    jl__walk_list l;
    int r = jl__walk_dir(wk, dir, &l);
    if (r == 1)
        return JL_OK; /* walked already, through another name */
    if (r == -2)
        return JL_ENOMEM;
    if (r < 0)
        return jl_error_list_push(errors,
                                  jl_error_new(JL_EIO, dir, NULL, NULL, -1,
                                               "cannot open directory: %s", strerror(errno)));
    jl_status st = JL_OK;
    const char *sep = ends_with(dir, "/") ? "" : "/";
    /* files and folders in one name order, as one listing */
    size_t i = 0, j = 0;
    while (st == JL_OK && (i < l.n_files || j < l.n_dirs)) {
        int file = j >= l.n_dirs || (i < l.n_files && strcmp(l.files[i], l.dirs[j]) < 0);
        char *p = jl__asprintf("%s%s%s", dir, sep, file ? l.files[i++] : l.dirs[j++]);
        if (!p)
            st = JL_ENOMEM;
        else if (!file) {
            st = walk(wk, p, depth + 1, out, errors);
            free(p);
        } else if (ends_with(p, ".h5")) {
            if (!strvec_push(out, p))
                st = JL_ENOMEM;
        } else {
            free(p);
        }
    }
    jl__walk_list_free(&l);
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
    /* one walk over every path: a file or folder named again, or reached
     * again through a link, is read once */
    jl__walk wk;
    jl__walk_init(&wk);
    for (size_t i = 0; i < n && st == JL_OK; i++) {
        struct stat sb;
        if (stat(paths[i], &sb) != 0) {
            st = jl_error_list_push(errors, jl_error_new(JL_EIO, paths[i], NULL, NULL, -1, "%s",
                                                         strerror(errno)));
            continue;
        }
        if (jl__walk_seen(&wk, &sb))
            continue; /* named before, or inside a folder walked before */
        if (S_ISDIR(sb.st_mode)) {
            size_t before = out.n;
            st = walk(&wk, paths[i], 0, &out, errors);
            if (st == JL_OK && out.n == before &&
                !not_a_trace(paths[i], "no *.h5 trace files in this directory", errors, &st))
                st = jl_error_list_push(errors,
                                        jl_error_new(JL_EMISSING, paths[i], NULL, NULL, -1,
                                                     "no *.h5 trace files in this directory"));
        } else if (!ends_with(paths[i], ".h5") &&
                   not_a_trace(paths[i], "not a trace file", errors, &st)) {
            continue;
        } else if (jl__walk_claim(&wk, &sb) < 0 || !strvec_push(&out, jl__strdup(paths[i]))) {
            st = JL_ENOMEM;
        }
    }
    jl__walk_free(&wk);
    if (st != JL_OK) {
        jl_paths_free(out.v, out.n);
        *files = NULL;
        *n_files = 0;
        return st;
    }
    /* sorted; each file once already (one walk, by device and inode) */
    if (out.n)
        qsort(out.v, out.n, sizeof *out.v, cmp_str);
    /* the traces the study reads (in worker processes too): the
     * provenance's inputs, noted here in the process that writes it */
    for (size_t i = 0; i < out.n; i++)
        jl__input_read(out.v[i]);
    *files = out.v;
    *n_files = out.n;
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
