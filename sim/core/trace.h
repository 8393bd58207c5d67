/* Phase tracing, internal to sim/: the step marks phase boundaries, the job pool reports each
 * worker's share of every parallel_for, and sim/core/trace.c turns both into th_trace_span records.
 * The public face (th_world_trace_start / _spans / _stop) is in throng.h. */
#ifndef TH_TRACE_H
#define TH_TRACE_H

#include <stdint.h>

#include "sim/core/world.h"

/* The step enters `phase` at `now_ns` (only called while w->trace is set). Worker 0, the
 * stepping thread, opens its span of the phase here. */
void th_trace_enter(th_world *w, th_phase phase, uint64_t now_ns);

/* The step leaves the phase it entered last at `now_ns`. Worker 0's span ends here when the
 * phase ran serially; when worker 0 ran chunks of a parallel_for, it ends with its last chunk,
 * so that time it spent waiting at the barrier shows as a gap, as it does for the others. */
void th_trace_leave(th_world *w, uint64_t now_ns);

#endif
