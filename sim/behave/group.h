/* Groups of walkers that keep together (sim/behave/group.c, throng.h "groups", docs/goals.md
 * "Groups"). Once per step, after the grid part, each group measures how far along the way each
 * present member is (the remaining cost of its own field where its goal has one, else the
 * distance along the group's mean walking direction) and gives each a pace: 1 up to `spread`
 * ahead of the last member, falling to 0 at twice that. The pedestrian model scales the
 * member's free speed by it. Parallel over groups: each writes its own record and its own
 * members' paces. */
#ifndef TH_SIM_GROUP_H
#define TH_SIM_GROUP_H

#include "sim/core/world.h"

typedef struct th_group {
    uint32_t first, count; /* its members: groups->member[first, first + count) */
    float spread;          /* metres */
    float stretch;         /* last step: metres from the last present member to the first */
    uint32_t waiting;      /* last step: members slowed down */
} th_group;

struct th_groups {
    th_group *group;
    uint32_t count, cap;
    th_agent_id *member;
    uint32_t member_count, member_cap;
};

/* grid phase, after the exit choice: every group's paces for this step. */
void th_groups_update(th_world *w);
/* world.c: free the groups. */
void th_groups_free(th_world *w);

/* The share of its free speed a walker (id slot `slot`) keeps for its group: 1 outside groups. */
static inline float th_group_pace(const th_world *w, uint32_t slot) {
    return w->groups && w->group_of_id[slot] ? w->group_pace[slot] : 1.0f;
}

#endif
