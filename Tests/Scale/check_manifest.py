"""make test-slurm: the Kubernetes Indexed Job manifest against Kubernetes' own schema (PyPI's
kubernetes-validate, strict: unknown fields fail), and its shard count against its completions."""
import re
import subprocess
import sys

import yaml

path = sys.argv[1]
subprocess.run([sys.executable, "-m", "kubernetes_validate", "--strict", path], check=True)
with open(path) as f:
    job = yaml.safe_load(f)
spec = job["spec"]
command = " ".join(spec["template"]["spec"]["containers"][0]["args"])
shard = re.search(r'--shard "\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)"', command)
problems = []
if spec.get("completionMode") != "Indexed":
    problems.append("completionMode is not Indexed")
if not shard:
    problems.append("the command has no --shard \"$((JOB_COMPLETION_INDEX + 1))/N\"")
elif int(shard.group(1)) != spec["completions"]:
    problems.append(f"--shard's N is {shard.group(1)} but completions is {spec['completions']}")
for flag in ("--resume", "--output-dir", "--files-from"):
    if flag not in command:
        problems.append(f"the command has no {flag}")
if problems:
    sys.exit(f"{path}: " + "; ".join(problems))
print(f"{path}: a valid Indexed Job of {spec['completions']} pods, one shard each")
