/* libFuzzer target: the scene loader, from YAML bytes to a built world and its first steps.
 * Inputs are parsed from memory (no temporary files) under the name "fuzz.yaml", so every
 * error message must start with "fuzz.yaml:LINE:COLUMN: ". */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_scene_bytes("fuzz.yaml", data, size);
    return 0;
}
