/* The public SHA-256 (joules/account.h): account's face of core/sha256.c. */
#include "core/sha256.h"
#include "joules/provenance.h"

void jl_sha256_hex(const void *data, size_t len, char hex[65])
{
    jl__sha256 s;
    unsigned char d[32];
    jl__sha256_init(&s);
    jl__sha256_update(&s, data, len);
    jl__sha256_final(&s, d);
    jl__sha256_to_hex(d, hex);
}

jl_status jl_sha256_file(const char *path, char hex[65], unsigned long long *size, jl_error **err)
{
    return jl__sha256_file(path, hex, size, err);
}
