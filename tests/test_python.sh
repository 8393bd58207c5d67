#!/usr/bin/env bash
# The Python package (python/): built on this build's library and tested with pytest
# (python/tests: the report and hash against the command line's, arrays, errors, leaks,
# threads); then installed the way the documentation says, `pip install --no-build-isolation`,
# on the library as `cmake --install` leaves it (found through pkg-config), and run.
#
# Skipped (77) without a Python that has numpy, pytest and the headers to build extensions
# (Debian: python3-dev python3-numpy python3-pytest python3-setuptools; pip: python3-pip).
#
# usage: test_python.sh BUILD_DIR SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

build=${1:?usage: test_python.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: test_python.sh BUILD_DIR SOURCE_DIR}
need_executable "$build/throng"
build=$(cd "$build" && pwd)
src=$(cd "$src" && pwd)

# The first interpreter that can build and test the package: THRONG_PYTHON, python3 on the
# PATH, Debian's own.
py=""
for cand in ${THRONG_PYTHON:-} python3 /usr/bin/python3; do
    command -v "$cand" >/dev/null || continue
    if "$cand" - <<'CHECK' 2>/dev/null; then py=$cand; break; fi
import os, sysconfig, numpy, pytest, setuptools
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
CHECK
done
if [[ -z $py ]]; then
    echo "SKIP: no python3 with numpy, pytest, setuptools and Python.h"
    exit 77
fi
echo "python: $py ($("$py" -c 'import sys; print(sys.version.split()[0])'))"

# ---- built on the build tree, the whole suite ---------------------------------------------
cd "$src/python"
if THRONG_BUILD_DIR=$build timeout 300 "$py" setup.py -q build --force --build-base "$tmp/b" \
    --build-lib "$tmp/lib" >"$tmp/out" 2>"$tmp/err"; then
    pass "the extension builds with -Wall -Wextra -Werror on $build"
else fail "the extension builds" "exit $?"; finish; fi
# From the scratch folder: python/ on the path would import the sources, which lack the build.
cd "$tmp"
if THRONG_CLI=$build/throng PYTHONPATH=$tmp/lib timeout 900 "$py" -m pytest -q -p no:cacheprovider \
    "$src/python/tests" >"$tmp/out" 2>"$tmp/err"; then
    pass "pytest: $(tail -1 "$tmp/out")"
else
    fail "pytest" "$(grep -E '^(FAILED|ERROR)' "$tmp/out" | head -10)"
    tail -40 "$tmp/out"
fi

# ---- the examples (with matplotlib) ------------------------------------------------------
if "$py" -c 'import matplotlib' 2>/dev/null; then
    bin=$build/throng
    run run "$src/scenes/rubble.yaml" --steps 1500 --headless
    want=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/out" | cut -d' ' -f2)
    if PYTHONPATH=$tmp/lib timeout 300 "$py" "$src/examples/python/evacuation.py" \
        "$src/scenes/rubble.yaml" --agents 0 --steps 1500 -o "$tmp/evac.png" >"$tmp/out" 2>"$tmp/err" \
        && [[ -s $tmp/evac.png ]] && grep -q "hash $want" "$tmp/out"; then
        pass "examples/python/evacuation.py draws the curve of the command line's run ($want)"
    else fail "examples/python/evacuation.py" "exit $?, command line hash '$want'"; fi
    # Speeds within RiMEA test 4's 25 % of Weidmann's at 1 and 3 persons/m2, as the scene's own
    # tests ask over longer runs.
    if PYTHONPATH=$tmp/lib timeout 300 "$py" "$src/examples/python/fundamental_diagram.py" \
        --densities 1,3 --duration 10 -o "$tmp/fd.png" >"$tmp/out" 2>"$tmp/err" && [[ -s $tmp/fd.png ]] \
        && awk 'NR > 1 && NF == 4 { n++; if ($3 < 0.75 * $4 || $3 > 1.25 * $4) bad++ }
                END { exit !(n == 2 && !bad) }' "$tmp/out"; then
        pass "examples/python/fundamental_diagram.py: speeds near Weidmann's"
    else fail "examples/python/fundamental_diagram.py" "exit $?"; fi
else
    echo "SKIP: matplotlib (python3-matplotlib) for the examples"
fi

# ---- without numpy: one line that says how to get it ----------------------------------------
mkdir -p "$tmp/nonumpy/numpy"
echo 'raise ImportError("No module named numpy")' >"$tmp/nonumpy/numpy/__init__.py"
(cd "$src/python" && PYTHONPATH=$tmp/nonumpy timeout 60 "$py" setup.py --version >"$tmp/out" 2>"$tmp/err")
nrc=$?
if [[ $nrc -ne 0 && $(wc -l <"$tmp/err") -eq 1 ]] && grep -q "needs numpy: apt-get install python3-numpy" "$tmp/err"; then
    pass "without numpy, setup.py stops with one line saying how to get it"
else fail "without numpy" "exit $nrc, stderr $(wc -l <"$tmp/err") line(s)"; fi

# ---- pip on the installed library ---------------------------------------------------------
if ! "$py" -m pip --version >/dev/null 2>&1; then
    echo "SKIP: pip (python3-pip) for the install check"
    finish
fi
bin=cmake
run --install "$build" --prefix "$tmp/prefix"
pc=$(find "$tmp/prefix" -name throng.pc | head -1)
# pip builds in python/ itself: leave no earlier build there to be reused.
rm -rf "$src/python/build" "$src"/python/*.egg-info
if [[ $rc -eq 0 && -n $pc ]] && PKG_CONFIG_PATH=$(dirname "$pc") THRONG_BUILD_DIR= timeout 300 \
    "$py" -m pip install -q --no-build-isolation --no-deps --no-index --target "$tmp/site" \
    "$src/python" >"$tmp/out" 2>"$tmp/err"; then
    pass "pip install --no-build-isolation ./python on the installed library (pkg-config)"
else fail "pip install on the installed library" "exit $?"; fi
rm -rf "$src/python/build" "$src"/python/*.egg-info
bin=$build/throng
run run "$src/scenes/rubble.yaml" --steps 200 --seed 4 --threads 2 --headless
want=$(grep -o '^hash 0x[0-9a-f]*' "$tmp/out" | cut -d' ' -f2)
got=$(cd "$tmp" && PYTHONPATH=$tmp/site "$py" -c "
import throng, sys
assert throng.__file__.startswith('$tmp/site'), throng.__file__
w = throng.load(sys.argv[1], seed=4, threads=2)
w.step(200)
print(f'0x{w.hash():016x}')" "$src/scenes/rubble.yaml" 2>"$tmp/err")
if [[ -n $want && $got == "$want" ]]; then pass "the installed package gives the command line's hash ($got)"
else fail "installed package" "python '$got', command line '$want'"; fi

# ---- a wheel, installed into a clean virtual environment ----------------------------------
# The venv sees the system's numpy (--system-site-packages) and nothing of the build.
if "$py" -m venv --help >/dev/null 2>&1; then
    rm -rf "$src/python/build" "$src"/python/*.egg-info
    if [[ -n $pc ]] && PKG_CONFIG_PATH=$(dirname "$pc") THRONG_BUILD_DIR= timeout 300 \
        "$py" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$tmp/wheel" \
        "$src/python" >"$tmp/out" 2>"$tmp/err" && ls "$tmp"/wheel/throng-*.whl >/dev/null 2>&1; then
        pass "pip wheel --no-build-isolation ./python: $(basename "$tmp"/wheel/throng-*.whl)"
    else fail "pip wheel" "exit $?"; fi
    rm -rf "$src/python/build" "$src"/python/*.egg-info
    if "$py" -m venv --system-site-packages "$tmp/venv" >"$tmp/out" 2>"$tmp/err" &&
        "$tmp/venv/bin/python" -m pip install -q --no-index --no-deps "$tmp"/wheel/throng-*.whl \
            >"$tmp/out" 2>"$tmp/err"; then
        got=$(cd "$tmp" && "$tmp/venv/bin/python" -c "
import throng, sys
assert throng.__file__.startswith('$tmp/venv'), throng.__file__
assert callable(throng.read_results)
w = throng.load(sys.argv[1], seed=4, threads=2)
w.step(200)
print(f'0x{w.hash():016x}')" "$src/scenes/rubble.yaml" 2>"$tmp/err")
        if [[ -n $want && $got == "$want" ]]; then pass "the wheel in a clean venv gives the command line's hash"
        else fail "the wheel in a clean venv" "python '$got', command line '$want'"; fi
    else fail "the wheel installs into a clean venv" "exit $?"; fi
else
    echo "SKIP: venv (python3-venv) for the wheel check"
fi

finish
