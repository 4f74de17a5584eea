/* notebooks-export/: the Jupyter notebook templates of the repository's
 * notebooks-export/ folder, copied into the report with their placeholders
 * filled in. Templates load ../data/ (report.json, summary.csv,
 * frontier.json, timeseries/) with pandas and redraw each figure with
 * matplotlib; tests execute them as exported. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "joules/output.h"
#include "report/report_internal.h"
#include "report/sections.h"

#ifndef JOULES_DEFAULT_NOTEBOOKS_DIR
#define JOULES_DEFAULT_NOTEBOOKS_DIR ""
#endif
#ifndef JOULES_INSTALL_NOTEBOOKS_DIR
#define JOULES_INSTALL_NOTEBOOKS_DIR ""
#endif

static int is_dir(const char *p)
{
    struct stat sb;
    return p && *p && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static const char *templates_dir(const jl__report_report *r)
{
    if (r->opt.templates_dir)
        return r->opt.templates_dir;
    const char *env = getenv("JOULES_NOTEBOOKS_DIR");
    if (env && *env)
        return env;
    if (is_dir(JOULES_DEFAULT_NOTEBOOKS_DIR))
        return JOULES_DEFAULT_NOTEBOOKS_DIR;
    if (is_dir(JOULES_INSTALL_NOTEBOOKS_DIR))
        return JOULES_INSTALL_NOTEBOOKS_DIR;
    return NULL;
}

static int wanted(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return 0;
    return (n > 6 && !strcmp(name + n - 6, ".ipynb")) || !strcmp(name, "README.md");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replace every occurrence of `key` in text by `val`. */
static char *replace_all(const char *text, const char *key, const char *val)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    size_t kl = strlen(key);
    const char *p = text, *q;
    while ((q = strstr(p, key)) != NULL) {
        jl__strbuf_append(&b, p, (size_t)(q - p));
        jl__strbuf_puts(&b, val);
        p = q + kl;
    }
    jl__strbuf_puts(&b, p);
    return jl__strbuf_take(&b);
}

jl_status jl__report_notebooks_write(jl__report_report *r, jl_error **err)
{
    const char *dir = templates_dir(r);
    if (!dir || !is_dir(dir)) {
        jl__report_note(r,
                        "notebook templates not found (set JOULES_NOTEBOOKS_DIR or --templates): "
                        "notebooks-export/ is empty");
        return JL_OK;
    }
    DIR *d = opendir(dir);
    if (!d) {
        jl__report_note(r, "notebook templates in %s cannot be read: notebooks-export/ is empty",
                        dir);
        return JL_OK;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!wanted(e->d_name))
            continue;
        char **p = realloc(names, (n + 1) * sizeof *p);
        if (!p || !(p[n] = jl__strdup(e->d_name))) {
            free(p ? p : names);
            closedir(d);
            return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        }
        names = p;
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    jl_status st = JL_OK;
    size_t copied = 0;
    for (size_t i = 0; i < n; i++) {
        char *src = jl__asprintf("%s/%s", dir, names[i]);
        char *text = src ? jl__report_read_file(src) : NULL;
        if (!text) {
            jl__report_note(r, "notebook template %s cannot be read: skipped",
                            src ? src : names[i]);
            free(src);
            continue;
        }
        /* a notebook must be valid JSON to be of any use */
        if (strstr(names[i], ".ipynb")) {
            json_error_t je;
            json_t *nb = json_loads(text, 0, &je);
            if (!nb) {
                jl__report_note(r, "notebook template %s is not valid JSON (line %d: %s): skipped",
                                names[i], je.line, je.text);
                free(text);
                free(src);
                continue;
            }
            json_decref(nb);
        }
        char *out = replace_all(text, "@JOULES_DATA_DIR@", "../data");
        char *rel = jl__asprintf("notebooks-export/%s", names[i]);
        if (!out || !rel)
            st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
        else if (!(st = jl__report_write_text(r, rel, out, err)))
            copied++;
        free(out);
        free(rel);
        free(text);
        free(src);
        if (st)
            break;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (!st && !copied)
        jl__report_note(r, "no notebook templates in %s: notebooks-export/ is empty", dir);
    return st;
}
