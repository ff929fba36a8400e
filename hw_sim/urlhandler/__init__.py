"""pyserial URL handlers provided by hw_sim (``sim://``); found through ``serial.protocol_handler_packages``."""
