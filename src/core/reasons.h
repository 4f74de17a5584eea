/* The one vocabulary of reason codes (issue 37): why a run's figures may
 * not be what they say. Import notes (src/import), the summary
 * (src/summary/validity.c), the check rules (src/check) and every document
 * name a reason by these codes; docs/check.md, "Reason codes", is this
 * table in words (a test compares the two: tests/unit/test_validity.c).
 *
 * X(ID, code, severity, meaning): ID names the internal enum value
 * (JL__R_<ID>), code is the stable name in documents (a contract: extend,
 * never rename), severity is JL_SEVERITY_INVALID (the run's figures may be
 * wrong: `valid` false, --require-valid refuses it), JL_SEVERITY_CAUTION (the
 * figures are right as labelled but a reader must know this) or
 * JL_SEVERITY_INFO (what was done to the input, e.g. a log split in two).
 * New codes go at the end. Not public: the library's users read the table
 * through jl_reason_infos() (joules/validity.h). */
#ifndef JOULES_CORE_REASONS_H
#define JOULES_CORE_REASONS_H

#include "joules/validity.h"

/* clang-format off */
#define JL__REASON_TABLE(X)                                                                       \
    X(WINDOW_NOT_BRACKETED, "window_not_bracketed", JL_SEVERITY_INVALID,                          \
      "the window begins before the first power sample or ends after the last by more than one "  \
      "sampling period (a RUNS.csv window beyond its log): its energy is extrapolated or partial")                                              \
    X(SAMPLE_GAP, "sample_gap", JL_SEVERITY_INVALID,                                              \
      "a stretch without power samples longer than the gap limit (5 sampling periods, and 1 s "   \
      "more than one) lies in the run and its energy is integrated across it: energy_bound_j is " \
      "what the gaps could hold between the run's idle (or lowest) and highest power")                                                  \
    X(COUNTER_RESET, "counter_reset", JL_SEVERITY_CAUTION,                                        \
      "the cumulative energy counter restarted inside the run: the drop is bridged with "         \
      "power/watts or the neighbouring rate (energy_bound_j: the energy bridged)")                \
    X(COUNTER_WRAP, "counter_wrap", JL_SEVERITY_INFO,                                             \
      "the energy counter wrapped at its known range and was unwrapped exactly")                  \
    X(CLOCK_JUMP, "clock_jump", JL_SEVERITY_INVALID,                                              \
      "the log's clock jumps inside the run's window (backwards, or across a new logging "        \
      "session): times and energy across it are not one measurement")                            \
    X(SESSION_SPLIT, "session_split", JL_SEVERITY_INFO,                                           \
      "the log held several logging sessions (a repeated header or a clock jump beyond the gap "  \
      "limit): each session is a run of its own")                                                 \
    X(INVALID_POWER_SAMPLE, "invalid_power_sample", JL_SEVERITY_INVALID,                          \
      "power readings above 3 x the GPU's power limit (3,000 W per GPU without one): no GPU "     \
      "draws that, and the energy over them is not a measurement")                                                    \
    X(TRUNCATED_RECORD, "truncated_record", JL_SEVERITY_CAUTION,                                  \
      "the input's last record was cut (no line end: the logger stopped mid-line): left out")     \
    X(IDENTITY_CHANGED, "identity_changed", JL_SEVERITY_INVALID,                                  \
      "the device or run identity (GPU uuid, name, serial, bus id; a tracker's run id) changes "  \
      "inside the run: two measurements joined into one")                                        \
    X(REQUESTS_OUTSIDE_WINDOW, "requests_outside_window", JL_SEVERITY_INVALID,                    \
      "the request log's times (after the clock offset it states), or the date it was saved, lie "\
      "outside the run's power window: a file from another run, another day or another clock")                           \
    X(REQUESTS_INCONSISTENT, "requests_inconsistent", JL_SEVERITY_INVALID,                        \
      "more requests decode at once than the run's cap, power stays busy with no request in "     \
      "flight, or the requests' tokens disagree with engine/tokens_generated, beyond the stated " \
      "tolerance: a file from another run or another cap")                      \
    X(SPANS_MISALIGNED, "spans_misaligned", JL_SEVERITY_INVALID,                                  \
      "the profiler's busy/idle pattern fits the power better at another clock offset: the "      \
      "spans lie on another stretch of power")                                                    \
    X(POWER_CAPPED, "power_capped", JL_SEVERITY_CAUTION,                                          \
      "the GPUs spent most of the window at their enforced power limit (throttle reason power "   \
      "cap, or average power at the limit): figures describe a capped GPU")                       \
    X(CLOCKS_THROTTLED, "clocks_throttled", JL_SEVERITY_CAUTION,                                  \
      "the GPUs spent most of the window slowed by a thermal or hardware throttle reason")        \
    X(WINDOW_MISALIGNED, "window_misaligned", JL_SEVERITY_INVALID,                                \
      "check rule window_alignment fails: requests run while power stays idle, the window lies " \
      "off the load")                                                                             \
    X(ENERGY_SOURCES_DISAGREE, "energy_sources_disagree", JL_SEVERITY_INVALID,                    \
      "check rule energy_sources_agree fails: the energy counter and the integral of power "      \
      "cannot both describe the window")                                                          \
    X(UNITS_ASSUMED, "units_assumed", JL_SEVERITY_CAUTION,                                        \
      "the source does not say a unit and the importer assumed one (docs/import.md says which, "  \
      "by version)")
/* clang-format on */

typedef enum {
/* clang-format off */
#define JL__X_REASON_ENUM(id, code, sev, doc) JL__R_##id,
    JL__REASON_TABLE(JL__X_REASON_ENUM)
#undef JL__X_REASON_ENUM
    JL__R_COUNT
    /* clang-format on */
} jl__reason;

/* The code of r ("sample_gap"). */
const char *jl__reason_code(jl__reason r);

/* Append reason r (energy_bound_j NaN: none) to v. */
jl_status jl__validity_add(jl_validity *v, jl__reason r, double energy_bound_j, const char *fmt,
                           ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The run attribute an importer writes the reasons it found into (JSON
 * text, jl_validity_to_text) and jl_summarize() takes them from. */
#define JL__VALIDITY_ATTR "validity_reasons"

#endif
