#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_lacp_pdu: valid LACPDUs and Marker PDUs (802.1AX-2014 6.4.2.3,
6.5.3), built field by field, some of them echoing the fuzz target's own system so that seeds
reach Synchronization and the Mux machine's later states.

A seed is the fuzz target's control byte, then one frame. The control byte picks the snapshot the
frame meets (SCENES, in the order fuzz_lacp_pdu.cpp builds them), the port it arrives on and how
long the clock runs on afterwards (AFTER, the target's kAfterNs).

Usage: test/fuzz/lacp/make_corpus.py   (writes test/fuzz/corpus/lacp_pdu/*.bin)
"""
import pathlib
import struct
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from seeds import write_seeds  # noqa: E402  (test/fuzz/seeds.py)

SCENES = {"fresh": 0, "partnered": 1, "distributing": 2, "partner_silent": 3}
AFTER = {"none": 0, "1ms": 1, "400ms": 2, "fast_periodic": 3, "short_timeout": 4, "10s": 5,
         "long_timeout": 6, "churn": 7}

OUT = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "lacp_pdu"
SLOW = bytes.fromhex("0180c2000002")
# The fuzz target's system (fuzz_lacp_pdu.cpp): MAC 02:00:00:00:00:01, priority 32768, ports 1
# and 2 at 25G full duplex, so key (7 << 1) | 1 = 15, port priority 255.
OUR_SYSTEM = bytes.fromhex("020000000001")
THEIR_SYSTEM = bytes.fromhex("0200000000bb")
ACTIVE, SHORT, AGG, SYNC, COLL, DIST, DEF, EXP = (1 << i for i in range(8))


def eth(src):
    return SLOW + src + struct.pack("!H", 0x8809)


def info(tlv_type, prio, system, key, port_prio, port, state):
    return struct.pack("!BBH", tlv_type, 20, prio) + system + struct.pack(
        "!HHHB3x", key, port_prio, port, state)


def lacpdu(actor, partner, version=1, extra_tlvs=b"", src_port=1):
    body = struct.pack("!BB", 1, version) + info(1, *actor) + info(2, *partner)
    body += struct.pack("!BBH12x", 3, 16, 0) + extra_tlvs + b"\x00\x00"
    body += bytes(max(0, 110 - len(body)))
    return eth(bytes.fromhex("0200000b01") + bytes([src_port])) + body


def marker(tlv_type, port, system, transaction):
    body = struct.pack("!BBBBH", 2, 1, tlv_type, 16, port) + system
    body += struct.pack("!IH", transaction, 0) + b"\x00\x00"
    return eth(bytes.fromhex("0200000b0101")) + body + bytes(110 - len(body))


def them(port, state, key=15):
    return (0x8000, THEIR_SYSTEM, key, 255, port, state)


def us(port, state):
    return (0x8000, OUR_SYSTEM, 15, 255, port, state)


NOBODY = (0, bytes(6), 0, 0, 0, 0)
UP = ACTIVE | SHORT | AGG


def control(scene, port=0, after="none"):
    return bytes([SCENES[scene] | port << 2 | AFTER[after] << 3])


IN_SYNC = lacpdu(them(1, UP | SYNC), us(1, UP | SYNC))
DISTRIBUTING = lacpdu(them(1, UP | SYNC | COLL | DIST), us(1, UP | SYNC | COLL | DIST))

seeds = {
    "lacpdu_first_contact": control("fresh") + lacpdu(them(1, UP), NOBODY),
    "lacpdu_first_contact_then_timeout": control("fresh", after="short_timeout") +
    lacpdu(them(1, UP), NOBODY),
    "lacpdu_in_sync": control("partnered") + IN_SYNC,
    "lacpdu_in_sync_port2": control("partnered", port=1) +
    lacpdu(them(2, UP | SYNC), us(2, UP | SYNC), src_port=2),
    "lacpdu_collecting_distributing": control("partnered", after="400ms") + DISTRIBUTING,
    "lacpdu_keepalive_distributing": control("distributing", after="fast_periodic") + DISTRIBUTING,
    "lacpdu_partner_out_of_sync": control("distributing") + lacpdu(them(1, UP), us(1, UP | SYNC)),
    "lacpdu_partner_back": control("partner_silent", after="1ms") + DISTRIBUTING,
    "lacpdu_passive_long": control("fresh", after="long_timeout") + lacpdu(them(1, AGG), NOBODY),
    "lacpdu_individual": control("partnered") + lacpdu(them(1, ACTIVE | SYNC), us(1, UP)),
    "lacpdu_expired_but_distributing": control("distributing") +
    lacpdu(them(1, UP | COLL | DIST | EXP), us(1, UP)),
    "lacpdu_key_change": control("distributing", after="churn") +
    lacpdu(them(1, UP | SYNC, key=99), us(1, UP | SYNC)),
    "lacpdu_version2_tlv": control("fresh") + lacpdu(them(1, UP), NOBODY, version=2,
                                                     extra_tlvs=bytes.fromhex("04060080c205")),
    "lacpdu_loopback": control("distributing") + lacpdu(us(1, UP), NOBODY),
    "marker_information": control("distributing") + marker(1, 7, THEIR_SYSTEM, 0xDEADBEEF),
    "marker_response": control("partnered", port=1) + marker(2, 1, OUR_SYSTEM, 1),
}


def check(name, data):
    assert len(data) == 1 + 124, name


def main():
    write_seeds(OUT, seeds, check)


if __name__ == "__main__":
    main()
