/* Fuzz target: the MLPerf Power importer (jl_import_mlperf_power_buffer).
 * The input is mlperf_log_detail.txt, a line "----", then spl.txt (without
 * the separator: the whole input as both). Every imported run is then
 * summarised and turned into JSON, as `import` + `summarize` would. */
#include "fuzz_common.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    const char *a, *b;
    size_t alen, blen;
    fuzz_split(data, size, &a, &alen, &b, &blen);
    if (!b) {
        b = a;
        blen = alen;
    }
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    if (jl_import_mlperf_power_buffer(b, blen, a, alen, NULL,
                                      "r/SYS_H100-SXM-80GBx8/gptj-99/Offline/performance/run_1",
                                      NULL, &res, &errors) == JL_OK && res) {
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
