/* Hostile scene files: every class of bad input docs/robustness.md lists, each either refused
 * with a scene error at the right place (file:line:column: key: what) or, when it is valid but
 * extreme, loaded within a time bound. Cases marked "regression" failed (crashed, hung, or
 * reported without a place) before the fix named in their comment. */
#include <check.h>
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "throng/throng.h"
#include "test_util.h"

/* A scene or image, built by a generator when it is too large to write out. */
typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
        ck_assert_ptr_nonnull(b->data);
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }
static void repeat(buf *b, const char *s, size_t times) {
    for (size_t i = 0; i < times; i++) puts_(b, s);
}

/* A PNG of w x h pixels: white, with black walls on the border when both sides exceed 2. */
static void write_png(const char *name, unsigned w, unsigned h) {
    unsigned char *px = malloc((size_t)w * h * 3);
    ck_assert_ptr_nonnull(px);
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            bool wall = w > 2 && h > 2 && (x == 0 || y == 0 || x == w - 1 || y == h - 1);
            memset(px + 3 * ((size_t)y * w + x), wall ? 0 : 255, 3);
        }
    }
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGB;
    ck_assert(png_image_write_to_file(&img, th_test_file(name), 0, px, 0, NULL));
    free(px);
}

/* ---- generators for inputs too large to write inline ----------------------------------- */

#define HEAD  "name: t\nworld:\n  size: [100, 100]\n"
#define CROWD "crowds:\n  - name: a\n    count: 5\n    spawn: {rect: [0, 0, 10, 10]}\n"
#define MAP3                                                                              \
    "name: t\nmap:\n  cell_size: 1\n  legend: {'#': wall, '.': open, 'B': {bunker: b}}\n" \
    "  ascii: |\n    #####\n    #.B.#\n    #####\n"
#define MCROWD "crowds:\n  - {name: a, agents: [[1.5, 1.5]]}\n"

static void gen_long_name(buf *b) {
    puts_(b, "name: ");
    repeat(b, "n", 1000000);
    puts_(b, "\n");
}

/* An explicit key ("? key"): libyaml limits implicit keys to 1024 characters. */
static void gen_long_key(buf *b) {
    puts_(b, HEAD CROWD "? ");
    repeat(b, "k", 100000);
    puts_(b, "\n: 1\n");
}

static void gen_deep(buf *b) {
    puts_(b, "name: t\nx: ");
    repeat(b, "[", 10000);
    repeat(b, "]", 10000);
    puts_(b, "\n");
}

static void gen_laughs(buf *b) {
    puts_(b, "name: t\na: &a [x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'j'; c++) {
        char line[80];
        snprintf(line, sizeof line, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c,
                 c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
        puts_(b, line);
    }
}

/* Regression: duplicate keys were found by comparing every pair, minutes for this mapping. */
static void gen_many_keys(buf *b) {
    puts_(b, "name: t\n");
    char line[32];
    for (int i = 0; i < 300000; i++) {
        snprintf(line, sizeof line, "k%d: 1\n", i);
        puts_(b, line);
    }
    puts_(b, "k7: 2\n");
}

static void gen_too_many_nodes(buf *b) {
    puts_(b, "name: t\nx: [");
    repeat(b, "1,", 4200000);
    puts_(b, "1]\n");
}

static void gen_binary(buf *b) {
    /* A fixed pseudo-random byte string: the same garbage on every run. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 4096; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        char c = (char)(x >> 56);
        put(b, &c, 1);
    }
}

static void gen_over_64mib(buf *b) {
    b->cap = (64u << 20) + 16;
    b->data = malloc(b->cap);
    ck_assert_ptr_nonnull(b->data);
    memset(b->data, '#', (64u << 20) + 1);
    b->len = (64u << 20) + 1;
}

static void gen_row_4097(buf *b) {
    puts_(b, "name: t\nmap:\n  cell_size: 1\n  legend: {'.': open}\n  ascii: |\n    ");
    repeat(b, ".", 4097);
    puts_(b, "\n" MCROWD);
}

/* Regression: at a cell size of 0.01 the world recomputed 4096 columns from the float width as
 * 4097 and refused the map ("out of memory"-free, but unlocated and wrong). */
static void gen_row_4096_fine(buf *b) {
    puts_(b, "name: t\nmap:\n  cell_size: 0.01\n  legend: {'.': open}\n  ascii: |\n    ");
    repeat(b, ".", 4096);
    puts_(b, "\n    ");
    repeat(b, ".", 4096);
    puts_(b, "\ncrowds:\n  - {name: a, count: 100, spawn: {rect: [0, 0, 40, 0.01]}}\n");
}

static void gen_million_tiny(buf *b) {
    puts_(b, "name: t\nworld: {size: [1, 1]}\n"
             "crowds:\n  - {name: a, count: 1000000, spawn: {rect: [0, 0, 1, 1]}}\n");
}

/* Regression: the world inserts events after those due no later; 65,536 events written
 * latest-first took a quadratic number of moves. */
static void gen_events_reversed(buf *b) {
    puts_(b, MAP3 MCROWD "events:\n");
    char line[64];
    for (int i = 65535; i >= 0; i--) {
        snprintf(line, sizeof line, "  - {at_step: %d, block: [1, 1]}\n", i + 1);
        puts_(b, line);
    }
}

static void gen_too_many_events(buf *b) {
    puts_(b, MAP3 MCROWD "events:\n");
    repeat(b, "  - {at_step: 5, block: [1, 1]}\n", 65537);
}

/* Regression: each crowd's legend regions were found by a scan of the whole map: 256 crowds x
 * 16 regions over a 1024 x 1024 map took minutes. */
static void gen_many_cell_regions(buf *b) {
    puts_(b, "name: t\nmap:\n  cell_size: 1\n  legend: {'.': open, 's': spawn}\n  ascii: |\n");
    for (int r = 0; r < 1024; r++) {
        puts_(b, "    s");
        repeat(b, ".", 1023);
        puts_(b, "\n");
    }
    puts_(b, "crowds:\n");
    char line[64];
    for (int c = 0; c < 256; c++) {
        snprintf(line, sizeof line, "  - name: c%d\n    count: 1\n    spawn: [", c);
        puts_(b, line);
        for (int k = 0; k < 16; k++) puts_(b, k ? ", {cells: s}" : "{cells: s}");
        puts_(b, "]\n");
    }
}

/* Regression: a bunker's cells were scanned for walls before its overlap with other bunkers
 * was checked; 64 map-sized bunkers cost 64 full scans. */
static void gen_bunkers_whole_map(buf *b) {
    puts_(b, "name: t\nmap:\n  cell_size: 1\n  generate: {city: {size: [2048, 2048], block: 1, "
             "street: 64, parks: 1}}\nbunkers:\n");
    char line[96];
    for (int i = 0; i < 64; i++) {
        snprintf(line, sizeof line, "  - {name: b%d, cells: [0, 0, 2047, 2047]}\n", i);
        puts_(b, line);
    }
    puts_(b, MCROWD);
}

/* Refused by the memory estimate: 64 river maps of 4096 x 4096 cells need over 5 GiB. */
static void gen_huge_nav(buf *b) {
    puts_(b, "name: t\nthreads: 2\nmap:\n  cell_size: 1\n  generate: {city: {size: [4096, 4096]}}\n"
             "bunkers:\n");
    char line[96];
    for (int i = 0; i < 64; i++) {
        snprintf(line, sizeof line, "  - {name: b%d, cells: [%d, 0]}\n", i, i);
        puts_(b, line);
    }
    puts_(b, MCROWD);
}

static void gen_utf16(buf *b) {
    const char *text =
        "name: t\nworld: {size: [10, 10]}\ncrowds:\n  - {name: a, agents: [[1, 1]]}\n";
    put(b, "\xff\xfe", 2);
    for (const char *p = text; *p; p++) put(b, (const char[2]){*p, 0}, 2);
}

/* ---- the table -------------------------------------------------------------------------- */

typedef enum outcome { REFUSED, LOADS } outcome;

typedef struct bad_case {
    const char *what;
    const char *yaml; /* NULL: built by gen */
    size_t len;       /* 0: strlen(yaml) */
    void (*gen)(buf *b);
    outcome expect;
    unsigned line, column; /* REFUSED: where the message points */
    const char *path;      /* REFUSED: the key path named ("" for YAML-level errors) */
    const char *message;   /* REFUSED: a fragment of the message */
    double seconds;        /* most CPU time the load may take (plain build; x8 under ASan) */
} bad_case;

#define L(s) s, sizeof(s) - 1, NULL

// clang-format off: one case per line reads as a table
static const bad_case k_cases[] = {
    /* malformed YAML */
    {"unclosed flow list", L("name: [t\n"), REFUSED, 2, 1, "", "invalid YAML", 1},
    {"tab indentation", L("name: t\nworld:\n\tsize: [1, 1]\n"), REFUSED, 3, 1, "", "invalid YAML",
     1},
    {"unterminated quote", L("name: \"t\n"), REFUSED, 2, 1, "", "invalid YAML", 1},
    {"two documents", L("name: t\n---\nname: u\n"), REFUSED, 3, 1, "", "a second YAML document", 1},
    /* wrong types */
    {"crowds as a mapping", L(HEAD "crowds: {a: 1}\n"), REFUSED, 4, 9, "crowds",
     "expected a list, found a mapping", 1},
    {"world as a scalar", L("name: t\nworld: big\n"), REFUSED, 2, 8, "world",
     "expected a mapping, found 'big'", 1},
    {"quoted number", L(HEAD "crowds:\n  - {name: a, count: '5'}\n"), REFUSED, 5, 22,
     "crowds[0].count", "found '5'", 1},
    {"mapping as a key", L("? {a: 1}\n: b\n"), REFUSED, 1, 3, "",
     "mapping keys must be plain names", 1},
    {"terrain cost as a list",
     L("name: t\nmap: {cell_size: 1, legend: {'.': {terrain: [1]}}, ascii: '.'}\n"), REFUSED, 2, 45,
     "map.legend['.'].terrain", "found a list", 1},
    /* huge numbers */
    {"count of 10^24", L(HEAD "crowds:\n  - {name: a, count: 1000000000000000000000000}\n"),
     REFUSED, 5, 22, "crowds[0].count", "[0, 16777216]", 1},
    {"seed of 2^64", L("name: t\nseed: 18446744073709551616\n"), REFUSED, 2, 7, "seed",
     "expected a whole number", 1},
    {"timestep of 1e400", L("name: t\ntimestep: 1e400\n"), REFUSED, 2, 11, "timestep",
     "[0.0001, 1]", 1},
    {"world of 1e7 m", L("name: t\nworld: {size: [1e7, 1]}\n"), REFUSED, 2, 16, "world.size[0]",
     "[0.001, 1e+06]", 1},
    {"city seed of 10^23 (regression: wrapped silently)",
     L("name: t\nmap: {cell_size: 1, generate: {city: {size: [8, 8], seed: "
       "99999999999999999999999}}}\n"),
     REFUSED, 2, 59, "map.generate.city.seed", "expected a whole number", 1},
    {"steps of 10^10", L("name: t\nsteps: 10000000000\n"), REFUSED, 2, 8, "steps",
     "[0, 1000000000]", 1},
    /* negative sizes */
    {"negative world size", L("name: t\nworld: {size: [-1, 5]}\n"), REFUSED, 2, 16, "world.size[0]",
     "'-1'", 1},
    {"negative cell size", L("name: t\nmap: {cell_size: -1, ascii: '.'}\n"), REFUSED, 2, 18,
     "map.cell_size", "'-1'", 1},
    {"negative city size", L("name: t\nmap: {cell_size: 1, generate: {city: {size: [-5, 5]}}}\n"),
     REFUSED, 2, 46, "map.generate.city.size", "[1, 4096]", 1},
    {"negative spawn rect",
     L(HEAD "crowds:\n  - {name: a, count: 1, spawn: {rect: [0, 0, -1, 5]}}\n"), REFUSED, 5, 46,
     "crowds[0].spawn.rect[2]", "'-1'", 1},
    /* NaN, infinity and other spellings strtod would take */
    {"NaN speed", L(HEAD CROWD "    max_speed: .nan\n"), REFUSED, 8, 16, "crowds[0].max_speed",
     "'.nan'", 1},
    {"negative infinity weight", L(HEAD CROWD "    wall_weight: -.inf\n"), REFUSED, 8, 18,
     "crowds[0].wall_weight", "'-.inf'", 1},
    {"nan cell size (regression: strtod)", L("name: t\nmap: {cell_size: nan, ascii: '.'}\n"),
     REFUSED, 2, 18, "map.cell_size", "'nan'", 1},
    {"hex float cell size (regression: accepted)",
     L("name: t\nmap: {cell_size: 0x1p-3, ascii: '.'}\n"), REFUSED, 2, 18, "map.cell_size",
     "'0x1p-3'", 1},
    {"infinite rubble fraction",
     L("name: t\nmap: {cell_size: 1, generate: {city: {size: [8, 8], rubble: inf}}}\n"), REFUSED, 2,
     61, "map.generate.city.rubble", "fraction", 1},
    /* very long input */
    {"million-character name", NULL, 0, gen_long_name, REFUSED, 1, 7, "name", "1 to 63 characters",
     2},
    {"100,000-character key", NULL, 0, gen_long_key, REFUSED, 8, 3, "kkkkkkkkkk",
     "unknown key 'kkkk", 2},
    {"64 MiB + 1 byte (regression: up to 128 MiB accepted)", NULL, 0, gen_over_64mib, REFUSED, 1, 1,
     "", "at most 67108864 bytes", 3},
    /* nesting and node counts */
    {"10,000 levels deep", NULL, 0, gen_deep, REFUSED, 2, 67, "", "nested more than 64 levels deep",
     1},
    {"4,200,001 nodes", NULL, 0, gen_too_many_nodes, REFUSED, 2, 0, "",
     "more than 4,194,304 YAML nodes", 10},
    /* garbage and encodings */
    {"binary garbage", NULL, 0, gen_binary, REFUSED, 1, 0, "", "invalid YAML", 1},
    /* Bytes that are not text are placed where they are (regression: always at 1:1). */
    {"NUL byte", L("name: t\0\n"), REFUSED, 1, 8, "",
     "control characters are not allowed (byte 0x00)", 1},
    {"NUL byte in a later line", L(HEAD "crowds:\n  - {name: a\0b, count: 3}\n"), REFUSED, 5, 13,
     "", "control characters are not allowed (byte 0x00)", 1},
    {"NUL inside a quoted name", L("name: \"a\\0b\"\n"), REFUSED, 1, 7, "name",
     "1 to 63 characters, found 'a\\x00b'", 1},
    {"non-UTF-8 bytes", L("name: \xff\xfe\xfd\n"), REFUSED, 1, 7, "",
     "invalid leading UTF-8 octet (byte 0xFF)", 1},
    {"non-UTF-8 byte after UTF-8 text", L(HEAD "# \xc3\xa9t\xc3\xa9\ncrowds: \xc3\x28\n"), REFUSED,
     5, 10, "", "invalid trailing UTF-8 octet (byte 0x28)", 1},
    {"UTF-8 BOM",
     L("\xef\xbb\xbfname: t\nworld: {size: [10, 10]}\ncrowds:\n  - {name: a, agents: [[1, 1]]}\n"),
     LOADS, 0, 0, NULL, NULL, 1},
    {"UTF-16LE with BOM", NULL, 0, gen_utf16, LOADS, 0, 0, NULL, NULL, 1},
    {"empty file", L(""), REFUSED, 1, 1, "(file)", "the file is empty", 1},
    {"only a comment", L("# nothing\n"), REFUSED, 1, 1, "(file)", "the file is empty", 1},
    {"control bytes in a key (regression: written raw to the terminal)",
     L(HEAD CROWD "\"ke\\ty\\e\": 1\n"), REFUSED, 8, 1, "ke\\x09y\\x1b",
     "unknown key 'ke\\x09y\\x1b'", 1},
    /* Regression: C1 controls (CSI, U+009B) and bidi overrides (U+202E) passed into names and
     * keys and were printed raw: a terminal runs the CSI, and U+202E reverses what follows. */
    {"C1 control (CSI) in a key", L(HEAD CROWD "\"k\\u009b31m\": 1\n"), REFUSED, 8, 1,
     "k\\u009b31m", "unknown key 'k\\u009b31m'", 1},
    {"bidi override in a key", L(HEAD CROWD "\"a\\u202eb\\u2066c\": 1\n"), REFUSED, 8, 1,
     "a\\u202eb\\u2066c", "unknown key 'a\\u202eb\\u2066c'", 1},
    {"bidi override in the scene name", L("name: \"evil\\u202etxt.yaml\"\n"), REFUSED, 1, 7, "name",
     "without control or bidirectional characters, found 'evil\\u202etxt.yaml'", 1},
    {"C1 control in a crowd name",
     L(HEAD "crowds:\n  - {name: \"a\\u0085\", count: 1, spawn: {rect: [0, 0, 1, 1]}}\n"), REFUSED,
     5, 12, "crowds[0].name", "found 'a\\u0085'", 1},
    {"bidi isolate in a legend bunker name",
     L("name: t\nmap: {cell_size: 1, legend: {'.': open, 'B': {bunker: \"b\\u2067\"}}, ascii: \".B\"}\n"),
     REFUSED, 2, 55, "map.legend['B'].bunker", "control or bidirectional characters", 1},
    {"empty lists (regression: memcpy from NULL)",
     L(HEAD "crowds:\n  - {name: a, count: 1, spawn: []}\n"), REFUSED, 5, 32, "crowds[0].spawn",
     "found an empty list", 1},
    /* aliases, anchors, duplicates */
    {"anchor", L("name: &n t\n"), REFUSED, 1, 7, "", "YAML anchors (&name) are not supported", 1},
    {"alias", L("a: b\nname: *x\n"), REFUSED, 2, 7, "", "YAML aliases (*name) are not supported",
     1},
    {"billion laughs", NULL, 0, gen_laughs, REFUSED, 2, 4, "",
     "YAML anchors (&name) are not supported", 1},
    {"duplicate key", L("name: t\nname: u\n"), REFUSED, 2, 1, "",
     "duplicate key 'name' (first at line 1)", 1},
    {"duplicate key with a tab", L("\"a\\tb\": 1\n\"a\\tb\": 2\n"), REFUSED, 2, 1, "",
     "duplicate key 'a\\x09b' (first at line 1)", 1},
    {"300,001 keys, one repeated (regression: quadratic check)", NULL, 0, gen_many_keys, REFUSED,
     300002, 1, "", "duplicate key 'k7' (first at line 9)", 3},
    /* maps */
    {"zero-size ascii map", L("name: t\nmap: {cell_size: 1, legend: {'.': open}, ascii: ''}\n"),
     REFUSED, 2, 49, "map.ascii", "found an empty value", 1},
    {"zero-size city", L("name: t\nmap: {cell_size: 1, generate: {city: {size: [0, 5]}}}\n"),
     REFUSED, 2, 46, "map.generate.city.size", "[1, 4096]", 1},
    {"all-wall map, spawning",
     L("name: t\nmap: {cell_size: 1, legend: {'#': wall}, ascii: \"###\"}\ncrowds:\n  - {name: a, "
       "count: 1, spawn: {rect: [0, 0, 3, 1]}}\n"),
     REFUSED, 4, 32, "crowds[0].spawn", "could not place agent 0", 1},
    {"all-wall map, agent placed",
     L("name: t\nmap: {cell_size: 1, legend: {'#': wall}, ascii: \"###\"}\ncrowds:\n  - {name: a, "
       "agents: [[1.5, 0.5]]}\n"),
     REFUSED, 4, 24, "crowds[0].agents[0]", "inside a wall", 1},
    {"all-wall map, nobody",
     L("name: t\nmap: {cell_size: 1, legend: {'#': wall}, ascii: \"###\"}\ncrowds:\n  - {name: "
       "a}\n"),
     LOADS, 0, 0, NULL, NULL, 1},
    {"bunker inside a wall", L(MAP3 "bunkers:\n  - {name: c, cells: [0, 0]}\n" MCROWD), REFUSED, 10,
     22, "bunkers[0].cells", "covers cell (0, 0), which is a wall", 1},
    {"bunker name with control bytes",
     L("name: t\nmap: {cell_size: 1, legend: {'B': {bunker: \"a\\x01\"}}, ascii: B}\n"), REFUSED, 2,
     44, "map.legend['B'].bunker", "a name with control", 1},
    {"spawn on a non-colour '#zzzzzz' (regression: read as #000000)",
     L("name: t\nmap: {cell_size: 1, legend: {'.': open}, ascii: '.'}\ncrowds:\n  - {name: a, "
       "count: 1, spawn: {cells: '#zzzzzz'}}\n"),
     REFUSED, 4, 40, "crowds[0].spawn.cells", "expected a legend character or #rrggbb colour", 1},
    {"64 map-sized bunkers (regression: 64 full scans before the overlap)", NULL, 0,
     gen_bunkers_whole_map, REFUSED, 7, 23, "bunkers[1].cells", "overlaps bunker 'b0'", 2},
    {"4097-character row", NULL, 0, gen_row_4097, REFUSED, 5, 10, "map.ascii",
     "at most 4096 rows of at most 4096", 1},
    {"4096 x 1 city",
     L("name: t\nmap: {cell_size: 1, generate: {city: {size: [4096, 1]}}}\n"
       "crowds:\n  - {name: a, agents: [[0.5, 0.5]]}\n"),
     LOADS, 0, 0, NULL, NULL, 2},
    {"4097 x 1 city",
     L("name: t\nmap: {cell_size: 1, generate: {city: {size: [4097, 1]}}}\n" MCROWD), REFUSED, 2,
     46, "map.generate.city.size", "[1, 4096]", 1},
    {"4096 columns of 0.01 m (regression: world made them 4097)", NULL, 0, gen_row_4096_fine, LOADS,
     0, 0, NULL, NULL, 2},
    {"64 bunkers on 4096 x 4096 (memory bound)", NULL, 0, gen_huge_nav, REFUSED, 4, 3, "map",
     "expected a world of at most 4096 MiB", 5},
    /* counts */
    {"agents more than cells",
     L("name: t\nmap: {cell_size: 1, legend: {'.': open}, ascii: \"..\"}\ncrowds:\n  - {name: a, "
       "count: 10000, spawn: {rect: [0, 0, 2, 1]}}\n"),
     LOADS, 0, 0, NULL, NULL, 2},
    {"a million agents in a 1 m world", NULL, 0, gen_million_tiny, LOADS, 0, 0, NULL, NULL, 6},
    {"more agents than the bound",
     L(HEAD "crowds:\n  - {name: a, count: 16777216, spawn: {rect: [0, 0, 1, 1]}}\n  - {name: b, "
            "count: 1, spawn: {rect: [0, 0, 1, 1]}}\n"),
     REFUSED, 6, 5, "crowds[1]", "more than 16777216 agents in all", 1},
    /* Spawn circles and agents past the world's left edge: the documented messages (a
     * mutation run found that neither was tested). */
    {"spawn circle past the left edge",
     L(HEAD "crowds:\n  - {name: a, count: 3, spawn: {circle: [1, 50, 2]}}\n"), REFUSED, 5, 41,
     "crowds[0].spawn.circle",
     "expected [x, y, radius] with a positive radius inside the 100 x 100 m world, found [1, 50, 2]",
     1},
    {"spawn circle touching the left edge",
     L(HEAD "crowds:\n  - {name: a, count: 3, spawn: {circle: [2, 50, 2]}}\n"), LOADS, 0, 0, NULL,
     NULL, 1},
    {"spawn circle past the bottom edge",
     L(HEAD "crowds:\n  - {name: a, count: 3, spawn: {circle: [50, 1, 2]}}\n"), REFUSED, 5, 41,
     "crowds[0].spawn.circle", "inside the 100 x 100 m world", 1},
    {"spawn rect past the north edge",
     L(HEAD "crowds:\n  - {name: a, count: 3, spawn: {rect: [0, 95, 10, 10]}}\n"), REFUSED, 5, 39,
     "crowds[0].spawn.rect", "with a positive size inside the 100 x 100 m world", 1},
    {"DEL in a key", L(HEAD CROWD "\"k\\x7f\": 1\n"), REFUSED, 8, 1, "k\\x7f",
     "unknown key 'k\\x7f'", 1},
    {"agent at a negative coordinate", L(HEAD "crowds:\n  - {name: a, agents: [[-1, 5]]}\n"),
     REFUSED, 5, 24, "crowds[0].agents[0]", "position (-1, 5) is off the 100 x 100 m world", 1},
    {"agent at the float edge (regression: unlocated world error)",
     L(HEAD "crowds:\n  - {name: a, agents: [[99.999999999, 5]]}\n"), REFUSED, 5, 24,
     "crowds[0].agents[0]", "off the 100 x 100 m world", 1},
    /* events */
    {"event at time 0", L(MAP3 MCROWD "events:\n  - {at: 0s, block: [1, 1]}\n"), LOADS, 0, 0, NULL,
     NULL, 1},
    {"event in the past", L(MAP3 MCROWD "events:\n  - {at: -5s, block: [1, 1]}\n"), REFUSED, 12, 10,
     "events[0].at", "0 to 1e7", 1},
    {"event at step 10^12", L(MAP3 MCROWD "events:\n  - {at_step: 1000000000000, block: [1, 1]}\n"),
     LOADS, 0, 0, NULL, NULL, 1},
    {"event past step 10^12",
     L(MAP3 MCROWD "events:\n  - {at_step: 1000000000001, block: [1, 1]}\n"), REFUSED, 12, 15,
     "events[0].at_step", "[0, 1000000000000]", 1},
    {"event after 1e8 s", L(MAP3 MCROWD "events:\n  - {at: 1e8s, block: [1, 1]}\n"), REFUSED, 12,
     10, "events[0].at", "0 to 1e7", 1},
    {"65,536 events latest first", NULL, 0, gen_events_reversed, LOADS, 0, 0, NULL, NULL, 1.5},
    {"65,537 events", NULL, 0, gen_too_many_events, REFUSED, 12, 3, "events",
     "more than 65536 events", 3},
    {"256 crowds x 16 legend regions", NULL, 0, gen_many_cell_regions, LOADS, 0, 0, NULL, NULL,
     1.5},
};
// clang-format on

/* The process's CPU time, not the wall clock: the bounds catch work that grows out of
 * proportion (a quadratic pass, a hang), and another job on a loaded machine stretches wall
 * time, not the CPU time the load itself takes. */
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Time bounds are for a plain optimised build; sanitizer builds run several times slower, and
 * THRONG_TIME_SCALE stretches the bounds further on a slow machine. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TH_TEST_SLOWDOWN 8.0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TH_TEST_SLOWDOWN 8.0
#endif
#endif
#ifndef TH_TEST_SLOWDOWN
#define TH_TEST_SLOWDOWN 1.0
#endif

static double time_scale(void) {
    const char *s = getenv("THRONG_TIME_SCALE");
    return TH_TEST_SLOWDOWN * (s && atof(s) > 0 ? atof(s) : 1.0);
}

/* Loads `path` (a scene written to the test folder) and checks the outcome against `c`. */
static void check_case(const bad_case *c, const char *name) {
    th_error err;
    memset(&err, 0, sizeof err);
    th_scene_info info;
    double t0 = now();
    th_world *w = th_scene_load(th_test_file(name), &(th_scene_opts){.threads = 1}, &info, &err);
    double dt = now() - t0;
    if (getenv("THRONG_ROBUSTNESS_PRINT")) {
        const char *m = strstr(err.message, name);
        printf("%s\t%.2fs\t%s\n", c->what, dt, w ? "loads" : m ? m : err.message);
    }
    if (w) th_world_destroy(w);
    ck_assert_msg(dt <= c->seconds * time_scale(), "%s: took %.2f s, bound %.2f s", c->what, dt,
                  c->seconds * time_scale());
    if (c->expect == LOADS) {
        ck_assert_msg(w != NULL, "%s: refused: %s", c->what, err.message);
        return;
    }
    ck_assert_msg(w == NULL, "%s: loaded although it should be refused", c->what);
    /* The place is in the error as numbers too, and the code is a known one: the YAML layer's
     * own for a file that is not YAML a scene can be (no key path), another otherwise. */
    ck_assert_msg(err.line == c->line && (c->column == 0 || err.column == c->column),
                  "%s: expected line %u column %u, found %u, %u", c->what, c->line, c->column,
                  (unsigned)err.line, (unsigned)err.column);
    ck_assert_msg(strcmp(th_error_code_name(err.code), "TH_ERR_UNKNOWN") != 0 && err.code != TH_OK,
                  "%s: code %d", c->what, (int)err.code);
    if (!c->path[0]) TH_TEST_ERR(err, TH_ERR_SCENE_SYNTAX);
    else ck_assert_msg(err.code != TH_ERR_SCENE_SYNTAX, "%s: a YAML error with a key", c->what);
    char where[96];
    if (c->column) snprintf(where, sizeof where, "%s:%u:%u: ", name, c->line, c->column);
    else snprintf(where, sizeof where, "%s:%u:", name, c->line); /* the column is libyaml's */
    ck_assert_msg(strstr(err.message, where) != NULL, "%s: expected '%s' in: %s", c->what, where,
                  err.message);
    if (c->path[0]) {
        char key[160];
        snprintf(key, sizeof key, ": %s", c->path);
        ck_assert_msg(strstr(err.message, key) != NULL, "%s: expected key '%s' in: %s", c->what,
                      c->path, err.message);
    }
    ck_assert_msg(strstr(err.message, c->message) != NULL, "%s: expected '%s' in: %s", c->what,
                  c->message, err.message);
    for (const unsigned char *p = (const unsigned char *)err.message; *p; p++) {
        ck_assert_msg(*p >= 32 && *p != 127, "%s: control byte in: %s", c->what, err.message);
        /* nor a C1 control (U+0080 to U+009F) or a bidi override or isolate, in UTF-8 */
        ck_assert_msg(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f), "%s: C1 control in: %s",
                      c->what, err.message);
        ck_assert_msg(!(p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
                                         (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))),
                      "%s: bidi character in: %s", c->what, err.message);
    }
}

START_TEST(hostile_scene_fails_cleanly) {
    const bad_case *c = &k_cases[_i];
    buf b = {0};
    if (c->gen) c->gen(&b);
    else put(&b, c->yaml, c->len);
    (void)th_test_write("scene.yaml", b.data, b.len);
    free(b.data);
    check_case(c, "scene.yaml");
}
END_TEST

START_TEST(case_table_is_large_enough) {
    ck_assert_uint_ge(sizeof k_cases / sizeof k_cases[0], 60);
}
END_TEST

/* ---- image maps ------------------------------------------------------------------------ */

typedef struct image_case {
    const char *what;
    void (*make)(void); /* writes map.png (or whatever `image` names) */
    const char *image;  /* the scene's `image` value */
    outcome expect;
    const char *message;
} image_case;

static void png_ok(void) { write_png("map.png", 6, 5); }
static void png_4096(void) { write_png("map.png", 4096, 1); }
static void png_4097(void) { write_png("map.png", 4097, 1); }
static void png_truncated(void) {
    write_png("map.png", 6, 5);
    ck_assert_int_eq(truncate(th_test_file("map.png"), 40), 0);
}
static void png_empty(void) { (void)th_test_write("map.png", "", 0); }
static void png_not_png(void) { (void)th_test_write("map.png", "GIF89a......", 12); }
/* A valid header claiming 0 x 0 pixels. */
static void png_zero(void) {
    static const unsigned char hdr[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0,   0, 0, 13,
                                        'I',  'H', 'D', 'R', 0,    0,    0,    0,    0,   0, 0, 0,
                                        8,    2,   0,   0,   0,    0x00, 0x00, 0x00, 0x00};
    (void)th_test_write("map.png", hdr, sizeof hdr);
}
static void png_fifo(void) {
    unlink(th_test_file("fifo.png"));
    ck_assert_int_eq(mkfifo(th_test_file("fifo.png"), 0600), 0);
}
static void png_dir(void) { mkdir(th_test_file("dir.png"), 0700); }
static void nothing(void) {}

// clang-format off
static const image_case k_images[] = {
    {"a small PNG", png_ok, "map.png", LOADS, NULL},
    {"a 4096 x 1 PNG", png_4096, "map.png", LOADS, NULL},
    {"a 4097 x 1 PNG", png_4097, "map.png", REFUSED, "expected an image of 1 to 4096 pixels a side, found 4097 x 1"},
    {"a truncated PNG", png_truncated, "map.png", REFUSED, "cannot read"},
    {"an empty file", png_empty, "map.png", REFUSED, "the file is empty"},
    {"not a PNG", png_not_png, "map.png", REFUSED, "cannot read"},
    {"a 0 x 0 PNG header", png_zero, "map.png", REFUSED, "cannot read"},
    {"a missing file", nothing, "nowhere.png", REFUSED, "No such file or directory"},
    /* Regression: a FIFO blocked the loader in open() until a writer came. */
    {"a FIFO", png_fifo, "fifo.png", REFUSED, "not a regular file"},
    {"a directory", png_dir, "dir.png", REFUSED, "not a regular file"},
    {"/dev/zero", nothing, "/dev/zero", REFUSED, "found an absolute path"},
    /* Regression: map.image read any file, /etc/shadow included, and the message told
     * whether it existed. Outside the scene's folder is refused by name, before any lookup. */
    {"../../etc/passwd", nothing, "../../etc/passwd", REFUSED, "expected a file inside the scene's folder, found a path with '..'"},
    {"/etc/shadow", nothing, "/etc/shadow", REFUSED, "expected a file inside the scene's folder, found an absolute path"},
    {"a '..' inside the name", png_ok, "dir.png/../map.png", REFUSED, "found a path with '..'"},
};
// clang-format on

START_TEST(hostile_image_fails_cleanly) {
    const image_case *c = &k_images[_i];
    c->make();
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: t\nmap:\n  cell_size: 1\n  image: %s\n"
             "  legend: {'#000000': wall, '#ffffff': open}\n"
             "crowds:\n  - {name: a, count: 3, spawn: {cells: '#ffffff'}}\n",
             c->image);
    (void)th_test_write("image.yaml", yaml, strlen(yaml));
    bad_case bc = {c->what, NULL, 0, NULL, c->expect, 4, 10, "map.image", c->message, 2};
    check_case(&bc, "image.yaml");
}
END_TEST

/* Loads `image` as the map of in/scene.yaml (below the test folder); the message, or "" when
 * it loads. */
static const char *load_image_scene(const char *image, const char *legend, bool allow) {
    static char msg[sizeof(((th_error *)0)->message)];
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: t\nmap:\n  cell_size: 1\n  image: %s\n  legend: {%s}\n"
             "crowds:\n  - {name: a, count: 3, spawn: {cells: '#ffffff'}}\n",
             image, legend);
    (void)th_test_write("in/scene.yaml", yaml, strlen(yaml));
    th_error err;
    memset(&err, 0, sizeof err);
    th_world *w =
        th_scene_load(th_test_file("in/scene.yaml"),
                      &(th_scene_opts){.threads = 1, .allow_outside_paths = allow}, NULL, &err);
    if (w) th_world_destroy(w);
    snprintf(msg, sizeof msg, "%s", w ? "" : err.message);
    return msg;
}

#define WB "'#000000': wall, '#ffffff': open"

/* Files a scene names stay inside its folder: absolute paths, `..` and symbolic links are
 * refused unless allowed, with the same answer whether or not the file outside exists, and
 * no message shows a pixel's colour. */
START_TEST(image_paths_stay_inside) {
    mkdir(th_test_file("in"), 0700);
    mkdir(th_test_file("in/maps"), 0700);
    write_png("secret.png", 6, 5); /* outside in/ */
    write_png("in/map.png", 6, 5);
    write_png("in/maps/m.png", 6, 5);
    unlink(th_test_file("in/link.png"));
    unlink(th_test_file("in/dangling.png"));
    unlink(th_test_file("in/up"));
    ck_assert_int_eq(symlink("../secret.png", th_test_file("in/link.png")), 0);
    ck_assert_int_eq(symlink("../nothing.png", th_test_file("in/dangling.png")), 0);
    ck_assert_int_eq(symlink("..", th_test_file("in/up")), 0);
    /* inside: plain names and sub-folders load */
    ck_assert_str_eq(load_image_scene("map.png", WB, false), "");
    ck_assert_str_eq(load_image_scene("./maps/m.png", WB, false), "");
    ck_assert_str_eq(load_image_scene("maps//m.png", WB, false), "");
    /* outside: one answer for a file that exists and one that does not */
    char a[600], b[600];
    snprintf(a, sizeof a, "%s", load_image_scene("../secret.png", WB, false));
    snprintf(b, sizeof b, "%s", load_image_scene("../nothing.png", WB, false));
    ck_assert_msg(strstr(a, "map.image: expected a file inside the scene's folder") != NULL, "%s",
                  a);
    ck_assert_str_eq(a, b);
    snprintf(a, sizeof a, "%s", load_image_scene(th_test_file("secret.png"), WB, false));
    snprintf(b, sizeof b, "%s", load_image_scene(th_test_file("nothing.png"), WB, false));
    ck_assert_msg(strstr(a, "found an absolute path") != NULL, "%s", a);
    ck_assert_str_eq(a, b);
    snprintf(a, sizeof a, "%s", load_image_scene("link.png", WB, false));
    snprintf(b, sizeof b, "%s", load_image_scene("dangling.png", WB, false));
    ck_assert_msg(strstr(a, "found a symbolic link") != NULL, "%s", a);
    ck_assert_str_eq(a, b);
    snprintf(a, sizeof a, "%s", load_image_scene("up/secret.png", WB, false));
    snprintf(b, sizeof b, "%s", load_image_scene("up/nothing.png", WB, false));
    ck_assert_msg(strstr(a, "found a symbolic link") != NULL, "%s", a);
    ck_assert_str_eq(a, b);
    /* the explicit flag lets each of them through */
    ck_assert_str_eq(load_image_scene("../secret.png", WB, true), "");
    ck_assert_str_eq(load_image_scene(th_test_file("secret.png"), WB, true), "");
    ck_assert_str_eq(load_image_scene("link.png", WB, true), "");
    ck_assert_str_eq(load_image_scene("up/secret.png", WB, true), "");
    /* Regression: an unknown colour was quoted (#rrggbb), so with outside paths allowed a
     * message leaked bytes of any file that decoded as a PNG. */
    const char *m = load_image_scene("map.png", "'#ffffff': open", false);
    ck_assert_msg(strstr(m, "pixel (0, 0) has a colour that is not in map.legend") != NULL, "%s",
                  m);
    ck_assert_msg(strchr(m, '#') == NULL, "a colour in: %s", m);
}
END_TEST

/* Valid but extreme scenes also run: a few steps stay bounded and keep the invariants. */
START_TEST(extreme_scenes_step) {
    static const char *const yaml[] = {
        "name: t\nmap: {cell_size: 1, legend: {'.': open, '#': wall}, ascii: \".#.\"}\n"
        "crowds:\n  - {name: a, count: 3000, spawn: {rect: [0, 0, 3, 1]}, max_speed: 1000}\n",
        "name: t\nworld: {size: [0.001, 0.001], bounds: walls}\n"
        "crowds:\n  - {name: a, count: 2000, spawn: {rect: [0, 0, 0.001, 0.001]}}\n",
        MAP3 MCROWD "events:\n  - {at_step: 0, block: [0, 0, 4, 2]}\n  - {at_step: 1, open: "
                    "[0, 0, 4, 2]}\n",
    };
    for (size_t i = 0; i < sizeof yaml / sizeof yaml[0]; i++) {
        (void)th_test_write("scene.yaml", yaml[i], strlen(yaml[i]));
        th_error err;
        th_world *w =
            th_scene_load(th_test_file("scene.yaml"), &(th_scene_opts){.threads = 2}, NULL, &err);
        ck_assert_msg(w != NULL, "%zu: %s", i, err.message);
        double t0 = now();
        for (int s = 0; s < 5; s++) th_world_step(w);
        ck_assert(now() - t0 < 5.0 * time_scale());
        th_world_stats st = th_world_get_stats(w);
        ck_assert_uint_eq(st.agents + st.sheltered, st.spawned);
        th_world_def d = th_world_get_def(w);
        th_agent_view v = th_world_agents(w);
        for (uint32_t k = 0; k < v.count; k++) {
            ck_assert(v.px[k] >= 0 && v.px[k] < d.width && v.py[k] >= 0 && v.py[k] < d.height);
        }
        th_world_destroy(w);
    }
}
END_TEST

int main(void) {
    if (!th_test_dir_make("robustness")) return EXIT_FAILURE;
    Suite *s = suite_create("robustness");
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, hostile_scene_fails_cleanly, 0,
                        (int)(sizeof k_cases / sizeof k_cases[0]));
    tcase_add_test(tc, case_table_is_large_enough);
    tcase_add_loop_test(tc, hostile_image_fails_cleanly, 0,
                        (int)(sizeof k_images / sizeof k_images[0]));
    tcase_add_test(tc, extreme_scenes_step);
    tcase_add_test(tc, image_paths_stay_inside);
    suite_add_tcase(s, tc);
    int rc = th_test_run(s);
    if (!th_test_dir_remove()) return EXIT_FAILURE;
    return rc;
}
