/* The importer table: one row per format, in the order `joules import
 * --list` prints them. Adding an importer is one file (src/import/<name>.c,
 * defining `const jl_importer jl__importer_<id>` with its library call) and
 * one row here; the CLI, --list, --help and the docs' list read this table.
 * X(id): the C identifier; the format's name is the descriptor's `name`. */
#ifndef JOULES_IMPORT_IMPORTERS_H
#define JOULES_IMPORT_IMPORTERS_H

#include "joules/import.h"

#define JL_IMPORTERS(X)   \
    X(mlenergy)           \
    X(mlenergy_benchmark) \
    X(mlperf_power)       \
    X(nvidia_smi)         \
    X(kineto)             \
    X(nsys)

#define JL_X_DECL(id) extern const jl_importer jl__importer_##id;
JL_IMPORTERS(JL_X_DECL)
#undef JL_X_DECL

#endif
