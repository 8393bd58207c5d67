/* Drawing the world: map, overlays, bunkers and agents, in batched triangle lists.
 *
 * Everything here reads the world through throng/throng.h between steps and never changes it.
 * Per-cell layers (terrain, wall distance, density) are uploaded as small textures with one
 * texel per cell and stretched by the renderer, so their cost does not grow with the zoom;
 * per-item layers (agents, arrows, grid lines, markers) go into one vertex array each and are
 * drawn with one SDL_RenderGeometry call. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_internal.h"

/* ---- colours ----------------------------------------------------------------------------- */

#define COL_BACKGROUND TV_BACKGROUND /* outside the world */
#define COL_FLOOR      0xFF161C28u   /* a world without a terrain map */
#define COL_STREET     0xFF1B2232u   /* open cell of cost 1 */
#define COL_SLOW       0xFF1E4A2Au   /* open cell of the highest cost shade */
#define COL_WALL       0xFF505A6Eu
#define COL_RUBBLE     0xFF8A5A32u /* destructible wall */
#define COL_DESTROYED  0xFFE04848u
#define COL_FULL       0xFFF0B030u
#define COL_STALLED    0xFFFF3030u /* ring around an agent without progress */
#define COL_LABEL_BG   0xC0080A10u

/* Agents by crowd: bright hues that stand out on the dark map; crowd i takes i mod 8. */
static const uint32_t crowd_palette[8] = {
    0xFF5FD0FF, 0xFFFFB74D, 0xFFF06292, 0xFFAED581, 0xFFBA68C8, 0xFFFFF176, 0xFF4DB6AC, 0xFFFF8A65,
};

/* Bunkers (and the flow arrows of their basins) by bunker index mod 8: greens, blues and
 * violets only, far from the orange of a full bunker and the red of a destroyed one, so that
 * a healthy bunker never reads as either. */
static const uint32_t bunker_palette[8] = {
    0xFF4CD080, 0xFF4A9EFF, 0xFF30D8E8, 0xFFC080FF, 0xFFB0E060, 0xFF8C9EFF, 0xFF80CBC4, 0xFFE0E0E0,
};

uint32_t th_view_crowd_color(th_crowd_id crowd) {
    return crowd.index1 ? crowd_palette[(crowd.index1 - 1) % 8] : 0xFF808080u;
}

uint32_t th_view_cell_color(th_cell_kind kind) {
    switch (kind) {
    case TH_CELL_WALL: return COL_WALL;
    case TH_CELL_DESTRUCTIBLE: return COL_RUBBLE;
    default: return COL_STREET;
    }
}

static uint32_t mix(uint32_t a, uint32_t b, float t) {
    t = th_clampf(t, 0.0f, 1.0f);
    uint32_t out = 0;
    for (int s = 0; s < 32; s += 8) {
        float ca = (float)((a >> s) & 0xFF), cb = (float)((b >> s) & 0xFF);
        out |= (uint32_t)(ca + (cb - ca) * t + 0.5f) << s;
    }
    return out;
}

static uint32_t with_alpha(uint32_t argb, uint32_t alpha) {
    return (argb & 0x00FFFFFFu) | (alpha << 24);
}

/* ---- batches ----------------------------------------------------------------------------- */

static SDL_Vertex *batch_reserve(tv_batch *b, int n) {
    if (b->n + n > b->cap) {
        int cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) {
            if (cap > INT32_MAX / 2) {
                b->failed = true;
                return NULL;
            }
            cap *= 2;
        }
        SDL_Vertex *v = SDL_realloc(b->v, (size_t)cap * sizeof *v);
        if (!v) {
            b->failed = true;
            return NULL;
        }
        b->v = v;
        b->cap = cap;
    }
    SDL_Vertex *v = b->v + b->n;
    b->n += n;
    return v;
}

static SDL_Color color_of(uint32_t argb) {
    return (SDL_Color){(Uint8)(argb >> 16), (Uint8)(argb >> 8), (Uint8)argb, (Uint8)(argb >> 24)};
}

void tv_batch_tri(tv_batch *b, float x0, float y0, float x1, float y1, float x2, float y2,
                  uint32_t argb) {
    SDL_Vertex *v = batch_reserve(b, 3);
    if (!v) return;
    SDL_Color c = color_of(argb);
    v[0] = (SDL_Vertex){{x0, y0}, c, {0, 0}};
    v[1] = (SDL_Vertex){{x1, y1}, c, {0, 0}};
    v[2] = (SDL_Vertex){{x2, y2}, c, {0, 0}};
}

void tv_batch_rect(tv_batch *b, float x, float y, float w, float h, uint32_t argb) {
    tv_batch_tri(b, x, y, x + w, y, x + w, y + h, argb);
    tv_batch_tri(b, x, y, x + w, y + h, x, y + h, argb);
}

void tv_batch_line(tv_batch *b, float x0, float y0, float x1, float y1, float width,
                   uint32_t argb) {
    float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
    if (!(len > 1e-6f)) return;
    float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
    tv_batch_tri(b, x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, argb);
    tv_batch_tri(b, x0 + nx, y0 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny, argb);
}

void tv_batch_flush(SDL_Renderer *r, tv_batch *b, SDL_Texture *tex) {
    if (b->n > 0) SDL_RenderGeometry(r, tex, b->v, b->n, NULL, 0);
    b->n = 0;
}

void tv_batch_free(tv_batch *b) {
    SDL_free(b->v);
    *b = (tv_batch){0};
}

/* ---- context and camera ------------------------------------------------------------------ */

bool tv_ctx_init(tv_ctx *c, SDL_Renderer *r, int w, int h, th_error *err) {
    memset(c, 0, sizeof *c);
    c->r = r;
    c->cam.w = w;
    c->cam.h = h;
    c->cam.scale = 1;
    c->at_fit = true;
    c->map_dirty = c->walldist_dirty = true;
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    c->font = tv_font_create(r);
    if (!c->font) {
        tv_error(err, TH_ERR_SYSTEM, "cannot create the font texture: %s", SDL_GetError());
        return false;
    }
    return true;
}

void tv_ctx_forget_world(tv_ctx *c) {
    if (c->map_tex) SDL_DestroyTexture(c->map_tex);
    if (c->walldist_tex) SDL_DestroyTexture(c->walldist_tex);
    if (c->dens_tex) SDL_DestroyTexture(c->dens_tex);
    if (c->air_tex) SDL_DestroyTexture(c->air_tex);
    c->map_tex = c->walldist_tex = c->dens_tex = c->air_tex = NULL;
    c->air_valid = false;
    tv_pheromone_free(c);
    free(c->dens_count);
    c->dens_count = NULL;
    free(c->dens_open);
    c->dens_open = NULL;
    c->dens_cols = c->dens_rows = 0;
    c->map_dirty = c->walldist_dirty = true;
    c->prev_valid = false;
    c->prof_head = c->prof_count = 0;
    c->place_was_count = 0;
    memset(c->label_was, 0, sizeof c->label_was);
}

void tv_ctx_free(tv_ctx *c) {
    tv_ctx_forget_world(c);
    if (c->font) SDL_DestroyTexture(c->font);
    tv_batch_free(&c->geo);
    tv_batch_free(&c->text);
    free(c->pixels);
    free(c->cover);
    free(c->prev_x);
    free(c->prev_y);
    free(c->prev_gen);
    memset(c, 0, sizeof *c);
}

void tv_camera_fit_box(tv_camera *cam, const float box[4], SDL_FRect r) {
    double bw = box[2] - box[0], bh = box[3] - box[1];
    double sx = (r.w - 2.0 * TH_VIEW_MARGIN) / bw, sy = (r.h - 2.0 * TH_VIEW_MARGIN) / bh;
    cam->scale = sx < sy ? sx : sy;
    if (!(cam->scale > 0)) cam->scale = 1e-3;
    /* The box's centre at the rectangle's centre. */
    cam->cx = (box[0] + box[2]) / 2.0 - (r.x + r.w / 2.0 - cam->w / 2.0) / cam->scale;
    cam->cy = (box[1] + box[3]) / 2.0 + (r.y + r.h / 2.0 - cam->h / 2.0) / cam->scale;
}

/* The world's rectangle, 1 m a side where it has no positive size. */
static void world_box(const th_world *w, float box[4]) {
    th_world_def d = th_world_get_def(w);
    box[0] = box[1] = 0;
    box[2] = d.width > 0 ? d.width : 1;
    box[3] = d.height > 0 ? d.height : 1;
}

void tv_frame_box(const tv_ctx *c, const th_world *w, float box[4]) {
    if (!c->level || !tv_level_box(w, c->level, box)) world_box(w, box);
}

void tv_camera_fit(tv_camera *cam, const th_world *w) {
    float box[4];
    world_box(w, box);
    tv_camera_fit_box(cam, box, (SDL_FRect){0, 0, (float)cam->w, (float)cam->h});
}

/* Gap between panels and around them, pixels. */
#define GAP 8.0f

static double fit_scale(const float box[4], SDL_FRect r) {
    double sx = (r.w - 2.0 * TH_VIEW_MARGIN) / (box[2] - box[0]);
    double sy = (r.h - 2.0 * TH_VIEW_MARGIN) / (box[3] - box[1]);
    return sx < sy ? sx : sy;
}

/* Stack panels of sizes `sz` (w == 0: off) top-down in a column at x, from y = GAP; false when
 * they do not fit the window's height. The column's width goes to *col_w. */
static bool stack(const tv_ctx *c, float x, SDL_FPoint *const sz[], SDL_FRect *const out[], int n,
                  float *col_w) {
    float y = GAP, wmax = 0;
    for (int i = 0; i < n; i++) {
        if (!(sz[i]->x > 0)) continue;
        *out[i] = (SDL_FRect){x, y, sz[i]->x, sz[i]->y};
        y += sz[i]->y + GAP;
        if (sz[i]->x > wmax) wmax = sz[i]->x;
    }
    *col_w = wmax;
    return y <= (float)c->cam.h;
}

/* Lay panels of sizes `sz` (w == 0: off) side by side along the window's bottom edge, from
 * x = GAP; false when they do not fit its width. The row's height goes to *row_h. */
static bool row(const tv_ctx *c, SDL_FPoint *const sz[], SDL_FRect *const out[], int n,
                float *row_h) {
    float x = GAP, hmax = 0;
    for (int i = 0; i < n; i++) {
        if (!(sz[i]->x > 0)) continue;
        *out[i] = (SDL_FRect){x, (float)c->cam.h - GAP - sz[i]->y, sz[i]->x, sz[i]->y};
        x += sz[i]->x + GAP;
        if (sz[i]->y > hmax) hmax = sz[i]->y;
    }
    *row_h = hmax;
    return x <= (float)c->cam.w && hmax + 2 * GAP < (float)c->cam.h;
}

void tv_layout_frame(tv_ctx *c, const th_world *w) {
    const float W = (float)c->cam.w, H = (float)c->cam.h;
    SDL_FPoint hud[2] = {{0, 0}, {0, 0}}, prof[2] = {{0, 0}, {0, 0}}, leg[2] = {{0, 0}, {0, 0}};
    for (int k = 0; k < 2; k++) {
        if (c->overlays & TH_VIEW_OVERLAY_HUD) hud[k] = tv_hud_size(c, w, 2 - k);
        if (c->overlays & TH_VIEW_OVERLAY_PROFILER) prof[k] = tv_prof_size(c, 2 - k);
        if (c->overlays & TH_VIEW_OVERLAY_LEGEND) leg[k] = tv_legend_size(c, w, 2 - k);
    }
    /* Candidates, for each font scale of the HUD (with the profiler) and of the legend:
     * everything in a left column; HUD and profiler left, legend right; HUD left, legend and
     * profiler right; everything in a row under the map, which a wide world (a building's
     * levels side by side) fills the window's width with. The largest map wins, the small fonts
     * needing a map 30 % (HUD) or 15 % (legend) larger to win: text a person can read matters as
     * much as a few more pixels. */
    tv_layout best = {.free = {0, 0, W, H}, .hud_scale = 1, .legend_scale = 1};
    double best_score = -1;
    float box[4]; /* what the map area frames: the world or the level shown alone */
    tv_frame_box(c, w, box);
    for (int hs = 0; hs < 2; hs++) {
        SDL_FPoint *hd = &hud[hs], *pf = &prof[hs];
        for (int ls = 0; ls < 2; ls++) {
            SDL_FPoint *lg = &leg[ls];
            for (int arr = 0; arr < 4; arr++) {
                tv_layout l = {.hud_scale = 2 - hs, .legend_scale = 2 - ls};
                float lw = 0, rw = 0, bh = 0;
                bool ok;
                if (arr == 3) {
                    SDL_FPoint *sz[] = {hd, lg, pf};
                    SDL_FRect *out[] = {&l.hud, &l.legend, &l.prof};
                    ok = row(c, sz, out, 3, &bh);
                } else if (arr == 0) {
                    SDL_FPoint *sz[] = {hd, lg, pf};
                    SDL_FRect *out[] = {&l.hud, &l.legend, &l.prof};
                    ok = stack(c, GAP, sz, out, 3, &lw);
                } else if (arr == 1) {
                    SDL_FPoint *szl[] = {hd, pf}, *szr[] = {lg};
                    SDL_FRect *outl[] = {&l.hud, &l.prof}, *outr[] = {&l.legend};
                    ok = stack(c, GAP, szl, outl, 2, &lw) && stack(c, 0, szr, outr, 1, &rw);
                    l.legend.x = W - GAP - rw; /* the right column hangs from the right edge */
                } else {
                    SDL_FPoint *szl[] = {hd}, *szr[] = {lg, pf};
                    SDL_FRect *outl[] = {&l.hud}, *outr[] = {&l.legend, &l.prof};
                    ok = stack(c, GAP, szl, outl, 1, &lw) && stack(c, 0, szr, outr, 2, &rw);
                    l.legend.x = l.prof.x = W - GAP - rw;
                }
                if (!ok) continue;
                float left = lw > 0 ? lw + GAP : 0, right = rw > 0 ? rw + 2 * GAP : 0;
                l.free = (SDL_FRect){left, 0, W - left - right, H - (bh > 0 ? bh + 2 * GAP : 0)};
                if (l.free.w < 2 * TH_VIEW_MARGIN + 16 || l.free.h < 2 * TH_VIEW_MARGIN + 16)
                    continue;
                double score =
                    fit_scale(box, l.free) * (hs == 0 ? 1.3 : 1.0) * (ls == 0 ? 1.15 : 1.0);
                if (score > best_score * (1 + 1e-9)) {
                    best_score = score;
                    best = l;
                }
            }
        }
    }
    if (best_score < 0) {
        /* No arrangement fits beside the map: panels over it, stacked at the left. */
        SDL_FPoint *sz[] = {&hud[1], &leg[1], &prof[1]};
        SDL_FRect *out[] = {&best.hud, &best.legend, &best.prof};
        float lw;
        stack(c, GAP, sz, out, 3, &lw);
    }
    c->lay = best;
    if (c->at_fit) tv_camera_fit_box(&c->cam, box, c->lay.free);
}

th_vec2 tv_to_screen(const tv_camera *cam, double x, double y) {
    return th_v2((float)(cam->w / 2.0 + (x - cam->cx) * cam->scale),
                 (float)(cam->h / 2.0 - (y - cam->cy) * cam->scale));
}

th_vec2 tv_to_world(const tv_camera *cam, double sx, double sy) {
    return th_v2((float)(cam->cx + (sx - cam->w / 2.0) / cam->scale),
                 (float)(cam->cy - (sy - cam->h / 2.0) / cam->scale));
}

th_vec2 th_view_world_to_screen(const th_world *w, int width, int height, th_vec2 p) {
    tv_camera cam = {.w = width, .h = height, .scale = 1};
    if (!w) return th_v2((float)width / 2, (float)height / 2);
    tv_camera_fit(&cam, w);
    return tv_to_screen(&cam, p.x, p.y);
}

/* ---- interpolation and profile ------------------------------------------------------------- */

void tv_snapshot_prev(tv_ctx *c, const th_world *w) {
    th_agent_view v = th_world_agents(w);
    /* By id slot, so the arrays follow the id table (agents alive), not agents ever added. */
    uint32_t need = th_world_id_slots(w);
    if (need > c->prev_cap) {
        uint32_t cap = need + need / 4 + 64;
        float *nx = realloc(c->prev_x, (size_t)cap * sizeof *nx);
        if (nx) c->prev_x = nx;
        float *ny = nx ? realloc(c->prev_y, (size_t)cap * sizeof *ny) : NULL;
        if (ny) c->prev_y = ny;
        uint32_t *ng = ny ? realloc(c->prev_gen, (size_t)cap * sizeof *ng) : NULL;
        if (ng) c->prev_gen = ng;
        if (!nx || !ny || !ng) {
            c->prev_valid = false;
            return;
        }
        /* Generation 0 is no agent's: a slot first seen now has nothing to interpolate from. */
        memset(c->prev_gen + c->prev_cap, 0, (size_t)(cap - c->prev_cap) * sizeof *ng);
        c->prev_cap = cap;
    }
    for (uint32_t i = 0; i < v.count; i++) {
        const uint32_t s = v.id[i].index1 - 1;
        c->prev_x[s] = v.px[i];
        c->prev_y[s] = v.py[i];
        c->prev_gen[s] = v.id[i].generation;
    }
    c->prev_step = th_world_step_count(w);
    c->prev_valid = true;
}

void tv_record_profile(tv_ctx *c, const th_world *w) {
    for (int p = 0; p < TH_PHASE_COUNT; p++)
        c->prof[c->prof_head][p] = (float)th_world_phase_last_ms(w, (th_phase)p);
    c->prof_head = (c->prof_head + 1) % TV_PROF_SAMPLES;
    if (c->prof_count < TV_PROF_SAMPLES) c->prof_count++;
}

/* ---- per-cell layers ----------------------------------------------------------------------- */

static uint32_t *scratch_pixels(tv_ctx *c, size_t n) {
    if (n > c->pixels_cap) {
        uint32_t *p = realloc(c->pixels, n * sizeof *p);
        if (!p) return NULL;
        c->pixels = p;
        c->pixels_cap = n;
    }
    return c->pixels;
}

/* (Re)create `*tex` as a w x h texture and upload `px`. */
static bool upload(tv_ctx *c, SDL_Texture **tex, int w, int h, const uint32_t *px) {
    int tw = 0, th = 0;
    if (*tex && (SDL_QueryTexture(*tex, NULL, NULL, &tw, &th) != 0 || tw != w || th != h)) {
        SDL_DestroyTexture(*tex);
        *tex = NULL;
    }
    if (!*tex) {
        *tex = SDL_CreateTexture(c->r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, w, h);
        if (!*tex) return false;
        SDL_SetTextureScaleMode(*tex, SDL_ScaleModeNearest);
        SDL_SetTextureBlendMode(*tex, SDL_BLENDMODE_BLEND);
    }
    return SDL_UpdateTexture(*tex, NULL, px, w * 4) == 0;
}

static uint32_t cell_color(th_cell_kind kind, uint32_t cost) {
    if (kind != TH_CELL_OPEN) return th_view_cell_color(kind);
    if (cost <= 1) return COL_STREET;
    /* Shades by log2(cost): cost 2 is a quarter of the way to the slowest shade, 16 all of it. */
    return mix(COL_STREET, COL_SLOW, 0.25f + 0.75f * (log2f((float)cost) - 1.0f) / 3.0f);
}

static void build_map(tv_ctx *c, const th_world *w) {
    c->map_dirty = false;
    c->dens_open_valid = false; /* walls may have moved */
    if (!th_world_map_size(w, &c->map_cols, &c->map_rows, &c->cell_size)) {
        c->map_cols = c->map_rows = 0;
        return;
    }
    uint32_t *px = scratch_pixels(c, (size_t)c->map_cols * (size_t)c->map_rows);
    if (!px) return;
    for (int32_t y = 0; y < c->map_rows; y++) {
        uint32_t *row = px + (size_t)(c->map_rows - 1 - y) * (size_t)c->map_cols; /* north up */
        for (int32_t x = 0; x < c->map_cols; x++) {
            uint32_t cost = 1;
            th_cell_kind k = th_world_cell(w, x, y, &cost);
            row[x] = cell_color(k, cost);
        }
    }
    upload(c, &c->map_tex, c->map_cols, c->map_rows, px);
}

uint32_t tv_walldist_color(float d) {
    /* Magenta at a wall, through blue (2 m) and teal (4 m) to lime at 8 m, clear beyond.
     * Rejected: red to yellow near walls, which over the dark street read as the brown of
     * destructible walls. */
    if (!(d < TV_WALLDIST_MAX)) return 0;
    uint32_t rgb = d < 2.0f   ? mix(0xFFF040F0, 0xFF5070FF, d / 2.0f)
                   : d < 4.0f ? mix(0xFF5070FF, 0xFF30D0C0, (d - 2.0f) / 2.0f)
                              : mix(0xFF30D0C0, 0xFFB0F040, (d - 4.0f) / 4.0f);
    return with_alpha(rgb, (uint32_t)(200.0f - 90.0f * d / TV_WALLDIST_MAX));
}

static void build_walldist(tv_ctx *c, const th_world *w) {
    c->walldist_dirty = false;
    if (c->map_cols <= 0) return;
    uint32_t *px = scratch_pixels(c, (size_t)c->map_cols * (size_t)c->map_rows);
    if (!px) return;
    for (int32_t y = 0; y < c->map_rows; y++) {
        uint32_t *row = px + (size_t)(c->map_rows - 1 - y) * (size_t)c->map_cols;
        for (int32_t x = 0; x < c->map_cols; x++) {
            if (th_world_cell(w, x, y, NULL) != TH_CELL_OPEN) {
                row[x] = 0;
                continue;
            }
            th_vec2 p = th_v2(((float)x + 0.5f) * c->cell_size, ((float)y + 0.5f) * c->cell_size);
            row[x] = tv_walldist_color(th_world_wall_distance(w, p, NULL));
        }
    }
    upload(c, &c->walldist_tex, c->map_cols, c->map_rows, px);
}

/* A texture covering the map rectangle (or the world, without a map) in screen space. */
static void draw_world_texture(tv_ctx *c, SDL_Texture *tex, float wmetres, float hmetres) {
    th_vec2 tl = tv_to_screen(&c->cam, 0, hmetres), br = tv_to_screen(&c->cam, wmetres, 0);
    SDL_FRect dst = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
    SDL_RenderCopyF(c->r, tex, NULL, &dst);
}

/* Persons/m^2 on one ramp from 0 to TV_DENSITY_MAX (6) and above, ColorBrewer's YlOrRd as
 * `throng run --results` draws its maps, so that Fruin's levels E (up to 2.17) and F (above) and
 * the densest queues (4-6) look different. */
uint32_t tv_density_color(float per_m2) {
    static const uint32_t ramp[7] = {0xFFFFFFCC, 0xFFFED976, 0xFFFEB24C, 0xFFFD8D3C,
                                     0xFFF03B20, 0xFFBD0026, 0xFF67000D};
    if (!(per_m2 > 0.01f)) return 0;
    float t = th_clampf(per_m2, 0.0f, TV_DENSITY_MAX);
    int i = (int)t;
    uint32_t rgb = i >= 6 ? ramp[6] : mix(ramp[i], ramp[i + 1], t - (float)i);
    /* Opaque enough to read under the agents even where the crowd is thin. */
    return with_alpha(rgb, (uint32_t)(130.0f + 110.0f * t / TV_DENSITY_MAX));
}

/* Each density block's walkable area: the map's open cells whose centres lie in it (the whole
 * block without a map). */
static bool density_open(tv_ctx *c, const th_world *w, float bw, float bh) {
    const size_t n = (size_t)c->dens_cols * (size_t)c->dens_rows;
    float *open = realloc(c->dens_open, n * sizeof *open);
    if (!open) return false;
    c->dens_open = open;
    int32_t mc = 0, mr = 0;
    float cs = 0;
    if (!th_world_map_size(w, &mc, &mr, &cs)) {
        for (size_t i = 0; i < n; i++) open[i] = bw * bh;
    } else {
        memset(open, 0, n * sizeof *open);
        for (int32_t y = 0; y < mr; y++) {
            int32_t by = (int32_t)(((float)y + 0.5f) * cs / bh);
            if (by < 0 || by >= c->dens_rows) continue;
            for (int32_t x = 0; x < mc; x++) {
                int32_t bx = (int32_t)(((float)x + 0.5f) * cs / bw);
                if (bx < 0 || bx >= c->dens_cols || th_world_cell(w, x, y, NULL) != TH_CELL_OPEN)
                    continue;
                open[(size_t)by * (size_t)c->dens_cols + (size_t)bx] += cs * cs;
            }
        }
    }
    c->dens_open_valid = true;
    return true;
}

/* Density per block of k x k spatial-grid cells, k chosen so a block is at least 10 px on
 * screen, smoothed with a 3 x 3 binomial kernel over people and walkable area alike (so walls
 * thin no crowd beside them): unsmoothed cells of a few pixels lay exactly under the agents
 * that filled them, so the overlay changed almost no pixel at the default zoom. Blocks less
 * than a quarter walkable are walls, left clear. */
static void draw_density(tv_ctx *c, const th_world *w) {
    int32_t gc = 0, gr = 0;
    float cw = 0, ch = 0;
    th_world_grid_size(w, &gc, &gr, &cw, &ch);
    if (gc <= 0 || gr <= 0 || !(cw > 0) || !(ch > 0)) return;
    int32_t k = 1;
    double cell_px = (cw < ch ? cw : ch) * c->cam.scale;
    while ((cell_px * k < 10 && k < 64) || (gc + k - 1) / k > 1024 || (gr + k - 1) / k > 1024) k++;
    int32_t dc = (gc + k - 1) / k, dr = (gr + k - 1) / k;
    size_t n = (size_t)dc * (size_t)dr;
    if (dc != c->dens_cols || dr != c->dens_rows || k != c->dens_k) {
        uint32_t *cnt = realloc(c->dens_count, n * sizeof *cnt);
        if (!cnt) return;
        c->dens_count = cnt;
        c->dens_cols = dc;
        c->dens_rows = dr;
        c->dens_k = k;
        c->dens_open_valid = false;
    }
    float bw = cw * (float)k, bh = ch * (float)k;
    if (!c->dens_open_valid && !density_open(c, w, bw, bh)) return;
    memset(c->dens_count, 0, n * sizeof *c->dens_count);
    th_agent_view v = th_world_agents(w);
    for (uint32_t i = 0; i < v.count; i++) {
        float fx = v.px[i] / bw, fy = v.py[i] / bh;
        if (!(fx >= 0 && fy >= 0 && fx < (float)dc && fy < (float)dr)) continue;
        c->dens_count[(size_t)fy * (size_t)dc + (size_t)fx]++;
    }
    uint32_t *px = scratch_pixels(c, n);
    if (!px) return;
    static const float kern[3] = {0.25f, 0.5f, 0.25f};
    const float wall = 0.25f * bw * bh;
    for (int32_t y = 0; y < dr; y++) {
        for (int32_t x = 0; x < dc; x++) {
            uint32_t *out = &px[(size_t)(dr - 1 - y) * (size_t)dc + (size_t)x];
            if (c->dens_open[(size_t)y * (size_t)dc + (size_t)x] < wall) {
                *out = 0;
                continue;
            }
            float sum = 0, area = 0;
            for (int dy = -1; dy <= 1; dy++) {
                int32_t yy = y + dy;
                if (yy < 0 || yy >= dr) continue;
                for (int dx = -1; dx <= 1; dx++) {
                    int32_t xx = x + dx;
                    if (xx < 0 || xx >= dc) continue;
                    const size_t b = (size_t)yy * (size_t)dc + (size_t)xx;
                    const float kw = kern[dy + 1] * kern[dx + 1];
                    sum += kw * (float)c->dens_count[b];
                    area += kw * c->dens_open[b];
                }
            }
            *out = tv_density_color(area > 0 ? sum / area : 0.0f);
        }
    }
    if (upload(c, &c->dens_tex, dc, dr, px))
        draw_world_texture(c, c->dens_tex, bw * (float)dc, bh * (float)dr);
}

/* ---- per-item layers --------------------------------------------------------------------- */

/* Index range [*lo, *hi) of lines or samples at pitch `step` metres visible between screen
 * coordinates covering world [w0, w1]. */
static void visible_range(double w0, double w1, double step, int32_t count, int32_t *lo,
                          int32_t *hi) {
    double a = floor(w0 / step) - 1, b = ceil(w1 / step) + 1;
    *lo = a < 0 ? 0 : (a > count ? count : (int32_t)a);
    *hi = b < 0 ? 0 : (b > count ? count : (int32_t)b);
}

/* ---- fire hazards ------------------------------------------------------------------------ */

#define COL_SMOKE 0xFFA4AAB4u /* a cool grey, lighter than walls: smoke over the dark floor */
#define COL_TOXIC 0xFFB8F030u /* yellow-green: gas that gives a dose */

uint32_t tv_air_color(const th_air *air) {
    /* Smoke: opacity min(0.75, K / 8), so K = 1 /m (about 3 m visibility) is a light haze and
     * K = 6 /m, where walking is halved, is dense. */
    const float k = air->extinction > 0.0f ? air->extinction : 0.0f;
    const float smoke = k / 8.0f < 0.75f ? k / 8.0f : 0.75f;
    /* Toxic air (worse than clean air, whose oxygen alone has a tiny rate): a tint whose
     * opacity rises with the dose rate on a log scale, from 100 min to incapacitation (faint)
     * to 6 s (strong), so a gas is visible even without smoke. */
    float toxic = 0.0f;
    if (air->co > 0.0f || air->hcn > 0.0f || air->o2 < TH_AIR_O2_PERCENT) {
        const double rate = th_fed_rate(air);
        const float t = th_clampf((float)log10(rate * 6000.0) / 3.0f, 0.0f, 1.0f);
        toxic = 0.22f + 0.33f * t;
    }
    if (!(smoke >= 1.0f / 255.0f) && toxic == 0.0f) return 0;
    const float a = smoke > toxic ? smoke : toxic;
    /* Both: smoke's grey, leaning toward the gas's colour where the gas dominates. */
    const uint32_t rgb =
        mix(COL_SMOKE, COL_TOXIC, toxic > 0.0f ? toxic / (smoke + toxic) * (1.0f - smoke) : 0.0f);
    return with_alpha(rgb, (uint32_t)(a * 255.0f + 0.5f));
}

uint32_t tv_over(uint32_t base, uint32_t top) {
    return mix(base, top | 0xFF000000u, (float)(top >> 24) / 255.0f) | 0xFF000000u;
}

/* The air of the fire hazards over the map's open cells in view: one texel per k x k cells
 * (k = 1 unless the cells in view outnumber the screen's pixels or 160,000), sampled at the
 * block's middle cell with th_world_air. Rebuilt only when a step passed or the view moved
 * to other cells. Walls are left clear so they stay readable. */
static void draw_air(tv_ctx *c, const th_world *w) {
    const uint32_t hazards = th_world_hazard_count(w);
    if (hazards == 0 || c->map_cols <= 0 || !(c->cell_size > 0.0f)) return;
    const float cs = c->cell_size;
    th_vec2 lo = tv_to_world(&c->cam, 0, c->cam.h), hi = tv_to_world(&c->cam, c->cam.w, 0);
    int32_t x0, x1, y0, y1;
    visible_range(lo.x, hi.x, cs, c->map_cols, &x0, &x1);
    visible_range(lo.y, hi.y, cs, c->map_rows, &y0, &y1);
    if (x1 <= x0 || y1 <= y0) return;
    int32_t k = 1, nx = x1 - x0, ny = y1 - y0;
    const int32_t max_x = c->cam.w > 64 ? c->cam.w : 64, max_y = c->cam.h > 64 ? c->cam.h : 64;
    while (nx > max_x || ny > max_y || (int64_t)nx * ny > 160000) {
        k++;
        nx = (x1 - x0 + k - 1) / k;
        ny = (y1 - y0 + k - 1) / k;
    }
    const uint64_t step = th_world_step_count(w);
    if (!c->air_valid || !c->air_tex || c->air_step != step || c->air_hazards != hazards ||
        c->air_x0 != x0 || c->air_y0 != y0 || c->air_cols != nx || c->air_rows != ny ||
        c->air_k != k) {
        uint32_t *px = scratch_pixels(c, (size_t)nx * (size_t)ny);
        if (!px) return;
        /* Neighbouring cells mostly lie in the same hazard: the colour of the last air read
         * is kept, so the dose rate's exponentials run once per run of equal air. */
        th_air last = th_clean_air();
        uint32_t last_col = 0;
        for (int32_t j = 0; j < ny; j++) {
            uint32_t *row = px + (size_t)(ny - 1 - j) * (size_t)nx; /* north up */
            int32_t cy = y0 + j * k + k / 2;
            if (cy >= c->map_rows) cy = c->map_rows - 1;
            for (int32_t i = 0; i < nx; i++) {
                int32_t cx = x0 + i * k + k / 2;
                if (cx >= c->map_cols) cx = c->map_cols - 1;
                th_air air;
                row[i] = 0;
                if (th_world_cell(w, cx, cy, NULL) != TH_CELL_OPEN ||
                    !th_world_air(w, th_v2(((float)cx + 0.5f) * cs, ((float)cy + 0.5f) * cs), &air))
                    continue;
                if (memcmp(&air, &last, sizeof air) != 0) {
                    last = air;
                    last_col = tv_air_color(&air);
                }
                row[i] = last_col;
            }
        }
        c->air_valid = upload(c, &c->air_tex, nx, ny, px);
        c->air_step = step;
        c->air_hazards = hazards;
        c->air_x0 = x0;
        c->air_y0 = y0;
        c->air_cols = nx;
        c->air_rows = ny;
        c->air_k = k;
        if (!c->air_valid) return;
    }
    /* The texture's blocks in metres (the last row and column may reach past the map). */
    th_vec2 tl = tv_to_screen(&c->cam, (double)x0 * cs, (double)(y0 + ny * k) * cs);
    th_vec2 br = tv_to_screen(&c->cam, (double)(x0 + nx * k) * cs, (double)y0 * cs);
    SDL_FRect dst = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
    SDL_RenderCopyF(c->r, c->air_tex, NULL, &dst);
}

int32_t tv_grid_stride(const tv_ctx *c, const th_world *w) {
    int32_t gc = 0, gr = 0;
    float cw = 0, ch = 0;
    th_world_grid_size(w, &gc, &gr, &cw, &ch);
    double px = (cw < ch ? cw : ch) * c->cam.scale;
    int32_t k = 1;
    while (px * k < 5 && k < (1 << 20)) k *= 2;
    return k;
}

static void draw_grid(tv_ctx *c, const th_world *w) {
    int32_t gc = 0, gr = 0;
    float cw = 0, ch = 0;
    th_world_grid_size(w, &gc, &gr, &cw, &ch);
    if (gc <= 0 || gr <= 0 || !(cw > 0) || !(ch > 0)) return;
    /* Every k-th line, k chosen so lines stand at least 5 px apart (the legend says k): cells
     * of a few pixels used to draw no line at all at the default zoom. */
    int32_t k = tv_grid_stride(c, w);
    th_vec2 lo = tv_to_world(&c->cam, 0, c->cam.h), hi = tv_to_world(&c->cam, c->cam.w, 0);
    int32_t x0, x1, y0, y1;
    visible_range(lo.x, hi.x, cw * k, gc / k + 1, &x0, &x1);
    visible_range(lo.y, hi.y, ch * k, gr / k + 1, &y0, &y1);
    th_vec2 tl = tv_to_screen(&c->cam, 0, gr * ch), br = tv_to_screen(&c->cam, gc * cw, 0);
    const uint32_t col = 0x90B4C8FF;
    for (int32_t i = x0; i < x1; i++) {
        float sx = tv_to_screen(&c->cam, (double)i * k * cw, 0).x;
        tv_batch_rect(&c->geo, sx, tl.y, 1.0f, br.y - tl.y, col);
    }
    for (int32_t j = y0; j < y1; j++) {
        float sy = tv_to_screen(&c->cam, 0, (double)j * k * ch).y;
        tv_batch_rect(&c->geo, tl.x, sy, br.x - tl.x, 1.0f, col);
    }
}

static void arrow(tv_batch *b, th_vec2 p, th_vec2 d, float len, uint32_t col) {
    /* Screen y points down: flip the world direction's y. */
    float dx = d.x, dy = -d.y, hl = len * 0.5f;
    float tx = p.x + dx * hl, ty = p.y + dy * hl, bx = p.x - dx * hl, by = p.y - dy * hl;
    float head = len * 0.38f, nx = -dy, ny = dx;
    float hx = tx - dx * head, hy = ty - dy * head;
    tv_batch_line(b, bx, by, hx, hy, len > 14 ? 2.0f : 1.5f, col);
    tv_batch_tri(b, tx, ty, hx + nx * head * 0.55f, hy + ny * head * 0.55f, hx - nx * head * 0.55f,
                 hy - ny * head * 0.55f, col);
}

int tv_flow_bunker(const tv_ctx *c, const th_world *w) {
    const uint32_t fields = th_world_bunker_count(w) + th_world_destination_count(w);
    return c->flow_bunker >= 0 && (uint32_t)c->flow_bunker < fields ? c->flow_bunker : -1;
}

const char *tv_flow_name(const tv_ctx *c, const th_world *w, char *buf, size_t cap) {
    const int f = tv_flow_bunker(c, w), nb = (int)th_world_bunker_count(w);
    th_bunker_info bi;
    if (f < 0) return "nearest";
    if (f < nb) return th_world_get_bunker(w, (th_bunker_id){(uint32_t)f + 1}, &bi) ? bi.name : "?";
    /* A destination field: named by the crowd that walks to it. */
    for (uint32_t cr = 0; cr < th_world_crowd_count(w); cr++) {
        const th_crowd_def *d = th_world_get_crowd(w, (th_crowd_id){cr + 1});
        if (d->goal.kind == TH_GOAL_DESTINATIONS && (int)d->goal.field.index1 - 1 == f - nb) {
            snprintf(buf, cap, "goal of %s", d->name);
            return buf;
        }
    }
    snprintf(buf, cap, "destinations %d", f - nb);
    return buf;
}

/* Field `only` of the flow overlay at p: the nearest-bunker field (-1), a bunker's own, or a
 * destination field (numbered after the bunkers). */
static bool flow_at(const th_world *w, int only, th_vec2 p, th_vec2 *d) {
    const int nb = (int)th_world_bunker_count(w);
    if (only < 0) return th_world_flow(w, p, d);
    if (only < nb) return th_world_bunker_flow(w, (th_bunker_id){(uint32_t)only + 1}, p, d);
    return th_world_destination_flow(w, (th_field_id){(uint32_t)(only - nb) + 1}, p, d);
}

static void draw_flow(tv_ctx *c, const th_world *w) {
    int only = tv_flow_bunker(c, w);
    if (c->map_cols <= 0 || (only < 0 && th_world_bunker_count(w) == 0)) return;
    /* One arrow per k x k cells, k chosen so arrows stand about 18 px apart. */
    double px_per_cell = c->cell_size * c->cam.scale;
    int32_t k = px_per_cell >= 18 ? 1 : (int32_t)ceil(18.0 / px_per_cell);
    if (k > c->map_cols && k > c->map_rows) return;
    double pitch = (double)k * c->cell_size;
    th_vec2 lo = tv_to_world(&c->cam, 0, c->cam.h), hi = tv_to_world(&c->cam, c->cam.w, 0);
    int32_t i0, i1, j0, j1;
    visible_range(lo.x, hi.x, pitch, (c->map_cols + k - 1) / k, &i0, &i1);
    visible_range(lo.y, hi.y, pitch, (c->map_rows + k - 1) / k, &j0, &j1);
    float len = (float)(pitch * c->cam.scale * 0.8);
    for (int32_t j = j0; j < j1; j++) {
        for (int32_t i = i0; i < i1; i++) {
            int32_t cx = i * k + k / 2, cy = j * k + k / 2;
            if (cx >= c->map_cols || cy >= c->map_rows) continue;
            if (th_world_cell(w, cx, cy, NULL) != TH_CELL_OPEN) continue;
            th_vec2 p = th_v2(((float)cx + 0.5f) * c->cell_size, ((float)cy + 0.5f) * c->cell_size);
            th_vec2 d;
            th_vec2 s = tv_to_screen(&c->cam, p.x, p.y);
            bool routed = flow_at(w, only, p, &d);
            if (!routed) {
                /* No route: a small grey cross, so stranded areas are visible. */
                float r = len * 0.2f;
                tv_batch_line(&c->geo, s.x - r, s.y - r, s.x + r, s.y + r, 1.5f, 0xB0808080);
                tv_batch_line(&c->geo, s.x - r, s.y + r, s.x + r, s.y - r, 1.5f, 0xB0808080);
                continue;
            }
            if (th_v2_len2(d) < 0.25f) continue; /* inside a bunker or on a goal cell */
            int b = only >= 0 ? only : (int)th_world_nearest_bunker(w, p).index1 - 1;
            uint32_t col = b >= 0 ? bunker_palette[b % 8] : 0xFFC0C0C0;
            arrow(&c->geo, s, d, len, with_alpha(col, 0xD0));
        }
    }
}

bool tv_bunker_marker(const tv_ctx *c, const th_world *w, uint32_t b, SDL_FRect *out) {
    th_bunker_info bi;
    if (c->map_cols <= 0 || !th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi)) return false;
    float cs = c->cell_size;
    th_vec2 tl = tv_to_screen(&c->cam, bi.x0 * cs, (bi.y1 + 1) * cs);
    th_vec2 br = tv_to_screen(&c->cam, (bi.x1 + 1) * cs, bi.y0 * cs);
    float cx = (tl.x + br.x) / 2, cy = (tl.y + br.y) / 2;
    float sw = br.x - tl.x, sh = br.y - tl.y;
    if (sw < 18) sw = 18;
    if (sh < 18) sh = 18;
    *out = (SDL_FRect){cx - sw / 2, cy - sh / 2, sw, sh};
    return true;
}

static void outline(tv_batch *b, SDL_FRect r, float t, uint32_t col) {
    tv_batch_rect(b, r.x - t, r.y - t, r.w + 2 * t, t, col);
    tv_batch_rect(b, r.x - t, r.y + r.h, r.w + 2 * t, t, col);
    tv_batch_rect(b, r.x - t, r.y, t, r.h, col);
    tv_batch_rect(b, r.x + r.w, r.y, t, r.h, col);
}

/* A bunker's colour: an exit's red (grey once closed); a shelter's own, or its state's. */
static uint32_t bunker_state_color(const th_bunker_info *bi, uint32_t b) {
    if (bi->exit) return bi->destroyed ? TV_EXIT_CLOSED_COLOR : bi->full ? COL_FULL : TV_EXIT_COLOR;
    return bi->destroyed ? COL_DESTROYED : bi->full ? COL_FULL : bunker_palette[b % 8];
}

static void draw_bunkers(tv_ctx *c, const th_world *w) {
    uint32_t n = th_world_bunker_count(w);
    for (uint32_t b = 0; b < n; b++) {
        th_bunker_info bi;
        SDL_FRect m;
        if (!th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi) || !tv_bunker_marker(c, w, b, &m))
            continue;
        uint32_t col = bunker_state_color(&bi, b);
        tv_batch_rect(&c->geo, m.x, m.y, m.w, m.h, with_alpha(col, bi.destroyed ? 0x50 : 0x60));
        outline(&c->geo, m, 2.0f, col);
        float cs = c->cell_size;
        th_vec2 tl = tv_to_screen(&c->cam, bi.x0 * cs, (bi.y1 + 1) * cs);
        th_vec2 br = tv_to_screen(&c->cam, (bi.x1 + 1) * cs, bi.y0 * cs);
        tv_batch_rect(&c->geo, tl.x, tl.y, br.x - tl.x, br.y - tl.y, col);
        if (bi.destroyed) {
            tv_batch_line(&c->geo, m.x, m.y, m.x + m.w, m.y + m.h, 3.0f, 0xFFFFFFFF);
            tv_batch_line(&c->geo, m.x, m.y + m.h, m.x + m.w, m.y, 3.0f, 0xFFFFFFFF);
        }
        if (b < 64 && (c->queued_bunkers >> b) & 1) tv_queued_mark(&c->geo, m);
    }
    /* Queued wall breaks: the same mark around the clicked cell. */
    for (int i = 0; i < c->mark_count; i++) {
        th_vec2 p = tv_to_screen(&c->cam, c->marks[i].x, c->marks[i].y);
        tv_queued_mark(&c->geo, (SDL_FRect){p.x - 9, p.y - 9, 18, 18});
    }
}

/* Where agents come from and where they leave: each spawner's area in green and each exit's in
 * red, a translucent fill with an outline (cell by cell for areas given as cells), under the
 * agents. */
static void draw_flow_areas(tv_ctx *c, const th_world *w) {
    const uint32_t spawn_col = TV_SPAWNER_COLOR, exit_col = TV_EXIT_COLOR;
    const float cs = c->cell_size;
    for (int kind = 0; kind < 2; kind++) {
        const uint32_t n = kind ? th_world_exit_count(w) : th_world_spawner_count(w);
        const uint32_t col = kind ? exit_col : spawn_col;
        for (uint32_t i = 0; i < n; i++) {
            float x0, y0, x1, y1;
            if (kind) {
                th_exit_info e;
                if (!th_world_get_exit(w, (th_exit_id){i + 1}, &e)) continue;
                x0 = e.x0, y0 = e.y0, x1 = e.x1, y1 = e.y1;
            } else {
                th_spawner_info s;
                if (!th_world_get_spawner(w, (th_spawner_id){i + 1}, &s)) continue;
                x0 = s.x0, y0 = s.y0, x1 = s.x1, y1 = s.y1;
            }
            const th_vec2 tl = tv_to_screen(&c->cam, x0, y1), br = tv_to_screen(&c->cam, x1, y0);
            const SDL_FRect r = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
            bool cells = false;
            if (c->map_cols > 0 && cs > 0.0f) {
                /* Areas given as cells: fill exactly those (the bounding box may hold others). */
                const int32_t cx0 = (int32_t)floorf(x0 / cs), cy0 = (int32_t)floorf(y0 / cs);
                const int32_t cx1 = (int32_t)ceilf(x1 / cs) - 1, cy1 = (int32_t)ceilf(y1 / cs) - 1;
                for (int32_t y = cy0; y <= cy1; y++) {
                    for (int32_t x = cx0; x <= cx1; x++) {
                        if (!(kind ? th_world_exit_covers(w, (th_exit_id){i + 1}, x, y)
                                   : th_world_spawner_covers(w, (th_spawner_id){i + 1}, x, y)))
                            continue;
                        cells = true;
                        const th_vec2 a = tv_to_screen(&c->cam, (float)x * cs, (float)(y + 1) * cs);
                        const th_vec2 b = tv_to_screen(&c->cam, (float)(x + 1) * cs, (float)y * cs);
                        tv_batch_rect(&c->geo, a.x, a.y, b.x - a.x, b.y - a.y,
                                      with_alpha(col, 0x70));
                    }
                }
            }
            if (!cells) {
                tv_batch_rect(&c->geo, r.x, r.y, r.w, r.h, with_alpha(col, 0x50));
                outline(&c->geo, r, 1.5f, with_alpha(col, 0xD0));
            }
        }
    }
}

void tv_queued_mark(tv_batch *b, SDL_FRect m) {
    /* Dashed yellow corners a few pixels outside the marker: "clicked, applies at the next step".
     */
    const uint32_t col = 0xFFFFE040u;
    float x0 = m.x - 6, y0 = m.y - 6, x1 = m.x + m.w + 6, y1 = m.y + m.h + 6, d = 7, t = 3;
    tv_batch_rect(b, x0, y0, d, t, col);
    tv_batch_rect(b, x0, y0, t, d, col);
    tv_batch_rect(b, x1 - d, y0, d, t, col);
    tv_batch_rect(b, x1 - t, y0, t, d, col);
    tv_batch_rect(b, x0, y1 - t, d, t, col);
    tv_batch_rect(b, x0, y1 - d, t, d, col);
    tv_batch_rect(b, x1 - d, y1 - t, d, t, col);
    tv_batch_rect(b, x1 - t, y1 - d, t, d, col);
}

/* Covered agents beyond this count as this many: below one label or marker covered. */
#define LABEL_AGENTS_MAX 100000

static bool overlaps(SDL_FRect a, SDL_FRect b) {
    return b.w > 0 && a.w > 0 && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
           b.y < a.y + a.h;
}

/* How badly label rectangle `r` sits: 4 per panel it touches or part outside the window, 1 per
 * label (a bunker's, a stair's or a lift's) or marker it covers, and, below any of those, the
 * agents it covers. Panels weigh more: a label must never be hidden. */
static int label_cost(const tv_ctx *c, const th_world *w, SDL_FRect r, uint32_t self) {
    int cost = 0;
    if (r.x < 2 || r.y < 2 || r.x + r.w > (float)c->cam.w - 2 || r.y + r.h > (float)c->cam.h - 2)
        cost += 4;
    if ((c->overlays & TH_VIEW_OVERLAY_HUD) && overlaps(r, c->lay.hud)) cost += 4;
    if ((c->overlays & TH_VIEW_OVERLAY_LEGEND) && overlaps(r, c->lay.legend)) cost += 4;
    if ((c->overlays & TH_VIEW_OVERLAY_PROFILER) && overlaps(r, c->lay.prof)) cost += 4;
    for (uint32_t b = 0; b < self; b++)
        if (overlaps(r, c->label[b])) cost++;
    for (uint32_t i = 0; i < c->place_label_count; i++) /* stairs', lifts' (drawn before) */
        if (overlaps(r, c->place_label[i])) cost++;
    uint32_t n = th_world_bunker_count(w);
    for (uint32_t b = 0; b < n; b++) {
        SDL_FRect m;
        if (b != self && tv_bunker_marker(c, w, b, &m) && overlaps(r, m)) cost++;
    }
    const uint32_t agents = tv_agents_under(c, r);
    return cost * LABEL_AGENTS_MAX +
           (int)(agents < LABEL_AGENTS_MAX - 1 ? agents : LABEL_AGENTS_MAX - 1);
}

/* Bunker labels go on top of agents: number key, name, count sheltered and state. Each takes
 * the first place around its marker (listed below, each slid to fit the window) that covers no
 * panel, other label, marker or agent; else the least bad one. */
static void draw_bunker_labels(tv_ctx *c, const th_world *w) {
    uint32_t n = th_world_bunker_count(w);
    c->label_count = 0;
    for (uint32_t b = 0; b < n && b < TH_MAX_BUNKERS; b++) {
        c->label[b] = (SDL_FRect){0, 0, 0, 0};
        c->label_count = b + 1;
        th_bunker_info bi;
        SDL_FRect m;
        if (!th_world_get_bunker(w, (th_bunker_id){b + 1}, &bi) || !tv_bunker_marker(c, w, b, &m))
            continue;
        /* A bunker on a level left out has no label either. */
        const float cs = c->cell_size;
        if (!tv_shown(c, w,
                      th_v2((float)(bi.x0 + bi.x1 + 1) * 0.5f * cs,
                            (float)(bi.y0 + bi.y1 + 1) * 0.5f * cs)))
            continue;
        char line1[96], line2[64];
        /* Its key (1..9 destroys or restores it) only while the keys are shown: on its own a
         * "[1]" reads as an invitation to destroy a healthy exit. */
        if (b < 9 && (c->overlays & TH_VIEW_OVERLAY_HELP))
            snprintf(line1, sizeof line1, "[%u] %s%s", b + 1, bi.exit ? "exit " : "", bi.name);
        else snprintf(line1, sizeof line1, "%s%s", bi.exit ? "exit " : "", bi.name);
        bool queued = b < 64 && ((c->queued_bunkers >> b) & 1);
        /* An exit counts those it let out; closing it is what destroying does. */
        const char *state = bi.destroyed ? (bi.exit ? " CLOSED" : " DESTROYED")
                            : bi.full    ? " FULL"
                                         : "";
        const char *out = bi.exit ? " out" : "";
        if (bi.capacity)
            snprintf(line2, sizeof line2, "%u/%u%s%s%s", bi.sheltered, bi.capacity, out, state,
                     queued ? " (queued)" : "");
        else
            snprintf(line2, sizeof line2, "%u%s%s%s", bi.sheltered, out, state,
                     queued ? " (queued)" : "");
        float w1 = tv_text_width(2, line1), w2 = tv_text_width(2, line2);
        float bw = (w1 > w2 ? w1 : w2) + 8, bh = 2 * TV_FONT_H * 2 + 6;
        float mx = m.x + m.w / 2, my = m.y + m.h / 2;
        /* Above (centred, then flush with either edge of the marker), below (the same), right,
         * left, then a row further out above and below. */
        SDL_FRect cand[10] = {
            {mx - bw / 2, m.y - bh - 4, bw, bh},
            {m.x, m.y - bh - 4, bw, bh},
            {m.x + m.w - bw, m.y - bh - 4, bw, bh},
            {mx - bw / 2, m.y + m.h + 4, bw, bh},
            {m.x, m.y + m.h + 4, bw, bh},
            {m.x + m.w - bw, m.y + m.h + 4, bw, bh},
            {m.x + m.w + 4, my - bh / 2, bw, bh},
            {m.x - bw - 4, my - bh / 2, bw, bh},
            {mx - bw / 2, m.y - 2 * bh - 8, bw, bh},
            {mx - bw / 2, m.y + m.h + bh + 8, bw, bh},
        };
        int best = 0, best_cost = 1 << 30;
        for (int i = 0; i < 10; i++) {
            /* Slide into the window, never onto the marker itself. */
            SDL_FRect r = cand[i];
            if (i != 6 && i != 7) {
                if (r.x < 2) r.x = 2;
                if (r.x + r.w > (float)c->cam.w - 2) r.x = (float)c->cam.w - 2 - r.w;
            } else {
                if (r.y < 2) r.y = 2;
                if (r.y + r.h > (float)c->cam.h - 2) r.y = (float)c->cam.h - 2 - r.h;
            }
            cand[i] = r;
            int cost = label_cost(c, w, r, b);
            if (cost < best_cost) {
                best_cost = cost;
                best = i;
            }
        }
        /* Where it was in the last frame, while that is as good: no hopping as agents pass. */
        const int was = c->label_was[b];
        if (was >= 0 && was < 10 && best != was && label_cost(c, w, cand[was], b) <= best_cost)
            best = was;
        c->label_was[b] = (int8_t)best;
        float x = cand[best].x, y = cand[best].y;
        c->label[b] = cand[best];
        uint32_t col = bunker_state_color(&bi, b);
        tv_batch_rect(&c->geo, x, y, bw, bh, COL_LABEL_BG);
        tv_batch_rect(&c->geo, x, y, 3, bh, col);
        tv_text(c, x + 6, y + 4, 2, 0xFFFFFFFF, line1);
        tv_text(c, x + 6, y + 4 + TV_FONT_H * 2, 2, queued ? 0xFFFFE040u : col, line2);
    }
}

/* The scene's colour for a crowd when it gives one, else the palette. */
static uint32_t scene_crowd_color(const th_world *w, uint32_t crowd) {
    const th_crowd_def *def = th_world_get_crowd(w, (th_crowd_id){crowd + 1});
    return def && def->color ? 0xFF000000u | def->color : crowd_palette[crowd % 8];
}

/* Each route-following crowd's waypoints in its colour, joined in order (and back to the first
 * for a loop), each ringed by its arrival radius: where the crowd is meant to walk. */
static void draw_routes(tv_ctx *c, const th_world *w) {
    for (uint32_t cr = 0; cr < th_world_crowd_count(w); cr++) {
        const th_crowd_def *d = th_world_get_crowd(w, (th_crowd_id){cr + 1});
        if (d->goal.kind != TH_GOAL_ROUTE || !d->goal.points) continue;
        const uint32_t col = with_alpha(scene_crowd_color(w, cr), 0xC0);
        const uint32_t n = d->goal.point_count;
        const float r = (float)((d->goal.radius > 0.0f ? d->goal.radius : 1.0f) * c->cam.scale);
        for (uint32_t i = 0; i < n; i++) {
            const th_vec2 a = tv_to_screen(&c->cam, d->goal.points[i].x, d->goal.points[i].y);
            /* The arrival circle as 16 chords. */
            for (int k = 0; k < 16; k++) {
                const float t0 = (float)k * 0.3926991f, t1 = (float)(k + 1) * 0.3926991f;
                tv_batch_line(&c->geo, a.x + r * cosf(t0), a.y + r * sinf(t0), a.x + r * cosf(t1),
                              a.y + r * sinf(t1), 1.0f, col);
            }
            if (i + 1 < n || (d->goal.mode == TH_ROUTE_LOOP && n > 2)) {
                const th_vec2 q = d->goal.points[(i + 1) % n];
                const th_vec2 b = tv_to_screen(&c->cam, q.x, q.y);
                tv_batch_line(&c->geo, a.x, a.y, b.x, b.y, 1.5f, col);
            }
        }
    }
}

/* Squads over the agents, so a slot stays visible under its member: the centre's path, a line
 * from each member to its slot, and the slot as a "+" (its centre pixel is coloured, unlike a
 * hollow square's). All of it goes into the geometry batch: no draw call per squad. */
static void draw_squads(tv_ctx *c, const th_world *w) {
    float arm = (float)(0.35 * c->cam.scale); /* cross half-width: 0.35 m, 3..10 px */
    if (arm < 3) arm = 3;
    if (arm > 10) arm = 10;
    th_squad_info si;
    for (th_squad_id s = {1}; s.index1 <= TH_MAX_SQUADS && th_world_get_squad(w, s, &si);
         s.index1++) {
        th_vec2 a = {0}, b;
        for (uint32_t i = 0; th_world_squad_waypoint(w, s, i, &b); i++, a = b) {
            th_vec2 sb = tv_to_screen(&c->cam, b.x, b.y);
            tv_batch_rect(&c->geo, sb.x - 2, sb.y - 2, 4, 4, 0xC0FFFFFF);
            if (i == 0) continue;
            th_vec2 sa = tv_to_screen(&c->cam, a.x, a.y);
            tv_batch_line(&c->geo, sa.x, sa.y, sb.x, sb.y, 2.0f, 0xA0FFFFFF);
        }
        th_vec2 ctr = tv_to_screen(&c->cam, si.centre.x, si.centre.y);
        tv_batch_rect(&c->geo, ctr.x - 3, ctr.y - 3, 6, 6, 0xFFFFFFFF);
        th_agent_id id;
        th_vec2 slot;
        for (uint32_t i = 0; th_world_get_squad_member(w, s, i, &id, &slot); i++) {
            th_agent_state st;
            bool alive = th_world_get_agent(w, id, &st);
            uint32_t col = alive ? scene_crowd_color(w, st.crowd.index1 - 1) : 0xFF808080u;
            th_vec2 ss = tv_to_screen(&c->cam, slot.x, slot.y);
            if (alive) {
                th_vec2 sm = tv_to_screen(&c->cam, st.position.x, st.position.y);
                tv_batch_line(&c->geo, sm.x, sm.y, ss.x, ss.y, 1.0f, with_alpha(col, 0xA0));
            }
            tv_batch_rect(&c->geo, ss.x - arm, ss.y - 1, 2 * arm, 2, col);
            tv_batch_rect(&c->geo, ss.x - 1, ss.y - arm, 2, 2 * arm, col);
        }
    }
}

/* A body's outline: a regular octagon (unit circle points, the first repeated at the end). */
#define BODY_SIDES 8u
static const float k_body_cos[BODY_SIDES + 1] = {1, 0.70710678f, 0, -0.70710678f, -1, -0.70710678f,
                                                 0, 0.70710678f, 1};
static const float k_body_sin[BODY_SIDES + 1] = {0,  0.70710678f,  1, 0.70710678f, 0, -0.70710678f,
                                                 -1, -0.70710678f, 0};

/* Whether agent slot `id` stood on another level before the last step than at (x, y) now. */
static bool changed_level(const th_world *w, const tv_ctx *c, uint32_t id, float x, float y) {
    return th_world_level_at(w, th_v2(c->prev_x[id], c->prev_y[id])).index1 !=
           th_world_level_at(w, th_v2(x, y)).index1;
}

/* Start this frame's agent cover: every block empty. False when there is no room for it (the
 * labels are then placed without it). */
static bool cover_start(tv_ctx *c) {
    c->cover_valid = false;
    const int32_t cols = (c->cam.w + TV_COVER_PX - 1) / TV_COVER_PX,
                  rows = (c->cam.h + TV_COVER_PX - 1) / TV_COVER_PX;
    const size_t n = (size_t)cols * (size_t)rows;
    if (n > c->cover_cap) {
        uint16_t *grown = realloc(c->cover, n * sizeof *grown);
        if (!grown) return false;
        c->cover = grown;
        c->cover_cap = n;
    }
    memset(c->cover, 0, n * sizeof *c->cover);
    c->cover_cols = cols;
    c->cover_rows = rows;
    c->cover_valid = true;
    return true;
}

/* Count an agent drawn at (sx, sy) with `r` pixels of body in every block its square touches. */
/* The blocks of the cover that screen box [x0, x1] x [y0, y1] touches, clipped to the grid:
 * b[0..3] = first column, first row, last column, last row (empty when last < first). */
static void cover_blocks(const tv_ctx *c, float x0, float y0, float x1, float y1, int32_t b[4]) {
    b[0] = (int32_t)floorf(x0 / TV_COVER_PX);
    b[1] = (int32_t)floorf(y0 / TV_COVER_PX);
    b[2] = (int32_t)floorf(x1 / TV_COVER_PX);
    b[3] = (int32_t)floorf(y1 / TV_COVER_PX);
    if (b[0] < 0) b[0] = 0;
    if (b[1] < 0) b[1] = 0;
    if (b[2] >= c->cover_cols) b[2] = c->cover_cols - 1;
    if (b[3] >= c->cover_rows) b[3] = c->cover_rows - 1;
}

static void cover_add(tv_ctx *c, float sx, float sy, float r) {
    int32_t b[4];
    cover_blocks(c, sx - r, sy - r, sx + r, sy + r, b);
    const int32_t x0 = b[0], y0 = b[1], x1 = b[2], y1 = b[3];
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++) {
            uint16_t *k = &c->cover[(size_t)y * (size_t)c->cover_cols + (size_t)x];
            if (*k < UINT16_MAX) (*k)++;
        }
}

uint32_t tv_agents_under(const tv_ctx *c, SDL_FRect r) {
    if (!c->cover_valid || !(r.w > 0) || !(r.h > 0)) return 0;
    int32_t b[4];
    cover_blocks(c, r.x, r.y, r.x + r.w, r.y + r.h, b);
    const int32_t x0 = b[0], y0 = b[1], x1 = b[2], y1 = b[3];
    uint32_t n = 0;
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++)
            n += c->cover[(size_t)y * (size_t)c->cover_cols + (size_t)x];
    return n;
}

static void draw_agents(tv_ctx *c, const th_world *w, double alpha) {
    th_agent_view v = th_world_agents(w);
    const bool cover = cover_start(c);
    /* Everyone in their crowd's colour; leaders and predators get a white ring on top (below). */
    uint32_t crowd_color[TH_MAX_CROWDS];
    bool predator[TH_MAX_CROWDS];
    bool rings = v.flags != NULL;
    float body_px[TH_MAX_CROWDS]; /* body radius on screen, 0 where drawn as an arrow */
    bool bodies = false;
    /* With fire hazards, each agent in view is looked up by id (th_world_agent_fed: an index
     * lookup, no copy of its state): incapacitated ones are drawn dark under a light cross,
     * those with a dose past TV_FED_WARN get a yellow-green ring. */
    const bool hazards = th_world_hazard_count(w) > 0;
    rings |= hazards;
    for (uint32_t cr = 0; cr < TH_MAX_CROWDS; cr++) {
        crowd_color[cr] = scene_crowd_color(w, cr);
        const th_crowd_def *cd = th_world_get_crowd(w, (th_crowd_id){cr + 1});
        body_px[cr] = cd ? (float)(cd->body_radius * c->cam.scale) : 0.0f;
        /* A body a few pixels wide reads as a disc; smaller, the arrow says more. */
        if (body_px[cr] < 3.0f) body_px[cr] = 0.0f;
        bodies |= body_px[cr] > 0.0f;
        predator[cr] = cd && tv_is_predator(w, cr);
        rings |= predator[cr];
    }
    if (v.count == 0) return;
    th_world_def d = th_world_get_def(w);
    bool interp = c->prev_valid && c->prev_step + 1 == th_world_step_count(w) && alpha < 1.0;
    float a = (float)alpha, half_w = d.width * 0.5f, half_h = d.height * 0.5f;
    /* A step longer than a cell may have crossed a stair's glued edge to another level, or
     * stepped out of an elevator there. */
    const bool stairs = th_world_stair_count(w) > 0 || th_world_elevator_count(w) > 0;
    const float seam = c->cell_size > 0.0f ? c->cell_size : 1.0f;
    /* Agents 0.8 m long, but never smaller than 7 px so crowds stay visible zoomed out. */
    float len = (float)(0.8 * c->cam.scale);
    if (len < 7) len = 7;
    if (len > 40) len = 40;
    float wid = len * 0.62f, margin = len;
    float sw = (float)c->cam.w, sh = (float)c->cam.h;
    /* Bodies: a disc of 8 triangles and a heading mark; arrows: one triangle. */
    const uint32_t per = bodies ? 3u * (BODY_SIDES + 1u) : 3u;
    SDL_Vertex *vx = batch_reserve(&c->geo, (int)(v.count > INT32_MAX / 32 ? 0 : v.count * per));
    if (!vx) return;
    int used = 0;
    double scale = c->cam.scale, ox = c->cam.w / 2.0 - c->cam.cx * scale,
           oy = c->cam.h / 2.0 + c->cam.cy * scale;
    const bool lifts = th_world_elevator_count(w) > 0;
    for (uint32_t i = 0; i < v.count; i++) {
        if (lifts && th_world_agent_elevator(w, v.id[i]).index1) continue; /* in a car */
        float x = v.px[i], y = v.py[i];
        const uint32_t id = v.id[i].index1 - 1;
        if (interp && id < c->prev_cap && c->prev_gen[id] == v.id[i].generation) {
            float dx = x - c->prev_x[id], dy = y - c->prev_y[id];
            /* A jump of half the world is a wrap-around, one across a stair's glued edge a
             * change of level: draw it where it is. */
            if (fabsf(dx) < half_w && fabsf(dy) < half_h &&
                !(stairs && fabsf(dx) + fabsf(dy) > seam && changed_level(w, c, id, x, y))) {
                x = c->prev_x[id] + dx * a;
                y = c->prev_y[id] + dy * a;
            }
        }
        float sx = (float)(ox + x * scale), sy = (float)(oy - y * scale);
        if (sx < -margin || sy < -margin || sx > sw + margin || sy > sh + margin) continue;
        /* Its body to scale: its own radius where the host gave it one. */
        float br = body_px[v.crowd[i]];
        if (br > 0.0f && v.own_radius && v.own_radius[v.id[i].index1 - 1] > 0.0f)
            br = (float)(v.own_radius[v.id[i].index1 - 1] * scale);
        if (cover) cover_add(c, sx, sy, br > 0.0f ? br : len * 0.5f);
        float fx = v.vx[i], fy = -v.vy[i], l2 = fx * fx + fy * fy;
        if (l2 > 1e-8f) {
            float inv = 1.0f / sqrtf(l2);
            fx *= inv;
            fy *= inv;
        } else {
            fx = 0;
            fy = -1;
        }
        /* Tip 0.6 len ahead, base 0.4 len behind: the agent's point lies inside, near the
         * centroid, so a pixel sampled at an agent's position shows its crowd's colour. */
        float tipx = sx + fx * len * 0.6f, tipy = sy + fy * len * 0.6f;
        float bx = sx - fx * len * 0.4f, by = sy - fy * len * 0.4f;
        float nx = -fy * wid * 0.5f, ny = fx * wid * 0.5f;
        SDL_Color col = color_of(crowd_color[v.crowd[i]]);
        double down_at = -1.0;
        if (hazards && th_world_agent_fed(w, v.id[i], NULL, &down_at) && down_at >= 0.0)
            col = color_of(TV_DOWN_COLOR);
        SDL_Vertex *t = vx + used;
        if (br > 0.0f) {
            /* The body to scale, and a darker wedge at its front (clear of the centre, which
             * shows the crowd's colour). */
            for (uint32_t k = 0; k < BODY_SIDES; k++) {
                t[3 * k] = (SDL_Vertex){{sx, sy}, col, {0, 0}};
                t[3 * k + 1] =
                    (SDL_Vertex){{sx + br * k_body_cos[k], sy + br * k_body_sin[k]}, col, {0, 0}};
                t[3 * k + 2] = (SDL_Vertex){
                    {sx + br * k_body_cos[k + 1], sy + br * k_body_sin[k + 1]}, col, {0, 0}};
            }
            SDL_Color dark = {(uint8_t)(col.r / 2), (uint8_t)(col.g / 2), (uint8_t)(col.b / 2),
                              col.a};
            t += 3 * BODY_SIDES;
            t[0] = (SDL_Vertex){{sx + fx * br, sy + fy * br}, dark, {0, 0}};
            const float cx = sx + fx * br * 0.25f, cy = sy + fy * br * 0.25f;
            t[1] = (SDL_Vertex){{cx - fy * br * 0.4f, cy + fx * br * 0.4f}, dark, {0, 0}};
            t[2] = (SDL_Vertex){{cx + fy * br * 0.4f, cy - fx * br * 0.4f}, dark, {0, 0}};
            used += (int)(3 * (BODY_SIDES + 1));
            continue;
        }
        t[0] = (SDL_Vertex){{tipx, tipy}, col, {0, 0}};
        t[1] = (SDL_Vertex){{bx + nx, by + ny}, col, {0, 0}};
        t[2] = (SDL_Vertex){{bx - nx, by - ny}, col, {0, 0}};
        used += 3;
    }
    c->geo.n -= (int)(v.count * per) - used;
    if (!rings) return;
    /* Leaders: a white ring around the agent; predators: a thicker, wider one. The agent inside
     * keeps its crowd's colour (a white fill made a lone red hawk a white speck). Stalled agents
     * (no progress toward their goal): a red ring, wider than a leader's, so a gridlock shows. */
    for (uint32_t i = 0; i < v.count; i++) {
        bool lead = v.flags && (v.flags[i] & TH_AGENT_LEADER), pred = predator[v.crowd[i]];
        bool stalled = v.flags && (v.flags[i] & TH_AGENT_STALLED);
        if (!lead && !pred && !stalled && !hazards) continue;
        if (lifts && th_world_agent_elevator(w, v.id[i]).index1) continue;
        float x = v.px[i], y = v.py[i];
        const uint32_t id = v.id[i].index1 - 1;
        if (interp && id < c->prev_cap && c->prev_gen[id] == v.id[i].generation) {
            float dx = x - c->prev_x[id], dy = y - c->prev_y[id];
            if (fabsf(dx) < half_w && fabsf(dy) < half_h &&
                !(stairs && fabsf(dx) + fabsf(dy) > seam && changed_level(w, c, id, x, y))) {
                x = c->prev_x[id] + dx * a;
                y = c->prev_y[id] + dy * a;
            }
        }
        float sx = (float)(ox + x * scale), sy = (float)(oy - y * scale);
        if (sx < -margin || sy < -margin || sx > sw + margin || sy > sh + margin) continue;
        double fed = 0.0, down_at = -1.0;
        if (hazards) th_world_agent_fed(w, v.id[i], &fed, &down_at);
        const bool down = down_at >= 0.0, warn = !down && fed >= TV_FED_WARN;
        if (!lead && !pred && !stalled && !down && !warn) continue;
        float br = body_px[v.crowd[i]], r = br > 0 ? br + 2.0f : len * 0.75f;
        float t = pred ? 2.5f : 1.5f;
        if (pred) r += 3.0f;
        if (lead || pred) tv_ring(&c->geo, sx, sy, r, t, 0xFFFFFFFFu);
        if (warn) tv_ring(&c->geo, sx, sy, r + 1.0f, 2.0f, TV_FED_COLOR);
        if (down) tv_down_mark(&c->geo, sx, sy, br > 0 ? br : len * 0.4f);
        if (stalled) tv_ring(&c->geo, sx, sy, r + 3.0f, 2.5f, COL_STALLED);
    }
}

void tv_down_mark(tv_batch *b, float x, float y, float r) {
    /* A light cross outlined in dark, reaching past the body: it reads over dense smoke and
     * over the dark floor alike. */
    const float arm = r * 1.1f + 1.0f, th = r > 6.0f ? r * 0.3f : 1.5f;
    tv_batch_line(b, x - arm, y - arm, x + arm, y + arm, th + 2.0f, TV_DOWN_CROSS);
    tv_batch_line(b, x - arm, y + arm, x + arm, y - arm, th + 2.0f, TV_DOWN_CROSS);
    tv_batch_line(b, x - arm + 0.7f, y - arm + 0.7f, x + arm - 0.7f, y + arm - 0.7f, th,
                  TV_DOWN_LIGHT);
    tv_batch_line(b, x - arm + 0.7f, y + arm - 0.7f, x + arm - 0.7f, y - arm + 0.7f, th,
                  TV_DOWN_LIGHT);
}

void tv_disc(tv_batch *b, float x, float y, float r, uint32_t argb) {
    for (uint32_t k = 0; k < BODY_SIDES; k++)
        tv_batch_tri(b, x, y, x + r * k_body_cos[k], y + r * k_body_sin[k],
                     x + r * k_body_cos[k + 1], y + r * k_body_sin[k + 1], argb);
}

void tv_ring(tv_batch *b, float x, float y, float r, float t, uint32_t argb) {
    for (uint32_t k = 0; k < BODY_SIDES; k++)
        tv_batch_line(b, x + r * k_body_cos[k], y + r * k_body_sin[k], x + r * k_body_cos[k + 1],
                      y + r * k_body_sin[k + 1], t, argb);
}

void tv_draw_frame(tv_ctx *c, const th_world *w, double alpha, const tv_rates *rates) {
    SDL_Renderer *r = c->r;
    SDL_SetRenderDrawColor(r, (COL_BACKGROUND >> 16) & 0xFF, (COL_BACKGROUND >> 8) & 0xFF,
                           COL_BACKGROUND & 0xFF, 0xFF);
    SDL_RenderClear(r);
    tv_layout_frame(c, w);
    if (c->map_dirty) {
        build_map(c, w);
        c->walldist_dirty = true;
    }
    th_world_def d = th_world_get_def(w);
    if (c->map_cols > 0 && c->map_tex) {
        draw_world_texture(c, c->map_tex, (float)c->map_cols * c->cell_size,
                           (float)c->map_rows * c->cell_size);
    } else {
        th_vec2 tl = tv_to_screen(&c->cam, 0, d.height), br = tv_to_screen(&c->cam, d.width, 0);
        tv_batch_rect(&c->geo, tl.x, tl.y, br.x - tl.x, br.y - tl.y, COL_FLOOR);
        tv_batch_flush(r, &c->geo, NULL);
    }
    if ((c->overlays & TH_VIEW_OVERLAY_WALLDIST) && c->map_cols > 0) {
        if (c->walldist_dirty) build_walldist(c, w);
        if (c->walldist_tex)
            draw_world_texture(c, c->walldist_tex, (float)c->map_cols * c->cell_size,
                               (float)c->map_rows * c->cell_size);
    }
    draw_air(c, w);
    if (c->overlays & TH_VIEW_OVERLAY_DENSITY) draw_density(c, w);
    if (c->overlays & TH_VIEW_OVERLAY_PHEROMONE) tv_draw_pheromone(c, w);
    if (c->overlays & TH_VIEW_OVERLAY_GRID) draw_grid(c, w);
    if (c->overlays & TH_VIEW_OVERLAY_FLOW) {
        draw_flow(c, w);
        draw_routes(c, w);
    }
    tv_draw_stairs(c, w);
    tv_draw_elevators(c, w);
    draw_bunkers(c, w);
    draw_flow_areas(c, w);
    tv_draw_colonies(c, w);
    c->cover_valid = false;
    if (c->overlays & TH_VIEW_OVERLAY_AGENTS) draw_agents(c, w, alpha);
    if (c->overlays & TH_VIEW_OVERLAY_SQUADS) draw_squads(c, w);
    tv_batch_flush(r, &c->geo, NULL);
    tv_mask_levels(c, w);
    tv_draw_level_labels(c, w);
    draw_bunker_labels(c, w);
    tv_batch_flush(r, &c->geo, NULL);
    tv_batch_flush(r, &c->text, c->font);
    tv_draw_hud(c, w, rates);
}

uint32_t tv_bunker_color(uint32_t b) { return bunker_palette[b % 8]; }
uint32_t tv_full_color(void) { return COL_FULL; }
uint32_t tv_destroyed_color(void) { return COL_DESTROYED; }
uint32_t tv_slow_color(void) { return COL_SLOW; }
uint32_t tv_scene_crowd_color(const th_world *w, uint32_t crowd) {
    return scene_crowd_color(w, crowd);
}

bool tv_is_predator(const th_world *w, uint32_t crowd) {
    const th_crowd_def *me = th_world_get_crowd(w, (th_crowd_id){crowd + 1});
    if (!me || me->type >= TH_MAX_TYPES) return false;
    for (uint32_t k = 0; k < TH_MAX_CROWDS; k++) {
        const th_crowd_def *o = th_world_get_crowd(w, (th_crowd_id){k + 1});
        if (!o) break;
        if ((o->flee_types >> me->type) & 1u) return true;
    }
    return false;
}
