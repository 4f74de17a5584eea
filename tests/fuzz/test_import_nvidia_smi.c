/* Fuzz target: the nvidia-smi importer (include/joules/import.h) via
 * jl_import_nvidia_smi_buffer(). The input is a log, or a log, a line
 * "----", then a RUNS.csv. The first byte picks options (bit 0: --sort,
 * bit 1: noheader with --columns, bit 2: a named zone). Every imported run
 * is then summarised and turned into its JSON object. */
#include "fuzz_common.h"
#include "fuzz_import_common.h"
#include "joules/import.h"
#include "joules/output.h"
#include "joules/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 20)
        return 0;
    unsigned flags = data[0];
    const char *a, *b;
    size_t alen, blen;
    fuzz_split(data + 1, size - 1, &a, &alen, &b, &blen);
    jl_import_nvsmi_options opt;
    jl_import_nvsmi_options_default(&opt);
    opt.max_rows = 100000;
    opt.max_gpus = 64;
    opt.sort = flags & 1;
    if (flags & 2)
        opt.columns = "timestamp,index,power.draw,power.draw.instant,utilization.gpu";
    opt.timezone = (flags & 4) ? "America/Chicago" : "UTC";
    /* the required attributes a log does not say (else every run is an
     * error and the summary is never reached) */
    jl_kv set[] = {{"model", "fuzz/model", 0}, {"max_batch_size", "8", 0},
                   {"workload", "llm", 0},     {"task", "fuzz", 0},
                   {"precision", "bf16", 0},   {"gpu_model", "H100", 0}};
    opt.set = set;
    opt.n_set = sizeof set / sizeof set[0];
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    jl_status st = jl_import_nvidia_smi_buffer(a, alen, "log.csv", b, blen, &opt, &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
