/* throng: fire hazards, smoke that slows walking and toxic gases that incapacitate
 * (docs/hazards.md).
 *
 * A hazard is a rectangle of the map with values given at times: the smoke's extinction
 * coefficient and the concentrations of carbon monoxide, carbon dioxide, oxygen and hydrogen
 * cyanide. Between two given times a value changes linearly; before the first it holds the
 * first, after the last the last. Where hazards overlap, the one added last covers the others
 * (a file of per-cell values is a hazard per cell). Outside every hazard the air is clean.
 *
 * What the agents make of it (every crowd, either model):
 *   - smoke slows walking: the free speed (the top speed of boids) is scaled by
 *     max(smoke_min_factor, 1 - smoke_slope K), K the extinction coefficient (1/m) where the
 *     agent stands; the two are crowd parameters (Frantzich and Nilsson 2003 by default);
 *   - the gases give a fractional effective dose (FED, Purser), accumulated in every step from
 *     the concentrations where the agent stands, waiting or walking:
 *       dFED/dt = (FED_CO + FED_CN) HV_CO2 + FED_O2, per minute
 *       FED_CO = 2.764e-5 CO^1.036            (CO in ppm)
 *       FED_CN = exp(HCN / 43) / 220 - 0.0045 (HCN in ppm; not below 0)
 *       HV_CO2 = exp(0.1903 CO2 + 2.0004) / 7.1 (CO2 in volume %)
 *       FED_O2 = 1 / exp(8.13 - 0.54 (20.9 - O2))  (O2 in volume %: Purser's time to
 *                incapacitation by hypoxia, in minutes, inverted)
 *     An agent whose dose reaches 1 is incapacitated: it stops where it is for good (bodies
 *     still push it), is never judged stalled, and is counted apart.
 * The values of a step are those at the step's start time (th_world_step_count x timestep).
 * Hazards need a map (th_world_def.cell_size > 0). Deterministic for any thread count; nothing
 * allocates in a step. Units: metres, seconds. */
#ifndef THRONG_HAZARD_H
#define THRONG_HAZARD_H

#include "throng.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Clean air: the values outside every hazard, and of a hazard key's fields left at these. */
#define TH_AIR_O2_PERCENT  20.9f
#define TH_AIR_CO2_PERCENT 0.04f

/** Most keys one hazard may have. */
#define TH_MAX_HAZARD_KEYS 4096u

/** The air at one place and time. */
typedef struct th_air {
    float extinction; /* smoke's extinction coefficient, 1/m, >= 0 */
    float co;         /* carbon monoxide, ppm, >= 0 */
    float co2;        /* carbon dioxide, volume %, in [0, 100] */
    float o2;         /* oxygen, volume %, in [0, 100] */
    float hcn;        /* hydrogen cyanide, ppm, >= 0 */
} th_air;

/** Clean air: no smoke, no CO or HCN, TH_AIR_CO2_PERCENT and TH_AIR_O2_PERCENT. */
TH_API th_air th_clean_air(void);

/** The air of a hazard at a time. */
typedef struct th_hazard_key {
    float time; /* seconds of world time, >= 0; keys in increasing time order */
    th_air air;
} th_hazard_key;

/** A hazard: a rectangle (metres, clipped to the world; it covers every cell whose centre lies
 *  inside) and its keys, copied. */
typedef struct th_hazard_def {
    float x, y, width, height;
    const th_hazard_key *keys;
    uint32_t key_count; /* 1 .. TH_MAX_HAZARD_KEYS */
} th_hazard_def;

/** Add a hazard. False with `err` set for a world without a map, a rectangle that is not
 *  finite, has no area or covers no cell centre, no keys or too many, times that are negative,
 *  not finite or not increasing, or a value out of its range. May allocate; call it between
 *  steps. */
TH_API bool th_world_add_hazard(th_world *w, const th_hazard_def *def, th_error *err);

/** Hazards added. */
TH_API uint32_t th_world_hazard_count(const th_world *w);

/** The air at `p` as agents breathe it in the next step (the values at the world's current
 *  time). False (and clean air in `*out`) for a null world or pointer, or `p` outside the
 *  world. */
TH_API bool th_world_air(const th_world *w, th_vec2 p, th_air *out);

/** Purser's dose rate (FED per second) in the given air, the formula above. */
TH_API double th_fed_rate(const th_air *air);

/** The smoke speed factor of a crowd in extinction `k`: max(smoke_min_factor,
 *  1 - smoke_slope k), in (0, 1]. 1 for a null or unknown crowd. */
TH_API float th_world_smoke_factor(const th_world *w, th_crowd_id crowd, float k);

/** A crowd's exposure: of its agents held in this process. */
typedef struct th_hazard_info {
    uint32_t incapacitated; /* agents whose dose reached 1 */
    double first_s;         /* world time of the first of them (0 when none), seconds */
    double max_fed;         /* the highest dose of its agents (0 when none) */
} th_hazard_info;

/** False for a null world or pointer, an unknown crowd, or a world without hazards. */
TH_API bool th_world_get_hazard_info(const th_world *w, th_crowd_id crowd, th_hazard_info *out);

/** One agent's dose so far and, when it reached 1, the world time it did (seconds; negative
 *  while it has not). False for an unknown agent or a world without hazards. */
TH_API bool th_world_agent_fed(const th_world *w, th_agent_id id, double *fed,
                               double *incapacitated_at);

#ifdef __cplusplus
}
#endif

#endif
