#!/bin/bash
# make fuzz: runs each libFuzzer target of facecam-fuzz for SECONDS (60), starting from the committed
# corpus (copied, so that what the fuzzer adds stays out of git). A crash stops with the input saved
# in .build-fuzz/artifacts; copy it into Tests/Fuzz/corpus/TARGET/ and it becomes a regression test
# (make test replays the corpus), then fix what it found.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
fuzzer=.build-fuzz/debug/facecam-fuzz
mkdir -p .build-fuzz/artifacts
for target in decoders geometry; do
    corpus=$(mktemp -d /tmp/facecam-fuzz-$target.XXXXXX)
    cp Tests/Fuzz/corpus/$target/* "$corpus"/
    echo "fuzz: $target for $seconds s from $(ls "$corpus" | wc -l) seeds"
    # Memory and time per input are bounded: a decoder that allocates or loops its way past them fails.
    FACECAM_FUZZ=$target "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix=.build-fuzz/artifacts/$target- -print_final_stats=1 "$corpus" 2> .build-fuzz/$target.log \
        || { tail -n 40 .build-fuzz/$target.log; echo "fuzz: $target found a failure (see above)"; exit 1; }
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" .build-fuzz/$target.log | sed "s/^/fuzz: $target /"
    rm -rf "$corpus"
done
echo "fuzz: no crash, leak, timeout or memory blow-up found"
