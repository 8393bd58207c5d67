/* sim/dist/dist.h for builds without MPI: one rank, every exchange a no-op. A world def that
 * asks for ranks is refused. */
#include <string.h>

#include "sim/core/world.h"
#include "sim/dist/dist.h"

bool th_dist_create(th_world *w, const struct th_dist_def *def, th_error *err) {
    (void)w;
    if (!def) return true;
    th_error_set(err, TH_ERR_STATE,
                 "this build of throng has no MPI: reconfigure with -DTHRONG_MPI=ON to share a "
                 "world between processes");
    return false;
}

void th_dist_destroy(th_world *w) { (void)w; }
int th_dist_rank(const th_world *w) {
    (void)w;
    return 0;
}
int th_dist_ranks(const th_world *w) {
    (void)w;
    return 1;
}
bool th_dist_owns(th_world *w, th_vec2 p) {
    (void)w;
    (void)p;
    return true;
}
void th_dist_migrate(th_world *w) { (void)w; }
void th_dist_ghosts(th_world *w) { (void)w; }
void th_dist_ghost_floats(th_world *w, float *x, float *y) {
    (void)w;
    (void)x;
    (void)y;
}
void th_dist_ghost_records(th_world *w, size_t per, th_dist_pack_fn pack, th_dist_unpack_fn unpack,
                           void *ctx) {
    (void)w;
    (void)per;
    (void)pack;
    (void)unpack;
    (void)ctx;
}
void th_dist_gather_u64(const th_world *w, const uint64_t *mine, uint32_t n, uint64_t *all) {
    (void)w;
    if (n) memcpy(all, mine, n * sizeof *mine);
}
void th_dist_sum_u64(th_world *w, uint64_t *v, uint32_t n) {
    (void)w;
    (void)v;
    (void)n;
}
void th_dist_sum_u32(th_world *w, uint32_t *v, uint32_t n) {
    (void)w;
    (void)v;
    (void)n;
}
void th_dist_max_f32(th_world *w, float *v, uint32_t n) {
    (void)w;
    (void)v;
    (void)n;
}
bool th_dist_any(th_world *w, bool v) {
    (void)w;
    return v;
}
void th_dist_or_u32(th_world *w, uint32_t *v, uint32_t n) {
    (void)w;
    (void)v;
    (void)n;
}
void th_dist_count_sent(th_world *w, uint64_t bytes) {
    (void)w;
    (void)bytes;
}
void th_dist_set_hash_round(th_world *w, uint32_t slots) {
    (void)w;
    (void)slots;
}
uint64_t th_dist_hash(const th_world *w, void (*head)(const th_world *, struct th_hasher *),
                      void (*tail)(const th_world *, struct th_hasher *)) {
    (void)w;
    (void)head;
    (void)tail;
    return 0;
}
bool th_dist_check(const th_world *w, th_error *err) {
    (void)w;
    (void)err;
    return true;
}
bool th_dist_same_goal_calls(const th_world *w, th_error *err) {
    (void)w;
    (void)err;
    return true;
}
