#!/usr/bin/env python3
"""A fake GitHub REST API on 127.0.0.1 for himorime's tests (standard library only).

    server.py --dir DIR [--idle SECONDS]

It binds a random free port and writes it to DIR/port. The test drives it
through two files in DIR:

- scenario.json (written by the test): the state to start from and the faults
  to inject. Whenever its "gen" changes the server resets to it before
  answering the next request. Fields (all optional):
    tokens     {"<token>": {"login": ..., "type": "User"|"Bot"} | null}
               null: an installation token (GET /user answers 403 and it
               writes as github-actions[bot])
    read_only  ["<token>", ...]: writes answer 403 "Resource not accessible
               by integration"
    issues     {"owner/name/N": [{"user": {...}, "body": "..."}, ...]}
    pulls      {"owner/name/SHA": [pull request objects]} for commits/SHA/pulls,
               {"owner/name/open": [...]} for the list of open pull requests
    faults     [{"method", "path" (regex on the path without query), "count",
                 "status", "headers", "body"}], used in order, each `count` times
    race       {"method", "path", "issue", "comment"}: once, just before the
               first matching request is handled, `comment` is added to `issue`
               (another run writing between our list and our post)
    permissions {"<token>": ["checks", "statuses", "pull-requests", ...]}: what
               a token listed here may do (the job's `permissions:`); any
               check-runs request without "checks", a status without
               "statuses", a comment written without "pull-requests" answers
               403 "Resource not accessible by integration". Tokens not
               listed may do everything.
    apps       {"<token>": {"slug", "id"}}: the GitHub App an installation
               token belongs to (default github-actions, 15368); a token
               with a user identity may read check runs and write none
               (403 "You must authenticate via a GitHub App.")
    commits    ["<sha>", ...]: the commits the repository has; when given,
               a check run or a status on another one answers 422 "No
               commit found for SHA: <sha>"
    check_runs [{"name", "head_sha", "status", "conclusion", "external_id",
               "app", "output", "annotations", "repo"}]: check runs there
               already (ids from 5001)
- log.json (written by the server after every request, before answering):
    {"requests": [{"method", "path", "headers", "body"}], "violations": [...],
     "issues": {...}, "statuses": [...], "check_runs": [...]}

The Checks API as GitHub documents it: a check run is created with a name and
a head_sha, updated by id by the app that created it, its output's title and
summary required, summary and text at most 65,535 characters, at most 50
annotations per request (appended on every update, never removed), and a
completed check run is never set back to in_progress (422). Conclusions are
GitHub's, except that `action_required` and `stale` are violations here:
himorime never gives them.

Every request must carry the four headers of GitHub's contract and a known
Bearer token, and write requests a JSON body of the documented shape; a
request that breaks the contract gets 400 and is listed in "violations".
Paths may carry GitHub Enterprise Server's /api/v3 prefix. The server exits
on SIGTERM and after --idle seconds without a request.
"""

import argparse
import json
import os
import re
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, quote, urlsplit

BOT = {"login": "github-actions[bot]", "type": "Bot"}
STATUS_KEYS = {"state", "target_url", "description", "context"}
ACTIONS_APP = {"slug": "github-actions", "id": 15368}
RUN_KEYS = {"name", "head_sha", "details_url", "external_id", "status", "started_at",
            "conclusion", "completed_at", "output", "actions"}
OUTPUT_KEYS = {"title", "summary", "text", "annotations", "images"}
ANNOTATION_KEYS = {"path", "start_line", "end_line", "start_column", "end_column",
                   "annotation_level", "message", "title", "raw_details"}
CONCLUSIONS = {"cancelled", "failure", "neutral", "success", "skipped", "timed_out"}
TEXT_MAX = 65535


class State:
    def __init__(self, directory):
        self.dir = directory
        self.gen = None
        self.reset({})

    def reset(self, scenario):
        self.scenario = scenario
        self.tokens = scenario.get("tokens", {})
        self.read_only = set(scenario.get("read_only", []))
        self.faults = [dict(f) for f in scenario.get("faults", [])]
        self.race = scenario.get("race")
        self.pulls = scenario.get("pulls", {})
        self.next_id = 1000
        self.issues = {}
        for key, comments in scenario.get("issues", {}).items():
            self.issues[key] = [self.make_comment(c["user"], c["body"]) for c in comments]
        self.requests = []
        self.violations = []
        self.statuses = []
        self.permissions = scenario.get("permissions", {})
        self.apps = scenario.get("apps", {})
        self.commits = scenario.get("commits")
        self.check_runs = []
        for run in scenario.get("check_runs", []):
            self.add_check_run(dict(run))

    def add_check_run(self, run):
        run["id"] = 5001 + len(self.check_runs)
        run.setdefault("repo", "octo/repo")
        run.setdefault("status", "queued")
        run.setdefault("conclusion", None)
        run.setdefault("external_id", None)
        run.setdefault("details_url", None)
        run.setdefault("app", ACTIONS_APP)
        run["output"] = dict({"title": None, "summary": None, "text": None},
                             **run.get("output", {}))
        run.setdefault("annotations", [])
        self.check_runs.append(run)
        return run

    def make_comment(self, user, body):
        self.next_id += 1
        return {"id": self.next_id, "user": dict(user), "body": body}

    def maybe_reload(self):
        path = os.path.join(self.dir, "scenario.json")
        try:
            with open(path, encoding="utf-8") as f:
                scenario = json.load(f)
        except (OSError, ValueError):
            return
        if scenario.get("gen") != self.gen:
            self.gen = scenario.get("gen")
            self.reset(scenario)

    def save(self):
        doc = {
            "requests": self.requests,
            "violations": self.violations,
            "issues": self.issues,
            "statuses": self.statuses,
            "check_runs": self.check_runs,
        }
        tmp = os.path.join(self.dir, "log.json.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        os.replace(tmp, os.path.join(self.dir, "log.json"))


class Handler(BaseHTTPRequestHandler):
    server_version = "fake-github"
    protocol_version = "HTTP/1.1"
    timeout = 10  # a client that stops talking cannot hold the server

    def log_message(self, fmt, *args):  # keep test output quiet
        pass

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")

    def handle_any(self, method):
        st = self.server.state
        self.server.last_request = time.monotonic()
        st.maybe_reload()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = raw.decode("utf-8", "replace")
        st.requests.append({
            "method": method,
            "path": self.path,
            "headers": {k: v for k, v in self.headers.items()},
            "body": body,
        })
        split = urlsplit(self.path)
        path = split.path
        self.prefix = ""
        if path.startswith("/api/v3/"):
            self.prefix = "/api/v3"
            path = path[len(self.prefix):]
        query = parse_qs(split.query)
        try:
            status, headers, payload = self.route(st, method, path, query, body)
        except Exception as e:  # a bug here must show up as a failed test, not a hang
            status, headers, payload = 500, {}, {"message": "fake server bug: %r" % (e,)}
        st.save()
        self.answer(status, headers, payload)

    def answer(self, status, headers, payload):
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def violation(self, st, why):
        st.violations.append({"request": len(st.requests) - 1, "why": why})
        return 400, {}, {"message": "contract: " + why}

    def check_contract(self, st, method, body):
        h = self.headers
        if h.get("Accept") != "application/vnd.github+json":
            return "Accept header is %r" % h.get("Accept")
        if h.get("X-GitHub-Api-Version") != "2022-11-28":
            return "X-GitHub-Api-Version header is %r" % h.get("X-GitHub-Api-Version")
        if not (h.get("User-Agent") or "").startswith("himorime/"):
            return "User-Agent header is %r" % h.get("User-Agent")
        auth = h.get("Authorization") or ""
        if not auth.startswith("Bearer ") or auth[7:] not in st.tokens:
            return "Authorization is not a known Bearer token"
        if method in ("POST", "PATCH"):
            if not (h.get("Content-Type") or "").startswith("application/json"):
                return "Content-Type header is %r" % h.get("Content-Type")
            try:
                self.json = json.loads(body)
            except ValueError:
                return "body is not JSON"
            if not isinstance(self.json, dict):
                return "body is not a JSON object"
        elif body:
            return "%s with a body" % method
        return None

    def token(self):
        return self.headers.get("Authorization", "")[7:]

    def identity(self, st):
        return st.tokens.get(self.token()) or BOT

    def take_fault(self, st, method, path):
        for f in st.faults:
            if f.get("count", 1) > 0 and f.get("method", method) == method and \
                    re.fullmatch(f.get("path", ".*"), path):
                f["count"] = f.get("count", 1) - 1
                return f.get("status", 500), f.get("headers", {}), f.get("body", {"message": "fault"})
        return None

    def route(self, st, method, path, query, body):
        why = self.check_contract(st, method, body)
        if why:
            return self.violation(st, why)
        fault = self.take_fault(st, method, path)
        if fault:
            return fault
        race = st.race
        if race and race.get("method") == method and re.fullmatch(race["path"], path):
            st.race = None
            st.issues.setdefault(race["issue"], []).append(
                st.make_comment(race["comment"]["user"], race["comment"]["body"]))
        if method != "GET" and self.token() in st.read_only:
            return 403, {}, {"message": "Resource not accessible by integration"}
        if not self.permitted(st, method, path):
            return 403, {}, {"message": "Resource not accessible by integration"}
        if "/check-runs" in path:
            return self.checks(st, method, path, query)

        if path == "/user" and method == "GET":
            user = st.tokens.get(self.token())
            if user is None:
                return 403, {}, {"message": "Resource not accessible by integration"}
            return 200, {}, dict(user, id=1)

        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
        if m:
            key = "%s/%s" % (m.group(1), m.group(2))
            if method == "GET":
                return self.list_comments(st, key, query)
            if method == "POST":
                text = self.json.get("body")
                if set(self.json) != {"body"} or not isinstance(text, str) or len(text) >= 65536:
                    return self.violation(st, "comment body must be {\"body\": string < 65536}")
                c = st.make_comment(self.identity(st), text)
                st.issues.setdefault(key, []).append(c)
                return 201, {}, c

        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
        if m and method in ("PATCH", "DELETE"):
            cid = int(m.group(2))
            for key, comments in st.issues.items():
                if not key.startswith(m.group(1) + "/"):
                    continue
                for i, c in enumerate(comments):
                    if c["id"] != cid:
                        continue
                    if method == "DELETE":
                        del comments[i]
                        return 204, {}, None
                    text = self.json.get("body")
                    if set(self.json) != {"body"} or not isinstance(text, str) or len(text) >= 65536:
                        return self.violation(st, "comment body must be {\"body\": string < 65536}")
                    c["body"] = text
                    return 200, {}, c
            return 404, {}, {"message": "Not Found"}

        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/statuses/([0-9a-f]{40})", path)
        if m and method == "POST" and not self.has_commit(st, m.group(2)):
            return 422, {}, {"message": "No commit found for SHA: %s" % m.group(2)}
        if m and method == "POST":
            j = self.json
            if not set(j) <= STATUS_KEYS or j.get("state") not in ("success", "failure", "error", "pending") \
                    or j.get("context") != "himorime" or not isinstance(j.get("description"), str) \
                    or len(j["description"]) > 140 or not isinstance(j.get("target_url", ""), str):
                return self.violation(st, "status body breaks the contract")
            st.statuses.append({"repo": m.group(1), "sha": m.group(2), **j})
            return 201, {}, dict(j, id=len(st.statuses))

        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/commits/([0-9a-f]{40})/pulls", path)
        if m and method == "GET":
            return 200, {}, st.pulls.get("%s/%s" % (m.group(1), m.group(2)), [])

        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls", path)
        if m and method == "GET":
            if query.get("state", ["open"])[0] != "open":
                return self.violation(st, "pulls are listed with state=open")
            return self.paginate(st, st.pulls.get("%s/open" % m.group(1), []), query)

        return 404, {}, {"message": "Not Found"}

    def list_comments(self, st, key, query):
        return self.paginate(st, st.issues.get(key, []), query)

    def paginate(self, st, items, query, envelope=None):
        """One page of items; the next page's link keeps the other query
        parameters. With `envelope`, the page is {"total_count": N,
        envelope: [...]}, as the check-runs list is."""
        try:
            per_page = min(int(query.get("per_page", ["30"])[0]), 100)
            page = int(query.get("page", ["1"])[0])
        except ValueError:
            return self.violation(st, "per_page or page is not a number")
        chunk = items[(page - 1) * per_page:page * per_page]
        headers = {}
        last = max(1, (len(items) + per_page - 1) // per_page)
        if page < last:
            base = "http://%s%s%s" % (self.headers.get("Host"), self.prefix,
                                     urlsplit(self.path).path[len(self.prefix):])
            rest = "".join("&%s=%s" % (k, quote(v[0], safe="")) for k, v in sorted(query.items())
                           if k not in ("per_page", "page"))
            link = '<%s?per_page=%d&page=%d%s>; rel="%s"'
            headers["Link"] = ", ".join((link % (base, per_page, page + 1, rest, "next"),
                                         link % (base, per_page, last, rest, "last")))
        if envelope:
            return 200, headers, {"total_count": len(items), envelope: chunk}
        return 200, headers, chunk

    # -- permissions, apps and commits ---------------------------------------

    def permitted(self, st, method, path):
        allowed = st.permissions.get(self.token())
        if allowed is None:
            return True
        if "/check-runs" in path:
            return "checks" in allowed
        if re.fullmatch(r"/repos/[^/]+/[^/]+/statuses/[^/]+", path):
            return "statuses" in allowed
        if "/issues/" in path and method != "GET":
            return "pull-requests" in allowed
        return True

    def app(self, st):
        return st.apps.get(self.token(), ACTIONS_APP)

    def has_commit(self, st, sha):
        return st.commits is None or sha in st.commits

    # -- the Checks API ------------------------------------------------------

    def checks(self, st, method, path, query):
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/commits/([0-9a-f]+)/check-runs", path)
        if m and method == "GET":
            if not self.has_commit(st, m.group(2)):
                return 422, {}, {"message": "No commit found for SHA: %s" % m.group(2)}
            return self.list_check_runs(st, m.group(1), m.group(2), query)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/check-runs/(\d+)/annotations", path)
        if m and method == "GET":
            run = self.find_run(st, m.group(1), int(m.group(2)))
            if run is None:
                return 404, {}, {"message": "Not Found"}
            return self.paginate(st, run["annotations"], query)
        if method != "GET" and st.tokens.get(self.token()) is not None:
            return 403, {}, {"message": "You must authenticate via a GitHub App."}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/check-runs", path)
        if m and method == "POST":
            return self.create_check_run(st, m.group(1))
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/check-runs/(\d+)", path)
        if m and method == "PATCH":
            return self.update_check_run(st, m.group(1), int(m.group(2)))
        return 404, {}, {"message": "Not Found"}

    def find_run(self, st, repo, run_id):
        for run in st.check_runs:
            if run["id"] == run_id and run["repo"] == repo:
                return run
        return None

    def run_view(self, run):
        view = {k: v for k, v in run.items() if k not in ("annotations", "repo")}
        view["output"] = dict(run["output"], annotations_count=len(run["annotations"]))
        return view

    def list_check_runs(self, st, repo, sha, query):
        runs = [r for r in st.check_runs if r["repo"] == repo and r["head_sha"] == sha]
        if "check_name" in query:
            runs = [r for r in runs if r["name"] == query["check_name"][0]]
        if query.get("filter", ["latest"])[0] == "latest":
            newest = {}
            for r in runs:
                newest[(r["name"], r["app"]["id"])] = r
            runs = list(newest.values())
        runs.sort(key=lambda r: -r["id"])
        return self.paginate(st, [self.run_view(r) for r in runs], query, "check_runs")

    def check_output(self, output):
        """Why an output breaks the API's contract, or None."""
        if not isinstance(output, dict) or not set(output) <= OUTPUT_KEYS:
            return "output has keys %s" % sorted(output) if isinstance(output, dict) else \
                "output is not an object"
        for key in ("title", "summary"):
            if not isinstance(output.get(key), str):
                return "output.%s is required" % key
        for key in ("summary", "text"):
            if len(output.get(key) or "") > TEXT_MAX:
                return "output.%s is longer than %d characters" % (key, TEXT_MAX)
        annotations = output.get("annotations", [])
        if not isinstance(annotations, list) or len(annotations) > 50:
            return "at most 50 annotations per request"
        for a in annotations:
            if not isinstance(a, dict) or not set(a) <= ANNOTATION_KEYS or \
                    not isinstance(a.get("path"), str) or not a["path"] or \
                    not isinstance(a.get("message"), str) or \
                    a.get("annotation_level") not in ("notice", "warning", "failure") or \
                    not isinstance(a.get("start_line"), int) or a["start_line"] < 1 or \
                    not isinstance(a.get("end_line"), int) or a["end_line"] < a["start_line"] or \
                    len(a.get("title") or "") > 255 or len(a["message"]) > 65536:
                return "annotation %r breaks the contract" % (a,)
        return None

    def check_run_body(self, j, create):
        """Why a create or update body breaks the contract, or None."""
        keys = RUN_KEYS if create else RUN_KEYS - {"head_sha"}
        if not set(j) <= keys:
            return "check run keys %s" % sorted(set(j) - keys)
        if create and (not isinstance(j.get("name"), str) or not j["name"] or
                       not isinstance(j.get("head_sha"), str)):
            return "a check run is created with a name and a head_sha"
        if "name" in j and (not isinstance(j["name"], str) or not j["name"]):
            return "name must be a non-empty string"
        if j.get("status", "in_progress") not in ("queued", "in_progress", "completed"):
            return "status %r" % j.get("status")
        if "conclusion" in j and j["conclusion"] not in CONCLUSIONS:
            return "conclusion %r (himorime never gives action_required)" % j["conclusion"]
        if j.get("status") == "completed" and "conclusion" not in j:
            return "a completed check run needs a conclusion"
        if "conclusion" in j and j.get("status", "completed") != "completed":
            return "a conclusion completes the check run"
        for key in ("details_url", "external_id"):
            if key in j and not isinstance(j[key], str):
                return "%s must be a string" % key
        if "output" in j:
            return self.check_output(j["output"])
        return None

    def apply(self, run, j):
        for key in ("name", "details_url", "external_id", "status", "conclusion"):
            if key in j:
                run[key] = j[key]
        if "conclusion" in j:
            run["status"] = "completed"
        if "output" in j:
            out = j["output"]
            run["output"]["title"] = out["title"]
            run["output"]["summary"] = out["summary"]
            if "text" in out:
                run["output"]["text"] = out["text"]
            run["annotations"].extend(out.get("annotations", []))

    def create_check_run(self, st, repo):
        why = self.check_run_body(self.json, True)
        if why:
            return self.violation(st, why)
        if not self.has_commit(st, self.json["head_sha"]):
            return 422, {}, {"message": "No commit found for SHA: %s" % self.json["head_sha"]}
        run = st.add_check_run({"repo": repo, "head_sha": self.json["head_sha"],
                                "app": self.app(st), "name": self.json["name"]})
        self.apply(run, self.json)
        return 201, {}, self.run_view(run)

    def update_check_run(self, st, repo, run_id):
        run = self.find_run(st, repo, run_id)
        if run is None:
            return 404, {}, {"message": "Not Found"}
        if run["app"]["id"] != self.app(st)["id"]:
            return 403, {}, {"message": "Invalid app_id: the check run belongs to another app"}
        why = self.check_run_body(self.json, False)
        if why:
            return self.violation(st, why)
        if run["status"] == "completed" and self.json.get("status") in ("queued", "in_progress"):
            return 422, {}, {"message": "a completed check run cannot go back to %s"
                             % self.json["status"]}
        self.apply(run, self.json)
        return 200, {}, self.run_view(run)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--idle", type=float, default=60.0)
    args = ap.parse_args()

    server = HTTPServer(("127.0.0.1", 0), Handler)
    server.state = State(args.dir)
    server.last_request = time.monotonic()
    server.timeout = 0.2

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    tmp = os.path.join(args.dir, "port.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, os.path.join(args.dir, "port"))
    try:
        while time.monotonic() - server.last_request < args.idle:
            server.handle_request()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
