#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_bfd_packet: valid BFD Control packets (RFC 5880 4.1) and
whole frames (RFC 7130 micro-BFD, RFC 5881 single-hop, IPv4 and IPv6, one VLAN-tagged), built
field by field with their checksums, from the peer the fuzz target's snapshots talk to.

A seed is the fuzz target's control byte, then the bytes. The control byte says whether the
bytes are a bare packet or a frame, the encapsulation, the snapshot the packet meets (SCENES, in
the order fuzz_bfd_packet.cpp builds them), how long the clock runs on (AFTER, its kAfterNs) and
the address family the target's receive filter expects.

Usage: test/fuzz/bfd/make_corpus.py   (writes test/fuzz/corpus/bfd_packet/*.bin)
"""
import pathlib
import struct
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from seeds import write_seeds  # noqa: E402  (test/fuzz/seeds.py)

SCENES = {"fresh": 0, "init": 1, "up": 2, "admin_down": 3}
AFTER = {"none": 0, "1ms": 1, "10ms": 2, "29ms": 3, "31ms": 4, "1s": 5, "3.1s": 6, "10s": 7}
ADMIN_DOWN, DOWN, INIT, UP = range(4)
POLL, FINAL, AUTH = 0x20, 0x10, 0x04

OUT = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "bfd_packet"
# The fuzz target's session and its peer (fuzz_bfd_packet.cpp).
OURS, PEER = 0x0A0A0A0A, 0x0B0B0B0B
OUR_MAC, PEER_MAC = bytes.fromhex("020000000a01"), bytes.fromhex("020000000b01")
MICRO_BFD_MAC = bytes.fromhex("01005e900001")
OUR_IP4, PEER_IP4 = bytes([192, 168, 0, 1]), bytes([192, 168, 0, 2])
OUR_IP6, PEER_IP6 = bytes.fromhex("fd" + "00" * 14 + "01"), bytes.fromhex("fd" + "00" * 14 + "02")
MICRO_BFD_PORT, SINGLE_HOP_PORT, SOURCE_PORT = 6784, 3784, 49152 + PEER % 16384


def packet(state, your, flags=0, diag=0, tx=10_000, rx=10_000, mult=3, auth=b""):
    length = 24 + len(auth)
    head = struct.pack("!BBBBIIIII", 1 << 5 | diag, state << 6 | flags, mult, length, PEER, your,
                       tx, rx, 0)
    return head + auth


def checksum(data):
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def frame(payload, port=MICRO_BFD_PORT, ipv6=False, vlan=None):
    dst_mac = MICRO_BFD_MAC if port == MICRO_BFD_PORT else OUR_MAC
    src_ip, dst_ip = (PEER_IP6, OUR_IP6) if ipv6 else (PEER_IP4, OUR_IP4)
    udp_len = 8 + len(payload)
    pseudo = src_ip + dst_ip + struct.pack("!HH", 17, udp_len)
    udp = struct.pack("!HHHH", SOURCE_PORT, port, udp_len, 0) + payload
    udp_sum = checksum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", udp_sum) + udp[8:]
    if ipv6:
        ip = struct.pack("!IHBB", 6 << 28 | 0xC0 << 20, udp_len, 17, 255) + src_ip + dst_ip
        ethertype = 0x86DD
    else:
        ip = struct.pack("!BBHHHBBH", 0x45, 0xC0, 20 + udp_len, 0, 0x4000, 255, 17, 0)
        ip += src_ip + dst_ip
        ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
        ethertype = 0x0800
    tag = b"" if vlan is None else struct.pack("!HH", 0x8100, vlan)
    return dst_mac + PEER_MAC + tag + struct.pack("!H", ethertype) + ip + udp


def control(scene, whole_frame=False, single_hop=False, after="none", ipv6=False):
    return bytes([int(whole_frame) | int(single_hop) << 1 | SCENES[scene] << 2 |
                  AFTER[after] << 4 | int(ipv6) << 7])


SLOW = dict(tx=1_000_000)
seeds = {
    "packet_peer_down_meets_fresh": control("fresh") + packet(DOWN, 0, **SLOW),
    "packet_peer_init_meets_fresh": control("fresh", after="1s") + packet(INIT, OURS, **SLOW),
    "packet_peer_up_meets_init": control("init", after="10ms") + packet(UP, OURS, POLL),
    "packet_final_meets_up": control("up", after="29ms") + packet(UP, OURS, FINAL),
    "packet_poll_meets_up": control("up", after="31ms") + packet(UP, OURS, POLL),
    "packet_peer_down_meets_up": control("up") + packet(DOWN, OURS, diag=1, **SLOW),
    "packet_peer_admin_down_meets_up": control("up", after="3.1s") + packet(ADMIN_DOWN, OURS,
                                                                            diag=7, **SLOW),
    "packet_slower_timers_meets_up": control("up", after="10s") + packet(UP, OURS, POLL,
                                                                         tx=300_000, mult=5),
    "packet_meets_admin_down": control("admin_down", after="1s") + packet(DOWN, OURS),
    "packet_restarted_peer": control("up") + packet(DOWN, 0, **SLOW),
    "packet_keyed_md5": control("up") + packet(UP, OURS, AUTH,
                                               auth=struct.pack("!BBBxI", 2, 24, 1, 7) +
                                               bytes(16)),
    "frame_micro_bfd_ipv4": control("fresh", True) + frame(packet(DOWN, 0, **SLOW)),
    "frame_micro_bfd_ipv6": control("init", True, ipv6=True, after="10ms") +
    frame(packet(UP, OURS, POLL), ipv6=True),
    "frame_single_hop_ipv4": control("up", True, True, after="31ms") +
    frame(packet(UP, OURS), SINGLE_HOP_PORT),
    "frame_single_hop_ipv6": control("up", True, True, after="29ms", ipv6=True) +
    frame(packet(UP, OURS, FINAL), SINGLE_HOP_PORT, ipv6=True),
    "frame_micro_bfd_vlan": control("up", True, after="1ms") +
    frame(packet(UP, OURS), vlan=0x2064),
}


def main():
    write_seeds(OUT, seeds)


if __name__ == "__main__":
    main()
