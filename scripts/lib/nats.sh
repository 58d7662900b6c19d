# A NATS server of the run's own, for the benches' --bus: sourced after
# requirements.sh.
#
#   nats_start FOLDER   starts nats-server on 127.0.0.1 and a free port, its log
#                       in FOLDER/nats.log; sets NATS_URL and NATS_PID, and
#                       NATS_MONITOR (its monitoring's base URL)
#   nats_counts         "messages_in messages_out bytes_in bytes_out" so far
#   nats_stop           stops it, if started

NATS_URL=""
NATS_PID=""
NATS_MONITOR=""

nats_start() {
    local port monitor
    require_command nats-server nats-server
    port=$(free_port)
    monitor=$(free_port)
    nats-server -a 127.0.0.1 -p "$port" -m "$monitor" -l "$1/nats.log" &
    NATS_PID=$!
    NATS_URL="nats://127.0.0.1:$port"
    NATS_MONITOR="http://127.0.0.1:$monitor"
    for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return; sleep 0.05; done
    say "nats-server did not start: see $1/nats.log"
    exit 1
}

nats_counts() {
    curl -sf "$NATS_MONITOR/varz" | python3 -c 'import json, sys; v = json.load(sys.stdin); print(v["in_msgs"], v["out_msgs"], v["in_bytes"], v["out_bytes"])'
}

nats_stop() {
    [ -z "$NATS_PID" ] || kill "$NATS_PID" 2>/dev/null || true
}
