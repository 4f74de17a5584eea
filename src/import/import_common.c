/* Shared helpers of the importers (import_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "import/import_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

int jl__imp_start(jl__imp *c, const jl_import_options *opt, jl_error_list *errors)
{
    memset(c, 0, sizeof *c);
    jl_import_options_default(&c->def);
    c->opt = opt ? opt : &c->def;
    c->errors = errors;
    c->res = calloc(1, sizeof *c->res);
    return c->res ? 0 : -1;
}

jl_status jl__imp_finish(jl__imp *c, jl_import_result **out, const char *what)
{
    jl_status st = JL_OK;
    if (c->oom) {
        jl_error_list_push(c->errors, jl_error_new(JL_ENOMEM, NULL, NULL, NULL, -1,
                                                   "out of memory during the import"));
        st = JL_ENOMEM;
    } else if (!c->res || c->res->n_runs == 0) {
        jl_error_list_push(c->errors, jl_error_new(JL_ENODATA, what, NULL, NULL, -1,
                                                   "no run could be imported"));
        st = JL_ENODATA;
    }
    if (st != JL_OK) {
        jl_import_result_free(c->res);
        c->res = NULL;
    }
    *out = c->res;
    return st;
}

void jl__imp_note(jl__imp *c, const char *file, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!msg) {
        c->oom = 1;
        return;
    }
    const char *fld = field ? field : "";
    jl_import_result *r = c->res;
    for (size_t i = 0; i < r->n_notes; i++) {
        jl_import_note *n = &r->notes[i];
        if (strcmp(n->field, fld) == 0 && strcmp(n->message, msg) == 0) {
            n->count++;
            free(msg);
            return;
        }
    }
    jl_import_note *grown = realloc(r->notes, (r->n_notes + 1) * sizeof *grown);
    if (!grown) {
        free(msg);
        c->oom = 1;
        return;
    }
    r->notes = grown;
    jl_import_note *n = &grown[r->n_notes++];
    n->file = jl__strdup(file ? file : "");
    n->field = jl__strdup(fld);
    n->message = msg;
    n->count = 1;
    if (!n->file || !n->field)
        c->oom = 1;
}

jl_status jl__imp_err(jl__imp *c, jl_status code, const char *file, const char *field,
                      long long line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = jl__vasprintf(fmt, ap);
    va_end(ap);
    /* the line goes into the text too: jl_error_format() prints no row */
    jl_error *e =
        msg ? (line >= 0 ? jl_error_new(code, file, NULL, field, line, "line %lld: %s", line, msg)
                         : jl_error_new(code, file, NULL, field, line, "%s", msg))
            : NULL;
    free(msg);
    if (!e || jl_error_list_push(c->errors, e) != JL_OK)
        c->oom = 1;
    return code;
}

static int name_taken(const jl_import_result *r, const char *name)
{
    for (size_t i = r->n_runs; i-- > 0;)
        if (strcmp(r->runs[i]->name, name) == 0)
            return 1;
    return 0;
}

void jl__imp_push_run(jl__imp *c, jl_run *r)
{
    jl_import_result *res = c->res;
    if (!r->name) {
        c->oom = 1;
        jl_run_free(r);
        return;
    }
    if (name_taken(res, r->name)) {
        char *nn = NULL;
        for (unsigned k = 2; !nn || name_taken(res, nn); k++) {
            free(nn);
            nn = jl__asprintf("%s__dup%u", r->name, k);
            if (!nn) {
                c->oom = 1;
                jl_run_free(r);
                return;
            }
        }
        free(r->name);
        r->name = nn;
        res->n_duplicates++;
    }
    if (res->n_runs == c->runs_cap) {
        size_t ncap = c->runs_cap ? 2 * c->runs_cap : 64;
        jl_run **g = realloc(res->runs, ncap * sizeof *g);
        if (!g) {
            c->oom = 1;
            jl_run_free(r);
            return;
        }
        res->runs = g;
        c->runs_cap = ncap;
    }
    res->runs[res->n_runs++] = r;
}

static void put(jl__imp *c, jl_kv **arr, size_t *n, const char *key, const char *value, int is_num)
{
    jl_kv *g = realloc(*arr, (*n + 1) * sizeof *g);
    if (!g) {
        c->oom = 1;
        return;
    }
    *arr = g;
    g[*n].key = jl__strdup(key);
    g[*n].value = jl__strdup(value);
    g[*n].is_number = is_num;
    if (!g[*n].key || !g[*n].value) {
        free(g[*n].key);
        free(g[*n].value);
        c->oom = 1;
        return;
    }
    (*n)++;
}

static void num_text(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, "%.17g", v);
}

void jl__imp_extra_num(jl__imp *c, jl_run *r, const char *key, double v)
{
    char buf[40];
    num_text(buf, sizeof buf, v);
    put(c, &r->attrs.extra, &r->attrs.n_extra, key, buf, 1);
}

void jl__imp_extra_text(jl__imp *c, jl_run *r, const char *key, const char *text, int is_num)
{
    put(c, &r->attrs.extra, &r->attrs.n_extra, key, text, is_num);
}

void jl__imp_extra_str(jl__imp *c, jl_run *r, const char *key, const char *v)
{
    put(c, &r->attrs.extra, &r->attrs.n_extra, key, v ? v : "", 0);
}

void jl__imp_summary_num(jl__imp *c, jl_run *r, const char *key, double v)
{
    char buf[40];
    num_text(buf, sizeof buf, v);
    put(c, &r->summary.extra, &r->summary.n_extra, key, buf, 1);
}

void jl__imp_summary_str(jl__imp *c, jl_run *r, const char *key, const char *v)
{
    put(c, &r->summary.extra, &r->summary.n_extra, key, v ? v : "", 0);
}

char *jl__read_file_limited(const char *path, size_t max_bytes, size_t *len, jl_status *code,
                            int *err_no, char *why, size_t why_cap)
{
    *err_no = 0;
    *code = JL_EIO;
    /* O_NONBLOCK: a FIFO named by mistake is refused, not waited on */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        *err_no = errno;
        snprintf(why, why_cap, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        snprintf(why, why_cap, "not a regular file");
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        *code = JL_ENOMEM;
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    if ((unsigned long long)sb.st_size > max_bytes) {
        fclose(f);
        *code = JL_ELIMIT;
        snprintf(why, why_cap, "the file holds %lld bytes, more than the limit of %zu",
                 (long long)sb.st_size, max_bytes);
        return NULL;
    }
    /* the size checked above is what is read (a file growing meanwhile is
     * cut there, and its parser then reports where the text ends) */
    size_t n = (size_t)sb.st_size;
    char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        *code = JL_ENOMEM;
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    size_t got = fread(buf, 1, n, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(why, why_cap, "read error");
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}

char *jl__imp_read_file(jl__imp *c, const char *path, size_t *len)
{
    jl_status code;
    int err_no;
    char why[160];
    char *text =
        jl__read_file_limited(path, c->opt->max_file_bytes, len, &code, &err_no, why, sizeof why);
    if (!text && code == JL_ENOMEM)
        c->oom = 1;
    else if (!text)
        jl__imp_err(c, code, path, NULL, -1, "%s", why);
    return text;
}

char *jl__imp_sanitize(const char *s)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    for (const char *p = s ? s : "unknown"; *p; p++) {
        if (*p == '/')
            jl__strbuf_puts(&b, "__");
        else if ((unsigned char)*p <= 0x20 || *p == '\\' || *p == 0x7f)
            jl__strbuf_puts(&b, "_");
        else
            jl__strbuf_append(&b, p, 1);
    }
    return jl__strbuf_take(&b);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void jl__imp_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int add_name(jl__imp *c, char ***arr, size_t *n, const char *name)
{
    char **g = realloc(*arr, (*n + 1) * sizeof *g);
    if (!g || !(g[*n] = jl__strdup(name))) {
        if (g)
            *arr = g;
        c->oom = 1;
        return -1;
    }
    *arr = g;
    (*n)++;
    return 0;
}

int jl__imp_list_dir(jl__imp *c, const char *dir, char ***dirs, size_t *n_dirs, char ***files,
                     size_t *n_files)
{
    *dirs = *files = NULL;
    *n_dirs = *n_files = 0;
    DIR *d = opendir(dir);
    if (!d) {
        jl__imp_err(c, JL_EIO, dir, NULL, -1, "cannot open the folder: %s", strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *p = jl__asprintf("%s/%s", dir, e->d_name);
        struct stat sb;
        if (!p) {
            c->oom = 1;
            rc = -1;
        } else if (stat(p, &sb) == 0) {
            if (S_ISDIR(sb.st_mode))
                rc = add_name(c, dirs, n_dirs, e->d_name);
            else if (S_ISREG(sb.st_mode))
                rc = add_name(c, files, n_files, e->d_name);
        }
        free(p);
    }
    closedir(d);
    if (rc) {
        jl__imp_free_names(*dirs, *n_dirs);
        jl__imp_free_names(*files, *n_files);
        *dirs = *files = NULL;
        *n_dirs = *n_files = 0;
        return -1;
    }
    if (*n_dirs)
        qsort(*dirs, *n_dirs, sizeof **dirs, cmp_name);
    if (*n_files)
        qsort(*files, *n_files, sizeof **files, cmp_name);
    return 0;
}

int jl__imp_is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

jl_status jl__imp_paths(const char *const *paths, size_t n_paths, const jl_import_options *opt,
                        jl_import_result **out, jl_error_list *errors, jl__imp_walk_fn walk,
                        const char *marker, const char *none_msg, const char *source)
{
    jl__imp c;
    *out = NULL;
    if (jl__imp_start(&c, opt, errors))
        return JL_ENOMEM;
    for (size_t i = 0; i < n_paths && !c.oom; i++) {
        size_t found = 0;
        walk(&c, paths[i], 0, &found);
        if (!found)
            jl__imp_err(&c, JL_EMISSING, paths[i], marker, -1, "%s", none_msg);
    }
    c.res->source = jl__strdup(source);
    if (!c.res->source)
        c.oom = 1;
    return jl__imp_finish(&c, out, n_paths ? paths[0] : NULL);
}

jl_status jl__imp_run_plain(jl__imp_paths_entry fn, const char *const *paths, size_t n_paths,
                            jl_import_result **out, jl_error_list *errors, const char *label)
{
    jl_status st = fn(paths, n_paths, NULL, out, errors);
    if (st == JL_OK && *out)
        (*out)->detail_text = label ? jl__asprintf("%s, %zu notes", label, (*out)->n_notes)
                                    : jl__asprintf("%zu with series, %zu notes",
                                                   (*out)->n_with_timelines, (*out)->n_notes);
    return st;
}

const jl_importer_option jl__imp_no_options[] = {{NULL, NULL, NULL}};
