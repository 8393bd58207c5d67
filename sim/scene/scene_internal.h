/* A scene file parsed and validated into plain data, before any world exists.
 *
 * Loading runs in two passes: scene_parse.c turns the YAML tree into a th_scene (every check
 * that can point at a line happens here, and the nodes are kept so that later checks can
 * still point at one), then scene_build.c makes the world through the public API. */
#ifndef TH_SCENE_INTERNAL_H
#define TH_SCENE_INTERNAL_H

#include "sim/scene/ydoc.h"
#include "throng/building.h"
#include "throng/hazard.h"
#include "throng/plan.h"
#include "throng/throng.h"

#define TH_SCENE_MAX_REGIONS 16
#define TH_SCENE_MAX_LEGEND  64
#define TH_SCENE_NO_LEGEND   255

typedef enum th_region_kind { TH_REGION_RECT, TH_REGION_CIRCLE, TH_REGION_LEGEND } th_region_kind;

/* Where a crowd's agents appear: metres for rect and circle, a legend entry's cells. */
typedef struct th_scene_region {
    th_region_kind kind;
    float x, y, w, h, r;
    uint8_t legend;
    const th_ynode *node;
} th_scene_region;

typedef struct th_scene_crowd {
    th_crowd_def def;
    char name[64];
    uint32_t count;
    th_scene_region region[TH_SCENE_MAX_REGIONS];
    uint32_t region_count;
    float initial_speed; /* m/s, random heading */
    const float *agents; /* explicit agents: x, y, vx, vy each; count of them = agent_count */
    uint32_t agent_count;
    const th_ynode *node, *spawn_node;
    /* The goal (scene_goal.c): def.goal, plus what the world must be given first. */
    th_destination *dest; /* DESTINATIONS: the goal cells of the crowd's own field */
    uint32_t dest_count;
    const th_ynode *goal_node;
    bool goal_exit; /* DESTINATIONS with `exit: true`: its goal cells are an exit for it */
    float goal_exit_max_flow; /* its `max_flow`: persons a second that exit lets out, 0 = any */
} th_scene_crowd;

/* A door's `max_flow` (bunkers, exits): persons a second, from a trickle to far above any
 * crowd's flow. */
#define TH_SCENE_MIN_FLOW 0.01
#define TH_SCENE_MAX_FLOW 1000.0

typedef struct th_scene_bunker {
    char name[64];
    int32_t x0, y0, x1, y1;
    bool placed; /* cells known (from `cells` or the legend) */
    uint32_t capacity;
    bool exit;
    float max_flow; /* persons a second at most, 0 = no limit */
    const th_ynode *node;
} th_scene_bunker;

/* A target; an agent target names a crowd and an index among its agents, resolved to an id
 * when the world is built. */
typedef struct th_scene_target {
    char name[64];
    th_target_def def;
    int32_t agent_crowd; /* -1 unless def.kind is TH_TARGET_AGENT */
    uint32_t agent_index;
    const th_ynode *node;
} th_scene_target;

typedef struct th_scene_squad {
    th_squad_def def;
    const th_ynode *node;
} th_scene_squad;

typedef struct th_scene_event {
    uint64_t step;
    th_event_def def;
    const th_ynode *node;
    int crowd; /* set_crowd: the crowd's index, and its change; -1 for the other events */
    th_crowd_tune tune;
} th_scene_event;

/* One legend entry: what a character (ASCII maps) or a colour (image maps) stands for. */
typedef struct th_legend_entry {
    uint32_t key; /* the character, or 0xRRGGBB */
    th_cell_kind kind;
    uint16_t cost;  /* open cells */
    float speed;    /* open cells: walking speed factor in (0, 1] */
    int32_t bunker; /* index into bunkers, or -1 */
    const th_ynode *node;
} th_legend_entry;

/* A measurement area or line and the node it came from (scene_measure.c). */
typedef struct th_scene_measure_area {
    th_measure_area_def def; /* def.name points at name */
    th_lane_def lanes;       /* axis TH_LANE_OFF without a `lanes` key */
    char name[64];
    const th_ynode *node;
} th_scene_measure_area;

typedef struct th_scene_measure_line {
    th_measure_line_def def; /* def.name points at name */
    char name[64];
    const th_ynode *node;
} th_scene_measure_line;

/* A spawner or an exit (scene_flow.c); def.name and def.cells point into the entry / arena. */
typedef struct th_scene_spawner {
    char name[64];
    th_spawner_def def;
    th_cell_ref *cells;
    const th_ynode *node;
} th_scene_spawner;

typedef struct th_scene_exit {
    char name[64];
    th_exit_def def;
    th_cell_ref *cells;
    th_crowd_id crowds[TH_MAX_CROWDS];
    const th_ynode *node;
} th_scene_exit;

/* A fire hazard and the node it came from (scene_hazard.c): its `hazards` entry, or that
 * entry's `file:` value for a rectangle of a table. */
typedef struct th_scene_hazard {
    th_hazard_def def; /* def.keys points at keys */
    th_hazard_key *keys;
    uint32_t key_count;
    uint32_t entry; /* index in the `hazards` list */
    const th_ynode *node;
} th_scene_hazard;

/* A level and a stair (scene_building.c). */
typedef struct th_scene_level {
    char name[64];
    int32_t rect[4];
    float elevation;
    const th_ynode *node;
} th_scene_level;
typedef struct th_scene_stair {
    char name[64];
    int32_t rect[4], landing[2];
    int up; /* th_stair_way */
    float length, speed_up, speed_down;
    const th_ynode *node;
} th_scene_stair;
/* An elevator (scene_building.c): its def's values, with levels and crowds as indices. */
typedef struct th_scene_elevator {
    char name[64];
    uint32_t stop_count, stop_level[TH_MAX_ELEVATOR_STOPS];
    int32_t stop_cell[TH_MAX_ELEVATOR_STOPS][2];
    uint32_t discharge, start, capacity;
    float speed, acceleration, door_time, dwell, board_time, radius;
    uint32_t crowd[TH_MAX_CROWDS], crowd_count;
    th_elevator_policy policy;
    float patience;
    const th_ynode *node;
} th_scene_elevator;

/* A group (scene_group.c): listed members (crowd, index among its agents) or a whole crowd in
 * groups of neighbours. */
typedef struct th_scene_group {
    const th_ynode *node;
    uint32_t *member; /* crowd and index pairs, `count` of them; NULL for a whole crowd */
    uint32_t count;
    int32_t crowd; /* a whole crowd, or -1 */
    uint32_t size_lo, size_hi;
    float spread;
} th_scene_group;

/* An agent's own goal (scene_agent_goal.c): the agent and, to follow, another, each a crowd
 * and an index among its agents. */
/* agent[1] of an entry that gives a whole crowd its goal (`crowd: NAME`). */
#define TH_SCENE_WHOLE_CROWD UINT32_MAX

typedef struct th_scene_agent_goal {
    const th_ynode *node;
    uint32_t agent[2], follow[2]; /* crowd and index; agent[1] may be TH_SCENE_WHOLE_CROWD */
    th_agent_goal goal;
    uint64_t step;            /* `at`, in steps: 0 = from the start */
    const th_ynode *priority; /* `priority`, or NULL */
} th_scene_agent_goal;

typedef struct th_scene {
    th_ydoc doc;
    bool allow_outside_paths; /* files the scene names may lie outside its folder */
    void (*file_read)(void *user, const char *path); /* th_scene_opts' hook, or NULL */
    void *file_read_user;
    char name[64];
    uint64_t seed;
    float timestep;
    float stall_time; /* seconds without progress before an agent is stalled; 0 = default */
    uint32_t threads;
    uint64_t steps;
    float width, height;
    th_bounds bounds;

    bool has_map;
    float cell_size;
    int32_t cols, rows;
    uint8_t *kind;   /* per cell, th_cell_kind; row 0 is the south edge */
    uint16_t *cost;  /* per cell, open cells */
    uint8_t *legend; /* per cell, legend entry index or TH_SCENE_NO_LEGEND */
    th_legend_entry legend_entry[TH_SCENE_MAX_LEGEND];
    uint32_t legend_count;
    /* The open cells of each legend key, for spawners and exits given as `cells: KEY`: counted
     * with each key's rows for all keys in one pass over the map, at the first such area, and
     * listed once per key (sim/scene/scene_flow.c). */
    struct th_scene_key_cells {
        bool counted;
        uint32_t open[TH_SCENE_MAX_LEGEND];
        int32_t row0[TH_SCENE_MAX_LEGEND], row1[TH_SCENE_MAX_LEGEND];
        th_cell_ref *list[TH_SCENE_MAX_LEGEND];
    } key_cells;

    th_scene_bunker bunker[TH_MAX_BUNKERS];
    uint32_t bunker_count;
    th_scene_crowd *crowd;
    uint32_t crowd_count;
    th_scene_event *event;
    uint32_t event_count;
    th_scene_target target[TH_MAX_TARGETS];
    uint32_t target_count;
    th_scene_squad *squad;
    uint32_t squad_count;
    th_scene_measure_area *measure_area;
    uint32_t measure_area_count;
    th_scene_measure_line *measure_line;
    uint32_t measure_line_count;
    th_scene_spawner *spawner;
    uint32_t spawner_count;
    th_scene_exit *exit;
    uint32_t exit_count;
    th_scene_hazard *hazard; /* th_alloc'd, grown as entries and tables add hazards */
    uint32_t hazard_count, hazard_cap;
    th_scene_group *group;
    uint32_t group_count;
    th_scene_agent_goal *agent_goal;
    uint32_t agent_goal_count;
    th_goal_planning goal_planning;     /* `goal_planning`, budget 0 when absent */
    const th_ynode *goal_planning_node; /* NULL when absent */
    th_scene_level *level;
    uint32_t level_count;
    th_scene_stair *stair;
    uint32_t stair_count;
    th_scene_elevator *elevator;
    uint32_t elevator_count;
    /* Told of each mapping the parser checks the keys of: its path and the keys accepted there
     * (th_scene_parse_keys); NULL while nobody asks. */
    void (*key_hook)(void *user, const char *path, const char *const *allowed);
    void *key_user;
} th_scene;

/* Shared by the scene sources: report a problem at a node as
 * "file:line:column: path: message", with the node's line and column in `err` (1:1 when `at` is
 * NULL: the file as a whole) and code TH_ERR_SCENE_VALUE, a value of the wrong type or out of
 * range. Always returns false. */
bool th_scene_fail(const th_scene *s, const th_ynode *at, const char *path, th_error *err,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same with another code: TH_ERR_SCENE_MISSING, TH_ERR_SCENE_KEY, TH_ERR_SCENE_IMAGE,
 * TH_ERR_IO, TH_ERR_NOMEM. */
bool th_scene_fail_code(const th_scene *s, const th_ynode *at, const char *path, th_error *err,
                        th_error_code code, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* A required key that is absent, reported at the mapping that lacks it. */
#define TH_SCENE_MISSING(s, n, path, err, ...) \
    th_scene_fail_code((s), (n), (path), (err), TH_ERR_SCENE_MISSING, __VA_ARGS__)
#define TH_SCENE_NOMEM(s, n, path, err, ...) \
    th_scene_fail_code((s), (n), (path), (err), TH_ERR_NOMEM, __VA_ARGS__)

/* The world refused something the parser let through: report it at the node it came from, in
 * the scene-error format, with the world's own words (already in err) as the reason and its
 * code kept (TH_ERR_BLOCKED, TH_ERR_LIMIT, ...). Returns false. */
bool th_scene_refused(const th_scene *s, const th_ynode *at, const char *path, th_error *err);

/* A decimal number: [+-]digits[.digits][e[+-]digits] (no fraction or exponent when
 * `integer`), the whole of t[0, len). */
bool th_scene_is_decimal(const char *t, size_t len, bool integer);

/* A whole number in [lo, hi] at `n`, or false with "expected a whole number in [lo, hi]". */
bool th_scene_u64(const th_scene *s, const th_ynode *n, const char *path, uint64_t lo, uint64_t hi,
                  uint64_t *out, th_error *err);

/* Whether the point (x, y) metres is on a walkable cell of the map (always true without one),
 * found the way the world finds it; with `no_bunker`, bunker cells do not count. */
bool th_scene_open_at(const th_scene *s, float x, float y, bool no_bunker);

/* scene_parse.c */
bool th_scene_parse(th_scene *s, const char *path, th_error *err);
/* The same, with the loader's options that concern reading it (NULL: none): whether files the
 * scene names (map.image, hazards[].file) may lie outside its folder, and the hook told of each
 * file read. */
bool th_scene_parse_ex(th_scene *s, const char *path, const th_scene_opts *opts, th_error *err);
/* The same from `len` bytes in memory, reported as file `name` (which must outlive `s`); image
 * maps are still read from files, relative to `name`'s folder. */
bool th_scene_parse_memory(th_scene *s, const char *name, const void *data, size_t len,
                           th_error *err);
/* th_scene_parse_memory telling `hook` of every mapping whose keys it checks, with the mapping's
 * path ("crowds[0].goal") and the NULL-terminated keys accepted there: the scene keys there are,
 * for tests that must meet every one. */
bool th_scene_parse_keys(th_scene *s, const char *name, const void *data, size_t len,
                         void (*hook)(void *user, const char *path, const char *const *allowed),
                         void *user, th_error *err);
void th_scene_free(th_scene *s);

/* A legend key (a character, or #rrggbb in image maps) at `v`: its entry's index. */
bool th_scene_legend(const th_scene *s, const th_ynode *v, const char *path, uint8_t *entry,
                     th_error *err);

/* scene_goal.c: a point [x, y] in metres inside the world and, with a map, on open ground;
 * `what` names it in the wall error ("waypoint", "node", ...). */
bool th_scene_open_point(th_scene *s, const th_ynode *v, const char *path, const char *what,
                         th_vec2 *out, th_error *err);

/* scene_goal.c: a crowd's `goal` (and the `behavior` it agrees with), and at build time the
 * destination field it needs, made before the crowd is added. */
bool th_scene_parse_goal(th_scene *s, th_scene_crowd *cr, const th_ynode *goal, const char *path,
                         th_error *err);
bool th_scene_build_goal(th_world *w, const th_scene *s, const th_scene_crowd *cr,
                         th_crowd_def *def, const char *path, th_error *err);
/* scene_movers.c: whether a goal mapping names a mover, and that mover's keys. */
bool th_scene_mover_goal(const th_ynode *goal);
bool th_scene_parse_mover(th_scene *s, th_scene_crowd *cr, const th_ynode *goal, const char *path,
                          th_error *err);
/* scene_forage.c: `goal: {forage: ...}` (ant-colony foraging). */
bool th_scene_parse_forage(th_scene *s, th_scene_crowd *cr, const th_ynode *n, const char *path,
                           th_error *err);

/* scene_file.c: the file a scene names at the scalar `file` (key path `path`; `what` names its
 * kind in messages, "PNG"), read whole: relative to the scene file's folder and, unless
 * s->allow_outside_paths, inside it (no absolute path, no `..`, no symbolic link on the way), a
 * regular file of 1 to `max_bytes` bytes. The path it was read from goes in `resolved`; the
 * bytes in *bytes (th_free them) and *len, or false with `err` filled at `file`. */
bool th_scene_read_file(const th_scene *s, const th_ynode *file, const char *path, const char *what,
                        size_t max_bytes, unsigned char **bytes, size_t *len, char *resolved,
                        size_t resolved_cap, th_error *err);
/* Why `name` leaves the scene's folder whatever exists ("an absolute path", "a path with
 * '..'"), or NULL. */
const char *th_scene_outside_by_name(const char *name, size_t len);

/* scene_map.c: fill kind/cost/legend from the `map` node (ascii, image or generated city). */
bool th_scene_read_map(th_scene *s, const th_ynode *map, th_error *err);

/* scene_parse.c: the checks every section uses, for sections kept in files of their own. */
bool th_scene_expect(const th_scene *s, const th_ynode *n, th_ynode_kind kind, const char *path,
                     th_error *err);
bool th_scene_known_keys(const th_scene *s, const th_ynode *map, const char *path,
                         const char *const *allowed, th_error *err);
bool th_scene_float(const th_scene *s, const th_ynode *n, const char *path, double lo, double hi,
                    double *out, th_error *err);
/* A list of exactly `count` numbers in [lo, hi]; returns count, or -1 with `err` filled. */
int th_scene_numbers(const th_scene *s, const th_ynode *n, const char *path, int count, double lo,
                     double hi, double *out, th_error *err);
bool th_scene_name(const th_scene *s, const th_ynode *n, const char *path, char *out, size_t cap,
                   th_error *err);
/* How a node reads in a message: 'text' for a scalar, else "a list" or "a mapping". */
const char *th_scene_found(const th_ynode *n, char *buf, size_t cap);

/* scene_measure.c: the `measure` section, read after the world's size is known, and handed
 * to the world once it is built. */
bool th_scene_parse_measure(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_build_measure(th_world *w, const th_scene *s, th_error *err);

/* scene_parse.c: a crowd by name (a scalar node), or -1. */
int th_scene_find_crowd(const th_scene *s, const th_ynode *name);

/* scene_group.c: the `groups` section, read after the crowds, and handed to the world once its
 * agents are in (first_id[c]: the id slot of crowd c's first agent; n[c]: its agents). */
bool th_scene_parse_groups(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_build_groups(th_world *w, const th_scene *s, const uint64_t *first_id,
                           const uint64_t *n, th_error *err);

/* scene_agent_goal.c: the `agent_goals` section, read after the crowds and bunkers, and given
 * to the world once its agents are in (as the groups). */
bool th_scene_parse_agent_goals(th_scene *s, const th_ynode *n, th_error *err);
/* The `goal_planning` mapping, read after the map and stairs. */
bool th_scene_parse_goal_planning(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_build_agent_goals(th_world *w, const th_scene *s, const uint64_t *first_id,
                                const uint64_t *n, th_error *err);

/* scene_building.c: the `levels` and `stairs` sections, read after the map, and handed to the
 * world after its cells and bunkers. */
bool th_scene_parse_levels(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_parse_stairs(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_build_building(th_world *w, const th_scene *s, th_error *err);
/* The `elevators` section, read after the crowds, and handed to the world once they are in. */
bool th_scene_parse_elevators(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_build_elevators(th_world *w, const th_scene *s, th_error *err);

/* scene_hazard.c: the `hazards` section, read after the map, and handed to the world once it
 * is built. */
bool th_scene_parse_hazards(th_scene *s, const th_ynode *n, th_error *err);
bool th_scene_build_hazards(th_world *w, const th_scene *s, th_error *err);

/* scene_flow.c: the `spawners` and `exits` sections, read after the crowds, and handed to the
 * world after its crowds and agents (with the exits of `exit: true` goals). */
bool th_scene_parse_flow(th_scene *s, const th_ynode *root, th_error *err);
bool th_scene_build_flow(th_world *w, const th_scene *s, th_error *err);
/* Agents the spawners add (the world's memory bound): those with a stop or a limit at most
 * that, those with neither (also put in *endless) what they add in the scene's `steps`. */
uint64_t th_scene_flow_agents(const th_scene *s, uint64_t *endless);

/* scene_build.c: the world of a parsed scene; with `checking`, one built only to be validated
 * (th_world_create_checking): the same calls, the same errors, no run-only structures. */
th_world *th_scene_build(const th_scene *s, const th_scene_opts *opts, bool checking,
                         th_error *err);

#endif
