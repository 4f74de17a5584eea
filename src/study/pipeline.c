/* The study pipeline as one call: load, select, descriptors, rules
 * (include/joules/study.h, jl_study_open). */
#include "joules/study.h"

#include <stddef.h>

static jl_status study_open(const char *const *paths, size_t n, const jl_study_options *opt,
                            const jl_selector *sel, const jl_ruleset *rules, jl_summary_list *runs,
                            jl_error_list *errors, jl_descriptors **desc, size_t *n_read,
                            char **unmatched);

jl_status jl_study_open(const char *const *paths, size_t n, const jl_study_options *opt,
                        const jl_selector *sel, const jl_ruleset *rules, jl_summary_list *runs,
                        jl_error_list *errors, jl_descriptors **desc, size_t *n_read,
                        char **unmatched)
{
    *desc = NULL;
    *unmatched = NULL;
    *n_read = 0;
    /* the whole pipeline in opt->trace.context when given (joules/context.h) */
    jl_context *was = opt && opt->trace.context ? jl_context_use(opt->trace.context) : NULL;
    jl_status st = study_open(paths, n, opt, sel, rules, runs, errors, desc, n_read, unmatched);
    if (was)
        jl_context_use(was);
    return st;
}

static jl_status study_open(const char *const *paths, size_t n, const jl_study_options *opt,
                            const jl_selector *sel, const jl_ruleset *rules, jl_summary_list *runs,
                            jl_error_list *errors, jl_descriptors **desc, size_t *n_read,
                            char **unmatched)
{
    jl_status st = jl_study_load(paths, n, opt, runs, errors);
    if (st != JL_OK)
        return st;
    /* A clause that selects nothing is said, with the values present, so a
     * typo never passes for an empty result. */
    if ((st = jl_selector_unmatched(sel, runs, unmatched)) != JL_OK)
        return st;
    *n_read = runs->count;
    jl_summary_list_select(runs, sel);
    /* Descriptors are optional: without them rules that need a GPU's power
     * limit are skipped (and say why). */
    jl_error *derr = NULL;
    if (jl_descriptors_load(NULL, desc, &derr) != JL_OK)
        *desc = NULL;
    jl_error_free(derr);
    for (size_t i = 0; i < runs->count && st == JL_OK; i++)
        st = jl_check_annotate(runs->items[i], rules, *desc);
    return st;
}
