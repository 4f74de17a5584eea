/* One line of a file at a time, bounded (lines.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/lines.h"

#include <stdlib.h>

long long jl__getline_max(FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    for (;;) {
        if (*cap < n + 2) {
            size_t nc = *cap ? 2 * *cap : 4096;
            if (nc > max + 2)
                nc = max + 2;
            if (nc < n + 2) { /* longer than max: the rest of the line skipped */
                int ch;
                while ((ch = getc_unlocked(f)) != EOF && ch != '\n')
                    ;
                return -2;
            }
            char *nb = realloc(*buf, nc);
            if (!nb)
                return -3;
            *buf = nb;
            *cap = nc;
        }
        int ch = getc_unlocked(f);
        if (ch == EOF)
            break;
        (*buf)[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (!n)
        return -1;
    (*buf)[n] = '\0';
    return (long long)n;
}
