/* Shared inside src/account/ only. */
#ifndef JOULES_ACCOUNT_INTERNAL_H
#define JOULES_ACCOUNT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/sha256.h" /* jl__sha256 */

/* t (Unix seconds) as "YYYY-MM-DDTHH:MM:SSZ" into buf; 0, or -1 when t is
 * not finite or out of range (buf then ""). */
int jl__iso_utc(double t, char buf[32]);

#endif
