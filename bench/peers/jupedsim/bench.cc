// JuPedSim's collision-free speed model on the room of bench/peers/jupedsim/run.sh, through
// JuPedSim's C API (jupedsim.h) only.
//
// The room: open ground x, y in [0.5, L + 0.5] m with L = ceil(sqrt(N) + 0.4) m, walled on
// three sides; the east side opens onto an exit strip x in [L + 0.5, L + 1] that spans the
// whole wall (the same geometry as the throng scene run.sh writes, whose map has 0.5 m cells:
// one wall column, 2L open columns, one column of exit cells). N agents are placed uniformly at
// random over [0.7, L + 0.3]^2 (centres at least one radius from the walls), a draw that
// overlaps an agent already placed (centres closer than 0.4 m) is drawn again; fixed seed.
// Every agent has radius 0.2 m, v0 1.34 m/s and time gap 0.7 s, and a journey of one stage:
// the exit (JuPedSim steers each agent at the exit polygon's centroid and removes it inside).
// Model parameters as throng's defaults: neighbour repulsion 5 over 0.1 m, walls 5 over 0.02 m.
//
// Usage: bench N DT [warmup=20] [steps=100] [seed=1]
// Prints one line:
//   RESULT N dt steps agent_steps cpu_s Mrate mean_alive wall_s
// cpu_s is the process's CPU time (user + sys, CLOCK_PROCESS_CPUTIME_ID) over the timed
// steps, Mrate the agent-steps done in them (agents present before each step, summed) per CPU
// second, in millions.
#include <jupedsim/jupedsim.h>

#include <time.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

const double kRadius = 0.2;
const double kV0 = 1.34;
const double kTimeGap = 0.7;

double now(clockid_t clk) {
    timespec ts;
    clock_gettime(clk, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

[[noreturn]] void fail(const char* what, JPS_ErrorMessage err) {
    std::fprintf(
        stderr, "bench: %s: %s\n", what, err ? JPS_ErrorMessage_GetMessage(err) : "(no message)");
    std::exit(1);
}

// Uniform random centres in [lo, hi]^2, none closer than 2 radii (plus a hair, JuPedSim refuses
// touching bodies) to another; a grid of 0.5 m cells holds the ones placed.
std::vector<JPS_Point> place(std::size_t n, double lo, double hi, unsigned seed) {
    const double cell = 0.5, min_d = 2 * kRadius + 1e-6;
    const int cols = static_cast<int>(std::ceil((hi - lo) / cell)) + 1;
    std::vector<std::vector<std::uint32_t>> grid(static_cast<std::size_t>(cols) * cols);
    std::vector<JPS_Point> pts;
    pts.reserve(n);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    for(std::size_t tries = 0; pts.size() < n; tries++) {
        if(tries > 100 * n) {
            std::fprintf(stderr, "bench: could not place %zu agents\n", n);
            std::exit(1);
        }
        const double x = u(rng), y = u(rng);
        const int cx = static_cast<int>((x - lo) / cell), cy = static_cast<int>((y - lo) / cell);
        bool free = true;
        for(int gy = cy - 1; gy <= cy + 1 && free; gy++) {
            for(int gx = cx - 1; gx <= cx + 1 && free; gx++) {
                if(gx < 0 || gy < 0 || gx >= cols || gy >= cols) continue;
                for(std::uint32_t k : grid[static_cast<std::size_t>(gy) * cols + gx]) {
                    const double dx = pts[k].x - x, dy = pts[k].y - y;
                    if(dx * dx + dy * dy < min_d * min_d) {
                        free = false;
                        break;
                    }
                }
            }
        }
        if(!free) continue;
        grid[static_cast<std::size_t>(cy) * cols + cx].push_back(
            static_cast<std::uint32_t>(pts.size()));
        pts.push_back(JPS_Point{x, y});
    }
    return pts;
}

} // namespace

int main(int argc, char** argv) {
    if(argc < 3) {
        std::fprintf(stderr, "usage: bench N DT [warmup=20] [steps=100] [seed=1]\n");
        return 2;
    }
    const std::size_t n = std::strtoull(argv[1], nullptr, 10);
    const double dt = std::strtod(argv[2], nullptr);
    const int warmup = argc > 3 ? std::atoi(argv[3]) : 20;
    const int steps = argc > 4 ? std::atoi(argv[4]) : 100;
    const unsigned seed = argc > 5 ? static_cast<unsigned>(std::atoi(argv[5])) : 1;
    if(n == 0 || !(dt > 0) || warmup < 0 || steps < 1) {
        std::fprintf(stderr, "bench: bad arguments\n");
        return 2;
    }
    const double side = std::ceil(std::sqrt(static_cast<double>(n)) + 2 * kRadius);
    const double x0 = 0.5, x1 = side + 0.5, xe = side + 1.0;

    JPS_ErrorMessage err = nullptr;
    JPS_GeometryBuilder gb = JPS_GeometryBuilder_Create();
    const JPS_Point area[4] = {{x0, x0}, {xe, x0}, {xe, x1}, {x0, x1}};
    JPS_GeometryBuilder_AddAccessibleArea(gb, area, 4);
    JPS_Geometry geometry = JPS_GeometryBuilder_Build(gb, &err);
    if(!geometry) fail("geometry", err);
    JPS_GeometryBuilder_Free(gb);

    JPS_CollisionFreeSpeedModelBuilder mb =
        JPS_CollisionFreeSpeedModelBuilder_Create(5.0, 0.1, 5.0, 0.02);
    JPS_OperationalModel model = JPS_CollisionFreeSpeedModelBuilder_Build(mb, &err);
    if(!model) fail("model", err);
    JPS_CollisionFreeSpeedModelBuilder_Free(mb);

    JPS_Simulation sim = JPS_Simulation_Create(model, geometry, dt, &err);
    if(!sim) fail("simulation", err);
    JPS_OperationalModel_Free(model);
    JPS_Geometry_Free(geometry);

    const JPS_Point exit_area[4] = {{x1, x0}, {xe, x0}, {xe, x1}, {x1, x1}};
    const JPS_StageId exit = JPS_Simulation_AddStageExit(sim, exit_area, 4, &err);
    if(err) fail("exit stage", err);
    JPS_JourneyDescription journey = JPS_JourneyDescription_Create();
    JPS_JourneyDescription_AddStage(journey, exit);
    const JPS_JourneyId jid = JPS_Simulation_AddJourney(sim, journey, &err);
    if(err) fail("journey", err);
    JPS_JourneyDescription_Free(journey);

    for(const JPS_Point& p : place(n, x0 + kRadius, x1 - kRadius, seed)) {
        JPS_CollisionFreeSpeedModelAgentParameters a{};
        a.position = p;
        a.journeyId = jid;
        a.stageId = exit;
        a.time_gap = kTimeGap;
        a.v0 = kV0;
        a.radius = kRadius;
        JPS_Simulation_AddCollisionFreeSpeedModelAgent(sim, a, &err);
        if(err) fail("agent", err);
    }

    for(int s = 0; s < warmup; s++) {
        if(!JPS_Simulation_Iterate(sim, &err)) fail("iterate", err);
    }
    std::uint64_t agent_steps = 0;
    const double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
    for(int s = 0; s < steps; s++) {
        agent_steps += JPS_Simulation_AgentCount(sim);
        if(!JPS_Simulation_Iterate(sim, &err)) fail("iterate", err);
    }
    const double cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = now(CLOCK_MONOTONIC) - w0;
    std::printf(
        "RESULT %zu %g %d %llu %.6f %.4f %.1f %.6f\n",
        n,
        dt,
        steps,
        static_cast<unsigned long long>(agent_steps),
        cpu,
        agent_steps / cpu * 1e-6,
        static_cast<double>(agent_steps) / steps,
        wall);
    JPS_Simulation_Free(sim);
    return 0;
}
