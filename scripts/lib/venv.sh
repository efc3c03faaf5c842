# shellcheck shell=bash
# Sourced by scripts/run and scripts/test: make sure .venv exists and holds a requirements file.
# Usage: ensure_venv requirements.txt   (run from the repository root)

ensure_venv() {
  local requirements="$1"
  export PIP_DISABLE_PIP_VERSION_CHECK=1
  if [ ! -x .venv/bin/python ]; then
    echo "==> creating .venv" >&2
    if ! python3 -m venv .venv; then
      # Debian ships venv/ensurepip separately; install it when we can, then retry once.
      if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        rm -rf .venv
        DEBIAN_FRONTEND=noninteractive apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv
        python3 -m venv .venv
      else
        echo "error: python3 -m venv failed; install python3-venv (sudo apt-get install python3-venv)" >&2
        return 1
      fi
    fi
  fi
  echo "==> pip install -r $requirements" >&2
  .venv/bin/python -m pip install -q -r "$requirements"
}
