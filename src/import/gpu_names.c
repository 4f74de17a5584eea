/* Memory of GPU variants (gpu_names.h). The id comes from the shared table
 * (jl_gpu_model_from_name); this file only knows, per id, which words of a
 * name pick a memory size. Sizes are what nvidia-smi / NVML report as total
 * memory (MiB x 2^20), the convention of models/gpus.json. */
#include "import/gpu_names.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "joules/import.h"

#define MIB 1048576.0

typedef struct variant {
    const char *id, *word; /* word NULL: the id alone says the size */
    double mib;
} variant;

/* Most specific first: the first row of the id whose word occurs wins. */
static const variant variants[] = {
    {"H200", NULL, 143771},  {"B200", NULL, 184320},  {"H100", "NVL", 95830},
    {"H100", NULL, 81559},   {"A100", "80GB", 81920}, {"A100", "40GB", 40960},
    {"L40S", NULL, 46068},   {"A40", NULL, 46068},    {"L4", NULL, 23034},
    {"V100", "32GB", 32510}, {"V100", "16GB", 16160}, {"T4", NULL, 15360},
};

/* `w` occurs in `s` as a whole word (not glued to letters or digits). */
static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
            return 1;
    return 0;
}

int jl__gpu_name_map(const char *vendor_name, char *id, size_t cap, double *memory_bytes)
{
    *memory_bytes = NAN;
    int known = jl_gpu_model_from_name(vendor_name, id, cap);
    if (!known)
        return 0;
    char up[256];
    size_t i = 0;
    for (; vendor_name[i] && i + 1 < sizeof up; i++)
        up[i] = (char)toupper((unsigned char)vendor_name[i]);
    up[i] = '\0';
    for (size_t r = 0; r < sizeof variants / sizeof variants[0]; r++)
        if (!strcmp(variants[r].id, id) && (!variants[r].word || has_word(up, variants[r].word))) {
            *memory_bytes = variants[r].mib * MIB;
            break;
        }
    return 1;
}
