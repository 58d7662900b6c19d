# Sourced by the scripts in scripts/: checks what Tailor needs and installs what
# is missing through apt when run as root on Debian, or says what to install.

say() { printf '%s\n' "$*" >&2; }
# A TCP port free on 127.0.0.1 now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

require_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        say "Tailor needs Swift 6.0 or later on PATH (https://www.swift.org/install/linux/)."
        exit 1
    fi
}

apt_updated=""

# require_packages PACKAGE... : Debian packages that must be installed.
require_packages() {
    local missing=()
    local package
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing ${missing[*]} through apt"
        if [ -z "$apt_updated" ]; then
            apt-get update -qq >/dev/null
            apt_updated=1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        say "Tailor needs these packages: ${missing[*]}"
        say "install them with: sudo apt-get install ${missing[*]}"
        exit 1
    fi
}

# The C libraries Tailor links: SQLite and libpq for the store, zlib for gzip.
require_libraries() {
    if command -v dpkg-query >/dev/null 2>&1; then
        require_packages libsqlite3-dev libpq-dev zlib1g-dev libssl-dev libcurl4-openssl-dev libnats-dev
    elif [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/zlib.h ] || [ ! -f /usr/include/postgresql/libpq-fe.h ] \
        || [ ! -f /usr/include/openssl/evp.h ] || ! pkg-config --exists libcurl 2>/dev/null || [ ! -f /usr/include/nats/nats.h ]; then
        say "Tailor needs the development files of SQLite 3, libpq, zlib, OpenSSL's libcrypto, libcurl and NATS's C client (sqlite3.h, libpq-fe.h, zlib.h, openssl/evp.h, curl/curl.h, nats/nats.h);"
        say "on Debian or Ubuntu: sudo apt-get install libsqlite3-dev libpq-dev zlib1g-dev libssl-dev libcurl4-openssl-dev libnats-dev"
        exit 1
    fi
}

# require_packages needs dpkg to see what is installed; elsewhere it says what to get.
if ! command -v dpkg-query >/dev/null 2>&1; then
    require_packages() {
        say "this script needs the Debian packages: $*; install their equivalents"
        exit 1
    }
fi

# require_command COMMAND PACKAGE : a tool, from the Debian package that has it.
require_command() {
    command -v "$1" >/dev/null 2>&1 && return 0
    if command -v dpkg-query >/dev/null 2>&1; then
        require_packages "$2"
    else
        say "this script needs $1 (Debian package $2)"
        exit 1
    fi
}

# require_python_module MODULE PIP_REQUIREMENT : a Python module, from PyPI.
require_python_module() {
    if ! command -v python3 >/dev/null 2>&1; then
        require_packages python3
    fi
    python3 -c "import $1" 2>/dev/null && return 0
    say "installing $2 through pip"
    if ! python3 -m pip install --quiet "$2" 2>/dev/null && ! python3 -m pip install --quiet --break-system-packages "$2"; then
        say "this script needs the Python module $1: python3 -m pip install '$2'"
        exit 1
    fi
}
