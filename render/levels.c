/* Buildings on the map (throng/building.h): each level's outline and label, each stair's flight
 * and landing, each elevator's stops and car, and one level shown alone with the rest of the
 * map covered.
 *
 * A flight is drawn as a stair is on a floor plan: its treads across the way up (one per
 * 0.28 m of plan, at least 4 px apart), chevrons along its middle pointing the way up, and a
 * thick line on its top edge, the edge glued to the level above. The landing across that edge
 * on the upper level gets the same line on its glued side and a lighter fill. Both ends carry
 * the stair's name and where it leads, so the two halves of a seam read as one stair.
 *
 * An elevator's stop is its cell with a frame; the stop where the car stands gets a solid car
 * with its doors drawn open or closed. Each stop's label says who waits there, and at the car's
 * stop what the car is doing and how many ride. Riders are not drawn: they are in the car. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

#define COL_OUTLINE  0xFF8C9AB4u /* a level's outline */
#define COL_LEVEL    0xFF5FD0FFu /* a level's name */
#define COL_TEXT     0xFFE8ECF4u
#define COL_LABEL_BG 0xC0080A10u
#define COL_TREAD    0x90A89E88u

/* Plan depth of one tread drawn, metres (a typical going). */
#define TREAD_M 0.28f

static uint32_t with_alpha(uint32_t argb, uint32_t alpha) {
    return (argb & 0x00FFFFFFu) | (alpha << 24);
}

bool tv_level_box(const th_world *w, uint32_t index1, float box[4]) {
    th_level_info li;
    int32_t cols, rows;
    float cs;
    if (!index1 || !th_world_get_level(w, (th_level_id){index1}, &li) ||
        !th_world_map_size(w, &cols, &rows, &cs))
        return false;
    box[0] = (float)li.x0 * cs;
    box[1] = (float)li.y0 * cs;
    box[2] = (float)(li.x1 + 1) * cs;
    box[3] = (float)(li.y1 + 1) * cs;
    return true;
}

bool tv_shown(const tv_ctx *c, const th_world *w, th_vec2 p) {
    float box[4];
    if (!c->level || !tv_level_box(w, c->level, box)) return true;
    return p.x >= box[0] && p.x <= box[2] && p.y >= box[1] && p.y <= box[3];
}

uint32_t tv_level_step(const th_world *w, uint32_t index1, int dir) {
    const uint32_t n = th_world_level_count(w);
    if (n == 0) return 0;
    /* Level handles ordered by elevation (ties: as added). */
    uint32_t order[TH_MAX_LEVELS];
    float elev[TH_MAX_LEVELS];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < TH_MAX_LEVELS; i++) {
        th_level_info li;
        if (!th_world_get_level(w, (th_level_id){i + 1}, &li)) continue;
        uint32_t k = m++;
        while (k > 0 && elev[k - 1] > li.elevation) {
            order[k] = order[k - 1];
            elev[k] = elev[k - 1];
            k--;
        }
        order[k] = i + 1;
        elev[k] = li.elevation;
    }
    if (m == 0) return 0;
    uint32_t pos = m;
    for (uint32_t k = 0; k < m; k++)
        if (order[k] == index1) pos = k;
    if (pos == m) return dir > 0 ? order[0] : order[m - 1]; /* from every level */
    if (dir > 0) return pos + 1 < m ? order[pos + 1] : 0;
    return pos > 0 ? order[pos - 1] : 0;
}

/* Screen rectangle of cells [x0, x1] x [y0, y1]. */
static SDL_FRect cells_rect(const tv_ctx *c, int32_t x0, int32_t y0, int32_t x1, int32_t y1) {
    const float cs = c->cell_size;
    th_vec2 tl = tv_to_screen(&c->cam, (double)x0 * cs, (double)(y1 + 1) * cs);
    th_vec2 br = tv_to_screen(&c->cam, (double)(x1 + 1) * cs, (double)y0 * cs);
    return (SDL_FRect){tl.x, tl.y, br.x - tl.x, br.y - tl.y};
}

static void box_outline(tv_batch *b, SDL_FRect r, float t, uint32_t col) {
    tv_batch_rect(b, r.x - t, r.y - t, r.w + 2 * t, t, col);
    tv_batch_rect(b, r.x - t, r.y + r.h, r.w + 2 * t, t, col);
    tv_batch_rect(b, r.x - t, r.y, t, r.h, col);
    tv_batch_rect(b, r.x + r.w, r.y, t, r.h, col);
}

/* The way up on screen (y down): east, north, west, south. */
static const float k_way_x[4] = {1, 0, -1, 0}, k_way_y[4] = {0, -1, 0, 1};

/* The edge of screen rectangle `r` that faces way `u` (0..3), as a thick line. */
static void edge(tv_batch *b, SDL_FRect r, int u, float t, uint32_t col) {
    switch (u) {
    case TH_STAIR_EAST: tv_batch_rect(b, r.x + r.w - t / 2, r.y, t, r.h, col); break;
    case TH_STAIR_NORTH: tv_batch_rect(b, r.x, r.y - t / 2, r.w, t, col); break;
    case TH_STAIR_WEST: tv_batch_rect(b, r.x - t / 2, r.y, t, r.h, col); break;
    default: tv_batch_rect(b, r.x, r.y + r.h - t / 2, r.w, t, col); break;
    }
}

/* The landing of stair `si`: the cells across its top edge on the upper level. */
static void landing_cells(const th_stair_info *si, int32_t out[4]) {
    const bool ns = si->up == TH_STAIR_NORTH || si->up == TH_STAIR_SOUTH;
    out[0] = si->top_x;
    out[1] = si->top_y;
    out[2] = ns ? si->top_x + (si->x1 - si->x0) : si->top_x;
    out[3] = ns ? si->top_y : si->top_y + (si->y1 - si->y0);
}

static void draw_flight(tv_ctx *c, const th_stair_info *si) {
    tv_batch *b = &c->geo;
    const int u = (int)si->up & 3;
    const SDL_FRect r = cells_rect(c, si->x0, si->y0, si->x1, si->y1);
    const bool horiz = u == TH_STAIR_EAST || u == TH_STAIR_WEST; /* climbs along screen x */
    const float along = horiz ? r.w : r.h, across = horiz ? r.h : r.w;
    tv_batch_rect(b, r.x, r.y, r.w, r.h, with_alpha(TV_STAIR_COLOR, 0x30));
    box_outline(b, r, 1.0f, with_alpha(TV_STAIR_COLOR, 0xA0));
    if (along >= 6.0f && across >= 4.0f) {
        /* Treads across the way up. */
        const int32_t cells = horiz ? si->x1 - si->x0 + 1 : si->y1 - si->y0 + 1;
        int n = (int)lroundf((float)cells * c->cell_size / TREAD_M);
        if (n < 1) n = 1;
        if (along / (float)n < 4.0f) n = (int)(along / 4.0f);
        for (int i = 1; i < n; i++) {
            const float t = along * (float)i / (float)n;
            if (horiz) tv_batch_rect(b, r.x + t - 0.5f, r.y, 1.0f, r.h, COL_TREAD);
            else tv_batch_rect(b, r.x, r.y + t - 0.5f, r.w, 1.0f, COL_TREAD);
        }
        /* Chevrons along the middle, pointing up the flight. */
        float s = across * 0.3f;
        if (s < 3.0f) s = 3.0f;
        if (s > 14.0f) s = 14.0f;
        int k = (int)(along / (2.6f * s));
        if (k < 1) k = 1;
        const float dx = k_way_x[u], dy = k_way_y[u], nx = -dy, ny = dx;
        const float th = s * 0.35f < 1.5f ? 1.5f : s * 0.35f;
        const float mx = r.x + r.w / 2, my = r.y + r.h / 2;
        for (int i = 0; i < k; i++) {
            /* Positions from the foot (-d end) to the top (+d end). */
            const float t = along * (((float)i + 0.5f) / (float)k - 0.5f);
            const float px = mx + dx * t, py = my + dy * t;
            const float tx = px + dx * s * 0.5f, ty = py + dy * s * 0.5f;
            const float bx = px - dx * s * 0.5f, by = py - dy * s * 0.5f;
            tv_batch_line(b, bx + nx * s, by + ny * s, tx, ty, th, TV_STAIR_COLOR);
            tv_batch_line(b, bx - nx * s, by - ny * s, tx, ty, th, TV_STAIR_COLOR);
        }
    }
    edge(b, r, u, 3.0f, TV_STAIR_COLOR);
}

static void draw_landing(tv_ctx *c, const th_stair_info *si) {
    int32_t l[4];
    landing_cells(si, l);
    const SDL_FRect r = cells_rect(c, l[0], l[1], l[2], l[3]);
    tv_batch_rect(&c->geo, r.x, r.y, r.w, r.h, with_alpha(TV_STAIR_COLOR, 0x58));
    box_outline(&c->geo, r, 1.0f, with_alpha(TV_STAIR_COLOR, 0xA0));
    /* The glued edge faces down the stair: against the way up. */
    edge(&c->geo, r, ((int)si->up + 2) & 3, 3.0f, TV_STAIR_COLOR);
}

void tv_draw_stairs(tv_ctx *c, const th_world *w) {
    const uint32_t n = th_world_stair_count(w);
    if (n == 0 || c->map_cols <= 0 || !(c->cell_size > 0.0f)) return;
    for (uint32_t i = 0; i < n; i++) {
        th_stair_info si;
        if (!th_world_get_stair(w, (th_stair_id){i + 1}, &si)) continue;
        draw_flight(c, &si);
        draw_landing(c, &si);
    }
}

static void draw_stop(tv_ctx *c, const th_elevator_info *e, uint32_t s) {
    const th_elevator_stop *st = &e->stops[s];
    const SDL_FRect r = cells_rect(c, st->x, st->y, st->x, st->y);
    tv_batch_rect(&c->geo, r.x, r.y, r.w, r.h, with_alpha(TV_ELEVATOR_COLOR, 0x40));
    box_outline(&c->geo, r, 1.5f, TV_ELEVATOR_COLOR);
    if (e->state == TH_ELEVATOR_MOVING || e->at != s) return;
    /* The car: solid, its doors a gap down the middle while they stand open. */
    const float inset = r.w > 8.0f ? 2.0f : 0.0f;
    tv_batch_rect(&c->geo, r.x + inset, r.y + inset, r.w - 2 * inset, r.h - 2 * inset,
                  TV_ELEVATOR_COLOR);
    if (e->state == TH_ELEVATOR_OPEN || e->state == TH_ELEVATOR_OPENING)
        tv_batch_rect(&c->geo, r.x + r.w * 0.4f, r.y + inset, r.w * 0.2f, r.h - 2 * inset,
                      TV_BACKGROUND);
}

void tv_draw_elevators(tv_ctx *c, const th_world *w) {
    const uint32_t n = th_world_elevator_count(w);
    if (n == 0 || c->map_cols <= 0 || !(c->cell_size > 0.0f)) return;
    for (uint32_t i = 0; i < n; i++) {
        th_elevator_info e;
        if (!th_world_get_elevator(w, (th_elevator_id){i + 1}, &e)) continue;
        for (uint32_t s = 0; s < e.stop_count; s++) draw_stop(c, &e, s);
    }
}

/* Screen rectangle of world box `box`. */
static SDL_FRect box_rect(const tv_ctx *c, const float box[4]) {
    th_vec2 tl = tv_to_screen(&c->cam, box[0], box[3]), br = tv_to_screen(&c->cam, box[2], box[1]);
    return (SDL_FRect){tl.x, tl.y, br.x - tl.x, br.y - tl.y};
}

void tv_mask_levels(tv_ctx *c, const th_world *w) {
    float box[4];
    if (!c->level || !tv_level_box(w, c->level, box)) return;
    const SDL_FRect r = box_rect(c, box);
    const float W = (float)c->cam.w, H = (float)c->cam.h;
    const float top = r.y > 0 ? r.y : 0, bottom = r.y + r.h < H ? r.y + r.h : H;
    if (r.y > 0) tv_batch_rect(&c->geo, 0, 0, W, r.y, TV_BACKGROUND);
    if (r.y + r.h < H) tv_batch_rect(&c->geo, 0, r.y + r.h, W, H - r.y - r.h, TV_BACKGROUND);
    if (bottom > top) {
        if (r.x > 0) tv_batch_rect(&c->geo, 0, top, r.x, bottom - top, TV_BACKGROUND);
        if (r.x + r.w < W)
            tv_batch_rect(&c->geo, r.x + r.w, top, W - r.x - r.w, bottom - top, TV_BACKGROUND);
    }
    tv_batch_flush(c->r, &c->geo, NULL);
}

static bool overlap(SDL_FRect a, SDL_FRect b) {
    return a.w > 0 && b.w > 0 && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
           b.y < a.y + a.h;
}

/* Whether label rectangle `r` sits clear of the window's edge and every panel on. */
static bool clear_of_panels(const tv_ctx *c, SDL_FRect r) {
    if (r.x < 2 || r.y < 2 || r.x + r.w > (float)c->cam.w - 2 || r.y + r.h > (float)c->cam.h - 2)
        return false;
    if ((c->overlays & TH_VIEW_OVERLAY_HUD) && overlap(r, c->lay.hud)) return false;
    if ((c->overlays & TH_VIEW_OVERLAY_LEGEND) && overlap(r, c->lay.legend)) return false;
    if ((c->overlays & TH_VIEW_OVERLAY_PROFILER) && overlap(r, c->lay.prof)) return false;
    return true;
}

/* A level's label above its rectangle `r` when there is room clear of panels and the other
 * levels, else inside its top-left corner: name and elevation, and the agents on it now. */
static void level_label(tv_ctx *c, const th_world *w, uint32_t self, const th_level_info *li,
                        SDL_FRect r) {
    char full[128], head[96];
    snprintf(head, sizeof head, "%s  %.4g m", li->name, (double)li->elevation);
    snprintf(full, sizeof full, "%s  %u agent%s", head, li->agents, li->agents == 1 ? "" : "s");
    const char *text = full;
    int scale = 2;
    if (tv_text_width(2, full) + 8 > r.w) scale = 1;
    if (scale == 1 && tv_text_width(1, full) + 8 > r.w) text = head;
    const float bw = tv_text_width(scale, text) + 8, bh = (float)(TV_FONT_H * scale + 4);
    SDL_FRect above = {r.x, r.y - bh - 3, bw, bh};
    bool ok = clear_of_panels(c, above);
    for (uint32_t i = 0; ok && !c->level && i < th_world_level_count(w); i++) {
        float box[4];
        if (i + 1 != self && tv_level_box(w, i + 1, box) && overlap(above, box_rect(c, box)))
            ok = false;
    }
    SDL_FRect at = ok ? above : (SDL_FRect){r.x + 3, r.y + 3, bw, bh};
    tv_batch_rect(&c->geo, at.x, at.y, at.w, at.h, COL_LABEL_BG);
    tv_batch_rect(&c->geo, at.x, at.y, 2, at.h, COL_OUTLINE);
    tv_text(c, at.x + 5, at.y + 2, scale, COL_LEVEL, text);
}

/* The stair and elevator labels placed so far in this frame, which later ones keep clear of. */
typedef struct placed_labels {
    SDL_FRect r[2 * TH_MAX_STAIRS + TH_MAX_ELEVATORS * TH_MAX_ELEVATOR_STOPS];
    uint32_t n;
} placed_labels;

static bool clear_of_labels(const placed_labels *pl, SDL_FRect r) {
    for (uint32_t i = 0; i < pl->n; i++)
        if (overlap(r, pl->r[i])) return false;
    return true;
}

/* Where a label of bw x bh pixels at (x, y) may go: moved k_shift[i] label heights up or down,
 * within the level's rectangle `lv` (the first place may stick out of it), clear of the labels
 * before it. */
static const int k_shift[9] = {0, 1, -1, 2, -2, 3, -3, 4, -4};

/* The place (an index into k_shift) for a label: of those clear of the labels placed before it,
 * the first that covers fewest agents, or `was`, its place in the last frame, while that is
 * clear and covers no more (so that labels do not hop as agents pass). -1 when none is clear. */
static int label_place(const tv_ctx *c, const placed_labels *pl, float x, float y, float bw,
                       float bh, SDL_FRect lv, int was) {
    int chosen = -1;
    uint32_t fewest = UINT32_MAX, under_was = UINT32_MAX;
    for (int i = 0; i < 9; i++) {
        const float yy = y + (float)k_shift[i] * (bh + 2);
        if (i > 0 && (yy < lv.y + 2 || yy + bh > lv.y + lv.h - 2)) continue;
        if (!clear_of_labels(pl, (SDL_FRect){x - 3, yy - 1, bw + 6, bh + 2}))
            continue; /* a gap too */
        const uint32_t under = tv_agents_under(c, (SDL_FRect){x, yy, bw, bh});
        if (i == was) under_was = under;
        if (under < fewest) {
            fewest = under;
            chosen = i;
        }
    }
    if (was >= 0 && under_was <= fewest) chosen = was;
    return chosen;
}

/* A stair's label at one end (or an elevator's at a stop, in colour `col`): just beyond screen
 * rectangle `r` on the side facing way `u`, centred on that side and kept inside the level's
 * rectangle `lv` where it fits; moved a label's height at a time up or down, within the level,
 * off any label placed before it and off the agents where it can (label_place), and left out
 * rather than drawn over a label. */
static void stair_label(tv_ctx *c, placed_labels *pl, SDL_FRect r, int u, SDL_FRect lv,
                        const char *text, uint32_t col) {
    /* The larger font where the level is wide enough for three such labels side by side. */
    const int scale = 3 * (tv_text_width(2, text) + 6) <= lv.w ? 2 : 1;
    const float bw = tv_text_width(scale, text) + 3 * scale, bh = (float)(TV_FONT_H + 3) * scale;
    float x, y;
    switch (u) {
    case TH_STAIR_EAST: x = r.x + r.w + 3, y = r.y + r.h / 2 - bh / 2; break;
    case TH_STAIR_NORTH: x = r.x + r.w / 2 - bw / 2, y = r.y - bh - 3; break;
    case TH_STAIR_WEST: x = r.x - bw - 3, y = r.y + r.h / 2 - bh / 2; break;
    default: x = r.x + r.w / 2 - bw / 2, y = r.y + r.h + 3; break;
    }
    /* No room on that side inside the level (a stop by its top wall): the other side, rather
     * than over what it labels. */
    if (u == TH_STAIR_NORTH && y < lv.y + 2 && r.y + r.h + 3 + bh <= lv.y + lv.h - 2)
        y = r.y + r.h + 3;
    else if (u == TH_STAIR_SOUTH && y + bh > lv.y + lv.h - 2 && r.y - bh - 3 >= lv.y + 2)
        y = r.y - bh - 3;
    else if (u == TH_STAIR_EAST && x + bw > lv.x + lv.w - 2 && r.x - bw - 3 >= lv.x + 2)
        x = r.x - bw - 3;
    else if (u == TH_STAIR_WEST && x < lv.x + 2 && r.x + r.w + 3 + bw <= lv.x + lv.w - 2)
        x = r.x + r.w + 3;
    if (bw < lv.w) {
        if (x < lv.x + 2) x = lv.x + 2;
        if (x + bw > lv.x + lv.w - 2) x = lv.x + lv.w - 2 - bw;
    }
    if (bh < lv.h) {
        if (y < lv.y + 2) y = lv.y + 2;
        if (y + bh > lv.y + lv.h - 2) y = lv.y + lv.h - 2 - bh;
    }
    const uint32_t seq = c->place_seq++;
    const int chosen =
        label_place(c, pl, x, y, bw, bh, lv, seq < c->place_was_count ? c->place_was[seq] : -1);
    const bool found = chosen >= 0;
    if (found) y += (float)k_shift[chosen] * (bh + 2);
    if (seq < TH_VIEW_MAX_PLACE_LABELS) c->place_now[seq] = (int8_t)chosen;
    if (!found) {
        c->place_label_left_out++;
        return;
    }
    if (pl->n < sizeof pl->r / sizeof pl->r[0]) pl->r[pl->n++] = (SDL_FRect){x, y, bw, bh};
    if (c->place_label_count < TH_VIEW_MAX_PLACE_LABELS)
        c->place_label[c->place_label_count++] = (SDL_FRect){x, y, bw, bh};
    tv_batch_rect(&c->geo, x, y, bw, bh, COL_LABEL_BG);
    tv_text(c, x + 1.5f * scale, y + 2 * scale, scale, col, text);
}

/* Each elevator's stops on the levels shown: the name, who waits, and at the car's stop (or
 * the stop it travels to) what the car does and how many ride. */
static void elevator_labels(tv_ctx *c, placed_labels *pl, const th_world *w, const SDL_FRect *lv,
                            uint32_t levels) {
    static const char *const doing[] = {"idle", "coming", "opening", "open", "closing"};
    for (uint32_t i = 0; i < th_world_elevator_count(w); i++) {
        th_elevator_info e;
        if (!th_world_get_elevator(w, (th_elevator_id){i + 1}, &e)) continue;
        for (uint32_t s = 0; s < e.stop_count; s++) {
            const uint32_t l = e.stops[s].level.index1;
            if (l < 1 || l > levels || lv[l - 1].w <= 0) continue;
            char text[160];
            const bool car = e.state == TH_ELEVATOR_MOVING ? e.to == s : e.at == s;
            if (car) snprintf(text, sizeof text, "%s: %s, %u in", e.name, doing[e.state], e.riders);
            else snprintf(text, sizeof text, "%s", e.name);
            /* Waiting ones stand at the stops above and below the discharge one. */
            if (s != e.discharge) {
                const size_t used = strlen(text);
                snprintf(text + used, sizeof text - used, ", %u waiting", e.stop_waiting[s]);
            }
            const th_elevator_stop *st = &e.stops[s];
            stair_label(c, pl, cells_rect(c, st->x, st->y, st->x, st->y), TH_STAIR_NORTH, lv[l - 1],
                        text, TV_ELEVATOR_COLOR);
        }
    }
}

void tv_draw_level_labels(tv_ctx *c, const th_world *w) {
    c->place_label_count = c->place_label_left_out = 0;
    c->place_seq = 0;
    const uint32_t n = th_world_level_count(w);
    if (n == 0) return;
    SDL_FRect lv[TH_MAX_LEVELS];
    char name[TH_MAX_LEVELS][64];
    for (uint32_t i = 0; i < n && i < TH_MAX_LEVELS; i++) {
        th_level_info li;
        float box[4];
        lv[i] = (SDL_FRect){0, 0, 0, 0};
        name[i][0] = 0;
        if (!th_world_get_level(w, (th_level_id){i + 1}, &li) || !tv_level_box(w, i + 1, box))
            continue;
        snprintf(name[i], sizeof name[i], "%s", li.name);
        if (c->level && c->level != i + 1) continue;
        lv[i] = box_rect(c, box);
        box_outline(&c->geo, lv[i], 1.0f, COL_OUTLINE);
        level_label(c, w, i + 1, &li, lv[i]);
    }
    /* Each end of each stair on a level shown: the stair's name and where it leads. */
    if (c->map_cols <= 0 || !(c->cell_size > 0.0f)) return;
    placed_labels *pl = calloc(1, sizeof *pl); /* 12 kB: off the stack */
    if (!pl) return;
    for (uint32_t s = 0; s < th_world_stair_count(w); s++) {
        th_stair_info si;
        if (!th_world_get_stair(w, (th_stair_id){s + 1}, &si)) continue;
        const uint32_t lo = si.lower.index1, up = si.upper.index1;
        const int u = (int)si.up & 3;
        char text[160];
        if (lo >= 1 && lo <= n && lo <= TH_MAX_LEVELS && lv[lo - 1].w > 0) {
            snprintf(text, sizeof text, "%s: up to %s", si.name, up ? name[up - 1] : "?");
            /* Below the foot of the flight. */
            stair_label(c, pl, cells_rect(c, si.x0, si.y0, si.x1, si.y1), (u + 2) & 3, lv[lo - 1],
                        text, TV_STAIR_COLOR);
        }
        if (up >= 1 && up <= n && up <= TH_MAX_LEVELS && lv[up - 1].w > 0) {
            int32_t l[4];
            landing_cells(&si, l);
            snprintf(text, sizeof text, "%s: down to %s", si.name, lo ? name[lo - 1] : "?");
            /* Beyond the landing, on the upper level's floor. */
            stair_label(c, pl, cells_rect(c, l[0], l[1], l[2], l[3]), u, lv[up - 1], text,
                        TV_STAIR_COLOR);
        }
    }
    elevator_labels(c, pl, w, lv, n);
    free(pl);
    c->place_was_count =
        c->place_seq < TH_VIEW_MAX_PLACE_LABELS ? c->place_seq : TH_VIEW_MAX_PLACE_LABELS;
    memcpy(c->place_was, c->place_now, sizeof c->place_was);
}
