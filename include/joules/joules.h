/* joules.h — the umbrella header: everything the library offers.
 *
 * Data flows one way:
 *   trace (trace.h) -> run summary (summary.h) -> study / selection (study.h)
 *   -> group model (model.h, ceiling.h, explain.h, diagnose.h)
 *   -> frontier and choices (slo.h, frontier.h, choice.h)
 *   -> documents and reports (output.h, report.h)
 *   accounts beside them (account.h: provenance.h, budget.h, carbon.h,
 *   publish.h): provenance, verify, budgets, carbon, labels and cards
 *   energy per span (attribution.h) on the trace layer's spans (spans.h)
 */
#ifndef JOULES_JOULES_H
#define JOULES_JOULES_H

#include "joules/account.h"
#include "joules/attribution.h"
#include "joules/attrs.h"
#include "joules/budget.h"
#include "joules/carbon.h"
#include "joules/ceiling.h"
#include "joules/check.h"
#include "joules/choice.h"
#include "joules/context.h"
#include "joules/descriptors.h"
#include "joules/diagnose.h"
#include "joules/error.h"
#include "joules/explain.h"
#include "joules/frontier.h"
#include "joules/import.h"
#include "joules/json.h"
#include "joules/model.h"
#include "joules/output.h"
#include "joules/provenance.h"
#include "joules/publish.h"
#include "joules/report.h"
#include "joules/slo.h"
#include "joules/spans.h"
#include "joules/study.h"
#include "joules/summary.h"
#include "joules/trace.h"
#include "joules/trace_write.h"
#include "joules/validity.h"
#include "joules/version.h"

#endif
