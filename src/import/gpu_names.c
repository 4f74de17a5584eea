/* The one GPU-name table of the importers (kit.h): a vendor name to joules'
 * gpu_model id (jl_gpu_model_from_name, public in joules/import.h) and, per
 * id, which words of a name pick a memory size (jl__imp_gpu_name). Sizes are what nvidia-smi / NVML report as total
 * memory (MiB x 2^20), the convention of models/gpus.json. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/kit.h"
#include "joules/import.h"

/* Device-name tokens that name a GPU model, longest first where one is a
 * prefix of another. Matched as whole tokens (split at space, '-', '_'),
 * case-insensitively. */
static const char *const gpu_ids[] = {
    "GB300",
    "GB200",
    "GH200",
    "B300",
    "B200",
    "B100",
    "H200",
    "H100",
    "H800",
    "H20",
    "A100",
    "A800",
    "A40",
    "A30",
    "A10G",
    "A10",
    "A16",
    "A2",
    "L40S",
    "L40",
    "L20",
    "L4",
    "V100",
    "T4",
    "P100",
    "P40",
    "P4",
    "A6000",
    "A5000",
    "A4000",
    /* other vendors' accelerators in MLPerf submissions (system descriptions'
     * accelerator_model_name): AMD Instinct, Intel Gaudi */
    "MI325X",
    "MI300X",
    "MI300A",
    "MI250X",
    "MI250",
    "MI210",
    "MI100",
    "GAUDI3",
    "GAUDI2",
    NULL,
};

/* Names of two words (Jetson modules), matched as consecutive tokens. */
static const char *const gpu_phrases[][3] = {
    {"XAVIER", "NX", "Xavier-NX"},
    {"AGX", "XAVIER", "AGX-Xavier"},
    {"ORIN", "NX", "Orin-NX"},
    {"AGX", "ORIN", "AGX-Orin"},
    {"ORIN", "NANO", "Orin-Nano"},
    {"AI", "100", "Cloud-AI-100"}, /* Qualcomm Cloud AI 100 (Standard, Pro, Ultra) */
};

/* A form factor or memory type glued to the model in system names
 * (`B200SXM`, `H100PCIe`, `H200NVL`): a token that is an id followed by one
 * of these still names the id. */
static const char *const glued_suffixes[] = {"SXM", "SXM2", "SXM4",  "SXM5", "SXM6", "PCIE",
                                             "NVL", "HBM3", "HBM3E", "HGX",  NULL};

/* The token [s, s+len) upper-cased equals w (w upper case). */
static int token_is(const char *s, size_t len, const char *w)
{
    if (strlen(w) != len)
        return 0;
    for (size_t j = 0; j < len; j++)
        if (toupper((unsigned char)s[j]) != w[j])
            return 0;
    return 1;
}

/* The id that token [s, s+len) names: whole, or followed by a glued suffix. */
static const char *token_id(const char *s, size_t len)
{
    for (size_t k = 0; gpu_ids[k]; k++) {
        size_t n = strlen(gpu_ids[k]);
        if (n > len || !token_is(s, n, gpu_ids[k]))
            continue;
        if (n == len)
            return gpu_ids[k];
        for (const char *const *suf = glued_suffixes; *suf; suf++)
            if (token_is(s + n, len - n, *suf))
                return gpu_ids[k];
    }
    return NULL;
}

static int is_sep(char ch)
{
    return ch == ' ' || ch == '-' || ch == '_';
}

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
    const char *s = p, *prev = NULL;
    size_t prev_len = 0;
    while (*s) {
        while (is_sep(*s))
            s++;
        const char *e = s;
        while (*e && !is_sep(*e))
            e++;
        size_t len = (size_t)(e - s);
        for (size_t k = 0; prev && k < sizeof gpu_phrases / sizeof gpu_phrases[0]; k++)
            if (token_is(prev, prev_len, gpu_phrases[k][0]) &&
                token_is(s, len, gpu_phrases[k][1])) {
                snprintf(buf, cap, "%s", gpu_phrases[k][2]);
                return 1;
            }
        const char *id = len ? token_id(s, len) : NULL;
        if (id) {
            snprintf(buf, cap, "%s", id);
            return 1;
        }
        if (len) {
            prev = s;
            prev_len = len;
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

/* One '_'-separated segment of a system name as "<accelerator>x<N>" or
 * "<N>x<accelerator>": the accelerator into acc, the count; 0 when it is
 * neither. */
static int segment_count(const char *seg, size_t len, char *acc, size_t cap, long *count)
{
    size_t d = 0;
    while (d < len && isdigit((unsigned char)seg[d]))
        d++;
    if (d > 0 && d < 5 && d + 1 < len && (seg[d] == 'x' || seg[d] == 'X')) { /* 8xH100 */
        if (len - d - 1 >= cap)
            return 0;
        memcpy(acc, seg + d + 1, len - d - 1);
        acc[len - d - 1] = '\0';
        *count = strtol(seg, NULL, 10);
        return *count >= 1 && *count <= 1024;
    }
    const char *x = NULL; /* the last 'x' followed by digits only: H100-SXM-80GBx8 */
    for (size_t i = len; i > 1; i--)
        if (seg[i - 1] == 'x' || seg[i - 1] == 'X') {
            x = seg + i - 1;
            break;
        }
    if (!x || x + 1 >= seg + len || (size_t)(x - seg) >= cap)
        return 0;
    for (const char *q = x + 1; q < seg + len; q++)
        if (!isdigit((unsigned char)*q))
            return 0;
    memcpy(acc, seg, (size_t)(x - seg));
    acc[x - seg] = '\0';
    *count = strtol(x + 1, NULL, 10);
    return *count >= 1 && *count <= 1024;
}

int jl__imp_system_accelerators(const char *system, char *acc, size_t cap, long *count, char *id,
                                size_t id_cap, double *memory_bytes)
{
    acc[0] = '\0';
    id[0] = '\0';
    *count = 1;
    *memory_bytes = NAN;
    if (!system || !*system)
        return 0;
    /* first a segment with a count whose accelerator the table knows, then
     * a known GPU anywhere in the name (count 1), then an unknown counted one */
    char first_acc[128] = "";
    long first_count = 1;
    for (const char *seg = system; seg && *seg;) {
        const char *end = strchr(seg, '_');
        size_t len = end ? (size_t)(end - seg) : strlen(seg);
        char a[128];
        long n;
        if (segment_count(seg, len, a, sizeof a, &n)) {
            if (jl__imp_gpu_name(a, id, id_cap, memory_bytes)) {
                snprintf(acc, cap, "%s", a);
                *count = n;
                return 1;
            }
            if (!first_acc[0]) {
                snprintf(first_acc, sizeof first_acc, "%s", a);
                first_count = n;
            }
        }
        seg = end ? end + 1 : NULL;
    }
    if (!first_acc[0] && jl__imp_gpu_name(system, id, id_cap, memory_bytes)) {
        snprintf(acc, cap, "%s", id);
        return 1;
    }
    if (first_acc[0]) {
        snprintf(acc, cap, "%s", first_acc);
        *count = first_count;
    }
    id[0] = '\0';
    *memory_bytes = NAN;
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

/* GPUs before Ampere, where NVML's plain power reading (nvidia-smi
 * power.draw, DCGM_FI_DEV_POWER_USAGE) is the instantaneous one
 * (nvidia-smi --help-query-gpu): by the GPU-name table's id or a brand
 * word of those generations. */
int jl__imp_gpu_before_ampere(const char *name)
{
    static const char *const ids[] = {"V100", "T4", "P100", "P40", "P4", NULL};
    static const char *const words[] = {"Tesla", "Quadro", "GTX", "TITAN", "RTX 20", NULL};
    char id[128];
    if (!name)
        return 0;
    jl_gpu_model_from_name(name, id, sizeof id);
    for (const char *const *k = ids; *k; k++)
        if (!strcmp(id, *k))
            return 1;
    for (const char *const *k = words; *k; k++)
        if (strstr(name, *k))
            return 1;
    return 0;
}
