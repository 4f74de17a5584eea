/* The importer table and its look-ups. One row per format, in the order
 * `joules import --list` prints them. Adding an importer is one file
 * (src/import/<name>.c, on the kit of src/import/kit.h, defining `const
 * jl_importer jl__importer_<id>` with its run() and, optionally, write())
 * and one row here; the CLI, --list, --help and the docs' list read this
 * table (docs/architecture.md, "Importers"). X(id): the C identifier; the
 * format's name is the descriptor's `name`. */
#include <string.h>

#include "joules/import.h"

#define JL__IMPORTERS(X)  \
    X(mlenergy)           \
    X(mlenergy_benchmark) \
    X(mlperf_power)       \
    X(nvidia_smi)         \
    X(prometheus)         \
    X(kineto)             \
    X(nsys)               \
    X(codecarbon)         \
    X(zeus)

#define JL__X_DECL(id) extern const jl_importer jl__importer_##id;
JL__IMPORTERS(JL__X_DECL)
#undef JL__X_DECL

static const jl_importer *const table[] = {
#define JL__X_ROW(id) &jl__importer_##id,
    JL__IMPORTERS(JL__X_ROW)
#undef JL__X_ROW
};

const jl_importer *const *jl_importers(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const jl_importer *jl_importer_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}
