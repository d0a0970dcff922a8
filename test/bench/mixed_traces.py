"""Traces that look like a storage VLAN, for the per-core bond benchmarks (issue 19): 64 B frames
(IPv6 and tagged ones a few bytes longer, as their headers need), a share of IPv6 flows and a
share of 802.1Q-tagged flows drawn independently, TCP and UDP mixed packet by packet, service
ports of storage protocols (iSCSI, NVMe/TCP, NFS, RoCEv2 with a BTH), written as pcap files that
net_pcap replays. Checksums are left zero: nothing on the path checks them.

  uniform: 4,096 flows, packets round-robin over them
  zipf:    10,000 flows, packets i.i.d. Zipf(1.1) over them (the top flow carries ~10%)
  imix:    4,096 flows, frame sizes 64 / 576 / 1500 in the proportion 7 : 4 : 1
  cached:  the uniform trace cut to 16,384 packets (its mbufs fit in the last-level cache)
"""

import random
import struct

ETH_IPV4, ETH_IPV6, ETH_VLAN = 0x0800, 0x86DD, 0x8100
TCP, UDP = 6, 17
ROCEV2_PORT = 4791
SERVICE_PORTS = (3260, 4420, 2049, ROCEV2_PORT, 443, 80)
IMIX = ((64, 7), (576, 4), (1500, 1))

# name: (flows, packets, zipf exponent, IMIX sizes)
TRACES = {
    "uniform": (4096, 131072, 0.0, False),
    "zipf": (10000, 131072, 1.1, False),
    "imix": (4096, 131072, 0.0, True),
    "cached": (4096, 16384, 0.0, False),
}


def flow_headers(index, rng, ipv6_share, vlan_share):
    """The L2-L4 headers of one flow (bytes), without padding; UDP length filled in later."""
    ipv6 = rng.random() < ipv6_share
    vlan = rng.random() < vlan_share
    protocol = TCP if rng.random() < 0.5 else UDP
    src_port = 32768 + rng.randrange(28000)
    dst_port = rng.choice(SERVICE_PORTS)
    l2 = bytes.fromhex("020000000002020000000001")
    if vlan:
        l2 += struct.pack("!HH", ETH_VLAN, 100 + index % 8)
    l2 += struct.pack("!H", ETH_IPV6 if ipv6 else ETH_IPV4)
    if ipv6:
        src = bytes([0xFD] + [0] * 11) + struct.pack("!I", index)
        dst = bytes([0xFD] + [0] * 11) + struct.pack("!I", rng.getrandbits(32))
        l3 = (struct.pack("!IHBB", 0x60000000, 0, protocol, 64), src + dst)
    else:
        src = struct.pack("!I", 0x0A000000 | index)
        dst = struct.pack("!I", 0xC0A80000 | rng.getrandbits(16))
        l3 = (protocol, src + dst)
    if protocol == TCP:
        l4 = struct.pack("!HHIIBBHHH", src_port, dst_port, 0, 0, 0x50, 0x10, 0xFFFF, 0, 0)
    else:
        l4 = struct.pack("!HHHH", src_port, dst_port, 0, 0)
        if dst_port == ROCEV2_PORT:  # a Base Transport Header: opcode ... destination QP
            l4 += struct.pack("!BBHII", 0x04, 0, 0xFFFF, rng.getrandbits(24), 0)
    return ipv6, protocol, l2, l3, l4


def build_frame(headers, size):
    ipv6, protocol, l2, l3, l4 = headers
    l3_len = 40 if ipv6 else 20
    size = max(size, len(l2) + l3_len + len(l4))
    l4_total = size - len(l2) - l3_len
    if protocol == UDP:  # the UDP length
        l4 = l4[:4] + struct.pack("!H", l4_total) + l4[6:]
    if ipv6:
        first, addresses = l3
        header = first[:4] + struct.pack("!H", l4_total) + first[6:] + addresses
    else:
        protocol, addresses = l3
        header = struct.pack("!BBHHHBBH", 0x45, 0, size - len(l2), 0, 0, 64, protocol, 0) + addresses
    frame = l2 + header + l4
    return frame + bytes(size - len(frame))


def packet_flows(flows, packets, zipf, rng):
    if zipf <= 0:
        return [i % flows for i in range(packets)]
    weights = [1.0 / (k + 1) ** zipf for k in range(flows)]
    return rng.choices(range(flows), weights=weights, k=packets)


def write_trace(path, name, ipv6_share=0.25, vlan_share=0.22, seed=1):
    """Writes trace `name` (TRACES) to `path`; returns (flows, packets)."""
    flows, packets, zipf, imix = TRACES[name]
    rng = random.Random(seed)
    headers = [flow_headers(i, rng, ipv6_share, vlan_share) for i in range(flows)]
    sizes = [s for s, weight in IMIX for _ in range(weight)] if imix else [64]
    frames = {}
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, flow in enumerate(packet_flows(flows, packets, zipf, rng)):
            size = sizes[i % len(sizes)] if imix else 64
            frame = frames.get((flow, size))
            if frame is None:
                frame = frames[(flow, size)] = build_frame(headers[flow], size)
            out.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(frame), len(frame)))
            out.write(frame)
    return flows, packets
