/* joules/account.h — accounts an auditor can check (docs/accounting.md),
 * the five headers of src/account/ by subject:
 *
 *  - joules/provenance.h: fingerprints, the provenance block, verification;
 *  - joules/budget.h: budgets per run and group, and per span class;
 *  - joules/carbon.h: grid-intensity and PUE series, emissions;
 *  - joules/publish.h: energy labels and cards;
 *  - joules/counted.h: what an account counts of a run (--window, --scope)
 *    and what it leaves out: the budgets, emissions and labels count
 *    through it.
 *
 * This header only includes them (declarations go into the five); the
 * provenance hook of the document writers is the output layer's
 * (joules/output.h).
 */
#ifndef JOULES_ACCOUNT_H
#define JOULES_ACCOUNT_H

#include "joules/budget.h"
#include "joules/carbon.h"
#include "joules/counted.h"
#include "joules/provenance.h"
#include "joules/publish.h"

#endif
