/* The joules.check/1 document, shared by `joules check --json` and the
 * report's data/check.json (identical bytes). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "joules/check.h"
#include "joules/output.h"

json_t *jl_check_document(const jl_summary_list *l, const jl_ruleset *rs,
                          const jl_descriptors *desc, const jl_error_list *errors,
                          size_t *n_failed_runs)
{
    json_t *doc = json_object(), *runs = json_array();
    if (!doc || !runs) {
        json_decref(doc);
        json_decref(runs);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string("joules.check/1"));
    json_object_set_new(doc, "rules_version", json_string(JL_RULES_VERSION));
    size_t n_failed = 0;
    size_t totals[4] = {0};
    for (size_t i = 0; l && i < l->count; i++) {
        const jl_summary *s = l->items[i];
        jl_check_result res[JL_RULE_COUNT];
        if (jl_check_run(s, rs, desc, res) != JL_OK) {
            json_decref(runs);
            json_decref(doc);
            return NULL;
        }
        json_t *ro = jl_run_key_to_json(s), *rules = json_object();
        int failed = 0;
        for (int r = 0; r < JL_RULE_COUNT; r++) {
            totals[res[r].level]++;
            failed |= res[r].level == JL_CHECK_FAIL;
            json_object_set_new(rules, rs->rules[r].name,
                                json_pack("{s:s,s:o,s:s}", "level",
                                          jl_check_level_name(res[r].level), "value",
                                          jl_json_number(res[r].value), "message",
                                          res[r].message ? res[r].message : ""));
        }
        json_object_set_new(ro, "rules", rules);
        json_object_set_new(ro, "passed", json_boolean(!failed));
        json_array_append_new(runs, ro);
        n_failed += failed;
        jl_check_results_clear(res);
    }
    json_object_set_new(doc, "runs", runs);
    json_object_set_new(doc, "totals",
                        json_pack("{s:I,s:I,s:I,s:I,s:I}", "pass", (json_int_t)totals[0], "warn",
                                  (json_int_t)totals[1], "fail", (json_int_t)totals[2], "skip",
                                  (json_int_t)totals[3], "runs_failed", (json_int_t)n_failed));
    json_object_set_new(doc, "errors", jl_errors_to_json(errors));
    if (n_failed_runs)
        *n_failed_runs = n_failed;
    return doc;
}
