#!/bin/sh
# Several "hosts" with their own addresses on this one machine, for tests of the agent tree
# across a real network path: network namespaces cohort-h0 … cohort-h(N-1), each joined to
# the root namespace by a veth pair. Host i is 10.77.i.2; the root side of its link is
# 10.77.i.1; the root namespace routes between them.
#
#   scripts/netns.sh up N      (idempotent)
#   scripts/netns.sh down
#
# Must run as root.
set -eu
cmd=${1:-}
case "$cmd" in
up)
    n=${2:-2}
    sysctl -q -w net.ipv4.ip_forward=1
    i=0
    while [ "$i" -lt "$n" ]; do
        ns=cohort-h$i
        if ! ip netns list | grep -qw "$ns"; then
            ip netns add "$ns"
            ip link add "cohv$i" type veth peer name eth0 netns "$ns"
            ip addr add "10.77.$i.1/24" dev "cohv$i"
            ip link set "cohv$i" up
            ip -n "$ns" addr add "10.77.$i.2/24" dev eth0
            ip -n "$ns" link set eth0 up
            ip -n "$ns" link set lo up
            ip -n "$ns" route add default via "10.77.$i.1"
        fi
        i=$((i + 1))
    done
    ;;
down)
    for ns in $(ip netns list | awk '{print $1}' | grep '^cohort-h' || true); do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$ns"
    done
    for l in $(ip -o link show | awk -F': ' '{print $2}' | grep '^cohv' | cut -d@ -f1 || true); do
        ip link del "$l" 2>/dev/null || true
    done
    ;;
*)
    echo "usage: $0 up N | down" >&2
    exit 2
    ;;
esac
