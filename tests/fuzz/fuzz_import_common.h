/* What every importer fuzz target does after an import: summarise each run
 * and turn it into JSON (as `joules import` + `summarize` would), format
 * every error, free everything. */
#ifndef JOULES_FUZZ_IMPORT_COMMON_H
#define JOULES_FUZZ_IMPORT_COMMON_H

#include "joules/import.h"
#include "joules/output.h"
#include "joules/summary.h"

static inline void fuzz_finish_import(jl_status st, jl_import_result *res, jl_error_list *errors)
{
    for (size_t i = 0; st == JL_OK && res && i < res->n_runs; i++) {
        jl_summary *s = NULL;
        jl_error *err = NULL;
        if (jl_summarize(res->runs[i], NULL, &s, &err) == JL_OK) {
            json_t *o = jl_summary_to_json(s);
            free(jl_json_dump(o));
            json_decref(o);
        }
        jl_summary_free(s);
        jl_error_free(err);
    }
    for (size_t i = 0; i < errors->count; i++)
        free(jl_error_format(errors->items[i]));
    jl_import_result_free(res);
    jl_error_list_clear(errors);
}

#endif
