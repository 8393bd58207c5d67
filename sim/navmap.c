/* Terrain map, move masks and the wall-distance field. */
#include "nav.h"

#include <math.h>
#include <string.h>

#include "../engine/alloc.h"

const int8_t th_nav_move_dx[8] = {1, 0, -1, 0, 1, -1, -1, 1};
const int8_t th_nav_move_dy[8] = {0, 1, 0, -1, 1, 1, -1, -1};

static bool open_at(const th_navmap *m, int32_t x, int32_t y) {
    return x >= 0 && y >= 0 && x < m->w && y < m->h &&
           m->cost[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] != 0;
}

/* Allowed moves out of (x, y). A per-cell mask, rather than testing neighbours in the search
 * loops, keeps border checks and the no-squeeze rule in one place and makes the Dijkstra inner
 * loop a walk over set bits. */
static uint8_t moves_of(const th_navmap *m, int32_t x, int32_t y) {
    if (!open_at(m, x, y)) return 0;
    uint8_t mask = 0;
    for (int k = 0; k < 4; k++) {
        if (open_at(m, x + th_nav_move_dx[k], y + th_nav_move_dy[k])) mask |= (uint8_t)(1u << k);
    }
    for (int k = 4; k < 8; k++) {
        int32_t dx = th_nav_move_dx[k], dy = th_nav_move_dy[k];
        if (open_at(m, x + dx, y + dy) && open_at(m, x + dx, y) && open_at(m, x, y + dy)) {
            mask |= (uint8_t)(1u << k);
        }
    }
    return mask;
}

static void refresh_moves_around(th_navmap *m, int32_t x, int32_t y) {
    for (int32_t yy = y - 1; yy <= y + 1; yy++) {
        for (int32_t xx = x - 1; xx <= x + 1; xx++) {
            if (xx < 0 || yy < 0 || xx >= m->w || yy >= m->h) continue;
            m->moves[(uint32_t)yy * (uint32_t)m->w + (uint32_t)xx] = moves_of(m, xx, yy);
        }
    }
}

int th_navmap_init(th_navmap *m, int32_t w, int32_t h, float cell_size) {
    if (!m) return TH_NAV_EINVAL;
    memset(m, 0, sizeof *m);
    if (w < 1 || h < 1 || w > TH_NAV_MAX_DIM || h > TH_NAV_MAX_DIM) return TH_NAV_ERANGE;
    if (!(cell_size >= TH_NAV_MIN_CELL_SIZE && cell_size <= TH_NAV_MAX_CELL_SIZE)) {
        return TH_NAV_ERANGE;
    }
    uint32_t n = (uint32_t)w * (uint32_t)h;
    m->cost = th_alloc(sizeof *m->cost * n);
    m->flags = th_calloc(n, sizeof *m->flags);
    m->moves = th_alloc(sizeof *m->moves * n);
    m->wall_dist = th_alloc(sizeof *m->wall_dist * n);
    if (!m->cost || !m->flags || !m->moves || !m->wall_dist) {
        th_navmap_free(m);
        return TH_NAV_ENOMEM;
    }
    m->w = w;
    m->h = h;
    m->ncells = n;
    m->cell_size = cell_size;
    m->inv_cell_size = 1.0f / cell_size;
    for (uint32_t i = 0; i < n; i++)
        m->cost[i] = 1;
    m->cost_count[1] = n;
    for (int32_t y = 0; y < h; y++) {
        for (int32_t x = 0; x < w; x++)
            m->moves[(uint32_t)y * (uint32_t)w + (uint32_t)x] = moves_of(m, x, y);
    }
    m->walls_dirty = true;
    th_navmap_update_walls(m, NULL);
    return TH_NAV_OK;
}

void th_navmap_free(th_navmap *m) {
    if (!m) return;
    th_free(m->cost);
    th_free(m->flags);
    th_free(m->moves);
    th_free(m->wall_dist);
    memset(m, 0, sizeof *m);
}

static bool in_map(const th_navmap *m, int32_t x, int32_t y) {
    return m && m->cost && x >= 0 && y >= 0 && x < m->w && y < m->h;
}

static void put_cell(th_navmap *m, int32_t x, int32_t y, uint16_t cost, uint8_t flags) {
    uint32_t i = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
    uint16_t old = m->cost[i];
    m->flags[i] = flags;
    if (old == cost) return;
    m->cost_count[old]--;
    m->cost_count[cost]++;
    m->cost[i] = cost;
    refresh_moves_around(m, x, y);
    if ((old == 0) != (cost == 0)) m->walls_dirty = true;
}

int th_navmap_set_cost(th_navmap *m, int32_t x, int32_t y, uint32_t cost) {
    if (!m || !m->cost) return TH_NAV_EINVAL;
    if (!in_map(m, x, y) || cost < TH_NAV_COST_MIN || cost > TH_NAV_COST_MAX) return TH_NAV_ERANGE;
    put_cell(m, x, y, (uint16_t)cost, 0);
    return TH_NAV_OK;
}

int th_navmap_set_blocked(th_navmap *m, int32_t x, int32_t y, bool destructible) {
    if (!m || !m->cost) return TH_NAV_EINVAL;
    if (!in_map(m, x, y)) return TH_NAV_ERANGE;
    put_cell(m, x, y, 0, destructible ? TH_NAV_FLAG_DESTRUCTIBLE : 0);
    return TH_NAV_OK;
}

int th_navmap_break_wall(th_navmap *m, int32_t x, int32_t y) {
    if (!m || !m->cost) return TH_NAV_EINVAL;
    if (!in_map(m, x, y)) return TH_NAV_ERANGE;
    uint32_t i = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
    if (m->cost[i] != 0 || !(m->flags[i] & TH_NAV_FLAG_DESTRUCTIBLE)) return TH_NAV_EDENIED;
    put_cell(m, x, y, 1, 0);
    return TH_NAV_OK;
}

uint32_t th_navmap_cost(const th_navmap *m, int32_t x, int32_t y) {
    if (!in_map(m, x, y)) return 0;
    return m->cost[(uint32_t)y * (uint32_t)m->w + (uint32_t)x];
}

bool th_navmap_is_blocked(const th_navmap *m, int32_t x, int32_t y) {
    return th_navmap_cost(m, x, y) == 0;
}

/* Float cell coordinate to a clamped integer. The comparisons come first: converting NaN or a
 * value beyond int32 to an integer is undefined behaviour. */
static int32_t clamp_coord(float f, int32_t n) {
    if (!(f >= 1.0f)) return 0;
    if (f >= (float)n) return n - 1;
    return (int32_t)f;
}

uint32_t th_navmap_cell_of(const th_navmap *m, th_vec2 p, int32_t *x, int32_t *y) {
    int32_t cx = 0, cy = 0;
    if (m && m->cost) {
        cx = clamp_coord(p.x * m->inv_cell_size, m->w);
        cy = clamp_coord(p.y * m->inv_cell_size, m->h);
    }
    if (x) *x = cx;
    if (y) *y = cy;
    return m && m->cost ? (uint32_t)cy * (uint32_t)m->w + (uint32_t)cx : 0;
}

bool th_navmap_blocked_at(const th_navmap *m, th_vec2 p) {
    if (!m || !m->cost) return true;
    float fx = p.x * m->inv_cell_size, fy = p.y * m->inv_cell_size;
    if (!(fx >= 0.0f && fy >= 0.0f && fx < (float)m->w && fy < (float)m->h)) return true;
    int32_t x = clamp_coord(fx, m->w), y = clamp_coord(fy, m->h);
    return m->cost[(uint32_t)y * (uint32_t)m->w + (uint32_t)x] == 0;
}

th_vec2 th_navmap_cell_centre(const th_navmap *m, int32_t x, int32_t y) {
    if (!m) return th_v2(0.0f, 0.0f);
    return th_v2(((float)x + 0.5f) * m->cell_size, ((float)y + 0.5f) * m->cell_size);
}

uint32_t th_navmap_min_cost(const th_navmap *m) {
    if (!m) return 1;
    for (uint32_t c = TH_NAV_COST_MIN; c <= TH_NAV_COST_MAX; c++) {
        if (m->cost_count[c]) return c;
    }
    return 1;
}

float th_nav_units_to_metres(const th_navmap *m, uint32_t units) {
    if (units == TH_NAV_UNREACHABLE || !m) return INFINITY;
    return (float)((double)units * (double)m->cell_size / (double)TH_NAV_UNITS_PER_CELL);
}

/* ---------------------------------------------------------------------------------------- */
/* Wall distance: Meijster, Roerdink and Hesselink's exact Euclidean distance transform.
 * Pass 1 (per column) finds the vertical distance to the nearest blocked cell; pass 2 (per row)
 * takes the lower envelope of the parabolas (x - i)^2 + g(i)^2. Both are linear and exact in
 * integers. A brushfire (8-neighbour propagation) would be simpler but only approximates
 * Euclidean distance, which shows up as octagonal repulsion contours. The map border is a ring
 * of virtual blocked cells at x = -1, x = w, y = -1 and y = h. The column pass stores its
 * integer result in wall_dist (as float, exact below 2^24) to avoid a second array. */

typedef struct edt_job {
    th_navmap *m;
} edt_job;

static void edt_columns(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_navmap *m = ((edt_job *)ctx)->m;
    uint32_t w = (uint32_t)m->w;
    int32_t h = m->h;
    for (uint32_t x = begin; x < end; x++) {
        int32_t g = 0; /* the virtual wall at row -1 */
        for (int32_t y = 0; y < h; y++) {
            uint32_t i = (uint32_t)y * w + x;
            g = m->cost[i] == 0 ? 0 : g + 1;
            m->wall_dist[i] = (float)g;
        }
        g = 0; /* the virtual wall at row h */
        for (int32_t y = h - 1; y >= 0; y--) {
            uint32_t i = (uint32_t)y * w + x;
            g = m->cost[i] == 0 ? 0 : g + 1;
            if ((float)g < m->wall_dist[i]) m->wall_dist[i] = (float)g;
        }
    }
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static void edt_rows(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_navmap *m = ((edt_job *)ctx)->m;
    int32_t w = m->w;
    /* Sites are columns -1..w, stored shifted by one (site u is column u - 1). Stack arrays
     * (about 64 KiB): w <= TH_NAV_MAX_DIM, and no per-worker heap scratch is needed. */
    int64_t g2[TH_NAV_MAX_DIM + 2];
    int32_t s[TH_NAV_MAX_DIM + 2], t[TH_NAV_MAX_DIM + 2];
    int32_t n = w + 2;
    for (uint32_t y = begin; y < end; y++) {
        float *row = m->wall_dist + y * (uint32_t)w;
        g2[0] = 0;
        g2[n - 1] = 0;
        for (int32_t x = 0; x < w; x++) {
            int64_t g = (int64_t)row[x];
            g2[x + 1] = g * g;
        }
        int32_t q = 0;
        s[0] = 0;
        t[0] = 0;
        for (int32_t u = 1; u < n; u++) {
            while (q >= 0) {
                int64_t a = (int64_t)t[q] - s[q], b = (int64_t)t[q] - u;
                if (a * a + g2[s[q]] <= b * b + g2[u]) break;
                q--;
            }
            if (q < 0) {
                q = 0;
                s[0] = u;
            } else {
                int64_t i = s[q];
                int64_t sep =
                    1 + floor_div((int64_t)u * u - i * i + g2[u] - g2[i], 2 * ((int64_t)u - i));
                if (sep < n) {
                    q++;
                    s[q] = u;
                    t[q] = (int32_t)sep;
                }
            }
        }
        for (int32_t u = n - 1; u >= 0; u--) {
            if (u >= 1 && u <= w) {
                int64_t d = (int64_t)u - s[q];
                row[u - 1] = (float)(sqrt((double)(d * d + g2[s[q]])) * (double)m->cell_size);
            }
            if (u == t[q]) q--;
        }
    }
}

void th_navmap_update_walls(th_navmap *m, th_pool *pool) {
    if (!m || !m->cost) return;
    edt_job job = {m};
    if (pool) {
        th_pool_parallel_for(pool, (uint32_t)m->w, 64, edt_columns, &job);
        th_pool_parallel_for(pool, (uint32_t)m->h, 16, edt_rows, &job);
    } else {
        edt_columns(&job, 0, (uint32_t)m->w, 0);
        edt_rows(&job, 0, (uint32_t)m->h, 0);
    }
    m->walls_dirty = false;
}

float th_navmap_wall_sample(const th_navmap *m, th_vec2 p, th_vec2 *away) {
    if (away) *away = th_v2(0.0f, 0.0f);
    if (!m || !m->cost) return 0.0f;
    float u = p.x * m->inv_cell_size - 0.5f, v = p.y * m->inv_cell_size - 0.5f;
    /* Clamp one cell beyond the border (outside cells read 0); rejects NaN before any cast. */
    if (!(u >= -1.0f)) u = -1.0f;
    if (!(v >= -1.0f)) v = -1.0f;
    if (u > (float)m->w) u = (float)m->w;
    if (v > (float)m->h) v = (float)m->h;
    if (isnan(p.x) || isnan(p.y)) return 0.0f;
    float fu = floorf(u), fv = floorf(v);
    int32_t x0 = (int32_t)fu, y0 = (int32_t)fv;
    float fx = u - fu, fy = v - fv;
    float c[4];
    for (int j = 0; j < 4; j++) {
        int32_t x = x0 + (j & 1), y = y0 + (j >> 1);
        c[j] = (x < 0 || y < 0 || x >= m->w || y >= m->h)
                   ? 0.0f
                   : m->wall_dist[(uint32_t)y * (uint32_t)m->w + (uint32_t)x];
    }
    float bottom = c[0] + (c[1] - c[0]) * fx, top = c[2] + (c[3] - c[2]) * fx;
    float d = bottom + (top - bottom) * fy;
    if (away) {
        /* Analytic gradient of the bilinear patch: exact, continuous along each cell edge. */
        float gx = (c[1] - c[0]) * (1.0f - fy) + (c[3] - c[2]) * fy;
        float gy = top - bottom;
        *away = th_v2_norm(th_v2(gx, gy));
    }
    return d;
}
