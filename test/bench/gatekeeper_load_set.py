#!/usr/bin/env python3
"""The Gatekeeper load set (not part of the test suite): 40 constraints of
gatekeeper-library's templates (the first 40 distinct constraints of its
suites' tests, each with its template, one file each under OUT/policies) and
a Pod AdmissionReview of 10 containers (OUT/review.json), three of whose
images come from docker.io. test/bench/load_gatekeeper.sh serves it;
gavel_bench's BM_Gatekeeper* cases read it from GAVEL_GATEKEEPER_LOAD_SET.

    test/bench/gatekeeper_load_set.py LIBRARY OUT   (LIBRARY: a gatekeeper-library checkout)
"""
import json
import os
import sys

import yaml


def pairs_of(library):
    pairs, seen = [], set()
    for root, _, files in sorted(os.walk(os.path.join(library, "library"))):
        if "suite.yaml" not in files:
            continue
        with open(os.path.join(root, "suite.yaml")) as f:
            suite = yaml.safe_load(f)
        for t in suite.get("tests", []):
            c = os.path.join(root, t["constraint"])
            with open(c) as f:
                doc = yaml.safe_load(f.read().split("\n---")[0])
            key = (doc["kind"], doc["metadata"]["name"])
            if key in seen:
                continue
            seen.add(key)
            pairs.append((os.path.join(root, t["template"]), c))
    return pairs


def container(i):
    image = "docker.io/library/nginx:latest" if i % 3 == 0 else "hooli.com/shop/app%d:1.%d" % (i, i)
    return {
        "name": "app%d" % i, "image": image, "imagePullPolicy": "IfNotPresent",
        "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
        "env": [{"name": "LOG_LEVEL", "value": "info"},
                {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 5, "periodSeconds": 10},
        "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
        "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
        "securityContext": {"runAsNonRoot": True, "runAsUser": 1000, "readOnlyRootFilesystem": True,
                            "allowPrivilegeEscalation": False},
    }


def review():
    return {
        "kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": "3f1c2b8e-7d4a-4c1e-9b0a-5e6f7a8b9c0d",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "namespace": "shop", "operation": "CREATE",
            "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller",
                         "groups": ["system:authenticated"]},
            "object": {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "checkout-7d9f8c6b5-x2x9z", "namespace": "shop",
                             "labels": {"app": "checkout", "team": "payments", "tier": "backend"},
                             "annotations": {"prometheus.io/scrape": "true"}},
                "spec": {"containers": [container(i) for i in range(1, 11)],
                         "volumes": [{"name": "config", "configMap": {"name": "checkout"}}],
                         "restartPolicy": "Always", "serviceAccountName": "checkout",
                         "securityContext": {"fsGroup": 2000}},
            },
        },
    }


def main():
    library, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "policies"), exist_ok=True)
    for i, (t, c) in enumerate(pairs_of(library)[:40]):
        for name, src in (("t%02d.yaml" % i, t), ("c%02d.yaml" % i, c)):
            with open(src) as f, open(os.path.join(out, "policies", name), "w") as g:
                g.write(f.read())
    with open(os.path.join(out, "review.json"), "w") as f:
        json.dump(review(), f)


if __name__ == "__main__":
    main()
