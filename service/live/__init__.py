"""The running tables: the engine per table, the club, devices, who sees what, live delivery."""
