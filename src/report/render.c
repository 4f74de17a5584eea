/* Drawing the report's figures: gnuplot runs in figures/ with a fixed argv,
 * `workers` processes at once, each fed a batch of scripts
 * (`gnuplot -e "fmt='svg'; out='A.svg.part'" A.gp -e ... B.gp ...`), so a
 * study of hundreds of figures pays for a few dozen gnuplot start-ups. Each
 * output is written as ID.EXT.part and renamed into place when gnuplot
 * exited 0 and the file is not empty. gnuplot stops at the first error in
 * a batch: the batch's figures are then drawn again one process each, so one
 * bad script costs only its own figure (a note says why).
 *
 * Children are registered with the output subsystem (jl_atomic_register_child)
 * so an interrupted report kills and reaps them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "joules/output.h"
#include "report/report_internal.h"
#include "report/sections.h"

/* A running gnuplot: its pid, the pipe carrying its stdout and stderr, the
 * pipe telling an exec failure, and the figures it draws. */
typedef struct jl__report_job {
    pid_t pid;
    int out_fd, err_fd;
    size_t *figs;
    size_t n;
    char msg[2048];
    size_t len;
} jl__report_job;

/* Start argv in cwd, output into a pipe. Returns 0, or -1 (nothing started). */
static int spawn(const char *cwd, char *const argv[], jl__report_job *j)
{
    int outp[2], errp[2];
    if (pipe(outp) != 0)
        return -1;
    if (pipe(errp) != 0) {
        close(outp[0]);
        close(outp[1]);
        return -1;
    }
    fcntl(errp[1], F_SETFD, FD_CLOEXEC);
    fcntl(outp[0], F_SETFD, FD_CLOEXEC);
    fcntl(errp[0], F_SETFD, FD_CLOEXEC);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        int e = 0;
        if (chdir(cwd) != 0)
            e = errno;
        if (!e) {
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0) {
                dup2(devnull, 0);
                close(devnull);
            }
            dup2(outp[1], 1);
            dup2(outp[1], 2);
            close(outp[1]);
            execvp(argv[0], argv);
            e = errno;
        }
        ssize_t w = write(errp[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    if (pid > 0)
        jl_atomic_register_child(pid);
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(outp[1]);
    close(errp[1]);
    if (pid < 0) {
        close(outp[0]);
        close(errp[0]);
        return -1;
    }
    j->pid = pid;
    j->out_fd = outp[0];
    j->err_fd = errp[0];
    j->len = 0;
    j->msg[0] = 0;
    return 0;
}

/* Read what is there; returns 1 at end of file. */
static int drain(jl__report_job *j)
{
    char buf[4096];
    ssize_t k = read(j->out_fd, buf, sizeof buf);
    if (k < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (k == 0)
        return 1;
    size_t take = (size_t)k;
    if (j->len + take >= sizeof j->msg)
        take = sizeof j->msg - 1 - j->len;
    memcpy(j->msg + j->len, buf, take);
    j->len += take;
    j->msg[j->len] = 0;
    return 0;
}

/* After end of file: reap. Returns the exit status (0..255), 127 when the
 * program could not be started (*not_found set when it does not exist, msg
 * the reason), -1 when killed. */
static int reap(jl__report_job *j, int *not_found)
{
    close(j->out_fd);
    int e = 0;
    ssize_t got = read(j->err_fd, &e, sizeof e);
    close(j->err_fd);
    int status = 0;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    jl_atomic_unregister_child(j->pid);
    *not_found = 0;
    if (got == (ssize_t)sizeof e) {
        *not_found = e == ENOENT || e == EACCES || e == ENOTDIR;
        snprintf(j->msg, sizeof j->msg, "%s", strerror(e));
        return 127;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return -1;
}

/* Run argv to the end (gnuplot --version). */
static int run_one(const char *cwd, char *const argv[], char *out, size_t cap, int *not_found)
{
    jl__report_job j;
    memset(&j, 0, sizeof j);
    *not_found = 0;
    if (spawn(cwd, argv, &j) != 0) {
        snprintf(out, cap, "cannot start a process: %s", strerror(errno));
        return 127;
    }
    while (!drain(&j))
        ;
    int rc = reap(&j, not_found);
    snprintf(out, cap, "%s", j.msg);
    return rc;
}

static void first_line(char *dst, size_t cap, const char *src)
{
    /* gnuplot's message: skip blank lines, keep up to two lines */
    size_t o = 0;
    int lines = 0;
    while (*src == '\n' || *src == ' ')
        src++;
    for (; *src && o + 1 < cap && lines < 3; src++) {
        if (*src == '\n') {
            lines++;
            if (lines < 3)
                dst[o++] = ' ';
            continue;
        }
        dst[o++] = *src;
    }
    dst[o] = 0;
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static int jl__report_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

typedef struct jl__report_render {
    jl__report_report *r;
    const char *gnuplot;
    char *figdir;
    const char *fmt[RP_N_OUTPUTS], *ext[RP_N_OUTPUTS];
    size_t n_out;
    size_t *queue; /* figure indices; single-figure retries are appended */
    size_t q_head, q_len, q_cap;
    size_t done, todo;
} jl__report_render;

static char *part_path(const jl__report_render *R, const jl__report_figure *f, size_t k, int abs)
{
    return abs ? jl__asprintf("%s/%s.%s.part", R->figdir, f->id, R->ext[k])
               : jl__asprintf("%s.%s.part", f->id, R->ext[k]);
}

/* Start gnuplot on figures figs[0..n). */
static int start_job(jl__report_render *R, jl__report_job *j, size_t *figs, size_t n)
{
    size_t na = 2 + n * R->n_out * 3;
    char **argv = jl__calloc_array(na, sizeof *argv);
    char **owned = jl__calloc_array(na, sizeof *owned);
    size_t a = 0, o = 0;
    int ok = argv && owned;
    if (ok)
        argv[a++] = (char *)R->gnuplot;
    for (size_t i = 0; ok && i < n; i++) {
        jl__report_figure *f = &R->r->figs[figs[i]];
        for (size_t k = 0; ok && k < R->n_out; k++) {
            char *part = part_path(R, f, k, 0);
            char *e = part ? jl__asprintf("fmt='%s'; out='%s'", R->fmt[k], part) : NULL;
            char *gp = jl__asprintf("%s.gp", f->id);
            free(part);
            ok = e && gp;
            argv[a++] = "-e";
            argv[a++] = owned[o++] = e;
            argv[a++] = owned[o++] = gp;
            if (!ok) {
                free(e);
                free(gp);
                o -= 2;
            }
        }
    }
    int rc = -1;
    if (ok) {
        argv[a] = NULL;
        /* the job's own copy: the queue may move when retries join it */
        j->figs = jl__calloc_array(n, sizeof *j->figs);
        rc = j->figs ? spawn(R->figdir, argv, j) : -1;
        if (!rc) {
            memcpy(j->figs, figs, n * sizeof *figs);
            j->n = n;
        } else {
            free(j->figs);
            j->figs = NULL;
        }
    }
    for (size_t i = 0; i < o; i++)
        free(owned[i]);
    free(owned);
    free(argv);
    return rc;
}

static int outputs_complete(const jl__report_render *R, const jl__report_figure *f)
{
    for (size_t k = 0; k < R->n_out; k++) {
        char *p = part_path(R, f, k, 1);
        struct stat sb;
        int ok = p && stat(p, &sb) == 0 && sb.st_size > 0;
        free(p);
        if (!ok)
            return 0;
    }
    return 1;
}

static void remove_parts(const jl__report_render *R, const jl__report_figure *f)
{
    for (size_t k = 0; k < R->n_out; k++) {
        char *p = part_path(R, f, k, 1);
        if (p)
            unlink(p); /* leftovers of a failed run */
        free(p);
    }
}

/* Rename a figure's outputs into place; 1 when all made it. */
static int commit_outputs(const jl__report_render *R, jl__report_figure *f)
{
    int ok = 1;
    for (size_t k = 0; ok && k < R->n_out; k++) {
        char *from = part_path(R, f, k, 1);
        char *to = jl__asprintf("%s/%s.%s", R->figdir, f->id, R->ext[k]);
        ok = from && to && rename(from, to) == 0;
        free(from);
        free(to);
    }
    return ok;
}

static void queue_push(jl__report_render *R, size_t fig)
{
    if (R->q_len == R->q_cap) {
        size_t nc = R->q_cap ? R->q_cap * 2 : 64;
        size_t *p = realloc(R->queue, nc * sizeof *p);
        if (!p)
            return;
        R->queue = p;
        R->q_cap = nc;
    }
    R->queue[R->q_len++] = fig;
}

/* A job ended: commit its figures, or (a batch that failed) queue them again
 * one by one, or (a single figure that failed) note why. */
static void finish_job(jl__report_render *R, jl__report_job *j, int rc, int retry_singles)
{
    jl__report_report *r = R->r;
    if (rc != 0 && j->n > 1 && retry_singles) {
        for (size_t i = 0; i < j->n; i++) {
            remove_parts(R, &r->figs[j->figs[i]]);
            queue_push(R, j->figs[i]);
        }
        return;
    }
    for (size_t i = 0; i < j->n; i++) {
        jl__report_figure *f = &r->figs[j->figs[i]];
        if (rc == 0 && outputs_complete(R, f) && commit_outputs(R, f)) {
            f->drawn = 1;
        } else {
            char msg[600];
            first_line(msg, sizeof msg, j->msg);
            if (rc != 0)
                f->note = jl__asprintf("gnuplot failed (exit status %d): %s", rc, msg);
            else
                f->note = jl__asprintf("gnuplot wrote no complete output: %s", msg);
            jl__report_note(r, "figure %s: %s", f->id, f->note ? f->note : "gnuplot failed");
        }
        remove_parts(R, f);
        R->done++;
    }
    if (r->opt.progress)
        r->opt.progress(r->opt.progress_ctx, "figures", R->done, R->todo,
                        j->n ? r->figs[j->figs[j->n - 1]].id : "");
}

jl_status jl__report_figures_render(jl__report_report *r, jl_error **err)
{
    double t0 = now_s();
    jl__report_render R;
    memset(&R, 0, sizeof R);
    R.r = r;
    R.gnuplot = r->opt.gnuplot ? r->opt.gnuplot : "gnuplot";
    R.n_out = jl__report_figure_outputs(r->opt.formats, R.fmt, R.ext, RP_N_OUTPUTS);
    R.figdir = jl__asprintf("%s/figures", r->root);
    if (!R.figdir)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    char out[2048];
    int nf = 0;
    if (!*R.gnuplot) {
        r->gnuplot_missing = 1;
        jl__report_note(
            r, "figures not drawn (disabled); their .gp scripts and .dat files are in figures/");
    } else {
        char *argv[] = {(char *)R.gnuplot, "--version", NULL};
        int rc = run_one(R.figdir, argv, out, sizeof out, &nf);
        if (rc != 0) {
            r->gnuplot_missing = 1;
            jl__report_note(
                r,
                "gnuplot %s (%s): figures skipped; their .gp scripts and .dat files are in "
                "figures/ (install gnuplot, then run `gnuplot NAME.gp` there)",
                nf ? "not found" : "does not run", rc == 127 ? out : "exit status");
        } else {
            char v[256];
            first_line(v, sizeof v, out);
            r->gnuplot_version = jl__strdup(v);
        }
    }
    for (size_t i = 0; i < r->n_figs; i++) {
        jl__report_figure *f = &r->figs[i];
        if (f->note)
            continue;
        if (r->gnuplot_missing) {
            f->note = jl__strdup("not drawn: gnuplot is not available (see the notes)");
            continue;
        }
        queue_push(&R, i);
    }
    R.todo = R.q_len;
    /* workers: as asked, else the online CPUs; at most the children the
     * signal handler can reap (JL_ATOMIC_MAX_CHILDREN), said in the notes
     * when more were asked for */
    int workers = r->opt.workers > 0 ? r->opt.workers : jl__report_online_cpus();
    if ((size_t)workers > R.todo)
        workers = R.todo ? (int)R.todo : 1;
    if (workers > JL_ATOMIC_MAX_CHILDREN) {
        if (r->opt.workers > JL_ATOMIC_MAX_CHILDREN)
            jl__report_note(r,
                            "figures drawn by %d gnuplot processes at once, not the %d asked "
                            "for (the most joules tracks)",
                            JL_ATOMIC_MAX_CHILDREN, r->opt.workers);
        workers = JL_ATOMIC_MAX_CHILDREN;
    }
    /* batches: about four per worker so the last ones end together, at most
     * 16 figures (a failing batch is redrawn one figure at a time) */
    size_t batch = R.todo / ((size_t)workers * 4) + 1;
    if (batch > 16)
        batch = 16;
    size_t first_pass = R.q_len;
    jl__report_job jobs[JL_ATOMIC_MAX_CHILDREN];
    int active[JL_ATOMIC_MAX_CHILDREN] = {0};
    size_t n_active = 0;
    int spawn_failed = 0;
    if (r->opt.progress && R.todo)
        r->opt.progress(r->opt.progress_ctx, "figures", 0, R.todo, "");
    while (R.q_head < R.q_len || n_active) {
        /* fill free slots */
        for (int w = 0; w < workers && R.q_head < R.q_len && !spawn_failed; w++) {
            if (active[w])
                continue;
            size_t n = R.q_head < first_pass ? batch : 1;
            if (R.q_head < first_pass && R.q_head + n > first_pass)
                n = first_pass - R.q_head;
            if (R.q_head + n > R.q_len)
                n = R.q_len - R.q_head;
            memset(&jobs[w], 0, sizeof jobs[w]);
            if (start_job(&R, &jobs[w], R.queue + R.q_head, n) != 0) {
                spawn_failed = 1;
                break;
            }
            R.q_head += n;
            active[w] = 1;
            n_active++;
        }
        if (!n_active) {
            /* nothing could be started: the rest are not drawn */
            for (; R.q_head < R.q_len; R.q_head++) {
                jl__report_figure *f = &r->figs[R.queue[R.q_head]];
                f->note = jl__asprintf("gnuplot could not be started: %s", strerror(errno));
            }
            jl__report_note(r, "some figures not drawn: gnuplot could not be started");
            break;
        }
        struct pollfd pfd[JL_ATOMIC_MAX_CHILDREN];
        int map[JL_ATOMIC_MAX_CHILDREN], np = 0;
        for (int w = 0; w < workers; w++)
            if (active[w]) {
                pfd[np].fd = jobs[w].out_fd;
                pfd[np].events = POLLIN;
                pfd[np].revents = 0;
                map[np++] = w;
            }
        if (poll(pfd, (nfds_t)np, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int k = 0; k < np; k++) {
            if (!pfd[k].revents)
                continue;
            jl__report_job *j = &jobs[map[k]];
            if (!drain(j))
                continue;
            int rc = reap(j, &nf);
            finish_job(&R, j, rc, 1);
            free(j->figs);
            j->figs = NULL;
            active[map[k]] = 0;
            n_active--;
        }
    }
    for (size_t i = 0; i < r->n_figs; i++) {
        jl__report_figure *f = &r->figs[i];
        if (!f->drawn && !f->note && R.todo)
            f->note = jl__strdup("not drawn (gnuplot could not be run)");
    }
    free(R.queue);
    free(R.figdir);
    r->figures_s = now_s() - t0;
    return JL_OK;
}
