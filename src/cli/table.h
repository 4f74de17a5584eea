/* Text tables for people: columns as wide as their widest cell (a model
 * name is never cut, so Qwen3-235B-A22B-Instruct-2507 and ...-FP8 stay two
 * rows that read differently), text left-aligned, numbers right-aligned. On
 * a terminal narrower than the table, one column chosen by the caller (a
 * file name) is shortened in its middle, and nothing else. */
#ifndef JOULES_CLI_TABLE_H
#define JOULES_CLI_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef struct cli_table cli_table;

/* A table with these headers; right[i] != 0 right-aligns column i. NULL on
 * out-of-memory. */
cli_table *cli_table_new(size_t ncol, const char *const *headers, const int *right);
void cli_table_free(cli_table *t);
/* Start a row; cells are then set by column (unset cells print "-"). */
int cli_table_row(cli_table *t);
void cli_table_set(cli_table *t, size_t col, const char *text);
void cli_table_setf(cli_table *t, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
size_t cli_table_rows(const cli_table *t);
/* Print to f. shrink_col: the column that may be shortened to fit the
 * terminal (-1: none). Returns 1 when it shortened something. */
int cli_table_print(const cli_table *t, FILE *f, long shrink_col);

/* Columns of the terminal on stdout, 0 when stdout is not a terminal
 * ($COLUMNS first, then the terminal's size). */
size_t cli_terminal_width(void);

#endif
