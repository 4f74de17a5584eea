/* Helpers shared by the libFuzzer targets (tests/fuzz/test_*.c). */
#ifndef JOULES_FUZZ_COMMON_H
#define JOULES_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (parsers that take C strings). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Split the input at the first separator line "\n----\n": part 1 before,
 * part 2 after (NULL/0 when there is no separator). Lets one input carry two
 * documents (index.json + a model file; gpus.json + models.json). */
static inline void fuzz_split(const uint8_t *data, size_t size, const char **a, size_t *alen,
                              const char **b, size_t *blen)
{
    static const char sep[] = "\n----\n";
    const size_t n = sizeof sep - 1;
    *a = (const char *)data;
    *alen = size;
    *b = NULL;
    *blen = 0;
    for (size_t i = 0; i + n <= size; i++)
        if (!memcmp(data + i, sep, n)) {
            *alen = i;
            *b = (const char *)data + i + n;
            *blen = size - i - n;
            return;
        }
}

#endif
