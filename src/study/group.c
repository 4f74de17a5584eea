/* Groups: runs sharing the values of some attributes (joules/study.h), used
 * by frontier, pick, compare, capacity and report; and the deterministic
 * configuration order used to break ties. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/attrs_internal.h"
#include "core/hash.h"
#include "core/util.h"
#include "joules/study.h"
#include "study/study_internal.h"

static int parse_num(const char *s, double *v)
{
    if (!s || !*s)
        return 0;
    char *end = NULL;
    *v = strtod(s, &end);
    return end && *end == '\0' && isfinite(*v);
}

/* Missing (NULL) sorts last; two numbers compare numerically. */
int jl__attr_value_cmp(const char *a, const char *b)
{
    if (!a || !b)
        return (a == NULL) - (b == NULL);
    double x, y;
    if (parse_num(a, &x) && parse_num(b, &y))
        return (x > y) - (x < y);
    return strcmp(a, b);
}

int jl_run_config_cmp(const jl_summary *a, const jl_summary *b)
{
    int c = jl__strcmp_null_last(a->attrs.gpu_model, b->attrs.gpu_model);
    if (c)
        return c;
    if (a->attrs.num_gpus != b->attrs.num_gpus)
        return a->attrs.num_gpus < b->attrs.num_gpus ? -1 : 1;
    if (a->attrs.max_batch_size != b->attrs.max_batch_size)
        return a->attrs.max_batch_size < b->attrs.max_batch_size ? -1 : 1;
    if ((c = jl__strcmp_null_last(a->attrs.precision, b->attrs.precision)))
        return c;
    if ((c = jl__strcmp_null_last(a->file, b->file)))
        return c;
    return jl__strcmp_null_last(a->run, b->run);
}

/* One key value of a run, parsed once: grouping compares each value many
 * times (qsort), and strtod in every comparison was a third of grouping.
 * A string attribute's text is the run's own; other texts (integers, reals,
 * extras) live in one buffer (text_off into it) until the groups take
 * copies of theirs. */
typedef struct kval {
    const char *text; /* NULL: the run lacks the attribute */
    size_t text_off;
    double num;
    int is_num;
} kval;

typedef struct item {
    kval *vals; /* [nk], in one array for all items */
    size_t nk;
    size_t run;
    int node_ac; /* @power_scope node_ac: never in a group with GPU power */
} item;

/* jl__attr_value_cmp over parsed values */
static int kval_cmp(const kval *a, const kval *b)
{
    if (!a->text || !b->text)
        return (a->text == NULL) - (b->text == NULL);
    if (a->is_num && b->is_num)
        return (a->num > b->num) - (a->num < b->num);
    return strcmp(a->text, b->text);
}

static int cmp_item(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    for (size_t k = 0; k < a->nk; k++) {
        int c = kval_cmp(&a->vals[k], &b->vals[k]);
        if (c)
            return c;
    }
    if (a->node_ac != b->node_ac)
        return a->node_ac - b->node_ac;
    return (a->run > b->run) - (a->run < b->run);
}

static int same_key(const item *a, const item *b)
{
    for (size_t k = 0; k < a->nk; k++)
        if (kval_cmp(&a->vals[k], &b->vals[k]))
            return 0;
    return a->node_ac == b->node_ac;
}

/* Whether a key holds both numbers and other texts among the items. */
static int mixed_keys(const item *items, size_t n, size_t nk)
{
    for (size_t k = 0; k < nk; k++) {
        int num = 0, text = 0;
        for (size_t i = 0; i < n; i++)
            if (items[i].vals[k].text) {
                num |= items[i].vals[k].is_num;
                text |= !items[i].vals[k].is_num;
            }
        if (num && text)
            return 1;
    }
    return 0;
}

/* A hash of what same_key compares: a number by its value (0 and -0 alike),
 * a text by its bytes, missing, node AC. */
static uint64_t item_hash(const item *it)
{
    static const unsigned char missing = 0x9e, end_text = 0xff;
    uint64_t h = JL__FNV1A_INIT;
    for (size_t k = 0; k < it->nk; k++) {
        const kval *v = &it->vals[k];
        if (!v->text) {
            h = jl__fnv1a_add(h, &missing, 1);
        } else if (v->is_num) {
            double d = v->num == 0 ? 0.0 : v->num;
            h = jl__fnv1a_add(h, &d, sizeof d);
        } else {
            h = jl__fnv1a_add(h, v->text, strlen(v->text));
            h = jl__fnv1a_add(h, &end_text, 1);
        }
    }
    unsigned char ac = (unsigned char)it->node_ac;
    h = jl__fnv1a_add(h, &ac, 1);
    return h ^ (h >> 32);
}

static int cmp_first_item(const void *pa, const void *pb)
{
    const item *const *a = pa, *const *b = pb;
    return cmp_item(*a, *b);
}

/* Groups by hashing, items taken in list order (each group's first item is
 * its lowest run); then the groups put in cmp_item's order of their first
 * items, as sorting the items would give them when no key mixes numbers
 * and texts. first[0..*ng) and next[] as in jl_group_runs. */
static int hash_groups(const item *items, size_t n, size_t *first, size_t *next, size_t *ng)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    size_t *slot = calloc(cap, sizeof *slot); /* group + 1; 0: empty */
    size_t *last = jl__malloc_array(n ? n : 1, sizeof *last);
    const item **heads = jl__malloc_array(n ? n : 1, sizeof *heads);
    size_t *order = jl__malloc_array(n ? n : 1, sizeof *order);
    if (!slot || !last || !heads || !order) {
        free(slot);
        free(last);
        free(heads);
        free(order);
        return -1;
    }
    size_t g = 0;
    for (size_t i = 0; i < n; i++) {
        size_t s = (size_t)item_hash(&items[i]) & (cap - 1);
        while (slot[s] && !same_key(&items[first[slot[s] - 1]], &items[i]))
            s = (s + 1) & (cap - 1);
        next[i] = (size_t)-1;
        if (slot[s]) {
            size_t q = slot[s] - 1;
            next[last[q]] = i;
            last[q] = i;
        } else {
            first[g] = last[g] = i;
            slot[s] = ++g;
        }
    }
    for (size_t q = 0; q < g; q++)
        heads[q] = &items[first[q]];
    qsort(heads, g, sizeof *heads, cmp_first_item);
    for (size_t q = 0; q < g; q++)
        order[q] = (size_t)(heads[q] - items);
    memcpy(first, order, g * sizeof *first);
    free(slot);
    free(last);
    free(heads);
    free(order);
    *ng = g;
    return 0;
}

void jl_group_set_clear(jl_group_set *gs)
{
    if (!gs)
        return;
    for (size_t g = 0; g < gs->n; g++) {
        for (size_t k = 0; k < gs->groups[g].n_keys; k++)
            free(gs->groups[g].values[k]);
        free(gs->groups[g].values);
        free(gs->groups[g].runs);
    }
    free(gs->groups);
    gs->groups = NULL;
    gs->n = 0;
}

/* Where a key's value lives: a typed field of jl_attrs (found once per key,
 * not once per run as jl_attrs_get does) or the extras. */
typedef struct key_src {
    const jl__attr_field *field; /* NULL: an extra attribute */
    const char *key;
} key_src;

static key_src key_source(const char *key)
{
    key_src k = {NULL, key};
    for (size_t f = 0; f < jl__n_attr_fields; f++)
        if (!strcmp(key, jl__attr_fields[f].name)) {
            k.field = &jl__attr_fields[f];
            break;
        }
    return k;
}

/* "%ld" of v >= 0 into buf (room for 21 bytes); its length. */
static size_t long_text(char *buf, long v)
{
    char tmp[24];
    size_t n = 0;
    unsigned long u = (unsigned long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

/* The value of key k of run a, as jl_attrs_get(a, k.key, buf, cap) writes
 * it (cap >= 32): a pointer to the text (the attribute's own string when it
 * fits in cap, else buf), NULL when the run lacks it. For a long, *num and
 * *is_num are set (its text is a decimal integer: parse_num's value). */
static const char *key_value(const jl_attrs *a, const key_src *k, char *buf, size_t cap,
                             double *num, int *is_num)
{
    *is_num = -1; /* not known: parse the text */
    if (k->field && k->field->kind == JL__F_STR) {
        const char *s = *(char *const *)((const char *)a + k->field->off);
        if (!s)
            return NULL;
        if (strnlen(s, cap) == cap) { /* snprintf would cut it at cap - 1 bytes */
            memcpy(buf, s, cap - 1);
            buf[cap - 1] = '\0';
            return buf;
        }
        /* a text starting with a letter is never a finite number: strtod
         * converts nothing, or only inf/nan */
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
            *is_num = 0;
        return s;
    }
    if (k->field && k->field->kind == JL__F_LONG) {
        long v = *(const long *)((const char *)a + k->field->off);
        if (v < 0)
            return NULL;
        long_text(buf, v);
        *num = (double)v;
        *is_num = 1;
        return buf;
    }
    return jl_attrs_get(a, k->key, buf, cap) == 0 ? buf : NULL;
}

jl_status jl_group_runs(const jl_summary_list *l, const char *const *keys, size_t n_keys,
                        const unsigned char *keep, jl_group_set *out, jl_error **err)
{
    out->groups = NULL;
    out->n = 0;
    size_t n = 0, n_kept = l->count, cap = 4096, used = 0;
    key_src src_small[8], *src = src_small;
    size_t *first = NULL, *next = NULL;
    for (size_t i = 0; keep && i < l->count; i++)
        n_kept -= !keep[i];
    item *items = jl__calloc_array(n_kept ? n_kept : 1, sizeof *items);
    kval *vals = jl__calloc_array(n_kept && n_keys ? n_kept * n_keys : 1, sizeof *vals);
    char *texts = malloc(cap);
    if (!items || !vals || !texts)
        goto oom;
    char buf[1024];
    if (n_keys > 8 && !(src = jl__malloc_array(n_keys, sizeof *src)))
        goto oom;
    for (size_t k = 0; k < n_keys; k++)
        src[k] = key_source(keys[k]);
    for (size_t i = 0; i < l->count; i++) {
        if (keep && !keep[i])
            continue;
        item *it = &items[n];
        it->nk = n_keys;
        it->run = i;
        it->node_ac = jl_attrs_is_node_ac(&l->items[i]->attrs);
        it->vals = vals + n * n_keys;
        n++;
        for (size_t k = 0; k < n_keys; k++) {
            kval *v = &it->vals[k];
            v->text_off = (size_t)-1;
            v->text = NULL;
            int is_num;
            const char *t =
                key_value(&l->items[i]->attrs, &src[k], buf, sizeof buf, &v->num, &is_num);
            if (!t)
                continue;
            if (t != buf) { /* the run's own string: no copy */
                v->text = t;
                v->is_num = is_num == 0 ? 0 : parse_num(t, &v->num);
                continue;
            }
            size_t len = strlen(buf) + 1;
            if (used + len > cap) {
                while (used + len > cap)
                    cap *= 2;
                char *nt = realloc(texts, cap);
                if (!nt)
                    goto oom;
                texts = nt;
            }
            memcpy(texts + used, buf, len);
            v->text_off = used;
            used += len;
            v->is_num = is_num >= 0 ? is_num : parse_num(buf, &v->num);
        }
    }
    if (src != src_small)
        free(src);
    src = src_small;
    for (size_t i = 0; i < n * n_keys; i++)
        if (vals[i].text_off != (size_t)-1)
            vals[i].text = texts + vals[i].text_off;
    /* each group's items in list order: first[g] (its lowest run), then
     * next[] */
    if (!(first = jl__malloc_array(n ? n : 1, sizeof *first)) ||
        !(next = jl__malloc_array(n ? n : 1, sizeof *next)))
        goto oom;
    size_t ng = 0;
    if (mixed_keys(items, n, n_keys)) {
        /* numbers and texts in one key: group as the comparison orders
         * them, adjacent after sorting (kval_cmp is not transitive there) */
        qsort(items, n, sizeof *items, cmp_item);
        for (size_t i = 0; i < n; i++) {
            next[i] = (size_t)-1;
            if (i == 0 || !same_key(&items[i - 1], &items[i]))
                first[ng++] = i;
            else
                next[i - 1] = i;
        }
    } else if (hash_groups(items, n, first, next, &ng) != 0) {
        goto oom;
    }
    if (ng && !(out->groups = jl__calloc_array(ng, sizeof *out->groups)))
        goto oom;
    for (size_t q = 0; q < ng; q++) {
        const item *it0 = &items[first[q]];
        jl_group *g = &out->groups[out->n++];
        g->node_ac = it0->node_ac;
        /* copies of the first item's texts */
        if (!(g->values = jl__calloc_array(n_keys ? n_keys : 1, sizeof *g->values)))
            goto oom;
        g->n_keys = n_keys;
        for (size_t k = 0; k < n_keys; k++)
            if (it0->vals[k].text && !(g->values[k] = jl__strdup(it0->vals[k].text)))
                goto oom;
        size_t cnt = 0;
        for (size_t i = first[q]; i != (size_t)-1; i = next[i])
            cnt++;
        if (!(g->runs = jl__malloc_array(cnt, sizeof *g->runs)))
            goto oom;
        g->n_runs = cnt;
        cnt = 0;
        for (size_t i = first[q]; i != (size_t)-1; i = next[i])
            g->runs[cnt++] = items[i].run;
        /* runs in list order (already so, but for a sort by a
         * comparison that is not transitive) */
        for (size_t a = 1; a < g->n_runs; a++)
            for (size_t b = a; b > 0 && g->runs[b - 1] > g->runs[b]; b--) {
                size_t t = g->runs[b];
                g->runs[b] = g->runs[b - 1];
                g->runs[b - 1] = t;
            }
    }
    free(first);
    free(next);
    free(items);
    free(vals);
    free(texts);
    return JL_OK;
oom:
    if (src != src_small)
        free(src);
    free(first);
    free(next);
    jl_group_set_clear(out);
    free(items);
    free(vals);
    free(texts);
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
}
