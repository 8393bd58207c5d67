// A C++ host: throng stepped on the host's own threads. The host owns a small thread pool;
// the world hands it every parallel phase of a step as a task (th_world_def.enqueue_task and
// finish_task) and creates no thread of its own. The program loads a scene (or, without an
// argument, builds a world in code), steps it on the pool, reads the agents, and checks that the
// state hash is the one the built-in pool gives: how work is split changes no result.
//
//   c++ -std=c++17 host.cpp $(pkg-config --cflags --libs throng) -o host
//   ./host [scene.yaml [steps [threads]]]
//
// Compiled with -DHOST_CODE_ONLY it never loads a scene, so it links the core alone
// (pkg-config throng-core, or find_package(throng COMPONENTS core) and throng::core), without
// libyaml and libpng.
#include <throng/throng.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

// One task from the world: ranges of at least min_range items are handed out in order until
// item_count is covered; finish waits for the last range to complete.
struct Job {
    Job(th_task_fn *t, void *c, uint32_t n, uint32_t r) : task(t), ctx(c), count(n), range(r) {}
    th_task_fn *task;
    void *ctx;
    uint32_t count, range;
    uint32_t next = 0;             // first item not yet handed out (under Pool::mutex)
    std::atomic<uint32_t> done{0}; // items completed
    std::mutex m;
    std::condition_variable finished;
};

class Pool {
  public:
    explicit Pool(uint32_t workers) {
        for (uint32_t i = 0; i < workers; i++) threads_.emplace_back([this, i] { run(i); });
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto &t : threads_) t.join();
    }
    uint32_t size() const { return static_cast<uint32_t>(threads_.size()); }

    Job *enqueue(th_task_fn *task, uint32_t count, uint32_t min_range, void *ctx) {
        auto *job = new Job(task, ctx, count, min_range ? min_range : 1);
        // Ranges of about count / (4 * workers) items keep every worker busy.
        uint32_t share = count / (4u * size()) + 1u;
        if (share > job->range) job->range = share;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            jobs_.push_back(job);
        }
        wake_.notify_all();
        return job;
    }
    static void finish(Job *job) {
        {
            std::unique_lock<std::mutex> lock(job->m);
            job->finished.wait(lock, [job] { return job->done.load() == job->count; });
        }
        delete job;
    }

  private:
    void run(uint32_t worker) {
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
            if (jobs_.empty()) return; // stop_, nothing left
            Job *job = jobs_.front();
            uint32_t begin = job->next;
            uint32_t end = job->count - begin > job->range ? begin + job->range : job->count;
            job->next = end;
            if (end == job->count) jobs_.pop_front();
            lock.unlock();
            job->task(begin, end, worker, job->ctx);
            if (job->done.fetch_add(end - begin) + (end - begin) == job->count) {
                std::lock_guard<std::mutex> done_lock(job->m);
                job->finished.notify_all();
            }
            lock.lock();
        }
    }
    std::vector<std::thread> threads_;
    std::deque<Job *> jobs_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
};

extern "C" void *host_enqueue(th_task_fn *task, uint32_t count, uint32_t min_range, void *ctx,
                              void *user) {
    if (count == 0) return nullptr; // nothing to run: done before returning
    return static_cast<Pool *>(user)->enqueue(task, count, min_range, ctx);
}

extern "C" void host_finish(void *handle, void *) { Pool::finish(static_cast<Job *>(handle)); }

struct WorldDeleter {
    void operator()(th_world *w) const { th_world_destroy(w); }
};
using World = std::unique_ptr<th_world, WorldDeleter>;

void report(const th_error &err) {
    std::fprintf(stderr, "host: %s: %s\n", th_error_code_name(err.code), err.message);
}

// A street with a wall across it, a door, and a bunker at each end; 200 pedestrians flee.
World build(uint32_t threads, Pool *pool) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = 60.0f;
    wd.height = 20.0f;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    if (pool) {
        wd.enqueue_task = host_enqueue;
        wd.finish_task = host_finish;
        wd.task_user = pool;
    }
    World w(th_world_create(&wd, &err));
    if (!w) {
        report(err);
        return w;
    }
    for (int32_t y = 0; y < 20; y++) {
        if (y < 9 || y > 10) th_world_set_cell(w.get(), 30, y, TH_CELL_WALL, 0, nullptr);
    }
    th_bunker_def west = {};
    west.name = "west";
    west.x0 = 1, west.y0 = 8, west.x1 = 2, west.y1 = 11;
    th_bunker_def east = west;
    east.name = "east";
    east.x0 = 57, east.x1 = 58;
    th_crowd_def cd = th_default_pedestrian_def();
    cd.name = "residents";
    cd.goal.kind = TH_GOAL_SHELTER;
    th_crowd_id crowd = {};
    if (!th_bunker_id_valid(th_world_add_bunker(w.get(), &west, &err)) ||
        !th_bunker_id_valid(th_world_add_bunker(w.get(), &east, &err)) ||
        !th_crowd_id_valid(crowd = th_world_add_crowd(w.get(), &cd, &err))) {
        report(err);
        return nullptr;
    }
    for (int i = 0; i < 200; i++) {
        th_vec2 p =
            th_v2(5.5f + static_cast<float>(i % 24), 2.5f + 0.8f * static_cast<float>(i / 24));
        if (!th_agent_id_valid(th_world_add_agent(w.get(), crowd, p, th_v2(0, 0), &err)) &&
            err.code != TH_ERR_BLOCKED) {
            report(err);
            return nullptr;
        }
    }
    return w;
}

World make(const char *scene, uint32_t threads, Pool *pool) {
    if (!scene) return build(threads, pool);
#ifdef HOST_CODE_ONLY
    std::fprintf(stderr, "host: built without the scene loader\n");
    return nullptr;
#else
    th_scene_opts opts = {};
    opts.threads = threads;
    if (pool) {
        opts.enqueue_task = host_enqueue;
        opts.finish_task = host_finish;
        opts.task_user = pool;
    }
    th_error err;
    World w(th_scene_load(scene, &opts, nullptr, &err));
    if (!w) report(err);
    return w;
#endif
}

} // namespace

int main(int argc, char **argv) {
    const char *scene = argc > 1 ? argv[1] : nullptr;
    const long steps = argc > 2 ? std::atol(argv[2]) : 600;
    const uint32_t threads = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 2;
    if (steps < 0 || threads < 1 || threads > TH_MAX_THREADS) {
        std::fprintf(stderr, "usage: host [scene.yaml [steps [threads 1..%d]]]\n", TH_MAX_THREADS);
        return 2;
    }
    std::printf("throng %s (headers %s)\n", th_version(), TH_VERSION_STRING);
    if (th_version_number() != TH_VERSION_NUMBER) {
        std::fprintf(stderr, "host: the library is not the version of the headers\n");
        return 1;
    }

    uint64_t hash_pool = 0;
    {
        Pool pool(threads);
        World w = make(scene, threads, &pool);
        if (!w) return 1;
        for (long s = 0; s < steps; s++) th_world_step(w.get());
        // Between steps the world is a consistent snapshot: read every agent.
        th_agent_view v = th_world_agents(w.get());
        double speed = 0.0;
        for (uint32_t i = 0; i < v.count; i++) {
            th_vec2 vel = th_v2(v.vx[i], v.vy[i]);
            speed += th_v2_len(vel);
        }
        th_world_stats st = th_world_get_stats(w.get());
        std::printf(
            "host pool: %u threads, %llu steps, %u agents, mean speed %.3f m/s, %u sheltered\n",
            pool.size(), static_cast<unsigned long long>(st.step), v.count,
            v.count ? speed / v.count : 0.0, st.sheltered);
        for (uint32_t i = 0; i < v.count && i < 3; i++) {
            th_agent_state a;
            if (!th_world_get_agent(w.get(), v.id[i], &a)) return 1;
            std::printf("agent %u crowd %u at (%.3f, %.3f)\n", a.id.index1, a.crowd.index1 - 1,
                        a.position.x, a.position.y);
        }
        hash_pool = th_world_hash(w.get());
        std::printf("hash 0x%016llx\n", static_cast<unsigned long long>(hash_pool));
    }
    // The same world on the built-in pool gives the same state.
    World w = make(scene, threads, nullptr);
    if (!w) return 1;
    for (long s = 0; s < steps; s++) th_world_step(w.get());
    uint64_t hash_builtin = th_world_hash(w.get());
    std::printf("built-in pool hash 0x%016llx: %s\n", static_cast<unsigned long long>(hash_builtin),
                hash_builtin == hash_pool ? "same" : "DIFFERENT");
    return hash_builtin == hash_pool ? 0 : 1;
}
