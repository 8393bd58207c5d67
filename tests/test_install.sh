#!/usr/bin/env bash
# throng as a library a user embeds: `cmake --install` puts headers, libraries, throng.pc and the
# CMake package under a prefix; the examples build against that installed copy through
# find_package(throng) and through pkg-config and run; and a host project that pulls the source
# tree in with add_subdirectory() builds the library alone, without the viewer's SDL2 or the
# tests' Check.
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
    include/throng/clock.h include/throng/viewer.h; do
    if [[ -f $prefix/$f ]]; then pass "installed $f"; else fail "installed $f" "missing"; fi
done
pc=$(find "$prefix" -name throng.pc -path '*pkgconfig*' | head -1)
cfg=$(find "$prefix" -name throngConfig.cmake | head -1)
if [[ -n $pc ]]; then pass "installed throng.pc"; else fail "installed throng.pc" "missing"; fi
if [[ -n $cfg ]]; then pass "installed throngConfig.cmake"; else fail "installed throngConfig.cmake" "missing"; fi
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
if $cc -std=c17 "$src/examples/viewer.c" $(pkg-config --cflags --libs throng-viewer) -o "$tmp/v2" 2>"$tmp/err"; then
    pass "viewer example builds with pkg-config"
else fail "viewer example builds with pkg-config" "$(head -3 "$tmp/err")"; fi

# ---- add_subdirectory: the library alone ---------------------------------------------------
mkdir -p "$tmp/host"
cat >"$tmp/host/CMakeLists.txt" <<HOST
cmake_minimum_required(VERSION 3.21)
project(host LANGUAGES C)
add_subdirectory("$src" throng)
add_executable(host "$src/examples/minimal.c")
target_link_libraries(host PRIVATE throng::throng)
HOST
bin=cmake
run -S "$tmp/host" -B "$tmp/host/build" -DCMAKE_BUILD_TYPE=Release
[[ $rc -eq 0 ]] && run --build "$tmp/host/build" -j 2
if [[ $rc -eq 0 && -x $tmp/host/build/host ]]; then pass "add_subdirectory builds the library for a host project"
else fail "add_subdirectory" "exit $rc"; fi
if ! grep -q '^SDL2_FOUND\|^CHECK_FOUND' "$tmp/host/build/CMakeCache.txt" && [[ ! -e $tmp/host/build/throng/throng ]]; then
    pass "add_subdirectory looks for neither SDL2 nor Check and builds no command line"
else fail "add_subdirectory pulls in the viewer or tests" "SDL2 or Check in the cache"; fi

finish
