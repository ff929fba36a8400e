"""The simulated club: seeded deals and robot players at simulated tables."""
