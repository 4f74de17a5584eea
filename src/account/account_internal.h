/* Shared inside src/account/ only. */
#ifndef JOULES_ACCOUNT_INTERNAL_H
#define JOULES_ACCOUNT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct jl__sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes so far */
    unsigned char buf[64];
    size_t n; /* bytes in buf */
} jl__sha256;

void jl__sha256_init(jl__sha256 *s);
void jl__sha256_update(jl__sha256 *s, const void *data, size_t len);
void jl__sha256_final(jl__sha256 *s, unsigned char out[32]);
/* Which block function hashes: on = 1 the SHA extensions where the CPU has
 * them, 0 the portable rounds, -1 decide by the CPU (the default). Returns
 * the choice before the call (-1 when none was made). For the tests. */
int jl__sha256_hw(int on);

/* t (Unix seconds) as "YYYY-MM-DDTHH:MM:SSZ" into buf; 0, or -1 when t is
 * not finite or out of range (buf then ""). */
int jl__iso_utc(double t, char buf[32]);

#endif
