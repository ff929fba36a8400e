"""The bridge domain: cards, boards, the laws of the seed edition (1997 WBF numbering) as pure
functions, scoring, file formats, and the ``transitions`` machine that sequences a board."""
