/* Validation over several MPI ranks (builds with THRONG_MPI=ON; run under mpirun, 3 ranks or
 * more: tests/CMakeLists.txt). Each case breaks the world on purpose, on chosen ranks, through
 * the internal layout (as test_validate does in one process), and checks that every rank ends
 * with the same violation: the one one process names for the same fault (a reference world
 * without ranks, broken the same way by agent id, on every rank), or, for what only ranks can
 * break (an agent held by two ranks or by none, ranks making different calls, replicated
 * values going astray), the fault named. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/world.h"
#include "sim/observe/validate.h"
#include "throng/dist.h"

#include "mpi_check.h"

static const struct th_dist_def def_ranks = {.rebalance_every = 16};

/* The evac demo (walls, bunkers, bodies) stepped `steps` times with validation on: over every
 * rank (dist) or in this process alone. */
static th_world *evac(bool dist, int steps) {
    struct th_dist_def d = def_ranks;
    d.comm = MPI_COMM_WORLD;
    th_demo_opts o = {.agents = 1500, .seed = 11, .threads = 1, .dist = dist ? &d : NULL};
    th_error err = {0};
    th_world *w = th_demo_create("evac", &o, &err);
    CHECK(w, "evac: %s", err.message);
    th_world_set_validation(w, true);
    for (int s = 0; s < steps; s++) {
        th_world_step(w);
        CHECK(!th_world_validation_error(w), "step %d: %s", s, th_world_validation_error(w));
    }
    return w;
}

/* The same text on every rank (and present). */
static void same_everywhere(const char *msg) {
    char mine[sizeof(((th_world *)0)->validation_error)] = {0};
    CHECK(msg, "no violation reported");
    snprintf(mine, sizeof mine, "%s", msg);
    char *all = malloc(sizeof mine * (size_t)ranks);
    CHECK(all, "out of memory");
    MPI_Allgather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int r = 0; r < ranks; r++)
        CHECK(strcmp(all + (size_t)r * sizeof mine, mine) == 0, "rank %d reports '%s', I '%s'", r,
              all + (size_t)r * sizeof mine, mine);
    free(all);
}

/* Storage index of agent `id` in w, which must hold it. */
static uint32_t index_of(const th_world *w, th_agent_id id) {
    const uint32_t s = th_id_slot(id);
    CHECK(s < w->id_top && w->slot_of_id[s] < w->count, "agent %u.%u not here", id.index1,
          id.generation);
    return w->slot_of_id[s];
}

/* The first agent each rank holds, as every rank sees them. */
static void first_agents(const th_world *w, th_agent_id *ids) {
    CHECK(w->count > 0, "this rank holds no agent");
    const th_agent_id mine = w->buf[w->cur].id[0];
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, ids, (int)sizeof mine, MPI_BYTE,
                  MPI_COMM_WORLD);
}

typedef void (*fault_fn)(th_world *w, uint32_t k);
static void nan_velocity(th_world *w, uint32_t k) { w->buf[w->cur].vy[k] = NAN; }
static void too_fast(th_world *w, uint32_t k) { w->buf[w->cur].vx[k] = 100.0f; }

/* `fault[r]` (or NULL) applied on rank r to its first agent, and to the same agents of a
 * reference world in one process: th_validate_state names the same violation on every rank,
 * the one the reference names. */
static void as_one_process(const fault_fn *fault, const char *what) {
    th_world *w = evac(true, 30), *one = evac(false, 30);
    th_agent_id *ids = calloc((size_t)ranks, sizeof *ids);
    CHECK(ids, "out of memory");
    first_agents(w, ids);
    for (int r = 0; r < ranks; r++) {
        if (!fault[r]) continue;
        if (r == rank) fault[r](w, 0);
        fault[r](one, index_of(one, ids[r]));
    }
    CHECK(!th_validate_state(w), "%s: no violation found", what);
    CHECK(!th_validate_state(one), "%s: one process found none", what);
    same_everywhere(th_world_validation_error(w));
    CHECK(strcmp(th_world_validation_error(w), th_world_validation_error(one)) == 0,
          "%s: ranks report '%s', one process '%s'", what, th_world_validation_error(w),
          th_world_validation_error(one));
    CHECK(strstr(th_world_validation_error(w), what), "'%s' does not say '%s'",
          th_world_validation_error(w), what);
    free(ids);
    th_world_destroy(one);
    th_world_destroy(w);
}

/* A fault found by the ranks only: every rank reports it, naming `what`. */
static void by_ranks(void (*breakit)(th_world *w), const char *what) {
    th_world *w = evac(true, 30);
    breakit(w);
    CHECK(!th_validate_state(w), "%s: no violation found", what);
    same_everywhere(th_world_validation_error(w));
    CHECK(strstr(th_world_validation_error(w), what), "'%s' does not say '%s'",
          th_world_validation_error(w), what);
    th_world_destroy(w);
}

/* Rank 1 forgets its last agent: alive in the id table, held by no rank. */
static void drop_one(th_world *w) {
    if (rank != 1) return;
    const th_agent_id id = w->buf[w->cur].id[w->count - 1];
    w->slot_of_id[th_id_slot(id)] = UINT32_MAX;
    w->count--;
}

/* Rank 1 stores a copy of rank 0's first agent: one agent held by two ranks. */
static void copy_one(th_world *w) {
    const th_agents *a = &w->buf[w->cur];
    struct {
        float px, py, vx, vy;
        th_agent_id id;
        uint32_t crowd, type;
    } x = {0};
    if (rank == 0) {
        x.px = a->px[0], x.py = a->py[0], x.vx = a->vx[0], x.vy = a->vy[0];
        x.id = a->id[0], x.crowd = a->crowd[0], x.type = a->type[0];
    }
    MPI_Bcast(&x, (int)sizeof x, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank != 1) return;
    /* Over the first ghost, which validation after the step does not read. */
    CHECK(w->count < w->capacity, "no room for a copy");
    th_agents *b = &w->buf[w->cur];
    const uint32_t k = w->count++;
    b->px[k] = x.px, b->py[k] = x.py, b->vx[k] = x.vx, b->vy[k] = x.vy;
    b->id[k] = x.id, b->crowd[k] = (uint16_t)x.crowd, b->type[k] = (uint16_t)x.type;
    w->ax[k] = w->ay[k] = 0.0f;
    w->slot_of_id[th_id_slot(x.id)] = k;
}

/* Rank 2 alone counts one more agent removed. */
static void astray(th_world *w) {
    if (rank == 2) w->stats.removed++;
}

/* Rank 1 asks to remove an agent the others do not: the calls are no longer collective. */
static void diverging_call(th_world *w) {
    if (rank != 1) return;
    th_error err = {0};
    CHECK(th_world_remove_agent(w, w->buf[w->cur].id[0], &err), "%s", err.message);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks < 3) {
        if (rank == 0) fprintf(stderr, "test_mpi_validate: run under mpirun -np 3 or more\n");
        MPI_Finalize();
        return 1;
    }
    fault_fn *fault = calloc((size_t)ranks, sizeof *fault);
    CHECK(fault, "out of memory");

    /* Faults on ranks 1 and 2: rank 1's, first in one process's storage order. */
    fault[1] = nan_velocity;
    fault[2] = too_fast;
    as_one_process(fault, "non-finite");
    /* A fault on the last rank alone. */
    fault[1] = NULL;
    as_one_process(fault, "faster than its crowd");

    /* A violation found earlier in the step wins over a later one on a lower rank. */
    {
        th_world *w = evac(true, 30);
        if (rank == 2) {
            w->validation_failed = true;
            w->validation_phase = TH_VALIDATE_GRID;
            snprintf(w->validation_error, sizeof w->validation_error, "grid fault on rank 2");
        }
        if (rank == 0) nan_velocity(w, 0);
        CHECK(!th_validate_state(w), "no violation found");
        same_everywhere(th_world_validation_error(w));
        CHECK(strcmp(th_world_validation_error(w), "grid fault on rank 2") == 0, "got '%s'",
              th_world_validation_error(w));
        th_world_destroy(w);
    }

    by_ranks(drop_one, "no rank holds it");
    by_ranks(copy_one, "an agent held by two ranks");
    by_ranks(astray, "disagree on the values every rank holds");
    by_ranks(diverging_call, "different calls");

    /* Inside the steps: a fault on one rank stops every rank at the same step. */
    {
        th_world *w = evac(true, 20);
        astray(w);
        th_world_step(w);
        same_everywhere(th_world_validation_error(w));
        CHECK(strncmp(th_world_validation_error(w), "step 21: ", 9) == 0, "got '%s'",
              th_world_validation_error(w));
        th_world_destroy(w);
    }
    free(fault);
    if (rank == 0) printf("test_mpi_validate: every case passed on %d ranks\n", ranks);
    MPI_Finalize();
    return 0;
}
