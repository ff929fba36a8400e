"""The simulators' exception tree, rooted in :class:`SimulatorError`.

::

    SimulatorError
    ├── FaultSpecError        (also a ValueError) a wire/device fault spec that cannot be parsed
    ├── DealerFaultError      (also a ValueError) a dealer fault spec that cannot be parsed
    ├── UnknownSimulation     (also a ValueError) a device kind or transport the simulators do not have
    ├── NoSuchDevice          (also a LookupError) a ``sim://`` name no device is registered or built for
    ├── Unplugged             the simulated device is unplugged (transports turn it into their own error)
    └── ReactorTimeout        (also a TimeoutError) the transports' I/O thread did not answer

The transports speak their library's language to their users: the ``sim://`` pyserial handler raises
``serial.SerialException``, the pyusb backend ``usb.core.USBError`` / ``IndexError`` as pyusb expects.
"""
from __future__ import annotations


class SimulatorError(Exception):
    """Root of every exception raised by ``hw_sim``."""


class FaultSpecError(SimulatorError, ValueError):
    """A fault spec string that cannot be parsed; the message names the bad part."""


class DealerFaultError(SimulatorError, ValueError):
    """A dealer fault spec that cannot be parsed."""


class UnknownSimulation(SimulatorError, ValueError):
    """A simulated device kind or a transport that does not exist."""


class NoSuchDevice(SimulatorError, LookupError):
    """No simulated device is registered under a ``sim://`` name, and no factory builds one from it."""


class Unplugged(SimulatorError):
    """The simulated device is unplugged (transports turn this into their own 'device gone' error)."""


class ReactorTimeout(SimulatorError, TimeoutError):
    """The reactor thread did not run a call in time."""
