/* The communicator of a distributed world, for sim/ code that makes its own MPI calls (only
 * in builds with THRONG_MPI=ON; everything else goes through sim/dist/dist.h). */
#ifndef TH_SIM_DIST_MPI_H
#define TH_SIM_DIST_MPI_H

#include <mpi.h>

#include "throng/throng.h"

/** The world's own duplicate of the def's communicator (MPI_COMM_SELF for one process). */
MPI_Comm th_dist_comm(const th_world *w);

#endif
