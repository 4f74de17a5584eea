/* Fuzz target: the Kineto importer's parser and folding
 * (src/import/kineto.c, jl__kineto_spans_buffer): the input is a profile;
 * the first byte picks the side (0: as found, 1: gpu, 2: cpu). The spans
 * are then attributed against a small synthetic run. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_spans_common.h"
#include "import/profile_spans.h"
#include "joules/attribution.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    static const char *const sides[] = {NULL, "gpu", "cpu"};
    const char *side = sides[data[0] % 3];
    jl_run *run = fuzz_span_run();
    jl_spans *s = NULL;
    jl_error_list errors = {0};
    if (jl__kineto_spans_buffer((const char *)data + 1, size - 1, run, side, &s, &errors) !=
        JL_OK) {
        jl_spans_free(s);
        s = NULL;
    }
    fuzz_span_finish(run, s, &errors);
    return 0;
}
