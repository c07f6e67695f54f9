#!/bin/sh
# The wheels of everything the server runs, from uv.lock: the service's own, the contract's, and each
# dependency at its locked version, checked against its locked hash. Never the recorder's.
# Usage: deploy/wheels.sh OUT_DIR   (run in the checkout; needs uv and pip)
set -eu
out="$1"
mkdir -p "$out"
uv export --frozen --no-dev --no-emit-workspace --package pragmatikos --format requirements-txt \
  --no-header --quiet -o "$out/requirements.txt"
uv build --quiet --wheel --package pragmatikos-contract -o "$out"
uv build --quiet --wheel --package pragmatikos -o "$out"
python3 -m pip wheel --quiet --no-deps --require-hashes -r "$out/requirements.txt" -w "$out"
