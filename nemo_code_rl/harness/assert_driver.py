"""Driver for assert-based tests (HumanEval ``check``, MBPP ``test_list``), shipped into the sandbox.

Two processes, so that the tests live in a namespace the candidate cannot reach:

* the driver reads the candidate's section of its (private) stdin, makes itself non-dumpable,
  and forks the *candidate server*, which closes stdin and then, for each test, executes the
  candidate in a fresh namespace and answers calls ``(name, args, kwargs)`` over a socket, each
  result encoded with the codec (exact builtin data only);
* only after the fork does the driver read the tests' section; it executes the trusted prompt
  helpers, the setup code and the tests, with each candidate function replaced by a proxy that
  calls the server. Values coming back are plain data decoded by the driver, so no candidate
  object takes part in a comparison, and no candidate code runs in the driver.

The engine runs a program's tests one after another in one process, so the server forked for the
first test serves the next ones too (a fork per test would cost more than the test): each test
starts with a *reset* that hands the server that test's stderr (the server's stdout and stderr both
go there) and CPU budget, and re-executes the candidate in a fresh namespace, as the engine does
for every input. A server that died is replaced. A server never sees a test's stdin: it closed
stdin when it was forked, and the driver reads each test only after that.

Only the driver holds the execution's stdout, and it writes ``PASS_MARKER`` there only when the
test code has run to its end. The candidate cannot forge it: it has no descriptor for that pipe,
and as the driver is non-dumpable it can neither trace it nor open its ``/proc`` entries.
"""

import array
import socket
import sys

PASS_MARKER = "@@nemo-code-rl:tests-passed@@"
HEADER_BYTES = 64
_SERVER = "__nemo_code_rl_candidate_server__"  # where the driver process keeps its server between tests


def _send(sock, text, fds=()):
    data = text.encode()
    header = len(data).to_bytes(8, "big")
    if fds:
        sock.sendmsg([header], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    else:
        sock.sendall(header)
    sock.sendall(data)


def _receive(sock, fds=None):
    """One message, or ``None`` at EOF; descriptors sent with it are appended to ``fds``."""
    header = b""
    while len(header) < 8:
        if fds is None:
            chunk = sock.recv(8 - len(header))
        else:
            chunk, ancillary, _, _ = sock.recvmsg(8 - len(header), socket.CMSG_SPACE(4))
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.extend(array.array("i", data[: len(data) - len(data) % 4]))
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
    """In the forked candidate server: per test, reset and execute the candidate, then answer calls."""
    import os
    import resource

    os.dup2(2, 1)  # never the driver's stdout, where only the driver may write the pass marker
    sys.stdout = sys.stderr
    try:
        code = compile(candidate_source, "solution.py", "exec")
        syntax = None
    except (SyntaxError, ValueError) as exc:
        code, syntax = None, f"{type(exc).__name__}: {exc}"
    namespace = {}
    while True:
        fds = []
        request = _receive(sock, fds)
        if request is None:
            os._exit(0)
        message = json.loads(request)
        if type(message) is dict and "reset" in message:
            _take_test_output(fds)
            used = resource.getrusage(resource.RUSAGE_SELF)
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            soft = int(used.ru_utime + used.ru_stime + message["reset"]) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (soft if hard < 0 else min(soft, hard), hard))
            if code is None:
                _send(sock, json.dumps({"names": [], "failure": syntax, "syntax": True}))
                continue
            namespace = {"__name__": "solution", "__builtins__": __builtins__}
            try:
                exec(code, namespace)
                failure = None
            except BaseException as exc:  # noqa: BLE001 - reported to the tests as the candidate's failure
                failure = f"{type(exc).__name__}: {exc}"
            names = sorted(k for k, v in namespace.items() if callable(v) and not k.startswith("__"))
            _send(sock, json.dumps({"names": names, "failure": failure}))
            continue
        try:
            name, args, kwargs = from_plain(message)
            reply = json.dumps({"value": to_plain(namespace[name](*args, **kwargs))})
        except BaseException as exc:  # noqa: BLE001 - any failure of the candidate becomes the call's error
            reply = json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]})
        _send(sock, reply)


def _take_test_output(fds):
    """Point the server's stdout and stderr at the current test's stderr (sent with the reset)."""
    import os

    try:
        sys.stderr.flush()
    except OSError:
        pass
    if not fds:
        os._exit(1)
    os.dup2(fds[0], 1)
    os.dup2(fds[0], 2)
    for fd in fds:
        os.close(fd)


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


def _start_server(candidate_source):
    """Fork a candidate server; it closes every descriptor but its socket end (stdin included)."""
    import os

    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        ours.close()
        os.closerange(0, 1)
        os.closerange(3, theirs.fileno())
        os.closerange(theirs.fileno() + 1, 1 << 16)
        try:
            _serve_candidate(theirs, candidate_source)
        finally:
            os._exit(0)
    theirs.close()
    return {"source": candidate_source, "socket": ours, "pid": pid}


def _reset(server):
    """Start a test on ``server``: hand it this test's stderr and CPU budget; its greeting, or ``None``."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
    budget = 3600.0 if soft < 0 else max(1.0, soft - used.ru_utime - used.ru_stime)
    try:
        _send(server["socket"], json.dumps({"reset": budget}), fds=[2])
        return _receive(server["socket"])
    except OSError:
        return None


def _greeting(candidate_source):
    """The greeting of a server reset for this test: the one kept from the last test, else a new one."""
    import os
    import types

    holder = sys.modules.get(_SERVER)
    if holder is None:
        holder = sys.modules[_SERVER] = types.ModuleType(_SERVER)
    server = getattr(holder, "server", None)
    if server is not None and server["source"] == candidate_source:
        greeting = _reset(server)
        if greeting is not None:
            return server, greeting
    if server is not None:
        server["socket"].close()
        try:
            os.waitpid(server["pid"], os.WNOHANG)
        except ChildProcessError:
            pass
    holder.server = server = _start_server(candidate_source)
    return server, _reset(server)


def run_tests(entry_point):
    import ctypes
    import os

    sizes = os.pread(0, HEADER_BYTES, 0).split()
    candidate_bytes, tests_bytes = int(sizes[0]), int(sizes[1])
    candidate_source = json.loads(os.pread(0, candidate_bytes, HEADER_BYTES))
    if ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 0
        raise OSError("could not make the test driver non-dumpable")
    server, greeting = _greeting(candidate_source)
    tests = json.loads(os.pread(0, tests_bytes, HEADER_BYTES + candidate_bytes))
    os.close(0)
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
            namespace[name] = _proxy(server["socket"], name)
    if entry_point not in greeting["names"]:
        raise CandidateError(f"the program defines no function {entry_point!r}")
    exec(compile(tests["setup"], "setup.py", "exec"), namespace)
    exec(compile(tests["test"], "test.py", "exec"), namespace)
    sys.stdout.flush()
    os.write(1, (PASS_MARKER + "\n").encode())
