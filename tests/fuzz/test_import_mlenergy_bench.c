/* Fuzz target: the ML.ENERGY Benchmark importer
 * (jl_import_mlenergy_benchmark_buffer: the streaming JSON parser and the
 * Prometheus text parser). The input is results.json, a line "----", then
 * prometheus.json (optional). Every imported run is then summarised and
 * turned into JSON, as `import` + `summarize` would. */
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
        jl_import_mlenergy_benchmark_buffer(a, alen, b == a ? NULL : b, b == a ? 0 : blen,
                                            "run/llm/chat/o/m/H100/num_gpus+2+max_num_seqs+4", NULL,
                                            &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
