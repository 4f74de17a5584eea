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
/* 1 when the rounds run on the processor's SHA extensions (x86-64 with
 * sha/sse4.1/ssse3, unless JOULES_SHA256=portable). */
int jl__sha256_accelerated(void);
/* Tests: the portable rounds (0) or the accelerated ones where available (1). */
void jl__sha256_select(int accelerated);

/* t (Unix seconds) as "YYYY-MM-DDTHH:MM:SSZ" into buf; 0, or -1 when t is
 * not finite or out of range (buf then ""). */
int jl__iso_utc(double t, char buf[32]);

#endif
