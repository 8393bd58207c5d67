/* Foraging colonies in the view: each colony's nest and food sources (always), and with
 * TH_VIEW_OVERLAY_PHEROMONE its pheromone grid as a heat map, one texel per cell.
 *
 * The colour scale is logarithmic in deposits (the pheromone one ant lays on a cell): a trail
 * walked once and a trail walked by fifty ants must both show, and a linear scale either hides
 * the first or saturates the second. */
#include <math.h>
#include <stdlib.h>

#include "view_internal.h"

static uint32_t mix_argb(uint32_t a, uint32_t b, float t) {
    uint32_t out = 0;
    for (int s = 0; s < 32; s += 8) {
        float x = (float)((a >> s) & 0xFF), y = (float)((b >> s) & 0xFF);
        out |= (uint32_t)lrintf(x + (y - x) * t) << s;
    }
    return out;
}

uint32_t tv_pheromone_color(float deposits) {
    /* Clear below a hundredth of a deposit (the default sensitivity); deep violet through
     * magenta to pale pink at TV_PHEROMONE_MAX deposits and beyond. Rejected: greens, which
     * read as the slow ground's shade and as food. */
    if (!(deposits >= 0.01f)) return 0;
    float t = log1pf(deposits) / log1pf(TV_PHEROMONE_MAX);
    if (t > 1.0f) t = 1.0f;
    uint32_t rgb = t < 0.5f ? mix_argb(0xFF5B2C9Au, 0xFFD448C0u, t / 0.5f)
                            : mix_argb(0xFFD448C0u, 0xFFFFD6F2u, (t - 0.5f) / 0.5f);
    uint32_t alpha = (uint32_t)(70.0f + 170.0f * t);
    return (rgb & 0x00FFFFFFu) | alpha << 24;
}

static bool upload_grid(tv_ctx *c, int32_t cols, int32_t rows, const uint32_t *px) {
    int tw = 0, th = 0;
    if (c->pher_tex &&
        (SDL_QueryTexture(c->pher_tex, NULL, NULL, &tw, &th) != 0 || tw != cols || th != rows)) {
        SDL_DestroyTexture(c->pher_tex);
        c->pher_tex = NULL;
    }
    if (!c->pher_tex) {
        c->pher_tex =
            SDL_CreateTexture(c->r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STATIC, cols, rows);
        if (!c->pher_tex) return false;
        SDL_SetTextureScaleMode(c->pher_tex, SDL_ScaleModeNearest);
        SDL_SetTextureBlendMode(c->pher_tex, SDL_BLENDMODE_BLEND);
    }
    return SDL_UpdateTexture(c->pher_tex, NULL, px, cols * 4) == 0;
}

void tv_draw_pheromone(tv_ctx *c, const th_world *w) {
    const uint32_t crowds = th_world_crowd_count(w);
    for (uint32_t k = 0; k < crowds; k++) {
        int32_t cols = 0, rows = 0;
        float cs = 0.0f;
        const th_crowd_id crowd = {k + 1};
        const float *ph = th_world_pheromone(w, crowd, &cols, &rows, &cs);
        const th_crowd_def *cd = th_world_get_crowd(w, crowd);
        if (!ph || !cd || !cd->goal.forage || cols <= 0 || rows <= 0) continue;
        const float inv = 1.0f / cd->goal.forage->deposit;
        size_t n = (size_t)cols * (size_t)rows;
        if (n > c->pher_cap) {
            uint32_t *p = realloc(c->pher_px, n * sizeof *p);
            if (!p) return;
            c->pher_px = p;
            c->pher_cap = n;
        }
        for (int32_t y = 0; y < rows; y++) {
            uint32_t *row = c->pher_px + (size_t)(rows - 1 - y) * (size_t)cols; /* north up */
            const float *src = ph + (size_t)y * (size_t)cols;
            for (int32_t x = 0; x < cols; x++) row[x] = tv_pheromone_color(src[x] * inv);
        }
        /* Drawn at once: the next colony reuses the texture. */
        if (upload_grid(c, cols, rows, c->pher_px)) {
            th_vec2 tl = tv_to_screen(&c->cam, 0, (double)rows * cs);
            th_vec2 br = tv_to_screen(&c->cam, (double)cols * cs, 0);
            SDL_FRect dst = {tl.x, tl.y, br.x - tl.x, br.y - tl.y};
            SDL_RenderCopyF(c->r, c->pher_tex, NULL, &dst);
        }
    }
}

void tv_draw_colonies(tv_ctx *c, const th_world *w) {
    const uint32_t crowds = th_world_crowd_count(w);
    const float px = (float)c->cam.scale;
    for (uint32_t k = 0; k < crowds; k++) {
        th_forage_info fi;
        if (!th_world_get_forage(w, (th_crowd_id){k + 1}, &fi)) continue;
        /* Food: a disc filled as far as it holds food, in a ring that stays when it is empty. */
        for (uint32_t s = 0; s < fi.sources; s++) {
            th_food_info f;
            if (!th_world_get_food_source(w, (th_crowd_id){k + 1}, s, &f)) continue;
            th_vec2 q = tv_to_screen(&c->cam, f.at.x, f.at.y);
            float r = f.radius * px;
            if (r < 3.0f) r = 3.0f;
            float left = f.amount ? (float)f.remaining / (float)f.amount : 0.0f;
            if (left > 0.0f) tv_disc(&c->geo, q.x, q.y, r * sqrtf(left), TV_FOOD_COLOR);
            tv_ring(&c->geo, q.x, q.y, r, 2.0f, TV_FOOD_COLOR);
        }
        /* The nest: a double ring in the crowd's colour. */
        th_vec2 q = tv_to_screen(&c->cam, fi.nest.x, fi.nest.y);
        float r = fi.nest_radius * px;
        if (r < 4.0f) r = 4.0f;
        const uint32_t col = tv_scene_crowd_color(w, k);
        tv_ring(&c->geo, q.x, q.y, r, 2.5f, col);
        tv_ring(&c->geo, q.x, q.y, r * 0.6f, 1.5f, col);
    }
}

void tv_pheromone_free(tv_ctx *c) {
    if (c->pher_tex) SDL_DestroyTexture(c->pher_tex);
    c->pher_tex = NULL;
    free(c->pher_px);
    c->pher_px = NULL;
    c->pher_cap = 0;
}
