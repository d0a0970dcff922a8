#!/usr/bin/env python3
"""Forwarding rate of braid's cross-connect next to testpmd io-forward on the same vdevs, in the
same run (the machines are shared and noisy, so only the ratio means something).

Usage: test/bench/forward_vs_testpmd.py [--seconds N] [--braid build/app/braid/braid]
Each topology runs braid and testpmd back to back, one worker lcore each, and reports the mean
packet rate over the samples after a warm-up, plus braid/testpmd.
"""

import argparse
import os
import tempfile

from benchlib import braid_rate, testpmd_rate, write_trace

TOPOLOGIES = {
    "null<->null": ("net_null0,size=64", "net_null1,size=64"),
    "pcap(1024 flows)<->null": ("net_pcap0,rx_pcap={trace},infinite_rx=1", "net_null0,size=64"),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--braid", default="build/app/braid/braid")
    args = parser.parse_args()
    trace = os.path.join(tempfile.mkdtemp(prefix="braid-bench-"), "trace.pcap")
    write_trace(args.braid, trace, flows=1024, packets=4096)
    print("| topology (1 worker lcore, 64 B) | braid Mpps | testpmd io Mpps | braid / testpmd |")
    print("|---|---:|---:|---:|")
    for index, (name, (a, b)) in enumerate(TOPOLOGIES.items()):
        a, b = a.format(trace=trace), b.format(trace=trace)
        config = f"""ports:
  - {{name: a, device: "{a}", extra_mbufs: 8192}}
  - {{name: b, device: "{b}"}}
workers: {{lcores: [1]}}
cross_connect: [[a, b]]
"""
        braid = braid_rate(args.braid, config, args.seconds, index)
        testpmd = testpmd_rate([a, b], args.seconds, index)
        print(f"| {name} | {braid / 1e6:.2f} | {testpmd / 1e6:.2f} | {braid / testpmd:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
