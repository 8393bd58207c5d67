/* Reference Dijkstra: binary heap with lazy deletion, explicit neighbour tests. Kept plain on
 * purpose: it is the oracle the engine's bucket queue and repairs are checked against. */
#include "ref_dijkstra.h"

#include <stdlib.h>

typedef struct item {
    uint64_t d;
    int cell;
} item;

typedef struct heap {
    item *a;
    size_t n, cap;
} heap;

static int heap_push(heap *h, uint64_t d, int cell) {
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 1024;
        item *a = realloc(h->a, cap * sizeof *a);
        if (!a) return -1;
        h->a = a;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->a[p].d <= d) break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = (item){d, cell};
    return 0;
}

static item heap_pop(heap *h) {
    item top = h->a[0];
    item last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        uint64_t md = last.d;
        if (l < h->n && h->a[l].d < md) {
            m = l;
            md = h->a[l].d;
        }
        if (r < h->n && h->a[r].d < md) m = r;
        if (m == i) break;
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n) h->a[i] = last;
    return top;
}

static int is_open(int w, int h, const uint16_t *cost, int x, int y) {
    return x >= 0 && y >= 0 && x < w && y < h && cost[y * w + x] != 0;
}

int th_ref_dijkstra(int w, int h, const uint16_t *cost, const th_ref_goal *goals, int ngoals,
                    uint64_t *dist) {
    return th_ref_dijkstra_joined(w, h, cost, goals, ngoals, NULL, 0, dist);
}

int th_ref_dijkstra_joined(int w, int h, const uint16_t *cost, const th_ref_goal *goals, int ngoals,
                           const th_ref_join *joins, int njoins, uint64_t *dist) {
    for (int i = 0; i < w * h; i++) dist[i] = TH_REF_INF;
    heap hp = {0};
    for (int i = 0; i < ngoals; i++) {
        int c = goals[i].y * w + goals[i].x;
        if (cost[c] == 0) continue;
        if (goals[i].weight < dist[c]) {
            dist[c] = goals[i].weight;
            if (heap_push(&hp, dist[c], c)) goto fail;
        }
    }
    while (hp.n) {
        item it = heap_pop(&hp);
        if (it.d != dist[it.cell]) continue;
        int x = it.cell % w, y = it.cell / w;
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                if (!dx && !dy) continue;
                if (!is_open(w, h, cost, x + dx, y + dy)) continue;
                int diagonal = dx && dy;
                if (diagonal &&
                    (!is_open(w, h, cost, x + dx, y) || !is_open(w, h, cost, x, y + dy))) {
                    continue;
                }
                int n = (y + dy) * w + (x + dx);
                uint64_t step = diagonal ? 99 : 70;
                uint64_t nd = it.d + ((uint64_t)cost[it.cell] + cost[n]) * step;
                if (nd < dist[n]) {
                    dist[n] = nd;
                    if (heap_push(&hp, nd, n)) goto fail;
                }
            }
        }
        /* Joined pairs: a straight step either way, scanned in full (the reference is plain). */
        for (int j = 0; j < njoins; j++) {
            int n = joins[j].a == it.cell ? joins[j].b : joins[j].b == it.cell ? joins[j].a : -1;
            if (n < 0 || cost[n] == 0) continue;
            uint64_t nd = it.d + ((uint64_t)cost[it.cell] + cost[n]) * 70;
            if (nd < dist[n]) {
                dist[n] = nd;
                if (heap_push(&hp, nd, n)) goto fail;
            }
        }
    }
    free(hp.a);
    return 0;
fail:
    free(hp.a);
    return -1;
}

uint32_t th_ref_to_field(uint64_t d, uint32_t cap) { return d > cap ? UINT32_MAX : (uint32_t)d; }
