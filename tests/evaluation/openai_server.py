"""A small OpenAI-compatible server on loopback for the tests: a real model behind ``/v1/completions``.

It serves SmolLM2 through ``TransformersGenerator`` (no canned replies): a request's token-id
prompt, ``n``, ``temperature``, ``max_tokens`` and ``stop`` are what the model generates with, as
vLLM's server takes them. It counts the completions it generated and keeps the prompts it got, so
tests can tell what a run asked for.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from nemo_code_rl.evaluation.generators import Sampling, TransformersGenerator


class CompletionsServer:
    """``GET /v1/models`` and ``POST /v1/completions`` for one model, on 127.0.0.1 in a thread."""

    def __init__(self, generator: TransformersGenerator, model_name: str) -> None:
        self.generator = generator
        self.model_name = model_name
        self.generated = 0
        self.prompts: list[list[int]] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        port = self._http.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def __enter__(self) -> CompletionsServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = [int(token) for token in body["prompt"]]
        sampling = Sampling(float(body.get("temperature", 1.0)), int(body["max_tokens"]), tuple(body["stop"]))
        with self._lock:  # one generation at a time, as one model on one CPU
            made = self.generator.generate(prompt, int(body.get("n", 1)), sampling)
            self.generated += len(made)
            self.prompts.append(prompt)
        choices = [
            {"index": i, "text": g.text, "finish_reason": g.finish_reason.value} for i, g in enumerate(made)
        ]
        return {"object": "text_completion", "model": body["model"], "choices": choices}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path != "/v1/models":
                    self._reply(404, {"error": f"no route {self.path}"})
                    return
                self._reply(200, {"object": "list", "data": [{"id": server.model_name, "object": "model"}]})

            def do_POST(self) -> None:
                if self.path != "/v1/completions":
                    self._reply(404, {"error": f"no route {self.path}"})
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                self._reply(200, server.complete(body))

            def _reply(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read the counts, not the access log."""

        return Handler
