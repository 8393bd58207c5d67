#!/usr/bin/env bash
# Plot a `throng bench --csv` file: throughput against agent count (one line per thread count,
# log scale) and against thread count (one line per agent count; dashed, linear scaling from the
# 1-thread figure up to the core count). Error bars span the min and max of the repetitions.
#
#   bench/plot.sh results.csv plot.png [CORES]     (CORES defaults to nproc)
#   ./dev plot results.csv plot.png [CORES]        the same, installing gnuplot-nox first
#
# Make the CSV with `throng bench --csv results.csv` (e.g. --agents 10000,100000,1000000
# --threads 1,2). Needs bash, awk and gnuplot with the pngcairo terminal (Debian: gnuplot-nox).
set -euo pipefail

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 0
fi

csv=${1:?usage: plot.sh results.csv plot.png}
png=${2:?usage: plot.sh results.csv plot.png}
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot is needed (./dev plot installs it, or apt-get install gnuplot-nox)" >&2; exit 1; }
cores=${3:-$(nproc)}
[[ $cores =~ ^[1-9][0-9]*$ ]] || { echo "plot.sh: CORES must be a positive integer" >&2; exit 1; }
[[ -r $csv ]] || { echo "plot.sh: cannot read '$csv'" >&2; exit 1; }

# Columns are found by name, so the script survives columns being added to the CSV. Each group
# becomes an inline datablock: gnuplot then draws one connected line per group without having
# to filter rows itself (a filtered-out point would otherwise break or bridge the line).
script=$(awk -F, -v cores="$cores" '
NR == 1 {
    for (i = 1; i <= NF; i++) col[$i] = i
    if (!("agents" in col) || !("threads" in col) || !("agent_steps_per_s" in col)) {
        print "plot.sh: not a throng bench CSV" > "/dev/stderr"; exit 1
    }
    next
}
{
    a = $col["agents"]; t = $col["threads"]; scene = $col["scene"]
    r = $col["agent_steps_per_s"] / 1e6; lo = $col["min"] / 1e6; hi = $col["max"] / 1e6
    if (!(a in seen_a)) { seen_a[a] = 1; agents[na++] = a }
    if (!(t in seen_t)) { seen_t[t] = 1; threads[nt++] = t }
    by_t[t] = by_t[t] sprintf("%s %.4f %.4f %.4f\n", a, r, lo, hi)
    by_a[a] = by_a[a] sprintf("%s %.4f %.4f %.4f\n", t, r, lo, hi)
    if (t == 1) one[a] = r
    if (t + 0 > maxt) maxt = t + 0
    if (mina == "" || a + 0 < mina) mina = a + 0
    if (a + 0 > maxa) maxa = a + 0
}
END {
    for (i = 0; i < nt; i++) printf("$t%s << EOD\n%sEOD\n", threads[i], by_t[threads[i]])
    for (i = 0; i < na; i++) printf("$a%s << EOD\n%sEOD\n", agents[i], by_a[agents[i]])
    printf("set multiplot layout 1,2 title \"throng bench, scene %s: agent-steps per second (median, min-max)\" font \",12\"\n", scene)
    print "set xlabel \"agents\"; set ylabel \"million agent-steps / s\"; set logscale x"
    print "set format x \"%.0s%c\"; set yrange [0:*]; set key bottom right"
    printf("set xrange [%g:%g]\n", mina / 1.6, maxa * 1.6)
    printf("plot ")
    for (i = 0; i < nt; i++)
        printf("%s$t%s using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 title \"%s thread%s\"",
               i ? ", " : "", threads[i], threads[i], threads[i] == 1 ? "" : "s")
    print ""
    print "unset logscale x; set format x \"%g\"; set xlabel \"threads\"; set xtics 1; set key top left"
    printf("set xrange [0.5:%d.5]\n", maxt)
    printf("plot ")
    for (i = 0; i < na; i++) {
        a = agents[i]
        label = a >= 1000000 ? sprintf("%gM", a / 1e6) : (a >= 1000 ? sprintf("%gk", a / 1e3) : a)
        printf("%s$a%s using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 lc %d title \"%s agents\"",
               i ? ", " : "", a, i + 1, label)
        if (a in one) {
            printf(", x >= 1 && x <= %d ? x * %.4f : 1/0 with lines dt 2 lw 1 lc rgb \"gray50\" ", cores, one[a])
            if (!ideal++) printf("title \"linear to %d cores\"", cores)
            else printf("notitle")
        }
    }
    print ""
    print "unset multiplot"
}' "$csv")

gnuplot <<GP
set terminal pngcairo size 1100,440 font "DejaVu Sans,10"
set output "$png"
set grid
set samples 200
$script
GP
echo "plot.sh: wrote $png"
