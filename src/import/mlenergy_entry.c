/* The importer table's row for the ML.ENERGY Leaderboard data: the CLI's
 * view of jl_import_mlenergy() (src/import/mlenergy.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "core/util.h"
#include "import/importers.h"

static jl_status mlenergy_run(const char *const *paths, size_t n_paths,
                              const jl_importer_arg *args, size_t n_args,
                              jl_import_result **out, jl_error_list *errors)
{
    (void)n_paths;
    (void)args;
    (void)n_args;
    jl_status st = jl_import_mlenergy(paths[0], NULL, out, errors);
    if (st == JL_OK && *out)
        (*out)->detail_text = jl_asprintf("%zu re-measurements as __dupN, %zu with timelines, "
                                          "%zu notes",
                                          (*out)->n_duplicates, (*out)->n_with_timelines,
                                          (*out)->n_notes);
    return st;
}

static const jl_importer_option no_options[] = {{NULL, NULL, NULL}};

const jl_importer jl__importer_mlenergy = {
    .name = "mlenergy",
    .summary = "the ML.ENERGY Leaderboard's published data (a folder) as summary-only runs",
    .paths = "DIR",
    .description =
        "Import the ML.ENERGY Leaderboard's published data (DIR holds index.json,\n"
        "models/*.json, tasks/*.json) as a trace file of summary-only runs: one run\n"
        "per configuration, every field kept (import.md). Re-measurements of\n"
        "the same configuration become distinct runs named ...__dup2.\n",
    .options = no_options,
    .min_paths = 1,
    .max_paths = 1,
    .run = mlenergy_run,
};
