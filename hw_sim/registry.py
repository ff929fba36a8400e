"""The in-process device registry behind ``sim://NAME`` URLs.

``register(port)`` makes a simulated device reachable as ``sim://<port.name>``. Opening a URL whose name
is not registered builds a default device from the name through a factory (``loopback`` is built in;
``hw_sim.devices`` adds ``seat-reader-N``, ``bidding-box-N`` ...), so ``serial_for_url("sim://loopback")``
just works.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Callable

from .errors import NoSuchDevice
from .faults import FaultSpec
from .port import DevicePort

_ports: dict[str, DevicePort] = {}
_factories: list[tuple[re.Pattern[str], Callable[[re.Match[str], FaultSpec], DevicePort]]] = []
_lock = threading.Lock()


def register(port: DevicePort, name: str | None = None) -> str:
    """Make ``port`` reachable as ``sim://NAME``; returns the URL."""
    key = name or port.name
    with _lock:
        _ports[key] = port
    return f"sim://{key}"


def unregister(name: str) -> None:
    with _lock:
        _ports.pop(name, None)


def get(name: str) -> DevicePort | None:
    with _lock:
        return _ports.get(name)


def add_factory(pattern: str, factory: Callable[[re.Match[str], FaultSpec], DevicePort]) -> None:
    """Build a device for an unregistered ``sim://`` name matching ``pattern`` (a full-match regex)."""
    with _lock:
        _factories.append((re.compile(pattern), factory))


def get_or_create(name: str, faults: FaultSpec) -> DevicePort:
    with _lock:
        port = _ports.get(name)
        if port is not None:
            return port
        for pattern, factory in _factories:
            m = pattern.fullmatch(name)
            if m:
                port = factory(m, faults)
                _ports[name] = port
                return port
    raise NoSuchDevice(f"no simulated device named {name!r} (registered: {', '.join(sorted(_ports)) or 'none'})")


def clear() -> None:
    with _lock:
        _ports.clear()


def _loopback(m: re.Match[str], faults: FaultSpec) -> DevicePort:
    from .loopback import LoopbackDevice
    return DevicePort(LoopbackDevice(m.group(0)), faults)


add_factory(r"loopback(-\w+)?", _loopback)
