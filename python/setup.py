"""Build the throng Python package: one C extension, throng._throng, on the throng library.

Where the library comes from, first found wins:

1. THRONG_BUILD_DIR=DIR: a throng build tree (DIR/libthrong.a, built by CMake from this
   source tree); headers from ../include.
2. pkg-config throng: an installed throng (`cmake --install`), with PKG_CONFIG_PATH pointing
   at its lib/pkgconfig when the prefix is not a standard one.
3. ../build/release/libthrong.a: the default build of this source tree (./dev build).

The run report (World.report) and the results folder (World.write_results) are the command
line's own code, app/report.c and app/results.c (pictures through Cairo and fontconfig, found
with pkg-config: libcairo2-dev), compiled into the extension, so that they give what
`throng run --json` and `--results` give.

    pip install --no-build-isolation ./python

pyproject.toml names the build system (setuptools, PEP 517/518); --no-build-isolation builds
with the setuptools and numpy already installed (Debian's python3-setuptools and
python3-numpy), offline. `pip wheel --no-build-isolation ./python` makes a wheel.
"""
import os
import shlex
import subprocess

from setuptools import Extension, setup

try:
    import numpy
except ImportError:
    raise SystemExit("throng: building the Python package needs numpy: apt-get install "
                     "python3-numpy (Debian, Ubuntu), or pip install numpy") from None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
APP = os.path.join(ROOT, "app")


def from_build_dir(build):
    lib = os.path.join(build, "libthrong.a")
    if not os.path.exists(lib):
        raise SystemExit(f"throng: {lib} does not exist (build throng first: ./dev build)")
    return dict(include_dirs=[os.path.join(ROOT, "include")], extra_objects=[lib],
                libraries=["yaml", "png", "m"], extra_link_args=["-pthread"])


def from_pkg_config():
    try:
        cflags = subprocess.run(["pkg-config", "--cflags", "throng"], check=True,
                                capture_output=True, text=True).stdout
        libs = subprocess.run(["pkg-config", "--libs", "throng"], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    inc = [f[2:] for f in shlex.split(cflags) if f.startswith("-I")]
    libdirs = [f[2:] for f in shlex.split(libs) if f.startswith("-L")]
    names = [f[2:] for f in shlex.split(libs) if f.startswith("-l")]
    other = [f for f in shlex.split(libs) if not f.startswith(("-L", "-l"))]
    return dict(include_dirs=inc, library_dirs=libdirs, libraries=names,
                runtime_library_dirs=libdirs, extra_link_args=other)


def library():
    if os.environ.get("THRONG_BUILD_DIR"):
        return from_build_dir(os.path.abspath(os.environ["THRONG_BUILD_DIR"]))
    found = from_pkg_config()
    if found:
        return found
    default = os.path.join(ROOT, "build", "release")
    if os.path.exists(os.path.join(default, "libthrong.a")):
        return from_build_dir(default)
    raise SystemExit("throng: no throng library found: set THRONG_BUILD_DIR to a build tree, "
                     "install throng where pkg-config finds it, or build ../build/release")


def version():
    with open(os.path.join(ROOT, "include", "throng", "version.h")) as f:
        for line in f:
            if line.startswith("#define TH_VERSION_STRING"):
                return line.split('"')[1]
    return "0.0.0"


def cairo():
    """Cairo and fontconfig, which the results' pictures are drawn with (World.write_results,
    as `throng run --results`)."""
    try:
        cflags = subprocess.run(["pkg-config", "--cflags", "cairo", "fontconfig"], check=True,
                                capture_output=True, text=True).stdout
        libs = subprocess.run(["pkg-config", "--libs", "cairo", "fontconfig"], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit("throng: Cairo and fontconfig are needed (the results' pictures): "
                         "apt-get install libcairo2-dev (Debian, Ubuntu)") from None
    return ([f[2:] for f in shlex.split(cflags) if f.startswith("-I")],
            [f[2:] for f in shlex.split(libs) if f.startswith("-l")])


lib = library()
cairo_inc, cairo_libs = cairo()
lib["include_dirs"] = lib.get("include_dirs", []) + [APP, numpy.get_include()] + cairo_inc
lib["libraries"] = lib.get("libraries", []) + cairo_libs
ext = Extension(
    "throng._throng",
    # The command line's own code for the run report and the results (tables, pictures, page).
    sources=["throng/_throng.c"] + [os.path.relpath(os.path.join(APP, f), HERE)
                                     for f in ("report.c", "ranks.c", "results.c", "plot.c",
                                               "output.c")],
    define_macros=[("THRONG_VERSION", f'"{version()}"'), ("THRONG_BUILD_TYPE", '"python"'),
                   ("_POSIX_C_SOURCE", "200809L")],
    extra_compile_args=["-std=c17", "-Wall", "-Wextra", "-Werror",
                        "-ffp-contract=off"],
    **lib,
)

setup(
    name="throng",
    version=version(),
    description="Deterministic multithreaded crowd simulation (Python interface to libthrong)",
    packages=["throng"],
    package_data={"throng": ["*.pyi", "py.typed"]},
    ext_modules=[ext],
    python_requires=">=3.9",
    install_requires=["numpy"],
)
