#!/usr/bin/env bash
# bench.sh [options] BUILD_DIR - the budget run (DESIGN.md, "Budgets").
#
# Every Qvfs workload runs INTERLEAVED with its baseline in the same run, on tmpfs,
# several times; ONE table of medians is printed at the end.
#
# Options:
#   --quick           small data sets and 3 runs (the ctest smoke test; < 30 s)
#   --clean           delete the data sets at the end (they are kept for reuse otherwise)
#   --strict          exit 1 when a bar is not met (default: only when something fails)
#   --baseline-only   do not run the Qvfs programs even if they are built
#   --no-1m           skip the 1,000,000-entry listing
#   --only LIST       comma-separated subset of: list,list1m,tree,stat,oneshot,copy,copytree
#   --runs N          measured runs per workload (default 5; 3 for 1M; 3 with --quick)
#
# Environment: QVFS_BENCH_DIR (default /dev/shm/qvfs-bench), CC (default cc).
#
# Qvfs programs and the output they must print (keys may be missing -> "n/a"):
#   BUILD_DIR/bin/listjob_benchmark [--recursive] --details full DIR
#     entries=N wall_ms=X first_batch_ms=Y app_peak_rss_kb=Z worker_peak_rss_kb=W
#     worker_cpu_ms=V app_allocs_per_entry=A app_heap_bytes_per_entry=B
#     worker_allocs_per_entry=C wire_bytes_per_entry=D
#   BUILD_DIR/bin/stat_benchmark 1000 DIR
#     stats=N wall_ms=X per_second=Y worker_starts=Z
#   BUILD_DIR/bin/qvfs cp [-r] SRC DST ; BUILD_DIR/bin/qvfs stat FILE (timed from outside)
# A program that is not built shows "missing" in its row; one that fails or prints
# nothing parseable shows "FAILED" and makes the script exit 1.
# The baseline `floor` is BUILD_DIR/bin/floor if built, else tests/floor.c is compiled
# into the bench directory.
set -euo pipefail
if locale -a 2>/dev/null | grep -qix 'c.utf-\?8'; then
    export LC_ALL=C.UTF-8   # '.' decimal point in EPOCHREALTIME, ${#s} counts characters
else
    export LC_ALL=C
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

quick=0 clean=0 strict=0 baseline_only=0 no1m=0 only="" runs_opt=""
while [[ $# -gt 0 ]]; do
    case $1 in
        --quick) quick=1 ;;
        --clean) clean=1 ;;
        --strict) strict=1 ;;
        --baseline-only) baseline_only=1 ;;
        --no-1m) no1m=1 ;;
        --only) only=${2:?--only needs a list}; shift ;;
        --only=*) only=${1#--only=} ;;
        --runs) runs_opt=${2:?--runs needs a number}; shift ;;
        --runs=*) runs_opt=${1#--runs=} ;;
        -h|--help) usage ;;
        --) shift; break ;;
        -*) echo "bench.sh: unknown option $1" >&2; usage ;;
        *) break ;;
    esac
    shift
done
[[ $# -eq 1 ]] || usage
build=$(cd "$1" 2>/dev/null && pwd) || { echo "bench.sh: no build directory $1" >&2; exit 2; }
bin=$build/bin
[[ -z $runs_opt || $runs_opt =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: bad --runs" >&2; exit 2; }

B=${QVFS_BENCH_DIR:-/dev/shm/qvfs-bench}
mkdir -p "$B"
B=$(cd "$B" && pwd)
tools=$B/.tools logs=$B/logs
mkdir -p "$tools" "$logs"
if [[ -z ${XDG_RUNTIME_DIR:-} ]]; then
    export XDG_RUNTIME_DIR=$B/runtime
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi
fstype=$(stat -f -c %T "$B" 2>/dev/null || echo unknown)
[[ $fstype == tmpfs ]] || echo "bench.sh: warning: $B is on $fstype, not tmpfs; the bars assume tmpfs" >&2

# ---- sizes --------------------------------------------------------------------------
if (( quick )); then
    RUNS=${runs_opt:-3} RUNS1M=0
    FLAT_N=10000 TREE_D=2500 TREE_F=3 CT_D=20 CT_F=100 BIG_MB=16 STAT_N=1000 LOOP_N=20
else
    RUNS=${runs_opt:-5} RUNS1M=${runs_opt:-3}
    FLAT_N=100000 TREE_D=10000 TREE_F=3 CT_D=100 CT_F=200 BIG_MB=1024 STAT_N=1000 LOOP_N=300
fi
(( no1m )) && RUNS1M=0
TREE_N=$(( TREE_D * (TREE_F + 1) ))   # entries below the tree root
label_n() { # 100000 -> 100k, 1000000 -> 1M
    local n=$1
    if (( n % 1000000 == 0 )); then echo "$((n / 1000000))M"
    elif (( n % 1000 == 0 )); then echo "$((n / 1000))k"
    else echo "$n"; fi
}
if (( BIG_MB % 1024 == 0 )); then BIG_LABEL="$((BIG_MB / 1024)) GiB"; else BIG_LABEL="$BIG_MB MiB"; fi

want() { # workload name -> selected?
    [[ -z $only ]] && return 0
    [[ ",$only," == *",$1,"* ]]
}
for w in ${only//,/ }; do
    case $w in list|list1m|tree|stat|oneshot|copy|copytree) ;; *) echo "bench.sh: unknown workload $w" >&2; exit 2 ;; esac
done

# ---- tools --------------------------------------------------------------------------
cc=${CC:-cc}
floor=""
for f in "$bin/floor" "$build/tests/floor"; do
    [[ -x $f ]] && { floor=$f; break; }
done
if [[ -z $floor ]]; then
    floor=$tools/floor
    if [[ ! -x $floor || $here/floor.c -nt $floor ]]; then
        "$cc" -std=c11 -O2 -Wall -Wextra -o "$floor" "$here/floor.c"
    fi
fi

mkdata=$tools/mkdata
if [[ ! -x $mkdata || ${BASH_SOURCE[0]} -nt $mkdata ]]; then
    cat >"$tools/mkdata.c" <<'EOF'
/* data-set helper for bench.sh:
 *   mkdata files DIR COUNT SIZE          DIR/1.txt .. DIR/COUNT.txt
 *   mkdata tree DIR NDIRS NFILES SIZE    DIR/dI/fJ.txt
 *   mkdata big FILE MIB                  one file of MIB MiB of non-zero bytes */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
static char buf[1 << 20];
static void die(const char *w, const char *a) { fprintf(stderr, "mkdata: %s %s: %s\n", w, a, strerror(errno)); exit(1); }
static void fill(void) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof buf; i += 8) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; memcpy(buf + i, &x, 8); }
}
static void mkfile(int dfd, const char *name, long long size) {
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) die("open", name);
    while (size > 0) {
        size_t n = size > (long long)sizeof buf ? sizeof buf : (size_t)size;
        ssize_t w = write(fd, buf, n);
        if (w < 0) die("write", name);
        size -= w;
    }
    if (close(fd) != 0) die("close", name);
}
static int opendirfd(const char *p) {
    if (mkdir(p, 0755) != 0 && errno != EEXIST) die("mkdir", p);
    int d = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) die("open", p);
    return d;
}
int main(int argc, char **argv) {
    char name[64];
    fill();
    if (argc == 5 && !strcmp(argv[1], "files")) {
        long n = atol(argv[3]); long long sz = atoll(argv[4]);
        int d = opendirfd(argv[2]);
        for (long i = 1; i <= n; ++i) { snprintf(name, sizeof name, "%ld.txt", i); mkfile(d, name, sz); }
        return 0;
    }
    if (argc == 6 && !strcmp(argv[1], "tree")) {
        long nd = atol(argv[3]), nf = atol(argv[4]); long long sz = atoll(argv[5]);
        int root = opendirfd(argv[2]);
        for (long i = 1; i <= nd; ++i) {
            snprintf(name, sizeof name, "d%ld", i);
            if (mkdirat(root, name, 0755) != 0 && errno != EEXIST) die("mkdir", name);
            int d = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (d < 0) die("open", name);
            for (long j = 1; j <= nf; ++j) { snprintf(name, sizeof name, "f%ld.txt", j); mkfile(d, name, sz); }
            close(d);
        }
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "big")) {
        long long mib = atoll(argv[3]);
        mkfile(AT_FDCWD, argv[2], mib << 20);
        return 0;
    }
    fprintf(stderr, "usage: mkdata files DIR COUNT SIZE | tree DIR NDIRS NFILES SIZE | big FILE MIB\n");
    return 2;
}
EOF
    "$cc" -std=c11 -O2 -Wall -Wextra -o "$mkdata" "$tools/mkdata.c"
fi

# ---- data sets (reused when complete: a marker beside the set records its recipe) ----
dataset() { # NAME RECIPE...  -> path $B/NAME
    local name=$1; shift
    local path=$B/$name marker=$B/.ok-$name recipe="$*"
    if [[ -e $path && -f $marker && $(<"$marker") == "$recipe" ]]; then
        return 0
    fi
    rm -rf "$path" "$marker"
    echo "bench.sh: creating $path ($recipe)" >&2
    local t0=${EPOCHREALTIME/./}
    case $1 in
        files) "$mkdata" files "$path" "$2" "$3" ;;
        tree) "$mkdata" tree "$path" "$2" "$3" "$4" ;;
        big) "$mkdata" big "$path" "$2" ;;
    esac
    echo "$recipe" >"$marker"
    echo "bench.sh:   done in $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms" >&2
}

FLAT=$B/flat$(label_n "$FLAT_N")
TREE=$B/tree$(label_n "$TREE_D")x$TREE_F
FLAT_TREE_N=$B/flat$(label_n "$TREE_N")     # flat listing with as many entries as the tree
CTREE=$B/ctree${CT_D}x$CT_F
BIG=$B/big${BIG_MB}m
STATDIR=$B/stat$(label_n "$STAT_N")
FLAT1M=$B/flat1M

want list && dataset "${FLAT##*/}" files "$FLAT_N" 0
(( RUNS1M > 0 )) && want list1m && dataset flat1M files 1000000 0
if want tree; then
    dataset "${TREE##*/}" tree "$TREE_D" "$TREE_F" 64
    [[ -x $bin/listjob_benchmark && $baseline_only -eq 0 ]] && dataset "${FLAT_TREE_N##*/}" files "$TREE_N" 0
fi
{ want stat || want oneshot; } && dataset "${STATDIR##*/}" files "$STAT_N" 100
want copytree && dataset "${CTREE##*/}" tree "$CT_D" "$CT_F" 4096
want copy && dataset "${BIG##*/}" big "$BIG_MB"

# ---- measuring ----------------------------------------------------------------------
declare -A S=()       # samples: "tag.key" -> "v1 v2 ..."
declare -A STATE=()   # tag -> missing | FAILED
failed=0

add() { S[$1]+="$2 "; }

have() { # Qvfs program name -> built and allowed?
    (( baseline_only == 0 )) && [[ -x $bin/$1 ]]
}

# run TAG RECORD CMD... : time CMD from outside (ext_ms); when its output has key=value
# pairs, record them too. RECORD=0 for warm-up runs.
run() {
    local tag=$1 record=$2; shift 2
    local out=$logs/$tag.out rc=0 t0 t1
    t0=${EPOCHREALTIME/./}
    "$@" >"$out" 2>"$logs/$tag.err" || rc=$?
    t1=${EPOCHREALTIME/./}
    if (( rc != 0 )); then
        STATE[$tag]=FAILED failed=1
        echo "bench.sh: $tag failed (exit $rc): $*" >&2
        tail -n 5 "$logs/$tag.err" >&2 || true
        return 0
    fi
    (( record )) || return 0
    add "$tag.ext_ms" "$(( t1 - t0 ))e-3"
    local line
    line=$(grep -E '(^| )(wall_ms|stats)=' "$out" | tail -n 1 || true)
    if [[ ${PARSE:-0} == 1 && -z $line ]]; then
        STATE[$tag]=FAILED failed=1
        echo "bench.sh: $tag printed no key=value line: $*" >&2
        return 0
    fi
    local kv
    for kv in $line; do
        if [[ $kv == *=* ]]; then add "$tag.${kv%%=*}" "${kv#*=}"; fi
    done
    return 0
}

# run_null TAG RECORD CMD... : same, output thrown away (ls, find)
run_null() {
    local tag=$1 record=$2; shift 2
    local rc=0 t0 t1
    t0=${EPOCHREALTIME/./}
    "$@" >/dev/null 2>"$logs/$tag.err" || rc=$?
    t1=${EPOCHREALTIME/./}
    if (( rc != 0 )); then
        STATE[$tag]=FAILED failed=1
        echo "bench.sh: $tag failed (exit $rc): $*" >&2
        return 0
    fi
    (( record )) && add "$tag.ext_ms" "$(( t1 - t0 ))e-3"
    return 0
}

# interleave RUNS STEP... : one warm-up round, then RUNS rounds; the order of the steps
# flips every round. A step is a function name called as STEP RECORD ROUND.
interleave() {
    local n=$1; shift
    local steps=("$@") r i
    for ((r = 0; r <= n; ++r)); do
        if (( r % 2 == 1 )); then
            for ((i = 0; i < ${#steps[@]}; ++i)); do "${steps[i]}" $(( r > 0 )) "$r"; done
        else
            for ((i = ${#steps[@]} - 1; i >= 0; --i)); do "${steps[i]}" $(( r > 0 )) "$r"; done
        fi
    done
}

progress() { echo "bench.sh: $*" >&2; }

# -- flat listings
flat_steps() { # DIR TAGPREFIX
    FL_DIR=$1 FL_T=$2
}
st_q_list() { have listjob_benchmark && PARSE=1 run "$FL_T.q" "$1" "$bin/listjob_benchmark" --details full "$FL_DIR"; return 0; }
st_f_list() { PARSE=1 run "$FL_T.floor" "$1" "$floor" list "$FL_DIR"; }
st_ls_list() { run_null "$FL_T.ls" "$1" ls -f -l "$FL_DIR"; }
st_find_list() { run_null "$FL_T.find" "$1" find "$FL_DIR" -mindepth 1 -maxdepth 1 -printf '%f %s %T@ %m %U %G\n'; }
st_q_flat_tree() { have listjob_benchmark && PARSE=1 run "treeflat.q" "$1" "$bin/listjob_benchmark" --details full "$FLAT_TREE_N"; return 0; }

if want list; then
    progress "list $(label_n "$FLAT_N") x $RUNS"
    flat_steps "$FLAT" list
    interleave "$RUNS" st_q_list st_f_list st_ls_list st_find_list
fi
if want list && [[ -x $bin/listjob_benchmark && $baseline_only -eq 0 ]]; then
    # One more run, outside the timings, with the worker under a counting LD_PRELOAD
    # library (the fixed cost of a worker's life, measured on an empty folder, subtracted).
    progress "worker allocations, list $(label_n "$FLAT_N")"
    PARSE=1 run listalloc.q 1 "$bin/listjob_benchmark" --worker-allocs --details full "$FLAT"
fi
if (( RUNS1M > 0 )) && want list1m; then
    progress "list 1M x $RUNS1M"
    flat_steps "$FLAT1M" list1m
    interleave "$RUNS1M" st_q_list st_f_list st_ls_list st_find_list
fi

# -- recursive listing
st_q_tree() { have listjob_benchmark && PARSE=1 run tree.q "$1" "$bin/listjob_benchmark" --recursive --details full "$TREE"; return 0; }
st_f_tree() { PARSE=1 run tree.floor "$1" "$floor" listrec "$TREE"; }
st_find_tree() { run_null tree.find "$1" find "$TREE" -printf '%P %s %T@ %m %U %G\n'; }
if want tree; then
    progress "recursive tree $TREE_D x $TREE_F x $RUNS"
    interleave "$RUNS" st_q_tree st_f_tree st_find_tree st_q_flat_tree
fi

# -- stats
st_q_stat() { have stat_benchmark && PARSE=1 run stat.q "$1" "$bin/stat_benchmark" "$STAT_N" "$STATDIR"; return 0; }
st_f_stat() { PARSE=1 run stat.floor "$1" "$floor" stat "$STAT_N" "$STATDIR/1.txt"; }
if want stat; then
    progress "$STAT_N stats x $RUNS"
    interleave "$RUNS" st_q_stat st_f_stat
fi

# -- one stat per process (statloop.sh interleaves in blocks itself)
oneshot_line=""
if want oneshot; then
    progress "one-shot stat x $LOOP_N"
    qb=$build
    (( baseline_only )) && qb=$B/.no-qvfs
    if bash "$here/statloop.sh" "$qb" "$STATDIR/1.txt" "$LOOP_N" >"$logs/oneshot.out" 2>"$logs/oneshot.err"; then :; else
        failed=1; echo "bench.sh: statloop.sh failed" >&2; tail -n 5 "$logs/oneshot.err" >&2 || true
    fi
    oneshot_line=$(grep '^calls=' "$logs/oneshot.out" | tail -n 1 || true)
fi

# -- copies (destinations removed between runs, outside the timing)
pretouch() { # first touch of tmpfs memory is slow in a VM: touch it once before copying
    if [[ $fstype == tmpfs ]] && (( !quick )); then
        fallocate -l "$(( BIG_MB * 3 ))M" "$B/.pretouch" 2>/dev/null || true
        rm -f "$B/.pretouch"
    fi
}
verify_file() { # TAG SRC DST
    cmp -s "$2" "$3" || { STATE[$1]=FAILED failed=1; echo "bench.sh: $1: copy differs from the source" >&2; }
}
verify_tree() {
    diff -rq "$2" "$3" >/dev/null 2>&1 || { STATE[$1]=FAILED failed=1; echo "bench.sh: $1: copied tree differs from the source" >&2; }
}
st_q_copy() {
    have qvfs || return 0
    rm -rf "$B/dst-copy-q"
    run copy.q "$1" "$bin/qvfs" cp "$BIG" "$B/dst-copy-q"
    [[ $2 == 1 && -z ${STATE[copy.q]:-} ]] && verify_file copy.q "$BIG" "$B/dst-copy-q"
    rm -rf "$B/dst-copy-q"
}
st_c_copy() {
    rm -rf "$B/dst-copy-c"
    run copy.cp "$1" cp "$BIG" "$B/dst-copy-c"
    rm -rf "$B/dst-copy-c"
}
st_q_copytree() {
    have qvfs || return 0
    rm -rf "$B/dst-ctree-q"
    run copytree.q "$1" "$bin/qvfs" cp -r "$CTREE" "$B/dst-ctree-q"
    [[ $2 == 1 && -z ${STATE[copytree.q]:-} ]] && verify_tree copytree.q "$CTREE" "$B/dst-ctree-q"
    rm -rf "$B/dst-ctree-q"
}
st_c_copytree() {
    rm -rf "$B/dst-ctree-c"
    run copytree.cp "$1" cp -r --preserve=mode,timestamps "$CTREE" "$B/dst-ctree-c"
    rm -rf "$B/dst-ctree-c"
}
if want copy || want copytree; then pretouch; fi
if want copy; then
    progress "copy $BIG_LABEL x $RUNS"
    interleave "$RUNS" st_q_copy st_c_copy
fi
if want copytree; then
    progress "copy tree $CT_D x $CT_F x 4 KiB x $RUNS"
    interleave "$RUNS" st_q_copytree st_c_copytree
fi
rm -rf "$B"/dst-*

# ---- the table ----------------------------------------------------------------------
for k in "${!S[@]}"; do echo "$k ${S[$k]}"; done | sort >"$logs/samples.txt"
med() { # tag.key -> median or n/a
    local v=${S[$1]:-}
    [[ -z $v ]] && { echo n/a; return; }
    printf '%s\n' $v | sort -g | awk '{a[NR]=$1+0} END {
        m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
        if (m == int(m) && m < 1e6 && m > -1e6) printf "%d\n", m
        else if (m >= 100 || m <= -100) printf "%.0f\n", m
        else if (m >= 10 || m <= -10) printf "%.1f\n", m
        else printf "%.3g\n", m }'
}
minv() { # tag.key -> smallest sample or n/a
    local v=${S[$1]:-}
    [[ -z $v ]] && { echo n/a; return; }
    printf '%s\n' $v | sort -g | awk 'NR == 1 { printf "%.0f\n", $1 + 0 }'
}
isnum() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }
calc() { awk "BEGIN { $1 }"; }
ratio() { # a b -> a/b
    if isnum "$1" && isnum "$2" && calc "exit !($2 > 0)"; then calc "printf \"%.2fx\", $1 / $2"; else echo "-"; fi
}
le() { isnum "$1" && isnum "$2" && calc "exit !($1 <= $2)"; }
ge() { isnum "$1" && isnum "$2" && calc "exit !($1 >= $2)"; }

# qv PROGRAMTAG PROGRAM KEY -> the median, or missing / FAILED / n/a
qv() {
    local tag=$1 prog=$2 key=$3
    if (( baseline_only )) || [[ ! -x $bin/$prog ]]; then echo missing; return; fi
    [[ -n ${STATE[$tag]:-} ]] && { echo "${STATE[$tag]}"; return; }
    med "$tag.$key"
}
bv() { # baseline value
    local tag=$1 key=$2
    [[ -n ${STATE[$tag]:-} ]] && { echo "${STATE[$tag]}"; return; }
    med "$tag.$key"
}

rows=()
unmet=0
row() { # workload qvfs baseline ratio bar met extra
    rows+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"$'\t'"$5"$'\t'"$6"$'\t'"$7")
    [[ $6 == no ]] && unmet=1
    return 0
}
verdict() { # qvfs-value condition-command... -> yes/no/-
    local q=$1; shift
    isnum "$q" || { echo "-"; return; }
    if "$@"; then echo yes; else echo no; fi
}
check_entries() { # tag-q tag-baseline slack -> warning text when counts differ
    local a b
    a=$(med "$1.entries") b=$(med "$2.entries")
    if isnum "$a" && isnum "$b" && (( a - b > $3 || b - a > $3 )); then echo "; ENTRIES DIFFER: $a vs $b"; fi
}

list_row() { # tag label n
    local t=$1 label=$2 q f r extra
    q=$(qv "$t.q" listjob_benchmark wall_ms) f=$(bv "$t.floor" wall_ms) r=$(ratio "$q" "$f")
    extra="ls -f -l $(bv "$t.ls" ext_ms), find $(bv "$t.find" ext_ms); whole process: Qvfs $(qv "$t.q" listjob_benchmark ext_ms), floor $(bv "$t.floor" ext_ms); rss kB: Qvfs $(qv "$t.q" listjob_benchmark app_peak_rss_kb) (worker $(qv "$t.q" listjob_benchmark worker_peak_rss_kb)), floor $(bv "$t.floor" peak_rss_kb)"
    extra+=$(check_entries "$t.q" "$t.floor" 0)
    row "$label (ms) vs floor list" "$q" "$f" "$r" "≤ 1.5× floor" "$(verdict "$q" le "${r%x}" 1.5)" "$extra"
}
want list && list_row list "list $(label_n "$FLAT_N"), full details, keep all"
(( RUNS1M > 0 )) && want list1m && list_row list1m "list 1M, full details, keep all"

if want tree; then
    q=$(qv tree.q listjob_benchmark wall_ms) f=$(bv tree.floor wall_ms) r=$(ratio "$q" "$f")
    row "recursive $TREE_D×$TREE_F (ms) vs floor listrec" "$q" "$f" "$r" "≤ 1.5× floor" "$(verdict "$q" le "${r%x}" 1.5)" \
        "find $(bv tree.find ext_ms); rss kB: floor $(bv tree.floor peak_rss_kb); whole process: Qvfs $(qv tree.q listjob_benchmark ext_ms), floor $(bv tree.floor ext_ms)$(check_entries tree.q tree.floor 1)"
    q=$(qv tree.q listjob_benchmark app_peak_rss_kb) f=$(qv treeflat.q listjob_benchmark app_peak_rss_kb)
    lim=n/a; isnum "$f" && lim=$(( ${f%.*} + 2048 ))
    row "recursive $TREE_D×$TREE_F app peak RSS (kB) vs Qvfs flat $(label_n "$TREE_N")" "$q" "$f" "-" "≤ flat + 2048 kB" "$(verdict "$q" le "$q" "$lim")" \
        "floor listrec $(bv tree.floor peak_rss_kb) kB"
fi

if want stat; then
    q=$(qv stat.q stat_benchmark wall_ms) f=$(bv stat.floor wall_ms) r=$(ratio "$q" "$f")
    ps=$(qv stat.q stat_benchmark per_second) ws=$(qv stat.q stat_benchmark worker_starts)
    row "$STAT_N stats in one run (ms) vs floor statx" "$q" "$f" "$r" "≥ 10000/s, ≤ 1 worker start" \
        "$(verdict "$q" eval "ge '$ps' 10000 && le '$ws' 1")" "per_second $ps, worker_starts $ws; whole process: Qvfs $(qv stat.q stat_benchmark ext_ms), floor $(bv stat.floor ext_ms)"
fi

if want oneshot; then
    q=missing s=n/a calls=n/a g=missing
    for kv in $oneshot_line; do
        case $kv in
            qvfs_ms_per_call=*) q=${kv#*=} ;;
            stat_ms_per_call=*) s=${kv#*=} ;;
            gio_ms_per_call=*) g=${kv#*=} ;;
            calls=*) calls=${kv#*=} ;;
        esac
    done
    [[ $q == failed ]] && q=FAILED
    [[ -z $oneshot_line ]] && { q=FAILED s=FAILED; }
    row "one stat per process (ms/call) vs stat" "$q" "$s" "$(ratio "$q" "$s")" "≤ 20 ms" "$(verdict "$q" le "$q" 20)" \
        "$calls calls each, interleaved in blocks (statloop.sh)"
    # GIO's one-shot client beside it (issue 15's bar); only when gio is installed.
    if isnum "$g"; then
        r=$(ratio "$q" "$g")
        row "one stat per process (ms/call) vs gio info" "$q" "$g" "$r" "≤ 1.3× gio info" "$(verdict "$q" le "${r%x}" 1.3)" \
            "same loop, interleaved (GLib's gio from libglib2.0-bin)"
    fi
fi

if want copy; then
    q=$(qv copy.q qvfs ext_ms) f=$(bv copy.cp ext_ms) r=$(ratio "$q" "$f")
    row "copy $BIG_LABEL (ms) vs cp" "$q" "$f" "$r" "≤ 1.1× cp" "$(verdict "$q" le "${r%x}" 1.1)" \
        "whole process; min Qvfs $(minv copy.q.ext_ms), cp $(minv copy.cp.ext_ms)"
fi
if want copytree; then
    q=$(qv copytree.q qvfs ext_ms) f=$(bv copytree.cp ext_ms) r=$(ratio "$q" "$f")
    row "copy tree $((CT_D * CT_F))×4 KiB (ms) vs cp -r" "$q" "$f" "$r" "≤ 1.5× cp -r" "$(verdict "$q" le "${r%x}" 1.5)" \
        "cp -r --preserve=mode,timestamps; whole process; min Qvfs $(minv copytree.q.ext_ms), cp -r $(minv copytree.cp.ext_ms)"
fi

# per-entry figures (from the flat listing; the 1M one when it ran)
if want list || want list1m; then
    t=list tl=$(label_n "$FLAT_N")
    want list || { t=list1m tl=1M; }
    q=$(qv "$t.q" listjob_benchmark first_batch_ms)
    row "first entries reach the app (ms)" "$q" "-" "-" "≤ 20 ms" "$(verdict "$q" le "$q" 20)" "listjob_benchmark's first_batch_ms, list $tl"
    # memory per kept entry: marginal between 100k and 1M when both ran
    src="listjob_benchmark's app_heap_bytes_per_entry, list $tl" q="" f=n/a
    if (( !quick && RUNS1M > 0 )) && want list && want list1m; then
        src="(peak RSS 1M − 100k) / 900k"
        a=$(qv list1m.q listjob_benchmark app_peak_rss_kb) b=$(qv list.q listjob_benchmark app_peak_rss_kb)
        if isnum "$a" && isnum "$b"; then
            q=$(calc "printf \"%.0f\", ($a - $b) * 1024 / 900000")
        fi
        a=$(bv list1m.floor peak_rss_kb) b=$(bv list.floor peak_rss_kb)
        isnum "$a" && isnum "$b" && f=$(calc "printf \"%.0f\", ($a - $b) * 1024 / 900000")
    fi
    [[ -z $q ]] && q=$(qv "$t.q" listjob_benchmark app_heap_bytes_per_entry)
    row "app memory per kept entry (B)" "$q" "$f" "$(ratio "$q" "$f")" "≤ 100 B" "$(verdict "$q" le "$q" 100)" "$src; baseline = floor, same method"
    q=$(qv "$t.q" listjob_benchmark app_allocs_per_entry)
    row "app allocations per entry" "$q" "0" "-" "≤ 0.1" "$(verdict "$q" le "$q" 0.1)" "listjob_benchmark, list $tl"
    q=$(qv listalloc.q listjob_benchmark worker_allocs_per_entry)
    row "worker allocations per entry" "$q" "0" "-" "≤ 0.1" "$(verdict "$q" le "$q" 0.1)" "listjob_benchmark --worker-allocs, list $tl"
    q=$(qv "$t.q" listjob_benchmark wire_bytes_per_entry)
    row "bytes on the wire per entry" "$q" "-" "-" "≤ 40" "$(verdict "$q" le "$q" 40)" "listjob_benchmark, list $tl"
    row "worker CPU (ms) / worker peak RSS (kB)" "$(qv "$t.q" listjob_benchmark worker_cpu_ms) / $(qv "$t.q" listjob_benchmark worker_peak_rss_kb)" "-" "-" "-" "info" "listjob_benchmark, list $tl"
fi

# print, padded by characters (not bytes) so the table lines up
headers=("workload" "Qvfs" "baseline" "ratio" "bar" "met?" "notes")
widths=()
for ((c = 0; c < 7; ++c)); do widths[c]=${#headers[c]}; done
for r in "${rows[@]}"; do
    IFS=$'\t' read -r -a cols <<<"$r"
    for ((c = 0; c < 6; ++c)); do (( ${#cols[c]} > widths[c] )) && widths[c]=${#cols[c]}; done
done
pad() { local s=$1 w=$2; printf '%s%*s' "$s" $(( w - ${#s} )) ''; }
line() {
    local -a cols=("$@")
    local c out=""
    for ((c = 0; c < 6; ++c)); do out+="$(pad "${cols[c]}" "${widths[c]}") | "; done
    printf '%s%s\n' "$out" "${cols[6]}"
}
echo
echo "Qvfs budget run: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $B ($fstype), medians of $RUNS runs$( ((RUNS1M > 0)) && want list1m && echo " ($RUNS1M for 1M)")$( ((quick)) && echo ", QUICK sizes")"
echo "floor: $floor; logs: $logs"
line "${headers[@]}"
sep=""
for ((c = 0; c < 6; ++c)); do sep+="$(printf '%*s' "${widths[c]}" '' | tr ' ' '-')-+-"; done
echo "$sep-----"
for r in "${rows[@]}"; do
    IFS=$'\t' read -r -a cols <<<"$r"
    line "${cols[@]}"
done

if (( clean )); then
    rm -rf "$B"
fi
(( failed )) && { echo "bench.sh: some runs FAILED (see $logs)" >&2; exit 1; }
(( strict && unmet )) && { echo "bench.sh: some bars not met" >&2; exit 1; }
exit 0
