#!/usr/bin/env bash
# Installs what is missing, builds, and runs gavel on the bundled examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
set -x
./build/cli/gavel check --v0-compatible examples/admission
./build/cli/gavel check examples/admission-v1
./build/cli/gavel eval --v0-compatible -d examples/admission -i examples/admission/pod.json \
  --format values 'data.kubernetes.admission.deny'
./build/cli/gavel eval -d examples/admission-v1 -i examples/admission-v1/pod.json \
  --format values 'data.kubernetes.admission.deny'
./build/cli/gavel bench --v0-compatible -d examples/admission -i examples/admission/pod.json \
  'data.kubernetes.admission.deny'
# The examples' unit tests: v0 policies need --v0-compatible, their v1 twins do not.
for example in admission ingress-conflicts required-labels mutating; do
  ./build/cli/gavel test --v0-compatible examples/$example
  ./build/cli/gavel test examples/$example-v1
done
