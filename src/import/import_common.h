/* import_common.h — what the JSON and log importers (ML.ENERGY v3, v2,
 * Benchmark, MLPerf Power) share: the import context (result, error list, out-of-memory flag), notes counted by
 * (field, message), errors naming file and field, extra attributes, whole
 * files read with a size limit, and run names made unique.
 *
 * Internal to src/import/ (jl__ prefix). Every helper records an allocation
 * failure in ctx->oom and keeps going; jl__imp_finish() turns it into
 * JL_ENOMEM.
 */
#ifndef JOULES_IMPORT_COMMON_H
#define JOULES_IMPORT_COMMON_H

#include <stddef.h>

#include "joules/import.h"

typedef struct jl__imp {
    const jl_import_options *opt;
    jl_import_options def;
    jl_import_result *res;
    jl_error_list *errors;
    size_t runs_cap;
    int oom;
} jl__imp;

/* Start: options (defaults when opt is NULL), an empty result. Returns -1
 * when out of memory. */
int jl__imp_start(jl__imp *c, const jl_import_options *opt, jl_error_list *errors);
/* Hand the result over (JL_OK) or free it (nothing imported: `empty_code`
 * with a message naming `what`; out of memory: JL_ENOMEM). */
jl_status jl__imp_finish(jl__imp *c, jl_import_result **out, const char *what);

void jl__imp_note(jl__imp *c, const char *file, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* An error naming the file, the field (JSON path, column) and the line
 * (-1: none); pushed to the list. Returns code. */
jl_status jl__imp_err(jl__imp *c, jl_status code, const char *file, const char *field,
                      long long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Add a run (taken over; freed on failure); its name is made unique with
 * __dup<k> (counted in res->n_duplicates). */
void jl__imp_push_run(jl__imp *c, jl_run *r);

void jl__imp_extra_num(jl__imp *c, jl_run *r, const char *key, double v);
void jl__imp_extra_text(jl__imp *c, jl_run *r, const char *key, const char *text, int is_num);
void jl__imp_extra_str(jl__imp *c, jl_run *r, const char *key, const char *v);
void jl__imp_summary_num(jl__imp *c, jl_run *r, const char *key, double v);
void jl__imp_summary_str(jl__imp *c, jl_run *r, const char *key, const char *v);

/* Read a whole file (NUL-terminated; *len without the NUL). Errors (missing,
 * larger than opt->max_file_bytes, unreadable) are pushed; returns NULL. */
char *jl__imp_read_file(jl__imp *c, const char *path, size_t *len);

/* The same without a context (for importers with their own, as the
 * ML.ENERGY v3 one): NULL on failure with *code (JL_EIO, JL_ELIMIT,
 * JL_ENOMEM), *err_no the errno of a failed open (ENOENT: missing), and
 * the reason in why ("cannot open: ...", "not a regular file", "the file
 * holds N bytes, more than the limit of M", "read error"). */
char *jl__read_file_limited(const char *path, size_t max_bytes, size_t *len, jl_status *code,
                            int *err_no, char *why, size_t why_cap);

/* s with '/' as "__" and spaces and control characters as '_' (run names). */
char *jl__imp_sanitize(const char *s);

/* Names of the sub-folders (missing_ok: no error when dir cannot be opened)
 * and files of a folder, sorted; n_dirs/n_files set. Returns -1 on an error
 * (pushed). Free with jl__imp_free_names(). */
int jl__imp_list_dir(jl__imp *c, const char *dir, char ***dirs, size_t *n_dirs, char ***files,
                     size_t *n_files);
void jl__imp_free_names(char **names, size_t n);

/* The usual entry of a folder importer: start, walk(c, path, 0, &found)
 * for every path (none found: an error naming `marker`, with `none_msg`),
 * res->source = source, finish. */
typedef void (*jl__imp_walk_fn)(jl__imp *c, const char *dir, int depth, size_t *found);
jl_status jl__imp_paths(const char *const *paths, size_t n_paths, const jl_import_options *opt,
                        jl_import_result **out, jl_error_list *errors, jl__imp_walk_fn walk,
                        const char *marker, const char *none_msg, const char *source);

/* An importer table row's run() for an importer without options: fn over
 * the paths with the default options, then the one-line report
 * "<label>, N notes" (label NULL: "N with series, N notes"). */
typedef jl_status (*jl__imp_paths_entry)(const char *const *paths, size_t n_paths,
                                         const jl_import_options *opt, jl_import_result **out,
                                         jl_error_list *errors);
jl_status jl__imp_run_plain(jl__imp_paths_entry fn, const char *const *paths, size_t n_paths,
                            jl_import_result **out, jl_error_list *errors, const char *label);
/* The option list of an importer without options. */
extern const jl_importer_option jl__imp_no_options[];

/* 1 when path names an existing regular file. */
int jl__imp_is_file(const char *path);

#endif
