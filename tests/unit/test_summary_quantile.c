/* Percentiles: numpy's default ("linear") method, by quickselect. Expected
 * values were computed with numpy 1.24 (np.percentile on float64) and are
 * hard-coded here. */
#include <time.h>

#include "summary/summary_internal.h"
#include "test.h"
#include "unit/test_summary_fixture.h"

static const double Q4[4] = {0.5, 0.9, 0.95, 0.99};

TEST(numpy_values_float32)
{
    /* x = np.array([...], dtype=np.float32).astype(np.float64)
     * np.percentile(x, [50, 90, 95, 99]) */
    float x[] = {0.0071f, 0.0065f, 0.0123f, 0.0049f, 0.0066f, 0.0302f,
                 0.0066f, 0.0081f, 0.0059f, 0.0110f, 0.0072f};
    double o[4];
    jl__quantiles_f(x, 11, Q4, 4, o);
    CHECK_NEAR(o[0], 0.0071000000461935997, 0, 0);
    CHECK_NEAR(o[1], 0.012299999594688416, 0, 0);
    CHECK_NEAR(o[2], 0.021250000223517418, 0, 0);
    CHECK_NEAR(o[3], 0.028410000726580627, 0, 0);
}

TEST(numpy_values_duplicates)
{
    double y[] = {3.0, 1.0, 2.0, 2.0, 10.0, 7.0, 7.0, 7.0, 0.5};
    double o[4];
    jl__quantiles_d(y, 9, Q4, 4, o);
    CHECK_NEAR(o[0], 3, 0, 0);
    CHECK_NEAR(o[1], 7.6000000000000005, 0, 0);
    CHECK_NEAR(o[2], 8.7999999999999989, 0, 0);
    CHECK_NEAR(o[3], 9.7599999999999998, 0, 0);
}

TEST(small_n)
{
    double two[] = {4.0, 1.0}, o[4];
    jl__quantiles_d(two, 2, Q4, 4, o);
    CHECK_NEAR(o[0], 2.5, 0, 0);
    CHECK_NEAR(o[1], 3.7, 0, 1e-15);
    CHECK_NEAR(o[2], 3.85, 0, 1e-15);
    CHECK_NEAR(o[3], 3.97, 0, 1e-15);
    double one[] = {4.0};
    jl__quantiles_d(one, 1, Q4, 4, o);
    CHECK_NEAR(o[0], 4, 0, 0);
    CHECK_NEAR(o[3], 4, 0, 0);
    jl__quantiles_d(one, 0, Q4, 4, o);
    CHECK_NAN(o[0]);
    double q1[] = {1.0, 0.0};
    double v[] = {5, 3, 9, 1};
    jl__quantiles_d(v, 4, q1, 2, o); /* not ascending: still right */
    CHECK_NEAR(o[0], 9, 0, 0);
    CHECK_NEAR(o[1], 1, 0, 0);
    double w[] = {5, 3, 9, 1, 7};
    CHECK_NEAR(jl__kth_d(w, 5, 1), 3, 0, 0);
    CHECK_NAN(jl__kth_d(w, 5, 5));
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Against a full sort on random data with many ties, and 10^7 samples in
 * well under a second. */
TEST(random_against_sort_and_speed)
{
    size_t n = 10000000;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    CHECK(x && y);
    if (!x || !y) {
        free(x);
        free(y);
        return;
    }
    unsigned long long st = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        x[i] = (float)((st >> 11) % 100000) * 1e-6f; /* ties galore */
    }
    memcpy(y, x, n * sizeof *x);
    double o[4];
    clock_t c0 = clock();
    jl__quantiles_f(x, n, Q4, 4, o);
    double secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    fprintf(stderr, "quantiles of 1e7 floats: %.3f s\n", secs);
    CHECK(secs < 2.0);
    qsort(y, n, sizeof *y, cmp_float);
    for (int j = 0; j < 4; j++) {
        double h = (double)(n - 1) * Q4[j];
        size_t lo = (size_t)h;
        double g = h - (double)lo, a = y[lo], b = y[lo + 1], d = b - a;
        double want = g >= 0.5 ? b - d * (1 - g) : a + d * g;
        CHECK_NEAR(o[j], want, 0, 0);
    }
    /* sorted and reverse-sorted input must not go quadratic */
    c0 = clock();
    jl__quantiles_f(y, n, Q4, 4, o);
    for (size_t i = 0; i < n / 2; i++) {
        float t = y[i];
        y[i] = y[n - 1 - i];
        y[n - 1 - i] = t;
    }
    jl__quantiles_f(y, n, Q4, 4, o);
    secs = (double)(clock() - c0) / CLOCKS_PER_SEC;
    CHECK(secs < 4.0);
    free(x);
    free(y);
}

/* The histogram steps for large float arrays (from 8,192 samples in
 * memory, from 32,768 with the caller's top-16-bit counts) must pick the same order statistics as a full sort on data that
 * is spread over many buckets, piled into one bucket, negative, zero of
 * both signs (equal, as for quickselect), or all equal; with quantiles at 0 and 1, out of order, and
 * sharing ranks. The array stays a permutation of its input. */
static double sorted_quantile(const float *y, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    if (h >= (double)(n - 1))
        return y[n - 1];
    size_t lo = (size_t)h;
    double g = h - (double)lo, a = y[lo], b = y[lo + 1], d = b - a;
    return g >= 0.5 ? b - d * (1 - g) : a + d * g;
}

TEST(histogram_select_against_sort)
{
    const size_t sizes[] = {8191, 8192, 32767, 32768, 40001, 300000};
    const double qs[][6] = {
        {0.5, 0.9, 0.95, 0.99, -1},
        {0.0, 1.0, -1},
        {0.99, 0.5, 0.5, 0.01, -1},
        {1e-9, 0.999999, 0.25, 0.75, 0.3333, -1},
    };
    unsigned long long st = 0x9E3779B97F4A7C15ULL;
    for (int shape = 0; shape < 7; shape++) {
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y),
                  *z = malloc(n * sizeof *z);
            CHECK(x && y && z);
            if (!x || !y || !z) {
                free(x);
                free(y);
                free(z);
                return;
            }
            for (size_t i = 0; i < n; i++) {
                st ^= st << 13;
                st ^= st >> 7;
                st ^= st << 17;
                double u = (double)(st >> 11) / 9007199254740992.0;
                switch (shape) {
                case 0: x[i] = (float)(0.01 + 0.05 * u * u); break;   /* ITL-like */
                case 1: x[i] = 1.0f + (float)(st % 7) * 1e-7f; break; /* one bucket */
                case 2: x[i] = (float)((u - 0.5) * 1e6); break;       /* signs */
                case 3: x[i] = (st & 1) ? 0.0f : -0.0f; break;        /* zeros */
                case 4: x[i] = (st % 3) ? 0.0f : (float)(u - 0.3); break;
                case 5: x[i] = 42.0f; break;
                default: x[i] = (float)(1e-12 * exp(60.0 * u)); break; /* > 0, 26 decades */
                }
            }
            for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
                double q[6], o[6];
                size_t nq = 0;
                while (qs[k][nq] >= 0) {
                    q[nq] = qs[k][nq];
                    nq++;
                }
                memcpy(y, x, n * sizeof *x);
                memcpy(z, x, n * sizeof *x);
                jl__quantiles_f(z, n, q, nq, o);
                /* the caller's counts (summarize's ITL loop) give the same */
                double oh[6];
                uint32_t *hist = calloc(JL__RADIX_BUCKETS, sizeof *hist);
                for (size_t i = 0; hist && i < n; i++)
                    hist[jl__fkey(x[i]) >> 16]++;
                memcpy(z, x, n * sizeof *x);
                jl__quantiles_f_hist(z, n, hist, q, nq, oh);
                for (size_t j = 0; j < nq; j++)
                    CHECK_NEAR(oh[j], o[j], 0, 0);
                qsort(y, n, sizeof *y, cmp_float);
                for (size_t j = 0; j < nq; j++) {
                    double want = sorted_quantile(y, n, q[j]);
                    CHECK_NEAR(o[j], want, 0, 0);
                }
                /* still a permutation of the input */
                qsort(z, n, sizeof *z, cmp_float);
                int same = 1;
                for (size_t i = 0; i < n; i++)
                    if (!(y[i] == z[i]))
                        same = 0;
                CHECK(same);
            }
            free(x);
            free(y);
            free(z);
        }
    }
}

/* Through jl_summarize: ITL over samples of successful requests only when
 * itl/request is present; all finite samples otherwise. */
TEST(itl_successful_requests)
{
    jl_run *r = fx_new("llm", 1, 1);
    double t[] = {0, 10}, w[] = {100, 100};
    fx_power(r, 2, t, w, NULL);
    double arr[] = {0, 0, 0}, ft[] = {1, 2, 3}, fin[] = {5, NAN, 9};
    int32_t out[] = {3, 3, 3};
    fx_requests(r, 3, arr, ft, fin, out);
    float sec[] = {1, 2, 100, 200, 3, NAN, 4};
    int32_t req[] = {0, 0, 1, 1, 2, 2, 2};
    fx_itl(r, 7, sec, req);
    jl_summary *s = fx_sum(r);
    /* samples 1, 2, 3, 4 -> median 2.5, p90 3.7 */
    CHECK_NEAR(FIG(s, MEDIAN_ITL_S), 2.5, 0, 0);
    CHECK_NEAR(FIG(s, P90_ITL_S), 3.7, 0, 1e-15);
    jl_summary_free(s);
    free(r->itl_request);
    r->itl_request = NULL;
    s = fx_sum(r);
    /* all finite samples: 1, 2, 3, 4, 100, 200 -> median 3.5 */
    CHECK_NEAR(FIG(s, MEDIAN_ITL_S), 3.5, 0, 0);
    jl_summary_free(s);
    jl_run_free(r);
}

int main(void)
{
    RUN(numpy_values_float32);
    RUN(numpy_values_duplicates);
    RUN(small_n);
    RUN(random_against_sort_and_speed);
    RUN(histogram_select_against_sort);
    RUN(itl_successful_requests);
    TEST_MAIN_END();
}
