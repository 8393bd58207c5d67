/* Bodies (sim/behave/contacts.c): overlap removal after integration, and the contact lists. */
#ifndef TH_SIM_CONTACTS_H
#define TH_SIM_CONTACTS_H

#include "sim/core/step.h"
#include "sim/core/world.h"

/* Largest overlap of two bodies, as a share of the smaller diameter: what the contacts phase
 * brings every overlap under, and what validation accepts (sim/observe/validate.c). */
#define TH_MAX_OVERLAP           0.1f
/* Rounds of overlap removal per step. */
#define TH_CONTACT_ROUNDS        4u
#define TH_CONTACT_MAX_ROUNDS    32u
/* The same after agents were added: bodies dropped at random near the densest packing (a
 * crowd spawned at 6 persons/m2) need a few hundred rounds to come apart. */
#define TH_CONTACT_SETTLE_ROUNDS 512u

/* Bodies (sim/behave/contacts.c): the contacts phase, run after integration when max_radius > 0,
 * over the arrays of the step context. It uses buf[cur ^ 1] as scratch. */
void th_contacts_resolve(const th_step_ctx *x);
/* Insert body j at squared distance d2 into a contact list sorted by (d2, id slot) holding *n of
 * at most TH_CONTACT_LIST entries; the farthest falls off a full list. Equal distances (common
 * where a scene places agents on a lattice) are broken by the agents' id slots, not by storage
 * index: the list, and the order its pushes are summed in, are then the agents' own, whatever
 * order they are stored in. `id` is the agent array's ids, read only on a tie. */
static inline void th_contact_insert(uint32_t *list, float *key, uint32_t *n, const th_agent_id *id,
                                     uint32_t j, float d2) {
    uint32_t at = *n;
    while (at > 0 &&
           (key[at - 1] > d2 || (key[at - 1] == d2 && id[list[at - 1]].index1 > id[j].index1)))
        at--;
    if (at >= TH_CONTACT_LIST) return;
    for (uint32_t k = *n < TH_CONTACT_LIST ? *n : TH_CONTACT_LIST - 1; k > at; k--) {
        key[k] = key[k - 1];
        list[k] = list[k - 1];
    }
    key[at] = d2;
    list[at] = j;
    if (*n < TH_CONTACT_LIST) (*n)++;
}
/* contact_count of an agent whose list the steering phase did not build. */
#define TH_CONTACT_UNLISTED 0xFFu

#endif
