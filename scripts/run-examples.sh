#!/usr/bin/env bash
# Installs what is missing, builds, and runs gavel on the bundled examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
set -x
# Each v0 example directory holds a bundle manifest (.manifest: {"rego_version": 0}), so
# no --v0-compatible is needed; data below a manifest is placed relative to its directory.
./build/cli/gavel check examples/
./build/cli/gavel eval -d examples/admission -i examples/admission/pod.json \
  --format values 'data.kubernetes.admission.deny'
./build/cli/gavel eval -d examples/admission-v1 -i examples/admission-v1/pod.json \
  --format values 'data.kubernetes.admission.deny'
./build/cli/gavel bench -d examples/admission -i examples/admission/pod.json \
  'data.kubernetes.admission.deny'
# Every example's unit tests, in one run.
./build/cli/gavel test examples/
