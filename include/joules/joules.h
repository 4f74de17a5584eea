/* joules.h — the umbrella header: everything the library offers.
 *
 * Data flows one way:
 *   trace (trace.h) -> run summary (summary.h) -> study / selection (study.h)
 *   -> group model (model.h) -> frontier and choices (frontier.h, choice.h)
 *   -> documents and reports (output.h, report.h)
 */
#ifndef JOULES_JOULES_H
#define JOULES_JOULES_H

#include "joules/attrs.h"
#include "joules/error.h"
#include "joules/output.h"
#include "joules/study.h"
#include "joules/summary.h"
#include "joules/trace.h"

#endif
