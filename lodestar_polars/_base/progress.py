"""A small progress display for long work: a terminal line or a notebook output.

In a terminal (the stream's ``isatty()``) one line on stderr is rewritten after a
carriage return: rows done, rows a second and, when a total is known, the time left;
:meth:`ProgressBar.close` ends it with a newline.  In a Jupyter notebook
(IPython already imported and a kernel running) one output is updated in
place through ``IPython.display``.  Anywhere else nothing is shown.  IPython
is never imported here: it is used only when the caller's process already
has it (no new runtime dependency).
"""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from lodestar_polars.exceptions import InvalidParameterError

__all__ = ["ProgressBar", "ProgressLike", "check_progress", "progress_callback"]


class ProgressLike(Protocol):
    """What :meth:`ProgressBar.__call__` reads (:class:`lodestar_polars.Progress` has it)."""

    @property
    def parts_done(self) -> int: ...  # pragma: no cover - a protocol
    @property
    def parts_total(self) -> int: ...  # pragma: no cover - a protocol
    @property
    def rows_done(self) -> int: ...  # pragma: no cover - a protocol


def _notebook_display() -> Any:
    """``IPython.display.display`` when a notebook kernel runs in this process, else None."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return None
    try:
        shell = ipython.get_ipython()
        if shell is None or "IPKernelApp" not in shell.config:
            return None
        # IPython itself is imported by the caller's process (a kernel), never by us
        return importlib.import_module("IPython.display").display
    except Exception:  # an IPython too old or odd to ask: show nothing rather than fail
        return None


class _Line:
    """The line as a notebook shows it: its text, without a string's quotes."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _duration(seconds: float) -> str:
    """``seconds`` as ``42 s``, ``3 min 05 s`` or ``1 h 02 min``."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class ProgressBar:
    """Shows how far long work stands: rows done, rate and time left.

    Parameters
    ----------
    what : str, default="rows"
        The noun counted (``"rows"``, ``"resamples"``).
    stream : text stream, optional
        Where the terminal line goes (default: ``sys.stderr`` when created).
        Nothing is written to a stream that is not a terminal.
    clock : callable, default=time.monotonic
        Seconds, for the rate and the throttle (a fake one in tests).
    interval : float, default=0.2
        The least time between two redraws (at most 5 a second); the first
        and the final update are always drawn.
    notebook : bool, default=True
        Use a notebook output when a Jupyter kernel runs and ``stream`` is no
        terminal.
    step : str, default="part"
        The word for the steps counted by ``done`` of ``total``.

    The display closes itself (a newline) at the final update, when ``done``
    reaches ``total``.

    Examples
    --------
    >>> import io
    >>> class Terminal(io.StringIO):
    ...     def isatty(self):
    ...         return True
    >>> ticks = iter([0.0, 2.0, 4.0])
    >>> out = Terminal()
    >>> bar = ProgressBar(stream=out, clock=lambda: next(ticks))
    >>> bar.update(1, 4, 1_000)  # 1 of 4 parts, 1,000 rows after 2 s
    >>> bar.update(4, 4, 4_000)
    >>> bar.close()
    >>> lines = out.getvalue().split(chr(13))  # each redraw starts with a carriage return
    >>> lines[1]
    '1,000 rows  500 rows/s  part 1/4  ~6 s left '
    >>> lines[2].strip(), lines[2].endswith(chr(10))
    ('4,000 rows  1,000 rows/s  part 4/4  done', True)
    """

    def __init__(
        self,
        what: str = "rows",
        *,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        interval: float = 0.2,
        notebook: bool = True,
        step: str = "part",
    ) -> None:
        self.what = what
        self.step = step
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.interval = interval
        self.start = clock()
        self._last_draw: float | None = None
        self._last_text = ""
        self._width = 0
        self._closed = False
        self._handle: Any = None
        self._display: Any = None
        try:
            tty = bool(self.stream.isatty())
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            tty = False
        self.mode: str | None = "terminal" if tty else None
        if self.mode is None and notebook:
            self._display = _notebook_display()
            if self._display is not None:
                self.mode = "notebook"

    @property
    def active(self) -> bool:
        """Whether anything is shown (a terminal or a notebook)."""
        return self.mode is not None

    def text(self, done: int, total: int | None, rows: int, now: float) -> str:
        """The line for ``done`` of ``total`` steps and ``rows`` rows at time ``now``."""
        elapsed = now - self.start
        parts = [f"{rows:,} {self.what}"]
        if elapsed > 0:
            parts.append(f"{rows / elapsed:,.0f} {self.what}/s")
        if total is not None and total > 1:
            parts.append(f"{self.step} {done}/{total}")
        if total is not None and done >= total:
            parts.append("done")
        elif total is not None and done > 0 and elapsed > 0:
            parts.append(f"~{_duration(elapsed / done * (total - done))} left")
        return "  ".join(parts) + " "

    def update(self, done: int, total: int | None, rows: int) -> None:
        """Record ``done`` of ``total`` steps (None: unknown) and ``rows`` so far; redraw if due."""
        if self.mode is None or self._closed:
            return
        now = self.clock()
        final = total is not None and done >= total
        if self._last_draw is not None and not final and now - self._last_draw < self.interval:
            return
        self._last_draw = now
        self._draw(self.text(done, total, rows, now))
        if final:
            self.close()

    def __call__(self, progress: ProgressLike) -> None:
        """Take a :class:`lodestar_polars.Progress` (the ``progress=`` callback contract)."""
        self.update(progress.parts_done, progress.parts_total, progress.rows_done)

    def _draw(self, text: str) -> None:
        self._last_text = text
        if self.mode == "terminal":
            pad = " " * max(0, self._width - len(text))
            self._width = len(text)
            self.stream.write("\r" + text + pad)
            self.stream.flush()
        elif self.mode == "notebook":
            if self._handle is None:
                self._handle = self._display(_Line(text), display_id=True)
            else:
                self._handle.update(_Line(text))

    def close(self) -> None:
        """End the display (a newline after the terminal line); later updates show nothing."""
        if self._closed:
            return
        self._closed = True
        if self.mode == "terminal" and self._last_draw is not None:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_progress(progress: object, caller: str) -> None:
    """Refuse a ``progress`` that is not a bool, a callable or None."""
    if progress is not None and not isinstance(progress, bool) and not callable(progress):
        msg = (
            f"The 'progress' parameter of {caller} must be a bool, a callable or None. "
            f"Got {progress!r} instead."
        )
        raise InvalidParameterError(msg)


def progress_callback(progress: object, *, step: str = "part") -> Callable[[Any], None] | None:
    """The callback for ``progress`` (checked): a :class:`ProgressBar` for True, None for off."""
    if progress is True:
        return ProgressBar(step=step)
    if progress is None or progress is False:
        return None
    return progress  # type: ignore[return-value]  # a callable, checked by check_progress
