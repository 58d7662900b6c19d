# A NATS server of the run's own, for the benches' --bus: sourced after
# requirements.sh.
#
#   nats_start FOLDER   starts nats-server on 127.0.0.1 and a free port, its log
#                       in FOLDER/nats.log; sets NATS_URL and NATS_PID
#   nats_stop           stops it, if started

NATS_URL=""
NATS_PID=""

nats_start() {
    local port
    require_command nats-server nats-server
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    nats-server -a 127.0.0.1 -p "$port" -l "$1/nats.log" &
    NATS_PID=$!
    NATS_URL="nats://127.0.0.1:$port"
    for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return; sleep 0.05; done
    say "nats-server did not start: see $1/nats.log"
    exit 1
}

nats_stop() {
    [ -z "$NATS_PID" ] || kill "$NATS_PID" 2>/dev/null || true
}
