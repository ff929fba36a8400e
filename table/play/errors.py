"""The play's one input error."""
from __future__ import annotations

from ..errors import BridgeError


class PlayRulingError(BridgeError, ValueError):
    """A ruling that does not apply now: no such open irregularity, an option the law does not offer, or a
    chooser who is not entitled to choose."""
