/* joules/check.h — validation rules as data.
 *
 * What the ML.ENERGY validator and MLPerf Power check before they trust a
 * measurement, as named, versioned thresholds a user can tune: the share of
 * the window covered by power samples, the steady-state duration, batch
 * saturation, power within idle..TDP, agreement of the energy counter with
 * the integral of power, clock sanity, failed requests. Each rule gives
 * pass / warn / fail with the figure it judged. The rule set's version is
 * "joules.rules/1"; docs/check.md documents every rule and its defaults.
 */
#ifndef JOULES_CHECK_H
#define JOULES_CHECK_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

#define JL_RULES_VERSION "joules.rules/1"

/* X(ID, name, unit, higher_is_better, default_warn, default_fail, doc) */
#define JL_RULE_TABLE(X)                                                                              \
    X(POWER_SAMPLE_COVERAGE, "power_sample_coverage", "1", 1, 0.99, 0.90,                             \
      "share of the steady-state window within 1 s (or 0.75 sampling gap) of a power sample")         \
    X(STEADY_DURATION, "steady_duration", "s", 1, 5.0, 1.0, "length of the steady-state window")      \
    X(BATCH_SATURATION, "batch_saturation", "1", 1, 0.85, 0.50,                                       \
      "LLM/MLLM: achieved batch (avg_batch_size) / configured cap (max_batch_size)")                  \
    X(POWER_BELOW_TDP, "power_below_tdp", "1", 0, 1.02, 1.15,                                         \
      "average power per GPU / the GPU's power limit (gpu_tdp_w or models/gpus.json)")                \
    X(POWER_ABOVE_IDLE, "power_above_idle", "1", 1, 1.0, 0.8,                                         \
      "average power per GPU / the GPU's idle power: a loaded GPU draws more than idle")              \
    X(PEAK_WITHIN_LIMIT, "peak_within_limit", "1", 0, 1.35, 2.0,                                      \
      "peak instantaneous power per GPU / power limit (short excursions above the limit are normal)") \
    X(ENERGY_SOURCES_AGREE, "energy_sources_agree", "1", 0, 0.05, 0.20,                               \
      "|integral of watts - energy counter| / energy counter over the window")                        \
    X(SM_CLOCK_SANITY, "sm_clock_sanity", "MHz", 1, 500.0, 100.0,                                     \
      "mean SM clock in the window: a GPU stuck at a very low clock is throttled or misread")         \
    X(FAILED_REQUESTS, "failed_requests", "1", 0, 0.01, 0.10,                                         \
      "share of requests that never finished")                                                        \
    X(PUBLISHED_AGREES, "published_agrees", "1", 0, 0.10, 0.25,                                       \
      "published figures beside time series: largest |recomputed - published| / |published|")         \
    X(WINDOW_ALIGNMENT, "window_alignment", "s", 0, 1.5, 3.0,                                         \
      "longest stretch of requests in flight while power stays idle: a window placed off the load")

typedef enum {
/* clang-format off */
#define JL_X_RULE_ENUM(id, name, unit, hib, w, f, doc) JL_RULE_##id,
    JL_RULE_TABLE(JL_X_RULE_ENUM)
#undef JL_X_RULE_ENUM
    JL_RULE_COUNT
    /* clang-format on */
} jl_rule_id;

typedef enum { JL_CHECK_PASS, JL_CHECK_WARN, JL_CHECK_FAIL, JL_CHECK_SKIP } jl_check_level;

const char *jl_check_level_name(jl_check_level l);

typedef struct jl_rule {
    const char *name;
    const char *unit;
    const char *doc;
    int higher_is_better;
    double warn; /* threshold for warn */
    double fail; /* threshold for fail */
    int enabled;
} jl_rule;

typedef struct jl_ruleset {
    jl_rule rules[JL_RULE_COUNT];
} jl_ruleset;

void jl_ruleset_default(jl_ruleset *rs);
/* "RULE.warn=X", "RULE.fail=X" or "RULE=off"; JL_EUSAGE with a message
 * naming the bad part otherwise. */
jl_status jl_ruleset_set(jl_ruleset *rs, const char *assignment, jl_error **err);
/* {"version": "joules.rules/1", "rules": {"name": {"warn": x, "fail": y,
 * "enabled": bool}}}: unknown rules or keys are errors (a typo must not
 * silently keep a default). */
jl_status jl_ruleset_load_json(jl_ruleset *rs, const char *path, jl_error **err);
/* The same from a document in memory (`name` is used in messages): for
 * tests and the fuzz target tests/fuzz/test_check_rules.c. */
jl_status jl_ruleset_load_json_buffer(jl_ruleset *rs, const char *buf, size_t len, const char *name,
                                      jl_error **err);

typedef struct jl_check_result {
    jl_check_level level;
    double value;  /* the figure judged; NaN when skipped */
    char *message; /* owned; why it passed/warned/failed or was skipped */
} jl_check_result;

/* Judge one run by every rule. results has JL_RULE_COUNT entries; free the
 * messages with jl_check_results_clear. desc may be NULL. */
jl_status jl_check_run(const jl_summary *s, const jl_ruleset *rs, const jl_descriptors *desc,
                       jl_check_result *results);
void jl_check_results_clear(jl_check_result *results);

/* Add a warning to s for each rule that warns or fails (rule name
 * "check:<rule>"), so summaries carry the validation outcome. */
jl_status jl_check_annotate(jl_summary *s, const jl_ruleset *rs, const jl_descriptors *desc);

#ifdef JOULES_EXPERIMENTAL
/* The joules.check/1 document `joules check --json` prints: {"schema",
 * "rules_version", "runs": [run key + "rules": {name: {"level", "value",
 * "message"}} + "passed"], "totals": {"pass","warn","fail","skip",
 * "runs_failed"}, "errors"}. errors may be NULL; *n_failed_runs (may be
 * NULL) receives the number of runs failing a rule. NULL on out-of-memory. */
json_t *jl_check_document(const jl_summary_list *l, const jl_ruleset *rs,
                          const jl_descriptors *desc, const jl_error_list *errors,
                          size_t *n_failed_runs);
#endif /* JOULES_EXPERIMENTAL */
/* jl_check_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_check_document_text(const jl_summary_list *l, const jl_ruleset *rs,
                             const jl_descriptors *desc, const jl_error_list *errors,
                             size_t *n_failed_runs, size_t *len);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
