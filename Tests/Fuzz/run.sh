#!/bin/bash
# make fuzz: runs the libFuzzer targets of facecam-fuzz side by side for SECONDS (60), each starting from the committed
# corpus (copied, so that what the fuzzer adds stays out of git). A crash stops with the input saved
# in .build-fuzz/artifacts; copy it into Tests/Fuzz/corpus/TARGET/ and it becomes a regression test
# (make test replays the corpus), then fix what it found.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
fuzzer=.build-fuzz/debug/facecam-fuzz
mkdir -p .build-fuzz/artifacts
# One libFuzzer process per target, side by side: each runs on one core.
fuzz() {
    local target=$1 corpus
    corpus=$(mktemp -d /tmp/facecam-fuzz-$target.XXXXXX)
    cp Tests/Fuzz/corpus/$target/* "$corpus"/
    echo "fuzz: $target for $seconds s from $(ls "$corpus" | wc -l) seeds"
    # Memory and time per input are bounded: a decoder that allocates or loops its way past them fails.
    FACECAM_FUZZ=$target "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix=.build-fuzz/artifacts/$target- -print_final_stats=1 "$corpus" 2> .build-fuzz/$target.log \
        || { rm -rf "$corpus"; tail -n 40 .build-fuzz/$target.log; echo "fuzz: $target found a failure (see above)"; return 1; }
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" .build-fuzz/$target.log | sed "s/^/fuzz: $target /"
    rm -rf "$corpus"
}
pids=()
for target in decoders geometry; do
    fuzz $target &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ $failed = 0 ] || exit 1
echo "fuzz: no crash, leak, timeout or memory blow-up found"
