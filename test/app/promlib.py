"""What the tests that run a real Prometheus against a running braid share: a demo config whose
uplink bond has an adaptive scheduler fed by the sim congestion source (so PFC, ECN and CNP
counters exist), a Prometheus config scraping it every second under one or more instance
labels (and loading rule files), the query API, a Prometheus process started until it holds
enough scrapes (stopped by PID however the test ends), and both together."""

import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

from braidlib import free_port, running_braid, stop

SOURCE_ROOT = pathlib.Path(os.environ.get("BRAID_SOURCE_ROOT", pathlib.Path(__file__).parents[2]))
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")


def write_braid_config(directory, socket_path, metrics_port, min_links=None):
    config = yaml.safe_load((SOURCE_ROOT / "config" / "demo.yaml").read_text())
    config["trace"]["path"] = str(directory / "trace.pcap")
    uplink = next(b for b in config["bonds"] if b["name"] == "uplink")
    uplink["scheduler"] = {"policy": "adaptive",
                           "congestion": {"source": "sim",
                                          "sim_pause_permille": [0, 300] + [0] * (
                                              len(uplink["members"]) - 2)},
                           # Its storm gauges and the classes' storm drops (no storm happens).
                           "pfc_watchdog": {"action": "drop"}}
    if min_links is not None:
        uplink["min_links"] = min_links
    config["control"] = {"socket": str(socket_path)}
    config["metrics"] = {"listen": f"127.0.0.1:{metrics_port}"}
    path = directory / "braid.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def write_prometheus_config(directory, metrics_port, instances, rule_files=(),
                            evaluation_interval="1s"):
    groups = [{"targets": [f"127.0.0.1:{metrics_port}"], "labels": {"instance": name}}
              for name in instances]
    config = {"global": {"scrape_interval": "1s", "scrape_timeout": "1s",
                         "evaluation_interval": evaluation_interval},
              "scrape_configs": [{"job_name": "braid", "static_configs": groups}]}
    if rule_files:
        config["rule_files"] = [str(path) for path in rule_files]
    path = directory / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    return path


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def api_get(api, path, **params):
    url = f"{api}{path}" + ("?" + urllib.parse.urlencode(params) if params else "")
    answer = json.loads(http_get(url))
    assert answer["status"] == "success", (path, params, answer)
    return answer["data"]


def query(api, expr):
    return api_get(api, "/api/v1/query", query=expr)["result"]


@contextlib.contextmanager
def running_prometheus(directory, prom_config, instances):
    """Starts Prometheus on `prom_config` (its TSDB and log in `directory`), waits until it
    holds scrapes of every instance, yields its API address, stops it."""
    web_port = free_port()
    log_path = directory / "prometheus.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={prom_config}",
             f"--storage.tsdb.path={directory / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{web_port}"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            api = f"http://127.0.0.1:{web_port}"
            wait_for_scrapes(api, process, log_path, instances)
            yield api
        finally:
            stop(process)


def wait_for_scrapes(api, process, log_path, instances, scrapes=6, timeout=90):
    """Until Prometheus is ready and holds `scrapes` samples of braid_up from every instance,
    enough for a rate over 5 s."""
    deadline = time.monotonic() + timeout
    while True:
        assert process.poll() is None, log_path.read_text()
        assert time.monotonic() < deadline, "no scrapes in time:\n" + log_path.read_text()
        try:
            counts = {r["metric"]["instance"]: float(r["value"][1])
                      for r in query(api, "count_over_time(braid_up[30s])")}
            if all(counts.get(name, 0) >= scrapes for name in instances):
                return
        except OSError:
            pass  # not listening yet
        time.sleep(0.5)


@contextlib.contextmanager
def scraped_braid(name, instances, write_rules=None):
    """A braid on write_braid_config's demo scraped by a Prometheus under `instances`, loading
    the rule files write_rules(directory) returns; yields {"api", "metrics_port", "socket"}."""
    directory = pathlib.Path(tempfile.mkdtemp(prefix=f"braid-{name}-"))
    socket_path = directory / "braid.sock"
    metrics_port = free_port()
    braid_config = write_braid_config(directory, socket_path, metrics_port)
    rule_files = write_rules(directory) if write_rules else ()
    prom_config = write_prometheus_config(directory, metrics_port, instances, rule_files)
    try:
        with running_braid(braid_config, directory, f"braid-{name}-{os.getpid()}", socket_path):
            with running_prometheus(directory, prom_config, instances) as api:
                yield {"api": api, "metrics_port": metrics_port, "socket": str(socket_path)}
    finally:
        shutil.rmtree(directory, ignore_errors=True)
