"""Driver for assert-based tests (HumanEval ``check``, MBPP ``test_list``), shipped into the sandbox.

Two processes, so that the tests live in a namespace the candidate cannot reach:

* the driver reads the candidate's section of its (private) stdin, makes itself non-dumpable,
  and forks the *candidate server*, which closes stdin, points its stdout at stderr, executes
  the candidate and then answers calls ``(name, args, kwargs)`` over a socket, each result
  encoded with the codec (exact builtin data only);
* only after the fork does the driver read the tests' section; it executes the trusted prompt
  helpers, the setup code and the tests, with each candidate function replaced by a proxy that
  calls the server. Values coming back are plain data decoded by the driver, so no candidate
  object takes part in a comparison, and no candidate code runs in the driver.

Only the driver holds the execution's stdout, and it writes ``PASS_MARKER`` there only when the
test code has run to its end. The candidate cannot forge it: it has no descriptor for that pipe,
and as the driver is non-dumpable it can neither trace it nor open its ``/proc`` entries.
"""

PASS_MARKER = "@@nemo-code-rl:tests-passed@@"
HEADER_BYTES = 64


def _send(sock, text):
    data = text.encode()
    sock.sendall(len(data).to_bytes(8, "big") + data)


def _receive(sock):
    header = b""
    while len(header) < 8:
        chunk = sock.recv(8 - len(header))
        if not chunk:
            return None
        header += chunk
    size, body = int.from_bytes(header, "big"), bytearray()
    while len(body) < size:
        chunk = sock.recv(min(size - len(body), 1 << 20))
        if not chunk:
            return None
        body += chunk
    return body.decode()


def _serve_candidate(sock, candidate_source):
    """In the forked candidate server: execute the candidate, then answer calls until EOF."""
    import os
    import sys

    os.dup2(2, 1)
    sys.stdout = sys.stderr
    namespace = {"__name__": "solution", "__builtins__": __builtins__}
    try:
        code = compile(candidate_source, "solution.py", "exec")
    except (SyntaxError, ValueError) as exc:
        _send(sock, json.dumps({"names": [], "failure": f"{type(exc).__name__}: {exc}", "syntax": True}))
        os._exit(0)
    try:
        exec(code, namespace)
        failure = None
    except BaseException as exc:  # noqa: BLE001 - reported to the tests as the candidate's failure
        failure = f"{type(exc).__name__}: {exc}"
    names = sorted(k for k, v in namespace.items() if callable(v) and not k.startswith("__"))
    _send(sock, json.dumps({"names": names, "failure": failure}))
    while True:
        request = _receive(sock)
        if request is None:
            os._exit(0)
        try:
            name, args, kwargs = loads(request)
            reply = json.dumps({"value": to_plain(namespace[name](*args, **kwargs))})
        except BaseException as exc:  # noqa: BLE001 - any failure of the candidate becomes the call's error
            reply = json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]})
        _send(sock, reply)


class CandidateError(Exception):
    """The candidate failed, or returned something that is not plain data."""


class CandidateSyntaxError(CandidateError):
    """The candidate's code does not compile."""


def _proxy(sock, name):
    def call(*args, **kwargs):
        _send(sock, dumps((name, args, kwargs)))
        reply = _receive(sock)
        if reply is None:
            raise CandidateError(f"the candidate process ended during a call to {name}()")
        reply = json.loads(reply)
        if "error" in reply:
            raise CandidateError(f"{name}() raised {reply['error']}")
        return from_plain(reply["value"])

    call.__name__ = name
    return call


def run_tests(entry_point):
    import ctypes
    import os
    import socket
    import sys

    sizes = os.pread(0, HEADER_BYTES, 0).split()
    candidate_bytes, tests_bytes = int(sizes[0]), int(sizes[1])
    candidate_source = json.loads(os.pread(0, candidate_bytes, HEADER_BYTES))
    if ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 0
        raise OSError("could not make the test driver non-dumpable")
    ours, theirs = socket.socketpair()
    if os.fork() == 0:
        ours.close()
        os.closerange(0, 1)
        os.closerange(3, theirs.fileno())
        os.closerange(theirs.fileno() + 1, 1 << 16)
        try:
            _serve_candidate(theirs, candidate_source)
        finally:
            os._exit(0)
    theirs.close()
    tests = json.loads(os.pread(0, tests_bytes, HEADER_BYTES + candidate_bytes))
    os.close(0)
    greeting = _receive(ours)
    if greeting is None:
        raise CandidateError("the candidate process ended while loading")
    greeting = json.loads(greeting)
    if greeting.get("syntax"):
        raise CandidateSyntaxError(greeting["failure"])
    if greeting["failure"]:
        raise CandidateError(f"the candidate failed to load: {greeting['failure']}")
    import linecache

    for filename in ("prompt.py", "setup.py", "test.py"):
        text = tests[{"prompt.py": "helpers", "setup.py": "setup", "test.py": "test"}[filename]]
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    exec(compile(tests["helpers"], "prompt.py", "exec"), namespace)
    trusted = {k for k in namespace if not k.startswith("__")} - {entry_point}
    for name in greeting["names"]:
        if name not in trusted:
            namespace[name] = _proxy(ours, name)
    if entry_point not in greeting["names"]:
        raise CandidateError(f"the program defines no function {entry_point!r}")
    exec(compile(tests["setup"], "setup.py", "exec"), namespace)
    exec(compile(tests["test"], "test.py", "exec"), namespace)
    sys.stdout.flush()
    os.write(1, (PASS_MARKER + "\n").encode())
