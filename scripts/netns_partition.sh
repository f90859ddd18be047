#!/usr/bin/env bash
# One game, never two: a partition with real processes (needs root and `ip netns`; iproute2).
#
# Builds 4 hosts in network namespaces on a private bridge (scripts/netns_game.sh), starts a
# game of 4 computer players (host in host 1, bots in hosts 2..4, table timeout TIMEOUT s) and,
# once round 1 is under way, cuts hosts off by setting their eth0 down inside their namespace
# (this kernel has no netem), then brings them back:
#   one: host 4 is cut off until the 3 others have timed it out by their stall votes AND it has
#        said that it cannot reach a majority (longer than the timeout), then healed. The 3
#        finish with one result; host 4's log ends as a prefix of theirs (it takes their chain,
#        its departure included); `cfnet verify` of each log gives no other result.
#   two: the bridge is split in two (the hosts of seats 0 and 2 on one side, those of seats 1
#        and 3 on the other, so the turns go across the cut, by moving the ports of the second
#        side to a second bridge in the switch's namespace): no side holds a majority. Kept so for twice the timeout after a seat has voted, then joined again:
#        nobody is timed out and the game goes on to its end, with one log everywhere and no
#        departure. Prints how long the game took after the heal and how many stall votes were
#        cast after it (a seat that voted plays on as soon as the entry it waited for comes).
# Prints what it saw and "OK"; removes everything it made. Without root it says
# "SKIP: needs root and ip netns ..." and exits 0.
# Usage: netns_partition.sh one|two. Environment: CFNET_PARTITION_TIMEOUT (default 12).
set -euo pipefail

SELF=${BASH_SOURCE[0]:-$0}
HERE=${SELF%/*}
[[ $HERE != "$SELF" ]] || HERE=.
CFNET_NETNS_LIBRARY=1 CFNET_NETNS_HOSTS=4 source "$HERE/netns_game.sh"

MODE=${1:-}
TIMEOUT=${CFNET_PARTITION_TIMEOUT:-12}
ROUNDS=2

cut_host() {
    ip -n "$(host_ns "$1")" link set eth0 down
    say "host $1 cut off ($(date +%T))"
}

# The host whose peer sits in seat $1 (the host is seat 0; a bot says "you are seat N of 4").
host_of_seat() {
    local i
    ((${1} == 0)) && { say 1; return; }
    for ((i = 2; i <= 4; i++)); do
        grep -qF "you are seat $1 of " "$WORK/peer$i" && { say "$i"; return; }
    done
    fail "no host says it sits in seat $1"
}

AWAY=() # the hosts moved to the second bridge

split_bridge() {
    local i
    for i in 1 2 3; do
        wait_text "you are seat $i of " 60 "$WORK/peer2" "$WORK/peer3" "$WORK/peer4"
    done
    AWAY=("$(host_of_seat 1)" "$(host_of_seat 3)")
    ip -n "$SWITCH" link add br1 type bridge stp_state 0 mcast_snooping 0
    ip -n "$SWITCH" link set br1 up
    for i in "${AWAY[@]}"; do
        ip -n "$SWITCH" link set "port$i" master br1
    done
    say "hosts $(host_of_seat 0) $(host_of_seat 2) (seats 0 2) | hosts ${AWAY[*]} (seats 1 3):" \
        "the bridge is split ($(date +%T))"
}

join_bridge() {
    local i
    for i in "${AWAY[@]}"; do
        ip -n "$SWITCH" link set "port$i" master br0
    done
    say "the bridge is whole again ($(date +%T))"
}

heal_host() {
    local ns
    ns=$(host_ns "$1")
    ip -n "$ns" link set eth0 up
    ip -n "$ns" route replace 224.0.0.0/4 dev eth0 # removed with the link: mDNS goes by eth0
    say "host $1 back ($(date +%T))"
}

# Wait until one of the files "${@:3}" has a line containing $1 (at most $2 seconds).
wait_text() {
    local text=$1 limit=$2 deadline file
    shift 2
    deadline=$(($(date +%s) + limit))
    while :; do
        for file in "$@"; do
            grep -qF -- "$text" "$file" 2>/dev/null && return 0
        done
        (($(date +%s) < deadline)) || fail "no '$text' within $limit s in: $*"
        sleep 0.1
    done
}

LOGS=()
PEER_PIDS=()

start_game() {
    local i
    say "== $ROUNDS-round game, 4 computer players, timeout $TIMEOUT s"
    start_in_host 1 "$WORK/peer1" "$CFNET" host --name "$TABLE_NAME" --seats 4 \
        --rule "rounds=$ROUNDS" --timeout "$TIMEOUT" --interface "$(host_addr 1)" \
        --home "$WORK/h1" --strategy greedy
    PEER_PIDS+=("$LAST_PID")
    for ((i = 2; i <= 4; i++)); do
        start_in_host "$i" "$WORK/peer$i" "$CFNET" bot --table "$TABLE_NAME" --strategy greedy \
            --interface "$(host_addr "$i")" --home "$WORK/h$i"
        PEER_PIDS+=("$LAST_PID")
    done
    wait_text "round 1" 120 "$WORK/peer1"
}

# Wait (at most 150 s) for peer $1 to exit; its status must be one of "${@:2}".
wait_peer() {
    local i=$1 status=0 ok pid deadline
    shift
    pid=${PEER_PIDS[$((i - 1))]}
    deadline=$(($(date +%s) + 150))
    while kill -0 "$pid" 2>/dev/null; do
        (($(date +%s) < deadline)) ||
            fail "peer $i still runs 150 s on; its output:"$'\n'"$(tail -n 30 "$WORK/peer$i")"
        sleep 0.2
    done
    wait "$pid" || status=$?
    for ok in "$@"; do
        ((status == ok)) && return 0
    done
    fail "peer $i exited with $status; its output:"$'\n'"$(tail -n 30 "$WORK/peer$i")"
}

find_logs() {
    local i log
    LOGS=()
    for ((i = 1; i <= 4; i++)); do
        log=$(find "$WORK/h$i/tables" -name table.cflog -print -quit 2>/dev/null || true)
        [[ -n $log ]] || fail "host $i kept no log: $(tail -5 "$WORK/peer$i")"
        LOGS+=("$log")
    done
}

# `cfnet verify --json` of a log: "finished totals winners" on one line.
result_of() {
    { "$CFNET" verify --json "$1" || true; } | "$PY" -c '
import json, sys
v = json.load(sys.stdin)
print(v["finished"], v["totals"] if v["finished"] else "-", v["winners"] if v["finished"] else "-")'
}

one_cut_off() {
    start_game
    cut_host 4
    wait_text "timed out by the votes of" $((6 * TIMEOUT + 120)) "$WORK/peer1"
    say "host 1: $(grep -F -m1 "timed out by the votes of" "$WORK/peer1")"
    wait_text "cannot reach a majority" $((6 * TIMEOUT + 120)) "$WORK/peer4"
    say "host 4: $(grep -F -m1 "cannot reach a majority" "$WORK/peer4")"
    heal_host 4
    wait_peer 1 0
    wait_peer 2 0
    wait_peer 3 0
    wait_peer 4 0 3 # it has left the game (timed out): no result of its own
    find_logs
    cmp -- "${LOGS[0]}" "${LOGS[1]}" && cmp -- "${LOGS[0]}" "${LOGS[2]}" ||
        fail "the logs of the 3 connected hosts differ"
    cmp -n "$(stat -c %s "${LOGS[3]}")" -- "${LOGS[3]}" "${LOGS[0]}" ||
        fail "host 4's log is not a prefix of the majority's"
    say "host 4's log is a prefix of the majority's ($(stat -c %s "${LOGS[3]}") of $(stat -c %s "${LOGS[0]}") bytes)"
    "$CFNET" verify "${LOGS[0]}" >"$WORK/verify1" || fail "verify refused: $(cat "$WORK/verify1")"
    local majority cut_off
    majority=$(result_of "${LOGS[0]}")
    cut_off=$(result_of "${LOGS[3]}")
    say "verify, the majority's log: $majority; host 4's log: $cut_off"
    [[ $cut_off == "$majority" || $cut_off == False* ]] ||
        fail "host 4's log verifies with another result"
    if grep -F "timed out by the votes of" "$WORK/peer4" | grep -vF "you left the game"; then
        fail "host 4 saw another seat timed out"
    fi
}

two_cut_off() {
    start_game
    split_bridge
    wait_text "cannot reach a majority" $((6 * TIMEOUT + 120)) "$WORK/peer1" "$WORK/peer2" \
        "$WORK/peer3" "$WORK/peer4"
    say "a seat voted: $(grep -hF -m1 "cannot reach a majority" "$WORK"/peer[1-4] | head -1)"
    sleep "$((2 * TIMEOUT))" # the scenario: cut off for twice the timeout after a vote
    local healed i votes=0 seen=()
    for ((i = 1; i <= 4; i++)); do
        seen+=("$(wc -l <"$WORK/peer$i")")
    done
    join_bridge
    healed=$(now)
    wait_peer 1 0
    wait_peer 2 0
    wait_peer 3 0
    wait_peer 4 0
    for ((i = 1; i <= 4; i++)); do
        votes=$((votes + $(tail -n "+$((seen[i - 1] + 1))" "$WORK/peer$i" | grep -cF "voted to time it out" || true)))
    done
    say "after the heal: the game ended in $(ms_between "$healed" "$(now)") ms; stall votes cast since: $votes"
    ! grep -F "timed out by the votes of" "$WORK"/peer[1-4] ||
        fail "a seat was timed out without a majority"
    find_logs
    for ((i = 1; i < 4; i++)); do
        cmp -- "${LOGS[0]}" "${LOGS[$i]}" || fail "the logs of hosts 1 and $((i + 1)) differ"
    done
    "$CFNET" verify "${LOGS[0]}" >"$WORK/verify1" || fail "verify refused: $(cat "$WORK/verify1")"
    grep -qF "departure" "$WORK/verify1" && fail "a departure in the log: $(cat "$WORK/verify1")"
    say "nobody timed out; the game went on: $(result_of "${LOGS[0]}")"
}

partition_main() {
    [[ $MODE == one || $MODE == two ]] || fail "usage: $0 one|two"
    preflight
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$PREFIX.XXXXXX")
    build_hosts
    if [[ $MODE == one ]]; then one_cut_off; else two_cut_off; fi
    say "OK"
}

partition_main
