/* The run history (sim/observe/report.c). */
#ifndef TH_SIM_REPORT_H
#define TH_SIM_REPORT_H

#include "sim/core/world.h"
#include "sim/observe/stall.h"

/* sim/observe/report.c: the run history. th_report_reserve creates it with the world and sizes its
 * sheltering times with the agent arrays (worlds with a map only); th_report_update records what
 * changed, in the history phase. */
void th_report_free(th_world *w);
bool th_report_reserve(th_world *w, uint32_t keep, uint32_t cap);
void th_report_update(th_world *w);

/* The stall figures over the run (written by sim/observe/stall.c); NULL only before the world's
 * history is first reserved. */
th_stall_run *th_report_stalls(th_world *w);
const th_stall_run *th_report_stalls_of(const th_world *w);

#endif
