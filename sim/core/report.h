/* The run history (sim/core/report.c). */
#ifndef TH_SIM_REPORT_H
#define TH_SIM_REPORT_H

#include "sim/core/world.h"

/* sim/core/report.c: the run history. th_report_reserve sizes it with the agent arrays (worlds with
 * a map only); th_report_update records what changed, in the history phase. */
void th_report_free(th_world *w);
bool th_report_reserve(th_world *w, uint32_t keep, uint32_t cap);
void th_report_update(th_world *w);

#endif
