"""What the Kubernetes tests share: the kustomization, rendered by kubectl or by this module, and
the schema validator (test/kubernetes/validate.js with its npm packages)."""

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import yaml

SOURCE_ROOT = Path(os.environ.get("BRAID_SOURCE_ROOT", Path(__file__).resolve().parents[2]))
KUSTOMIZE_DIR = SOURCE_ROOT / "deploy" / "kubernetes"
HERE = Path(__file__).resolve().parent
NPM_DIR = Path(os.environ.get("BRAID_NPM_DIR", SOURCE_ROOT / "build" / "test" / "kubernetes" / "npm"))

# Kinds that live in a namespace (kustomize's namespace: applies to them only).
CLUSTER_SCOPED = {"Namespace"}


def load_docs(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def source_objects(kdir=KUSTOMIZE_DIR):
    """Every object of the kustomization's resource files, as written, with its file name."""
    kustomization = load_docs(kdir / "kustomization.yaml")[0]
    return [(name, doc) for name in kustomization["resources"] for doc in load_docs(kdir / name)]


def render(kdir=KUSTOMIZE_DIR):
    """The kustomization rendered without kubectl: its resources, namespace, labels, images and
    configMapGenerator (with a content hash in the name and the references to it updated), the
    part of kustomize this kustomization uses."""
    kustomization = load_docs(kdir / "kustomization.yaml")[0]
    known = {"apiVersion", "kind", "namespace", "labels", "resources", "configMapGenerator", "images"}
    unknown = set(kustomization) - known
    assert not unknown, f"kustomization.yaml uses {sorted(unknown)}: teach k8slib.render them"
    objects = [doc for _, doc in source_objects(kdir)]
    renamed = {}
    for generator in kustomization.get("configMapGenerator", []):
        data = {Path(f).name: (kdir / f).read_text(encoding="utf-8") for f in generator["files"]}
        digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:10]
        name = f"{generator['name']}-{digest}"
        renamed[generator["name"]] = name
        objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                        "data": data})
    images = {i["name"]: i for i in kustomization.get("images", [])}
    for obj in objects:
        meta = obj.setdefault("metadata", {})
        if "namespace" in kustomization and obj["kind"] not in CLUSTER_SCOPED:
            meta["namespace"] = kustomization["namespace"]
        if obj["kind"] == "Namespace" and "namespace" in kustomization:
            meta["name"] = kustomization["namespace"]
        for entry in kustomization.get("labels", []):
            meta.setdefault("labels", {}).update(entry["pairs"])
        pod = obj.get("spec", {}).get("template", {}).get("spec")
        if pod:
            for c in pod.get("containers", []) + pod.get("initContainers", []):
                image = images.get(c["image"].split(":")[0])
                if image:
                    c["image"] = f"{image.get('newName', image['name'])}:{image['newTag']}"
            for volume in pod.get("volumes", []):
                cm = volume.get("configMap")
                if cm and cm["name"] in renamed:
                    cm["name"] = renamed[cm["name"]]
    return objects


def kubectl_render(kdir=KUSTOMIZE_DIR):
    """kubectl kustomize's rendering, or None without kubectl."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    out = subprocess.run([kubectl, "kustomize", str(kdir)], check=True, capture_output=True,
                         text=True, timeout=120).stdout
    return [d for d in yaml.safe_load_all(out) if d is not None]


def npm_modules():
    """node_modules for validate.js: npm ci into NPM_DIR from the committed lock file, again
    whenever the lock file changes."""
    lock = (HERE / "package-lock.json").read_bytes()
    stamp = NPM_DIR / "installed-lock.sha256"
    digest = hashlib.sha256(lock).hexdigest()
    if not (stamp.exists() and stamp.read_text() == digest):
        npm = shutil.which("npm")
        assert npm, "npm is missing: scripts/deps installs nodejs and npm"
        NPM_DIR.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(HERE / name, NPM_DIR / name)
        run = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                             cwd=NPM_DIR, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"npm ci in {NPM_DIR} failed:\n{run.stdout}\n{run.stderr}"
        stamp.write_text(digest)
    return NPM_DIR / "node_modules"


def validate(labelled_objects):
    """Runs validate.js on [(source, object)]; returns (exit status, its output)."""
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "node is missing: scripts/deps installs nodejs"
    payload = json.dumps([{"source": s, "object": o} for s, o in labelled_objects])
    env = dict(os.environ, NODE_PATH=str(npm_modules()))
    run = subprocess.run([node, str(HERE / "validate.js")], input=payload, env=env,
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stdout + run.stderr


def find(objects, kind, name=None):
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert found, f"no {kind} {name or ''} in the kustomization"
    return found
