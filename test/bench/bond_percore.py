#!/usr/bin/env python3
"""Per-core speed of the bond path on mixed traffic (issue 19): one worker lcore forwards a pcap
trace (test/bench/mixed_traces.py: uniform 4,096 flows, Zipf(1.1) over 10,000, IMIX, and a
cache-resident 16,384-packet copy; ~25% IPv6 and ~22% VLAN-tagged flows) into a bond of net_null
sinks, 2 and 4 members, side by side with testpmd io-forward from the same pcap into one sink
(the ceiling) and testpmd into DPDK's net_bonding mode 2 xmit_policy=l34 over the same sinks.
Every repetition runs the cases of one (trace, members) back to back, so all see the same
machine.

Two numbers per run: Mpps (the mean of the per-second samples after a warm-up) and the worker
thread's CPU time per packet (its run time from /proc/<pid>/task/<tid>/schedstat over the
measured window, times the rate). CPU ns/packet does not count time the worker was preempted,
so on a shared machine it is the steadier of the two; "+ns" is it minus io-forward's.

braid runs `static` with `hash: l34` and 4096 buckets, and with --policies also the flowlet
scheduler policies (lqf, adaptive) on the same bond. --before runs a second braid binary (an
older build) in the same repetitions.

Usage: test/bench/bond_percore.py [--braid build/app/braid/braid] [--before OLD_BRAID]
         [--traces uniform,zipf,imix,cached] [--members 2,4] [--policies hash,lqf,adaptive]
         [--repeat 3] [--seconds 6]
"""

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import mixed_traces
from benchlib import SI, mean_after_warmup

WARMUP_S = 2
# The 131,072-packet traces stay in net_pcap's mbufs: more memory than the other benchmarks.
EAL = ["--no-huge", "-m", "1024", "--no-pci"]
WORKER_THREAD = "rte-worker-1"  # EAL's name for lcore 1's thread


def worker_runtime_ns(pid):
    """The run time (ns) of the process's lcore-1 thread, or None while it does not exist."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as comm:
                if comm.read().strip() != WORKER_THREAD:
                    continue
            with open(f"/proc/{pid}/task/{tid}/schedstat") as stat:
                return int(stat.read().split()[0])
        except OSError:
            continue
    return None


def run_measured(command, seconds):
    """Runs `command` for `seconds` after it has started forwarding; returns its output and the
    worker's CPU share over the measured window (1.0: never preempted)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = time.monotonic()
    while worker_runtime_ns(process.pid) is None and time.monotonic() - started < 30:
        time.sleep(0.05)
    time.sleep(WARMUP_S + 0.5)
    wall0, cpu0 = time.monotonic(), worker_runtime_ns(process.pid)
    time.sleep(seconds)
    wall1, cpu1 = time.monotonic(), worker_runtime_ns(process.pid)
    process.send_signal(signal.SIGINT)
    try:
        out, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        out, _ = process.communicate()
    share = (cpu1 - cpu0) / ((wall1 - wall0) * 1e9) if cpu0 is not None and cpu1 else 0.0
    return out, share


def braid_rate(braid, config_text, seconds, tag):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config:
        config.write(config_text)
    out, share = run_measured([braid, "--config", config.name, "--stats-interval", "1000", "--",
                               *EAL, f"--file-prefix=bench-pc-{tag}-{os.getpid()}"], seconds)
    os.unlink(config.name)
    samples = [float(v) * SI[p]
               for v, p in re.findall(r"\] offered \S+ delivered ([\d.]+)([kMG]?)pps", out)]
    if not samples:
        sys.exit(f"braid ({tag}) produced no stats:\n" + out)
    # Stats lines start with the process; the window measured starts WARMUP_S later.
    return mean_after_warmup(samples, WARMUP_S + 1), share


def testpmd_rate(vdevs, seconds, tag, ports, mbufs):
    command = ["dpdk-testpmd", *EAL, f"--file-prefix=bench-pc-{tag}-{os.getpid()}",
               "-l", "0,1", *[f"--vdev={v}" for v in vdevs], "--", "--forward-mode=io",
               f"--total-num-mbufs={mbufs}", "--stats-period=1", "-a",
               "--portlist=" + ",".join(str(p) for p in ports)]
    out, share = run_measured(command, seconds)
    samples = []
    for block in out.split("Port statistics ====")[1:]:
        per_port = dict(re.findall(r"NIC statistics for port (\d+).*?Rx-pps:\s+(\d+)", block, re.S))
        samples.append(sum(int(per_port.get(str(p), 0)) for p in ports))
    if not samples:
        sys.exit(f"testpmd ({tag}) produced no stats:\n" + out)
    return mean_after_warmup(samples, WARMUP_S + 1), share


def braid_config(pcap, members, packets, policy):
    names = ", ".join(f"m{m}" for m in range(members))
    ports = "".join(f'  - {{name: m{m}, device: "net_null{m},no-rx=1"}}\n' for m in range(members))
    scheduler = "" if policy == "hash" else f", scheduler: {{policy: {policy}}}"
    return f"""ports:
  - {{name: host, device: "{pcap}", extra_mbufs: {packets}}}
{ports}bonds:
  - {{name: up, members: [{names}], mode: static, hash: l34, buckets: 4096{scheduler}}}
workers: {{lcores: [1]}}
cross_connect: [[host, up]]
"""


def cases(args, pcap, members, packets):
    """(name, function returning (pps, cpu share)) for one (trace, members), in run order."""
    mbufs = packets + 16384
    nulls = [f"net_null{m + 1},no-rx=1" for m in range(members)]
    slaves = ",".join(f"slave=net_null{m + 1}" for m in range(members))
    bonding = f"net_bonding0,mode=2,{slaves},xmit_policy=l34"
    runs = [("io-forward", lambda: testpmd_rate([pcap, "net_null0,no-rx=1"], args.seconds, "io",
                                                [0], mbufs)),
            ("net_bonding", lambda: testpmd_rate([pcap, *nulls, bonding], args.seconds, "nb",
                                                 [0, members + 1], mbufs))]
    binaries = [("braid", args.braid)] + ([("before", args.before)] if args.before else [])
    for label, binary in binaries:
        for policy in args.policies.split(","):
            name = label if policy == "hash" else f"{label} {policy}"
            config = braid_config(pcap, members, packets, policy)
            runs.append((name, lambda b=binary, c=config, n=name: braid_rate(
                b, c, args.seconds, n.replace(" ", "-"))))
    return runs


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--braid", default="build/app/braid/braid")
    parser.add_argument("--before", help="a second braid binary to run alongside")
    parser.add_argument("--traces", default="uniform,zipf,imix,cached")
    parser.add_argument("--members", default="2,4")
    parser.add_argument("--policies", default="hash")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=6)
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="braid-percore-")
    print(f"{args.repeat} repetitions of {args.seconds} s, medians; CPU ns/packet from the "
          "worker thread's run time\n")
    print("| trace | members | case | Mpps | CPU ns/packet | +ns over io-forward | "
          "Mpps / net_bonding | CPU ns: net_bonding / case |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for trace in args.traces.split(","):
        path = os.path.join(directory, f"{trace}.pcap")
        _, packets = mixed_traces.write_trace(path, trace)
        pcap = f"net_pcap0,rx_pcap={path},infinite_rx=1"
        for members in (int(m) for m in args.members.split(",")):
            results = {}
            for _ in range(args.repeat):
                for name, run in cases(args, pcap, members, packets):
                    pps, share = run()
                    results.setdefault(name, []).append((pps, share * 1e9 / pps if pps else 0))
            mpps = {n: statistics.median(r[0] for r in rs) / 1e6 for n, rs in results.items()}
            ns = {n: statistics.median(r[1] for r in rs) for n, rs in results.items()}
            for name in results:
                print(f"| {trace} | {members} | {name} | {mpps[name]:.2f} | {ns[name]:.1f} | "
                      f"{ns[name] - ns['io-forward']:+.1f} | "
                      f"{mpps[name] / mpps['net_bonding']:.2f} | "
                      f"{ns['net_bonding'] / ns[name]:.2f} |", flush=True)
        os.remove(path)
    os.rmdir(directory)


if __name__ == "__main__":
    main()
