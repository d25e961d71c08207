"""The matching half of ``search_files``, run as a child process (``python -I -S search_child.py SECONDS``).

It imports only the standard library. Input on stdin, frames of ``>I`` length-prefixed bytes: the
pattern (UTF-8), the result cap (ASCII), then per file its shown name (UTF-8) and its contents. A
pattern that is not a valid regular expression is searched as plain text. Output on stdout, once: JSON
``{"matches": ["path:line: text", ...], "files": n, "truncated": bool}``; it stops reading at the cap.
Python's ``re`` holds the GIL while it matches, so a pattern that backtracks without end would freeze
every session of the agent if matched there: here the parent kills it on its deadline (``SECONDS``),
and an alarm ends it a second later should the parent be gone.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import struct
import sys
from typing import BinaryIO

_LENGTH = struct.Struct(">I")


def _frame(stream: BinaryIO) -> bytes | None:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    body = stream.read(size)
    return body if len(body) == size else None


def search(stream: BinaryIO) -> dict[str, object]:
    """Match the framed files of ``stream``; the result as a JSON-ready dict."""
    pattern = (_frame(stream) or b"").decode("utf-8", errors="surrogatepass")
    cap = int(_frame(stream) or b"0")
    try:
        regex = re.compile(pattern)
    except re.error:
        regex = re.compile(re.escape(pattern))
    matches: list[str] = []
    files: set[str] = set()
    while (name := _frame(stream)) is not None and (data := _frame(stream)) is not None:
        shown = name.decode("utf-8", errors="surrogateescape")
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if not regex.search(line):
                continue
            if len(matches) >= cap:
                return {"matches": matches, "files": len(files), "truncated": True}
            files.add(shown)
            text = line.strip()
            matches.append(f"{shown}:{number}: {text[:200]}{'…' if len(text) > 200 else ''}")
    return {"matches": matches, "files": len(files), "truncated": False}


if __name__ == "__main__":
    if len(sys.argv) > 1 and hasattr(signal, "alarm"):  # the parent kills it on time; should the parent die, this does
        signal.alarm(math.ceil(float(sys.argv[1])) + 1)
    result = search(sys.stdin.buffer)
    os.close(0)  # the parent's writes fail now instead of waiting on a full pipe while we write
    sys.stdout.write(json.dumps(result, ensure_ascii=True))
    sys.stdout.flush()
