#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_classifier: doc/classes.md's storage-gateway rules in front of
each frame of the flow parser's seeds, plus specs that are invalid (nine classes, a reversed
range, an unreachable class). The input layout is in fuzz_classifier.cpp.

Usage: test/fuzz/classify/make_corpus.py   (writes test/fuzz/corpus/classifier/*.bin)
"""
import importlib.util
import pathlib
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from seeds import write_seeds  # noqa: E402

OUT = HERE.parent / "corpus" / "classifier"
DSCP, PCP, PROTOCOL, SRC_PORT, DST_PORT, ROCE_OPCODE, ROCE_DEST_QP = range(7)
INNER, ROCE = 1, 2


def flow_seeds():
    spec = importlib.util.spec_from_file_location("flow_corpus", HERE.parent / "flow" / "make_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SEEDS


def u24(value):
    return struct.pack("!I", value)[1:]


def rule(class_id, flags=0, **fields):
    """fields: name=[(first, last), ...] with name one of dscp, pcp, ... roce_dest_qp."""
    names = ["dscp", "pcp", "protocol", "src_port", "dst_port", "roce_opcode", "roce_dest_qp"]
    mask, body = 0, b""
    for index, name in enumerate(names):
        if name in fields:
            ranges = fields[name]
            mask |= 1 << index
            body += bytes([len(ranges) - 1]) + b"".join(u24(a) + u24(b) for a, b in ranges)
    return bytes([class_id, flags, mask]) + body


def spec(classes, default, rules):
    return bytes([classes, default, len(rules)]) + b"".join(rules)


STORAGE = spec(3, 2, [
    rule(0, ROCE, pcp=[(3, 3)]),
    rule(1, protocol=[(6, 6)], dst_port=[(4420, 4420), (3260, 3260)]),
    rule(1, dscp=[(34, 34), (46, 46)]),
    rule(0, INNER | ROCE),
    rule(1, INNER, roce_dest_qp=[(256, 511)], roce_opcode=[(6, 10)]),
])


def main():
    frames = flow_seeds()
    seeds = {f"storage_{name}": STORAGE + frame for name, frame in frames.items()}
    roce = frames["roce"]
    seeds["nine_classes"] = spec(9, 0, [rule(i, dscp=[(i, i)]) for i in range(1, 9)]) + roce
    seeds["reversed_range"] = spec(2, 1, [bytes([0, 0, 1 << DST_PORT, 0x80]) + u24(5000) + u24(4000)]) + roce
    seeds["unreachable_class"] = spec(3, 2, [rule(0, pcp=[(3, 3)])]) + roce
    seeds["no_classes"] = spec(0, 0, []) + roce
    write_seeds(OUT, seeds)


if __name__ == "__main__":
    main()
