/* joules/account.h — accounts an auditor can check (docs/accounting.md),
 * the four headers of src/account/ by subject:
 *
 *  - joules/provenance.h: fingerprints, the provenance block, verification;
 *  - joules/budget.h: budgets per run and group, and per span class;
 *  - joules/carbon.h: grid-intensity and PUE series, emissions;
 *  - joules/publish.h: energy labels and cards.
 *
 * This header only includes them (declarations go into the four); the
 * provenance hook of the document writers is the output layer's
 * (joules/output.h).
 */
#ifndef JOULES_ACCOUNT_H
#define JOULES_ACCOUNT_H

#include "joules/budget.h"
#include "joules/carbon.h"
#include "joules/provenance.h"
#include "joules/publish.h"

#endif
