#!/usr/bin/env python3
"""Forwarding rate of braid's cross-connect next to testpmd io-forward on the same vdevs, in the
same run (the machines are shared and noisy, so only the ratio means something).

Usage: test/bench/forward_vs_testpmd.py [--seconds N] [--braid build/app/braid/braid]
Each topology runs braid and testpmd back to back, one worker lcore each, and reports the mean
packet rate over the samples after a warm-up, plus braid/testpmd.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

TOPOLOGIES = {
    # name: (vdev A, vdev B)
    "null<->null": ("net_null0,size=64", "net_null1,size=64"),
    "pcap(1024 flows)<->null": ("net_pcap0,rx_pcap={trace},infinite_rx=1", "net_null0,size=64"),
}
SI = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}


def run_for(command, seconds):
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(seconds)
    process.send_signal(signal.SIGINT)
    try:
        out, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    return out


def mean_after_warmup(samples, warmup=2):
    samples = samples[warmup:] or samples
    return sum(samples) / len(samples) if samples else 0.0


def braid_rate(braid, a, b, seconds, tag):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config:
        config.write(f"""ports:
  - {{name: a, device: "{a}", extra_mbufs: 8192}}
  - {{name: b, device: "{b}"}}
workers: {{lcores: [1]}}
cross_connect: [[a, b]]
stats: {{interval_ms: 1000}}
""")
    out = run_for([braid, "--config", config.name, "--", f"--file-prefix=bench-braid-{tag}"], seconds)
    os.unlink(config.name)
    samples = [float(v) * SI[p] for v, p in re.findall(r"\] rx ([\d.]+)([kMG]?)pps", out)]
    if not samples:
        sys.exit("braid produced no stats:\n" + out)
    return mean_after_warmup(samples)


def testpmd_rate(a, b, seconds, tag):
    out = run_for(["dpdk-testpmd", "--no-huge", "-m", "512", "--no-pci", f"--file-prefix=bench-tp-{tag}",
                   "-l", "0,1", f"--vdev={a}", f"--vdev={b}", "--", "--forward-mode=io",
                   "--total-num-mbufs=16384", "--stats-period=1", "-a"], seconds)
    # Per sample, testpmd prints Rx-pps for each port; sum them per sample.
    per_port = [int(v) for v in re.findall(r"Rx-pps:\s+(\d+)", out)]
    samples = [per_port[i] + per_port[i + 1] for i in range(0, len(per_port) - 1, 2)]
    if not samples:
        sys.exit("testpmd produced no stats:\n" + out)
    return mean_after_warmup(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--braid", default="build/app/braid/braid")
    args = parser.parse_args()
    trace_dir = tempfile.mkdtemp(prefix="braid-bench-")
    trace = os.path.join(trace_dir, "trace.pcap")
    # braid writes the same synthetic trace the demo uses (1024 flows, 64 B frames).
    with open(os.path.join(trace_dir, "gen.yaml"), "w") as gen:
        gen.write(f"""trace: {{path: {trace}, flows: 1024, packets: 4096, frame_size: 64}}
ports:
  - {{name: a, device: "net_null0"}}
  - {{name: b, device: "net_null1"}}
cross_connect: [[a, b]]
""")
    subprocess.run([args.braid, "--config", os.path.join(trace_dir, "gen.yaml"), "--duration", "0",
                    "--stats-interval", "0", "--", "--file-prefix=bench-gen"], check=True,
                   capture_output=True)
    print(f"| topology (1 worker lcore, 64 B) | braid Mpps | testpmd io Mpps | braid / testpmd |")
    print(f"|---|---:|---:|---:|")
    for index, (name, (a, b)) in enumerate(TOPOLOGIES.items()):
        a, b = a.format(trace=trace), b.format(trace=trace)
        braid = braid_rate(args.braid, a, b, args.seconds, index)
        testpmd = testpmd_rate(a, b, args.seconds, index)
        print(f"| {name} | {braid / 1e6:.2f} | {testpmd / 1e6:.2f} | {braid / testpmd:.2f} |", flush=True)


if __name__ == "__main__":
    main()
