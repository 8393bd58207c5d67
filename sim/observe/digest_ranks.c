/* Whether a world can be split over its ranks (th_world_dist_check, MPI builds): the same
 * calls and the same world on every rank, compared by their digests (sim/observe/digest.c),
 * then enough grid rows for the ranks (th_dist_check). */
#include <stdio.h>
#include <string.h>

#include "engine/alloc.h"
#include "sim/core/world.h"
#include "sim/dist/dist.h"
#include "sim/dist/dist_serial.h"
#include "sim/observe/digest.h"
#include "throng/dist.h"

/* Every rank's digest of its world, gathered on every rank: ranks that built
 * different worlds would make different collective calls (or the same ones with other
 * counts) and wait for each other for ever, or run to inconsistent totals. Every rank finds
 * the same first rank that differs from rank 0 and the parts it differs in. */
static bool same_worlds(const th_world *w, th_error *err) {
    const int ranks = th_dist_ranks(w);
    uint64_t mine[TH_DIGEST_PARTS];
    th_world_digest(w, mine);
    uint64_t *all = th_calloc((size_t)ranks * TH_DIGEST_PARTS, sizeof *all);
    if (!all) th_dist_out_of_memory(w, "comparing the ranks' worlds");
    th_dist_gather_u64(w, mine, TH_DIGEST_PARTS, all);
    bool same = true;
    for (int r = 1; same && r < ranks; r++) {
        const uint64_t *other = all + (size_t)r * TH_DIGEST_PARTS;
        if (memcmp(other, all, TH_DIGEST_PARTS * sizeof *all) == 0) continue;
        same = false;
        /* "its seed", "its seed and its agents", "its map, its crowds and its agents" */
        char parts[384] = "";
        size_t at = 0;
        uint32_t listed = 0, differ = 0;
        for (uint32_t p = 0; p < TH_DIGEST_PARTS; p++) differ += other[p] != all[p];
        for (uint32_t p = 0; p < TH_DIGEST_PARTS && at < sizeof parts; p++) {
            if (other[p] == all[p]) continue;
            const char *sep = listed == 0 ? "" : listed + 1 == differ ? " and " : ", ";
            int n =
                snprintf(parts + at, sizeof parts - at, "%sits %s", sep, th_digest_part_name(p));
            if (n > 0) at += (size_t)n;
            listed++;
        }
        th_error_set(err, TH_ERR_STATE,
                     "the MPI ranks built different worlds: rank %d's differs from rank 0's in "
                     "%s",
                     r, parts);
    }
    th_free(all);
    return same;
}

bool th_world_dist_check(const th_world *w, th_error *err) {
    if (!w) {
        th_error_set(err, TH_ERR_INVALID, "no world");
        return false;
    }
    /* First, on every rank: a rank whose world is too thin for the ranks returns below, and
     * only the same world on every rank fails there on every rank alike. */
    if (th_dist_ranks(w) > 1 && (!th_dist_same_goal_calls(w, err) || !same_worlds(w, err)))
        return false;
    return th_dist_check(w, err);
}
