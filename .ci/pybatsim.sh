#!/usr/bin/env bash
# pybatsim 3.2.1 in .ci/venv, for tests/batsim/. pybatsim pins
# pyzmq<23, which has no wheel for current Pythons: it is installed
# without its pins, beside current pyzmq and its other dependencies.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x venv/bin/pybatsim ]; then
  python3 -m venv venv
  venv/bin/pip install -q --no-deps pybatsim==3.2.1
  venv/bin/pip install -q pyzmq procset sortedcontainers docopt
fi
venv/bin/pybatsim --version
