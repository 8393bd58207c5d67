/* libFuzzer target: the PNG map reader. Each input is written to a private file and read as
 * the `image` of two fixed scenes: one whose legend draws two bunkers (so decodable inputs
 * reach bunker placement, fleeing and an event) and one without (so images that draw no
 * bunker still reach spawning and the first steps). */
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    for (int i = 0; i < 2; i++)
        fuzz_scene_bytes(g_name, g_yaml[i], strlen(g_yaml[i]));
    return 0;
}
