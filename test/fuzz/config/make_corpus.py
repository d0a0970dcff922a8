#!/usr/bin/env python3
"""Writes the seed corpus and the dictionary of fuzz_config.

Seeds: every shipped config (config/*.yaml), plus small files that reach the corners the shipped
ones do not: flow style, anchors and aliases, every optional section, repeated keys, odd file
prefixes, deep nesting. The dictionary holds every key the loader knows, read from the
expect_map() calls of lib/config/config_loader.cpp, so it follows the loader as it grows.

Usage: test/fuzz/config/make_corpus.py   (writes test/fuzz/corpus/config/*.yaml and
test/fuzz/config/fuzz_config.dict)
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / "test" / "fuzz" / "corpus" / "config"
DICT = ROOT / "test" / "fuzz" / "config" / "fuzz_config.dict"
# Every loader of a config section (each file under lib/config/ that checks a map's keys).
LOADERS = sorted((ROOT / "lib" / "config").glob("*.cpp"))

PAIR = "ports:\n  - {name: a, device: net_null0}\n  - {name: b, device: net_null1}\ncross_connect: [[a, b]]\n"

EXTRA = {
    "minimal_flow": PAIR,
    "bond_scheduler": """ports:
  - {name: host, device: net_ring0}
  - {name: m0, device: "cable:x/a"}
  - {name: m1, device: "cable:x/b"}
bonds:
  - name: up
    members: [m0, m1]
    mode: lacp
    hash: toeplitz-sym
    buckets: 4096
    min_links: 1
    mac: "02:00:00:00:00:aa"
    lacp: {rate: slow, activity: passive, system_priority: 1, port_priority: 2, key: auto,
           aggregate_wait_ms: 0, fallback: false,
           withdraw: {degraded: always, cabling: true, patience_ms: 10}}
    scheduler:
      policy: adaptive
      weights: [3, 1]
      congestion: {source: sim, sim_pause_permille: [100, 0], netdevs: [eth0, ""]}
      aimd: {floor_permille: 10, ceiling_permille: 900}
cross_connect: [[host, up]]
""",
    "every_section": """eal: {file_prefix: gw1, args: ["--log-level=8"], main_lcore: 0, no_huge_memory_mb: 64}
trace: {path: /tmp/t.pcap, flows: 2, packets: 4, frame_size: 64, seed: 9}
ports:
  - {name: a, device: "net_pcap0,rx_pcap={trace}", rss: {hash: [ipv4, l2], key: symmetric}}
  - {name: b, device: net_null1, mtu: 9000, rx_queues: 2, tx_queues: 2}
workers: {lcores: [1, 2], burst: 64, tx_drain_us: 10}
cross_connect: [[a, b]]
stats: {interval_ms: 0}
control: {socket: "off"}
metrics: {listen: "[::1]:9100"}
""",
    "anchors": "x: &p {name: a, device: d}\n" + PAIR.replace("{name: a, device: net_null0}", "*p"),
    "aliases_everywhere": """ports: &ps
  - &a {name: a, device: x}
  - {name: b, device: y}
cross_connect: [[a, b]]
bonds: *ps
""",
    "duplicate_key": PAIR + "ports: []\n",
    "duplicate_nested": "ports:\n  - {name: a, name: b, device: x}\n",
    "bad_prefix": "eal: {file_prefix: ../../tmp/x}\n" + PAIR,
    "deep": "ports: " + "[" * 64 + "]" * 64 + "\n",
    "tags_and_complex_keys": "? [a, b]\n: c\n!!map {ports: !!seq [], eal: !custom x}\n",
    "multi_document": PAIR + "---\n" + PAIR,
    # yaml-cpp 0.7's LoadAll never returned on this (found by fuzz_config; see yaml_reader.hpp).
    "loadall_never_ends": "[], a",
    "block_scalars": "eal:\n  file_prefix: |\n    gw\n  args: >\n    a\n    b\n" + PAIR,
}


def loader_keys():
    text = "".join(loader.read_text() for loader in LOADERS)
    keys = set()
    for block in re.findall(r"expect_map\([^{]*\{([^}]*)\}", text, re.S):
        keys.update(re.findall(r'"([^"]+)"', block))
    return sorted(keys)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in OUT.glob("*.yaml"):
        stale.unlink()
    for shipped in sorted((ROOT / "config").glob("*.yaml")):
        (OUT / shipped.name).write_text(shipped.read_text())
    for name, text in EXTRA.items():
        (OUT / f"{name}.yaml").write_text(text)
    keys = loader_keys()
    words = keys + ["lacp", "static", "active-backup", "hash", "wrr", "lqf", "adaptive", "latency",
                    "spray", "mlx5", "xstats", "sim", "none", "auto", "on", "off", "fast", "slow",
                    "active",
                    "passive", "true", "false", "default", "symmetric", "{trace}", "cable:",
                    "net_ring0", "&a", "*a", "<<", "---", "- ", ": ", "{", "}", "[", "]", "!!map"]
    DICT.write_text("# fuzz_config's dictionary, written by test/fuzz/config/make_corpus.py\n" +
                    "".join(f'"{w}"\n' for w in words))
    print(f"wrote {len(list(OUT.glob('*.yaml')))} seeds to {OUT} and {len(words)} words to {DICT}")


if __name__ == "__main__":
    main()
