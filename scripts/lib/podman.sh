# Sourced by scripts that run containers (scripts/image, scripts/deploy/check-image):
# podman with the settings this kind of machine needs, given through a
# containers.conf of our own (CONTAINERS_CONF), never by changing the machine's.
#
# - runc, not podman's default crun: crun refuses to start a container where
#   the cgroups are in hybrid mode.
# - ulimits no higher than this shell's hard limits: raising them takes
#   CAP_SYS_RESOURCE, which a container host itself inside a container lacks
#   (open files: the hard limit; processes: 4,096, as the hard limit of
#   processes may count more than this shell's own may use).
# - cgroupfs and a file for events: there may be no systemd or journal.

# require_podman: podman and runc installed (through apt when root), and
# CONTAINERS_CONF naming our settings unless the caller gave one.
require_podman() {
    require_packages podman runc
    if [ -z "${CONTAINERS_CONF:-}" ]; then
        local folder
        folder=$(mktemp -d /tmp/tailor-podman.XXXXXX)
        cat >"$folder/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
        export CONTAINERS_CONF="$folder/containers.conf"
        # For the caller's clean-up.
        podman_settings=$folder
    fi
}

# podman, without the complaints of a machine with no systemd or syslog: it
# would run health checks from systemd timers, which the checks here do not
# need (they run `podman healthcheck run` themselves).
podman() {
    command podman "$@" 2> >(grep -vE 'systemd connection|/run/systemd/private|connect to syslog|No more static macs' >&2)
}
