/* libFuzzer target: the PNG map reader. Each input is written to a private file and read as
 * the `image` of two fixed scenes: one whose legend draws two bunkers (so decodable inputs
 * reach bunker placement, fleeing and an event) and one without (so images that draw no
 * bunker still reach spawning and the first steps). */
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_png[64];
static char g_yaml[2][1024];

static void setup(void) {
    snprintf(g_png, sizeof g_png, "/tmp/throng_fuzz_image_%d.png", (int)getpid());
    snprintf(g_yaml[0], sizeof g_yaml[0],
             "name: image fuzz\n"
             "map:\n"
             "  cell_size: 1\n"
             "  image: %s\n"
             "  legend: {'#000000': wall, '#ffffff': open, '#808080': destructible,\n"
             "           '#00a000': {terrain: 3}, '#ff0000': {bunker: red},\n"
             "           '#0000ff': {bunker: blue}}\n"
             "crowds:\n"
             "  - {name: a, count: 20, behavior: flee, spawn: {cells: '#ffffff'}}\n"
             "events:\n"
             "  - {at_step: 1, destroy_bunker: red}\n",
             g_png);
    snprintf(g_yaml[1], sizeof g_yaml[1],
             "name: image fuzz\n"
             "map:\n"
             "  cell_size: 0.5\n"
             "  image: %s\n"
             "  legend: {'#000000': wall, '#ffffff': open, '#808080': destructible,\n"
             "           '#00a000': {terrain: 3}}\n"
             "crowds:\n"
             "  - {name: a, count: 20, spawn: {cells: '#ffffff'}}\n",
             g_png);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_png[0]) setup();
    FILE *f = fopen(g_png, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    for (int i = 0; i < 2; i++)
        fuzz_scene_bytes("image.yaml", g_yaml[i], strlen(g_yaml[i]));
    return 0;
}
