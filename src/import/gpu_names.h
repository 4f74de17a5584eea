/* gpu_names.h — a GPU's vendor name ("NVIDIA A100-SXM4-40GB", "H100 80GB
 * HBM3", "A100-SXM-80GB") to joules' gpu_model id through the one shared
 * table, jl_gpu_model_from_name() (src/import/common.c), plus the memory
 * the driver reports for the variant the name says (docs/import.md, "GPU
 * names"). */
#ifndef JOULES_IMPORT_GPU_NAMES_H
#define JOULES_IMPORT_GPU_NAMES_H

#include <stddef.h>

/* Writes the id into id (cap bytes) and returns 1 when the shared table
 * knows the name (0: id holds the name as jl_gpu_model_from_name leaves
 * it). *memory_bytes: the variant's memory, NaN when the name does not say
 * which (e.g. "A100", "V100"). */
int jl__gpu_name_map(const char *vendor_name, char *id, size_t cap, double *memory_bytes);

#endif
