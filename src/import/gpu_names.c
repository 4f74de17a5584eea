/* The GPU name table (gpu_names.h). Memory sizes are what nvidia-smi /
 * NVML report as total memory for each variant (MiB x 2^20), the same
 * convention as models/gpus.json. */
#include "import/gpu_names.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#define MIB 1048576.0

typedef struct gpu_row {
    const char *all[3]; /* every one of these must occur (upper case) */
    const char *id;
    double mib;         /* 0: variant unknown */
} gpu_row;

/* Most specific first: the first row whose words all occur wins. */
static const gpu_row rows[] = {
    {{"H200", NULL, NULL}, "H200", 143771},
    {{"B200", NULL, NULL}, "B200", 184320},
    {{"H100", "NVL", NULL}, "H100-NVL", 95830},
    {{"H100", "PCIE", NULL}, "H100-PCIe", 81559},
    {{"H100", NULL, NULL}, "H100", 81559},
    {{"A100", "80GB", NULL}, "A100", 81920},
    {{"A100", "40GB", NULL}, "A100", 40960},
    {{"A100", NULL, NULL}, "A100", 0},
    {{"L40S", NULL, NULL}, "L40S", 46068},
    {{"A40", NULL, NULL}, "A40", 46068},
    {{"L4", NULL, NULL}, "L4", 23034},
    {{"V100", "32GB", NULL}, "V100", 32510},
    {{"V100", "16GB", NULL}, "V100", 16160},
    {{"V100", NULL, NULL}, "V100", 0},
    {{"T4", NULL, NULL}, "T4", 15360},
};

/* `w` occurs in `s` as a whole word: not glued to letters or digits on
 * either side ("A40" does not match "A400", "L4" does not match "L40S"). */
static int has_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
        if ((p == s || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[n]))
            return 1;
    return 0;
}

int jl__gpu_name_map(const char *vendor_name, const char **id, double *memory_bytes)
{
    char up[256];
    size_t i = 0;
    if (!vendor_name)
        return 0;
    for (; vendor_name[i] && i + 1 < sizeof up; i++)
        up[i] = (char)toupper((unsigned char)vendor_name[i]);
    up[i] = '\0';
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        int ok = 1;
        for (int k = 0; k < 3 && rows[r].all[k] && ok; k++)
            ok = has_word(up, rows[r].all[k]);
        if (ok) {
            *id = rows[r].id;
            *memory_bytes = rows[r].mib > 0 ? rows[r].mib * MIB : NAN;
            return 1;
        }
    }
    return 0;
}
