/* joules/json.h — JSON text of joules' documents (src/json/).
 *
 * joules writes every document with sorted keys, two spaces of indentation
 * and a fixed precision (jl_json_dump); jl_json_dumps is jansson's
 * json_dumps, the same bytes, faster. All take jansson's json_t: experimental
 * (docs/library.md, "Stable and experimental"; documents: jl_*_document_text).
 */
#ifndef JOULES_JSON_H
#define JOULES_JSON_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/error.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* Real numbers in JSON documents are printed with this many significant
 * digits (deterministic output; CSV keeps full precision), except numbers
 * of magnitude JL_JSON_FULL_FROM or more, which get as many digits as it
 * takes to read back as the same double (at most 17): absolute times in
 * Unix seconds (start_time_unix, 1.8e9 today) keep their microseconds
 * instead of being cut to 10 ms. */
#define JL_JSON_REAL_PRECISION 12
#define JL_JSON_FULL_FROM 1e9

#ifdef JOULES_EXPERIMENTAL
/* A number, or JSON null when NaN/inf (missing is never 0). */
json_t *jl_json_number(double v);

/* [{"file","run","object","row","code","message"}...] */
json_t *jl_errors_to_json(const jl_error_list *errors);

/* Serialise a document (sorted keys, fixed precision, trailing newline);
 * caller frees. */
char *jl_json_dump(const json_t *doc);

/* json_dumps(v, flags), the same bytes, several times faster
 * (src/json/json_dump.c); caller frees. */
char *jl_json_dumps(const json_t *v, size_t flags);
#endif /* JOULES_EXPERIMENTAL */

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
