/* libFuzzer target: the PNG map reader. Each input is written to a private file and read as
 * the `image` of two fixed scenes: one whose legend draws two bunkers (so decodable inputs
 * reach bunker placement, fleeing and an event) and one without (so images that draw no
 * bunker still reach spawning and the first steps). */
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* ---- a PNG-aware mutator ------------------------------------------------------------------
 * Byte-level mutation of a PNG almost never survives decoding: any change to a chunk breaks
 * its CRC, and any change to the compressed pixels breaks zlib's stream, so libpng refuses the
 * file in its first bytes and the map reader behind it is never reached. This mutator works
 * on the layers libpng checks: it mutates the decoded pixel stream (inflated, mutated,
 * deflated again into one IDAT), or one chunk's contents (IHDR's size, depth and colour type,
 * PLTE, tRNS, ...), or the file as bytes; then it makes every chunk's CRC right again. */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Recompute the CRC of every complete chunk. */
static void fix_crcs(uint8_t *d, size_t n) {
    size_t off = 8;
    while (off + 12 <= n) {
        uint32_t len = be32(d + off);
        if (len > n - off - 12) break;
        put_be32(d + off + 8 + len, (uint32_t)crc32(0, d + off + 4, 4 + len));
        off += 12 + (size_t)len;
    }
}

enum { RAW_MAX = 1 << 18, OUT_MAX = 1 << 20 };
static uint8_t g_zin[OUT_MAX], g_raw[RAW_MAX], g_zout[OUT_MAX + 1024], g_out[OUT_MAX + 2048];

/* Inflate as much of `z` as decodes (a damaged stream still yields its first bytes). */
static size_t inflate_some(const uint8_t *z, size_t zlen, uint8_t *out, size_t cap) {
    z_stream st;
    memset(&st, 0, sizeof st);
    if (inflateInit(&st) != Z_OK) return 0;
    st.next_in = (Bytef *)z;
    st.avail_in = (uInt)zlen;
    st.next_out = out;
    st.avail_out = (uInt)cap;
    (void)inflate(&st, Z_SYNC_FLUSH);
    size_t got = cap - st.avail_out;
    inflateEnd(&st);
    return got;
}

/* The pixel layer: all IDAT data inflated, mutated, deflated into one IDAT in the first one's
 * place. Returns the new size, or 0 when the input has no IDAT or the result does not fit. */
static size_t mutate_pixels(uint8_t *data, size_t size, size_t max_size) {
    size_t zlen = 0, first = 0, off = 8;
    while (off + 12 <= size) {
        uint32_t len = be32(data + off);
        if (len > size - off - 12) break;
        if (memcmp(data + off + 4, "IDAT", 4) == 0) {
            if (!first) first = off;
            if (zlen + len <= sizeof g_zin) memcpy(g_zin + zlen, data + off + 8, len), zlen += len;
        }
        off += 12 + (size_t)len;
    }
    if (!first) return 0;
    size_t raw = inflate_some(g_zin, zlen, g_raw, sizeof g_raw);
    raw = LLVMFuzzerMutate(g_raw, raw, sizeof g_raw);
    uLongf zout = sizeof g_zout;
    if (compress2(g_zout, &zout, g_raw, raw, 6) != Z_OK) return 0;
    /* everything before the first IDAT, the new IDAT, then every other chunk */
    size_t o = 0;
    if (first + 12 + zout > sizeof g_out) return 0;
    memcpy(g_out, data, first);
    o = first;
    put_be32(g_out + o, (uint32_t)zout);
    memcpy(g_out + o + 4, "IDAT", 4);
    memcpy(g_out + o + 8, g_zout, zout);
    o += 12 + zout;
    for (off = first; off + 12 <= size;) {
        uint32_t len = be32(data + off);
        if (len > size - off - 12) break;
        if (memcmp(data + off + 4, "IDAT", 4) != 0) {
            if (o + 12 + len > sizeof g_out) return 0;
            memcpy(g_out + o, data + off, 12 + (size_t)len);
            o += 12 + (size_t)len;
        }
        off += 12 + (size_t)len;
    }
    if (o > max_size) return 0;
    memcpy(data, g_out, o);
    return o;
}

/* One chunk's contents, its length field updated. Returns the new size, or 0. */
static size_t mutate_chunk(uint8_t *data, size_t size, size_t max_size, unsigned seed) {
    size_t offs[64], n = 0, off = 8;
    while (off + 12 <= size && n < 64) {
        uint32_t len = be32(data + off);
        if (len > size - off - 12) break;
        offs[n++] = off;
        off += 12 + (size_t)len;
    }
    if (n == 0) return 0;
    size_t at = offs[seed % n], len = be32(data + at), tail = size - (at + 12 + len);
    size_t room = max_size - (size - len); /* the most this chunk's data may grow to */
    if (room > sizeof g_raw) room = sizeof g_raw;
    memcpy(g_raw, data + at + 8, len);
    size_t grown = LLVMFuzzerMutate(g_raw, len, room);
    memmove(data + at + 12 + grown, data + at + 12 + len, tail);
    memcpy(data + at + 8, g_raw, grown);
    put_be32(data + at, (uint32_t)grown);
    return size - len + grown;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t out = 0;
    if (size >= 8 && memcmp(data, sig, 8) == 0) {
        switch (seed % 4) {
        case 0:
        case 1: out = mutate_pixels(data, size, max_size); break;
        case 2: out = mutate_chunk(data, size, max_size, seed / 4); break;
        default: break;
        }
    }
    if (!out) out = LLVMFuzzerMutate(data, size, max_size);
    if (out >= 8 && memcmp(data, sig, 8) == 0) fix_crcs(data, out);
    return out;
}

static char g_png[96], g_name[96];
static char g_yaml[2][1024];

/* The image lies in a private folder beside the scene's name: files a scene names must be
 * inside its folder. */
static void setup(void) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/throng_fuzz_image_%d", (int)getpid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) abort();
    snprintf(g_png, sizeof g_png, "%s/map.png", dir);
    snprintf(g_name, sizeof g_name, "%s/image.yaml", dir);
    snprintf(g_yaml[0], sizeof g_yaml[0],
             "name: image fuzz\n"
             "map:\n"
             "  cell_size: 1\n"
             "  image: map.png\n"
             "  legend: {'#000000': wall, '#ffffff': open, '#808080': destructible,\n"
             "           '#00a000': {terrain: 3}, '#ff0000': {bunker: red},\n"
             "           '#0000ff': {bunker: blue}}\n"
             "crowds:\n"
             "  - {name: a, count: 20, behavior: flee, spawn: {cells: '#ffffff'}}\n"
             "events:\n"
             "  - {at_step: 1, destroy_bunker: red}\n");
    snprintf(g_yaml[1], sizeof g_yaml[1],
             "name: image fuzz\n"
             "map:\n"
             "  cell_size: 0.5\n"
             "  image: map.png\n"
             "  legend: {'#000000': wall, '#ffffff': open, '#808080': destructible,\n"
             "           '#00a000': {terrain: 3}}\n"
             "crowds:\n"
             "  - {name: a, count: 20, spawn: {cells: '#ffffff'}}\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_png[0]) setup();
    FILE *f = fopen(g_png, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    for (int i = 0; i < 2; i++) fuzz_scene_bytes(g_name, g_yaml[i], strlen(g_yaml[i]));
    return 0;
}
