/* Exit choice (sim/behave/choice.c, docs/goals.md "Exit choice"): which bunker each agent of a
 * fleeing crowd walks to. A crowd that lists exits (th_crowd_def.exit_choice) gives each agent
 * one of them, drawn by the weights when it starts to move and, with social influence, by the
 * agents near it already heading to each; th_world_set_agent_exit sets one agent's by hand.
 *
 * Per id, exit_of_id holds 0 (the nearest open bunker), b + 1 (bunker b), or TH_EXIT_PENDING
 * (chosen when the agent starts). Choices that depend on no one (no social influence) are drawn
 * when the agent is added; the others in the decision pass, after the grid part: one serial
 * pass in storage order, reading only the choices made in earlier steps, so its result does
 * not depend on the order or the thread count. */
#ifndef TH_SIM_CHOICE_H
#define TH_SIM_CHOICE_H

#include "sim/core/world.h"

#define TH_EXIT_PENDING 0x7Fu /* exit_of_id: to be chosen when the agent starts */
#define TH_EXIT_FRESH   0x80u /* exit_of_id bit: chosen in this pass (not yet seen by others) */

/* A crowd's exit choice checked and copied into the world (sim/step/crowd.c, before the crowd is
 * committed); def->exit_choice is pointed at the world's copy. False with `err` filled. */
bool th_choice_setup(th_world *w, uint32_t crowd, th_crowd_def *def, th_error *err);
/* A new agent of `crowd`: its exit drawn now, or marked pending. */
void th_choice_agent_added(th_world *w, uint32_t crowd, th_agent_id id);
/* th_world_set_agent_exit past its checks of the call (also from inside a step: a goal given
 * at a step, sim/behave/own_goal.c); it allocates only the per-id exits the first time, which
 * th_choice_want_exits does ahead. */
bool th_choice_set_exit(th_world *w, th_agent_id id, th_bunker_id exit, th_error *err);
bool th_choice_want_exits(th_world *w);
/* The decision pass (step, after the grid part). */
void th_choice_update(th_world *w);

/* The river map agent `slot` walks down: its own exit's while that is open, else the nearest
 * open bunker's. */
static inline const th_nav_field *th_choice_field(const th_world *w, uint32_t slot) {
    if (w->exit_of_id) {
        const uint32_t e = w->exit_of_id[slot];
        if (e >= 1u && e <= w->nav.bunker_count) {
            const th_bunker *b = &w->nav.bunker[e - 1u];
            if (!b->destroyed && !b->full) return &w->nav.field[e - 1u];
        }
    }
    return &w->nav.combined.nearest;
}

#endif
