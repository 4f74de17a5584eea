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
    jl_status st = jl_import_mlenergy_auto(paths[0], NULL, out, errors);
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
    .summary = "the ML.ENERGY Leaderboard's published data (v3, v2 data/, v1 CSV) as summary-only runs",
    .paths = "DIR",
    .description =
        "Import the ML.ENERGY Leaderboard's published data as a trace file of\n"
        "summary-only runs: one run per configuration, every field kept\n"
        "(docs/import.md). DIR is the v3 data (index.json, models/*.json,\n"
        "tasks/*.json), the v2 data/ folder (llm_text_generation/,\n"
        "mllm_text_generation/, diffusion/, legacy/) or a folder of v1\n"
        "<GPU>_<task>_benchmark.csv files. Re-measurements of the same\n"
        "configuration become distinct runs named ...__dup2.\n",
    .options = no_options,
    .min_paths = 1,
    .max_paths = 1,
    .run = mlenergy_run,
};
