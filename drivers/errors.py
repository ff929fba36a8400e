"""The drivers' exception tree: link failures (wrapping serial/USB errors ``from err``) and bad configuration.

Irregularities and bad device input are *data* (error notices, see ``drivers.notices``); these exceptions
are for a link that cannot be used or a configuration that cannot be loaded.
"""
from __future__ import annotations


class DriverError(Exception):
    """Root of every exception raised by ``drivers``."""


class LinkError(DriverError):
    """A link could not be opened, or an I/O operation on it failed."""


class LinkClosed(LinkError):
    """The link went away (device unplugged, peer closed, port closed); reopen it from its URL."""


class DeckError(DriverError):
    """A deck cannot be learned or loaded (wrong tag count, a tag twice, a tag in two decks, bad file)."""


class ConfigError(DriverError):
    """A device configuration (serial number -> seat map) that cannot be used."""


class NotLearning(DriverError, RuntimeError):
    """A deck learning was finished while no deck was being learned."""


class NotAChoice(DriverError, ValueError):
    """An operator's decision that the board stop does not offer."""
