#!/usr/bin/env bash
# throng as a library a user embeds: `cmake --install` puts headers, libraries, throng.pc and the
# CMake package under a prefix; the examples build against that installed copy through
# find_package(throng) and through pkg-config and run; and a host project that pulls the source
# tree in with add_subdirectory() builds the library alone, without the viewer's SDL2 or the
# tests' Check. A C++ host (examples/host.cpp) builds both ways too, steps worlds on its own
# threads with the state hash of the command line, and links the core alone (throng::core,
# throng-core.pc) without libyaml and libpng. The game loop example runs scripted frames
# without a display.
#
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

build=${1:?usage: test_install.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: test_install.sh BUILD_DIR SOURCE_DIR}
need cmake "to install and to build the examples"
need pkg-config "to build the examples from throng.pc"
prefix=$tmp/prefix

# ---- install --------------------------------------------------------------------------
bin=cmake
run --install "$build" --prefix "$prefix"
if [[ $rc -eq 0 ]]; then pass "cmake --install"; else fail "cmake --install" "exit $rc"; fi
for f in include/throng/throng.h include/throng/error.h include/throng/vec2.h include/throng/api.h \
    include/throng/clock.h include/throng/viewer.h include/throng/version.h; do
    if [[ -f $prefix/$f ]]; then pass "installed $f"; else fail "installed $f" "missing"; fi
done
pc=$(find "$prefix" -name throng.pc -path '*pkgconfig*' | head -1)
cfg=$(find "$prefix" -name throngConfig.cmake | head -1)
if [[ -n $pc ]]; then pass "installed throng.pc"; else fail "installed throng.pc" "missing"; fi
if [[ -f $(dirname "$pc")/throng-core.pc ]]; then pass "installed throng-core.pc"
else fail "installed throng-core.pc" "missing"; fi
if [[ -n $cfg ]]; then pass "installed throngConfig.cmake"; else fail "installed throngConfig.cmake" "missing"; fi
# The scene library beside the command, found by name from anywhere (here: a folder with no
# scenes/ of its own, and the build tree's scenes out of reach by the name of a scene that is
# only in the installed copy).
if [[ -f $prefix/share/throng/scenes/air_raid.yaml && -f $prefix/share/throng/scenes/validation/door_flow.yaml ]]; then
    pass "installed the scene library (share/throng/scenes)"
else fail "installed the scene library" "missing under $prefix/share/throng/scenes"; fi
if [[ -x $prefix/bin/throng ]]; then
    cp "$prefix/share/throng/scenes/office.yaml" "$prefix/share/throng/scenes/only_installed.yaml"
    mkdir -p "$tmp/elsewhere"
    (cd "$tmp/elsewhere" && timeout 120 "$prefix/bin/throng" check only_installed >"$tmp/out" 2>"$tmp/err")
    rc=$?
    if [[ $rc -eq 0 ]]; then pass "the installed command finds its scenes by name"
    else fail "the installed command finds its scenes by name" "exit $rc"; fi
fi
# Nothing private is installed: only the public headers.
extra=$(find "$prefix/include" -type f ! -path '*/throng/*' | head -3)
if [[ -z $extra ]]; then pass "only include/throng/ headers installed"; else fail "only public headers" "$extra"; fi

# ---- the examples through find_package ----------------------------------------------------
bin=cmake
run -S "$src/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
[[ $rc -eq 0 ]] && run --build "$tmp/ex"
if [[ $rc -eq 0 && -x $tmp/ex/minimal && -x $tmp/ex/viewer ]]; then pass "examples build with find_package(throng)"
else fail "examples build with find_package(throng)" "exit $rc"; fi
bin=$tmp/ex/minimal
run
hash_cmake=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/out")
if [[ $rc -eq 0 ]] && grep -q 'sheltered' "$tmp/out" && grep -q '^bunker west .*destroyed' "$tmp/out"; then
    pass "minimal example runs: $(head -1 "$tmp/out")"
else fail "minimal example runs" "exit $rc"; fi
run "$src/scenes/rubble.yaml"
if [[ $rc -eq 0 ]] && grep -q '^hash ' "$tmp/out"; then pass "minimal example loads a scene"
else fail "minimal example loads a scene" "exit $rc"; fi
# The C++ host: its own thread pool gives the built-in pool's hash, and the command line's for
# the same scene, steps and threads.
scene=$src/scenes/rubble.yaml
bin=$build/throng
run run "$scene" --steps 120 --threads 2 --headless
hash_cli=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/out")
bin=$tmp/ex/host
run "$scene" 120 2
hash_host=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/out")
if [[ $rc -eq 0 && -n $hash_cli && $hash_host == "$hash_cli" ]] && grep -q 'built-in pool hash .*: same' "$tmp/out"; then
    pass "C++ host (find_package) steps a scene on its own threads: $hash_host, as the command line"
else fail "C++ host (find_package)" "exit $rc, host '$hash_host', command line '$hash_cli'"; fi
run
hash_code=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/out")
if [[ $rc -eq 0 && -n $hash_code ]]; then pass "C++ host builds a world in code"; else fail "C++ host, world in code" "exit $rc"; fi
bin=$tmp/ex/host_core
run
if [[ $rc -eq 0 && $(grep -o '^hash 0x[0-9a-f]*' "$tmp/out") == "$hash_code" ]]; then
    pass "C++ host on throng::core: the same world and hash"
else fail "C++ host on throng::core" "exit $rc"; fi
if command -v readelf >/dev/null && ! readelf -d "$bin" | grep -Eq 'libyaml|libpng' \
    && ! nm "$bin" 2>/dev/null | grep -q 'th_scene_load'; then
    pass "throng::core links neither libyaml nor libpng nor the scene loader"
else fail "throng::core" "libyaml, libpng or th_scene_load in $bin"; fi
# find_package(throng COMPONENTS core) looks for neither libyaml nor libpng.
mkdir -p "$tmp/core"
cat >"$tmp/core/CMakeLists.txt" <<CORE
cmake_minimum_required(VERSION 3.21)
project(core_host LANGUAGES CXX)
find_package(throng 0.1 REQUIRED COMPONENTS core)
add_executable(host_core "$src/examples/host.cpp")
target_compile_features(host_core PRIVATE cxx_std_17)
target_compile_definitions(host_core PRIVATE HOST_CODE_ONLY)
target_link_libraries(host_core PRIVATE throng::core)
CORE
bin=cmake
run -S "$tmp/core" -B "$tmp/core/build" -DCMAKE_PREFIX_PATH="$prefix"
[[ $rc -eq 0 ]] && run --build "$tmp/core/build"
if [[ $rc -eq 0 && -x $tmp/core/build/host_core ]] && ! grep -Eq '^(YAML|PNG)_FOUND' "$tmp/core/build/CMakeCache.txt"; then
    pass "find_package(throng COMPONENTS core) needs neither libyaml nor libpng"
else fail "find_package(throng COMPONENTS core)" "exit $rc, or libyaml / libpng looked up"; fi
# The game loop (examples/game.c): a scripted hero for 240 frames without a display, on 1 and
# on 3 threads: the same hash (the host's steering between steps is deterministic), the hero
# walked from where it started, the shelter the script clicks is destroyed, folk sheltered.
if [[ -x $tmp/ex/game ]]; then
    SDL_VIDEODRIVER=dummy timeout 120 "$tmp/ex/game" --frames 240 --threads 1 >"$tmp/g1" 2>"$tmp/err"
    r1=$?
    SDL_VIDEODRIVER=dummy timeout 120 "$tmp/ex/game" --frames 240 --threads 3 --shot "$tmp/game.bmp" \
        >"$tmp/g3" 2>"$tmp/err"
    r3=$?
    cp "$tmp/g3" "$tmp/out"
    h1=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/g1")
    if [[ $r1 -eq 0 && $r3 -eq 0 && -n $h1 ]] && cmp -s "$tmp/g1" "$tmp/g3" &&
        ! grep -q 'hero at 36.00 20.00' "$tmp/g1" && grep -q '^west shelter: destroyed' "$tmp/g1" &&
        [[ -s $tmp/game.bmp ]]; then
        pass "game example: 240 scripted frames, the same run on 1 and 3 threads ($h1)"
    else fail "game example" "exit $r1 / $r3"; fi
else fail "game example" "not built (SDL2 missing?)"; fi
bin=$tmp/ex/viewer
(cd "$tmp" && SDL_VIDEODRIVER=dummy timeout 120 "$bin" >"$tmp/out" 2>"$tmp/err")
rc=$?
if [[ $rc -eq 0 && -s $tmp/plaza.png ]]; then pass "viewer example: own loop, then a screenshot without a display"
else fail "viewer example" "exit $rc"; fi

# ---- the examples through pkg-config -----------------------------------------------------
export PKG_CONFIG_PATH=$(dirname "$pc")
cc=${CC:-cc}
if $cc -std=c17 "$src/examples/minimal.c" $(pkg-config --cflags --libs throng) -o "$tmp/m2" 2>"$tmp/err"; then
    pass "minimal example builds with pkg-config"
    bin=$tmp/m2
    run
    if [[ $rc -eq 0 && $(grep -o '^hash 0x[0-9a-f]*' "$tmp/out") == "$hash_cmake" ]]; then
        pass "same hash from the pkg-config build"
    else fail "same hash from the pkg-config build" "exit $rc"; fi
else fail "minimal example builds with pkg-config" "$(head -3 "$tmp/err")"; fi
cxx=${CXX:-c++}
if $cxx -std=c++17 -Wall -Wextra -Wpedantic -Werror "$src/examples/host.cpp" $(pkg-config --cflags --libs throng) \
    -o "$tmp/h2" 2>"$tmp/err"; then
    bin=$tmp/h2
    run "$scene" 120 2
    if [[ $rc -eq 0 && $(grep -o '^hash 0x[0-9a-f]*' "$tmp/out") == "$hash_cli" ]]; then
        pass "C++ host builds with pkg-config (-Wall -Wextra -Wpedantic -Werror) and gives the same hash"
    else fail "C++ host with pkg-config" "exit $rc"; fi
else fail "C++ host builds with pkg-config" "$(head -3 "$tmp/err")"; fi
if $cxx -std=c++17 -Wall -Wextra -Wpedantic -Werror -DHOST_CODE_ONLY "$src/examples/host.cpp" \
    $(pkg-config --cflags --libs throng-core) -o "$tmp/h3" 2>"$tmp/err"; then
    bin=$tmp/h3
    run
    if [[ $rc -eq 0 && $(grep -o '^hash 0x[0-9a-f]*' "$tmp/out") == "$hash_code" ]]; then
        pass "C++ host builds with pkg-config throng-core and gives the same hash"
    else fail "C++ host with throng-core" "exit $rc"; fi
else fail "C++ host builds with pkg-config throng-core" "$(head -3 "$tmp/err")"; fi
# Every public header compiles as C++ (strict) and its functions link with C linkage.
cat >"$tmp/all.cpp" <<'ALL'
#include <throng/api.h>
#include <throng/clock.h>
#include <throng/error.h>
#include <throng/throng.h>
#include <throng/vec2.h>
#include <throng/version.h>
#include <throng/viewer.h>
#include <cstring>
int main() {
    th_agent_id none = TH_INVALID_AGENT;
    th_vec2 v = th_v2_norm(th_v2(3, 4));
    th_clock c = th_clock_make(1.0 / 60.0, 4);
    return (std::strcmp(th_error_code_name(TH_ERR_NOMEM), "TH_ERR_NOMEM") == 0 &&
            std::strcmp(th_version(), TH_VERSION_STRING) == 0 && !th_agent_id_valid(none) &&
            v.x > 0.59f && v.x < 0.61f && c.max_steps == 4 && th_view_cell_color(TH_CELL_WALL) != 0)
               ? 0 : 1;
}
ALL
if $cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror "$tmp/all.cpp" $(pkg-config --cflags --libs throng-viewer) \
    -o "$tmp/all" 2>"$tmp/err" && "$tmp/all"; then
    pass "every public header compiles as C++11 and links"
else fail "public headers from C++" "$(head -3 "$tmp/err")"; fi
if $cc -std=c17 "$src/examples/viewer.c" $(pkg-config --cflags --libs throng-viewer) -o "$tmp/v2" 2>"$tmp/err"; then
    pass "viewer example builds with pkg-config"
else fail "viewer example builds with pkg-config" "$(head -3 "$tmp/err")"; fi

# ---- add_subdirectory: the library alone ---------------------------------------------------
# Both projects below compile the library again, in the host's Debug (CMake's own flags, no
# optimiser: a host's flags are its own, and unoptimised code gives the same floating-point
# results, so the hash comparisons hold); the optimised build is the one installed above.
mkdir -p "$tmp/host"
cat >"$tmp/host/CMakeLists.txt" <<HOST
cmake_minimum_required(VERSION 3.21)
project(host LANGUAGES C)
add_subdirectory("$src" throng)
add_executable(host "$src/examples/minimal.c")
target_link_libraries(host PRIVATE throng::throng)
HOST
bin=cmake
run -S "$tmp/host" -B "$tmp/host/build" -DCMAKE_BUILD_TYPE=Debug
[[ $rc -eq 0 ]] && run --build "$tmp/host/build" -j 2
if [[ $rc -eq 0 && -x $tmp/host/build/host ]]; then pass "add_subdirectory builds the library for a host project"
else fail "add_subdirectory" "exit $rc"; fi
if ! grep -q '^SDL2_FOUND\|^CHECK_FOUND' "$tmp/host/build/CMakeCache.txt" && [[ ! -e $tmp/host/build/throng/throng ]]; then
    pass "add_subdirectory looks for neither SDL2 nor Check and builds no command line"
else fail "add_subdirectory pulls in the viewer or tests" "SDL2 or Check in the cache"; fi

# THRONG_SCENES=OFF: the core alone, built without looking for libyaml or libpng (a host that
# builds its worlds in code, on a machine without them); the C++ host's world, the same hash.
mkdir -p "$tmp/bare"
cat >"$tmp/bare/CMakeLists.txt" <<BARE
cmake_minimum_required(VERSION 3.21)
project(bare LANGUAGES C CXX)
set(THRONG_SCENES OFF CACHE BOOL "" FORCE)
add_subdirectory("$src" throng)
add_executable(host_core "$src/examples/host.cpp")
target_compile_features(host_core PRIVATE cxx_std_17)
target_compile_definitions(host_core PRIVATE HOST_CODE_ONLY)
target_link_libraries(host_core PRIVATE throng::core)
BARE
bin=cmake
run -S "$tmp/bare" -B "$tmp/bare/build" -DCMAKE_BUILD_TYPE=Debug
[[ $rc -eq 0 ]] && run --build "$tmp/bare/build" -j 2 --target host_core
if [[ $rc -eq 0 ]] && ! grep -Eq '^(YAML|PNG)_FOUND' "$tmp/bare/build/CMakeCache.txt"; then
    bin=$tmp/bare/build/host_core
    run
    if [[ $rc -eq 0 && $(grep -o '^hash 0x[0-9a-f]*' "$tmp/out") == "$hash_code" ]]; then
        pass "THRONG_SCENES=OFF builds the core without libyaml and libpng: the same world and hash"
    else fail "THRONG_SCENES=OFF host" "exit $rc"; fi
else fail "THRONG_SCENES=OFF" "exit $rc, or libyaml / libpng looked up"; fi

finish
