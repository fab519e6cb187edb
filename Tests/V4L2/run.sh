#!/bin/bash
# make test-v4l2 (run.sh FACECAM VNG): boots Debian's kernel under QEMU (virtme-ng, no KVM), loads vivid, runs
# facecam against it (in-vm.sh), then judges the results here (check.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
facecam=$(realpath "${1:?usage: run.sh FACECAM VNG}")
vng=$(realpath "${2:?usage: run.sh FACECAM VNG}")  # virtme-ng's command
[ -x "$vng" ] || { echo "test-v4l2: $vng is no program: make test-v4l2 makes virtme-ng's environment" >&2; exit 1; }
# ... which runs virtme-run, its other command, from PATH.
PATH=$(dirname "$vng"):$PATH
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -n 1)
out=$(mktemp -d /tmp/facecam-v4l2.XXXXXX)
/usr/bin/python3 Tests/V4L2/check.py frame Fixtures "$out"
echo "test-v4l2: booting $kernel (about a minute without KVM)"
# A Nehalem CPU (SSE4.2, the least OpenVINO needs) rather than QEMU's "max": TCG emulates AVX2 an
# instruction at a time, and OpenCV's and OpenVINO's AVX2 kernels ran YuNet 5-7 times slower in the
# VM than their SSE ones (the last -cpu given is the one QEMU takes).
timeout 900 "$vng" --run "$kernel" --disable-kvm --memory 2G --qemu-opts="-cpu Nehalem" --rwdir "$out" \
    --exec "bash $PWD/Tests/V4L2/in-vm.sh $facecam $out" > "$out/vng.log" 2>&1 \
    || echo "test-v4l2: the VM exited with status $? (see $out/vng.log)"
# The VM's outputs are kept only when a check failed, to be looked at.
if /usr/bin/python3 Tests/V4L2/check.py judge "$out"; then
    rm -rf "$out"
else
    echo "test-v4l2: the VM's outputs are kept in $out"
    exit 1
fi
