#!/usr/bin/env bash
# A real single-node Slurm for the sweep-array test, without systemd.
#
#   .ci/slurm.sh install      Debian's slurm-wlm and munge, when missing
#   .ci/slurm.sh start DIR    install, then start munge (when not running),
#                             slurmctld and slurmd with their state, logs,
#                             PID files and slurm.conf in DIR; waits until
#                             the node is idle. Clients need
#                             SLURM_CONF=DIR/slurm.conf.
#   .ci/slurm.sh stop DIR     stop, by PID, the daemons that `start DIR`
#                             started, and wait until they are gone
#
# Settings that matter on a small machine without systemd: proctrack/linuxproc
# and task/none (the cgroup plugins fail here and drain the node, so jobs
# wait forever); batch_sched_delay=0 and MinJobAge=4 (arrays start at once
# and finished jobs leave squeue within seconds); the node is `localhost`
# so nothing depends on the host name. Ports 6817/6818 are fixed: one such
# cluster per machine at a time. Jobs run as root.
set -euo pipefail

install_packages() {
  if command -v slurmctld >/dev/null && command -v munged >/dev/null; then
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
}

start() {
  local d=$1
  install_packages
  mkdir -p "$d"/{state,spool,log}
  d=$(cd "$d" && pwd)
  [ -s /etc/munge/munge.key ] || runuser -u munge -- /usr/sbin/mungekey --create
  install -d -o munge -g munge -m 0755 /run/munge
  if ! (munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1); then
    runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
    # Ours to stop: remember its PID apart from munge's own file.
    cp /run/munge/munged.pid "$d/munged.pid"
  fi
  cat >"$d/slurm.conf" <<CONF
ClusterName=local
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MinJobAge=4
MailProg=/bin/true
ReturnToService=2
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$d/slurm.conf"
  /usr/sbin/slurmctld -i
  /usr/sbin/slurmd -N localhost
  for _ in $(seq 150); do
    [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && return 0
    sleep 0.2
  done
  echo "slurm.sh: the node did not become idle; see $d/log" >&2
  sinfo >&2 || true
  return 1
}

stop() {
  local d=$1 f p
  for f in "$d/slurmd.pid" "$d/slurmctld.pid" "$d/munged.pid"; do
    [ -s "$f" ] || continue
    p=$(cat "$f")
    kill "$p" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  rm -f "$d/munged.pid"
}

case "${1:-}" in
  install) install_packages ;;
  start) start "${2:?start needs a folder}" ;;
  stop) stop "${2:?stop needs a folder}" ;;
  *) echo "usage: $0 install | start DIR | stop DIR" >&2; exit 2 ;;
esac
