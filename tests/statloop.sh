#!/usr/bin/env bash
# statloop.sh BUILD_DIR FILE N [BLOCK]
#
# The "one stat per process" figure: N one-shot `BUILD_DIR/bin/qvfs stat FILE` calls in a
# shell loop against N coreutils `stat FILE` calls and, when GLib's `gio` is installed,
# N `gio info FILE` calls (GIO's one-shot client) in the same run. The loops are
# interleaved in blocks of BLOCK calls (default 10; the order rotates every block) so all
# see the same machine noise. Each block gives a per-call time; the medians are reported.
#
# Output: a few human lines, then one line for tests/bench.sh:
#   calls=N block=B qvfs_ms_per_call=X stat_ms_per_call=Y ratio=Z gio_ms_per_call=G
# G is "missing" without gio.
# X and Z are "missing" when BUILD_DIR/bin/qvfs does not exist and "failed" when it
# exits non-zero (exit status 1 then).
set -euo pipefail
export LC_ALL=C   # EPOCHREALTIME must use '.' as its decimal point

if [[ $# -lt 3 || $# -gt 4 ]]; then
    echo "usage: $0 BUILD_DIR FILE N [BLOCK]" >&2
    exit 2
fi
build=$1 file=$2 n=$3 block=${4:-10}
[[ $n =~ ^[1-9][0-9]*$ && $block =~ ^[1-9][0-9]*$ ]] || { echo "statloop: N and BLOCK must be positive integers" >&2; exit 2; }
[[ -e $file || -L $file ]] || { echo "statloop: $file: no such file" >&2; exit 2; }
(( block > n )) && block=$n

qvfs=$build/bin/qvfs
statbin=$(type -P stat) || { echo "statloop: coreutils stat not found" >&2; exit 2; }
have_qvfs=0
[[ -x $qvfs ]] && have_qvfs=1
giobin=$(type -P gio || true)

qstate=ok
# Warm-up: page in the binaries once, and check that qvfs stat works at all.
"$statbin" "$file" >/dev/null
if [[ -n $giobin ]] && ! "$giobin" info "$file" >/dev/null 2>&1; then
    echo "statloop: '$giobin info $file' failed; no gio row" >&2
    giobin=""
fi
if (( have_qvfs )); then
    if ! "$qvfs" stat "$file" >/dev/null 2>"${TMPDIR:-/tmp}/statloop.$$.err"; then
        qstate=failed
        echo "statloop: '$qvfs stat $file' failed:" >&2
        cat "${TMPDIR:-/tmp}/statloop.$$.err" >&2 || true
    fi
    rm -f "${TMPDIR:-/tmp}/statloop.$$.err"
else
    qstate=missing
fi

qsamples=() ssamples=() gsamples=()
qtotal=0 stotal=0 gtotal=0

time_block() { # KIND COUNT -> sets BLOCK_US
    local kind=$1 cnt=$2 i t0 t1
    if [[ $kind == qvfs ]]; then
        t0=${EPOCHREALTIME/./}
        for ((i = 0; i < cnt; ++i)); do
            "$qvfs" stat "$file" >/dev/null || return 1
        done
        t1=${EPOCHREALTIME/./}
    elif [[ $kind == gio ]]; then
        t0=${EPOCHREALTIME/./}
        for ((i = 0; i < cnt; ++i)); do
            "$giobin" info "$file" >/dev/null || return 1
        done
        t1=${EPOCHREALTIME/./}
    else
        t0=${EPOCHREALTIME/./}
        for ((i = 0; i < cnt; ++i)); do
            "$statbin" "$file" >/dev/null || return 1
        done
        t1=${EPOCHREALTIME/./}
    fi
    BLOCK_US=$((t1 - t0))
}

done_calls=0 b=0
while (( done_calls < n )); do
    cnt=$(( n - done_calls < block ? n - done_calls : block ))
    case $(( b % 3 )) in
        0) order="qvfs stat gio" ;;
        1) order="stat gio qvfs" ;;
        *) order="gio qvfs stat" ;;
    esac
    for kind in $order; do
        if [[ $kind == gio ]]; then
            [[ -n $giobin ]] || continue
            if time_block gio "$cnt"; then
                gsamples+=("$(( BLOCK_US / cnt ))")
                gtotal=$(( gtotal + BLOCK_US ))
            else
                giobin=""
                echo "statloop: 'gio info $file' failed during the loop; no gio row" >&2
            fi
        elif [[ $kind == qvfs ]]; then
            [[ $qstate == ok ]] || continue
            if time_block qvfs "$cnt"; then
                qsamples+=("$(( BLOCK_US / cnt ))")
                qtotal=$(( qtotal + BLOCK_US ))
            else
                qstate=failed
                echo "statloop: '$qvfs stat $file' failed during the loop" >&2
            fi
        else
            time_block stat "$cnt"
            ssamples+=("$(( BLOCK_US / cnt ))")
            stotal=$(( stotal + BLOCK_US ))
        fi
    done
    done_calls=$(( done_calls + cnt ))
    b=$(( b + 1 ))
done

median_ms() { # microsecond samples -> median in ms
    printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {
        if (NR == 0) { print "n/a"; exit }
        m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
        printf "%.3f\n", m / 1000 }'
}

s_ms=$(median_ms "${ssamples[@]}")
echo "stat (coreutils): $n calls in $(awk -v t="$stotal" 'BEGIN{printf "%.3f", t/1e6}') s, median per call ${s_ms} ms"
if [[ $qstate == ok ]]; then
    q_ms=$(median_ms "${qsamples[@]}")
    ratio=$(awk -v q="$q_ms" -v s="$s_ms" 'BEGIN{ if (s > 0) printf "%.2f", q/s; else print "n/a" }')
    echo "qvfs stat:        $n calls in $(awk -v t="$qtotal" 'BEGIN{printf "%.3f", t/1e6}') s, median per call ${q_ms} ms (${ratio}x stat)"
else
    q_ms=$qstate ratio=$qstate
    echo "qvfs stat:        $qstate ($qvfs)"
fi
g_ms=missing
if (( ${#gsamples[@]} > 0 )) && [[ -n $giobin ]]; then
    g_ms=$(median_ms "${gsamples[@]}")
    echo "gio info:         $n calls in $(awk -v t="$gtotal" 'BEGIN{printf "%.3f", t/1e6}') s, median per call ${g_ms} ms"
fi
echo "calls=$n block=$block qvfs_ms_per_call=$q_ms stat_ms_per_call=$s_ms ratio=$ratio gio_ms_per_call=$g_ms"
[[ $qstate != failed ]]
