#!/usr/bin/env bash
# Draw the REAL game screen (`cfnet play --offline`) and the REAL replay viewer (`cfnet replay` on
# a signed log) in tmux panes of 60x20, 80x24 and 120x40, and check what a person sees at each
# size after every step: no tile split across two rows (each "[" of a tile closes on its row:
# a row the program drew too wide is wrapped by the terminal, and shows as a split), the input
# line (game) or the key reminder (viewer) on the last row, the hand and the numbered moves
# (game), the move list and the hands (viewer). The game is played for a few turns at each
# size. Then panes of 40x12 and 50x20: the game screen says how large a terminal it needs, and
# shows the game once the pane is made 80x24.
# Exits non-zero with the reason and the screen on failure; always removes its own tmux server
# (and with it every process it started).
#   usage: scripts/tmux_sizes.sh [game|viewer|small|all]   (CFNET=path/to/cfnet for another)
set -euo pipefail
cd "$(dirname "$0")/.."

CFNET=${CFNET:-$PWD/.venv/bin/cfnet}
SCENARIO=${1:-all}
SEED=${SEED:-11}
SIZES=${SIZES:-"60x20 80x24 120x40"}
SOCKET="cfnet-tmux-sizes-$$"
PANE=sizes
WORK=$(mktemp -d)
SIZE=""
tmux_() { tmux -u -L "$SOCKET" "$@"; }
cleanup() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux_sizes: tmux is not installed" >&2; exit 2; }
[ -x "$CFNET" ] || { echo "tmux_sizes: no cfnet at $CFNET (set CFNET)" >&2; exit 2; }
# A server of our own that stays up between sessions: a server whose last session is killed
# exits, and a session started meanwhile fails ("server exited unexpectedly").
tmux_ start-server \; set-option -g exit-empty off

screen() { tmux_ capture-pane -p -t "$PANE"; }
# on_screen REGEX: the screen matches (read whole first: see tmux_play.sh for why).
on_screen() {
    local text
    text=$(screen) || return 1
    grep -qE -- "$1" <<<"$text"
}
fail() {
    echo "tmux_sizes: FAIL at $SIZE: $*" >&2
    echo "---- the screen ($SIZE) ----" >&2
    screen >&2 || true
    exit 1
}
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
key() { tmux_ send-keys -t "$PANE" "$1"; }
# start SIZE COMMAND: run COMMAND in a fresh pane of SIZE (WxH); its exit status goes to $WORK/rc.
start() {
    SIZE=$1
    tmux_ kill-session -t "$PANE" 2>/dev/null || true
    rm -f "$WORK/rc"
    tmux_ new-session -d -x "${1%x*}" -y "${1#*x}" -s "$PANE" \
        "cd '$WORK' && TERM=xterm-256color $2; echo \$? > '$WORK/rc'; sleep 60"
}
wait_exit() {
    local deadline=$((SECONDS + 60))
    until [ -s "$WORK/rc" ]; do
        [ "$SECONDS" -lt "$deadline" ] || fail "the program did not exit after $1"
        sleep 0.05
    done
    [ "$(cat "$WORK/rc")" = 0 ] || fail "the program exited with status $(cat "$WORK/rc")"
}
# whole_tiles: no row holds part of a tile (the rows with every whole tile taken out hold no
# bracket).
whole_tiles() {
    local text split
    text=$(screen)
    split=$(sed -E 's/\[[0-9]\|[0-9]\]//g' <<<"$text" | grep -nE '[][]' || true)
    [ -z "$split" ] || fail "a tile is split across rows (what is left of the rows: $split)"
}
# wrapped_by_item: hands and moves wrap by item, their rows after the first indented: no row
# begins with a tile or a numbered move (a row the terminal wrapped does).
wrapped_by_item() {
    local text loose
    text=$(screen)
    loose=$(grep -nE '^(\[|[0-9]+\) )' <<<"$text" || true)
    [ -z "$loose" ] || fail "a row begins with a tile or a move, as a row wrapped by the terminal does: $loose"
}
# unwrapped_top REGEX: the second row is the players' (the status bar above it was not wrapped
# onto it), and no row is only the end of a horizontal rule (a rule drawn too wide, wrapped).
unwrapped_top() {
    local text
    text=$(screen)
    sed -n 2p <<<"$text" | grep -qE -- "$1" || fail "the second row is not the players' row"
    grep -qE '^─+$' <<<"$text" && fail "a rule was drawn wider than the pane, and wrapped"
    return 0
}
# joined: the screen's rows joined by single spaces (a sentence however it wraps).
joined() { screen | tr '\n' ' ' | tr -s ' '; }
# wait_for_words PHRASE WHAT: the screen shows PHRASE, however its rows wrap it.
wait_for_words() {
    local deadline=$((SECONDS + 30))
    until grep -qF -- "$1" <<<"$(joined)"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $2 ('$1')"
        sleep 0.05
    done
}
# last_row REGEX WHAT: the pane's last row matches (the input line, the key reminder).
last_row() {
    local rows last
    rows=${SIZE#*x}
    last=$(screen | sed -n "${rows}p")
    grep -qE -- "$1" <<<"$last" || fail "$2 is not on the last row (it holds '$last')"
}
move_count() {
    local text
    text=$(screen)
    sed -nE '/ · move [0-9]+ · /{s/.* · move ([0-9]+) · .*/\1/p;q}' <<<"$text"
}

# the game screen at SIZE: a few turns, each screen checked
game_at() {
    local turns=0 before deadline
    start "$1" "'$CFNET' play --offline --players 3 --seed $SEED --delay 0 --rule rounds=1"
    wait_for '^ Round 1/1 · move [0-9]+' "the status bar"
    wait_for '(^|─ )[a-z]: |^centre \[9\|9\]' "the board"
    while [ "$turns" -lt 4 ] && ! on_screen "^Round 1 over: "; do
        wait_for '▶ Your turn|^Round 1 over: ' "my turn" 60
        on_screen "^Round 1 over: " && break
        wait_for '^Moves 1\) ' "the numbered moves"
        wait_for '^Hand  \[' "the hand"
        whole_tiles
        wrapped_by_item
        unwrapped_top '(You|Ada|Bob)$'
        last_row '^> ' "the input line"
        before=$(move_count)
        type_line "1"
        deadline=$((SECONDS + 30))
        while [ "$(move_count)" = "$before" ] && ! on_screen "^Round 1 over: "; do
            [ "$SECONDS" -lt "$deadline" ] || fail "my move (move $before) was not taken"
            sleep 0.05
        done
        turns=$((turns + 1))
    done
    whole_tiles
    wrapped_by_item
    last_row '^> ' "the input line"
    type_line "help"
    wait_for '^How to play' "the help pane"
    wait_for_words "tile 9-3 on the open end labelled b on the board" "a whole line of help"
    key PageDown
    wait_for_words "hint what the computer would play" "the rest of the help, scrolled to"
    whole_tiles
    last_row '^> ' "the input line, under the help"
    type_line "quit"
    wait_for "Leave the game\? Type y to leave" "the quit question"
    type_line "y"
    wait_exit "leaving"
    echo "tmux_sizes: the game screen at $1: $turns turns, no tile split, the input line shown"
}

# the viewer at SIZE on a real log: the start, the end with its hands, a step back
viewer_at() {
    start "$1" "'$CFNET' replay '$WORK/game.cflog'"
    wait_for "replay 'selfplay' · round 1/2 · move 0" "the viewer at the first deal"
    wait_for "round 1: centre \[9\|9\]" "the round's start in the move list"
    whole_tiles
    last_row 'q quit|· q' "the key reminder"
    key End
    wait_for "Round 2 over:" "the last round's end"
    wait_for "valid: a complete game" "the verdict"
    key h
    wait_for "Hands at this move:" "the revealed hands"
    whole_tiles
    wrapped_by_item
    unwrapped_top '^[ ▶]bot0 [0-9]+t \([0-9]+\) '
    last_row 'q quit|· q' "the key reminder, with the hands"
    key Left
    wait_for "round 2/2 · move [1-9]" "a step back"
    whole_tiles
    key q
    wait_exit "q"
    echo "tmux_sizes: the viewer at $1: no tile split, the key reminder shown"
}

game() {
    for size in $SIZES; do game_at "$size"; done
}

viewer() {
    "$CFNET" selfplay --protocol --players 3 --seed 2 --rule rounds=2 --log "$WORK/game.cflog" \
        >/dev/null
    for size in $SIZES; do viewer_at "$size"; done
}

small() {
    start 40x12 "'$CFNET' play --offline --players 3 --seed $SEED --delay 0 --rule rounds=1"
    wait_for_words "this one has 40 columns and 12 rows" "what a 40x12 terminal lacks"
    wait_for_words "needs a terminal of at least 60 columns and 20 rows" "what it needs"
    on_screen '\[[0-9]\|' && fail "tiles drawn in a terminal too small for them"
    last_row '^> ' "the input line"
    tmux_ resize-window -t "$PANE" -x 50 -y 20
    SIZE=50x20
    wait_for_words "this one has 50 columns and 20 rows" "what a 50x20 terminal lacks"
    on_screen '\[[0-9]\|' && fail "tiles drawn in a terminal too narrow for them"
    last_row '^> ' "the input line"
    tmux_ resize-window -t "$PANE" -x 80 -y 24
    SIZE=80x24
    wait_for '^Hand  \[' "the hand, once the terminal is large enough"
    whole_tiles
    type_line "quit"
    type_line "y"
    wait_exit "leaving"
    echo "tmux_sizes: at 40x12 and 50x20 the screen said what it needs, and drew the game at 80x24"
}

case $SCENARIO in
    game) game ;;
    viewer) viewer ;;
    small) small ;;
    all) game; viewer; small ;;
    *) echo "usage: $0 [game|viewer|small|all]" >&2; exit 2 ;;
esac
echo "tmux_sizes: OK"
