/* Where the installed files are: --help's last paragraph (the manual page
 * and the documents) and the data the analysis reads (models/, notebook
 * templates). An installed joules finds them relative to its own executable
 * (bin/../share/doc/joules, bin/../share/joules), so a tree installed with
 * `cmake --install --prefix P` uses P's; otherwise the configured install
 * directory (and, for data, the source tree the build came from). */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"

#ifndef JOULES_DOC_DIR
#define JOULES_DOC_DIR "/usr/local/share/doc/joules"
#endif
#ifndef JOULES_DOC_FROM_BIN
#define JOULES_DOC_FROM_BIN "../share/doc/joules"
#endif
#ifndef JOULES_DATA_FROM_BIN
#define JOULES_DATA_FROM_BIN "../share/joules"
#endif

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* DIR_OF_EXECUTABLE/rel when that is a directory, else NULL. */
static const char *beside_executable(const char *rel, char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    if (snprintf(buf, size, "%s/%s", exe, rel) >= (int)size || !is_dir(buf))
        return NULL;
    char *real = realpath(buf, NULL);
    if (!real)
        return buf;
    snprintf(buf, size, "%s", real);
    free(real);
    return buf;
}

void cli_help(const char *cmd, const char *text)
{
    char buf[PATH_MAX + 64];
    const char *doc = beside_executable(JOULES_DOC_FROM_BIN, buf, sizeof buf);
    if (text)
        fputs(text, stdout);
    if (cmd)
        printf("\nManual: man joules-%s (every command: man joules).\n", cmd);
    else
        printf("\nManual: man joules, and man joules-COMMAND for each command.\n");
    printf("Documents named *.md: %s/%s\n", doc ? doc : JOULES_DOC_DIR,
           doc || is_dir(JOULES_DOC_DIR) ? "" : " (once installed)");
}

void cli_use_installed_data(void)
{
    static const char *const dirs[][2] = {
        {"JOULES_MODELS_DIR", JOULES_DATA_FROM_BIN "/models"},
        {"JOULES_NOTEBOOKS_DIR", JOULES_DATA_FROM_BIN "/notebooks-export"},
    };
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char buf[PATH_MAX + 64];
        const char *d;
        if (!getenv(dirs[i][0]) && (d = beside_executable(dirs[i][1], buf, sizeof buf)) != NULL)
            setenv(dirs[i][0], d, 0);
    }
}
