"""Coups used across the tests: (player cards, banker cards), each dealt by the rules unless named."""

BANKER_NATURAL = (["2H", "5D"], ["4C", "5S"])  # Player 7, Banker 9 (natural): Banker wins
BANKER_SIX = (["KH", "5D", "QS"], ["QC", "6S"])  # Player 5 draws a 0, Banker 6 stands: Banker wins with 6
DRAGON_7 = (["KH", "6D"], ["2C", "3S", "2D"])  # Player 6 stands, Banker 5 draws to a three-card 7
PLAYER_PAIR = (
    ["9H", "9D"],
    ["9C", "KS"],
)  # Player 8 with a pair of nines, Banker 9: both natural, Banker wins
PLAYER_NATURAL = (["8H", "KD"], ["2C", "3S"])  # Player 8 (natural) against Banker 5
TIE = (["9H", "KD"], ["9C", "KS"])  # 9 against 9
MISSING_DRAW = (["2H", "3D"], ["6C", "KD"])  # Player stood on 5: the rule says draw
