#!/usr/bin/env python3
"""aiohttp client of the client benchmark: per chunk it does what vLLM's
`vllm bench serve` client does (vllm/benchmarks/lib/endpoint_request_func.py,
async_request_openai_completions; PROTOCOLS.md section 1.10), re-implemented here:

- one aiohttp.ClientSession with a TCPConnector limited to the concurrency
  (the same connector/session options vLLM's serve.py uses), gc frozen first;
- POST /v1/completions with vLLM's payload fields (model, prompt,
  repetition_penalty, max_tokens, logprobs, stream, stream_options.include_usage,
  ignore_eos) and an x-request-id header;
- `async for chunk in response.content.iter_any()`, strip the chunk, feed an
  incremental UTF-8 decoder, split the text buffer on blank lines, and (like
  vLLM's StreamedResponseHandler) treat a leftover `data: ...` tail as a
  message if it json.loads; skip ':' comments, strip 'data: ', skip [DONE],
  json.loads each message; TTFT at the first message with non-empty choices,
  ITL per message via time.perf_counter(), generated text appended, usage
  from the usage-only chunk.
- non-streaming (not part of vLLM's bench): `await response.json()`.

Closed loop at --concurrency (C worker tasks), bounded by --requests and
--warmup-s + --duration-s. CPU = resource.getrusage(RUSAGE_SELF) user+sys
over the measured window. Prints one JSON line (same fields as the Node
clients) and exits without draining.

  python3 bench/client/aiohttp_client.py --url http://127.0.0.1:PORT \
      --concurrency 64 --requests 100000 --duration-s 5 [--warmup-s 1] \
      [--stream|--no-stream] [--max-tokens 100] [--ttft-out FILE] [--ramp-s R]
"""
import argparse
import asyncio
import codecs
import gc
import json
import math
import os
import resource
import sys
import time

import aiohttp

PROMPT = (
    "The quick brown fox jumps over the lazy dog while the benchmark client measures how much CPU it spends "
    "per server-sent event. Repeat the story in more detail, adding characters, places and a moral at the end, "
    "then summarise it in one line."
)


class SSEBuffer:
    """Accumulates decoded text and returns complete SSE messages (vLLM's algorithm)."""

    __slots__ = ("buffer", "decoder")

    def __init__(self):
        self.buffer = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def add_chunk(self, chunk_bytes):
        self.buffer += self.decoder.decode(chunk_bytes)
        out = []
        while "\n\n" in self.buffer:
            msg, self.buffer = self.buffer.split("\n\n", 1)
            msg = msg.strip()
            if msg:
                out.append(msg)
        # A chunk is stripped before it gets here, so the last event of a read
        # has lost its blank line: accept it when its JSON parses.
        if self.buffer.startswith("data: "):
            content = self.buffer.removeprefix("data: ").strip()
            if content == "[DONE]":
                out.append(self.buffer.strip())
                self.buffer = ""
            elif content:
                try:
                    json.loads(content)
                    out.append(self.buffer.strip())
                    self.buffer = ""
                except json.JSONDecodeError:
                    pass
        return out


class Window:
    def __init__(self, args):
        self.args = args
        self.issued = 0
        self.completed = 0
        self.events = 0
        self.tokens = 0
        self.errors = 0
        self.mismatches = 0
        self.in_window = False
        self.ended = False
        self.start = None
        self.ttfts = []
        self.records = [] if args.ttft_out else None

    def snap(self):
        ru = resource.getrusage(resource.RUSAGE_SELF)
        return dict(t=time.perf_counter(), user=ru.ru_utime, sys=ru.ru_stime, completed=self.completed,
                    events=self.events, tokens=self.tokens, errors=self.errors)

    def begin(self):
        if self.ended or self.in_window:
            return
        self.start = self.snap()
        self.in_window = True

    def may_issue(self):
        if self.ended or self.issued >= self.args.requests:
            return False
        self.issued += 1
        return True

    def ttft(self, rid, st, first):
        if not self.in_window:
            return
        self.ttfts.append((first - st) * 1e3)
        if self.records is not None:
            self.records.append([rid, int(st * 1e9), int(first * 1e9)])

    def maybe_done(self):
        if not self.ended and self.issued >= self.args.requests and self.completed + self.errors >= self.issued:
            self.end("request-count")

    def end(self, reason):
        if self.ended:
            return
        if not self.in_window:
            self.begin()
        stop = self.snap()
        self.ended = True
        self.in_window = False
        s = self.start
        t = sorted(self.ttfts)

        def pct(q):
            if not t:
                return None
            return t[min(len(t) - 1, max(0, math.ceil(q * len(t)) - 1))]

        ttft = dict(n=len(t), mean=(sum(t) / len(t)) if t else None, p50=pct(0.5), p99=pct(0.99),
                    max=t[-1] if t else None)
        if self.records is not None:
            with open(self.args.ttft_out, "w") as f:
                json.dump({"clock": "CLOCK_MONOTONIC_ns", "records": self.records}, f)
        user = stop["user"] - s["user"]
        sys_ = stop["sys"] - s["sys"]
        line = dict(
            client="aiohttp-vllm",
            stream=self.args.stream,
            concurrency=self.args.concurrency,
            end_reason=reason,
            wall_s=stop["t"] - s["t"],
            cpu_user_s=user,
            cpu_sys_s=sys_,
            cpu_s=user + sys_,
            requests=stop["completed"] - s["completed"],
            events=stop["events"] - s["events"],
            tokens=stop["tokens"] - s["tokens"],
            errors=stop["errors"] - s["errors"],
            token_mismatches=self.mismatches,
            issued_total=self.issued,
            completed_total=self.completed,
            ttft_ms=ttft,
            python=sys.version.split()[0],
            aiohttp=aiohttp.__version__,
        )
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()
        os._exit(0)


async def request_stream(session, url, payload, rid, w):
    headers = {"x-request-id": rid}
    generated_text = ""
    st = time.perf_counter()
    most_recent = st
    itl = []
    first = False
    output_tokens = 0
    n_chunks = 0
    async with session.post(url=url, json=payload, headers=headers) as response:
        if response.status != 200:
            raise RuntimeError(response.reason or "")
        handler = SSEBuffer()
        async for chunk_bytes in response.content.iter_any():
            chunk_bytes = chunk_bytes.strip()
            if not chunk_bytes:
                continue
            for message in handler.add_chunk(chunk_bytes):
                if message.startswith(":"):
                    continue
                w.events += 1
                chunk = message.removeprefix("data: ")
                if chunk != "[DONE]":
                    data = json.loads(chunk)
                    if choices := data.get("choices"):
                        text = choices[0].get("text")
                        timestamp = time.perf_counter()
                        if not first:
                            first = True
                            w.ttft(rid, st, timestamp)
                        else:
                            itl.append(timestamp - most_recent)
                        most_recent = timestamp
                        generated_text += text or ""
                        n_chunks += 1
                        ids = choices[0].get("token_ids")
                        w.tokens += len(ids) if ids is not None else 1
                    elif usage := data.get("usage"):
                        output_tokens = usage.get("completion_tokens")
    if not first:
        raise RuntimeError("Never received a valid chunk to calculate TTFT.")
    return output_tokens, n_chunks


async def request_nonstream(session, url, payload, rid, w):
    async with session.post(url=url, json=payload, headers={"x-request-id": rid}) as response:
        if response.status != 200:
            raise RuntimeError(response.reason or "")
        data = await response.json()
    n = data["usage"]["completion_tokens"]
    w.tokens += n
    return n, len(data["choices"][0].get("token_ids") or []) or n


async def main(args):
    w = Window(args)
    url = args.url.rstrip("/") + "/v1/completions"
    payload = {
        "model": "m",
        "prompt": PROMPT,
        "repetition_penalty": 1.0,
        "max_tokens": args.max_tokens,
        "logprobs": None,
        "stream": args.stream,
        "ignore_eos": True,
    }
    if args.stream:
        payload["stream_options"] = {"include_usage": True}
    fn = request_stream if args.stream else request_nonstream
    connector = aiohttp.TCPConnector(
        limit=args.concurrency,
        limit_per_host=args.concurrency,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
    )
    session = aiohttp.ClientSession(connector=connector, trust_env=True,
                                    timeout=aiohttp.ClientTimeout(total=6 * 60 * 60))
    loop = asyncio.get_running_loop()
    loop.call_later(args.warmup_s, w.begin)
    loop.call_later(args.warmup_s + args.duration_s, w.end, "duration")
    loop.call_later(args.warmup_s + args.duration_s + 30, w.end, "hard-timeout")
    prefix = f"aio-{os.getpid()}-"
    seq = 0
    errs = 0

    async def worker(i):
        nonlocal seq, errs
        if args.ramp_s > 0:
            await asyncio.sleep(i * args.ramp_s / args.concurrency)
        while w.may_issue():
            rid = prefix + str(seq)
            seq += 1
            try:
                out_tokens, got = await fn(session, url, payload, rid, w)
                if out_tokens != got:
                    w.mismatches += 1
                w.completed += 1
            except Exception as e:  # noqa: BLE001
                w.errors += 1
                errs += 1
                if errs <= 3:
                    print(f"aiohttp_client: {e!r}", file=sys.stderr)
            w.maybe_done()

    gc.collect()
    gc.freeze()
    await asyncio.gather(*(worker(i) for i in range(args.concurrency)))
    w.end("request-count")


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--requests", type=int, default=1_000_000)
    p.add_argument("--duration-s", type=float, default=5)
    p.add_argument("--warmup-s", type=float, default=1)
    p.add_argument("--stream", dest="stream", action="store_true", default=True)
    p.add_argument("--no-stream", dest="stream", action="store_false")
    p.add_argument("--max-tokens", type=int, default=100)
    p.add_argument("--ttft-out", default=None)
    p.add_argument("--ramp-s", type=float, default=0)
    return p.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse()))
