"""The club's event: rounds of the movement, the clock, guidance, members and public results."""
