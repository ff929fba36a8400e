"""Irregularity codes are one StrEnum: each member is its own name as a plain string on the wire."""
import json

from table.codes import IrregularityCode
from table.irregularity import Irregularity


def test_each_code_is_its_name_and_serialises_as_a_plain_string():
    for code in IrregularityCode:
        assert code.value == code.name and code == code.name and str(code) == code.name
    irr = Irregularity(IrregularityCode.REVOKE, "61A", "N", "play", {"trick": 3, "card": 1})
    assert json.dumps(irr.to_dict()) == json.dumps({**irr.to_dict(), "code": "REVOKE"})
    assert f"{irr.code}" == "REVOKE"
