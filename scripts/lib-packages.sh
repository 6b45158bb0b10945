# Sourced by the install scripts: ensure_packages P... installs the Debian
# packages among P that are missing (apt-get, with sudo when not root).
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "kiln: installing ${missing[*]}"
    local SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# configure_clang_build DIR OPT_FLAGS CMAKE_ARGS...: a clang-19 Ninja build in
# DIR (RelWithDebInfo with OPT_FLAGS and line tables), for the fuzz and
# sanitizer builds.
configure_clang_build() {
  local dir=$1 flags="$2 -gline-tables-only -DNDEBUG"
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$flags" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags" "$@" >/dev/null
}
