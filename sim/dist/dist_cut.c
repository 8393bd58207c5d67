/* The strips' cut from a row histogram: pure arithmetic, in every build so that it is tested
 * without MPI (tests/test_dist_cut.c). */
#include "sim/dist/dist.h"

void th_dist_cut(const uint32_t *hist, int32_t ny, int ranks, int32_t min_rows, int32_t *row_lo) {
    uint64_t total = 0;
    for (int32_t y = 0; y < ny; y++) total += hist[y];
    uint64_t prefix = 0;
    int32_t y = 0;
    row_lo[0] = 0;
    for (int r = 1; r < ranks; r++) {
        /* The first row where the count so far would pass r / ranks of all agents. */
        const uint64_t want = total * (uint64_t)r / (uint64_t)ranks;
        while (y < ny && prefix + hist[y] <= want) prefix += hist[y++];
        int32_t lo = y;
        /* At least min_rows below (this strip's predecessor) and room for min_rows in each strip
         * still to come. */
        if (lo < row_lo[r - 1] + min_rows) lo = row_lo[r - 1] + min_rows;
        if (lo > ny - (ranks - r) * min_rows) lo = ny - (ranks - r) * min_rows;
        row_lo[r] = lo;
    }
    row_lo[ranks] = ny;
}
