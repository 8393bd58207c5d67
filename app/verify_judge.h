/* The judges of `throng verify` that weigh several measured figures: pure functions of what the
 * runs measured, kept apart from the runs so that a test can hand each one a result that must
 * fail (tests/test_verify_judge.c) and show that the judge can fail. docs/verification.md states
 * each criterion with its source. */
#ifndef TH_APP_VERIFY_JUDGE_H
#define TH_APP_VERIFY_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fruin (1971), level of service on walkways: E begins below 0.93 m2 a person, 1.08 persons/m2.
 * Above it walkers queue (congestion); at or below it they walk (no congestion). */
#define TH_VJ_CONGESTED 1.08

/* ---- a door's maximum flow (IMO 4, ISO 11, NIST 5.2) ------------------------------------- */

typedef struct th_vj_door {
    uint32_t n, out; /* persons in the room, out by the end */
    double flow;     /* (N - 1) / (t_last - t_first) through the door, persons/s */
    double limit;    /* the criterion, persons/s (1.33) */
} th_vj_door;

/** Everyone out, and the flow at most the limit. */
bool th_vj_door_pass(const th_vj_door *d);

/* ---- RiMEA 12: a queue before a bottleneck, none after it -------------------------------- */

typedef struct th_vj_rimea12 {
    uint32_t n, out;   /* persons, and out of room B by the end */
    double before;     /* density in front of the corridor, persons/m2, averaged over the
                          steps between the 10 % and the 90 % passage of its end */
    double after;      /* ... just past the corridor */
    double exit_front; /* ... in front of room B's exit */
    double j_corridor; /* flow at the corridor's end, persons/s, 10 % to 90 % person */
    double j_exit;     /* flow out of room B, the same way */
} th_vj_rimea12;

/** Everyone out; congested before the corridor (mean density above TH_VJ_CONGESTED); not after
 *  it, nor in front of the last exit (their mean densities at most that); and the last exit
 *  keeps up with the corridor (its flow at least the corridor's less 0.05 persons/s). */
bool th_vj_rimea12_pass(const th_vj_rimea12 *r);

/* ---- ISO 10, NIST 5.1, IMO 11: congestion at a room's exit and at a stair's foot ------ */

typedef struct th_vj_congestion {
    uint32_t n, out;          /* persons, and out by the end */
    double room_exit, middle; /* densities across the room's opening and mid-corridor,
                                 persons/m2, averaged over the steps from the 10 % to the 90 %
                                 passage of the stair's foot */
    double stair_foot;        /* ... just before the stair */
    double j_early, j_late;   /* the exit's flow over the 10-50 % and the 50-90 % persons */
} th_vj_congestion;

/** Everyone out; congestion (mean density above TH_VJ_CONGESTED) both across the room's
 *  opening and at the stair's foot; the flow settled: j_early and j_late within 20 % of
 *  their mean. The middle of the corridor is reported, not judged. */
bool th_vj_congestion_pass(const th_vj_congestion *c);

/* ---- ISO 13: the corridor's speed against the model's input fundamental diagram --------- */

/** Whether speed v (m/s) at density rho (persons/m2) agrees with the model's input relation,
 *  Weidmann's (th_vs_weidmann_speed): within 20 % of it or 0.1 m/s, whichever is wider. */
bool th_vj_iso13_point(double rho, double v);

/* ---- ISO 7, NIST 2.10: a slow walker in a corridor the others can pass ------------------- */

typedef struct th_vj_impaired {
    double walk;         /* the slow walker's own time: its distance over its free speed, s */
    double t_slow;       /* when it got out, s */
    double others_with;  /* the last of the others out with the slow walker there, s */
    double others_alone; /* ... in the control run, where it walks like the others (shown) */
    double t_control;    /* the control run's evacuation time, s */
} th_vj_impaired;

/** The stated expectation: the evacuation takes max(control, walk), within 10 %; the slow
 *  walker is out between its own walking time and 10 % more; the others overtake it (all out
 *  before it: a model that holds them behind it fails); and the evacuation is longer than the
 *  control's. `others_alone` is reported, not judged. */
bool th_vj_impaired_pass(const th_vj_impaired *d);

/* ---- ISO 15, NIST 3.2: social influence on exit choice --------------------------------- */

/** The same seeds in both scenarios draw the same numbers for the same occupants (common random
 *  numbers), so the occupants whose exit differs between them changed it because of the third
 *  occupant: `to_allocated` switched to the allocated exit, `away` from it. Passes when the
 *  switches toward it outnumber those away by McNemar's exact test, one-sided p < 0.05 (the
 *  binomial tail of to_allocated among all switches at 1/2); *p gets the p-value. */
bool th_vj_social_pass(uint32_t to_allocated, uint32_t away, double *p);

/* ---- ISO 16, NIST 3.3: affiliation ---------------------------------------------------- */

/** 50/50 familiarity: the exits' counts differ by at most 10 % of those out; 20/80: the
 *  familiar exit's count above half by the exact binomial test, one-sided p < 0.05 (*p). */
bool th_vj_affiliation_pass(uint32_t west50, uint32_t east50, uint32_t west80, uint32_t east80,
                            double *p);

/* ---- ISO 12 and RiMEA 13: stairs ------------------------------------------------------------ */

/* Widest spread of a stair's flow per metre of width from the mean over its widths that ISO 12
 * accepts: the hand calculation that codes use (and the test's widths probe) takes a stair's
 * flow as its specific flow times its width, so the flow must grow in proportion to width,
 * not merely grow. */
#define TH_VJ_STAIR_SPREAD 0.20

/** ISO 12: flows (persons/s) through n stairs of increasing widths (m). Passes when every flow
 *  is finite and above the one before, and each flow per metre lies within TH_VJ_STAIR_SPREAD
 *  of their mean; *spread is the largest relative deviation found. */
bool th_vj_stair_flow_pass(const double *width, const double *flow, int n, double *spread);

/* Density bins RiMEA 13 needs both directions to hold (JuPedSim's version of the test). */
#define TH_VJ_STAIR_BINS 5

/** RiMEA 13: mean speeds along the slope up and down in the density bins both directions held
 *  (`common` of them). Passes with at least TH_VJ_STAIR_BINS bins and down faster than up in
 *  every one. */
bool th_vj_rimea13_pass(const double *up, const double *down, uint32_t common);

/* ---- RiMEA 16: the single-file fundamental diagram ---------------------------------------- */

/* The reference: 10, 50 and 90 % speed percentiles per 0.2 persons/m density bin of the
 * single-file experiments collected in PedestrianDynamics/SingleFileComparator (MIT; Seyfried
 * et al. 2005 and 26 more data sets), as published in PedestrianDynamics/jupedsim-web-community,
 * scripts/scenarios/rimea16_percentile_reference.csv (MIT), the table JuPedSim's RiMEA 16 test
 * reads. Bin b holds the densities [lo, lo + 0.2), lo = TH_VJ_R16_LO + 0.2 b: the table lists
 * each bin by its lower edge (SingleFileComparator's KS.percentiles). */
#define TH_VJ_R16_BINS 13     /* the bins carried: densities 0.0989 to 2.6989 persons/m */
#define TH_VJ_R16_LO   0.0989 /* the first bin's lower edge, persons/m */
#define TH_VJ_R16_DX   0.2
#define TH_VJ_R16_MIN  200 /* samples a bin needs to be judged */

typedef struct th_vj_r16_ref {
    double lo, v10, v50, v90; /* lower edge (persons/m); speed percentiles (m/s) */
} th_vj_r16_ref;

extern const th_vj_r16_ref th_vj_r16_band[TH_VJ_R16_BINS];

typedef struct th_vj_rimea16 {
    uint32_t count[TH_VJ_R16_BINS]; /* samples in each bin */
    double median[TH_VJ_R16_BINS];  /* their median speed, m/s; NaN when none */
    uint32_t outside;               /* samples at densities outside the bins carried */
} th_vj_rimea16;

/** Bin samples (rho[i] persons/m, v[i] m/s), i < n, into r. Reorders v and rho. */
void th_vj_rimea16_bin(double *rho, double *v, size_t n, th_vj_rimea16 *r);

/** Whether bin b is judged (at least TH_VJ_R16_MIN samples) and its median inside the band
 *  [v10, v90]. */
bool th_vj_rimea16_inside(const th_vj_rimea16 *r, int b);

/** The bins with at least TH_VJ_R16_MIN samples are judged (*judged of them; *inside of those
 *  have their median speed within the bin's [v10, v90]); passes when at least one bin is judged
 *  and at least 75 % of the judged bins are inside, the criterion JuPedSim applies (RiMEA
 *  gives no number). */
bool th_vj_rimea16_pass(const th_vj_rimea16 *r, uint32_t *judged, uint32_t *inside);

#endif
