/* Fuzz target: the trace reader. The input is a whole HDF5 file image,
 * opened through HDF5's in-memory core driver (jl_trace_open_image); every
 * run is described (what `joules inspect` shows), read and validated,
 * summarised, judged by the default rules and printed as JSON and CSV —
 * the whole path of `joules summarize` without the file system.
 *
 * Limits are lowered (docs/trace-reading.md): 64 MiB per dataset and 2^22
 * rows, so a crafted dimension cannot make HDF5 allocate gigabytes, and at
 * most 64 runs per file.
 *
 * libhdf5 1.10.8 itself crashes, hangs or leaks on many corrupt files
 * (docs/robustness.md, "Known HDF5 defects"): a libFuzzer session meets
 * one every few hundred inputs. The target runs everything in-process (so
 * coverage and the sanitizers see joules' code); tests/fuzz/triage.py sorts
 * findings in libhdf5 from findings in joules by their stacks, and
 * run_fuzz.sh / long_run.sh use it (docs/robustness.md says how). */
#include <stdio.h>

#include "fuzz_common.h"
#include "joules/check.h"
#include "joules/output.h"
#include "joules/summary.h"
#include "joules/trace.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    jl_trace_options opt;
    jl_trace_options_default(&opt);
    opt.limits.max_dataset_bytes = (uint64_t)64 << 20;
    opt.limits.max_rows = (uint64_t)1 << 22;
    opt.limits.max_runs = 64;
    jl_trace *t = NULL;
    jl_error *err = NULL;
    if (jl_trace_open_image(data, size, "fuzz.h5", &opt, &t, &err) != JL_OK) {
        if (!err || !err->message)
            abort(); /* every refusal says why */
        free(jl_error_format(err));
        jl_error_free(err);
        return 0;
    }
    jl_ruleset rules;
    jl_ruleset_default(&rules);
    jl_summary_list list = {0};
    for (size_t i = 0; i < jl_trace_run_count(t); i++) {
        jl_run_info info;
        memset(&info, 0, sizeof info);
        jl_error *e = NULL;
        if (jl_trace_describe_run(t, i, &info, &e) == JL_OK)
            jl_run_info_clear(&info);
        jl_error_free(e);
        e = NULL;
        jl_run *run = NULL;
        if (jl_trace_read_run(t, i, &run, &e) != JL_OK) {
            if (!e || !e->message)
                abort();
            free(jl_error_format(e));
            jl_error_free(e);
            continue;
        }
        jl_summary *s = NULL;
        if (jl_summarize(run, NULL, &s, &e) == JL_OK) {
            jl_check_result res[JL_RULE_COUNT];
            if (jl_check_run(s, &rules, NULL, res) == JL_OK)
                jl_check_results_clear(res);
            (void)jl_check_annotate(s, &rules, NULL);
            if (jl_summary_list_push(&list, s) != JL_OK)
                jl_summary_free(s);
        }
        jl_error_free(e);
        jl_run_free(run);
    }
    json_t *doc = jl_summary_document(&list, NULL);
    free(jl_json_dump(doc));
    json_decref(doc);
    (void)jl_fprint_summaries_csv(devnull, &list);
    jl_summary_list_clear(&list);
    jl_trace_close(t);
    return 0;
}
