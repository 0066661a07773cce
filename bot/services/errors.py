"""The one exception type for refusals the user can fix."""


class UserError(ValueError):
    """A refused request: the message (one line) says what is wrong and what to do.

    Raised before anything is written, or inside the write transaction so it rolls back:
    a UserError never leaves a change behind.
    """
