/* The one folder walker of src/core (walk.h), and
 * their users at the library's edge: jl_collect_paths (the study's path
 * listing), jl_import_input_bytes (import --each) and jl_import_guess_path
 * over folders whose links loop or repeat (docs/security.md, "Folder
 * walks"). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "core/walk.h"
#include "joules/import.h"
#include "joules/study.h"
#include "test.h"

static char *tmp_root(const char *tag)
{
    char *d = jl__asprintf("/tmp/joules-test-walk-%s-%ld", tag, (long)getpid());
    char *cmd = jl__asprintf("rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot clear %s\n", d);
    free(cmd);
    mkdir(d, 0777);
    return d;
}

static void rm_rf(char *d)
{
    char *cmd = jl__asprintf("rm -rf '%s'", d);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", d);
    free(cmd);
    free(d);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char *p = jl__asprintf("%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(p);
}

static void link_at(const char *dir, const char *name, const char *target)
{
    char *p = jl__asprintf("%s/%s", dir, name);
    if (symlink(target, p) != 0)
        fprintf(stderr, "symlink %s: %s\n", p, strerror(errno));
    free(p);
}

/* root/{a.h5, self -> ., d/{b.h5, up -> .., hard.h5 (= a.h5), sym.h5 -> ../a.h5}, fifo} */
static char *loop_tree(void)
{
    char *root = tmp_root("tree");
    put_file(root, "a.h5", "x");
    link_at(root, "self", ".");
    char *d = jl__asprintf("%s/d", root);
    mkdir(d, 0777);
    put_file(d, "b.h5", "yy");
    link_at(d, "up", "..");
    link_at(d, "sym.h5", "../a.h5");
    char *a = jl__asprintf("%s/a.h5", root), *h = jl__asprintf("%s/hard.h5", d);
    if (link(a, h) != 0)
        fprintf(stderr, "link: %s\n", strerror(errno));
    char *fifo = jl__asprintf("%s/fifo.h5", root);
    if (mkfifo(fifo, 0600) != 0)
        fprintf(stderr, "mkfifo: %s\n", strerror(errno));
    free(fifo);
    free(a);
    free(h);
    free(d);
    return root;
}

TEST(walk_lists_each_once)
{
    char *root = loop_tree();
    jl__walk w;
    jl__walk_init(&w);
    jl__walk_list l;
    CHECK_EQ_INT(jl__walk_dir(&w, root, &l), 0);
    /* a.h5 (the FIFO is no regular file; self is the folder itself) */
    CHECK_EQ_INT(l.n_files, 1);
    CHECK(l.n_files == 1 && !strcmp(l.files[0], "a.h5"));
    CHECK_EQ_INT(l.n_dirs, 1);
    CHECK(l.n_dirs == 1 && !strcmp(l.dirs[0], "d"));
    CHECK_EQ_INT(l.n_repeats, 1); /* self */
    jl__walk_list_free(&l);
    char *d = jl__asprintf("%s/d", root);
    CHECK_EQ_INT(jl__walk_dir(&w, d, &l), 0);
    CHECK(l.n_files == 1 && !strcmp(l.files[0], "b.h5")); /* hard.h5, sym.h5: a.h5 again */
    CHECK_EQ_INT(l.n_dirs, 0);                            /* up: the root again */
    CHECK_EQ_INT(l.n_repeats, 3);
    jl__walk_list_free(&l);
    CHECK_EQ_INT(jl__walk_dir(&w, d, &l), 1); /* walked before */
    char *self = jl__asprintf("%s/self/d/up/self", root);
    CHECK_EQ_INT(jl__walk_dir(&w, self, &l), 1); /* the root, by another name */
    CHECK_EQ_INT(jl__walk_dir(&w, "/nonexistent-joules-dir", &l), -1);
    free(self);
    free(d);
    jl__walk_free(&w);
    rm_rf(root);
}

TEST(collect_paths_reads_each_file_once)
{
    char *root = loop_tree();
    char *a = jl__asprintf("%s/a.h5", root), *a2 = jl__asprintf("%s/./a.h5", root);
    const char *paths[] = {root, a, a2, root};
    char **files = NULL;
    size_t n = 0;
    jl_error_list errors = {0};
    CHECK(jl_collect_paths(paths, 4, &files, &n, &errors) == JL_OK);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(errors.count, 0);
    if (n == 2) {
        CHECK(strstr(files[0], "/a.h5") != NULL);
        CHECK(strstr(files[1], "/d/b.h5") != NULL);
    }
    jl_paths_free(files, n);
    jl_error_list_clear(&errors);
    /* the file named first, then its folder: once, by the name given */
    const char *p2[] = {a2, root};
    CHECK(jl_collect_paths(p2, 2, &files, &n, &errors) == JL_OK);
    CHECK_EQ_INT(n, 2);
    CHECK(n == 2 && (!strcmp(files[0], a2) || !strcmp(files[1], a2)));
    jl_paths_free(files, n);
    jl_error_list_clear(&errors);
    free(a);
    free(a2);
    rm_rf(root);
}

TEST(input_bytes_and_guess_end)
{
    char *root = loop_tree();
    /* a.h5 (1 byte) and b.h5 (2): links and the hard link not counted again */
    CHECK_NEAR(jl_import_input_bytes(root), 3, 0, 0);
    char *a = jl__asprintf("%s/a.h5", root);
    CHECK_NEAR(jl_import_input_bytes(a), 1, 0, 0);
    CHECK_NEAR(jl_import_input_bytes("/nonexistent-joules-file"), 0, 0, 0);
    free(a);
    /* two self links below a folder of CSV logs: the guess ends and finds it */
    char *g = tmp_root("guess");
    put_file(g, "gpu.csv", "timestamp, index, power.draw [W]\n");
    link_at(g, "s1", ".");
    link_at(g, "s2", ".");
    jl_import_guess guess;
    CHECK(jl_import_guess_path(g, &guess) == 1);
    CHECK_STR(guess.format, "nvidia-smi");
    rm_rf(g);
    rm_rf(root);
}

int main(void)
{
    RUN(walk_lists_each_once);
    RUN(collect_paths_reads_each_file_once);
    RUN(input_bytes_and_guess_end);
    TEST_MAIN_END();
}
