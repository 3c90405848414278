#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader of outside input (libFuzzer through
# cargo-fuzz; needs a nightly toolchain: `rustup toolchain install nightly`,
# `cargo install cargo-fuzz`).
#
#   fuzz/run.sh [RUNS] [TARGET...]     # default: 10,000,000 runs of each target
#
# Corpora start from the repository's own scenarios and, when present, from
# the traces, Batsim workloads and task graphs in ../shared/data (heads of
# files only, so cases stay small). Crashes land in fuzz/artifacts/<target>/;
# each one found becomes a regression case in tests/fuzz_readers.rs.
# Memory: libFuzzer stops a case that allocates over 512 MB
# (-malloc_limit_mb) or a process over 1 GB (-rss_limit_mb); a case taking
# over 10 s is a hang (-timeout).
set -euo pipefail
cd "$(dirname "$0")"
runs=${1:-10000000}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(swf swf_gzip scenario batsim stg)
data=../../shared/data
seed() { # target, files...
  local dir=corpus/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] || continue
    local out
    out="$dir/seed-$(basename "$f" | tr -c 'A-Za-z0-9._-' _)"
    case "$f" in
      *.gz) zcat "$f" 2>/dev/null | head -c 4096 >"$out" || true ;;
      *) head -c 8192 "$f" >"$out" ;;
    esac
  done
}
seed swf "$data"/swf/*
seed swf_gzip "$data"/swf/*
seed scenario ../scenarios/*.toml
seed batsim $(find "$data/reference_outputs" -name '*.json' 2>/dev/null)
seed stg $(find "$data/stg" -name '*.stg' 2>/dev/null | head -40)
for t in "${targets[@]}"; do
  echo "== $t: $runs runs"
  cargo +nightly fuzz run "$t" "corpus/$t" -- \
    -runs="$runs" -malloc_limit_mb=512 -rss_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 2>&1 | tail -25
done
