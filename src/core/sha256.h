/* SHA-256 inside the library (core/sha256.c), and the digests of files
 * already hashed (core/digests.c). */
#ifndef JOULES_CORE_SHA256_H
#define JOULES_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "joules/error.h"

typedef struct jl__sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes so far */
    unsigned char buf[64];
    size_t n; /* bytes in buf */
} jl__sha256;

void jl__sha256_init(jl__sha256 *s);
void jl__sha256_update(jl__sha256 *s, const void *data, size_t len);
void jl__sha256_final(jl__sha256 *s, unsigned char out[32]);
void jl__sha256_to_hex(const unsigned char d[32], char hex[65]);
/* The file's digest as 64 lowercase hex digits and its size in bytes. */
jl_status jl__sha256_file(const char *path, char hex[65], unsigned long long *size, jl_error **err);
/* Which block function hashes: on = 1 the SHA extensions where the CPU has
 * them, 0 the portable rounds, -1 decide by the CPU (the default). Returns
 * the choice before the call (-1 when none was made). For the tests. */
int jl__sha256_hw(int on);

/* The digests of the current context (joules/context.h): a file hashed where it was read (a study
 * worker, another MPI rank) is noted with the size and modification time
 * it had then, and a later jl__digest_lookup of the same path returns the
 * digest only while stat() still gives that size and time; otherwise the
 * caller hashes the file itself. Thread-safe. */
typedef struct jl__digest {
    unsigned long long size;
    long long mtime_s, mtime_ns;
    char hex[65];
} jl__digest;

/* Hash path now: *d the digest, *stable 1 when the file's size and
 * modification time were the same before and after (only then may the
 * digest stand for the file). Nothing is noted. */
jl_status jl__digest_make(const char *path, jl__digest *d, int *stable, jl_error **err);
/* Hash path now and note it when stable; *d (may be NULL) gets the digest. */
jl_status jl__digest_file(const char *path, jl__digest *d, jl_error **err);
/* Note a digest made elsewhere; JL_ENOMEM is the only failure. */
jl_status jl__digest_note(const char *path, const jl__digest *d);
/* 1 and *d filled when path was noted and is unchanged since; else 0. */
int jl__digest_lookup(const char *path, jl__digest *d);
/* Forget every digest of the current context (tests; a program calls
 * jl_context_reset). */
void jl__digest_forget_all(void);

#endif
