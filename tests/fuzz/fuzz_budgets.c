/* Fuzz target: the budgets file (joules.budgets/1, docs/accounting.md) via
 * jl_budgets_load_buffer(), then judging two summaries with it and writing
 * the joules.budget/1 document. */
#include <math.h>

#include "fuzz_common.h"
#include "joules/account.h"
#include "joules/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    jl_budgets *b = NULL;
    jl_error *err = NULL;
    if (jl_budgets_load_buffer((const char *)data, size, "budgets.json", &b, &err) == JL_OK) {
        jl_summary_list l = {0};
        for (int k = 0; k < 2; k++) {
            jl_summary *s = jl_summary_new();
            if (!s)
                abort();
            s->attrs.workload = strdup("llm");
            s->attrs.model = strdup(k ? "m/b" : "m/a");
            s->attrs.task = strdup("chat");
            s->attrs.gpu_model = strdup("H100");
            s->attrs.num_gpus = 1;
            s->attrs.max_batch_size = 8 << k;
            for (int f = 0; f < JL_FIG_COUNT; f++)
                s->fig[f] = (f + k) % 4 ? 0.3 * f : NAN;
            if (jl_summary_list_push(&l, s) != JL_OK)
                abort();
        }
        jl_budget_result *r = NULL;
        if (jl_budgets_evaluate(b, &l, &r, NULL) == JL_OK) {
            json_t *doc = jl_budget_result_to_json(r, b, &l);
            char *text = doc ? jl_json_dump(doc) : NULL;
            free(text);
            json_decref(doc);
        }
        jl_budget_result_free(r);
        jl_summary_list_clear(&l);
        jl_budgets_free(b);
    } else if (!err || !err->message) {
        abort(); /* every refusal says why */
    }
    jl_error_free(err);
    return 0;
}
