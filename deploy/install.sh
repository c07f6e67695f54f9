#!/bin/sh
# A virtualenv holding the server and nothing else, from the wheels deploy/wheels.sh made, offline.
# Usage: deploy/install.sh WHEELS_DIR VENV_DIR
set -eu
wheels="$1"
venv="$2"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --no-index --find-links "$wheels" --no-deps --require-hashes \
  -r "$wheels/requirements.txt"
"$venv/bin/pip" install --quiet --no-index --no-deps "$wheels"/pragmatikos_contract-*.whl "$wheels"/pragmatikos-*.whl
"$venv/bin/pip" check
