/* Fuzz target: the descriptor files (models/gpus.json, models/models.json)
 * via jl_descriptors_load_buffers(). The input is gpus.json, a line "----",
 * then models.json; then every lookup the summary and check code does. */
#include <math.h>

#include "fuzz_common.h"
#include "joules/descriptors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 262144)
        return 0;
    const char *g, *m;
    size_t glen, mlen;
    fuzz_split(data, size, &g, &glen, &m, &mlen);
    if (!m) {
        m = "{\"models\": {}}";
        mlen = strlen(m);
    }
    jl_descriptors *d = NULL;
    jl_error *err = NULL;
    if (jl_descriptors_load_buffers(g, glen, m, mlen, &d, &err) == JL_OK) {
        static const char *const gpus[] = {"H100", "h100", "B200", "", NULL};
        static const char *const models[] = {
            "Qwen/Qwen3-8B", "Qwen/Qwen3-8B-FP8", "qwen/qwen3-8b", "-FP8", "", NULL};
        jl_attrs a;
        jl_attrs_init(&a);
        for (int i = 0; gpus[i]; i++)
            for (int j = 0; models[j]; j++) {
                (void)jl_descriptors_gpu(d, gpus[i]);
                (void)jl_descriptors_model(d, models[j]);
                a.gpu_model = (char *)gpus[i];
                a.model = (char *)models[j];
                a.precision = (char *)(j % 2 ? "fp8" : "int4-awq");
                (void)jl_run_gpu_memory_bytes(&a, d);
                (void)jl_run_gpu_tdp_w(&a, d);
                (void)jl_run_gpu_idle_w(&a, d);
                (void)jl_run_kv_bytes_per_token(&a, d);
                (void)jl_run_weight_bytes(&a, d);
            }
        jl_descriptors_free(d);
    }
    jl_error_free(err);
    return 0;
}
