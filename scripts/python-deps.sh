#!/usr/bin/env bash
# Installs what the Python module rrswin and its tests need, only what is missing (silent when all
# is there): Python's headers and pip, then the pip packages nanobind, numpy, pytest and
# scikit-build-core for the `python3` on PATH (the interpreter CMake finds first, too).
#   --with-demo   also matplotlib, for examples/demo_frame.py's figure
# Debian packages are used only for Debian's own /usr/bin/python3 (python3-dev, python3-pip).
set -euo pipefail
py="${PYTHON:-python3}"
pip_packages=("nanobind>=2.0:nanobind" "numpy>=1.22:numpy" "pytest>=7:pytest" "scikit-build-core>=0.10:scikit_build_core")
if [ "${1:-}" = "--with-demo" ]; then pip_packages+=("matplotlib>=3.5:matplotlib"); fi

apt_install() {
  echo "rrswin: installing missing Debian packages: $*" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "$@"
}

if ! command -v "$py" >/dev/null; then apt_install python3 python3-dev python3-pip; py=python3; fi
py_path="$(command -v "$py")"
is_debian_python() { [ "$(readlink -f "$py_path")" = "$(readlink -f /usr/bin/python3 2>/dev/null || true)" ]; }

# Python.h, for the module's build.
if ! "$py" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  if is_debian_python; then apt_install python3-dev
  else echo "rrswin: $py_path has no Python.h (install that interpreter's development headers)" >&2; exit 1; fi
fi
if ! "$py" -m pip --version >/dev/null 2>&1; then
  if is_debian_python; then apt_install python3-pip; else "$py" -m ensurepip --upgrade >/dev/null; fi
fi

# The pip packages not importable yet (import names after the colon).
missing=()
for spec in "${pip_packages[@]}"; do
  "$py" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('${spec#*:}') is None)" || missing+=("${spec%%:*}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "rrswin: installing missing pip packages: ${missing[*]}" >&2
  extra=()
  # A distribution's own interpreter (PEP 668) refuses pip outside a virtual environment; this
  # script installs test dependencies on a build machine, where that is the intent.
  if "$py" -c 'import os, sys, sysconfig; sys.exit(not (sys.prefix == sys.base_prefix and os.path.exists(os.path.join(sysconfig.get_paths()["stdlib"], "EXTERNALLY-MANAGED"))))'; then
    extra+=(--break-system-packages)
  fi
  PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check "${extra[@]}" "${missing[@]}"
fi
