/* Fuzz target: the rules JSON reader (joules.rules/1, docs/check.md) via
 * jl_ruleset_load_json_buffer(), then judging a summary with the rule set
 * (thresholds from the input may be NaN-free nonsense: huge, negative,
 * warn beyond fail). */
#include <math.h>

#include "fuzz_common.h"
#include "joules/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    jl_ruleset rs;
    jl_ruleset_default(&rs);
    jl_error *err = NULL;
    if (jl_ruleset_load_json_buffer(&rs, (const char *)data, size, "rules.json", &err) == JL_OK) {
        jl_summary *s = jl_summary_new();
        if (!s)
            abort();
        s->attrs.workload = strdup("llm");
        s->attrs.num_gpus = 1;
        s->attrs.max_batch_size = 8;
        s->attrs.gpu_tdp_w = 700;
        s->attrs.gpu_idle_power_w = 100;
        for (int f = 0; f < JL_FIG_COUNT; f++)
            s->fig[f] = f % 4 ? 1.5 * f : NAN;
        jl_check_result res[JL_RULE_COUNT];
        if (jl_check_run(s, &rs, NULL, res) == JL_OK)
            jl_check_results_clear(res);
        (void)jl_check_annotate(s, &rs, NULL);
        jl_summary_free(s);
    } else if (!err || !err->message) {
        abort(); /* every refusal says why */
    }
    jl_error_free(err);
    return 0;
}
