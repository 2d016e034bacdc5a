"""The one exception type that reaches the user."""


class NesbotError(Exception):
    """A problem with the user's input or environment, said in one sentence.

    The CLI prints the message on stderr and exits with status 2; no traceback is shown
    unless --debug is given. Raise it with a message that names what was found.
    """


class NesbotWarning(UserWarning):
    """Something the user should know that does not stop nesbot: it changed the user's
    emulator (nesbot.attach), or it is asked to play where it cannot promise to."""
