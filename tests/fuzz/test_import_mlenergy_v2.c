/* Fuzz target: the ML.ENERGY Leaderboard v2 / v1 importer
 * (jl_import_mlenergy_v2_buffer). The first byte picks the document: even,
 * an LLM configuration file; odd, a diffusion one; 'C', a v1 CSV. Every
 * imported run is summarised, as `import` + `summarize` would. */
#include "fuzz_common.h"
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    const char *path = data[0] == 'C' ? "A100_chat_benchmark.csv"
                       : data[0] % 2
                           ? "diffusion/text-to-image/H100 80GB HBM3/o/m/bs2+steps25.json"
                           : "llm_text_generation/chat/A100-SXM4-40GB/o/m/bs64+tp2+pp1.json";
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    jl_status st =
        jl_import_mlenergy_v2_buffer((const char *)data + 1, size - 1, path, NULL, &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
