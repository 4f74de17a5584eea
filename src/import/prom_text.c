/* Prometheus text exposition parsing (prom_text.h). */
#define _POSIX_C_SOURCE 200809L
#include "import/prom_text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int name_start(char c)
{
    return isalpha((unsigned char)c) || c == '_' || c == ':';
}

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == ':';
}

/* A sample value: a float, +Inf, -Inf or NaN. */
static int value(const char *s, size_t n, double *out)
{
    char tmp[64];
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    if (!strcasecmp(tmp, "+Inf") || !strcasecmp(tmp, "Inf")) {
        *out = INFINITY;
        return 0;
    }
    if (!strcasecmp(tmp, "-Inf")) {
        *out = -INFINITY;
        return 0;
    }
    if (!strcasecmp(tmp, "NaN")) {
        *out = NAN;
        return 0;
    }
    char *end;
    errno = 0;
    *out = strtod(tmp, &end);
    return (*end || errno == EINVAL) ? -1 : 0;
}

/* One sample line; name is [s, s+nl). Returns 0 or -1 (msg set). */
static int sample(const char *s, const char *e, const char **name, size_t *nl, double *v, char *msg,
                  size_t cap)
{
    const char *p = s;
    if (!name_start(*p)) {
        snprintf(msg, cap, "a metric name must start with a letter, '_' or ':'");
        return -1;
    }
    while (p < e && name_char(*p))
        p++;
    *name = s;
    *nl = (size_t)(p - s);
    if (p < e && *p == '{') {
        p++;
        for (;;) {
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            if (p < e && *p == '}') {
                p++;
                break;
            }
            if (p >= e || !name_start(*p)) {
                snprintf(msg, cap, "a label name expected");
                return -1;
            }
            while (p < e && name_char(*p))
                p++;
            if (p >= e || *p != '=' || p + 1 >= e || p[1] != '"') {
                snprintf(msg, cap, "expected =\"value\" after a label name");
                return -1;
            }
            p += 2;
            while (p < e && *p != '"') {
                if (*p == '\\') {
                    if (p + 1 >= e || (p[1] != '\\' && p[1] != '"' && p[1] != 'n')) {
                        snprintf(msg, cap, "a bad escape in a label value");
                        return -1;
                    }
                    p++;
                }
                p++;
            }
            if (p >= e) {
                snprintf(msg, cap, "a label value is not closed");
                return -1;
            }
            p++;
            while (p < e && (*p == ' ' || *p == '\t'))
                p++;
            if (p < e && *p == ',') {
                p++;
                continue;
            }
            if (p < e && *p == '}') {
                p++;
                break;
            }
            snprintf(msg, cap, "expected ',' or '}' in the labels");
            return -1;
        }
    }
    if (p >= e || (*p != ' ' && *p != '\t')) {
        snprintf(msg, cap, "expected a space and a value after the metric");
        return -1;
    }
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    const char *vs = p;
    while (p < e && *p != ' ' && *p != '\t')
        p++;
    if (value(vs, (size_t)(p - vs), v)) {
        snprintf(msg, cap, "the value \"%.*s\" is not a number", (int)(p - vs > 40 ? 40 : p - vs),
                 vs);
        return -1;
    }
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    if (p < e) { /* an optional timestamp in ms */
        const char *ts = p;
        if (*p == '-')
            p++;
        while (p < e && isdigit((unsigned char)*p))
            p++;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p < e || p == ts) {
            snprintf(msg, cap, "unexpected text after the value");
            return -1;
        }
    }
    return 0;
}

int jl__prom_sums(const char *text, size_t len, const char *const *names, size_t n_names,
                  double *sum, size_t *count, long *bad_line, char *msg, size_t msg_cap)
{
    for (size_t k = 0; k < n_names; k++) {
        sum[k] = 0;
        count[k] = 0;
    }
    long line = 0;
    for (size_t i = 0; i < len;) {
        const char *s = text + i, *nl = memchr(s, '\n', len - i);
        const char *e = nl ? nl : text + len;
        i = (size_t)(e - text) + 1;
        line++;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (s == e || *s == '#')
            continue; /* blank, # HELP, # TYPE or a comment */
        const char *name;
        size_t n;
        double v;
        if (sample(s, e, &name, &n, &v, msg, msg_cap)) {
            *bad_line = line;
            return -1;
        }
        for (size_t k = 0; k < n_names; k++)
            if (strlen(names[k]) == n && !memcmp(names[k], name, n)) {
                sum[k] += v;
                count[k]++;
            }
    }
    return 0;
}
