#!/usr/bin/env bash
# make test-slurm: a single-node Slurm cluster (Debian's slurmctld, slurmd and munged, configured in
# a temporary directory, on free loopback ports) runs Tests/Scale/facecam-array.sbatch over the
# fixture clips as a 3-task job array. Checks that the union of the tasks' results is byte for byte
# an unsharded run's, and that submitting the array again with the finished results in place
# skips every video and rewrites nothing. Then runs docs/batch.md's GNU parallel line, with this
# machine as its only server, and checks its results the same way.
set -euo pipefail
cd "$(dirname "$0")/../.."
facecam=$(realpath "${1:?usage: slurm-test.sh FACECAM}")
script=$(realpath Tests/Scale/facecam-array.sbatch)
tasks=3

work=$(mktemp -d /tmp/facecam-slurm.XXXXXX)
# munged wants its socket's directory searchable by all, and its key readable by its owner alone.
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "slurm-test: $*" >&2
    for log in "$work"/*.log; do echo "== $log" >&2; tail -n 20 "$log" >&2; done
    exit 1
}

# docs/batch.md shows the script: its copy there is the one tested here, but for the comments.
script_lines() { sed -n '/^#SBATCH --job-name/,/--resume$/p' "$1" | grep -v '^#' | grep .; }
diff <(script_lines "$script") <(script_lines docs/batch.md) > /dev/null \
    || fail "docs/batch.md's copy of Tests/Scale/facecam-array.sbatch differs from it: make them the same"

head -c 1024 /dev/urandom > "$work/munge.key"
chmod 400 "$work/munge.key"
munged --foreground --key-file="$work/munge.key" --socket="$work/munge.socket" --pid-file="$work/munged.pid" \
    --seed-file="$work/munged.seed" --log-file="$work/munged.log" > "$work/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge.socket" ] || fail "munged did not start"

read -r controller_port node_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')
node=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" << EOF
ClusterName=facecam
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=facecam Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D > /dev/null 2>&1 &
pids+=($!)
slurmd -D -N "$node" > /dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ "$(sinfo -h -o %t 2> /dev/null)" = idle ] && break; sleep 0.2; done
[ "$(sinfo -h -o %t 2> /dev/null)" = idle ] || fail "the node did not come up: $(sinfo 2>&1 | tail -n 1)"
echo "slurm-test: slurmctld and slurmd up on ports $controller_port and $node_port ($(sinfo -h -o '%P %D %t %c CPUs'))"

# The batch: the fixture clips, and one more named like one of them, to check that every task
# names it alike.
mkdir -p "$work/more"
ln -s "$(realpath Fixtures/video/crossing.avi)" "$work/more/pan-zoom.avi"
for clip in crossing.avi leave-enter.avi pan-zoom.avi rotated.mp4; do realpath "Fixtures/video/$clip"; done > "$work/videos.txt"
echo "$work/more/pan-zoom.avi" >> "$work/videos.txt"
inputs=$(wc -l < "$work/videos.txt")

"$facecam" video --quiet --files-from "$work/videos.txt" --output-dir "$work/unsharded"

submit() {
    (cd "$work" && sbatch --wait --quiet --array=1-$tasks --cpus-per-task=1 --export=ALL,FACECAM="$facecam" \
        "$script" "$work/videos.txt" "$work/results")
}
submit || fail "the array job failed"
[ "$(ls "$work"/facecam-*.log | wc -l)" = "$tasks" ] || fail "expected $tasks task logs: $(ls "$work")"
diff -r "$work/unsharded" "$work/results" > "$work/diff.log" || fail "the tasks' results differ from an unsharded run"
echo "slurm-test: $tasks array tasks wrote $(ls "$work/results" | wc -l) results files, identical to an unsharded run"

stat -c '%n %i %Y %s' "$work"/results/* > "$work/before.txt"
rm "$work"/facecam-*.log
submit || fail "the array job failed when submitted again"
stat -c '%n %i %Y %s' "$work"/results/* > "$work/after.txt"
cmp -s "$work/before.txt" "$work/after.txt" || fail "submitting again rewrote results"
skipped=$(cat "$work"/facecam-*.log | grep -c 'is finished (--resume)' || true)
[ "$skipped" = "$inputs" ] || fail "submitting again skipped $skipped of $inputs videos"
echo "slurm-test: submitted again with --resume, the $tasks tasks skipped all $inputs videos and rewrote nothing"

# docs/batch.md's GNU parallel line, with the local machine (:) as its server instead of node1 and node2.
(cd "$work" && PATH="$(dirname "$facecam"):$PATH" parallel --will-cite -S 2/: --workdir "$PWD" facecam video --quiet \
    --jobs 1 --threads 1 --shard {}/$tasks --files-from videos.txt --output-dir parallel --resume ::: $(seq $tasks)) \
    || fail "GNU parallel's tasks failed"
diff -r "$work/unsharded" "$work/parallel" > "$work/diff.log" || fail "GNU parallel's results differ from an unsharded run"
echo "slurm-test: GNU parallel ran $tasks shards; their results are identical to an unsharded run"
