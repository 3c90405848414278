#!/usr/bin/env bash
# What sharding costs: a 1,000-point sweep run as one local `sweep`, then
# as N shards into a result folder (one after another, each on every core)
# plus `merge`, ROUNDS times in turn. Prints the fastest of each (the least
# disturbed by whatever else the machine runs) and the overhead.
#
#   bash crates/bench/benches/sweep_shards.sh [N] [JOBS] [ROUNDS]   (defaults: 4, 5000, 5)
set -euo pipefail
cd "$(dirname "$0")/../../.."
n=${1:-4}
jobs=${2:-5000}
rounds=${3:-5}
cargo build --release --quiet
bin=$PWD/target/release/schedscope
# In target/, on the work tree's file system: file creation in /tmp can
# cost ten times more on some machines, and the result folder of a real
# sweep lives beside the work.
tmp=$(mktemp -d -p "$PWD/target")
trap 'rm -rf "$tmp"' EXIT
# 25 maxJumps × 40 arrival rates = 1,000 points.
rates=$(seq -f '%.3f' 0.640 0.005 0.835 | paste -sd, -)
args=(sweep scenarios/ngubiri-maxjumps.toml --set "run.jobs=$jobs" --set run.warmup_jobs=100
  --replications 1 --vary "policy.max_jumps=$(seq -s, 0 24)" --vary "workload.mean_interarrival=$rates"
  --format csv)
# t OUTFILE COMMAND...: runs COMMAND with stdout into OUTFILE and sets
# w (wall seconds) and c (user + system seconds).
t() {
  local o=$1; shift
  /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" >"$o"
  read -r w u s <"$tmp/t"
  c=$(echo "$u + $s" | bc)
}

min() { echo "if ($1 < $2) $1 else $2" | bc; }
blw=1000000; blc=1000000; btw=1000000; btc=1000000; bmw=0; bmc=0
for _ in $(seq "$rounds"); do
  t "$tmp/local.csv" "$bin" "${args[@]}"
  blw=$(min "$blw" "$w"); blc=$(min "$blc" "$c")
  rm -rf "$tmp/out"
  sw=0; sc=0
  for i in $(seq 0 $((n - 1))); do
    t /dev/null "$bin" "${args[@]}" --out "$tmp/out" --shard "$i/$n" 2>/dev/null
    sw=$(echo "$sw + $w" | bc); sc=$(echo "$sc + $c" | bc)
  done
  t "$tmp/merged.csv" "$bin" merge "$tmp/out" --format csv
  cmp -s "$tmp/local.csv" "$tmp/merged.csv" || { echo "merged output differs from the local sweep" >&2; exit 1; }
  tw=$(echo "$sw + $w" | bc); tc=$(echo "$sc + $c" | bc)
  if [ "$(echo "$tw < $btw" | bc)" = 1 ]; then btw=$tw; bmw=$w; fi
  if [ "$(echo "$tc < $btc" | bc)" = 1 ]; then btc=$tc; bmc=$c; fi
done
lw=$blw; lc=$blc; tw=$btw; tc=$btc; mw=$bmw; mc=$bmc
points=$(($(wc -l <"$tmp/local.csv") - 1))
echo "points: $points, $jobs jobs each, $n shards, fastest of $rounds rounds"
echo "local sweep:        wall ${lw} s, cpu ${lc} s"
echo "shards + merge:     wall ${tw} s (merge ${mw} s), cpu ${tc} s (merge ${mc} s)"
echo "overhead:           wall $(echo "scale=1; 100 * ($tw - $lw) / $lw" | bc) %, cpu $(echo "scale=1; 100 * ($tc - $lc) / $lc" | bc) %"
