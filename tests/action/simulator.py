"""A GitHub-hosted runner in miniature: executes a composite action (action.yml)
and the jobs of a workflow the way the runner does, so that the Action's own
shell steps and himorime's outputs are checked as a real job sees them
(docs/github-actions.md).

What it does as the runner does:
- each `run:` step is a script file run by bash: `shell: bash` as
  `bash --noprofile --norc -eo pipefail FILE`, no `shell:` in a workflow as
  `bash -e FILE` (the runner's default on Linux), `shell: sh` as `sh -e FILE`;
- GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY are fresh
  files per step; outputs (`name=value` and `name<<DELIMITER` blocks), env and
  path entries are applied between steps;
- `${{ }}` expressions are substituted in `with:`, `env:`, `run:` and `if:`
  (contexts github, inputs, steps, runner, env, matrix, needs; literals, `==`,
  `!=`, `!`, `&&`, `||`, and always(), success(), failure(), cancelled(),
  contains(), startsWith(), endsWith());
- a step runs when its `if:` holds (default success()); a failed step fails
  the composite action and the job;
- workflow commands in the log: `::add-mask::` masks the value as *** from
  then on, `::stop-commands::T` … `::T::` turns commands off, and `::error`,
  `::warning`, `::notice` become annotations;
- a composite action's outputs are its `outputs.<name>.value` expressions;
- job_permissions() reads what a job's token may do from its `permissions:`,
  for the stand-in API to enforce.

- `sudo` is there and asks no password, as on hosted runners (a stand-in
  when the machine has none, which runs the command when already root);
- with `machine=True` the job runs on its own machine, as every hosted job
  runs in a fresh virtual machine: a PID namespace, whose /proc shows only
  the job's processes, with a stand-in for the runner's worker holding the
  job's token in its memory (Machine, worker.py).

What it does not do: `uses:` steps of other repositories (checkout, cache,
artifacts) are skipped, and the log says so. A test may stand in for one with
a hook that receives the step's `with:` and returns the outputs that action
would have set (the cache restoring a directory, the artifact download placing
a file), or raises StepFailed. `uses: ./` runs the action at `action_path`
(this repository), while the workspace is the measured repository the test
made.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

# ---------------------------------------------------------------------------
# Expressions

TOKEN = re.compile(r"""\s*(?:
    (?P<str>'(?:[^']|'')*')
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<op>==|!=|&&|\|\||[()!,])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_*][A-Za-z0-9_-]*)*)
)""", re.X)


class ExpressionError(Exception):
    pass


def tokenize(text):
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ExpressionError("cannot read %r at %d" % (text, pos))
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


def as_string(value):
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def truthy(value):
    return value not in (None, "", False, 0)


def equal(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return as_string(a).lower() == as_string(b).lower()


class Evaluator:
    """Evaluates one expression against a dict of contexts; `failed` says
    whether an earlier step failed (for success() and failure())."""

    def __init__(self, contexts, failed):
        self.ctx = contexts
        self.failed = failed

    def evaluate(self, text):
        self.toks = tokenize(text)
        self.pos = 0
        value = self.or_()
        if self.pos != len(self.toks):
            raise ExpressionError("unexpected %r in %r" % (self.toks[self.pos][1], text))
        return value

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else (None, None)

    def take(self, op):
        if self.peek() == ("op", op):
            self.pos += 1
            return True
        return False

    def or_(self):
        value = self.and_()
        while self.take("||"):
            right = self.and_()
            value = value if truthy(value) else right
        return value

    def and_(self):
        value = self.cmp()
        while self.take("&&"):
            right = self.cmp()
            value = right if truthy(value) else value
        return value

    def cmp(self):
        value = self.unary()
        if self.take("=="):
            return equal(value, self.unary())
        if self.take("!="):
            return not equal(value, self.unary())
        return value

    def unary(self):
        if self.take("!"):
            return not truthy(self.unary())
        return self.primary()

    def primary(self):
        kind, text = self.peek()
        self.pos += 1
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if (kind, text) == ("op", "("):
            value = self.or_()
            if not self.take(")"):
                raise ExpressionError("missing )")
            return value
        if kind != "name":
            raise ExpressionError("unexpected %r" % (text,))
        if text in ("true", "false"):
            return text == "true"
        if text == "null":
            return None
        if self.take("("):
            args = []
            if not self.take(")"):
                args.append(self.or_())
                while self.take(","):
                    args.append(self.or_())
                if not self.take(")"):
                    raise ExpressionError("missing ) after arguments of %s" % text)
            return self.call(text, args)
        return self.lookup(text)

    def call(self, name, args):
        lower = name.lower()
        if lower == "always":
            return True
        if lower == "success":
            return not self.failed
        if lower == "failure":
            return self.failed
        if lower == "cancelled":
            return False
        if lower == "contains":
            hay, needle = args
            if isinstance(hay, list):
                return any(equal(x, needle) for x in hay)
            return as_string(needle).lower() in as_string(hay).lower()
        if lower == "startswith":
            return as_string(args[0]).lower().startswith(as_string(args[1]).lower())
        if lower == "endswith":
            return as_string(args[0]).lower().endswith(as_string(args[1]).lower())
        if lower == "tojson":
            return json.dumps(args[0], indent=2)
        if lower == "fromjson":
            return json.loads(as_string(args[0]))
        raise ExpressionError("function %s() is not simulated" % name)

    def lookup(self, path):
        parts = path.split(".")
        value = self.ctx.get(parts[0])
        if parts[0] not in self.ctx:
            raise ExpressionError("unknown context %r" % parts[0])
        for p in parts[1:]:
            value = value.get(p) if isinstance(value, dict) else None
        return value


def substitute(text, contexts, failed=False):
    """A string with every ${{ }} replaced by its value as a string. A string
    that is only one expression keeps the value's type (as `with:` does)."""
    if not isinstance(text, str):
        return text
    m = re.fullmatch(r"\s*\$\{\{(.*?)\}\}\s*", text, re.S)
    if m:
        return Evaluator(contexts, failed).evaluate(m.group(1))
    return re.sub(r"\$\{\{(.*?)\}\}",
                  lambda m: as_string(Evaluator(contexts, failed).evaluate(m.group(1))),
                  text, flags=re.S)


def condition(text, contexts, failed):
    """A step's or job's `if:`: default success(); the ${{ }} is optional; an
    expression without a status function is ANDed with success()."""
    if text is None or text == "":
        return not failed
    if isinstance(text, bool):
        return text and not failed
    inner = text.strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", inner, re.S)
    if m:
        inner = m.group(1)
    value = truthy(Evaluator(contexts, failed).evaluate(inner))
    if not re.search(r"\b(always|success|failure|cancelled)\s*\(", inner):
        value = value and not failed
    return value


# ---------------------------------------------------------------------------
# File commands and workflow commands


def read_pairs(path):
    """name=value lines and name<<DELIMITER blocks, as GITHUB_OUTPUT and
    GITHUB_ENV hold them. A block without its closing line is an error, as
    the runner makes it."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line == "":
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError("%s: no closing %r for %r" % (path, delim, name))
            i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            raise ValueError("%s: invalid line %r" % (path, line))
    return out


def unescape_data(text):
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(text):
    return unescape_data(text.replace("%3A", ":").replace("%2C", ","))


COMMAND = re.compile(r"^::([^:\s]+)(?: ([^:]*))?::(.*)$")


class Log:
    """The job log as the runner shows it, and what its workflow commands did."""

    def __init__(self):
        self.lines = []
        self.masks = []
        self.annotations = []
        self.stop_token = None

    def note(self, text):
        self.lines.append("[simulator] " + text)

    def masked(self, text):
        for m in sorted(self.masks, key=len, reverse=True):
            text = text.replace(m, "***")
        return text

    def feed(self, line):
        m = COMMAND.match(line)
        if self.stop_token is not None:
            if m and m.group(1) == self.stop_token and not m.group(2):
                self.stop_token = None
                return
            self.lines.append(self.masked(line))
            return
        if not m:
            self.lines.append(self.masked(line))
            return
        name, props, data = m.group(1), m.group(2) or "", m.group(3)
        if name == "add-mask":
            if data:
                self.masks.append(unescape_data(data))
            return
        if name == "stop-commands":
            self.stop_token = data
            return
        if name in ("error", "warning", "notice"):
            fields = {}
            for item in filter(None, props.split(",")):
                k, _, v = item.partition("=")
                fields[k] = unescape_property(v)
            self.annotations.append(dict(fields, level=name,
                                         message=self.masked(unescape_data(data))))
            self.lines.append(self.masked(line))
            return
        self.lines.append(self.masked(line))

    def text(self):
        return "\n".join(self.lines) + "\n"


# ---------------------------------------------------------------------------
# The job's machine

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")

SUDO = """#!/bin/sh
# Passwordless sudo, as GitHub-hosted runners give the runner user: the
# runner simulator's stand-in on a machine without sudo. It runs the command
# when already root; options before the command (-n, -E, ...) are skipped.
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -*) shift ;;
    *) break ;;
  esac
done
if [ "$(id -u)" -eq 0 ]; then
  exec "$@"
fi
echo "sudo: the simulator's stand-in runs commands only as root" >&2
exit 1
"""


class Machine:
    """A job's own machine: a PID namespace (`unshare --pid --mount-proc`)
    whose first process, worker.py, stands in for the runner's worker: it
    keeps the job's token in memory for the whole job and starts each step.
    Whatever a step leaves running ends with the job. Needs root (or the
    right to make namespaces): see available()."""

    ARGV = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]
    _available = None

    @classmethod
    def available(cls):
        if cls._available is None:
            try:
                cls._available = subprocess.run(
                    cls.ARGV + ["true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    timeout=30).returncode == 0
            except OSError:
                cls._available = False
        return cls._available

    def __init__(self, token):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        self.proc = subprocess.Popen(self.ARGV + [sys.executable, WORKER],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.send({"token": token or ""})

    def send(self, doc):
        self.proc.stdin.write((json.dumps(doc) + "\n").encode())
        self.proc.stdin.flush()

    def run(self, argv, cwd, env, timeout):
        self.send({"argv": argv, "cwd": cwd, "env": env, "timeout": timeout})
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the job's worker stand-in ended (exit %s)" % self.proc.wait())
        reply = json.loads(line)
        return reply["rc"], base64.b64decode(reply["output"])

    def close(self):
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.proc.wait(timeout=60)


# ---------------------------------------------------------------------------
# The runner


class StepFailed(Exception):
    """Raised by a `uses:` hook: the action it stands in for failed."""


class StepResult:
    def __init__(self, name, conclusion, outputs, rc=None, env=None, with_=None):
        self.name = name
        self.conclusion = conclusion  # success, failure or skipped
        self.outputs = outputs
        self.rc = rc
        self.env = env  # a run: step's environment
        self.with_ = with_  # a uses: step's inputs


class Runner:
    """One job's machine: its RUNNER_TEMP, workspace, event and token.

    `uses_hooks` maps an action reference without its version (for example
    "actions/cache") to a function(with_, runner) returning the outputs that
    action would set; without a hook the step is only skipped."""

    def __init__(self, root, workspace, event_name, event, token, api_url, run_id=1,
                 repository="octo/repo", sha=None, action_path=None, uses_hooks=None,
                 tmpdir=None, machine=False):
        self.root = root
        self.workspace = workspace
        self.temp = os.path.join(root, "runner-temp")
        os.makedirs(self.temp, exist_ok=True)
        self.files = os.path.join(root, "runner-files")
        os.makedirs(self.files, exist_ok=True)
        self.tools = os.path.join(root, "runner-tools")
        os.makedirs(self.tools, exist_ok=True)
        if not shutil.which("sudo"):
            with open(os.path.join(self.tools, "sudo"), "w", encoding="utf-8") as f:
                f.write(SUDO)
            os.chmod(os.path.join(self.tools, "sudo"), 0o755)
        self.isolated = machine
        self.machine = None
        self.steps, self.skipped, self.posts = [], [], []
        self.step_env = self.step_with = None
        self.event_name = event_name
        self.event_path = os.path.join(self.files, "event.json")
        with open(self.event_path, "w", encoding="utf-8") as f:
            json.dump(event, f)
        self.event = event
        self.token = token
        self.api_url = api_url
        self.run_id = run_id
        self.repository = repository
        self.sha = sha or "0" * 40
        self.action_path = action_path
        self.uses_hooks = uses_hooks or {}
        self.tmpdir = tmpdir
        self.log = Log()
        self.summaries = []
        self.env = {}  # from GITHUB_ENV
        self.path = []  # from GITHUB_PATH, newest first
        self.counter = 0

    # -- contexts ----------------------------------------------------------

    def github_context(self):
        return {
            "event": self.event,
            "event_name": self.event_name,
            "event_path": self.event_path,
            "repository": self.repository,
            "repository_owner": self.repository.split("/")[0],
            "run_id": str(self.run_id),
            "run_number": "1",
            "server_url": "https://github.com",
            "api_url": self.api_url,
            "sha": self.sha,
            "token": self.token,
            "workspace": self.workspace,
            "action_path": self.action_path,
        }

    def runner_context(self):
        return {"os": "Linux", "arch": "X64", "temp": self.temp, "name": "simulated"}

    def base_env(self):
        env = {
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": self.workspace,
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": self.event_path,
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": self.repository.split("/")[0],
            "GITHUB_SHA": self.sha,
            "GITHUB_RUN_ID": str(self.run_id),
            "GITHUB_RUN_NUMBER": "1",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_API_URL": self.api_url,
            "GITHUB_ACTOR": "octocat",
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "RUNNER_TEMP": self.temp,
            "PATH": os.environ.get("PATH", "/usr/bin:/bin") + ":" + self.tools,
        }
        if self.tmpdir:
            env["TMPDIR"] = self.tmpdir
        env.update(self.env)
        if self.path:
            env["PATH"] = ":".join(self.path) + ":" + env["PATH"]
        return env

    # -- steps -------------------------------------------------------------

    def shell_argv(self, shell, script, in_workflow):
        if shell is None and in_workflow:
            return ["bash", "-e", script]
        if shell == "bash":
            return ["bash", "--noprofile", "--norc", "-eo", "pipefail", script]
        if shell == "sh":
            return ["sh", "-e", script]
        raise ValueError("shell %r is not simulated" % (shell,))

    def run_script(self, step, contexts, failed, extra_env, in_workflow, default_shell=None):
        self.counter += 1
        n = self.counter
        files = {k: os.path.join(self.files, "%s_%d" % (k.lower(), n))
                 for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for p in files.values():
            open(p, "w").close()
        script = os.path.join(self.files, "step_%d.sh" % n)
        with open(script, "w", encoding="utf-8") as f:
            f.write(substitute(step["run"], contexts, failed))
        env = self.base_env()
        env.update(extra_env)
        for k, v in (step.get("env") or {}).items():
            env[k] = as_string(substitute(v, contexts, failed))
        env.update(files)
        cwd = self.workspace
        if step.get("working-directory"):
            cwd = os.path.join(self.workspace, substitute(step["working-directory"], contexts))
        argv = self.shell_argv(step.get("shell", default_shell), script, in_workflow)
        if self.machine:
            rc, output = self.machine.run(argv, cwd, env, 900)
        else:
            proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=900)
            rc, output = proc.returncode, proc.stdout
        self.step_env = env
        for line in output.decode("utf-8", "replace").splitlines():
            self.log.feed(line)
        outputs = read_pairs(files["GITHUB_OUTPUT"])
        self.env.update(read_pairs(files["GITHUB_ENV"]))
        with open(files["GITHUB_PATH"], encoding="utf-8") as f:
            for entry in f.read().splitlines():
                if entry:
                    self.path.insert(0, entry)
        with open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8") as f:
            summary = f.read()
        if summary:
            self.summaries.append(summary)
        return rc, outputs

    def run_uses(self, step, contexts, failed):
        uses = step["uses"]
        with_ = {k: as_string(substitute(v, contexts, failed))
                 for k, v in (step.get("with") or {}).items()}
        if uses == "./" or uses.startswith("./"):
            path = self.action_path if uses in ("./", ".") else os.path.join(self.workspace, uses)
            self.log.note("uses: %s runs the action at %s" % (uses, path))
            result = self.run_action(os.path.join(path, "action.yml"), with_, path)
            self.step_env, self.step_with = None, with_  # not its steps'
            return result
        ref = uses.split("@")[0]
        hook = self.uses_hooks.get(ref)
        self.step_with = with_
        self.skipped.append(uses)
        try:
            outputs = hook(with_, self) if hook else {}
        except StepFailed as e:
            self.log.note("skipped uses: %s (not run by the simulator); its stand-in failed: %s"
                          % (uses, e))
            return "failure", {}
        self.log.note("skipped uses: %s (not run by the simulator)%s" % (
            uses, "; a stand-in set %s" % json.dumps(outputs, sort_keys=True) if hook else ""))
        return "success", outputs or {}

    def run_steps(self, steps, contexts, in_workflow, extra_env=None, default_shell=None):
        """Runs steps in order; returns (failed, {id: StepResult})."""
        results = {}
        failed = False
        for i, step in enumerate(steps):
            name = step.get("name") or "Run " + (step.get("uses") or
                                                 step.get("run", "").strip().split("\n")[0])
            sid = step.get("id") or "__step_%d" % i
            contexts["steps"] = {k: {"outputs": r.outputs, "outcome": r.conclusion,
                                     "conclusion": r.conclusion} for k, r in results.items()}
            if not condition(step.get("if"), contexts, failed):
                self.log.note("skipped step %r: if: %s" % (name, step.get("if", "success()")))
                results[sid] = StepResult(name, "skipped", {})
                continue
            self.log.note("step %r" % name)
            self.step_env = self.step_with = None
            if "uses" in step:
                conclusion, outputs = self.run_uses(step, contexts, failed)
                rc = 0 if conclusion == "success" else 1
            else:
                rc, outputs = self.run_script(step, contexts, failed, extra_env or {},
                                              in_workflow, default_shell)
                conclusion = "success" if rc == 0 else "failure"
            if conclusion == "failure" and step.get("continue-on-error") is True:
                conclusion = "success"
            if conclusion == "failure":
                self.log.note("step %r failed (exit %s)" % (name, rc))
                failed = True
            results[sid] = StepResult(name, conclusion, outputs, rc, self.step_env,
                                      self.step_with)
            self.steps.append(results[sid])
        contexts["steps"] = {k: {"outputs": r.outputs, "outcome": r.conclusion,
                                 "conclusion": r.conclusion} for k, r in results.items()}
        return failed, results

    # -- actions and jobs --------------------------------------------------

    def run_action(self, action_file, with_, action_path):
        """Runs a composite action; returns ("success"|"failure", outputs)."""
        with open(action_file, encoding="utf-8") as f:
            action = yaml.safe_load(f)
        caller = {"github": self.github_context(), "runner": self.runner_context(),
                  "env": dict(self.env)}
        inputs = {}
        for name, spec in (action.get("inputs") or {}).items():
            if name in with_:
                inputs[name] = with_[name]
            else:
                inputs[name] = as_string(substitute(spec.get("default", ""), caller))
        unknown = sorted(set(with_) - set(inputs))
        if unknown:
            self.log.note("warning: unexpected inputs %s" % ", ".join(unknown))
        contexts = dict(caller, inputs=inputs, steps={})
        contexts["github"] = dict(contexts["github"], action_path=action_path)
        failed, _ = self.run_steps(action["runs"]["steps"], contexts, in_workflow=False,
                                   extra_env={"GITHUB_ACTION_PATH": action_path})
        outputs = {name: as_string(substitute(spec.get("value", ""), contexts))
                   for name, spec in (action.get("outputs") or {}).items()}
        return ("failure" if failed else "success"), outputs

    def start(self):
        self.steps = []
        self.skipped = []
        self.posts = []  # a hook's post step: function(job conclusion)
        if self.isolated:
            self.machine = Machine(self.token)

    def finish(self, conclusion, outputs):
        for post in self.posts:
            post(conclusion)
        if self.machine:
            self.machine.close()
            self.machine = None
        return JobResult(self, conclusion, outputs)

    def action(self, with_):
        """Runs the action at action_path as one workflow step `uses: ./`
        with `with_` would (its values may hold ${{ }}); returns a JobResult."""
        self.start()
        contexts = {"github": self.github_context(), "runner": self.runner_context(),
                    "env": dict(self.env)}
        conclusion, outputs = self.run_uses({"uses": "./", "with": with_}, contexts, False)
        return self.finish(conclusion, outputs)

    def job(self, workflow_file, job_id, matrix=None, needs=None):
        """Runs one job of a workflow; returns a JobResult (outputs: each
        step's outputs by id). `needs` maps the jobs it needs to their
        JobResult; a needed job that did not succeed fails success()."""
        with open(workflow_file, encoding="utf-8") as f:
            workflow = yaml.safe_load(f)
        job = workflow["jobs"][job_id]
        needed = job.get("needs") or []
        needed = [needed] if isinstance(needed, str) else needed
        if sorted(needed) != sorted(needs or {}):
            raise ValueError("job %r needs %s, given %s" % (job_id, needed, sorted(needs or {})))
        needs_ctx = {k: {"result": r.conclusion, "outputs": {}} for k, r in (needs or {}).items()}
        contexts = {"github": self.github_context(), "runner": self.runner_context(),
                    "env": dict(self.env), "matrix": matrix or {}, "needs": needs_ctx,
                    "inputs": {}, "steps": {}}
        upstream_failed = any(r.conclusion != "success" for r in (needs or {}).values())
        if not condition(job.get("if"), contexts, upstream_failed):
            self.log.note("job %r skipped: if: %s" % (job_id, job.get("if", "success()")))
            self.steps, self.skipped, self.posts = [], [], []
            return JobResult(self, "skipped", {})
        self.start()
        for k, v in (workflow.get("env") or {}).items():
            self.env[k] = as_string(substitute(v, contexts))
        for k, v in (job.get("env") or {}).items():
            self.env[k] = as_string(substitute(v, contexts))
        shell = ((job.get("defaults") or {}).get("run") or {}).get("shell") or \
            ((workflow.get("defaults") or {}).get("run") or {}).get("shell")
        failed, results = self.run_steps(job["steps"], contexts, in_workflow=True,
                                         default_shell=shell)
        outputs = {k: r.outputs for k, r in results.items()}
        return self.finish("failure" if failed else "success", outputs)


class JobResult:
    def __init__(self, runner, conclusion, outputs):
        self.conclusion = conclusion
        self.outputs = outputs
        self.log = runner.log.text()
        self.annotations = list(runner.log.annotations)
        self.masks = list(runner.log.masks)
        self.summary = "".join(runner.summaries)
        self.skipped = list(runner.skipped)
        self.steps = list(runner.steps)

    def __repr__(self):
        return "%s %s\n%s" % (self.conclusion, json.dumps(self.outputs), self.log[-6000:])


def job_permissions(workflow_file, job_id):
    """The permissions a job's GITHUB_TOKEN gets: the job's `permissions:`,
    else the workflow's; `{}` is none. A dict of scope to "read"/"write"."""
    with open(workflow_file, encoding="utf-8") as f:
        workflow = yaml.safe_load(f)
    job = workflow["jobs"][job_id]
    perms = job["permissions"] if "permissions" in job else workflow.get("permissions")
    if perms is None:
        raise ValueError("job %r has no permissions: the documented workflows set them" % job_id)
    return dict(perms or {})


def copy_tree(src, dst, ignore=()):
    """A copy of src without the named entries at its top (build dirs)."""
    shutil.copytree(src, dst, ignore=lambda d, names: [n for n in names if d == src and n in ignore],
                    symlinks=True)


def mkdtemp():
    return tempfile.mkdtemp(prefix="himorime-action-")
