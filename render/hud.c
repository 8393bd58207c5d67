/* The HUD panel, the profiler graph and the key help, drawn over the world in screen space. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "view_internal.h"

#define PANEL_BG   0xD0080A10u
#define PANEL_EDGE 0xFF2A3448u
#define TEXT       0xFFE8ECF4u
#define TEXT_DIM   0xFF8C96AAu
#define TEXT_HEAD  0xFF5FD0FFu
#define TEXT_WARN  0xFFFFB74Du

enum {
    SCALE = 2, /* font pixels are 2 x 2 screen pixels: 10 x 14 glyphs */
    LINE = TV_FONT_H * SCALE + 2,
    PAD = 10,
};

/* One colour per phase, shared by the HUD legend and the profiler graph. */
static const uint32_t phase_color[TH_PHASE_COUNT] = {
    [TH_PHASE_EVENTS] = 0xFF9EA8B8,      [TH_PHASE_NAV] = 0xFFFFB74D,
    [TH_PHASE_GRID] = 0xFF4FC3F7,        [TH_PHASE_STEER] = 0xFF81C784,
    [TH_PHASE_INTEGRATE] = 0xFFBA68C8,   [TH_PHASE_CONTACTS] = 0xFF4DB6AC,
    [TH_PHASE_BOOKKEEPING] = 0xFFF06292, [TH_PHASE_ADMIT] = 0xFFFFF176,
    [TH_PHASE_SQUADS] = 0xFFFF8A65,      [TH_PHASE_HISTORY] = 0xFF7986CB,
};
/* A phase added without a colour would be drawn transparent. */
_Static_assert(TH_PHASE_HISTORY + 1 == TH_PHASE_COUNT, "give every phase a colour above");

static void panel(tv_ctx *c, float x, float y, float w, float h) {
    tv_batch_rect(&c->geo, x, y, w, h, PANEL_BG);
    tv_batch_rect(&c->geo, x, y, w, 1, PANEL_EDGE);
    tv_batch_rect(&c->geo, x, y + h - 1, w, 1, PANEL_EDGE);
    tv_batch_rect(&c->geo, x, y, 1, h, PANEL_EDGE);
    tv_batch_rect(&c->geo, x + w - 1, y, 1, h, PANEL_EDGE);
}

/* Panels are drawn in two passes so text lands on top of its own background: the caller
 * queues the background, then text, then flushes geometry before text. */
static void flush(tv_ctx *c) {
    tv_batch_flush(c->r, &c->geo, NULL);
    tv_batch_flush(c->r, &c->text, c->font);
}

/* The HUD is at least this many characters wide, so live figures never resize it (a resize
 * would refit the map every frame). */
enum { HUD_CHARS = 30, HUD_NOTE_LINES = 2 };

/* How many of the world's bunkers are shelters and how many the scene calls exits. */
static void bunker_kinds(const th_world *w, uint32_t *shelters, uint32_t *exits) {
    *shelters = *exits = 0;
    for (uint32_t b = 0; b < th_world_bunker_count(w); b++) {
        th_bunker_info bi;
        if (th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi)) *(bi.exit ? exits : shelters) += 1;
    }
}

/* Overlays on, the flow one with the field it shows: "flow:nearest" or "flow:NAME". */
static void overlay_names(const tv_ctx *c, const th_world *w, char *ov, size_t cap) {
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{TH_VIEW_OVERLAY_FLOW, "flow"},     {TH_VIEW_OVERLAY_DENSITY, "dens"},
                 {TH_VIEW_OVERLAY_GRID, "grid"},     {TH_VIEW_OVERLAY_WALLDIST, "wall"},
                 {TH_VIEW_OVERLAY_SQUADS, "sqd"},    {TH_VIEW_OVERLAY_PROFILER, "prof"},
                 {TH_VIEW_OVERLAY_PHEROMONE, "pher"}};
    ov[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(c->overlays & names[i].bit)) continue;
        strncat(ov, ov[0] ? " " : "", cap - strlen(ov) - 1);
        strncat(ov, names[i].name, cap - strlen(ov) - 1);
        if (names[i].bit != TH_VIEW_OVERLAY_FLOW) continue;
        char name[96];
        strncat(ov, ":", cap - strlen(ov) - 1);
        strncat(ov, tv_flow_name(c, w, name, sizeof name), cap - strlen(ov) - 1);
    }
    if (!ov[0]) snprintf(ov, cap, "H: keys");
}

static const char *hud_title(const tv_ctx *c) { return c->title ? c->title : "throng"; }

SDL_FPoint tv_hud_size(const tv_ctx *c, const th_world *w, int scale) {
    const int S = scale, LN = TV_FONT_H * S + 2, PD = 5 * S;
    char ov[128];
    overlay_names(c, w, ov, sizeof ov);
    float wmax = (float)(HUD_CHARS * TV_FONT_W * S), t = tv_text_width(S, ov);
    if (t > wmax) wmax = t;
    t = tv_text_width(S, hud_title(c));
    if (t > wmax) wmax = t;
    /* The line of a level shown alone, with room for its agents to grow: the HUD keeps its
     * width whichever level is shown. */
    for (uint32_t i = 0; i < th_world_level_count(w); i++) {
        th_level_info li;
        char line[128];
        if (!th_world_get_level(w, (th_level_id){i + 1}, &li)) continue;
        snprintf(line, sizeof line, "level %s  %.4g m  agents 000000", li.name,
                 (double)li.elevation);
        t = tv_text_width(S, line);
        if (t > wmax) wmax = t;
    }
    int lines = 7 + (th_world_hazard_count(w) > 0) + (th_world_level_count(w) > 0) +
                HUD_NOTE_LINES + TH_PHASE_COUNT + 1;
    return (SDL_FPoint){wmax + 2 * PD, (float)(lines * LN + 2 * PD)};
}

static void draw_stats(tv_ctx *c, const th_world *w, const tv_rates *rt) {
    /* The layout picks the font scale: 2, or 1 where the larger HUD would shrink the map. */
    const int S = c->lay.hud_scale, LN = TV_FONT_H * S + 2, PD = 5 * S;
    th_world_stats st = th_world_get_stats(w);
    th_world_def d = th_world_get_def(w);
    char l[11 + HUD_NOTE_LINES][128];
    uint32_t lc[11 + HUD_NOTE_LINES];
    int n = 0;
    snprintf(l[n], sizeof l[n], "%s", hud_title(c));
    lc[n++] = TEXT_HEAD;
    /* The viewer keeps running once the scene is over (nothing more will move); it says so. */
    const bool over = th_world_scene_over(w);
    snprintf(l[n], sizeof l[n], "step %llu%s%s", (unsigned long long)st.step,
             rt->paused ? "   PAUSED" : "", over ? "   SCENE OVER" : "");
    lc[n++] = rt->paused || over ? TEXT_WARN : TEXT;
    if (rt->live)
        snprintf(l[n], sizeof l[n], "fps %.0f  steps/s %.0f  speed %gx", rt->fps, rt->steps_per_s,
                 rt->speed);
    else snprintf(l[n], sizeof l[n], "speed %gx", rt->speed);
    lc[n++] = TEXT;
    /* Worlds with exits (and no bunkers) say how many left rather than a sheltered count that
     * stays at zero. */
    uint32_t shelters, exits; /* bunkers, and those the scene calls exits */
    bunker_kinds(w, &shelters, &exits);
    const bool all_exits = exits > 0 && shelters == 0;
    if (st.exited > 0 || (th_world_exit_count(w) > 0 && th_world_bunker_count(w) == 0))
        snprintf(l[n], sizeof l[n], "agents %u  exited %u", st.agents, st.exited);
    else if (all_exits) snprintf(l[n], sizeof l[n], "agents %u  out %u", st.agents, st.sheltered);
    else snprintf(l[n], sizeof l[n], "agents %u  sheltered %u", st.agents, st.sheltered);
    lc[n++] = TEXT;
    snprintf(l[n], sizeof l[n], "stranded %u  threads %u", st.stranded, d.threads);
    lc[n++] = st.stranded ? TEXT_WARN : TEXT;
    /* Stalled: no progress toward their goal (ringed red on the map); waiting: standing out
     * their pre-movement time, in worlds where some crowd has one. */
    uint32_t waiting = 0;
    bool premove = false;
    th_pre_movement_info pm;
    for (uint32_t k = 0; k < th_world_crowd_count(w); k++) {
        if (!th_world_get_pre_movement(w, (th_crowd_id){k + 1}, &pm)) continue;
        premove = true;
        waiting += pm.waiting;
    }
    if (premove) snprintf(l[n], sizeof l[n], "stalled %u  waiting %u", st.stalled, waiting);
    else snprintf(l[n], sizeof l[n], "stalled %u", st.stalled);
    lc[n++] = st.stalled ? TEXT_WARN : TEXT;
    /* Fire hazards: agents whose dose reached 1, and the highest dose of anyone held. */
    if (th_world_hazard_count(w) > 0) {
        uint32_t down = 0;
        double top = 0.0;
        th_hazard_info hi;
        for (uint32_t k = 0; k < th_world_crowd_count(w); k++) {
            if (!th_world_get_hazard_info(w, (th_crowd_id){k + 1}, &hi)) continue;
            down += hi.incapacitated;
            if (hi.max_fed > top) top = hi.max_fed;
        }
        snprintf(l[n], sizeof l[n], "incapacitated %u  max FED %.2f", down, top);
        lc[n++] = down || top >= TV_FED_WARN ? TEXT_WARN : TEXT;
    }
    /* Buildings: the level shown alone, its elevation and the agents on it now; or how many
     * levels are drawn side by side. */
    if (th_world_level_count(w) > 0) {
        th_level_info li;
        if (c->level && th_world_get_level(w, (th_level_id){c->level}, &li))
            snprintf(l[n], sizeof l[n], "level %s  %.4g m  agents %u", li.name,
                     (double)li.elevation, li.agents);
        else snprintf(l[n], sizeof l[n], "levels: all %u (PgUp/PgDn)", th_world_level_count(w));
        lc[n++] = TEXT_HEAD;
    }
    /* Notices: queued clicks, saved screenshots (the last line says how many more). */
    for (int i = 0; i < HUD_NOTE_LINES; i++) {
        if (i == HUD_NOTE_LINES - 1 && c->note_count > HUD_NOTE_LINES)
            snprintf(l[n], sizeof l[n], "... and %d more", c->note_count - i);
        else snprintf(l[n], sizeof l[n], "%s", i < c->note_count ? c->notes[i] : "");
        lc[n++] = TEXT_WARN;
    }
    snprintf(l[n], sizeof l[n], "phase ms, last step");
    lc[n++] = TEXT_DIM;
    char ov[128];
    overlay_names(c, w, ov, sizeof ov);

    SDL_FRect r = c->lay.hud;
    float pw = r.w, col2 = (float)(8 * S) + tv_text_width(S, "bookkeeping ");
    float x = r.x, y = r.y;
    panel(c, x, y, pw, r.h);
    float ty = y + PD;
    /* Live lines longer than the panel are cut at its edge rather than widen it. */
    size_t fit = (size_t)((pw - 2 * PD) / (TV_FONT_W * S));
    for (int i = 0; i < n; i++, ty += LN) {
        if (strlen(l[i]) > fit) l[i][fit] = 0;
        tv_text(c, x + PD, ty, S, lc[i], l[i]);
    }
    for (int p = 0; p < TH_PHASE_COUNT; p++, ty += LN) {
        tv_batch_rect(&c->geo, x + PD, ty + 1, (float)(5 * S), (float)(5 * S), phase_color[p]);
        tv_text(c, x + PD + (float)(8 * S), ty, S, TEXT, th_phase_name((th_phase)p));
        char ms[32];
        snprintf(ms, sizeof ms, "%6.2f", th_world_phase_last_ms(w, (th_phase)p));
        tv_text(c, x + PD + col2, ty, S, TEXT, ms);
    }
    tv_text(c, x + PD, ty, S, TEXT_DIM, ov);
    flush(c);
}

/* Without the HUD, notices still show: a small box at the top of the map area. */
static void draw_notes(tv_ctx *c) {
    if (c->note_count == 0) return;
    float wmax = 0;
    for (int i = 0; i < c->note_count; i++) {
        float t = tv_text_width(SCALE, c->notes[i]);
        if (t > wmax) wmax = t;
    }
    float pw = wmax + 2 * PAD, ph = (float)(c->note_count * LINE + 2 * PAD);
    float x = c->lay.free.x + (c->lay.free.w - pw) / 2, y = 8;
    panel(c, x, y, pw, ph);
    for (int i = 0; i < c->note_count; i++)
        tv_text(c, x + PAD, y + PAD + (float)(i * LINE), SCALE, TEXT_WARN, c->notes[i]);
    flush(c);
}

/* A "nice" axis maximum (1, 2 or 5 times a power of ten) at or above `v`. */
static double nice_ceiling(double v) {
    if (!(v > 0.01)) return 0.01;
    double p = pow(10.0, floor(log10(v)));
    double m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static int phase_legend_rows(float width);

SDL_FPoint tv_prof_size(const tv_ctx *c, int scale) {
    const int S = scale, LN = TV_FONT_H * S + 2, PD = 5 * S;
    float pw = (float)(HUD_CHARS * TV_FONT_W * S + 2 * PD);
    if (pw > (float)c->cam.w - 16) pw = (float)c->cam.w - 16;
    /* Heading, a graph 60 font pixels high, the wrapped phase legend. */
    float ph = (float)(2 * PD + LN + 60 * S + 4 + phase_legend_rows(pw - 2 * PD) * 11);
    return (SDL_FPoint){pw, ph};
}

/* Rows the phase legend (font scale 1, 11 px rows) takes in `width` pixels, wrapped as drawn. */
static int phase_legend_rows(float width) {
    int rows = 1;
    float lx = 0;
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        float need = 12 + tv_text_width(1, th_phase_name((th_phase)p)) + 8;
        if (lx > 0 && lx + need > width) {
            rows++;
            lx = 0;
        }
        lx += need;
    }
    return rows;
}

static void draw_profiler(tv_ctx *c) {
    const int S = c->lay.hud_scale, LN = TV_FONT_H * S + 2, PD = 5 * S;
    float pw = c->lay.prof.w, ph = c->lay.prof.h, x = c->lay.prof.x, y = c->lay.prof.y;
    panel(c, x, y, pw, ph);
    int rows = phase_legend_rows(pw - 2 * PD);
    float gx = x + PD, gy = y + PD + LN, gw = pw - 2 * PD;
    float gh = ph - 2 * PD - LN - (float)(rows * 11) - 4;
    double top = 0;
    for (int i = 0; i < c->prof_count; i++) {
        double s = 0;
        for (int p = 0; p < TH_PHASE_COUNT; p++) s += c->prof[i][p];
        if (s > top) top = s;
    }
    top = nice_ceiling(top);
    char head[64];
    snprintf(head, sizeof head, "step ms, last %d steps", c->prof_count);
    tv_text(c, x + PD, y + PD, S, TEXT_DIM, head);
    char axis[32];
    snprintf(axis, sizeof axis, "%g ms", top);
    tv_text(c, x + pw - PD - tv_text_width(S, axis), y + PD, S, TEXT, axis);
    tv_batch_rect(&c->geo, gx, gy, gw, 1, 0x40FFFFFF);
    tv_batch_rect(&c->geo, gx, gy + gh / 2, gw, 1, 0x20FFFFFF);
    tv_batch_rect(&c->geo, gx, gy + gh, gw, 1, 0x60FFFFFF);
    /* Oldest sample on the left, newest at the right edge; phases stacked bottom-up. */
    float bw = gw / TV_PROF_SAMPLES;
    int first = (c->prof_head - c->prof_count + TV_PROF_SAMPLES) % TV_PROF_SAMPLES;
    for (int k = 0; k < c->prof_count; k++) {
        const float *s = c->prof[(first + k) % TV_PROF_SAMPLES];
        float bx = gx + gw - (float)(c->prof_count - k) * bw, base = gy + gh;
        for (int p = 0; p < TH_PHASE_COUNT; p++) {
            float h = (float)(s[p] / top) * gh;
            if (!(h > 0)) continue;
            if (h > base - gy) h = base - gy;
            tv_batch_rect(&c->geo, bx, base - h, bw + 0.5f, h, phase_color[p]);
            base -= h;
        }
    }
    /* Phase colours as in the HUD's table, wrapped to the panel's width. */
    float lx = x + PD, ly = y + ph - PD - (float)(rows * 11) + 2;
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        const char *nm = th_phase_name((th_phase)p);
        float need = 12 + tv_text_width(1, nm) + 8;
        if (lx > x + PD && lx + need > x + pw - PD) {
            lx = x + PD;
            ly += 11;
        }
        tv_batch_rect(&c->geo, lx, ly + 1, 8, 8, phase_color[p]);
        lx += 12 + tv_text(c, lx + 11, ly, 1, TEXT, nm) + 8;
    }
    flush(c);
}

static void draw_help(tv_ctx *c) {
    static const char *const lines[] = {
        "Keys",
        "space    pause / resume",
        ".        one step (paused)",
        "+ -      sim speed x2 / x0.5",
        "1..9     destroy / restore bunker",
        "         (an exit: close / reopen)",
        "         [N] on its label (keypad too)",
        "click    bunker: destroy / restore",
        "         rubble: break it",
        "         (paused: queued, marked)",
        "drag     pan      wheel  zoom",
        "0 Home   reset the view",
        "PgUp ]   next level up alone",
        "PgDn [   next level down alone",
        "O        all levels side by side",
        "F flow   D density   G grid",
        "B        flow field: nearest, 1, 2.., goals",
        "shift+1..9  flow field of bunker",
        "Q squads W wall distance",
        "A ant pheromone",
        "P profiler   T HUD   L legend",
        "S screenshot   R restart",
        "H this help    Esc quit",
    };
    int n = (int)(sizeof lines / sizeof lines[0]);
    float wmax = 0;
    for (int i = 0; i < n; i++) {
        float tw = tv_text_width(SCALE, lines[i]);
        if (tw > wmax) wmax = tw;
    }
    float pw = wmax + 2 * PAD, ph = (float)(n * LINE + 2 * PAD);
    float x = ((float)c->cam.w - pw) / 2, y = ((float)c->cam.h - ph) / 2;
    panel(c, x, y, pw, ph);
    for (int i = 0; i < n; i++)
        tv_text(c, x + PAD, y + PAD + (float)(i * LINE), SCALE, i == 0 ? TEXT_HEAD : TEXT,
                lines[i]);
    flush(c);
}

/* ---- legend ------------------------------------------------------------------------------ */

enum {
    LG_HEAD,
    LG_SWATCH,
    LG_MARKER,
    LG_AGENT,
    LG_TEXT,
    LG_DENSITY,
    LG_WALLDIST,
    LG_PHEROMONE,
    LG_STAIR
};

typedef struct lg_item {
    int kind;
    uint32_t col;
    int variant; /* LG_STAIR: 0 flight, 1 landing, 2 elevator stop, 3 car; LG_MARKER: 0 open, 1
                    full, 2 destroyed; LG_AGENT: 0 plain, 1 leader, 2 predator, 3 dose ring, 4
                    incapacitated (cross), plus LG_BODY when the crowd is drawn as discs */
    char text[72];
} lg_item;

enum { LG_MAX = 40, LG_MAX_CROWDS = 10, LG_BODY = 8 };

static int lg_add(lg_item *it, int n, int kind, uint32_t col, int variant, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

static int lg_add(lg_item *it, int n, int kind, uint32_t col, int variant, const char *fmt, ...) {
    if (n >= LG_MAX) return n;
    it[n] = (lg_item){.kind = kind, .col = col, .variant = variant};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it[n].text, sizeof it[n].text, fmt, ap);
    va_end(ap);
    return n + 1;
}

/* What the map shows, top to bottom: cells, crowds, leaders and predators, bunker states, then
 * the scale of each quantity overlay on. */
static int lg_items(const tv_ctx *c, const th_world *w, lg_item *it) {
    int n = 0;
    n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0, "Legend (L)");
    int32_t cols, rows;
    float cs;
    if (th_world_map_size(w, &cols, &rows, &cs)) {
        n = lg_add(it, n, LG_SWATCH, th_view_cell_color(TH_CELL_OPEN), 0, "open ground");
        n = lg_add(it, n, LG_SWATCH, tv_slow_color(), 0, "slow ground");
        n = lg_add(it, n, LG_SWATCH, th_view_cell_color(TH_CELL_WALL), 0, "wall");
        n = lg_add(it, n, LG_SWATCH, th_view_cell_color(TH_CELL_DESTRUCTIBLE), 0,
                   "destructible wall");
    }
    bool leaders = false, predators = false;
    uint32_t crowds = 0;
    for (uint32_t k = 0; k < TH_MAX_CROWDS; k++) {
        const th_crowd_def *cd = th_world_get_crowd(w, (th_crowd_id){k + 1});
        if (!cd) break;
        crowds++;
        leaders |= th_target_id_valid(cd->target);
        bool pred = tv_is_predator(w, k);
        predators |= pred;
        /* Drawn as the map draws them: a disc where bodies are a few pixels wide. */
        int body = cd->body_radius * c->cam.scale >= 3.0 ? LG_BODY : 0;
        if (k < LG_MAX_CROWDS)
            n = lg_add(it, n, LG_AGENT, tv_scene_crowd_color(w, k), (pred ? 2 : 0) | body, "%s%s",
                       cd->name ? cd->name : "crowd", pred ? " (predator)" : "");
    }
    if (crowds > LG_MAX_CROWDS)
        n = lg_add(it, n, LG_TEXT, TEXT_DIM, 0, "... %u more crowds", crowds - LG_MAX_CROWDS);
    if (leaders) n = lg_add(it, n, LG_AGENT, 0xFF9EA8B8u, 1, "leader: white ring");
    if (predators) n = lg_add(it, n, LG_AGENT, 0xFF9EA8B8u, 2, "predator: wide ring");
    /* Shelters and exits (bunkers a scene calls exits), each named as what it is. */
    uint32_t shelters, exits;
    bunker_kinds(w, &shelters, &exits);
    if (shelters) {
        n = lg_add(it, n, LG_MARKER, tv_bunker_color(0), 0, "bunker open");
        n = lg_add(it, n, LG_MARKER, tv_full_color(), 1, "bunker full");
        n = lg_add(it, n, LG_MARKER, tv_destroyed_color(), 2, "bunker destroyed");
    }
    if (exits) {
        n = lg_add(it, n, LG_MARKER, TV_EXIT_COLOR, 0, "exit open");
        n = lg_add(it, n, LG_MARKER, TV_EXIT_CLOSED_COLOR, 2, "exit closed");
    }
    if (shelters || exits) n = lg_add(it, n, LG_MARKER, 0xFFFFE040u, 3, "click queued");
    if (th_world_hazard_count(w) > 0) {
        /* Swatches as the overlay looks over open ground. */
        const uint32_t ground = th_view_cell_color(TH_CELL_OPEN);
        th_air smoke = th_clean_air(), gas = th_clean_air();
        smoke.extinction = 4.0f;
        gas.co = 2000.0f;
        n = lg_add(it, n, LG_SWATCH, tv_over(ground, tv_air_color(&smoke)), 0, "smoke");
        n = lg_add(it, n, LG_SWATCH, tv_over(ground, tv_air_color(&gas)), 0, "toxic gas");
        n = lg_add(it, n, LG_AGENT, 0xFF9EA8B8u, 3, "dose past 0.3: ring");
        n = lg_add(it, n, LG_AGENT, TV_DOWN_COLOR, 4, "incapacitated");
    }
    if (th_world_stair_count(w) > 0) {
        n = lg_add(it, n, LG_STAIR, TV_STAIR_COLOR, 0, "stair: chevrons point up");
        n = lg_add(it, n, LG_STAIR, TV_STAIR_COLOR, 1, "landing on the level above");
    }
    if (th_world_elevator_count(w) > 0) {
        n = lg_add(it, n, LG_STAIR, TV_ELEVATOR_COLOR, 2, "elevator stop");
        n = lg_add(it, n, LG_STAIR, TV_ELEVATOR_COLOR, 3, "elevator car, doors open");
    }
    if (th_world_spawner_count(w) > 0)
        n = lg_add(it, n, LG_SWATCH, TV_SPAWNER_COLOR, 0, "spawner: agents enter");
    if (th_world_exit_count(w) > 0)
        n = lg_add(it, n, LG_SWATCH, TV_EXIT_COLOR, 0, "exit: agents leave");
    bool colonies = false;
    for (uint32_t k = 0; k < th_world_crowd_count(w) && !colonies; k++)
        colonies = th_world_pheromone(w, (th_crowd_id){k + 1}, NULL, NULL, NULL) != NULL;
    if (colonies) {
        n = lg_add(it, n, LG_TEXT, TEXT, 0, "ant nest: double ring");
        n = lg_add(it, n, LG_SWATCH, TV_FOOD_COLOR, 0, "food (disc: share left)");
    }
    if ((c->overlays & TH_VIEW_OVERLAY_PHEROMONE) && colonies) {
        n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0, "pheromone, deposits");
        n = lg_add(it, n, LG_PHEROMONE, 0, 0, " ");
    }
    if (c->overlays & TH_VIEW_OVERLAY_DENSITY) {
        n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0, "density, persons/m2");
        n = lg_add(it, n, LG_DENSITY, 0, 0, " ");
        n = lg_add(it, n, LG_TEXT, TEXT, 0, "Fruin E above 1.08, F 2.17");
    }
    if (c->overlays & TH_VIEW_OVERLAY_WALLDIST) {
        n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0, "wall distance, m");
        n = lg_add(it, n, LG_WALLDIST, 0, 0, " ");
    }
    if (c->overlays & TH_VIEW_OVERLAY_FLOW) {
        const bool dest = tv_flow_bunker(c, w) >= (int)th_world_bunker_count(w);
        n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0,
                   dest ? "flow: way to the goal" : "flow: way to shelter");
        if (!dest) n = lg_add(it, n, LG_TEXT, TEXT, 0, "arrow colour: its bunker");
        n = lg_add(it, n, LG_TEXT, TEXT, 0, "grey x: no route");
        for (uint32_t cr = 0; cr < th_world_crowd_count(w); cr++) {
            if (th_world_get_crowd(w, (th_crowd_id){cr + 1})->goal.kind == TH_GOAL_ROUTE) {
                n = lg_add(it, n, LG_TEXT, TEXT, 0, "circles: route waypoints");
                break;
            }
        }
    }
    if (c->overlays & TH_VIEW_OVERLAY_GRID) {
        int32_t gc = 0, gr = 0;
        float cw = 0, ch = 0;
        th_world_grid_size(w, &gc, &gr, &cw, &ch);
        int32_t k = tv_grid_stride(c, w);
        n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0, "grid: cells %.3g x %.3g m", (double)cw,
                   (double)ch);
        if (k > 1) n = lg_add(it, n, LG_TEXT, TEXT, 0, "a line every %d cells", k);
    }
    if (c->overlays & TH_VIEW_OVERLAY_SQUADS) {
        n = lg_add(it, n, LG_HEAD, TEXT_HEAD, 0, "squads");
        n = lg_add(it, n, LG_TEXT, TEXT, 0, "+ slot, line to member");
        n = lg_add(it, n, LG_TEXT, TEXT, 0, "white: centre's path");
    }
    return n;
}

/* Width of a colour-scale bar, in font cells (it carries 5 tick labels of up to 4 chars). */
enum { BAR_CHARS = 22 };

/* Measure the legend at font `scale`, or draw it into c->lay.legend. */
static SDL_FPoint legend(tv_ctx *c, const th_world *w, int scale, bool draw) {
    lg_item it[LG_MAX];
    int n = lg_items(c, w, it);
    float line = (float)(TV_FONT_H * scale + 2 * scale), sw = (float)(TV_FONT_H * scale);
    float pad = (float)(5 * scale), wmax = (float)(BAR_CHARS * TV_FONT_W * scale);
    float h = 0;
    for (int i = 0; i < n; i++) {
        float tw = tv_text_width(scale, it[i].text) +
                   (it[i].kind == LG_HEAD || it[i].kind == LG_TEXT ? 0 : sw + 3 * scale);
        if (tw > wmax) wmax = tw;
        h += it[i].kind == LG_DENSITY || it[i].kind == LG_WALLDIST || it[i].kind == LG_PHEROMONE
                 ? 2 * line
                 : line;
    }
    SDL_FPoint size = {wmax + 2 * pad, h + 2 * pad};
    if (!draw) return size;
    SDL_FRect r = c->lay.legend;
    panel(c, r.x, r.y, r.w, r.h);
    float x = r.x + pad, y = r.y + pad;
    for (int i = 0; i < n; i++) {
        const lg_item *t = &it[i];
        float tx = x + sw + 3 * (float)scale, cy = y + sw / 2;
        switch (t->kind) {
        case LG_HEAD:
        case LG_TEXT: tv_text(c, x, y, scale, t->col, t->text); break;
        case LG_SWATCH:
            tv_batch_rect(&c->geo, x, y, sw, sw, t->col);
            tv_batch_rect(&c->geo, x, y, sw, 1, PANEL_EDGE);
            tv_text(c, tx, y, scale, TEXT, t->text);
            break;
        case LG_STAIR: {
            /* As the map draws them over open ground: a flight with treads and a chevron
             * pointing up, or a landing with its glued edge at the bottom. */
            const uint32_t ground = th_view_cell_color(TH_CELL_OPEN), col = t->col;
            tv_batch_rect(&c->geo, x, y, sw, sw, ground);
            tv_batch_rect(&c->geo, x, y, sw, sw,
                          (col & 0x00FFFFFFu) | (t->variant ? 0x58000000u : 0x30000000u));
            if (t->variant >= 2) {
                /* An elevator's stop: a framed cell; its car solid, the doors a gap. */
                tv_batch_rect(&c->geo, x, y, sw, 2, col);
                tv_batch_rect(&c->geo, x, y + sw - 2, sw, 2, col);
                tv_batch_rect(&c->geo, x, y, 2, sw, col);
                tv_batch_rect(&c->geo, x + sw - 2, y, 2, sw, col);
                if (t->variant == 3) {
                    tv_batch_rect(&c->geo, x + 2, y + 2, sw - 4, sw - 4, col);
                    tv_batch_rect(&c->geo, x + sw * 0.4f, y + 2, sw * 0.2f, sw - 4, TV_BACKGROUND);
                }
            } else if (t->variant) {
                tv_batch_rect(&c->geo, x, y + sw - 3, sw, 3, col);
            } else {
                for (int k = 1; k < 4; k++)
                    tv_batch_rect(&c->geo, x, y + sw * (float)k / 4, sw, 1, 0x90A89E88u);
                tv_batch_rect(&c->geo, x, y, sw, 2, col);
                const float ax = x + sw / 2, s = sw * 0.3f;
                tv_batch_line(&c->geo, ax - s, cy + s * 0.5f, ax, cy - s * 0.5f, 2.0f, col);
                tv_batch_line(&c->geo, ax + s, cy + s * 0.5f, ax, cy - s * 0.5f, 2.0f, col);
            }
            tv_text(c, tx, y, scale, TEXT, t->text);
            break;
        }
        case LG_MARKER: {
            SDL_FRect m = {x + 1, y + 1, sw - 2, sw - 2};
            if (t->variant == 3) {
                m = (SDL_FRect){x + 5, y + 5, sw - 10, sw - 10};
                tv_queued_mark(&c->geo, m);
            } else {
                tv_batch_rect(&c->geo, m.x, m.y, m.w, m.h, (t->col & 0x00FFFFFFu) | 0x60000000u);
                tv_batch_rect(&c->geo, m.x, m.y, m.w, 2, t->col);
                tv_batch_rect(&c->geo, m.x, m.y + m.h - 2, m.w, 2, t->col);
                tv_batch_rect(&c->geo, m.x, m.y, 2, m.h, t->col);
                tv_batch_rect(&c->geo, m.x + m.w - 2, m.y, 2, m.h, t->col);
                if (t->variant == 2) {
                    tv_batch_line(&c->geo, m.x, m.y, m.x + m.w, m.y + m.h, 2.0f, 0xFFFFFFFF);
                    tv_batch_line(&c->geo, m.x, m.y + m.h, m.x + m.w, m.y, 2.0f, 0xFFFFFFFF);
                }
            }
            tv_text(c, tx, y, scale, TEXT, t->text);
            break;
        }
        case LG_AGENT: {
            float ax = x + sw / 2, rr = sw * 0.3f;
            const int ring = t->variant & ~LG_BODY;
            if (t->variant & LG_BODY) tv_disc(&c->geo, ax, cy, rr * 1.1f, t->col);
            else
                tv_batch_tri(&c->geo, ax, cy - rr * 1.3f, ax + rr, cy + rr, ax - rr, cy + rr,
                             t->col);
            if (ring == 1) tv_ring(&c->geo, ax, cy, sw * 0.48f, 1.5f, 0xFFFFFFFFu);
            if (ring == 2) tv_ring(&c->geo, ax, cy, sw * 0.55f, 2.5f, 0xFFFFFFFFu);
            if (ring == 3) tv_ring(&c->geo, ax, cy, sw * 0.5f, 2.0f, TV_FED_COLOR);
            if (ring == 4) tv_down_mark(&c->geo, ax, cy, rr);
            tv_text(c, tx, y, scale, TEXT, t->text);
            break;
        }
        case LG_DENSITY:
        case LG_WALLDIST: {
            /* The overlay's own colour function along the bar, over the panel's background,
             * with tick labels under it. */
            bool dens = t->kind == LG_DENSITY;
            float bw = (float)(BAR_CHARS * TV_FONT_W * scale) - 2 * scale,
                  top = dens ? TV_DENSITY_MAX : TV_WALLDIST_MAX;
            for (int px = 0; px < (int)bw; px++) {
                float v = top * ((float)px + 0.5f) / bw;
                uint32_t col = dens ? tv_density_color(v) : tv_walldist_color(v);
                tv_batch_rect(&c->geo, x + (float)px, y + 1, 1, sw - 2,
                              th_view_cell_color(TH_CELL_OPEN));
                if (col >> 24) tv_batch_rect(&c->geo, x + (float)px, y + 1, 1, sw - 2, col);
            }
            const int ticks = dens ? 6 : 4; /* whole persons/m2; 2 m of wall distance */
            for (int k = 0; k <= ticks; k++) {
                char tick[16];
                float v = top * (float)k / (float)ticks;
                snprintf(tick, sizeof tick, "%g%s", (double)v, k == ticks ? "+" : "");
                float tw = tv_text_width(scale, tick);
                float at = bw * (float)k / (float)ticks;
                float px = x + at - (k == 0 ? 0 : k == ticks ? tw : tw / 2);
                tv_batch_rect(&c->geo, x + at - (k == ticks ? 1 : 0), y + sw - 2, 1, 4, TEXT);
                tv_text(c, px, y + line, scale, TEXT, tick);
            }
            y += line;
            break;
        }
        case LG_PHEROMONE: {
            /* The overlay's scale is logarithmic: the bar is too, ticks at 0, 1, 4, 16, 64. */
            float bw = (float)(BAR_CHARS * TV_FONT_W * scale) - 2 * scale;
            const float top = log1pf(TV_PHEROMONE_MAX);
            for (int px = 0; px < (int)bw; px++) {
                float v = expm1f(top * ((float)px + 0.5f) / bw);
                uint32_t col = tv_pheromone_color(v);
                tv_batch_rect(&c->geo, x + (float)px, y + 1, 1, sw - 2,
                              th_view_cell_color(TH_CELL_OPEN));
                if (col >> 24) tv_batch_rect(&c->geo, x + (float)px, y + 1, 1, sw - 2, col);
            }
            static const float ticks[] = {0.0f, 1.0f, 4.0f, 16.0f, TV_PHEROMONE_MAX};
            for (int k = 0; k < 5; k++) {
                char tick[16];
                snprintf(tick, sizeof tick, "%g%s", (double)ticks[k], k == 4 ? "+" : "");
                float tw = tv_text_width(scale, tick), at = bw * log1pf(ticks[k]) / top;
                float px = at - (k == 0 ? 0 : k == 4 ? tw : tw / 2);
                tv_batch_rect(&c->geo, x + at - (k == 4 ? 1 : 0), y + sw - 2, 1, 4, TEXT);
                tv_text(c, x + px, y + line, scale, TEXT, tick);
            }
            y += line;
            break;
        }
        default: break;
        }
        y += line;
    }
    flush(c);
    return size;
}

SDL_FPoint tv_legend_size(const tv_ctx *c, const th_world *w, int scale) {
    /* Measuring only reads `c` (draw is false): one function keeps the measured and the drawn
     * legend the same. */
    return legend((tv_ctx *)c, w, scale, false);
}

void tv_draw_hud(tv_ctx *c, const th_world *w, const tv_rates *rates) {
    if (c->overlays & TH_VIEW_OVERLAY_HUD) draw_stats(c, w, rates);
    else draw_notes(c);
    if (c->overlays & TH_VIEW_OVERLAY_LEGEND) legend(c, w, c->lay.legend_scale, true);
    if (c->overlays & TH_VIEW_OVERLAY_PROFILER) draw_profiler(c);
    if (c->overlays & TH_VIEW_OVERLAY_HELP) draw_help(c);
}
