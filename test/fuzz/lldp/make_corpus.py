#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_lldpdu: LLDP frames (IEEE 802.1AB-2016 8, the 802.3 link
aggregation TLV of 79.3.3), built TLV by TLV, as switches and lldpd send them.

A seed is the fuzz target's control byte, then the frame. The control byte says which agent the
frame meets (SCENES, in the order fuzz_lldpdu.cpp builds them) and how long the clock runs on
(AFTER, its kAfterNs). Seeds named reject_* are frames the decoder must refuse.

Usage: test/fuzz/lldp/make_corpus.py   (writes test/fuzz/corpus/lldpdu/*.bin)
"""
import pathlib
import struct
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from seeds import write_seeds  # noqa: E402  (test/fuzz/seeds.py)

SCENES = {"fresh": 0, "one": 1, "full": 2, "stopped": 3}
AFTER = {"none": 0, "1ns": 1, "1s-1": 2, "1s": 3, "3s": 4, "30s": 5, "121s": 6, "70000s": 7}
OUT = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "lldpdu"

NEAREST_BRIDGE = bytes.fromhex("0180c200000e")
SWITCH_MAC = bytes.fromhex("0c0000000002")
# The neighbour the fuzz target's "one" and "full" agents know (fuzz_lldpdu.cpp).
KNOWN_CHASSIS = bytes.fromhex("0c0000000001")
END, CHASSIS, PORT, TTL, PORT_DESC, SYS_NAME, SYS_DESC, CAPS, MGMT = range(9)
ORG = 127


def tlv(kind, info=b""):
    return struct.pack("!H", kind << 9 | len(info)) + info


def mandatory(chassis=KNOWN_CHASSIS, port=b"swp1", ttl=120):
    return (tlv(CHASSIS, b"\x04" + chassis) + tlv(PORT, b"\x05" + port) +
            tlv(TTL, struct.pack("!H", ttl)))


def mgmt(family, address, ifindex=2, oid=b""):
    return tlv(MGMT, bytes([1 + len(address), family]) + address + b"\x02" +
               struct.pack("!I", ifindex) + bytes([len(oid)]) + oid)


def aggregation(enabled=True, port_id=5, oui=b"\x00\x12\x0f", subtype=3):
    status = 1 | (2 if enabled else 0)
    return tlv(ORG, oui + bytes([subtype, status]) + struct.pack("!I", port_id))


def frame(tlvs, vlan=None, end=True):
    tag = b"" if vlan is None else struct.pack("!HH", 0x8100, vlan)
    data = NEAREST_BRIDGE + SWITCH_MAC + tag + b"\x88\xcc" + tlvs + (tlv(END) if end else b"")
    return data + bytes(max(0, 60 - len(data)))


def control(scene, after="none"):
    return bytes([SCENES[scene] | AFTER[after] << 2])


TYPICAL = (mandatory() + tlv(PORT_DESC, b"swp1") + tlv(SYS_NAME, b"tor1") +
           tlv(SYS_DESC, b"Cumulus Linux") + tlv(CAPS, b"\x00\x14\x00\x14") +
           mgmt(1, bytes([10, 0, 0, 254])) + aggregation())
seeds = {
    "typical_meets_fresh": control("fresh", "1s") + frame(TYPICAL),
    "typical_refreshes_known": control("one", "121s") + frame(TYPICAL),
    "changed_name_meets_known": control("one", "3s") + frame(mandatory() + tlv(SYS_NAME, b"tor9")),
    "shutdown_of_known": control("one", "30s") + frame(mandatory(ttl=0)),
    "new_neighbour_meets_full": control("full", "1s-1") + frame(mandatory(port=b"swp3")),
    "shutdown_meets_full": control("full") + frame(mandatory(port=b"swp2", ttl=0)),
    "frame_meets_stopped": control("stopped", "3s") + frame(TYPICAL),
    "vlan_tagged": control("fresh", "1ns") + frame(mandatory(port=b"Ethernet4"), vlan=0x2064),
    "ipv6_management_with_oid": control("fresh", "70000s") +
    frame(mandatory(ttl=65535) + mgmt(2, bytes.fromhex("fd" + "00" * 14 + "01"), 7,
                                      b"\x2b\x06\x01\x02\x01") +
          tlv(ORG, b"\x00\x80\xc2\x01\x00\x64")),
    "dot1_link_aggregation_not_enabled": control("one", "1s") +
    frame(mandatory() + aggregation(False, 0, b"\x00\x80\xc2", 7)),
    "no_end": control("fresh", "3s") + frame(mandatory(port=b"eth0", ttl=10), end=False),
    "reserved_tlv_and_repeats": control("fresh", "30s") +
    frame(mandatory() + tlv(9, b"\xab") + tlv(SYS_NAME, b"a") + tlv(SYS_NAME, b"b")),
    "chassis_local_port_mac": control("fresh") +
    frame(tlv(CHASSIS, b"\x07rack4-tor") + tlv(PORT, b"\x03" + SWITCH_MAC) +
          tlv(TTL, b"\x00\x78")),
    "reject_missing_ttl": control("fresh") +
    frame(tlv(CHASSIS, b"\x04" + KNOWN_CHASSIS) + tlv(PORT, b"\x05swp1")),
}


def main():
    write_seeds(OUT, seeds)


if __name__ == "__main__":
    main()
