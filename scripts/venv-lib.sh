# venv-lib.sh: sourced by the scripts that create a private virtual environment for one pinned
# Python package set (pypaimon-env.sh, pypaimon21-env.sh). Nothing is installed into the system
# Python.
#
# ensure_venv TAG VENV INSTALLED PACKAGE...: does nothing when the function named INSTALLED
# succeeds; otherwise creates VENV again when it is incomplete or broken (creation interrupted
# before pip was installed, or its base interpreter removed: such an environment cannot be
# repaired in place), pip-installs PACKAGE... into it, reinstalls them when an interrupted install
# left metadata pip trusts over missing files, and fails unless INSTALLED succeeds then.
ensure_venv() {
  local tag=$1 venv=$2 installed=$3
  shift 3
  local py
  py=$(command -v python3 || command -v python)
  if "$installed"; then
    return 0
  fi
  if [ -e "$venv" ] && ! _venv_usable "$venv"; then
    echo "$tag: $venv is incomplete or broken; creating it again" >&2
    rm -rf "$venv"
  fi
  if [ ! -e "$venv" ]; then
    mkdir -p "$(dirname "$venv")"
    if ! "$py" -m venv "$venv" || ! _venv_usable "$venv"; then
      rm -rf "$venv"
      echo "$tag: could not create a virtual environment with pip at $venv ($py -m venv)" >&2
      return 1
    fi
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" || true
  if ! "$installed"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall "$@"
  fi
  if ! "$installed"; then
    echo "$tag: $* not importable from $venv after installing" >&2
    return 1
  fi
  echo "$tag: $* in $venv"
}

# _venv_usable VENV: the environment's interpreter runs and has pip.
_venv_usable() {
  [ -x "$1/bin/python" ] && "$1/bin/python" -m pip --version >/dev/null 2>&1
}
