/* Ant-colony foraging (sim/behave/forage.c). */
#ifndef TH_SIM_FORAGE_H
#define TH_SIM_FORAGE_H

#include "sim/core/world.h"

/* sim/behave/forage.c: ant-colony foraging (TH_GOAL_FORAGE). */
struct th_hasher;
/* Check a def's forage parameters against the world (th_goal_setup's FORAGE case). */
bool th_forage_check(const th_world *w, const th_goal_def *g, th_error *err);
/* Make crowd `crowd`'s colony: pheromone grid, food, and with a map the nest's destination
 * field (so call between steps). NULL with `err` filled. */
struct th_colony *th_forage_create(th_world *w, const th_goal_def *g, th_error *err);
void th_forage_free(struct th_colony *col);
/* The colony's parameters, defaults filled in, food sources its own copy. */
const th_forage_def *th_forage_def_of(const struct th_colony *col);
void th_forage_agent_added(th_world *w, th_agent_id id, th_vec2 v);
/* Steering: home down the nest field while carrying, else along the heading. */
bool th_forage_direction(const th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p,
                         th_vec2 *dir);
/* Integration: a searching ant senses ahead and turns (trail, food or random drift). */
void th_forage_moved(th_world *w, th_agent_id id, const th_crowd_rt *c, th_vec2 p, th_vec2 v);
/* Bookkeeping (serial): evaporation, then pickups, drops and deposits in storage order (over
 * several ranks: every rank's, exchanged, with the pickups replayed in global storage order). */
void th_forage_update(th_world *w);
/* The exchange buffers of th_forage_update over several ranks (world destruction). */
void th_forage_replay_free(th_world *w);
/* Colony state into the world hash. */
void th_forage_hash(const th_world *w, struct th_hasher *h);

#endif
