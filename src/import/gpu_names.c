/* The one GPU-name table of the importers (kit.h): a vendor name to joules'
 * gpu_model id (jl_gpu_model_from_name, public in joules/import.h) and, per
 * id, which words of a name pick a memory size (jl__imp_gpu_name). Sizes are what nvidia-smi / NVML report as total
 * memory (MiB x 2^20), the convention of models/gpus.json. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import/kit.h"
#include "joules/import.h"

/* Device-name tokens that name a GPU model, longest first where one is a
 * prefix of another. Matched as whole tokens (split at space, '-', '_'),
 * case-insensitively. */
static const char *const gpu_ids[] = {
    "GB300", "GB200", "GH200", "B300", "B200", "B100",  "H200",  "H100",  "H800", "H20", "A100",
    "A800",  "A40",   "A30",   "A10G", "A10",  "A16",   "A2",    "L40S",  "L40",  "L20", "L4",
    "V100",  "T4",    "P100",  "P40",  "P4",   "A6000", "A5000", "A4000", NULL,
};

int jl_gpu_model_from_name(const char *name, char *buf, size_t cap)
{
    if (!cap)
        return 0;
    buf[0] = '\0';
    if (!name)
        return 0;
    const char *p = name;
    while (isspace((unsigned char)*p))
        p++;
    for (const char *const *pre = (const char *const[]){"NVIDIA ", "Tesla ", NULL}; *pre; pre++)
        if (!strncmp(p, *pre, strlen(*pre)))
            p += strlen(*pre);
    const char *s = p;
    while (*s) {
        while (*s == ' ' || *s == '-' || *s == '_')
            s++;
        const char *e = s;
        while (*e && *e != ' ' && *e != '-' && *e != '_')
            e++;
        size_t len = (size_t)(e - s);
        for (size_t k = 0; len && gpu_ids[k]; k++) {
            if (strlen(gpu_ids[k]) != len)
                continue;
            size_t j = 0;
            while (j < len && toupper((unsigned char)s[j]) == gpu_ids[k][j])
                j++;
            if (j == len) {
                snprintf(buf, cap, "%s", gpu_ids[k]);
                return 1;
            }
        }
        s = e;
    }
    snprintf(buf, cap, "%s", p);
    size_t n = strlen(buf);
    while (n && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';
    return 0;
}

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

int jl__imp_gpu_name(const char *vendor_name, char *id, size_t cap, double *memory_bytes)
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
