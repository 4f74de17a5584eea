/* Fuzz target: the Prometheus / DCGM exporter importer, through the
 * importer table as `joules import prometheus FILE --runs-by pod --set ...`
 * runs it. The input is the file (query_range JSON or a text scrape
 * archive; it is written to a temporary file, the importer reads files).
 * Every imported run is then summarised and turned into JSON. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "fuzz_import_common.h"

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 20)
        return 0;
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/joules-fuzz-prom-XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0)
            abort();
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    const jl_importer *im = jl_importer_find("prometheus");
    const jl_importer_arg args[] = {
        {"runs-by", "pod"},   {"set", "workload=llm"},       {"set", "model=org/m"},
        {"set", "task=chat"}, {"set", "precision=bfloat16"}, {"set", "max_batch_size=8"}};
    const char *paths[] = {path};
    jl_import_result *res = NULL;
    jl_error_list errors = {0};
    jl_status st = im->run(paths, 1, args, sizeof args / sizeof args[0], &res, &errors);
    fuzz_finish_import(st, res, &errors);
    return 0;
}
