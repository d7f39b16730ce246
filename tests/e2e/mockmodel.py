"""A scripted model on 127.0.0.1 that speaks the four APIs the agents use, and records what they send.

Run as a program (``python mockmodel.py SCRIPT LOG``): it binds a free port, prints it, and serves
until killed. SCRIPT is a JSON file ``{"tool": NAME, "input": {...}}`` (or ``{"tool": NAME, "text":
RAW}`` for a freeform tool such as Codex's apply_patch). Every request body is appended to LOG as a
JSON line ``{"path", "body"}``, so a test can read what went back to the model: the tool's result,
the hook's reason, a nudge.

How it answers, the same for every API: a request that carries a tool's result gets a plain text
("done"); a request that offers tools gets the scripted tool call; anything else (titles, token
counts, warm-ups) gets a plain text. So each agent run makes exactly one scripted call.

APIs: Anthropic Messages (Claude Code), OpenAI Responses (Codex), OpenAI Chat Completions (Copilot
CLI, pi), Gemini generateContent (Gemini CLI); streamed (SSE) when the request asks for it.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DONE = "done"


def has_tool_result(body: Any) -> bool:
    """Whether a request carries the result of a tool call, in any of the four APIs."""
    text = json.dumps(body)
    markers = (
        '"type": "tool_result"',  # Anthropic
        '"type": "function_call_output"',  # Responses
        '"type": "custom_tool_call_output"',  # Responses, freeform tools
        '"role": "tool"',  # Chat Completions
        '"functionResponse"',  # Gemini
    )
    return any(marker in text for marker in markers)


def _offers_tools(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    tools = body.get("tools")
    return isinstance(tools, list) and bool(tools)


class Model:
    """The script, the log, and the answers."""

    def __init__(self, script: dict[str, Any], log: str) -> None:
        self.script = script
        self.log = log
        self.lock = threading.Lock()
        self.calls = 0

    def record(self, path: str, body: Any) -> None:
        with self.lock, open(self.log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"path": path, "body": body}) + "\n")

    def wants_call(self, body: Any) -> bool:
        if has_tool_result(body) or not _offers_tools(body):
            return False
        with self.lock:
            self.calls += 1
            return self.calls == 1


class Handler(BaseHTTPRequestHandler):
    model: Model
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # models lists, health checks
        self.model.record(self.path, None)
        if "models" in self.path:
            self._json({"object": "list", "data": [{"id": "mock", "object": "model"}], "models": []})
        else:
            self._json({})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.model.record(self.path, body)
        call = self.model.wants_call(body)
        path = self.path.split("?")[0]
        stream = (isinstance(body, dict) and body.get("stream") is True) or "alt=sse" in self.path
        stream = stream or path.endswith(":streamGenerateContent")
        if path.endswith("/messages"):
            self._anthropic(call, stream)
        elif path.endswith("/responses"):
            self._responses(call, stream)
        elif path.endswith("/chat/completions"):
            self._chat(call, stream)
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            self._gemini(call, stream)
        elif path.endswith(("count_tokens", ":countTokens")):
            self._json({"input_tokens": 10, "totalTokens": 10})
        else:
            self._json({})

    # --- transport ----------------------------------------------------------------------------

    def _json(self, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _sse(self, events: list[tuple[str | None, Any]]) -> None:
        parts = []
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            parts.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
        raw = "".join(parts).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    # --- the scripted call -------------------------------------------------------------------

    def _arguments(self) -> str:
        script = self.model.script
        return script["text"] if "text" in script else json.dumps(script.get("input", {}))

    # --- Anthropic Messages ------------------------------------------------------------------

    def _anthropic(self, call: bool, stream: bool) -> None:
        script = self.model.script
        usage = {"input_tokens": 10, "output_tokens": 5}
        if call:
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": "toolu_mock1",
                "name": script["tool"],
                "input": {},
            }
            full = {**block, "input": script.get("input", {})}
            delta = {"type": "input_json_delta", "partial_json": self._arguments()}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            full = {"type": "text", "text": DONE}
            delta = {"type": "text_delta", "text": DONE}
            stop = "end_turn"
        message = {
            "id": "msg_mock",
            "type": "message",
            "role": "assistant",
            "model": "claude-mock",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        if not stream:
            self._json({**message, "content": [full], "stop_reason": stop})
            return
        self._sse(
            [
                ("message_start", {"type": "message_start", "message": message}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )

    # --- OpenAI Responses --------------------------------------------------------------------

    def _responses(self, call: bool, stream: bool) -> None:
        script = self.model.script
        if call and "text" in script:
            item: dict[str, Any] = {
                "type": "custom_tool_call",
                "id": "ctc_mock1",
                "call_id": "call_mock1",
                "name": script["tool"],
                "input": script["text"],
                "status": "completed",
            }
        elif call:
            item = {
                "type": "function_call",
                "id": "fc_mock1",
                "call_id": "call_mock1",
                "name": script["tool"],
                "arguments": self._arguments(),
                "status": "completed",
            }
        else:
            item = {
                "type": "message",
                "id": "msg_mock1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": DONE, "annotations": []}],
            }
        usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        response = {
            "id": "resp_mock",
            "object": "response",
            "status": "completed",
            "output": [item],
            "usage": usage,
        }
        if not stream:
            self._json(response)
            return
        self._sse(
            [
                ("response.created", {"type": "response.created", "response": {**response, "output": []}}),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                ),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                ("response.completed", {"type": "response.completed", "response": response}),
            ]
        )

    # --- OpenAI Chat Completions -------------------------------------------------------------

    def _chat(self, call: bool, stream: bool) -> None:
        script = self.model.script
        base = {"id": "chatcmpl-mock", "created": 0, "model": "mock"}
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if call:
            tool_call = {
                "index": 0,
                "id": "call_mock1",
                "type": "function",
                "function": {"name": script["tool"], "arguments": self._arguments()},
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [tool_call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": DONE}
            finish = "stop"
        if not stream:
            choice = {"index": 0, "message": message, "finish_reason": finish}
            self._json({**base, "object": "chat.completion", "choices": [choice], "usage": usage})
            return
        chunk = {**base, "object": "chat.completion.chunk"}
        self._sse(
            [
                (None, {**chunk, "choices": [{"index": 0, "delta": message, "finish_reason": None}]}),
                (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
                (None, {**chunk, "choices": [], "usage": usage}),
                (None, "[DONE]"),
            ]
        )

    # --- Gemini ------------------------------------------------------------------------------

    def _gemini(self, call: bool, stream: bool) -> None:
        script = self.model.script
        if call:
            part: dict[str, Any] = {"functionCall": {"name": script["tool"], "args": script.get("input", {})}}
        else:
            part = {"text": DONE}
        data = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "gemini-mock",
        }
        if stream:
            self._sse([(None, data)])
        else:
            self._json(data)


def serve(script: dict[str, Any], log: str) -> ThreadingHTTPServer:
    """A server on a free port of 127.0.0.1 (``server.server_port``), not yet serving."""
    model = Model(script, log)
    handler = type("BoundHandler", (Handler,), {"model": model})
    return ThreadingHTTPServer(("127.0.0.1", 0), handler)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        server = serve(json.load(handle), sys.argv[2])
    print(server.server_port, flush=True)
    server.serve_forever()
