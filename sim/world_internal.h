/* The world's private layout, shared by the sim/ sources and by white-box tests. */
#ifndef TH_WORLD_INTERNAL_H
#define TH_WORLD_INTERNAL_H

#include "../engine/grid.h"
#include "../engine/jobs.h"
#include "../engine/profile.h"
#include "throng.h"

/* Agents per parallel chunk. It fixes how work is cut and so every per-chunk partial result;
 * it must not depend on the thread count (determinism). 512 agents are ~50-100 us of steering:
 * small enough to balance two to eight workers, large enough that claiming is free. */
#define TH_CHUNK 512u

/* Agent arrays carry this many spare elements past capacity, so the vectorised neighbour loop
 * may load a whole block of 8 at the end of a cell range (the extra lanes are masked off). */
#define TH_SIMD_PAD 8u

/* One buffer of agent state, structure of arrays, in storage (cell-sorted) order. */
typedef struct th_agents {
    float *px, *py;
    float *vx, *vy;
    uint16_t *crowd;
    th_agent_id *id;
} th_agents;

/* Per-crowd values the steering loop needs, derived once from the def. */
typedef struct th_crowd_rt {
    float neighbor_r2;   /* neighbour radius squared */
    float separation_r2; /* separation radius squared */
    float sense_r2;      /* max of the two: nothing farther is looked at */
    float cos_half_fov;  /* cosine of half the view angle */
    bool omni;           /* view angle of 360 degrees: the cone test is skipped */
    float w_sep, w_ali, w_coh;
    float max_speed, max_force;
} th_crowd_rt;

/* Per-chunk partial sums, combined in chunk order by the bookkeeping phase. */
typedef struct th_chunk_stats {
    uint64_t neighbors;
    uint64_t candidates;
} th_chunk_stats;

struct th_world {
    th_world_def def;
    th_pool *pool;
    uint32_t workers;

    th_crowd_def crowd_def[TH_MAX_CROWDS];
    char crowd_name[TH_MAX_CROWDS][64];
    th_crowd_rt crowd_rt[TH_MAX_CROWDS];
    uint32_t crowd_count;
    float interaction_radius; /* largest radius over crowds: the grid cell size is at least this */

    th_grid grid;
    bool wrap;

    /* Agent state: buf[cur] is the state after the last step. A step gathers it into
     * buf[cur ^ 1] in cell order, flips cur, then updates that buffer in place: steering reads
     * everyone's step-t values and writes only accel; integration then touches only each
     * agent's own slot. */
    th_agents buf[2];
    uint32_t cur;
    uint32_t count;    /* agents alive */
    uint32_t capacity; /* agents the arrays hold */

    float *ax, *ay;      /* steering acceleration of the last step, storage order */
    uint32_t *cell;      /* grid cell of each agent, storage order */
    uint16_t *neighbors; /* same-crowd agents seen in the last step, storage order */

    uint32_t next_id;     /* ids handed out so far */
    uint32_t *slot_of_id; /* id -> storage index, capacity entries */

    th_chunk_stats *chunk_stats; /* one per TH_CHUNK agents of capacity */

    uint64_t step;
    th_world_stats stats;
    th_profiler prof;
};

/* Compute accelerations for storage indices [begin, end) of buf[cur] (sim/boids.c). */
void th_boids_steer(th_world *w, uint32_t begin, uint32_t end, th_chunk_stats *stats);

#endif
