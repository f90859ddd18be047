#!/usr/bin/env bash
# Play the REAL client in an 80x24 tmux pane, as a person would: read the screen, type legal
# moves (by number and as tile and end), try wrong inputs and check the answers, and check what
# the screen shows at every step. Two scenarios:
#   lan      `cfnet host` on 127.0.0.1 with the person's seat and a computer player it starts
#            (a `cfnet bot` process); in the lobby screen the person seats a second one, then
#            plays a whole round over real links, and reads every hand, the audit, the winner
#            and where the log was saved;
#   offline  `cfnet play --offline`: a whole round against computer players on this machine.
# Exits non-zero with the reason and the screen on failure; always removes its own tmux server
# (and with it every process it started).
#   usage: scripts/tmux_play.sh [lan|offline|all]   (CFNET=path/to/cfnet for another executable)
set -euo pipefail
cd "$(dirname "$0")/.."

CFNET=${CFNET:-$PWD/.venv/bin/cfnet}
SCENARIO=${1:-all}
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
# A server of our own that stays up between sessions: a server whose last session is killed
# exits, and a session started meanwhile fails ("server exited unexpectedly").
tmux_ start-server \; set-option -g exit-empty off

screen() { tmux_ capture-pane -p -t "$PANE"; }
# on_screen REGEX: the screen matches. The screen is read whole first: a `grep -q` reading a
# pipe stops at the first match, and the writer it cuts off (SIGPIPE, status 141) would fail
# the pipeline under pipefail.
on_screen() {
    local text
    text=$(screen) || return 1
    grep -qE -- "$1" <<<"$text"
}
fail() {
    echo "tmux_play: FAIL: $*" >&2
    echo "---- the screen (80x24) ----" >&2
    screen >&2 || true
    exit 1
}
# wait_for REGEX WHAT [SECONDS]: poll the screen until it matches (the screen redraws async);
# the deadlines are generous: a loaded machine must not fail.
wait_for() {
    local deadline=$((SECONDS + ${3:-30}))
    until on_screen "$1"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $2 (/$1/)"
        sleep 0.05
    done
}
type_line() {
    tmux_ send-keys -t "$PANE" -l -- "$1"
    tmux_ send-keys -t "$PANE" Enter
}
move_count() {
    local text
    text=$(screen)
    sed -nE '/ · move [0-9]+ · /{s/.* · move ([0-9]+) · .*/\1/p;q}' <<<"$text"
}
# wait_exit WHAT: the client's exit status file appears (0 expected).
wait_exit() {
    local deadline=$((SECONDS + 60))
    until [ -s "$WORK/rc" ]; do
        [ "$SECONDS" -lt "$deadline" ] || fail "the client did not exit after $1"
        sleep 0.05
    done
    [ "$(cat "$WORK/rc")" = 0 ] || fail "the client exited with status $(cat "$WORK/rc")"
}
# start COMMAND: run the client in a fresh 80x24 pane (its exit status goes to $WORK/rc).
start() {
    tmux_ kill-session -t "$PANE" 2>/dev/null || true
    rm -f "$WORK/rc"
    tmux_ new-session -d -x 80 -y 24 -s "$PANE" \
        "cd '$WORK' && TERM=xterm-256color $1; echo \$? > '$WORK/rc'; sleep 60"
}
# The numbered legal moves as "N) move" lines, read from the screen's Moves rows.
moves_listed() {
    local text
    text=$(screen)
    sed -n '/^Moves /,/^──/p' <<<"$text" | grep -oE '[0-9]+\) ([0-9]-[0-9] [a-z]+|draw|pass)' || true
}


# wrong_inputs: on my turn, wrong inputs each get a clear message and change nothing.
wrong_inputs() {
    wait_for '▶ Your turn' "the player's turn" 60
    wait_for '^Moves 1\) ' "the numbered legal moves"
    local before
    before=$(move_count)
    type_line "banana"
    wait_for "✗ 'banana' is not a move or a command: type " "the error for banana"
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
}

# play_round: the whole round, alternately the first move as tile and end, by number, the last.
play_round() {
    local turns=0 before listed first last choice deadline
    while ! on_screen "^Round 1 over: "; do
        if ! on_screen "▶ Your turn"; then
            sleep 0.05
            continue
        fi
        wait_for '^Moves 1\) |^Round 1 over: ' "the legal moves on my turn"
        on_screen "^Round 1 over: " && break
        wait_for '^(Your turn\.|You drew )' "the banner saying what to do"
        before=$(move_count)
        listed=$(moves_listed)
        [ -n "$listed" ] || fail "my turn, but no legal moves listed"
        first=$(head -n 1 <<<"$listed" | cut -d' ' -f2-)
        last=$(tail -n 1 <<<"$listed" | cut -d')' -f1)
        case $((turns % 3)) in
            0) choice=$first ;;
            1) choice=1 ;;
            *) choice=$last ;;
        esac
        type_line "$choice"
        deadline=$((SECONDS + 30))
        while [ "$(move_count)" = "$before" ] && ! on_screen "^Round 1 over: "; do
            [ "$SECONDS" -lt "$deadline" ] || fail "my move '$choice' (move $before) was not taken"
            sleep 0.05
        done
        turns=$((turns + 1))
    done
    echo "tmux_play: played the round: $turns turns of mine"
}

# round_result NAME...: every hand revealed with its points, the totals, the winner.
round_result() {
    wait_for "^Round 1 over: " "the round's result"
    for name in "$@"; do
        wait_for "^$name +[0-9]+ points?" "$name's revealed hand and points"
    done
    wait_for '^total( +[0-9]+)+$' "the game's totals"
    wait_for 'Game over: .* with [0-9]+ points?' "the winner" 60
}

lan() {
    local name="tmux-$$"
    start "'$CFNET' host --name '$name' --seats 3 --bots 1 --player You --rule rounds=1 \
        --interface 127.0.0.1 --home '$WORK/home' --timeout 60"
    wait_for "^ cfnet · lobby · table '$name'" "the lobby screen"
    wait_for "^  0  You +[a-z2-7]{4}(-[a-z2-7]{4}){3}  \(host, you\)" "my seat with my key"
    wait_for "^  1  bot1 +[a-z2-7]{4}(-[a-z2-7]{4}){3}$" "the computer player seated" 60
    wait_for "^  2  \(free for [0-9]+:[0-9]{2}\)" "the free seat, and how long it has waited"
    wait_for "^Waiting for 1 more player\." "how many are missing"
    wait_for "open on 127\.0\.0\.1:[0-9]+" "the table's address, for joining by address"
    type_line "dance"
    wait_for "✗ 'dance' is not a lobby command: type bot, start or leave" "the lobby's error"
    type_line "bot"
    echo "tmux_play: the lobby showed the seats and keys, and seated a computer player on request"
    wait_for "^ Round 1/1 · move [0-9]+ · yard [0-9]+ \([0-9]+ drawable\)" "the game screen" 60
    wait_for '^ +(▶)?You +(▶)?bot1 +(▶)?bot2$' "the players' table"
    wait_for '^tiles +[0-9]+ +[0-9]+ +[0-9]+' "each player's tile count"
    wait_for '^points +0 +0 +0' "the scores"
    wait_for '^centre \[9\|9\] +\(' "the board"
    wait_for '^Hand  \[' "the hand" 60
    wrong_inputs
    play_round
    round_result You bot1 bot2
    wait_for "audited: every shuffle, key and move checked" "the audit's result"
    wait_for "log is saved in$" "where the log was saved" 60
    wait_for "^  $WORK/home/tables/[0-9a-f]+/table\.cflog$" "the log's path"
    type_line ""
    wait_exit "Enter at the end"
    echo "tmux_play: OK (lan): a whole LAN round through the real terminal; the client left cleanly"
}

offline() {
    start "'$CFNET' play --offline --players 3 --seed $SEED --delay 0 --rule rounds=1"
    wait_for '^ Round 1/1 · move [0-9]+' "the status bar"
    wait_for '^ +(▶)?You +(▶)?Ada +(▶)?Bob$' "the players' table"
    wait_for '^centre \[9\|9\] +\(' "the board"
    wait_for 'yard [0-9]+ \([0-9]+ drawable\)' "the yard size and how many may be drawn"
    wait_for '^Hand  \[' "the hand"
    wrong_inputs
    play_round
    round_result You Ada Bob
    type_line ""
    wait_exit "Enter at the end"
    wait_for "cfnet play --offline --seed $SEED: 1 round played" "the summary after leaving"
    echo "tmux_play: OK (offline): a whole practice round through the real terminal"
}

case $SCENARIO in
    lan) lan ;;
    offline) offline ;;
    all) lan; offline ;;
    *) echo "usage: $0 [lan|offline|all]" >&2; exit 2 ;;
esac
echo "tmux_play: OK"
