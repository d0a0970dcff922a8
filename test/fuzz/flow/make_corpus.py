#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_flow_parser: one small frame per header stack the parser knows.

Usage: test/fuzz/flow/make_corpus.py   (writes test/fuzz/corpus/flow_parser/*.bin)
"""
import pathlib
import struct

OUT = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "flow_parser"
MAC_A = bytes.fromhex("02000000000a")
MAC_B = bytes.fromhex("02000000000b")
V4_A, V4_B = bytes([192, 0, 2, 1]), bytes([198, 51, 100, 2])
V6_A = bytes.fromhex("20010db8000000000000000000000001")
V6_B = bytes.fromhex("20010db8000000000000000000000002")


def eth(ethertype, dst=MAC_B, src=MAC_A, tags=()):
    header = dst + src
    for tpid, tci in tags:
        header += struct.pack("!HH", tpid, tci)
    return header + struct.pack("!H", ethertype)


def ipv4(proto, payload, frag=0, src=V4_A, dst=V4_B):
    header = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(payload), 0x1234, frag, 64, proto, 0)
    return header + src + dst + payload


def ipv6(next_header, payload, src=V6_A, dst=V6_B):
    return struct.pack("!IHBB", 0x60000000, len(payload), next_header, 64) + src + dst + payload


def ext(next_header, units=0):
    return bytes([next_header, units]) + bytes((units + 1) * 8 - 2)


def tcp(sport, dport):
    return struct.pack("!HHIIHHHH", sport, dport, 1, 0, 0x5002, 0xFFFF, 0, 0)


def udp(sport, dport, payload=b""):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def vxlan(vni, inner):
    return struct.pack("!BBHI", 0x08, 0, 0, vni << 8) + inner


def gre(proto, inner, key=None):
    flags = 0x2000 if key is not None else 0
    return struct.pack("!HH", flags, proto) + (struct.pack("!I", key) if key is not None else b"") + inner


def bth(qp):
    return struct.pack("!BBHII", 0x04, 0x40, 0xFFFF, qp, 0)


def pad(frame, size=64):
    return frame + bytes(max(0, size - len(frame)))


SEEDS = {
    "ipv4_tcp": pad(eth(0x0800) + ipv4(6, tcp(40000, 443))),
    "ipv6_udp": eth(0x86DD) + ipv6(17, udp(5353, 53)),
    "qinq_ipv4_udp": pad(eth(0x0800, tags=((0x88A8, 10), (0x8100, 20))) + ipv4(17, udp(1, 2))),
    "ipv4_fragment": pad(eth(0x0800) + ipv4(17, bytes(16), frag=0x2000 | 5)),
    "ipv6_ext_frag": eth(0x86DD) + ipv6(0, ext(43, 1) + ext(44) + bytes([6, 0, 0, 1, 0, 0, 0, 9]) + tcp(1, 2)),
    "roce": eth(0x0800) + ipv4(17, udp(49152, 4791, bth(0x1234) + bytes(16))),
    "vxlan": eth(0x0800) + ipv4(17, udp(50000, 4789, vxlan(77, eth(0x86DD) + ipv6(6, tcp(10, 20))))),
    "gre_ipv4": eth(0x0800) + ipv4(47, gre(0x0800, ipv4(17, udp(3, 4)), key=5)),
    "gre_teb_ipv6": eth(0x86DD) + ipv6(47, gre(0x6558, eth(0x0800) + ipv4(1, bytes([8, 0, 0, 0])))),
    "lacp": pad(eth(0x8809, dst=bytes.fromhex("0180c2000002")) + bytes([1, 1]), 124),
    "arp": pad(eth(0x0806) + bytes(28)),
}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, frame in SEEDS.items():
        (OUT / f"{name}.bin").write_bytes(frame)
    print(f"wrote {len(SEEDS)} seeds to {OUT}")


if __name__ == "__main__":
    main()
