/* The page without data/ (--no-data) or as one self-contained file
 * (--single-page): links to what is not written become their text, and
 * with a single page each figure's image is carried inside the page as a
 * data: URI. Runs on the page html.c built, before it is written. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/sections.h"

/* Whether a link target is left out of the page. */
static int dropped(const jl__report_report *r, const char *href)
{
    if (r->opt.no_data && (!strncmp(href, "data/", 5) || !strncmp(href, "notebooks-export/", 17)))
        return 1;
    return r->opt.single_page && (!strncmp(href, "figures/", 8) || !strncmp(href, "runs.html", 9) ||
                                  !strncmp(href, "diagnosis.html", 14));
}

static void base64(jl__strbuf *b, const unsigned char *p, size_t n)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4];
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        out[0] = tbl[v >> 18 & 63];
        out[1] = tbl[v >> 12 & 63];
        out[2] = i + 1 < n ? tbl[v >> 6 & 63] : '=';
        out[3] = i + 2 < n ? tbl[v & 63] : '=';
        jl__strbuf_append(b, out, 4);
    }
}

/* src="figures/NAME" as a data: URI of the file drawn under the report
 * root; 0 when the file cannot be read (the src is then kept). */
static int inline_image(jl__report_report *r, jl__strbuf *out, const char *rel, size_t len)
{
    char *name = malloc(len + 1);
    if (name) {
        memcpy(name, rel, len);
        name[len] = '\0';
    }
    char *path = name ? jl__report_path(r, name) : NULL;
    size_t n = 0;
    char *data = path ? jl__report_read_file_n(path, &n) : NULL;
    free(path);
    if (!data) {
        free(name);
        return 0;
    }
    size_t nl = strlen(name);
    jl__strbuf_puts(out, nl > 4 && !strcmp(name + nl - 4, ".png")
                             ? "src=\"data:image/png;base64,"
                             : "src=\"data:image/svg+xml;base64,");
    base64(out, (const unsigned char *)data, n);
    jl__strbuf_puts(out, "\"");
    free(data);
    free(name);
    return 1;
}

jl_status jl__report_pack_page(jl__report_report *r, jl__strbuf *page, jl_error **err)
{
    if (!r->opt.no_data && !r->opt.single_page)
        return JL_OK;
    jl__strbuf out;
    jl__strbuf_init(&out);
    const char *s = page->data ? page->data : "";
    size_t skip_close = 0; /* </a> to leave out: links dropped and still open */
    while (*s) {
        if (!strncmp(s, "<a href=\"", 9)) {
            const char *h = s + 9, *q = strchr(h, '"'), *gt = q ? strchr(q, '>') : NULL;
            if (gt && dropped(r, h)) {
                skip_close++;
                s = gt + 1;
                continue;
            }
        } else if (skip_close && !strncmp(s, "</a>", 4)) {
            skip_close--;
            s += 4;
            continue;
        } else if (r->opt.single_page && !strncmp(s, "src=\"figures/", 13)) {
            const char *h = s + 5, *q = strchr(h, '"');
            if (q && inline_image(r, &out, h, (size_t)(q - h))) {
                s = q + 1;
                continue;
            }
        }
        const char *next = s + 1;
        while (*next && *next != '<' && *next != 's')
            next++;
        jl__strbuf_append(&out, s, (size_t)(next - s));
        s = next;
    }
    if (out.failed) {
        jl__strbuf_free(&out);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    jl__strbuf_free(page);
    *page = out;
    return JL_OK;
}
