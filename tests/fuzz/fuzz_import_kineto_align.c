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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
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
    if (jl__kineto_spans_buffer_aligned(b, blen, run, NULL, spec, "p.json", &s, &errors) == JL_OK &&
        s) {
        jl_attribution *at = NULL;
        jl_error *err = NULL;
        if (jl_attribution_compute(run, s, NULL, NULL, &at, &err) == JL_OK) {
            json_t *doc = jl_attribution_document(at);
            json_decref(doc);
        }
        jl_attribution_free(at);
        jl_error_free(err);
    }
    for (size_t i = 0; i < errors.count; i++)
        free(jl_error_format(errors.items[i]));
    jl_error_list_clear(&errors);
    jl_spans_free(s);
    jl_run_free(run);
    return 0;
}
