/* The public API as a user sees it: the umbrella header compiles on its own
 * (no two headers define the same name) and links. */
#include "joules/joules.h"
#include "test.h"

TEST(umbrella_header_links)
{
    CHECK_STR(jl_status_name(JL_OK), "ok");
    CHECK(jl_figure_lookup("energy_per_token_j") == JL_FIG_ENERGY_PER_TOKEN_J);
    CHECK_STR(jl_check_level_name(JL_CHECK_FAIL), "fail");
}

int main(void)
{
    RUN(umbrella_header_links);
    TEST_MAIN_END();
}
