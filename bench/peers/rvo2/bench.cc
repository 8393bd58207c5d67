// RVO2 (ORCA) benchmark comparable to throng's "pedestrians" demo (bench/peers/rvo2/run.sh).
//
// N agents at 1 person/m^2 in a square of side sqrt(N) m centred on the
// origin, four streams (agent i % 4 walks east, north, west, south), placed on
// a jittered lattice (pitch = side / ceil(sqrt N), jitter +-0.2 pitch, fixed
// seed).  RVO2 has no wrap-around: periodicity is emulated by resetting every
// agent's preferred velocity to its stream direction * 1.34 m/s each step and,
// after doStep(), moving agents that left the square back in at the opposite
// side with setAgentPosition().  (Neighbour search does not see across the
// seam; RVO2's k-d tree has no periodic images.)
//
// Usage: bench N [warmup=20] [steps=100] [reps=3]
// Threads: OMP_NUM_THREADS.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "RVO.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

const float kRadius = 0.2f;
const float kMaxSpeed = 1.5f;
const float kPrefSpeed = 1.34f;
const float kNeighborDist = 2.0f;
const std::size_t kMaxNeighbors = 10;
const float kTimeHorizon = 2.0f;
const float kTimeHorizonObst = 2.0f;
const float kTimeStep = 1.0f / 60.0f;

struct Result {
  double total_s;   // whole timed loop: pref velocities + doStep + wrap
  double dostep_s;  // doStep() only
  double mean_speed_along;  // mean velocity component along stream dir
  long wraps;
};

Result runOnce(std::size_t n, int warmup, int steps, unsigned seed) {
  const double side = std::sqrt(static_cast<double>(n));
  const double half = 0.5 * side;
  const std::size_t k = static_cast<std::size_t>(std::ceil(side));
  const double pitch = side / static_cast<double>(k);

  RVO::RVOSimulator sim;
  sim.setTimeStep(kTimeStep);
  sim.setAgentDefaults(kNeighborDist, kMaxNeighbors, kTimeHorizon,
                       kTimeHorizonObst, kRadius, kMaxSpeed);

  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> jit(-0.2 * pitch, 0.2 * pitch);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t cx = i % k, cy = i / k;
    const double x = -half + (cx + 0.5) * pitch + jit(rng);
    const double y = -half + (cy + 0.5) * pitch + jit(rng);
    sim.addAgent(RVO::Vector2(static_cast<float>(x), static_cast<float>(y)));
  }

  const RVO::Vector2 dirs[4] = {RVO::Vector2(1.0f, 0.0f),
                                RVO::Vector2(0.0f, 1.0f),
                                RVO::Vector2(-1.0f, 0.0f),
                                RVO::Vector2(0.0f, -1.0f)};
  const float fside = static_cast<float>(side);
  const float fhalf = static_cast<float>(half);
  long wraps = 0;
  double dostep_s = 0.0;

  typedef std::chrono::steady_clock clk;
  clk::time_point t0 = clk::now();
  for (int s = 0; s < warmup + steps; ++s) {
    if (s == warmup) {
      t0 = clk::now();
      dostep_s = 0.0;
      wraps = 0;
    }
    for (std::size_t i = 0; i < n; ++i)
      sim.setAgentPrefVelocity(i, dirs[i & 3] * kPrefSpeed);
    clk::time_point a = clk::now();
    sim.doStep();
    dostep_s += std::chrono::duration<double>(clk::now() - a).count();
    for (std::size_t i = 0; i < n; ++i) {
      RVO::Vector2 p = sim.getAgentPosition(i);
      float x = p.x(), y = p.y();
      bool moved = false;
      if (x >= fhalf) { x -= fside; moved = true; }
      else if (x < -fhalf) { x += fside; moved = true; }
      if (y >= fhalf) { y -= fside; moved = true; }
      else if (y < -fhalf) { y += fside; moved = true; }
      if (moved) {
        sim.setAgentPosition(i, RVO::Vector2(x, y));
        ++wraps;
      }
    }
  }
  const double total_s =
      std::chrono::duration<double>(clk::now() - t0).count();

  double along = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    along += sim.getAgentVelocity(i) * dirs[i & 3];

  Result r;
  r.total_s = total_s;
  r.dostep_s = dostep_s;
  r.mean_speed_along = along / static_cast<double>(n);
  r.wraps = wraps;
  return r;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s N [warmup=20] [steps=100] [reps=3]\n",
                 argv[0]);
    return 2;
  }
  const std::size_t n = std::strtoul(argv[1], NULL, 10);
  const int warmup = argc > 2 ? std::atoi(argv[2]) : 20;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 100;
  const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif

  std::vector<double> rates;
  for (int r = 0; r < reps; ++r) {
    Result res = runOnce(n, warmup, steps, 12345u);
    const double rate = static_cast<double>(n) * steps / res.total_s;
    const double rate_ds = static_cast<double>(n) * steps / res.dostep_s;
    rates.push_back(rate);
    std::fprintf(stderr,
                 "# N=%zu threads=%d rep=%d: %.3f s -> %.4f M agent-steps/s "
                 "(doStep only %.4f M/s), mean speed along stream %.3f m/s, "
                 "wraps %ld\n",
                 n, threads, r, res.total_s, rate / 1e6, rate_ds / 1e6,
                 res.mean_speed_along, res.wraps);
  }
  std::vector<double> s = rates;
  std::sort(s.begin(), s.end());
  const double med = s[s.size() / 2];
  // Machine-readable line: N threads median min max (M agent-steps/s)
  std::printf("RESULT %zu %d %.4f %.4f %.4f\n", n, threads, med / 1e6,
              s.front() / 1e6, s.back() / 1e6);
  return 0;
}
