/* The document writers' one hook for provenance (joules/output.h): the
 * block the current context's documents carry (joules/context.h), given by
 * whoever set it (the CLI, on the default context). */
#include <string.h>

#include "joules/context.h"
#include "joules/output.h"
#include "output/document_internal.h"

void jl_output_set_provenance(jl_provenance_fn fn, void *ctx)
{
    jl_context_set_provenance(jl_context_current(), fn, ctx);
}

const json_t *jl_output_provenance(void)
{
    return jl_context_provenance(jl_context_current());
}

json_t *jl__with_provenance(const json_t *doc)
{
    const char *schema = json_string_value(json_object_get(doc, "schema"));
    if (!schema || strncmp(schema, "joules.", 7) || json_object_get(doc, "provenance"))
        return NULL;
    const json_t *prov = jl_output_provenance();
    if (!prov)
        return NULL;
    json_t *copy = json_copy((json_t *)doc); /* shallow: the members are shared */
    if (copy && json_object_set(copy, "provenance", (json_t *)prov)) {
        json_decref(copy);
        return NULL;
    }
    return copy;
}
