/* json_tree.h — a JSON text in memory as a jansson tree, read by the
 * streaming reader (json_stream.c) instead of jansson's decoder: the fast
 * path of the ML.ENERGY Leaderboard importer (docs/import.md, "Speed").
 * Internal to src/import/.
 */
#ifndef JOULES_IMPORT_JSON_TREE_H
#define JOULES_IMPORT_JSON_TREE_H

#include <jansson.h>
#include <stddef.h>

/* The tree json_loadb(text, len, 0, ...) would return, for a document
 * without duplicate keys; NULL where this builder declines (a syntax error,
 * a duplicate key, anything jansson might read otherwise, out of memory):
 * the caller then runs jansson (its error message, the duplicate report). */
json_t *jl__json_tree(const char *text, size_t len);

#endif
