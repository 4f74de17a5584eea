/* Fuzz target: the budgets file (joules.budgets/1, docs/accounting.md) via
 * jl_budgets_load_buffer(), then judging two summaries with it and writing
 * the joules.budget/1 document, and judging an attribution's class rows
 * with its per-class ceilings ("spans": the JSON, the CSV columns). */
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
            json_t *doc = jl_budget_document(r, b, &l);
            char *text = doc ? jl_json_dump(doc) : NULL;
            free(text);
            json_decref(doc);
        }
        jl_budget_result_free(r);
        /* three class rows (one without tokens, one without calls) */
        static char k0[] = "attention", k1[] = "mlp", k2[] = "o_proj", f[] = "f.h5", run[] = "r0",
                    src[] = "counter", st[] = "stated", eq[] = "equal";
        jl_attribution_row rows[3] = {{0}};
        char *keys[3] = {k0, k1, k2};
        for (int i = 0; i < 3; i++) {
            rows[i].key = keys[i];
            rows[i].calls = i == 2 ? 0 : 100u * (unsigned)(i + 1);
            rows[i].energy_j = 10.0 * (i + 1);
            rows[i].energy_lo_j = 8.0 * (i + 1);
            rows[i].energy_hi_j = 13.0 * (i + 1);
            rows[i].tokens = i == 1 ? NAN : 1000;
            rows[i].share = rows[i].energy_j / 100;
            rows[i].peak_w = NAN;
        }
        jl_attribution a = {0};
        a.by = JL_ATTRIBUTION_BY_CLASS;
        a.file = f;
        a.run = run;
        a.energy_source = src;
        a.static_source = st;
        a.sensor_source = st;
        a.weights = eq;
        a.window_energy_j = 100;
        a.rows = rows;
        a.n_rows = 3;
        jl_span_budget_result *sr = NULL;
        if (jl_budgets_evaluate_spans(b, l.items[0], &a, &sr, NULL) == JL_OK) {
            if (sr->rows_pass + sr->rows_fail + sr->rows_undetermined + sr->rows_unmeasured !=
                sr->rows_judged)
                abort();
            json_t *doc = jl_attribution_document(&a);
            if (doc && jl_span_budget_annotate(sr, b, doc) == JL_OK) {
                char *text = jl_json_dump(doc);
                free(text);
            }
            json_decref(doc);
            char **v = NULL;
            if (jl_span_budget_csv_columns(sr, b, &v) == JL_OK) {
                for (size_t i = 0; i < 2 * sr->n_rows; i++)
                    free(v[i]);
                free(v);
            }
        }
        jl_span_budget_result_free(sr);
        jl_summary_list_clear(&l);
        jl_budgets_free(b);
    } else if (!err || !err->message) {
        abort(); /* every refusal says why */
    }
    jl_error_free(err);
    return 0;
}
