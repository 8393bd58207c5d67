/* Spawners and exits (sim/scenario/flow.c). */
#ifndef TH_SIM_FLOW_H
#define TH_SIM_FLOW_H

#include "sim/core/world.h"

/* sim/scenario/flow.c: spawners and exits. Everything but th_flow_free and th_flow_reserve needs
 * w->flow. */
typedef struct th_flow th_flow;
void th_flow_free(th_world *w);
/* The agent arrays grew to `cap`, the departure history to `history` entries: grow the
 * spawning scratch and the exit times with them. */
bool th_flow_reserve(th_world *w, uint32_t cap, uint32_t history);
/* Events phase (serial): add the agents the spawners owe, as far as there is room. */
void th_flow_spawn(th_world *w);
/* Integration and contacts: TH_MARK_EXIT + the first exit of the agent's crowd holding p, or 0. */
uint8_t th_flow_exit_mark(const th_world *w, uint32_t crowd, th_vec2 p);
/* th_world_drop_marked: whether `exit`'s flow limit lets one more agent out this step (counted
 * when so); those it holds back stay, in its area. */
bool th_flow_exit_pass(th_world *w, uint32_t exit);
/* The exits' flow limits, th_world_exit_count of them, copied out and back (the replay of
 * departures over ranks advances copies, sim/dist/dist_serial.c). */
void th_flow_exit_limits(const th_world *w, th_door_limit *out);
void th_flow_set_exit_limits(th_world *w, const th_door_limit *in);
/* th_world_drop_marked: one agent left through `exit`. */
void th_flow_exited(th_world *w, uint32_t exit);
/* Spawner and exit counts into the world hash. */
struct th_hasher;
void th_flow_hash(const th_world *w, struct th_hasher *h);
/* How the spawners and the exits were defined, and their counts, into two digests
 * (sim/observe/digest.c). */
void th_flow_digest(const th_world *w, struct th_hasher *spawners, struct th_hasher *exits);
/* Validation: exit counts add up, no spawner ahead of its formula; false with msg filled. */
bool th_flow_validate(const th_world *w, char *msg, size_t cap);

#endif
