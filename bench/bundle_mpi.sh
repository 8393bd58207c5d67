#!/usr/bin/env bash
# Add this machine's Open MPI runtime to a .devrun/ bundle, so that `mpirun ... throng run` (and
# bench/mpi_scaling.sh) works on a machine with no Open MPI of its own, on one node over shared
# memory (the 16-core Intel machine). Run it after bundling the MPI build:
#
#   cmake -S . -B build/mpi -DCMAKE_BUILD_TYPE=Release -DTHRONG_MPI=ON && cmake --build build/mpi --target throng_cli
#   ../shared/tools/bundle-build.sh build/mpi && bench/bundle_mpi.sh
#
# There, from bash, in the checkout's root:
#   . .devrun/mpienv.sh && mpirun --oversubscribe --bind-to none -np 4 .devrun/throng run flock --headless
#   . .devrun/mpienv.sh && bench/mpi_scaling.sh .devrun/throng
#
# Layout: .devrun/ompi/ stands for the configure prefix (/usr), with the launcher (orterun as
# mpirun and mpiexec, orted, ompi_info), the MCA components, the help files and the PMIx
# components under the same relative paths; a directory outside the prefix keeps its whole
# path (sysconfdir /etc/openmpi: .devrun/ompi/etc/openmpi). Every shared library these load goes
# to .devrun/lib beside throng's, except the C library's own (libc, libm, ld-linux, ...), which
# the other machine has.
#
# Open MPI moves with OPAL_PREFIX (its paths are configured as ${prefix}/...; `ompi_info --path
# all` shows them) except sysconfdir, which OPAL_SYSCONFDIR moves. Debian's PMIx 4 is configured
# with absolute paths under its own prefix, so PMIX_PREFIX alone moves nothing: its lib, data and
# sysconf dirs are set one by one (its pmix-mca-params.conf only names the system's component
# path, so the copy leaves it out). mpienv.sh sets all of these from where it lies, so the bundle
# can be moved.
#
# Left out: components that load libraries a plain machine lacks and that one node does not use
# (UCX, libfabric/OFI, verbs/openib, PSM, PSM2) and the OpenSHMEM ones (liboshmem); the C++,
# Fortran and Java bindings (throng links only libmpi); the compiler wrappers; hwloc's plugins
# (PCI, OpenCL, GL, libxml2 XML; its core finds the cores and caches without them), which
# HWLOC_PLUGINS_PATH keeps the other machine's own hwloc, if any, from supplying.
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
[ -x .devrun/throng ] || { echo "bundle_mpi.sh: no .devrun/throng: run ../shared/tools/bundle-build.sh build/mpi first" >&2; exit 1; }
# (ldd's output is read whole before grep: grep -q leaving early would fail the pipe.)
throng_deps=$(ldd .devrun/throng)
grep -q 'libmpi\.so' <<<"$throng_deps" || { echo "bundle_mpi.sh: .devrun/throng is not an MPI build (-DTHRONG_MPI=ON)" >&2; exit 1; }
command -v ompi_info >/dev/null || { echo "bundle_mpi.sh: ompi_info not found: Open MPI (openmpi-bin) is needed here" >&2; exit 1; }

# Where this Open MPI lies, as it reports it (Debian: prefix /usr).
paths=$(ompi_info --parsable --path all)
path() { awk -F: -v k="$1" '$1 == "path" && $2 == k {print $3; exit}' <<<"$paths"; }
prefix=$(path prefix)
bindir=$(path bindir)
pkglibdir=$(path pkglibdir)
pkgdatadir=$(path pkgdatadir)
sysconfdir=$(path sysconfdir)
dest=.devrun/ompi
under() { # PATH -> its place in the bundle: its path under the prefix, or its whole path
    case $1 in "$prefix"/*) echo "$dest/${1#"$prefix"/}" ;; *) echo "$dest$1" ;; esac
}
rm -rf "$dest" .devrun/mpienv.sh
mkdir -p "$(under "$bindir")" "$(under "$pkglibdir")" "$(under "$pkgdatadir")" "$(under "$sysconfdir")"

# Libraries that only fabrics other than shared memory (or OpenSHMEM) need: a component that
# loads one of them is left out, with its dependencies.
fabric='^(libucp|libucs|libuct|libucm|libfabric|libibverbs|librdmacm|libefa|libpsm_infinipath|libinfinipath|libpsm2|liboshmem|libmca_common_(ucx|ofi|verbs))\.'

# Copy FILE's shared libraries (ldd: the whole closure) into .devrun/lib, as bundle-build.sh
# does; a library ldd cannot find here is an error, not a gap found on the other machine.
copy_deps() {
    local f=$1 missing
    missing=$(ldd "$f" | awk '/=> not found/ {print $1}')
    [ -z "$missing" ] || { echo "bundle_mpi.sh: $f needs $missing, not found here" >&2; exit 1; }
    ldd "$f" | awk '/=> \// {print $3}' | while read -r lib; do
        case $(basename "$lib") in libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux*) ;;
        *) [ -e ".devrun/lib/$(basename "$lib")" ] || cp -L "$lib" .devrun/lib/ ;; esac
    done
}

# The launcher: mpirun and mpiexec are orterun (symlinks there). orted starts ranks on other
# nodes only, but is small; ompi_info shows where the bundle's Open MPI looks (--path all).
for b in orterun orted ompi_info; do
    cp -L "$bindir/$b" "$(under "$bindir")/"
    copy_deps "$bindir/$b"
done
ln -s orterun "$(under "$bindir")/mpirun"
ln -s orterun "$(under "$bindir")/mpiexec"

# MCA components.
kept=0
skipped=()
for so in "$pkglibdir"/mca_*.so; do
    needs=$(ldd "$so" | awk '/=>/ {print $1}')
    if grep -Eq "$fabric" <<<"$needs"; then
        skipped+=("$(basename "$so" .so)")
        continue
    fi
    cp "$so" "$(under "$pkglibdir")/"
    copy_deps "$so"
    kept=$((kept + 1))
done

# Help files (the text of every warning and error) and the parameter sets of --tune/--am;
# not the compiler wrappers' data.
for f in "$pkgdatadir"/*; do
    case $(basename "$f") in *-wrapper-data.txt | *.supp | mca-btl-openib-*) ;;
    *) cp -r "$f" "$(under "$pkgdatadir")/" ;; esac
done
# The system's MCA defaults (Debian turns off the fabric components and their warnings there).
for f in "$sysconfdir"/openmpi-mca-params.conf "$sysconfdir"/openmpi-default-hostfile; do
    if [ -f "$f" ]; then cp "$f" "$(under "$sysconfdir")/"; fi
done

# PMIx: the library comes with the pmix component's dependencies above; its prefix is the
# library's directory's parent (Debian: /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so.2).
pmixlib=$(ldd "$pkglibdir"/mca_pmix_ext3x.so | awk '$1 ~ /^libpmix\.so/ {print $3}')
[ -n "$pmixlib" ] || { echo "bundle_mpi.sh: mca_pmix_ext3x.so links no libpmix" >&2; exit 1; }
pmixprefix=$(dirname "$(dirname "$(readlink -f "$pmixlib")")")
pmixdest=$(under "$pmixprefix")
mkdir -p "$pmixdest/lib/pmix" "$pmixdest/share/pmix"
for so in "$pmixprefix"/lib/pmix/*.so; do
    cp "$so" "$pmixdest/lib/pmix/"
    copy_deps "$so"
done
cp "$pmixprefix"/share/pmix/help-*.txt "$pmixdest/share/pmix/"

# What to source there. Paths are taken from where the file lies, so .devrun/ can move.
rel() { echo "${1#.devrun/}"; }
cat >.devrun/mpienv.sh <<EOF
# Source from bash (. .devrun/mpienv.sh): puts the bundled Open MPI runtime
# ($(ompi_info --parsable | sed -n 's/^ompi:version:full://p'), added by bench/bundle_mpi.sh) first, wherever .devrun/ lies.
here=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$here/$(rel "$dest")
export OPAL_SYSCONFDIR=\$here/$(rel "$(under "$sysconfdir")")
export PATH=\$here/$(rel "$(under "$bindir")"):\$PATH
export LD_LIBRARY_PATH=\$here/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
# PMIx 4 reads PMIX_PREFIX, but Debian's paths are absolute, so each directory is named too:
# components from PMIX_LIBDIR/pmix, help files from PMIX_DATADIR/pmix, the params file from
# PMIX_SYSCONFDIR (left out here, so the system's, naming its own component path, is not read).
export PMIX_PREFIX=\$here/$(rel "$pmixdest")
export PMIX_LIBDIR=\$PMIX_PREFIX/lib PMIX_DATADIR=\$PMIX_PREFIX/share PMIX_SYSCONFDIR=\$PMIX_PREFIX/share
# hwloc's plugins are left out: a directory that does not exist, so that machine's own, if any, stay out.
export HWLOC_PLUGINS_PATH=\$here/$(rel "$dest")/lib/hwloc
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EOF

echo "Open MPI runtime added: $kept MCA components (left out: ${skipped[*]:-none})"
du -sh .devrun | awk '{print "bundled " $1 " in .devrun/ (carry [\".devrun\"]; limit 64 MiB with the tree)"}'
