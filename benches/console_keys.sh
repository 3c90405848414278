#!/usr/bin/env bash
# Key-to-screen on a long queue: opens the console in tmux on the
# METACENTRUM trace under conservative backfilling, flat out, and once
# `queued` passes TARGET (default 50,000) presses Space N times (default
# 10) while running, timing each until "paused" shows on the status line,
# resuming in between (for GAP seconds, default 0.05: the whole trace runs
# in a few seconds flat out). Needs tmux, a release build and the trace in
# ../shared/data.
#
#   cargo build --release && bash benches/console_keys.sh
set -euo pipefail
cd "$(dirname "$0")/.."
S=schedscope-keys
BIN=${BIN:-$PWD/target/release/schedscope}
tmux kill-session -t $S 2>/dev/null || true
tmux new-session -d -s $S -x 200 -y 50 \
  "$BIN console scenarios/trace-metacentrum-2009-2.toml --set policy.name=conservative; sleep 600"
sleep 2
for _ in $(seq 1 15); do tmux send-keys -t $S '+'; sleep 0.05; done
while :; do
  sleep 0.5
  l=$(tmux capture-pane -p -t $S | sed -n 2p)
  q=$(echo "$l" | grep -o 'queued [0-9 ]*' | tr -d ' queud' || true)
  [ -n "$q" ] && [ "$q" -ge "${TARGET:-50000}" ] && break
done
echo "start: $(echo "$l" | tr -s ' ')"
for k in $(seq 1 "${N:-10}"); do
  t0=$(date +%s%N)
  tmux send-keys -t $S ' '
  until tmux capture-pane -p -t $S | sed -n 1p | grep -q "paused"; do
    [ $(( ($(date +%s%N) - t0) / 1000000 )) -gt 5000 ] && { echo "no pause within 5 s"; break; }
  done
  echo "pause $k: $(( ($(date +%s%N) - t0) / 1000000 )) ms | $(tmux capture-pane -p -t $S | sed -n 2p | tr -s ' ')"
  tmux send-keys -t $S ' '
  until ! tmux capture-pane -p -t $S | sed -n 1p | grep -q "paused"; do sleep 0.01; done
  sleep "${GAP:-0.05}"
done
tmux send-keys -t $S 'q'
sleep 1
tmux kill-session -t $S 2>/dev/null || true
