#!/usr/bin/env bash
# netns.sh - run Open MPI jobs across Linux network namespaces on ONE machine.
#
# Each MPI "host" is a network namespace PREFIX0..PREFIX{N-1}; every rank runs
# in its own namespace AND its own UTS namespace whose hostname is PREFIXk, so
# gethostname() differs per rank.  The namespaces are joined by veth pairs to a
# Linux bridge that lives in a dedicated hub namespace PREFIX-hub (bridge device
# PREFIX-br).  mpirun itself runs inside the hub namespace, where the bridge
# carries the address BASE.254; rank k has BASE.(k+1).  Nothing at all is
# created in the root network namespace (no routes, addresses, links, iptables
# rules), so the host's own networking cannot be disturbed and the hub's empty
# netfilter tables cannot drop bridged traffic.
#
# mpirun starts one orted per hostfile line through the rsh launcher, using a
# generated agent script instead of ssh: `AGENT [ssh-opts] HOST cmd...`.  The
# agent maps HOST -> namespace, enters it with `ip netns exec`, unshares UTS,
# sets the hostname and runs the joined command with `sh -c` (like sshd does).
# No hostfile address is local to the hub namespace, so every rank (including
# rank 0) is launched through the agent.  The agent inherits mpirun's
# environment, so PATH, LD_LIBRARY_PATH and OMPI_* reach the daemons.
#
# Usage (root only):
#   netns.sh up   PREFIX N            create; prints the hostfile path
#   netns.sh down PREFIX N            remove everything (never fails)
#   netns.sh run  PREFIX N [MPIRUN-OPTS...] -- CMD [ARGS...]
#   netns.sh exec PREFIX K -- CMD [ARGS...]   run CMD in namespace K (debug)
#
# Environment:
#   NETNS_NET_BASE   first three octets of the private /24 (default 10.231.77)
#   NETNS_STATE_DIR  where hostfile + agent go (default /tmp/drivelab-netns-PREFIX)
#   NETNS_RUN_TIMEOUT seconds; if set, `run` is killed after this long
#   NETNS_AGENT_LOG  if set, the agent appends each invocation to this file
#
# Typical test use:
#   trap 'netns.sh down dl 3' EXIT
#   netns.sh up dl 3
#   netns.sh run dl 3 -- /path/to/prog args
set -Eeuo pipefail

NET_BASE=${NETNS_NET_BASE:-10.231.77}
HUB_OCTET=254

die() { echo "netns.sh: $*" >&2; exit 1; }

usage() {
    sed -n '/^# Usage/,/^# Typical/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

check_args() {
    [[ $# -ge 2 ]] || usage
    PREFIX=$1 N=$2
    [[ $PREFIX =~ ^[A-Za-z][A-Za-z0-9_]{0,11}$ ]] \
        || die "PREFIX must match [A-Za-z][A-Za-z0-9_]{0,11} (bridge name PREFIX-br must fit IFNAMSIZ)"
    [[ $N =~ ^[0-9]+$ ]] && (( N >= 1 && N <= 250 )) || die "N must be 1..250"
    [[ $NET_BASE =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "bad NETNS_NET_BASE"
    HUB="${PREFIX}-hub"
    BR="${PREFIX}-br"
    STATE=${NETNS_STATE_DIR:-/tmp/drivelab-netns-$PREFIX}
    HOSTFILE="$STATE/hostfile"
    AGENT="$STATE/agent"
    SUBNET="$NET_BASE.0/24"
}

ns_exists() { [[ -e /run/netns/$1 ]]; }

# Kill whatever still runs inside a namespace (a hung mpirun/orted/rank), then
# delete it.  Deleting the namespaces destroys the veths and the bridge.
kill_and_delete_ns() {
    local ns=$1 pids
    ns_exists "$ns" || return 0
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [[ -n $pids ]]; then
        kill -TERM $pids 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            pids=$(ip netns pids "$ns" 2>/dev/null || true)
            [[ -z $pids ]] && break
            sleep 0.2
        done
        [[ -n $pids ]] && kill -KILL $pids 2>/dev/null || true
    fi
    ip netns del "$ns" 2>/dev/null || true
}

cmd_down() {
    check_args "$@"
    set +e
    kill_and_delete_ns "$HUB"     # mpirun lives here: stop it first
    local k ns
    for ((k = 0; k < N; k++)); do kill_and_delete_ns "$PREFIX$k"; done
    # also whatever `up` recorded, in case it was called with a different N
    for f in "$STATE/hosts" "$STATE/hosts.tmp"; do
        [[ -f $f ]] || continue
        while read -r _ ns; do
            [[ $ns =~ ^${PREFIX}[0-9]+$ ]] && kill_and_delete_ns "$ns"
        done < "$f"
    done
    rm -f "$HOSTFILE" "$HOSTFILE.tmp" "$AGENT" "$STATE/hosts" "$STATE/hosts.tmp"
    rmdir "$STATE" 2>/dev/null
    return 0
}

# IPv6 off inside our namespaces: no link-local addresses/DAD on the veths, so
# Open MPI only sees the IPv4 subnet (fewer candidate addresses, quieter logs).
no_ipv6() {
    ip netns exec "$1" sh -c 'for f in /proc/sys/net/ipv6/conf/all/disable_ipv6 \
        /proc/sys/net/ipv6/conf/default/disable_ipv6; do [ -w "$f" ] && echo 1 > "$f"; done; true'
}

cmd_up() {
    check_args "$@"
    [[ $(id -u) == 0 ]] || die "must run as root"
    command -v ip >/dev/null || die "ip (iproute2) not found"
    command -v unshare >/dev/null || die "unshare (util-linux) not found"
    local k
    ns_exists "$HUB" && die "namespace $HUB already exists (run: $0 down $PREFIX $N)"
    for ((k = 0; k < N; k++)); do
        ns_exists "$PREFIX$k" && die "namespace $PREFIX$k already exists (run: $0 down $PREFIX $N)"
    done
    # From here on, any failure tears down what was built.
    trap 'rc=$?; cmd_down "$PREFIX" "$N" >/dev/null 2>&1; exit $rc' ERR
    mkdir -p "$STATE"

    ip netns add "$HUB"
    no_ipv6 "$HUB"
    ip -n "$HUB" link set lo up
    ip -n "$HUB" link add "$BR" type bridge
    ip -n "$HUB" addr add "$NET_BASE.$HUB_OCTET/24" dev "$BR"
    ip -n "$HUB" link set "$BR" up

    : > "$HOSTFILE.tmp"
    : > "$STATE/hosts.tmp"
    for ((k = 0; k < N; k++)); do
        local ns="$PREFIX$k" addr="$NET_BASE.$((k + 1))"
        ip netns add "$ns"
        no_ipv6 "$ns"
        ip -n "$ns" link set lo up
        # veth created inside the namespace; peer moved to the hub. Names are
        # per-namespace, so short fixed names cannot collide with the host.
        ip -n "$ns" link add eth0 type veth peer name "v$k" netns "$HUB"
        ip -n "$ns" addr add "$addr/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$HUB" link set "v$k" master "$BR"
        ip -n "$HUB" link set "v$k" up
        echo "$addr slots=1" >> "$HOSTFILE.tmp"
        echo "$addr $ns" >> "$STATE/hosts.tmp"
    done
    mv "$HOSTFILE.tmp" "$HOSTFILE"
    mv "$STATE/hosts.tmp" "$STATE/hosts"

    # The launch agent. mpirun calls it like ssh: AGENT [opts] HOST command...
    # The command words are joined with spaces and run by a shell, exactly as
    # sshd would, because Open MPI quotes them for a remote shell.
    {
        echo '#!/bin/bash'
        echo "# generated by netns.sh for prefix $PREFIX; maps address -> namespace"
        echo 'set -u'
        printf 'HOSTS=%q\n' "$STATE/hosts"
    } > "$AGENT"
    cat >> "$AGENT" <<'EOF'
[[ -n ${NETNS_AGENT_LOG:-} ]] && printf '%q ' "$0" "$@" >> "$NETNS_AGENT_LOG" && echo >> "$NETNS_AGENT_LOG"
# skip ssh-style options (Open MPI passes none by default, but plm_rsh_args may)
while [[ $# -gt 0 && $1 == -* ]]; do
    case $1 in
        -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
        *) shift ;;
    esac
done
[[ $# -ge 1 ]] || { echo "netns agent: no host" >&2; exit 255; }
host=$1; shift
host=${host#*@}
ns=
while read -r addr name; do
    if [[ $host == "$addr" || $host == "$name" ]]; then ns=$name; break; fi
done < "$HOSTS"
[[ -n $ns ]] || { echo "netns agent: unknown host '$host'" >&2; exit 255; }
cmd="$*"
[[ -n $cmd ]] || cmd='exec /bin/sh'
# New UTS namespace so gethostname() == namespace name for orted and its ranks.
exec ip netns exec "$ns" unshare --uts -- /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$ns" "$cmd"
EOF
    chmod 755 "$AGENT"
    trap - ERR
    echo "$HOSTFILE"
}

cmd_run() {
    check_args "$@"
    shift 2
    local -a mpi_opts=()
    while [[ $# -gt 0 && $1 != -- ]]; do mpi_opts+=("$1"); shift; done
    [[ ${1:-} == -- ]] || die "run: missing -- before the command"
    shift
    [[ $# -ge 1 ]] || die "run: no command"
    [[ -f $HOSTFILE && -x $AGENT ]] || die "not set up (run: $0 up $PREFIX $N)"
    ns_exists "$HUB" || die "namespace $HUB missing"
    local -a pre=()
    if [[ -n ${NETNS_RUN_TIMEOUT:-} ]]; then
        # --foreground: mpirun stays in the caller's process group, so it can
        # still read a tty (stdin is forwarded to rank 0) without SIGTTIN.
        pre=(timeout --foreground --kill-after=10 "$NETNS_RUN_TIMEOUT")
    fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Every hostfile line has slots=1, so Open MPI believes no node is
    # oversubscribed and ranks busy-poll without yielding.  On a machine with
    # fewer cores than N+daemons that makes a barrier cost a scheduler tick
    # (~8 ms measured on 2 cores, vs ~44 us with yielding).  Default to
    # yielding; set OMPI_MCA_mpi_yield_when_idle=0 (or pass --mca) to override.
    export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
    # mpirun runs inside the hub namespace (only lo + the bridge there), so no
    # hostfile entry looks local and each rank goes through the agent.
    "${pre[@]}" ip netns exec "$HUB" \
        mpirun --allow-run-as-root \
        --hostfile "$HOSTFILE" \
        --mca plm_rsh_agent "$AGENT" \
        --mca plm_rsh_no_tree_spawn 1 \
        --mca btl tcp,self \
        --mca btl_tcp_if_include "$SUBNET" \
        --mca oob_tcp_if_include "$SUBNET" \
        --map-by node --bind-to none \
        "${mpi_opts[@]}" \
        -n "$N" "$@"
}

cmd_exec() {
    [[ $# -ge 2 ]] || usage
    local prefix=$1 k=$2
    shift 2
    [[ ${1:-} == -- ]] && shift
    exec ip netns exec "$prefix$k" unshare --uts -- /bin/sh -c 'hostname "$0" && exec "$@"' "$prefix$k" "$@"
}

[[ $# -ge 1 ]] || usage
sub=$1; shift
case $sub in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    run) cmd_run "$@" ;;
    exec) cmd_exec "$@" ;;
    *) usage ;;
esac
