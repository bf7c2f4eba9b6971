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
    bar = tqdm(desc=description, unit="program", file=sys.stderr)

    def update(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    return update, bar.close


def _plain(description: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    last = [0.0]

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > 0.5 or done == total:
            last[0] = now
            sys.stderr.write(f"\r{description}: {done}/{total}")
            sys.stderr.flush()

    def close() -> None:
        sys.stderr.write("\n")

    return update, close
