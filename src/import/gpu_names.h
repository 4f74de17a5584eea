/* gpu_names.h — the one table that maps a GPU's vendor name, as a source
 * writes it ("NVIDIA A100-SXM4-40GB", "H100 80GB HBM3", "A100-SXM-80GB"), to
 * joules' gpu_model id ("A100") and the memory the driver reports for that
 * variant. Used by every importer (docs/import.md, "GPU names"). */
#ifndef JOULES_IMPORT_GPU_NAMES_H
#define JOULES_IMPORT_GPU_NAMES_H

/* Returns 1 and sets *id (static text) and *memory_bytes (NaN when the name
 * does not say which memory variant) when the name is known; 0 otherwise. */
int jl__gpu_name_map(const char *vendor_name, const char **id, double *memory_bytes);

#endif
