/* The two collectives that predators and congestion-aware fields add to a step under several
 * MPI ranks, alone (no world, nothing else running in the ranks): the floor under what a step
 * pays for them, apart from waiting for a late rank.
 *
 *   predators: th_dist_gather_all of 16 B records (MPI_Allgather of byte counts, then
 *              MPI_Allgatherv), for 1 .. 4,096 predators per rank;
 *   congestion: MPI_Allreduce(SUM) of one uint32 per map cell, from the exits scene's 50 x 34
 *              map to 2,048 x 2,048.
 *
 * Not built by CMake (it is a measurement, not part of throng):
 *   mpicc -O2 bench/mpi_exchange_cost.c -o /tmp/mpi_exchange_cost
 *   OMPI_MCA_mpi_yield_when_idle=1 mpirun --oversubscribe --bind-to none -np 2 \
 *       /tmp/mpi_exchange_cost */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Each call after a barrier, so that every timing starts with all ranks inside: least and mean
 * over `reps`, in milliseconds. */
static void report(int rank, const char *what, int n, long bytes, const double *t, int reps) {
    double best = t[0], sum = 0.0;
    for (int r = 0; r < reps; r++) {
        if (t[r] < best) best = t[r];
        sum += t[r];
    }
    if (rank == 0)
        printf("%-10s %8d %10ld B  least %8.4f ms  mean %8.4f ms\n", what, n, bytes, best * 1e3,
               sum / reps * 1e3);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, R;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &R);
    enum { REPS = 400 };
    static double t[REPS];
    if (rank == 0) printf("%d ranks\n%-10s %8s %12s\n", R, "exchange", "items", "per rank");

    const int preds[] = {1, 2, 16, 256, 4096};
    for (size_t s = 0; s < sizeof preds / sizeof preds[0]; s++) {
        const int bytes = preds[s] * 16;
        char *mine = calloc((size_t)bytes, 1), *all = calloc((size_t)bytes * (size_t)R, 1);
        int *counts = calloc((size_t)R, sizeof *counts),
            *displs = calloc((size_t)R, sizeof *displs);
        if (!mine || !all || !counts || !displs) MPI_Abort(MPI_COMM_WORLD, 1);
        for (int r = 0; r < REPS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            int b = bytes;
            MPI_Allgather(&b, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
            int off = 0;
            for (int q = 0; q < R; q++) {
                displs[q] = off;
                off += counts[q];
            }
            MPI_Allgatherv(mine, b, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
            t[r] = MPI_Wtime() - t0;
        }
        report(rank, "predators", preds[s], bytes, t, REPS);
        free(mine);
        free(all);
        free(counts);
        free(displs);
    }

    const int side[][2] = {{50, 34}, {256, 256}, {512, 512}, {1024, 1024}, {2048, 2048}};
    for (size_t s = 0; s < sizeof side / sizeof side[0]; s++) {
        const int cells = side[s][0] * side[s][1];
        uint32_t *v = calloc((size_t)cells, sizeof *v);
        if (!v) MPI_Abort(MPI_COMM_WORLD, 1);
        const int reps = cells > 1000000 ? 40 : REPS;
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            MPI_Allreduce(MPI_IN_PLACE, v, cells, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
            t[r] = MPI_Wtime() - t0;
        }
        report(rank, "congestion", cells, (long)cells * 4, t, reps);
        free(v);
    }
    MPI_Finalize();
    return 0;
}
