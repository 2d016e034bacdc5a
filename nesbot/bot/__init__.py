"""The bot: the policy (RAM in, buttons out), its planner settings, and the games it plays:
`nesbot play`'s session and `nesbot.attach` in someone else's loop."""
