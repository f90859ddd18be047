#!/usr/bin/env bash
# Open the REAL replay viewer (`cfnet replay LOG` on a terminal) in an 80x24 tmux pane on a real
# signed log (a 2-round, 3-seat game played through the full protocol by `cfnet selfplay
# --protocol`), press keys as a person would and check what the screen shows: the start, the
# next round (PageDown), the end (End), the hands (h), a step back (Left), and that q leaves
# with status 0. Exits non-zero with the reason and the screen on failure; always removes its
# own tmux server.   usage: scripts/tmux_replay.sh   (CFNET=path/to/cfnet for another one)
set -euo pipefail
cd "$(dirname "$0")/.."

CFNET=${CFNET:-$PWD/.venv/bin/cfnet}
SOCKET="cfnet-tmux-replay-$$"
PANE=replay
WORK=$(mktemp -d)
tmux_() { tmux -u -L "$SOCKET" "$@"; }
cleanup() {
    tmux_ kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

command -v tmux >/dev/null || { echo "tmux_replay: tmux is not installed" >&2; exit 2; }
[ -x "$CFNET" ] || { echo "tmux_replay: no cfnet at $CFNET (set CFNET)" >&2; exit 2; }
# A server of our own that stays up between sessions: a server whose last session is killed
# exits, and a session started meanwhile fails ("server exited unexpectedly").
tmux_ start-server \; set-option -g exit-empty off

screen() { tmux_ capture-pane -p -t "$PANE"; }
fail() {
    echo "tmux_replay: FAIL: $*" >&2
    echo "---- the screen (80x24) ----" >&2
    screen >&2 || true
    exit 1
}
wait_for() {
    local deadline=$((SECONDS + ${3:-10}))
    until screen | grep -qE -- "$1"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $2 (/$1/)"
        sleep 0.05
    done
}
key() { tmux_ send-keys -t "$PANE" "$1"; }

"$CFNET" selfplay --protocol --players 3 --seed 2 --rule rounds=2 --log "$WORK/game.cflog" \
    >/dev/null
tmux_ new-session -d -s "$PANE" -x 80 -y 24 \
    "$CFNET replay $WORK/game.cflog; echo \$? > $WORK/rc; sleep 30"
wait_for "replay 'selfplay' · round 1/2 · move 0" "the viewer at the first deal"
screen | grep -qF "centre [9|9]" || fail "no 9-9 centre in round 1"
screen | grep -qF "round 1: centre [9|9]" || fail "no round start in the move list"
key PageDown
wait_for "round 2/2 · move 0" "round 2 after PageDown"
key Left
wait_for "round 1/2 · move [1-9]" "round 1's last move after Left"
wait_for "Round 1 over:" "round 1's end"
key End
wait_for "Round 2 over:" "the last round's end after End"
wait_for "valid: a complete game" "the verdict"
key h
wait_for "Hands at this move:" "the revealed hands after h"
key q
deadline=$((SECONDS + 10))
until [ -s "$WORK/rc" ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the viewer did not exit after q"
    sleep 0.05
done
[ "$(cat "$WORK/rc")" = 0 ] || fail "the viewer exited with status $(cat "$WORK/rc")"
echo "tmux_replay: OK"
