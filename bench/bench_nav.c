/* Navigation benchmark: field builds, combined rebuild, incremental repair, wall distance, A*,
 * and hierarchical planning (HPA*) of many agents' own paths against A* per agent.
 *
 * A deterministic 1024 x 1024 city: 32-cell blocks split by 6-cell streets, buildings as walls
 * (some destructible), parks of grass (cost 3) and a few swamps (cost 5), 8 bunkers of 3x3
 * cells on street crossings. Prints the best and the median of several runs per measurement.
 *
 *   bench_nav ida [cap] [pairs]
 *     IDA* on the cells against A* on cities of 64, 128 and 256 cells a side (ida_bench).
 *
 *   bench_nav [size] [runs] [threads] [pairs]
 *     size in [64, 4096] (default 1024), runs in [1, 50] (default 7), threads a comma-separated
 *     list of worker counts in [1, 64] (default 1,2 and the number of cores): every parallel
 *     measurement is repeated for each; pairs in [0, 100000] (default 10000): random start and
 *     goal cells planned by HPA* and by plain A* each, then given as many walkers of a world as
 *     their own goals, planned at once and by the world's goal planning (0 skips both).
 *
 * Buildings: the city's four quadrants laid side by side as four levels of a strip, a wall
 * column between each two, joined by glued edges (stairs) across those walls on street rows,
 * and one field from the same goal against one field on the whole city: the same open cells,
 * one level or four. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/alloc.h"
#include "engine/jobs.h"
#include "engine/profile.h"
#include "engine/rng.h"
#include "sim/nav/hpa.h"
#include "sim/nav/nav.h"
#include "throng/plan.h"
#include "throng/throng.h"

enum { BUNKERS = 8, MAX_RUNS = 50, BLOCK = 32, STREET = 6, MAX_THREADS = 64, MAX_LIST = 16 };

/* A comma-separated list of worker counts in [1, MAX_THREADS]; false on anything else. */
static bool parse_threads(const char *text, uint32_t *out, uint32_t *n) {
    *n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > MAX_THREADS || *n == MAX_LIST) return false;
        out[(*n)++] = (uint32_t)v;
        if (*end == '\0') return true;
        if (*end != ',') return false;
        p = end + 1;
    }
}

static void build_city(th_navmap *m) {
    int32_t n = m->w;
    for (int32_t y = 0; y < n; y++) {
        for (int32_t x = 0; x < n; x++) {
            int32_t bx = x % BLOCK, by = y % BLOCK;
            if (bx < STREET || by < STREET) continue; /* street */
            uint64_t block = (uint64_t)(y / BLOCK) * 4096u + (uint64_t)(x / BLOCK);
            uint64_t kind = th_rng_u64(7, block, 0) % 10;
            int32_t ix = bx - STREET, iy = by - STREET, side = BLOCK - STREET;
            if (kind < 2) {
                th_navmap_set_cost(m, x, y, 3); /* park */
            } else if (kind == 2) {
                th_navmap_set_cost(m, x, y, 5); /* swamp */
            } else {
                /* A building: a ring of wall with a door, hollow inside, some walls
                 * destructible. */
                bool ring = ix == 1 || iy == 1 || ix == side - 2 || iy == side - 2;
                bool inside = ix > 1 && iy > 1 && ix < side - 2 && iy < side - 2;
                bool door = (ix == side / 2 && iy == 1) && kind % 2 == 0;
                if (ring && !door) {
                    th_navmap_set_blocked(m, x, y, (ix + iy) % 3 == 0);
                } else if (inside && kind == 9) {
                    th_navmap_set_blocked(m, x, y, true); /* solid block */
                }
            }
        }
    }
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *ns, int runs) {
    qsort(ns, (size_t)runs, sizeof *ns, cmp_u64);
    printf("%-52s best %8.2f ms   median %8.2f ms\n", what, (double)ns[0] / 1e6,
           (double)ns[runs / 2] / 1e6);
}

/* CPU time of the calling thread, ns: on a machine shared with other work, a comparison of two
 * single-threaded loops by CPU time is not skewed by what else ran meanwhile. */
static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A random cell for pair i, end k, that field `f` reaches (the street network: not inside a
 * closed building): counter-based, retried until one is found. */
static void open_cell(const th_navmap *m, const th_nav_field *f, uint32_t i, uint32_t k, int32_t *x,
                      int32_t *y) {
    for (uint64_t t = 0;; t++) {
        uint64_t r = th_rng_u64(11, (uint64_t)i * 2u + k, t);
        *x = (int32_t)(r % (uint64_t)m->w);
        *y = (int32_t)((r >> 32) % (uint64_t)m->h);
        if (th_nav_reachable(f->dist[(uint32_t)*y * (uint32_t)m->w + (uint32_t)*x])) return;
    }
}

typedef struct served {
    uint32_t n;
} served;

static void on_served(void *user, uint32_t tag, int status, const uint32_t *cells, uint32_t len,
                      uint32_t cost) {
    (void)tag, (void)status, (void)cells, (void)len, (void)cost;
    ((served *)user)->n++;
}

/* Many agents with their own destinations (pairs of cells on the street network, which bunker
 * 0's field reaches): the hierarchy's build, then every pair planned by
 * HPA* and by plain A* (octile bound, no landmarks), with expansions, time and cost ratios,
 * then the same pairs served by the budgeted queue. */
static int bench_hpa(const th_navmap *m, const th_nav_field *streets, const uint32_t *threads,
                     uint32_t nthreads, int runs, uint32_t pairs, uint32_t *path) {
    uint64_t ns[MAX_RUNS];
    char label[96];
    th_hpa *h = NULL;
    for (uint32_t ti = 0; ti < nthreads; ti++) {
        uint32_t t = threads[ti];
        th_pool *pool = t > 1 ? th_pool_create(t) : NULL;
        if (t > 1 && !pool) return 1;
        th_hpa_destroy(h);
        h = th_hpa_create(m, 0, t);
        if (!h) return 1;
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = th_now_ns();
            th_hpa_build(h, m, pool);
            ns[r] = th_now_ns() - t0;
        }
        snprintf(label, sizeof label, "HPA* build (clusters of %u), %u %s", TH_HPA_DEFAULT_CLUSTER,
                 t, t == 1 ? "thread" : "threads");
        report(label, ns, runs);
        th_pool_destroy(pool);
    }
    th_hpa_info info = th_hpa_get_info(h);
    printf("HPA* graph: %u clusters, %u nodes, %u intra edges, %.1f MiB, %llu cells expanded "
           "per build\n",
           info.clusters, info.nodes, info.intra_edges, (double)info.bytes / 1048576.0,
           (unsigned long long)info.build_cells);

    int32_t(*ends)[4] = malloc(sizeof *ends * pairs);
    uint32_t *hcost = malloc(sizeof *hcost * pairs), *acost = malloc(sizeof *acost * pairs);
    double *ratio = malloc(sizeof *ratio * pairs);
    th_vec2 *wp = th_alloc(sizeof *wp * m->ncells);
    th_hpa_query *q = th_hpa_query_create(h, 0);
    th_astar_ctx *a = th_astar_create(m);
    if (!ends || !hcost || !acost || !ratio || !wp || !q || !a) return 1;
    for (uint32_t i = 0; i < pairs; i++) {
        open_cell(m, streets, i, 0, &ends[i][0], &ends[i][1]);
        open_cell(m, streets, i, 1, &ends[i][2], &ends[i][3]);
    }
    uint32_t len;
    uint64_t t0 = th_now_ns(), c0 = cpu_ns();
    uint32_t found = 0;
    for (uint32_t i = 0; i < pairs; i++) {
        found += th_hpa_find(q, h, m, ends[i][0], ends[i][1], ends[i][2], ends[i][3], path,
                             m->ncells, &len, &hcost[i]) == TH_NAV_OK;
    }
    uint64_t hpa_ns = th_now_ns() - t0, hpa_cpu = cpu_ns() - c0;
    th_hpa_query_stats qs = th_hpa_query_get_stats(q);
    uint64_t pull_ns = 0, los = 0;
    for (uint32_t i = 0; i < pairs; i++) {
        if (th_hpa_find(q, h, m, ends[i][0], ends[i][1], ends[i][2], ends[i][3], path, m->ncells,
                        &len, &hcost[i]) != TH_NAV_OK)
            continue;
        uint64_t t1 = th_now_ns(), tests = 0;
        th_nav_string_pull_counted(m, path, len, wp, &tests, NULL);
        pull_ns += th_now_ns() - t1;
        los += tests;
    }
    uint64_t a_exp = 0, a_ns = 0, a_cpu = cpu_ns();
    uint32_t afound = 0;
    for (uint32_t i = 0; i < pairs; i++) {
        uint64_t t1 = th_now_ns();
        int rc = th_astar_find(a, m, ends[i][0], ends[i][1], ends[i][2], ends[i][3], path,
                               m->ncells, &len, &acost[i]);
        a_ns += th_now_ns() - t1;
        a_exp += th_astar_expanded(a);
        afound += rc == TH_NAV_OK;
    }
    a_cpu = cpu_ns() - a_cpu;
    uint32_t n = 0;
    for (uint32_t i = 0; i < pairs; i++) {
        if (acost[i] == TH_NAV_UNREACHABLE || hcost[i] == TH_NAV_UNREACHABLE || acost[i] == 0)
            continue;
        if (hcost[i] < acost[i]) {
            fprintf(stderr, "bench_nav: HPA* cost %u below A*'s optimum %u\n", hcost[i], acost[i]);
            return 1;
        }
        ratio[n++] = (double)hcost[i] / (double)acost[i];
    }
    if (found != afound) {
        fprintf(stderr, "bench_nav: HPA* found %u paths, A* %u\n", found, afound);
        return 1;
    }
    qsort(ratio, n, sizeof *ratio, cmp_double);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += ratio[i];
    uint64_t h_exp = qs.abstract_expanded + qs.cells_expanded;
    printf("%u pairs, %u with a path, 1 thread:\n", pairs, found);
    printf("  A* (octile)   %10.1f ms  %12llu cells expanded\n", (double)a_ns / 1e6,
           (unsigned long long)a_exp);
    printf("  HPA*          %10.1f ms  %12llu expanded (%llu abstract nodes + %llu cells)\n",
           (double)hpa_ns / 1e6, (unsigned long long)h_exp,
           (unsigned long long)qs.abstract_expanded, (unsigned long long)qs.cells_expanded);
    printf("  CPU time: A* %.1f ms, HPA* %.1f ms\n", (double)a_cpu / 1e6, (double)hpa_cpu / 1e6);
    printf("  ratios A*/HPA*: wall time %.1fx, CPU time %.1fx, expansions %.1fx; edge cache hits "
           "%.1f %%\n",
           (double)a_ns / (double)hpa_ns, (double)a_cpu / (double)hpa_cpu,
           (double)a_exp / (double)h_exp,
           100.0 * (double)qs.cache_hits / (double)(qs.cache_hits + qs.cache_misses + 1));
    printf("  string pulling of the HPA* paths %.1f ms (%llu line-of-sight tests)\n",
           (double)pull_ns / 1e6, (unsigned long long)los);
    if (n)
        printf("  HPA* grid cost / A* optimum: mean %.4f  p50 %.4f  p95 %.4f  max %.4f\n", sum / n,
               ratio[n / 2], ratio[(uint32_t)(n * 0.95)], ratio[n - 1]);

    /* IDA* on the abstract graph against the abstract A*, on the first pairs: expansions and
     * the memory each keeps per search. */
    {
        enum { IDA_PAIRS = 10 };
        const uint64_t cap = 5000000;
        uint64_t ida_exp = 0, astar_exp = 0, ida_ns = 0, astar_ns = 0;
        uint32_t done = 0, tried = 0;
        for (uint32_t i = 0; i < pairs && tried < IDA_PAIRS; i++, tried++) {
            th_hpa_query_stats before = th_hpa_query_get_stats(q);
            uint64_t t1 = th_now_ns();
            uint32_t c1 = 0, c2 = 0;
            th_hpa_find(q, h, m, ends[i][0], ends[i][1], ends[i][2], ends[i][3], path, m->ncells,
                        &len, &c1);
            uint64_t t2 = th_now_ns();
            uint64_t e = 0;
            int rc = th_hpa_ida_cost(q, h, m, ends[i][0], ends[i][1], ends[i][2], ends[i][3], cap,
                                     &c2, &e);
            uint64_t t3 = th_now_ns();
            if (rc != TH_NAV_OK) continue;
            if (c1 != c2) {
                fprintf(stderr, "bench_nav: IDA* cost %u differs from A*'s %u\n", c2, c1);
                return 1;
            }
            done++;
            ida_exp += e;
            ida_ns += t3 - t2;
            astar_exp += th_hpa_query_get_stats(q).abstract_expanded - e - before.abstract_expanded;
            astar_ns += t2 - t1;
        }
        printf("  IDA* on the abstract graph, first %u pairs (cap %llu expansions): %u finished; "
               "on those %llu expansions and %.1f ms against A*'s %llu and %.1f ms; memory per "
               "search: IDA* 12 B per route node, A* %u B per abstract node (%.1f MiB)\n",
               tried, (unsigned long long)cap, done, (unsigned long long)ida_exp,
               (double)ida_ns / 1e6, (unsigned long long)astar_exp, (double)astar_ns / 1e6, 36u,
               36.0 * (double)(info.clusters * info.max_nodes) / 1048576.0);
    }

    /* The same pairs through the budgeted queue. */
    static const uint64_t budgets[] = {2000, 20000};
    for (int b = 0; b < 2; b++) {
        th_hpa_queue *qq = th_hpa_queue_create(h, m, pairs, 0);
        if (!qq) return 1;
        for (uint32_t i = 0; i < pairs; i++)
            th_hpa_queue_submit(qq, ends[i][0], ends[i][1], ends[i][2], ends[i][3],
                                (int32_t)(i % 4), i);
        served sv = {0};
        uint32_t updates = 0;
        uint64_t worst = 0, total = 0;
        while (th_hpa_queue_waiting(qq)) {
            uint64_t t1 = th_now_ns();
            th_hpa_queue_update(qq, h, m, budgets[b], on_served, &sv);
            uint64_t d = th_now_ns() - t1;
            worst = d > worst ? d : worst;
            total += d;
            updates++;
        }
        printf("  queue, budget %llu expansions per update: %u updates, %.3f ms mean, %.3f ms "
               "worst per update, %u served\n",
               (unsigned long long)budgets[b], updates, (double)total / 1e6 / updates,
               (double)worst / 1e6, sv.n);
        th_hpa_queue_destroy(qq);
    }
    th_astar_destroy(a);
    th_hpa_query_destroy(q);
    th_hpa_destroy(h);
    th_free(wp);
    free(ends);
    free(hcost);
    free(acost);
    free(ratio);
    return 0;
}

/* The world's own goals as a host gives them: `pairs` walkers on the city's streets, each sent
 * to its own point (the pairs of bench_hpa), planned at once (A* with landmarks, inside the
 * call) against the world's goal planning (HPA* with a budget of expansions a step): the time
 * the goals take to give, the steps until every path has come, and the step's time meanwhile
 * against the same world's steps once every path has come. */
static th_world *city_world(const th_navmap *m, uint32_t threads, uint32_t pairs, th_agent_id *ids,
                            int32_t (*ends)[4]) {
    th_world_def wd = th_default_world_def();
    wd.width = wd.height = (float)m->w;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    wd.agent_capacity = pairs;
    th_error err;
    th_world *w = th_world_create(&wd, &err);
    if (!w) return NULL;
    for (int32_t y = 0; y < m->h; y++) {
        for (int32_t x = 0; x < m->w; x++) {
            const uint32_t c = th_navmap_cost(m, x, y);
            if (c == 1) continue;
            if (!th_world_set_cell(w, x, y, c ? TH_CELL_OPEN : TH_CELL_WALL, c, &err)) {
                th_world_destroy(w);
                return NULL;
            }
        }
    }
    th_crowd_def cd = th_default_pedestrian_def();
    const th_crowd_id crowd = th_world_add_crowd(w, &cd, &err);
    for (uint32_t i = 0; i < pairs; i++) {
        ids[i] = th_world_add_agent(
            w, crowd, th_v2((float)ends[i][0] + 0.5f, (float)ends[i][1] + 0.5f), th_v2(0, 0), &err);
        if (!ids[i].index1) {
            th_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

static int bench_world_goals(const th_navmap *m, const th_nav_field *streets, uint32_t threads,
                             uint32_t pairs) {
    int32_t(*ends)[4] = malloc(sizeof *ends * pairs);
    th_agent_id *ids = malloc(sizeof *ids * pairs);
    if (!ends || !ids) return 1;
    for (uint32_t i = 0; i < pairs; i++) {
        open_cell(m, streets, i, 0, &ends[i][0], &ends[i][1]);
        open_cell(m, streets, i, 1, &ends[i][2], &ends[i][3]);
    }
    printf("\nworld own goals: %u walkers on the streets, each to its own point, %u %s\n", pairs,
           threads, threads == 1 ? "thread" : "threads");
    th_error err;
    /* At once: every goal an A* (with landmarks, built by the first) in the call. */
    th_world *w = city_world(m, threads, pairs, ids, ends);
    if (!w) return 1;
    uint64_t t0 = th_now_ns();
    for (uint32_t i = 0; i < pairs; i++) {
        const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT,
                                 .point = {(float)ends[i][2] + 0.5f, (float)ends[i][3] + 0.5f}};
        if (!th_world_set_agent_goal(w, ids[i], &g, &err) && err.code != TH_ERR_UNREACHABLE) {
            fprintf(stderr, "bench_nav: %s\n", err.message);
            return 1;
        }
        if (i == 0) {
            printf("  at once: the first goal (landmarks built) %.1f ms\n",
                   (double)(th_now_ns() - t0) / 1e6);
            t0 = th_now_ns();
        }
    }
    const double at_once = (double)(th_now_ns() - t0) / 1e6;
    uint64_t step_ns = 0;
    for (int s = 0; s < 20; s++) {
        uint64_t t = th_now_ns();
        th_world_step(w);
        step_ns += th_now_ns() - t;
    }
    printf("  at once: the other %u goals %.1f ms (%.3f ms each); a step after %.2f ms\n",
           pairs - 1, at_once, at_once / (double)(pairs - 1), (double)step_ns / 20e6);
    th_world_destroy(w);

    const uint32_t budgets[] = {2000, 20000};
    for (int b = 0; b < 2; b++) {
        w = city_world(m, threads, pairs, ids, ends);
        if (!w) return 1;
        const th_goal_planning gp = {.budget = budgets[b]};
        t0 = th_now_ns();
        if (!th_world_set_goal_planning(w, &gp, &err)) {
            fprintf(stderr, "bench_nav: %s\n", err.message);
            return 1;
        }
        const double build = (double)(th_now_ns() - t0) / 1e6;
        t0 = th_now_ns();
        for (uint32_t i = 0; i < pairs; i++) {
            const th_agent_goal g = {.kind = TH_AGENT_GOAL_POINT,
                                     .point = {(float)ends[i][2] + 0.5f, (float)ends[i][3] + 0.5f}};
            if (!th_world_set_agent_goal(w, ids[i], &g, &err)) {
                fprintf(stderr, "bench_nav: %s\n", err.message);
                return 1;
            }
        }
        const double given = (double)(th_now_ns() - t0) / 1e6;
        uint64_t total = 0, worst = 0;
        uint32_t steps = 0;
        th_goal_planning_info gi;
        do {
            uint64_t t = th_now_ns();
            th_world_step(w);
            t = th_now_ns() - t;
            total += t;
            worst = t > worst ? t : worst;
            steps++;
            gi = th_world_goal_planning_info(w);
        } while (gi.waiting > 0 && steps < 1000000);
        step_ns = 0;
        for (int s = 0; s < 20; s++) {
            uint64_t t = th_now_ns();
            th_world_step(w);
            step_ns += th_now_ns() - t;
        }
        printf("  planning, budget %u: hierarchy %.1f ms, goals given %.1f ms; every path in %u "
               "steps (%.1f ms of steps); step %.2f ms mean, %.2f ms worst while planning, %.2f "
               "ms after; %llu answered, %llu unreachable, %llu planned at once, %llu "
               "expansions; waits %.1f steps mean, %u most\n",
               budgets[b], build, given, steps, (double)total / 1e6,
               (double)total / 1e6 / (double)steps, (double)worst / 1e6, (double)step_ns / 20e6,
               (unsigned long long)gi.answered, (unsigned long long)gi.unreachable,
               (unsigned long long)gi.at_once, (unsigned long long)gi.expanded,
               gi.answered ? (double)gi.wait_steps / (double)gi.answered : 0.0, gi.most_steps);
        th_world_destroy(w);
    }
    free(ends);
    free(ids);
    return 0;
}

/* The four-level strip against the one-level city (see the file comment): one field each from
 * the same goal cell, single-threaded. */
static int bench_levels(const th_navmap *m, int runs) {
    const int32_t h = m->w / 2, sw = 4 * h + 3;
    th_navmap s;
    if (th_navmap_init(&s, sw, h, 1.0f) != TH_NAV_OK) return 1;
    th_navmap_defer_moves(&s);
    for (int32_t x = h; x < sw; x += h + 1)
        for (int32_t y = 0; y < h; y++) th_navmap_set_blocked(&s, x, y, false);
    for (int q = 0; q < 4; q++) {
        const int32_t qx = (q % 2) * h, qy = (q / 2) * h, ox = q * (h + 1);
        for (int32_t y = 0; y < h; y++) {
            for (int32_t x = 0; x < h; x++) {
                uint32_t c = th_navmap_cost(m, qx + x, qy + y);
                if (c == 0) th_navmap_set_blocked(&s, ox + x, y, false);
                else if (c != 1) th_navmap_set_cost(&s, ox + x, y, c);
            }
        }
    }
    th_navmap_update_moves(&s, NULL);
    /* Stairs: the street rows 2..4 of every fourth block row glued across each wall column. */
    uint32_t glued = 0;
    for (int q = 0; q < 3; q++) {
        const int32_t xl = q * (h + 1) + h - 1, xr = xl + 2;
        for (int32_t y = 2; y < h; y += 4 * BLOCK) {
            for (int32_t k = 0; k < 3 && y + k < h; k++) {
                if (th_navmap_is_blocked(&s, xl, y + k) || th_navmap_is_blocked(&s, xr, y + k))
                    continue;
                if (th_navmap_glue(&s, xl, y + k, 0, xr, y + k) == TH_NAV_OK) glued++;
            }
        }
    }
    th_nav_scratch *sc1 = th_nav_scratch_create(m), *sc4 = th_nav_scratch_create(&s);
    th_nav_field f1, f4;
    if (!sc1 || !sc4 || th_nav_field_init(&f1, m, 1) != TH_NAV_OK ||
        th_nav_field_init(&f4, &s, 1) != TH_NAV_OK)
        return 1;
    /* The goal: a street cell of the first quadrant, the same cell in both. */
    th_nav_field_set_goal_rect(&f1, 2, 2, 2, 2, 0);
    th_nav_field_set_goal_rect(&f4, 2, 2, 2, 2, 0);
    uint64_t ns1[MAX_RUNS], ns4[MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        uint64_t t0 = th_now_ns();
        th_nav_field_compute(&f1, m, sc1);
        ns1[r] = th_now_ns() - t0;
        t0 = th_now_ns();
        th_nav_field_compute(&f4, &s, sc4);
        ns4[r] = th_now_ns() - t0;
    }
    uint32_t reach1 = 0, reach4 = 0;
    for (uint32_t i = 0; i < m->ncells; i++) reach1 += th_nav_reachable(f1.dist[i]);
    for (uint32_t i = 0; i < s.ncells; i++) reach4 += th_nav_reachable(f4.dist[i]);
    printf("building: %d x %d city against 4 levels of %d x %d joined by %u glued edges; "
           "cells reached %u and %u\n",
           m->w, m->h, h, h, glued, reach1, reach4);
    report("one field, one level, 1 thread", ns1, runs);
    report("one field, four levels, 1 thread", ns4, runs);
    printf("four levels / one level, medians: %.3f\n",
           (double)ns4[runs / 2] / (double)ns1[runs / 2]);
    th_nav_field_free(&f1);
    th_nav_field_free(&f4);
    th_nav_scratch_destroy(sc1);
    th_nav_scratch_destroy(sc4);
    th_navmap_free(&s);
    return 0;
}

/* IDA* on the cells against A* (bench_nav ida [cap] [pairs]): on cities of 64, 128 and 256
 * cells a side, `pairs` random pairs of open cells A* joins, each searched by A* and IDA*
 * with the octile bound and with landmarks; CPU time, expansions and each search's working
 * memory as allocated (A*: its context, 17 B per cell and 2 MiB, plus 34 B per cell with
 * landmarks; IDA*: 13 B per depth of its route arrays, at their largest over the pairs). */
static int ida_bench(uint64_t cap, uint32_t pairs) {
    static const int32_t sizes[] = {64, 128, 256};
    printf("IDA* against A* on the cells, %u pairs per map, IDA* capped at %llu expansions\n",
           pairs, (unsigned long long)cap);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        th_navmap m;
        if (th_navmap_init(&m, sizes[s], sizes[s], 1.0f) != TH_NAV_OK) return 1;
        build_city(&m);
        th_astar_ctx *a = th_astar_create(&m);
        uint32_t *path = malloc(sizeof *path * m.ncells);
        if (!a || !path) return 1;
        for (int lm = 0; lm < 2; lm++) {
            if (lm && th_astar_landmarks_build(a, &m, NULL, TH_ASTAR_LANDMARK_BUDGET) <= 0)
                return 1;
            uint64_t a_ns = 0, i_ns = 0, a_exp = 0, i_exp = 0;
            uint32_t done = 0, gave_up = 0, peak_cap = 0, deepest = 0;
            for (uint32_t i = 0; i < pairs; i++) {
                int32_t e[4];
                uint32_t ca = 0, ci = 0, len = 0;
                for (uint64_t t = 0;; t++) { /* a pair A* joins */
                    for (int k = 0; k < 2; k++) {
                        uint64_t r = th_rng_u64(13, (uint64_t)i * 2u + (uint64_t)k, t);
                        e[2 * k] = (int32_t)(r % (uint64_t)m.w);
                        e[2 * k + 1] = (int32_t)((r >> 32) % (uint64_t)m.h);
                    }
                    if (th_astar_find(a, &m, e[0], e[1], e[2], e[3], path, m.ncells, &len, &ca) ==
                        TH_NAV_OK)
                        break;
                }
                /* The thread's CPU time: on a shared machine wall time measures the queue. */
                uint64_t t0 = cpu_ns();
                th_astar_find(a, &m, e[0], e[1], e[2], e[3], path, m.ncells, &len, &ca);
                uint64_t t1 = cpu_ns();
                th_ida ida = {0};
                int rc = th_ida_find(&ida, &m, lm ? a : NULL, e[0], e[1], e[2], e[3], cap, &ci);
                uint64_t t2 = cpu_ns();
                peak_cap = ida.cap > peak_cap ? ida.cap : peak_cap;
                deepest = ida.deepest > deepest ? ida.deepest : deepest;
                if (rc == TH_NAV_OK) {
                    if (ci != ca) {
                        fprintf(stderr, "bench_nav: IDA* cost %u differs from A*'s %u\n", ci, ca);
                        return 1;
                    }
                    done++;
                    a_ns += t1 - t0;
                    i_ns += t2 - t1;
                    a_exp += th_astar_expanded(a);
                    i_exp += ida.expanded;
                } else if (rc == TH_NAV_ELIMIT) {
                    gave_up++;
                } else {
                    return 1;
                }
                th_ida_free(&ida);
            }
            double a_mib =
                (17.0 * m.ncells + (lm ? 34.0 * m.ncells : 0.0) + 4.0 * (1u << 19)) / 1048576.0;
            printf(
                "  %4d x %-4d %-9s IDA* finished %u/%u (%u gave up); on those: A* %.2f ms, "
                "%llu expanded; IDA* %.2f ms, %llu expanded (x%.0f), CPU time; memory: A* %.2f MiB, "
                "IDA* %.1f KiB at most (deepest route %u cells)\n",
                m.w, m.h, lm ? "landmarks" : "octile", done, pairs, gave_up, (double)a_ns / 1e6,
                (unsigned long long)a_exp, (double)i_ns / 1e6, (unsigned long long)i_exp,
                a_exp ? (double)i_exp / (double)a_exp : 0.0, a_mib, 13.0 * peak_cap / 1024.0,
                deepest);
        }
        free(path);
        th_astar_destroy(a);
        th_navmap_free(&m);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "ida") == 0) {
        long long cap = argc > 2 ? atoll(argv[2]) : 20000000;
        long pairs = argc > 3 ? atol(argv[3]) : 20;
        if (cap < 1 || (uint64_t)cap > TH_IDA_MAX_EXPANSIONS || pairs < 1 || pairs > 10000 ||
            argc > 4) {
            fprintf(stderr, "usage: bench_nav ida [cap 1..2^40] [pairs 1..10000]\n");
            return 2;
        }
        return ida_bench((uint64_t)cap, (uint32_t)pairs);
    }
    int32_t size = argc > 1 ? atoi(argv[1]) : 1024;
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    uint32_t threads[MAX_LIST], nthreads = 0;
    if (argc > 3) {
        if (!parse_threads(argv[3], threads, &nthreads)) {
            fprintf(stderr,
                    "bench_nav: threads: expected a comma-separated list of 1..%d, "
                    "found '%s'\n",
                    MAX_THREADS, argv[3]);
            return 2;
        }
    } else {
        threads[nthreads++] = 1;
        threads[nthreads++] = 2;
        uint32_t cores = th_cpu_count();
        if (cores > 2) threads[nthreads++] = cores > MAX_THREADS ? MAX_THREADS : cores;
    }
    long pairs = argc > 4 ? atol(argv[4]) : 10000;
    if (size < 64 || size > TH_NAV_MAX_DIM || runs < 1 || runs > MAX_RUNS || argc > 5 ||
        pairs < 0 || pairs > 100000) {
        fprintf(stderr, "usage: bench_nav [size 64..4096] [runs 1..50] [threads 1..64,...] "
                        "[pairs 0..100000]\n");
        return 2;
    }
    th_navmap m;
    if (th_navmap_init(&m, size, size, 1.0f) != TH_NAV_OK) return 1;
    build_city(&m);
    uint32_t max_threads = 1;
    for (uint32_t t = 0; t < nthreads; t++)
        max_threads = threads[t] > max_threads ? threads[t] : max_threads;
    /* One scratch per worker of the largest pool; smaller pools use the first ones. */
    th_nav_scratch *scratch[MAX_THREADS] = {0};
    for (uint32_t i = 0; i < max_threads; i++) {
        if (!(scratch[i] = th_nav_scratch_create(&m))) return 1;
    }
    th_nav_field fields[BUNKERS];
    for (int k = 0; k < BUNKERS; k++) {
        if (th_nav_field_init(&fields[k], &m, 16) != TH_NAV_OK) return 1;
        /* Street crossings spread over the map. */
        int32_t cx = ((k % 4) * 2 + 1) * size / 8, cy = ((k / 4) * 2 + 1) * size / 4;
        cx = cx / BLOCK * BLOCK + 1;
        cy = cy / BLOCK * BLOCK + 1;
        th_nav_field_set_goal_rect(&fields[k], cx, cy, cx + 2, cy + 2, 0);
    }
    th_nav_combined comb;
    if (th_nav_combined_init(&comb, &m) != TH_NAV_OK) return 1;
    uint64_t ns[MAX_RUNS];
    printf("map %d x %d, %d bunkers, %u open cells, cpus %u\n", size, size, BUNKERS,
           m.ncells - m.cost_count[0], th_cpu_count());
    char label[96];

    /* Wall breaks: destructible walls in a fixed scan order, used up as the runs go. */
    uint32_t walls[1024], nwalls = 0, used = 0;
    for (uint32_t c = m.ncells / 3; c < m.ncells && nwalls < 1024; c += 997) {
        if (m.cost[c] == 0 && (m.flags[c] & TH_NAV_FLAG_DESTRUCTIBLE)) walls[nwalls++] = c;
    }
    th_navmap_update_walls(&m, NULL);
    th_nav_fields_compute(NULL, scratch, 1, fields, BUNKERS, &m);
    for (uint32_t ti = 0; ti < nthreads; ti++) {
        uint32_t t = threads[ti];
        th_pool *pool = t > 1 ? th_pool_create(t) : NULL;
        if (t > 1 && !pool) return 1;
        const char *unit = t == 1 ? "thread" : "threads";
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = th_now_ns();
            th_navmap_update_walls(&m, pool);
            ns[r] = th_now_ns() - t0;
        }
        snprintf(label, sizeof label, "wall distance, %u %s", t, unit);
        report(label, ns, runs);
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = th_now_ns();
            th_nav_fields_compute(pool, scratch, t, fields, BUNKERS, &m);
            ns[r] = th_now_ns() - t0;
        }
        snprintf(label, sizeof label, "all 8 fields, %u %s", t, unit);
        report(label, ns, runs);

        uint8_t alive[BUNKERS];
        memset(alive, 1, sizeof alive);
        for (int r = 0; r < runs; r++) {
            alive[r % BUNKERS] = 0; /* a bunker is destroyed */
            uint64_t t0 = th_now_ns();
            th_nav_combined_build(&comb, pool, fields, BUNKERS, alive);
            ns[r] = th_now_ns() - t0;
            alive[r % BUNKERS] = 1;
        }
        snprintf(label, sizeof label, "combined rebuild after bunker loss, %u %s", t, unit);
        report(label, ns, runs);

        uint32_t batches[2] = {1, 16};
        for (int b = 0; b < 2; b++) {
            uint32_t nb = batches[b];
            int done = 0;
            for (int r = 0; r < runs && used + nb <= nwalls; r++, done++) {
                for (uint32_t i = 0; i < nb; i++) {
                    uint32_t c = walls[used + i];
                    th_navmap_break_wall(&m, (int32_t)(c % (uint32_t)size),
                                         (int32_t)(c / (uint32_t)size));
                }
                uint64_t t0 = th_now_ns();
                th_nav_fields_repair_opened(pool, scratch, t, fields, BUNKERS, &m, walls + used,
                                            nb);
                ns[r] = th_now_ns() - t0;
                used += nb;
            }
            if (done) {
                snprintf(label, sizeof label, "repair 8 fields after %u wall break(s), %u %s", nb,
                         t, unit);
                report(label, ns, done);
            }
        }
        th_pool_destroy(pool);
    }

    th_astar_ctx *a = th_astar_create(&m);
    uint32_t *path = th_alloc(sizeof *path * m.ncells);
    if (!a || !path) return 1;
    uint32_t len = 0, cost = 0;
    for (int r = 0; r < runs; r++) {
        /* Street cells (x % BLOCK < STREET) near opposite corners. */
        int32_t sx = 2 + r % 4, g = size - BLOCK + 2 + r % 4;
        uint64_t t = th_now_ns();
        th_astar_find(a, &m, sx, 2, g, g, path, m.ncells, &len, &cost);
        ns[r] = th_now_ns() - t;
    }
    report("A* corner to corner", ns, runs);
    printf("last A* path: %u cells, cost %.1f m-equivalent, %llu cells expanded\n", len,
           (double)th_nav_units_to_metres(&m, cost), (unsigned long long)th_astar_expanded(a));
    uint32_t octile_cost[MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        int32_t sx = 2 + r % 4, g = size - BLOCK + 2 + r % 4;
        th_astar_find(a, &m, sx, 2, g, g, path, m.ncells, &len, &octile_cost[r]);
    }

    /* Landmark lower bounds: the build (eight fields, once per map) and the same queries,
     * whose costs must equal the octile ones. */
    for (uint32_t ti = 0; ti < nthreads; ti++) {
        uint32_t t = threads[ti];
        th_pool *pool = t > 1 ? th_pool_create(t) : NULL;
        if (t > 1 && !pool) return 1;
        int kept = 0;
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = th_now_ns();
            kept = th_astar_landmarks_build(a, &m, pool, TH_ASTAR_LANDMARK_BUDGET);
            ns[r] = th_now_ns() - t0;
            if (kept < 0) return 1;
        }
        snprintf(label, sizeof label, "A* landmarks build (%d), %u %s", kept, t,
                 t == 1 ? "thread" : "threads");
        report(label, ns, runs);
        th_pool_destroy(pool);
    }
    for (int r = 0; r < runs; r++) {
        int32_t sx = 2 + r % 4, g = size - BLOCK + 2 + r % 4;
        uint64_t t = th_now_ns();
        th_astar_find(a, &m, sx, 2, g, g, path, m.ncells, &len, &cost);
        ns[r] = th_now_ns() - t;
        if (cost != octile_cost[r]) {
            fprintf(stderr, "bench_nav: landmark A* cost %u differs from octile %u\n", cost,
                    octile_cost[r]);
            return 1;
        }
    }
    report("A* corner to corner, landmarks", ns, runs);
    printf("last landmark A* path: %u cells, %llu cells expanded\n", len,
           (unsigned long long)th_astar_expanded(a));

    if (bench_levels(&m, runs) != 0) return 1;
    if (pairs > 0 && bench_hpa(&m, &fields[0], threads, nthreads, runs, (uint32_t)pairs, path) != 0)
        return 1;
    if (pairs > 0 && bench_world_goals(&m, &fields[0], threads[0], (uint32_t)pairs) != 0) return 1;

    th_free(path);
    th_astar_destroy(a);
    th_nav_combined_free(&comb);
    for (int k = 0; k < BUNKERS; k++) th_nav_field_free(&fields[k]);
    for (uint32_t i = 0; i < max_threads; i++) th_nav_scratch_destroy(scratch[i]);
    th_navmap_free(&m);
    return 0;
}
