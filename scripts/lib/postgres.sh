# Sourced by scripts that need a PostgreSQL server of their own: starts one on
# 127.0.0.1 with its data in a temporary folder, and stops it.
#
#   postgres_start   sets POSTGRES_URL (database "tailor") and POSTGRES_DIR
#   postgres_stop    stops the server and removes its folder
#
# PostgreSQL refuses to run as root: as root the server runs as the user
# "postgres" (made by Debian's package), otherwise as the caller.

postgres_bin() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        require_packages postgresql
        bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
    printf '%s' "$bin"
}

# as_server_user COMMAND... : runs COMMAND as the user the server runs as.
as_server_user() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

postgres_start() {
    require_packages libpq-dev
    local bin port
    bin=$(postgres_bin)
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    POSTGRES_DIR=$(mktemp -d /tmp/tailor-postgres.XXXXXX)
    chmod 755 "$POSTGRES_DIR"
    [ "$(id -u)" = 0 ] && chown postgres "$POSTGRES_DIR"
    as_server_user "$bin/initdb" -D "$POSTGRES_DIR/data" -U tailor --auth=trust --encoding=UTF8 --locale=C >"$POSTGRES_DIR/initdb.log" 2>&1 || {
        say "initdb failed:"; cat "$POSTGRES_DIR/initdb.log" >&2; return 1
    }
    # Durability is not what tests and local clusters measure; a lost commit
    # on a crash of the machine is. Sockets only on loopback TCP.
    as_server_user "$bin/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w -t 60 \
        -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=400 -c synchronous_commit=off" \
        start >/dev/null || {
        say "PostgreSQL did not start:"; cat "$POSTGRES_DIR/server.log" >&2; return 1
    }
    as_server_user "$bin/createdb" -h 127.0.0.1 -p "$port" -U tailor tailor
    POSTGRES_URL="postgresql://tailor@127.0.0.1:$port/tailor"
    POSTGRES_BIN="$bin"
    export POSTGRES_URL POSTGRES_DIR POSTGRES_BIN
}

postgres_stop() {
    [ -n "${POSTGRES_DIR:-}" ] || return 0
    as_server_user "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$POSTGRES_DIR"
    POSTGRES_DIR=""
}
