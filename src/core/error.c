/* Errors with context: see include/joules/error.h. */
#define _POSIX_C_SOURCE 200809L
#include "joules/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const char *const status_names[] = {
#define JL__X_NAME(id, name, msg) name,
    JL_STATUS_TABLE(JL__X_NAME)
#undef JL__X_NAME
};

static const char *const status_messages[] = {
#define JL__X_MSG(id, name, msg) msg,
    JL_STATUS_TABLE(JL__X_MSG)
#undef JL__X_MSG
};

const char *jl_status_name(jl_status s)
{
    if ((unsigned)s >= JL_STATUS_COUNT)
        return "unknown";
    return status_names[s];
}

const char *jl_strerror(jl_status s)
{
    if ((unsigned)s >= JL_STATUS_COUNT)
        return "unknown error";
    return status_messages[s];
}

jl_error *jl_error_vnew(jl_status code, const char *file, const char *run, const char *object,
                        long long row, const char *fmt, va_list ap)
{
    jl_error *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->code = code;
    e->row = row;
    e->file = file ? jl__strdup(file) : NULL;
    e->run = run ? jl__strdup(run) : NULL;
    e->object = object ? jl__strdup(object) : NULL;
    e->message = fmt ? jl__vasprintf(fmt, ap) : jl__strdup(jl_strerror(code));
    if ((file && !e->file) || (run && !e->run) || (object && !e->object) || !e->message) {
        jl_error_free(e);
        return NULL;
    }
    return e;
}

jl_error *jl_error_new(jl_status code, const char *file, const char *run, const char *object,
                       long long row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jl_error *e = jl_error_vnew(code, file, run, object, row, fmt, ap);
    va_end(ap);
    return e;
}

/* A static error for when even the error cannot be allocated: the caller
 * gets JL_ENOMEM and no jl_error (err stays NULL), which the CLI reports as
 * "out of memory". */
static void vfail(jl_error **err, jl_side side, jl_status code, const char *file, const char *run,
                  const char *object, long long row, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 8, 0)))
#endif
    ;

/* The first error wins: *err is set only while still NULL. */
static void vfail(jl_error **err, jl_side side, jl_status code, const char *file, const char *run,
                  const char *object, long long row, const char *fmt, va_list ap)
{
    if (err && !*err) {
        *err = jl_error_vnew(code, file, run, object, row, fmt, ap);
        jl_error_set_side(*err, side);
    }
}

jl_status jl_fail(jl_error **err, jl_status code, const char *file, const char *run,
                  const char *object, long long row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, JL_SIDE_INPUT, code, file, run, object, row, fmt, ap);
    va_end(ap);
    return code;
}

jl_status jl_fail_output(jl_error **err, jl_status code, const char *file, const char *run,
                         const char *object, long long row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, JL_SIDE_OUTPUT, code, file, run, object, row, fmt, ap);
    va_end(ap);
    return code;
}

jl_status jl_error_mark_output(jl_status st, jl_error **err)
{
    if (st == JL_EIO && err)
        jl_error_set_side(*err, JL_SIDE_OUTPUT);
    return st;
}

void jl_error_set_side(jl_error *e, jl_side side)
{
    if (e)
        e->side = side;
}

void jl_error_set_context(jl_error *e, const char *file, const char *run)
{
    if (!e)
        return;
    if (!e->file && file)
        e->file = jl__strdup(file);
    if (!e->run && run)
        e->run = jl__strdup(run);
}

void jl_error_set_position(jl_error *e, long long line, long long column)
{
    if (!e)
        return;
    e->line = line > 0 ? line : 0;
    e->column = column > 0 ? column : 0;
}

char *jl_error_format(const jl_error *e)
{
    if (!e)
        return jl__strdup("unknown error");
    jl__strbuf b;
    jl__strbuf_init(&b);
    if (e->file && e->line > 0 && e->column > 0)
        jl__strbuf_printf(&b, "%s:%lld:%lld: ", e->file, e->line, e->column);
    else if (e->file && e->line > 0)
        jl__strbuf_printf(&b, "%s:%lld: ", e->file, e->line);
    else if (e->file)
        jl__strbuf_printf(&b, "%s: ", e->file);
    if (e->run)
        jl__strbuf_printf(&b, "run %s: ", e->run);
    if (e->object)
        jl__strbuf_printf(&b, "%s: ", e->object);
    jl__strbuf_printf(&b, "%s", e->message ? e->message : jl_strerror(e->code));
    for (const jl_error *c = e->cause; c; c = c->cause)
        jl__strbuf_printf(&b, " (caused by: %s)", c->message ? c->message : jl_strerror(c->code));
    return jl__strbuf_take(&b);
}

void jl_error_free(jl_error *e)
{
    while (e) {
        jl_error *next = e->cause;
        free(e->file);
        free(e->run);
        free(e->object);
        free(e->message);
        free(e);
        e = next;
    }
}

jl_status jl_error_list_push(jl_error_list *list, jl_error *e)
{
    if (!e)
        return JL_OK;
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        jl_error **items = realloc(list->items, cap * sizeof *items);
        if (!items) {
            jl_error_free(e);
            return JL_ENOMEM;
        }
        list->items = items;
        list->cap = cap;
    }
    list->items[list->count++] = e;
    return JL_OK;
}

void jl_error_list_clear(jl_error_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        jl_error_free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = list->cap = 0;
}
