"""Special judge for problem c69268d8bdb4da0685d7b187c88296c1 (Codeforces 1259D, "Let's Play the Words?").

For each test case the answer is ``-1`` (no way), or ``k`` followed by ``k`` distinct indexes in
``1..n`` of the words to reverse. The statement lets the index line be skipped or left empty when
``k = 0``, so the answer is read token by token, like a testlib checker, and blank lines do not
matter. A construction is valid when, after the reversals, the words are still all different and
can be chained (each word starts with the last character of the previous one): in the multigraph
on {0, 1} with an edge first -> last character per word, an Euler path exists, i.e.
``|#(0..1) - #(1..0)| <= 1`` and the graph is connected (not: no 0..1 / 1..0 words while both
0..0 and 1..1 words exist). ``k`` must be minimal: it must equal the reference output's ``k``
(``-1`` must match ``-1``). A missing, malformed or extra token rejects the answer.
"""

import re

_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")


class _Reject(Exception):
    pass


class _Tokens:
    def __init__(self, text):
        self.tokens = text.split()
        self.at = 0

    def int(self):
        if self.at >= len(self.tokens) or not _INT.match(self.tokens[self.at]):
            raise _Reject
        self.at += 1
        return int(self.tokens[self.at - 1])

    def word(self):
        if self.at >= len(self.tokens):
            raise _Reject
        self.at += 1
        return self.tokens[self.at - 1]

    def at_end(self):
        return self.at == len(self.tokens)


def _read_answer(tokens, n):
    """``None`` for -1, else the list of (1-based) indexes to reverse; rejects out-of-range ``k``."""
    k = tokens.int()
    if k == -1:
        return None
    if not 0 <= k <= n:
        raise _Reject
    return [tokens.int() for _ in range(k)]


def _valid(words, indexes):
    n = len(words)
    if len(set(indexes)) != len(indexes) or any(not 1 <= i <= n for i in indexes):
        return False
    final = list(words)
    for i in indexes:
        final[i - 1] = final[i - 1][::-1]
    if len(set(final)) != n:
        return False
    kinds = {"00": 0, "01": 0, "10": 0, "11": 0}
    for w in final:
        kinds[w[0] + w[-1]] += 1
    if kinds["01"] + kinds["10"] == 0 and kinds["00"] > 0 and kinds["11"] > 0:
        return False
    return abs(kinds["01"] - kinds["10"]) <= 1


def _check(input, expected, actual):
    source = _Tokens(input)
    cases = []
    for _ in range(source.int()):
        n = source.int()
        words = [source.word() for _ in range(n)]
        if any(not w or set(w) - {"0", "1"} for w in words):
            raise _Reject
        cases.append(words)
    jury, answer = _Tokens(expected), _Tokens(actual)
    for words in cases:
        best = _read_answer(jury, len(words))
        got = _read_answer(answer, len(words))
        if best is None or got is None:
            if best is not got:
                return False
            continue
        if len(got) != len(best) or not _valid(words, got):
            return False
    return answer.at_end()


def check(input: str, expected: str, actual: str) -> bool:
    try:
        return bool(_check(input, expected, actual))
    except Exception:  # noqa: BLE001 - a checker that raises judges the answer wrong
        return False
