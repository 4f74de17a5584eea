/* Shared inside src/account/ only. */
#ifndef JOULES_ACCOUNT_INTERNAL_H
#define JOULES_ACCOUNT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/civil_time.h" /* jl__iso_utc */
#include "core/sha256.h"     /* jl__sha256 */

#endif
