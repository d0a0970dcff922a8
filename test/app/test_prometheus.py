"""The Grafana dashboard against a real Prometheus: a braid on the demo topology (its uplink bond
with an adaptive scheduler fed by the sim congestion source, so PFC, ECN and CNP counters exist,
and a PFC watchdog with action drop, so its storm gauges and the classes' storm drops do)
is scraped every second as two instances (gw-a, gw-b: the same braid under two target labels),
and every query of doc/grafana/braid.json must return series for both instances, each series
keeping its `instance` label, so two gateways never merge into one line. `promtool check
metrics` lints a scrape. Prints each panel's title with the series its queries returned."""

import json
import os
import pathlib
import re
import subprocess

import pytest

from promlib import PROMETHEUS, PROMTOOL, SOURCE_ROOT, http_get, query, scraped_braid

DASHBOARD = pathlib.Path(os.environ.get("BRAID_DASHBOARD",
                                        SOURCE_ROOT / "doc" / "grafana" / "braid.json"))
INSTANCES = ("gw-a", "gw-b")
# What Grafana substitutes before a query reaches Prometheus.
GRAFANA_VARIABLES = {"$__rate_interval": "5s", "$__interval": "1s", "${instance}": ".*",
                     "$instance": ".*"}

pytestmark = pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None,
                                reason="prometheus is not installed (scripts/deps installs it)")


@pytest.fixture(scope="module")
def prometheus():
    with scraped_braid("prometheus", INSTANCES) as scraped:
        yield scraped


def substitute(expr):
    for variable, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(variable, value)
    assert "$" not in expr, f"a Grafana variable this test does not know: {expr}"
    return expr


def dashboard_panels():
    """(title, [expr]) per panel, rows' nested panels included."""
    def walk(panels):
        for panel in panels:
            yield from walk(panel.get("panels", []))
            exprs = [t["expr"] for t in panel.get("targets", []) if t.get("expr")]
            if exprs:
                yield panel["title"], exprs
    return list(walk(json.loads(DASHBOARD.read_text())["panels"]))


AGGREGATION = re.compile(r"\b(sum|max|min|avg|count|topk|bottomk|quantile|stddev)\s+by\s*\(([^)]*)\)")
MATCHING = re.compile(r"\b(on|ignoring)\s*\(([^)]*)\)")


def test_every_aggregation_keeps_instance():
    """Read off the text: every `by (...)` and `on (...)` names instance (no `without`)."""
    for title, exprs in dashboard_panels():
        for expr in exprs:
            assert " without" not in expr, (title, expr)
            for match in list(AGGREGATION.finditer(expr)) + list(MATCHING.finditer(expr)):
                labels = [label.strip() for label in match.group(2).split(",")]
                assert match.group(1) != "ignoring" and "instance" in labels, (title, expr)


def test_every_dashboard_query_returns_series_per_instance(prometheus):
    exported = set(re.findall(r"^# TYPE (\S+) ",
                              http_get(f"http://127.0.0.1:{prometheus['metrics_port']}/metrics"),
                              re.M))
    failures = []
    report = []
    for title, exprs in dashboard_panels():
        series = 0
        for expr in exprs:
            unknown = set(re.findall(r"\bbraid_[a-z0-9_]+", expr)) - exported
            if unknown:
                failures.append(f"{title}: {expr}: braid exports no {sorted(unknown)}")
            result = query(prometheus["api"], substitute(expr))
            per_instance = {name: 0 for name in INSTANCES}
            for r in result:
                instance = r["metric"].get("instance")
                if instance not in per_instance:
                    failures.append(f"{title}: {expr}: a series without its instance: {r['metric']}")
                    continue
                per_instance[instance] += 1
            if min(per_instance.values()) == 0 or len(set(per_instance.values())) != 1:
                failures.append(f"{title}: {expr}: series per instance {per_instance}")
            series += len(result)
        report.append((title, series))
    print(f"\ndashboard panels ({DASHBOARD.name}, {len(INSTANCES)} instances): series returned")
    for title, series in report:
        print(f"  {title}: {series}")
    # The template variable's query (label_values(metric, label)) must find the instances too.
    variables = json.loads(DASHBOARD.read_text())["templating"]["list"]
    for variable in variables:
        match = re.fullmatch(r"label_values\((\w+),\s*(\w+)\)", str(variable.get("query", "")))
        if match:
            values = {r["metric"].get(match.group(2)) for r in query(prometheus["api"],
                                                                      match.group(1))}
            assert set(INSTANCES) <= values, (variable["name"], values)
    assert not failures, "\n".join(failures)


def test_promtool_check_metrics(prometheus):
    text = http_get(f"http://127.0.0.1:{prometheus['metrics_port']}/metrics")
    result = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
