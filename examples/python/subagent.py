"""A PlanHub subagent in Python, speaking wire protocol v1 (docs/protocol.md) with python-socketio.

It registers a plan, optionally waits until another agent's step depends on its step (so a parent's fan-in can be
watched), then completes the step with structured output that PlanHub hands to every agent waiting on it.

    PLANHUB_URL=http://127.0.0.1:4000 PLANHUB_WORKSPACE=default PLANHUB_AGENT=py-subagent \\
        /usr/bin/python3 examples/python/subagent.py [--wait-for-dependent]

With --wait-for-dependent it waits up to PLANHUB_WAIT_SECONDS (default 300) for a step of another agent to depend
on its step_1, then says so and exits 1 if none did.

On a node with the default approval policy its plan waits until a person approves it (planhub approve <plan_id>,
or the dashboard); it says so on stderr, with the command for its workspace and node (-w, and --url when
PLANHUB_URL is not the default), and waits. A node with PLANHUB_APPROVAL_POLICY=auto starts it at once.

Needs python-socketio 5 with websocket-client (Debian: apt-get install python3-socketio python3-websocket).
In secret mode set PLANHUB_TOKEN (mint one with: planhub token --agent py-subagent); in open mode leave it unset.
"""

import json
import os
import queue
import shlex
import sys
import threading
import time
import urllib.parse
import uuid

import socketio


class PlanHubError(Exception):
    """A refused call or connection: `code` says whether retrying can help (UNAVAILABLE, DEADLINE_EXCEEDED)."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class PlanHub:
    """The smallest useful client: one connection, calls with acknowledgements, pushed events in a queue."""

    def __init__(self, url, workspace, agent_id, token=None, timeout=15):
        self.timeout = timeout
        self.events = queue.Queue()
        self.refusal = None
        settled = threading.Event()
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("event", self.events.put)
        self.sio.on("connect", settled.set)
        self.sio.on("connect_error", lambda *args: self._refused(args, settled))
        auth = {"token": token} if token else {"workspace": workspace, "agent_id": agent_id, "role": "agent"}
        try:
            # wait=False: python-socketio's own wait sits out its whole timeout after a refusal, then reports only
            # "One or more namespaces failed to connect"; the handlers above end the wait as soon as the node answers.
            self.sio.connect(url, transports=["websocket"], auth=auth, wait=False)
        except socketio.exceptions.ConnectionError as err:
            raise PlanHubError("UNAVAILABLE", f"cannot connect to {url}: {err}") from err
        if settled.wait(timeout) and self.refusal is None:
            return
        self.sio.disconnect()
        if self.refusal is None:
            raise PlanHubError("UNAVAILABLE", f"cannot connect to {url}: no answer within {timeout} s")
        raise PlanHubError(self.refusal["code"], self.refusal["message"])

    def _refused(self, args, settled):
        # A refusal arrives as socket.io v4's { message, data } with data = { code, message, retry_after_ms? }
        # (docs/protocol.md, "Refused connections"); one without data is not the node's word: UNAVAILABLE.
        payload = args[0] if args else None
        data = payload.get("data") if isinstance(payload, dict) else None
        if isinstance(data, dict) and isinstance(data.get("code"), str):
            self.refusal = {"code": data["code"], "message": str(data.get("message", ""))}
        else:
            message = payload.get("message") if isinstance(payload, dict) else payload
            self.refusal = {"code": "UNAVAILABLE", "message": f"connection refused: {message}"}
        settled.set()

    def call(self, tool, args=None, mutating=True, timeout=None, request_id=None):
        payload = {"tool": tool, "args": args or {}}
        if mutating:
            # The same request_id on a retry applies the change once (one put among the args is the call's own).
            payload["request_id"] = request_id or (args or {}).get("request_id") or str(uuid.uuid4())
        ack = self.sio.call("call", payload, timeout=timeout or self.timeout)
        if not ack.get("ok"):
            raise PlanHubError(ack["error"]["code"], ack["error"]["message"])
        return ack["result"]

    def next_event(self, accept, timeout, waiting_for):
        """The next pushed event for which accept(event) is true (others are skipped), within timeout seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                event = self.events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise PlanHubError("DEADLINE_EXCEEDED", f"no {waiting_for} within {timeout:g} s") from None
            if accept(event):
                return event

    def close(self):
        self.sio.disconnect()


DEFAULT_URL = "http://127.0.0.1:4000"


def node_url_problem(url):
    """Why url cannot be a node's address (as the JavaScript SDK says it), or None: python-socketio would only raise
    a ValueError with a traceback for 127.0.0.1:4000, and take a URL with another scheme for a host name."""
    parts = urllib.parse.urlsplit(url)
    try:
        host = parts.hostname
        parts.port  # raises ValueError when the port is not a number
    except ValueError:
        host = None
    if parts.scheme not in ("http", "https", "ws", "wss") or not url.lower().startswith(f"{parts.scheme}://") or not host:
        return f"url \"{url}\" is not a node's address; give one like {DEFAULT_URL}."
    return None


def open_mode_refusal(err, token):
    """A node in open mode refuses a token with the shape of an open-mode handshake ("agent_id is required"), which
    reads as if PLANHUB_AGENT were missing; the fix is to send no token. The node sends no field that says so, only
    its words."""
    if token and err.code == "UNAUTHENTICATED" and "in open mode" in err.message:
        return PlanHubError(
            err.code,
            "this node runs in open mode and takes no token: unset PLANHUB_TOKEN (the subagent then connects as "
            "PLANHUB_AGENT, default py-subagent).",
        )
    return err


def approve_command(plan_id, url, workspace, token):
    """The `planhub approve` command line that decides this plan on the node and in the workspace used here."""
    words = ["planhub", "approve", plan_id]
    if not token:
        # In secret mode the CLI takes the workspace from its own token; in open mode it must be named.
        words += ["-w", workspace]
    if url != DEFAULT_URL:
        words += ["--url", url]
    return " ".join(shlex.quote(word) for word in words)


def main():
    agent_id = os.environ.get("PLANHUB_AGENT", "py-subagent")
    url = os.environ.get("PLANHUB_URL", DEFAULT_URL)
    workspace = os.environ.get("PLANHUB_WORKSPACE", "default")
    token = os.environ.get("PLANHUB_TOKEN") or None
    problem = node_url_problem(url)
    if problem:
        print(f"planhub: {problem}", file=sys.stderr)
        sys.exit(1)
    try:
        hub = PlanHub(url, workspace, agent_id, token=token)
    except PlanHubError as err:
        raise open_mode_refusal(err, token) from None
    try:
        plan = hub.call("createPlan", {"title": "Python research", "steps": ["Collect the facts"]})
        # Both startPlan calls carry one request_id, so the second is a retry of the first: it waits for the
        # decision, or answers it at once if a person was quicker (a new startPlan on a started plan is refused).
        start_id = str(uuid.uuid4())
        started = hub.call("startPlan", {"wait": False}, request_id=start_id)
        if started["status"] == "awaiting_approval":
            # Without a word here the wait below looks like a hang: it lasts until a person decides.
            command = approve_command(plan["plan_id"], url, workspace, token)
            # In secret mode the person runs it with a token of role user (PLANHUB_TOKEN or --token).
            how = " with a user token in PLANHUB_TOKEN" if token else ""
            print(f"waiting for approval: {command}{how} (or the dashboard)", file=sys.stderr)
            sys.stderr.flush()
            started = hub.call("startPlan", {"plan_id": plan["plan_id"]}, timeout=3600, request_id=start_id)
        if started["status"] != "in_progress":
            raise PlanHubError(
                "FAILED_PRECONDITION", f"plan {plan['plan_id']} is {started['status']}: {started['message']}"
            )
        if "--wait-for-dependent" in sys.argv:

            def is_mine(ref):
                # A parent that depended on this agent before its plan existed names no plan_id.
                return (
                    ref.get("agent_id") == agent_id
                    and ref.get("step_id") == "step_1"
                    and ref.get("plan_id") in (None, plan["plan_id"])
                )

            # after_event "0-0" replays the retained history first: a step that started waiting before this
            # subscription is not missed.
            hub.call(
                "subscribeToTasks",
                {"agent_id": "*", "event_types": ["step_blocked"], "after_event": "0-0"},
                mutating=False,
            )
            wait_s = float(os.environ.get("PLANHUB_WAIT_SECONDS", "300"))
            hub.next_event(
                lambda e: any(is_mine(ref) for ref in e["payload"].get("blocked_by", [])),
                wait_s,
                f"step of another agent started waiting on {agent_id}'s step_1 (run the parent that depends on it,"
                " or raise PLANHUB_WAIT_SECONDS)",
            )
        output = {"language": "python", "facts": ["socket.io v4", "one call, one acknowledgement"]}
        done = hub.call(
            "completeStepWithOutput",
            {"step_id": "step_1", "output": output, "result": "Facts collected"},
        )
        print(json.dumps({"plan_id": plan["plan_id"], "completed": done.get("step_id", "step_1"), "output": output}))
    finally:
        hub.close()


if __name__ == "__main__":
    try:
        main()
    except PlanHubError as err:
        print(f"planhub: {err}", file=sys.stderr)
        sys.exit(1)
