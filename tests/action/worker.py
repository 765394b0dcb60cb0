"""The runner's worker on a simulated job's machine (simulator.Machine): the
first process of the job's PID namespace. Like GitHub's Runner.Worker it
holds the job's token in its memory for the whole job and starts every step;
a step's code that can read other processes' memory (root, or sudo on a
hosted runner) finds that token here, so a job's token is only ever as
powerful as the job's `permissions:` make it.

Protocol on standard input, one JSON document a line: first {"token": T};
then {"argv", "cwd", "env", "timeout"} per step, each answered on standard
output with {"rc", "output" (base64 of the step's stdout and stderr)}. The
job ends when standard input closes; the namespace's processes end with it.
"""
import base64
import ctypes
import json
import subprocess
import sys

PR_SET_NAME = 15


def run(request):
    try:
        proc = subprocess.run(request["argv"], cwd=request["cwd"], env=request["env"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=request["timeout"])
        return proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"") + b"\n[worker] the step timed out\n"


def main():
    # the name the runner's own worker process has in /proc/PID/comm
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NAME, b"Runner.Worker", 0, 0, 0)
    job = json.loads(sys.stdin.readline())
    token = job["token"]  # kept for the job's lifetime, as the runner keeps it
    for line in sys.stdin:
        rc, output = run(json.loads(line))
        sys.stdout.write(json.dumps({"rc": rc, "output": base64.b64encode(output).decode()}))
        sys.stdout.write("\n")
        sys.stdout.flush()
    return 0 if token is not None else 1


if __name__ == "__main__":
    sys.exit(main())
