/* Fuzz target: the Kineto importer's parser and folding
 * (src/import/kineto.c, jl__kineto_spans_buffer): the input is a profile;
 * the first byte picks the side (0: as found, 1: gpu, 2: cpu). The spans
 * are then attributed against a small synthetic run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "import/profile_spans.h"
#include "joules/attribution.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    static const char *const sides[] = {NULL, "gpu", "cpu"};
    const char *side = sides[data[0] % 3];
    jl_run *run = jl_run_new();
    run->attrs.start_time_unix = 1.0;
    run->attrs.num_gpus = 1;
    run->attrs.gpu_idle_power_w = 100;
    run->power_n = 64;
    run->power_time = malloc(64 * sizeof(double));
    run->energy_j = (jl_series){64, 1, malloc(64 * sizeof(double))};
    for (size_t i = 0; run->power_time && run->energy_j.v && i < 64; i++) {
        run->power_time[i] = 0.05 * (double)i;
        run->energy_j.v[i] = 20.0 * floor((double)i / 2);
    }
    jl_spans *s = NULL;
    jl_error_list errors = {0};
    if (jl__kineto_spans_buffer((const char *)data + 1, size - 1, run, side, &s, &errors) ==
            JL_OK &&
        s) {
        jl_attribution *a = NULL;
        jl_error *err = NULL;
        if (jl_attribution_compute(run, s, NULL, NULL, &a, &err) == JL_OK) {
            json_t *doc = jl_attribution_document(a);
            json_decref(doc);
        }
        jl_attribution_free(a);
        jl_error_free(err);
    }
    for (size_t i = 0; i < errors.count; i++)
        free(jl_error_format(errors.items[i]));
    jl_error_list_clear(&errors);
    jl_spans_free(s);
    jl_run_free(run);
    return 0;
}
