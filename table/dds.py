"""One double-dummy solve at a time in a process.

endplay's DDS (Bo Haglund's solver) keeps its search state per solver thread, and endplay's calls all use the
same one: two solves from two Python threads at once corrupt each other and crash the process (seen with two
services analysing their hand records in one test process). Every caller of ``endplay.dds`` holds this lock; the
solver releases the GIL while it runs, so the rest of the program goes on meanwhile.
"""
from __future__ import annotations

import threading

SOLVER_LOCK = threading.Lock()
