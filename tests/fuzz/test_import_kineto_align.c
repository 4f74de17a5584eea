/* Fuzz target: the Kineto importer's --align file (src/import/kineto.c,
 * align_from_file): the clocks of a profile from the wall_ns /
 * perf_counter_ns pairs a harness wrote. The input is the alignment JSON,
 * optionally a line "----" and then the profile (without it, a small
 * profile of one annotation and one kernel named "p.json"). The JSON is
 * written to a temporary file (the importer reads a path); the first byte
 * of the input picks the spec: odd, FILE.json:b0512 (an entry by its key);
 * even, FILE.json (the entry that lists the profile in "files"). The spans
 * are then attributed against a small synthetic run. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_spans_common.h"
#include "import/profile_spans.h"
#include "joules/attribution.h"

static const char profile[] =
    "{\"baseTimeNanoseconds\": 1000000000, \"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"decode_step\", \"ts\": 100000,"
    " \"dur\": 500000, \"pid\": 0, \"tid\": 7},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 200000, \"dur\": 1000,"
    " \"pid\": 0, \"tid\": 7}]}";

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    if (!path[0]) { /* a folder of its own, the file named *.json (the spec's KEY follows) */
        char dir[] = "/tmp/joules-fuzz-align-XXXXXX";
        if (!mkdtemp(dir))
            abort();
        snprintf(path, sizeof path, "%s/align.json", dir);
    }
    const char *a, *b;
    size_t alen, blen;
    fuzz_split(data + 1, size - 1, &a, &alen, &b, &blen);
    if (!b) {
        b = profile;
        blen = sizeof profile - 1;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, alen, f) != alen || fclose(f) != 0)
        abort();
    char spec[96];
    snprintf(spec, sizeof spec, "%s%s", path, data[0] & 1 ? ":b0512" : "");
    jl_run *run = fuzz_span_run();
    jl_spans *s = NULL;
    jl_error_list errors = {0};
    if (jl__kineto_spans_buffer_aligned(b, blen, run, NULL, spec, "p.json", &s, &errors) != JL_OK) {
        jl_spans_free(s);
        s = NULL;
    }
    fuzz_span_finish(run, s, &errors);
    return 0;
}
