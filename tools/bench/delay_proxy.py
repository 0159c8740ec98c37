#!/usr/bin/env python3
"""A loopback TCP proxy that holds each request for a fixed delay before passing it on:
a slow link to the remote cache, for tools/bench/remote.py.

    python3 delay_proxy.py LISTEN_PORT TARGET_PORT DELAY_MS [--stall]

Each chunk the client sends is forwarded DELAY_MS later (a GET or HEAD is one chunk, so
each request pays the delay once, as over a link with that much latency). With --stall,
the proxy accepts connections and never answers: a remote that hangs.
"""

import asyncio
import sys


async def pipe(reader, writer, delay):
    try:
        while data := await reader.read(1 << 16):
            if delay:
                await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def serve(listen, target, delay, stall):
    async def handle(client_reader, client_writer):
        if stall:
            await asyncio.sleep(3600)
            return
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(
            pipe(client_reader, server_writer, delay),
            pipe(server_reader, client_writer, 0),
        )

    server = await asyncio.start_server(handle, "127.0.0.1", listen, backlog=512)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    listen, target, delay_ms = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    asyncio.run(serve(listen, target, delay_ms / 1000, "--stall" in sys.argv))
