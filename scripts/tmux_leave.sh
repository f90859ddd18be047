#!/usr/bin/env bash
# Leaving and coming back, as a person meets it in the REAL client in 80x24 tmux panes, at a
# LAN table on 127.0.0.1 whose host is a computer player (`cfnet host --strategy greedy`, with
# a `cfnet bot` it starts). Two scenarios:
#   resume-quit  dana's client is killed (SIGKILL) mid-round; `cfnet resume` brings her back;
#                she quits (quit, y) at her turn: the client ends within 5 s saying she resigned
#                and how to come back, and the game the others finish has one resignation of
#                hers and no return after it;
#   timed-out    dana is idle until she is timed out: her screen says the game goes on without
#                her and how to come back, and so does her client's last line (nothing says the
#                table was aborted). amy, a second person, takes her time meanwhile, as people
#                do: she plays her turns only once dana has asked to come back, so that round
#                cannot end before. dana runs `cfnet resume`, asks once, is dealt in at the next
#                round, then leaves for good with Ctrl-C twice: no return after that.
# Exits non-zero with the reason and the screen on failure; always removes its own tmux server
# (and with it every process it started).
#   usage: scripts/tmux_leave.sh [resume-quit|timed-out|all]   (CFNET=path/to/cfnet)
set -euo pipefail
cd "$(dirname "$0")/.."

CFNET=${CFNET:-$PWD/.venv/bin/cfnet}
SCENARIO=${1:-all}
SOCKET="cfnet-tmux-leave-$$"
WORK=$(mktemp -d)
LOOPBACK=127.0.0.1
tmux_() { tmux -u -L "$SOCKET" "$@"; }
cleanup() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux_leave: tmux is not installed" >&2; exit 2; }
[ -x "$CFNET" ] || { echo "tmux_leave: no cfnet at $CFNET (set CFNET)" >&2; exit 2; }
# A server of our own that stays up between sessions: a server whose last session is killed
# exits, and a session started meanwhile fails ("server exited unexpectedly").
tmux_ start-server \; set-option -g exit-empty off

# screen PANE: what the pane shows, wrapped lines joined (-J), with some history.
screen() { tmux_ capture-pane -p -J -S -200 -t "$1"; }
# on_screen PANE REGEX (the screen is read whole first: see tmux_play.sh).
on_screen() {
    local text
    text=$(screen "$1") || return 1
    grep -qE -- "$2" <<<"$text"
}
# shows PANE TEXT: the pane shows TEXT, a sentence the screen may have wrapped over lines (the
# screen is read as one line, runs of spaces as one).
shows() {
    local text
    text=$(screen "$1") || return 1
    text=$(tr '\n' ' ' <<<"$text" | tr -s ' ')
    grep -qF -- "$2" <<<"$text"
}
fail() {
    echo "tmux_leave: FAIL: $*" >&2
    for pane in dana amy; do
        if tmux_ has-session -t "$pane" 2>/dev/null; then
            echo "---- $pane's screen ----" >&2
            screen "$pane" >&2 || true
        fi
    done
    echo "---- the host's output ----" >&2
    tail -n 30 "$WORK/host.out" >&2 2>/dev/null || true
    exit 1
}
AMY_PLAYS=0  # 1: amy plays her turns whenever a wait polls (she takes her time otherwise)
# amy_turn: if amy may play and it is her turn, she plays her first listed move.
amy_turn() {
    [ "$AMY_PLAYS" = 1 ] || return 0
    tmux_ has-session -t amy 2>/dev/null || return 0
    if on_screen amy '▶ Your turn' && on_screen amy '^Moves 1\) '; then
        type_line amy 1
    elif on_screen amy 'Game over: .*Press Enter to leave'; then
        type_line amy ""
    fi
}
# wait_for PANE REGEX WHAT [SECONDS]: poll the pane until it matches; generous deadlines.
wait_for() {
    local deadline=$((SECONDS + ${4:-60}))
    until on_screen "$1" "$2"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $3 (/$2/ on $1's screen)"
        amy_turn
        sleep 0.1
    done
}
# wait_text PANE TEXT WHAT: poll the pane until it shows TEXT (see shows).
wait_text() {
    local deadline=$((SECONDS + 60))
    until shows "$1" "$2"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $3 ('$2' on $1's screen)"
        amy_turn
        sleep 0.1
    done
}
type_line() {
    tmux_ send-keys -t "$1" -l -- "$2"
    tmux_ send-keys -t "$1" Enter
}
# start PANE COMMAND: run a person's client in a fresh 80x24 pane; its pid goes to
# $WORK/PANE.pid (the shell execs it), its exit status to $WORK/PANE.rc.
start() {
    tmux_ kill-session -t "$1" 2>/dev/null || true
    rm -f "$WORK/$1.rc" "$WORK/$1.pid"
    tmux_ new-session -d -x 80 -y 24 -s "$1" \
        "cd '$WORK' && TERM=xterm-256color bash -c 'echo \$\$ > $1.pid; exec $2'; echo \$? > '$WORK/$1.rc'; sleep 600"
}
# host NAME SEATS TIMEOUT: a computer player hosts table NAME (1 computer player more, people
# the rest), each seat given TIMEOUT seconds to answer.
host() {
    tmux_ new-session -d -s host \
        "$CFNET host --name $1 --seats $2 --bots 1 --strategy greedy --rule rounds=2 \
        --interface $LOOPBACK --home $WORK/host --timeout $3 > $WORK/host.out 2>&1; \
        echo \$? > $WORK/host.rc; sleep 600"
}
# join NAME TABLE: a person takes a seat, looking for the table as long as a busy machine needs.
join() { start "$1" "$CFNET join $2 --wait 120 --interface $LOOPBACK --home $WORK/$1 --player $1"; }
resume() { start "$1" "$CFNET resume --interface $LOOPBACK --home $WORK/$1"; }
# fresh: no client and no file of an earlier scenario.
fresh() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "${WORK:?}"/*
}
# comeback NAME: how the client says a player comes back to table NAME.
comeback() {
    echo "the game goes on without you: \`cfnet resume --table $1\` deals you in again at the next round that starts"
}
# wait_file FILE WHAT [SECONDS]: until FILE exists and is not empty.
wait_file() {
    local deadline=$((SECONDS + ${3:-60}))
    until [ -s "$1" ]; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $2"
        amy_turn
        sleep 0.1
    done
}
# exits_within PANE SECONDS WHAT: the client ends within SECONDS of now, with status 0.
exits_within() {
    local start=$EPOCHREALTIME took
    wait_file "$WORK/$1.rc" "$1's client to end after $3"
    took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    awk -v t="$took" -v m="$2" 'BEGIN { exit !(t <= m) }' \
        || fail "$1's client took $took s to end after $3 (at most $2 s)"
    [ "$(cat "$WORK/$1.rc")" = 0 ] || fail "$1's client exited with status $(cat "$WORK/$1.rc")"
    echo "tmux_leave: $1's client ended $took s after $3"
}
# departures: the departures and returns `cfnet verify` reads in the host's log.
departures() {
    local log
    log=$(ls "$WORK"/host/tables/*/table.cflog)
    "$CFNET" verify "$log" | grep -E '^(departure|return): ' || true
}
# no_return_after_resigning NAME: one resignation of NAME's, and no return after it.
no_return_after_resigning() {
    local lines
    lines=$(departures)
    [ "$(grep -cE "^departure: entry [0-9]+: seat [0-9] \($1\) resigned: " <<<"$lines")" = 1 ] \
        || fail "not one resignation of $1's in the host's log: $lines"
    sed -n "/seat [0-9] ($1) resigned: /,\$p" <<<"$lines" | grep -qE "^return: .*\($1\) is back" \
        && fail "$1 came back after resigning: $lines"
    echo "tmux_leave: the host's log has $1's resignation and no return after it"
}
resume_quit() {
    local name="leave-$$"
    fresh
    host "$name" 3 60
    join dana "$name"
    wait_for dana '^Hand  \[' "dana's hand"
    kill -9 "$(cat "$WORK/dana.pid")"
    wait_file "$WORK/dana.rc" "the killed client's shell"
    resume dana
    wait_text dana "resumed: waiting for a peer to give us the chain" "the resumed game screen"
    wait_for dana '▶ Your turn' "dana's turn after the resume" 120
    type_line dana quit
    wait_for dana 'Leave the game\? Type y to leave' "the quit question"
    type_line dana y
    exits_within dana 5 "quit, y"
    wait_text dana "cfnet: you resigned from table '$name'; $(comeback "$name")" \
        "the line saying she resigned and how to come back"
    shows dana "unfinished (cfnet resume goes on)" && fail "the line of a game left unfinished"
    wait_file "$WORK/host.rc" "the host to finish the game without dana" 180
    [ "$(cat "$WORK/host.rc")" = 0 ] || fail "the host exited with status $(cat "$WORK/host.rc")"
    no_return_after_resigning dana
    echo "tmux_leave: OK (resume-quit)"
}

timed_out() {
    local name="idle-$$"
    fresh
    host "$name" 4 40
    join amy "$name"
    join dana "$name"
    AMY_PLAYS=1
    wait_for dana '^Hand  \[' "dana's hand"
    wait_for dana 'Out of the game' "dana timed out" 120
    AMY_PLAYS=0  # amy takes her time now: round 1 cannot end before dana asks to come back
    wait_text dana "You were timed out of the game. T$(comeback "$name" | cut -c2-). Press Enter to leave." \
        "the banner saying the game goes on and the way back"
    type_line dana log
    wait_for dana '^You left the game: seat [0-9] \(dana\) did not post ' \
        "the timeout in the event log"
    tmux_ send-keys -t dana Escape
    wait_for dana '^centre \[9\|9\]' "the board again"
    on_screen dana 'Game over|Game aborted' && fail "the screen says the game is over"
    type_line dana 1
    wait_for dana '✗ the game is over for you: press Enter to leave' "a move refused, saying why"
    type_line dana ""
    exits_within dana 60 "Enter"
    wait_text dana "cfnet: you were timed out of table '$name'; $(comeback "$name")" \
        "the last line saying how to come back"
    on_screen dana 'aborted' && fail "the last line says the table was aborted"
    echo "tmux_leave: a person timed out is told the game goes on and how to come back"

    resume dana
    wait_text dana 'asking to be dealt in again when the next round starts' "the request to come back"
    type_line dana log
    wait_for dana '^you left the game: seat [0-9] \(dana\) did not post ' \
        "the timeout in the resumed client's event log"
    shows dana "round 1 is dealt again among" || fail "dana's timeout is not in round 1"
    tmux_ send-keys -t dana Escape
    AMY_PLAYS=1  # round 1 goes on only now: the request came in its turns
    wait_for dana '^ Round 2/2 .*' "round 2 on dana's screen" 120
    wait_for dana '^Hand  \[' "dana's hand in round 2" 120
    echo "tmux_leave: dana resumed, asked to come back and was dealt in at the next round"
    tmux_ send-keys -t dana C-c
    wait_for dana 'Leave the game\? Type y to leave' "the question after Ctrl-C"
    tmux_ send-keys -t dana C-c
    exits_within dana 60 "Ctrl-C twice"
    wait_file "$WORK/host.rc" "the host to finish the game" 240
    [ "$(cat "$WORK/host.rc")" = 0 ] || fail "the host exited with status $(cat "$WORK/host.rc")"
    departures | grep -qE '^return: entry [0-9]+: seat [0-9] \(dana\) is back: dealt in from round 2$' \
        || fail "dana was not dealt in again at round 2: $(departures)"
    no_return_after_resigning dana
    echo "tmux_leave: OK (timed-out)"
}

case $SCENARIO in
    resume-quit) resume_quit ;;
    timed-out) timed_out ;;
    all) resume_quit; timed_out ;;
    *) echo "usage: $0 [resume-quit|timed-out|all]" >&2; exit 2 ;;
esac
echo "tmux_leave: OK"
