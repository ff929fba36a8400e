"""Simulated bridge-table devices speaking the real wire protocol from the device side.

Importing ``hw_sim`` registers the ``sim://`` URL scheme with pyserial
(``serial.protocol_handler_packages``), so ``serial.serial_for_url("sim://seat-reader-1")`` works.
Transports: :mod:`hw_sim.pty` (a real pty), :mod:`hw_sim.tcp` (``socket://``), :mod:`hw_sim.usb_backend`
(a pyusb backend), and ``sim://`` (in-process). Faults: :mod:`hw_sim.faults`.
"""
from __future__ import annotations

import serial

if "hw_sim.urlhandler" not in serial.protocol_handler_packages:
    serial.protocol_handler_packages.append("hw_sim.urlhandler")

from . import devices as _devices  # registers the sim://seat-reader-N, sim://bidding-box-N ... factories
