"""Driver for assert-based tests (HumanEval ``check``, MBPP ``test_list``), shipped into the sandbox.

Two processes, so that the tests live in a namespace the candidate cannot reach:

* the driver reads the candidate's section of its (private) stdin, makes itself non-dumpable,
  and forks the *candidate server*, which closes stdin and then, for each test, executes the
  candidate in a fresh namespace and answers requests on its objects over a socket;
* only after the fork does the driver read the tests' section; it executes the trusted prompt
  helpers, the setup code and the tests in a namespace where builtins, standard-library modules
  and whatever the trusted code binds are the real ones. Only the entry point, and names the
  trusted code reads but neither binds nor finds among the builtins, come from the candidate
  (``_candidate_names``): a candidate's ``abs``, ``range`` or ``sorted`` never reaches the tests.

What the candidate gives the tests crosses as exact plain data (see ``codec``) or, for any other
object (a function, an instance of its own class, a generator), as a ``Handle``: a number that
names the object in the server, through which the tests call it, read and set its attributes,
iterate it and pass it back as an argument. A handle compared with plain data is first converted
to exact plain data and compared in the driver, so no candidate ``__eq__`` ever sees an expected
value, and no candidate code runs in the driver.

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
import contextlib
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
    """In the forked candidate server: per test, reset and execute the candidate, then answer requests."""
    import os
    import resource

    os.dup2(2, 1)  # never the driver's stdout, where only the driver may write the pass marker
    sys.stdout = sys.stderr
    try:
        code = compile(candidate_source, "solution.py", "exec")
        syntax = None
    except (SyntaxError, ValueError) as exc:
        code, syntax = None, f"{type(exc).__name__}: {exc}"
    objects = _Objects()
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
            objects = _Objects()
            if code is None:
                _send(sock, json.dumps({"names": {}, "failure": syntax, "syntax": True}))
                continue
            namespace = {"__name__": "solution", "__builtins__": __builtins__}
            try:
                exec(code, namespace)
                failure = None
            except BaseException as exc:  # noqa: BLE001 - reported to the tests as the candidate's failure
                failure = f"{type(exc).__name__}: {exc}"
            names = {k: objects.add(v) for k, v in namespace.items() if type(k) is str and k[:2] != "__"}
            _send(sock, json.dumps({"names": names, "failure": failure}))
            continue
        _send(sock, _answer(objects, message))


class _Objects:
    """In the candidate server: the objects the tests hold references to, by number (one table per test)."""

    def __init__(self):
        self.items = []
        self.numbers = {}  # id() of each object held, which stays valid while the table holds it

    def add(self, value):
        number = self.numbers.get(id(value))
        if number is None:
            number = self.numbers[id(value)] = len(self.items)
            self.items.append(value)
        return number

    def get(self, number):
        if type(number) is not int or not 0 <= number < len(self.items):
            raise LookupError(f"no candidate object number {number!r}")
        return self.items[number]


def _operations():
    """What the tests may ask of a candidate object; comparisons are asked only between two of them."""
    import operator

    return {
        "call": lambda target, args, kwargs: target(*args, **kwargs),
        "getattr": getattr,
        "setattr": setattr,
        "delattr": delattr,
        "getitem": operator.getitem,
        "len": len,
        "bool": bool,
        "hash": hash,
        "str": str,
        "repr": repr,
        "iter": iter,
        "next": next,
        "instancecheck": lambda cls, value: isinstance(value, cls),
        "eq": operator.eq,
        "ne": operator.ne,
        "lt": operator.lt,
        "le": operator.le,
        "gt": operator.gt,
        "ge": operator.ge,
    }


_OPERATIONS = _operations()


def _answer(objects, message):
    """Carry out ``[operation, object number, *arguments]``; the reply is JSON text.

    ``plain`` asks for the object as exact plain data, without references (``unplain`` where it is
    not). Any other result crosses as plain data where it is, and by reference where not.
    """
    try:
        operation, target, arguments = message[0], objects.get(message[1]), message[2:]
        if operation == "plain":
            try:
                return json.dumps({"value": to_plain(target)}, allow_nan=False)
            except NotPlainData as exc:
                return json.dumps({"unplain": str(exc)})
        values = [from_plain(argument, handle=objects.get) for argument in arguments]
        try:
            result = _OPERATIONS[operation](target, *values)
        except StopIteration:
            if operation == "next":
                return json.dumps({"stop": True})
            raise
        return json.dumps({"value": to_plain(result, handle=objects.add)}, allow_nan=False)
    except BaseException as exc:  # noqa: BLE001 - any failure of the candidate becomes the request's error
        try:
            error = f"{type(exc).__name__}: {exc}"[:2000]
        except BaseException:  # noqa: BLE001 - an exception whose text itself fails
            error = type(exc).__name__
        return json.dumps({"error": error})


def _take_test_output(fds):
    """Point the server's stdout and stderr at the current test's stderr (sent with the reset)."""
    import os

    with contextlib.suppress(OSError):
        sys.stderr.flush()
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


_KEPT_ERRORS = frozenset(
    (
        *("TypeError", "ValueError", "AttributeError", "KeyError", "IndexError", "LookupError"),
        *("ZeroDivisionError", "OverflowError", "ArithmeticError", "NotImplementedError", "RuntimeError"),
        "RecursionError",
    )
)


def _candidate_error(kind):
    """The error to raise for a candidate's error of builtin ``kind``: it keeps that kind where it is
    one of ``_KEPT_ERRORS``, so that a test's ``except ValueError`` and Python's own protocols
    (``hasattr``, length hints) treat it as they would the original. Made on first use (rare)."""
    import builtins

    if kind not in _KEPT_ERRORS:
        return CandidateError
    return type(f"Candidate{kind}", (CandidateError, getattr(builtins, kind)), {})


class _Link:
    """The driver's end of the candidate server: requests, and one ``Handle`` per object number."""

    def __init__(self, sock, names):
        self.sock = sock
        self.handles = {}
        self.names = {number: name for name, number in names.items()}

    def handle(self, number):
        if number not in self.handles:
            self.handles[number] = Handle(self, number)
        return self.handles[number]

    def _number(self, value):
        if type(value) is Handle and value._nemo_code_rl_link is self:
            return value._nemo_code_rl_number
        return None

    def ask(self, operation, number, *arguments):
        """The server's reply to ``operation`` on object ``number``; its failure raises ``CandidateError``."""
        _send(
            self.sock, json.dumps([operation, number, *(to_plain(a, handle=self._number) for a in arguments)])
        )
        reply = _receive(self.sock)
        what = self.names.get(number, "a candidate object")
        if reply is None:
            raise CandidateError(f"the candidate process ended during {operation} on {what}")
        try:
            reply = json.loads(reply)
        except (ValueError, RecursionError):
            reply = None
        if type(reply) is not dict:
            raise CandidateError(f"malformed reply from the candidate process to {operation} on {what}")
        if "error" in reply:
            error = str(reply["error"])
            text = (
                f"{what}() raised {error}" if operation == "call" else f"{operation} on {what} raised {error}"
            )
            raise _candidate_error(error.split(":", 1)[0])(text)
        return reply

    def value(self, reply):
        """A reply's value: exact plain data, with a ``Handle`` for each of the candidate's other objects."""
        if "value" not in reply:
            raise CandidateError("a reply from the candidate process carries no value")
        return from_plain(reply["value"], handle=self.handle)


_NAMED_ATTRIBUTES = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})


class Handle:
    """An object of the candidate's that the tests hold: it lives, and runs, in the candidate server.

    Calls, attributes, items, ``len``, ``bool``, ``hash``, ``str``, ``repr``, iteration and
    ``isinstance(x, handle)`` are asked of the server (arithmetic is not supported); what comes back
    is exact plain data or another handle. A handle compared with a handle is compared by the
    candidate's own operator (both sides are the candidate's). A handle compared with anything else
    is first converted to exact plain data, and compared in the driver: the candidate never sees the
    value it is compared with, so its ``__eq__`` cannot accept it; an object that is not plain data
    equals no plain value. Protocol probes (dunder attributes such as NumPy's
    ``__array_interface__``) are never forwarded, and a handle cannot be copied or pickled.
    """

    __slots__ = ("_nemo_code_rl_link", "_nemo_code_rl_number")

    def __init__(self, link, number):
        object.__setattr__(self, "_nemo_code_rl_link", link)
        object.__setattr__(self, "_nemo_code_rl_number", number)

    def _ask(self, operation, *arguments):
        link = self._nemo_code_rl_link
        return link.value(link.ask(operation, self._nemo_code_rl_number, *arguments))

    def _exact(self, operation, kind, *arguments):
        value = self._ask(operation, *arguments)
        if type(value) is not kind:
            raise CandidateError(
                f"{operation}() of a candidate object gave {type(value).__name__}, not {kind.__name__}"
            )
        return value

    def _compare(self, operation, other):
        if type(other) is Handle:
            return self._ask(operation, other)
        link = self._nemo_code_rl_link
        reply = link.ask("plain", self._nemo_code_rl_number)
        if "unplain" in reply:
            return NotImplemented
        return _COMPARISONS[operation](link.value(reply), other)

    def __call__(self, *args, **kwargs):
        return self._ask("call", list(args), kwargs)

    def __getattr__(self, name):
        if name[:2] == "__" and name[-2:] == "__" and name not in _NAMED_ATTRIBUTES:
            raise AttributeError(name)
        return self._ask("getattr", name)

    def __setattr__(self, name, value):
        self._ask("setattr", name, value)

    def __delattr__(self, name):
        self._ask("delattr", name)

    def __getitem__(self, key):
        return self._ask("getitem", key)

    def __len__(self):
        return self._exact("len", int)

    def __bool__(self):
        return self._exact("bool", bool)

    def __hash__(self):
        return self._exact("hash", int)

    def __str__(self):
        return self._exact("str", str)

    def __repr__(self):
        return self._exact("repr", str)

    def __iter__(self):
        iterator = self._ask("iter")
        if type(iterator) is not Handle:
            raise CandidateError("iter() of a candidate object gave no iterator")
        return iterator

    def __next__(self):
        link = self._nemo_code_rl_link
        reply = link.ask("next", self._nemo_code_rl_number)
        if reply.get("stop") is True:
            raise StopIteration
        return link.value(reply)

    def __contains__(self, item):
        return any(element is item or element == item for element in self)

    def __eq__(self, other):
        return self._compare("eq", other)

    def __ne__(self, other):
        return self._compare("ne", other)

    def __lt__(self, other):
        return self._compare("lt", other)

    def __le__(self, other):
        return self._compare("le", other)

    def __gt__(self, other):
        return self._compare("gt", other)

    def __ge__(self, other):
        return self._compare("ge", other)

    def __instancecheck__(self, value):
        return self._exact("instancecheck", bool, value)

    def __reduce_ex__(self, protocol):
        raise TypeError("an object of the candidate's cannot be copied or pickled in the test process")


def _comparisons():
    import operator

    return {name: getattr(operator, name) for name in ("eq", "ne", "lt", "le", "gt", "ge")}


_COMPARISONS = _comparisons()


def _candidate_names(tests, entry_point):
    """The names the trusted code reads that come from elsewhere: neither bound by it nor builtins.

    The entry point is left out (it always comes from the candidate). A name bound anywhere in the
    trusted code, even locally, is the trusted code's.
    """
    import ast
    import builtins

    read, bound = set(), set()
    for source in (tests["helpers"], tests["setup"], tests["test"]):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name):
                (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, ast.alias):
                bound.add(node.asname or node.name.split(".")[0])
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                bound.add(node.rest)
    return {name for name in read - bound - {entry_point} if not hasattr(builtins, name) and name[:2] != "__"}


def _bind_candidate(namespace, link, names, needed, entry_point):
    """Bind what the tests need from outside themselves: the candidate's entry point, each needed name
    that is a standard-library module as the real module (a test that uses ``math`` without importing
    it must not get the candidate's ``math``), and other needed names from the candidate."""
    import importlib

    for name in sorted(needed):
        if name in namespace:  # bound by the trusted helpers in a way no parse shows (``import *``)
            continue
        if name in sys.stdlib_module_names:
            with contextlib.suppress(ImportError):
                namespace[name] = importlib.import_module(name)
        elif name in names:
            namespace[name] = link.handle(names[name])
    if entry_point is not None:
        if entry_point not in names:
            raise CandidateError(f"the program defines no function {entry_point!r}")
        namespace[entry_point] = link.handle(names[entry_point])


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
        with contextlib.suppress(ChildProcessError):
            os.waitpid(server["pid"], os.WNOHANG)
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
    names = greeting["names"]
    if type(names) is not dict or not all(type(k) is str and type(v) is int for k, v in names.items()):
        raise CandidateError("the candidate process sent a malformed greeting")
    import builtins
    import linecache

    for filename in ("prompt.py", "setup.py", "test.py"):
        text = tests[{"prompt.py": "helpers", "setup.py": "setup", "test.py": "test"}[filename]]
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    needed = _candidate_names(tests, entry_point)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(tests["helpers"], "prompt.py", "exec"), namespace)
    _bind_candidate(namespace, _Link(server["socket"], names), names, needed, entry_point)
    exec(compile(tests["setup"], "setup.py", "exec"), namespace)
    exec(compile(tests["test"], "test.py", "exec"), namespace)
    sys.stdout.flush()
    os.write(1, (PASS_MARKER + "\n").encode())
