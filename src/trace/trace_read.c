/* Reading trace files (format v1): see include/joules/trace.h and
 * docs/trace-reading.md, which lists every rule and its message. This file
 * holds the open: root attributes, the list of runs and a run's context.
 * The rooms beside it: h5_read.c (the reader's ground: its context's one
 * way to fail, links, type names), summary_table.c, trace_attrs.c
 * (attributes and their rules), trace_columns.c
 * (datasets, their checks, jl_trace_read_run), trace_describe.c (describe
 * and the joules.inspect/1 document). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/inputs.h"
#include "core/util.h"
#include "joules/trace.h"
#include "trace/trace_internal.h"

void jl_trace_limits_default(jl_trace_limits *lim)
{
    lim->max_rows = (uint64_t)1 << 31;
    lim->max_dataset_bytes = (uint64_t)4 << 30;
    lim->max_gpus = 1024;
    lim->max_runs = 1000000;
}

/* jl_trace_default_allow_external_storage: the current context's default
 * of allow_external_storage (0 unless a program trusts its files) */
void jl_trace_default_allow_external_storage(int allow)
{
    jl_context_set_allow_external_storage(jl_context_current(), allow);
}

void jl_trace_options_default(jl_trace_options *opt)
{
    memset(opt, 0, sizeof *opt);
    jl_trace_limits_default(&opt->limits);
    opt->allow_external_storage = jl_context_allow_external_storage(jl_context_current());
}

/* ------------------------------------------------------------------ */
/* The context of a run                                                */

jl_status jl__run_ctx(jl_trace *t, size_t i, jl_error **err, jl_error **local, rctx *c)
{
    if (!t || i >= t->n_runs) {
        rctx at = {t ? t->path : NULL, NULL, NULL, err, NULL, RUN_LINKS_UNKNOWN, NULL, NULL, 0, 0};
        return jl__rctx_fail(&at, JL_EUSAGE, "run index %zu out of range", i);
    }
    *c = (rctx){t->path,           t->runs[i], &t->lim, err ? err : local, t->vstr,
                RUN_LINKS_UNKNOWN, NULL,       NULL,    t->file_bytes,     t->allow_external};
    return JL_OK;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

typedef struct {
    jl_trace *t;
    int nomem, limit, bad_link;
    char *bad;
} run_list_state;

static herr_t run_name_cb(hid_t grp, const char *name, const H5L_info_t *info, void *data)
{
    run_list_state *s = data;
    if (info->type != H5L_TYPE_HARD) {
        s->bad_link = 1;
        s->bad = jl__strdup(name);
        return 1;
    }
    hid_t o = H5Oopen(grp, name, H5P_DEFAULT);
    if (o < 0)
        return -1;
    H5I_type_t type = H5Iget_type(o);
    H5Oclose(o);
    if (type != H5I_GROUP)
        return 0; /* not a run: ignored, like any unknown object */
    jl_trace *t = s->t;
    if (t->n_runs >= t->lim.max_runs) {
        s->limit = 1;
        return 1;
    }
    if (jl__names_push(&t->runs, &t->n_runs, &t->cap_runs, name) < 0) {
        s->nomem = 1;
        return -1;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read an optional string attribute of the root; NULL when absent. */
static jl_status root_string(rctx *c, hid_t root, const char *name, int required, char **out)
{
    rctx at = rctx_at(c, "/");
    at.run = NULL;
    *out = NULL;
    htri_t ex = H5Aexists(root, name);
    if (ex < 0)
        return jl__rctx_h5_fail(&at, JL_EFORMAT, "cannot read the root attributes");
    if (!ex) {
        if (required)
            return jl__rctx_fail(&at, JL_EFORMAT,
                                 "not a joules trace: the root has no @%s attribute", name);
        return JL_OK;
    }
    attr_val v;
    jl_status st = jl__read_attr(c, root, "/", name, &v);
    if (st != JL_OK)
        return st;
    if (v.kind != AV_STRING) {
        st = jl__rctx_fail(&at, required ? JL_EFORMAT : JL_ETYPE,
                           "attribute @%s must be a string, found %s (%s)", name, jl__kind_word(&v),
                           jl__av_tname(&v));
        jl__attr_val_clear(&v);
        return st;
    }
    *out = v.text;
    v.text = NULL;
    jl__attr_val_clear(&v);
    return JL_OK;
}

/* The runs of /runs (sorted) and the rows of the summary table, merged in
 * name order; a name in both, or twice in the table, is an error. */
typedef struct {
    char *name;
    size_t row;
} run_entry;

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const run_entry *)a)->name, ((const run_entry *)b)->name);
}

static jl_status merge_table_runs(jl_trace *t, jl_error **err)
{
    rctx c = {t->path,           NULL, &t->lim, err,           t->vstr,
              RUN_LINKS_UNKNOWN, NULL, NULL,    t->file_bytes, t->allow_external};
    rctx table = rctx_at(&c, "/" JL__TABLE_NAME);
    size_t nt = jl__table_rows(t->table), n = t->n_runs + nt;
    if (n > t->lim.max_runs)
        return jl__rctx_fail(&table, JL_ELIMIT, "more than the limit of %llu runs",
                             (unsigned long long)t->lim.max_runs);
    run_entry *e = jl__calloc_array(n, sizeof *e);
    char **names = jl__calloc_array(n, sizeof *names);
    size_t *row_of = jl__calloc_array(n, sizeof *row_of);
    jl_status st = JL_OK;
    if (!e || !names || !row_of) {
        st = jl__rctx_fail(&c, JL_ENOMEM, NULL);
        goto end;
    }
    for (size_t i = 0; i < t->n_runs; i++)
        e[i] = (run_entry){t->runs[i], SIZE_MAX};
    for (size_t r = 0; r < nt; r++)
        e[t->n_runs + r] = (run_entry){(char *)jl__table_run(t->table, r), r};
    qsort(e, n, sizeof *e, cmp_entry);
    for (size_t i = 1; i < n; i++)
        if (!strcmp(e[i - 1].name, e[i].name)) {
            int both = e[i - 1].row == SIZE_MAX || e[i].row == SIZE_MAX;
            rctx at = rctx_at(&c, "/" JL__TABLE_NAME "/run");
            at.run = e[i].name;
            st =
                jl__rctx_fail(&at, JL_EFORMAT,
                              both
                                  ? "run %s is both a group in /runs and a row of the summary table"
                                  : "run %s appears twice in the summary table",
                              e[i].name);
            goto end;
        }
    for (size_t i = 0; i < n; i++) {
        row_of[i] = e[i].row;
        names[i] = e[i].row == SIZE_MAX ? e[i].name : jl__strdup(e[i].name);
        if (!names[i]) {
            for (size_t k = 0; k < i; k++)
                if (row_of[k] != SIZE_MAX)
                    free(names[k]);
            st = jl__rctx_fail(&c, JL_ENOMEM, NULL);
            goto end;
        }
    }
    free(t->runs); /* the group names live on in names */
    t->runs = names;
    t->n_runs = t->cap_runs = n;
    t->row_of = row_of;
    names = NULL;
    row_of = NULL;
end:
    free(e);
    free(names);
    free(row_of);
    return st;
}

static jl_status open_common(jl_trace *t, hid_t fapl, const char *h5name, jl_error **err)
{
    rctx c = {t->path,           NULL, &t->lim, err,           t->vstr,
              RUN_LINKS_UNKNOWN, NULL, NULL,    t->file_bytes, t->allow_external};
    rctx at_root = rctx_at(&c, "/"), at_runs = rctx_at(&c, "/runs");
    jl_status st = JL_OK;
    hid_t root = -1, runs = -1;
    char *format = NULL;
    attr_val v;
    jl__attr_val_init(&v);
    t->file = H5Fopen(h5name, H5F_ACC_RDONLY, fapl);
    if (t->file < 0) {
        st = jl__rctx_h5_fail(&c, JL_EFORMAT,
                              "cannot open as an HDF5 file (not HDF5, truncated or corrupt)");
        goto end;
    }
    root = H5Gopen2(t->file, "/", H5P_DEFAULT);
    if (root < 0) {
        st = jl__rctx_h5_fail(&at_root, JL_EFORMAT, "cannot open the root group");
        goto end;
    }
    if ((st = root_string(&c, root, "format", 1, &format)) != JL_OK)
        goto end;
    if (strcmp(format, "joules-trace")) {
        st = jl__rctx_fail(&at_root, JL_EFORMAT,
                           "not a joules trace: @format is \"%s\", expected \"joules-trace\"",
                           format);
        goto end;
    }
    htri_t ex = H5Aexists(root, "format_version");
    if (ex <= 0) {
        st = ex < 0
                 ? jl__rctx_h5_fail(&at_root, JL_EFORMAT, "cannot read the root attributes")
                 : jl__rctx_fail(&at_root, JL_EFORMAT, "the root has no @format_version attribute");
        goto end;
    }
    if ((st = jl__read_attr(&c, root, "/", "format_version", &v)) != JL_OK)
        goto end;
    if (!(v.kind == AV_INT || (v.kind == AV_FLOAT && v.d == floor(v.d)))) {
        st = jl__rctx_fail(&at_root, JL_EFORMAT,
                           "attribute @format_version must be an integer, found %s (%s)",
                           jl__kind_word(&v), jl__av_tname(&v));
        goto end;
    }
    if (v.d != 1) {
        st = jl__rctx_fail(&at_root, JL_EFORMAT,
                           "unsupported @format_version %s (this reader reads version 1)",
                           jl__av_str(&v));
        goto end;
    }
    if ((st = root_string(&c, root, "harness", 0, &t->harness)) != JL_OK ||
        (st = root_string(&c, root, "created_utc", 0, &t->created_utc)) != JL_OK ||
        (st = root_string(&c, root, "provenance", 0, &t->provenance)) != JL_OK)
        goto end;
    hid_t runs_id = -1;
    if ((st = jl__open_child(&c, root, "/runs", "runs", H5I_GROUP, &runs_id)) != JL_OK)
        goto end;
    runs = runs_id;
    if (runs < 0) {
        st = jl__rctx_fail(&at_runs, JL_EFORMAT, "not a joules trace: the root has no runs/ group");
        goto end;
    }
    run_list_state s = {t, 0, 0, 0, NULL};
    hsize_t idx = 0;
    herr_t r = H5Literate(runs, H5_INDEX_NAME, H5_ITER_INC, &idx, run_name_cb, &s);
    if (s.nomem) {
        st = jl__rctx_fail(&at_runs, JL_ENOMEM, NULL);
    } else if (s.bad_link) {
        rctx at = at_runs;
        at.run = s.bad;
        st =
            jl__rctx_fail(&at, JL_EFORMAT, "run %s is a soft or external link; runs must be groups",
                          s.bad ? s.bad : "?");
        free(s.bad);
    } else if (s.limit) {
        st = jl__rctx_fail(&at_runs, JL_ELIMIT, "more than the limit of %llu runs",
                           (unsigned long long)t->lim.max_runs);
    } else if (r < 0) {
        st = jl__rctx_h5_fail(&at_runs, JL_EFORMAT, "cannot list the runs");
    } else if ((st = jl__table_open(t->file, t->path, &t->lim, t->map, t->map_len, t->file_bytes,
                                    t->allow_external, &t->table, err)) == JL_OK &&
               t->n_runs == 0 && jl__table_rows(t->table) == 0) {
        st = jl__rctx_fail(&at_runs, JL_EFORMAT, "holds no runs (at least one is required)");
    }
    if (st != JL_OK)
        goto end;
    if (t->n_runs) /* none: the summary table holds them all */
        qsort(t->runs, t->n_runs, sizeof *t->runs, cmp_str);
    if (t->table && (st = merge_table_runs(t, err)) != JL_OK)
        goto end;
    t->runs_grp = runs; /* kept for jl_trace_read_run */
    runs = -1;
end:
    jl__attr_val_clear(&v);
    free(format);
    CLOSE(runs, H5Gclose);
    CLOSE(root, H5Gclose);
    return st;
}

/* The metadata cache of a file being read or written: small and fixed.
 * Each run's object headers are visited once, so a cache that grows to
 * hold them all (HDF5's default grows to 32 MiB) serves nothing and costs
 * memory touched for the first time: on the ML.ENERGY file (1,858 runs,
 * ~47,000 attributes) 22,000 page faults against 4,900 and a third of the
 * CPU time of `joules pick`; 11,600 against 3,400 for the import. A
 * dataset's chunk index needs far less (summarising the long generated
 * traces, writing a run of 10^7 ITL samples: unchanged). */
#define SMALL_CACHE_BYTES ((size_t)256 << 10)

herr_t jl__h5_small_cache(hid_t fapl)
{
    H5AC_cache_config_t cc;
    memset(&cc, 0, sizeof cc);
    cc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &cc) < 0)
        return -1;
    cc.set_initial_size = 1;
    cc.initial_size = SMALL_CACHE_BYTES;
    cc.max_size = SMALL_CACHE_BYTES;
    if (cc.min_size > SMALL_CACHE_BYTES)
        cc.min_size = SMALL_CACHE_BYTES;
    cc.incr_mode = H5C_incr__off;
    cc.flash_incr_mode = H5C_flash_incr__off;
    cc.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &cc);
}

/* A file of at most CORE_MAX_BYTES is read whole into memory when opened
 * (HDF5's core driver, no backing store: it is never written) instead of
 * one pread() per object header, attribute heap and chunk: a study of many
 * small files does thousands of small reads per file (docs/performance.md,
 * "Small files read whole"). Larger files keep the sec2 driver, so memory
 * stays bounded by the datasets read. */
#define CORE_MAX_BYTES ((off_t)16 << 20)
#define CORE_INCREMENT ((size_t)1 << 20)

/* A study's worker maps such a file instead (jl__trace_map_files): HDF5's
 * core driver is handed the mapping as a file image that it uses in place
 * (the callbacks below: no copy, never freed, never grown, as
 * H5LTopen_file_image's "don't copy"), so the pages come from the page
 * cache as they are touched, a few per fault, instead of a copy of the
 * whole file into freshly faulted heap (docs/performance.md, "The study
 * load", fourth round). */
static int map_files; /* process-wide on purpose: set in a forked worker only */

void jl__trace_map_files(void)
{
    map_files = 1;
}

static void *image_malloc(size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)op;
    const jl_trace *t = udata;
    return size == t->map_len ? t->map : NULL;
}

static void *image_memcpy(void *dest, const void *src, size_t size, H5FD_file_image_op_t op,
                          void *udata)
{
    (void)size;
    (void)op;
    (void)udata;
    return dest == src ? dest : NULL; /* the image is never copied */
}

static void *image_realloc(void *ptr, size_t size, H5FD_file_image_op_t op, void *udata)
{
    (void)ptr;
    (void)size;
    (void)op;
    (void)udata;
    return NULL; /* read only: never grown */
}

static herr_t image_free(void *ptr, H5FD_file_image_op_t op, void *udata)
{
    (void)ptr;
    (void)op;
    (void)udata;
    return 0; /* unmapped by jl_trace_close */
}

static void *udata_copy(void *udata)
{
    return udata;
}

static herr_t udata_free(void *udata)
{
    (void)udata;
    return 0;
}

/* HDF5 tells core-driver files apart by name (and refuses an image under
 * the name of a file that exists): each image gets its own, from one
 * process-wide counter (atomic: the names only need to differ). */
static _Atomic unsigned long long image_counter;

/* Map the file and set it as the core driver's image on fapl; 0 when it
 * cannot be mapped (the caller reads it as before), -1 on an HDF5 error. */
static int map_image(jl_trace *t, hid_t fapl, int fd, const struct stat *sb, char *h5name,
                     size_t cap)
{
    void *m = mmap(NULL, (size_t)sb->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED)
        return 0;
    t->map = m;
    t->map_len = (size_t)sb->st_size;
    H5FD_file_image_callbacks_t cb = {
        image_malloc, image_memcpy, image_realloc, image_free, udata_copy, udata_free, t};
    snprintf(h5name, cap, "joules-image-%llu.h5", atomic_fetch_add(&image_counter, 1) + 1);
    if (H5Pset_fapl_core(fapl, CORE_INCREMENT, 0) < 0 ||
        H5Pset_file_image_callbacks(fapl, &cb) < 0 || H5Pset_file_image(fapl, m, t->map_len) < 0)
        return -1;
    return 1;
}

static jl_status trace_new(const char *path, const jl_trace_options *opt, jl_trace **out,
                           jl_error **err)
{
    *out = NULL;
    jl_trace *t = calloc(1, sizeof *t);
    if (!t || !(t->path = jl__strdup(path ? path : "(memory)"))) {
        free(t);
        return jl__rctx_fail(&(rctx){path, NULL, NULL, err, NULL, RUN_LINKS_UNKNOWN, NULL, NULL, 0,
                                     0},
                             JL_ENOMEM, NULL);
    }
    t->file = -1;
    t->runs_grp = -1;
    t->vstr[0] = t->vstr[1] = -1;
    if (opt)
        t->lim = opt->limits;
    else
        jl_trace_limits_default(&t->lim);
    t->summary_fields_only = opt ? opt->summary_fields_only : 0;
    t->allow_external =
        opt ? opt->allow_external_storage : jl_context_allow_external_storage(jl_context_current());
    t->stream_itl = opt ? opt->stream_itl : 0;
    t->skip_groups = opt ? opt->skip_groups : 0;
    *out = t;
    return JL_OK;
}

jl_status jl_trace_open(const char *path, const jl_trace_options *opt, jl_trace **out,
                        jl_error **err)
{
    jl_trace *t = NULL;
    hid_t fapl = -1;
    rctx c = {path, NULL, NULL, err, NULL, RUN_LINKS_UNKNOWN, NULL, NULL, 0, 0};
    *out = NULL;
    if (!path)
        return jl__rctx_fail(&c, JL_EUSAGE, "no trace path given");
    if (jl__h5_init() != JL_OK)
        return jl__rctx_h5_fail(&c, JL_EINTERNAL, "cannot register the Zstandard filter with HDF5");
    /* a FIFO, a device or a socket is refused before it is opened, and the
     * file checked is the one HDF5 reads: it opens this descriptor's file
     * (/proc/self/fd/N), not the path again (docs/security.md) */
    char why[128];
    int fd = jl__open_input(path, why, sizeof why);
    if (fd < 0)
        return jl__rctx_fail(&c, JL_EIO, "%s", why);
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return jl__rctx_fail(&c, JL_EIO, "cannot open: %s", strerror(e));
    }
    if (sb.st_size == 0) {
        close(fd);
        return jl__rctx_fail(&c, JL_EFORMAT, "empty file (0 bytes)");
    }
    /* the provenance's inputs, in the context of opt (else the current) */
    jl_context *was = opt && opt->context ? jl_context_use(opt->context) : NULL;
    jl__input_read(path);
    if (was)
        jl_context_use(was);
    jl_status st = trace_new(path, opt, &t, err);
    if (st != JL_OK) {
        close(fd);
        return st;
    }
    t->file_bytes = (uint64_t)sb.st_size;
    char h5name[64], fdname[64];
    int mapped = 0;
    struct stat fs;
    snprintf(fdname, sizeof fdname, "/proc/self/fd/%d", fd);
    const char *name = stat(fdname, &fs) == 0 && fs.st_dev == sb.st_dev && fs.st_ino == sb.st_ino
                           ? fdname
                           : path; /* no /proc: the path, checked just now */
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        jl__h5_small_cache(fapl) < 0 ||
        (sb.st_size <= CORE_MAX_BYTES && map_files &&
         (mapped = map_image(t, fapl, fd, &sb, h5name, sizeof h5name)) < 0) ||
        (sb.st_size <= CORE_MAX_BYTES && !mapped &&
         H5Pset_fapl_core(fapl, CORE_INCREMENT, 0) < 0)) {
        st = jl__rctx_h5_fail(&c, JL_EINTERNAL, "cannot set up file access");
        goto end;
    }
    if ((st = open_common(t, fapl, mapped ? h5name : name, err)) != JL_OK)
        goto end;
    *out = t;
    t = NULL;
end:
    close(fd);
    CLOSE(fapl, H5Pclose);
    jl_trace_close(t);
    return st;
}

jl_status jl_trace_open_image(const void *buf, size_t len, const char *name,
                              const jl_trace_options *opt, jl_trace **out, jl_error **err)
{
    jl_trace *t = NULL;
    hid_t fapl = -1;
    char h5name[64];
    *out = NULL;
    if (!name)
        name = "(memory)";
    rctx c = {name, NULL, NULL, err, NULL, RUN_LINKS_UNKNOWN, NULL, NULL, 0, 0};
    if (jl__h5_init() != JL_OK)
        return jl__rctx_h5_fail(&c, JL_EINTERNAL, "cannot register the Zstandard filter with HDF5");
    if (!buf || len == 0)
        return jl__rctx_fail(&c, JL_EFORMAT, "empty file (0 bytes)");
    jl_status st = trace_new(name, opt, &t, err);
    if (st != JL_OK)
        return st;
    t->file_bytes = (uint64_t)len;
    snprintf(h5name, sizeof h5name, "joules-image-%llu.h5", ++image_counter);
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
        jl__h5_small_cache(fapl) < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 ||
        H5Pset_file_image(fapl, (void *)buf, len) < 0) {
        st = jl__rctx_h5_fail(&c, JL_EINTERNAL, "cannot set up the in-memory file image");
        goto end;
    }
    if ((st = open_common(t, fapl, h5name, err)) != JL_OK)
        goto end;
    *out = t;
    t = NULL;
end:
    CLOSE(fapl, H5Pclose);
    jl_trace_close(t);
    return st;
}

void jl_trace_close(jl_trace *t)
{
    if (!t)
        return;
    CLOSE(t->vstr[0], H5Tclose);
    CLOSE(t->vstr[1], H5Tclose);
    CLOSE(t->runs_grp, H5Gclose);
    if (t->file >= 0)
        H5Fclose(t->file);
    for (size_t i = 0; i < t->n_runs; i++)
        free(t->runs[i]);
    free(t->runs);
    free(t->row_of);
    jl__table_free(t->table);
    if (t->map) /* last: HDF5 and the table read it until they are closed */
        munmap(t->map, t->map_len);
    free(t->path);
    free(t->harness);
    free(t->created_utc);
    free(t->provenance);
    free(t);
}

const char *jl_trace_path(const jl_trace *t)
{
    return t->path;
}

size_t jl_trace_run_count(const jl_trace *t)
{
    return t->n_runs;
}

const char *jl_trace_run_name(const jl_trace *t, size_t i)
{
    return i < t->n_runs ? t->runs[i] : NULL;
}

const char *jl_trace_harness(const jl_trace *t)
{
    return t->harness;
}

const char *jl_trace_created_utc(const jl_trace *t)
{
    return t->created_utc;
}

const char *jl_trace_provenance(const jl_trace *t)
{
    return t->provenance;
}
