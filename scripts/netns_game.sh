#!/usr/bin/env bash
# cfnet across network namespaces (needs root and `ip netns`; iproute2).
#
# Builds HOSTS (default 4) hosts as network namespaces, each with one veth ("eth0",
# 10.77.0.<i>/24) plugged into a Linux bridge that lives in a namespace of its own, so the
# machine's own namespace, interfaces and routes are never touched and every packet stays on
# this private bridge. Then:
#   1. discovery: a table advertised from host 1 is found by real mDNS across the bridge in every
#      other host (by its announcement, by a newcomer's query, and by `cfnet tables`); prints
#      the times;
#   2. full game: one peer per host plays a complete game; the logs must be byte-identical and
#      `cfnet verify` must accept them (SKIP while `cfnet host` does not exist).
# Everything it made is removed on exit, failure or Ctrl-C. Where it cannot run (not root, no
# `ip netns`, namespaces not allowed) it says "SKIP: needs root and ip netns ..." and exits 0.
# Environment: CFNET_NETNS_HOSTS (4..9), CFNET_NETNS_ROUNDS (rounds of the full game, default 2).
# Sourced with CFNET_NETNS_LIBRARY=1 it only defines its functions (scripts/netns_partition.sh).
set -euo pipefail

SELF=${BASH_SOURCE[0]:-$0}
HERE=${SELF%/*}
[[ $HERE != "$SELF" ]] || HERE=.
REPO=$(cd "$HERE/.." && pwd)
PY=${CFNET_PYTHON:-$REPO/.venv/bin/python}
CFNET=${CFNET_BIN:-$REPO/.venv/bin/cfnet}
HOSTS=${CFNET_NETNS_HOSTS:-4}
ROUNDS=${CFNET_NETNS_ROUNDS:-2}
PREFIX="cfn-$$"              # every namespace made here starts with this: parallel runs never clash
SWITCH="$PREFIX-sw"          # the namespace holding the bridge
SUBNET=10.77.0               # a /24 that exists only inside the namespaces made here
TABLE_NAME="netns-$$"
WORK=""
NAMESPACES=()                # made so far, removed by cleanup
LAST_PID=""                  # of the last process start_in_host started
declare -A OUTPUT_OF=()      # pid -> the file its output goes to

say() { printf '%s\n' "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }
skip_all() { say "SKIP: needs root and ip netns ($*)"; exit 0; }
host_ns() { printf '%s-h%d' "$PREFIX" "$1"; }
host_addr() { printf '%s.%d' "$SUBNET" "$1"; }
in_host() { local i=$1; shift; ip netns exec "$(host_ns "$i")" "$@"; }
now() { date +%s.%N; }
ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

cleanup() {
    local rc=$? pid ns
    trap - EXIT INT TERM
    set +e
    for pid in $(jobs -pr); do kill "$pid" 2>/dev/null; done # our background processes
    for _ in {1..30}; do
        [[ -z $(jobs -pr) ]] && break
        sleep 0.1
    done
    for pid in $(jobs -pr); do kill -KILL "$pid" 2>/dev/null; done
    wait 2>/dev/null
    for ns in "${NAMESPACES[@]}"; do
        # Anything still running inside one of our namespaces was started by this script.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null || say "warning: could not remove namespace $ns" >&2
    done
    [[ -n $WORK ]] && rm -rf -- "$WORK"
    ((${#NAMESPACES[@]} == 0)) || say "cleaned up: ${NAMESPACES[*]}"
    exit "$rc"
}

preflight() {
    ((EUID == 0)) || skip_all "not root"
    command -v ip >/dev/null || skip_all "no 'ip' command: install iproute2"
    ip netns list >/dev/null 2>&1 || skip_all "'ip netns' is not available"
    [[ -x $PY && -x $CFNET ]] || fail "no cfnet install at $REPO/.venv (set CFNET_PYTHON, CFNET_BIN)"
    [[ $HOSTS =~ ^[4-9]$ ]] || fail "CFNET_NETNS_HOSTS=$HOSTS: give 4 to 9 hosts"
    local probe="$PREFIX-probe" why
    if ! why=$(ip netns add "$probe" 2>&1); then
        skip_all "cannot create a network namespace here: $why"
    fi
    ip netns del "$probe"
}

make_ns() {
    ip netns add "$1"
    NAMESPACES+=("$1")
    ip -n "$1" link set lo up
}

build_hosts() {
    local i ns
    make_ns "$SWITCH"
    ip -n "$SWITCH" link add br0 type bridge stp_state 0 mcast_snooping 0
    ip -n "$SWITCH" link set br0 up
    for ((i = 1; i <= HOSTS; i++)); do
        ns=$(host_ns "$i")
        make_ns "$ns"
        ip -n "$SWITCH" link add "port$i" type veth peer name eth0 netns "$ns"
        ip -n "$SWITCH" link set "port$i" master br0 multicast on up
        ip -n "$ns" link set eth0 multicast on up
        ip -n "$ns" addr add "$(host_addr "$i")/24" dev eth0
        # mDNS (224.0.0.251) leaves by eth0; there is no other route out of the namespace.
        ip -n "$ns" route add 224.0.0.0/4 dev eth0
        mkdir -m 0700 "$WORK/h$i"
    done
    say "built $HOSTS hosts ($(host_addr 1) .. $(host_addr "$HOSTS")) on bridge br0 in $SWITCH"
}

# Start "$@" in host $1 in the background, output to $2; its pid is LAST_PID.
start_in_host() {
    local i=$1 out=$2
    shift 2
    # exec: LAST_PID is the process itself, so stop_pid's signal reaches it (a subshell left
    # running behind would keep a table advertised under the game's name)
    (exec ip netns exec "$(host_ns "$i")" "$@") >"$out" 2>&1 &
    LAST_PID=$!
    OUTPUT_OF[$LAST_PID]=$out
}

# Wait for each of the processes "$@"; fail (showing its output file) if one fails.
wait_all() {
    local pid
    for pid in "$@"; do
        wait "$pid" || fail "process $pid (${OUTPUT_OF[$pid]##*/}) failed; its output:"$'\n'"$(tail -n 30 "${OUTPUT_OF[$pid]}")"
    done
}

stop_pid() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

max() { if (($1 > $2)); then echo "$1"; else echo "$2"; fi; }

# Wait until file $1 has a line starting with $2 (at most $3 seconds).
wait_line() {
    local deadline
    deadline=$(($(date +%s) + $3))
    until grep -q "^$2" "$1" 2>/dev/null; do
        (($(date +%s) < deadline)) || fail "no '$2' in $1 within $3 s: $(cat "$1")"
        sleep 0.05
    done
}

# Advertise one table from ADDR until SIGTERM (then withdraw it). Args: ADDR NAME TABLE_ID_HEX.
ADVERTISER='
import asyncio, signal, sys, time
from cfnet.record.identity import Identity
from cfnet.net.discovery import Discovery, TableInfo
from cfnet.game.rules import RuleOptions

async def main(addr: str, name: str, table_id: bytes) -> None:
    fp = Identity.generate().fingerprint
    table = TableInfo(name, table_id, "netns-host-1", fp, RuleOptions(), 4, 1, False, port=40000)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with Discovery(addr) as discovery:
        print(f"announcing {time.time():.6f}", flush=True)
        await discovery.advertise(table, [addr])
        print(f"ready {time.time():.6f}", flush=True)
        await stop.wait()

asyncio.run(main(sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])))
'

# Browse from ADDR until the table TABLE_ID_HEX is resolved. Args: ADDR TABLE_ID_HEX TIMEOUT.
BROWSER='
import asyncio, sys, time
from cfnet.net.discovery import Discovery

async def main(addr: str, table_id: bytes, timeout: float) -> None:
    async with Discovery(addr) as discovery:
        start = time.monotonic()
        browser = discovery.browse()
        print("browsing", flush=True)
        table = await browser.wait_for(lambda t: t.table_id == table_id, timeout)
        print(f"found {time.time():.6f} {time.monotonic() - start:.6f}"
              f" {table.name} {table.address}:{table.port}", flush=True)

asyncio.run(main(sys.argv[1], bytes.fromhex(sys.argv[2]), float(sys.argv[3])))
'

check_discovery() {
    local i table_id advertiser announced found line ms worst_announce=0 worst_query=0 pids=()
    table_id=$("$PY" -c 'import os; print(os.urandom(16).hex())')
    say "== discovery: table '$TABLE_NAME' advertised from host 1 ($(host_addr 1))"

    # a) Peers already browsing see the table by its announcement.
    for ((i = 2; i <= HOSTS; i++)); do
        start_in_host "$i" "$WORK/browse$i" "$PY" -c "$BROWSER" "$(host_addr "$i")" "$table_id" 10
    done
    for ((i = 2; i <= HOSTS; i++)); do wait_line "$WORK/browse$i" browsing 20; done
    start_in_host 1 "$WORK/advertiser" "$PY" -c "$ADVERTISER" "$(host_addr 1)" "$TABLE_NAME" \
        "$table_id"
    advertiser=$LAST_PID
    wait_line "$WORK/advertiser" ready 20
    announced=$(awk '$1 == "announcing" { print $2 }' "$WORK/advertiser")
    for ((i = 2; i <= HOSTS; i++)); do
        wait_line "$WORK/browse$i" found 15
        line=$(grep '^found' "$WORK/browse$i")
        found=$(awk '{ print $2 }' <<<"$line")
        ms=$(ms_between "$announced" "$found")
        worst_announce=$(max "$ms" "$worst_announce")
        say "host $i ($(host_addr "$i")): saw the announcement after $ms ms: ${line#* * * }"
    done

    # b) A newcomer finds the existing table by its query.
    for ((i = 2; i <= HOSTS; i++)); do
        line=$(in_host "$i" "$PY" -c "$BROWSER" "$(host_addr "$i")" "$table_id" 10 | grep '^found') ||
            fail "host $i did not find the table as a newcomer"
        ms=$(awk '{ printf "%.0f", $3 * 1000 }' <<<"$line")
        worst_query=$(max "$ms" "$worst_query")
        say "host $i ($(host_addr "$i")): a newcomer found it after $ms ms"
    done

    # c) `cfnet tables` lists it everywhere.
    for ((i = 2; i <= HOSTS; i++)); do
        start_in_host "$i" "$WORK/tables$i" "$CFNET" tables --interface "$(host_addr "$i")" --wait 3
        pids+=("$LAST_PID")
    done
    wait_all "${pids[@]}"
    for ((i = 2; i <= HOSTS; i++)); do
        grep -q "^$TABLE_NAME .*$(host_addr 1):40000" "$WORK/tables$i" ||
            fail "cfnet tables in host $i did not list the table: $(cat "$WORK/tables$i")"
    done
    say "cfnet tables --wait 3 in host 2:"
    sed 's/^/    /' "$WORK/tables2"
    say "cfnet tables lists the table in hosts 2..$HOSTS"
    say "discovery across the bridge: announcement seen within $worst_announce ms," \
        "newcomer query answered within $worst_query ms (worst of $((HOSTS - 1)) hosts)"
    stop_pid "$advertiser" # it withdraws the table
}

# ==== FULL GAME: one peer per host, a complete game, identical logs, `cfnet verify` =========
# Lights up by itself when `cfnet host` exists. Peers keep their state in $WORK/h<i> (--home),
# so each log is $WORK/h<i>/tables/<table id>/table.cflog (cfnet/disk/store.py).
full_game() {
    say "== full game: $HOSTS peers, one per host, $ROUNDS rounds"
    if ! "$CFNET" host --help >/dev/null 2>&1; then
        say "SKIP: cfnet host/join not implemented yet"
        return 0
    fi
    local i start pids=() logs=() log
    start=$(now)
    start_in_host 1 "$WORK/peer1" "$CFNET" host --name "$TABLE_NAME" --seats "$HOSTS" \
        --rule "rounds=$ROUNDS" --interface "$(host_addr 1)" --home "$WORK/h1" --strategy greedy
    pids+=("$LAST_PID")
    for ((i = 2; i <= HOSTS; i++)); do
        start_in_host "$i" "$WORK/peer$i" "$CFNET" bot --table "$TABLE_NAME" --strategy greedy \
            --interface "$(host_addr "$i")" --home "$WORK/h$i"
        pids+=("$LAST_PID")
    done
    wait_all "${pids[@]}"
    say "game over after $(ms_between "$start" "$(now)") ms"
    for ((i = 1; i <= HOSTS; i++)); do
        log=$(find "$WORK/h$i/tables" -name table.cflog -print -quit 2>/dev/null || true)
        [[ -n $log ]] || fail "host $i kept no log: $(tail -5 "$WORK/peer$i")"
        logs+=("$log")
    done
    for ((i = 2; i <= HOSTS; i++)); do
        cmp -- "${logs[0]}" "${logs[$((i - 1))]}" || fail "the logs of hosts 1 and $i differ"
    done
    say "the $HOSTS logs are byte-identical ($(wc -c <"${logs[0]}") bytes)"
    "$CFNET" verify "${logs[0]}" || fail "cfnet verify refused the log"
}

main() {
    preflight
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$PREFIX.XXXXXX")
    build_hosts
    check_discovery
    full_game
    say "OK"
}

[[ -n ${CFNET_NETNS_LIBRARY:-} ]] || main "$@"
