"""Progress bars for long work: tqdm when installed, else a plain line on stderr."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable


def progress_bar(
    description: str, enabled: bool = True
) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A ``(update(done, total), close())`` pair; silent when disabled or stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        return (lambda done, total: None), (lambda: None)
    try:
        from tqdm import tqdm
    except ImportError:
        return _plain(description)
    bar = tqdm(desc=description, unit="completion", file=sys.stderr)
    started = [False]

    def update(done: int, total: int) -> None:
        if not started[0]:  # work done before this run (resumed rows) must not count in the rate
            started[0] = True
            bar.reset(total=total)
            bar.initial = bar.n = bar.last_print_n = done
        bar.total = total
        bar.update(done - bar.n)

    return update, bar.close


def _plain(description: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    last = [0.0]
    first: list[tuple[float, int]] = []

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if not first:
            first.append((now, done))
        if now - last[0] > 0.5 or done == total:
            last[0] = now
            began, at_start = first[0]
            rate = (done - at_start) / (now - began) if now > began else 0.0
            eta = f", about {(total - done) / rate:.0f} s left" if rate > 0 and done < total else ""
            sys.stderr.write(f"\r{description}: {done}/{total}{eta}   ")
            sys.stderr.flush()

    def close() -> None:
        sys.stderr.write("\n")

    return update, close
