/* Loading a study: every run of every file, summarised; failures collected,
 * never fatal to the others. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/study.h"

void jl_study_options_default(jl_study_options *opt)
{
    memset(opt, 0, sizeof *opt);
    jl_trace_options_default(&opt->trace);
    jl_summary_options_default(&opt->summary);
    opt->workers = 1;
}

jl_status jl_study_load_file(const char *path, const jl_study_options *opt,
                             jl_summary_list *out, jl_error_list *errors)
{
    jl_trace *t = NULL;
    jl_error *err = NULL;
    jl_status st = jl_trace_open(path, &opt->trace, &t, &err);
    if (st != JL_OK) {
        if (!err)
            err = jl_error_new(st, path, NULL, NULL, -1, "%s", jl_strerror(st));
        jl_error_set_context(err, path, NULL);
        return st == JL_ENOMEM ? st : jl_error_list_push(errors, err);
    }
    size_t n = jl_trace_run_count(t);
    for (size_t i = 0; i < n; i++) {
        jl_run *run = NULL;
        jl_summary *s = NULL;
        err = NULL;
        st = jl_trace_read_run(t, i, &run, &err);
        if (st == JL_OK)
            st = jl_summarize(run, &opt->summary, &s, &err);
        if (st == JL_OK) {
            st = jl_summary_list_push(out, s);
            if (st != JL_OK)
                jl_summary_free(s);
        } else if (st != JL_ENOMEM) {
            if (!err)
                err = jl_error_new(st, path, jl_trace_run_name(t, i), NULL, -1,
                                   "%s", jl_strerror(st));
            jl_error_set_context(err, path, jl_trace_run_name(t, i));
            st = jl_error_list_push(errors, err);
            err = NULL;
        }
        jl_error_free(err);
        jl_run_free(run);
        if (st == JL_ENOMEM)
            break;
    }
    jl_trace_close(t);
    return st == JL_ENOMEM ? st : JL_OK;
}

jl_status jl_study_load(const char *const *paths, size_t n,
                        const jl_study_options *opt, jl_summary_list *out,
                        jl_error_list *errors)
{
    jl_study_options defaults;
    if (!opt) {
        jl_study_options_default(&defaults);
        opt = &defaults;
    }
    char **files = NULL;
    size_t n_files = 0;
    jl_status st = jl_collect_paths(paths, n, &files, &n_files, errors);
    if (st != JL_OK)
        return st;
    for (size_t i = 0; i < n_files && st == JL_OK; i++) {
        st = jl_study_load_file(files[i], opt, out, errors);
        if (opt->progress)
            opt->progress(opt->progress_ctx, i + 1, n_files, files[i]);
    }
    jl_paths_free(files, n_files);
    return st;
}
