/* Fuzz target: vLLM `bench serve` result files as a run's requests
 * (src/import/vllm_requests.c, through jl_import_nvidia_smi_buffer: the
 * input is the request file a RUNS.csv row names beside a fixed 10-s,
 * one-GPU log). Every shape people have: with or without start_times, a
 * finite or infinite request_rate, max_concurrency. The run is then
 * summarised as `import` + `summarize` would. The request file is written
 * to a temporary file (the reader takes a path). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_import_common.h"
#include "joules/import.h"

static const char LOG[] = "timestamp, name, power.draw [W]\n"
                          "2026/11/23 10:00:00.000, NVIDIA H100 80GB HBM3, 100.00 W\n"
                          "2026/11/23 10:00:02.000, NVIDIA H100 80GB HBM3, 300.00 W\n"
                          "2026/11/23 10:00:05.000, NVIDIA H100 80GB HBM3, 300.00 W\n"
                          "2026/11/23 10:00:08.000, NVIDIA H100 80GB HBM3, 250.00 W\n"
                          "2026/11/23 10:00:10.000, NVIDIA H100 80GB HBM3, 100.00 W\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (size > 1 << 20)
        return 0;
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/joules-fuzz-vllm-%ld.json", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    char runs[256];
    snprintf(runs, sizeof runs,
             "run,start,end,workload,model,task,precision,requests\n"
             "r,2026-11-23T10:00:00Z,2026-11-23T10:00:10Z,llm,m,chat,bf16,%s\n",
             path);
    jl_import_nvsmi_options opt;
    jl_import_nvsmi_options_default(&opt);
    opt.timezone = "UTC";
    opt.max_request_bytes = 1 << 20;
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    jl_status st = jl_import_nvidia_smi_buffer(LOG, sizeof LOG - 1, "log.csv", runs, strlen(runs),
                                               &opt, &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
