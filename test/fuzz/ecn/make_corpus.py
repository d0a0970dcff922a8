#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_ecn_mark: a marking profile and a queue depth in front of IPv4
and IPv6 frames in every ECN codepoint, tagged (802.1Q, 802.1ad, 0x9100, QinQ, three tags) or not,
with IPv4 options, a checksum that is wrong or that marking turns to 0x0000, a VXLAN tunnel, cut
short, and the flow parser's seeds. The input layout is in fuzz_ecn_mark.cpp.

Usage: test/fuzz/ecn/make_corpus.py   (writes test/fuzz/corpus/ecn_mark/*.bin)
"""
import importlib.util
import pathlib
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from seeds import write_seeds  # noqa: E402

OUT = HERE.parent / "corpus" / "ecn_mark"
NOT_ECT, ECT1, ECT0, CE = range(4)


def flow_corpus():
    spec = importlib.util.spec_from_file_location("flow_corpus", HERE.parent / "flow" / "make_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


F = flow_corpus()


def head(kmin=128, kmax=512, pmax=100, depth=320):
    return struct.pack("!HHHH", kmin, kmax, pmax, depth)


def checksum(header):
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4(tos, payload, options=b"", ident=0x1234):
    ihl = 5 + len(options) // 4
    header = struct.pack("!BBHHHBBH", 0x40 | ihl, tos, ihl * 4 + len(payload), ident, 0x4000, 64, 17, 0)
    header += F.V4_A + F.V4_B + options
    header = header[:10] + struct.pack("!H", checksum(header)) + header[12:]
    return header + payload


def ipv4_zero_after_mark(ect):
    """An ECT header whose checksum becomes 0x0000 once it is CE."""
    base = ipv4(CE, F.udp(4791, 4791, bytes(8)), ident=0)
    others = ~checksum(base[:10] + bytes(2) + base[12:20]) & 0xFFFF
    ident = 0xFFFF - others
    return ipv4(ect, F.udp(4791, 4791, bytes(8)), ident=ident)


def ipv6(traffic_class, payload):
    first = 0x60000000 | traffic_class << 20 | 0xABCDE
    return struct.pack("!IHBB", first, len(payload), 17, 64) + F.V6_A + F.V6_B + payload


def frame(l3, ethertype, tags=()):
    return F.eth(ethertype, tags=tags) + l3


def main():
    udp = F.udp(4791, 4791, bytes(16))
    seeds = {}
    for name, ecn in (("not_ect", NOT_ECT), ("ect1", ECT1), ("ect0", ECT0), ("ce", CE)):
        seeds[f"ipv4_{name}"] = head() + frame(ipv4(34 << 2 | ecn, udp), 0x0800)
        seeds[f"ipv6_{name}"] = head() + frame(ipv6(46 << 2 | ecn, udp), 0x86DD)
    seeds["ipv4_options"] = head() + frame(ipv4(ECT0, udp, options=bytes([1] * 12)), 0x0800)
    seeds["ipv4_ctag"] = head() + frame(ipv4(ECT0, udp), 0x0800, tags=((0x8100, 100),))
    seeds["ipv6_stag"] = head() + frame(ipv6(ECT1, udp), 0x86DD, tags=((0x88A8, 100),))
    seeds["ipv4_qinq"] = head() + frame(ipv4(ECT1, udp), 0x0800, tags=((0x88A8, 10), (0x8100, 20)))
    seeds["ipv6_9100_qinq"] = head() + frame(ipv6(ECT0, udp), 0x86DD, tags=((0x9100, 10), (0x8100, 20)))
    seeds["three_tags"] = head() + frame(ipv4(ECT0, udp), 0x0800, tags=((0x88A8, 1), (0x8100, 2), (0x8100, 3)))
    wrong = bytearray(frame(ipv4(ECT0, udp), 0x0800))
    wrong[24] ^= 0x01
    seeds["ipv4_wrong_checksum"] = head() + bytes(wrong)
    seeds["ipv4_zero_after_mark"] = head() + frame(ipv4_zero_after_mark(ECT0), 0x0800)
    inner = F.eth(0x0800) + ipv4(ECT0, udp)
    seeds["vxlan_ect0"] = head() + frame(ipv4(ECT0, F.udp(49152, 4789, F.vxlan(42, inner))), 0x0800)
    seeds["ipv4_cut"] = head() + frame(ipv4(ECT0, udp), 0x0800)[:30]
    seeds["ipv6_cut"] = head() + frame(ipv6(ECT0, udp), 0x86DD)[:50]
    seeds["always"] = head(kmin=10, kmax=20, pmax=1000, depth=21) + frame(ipv4(ECT0, udp), 0x0800)
    seeds["step"] = head(kmin=0, kmax=64, pmax=0, depth=65) + frame(ipv6(ECT1, udp), 0x86DD)
    seeds["bad_profile"] = head(kmin=600, kmax=500, pmax=2000, depth=700) + frame(ipv4(ECT0, udp), 0x0800)
    for name, data in F.SEEDS.items():
        seeds[f"flow_{name}"] = head() + data
    write_seeds(OUT, seeds)


if __name__ == "__main__":
    main()
