/* The run attributes that have a typed field in jl_attrs, in the order of
 * jl_attr_names (include/joules/attrs.h): name, kind, offsetof(jl_attrs,
 * field) and whether the trace format requires it. One table for every
 * place that walks the fields: the trace reader and writer's rules, the
 * summary table, jl_attrs_get, the worker wire format (src/study/wire.c). */
#ifndef JOULES_CORE_ATTRS_INTERNAL_H
#define JOULES_CORE_ATTRS_INTERNAL_H

#include <stddef.h>

/* The run attributes that have a typed field in jl_attrs: name, kind,
 * offsetof(jl_attrs, field) and whether the spec requires it. */
typedef enum { JL__F_STR, JL__F_LONG, JL__F_DBL } jl__field_kind;
typedef struct {
    const char *name;
    jl__field_kind kind;
    size_t off;
    int required;
} jl__attr_field;
extern const jl__attr_field jl__attr_fields[];
extern const size_t jl__n_attr_fields;

#endif
