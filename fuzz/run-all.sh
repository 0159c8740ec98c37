#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600), two at a time, and prints each one's
# last libFuzzer status line. Run fuzz/seed.sh first.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
mkdir -p logs
run() {
  cargo +nightly fuzz run "$1" "corpus/$1" -- -max_total_time="$secs" -rss_limit_mb=4096 -timeout=10 \
    >"logs/$1.log" 2>&1 || echo "$1: FAILED (see fuzz/logs/$1.log)"
  echo "$1: $(grep -E '^#[0-9]+' "logs/$1.log" | tail -1)"
}
for pair in "manifest geometry" "gltf utoc" "tag archive" "package level" "haf asset_manifest" "zip remote_entry" "oodle collision"; do
  set -- $pair
  run "$1" & run "$2" & wait
done
