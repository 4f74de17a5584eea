#define _POSIX_C_SOURCE 200809L
#include "cli/table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct cli_table {
    size_t ncol, nrow, cap;
    char **headers;
    int *right;
    char **cells; /* nrow x ncol, NULL = "-" */
};

cli_table *cli_table_new(size_t ncol, const char *const *headers, const int *right)
{
    cli_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncol = ncol;
    t->headers = calloc(ncol ? ncol : 1, sizeof *t->headers);
    t->right = calloc(ncol ? ncol : 1, sizeof *t->right);
    if (!t->headers || !t->right) {
        cli_table_free(t);
        return NULL;
    }
    for (size_t i = 0; i < ncol; i++) {
        if (!(t->headers[i] = strdup(headers[i]))) {
            cli_table_free(t);
            return NULL;
        }
        t->right[i] = right ? right[i] : 0;
    }
    return t;
}

void cli_table_free(cli_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; t->headers && i < t->ncol; i++)
        free(t->headers[i]);
    for (size_t i = 0; i < t->nrow * t->ncol; i++)
        free(t->cells[i]);
    free(t->headers);
    free(t->right);
    free(t->cells);
    free(t);
}

int cli_table_row(cli_table *t)
{
    if (t->nrow == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        char **c = realloc(t->cells, nc * (t->ncol ? t->ncol : 1) * sizeof *c);
        if (!c)
            return -1;
        t->cells = c;
        t->cap = nc;
    }
    memset(t->cells + t->nrow * t->ncol, 0, t->ncol * sizeof *t->cells);
    t->nrow++;
    return 0;
}

void cli_table_set(cli_table *t, size_t col, const char *text)
{
    if (!t->nrow || col >= t->ncol)
        return;
    char **c = &t->cells[(t->nrow - 1) * t->ncol + col];
    free(*c);
    *c = text ? strdup(text) : NULL;
    /* a cell is one line of text whatever a name from a file holds: no
     * newline to break the table, no escape sequence for the terminal */
    for (char *p = *c; p && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
}

void cli_table_setf(cli_table *t, size_t col, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cli_table_set(t, col, buf);
}

size_t cli_table_rows(const cli_table *t)
{
    return t->nrow;
}

/* Display width of UTF-8 text: continuation bytes take no column. */
static size_t display_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* s shortened to `limit` columns by eliding its middle ("h100-q~chat.h5"),
 * into buf; s itself when it fits. ASCII names (file names) are assumed. */
static const char *elide(const char *s, size_t limit, char *buf, size_t cap)
{
    size_t len = strlen(s);
    if (!limit || len <= limit || limit < 5 || limit >= cap)
        return s;
    size_t keep = limit - 1, head = keep / 2, tail = keep - head;
    snprintf(buf, cap, "%.*s~%s", (int)head, s, s + len - tail);
    return buf;
}

static void put_cell(FILE *f, const char *s, size_t width, int right, size_t limit)
{
    char buf[512];
    s = elide(s, limit, buf, sizeof buf);
    size_t w = display_width(s);
    if (right)
        for (size_t i = w; i < width; i++)
            fputc(' ', f);
    fputs(s, f);
    if (!right)
        for (size_t i = w; i < width; i++)
            fputc(' ', f);
}

/* Whether column c, shortened to limit, still tells its values apart. */
static int still_distinct(const cli_table *t, size_t c, size_t limit)
{
    char a[512], b[512];
    for (size_t i = 0; i < t->nrow; i++)
        for (size_t j = i + 1; j < t->nrow; j++) {
            const char *x = t->cells[i * t->ncol + c], *y = t->cells[j * t->ncol + c];
            if (!x || !y || !strcmp(x, y))
                continue;
            if (!strcmp(elide(x, limit, a, sizeof a), elide(y, limit, b, sizeof b)))
                return 0;
        }
    return 1;
}

size_t cli_terminal_width(void)
{
    if (!isatty(STDOUT_FILENO))
        return 0;
    const char *c = getenv("COLUMNS");
    long v = c ? strtol(c, NULL, 10) : 0;
    if (v > 0)
        return (size_t)v;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 0;
}

int cli_table_print(const cli_table *t, FILE *f, long shrink_col)
{
    size_t *w = calloc(t->ncol ? t->ncol : 1, sizeof *w);
    if (!w)
        return 0;
    size_t total = 0;
    for (size_t c = 0; c < t->ncol; c++) {
        w[c] = display_width(t->headers[c]);
        for (size_t r = 0; r < t->nrow; r++) {
            const char *s = t->cells[r * t->ncol + c];
            size_t x = display_width(s ? s : "-");
            if (x > w[c])
                w[c] = x;
        }
        total += w[c] + (c ? 1 : 0);
    }
    size_t term = cli_terminal_width(), limit = 0;
    int shrunk = 0;
    if (term && total > term && shrink_col >= 0 && (size_t)shrink_col < t->ncol) {
        size_t over = total - term, sc = (size_t)shrink_col;
        size_t floor = 12;
        if (w[sc] > floor) {
            size_t cut = over < w[sc] - floor ? over : w[sc] - floor;
            limit = w[sc] - cut;
            /* never so short that two different names read the same */
            while (limit < w[sc] && !still_distinct(t, sc, limit))
                limit++;
            if (limit < w[sc]) {
                w[sc] = limit;
                shrunk = 1;
            }
        }
    }
    for (size_t c = 0; c < t->ncol; c++) {
        if (c)
            fputc(' ', f);
        put_cell(f, t->headers[c], c + 1 == t->ncol && !t->right[c] ? 0 : w[c], t->right[c], 0);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->nrow; r++) {
        for (size_t c = 0; c < t->ncol; c++) {
            const char *s = t->cells[r * t->ncol + c];
            if (c)
                fputc(' ', f);
            put_cell(f, s ? s : "-", c + 1 == t->ncol && !t->right[c] ? 0 : w[c], t->right[c],
                     shrunk && (long)c == shrink_col ? limit : 0);
        }
        fputc('\n', f);
    }
    free(w);
    return shrunk;
}
