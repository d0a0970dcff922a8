"""Shared helpers for the end-to-end rate benchmarks: run braid or testpmd for a while and read
their per-second rate samples (mean after a warm-up), write synthetic traces with braid."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

SI = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
EAL_NO_HUGE = ["--no-huge", "-m", "512", "--no-pci"]


def run_for(command, seconds):
    """Runs a command for `seconds`, stops it with SIGINT, returns its combined output."""
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


def samples_mean(out, what="braid"):
    """Mean of the `delivered` per-second samples in braid's stats lines ("[    2.0s] offered
    6.24Mpps delivered 6.20Mpps dropped 40.0kpps"), after a warm-up."""
    samples = [float(v) * SI[p]
               for v, p in re.findall(r"\] offered \S+ delivered ([\d.]+)([kMG]?)pps", out)]
    if not samples:
        sys.exit(f"{what} produced no stats:\n" + out)
    return mean_after_warmup(samples)


def braid_rate(braid, config_text, seconds, tag):
    """Mean of braid's `rx` per-second samples for a config."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as config:
        config.write(config_text)
    out = run_for([braid, "--config", config.name, "--stats-interval", "1000", "--",
                   f"--file-prefix=bench-braid-{tag}-{os.getpid()}"], seconds)
    os.unlink(config.name)
    return samples_mean(out)


def testpmd_rate(vdevs, seconds, tag, ports=None, extra=(), eal=("-l", "0,1")):
    """Mean of testpmd's summed Rx-pps per sample over the forwarding ports (io forward)."""
    command = ["dpdk-testpmd", *EAL_NO_HUGE, f"--file-prefix=bench-tp-{tag}-{os.getpid()}",
               *eal, *[f"--vdev={v}" for v in vdevs], "--", "--forward-mode=io",
               "--total-num-mbufs=32768", "--stats-period=1", "-a", *extra]
    if ports:
        command.append("--portlist=" + ",".join(str(p) for p in ports))
    out = run_for(command, seconds)
    blocks = out.split("Port statistics ====")[1:]
    samples = []
    for block in blocks:
        per_port = dict(re.findall(r"NIC statistics for port (\d+).*?Rx-pps:\s+(\d+)", block, re.S))
        wanted = [str(p) for p in ports] if ports else per_port.keys()
        samples.append(sum(int(per_port.get(p, 0)) for p in wanted))
    if not samples:
        sys.exit("testpmd produced no stats:\n" + out)
    return mean_after_warmup(samples)


def write_trace(braid, path, flows, packets, frame_size=64):
    """braid writes its synthetic trace (the same generator as the demo) and exits at once."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as gen:
        gen.write(f"""trace: {{path: {path}, flows: {flows}, packets: {packets}, frame_size: {frame_size}}}
ports:
  - {{name: a, device: "net_null0"}}
  - {{name: b, device: "net_null1"}}
cross_connect: [[a, b]]
""")
    subprocess.run([braid, "--config", gen.name, "--duration", "0", "--stats-interval", "0", "--",
                    f"--file-prefix=bench-gen-{os.getpid()}"], check=True, capture_output=True)
    os.unlink(gen.name)
