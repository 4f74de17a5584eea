/* FNV-1a and one hash map, for every table that would otherwise be a scan
 * (docs/security.md, "Bounded work and limits"): keys are byte strings
 * (copied in), each mapped to a size_t; open addressing with linear
 * probing, grown to stay at most half full, so n insertions and look-ups
 * cost O(n) expected time whatever the keys. Internal to the library. */
#ifndef JOULES_CORE_HASH_H
#define JOULES_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a of len bytes, and of a NUL-terminated string. */
uint64_t jl__fnv1a(const void *data, size_t len);
uint64_t jl__fnv1a_str(const char *s);

typedef struct jl__hslot {
    uint64_t hash;
    char *key; /* NULL: an empty slot */
    size_t len;
    size_t value;
} jl__hslot;

typedef struct jl__hmap {
    jl__hslot *slots;
    size_t cap, n;
} jl__hmap;

void jl__hmap_init(jl__hmap *m);
void jl__hmap_free(jl__hmap *m); /* the keys too; the map is then empty and usable */

/* The value of key, or NULL when absent. */
size_t *jl__hmap_get(const jl__hmap *m, const void *key, size_t len);

/* The value of key; when absent, key is added (copied) with value `init`
 * and *added set to 1 (else 0). NULL when out of memory (the map is as
 * it was). */
size_t *jl__hmap_put(jl__hmap *m, const void *key, size_t len, size_t init, int *added);

#endif
