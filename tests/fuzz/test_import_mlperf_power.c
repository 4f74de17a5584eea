/* Fuzz target: the MLPerf Power importer (jl_import_mlperf_power_buffer).
 * The input is mlperf_log_detail.txt, a line "----", then spl.txt (without
 * the separator: the whole input as both). Every imported run is then
 * summarised and turned into JSON, as `import` + `summarize` would. */
#include "fuzz_common.h"
#include "fuzz_import_common.h"

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
    jl_status st =
        jl_import_mlperf_power_buffer(b, blen, a, alen, NULL,
                                      "r/SYS_H100-SXM-80GBx8/gptj-99/Offline/performance/run_1",
                                      NULL, &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
