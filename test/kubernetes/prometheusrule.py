#!/usr/bin/env python3
"""deploy/kubernetes/prometheusrule.yaml is config/prometheus/braid-alerts.yml wrapped in a
prometheus-operator PrometheusRule: one source for the alerts, whether Prometheus loads the file
(rule_files) or the operator loads the object. --update writes it; --check (the
kubernetes_manifests test) fails when it is out of date.

Usage: test/kubernetes/prometheusrule.py --update | --check"""

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "config" / "prometheus" / "braid-alerts.yml"
TARGET = ROOT / "deploy" / "kubernetes" / "prometheusrule.yaml"

HEADER = """\
# braid's alerting rules for prometheus-operator: config/prometheus/braid-alerts.yml (doc/alerts.md)
# as a PrometheusRule. Generated, do not edit: change the rules file, then run
#   test/kubernetes/prometheusrule.py --update
# (the kubernetes_manifests test fails while this file is out of date). Your Prometheus selects
# rules by label (its spec.ruleSelector, often release: <helm release>): add it in an overlay.
"""


def generate(rules_path=RULES):
    rules = yaml.safe_load(rules_path.read_text(encoding="utf-8"))
    rule = {"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule",
            "metadata": {"name": "braid-alerts"}, "spec": {"groups": rules["groups"]}}
    return HEADER + yaml.safe_dump(rule, sort_keys=False, width=4096, allow_unicode=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--update", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = generate()
    if args.update:
        TARGET.write_text(text, encoding="utf-8")
        return 0
    if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
        print(f"{TARGET.relative_to(ROOT)} is out of date with {RULES.relative_to(ROOT)}: run "
              "test/kubernetes/prometheusrule.py --update", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
