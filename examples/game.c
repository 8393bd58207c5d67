/* A game loop to copy: SDL2 draws, the player walks a hero with the arrow keys (or WASD), the
 * town's folk flee from the hero when it comes near and otherwise make for the two shelters,
 * and a click on a shelter destroys it or restores it. throng keeps every body apart and off
 * the walls; the program only says where the hero wants to go and who is startled.
 *
 *   cc game.c $(pkg-config --cflags --libs throng sdl2) -o game && ./game
 *   ./game --frames 300      a scripted hero (it walks a loop) for 300 frames, then the hash
 *   ./game --threads 4       throng's worker threads (default 2)
 *   ./game --frames 300 --shot last.bmp   and the last frame as a picture
 *
 * With --frames the frames are fixed at 1/60 s whatever the wall clock does, so the run (and its
 * hash) is the same every time and on any number of threads; with SDL_VIDEODRIVER=dummy it
 * needs no display. Without it, the frame loop runs on the wall clock until the window is
 * closed or Escape is pressed. */
#include <SDL.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <throng/clock.h>
#include <throng/throng.h>

#define WORLD_W   64
#define WORLD_H   40
#define PX        16   /* pixels per metre */
#define STARTLE_M 5.0f /* folk within this distance of the hero run from it */
#define RUN_SPEED 1.8f /* m/s, away from the hero */
#define MAX_FOLK  400

typedef struct game {
    th_world *w;
    th_crowd_id folk, hero_crowd;
    th_agent_id hero;
    th_bunker_id shelter[2];
    th_agent_id startled[MAX_FOLK]; /* folk the program steers this frame */
    uint32_t startled_count;
} game;

static bool fail(const char *what, const th_error *err) {
    fprintf(stderr, "game: %s: %s: %s\n", what, th_error_code_name(err->code), err->message);
    return false;
}

/* The town: a walled square with houses (walls), two shelters, 300 folk and the hero. */
static bool build(game *g, uint32_t threads) {
    th_error err;
    th_world_def wd = th_default_world_def();
    wd.width = WORLD_W;
    wd.height = WORLD_H;
    wd.cell_size = 1.0f;
    wd.threads = threads;
    g->w = th_world_create(&wd, &err);
    if (!g->w) return fail("world", &err);
    static const int houses[][4] = {{10, 8, 16, 14},  {24, 24, 32, 30}, {40, 8, 46, 16},
                                    {44, 26, 52, 32}, {18, 30, 22, 36}, {30, 4, 34, 10}};
    for (size_t h = 0; h < sizeof houses / sizeof houses[0]; h++)
        for (int y = houses[h][1]; y <= houses[h][3]; y++)
            for (int x = houses[h][0]; x <= houses[h][2]; x++)
                if (!th_world_set_cell(g->w, x, y, TH_CELL_WALL, 1, &err))
                    return fail("walls", &err);
    const th_bunker_def sw = {.name = "west shelter", .x0 = 1, .y0 = 17, .x1 = 3, .y1 = 22};
    const th_bunker_def ne = {.name = "east shelter", .x0 = 60, .y0 = 34, .x1 = 62, .y1 = 38};
    g->shelter[0] = th_world_add_bunker(g->w, &sw, &err);
    if (!th_bunker_id_valid(g->shelter[0])) return fail("shelter", &err);
    g->shelter[1] = th_world_add_bunker(g->w, &ne, &err);
    if (!th_bunker_id_valid(g->shelter[1])) return fail("shelter", &err);

    th_crowd_def folk = th_default_pedestrian_def();
    folk.name = "folk";
    folk.behavior = TH_BEHAVIOR_FLEE; /* to the nearest standing shelter */
    folk.pre_movement = (th_distribution){.kind = TH_DISTRIB_UNIFORM, .a = 2, .b = 6}; /* notice */
    g->folk = th_world_add_crowd(g->w, &folk, &err);
    if (!th_crowd_id_valid(g->folk)) return fail("crowd", &err);
    th_crowd_def hero = th_default_pedestrian_def();
    hero.name = "hero";
    hero.max_speed = 3.0f;
    g->hero_crowd = th_world_add_crowd(g->w, &hero, &err);
    if (!th_crowd_id_valid(g->hero_crowd)) return fail("crowd", &err);

    uint32_t added = 0;
    for (int y = 2; y < WORLD_H - 2 && added < 300; y += 2) {
        for (int x = 6; x < WORLD_W - 6 && added < 300; x += 3) {
            th_vec2 p = th_v2((float)x + 0.5f + 0.3f * (float)(y % 4), (float)y + 0.5f);
            if (th_world_cell(g->w, (int32_t)p.x, (int32_t)p.y, NULL) != TH_CELL_OPEN) continue;
            if (th_agent_id_valid(th_world_add_agent(g->w, g->folk, p, th_v2(0, 0), NULL))) added++;
        }
    }
    g->hero = th_world_add_agent(g->w, g->hero_crowd, th_v2(36, 20), th_v2(0, 0), &err);
    if (!th_agent_id_valid(g->hero)) return fail("hero", &err);
    return true;
}

/* Between steps: the hero wants to walk `want` (m/s); folk within STARTLE_M of it run straight
 * away from it, and those who were startled and are clear again go back to their shelter. */
static void steer(game *g, th_vec2 want) {
    th_world_set_agent_preferred_velocity(g->w, g->hero, want, NULL);
    th_agent_state hero;
    if (!th_world_get_agent(g->w, g->hero, &hero)) return;
    th_agent_id near[MAX_FOLK];
    uint32_t count = 0;
    th_world_agent_neighbors(g->w, g->hero, STARTLE_M, near, MAX_FOLK, &count, NULL);
    if (count > MAX_FOLK) count = MAX_FOLK;
    /* Clear the ones steered last frame that are no longer near. */
    for (uint32_t i = 0; i < g->startled_count; i++) {
        bool still = false;
        for (uint32_t j = 0; j < count && !still; j++)
            still = near[j].index1 == g->startled[i].index1 &&
                    near[j].generation == g->startled[i].generation;
        if (!still) th_world_clear_agent_preferred_velocity(g->w, g->startled[i], NULL);
    }
    g->startled_count = 0;
    for (uint32_t j = 0; j < count; j++) {
        th_agent_state a;
        if (!th_world_get_agent(g->w, near[j], &a) || a.crowd.index1 != g->folk.index1) continue;
        th_vec2 away = th_v2(a.position.x - hero.position.x, a.position.y - hero.position.y);
        float d = sqrtf(away.x * away.x + away.y * away.y);
        if (d < 1e-3f) continue;
        th_vec2 v = th_v2(away.x / d * RUN_SPEED, away.y / d * RUN_SPEED);
        if (th_world_set_agent_preferred_velocity(g->w, near[j], v, NULL))
            g->startled[g->startled_count++] = near[j];
    }
}

/* A click at world point p on a shelter destroys it, or restores a destroyed one. */
static void click(game *g, th_vec2 p) {
    for (int b = 0; b < 2; b++) {
        th_bunker_info bi;
        if (!th_world_get_bunker(g->w, g->shelter[b], &bi)) continue;
        if (p.x < (float)bi.x0 - 1 || p.x > (float)bi.x1 + 2 || p.y < (float)bi.y0 - 1 ||
            p.y > (float)bi.y1 + 2)
            continue;
        if (bi.destroyed) th_world_restore_bunker(g->w, g->shelter[b], NULL);
        else th_world_destroy_bunker(g->w, g->shelter[b], NULL);
    }
}

static void draw(SDL_Renderer *r, const game *g) {
    SDL_SetRenderDrawColor(r, 24, 28, 36, 255);
    SDL_RenderClear(r);
    SDL_SetRenderDrawColor(r, 90, 98, 116, 255);
    for (int y = 0; y < WORLD_H; y++)
        for (int x = 0; x < WORLD_W; x++)
            if (th_world_cell(g->w, x, y, NULL) != TH_CELL_OPEN) {
                SDL_Rect c = {x * PX, (WORLD_H - 1 - y) * PX, PX, PX};
                SDL_RenderFillRect(r, &c);
            }
    for (int b = 0; b < 2; b++) {
        th_bunker_info bi;
        if (!th_world_get_bunker(g->w, g->shelter[b], &bi)) continue;
        if (bi.destroyed) SDL_SetRenderDrawColor(r, 200, 60, 60, 255);
        else SDL_SetRenderDrawColor(r, 70, 200, 120, 255);
        SDL_Rect c = {bi.x0 * PX, (WORLD_H - 1 - bi.y1) * PX, (bi.x1 - bi.x0 + 1) * PX,
                      (bi.y1 - bi.y0 + 1) * PX};
        SDL_RenderFillRect(r, &c);
    }
    th_agent_view v = th_world_agents(g->w);
    for (uint32_t i = 0; i < v.count; i++) {
        const bool hero = v.crowd[i] + 1u == g->hero_crowd.index1;
        if (hero) SDL_SetRenderDrawColor(r, 255, 210, 60, 255);
        else SDL_SetRenderDrawColor(r, 110, 190, 255, 255);
        const int s = hero ? 12 : 6;
        SDL_Rect a = {(int)(v.px[i] * PX) - s / 2, (int)((WORLD_H - v.py[i]) * PX) - s / 2, s, s};
        SDL_RenderFillRect(r, &a);
    }
}

/* The frame drawn, as a BMP file (for --shot). */
static bool save_frame(SDL_Renderer *r, const char *path) {
    SDL_Surface *s =
        SDL_CreateRGBSurfaceWithFormat(0, WORLD_W * PX, WORLD_H * PX, 32, SDL_PIXELFORMAT_ARGB8888);
    bool ok = s &&
              SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels, s->pitch) == 0 &&
              SDL_SaveBMP(s, path) == 0;
    if (!ok) fprintf(stderr, "game: --shot %s: %s\n", path, SDL_GetError());
    SDL_FreeSurface(s);
    return ok;
}

/* The scripted hero of --frames: a loop through the middle of the town, 2.5 m/s. */
static th_vec2 scripted(uint64_t frame) {
    const float t = (float)frame / 60.0f;
    return th_v2(2.5f * cosf(0.35f * t), 2.5f * sinf(0.35f * t));
}

int main(int argc, char **argv) {
    long frames = -1, threads = 2; /* frames -1: play until closed */
    const char *shot = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shot") == 0 && i + 1 < argc) {
            shot = argv[++i];
            continue;
        }
        const bool f = strcmp(argv[i], "--frames") == 0, t = strcmp(argv[i], "--threads") == 0;
        if ((f || t) && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > (f ? 100000000 : 64)) {
                fprintf(stderr, "game: %s: expected a count from 1 to %d, got '%s'\n", argv[i - 1],
                        f ? 100000000 : 64, argv[i]);
                return 2;
            }
            if (f) frames = v;
            else threads = v;
        } else {
            fprintf(stderr, "usage: game [--frames N] [--threads T] [--shot FILE.bmp]\n");
            return 2;
        }
    }
    game g = {0};
    if (!build(&g, (uint32_t)threads)) {
        th_world_destroy(g.w);
        return 1;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "game: SDL: %s\n", SDL_GetError());
        th_world_destroy(g.w);
        return 1;
    }
    SDL_Window *win = SDL_CreateWindow("throng: the hero and the town", SDL_WINDOWPOS_CENTERED,
                                       SDL_WINDOWPOS_CENTERED, WORLD_W * PX, WORLD_H * PX, 0);
    SDL_Renderer *r = win ? SDL_CreateRenderer(win, -1, SDL_RENDERER_SOFTWARE) : NULL;
    if (!r) {
        fprintf(stderr, "game: SDL: %s\n", SDL_GetError());
        if (win) SDL_DestroyWindow(win);
        SDL_Quit();
        th_world_destroy(g.w);
        return 1;
    }
    th_clock clock = th_clock_make(th_world_get_def(g.w).timestep, 4);
    uint64_t last = SDL_GetTicks64();
    bool running = true;
    for (uint64_t frame = 0; running && (frames < 0 || frame < (uint64_t)frames); frame++) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            if (e.type == SDL_QUIT) running = false;
            if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE) running = false;
            if (e.type == SDL_MOUSEBUTTONDOWN)
                click(&g, th_v2((float)e.button.x / PX, WORLD_H - (float)e.button.y / PX));
        }
        th_vec2 want = th_v2(0, 0);
        if (frames >= 0) {
            want = scripted(frame);
        } else {
            const Uint8 *k = SDL_GetKeyboardState(NULL);
            want.x = 2.5f * (float)((k[SDL_SCANCODE_RIGHT] || k[SDL_SCANCODE_D]) -
                                    (k[SDL_SCANCODE_LEFT] || k[SDL_SCANCODE_A]));
            want.y = 2.5f * (float)((k[SDL_SCANCODE_UP] || k[SDL_SCANCODE_W]) -
                                    (k[SDL_SCANCODE_DOWN] || k[SDL_SCANCODE_S]));
        }
        /* A fixed 1/60 s a frame when scripted (the same run every time), else the wall clock. */
        const uint64_t now = SDL_GetTicks64();
        const double elapsed = frames >= 0 ? 1.0 / 60.0 : (double)(now - last) * 1e-3;
        last = now;
        for (int n = th_clock_advance(&clock, elapsed); n > 0; n--) {
            steer(&g, want);
            th_world_step(g.w);
        }
        if (frames >= 0 && frame == (uint64_t)frames / 2) click(&g, th_v2(2, 20)); /* west */
        draw(r, &g);
        if (shot && frames >= 0 && frame + 1 == (uint64_t)frames && !save_frame(r, shot))
            running = false;
        SDL_RenderPresent(r);
    }
    th_agent_state hero;
    th_world_get_agent(g.w, g.hero, &hero);
    th_world_stats st = th_world_get_stats(g.w);
    printf("steps %llu, hero at %.2f %.2f, %u sheltered, %u in the town\n",
           (unsigned long long)st.step, (double)hero.position.x, (double)hero.position.y,
           st.sheltered, st.agents - 1);
    for (int b = 0; b < 2; b++) {
        th_bunker_info bi;
        if (th_world_get_bunker(g.w, g.shelter[b], &bi))
            printf("%s: %s, %u inside\n", bi.name, bi.destroyed ? "destroyed" : "open",
                   bi.sheltered);
    }
    printf("hash 0x%016llx\n", (unsigned long long)th_world_hash(g.w));
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(win);
    SDL_Quit();
    th_world_destroy(g.w);
    return 0;
}
