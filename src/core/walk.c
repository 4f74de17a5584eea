/* Folder walks that end (walk.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void jl__walk_init(jl__walk *w)
{
    w->seen = (jl__strmap)JL__STRMAP_INIT;
}

void jl__walk_free(jl__walk *w)
{
    jl__strmap_free(&w->seen);
}

static void key_of(char *key, size_t cap, const struct stat *sb)
{
    snprintf(key, cap, "%llx:%llx", (unsigned long long)sb->st_dev, (unsigned long long)sb->st_ino);
}

int jl__walk_claim(jl__walk *w, const struct stat *sb)
{
    char key[48];
    key_of(key, sizeof key, sb);
    int added;
    if (!jl__strmap_add(&w->seen, key, 0, &added))
        return -1;
    return added;
}

int jl__walk_seen(const jl__walk *w, const struct stat *sb)
{
    char key[48];
    key_of(key, sizeof key, sb);
    return jl__strmap_find(&w->seen, key) != NULL;
}

int jl__walk_claim_path(jl__walk *w, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -2;
    return jl__walk_claim(w, &sb);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        char **g = jl__malloc_array(nc, sizeof *g);
        if (!g)
            return -1;
        if (*n)
            memcpy(g, *v, *n * sizeof *g);
        free(*v);
        *v = g;
        *cap = nc;
    }
    if (!((*v)[*n] = jl__strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

void jl__walk_list_free(jl__walk_list *l)
{
    for (size_t i = 0; i < l->n_dirs; i++)
        free(l->dirs[i]);
    for (size_t i = 0; i < l->n_files; i++)
        free(l->files[i]);
    free(l->dirs);
    free(l->files);
    memset(l, 0, sizeof *l);
}

/* The names of dir's entries not starting with '.', sorted. */
static int read_names(DIR *d, char ***names, size_t *n)
{
    size_t cap = 0;
    struct dirent *e;
    *names = NULL;
    *n = 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && push(names, n, &cap, e->d_name))
            return -1;
    if (*n)
        qsort(*names, *n, sizeof **names, cmp_name);
    return 0;
}

int jl__walk_dir(jl__walk *w, const char *dir, jl__walk_list *out)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct stat sb;
    if (fstat(dirfd(d), &sb) != 0) {
        int e = errno;
        closedir(d);
        errno = e;
        return -1;
    }
    int claim = jl__walk_claim(w, &sb);
    if (claim <= 0) {
        closedir(d);
        return claim < 0 ? -2 : 1;
    }
    char **names = NULL;
    size_t n = 0;
    int rc = read_names(d, &names, &n);
    closedir(d);
    size_t cap_d = 0, cap_f = 0, dl = strlen(dir);
    int slash = dl > 0 && dir[dl - 1] == '/';
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *p = jl__asprintf("%s%s%s", dir, slash ? "" : "/", names[i]);
        if (!p) {
            rc = -1;
            break;
        }
        if (stat(p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) {
                /* a folder met before (its own or a sibling's link) is
                 * left out here already; one met later is refused by its
                 * own listing */
                if (jl__walk_seen(w, &sb))
                    out->n_repeats++;
                else
                    rc = push(&out->dirs, &out->n_dirs, &cap_d, names[i]);
            } else if (S_ISREG(sb.st_mode)) {
                int c = jl__walk_claim(w, &sb);
                if (c < 0)
                    rc = -1;
                else if (c == 0)
                    out->n_repeats++;
                else
                    rc = push(&out->files, &out->n_files, &cap_f, names[i]);
            }
        }
        free(p);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc) {
        jl__walk_list_free(out);
        return -2;
    }
    return 0;
}
