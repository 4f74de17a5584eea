/* The importer table's row for the ML.ENERGY Leaderboard data: the CLI's
 * view of jl_import_mlenergy() (src/import/mlenergy.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include <string.h>

#include "core/util.h"
#include "import/importers.h"
#include "import/kit.h"

static jl_status mlenergy_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                              size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    (void)n_paths;
    jl_import_options o;
    jl_import_options_default(&o);
    for (size_t i = 0; i < n_args; i++)
        if (!strcmp(args[i].name, "power-timeline")) {
            if (strcmp(args[i].value, "per-gpu") && strcmp(args[i].value, "sum"))
                return jl__imp_err_at(errors, JL_EUSAGE, NULL, 0, 0, NULL,
                                      "--power-timeline: expected per-gpu or sum, found '%s'",
                                      args[i].value);
            o.timeline_power_is_sum = !strcmp(args[i].value, "sum");
        }
    jl_status st = jl_import_mlenergy_auto(paths[0], &o, out, errors);
    if (st == JL_OK && *out)
        (*out)->detail_text =
            jl__asprintf("%zu re-measurements as __dupN, %zu with timelines, "
                         "%zu notes",
                         (*out)->n_duplicates, (*out)->n_with_timelines, (*out)->n_notes);
    return st;
}

static const jl_importer_option mlenergy_options[] = {
    {"power-timeline", "per-gpu|sum",
     "a power timeline value is one GPU's reading (default) or the GPUs' sum"},
    {NULL, NULL, NULL},
};

const jl_importer jl__importer_mlenergy = {
    .name = "mlenergy",
    .summary =
        "the ML.ENERGY Leaderboard's published data (v3, v2 data/, v1 CSV) as summary-only runs",
    .paths = "DIR",
    .description = "Import the ML.ENERGY Leaderboard's published data as a trace file of\n"
                   "summary-only runs: one run per configuration, every field kept\n"
                   "(import.md). DIR is the v3 data (index.json, models/*.json,\n"
                   "tasks/*.json; index.json may be missing), the v2 data/ folder\n"
                   "(llm_text_generation/, mllm_text_generation/, diffusion/, legacy/) or a\n"
                   "folder of v1 <GPU>_<task>_benchmark.csv files. Re-measurements of the\n"
                   "same configuration become distinct runs named ...__dup2. v3\n"
                   "configurations with timelines keep their published figures beside the\n"
                   "series (trace format 1.1, @window steady_state_only).\n",
    .options = mlenergy_options,
    .min_paths = 1,
    .max_paths = 1,
    .run = mlenergy_run,
};
