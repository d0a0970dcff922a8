#!/usr/bin/env python3
"""braid as the host's bond0, measured with the kernel's own TCP: iperf3 from a host netdev
(net_tap) through the host's bond over two veth members to a far end in a namespace, with and
without a member cable failing mid-transfer, next to DPDK's bonding PMD in braid's place.

The rig is the interop suite's (test/interop/host_bond.py): the host's bond is braid (net_tap
cross-connected with its LACP bond) or testpmd (net_tap io-forwarded to net_bonding mode 4 l34,
the closest thing to a Linux bond this machine has: it has no bonding or team module); the far
end is a second braid, or Open vSwitch's userspace bridge (which drops under load on a small
machine, so its runs measure it as much as the host's bond). Per case: throughput, TCP
retransmissions (iperf3's count), and the longest time without a data segment reaching the
receiver, over all streams and for the worst stream (dumpcap there, kernel timestamps).

Usage (root): test/bench/host_bond.py [--braid build/app/braid/braid] [--seconds 8]
              [--streams 4] [--repeat 2] [--bonds braid,testpmd] [--switches braid,ovs]
"""

import argparse
import os
import pathlib
import statistics
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "interop"))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--braid", default="build/app/braid/braid")
    parser.add_argument("--braidctl", default=None, help="default: next to --braid")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--fail-at", type=float, default=3.0)
    parser.add_argument("--streams", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--bonds", default="braid,testpmd")
    parser.add_argument("--switches", default="braid,ovs")
    return parser.parse_args()


def main():
    args = parse_args()
    braid = pathlib.Path(args.braid).resolve()
    braidctl = pathlib.Path(args.braidctl or braid.parent.parent / "braidctl" / "braidctl")
    os.environ["BRAID"], os.environ["BRAIDCTL"] = str(braid), str(braidctl.resolve())
    from host_bond import HostBondRig, summarize  # noqa: E402 (BRAID is read at import)

    rows = []
    for switch in args.switches.split(","):
        for bond in args.bonds.split(","):
            for reverse in (False, True):
                for fail in (False, True):
                    runs = []
                    for _ in range(args.repeat):
                        with tempfile.TemporaryDirectory() as directory:
                            rig = HostBondRig(directory, bond=bond, switch=switch)
                            try:
                                rig.build().wait_bond_up()
                                rig.start_capture(reverse)
                                result, failed = rig.iperf(
                                    args.seconds, args.streams,
                                    fail_member_at=args.fail_at if fail else None,
                                    reverse=reverse)
                                runs.append(summarize(result, rig.stop_capture(), failed,
                                                     rig.transfer_end_ns))
                            finally:
                                rig.close()
                    row = (switch, bond, "in" if reverse else "out", "yes" if fail else "no",
                           statistics.median(r["gbit_s"] for r in runs),
                           statistics.median(r["retransmits"] for r in runs),
                           max(r["stall_all_ms"] for r in runs),
                           max(r["stall_flow_ms"] for r in runs))
                    rows.append(row)
                    print("far end %-6s host bond %-8s %-3s fail %-3s  %.3f Gbit/s  retr %6d  "
                          "stall all %7.1f ms  worst stream %7.1f ms" % row, flush=True)
    print()
    print("| far end | host bond | direction | member fails | Gbit/s (median) | retransmissions "
          "(median) | longest stall, all streams (max) | longest stall, worst stream (max) |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| %s | %s | %s | %s | %.3f | %d | %.1f ms | %.1f ms |" % row)


if __name__ == "__main__":
    main()
