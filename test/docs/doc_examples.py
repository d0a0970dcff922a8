#!/usr/bin/env python3
"""The examples in doc/console.md, made by the program itself, and the README walkthrough run.

Regenerate every marked example from the running demo (after a change to console output):

    test/docs/doc_examples.py --update            # uses build/app/...; --build DIR for another

Check them (the meson test `doc_examples`, suite integration, does this):

    test/docs/doc_examples.py --check --braid B --braidctl C

Starts braid on the demo topology (config/demo.yaml, with a trace path, control socket, file
prefix and metrics port of its own), waits until both LACP bonds distribute on every member,
then runs, in document order, each example block of doc/console.md that a marker names:

    <!-- example: show bond uplink -->            console commands (`braid> ` transcript),
    <!-- example: set member m1 down; show distribution uplink; set member m1 up -->
    <!-- example $: braidctl --json show workers -->   shell commands (`$ ` transcript)

each followed by its fenced block. Console commands run as `braidctl --socket S <words>`; shell
commands run with bash, `braidctl` meaning that braidctl on that socket. Before each block the
bonds are back to distributing on every member, so a block that changes state does not leak
into the next. In the output the run's own prefix, socket and metrics address read as the
defaults a user sees (`braid`, /run/braid/braid.sock, 127.0.0.1:9464).

--check compares structure, not numbers: in every line numbers (not digits inside names such as
m0), MACs and rate units are masked
and runs of spaces collapsed, the rows of history tables (`age ...` headers: events, weight
changes, transitions) are left out, and the blocks are compared as sets of lines. A command
added, a column, key or row renamed or gone, fails; counters and times do not.

Then every braidctl command the README tells a user to run against the demo (and its `curl
.../metrics`) runs and must succeed with sane output.
"""

import argparse
import json
import os
import pathlib
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^<!-- example( \$)?: (.+?) -->$")
DEFAULT_PREFIX = "braid"
DEFAULT_SOCKET = "/run/braid/braid.sock"
DEFAULT_METRICS = "127.0.0.1:9464"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Demo:
    """braid on the demo topology, stopped (by PID) on exit."""

    def __init__(self, braid, braidctl, directory):
        self.braid, self.braidctl = braid, braidctl
        self.directory = pathlib.Path(directory)
        self.prefix = f"docex{os.getpid()}"
        self.socket = str(self.directory / "ctl.sock")
        self.metrics = f"127.0.0.1:{free_port()}"
        self.process = None

    def __enter__(self):
        config = (ROOT / "config/demo.yaml").read_text()
        config = config.replace("/tmp/braid-demo-trace.pcap", str(self.directory / "trace.pcap"))
        config += f"metrics:\n  listen: {self.metrics}\n"
        config_path = self.directory / "demo.yaml"
        config_path.write_text(config)
        self.log_path = self.directory / "braid.log"
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [self.braid, "--config", str(config_path), "--stats-interval", "0",
                 "--control-socket", self.socket, "--", f"--file-prefix={self.prefix}"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not os.path.exists(self.socket):
            self.alive()
            if time.monotonic() > deadline:
                raise SystemExit(f"doc_examples: braid's control socket never appeared\n{self.log()}")
            time.sleep(0.1)
        self.wait_distributing()
        time.sleep(1.5)  # a full second of rates behind every `show`
        return self

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self):
        return self.log_path.read_text(errors="replace")

    def alive(self):
        if self.process.poll() is not None:
            raise SystemExit(f"doc_examples: braid exited ({self.process.returncode})\n{self.log()}")

    def ctl(self, *words):
        return subprocess.run([self.braidctl, "--socket", self.socket, *words],
                              capture_output=True, text=True, timeout=60)

    def wait_distributing(self, timeout=60):
        """Until every member of every bond distributes."""
        deadline = time.monotonic() + timeout
        while True:
            self.alive()
            result = self.ctl("--json", "show", "bond")
            if result.returncode == 0:
                members = list(member_rows(json.loads(result.stdout)))
                if members and all(m["distributing"] in ("yes", True) for m in members):
                    return
            if time.monotonic() > deadline:
                raise SystemExit(f"doc_examples: the bonds never distributed on every member:\n"
                                 f"{self.ctl('show', 'bond').stdout}")
            time.sleep(0.2)

    def public(self, text):
        """The run's own names as a user of the demo sees them."""
        return (text.replace(self.socket, DEFAULT_SOCKET).replace(self.metrics, DEFAULT_METRICS)
                .replace(self.prefix, DEFAULT_PREFIX))

    def console(self, command):
        result = self.ctl(*shlex.split(command))
        if result.returncode == 3:
            raise SystemExit(f"doc_examples: braid unreachable: {result.stderr}")
        return f"braid> {command}\n" + self.public(result.stdout + result.stderr)

    def shell(self, command):
        result = subprocess.run(["bash", "-o", "pipefail", "-c", self.private(command)],
                                capture_output=True, text=True, timeout=60)
        if result.returncode not in (0, 1):
            raise SystemExit(f"doc_examples: `{command}` failed ({result.returncode}): "
                             f"{result.stdout}{result.stderr}")
        return f"$ {command}\n" + self.public(result.stdout + result.stderr)

    def private(self, command):
        """A documented shell command as it runs against this demo."""
        command = command.replace(DEFAULT_METRICS, self.metrics)
        command = re.sub(r"dpdk-telemetry\.py -f \S+", f"dpdk-telemetry.py -f {self.prefix}", command)
        return re.sub(r"(^|\| *)(?:\S*/)?braidctl\b",
                      lambda m: f"{m.group(1)}{shlex.quote(self.braidctl)} --socket {shlex.quote(self.socket)}",
                      command)


def member_rows(document):
    """Every row of `show bond`'s JSON that has a `distributing` column: one per member."""
    if isinstance(document, dict):
        if "distributing" in document:
            yield document
        for value in document.values():
            yield from member_rows(value)
    elif isinstance(document, list):
        for value in document:
            yield from member_rows(value)


# --- the document ---------------------------------------------------------------------------

def blocks(lines):
    """(marker index, shell?, commands, first content line, closing fence line) per example."""
    found = []
    for i, line in enumerate(lines):
        marker = MARKER.match(line)
        if not marker:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            raise SystemExit(f"doc_examples: line {i + 1}: an example marker must be followed by a fenced block")
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise SystemExit(f"doc_examples: line {i + 2}: the fenced block never closes")
        commands = [c.strip() for c in marker.group(2).split(";") if c.strip()]
        found.append((i, bool(marker.group(1)), commands, i + 2, end))
    return found


def render(demo, shell, commands):
    out = []
    for command in commands:
        out.append(demo.shell(command) if shell else demo.console(command))
    text = "".join(part if part.endswith("\n") else part + "\n" for part in out)
    return text.rstrip("\n").split("\n")


# --- masking ----------------------------------------------------------------------------------

MAC = re.compile(r"\b[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}\b")
# A number on its own (units may follow: 8.73Mpps, 100.0%, -6.465s), not a digit inside a name
# (m0, l34, rx_q0_packets, first_64_buckets): member and port names stay compared.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
RATE_UNIT = re.compile(r"#[kKMGT](?=[A-Za-z])")  # 1.49Mpps and 374.4kpps are both #pps


def mask(line):
    line = MAC.sub("<mac>", line)
    line = NUMBER.sub("#", line)
    line = RATE_UNIT.sub("#", line)
    return " ".join(line.split())


def structure(lines):
    """The set of masked lines, without the rows of history tables."""
    kept = set()
    history_indent = None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if history_indent is not None:
            if stripped and indent == history_indent and not stripped.startswith("braid>"):
                continue
            history_indent = None
        if re.match(r"age\s+\S", stripped):
            history_indent = indent
        kept.add(mask(line))
    kept.discard("")
    return kept


# --- the README walkthrough -------------------------------------------------------------------

def readme_commands(text):
    """The braidctl commands and metrics URLs the README tells a user to run against the demo."""
    commands = []
    for match in re.finditer(r"(?:`|^)(?:build/app/braidctl/)?braidctl ((?:--json |-j )?(?:show|set) [^`#\n]*?)\s*(?:`|#|$)",
                             text, re.MULTILINE):
        commands.append(match.group(1).strip())
    for match in re.finditer(r"`\.\.\. ((?:show|set) [^`]+)`", text):
        commands.append(match.group(1).strip())
    urls = re.findall(r"`curl (\S+/metrics)`", text)
    unique = []
    for command in commands:
        if "<" not in command and command not in unique:
            unique.append(command)
    return unique, urls


def run_readme(demo, readme):
    commands, urls = readme_commands(readme.read_text())
    failures = []
    if not commands or not urls:
        failures.append(f"{readme}: no braidctl commands or metrics URL found in the walkthrough")
    for command in commands:
        result = demo.ctl(*shlex.split(command))
        ok = result.returncode == 0 and result.stdout.strip()
        if ok and command.startswith(("--json", "-j")):
            try:
                json.loads(result.stdout)
            except ValueError:
                ok = False
        print(f"readme: braidctl {command}: {'ok' if ok else 'FAILED'}")
        if not ok:
            failures.append(f"README: `braidctl {command}` exited {result.returncode}: {result.stdout}{result.stderr}")
    for url in urls:
        url = url.replace(DEFAULT_METRICS, demo.metrics)
        url = url if "://" in url else "http://" + url
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read().decode()
            ok = response.status == 200 and "\nbraid_up 1\n" in "\n" + body and "braid_member_distributing{" in body
        print(f"readme: curl {url}: {'ok' if ok else 'FAILED'}")
        if not ok:
            failures.append(f"README: GET {url} did not answer braid's metrics")
    return failures


# --- main -------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--update", action="store_true", help="rewrite the marked blocks")
    mode.add_argument("--check", action="store_true", help="fail when a block is stale")
    parser.add_argument("--build", default=str(ROOT / "build"), help="build dir (default: build)")
    parser.add_argument("--braid", default=os.environ.get("BRAID"))
    parser.add_argument("--braidctl", default=os.environ.get("BRAIDCTL"))
    parser.add_argument("--doc", default=str(ROOT / "doc/console.md"))
    parser.add_argument("--readme", default=str(ROOT / "README.md"))
    args = parser.parse_args()
    braid = args.braid or str(pathlib.Path(args.build) / "app/braid/braid")
    braidctl = args.braidctl or str(pathlib.Path(args.build) / "app/braidctl/braidctl")
    for binary in (braid, braidctl):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"doc_examples: no executable {binary}: build it or pass --build/--braid/--braidctl")

    doc = pathlib.Path(args.doc)
    lines = doc.read_text().split("\n")
    examples = blocks(lines)
    if not examples:
        raise SystemExit(f"doc_examples: {doc} has no example markers")

    failures = []
    with tempfile.TemporaryDirectory(prefix="braid-docex-") as directory, \
            Demo(os.path.abspath(braid), os.path.abspath(braidctl), directory) as demo:
        generated = []
        for marker, shell, commands, start, end in examples:
            demo.wait_distributing()
            generated.append(render(demo, shell, commands))
        for (marker, shell, commands, start, end), new in zip(examples, generated):
            old = lines[start:end]
            missing, extra = structure(new) - structure(old), structure(old) - structure(new)
            if missing or extra:
                text = [f"{doc}:{marker + 1}: example `{'; '.join(commands)}` is stale"]
                text += [f"  the program prints, the doc lacks: {line}" for line in sorted(missing)]
                text += [f"  the doc has, the program does not print: {line}" for line in sorted(extra)]
                failures.append("\n".join(text))
        failures += run_readme(demo, pathlib.Path(args.readme))

    if args.update:
        for (marker, shell, commands, start, end), new in reversed(list(zip(examples, generated))):
            lines[start:end] = new
        doc.write_text("\n".join(lines))
        print(f"doc_examples: {doc}: {len(examples)} examples regenerated")
        failures = [f for f in failures if f.startswith("README")]
    else:
        print(f"doc_examples: {doc}: {len(examples)} examples checked")
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        if args.check:
            print(f"\nregenerate with: test/docs/doc_examples.py --update --build <build dir>", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
