/* The published measurements `throng validate` compares with, one table per source, each with
 * its citation and where its numbers were read (docs/validation.md, "The data"). The same
 * numbers are written out by hand in tests/data/validation_published.csv, and
 * tests/test_validate_data.c checks that the two agree, so a typo in either fails. */
#include <math.h>
#include <string.h>

#include "validate.h"

#define ROWS(a) a, sizeof a / sizeof a[0]

#define JPS_TEST13                                                                                 \
    "JuPedSim jpscore, systemtest/Validation/test_13/experiments/ (values read off the published " \
    "compilation of bottleneck flows against width, its figure b-J.png)"

/* ---- bottleneck flow J [1/s] against width b [m] ----------------------------------------------
 */

static const th_val_row k_kretz2006[] = {
    {0.4, 0.4, 0.879}, {0.4, 0.4, 0.899}, {0.5, 0.5, 1.007}, {0.5, 0.5, 1.036}, {0.6, 0.6, 1.124},
    {0.7, 0.7, 1.222}, {0.7, 0.7, 1.251}, {0.8, 0.8, 1.388}, {0.8, 0.8, 1.417}, {0.8, 0.8, 1.456},
    {0.9, 0.9, 1.534}, {0.9, 0.9, 1.583}, {0.9, 0.9, 1.632}, {1.0, 1.0, 1.710}, {1.0, 1.0, 1.808},
    {1.0, 1.0, 1.876}, {1.0, 1.0, 2.023}, {1.2, 1.2, 2.033}, {1.2, 1.2, 2.111}, {1.2, 1.2, 2.287},
};

static const th_val_table k_t_kretz2006 = {
    "kretz2006",
    "Kretz 2006",
    "T. Kretz, A. Gruenebohm, M. Schreckenberg, \"Experimental study of pedestrian flow through a "
    "bottleneck\", J. Stat. Mech. (2006) P10014, doi:10.1088/1742-5468/2006/10/P10014",
    "FIG-DIGITISED",
    JPS_TEST13 ", file 2006Kretz.txt, series 2006_Kretz",
    "b [m]",
    "J [1/s]",
    ROWS(k_kretz2006)};

static const th_val_row k_seyfried2009[] = {
    {0.8, 0.8, 1.288}, {0.9, 0.9, 1.674}, {1.0, 1.0, 1.900}, {1.1, 1.1, 2.123}, {1.2, 1.2, 2.364},
};

static const th_val_table k_t_seyfried2009 = {
    "seyfried2009",
    "Seyfried 2009",
    "A. Seyfried, O. Passon, B. Steffen, M. Boltes, T. Rupprecht, W. Klingsch, \"New insights into "
    "pedestrian flow through bottlenecks\", Transportation Science 43(3) (2009) 395-406, "
    "doi:10.1287/trsc.1090.0263",
    "FIG-DIGITISED",
    JPS_TEST13 ", file 2009Seyfried.txt, series 2009_Seyfried",
    "b [m]",
    "J [1/s]",
    ROWS(k_seyfried2009)};

static const th_val_row k_mueller1981[] = {
    {0.6, 0.6, 1.482}, {0.9, 0.9, 2.264}, {1.2, 1.2, 2.751}, {1.5, 1.5, 3.574}, {1.8, 1.8, 3.817},
};

static const th_val_table k_t_mueller1981 = {
    "mueller1981",
    "Mueller 1981",
    "K. Mueller, \"Zur Gestaltung und Bemessung von Fluchtwegen fuer die Evakuierung von Personen "
    "aus Bauwerken auf der Grundlage von Modellversuchen\", dissertation, Technische Hochschule "
    "Magdeburg (1981)",
    "FIG-DIGITISED",
    JPS_TEST13 ", file 1981Mueller.txt, series 1981_Mueller",
    "b [m]",
    "J [1/s]",
    ROWS(k_mueller1981)};

static const th_val_row k_nagai2006[] = {
    {0.8, 0.8, 1.737},
    {1.2, 1.2, 2.582},
    {1.6, 1.6, 3.257},
    {2.0, 2.0, 3.874},
};

static const th_val_table k_t_nagai2006 = {
    "nagai2006",
    "Nagai 2006",
    "R. Nagai, M. Fukamachi, T. Nagatani, \"Evacuation of crawlers and walkers from corridor "
    "through an exit\", Physica A 367 (2006) 449-460",
    "FIG-DIGITISED",
    JPS_TEST13 ", file 2006Nagai.txt, series 2006_Nagai *",
    "b [m]",
    "J [1/s]",
    ROWS(k_nagai2006)};

/* Where the file holds several runs at a width, the digest gives their least and greatest. */
static const th_val_row k_daamen2010[] = {
    {0.5, 0.5, 1.057},  {0.5, 0.5, 1.114},  {0.85, 0.85, 2.28}, {0.85, 0.85, 2.35},
    {1.0, 1.0, 2.54},   {1.0, 1.0, 2.77},   {1.1, 1.1, 2.47},   {1.1, 1.1, 2.62},
    {1.65, 1.65, 3.59}, {1.65, 1.65, 3.90}, {2.75, 2.75, 5.68}, {2.75, 2.75, 6.47},
};

static const th_val_table k_t_daamen2010 = {
    "daamen2010",
    "Daamen 2010",
    "W. Daamen, S. P. Hoogendoorn, \"Emergency door capacity: influence of door width, population "
    "composition and stress level\", Fire Technology 48(1) (2012) 55-71, "
    "doi:10.1007/s10694-010-0202-9 (online 2010); the series file names no paper, this one is "
    "identified by its door widths",
    "FIG-DIGITISED",
    JPS_TEST13 ", file 2010Daamen.txt, series 2010_Daamen (least and greatest run at each width)",
    "b [m]",
    "J [1/s]",
    ROWS(k_daamen2010)};

#define LIAO2014                                                                                   \
    "W. Liao, A. Seyfried, J. Zhang, M. Boltes, X. Zheng, Y. Zhao, \"Experimental study on "       \
    "pedestrian flow through wide bottleneck\", Transportation Research Procedia 2 (2014) 26-33, " \
    "doi:10.1016/j.trpro.2014.09.005"

static const th_val_row k_liao2014_fig[] = {
    {2.4, 2.4, 5.803}, {3.0, 3.0, 6.700}, {3.6, 3.6, 8.435}, {4.4, 4.4, 9.534}, {5.0, 5.0, 11.576},
};

static const th_val_table k_t_liao2014_fig = {"liao2014-fig",
                                              "Liao 2014",
                                              LIAO2014,
                                              "FIG-DIGITISED",
                                              JPS_TEST13 ", file 2009AO.txt, series AO",
                                              "b [m]",
                                              "J [1/s]",
                                              ROWS(k_liao2014_fig)};

static const th_val_row k_liao2014_data[] = {
    {2.4, 2.4, 6.07}, {3.0, 3.0, 7.17}, {3.6, 3.6, 8.96}, {4.4, 4.4, 10.87}, {5.0, 5.0, 13.82},
};

static const th_val_table k_t_liao2014_data = {
    "liao2014-data",
    "Liao 2014 (trajectories)",
    LIAO2014,
    "DATA-DERIVED",
    "PedestrianDynamics/jupedsim-dakota-calibration, hermes/exp_observables.json: PedPy on the "
    "archive trajectories ao-<b>-400 (doi:10.34735/ped.2009.6), crossings of a line in the gap "
    "between 10 % and 90 % of all",
    "b [m]",
    "J [1/s]",
    ROWS(k_liao2014_data)};

/* ---- corridors: Zhang et al. 2011 (unidirectional) and 2012 (bidirectional) -------------------
 */

#define ZHANG2011                                                                                  \
    "J. Zhang, W. Klingsch, A. Schadschneider, A. Seyfried, \"Transitions in pedestrian "          \
    "fundamental diagrams of straight corridors and T-junctions\", J. Stat. Mech. (2011) P06004, " \
    "arXiv:1102.4766"

#define UO_ORIGIN                                                                                 \
    "JuPedSim jpscore, systemtest/Validation/3test_UO/data/uo-*-300-*.dat: the 3.0 m corridor, "  \
    "ten runs, 571 stationary Voronoi samples (area x in [9, 11], y in [1.3, 3.7]), the mean of " \
    "each density bin"

static const th_val_row k_zhang2011_uo_v[] = {
    {0.0, 0.5, 1.49}, {0.5, 1.0, 1.42}, {1.0, 1.5, 1.20}, {1.5, 2.0, 1.04},
    {2.0, 2.5, 0.53}, {2.5, 3.0, 0.39}, {3.0, 3.5, 0.22}, {3.5, 4.0, 0.16},
};

static const th_val_table k_t_zhang2011_uo_v = {
    "zhang2011-uo-v", "Zhang 2011", ZHANG2011, "DATA-DERIVED",
    UO_ORIGIN,        "rho [1/m2]", "v [m/s]", ROWS(k_zhang2011_uo_v)};

static const th_val_row k_zhang2011_uo_js[] = {
    {0.0, 0.5, 0.56}, {0.5, 1.0, 0.92}, {1.0, 1.5, 1.53}, {1.5, 2.0, 1.75},
    {2.0, 2.5, 1.23}, {2.5, 3.0, 1.03}, {3.0, 3.5, 0.71}, {3.5, 4.0, 0.57},
};

static const th_val_table k_t_zhang2011_uo_js = {
    "zhang2011-uo-js", "Zhang 2011", ZHANG2011,      "DATA-DERIVED",
    UO_ORIGIN,         "rho [1/m2]", "Js [1/(m s)]", ROWS(k_zhang2011_uo_js)};

static const th_val_row k_zhang2012_bo_js[] = {
    {0.0, 0.5, 0.62}, {0.5, 1.0, 0.93}, {1.0, 1.5, 1.26}, {1.5, 2.0, 1.36},
    {2.0, 2.5, 1.29}, {2.5, 3.0, 1.25}, {3.0, 3.5, 1.28},
};

static const th_val_table k_t_zhang2012_bo_js = {
    "zhang2012-bo-js",
    "Zhang 2012",
    "J. Zhang, W. Klingsch, A. Schadschneider, A. Seyfried, \"Ordering in bidirectional pedestrian "
    "flows and its influence on the fundamental diagram\", J. Stat. Mech. (2012) P02002, "
    "doi:10.1088/1742-5468/2012/02/P02002",
    "DATA-DERIVED",
    "JuPedSim jpscore, systemtest/Validation/7test_BO/data/bot-360-*.dat: the 3.6 m corridor, "
    "seven runs, 314 Voronoi samples, the mean of each density bin",
    "rho [1/m2]",
    "Js [1/(m s)]",
    ROWS(k_zhang2012_bo_js)};

/* ---- T-junction and corner: Zhang et al. 2011/2012 ------------------------------------------- */

#define TURNING                                                                                    \
    "; J. Zhang, W. Klingsch, T. Rupprecht, A. Schadschneider, A. Seyfried, \"Empirical study of " \
    "turning and merging of pedestrian streams in T-junction\", arXiv:1112.5299"

#define KO_ORIGIN                                                                              \
    "JuPedSim jpscore, systemtest/Validation/6test_KO/data/ko-240-<b>-240_id_1.dat (the main " \
    "corridor after the merge, area x in [-2.4, 0], y in [1, 3])"

static const th_val_row k_zhang_ko_main_js[] = {
    {0.5, 1.0, 0.94}, {1.0, 1.5, 1.31}, {1.5, 2.0, 1.52}, {2.0, 2.5, 1.67}, {2.5, 3.0, 1.81},
};

static const th_val_table k_t_zhang_ko_main_js = {"zhang-ko-main-js",
                                                  "Zhang 2011 T-junction",
                                                  ZHANG2011 TURNING,
                                                  "DATA-DERIVED",
                                                  KO_ORIGIN ", all entrance widths, bin means",
                                                  "rho [1/m2]",
                                                  "Js [1/(m s)]",
                                                  ROWS(k_zhang_ko_main_js)};

/* The mean specific flow of each run in the main corridor, by the entrance width of its run. */
static const th_val_row k_zhang_ko_main_runs[] = {
    {0.5, 0.5, 1.01}, {0.6, 0.6, 1.07}, {0.8, 0.8, 1.51}, {1.0, 1.0, 1.60},
    {1.2, 1.2, 1.58}, {1.5, 1.5, 1.65}, {2.4, 2.4, 1.66},
};

static const th_val_table k_t_zhang_ko_main_runs = {"zhang-ko-main-runs",
                                                    "Zhang 2011 T-junction",
                                                    ZHANG2011 TURNING,
                                                    "DATA-DERIVED",
                                                    KO_ORIGIN ", the mean of each run",
                                                    "entrance b [m]",
                                                    "Js [1/(m s)]",
                                                    ROWS(k_zhang_ko_main_runs)};

static const th_val_row k_zhang_ko_branch_js[] = {
    {0.5, 1.0, 0.71}, {1.0, 1.5, 0.93}, {1.5, 2.0, 0.98},
    {2.0, 2.5, 0.88}, {2.5, 3.0, 0.96}, {3.0, 3.5, 1.01},
};

static const th_val_table k_t_zhang_ko_branch_js = {
    "zhang-ko-branch-js",
    "Zhang 2011 T-junction",
    ZHANG2011 TURNING,
    "DATA-DERIVED",
    "JuPedSim jpscore, systemtest/Validation/6test_KO/data/ko-240-<b>-240_id_{2,3}.dat (the two "
    "branches before the merge), all entrance widths, bin means",
    "rho [1/m2]",
    "Js [1/(m s)]",
    ROWS(k_zhang_ko_branch_js)};

#define CORNER                                                                                   \
    "J. Zhang, W. Klingsch, T. Rupprecht, A. Schadschneider, A. Seyfried, \"Empirical study of " \
    "turning and merging of pedestrian streams in T-junction\", arXiv:1112.5299 (the corner "    \
    "runs)"

#define EO_ORIGIN                                                                                 \
    "JuPedSim jpscore, systemtest/Validation/4test_EO/data/eo-240-<b>-240_id_{1,2}.dat (the two " \
    "areas of the 2.4 m corner; which is before the corner is not documented)"

static const th_val_row k_zhang_eo_area1_js[] = {
    {0.0, 0.5, 0.50}, {0.5, 1.0, 0.86}, {1.0, 1.5, 1.28}, {1.5, 2.0, 1.44}, {2.0, 2.5, 1.55},
};

static const th_val_table k_t_zhang_eo_area1_js = {
    "zhang-eo-area1-js", "Zhang corner, area 1",          CORNER,
    "DATA-DERIVED",      EO_ORIGIN ", area 1, bin means", "rho [1/m2]",
    "Js [1/(m s)]",      ROWS(k_zhang_eo_area1_js)};

static const th_val_row k_zhang_eo_area2_js[] = {
    {0.0, 0.5, 0.49},
    {0.5, 1.0, 0.86},
    {1.0, 1.5, 1.30},
    {1.5, 2.0, 1.47},
};

static const th_val_table k_t_zhang_eo_area2_js = {
    "zhang-eo-area2-js", "Zhang corner, area 2",          CORNER,
    "DATA-DERIVED",      EO_ORIGIN ", area 2, bin means", "rho [1/m2]",
    "Js [1/(m s)]",      ROWS(k_zhang_eo_area2_js)};

/* The mean specific flow of run eo-240-240-240 (entrance 2.4 m, the highest inflow), by area. */
static const th_val_row k_zhang_eo_240[] = {
    {1.0, 1.0, 1.52},
    {2.0, 2.0, 1.40},
};

static const th_val_table k_t_zhang_eo_240 = {"zhang-eo-240",
                                              "Zhang corner eo-240-240-240",
                                              CORNER,
                                              "DATA-DERIVED",
                                              EO_ORIGIN ", run eo-240-240-240, the mean by area",
                                              "area",
                                              "Js [1/(m s)]",
                                              ROWS(k_zhang_eo_240)};

const th_val_table *const th_val_tables[] = {
    &k_t_kretz2006,          &k_t_seyfried2009,      &k_t_mueller1981,
    &k_t_nagai2006,          &k_t_daamen2010,        &k_t_liao2014_fig,
    &k_t_liao2014_data,      &k_t_zhang2011_uo_v,    &k_t_zhang2011_uo_js,
    &k_t_zhang2012_bo_js,    &k_t_zhang_ko_main_js,  &k_t_zhang_ko_main_runs,
    &k_t_zhang_ko_branch_js, &k_t_zhang_eo_area1_js, &k_t_zhang_eo_area2_js,
    &k_t_zhang_eo_240,
};

const size_t th_val_table_count = sizeof th_val_tables / sizeof th_val_tables[0];

const th_val_table *th_val_find(const char *id) {
    for (size_t k = 0; k < th_val_table_count; k++)
        if (strcmp(th_val_tables[k]->id, id) == 0) return th_val_tables[k];
    return NULL;
}

/* The least and greatest y of the rows at x0 == x (false when there are none). */
static bool range_exact(const th_val_table *t, double x, double *lo, double *hi) {
    bool any = false;
    for (size_t i = 0; i < t->n; i++) {
        if (fabs(t->rows[i].x0 - x) > 1e-9) continue;
        const double y = t->rows[i].y;
        *lo = any ? fmin(*lo, y) : y;
        *hi = any ? fmax(*hi, y) : y;
        any = true;
    }
    return any;
}

bool th_val_range_at(const th_val_table *t, double x, double *lo, double *hi, bool *exact) {
    if (exact) *exact = false;
    if (!t || t->n == 0) return false;
    if (range_exact(t, x, lo, hi)) {
        if (exact) *exact = true;
        return true;
    }
    /* The nearest published widths below and above x. */
    double below = -INFINITY, above = INFINITY;
    for (size_t i = 0; i < t->n; i++) {
        const double b = t->rows[i].x0;
        if (b < x && b > below) below = b;
        if (b > x && b < above) above = b;
    }
    if (!isfinite(below) || !isfinite(above)) return false;
    double lo0, hi0, lo1, hi1;
    range_exact(t, below, &lo0, &hi0);
    range_exact(t, above, &lo1, &hi1);
    const double f = (x - below) / (above - below);
    *lo = lo0 + f * (lo1 - lo0);
    *hi = hi0 + f * (hi1 - hi0);
    return true;
}

const th_val_row *th_val_bin(const th_val_table *t, double x) {
    for (size_t i = 0; t && i < t->n; i++)
        if (x >= t->rows[i].x0 && x < t->rows[i].x1) return &t->rows[i];
    return NULL;
}

double th_val_max(const th_val_table *t) {
    double m = NAN;
    for (size_t i = 0; t && i < t->n; i++)
        if (isnan(m) || t->rows[i].y > m) m = t->rows[i].y;
    return m;
}
