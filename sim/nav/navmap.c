/* Terrain map, move masks and the wall-distance field. */
#include "sim/nav/nav.h"

#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "engine/alloc.h"

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

/* Move masks of whole rows at once, equal to moves_of cell by cell. The open flags of the rows
 * below, at and above the one being built sit in zero-padded byte rows (0xff = open; the map's
 * outside counts blocked), so a mask is nine loads and a few ands with constants, with no
 * bounds test and no branch, and 16 cells go at once in GNU C vector types (plain SSE2; -O2
 * does not vectorise loops of unknown length by itself). The three padded rows are rolled
 * upwards, one new row per output row. */
typedef uint8_t u8x16 __attribute__((vector_size(16)));

/* The mask from the open flags of the 3x3 block: b*, o*, a* are the rows below, at and above,
 * m / z / p the columns left, at and right. For one byte or for 16 at once. */
#define MOVE_MASK(bm, bz, bp, om, op, am, az, ap)                                        \
    (((op)&0x01) | ((az)&0x02) | ((om)&0x04) | ((bz)&0x08) | ((ap) & (op) & (az)&0x10) | \
     ((am) & (om) & (az)&0x20) | ((bm) & (om) & (bz)&0x40) | ((bp) & (op) & (bz)&0x80))

typedef struct moves_job {
    th_navmap *m;
} moves_job;

static inline u8x16 load16(const uint8_t *p) {
    u8x16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The 16 bytes at p - 1, p and p + 1: the left, own and right flags of 16 cells. */
typedef struct row3 {
    u8x16 m1, z, p1;
} row3;

static inline row3 load3(const uint8_t *p) {
    return (row3){load16(p - 1), load16(p), load16(p + 1)};
}

static void open_row(const th_navmap *m, int32_t y, uint8_t *pad) {
    uint32_t w = (uint32_t)m->w;
    pad[0] = pad[w + 1] = 0;
    if (y < 0 || y >= m->h) {
        memset(pad + 1, 0, w);
        return;
    }
    const uint16_t *c = m->cost + (uint32_t)y * w;
    uint32_t x = 0;
#ifdef __SSE2__
    /* Generic vectors narrow 16-bit lanes one at a time on SSE2; a signed saturating pack
     * turns the compare's 0 / -1 words into 0 / 0xff bytes in one instruction. */
    const __m128i zero = _mm_setzero_si128(), ones = _mm_set1_epi16(-1);
    for (; x + 16 <= w; x += 16) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(c + x));
        __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(c + x + 8));
        lo = _mm_xor_si128(_mm_cmpeq_epi16(lo, zero), ones);
        hi = _mm_xor_si128(_mm_cmpeq_epi16(hi, zero), ones);
        _mm_storeu_si128((__m128i *)(void *)(pad + 1 + x), _mm_packs_epi16(lo, hi));
    }
#endif
    for (; x < w; x++) pad[x + 1] = c[x] != 0 ? 0xff : 0;
}

static void moves_rows(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_navmap *m = ((moves_job *)ctx)->m;
    uint32_t w = (uint32_t)m->w;
    uint8_t buf[3][TH_NAV_MAX_DIM + 2];
    uint8_t *below = buf[0], *here = buf[1], *above = buf[2];
    open_row(m, (int32_t)begin - 1, below);
    open_row(m, (int32_t)begin, here);
    for (uint32_t y = begin; y < end; y++) {
        open_row(m, (int32_t)y + 1, above);
        uint8_t *out = m->moves + y * w;
        uint32_t x = 0;
        for (; x + 16 <= w; x += 16) {
            row3 B = load3(below + x + 1), O = load3(here + x + 1), A = load3(above + x + 1);
            u8x16 mask = MOVE_MASK(B.m1, B.z, B.p1, O.m1, O.p1, A.m1, A.z, A.p1) & O.z;
            memcpy(out + x, &mask, sizeof mask);
        }
        for (; x < w; x++) {
            const uint8_t *b = below + x + 1, *o = here + x + 1, *a = above + x + 1;
            out[x] = (uint8_t)(MOVE_MASK(b[-1], b[0], b[1], o[-1], o[1], a[-1], a[0], a[1]) & o[0]);
        }
        uint8_t *t = below;
        below = here;
        here = above;
        above = t;
    }
}

void th_navmap_defer_moves(th_navmap *m) {
    if (m && m->cost) m->moves_stale = true;
}

void th_navmap_update_moves(th_navmap *m, th_pool *pool) {
    if (!m || !m->cost || !m->moves_stale) return;
    moves_job job = {m};
    if (pool) {
        th_pool_parallel_for(pool, (uint32_t)m->h, 64, moves_rows, &job);
    } else {
        moves_rows(&job, 0, (uint32_t)m->h, 0);
    }
    m->moves_stale = false;
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
    for (uint32_t i = 0; i < n; i++) m->cost[i] = 1;
    m->cost_count[1] = n;
    m->moves_stale = true;
    th_navmap_update_moves(m, NULL);
    /* The transform of a map with no wall inside: the nearest blocked cell centre is the
     * border's, straight across, at min(x + 1, w - x, y + 1, h - y) cells. The transform
     * itself finds that same integer m as sqrt(m^2), exactly, so the floats are identical.
     * Rounding is monotonic, so the float of the smaller of two distances is the smaller of
     * their floats: each row is a minimum of the column term and the row's. */
    double cs = (double)cell_size;
    float across[TH_NAV_MAX_DIM];
    for (int32_t x = 0; x < w; x++)
        across[x] = (float)((double)(x + 1 < w - x ? x + 1 : w - x) * cs);
    for (int32_t y = 0; y < h; y++) {
        float dy = (float)((double)(y + 1 < h - y ? y + 1 : h - y) * cs);
        float *row = m->wall_dist + (uint32_t)y * (uint32_t)w;
        for (int32_t x = 0; x < w; x++) row[x] = across[x] < dy ? across[x] : dy;
    }
    m->walls_dirty = false;
    return TH_NAV_OK;
}

void th_navmap_free(th_navmap *m) {
    if (!m) return;
    th_free(m->cost);
    th_free(m->flags);
    th_free(m->moves);
    th_free(m->wall_dist);
    th_free(m->links);
    memset(m, 0, sizeof *m);
}

static bool in_map(const th_navmap *m, int32_t x, int32_t y) {
    return m && m->cost && x >= 0 && y >= 0 && x < m->w && y < m->h;
}

static void put_cell(th_navmap *m, int32_t x, int32_t y, uint16_t cost, uint8_t flags) {
    uint32_t i = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
    uint16_t old = m->cost[i];
    m->flags[i] = (uint8_t)(flags | (m->flags[i] & TH_NAV_FLAGS_KEPT));
    if (old == cost) return;
    m->cost_count[old]--;
    m->cost_count[cost]++;
    m->cost[i] = cost;
    m->changes++;
    if (!m->moves_stale) refresh_moves_around(m, x, y);
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

static int link_cmp(const th_nav_link *a, uint32_t from, uint8_t dir) {
    if (a->from != from) return a->from < from ? -1 : 1;
    return a->dir < dir ? -1 : (a->dir > dir);
}

/* Index of the first link at or after (from, dir) in the sorted list. */
static uint32_t link_lower(const th_navmap *m, uint32_t from, uint8_t dir) {
    uint32_t lo = 0, hi = m->link_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (link_cmp(&m->links[mid], from, dir) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

const th_nav_link *th_navmap_link(const th_navmap *m, uint32_t c, uint8_t dir) {
    if (!m || !m->link_count || c >= m->ncells || !(m->flags[c] & TH_NAV_FLAG_LINK)) return NULL;
    uint32_t i = link_lower(m, c, dir);
    return i < m->link_count && m->links[i].from == c && m->links[i].dir == dir ? &m->links[i]
                                                                                : NULL;
}

const th_nav_link *th_navmap_links_of(const th_navmap *m, uint32_t c, uint32_t *n) {
    *n = 0;
    if (!m || !m->link_count || c >= m->ncells || !(m->flags[c] & TH_NAV_FLAG_LINK)) return NULL;
    uint32_t i = link_lower(m, c, 0), j = i;
    while (j < m->link_count && m->links[j].from == c) j++;
    *n = j - i;
    return &m->links[i];
}

uint32_t th_navmap_step(const th_navmap *m, uint32_t c, uint8_t k) {
    if (k < 4) {
        const th_nav_link *l = th_navmap_link(m, c, k);
        if (l) return l->to;
    }
    int32_t x = (int32_t)(c % (uint32_t)m->w) + th_nav_move_dx[k];
    int32_t y = (int32_t)(c / (uint32_t)m->w) + th_nav_move_dy[k];
    if (!in_map(m, x, y)) return UINT32_MAX;
    return (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
}

int th_navmap_reserve_links(th_navmap *m, uint32_t n) {
    if (!m || !m->cost) return TH_NAV_EINVAL;
    if (n > TH_NAV_MAX_LINKS - m->link_count) return TH_NAV_ERANGE;
    if (!th_array_reserve((void **)&m->links, sizeof *m->links, m->link_count, &m->link_capacity,
                          m->link_count + n, 16u, TH_NAV_MAX_LINKS))
        return TH_NAV_ENOMEM;
    return TH_NAV_OK;
}

/* Insert one direction of a glued edge, keeping the list sorted. */
static int link_insert(th_navmap *m, uint32_t from, uint8_t dir, uint32_t to) {
    uint32_t i = link_lower(m, from, dir);
    if (i < m->link_count && m->links[i].from == from && m->links[i].dir == dir) {
        return TH_NAV_EINVAL;
    }
    if (!th_array_reserve((void **)&m->links, sizeof *m->links, m->link_count, &m->link_capacity,
                          m->link_count + 1u, 16u, TH_NAV_MAX_LINKS))
        return TH_NAV_ENOMEM;
    memmove(&m->links[i + 1], &m->links[i], sizeof *m->links * (m->link_count - i));
    m->links[i] = (th_nav_link){from, to, dir};
    m->link_count++;
    m->flags[from] |= TH_NAV_FLAG_LINK;
    return TH_NAV_OK;
}

/* The cell across an edge to be glued must be blocked or off the map; it becomes a seam. */
static bool seam_ok(th_navmap *m, int32_t x, int32_t y, bool mark) {
    if (!in_map(m, x, y)) return true;
    uint32_t i = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
    if (m->cost[i] != 0) return false;
    if (mark) m->flags[i] |= TH_NAV_FLAG_SEAM;
    return true;
}

int th_navmap_glue(th_navmap *m, int32_t x, int32_t y, uint8_t dir, int32_t tx, int32_t ty) {
    if (!m || !m->cost || dir > 3) return TH_NAV_EINVAL;
    if (!in_map(m, x, y) || !in_map(m, tx, ty)) return TH_NAV_ERANGE;
    if (x == tx && y == ty) return TH_NAV_EINVAL;
    if (m->link_count + 2u > TH_NAV_MAX_LINKS) return TH_NAV_ERANGE;
    const uint8_t back = (uint8_t)((dir + 2u) & 3u); /* E<->W, N<->S */
    const int32_t sx = x + th_nav_move_dx[dir], sy = y + th_nav_move_dy[dir];
    const int32_t bx = tx + th_nav_move_dx[back], by = ty + th_nav_move_dy[back];
    if (!seam_ok(m, sx, sy, false) || !seam_ok(m, bx, by, false)) return TH_NAV_EDENIED;
    uint32_t a = (uint32_t)y * (uint32_t)m->w + (uint32_t)x;
    uint32_t b = (uint32_t)ty * (uint32_t)m->w + (uint32_t)tx;
    if (th_navmap_link(m, a, dir) || th_navmap_link(m, b, back)) return TH_NAV_EINVAL;
    int rc = link_insert(m, a, dir, b);
    if (rc != TH_NAV_OK) return rc;
    rc = link_insert(m, b, back, a);
    if (rc != TH_NAV_OK) {
        /* Take the first direction out again: a glue is both or neither. */
        uint32_t i = link_lower(m, a, dir);
        memmove(&m->links[i], &m->links[i + 1], sizeof *m->links * (m->link_count - i - 1u));
        m->link_count--;
        uint32_t left = 0;
        th_navmap_links_of(m, a, &left);
        if (left == 0) m->flags[a] &= (uint8_t)~TH_NAV_FLAG_LINK;
        return rc;
    }
    seam_ok(m, sx, sy, true);
    seam_ok(m, bx, by, true);
    return TH_NAV_OK;
}

uint32_t th_navmap_cost(const th_navmap *m, int32_t x, int32_t y) {
    if (!in_map(m, x, y)) return 0;
    return m->cost[(uint32_t)y * (uint32_t)m->w + (uint32_t)x];
}

bool th_navmap_is_blocked(const th_navmap *m, int32_t x, int32_t y) {
    return th_navmap_cost(m, x, y) == 0;
}

bool th_navmap_blocked_at(const th_navmap *m, th_vec2 p) {
    if (!m || !m->cost) return true;
    float fx = p.x * m->inv_cell_size, fy = p.y * m->inv_cell_size;
    if (!(fx >= 0.0f && fy >= 0.0f && fx < (float)m->w && fy < (float)m->h)) return true;
    int32_t x = th_navmap_clamp_coord(fx, m->w), y = th_navmap_clamp_coord(fy, m->h);
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
/* Wall distance: Meijster, Roerdink and Hesselink's exact Euclidean distance transform
 * ("A general algorithm for computing distance transforms in linear time", 2000).
 * Pass 1 (per column) finds the vertical distance to the nearest blocked cell; pass 2 (per row)
 * takes the lower envelope of the parabolas (x - i)^2 + g(i)^2. Both are linear and exact in
 * integers. A brushfire (8-neighbour propagation) would be simpler but only approximates
 * Euclidean distance, which shows up as octagonal repulsion contours. The map border is a ring
 * of virtual blocked cells at x = -1, x = w, y = -1 and y = h. The column pass stores its
 * integer result in wall_dist (as float, exact below 2^24) to avoid a second array. */

typedef struct edt_job {
    th_navmap *m;
    uint32_t strip; /* columns per task of the column pass */
} edt_job;

/* The column pass runs along rows: a strip of columns is swept upwards then downwards a whole
 * row segment at a time, so every access is sequential and the loop vectorises. Walking each
 * column on its own (the textbook order) touches one cache line and one page per cell.
 * Upwards, g is the run of open cells ending at the cell; downwards, the minimum with the run
 * above it: min(up, down) equals the recurrence min(up(y), r(y + 1) + 1), since an open cell
 * above has up + 1 there and a blocked one makes the down run 1. */
static void edt_columns(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const edt_job *j = ctx;
    th_navmap *m = j->m;
    uint32_t w = (uint32_t)m->w, h = (uint32_t)m->h;
    uint32_t x0 = begin * j->strip, x1 = end * j->strip < w ? end * j->strip : w;
    const uint16_t *cost = m->cost;
    float *d = m->wall_dist;
    for (uint32_t x = x0; x < x1; x++) /* the virtual wall at row -1 */
        d[x] = cost[x] == 0 ? 0.0f : 1.0f;
    for (uint32_t y = 1; y < h; y++) {
        const uint16_t *c = cost + y * w;
        float *r = d + y * w;
        const float *below = r - w;
        for (uint32_t x = x0; x < x1; x++) r[x] = c[x] == 0 ? 0.0f : below[x] + 1.0f;
    }
    { /* the virtual wall at row h */
        float *r = d + (h - 1) * w;
        for (uint32_t x = x0; x < x1; x++) r[x] = r[x] < 1.0f ? r[x] : 1.0f;
    }
    for (uint32_t y = h - 1; y-- > 0;) {
        const uint16_t *c = cost + y * w;
        float *r = d + y * w;
        const float *above = r + w;
        for (uint32_t x = x0; x < x1; x++) {
            float v = above[x] + 1.0f;
            r[x] = c[x] == 0 ? 0.0f : (v < r[x] ? v : r[x]);
        }
    }
}

static int32_t floor_div(int32_t a, int32_t b) { /* b > 0 */
    int32_t q = a / b;
    return q - ((a % b != 0) & (a < 0));
}

/* Every term fits 32 bits: g <= TH_NAV_MAX_DIM and sites lie in [0, TH_NAV_MAX_DIM + 1], so
 * squares and their sums stay below 2^26. */
_Static_assert(4 * (TH_NAV_MAX_DIM + 2) * (TH_NAV_MAX_DIM + 2) < INT32_MAX,
               "distance transform terms must fit int32");

static void edt_rows(void *ctx, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    th_navmap *m = ((edt_job *)ctx)->m;
    int32_t w = m->w;
    double cs = (double)m->cell_size;
    /* Sites are columns -1..w, stored shifted by one (site u is column u - 1). Stack arrays
     * (about 48 KiB): w <= TH_NAV_MAX_DIM, and no per-worker heap scratch is needed. */
    int32_t g2[TH_NAV_MAX_DIM + 2];
    int32_t s[TH_NAV_MAX_DIM + 2], t[TH_NAV_MAX_DIM + 2];
    int32_t n = w + 2;
    for (uint32_t y = begin; y < end; y++) {
        float *row = m->wall_dist + y * (uint32_t)w;
        g2[0] = 0;
        g2[n - 1] = 0;
        for (int32_t x = 0; x < w; x++) {
            int32_t g = (int32_t)row[x];
            g2[x + 1] = g * g;
        }
        int32_t q = 0;
        s[0] = 0;
        t[0] = 0;
        for (int32_t u = 1; u < n; u++) {
            int32_t gu = g2[u];
            while (q >= 0) {
                int32_t a = t[q] - s[q], b = t[q] - u;
                if (a * a + g2[s[q]] <= b * b + gu) break;
                q--;
            }
            if (q < 0) {
                q = 0;
                s[0] = u;
            } else {
                int32_t i = s[q];
                int32_t sep = 1 + floor_div(u * u - i * i + gu - g2[i], 2 * (u - i));
                if (sep < n) {
                    q++;
                    s[q] = u;
                    t[q] = sep;
                }
            }
        }
        for (int32_t u = n - 1; u >= 0; u--) {
            if (u >= 1 && u <= w) {
                int32_t d = u - s[q];
                row[u - 1] = (float)(sqrt((double)(d * d + g2[s[q]])) * cs);
            }
            if (u == t[q]) q--;
        }
    }
}

void th_navmap_update_walls(th_navmap *m, th_pool *pool) {
    if (!m || !m->cost) return;
    edt_job job = {m, (uint32_t)m->w};
    if (pool) {
        /* Strips of 256 columns (1 KiB of each row): enough tasks for the pool, long enough
         * rows for the vector loops. */
        job.strip = 256;
        th_pool_parallel_for(pool, ((uint32_t)m->w + job.strip - 1u) / job.strip, 1, edt_columns,
                             &job);
        th_pool_parallel_for(pool, (uint32_t)m->h, 16, edt_rows, &job);
    } else {
        edt_columns(&job, 0, 1, 0);
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
