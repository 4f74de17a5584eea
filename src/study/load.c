/* Loading a study: every run of every file, summarised; failures collected,
 * never fatal to the others.
 *
 * The files are summarised by worker processes (fork) — one by default,
 * more with opt->workers > 1 — not threads: Debian's HDF5 1.10 is built
 * thread-safe, but that means one global lock around every HDF5 call,
 * decompression included, so threads would take turns rather than run side
 * by side. Processes share
 * nothing and scale with cores (docs/performance.md has the figures).
 *
 * The pool: the parent hands out one file index at a time over a Unix
 * socket per worker (so a dead worker is EPIPE, not SIGPIPE, for the
 * parent); the worker summarises the file with jl_study_load_file() and
 * sends back its summaries and errors in the compact encoding of wire.c,
 * then a "done" frame. The parent keeps each file's results in its own slot
 * and appends the slots to `out` and `errors` in file order as soon as every
 * earlier file is complete, so the result is the one a single process
 * gives, byte for byte. A worker that dies (a signal, an exit) while
 * summarising a file becomes an error naming that file; the parent starts a
 * new worker and carries on with the remaining files.
 *
 * Call it only while no other thread uses HDF5 (fork copies one thread). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/study.h"
#include "study/study_internal.h"

void jl_study_options_default(jl_study_options *opt)
{
    memset(opt, 0, sizeof *opt);
    jl_trace_options_default(&opt->trace);
    jl_summary_options_default(&opt->summary);
    opt->workers = 1;
    opt->isolate = 1;
}

jl_status jl_study_load_file(const char *path, const jl_study_options *opt,
                             jl_summary_list *out, jl_error_list *errors)
{
    jl_trace *t = NULL;
    jl_error *err = NULL;
    jl_status st = jl_trace_open(path, &opt->trace, &t, &err);
    if (st != JL_OK) {
        if (!err)
            err = jl_error_new(st, path, NULL, NULL, -1, "%s", jl_strerror(st));
        jl_error_set_context(err, path, NULL);
        return st == JL_ENOMEM ? st : jl_error_list_push(errors, err);
    }
    size_t n = jl_trace_run_count(t);
    for (size_t i = 0; i < n; i++) {
        jl_run *run = NULL;
        jl_summary *s = NULL;
        err = NULL;
        st = jl_trace_read_run(t, i, &run, &err);
        if (st == JL_OK)
            st = jl_summarize(run, &opt->summary, &s, &err);
        if (st == JL_OK) {
            st = jl_summary_list_push(out, s);
            if (st != JL_OK)
                jl_summary_free(s);
        } else if (st != JL_ENOMEM) {
            if (!err)
                err = jl_error_new(st, path, jl_trace_run_name(t, i), NULL, -1,
                                   "%s", jl_strerror(st));
            jl_error_set_context(err, path, jl_trace_run_name(t, i));
            st = jl_error_list_push(errors, err);
            err = NULL;
        }
        jl_error_free(err);
        jl_run_free(run);
        if (st == JL_ENOMEM)
            break;
    }
    jl_trace_close(t);
    return st == JL_ENOMEM ? st : JL_OK;
}

/* ------------------------------------------------------------ workers */

enum { FRAME_SUMMARY = 'S', FRAME_ERROR = 'E', FRAME_DONE = 'D' };
#define QUIT_INDEX 0xffffffffu
/* Files handed to a worker ahead: with 2 the next index already waits in
 * its socket when it finishes a file, so it never sits idle until the
 * parent gets scheduled (which on a loaded machine can take milliseconds
 * per file). */
#define QUEUE_DEPTH 2

static char *crash_on; /* test hook */

void jl__study_test_crash_on(const char *name)
{
    free(crash_on);
    crash_on = name ? jl_strdup(name) : NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int write_full(int fd, const void *p, size_t n)
{
    const unsigned char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_full(int fd, void *p, size_t n)
{
    unsigned char *c = p;
    while (n > 0) {
        ssize_t r = recv(fd, c, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Frame: u32 payload length, u8 kind, payload. */
static size_t frame_begin(jl_wbuf *b, unsigned char kind)
{
    size_t at = b->len;
    jl__wbuf_u32(b, 0);
    jl__wbuf_put(b, &kind, 1);
    return at;
}

static void frame_end(jl_wbuf *b, size_t at)
{
    if (b->failed)
        return;
    uint32_t n = (uint32_t)(b->len - at - 5);
    memcpy(b->data + at, &n, sizeof n);
}

/* The worker: summarise the files it is given until told to stop. */
static void worker_main(int fd, char **files, size_t n_files,
                        const jl_study_options *opt)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    jl_study_options wopt = *opt;
    wopt.workers = 1;
    wopt.progress = NULL;
    for (;;) {
        uint32_t idx;
        if (read_full(fd, &idx, sizeof idx) != 0 || idx == QUIT_INDEX || idx >= n_files)
            _exit(0);
        if (crash_on && !strcmp(base_name(files[idx]), crash_on))
            raise(SIGKILL);
        jl_summary_list l = {0};
        jl_error_list e = {0};
        int32_t st = (int32_t)jl_study_load_file(files[idx], &wopt, &l, &e);
        jl_wbuf b = {0};
        for (size_t i = 0; i < l.count; i++) {
            size_t at = frame_begin(&b, FRAME_SUMMARY);
            jl__wire_put_summary(&b, l.items[i]);
            frame_end(&b, at);
        }
        for (size_t i = 0; i < e.count; i++) {
            size_t at = frame_begin(&b, FRAME_ERROR);
            jl__wire_put_error(&b, e.items[i]);
            frame_end(&b, at);
        }
        jl_summary_list_clear(&l);
        jl_error_list_clear(&e);
        if (b.failed) { /* report the file as out of memory, nothing else */
            b.len = 0;
            b.failed = 0;
            st = JL_ENOMEM;
        }
        size_t at = frame_begin(&b, FRAME_DONE);
        jl__wbuf_u32(&b, idx);
        jl__wbuf_put(&b, &st, sizeof st);
        frame_end(&b, at);
        if (b.failed || write_full(fd, b.data, b.len) != 0)
            _exit(1);
        jl__wbuf_free(&b);
    }
}

typedef struct worker {
    pid_t pid;   /* 0: no process */
    int fd;      /* parent's end; -1 when closed */
    long q[QUEUE_DEPTH]; /* files handed to it, in order; q[0] is the one */
    int nq;              /* being summarised (nq == 0: idle)            */
    jl_wbuf in;  /* received, not yet parsed */
    size_t in_pos;
} worker;

typedef struct slot {
    jl_summary_list sums;
    jl_error_list errs;
    int done;
} slot;

typedef struct pool {
    char **files;
    size_t n_files;
    const jl_study_options *opt;
    worker *w;
    int n_w;
    slot *slots;
    size_t next;      /* next file to hand out */
    size_t *requeued; /* files handed to a worker that died before taking them */
    size_t n_requeued;
    size_t n_done, flushed;
    jl_summary_list *out;
    jl_error_list *errors;
} pool;

static int spawn(pool *p, int k)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        for (int i = 0; i < p->n_w; i++) /* other workers' parent ends */
            if (p->w[i].fd >= 0)
                close(p->w[i].fd);
        worker_main(sv[1], p->files, p->n_files, p->opt);
        _exit(0);
    }
    close(sv[1]);
    p->w[k].pid = pid;
    p->w[k].fd = sv[0];
    p->w[k].nq = 0;
    p->w[k].in.len = 0;
    p->w[k].in_pos = 0;
    return 0;
}

static int have_work(const pool *p)
{
    return p->n_requeued > 0 || p->next < p->n_files;
}

/* Top up worker k's queue of files; when nothing is left and it is idle,
 * tell it to stop. */
static void assign(pool *p, int k)
{
    worker *w = &p->w[k];
    while (w->nq < QUEUE_DEPTH && have_work(p)) {
        size_t idx = p->n_requeued > 0 ? p->requeued[--p->n_requeued] : p->next++;
        uint32_t i32 = (uint32_t)idx;
        if (write_full(w->fd, &i32, sizeof i32) != 0) {
            /* it died: the file goes back in the queue and the death is
             * noticed when its socket reads EOF */
            p->requeued[p->n_requeued++] = idx;
            return;
        }
        w->q[w->nq++] = (long)idx;
    }
    if (w->nq == 0) {
        uint32_t quit = QUIT_INDEX;
        (void)write_full(w->fd, &quit, sizeof quit);
    }
}

static size_t queue_pop(worker *w)
{
    size_t idx = (size_t)w->q[0];
    for (int i = 1; i < w->nq; i++)
        w->q[i - 1] = w->q[i];
    w->nq--;
    return idx;
}

static jl_status flush_done(pool *p)
{
    while (p->flushed < p->n_files && p->slots[p->flushed].done) {
        slot *s = &p->slots[p->flushed];
        jl_status st = JL_OK;
        for (size_t i = 0; i < s->sums.count; i++) {
            if (st == JL_OK && (st = jl_summary_list_push(p->out, s->sums.items[i])) == JL_OK)
                continue;
            jl_summary_free(s->sums.items[i]);
        }
        s->sums.count = 0;
        for (size_t i = 0; i < s->errs.count; i++) {
            if (st == JL_OK) {
                st = jl_error_list_push(p->errors, s->errs.items[i]);
                continue;
            }
            jl_error_free(s->errs.items[i]);
        }
        s->errs.count = 0;
        jl_summary_list_clear(&s->sums);
        jl_error_list_clear(&s->errs);
        p->flushed++;
        if (st != JL_OK)
            return st;
    }
    return JL_OK;
}

static jl_status file_done(pool *p, size_t idx)
{
    p->slots[idx].done = 1;
    p->n_done++;
    if (p->opt->progress)
        p->opt->progress(p->opt->progress_ctx, p->n_done, p->n_files, p->files[idx]);
    return flush_done(p);
}

/* Worker k's socket closed: reap it, blame the file it was summarising,
 * put the files queued behind it back, start another worker. */
static jl_status worker_died(pool *p, int k)
{
    worker *w = &p->w[k];
    int status = 0;
    pid_t pid = w->pid;
    close(w->fd);
    w->fd = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    w->pid = 0;
    jl_status st = JL_OK;
    if (w->nq > 0) {
        size_t idx = queue_pop(w);
        while (w->nq > 0) /* not started: someone else does them */
            p->requeued[p->n_requeued++] = queue_pop(w);
        jl_error *e;
        if (WIFSIGNALED(status))
            e = jl_error_new(JL_EINTERNAL, p->files[idx], NULL, NULL, -1,
                             "the worker process summarising this file was killed by "
                             "signal %d (%s); results of its runs are lost",
                             WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            e = jl_error_new(JL_EINTERNAL, p->files[idx], NULL, NULL, -1,
                             "the worker process summarising this file exited "
                             "(status %d) before it finished",
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        /* what it sent before dying is dropped: the file is one error */
        jl_summary_list_clear(&p->slots[idx].sums);
        jl_error_list_clear(&p->slots[idx].errs);
        if (!e || jl_error_list_push(&p->slots[idx].errs, e) != JL_OK)
            return JL_ENOMEM;
        st = file_done(p, idx);
    }
    if (st == JL_OK && have_work(p) && spawn(p, k) == 0)
        assign(p, k);
    return st;
}

/* Parse the complete frames received from worker k. */
static jl_status parse_frames(pool *p, int k)
{
    worker *w = &p->w[k];
    for (;;) {
        size_t avail = w->in.len - w->in_pos;
        uint32_t n;
        if (avail < 5)
            break;
        memcpy(&n, w->in.data + w->in_pos, sizeof n);
        if (avail - 5 < n)
            break;
        unsigned char kind = w->in.data[w->in_pos + 4];
        const unsigned char *pl = w->in.data + w->in_pos + 5;
        w->in_pos += 5 + (size_t)n;
        if (w->nq == 0)
            return JL_EINTERNAL;
        slot *s = &p->slots[w->q[0]];
        size_t used = 0;
        jl_status st = JL_OK;
        if (kind == FRAME_SUMMARY) {
            jl_summary *sum = NULL;
            st = jl__wire_get_summary(pl, n, &used, &sum);
            if (st == JL_OK && (st = jl_summary_list_push(&s->sums, sum)) != JL_OK)
                jl_summary_free(sum);
        } else if (kind == FRAME_ERROR) {
            jl_error *e = NULL;
            st = jl__wire_get_error(pl, n, &used, &e);
            if (st == JL_OK)
                st = jl_error_list_push(&s->errs, e);
        } else if (kind == FRAME_DONE && n == 8) {
            uint32_t idx;
            int32_t fst;
            memcpy(&idx, pl, 4);
            memcpy(&fst, pl + 4, 4);
            if ((long)idx != w->q[0])
                return JL_EINTERNAL;
            if (fst == JL_ENOMEM) {
                jl_error *e = jl_error_new(JL_ENOMEM, p->files[idx], NULL, NULL, -1,
                                           "out of memory in the worker process "
                                           "summarising this file");
                if (!e || jl_error_list_push(&s->errs, e) != JL_OK)
                    return JL_ENOMEM;
            }
            queue_pop(w);
            st = file_done(p, idx);
            if (st == JL_OK)
                assign(p, k);
        } else {
            return JL_EINTERNAL;
        }
        if (st != JL_OK)
            return st == JL_EINVALID ? JL_EINTERNAL : st;
    }
    /* drop what was parsed */
    if (w->in_pos > 0) {
        memmove(w->in.data, w->in.data + w->in_pos, w->in.len - w->in_pos);
        w->in.len -= w->in_pos;
        w->in_pos = 0;
    }
    return JL_OK;
}

static jl_status run_pool(pool *p)
{
    jl_status st = JL_OK;
    struct pollfd *pfd = calloc((size_t)p->n_w, sizeof *pfd);
    int *who = calloc((size_t)p->n_w, sizeof *who);
    unsigned char *chunk = malloc(65536);
    if (!pfd || !who || !chunk)
        st = JL_ENOMEM;
    int started = 0;
    for (int k = 0; st == JL_OK && k < p->n_w; k++) {
        p->w[k].fd = -1;
        if (spawn(p, k) == 0) {
            started++;
            assign(p, k);
        }
    }
    if (st == JL_OK && started == 0)
        st = JL_EINTERNAL; /* caller falls back to in-process */
    while (st == JL_OK && p->n_done < p->n_files) {
        int n = 0;
        for (int k = 0; k < p->n_w; k++)
            if (p->w[k].fd >= 0) {
                pfd[n].fd = p->w[k].fd;
                pfd[n].events = POLLIN;
                who[n++] = k;
            }
        if (n == 0) { /* no worker could be restarted */
            st = JL_EINTERNAL;
            break;
        }
        int r = poll(pfd, (nfds_t)n, -1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            st = JL_EIO;
            break;
        }
        for (int i = 0; i < n && st == JL_OK; i++) {
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int k = who[i];
            ssize_t got = recv(p->w[k].fd, chunk, 65536, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                st = worker_died(p, k);
                continue;
            }
            jl__wbuf_put(&p->w[k].in, chunk, (size_t)got);
            st = p->w[k].in.failed ? JL_ENOMEM : parse_frames(p, k);
        }
    }
    /* stop and reap every worker */
    for (int k = 0; k < p->n_w; k++) {
        if (p->w[k].fd >= 0)
            close(p->w[k].fd);
        if (p->w[k].pid > 0) {
            if (st != JL_OK)
                kill(p->w[k].pid, SIGTERM);
            while (waitpid(p->w[k].pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        jl__wbuf_free(&p->w[k].in);
    }
    free(pfd);
    free(who);
    free(chunk);
    return st;
}

static jl_status load_parallel(char **files, size_t n_files, const jl_study_options *opt,
                               jl_summary_list *out, jl_error_list *errors, int *fallback)
{
    pool p = {0};
    p.files = files;
    p.n_files = n_files;
    p.opt = opt;
    p.out = out;
    p.errors = errors;
    int want = opt->workers > 1 ? opt->workers : 1;
    p.n_w = (size_t)want < n_files ? want : (int)n_files;
    p.w = calloc((size_t)p.n_w, sizeof *p.w);
    p.slots = calloc(n_files, sizeof *p.slots);
    p.requeued = calloc(n_files, sizeof *p.requeued);
    jl_status st = JL_ENOMEM;
    if (p.w && p.slots && p.requeued) {
        st = run_pool(&p);
        /* nothing was handed out: the caller can do it all in process */
        if (st == JL_EINTERNAL && p.n_done == 0)
            *fallback = 1;
    }
    for (size_t i = 0; p.slots && i < n_files; i++) {
        jl_summary_list_clear(&p.slots[i].sums);
        jl_error_list_clear(&p.slots[i].errs);
    }
    free(p.slots);
    free(p.w);
    free(p.requeued);
    return st;
}

jl_status jl_study_load(const char *const *paths, size_t n,
                        const jl_study_options *opt, jl_summary_list *out,
                        jl_error_list *errors)
{
    jl_study_options defaults;
    if (!opt) {
        jl_study_options_default(&defaults);
        opt = &defaults;
    }
    char **files = NULL;
    size_t n_files = 0;
    jl_status st = jl_collect_paths(paths, n, &files, &n_files, errors);
    if (st != JL_OK)
        return st;
    size_t first = 0;
    /* Worker processes whenever asked for, and by default even for one:
     * libhdf5 can crash on a corrupt file, and only a process boundary
     * keeps that from taking the other files' results with it. */
    if (n_files > 0 && (opt->workers > 1 || opt->isolate)) {
        int fallback = 0;
        size_t before_runs = out->count, before_errs = errors->count;
        st = load_parallel(files, n_files, opt, out, errors, &fallback);
        if (st != JL_OK && fallback && out->count == before_runs &&
            errors->count == before_errs) {
            st = JL_OK; /* no process could be started: do it here */
        } else {
            first = n_files;
        }
    }
    for (size_t i = first; i < n_files && st == JL_OK; i++) {
        st = jl_study_load_file(files[i], opt, out, errors);
        if (opt->progress)
            opt->progress(opt->progress_ctx, i + 1, n_files, files[i]);
    }
    jl_paths_free(files, n_files);
    return st;
}
