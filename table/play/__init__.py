"""The play period (Laws 41-71): :class:`Play` follows the cards of one board and flags irregularities."""
from .engine import Play
from .errors import PlayRulingError

__all__ = ["Play", "PlayRulingError"]
