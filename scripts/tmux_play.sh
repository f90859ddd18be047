#!/usr/bin/env bash
# Play a whole round of the REAL client in an 80x24 tmux pane, as a person would: read the
# screen, type legal moves (by number and as tile and end), try wrong inputs and check the
# answers, and check what the screen shows at every step. Exits non-zero with the reason and
# the screen on failure; always removes its own tmux server.
#   usage: scripts/tmux_play.sh            (CFNET=path/to/cfnet to use another executable)
set -euo pipefail
cd "$(dirname "$0")/.."

CFNET=${CFNET:-$PWD/.venv/bin/cfnet}
PLAYERS=3  # the checks below name the three seats
SEED=${SEED:-11}
SOCKET="cfnet-tmux-play-$$"
PANE=play
WORK=$(mktemp -d)
tmux_() { tmux -u -L "$SOCKET" "$@"; }
cleanup() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux_play: tmux is not installed" >&2; exit 2; }
[ -x "$CFNET" ] || { echo "tmux_play: no cfnet at $CFNET (set CFNET)" >&2; exit 2; }

screen() { tmux_ capture-pane -p -t "$PANE"; }
fail() {
    echo "tmux_play: FAIL: $*" >&2
    echo "---- the screen (80x24) ----" >&2
    screen >&2 || true
    exit 1
}
# wait_for REGEX WHAT [SECONDS]: poll the screen until it matches (the screen redraws async).
wait_for() {
    local deadline=$((SECONDS + ${3:-10}))
    until screen | grep -qE -- "$1"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $2 (/$1/)"
        sleep 0.05
    done
}
type_line() {
    tmux_ send-keys -t "$PANE" -l -- "$1"
    tmux_ send-keys -t "$PANE" Enter
}
move_count() { screen | sed -nE 's/.* · move ([0-9]+) · .*/\1/p' | head -n 1; }
# The numbered legal moves as "N) move" lines, read from the screen's Moves rows.
moves_listed() {
    screen | sed -n '/^Moves /,/^──/p' | grep -oE '[0-9]+\) ([0-9]-[0-9] [a-z]+|draw|pass)'
}

# -- start the client
tmux_ new-session -d -x 80 -y 24 -s "$PANE" \
    "TERM=xterm-256color '$CFNET' play --offline --players $PLAYERS --seed $SEED --delay 0 \
     --rule rounds=1; echo \$? > '$WORK/rc'; sleep 30"
wait_for 'Round 1/1 · centre \[9\|9\]' "the status bar"
wait_for '^ +(▶)?You +(▶)?Ada +(▶)?Bob$' "the players' table"
wait_for '^tiles +[0-9]+ +[0-9]+ +[0-9]+' "each player's tile count"
wait_for '^points +0 +0 +0' "the scores"
wait_for '^centre \[9\|9\] +\(' "the board"
wait_for 'yard [0-9]+ \([0-9]+ drawable\)' "the yard size and how many may be drawn"
wait_for '^Hand  \[' "the hand"
wait_for '▶ Your turn' "the player's turn" 20
wait_for '^Moves 1\) ' "the numbered legal moves"
echo "tmux_play: the screen is up: board, hand, moves, players, yard"

# -- wrong inputs: a clear message each, and nothing changes
before=$(move_count)
type_line "banana"
wait_for "✗ 'banana' is not a move or a command: type a move number" "the error for banana"
type_line "42"
wait_for "✗ there is no move 42" "the error for a move number out of range"
type_line "9-9 a"
wait_for "✗ 9-9 is already on the board: play a tile you hold" "the error for 9-9"
type_line "pass"
wait_for "✗ you cannot pass" "the error for pass"
type_line "quit"
wait_for "Leave the game\? Type y to leave" "the quit question"
type_line "n"
wait_for "Staying in the game" "staying after answering n"
[ "$(move_count)" = "$before" ] || fail "a wrong input changed the game (move $before -> $(move_count))"
type_line "help"
wait_for "^How to play" "the help pane"
type_line ""
wait_for '^centre \[9\|9\]' "the board again after Enter"
echo "tmux_play: wrong inputs were explained and changed nothing"

# -- play the whole round: alternately the first move as tile and end, by number, the last one
turns=0
while ! screen | grep -q "Game over"; do
    if ! screen | grep -q "▶ Your turn"; then
        sleep 0.05
        continue
    fi
    wait_for '^Moves 1\) ' "the legal moves on my turn"
    wait_for '^(Your turn\.|You drew )' "the banner saying what to do"
    before=$(move_count)
    listed=$(moves_listed)
    [ -n "$listed" ] || fail "my turn, but no legal moves listed"
    first=$(printf '%s\n' "$listed" | head -n 1 | cut -d' ' -f2-)
    last=$(printf '%s\n' "$listed" | tail -n 1 | cut -d')' -f1)
    case $((turns % 3)) in
        0) choice=$first ;;
        1) choice=1 ;;
        *) choice=$last ;;
    esac
    type_line "$choice"
    deadline=$((SECONDS + 10))
    while [ "$(move_count)" = "$before" ] && ! screen | grep -q "Game over"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "my move '$choice' (move $before) was not taken"
        sleep 0.05
    done
    turns=$((turns + 1))
done
echo "tmux_play: played the round: $turns turns of mine"

# -- the end: every hand revealed with its points, the scores, the winner
wait_for "^Round 1 over: " "the round's result"
for name in You Ada Bob; do
    wait_for "^$name +[0-9]+ pts" "$name's revealed hand and points"
done
wait_for '^total +[0-9]+ +[0-9]+ +[0-9]+' "the game's totals"
wait_for 'Game over: .* with [0-9]+ points' "the winner"
type_line ""
deadline=$((SECONDS + 10))
until [ -s "$WORK/rc" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the client did not exit after Enter at the end"
    sleep 0.05
done
[ "$(cat "$WORK/rc")" = 0 ] || fail "the client exited with status $(cat "$WORK/rc")"
wait_for "cfnet play --offline --seed $SEED: 1 round\(s\) played" "the summary after leaving"
echo "tmux_play: OK: a whole round played through the real terminal, and the client left cleanly"
