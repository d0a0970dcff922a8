#!/usr/bin/env python3
"""Throughput into a bond: one worker lcore forwards a pcap trace of many flows into a 2- and a
4-member bond (l34 hashing), side by side in the same run with testpmd io-forward on the same
vdevs (the ceiling: pcap -> one sink, no hashing) and testpmd forwarding into DPDK's net_bonding
(mode 2, balance, xmit_policy l34). Members are net_null sinks with no-rx=1, so only the
pcap -> bond direction carries packets.

braid's bond runs in mode static here: with sinks as members no LACP partner answers, and the
hashing and distribution path is the same as in mode lacp. net_bonding mode 4 is left out for
the same reason: without a partner it never reaches Distributing and transmits nothing.

Usage: test/bench/bond_throughput.py [--seconds N] [--flows N] [--braid build/app/braid/braid]
"""

import argparse
import os
import tempfile

from benchlib import braid_rate, testpmd_rate, write_trace


def braid_config(trace, members, flows):
    names = ", ".join(f"m{m}" for m in range(members))
    ports = "".join(f'  - {{name: m{m}, device: "net_null{m},no-rx=1"}}\n' for m in range(members))
    return f"""ports:
  - {{name: host, device: "net_pcap0,rx_pcap={trace},infinite_rx=1", extra_mbufs: {flows}}}
{ports}bonds:
  - {{name: up, members: [{names}], mode: static, hash: l34}}
workers: {{lcores: [1]}}
cross_connect: [[host, up]]
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--flows", type=int, default=10000)
    parser.add_argument("--braid", default="build/app/braid/braid")
    args = parser.parse_args()
    trace = os.path.join(tempfile.mkdtemp(prefix="braid-bench-"), "trace.pcap")
    write_trace(args.braid, trace, flows=args.flows, packets=args.flows)
    pcap = f"net_pcap0,rx_pcap={trace},infinite_rx=1"

    ceiling = testpmd_rate([pcap, "net_null0,no-rx=1"], args.seconds, "ceiling")
    print(f"testpmd io-forward pcap -> null (ceiling): {ceiling / 1e6:.2f} Mpps\n")
    print("| members | braid Mpps | braid / ceiling | net_bonding mode 2 Mpps | braid / net_bonding |")
    print("|---:|---:|---:|---:|---:|")
    for members in (2, 4):
        braid = braid_rate(args.braid, braid_config(trace, members, args.flows), args.seconds,
                           f"bond{members}")
        nulls = [f"net_null{m + 1},no-rx=1" for m in range(members)]
        slaves = ",".join(f"slave=net_null{m + 1}" for m in range(members))
        bonding = f"net_bonding0,mode=2,{slaves},xmit_policy=l34"
        # Ports: 0 = pcap, 1..members = the bond's members, members+1 = the bond.
        reference = testpmd_rate([pcap, *nulls, bonding], args.seconds, f"nb{members}",
                                 ports=[0, members + 1])
        print(f"| {members} | {braid / 1e6:.2f} | {braid / ceiling:.2f} | {reference / 1e6:.2f} | "
              f"{braid / reference:.2f} |", flush=True)


if __name__ == "__main__":
    main()
