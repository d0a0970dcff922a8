#!/usr/bin/env python3
"""How braid's bond scales with workers: 1, 2, 4, 8 and 14 worker lcores receive on the RSS-less
queues of one host port (net_pcap, one replayed trace per RX queue) and transmit into one bond of
4 net_null members (static, l34), against testpmd at the same core counts on the same vdevs:
io-forward into one net_null sink (the ceiling) and forwarding into DPDK's net_bonding mode 2
l34 over 4 net_null members (the peer). Every run is interleaved per core count, so the machine's
state is the same for the three. The table gives Mpps in total and per worker, and the ratios.

Prepared for a machine with at least 16 CPUs (the main lcore on CPU 0, workers on 1..N), run as
one script in under 8 minutes (5 core counts x 3 runs x --seconds, 8 s by default, plus start-up).
On a smaller machine pass --workers to what it has; with --share-cpus, lcores beyond the CPUs
share them (--lcores N@cpu), which tests that it runs, not how fast.

Usage: test/bench/scaling.py [--braid build/app/braid/braid] [--workers 1,2,4,8,14]
                             [--seconds 8] [--flows 4096] [--share-cpus]
"""

import argparse
import os
import tempfile

from benchlib import EAL_NO_HUGE, run_for, samples_mean, testpmd_rate, write_trace

MEMBERS = 4


def lcore_map(workers, share):
    """EAL's --lcores: lcore i on CPU i, or with `share`, on the CPUs this process has, in turn."""
    cpus = sorted(os.sched_getaffinity(0))
    if not share:
        missing = [i for i in range(workers + 1) if i not in cpus]
        if missing:
            raise SystemExit(f"{workers} workers need CPUs 0-{workers}; this process may use "
                             f"{cpus} (use --share-cpus to run anyway, for correctness only)")
        return ",".join(str(i) for i in range(workers + 1))
    return ",".join(f"{i}@{cpus[i % len(cpus)]}" for i in range(workers + 1))


def pcap_device(trace, queues, index=0):
    return f"net_pcap{index},{','.join(['rx_pcap=' + trace] * queues)},infinite_rx=1"


def braid_config(trace, workers, flows):
    members = ", ".join(f"m{m}" for m in range(MEMBERS))
    ports = "".join(f'  - {{name: m{m}, device: "net_null{m},no-rx=1"}}\n' for m in range(MEMBERS))
    return f"""ports:
  - {{name: host, device: "{pcap_device(trace, workers)}", rx_queues: {workers},
     extra_mbufs: {flows * workers}}}
{ports}bonds:
  - {{name: up, members: [{members}], mode: static, hash: l34}}
workers: {{lcores: [{", ".join(str(w + 1) for w in range(workers))}]}}
cross_connect: [[host, up]]
"""


def braid_rate(braid, workers, trace, flows, seconds, share):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config:
        config.write(braid_config(trace, workers, flows))
    out = run_for([braid, "--config", config.name, "--stats-interval", "1000", "--",
                   f"--file-prefix=bench-scale-{workers}-{os.getpid()}",
                   f"--lcores={lcore_map(workers, share)}"], seconds)
    os.unlink(config.name)
    return samples_mean(out, f"braid with {workers} workers")


def testpmd(workers, trace, seconds, share, bonded):
    """testpmd with `workers` forwarding cores and as many queues on every port."""
    queues = [f"--rxq={workers}", f"--txq={workers}", f"--nb-cores={workers}"]
    lcores = [f"--lcores={lcore_map(workers, share)}"]
    if not bonded:
        return testpmd_rate([pcap_device(trace, workers), "net_null0,no-rx=1"], seconds,
                            f"scale-io{workers}", extra=queues, eal=lcores)
    nulls = [f"net_null{m + 1},no-rx=1" for m in range(MEMBERS)]
    slaves = ",".join(f"slave=net_null{m + 1}" for m in range(MEMBERS))
    return testpmd_rate([pcap_device(trace, workers), *nulls,
                         f"net_bonding0,mode=2,{slaves},xmit_policy=l34"], seconds,
                        f"scale-nb{workers}", ports=[0, MEMBERS + 1], extra=queues, eal=lcores)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--braid", default="build/app/braid/braid")
    parser.add_argument("--workers", default="1,2,4,8,14")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--flows", type=int, default=4096)
    parser.add_argument("--share-cpus", action="store_true")
    args = parser.parse_args()
    trace = os.path.join(tempfile.mkdtemp(prefix="braid-scale-"), "trace.pcap")
    write_trace(args.braid, trace, flows=args.flows, packets=args.flows)
    print(f"CPUs: {len(os.sched_getaffinity(0))}; trace: {args.flows} flows of 64 B; "
          f"{MEMBERS} members; {args.seconds} s per run; EAL {' '.join(EAL_NO_HUGE)}\n")
    print("| workers | io-forward Mpps | net_bonding Mpps | braid Mpps | braid Mpps/worker | "
          "braid / io-forward | braid / net_bonding |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for workers in (int(w) for w in args.workers.split(",")):
        ceiling = testpmd(workers, trace, args.seconds, args.share_cpus, bonded=False)
        peer = testpmd(workers, trace, args.seconds, args.share_cpus, bonded=True)
        braid = braid_rate(args.braid, workers, trace, args.flows, args.seconds, args.share_cpus)
        print(f"| {workers} | {ceiling / 1e6:.2f} | {peer / 1e6:.2f} | {braid / 1e6:.2f} | "
              f"{braid / workers / 1e6:.2f} | {braid / ceiling:.2f} | {braid / peer:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
