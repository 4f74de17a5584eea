/* A main() for the fuzz targets when they are not built with libFuzzer:
 * runs every file given (or every file in every directory given) through
 * LLVMFuzzerTestOneInput once. ctest uses it to replay the seed corpora and
 * every saved finding in the ordinary and the sanitizer trees, so a fixed
 * bug stays fixed without clang. */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            } else {
                buf = nb;
            }
        }
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        return 1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    int fail = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            perror(argv[i]);
            fail = 1;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            fail |= run_file(argv[i]);
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            fail = 1;
            continue;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char **nn = realloc(names, (n + 1) * sizeof *names);
            size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
            char *p = malloc(len);
            if (!nn || !p) {
                free(nn ? nn : names);
                free(p);
                closedir(d);
                return 2;
            }
            names = nn;
            snprintf(p, len, "%s/%s", argv[i], e->d_name);
            names[n++] = p;
        }
        closedir(d);
        if (n) /* an empty folder (no seeds from ../shared): qsort(NULL, 0) is undefined */
            qsort(names, n, sizeof *names, cmp);
        for (size_t k = 0; k < n; k++) {
            fail |= run_file(names[k]);
            count++;
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs\n", count);
    return fail;
}
