/* The run attributes that have a typed field in jl_attrs, in the order of
 * jl_attr_names (include/joules/attrs.h): name, kind, offsetof(jl_attrs,
 * field) and whether the trace format requires it. One table for every
 * place that walks the fields: the trace reader and writer's rules, the
 * summary table, jl_attrs_get, the worker wire format (src/study/wire.c). */
#ifndef JOULES_CORE_ATTRS_INTERNAL_H
#define JOULES_CORE_ATTRS_INTERNAL_H

#include <stddef.h>

/* X(field, kind, required): the one list, in jl_attr_names' order. */
/* clang-format off */
#define JL__ATTR_FIELDS(X)                                                       \
    X(workload, STR, 1) X(model, STR, 1) X(task, STR, 1) X(gpu_model, STR, 1)    \
    X(num_gpus, LONG, 1) X(precision, STR, 1) X(max_batch_size, LONG, 1)         \
    X(start_time_unix, DBL, 0) X(tensor_parallel, LONG, 0)                       \
    X(expert_parallel, LONG, 0) X(data_parallel, LONG, 0)                        \
    X(gpu_memory_bytes, DBL, 0) X(gpu_tdp_w, DBL, 0) X(gpu_idle_power_w, DBL, 0) \
    X(total_params, DBL, 0) X(active_params, DBL, 0)                             \
    X(kv_bytes_per_token, DBL, 0) X(denoising_steps, LONG, 0) X(height, LONG, 0) \
    X(width, LONG, 0) X(num_frames, LONG, 0) X(notes, STR, 0)
/* clang-format on */

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
