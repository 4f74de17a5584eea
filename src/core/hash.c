/* FNV-1a and the string map (core/hash.h). */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/util.h"

#define FNV1A_PRIME UINT64_C(1099511628211)

uint64_t jl__fnv1a_add(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV1A_PRIME;
    return h;
}

uint64_t jl__fnv1a(const char *s)
{
    uint64_t h = JL__FNV1A_INIT;
    for (const unsigned char *b = (const unsigned char *)s; *b; b++)
        h = (h ^ *b) * FNV1A_PRIME;
    return h;
}

/* The slot of key in slots[0..cap): its own, or the empty one where it
 * would go (cap a power of two, at least one slot empty). */
static jl__strmap_entry *slot_of(jl__strmap_entry *slot, size_t cap, const char *key)
{
    size_t i = (size_t)jl__fnv1a(key) & (cap - 1);
    while (slot[i].key && strcmp(slot[i].key, key))
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

jl__strmap_entry *jl__strmap_find(const jl__strmap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    jl__strmap_entry *e = slot_of(m->slot, m->cap, key);
    return e->key ? e : NULL;
}

jl__strmap_entry *jl__strmap_add(jl__strmap *m, const char *key, size_t value, int *added)
{
    if (added)
        *added = 0;
    jl__strmap_entry *e = jl__strmap_find(m, key);
    if (e)
        return e;
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        jl__strmap_entry *t = jl__calloc_array(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i].key)
                *slot_of(t, cap, m->slot[i].key) = m->slot[i];
        free(m->slot);
        m->slot = t;
        m->cap = cap;
    }
    char *copy = jl__strdup(key);
    if (!copy)
        return NULL;
    e = slot_of(m->slot, m->cap, key);
    e->key = copy;
    e->value = value;
    m->n++;
    if (added)
        *added = 1;
    return e;
}

void jl__strmap_free(jl__strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slot[i].key);
    free(m->slot);
    m->slot = NULL;
    m->n = m->cap = 0;
}
