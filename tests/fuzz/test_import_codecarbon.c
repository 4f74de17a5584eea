/* Fuzz target: the codecarbon importer, through the importer table as
 * `joules import codecarbon FILE --set ...` runs it (the input is written to a
 * temporary file: the importer reads files). Every imported run is then
 * summarised and turned into JSON. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_common.h"
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    const jl_importer_arg args[] = {{"set", "workload=llm"},     {"set", "model=org/m"},
                                    {"set", "task=chat"},        {"set", "precision=bfloat16"},
                                    {"set", "max_batch_size=8"}, {"set", "gpu_model=H100"}};
    fuzz_import_file("codecarbon", "codecarbon", data, size, args, sizeof args / sizeof args[0]);
    return 0;
}
