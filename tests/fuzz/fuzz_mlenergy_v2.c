/* Fuzz target: the ML.ENERGY Leaderboard v2 / v1 importer
 * (jl_import_mlenergy_v2_buffer). The first byte picks the document: even,
 * an LLM configuration file; odd, a diffusion one; 'C', a v1 CSV. Every
 * imported run is summarised, as `import` + `summarize` would. */
#include "fuzz_common.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    const char *path = data[0] == 'C' ? "A100_chat_benchmark.csv"
                       : data[0] % 2 ? "diffusion/text-to-image/H100 80GB HBM3/o/m/bs2+steps25.json"
                                     : "llm_text_generation/chat/A100-SXM4-40GB/o/m/bs64+tp2+pp1.json";
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    if (jl_import_mlenergy_v2_buffer((const char *)data + 1, size - 1, path, NULL, &res,
                                     &errors) == JL_OK && res) {
        for (size_t i = 0; i < res->n_runs; i++) {
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
    }
    for (size_t i = 0; i < errors.count; i++)
        free(jl_error_format(errors.items[i]));
    jl_import_result_free(res);
    jl_error_list_clear(&errors);
    return 0;
}
