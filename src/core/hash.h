/* Hashing, the one home (as zstd's lib/common): FNV-1a (64-bit) and one
 * map from strings to size_t values on it, which is also the string set
 * (a map whose values go unused). Not part of the public API.
 *
 * Tables of other keys (the JSON tree's keys by pointer and length, the
 * study's groups by their values) hash with jl__fnv1a_add and keep their
 * own slots; a table of strings is a jl__strmap. */
#ifndef JOULES_CORE_HASH_H
#define JOULES_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over bytes: start from JL__FNV1A_INIT, add bytes in order. */
#define JL__FNV1A_INIT UINT64_C(14695981039346656037)
uint64_t jl__fnv1a_add(uint64_t h, const void *p, size_t n);
/* The hash of a NUL-terminated string. */
uint64_t jl__fnv1a(const char *s);

/* A map from strings (compared by bytes, NUL-terminated) to size_t values:
 * open addressing on FNV-1a, at most half full, grown by doubling. The map
 * owns a copy of each key it holds; an entry's key stays where it is until
 * jl__strmap_free (so a caller may keep pointers to the keys), the entries
 * move when the map grows. Zero-initialised (JL__STRMAP_INIT) is empty. */
typedef struct jl__strmap_entry {
    char *key; /* NULL: an empty slot */
    size_t value;
} jl__strmap_entry;

typedef struct jl__strmap {
    jl__strmap_entry *slot;
    size_t n, cap; /* entries held; slots (0 or a power of two) */
} jl__strmap;

#define JL__STRMAP_INIT \
    {                   \
        NULL, 0, 0      \
    }

/* The entry of key, or NULL when the map holds none. */
jl__strmap_entry *jl__strmap_find(const jl__strmap *m, const char *key);
/* The entry of key; when the map held none, one is added with a copy of
 * key and `value` (*added set to 1, else 0; added may be NULL). NULL when
 * out of memory (the map unchanged). The pointer is valid until the next
 * jl__strmap_add. */
jl__strmap_entry *jl__strmap_add(jl__strmap *m, const char *key, size_t value, int *added);
/* Frees the keys and the slots; the map is empty again. */
void jl__strmap_free(jl__strmap *m);

#endif
