/* The HUD panel, the profiler graph and the key help, drawn over the world in screen space. */
#include <math.h>
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
    0xFF9EA8B8, /* events */
    0xFFFFB74D, /* nav */
    0xFF4FC3F7, /* grid */
    0xFF81C784, /* steer */
    0xFFBA68C8, /* integrate */
    0xFFF06292, /* bookkeeping */
};

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

static void draw_stats(tv_ctx *c, const th_world *w, const tv_rates *rt) {
    th_world_stats st = th_world_get_stats(w);
    th_world_def d = th_world_get_def(w);
    char l[8][96];
    uint32_t lc[8];
    int n = 0;
    snprintf(l[n], sizeof l[n], "%s", c->title ? c->title : "throng");
    lc[n++] = TEXT_HEAD;
    snprintf(l[n], sizeof l[n], "step %llu%s", (unsigned long long)st.step,
             rt->paused ? "   PAUSED" : "");
    lc[n++] = rt->paused ? TEXT_WARN : TEXT;
    if (rt->live)
        snprintf(l[n], sizeof l[n], "fps %.0f  steps/s %.0f  speed %gx", rt->fps, rt->steps_per_s,
                 rt->speed);
    else
        snprintf(l[n], sizeof l[n], "speed %gx", rt->speed);
    lc[n++] = TEXT;
    snprintf(l[n], sizeof l[n], "agents %u  sheltered %u", st.agents, st.sheltered);
    lc[n++] = TEXT;
    snprintf(l[n], sizeof l[n], "stranded %u  threads %u", st.stranded, d.threads);
    lc[n++] = st.stranded ? TEXT_WARN : TEXT;
    snprintf(l[n], sizeof l[n], "phase ms, last step");
    lc[n++] = TEXT_DIM;

    /* Overlays on, the flow one with the field it shows: "flow:nearest" or "flow:NAME". */
    char ov[128] = "";
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{TH_VIEW_OVERLAY_FLOW, "flow"},  {TH_VIEW_OVERLAY_DENSITY, "dens"},
                 {TH_VIEW_OVERLAY_GRID, "grid"},  {TH_VIEW_OVERLAY_WALLDIST, "wall"},
                 {TH_VIEW_OVERLAY_SQUADS, "sqd"}, {TH_VIEW_OVERLAY_PROFILER, "prof"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(c->overlays & names[i].bit)) continue;
        strncat(ov, ov[0] ? " " : "", sizeof ov - strlen(ov) - 1);
        strncat(ov, names[i].name, sizeof ov - strlen(ov) - 1);
        if (names[i].bit != TH_VIEW_OVERLAY_FLOW) continue;
        th_bunker_info bi;
        int fb = tv_flow_bunker(c, w);
        strncat(ov, ":", sizeof ov - strlen(ov) - 1);
        strncat(ov, fb >= 0 && th_world_get_bunker(w, (uint32_t)fb, &bi) ? bi.name : "nearest",
                sizeof ov - strlen(ov) - 1);
    }

    float wmax = tv_text_width(SCALE, ov);
    for (int i = 0; i < n; i++) {
        float tw = tv_text_width(SCALE, l[i]);
        if (tw > wmax) wmax = tw;
    }
    float pw = wmax + 2 * PAD, col2 = 16 + tv_text_width(SCALE, "bookkeeping ");
    if (pw < col2 + tv_text_width(SCALE, "000.00") + 2 * PAD)
        pw = col2 + tv_text_width(SCALE, "000.00") + 2 * PAD;
    float ph = (float)((n + TH_PHASE_COUNT + 1) * LINE + 2 * PAD);
    float x = 8, y = 8;
    panel(c, x, y, pw, ph);
    float ty = y + PAD;
    for (int i = 0; i < n; i++, ty += LINE)
        tv_text(c, x + PAD, ty, SCALE, lc[i], l[i]);
    for (int p = 0; p < TH_PHASE_COUNT; p++, ty += LINE) {
        tv_batch_rect(&c->geo, x + PAD, ty + 2, 10, 10, phase_color[p]);
        tv_text(c, x + PAD + 16, ty, SCALE, TEXT, th_phase_name((th_phase)p));
        char ms[32];
        snprintf(ms, sizeof ms, "%6.2f", th_world_phase_last_ms(w, (th_phase)p));
        tv_text(c, x + PAD + col2, ty, SCALE, TEXT, ms);
    }
    tv_text(c, x + PAD, ty, SCALE, TEXT_DIM, ov[0] ? ov : "H: keys");
    flush(c);
}

/* A "nice" axis maximum (1, 2 or 5 times a power of ten) at or above `v`. */
static double nice_ceiling(double v) {
    if (!(v > 0.01)) return 0.01;
    double p = pow(10.0, floor(log10(v)));
    double m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void draw_profiler(tv_ctx *c) {
    float pw = 480, ph = 200;
    if (pw > (float)c->cam.w - 16) pw = (float)c->cam.w - 16;
    float x = (float)c->cam.w - pw - 8, y = (float)c->cam.h - ph - 8;
    panel(c, x, y, pw, ph);
    float gx = x + PAD, gy = y + PAD + LINE, gw = pw - 2 * PAD, gh = ph - 2 * PAD - 2 * LINE;
    double top = 0;
    for (int i = 0; i < c->prof_count; i++) {
        double s = 0;
        for (int p = 0; p < TH_PHASE_COUNT; p++)
            s += c->prof[i][p];
        if (s > top) top = s;
    }
    top = nice_ceiling(top);
    char head[64];
    snprintf(head, sizeof head, "step ms, last %d steps", c->prof_count);
    tv_text(c, x + PAD, y + PAD, SCALE, TEXT_DIM, head);
    char axis[32];
    snprintf(axis, sizeof axis, "%g ms", top);
    tv_text(c, x + pw - PAD - tv_text_width(SCALE, axis), y + PAD, SCALE, TEXT, axis);
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
    float lx = x + PAD, ly = y + ph - PAD - LINE + 4;
    for (int p = 0; p < TH_PHASE_COUNT; p++) {
        const char *nm = th_phase_name((th_phase)p);
        tv_batch_rect(&c->geo, lx, ly + 2, 8, 8, phase_color[p]);
        lx += 12 + tv_text(c, lx + 11, ly, 1, TEXT, nm) + 10;
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
        "click    bunker: destroy / restore",
        "         rubble: break it",
        "drag     pan      wheel  zoom",
        "F flow   D density   G grid",
        "B        flow field: nearest, 1, 2..",
        "shift+1..9  flow field of bunker",
        "Q squads",
        "W wall distance   P profiler",
        "T HUD    S screenshot",
        "R restart   H help   Esc quit",
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

void tv_draw_hud(tv_ctx *c, const th_world *w, const tv_rates *rates) {
    if (c->overlays & TH_VIEW_OVERLAY_HUD) draw_stats(c, w, rates);
    if (c->overlays & TH_VIEW_OVERLAY_PROFILER) draw_profiler(c);
    if (c->overlays & TH_VIEW_OVERLAY_HELP) draw_help(c);
}
