"""Flow control of the agent's stdout pipe: every writer waiting on a full pipe resumes once the client reads.

A turn with hundreds of parallel tool calls has many tasks writing at once (client requests,
session updates); when the client is slow to read, all of them wait in ``drain``. Each must
resume when the pipe empties, or the turn never ends (a hang seen with 300 parallel calls).
"""

from __future__ import annotations

import asyncio
import os

from langacp.server import _WriteProtocol

CHUNK = b"x" * 200_000
"""More than the pipe (64 KiB) and the transport's high-water mark hold: the writer pauses."""


async def _read_all(fd: int, total: int) -> None:
    read = 0
    while read < total:
        try:
            read += len(os.read(fd, 1 << 16))
        except BlockingIOError:
            await asyncio.sleep(0.001)


async def test_every_writer_waiting_on_a_full_pipe_resumes_and_a_cancelled_one_stops_no_other() -> None:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    loop = asyncio.get_running_loop()
    protocol = _WriteProtocol()
    transport, _ = await loop.connect_write_pipe(lambda: protocol, os.fdopen(write_fd, "wb", buffering=0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)  # type: ignore[arg-type]

    async def send() -> None:
        writer.write(CHUNK)
        await writer.drain()

    try:
        writers = [asyncio.create_task(send()) for _ in range(5)]
        await asyncio.sleep(0.05)
        assert not any(task.done() for task in writers)  # the pipe is full: every writer waits
        writers[0].cancel()
        await asyncio.sleep(0)
        assert not any(task.done() for task in writers[1:])  # still waiting, not cancelled with it
        await _read_all(read_fd, len(CHUNK) * len(writers))
        await asyncio.wait_for(asyncio.gather(*writers[1:]), 10)
        assert writers[0].cancelled()
    finally:
        transport.close()
        os.close(read_fd)
