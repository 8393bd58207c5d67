# Shared by the suites whose cases a generator writes (test_gridlock_cli.sh,
# test_flows_cli.sh): sourced after lib.sh, never run. tests/case_suite.py says what a
# generator gives.
#
#   run_case_suite GEN BIN [--quick] [CASE...]
#
# writes every case's scene with one Python process, runs each as
#
#   BIN run SCENE --headless --validate --threads 1 --seed S --json J --measure M
#
# side by side, one per core (THRONG_TEST_JOBS to choose), and again at 2 threads where the
# generator compares the state hash, then judges them all with one Python process: a pass or a
# failure per criterion, the criteria across cases, the table of measured values.

# case_suite_run CASE: the runs of one case; their exit code in $tmp/CASE.rc.
case_suite_run() {
    local c=$1 extra rc
    read -r -a extra <"$tmp/$c.args"
    # A case runs for minutes of simulated time: more than lib.sh's 300 s under sanitizers.
    timeout 1800 "$bin" run "$tmp/$c.yaml" --headless --validate --threads 1 "${extra[@]}" \
        --json "$tmp/$c.json" --measure "$tmp/$c.csv" >"$tmp/$c.out" 2>&1
    rc=$?
    if [[ $rc -eq 0 && -e $tmp/$c.twice ]]; then
        timeout 1800 "$bin" run "$tmp/$c.yaml" --headless --threads 2 "${extra[@]}" \
            --json "$tmp/$c.2.json" >/dev/null 2>&1
    fi
    echo "$rc" >"$tmp/$c.rc"
}

run_case_suite() {
    local gen=$1 quick= cases verdict what why
    bin=$2
    shift 2
    need_executable "$bin"
    need python3 "to write the scenes and read the results"
    if [[ ${1:-} == --quick ]]; then
        quick=--quick
        shift
    fi
    if [[ $# -gt 0 ]]; then cases=("$@")
    else mapfile -t cases < <(python3 "$gen" list $quick); fi
    if ! python3 "$gen" prepare "$tmp" "${cases[@]}" >"$tmp/out" 2>"$tmp/err"; then
        fail "writing the scenes" "$gen prepare failed"
        return
    fi
    export -f case_suite_run
    export bin tmp
    printf '%s\n' "${cases[@]}" | while read -r c; do [[ -e $tmp/$c.yaml ]] && echo "$c"; done |
        xargs -P "${THRONG_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}" -I{} \
            bash -c 'case_suite_run "$@"' _ {}
    python3 "$gen" judge "$tmp" "${cases[@]}" >"$tmp/judged" 2>"$tmp/err"
    local judged=$?
    : >"$tmp/out"
    while IFS=$'\t' read -r verdict what why; do
        case $verdict in
            ok) pass "$what" ;;
            FAIL) fail "$what" "$why" ;;
            *) printf '%s\n' "$verdict" ;;
        esac
    done <"$tmp/judged"
    [[ $judged -eq 0 ]] || fail "judging the runs" "$gen judge exit $judged"
}
