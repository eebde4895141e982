#!/usr/bin/env python3
"""A fake LLM endpoint for the tests: OpenAI-compatible chat completions and
Anthropic messages, answering from a script.

    llm-server.py SCRIPT PORTFILE LOG

SCRIPT is a JSON list of replies, used in order (the last one repeats):
    {"status": 200, "text": "...", "tokens": 30, "finish": "stop",
     "delay": 0.0, "raw": null}
"text" becomes the API's reply JSON for the path asked (/chat/completions or
/v1/messages); "raw" is sent as the body instead, as is (malformed JSON,
say); "delay" waits before answering (a slow server). The port it listens
on (127.0.0.1, chosen by the system) is written to PORTFILE; every request
is one JSON line in LOG: path, body, and which auth header came (its value
is never written).

A script whose replies say "match" (a text the request's body must
contain, as sent: JSON-escaped) or "times" (how often the reply may be
given) answers by role instead of in order: the first reply that matches
and has uses left, so that the loop's Planner, Optimizer and Repairer each
get theirs whatever the order they ask in. A request nothing matches gets
HTTP 404. The server ends when the process that started it does.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

script = json.load(open(sys.argv[1]))
log = open(sys.argv[3], "a", buffering=1)
state = {"n": 0}
by_role = any("match" in r or "times" in r for r in script)
used = [0] * len(script)
NO_MATCH = {"status": 404, "raw": "{\"error\": {\"message\": \"no scripted reply\"}}"}


def pick(body):
    if not by_role:
        return script[min(state["n"], len(script) - 1)]
    for i, r in enumerate(script):
        if r.get("match", "") in body and used[i] < r.get("times", 1 << 30):
            used[i] += 1
            return r
    return NO_MATCH


def reply_body(path, r):
    if r.get("raw") is not None:
        return r["raw"].encode()
    text, tokens = r.get("text", ""), r.get("tokens", 10)
    if path.endswith("/messages"):
        stop = "max_tokens" if r.get("finish") == "length" else "end_turn"
        return json.dumps({
            "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop,
            "usage": {"input_tokens": tokens // 2,
                      "output_tokens": tokens - tokens // 2}}).encode()
    return json.dumps({
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": r.get("finish", "stop"),
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": tokens // 2,
                  "completion_tokens": tokens - tokens // 2,
                  "total_tokens": tokens}}).encode()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        r = pick(body.decode("utf-8", "replace"))
        state["n"] += 1
        log.write(json.dumps({
            "path": self.path, "body": body.decode("utf-8", "replace"),
            "authorization": self.headers.get("Authorization") is not None,
            "x_api_key": self.headers.get("x-api-key") is not None}) + "\n")
        time.sleep(r.get("delay", 0))
        out = reply_body(self.path, r)
        try:
            self.send_response(r.get("status", 200))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


def orphaned(parent):
    # A test that failed before stopping its server must not leave it.
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


threading.Thread(target=orphaned, args=(os.getppid(),), daemon=True).start()
server = HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
