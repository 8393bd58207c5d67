#!/usr/bin/env bash
# The C sources are formatted as .clang-format says (Debian 12's clang-format 14: other
# versions format a few constructs differently, so the check runs with that one only).
# Reformat with `./dev format`.
set -u
. "$(dirname "$0")/lib.sh"
root=$1

need clang-format "to check the formatting"
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [[ $major != 14 ]]; then
    echo "skip: clang-format $major here; the tree is formatted with clang-format 14"
    exit 77
fi
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.c' '*.h' | grep -v '^bench/peers/')
else
    mapfile -t files < <(find app bench engine examples fuzz include render sim tests \
        -name '*.[ch]' -not -path 'bench/peers/*' | sort)
fi
[[ ${#files[@]} -gt 50 ]] && pass "found ${#files[@]} C files" || fail "C files" "found ${#files[@]}"
if clang-format --dry-run --Werror "${files[@]}" >"$tmp/out" 2>"$tmp/err"; then
    pass "every file is formatted"
else
    fail "every file is formatted" "$(grep -c 'code should be clang-formatted' "$tmp/err") places; run ./dev format"
fi
finish
