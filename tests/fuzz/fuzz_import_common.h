/* What every importer fuzz target does after an import: summarise each run
 * and turn it into JSON (as `joules import` + `summarize` would), format
 * every error, free everything. */
#ifndef JOULES_FUZZ_IMPORT_COMMON_H
#define JOULES_FUZZ_IMPORT_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

/* An importer of the table that reads files: the input written to a
 * temporary file (made once per process, `tag` in its name), imported as
 * `joules import FORMAT FILE ARGS...` would, then fuzz_finish_import. */
static inline void fuzz_import_file(const char *format, const char *tag, const uint8_t *data,
                                    size_t size, const jl_importer_arg *args, size_t n_args)
{
    static char path[96];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/joules-fuzz-%s-XXXXXX", tag);
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    const jl_importer *im = jl_importer_find(format);
    if (!im)
        abort();
    const char *paths[] = {path};
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    jl_status st = im->run(paths, 1, args, n_args, &res, &errors);
    fuzz_finish_import(st, res, &errors);
}

#endif
