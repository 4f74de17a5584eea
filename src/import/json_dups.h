/* Duplicate keys in JSON objects, with line numbers (internal to the
 * importers).
 *
 * jansson either rejects a document with a duplicate key outright
 * (JSON_REJECT_DUPLICATES, no line of the second key) or keeps the last
 * value silently; published data (ML.ENERGY Leaderboard commits 866faaa and
 * e0ba9ed) repeats keys with the same value, which Python's json accepts.
 * jl__json_find_dups() scans a text that jansson has already parsed (so it
 * is valid JSON) and lists every key given more than once in one object:
 * its path (`configurations[3].weight_precision`), the lines of the first
 * and the repeated occurrence, and whether the two values are equal JSON
 * (jansson's json_equal; numbers by value, so `2`, `2.0` and `2.00` are
 * equal, as in Python; nested values by json_equal). */
#ifndef JOULES_IMPORT_JSON_DUPS_H
#define JOULES_IMPORT_JSON_DUPS_H

#include <stddef.h>

typedef struct jl__json_dup {
    char *path;      /* the repeated member's path, e.g. configurations[3].weight_precision */
    char *key;       /* the key (escapes decoded, as jansson reads it) */
    long line_first; /* 1-based lines of the first and the repeated key */
    long line_dup;
    int equal;         /* 1: the two values are equal JSON */
    char *value_first; /* the values as written, cut to 60 bytes */
    char *value_dup;
} jl__json_dup;

/* Scans text[0..n) (valid JSON); *out gets the repeats in text order of the
 * repeated key (NULL when none). 0, or -1 when memory ran out. */
int jl__json_find_dups(const char *text, size_t n, jl__json_dup **out, size_t *n_out);
void jl__json_dups_free(jl__json_dup *d, size_t n);

#endif
