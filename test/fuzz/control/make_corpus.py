#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_control_request: streams of control-socket frames (a 4-byte
big-endian length, then the payload; doc/console.md), as braidctl and a hostile client would send
them.

A seed is the stream, then the chunking the fuzz target cuts it with: one byte per chunk size
(size - 1, the last chunk first) and last of all the number of chunk sizes, because
FuzzedDataProvider takes integers from the end of the input.

Usage: test/fuzz/control/make_corpus.py   (writes test/fuzz/corpus/control_request/*.bin)
"""
import pathlib
import struct
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from seeds import write_seeds  # noqa: E402  (test/fuzz/seeds.py)

OUT = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "control_request"


def frame(payload):
    return struct.pack("!I", len(payload)) + payload


def seed(stream, chunks=()):
    assert len(chunks) <= 8 and all(1 <= c <= 64 for c in chunks)
    return stream + bytes(c - 1 for c in reversed(chunks)) + bytes([len(chunks)])


seeds = {
    "text_show": seed(frame(b"text show port")),
    "json_show_split": seed(frame(b"json show bond uplink") + frame(b"complete sh"), (1, 3, 5)),
    "complete_empty": seed(frame(b"complete ") + frame(b"text"), (4,)),
    "empty_frame": seed(frame(b"")),
    "unknown_mode": seed(frame(b"shout hello")),
    "utf8_word": seed(frame("text set member caf\u00e9 down".encode())),
    "not_utf8": seed(frame(b"json show port \xff\xfe") + frame(b"text \xc0\xaf"), (2,)),
    "surrogate": seed(frame(b"json show \xed\xa0\x80"), (7,)),
    "truncated": seed(frame(b"text show \xe2\x82")),
    "control_bytes": seed(frame(b"json show \x1b[2J\x00\x7f\xc2\x85")),
    "reply_shaped": seed(frame(b"ok\nline\n") + frame(b"error\nerror: x\n")),
    "oversized_header": seed(struct.pack("!I", (1 << 20) + 1) + b"text show", (2, 2)),
    "partial_frame": seed(struct.pack("!I", 40) + b"text show port"),
    "many_frames": seed(b"".join(frame(b"text help") for _ in range(20)), (13, 1, 64)),
}


def main():
    write_seeds(OUT, seeds)


if __name__ == "__main__":
    main()
