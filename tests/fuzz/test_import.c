/* Fuzz target: the ML.ENERGY importer (include/joules/import.h) via
 * jl_import_mlenergy_buffer(). The input is one model file, or index.json,
 * a line "----", then a model file. Every imported run is then summarised
 * and turned into its JSON object, as `joules import` + `summarize` would. */
#include "fuzz_common.h"
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    const char *a, *b;
    size_t alen, blen;
    fuzz_split(data, size, &a, &alen, &b, &blen);
    const char *index = b ? a : NULL, *model = b ? b : a;
    size_t index_len = b ? alen : 0, model_len = b ? blen : alen;
    jl_import_options opt;
    jl_import_options_default(&opt);
    opt.max_series = 100000; /* keep one execution small */
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    jl_status st = jl_import_mlenergy_buffer(index, index_len, model, model_len,
                                             "models/org__model__task.json", &opt, &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
