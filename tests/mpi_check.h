/* Assertions for the test programs that run under mpirun (tests/test_mpi_*.c). Plain main, not
 * the check framework: check forks each test, and a forked child cannot call MPI. A failed
 * assertion prints the rank, the place and the message, and aborts every rank. */
#ifndef TH_TESTS_MPI_CHECK_H
#define TH_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, ranks; /* this process's rank and the rank count (set by main) */

static void fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static void fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rank %d: %s:%d: ", rank, file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

#define CHECK(c, ...)                                    \
    do {                                                 \
        if (!(c)) fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)

#endif
