"""The HTTP edge, blind to the club: pages and static files, request hardening, connection limits, error answers."""
