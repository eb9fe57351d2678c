#!/bin/sh
# A Slurm test cluster on this one host: slurmctld plus N virtual nodes (slurmd -N nX), all
# on localhost, no munge (auth/none), state under /tmp/cohort-slurm.
#
#   scripts/slurm-cluster.sh start [NODES]   (default 2; idempotent: a running cluster with
#                                            the same node count is left as it is)
#   scripts/slurm-cluster.sh stop            (every daemon stopped, nothing left behind)
#   scripts/slurm-cluster.sh status
#
# Clients need SLURM_CONF=/tmp/cohort-slurm/slurm.conf (printed by start and status).
# The configuration follows shared/slurm/slurm-localhost.conf (Slurm 22.05, Debian bookworm)
# with paths in /tmp/cohort-slurm and one NodeName line (own port) per virtual node.
# Must run as root (SlurmUser=root).
set -eu

DIR=${COHORT_SLURM_DIR:-/tmp/cohort-slurm}
CONF=$DIR/slurm.conf
export SLURM_CONF="$CONF"
CTLD_PORT=${COHORT_SLURM_PORT:-6817}
CPUS=${COHORT_SLURM_CPUS:-4}

die() { echo "slurm-cluster: $*" >&2; exit 1; }

pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

pidfile_pid() { [ -f "$1" ] && cat "$1" 2>/dev/null || true; }

write_conf() {
    n=$1
    mkdir -p "$DIR/state" "$DIR/run" "$DIR/log" "$DIR/spool"
    {
        cat <<EOF
# Written by scripts/slurm-cluster.sh ($n nodes)
ClusterName=cohort
SlurmctldHost=localhost
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$((CTLD_PORT + 1))
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdParameters=config_overrides
EOF
        i=1
        while [ "$i" -le "$n" ]; do
            echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((CTLD_PORT + 1 + i)) CPUs=$CPUS RealMemory=1000 State=UNKNOWN"
            i=$((i + 1))
        done
        echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
    } >"$CONF.tmp"
    mv "$CONF.tmp" "$CONF"
}

configured_nodes() {
    [ -f "$CONF" ] && grep -c '^NodeName=' "$CONF" || echo 0
}

# Nodes idle (as sinfo says) among n1..nN.
idle_count() {
    sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle" { c++ } END { print c + 0 }'
}

running() {
    pid_alive "$(pidfile_pid "$DIR/run/slurmctld.pid")"
}

stop() {
    # The daemons' pids first: they remove their pid files before they are quite gone.
    pids=""
    for f in "$DIR"/run/slurmd-*.pid "$DIR/run/slurmctld.pid"; do
        [ -f "$f" ] || continue
        p=$(pidfile_pid "$f")
        pid_alive "$p" && pids="$pids $p"
        rm -f "$f"
    done
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    # Wait (bounded) for them to go, then make sure.
    t=0
    while [ $t -lt 100 ]; do
        left=0
        for p in $pids; do
            pid_alive "$p" && left=1
        done
        [ $left -eq 0 ] && break
        sleep 0.1
        t=$((t + 1))
    done
    for p in $pids; do
        pid_alive "$p" && kill -9 "$p" 2>/dev/null || true
    done
    # Step daemons of jobs still running on our nodes.
    for p in $(pgrep -f "slurmstepd" 2>/dev/null || true); do
        if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -q "^SLURM_CONF=$CONF\$"; then
            kill -9 "$p" 2>/dev/null || true
        fi
    done
    rm -rf "$DIR/state" "$DIR/spool"
}

start() {
    n=${1:-2}
    [ "$(id -u)" -eq 0 ] || die "must run as root"
    command -v slurmctld >/dev/null || die "slurmctld not installed (apt-get install slurm-wlm)"
    if running && [ "$(configured_nodes)" -eq "$n" ] && [ "$(idle_count)" -ge "$n" ]; then
        echo "SLURM_CONF=$CONF"
        return 0
    fi
    stop
    # A new cluster numbers its jobs from 1 again: PMIx directories left by an earlier
    # cluster's killed steps (/tmp/spmix_appdir_UID_JOB.STEP) would make those steps fail.
    rm -rf /tmp/spmix_appdir_0_*
    write_conf "$n"
    slurmctld -f "$CONF" -i || die "slurmctld failed (see $DIR/log/slurmctld.log)"
    i=1
    while [ "$i" -le "$n" ]; do
        slurmd -f "$CONF" -N "n$i" || die "slurmd n$i failed (see $DIR/log/slurmd-n$i.log)"
        i=$((i + 1))
    done
    t=0
    while [ "$(idle_count)" -lt "$n" ]; do
        t=$((t + 1))
        if [ $t -gt 300 ]; then
            sinfo >&2 || true
            stop
            die "nodes not idle after 30 s (logs in $DIR/log)"
        fi
        sleep 0.1
    done
    echo "SLURM_CONF=$CONF"
}

case "${1:-}" in
start) start "${2:-2}" ;;
stop) stop ;;
status)
    if running; then
        echo "SLURM_CONF=$CONF"
        sinfo
    else
        echo "not running"
        exit 3
    fi
    ;;
*) die "usage: $0 start [NODES] | stop | status" ;;
esac
