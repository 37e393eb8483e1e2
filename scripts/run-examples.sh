#!/usr/bin/env bash
# Installs what is missing, builds, and runs gavel on the bundled examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
set -x
./build/cli/gavel check --v0-compatible examples/admission
./build/cli/gavel check examples/admission-v1
./build/cli/gavel parse --v0-compatible examples/admission/image-registry.rego
