"""The tap rates a bot can play at: how often one button can be pressed again."""

TAP_RATES = {30: 2, 20: 3, 15: 4, 12: 5, 10: 6}  # Hz -> frames between presses of a button
