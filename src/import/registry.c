/* The importer table (src/import/importers.h) and its look-ups. */
#include <string.h>

#include "import/importers.h"

static const jl_importer *const table[] = {
#define JL_X_ROW(id) &jl__importer_##id,
    JL_IMPORTERS(JL_X_ROW)
#undef JL_X_ROW
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
