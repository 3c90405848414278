#!/usr/bin/env bash
# Regenerates the figures of the group-wise co-allocation study that
# schedscope reproduces, as SVG and PNG in OUT (default: figures/):
#   groupwise-art.{svg,png}  ART per size group under FCFS and FPFS(10)
#   art-maxjumps.{svg,png}   ART against maxJumps, random and phased splitting
# Each point replicates until ART's 95 % half-width is within 5 %.
# Usage: bash scenarios/paper-figures.sh [OUT]
# (SCHEDSCOPE=path/to/schedscope uses that binary instead of cargo run.)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-figures}
if [ -n "${SCHEDSCOPE:-}" ]; then run=("$SCHEDSCOPE"); else run=(cargo run --release --quiet --); fi
"${run[@]}" sweep scenarios/ngubiri-fpfs10.toml --vary policy.name=fcfs,fpfs \
  --metric 'groups.size.*.art' --plot "$out/groupwise-art" \
  --title "Group-wise ART on 5 × 20 under FCFS and FPFS(10)"
"${run[@]}" sweep scenarios/ngubiri-maxjumps.toml \
  --vary policy.max_jumps=0,1,2,3,5,7,10,15,20 --vary workload.split.approach=random,phased \
  --plot "$out/art-maxjumps" --title "ART against maxJumps on 5 × 20 (FPFS, worst fit)"
