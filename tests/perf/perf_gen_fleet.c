/* joules-perf-genfleet — a serving fleet's day of GPU telemetry as
 * Prometheus gives it back, fast enough for a day of 1,000 GPUs and more
 * (docs/scaling.md, "A fleet day"): the model of gen_fleet.py (which stays
 * the reference of the fleet ctest), in C and in parallel, writing
 *
 *   DIR/nodes/nodeNNN_DATE/DATE THH.json  the /api/v1/query_range answer of
 *       {__name__=~"DCGM_FI_DEV_POWER_USAGE|DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"}
 *       for one node and one hour at step=1s (Prometheus refuses more than
 *       11,000 points per series: a day comes hour by hour), compact JSON,
 *       series sorted by label set, values as Prometheus writes them;
 *   DIR/scrape/nodeNNN_DATE/DATE THH.prom  the same hour as a scrape archive:
 *       every scrape of the node's dcgm-exporter /metrics appended one after
 *       the other (# HELP, # TYPE, then name{labels} value timestamp_ms;
 *       no instance/job labels, which Prometheus adds; a missed scrape or a
 *       target down writes nothing);
 *   DIR/truth.json  every pod's GPUs, first and last sample and the energy
 *       its GPUs really used (the integral of the power), and the total.
 *
 *   joules-perf-genfleet -o DIR [--gpus 1000] [--hours 24] [--format json|text|both]
 *                        [--nodes A:B] [--jobs N] [--seed S]
 *
 * What happens in a fleet happens here (as in gen_fleet.py): each node's 8
 * GPUs are cut into groups that run pods one after the other (minutes to
 * hours, idle gaps between; a GPU whose pod changes is a new series, with
 * pod/namespace/container labels while a pod holds it); scrape gaps (a few
 * missed scrapes an hour on a third of the hours: query_range repeats the
 * last sample, the counter catches up after); on one node in ten an
 * exporter restart with a driver reload (30 s without points, then the
 * energy counter from zero). --nodes A:B writes only nodes A..B-1 (the
 * others' files are left out, truth.json holds their pods only); --jobs N
 * forks N writers, node by node. Deterministic for a given --seed. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GPN 8
#define T0_DEFAULT 1795737600LL /* 2026-11-27T00:00:00Z */
#define MAX_PODS 4096

static const char *const MODELS[] = {"llama-3-70b", "qwen3-8b", "mixtral-8x7b", "deepseek-v3",
                                     "gemma-2-27b"};
static const int GROUPINGS[6][5] = {{8},          {4, 4},       {2, 2, 4},
                                    {1, 1, 2, 4}, {2, 2, 2, 2}, {4, 2, 1, 1}};

static long long T0 = T0_DEFAULT;
static long SPAN;
static int GPUS, NODES;
static uint64_t SEED = 1;

/* ---- a small deterministic generator (splitmix64) ---------------------- */
typedef struct {
    uint64_t s;
} rng;
static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double runif(rng *r)
{
    return (double)(rnext(r) >> 11) / 9007199254740992.0;
}
static long rint_in(rng *r, long lo, long hi) /* [lo, hi] */
{
    return lo + (long)(rnext(r) % (uint64_t)(hi - lo + 1));
}

typedef struct {
    long start, end; /* seconds from T0, end exclusive */
    char name[64];
    int gpus[GPN], n_gpus;
    double e0[GPN], e1[GPN]; /* true energy (J) of each GPU at its first and last sample */
    int started[GPN];
    long first, last;
    int seen;
} pod;

typedef struct {
    pod pods[MAX_PODS];
    int n_pods;
    long gap_start[64], gap_len[64];
    int n_gaps;
    long restart; /* -1: none; else 30 s down from here */
} plan;

static void uuid_of(int node, int g, char *out)
{
    rng r = {SEED * 7919 + (uint64_t)node * 131 + (uint64_t)g};
    uint64_t a = rnext(&r), b = rnext(&r);
    snprintf(out, 48, "GPU-%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xffff, (unsigned)(b >> 48),
             (unsigned long long)(b & 0xffffffffffffull));
}

static void plan_node(int node, plan *p)
{
    rng r = {SEED * 1000003ull + (uint64_t)node};
    memset(p, 0, sizeof *p);
    p->restart = -1;
    const int *grouping = GROUPINGS[rnext(&r) % 6];
    int g0 = 0;
    for (int k = 0; k < 5 && grouping[k]; k++) {
        int grp[GPN], n = 0;
        for (int g = g0; g < g0 + grouping[k]; g++)
            if (node * GPN + g < GPUS)
                grp[n++] = g;
        g0 += grouping[k];
        if (!n)
            continue;
        long t = -rint_in(&r, 0, 3 * 3600); /* the first pod may have started before */
        while (t < SPAN) {
            if (runif(&r) < 0.85) {
                double ex = -log(1 - runif(&r)) * 5400;
                long dur = (long)fmin(6 * 3600, fmax(300, ex));
                const char *model = MODELS[rnext(&r) % 5];
                unsigned tag = (unsigned)rnext(&r);
                long s = t > 0 ? t : 0, e = t + dur < SPAN ? t + dur : SPAN;
                if (e - s >= 2 && p->n_pods < MAX_PODS) {
                    pod *q = &p->pods[p->n_pods++];
                    q->start = s;
                    q->end = e;
                    snprintf(q->name, sizeof q->name, "vllm-%s-%08x", model, tag);
                    memcpy(q->gpus, grp, sizeof grp);
                    q->n_gpus = n;
                }
                t += dur;
            }
            t += rint_in(&r, 60, 600);
        }
    }
    for (long h = 0; h < SPAN && p->n_gaps < 64; h += 3600)
        if (runif(&r) < 0.3) {
            p->gap_start[p->n_gaps] = h + rint_in(&r, 60, 3500);
            p->gap_len[p->n_gaps++] = rint_in(&r, 3, 15);
        }
    if (node % 10 == 3 || (node == 0 && NODES < 4))
        p->restart = (long)(SPAN * (0.3 + 0.4 * runif(&r)));
}

static double watts(int node, int g, long t, const pod *q)
{
    double x = (double)(t + T0 % 100000);
    if (!q)
        return round((61.5 + 2.5 * sin(x * 0.011 + g)) * 1000) / 1000;
    unsigned k = (unsigned)strtoul(q->name + strlen(q->name) - 8, NULL, 16);
    double base = 260 + (k % 300);
    double w = base + 90 * sin(x / (120 + k % 500) + g) + 20 * sin(x * 0.37 + node);
    return round(fmin(700.0, fmax(70.0, w)) * 1000) / 1000;
}

/* Prometheus' shortest text of a value with at most 3 decimals. */
static int value_text(char *out, double v)
{
    int n = snprintf(out, 32, "%.3f", v);
    while (n > 0 && out[n - 1] == '0')
        n--;
    if (n > 0 && out[n - 1] == '.')
        n--;
    out[n] = '\0';
    return n;
}

/* ---- one node's hours -------------------------------------------------- */

typedef struct {
    double counter_mj, true_j, last_w;
    int have_last;
    char last_p[32], last_e[32];
    int have_sample;
} gpu_state;

/* One series of an hour: a GPU and its pod (or idle). */
typedef struct {
    int g;
    const pod *q;
    char labels[512];  /* JSON, sorted by name: those before __name__ */
    char labels2[512]; /* and those after it */
    char text_labels[512];
    long *t;
    char (*p)[32], (*e)[32];
    unsigned char *miss; /* 1: a missed scrape (query_range repeats the last sample) */
    size_t n, cap;
} series;

typedef struct {
    FILE *f;
    char *buf;
    size_t len, cap;
} out_buf;

static void ob_put(out_buf *o, const char *s, size_t n)
{
    if (o->len + n > o->cap) {
        fwrite(o->buf, 1, o->len, o->f);
        o->len = 0;
        if (n > o->cap) {
            fwrite(s, 1, n, o->f);
            return;
        }
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}
static void ob_str(out_buf *o, const char *s)
{
    ob_put(o, s, strlen(s));
}

static int mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *c = tmp + 1; *c; c++)
        if (*c == '/') {
            *c = '\0';
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return -1;
            *c = '/';
        }
    return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static void json_labels(series *s, int node, int g, const pod *q)
{
    char uu[48];
    uuid_of(node, g, uu);
    /* sorted by name, as Prometheus sorts them (uppercase first) */
    snprintf(s->labels, sizeof s->labels,
             "\"DCGM_FI_DRIVER_VERSION\":\"580.65.06\",\"Hostname\":\"node%03d\",\"UUID\":\"%s\"",
             node, uu);
    if (q)
        snprintf(
            s->labels2, sizeof s->labels2,
            "\"container\":\"vllm\",\"device\":\"nvidia%d\",\"gpu\":\"%d\",\"instance\":\"10.%d.%d.7:9400\","
            "\"job\":\"dcgm-exporter\",\"modelName\":\"NVIDIA H100 80GB HBM3\",\"namespace\":\"serve\","
            "\"pod\":\"%s\"",
            g, g, node / 250, node % 250, q->name);
    else
        snprintf(s->labels2, sizeof s->labels2,
                 "\"device\":\"nvidia%d\",\"gpu\":\"%d\",\"instance\":\"10.%d.%d.7:9400\","
                 "\"job\":\"dcgm-exporter\",\"modelName\":\"NVIDIA H100 80GB HBM3\"",
                 g, g, node / 250, node % 250);
    /* dcgm-exporter's own order on /metrics */
    if (q)
        snprintf(s->text_labels, sizeof s->text_labels,
                 "gpu=\"%d\",UUID=\"%s\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\","
                 "Hostname=\"node%03d\",DCGM_FI_DRIVER_VERSION=\"580.65.06\",container=\"vllm\","
                 "namespace=\"serve\",pod=\"%s\"",
                 g, uu, g, node, q->name);
    else
        snprintf(s->text_labels, sizeof s->text_labels,
                 "gpu=\"%d\",UUID=\"%s\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\","
                 "Hostname=\"node%03d\",DCGM_FI_DRIVER_VERSION=\"580.65.06\"",
                 g, uu, g, node);
}

/* Prometheus sorts a matrix by label set, labels by name: UUID comes
 * before __name__ ('U' < '_'), so each series' power comes just before its
 * energy, series by UUID, a GPU's pod series and idle series by the labels
 * after __name__. */
static int cmp_series(const void *a, const void *b)
{
    const series *x = a, *y = b;
    int c = strcmp(x->labels, y->labels);
    return c ? c : strcmp(x->labels2, y->labels2);
}

static const char *POWER = "DCGM_FI_DEV_POWER_USAGE",
                  *ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";

static int write_node(const char *dir, int node, int want_json, int want_text, FILE *truth)
{
    plan *p = calloc(1, sizeof *p);
    gpu_state st[GPN];
    memset(st, 0, sizeof st);
    plan_node(node, p);
    rng r = {SEED};
    for (int g = 0; g < GPN; g++)
        st[g].counter_mj = 4.2e9 + runif(&r) * 1e9 + g * 1e7;
    char *jbuf = malloc(1 << 20), *tbuf = malloc(1 << 20);
    series ser[GPN * 8];
    memset(ser, 0, sizeof ser);
    for (long h0 = 0; h0 < SPAN; h0 += 3600) {
        long h1 = h0 + 3600 < SPAN ? h0 + 3600 : SPAN;
        time_t tt = (time_t)(T0 + h0);
        struct tm tm;
        gmtime_r(&tt, &tm);
        char day[16], name[32];
        strftime(day, sizeof day, "%Y-%m-%d", &tm);
        strftime(name, sizeof name, "%Y-%m-%dT%H", &tm);
        int ns = 0;
        /* text: the scrapes in time order, so the hour's samples are kept
         * per series and written second by second after */
        for (int g = 0; g < GPN; g++) {
            if (node * GPN + g >= GPUS)
                continue;
            gpu_state *s = &st[g];
            int k = 0;
            const pod *mine[MAX_PODS];
            int nm = 0;
            for (int i = 0; i < p->n_pods; i++)
                for (int j = 0; j < p->pods[i].n_gpus; j++)
                    if (p->pods[i].gpus[j] == g)
                        mine[nm++] = &p->pods[i];
            series *cur = NULL;
            const pod *cur_q = (const pod *)-1;
            for (long t = h0; t < h1; t++) {
                while (k < nm && mine[k]->end <= t)
                    k++;
                const pod *q = k < nm && mine[k]->start <= t ? mine[k] : NULL;
                double w = watts(node, g, t, q);
                if (s->have_last) {
                    double e = 0.5 * (s->last_w + w);
                    s->true_j += e;
                    s->counter_mj += e * 1000.0;
                }
                s->last_w = w;
                s->have_last = 1;
                if (p->restart >= 0 && t >= p->restart && t < p->restart + 30) {
                    if (t == p->restart)
                        s->counter_mj = 0;
                    continue;
                }
                int in_gap = 0;
                for (int i = 0; i < p->n_gaps; i++)
                    in_gap |= t >= p->gap_start[i] && t < p->gap_start[i] + p->gap_len[i];
                int edge = q && (t == q->start || t == q->end - 1);
                char pv[32], ev[32];
                int repeated = in_gap && s->have_sample && !edge;
                if (repeated) {
                    strcpy(pv, s->last_p);
                    strcpy(ev, s->last_e);
                } else {
                    value_text(pv, w);
                    snprintf(ev, sizeof ev, "%.0f", round(s->counter_mj));
                    strcpy(s->last_p, pv);
                    strcpy(s->last_e, ev);
                    s->have_sample = 1;
                }
                if (q != cur_q) {
                    cur = NULL;
                    for (int i = 0; i < ns; i++)
                        if (ser[i].g == g && ser[i].q == q)
                            cur = &ser[i];
                    if (!cur) {
                        cur = &ser[ns++];
                        cur->g = g;
                        cur->q = q;
                        cur->n = 0;
                        json_labels(cur, node, g, q);
                    }
                    cur_q = q;
                }
                if (cur->n == cur->cap) {
                    cur->cap = cur->cap ? 2 * cur->cap : 4096;
                    cur->t = realloc(cur->t, cur->cap * sizeof *cur->t);
                    cur->p = realloc(cur->p, cur->cap * sizeof *cur->p);
                    cur->e = realloc(cur->e, cur->cap * sizeof *cur->e);
                    cur->miss = realloc(cur->miss, cur->cap);
                }
                cur->t[cur->n] = t;
                memcpy(cur->p[cur->n], pv, sizeof pv);
                memcpy(cur->e[cur->n], ev, sizeof ev);
                cur->miss[cur->n] = (unsigned char)repeated; /* absent from the archive */
                cur->n++;
                if (q) {
                    pod *mq = (pod *)q;
                    int j = 0;
                    while (mq->gpus[j] != g)
                        j++;
                    if (!mq->seen) {
                        mq->first = mq->last = t;
                        mq->seen = 1;
                    }
                    if (t < mq->first)
                        mq->first = t;
                    if (t > mq->last)
                        mq->last = t;
                    if (!mq->started[j]) {
                        mq->e0[j] = s->true_j;
                        mq->started[j] = 1;
                    }
                    mq->e1[j] = s->true_j;
                }
            }
        }
        qsort(ser, (size_t)ns, sizeof ser[0], cmp_series);
        char path[4096];
        if (want_json) {
            snprintf(path, sizeof path, "%s/nodes/node%03d_%s", dir, node, day);
            if (mkdirs(path) != 0)
                return -1;
            snprintf(path, sizeof path, "%s/nodes/node%03d_%s/%s.json", dir, node, day, name);
            out_buf o = {fopen(path, "w"), jbuf, 0, 1 << 20};
            if (!o.f)
                return -1;
            ob_str(&o, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
            int first = 1;
            for (int i = 0; i < ns; i++)
                for (int m = 0; m < 2; m++) {
                    series *s = &ser[i];
                    if (!s->n)
                        continue;
                    ob_str(&o, first ? "{\"metric\":{" : ",{\"metric\":{");
                    first = 0;
                    ob_str(&o, s->labels);
                    ob_str(&o, ",\"__name__\":\"");
                    ob_str(&o, m ? ENERGY : POWER);
                    ob_str(&o, "\",");
                    ob_str(&o, s->labels2);
                    ob_str(&o, "},\"values\":[");
                    for (size_t j = 0; j < s->n; j++) {
                        char cell[64];
                        int n = snprintf(cell, sizeof cell, "%s[%lld,\"%s\"]", j ? "," : "",
                                         T0 + s->t[j], m ? s->e[j] : s->p[j]);
                        ob_put(&o, cell, (size_t)n);
                    }
                    ob_str(&o, "]}");
                }
            ob_str(&o, "]}}");
            fwrite(o.buf, 1, o.len, o.f);
            if (fclose(o.f) != 0)
                return -1;
        }
        if (want_text) {
            snprintf(path, sizeof path, "%s/scrape/node%03d_%s", dir, node, day);
            if (mkdirs(path) != 0)
                return -1;
            snprintf(path, sizeof path, "%s/scrape/node%03d_%s/%s.prom", dir, node, day, name);
            out_buf o = {fopen(path, "w"), tbuf, 0, 1 << 20};
            if (!o.f)
                return -1;
            size_t at[GPN * 8] = {0};
            for (long t = h0; t < h1; t++) {
                int any = 0;
                for (int i = 0; i < ns; i++)
                    any |= at[i] < ser[i].n && ser[i].t[at[i]] == t && !ser[i].miss[at[i]];
                if (!any) { /* missed or down: no scrape this second */
                    for (int i = 0; i < ns; i++)
                        if (at[i] < ser[i].n && ser[i].t[at[i]] == t)
                            at[i]++;
                    continue;
                }
                for (int m = 0; m < 2; m++) {
                    ob_str(&o, m ? "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy "
                                   "consumption since boot (in mJ).\n# TYPE "
                                   "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
                                 : "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE "
                                   "DCGM_FI_DEV_POWER_USAGE gauge\n");
                    for (int g = 0; g < GPN; g++)
                        for (int i = 0; i < ns; i++) {
                            series *s = &ser[i];
                            if (s->g != g || at[i] >= s->n || s->t[at[i]] != t)
                                continue;
                            char cell[96];
                            int n = snprintf(cell, sizeof cell, "} %s %lld000\n",
                                             m ? s->e[at[i]] : s->p[at[i]], T0 + t);
                            ob_str(&o, m ? ENERGY : POWER);
                            ob_str(&o, "{");
                            ob_str(&o, s->text_labels);
                            ob_put(&o, cell, (size_t)n);
                        }
                }
                for (int i = 0; i < ns; i++)
                    if (at[i] < ser[i].n && ser[i].t[at[i]] == t)
                        at[i]++;
            }
            fwrite(o.buf, 1, o.len, o.f);
            if (fclose(o.f) != 0)
                return -1;
        }
        for (int i = 0; i < ns; i++)
            ser[i].n = 0;
        /* series of the next hour are made afresh (a pod may end) */
        for (int i = 0; i < ns; i++) {
            free(ser[i].t);
            free(ser[i].p);
            free(ser[i].e);
            free(ser[i].miss);
        }
        memset(ser, 0, sizeof ser);
    }
    for (int i = 0; i < p->n_pods; i++) {
        pod *q = &p->pods[i];
        if (!q->seen || q->last <= q->first)
            continue;
        double e = 0;
        for (int j = 0; j < q->n_gpus; j++)
            e += q->e1[j] - q->e0[j];
        fprintf(truth, "%s\t%d\t%lld\t%lld\t%.6f", q->name, node, T0 + q->first, T0 + q->last, e);
        for (int j = 0; j < q->n_gpus; j++) {
            char uu[48];
            uuid_of(node, q->gpus[j], uu);
            fprintf(truth, "\tnode%03d:%s", node, uu);
        }
        fputc('\n', truth);
    }
    free(jbuf);
    free(tbuf);
    free(p);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *format = "json";
    double hours = 24;
    int jobs = 1, from = 0, to = -1;
    GPUS = 1000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-o") && v)
            dir = argv[++i];
        else if (!strcmp(a, "--gpus") && v)
            GPUS = atoi(argv[++i]);
        else if (!strcmp(a, "--hours") && v)
            hours = atof(argv[++i]);
        else if (!strcmp(a, "--format") && v)
            format = argv[++i];
        else if (!strcmp(a, "--jobs") && v)
            jobs = atoi(argv[++i]);
        else if (!strcmp(a, "--seed") && v)
            SEED = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--start") && v)
            T0 = atoll(argv[++i]);
        else if (!strcmp(a, "--nodes") && v && sscanf(argv[i + 1], "%d:%d", &from, &to) == 2)
            i++;
        else {
            fprintf(stderr, "usage: joules-perf-genfleet -o DIR [--gpus N] [--hours H] "
                            "[--format json|text|both] [--nodes A:B] [--jobs N] [--seed S] "
                            "[--start UNIX_S]\n");
            return 2;
        }
    }
    SPAN = (long)llround(hours * 3600);
    if (!dir || GPUS < 1 || SPAN < 60 || jobs < 1 || T0 % 3600) {
        fprintf(stderr, "joules-perf-genfleet: -o DIR, --gpus >= 1, --hours giving a minute, "
                        "--start on the hour\n");
        return 2;
    }
    int want_json = !strcmp(format, "json") || !strcmp(format, "both");
    int want_text = !strcmp(format, "text") || !strcmp(format, "both");
    NODES = (GPUS + GPN - 1) / GPN;
    if (to < 0 || to > NODES)
        to = NODES;
    if (mkdirs(dir) != 0) {
        perror(dir);
        return 1;
    }
    char tdir[4096];
    snprintf(tdir, sizeof tdir, "%s/.truth", dir);
    mkdirs(tdir);
    pid_t *pids = calloc((size_t)jobs, sizeof *pids);
    for (int j = 0; j < jobs; j++) {
        pid_t pid = fork();
        if (pid == 0) {
            char tp[4200];
            snprintf(tp, sizeof tp, "%s/%d.tsv", tdir, j);
            FILE *truth = fopen(tp, "w");
            for (int n = from + j; n < to; n += jobs)
                if (!truth || write_node(dir, n, want_json, want_text, truth) != 0) {
                    perror("joules-perf-genfleet");
                    _exit(1);
                }
            _exit(fclose(truth) != 0);
        }
        pids[j] = pid;
    }
    int failed = 0;
    for (int j = 0; j < jobs; j++) {
        int status = 0;
        if (pids[j] < 0 || waitpid(pids[j], &status, 0) < 0 || !WIFEXITED(status) ||
            WEXITSTATUS(status))
            failed = 1;
    }
    free(pids);
    if (failed)
        return 1;
    /* truth.json: every writer's pods, sorted by name */
    char tp[4200];
    snprintf(tp, sizeof tp, "%s/truth.json", dir);
    FILE *out = fopen(tp, "w");
    if (!out)
        return 1;
    double total = 0;
    size_t n_pods = 0;
    fprintf(out, "{\"gpus\": %d, \"nodes\": %d, \"hours\": %g, \"start\": %lld, \"pods\": {", GPUS,
            NODES, hours, T0);
    for (int j = 0; j < jobs; j++) {
        char p[4200], line[8192];
        snprintf(p, sizeof p, "%s/%d.tsv", tdir, j);
        FILE *f = fopen(p, "r");
        while (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            char *f0 = strtok(line, "\t"), *f1 = strtok(NULL, "\t"), *f2 = strtok(NULL, "\t"),
                 *f3 = strtok(NULL, "\t"), *f4 = strtok(NULL, "\t");
            (void)f1;
            if (!f0 || !f4)
                continue;
            fprintf(out, "%s\n \"%s\": {\"first\": %s, \"last\": %s, \"energy_j\": %s, \"gpus\": [",
                    n_pods ? "," : "", f0, f2, f3, f4);
            int k = 0;
            for (char *g = strtok(NULL, "\t"); g; g = strtok(NULL, "\t"))
                fprintf(out, "%s\"%s\"", k++ ? ", " : "", g);
            fprintf(out, "]}");
            total += atof(f4);
            n_pods++;
        }
        if (f)
            fclose(f);
        remove(p);
    }
    fprintf(out, "},\n \"total_energy_j\": %.6f}\n", total);
    rmdir(tdir);
    if (fclose(out) != 0)
        return 1;
    fprintf(stderr,
            "joules-perf-genfleet: %d GPUs (nodes %d..%d of %d), %g h, %zu pods, %.3f kWh "
            "in pods\n",
            GPUS, from, to - 1, NODES, hours, n_pods, total / 3.6e6);
    return 0;
}
