#!/usr/bin/env bash
# Collector overhead, as ratios to a baseline measured in the same run.
#   bench/collect/run.sh [BUILDDIR] [ROUNDTRIPS] [STENCIL_SWEEPS]
# Alternates runs with and without kubus-run (3 each) and keeps the best of
# each, because the 2-core machine is shared.  Modes: plain mpirun, trace and
# profile (the default), --no-trace (profile only), KUBUS_PROFILE=0 (trace only).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build-collect}
n=${2:-1000000}
iters=${3:-2000}
. "$here/scripts/env.sh"
run=$build/src/collect/kubus-run
pp=$build/bench/collect/collect-bench-pingpong
st=$build/bench/collect/collect-bench-stencil
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() { sort -g | head -1; }
field() { awk -v k="$1" '$1 == k {print $2}'; }
pp_plain=() pp_big=() pp_def=() ip_plain=() ip_big=() ip_def=() st_plain=() st_kubus=()
pp_prof=() ip_prof=() st_prof=() pp_tonly=() ip_tonly=()
for i in 1 2 3; do
  out=$(mpirun -n 2 "$pp" "$n")
  pp_plain+=("$(field pingpong_ns_per_roundtrip <<<"$out")")
  ip_plain+=("$(field iprobe_ns_per_call <<<"$out")")
  # a buffer that holds the whole trace: the cost of recording alone
  out=$("$run" -o "$tmp/pp$i" --buffer 512M -- mpirun -n 2 "$pp" "$n")
  pp_big+=("$(field pingpong_ns_per_roundtrip <<<"$out")")
  ip_big+=("$(field iprobe_ns_per_call <<<"$out")")
  # the default 64M buffer: includes writing the trace to disk mid-run
  out=$("$run" -o "$tmp/pd$i" -- mpirun -n 2 "$pp" "$n")
  pp_def+=("$(field pingpong_ns_per_roundtrip <<<"$out")")
  ip_def+=("$(field iprobe_ns_per_call <<<"$out")")
  rm -rf "$tmp/pd$i"
  [ "$i" -gt 1 ] && rm -rf "$tmp/pp$i"
  # the lightweight profile alone (kubus-run --no-trace), and the trace without the profile
  out=$("$run" -o "$tmp/pn$i" --no-trace -- mpirun -n 2 "$pp" "$n")
  pp_prof+=("$(field pingpong_ns_per_roundtrip <<<"$out")")
  ip_prof+=("$(field iprobe_ns_per_call <<<"$out")")
  rm -rf "$tmp/pn$i"
  out=$(KUBUS_PROFILE=0 "$run" -o "$tmp/pt$i" --buffer 512M -- mpirun -n 2 "$pp" "$n")
  pp_tonly+=("$(field pingpong_ns_per_roundtrip <<<"$out")")
  ip_tonly+=("$(field iprobe_ns_per_call <<<"$out")")
  rm -rf "$tmp/pt$i"
  out=$(mpirun -n 2 "$st" 512 512 "$iters")
  st_plain+=("$(field stencil_seconds <<<"$out")")
  out=$("$run" -o "$tmp/st$i" -- mpirun -n 2 "$st" 512 512 "$iters")
  st_kubus+=("$(field stencil_seconds <<<"$out")")
  out=$("$run" -o "$tmp/sn$i" --no-trace -- mpirun -n 2 "$st" 512 512 "$iters")
  st_prof+=("$(field stencil_seconds <<<"$out")")
  rm -rf "$tmp/sn$i"
done
ppp=$(printf '%s\n' "${pp_plain[@]}" | best)
ppk=$(printf '%s\n' "${pp_big[@]}" | best)
ppd=$(printf '%s\n' "${pp_def[@]}" | best)
ipp=$(printf '%s\n' "${ip_plain[@]}" | best)
ipk=$(printf '%s\n' "${ip_big[@]}" | best)
ipd=$(printf '%s\n' "${ip_def[@]}" | best)
stp=$(printf '%s\n' "${st_plain[@]}" | best)
stk=$(printf '%s\n' "${st_kubus[@]}" | best)
ppn=$(printf '%s\n' "${pp_prof[@]}" | best)
ipn=$(printf '%s\n' "${ip_prof[@]}" | best)
stn=$(printf '%s\n' "${st_prof[@]}" | best)
ppt=$(printf '%s\n' "${pp_tonly[@]}" | best)
ipt=$(printf '%s\n' "${ip_tonly[@]}" | best)

# trace size: bytes of the event files per event, against the bytes of
# otf2-print's text for the same events
evt_bytes=$(cat "$tmp"/pp1/traces/*.evt | wc -c)
events=$(otf2-print -G "$tmp/pp1/traces.otf2" | awk '/^LOCATION / {for (i=1;i<=NF;i++) if ($i=="Events:") s+=$(i+1)} END {print s}')
text_bytes=$(otf2-print "$tmp/pp1/traces.otf2" | awk '/^(ENTER|LEAVE|MPI_)/' | wc -c)

awk -v n="$n" -v it="$iters" -v ppp="$ppp" -v ppk="$ppk" -v ppd="$ppd" \
    -v ipp="$ipp" -v ipk="$ipk" -v ipd="$ipd" -v stp="$stp" -v stk="$stk" \
    -v eb="$evt_bytes" -v ev="$events" -v tb="$text_bytes" \
    -v ppn="$ppn" -v ipn="$ipn" -v stn="$stn" -v ppt="$ppt" -v ipt="$ipt" 'BEGIN {
  printf "round trips: %d (2 ranks, 0-byte messages), best of 3 alternating runs\n", n
  printf "ping-pong round trip: %.0f ns plain, %.0f ns traced (512M buffer), ratio %.3f\n", ppp, ppk, ppk / ppp
  printf "  overhead per MPI call (4 calls on the round-trip path): %.1f ns\n", (ppk - ppp) / 4
  printf "  with the default 64M buffer (flushes inside the loop): %.0f ns, ratio %.3f, %.1f ns per call\n", ppd, ppd / ppp, (ppd - ppp) / 4
  printf "MPI_Iprobe loop: %.1f ns plain, %.1f ns traced, ratio %.2f, overhead %.1f ns per call (64M buffer: %.1f ns)\n", ipp, ipk, ipk / ipp, ipk - ipp, ipd - ipp
  printf "stencil (2 ranks, 512x512 per rank, %d sweeps): %.3f s plain, %.3f s traced, ratio %.4f (dilation %.2f %%)\n", it, stp, stk, stk / stp, (stk / stp - 1) * 100
  printf "trace: %d events, %d bytes of event files = %.1f bytes/event; otf2-print text %.1f bytes/event (ratio %.3f)\n", ev, eb, eb / ev, tb / ev, eb / tb
  printf "profile only (--no-trace): ping-pong %.0f ns, ratio %.3f, %.1f ns per call; Iprobe %.1f ns, ratio %.2f, %.1f ns per call\n", ppn, ppn / ppp, (ppn - ppp) / 4, ipn, ipn / ipp, ipn - ipp
  printf "trace without profile (KUBUS_PROFILE=0, 512M): ping-pong %.0f ns, ratio %.3f, %.1f ns per call; Iprobe %.1f ns, %.1f ns per call\n", ppt, ppt / ppp, (ppt - ppp) / 4, ipt, ipt - ipp
  printf "stencil --no-trace: %.3f s, ratio %.4f to plain (dilation %.2f %%)\n", stn, stn / stp, (stn / stp - 1) * 100
}'
