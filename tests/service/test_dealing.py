"""Simulated deals come from table/dealgen.py: reproducible only from an explicit seed."""
from service.sim.dealing import deal_for
from table.dealgen import HashDRBG, random_deal


def test_a_seed_gives_the_same_deal_for_a_board_and_another_for_the_next():
    assert deal_for(3, 1) == deal_for(3, 1) == random_deal(HashDRBG("bridgetable-deal:3:1"))
    assert deal_for(3, 2) != deal_for(3, 1) and deal_for(4, 1) != deal_for(3, 1)


def test_without_a_seed_the_deal_comes_from_the_secure_source(monkeypatch):
    import service.sim.dealing as dealing
    used = []
    monkeypatch.setattr(dealing, "source", lambda: used.append(1) or HashDRBG("stand-in"))
    deal_for(None, 1)
    assert used == [1]
