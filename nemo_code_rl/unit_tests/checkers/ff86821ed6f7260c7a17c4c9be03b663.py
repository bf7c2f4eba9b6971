"""Special judge for problem ff86821ed6f7260c7a17c4c9be03b663 (Codeforces 1408A, "Circle Coloring").

For each test case, the answer is ``n`` integers ``p_1 .. p_n`` with ``p_i`` in ``{a_i, b_i, c_i}``
and ``p_i != p_{(i mod n) + 1}`` (the sequence is a circle). Any such sequence is accepted (a
solution always exists, nothing is optimised, so the reference output is not needed). The answer
is read token by token, so its line layout does not matter; a missing, malformed or extra token
rejects it.
"""

import re

_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")


def _ints(text):
    values = []
    for token in text.split():
        if not _INT.match(token):
            return None
        values.append(int(token))
    return values


def _check(input, actual):
    data = _ints(input)
    if data is None or not data:
        return False
    t, pos = data[0], 1
    cases = []
    for _ in range(t):
        n = data[pos]
        pos += 1
        a, b, c = data[pos : pos + n], data[pos + n : pos + 2 * n], data[pos + 2 * n : pos + 3 * n]
        if n < 1 or len(c) != n:
            return False
        pos += 3 * n
        cases.append((n, a, b, c))
    answer = _ints(actual)
    if answer is None:
        return False
    at = 0
    for n, a, b, c in cases:
        p = answer[at : at + n]
        if len(p) != n:
            return False
        at += n
        for i in range(n):
            if p[i] not in (a[i], b[i], c[i]):
                return False
            if p[i] == p[(i + 1) % n]:
                return False
    return at == len(answer)


def check(input: str, expected: str, actual: str) -> bool:
    try:
        return bool(_check(input, actual))
    except Exception:  # noqa: BLE001 - a checker that raises judges the answer wrong
        return False
