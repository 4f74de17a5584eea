/* Fuzz target: grid-intensity / PUE CSV series (Electricity Maps,
 * WattTime, time,value; docs/accounting.md) via
 * jl_tseries_load_csv_buffer(), average and marginal, then integrating a
 * short power trace against the series and looking for its cleanest hour. */
#include <math.h>

#include "fuzz_common.h"
#include "joules/account.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    for (int kind = 0; kind < 2; kind++) {
        jl_tseries *s = NULL;
        jl_error *err = NULL;
        jl_status st = jl_tseries_load_csv_buffer((const char *)data, size, "series.csv",
                                                  (jl_intensity_kind)kind, NULL, &s, &err);
        if (st == JL_OK) {
            jl_tseries *one = jl_tseries_constant(1);
            double t[] = {0, 10, 3600.5, 7200}, w[] = {100, 400, 250, 0};
            jl_emissions e;
            jl_error *e2 = NULL;
            if (!one)
                abort();
            double t0 = jl_tseries_count(s) ? jl_tseries_mean(s) : 0;
            (void)jl_emissions_integrate(t, w, 4, isfinite(t0) ? t0 : 0, one, s, &e, &e2);
            jl_error_free(e2);
            double at;
            (void)jl_tseries_cleanest(s, -INFINITY, INFINITY, 3600, &at);
            (void)jl_tseries_at(s, 1.8e9);
            jl_tseries_free(one);
            jl_tseries_free(s);
        } else if (!err || !err->message) {
            abort();
        }
        jl_error_free(err);
    }
    return 0;
}
