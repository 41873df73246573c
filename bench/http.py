"""A small asyncio HTTP/1.1 client with kept-alive connections, so the load generator spends
little CPU of the (shared) machine on itself. JSON in, JSON out (orjson both ways); nothing but
what the bench needs."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

# Seconds an answer may take. A benchmark's requests take milliseconds; a server that answers none
# in this time is stuck, and the bench fails naming the request instead of waiting for ever.
ANSWER_TIMEOUT = 60.0


class Connection:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def local_port(self) -> int | None:
        return self._writer.get_extra_info("sockname")[1] if self._writer is not None else None

    async def _open(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
            self._writer = None

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        """(status, headers, JSON body or text). A connection the server closed while idle is
        reopened and the request sent again (the bench's writes carry an Idempotency-Key)."""
        data = b"" if body is None else orjson.dumps(body)
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(data)}",
                "Accept: application/json"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        raw = ("\r\n".join(head) + "\r\n\r\n").encode() + data
        for attempt in range(2):
            if self._writer is None:
                await self._open()
            try:
                async with asyncio.timeout(ANSWER_TIMEOUT):
                    return await self._exchange(raw)
            except TimeoutError:
                await self.close()
                raise RuntimeError(f"{method} {path}: no answer within {ANSWER_TIMEOUT:g} s; the server is "
                                   "stuck") from None
            except (ConnectionError, asyncio.IncompleteReadError, EOFError):
                await self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _exchange(self, raw: bytes) -> tuple[int, dict[str, str], Any]:
        assert self._reader is not None and self._writer is not None
        self._writer.write(raw)
        await self._writer.drain()
        status_line = await self._reader.readline()
        if not status_line:
            raise EOFError("the server closed the connection")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = await self._reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self._reader.readline()).strip(), 16)
                chunk = await self._reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            payload = b"".join(chunks)
        else:
            payload = await self._reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        if not payload:
            return status, headers, None
        try:
            return status, headers, orjson.loads(payload)
        except orjson.JSONDecodeError:
            return status, headers, payload.decode("utf-8", errors="replace")
