/* The kit's numbers with units and CSV header names (kit.h); the CSV
 * reader itself is core's (core/csv.c). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "import/kit.h"

void jl__imp_csv_split_unit(const char *header, char *name, char *unit, size_t cap)
{
    const char *lb = strrchr(header, '[');
    size_t hl = strlen(header);
    unit[0] = '\0';
    if (lb && hl && header[hl - 1] == ']') {
        size_t ul = (size_t)(header + hl - 1 - (lb + 1));
        snprintf(unit, cap, "%.*s", (int)ul, lb + 1);
        hl = (size_t)(lb - header);
    }
    while (hl && isspace((unsigned char)header[hl - 1]))
        hl--;
    const char *h = header;
    while (hl && isspace((unsigned char)*h)) {
        h++;
        hl--;
    }
    snprintf(name, cap, "%.*s", (int)hl, h);
}

static const double pow10_tab[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

int jl__imp_number_unit(const char *s, double *v, const char **unit)
{
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    uint64_t m = 0;
    int digits = 0, frac = 0, any = 0;
    while (*p >= '0' && *p <= '9') {
        if (digits < 19)
            m = m * 10 + (uint64_t)(*p - '0'), digits += m != 0;
        else
            frac--; /* too many digits: let strtod do it */
        p++;
        any = 1;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9') {
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                digits += m != 0;
                frac++;
            }
            p++;
            any = 1;
        }
    }
    if (!any)
        return 0;
    double x;
    if (*p == 'e' || *p == 'E' || frac < 0 || frac > 22 || m >= ((uint64_t)1 << 53)) {
        char *end;
        errno = 0;
        x = strtod(s, &end);
        if (end == s)
            return 0;
        p = end;
        neg = 0;
    } else {
        x = (double)m / pow10_tab[frac];
    }
    *v = neg ? -x : x;
    while (*p == ' ' || *p == '\t')
        p++;
    *unit = p;
    return 1;
}

int jl__imp_csv_missing(const char *s)
{
    switch (s[0]) {
    case '\0': return 1;
    case '[': return s[strlen(s) - 1] == ']';
    case 'N': return !strcmp(s, "N/A") || !strcmp(s, "NA");
    case 'n': return !strcmp(s, "n/a");
    default: return 0; /* a number starts with a digit, '-', '+' or '.' */
    }
}

int jl__imp_number(const char *s, double *v)
{
    char *e;
    errno = 0;
    double x = strtod(s, &e);
    if (e == s || *e || errno || !isfinite(x))
        return 0;
    *v = x;
    return 1;
}
