#!/usr/bin/env bash
# Key-to-screen on a long queue: opens the console in tmux on the
# METACENTRUM trace under conservative backfilling, flat out, and once
# `queued` passes TARGET (default 50,000) presses Space once, timing it
# until "paused" shows on the status line. Flat out the whole trace runs
# in a second or two, so each of the N presses (default 10) gets a console
# of its own. It also reports how long the console took flat out from the
# last speed key to the end of the trace, to compare with a headless run.
# Needs tmux, a release build and the trace in ../shared/data.
#
#   cargo build --release && bash crates/bench/benches/console_keys.sh
#
# SCENARIO and SETS choose another run. METACENTRUM's queue peaks near
# 90,000; the default scenario overloaded (a mean interarrival time of 0.2
# against 0.64, under FCFS) passes 100,000 queued within seconds:
#
#   TARGET=100000 SCENARIO=scenarios/default.toml SETS="--set \
#     workload.mean_interarrival=0.2 --set policy.name=fcfs" \
#     bash crates/bench/benches/console_keys.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
S=schedscope-keys
BIN=${BIN:-$PWD/target/release/schedscope}
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
queued() { tmux capture-pane -p -t $S | sed -n 2p | grep -o 'queued [0-9 ]*' | tr -d ' queud' || true; }
open() {
  tmux kill-session -t $S 2>/dev/null || true
  sleep 0.5 # the server of the last session exits first
  tmux new-session -d -s $S -x 200 -y 50 \
    "$BIN console ${SCENARIO:-scenarios/trace-metacentrum-2009-2.toml} ${SETS:---set policy.name=conservative}; sleep 600"
  sleep 1
  for _ in $(seq 1 15); do tmux send-keys -t $S '+'; sleep 0.02; done
}
for k in $(seq 1 "${N:-10}"); do
  open
  t0=$(date +%s%N)
  until q=$(queued); [ -n "$q" ] && [ "$q" -ge "${TARGET:-50000}" ]; do
    [ "$(ms "$t0")" -gt 30000 ] && { echo "press $k: the queue never reached ${TARGET:-50000}"; continue 2; }
    sleep 0.01
  done
  t1=$(date +%s%N)
  tmux send-keys -t $S ' '
  until tmux capture-pane -p -t $S | sed -n 1p | grep -q "paused"; do
    [ "$(ms "$t1")" -gt 5000 ] && { echo "no pause within 5 s"; break; }
  done
  echo "press $k at $q queued: paused on screen after $(ms "$t1") ms | $(tmux capture-pane -p -t $S | sed -n 2p | tr -s ' ')"
done
# A generated workload never ends in the console (it keeps arriving), so
# the flat-out time is taken on a trace only.
if [ -z "${SCENARIO:-}" ]; then
  open
  t0=$(date +%s%N)
  until tmux capture-pane -p -t $S | sed -n 1p | grep -q "finished"; do sleep 0.05; done
  echo "flat out to the end of the trace: $(ms "$t0") ms"
  tmux send-keys -t $S 'q'
  sleep 1
fi
tmux kill-session -t $S 2>/dev/null || true
