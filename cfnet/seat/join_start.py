"""The start of `cfnet join` and `cfnet bot`: a seat that looks for its table by name begins to
listen on mDNS before it loads the rest of the program. The look for namesakes counts from
then (protocol.md 6.4), so loading the game takes none of the time a joiner waits."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from cfnet.errors import LocalProtocolError, PeerProtocolError, UsageError
from cfnet.lang import _
from cfnet.net.discovery import Discovery
from cfnet.seat.process import failed, interrupted, run_loop, setup

if TYPE_CHECKING:
    from cfnet.seat.config import JoinConfig
    from cfnet.seat.seating import Entropy, MakeFront


def run_join(
    config: JoinConfig, make_front: MakeFront, command: str, entropy: Entropy | None = None
) -> int:
    """`cfnet join` or `cfnet bot` (`command`) in one loop; the exit code. `entropy`: where
    the seat's secrets come from (None: the system's randomness)."""
    if config.table is None and config.connect is None:
        return failed(command, UsageError(_("name a table, or give --connect HOST:PORT")))
    try:
        setup(config.peer)
        return run_loop(_listen_then_join(config, make_front, entropy))
    except (LocalProtocolError, PeerProtocolError, OSError, TimeoutError) as exc:
        return failed(command, exc)
    except KeyboardInterrupt as stop:
        return interrupted(command, stop)


async def _listen_then_join(
    config: JoinConfig, make_front: MakeFront, entropy: Entropy | None
) -> int:
    by_name = config.connect is None
    listening = Discovery(config.peer.interface) if by_name else contextlib.nullcontext()
    async with listening as discovery:
        from cfnet.seat.join import set_up_and_join  # the rest loads while mDNS listens

        return await set_up_and_join(config, make_front, entropy, discovery)
