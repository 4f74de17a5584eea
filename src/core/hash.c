/* FNV-1a and the hash map of byte keys (hash.h). */
#include "core/hash.h"

#include <stdlib.h>
#include <string.h>

uint64_t jl__fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t jl__fnv1a_str(const char *s)
{
    return jl__fnv1a(s, strlen(s));
}

void jl__hmap_init(jl__hmap *m)
{
    m->slots = NULL;
    m->cap = m->n = 0;
}

void jl__hmap_free(jl__hmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    jl__hmap_init(m);
}

/* The slot of (key, hash): its own, or the empty one where it would go.
 * cap > n, so an empty slot exists. */
static jl__hslot *find(const jl__hmap *m, const void *key, size_t len, uint64_t h)
{
    size_t mask = m->cap - 1, j = (size_t)(h ^ (h >> 29)) & mask;
    for (;;) {
        jl__hslot *s = &m->slots[j];
        if (!s->key || (s->hash == h && s->len == len && !memcmp(s->key, key, len)))
            return s;
        j = (j + 1) & mask;
    }
}

size_t *jl__hmap_get(const jl__hmap *m, const void *key, size_t len)
{
    if (!m->cap)
        return NULL;
    jl__hslot *s = find(m, key, len, jl__fnv1a(key, len));
    return s->key ? &s->value : NULL;
}

static int grow(jl__hmap *m)
{
    size_t ncap = m->cap ? 2 * m->cap : 64;
    if (ncap < m->cap)
        return -1;
    jl__hslot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    jl__hmap old = *m;
    m->slots = ns;
    m->cap = ncap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *find(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
    free(old.slots);
    return 0;
}

size_t *jl__hmap_put(jl__hmap *m, const void *key, size_t len, size_t init, int *added)
{
    *added = 0;
    uint64_t h = jl__fnv1a(key, len);
    if (m->cap) {
        jl__hslot *s = find(m, key, len, h);
        if (s->key)
            return &s->value;
    }
    if (2 * (m->n + 1) > m->cap && grow(m))
        return NULL;
    jl__hslot *s = find(m, key, len, h);
    char *k = malloc(len ? len : 1);
    if (!k)
        return NULL;
    if (len)
        memcpy(k, key, len);
    *s = (jl__hslot){h, k, len, init};
    m->n++;
    *added = 1;
    return &s->value;
}
